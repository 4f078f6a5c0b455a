//! The trial worker's exact checkpoint measure (`measure::ExactMeasure`, issue 30), natively:
//! stepped on the CPU it gives `exact::log_z`'s bits; stepped on the GPU (lavapipe here; the
//! walk of a browser's worker, never waiting) it gives `rbm_gpu::exact::log_z`'s bits, within
//! 1e-6 relative of the CPU's f64 value; the ATLL is the CPU's mean free energy minus that log Z.
//!
//! Run: `XDG_RUNTIME_DIR=/tmp cargo test -p rbm-playground --features gpu --test measure`.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::data::Dataset;
use rbm_core::eval::exact;
use rbm_core::model::Rbm;
use rbm_playground::measure::ExactMeasure;
use std::sync::Arc;

/// A model like a trained one on images: weights of `scale`, visible biases around −2, hidden
/// biases around −1.
fn trained_like(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
    let mut rbm = Rbm::random(m, n, scale, seed).unwrap();
    for (i, b) in rbm.b.iter_mut().enumerate() {
        *b = -2.0 + ((i * 7919) % 13) as f32 * 0.1;
    }
    for (j, c) in rbm.c.iter_mut().enumerate() {
        *c = -1.0 + ((j * 104_729) % 7) as f32 * 0.1;
    }
    rbm
}

/// Grey rows (thresholded by the measure at 0.5).
fn rows(m: usize, n: usize) -> Arc<Dataset> {
    let data: Vec<f32> = (0..m * n)
        .map(|i| ((i * 2_654_435_761) % 1000) as f32 / 1000.0)
        .collect();
    Arc::new(Dataset {
        name: "grey".into(),
        m,
        values: data,
        shape: None,
        labels: None,
    })
}

#[test]
fn the_cpu_steps_give_the_one_shot_bits() {
    let model = trained_like(40, 19, 0.2, 3);
    let data = rows(40, 30);
    let mut run = ExactMeasure::cpu(&model, &data, 7).unwrap();
    let mut calls = 0;
    let last = loop {
        calls += 1;
        let p = run.advance(3).unwrap();
        if p.done {
            break p;
        }
        assert!(run.result().is_err(), "no result before the end");
    };
    // 2^19 states: 8 blocks of 2^16, 3 per call.
    assert_eq!((calls, last.done_steps, last.total_steps), (3, 8.0, 8.0));
    let want = exact::log_z(&model).unwrap();
    let got = run.result().unwrap();
    assert_eq!(got.log_z.to_bits(), want.to_bits());
    assert!(!data.is_binary());
    let atll = exact::average_log_likelihood(&model, &data.thresholded(), want).unwrap();
    assert_eq!(got.atll.to_bits(), atll.to_bits());
    assert_eq!(run.iter(), 7);
}

#[test]
fn rows_that_do_not_fit_are_refused() {
    let model = trained_like(40, 8, 0.2, 3);
    assert!(ExactMeasure::cpu(&model, &rows(41, 3), 0).is_err());
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_walk_gives_the_gpu_enumeration_and_the_cpu_value() {
    let dev = rbm_gpu::Device::open(None).expect("a GPU adapter (lavapipe in CI)");
    // 2^23 states: two dispatches and the copy back.
    let model = trained_like(64, 23, 0.2, 8);
    let data = rows(64, 50);
    let want = rbm_gpu::exact::log_z(&dev, &model).unwrap();
    let mut run = ExactMeasure::gpu(&dev, &model, &data, 0).unwrap();
    let first = run.advance(1).unwrap();
    assert_eq!(
        (first.done, first.done_steps, first.total_steps),
        (false, 1.0, 3.0)
    );
    let mut polls = 0;
    loop {
        let p = run.advance(1).unwrap();
        if p.done {
            assert_eq!((p.done_steps, p.total_steps), (3.0, 3.0));
            break;
        }
        polls += 1;
        assert!(polls < 10_000, "the copy reached the host");
        dev.progress();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let got = run.result().unwrap();
    assert_eq!(got.log_z.to_bits(), want.to_bits());
    let cpu = exact::log_z(&model).unwrap();
    assert!(
        ((got.log_z - cpu) / cpu).abs() < 1e-6,
        "GPU {}, CPU {cpu}",
        got.log_z
    );
    let atll = exact::average_log_likelihood(&model, &data.thresholded(), got.log_z).unwrap();
    assert_eq!(got.atll.to_bits(), atll.to_bits());
}

//! The study's batched checkpoint AIS (`gpu::ais_batch`, issue 30), natively on lavapipe: the
//! batch stepped without waiting, a few β steps per call and the copy polled for, gives every
//! model the log-weights of `rbm_gpu::ais::plans_log_weights` (one `Anneal::batch`) bit for bit,
//! and those of a batch of that model alone (a trial annealing its own checkpoint) whatever else
//! is in the batch; a trial's request (`request_plan`: its parameters and the test set's base
//! rates) anneals exactly as the trial's own `Plan::ais` of the test set.
//!
//! Run: `XDG_RUNTIME_DIR=/tmp cargo test -p rbm-playground --features gpu --test ais_batch`.
#![cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]

use rbm_core::data::Dataset;
use rbm_core::eval::ais::{base_rates, AisConfig, Plan, Schedule};
use rbm_core::model::{Params, Rbm};
use rbm_gpu::ais::{self, Anneal};
use rbm_playground::gpu::ais_batch::{request_plan, room, BatchAnneal, MAX_BATCH};
use std::sync::Arc;

fn device() -> Arc<rbm_gpu::Device> {
    rbm_gpu::Device::open(None).expect("a GPU adapter (lavapipe in CI)")
}

fn cfg(particles: usize, betas: usize, seed: u64) -> AisConfig {
    AisConfig {
        particles,
        betas,
        seed,
        schedule: Schedule::Linear,
    }
}

/// A model like a trained one: small weights, visible biases around −1, varied by `seed`.
fn model(m: usize, n: usize, seed: u64) -> Rbm {
    let mut rbm = Rbm::random(m, n, 0.3, seed).unwrap();
    for (i, b) in rbm.b.iter_mut().enumerate() {
        *b = -1.0 + ((i * 7919 + seed as usize) % 13) as f32 * 0.1;
    }
    for (j, c) in rbm.c.iter_mut().enumerate() {
        *c = -0.5 + ((j * 104_729) % 7) as f32 * 0.1;
    }
    rbm
}

/// Steps `run` `chunk` β steps per call, letting the device's callbacks run between calls (a
/// browser runs them itself), until its log-weights are on the host.
fn anneal(dev: &rbm_gpu::Device, run: &mut BatchAnneal, chunk: usize) -> Vec<Vec<f64>> {
    let mut last = 0;
    for _ in 0..100_000 {
        let (lw, done) = run.advance(chunk).unwrap();
        assert!(
            done >= last && done <= run.steps(),
            "progress {done} after {last}"
        );
        last = done;
        if let Some(lw) = lw {
            return lw;
        }
        // Submits what is recorded and runs the copy's callback (as in crates/gpu's tests).
        dev.finish();
        dev.progress();
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    panic!("the batch did not finish within 100 000 calls");
}

#[test]
fn the_stepped_batch_gives_anneal_batch_s_bits_and_each_model_its_own() {
    let dev = device();
    let (m, n) = (40, 12);
    let plans: Vec<Plan> = (0..4)
        .map(|i| {
            let rbm = model(m, n, 10 + i);
            let base: Vec<f32> = rbm.b.iter().map(|&b| 0.5 * b - 0.1 * i as f32).collect();
            Plan::ais_log_z(&rbm, Some(&base), cfg(30, 97, 500 + i)).unwrap()
        })
        .collect();
    let want = ais::plans_log_weights(&dev, &plans).unwrap();
    for chunk in [1, 7, 1000] {
        let mut run = BatchAnneal::new(&dev, &plans).unwrap();
        assert_eq!(
            anneal(&dev, &mut run, chunk),
            want,
            "{chunk} β steps per call"
        );
    }
    // Each model alone (a trial annealing its own checkpoint): the same bits.
    for (i, plan) in plans.iter().enumerate() {
        let mut alone = BatchAnneal::new(&dev, std::slice::from_ref(plan)).unwrap();
        assert_eq!(
            anneal(&dev, &mut alone, 13),
            vec![want[i].clone()],
            "model {i}"
        );
    }
    // Another company and order: the same bits per model.
    let mut other = BatchAnneal::new(&dev, &[plans[3].clone(), plans[1].clone()]).unwrap();
    assert_eq!(
        anneal(&dev, &mut other, 5),
        vec![want[3].clone(), want[1].clone()]
    );
    assert_ne!(want[0], want[1]);
}

#[test]
fn a_request_anneals_as_the_trial_s_own_plan_of_its_test_set() {
    let dev = device();
    let (m, n) = (30, 10);
    let rbm = model(m, n, 3);
    let rows: Vec<Vec<u8>> = (0..20)
        .map(|r| (0..m).map(|i| ((r * 31 + i * 17) % 5 < 2) as u8).collect())
        .collect();
    let data = Dataset::from_rows("rows", &rows, None).unwrap();
    let own = Plan::ais(&rbm, &data, None, cfg(20, 50, 77)).unwrap();
    let base = base_rates(&data);
    assert_eq!(own.base_b(), base.as_slice());
    let params = Params {
        w: rbm.w().to_vec(),
        b: rbm.b.clone(),
        c: rbm.c.clone(),
    };
    let request = request_plan(m, n, params, own.base_b(), 20, 50, 77).unwrap();
    let a = ais::plans_log_weights(&dev, std::slice::from_ref(&own)).unwrap();
    let b = ais::plans_log_weights(&dev, &[request]).unwrap();
    assert_eq!(a, b);
    // A request that does not fit is refused with a clear error.
    let bad = Params {
        w: vec![0.0; 3],
        b: vec![0.0; m],
        c: vec![0.0; n],
    };
    let e = request_plan(m, n, bad, own.base_b(), 20, 50, 77)
        .err()
        .unwrap();
    assert!(e.to_string().contains("do not fit"), "{e}");
}

#[test]
fn a_batch_holds_what_the_device_binds_and_at_most_max_batch() {
    let dev = device();
    let limit = dev.wgpu().0.limits().max_storage_buffer_binding_size as usize / 4;
    assert_eq!(room(&dev, 20, 10, 10), MAX_BATCH);
    let k = room(&dev, 784, 500, 100);
    assert!((1..=MAX_BATCH).contains(&k));
    assert!(k * 784 * 500 <= limit && k * (100 * 784 + 784 + 4) <= limit);
    assert!(k == MAX_BATCH || (k + 1) * 784 * 500 > limit);
}

/// A live GPU lane's estimate (`WasmLane::ais`) runs `Anneal::new`, which splits an MNIST-sized
/// model's products over workgroups and so sums them in another order than a batch does: the
/// pre-activations differ in their last bits (on lavapipe, 784×16, 100 × 300 β: 43 of 100
/// chains' log-weights differ, log Ẑ by 1e-7 nats), and over long runs a Bernoulli draw near its
/// threshold may flip and the chains part. So a study's checkpoint AIS (a batch, or a batch of
/// one) and the lane's own agree in law, not bit for bit: their estimates overlap within bars.
#[test]
fn a_batch_of_one_and_the_lane_s_own_run_agree_within_their_bars() {
    let dev = device();
    let rbm = model(784, 16, 5);
    let base: Vec<f32> = rbm.b.iter().map(|&b| 0.5 * b - 0.5).collect();
    let plan = Plan::ais_log_z(&rbm, Some(&base), cfg(100, 300, 9)).unwrap();
    let own = ais::plan_log_weights(&dev, &plan).unwrap();
    let mut run = BatchAnneal::new(&dev, std::slice::from_ref(&plan)).unwrap();
    let batched = anneal(&dev, &mut run, 50).remove(0);
    let cut = |lw: &[f64]| Anneal::blocks(lw);
    let a = plan.log_z(&cut(&own)).unwrap();
    let b = plan.log_z(&cut(&batched)).unwrap();
    let exact = rbm_core::eval::exact::log_z(&rbm).unwrap();
    let parted = own.iter().zip(&batched).filter(|(x, y)| x != y).count();
    eprintln!("lane's own {a:?}, batch of one {b:?}, exact {exact}; {parted} of 100 chains differ");
    assert!(
        a.log_z_lo <= b.log_z_hi && b.log_z_lo <= a.log_z_hi,
        "{a:?} vs {b:?}"
    );
    assert!((a.log_z - b.log_z).abs() < 0.5 && (b.log_z - exact).abs() < 0.5);
}

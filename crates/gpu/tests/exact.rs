//! Exact log Z on the GPU (issue 30) against the CPU's f64 enumeration, on whatever adapter wgpu
//! finds (lavapipe in CI): a relative error of at most 1e-6 for models with the hidden or the
//! visible layer enumerated, small, partial-block and MNIST-sized (784×25 is `#[ignore]`d: it
//! takes minutes on lavapipe; run it on a real GPU with `-- --ignored`).

use rbm_core::error::Error;
use rbm_core::eval::exact;
use rbm_core::model::{Params, Rbm};
use rbm_core::rng::{normal, stream, Purpose};
use std::time::Instant;

mod common;
use common::device;

/// A model like a trained one on MNIST: weights of `scale`, visible biases around −2 (most
/// pixels off), hidden biases around −1.
fn trained_like(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
    let mut r = stream(seed, 0, Purpose::Aux);
    let mut p = Params::zeros(m, n);
    p.w.iter_mut()
        .for_each(|w| *w = (scale * normal(&mut r)) as f32);
    p.b.iter_mut()
        .for_each(|b| *b = (-2.0 + normal(&mut r)) as f32);
    p.c.iter_mut()
        .for_each(|c| *c = (-1.0 + 0.5 * normal(&mut r)) as f32);
    Rbm::from_params(m, n, p).unwrap()
}

fn check(name: &str, model: &Rbm) {
    let dev = device();
    let t0 = Instant::now();
    let want = exact::log_z(model).unwrap();
    let cpu = t0.elapsed();
    let t1 = Instant::now();
    let got = rbm_gpu::exact::log_z(&dev, model).unwrap();
    let gpu = t1.elapsed();
    let rel = (got - want).abs() / want.abs();
    eprintln!(
        "{name} ({}×{}): GPU {got:.9} CPU {want:.9}, relative error {rel:.2e}; GPU {:.3} s, CPU {:.3} s ({})",
        model.m(),
        model.n(),
        gpu.as_secs_f64(),
        cpu.as_secs_f64(),
        dev.info.name
    );
    assert!(
        rel <= 1e-6,
        "{name}: GPU log Z {got} vs CPU {want}: relative error {rel:e}"
    );
}

#[test]
fn small_models_with_a_partial_block() {
    check("random 10×8", &Rbm::random(10, 8, 0.5, 1).unwrap());
    check("random 5×3", &Rbm::random(5, 3, 1.0, 2).unwrap());
    check("trained-like 10×8", &trained_like(10, 8, 0.5, 3));
}

#[test]
fn hidden_and_visible_layers_enumerated() {
    check(
        "random 30×12 (hidden)",
        &Rbm::random(30, 12, 0.3, 4).unwrap(),
    );
    check(
        "random 12×30 (visible)",
        &Rbm::random(12, 30, 0.3, 5).unwrap(),
    );
    check(
        "trained-like 12×100 (visible)",
        &trained_like(12, 100, 0.3, 6),
    );
    check(
        "random 200×11 (hidden, 4 tiles)",
        &Rbm::random(200, 11, 0.2, 7).unwrap(),
    );
}

#[test]
fn mnist_sized_784x16() {
    check("random 784×16", &Rbm::random(784, 16, 0.05, 8).unwrap());
    check("trained-like 784×16", &trained_like(784, 16, 0.3, 9));
}

#[test]
fn mnist_sized_784x20() {
    check("random 784×20", &Rbm::random(784, 20, 0.05, 10).unwrap());
    check("trained-like 784×20", &trained_like(784, 20, 0.3, 11));
}

#[test]
#[ignore = "minutes on lavapipe; run on a real GPU with -- --ignored"]
fn mnist_sized_784x25() {
    check("random 784×25", &Rbm::random(784, 25, 0.05, 12).unwrap());
    check("trained-like 784×25", &trained_like(784, 25, 0.3, 13));
}

#[test]
fn more_than_2_30_states_are_refused() {
    let dev = device();
    for (m, n) in [(64, 31), (31, 64)] {
        let model = Rbm::random(m, n, 0.1, 14).unwrap();
        match rbm_gpu::exact::log_z(&dev, &model) {
            Err(Error::TooLarge(msg)) => assert!(msg.contains("2^31"), "{msg}"),
            other => panic!("{m}×{n}: expected TooLarge, got {other:?}"),
        }
    }
}

/// The walk a browser's worker takes (`ExactWalk`: a dispatch at a time, never waiting, the
/// blocks' sums copied back when ready) gives `log_z`'s number bit for bit, over two dispatches
/// (2^23 states of a 24×23 model), and the CPU's f64 value within 1e-6.
#[test]
fn a_stepped_walk_is_the_one_shot_enumeration() {
    let dev = device();
    let model = trained_like(24, 23, 0.2, 8);
    let want = rbm_gpu::exact::log_z(&dev, &model).unwrap();
    let mut walk = rbm_gpu::exact::ExactWalk::new(&dev, &model).unwrap();
    assert_eq!(walk.progress(), (0, 2));
    let mut calls = 0;
    while !walk.advance(1) {
        calls += 1;
    }
    assert_eq!((calls, walk.progress()), (1, (2, 2)));
    let copy = walk.finish();
    let parts = common::on_host(&dev, &copy).unwrap();
    let got = rbm_gpu::exact::ExactWalk::log_z(&parts).unwrap();
    assert_eq!(got.to_bits(), want.to_bits());
    let cpu = exact::log_z(&model).unwrap();
    assert!(((got - cpu) / cpu).abs() < 1e-6, "GPU {got}, CPU {cpu}");
}

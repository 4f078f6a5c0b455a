//! ISL's distance histograms on the GPU (issue 30) against the CPU's, on whatever adapter wgpu
//! finds (lavapipe in CI): the distances are integers, so every point of the curve (its ISL and
//! the β chosen on the validation examples) equals the CPU's bit for bit, across dispatch
//! chunks, word boundaries and grey levels thresholded at 0.5.

use rbm_core::eval::isl::{Isl, IslPoint};
use rbm_core::rng::{stream, uniform, Purpose, Rng};
use rbm_gpu::{isl, Device};
use std::sync::Arc;

fn device() -> Arc<Device> {
    Device::open(None).expect("a GPU adapter (lavapipe in CI)")
}

/// `rows` patterns of `d` values: 1 with probability `q`, or grey levels u³ (u uniform: 1 after
/// the threshold with probability 1 − 0.5^{1/3} ≈ 0.21) when `grey`.
fn patterns(r: &mut Rng, rows: usize, d: usize, q: f32, grey: bool) -> Vec<f32> {
    (0..rows * d)
        .map(|_| {
            let u = uniform(r);
            if grey {
                u * u * u
            } else {
                f32::from(u < q)
            }
        })
        .collect()
}

/// The CPU's curve: samples added one by one, a point at each N of `at`.
fn cpu(
    test: &[f32],
    valid: Option<&[f32]>,
    s: &[f32],
    d: usize,
    at: &[u64],
    beta: Option<f64>,
) -> Vec<IslPoint> {
    let mut isl = Isl::new(test, valid, d).unwrap();
    let mut points = Vec::new();
    for row in s.chunks(d) {
        isl.add(row);
        if at.contains(&isl.count()) {
            points.push(isl.point(beta).unwrap());
        }
    }
    points
}

#[test]
fn the_gpu_curve_is_the_cpus_bit_for_bit() {
    let dev = device();
    let mut r = stream(8, 0, Purpose::Aux);
    // 70 units: three 24-bit words, the last one partial; 600 samples: three dispatch chunks.
    let d = 70;
    let (test, valid, s) = (
        patterns(&mut r, 37, d, 0.3, false),
        patterns(&mut r, 23, d, 0.3, false),
        patterns(&mut r, 600, d, 0.3, false),
    );
    let at = [1, 10, 255, 256, 257, 600];
    for beta in [None, Some(0.83)] {
        let g = isl::curve(&dev, &test, Some(&valid), &s, d, &at, beta).unwrap();
        assert_eq!(g, cpu(&test, Some(&valid), &s, d, &at, beta), "β {beta:?}");
    }
    let g = isl::curve(&dev, &test, None, &s, d, &at[..2], None).unwrap();
    assert_eq!(g, cpu(&test, None, &s, d, &at[..2], None));
    // MNIST's size of pattern, grey levels thresholded at 0.5 on both sides.
    let d = 784;
    let (test, valid, s) = (
        patterns(&mut r, 20, d, 0.0, true),
        patterns(&mut r, 10, d, 0.0, true),
        patterns(&mut r, 300, d, 0.0, true),
    );
    let at = [1, 100, 300];
    let g = isl::curve(&dev, &test, Some(&valid), &s, d, &at, None).unwrap();
    assert_eq!(g, cpu(&test, Some(&valid), &s, d, &at, None));
    eprintln!("784 units: {g:?}");
    // Numbers of samples out of order or beyond the samples are errors.
    assert!(isl::curve(&dev, &test, None, &s, d, &[100, 10], None).is_err());
    assert!(isl::curve(&dev, &test, None, &s, d, &[301], None).is_err());
    assert!(isl::curve(&dev, &test, None, &s[..d - 1], d, &[1], None).is_err());
}

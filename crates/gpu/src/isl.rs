//! Indirect sampling likelihood on the GPU (issue 30): the Hamming-distance histograms of
//! `rbm_core::eval::isl` (Breuleux, Bengio & Vincent 2010, *Unlearning for better mixing*, the
//! Parzen estimate of §4 with a binary kernel; docs/algorithms.md §5) counted by a WGSL kernel
//! with `countOneBits`, then scored on the host by the CPU's own f64 code ([`Isl::set_counts`],
//! [`Isl::point`]).
//!
//! Patterns are thresholded at 0.5 (as on the CPU) and packed 24 bits to an f32 word, an integer
//! f32 holds exactly (WGSL's storage here is f32 and has no 64-bit integers); one thread per
//! held-out example adds each sample's distance `Σ countOneBits(x ^ s)` to its histogram,
//! whose counts stay exact integers below 2^24 samples. The distances are integers, so the
//! histograms, and every number of the curve, equal the CPU's bit for bit (tested). Reading the
//! counts back waits for the GPU: native only.

use crate::device::{Buf, Device, Params, Pipeline};
use rbm_core::error::{Error, Result};
use rbm_core::eval::isl::{Isl, IslPoint};
use std::sync::Arc;

/// Most samples a curve may hold: the histograms' counts are f32, exact below 2^24.
pub const MAX_SAMPLES: usize = 1 << 24;

/// Bits per packed word: the largest integer an f32 holds exactly is 2^24.
const BITS: usize = 24;

/// Samples per dispatch, so one dispatch stays short.
const CHUNK: usize = 256;

/// Rows of `d` values, thresholded at 0.5 (x ≥ 0.5 is 1) and packed [`BITS`] to an f32 word.
fn pack(values: &[f32], d: usize) -> Vec<f32> {
    let words = d.div_ceil(BITS);
    values
        .chunks_exact(d)
        .flat_map(|row| {
            (0..words).map(move |k| {
                let bits = row[k * BITS..d.min((k + 1) * BITS)]
                    .iter()
                    .enumerate()
                    .fold(0u32, |w, (i, &x)| w | (u32::from(x >= 0.5) << i));
                bits as f32
            })
        })
        .collect()
}

/// One set of held-out examples on the GPU: packed patterns and their histograms.
struct Set {
    rows: usize,
    x: Buf,
    counts: Buf,
}

/// The ISL curve of `samples` (rows of `d` values) scored on the `test` examples, β chosen on
/// `valid` when given (or the fixed `beta`), at each number of samples in `at` (ascending,
/// 1 … rows): the CPU's [`Isl`] points, from histograms counted on the GPU.
pub fn curve(
    dev: &Arc<Device>,
    test: &[f32],
    valid: Option<&[f32]>,
    samples: &[f32],
    d: usize,
    at: &[u64],
    beta: Option<f64>,
) -> Result<Vec<IslPoint>> {
    let mut isl = Isl::new(test, valid, d)?;
    let rows = samples.len() / d;
    if !samples.len().is_multiple_of(d) || rows > MAX_SAMPLES {
        return Err(Error::Invalid(format!(
            "ISL on the GPU takes 1 to {MAX_SAMPLES} samples of {d} values (got {} values)",
            samples.len()
        )));
    }
    if at.iter().any(|&n| n == 0 || n as usize > rows) || !at.is_sorted() {
        return Err(Error::Invalid(format!(
            "ISL's numbers of samples must be ascending, between 1 and {rows}"
        )));
    }
    let limit = dev.wgpu().0.limits().max_storage_buffer_binding_size;
    let words = d.div_ceil(BITS);
    let bytes = (rows * words) as u64 * 4;
    if bytes > limit {
        return Err(Error::TooLarge(format!(
            "ISL's {rows} samples need a {bytes}-byte buffer on the GPU; this GPU binds at most \
             {limit} (use fewer samples)"
        )));
    }
    let sets: Vec<&[f32]> = std::iter::once(test).chain(valid).collect();
    let mut gpu = Vec::new();
    for x in sets {
        let r = x.len() / d;
        let bytes = (r * (d + 1)) as u64 * 4;
        if bytes > limit {
            return Err(Error::TooLarge(format!(
                "ISL's histograms of {r} examples × {} distances need a {bytes}-byte buffer; \
                 this GPU binds at most {limit} (use fewer examples)",
                d + 1
            )));
        }
        gpu.push(Set {
            rows: r,
            x: dev.buffer(&pack(x, d)),
            counts: dev.zeros(r * (d + 1)),
        });
    }
    let hist: Arc<Pipeline> = dev.compile(include_str!("shaders/isl.wgsl"), "isl_hist");
    let s = dev.buffer(&pack(samples, d));
    let (mut done, mut points) = (0usize, Vec::new());
    for &n in at {
        let n = n as usize;
        for first in (done..n).step_by(CHUNK) {
            let count = CHUNK.min(n - first);
            for set in &gpu {
                let params = Params {
                    rows: set.rows as u32,
                    cols: words as u32,
                    depth: d as u32,
                    a_off: first as u32,
                    count: count as u32,
                    ..Default::default()
                };
                dev.run(
                    &hist,
                    &params,
                    [Some(&set.x), Some(&s), None],
                    [Some(&set.counts), None],
                    Device::element_groups(set.rows),
                );
            }
        }
        done = n;
        let mut counts = gpu
            .iter()
            .map(|set| {
                dev.read(&set.counts, 0, set.rows * (d + 1))
                    .into_iter()
                    .map(|k| k as u32)
                    .collect::<Vec<u32>>()
            })
            .collect::<Vec<_>>();
        let valid_counts = (counts.len() > 1).then(|| counts.pop().unwrap_or_default());
        isl.set_counts(counts.remove(0), valid_counts, n as u64)?;
        points.push(isl.point(beta)?);
    }
    Ok(points)
}

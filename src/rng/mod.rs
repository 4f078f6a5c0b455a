//! Seeded random streams.
//!
//! Every lane draws from named, platform-independent generators (Xoshiro256++), one per
//! purpose, all derived from a single user seed, so the same seed gives the same curve natively
//! and in wasm. `SmallRng`/`StdRng` are never used: their algorithms differ between targets.

pub mod philox;

use crate::engine::cpu::simd;
use rand::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator behind every stream.
pub type Rng = Xoshiro256PlusPlus;

/// What a stream is used for; distinct purposes never share random numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Parameter initialisation.
    Init = 1,
    /// Mini-batch order.
    Batch = 2,
    /// Gibbs sampling and every other draw of a training algorithm.
    Sampling = 3,
    /// Stochastic binarisation of grey-level data.
    Data = 4,
    /// Free for tools built on top (gradient repetitions, samplers).
    Aux = 5,
}

/// SplitMix64 finaliser: a bijective mix used to derive independent stream seeds.
fn mix(z: u64) -> u64 {
    mix_after_add(z.wrapping_add(GOLDEN_GAMMA))
}

/// SplitMix64's increment.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function (its state already advanced by [`GOLDEN_GAMMA`]).
fn mix_after_add(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for (`seed`, `lane`, `purpose`): reproducible and independent of the others.
pub fn stream(seed: u64, lane: u64, purpose: Purpose) -> Rng {
    let s = mix(mix(mix(seed) ^ lane.wrapping_mul(0xD6E8_FEB8_6659_FD93)) ^ purpose as u64);
    Rng::seed_from_u64(s)
}

/// A uniform draw in [0, 1) with 24 random bits (exactly representable in f32).
#[inline(always)]
pub fn uniform(rng: &mut Rng) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Fills of at least this many draws come from [`LANES`] sub-streams ([`fill_uniform`]).
pub const WIDE_MIN: usize = 1024;
/// Sub-streams of a wide fill.
const LANES: usize = 8;

/// Fills `out` with uniform draws in [0, 1) with 24 bits each — the draw order every sampler
/// of the core uses.
///
/// A fill of fewer than [`WIDE_MIN`] draws takes two per output of `rng` (high half first). A
/// longer one takes [`LANES`] outputs of `rng`, seeds one Xoshiro128+ sub-stream from each
/// (two SplitMix64 outputs as its four words), and runs the sub-streams in lockstep: draw
/// `LANES·q + l` is the top 24 bits of sub-stream l's output q. The same numbers on every
/// target, several times faster than one stream, whose steps form one dependency chain; the
/// sub-streams run as 32-bit vector lanes. Xoshiro128+ is its authors' generator for floats:
/// only its lowest bits are weak, and they are dropped.
#[inline]
pub fn fill_uniform(rng: &mut Rng, out: &mut [f32]) {
    if out.len() >= WIDE_MIN {
        return fill_uniform_wide(rng, out);
    }
    const K: f32 = 1.0 / 16_777_216.0;
    // Draw 2k and 2k+1 are the top 24 bits of output k's high and low halves; four at a time
    // (two outputs), so the conversions run as one vector.
    let (quads, rest) = out.as_chunks_mut::<4>();
    for q in quads {
        let (x0, x1) = (rng.next_u64(), rng.next_u64());
        *q = halves_to_uniforms(x0, x1);
    }
    let mut pairs = rest.chunks_exact_mut(2);
    for p in &mut pairs {
        let x = rng.next_u64();
        p[0] = ((x >> 40) as u32) as f32 * K;
        p[1] = (((x >> 8) as u32) & 0x00FF_FFFF) as f32 * K;
    }
    if let [last] = pairs.into_remainder() {
        *last = uniform(rng);
    }
}

/// The four draws of two outputs: the top 24 bits of `x0`'s high and low halves, then
/// `x1`'s. As one vector on SSE2 and SIMD128 (`engine::cpu::simd`); the same numbers everywhere.
#[inline(always)]
fn halves_to_uniforms(x0: u64, x1: u64) -> [f32; 4] {
    simd::halves_to_uniforms(x0, x1)
}

/// The wide path of [`fill_uniform`]: the [`LANES`] Xoshiro128+ sub-streams in lockstep (state
/// word-major: `s[w][l]` is word w of sub-stream l), each step filling [`LANES`] draws, `l` from
/// sub-stream l. Four u32 lanes per vector on SSE2 and SIMD128, scalar elsewhere
/// (`engine::cpu::simd`, whose plain path is the definition); the same bits on every target.
fn fill_uniform_wide(rng: &mut Rng, out: &mut [f32]) {
    // Sub-stream l's words: the low and high halves of two SplitMix64 outputs (`from_fn` calls
    // in index order, so sub-stream l takes the l-th output of `rng`).
    let seeds: [[u32; 4]; LANES] = std::array::from_fn(|_| {
        let mut z = rng.next_u64();
        let mut next = || {
            z = z.wrapping_add(GOLDEN_GAMMA);
            mix_after_add(z)
        };
        let (x0, x1) = (next(), next());
        [x0 as u32, (x0 >> 32) as u32, x1 as u32, (x1 >> 32) as u32]
    });
    let mut s: [[u32; LANES]; 4] = std::array::from_fn(|w| std::array::from_fn(|l| seeds[l][w]));
    let whole = out.len() - out.len() % LANES;
    let (body, rest) = out.split_at_mut(whole);
    simd::xoshiro128p_fill(&mut s, body);
    if !rest.is_empty() {
        let mut last = [0.0; LANES];
        simd::xoshiro128p_fill(&mut s, &mut last);
        rest.copy_from_slice(&last[..rest.len()]);
    }
}

/// A uniform draw in [0, 1) with 53 random bits.
#[inline(always)]
pub fn uniform_f64(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// A standard normal draw (Box–Muller on `libm`, identical on every target).
pub fn normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - uniform_f64(rng); // (0, 1]
    let u2 = uniform_f64(rng);
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2)
}

/// A uniform index in `0..n` (n > 0), by Lemire's multiply-shift (bias < 2⁻³² for small n).
#[inline]
pub fn index(rng: &mut Rng, n: usize) -> usize {
    ((rng.next_u32() as u64 * n as u64) >> 32) as usize
}

/// Fisher–Yates shuffle with [`index`].
pub fn shuffle<T>(rng: &mut Rng, xs: &mut [T]) {
    for i in (1..xs.len()).rev() {
        let j = index(rng, i + 1);
        xs.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_lane_and_purpose_and_repeat_by_seed() {
        let a: Vec<u32> = (0..4)
            .map(|_| stream(1, 0, Purpose::Sampling).next_u32())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut s1 = stream(1, 0, Purpose::Sampling);
        let mut s2 = stream(1, 1, Purpose::Sampling);
        let mut s3 = stream(1, 0, Purpose::Init);
        let (x1, x2, x3) = (s1.next_u64(), s2.next_u64(), s3.next_u64());
        assert!(x1 != x2 && x1 != x3 && x2 != x3);
    }

    /// The wide fill is its definition: the scalar sub-streams seeded as documented, the tail
    /// from one more step; `rng` moves by [`LANES`] outputs; the draws look uniform.
    #[test]
    fn wide_fill_equals_its_scalar_definition() {
        for len in [WIDE_MIN, WIDE_MIN + 1, WIDE_MIN + LANES - 1, 4099, 16_000] {
            let mut r = stream(3, len as u64, Purpose::Aux);
            let mut expect_r = r.clone();
            let mut got = vec![0.0; len];
            fill_uniform(&mut r, &mut got);
            let mut s = [[0u32; LANES]; 4];
            #[allow(clippy::needless_range_loop)]
            for l in 0..LANES {
                // SplitMix64 (Steele, Lea & Flood 2014), written out.
                let mut z = expect_r.next_u64();
                let mut splitmix = || {
                    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let x = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    let x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    x ^ (x >> 31)
                };
                let (x0, x1) = (splitmix(), splitmix());
                [s[0][l], s[1][l], s[2][l], s[3][l]] =
                    [x0 as u32, (x0 >> 32) as u32, x1 as u32, (x1 >> 32) as u32];
            }
            assert_eq!(r, expect_r, "len {len}");
            let mut want = vec![0.0; len.next_multiple_of(LANES)];
            simd::plain::xoshiro128p_fill(&mut s, &mut want);
            assert!(got
                .iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
            let mean = got.iter().map(|&u| u as f64).sum::<f64>() / len as f64;
            assert!((mean - 0.5).abs() < 4.0 * (1.0 / 12.0 / len as f64).sqrt() + 1e-3);
            assert!(got.iter().all(|u| (0.0..1.0).contains(u)));
        }
    }

    /// A short fill is its definition: draws 2k and 2k + 1 are the top 24 bits of output k's
    /// high and low halves, an odd last draw is [`uniform`] of one more output.
    #[test]
    fn short_fill_equals_its_definition() {
        for len in 0..40 {
            let mut r = stream(4, len as u64, Purpose::Aux);
            let mut expect_r = r.clone();
            let mut got = vec![0.0; len];
            fill_uniform(&mut r, &mut got);
            let k = 1.0 / 16_777_216.0;
            let mut want = Vec::new();
            while want.len() + 1 < len {
                let x = expect_r.next_u64();
                want.push((x >> 40) as f32 * k);
                want.push(((x >> 8) & 0xFF_FFFF) as f32 * k);
            }
            if want.len() < len {
                want.push(uniform(&mut expect_r));
            }
            assert_eq!(r, expect_r, "len {len}");
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "len {len}"
            );
        }
    }

    #[test]
    fn uniform_is_in_unit_interval_and_normal_has_unit_variance() {
        let mut r = stream(7, 0, Purpose::Aux);
        let n = 200_000;
        let (mut s, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            let u = uniform(&mut r);
            assert!((0.0..1.0).contains(&u));
            let z = normal(&mut r);
            s += z;
            s2 += z * z;
        }
        let mean = s / n as f64;
        let var = s2 / n as f64 - mean * mean;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "var {var}");
    }
}

//! Seeded random streams.
//!
//! Every lane draws from named, platform-independent generators (Xoshiro256++), one per
//! purpose, all derived from a single user seed, so the same seed gives the same curve natively
//! and in wasm. `SmallRng`/`StdRng` are never used: their algorithms differ between targets.

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
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
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

/// Fills `out` with uniform draws in [0, 1) with 24 bits each, two per 64-bit output (high
/// half first) — the draw order every sampler of the core uses.
#[inline]
pub fn fill_uniform(rng: &mut Rng, out: &mut [f32]) {
    const K: f32 = 1.0 / 16_777_216.0;
    let mut pairs = out.chunks_exact_mut(2);
    for p in &mut pairs {
        let x = rng.next_u64();
        p[0] = ((x >> 40) as u32) as f32 * K;
        p[1] = (((x >> 8) as u32) & 0x00FF_FFFF) as f32 * K;
    }
    if let [last] = pairs.into_remainder() {
        *last = uniform(rng);
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

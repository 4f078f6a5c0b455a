//! Philox4x32-10 (Salmon, Moraes, Dror & Shaw 2011, "Parallel random numbers: as easy as 1, 2,
//! 3", §4.2): a counter-based generator — the 4 output words are a bijection of a 128-bit
//! counter under a 64-bit key, so any draw can be computed on its own, in any order, by any
//! thread. The GPU engine (`crates/gpu`) draws every uniform this way, in WGSL with the same
//! arithmetic; this is its CPU twin, the definition both are tested against.
//!
//! The CPU engine's streams ([`super::stream`], Xoshiro256++) are not touched by this: its
//! outputs stay as they are.

/// Philox's round multipliers (the paper's M₀, M₁ for 4×32).
const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
/// Its key increments (the golden ratio's and √3 − 1's first 32 bits, W₀ and W₁).
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// The 4 words Philox4x32-10 gives for `counter` under `key`.
pub fn philox4x32(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut x, mut k) = (counter, key);
    for round in 0..10 {
        if round > 0 {
            k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        }
        let p0 = u64::from(M0) * u64::from(x[0]);
        let p1 = u64::from(M1) * u64::from(x[2]);
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ k[1],
            p0 as u32,
        ];
    }
    x
}

/// The key of a GPU stream: the seed's two halves, the lane mixed into the high one.
pub fn key(seed: u64, lane: u64) -> [u32; 2] {
    let hi = (seed >> 32) as u32 ^ (lane as u32).wrapping_mul(0x9E37_79B9) ^ (lane >> 32) as u32;
    [seed as u32, hi]
}

/// Uniform number `index` of draw `draw` of a stream with `key`: word `index mod 4` of the
/// block at counter (⌊index/4⌋, draw's low and high words, 0), as a 24-bit uniform in [0, 1)
/// (exactly representable in f32, as [`super::uniform`]).
pub fn uniform(key: [u32; 2], draw: u64, index: u32) -> f32 {
    let block = philox4x32([index >> 2, draw as u32, (draw >> 32) as u32, 0], key);
    (block[(index & 3) as usize] >> 8) as f32 * (1.0 / 16_777_216.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The known-answer vectors of Random123 (kat_vectors, philox4x32 10).
    #[test]
    fn known_answers() {
        assert_eq!(
            philox4x32([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn uniforms_are_in_the_unit_interval_and_spread() {
        let k = key(7, 3);
        let xs: Vec<f32> = (0..40_000).map(|i| uniform(k, 5, i)).collect();
        assert!(xs.iter().all(|&u| (0.0..1.0).contains(&u)));
        let mean = xs.iter().map(|&u| f64::from(u)).sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
        assert_ne!(uniform(k, 5, 0), uniform(k, 6, 0));
        assert_ne!(uniform(key(7, 3), 5, 0), uniform(key(7, 4), 5, 0));
    }
}

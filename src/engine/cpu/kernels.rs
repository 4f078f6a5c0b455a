//! The inner kernel of every Gibbs step: summing rows selected by active 0/1 units.
//!
//! What is computed; how fast is the folder `simd`'s: explicit SIMD (SSE2 or, when the CPU has
//! it, AVX on x86-64; SIMD128 on wasm32; plain loops elsewhere) keeps 32 columns in eight 4-lane
//! registers while walking a list of active indices (PERFORMANCE.md: "8 v128 accumulators per
//! chunk walking the list of active indices"). Only additions, in index order, so every target
//! gives the same bits.

pub mod by_unit;

use super::simd;

/// Sets `bits` (⌈len/64⌉ words, bit i = unit i) to the non-zero entries of `x` and returns
/// true if every non-zero entry is exactly 1 (NaN counts as non-zero and not 1). Compares four
/// values at a time (SSE2 / SIMD128), no branch on the (random) states.
#[inline]
pub fn row_mask(x: &[f32], bits: &mut [u64]) -> bool {
    /// The mask of whole quads (bit 4q + l = value l of quad q is not 0) and whether any value
    /// is neither 0 nor 1.
    #[inline(always)]
    fn quads_mask(quads: &[[f32; 4]]) -> (u64, bool) {
        let (mut word, mut other) = (0u64, 0u32);
        for (q, v) in quads.iter().enumerate() {
            let (nz, no) = simd::nonzero_not_one(v);
            word |= (nz as u64) << (4 * q);
            other |= no;
        }
        (word, other != 0)
    }
    /// A row of `W` values (a multiple of four, at most 64): one word, the loop unrolled.
    #[inline(always)]
    fn fixed<const W: usize>(x: &[f32], bits: &mut [u64]) -> bool {
        let x: &[f32; W] = x.try_into().expect("a row of W values");
        let (word, other) = quads_mask(x.as_chunks::<4>().0);
        bits[0] = word;
        !other
    }
    /// One word of at most 64 values: the whole quads, then the last one to three values as a
    /// quad padded with zeros (which set no bit).
    #[inline(always)]
    fn word_mask(x: &[f32]) -> (u64, bool) {
        let (quads, rest) = x.as_chunks::<4>();
        let (word, other) = quads_mask(quads);
        if rest.is_empty() {
            return (word, other);
        }
        let last: [f32; 4] = std::array::from_fn(|l| rest.get(l).copied().unwrap_or(0.0));
        let (last_word, last_other) = quads_mask(&[last]);
        (word | last_word << (4 * quads.len()), other | last_other)
    }
    match x.len() {
        4 => return fixed::<4>(x, bits),
        8 => return fixed::<8>(x, bits),
        16 => return fixed::<16>(x, bits),
        32 => return fixed::<32>(x, bits),
        len if len < 64 => {
            let (word, other) = word_mask(x);
            bits[0] = word;
            return !other;
        }
        _ => {}
    }
    let mut other = false;
    for (w, xs) in bits.iter_mut().zip(x.chunks(64)) {
        let (word, o) = word_mask(xs);
        *w = word;
        other |= o;
    }
    !other
}

/// The patterns of the rows of `rows` (`width` ≤ 32 values each; bit i = value i ≠ 0) into
/// `keys` (cleared first): [`row_mask`] of every row, with the row's quads known. True if every
/// non-zero value is exactly 1; false when one is not (the keys then unspecified).
pub fn row_keys(rows: &[f32], width: usize, keys: &mut Vec<u32>) -> bool {
    /// Rows of `Q` quads and `width − 4Q` (< 4) values more.
    #[inline(always)]
    fn quads<const Q: usize>(rows: &[f32], width: usize, keys: &mut Vec<u32>) -> bool {
        let mut other = 0;
        for row in rows.chunks_exact(width) {
            let (q, rest) = row.split_at(4 * Q);
            let mut key = 0;
            for (j, x) in q.as_chunks::<4>().0.iter().enumerate() {
                let (nz, no) = simd::nonzero_not_one(x);
                key |= nz << (4 * j);
                other |= no;
            }
            for (j, &x) in rest.iter().enumerate() {
                key |= u32::from(x != 0.0) << (4 * Q + j);
                other |= u32::from(x != 0.0 && x != 1.0);
            }
            keys.push(key);
        }
        other == 0
    }
    assert!(width <= 32, "patterns of at most 32 units");
    keys.clear();
    match width / 4 {
        0 => quads::<0>(rows, width, keys),
        1 => quads::<1>(rows, width, keys),
        2 => quads::<2>(rows, width, keys),
        3 => quads::<3>(rows, width, keys),
        4 => quads::<4>(rows, width, keys),
        _ => {
            // Wider rows (17 to 32 units), one mask each.
            let mut word = [0u64];
            rows.chunks_exact(width).all(|row| {
                let binary = row_mask(row, &mut word);
                keys.push(word[0] as u32);
                binary
            })
        }
    }
}

/// `dst.copy_from_slice(src)` for one row of a layer: rows of 4, 8, 16 or 32 values copy as
/// fixed-size arrays. A copy of run-time length is a call — in wasm a `memory.copy`, whose fixed
/// cost is that of copying several rows of 16 — and the Gibbs kernels copy rows one at a time.
///
/// # Panics
/// If the lengths differ.
#[inline(always)]
pub fn copy_row(dst: &mut [f32], src: &[f32]) {
    #[inline(always)]
    fn fixed<const W: usize>(dst: &mut [f32], src: &[f32]) {
        let d: &mut [f32; W] = dst.try_into().expect("a row of W values");
        *d = *<&[f32; W]>::try_from(src).expect("a row of W values");
    }
    assert_eq!(dst.len(), src.len(), "rows of the same width");
    match src.len() {
        4 => fixed::<4>(dst, src),
        8 => fixed::<8>(dst, src),
        16 => fixed::<16>(dst, src),
        32 => fixed::<32>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// `dst.extend_from_slice(src)` for one row of a layer, without a call for rows of 4, 8, 16 or
/// 32 values ([`copy_row`]).
#[inline(always)]
pub fn push_row(dst: &mut Vec<f32>, src: &[f32]) {
    #[inline(always)]
    fn fixed<const W: usize>(dst: &mut Vec<f32>, src: &[f32]) {
        dst.extend_from_slice(<&[f32; W]>::try_from(src).expect("a row of W values"));
    }
    match src.len() {
        4 => fixed::<4>(dst, src),
        8 => fixed::<8>(dst, src),
        16 => fixed::<16>(dst, src),
        32 => fixed::<32>(dst, src),
        _ => dst.extend_from_slice(src),
    }
}

/// Bernoulli draws from thresholds: `x_j = 1` if `u_j·t_j < 1` else 0 (u_j < σ(a_j) for
/// t_j = 1 + e^{−a_j}, docs/algorithms.md §1), over slices of one length — a row or a whole
/// layer; the one decision rule of every Gibbs kernel. (A fixed-size dispatch by width, as in
/// [`copy_row`], measured 2.7% more instructions on BAS 4×4 CD-1/PCD-1 and no speed-up.)
#[inline(always)]
pub fn bernoulli_row(x: &mut [f32], u: &[f32], t: &[f32]) {
    debug_assert!(x.len() == u.len() && x.len() == t.len());
    for ((x, &u), &t) in x.iter_mut().zip(u).zip(t) {
        *x = if u * t < 1.0 { 1.0 } else { 0.0 };
    }
}

/// [`bernoulli_row`] that also returns the row's pattern (bit j = x_j, for the first 64
/// units): four units at a time, their compare's mask written as 0/1 values.
#[inline(always)]
pub fn bernoulli_row_key(x: &mut [f32], u: &[f32], t: &[f32]) -> u64 {
    debug_assert!(x.len() == u.len() && x.len() == t.len());
    let (xq, xr) = x.as_chunks_mut::<4>();
    let (uq, ur) = u.as_chunks::<4>();
    let (tq, tr) = t.as_chunks::<4>();
    let mut key = 0u64;
    for (q, ((x, u), t)) in xq.iter_mut().zip(uq).zip(tq).enumerate() {
        let on = simd::below_one(u, t);
        *x = NIBBLES[on as usize];
        key |= u64::from(on).checked_shl(4 * q as u32).unwrap_or(0);
    }
    let base = 4 * xq.len() as u32;
    for (j, ((x, &u), &t)) in xr.iter_mut().zip(ur).zip(tr).enumerate() {
        let on = u * t < 1.0;
        *x = if on { 1.0 } else { 0.0 };
        key |= u64::from(on).checked_shl(base + j as u32).unwrap_or(0);
    }
    key
}

/// The 0/1 values of every 4-bit pattern.
pub(crate) const NIBBLES: [[f32; 4]; 16] = {
    let mut t = [[0.0; 4]; 16];
    let mut p = 0;
    while p < 16 {
        let mut j = 0;
        while j < 4 {
            t[p][j] = ((p >> j) & 1) as f32;
            j += 1;
        }
        p += 1;
    }
    t
};

/// [`bernoulli_row`] as a bit pattern over `Q` groups of four units: bit j is set iff
/// `u[j]·t[j] < 1`, j < 4·`Q`. A row narrower than 4·`Q` pads its thresholds with +∞, whose
/// units are never on whatever `u` holds there (u·∞ is ∞, or NaN for u = 0).
///
/// # Panics
/// If `u` or `t` has fewer than 4·`Q` values.
#[inline(always)]
pub fn bernoulli_quads<const Q: usize>(u: &[f32], t: &[f32]) -> u64 {
    let (u, t) = (&u[..4 * Q], &t[..4 * Q]);
    let mut key = 0u64;
    for q in 0..Q {
        let uq = u[4 * q..4 * q + 4].try_into().expect("4 values");
        let tq = t[4 * q..4 * q + 4].try_into().expect("4 values");
        key |= u64::from(simd::below_one(uq, tq)) << (4 * q);
    }
    key
}

/// Returns `init + Σ_{i ∈ bits} blk[i·W .. i·W+W]` over the set bits of `bits` (bit j of word
/// w is row 64·(`word0` + w) + j of `blk`), in increasing row order; W = 4·`Q` columns.
///
/// # Panics
/// If a set bit addresses past the end of `blk`.
#[inline(always)]
pub fn sum_selected_bits<const Q: usize>(
    init: &[[f32; 4]; Q],
    blk: &[f32],
    word0: usize,
    bits: &[u64],
) -> [[f32; 4]; Q] {
    simd::sum_selected_bits(init, blk, word0, bits)
}

/// The set bits of a bitset (bit j of word w = index 64·w + j), in increasing order.
#[inline]
pub fn set_bits(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        let mut m = word;
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let j = m.trailing_zeros() as usize;
                m &= m - 1;
                64 * w + j
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sum by definition, in the order of `idx`.
    fn reference<const Q: usize>(init: &[[f32; 4]; Q], blk: &[f32], idx: &[u32]) -> [[f32; 4]; Q] {
        let mut want = *init;
        for &i in idx {
            for q in 0..Q {
                for t in 0..4 {
                    want[q][t] += blk[i as usize * 4 * Q + 4 * q + t];
                }
            }
        }
        want
    }

    fn check<const Q: usize>() {
        let w = 4 * Q;
        let blk: Vec<f32> = (0..130 * w)
            .map(|x| ((x * 7919) % 1000) as f32 * 0.001 - 0.3)
            .collect();
        let init: [[f32; 4]; Q] =
            std::array::from_fn(|q| std::array::from_fn(|t| (4 * q + t) as f32 * 0.1));
        let idx = [0u32, 3, 4, 9, 63, 64, 100, 129];
        let mut bits = [0u64; 3];
        idx.iter()
            .for_each(|&i| bits[i as usize / 64] |= 1 << (i % 64));
        assert_eq!(
            sum_selected_bits(&init, &blk, 0, &bits),
            reference(&init, &blk, &idx)
        );
        assert_eq!(sum_selected_bits(&init, &blk, 0, &[0, 0]), init);
    }

    /// Every width (the fixed ones of 4 to 32 values, the other one-word ones and longer): the
    /// mask is the rows' 1s, and a value neither 0 nor 1 anywhere is caught.
    /// The rows' patterns are their masks, for every width up to 32, and a grey or NaN value
    /// anywhere makes them not 0/1.
    #[test]
    fn row_keys_are_the_rows_masks() {
        use crate::rng::{stream, uniform, Purpose};
        let mut r = stream(5, 0, Purpose::Aux);
        for width in 1..=32 {
            let mut rows: Vec<f32> = (0..7 * width)
                .map(|_| f32::from(u8::from(uniform(&mut r) < 0.5)))
                .collect();
            let mut keys = Vec::new();
            assert!(row_keys(&rows, width, &mut keys), "width {width}");
            let mut word = [0u64];
            for (row, &key) in rows.chunks_exact(width).zip(&keys) {
                assert!(row_mask(row, &mut word));
                assert_eq!(u64::from(key), word[0], "width {width}");
            }
            for bad in [0.5, f32::NAN] {
                let at = 3 * width + width / 2;
                let keep = rows[at];
                rows[at] = bad;
                assert!(!row_keys(&rows, width, &mut keys), "width {width}, {bad}");
                rows[at] = keep;
            }
        }
    }

    #[test]
    fn row_masks_of_every_width_are_the_rows_ones() {
        for len in [1usize, 4, 7, 8, 9, 16, 20, 32, 63, 64, 65] {
            let x: Vec<f32> = (0..len)
                .map(|i| ((i * 7 + len) % 3 == 0) as u8 as f32)
                .collect();
            let mut bits = vec![u64::MAX; len.div_ceil(64)];
            assert!(row_mask(&x, &mut bits), "{len}");
            for i in 0..64 * bits.len() {
                let want = x.get(i).map_or(0, |&xi| xi as u64);
                assert_eq!(bits[i / 64] >> (i % 64) & 1, want, "{len} {i}");
            }
            for i in [0, len / 2, len - 1] {
                for bad in [0.5, -1.0, f32::NAN] {
                    let mut y = x.clone();
                    y[i] = bad;
                    assert!(!row_mask(&y, &mut bits), "{len} {i} {bad}");
                }
            }
        }
    }

    /// The keyed draw writes the rows [`bernoulli_row`] writes, and their first 64 units' mask.
    #[test]
    fn keyed_bernoulli_rows_are_the_rows_and_their_masks() {
        for len in [1usize, 4, 6, 16, 33, 64, 70] {
            let u: Vec<f32> = (0..len)
                .map(|i| ((i * 13 + 5) % 17) as f32 / 17.0)
                .collect();
            let t: Vec<f32> = (0..len).map(|i| 1.0 + ((i * 7) % 5) as f32 * 0.4).collect();
            let (mut want, mut got) = (vec![0.5; len], vec![0.5; len]);
            bernoulli_row(&mut want, &u, &t);
            let key = bernoulli_row_key(&mut got, &u, &t);
            assert_eq!(got, want, "{len}");
            let mut bits = vec![0u64; len.div_ceil(64)];
            assert!(row_mask(&want, &mut bits));
            assert_eq!(key, bits[0], "{len}");
            assert!(
                want.contains(&1.0) && want.contains(&0.0) || len < 4,
                "{len}"
            );
        }
    }

    #[test]
    fn bit_masks_and_bit_sums_match_index_lists() {
        let x: Vec<f32> = (0..130)
            .map(|i| if (i * 37) % 5 < 2 { 1.0 } else { 0.0 })
            .collect();
        let mut bits = vec![0u64; 3];
        assert!(row_mask(&x, &mut bits));
        let idx: Vec<u32> = (0..130u32).filter(|&i| x[i as usize] != 0.0).collect();
        let from_bits: Vec<u32> = (0..130u32)
            .filter(|&i| bits[i as usize / 64] >> (i % 64) & 1 == 1)
            .collect();
        assert_eq!(from_bits, idx);
        let mut y = x.clone();
        y[77] = 0.5;
        assert!(!row_mask(&y, &mut bits));
        y[77] = f32::NAN;
        assert!(!row_mask(&y, &mut bits));
        let blk: Vec<f32> = (0..130 * 32)
            .map(|v| ((v * 7919) % 1000) as f32 * 0.001 - 0.3)
            .collect();
        let init: [[f32; 4]; 8] =
            std::array::from_fn(|q| std::array::from_fn(|t| (4 * q + t) as f32));
        assert!(row_mask(&x, &mut bits));
        assert_eq!(
            sum_selected_bits(&init, &blk, 0, &bits),
            reference(&init, &blk, &idx)
        );
        // A later block of words addresses rows from 64·word0.
        let tail: Vec<u32> = idx.iter().copied().filter(|&i| i >= 64).collect();
        assert_eq!(
            sum_selected_bits(&init, &blk, 1, &bits[1..]),
            reference(&init, &blk, &tail)
        );
        assert_eq!(set_bits(&bits).map(|i| i as u32).collect::<Vec<_>>(), idx);
    }

    #[test]
    fn simd_sums_equal_scalar_sums_in_index_order() {
        check::<8>();
        check::<4>();
        check::<2>();
    }
}

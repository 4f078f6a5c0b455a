//! The kernels of the sufficient statistics on 0/1 rows taken unit by unit
//! ([`crate::model::Stats::add`], docs/algorithms.md §1): the rows' bitsets transposed into one
//! row bitset per unit, and the sums of the rows two such bitsets select, walked in lockstep so
//! that the two chains of additions overlap their latency. Each output is still its initial
//! value plus its selected rows in increasing row order, so every target gives the same bits as
//! [`super::sum_selected_bits`] on each bitset alone.

/// Transposes a 64×64 bit matrix in place: afterwards bit r of `a[i]` is bit i of the former
/// `a[r]`. Six rounds of quadrant swaps (Warren, Hacker's Delight §7-3) instead of one step per
/// set bit.
#[inline]
pub fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut lo: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        // Rows k (bit j of k clear) and k + j swap the block of columns with bit j set in k's
        // word for the block with bit j clear in (k + j)'s word.
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & lo;
            a[k + j] ^= t;
            a[k] ^= t << j;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        lo ^= lo << j;
    }
}

/// Sets `unit_bits` (`rw` = ⌈rows/64⌉ words per unit, bit r of word r/64 = row r) for the `m`
/// units from `row_bits` (`mw` = ⌈m/64⌉ words per row, bit i of word i/64 = unit i, no bits at
/// or past m): the transpose of the rows × units bit matrix, 64×64 blocks at a time.
///
/// # Panics
/// If `unit_bits` is shorter than m·rw.
pub fn transpose_bits(row_bits: &[u64], mw: usize, m: usize, unit_bits: &mut [u64]) {
    let rows = row_bits.len() / mw;
    let rw = rows.div_ceil(64);
    for w in 0..mw {
        let units = (m - 64 * w).min(64);
        for rb in 0..rw {
            let mut a = [0u64; 64];
            let r0 = 64 * rb;
            let src = row_bits[r0 * mw + w..].iter().step_by(mw);
            a.iter_mut().zip(src).for_each(|(a, &x)| *a = x);
            transpose64(&mut a);
            for (i, &x) in a[..units].iter().enumerate() {
                unit_bits[(64 * w + i) * rw + rb] = x;
            }
        }
    }
}

/// [`super::sum_selected_bits`] (with `word0` = 0) for two bitsets of the same length at once:
/// `[init[0] + Σ_{i ∈ bits[0]} row i, init[1] + Σ_{i ∈ bits[1]} row i]`, each in increasing row
/// order, rows of W = 4·`Q` columns of `blk`.
///
/// # Panics
/// If the bitsets differ in length or a set bit addresses past the end of `blk`.
#[inline]
pub fn sum_selected_bits2<const Q: usize>(
    init: &[[[f32; 4]; Q]; 2],
    blk: &[f32],
    bits: [&[u64]; 2],
) -> [[[f32; 4]; Q]; 2] {
    assert_eq!(bits[0].len(), bits[1].len(), "bitsets of one length");
    for b in bits {
        if let Some((w, &last)) = b.iter().enumerate().rev().find(|(_, &x)| x != 0) {
            let top = 64 * w + 63 - last.leading_zeros() as usize;
            assert!((top + 1) * 4 * Q <= blk.len(), "bit past the packed block");
        }
    }
    imp::sum_selected_bits2(init, blk, bits)
}

/// Walks the set bits of two bitsets in lockstep with accumulators `acc`, calling
/// `add(acc[0], i); add(acc[1], j)` while both words have bits left, then `add` for the rest of
/// either; each bitset in increasing order.
#[inline(always)]
fn lockstep<A>(bits: [&[u64]; 2], acc: &mut [A; 2], add: impl Fn(&mut A, usize)) {
    let [a0, a1] = acc;
    for (w, (&x, &y)) in bits[0].iter().zip(bits[1]).enumerate() {
        let (mut a, mut b) = (x, y);
        while a != 0 && b != 0 {
            let (i, j) = (
                64 * w + a.trailing_zeros() as usize,
                64 * w + b.trailing_zeros() as usize,
            );
            a &= a - 1;
            b &= b - 1;
            add(a0, i);
            add(a1, j);
        }
        while a != 0 {
            add(a0, 64 * w + a.trailing_zeros() as usize);
            a &= a - 1;
        }
        while b != 0 {
            add(a1, 64 * w + b.trailing_zeros() as usize);
            b &= b - 1;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::lockstep;
    use std::arch::x86_64::*;

    #[inline(always)]
    pub fn sum_selected_bits2<const Q: usize>(
        init: &[[[f32; 4]; Q]; 2],
        blk: &[f32],
        bits: [&[u64]; 2],
    ) -> [[[f32; 4]; Q]; 2] {
        if Q.is_multiple_of(2) && std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: AVX was detected at run time; loads stay inside `blk` (checked by the
            // caller).
            unsafe { pair_avx(init, blk, bits) }
        } else if Q <= 4 {
            // SAFETY: SSE2 is part of the x86-64 baseline; loads as above.
            unsafe { pair_sse2(init, blk, bits) }
        } else {
            // Sixteen 4-lane accumulators would spill: one bitset at a time.
            [0, 1].map(|t| crate::kernels::sum_selected_bits(&init[t], blk, 0, bits[t]))
        }
    }

    /// 4-lane registers, Q per bitset.
    #[inline(always)]
    unsafe fn pair_sse2<const Q: usize>(
        init: &[[[f32; 4]; Q]; 2],
        blk: &[f32],
        bits: [&[u64]; 2],
    ) -> [[[f32; 4]; Q]; 2] {
        let mut acc: [[__m128; Q]; 2] =
            std::array::from_fn(|t| std::array::from_fn(|q| _mm_loadu_ps(init[t][q].as_ptr())));
        let base = blk.as_ptr();
        let add = |a: &mut [__m128; Q], i: usize| {
            let r = base.add(i * 4 * Q);
            for (q, a) in a.iter_mut().enumerate() {
                *a = _mm_add_ps(*a, _mm_loadu_ps(r.add(4 * q)));
            }
        };
        lockstep(bits, &mut acc, add);
        let mut out = [[[0.0f32; 4]; Q]; 2];
        for (o, a) in out.iter_mut().zip(acc) {
            for (o, v) in o.iter_mut().zip(a) {
                _mm_storeu_ps(o.as_mut_ptr(), v);
            }
        }
        out
    }

    /// 8-lane registers (Q even), Q/2 per bitset: the same element-wise additions.
    #[target_feature(enable = "avx")]
    unsafe fn pair_avx<const Q: usize>(
        init: &[[[f32; 4]; Q]; 2],
        blk: &[f32],
        bits: [&[u64]; 2],
    ) -> [[[f32; 4]; Q]; 2] {
        let h = Q / 2;
        let mut acc = [[_mm256_setzero_ps(); 4]; 2];
        for (a, init) in acc.iter_mut().zip(init) {
            let flat = init.as_flattened();
            for (q, a) in a.iter_mut().enumerate().take(h) {
                *a = _mm256_loadu_ps(flat.as_ptr().add(8 * q));
            }
        }
        let base = blk.as_ptr();
        let add = |a: &mut [__m256; 4], i: usize| {
            let r = base.add(i * 4 * Q);
            for (q, a) in a.iter_mut().enumerate().take(h) {
                *a = _mm256_add_ps(*a, _mm256_loadu_ps(r.add(8 * q)));
            }
        };
        lockstep(bits, &mut acc, add);
        let mut out = [[[0.0f32; 4]; Q]; 2];
        for (o, a) in out.iter_mut().zip(&acc) {
            let o = o.as_flattened_mut().as_mut_ptr();
            for (q, v) in a.iter().enumerate().take(h) {
                _mm256_storeu_ps(o.add(8 * q), *v);
            }
        }
        out
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use super::lockstep;
    use std::arch::wasm32::*;

    /// Q v128 accumulators per bitset (one bitset at a time for Q = 8: sixteen would spill).
    #[inline(always)]
    pub fn sum_selected_bits2<const Q: usize>(
        init: &[[[f32; 4]; Q]; 2],
        blk: &[f32],
        bits: [&[u64]; 2],
    ) -> [[[f32; 4]; Q]; 2] {
        if Q > 4 {
            return [0, 1].map(|t| crate::kernels::sum_selected_bits(&init[t], blk, 0, bits[t]));
        }
        // SAFETY: every load reads 4·Q floats inside `blk` (bounds checked by the caller) or
        // `init`; v128 loads and stores have no alignment requirement.
        unsafe {
            let mut acc: [[v128; Q]; 2] = std::array::from_fn(|t| {
                std::array::from_fn(|q| v128_load(init[t][q].as_ptr() as *const v128))
            });
            let base = blk.as_ptr();
            let add = |a: &mut [v128; Q], i: usize| {
                let r = base.add(i * 4 * Q) as *const v128;
                for (q, a) in a.iter_mut().enumerate() {
                    *a = f32x4_add(*a, v128_load(r.add(q)));
                }
            };
            lockstep(bits, &mut acc, add);
            let mut out = [[[0.0f32; 4]; Q]; 2];
            for (o, a) in out.iter_mut().zip(acc) {
                for (o, v) in o.iter_mut().zip(a) {
                    v128_store(o.as_mut_ptr() as *mut v128, v);
                }
            }
            out
        }
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod imp {
    /// One bitset at a time.
    #[inline(always)]
    pub fn sum_selected_bits2<const Q: usize>(
        init: &[[[f32; 4]; Q]; 2],
        blk: &[f32],
        bits: [&[u64]; 2],
    ) -> [[[f32; 4]; Q]; 2] {
        [0, 1].map(|t| crate::kernels::sum_selected_bits(&init[t], blk, 0, bits[t]))
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the definitions
mod tests {
    use super::*;
    use crate::rng::{stream, uniform, Purpose};

    #[test]
    fn transposes_are_the_bit_by_bit_transpose() {
        let mut r = stream(3, 0, Purpose::Aux);
        let a: [u64; 64] = std::array::from_fn(|_| {
            (0..64).fold(0u64, |w, b| w | (u64::from(uniform(&mut r) < 0.5) << b))
        });
        let mut t = a;
        transpose64(&mut t);
        for i in 0..64 {
            for j in 0..64 {
                assert_eq!(t[i] >> j & 1, a[j] >> i & 1, "({i}, {j})");
            }
        }
        // Rows and units not multiples of 64, units past one word.
        for (m, rows) in [
            (1usize, 1usize),
            (16, 1000),
            (70, 130),
            (9, 64),
            (128, 65),
            (200, 3),
        ] {
            let mw = m.div_ceil(64);
            let mut row_bits = vec![0u64; rows * mw];
            for row in 0..rows {
                for i in 0..m {
                    if uniform(&mut r) < 0.4 {
                        row_bits[row * mw + i / 64] |= 1 << (i % 64);
                    }
                }
            }
            let rw = rows.div_ceil(64);
            let mut unit_bits = vec![u64::MAX; m * rw];
            transpose_bits(&row_bits, mw, m, &mut unit_bits);
            for i in 0..m {
                for r in 0..64 * rw {
                    let want = r < rows && row_bits[r * mw + i / 64] >> (i % 64) & 1 == 1;
                    let got = unit_bits[i * rw + r / 64] >> (r % 64) & 1 == 1;
                    assert_eq!(got, want, "{m} units, {rows} rows: unit {i}, row {r}");
                }
            }
        }
    }

    /// The pair walk equals each bitset's straightforward sum in row order, bit for bit.
    fn pairs<const Q: usize>() {
        let mut r = stream(8, Q as u64, Purpose::Aux);
        let rows = 200;
        let blk: Vec<f32> = (0..rows * 4 * Q).map(|_| uniform(&mut r) - 0.3).collect();
        let init: [[[f32; 4]; Q]; 2] = std::array::from_fn(|_| {
            std::array::from_fn(|_| std::array::from_fn(|_| uniform(&mut r) * 100.0))
        });
        for (d0, d1) in [(0.5, 0.5), (0.1, 0.9), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)] {
            let mut bits = [[0u64; 4]; 2];
            for (b, d) in bits.iter_mut().zip([d0, d1]) {
                for i in 0..rows {
                    if uniform(&mut r) < d {
                        b[i / 64] |= 1 << (i % 64);
                    }
                }
            }
            let got = sum_selected_bits2(&init, &blk, [&bits[0], &bits[1]]);
            for t in 0..2 {
                let mut want = init[t].as_flattened().to_vec();
                for i in (0..rows).filter(|&i| bits[t][i / 64] >> (i % 64) & 1 == 1) {
                    for (c, w) in want.iter_mut().enumerate() {
                        *w += blk[i * 4 * Q + c];
                    }
                }
                let same = got[t]
                    .as_flattened()
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "Q = {Q}, densities {d0} {d1}");
            }
        }
    }

    #[test]
    fn pair_sums_equal_single_sums_bit_for_bit() {
        pairs::<2>();
        pairs::<4>();
        pairs::<8>();
    }
}

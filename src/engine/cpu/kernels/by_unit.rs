//! The kernels of the sufficient statistics on 0/1 rows taken unit by unit
//! ([`crate::model::Stats::add`], docs/algorithms.md §1): the rows' bitsets (checked 0/1 for
//! the whole batch at once) transposed into one row bitset per unit, and the sums of the rows two such bitsets select, walked in lockstep so
//! that the two chains of additions overlap their latency. Each output is still its initial
//! value plus its selected rows in increasing row order, so every target gives the same bits as
//! [`super::sum_selected_bits`] on each bitset alone.

/// Bit i of word w is set iff (i & 2^w) = 0: the quadrant masks of [`transpose_lanes`].
const LOW_HALVES: [u64; 6] = [
    0x5555_5555_5555_5555,
    0x3333_3333_3333_3333,
    0x0F0F_0F0F_0F0F_0F0F,
    0x00FF_00FF_00FF_00FF,
    0x0000_FFFF_0000_FFFF,
    0x0000_0000_FFFF_FFFF,
];

/// Transposes, in every one of the 64/`L` lanes of `L` bits at once, the L×L bit matrix whose
/// row k is lane l of `a[k]`: afterwards bit r of lane l of `a[i]` is bit i of lane l of the
/// former `a[r]`. log₂ L rounds of quadrant swaps (Warren, Hacker's Delight §7-3) instead of a
/// step per set bit; with L < 64 the lanes share each instruction.
#[inline]
pub fn transpose_lanes<const L: usize>(a: &mut [u64; L]) {
    let mut j = L / 2;
    while j != 0 {
        let lo = LOW_HALVES[j.trailing_zeros() as usize];
        // Rows k (bit j of k clear) and k + j swap the columns with bit j set in row k for
        // those with bit j clear in row k + j.
        let mut k = 0;
        while k < L {
            let t = ((a[k] >> j) ^ a[k + j]) & lo;
            a[k + j] ^= t;
            a[k] ^= t << j;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
    }
}

/// Sets `unit_bits` (`rw` = ⌈rows/64⌉ words per unit, bit r of word r/64 = row r) for the `m`
/// units from `row_bits` (`mw` = ⌈m/64⌉ words per row, bit i of word i/64 = unit i, no bits at
/// or past m): the transpose of the rows × units bit matrix, 64 rows at a time. Up to 32 units,
/// 64 rows are 64/L blocks of L rows × L units (L = 8, 16 or 32), one block per lane of L bits
/// ([`transpose_lanes`]); the lanes of unit i's word are then its rows in order.
///
/// # Panics
/// If `unit_bits` is shorter than m·rw.
pub fn transpose_bits(row_bits: &[u64], mw: usize, m: usize, unit_bits: &mut [u64]) {
    match m {
        0..=8 => transpose_in_lanes::<8>(row_bits, m, unit_bits),
        9..=16 => transpose_in_lanes::<16>(row_bits, m, unit_bits),
        17..=32 => transpose_in_lanes::<32>(row_bits, m, unit_bits),
        _ => transpose_words(row_bits, mw, m, unit_bits),
    }
}

/// [`transpose_bits`] for m ≤ `L` (one word per row).
fn transpose_in_lanes<const L: usize>(row_bits: &[u64], m: usize, unit_bits: &mut [u64]) {
    let rows = row_bits.len();
    let rw = rows.div_ceil(64);
    for (rb, blk) in row_bits.chunks(64).enumerate() {
        let mut a = [0u64; L];
        for (l, lane) in blk.chunks(L).enumerate() {
            for (a, &x) in a.iter_mut().zip(lane) {
                *a |= x << (l * L);
            }
        }
        transpose_lanes(&mut a);
        for (i, &x) in a[..m].iter().enumerate() {
            unit_bits[i * rw + rb] = x;
        }
    }
}

/// [`transpose_bits`] by 64×64 blocks (any m).
fn transpose_words(row_bits: &[u64], mw: usize, m: usize, unit_bits: &mut [u64]) {
    let rows = row_bits.len() / mw;
    let rw = rows.div_ceil(64);
    for w in 0..mw {
        let units = (m - 64 * w).min(64);
        for rb in 0..rw {
            let mut a = [0u64; 64];
            let src = row_bits[64 * rb * mw + w..].iter().step_by(mw);
            a.iter_mut().zip(src).for_each(|(a, &x)| *a = x);
            transpose_lanes(&mut a);
            for (i, &x) in a[..units].iter().enumerate() {
                unit_bits[(64 * w + i) * rw + rb] = x;
            }
        }
    }
}

/// [`super::row_mask`] for every row of `v` (rows of `m` values, `mw` = ⌈m/64⌉ words per row
/// in `row_bits`): true if every value is 0 or 1. The batch is checked once at the end instead
/// of once per four values.
pub fn rows_mask(v: &[f32], m: usize, row_bits: &mut [u64]) -> bool {
    if !m.is_multiple_of(4) || m > 64 {
        let mw = m.div_ceil(64);
        let mut binary = true;
        for (vr, br) in v.chunks_exact(m).zip(row_bits.chunks_exact_mut(mw)) {
            binary &= super::row_mask(vr, br);
        }
        return binary;
    }
    let mut other = 0;
    for (vr, b) in v.chunks_exact(m).zip(row_bits.iter_mut()) {
        let mut word = 0u64;
        for (q, x) in vr.as_chunks::<4>().0.iter().enumerate() {
            let (nz, no) = crate::engine::cpu::simd::nonzero_not_one(x);
            word |= u64::from(nz) << (4 * q);
            other |= no;
        }
        *b = word;
    }
    other == 0
}

/// [`super::sum_selected_bits`] (with `word0` = 0) for two bitsets of the same length at once,
/// in place: `acc[t] += Σ_{i ∈ bits[t]} row i` for t = 0, 1, each in increasing row order, rows
/// of W = 4·`Q` columns of `blk`.
///
/// # Panics
/// If the bitsets differ in length or a set bit addresses past the end of `blk`.
#[inline(always)]
pub fn sum_selected_bits2<const Q: usize>(
    acc: [&mut [[f32; 4]; Q]; 2],
    blk: &[f32],
    bits: [&[u64]; 2],
) {
    crate::engine::cpu::simd::sum_selected_bits2(acc, blk, bits)
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
        transpose_lanes(&mut t);
        for i in 0..64 {
            for j in 0..64 {
                assert_eq!(t[i] >> j & 1, a[j] >> i & 1, "({i}, {j})");
            }
        }
        // Units in lanes of 8, 16, 32 and by words; rows not multiples of 64.
        let sizes = [
            (1usize, 1usize),
            (8, 100),
            (5, 64),
            (16, 1000),
            (16, 30),
            (13, 65),
            (32, 200),
            (17, 63),
            (70, 130),
            (64, 64),
            (128, 65),
            (200, 3),
        ];
        for (m, rows) in sizes {
            let mw = m.div_ceil(64);
            let mut row_bits = vec![0u64; rows * mw];
            for row in 0..rows {
                for i in 0..m {
                    if uniform(&mut r) < 0.4 || row == rows - 1 {
                        row_bits[row * mw + i / 64] |= 1 << (i % 64);
                    }
                }
            }
            let rw = rows.div_ceil(64);
            let mut unit_bits = vec![u64::MAX; m * rw];
            transpose_bits(&row_bits, mw, m, &mut unit_bits);
            for i in 0..m {
                for row in 0..64 * rw {
                    let want = row < rows && row_bits[row * mw + i / 64] >> (i % 64) & 1 == 1;
                    let got = unit_bits[i * rw + row / 64] >> (row % 64) & 1 == 1;
                    assert_eq!(got, want, "{m} units, {rows} rows: unit {i}, row {row}");
                }
            }
        }
    }

    #[test]
    fn batch_masks_are_the_rows_masks() {
        let mut r = stream(4, 0, Purpose::Aux);
        for m in [1usize, 4, 7, 16, 20, 64, 65, 130] {
            let rows = 37;
            let mw = m.div_ceil(64);
            let mut v: Vec<f32> = (0..rows * m)
                .map(|_| f32::from(uniform(&mut r) < 0.5))
                .collect();
            let mut want = vec![0u64; rows * mw];
            let mut got = vec![u64::MAX; rows * mw];
            for (vr, br) in v.chunks_exact(m).zip(want.chunks_exact_mut(mw)) {
                assert!(crate::engine::cpu::kernels::row_mask(vr, br));
            }
            assert!(rows_mask(&v, m, &mut got));
            assert_eq!(got, want, "{m} units");
            for grey in [0.5, f32::NAN, -1.0, 2.0] {
                v[(rows - 1) * m + m / 2] = grey;
                assert!(!rows_mask(&v, m, &mut got), "{m} units, {grey}");
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
            let mut got = init;
            let [g0, g1] = &mut got;
            sum_selected_bits2([g0, g1], &blk, [&bits[0], &bits[1]]);
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

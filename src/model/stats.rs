//! The sufficient statistics s(v) = (v·E[h|v]ᵀ, v, E[h|v]) of docs/algorithms.md §1, summed over
//! rows ([`Stats`]), with their work buffers and kernels: row by row for small or grey batches
//! ([`Stats::add_row`]), else visible unit by visible unit over the batch's bitsets
//! ([`add_rows_by_unit`]) — the same additions in the same order either way.

use super::packed::Packed;
use super::Params;
use crate::engine::cpu::kernels::by_unit::{rows_mask, sum_selected_bits2, transpose_bits};
use crate::engine::cpu::kernels::{row_mask, sum_selected_bits};

/// `w[i] += Σ_{r ∈ bits_i} row r` for every unit i in `targets` and `c += Σ_r row r` (target
/// m, last, bitset `all`), where row r is the batch row r of E[h|v] in `data` (chunks of 4·`Q`
/// columns, as [`Packed`]), chunk by chunk, each sum in increasing row order; two targets at a
/// time so that their chains of additions overlap ([`sum_selected_bits2`]), in place.
fn add_rows_by_unit<const Q: usize>(
    sum: &mut Params<f32>,
    data: &[f32],
    rows: usize,
    bits: &[u64],
    all: &[u64],
    targets: &[usize],
) {
    let (n, cw) = (sum.c.len(), 4 * Q);
    let (m, rw) = (sum.b.len(), all.len());
    let bits_of = |t: usize| {
        if t == m {
            all
        } else {
            &bits[t * rw..(t + 1) * rw]
        }
    };
    for (ch, blk) in data.chunks_exact(rows * cw).enumerate() {
        let c0 = ch * cw;
        let cols = cw.min(n - c0);
        for t in targets.chunks(2) {
            match *t {
                [a, b] => {
                    // The chunk's columns of targets a < b (c is last), as disjoint slices.
                    let Params { w, c, .. } = &mut *sum;
                    let [x, y] = if b == m {
                        [&mut w[a * n + c0..a * n + c0 + cols], &mut c[c0..c0 + cols]]
                    } else {
                        let (lo, hi) = w.split_at_mut(b * n);
                        [
                            &mut lo[a * n + c0..a * n + c0 + cols],
                            &mut hi[c0..c0 + cols],
                        ]
                    };
                    if cols == cw {
                        let acc = [whole::<Q>(x), whole::<Q>(y)];
                        sum_selected_bits2(acc, blk, [bits_of(a), bits_of(b)]);
                    } else {
                        let mut acc = [[[0.0f32; 4]; Q]; 2];
                        acc[0].as_flattened_mut()[..cols].copy_from_slice(x);
                        acc[1].as_flattened_mut()[..cols].copy_from_slice(y);
                        let [p, q] = &mut acc;
                        sum_selected_bits2([p, q], blk, [bits_of(a), bits_of(b)]);
                        x.copy_from_slice(&acc[0].as_flattened()[..cols]);
                        y.copy_from_slice(&acc[1].as_flattened()[..cols]);
                    }
                }
                [a] => {
                    let dst = if a == m {
                        &mut sum.c[c0..c0 + cols]
                    } else {
                        &mut sum.w[a * n + c0..a * n + c0 + cols]
                    };
                    let mut acc = [[0.0f32; 4]; Q];
                    acc.as_flattened_mut()[..cols].copy_from_slice(dst);
                    acc = sum_selected_bits(&acc, blk, 0, bits_of(a));
                    dst.copy_from_slice(&acc.as_flattened()[..cols]);
                }
                _ => unreachable!("chunks of two"),
            }
        }
    }
}

/// `row[j] += a·x[j]` (`+= x[j]` when a = 1: the same value) for every j, four columns at a
/// time so that small rows (4 or 8 hidden units) take whole 4-lane additions.
#[inline]
fn add_scaled(row: &mut [f32], x: &[f32], a: f32) {
    let (rc, rr) = row.as_chunks_mut::<4>();
    let (xc, xr) = x[..rc.len() * 4 + rr.len()].as_chunks::<4>();
    if a == 1.0 {
        for (r, x) in rc.iter_mut().zip(xc) {
            *r = std::array::from_fn(|t| r[t] + x[t]);
        }
        rr.iter_mut().zip(xr).for_each(|(r, &x)| *r += x);
    } else {
        for (r, x) in rc.iter_mut().zip(xc) {
            *r = std::array::from_fn(|t| r[t] + a * x[t]);
        }
        rr.iter_mut().zip(xr).for_each(|(r, &x)| *r += a * x);
    }
}

/// A whole chunk of 4·`Q` columns as arrays of four.
fn whole<const Q: usize>(s: &mut [f32]) -> &mut [[f32; 4]; Q] {
    s.as_chunks_mut().0.try_into().expect("a whole chunk")
}

/// `b + 1 + 1 + … + 1` (`k` ones, added one at a time in f32) — by one addition of k when that
/// provably gives the same value: b an integer of magnitude at most 2²⁴ − k, so that every
/// partial sum is an integer f32 represents exactly.
fn add_ones(b: f32, k: u32) -> f32 {
    const EXACT: f64 = (1u32 << 24) as f64;
    if k == 0 {
        b
    } else if b.trunc() == b && f64::from(b.abs()) + f64::from(k) <= EXACT {
        b + k as f32
    } else {
        (0..k).fold(b, |b, _| b + 1.0)
    }
}

/// W row i and b_i of `sum` gain `weight · hp` and `weight` for every unit i set in `bits`
/// (bit j of word w = unit 64w + j), in increasing i.
#[inline(always)]
fn add_selected_rows(sum: &mut Params<f32>, bits: &[u64], hp: &[f32], weight: f32) {
    let n = sum.c.len();
    for (wi, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let i = 64 * wi + x.trailing_zeros() as usize;
            x &= x - 1;
            add_scaled(&mut sum.w[i * n..(i + 1) * n], hp, weight);
            sum.b[i] += weight;
        }
    }
}

/// Below these sizes [`Stats::add`] goes row by row (same bits; packing would cost more).
pub(crate) const BY_UNIT_MIN_HIDDEN: usize = 16;
pub(crate) const BY_UNIT_MIN_ROWS: usize = 16;

/// Work buffers of [`Stats::add_binary_by_unit`] and [`Stats::add_row`].
#[derive(Clone, Debug)]
struct StatsScratch {
    row_bits: Vec<u64>,
    unit_bits: Vec<u64>,
    /// The bitset of every batch row (for the c sums).
    all: Vec<u64>,
    /// The statistics' rows to update: units with an active row in increasing order, then m
    /// for c.
    targets: Vec<usize>,
    packed: Packed,
}

/// Accumulated sufficient statistics s(v) = (v·E[h|v]ᵀ, v, E[h|v]) over a set of rows
/// (docs/algorithms.md §1), kept as sums with their row count.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Sums of s over the rows added.
    pub sum: Params<f32>,
    /// Number of rows added.
    pub count: f32,
    m: usize,
    n: usize,
    scratch: StatsScratch,
}

impl Stats {
    /// Empty statistics for an m×n model.
    pub fn new(m: usize, n: usize) -> Stats {
        Stats {
            sum: Params::zeros(m, n),
            count: 0.0,
            m,
            n,
            scratch: StatsScratch {
                row_bits: vec![0; m.div_ceil(64)],
                unit_bits: Vec::new(),
                all: Vec::new(),
                targets: Vec::new(),
                packed: Packed::new(0, 0),
            },
        }
    }

    /// Forgets everything added.
    pub fn clear(&mut self) {
        self.sum.clear();
        self.count = 0.0;
    }

    /// Adds s(v) for every row: `v` (rows × m) and the matching `hp` = E[h|v] (rows × n).
    pub fn add(&mut self, v: &[f32], hp: &[f32]) {
        let (m, n) = (self.m, self.n);
        let rows = v.len() / m;
        if n >= BY_UNIT_MIN_HIDDEN && rows >= BY_UNIT_MIN_ROWS && self.add_binary_by_unit(v, hp) {
            return;
        }
        for (vr, hr) in v.chunks_exact(m).zip(hp.chunks_exact(n)) {
            self.add_row(vr, hr, 1.0);
            self.count += 1.0;
        }
    }

    /// [`Stats::add`] for 0/1 rows, visible unit by visible unit: W row i gains the E[h|v] rows
    /// of the batch rows where unit i is on, in increasing row order — the same additions in
    /// the same order as row by row, but each 32-column chunk of the batch's E[h|v] stays in L1
    /// while every unit reads it, and W is walked once. The units' row bitsets are the
    /// transpose of the rows' ([`transpose_bits`]), b gains their popcounts ([`add_ones`]) and
    /// c is one more target whose bitset holds every row. Returns false (having changed
    /// nothing) if a row is not 0/1.
    fn add_binary_by_unit(&mut self, v: &[f32], hp: &[f32]) -> bool {
        let (m, rows) = (self.m, v.len() / self.m);
        let row_bits = &mut self.scratch.row_bits;
        row_bits.resize(rows * m.div_ceil(64), 0);
        if !rows_mask(v, m, row_bits) {
            return false;
        }
        self.add_row_bits_by_unit(rows, hp);
        true
    }

    /// [`Stats::add`] for 0/1 rows also given as patterns: `keys[r]` is row r of `v` (bit i =
    /// unit i; m ≤ 32). The same bits; the rows are not read again where the statistics are
    /// summed unit by unit.
    pub fn add_patterns(&mut self, v: &[f32], keys: &[u32], hp: &[f32]) {
        let (m, n) = (self.m, self.n);
        let rows = v.len() / m.max(1);
        assert!(m <= 32 && keys.len() == rows, "a 32-bit pattern per row");
        debug_assert!(v.chunks_exact(m).zip(keys).all(|(r, &k)| r
            .iter()
            .enumerate()
            .all(|(i, &x)| x == ((k >> i) & 1) as f32)));
        if n < BY_UNIT_MIN_HIDDEN || rows < BY_UNIT_MIN_ROWS {
            // Row by row, as `add_row` with weight 1 on the row's bits.
            for (&key, hr) in keys.iter().zip(hp.chunks_exact(n)) {
                add_selected_rows(&mut self.sum, &[u64::from(key)], hr, 1.0);
                add_scaled(&mut self.sum.c, hr, 1.0);
                self.count += 1.0;
            }
            return;
        }
        let row_bits = &mut self.scratch.row_bits;
        row_bits.clear();
        row_bits.extend(keys.iter().map(|&k| u64::from(k)));
        self.add_row_bits_by_unit(rows, hp);
    }

    /// The sums of [`Stats::add_binary_by_unit`] from the rows' bitsets in `scratch.row_bits`.
    fn add_row_bits_by_unit(&mut self, rows: usize, hp: &[f32]) {
        let (m, n) = (self.m, self.n);
        let (mw, rw) = (m.div_ceil(64), rows.div_ceil(64));
        let StatsScratch {
            row_bits,
            unit_bits,
            all,
            targets,
            packed,
        } = &mut self.scratch;
        unit_bits.resize(m * rw, 0);
        transpose_bits(row_bits, mw, m, unit_bits);
        targets.clear();
        for (i, (b, bi)) in self
            .sum
            .b
            .iter_mut()
            .zip(unit_bits.chunks_exact(rw))
            .enumerate()
        {
            let k = bi.iter().map(|w| w.count_ones()).sum();
            if k > 0 {
                *b = add_ones(*b, k);
                targets.push(i);
            }
        }
        targets.push(m);
        all.clear();
        all.resize(rw, u64::MAX);
        if !rows.is_multiple_of(64) {
            all[rw - 1] = (1 << (rows % 64)) - 1;
        }
        let hp = &hp[..rows * n];
        // E[h|v] one chunk wide is already in the chunk layout.
        let cw = Packed::new(0, n).cw;
        let data = if n == cw {
            hp
        } else {
            if packed.k != rows || packed.width != n {
                *packed = Packed::new(rows, n);
            }
            packed.fill(hp);
            &packed.data
        };
        match cw {
            8 => add_rows_by_unit::<2>(&mut self.sum, data, rows, unit_bits, all, targets),
            16 => add_rows_by_unit::<4>(&mut self.sum, data, rows, unit_bits, all, targets),
            _ => add_rows_by_unit::<8>(&mut self.sum, data, rows, unit_bits, all, targets),
        }
        self.count += rows as f32;
    }

    /// Adds `weight · s` for one row without counting it (for signed correction terms).
    pub fn add_weighted(&mut self, v: &[f32], hp: &[f32], weight: f32) {
        self.add_row(v, hp, weight);
    }

    /// Adds `weight · s(v)` with E[h|v] = `hp` for one row: the rows of W selected by v's
    /// active units (a bitset walk, no allocation), or every row scaled for a grey v.
    fn add_row(&mut self, v: &[f32], hp: &[f32], weight: f32) {
        let n = self.n;
        let bits = &mut self.scratch.row_bits[..self.m.div_ceil(64)];
        let sum = &mut self.sum;
        if row_mask(v, bits) {
            add_selected_rows(sum, bits, hp, weight);
        } else {
            for (i, &vi) in v.iter().enumerate() {
                let a = weight * vi;
                add_scaled(&mut sum.w[i * n..(i + 1) * n], hp, a);
                sum.b[i] += a;
            }
        }
        add_scaled(&mut sum.c, hp, weight);
    }

    /// Mean statistics (sums divided by the row count).
    pub fn mean(&self) -> Params<f32> {
        let k = 1.0 / self.count.max(1.0);
        let mut p = self.sum.clone();
        for blk in p.blocks_mut() {
            blk.iter_mut().for_each(|x| *x *= k);
        }
        p
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    use super::*;
    use crate::rng::{stream, Purpose};

    /// s(v) summed by definition: row by row, W row i gains `weight·v_i·E[h|v]` for every
    /// active i, b gains `weight·v_i`, c gains `weight·E[h|v]`, in row order.
    fn straightforward(sum: &mut Params<f32>, v: &[f32], hp: &[f32], weight: f32) {
        let (m, n) = (sum.b.len(), sum.c.len());
        for (vr, hr) in v.chunks_exact(m).zip(hp.chunks_exact(n)) {
            for i in 0..m {
                if vr[i] != 0.0 {
                    let a = if vr[i] == 1.0 { weight } else { weight * vr[i] };
                    for j in 0..n {
                        sum.w[i * n + j] += if a == 1.0 { hr[j] } else { a * hr[j] };
                    }
                    sum.b[i] += a;
                }
            }
            for j in 0..n {
                sum.c[j] += weight * hr[j];
            }
        }
    }

    fn same_bits(a: &Params<f32>, b: &Params<f32>) -> bool {
        a.blocks()
            .iter()
            .zip(b.blocks())
            .all(|((_, x), (_, y))| x.iter().zip(y).all(|(x, y)| x.to_bits() == y.to_bits()))
    }

    #[test]
    fn statistics_are_the_row_by_row_sums_bit_for_bit() {
        let mut rng = stream(5, 0, Purpose::Aux);
        let sizes = [
            (70, 33, 16),
            (130, 64, 70),
            (9, 100, 131),
            (784, 40, 100),
            (16, 16, 1000),
            (16, 16, 30),
            (16, 17, 64),
            (13, 23, 65),
            (64, 32, 127),
            (5, 8, 200),
            (9, 4, 9),
            (3, 5, 40),
            (65, 7, 20),
        ];
        for (m, n, rows) in sizes {
            let mut v: Vec<f32> = (0..rows * m)
                .map(|_| f32::from(crate::rng::uniform(&mut rng) < 0.3))
                .collect();
            // A row of zeros, a row of ones and a unit on in every row.
            v[..m].fill(0.0);
            v[m * (rows - 1)..].fill(1.0);
            (0..rows).for_each(|r| v[r * m + m / 2] = 1.0);
            let hp: Vec<f32> = (0..rows * n)
                .map(|_| crate::rng::uniform(&mut rng))
                .collect();
            // Start from non-zero sums (b integer, non-integer and negative), then add twice
            // (reusing the scratch).
            let mut fast = Stats::new(m, n);
            for x in fast.sum.w.iter_mut().chain(&mut fast.sum.c) {
                *x = crate::rng::uniform(&mut rng);
            }
            for (i, b) in fast.sum.b.iter_mut().enumerate() {
                *b = match i % 4 {
                    0 => 0.0,
                    1 => 3.0 + crate::rng::uniform(&mut rng),
                    2 => -7.0,
                    _ => 16_777_000.0,
                };
            }
            let mut want = fast.sum.clone();
            for _ in 0..2 {
                fast.add(&v, &hp);
                straightforward(&mut want, &v, &hp, 1.0);
            }
            assert_eq!(fast.count, 2.0 * rows as f32);
            assert!(same_bits(&fast.sum, &want), "{m}x{n}, {rows} rows");
            // Grey rows: the whole batch goes row by row, scaled.
            let mut grey = v.clone();
            grey[m + 1] = 0.5;
            fast.add(&grey, &hp);
            straightforward(&mut want, &grey, &hp, 1.0);
            assert!(same_bits(&fast.sum, &want), "{m}x{n} grey");
            // Signed single rows.
            for (r, weight) in [(0, -1.0), (rows - 1, 1.0), (rows / 2, 0.25)] {
                let (vr, hr) = (&v[r * m..(r + 1) * m], &hp[r * n..(r + 1) * n]);
                fast.add_weighted(vr, hr, weight);
                straightforward(&mut want, vr, hr, weight);
            }
            assert!(same_bits(&fast.sum, &want), "{m}x{n} weighted");
        }
    }

    #[test]
    fn statistics_by_unit_leave_grey_batches_unchanged() {
        let (m, n, rows) = (20, 16, 40);
        let mut v = vec![1.0; rows * m];
        v[3 * m + 1] = 0.5;
        let hp = vec![0.5; rows * n];
        let mut s = Stats::new(m, n);
        s.sum.b[2] = 1.5;
        let before = s.sum.clone();
        assert!(!s.add_binary_by_unit(&v, &hp));
        assert_eq!((s.sum, s.count), (before, 0.0));
    }

    #[test]
    fn adding_ones_at_once_is_adding_them_one_by_one() {
        let big = 16_777_216.0f32;
        for b in [
            0.0,
            -0.0,
            1.0,
            -3.0,
            -1000.0,
            0.5,
            -2.25,
            1e-3,
            big - 100.0,
            big - 5.0,
            big,
            -big,
            big * 2.0,
            f32::INFINITY,
            f32::NAN,
        ] {
            for k in [0, 1, 2, 3, 5, 64, 100, 1000] {
                let one_by_one = (0..k).fold(b, |b, _| b + 1.0);
                assert_eq!(add_ones(b, k).to_bits(), one_by_one.to_bits(), "{b} + {k}");
            }
        }
    }
}

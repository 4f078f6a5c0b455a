//! The packed layouts of W and Wᵀ and the pre-activation kernels over them, for the conditionals
//! of docs/algorithms.md §1: [`Packed`] re-lays a matrix by column chunks, and
//! [`pre_activations`] sums the rows that a batch's 0/1 rows select, chunk by chunk in index
//! order, so that the result is the dense product bit for bit. Many one-word patterns (the
//! pattern tables of docs/algorithms.md §1, "Chains on patterns") are summed through prefix
//! tables ([`add_selected_prefix`]) with the same bits and fewer additions. The model keeps both
//! layouts in step with its weights ([`EAGER_PACK_MIN`]).

use super::{Scratch, SCRATCH};
use crate::engine::cpu::kernels::{row_mask, sum_selected_bits};

/// A k×width row-major matrix re-laid by column chunks: chunk c holds, for every row i, the
/// `cw` columns c·cw … c·cw+cw−1 contiguously (zero-padded past `width`); cw = 32 (eight
/// 4-lane registers), or 16 / 8 for layers of at most 16 / 8 units. Summing selected rows then walks
/// one small contiguous block per chunk, which stays in cache across a batch.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Packed {
    pub(super) k: usize,
    pub(super) width: usize,
    pub(super) cw: usize,
    pub(super) data: Vec<f32>,
}

/// The chunk width of a packed layout `width` columns wide: 32 columns (eight 4-lane
/// registers), or 16 / 8 for layers of at most 16 / 8 units.
pub(crate) fn chunk_width(width: usize) -> usize {
    if width <= 8 {
        8
    } else if width <= 16 {
        16
    } else {
        32
    }
}

impl Packed {
    pub(super) fn new(k: usize, width: usize) -> Packed {
        let cw = chunk_width(width);
        Packed {
            k,
            width,
            cw,
            data: vec![0.0; width.div_ceil(cw) * k * cw],
        }
    }

    pub(super) fn fill(&mut self, mat: &[f32]) {
        match self.cw {
            8 => self.fill_chunks::<8>(mat),
            16 => self.fill_chunks::<16>(mat),
            _ => self.fill_chunks::<32>(mat),
        }
    }

    /// [`Packed::fill`] with the transpose of `mat` (`width`×`k` row-major): eight rows of
    /// `mat` at a time — eight sequential reads, one 8-value write per row of the packed matrix
    /// (a chunk width is a multiple of 8, so the eight values never straddle two chunks).
    pub(super) fn fill_transposed(&mut self, mat: &[f32]) {
        let (k, width, cw) = (self.k, self.width, self.cw);
        let mut panels = mat.chunks_exact(8 * k);
        for (p, panel) in (&mut panels).enumerate() {
            let r: [&[f32]; 8] = std::array::from_fn(|t| &panel[t * k..(t + 1) * k]);
            let (c, o) = (8 * p / cw, 8 * p % cw);
            let blk = &mut self.data[c * k * cw..(c + 1) * k * cw];
            for (j, dst) in blk.chunks_exact_mut(cw).enumerate() {
                let d: &mut [f32; 8] = (&mut dst[o..o + 8]).try_into().expect("8 values");
                *d = std::array::from_fn(|t| r[t][j]);
            }
        }
        let i0 = width / 8 * 8;
        for (t, row) in panels.remainder().chunks_exact(k).enumerate() {
            let (c, o) = ((i0 + t) / cw, (i0 + t) % cw);
            for (j, &x) in row.iter().enumerate() {
                self.data[c * k * cw + j * cw + o] = x;
            }
        }
    }

    /// [`Packed::fill`] with the chunk width known at compile time (whole chunks are fixed-size
    /// copies, not `memmove` calls).
    fn fill_chunks<const CW: usize>(&mut self, mat: &[f32]) {
        let (k, width) = (self.k, self.width);
        for (c, blk) in self.data.chunks_exact_mut(k * CW).enumerate() {
            let c0 = c * CW;
            let cols = CW.min(width - c0);
            let (dst, _) = blk.as_chunks_mut::<CW>();
            if cols == CW {
                for (i, d) in dst.iter_mut().enumerate() {
                    *d = mat[i * width + c0..i * width + c0 + CW]
                        .try_into()
                        .expect("a whole chunk");
                }
            } else {
                for (i, d) in dst.iter_mut().enumerate() {
                    d[..cols].copy_from_slice(&mat[i * width + c0..i * width + c0 + cols]);
                }
            }
        }
    }
}

/// `out_r = bias + Σ_i x_ri · mat[i]` for every row r of `x` (rows of k values; `mat` is
/// k×width row-major, `packed` the same matrix by chunks): the binary-sparse pre-activation.
/// A 0/1 row adds the rows selected by its active units — no multiplies — chunk by chunk with
/// register accumulators, chunk-outer so each chunk's block is reused by the whole batch.
/// Rows with other values (mean-field, grey data) scale the selected rows. Additions run in
/// index order, so the result equals the dense product bit for bit.
pub(super) fn pre_activations<'a>(
    bias: &[f32],
    mat: impl FnOnce() -> &'a [f32],
    packed: &Packed,
    x: &[f32],
    out: &mut [f32],
) {
    let (k, width) = (packed.k, packed.width);
    let words = k.div_ceil(64);
    SCRATCH.with_borrow_mut(|s| {
        // The active units of every binary row as a bitset of `words` words.
        let Scratch {
            bits,
            dense_rows,
            acc,
            ..
        } = s;
        let rows = x.len() / k;
        bits.resize(rows * words, 0);
        dense_rows.clear();
        for (r, (xr, br)) in x
            .chunks_exact(k)
            .zip(bits.chunks_exact_mut(words))
            .enumerate()
        {
            if !row_mask(xr, br) {
                br.fill(0);
                dense_rows.push(r);
            }
        }
        add_selected_packed(bias, packed, bits, words, acc, out);
        let mat = if dense_rows.is_empty() {
            &[][..]
        } else {
            mat()
        };
        for &r in dense_rows.iter() {
            let (xr, or) = (&x[r * k..(r + 1) * k], &mut out[r * width..(r + 1) * width]);
            or.copy_from_slice(bias);
            for (i, &xi) in xr.iter().enumerate() {
                if xi != 0.0 {
                    or.iter_mut()
                        .zip(&mat[i * width..(i + 1) * width])
                        .for_each(|(o, m)| *o += xi * m);
                }
            }
        }
    })
}

/// [`add_selected`] at the chunk width of `packed`.
pub(super) fn add_selected_packed(
    bias: &[f32],
    packed: &Packed,
    bits: &[u64],
    words: usize,
    acc: &mut Vec<f32>,
    out: &mut [f32],
) {
    match packed.cw {
        8 => add_selected::<2>(bias, packed, bits, words, acc, out),
        16 => add_selected::<4>(bias, packed, bits, words, acc, out),
        _ => add_selected::<8>(bias, packed, bits, words, acc, out),
    }
}

/// `o` ← the first `o.len()` values of the chunk sums `a` (all 4·`Q` of them when the chunk is
/// whole: a fixed-size store, as a copy of run-time length calls memcpy).
#[inline(always)]
fn store_chunk<const Q: usize>(o: &mut [f32], a: &[[f32; 4]; Q]) {
    if o.len() == 4 * Q {
        let o: &mut [[f32; 4]; Q] = o.as_chunks_mut::<4>().0.try_into().expect("a whole chunk");
        *o = *a;
    } else {
        o.iter_mut()
            .zip(a.as_flattened())
            .for_each(|(o, a)| *o = *a);
    }
}

/// The low bits of a pattern whose sums a prefix table holds ([`add_selected_prefix`]).
pub(super) const PREFIX_BITS: usize = 8;
/// Fewest patterns for which a prefix table pays: it costs 2^[`PREFIX_BITS`] row additions
/// and saves about half of each pattern's.
pub(super) const PREFIX_MIN: usize = 128;

/// [`add_selected_prefix`] at the chunk width of `packed`.
pub(super) fn add_selected_prefix_packed(
    bias: &[f32],
    packed: &Packed,
    masks: &[u64],
    table: &mut Vec<f32>,
    out: &mut [f32],
) {
    match packed.cw {
        8 => add_selected_prefix::<2>(bias, packed, masks, table, out),
        16 => add_selected_prefix::<4>(bias, packed, masks, table, out),
        _ => add_selected_prefix::<8>(bias, packed, masks, table, out),
    }
}

/// [`add_selected`] over one-word patterns (`masks`, more than [`PREFIX_BITS`] units) with the
/// same bits and fewer additions: per chunk of columns, a table holds b + Σ_{i ∈ p} row i for
/// every pattern p of the low [`PREFIX_BITS`] units, each entry from the entry without its
/// highest unit plus that unit's row — the additions [`add_selected`] makes, in the same
/// (increasing) order — and a pattern's sum continues from its low part's entry with the rows
/// of its other units, in increasing order.
fn add_selected_prefix<const Q: usize>(
    bias: &[f32],
    packed: &Packed,
    masks: &[u64],
    table: &mut Vec<f32>,
    out: &mut [f32],
) {
    let (width, cw) = (packed.width, 4 * Q);
    let (entries, low) = (1usize << PREFIX_BITS, (1u64 << PREFIX_BITS) - 1);
    table.resize(entries * cw, 0.0);
    let (t, _) = table.as_chunks_mut::<4>();
    let (t, _) = t.as_chunks_mut::<Q>();
    for (c, blk) in packed.data.chunks_exact(packed.k * cw).enumerate() {
        let c0 = c * cw;
        let cols = cw.min(width - c0);
        let mut b = [[0.0f32; 4]; Q];
        b.as_flattened_mut()[..cols].copy_from_slice(&bias[c0..c0 + cols]);
        t[0] = b;
        for p in 1..entries {
            let top = usize::BITS - 1 - p.leading_zeros();
            let row = &blk[top as usize * cw..(top as usize + 1) * cw];
            let mut e = t[p ^ (1 << top)];
            e.as_flattened_mut()
                .iter_mut()
                .zip(row)
                .for_each(|(e, &w)| *e += w);
            t[p] = e;
        }
        for (r, &mask) in masks.iter().enumerate() {
            let a = sum_selected_bits(&t[(mask & low) as usize], blk, 0, &[mask & !low]);
            store_chunk(&mut out[r * width + c0..r * width + c0 + cols], &a);
        }
    }
}

/// The accumulation of [`pre_activations`] over binary rows (`bits`: `words` words per row),
/// with chunks of 4·`Q` columns: chunk-outer, then blocks of rows of `mat` small enough for L1
/// (16 KB, a whole number of 64-row words), then the batch, so each block is reused by every
/// row of the batch while in cache. Each row's units are added in increasing order across
/// blocks, so the additions happen in index order.
fn add_selected<const Q: usize>(
    bias: &[f32],
    packed: &Packed,
    bits: &[u64],
    words: usize,
    acc: &mut Vec<f32>,
    out: &mut [f32],
) {
    let (k, width, cw) = (packed.k, packed.width, 4 * Q);
    let block_words = (64 / cw).max(1);
    let rows = bits.len() / words;
    for (c, blk) in packed.data.chunks_exact(k * cw).enumerate() {
        let c0 = c * cw;
        let cols = cw.min(width - c0);
        let mut b = [[0.0f32; 4]; Q];
        b.as_flattened_mut()[..cols].copy_from_slice(&bias[c0..c0 + cols]);
        let store = |out: &mut [f32], r: usize, a: &[[f32; 4]; Q]| {
            store_chunk(&mut out[r * width + c0..r * width + c0 + cols], a);
        };
        if words <= block_words {
            // One block: each row at once, straight to the output.
            for (r, br) in bits.chunks_exact(words).enumerate() {
                store(out, r, &sum_selected_bits(&b, blk, 0, br));
            }
            continue;
        }
        acc.resize(rows * cw, 0.0);
        let (acc, _) = acc.as_chunks_mut::<4>();
        let (acc, _) = acc.as_chunks_mut::<Q>();
        acc.iter_mut().for_each(|a| *a = b);
        for w0 in (0..words).step_by(block_words) {
            let w1 = (w0 + block_words).min(words);
            for (a, br) in acc.iter_mut().zip(bits.chunks_exact(words)) {
                *a = sum_selected_bits(a, blk, w0, &br[w0..w1]);
            }
        }
        for (r, a) in acc.iter().enumerate() {
            store(out, r, a);
        }
    }
}

/// Models with at least this many weights pack W and Wᵀ on every edit; smaller ones when a
/// kernel first reads them after an edit (small models' chains on patterns, and their
/// statistics, seldom do; one model's packing is then two small allocations).
pub(super) const EAGER_PACK_MIN: usize = 1 << 14;

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    use super::*;
    use crate::engine::cpu::patterns::memo::Side;
    use crate::model::Rbm;
    use crate::rng::{stream, Purpose};

    fn random_model(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
        Rbm::random(m, n, scale, seed).unwrap()
    }

    /// The packed weights follow every edit, packed lazily (a small model) or in place (a large
    /// one), in the model and in a clone made before they were packed: both conditionals'
    /// pre-activations stay the plain sums.
    #[test]
    fn packed_weights_follow_every_edit_small_and_large() {
        use crate::rng::{stream, uniform, Purpose};
        for (m, n) in [(9, 4), (160, 120)] {
            assert_eq!(m * n >= EAGER_PACK_MIN, m > 9);
            let mut r = stream(2, m as u64, Purpose::Aux);
            let mut rows = |len: usize| -> Vec<f32> {
                (0..3 * len)
                    .map(|_| f32::from(u8::from(uniform(&mut r) < 0.5)))
                    .collect()
            };
            let (v, h) = (rows(m), rows(n));
            let mut rbm = Rbm::random(m, n, 0.5, 5).unwrap();
            for edit in 0..3 {
                rbm.edit_w(|w| w.iter_mut().for_each(|x| *x = 0.8 * *x + 0.01));
                let copy = rbm.clone();
                if edit == 1 {
                    rbm.edit_w(|w| w[0] += 1.0);
                }
                for model in [&rbm, &copy] {
                    let (mut a, mut g) = (vec![0.0; 3 * m], vec![0.0; 3 * n]);
                    model.visible_pre(&h, &mut a);
                    model.hidden_pre(&v, &mut g);
                    let w = model.w();
                    // Row r of `pre` against bias + Σ_k x_{r,k}·weight(k, out) in f64.
                    let check =
                        |pre: &[f32],
                         bias: &[f32],
                         x: &[f32],
                         weight: &dyn Fn(usize, usize) -> f32| {
                            let (outs, ins) = (bias.len(), x.len() / 3);
                            for (r, row) in pre.chunks_exact(outs).enumerate() {
                                for (o, &p) in row.iter().enumerate() {
                                    let dot =
                                        (0..ins).map(|k| (x[r * ins + k] * weight(k, o)) as f64);
                                    let want = bias[o] as f64 + dot.sum::<f64>();
                                    assert!((p as f64 - want).abs() < 1e-4, "{m}×{n}");
                                }
                            }
                        };
                    check(&a, &model.b, &h, &|j, i| w[i * n + j]);
                    check(&g, &model.c, &v, &|i, j| w[i * n + j]);
                }
            }
        }
    }

    #[test]
    fn packed_layouts_give_the_index_order_sums_bit_for_bit() {
        let mut rng = stream(9, 0, Purpose::Aux);
        for (m, n) in [(5, 3), (13, 20), (37, 70), (100, 9), (19, 784)] {
            let rbm = random_model(m, n, 1.0, (m * n) as u64);
            for i in 0..m {
                for j in 0..n {
                    assert_eq!(rbm.w()[i * n + j], rbm.wt()[j * m + i]);
                }
            }
            for (k, width, x_len, pre) in [(m, n, 4 * m, 0), (n, m, 4 * n, 1)] {
                let mut x: Vec<f32> = (0..x_len)
                    .map(|_| f32::from(crate::rng::uniform(&mut rng) < 0.4))
                    .collect();
                x[k + 1] = 0.25; // one grey row takes the dense path
                let mut out = vec![0.0; 4 * width];
                if pre == 0 {
                    rbm.hidden_pre(&x, &mut out);
                } else {
                    rbm.visible_pre(&x, &mut out);
                }
                for (xr, or) in x.chunks_exact(k).zip(out.chunks_exact(width)) {
                    let mut want = if pre == 0 {
                        rbm.c.clone()
                    } else {
                        rbm.b.clone()
                    };
                    for (i, &xi) in xr.iter().enumerate() {
                        for (t, w) in want.iter_mut().enumerate() {
                            let wij = if pre == 0 {
                                rbm.w()[i * n + t]
                            } else {
                                rbm.w()[t * n + i]
                            };
                            if xi != 0.0 {
                                *w += xi * wij;
                            }
                        }
                    }
                    assert!(
                        want.iter().zip(or).all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{m}x{n}"
                    );
                }
            }
        }
    }

    /// Pre-activations of patterns given as masks — below [`PREFIX_MIN`] patterns by
    /// [`add_selected`], from it on by the prefix tables of [`add_selected_prefix`] — are the
    /// index-order sums b + Σ_{i ∈ p} W_i, bit for bit, for every chunk width.
    #[test]
    fn pre_activations_of_masks_are_the_index_order_sums_bit_for_bit() {
        let mut rng = stream(11, 0, Purpose::Aux);
        for (m, n) in [(16, 16), (12, 5), (9, 30), (40, 37), (64, 8), (7, 12)] {
            let rbm = random_model(m, n, 1.0, (m + 100 * n) as u64);
            for side in [Side::Hidden, Side::Visible] {
                let (k, width, bias) = match side {
                    Side::Hidden => (m, n, &rbm.c),
                    Side::Visible => (n, m, &rbm.b),
                };
                for rows in [3, PREFIX_MIN - 1, PREFIX_MIN, 2 * PREFIX_MIN + 5] {
                    let masks: Vec<u64> = (0..rows)
                        .map(|_| rand::Rng::next_u64(&mut rng) & (u64::MAX >> (64 - k)))
                        .collect();
                    let mut out = vec![0.0; rows * width];
                    rbm.pre_of_masks(side, &masks, &mut out);
                    for (&mask, got) in masks.iter().zip(out.chunks_exact(width)) {
                        let mut want = bias.clone();
                        for i in (0..k).filter(|&i| mask >> i & 1 == 1) {
                            for (t, w) in want.iter_mut().enumerate() {
                                *w += match side {
                                    Side::Hidden => rbm.w()[i * n + t],
                                    Side::Visible => rbm.w()[t * n + i],
                                };
                            }
                        }
                        assert!(
                            want.iter()
                                .zip(got)
                                .all(|(a, b)| a.to_bits() == b.to_bits()),
                            "{m}x{n} {side:?} {rows} patterns"
                        );
                    }
                }
            }
        }
    }
}

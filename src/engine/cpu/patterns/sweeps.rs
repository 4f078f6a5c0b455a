//! Gibbs sweeps of small models on bit patterns (docs/algorithms.md §1, "Chains on patterns").
//!
//! When both layers have at most [`MAX_BITS`] units, [`crate::engine::cpu::Chains`] keep each chain's states
//! as bit patterns (bit i = unit i) for the length of a call and read the conditionals'
//! thresholds `t = 1 + e^{−a}` from two tables indexed directly by pattern: a lookup is one
//! load, and the compare `u·t < 1` writes the next pattern, not a row. A table holds the numbers
//! of the patterns met while the parameters stay the same (a call of [`crate::engine::cpu::Chains::sweeps`]
//! and the [`crate::engine::cpu::Chains::finish`] after it), computed once per pattern.
//!
//! Nothing else changes: a pattern's pre-activations come from the kernel the rows would use
//! ([`Rbm::pre_of_masks`]), the same uniforms are drawn in the same order and compared by the
//! same rule, so the chains reach the same states, bit for bit, as the row-by-row sweeps (tests
//! compare both). The global memo ([`crate::engine::cpu::patterns::memo`]) does the same for any caller, but its
//! set-up and hashing per call cost more than the sweeps of a few chains on a 9×4 model.

use super::memo::Side;
use super::{DirectIndex, ParamsKey};
use crate::engine::cpu::kernels::{bernoulli_quads, row_keys, NIBBLES};
use crate::math::one_plus_exp_neg_in_place;
use crate::model::Rbm;
use crate::rng::{fill_uniform, Rng};

/// Layers of at most this many units run on patterns (a table has 2^units entries).
pub(crate) const MAX_BITS: usize = 16;

/// What a call of [`BitSweeps::sweeps`] does: v ~ p(v|h) first (`from_hidden`), then `k`
/// sweeps (h ~ p(h|v), then v ~ p(v|h)), then E[h|v] of the final states (`means`).
#[derive(Clone, Copy)]
pub(crate) struct Run {
    pub from_hidden: bool,
    pub k: usize,
    pub means: bool,
}

/// The pattern tables of a set of chains and their states as patterns.
///
/// The patterns are kept from call to call while [`crate::engine::cpu::Chains`] change their rows only
/// through these sweeps: a call then starts from them instead of reading the rows, and the
/// hidden rows are written only when something reads them ([`BitSweeps::write_hidden`]).
#[derive(Default)]
pub(crate) struct BitSweeps {
    /// p(h|v), indexed by visible patterns; p(v|h), indexed by hidden patterns.
    hid: Table,
    vis: Table,
    v_keys: Vec<u32>,
    h_keys: Vec<u32>,
    /// What `v_keys` and `h_keys` say of the chains' rows.
    visible: Visible,
    hidden: Hidden,
    /// Patterns of rows that are not the chains' ([`BitSweeps::row_thresholds`]).
    row_keys: Vec<u32>,
}

/// What the kept visible patterns (`v_keys`) are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Visible {
    /// Nothing: the rows are read when a call starts from them.
    #[default]
    Unknown,
    /// The chains' visible states, which the rows hold too.
    Kept,
    /// The batch rows' patterns repeated ([`BitSweeps::restart`]), not yet written to the
    /// rows: the first half-sweep locates only the batch rows' patterns, and the sweeps write
    /// the rows.
    Restarted,
}

/// What the kept hidden patterns (`h_keys`) are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Hidden {
    /// Nothing: the rows are read when a call starts from them.
    #[default]
    Unknown,
    /// The chains' hidden states, which the rows hold too.
    Kept,
    /// The chains' hidden states, drawn since the rows were last written: the rows are behind
    /// ([`BitSweeps::write_hidden`]).
    Unwritten,
}

/// Lookups ahead per pattern of a layer from which its table is computed whole. Fewer meet only
/// some patterns (the chains' states concentrate), and computing those as they are met costs
/// less: filling the tables whenever the lookups outnumbered the patterns made the lanes of
/// `sdcp-shifting-bar` (16 hidden patterns) 6% slower.
const FILL_LOOKUPS: usize = 16;

/// New patterns computed at once (bounds the scratch pre-activations).
const CHUNK: usize = 1024;

/// One conditional's thresholds per conditioning pattern, for one set of parameters.
#[derive(Default)]
struct Table {
    /// Per pattern: the generation that last gave it a slot, and that slot (at most 2^16
    /// patterns, so slots 0 … 65 535).
    index: DirectIndex<u16>,
    /// The parameters the slots are for.
    params: ParamsKey,
    width: usize,
    /// Values per slot: `width` rounded up to a multiple of four (padded with +∞).
    stride: usize,
    /// Thresholds, slot-major (`slots × stride`).
    t: Vec<f32>,
    /// Patterns met for the first time and not computed yet, and scratch pre-activations.
    new: Vec<u64>,
    pre: Vec<f32>,
    /// The parameters as quads for [`Table::compute_few`]: the bias, then one row per
    /// conditioning unit (its weights to the conditioned layer), each `stride / 4` quads (the
    /// values past `width` unspecified).
    quads: Vec<[f32; 4]>,
}

impl Table {
    /// Starts afresh unless the table holds the numbers of `model`'s conditional of `side`
    /// (of `bits` conditioning units).
    fn prepare(&mut self, model: &Rbm, side: Side, bits: usize) {
        let (w_gen, bias) = model.conditional_params(side);
        if self.index.len() == 1 << bits && self.params.is(w_gen, bias) {
            return;
        }
        if self.index.len() == 1 << bits {
            self.index.clear();
        } else {
            self.index = DirectIndex::new(1 << bits);
        }
        self.params.set(w_gen, bias);
        self.width = bias.len();
        self.stride = bias.len().next_multiple_of(4);
        self.t.clear();
        // Only the first `width` values of a row are written: the pads' sums never reach a
        // threshold (compute_few overwrites them with +∞).
        let q = self.stride / 4;
        if self.quads.len() != (bits + 1) * q {
            self.quads.clear();
            self.quads.resize((bits + 1) * q, [0.0; 4]);
        }
        let (b, rows) = self.quads.split_at_mut(q);
        let b = b.as_flattened_mut();
        bias.iter().zip(b.iter_mut()).for_each(|(&x, b)| *b = x);
        let stride = 4 * q;
        let rows = rows.as_flattened_mut();
        let (w, n) = (model.w(), model.n());
        for (i, w) in w.chunks_exact(n).enumerate() {
            match side {
                // Row i of W is visible unit i's row.
                Side::Hidden => rows[i * stride..i * stride + n]
                    .iter_mut()
                    .zip(w)
                    .for_each(|(r, &x)| *r = x),
                // Its value j is hidden unit j's weight from visible unit i.
                Side::Visible => w
                    .iter()
                    .enumerate()
                    .for_each(|(j, &x)| rows[j * stride + i] = x),
            }
        }
    }

    /// Computes every pattern of a fresh table at once (for a layer with [`FILL_LOOKUPS`] lookups
    /// ahead per pattern, which meet nearly all of them: one computation instead of one per
    /// lookup call that meets new ones).
    fn fill_all(&mut self, model: &Rbm, side: Side) {
        if !self.t.is_empty() {
            return;
        }
        self.index.fill(|p| p as u16);
        for start in (0..self.index.len()).step_by(CHUNK) {
            let end = (start + CHUNK).min(self.index.len());
            self.new.clear();
            self.new.extend(start as u64..end as u64);
            self.compute_new(model, side);
        }
    }

    /// Gives every pattern of `keys` a slot, computing the thresholds of new ones.
    fn locate(&mut self, model: &Rbm, side: Side, keys: &[u32]) {
        let mut next = (self.t.len() / self.stride + self.new.len()) as u16;
        for &key in keys {
            if self.index.get_or_insert(key as usize, next).is_none() {
                next = next.wrapping_add(1);
                self.new.push(u64::from(key));
                if self.new.len() == CHUNK {
                    self.compute_new(model, side);
                }
            }
        }
        self.compute_new(model, side);
    }

    /// Appends the thresholds of the patterns in `new` to `t`.
    fn compute_new(&mut self, model: &Rbm, side: Side) {
        if self.new.is_empty() {
            return;
        }
        if !model.pre_of_masks_uses_prefix(side, self.new.len()) {
            match self.stride / 4 {
                1 => self.compute_few::<1>(),
                2 => self.compute_few::<2>(),
                3 => self.compute_few::<3>(),
                _ => self.compute_few::<4>(),
            }
            self.new.clear();
            return;
        }
        // Scratch kept at its largest and thresholds appended: no zero-fill before the writes.
        let len = self.new.len() * self.width;
        if self.pre.len() < len {
            self.pre.resize(len, 0.0);
        }
        let pre = &mut self.pre[..len];
        model.pre_of_masks(side, &self.new, pre);
        let start = self.t.len();
        let pad = self.stride - self.width;
        for row in pre.chunks_exact(self.width) {
            self.t.extend_from_slice(row);
            self.t.extend(std::iter::repeat_n(0.0, pad));
        }
        self.thresholds_from(start);
        self.new.clear();
    }

    /// The pre-activations in `t[start..]` (whole slots) become thresholds, the pads +∞: the
    /// whole run at once ([`one_plus_exp_neg_in_place`], eight at a time with AVX2).
    fn thresholds_from(&mut self, start: usize) {
        let t = &mut self.t[start..];
        one_plus_exp_neg_in_place(t);
        if self.width < self.stride {
            for t in t.chunks_exact_mut(self.stride) {
                t[self.width..].fill(f32::INFINITY);
            }
        }
    }

    /// [`Table::compute_new`] for patterns that [`Rbm::pre_of_masks`] would sum one at a time
    /// (the batch kernel without prefix tables): the same additions in the same (increasing)
    /// order, from the quads kept with the table, without the batch kernel's set-up per call.
    fn compute_few<const Q: usize>(&mut self) {
        let (b, rows) = self.quads.split_at(Q);
        let b: &[[f32; 4]; Q] = b.try_into().expect("Q quads of bias");
        let (rows, _) = rows.as_chunks::<Q>();
        let start = self.t.len();
        self.t.resize(start + self.new.len() * 4 * Q, 0.0);
        let (t, _) = self.t[start..].as_chunks_mut::<4>();
        let (t, _) = t.as_chunks_mut::<Q>();
        for (t, &key) in t.iter_mut().zip(&self.new) {
            let mut a = *b;
            let mut rest = key;
            while rest != 0 {
                let row = &rows[rest.trailing_zeros() as usize];
                rest &= rest - 1;
                for (a, r) in a.iter_mut().zip(row) {
                    *a = std::array::from_fn(|l| a[l] + r[l]);
                }
            }
            *t = a;
        }
        self.thresholds_from(start);
    }

    /// E[h|v] = 1/t (= σ(a), bit for bit) of the visible patterns `keys` into `hp`, one row
    /// each (a table of p(h|v)).
    fn means(&mut self, model: &Rbm, keys: &[u32], hp: &mut [f32]) {
        self.locate(model, Side::Hidden, keys);
        for (p, &key) in hp.chunks_exact_mut(self.width).zip(keys) {
            p.iter_mut()
                .zip(self.t_of(key))
                .for_each(|(p, &t)| *p = 1.0 / t);
        }
    }

    /// The thresholds of pattern `key` (located).
    #[inline(always)]
    fn t_of(&self, key: u32) -> &[f32] {
        let s = self.index.slot(key as usize) as usize * self.stride;
        &self.t[s..s + self.stride]
    }

    /// Draws the conditioned layer for every pattern of `keys` into `out` (patterns too): the
    /// uniforms of the whole layer in one fill, as the row-by-row kernel draws them.
    fn sample(
        &mut self,
        model: &Rbm,
        side: Side,
        keys: &[u32],
        out: &mut [u32],
        u: &mut Vec<f32>,
        rng: &mut Rng,
    ) {
        self.locate(model, side, keys);
        self.draw(keys, out, u, rng);
    }

    /// [`Table::sample`] for patterns `keys` already located.
    fn draw(&self, keys: &[u32], out: &mut [u32], u: &mut Vec<f32>, rng: &mut Rng) {
        // The last row's last group of four reads up to three values past the draws.
        let len = keys.len() * self.width;
        if u.len() < len + 3 {
            u.resize(len + 3, 0.0);
        }
        fill_uniform(rng, &mut u[..len]);
        match self.stride / 4 {
            1 => self.compare::<1>(keys, out, u),
            2 => self.compare::<2>(keys, out, u),
            3 => self.compare::<3>(keys, out, u),
            _ => self.compare::<4>(keys, out, u),
        }
    }

    /// `out[r]` ← the pattern of `u_r·t < 1` for the thresholds of `keys[r]` and row r of `u`,
    /// `Q` groups of four units per row.
    #[inline(always)]
    fn compare<const Q: usize>(&self, keys: &[u32], out: &mut [u32], u: &[f32]) {
        for (r, (o, &key)) in out.iter_mut().zip(keys).enumerate() {
            *o = bernoulli_quads::<Q>(&u[r * self.width..], self.t_of(key)) as u32;
        }
    }
}

/// Row r of `rows` (rows of `width` values) ← the 0/1 values of pattern r, four at a time.
fn write_rows(keys: &[u32], width: usize, rows: &mut [f32]) {
    // Rows of up to four whole quads with the shifts known.
    match width {
        4 => write_quads::<1>(keys, rows),
        8 => write_quads::<2>(keys, rows),
        12 => write_quads::<3>(keys, rows),
        16 => write_quads::<4>(keys, rows),
        0..4 => write_quads_rest::<0>(keys, width, rows),
        5..8 => write_quads_rest::<1>(keys, width, rows),
        9..12 => write_quads_rest::<2>(keys, width, rows),
        _ => write_quads_rest::<3>(keys, width, rows),
    }
}

/// [`write_rows`] for rows of `Q` quads.
fn write_quads<const Q: usize>(keys: &[u32], rows: &mut [f32]) {
    let (rows, _) = rows.as_chunks_mut::<4>();
    let (rows, _) = rows.as_chunks_mut::<Q>();
    for (row, &key) in rows.iter_mut().zip(keys) {
        for (q, x) in row.iter_mut().enumerate() {
            *x = NIBBLES[(key >> (4 * q)) as usize & 15];
        }
    }
}

/// [`write_rows`] for rows of `Q` quads and one to three values more (`width` in all).
fn write_quads_rest<const Q: usize>(keys: &[u32], width: usize, rows: &mut [f32]) {
    for (row, &key) in rows.chunks_exact_mut(width).zip(keys) {
        let (quads, rest) = row.split_at_mut(4 * Q);
        let (quads, _) = quads.as_chunks_mut::<4>();
        for (q, x) in quads.iter_mut().enumerate() {
            *x = NIBBLES[(key >> (4 * q)) as usize & 15];
        }
        for (j, x) in rest.iter_mut().enumerate() {
            *x = ((key >> (4 * Q + j)) & 1) as f32;
        }
    }
}

impl BitSweeps {
    /// Whether an m×n model runs on patterns.
    pub fn applies(m: usize, n: usize) -> bool {
        (1..=MAX_BITS).contains(&m) && (1..=MAX_BITS).contains(&n)
    }

    /// The sweeps of `run` on the chains `v`, `h` (and E[h|v] into `hp` after them) under
    /// `model`, with `u` as scratch for the uniforms: the states, means and stream position of
    /// as many [`Rbm::sample_visible`], [`Rbm::sample_hidden`] and [`Rbm::hidden_probs`] calls.
    /// Returns false, having drawn nothing and changed nothing, when a state it starts from is
    /// not 0/1.
    pub fn sweeps(
        &mut self,
        model: &Rbm,
        (v, h, hp): (&mut [f32], &mut [f32], &mut [f32]),
        u: &mut Vec<f32>,
        rng: &mut Rng,
        run: Run,
    ) -> bool {
        let (m, n) = (model.m(), model.n());
        let count = v.len() / m;
        let started = if run.from_hidden {
            (self.hidden != Hidden::Unknown && self.h_keys.len() == count)
                || row_keys(h, n, &mut self.h_keys)
        } else {
            (self.visible != Visible::Unknown && self.v_keys.len() == count)
                || row_keys(v, m, &mut self.v_keys)
        };
        if !started {
            return false;
        }
        let restarted = self.visible == Visible::Restarted && !run.from_hidden;
        let BitSweeps {
            hid,
            vis,
            v_keys,
            h_keys,
            row_keys,
            ..
        } = self;
        v_keys.resize(count, 0);
        h_keys.resize(count, 0);
        hid.prepare(model, Side::Hidden, m);
        vis.prepare(model, Side::Visible, n);
        let k = run.k;
        let v_lookups = count * (k + usize::from(run.means));
        let h_lookups = count * (k + usize::from(run.from_hidden));
        if (1 << m) * FILL_LOOKUPS <= v_lookups {
            hid.fill_all(model, Side::Hidden);
        }
        if (1 << n) * FILL_LOOKUPS <= h_lookups {
            vis.fill_all(model, Side::Visible);
        }
        if run.from_hidden {
            vis.sample(model, Side::Visible, h_keys, v_keys, u, rng);
        }
        for sweep in 0..k {
            if sweep == 0 && restarted {
                hid.locate(model, Side::Hidden, row_keys);
                hid.draw(v_keys, h_keys, u, rng);
            } else {
                hid.sample(model, Side::Hidden, v_keys, h_keys, u, rng);
            }
            vis.sample(model, Side::Visible, h_keys, v_keys, u, rng);
        }
        write_rows(v_keys, m, v);
        if run.means {
            hid.means(model, v_keys, hp);
        }
        self.visible = Visible::Kept;
        if k > 0 {
            self.hidden = Hidden::Unwritten;
        }
        true
    }

    /// The chains' rows were changed by something else: their kept patterns are forgotten
    /// (after [`BitSweeps::write_hidden`] if the hidden rows are read or kept in part).
    pub fn forget(&mut self) {
        debug_assert!(
            self.hidden != Hidden::Unwritten,
            "hidden rows written before they change"
        );
        (self.visible, self.hidden) = (Visible::Unknown, Hidden::Unknown);
    }

    /// Writes the hidden rows `h` (of `n` units) from their patterns if they are behind them.
    pub fn write_hidden(&mut self, n: usize, h: &mut [f32]) {
        if self.hidden == Hidden::Unwritten {
            write_rows(&self.h_keys, n, h);
            self.hidden = Hidden::Kept;
        }
    }

    /// Restarts `count` chains at the 0/1 `rows` (chain i at row i mod rows, as
    /// [`crate::engine::cpu::Chains::restart`]) as patterns only, for a call of [`BitSweeps::sweeps`] from
    /// the visible states with at least one sweep, which writes the rows; false, having
    /// changed nothing, when a row is not 0/1.
    pub fn restart(&mut self, rows: &[f32], m: usize, count: usize) -> bool {
        if rows.is_empty() || !row_keys(rows, m, &mut self.row_keys) {
            return false;
        }
        self.v_keys.clear();
        self.v_keys
            .extend(self.row_keys.iter().cycle().take(count).copied());
        self.visible = Visible::Restarted;
        true
    }

    /// The chains' visible patterns, while they are the rows' (kept since the last call on
    /// patterns).
    pub fn kept_v_keys(&self) -> Option<&[u32]> {
        (self.visible != Visible::Unknown).then_some(&self.v_keys[..])
    }

    /// The hidden thresholds `t = 1 + e^{−(c + Wᵀv)}` of the rows `v` under `model` into `t`
    /// (the bits of [`Rbm::hidden_pre`] and [`crate::math::one_plus_exp_neg`]), from the table
    /// the chains' sweeps under `model` read. Returns the rows' patterns; none, having written
    /// nothing, when a row is not 0/1.
    pub fn row_thresholds(&mut self, model: &Rbm, v: &[f32], t: &mut [f32]) -> Option<&[u32]> {
        if !row_keys(v, model.m(), &mut self.row_keys) {
            return None;
        }
        self.hid.prepare(model, Side::Hidden, model.m());
        self.hid.locate(model, Side::Hidden, &self.row_keys);
        let n = model.n();
        for (t, &key) in t.chunks_exact_mut(n).zip(&self.row_keys) {
            t.copy_from_slice(&self.hid.t_of(key)[..n]);
        }
        Some(&self.row_keys)
    }

    /// E[h|v] of the chains `v` under `model` into `hp` (1/t, the bits of
    /// [`Rbm::hidden_probs`]); false, having written nothing, when a state is not 0/1.
    pub fn hidden_probs(&mut self, model: &Rbm, v: &[f32], hp: &mut [f32]) -> bool {
        if !row_keys(v, model.m(), &mut self.row_keys) {
            return false;
        }
        self.hid.prepare(model, Side::Hidden, model.m());
        self.hid.means(model, &self.row_keys, hp);
        true
    }
}

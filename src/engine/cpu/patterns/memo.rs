//! Memoised Gibbs conditionals (docs/algorithms.md §1, "Per-pattern memo").
//!
//! A conditional p(h|v) or p(v|h) of a binary RBM depends on the conditioning row only through
//! its 0/1 pattern. On small models the chains of an update visit few distinct patterns (the
//! S-DCP paper's 9×4 Shifting Bar has at most 16 hidden patterns; a trained BAS 4×4 model keeps
//! its chains on a few dozen), so the pre-activations `a` and the thresholds `t = 1 + e^{−a}` are
//! computed once per distinct pattern and reused while the parameters stay the same, within a
//! call and across the calls of an update (UCD's coupled rounds, CD-k's and S-DCP's sweeps).
//!
//! Nothing else changes: a pattern's numbers come from the same kernel as before (one row at a
//! time in [`crate::model`]'s binary pre-activation, which treats rows independently), the same
//! uniforms are drawn in the same order, so every result is the same bits with or without the
//! memo (tests compare both). The memos are thread-local (two per conditional, for two models
//! used in turn), keyed by the weights' generation number (new on every edit of W) and a
//! bitwise copy of the bias, so any edit of W, b or c starts one afresh.

use super::ParamsKey;
use crate::engine::cpu::kernels::{push_row, row_mask};
use crate::math::one_plus_exp_neg;
use std::cell::{Cell, RefCell};

/// Which conditional a memo holds: rows are visible states (p(h|v)) or hidden states (p(v|h)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// p(h|v): keys are visible patterns, entries have n values.
    Hidden = 0,
    /// p(v|h): keys are hidden patterns, entries have m values.
    Visible = 1,
}

/// Patterns kept at once (then the memo starts afresh).
const MAX_SLOTS: usize = 4096;
/// Hash table entries: a power of two, twice the slots (load ≤ ½).
const TABLE_BITS: u32 = 13;
const TABLE: usize = 1 << TABLE_BITS;
const EMPTY: u64 = u64::MAX;
/// Conditioning layers of at most this many units (one 64-bit key; all ones never collides
/// with [`EMPTY`]).
const MAX_KEY_BITS: usize = 63;
/// Calls with fewer rows compute directly (a lookup costs about what one row's work does).
const MIN_ROWS: usize = 8;
/// Models of at most this many weights (comparing the parameters on each call stays cheap).
const MAX_WEIGHTS: usize = 8192;
/// While a memo's recent hit rate is below 1/`BYPASS_BELOW`, only one call in `PROBE_EVERY`
/// goes through it (the others compute directly, which gives the same bits).
const BYPASS_BELOW: u32 = 8;
const PROBE_EVERY: u32 = 8;

/// One conditional's memo: the parameters it is valid for and, per distinct pattern (slot),
/// the pre-activations and thresholds.
#[derive(Default)]
pub(crate) struct Memo {
    params: ParamsKey,
    width: usize,
    keys: Vec<u64>,
    vals: Vec<u32>,
    /// Table entries in use (to clear only those).
    used: Vec<u32>,
    /// Pre-activations, slot-major (`slots × width`).
    pub pre: Vec<f32>,
    /// Thresholds `1 + e^{−pre}`, slot-major.
    pub t: Vec<f32>,
    /// Means `1/t` (= σ(pre)) of the first `p.len() / width` slots, filled on demand.
    p: Vec<f32>,
    /// The slot of each row of the current call.
    pub slots: Vec<u32>,
    row_keys: Vec<u64>,
    miss: Vec<f32>,
    /// Hits and lookups since the parameters last changed; whether the hit rate was low before;
    /// calls bypassed since.
    hits: u32,
    lookups: u32,
    low_rate: bool,
    skipped: u32,
}

impl Memo {
    /// Values per entry.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Entry `slot`'s thresholds.
    #[inline(always)]
    pub fn t_of(&self, slot: u32) -> &[f32] {
        let s = slot as usize * self.width;
        &self.t[s..s + self.width]
    }

    fn clear_entries(&mut self) {
        for &i in &self.used {
            self.keys[i as usize] = EMPTY;
        }
        self.used.clear();
        self.pre.clear();
        self.t.clear();
        self.p.clear();
    }

    /// Makes the means of every slot available ([`Memo::means`]).
    fn fill_means(&mut self) {
        let start = self.p.len();
        self.p.extend(self.t[start..].iter().map(|&t| 1.0 / t));
    }

    /// The means 1/t = σ(pre) of every slot, slot-major (bit for bit: `sigmoid` is
    /// 1/(1 + e^{−a})); only inside [`with`] called with `means`.
    pub fn means(&self) -> &[f32] {
        &self.p
    }

    /// Whether the memo is for these parameters.
    fn holds(&self, w_gen: u64, bias: &[f32], width: usize) -> bool {
        width == self.width && self.params.is(w_gen, bias)
    }

    /// Starts afresh for parameters (W as `w_gen`, `bias`) unless they are those of the memo
    /// (the bias bitwise).
    fn validate(&mut self, w_gen: u64, bias: &[f32], width: usize) {
        if self.keys.len() != TABLE {
            self.keys = vec![EMPTY; TABLE];
            self.vals = vec![0; TABLE];
        } else if self.holds(w_gen, bias, width) {
            return;
        }
        self.clear_entries();
        self.params.set(w_gen, bias);
        self.width = width;
        // The last parameters' hit rate decides for the next ones (kept when they were never
        // looked up); a low rate is probed again now and then.
        if self.lookups > 0 {
            self.low_rate = self.hits * BYPASS_BELOW < self.lookups;
        }
        self.hits = 0;
        self.lookups = 0;
    }

    /// Finds or adds the slot of every key in `row_keys`; returns how many slots are new
    /// (their rows, from `x`, are appended to `miss`).
    fn assign(&mut self, x: &[f32], k: usize) -> usize {
        let before = self.used.len();
        self.slots.clear();
        self.miss.clear();
        for (r, &key) in self.row_keys.iter().enumerate() {
            let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TABLE_BITS)) as usize;
            let slot = loop {
                match self.keys[i] {
                    EMPTY => {
                        let s = self.used.len() as u32;
                        self.keys[i] = key;
                        self.vals[i] = s;
                        self.used.push(i as u32);
                        push_row(&mut self.miss, &x[r * k..(r + 1) * k]);
                        break s;
                    }
                    kk if kk == key => break self.vals[i],
                    _ => i = (i + 1) & (TABLE - 1),
                }
            };
            self.slots.push(slot);
        }
        let new = self.used.len() - before;
        self.lookups = self.lookups.saturating_add(self.row_keys.len() as u32);
        self.hits = self.hits.saturating_add((self.row_keys.len() - new) as u32);
        new
    }
}

/// Two memos per side, so two models used in turn (FPCD's θ and θ + θ_F) keep theirs.
#[derive(Default)]
struct Pair {
    memos: [Memo; 2],
    recent: usize,
}

thread_local! {
    static MEMOS: [RefCell<Pair>; 2] = Default::default();
    static ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Turns the memos of this thread on or off (off: every call computes directly; the results
/// are the same bits either way — tests and benchmarks compare both).
pub fn set_enabled(on: bool) {
    ENABLED.set(on);
    MEMOS.with(|m| m.iter().for_each(|m| *m.borrow_mut() = Pair::default()));
}

/// Whether the memos of this thread are on ([`set_enabled`]); the chains' pattern tables of
/// small models ([`crate::engine::cpu::Chains`]) follow the same switch.
pub(crate) fn enabled() -> bool {
    ENABLED.get()
}

/// A conditional as the memo sees it: `side`, the parameters it depends on (W through
/// `w_gen`, and `bias`),
/// the conditioning layer's width `k` and the conditioned layer's `width`.
pub(crate) struct Conditional<'a> {
    pub side: Side,
    /// Identifies W ([`crate::model::Rbm`] draws a new one on every edit of W).
    pub w_gen: u64,
    /// Number of weights.
    pub weights: usize,
    pub bias: &'a [f32],
    pub k: usize,
    pub width: usize,
}

/// Runs `f` on the memo of `c.side` after making sure it holds every row of `x` (rows of
/// `c.k` 0/1 values; `f` reads row r's entry through `memo.slots[r]`); with `means`, `f` may
/// read [`Memo::means`]. `compute(rows, out)` writes the pre-activations of `rows` into `out`
/// (rows × `c.width`), one row independently of the others. Returns `None`, having done
/// nothing, when the memo does not apply: rows that are not 0/1, a conditioning layer over 63
/// units, a model over 8 192 weights, fewer than 8 rows or more than the memo holds, or a memo
/// whose recent hit rate is too low to pay for itself.
pub(crate) fn with<R>(
    c: &Conditional<'_>,
    x: &[f32],
    means: bool,
    compute: impl FnOnce(&[f32], &mut [f32]),
    f: impl FnOnce(&Memo) -> R,
) -> Option<R> {
    let Conditional {
        side,
        w_gen,
        weights,
        bias,
        k,
        width,
    } = *c;
    if k == 0
        || k > MAX_KEY_BITS
        || width == 0
        || weights > MAX_WEIGHTS
        || x.len() / k > MAX_SLOTS
        || x.len() / k < MIN_ROWS
        || !ENABLED.get()
    {
        return None;
    }
    MEMOS.with(|memos| {
        let mut pair = memos[side as usize].try_borrow_mut().ok()?;
        let pair = &mut *pair;
        let i = (0..2)
            .find(|&i| pair.memos[i].holds(w_gen, bias, width))
            .unwrap_or(1 - pair.recent);
        pair.recent = i;
        let memo = &mut pair.memos[i];
        memo.validate(w_gen, bias, width);
        if memo.low_rate && memo.lookups == 0 {
            memo.skipped += 1;
            if memo.skipped % PROBE_EVERY != 0 {
                return None;
            }
        }
        memo.row_keys.clear();
        let mut word = [0u64];
        for row in x.chunks_exact(k) {
            if !row_mask(row, &mut word) {
                return None;
            }
            memo.row_keys.push(word[0]);
        }
        if memo.used.len() + memo.row_keys.len() > MAX_SLOTS {
            memo.clear_entries();
        }
        let new = memo.assign(x, k);
        if new > 0 {
            let start = memo.pre.len();
            memo.pre.resize(start + new * width, 0.0);
            memo.t.resize(start + new * width, 0.0);
            compute(&memo.miss, &mut memo.pre[start..]);
            one_plus_exp_neg(&memo.pre[start..], &mut memo.t[start..]);
        }
        if means {
            memo.fill_means();
        }
        Some(f(memo))
    })
}

#[cfg(test)]
mod tests {
    use super::set_enabled;
    use crate::model::Rbm;
    use crate::rng::{stream, uniform, Purpose, Rng};

    /// Everything the memo serves, for `rows` of `x` (visible) and `y` (hidden) states.
    fn outputs(model: &Rbm, x: &[f32], y: &[f32], rng: &mut Rng) -> Vec<Vec<f32>> {
        let (m, n) = (model.m(), model.n());
        let (rv, rh) = (x.len() / m, y.len() / n);
        let mut out = vec![
            vec![0.0; rv * n],
            vec![0.0; rh * m],
            vec![0.0; rv * n],
            vec![0.0; rh * m],
            vec![0.0; rv * n],
            vec![0.0; rh * m],
            vec![0.0; rv * n],
            vec![0.0; rv * n],
        ];
        model.hidden_pre(x, &mut out[0]);
        model.visible_pre(y, &mut out[1]);
        model.hidden_probs(x, &mut out[2]);
        model.visible_probs(y, &mut out[3]);
        model.sample_hidden(x, &mut out[4], rng);
        model.sample_visible(y, &mut out[5], rng);
        let (a, b) = out.split_at_mut(7);
        model.sample_hidden_with_probs(x, &mut a[6], &mut b[0], rng);
        out
    }

    fn states(rows: usize, width: usize, distinct: usize, r: &mut Rng) -> Vec<f32> {
        let pool: Vec<f32> = (0..distinct * width)
            .map(|_| f32::from(u8::from(uniform(r) < 0.5)))
            .collect();
        (0..rows)
            .flat_map(|_| {
                let p = crate::rng::index(r, distinct);
                pool[p * width..(p + 1) * width].to_vec()
            })
            .collect()
    }

    /// The memo changes no bit of any conditional, sample or stream position: repeated
    /// patterns within a call and across calls, a parameter edit between calls (the memo must
    /// start afresh), two models in turn, widths that are not a multiple of 4, grey rows
    /// (computed directly) and more rows than the memo holds.
    #[test]
    fn memoised_conditionals_are_the_direct_ones_bit_for_bit() {
        let mut r = stream(11, 0, Purpose::Aux);
        for (m, n, rows, distinct) in [
            (9, 4, 9, 5),
            (9, 4, 3, 2),
            (16, 16, 1000, 40),
            (7, 13, 300, 300),
            (63, 5, 50, 10),
            (12, 3, 5000, 4000),
        ] {
            let mut a = Rbm::random(m, n, 1.0, 3).unwrap();
            let b = Rbm::random(m, n, 0.5, 4).unwrap();
            let x = states(rows, m, distinct, &mut r);
            let y = states(rows, n, distinct, &mut r);
            let mut grey = x.clone();
            grey[m / 2] = 0.25;
            let run = |memo: bool, a: &mut Rbm| {
                set_enabled(memo);
                let mut rng = stream(5, 0, Purpose::Sampling);
                let mut all = vec![];
                for round in 0..3 {
                    all.extend(outputs(a, &x, &y, &mut rng));
                    all.extend(outputs(&b, &x, &y, &mut rng));
                    all.extend(outputs(a, &grey, &y, &mut rng));
                    a.edit_w(|w| w[round] += 0.5);
                    all.extend(outputs(a, &x, &y, &mut rng));
                    a.b[0] = -a.b[0];
                    a.c[n - 1] += 1.0;
                }
                all.push(vec![crate::rng::uniform(&mut rng)]);
                all
            };
            let plain = run(false, &mut a.clone());
            let memo = run(true, &mut a);
            set_enabled(true);
            assert_eq!(plain.len(), memo.len());
            for (i, (p, q)) in plain.iter().zip(&memo).enumerate() {
                assert!(
                    p.iter().zip(q).all(|(p, q)| p.to_bits() == q.to_bits()),
                    "{m}×{n}, {rows} rows: output {i} differs"
                );
            }
        }
    }
}

//! A set of Gibbs chains (docs/algorithms.md §1): visible states, hidden states and E[h|v].

use super::patterns::sweeps as bits;

use crate::engine::cpu::kernels::bernoulli_row;
use crate::model::{Rbm, Stats};
use crate::rng::{fill_uniform, Rng};
use std::cell::RefCell;

/// The first chains' visible states at the start of [`Chains::sweeps`] and after each sweep,
/// while a traced update runs ([`crate::train::trace`]); reading them consumes no random number.
pub(crate) struct SweepTrace {
    /// Chains recorded (the first ones).
    pub chains: usize,
    /// At most this many states are kept.
    pub max_states: usize,
    /// Visible states, `chains × m` each.
    pub states: Vec<Vec<f32>>,
}

thread_local! {
    pub(crate) static SWEEP_TRACE: RefCell<Option<SweepTrace>> = const { RefCell::new(None) };
}

/// Whether an update is traced (the sweeps then record states, row by row).
fn tracing() -> bool {
    SWEEP_TRACE.with_borrow(Option::is_some)
}

/// `count` chains of an m×n model; `v` and `h` hold 0/1 states row by row, changed only by
/// the methods (a small model's chains keep their states as patterns too, [`bits`]).
#[derive(Debug)]
pub struct Chains {
    /// Number of chains.
    pub count: usize,
    /// Visible states, `count × m` ([`Chains::v`]).
    v: Vec<f32>,
    /// Hidden states, `count × n` ([`Chains::h`]; behind the patterns after sweeps on them).
    h: Vec<f32>,
    /// E[h|v] for the current `v`, `count × n` (valid after [`Chains::finish`]).
    pub hp: Vec<f32>,
    /// Scratch uniforms, at least `count × n` (`count × max(m, n)` after sweeps on patterns).
    u: Vec<f32>,
    /// The pattern tables of a small model ([`bits`]), made on first use.
    bits: BitCache,
}

/// [`bits::BitSweeps`] of a set of chains, if made.
#[derive(Default)]
struct BitCache(Option<Box<bits::BitSweeps>>);

impl std::fmt::Debug for BitCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BitCache")
    }
}

impl BitCache {
    /// The tables, when an m×n model runs on patterns and the memos are on
    /// ([`crate::engine::cpu::patterns::memo::set_enabled`]; off, the row-by-row kernels compute the same bits).
    fn get(&mut self, m: usize, n: usize) -> Option<&mut bits::BitSweeps> {
        if !bits::BitSweeps::applies(m, n) || !crate::engine::cpu::patterns::memo::enabled() {
            return None;
        }
        Some(self.0.get_or_insert_with(Default::default))
    }

    /// Before the chains' rows are read or changed other than by sweeps on patterns: the
    /// hidden rows written and the kept patterns forgotten.
    fn sync_rows(&mut self, n: usize, h: &mut [f32]) {
        if let Some(b) = self.0.as_deref_mut() {
            b.write_hidden(n, h);
            b.forget();
        }
    }
}

impl Chains {
    /// Chains started at `rows` (`rows.len() / m` patterns): chain i starts at row i mod rows.
    pub fn from_rows(rows: &[f32], m: usize, n: usize, count: usize) -> Chains {
        let mut c = Chains {
            count,
            v: vec![0.0; count * m],
            h: vec![0.0; count * n],
            hp: vec![0.0; count * n],
            u: vec![0.0; count * n],
            bits: BitCache::default(),
        };
        c.restart(rows, m);
        c
    }

    /// The visible states, `count × m`.
    pub fn v(&self) -> &[f32] {
        &self.v
    }

    /// The hidden states, `count × n` (written from their patterns if behind them).
    pub fn h(&mut self) -> &[f32] {
        let n = self.n();
        if let Some(b) = self.bits.0.as_deref_mut() {
            b.write_hidden(n, &mut self.h);
        }
        &self.h
    }

    /// Hidden units per chain.
    fn n(&self) -> usize {
        self.h.len() / self.count.max(1)
    }

    /// [`BitCache::sync_rows`] of these chains.
    fn sync_rows(&mut self) {
        let n = self.n();
        self.bits.sync_rows(n, &mut self.h);
    }

    /// Restarts chain i at row i mod rows (CD's start at the data).
    pub fn restart(&mut self, rows: &[f32], m: usize) {
        self.sync_rows();
        let k = rows.len() / m;
        for (i, v) in self.v.chunks_exact_mut(m).enumerate() {
            let r = i % k;
            v.copy_from_slice(&rows[r * m..(r + 1) * m]);
        }
    }

    /// One full block-Gibbs sweep: h ~ p(h|v), then v ~ p(v|h).
    pub fn sweep(&mut self, model: &Rbm, rng: &mut Rng) {
        self.sync_rows();
        model.sample_hidden(&self.v, &mut self.h, rng);
        model.sample_visible(&self.h, &mut self.v, rng);
    }

    /// h ~ p(h|v) for chains started at data rows, from the rows' hidden thresholds
    /// `t = 1 + e^{−(c + Wᵀv)}` (rows × n, see [`crate::train::Ctx::positive_phase_thresholds`]):
    /// chain i's row is i mod rows, as in [`Chains::restart`]. The same uniforms in the same
    /// order and the same test `u·t < 1` as [`Rbm::sample_hidden`] on the restarted chains, so
    /// the same bits, without computing a pre-activation or an exponential per chain.
    pub fn sample_hidden_at_rows(&mut self, t: &[f32], rng: &mut Rng) {
        let n = self.n();
        if n == 0 {
            return;
        }
        self.sync_rows();
        let rows = t.len() / n;
        let u = &mut self.u[..self.h.len()];
        fill_uniform(rng, u);
        for (i, (h, u)) in self
            .h
            .chunks_exact_mut(n)
            .zip(u.chunks_exact(n))
            .enumerate()
        {
            bernoulli_row(h, u, &t[(i % rows) * n..(i % rows + 1) * n]);
        }
    }

    /// CD-k's chains from the batch `rows` (k ≥ 1) whose hidden thresholds are `t`: h ~ p(h|v)
    /// ([`Chains::sample_hidden_at_rows`]), then v ~ p(v|h), k − 1 sweeps and E[h|v]
    /// ([`Chains::visible_sweeps_and_finish`]). The same numbers as those calls. On patterns
    /// the chains start at the rows' patterns, and the first half-sweep reads the same
    /// thresholds from the table (where `t` came from, [`Chains::row_thresholds`]).
    pub fn sweeps_from_rows(
        &mut self,
        model: &Rbm,
        rows: &[f32],
        t: &[f32],
        rng: &mut Rng,
        k: usize,
    ) {
        assert!(k >= 1, "at least one sweep");
        let restarted = self.restart_on_patterns(model, rows, k);
        if !restarted {
            self.sample_hidden_at_rows(t, rng);
        }
        let run = bits::Run {
            from_hidden: !restarted,
            k: k - usize::from(!restarted),
            means: true,
        };
        self.run(model, rng, run);
    }

    /// [`Chains::restart`] at the batch rows `start` if given, then
    /// [`Chains::sweeps_and_finish`]: the same numbers. On patterns with k ≥ 1 the chains
    /// restart at the rows' patterns, which the sweeps then write.
    pub fn sweeps_and_finish_from(
        &mut self,
        model: &Rbm,
        start: Option<&[f32]>,
        rng: &mut Rng,
        k: usize,
    ) {
        if let Some(rows) = start {
            if !self.restart_on_patterns(model, rows, k) {
                self.restart(rows, model.m());
            }
        }
        self.sweeps_and_finish(model, rng, k);
    }

    /// Restarts the chains at the rows' patterns alone, for k ≥ 1 sweeps on patterns that
    /// follow at once and write the rows; false, having changed nothing, where they would not
    /// run on patterns.
    fn restart_on_patterns(&mut self, model: &Rbm, rows: &[f32], k: usize) -> bool {
        let (m, count) = (model.m(), self.count);
        k >= 1
            && !tracing()
            && self
                .bits
                .get(m, model.n())
                .is_some_and(|b| b.restart(rows, m, count))
    }

    /// `k` sweeps.
    pub fn sweeps(&mut self, model: &Rbm, rng: &mut Rng, k: usize) {
        self.run(
            model,
            rng,
            bits::Run {
                from_hidden: false,
                k,
                means: false,
            },
        );
    }

    /// `k` sweeps, then E[h|v] of the final states under `model`: [`Chains::sweeps`] and
    /// [`Chains::finish`], the same numbers (a small model's chains keep their patterns from
    /// the one to the other).
    pub fn sweeps_and_finish(&mut self, model: &Rbm, rng: &mut Rng, k: usize) {
        self.run(
            model,
            rng,
            bits::Run {
                from_hidden: false,
                k,
                means: true,
            },
        );
    }

    /// v ~ p(v|h) from the current hidden states, then `k` sweeps and E[h|v]: CD's sweeps after
    /// [`Chains::sample_hidden_at_rows`], with the numbers of [`Rbm::sample_visible`] followed
    /// by [`Chains::sweeps_and_finish`].
    pub fn visible_sweeps_and_finish(&mut self, model: &Rbm, rng: &mut Rng, k: usize) {
        self.run(
            model,
            rng,
            bits::Run {
                from_hidden: true,
                k,
                means: true,
            },
        );
    }

    /// What `run` asks, on patterns where they apply ([`bits`]: a small model, 0/1 states, the
    /// memos on, an update not traced), else row by row — the same numbers either way.
    fn run(&mut self, model: &Rbm, rng: &mut Rng, run: bits::Run) {
        let anything = run.from_hidden || run.k > 0;
        if anything && !tracing() {
            if let Some(b) = self.bits.get(model.m(), model.n()) {
                let rows = (&mut self.v[..], &mut self.h[..], &mut self.hp[..]);
                if b.sweeps(model, rows, &mut self.u, rng, run) {
                    return;
                }
            }
        }
        self.sync_rows();
        if run.from_hidden {
            model.sample_visible(&self.h, &mut self.v, rng);
        }
        self.sweep_rows(model, rng, run.k);
        if run.means {
            self.finish(model);
        }
    }

    /// `k` sweeps row by row, recorded when the update is traced.
    fn sweep_rows(&mut self, model: &Rbm, rng: &mut Rng, k: usize) {
        let m = model.m();
        self.trace(m);
        for _ in 0..k {
            self.sweep(model, rng);
            self.trace(m);
        }
    }

    /// Records the chains' start at the batch `rows` (chain i at row i mod rows) when an update
    /// is traced: CD starts its chains there without restarting them
    /// ([`Chains::sample_hidden_at_rows`]).
    pub fn trace_rows(&self, rows: &[f32], m: usize) {
        SWEEP_TRACE.with_borrow_mut(|t| {
            if let Some(t) = t {
                if t.states.len() < t.max_states && m > 0 {
                    let k = rows.len() / m;
                    let count = t.chains.min(self.count);
                    let start = (0..count).flat_map(|i| &rows[(i % k) * m..(i % k + 1) * m]);
                    t.states.push(start.copied().collect());
                }
            }
        });
    }

    /// Records the first chains' states when an update is traced.
    fn trace(&self, m: usize) {
        SWEEP_TRACE.with_borrow_mut(|t| {
            if let Some(t) = t {
                if t.states.len() < t.max_states {
                    let count = t.chains.min(self.count);
                    t.states.push(self.v[..count * m].to_vec());
                }
            }
        });
    }

    /// Computes E[h|v] under `model` (the Rao-Blackwellised negative statistics).
    pub fn finish(&mut self, model: &Rbm) {
        if let Some(b) = self.bits.get(model.m(), model.n()) {
            if b.hidden_probs(model, &self.v, &mut self.hp) {
                return;
            }
        }
        model.hidden_probs(&self.v, &mut self.hp);
    }

    /// The hidden thresholds `t = 1 + e^{−(c + Wᵀv)}` of the 0/1 rows `rows` under `model` into
    /// `t` (rows × n) from the table the chains' sweeps under `model` read, where they run on
    /// patterns — the same bits as [`Rbm::hidden_pre`] and
    /// [`one_plus_exp_neg`](crate::math::one_plus_exp_neg). Returns the rows' patterns; none,
    /// having written nothing, where they do not (a larger model, the memos off, a row not 0/1).
    pub fn row_thresholds(&mut self, model: &Rbm, rows: &[f32], t: &mut [f32]) -> Option<&[u32]> {
        self.bits
            .get(model.m(), model.n())?
            .row_thresholds(model, rows, t)
    }

    /// The positive phase from the table the chains' sweeps under `model` read, where they run
    /// on patterns: the 0/1 `rows`' hidden thresholds into `t` ([`Chains::row_thresholds`]),
    /// E[h|v] = 1/t into `hp`, and `pos` ← s(rows) summed from the rows' patterns — the bits of
    /// [`Rbm::hidden_probs`] and [`Stats::add`]. False, having written nothing, where they do
    /// not.
    pub fn positive_phase(
        &mut self,
        model: &Rbm,
        rows: &[f32],
        (t, hp): (&mut [f32], &mut [f32]),
        pos: &mut Stats,
    ) -> bool {
        let Some(keys) = self.row_thresholds(model, rows, t) else {
            return false;
        };
        hp.iter_mut().zip(t.iter()).for_each(|(p, &t)| *p = 1.0 / t);
        pos.clear();
        pos.add_patterns(rows, keys, hp);
        true
    }

    /// The chains' visible states as patterns (bit i = unit i), where they are kept: after
    /// sweeps on patterns and until the rows change otherwise.
    pub fn visible_patterns(&self) -> Option<&[u32]> {
        self.bits
            .0
            .as_deref()
            .and_then(bits::BitSweeps::kept_v_keys)
    }

    /// Negative statistics s(v) with E[h|v] into `neg` (cleared first), summed from the chains'
    /// patterns where they are kept ([`Chains::visible_patterns`]; the same bits).
    pub fn stats_into(&self, neg: &mut Stats) {
        neg.clear();
        match self.visible_patterns() {
            Some(keys) => neg.add_patterns(&self.v, keys, &self.hp),
            None => neg.add(&self.v, &self.hp),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::one_plus_exp_neg;
    use crate::rng::{stream, Purpose};

    /// `rows` random 0/1 rows of `m` units (each on with probability 0.4).
    fn binary_rows(rows: usize, m: usize, seed: u64) -> Vec<f32> {
        let mut r = stream(seed, 0, Purpose::Aux);
        (0..rows * m)
            .map(|_| f32::from(u8::from(crate::rng::uniform(&mut r) < 0.4)))
            .collect()
    }

    /// The rows' hidden thresholds `1 + e^{−(c + Wᵀv)}`, from the rows' pre-activations.
    fn thresholds_of(model: &Rbm, rows: &[f32]) -> Vec<f32> {
        let len = rows.len() / model.m() * model.n();
        let (mut pre, mut t) = (vec![0.0; len], vec![0.0; len]);
        model.hidden_pre(rows, &mut pre);
        one_plus_exp_neg(&pre, &mut t);
        t
    }

    /// Chains of small models sweep on patterns ([`bits`]) with the states, E[h|v] and stream
    /// position of the row-by-row sweeps (the memos off), over calls that reuse the tables and
    /// calls after the parameters changed, for layers of either order of size, chain counts
    /// whose uniforms come from the short and the wide fill, grey states (which sweep row by
    /// row), sweeps that start from the hidden states, CD's first half-sweep after pattern
    /// sweeps (whose uniforms once overran), and a call on rows between calls on patterns
    /// (which must write the hidden rows kept as patterns and forget the kept patterns).
    #[test]
    fn sweeps_on_patterns_are_the_row_sweeps_bit_for_bit() {
        for (m, n, count) in [
            (9, 4, 9),
            (16, 16, 23),
            (5, 12, 7),
            (12, 5, 300),
            (16, 7, 1500),
            (8, 3, 40),
        ] {
            let data = binary_rows(count, m, 7);
            let run = |patterns: bool| {
                crate::engine::cpu::patterns::memo::set_enabled(patterns);
                let mut model = Rbm::random(m, n, 1.5, 3).unwrap();
                let mut rng = stream(8, 0, Purpose::Sampling);
                let mut c = Chains::from_rows(&data, m, n, count);
                let mut seen = Vec::new();
                for call in 0..8 {
                    match call {
                        0 | 3 => c.sweeps(&model, &mut rng, 2),
                        1 => c.visible_sweeps_and_finish(&model, &mut rng, 0),
                        2 => {
                            // On rows between calls on patterns (the hidden rows still behind
                            // their patterns from call 0).
                            crate::engine::cpu::patterns::memo::set_enabled(false);
                            c.visible_sweeps_and_finish(&model, &mut rng, 1);
                            crate::engine::cpu::patterns::memo::set_enabled(patterns);
                        }
                        4 => {
                            c.sync_rows();
                            c.v[0] = 0.5;
                            c.sweeps_and_finish(&model, &mut rng, 1);
                        }
                        5 | 6 => c.visible_sweeps_and_finish(&model, &mut rng, call - 5),
                        _ => c.sweeps_and_finish(&model, &mut rng, call),
                    }
                    // The hidden rows are read from call 2 on: calls 1 and 2 start behind them.
                    let h = if call < 2 { vec![] } else { c.h().to_vec() };
                    seen.push((c.v.clone(), h, c.hp.clone(), rng.clone()));
                    if call == 2 {
                        c.restart(&data, m);
                        let t: Vec<f32> = c.hp.iter().map(|p| 1.0 / p).collect();
                        c.sample_hidden_at_rows(&t[..count.min(5) * n], &mut rng);
                        seen.push((c.v.clone(), c.h().to_vec(), c.hp.clone(), rng.clone()));
                    }
                    if call % 2 == 1 {
                        model.edit_w(|w| w.iter_mut().for_each(|x| *x *= 0.9));
                    }
                }
                crate::engine::cpu::patterns::memo::set_enabled(true);
                seen
            };
            let (rows, patterns) = (run(false), run(true));
            for (i, (a, b)) in rows.iter().zip(&patterns).enumerate() {
                assert!(a == b, "{m}×{n}, {count} chains: call {i} differs");
            }
        }
    }

    /// The combined calls of CD and the restarting algorithms ([`Chains::sweeps_from_rows`],
    /// [`Chains::sweeps_and_finish_from`]) give the states, E[h|v] and stream position of
    /// the separate calls they replace, and the statistics from the kept patterns
    /// ([`Chains::stats_into`]) are those of the rows, on patterns and row by row, over
    /// parameter changes.
    #[test]
    fn combined_calls_are_the_separate_calls_bit_for_bit() {
        for (m, n, count, rows) in [(16, 16, 300, 30), (9, 4, 9, 9), (12, 16, 17, 5)] {
            let data = binary_rows(rows, m, 3);
            for patterns in [true, false] {
                crate::engine::cpu::patterns::memo::set_enabled(patterns);
                let mut model = Rbm::random(m, n, 1.5, 5).unwrap();
                let (mut r1, mut r2) = (
                    stream(9, 0, Purpose::Sampling),
                    stream(9, 0, Purpose::Sampling),
                );
                let mut a = Chains::from_rows(&data, m, n, count);
                let mut b = Chains::from_rows(&data, m, n, count);
                let (mut sa, mut sb) = (Stats::new(m, n), Stats::new(m, n));
                for call in 0..10 {
                    let k = 1 + call % 3;
                    if call < 3 {
                        let t = thresholds_of(&model, &data);
                        a.sample_hidden_at_rows(&t, &mut r1);
                        a.visible_sweeps_and_finish(&model, &mut r1, k - 1);
                        b.sweeps_from_rows(&model, &data, &t, &mut r2, k);
                    } else if call < 6 {
                        a.sweeps_and_finish(&model, &mut r1, k);
                        b.sweeps_and_finish(&model, &mut r2, k);
                    } else {
                        // Restarts, with and without sweeps after them.
                        let k = k - 1 + call % 2;
                        a.restart(&data, m);
                        a.sweeps_and_finish(&model, &mut r1, k);
                        b.sweeps_and_finish_from(&model, Some(&data), &mut r2, k);
                    }
                    // The rows' statistics by the row kernel, the chains' from their patterns.
                    sa.clear();
                    sa.add(a.v(), &a.hp);
                    b.stats_into(&mut sb);
                    let what = format!("{m}×{n}, {count} chains, patterns {patterns}, call {call}");
                    let (ha, hb) = (a.h().to_vec(), b.h().to_vec());
                    assert_eq!((&a.v, &ha, &a.hp), (&b.v, &hb, &b.hp), "{what}");
                    assert_eq!(r1, r2, "{what}");
                    let bits = |s: &Stats| -> Vec<u32> {
                        s.sum
                            .blocks()
                            .iter()
                            .flat_map(|b| b.1.iter().map(|x| x.to_bits()))
                            .collect()
                    };
                    assert_eq!((bits(&sa), sa.count), (bits(&sb), sb.count), "{what}");
                    model.edit_w(|w| w.iter_mut().for_each(|x| *x *= 0.9));
                }
                crate::engine::cpu::patterns::memo::set_enabled(true);
            }
        }
    }

    /// The rows' thresholds from the chains' table are those of the rows' pre-activations, bit
    /// for bit, for rows met before and new ones, a few at a time and in a batch that sums by
    /// prefix tables, and so is the positive phase from them; where the chains do not run on
    /// patterns nothing is written.
    #[test]
    fn row_thresholds_from_the_table_are_the_rows_thresholds() {
        for (m, n, rows) in [(9, 4, 9), (16, 16, 300), (5, 12, 7)] {
            let model = Rbm::random(m, n, 1.5, 4).unwrap();
            let batch = binary_rows(rows, m, 6);
            let want = thresholds_of(&model, &batch);
            let mut c = Chains::from_rows(&batch, m, n, 3);
            c.sweeps(&model, &mut stream(1, 0, Purpose::Sampling), 2);
            let mut t = vec![0.0; rows * n];
            for _ in 0..2 {
                let keys = c
                    .row_thresholds(&model, &batch, &mut t)
                    .map(<[u32]>::to_vec);
                let mut want_keys = Vec::new();
                assert!(crate::engine::cpu::kernels::row_keys(
                    &batch,
                    m,
                    &mut want_keys
                ));
                assert_eq!(keys, Some(want_keys), "{m}×{n}");
                assert!(
                    t.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{m}×{n}"
                );
            }
            // The positive phase: E[h|v] and s(rows) of the row kernels, bit for bit.
            let (mut hp, mut want_hp) = (vec![0.0; rows * n], vec![0.0; rows * n]);
            model.hidden_probs(&batch, &mut want_hp);
            let (mut pos, mut want_pos) = (Stats::new(m, n), Stats::new(m, n));
            want_pos.add(&batch, &want_hp);
            pos.add(&batch, &want_hp); // cleared first
            assert!(c.positive_phase(&model, &batch, (&mut t, &mut hp), &mut pos));
            let bits = |s: &Stats| -> Vec<u32> {
                let blocks = s.sum.blocks();
                blocks
                    .iter()
                    .flat_map(|b| b.1.iter().map(|x| x.to_bits()))
                    .collect()
            };
            assert_eq!(hp, want_hp, "{m}×{n}");
            assert_eq!((bits(&pos), pos.count), (bits(&want_pos), want_pos.count));
            crate::engine::cpu::patterns::memo::set_enabled(false);
            t.fill(0.5);
            assert!(c.row_thresholds(&model, &batch, &mut t).is_none());
            assert!(!c.positive_phase(&model, &batch, (&mut t, &mut hp), &mut pos));
            crate::engine::cpu::patterns::memo::set_enabled(true);
            assert!(t.iter().all(|&x| x == 0.5));
        }
    }

    /// CD's first half-sweep from the rows' thresholds is the restart-and-sweep it replaces,
    /// bit for bit (the same states, the same stream position), and 1/t is E[h|v].
    #[test]
    fn sampling_at_rows_equals_restarting_and_sweeping() {
        let (m, n, rows, count) = (9, 7, 5, 23);
        let model = Rbm::random(m, n, 1.0, 3).unwrap();
        let batch = binary_rows(rows, m, 4);
        let t = thresholds_of(&model, &batch);
        let mut hp = vec![0.0; rows * n];
        model.hidden_probs(&batch, &mut hp);
        assert!(hp
            .iter()
            .zip(&t)
            .all(|(&p, &t)| p.to_bits() == (1.0 / t).to_bits()));
        for k in [1, 3] {
            let (mut r1, mut r2) = (
                stream(5, 0, Purpose::Sampling),
                stream(5, 0, Purpose::Sampling),
            );
            let mut a = Chains::from_rows(&batch, m, n, count);
            a.sweeps(&model, &mut r1, k);
            let mut b = Chains::from_rows(&batch, m, n, count);
            b.v.fill(0.5); // never read
            b.sample_hidden_at_rows(&t, &mut r2);
            model.sample_visible(&b.h, &mut b.v, &mut r2);
            b.sweeps(&model, &mut r2, k - 1);
            let (ha, hb) = (a.h().to_vec(), b.h().to_vec());
            assert_eq!((&a.v, &ha), (&b.v, &hb), "k = {k}");
            assert_eq!(r1, r2);
        }
    }
}

//! A set of Gibbs chains (docs/algorithms.md §1): visible states, hidden states and E[h|v].

use crate::kernels::bernoulli_row;
use crate::model::{Rbm, Stats};
use crate::rng::{fill_uniform, Rng};
use std::cell::RefCell;

/// The first chains' visible states at the start of [`Chains::sweeps`] and after each sweep,
/// while a traced update runs ([`super::trace`]); reading them consumes no random number.
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

/// `count` chains of an m×n model; `v` and `h` hold 0/1 states row by row.
#[derive(Clone, Debug)]
pub struct Chains {
    /// Number of chains.
    pub count: usize,
    /// Visible states, `count × m`.
    pub v: Vec<f32>,
    /// Hidden states, `count × n`.
    pub h: Vec<f32>,
    /// E[h|v] for the current `v`, `count × n` (valid after [`Chains::finish`]).
    pub hp: Vec<f32>,
    /// Scratch uniforms, `count × n`.
    u: Vec<f32>,
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
        };
        c.restart(rows, m);
        c
    }

    /// Restarts chain i at row i mod rows (CD's start at the data).
    pub fn restart(&mut self, rows: &[f32], m: usize) {
        let k = rows.len() / m;
        for (i, v) in self.v.chunks_exact_mut(m).enumerate() {
            let r = i % k;
            v.copy_from_slice(&rows[r * m..(r + 1) * m]);
        }
    }

    /// One full block-Gibbs sweep: h ~ p(h|v), then v ~ p(v|h).
    pub fn sweep(&mut self, model: &Rbm, rng: &mut Rng) {
        model.sample_hidden(&self.v, &mut self.h, rng);
        model.sample_visible(&self.h, &mut self.v, rng);
    }

    /// h ~ p(h|v) for chains started at data rows, from the rows' hidden thresholds
    /// `t = 1 + e^{−(c + Wᵀv)}` (rows × n, see [`super::Ctx::positive_phase_thresholds`]):
    /// chain i's row is i mod rows, as in [`Chains::restart`]. The same uniforms in the same
    /// order and the same test `u·t < 1` as [`Rbm::sample_hidden`] on the restarted chains, so
    /// the same bits, without computing a pre-activation or an exponential per chain.
    pub fn sample_hidden_at_rows(&mut self, t: &[f32], rng: &mut Rng) {
        let n = self.h.len() / self.count.max(1);
        if n == 0 {
            return;
        }
        let rows = t.len() / n;
        fill_uniform(rng, &mut self.u);
        for (i, (h, u)) in self
            .h
            .chunks_exact_mut(n)
            .zip(self.u.chunks_exact(n))
            .enumerate()
        {
            bernoulli_row(h, u, &t[(i % rows) * n..(i % rows + 1) * n]);
        }
    }

    /// `k` sweeps.
    pub fn sweeps(&mut self, model: &Rbm, rng: &mut Rng, k: usize) {
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
        model.hidden_probs(&self.v, &mut self.hp);
    }

    /// Negative statistics s(v) with E[h|v] into `neg` (cleared first).
    pub fn stats_into(&self, neg: &mut Stats) {
        neg.clear();
        neg.add(&self.v, &self.hp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::one_plus_exp_neg;
    use crate::rng::{stream, Purpose};

    /// CD's first half-sweep from the rows' thresholds is the restart-and-sweep it replaces,
    /// bit for bit (the same states, the same stream position), and 1/t is E[h|v].
    #[test]
    fn sampling_at_rows_equals_restarting_and_sweeping() {
        let (m, n, rows, count) = (9, 7, 5, 23);
        let model = Rbm::random(m, n, 1.0, 3).unwrap();
        let mut r = stream(4, 0, Purpose::Aux);
        let batch: Vec<f32> = (0..rows * m)
            .map(|_| f32::from(u8::from(crate::rng::uniform(&mut r) < 0.4)))
            .collect();
        let mut t = vec![0.0; rows * n];
        let mut pre = vec![0.0; rows * n];
        model.hidden_pre(&batch, &mut pre);
        one_plus_exp_neg(&pre, &mut t);
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
            assert_eq!((&a.v, &a.h), (&b.v, &b.h), "k = {k}");
            assert_eq!(r1, r2);
        }
    }
}

//! A set of Gibbs chains (docs/algorithms.md §1): visible states, hidden states and E[h|v].

use crate::model::{Rbm, Stats};
use crate::rng::Rng;
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
}

impl Chains {
    /// Chains started at `rows` (`rows.len() / m` patterns): chain i starts at row i mod rows.
    pub fn from_rows(rows: &[f32], m: usize, n: usize, count: usize) -> Chains {
        let mut c = Chains {
            count,
            v: vec![0.0; count * m],
            h: vec![0.0; count * n],
            hp: vec![0.0; count * n],
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

    /// `k` sweeps.
    pub fn sweeps(&mut self, model: &Rbm, rng: &mut Rng, k: usize) {
        let m = model.m();
        self.trace(m);
        for _ in 0..k {
            self.sweep(model, rng);
            self.trace(m);
        }
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

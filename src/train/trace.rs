//! One update in slow motion, for the page's step-by-step view (GAN Lab's idea, applied to
//! the RBM's gradient, docs/algorithms.md §4): the mini-batch and E[h|v] (the positive phase),
//! the negative chains through each Gibbs sweep, the two statistics and ΔW. A traced update is
//! the lane's ordinary update — same random numbers, same parameters bit for bit — with its
//! intermediate arrays copied out on the way.

use super::{Lane, Record};
use crate::engine::cpu::chains::{SweepTrace, SWEEP_TRACE};
use crate::error::Result;
use serde::Serialize;

/// Most chain states a trace keeps (the start and the first sweeps of a long run).
pub const MAX_TRACED_STATES: usize = 33;

/// What one update did, phase by phase (each m×n array row-major, `w[i*n+j]`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Trace {
    /// The update this trace made (updates done after it).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// Visible units m.
    pub m: usize,
    /// Hidden units n.
    pub n: usize,
    /// The learning rate η of the update.
    pub lr: f64,
    /// Rows of the mini-batch shown (the first ones) …
    pub rows: usize,
    /// … their visible values, `rows × m` (after binarisation) …
    pub batch: Vec<f32>,
    /// … and E[h|v] under the model before the update, `rows × n` (the positive phase).
    pub hidden_probs: Vec<f32>,
    /// Chains shown (the first ones).
    pub chains: usize,
    /// Their visible states at the start of the negative phase and after each Gibbs sweep,
    /// `chains × m` each (empty when the algorithm's sampler is not traced sweep by sweep).
    pub sweeps: Vec<Vec<f32>>,
    /// The positive statistics ⟨v_i h_j⟩ over the whole batch (E[h|v] for h).
    pub positive: Vec<f32>,
    /// The negative statistics the gradient implies: positive − g (− λ·W for weight decay).
    pub negative: Vec<f32>,
    /// ΔW = W after − W before.
    pub delta_w: Vec<f32>,
}

impl Lane {
    /// One update ([`Lane::step`]) traced for the slow-motion view, showing the first `show`
    /// batch rows and chains; a record when the update lands on the evaluation interval (and the
    /// initial record, first), appended to `out` as [`Lane::run_into`] does. The parameters,
    /// chains and random streams end exactly as after an ordinary update.
    pub fn step_traced(&mut self, show: usize, out: &mut Vec<Record>) -> Result<Trace> {
        self.run_into(0, out)?;
        let before = self.model().clone();
        let lr = self.next_lr();
        SWEEP_TRACE.with_borrow_mut(|t| {
            *t = Some(SweepTrace {
                chains: show,
                max_states: MAX_TRACED_STATES,
                states: Vec::new(),
            })
        });
        let stepped = self.step();
        let sweeps = SWEEP_TRACE
            .with_borrow_mut(|t| t.take())
            .map_or_else(Vec::new, |t| t.states);
        stepped?;
        let (m, n) = (before.m(), before.n());
        let batch = self.last_batch();
        let all = batch.len() / m;
        let mut hp = vec![0.0f32; all * n];
        before.hidden_probs(batch, &mut hp);
        let mut positive = vec![0.0f32; m * n];
        for (v, h) in batch.chunks_exact(m).zip(hp.chunks_exact(n)) {
            for (i, &vi) in v.iter().enumerate() {
                if vi != 0.0 {
                    let row = &mut positive[i * n..(i + 1) * n];
                    row.iter_mut().zip(h).for_each(|(p, &hj)| *p += vi * hj);
                }
            }
        }
        positive.iter_mut().for_each(|p| *p /= all as f32);
        let wd = self.config().weight_decay as f32;
        let g = &self.last_gradient().w;
        let negative = positive
            .iter()
            .zip(g)
            .zip(before.w())
            .map(|((p, g), w)| p - g - wd * w)
            .collect();
        let delta_w = self
            .model()
            .w()
            .iter()
            .zip(before.w())
            .map(|(a, b)| a - b)
            .collect();
        let rows = show.min(all);
        let shown = batch[..rows * m].to_vec();
        if self.iter().is_multiple_of(self.config().every) {
            out.push(self.record()?);
        }
        Ok(Trace {
            iter: self.iter(),
            m,
            n,
            lr: lr as f64,
            rows,
            batch: shown,
            hidden_probs: hp[..rows * n].to_vec(),
            chains: sweeps.first().map_or(0, |s| s.len() / m),
            sweeps,
            positive,
            negative,
            delta_w,
        })
    }
}

//! MF-CD (Welling & Hinton 2002, compared in the PCD paper; docs/algorithms.md §4): CD-1 with
//! probabilities in place of samples — deterministic mean-field reconstruction.

use super::{AlgoCost, AlgoInfo, Algorithm, ChainKind, Ctx, Report, Setup};
use crate::engine::{Cpu, Engine};
use crate::error::Result;

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "mf-cd",
    title: "MF-CD",
    paper: "Welling & Hinton 2002",
    options: &[],
    stats: &[],
    // Negative statistics; E[h|v] of the batch and of its mean-field reconstruction. Its three
    // passes over real-valued probabilities visit every weight, not only the rows of units on:
    // counted as 5 sweeps.
    cost: AlgoCost {
        weight_sets: 1.0,
        batch_sets: 2.0,
        chains: ChainKind::Batch,
        sweeps: |_| (5.0, None),
    },
    build: |s: &Setup| Ok(Box::new(MfCd::<Cpu>::new(s))),
};

/// Mean-field CD: v₁ = E[v|E[h|v₀]], negative statistics s(v₁) with E[h|v₁].
pub struct MfCd<E: Engine> {
    neg: E::Stats,
}

impl<E: Engine> MfCd<E> {
    /// MF-CD for `s.model`'s shape.
    pub fn new(s: &Setup<E>) -> MfCd<E> {
        MfCd {
            neg: E::stats(s.model),
        }
    }
}

impl<E: Engine> Algorithm<E> for MfCd<E> {
    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report> {
        cx.positive_phase(None);
        E::mean_field_stats(cx.model, cx.batch, &mut self.neg);
        cx.step(&self.neg);
        Ok(Report {
            sweeps: 1.0,
            vh_steps: 1.0,
            stats: vec![],
        })
    }
}

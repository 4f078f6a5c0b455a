//! MF-CD (Welling & Hinton 2002, compared in the PCD paper; docs/algorithms.md §4): CD-1 with
//! probabilities in place of samples — deterministic mean-field reconstruction.

use super::{AlgoInfo, Algorithm, Ctx, Report, Setup};
use crate::cost::{AlgoCost, ChainKind};
use crate::error::Result;
use crate::model::Stats;

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
    build: |s: &Setup| {
        Ok(Box::new(MfCd {
            neg: Stats::new(s.model.m(), s.model.n()),
        }))
    },
};

/// Mean-field CD: v₁ = E[v|E[h|v₀]], negative statistics s(v₁) with E[h|v₁].
pub struct MfCd {
    neg: Stats,
}

impl Algorithm for MfCd {
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        cx.positive_phase();
        let (m, n, rows) = (cx.model.m(), cx.model.n(), cx.rows());
        let mut h0 = vec![0.0f32; rows * n];
        let mut v1 = vec![0.0f32; rows * m];
        let mut h1 = vec![0.0f32; rows * n];
        cx.model.hidden_probs(cx.batch, &mut h0);
        cx.model.visible_probs(&h0, &mut v1);
        cx.model.hidden_probs(&v1, &mut h1);
        self.neg.clear();
        self.neg.add(&v1, &h1);
        cx.opt.step(cx.model, cx.pos, &self.neg, cx.lr);
        Ok(Report {
            sweeps: 1.0,
            vh_steps: 1.0,
            stats: vec![],
        })
    }
}

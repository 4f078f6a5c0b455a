//! CD-k (Hinton 2002; docs/algorithms.md §4): chains start at the mini-batch rows and run k full
//! Gibbs sweeps; the negative statistics are s(v_k) with E[h|v_k].

use super::{config, AlgoInfo, Algorithm, Chains, Ctx, Report, Setup};
use crate::cost::AlgoCost;
use crate::error::Result;
use crate::model::Stats;

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "cd",
    title: "CD-k",
    paper: "Hinton 2002",
    options: &[&config::K, &config::CHAINS],
    stats: &[],
    cost: AlgoCost::k_sweeps(1.0),
    build: |s: &Setup| Ok(Box::new(Cd::new(s))),
};

/// Contrastive divergence with k sweeps from the data.
pub struct Cd {
    k: usize,
    chains: Chains,
    neg: Stats,
    /// The batch rows' E[h|v] and hidden thresholds (scratch).
    hp: Vec<f32>,
    t: Vec<f32>,
}

impl Cd {
    /// CD-`cfg.k` with `s.chains` chains (chain i starts at batch row i mod batch).
    pub fn new(s: &Setup) -> Cd {
        let (m, n) = (s.model.m(), s.model.n());
        Cd {
            k: s.cfg.k,
            chains: Chains::from_rows(&s.data.values, m, n, s.chains),
            neg: Stats::new(m, n),
            hp: Vec::new(),
            t: Vec::new(),
        }
    }
}

impl Algorithm for Cd {
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        if self.k == 0 {
            cx.positive_phase();
            self.chains.restart(cx.batch, cx.model.m());
            self.chains.finish(cx.model);
        } else {
            // The first half-sweep from the batch rows' thresholds (the positive phase's
            // numbers), the same bits as restarting the chains and sweeping.
            cx.positive_phase_with(Some(&mut self.chains), &mut self.hp, &mut self.t);
            self.chains.trace_rows(cx.batch, cx.model.m());
            self.chains
                .sweeps_from_rows(cx.model, cx.batch, &self.t, cx.rng, self.k);
        }
        self.chains.stats_into(&mut self.neg);
        cx.opt.step(cx.model, cx.pos, &self.neg, cx.lr);
        Ok(Report {
            sweeps: self.k as f64,
            vh_steps: self.k as f64,
            stats: vec![],
        })
    }

    fn chain_states(&self) -> Option<&[f32]> {
        Some(self.chains.v())
    }
}

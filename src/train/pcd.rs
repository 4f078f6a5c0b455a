//! PCD / SML (Tieleman 2008; docs/algorithms.md §4): persistent chains, k sweeps per update,
//! never reset.

use super::{config, AlgoInfo, Algorithm, Chains, Ctx, Report, Setup};
use crate::cost::AlgoCost;
use crate::error::Result;
use crate::model::Stats;

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "pcd",
    title: "PCD-k",
    paper: "Tieleman 2008",
    options: &[&config::K, &config::CHAINS],
    stats: &[],
    cost: AlgoCost::k_sweeps(1.0),
    build: |s: &Setup| Ok(Box::new(Pcd::new(s))),
};

/// Persistent contrastive divergence.
pub struct Pcd {
    k: usize,
    chains: Chains,
    neg: Stats,
    /// E[h|v] and the hidden thresholds on the batch (scratch for the positive phase).
    hp: Vec<f32>,
    t: Vec<f32>,
}

impl Pcd {
    /// `s.chains` persistent chains, chain i started at training row i mod rows.
    pub fn new(s: &Setup) -> Pcd {
        let (m, n) = (s.model.m(), s.model.n());
        Pcd {
            k: s.cfg.k,
            chains: Chains::from_rows(&s.data.values, m, n, s.chains),
            neg: Stats::new(m, n),
            hp: Vec::new(),
            t: Vec::new(),
        }
    }
}

impl Algorithm for Pcd {
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        cx.positive_phase_with(Some(&mut self.chains), &mut self.hp, &mut self.t);
        self.chains.sweeps_and_finish(cx.model, cx.rng, self.k);
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

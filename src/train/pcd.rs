//! PCD / SML (Tieleman 2008; docs/algorithms.md §4): persistent chains, k sweeps per update,
//! never reset.

use super::{config, AlgoCost, AlgoInfo, Algorithm, Ctx, Report, Setup};
use crate::engine::{Cpu, Engine};
use crate::error::Result;

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "pcd",
    title: "PCD-k",
    paper: "Tieleman 2008",
    options: &[&config::K, &config::CHAINS],
    stats: &[],
    cost: AlgoCost::k_sweeps(1.0),
    build: |s: &Setup| Ok(Box::new(Pcd::<Cpu>::new(s))),
};

/// Persistent contrastive divergence.
pub struct Pcd<E: Engine> {
    k: usize,
    chains: E::Chains,
    neg: E::Stats,
}

impl<E: Engine> Pcd<E> {
    /// `s.chains` persistent chains, chain i started at training row i mod rows.
    pub fn new(s: &Setup<E>) -> Pcd<E> {
        Pcd {
            k: s.cfg.k,
            chains: E::chains(s.model, &s.data.values, s.chains),
            neg: E::stats(s.model),
        }
    }
}

impl<E: Engine> Algorithm<E> for Pcd<E> {
    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report> {
        cx.positive_phase(Some(&mut self.chains));
        E::sweeps(cx.model, &mut self.chains, cx.rng, self.k);
        E::chain_stats(&self.chains, &mut self.neg);
        cx.step(&self.neg);
        Ok(Report {
            sweeps: self.k as f64,
            vh_steps: self.k as f64,
            stats: vec![],
        })
    }

    fn chain_states(&self) -> Option<&[f32]> {
        Some(E::chain_states(&self.chains))
    }

    fn chains(&self) -> Option<&E::Chains> {
        Some(&self.chains)
    }
}

//! CD-k (Hinton 2002; docs/algorithms.md §4): chains start at the mini-batch rows and run k full
//! Gibbs sweeps; the negative statistics are s(v_k) with E[h|v_k].

use super::{config, AlgoCost, AlgoInfo, Algorithm, Ctx, Report, Setup};
use crate::engine::{Cpu, Engine};
use crate::error::Result;

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "cd",
    title: "CD-k",
    paper: "Hinton 2002",
    options: &[&config::K, &config::CHAINS],
    stats: &[],
    cost: AlgoCost::k_sweeps(1.0),
    build: |s: &Setup| Ok(Box::new(Cd::<Cpu>::new(s))),
};

/// Contrastive divergence with k sweeps from the data.
pub struct Cd<E: Engine> {
    k: usize,
    chains: E::Chains,
    neg: E::Stats,
}

impl<E: Engine> Cd<E> {
    /// CD-`cfg.k` with `s.chains` chains (chain i starts at batch row i mod batch).
    pub fn new(s: &Setup<E>) -> Cd<E> {
        Cd {
            k: s.cfg.k,
            chains: E::chains(s.model, &s.data.values, s.chains),
            neg: E::stats(s.model),
        }
    }
}

impl<E: Engine> Algorithm<E> for Cd<E> {
    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report> {
        cx.positive_phase(Some(&mut self.chains));
        E::restart_sweeps(cx.model, &mut self.chains, cx.batch, cx.rng, self.k);
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

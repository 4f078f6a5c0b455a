//! CG, the centered gradient with CD-k samples (Melchior, Fischer & Wiskott 2016, Algorithm 1,
//! variant dd^b_s, with k sweeps as the S-DCP paper runs it: Upadhya & Sastry 2017, §4;
//! docs/algorithms.md §4). The parameterisation and its equations are in [`crate::engine::cpu::centered`].
//!
//! Per mini-batch: H = E[h|V] and the batch means at θ_t; CD-k chains from the batch rows
//! (chain i at row i mod rows); re-parameterise and slide the offsets; step the centered
//! parameters with the centered gradient of both phases; write the plain model.
//! With ν_μ = ν_λ = 0 and μ = 0, λ = 0 this is CD-k bit for bit.

use super::{config, AlgoCost, AlgoInfo, Algorithm, Ctx, Report, Setup};
use crate::engine::{Cpu, Engine};
use crate::error::Result;

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "cg",
    title: "CG (centered)",
    paper: "Melchior, Fischer & Wiskott 2016",
    options: &[
        &config::K,
        &config::CHAINS,
        &config::NU_MU,
        &config::NU_LAMBDA,
    ],
    stats: &[],
    cost: AlgoCost::k_sweeps(6.0),
    build: |s: &Setup| Ok(Box::new(Cg::<Cpu>::new(s)?)),
};

/// Centered-gradient training with CD-k negative samples.
pub struct Cg<E: Engine> {
    k: usize,
    centered: E::Centered,
    chains: E::Chains,
    pos: E::Stats,
    neg: E::Stats,
}

impl<E: Engine> Cg<E> {
    /// CG-`cfg.k` with the paper's offsets (μ = data mean, λ = 0.5) and ν_μ = `cfg.nu_mu`,
    /// ν_λ = `cfg.nu_lambda`.
    pub fn new(s: &Setup<E>) -> Result<Cg<E>> {
        let centered = E::centered(s.model, s.data, s.cfg.nu_mu as f32, s.cfg.nu_lambda as f32)?;
        Ok(Cg::with_centered(s, centered))
    }

    /// CG-`cfg.k` starting from a given centered form of `s.model` (e.g. other initial offsets).
    pub fn with_centered(s: &Setup<E>, centered: E::Centered) -> Cg<E> {
        Cg {
            k: s.cfg.k,
            centered,
            chains: E::chains(s.model, &s.data.values, s.chains),
            pos: E::stats(s.model),
            neg: E::stats(s.model),
        }
    }

    /// The centered parameters and offsets.
    pub fn centered(&self) -> &E::Centered {
        &self.centered
    }
}

impl<E: Engine> Algorithm<E> for Cg<E> {
    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report> {
        let c = &mut self.centered;
        E::begin_batch(c, cx.model, cx.batch, Some(&mut self.chains));
        E::restart_sweeps(cx.model, &mut self.chains, cx.batch, cx.rng, self.k);
        E::slide(c);
        E::centered_data_stats(c, cx.batch, &mut self.pos);
        E::centered_chain_stats(c, &self.chains, &mut self.neg);
        E::centered_step(c, cx.opt, &self.pos, &self.neg, cx.lr, cx.model);
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

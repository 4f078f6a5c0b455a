//! CG, the centered gradient with CD-k samples (Melchior, Fischer & Wiskott 2016, Algorithm 1,
//! variant dd^b_s, with k sweeps as the S-DCP paper runs it: Upadhya & Sastry 2017, §4;
//! docs/algorithms.md §4). The parameterisation and its equations are in [`super::centered`].
//!
//! Per mini-batch: H = E[h|V] and the batch means at θ_t; CD-k chains from the batch rows
//! (chain i at row i mod rows); re-parameterise and slide the offsets; step the centered
//! parameters with the centered gradient of both phases; write the plain model.
//! With ν_μ = ν_λ = 0 and μ = 0, λ = 0 this is CD-k bit for bit.

use super::{config, AlgoInfo, Algorithm, Centered, Chains, Ctx, Report, Setup};
use crate::cost::AlgoCost;
use crate::error::Result;
use crate::model::Stats;

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
    build: |s: &Setup| Ok(Box::new(Cg::new(s)?)),
};

/// Centered-gradient training with CD-k negative samples.
pub struct Cg {
    k: usize,
    centered: Centered,
    chains: Chains,
    pos: Stats,
    neg: Stats,
}

impl Cg {
    /// CG-`cfg.k` with the paper's offsets (μ = data mean, λ = 0.5) and ν_μ = `cfg.nu_mu`,
    /// ν_λ = `cfg.nu_lambda`.
    pub fn new(s: &Setup) -> Result<Cg> {
        let centered = Centered::new(s.model, s.data, s.cfg.nu_mu as f32, s.cfg.nu_lambda as f32)?;
        Ok(Cg::with_centered(s, centered))
    }

    /// CG-`cfg.k` starting from a given centered form of `s.model` (e.g. other initial offsets).
    pub fn with_centered(s: &Setup, centered: Centered) -> Cg {
        let (m, n) = (s.model.m(), s.model.n());
        Cg {
            k: s.cfg.k,
            centered,
            chains: Chains::from_rows(&s.data.values, m, n, s.chains),
            pos: Stats::new(m, n),
            neg: Stats::new(m, n),
        }
    }

    /// The centered parameters and offsets.
    pub fn centered(&self) -> &Centered {
        &self.centered
    }
}

impl Algorithm for Cg {
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        self.centered
            .begin_batch(cx.model, cx.batch, Some(&mut self.chains));
        self.chains
            .sweeps_and_finish_from(cx.model, Some(cx.batch), cx.rng, self.k);
        self.centered.slide();
        self.centered.data_stats(cx.batch, &mut self.pos);
        self.centered.chain_stats(&self.chains, &mut self.neg);
        self.centered
            .step(cx.opt, &self.pos, &self.neg, cx.lr, cx.model);
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

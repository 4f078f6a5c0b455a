//! CS-DCP, S-DCP with centered gradients (Upadhya & Sastry 2017, Algorithm 4; docs/algorithms.md
//! §4). The parameterisation and its equations are in [`crate::engine::cpu::centered`].
//!
//! Per mini-batch, following Algorithm 4 as printed:
//!
//! ```text
//! H_p = E[h|V] under θ_t; μ_batch = mean(V); λ_batch = mean(H_p)     (once per mini-batch)
//! chains ← batch rows
//! for l = 0 .. d−1:
//!     K′ Gibbs sweeps under θ̃(l); H_n = E[h|V_n]                      (chains continue)
//!     b̃ += ν_λ W(l)(λ_batch − λ); c̃ += ν_μ W(l)ᵀ(μ_batch − μ); slide μ, λ
//!     if l = 0: ∇_W g = (V − μ)(H_p − λ)ᵀ/N      (kept for the later inner steps)
//!     ∇W = ∇_W g − (V_n − μ)(H_n − λ)ᵀ/N; ∇b̃ = mean(V) − mean(V_n); ∇c̃ = mean(H_p) − mean(H_n)
//!     θ̃(l+1) = θ̃(l) + η∇
//! ```
//!
//! So the offsets slide d times per mini-batch, towards the same batch means, and the
//! positive W statistics use the offsets of the first inner step. With d = 1 and K′ = k this
//! is CG-k bit for bit.

use super::{config, AlgoCost, AlgoInfo, Algorithm, ChainKind, Ctx, Report, Setup};
use crate::engine::{Cpu, Engine};
use crate::error::Result;

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "cs-dcp",
    title: "CS-DCP",
    paper: "Upadhya & Sastry 2017",
    options: &[
        &config::D_STEPS,
        &config::KPRIME,
        &config::CHAINS,
        &config::NU_MU,
        &config::NU_LAMBDA,
    ],
    stats: &[],
    cost: AlgoCost {
        weight_sets: 6.0,
        batch_sets: 0.0,
        chains: ChainKind::Full,
        sweeps: super::sdcp::sweeps,
    },
    build: |s: &Setup| Ok(Box::new(Csdcp::<Cpu>::new(s)?)),
};

/// S-DCP with centered gradients (Algorithm 4).
pub struct Csdcp<E: Engine> {
    /// Inner SGD steps per mini-batch.
    d: usize,
    /// Gibbs sweeps K′ per inner step.
    kprime: usize,
    centered: E::Centered,
    chains: E::Chains,
    pos: E::Stats,
    neg: E::Stats,
}

impl<E: Engine> Csdcp<E> {
    /// CS-DCP with d = `cfg.d`, K′ = `cfg.kprime`, the paper's offsets (μ = data mean,
    /// λ = 0.5) and ν_μ = `cfg.nu_mu`, ν_λ = `cfg.nu_lambda`.
    pub fn new(s: &Setup<E>) -> Result<Csdcp<E>> {
        let centered = E::centered(s.model, s.data, s.cfg.nu_mu as f32, s.cfg.nu_lambda as f32)?;
        Ok(Csdcp::with_centered(s, centered))
    }

    /// CS-DCP starting from a given centered form of `s.model`.
    pub fn with_centered(s: &Setup<E>, centered: E::Centered) -> Csdcp<E> {
        Csdcp {
            d: s.cfg.d,
            kprime: s.cfg.kprime,
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

impl<E: Engine> Algorithm<E> for Csdcp<E> {
    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report> {
        let c = &mut self.centered;
        E::begin_batch(c, cx.model, cx.batch, Some(&mut self.chains));
        for l in 0..self.d {
            if l == 0 {
                E::restart_sweeps(cx.model, &mut self.chains, cx.batch, cx.rng, self.kprime);
            } else {
                E::sweeps(cx.model, &mut self.chains, cx.rng, self.kprime);
            }
            E::slide(c);
            if l == 0 {
                E::centered_data_stats(c, cx.batch, &mut self.pos);
            }
            E::centered_chain_stats(c, &self.chains, &mut self.neg);
            E::centered_step(c, cx.opt, &self.pos, &self.neg, cx.lr, cx.model);
        }
        let sweeps = (self.d * self.kprime) as f64;
        Ok(Report {
            sweeps,
            vh_steps: sweeps,
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

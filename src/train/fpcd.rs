//! FPCD (Tieleman & Hinton 2009, as described in the rates-FPCD paper; docs/algorithms.md §4):
//! persistent chains run under θ + θ_F; θ ← θ + η·g and θ_F ← α·θ_F + η_F·g.
//! With η_F = 0, θ_F stays 0 and the lane is PCD bit for bit.

use super::{config, AlgoCost, AlgoInfo, Algorithm, Ctx, Report, Setup};
use crate::engine::{Cpu, Engine};
use crate::error::Result;
use crate::schema::{Aggregate, StatSpec};

/// The statistic of each update: ‖W_F‖, the Frobenius norm of the fast weights after it.
pub const FAST_W_NORM: &str = "fast_w_norm";

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "fpcd",
    title: "FPCD",
    paper: "Tieleman & Hinton 2009",
    options: &[
        &config::K,
        &config::CHAINS,
        &config::FAST_LR,
        &config::FAST_DECAY,
    ],
    stats: &[StatSpec {
        key: FAST_W_NORM,
        label: "‖W_F‖ of the fast weights",
        unit: "",
        help: "Frobenius norm of the fast weights after the update",
        over_updates: Aggregate::Mean,
        over_trials: Aggregate::Mean,
    }],
    cost: AlgoCost::k_sweeps(5.0),
    build: |s: &Setup| Ok(Box::new(Fpcd::<Cpu>::new(s))),
};

/// Fast-weights PCD.
pub struct Fpcd<E: Engine> {
    k: usize,
    /// η_F.
    fast_lr: f32,
    /// Whether η_F is the default, η (it then follows a live change of η).
    fast_lr_is_lr: bool,
    /// α, the decay of the fast parameters.
    fast_decay: f32,
    /// θ_F.
    fast_params: E::Params,
    /// θ + θ_F, the model the chains run under.
    chain_model: E::Model,
    chains: E::Chains,
    neg: E::Stats,
}

impl<E: Engine> Fpcd<E> {
    /// FPCD with η_F = `cfg.fast_lr` (default: η) and α = `cfg.fast_decay`.
    pub fn new(s: &Setup<E>) -> Fpcd<E> {
        Fpcd {
            k: s.cfg.k,
            fast_lr: s.cfg.fast_lr.unwrap_or(s.cfg.lr) as f32,
            fast_lr_is_lr: s.cfg.fast_lr.is_none(),
            fast_decay: s.cfg.fast_decay as f32,
            fast_params: E::zeros(s.model),
            chain_model: E::copy(s.model),
            chains: E::chains(s.model, &s.data.values, s.chains),
            neg: E::stats(s.model),
        }
    }
}

impl<E: Engine> Algorithm<E> for Fpcd<E> {
    fn base_lr_changed(&mut self, lr: f64) {
        if self.fast_lr_is_lr {
            self.fast_lr = lr as f32;
        }
    }

    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report> {
        cx.positive_phase(None);
        E::set_sum(&mut self.chain_model, cx.model, &self.fast_params);
        E::sweeps(&self.chain_model, &mut self.chains, cx.rng, self.k);
        E::chain_stats(&self.chains, &mut self.neg);
        cx.step(&self.neg);
        let g = E::grad(cx.opt);
        E::decay_add(&mut self.fast_params, self.fast_decay, self.fast_lr, g);
        let fast_norm = E::w_norm(&self.fast_params);
        Ok(Report {
            sweeps: self.k as f64,
            vh_steps: self.k as f64,
            stats: vec![(FAST_W_NORM, fast_norm)],
        })
    }

    fn chain_states(&self) -> Option<&[f32]> {
        Some(E::chain_states(&self.chains))
    }

    fn chains(&self) -> Option<&E::Chains> {
        Some(&self.chains)
    }

    fn fast_params(&self) -> Option<&E::Params> {
        Some(&self.fast_params)
    }
}

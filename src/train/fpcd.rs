//! FPCD (Tieleman & Hinton 2009, as described in the rates-FPCD paper; docs/algorithms.md §4):
//! persistent chains run under θ + θ_F; θ ← θ + η·g and θ_F ← α·θ_F + η_F·g.
//! With η_F = 0, θ_F stays 0 and the lane is PCD bit for bit.

use super::{config, AlgoInfo, Algorithm, Chains, Ctx, Report, Setup};
use crate::cost::AlgoCost;
use crate::error::Result;
use crate::model::{Params, Rbm, Stats};
use crate::schema::{Aggregate, StatSpec};

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
        key: "fast_w_norm",
        label: "‖W_F‖ of the fast weights",
        unit: "",
        help: "Frobenius norm of the fast weights after the update",
        over_updates: Aggregate::Mean,
        over_trials: Aggregate::Mean,
    }],
    cost: AlgoCost::k_sweeps(5.0),
    build: |s: &Setup| Ok(Box::new(Fpcd::new(s))),
};

/// Fast-weights PCD.
pub struct Fpcd {
    k: usize,
    /// η_F.
    fast_lr: f32,
    /// Whether η_F is the default, η (it then follows a live change of η).
    fast_lr_is_lr: bool,
    /// α, the decay of the fast parameters.
    fast_decay: f32,
    /// θ_F.
    fast_params: Params<f32>,
    /// θ + θ_F, the model the chains run under.
    chain_model: Rbm,
    chains: Chains,
    neg: Stats,
}

impl Fpcd {
    /// FPCD with η_F = `cfg.fast_lr` (default: η) and α = `cfg.fast_decay`.
    pub fn new(s: &Setup) -> Fpcd {
        let (m, n) = (s.model.m(), s.model.n());
        Fpcd {
            k: s.cfg.k,
            fast_lr: s.cfg.fast_lr.unwrap_or(s.cfg.lr) as f32,
            fast_lr_is_lr: s.cfg.fast_lr.is_none(),
            fast_decay: s.cfg.fast_decay as f32,
            fast_params: Params::zeros(m, n),
            chain_model: s.model.clone(),
            chains: Chains::from_rows(&s.data.values, m, n, s.chains),
            neg: Stats::new(m, n),
        }
    }
}

impl Algorithm for Fpcd {
    fn base_lr_changed(&mut self, lr: f64) {
        if self.fast_lr_is_lr {
            self.fast_lr = lr as f32;
        }
    }

    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        cx.positive_phase();
        self.chain_model.set_sum(cx.model, &self.fast_params);
        self.chains
            .sweeps_and_finish(&self.chain_model, cx.rng, self.k);
        self.chains.stats_into(&mut self.neg);
        cx.opt.step(cx.model, cx.pos, &self.neg, cx.lr);
        let (a, ef) = (self.fast_decay, self.fast_lr);
        for (f, g) in self
            .fast_params
            .blocks_mut()
            .into_iter()
            .zip(cx.opt.grad().blocks())
        {
            f.iter_mut()
                .zip(g.1)
                .for_each(|(f, g)| *f = a * *f + ef * g);
        }
        let fast_norm = self
            .fast_params
            .w
            .iter()
            .map(|x| (*x as f64).powi(2))
            .sum::<f64>()
            .sqrt();
        Ok(Report {
            sweeps: self.k as f64,
            vh_steps: self.k as f64,
            stats: vec![("fast_w_norm", fast_norm)],
        })
    }

    fn chain_states(&self) -> Option<&[f32]> {
        Some(self.chains.v())
    }
}

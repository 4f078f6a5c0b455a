//! S-DCP, stochastic difference-of-convex-functions programming (Upadhya & Sastry 2017,
//! Algorithm 3; docs/algorithms.md §4).
//!
//! The log-likelihood is g(θ) − f(θ) with g = log Σ_h e^{−E(v,h)} and f = log Z, both convex.
//! Each mini-batch is one DC step θ_{t+1} ≈ argmin_θ f(θ) − θᵀ∇g(θ_t), solved by d SGD steps:
//!
//! ```text
//! pos = E_data[s] under θ_t                     (∇g, computed once per mini-batch)
//! θ̃ ← θ_t; chains ← batch rows
//! repeat d times:
//!     K′ Gibbs sweeps of the chains under θ̃    (chains continue across inner steps)
//!     neg = s(v_chains) with E[h|v] under θ̃    (∇f estimate, as in CD)
//!     θ̃ ← θ̃ + η (pos − neg)                   (Δθ rebuilt at every inner step)
//! θ_{t+1} = θ̃
//! ```
//!
//! With d = 1 this is CD-K′ (the paper's §3 remark), bit for bit here: same chains, same
//! random-number order, same optimizer step.

use super::{config, AlgoCost, AlgoInfo, Algorithm, ChainKind, Ctx, Report, Setup};
use crate::engine::{Cpu, Engine};
use crate::error::Result;

/// Gibbs sweeps per chain and update of S-DCP and CS-DCP, d·K′, for the cost model, with the
/// option further above its default (d = 3, K′ = 4) as the one that sets them.
pub fn sweeps(c: &config::LaneConfig) -> (f64, Option<&'static str>) {
    let key = if 3 * c.kprime >= 4 * c.d {
        "kprime"
    } else {
        "d"
    };
    ((c.d * c.kprime) as f64, Some(key))
}

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "sdcp",
    title: "S-DCP",
    paper: "Upadhya & Sastry 2017",
    options: &[&config::D_STEPS, &config::KPRIME, &config::CHAINS],
    stats: &[],
    cost: AlgoCost {
        weight_sets: 1.0,
        batch_sets: 0.0,
        chains: ChainKind::Full,
        sweeps,
    },
    build: |s: &Setup| Ok(Box::new(Sdcp::<Cpu>::new(s))),
};

/// S-DCP with d inner steps of K′ sweeps each (Upadhya & Sastry 2017, Algorithm 3).
pub struct Sdcp<E: Engine> {
    /// Inner SGD steps per mini-batch.
    d: usize,
    /// Gibbs sweeps K′ per inner step.
    kprime: usize,
    chains: E::Chains,
    neg: E::Stats,
}

impl<E: Engine> Sdcp<E> {
    /// S-DCP with d = `cfg.d`, K′ = `cfg.kprime` and `s.chains` chains (chain i starts at
    /// batch row i mod batch, as in CD).
    pub fn new(s: &Setup<E>) -> Sdcp<E> {
        Sdcp {
            d: s.cfg.d,
            kprime: s.cfg.kprime,
            chains: E::chains(s.model, &s.data.values, s.chains),
            neg: E::stats(s.model),
        }
    }
}

impl<E: Engine> Algorithm<E> for Sdcp<E> {
    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report> {
        cx.positive_phase(Some(&mut self.chains));
        for l in 0..self.d {
            if l == 0 {
                E::restart_sweeps(cx.model, &mut self.chains, cx.batch, cx.rng, self.kprime);
            } else {
                E::sweeps(cx.model, &mut self.chains, cx.rng, self.kprime);
            }
            E::chain_stats(&self.chains, &mut self.neg);
            cx.step(&self.neg);
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

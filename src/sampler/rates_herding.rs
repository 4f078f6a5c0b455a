//! Rates-herding (Breuleux, Bengio & Vincent 2011, §4, after Welling 2009; docs/algorithms.md
//! §5): the rates-FPCD update `θ_F ← α·θ_F + ε_F·(R − s(x⁻))`, but the chain moves
//! deterministically — h = 1{c⁻ + W⁻ᵀx > 0}, x = 1{b⁻ + W⁻h > 0} under θ⁻ = θ + θ_F — until x
//! is a fixed point or the cap is reached. Its best ε_F is 10–100× rates-FPCD's (the paper).

use super::fast::{FastChain, Step};
use super::{SamplerConfig, SamplerInfo, ALPHA, CAP, EPS_F};

/// Registration. The default ε_F = 0.01 is near the best ISL on the shipped model at both 100
/// and 2 000 samples (`rbm reproduce rates-fpcd-mnist` sweeps it).
pub const INFO: SamplerInfo = SamplerInfo {
    name: "rates-herding",
    title: "rates-herding",
    paper: "Breuleux, Bengio & Vincent 2011",
    about: "deterministic steps to a fixed point under θ + θ_F, with rates-FPCD's update of θ_F",
    options: &[&EPS_F, &ALPHA, &CAP],
    eps_f: 0.01,
    alpha: 1.0,
    needs_rates: true,
    cost: super::fast::cost(herding_steps),
    build: |s| {
        Ok(Box::new(FastChain::new(
            s,
            Step::Herding { cap: s.cfg.cap },
            true,
        )?))
    },
};

/// The fixed-point search's usual length, for the cost model: on the shipped 784×500 MNIST
/// model about 20 steps a sample whatever the cap above that (measured with `rbm sample`), on
/// an untrained one 2–3. The cap bounds it, so a run can take up to cap/20 times its estimate.
pub const TYPICAL_STEPS: usize = 20;

/// Steps per emitted sample: the cap, or [`TYPICAL_STEPS`] below it.
fn herding_steps(c: &SamplerConfig) -> (f64, &'static str) {
    (c.cap.min(TYPICAL_STEPS) as f64, "cap")
}

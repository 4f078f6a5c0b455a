//! Rates-FPCD (Breuleux, Bengio & Vincent 2011, Algorithm 1 as reconstructed in
//! docs/algorithms.md §5): Gibbs sweeps under θ + θ_F, with θ_F pulled after every sample
//! towards the training set's positive statistics R and away from the sample:
//! `θ_F ← α·θ_F + ε_F·(R − s(x⁻))`. The paper found no decay (α = 1) best for sampling.

use super::fast::{FastChain, Step};
use super::{k_steps, SamplerInfo, ALPHA, EPS_F, K};

/// Registration. The default ε_F = 0.002 mixes between digit classes on the shipped 784×500
/// model while its samples stay digit-like (`rbm reproduce rates-fpcd-mnist` sweeps it).
pub const INFO: SamplerInfo = SamplerInfo {
    name: "rates-fpcd",
    title: "rates-FPCD",
    paper: "Breuleux, Bengio & Vincent 2011",
    about: "Gibbs under θ + θ_F; θ_F learns the rates R minus each sample's statistics, pushing the chain on",
    options: &[&K, &EPS_F, &ALPHA],
    eps_f: 0.002,
    alpha: 1.0,
    needs_rates: true,
    cost: super::fast::cost(k_steps),
    build: |s| Ok(Box::new(FastChain::new(s, Step::Gibbs { k: s.cfg.k }, true)?)),
};

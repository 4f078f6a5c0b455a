//! Sample penalisation (Breuleux, Bengio & Vincent 2011, §4; docs/algorithms.md §5): Gibbs
//! sweeps under θ + θ_F with rates R = 0 and a decay α < 1, `θ_F ← α·θ_F − ε_F·s(x⁻)` — the
//! chain only unlearns what it has just emitted, which pushes it on but skews its samples.

use super::fast::{FastChain, Step};
use super::{k_steps, SamplerInfo, ALPHA, EPS_F, K};

/// Registration.
pub const INFO: SamplerInfo = SamplerInfo {
    name: "sp",
    title: "sample penalisation",
    paper: "Breuleux, Bengio & Vincent 2011",
    about: "Gibbs under θ + θ_F where θ_F only unlearns the samples just emitted (rates 0, decay α < 1)",
    options: &[&K, &EPS_F, &ALPHA],
    eps_f: 0.002,
    alpha: 0.95,
    needs_rates: false,
    cost: super::fast::cost(k_steps),
    build: |s| Ok(Box::new(FastChain::new(s, Step::Gibbs { k: s.cfg.k }, false)?)),
};

//! Plain block Gibbs sampling under θ (docs/algorithms.md §1, §5): h ~ p(h|x), then
//! x ~ p(x|h), `k` sweeps between emitted samples — the baseline of the rates-FPCD paper.

use super::{k_steps, Sampler, SamplerCost, SamplerInfo, K};
use crate::model::Rbm;
use crate::rng::Rng;

/// Registration.
pub const INFO: SamplerInfo = SamplerInfo {
    name: "gibbs",
    title: "Gibbs",
    paper: "Geman & Geman 1984",
    about: "block Gibbs sweeps under the trained parameters; exact in the limit, slow to mix",
    options: &[&K],
    eps_f: 0.0,
    alpha: 1.0,
    needs_rates: false,
    // A chain starts from a clone of the model: W, its two packed layouts and Wᵀ.
    cost: SamplerCost {
        weight_sets: 1.0,
        fast_update: false,
        build_sets: 4.0,
        steps: k_steps,
    },
    build: |s| {
        Ok(Box::new(Gibbs {
            k: s.cfg.k,
            model: s.model.clone(),
            v: s.start.to_vec(),
            h: vec![0.0; s.model.n()],
        }))
    },
};

/// One Gibbs chain.
pub struct Gibbs {
    k: usize,
    model: Rbm,
    v: Vec<f32>,
    h: Vec<f32>,
}

impl Sampler for Gibbs {
    fn next(&mut self, rng: &mut Rng) {
        for _ in 0..self.k {
            self.model.sample_hidden(&self.v, &mut self.h, rng);
            self.model.sample_visible(&self.h, &mut self.v, rng);
        }
    }

    fn visible(&self) -> &[f32] {
        &self.v
    }

    fn mean(&self, out: &mut [f32]) {
        self.model.visible_probs(&self.h, out);
    }
}

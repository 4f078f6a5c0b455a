//! The chain the rates-FPCD paper's samplers share (Breuleux, Bengio & Vincent 2011, §3–4 and
//! its Algorithm 1, reconstructed in docs/algorithms.md §5): one persistent chain that runs
//! under θ⁻ = θ + θ_F, where after every emitted sample x⁻ the fast parameters move away from
//! it and towards the rates R:
//!
//! `θ_F ← α·θ_F + ε_F·(R − s(x⁻))`, with `s(x) = (x·E[h|x]ᵀ, x, E[h|x])` under θ⁻.
//!
//! - rates-FPCD ([`super::rates_fpcd`]): Gibbs sweeps, R the training set's positive statistics;
//! - rates-herding ([`super::rates_herding`]): deterministic steps to a fixed point, same update;
//! - sample penalisation ([`super::sp`]): Gibbs sweeps, R = 0 and α < 1.

use super::{Sampler, SamplerSetup};
use crate::error::Result;
use crate::model::{Params, Rbm};
use crate::rng::Rng;

/// How the chain moves between two updates of θ_F.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `k` block-Gibbs sweeps under θ⁻.
    Gibbs {
        /// Sweeps per emitted sample.
        k: usize,
    },
    /// Deterministic steps h = 1{c⁻ + W⁻ᵀx > 0}, x = 1{b⁻ + W⁻h > 0} until x is a fixed point
    /// or `cap` steps were made (Welling's herding, the paper's rates-herding).
    Herding {
        /// Most steps per emitted sample.
        cap: usize,
    },
}

/// One chain under θ + θ_F with the fast-parameter update of the rates-FPCD paper.
pub struct FastChain {
    step: Step,
    /// ε_F.
    eps_f: f32,
    /// α.
    alpha: f32,
    /// θ.
    model: Rbm,
    /// R (`None`: 0, sample penalisation).
    rates: Option<Params<f32>>,
    /// θ_F.
    fast_params: Params<f32>,
    /// θ⁻ = θ + θ_F, the parameters the chain runs under.
    chain_model: Rbm,
    v: Vec<f32>,
    h: Vec<f32>,
    hp: Vec<f32>,
}

impl FastChain {
    /// A chain at `s.start` under θ (θ_F = 0) moving by `step`; `use_rates` false means R = 0.
    pub fn new(s: &SamplerSetup, step: Step, use_rates: bool) -> Result<FastChain> {
        let (m, n) = (s.model.m(), s.model.n());
        Ok(FastChain {
            step,
            eps_f: s.cfg.eps_f()? as f32,
            alpha: s.cfg.alpha()? as f32,
            model: s.model.clone(),
            rates: if use_rates { s.rates.cloned() } else { None },
            fast_params: Params::zeros(m, n),
            chain_model: s.model.clone(),
            v: s.start.to_vec(),
            h: vec![0.0; n],
            hp: vec![0.0; n],
        })
    }

    /// Deterministic steps from the current x to a fixed point or the cap.
    fn herd(&mut self, cap: usize) {
        let mut x = vec![0.0f32; self.v.len()];
        for _ in 0..cap {
            self.chain_model.hidden_pre(&self.v, &mut self.h);
            self.h.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
            self.chain_model.visible_pre(&self.h, &mut x);
            x.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
            let fixed = x == self.v;
            std::mem::swap(&mut x, &mut self.v);
            if fixed {
                break;
            }
        }
    }

    /// θ_F ← α·θ_F + ε_F·(R − s(x⁻)), then θ⁻ = θ + θ_F.
    fn update(&mut self) {
        self.chain_model.hidden_probs(&self.v, &mut self.hp);
        fast_step(
            &mut self.fast_params,
            self.rates.as_ref(),
            &self.v,
            &self.hp,
            self.alpha,
            self.eps_f,
        );
        self.chain_model.set_sum(&self.model, &self.fast_params);
    }
}

/// `f ← α·f + ε·(R − s(x))` with `s(x) = (x·hpᵀ, x, hp)`; `rates` `None` stands for R = 0. Each
/// weight is read and written once; rows of inactive visible units skip the product.
pub fn fast_step(
    f: &mut Params<f32>,
    rates: Option<&Params<f32>>,
    x: &[f32],
    hp: &[f32],
    alpha: f32,
    eps: f32,
) {
    let (a, e) = (alpha, eps);
    let n = hp.len();
    let rate = |blk: &[f32], k: usize| rates.map_or(0.0, |_| blk[k]);
    let (rw, rb, rc): (&[f32], &[f32], &[f32]) = match rates {
        Some(r) => (&r.w, &r.b, &r.c),
        None => (&[], &[], &[]),
    };
    for (i, (row, &xi)) in f.w.chunks_exact_mut(n).zip(x).enumerate() {
        let r = if rates.is_some() {
            &rw[i * n..(i + 1) * n]
        } else {
            &[][..]
        };
        match (xi != 0.0, rates.is_some()) {
            (true, true) => row
                .iter_mut()
                .zip(r)
                .zip(hp)
                .for_each(|((w, &rw), &hj)| *w = a * *w + e * (rw - hj)),
            (false, true) => row
                .iter_mut()
                .zip(r)
                .for_each(|(w, &rw)| *w = a * *w + e * rw),
            (true, false) => row
                .iter_mut()
                .zip(hp)
                .for_each(|(w, &hj)| *w = a * *w - e * hj),
            (false, false) => row.iter_mut().for_each(|w| *w *= a),
        }
    }
    for (i, (b, &xi)) in f.b.iter_mut().zip(x).enumerate() {
        *b = a * *b + e * (rate(rb, i) - xi);
    }
    for (j, (c, &hj)) in f.c.iter_mut().zip(hp).enumerate() {
        *c = a * *c + e * (rate(rc, j) - hj);
    }
}

impl Sampler for FastChain {
    fn next(&mut self, rng: &mut Rng) {
        match self.step {
            Step::Gibbs { k } => {
                for _ in 0..k {
                    self.chain_model.sample_hidden(&self.v, &mut self.h, rng);
                    self.chain_model.sample_visible(&self.h, &mut self.v, rng);
                }
            }
            Step::Herding { cap } => self.herd(cap),
        }
        self.update();
    }

    fn visible(&self) -> &[f32] {
        &self.v
    }

    fn mean(&self, out: &mut [f32]) {
        self.chain_model.visible_probs(&self.h, out);
    }

    fn fast_norm(&self) -> f64 {
        self.fast_params
            .w
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt()
    }
}

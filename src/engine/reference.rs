//! The reference engine ([`Reference`]): every operation as the straightforward loops of
//! docs/algorithms.md §1 and §4 — no pattern tables, no memo, no packed layouts, no SIMD — in the
//! order of the formulas. It is the test oracle of the engine layer: every algorithm file runs
//! on it unchanged, and the CPU engine must give the same bits (`tests/engines.rs`).
//!
//! The numbers are defined by their order, which the fast engines keep:
//! - a pre-activation is the bias, then `+ x_i·W_ij` over the conditioning units with x_i ≠ 0 in
//!   increasing i (for x_i = 1 that adds W_ij itself), in f32 without fused multiply-adds;
//! - a unit is on iff `u·(1 + e^{−a}) < 1` with [`crate::math::fast_exp`], and E[x] = 1/(1 + e^{−a});
//! - a half-sweep draws its uniforms in one [`fill_uniform`] call for the whole layer of every
//!   chain, chains in order, units in order;
//! - statistics add s(v) = (v·E[h|v]ᵀ, v, E[h|v]) row after row;
//! - the parameter step, FPCD's fast parameters and the centered parameterisation are the CPU
//!   engine's own plain code (the optimizer, [`Centered`] on rows).

use super::cpu::{Centered, Cpu};
use super::Engine;
use crate::data::Dataset;
use crate::error::Result;
use crate::math::one_plus_exp_neg_one;
use crate::model::{Params, Rbm, Stats};
use crate::rng::{fill_uniform, Rng};
use crate::train::Optimizer;

/// The reference engine: f32 parameters in [`Rbm`] (read through its plain W, b, c), chains
/// in [`RefChains`], statistics in [`Stats`]' sums.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

/// Gibbs chains of the reference engine: visible and hidden states and E[h|v], row by row.
#[derive(Clone, Debug)]
pub struct RefChains {
    v: Vec<f32>,
    h: Vec<f32>,
    hp: Vec<f32>,
    m: usize,
    n: usize,
}

/// The pre-activations of the rows `x` (`k` units each) for the conditioned layer of `bias`,
/// with `w_ki(i, j)` the weight between conditioning unit i and conditioned unit j.
fn pre(bias: &[f32], k: usize, x: &[f32], w_ki: impl Fn(usize, usize) -> f32) -> Vec<f32> {
    let width = bias.len();
    let mut out = Vec::with_capacity(x.len() / k.max(1) * width);
    for row in x.chunks_exact(k) {
        for (j, &b) in bias.iter().enumerate() {
            let mut a = b;
            for (i, &xi) in row.iter().enumerate() {
                if xi != 0.0 {
                    a += xi * w_ki(i, j);
                }
            }
            out.push(a);
        }
    }
    out
}

/// c + vᵀW for every row of `v`.
fn hidden_pre(model: &Rbm, v: &[f32]) -> Vec<f32> {
    let (w, n) = (model.w(), model.n());
    pre(&model.c, model.m(), v, |i, j| w[i * n + j])
}

/// b + W h for every row of `h`.
fn visible_pre(model: &Rbm, h: &[f32]) -> Vec<f32> {
    let (w, n) = (model.w(), model.n());
    pre(&model.b, n, h, |j, i| w[i * n + j])
}

/// E[x] = 1/(1 + e^{−a}) of every pre-activation.
fn means(a: &[f32]) -> Vec<f32> {
    a.iter().map(|&a| 1.0 / one_plus_exp_neg_one(a)).collect()
}

/// 0/1 draws: unit on iff `u·(1 + e^{−a}) < 1`, the uniforms from one fill for the whole layer.
fn draw(a: &[f32], rng: &mut Rng) -> Vec<f32> {
    let mut u = vec![0.0; a.len()];
    fill_uniform(rng, &mut u);
    a.iter()
        .zip(&u)
        .map(|(&a, &u)| f32::from(u8::from(u * one_plus_exp_neg_one(a) < 1.0)))
        .collect()
}

/// `stats` ← s(v) with E[h|v] = `hp`, summed row after row (cleared first).
fn add_stats(stats: &mut Stats, m: usize, n: usize, v: &[f32], hp: &[f32]) {
    stats.clear();
    let sum = &mut stats.sum;
    for (vr, hr) in v.chunks_exact(m).zip(hp.chunks_exact(n)) {
        for (i, &vi) in vr.iter().enumerate() {
            if vi == 1.0 {
                for (s, &h) in sum.w[i * n..(i + 1) * n].iter_mut().zip(hr) {
                    *s += h;
                }
            } else {
                for (s, &h) in sum.w[i * n..(i + 1) * n].iter_mut().zip(hr) {
                    *s += vi * h;
                }
            }
            sum.b[i] += vi;
        }
        for (s, &h) in sum.c.iter_mut().zip(hr) {
            *s += h;
        }
        stats.count += 1.0;
    }
}

impl RefChains {
    /// One full sweep: h ~ p(h|v), then v ~ p(v|h).
    fn sweep(&mut self, model: &Rbm, rng: &mut Rng) {
        self.h = draw(&hidden_pre(model, &self.v), rng);
        self.v = draw(&visible_pre(model, &self.h), rng);
    }

    /// `k` sweeps, then E[h|v].
    fn sweeps(&mut self, model: &Rbm, rng: &mut Rng, k: usize) {
        for _ in 0..k {
            self.sweep(model, rng);
        }
        self.hp = means(&hidden_pre(model, &self.v));
    }

    /// Chain i at row i mod rows.
    fn restart(&mut self, rows: &[f32]) {
        let (m, r) = (self.m, rows.len() / self.m);
        for (i, v) in self.v.chunks_exact_mut(m).enumerate() {
            v.copy_from_slice(&rows[(i % r) * m..(i % r + 1) * m]);
        }
    }
}

impl Engine for Reference {
    type Model = Rbm;
    type Chains = RefChains;
    type Stats = Stats;
    type Params = Params<f32>;
    type Optimizer = Optimizer;
    type Rng = Rng;
    type Centered = Centered;
    type Device = ();

    const ON_HOST: bool = true;

    fn upload(_: &(), model: &Rbm) -> Rbm {
        model.clone()
    }

    fn host(model: &Rbm) -> std::borrow::Cow<'_, Rbm> {
        std::borrow::Cow::Borrowed(model)
    }

    fn rng(_: &(), seed: u64, lane: u64) -> Rng {
        Cpu::rng(&(), seed, lane)
    }

    fn optimizer(model: &Rbm, weight_decay: f32, momentum: f32) -> Optimizer {
        Cpu::optimizer(model, weight_decay, momentum)
    }

    fn set_coefficients(opt: &mut Optimizer, weight_decay: f32, momentum: f32) {
        Cpu::set_coefficients(opt, weight_decay, momentum);
    }

    fn build(
        info: &crate::train::AlgoInfo,
        setup: &crate::train::Setup<Reference>,
    ) -> Result<Box<dyn crate::train::Algorithm<Reference>>> {
        crate::train::build_on(info, setup)
    }

    fn chains(model: &Rbm, rows: &[f32], count: usize) -> RefChains {
        let (m, n) = (model.m(), model.n());
        let mut c = RefChains {
            v: vec![0.0; count * m],
            h: vec![0.0; count * n],
            hp: vec![0.0; count * n],
            m,
            n,
        };
        c.restart(rows);
        c
    }

    fn chain_states(chains: &RefChains) -> &[f32] {
        &chains.v
    }

    fn restart_sweeps(model: &Rbm, c: &mut RefChains, batch: &[f32], rng: &mut Rng, k: usize) {
        c.restart(batch);
        c.sweeps(model, rng, k);
    }

    fn sweeps(model: &Rbm, c: &mut RefChains, rng: &mut Rng, k: usize) {
        c.sweeps(model, rng, k);
    }

    fn chain_stats(c: &RefChains, neg: &mut Stats) {
        add_stats(neg, c.m, c.n, &c.v, &c.hp);
    }

    fn stats(model: &Rbm) -> Stats {
        Cpu::stats(model)
    }

    fn positive_phase(model: &Rbm, batch: &[f32], pos: &mut Stats, _next: Option<&mut RefChains>) {
        let hp = means(&hidden_pre(model, batch));
        add_stats(pos, model.m(), model.n(), batch, &hp);
    }

    fn mean_field_stats(model: &Rbm, batch: &[f32], neg: &mut Stats) {
        let h0 = means(&hidden_pre(model, batch));
        let v1 = means(&visible_pre(model, &h0));
        let h1 = means(&hidden_pre(model, &v1));
        add_stats(neg, model.m(), model.n(), &v1, &h1);
    }

    fn step(opt: &mut Optimizer, model: &mut Rbm, pos: &Stats, neg: &Stats, lr: f32) {
        Cpu::step(opt, model, pos, neg, lr);
    }

    fn grad(opt: &Optimizer) -> &Params<f32> {
        Cpu::grad(opt)
    }

    fn zeros(model: &Rbm) -> Params<f32> {
        Cpu::zeros(model)
    }

    fn set_sum(sum: &mut Rbm, model: &Rbm, extra: &Params<f32>) {
        Cpu::set_sum(sum, model, extra);
    }

    fn decay_add(x: &mut Params<f32>, alpha: f32, eta: f32, g: &Params<f32>) {
        Cpu::decay_add(x, alpha, eta, g);
    }

    fn w_norm(x: &Params<f32>) -> f64 {
        Cpu::w_norm(x)
    }

    fn copy(model: &Rbm) -> Rbm {
        Cpu::copy(model)
    }

    fn centered(model: &Rbm, data: &Dataset, nu_mu: f32, nu_lambda: f32) -> Result<Centered> {
        Cpu::centered(model, data, nu_mu, nu_lambda)
    }

    fn begin_batch(c: &mut Centered, model: &Rbm, batch: &[f32], _next: Option<&mut RefChains>) {
        let hp = means(&hidden_pre(model, batch));
        c.begin_batch_from_probs(batch, &hp);
    }

    fn slide(c: &mut Centered) {
        Cpu::slide(c);
    }

    fn centered_data_stats(c: &mut Centered, batch: &[f32], pos: &mut Stats) {
        Cpu::centered_data_stats(c, batch, pos);
    }

    fn centered_chain_stats(c: &mut Centered, chains: &RefChains, neg: &mut Stats) {
        c.row_stats(&chains.v, &chains.hp, neg);
    }

    fn centered_step(
        c: &mut Centered,
        opt: &mut Optimizer,
        pos: &Stats,
        neg: &Stats,
        lr: f32,
        model: &mut Rbm,
    ) {
        Cpu::centered_step(c, opt, pos, neg, lr, model);
    }
}

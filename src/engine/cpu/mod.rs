//! The CPU engine ([`Cpu`]), natively and in wasm: the fast engine, equal to the reference
//! engine ([`crate::engine::reference`]) bit for bit.
//!
//! - [`chains`]: Gibbs chains, row by row or, for small models, on patterns;
//! - [`patterns`]: the per-pattern caches of small models (same bits as computing every row);
//! - [`kernels`]: the row kernels the conditionals and statistics run on, whose per-target
//!   instructions (SSE2, AVX, AVX2, SIMD128 and the plain path) are all in `simd`;
//! - [`centered`]: the centered parameterisation of CG and CS-DCP;
//! - [`sizes`]: what the engine holds, for the cost model.
//!
//! Every fast path here has a test against the plain path it replaces, bit for bit.
pub mod centered;
pub mod chains;
pub mod kernels;
pub mod patterns;
pub(crate) mod simd;
pub mod sizes;

pub use centered::Centered;
pub use chains::Chains;

use super::Engine;
use crate::data::Dataset;
use crate::error::Result;
use crate::model::{Params, Rbm, Stats};
use crate::rng::Rng;
use crate::train::Optimizer;

/// The CPU engine: f32 parameters in [`Rbm`], chains in [`ChainSet`], statistics in [`Stats`],
/// the lane's [`Rng`] stream.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

/// The CPU engine's chains: [`Chains`] and, from the positive phase they were given to
/// ([`Engine::positive_phase`]), the batch rows' hidden thresholds t = 1 + e^{−(c + Wᵀv)} and
/// E[h|v] = 1/t, from which a restart at those rows draws its first half-sweep without
/// computing them again ([`Chains::sweeps_from_rows`]; the same bits as restarting and
/// sweeping).
#[derive(Debug)]
pub struct ChainSet {
    chains: Chains,
    hp: Vec<f32>,
    t: Vec<f32>,
    /// `t` holds the thresholds of the batch of the last positive phase under the model the
    /// chains sweep under next; any other call on the chains clears it.
    rows_ready: bool,
}

impl ChainSet {
    /// The chains.
    pub fn chains(&self) -> &Chains {
        &self.chains
    }

    /// The chains, to change (the batch rows' thresholds are then forgotten).
    pub fn chains_mut(&mut self) -> &mut Chains {
        self.rows_ready = false;
        &mut self.chains
    }
}

impl Engine for Cpu {
    type Model = Rbm;
    type Chains = ChainSet;
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
        crate::rng::stream(seed, lane, crate::rng::Purpose::Sampling)
    }

    fn optimizer(model: &Rbm, weight_decay: f32, momentum: f32) -> Optimizer {
        Optimizer::new(model.m(), model.n(), weight_decay, momentum)
    }

    fn set_coefficients(opt: &mut Optimizer, weight_decay: f32, momentum: f32) {
        opt.set_coefficients(weight_decay, momentum);
    }

    fn build(
        info: &crate::train::AlgoInfo,
        setup: &crate::train::Setup<Cpu>,
    ) -> Result<Box<dyn crate::train::Algorithm<Cpu>>> {
        (info.build)(setup)
    }

    fn chains(model: &Rbm, rows: &[f32], count: usize) -> ChainSet {
        ChainSet {
            chains: Chains::from_rows(rows, model.m(), model.n(), count),
            hp: Vec::new(),
            t: Vec::new(),
            rows_ready: false,
        }
    }

    fn chain_states(chains: &ChainSet) -> &[f32] {
        chains.chains.v()
    }

    fn restart_sweeps(model: &Rbm, c: &mut ChainSet, batch: &[f32], rng: &mut Rng, k: usize) {
        let m = model.m();
        if std::mem::take(&mut c.rows_ready) && k >= 1 {
            debug_assert_eq!(
                c.t.len(),
                batch.len() / m * model.n(),
                "thresholds of the batch"
            );
            c.chains.trace_rows(batch, m);
            c.chains.sweeps_from_rows(model, batch, &c.t, rng, k);
        } else {
            c.chains.sweeps_and_finish_from(model, Some(batch), rng, k);
        }
    }

    fn sweeps(model: &Rbm, c: &mut ChainSet, rng: &mut Rng, k: usize) {
        c.chains_mut().sweeps_and_finish(model, rng, k);
    }

    fn chain_stats(c: &ChainSet, neg: &mut Stats) {
        c.chains.stats_into(neg);
    }

    fn stats(model: &Rbm) -> Stats {
        Stats::new(model.m(), model.n())
    }

    fn positive_phase(model: &Rbm, batch: &[f32], pos: &mut Stats, next: Option<&mut ChainSet>) {
        let len = batch.len() / model.m() * model.n();
        let Some(c) = next else {
            let mut hp = vec![0.0; len];
            model.hidden_probs(batch, &mut hp);
            pos.clear();
            pos.add(batch, &hp);
            return;
        };
        c.hp.resize(len, 0.0);
        c.t.resize(len, 0.0);
        c.rows_ready = true;
        if c.chains
            .positive_phase(model, batch, (&mut c.t, &mut c.hp), pos)
        {
            return;
        }
        positive_phase_thresholds(model, batch, pos, &mut c.hp, &mut c.t);
    }

    fn mean_field_stats(model: &Rbm, batch: &[f32], neg: &mut Stats) {
        let (m, n, rows) = (model.m(), model.n(), batch.len() / model.m());
        let mut h0 = vec![0.0f32; rows * n];
        let mut v1 = vec![0.0f32; rows * m];
        let mut h1 = vec![0.0f32; rows * n];
        model.hidden_probs(batch, &mut h0);
        model.visible_probs(&h0, &mut v1);
        model.hidden_probs(&v1, &mut h1);
        neg.clear();
        neg.add(&v1, &h1);
    }

    fn step(opt: &mut Optimizer, model: &mut Rbm, pos: &Stats, neg: &Stats, lr: f32) {
        opt.step(model, pos, neg, lr);
    }

    fn grad(opt: &Optimizer) -> &Params<f32> {
        opt.grad()
    }

    fn zeros(model: &Rbm) -> Params<f32> {
        Params::zeros(model.m(), model.n())
    }

    fn set_sum(sum: &mut Rbm, model: &Rbm, extra: &Params<f32>) {
        sum.set_sum(model, extra);
    }

    fn decay_add(x: &mut Params<f32>, alpha: f32, eta: f32, g: &Params<f32>) {
        for (x, g) in x.blocks_mut().into_iter().zip(g.blocks()) {
            x.iter_mut()
                .zip(g.1)
                .for_each(|(x, g)| *x = alpha * *x + eta * g);
        }
    }

    fn w_norm(x: &Params<f32>) -> f64 {
        x.w.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt()
    }

    fn copy(model: &Rbm) -> Rbm {
        model.clone()
    }

    fn centered(model: &Rbm, data: &Dataset, nu_mu: f32, nu_lambda: f32) -> Result<Centered> {
        Centered::new(model, data, nu_mu, nu_lambda)
    }

    fn begin_batch(c: &mut Centered, model: &Rbm, batch: &[f32], next: Option<&mut ChainSet>) {
        c.begin_batch(model, batch, next.map(ChainSet::chains_mut));
    }

    fn slide(c: &mut Centered) {
        c.slide();
    }

    fn centered_data_stats(c: &mut Centered, batch: &[f32], pos: &mut Stats) {
        c.data_stats(batch, pos);
    }

    fn centered_chain_stats(c: &mut Centered, chains: &ChainSet, neg: &mut Stats) {
        c.chain_stats(&chains.chains, neg);
    }

    fn centered_step(
        c: &mut Centered,
        opt: &mut Optimizer,
        pos: &Stats,
        neg: &Stats,
        lr: f32,
        model: &mut Rbm,
    ) {
        c.step(opt, pos, neg, lr, model);
    }
}

/// The positive phase row by row, leaving the batch rows' hidden thresholds
/// `t = 1 + e^{−(c + Wᵀv)}` in `t` and E[h|v] = 1/t in `hp` (rows × n, resized): 1/t has the
/// bits of [`Rbm::hidden_probs`].
pub fn positive_phase_thresholds(
    model: &Rbm,
    batch: &[f32],
    pos: &mut Stats,
    hp: &mut Vec<f32>,
    t: &mut Vec<f32>,
) {
    let len = batch.len() / model.m() * model.n();
    hp.resize(len, 0.0);
    t.resize(len, 0.0);
    model.hidden_pre(batch, hp);
    crate::math::one_plus_exp_neg(hp, t);
    hp.iter_mut().zip(t.iter()).for_each(|(p, &t)| *p = 1.0 / t);
    pos.clear();
    pos.add(batch, hp);
}

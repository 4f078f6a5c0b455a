//! Engines: *how fast* the dense work of training runs, apart from *what* it computes.
//!
//! A training algorithm (`crate::train`, one file each) says what an update does in the words
//! of its paper — "restart the chains at the batch rows, run k sweeps, add s(v) with E[h|v],
//! step θ" — through the [`Engine`] trait; an engine does it. The same algorithm file runs on
//! every engine: its struct is generic over `E: Engine` and holds the engine's own objects
//! (chains, statistics, parameter sets), which may live where the engine computes (a GPU's
//! buffers) and are handed back only when a view or an evaluation asks ([`Engine::chain_states`]).
//!
//! - [`cpu`]: the CPU engine — the row kernels, the per-pattern caches of small models and the
//!   SIMD folder, each fast path tested against its plain path, bit for bit;
//! - [`tape`]: the tape engine — an algorithm file run on handles, leaving the program of
//!   operations its updates perform, for engines that run many trials as one job;
//! - [`reference`]: the reference engine — the formulas as straightforward loops, always
//!   compiled; the test oracle every engine must equal (`tests/engines.rs`).
//!
//! The operations are coarse on purpose: each is one fused step of the papers' algorithms (a
//! run of Gibbs sweeps with their Bernoulli draws; the statistics of a set of rows; the
//! parameter step), so an engine that pays per dispatch pays a few times per update, and one
//! that keeps state on its side never has to hand a batch of chains back in between.
//!
//! Every operation's numbers are defined by docs/algorithms.md §1 (conditionals, sweeps,
//! statistics) and §4 (the parameter step); the CPU engine's are the reference.

pub mod cpu;
pub mod reference;
pub mod tape;

pub use cpu::Cpu;
pub use reference::Reference;

use crate::data::Dataset;
use crate::error::Result;
use crate::model::Rbm;
use crate::train::{AlgoInfo, Algorithm, Setup};
use std::borrow::Cow;

/// The dense work of the training algorithms (docs/algorithms.md §1, §4), on one kind of
/// hardware. Every function is an associated function: an engine's objects carry whatever
/// context they need (the CPU's need none).
pub trait Engine: Sized + Send + 'static {
    /// An m×n RBM's parameters θ = (W, b, c) where the engine computes with them.
    type Model: Send;
    /// A set of Gibbs chains of one model's shape: visible and hidden states and E[h|v].
    type Chains: Send;
    /// Sums of the sufficient statistics s(v) = (v·E[h|v]ᵀ, v, E[h|v]) over a set of rows, and
    /// their count.
    type Stats: Send;
    /// A parameter-shaped set of numbers (a gradient, FPCD's fast weights).
    type Params: Send;
    /// The parameter step θ ← θ + η·(mean(pos) − mean(neg)) with weight decay and momentum.
    type Optimizer: Send;
    /// The random stream the draws of one lane come from.
    type Rng: Send;
    /// The centered parameterisation of CG and CS-DCP (Melchior, Fischer & Wiskott 2016):
    /// offsets μ, λ with the centered parameters (W, b̃, c̃).
    type Centered: Send;
    /// Where the engine makes its objects: a GPU; nothing for the CPU.
    type Device: Clone + Send + Sync;

    // --- The host (a lane's model, streams and algorithm; its records and views) ---

    /// Whether the model lives on the host, so a lane checks it for non-finite numbers after
    /// every update; an engine whose model lives elsewhere is checked at each record.
    const ON_HOST: bool;

    /// `model` on `dev`.
    fn upload(dev: &Self::Device, model: &Rbm) -> Self::Model;

    /// The model on the host: borrowed where it lives there, else copied back (waiting for the
    /// device).
    fn host(model: &Self::Model) -> Cow<'_, Rbm>;

    /// The sampling stream of (`seed`, `lane`) on `dev`.
    fn rng(dev: &Self::Device, seed: u64, lane: u64) -> Self::Rng;

    /// The parameter step of weight decay λ and momentum μ for `model`'s shape.
    fn optimizer(model: &Self::Model, weight_decay: f32, momentum: f32) -> Self::Optimizer;

    /// Changes the step's λ and μ from the next step on (a lane's live options).
    fn set_coefficients(opt: &mut Self::Optimizer, weight_decay: f32, momentum: f32);

    /// log Z of `model` (whose host copy is `host`) by exact enumeration where the engine does
    /// it itself (a GPU: f32 with compensated sums, relative error ≤ 1e-6), for a lane's exact
    /// curve; None: the CPU's f64 enumeration (`crate::eval::exact`).
    fn exact_log_z(_model: &Self::Model, _host: &Rbm) -> Option<Result<f64>> {
        None
    }

    /// Whether the engine runs algorithm `algo` (a study on this engine runs the others on the
    /// CPU engine).
    fn runs(_algo: &str) -> bool {
        true
    }

    /// The algorithm `info` on this engine (an error for one the engine does not run).
    fn build(info: &AlgoInfo, setup: &Setup<Self>) -> Result<Box<dyn Algorithm<Self>>>;

    // --- Chains (docs/algorithms.md §1) ---

    /// `count` chains of `model`'s shape started at `rows` (chain i at row i mod rows).
    fn chains(model: &Self::Model, rows: &[f32], count: usize) -> Self::Chains;

    /// The chains' visible states, `count × m` row by row (for views).
    fn chain_states(chains: &Self::Chains) -> &[f32];

    /// Restarts chain i at batch row i mod rows, runs `k` full sweeps (h ~ p(h|v), then
    /// v ~ p(v|h)) under `model`, then computes E[h|v] of the final states: CD-k's negative
    /// chains, and S-DCP's at the first inner step.
    fn restart_sweeps(
        model: &Self::Model,
        chains: &mut Self::Chains,
        batch: &[f32],
        rng: &mut Self::Rng,
        k: usize,
    );

    /// `k` full sweeps from the chains' states under `model`, then E[h|v] of the final states:
    /// PCD's persistent chains.
    fn sweeps(model: &Self::Model, chains: &mut Self::Chains, rng: &mut Self::Rng, k: usize);

    /// `neg` ← s(v) with E[h|v] summed over the chains (cleared first): the negative phase.
    fn chain_stats(chains: &Self::Chains, neg: &mut Self::Stats);

    // --- Statistics ---

    /// Empty statistics for `model`'s shape.
    fn stats(model: &Self::Model) -> Self::Stats;

    /// `pos` ← s(v) with E[h|v] under `model` summed over the batch rows (cleared first): the
    /// positive phase, E_data[s]. `next`: chains that sweep from the batch or under the same
    /// model next, with which an engine may share work (the same numbers either way).
    fn positive_phase(
        model: &Self::Model,
        batch: &[f32],
        pos: &mut Self::Stats,
        next: Option<&mut Self::Chains>,
    );

    /// `neg` ← s(v₁) with E[h|v₁] for the mean-field reconstructions v₁ = E[v|h₀], h₀ = E[h|v]
    /// of the batch rows v (cleared first): MF-CD's negative phase (Welling & Hinton 2002).
    fn mean_field_stats(model: &Self::Model, batch: &[f32], neg: &mut Self::Stats);

    // --- Parameters (docs/algorithms.md §4) ---

    /// g = mean(pos) − mean(neg) − λ·W, then θ ← θ + η·g (or the momentum form).
    fn step(
        opt: &mut Self::Optimizer,
        model: &mut Self::Model,
        pos: &Self::Stats,
        neg: &Self::Stats,
        lr: f32,
    );

    /// The gradient g of the last [`Engine::step`].
    fn grad(opt: &Self::Optimizer) -> &Self::Params;

    /// Parameters of `model`'s shape, all zero.
    fn zeros(model: &Self::Model) -> Self::Params;

    /// `sum` ← `model` + `extra` (FPCD's chains run under θ + θ_F).
    fn set_sum(sum: &mut Self::Model, model: &Self::Model, extra: &Self::Params);

    /// x ← α·x + η·g, every block (FPCD's θ_F ← α·θ_F + η_F·g).
    fn decay_add(x: &mut Self::Params, alpha: f32, eta: f32, g: &Self::Params);

    /// The Frobenius norm ‖W‖ of a parameter set's weights, in f64.
    fn w_norm(x: &Self::Params) -> f64;

    /// A copy of `model` (FPCD's chain model starts as the lane's).
    fn copy(model: &Self::Model) -> Self::Model;

    // --- The centered parameterisation (CG, CS-DCP) ---

    /// The paper's start for `model` (S-DCP paper §4): μ = the data's mean, λ = 0.5, with
    /// sliding factors ν_μ, ν_λ.
    fn centered(
        model: &Self::Model,
        data: &Dataset,
        nu_mu: f32,
        nu_lambda: f32,
    ) -> Result<Self::Centered>;

    /// Per mini-batch: H = E[h|V] under θ_t and the batch means μ_batch, λ_batch. `next`: the
    /// chains that restart at the batch next, with which an engine may share work.
    fn begin_batch(
        c: &mut Self::Centered,
        model: &Self::Model,
        batch: &[f32],
        next: Option<&mut Self::Chains>,
    );

    /// Re-parameterises b̃, c̃ with the current W and slides μ, λ towards the batch means.
    fn slide(c: &mut Self::Centered);

    /// `pos` ← the centered sums ((v−μ)(H−λ)ᵀ, v, H) of the batch of [`Engine::begin_batch`].
    fn centered_data_stats(c: &mut Self::Centered, batch: &[f32], pos: &mut Self::Stats);

    /// `neg` ← the centered sums ((v−μ)(h−λ)ᵀ, v, h) of the chains, h = E[h|v].
    fn centered_chain_stats(c: &mut Self::Centered, chains: &Self::Chains, neg: &mut Self::Stats);

    /// θ̃ ← θ̃ + η (mean(pos) − mean(neg)) on the centered parameters, then `model` ← the plain
    /// parameters (W, b̃ − Wλ, c̃ − Wᵀμ).
    fn centered_step(
        c: &mut Self::Centered,
        opt: &mut Self::Optimizer,
        pos: &Self::Stats,
        neg: &Self::Stats,
        lr: f32,
        model: &mut Self::Model,
    );
}

//! Training lanes (docs/algorithms.md §4).
//!
//! Every algorithm estimates the positive phase the same way — E_data[s] on a mini-batch with
//! probabilities for h — and differs in how it estimates E_model[s] and how it steps. Each lives
//! in its own file behind [`Algorithm`] and is registered once in [`ALGORITHMS`]; a [`Lane`]
//! owns the model, the data order, the random streams, the compute bookkeeping and evaluation.

pub mod cd;
pub mod centered;
pub mod cg;
pub mod config;
pub mod csdcp;
pub mod fpcd;
pub mod lane;
pub mod mfcd;
pub mod optimizer;
pub mod pcd;
pub mod resume;
pub mod sdcp;
pub mod trace;
pub mod ucd;

pub use crate::engine::cpu::Chains;
pub use centered::Centered;
pub use config::LaneConfig;
pub use lane::{Lane, Record, View};
pub use optimizer::Optimizer;

use crate::cost::AlgoCost;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::{Rbm, Stats};
use crate::rng::Rng;
use crate::schema::{OptionSpec, StatSpec};

/// What one update did, for the compute axis and the per-algorithm curves.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Full Gibbs sweeps (h|v then v|h) spent per chain in this update (UCD: averaged over
    /// chains, counting both coupled chains; see `ucd`).
    pub sweeps: f64,
    /// v|h half-steps (samples of the visible layer) per chain, rejection proposals included
    /// (UCD: visible vectors actually drawn, a proposal shared by both chains counted once).
    pub vh_steps: f64,
    /// Per-algorithm statistics, e.g. UCD's `mean_tau`, each declared in the algorithm's
    /// [`AlgoInfo::stats`] (which says how values combine).
    pub stats: Vec<(&'static str, f64)>,
}

/// Everything an update may touch.
pub struct Ctx<'a> {
    /// The plain (W, b, c) model; algorithms with another parameterisation write it back here.
    pub model: &'a mut Rbm,
    /// The mini-batch, `rows × m` values.
    pub batch: &'a [f32],
    /// The lane's sampling stream.
    pub rng: &'a mut Rng,
    /// Learning rate η for this update.
    pub lr: f32,
    /// Applies θ ← θ + η·(pos − neg) with the lane's weight decay and momentum.
    pub opt: &'a mut Optimizer,
    /// Scratch positive statistics, sized for the model.
    pub pos: &'a mut Stats,
}

impl AlgoInfo {
    /// The declaration of statistic `key`, if this algorithm reports it.
    pub fn stat(&self, key: &str) -> Option<&'static StatSpec> {
        self.stats.iter().find(|s| s.key == key)
    }
}

impl Ctx<'_> {
    /// Number of rows in the mini-batch.
    pub fn rows(&self) -> usize {
        self.batch.len() / self.model.m()
    }

    /// Fills `self.pos` with E_data[s] on the mini-batch under the current model, with
    /// probabilities for h (the positive phase shared by every algorithm).
    pub fn positive_phase(&mut self) {
        self.positive_phase_into(&mut Vec::new());
    }

    /// [`Ctx::positive_phase`] with a caller-owned buffer for E[h|v] on the batch (resized to
    /// `rows × n`), so an algorithm's update path allocates nothing; the numbers are the same.
    pub fn positive_phase_into(&mut self, hp: &mut Vec<f32>) {
        hp.resize(self.rows() * self.model.n(), 0.0);
        self.model.hidden_probs(self.batch, hp);
        self.pos.clear();
        self.pos.add(self.batch, hp);
    }
}

impl Ctx<'_> {
    /// [`Ctx::positive_phase_into`] that also leaves the batch rows' hidden thresholds
    /// `t = 1 + e^{−(c + Wᵀv)}` in `t` (rows × n). E[h|v] = 1/t has the bits of
    /// [`Rbm::hidden_probs`], and a chain started at a batch row samples its hidden units by
    /// `u·t < 1` from these numbers ([`Chains::sample_hidden_at_rows`]) — CD's first half-sweep
    /// computed once per distinct row instead of once per chain, with the same bits.
    pub fn positive_phase_thresholds(&mut self, hp: &mut Vec<f32>, t: &mut Vec<f32>) {
        self.positive_phase_with(None, hp, t);
    }

    /// [`Ctx::positive_phase_thresholds`] from `chains`' pattern table where it applies
    /// ([`Chains::positive_phase`], the same bits): the data rows' patterns are then computed
    /// once for the positive phase and the chains' sweeps under the same model that follow.
    pub fn positive_phase_with(
        &mut self,
        chains: Option<&mut Chains>,
        hp: &mut Vec<f32>,
        t: &mut Vec<f32>,
    ) {
        let len = self.rows() * self.model.n();
        hp.resize(len, 0.0);
        t.resize(len, 0.0);
        let (model, batch) = (&*self.model, self.batch);
        if chains.is_some_and(|c| c.positive_phase(model, batch, (t, hp), self.pos)) {
            return;
        }
        self.model.hidden_pre(self.batch, hp);
        crate::math::one_plus_exp_neg(hp, t);
        hp.iter_mut().zip(t.iter()).for_each(|(p, &t)| *p = 1.0 / t);
        self.pos.clear();
        self.pos.add(self.batch, hp);
    }
}

/// A training algorithm: one parameter update per call (docs/algorithms.md §4).
pub trait Algorithm: Send {
    /// Performs one update on `cx.batch`, changing `cx.model`.
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report>;

    /// The chains' current visible states (`chains × m`), if the algorithm keeps any, for display.
    fn chain_states(&self) -> Option<&[f32]> {
        None
    }

    /// The lane's base learning rate η changed while it runs ([`Lane::set_live`]): an
    /// algorithm that derives a rate of its own from η (FPCD's default η_F) follows it.
    fn base_lr_changed(&mut self, _lr: f64) {}
    /// The stopping times τ of the latest update's chains as counts by τ (`counts[t]` chains
    /// stopped at τ = t), for algorithms whose chains stop at a random time (UCD: Qiu, Zhang &
    /// Wang 2020, §3.3).
    fn stopping_times(&self) -> Option<&[u32]> {
        None
    }
}

/// What an algorithm's constructor sees.
pub struct Setup<'a> {
    /// The whole lane configuration (algorithm options included).
    pub cfg: &'a LaneConfig,
    /// The initial model.
    pub model: &'a Rbm,
    /// The training data.
    pub data: &'a Dataset,
    /// Mini-batch size.
    pub batch: usize,
    /// Number of negative chains (defaults to the batch size).
    pub chains: usize,
}

/// A registered algorithm.
pub struct AlgoInfo {
    /// CLI and API name.
    pub name: &'static str,
    /// Label for the page.
    pub title: &'static str,
    /// Where it comes from.
    pub paper: &'static str,
    /// The options it reads besides [`config::GENERAL`] (declared in `config` when several
    /// algorithms share one, else in the algorithm's own file).
    pub options: &'static [&'static OptionSpec],
    /// The statistics its updates report in [`Report::stats`].
    pub stats: &'static [StatSpec],
    /// What it holds and spends beyond the plain model, for the cost model.
    pub cost: AlgoCost,
    /// Constructor.
    pub build: fn(&Setup) -> Result<Box<dyn Algorithm>>,
}

/// Every algorithm, in the order the page lists them. Adding one = one file + one line here.
/// The first is the default of [`LaneConfig::algo`].
pub const ALGORITHMS: &[&AlgoInfo] = &[
    &cd::INFO,
    &mfcd::INFO,
    &pcd::INFO,
    &fpcd::INFO,
    &sdcp::INFO,
    &cg::INFO,
    &csdcp::INFO,
    &ucd::INFO,
];

/// Looks an algorithm up by name.
pub fn find(name: &str) -> Result<&'static AlgoInfo> {
    ALGORITHMS
        .iter()
        .copied()
        .find(|a| a.name == name)
        .ok_or_else(|| {
            Error::option(
                "algo",
                format!(
                    "unknown algorithm '{name}' (known: {})",
                    ALGORITHMS
                        .iter()
                        .map(|a| a.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
}

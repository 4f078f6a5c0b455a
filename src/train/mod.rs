//! Training lanes (docs/algorithms.md §4).
//!
//! Every algorithm estimates the positive phase the same way — E_data[s] on a mini-batch with
//! probabilities for h — and differs in how it estimates E_model[s] and how it steps. Each lives
//! in its own file behind [`Algorithm`] and is registered once in [`ALGORITHMS`]; a [`Lane`]
//! owns the model, the data order, the random streams, the compute bookkeeping and evaluation.

pub mod cd;
pub mod cg;
pub mod config;
pub mod csdcp;
pub mod fpcd;
pub mod lane;
pub mod mfcd;
pub mod optimizer;
pub mod pcd;
pub mod pt;
pub mod resume;
pub mod sdcp;
pub mod trace;
pub mod ucd;

pub use config::LaneConfig;
pub use lane::{Lane, PendingRecord, Record, View};
pub use optimizer::Optimizer;

use crate::data::Dataset;
use crate::engine::{Cpu, Engine};
use crate::error::{Error, Result};
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

/// Everything an update may touch: the lane's objects on engine `E` (docs/algorithms.md §4).
pub struct Ctx<'a, E: Engine = Cpu> {
    /// The plain (W, b, c) model; algorithms with another parameterisation write it back here.
    pub model: &'a mut E::Model,
    /// The mini-batch, `rows × m` values.
    pub batch: &'a [f32],
    /// The lane's sampling stream.
    pub rng: &'a mut E::Rng,
    /// Learning rate η for this update.
    pub lr: f32,
    /// Applies θ ← θ + η·(pos − neg) with the lane's weight decay and momentum.
    pub opt: &'a mut E::Optimizer,
    /// Scratch positive statistics, sized for the model.
    pub pos: &'a mut E::Stats,
}

impl AlgoInfo {
    /// The declaration of statistic `key`, if this algorithm reports it.
    pub fn stat(&self, key: &str) -> Option<&'static StatSpec> {
        self.stats.iter().find(|s| s.key == key)
    }
}

impl<E: Engine> Ctx<'_, E> {
    /// `self.pos` ← E_data[s] on the mini-batch under the current model, with probabilities
    /// for h (the positive phase shared by every algorithm); `next`: the chains that sweep
    /// from the batch or under the same model next ([`Engine::positive_phase`]).
    pub fn positive_phase(&mut self, next: Option<&mut E::Chains>) {
        E::positive_phase(self.model, self.batch, self.pos, next);
    }

    /// θ ← θ + η·(mean(pos) − mean(neg)) with the positive phase in `self.pos`.
    pub fn step(&mut self, neg: &E::Stats) {
        E::step(self.opt, self.model, self.pos, neg, self.lr);
    }
}

impl Ctx<'_, Cpu> {
    /// The positive phase ([`Ctx::positive_phase`], the same bits) that also leaves the batch
    /// rows' E[h|v] in `hp` and hidden thresholds `t = 1 + e^{−(c + Wᵀv)}` in `t` (rows × n),
    /// for algorithms that run on the CPU engine only (UCD).
    pub fn positive_phase_thresholds(&mut self, hp: &mut Vec<f32>, t: &mut Vec<f32>) {
        crate::engine::cpu::positive_phase_thresholds(self.model, self.batch, self.pos, hp, t);
    }
}

/// A training algorithm on engine `E`: one parameter update per call (docs/algorithms.md §4).
pub trait Algorithm<E: Engine = Cpu>: Send {
    /// Performs one update on `cx.batch`, changing `cx.model`.
    fn update(&mut self, cx: &mut Ctx<'_, E>) -> Result<Report>;

    /// The chains' current visible states (`chains × m`), if the algorithm keeps any, for display.
    fn chain_states(&self) -> Option<&[f32]> {
        None
    }

    /// The chains as the engine holds them, if the algorithm keeps any (a shell that copies
    /// them back itself).
    fn chains(&self) -> Option<&E::Chains> {
        None
    }

    /// The fast parameters θ_F, if the algorithm keeps any (FPCD: Tieleman & Hinton 2009), for
    /// a shell whose engine takes their statistic ‖W_F‖ without waiting (a GPU in a browser).
    fn fast_params(&self) -> Option<&E::Params> {
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
pub struct Setup<'a, E: Engine = Cpu> {
    /// The whole lane configuration (algorithm options included).
    pub cfg: &'a LaneConfig,
    /// The initial model.
    pub model: &'a E::Model,
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

/// Where an algorithm's negative phase runs ([`AlgoCost::chains`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainKind {
    /// `chains` Gibbs chains held as v, h and E[h|v] (chains × (m + 2n) values).
    Full,
    /// `chains` chains run in small blocks; only their visible states are kept (chains × m).
    Visible,
    /// No chains: the negative phase runs on the mini-batch rows.
    Batch,
}

/// What an algorithm holds and spends beyond what every lane does, declared in its file next
/// to its options ([`AlgoInfo::cost`]): data only, which the cost model (`src/cost.rs`) turns
/// into a lane's memory and update time.
#[derive(Clone, Copy, Debug)]
pub struct AlgoCost {
    /// m×n f32 arrays it holds (negative statistics, fast parameters, a second model in its
    /// three layouts…).
    pub weight_sets: f64,
    /// batch × n f32 arrays it holds or makes per update (E[h|v] of the batch, UCD's
    /// thresholds, MF-CD's mean-field passes).
    pub batch_sets: f64,
    /// Where its negative phase runs.
    pub chains: ChainKind,
    /// Gibbs sweeps per chain and update (an estimate where the count is random), and the
    /// option that sets them (if one does).
    pub sweeps: fn(&LaneConfig) -> (f64, Option<&'static str>),
}

impl AlgoCost {
    /// An algorithm with `weight_sets` m×n arrays of its own, full chains and k sweeps.
    pub const fn k_sweeps(weight_sets: f64) -> AlgoCost {
        AlgoCost {
            weight_sets,
            batch_sets: 0.0,
            chains: ChainKind::Full,
            sweeps: |c| (c.k as f64, Some("k")),
        }
    }
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
    &pt::INFO,
];

/// The algorithm `info` on engine `E`, for the algorithms written against the engine trait
/// (all but UCD, whose coupled chains stop one by one and run on the CPU engine only). The
/// CPU engine builds through [`AlgoInfo::build`]; other engines through this.
pub fn build_on<E: Engine>(info: &AlgoInfo, s: &Setup<E>) -> Result<Box<dyn Algorithm<E>>> {
    Ok(match info.name {
        "cd" => Box::new(cd::Cd::<E>::new(s)),
        "mf-cd" => Box::new(mfcd::MfCd::<E>::new(s)),
        "pcd" => Box::new(pcd::Pcd::<E>::new(s)),
        "fpcd" => Box::new(fpcd::Fpcd::<E>::new(s)),
        "sdcp" => Box::new(sdcp::Sdcp::<E>::new(s)),
        "cg" => Box::new(cg::Cg::<E>::new(s)?),
        "cs-dcp" => Box::new(csdcp::Csdcp::<E>::new(s)?),
        "pt" => {
            return Err(Error::option(
                "algo",
                "pt runs on the CPU engine only (its replicas' models are rescaled on the host every update): train it with --device cpu",
            ))
        }
        other => {
            return Err(Error::option(
                "algo",
                format!("{other} runs on the CPU engine only (its coupled chains stop one by one): train it with --device cpu"),
            ))
        }
    })
}

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

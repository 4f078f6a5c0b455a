//! A training lane: one algorithm training one model on one data set, seeded, with the
//! compute bookkeeping, the exact evaluation the page plots and the views of its panels.
//!
//! A lane is built only within a shell's budget: its public constructors ([`Lane::new`],
//! [`Lane::within`], [`Lane::with_model`], [`Lane::resume`]) are defined with the cost model
//! (`src/cost/admit.rs`), which checks the configuration and estimates the lane before
//! `Lane::admitted` here allocates anything — so this module needs nothing of the cost model.

use super::{find, AlgoInfo, Algorithm, Ctx, LaneConfig, Report, Setup};
use crate::data::Dataset;
use crate::engine::{Cpu, Engine};
use crate::error::{Error, Result};
use crate::eval::distribution::{distribution, Distribution};
use crate::eval::exact;
use crate::model::Rbm;
use crate::rng::{shuffle, stream, Purpose, Rng};
use crate::schema::stats::Accumulator;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One evaluation point of a lane's curve.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CoreRecord"))]
pub struct Record {
    /// Updates done so far.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// Gibbs sweeps per chain spent so far (the equal-compute axis).
    pub sweeps: f64,
    /// v|h half-steps per chain spent so far.
    pub vh_steps: f64,
    /// Exact average log-likelihood of the training data, when the model is small enough.
    pub atll: Option<f64>,
    /// Exact log Z, alongside `atll`.
    pub log_z: Option<f64>,
    /// Per-algorithm statistics over the updates since the previous record.
    pub stats: BTreeMap<String, f64>,
}

/// What the page's panels show of a lane at one moment.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct View {
    /// Updates done.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// Visible units m.
    pub m: usize,
    /// Hidden units n.
    pub n: usize,
    /// W, m×n row-major (`w[i*n+j]` joins visible i and hidden j).
    #[serde(skip)]
    pub weights: Vec<f32>,
    /// The model distribution over the data's distinct patterns, when enumerable.
    pub dist: Option<Distribution>,
    /// The visible states (0/1) of the first chains (`count × m`), when the algorithm keeps
    /// chains.
    pub chains: Option<Vec<u8>>,
    /// The first few training rows (`count × m`, grey levels or 0/1) …
    pub originals: Vec<f32>,
    /// … and their reconstructions E[v | E[h|v]] under the model (`count × m`).
    pub reconstructions: Vec<f32>,
    /// The stopping times τ of the latest update's chains, as counts by τ (`taus[t]` chains
    /// stopped at τ = t), when the algorithm's chains stop at a random time (UCD).
    pub taus: Option<Vec<u32>>,
}

/// A record begun at an update ([`Lane::begin_record`]): its counters and the statistics of
/// the updates before it, waiting for the model of that update on the host.
#[derive(Clone, Debug)]
pub struct PendingRecord {
    iter: u64,
    sweeps: f64,
    vh_steps: f64,
    stats: BTreeMap<String, f64>,
}

impl PendingRecord {
    /// A record begun elsewhere (a job that advances many trials: `experiments::jobs`) at
    /// update `iter` with these counters, after updates that reported no statistics.
    pub(crate) fn at(iter: u64, sweeps: f64, vh_steps: f64) -> PendingRecord {
        PendingRecord {
            iter,
            sweeps,
            vh_steps,
            stats: BTreeMap::new(),
        }
    }

    /// The update the record is of.
    pub fn iter(&self) -> u64 {
        self.iter
    }

    /// Sets statistic `key` of the window, where its updates reported it, to `value`: the
    /// value of an engine that took the statistic on its device and hands it back with the
    /// record (FPCD's ‖W_F‖ on a GPU that cannot wait). False where no update reported it.
    pub fn set_stat(&mut self, key: &str, value: f64) -> bool {
        match self.stats.get_mut(key) {
            Some(v) => {
                *v = value;
                true
            }
            None => false,
        }
    }
}

/// How many training rows a view reconstructs.
pub const VIEW_RECONSTRUCTIONS: usize = 8;

/// A seeded training run of one algorithm, its dense work on engine `E` (the CPU's unless
/// said: a GPU lane is `Lane<rbm_gpu::Gpu>`, built by [`Lane::on`]).
pub struct Lane<E: Engine = Cpu> {
    cfg: LaneConfig,
    info: &'static AlgoInfo,
    seed: u64,
    data: Arc<Dataset>,
    /// The data the exact curve is computed on: the data themselves when binary, else their
    /// 0.5-threshold binarisation (docs/algorithms.md §2), copied only when the model is small
    /// enough for the exact curve.
    eval_data: Arc<Dataset>,
    /// Whether the data are binary (else each batch is binarised as `cfg.binarize` says).
    binary: bool,
    model: E::Model,
    last_good: Rbm,
    /// The update `last_good` is the model of.
    last_good_iter: u64,
    algo: Box<dyn Algorithm<E>>,
    opt: E::Optimizer,
    pos: E::Stats,
    rng_batch: Rng,
    rng_data: Rng,
    rng: E::Rng,
    order: Vec<usize>,
    cursor: usize,
    batch_size: usize,
    batch_buf: Vec<f32>,
    iter: u64,
    sweeps: f64,
    vh_steps: f64,
    window: BTreeMap<&'static str, Accumulator>,
    failed: Option<Error>,
    /// Whether the record at update 0 was made (by the first [`Lane::run_into`]).
    initial_recorded: bool,
    /// (update, log Z) of the latest record with an exact log Z: the model at that update has
    /// this log Z, which spares [`Lane::view`] an enumeration.
    recorded_log_z: Option<(u64, f64)>,
    /// Whether records carry the exact ATLL: the smaller layer has at most `exact_bits` units
    /// and the evaluation fits the budget the lane was built under (the cost model's estimate).
    exact: bool,
    /// Why the lane trains without the exact curve it would otherwise have (the page's budget).
    notice: Option<String>,
}

impl Lane<Cpu> {
    /// The lane of `cfg` on `data` on the CPU engine ([`Lane::admitted_on`]).
    pub(crate) fn admitted(
        cfg: LaneConfig,
        data: Arc<Dataset>,
        model: Option<Rbm>,
        exact: bool,
        notice: Option<String>,
    ) -> Result<Lane> {
        Lane::admitted_on(&(), cfg, data, model, exact, notice)
    }

    /// The current plain (W, b, c) model — after a divergence, the last finite one.
    pub fn model(&self) -> &Rbm {
        if self.failed.is_some() {
            &self.last_good
        } else {
            &self.model
        }
    }

    /// The gradient estimate g = pos − neg (− weight decay) of the last update.
    pub fn last_gradient(&self) -> &crate::model::Params<f32> {
        self.opt.grad()
    }
}

impl<E: Engine> Lane<E> {
    /// Sets the counters of a lane that has not run yet (one continued from a saved file).
    pub(super) fn set_counters(&mut self, iter: u64, sweeps: f64, vh_steps: f64) {
        debug_assert!(
            !self.initial_recorded,
            "counters are set before the first record"
        );
        self.iter = iter;
        self.sweeps = sweeps;
        self.vh_steps = vh_steps;
    }

    /// The lane of `cfg` on `data` on engine `E` at `dev` — from `model` when given (its
    /// visible units must be the data's), else a fresh model from the seed's `Init` stream
    /// (shared by all lanes of a seed, so lanes start from the same model) — once the cost model
    /// has admitted `cfg` within a budget (options, sizes and cost checked): `exact` whether its
    /// records carry the exact curve, `notice` why it trains without the one it would otherwise
    /// have.
    pub(crate) fn admitted_on(
        dev: &E::Device,
        cfg: LaneConfig,
        data: Arc<Dataset>,
        model: Option<Rbm>,
        exact: bool,
        notice: Option<String>,
    ) -> Result<Lane<E>> {
        let seed = cfg
            .seed
            .ok_or_else(|| Error::option("seed", "a lane needs a seed"))?;
        let model = match model {
            Some(m) if m.m() != data.m => {
                return Err(Error::Invalid(format!(
                    "the model has {} visible units but '{}' has {} per pattern",
                    m.m(),
                    data.name,
                    data.m
                )))
            }
            Some(m) => m,
            None => Rbm::init_scaled(
                &data,
                cfg.hidden,
                cfg.init,
                cfg.init_sigma,
                &mut stream(seed, 0, Purpose::Init),
            )?,
        };
        let batch_size = cfg.batch.unwrap_or(data.rows());
        let chains = cfg.chains.unwrap_or(batch_size);
        let binary = data.is_binary();
        // Grey-level data are copied thresholded only when an exact curve will use the copy
        // (a 784×500 MNIST lane never evaluates exactly; its copy would be 25 MB per lane).
        let eval_data = if binary || !exact {
            data.clone()
        } else {
            Arc::new(data.thresholded())
        };
        let info = find(&cfg.algo)?;
        let on_engine = E::upload(dev, &model);
        let algo = E::build(
            info,
            &Setup {
                cfg: &cfg,
                model: &on_engine,
                data: &data,
                batch: batch_size,
                chains,
            },
        )?;
        let m = data.m;
        Ok(Lane {
            opt: E::optimizer(&on_engine, cfg.weight_decay as f32, cfg.momentum as f32),
            pos: E::stats(&on_engine),
            rng_batch: stream(seed, cfg.lane, Purpose::Batch),
            rng_data: stream(seed, cfg.lane, Purpose::Data),
            rng: E::rng(dev, seed, cfg.lane),
            order: (0..data.rows()).collect(),
            cursor: data.rows(),
            batch_size,
            batch_buf: Vec::with_capacity(batch_size * m),
            iter: 0,
            sweeps: 0.0,
            vh_steps: 0.0,
            window: BTreeMap::new(),
            failed: None,
            initial_recorded: false,
            recorded_log_z: None,
            exact,
            notice,
            info,
            binary,
            eval_data,
            last_good: model,
            last_good_iter: 0,
            model: on_engine,
            algo,
            data,
            seed,
            cfg,
        })
    }

    /// The seed in use (drawn from the system if the configuration had none).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The configuration.
    pub fn config(&self) -> &LaneConfig {
        &self.cfg
    }

    /// The current plain (W, b, c) model on the host — after a divergence, the last finite
    /// one (a copy from the device where the engine keeps it elsewhere).
    pub fn host_model(&self) -> Cow<'_, Rbm> {
        if self.failed.is_some() {
            Cow::Borrowed(&self.last_good)
        } else {
            E::host(&self.model)
        }
    }

    /// (update, exact log Z) of the latest record with an exact curve.
    pub fn recorded_log_z(&self) -> Option<(u64, f64)> {
        self.recorded_log_z
    }

    /// The model of the latest record on the host (at first, the starting model) and its
    /// update: what a shell whose engine hands the model back later shows meanwhile.
    pub fn recorded_model(&self) -> (&Rbm, u64) {
        (&self.last_good, self.last_good_iter)
    }

    /// The update [`Lane::host_model`] is the model of: [`Lane::iter`], or after a divergence the
    /// update of the last record (a download of a diverged lane is named after it).
    pub fn model_iter(&self) -> u64 {
        if self.failed.is_some() {
            self.last_good_iter
        } else {
            self.iter
        }
    }

    /// Sets option `key` of a running lane, applied from its next update on, without
    /// rebuilding it (its model, chains, random streams and curve stay): only the options the
    /// schema marks `live` — η and its decay (θ ← θ + η·g, docs/algorithms.md §4), the weight
    /// decay and the momentum. Any other key, or a value the schema refuses, is an error that
    /// changes nothing.
    pub fn set_live(&mut self, key: &str, v: serde_json::Value) -> Result<()> {
        let spec = super::config::option(key)
            .ok_or_else(|| Error::option(key, format!("unknown option '{key}'")))?;
        if !spec.live {
            return Err(Error::option(
                key,
                format!(
                    "{} cannot change while the lane trains: the lane must be rebuilt",
                    spec.label
                ),
            ));
        }
        let mut cfg = self.cfg.clone();
        cfg.set(key, v)?;
        E::set_coefficients(&mut self.opt, cfg.weight_decay as f32, cfg.momentum as f32);
        if key == "lr" {
            self.algo.base_lr_changed(cfg.lr);
        }
        self.cfg = cfg;
        Ok(())
    }

    /// The training data.
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// Updates done so far.
    pub fn iter(&self) -> u64 {
        self.iter
    }

    /// Gibbs sweeps per chain spent so far.
    pub fn sweeps(&self) -> f64 {
        self.sweeps
    }

    /// v|h half-steps per chain spent so far.
    pub fn vh_steps(&self) -> f64 {
        self.vh_steps
    }

    /// The chains' visible states, if the algorithm keeps chains.
    pub fn chain_states(&self) -> Option<&[f32]> {
        self.algo.chain_states()
    }

    /// The stopping times τ of the latest update's chains as counts by τ, when the algorithm's
    /// chains stop at a random time (UCD).
    pub fn stopping_times(&self) -> Option<&[u32]> {
        self.algo.stopping_times()
    }

    /// Whether the lane's records carry the exact ATLL.
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Why the lane trains without the exact curve it would otherwise have (an exact
    /// evaluation over the budget of the page), if it does.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The error that stopped this lane, if any.
    pub fn failure(&self) -> Option<&Error> {
        self.failed.as_ref()
    }

    fn next_batch(&mut self) {
        let m = self.data.m;
        self.batch_buf.clear();
        if self.batch_size == self.data.rows() {
            self.batch_buf.extend_from_slice(&self.data.values);
        } else {
            for _ in 0..self.batch_size {
                if self.cursor == self.order.len() {
                    shuffle(&mut self.rng_batch, &mut self.order);
                    self.cursor = 0;
                }
                let r = self.order[self.cursor];
                self.cursor += 1;
                self.batch_buf
                    .extend_from_slice(&self.data.values[r * m..(r + 1) * m]);
            }
        }
        if !self.binary {
            self.cfg
                .binarize
                .apply(&mut self.batch_buf, &mut self.rng_data);
        }
    }

    /// The mini-batch of the last update (`rows × m`, binarised as it was used).
    pub fn last_batch(&self) -> &[f32] {
        &self.batch_buf
    }

    /// The learning rate of the next update (η, decayed when the schedule says so).
    pub fn next_lr(&self) -> f32 {
        self.lr()
    }

    /// The learning rate of the next update.
    fn lr(&self) -> f32 {
        let lr = self.cfg.lr;
        match self.cfg.lr_decay_iters {
            Some(t) => (lr * (1.0 - self.iter as f64 / t as f64).max(0.0)) as f32,
            None => lr as f32,
        }
    }

    /// One update. A non-finite parameter stops the lane with [`Error::Diverged`]; the model
    /// then stays at its last finite state (kept at every evaluation).
    pub fn step(&mut self) -> Result<Report> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.next_batch();
        let lr = self.lr();
        let mut cx = Ctx {
            model: &mut self.model,
            batch: &self.batch_buf,
            rng: &mut self.rng,
            lr,
            opt: &mut self.opt,
            pos: &mut self.pos,
        };
        let rep = self.algo.update(&mut cx)?;
        self.iter += 1;
        if E::ON_HOST {
            if let Some(what) = E::host(&self.model).non_finite() {
                return Err(self.diverged(what));
            }
        }
        self.sweeps += rep.sweeps;
        self.vh_steps += rep.vh_steps;
        for &(k, x) in &rep.stats {
            let how = self
                .info
                .stat(k)
                .map_or(crate::schema::Aggregate::Mean, |s| s.over_updates);
            self.window
                .entry(k)
                .or_insert_with(|| Accumulator::new(how))
                .add(x);
        }
        Ok(rep)
    }

    /// Stops the lane: a parameter became `what` (NaN, ±∞) at this update.
    fn diverged(&mut self, what: &str) -> Error {
        let e = Error::Diverged {
            iter: self.iter,
            what: what.to_string(),
        };
        self.failed = Some(e.clone());
        e
    }

    /// The current record: counters, window statistics, and the exact ATLL when the smaller
    /// layer has at most `exact_bits` units and the budget allows it ([`Lane::exact`]). Resets
    /// the statistics window.
    pub fn record(&mut self) -> Result<Record> {
        let pending = self.begin_record();
        let host = E::host(&self.model);
        if !E::ON_HOST {
            if let Some(what) = host.non_finite() {
                drop(host);
                return Err(self.diverged(what));
            }
        }
        let exact = if self.exact {
            let z = E::exact_log_z(&self.model, &host);
            Some(self.evaluate(&host, z)?)
        } else {
            None
        };
        self.last_good.clone_from(&host);
        drop(host);
        self.last_good_iter = self.iter;
        Ok(self.end_record(pending, exact))
    }

    /// The first half of [`Lane::record`] for an engine that hands its model back later (a GPU
    /// in the browser, which cannot wait for it): the counters now, and the statistics window
    /// (reset). [`Lane::finish_record`] completes it with the model of this update.
    pub fn begin_record(&mut self) -> PendingRecord {
        self.initial_recorded = true;
        PendingRecord {
            iter: self.iter,
            sweeps: self.sweeps,
            vh_steps: self.vh_steps,
            stats: std::mem::take(&mut self.window)
                .into_iter()
                .map(|(k, acc)| (k.to_string(), acc.value()))
                .collect(),
        }
    }

    /// Completes `pending` with `params`, the model's parameters at its update (copied back
    /// from the engine): the record [`Lane::record`] would have made there, the exact ATLL
    /// computed on the host in f64. A non-finite parameter stops the lane ([`Error::Diverged`]
    /// at that update; the last finite model stays).
    pub fn finish_record(
        &mut self,
        pending: PendingRecord,
        params: crate::model::Params<f32>,
    ) -> Result<Record> {
        let bad = params
            .blocks()
            .into_iter()
            .find(|(_, blk)| blk.iter().any(|x| !x.is_finite()));
        if let Some((what, _)) = bad {
            let e = Error::Diverged {
                iter: pending.iter,
                what: what.to_string(),
            };
            self.failed = Some(e.clone());
            return Err(e);
        }
        let host = Rbm::from_params(self.last_good.m(), self.last_good.n(), params)?;
        let exact = if self.exact {
            Some(self.evaluate(&host, None)?)
        } else {
            None
        };
        if pending.iter >= self.last_good_iter {
            self.last_good = host;
            self.last_good_iter = pending.iter;
        }
        Ok(self.end_record(pending, exact))
    }

    /// The exact (ATLL, log Z) of `host` on the lane's evaluation data, with log Z from the
    /// engine (`log_z`) or else enumerated in f64.
    fn evaluate(&self, host: &Rbm, log_z: Option<Result<f64>>) -> Result<(f64, f64)> {
        let e = match log_z {
            Some(z) => exact::evaluate_given(host, &self.eval_data, z?)?,
            None => exact::evaluate(host, &self.eval_data)?,
        };
        Ok((e.atll, e.log_z))
    }

    fn end_record(&mut self, p: PendingRecord, exact: Option<(f64, f64)>) -> Record {
        if let Some((_, z)) = exact {
            self.recorded_log_z = Some((p.iter, z));
        }
        Record {
            iter: p.iter,
            sweeps: p.sweeps,
            vh_steps: p.vh_steps,
            atll: exact.map(|e| e.0),
            log_z: exact.map(|e| e.1),
            stats: p.stats,
        }
    }

    /// The engine's own model (a GPU's buffers), for a shell that copies it back itself.
    pub fn engine_model(&self) -> &E::Model {
        &self.model
    }

    /// The engine's own chains, if the algorithm keeps chains.
    pub fn engine_chains(&self) -> Option<&E::Chains> {
        self.algo.chains()
    }

    /// The engine's own fast parameters θ_F, if the algorithm keeps any (FPCD).
    pub fn engine_fast_params(&self) -> Option<&E::Params> {
        self.algo.fast_params()
    }

    /// Runs `updates` updates, returning the initial record (first call only) and a record at
    /// every multiple of `every`. On divergence the error is returned; records already made are
    /// lost to the caller only if it ignores [`Lane::run_into`].
    pub fn run(&mut self, updates: u64) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        self.run_into(updates, &mut out)?;
        Ok(out)
    }

    /// Like [`Lane::run`], appending records to `out` as they are made, so a caller keeps
    /// every record made before a failure. The record at update 0 is made exactly once per
    /// lane, by the first call (even `run_into(0, …)`); every record is handed out once.
    pub fn run_into(&mut self, updates: u64, out: &mut Vec<Record>) -> Result<()> {
        self.run_while(updates, out, || true)
    }

    /// [`Lane::run_into`], stopping early between two updates once `go_on` says no (a shell's
    /// time slice ran out): the same updates and records as one run, in any slicing.
    pub fn run_while(
        &mut self,
        updates: u64,
        out: &mut Vec<Record>,
        mut go_on: impl FnMut() -> bool,
    ) -> Result<()> {
        if !self.initial_recorded {
            self.initial_recorded = true;
            out.push(self.record()?);
        }
        for i in 0..updates {
            if i > 0 && !go_on() {
                break;
            }
            self.step()?;
            if self.iter.is_multiple_of(self.cfg.every) {
                out.push(self.record()?);
            }
        }
        Ok(())
    }

    /// Takes the exact log Z of the current model, computed elsewhere (the page's evaluation
    /// pool, for a lane whose exact curve is deferred): the next [`Lane::view`] at this update
    /// shows the model distribution without enumerating again.
    pub fn take_log_z(&mut self, log_z: f64) {
        self.recorded_log_z = Some((self.iter, log_z));
    }

    /// What the panels show now: the weights, the model distribution over the data's distinct
    /// patterns (when the visible layer can be enumerated; right after a record, or after a
    /// failure, it reuses that record's exact log Z), the first `max_chains` chains and the
    /// reconstructions of the first training rows.
    pub fn view(&self, max_chains: usize) -> View {
        let model = self.host_model();
        let recorded = match self.recorded_log_z {
            Some((iter, z)) if iter == self.iter || self.failed.is_some() => Some(z),
            _ => None,
        };
        self.view_of(&model, self.iter, self.chain_states(), recorded, max_chains)
    }

    /// The view ([`Lane::view`]) of `model` at update `iter` with the chains' visible states
    /// `chains`: for a shell whose engine hands them back later. `log_z`: the model's exact log
    /// Z where known (else enumerated when the distribution is shown).
    pub fn view_of(
        &self,
        model: &Rbm,
        iter: u64,
        chains: Option<&[f32]>,
        log_z: Option<f64>,
        max_chains: usize,
    ) -> View {
        let dist = if model.m() <= exact::MAX_DIST_BITS && (self.exact || log_z.is_some()) {
            let z = log_z.or_else(|| exact::log_z(model).ok());
            z.map(|z| distribution(model, &self.data, z))
        } else {
            None
        };
        let m = model.m();
        let chains = chains.map(|c| {
            let count = max_chains.min(c.len() / m.max(1));
            c[..count * m].iter().map(|&x| u8::from(x >= 0.5)).collect()
        });
        let count = VIEW_RECONSTRUCTIONS.min(self.data.rows());
        let originals = self.data.values[..count * m].to_vec();
        let mut hp = vec![0.0f32; count * model.n()];
        let mut reconstructions = vec![0.0f32; count * m];
        model.hidden_probs(&originals, &mut hp);
        model.visible_probs(&hp, &mut reconstructions);
        View {
            iter,
            m,
            n: model.n(),
            weights: model.w().to_vec(),
            dist,
            chains,
            originals,
            reconstructions,
            taus: self.stopping_times().map(<[u32]>::to_vec),
        }
    }
}

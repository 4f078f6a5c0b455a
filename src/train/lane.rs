//! A training lane: one algorithm training one model on one data set, seeded, with the
//! compute bookkeeping and exact evaluation the page plots.

use super::{find, Algorithm, Ctx, Optimizer, Report, Setup};
use crate::data::Dataset;
use crate::error::{ensure, Error, Result};
use crate::eval::exact;
use crate::model::{check_size, Init, Rbm, Stats};
use crate::rng::{entropy_seed, shuffle, stream, Purpose, Rng};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most chain states a lane may hold (chains × visible units), to refuse requests that would
/// exhaust a browser tab.
pub const MAX_CHAIN_VALUES: usize = 1 << 26;

/// Everything that defines a lane. Field names are the CLI's flags and the wasm API's keys.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LaneConfig {
    /// Algorithm name (see [`super::ALGORITHMS`]).
    pub algo: String,
    /// Number of hidden units n.
    pub hidden: usize,
    /// Learning rate η.
    pub lr: f64,
    /// If set, η decays linearly to 0 over this many updates (Tieleman 2008).
    pub lr_decay_iters: Option<u64>,
    /// Gibbs sweeps per update (CD-k, PCD-k, FPCD, CG; UCD's k).
    pub k: usize,
    /// Number of negative chains; default: the batch size.
    pub chains: Option<usize>,
    /// Mini-batch size; default: the whole data set.
    pub batch: Option<usize>,
    /// Parameter initialisation.
    pub init: Init,
    /// Seed; when absent one is drawn from the system and reported in every record.
    pub seed: Option<u64>,
    /// Lane index: lanes with the same seed get independent sampling streams.
    pub lane: u64,
    /// Evaluate (exact ATLL when small enough) every this many updates.
    pub every: u64,
    /// Largest layer enumerated for the exact curve (2^bits states per evaluation).
    pub exact_bits: usize,
    /// L2 weight decay on W.
    pub weight_decay: f64,
    /// Momentum.
    pub momentum: f64,
    /// S-DCP / CS-DCP: inner steps d.
    pub d: usize,
    /// S-DCP / CS-DCP: Gibbs sweeps K′ per inner step.
    pub kprime: usize,
    /// CG / CS-DCP: sliding factor ν_μ of the visible offset.
    pub nu_mu: f64,
    /// CG / CS-DCP: sliding factor ν_λ of the hidden offset.
    pub nu_lambda: f64,
    /// FPCD: fast learning rate η_F (default η).
    pub fast_lr: Option<f64>,
    /// FPCD: decay α of the fast parameters.
    pub fast_decay: f64,
    /// UCD: cap T_max on the coupled steps.
    pub max_steps: usize,
}

impl Default for LaneConfig {
    fn default() -> Self {
        LaneConfig {
            algo: "cd".into(),
            hidden: 16,
            lr: 0.1,
            lr_decay_iters: None,
            k: 1,
            chains: None,
            batch: None,
            init: Init::Sdcp,
            seed: None,
            lane: 0,
            every: 10,
            exact_bits: 20,
            weight_decay: 0.0,
            momentum: 0.0,
            d: 3,
            kprime: 4,
            nu_mu: 0.01,
            nu_lambda: 0.01,
            fast_lr: None,
            fast_decay: 0.95,
            max_steps: 100,
        }
    }
}

fn finite_nonneg(x: f64, name: &str) -> Result<()> {
    ensure(x.is_finite() && x >= 0.0, || {
        format!("{name} must be a finite number ≥ 0, got {x}")
    })
}

fn unit_interval(x: f64, name: &str) -> Result<()> {
    ensure(x.is_finite() && (0.0..=1.0).contains(&x), || {
        format!("{name} must be in [0, 1], got {x}")
    })
}

impl LaneConfig {
    /// Checks every option against `data`, with a message naming the bad one.
    pub fn validate(&self, data: &Dataset) -> Result<()> {
        find(&self.algo)?;
        check_size(data.m, self.hidden)?;
        finite_nonneg(self.lr, "the learning rate")?;
        finite_nonneg(self.weight_decay, "weight decay")?;
        ensure(
            self.momentum.is_finite() && (0.0..1.0).contains(&self.momentum),
            || format!("momentum must be in [0, 1), got {}", self.momentum),
        )?;
        for (x, name) in [
            (self.k, "k"),
            (self.d, "d"),
            (self.kprime, "kprime"),
            (self.max_steps, "max_steps"),
        ] {
            ensure(x >= 1, || format!("{name} must be at least 1"))?;
            ensure(x <= 100_000, || {
                format!("{name} = {x} is more than the limit of 100000")
            })?;
        }
        ensure(self.every >= 1, || "every must be at least 1".into())?;
        unit_interval(self.nu_mu, "nu_mu")?;
        unit_interval(self.nu_lambda, "nu_lambda")?;
        unit_interval(self.fast_decay, "fast_decay")?;
        if let Some(f) = self.fast_lr {
            finite_nonneg(f, "fast_lr")?;
        }
        if let Some(b) = self.batch {
            ensure((1..=data.rows()).contains(&b), || {
                format!(
                    "batch must be between 1 and the {} rows of '{}', got {b}",
                    data.rows(),
                    data.name
                )
            })?;
        }
        if let Some(c) = self.chains {
            ensure(c >= 1, || "chains must be at least 1".into())?;
            let vals = c.saturating_mul(data.m.max(self.hidden));
            if vals > MAX_CHAIN_VALUES {
                return Err(Error::TooLarge(format!(
                    "{c} chains of {} units exceed the limit",
                    data.m
                )));
            }
        }
        ensure(self.lr_decay_iters != Some(0), || {
            "lr_decay_iters must be at least 1".into()
        })?;
        Ok(())
    }
}

/// One evaluation point of a lane's curve.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// Updates done so far.
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

/// A seeded training run of one algorithm.
pub struct Lane {
    cfg: LaneConfig,
    seed: u64,
    data: Arc<Dataset>,
    model: Rbm,
    last_good: Rbm,
    algo: Box<dyn Algorithm>,
    opt: Optimizer,
    pos: Stats,
    rng_batch: Rng,
    rng: Rng,
    order: Vec<usize>,
    cursor: usize,
    batch_size: usize,
    batch_buf: Vec<f32>,
    iter: u64,
    sweeps: f64,
    vh_steps: f64,
    window: BTreeMap<&'static str, (f64, f64)>,
    failed: Option<Error>,
}

impl Lane {
    /// A new lane: validates `cfg`, initialises the model from the seed's `Init` stream (shared
    /// by all lanes of a seed, so lanes start from the same model) and builds the algorithm.
    pub fn new(cfg: LaneConfig, data: Arc<Dataset>) -> Result<Lane> {
        Lane::build(cfg, data, None)
    }

    /// A lane that starts from a given model instead of a fresh initialisation (`cfg.hidden`
    /// and `cfg.init` are ignored; the model's sizes must fit the data).
    pub fn with_model(cfg: LaneConfig, data: Arc<Dataset>, model: Rbm) -> Result<Lane> {
        Lane::build(
            LaneConfig {
                hidden: model.n(),
                ..cfg
            },
            data,
            Some(model),
        )
    }

    fn build(cfg: LaneConfig, data: Arc<Dataset>, model: Option<Rbm>) -> Result<Lane> {
        cfg.validate(&data)?;
        let seed = cfg.seed.unwrap_or_else(entropy_seed);
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
            None => Rbm::init(
                &data,
                cfg.hidden,
                cfg.init,
                &mut stream(seed, 0, Purpose::Init),
            )?,
        };
        let batch_size = cfg.batch.unwrap_or(data.rows());
        let chains = cfg.chains.unwrap_or(batch_size);
        let algo = (find(&cfg.algo)?.build)(&Setup {
            cfg: &cfg,
            model: &model,
            data: &data,
            batch: batch_size,
            chains,
        })?;
        let (m, n) = (data.m, cfg.hidden);
        Ok(Lane {
            opt: Optimizer::new(m, n, cfg.weight_decay as f32, cfg.momentum as f32),
            pos: Stats::new(m, n),
            rng_batch: stream(seed, cfg.lane, Purpose::Batch),
            rng: stream(seed, cfg.lane, Purpose::Sampling),
            order: (0..data.rows()).collect(),
            cursor: data.rows(),
            batch_size,
            batch_buf: Vec::with_capacity(batch_size * m),
            iter: 0,
            sweeps: 0.0,
            vh_steps: 0.0,
            window: BTreeMap::new(),
            failed: None,
            last_good: model.clone(),
            model,
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

    /// The training data.
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// Updates done so far.
    pub fn iter(&self) -> u64 {
        self.iter
    }

    /// The chains' visible states, if the algorithm keeps chains.
    pub fn chain_states(&self) -> Option<&[f32]> {
        self.algo.chain_states()
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
            return;
        }
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
        if let Some(what) = self.model.non_finite() {
            let e = Error::Diverged {
                iter: self.iter,
                what: what.to_string(),
            };
            self.failed = Some(e.clone());
            return Err(e);
        }
        self.sweeps += rep.sweeps;
        self.vh_steps += rep.vh_steps;
        for &(k, x) in &rep.stats {
            let e = self.window.entry(k).or_insert((0.0, 0.0));
            if k.starts_with("max_") {
                e.0 = if e.1 == 0.0 { x } else { e.0.max(x) };
                e.1 = 1.0;
            } else {
                e.0 += x;
                e.1 += 1.0;
            }
        }
        Ok(rep)
    }

    /// The current record: counters, window statistics, and the exact ATLL when the smaller
    /// layer has at most `exact_bits` units. Resets the statistics window.
    pub fn record(&mut self) -> Result<Record> {
        let (atll, log_z) = if self.model.m().min(self.model.n()) <= self.cfg.exact_bits {
            let e = exact::evaluate(&self.model, &self.data)?;
            (Some(e.atll), Some(e.log_z))
        } else {
            (None, None)
        };
        let stats = std::mem::take(&mut self.window)
            .into_iter()
            .map(|(k, (s, c))| (k.to_string(), if k.starts_with("max_") { s } else { s / c }))
            .collect();
        self.last_good.clone_from(&self.model);
        Ok(Record {
            iter: self.iter,
            sweeps: self.sweeps,
            vh_steps: self.vh_steps,
            atll,
            log_z,
            stats,
        })
    }

    /// Runs `updates` updates, returning a record at iteration 0 (first call only) and at every
    /// multiple of `every`. On divergence the error is returned; records already made are lost
    /// to the caller only if it ignores [`Lane::run_into`].
    pub fn run(&mut self, updates: u64) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        self.run_into(updates, &mut out)?;
        Ok(out)
    }

    /// Like [`Lane::run`], appending records to `out` as they are made, so a caller keeps
    /// every record made before a failure.
    pub fn run_into(&mut self, updates: u64, out: &mut Vec<Record>) -> Result<()> {
        if self.iter == 0 && out.is_empty() {
            out.push(self.record()?);
        }
        for _ in 0..updates {
            self.step()?;
            if self.iter % self.cfg.every == 0 {
                out.push(self.record()?);
            }
        }
        Ok(())
    }
}

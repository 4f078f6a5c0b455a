//! Trials of an experiment: the seeds, the checkpoints, one trial's run, and the statistics
//! across trials (quantiles of the ATLL, each algorithm's statistics combined as its
//! [`StatSpec`] says, summaries). Shells run trials through [`Study::trial`] (the CLI on
//! threads), so trial i is the same numbers whoever runs it.
//!
//! The measure at each checkpoint is the preset's: on the small sets, the lanes' own exact ATLL
//! of the training data; on MNIST, the ATLL of the preset's evaluation set (`mnist-test`),
//! exact (enumerating the smaller layer, [`crate::eval::exact`]) or by AIS
//! ([`crate::eval::ais`]), computed by the trial between training segments, so the training
//! time it reports leaves the evaluations out.

use super::{jobs, AisSpec, Preset, Scale};
use crate::cost::{self, Budget};
use crate::data::Dataset;
use crate::engine::{Cpu, Engine};
use crate::error::{Error, Result};
use crate::eval::ais::{self, AisConfig, Plan};
use crate::eval::exact;
use crate::model::Rbm;
use crate::rng::{stream, Purpose};
use crate::schema::stats::{Accumulator, StatSpec};
use crate::schema::Aggregate;
use crate::train::{Lane, LaneConfig, Record};
use rand::Rng as _;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// The seed of trial `trial` of a run seeded `seed`: the first draw of the (seed, trial)
/// auxiliary stream, so trials are independent and each is reproducible on its own.
pub fn trial_seed(seed: u64, trial: u64) -> u64 {
    // 53 bits: a trial's seed stays exact as a JavaScript number, so the page can replay it.
    stream(seed, trial, Purpose::Aux).next_u64() >> 11
}

/// The updates at which a run of `iters` updates is evaluated: 0, every, 2·every, … and
/// `iters` itself.
pub fn schedule(iters: u64, every: u64) -> Vec<u64> {
    let every = every.max(1);
    let mut s: Vec<u64> = (0..=iters / every).map(|k| k * every).collect();
    if !iters.is_multiple_of(every) {
        s.push(iters);
    }
    s
}

/// The `p`-quantile of ascending `sorted` values by linear interpolation between order
/// statistics at position p·(N−1) (Hyndman & Fan type 7, numpy's default), so quantiles are
/// non-decreasing in `p`. −∞ entries (diverged trials) are allowed: an interpolation touching
/// one gives −∞. NaN for an empty slice.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = pos - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    if frac == 0.0 || a == b || a == f64::NEG_INFINITY {
        a
    } else {
        a + (b - a) * frac
    }
}

/// The across-trial statistics of one (lane, learning rate) at one checkpoint.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Checkpoint {
    /// Updates done.
    pub iter: u64,
    /// Epochs done (updates × batch / rows).
    pub epoch: f64,
    /// Median exact ATLL across trials (a diverged trial counts as −∞; JSON `null`).
    pub median: f64,
    /// 2.5% quantile (the UCD paper's band).
    pub q025: f64,
    /// 10% quantile.
    pub q10: f64,
    /// 90% quantile.
    pub q90: f64,
    /// 97.5% quantile.
    pub q975: f64,
    /// Mean ATLL across trials (the S-DCP paper's curves); −∞ if any trial diverged.
    pub mean: f64,
    /// Trials that had diverged (non-finite parameters) by this checkpoint.
    pub diverged: usize,
    /// Mean Gibbs sweeps per chain spent so far, over the trials still running.
    pub sweeps: f64,
    /// Mean v|h half-steps per chain spent so far, over the trials still running.
    pub vh_steps: f64,
    /// The lane's statistics over the updates since the previous checkpoint (e.g. UCD's
    /// `mean_tau`, `rejections`, `truncated`), combined across trials as each statistic's
    /// declaration says (mean, or maximum for UCD's `max_tau`).
    pub stats: BTreeMap<String, f64>,
    /// Mean wall-clock seconds spent training up to this checkpoint (evaluations left out),
    /// over the trials still running, when the shell timed the trials (Tieleman 2008 compares
    /// algorithms at equal training time); NaN (JSON `null`) otherwise. A timing field: it
    /// differs from run to run.
    pub train_seconds: f64,
}

/// One trial's records, one per checkpoint reached (a diverged trial has fewer), with the
/// training seconds spent up to each (when the shell gave a clock).
#[derive(Clone, Debug, Default)]
pub struct TrialRun {
    /// The records; `atll` and `log_z` are the preset's measure (see the module docs).
    pub records: Vec<Record>,
    /// Training seconds up to each record (evaluations left out); empty without a clock.
    pub train_seconds: Vec<f64>,
}

/// The ATLL of a model measured on a study's evaluation set.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Measure {
    atll: f64,
    log_z: f64,
}

/// The tag of the streams that seed each checkpoint's AIS run (`"CKPT"` in ASCII above any
/// checkpoint index), apart from every other use of a trial's seed.
const AIS_CHECKPOINT_TAG: u64 = 0x434B_5054 << 32;

/// The seed of the AIS run at checkpoint `k` of a trial seeded `trial_seed`: the same for
/// every lane and learning rate of the trial, so lanes are compared with common random
/// numbers (and the shared starting model gets one estimate).
pub fn ais_seed(trial_seed: u64, k: u64) -> u64 {
    stream(trial_seed, AIS_CHECKPOINT_TAG | k, Purpose::Aux).next_u64() >> 11
}

/// Most trials per (lane, learning rate) of a study.
pub const MAX_RUNS: usize = 100_000;
/// Trial indices stay below this (a study split over machines names its trials by index).
pub const MAX_TRIAL_INDEX: usize = 1 << 30;
/// Most checkpoints per trial (memory for the gathered curves).
pub const MAX_CHECKPOINTS: usize = 1_000_000;

/// A study's estimated cost ([`Study::estimate`]): what a shell says before a long study starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StudyCost {
    /// Seconds of training (one core each), over the lanes trained on the CPU.
    pub train_secs: f64,
    /// Seconds of the measurements at the checkpoints (one core each): the exact ATLL or AIS
    /// runs.
    pub eval_secs: f64,
    /// Wall seconds on the threads given.
    pub wall_secs: f64,
}

/// What a study may change from its preset's defaults (`None`: the preset's at `scale`).
#[derive(Clone, Debug, Default)]
pub struct StudyRequest {
    /// The settings the others default to: the preset's (shortened) defaults or the paper's
    /// ([`Preset::extent`]).
    pub scale: Scale,
    /// Run only these of the preset's algorithms.
    pub algos: Option<Vec<String>>,
    /// Learning rates instead of the preset's.
    pub rates: Option<Vec<f64>>,
    /// Trials per (lane, rate).
    pub runs: Option<usize>,
    /// The index of the first trial (default 0): the study runs trials `first..first + runs`,
    /// each seeded [`trial_seed`]`(seed, index)`, so a study can be split over machines by
    /// trial range and merged again (`rbm reproduce --trials`, `rbm summarize`).
    pub first: Option<usize>,
    /// Length in epochs (converted to updates with the preset's batch size).
    pub epochs: Option<u64>,
    /// Length in updates (ignored when `epochs` is given).
    pub iters: Option<u64>,
    /// Checkpoint interval in updates.
    pub every: Option<u64>,
    /// AIS particles instead of the preset's (AIS-measured presets only).
    pub particles: Option<usize>,
    /// AIS inverse temperatures instead of the preset's (AIS-measured presets only).
    pub betas: Option<usize>,
    /// Settings changed in every lane (the claims explorer's cells; none: the preset's).
    pub overrides: LaneOverrides,
}

/// Settings a study changes in every lane of its preset: a cell of the claims explorer
/// ([`super::explore`]). The lanes' seeds, streams and schedule stay the study's, so a study
/// whose overrides are the preset's own values is the preset's study, bit for bit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneOverrides {
    /// The standard deviation of the initial draws ([`LaneConfig::init_sigma`]).
    pub init_sigma: Option<f64>,
    /// Lane options by key (`k`, `d`, `kprime`, `chains`, `batch`, …), each set on every lane
    /// whose algorithm reads it (S-DCP's `d` leaves CD's lane alone, CD's `k` S-DCP's).
    pub options: Vec<(String, serde_json::Value)>,
}

impl LaneOverrides {
    /// Whether nothing is changed.
    pub fn is_empty(&self) -> bool {
        self.init_sigma.is_none() && self.options.is_empty()
    }

    /// Whether the lane of algorithm `algo` reads option `key`.
    fn reads(algo: &str, key: &str) -> Result<bool> {
        let a = crate::train::find(algo)?;
        Ok(crate::train::config::GENERAL
            .iter()
            .chain(a.options)
            .any(|o| o.key == key))
    }

    /// `cfg` with these settings applied where its algorithm reads them.
    pub fn apply(&self, cfg: &mut LaneConfig) -> Result<()> {
        if let Some(s) = self.init_sigma {
            cfg.init_sigma = Some(s);
        }
        for (key, v) in &self.options {
            if Self::reads(&cfg.algo, key)? {
                cfg.set(key, v.clone())?;
            }
        }
        Ok(())
    }

    /// The batch size set, if any.
    pub fn batch(&self) -> Option<usize> {
        self.options
            .iter()
            .find(|(k, _)| k == "batch")
            .and_then(|(_, v)| v.as_u64())
            .map(|b| b as usize)
    }
}

/// A paper's experiment as a plan of trials: which lanes at which rates, how many trials of
/// how many updates, and their seeds. Trial `r` of group `g` is the same numbers whichever
/// shell runs it, on whatever thread or worker.
#[derive(Debug)]
pub struct Study {
    /// The preset.
    pub preset: &'static Preset,
    /// The scale the request started from ([`StudyRequest::scale`]).
    pub scale: Scale,
    /// Its training data.
    pub data: Arc<Dataset>,
    /// The rows the ATLL is measured on, binary (grey levels thresholded at 0.5), when the
    /// preset names an evaluation set; `None`: the lanes' own exact records of the training
    /// data.
    pub eval: Option<Arc<Dataset>>,
    /// The AIS run at each checkpoint (with the request's particles and β), when the preset
    /// is measured by AIS.
    pub ais: Option<AisSpec>,
    /// The (lane index, learning rate) groups, lane-major in the preset's order.
    pub groups: Vec<(usize, f64)>,
    /// Trials per group.
    pub runs: usize,
    /// The index of the first trial: the study's trials are `first..first + runs`.
    pub first: usize,
    /// Updates per trial.
    pub iters: u64,
    /// Checkpoint interval.
    pub every: u64,
    /// The study's seed; trial r is seeded [`trial_seed`]`(seed, r)`.
    pub seed: u64,
    /// The measure of each trial's starting model, computed once: every lane and learning
    /// rate of a trial starts from the same model (its initialisation depends on the seed only).
    initial: Vec<OnceLock<Result<Measure>>>,
    /// Where the checkpoints' log Z is computed ([`Study::measure_log_z_on`]): None, the CPU.
    log_z_on: Option<Arc<dyn LogZEngine>>,
    /// Settings changed in every lane ([`StudyRequest::overrides`]).
    pub overrides: LaneOverrides,
}

/// An engine that computes a study's checkpoint measurements — the exact log Z (docs/algorithms.md
/// §2) and the AIS estimate of Salakhutdinov & Murray 2008 (§3) — itself (a GPU: `rbm
/// reproduce --device gpu`), for every trial and lane alike, so the numbers do not depend on
/// which lane measured a trial's starting model first. The ATLL is then the CPU's mean free
/// energy of the evaluation rows minus that log Z, as [`exact::average_log_likelihood`].
pub trait LogZEngine: Send + Sync + std::fmt::Debug {
    /// The exact log Z of `model`.
    fn exact(&self, model: &Rbm) -> Result<f64>;
    /// AIS's log Ẑ of `model` from the base model with visible biases `base` (the evaluation
    /// rows' base rates, [`ais::base_rates`]), with `cfg`'s particles, β and seed.
    fn ais(&self, model: &Rbm, base: &[f32], cfg: AisConfig) -> Result<f64>;
}

impl Study {
    /// The study `req` asks of preset `p`, seeded `seed`, on the core's built-in data sets;
    /// a preset on MNIST needs [`Study::with_data`].
    pub fn new(p: &'static Preset, req: &StudyRequest, seed: u64) -> Result<Study> {
        let eval = p.eval_data.map(Dataset::builtin).transpose()?;
        Study::with_data(p, req, seed, p.dataset()?, eval)
    }

    /// The study `req` asks of preset `p`, seeded `seed`, with the preset's training set `data`
    /// and evaluation set `eval` (named [`Preset::data`] and [`Preset::eval_data`]) as the
    /// shell loaded them; every lane's configuration is checked before anything runs.
    pub fn with_data(
        p: &'static Preset,
        req: &StudyRequest,
        seed: u64,
        data: Dataset,
        eval: Option<Dataset>,
    ) -> Result<Study> {
        Study::with_shared(p, req, seed, Arc::new(data), eval.map(Arc::new))
    }

    /// [`Study::with_data`] with data sets shared with other studies (the claims explorer's
    /// cells).
    pub fn with_shared(
        p: &'static Preset,
        req: &StudyRequest,
        seed: u64,
        data: Arc<Dataset>,
        eval: Option<Arc<Dataset>>,
    ) -> Result<Study> {
        if data.name != p.data {
            return Err(Error::Invalid(format!(
                "preset '{}' trains on '{}', not on '{}'",
                p.name, p.data, data.name
            )));
        }
        let eval = match (p.eval_data, eval) {
            (None, None) => None,
            (Some(want), Some(e)) if e.name == want => {
                if e.m != data.m {
                    return Err(Error::Invalid(format!(
                        "'{}' has {} units per pattern but '{}' has {}",
                        e.name, e.m, data.name, data.m
                    )));
                }
                Some(if e.is_binary() {
                    e
                } else {
                    Arc::new(e.thresholded())
                })
            }
            (want, got) => {
                return Err(Error::Invalid(format!(
                    "preset '{}' is measured on {} but was given {}",
                    p.name,
                    want.map_or("its training data".to_string(), |w| format!("'{w}'")),
                    got.map_or("no evaluation set".to_string(), |g| format!("'{}'", g.name))
                )))
            }
        };
        let base = p.extent(req.scale);
        let ais = match base.ais {
            Some(a) => Some(AisSpec {
                particles: req.particles.unwrap_or(a.particles),
                betas: req.betas.unwrap_or(a.betas),
            }),
            None => {
                for (key, given) in [
                    ("particles", req.particles.is_some()),
                    ("betas", req.betas.is_some()),
                ] {
                    if given {
                        return Err(Error::option(
                            key,
                            format!(
                                "preset '{}' measures the ATLL exactly; {key} applies to the \
                                 presets measured by AIS",
                                p.name
                            ),
                        ));
                    }
                }
                None
            }
        };
        let lanes: Vec<usize> = match &req.algos {
            None => (0..p.lanes.len()).collect(),
            Some(names) => {
                if let Some(bad) = names.iter().find(|n| !p.lanes.iter().any(|l| &l.algo == n)) {
                    let known: Vec<&str> = p.lanes.iter().map(|l| l.algo).collect();
                    return Err(Error::option(
                        "algos",
                        format!(
                            "preset '{}' has no algorithm '{bad}' (its algorithms: {})",
                            p.name,
                            known.join(", ")
                        ),
                    ));
                }
                (0..p.lanes.len())
                    .filter(|&i| names.iter().any(|n| n == p.lanes[i].algo))
                    .collect()
            }
        };
        let rates = req.rates.clone().unwrap_or_else(|| p.rates.to_vec());
        if rates.is_empty() {
            return Err(Error::option("lrs", "no learning rates given"));
        }
        let runs = req.runs.unwrap_or(base.trials);
        if !(1..=MAX_RUNS).contains(&runs) {
            return Err(Error::option(
                "runs",
                format!("runs must be between 1 and {MAX_RUNS}, got {runs}"),
            ));
        }
        let first = req.first.unwrap_or(0);
        if first
            .checked_add(runs)
            .is_none_or(|end| end > MAX_TRIAL_INDEX)
        {
            return Err(Error::option(
                "trials",
                format!("trial indices must stay below {MAX_TRIAL_INDEX}"),
            ));
        }
        let batch = req.overrides.batch().or(p.batch).unwrap_or(data.rows()) as u64;
        let iters = match (req.epochs, req.iters) {
            (Some(e), _) => e
                .checked_mul(data.rows() as u64)
                .map(|x| x.div_ceil(batch))
                .ok_or_else(|| Error::option("epochs", format!("{e} epochs is too many")))?,
            (None, Some(t)) => t,
            (None, None) => base.iters,
        };
        let every = req.every.unwrap_or(base.every);
        if every == 0 {
            return Err(Error::option("every", "every must be at least 1"));
        }
        let checkpoints = schedule(iters, every).len();
        if checkpoints > MAX_CHECKPOINTS {
            return Err(Error::option(
                "every",
                format!(
                    "{checkpoints} checkpoints per trial exceed the limit of {MAX_CHECKPOINTS}; \
                     evaluate less often"
                ),
            ));
        }
        let groups: Vec<(usize, f64)> = lanes
            .iter()
            .flat_map(|&li| rates.iter().map(move |&lr| (li, lr)))
            .collect();
        for (key, _) in &req.overrides.options {
            let mut read = false;
            for &li in &lanes {
                read |= LaneOverrides::reads(p.lanes[li].algo, key)?;
            }
            if !read {
                return Err(Error::option(
                    key,
                    format!("no lane of this study of preset '{}' reads {key}", p.name),
                ));
            }
        }
        for &(li, lr) in &groups {
            let mut cfg = p.lane_config_for(li, lr, seed, every, iters)?;
            req.overrides.apply(&mut cfg)?;
            let at = |e: Error| {
                let msg = format!(
                    "preset '{}', lane {} at lr {lr}: {e}",
                    p.name, p.lanes[li].label
                );
                match e.key() {
                    Some(k) => Error::option(k, msg),
                    None => Error::Invalid(msg),
                }
            };
            cfg.validate(&data).map_err(at)?;
            let bits = data.m.min(cfg.hidden);
            match (&eval, ais) {
                (None, _) if bits > cfg.exact_bits => {
                    return Err(Error::TooLarge(format!(
                        "preset '{}' is too large for the exact ATLL",
                        p.name
                    )))
                }
                (Some(_), None) => exact::check_enumerable(
                    bits,
                    exact::MAX_ENUM_BITS,
                    &format!("preset '{}': the exact ATLL", p.name),
                )?,
                (Some(_), Some(a)) => ais::check_config(
                    &Rbm::zeros(data.m, cfg.hidden)?,
                    &AisConfig {
                        particles: a.particles,
                        betas: a.betas,
                        seed: 0,
                        schedule: Default::default(),
                    },
                )?,
                _ => {}
            }
        }
        Ok(Study {
            preset: p,
            scale: req.scale,
            data,
            eval,
            ais,
            groups,
            runs,
            first,
            iters,
            every,
            seed,
            initial: (0..runs).map(|_| OnceLock::new()).collect(),
            log_z_on: None,
            overrides: req.overrides.clone(),
        })
    }

    /// The study with its checkpoints' log Z computed by `engine` (a GPU) instead of the CPU:
    /// other numbers than the CPU's (f32, other random streams), the same estimators.
    pub fn measure_log_z_on(mut self, engine: Arc<dyn LogZEngine>) -> Study {
        self.log_z_on = Some(engine);
        self
    }

    /// The configuration of group `group`'s lane for a trial seeded `seed`: the preset's, for
    /// this study's length; a lane measured by the study itself keeps no exact curve of its own.
    pub fn lane_config(&self, group: usize, seed: u64) -> Result<LaneConfig> {
        let (li, lr) = self.groups[group];
        let mut cfg = self
            .preset
            .lane_config_for(li, lr, seed, self.every, self.iters)?;
        self.overrides.apply(&mut cfg)?;
        if self.eval.is_some() {
            cfg.exact_bits = 0;
        }
        Ok(cfg)
    }

    /// The preset's measure of `model` on `eval` at checkpoint `k` of a trial seeded `seed`.
    fn measure(&self, eval: &Dataset, model: &Rbm, seed: u64, k: u64) -> Result<Measure> {
        let on = self.log_z_on.as_deref();
        let log_z = match (self.ais, on) {
            (None, None) => exact::log_z(model)?,
            (None, Some(e)) => e.exact(model)?,
            (Some(a), on) => {
                let cfg = AisConfig {
                    particles: a.particles,
                    betas: a.betas,
                    seed: ais_seed(seed, k),
                    schedule: Default::default(),
                };
                let Some(e) = on else {
                    let r = Plan::ais(model, eval, None, cfg)?.run()?;
                    return Ok(Measure {
                        atll: r.atll,
                        log_z: r.log_z,
                    });
                };
                e.ais(model, &ais::base_rates(eval), cfg)?
            }
        };
        Ok(Measure {
            atll: exact::average_log_likelihood(model, eval, log_z)?,
            log_z,
        })
    }

    /// The updates at which every trial is evaluated.
    pub fn schedule(&self) -> Vec<u64> {
        schedule(self.iters, self.every)
    }

    /// Epochs per update (batch / rows).
    pub fn epochs_per_iter(&self) -> f64 {
        let batch = self.overrides.batch().or(self.preset.batch);
        batch.unwrap_or(self.data.rows()) as f64 / self.data.rows() as f64
    }

    /// The trial indices of this study, `first..first + runs`.
    pub fn trials(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.runs
    }

    /// Estimates how long this study takes on `threads` threads of the machine `budget`
    /// assumes, by the cost model ([`crate::cost`]): each lane's updates (where `on_cpu(algo)`
    /// says its training runs on the CPU: a GPU's training is not estimated) and the
    /// measurements at the checkpoints — the lanes' own exact records on the small sets, the
    /// study's on its evaluation set (on the host for every engine; the starting model's once
    /// per trial), both at the CPU's speeds. Trials run whole, one per thread, so the wall time
    /// is at least the longest trial's.
    pub fn estimate(
        &self,
        budget: &Budget,
        threads: usize,
        on_cpu: impl Fn(&str) -> bool,
    ) -> Result<StudyCost> {
        let speed = &budget.speed;
        let records = self.schedule().len() as f64;
        // Measurements on another engine (a GPU) have no estimate here: not counted.
        let measure = match &self.eval {
            None => 0.0,
            Some(_) if self.log_z_on.is_some() => 0.0,
            Some(eval) => {
                let (m, n, rows) = (self.data.m, self.preset.hidden, eval.rows());
                match self.ais {
                    None => cost::exact_secs(m, n, rows, speed),
                    Some(a) => {
                        cost::ais_cost(m, n, a.particles, a.betas, speed).1
                            + cost::rows_secs(m, n, rows, speed)
                    }
                }
            }
        };
        let runs = self.runs as f64;
        // The starting model's measurement, once per trial.
        let (mut train, mut eval, mut longest) = (0.0, runs * measure, 0.0_f64);
        for g in 0..self.groups.len() {
            let cfg = self.lane_config(g, self.seed)?;
            let c = cost::check_lane(&cfg, &self.data, budget)?;
            let updates = if on_cpu(&cfg.algo) {
                self.iters as f64 * c.update_secs
            } else {
                0.0
            };
            // The lane's own exact records (the small sets), or the study's measurements.
            let checks = records * c.eval_secs.unwrap_or(0.0) + (records - 1.0) * measure;
            train += runs * updates;
            eval += runs * checks;
            longest = longest.max(updates + checks + measure);
        }
        let items = self.groups.len() * self.runs;
        let spread = (train + eval) / threads.clamp(1, items.max(1)) as f64;
        Ok(StudyCost {
            train_secs: train,
            eval_secs: eval,
            wall_secs: spread.max(longest),
        })
    }

    /// Runs trial `trial` (an index in [`Study::trials`]) of group `group`, recording at every checkpoint of
    /// [`Study::schedule`]; `clock` (seconds, any origin; `None` on a platform without one)
    /// times the training between checkpoints. A divergence ends the trial early with the
    /// records made so far (the missing checkpoints count as diverged in [`aggregate`]).
    pub fn trial(
        &self,
        group: usize,
        trial: usize,
        clock: Option<&mut dyn FnMut() -> f64>,
    ) -> Result<TrialRun> {
        self.trial_on::<Cpu>(&(), group, trial, clock)
    }

    /// [`Study::trial`] with the lane's dense work on engine `E` at `dev` (a GPU): the same
    /// seeds, schedule and measurements (those on the host, from the engine's model).
    pub fn trial_on<E: Engine>(
        &self,
        dev: &E::Device,
        group: usize,
        trial: usize,
        clock: Option<&mut dyn FnMut() -> f64>,
    ) -> Result<TrialRun> {
        self.trial_heard_on::<E>(dev, group, trial, clock, &mut |_| {})
    }

    /// [`Study::trial_on`], with `progress` hearing the updates done after each checkpoint
    /// (its records and measurements made), as [`Study::run_job`]'s does: a shell's account of
    /// a long study.
    pub fn trial_heard_on<E: Engine>(
        &self,
        dev: &E::Device,
        group: usize,
        trial: usize,
        mut clock: Option<&mut dyn FnMut() -> f64>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<TrialRun> {
        if !self.trials().contains(&trial) || group >= self.groups.len() {
            return Err(Error::Invalid(format!(
                "trial {trial} of group {group} is not in this study (trials {}..{}, {} groups)",
                self.first,
                self.first + self.runs,
                self.groups.len()
            )));
        }
        let seed = trial_seed(self.seed, trial as u64);
        let mut lane = Lane::on::<E>(dev, self.lane_config(group, seed)?, self.data.clone())?;
        let sched = self.schedule();
        let mut run = TrialRun {
            records: Vec::with_capacity(sched.len()),
            train_seconds: Vec::new(),
        };
        let mut spent = 0.0;
        for (k, &at) in sched.iter().enumerate() {
            let t0 = clock.as_mut().map(|c| c());
            let before = run.records.len();
            match lane.run_into(at - lane.iter(), &mut run.records) {
                Ok(()) => {}
                Err(Error::Diverged { .. }) => break,
                Err(e) => return Err(e),
            }
            if run.records.len() == before {
                // The last checkpoint of a run whose length is not a multiple of `every`.
                run.records.push(lane.record()?);
            }
            if let (Some(c), Some(t0)) = (clock.as_mut(), t0) {
                spent += c() - t0;
                run.train_seconds.push(spent);
            }
            if self.eval.is_some() {
                self.measure_into(&mut run, trial, seed, k, &lane.host_model())?;
            }
            progress(at);
        }
        Ok(run)
    }

    /// The preset's measure (on its evaluation set) of `model`, the model of `run`'s last
    /// record at checkpoint `k` of trial `trial` (seeded `seed`), put into that record; the
    /// starting model's is computed once per trial.
    fn measure_into(
        &self,
        run: &mut TrialRun,
        trial: usize,
        seed: u64,
        k: usize,
        model: &Rbm,
    ) -> Result<()> {
        let Some(eval) = &self.eval else {
            return Ok(());
        };
        let m = match k {
            0 => self.initial[trial - self.first]
                .get_or_init(|| self.measure(eval, model, seed, 0))
                .clone()?,
            _ => self.measure(eval, model, seed, k as u64)?,
        };
        if let Some(r) = run.records.last_mut() {
            r.atll = Some(m.atll);
            r.log_z = Some(m.log_z);
        }
        Ok(())
    }

    /// The trials of group `group` as a job's plans ([`jobs::TrialPlan`]), or why the group's
    /// lane cannot run as one: its algorithm is no program of engine operations a job runs
    /// (its updates read numbers back), or its updates are not all alike (mini-batches drawn
    /// by the lane, grey-level data binarised per batch, a decaying rate).
    pub fn job_plans(&self, group: usize) -> Result<Vec<jobs::TrialPlan>> {
        let mut plans: Vec<jobs::TrialPlan> = Vec::with_capacity(self.runs);
        for trial in self.trials() {
            let seed = trial_seed(self.seed, trial as u64);
            let cfg = self.lane_config(group, seed)?;
            let program = plans.first().map(|p| &p.program);
            let plan = jobs::TrialPlan::new(group, trial, seed, cfg, &self.data, program)?;
            plans.push(plan);
        }
        Ok(plans)
    }

    /// Runs the trials of `plans` ([`Study::job_plans`] of one or more groups) as one job on
    /// `job`, recording each at every checkpoint of [`Study::schedule`] as [`Study::trial`]
    /// does: the same counters, the exact ATLL of its model on the host in f64, the preset's
    /// measurements. `clock` times the training between checkpoints (the job's, the same for
    /// every trial); `progress` hears the updates done after each checkpoint. A diverged trial
    /// ends at the checkpoint that finds it non-finite, with the records made before.
    pub fn run_job(
        &self,
        job: &mut dyn jobs::ProgramJob,
        plans: &[jobs::TrialPlan],
        mut clock: Option<&mut dyn FnMut() -> f64>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<TrialRun>> {
        let mut run = jobs::JobRun::new(&self.data, self.schedule(), plans)?;
        let mut spent = 0.0;
        job.start(&self.data, plans)?;
        while let Some(at) = run.next() {
            let t0 = clock.as_mut().map(|c| c());
            let models = if at == 0 {
                None
            } else {
                job.advance(at - run.done())?;
                Some(job.models()?)
            };
            if let (Some(c), Some(t0)) = (clock.as_mut(), t0) {
                spent += c() - t0;
            }
            let seconds = clock.is_some().then_some(spent);
            run.checkpoint(models.as_deref(), seconds, &mut |r, p, k, model| {
                self.measure_into(r, p.trial, p.seed, k, model)
            })?;
            progress(at);
        }
        Ok(run.into_runs())
    }

    /// The across-trial checkpoints of group `group` from its trials' runs.
    pub fn checkpoints(&self, group: usize, trials: &[TrialRun]) -> Result<Vec<Checkpoint>> {
        let algo = self.preset.lanes[self.groups[group].0].algo;
        let stats = crate::train::find(algo)?.stats;
        let records: Vec<Vec<Record>> = trials.iter().map(|t| t.records.clone()).collect();
        let mut cps = aggregate(&records, &self.schedule(), self.epochs_per_iter(), stats)?;
        for (k, c) in cps.iter_mut().enumerate() {
            let times: Vec<f64> = trials
                .iter()
                .filter_map(|t| t.train_seconds.get(k).copied())
                .collect();
            if !times.is_empty() {
                c.train_seconds = times.iter().sum::<f64>() / times.len() as f64;
            }
        }
        Ok(cps)
    }
}

/// Combines the records of several trials of one lane, made at the updates of `schedule`
/// (trial records must follow it; a trial with fewer records diverged after its last one).
/// `epochs_per_iter` = batch / rows; `stats` are the algorithm's declared statistics (an
/// undeclared one is averaged). Fails if a record has no ATLL.
pub fn aggregate(
    trials: &[Vec<Record>],
    schedule: &[u64],
    epochs_per_iter: f64,
    stats_spec: &[StatSpec],
) -> Result<Vec<Checkpoint>> {
    let mut out = Vec::with_capacity(schedule.len());
    let mut atll = Vec::with_capacity(trials.len());
    for (k, &iter) in schedule.iter().enumerate() {
        atll.clear();
        let (mut sweeps, mut vh, mut alive) = (0.0, 0.0, 0usize);
        let mut stats: BTreeMap<String, Accumulator> = BTreeMap::new();
        for t in trials {
            let Some(r) = t.get(k) else {
                atll.push(f64::NEG_INFINITY);
                continue;
            };
            if r.iter != iter {
                return Err(Error::Invalid(format!(
                    "a trial was evaluated at update {} instead of {iter}",
                    r.iter
                )));
            }
            let a = r.atll.ok_or_else(|| {
                Error::TooLarge(
                    "the model is too large for the exact ATLL these statistics need".into(),
                )
            })?;
            atll.push(a);
            alive += 1;
            sweeps += r.sweeps;
            vh += r.vh_steps;
            for (key, &x) in &r.stats {
                let how = stats_spec
                    .iter()
                    .find(|s| s.key == key)
                    .map_or(Aggregate::Mean, |s| s.over_trials);
                stats
                    .entry(key.clone())
                    .or_insert_with(|| Accumulator::new(how))
                    .add(x);
            }
        }
        atll.sort_by(f64::total_cmp);
        let diverged = trials.len() - alive;
        let q = |p| quantile(&atll, p);
        let per = |s: f64| {
            if alive > 0 {
                s / alive as f64
            } else {
                f64::NAN
            }
        };
        out.push(Checkpoint {
            iter,
            epoch: iter as f64 * epochs_per_iter,
            median: q(0.5),
            q025: q(0.025),
            q10: q(0.1),
            q90: q(0.9),
            q975: q(0.975),
            mean: if diverged > 0 {
                f64::NEG_INFINITY
            } else {
                atll.iter().sum::<f64>() / atll.len().max(1) as f64
            },
            diverged,
            sweeps: per(sweeps),
            vh_steps: per(vh),
            stats: stats
                .into_iter()
                .map(|(key, acc)| (key, acc.value()))
                .collect(),
            train_seconds: f64::NAN,
        });
    }
    Ok(out)
}

/// The end-of-run summary of one (lane, learning rate).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// The last checkpoint (final median and quantiles).
    #[serde(rename = "final")]
    pub last: Checkpoint,
    /// Median ATLL at update 0.
    pub initial_median: f64,
    /// Largest median over the checkpoints.
    pub best_median: f64,
    /// First update at which the median is largest.
    pub best_iter: u64,
    /// The level of the "90% of max" time: initial + 0.9·(bound − initial).
    pub target: Option<f64>,
    /// First checkpoint (in updates) whose median reaches `target`; `None` if none does.
    pub t90_iter: Option<u64>,
    /// The same in epochs.
    pub t90_epoch: Option<f64>,
    /// First checkpoint whose median reaches initial + 0.9·(best median − initial): how soon
    /// the lane gets 90% of the way to its own best.
    pub t90_own_iter: Option<u64>,
}

/// Summarises a lane's checkpoints against the data set's `bound` (the largest achievable
/// ATLL, −H(data)).
///
/// The S-DCP paper marks "the epoch at which the model achieves 90% of the maximum ATLL"
/// without defining it further; since ATLL is negative, we read it as 90% of the way from the
/// starting value to the maximum: with A₀ the median ATLL at update 0 and B the bound, `t90` is
/// the first checkpoint whose median is ≥ A₀ + 0.9·(B − A₀). `t90_own` uses the lane's own best
/// median in place of B. Both use checkpoints only, so their resolution is the checkpoint
/// interval.
pub fn summarize(cps: &[Checkpoint], bound: Option<f64>) -> Option<Summary> {
    let first = cps.first()?;
    let a0 = first.median;
    let (mut best, mut best_iter) = (f64::NEG_INFINITY, first.iter);
    for c in cps {
        if c.median > best {
            best = c.median;
            best_iter = c.iter;
        }
    }
    let reach = |level: f64| cps.iter().find(|c| c.median >= level);
    let target = bound.map(|b| a0 + 0.9 * (b - a0));
    let t90 = target.and_then(reach);
    let own = if best.is_finite() {
        reach(a0 + 0.9 * (best - a0)).map(|c| c.iter)
    } else {
        None
    };
    Some(Summary {
        last: cps.last()?.clone(),
        initial_median: a0,
        best_median: best,
        best_iter,
        target,
        t90_iter: t90.map(|c| c.iter),
        t90_epoch: t90.map(|c| c.epoch),
        t90_own_iter: own,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::tests::fake_mnist;
    use crate::experiments::PresetLane;
    use crate::model::Init;

    /// A small stand-in of the MNIST presets: 8 hidden units, measured on `mnist-test`.
    const MEASURED: Preset = Preset {
        name: "test-mnist",
        title: "",
        paper: "",
        data: "mnist",
        eval_data: Some("mnist-test"),
        ais: None,
        hidden: 8,
        init: Init::Sdcp,
        chains: None,
        batch: Some(50),
        decay: true,
        lanes: &[
            PresetLane {
                algo: "pcd",
                label: "PCD",
                options: &[],
            },
            PresetLane {
                algo: "cd",
                label: "CD-1",
                options: &[],
            },
        ],
        rates: &[0.05],
        rate_notes: &[""],
        expect: "",
        claims: &[],
        iters: 30,
        every: 10,
        trials: 2,
        scale: "",
        paper_scale: None,
    };
    static EXACT: Preset = MEASURED;
    static BY_AIS: Preset = Preset {
        ais: Some(AisSpec {
            particles: 30,
            betas: 40,
        }),
        ..MEASURED
    };

    fn study(p: &'static Preset, req: &StudyRequest) -> Result<Study> {
        Study::with_data(
            p,
            req,
            9,
            fake_mnist("mnist", 2_100),
            Some(fake_mnist("mnist-test", 2_100)),
        )
    }

    /// The model a trial reaches at update `iters`, trained again on its own.
    fn retrained(s: &Study, group: usize, trial: usize, iters: u64) -> Rbm {
        let cfg = s
            .lane_config(group, trial_seed(s.seed, trial as u64))
            .unwrap();
        let mut lane = Lane::new(cfg, s.data.clone()).unwrap();
        lane.run(iters).unwrap();
        lane.model().clone()
    }

    /// A measured trial's records carry the exact ATLL of the (thresholded) test set, of the
    /// model at each checkpoint; the starting model's, shared by every lane, is computed once;
    /// the clock times the training segments only.
    #[test]
    fn measured_trials_report_the_exact_test_atll_at_each_checkpoint() {
        let s = study(&EXACT, &StudyRequest::default()).unwrap();
        let test = s.eval.clone().unwrap();
        assert!(test.is_binary() && test.rows() == 1_000);
        let cfg = s.lane_config(0, 1).unwrap();
        assert_eq!((cfg.exact_bits, cfg.lr_decay_iters), (0, Some(30)));
        let mut t = 0.0;
        let mut clock = || {
            t += 1.0;
            t
        };
        let pcd = s.trial(0, 1, Some(&mut clock)).unwrap();
        let cd = s.trial(1, 1, None).unwrap();
        let iters: Vec<u64> = pcd.records.iter().map(|r| r.iter).collect();
        assert_eq!(iters, [0, 10, 20, 30]);
        // Each segment reads the clock twice, one tick apart.
        assert_eq!(pcd.train_seconds, [1.0, 2.0, 3.0, 4.0]);
        assert!(cd.train_seconds.is_empty());
        let bits = |r: &Record| r.atll.unwrap().to_bits();
        assert_eq!(bits(&pcd.records[0]), bits(&cd.records[0]));
        assert_ne!(bits(&pcd.records[3]), bits(&cd.records[3]));
        for (group, run) in [(0, &pcd), (1, &cd)] {
            for (k, at) in [(0usize, 0u64), (2, 20), (3, 30)] {
                let model = retrained(&s, group, 1, at);
                let log_z = exact::log_z(&model).unwrap();
                let want = exact::average_log_likelihood(&model, &test, log_z).unwrap();
                assert_eq!(
                    run.records[k].atll,
                    Some(want),
                    "group {group}, update {at}"
                );
                assert_eq!(run.records[k].log_z, Some(log_z));
            }
        }
        let two = [pcd.clone(), s.trial(0, 0, Some(&mut || 5.0)).unwrap()];
        let cps = s.checkpoints(0, &two).unwrap();
        assert_eq!(cps[3].train_seconds, 2.0, "the mean of 4 and 0");
        assert!(cps[3].median.is_finite());
    }

    /// An AIS-measured preset runs AIS on the test set at each checkpoint, seeded per trial and
    /// checkpoint (common to the lanes), with the request's particles and β.
    #[test]
    fn ais_measured_trials_use_the_checkpoint_seed() {
        let req = StudyRequest {
            betas: Some(30),
            ..StudyRequest::default()
        };
        let s = study(&BY_AIS, &req).unwrap();
        assert_eq!(
            s.ais,
            Some(AisSpec {
                particles: 30,
                betas: 30
            })
        );
        let run = s.trial(1, 0, None).unwrap();
        let seed = trial_seed(s.seed, 0);
        let test = s.eval.clone().unwrap();
        for (k, at) in [(0usize, 0u64), (3, 30)] {
            let model = retrained(&s, 1, 0, at);
            let cfg = AisConfig {
                particles: 30,
                betas: 30,
                seed: ais_seed(seed, k as u64),
                schedule: Default::default(),
            };
            let want = Plan::ais(&model, &test, None, cfg).unwrap().run().unwrap();
            assert_eq!(run.records[k].atll, Some(want.atll));
            assert_eq!(run.records[k].log_z, Some(want.log_z));
        }
        assert_ne!(ais_seed(seed, 0), ais_seed(seed, 1));
    }

    /// `--scale paper` starts a study from the preset's paper scale; flags beside it still
    /// override each setting; a preset without one runs its defaults at either scale.
    #[test]
    fn a_paper_scale_request_plans_the_papers_study() {
        static PAPER: Preset = Preset {
            paper_scale: Some(super::super::Extent {
                trials: 3,
                iters: 60,
                every: 20,
                ais: Some(AisSpec {
                    particles: 20,
                    betas: 50,
                }),
            }),
            ..BY_AIS
        };
        let paper = StudyRequest {
            scale: Scale::Paper,
            ..StudyRequest::default()
        };
        let s = study(&PAPER, &paper).unwrap();
        assert_eq!(
            (s.scale, s.runs, s.iters, s.every),
            (Scale::Paper, 3, 60, 20)
        );
        assert_eq!(s.schedule(), [0, 20, 40, 60]);
        assert_eq!(s.ais, PAPER.paper_scale.unwrap().ais);
        let reduced = study(&PAPER, &StudyRequest::default()).unwrap();
        assert_eq!(
            (reduced.scale, reduced.runs, reduced.iters, reduced.ais),
            (Scale::Reduced, 2, 30, BY_AIS.ais)
        );
        let flags = StudyRequest {
            runs: Some(1),
            epochs: Some(1),
            every: Some(7),
            betas: Some(40),
            ..paper.clone()
        };
        let s = study(&PAPER, &flags).unwrap();
        let epoch = (s.data.rows() as u64).div_ceil(50);
        assert_eq!((s.runs, s.iters, s.every), (1, epoch, 7));
        assert_eq!(
            s.ais,
            Some(AisSpec {
                particles: 20,
                betas: 40
            })
        );
        let same = study(&EXACT, &paper).unwrap();
        assert_eq!(
            (same.runs, same.iters, same.every, same.ais),
            (EXACT.trials, EXACT.iters, EXACT.every, None)
        );
    }

    /// The cost model's estimate of a study: the paper scale of `sdcp-mnist` (30 trials of
    /// 8 000 updates of a 784×500 model and 201 AIS runs of 100 × 10 000 β each) takes hours
    /// on 16 cores, its reduced default minutes; training on a GPU leaves only the
    /// measurements, which stay on the host.
    #[test]
    fn a_paper_scale_study_is_estimated_long_on_the_cpu() {
        let p = super::super::find_preset("sdcp-mnist").unwrap();
        let at = |scale, threads, on_cpu: bool| {
            let req = StudyRequest {
                scale,
                ..StudyRequest::default()
            };
            let s = Study::with_data(
                p,
                &req,
                1,
                fake_mnist("mnist", 10_000),
                Some(fake_mnist("mnist-test", 10_000)),
            )
            .unwrap();
            assert_eq!(s.data.rows(), 8_000);
            s.estimate(&crate::cost::CLI, threads, |_| on_cpu).unwrap()
        };
        let paper = at(Scale::Paper, 16, true);
        let reduced = at(Scale::Reduced, 16, true);
        assert!(paper.wall_secs > 3600.0, "{paper:?}");
        assert!(reduced.wall_secs < 600.0, "{reduced:?}");
        let one = at(Scale::Paper, 1, true);
        assert!((one.wall_secs - (one.train_secs + one.eval_secs)).abs() < 1e-6 * one.wall_secs);
        assert!((paper.wall_secs - one.wall_secs / 16.0).abs() < 1e-6 * one.wall_secs);
        let gpu = at(Scale::Paper, 16, false);
        assert_eq!((gpu.train_secs, gpu.eval_secs), (0.0, paper.eval_secs));
        // 30 trials: a measurement at each of the 200 epochs per lane, and update 0's once.
        let per = paper.eval_secs / (10.0 * (1.0 + 200.0 * 3.0));
        let (m, n) = (784, 500);
        let want = crate::cost::ais_cost(m, n, 100, 10_000, &crate::cost::CLI.speed).1
            + crate::cost::rows_secs(m, n, 1_000, &crate::cost::CLI.speed);
        assert!((per - want).abs() < 1e-9 * want, "{per} vs {want}");
    }

    #[test]
    fn a_study_refuses_what_its_preset_does_not_measure_that_way() {
        let betas = StudyRequest {
            betas: Some(100),
            ..StudyRequest::default()
        };
        assert_eq!(study(&EXACT, &betas).unwrap_err().key(), Some("betas"));
        let wrong = Study::with_data(
            &EXACT,
            &StudyRequest::default(),
            1,
            fake_mnist("mnist", 2_100),
            Some(fake_mnist("mnist-valid", 2_100)),
        );
        assert!(wrong.unwrap_err().to_string().contains("mnist-test"));
        let missing = Study::with_data(
            &EXACT,
            &StudyRequest::default(),
            1,
            fake_mnist("mnist", 2_100),
            None,
        );
        assert!(missing.is_err());
        // The core does not build MNIST in: the shells load it.
        assert!(Study::new(&EXACT, &StudyRequest::default(), 1).is_err());
        let too_many = StudyRequest {
            betas: Some(crate::eval::ais::MAX_BETAS + 1),
            ..StudyRequest::default()
        };
        assert!(study(&BY_AIS, &too_many).is_err());
    }

    fn rec(iter: u64, atll: f64, tau: f64) -> Record {
        Record {
            iter,
            sweeps: iter as f64,
            vh_steps: iter as f64,
            atll: Some(atll),
            log_z: Some(0.0),
            stats: [
                ("mean_tau".to_string(), tau),
                ("max_tau".to_string(), 2.0 * tau),
            ]
            .into_iter()
            .collect(),
        }
    }

    #[test]
    fn quantiles_interpolate_and_are_ordered() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&xs, 0.5), 3.0);
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&xs, 1.0), 5.0);
        assert!((quantile(&xs, 0.1) - 1.4).abs() < 1e-12);
        assert!((quantile(&[0.0, 10.0], 0.975) - 9.75).abs() < 1e-12);
        let ys = [f64::NEG_INFINITY, f64::NEG_INFINITY, -3.0, -2.5, -2.0, -1.0];
        let qs: Vec<f64> = [0.025, 0.1, 0.5, 0.9, 0.975]
            .iter()
            .map(|&p| quantile(&ys, p))
            .collect();
        assert!(qs.windows(2).all(|w| w[0] <= w[1]), "{qs:?}");
        assert_eq!(qs[0], f64::NEG_INFINITY);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn schedule_ends_at_the_last_update() {
        assert_eq!(schedule(10, 5), vec![0, 5, 10]);
        assert_eq!(schedule(12, 5), vec![0, 5, 10, 12]);
        assert_eq!(schedule(0, 5), vec![0]);
    }

    #[test]
    fn aggregate_counts_diverged_trials_and_averages_statistics() {
        let sched = schedule(20, 10);
        let trials = vec![
            vec![rec(0, -5.0, 0.0), rec(10, -3.0, 2.0), rec(20, -2.5, 3.0)],
            vec![rec(0, -5.0, 0.0), rec(10, -4.0, 4.0)],
            vec![rec(0, -5.0, 0.0), rec(10, -3.5, 6.0), rec(20, -3.0, 1.0)],
        ];
        let cps = aggregate(&trials, &sched, 0.5, crate::train::ucd::INFO.stats).unwrap();
        assert_eq!(cps.len(), 3);
        assert_eq!(cps[1].median, -3.5);
        assert_eq!(cps[1].stats["mean_tau"], 4.0);
        assert_eq!(cps[1].stats["max_tau"], 12.0);
        assert_eq!(cps[1].epoch, 5.0);
        assert_eq!(cps[2].diverged, 1);
        assert_eq!(cps[2].median, -3.0);
        assert_eq!(cps[2].q025, f64::NEG_INFINITY);
        assert_eq!(cps[2].mean, f64::NEG_INFINITY);
        assert_eq!(cps[2].sweeps, 20.0);
        assert!((cps[1].mean + 3.5).abs() < 1e-12);
        let bad = vec![vec![rec(0, -5.0, 0.0), rec(7, -3.0, 0.0)]];
        assert!(aggregate(&bad, &sched, 1.0, &[]).is_err());
    }

    #[test]
    fn summary_finds_the_first_checkpoint_at_ninety_percent_of_the_way() {
        let sched = schedule(40, 10);
        // Medians -10, -6, -2.9, -2.2, -2.5 with bound -2: target = -10 + 0.9·8 = -2.8.
        let med = [-10.0, -6.0, -2.9, -2.2, -2.5];
        let trials = vec![sched
            .iter()
            .zip(med)
            .map(|(&i, a)| rec(i, a, 1.0))
            .collect::<Vec<_>>()];
        let cps = aggregate(&trials, &sched, 1.0, &[]).unwrap();
        let s = summarize(&cps, Some(-2.0)).unwrap();
        assert!((s.target.unwrap() + 2.8).abs() < 1e-12);
        assert_eq!(s.t90_iter, Some(30));
        assert_eq!(s.best_median, -2.2);
        assert_eq!(s.best_iter, 30);
        // Own best -2.2: level -10 + 0.9·7.8 = -2.98, first reached at 20.
        assert_eq!(s.t90_own_iter, Some(20));
        assert_eq!(s.last.iter, 40);
        assert_eq!(summarize(&cps, Some(0.0)).unwrap().t90_iter, None);
    }
}

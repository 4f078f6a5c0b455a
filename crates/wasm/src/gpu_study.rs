//! A page study's trials as one GPU job (issue 30: "all 250 trials of `sdcp-shifting-bar`
//! advance together"): the lanes of a small-data study that a job runs
//! (`rbm_core::experiments::jobs::TrialPlan::new`, `rbm_gpu::study::fits`) train together on
//! the worker's GPU, one workgroup per trial (`rbm_gpu::study::StudyJob`), in one worker. Built
//! only with the `gpu` feature (`www/pkg-gpu`).
//!
//! The worker cannot wait for its GPU: each [`WasmStudyJob::step`] records at most a bounded
//! number of updates (paced by a one-float fence copied back behind them, so the GPU's queue
//! stays about one slice long and Pause and Stop answer at once), and the trials' models at a
//! checkpoint come back as a copy taken there (`StudyJob::copy_models`) on a later call. The
//! records are then made on the host by `rbm_core::experiments::jobs::JobRun` as
//! `Study::trial` makes them — its lane's counters, the exact ATLL in f64 — and handed to the
//! page as each trial's records (the page's trial points). Update 0's are the starting
//! models', measured on the host: the CPU study's, bit for bit.

use crate::gpu::{adapter_name, opened};
use crate::{dataset, defer, js_err, to_js};
use rbm_core::error::{Error, ErrorInfo};
use rbm_core::experiments::jobs::{JobRun, ProgramJob, TrialPlan};
use rbm_core::experiments::trials::{schedule, trial_seed};
use rbm_core::train::{LaneConfig, Record};
use rbm_gpu::device::Fence;
use rbm_gpu::study::{fits, ModelsCopy, StudyJob};
use rbm_gpu::Device;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// Checkpoints' copies on their way back at once: the job trains on while the last one comes.
const IN_FLIGHT: usize = 2;

/// One lane of a job's request: the page's lane index, its configuration (as a trial worker
/// is sent it; each trial's seed replaces the configuration's) and its trials' indices.
#[derive(Deserialize)]
struct LaneRequest {
    lane: usize,
    config: serde_json::Value,
    trials: Vec<usize>,
}

/// What the page asks of a job: its data set, the study's seed, length and evaluation
/// interval, and the lanes.
#[derive(Deserialize)]
struct JobRequest {
    dataset: String,
    seed: f64,
    until: u64,
    every: u64,
    lanes: Vec<LaneRequest>,
}

/// A lane the job leaves to the CPU, and why.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JobRefusal {
    /// The page's lane index.
    pub lane: usize,
    /// Why the job does not run it.
    pub why: String,
}

/// The records of one trial made in a call.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JobTrialRecords {
    /// The page's lane index.
    pub lane: usize,
    /// The trial's index in the study.
    pub trial: usize,
    /// Its new records, in update order.
    pub records: Vec<Record>,
}

/// One call's outcome ([`WasmStudyJob::step`]).
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JobSlice {
    /// The trials' records made in this call.
    pub trials: Vec<JobTrialRecords>,
    /// Updates every trial has been given so far.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub updates: u64,
    /// Every checkpoint's records are made.
    pub done: bool,
    /// The error that stopped the job (its GPU lost, a refused copy): its trials run again on
    /// the CPU.
    pub error: Option<ErrorInfo>,
}

/// A study's trials as one job on the worker's GPU (opened before by `gpuAdapter`).
#[wasm_bindgen]
pub struct WasmStudyJob {
    job: StudyJob,
    run: JobRun,
    schedule: Vec<u64>,
    /// Copies of the models at the checkpoints reached, oldest first.
    copies: VecDeque<ModelsCopy>,
    /// A one-float copy behind the latest updates recorded: none are added until it is in.
    fence: Fence,
    dev: Arc<Device>,
    adapter: String,
    /// (page lane, trial index) of each plan.
    who: Vec<(usize, usize)>,
    lanes: Vec<usize>,
    refused: Vec<JobRefusal>,
    failed: Option<ErrorInfo>,
}

/// The plans of `lane`'s trials, or why the job cannot run it.
fn lane_plans(
    req: &LaneRequest,
    group: usize,
    seed: u64,
    data: &Arc<rbm_core::data::Dataset>,
) -> Result<Vec<TrialPlan>, Error> {
    let obj = req
        .config
        .as_object()
        .ok_or_else(|| Error::Invalid("the lane configuration must be an object".into()))?;
    let base = LaneConfig::from_object(obj)?;
    let mut plans: Vec<TrialPlan> = Vec::with_capacity(req.trials.len());
    for &trial in &req.trials {
        let s = trial_seed(seed, trial as u64);
        let mut cfg = LaneConfig {
            seed: Some(s),
            ..base.clone()
        };
        if defer(&mut cfg, data)?.is_some() {
            return Err(Error::Invalid(format!(
                "{}: its exact curve is computed by the page's pool, apart from its trials",
                cfg.algo
            )));
        }
        let program = plans.first().map(|p| &p.program);
        plans.push(TrialPlan::new(group, trial, s, cfg, data, program)?);
    }
    fits(&plans)?;
    Ok(plans)
}

#[wasm_bindgen]
impl WasmStudyJob {
    /// A job of the request's lanes that one can run (`{dataset, seed, until, every, lanes:
    /// [{lane, config, trials}]}`); the others are in `refused` (none taken: a job of no
    /// trials, done at its first step). Throws `{kind, key, message}`: no GPU open, a
    /// malformed request, or what the GPU refuses.
    #[wasm_bindgen(constructor)]
    pub fn new(request: JsValue) -> Result<WasmStudyJob, JsValue> {
        let req: JobRequest = serde_wasm_bindgen::from_value(request)
            .map_err(|e| js_err(Error::Invalid(format!("the study job's request: {e}"))))?;
        Self::make(req).map_err(js_err)
    }

    fn make(req: JobRequest) -> Result<WasmStudyJob, Error> {
        let dev = opened()
            .ok_or_else(|| Error::Invalid("the GPU is not open (gpuAdapter first)".into()))?;
        if !(req.seed >= 0.0
            && req.seed <= rbm_core::schema::options::MAX_SEED as f64
            && req.seed.fract() == 0.0)
        {
            return Err(Error::option(
                "seed",
                format!(
                    "a study's seed must be a whole number from 0 to 2^53 - 1, got {}",
                    req.seed
                ),
            ));
        }
        let data = dataset(&req.dataset)?;
        let seed = req.seed as u64;
        let (mut plans, mut who, mut lanes, mut refused) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (group, l) in req.lanes.iter().enumerate() {
            match lane_plans(l, group, seed, &data) {
                Ok(p) => {
                    who.extend(p.iter().map(|p| (l.lane, p.trial)));
                    plans.extend(p);
                    lanes.push(l.lane);
                }
                Err(e) => refused.push(JobRefusal {
                    lane: l.lane,
                    why: e.to_string(),
                }),
            }
        }
        // No lane a job runs: a job of no trials, done at its first step (the lanes refused).
        let schedule = if plans.is_empty() {
            vec![0]
        } else {
            schedule(req.until, req.every)
        };
        let run = JobRun::new(&data, schedule.clone(), &plans)?;
        let mut job = StudyJob::new(dev.clone());
        if !plans.is_empty() {
            job.start(&data, &plans)?;
        }
        Ok(WasmStudyJob {
            job,
            run,
            schedule,
            copies: VecDeque::new(),
            fence: Fence::new(&dev),
            adapter: adapter_name(&dev),
            dev,
            who,
            lanes,
            refused,
            failed: None,
        })
    }

    /// The adapter's name.
    #[wasm_bindgen(getter)]
    pub fn adapter(&self) -> String {
        self.adapter.clone()
    }

    /// The page's lanes the job runs.
    #[wasm_bindgen(getter)]
    pub fn lanes(&self) -> Vec<u32> {
        self.lanes.iter().map(|&l| l as u32).collect()
    }

    /// The trials the job runs.
    #[wasm_bindgen(getter)]
    pub fn trials(&self) -> u32 {
        self.who.len() as u32
    }

    /// The lanes of the request the job leaves to the CPU: `[{lane, why}]`.
    pub fn refused(&self) -> Result<JsValue, JsValue> {
        to_js(&self.refused)
    }

    /// Whether the job waits for the GPU (its copies or the fence are not in yet).
    #[wasm_bindgen(getter)]
    pub fn busy(&self) -> bool {
        self.copies.iter().any(|c| !c.ready()) || self.fence.pending()
    }

    /// Updates every trial has been given so far.
    #[wasm_bindgen(getter)]
    pub fn updates(&self) -> f64 {
        self.job.updates() as f64
    }

    /// One slice: the checkpoints whose models are in made into records (the first call:
    /// update 0's), then, once the GPU has done the previous slice's updates, up to
    /// `max_updates` more (stopping at the next checkpoint, whose models are then copied).
    /// Never waits. Returns a [`JobSlice`].
    pub fn step(&mut self, max_updates: u32) -> Result<JsValue, JsValue> {
        let slice = self.slice(u64::from(max_updates.max(1)));
        to_js(&slice)
    }

    /// Test hook: destroys the job's GPU device, as a driver reset would.
    #[wasm_bindgen(js_name = loseGpuForTest)]
    pub fn lose_gpu_for_test(&self) {
        self.dev.lose_for_test();
    }
}

impl WasmStudyJob {
    fn slice(&mut self, max_updates: u64) -> JobSlice {
        let mut out: Vec<JobTrialRecords> = Vec::new();
        let error = self
            .failed
            .clone()
            .or_else(|| match self.work(max_updates, &mut out) {
                Ok(()) => None,
                Err(e) => {
                    let info = e.info();
                    self.failed = Some(info.clone());
                    Some(info)
                }
            });
        JobSlice {
            trials: out,
            updates: self.job.updates(),
            done: error.is_none() && self.run.next().is_none(),
            error,
        }
    }

    fn work(&mut self, max_updates: u64, out: &mut Vec<JobTrialRecords>) -> Result<(), Error> {
        self.dev.progress();
        if let Some(why) = self.dev.failure() {
            return Err(Error::Invalid(why));
        }
        // The starting models', on the first call.
        if self.run.next() == Some(0) {
            let got = self.run.checkpoint(None, None, &mut |_, _, _, _| Ok(()))?;
            self.collect(&got, out);
        }
        // The checkpoints whose copies are in.
        while let Some(models) = self.copies.front().and_then(ModelsCopy::take) {
            let copy = self.copies.pop_front().expect("looked at above");
            if self.run.next() != Some(copy.updates) {
                return Err(Error::Invalid(format!(
                    "a GPU job's copy at update {} came for checkpoint {:?}",
                    copy.updates,
                    self.run.next()
                )));
            }
            let got = self
                .run
                .checkpoint(Some(&models?), None, &mut |_, _, _, _| Ok(()))?;
            self.collect(&got, out);
        }
        // More updates, once the GPU has done the last slice's.
        if !self.fence.passed()? {
            return Ok(());
        }
        let now = self.job.updates();
        let Some(&target) = self.schedule.iter().find(|&&at| at > now) else {
            return Ok(());
        };
        if self.copies.len() >= IN_FLIGHT {
            return Ok(());
        }
        let n = max_updates.min(target - now);
        self.job.advance(n)?;
        if self.job.updates() == target {
            self.copies.push_back(self.job.copy_models()?);
        } else {
            self.fence.mark(&self.dev);
        }
        Ok(())
    }

    /// The records of the plans `got` just made.
    fn collect(&self, got: &[usize], out: &mut Vec<JobTrialRecords>) {
        for &i in got {
            let (lane, trial) = self.who[i];
            let r = self.run.runs()[i].records.last().cloned();
            if let Some(r) = r {
                out.push(JobTrialRecords {
                    lane,
                    trial,
                    records: vec![r],
                });
            }
        }
    }
}

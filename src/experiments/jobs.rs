//! A study's trials as one job (issue 30: "all 250 trials of `sdcp-shifting-bar` advance
//! together"): an engine that runs the algorithms' programs ([`crate::engine::tape`]) for many
//! trials at once — a GPU, one workgroup per trial — advances them all between checkpoints, and
//! [`crate::experiments::trials::Study::run_job`] makes each trial's records from their models
//! on the host, as [`crate::experiments::trials::Study::trial`] would: the same counters, the
//! exact ATLL in f64, the preset's measurements.
//!
//! [`CpuJob`] runs the programs on the CPU engine, trial after trial. Its records equal
//! `Study::trial`'s bit for bit (`tests/jobs.rs`), which pins the driver; an engine's own job is
//! then tested against the same programs replayed on that engine.

use crate::data::Dataset;
use crate::engine::tape::{Program, Replay};
use crate::engine::Cpu;
use crate::error::{Error, Result};
use crate::experiments::trials::TrialRun;
use crate::model::{Params, Rbm};
use crate::train::{Lane, LaneConfig, PendingRecord};
use std::sync::Arc;

/// One trial of a job: its group, index and seed, its lane's configuration, starting model
/// and program.
#[derive(Clone, Debug)]
pub struct TrialPlan {
    /// The study's group (lane and learning rate).
    pub group: usize,
    /// The trial's index in the study.
    pub trial: usize,
    /// The trial's seed ([`crate::experiments::trials::trial_seed`]).
    pub seed: u64,
    /// Its lane's configuration (seeded `seed`).
    pub cfg: LaneConfig,
    /// The lane's starting model.
    pub model: Rbm,
    /// The lane's algorithm as engine operations.
    pub program: Arc<Program>,
}

impl TrialPlan {
    /// Trial `trial` (seeded `seed`) of group `group`, its lane configured `cfg` (seeded
    /// `seed`), as a job's plan on `data`; `program` is its lane's program when an earlier
    /// trial of the group recorded it (the lane's updates are alike for every seed), else it is
    /// recorded here. Refused, saying why, where the lane cannot run as one job with its other
    /// trials: its algorithm is no program of engine operations a job runs (its updates read
    /// numbers back), or its updates are not all alike (mini-batches drawn by the lane,
    /// grey-level data binarised per batch, a decaying rate).
    pub fn new(
        group: usize,
        trial: usize,
        seed: u64,
        cfg: LaneConfig,
        data: &Arc<Dataset>,
        program: Option<&Arc<Program>>,
    ) -> Result<TrialPlan> {
        let refuse = |why: String| {
            Err(Error::Invalid(format!(
                "{} cannot run as one job with its other trials: {why}",
                cfg.algo
            )))
        };
        if cfg.batch.is_some_and(|b| b != data.rows()) {
            return refuse("its mini-batches are drawn by each trial".into());
        }
        if !data.is_binary() {
            return refuse("its batches of grey levels are binarised by each trial".into());
        }
        if cfg.lr_decay_iters.is_some() {
            return refuse("its learning rate decays".into());
        }
        let lane = Lane::on::<Cpu>(&(), cfg.clone(), data.clone())?;
        let model = lane.model().clone();
        let program = match program {
            Some(p) => Arc::clone(p),
            None => {
                let p = crate::engine::tape::record(&cfg, data, &model)?;
                if let Some(why) = p.unsupported() {
                    return refuse(why);
                }
                Arc::new(p)
            }
        };
        Ok(TrialPlan {
            group,
            trial,
            seed,
            cfg,
            model,
            program,
        })
    }
}

/// An engine that advances many trials' programs together. Every update of every trial is a
/// full-batch update on the job's data, at its lane's constant learning rate, drawing from the
/// stream of (the trial's seed, its lane).
pub trait ProgramJob {
    /// Makes the trials' objects (the lanes' and their programs' setups) on `data`.
    fn start(&mut self, data: &Arc<Dataset>, plans: &[TrialPlan]) -> Result<()>;
    /// `updates` more updates of every trial.
    fn advance(&mut self, updates: u64) -> Result<()>;
    /// Every trial's model now, in plan order (waits for the engine).
    fn models(&mut self) -> Result<Vec<Params<f32>>>;
}

/// The programs on the CPU engine, one trial after another.
#[derive(Default)]
pub struct CpuJob {
    trials: Vec<(Replay<Cpu>, f32)>,
    data: Option<Arc<Dataset>>,
}

impl ProgramJob for CpuJob {
    fn start(&mut self, data: &Arc<Dataset>, plans: &[TrialPlan]) -> Result<()> {
        self.trials = plans
            .iter()
            .map(|p| {
                let r = Replay::new(&(), &p.program, &p.model, data, p.seed, p.cfg.lane)?;
                Ok((r, p.cfg.lr as f32))
            })
            .collect::<Result<_>>()?;
        self.data = Some(data.clone());
        Ok(())
    }

    fn advance(&mut self, updates: u64) -> Result<()> {
        let data = self.data.as_ref().expect("started");
        for (r, lr) in &mut self.trials {
            for _ in 0..updates {
                r.update(&data.values, *lr);
            }
        }
        Ok(())
    }

    fn models(&mut self) -> Result<Vec<Params<f32>>> {
        Ok(self
            .trials
            .iter()
            .map(|(r, _)| {
                let m = r.model();
                Params {
                    w: m.w().to_vec(),
                    b: m.b.clone(),
                    c: m.c.clone(),
                }
            })
            .collect())
    }
}

/// A job's checkpoints made one at a time, by a driver that never waits for its engine (the
/// page's worker: [`JobRun::next`] says the update of the next checkpoint, the driver advances
/// the job there and hands the trials' models in with [`JobRun::checkpoint`] once they are on
/// the host), each trial's records made as [`crate::experiments::trials::Study::trial`] makes
/// them: its lane's counters one update at a time, the record of its model (the exact ATLL on
/// the host in f64), and a divergence ending the trial with the records made so far.
/// [`crate::experiments::trials::Study::run_job`] is a loop over it.
pub struct JobRun {
    plans: Vec<TrialPlan>,
    schedule: Vec<u64>,
    lanes: Vec<Lane>,
    runs: Vec<TrialRun>,
    /// Each trial's (sweeps, half-steps) so far.
    counters: Vec<(f64, f64)>,
    alive: Vec<bool>,
    /// The next checkpoint's index, and the updates at the last one made.
    k: usize,
    done: u64,
}

impl JobRun {
    /// The checkpoints at the updates of `schedule` (starting at 0) of the trials of `plans`
    /// on `data` (each trial's lane made here for its records).
    pub fn new(data: &Arc<Dataset>, schedule: Vec<u64>, plans: &[TrialPlan]) -> Result<JobRun> {
        if schedule.first() != Some(&0) || schedule.windows(2).any(|w| w[1] <= w[0]) {
            return Err(Error::Invalid(
                "a job's checkpoints start at update 0 and grow".into(),
            ));
        }
        let lanes = plans
            .iter()
            .map(|p| Lane::on::<Cpu>(&(), p.cfg.clone(), data.clone()))
            .collect::<Result<Vec<_>>>()?;
        Ok(JobRun {
            plans: plans.to_vec(),
            schedule,
            lanes,
            runs: plans.iter().map(|_| TrialRun::default()).collect(),
            counters: vec![(0.0, 0.0); plans.len()],
            alive: vec![true; plans.len()],
            k: 0,
            done: 0,
        })
    }

    /// The update of the next checkpoint (None: every checkpoint is made).
    pub fn next(&self) -> Option<u64> {
        self.schedule.get(self.k).copied()
    }

    /// The index of the next checkpoint in the schedule.
    pub fn index(&self) -> usize {
        self.k
    }

    /// The updates at the last checkpoint made (0 before any).
    pub fn done(&self) -> u64 {
        self.done
    }

    /// The trials' plans.
    pub fn plans(&self) -> &[TrialPlan] {
        &self.plans
    }

    /// Whether trial `i` (in plan order) is still running (its model has not diverged).
    pub fn alive(&self, i: usize) -> bool {
        self.alive[i]
    }

    /// Makes the next checkpoint ([`JobRun::next`]) from the trials' models there, in plan
    /// order (`None` at update 0: the starting models), `seconds` of training so far (the
    /// job's, for every trial; `None` without a clock), and `measure` — called with each
    /// record's run, plan, checkpoint index and model — to add the preset's own measure.
    /// Returns the trials (in plan order) that got a record; a trial whose model diverged
    /// gets none, now or later.
    pub fn checkpoint(
        &mut self,
        models: Option<&[Params<f32>]>,
        seconds: Option<f64>,
        measure: &mut dyn FnMut(&mut TrialRun, &TrialPlan, usize, &Rbm) -> Result<()>,
    ) -> Result<Vec<usize>> {
        let (k, at) = match self.next() {
            Some(at) => (self.k, at),
            None => return Err(Error::Invalid("every checkpoint of the job is made".into())),
        };
        if models.is_none() != (at == 0) {
            return Err(Error::Invalid(format!(
                "checkpoint {k} (update {at}) takes {}",
                if at == 0 {
                    "the starting models"
                } else {
                    "the trials' models"
                }
            )));
        }
        if let Some(ms) = models {
            if ms.len() != self.plans.len() {
                return Err(Error::Invalid(format!(
                    "{} models for {} trials",
                    ms.len(),
                    self.plans.len()
                )));
            }
        }
        let mut recorded = Vec::with_capacity(self.plans.len());
        for (i, p) in self.plans.iter().enumerate() {
            if !self.alive[i] {
                continue;
            }
            // A lane adds its updates' counts one update at a time.
            let rep = &p.program.report;
            for _ in self.done..at {
                self.counters[i].0 += rep.sweeps;
                self.counters[i].1 += rep.vh_steps;
            }
            let (record, model) = match models {
                None => (self.lanes[i].record()?, p.model.clone()),
                Some(ms) => {
                    let pending = PendingRecord::at(at, self.counters[i].0, self.counters[i].1);
                    match self.lanes[i].finish_record(pending, ms[i].clone()) {
                        Ok(r) => (
                            r,
                            Rbm::from_params(p.model.m(), p.model.n(), ms[i].clone())?,
                        ),
                        Err(Error::Diverged { .. }) => {
                            self.alive[i] = false;
                            continue;
                        }
                        Err(e) => return Err(e),
                    }
                }
            };
            self.runs[i].records.push(record);
            if let Some(s) = seconds {
                self.runs[i].train_seconds.push(s);
            }
            measure(&mut self.runs[i], p, k, &model)?;
            recorded.push(i);
        }
        self.done = at;
        self.k += 1;
        Ok(recorded)
    }

    /// The trials' runs so far, in plan order.
    pub fn runs(&self) -> &[TrialRun] {
        &self.runs
    }

    /// The trials' runs, in plan order.
    pub fn into_runs(self) -> Vec<TrialRun> {
        self.runs
    }
}

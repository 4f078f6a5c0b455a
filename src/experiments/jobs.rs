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
use crate::error::Result;
use crate::model::{Params, Rbm};
use crate::train::LaneConfig;
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

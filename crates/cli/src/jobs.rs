//! A study's trials as `rbm reproduce` and `rbm explore` run them: with `--device gpu`, one GPU
//! job of every trial of the lanes a job takes (`rbm_gpu::study`: small models on full batches,
//! one workgroup per trial), beside the other trials, each alone (on the GPU engine where it
//! runs the algorithm, else on the CPU).

use super::progress::StudyProgress;
use super::reproduce::Trial;
use rbm_core::engine::{Cpu, Engine};
use rbm_core::experiments::jobs::TrialPlan;
use rbm_core::experiments::trials::Study;
use std::sync::Arc;
use std::time::Instant;

/// A piece of a study's work.
pub enum Work {
    /// Every trial of `plans` as one GPU job.
    Job(Arc<rbm_gpu::Device>, Vec<TrialPlan>),
    /// One trial, by index group·runs + trial.
    One(usize),
}

/// The study's work: the GPU's job first (it runs beside the CPU's trials), then the trials it
/// does not take. With `say`, stderr says what the job takes and why a lane is left out.
pub fn works(study: &Study, gpu: Option<&Arc<rbm_gpu::Device>>, say: bool) -> Vec<Work> {
    let (groups, runs) = (study.groups.len(), study.runs);
    let mut plans = Vec::new();
    let mut in_job = vec![false; groups];
    if gpu.is_some() {
        for (g, taken) in in_job.iter_mut().enumerate() {
            let lane = &study.preset.lanes[study.groups[g].0];
            if !<rbm_gpu::Gpu as Engine>::runs(lane.algo) {
                continue;
            }
            match study
                .job_plans(g)
                .and_then(|p| rbm_gpu::study::fits(&p).map(|()| p))
            {
                Ok(p) => {
                    plans.extend(p);
                    *taken = true;
                }
                Err(e) if say && (g == 0 || study.groups[g].0 != study.groups[g - 1].0) => {
                    // The reason alone: a lane left out of the job is no error of the input.
                    let why = match e {
                        rbm_core::Error::Invalid(why) => why,
                        other => other.to_string(),
                    };
                    eprintln!(
                        "note: {} trains its trials one by one on the GPU: {why}",
                        lane.label
                    )
                }
                Err(_) => {}
            }
        }
        if say && !plans.is_empty() {
            let lanes = in_job.iter().filter(|&&t| t).count();
            eprintln!(
                "note: {} trials of {lanes} lane(s) train together as one GPU job",
                plans.len()
            );
        }
    }
    let mut works = Vec::new();
    if let (Some(dev), false) = (gpu, plans.is_empty()) {
        works.push(Work::Job(dev.clone(), plans));
    }
    works.extend(
        (0..groups * runs)
            .filter(|idx| !in_job[idx / runs])
            .map(Work::One),
    );
    works
}

/// The trials of `plans` as one GPU job: each trial's records (by index group·runs + trial),
/// timed by the job when `timed` (its training time to each checkpoint; its `seconds`, the
/// job's wall time shared equally by its trials), its checkpoints told to `progress`.
pub fn job(
    study: &Study,
    dev: &Arc<rbm_gpu::Device>,
    plans: &[TrialPlan],
    timed: bool,
    progress: Option<&StudyProgress>,
) -> Vec<(usize, Result<Trial, rbm_core::Error>)> {
    let t = Instant::now();
    let mut clock = || t.elapsed().as_secs_f64();
    let mut job = rbm_gpu::study::StudyJob::new(dev.clone());
    let clock: Option<&mut dyn FnMut() -> f64> = if timed { Some(&mut clock) } else { None };
    let index = |p: &TrialPlan| p.group * study.runs + p.trial - study.first;
    let runs = study.run_job(&mut job, plans, clock, &mut |at| {
        if let Some(g) = progress {
            for p in plans {
                g.heard(index(p), at);
            }
        }
    });
    let share = t.elapsed().as_secs_f64() / plans.len().max(1) as f64;
    match runs {
        Ok(runs) => plans
            .iter()
            .zip(runs)
            .map(|(p, run)| {
                (
                    index(p),
                    Ok(Trial {
                        run,
                        seconds: share,
                    }),
                )
            })
            .collect(),
        Err(e) => plans.iter().map(|p| (index(p), Err(e.clone()))).collect(),
    }
}

/// Trial `idx` (group·runs + trial) alone: on the GPU engine where there is one and it runs
/// the lane's algorithm, else on the CPU; timed when `timed`, its checkpoints told to
/// `progress`.
pub fn one(
    study: &Study,
    gpu: Option<&Arc<rbm_gpu::Device>>,
    idx: usize,
    timed: bool,
    progress: Option<&StudyProgress>,
) -> Result<Trial, rbm_core::Error> {
    let (g, r) = (idx / study.runs, study.first + idx % study.runs);
    let t = Instant::now();
    let mut clock = || t.elapsed().as_secs_f64();
    let clock: Option<&mut dyn FnMut() -> f64> = if timed { Some(&mut clock) } else { None };
    let algo = study.preset.lanes[study.groups[g].0].algo;
    let heard = &mut |at| {
        if let Some(p) = progress {
            p.heard(idx, at);
        }
    };
    let run = match gpu {
        Some(dev) if <rbm_gpu::Gpu as Engine>::runs(algo) => {
            study.trial_heard_on::<rbm_gpu::Gpu>(dev, g, r, clock, heard)
        }
        _ => study.trial_heard_on::<Cpu>(&(), g, r, clock, heard),
    }?;
    Ok(Trial {
        run,
        seconds: t.elapsed().as_secs_f64(),
    })
}

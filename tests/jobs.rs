//! A study's trials as one job (`rbm_core::experiments::jobs`): the driver that advances every
//! trial's program together and records them at the checkpoints gives, on the CPU engine,
//! each trial's records as `Study::trial` makes them, bit for bit — counters, exact ATLL and
//! log Z — so an engine's job differs from the study only by its own arithmetic.

use rbm_core::engine::Cpu;
use rbm_core::experiments::jobs::CpuJob;
use rbm_core::experiments::trials::{LaneOverrides, Study, StudyRequest};
use rbm_core::experiments::{find_preset as preset_named, Preset};

fn preset(name: &str) -> &'static Preset {
    preset_named(name).unwrap()
}

#[test]
fn a_job_of_every_group_records_what_its_trials_record_one_by_one() {
    for name in ["sdcp-shifting-bar", "sdcp-bas3"] {
        let req = StudyRequest {
            runs: Some(3),
            first: Some(2),
            iters: Some(250),
            every: Some(100),
            ..Default::default()
        };
        let study = Study::new(preset(name), &req, 11).unwrap();
        let mut plans = Vec::new();
        for g in 0..study.groups.len() {
            plans.extend(study.job_plans(g).unwrap());
        }
        assert_eq!(plans.len(), study.groups.len() * 3);
        let mut heard = Vec::new();
        let runs = study
            .run_job(&mut CpuJob::default(), &plans, None, &mut |u| heard.push(u))
            .unwrap();
        assert_eq!(
            heard,
            [0, 100, 200, 250],
            "{name}: progress at each checkpoint"
        );
        for (p, got) in plans.iter().zip(&runs) {
            let mut alone = Vec::new();
            let want = study
                .trial_heard_on::<Cpu>(&(), p.group, p.trial, None, &mut |u| alone.push(u))
                .unwrap();
            assert_eq!(
                alone, heard,
                "{name}: a trial alone hears the same progress"
            );
            assert_eq!(
                got.records.len(),
                4,
                "{name}: the schedule's four checkpoints"
            );
            assert_eq!(
                got.records, want.records,
                "{name}: group {} trial {} as a job differs from the trial run alone",
                p.group, p.trial
            );
            let last = got.records.last().unwrap();
            assert_ne!(last.atll, got.records[0].atll, "{name}: it trained");
        }
    }
}

#[test]
fn lanes_a_job_cannot_run_say_why() {
    let req = StudyRequest {
        runs: Some(1),
        iters: Some(10),
        every: Some(10),
        ..Default::default()
    };
    // UCD's coupled chains run on the CPU engine only.
    let ucd = Study::new(preset("ucd-bas4"), &req, 1).unwrap();
    let g = ucd
        .groups
        .iter()
        .position(|&(l, _)| ucd.preset.lanes[l].algo == "ucd")
        .unwrap();
    let e = ucd.job_plans(g).unwrap_err().to_string();
    assert!(e.contains("CPU engine only"), "{e}");
    // A lane with mini-batches drawn per trial.
    let mini = Study::new(
        preset("sdcp-bas3"),
        &StudyRequest {
            overrides: LaneOverrides {
                options: vec![("batch".into(), serde_json::json!(5))],
                ..Default::default()
            },
            ..req.clone()
        },
        1,
    )
    .unwrap();
    let e = mini.job_plans(0).unwrap_err().to_string();
    assert!(e.contains("mini-batches"), "{e}");
}

/// The stepper a page's worker drives (`JobRun`): plans made one trial at a time from the
/// lanes' configurations (as the page makes them: `TrialPlan::new`), the job advanced to each
/// checkpoint in uneven pieces, the models handed in — the records of `Study::trial`, bit for
/// bit, and of `run_job`.
#[test]
fn the_stepper_records_what_run_job_and_each_trial_record() {
    use rbm_core::experiments::jobs::{JobRun, ProgramJob, TrialPlan};
    use std::sync::Arc;
    let req = StudyRequest {
        runs: Some(2),
        iters: Some(130),
        every: Some(50),
        ..Default::default()
    };
    let study = Study::new(preset("sdcp-shifting-bar"), &req, 5).unwrap();
    let data = Arc::new(rbm_core::data::Dataset::builtin("shifting-bar").unwrap());
    let mut plans: Vec<TrialPlan> = Vec::new();
    for g in 0..study.groups.len() {
        let first = plans.len();
        for trial in study.trials() {
            let seed = rbm_core::experiments::trials::trial_seed(5, trial as u64);
            let cfg = study.lane_config(g, seed).unwrap();
            let program = plans.get(first).map(|p| &p.program).cloned();
            plans.push(TrialPlan::new(g, trial, seed, cfg, &data, program.as_ref()).unwrap());
        }
    }
    let mut job = CpuJob::default();
    job.start(&data, &plans).unwrap();
    let mut run = JobRun::new(&data, study.schedule(), &plans).unwrap();
    assert!(
        run.checkpoint(Some(&[]), None, &mut |_, _, _, _| Ok(()))
            .is_err(),
        "update 0 takes the starting models"
    );
    let mut at_each = Vec::new();
    while let Some(at) = run.next() {
        let models = if at == 0 {
            None
        } else {
            // In pieces of at most 7 updates, as a worker's slices.
            let mut left = at - run.done();
            while left > 0 {
                job.advance(left.min(7)).unwrap();
                left -= left.min(7);
            }
            Some(job.models().unwrap())
        };
        let got = run
            .checkpoint(models.as_deref(), None, &mut |_, _, _, _| Ok(()))
            .unwrap();
        assert_eq!(got.len(), plans.len(), "every trial recorded at {at}");
        at_each.push(at);
    }
    assert_eq!(at_each, [0, 50, 100, 130]);
    assert!(run.next().is_none());
    let runs = run.into_runs();
    let whole = study
        .run_job(&mut CpuJob::default(), &plans, None, &mut |_| {})
        .unwrap();
    for ((p, got), job) in plans.iter().zip(&runs).zip(&whole) {
        let want = study.trial(p.group, p.trial, None).unwrap();
        assert_eq!(
            got.records, want.records,
            "group {} trial {}",
            p.group, p.trial
        );
        assert_eq!(got.records, job.records);
    }
}

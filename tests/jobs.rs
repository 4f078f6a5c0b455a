//! A study's trials as one job (`rbm_core::experiments::jobs`): the driver that advances every
//! trial's program together and records them at the checkpoints gives, on the CPU engine,
//! each trial's records as `Study::trial` makes them, bit for bit — counters, exact ATLL and
//! log Z — so an engine's job differs from the study only by its own arithmetic.

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
            let want = study.trial(p.group, p.trial, None).unwrap();
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

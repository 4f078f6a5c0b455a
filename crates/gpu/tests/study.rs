//! A study's trials as one GPU job (`rbm_gpu::study`, issue 30), on lavapipe in CI:
//! - each trial follows the GPU engine's lane of its seed — the same program replayed on the
//!   engine, the same Philox draws — within f32 rounding, for every algorithm a job runs, with
//!   its objects in workgroup memory or in the buffer alike (bit for bit);
//! - a trial's numbers do not depend on the other trials of its job;
//! - a reduced `sdcp-shifting-bar` study as one job ends where the CPU study ends, within the
//!   spread of their trials.

mod common;

use common::device;
use rbm_core::data::Dataset;
use rbm_core::engine::tape::{record, Replay};
use rbm_core::experiments::find_preset;
use rbm_core::experiments::jobs::{ProgramJob, TrialPlan};
use rbm_core::experiments::trials::{trial_seed, Study, StudyRequest};
use rbm_core::train::{Lane, LaneConfig};
use rbm_gpu::study::StudyJob;
use rbm_gpu::Gpu;
use std::sync::Arc;

/// Plans of `trials` trials of `cfg` on `data` (seeds 100, 101, …), as group `group`.
fn plans(cfg: &LaneConfig, data: &Arc<Dataset>, group: usize, trials: usize) -> Vec<TrialPlan> {
    (0..trials)
        .map(|t| {
            let seed = 100 + t as u64;
            let cfg = LaneConfig {
                seed: Some(seed),
                ..cfg.clone()
            };
            let model = Lane::new(cfg.clone(), data.clone())
                .unwrap()
                .model()
                .clone();
            let program = Arc::new(record(&cfg, data, &model).unwrap());
            TrialPlan {
                group,
                trial: t,
                seed,
                cfg,
                model,
                program,
            }
        })
        .collect()
}

fn flat(p: &rbm_core::model::Params<f32>) -> Vec<f32> {
    [&p.w[..], &p.b[..], &p.c[..]].concat()
}

#[test]
fn every_trial_follows_the_gpu_engines_lane_of_its_seed() {
    let dev = device();
    let bar = Arc::new(Dataset::builtin("shifting-bar").unwrap());
    let bas = Arc::new(Dataset::builtin("bas3").unwrap());
    // Past the dispatches' length (lavapipe ends a workgroup after about 2 048 barriers).
    let updates = 120;
    for algo in ["cd", "mf-cd", "pcd", "sdcp", "cg", "cs-dcp"] {
        let base = LaneConfig {
            algo: algo.into(),
            hidden: 4,
            k: 12,
            d: 3,
            kprime: 4,
            lr: 0.3,
            ..Default::default()
        };
        // Full batches with chains as rows; more chains than rows, momentum, weight decay.
        let other = LaneConfig {
            hidden: 6,
            chains: Some(20),
            momentum: 0.5,
            weight_decay: 0.001,
            ..base.clone()
        };
        for (cfg, data) in [(&base, &bar), (&other, &bas)] {
            let plans = plans(cfg, data, 0, 3);
            // The kernel's two arms: each trial's objects in workgroup memory, and in the
            // buffer (a trial too large for workgroup memory) — the same bits.
            let mut arms = [false, true].map(|in_buffer| {
                let mut job = StudyJob::new(dev.clone());
                job.force_buffer(in_buffer);
                job.start(data, &plans).unwrap();
                assert_eq!(job.shared(), !in_buffer);
                job.advance(updates).unwrap();
                job.models().unwrap()
            });
            let got = std::mem::take(&mut arms[0]);
            for (a, b) in got.iter().zip(&arms[1]) {
                assert_eq!(flat(a), flat(b), "{algo}: the kernel's arms differ");
            }
            for (p, g) in plans.iter().zip(&got) {
                let mut r =
                    Replay::<Gpu>::new(&dev, &p.program, &p.model, data, p.seed, p.cfg.lane)
                        .unwrap();
                for _ in 0..updates {
                    r.update(&data.values, p.cfg.lr as f32);
                }
                let want = r.model().download().unwrap();
                let want = [want.w(), &want.b[..], &want.c[..]].concat();
                let got = flat(g);
                let worst = want
                    .iter()
                    .zip(&got)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0f32, f32::max);
                assert!(
                    worst < 1e-4,
                    "{algo} on {} (seed {}): the job's model is {worst} from the engine's lane",
                    data.name,
                    p.seed
                );
                let start = [p.model.w(), &p.model.b[..], &p.model.c[..]].concat();
                assert_ne!(start, got, "{algo}: it trained");
            }
        }
    }
}

#[test]
fn a_trial_is_the_same_whatever_else_its_job_runs() {
    let dev = device();
    let data = Arc::new(Dataset::builtin("shifting-bar").unwrap());
    let cfg = |algo: &str| LaneConfig {
        algo: algo.into(),
        hidden: 4,
        k: 4,
        d: 2,
        kprime: 2,
        lr: 0.5,
        ..Default::default()
    };
    let sdcp = plans(&cfg("sdcp"), &data, 0, 4);
    let mut cg = plans(&cfg("cg"), &data, 1, 2);
    let run = |plans: &[TrialPlan]| {
        let mut job = StudyJob::new(dev.clone());
        job.start(&data, plans).unwrap();
        job.advance(130).unwrap();
        job.models().unwrap()
    };
    let alone = run(&sdcp[2..3]);
    cg.extend_from_slice(&sdcp);
    let mixed = run(&cg);
    assert_eq!(
        flat(&alone[0]),
        flat(&mixed[4]),
        "S-DCP trial 2 alone and among others"
    );
}

#[test]
fn a_study_as_one_job_ends_where_the_cpu_study_ends() {
    let dev = device();
    let req = StudyRequest {
        runs: Some(25),
        iters: Some(2000),
        every: Some(1000),
        rates: Some(vec![0.3]),
        ..Default::default()
    };
    let study = Study::new(find_preset("sdcp-shifting-bar").unwrap(), &req, 3).unwrap();
    let mut plans = Vec::new();
    for g in 0..study.groups.len() {
        plans.extend(study.job_plans(g).unwrap());
    }
    let runs = study
        .run_job(&mut StudyJob::new(dev), &plans, None, &mut |_| {})
        .unwrap();
    let stats = |x: &[f64]| {
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (x.len() - 1) as f64;
        (mean, (var / x.len() as f64).sqrt())
    };
    for g in 0..study.groups.len() {
        let gpu: Vec<f64> = plans
            .iter()
            .zip(&runs)
            .filter(|(p, _)| p.group == g)
            .map(|(_, r)| r.records.last().unwrap().atll.unwrap())
            .collect();
        let cpu: Vec<f64> = study
            .trials()
            .map(|t| {
                let r = study.trial(g, t, None).unwrap();
                r.records.last().unwrap().atll.unwrap()
            })
            .collect();
        let ((mg, sg), (mc, sc)) = (stats(&gpu), stats(&cpu));
        let algo = study.preset.lanes[study.groups[g].0].label;
        assert!(
            (mg - mc).abs() <= 4.0 * (sg * sg + sc * sc).sqrt() + 1e-9,
            "{algo}: the GPU job's mean ATLL {mg:.4} ± {sg:.4} against the CPU's {mc:.4} ± {sc:.4}"
        );
        // The trials start from the CPU's models and seeds: the job's trial 0 is seeded as the
        // study's.
        assert_eq!(plans[g * 25].seed, trial_seed(3, 0));
    }
}

/// The page's way (a worker that never waits): the trials' models copied back without waiting
/// (`StudyJob::copy_models`, polled), the checkpoints made one at a time (`JobRun`) — the
/// records of the waiting `run_job` on the same GPU, bit for bit, and a copy's update count.
#[test]
fn the_never_waiting_path_gives_the_waiting_ones_bits() {
    use rbm_core::experiments::jobs::JobRun;
    use rbm_gpu::device::Fence;
    let dev = device();
    let req = StudyRequest {
        runs: Some(2),
        iters: Some(70),
        every: Some(30),
        ..Default::default()
    };
    let study = Study::new(find_preset("sdcp-bas3").unwrap(), &req, 3).unwrap();
    let mut plans = Vec::new();
    for g in 0..study.groups.len() {
        plans.extend(study.job_plans(g).unwrap());
    }
    let waited = study
        .run_job(&mut StudyJob::new(dev.clone()), &plans, None, &mut |_| {})
        .unwrap();
    let data = Arc::new(Dataset::builtin("bas3").unwrap());
    let mut job = StudyJob::new(dev.clone());
    job.start(&data, &plans).unwrap();
    let mut run = JobRun::new(&data, study.schedule(), &plans).unwrap();
    let mut polls = 0;
    while let Some(at) = run.next() {
        let models = if at == 0 {
            None
        } else {
            job.advance(at - run.done()).unwrap();
            // A fence behind the updates says when they are done without being taken (the
            // page's job sizes its next slice by it).
            let mut fence = Fence::new(job.device());
            fence.mark(job.device());
            while fence.pending() {
                polls += 1;
                job.device().progress();
                assert!(polls < 1_000_000, "the fence never came");
                std::thread::yield_now();
            }
            assert!(fence.passed().unwrap());
            assert!(!fence.pending());
            let copy = job.copy_models().unwrap();
            assert_eq!(copy.updates, at);
            let models = loop {
                polls += 1;
                job.device().progress();
                let ready = copy.ready();
                if let Some(m) = copy.take() {
                    assert!(ready || copy.ready(), "a copy taken is ready");
                    break m.unwrap();
                }
                assert!(!ready, "a ready copy is taken");
                assert!(polls < 1_000_000, "the copy never came");
                std::thread::yield_now();
            };
            Some(models)
        };
        run.checkpoint(models.as_deref(), None, &mut |_, _, _, _| Ok(()))
            .unwrap();
    }
    let runs = run.into_runs();
    assert_eq!(runs.len(), waited.len());
    for (p, (got, want)) in plans.iter().zip(runs.iter().zip(&waited)) {
        assert_eq!(got.records.len(), 4, "checkpoints 0, 30, 60, 70");
        assert_eq!(
            got.records, want.records,
            "group {} trial {}: the never-waiting path differs",
            p.group, p.trial
        );
    }
}

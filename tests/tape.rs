//! The tape engine (`rbm_core::engine::tape`): an algorithm's program, replayed on the CPU
//! engine, trains as the algorithm's lane does — the same model, bit for bit, after every
//! update — so the program left nothing of the algorithm out. Algorithms the engine trait
//! does not run, or whose updates read numbers back, are named as such.

use rbm_core::data::Dataset;
use rbm_core::engine::tape::{record, Op, Replay};
use rbm_core::engine::Cpu;
use rbm_core::model::Rbm;
use rbm_core::train::{Lane, LaneConfig};
use std::sync::Arc;

fn bits(m: &Rbm) -> Vec<u32> {
    [m.w(), &m.b[..], &m.c[..]]
        .concat()
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// Trains a lane of `cfg` on `data` and the replay of its program side by side for `updates`
/// updates (the replay fed the lane's batches and rates), comparing the models after each.
fn lane_and_replay(cfg: &LaneConfig, data: &Arc<Dataset>, updates: usize) {
    let mut lane = Lane::new(cfg.clone(), data.clone()).unwrap();
    let start = lane.model().clone();
    let program = record(cfg, data, &start).unwrap();
    let seed = cfg.seed.unwrap();
    let mut replay = Replay::<Cpu>::new(&(), &program, &start, data, seed, cfg.lane).unwrap();
    for t in 0..updates {
        let lr = lane.next_lr();
        lane.step().unwrap();
        replay.update(lane.last_batch(), lr);
        assert!(
            bits(replay.model()) == bits(lane.model()),
            "{} (batch {:?}, chains {:?}): update {t} of the replayed program differs from the lane",
            cfg.algo,
            cfg.batch,
            cfg.chains
        );
    }
    assert_ne!(bits(&start), bits(lane.model()), "{}: it trained", cfg.algo);
}

#[test]
fn every_algorithm_on_the_engine_trait_replays_as_its_lane_trains() {
    let bar = Arc::new(Dataset::builtin("shifting-bar").unwrap());
    let bas = Arc::new(Dataset::builtin("bas3").unwrap());
    for algo in ["cd", "mf-cd", "pcd", "fpcd", "sdcp", "cg", "cs-dcp"] {
        // Full batch (the S-DCP paper's setting), and mini-batches with more chains than rows,
        // momentum, weight decay and a decaying rate.
        let full = LaneConfig {
            algo: algo.into(),
            hidden: 4,
            k: 3,
            d: 3,
            kprime: 2,
            lr: 0.3,
            seed: Some(7),
            ..Default::default()
        };
        lane_and_replay(&full, &bar, 30);
        let mini = LaneConfig {
            batch: Some(5),
            chains: Some(8),
            momentum: 0.5,
            weight_decay: 0.001,
            lr_decay_iters: Some(40),
            hidden: 6,
            ..full.clone()
        };
        lane_and_replay(&mini, &bas, 30);
    }
}

#[test]
fn a_program_says_what_an_update_does() {
    let data = Dataset::builtin("shifting-bar").unwrap();
    let cfg = LaneConfig {
        algo: "sdcp".into(),
        hidden: 4,
        d: 3,
        kprime: 4,
        seed: Some(1),
        ..Default::default()
    };
    let model = Lane::new(cfg.clone(), Arc::new(data.clone()))
        .unwrap()
        .model()
        .clone();
    let p = record(&cfg, &data, &model).unwrap();
    // Upadhya & Sastry 2017, Algorithm 3: the positive phase once, then d = 3 inner steps of
    // K′ = 4 sweeps, the first from the batch rows.
    let kinds: Vec<&str> = p
        .update
        .iter()
        .map(|op| match op {
            Op::PositivePhase { .. } => "pos",
            Op::RestartSweeps { k: 4, .. } => "restart4",
            Op::Sweeps { k: 4, .. } => "sweeps4",
            Op::ChainStats { .. } => "neg",
            Op::Step { .. } => "step",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["pos", "restart4", "neg", "step", "sweeps4", "neg", "step", "sweeps4", "neg", "step"]
    );
    assert_eq!(p.draws_per_update(), 24);
    assert_eq!(p.report.sweeps, 12.0);
    assert!(p.unsupported().is_none());

    // FPCD reads ‖W_F‖ back every update: a program, but not one a hostless engine runs.
    let fpcd = record(
        &LaneConfig {
            algo: "fpcd".into(),
            ..cfg.clone()
        },
        &data,
        &model,
    )
    .unwrap();
    assert!(fpcd.unsupported().unwrap().contains("fpcd"));
    // UCD and PT run on the CPU engine only: no program.
    for algo in ["ucd", "pt"] {
        let e = record(
            &LaneConfig {
                algo: algo.into(),
                ..cfg.clone()
            },
            &data,
            &model,
        );
        assert!(
            e.unwrap_err().to_string().contains("CPU engine only"),
            "{algo}"
        );
    }
}

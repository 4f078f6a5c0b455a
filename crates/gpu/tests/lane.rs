//! The GPU lane that never waits for its GPU (`rbm_gpu::lane`, what a browser's worker runs)
//! against `Lane::run` on the same seed and GPU: the same records bit for bit, whatever the
//! slicing, a view equal to `Lane::view`, and a divergence found at a record.

use rbm_core::data::Dataset;
use rbm_core::train::{Lane, LaneConfig, Record};
use rbm_gpu::lane::GpuLane;
use rbm_gpu::{Device, Gpu};
use std::sync::Arc;

mod common;
use common::device;

fn config(algo: &str, lr: f64) -> LaneConfig {
    let mut cfg = LaneConfig {
        algo: algo.into(),
        hidden: 9,
        lr,
        every: 7,
        seed: Some(2024),
        ..LaneConfig::default()
    };
    cfg.batch = Some(4);
    cfg
}

fn lane(cfg: &LaneConfig) -> Lane<Gpu> {
    let data = Arc::new(Dataset::builtin("bas3").expect("bas3"));
    Lane::on::<Gpu>(&device(), cfg.clone(), data).expect("a lane")
}

/// Runs `updates` updates through a GpuLane in slices, polling between them as a worker does.
fn streamed(cfg: &LaneConfig, updates: u64) -> (Vec<Record>, GpuLane) {
    let mut g = GpuLane::new(lane(cfg));
    let mut records = Vec::new();
    let mut t = 0.0;
    while g.lane().iter() < updates || g.busy() {
        t += 1.0;
        if g.lane().iter() < updates {
            g.run(updates - g.lane().iter(), t).expect("updates");
        }
        let p = g.poll(8, 50.0, t);
        assert!(p.error.is_none(), "{:?}", p.error);
        records.extend(p.records);
        device().finish();
    }
    (records, g)
}

#[test]
fn a_gpu_lane_that_never_waits_makes_the_records_of_lane_run() {
    for algo in ["cd", "pcd", "sdcp", "cg"] {
        let cfg = config(algo, 0.1);
        let want = lane(&cfg).run(60).expect("run");
        let (got, _) = streamed(&cfg, 60);
        assert_eq!(got.len(), want.len(), "{algo}: records");
        // Lane::run takes log Z from the GPU's enumeration (f32, compensated: ≤ 1e-6
        // relative); the streamed lane from the host's f64 one. All else is equal bit for bit.
        for (g, w) in got.iter().zip(&want) {
            let at = w.iter;
            let (gz, wz) = (g.log_z.expect("log Z"), w.log_z.expect("log Z"));
            assert!(
                (gz - wz).abs() <= 1e-6 * wz.abs(),
                "{algo}: log Z at {at}: {gz} vs {wz}"
            );
            let (ga, wa) = (g.atll.expect("ATLL"), w.atll.expect("ATLL"));
            assert!(
                (ga - wa).abs() <= 1e-6 * wz.abs(),
                "{algo}: ATLL at {at}: {ga} vs {wa}"
            );
            let strip = |r: &Record| Record {
                atll: None,
                log_z: None,
                ..r.clone()
            };
            assert_eq!(strip(g), strip(w), "{algo}: the record at update {at}");
        }
        assert!(got.iter().all(|r| r.atll.is_some()), "{algo}: exact curve");
    }
}

#[test]
fn its_view_is_lane_views() {
    let cfg = config("pcd", 0.1);
    let mut want = lane(&cfg);
    want.run(14).expect("run");
    let (_, mut g) = streamed(&cfg, 14);
    g.ask_view();
    let v = g.settle(5).view.expect("a view");
    let w = want.view(5);
    assert_eq!(v.iter, 14);
    assert_eq!(v.weights, w.weights);
    assert_eq!(v.chains, w.chains);
    assert_eq!(v.reconstructions, w.reconstructions);
    let (vd, wd) = (
        v.dist.expect("a distribution"),
        w.dist.expect("a distribution"),
    );
    for (a, b) in vd.model.iter().zip(&wd.model) {
        assert!(
            (a - b).abs() <= 1e-5 * b,
            "the model distribution: {a} vs {b}"
        );
    }
}

#[test]
fn a_divergence_is_found_at_a_record() {
    let cfg = LaneConfig {
        momentum: 0.9,
        ..config("cd", 3e38)
    };
    let (mut g, mut err) = (GpuLane::new(lane(&cfg)), None);
    for t in 0..200 {
        let _ = g.run(50, f64::from(t));
        device().finish();
        let p = g.poll(0, 50.0, f64::from(t));
        if p.error.is_some() {
            err = p.error;
            break;
        }
    }
    let e = err.expect("a learning rate of 3e38 with momentum diverges");
    assert!(e.to_string().contains("update"), "{e}");
    assert!(g.lane().failure().is_some());
    assert!(g.run(1, 0.0).is_err(), "a failed lane runs no more");
    let (model, _) = g.lane().recorded_model();
    assert!(model.non_finite().is_none(), "the last finite model stays");
}

#[test]
fn a_lost_device_is_an_error_of_the_lane_not_a_crash() {
    // A device of its own: the others' stays.
    let dev = Device::open(None).expect("a GPU adapter (lavapipe in CI)");
    let data = Arc::new(Dataset::builtin("bas3").expect("bas3"));
    let lane = Lane::on::<Gpu>(&dev, config("pcd", 0.1), data).expect("a lane");
    let mut g = GpuLane::new(lane);
    g.run(10, 0.0).expect("updates");
    dev.finish();
    assert!(g.poll(0, 50.0, 1.0).error.is_none());
    dev.lose_for_test();
    let mut err = None;
    for t in 0..50 {
        let _ = g.run(10, f64::from(t));
        dev.progress();
        if let Some(e) = g.poll(0, 50.0, f64::from(t)).error {
            err = Some(e);
            break;
        }
    }
    let e = err.expect("the loss is reported");
    // The loss itself, or the first error of the work sent to the destroyed device.
    let e = e.to_string();
    assert!(
        e.contains("the GPU device was lost") || e.contains("the GPU reported an error"),
        "{e}"
    );
}

/// FPCD's ‖W_F‖ of every update stays on the GPU in the never-waiting lane (copied with the
/// next record) and the records are `Lane::run`'s, whose `w_norm` reads each value back at once:
/// the same window means bit for bit, over windows of 7 updates and of 100 (past the GPU list's
/// first 64 places), the first record's none.
#[test]
fn fpcd_on_a_lane_that_never_waits_makes_the_records_of_lane_run() {
    for (fast_lr, every, updates) in [(None, 7, 60), (Some(0.05), 7, 60), (None, 100, 250)] {
        let cfg = LaneConfig {
            fast_lr,
            every,
            ..config("fpcd", 0.1)
        };
        let want = lane(&cfg).run(updates).expect("run");
        let (got, _) = streamed(&cfg, updates);
        assert_eq!(got.len(), want.len(), "records");
        for (g, w) in got.iter().zip(&want) {
            let strip = |r: &Record| Record {
                atll: None,
                log_z: None,
                ..r.clone()
            };
            assert_eq!(strip(g), strip(w), "the record at update {}", w.iter);
        }
        assert!(
            !want[0].stats.contains_key("fast_w_norm"),
            "no update before the first record"
        );
        for r in &want[1..] {
            let x = r.stats["fast_w_norm"];
            assert!(x.is_finite() && x > 0.0, "‖W_F‖ at {}: {x}", r.iter);
        }
    }
}

//! The page's budget natively: lanes the page builds ([`rbm_playground::page_lane`]) are held to
//! `rbm_core::schema::budget::PAGE` — the issue 12 sweep's page cases are refused naming the
//! option, a too-slow exact evaluation drops the curve with a notice — while the same
//! configurations under the command line's budget behave as the CLI's.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::data::Dataset;
use rbm_core::model::Rbm;
use rbm_core::train::{Lane, LaneConfig};
use rbm_playground::{check_ais_in_page, check_grad_in_page, grad_config, page_lane};
use std::sync::Arc;

fn cfg(json: &str) -> LaneConfig {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    LaneConfig::from_object(v.as_object().unwrap()).unwrap()
}

fn bas4() -> Arc<Dataset> {
    Arc::new(Dataset::builtin("bas4").unwrap())
}

#[test]
fn page_lanes_are_held_to_the_page_budget() {
    for (json, key) in [
        (r#"{"seed": 1, "chains": 64, "hidden": 1000000}"#, "hidden"),
        (r#"{"seed": 1, "chains": 4194304, "k": 100000}"#, "chains"),
        (r#"{"seed": 1, "chains": 20000, "k": 1000}"#, "k"),
    ] {
        let e = page_lane(cfg(json), bas4()).err().expect(json);
        assert_eq!(e.key(), Some(key), "{json}: {e}");
        assert!(e.to_string().contains("the page"), "{e}");
    }
    // 16×100 000: trains in the page without the exact curve; the command line keeps it.
    let wide = cfg(r#"{"seed": 1, "hidden": 100000}"#);
    let lane = page_lane(wide.clone(), bas4()).unwrap();
    assert!(!lane.exact() && lane.notice().is_some());
    assert!(
        rbm_core::cost::check_lane(&wide, &bas4(), &rbm_core::schema::budget::CLI)
            .unwrap()
            .eval_secs
            .is_some()
    );
    // The first screen's lanes keep their exact curves.
    for algo in ["cd", "pcd"] {
        let c = cfg(&format!(
            r#"{{"seed": 1, "algo": "{algo}", "chains": 1000, "init": "ucd"}}"#
        ));
        let lane = page_lane(c.clone(), bas4()).unwrap();
        assert!(lane.exact() && lane.notice().is_none());
        assert!(Lane::new(c, bas4()).unwrap().exact());
    }
}

#[test]
fn ais_in_the_page_is_held_to_the_page_budget() {
    let model = Rbm::random(784, 500, 0.01, 1).unwrap();
    let ais = |particles: usize, betas: usize| rbm_core::eval::ais::AisConfig {
        particles,
        betas,
        seed: 1,
        schedule: Default::default(),
    };
    // The page's default (100 × 1000) and its option (100 × 10 000) run.
    check_ais_in_page(&model, &ais(100, 1000)).unwrap();
    check_ais_in_page(&model, &ais(100, 10_000)).unwrap();
    let e = check_ais_in_page(&model, &ais(100, 1_000_000)).unwrap_err();
    assert_eq!(e.key(), Some("betas"), "{e}");
    // Out of range: the range's message, not the budget's.
    let e = check_ais_in_page(&model, &ais(1, 1000)).unwrap_err();
    assert!(e.to_string().contains("between 2 and"), "{e}");
}

/// The live gradient panel's exact gradient runs in one call in the lane's worker: it is held to
/// what keeps the lane answering Pause; its repetitions are `rbm grad`'s configuration.
#[test]
fn the_exact_gradient_in_the_page_is_held_to_the_page_budget() {
    let small = Rbm::random(16, 16, 0.1, 1).unwrap();
    check_grad_in_page(&small, &bas4()).unwrap();
    // 16 × 1000 on bas4 is within the page's 2 s for an evaluation, not within a lane's slice.
    let wide = Rbm::random(16, 1000, 0.1, 1).unwrap();
    let e = check_grad_in_page(&wide, &bas4()).unwrap_err();
    assert!(e.to_string().contains("answers Pause"), "{e}");
    let digits = Arc::new(Dataset::parse("d", &"01".repeat(392)).unwrap());
    for n in [20, 25] {
        let big = Rbm::random(784, n, 0.01, 1).unwrap();
        let e = check_grad_in_page(&big, &digits).unwrap_err();
        assert!(e.to_string().contains("exact gradient"), "{e}");
    }
    let lane = cfg(r#"{"seed": 9, "algo": "cd", "k": 3, "chains": 50, "lr": 0.3}"#);
    let g = grad_config(&lane, &small, 100, 4.0).unwrap();
    assert_eq!(
        (g.seed, g.k, g.chains, g.exact_bits, g.hidden),
        (Some(4), 3, Some(50), 0, 16)
    );
    for reps in [1, 10_001] {
        assert_eq!(
            grad_config(&lane, &small, reps, 4.0).unwrap_err().key(),
            Some("grad_reps")
        );
    }
}

//! Native tests of the training lanes: identities and reproducibility (docs/algorithms.md §4).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::bas4;
use rbm_core::data::Dataset;
use rbm_core::train::{Lane, LaneConfig};
use rbm_core::Error;

fn cfg(algo: &str) -> LaneConfig {
    common::small_lane(algo, 25)
}

#[test]
fn fpcd_with_zero_fast_rate_is_pcd_bit_for_bit() {
    let mut pcd = Lane::new(cfg("pcd"), bas4()).unwrap();
    let mut fpcd = Lane::new(
        LaneConfig {
            fast_lr: Some(0.0),
            ..cfg("fpcd")
        },
        bas4(),
    )
    .unwrap();
    for _ in 0..200 {
        pcd.step().unwrap();
        fpcd.step().unwrap();
    }
    assert_eq!(pcd.model(), fpcd.model());
    assert_eq!(pcd.chain_states(), fpcd.chain_states());
    // And a non-zero fast rate does change the trajectory.
    let mut fast = Lane::new(
        LaneConfig {
            fast_lr: Some(0.1),
            ..cfg("fpcd")
        },
        bas4(),
    )
    .unwrap();
    fast.run(200).unwrap();
    assert_ne!(pcd.model(), fast.model());
}

#[test]
fn same_seed_same_curve_other_seed_other_curve() {
    for algo in ["cd", "mf-cd", "pcd", "fpcd"] {
        let a = Lane::new(cfg(algo), bas4()).unwrap().run(100).unwrap();
        let b = Lane::new(cfg(algo), bas4()).unwrap().run(100).unwrap();
        assert_eq!(a, b, "{algo}");
        assert_eq!(a.len(), 5);
        if algo != "mf-cd" {
            let c = Lane::new(
                LaneConfig {
                    seed: Some(4),
                    ..cfg(algo)
                },
                bas4(),
            )
            .unwrap()
            .run(100)
            .unwrap();
            assert_ne!(a.last().unwrap().atll, c.last().unwrap().atll, "{algo}");
        }
    }
}

#[test]
fn training_raises_the_exact_likelihood() {
    for algo in ["cd", "pcd"] {
        let recs = Lane::new(
            LaneConfig {
                chains: None,
                ..cfg(algo)
            },
            bas4(),
        )
        .unwrap()
        .run(500)
        .unwrap();
        let (first, last) = (recs[0].atll.unwrap(), recs.last().unwrap().atll.unwrap());
        assert!(last > first + 1.0, "{algo}: {first} -> {last}");
        assert!(last <= Dataset::builtin("bas4").unwrap().bound().unwrap() + 1e-9);
        assert_eq!(recs.last().unwrap().sweeps, 500.0);
    }
}

/// A run cut into slices that end early (a shell's time ran out) makes the same records and
/// model as one run.
#[test]
fn slices_ended_early_give_the_records_of_one_run() {
    let config = LaneConfig {
        every: 7,
        ..cfg("pcd")
    };
    let mut whole = Lane::new(config.clone(), bas4()).unwrap();
    let want = whole.run(60).unwrap();
    let mut sliced = Lane::new(config, bas4()).unwrap();
    let mut got = Vec::new();
    let mut calls = 0;
    while sliced.iter() < 60 {
        // Each slice asks for up to 60 more updates but is stopped after 1 to 5 of them.
        let stop_after = 1 + calls % 5;
        let mut done = 0;
        let before = sliced.iter();
        sliced
            .run_while(60 - before, &mut got, || {
                done += 1;
                done < stop_after
            })
            .unwrap();
        assert_eq!(sliced.iter() - before, stop_after.min(60 - before));
        calls += 1;
    }
    assert_eq!(got.len(), want.len());
    for (a, b) in got.iter().zip(&want) {
        assert_eq!(
            (a.iter, a.atll.map(f64::to_bits)),
            (b.iter, b.atll.map(f64::to_bits))
        );
    }
    assert_eq!(sliced.model().to_json(), whole.model().to_json());
}

#[test]
fn divergence_is_an_error_that_keeps_the_last_finite_model() {
    let mut lane = Lane::new(
        LaneConfig {
            lr: 3e38,
            ..cfg("cd")
        },
        bas4(),
    )
    .unwrap();
    let mut out = Vec::new();
    let err = lane.run_into(50, &mut out).unwrap_err();
    assert!(matches!(err, Error::Diverged { .. }), "{err}");
    assert!(lane.model().non_finite().is_none());
    assert!(lane.step().is_err(), "a failed lane stays failed");
    assert!(!out.is_empty(), "records made before the failure are kept");
    // The model kept is the last record's, and says so (a download is named after it).
    let last = out.last().unwrap();
    assert_eq!(lane.model_iter(), last.iter);
    assert!(
        lane.model_iter() < lane.iter(),
        "{} {}",
        lane.model_iter(),
        lane.iter()
    );
    let mut fresh = Lane::new(
        LaneConfig {
            lr: 3e38,
            ..cfg("cd")
        },
        bas4(),
    )
    .unwrap();
    for _ in 0..last.iter {
        fresh.step().unwrap();
    }
    assert_eq!(fresh.model_iter(), last.iter);
    assert_eq!(fresh.model().to_json(), lane.model().to_json());
}

#[test]
fn bad_options_are_refused_with_a_message() {
    let bad = [
        LaneConfig {
            lr: -0.1,
            ..cfg("cd")
        },
        LaneConfig {
            lr: f64::NAN,
            ..cfg("cd")
        },
        LaneConfig {
            hidden: 0,
            ..cfg("cd")
        },
        LaneConfig { k: 0, ..cfg("cd") },
        LaneConfig {
            batch: Some(33),
            ..cfg("cd")
        },
        LaneConfig {
            algo: "nope".into(),
            ..cfg("cd")
        },
        LaneConfig {
            hidden: 1 << 30,
            ..cfg("cd")
        },
    ];
    for c in bad {
        let e = Lane::new(c.clone(), bas4())
            .err()
            .unwrap_or_else(|| panic!("accepted {c:?}"));
        assert!(!e.to_string().is_empty());
    }
}

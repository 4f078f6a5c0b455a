//! Golden fixed-seed runs (native side): the records of a few short lanes, committed in
//! `tests/golden/runs.json` and checked bit for bit here and in the browser (`tests/wasm.rs`),
//! so the page shows exactly the numbers the CLI computes.
//!
//! Regenerate after an intended change of the numbers with
//! `GOLDEN_UPDATE=1 cargo test --release --test golden` and commit the file.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{assert_records_match, fnv, golden_record, Golden, GoldenRun, GOLDEN_PATH};
use rbm_core::data::Dataset;
use rbm_core::train::{Lane, LaneConfig, Record};
use serde_json::json;
use std::sync::Arc;

/// The runs: the first screen's set-up (UCD paper's code: 16 hidden, 1000 chains, full batch,
/// UCD init, lr 0.1) for CD-1 and PCD-1, and smaller runs of every other algorithm (UCD on
/// BAS 4×4; S-DCP, CS-DCP and CG with the S-DCP paper's small-data settings).
fn specs() -> Vec<(&'static str, &'static str, u32, serde_json::Value)> {
    let first = |algo: &str| json!({"algo": algo, "hidden": 16, "lr": 0.1, "k": 1, "chains": 1000, "init": "ucd", "seed": 7, "every": 10});
    vec![
        ("cd-1", "bas4", 50, first("cd")),
        ("pcd-1", "bas4", 50, first("pcd")),
        (
            "mf-cd",
            "bas4",
            30,
            json!({"algo": "mf-cd", "hidden": 8, "lr": 0.05, "seed": 3, "every": 10, "lane": 1}),
        ),
        (
            "fpcd",
            "bas4",
            50,
            json!({"algo": "fpcd", "hidden": 12, "lr": 0.1, "chains": 100, "batch": 8, "seed": 5, "every": 10, "init": "ucd", "lane": 2}),
        ),
        (
            "ucd",
            "bas4",
            30,
            json!({"algo": "ucd", "hidden": 16, "lr": 0.1, "chains": 300, "init": "ucd", "seed": 7, "every": 10}),
        ),
        (
            "sdcp",
            "bas3",
            60,
            json!({"algo": "sdcp", "hidden": 4, "lr": 0.3, "d": 3, "kprime": 4, "seed": 2, "every": 20}),
        ),
        (
            "cs-dcp",
            "bas3",
            60,
            json!({"algo": "cs-dcp", "hidden": 4, "lr": 0.5, "d": 3, "kprime": 4, "seed": 2, "every": 20}),
        ),
        (
            "cg",
            "bas3",
            300,
            json!({"algo": "cg", "hidden": 4, "lr": 0.5, "k": 12, "seed": 2, "every": 100}),
        ),
    ]
}

fn run(data: &str, updates: u32, config: &serde_json::Value) -> (Vec<Record>, String) {
    let cfg: LaneConfig =
        serde_json::from_value(config.clone()).expect("golden configurations are valid");
    let mut lane = Lane::new(cfg, Arc::new(Dataset::builtin(data).unwrap())).unwrap();
    let records = lane.run(updates as u64).unwrap();
    let m = lane.model();
    (records, fnv(&[m.w(), &m.b, &m.c]))
}

#[test]
fn golden_runs_are_reproduced_bit_for_bit() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN_PATH);
    if std::env::var_os("GOLDEN_UPDATE").is_some() {
        let runs = specs()
            .into_iter()
            .map(|(name, data, updates, config)| {
                let (records, model_fnv) = run(data, updates, &config);
                GoldenRun {
                    name: name.into(),
                    data: data.into(),
                    updates,
                    config,
                    records: records.iter().map(golden_record).collect(),
                    model_fnv,
                }
            })
            .collect();
        let g = Golden {
            about: "Fixed-seed lane records checked bit for bit natively (tests/golden.rs) and in the browser \
                    (tests/wasm.rs). Regenerate: GOLDEN_UPDATE=1 cargo test --release --test golden"
                .into(),
            runs,
        };
        std::fs::write(&path, serde_json::to_string_pretty(&g).unwrap() + "\n").unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; create it with GOLDEN_UPDATE=1 cargo test --release --test golden",
            path.display()
        )
    });
    let g: Golden = serde_json::from_str(&text).unwrap();
    let specs = specs();
    assert_eq!(
        g.runs.len(),
        specs.len(),
        "the golden file's runs are not the specified ones: regenerate it"
    );
    for (want, (name, data, updates, config)) in g.runs.iter().zip(specs) {
        assert_eq!(
            (
                want.name.as_str(),
                want.data.as_str(),
                want.updates,
                &want.config
            ),
            (name, data, updates, &config)
        );
        let (records, model_fnv) = run(data, updates, &config);
        assert_records_match(name, &records, &want.records);
        assert_eq!(model_fnv, want.model_fnv, "{name}: final model differs");
        // The runs must be worth comparing: finite, rising curves.
        let atll: Vec<f64> = records.iter().map(|r| r.atll.unwrap()).collect();
        assert!(
            atll.iter().all(|x| x.is_finite()) && atll.last() > atll.first(),
            "{name}: {atll:?}"
        );
    }
}

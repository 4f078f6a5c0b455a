//! The wasm API in a real browser (wasm-bindgen-test, headless Chrome): the golden fixed-seed
//! runs of `tests/golden/runs.json` give the same bits through `WasmLane` as natively, bad
//! configurations come back as errors with the core's message, and a diverging lane reports
//! the divergence while keeping its records and its last finite model.
//!
//! Run: `npm run test:wasm` (or `cargo test --release --target wasm32-unknown-unknown
//! --no-default-features --test wasm` with `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=
//! wasm-bindgen-test-runner` and `CHROMEDRIVER=/usr/bin/chromedriver`).
#![cfg(target_arch = "wasm32")]

mod common;

use common::{assert_records_match, fnv, Golden};
use rbm_playground::experiments::PRESETS;
use rbm_playground::train::Record;
use rbm_playground::train::{find, LaneConfig};
use rbm_playground::wasm::{algorithms, data_sets, default_config, presets, WasmLane};
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("golden/runs.json");

/// A configuration as the page builds it: a plain object parsed from JSON.
fn js(config: &str) -> JsValue {
    js_sys::JSON::parse(config).unwrap()
}

fn message(e: wasm_bindgen::JsError) -> String {
    let v: JsValue = e.into();
    v.dyn_into::<js_sys::Error>()
        .expect("a JavaScript Error")
        .message()
        .into()
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &key.into()).unwrap()
}

#[derive(Deserialize)]
struct RunResult {
    records: Vec<Record>,
    iter: u64,
    seed: String,
    error: Option<String>,
    failed: bool,
}

fn run(lane: &mut WasmLane, updates: u32) -> RunResult {
    serde_wasm_bindgen::from_value(lane.run(updates).unwrap()).unwrap()
}

#[wasm_bindgen_test]
fn golden_runs_match_the_native_build_bit_for_bit() {
    let g: Golden = serde_json::from_str(GOLDEN).unwrap();
    assert!(g.runs.len() >= 2);
    for want in &g.runs {
        let mut lane = WasmLane::new(js(&want.config.to_string()), &want.data).unwrap();
        // Two calls, as the worker slices its work: records must not depend on the slicing.
        let first = want.updates / 3;
        let mut a = run(&mut lane, 0);
        assert_eq!(a.records.len(), 1, "run(0) gives the record at update 0");
        a.records.extend(run(&mut lane, first).records);
        let b = run(&mut lane, want.updates - first);
        a.records.extend(b.records);
        assert_eq!(b.iter, want.updates as u64);
        assert_eq!(b.error, None);
        assert_eq!(b.seed, want.config["seed"].to_string());
        assert_records_match(&want.name, &a.records, &want.records);
        let (w, vb, hb) = (
            lane.weights().to_vec(),
            lane.visible_bias().to_vec(),
            lane.hidden_bias().to_vec(),
        );
        assert_eq!(w.len(), lane.visible() * lane.hidden());
        assert_eq!(
            fnv(&[&w, &vb, &hb]),
            want.model_fnv,
            "{}: final model differs",
            want.name
        );
    }
}

#[wasm_bindgen_test]
fn bad_configurations_are_errors_with_the_core_message() {
    let cases = [
        (r#"{"lr": -1}"#, "bas4", "learning rate"),
        (r#"{"algo": "nope"}"#, "bas4", "unknown algorithm 'nope'"),
        (
            r#"{"learning_rate": 0.1}"#,
            "bas4",
            "unknown lane option 'learning_rate'",
        ),
        (r#"[1, 2]"#, "bas4", "must be an object"),
        (r#"{"seed": -1}"#, "bas4", "lane configuration"),
        (r#"{"k": "three"}"#, "bas4", "lane configuration"),
        (r#"{"k": 0}"#, "bas4", "k must be at least 1"),
        (r#"{"hidden": 0}"#, "bas4", "hidden units"),
        (r#"{"batch": 33}"#, "bas4", "batch"),
        (r#"{}"#, "mnist-9", "unknown data set"),
    ];
    for (config, data, want) in cases {
        let e = WasmLane::new(js(config), data)
            .err()
            .unwrap_or_else(|| panic!("{config} on {data} was accepted"));
        let msg = message(e);
        assert!(msg.contains(want), "{config}: {msg}");
        assert!(!msg.contains('\n'), "one-line message: {msg}");
    }
    // Every key of the core's configuration is accepted.
    let every_key = serde_json::to_string(&rbm_playground::train::LaneConfig {
        seed: Some(4),
        ..Default::default()
    })
    .unwrap();
    assert!(WasmLane::new(js(&every_key), "bas4").is_ok(), "{every_key}");
    // Missing keys take the core's defaults.
    assert!(WasmLane::new(js("{}"), "bas3").is_ok());
    assert!(WasmLane::new(JsValue::UNDEFINED, "bas3").is_ok());
}

#[wasm_bindgen_test]
fn a_diverging_lane_reports_it_and_keeps_its_last_finite_model() {
    let mut lane = WasmLane::new(
        js(r#"{"algo": "cd", "lr": 1e39, "seed": 1, "chains": 100, "init": "ucd"}"#),
        "bas4",
    )
    .unwrap();
    let r = run(&mut lane, 20);
    let msg = r.error.expect("diverged");
    assert!(msg.contains("diverged"), "{msg}");
    assert!(r.failed);
    assert_eq!(r.records.len(), 1, "the record at update 0 is kept");
    assert!(lane.weights().to_vec().iter().all(|x| x.is_finite()));
    assert_eq!(lane.failure(), Some(msg.clone()));
    // It stays failed and says so again.
    let again = run(&mut lane, 5);
    assert_eq!(again.error, Some(msg));
    assert!(again.records.is_empty());
    // Evaluation and export still work on the kept model.
    assert!(get(&lane.evaluate().unwrap(), "atll")
        .as_f64()
        .unwrap()
        .is_finite());
    assert!(lane
        .export_model()
        .starts_with("{\"visible\":16,\"hidden\":16,"));
}

#[wasm_bindgen_test]
fn catalogues_and_views_describe_the_lane() {
    let algos = js_sys::Array::from(&algorithms().unwrap());
    let names: Vec<String> = algos
        .iter()
        .map(|a| get(&a, "name").as_string().unwrap())
        .collect();
    assert!(
        names.contains(&"cd".to_string()) && names.contains(&"pcd".to_string()),
        "{names:?}"
    );
    assert!(js_sys::Array::is_array(&get(&algos.get(0), "options")));

    let sets = js_sys::Array::from(&data_sets().unwrap());
    let bas4 = sets
        .iter()
        .find(|d| get(d, "name").as_string().as_deref() == Some("bas4"))
        .unwrap();
    assert_eq!(get(&bas4, "rows").as_f64(), Some(32.0));
    assert_eq!(js_sys::Array::from(&get(&bas4, "patterns")).length(), 30);
    assert!((get(&bas4, "bound").as_f64().unwrap() + 3.379).abs() < 1e-3);
    assert_eq!(
        get(&default_config().unwrap(), "algo")
            .as_string()
            .as_deref(),
        Some("cd")
    );

    let mut lane = WasmLane::new(
        js(r#"{"algo": "pcd", "seed": 2, "chains": 64, "init": "ucd"}"#),
        "bas4",
    )
    .unwrap();
    run(&mut lane, 20);
    let d = lane.distribution().unwrap();
    let model: Vec<f64> = serde_wasm_bindgen::from_value(get(&d, "model")).unwrap();
    let data: Vec<f64> = serde_wasm_bindgen::from_value(get(&d, "data")).unwrap();
    let off = get(&d, "off").as_f64().unwrap();
    assert_eq!((model.len(), data.len()), (30, 30));
    assert!((model.iter().sum::<f64>() + off - 1.0).abs() < 1e-9);
    assert!((data.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let e = lane.evaluate().unwrap();
    assert_eq!(
        get(&e, "log_z").as_f64(),
        get(&d, "log_z").as_f64(),
        "log Z reused from the record at update 20"
    );
    run(&mut lane, 3);
    let (d, e) = (lane.distribution().unwrap(), lane.evaluate().unwrap());
    assert_eq!(
        get(&e, "log_z").as_f64(),
        get(&d, "log_z").as_f64(),
        "log Z of the model at update 23"
    );
    assert_eq!(lane.chains().unwrap().length(), 64 * 16);
    assert_eq!(lane.iter(), 23.0);
}

#[wasm_bindgen_test]
fn presets_give_the_papers_lanes_as_valid_configurations() {
    let list = js_sys::Array::from(&presets().unwrap());
    assert_eq!(list.length() as usize, PRESETS.len());
    for (entry, p) in list.iter().zip(PRESETS) {
        assert_eq!(get(&entry, "name").as_string().as_deref(), Some(p.name));
        assert_eq!(get(&entry, "data").as_string().as_deref(), Some(p.data));
        let rates: Vec<f64> = serde_wasm_bindgen::from_value(get(&entry, "rates")).unwrap();
        let notes: Vec<String> = serde_wasm_bindgen::from_value(get(&entry, "rate_notes")).unwrap();
        assert_eq!(rates, p.rates);
        assert_eq!(notes.len(), rates.len());
        assert!(!get(&entry, "expect").as_string().unwrap().is_empty());
        assert_eq!(get(&entry, "iters").as_f64(), Some(p.iters as f64));
        let lanes = js_sys::Array::from(&get(&entry, "lanes"));
        assert_eq!(lanes.length() as usize, p.lanes.len());
        for (i, lane) in lanes.iter().enumerate() {
            let label = get(&lane, "label").as_string().unwrap();
            assert_eq!(label, p.lanes[i].label);
            assert!(!label.is_empty());
            let algo = get(&lane, "algo").as_string().unwrap();
            // The configuration object deserialises back into the core's own lane_config.
            let js_config = get(&lane, "config");
            let cfg: LaneConfig = serde_wasm_bindgen::from_value(js_config.clone()).unwrap();
            assert_eq!(
                serde_json::to_value(&cfg).unwrap(),
                serde_json::to_value(p.lane_config(i, p.rates[0], 1, p.every)).unwrap(),
                "{} lane {label}",
                p.name
            );
            assert_eq!((cfg.algo.as_str(), cfg.lane), (algo.as_str(), i as u64));
            assert_eq!(
                (cfg.hidden, cfg.chains, cfg.batch),
                (p.hidden, p.chains, p.batch)
            );
            // As the page hands it back: a lane of a registered algorithm builds and trains
            // with exact values below the data set's bound; an algorithm this build lacks is
            // refused with the core's message naming it.
            match WasmLane::new(js_config, p.data) {
                Ok(mut wl) => {
                    assert!(find(&algo).is_ok());
                    let r = run(&mut wl, 3);
                    assert_eq!(r.error, None, "{} lane {label}", p.name);
                    assert_eq!(r.iter, 3);
                    let bound = p.dataset().unwrap().bound().unwrap();
                    for rec in &r.records {
                        let atll = rec.atll.expect("exact ATLL");
                        assert!(atll.is_finite() && atll < bound, "{label}: {atll}");
                    }
                }
                Err(e) => {
                    assert!(find(&algo).is_err(), "{} lane {label} refused", p.name);
                    let msg = message(e);
                    assert!(
                        msg.contains(&format!("unknown algorithm '{algo}'")),
                        "{msg}"
                    );
                }
            }
        }
    }
}

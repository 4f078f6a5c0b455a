//! The wasm API in a real browser (wasm-bindgen-test, headless Chrome): the golden fixed-seed
//! runs of `tests/golden/runs.json` give the same bits through `WasmLane` as natively, bad
//! configurations come back as `{kind, key, message}` naming the option, a diverging lane
//! reports the divergence while keeping its records and its last finite model. (The panic
//! path traps the module, so the page's end-to-end tests check it.)
//!
//! Run: `npm run test:wasm` (or `cargo test --release -p rbm-playground --target
//! wasm32-unknown-unknown --test wasm` with `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=
//! wasm-bindgen-test-runner` and `CHROMEDRIVER=/usr/bin/chromedriver`).
#![cfg(target_arch = "wasm32")]

#[path = "../../../tests/common/mod.rs"]
mod common;

use common::{assert_records_match, fnv, Golden};
use rbm_core::experiments::PRESETS;
use rbm_core::model::Rbm;
use rbm_core::train::{find, Record};
use rbm_playground::{catalog, WasmLane};
use serde::Deserialize;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("../../../tests/golden/runs.json");

/// A configuration as the page builds it: a plain object parsed from JSON.
fn js(config: &str) -> JsValue {
    js_sys::JSON::parse(config).unwrap()
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &key.into()).unwrap()
}

#[derive(Deserialize, Debug, PartialEq)]
struct ErrorInfo {
    kind: String,
    key: Option<String>,
    message: String,
}

#[derive(Deserialize)]
struct SliceResult {
    records: Vec<Record>,
    iter: u64,
    error: Option<ErrorInfo>,
    failed: bool,
}

fn step(lane: &mut WasmLane, updates: u32) -> SliceResult {
    serde_wasm_bindgen::from_value(lane.step(updates, false, None).unwrap()).unwrap()
}

fn error(e: JsValue) -> ErrorInfo {
    serde_wasm_bindgen::from_value(e).unwrap()
}

fn model(lane: &WasmLane) -> Rbm {
    Rbm::from_json(&lane.export_model()).unwrap()
}

#[wasm_bindgen_test]
fn golden_runs_match_the_native_build_bit_for_bit() {
    let g: Golden = serde_json::from_str(GOLDEN).unwrap();
    assert!(g.runs.len() >= 2);
    for want in &g.runs {
        let mut lane = WasmLane::new(js(&want.config.to_string()), &want.data).unwrap();
        // Two calls, as the worker slices its work: records must not depend on the slicing.
        let first = want.updates / 3;
        let mut a = step(&mut lane, 0);
        assert_eq!(a.records.len(), 1, "step(0) gives the record at update 0");
        a.records.extend(step(&mut lane, first).records);
        let b = step(&mut lane, want.updates - first);
        a.records.extend(b.records);
        assert_eq!(b.iter, want.updates as u64);
        assert_eq!(b.error, None);
        assert_eq!(lane.seed(), want.config["seed"].to_string());
        assert_records_match(&want.name, &a.records, &want.records);
        let m = model(&lane);
        assert_eq!(
            fnv(&[m.w(), &m.b, &m.c]),
            want.model_fnv,
            "{}: final model differs",
            want.name
        );
    }
}

#[wasm_bindgen_test]
fn bad_configurations_are_errors_naming_the_option() {
    let cases = [
        (r#"{"lr": -1}"#, "bas4", Some("lr"), "learning rate"),
        (
            r#"{"algo": "nope"}"#,
            "bas4",
            Some("algo"),
            "unknown algorithm 'nope'",
        ),
        (
            r#"{"learning_rate": 0.1}"#,
            "bas4",
            Some("learning_rate"),
            "unknown option",
        ),
        (r#"[1, 2]"#, "bas4", None, "must be an object"),
        (r#"{"seed": -1}"#, "bas4", Some("seed"), "seed must be"),
        (
            r#"{"k": "three"}"#,
            "bas4",
            Some("k"),
            "Gibbs sweeps k must be",
        ),
        (r#"{"k": 0}"#, "bas4", Some("k"), "from 1 to"),
        (r#"{"hidden": 0}"#, "bas4", Some("hidden"), "hidden units"),
        (r#"{"batch": 33}"#, "bas4", Some("batch"), "32 rows"),
        // The page's budget (issue 12's sweep): 256 MiB per lane, an update within 0.2 s.
        (
            r#"{"chains": 64, "hidden": 1000000}"#,
            "bas4",
            Some("hidden"),
            "256 MiB the page allows",
        ),
        (
            r#"{"chains": 4194304, "k": 100000}"#,
            "bas4",
            Some("chains"),
            "256 MiB the page allows",
        ),
        (
            r#"{"chains": 10000, "k": 1000}"#,
            "bas4",
            Some("k"),
            "the page allows per update",
        ),
        (r#"{}"#, "mnist-9", Some("data"), "unknown data set"),
    ];
    for (config, data, key, want) in cases {
        let e = error(
            WasmLane::new(js(config), data)
                .err()
                .unwrap_or_else(|| panic!("{config} on {data} was accepted")),
        );
        assert_eq!(e.key.as_deref(), key, "{config}: {e:?}");
        assert!(e.message.contains(want), "{config}: {e:?}");
        assert!(!e.message.contains('\n'), "one-line message: {e:?}");
    }
    // Every key of the core's configuration is accepted.
    let every_key = serde_json::to_string(&rbm_core::train::LaneConfig {
        seed: Some(4),
        ..Default::default()
    })
    .unwrap();
    assert!(WasmLane::new(js(&every_key), "bas4").is_ok(), "{every_key}");
    // Missing keys take the core's defaults; a missing seed is drawn below 2^53.
    assert!(WasmLane::new(js("{}"), "bas3").is_ok());
    let lane = WasmLane::new(JsValue::UNDEFINED, "bas3").unwrap();
    assert!(lane.seed().parse::<u64>().unwrap() < 1 << 53);
    assert_eq!(lane.notice(), None);
}

/// A lane whose exact evaluation exceeds the page's budget trains without its exact curve and
/// says why; its exact ATLL for the AIS panel is null too.
#[wasm_bindgen_test]
fn a_too_slow_exact_evaluation_drops_the_curve_with_a_notice() {
    let mut lane = WasmLane::new(js(r#"{"seed": 1, "hidden": 100000, "every": 1}"#), "bas4")
        .expect("the lane is built");
    let notice = lane.notice().expect("a notice");
    assert!(
        notice.contains("No exact curve") && notice.contains("the page"),
        "{notice}"
    );
    let r = step(&mut lane, 1);
    assert_eq!(r.records.len(), 2);
    assert!(r.records.iter().all(|rec| rec.atll.is_none()));
    assert_eq!(lane.exact_atll("bas4").unwrap(), None);
    // AIS past the page's budget names its option.
    let e = error(
        lane.ais("bas4", 100, 10_000_000, 1.0, false, None)
            .err()
            .unwrap(),
    );
    assert_eq!(e.key.as_deref(), Some("betas"), "{e:?}");
}

#[wasm_bindgen_test]
fn a_diverging_lane_reports_it_and_keeps_its_last_finite_model() {
    let mut lane = WasmLane::new(
        js(r#"{"algo": "cd", "lr": 3e38, "seed": 1, "chains": 100, "init": "ucd"}"#),
        "bas4",
    )
    .unwrap();
    let r = step(&mut lane, 20);
    let e = r.error.expect("diverged");
    assert_eq!(e.kind, "diverged");
    assert!(e.message.contains("diverged"), "{e:?}");
    assert!(r.failed);
    assert_eq!(r.records.len(), 1, "the record at update 0 is kept");
    assert!(model(&lane).w().iter().all(|x| x.is_finite()));
    // It stays failed and says so again.
    let again = step(&mut lane, 5);
    assert_eq!(again.error, Some(e));
    assert!(again.records.is_empty());
    // The view and export still work on the kept model.
    let v = lane.step(0, true, None).unwrap();
    let d = get(&get(&v, "view"), "dist");
    assert!(get(&d, "log_z").as_f64().unwrap().is_finite());
    assert!(lane
        .export_model()
        .starts_with("{\"visible\":16,\"hidden\":16,"));
    assert_eq!(
        Rbm::from_bytes(&lane.export_model_binary()).unwrap(),
        model(&lane),
        "both formats hold the same model"
    );
}

#[wasm_bindgen_test]
fn the_catalog_and_views_describe_the_lane() {
    let cat = catalog().unwrap();
    let algos = js_sys::Array::from(&get(&cat, "algorithms"));
    let names: Vec<String> = algos
        .iter()
        .map(|a| get(&a, "name").as_string().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| find(n).is_ok()) && names.len() >= 8,
        "{names:?}"
    );
    let options = js_sys::Array::from(&get(&cat, "options"));
    // The lanes' options, then the page's views' (scope "view").
    assert_eq!(
        options.length() as usize,
        rbm_core::train::config::options().len() + rbm_core::schema::views::VIEW_OPTIONS.len()
    );
    let sets = js_sys::Array::from(&get(&cat, "data_sets"));
    let bas4 = sets
        .iter()
        .find(|d| get(d, "name").as_string().as_deref() == Some("bas4"))
        .unwrap();
    assert_eq!(get(&bas4, "rows").as_f64(), Some(32.0));
    assert_eq!(js_sys::Array::from(&get(&bas4, "patterns")).length(), 30);

    let mut lane = WasmLane::new(
        js(r#"{"algo": "pcd", "seed": 2, "chains": 64, "init": "ucd", "every": 10}"#),
        "bas4",
    )
    .unwrap();
    // One call per slice: records and, when asked, the view (log Z reused from the record).
    let r = lane.step(20, true, None).unwrap();
    let recs: Vec<Record> = serde_wasm_bindgen::from_value(get(&r, "records")).unwrap();
    assert_eq!(recs.iter().map(|r| r.iter).collect::<Vec<_>>(), [0, 10, 20]);
    let v = get(&r, "view");
    let d = get(&v, "dist");
    let model_p: Vec<f64> = serde_wasm_bindgen::from_value(get(&d, "model")).unwrap();
    let off = get(&d, "off").as_f64().unwrap();
    assert_eq!(model_p.len(), 30);
    assert!((model_p.iter().sum::<f64>() + off - 1.0).abs() < 1e-9);
    assert_eq!(get(&d, "log_z").as_f64(), recs[2].log_z);
    let w = js_sys::Float32Array::from(get(&v, "weights"));
    assert_eq!(w.to_vec(), model(&lane).w());
    let chains: Vec<u8> = serde_wasm_bindgen::from_value(get(&v, "chains")).unwrap();
    assert_eq!(chains.len(), 24 * 16);
    assert!(lane.step(3, false, None).is_ok());
    assert!(get(&lane.step(0, false, None).unwrap(), "view").is_null());
    assert_eq!(lane.iter(), 23.0);
    // A slice whose time is up ends after its first update: 7 such calls are 7 updates, the
    // same model as one call of 7.
    let mut timed =
        WasmLane::new(js(r#"{"algo": "pcd", "seed": 2, "chains": 64}"#), "bas4").unwrap();
    let mut once =
        WasmLane::new(js(r#"{"algo": "pcd", "seed": 2, "chains": 64}"#), "bas4").unwrap();
    for i in 1..=7 {
        let r = timed.step(1000, false, Some(0.0)).unwrap();
        assert_eq!(get(&r, "iter").as_f64(), Some(i as f64));
    }
    once.step(7, false, None).unwrap();
    assert_eq!(model(&timed).to_json(), model(&once).to_json());
}

/// MNIST-shaped stand-ins loaded as the page loads its asset: 2 200 grey 28×28 digits of a few
/// strokes (the split gives 200 training and 1 000 test digits).
fn load_fake_mnist() -> rbm_core::data::mnist::Images {
    let side = rbm_core::data::mnist::SIDE;
    let images = rbm_core::data::mnist::Images {
        height: side,
        width: side,
        pixels: (0..2_200 * side * side)
            .map(|i| {
                let (d, y, x) = (i / (side * side), i / side % side, i % side);
                if (x + d % 5).abs_diff(y) < 3 {
                    220
                } else {
                    (i * 7 % 40) as u8
                }
            })
            .collect(),
        labels: None,
    };
    rbm_playground::load_asset(&images.encode()).unwrap();
    images
}

/// The data registry is shared by every test of this module, and only the first load of MNIST
/// can check the message before it: the tests that load MNIST run here, in this order.
#[wasm_bindgen_test]
fn mnist_before_and_after_loading_presets_and_deferred_exact_curves() {
    loaded_data_sets_train_and_bad_files_are_refused();
    deferred_exact_curves_merge_the_pools_blocks_to_the_core_bits();
    presets_give_the_papers_lanes_as_valid_configurations();
}

fn presets_give_the_papers_lanes_as_valid_configurations() {
    load_fake_mnist();
    let list = js_sys::Array::from(&get(&catalog().unwrap(), "presets"));
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
        // The paper's scale where the defaults are shortened (issue 30), for the preset picker.
        let paper = get(&entry, "paper_scale");
        match p.paper_scale {
            None => assert!(paper.is_null(), "{}", p.name),
            Some(s) => {
                for (key, want) in [
                    ("trials", s.trials as f64),
                    ("iters", s.iters as f64),
                    ("every", s.every as f64),
                ] {
                    assert_eq!(get(&paper, key).as_f64(), Some(want), "{} {key}", p.name);
                }
            }
        }
        let lanes = js_sys::Array::from(&get(&entry, "lanes"));
        assert_eq!(lanes.length() as usize, p.lanes.len());
        for (i, lane) in lanes.iter().enumerate() {
            let label = get(&lane, "label").as_string().unwrap();
            assert_eq!(label, p.lanes[i].label);
            assert!(!label.is_empty());
            let algo = get(&lane, "algo").as_string().unwrap();
            // The configuration object deserialises back into the core's own lane_config.
            let js_config = get(&lane, "config");
            let v: serde_json::Value = serde_wasm_bindgen::from_value(js_config.clone()).unwrap();
            let cfg = rbm_core::train::LaneConfig::from_object(v.as_object().unwrap()).unwrap();
            assert_eq!(
                serde_json::to_value(&cfg).unwrap(),
                serde_json::to_value(p.lane_config(i, p.rates[0], 1, p.every).unwrap()).unwrap(),
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
                Ok(mut wl) if p.data == "mnist" => {
                    // MNIST: one update (784×500 with 24 sweeps is slow in a test); the 784×25
                    // preset's exact curve goes to the evaluation pool.
                    assert!(find(&algo).is_ok());
                    let r = step(&mut wl, 1);
                    assert_eq!((r.error, r.iter), (None, 1), "{} lane {label}", p.name);
                    let deferred = p.ais.is_none();
                    assert_eq!(wl.exact_blocks(), if deferred { 512 } else { 0 });
                    assert!(r.records.iter().all(|rec| rec.atll.is_none()));
                }
                Ok(mut wl) => {
                    assert!(find(&algo).is_ok());
                    let r = step(&mut wl, 3);
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
                    assert_eq!(error(e).key.as_deref(), Some("algo"));
                }
            }
        }
    }
}

/// MNIST-style data reach lanes through `loadAsset` (the page's lazily fetched asset) and
/// `loadIdx` (the user's files); before loading, or with a damaged file, the error names the
/// data set input.
fn loaded_data_sets_train_and_bad_files_are_refused() {
    let cfg = r#"{"algo": "cd", "hidden": 3, "batch": 10, "seed": 1, "every": 2}"#;
    let e = error(WasmLane::new(js(cfg), "mnist-test").err().unwrap());
    assert_eq!(e.key.as_deref(), Some("data"));
    assert!(e.message.contains("not loaded"), "{e:?}");
    let images = rbm_core::data::mnist::Images {
        height: 2,
        width: 3,
        pixels: (0..2_200 * 6).map(|i| (i * 31 % 256) as u8).collect(),
        labels: Some((0..2_200).map(|i| (i % 10) as u8).collect()),
    };
    let bytes = images.encode();
    let sets = js_sys::Array::from(&rbm_playground::load_asset(&bytes).unwrap());
    assert_eq!(sets.length(), 3);
    let mut lane = WasmLane::new(js(cfg), "mnist-test").unwrap();
    let r = step(&mut lane, 4);
    assert_eq!(r.records.len(), 3);
    assert!(r.records.iter().all(|x| x.atll.is_some_and(f64::is_finite)));
    let mut damaged = bytes.clone();
    damaged[30] ^= 1;
    let e = error(rbm_playground::load_asset(&damaged).err().unwrap());
    assert_eq!(e.key.as_deref(), Some("data"));
    assert!(e.message.contains("checksum"), "{e:?}");

    let mut idx = vec![0u8, 0, 8, 3, 0, 0, 0, 12, 0, 0, 0, 2, 0, 0, 0, 2];
    idx.extend((0..48).map(|i| (i * 5) as u8));
    let set = rbm_playground::load_idx("mine", &idx, None).unwrap();
    assert_eq!(get(&set, "rows").as_f64(), Some(12.0));
    assert!(WasmLane::new(js(r#"{"seed": 2, "hidden": 2}"#), "mine").is_ok());
    let e = error(
        rbm_playground::load_idx("bad", &idx[..20], None)
            .err()
            .unwrap(),
    );
    assert_eq!(e.key.as_deref(), Some("data"));
}

/// A lane whose smaller layer is above 20 units and within its `exact_bits` defers its exact
/// curve: its records carry no ATLL, and the partial sums of the enumeration's blocks, computed
/// in any split by `logZBlocks` (the page's evaluation workers), give `finishExact` the bits of
/// the core's one-thread evaluation of the thresholded training data.
fn deferred_exact_curves_merge_the_pools_blocks_to_the_core_bits() {
    use rbm_core::eval::exact;
    let images = load_fake_mnist();
    let cfg = r#"{"algo": "pcd", "hidden": 21, "batch": 20, "lr": 0.05, "seed": 5, "every": 2, "exact_bits": 21}"#;
    let mut lane = WasmLane::new(js(cfg), "mnist-test").unwrap();
    assert_eq!(lane.exact_blocks(), 32);
    let r = step(&mut lane, 2);
    assert_eq!(r.records.len(), 2);
    assert!(r.records.iter().all(|x| x.atll.is_none()));
    let bytes = lane.export_model_binary();
    let mut parts = rbm_playground::log_z_blocks(&bytes, 0, 13).unwrap();
    parts.extend(rbm_playground::log_z_blocks(&bytes, 13, 32).unwrap());
    assert_eq!(parts.len(), 64);
    let got = lane.finish_exact(&parts).unwrap();
    let rbm = model(&lane);
    let test = rbm_core::data::mnist::split_dataset(&images, "mnist-test")
        .unwrap()
        .thresholded();
    let log_z = exact::log_z(&rbm).unwrap();
    let atll = exact::average_log_likelihood(&rbm, &test, log_z).unwrap();
    assert_eq!(
        get(&got, "logZ").as_f64().map(f64::to_bits),
        Some(log_z.to_bits())
    );
    assert_eq!(
        get(&got, "atll").as_f64().map(f64::to_bits),
        Some(atll.to_bits())
    );
    // Missing blocks, or a lane that enumerates inside its step, are refused.
    assert!(lane.finish_exact(&parts[..62]).is_err());
    let mut inline =
        WasmLane::new(js(r#"{"hidden": 8, "batch": 20, "seed": 1}"#), "mnist-test").unwrap();
    assert_eq!(inline.exact_blocks(), 0);
    assert!(inline.finish_exact(&parts).is_err());
    assert!(rbm_playground::log_z_blocks(&bytes, 30, 33).is_err());
}

/// A log Z within the page's budget but too slow for a lane's own slices (16×2000 on `bas4`:
/// 2^16 states × 2000 units, ≈ 0.18 s estimated) is deferred to the pool as well, so the lane's worker answers
/// Pause meanwhile: the pool's blocks give the bits of the core's in-lane evaluation, and the
/// view after `finishExact` shows the model distribution from that log Z.
#[wasm_bindgen_test]
fn a_slow_exact_evaluation_of_a_narrow_lane_is_deferred_with_the_same_bits() {
    use rbm_core::data::Dataset;
    use rbm_core::eval::exact;
    let cfg = r#"{"algo": "cd", "hidden": 2000, "seed": 4, "every": 3, "chains": 64}"#;
    let mut lane = WasmLane::new(js(cfg), "bas4").unwrap();
    assert_eq!(lane.exact_blocks(), 1);
    assert!(lane.view_after_exact());
    let r = step(&mut lane, 3);
    assert_eq!(r.records.len(), 2);
    assert!(r.records.iter().all(|x| x.atll.is_none()));
    let bytes = lane.export_model_binary();
    let parts = rbm_playground::log_z_blocks(&bytes, 0, 1).unwrap();
    let got = lane.finish_exact(&parts).unwrap();
    let want = exact::evaluate(&model(&lane), &Dataset::builtin("bas4").unwrap()).unwrap();
    assert_eq!(
        get(&got, "atll").as_f64().map(f64::to_bits),
        Some(want.atll.to_bits())
    );
    let view = get(&lane.step(0, true, None).unwrap(), "view");
    let dist = get(&view, "dist");
    assert_eq!(
        get(&dist, "log_z").as_f64().map(f64::to_bits),
        Some(want.log_z.to_bits())
    );
    // A fast one stays inside the lane.
    let small = WasmLane::new(js(r#"{"hidden": 16, "seed": 4}"#), "bas4").unwrap();
    assert_eq!(small.exact_blocks(), 0);
    assert!(!small.view_after_exact());
}

#[wasm_bindgen_test]
fn stepped_ais_and_raise_give_the_bits_of_the_one_shot_core_runs() {
    use rbm_core::data::Dataset;
    use rbm_core::eval::ais::{ais_evaluate, raise_evaluate, AisConfig};
    let cfg = r#"{"algo": "pcd", "hidden": 5, "seed": 3, "every": 10}"#;
    let mut lane = WasmLane::new(js(cfg), "bas4").unwrap();
    step(&mut lane, 20);
    let rbm = model(&lane);
    let data = Dataset::builtin("bas4").unwrap();
    // 60 particles: blocks of 25, 25 and 10 chains.
    let ais_cfg = AisConfig {
        particles: 60,
        betas: 40,
        seed: 11,
        schedule: Default::default(),
    };
    for reverse in [false, true] {
        let want = if reverse {
            raise_evaluate(&rbm, &data, ais_cfg).unwrap()
        } else {
            ais_evaluate(&rbm, &data, ais_cfg).unwrap()
        };
        let mut est = lane.ais("bas4", 60, 40, 11.0, reverse, None).unwrap();
        assert!(est.result().is_err(), "no result before the end");
        let mut calls = 0;
        let last = loop {
            // 7 steps per call: calls end inside blocks and across block boundaries.
            let p = est.step(7).unwrap();
            calls += 1;
            assert_eq!(get(&p, "totalSteps").as_f64(), Some(3.0 * 39.0));
            if get(&p, "done").as_bool() == Some(true) {
                break p;
            }
        };
        assert_eq!(get(&last, "doneSteps").as_f64(), Some(3.0 * 39.0));
        assert_eq!(calls, (3 * 39usize).div_ceil(7));
        let r = est.result().unwrap();
        let bits = |k: &str| get(&r, k).as_f64().unwrap().to_bits();
        assert_eq!(bits("atll"), want.atll.to_bits(), "{}", want.method);
        assert_eq!(bits("atll_lo"), want.atll_lo.to_bits());
        assert_eq!(bits("atll_hi"), want.atll_hi.to_bits());
        assert_eq!(bits("log_z"), want.log_z.to_bits());
        assert_eq!(get(&r, "method").as_string().as_deref(), Some(want.method));
        assert_eq!(get(&r, "iter").as_f64(), Some(20.0));
        assert_eq!(get(&r, "dataset").as_string().as_deref(), Some("bas4"));
        assert_eq!(est.method(), want.method);
    }
    let exact = lane.exact_atll("bas4").unwrap().unwrap();
    assert!(exact.is_finite());

    // Cancel: dropping a run part way (and one never stepped) is safe; the lane trains on and
    // a fresh run still gives the same bits.
    let mut est = lane.ais("bas4", 60, 40, 11.0, false, None).unwrap();
    est.step(30).unwrap();
    drop(est);
    drop(lane.ais("bas4", 60, 40, 11.0, true, None).unwrap());
    assert!(step(&mut lane, 10).error.is_none());
    let e = error(lane.ais("bas4", 1, 40, 1.0, false, None).err().unwrap());
    assert_eq!(e.key.as_deref(), Some("particles"));
    let e = error(lane.ais("bas4", 10, 1, 1.0, false, None).err().unwrap());
    assert_eq!(e.key.as_deref(), Some("betas"));
    let e = error(
        lane.ais("no-such-set", 10, 10, 1.0, false, None)
            .err()
            .unwrap(),
    );
    assert_eq!(e.key.as_deref(), Some("data"));
    // Salakhutdinov & Murray's schedule: its own 14 501 β, nothing else; an unknown schedule is refused.
    let e = error(
        lane.ais("bas4", 10, 1000, 1.0, false, Some("sm2008".into()))
            .err()
            .unwrap(),
    );
    assert_eq!(e.key.as_deref(), Some("betas"));
    let e = error(
        lane.ais("bas4", 10, 14_501, 1.0, false, Some("cosine".into()))
            .err()
            .unwrap(),
    );
    assert_eq!(e.key.as_deref(), Some("schedule"));
    let sm = AisConfig {
        particles: 25,
        betas: rbm_core::eval::ais::SM2008_BETAS,
        seed: 1,
        schedule: rbm_core::eval::ais::Schedule::SalakhutdinovMurray,
    };
    let want = ais_evaluate(&model(&lane), &data, sm).unwrap();
    let mut est = lane
        .ais("bas4", 25, 14_501, 1.0, false, Some("sm2008".into()))
        .unwrap();
    while get(&est.step(5000).unwrap(), "done").as_bool() != Some(true) {}
    let r = est.result().unwrap();
    assert_eq!(get(&r, "betas").as_f64(), Some(14_501.0));
    assert_eq!(
        get(&r, "atll").as_f64().map(f64::to_bits),
        Some(want.atll.to_bits())
    );
    assert!(
        lane.ais("bas3", 10, 10, 1.0, false, None).is_err(),
        "a set of another size"
    );
}

/// Every sampler's fixed-seed stream gives the native build's bits (tests/golden/samplers.json).
#[wasm_bindgen_test]
fn sampler_streams_match_the_native_build_bit_for_bit() {
    let want: Vec<common::SamplerGolden> =
        serde_json::from_str(include_str!("../../../tests/golden/samplers.json")).unwrap();
    assert_eq!(common::sampler_golden(), want);
}

#[wasm_bindgen_test]
fn a_checkpoints_ais_seed_is_the_cores() {
    use rbm_core::experiments::trials::{ais_seed, trial_seed};
    // A page study measured by AIS seeds checkpoint k of a trial as `rbm reproduce` does.
    for (seed, trial, k) in [(1u64, 0u64, 0u32), (1, 3, 7), (12_345, 9, 200)] {
        let t = trial_seed(seed, trial);
        let page = rbm_playground::ais_seed(t as f64, k).unwrap();
        assert_eq!(page, ais_seed(t, k as u64) as f64);
        assert!(page < 2f64.powi(53));
    }
    assert_ne!(
        rbm_playground::ais_seed(5.0, 0).unwrap(),
        rbm_playground::ais_seed(5.0, 1).unwrap()
    );
    for bad in [-1.0, 0.5, f64::NAN, 2f64.powi(53)] {
        assert_eq!(
            error(rbm_playground::ais_seed(bad, 0).unwrap_err())
                .key
                .as_deref(),
            Some("seed")
        );
    }
}

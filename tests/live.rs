//! Native tests of the teacher's lane edits: live options (`Lane::set_live`) and a lane
//! continued from its saved model file (`train::resume`).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::bas4;
use rbm_core::schema::budget;
use rbm_core::train::resume::{read_model_file, resume_config, MAX_MODEL_FILE_BYTES};
use rbm_core::train::{Lane, LaneConfig};
use rbm_core::Error;
use serde_json::json;

fn cfg(algo: &str) -> LaneConfig {
    common::small_lane(algo, 10)
}

fn lane(c: LaneConfig) -> Lane {
    Lane::new(c, bas4()).unwrap()
}

#[test]
fn a_live_value_set_before_the_first_update_is_the_lane_built_with_it() {
    let edits: [(&str, &str, serde_json::Value); 5] = [
        ("pcd", "lr", json!(0.03)),
        ("cd", "weight_decay", json!(0.001)),
        ("cd", "momentum", json!(0.5)),
        ("pcd", "lr_decay_iters", json!(60)),
        // FPCD's η_F defaults to η: it follows a live η as it follows a built one.
        ("fpcd", "lr", json!(0.03)),
    ];
    for (algo, key, v) in edits {
        let mut built_cfg = cfg(algo);
        built_cfg.set(key, v.clone()).unwrap();
        let mut built = lane(built_cfg);
        let mut live = lane(cfg(algo));
        live.set_live(key, v).unwrap();
        let (a, b) = (built.run(60).unwrap(), live.run(60).unwrap());
        assert_eq!(a, b, "{algo} {key}");
        assert_eq!(built.model(), live.model(), "{algo} {key}");
    }
}

#[test]
fn an_lr_change_mid_run_keeps_the_run_and_steps_with_the_new_rate_from_the_next_update() {
    // The uninterrupted run, and the same run with η "changed" to its own value halfway: the
    // edit itself disturbs nothing (model, chains, streams, counters).
    let mut whole = lane(cfg("pcd"));
    let whole_records = whole.run(80).unwrap();
    let mut same = lane(cfg("pcd"));
    let mut same_records = same.run(40).unwrap();
    same.set_live("lr", json!(0.1)).unwrap();
    same_records.extend(same.run(40).unwrap());
    assert_eq!(whole_records, same_records);
    assert_eq!(whole.model(), same.model());

    // Segments: 40 updates at η = 0.1 (the built run's), then 40 at η = 0.02, each of which is
    // θ ← θ + 0.02·g with the update's own gradient g, bit for bit.
    let mut seg = lane(cfg("pcd"));
    let first = seg.run(40).unwrap();
    assert_eq!(first[..], whole_records[..first.len()]);
    seg.set_live("lr", json!(0.02)).unwrap();
    for _ in 0..40 {
        let before = seg.model().clone();
        seg.step().unwrap();
        let g = seg.last_gradient();
        let expect = |t: &[f32], g: &[f32]| -> Vec<f32> {
            t.iter().zip(g).map(|(t, g)| t + 0.02f32 * g).collect()
        };
        assert_eq!(seg.model().w(), &expect(before.w(), &g.w)[..]);
        assert_eq!(seg.model().b, expect(&before.b, &g.b));
        assert_eq!(seg.model().c, expect(&before.c, &g.c));
    }
    assert_eq!(seg.iter(), 80);
    assert_ne!(seg.model(), whole.model());
    assert_eq!(seg.config().lr, 0.02);
}

#[test]
fn an_option_that_needs_a_rebuild_or_a_bad_value_is_refused_and_changes_nothing() {
    let mut a = lane(cfg("cd"));
    a.run(20).unwrap();
    for (key, v) in [("k", json!(3)), ("hidden", json!(8)), ("lr", json!(-1.0))] {
        match a.set_live(key, v) {
            Err(Error::InvalidOption { key: k, message }) => {
                assert_eq!(k, key);
                assert!(!message.is_empty());
            }
            other => panic!("{key}: {other:?}"),
        }
    }
    let mut b = lane(cfg("cd"));
    b.run(20).unwrap();
    assert_eq!(a.run(20).unwrap(), b.run(20).unwrap());
    assert_eq!(a.model(), b.model());
}

#[test]
fn a_saved_lane_loads_back_at_its_update_with_the_same_exact_log_likelihood() {
    let mut c = cfg("pcd");
    c.k = 3;
    let mut saved = lane(c);
    let records = saved.run(50).unwrap();
    let at_50 = records.last().unwrap();
    assert_eq!(at_50.iter, 50);
    let file = saved.model_file();

    let (model, training) = read_model_file(file.as_bytes()).unwrap();
    assert_eq!(&model, saved.model());
    let t = training.expect("a lane's file records its training");
    assert_eq!((t.iter, t.data.as_str()), (50, "bas4"));
    assert_eq!(t.config.k, 3);

    // The loading lane has k = 1 and every = 25: the file's per-lane options (k) come back,
    // the page's shared ones (every) stay.
    let current = LaneConfig {
        every: 25,
        ..cfg("pcd")
    };
    let resumed_cfg = resume_config(&current, Some(&t), &model);
    assert_eq!((resumed_cfg.k, resumed_cfg.every), (3, 25));
    let mut resumed = Lane::resume(resumed_cfg, bas4(), model, Some(&t), &budget::PAGE).unwrap();
    let first = resumed.run(0).unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].iter, 50);
    assert_eq!(first[0].sweeps, at_50.sweeps);
    assert_eq!(
        first[0].atll.unwrap().to_bits(),
        at_50.atll.unwrap().to_bits()
    );
    // It trains on from there.
    let next = resumed.run(25).unwrap();
    assert_eq!(next.last().unwrap().iter, 75);

    // Another algorithm's lane keeps its own options.
    let cd = resume_config(&cfg("cd"), Some(&t), saved.model());
    assert_eq!(cd.k, 1);
    // The plain model file (the CLI's) has no record: update 0, the lane's own options.
    let (m, none) = read_model_file(saved.model().to_json().as_bytes()).unwrap();
    assert!(none.is_none());
    assert_eq!(&m, saved.model());
}

#[test]
fn a_bad_model_file_is_refused_with_a_message_that_says_what_is_wrong() {
    let mut saved = lane(cfg("cd"));
    saved.run(10).unwrap();
    let file = saved.model_file();
    let mut v: serde_json::Value = serde_json::from_str(&file).unwrap();
    v["training"]["config"]["k"] = json!(0);
    let bad_option = v.to_string();
    let mut v: serde_json::Value = serde_json::from_str(&file).unwrap();
    v["training"]["config"]["hidden"] = json!(7);
    let bad_hidden = v.to_string();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (file.as_bytes()[..file.len() / 2].to_vec(), "model file"),
        (b"hello".to_vec(), "model file"),
        (vec![0xff, 0xfe, 0x00], "neither JSON nor the binary format"),
        (bad_option.into_bytes(), "training record"),
        (bad_hidden.into_bytes(), "7 hidden units"),
        (
            vec![b' '; MAX_MODEL_FILE_BYTES + 1],
            "MB a model file may have",
        ),
    ];
    for (bytes, says) in cases {
        let e = read_model_file(&bytes).unwrap_err().to_string();
        assert!(e.contains(says), "{e:?} should say {says:?}");
    }
}

/// What the page writes, it reads (issue 31): the model file of the largest lane the page's
/// budget admits — any algorithm, one chain, batch 1, on data of 16 or 784 units — is within
/// the read limit, every number at its longest JSON form and with its training record; and the
/// page's own checks (`www/src/app/modelFile.ts`, `www/src/protocol/data.ts`) use that limit.
#[test]
fn the_page_reads_back_the_model_file_of_its_largest_lane() {
    use rbm_core::cost::check_lane;
    use rbm_core::data::{gzip::MAX_FILE_BYTES, Dataset};
    use rbm_core::model::{Params, Rbm, MAX_WEIGHTS};
    let json_bytes_bound = |m: usize, n: usize| Rbm::json_len_max(m, n) as usize;
    use rbm_core::train::ALGORITHMS;
    // The bound holds: numbers whose shortest f64 form is longest (17 digits, an exponent).
    let (m, n) = (64, 48);
    let long = |i: usize| -(1.0 + i as f32 * 1.1e-7) * 1.3e-30;
    let params = Params {
        w: (0..m * n).map(long).collect(),
        b: (0..m).map(long).collect(),
        c: (0..n).map(long).collect(),
    };
    let worst = Rbm::from_params(m, n, params).unwrap().to_json();
    assert!(worst.len() <= json_bytes_bound(m, n), "{}", worst.len());
    assert!(
        worst.len() * 10 > json_bytes_bound(m, n) * 9,
        "a tight bound"
    );
    // A lane's training record, beside its model.
    let small = lane(cfg("cd"));
    let record = small.model_file().len() - small.model().to_json().len();
    for m in [16, 784] {
        let data = Dataset::parse("d", &"01".repeat(m / 2)).unwrap();
        let admits = |algo: &str, n: usize| {
            let c = LaneConfig {
                algo: algo.into(),
                hidden: n,
                batch: Some(1),
                chains: Some(1),
                ..Default::default()
            };
            check_lane(&c, &data, &budget::PAGE).is_ok()
        };
        let largest = ALGORITHMS
            .iter()
            .map(|a| {
                let (mut lo, mut hi) = (1, MAX_WEIGHTS / m + 1); // admitted, refused
                assert!(admits(a.name, lo) && !admits(a.name, hi), "{}", a.name);
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2;
                    *(if admits(a.name, mid) {
                        &mut lo
                    } else {
                        &mut hi
                    }) = mid;
                }
                lo
            })
            .max()
            .unwrap();
        assert!(
            largest * m > 3_000_000,
            "{m}×{largest}: the page trains 784×5000"
        );
        let file = json_bytes_bound(m, largest) + record + 64;
        assert!(
            file <= MAX_MODEL_FILE_BYTES,
            "{m}×{largest}: {file} bytes of JSON, read up to {MAX_MODEL_FILE_BYTES}"
        );
    }
    assert_eq!(MAX_MODEL_FILE_BYTES, MAX_FILE_BYTES);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/www/src/");
    for (file, constant) in [
        ("app/modelFile.ts", "MAX_MODEL_FILE_BYTES"),
        ("protocol/data.ts", "MAX_DATA_BYTES"),
    ] {
        let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
        let line = format!(
            "export const {constant} = {} * 1024 * 1024;",
            MAX_FILE_BYTES >> 20
        );
        assert!(text.contains(&line), "{file} should say `{line}`");
    }
}

/// The page's reader of model files is the command line's: a gzipped file (one member or
/// several) loads as the plain one, with its training record; one with bytes after its gzip
/// data, or cut short, is refused saying so (issue 31).
#[test]
fn a_gzipped_model_file_loads_and_one_that_cannot_be_read_whole_is_refused() {
    use std::io::Write;
    let gz = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let mut l = lane(cfg("pcd"));
    l.run(20).unwrap();
    let file = l.model_file();
    let (want, t) = read_model_file(file.as_bytes()).unwrap();
    let mut two = gz(&file.as_bytes()[..100]);
    two.extend(gz(&file.as_bytes()[100..]));
    for bytes in [gz(file.as_bytes()), two.clone()] {
        let (got, tg) = read_model_file(&bytes).unwrap();
        assert_eq!(got, want);
        assert_eq!(tg.unwrap().iter, t.as_ref().unwrap().iter);
    }
    let mut junk = two.clone();
    junk.extend_from_slice(b"\n");
    let e = read_model_file(&junk).unwrap_err().to_string();
    assert!(e.contains("1 bytes after the end of its gzip data"), "{e}");
    let e = read_model_file(&two[..two.len() - 3])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("gzip member 2") && e.contains("truncated"),
        "{e}"
    );
}

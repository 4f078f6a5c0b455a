//! Golden runs shared by the native test (`tests/golden.rs`) and the browser test
//! (`tests/wasm.rs`): short fixed-seed lanes whose records must be the same bits on every
//! target. Floating-point values are stored readable and as their exact bit patterns (the
//! comparison uses the bits, so JSON float parsing cannot blur it).
#![allow(dead_code)]

use rbm_core::data::Dataset;
use rbm_core::model::Init;
use rbm_core::train::{LaneConfig, Record};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Bars & Stripes 4×4, the lane tests' data.
pub fn bas4() -> Arc<Dataset> {
    Arc::new(Dataset::builtin("bas4").unwrap())
}

/// A small lane of `algo` in the UCD paper's set-up (16 hidden units, its initialisation,
/// η = 0.1) with 100 chains, seed 3, evaluated every `every` updates.
pub fn small_lane(algo: &str, every: u64) -> LaneConfig {
    LaneConfig {
        algo: algo.into(),
        hidden: 16,
        lr: 0.1,
        chains: Some(100),
        seed: Some(3),
        every,
        init: Init::Ucd,
        ..Default::default()
    }
}

/// The committed golden file.
pub const GOLDEN_PATH: &str = "tests/golden/runs.json";

/// One fixed-seed run: a lane configuration (the wasm API's keys), a data set, a length.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GoldenRun {
    pub name: String,
    pub data: String,
    pub updates: u32,
    pub config: serde_json::Value,
    pub records: Vec<GoldenRecord>,
    /// FNV-1a 64 over the f32 bit patterns of the final W, b, c (in that order).
    pub model_fnv: String,
}

/// A record: readable values, and the exact bits that are compared.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GoldenRecord {
    pub iter: u64,
    pub sweeps: f64,
    pub atll: Option<f64>,
    pub log_z: Option<f64>,
    pub stats: BTreeMap<String, f64>,
    /// `name → f64 bits in hex` for sweeps, vh_steps, atll, log_z and `stats.<key>`.
    pub bits: BTreeMap<String, String>,
}

/// The golden file.
#[derive(Debug, Serialize, Deserialize)]
pub struct Golden {
    pub about: String,
    pub runs: Vec<GoldenRun>,
}

/// The bit pattern of an f64 as 16 hex digits.
pub fn bits(x: f64) -> String {
    format!("{:016x}", x.to_bits())
}

/// A record in golden form.
pub fn golden_record(r: &Record) -> GoldenRecord {
    let mut b = BTreeMap::new();
    b.insert("sweeps".to_string(), bits(r.sweeps));
    b.insert("vh_steps".to_string(), bits(r.vh_steps));
    if let Some(x) = r.atll {
        b.insert("atll".to_string(), bits(x));
    }
    if let Some(x) = r.log_z {
        b.insert("log_z".to_string(), bits(x));
    }
    for (k, &v) in &r.stats {
        b.insert(format!("stats.{k}"), bits(v));
    }
    GoldenRecord {
        iter: r.iter,
        sweeps: r.sweeps,
        atll: r.atll,
        log_z: r.log_z,
        stats: r.stats.clone(),
        bits: b,
    }
}

/// FNV-1a 64 over the f32 bit patterns of the blocks, in order.
pub fn fnv(blocks: &[&[f32]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for blk in blocks {
        for x in blk.iter() {
            for byte in x.to_bits().to_le_bytes() {
                h ^= byte as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    format!("{h:016x}")
}

/// Compares records made now with the golden ones: same iterations and the same bits.
pub fn assert_records_match(run: &str, got: &[Record], want: &[GoldenRecord]) {
    assert_eq!(got.len(), want.len(), "{run}: number of records");
    for (g, w) in got.iter().zip(want) {
        let g = golden_record(g);
        assert_eq!(g.iter, w.iter, "{run}: record iterations differ");
        assert_eq!(
            g.bits, w.bits,
            "{run}: record at update {} differs (atll {:?} vs golden {:?})",
            w.iter, g.atll, w.atll
        );
    }
}

/// The committed golden file of the samplers.
pub const SAMPLER_GOLDEN_PATH: &str = "tests/golden/samplers.json";

/// One sampler's fixed-seed stream: a hash of every sample's bits, the grey mean of the last
/// sample, ‖W_F‖ and the ISL of the samples on Bars & Stripes 4×4 (f64 bits as hex).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SamplerGolden {
    pub sampler: String,
    pub samples_hash: String,
    pub mean_hash: String,
    pub fast_norm_bits: String,
    pub isl_bits: String,
}

/// The samplers' golden streams: every registered sampler, 300 samples from a 16×12 model
/// with rates and start from BAS 4×4 (seed 11), ISL on BAS 4×4 with β chosen on it.
pub fn sampler_golden() -> Vec<SamplerGolden> {
    use rbm_core::sampler::{SampleStream, SamplerConfig, SAMPLERS};
    let data = rbm_core::data::Dataset::builtin("bas4").unwrap();
    let model = rbm_core::model::Rbm::random(16, 12, 1.0, 3).unwrap();
    SAMPLERS
        .iter()
        .map(|s| {
            let cfg = SamplerConfig {
                sampler: s.name.into(),
                k: 2,
                eps_f: (s.name != "gibbs").then_some(0.05),
                ..SamplerConfig::default()
            };
            let mut stream =
                SampleStream::new(&model, &data, rbm_core::data::Binarize::Sample, &cfg, 11)
                    .unwrap();
            let mut isl =
                rbm_core::eval::isl::Isl::new(&data.values, Some(&data.values), 16).unwrap();
            let mut all = Vec::new();
            for _ in 0..300 {
                let x = stream.next_sample();
                all.extend_from_slice(x);
                isl.add(x);
            }
            let mut mean = vec![0.0; 16];
            stream.mean(&mut mean);
            SamplerGolden {
                sampler: s.name.into(),
                samples_hash: fnv(&[&all]),
                mean_hash: fnv(&[&mean]),
                fast_norm_bits: format!("{:016x}", stream.fast_norm().to_bits()),
                isl_bits: format!("{:016x}", isl.point(None).unwrap().isl.to_bits()),
            }
        })
        .collect()
}

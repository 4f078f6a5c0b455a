//! The JavaScript boundary (wasm32 only), used by the page's Web Workers: one [`WasmLane`] per
//! worker wraps a [`Lane`], plus the catalogues the page builds its pickers from.
//!
//! Every failure of the core comes back as a JavaScript `Error` carrying the core's one-line
//! message (never a panic). A lane that diverges (docs/algorithms.md §4: a non-finite parameter)
//! reports the message in its run result, keeps the records made before it, and keeps its last
//! finite model for display and export.

use crate::data::{decode, Dataset, BUILTIN};
use crate::error::Error;
use crate::eval::exact;
use crate::experiments::PRESETS;
use crate::model::Init;
use crate::train::{Lane, LaneConfig, Record, ALGORITHMS};
use serde::Serialize;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The serializer of every value handed to JavaScript: maps become plain objects (record
/// statistics), `None` becomes `null`, and 64-bit integers stay numbers (counts below 2^53).
const OUT: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::new()
    .serialize_maps_as_objects(true)
    .serialize_missing_as_null(true);

fn to_js<T: Serialize>(x: &T) -> Result<JsValue, JsError> {
    x.serialize(&OUT).map_err(|e| {
        JsError::new(&format!(
            "internal error: cannot pass a value to JavaScript: {e}"
        ))
    })
}

fn js_err(e: Error) -> JsError {
    JsError::new(&e.to_string())
}

/// An algorithm of the registry, as the page's lane picker lists it.
#[derive(Serialize)]
struct AlgoEntry {
    name: &'static str,
    title: &'static str,
    paper: &'static str,
    options: &'static [&'static str],
}

/// Every training algorithm (`train::ALGORITHMS`): `[{name, title, paper, options}]`, so a newly
/// registered algorithm appears in the page's picker with its options and no page change.
#[wasm_bindgen]
pub fn algorithms() -> Result<JsValue, JsError> {
    let list: Vec<AlgoEntry> = ALGORITHMS
        .iter()
        .map(|a| AlgoEntry {
            name: a.name,
            title: a.title,
            paper: a.paper,
            options: a.options,
        })
        .collect();
    to_js(&list)
}

/// A built-in data set, as the page describes it (docs/algorithms.md §2).
#[derive(Serialize)]
struct DataEntry {
    name: &'static str,
    description: &'static str,
    rows: usize,
    m: usize,
    /// Image shape `[height, width]`, or null.
    shape: Option<[usize; 2]>,
    /// Maximum achievable average log-likelihood (−entropy of the data).
    bound: Option<f64>,
    /// The distinct patterns, each as `m` 0/1 numbers, in order of first appearance.
    patterns: Vec<Vec<u8>>,
    /// How many rows each distinct pattern has.
    counts: Vec<usize>,
}

/// The built-in data sets: `[{name, description, rows, m, shape, bound, patterns, counts}]`.
#[wasm_bindgen(js_name = dataSets)]
pub fn data_sets() -> Result<JsValue, JsError> {
    let mut list = Vec::new();
    for &(name, description) in BUILTIN {
        let d = Dataset::builtin(name).map_err(js_err)?;
        let distinct = d.distinct();
        list.push(DataEntry {
            name,
            description,
            rows: d.rows(),
            m: d.m,
            shape: d.shape.map(|(h, w)| [h, w]),
            bound: d.bound(),
            patterns: distinct
                .iter()
                .map(|&(code, _)| decode(code, d.m).iter().map(|&x| x as u8).collect())
                .collect(),
            counts: distinct.iter().map(|&(_, c)| c).collect(),
        });
    }
    to_js(&list)
}

/// The core's default lane configuration (`LaneConfig::default()`), for the page's inputs.
#[wasm_bindgen(js_name = defaultConfig)]
pub fn default_config() -> Result<JsValue, JsError> {
    to_js(&LaneConfig::default())
}

/// A lane of a paper's experiment, as the page sets it up.
#[derive(Serialize)]
struct PresetLaneEntry {
    /// The paper's name for it (e.g. "S-DCP d=3 K'=4").
    label: &'static str,
    /// The algorithm's registered name (it may not be registered in this build).
    algo: &'static str,
    /// The full configuration [`crate::experiments::Preset::lane_config`] gives at the
    /// preset's first learning rate, seed 1 and the preset's evaluation interval; the page
    /// replaces `lr`, `seed`, `lane` and `every` by its own choices.
    config: LaneConfig,
}

/// A paper's experiment (`experiments::PRESETS`), as the page's picker lists it.
#[derive(Serialize)]
struct PresetEntry {
    name: &'static str,
    title: &'static str,
    paper: &'static str,
    /// Built-in data set name.
    data: &'static str,
    hidden: usize,
    init: Init,
    /// Negative chains (null: one per batch row).
    chains: Option<usize>,
    /// Mini-batch size (null: the whole data set).
    batch: Option<usize>,
    rates: &'static [f64],
    /// Where each rate comes from (the paper's text, its code, …), in the order of `rates`.
    rate_notes: &'static [&'static str],
    /// What the paper reports, i.e. what to look for.
    expect: &'static str,
    /// Updates per trial.
    iters: u64,
    /// Evaluation interval in updates.
    every: u64,
    /// Independent trials the paper (or `rbm reproduce`) runs.
    trials: usize,
    lanes: Vec<PresetLaneEntry>,
}

/// The papers' experiments (docs/algorithms.md §6), the same table `rbm reproduce` runs:
/// `[{name, title, paper, data, hidden, init, chains, batch, rates, rate_notes, expect, iters,
/// every, trials, lanes: [{label, algo, config}]}]`, each lane's `config` built by
/// `Preset::lane_config` so the page never re-derives an option.
#[wasm_bindgen]
pub fn presets() -> Result<JsValue, JsError> {
    let list: Vec<PresetEntry> = PRESETS
        .iter()
        .map(|p| PresetEntry {
            name: p.name,
            title: p.title,
            paper: p.paper,
            data: p.data,
            hidden: p.hidden,
            init: p.init,
            chains: p.chains,
            batch: p.batch,
            rates: p.rates,
            rate_notes: p.rate_notes,
            expect: p.expect,
            iters: p.iters,
            every: p.every,
            trials: p.trials,
            lanes: p
                .lanes
                .iter()
                .enumerate()
                .map(|(i, l)| PresetLaneEntry {
                    label: l.label,
                    algo: l.algo,
                    config: p.lane_config(i, p.rates[0], 1, p.every),
                })
                .collect(),
        })
        .collect();
    to_js(&list)
}

/// The field names a `Deserialize` struct declares (as serde passes them to
/// `deserialize_struct`), so renamed or skipped fields can never drift from the check below.
struct FieldNames(&'static [&'static str]);

impl<'de> serde::Deserializer<'de> for &mut FieldNames {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(serde::de::Error::custom("field names collected"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// `LaneConfig`'s keys.
fn lane_config_keys() -> &'static [&'static str] {
    let mut names = FieldNames(&[]);
    let _ = <LaneConfig as serde::Deserialize>::deserialize(&mut names);
    names.0
}

/// Reads a lane configuration object. serde-wasm-bindgen looks up only the fields a struct
/// declares, so unknown keys (which `LaneConfig` refuses from JSON) are checked here.
fn lane_config(config: JsValue) -> Result<LaneConfig, Error> {
    if config.is_undefined() || config.is_null() {
        return Ok(LaneConfig::default());
    }
    if !config.is_object() || js_sys::Array::is_array(&config) {
        return Err(Error::Invalid(
            "the lane configuration must be an object".into(),
        ));
    }
    let known = lane_config_keys();
    let keys = js_sys::Object::keys(config.unchecked_ref::<js_sys::Object>());
    for key in keys.iter().filter_map(|k| k.as_string()) {
        if !known.contains(&key.as_str()) {
            return Err(Error::Invalid(format!(
                "unknown lane option '{key}' (known: {})",
                known.join(", ")
            )));
        }
    }
    serde_wasm_bindgen::from_value(config)
        .map_err(|e| Error::Invalid(format!("lane configuration: {e}")))
}

/// What [`WasmLane::run`] returns.
#[derive(Serialize)]
struct RunResult {
    /// Records made during this call (iteration 0 on the first call, then every `every`).
    records: Vec<Record>,
    /// Updates done so far.
    iter: u64,
    /// The seed in use, as a decimal string (a drawn seed may exceed 2^53).
    seed: String,
    /// The core's message if the lane failed during this call (e.g. it diverged), else null.
    error: Option<String>,
    /// True once the lane has stopped for good (divergence); its model is the last finite one.
    failed: bool,
}

/// The model distribution over a data set's distinct patterns (docs/algorithms.md §2).
#[derive(Serialize)]
struct Distribution {
    /// p_model(v) of each distinct pattern, in the order of `dataSets()[…].patterns`.
    model: Vec<f64>,
    /// The empirical probability of each distinct pattern (count / rows).
    data: Vec<f64>,
    /// Model mass off the data set's patterns: 1 − Σ model.
    off: f64,
    /// log Z of the model these numbers describe.
    log_z: f64,
}

/// One training lane (docs/algorithms.md §4) for a Web Worker: a seeded [`Lane`] on a built-in
/// data set.
#[wasm_bindgen]
pub struct WasmLane {
    lane: Lane,
    /// Whether the record at update 0 was handed out already (the core makes it on the first
    /// `run_into` call that finds the lane at update 0, which `run(0)` does not move past).
    initial_sent: bool,
    /// (update, log Z) of the latest record: the model at that update has this log Z, which
    /// spares `distribution` an enumeration when nothing moved since (or the lane failed, as
    /// its kept model is the one of its latest record).
    recorded_log_z: Option<(u64, f64)>,
}

#[wasm_bindgen]
impl WasmLane {
    /// A lane from a configuration object with `LaneConfig`'s keys (`algo`, `lr`, `k`, `chains`,
    /// `seed`, …; missing keys take the core's defaults) on the built-in data set `dataset`.
    /// Unknown keys and bad values fail with the core's message.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, dataset: &str) -> Result<WasmLane, JsError> {
        let cfg = lane_config(config).map_err(js_err)?;
        let data = Arc::new(Dataset::builtin(dataset).map_err(js_err)?);
        Ok(WasmLane {
            lane: Lane::new(cfg, data).map_err(js_err)?,
            initial_sent: false,
            recorded_log_z: None,
        })
    }

    /// Runs `updates` updates: `{records, iter, seed, error, failed}`. The first call (even
    /// `run(0)`) includes the record at update 0, and each record is returned once. A failure
    /// (divergence) is reported in `error` with the records made before it; later calls report
    /// it again.
    pub fn run(&mut self, updates: u32) -> Result<JsValue, JsError> {
        let mut records = Vec::new();
        let error = self
            .lane
            .run_into(updates as u64, &mut records)
            .err()
            .map(|e| e.to_string());
        if self.initial_sent && records.first().is_some_and(|r| r.iter == 0) {
            records.remove(0);
        }
        self.initial_sent |= !records.is_empty();
        if let Some(r) = records.iter().rev().find(|r| r.log_z.is_some()) {
            self.recorded_log_z = r.log_z.map(|z| (r.iter, z));
        }
        to_js(&RunResult {
            records,
            iter: self.lane.iter(),
            seed: self.lane.seed().to_string(),
            error,
            failed: self.lane.failure().is_some(),
        })
    }

    /// Exact evaluation of the current model: `{log_z, atll, rows, bound, kl}`.
    pub fn evaluate(&self) -> Result<JsValue, JsError> {
        to_js(&exact::evaluate(self.lane.model(), self.lane.data()).map_err(js_err)?)
    }

    /// The model's probability of each distinct training pattern, the data's, and the mass off
    /// the data: `{model, data, off, log_z}`. Right after a record (or after a failure) it
    /// reuses that record's exact log Z instead of enumerating again.
    pub fn distribution(&self) -> Result<JsValue, JsError> {
        let (model, data) = (self.lane.model(), self.lane.data());
        let log_z = match self.recorded_log_z {
            Some((iter, z)) if iter == self.lane.iter() || self.lane.failure().is_some() => z,
            _ => exact::log_z(model).map_err(js_err)?,
        };
        let rows = data.rows() as f64;
        let mut d = Distribution {
            model: Vec::new(),
            data: Vec::new(),
            off: 1.0,
            log_z,
        };
        for (_, count, lp) in exact::pattern_log_probs(model, data, log_z) {
            let p = libm::exp(lp);
            d.model.push(p);
            d.data.push(count as f64 / rows);
            d.off -= p;
        }
        d.off = d.off.max(0.0);
        to_js(&d)
    }

    /// The weights W as an m×n row-major `Float32Array` (`w[i*n+j]` joins visible i and
    /// hidden j); column j reshaped to the data's image shape is hidden unit j's filter.
    pub fn weights(&self) -> js_sys::Float32Array {
        js_sys::Float32Array::from(self.lane.model().w())
    }

    /// Visible biases b (length m).
    #[wasm_bindgen(js_name = visibleBias)]
    pub fn visible_bias(&self) -> js_sys::Float32Array {
        js_sys::Float32Array::from(&self.lane.model().b[..])
    }

    /// Hidden biases c (length n).
    #[wasm_bindgen(js_name = hiddenBias)]
    pub fn hidden_bias(&self) -> js_sys::Float32Array {
        js_sys::Float32Array::from(&self.lane.model().c[..])
    }

    /// The chains' visible states (`chains × m`, row-major), or `undefined` when the
    /// algorithm keeps no chains.
    pub fn chains(&self) -> Option<js_sys::Float32Array> {
        self.lane.chain_states().map(js_sys::Float32Array::from)
    }

    /// The model file `{"visible": m, "hidden": n, "w": [m·n], "b": [m], "c": [n]}`.
    #[wasm_bindgen(js_name = exportModel)]
    pub fn export_model(&self) -> String {
        self.lane.model().to_json()
    }

    /// Number of visible units m.
    #[wasm_bindgen(getter)]
    pub fn visible(&self) -> usize {
        self.lane.model().m()
    }

    /// Number of hidden units n.
    #[wasm_bindgen(getter)]
    pub fn hidden(&self) -> usize {
        self.lane.model().n()
    }

    /// Updates done so far.
    #[wasm_bindgen(getter)]
    pub fn iter(&self) -> f64 {
        self.lane.iter() as f64
    }

    /// The seed in use, as a decimal string.
    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> String {
        self.lane.seed().to_string()
    }

    /// The message of the error that stopped the lane, if any.
    #[wasm_bindgen(getter)]
    pub fn failure(&self) -> Option<String> {
        self.lane.failure().map(|e| e.to_string())
    }
}

/// The benchmark workloads (`bench::workloads`), for `npm run bench` in a browser worker.
#[wasm_bindgen(js_name = benchWorkloads)]
pub fn bench_workloads(quick: bool) -> Vec<String> {
    crate::bench::workloads(quick)
}

/// Runs one benchmark workload for at least `min_secs` seconds of `Date.now()` time and returns
/// its figure (the unit is the native bench's: updates/s, sweeps/s, evaluations/s or s).
#[wasm_bindgen(js_name = benchRun)]
pub fn bench_run(name: &str, min_secs: f64) -> Result<f64, JsError> {
    let now = || js_sys::Date::now() / 1000.0;
    crate::bench::run(name, &now, min_secs)
        .map(|r| r.0)
        .map_err(js_err)
}

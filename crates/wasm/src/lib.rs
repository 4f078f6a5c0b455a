//! The WebAssembly shell of RBM Playground, used by the page's Web Workers. It only translates:
//! every computation is `rbm-core`'s. One [`WasmLane`] per worker wraps a core
//! [`Lane`]; [`catalog`] hands the page the core's declarations (algorithms, options,
//! statistics, data sets, presets).
//!
//! Lanes, exact evaluations and AIS runs are built within the page's budget
//! ([`rbm_core::cost::PAGE`]: 256 MiB per lane, an update within 0.2 s, an exact evaluation
//! within 2 s, else the lane trains without its exact curve and [`WasmLane::notice`] says why).
//!
//! Errors come back as plain objects `{kind, key, message}` ([`ErrorInfo`]), so the page shows
//! an option's error under its input. A panic (a bug) is recorded by a hook before the module
//! traps; [`last_panic`] gives its message so the page can show it on the lane and restart the
//! worker. The TypeScript types of every value crossing this boundary are generated from these
//! Rust types (`www/src/generated/core.ts`, checked by `tests/ts_types.rs`).
#![deny(missing_docs)]

use rbm_core::cost;
use rbm_core::data::{idx, mnist, Dataset, BUILTIN};
use rbm_core::error::{Error, ErrorInfo};
use rbm_core::eval::ais::{AisConfig, AisResult, Block, Plan};
use rbm_core::model::Rbm;
use rbm_core::train::{Lane, LaneConfig, Record, View};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use wasm_bindgen::prelude::*;

/// The serializer of every value handed to JavaScript: maps become plain objects (record
/// statistics), `None` becomes `null`, and 64-bit integers stay numbers (counts below 2^53).
const OUT: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::new()
    .serialize_maps_as_objects(true)
    .serialize_missing_as_null(true);

fn to_js<T: Serialize>(x: &T) -> Result<JsValue, JsValue> {
    x.serialize(&OUT)
        .map_err(|e| internal(format!("cannot pass a value to JavaScript: {e}")))
}

fn internal(message: String) -> JsValue {
    let info = ErrorInfo {
        kind: "internal",
        key: None,
        message: format!("internal error: {message}"),
    };
    info.serialize(&OUT)
        .unwrap_or_else(|_| JsValue::from_str(&info.message))
}

/// An error of the core as the object `{kind, key, message}`.
fn js_err(e: Error) -> JsValue {
    to_js(&e.info()).unwrap_or_else(|v| v)
}

static PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Installs the panic hook (runs when the module starts): a panic's message and place are kept
/// for [`last_panic`], since the trap JavaScript sees says only "unreachable".
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut p) = PANIC.lock() {
            *p = Some(rbm_core::error::panic_message(info));
        }
    }));
}

/// The message of the panic that stopped this module, if one did. After a panic the module
/// must not be used again: the worker reports the message and the page starts a new worker.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    PANIC.lock().ok().and_then(|p| p.clone())
}

/// Panics on purpose, so the tests can check that a panic reaches the lane's panel and that
/// the other lanes keep running.
#[wasm_bindgen(js_name = panicForTest)]
pub fn panic_for_test() {
    panic!("a deliberate panic (panicForTest)");
}

/// Data sets loaded into this module (MNIST's splits, the user's IDX files), by name.
static LOADED: Mutex<BTreeMap<String, Arc<Dataset>>> = Mutex::new(BTreeMap::new());

fn register(d: Dataset) -> Result<JsValue, JsValue> {
    let summary = LoadedSet {
        name: d.name.clone(),
        rows: d.rows(),
        m: d.m,
        shape: d.shape.map(|(h, w)| [h, w]),
        labelled: d.labels.is_some(),
    };
    LOADED
        .lock()
        .map_err(|_| internal("the data registry is poisoned".into()))?
        .insert(d.name.clone(), Arc::new(d));
    to_js(&summary)
}

/// What [`load_asset`] and [`load_idx`] report of each data set they make available.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LoadedSet {
    /// The name lanes use.
    pub name: String,
    /// Rows.
    pub rows: usize,
    /// Units per row.
    pub m: usize,
    /// Image shape `[height, width]`.
    pub shape: Option<[usize; 2]>,
    /// Whether rows have labels.
    pub labelled: bool,
}

/// Loads the MNIST asset (its bytes after gzip decompression) and makes its three splits
/// (`mnist`, `mnist-valid`, `mnist-test`) available to lanes: `[{name, rows, m, shape,
/// labelled}]`. Throws `{kind, key: "data", message}` on a damaged asset.
#[wasm_bindgen(js_name = loadAsset)]
pub fn load_asset(bytes: &[u8]) -> Result<JsValue, JsValue> {
    let images = mnist::decode(bytes).map_err(|e| js_err(Error::option("data", e.to_string())))?;
    let list = js_sys::Array::new();
    for &(name, _) in mnist::SPLITS {
        let d = mnist::split_dataset(&images, name).map_err(js_err)?;
        list.push(&register(d)?);
    }
    Ok(list.into())
}

/// Loads the user's IDX images (`idx3-ubyte`, decompressed) and optional labels
/// (`idx1-ubyte`) as the data set `name`: `{name, rows, m, shape, labelled}`. Throws
/// `{kind, key: "data", message}` with one clear message on a bad file.
#[wasm_bindgen(js_name = loadIdx)]
pub fn load_idx(name: &str, images: &[u8], labels: Option<Vec<u8>>) -> Result<JsValue, JsValue> {
    let im = idx::parse(name, images, labels.as_deref())
        .map_err(|e| js_err(Error::option("data", e.to_string())))?;
    register(im.all(name))
}

fn dataset(name: &str) -> Result<Arc<Dataset>, Error> {
    if BUILTIN.iter().any(|b| b.0 == name) {
        return Dataset::builtin(name).map(Arc::new);
    }
    let loaded = LOADED.lock().ok().and_then(|l| l.get(name).cloned());
    loaded.ok_or_else(|| {
        let hint = if mnist::SPLITS.iter().any(|s| s.0 == name) {
            " (the MNIST asset is not loaded yet)"
        } else {
            ""
        };
        Error::option("data", format!("unknown data set '{name}'{hint}"))
    })
}

/// The core's catalog (`rbm_core::catalog::Catalog`): algorithms with their options and
/// statistics, the option schema, data sets and presets.
#[wasm_bindgen]
pub fn catalog() -> Result<JsValue, JsValue> {
    to_js(&rbm_core::catalog::catalog().map_err(js_err)?)
}

/// What [`WasmLane::step`] returns (its `view`, when present, also carries `weights`, a
/// `Float32Array` of W, m×n row-major).
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SliceResult {
    /// Records made during this call: the initial record on the first call, then one every
    /// `every` updates.
    pub records: Vec<Record>,
    /// Updates done so far.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// The error that stopped the lane during this call (e.g. it diverged), else null.
    pub error: Option<ErrorInfo>,
    /// True once the lane has stopped for good; its model is then the last finite one.
    pub failed: bool,
    /// The panels' view, when asked for.
    pub view: Option<View>,
}

/// How many chains a view carries.
pub const VIEW_CHAINS: usize = 24;

/// A lane configuration object: the option keys of the schema, plus `algo` and `lane`. A
/// missing seed is drawn here (53 bits, so the page can show and replay it).
fn lane_config(config: JsValue) -> Result<LaneConfig, Error> {
    let mut cfg = if config.is_undefined() || config.is_null() {
        LaneConfig::default()
    } else {
        let v: serde_json::Value = serde_wasm_bindgen::from_value(config)
            .map_err(|e| Error::Invalid(format!("the lane configuration: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| Error::Invalid("the lane configuration must be an object".into()))?;
        LaneConfig::from_object(obj)?
    };
    if cfg.seed.is_none() {
        cfg.seed = Some((js_sys::Math::random() * 9_007_199_254_740_991.0) as u64);
    }
    Ok(cfg)
}

/// A core lane within the page's budget: what a tab cannot hold or a worker cannot answer Pause
/// through is refused, naming the option; an exact evaluation over the budget is dropped
/// ([`Lane::notice`]).
pub fn page_lane(cfg: LaneConfig, data: Arc<Dataset>) -> Result<Lane, Error> {
    Lane::within(cfg, data, &cost::PAGE)
}

/// One training lane for a Web Worker: a seeded core [`Lane`] on a data set.
#[wasm_bindgen]
pub struct WasmLane {
    lane: Lane,
}

#[wasm_bindgen]
impl WasmLane {
    /// A lane from a configuration object (missing keys take the core's defaults) on the data
    /// set `dataset` (built in, or loaded by [`load_asset`] / [`load_idx`]), within the page's
    /// budget ([`page_lane`]). Throws `{kind, key, message}`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, dataset: &str) -> Result<WasmLane, JsValue> {
        let cfg = lane_config(config).map_err(js_err)?;
        let data = self::dataset(dataset).map_err(js_err)?;
        Ok(WasmLane {
            lane: page_lane(cfg, data).map_err(js_err)?,
        })
    }

    /// Why the lane trains without the exact curve its size would allow (its exact evaluation
    /// exceeds the page's budget), or undefined.
    #[wasm_bindgen(getter)]
    pub fn notice(&self) -> Option<String> {
        self.lane.notice().map(str::to_string)
    }

    /// One slice of work: `updates` updates, the records they made and, if `view`, the
    /// panels' view — one call per slice. A failure (divergence) is reported in `error`
    /// with the records made before it.
    pub fn step(&mut self, updates: u32, view: bool) -> Result<JsValue, JsValue> {
        let mut records = Vec::new();
        let error = self
            .lane
            .run_into(updates as u64, &mut records)
            .err()
            .map(|e| e.info());
        let view = view.then(|| self.lane.view(VIEW_CHAINS));
        let weights = view
            .as_ref()
            .map(|v| js_sys::Float32Array::from(&v.weights[..]));
        let out = to_js(&SliceResult {
            records,
            iter: self.lane.iter(),
            error,
            failed: self.lane.failure().is_some(),
            view,
        })?;
        if let Some(w) = weights {
            let v = js_sys::Reflect::get(&out, &"view".into())?;
            js_sys::Reflect::set(&v, &"weights".into(), &w)?;
        }
        Ok(out)
    }

    /// The model file `{"visible": m, "hidden": n, "w": [m·n], "b": [m], "c": [n]}`.
    #[wasm_bindgen(js_name = exportModel)]
    pub fn export_model(&self) -> String {
        self.lane.model().to_json()
    }

    /// The model in the compact binary format (`RBMM`, f32 parameters, checksummed): about a
    /// fifth of the JSON file for 784×500, and exact.
    #[wasm_bindgen(js_name = exportModelBinary)]
    pub fn export_model_binary(&self) -> Vec<u8> {
        self.lane.model().to_bytes()
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

    /// The evaluation interval in updates.
    #[wasm_bindgen(getter)]
    pub fn every(&self) -> f64 {
        self.lane.config().every as f64
    }

    /// An AIS (`reverse` false) or RAISE (`reverse` true) estimate of the average
    /// log-likelihood of the data set `dataset` under a copy of the lane's current model, to run
    /// step by step ([`WasmAis::step`]); the lane keeps training meanwhile. Throws
    /// `{kind, key, message}` (keys `particles`, `betas`, `data`).
    pub fn ais(
        &self,
        dataset: &str,
        particles: u32,
        betas: u32,
        seed: f64,
        reverse: bool,
    ) -> Result<WasmAis, JsValue> {
        let data = self::dataset(dataset).map_err(js_err)?;
        let cfg = AisConfig {
            particles: particles as usize,
            betas: betas as usize,
            seed: seed as u64,
        };
        let model = self.lane.model();
        check_ais_in_page(model, &cfg).map_err(js_err)?;
        WasmAis::new(model, &data, cfg, reverse, self.lane.iter()).map_err(js_err)
    }

    /// The exact average log-likelihood of `dataset` (grey levels thresholded at 0.5, like the
    /// exact curve) under the lane's current model, or null when the lane has no exact curve
    /// (the smaller layer has more than the lane's `exact_bits` units, or the page's budget
    /// dropped it) or this data set's evaluation exceeds the page's budget for one. One call.
    #[wasm_bindgen(js_name = exactAtll)]
    pub fn exact_atll(&self, dataset: &str) -> Result<Option<f64>, JsValue> {
        let rbm = self.lane.model();
        let data = self::dataset(dataset).map_err(js_err)?;
        let secs = cost::exact_secs(rbm.m(), rbm.n(), data.rows(), &cost::PAGE.speed);
        if !self.lane.exact() || secs > cost::PAGE.eval_secs {
            return Ok(None);
        }
        let data = if data.is_binary() {
            data
        } else {
            Arc::new(data.thresholded())
        };
        let log_z = rbm_core::eval::exact::log_z(rbm).map_err(js_err)?;
        rbm_core::eval::exact::average_log_likelihood(rbm, &data, log_z)
            .map(Some)
            .map_err(js_err)
    }
}

/// Refuses an AIS or RAISE run of `cfg` on `model` past the page's budget, keyed `particles`
/// or `betas`: their ranges first, then [`cost::check_ais`], then the core's own limits.
pub fn check_ais_in_page(model: &Rbm, cfg: &AisConfig) -> Result<(), Error> {
    use rbm_core::eval::ais::{check_config, MAX_BETAS, MAX_PARTICLES};
    if (2..=MAX_PARTICLES).contains(&cfg.particles) && (2..=MAX_BETAS).contains(&cfg.betas) {
        cost::check_ais(
            model.m(),
            model.n(),
            cfg.particles,
            cfg.betas,
            1,
            &cost::PAGE,
        )?;
    }
    check_config(model, cfg)
}

/// What [`WasmAis::step`] returns.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AisProgress {
    /// Whether every chain has finished ([`WasmAis::result`] is then ready).
    pub done: bool,
    /// Annealing steps done, summed over the blocks of chains.
    pub done_steps: f64,
    /// Annealing steps in all: blocks × (betas − 1).
    pub total_steps: f64,
}

/// The core's [`AisResult`] as the page receives it (`−∞` bars stay numbers: `-Infinity`), with
/// the update the model was taken at and the data set evaluated.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AisEstimate {
    /// The estimate.
    #[serde(flatten)]
    pub result: AisResult,
    /// The lane's update at which the model was copied.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// The data set evaluated.
    pub dataset: String,
}

/// An AIS or RAISE run of the core ([`Plan`]) on a copy of a lane's model, advanced a few
/// annealing steps per call so a worker can interleave it with training, report progress and
/// drop it to cancel. Blocks of chains run one after the other, so the result has the same bits
/// as the core's one-shot `ais_evaluate` / `raise_evaluate` with the same seed.
#[wasm_bindgen]
pub struct WasmAis {
    plan: Plan,
    /// The block under way (None once all are done).
    block: Option<Block>,
    /// Log-weights of the finished blocks, in order.
    parts: Vec<Vec<f64>>,
    /// The block `block` runs (== blocks when all are done).
    next: usize,
    iter: u64,
    name: String,
}

impl WasmAis {
    /// A run of `cfg` on `model` and `data` (RAISE when `reverse`), the model taken at update
    /// `iter`.
    pub fn new(
        model: &Rbm,
        data: &Dataset,
        cfg: AisConfig,
        reverse: bool,
        iter: u64,
    ) -> Result<WasmAis, Error> {
        let plan = if reverse {
            Plan::raise(model, data, None, cfg)?
        } else {
            Plan::ais(model, data, None, cfg)?
        };
        Ok(WasmAis {
            block: Some(plan.block(0)?),
            plan,
            parts: Vec::new(),
            next: 0,
            iter,
            name: data.name.clone(),
        })
    }

    fn steps_per_block(&self) -> usize {
        self.plan.config().betas - 1
    }

    /// The result, once [`WasmAis::step`] said `done`.
    pub fn estimate(&self) -> Result<AisEstimate, Error> {
        if self.next < self.plan.blocks() {
            return Err(Error::Invalid("the AIS run has not finished".into()));
        }
        let r = self.plan.finish(&self.parts)?;
        Ok(AisEstimate {
            result: r,
            iter: self.iter,
            dataset: self.name.clone(),
        })
    }

    /// Runs up to `max_steps` annealing steps (over blocks, in order).
    pub fn advance(&mut self, max_steps: usize) -> Result<AisProgress, Error> {
        let mut left = max_steps.max(1);
        let per = self.steps_per_block();
        while left > 0 && self.next < self.plan.blocks() {
            let block = self
                .block
                .as_mut()
                .expect("a block runs until all are done");
            let before = block.done();
            let finished = block.advance(left);
            left -= block.done() - before;
            if finished {
                let b = self.block.take().expect("the block just advanced");
                self.parts.push(b.into_log_weights());
                self.next += 1;
                if self.next < self.plan.blocks() {
                    self.block = Some(self.plan.block(self.next)?);
                }
            }
        }
        let done_in_block = self.block.as_ref().map_or(0, |b| b.done());
        Ok(AisProgress {
            done: self.next >= self.plan.blocks(),
            done_steps: (self.next * per + done_in_block) as f64,
            total_steps: (self.plan.blocks() * per) as f64,
        })
    }
}

#[wasm_bindgen]
impl WasmAis {
    /// Runs up to `max_steps` more annealing steps (at least one): `{done, doneSteps,
    /// totalSteps}`.
    pub fn step(&mut self, max_steps: u32) -> Result<JsValue, JsValue> {
        let p = self.advance(max_steps as usize).map_err(js_err)?;
        to_js(&p)
    }

    /// The estimate ([`AisEstimate`]) once `step` said `done`; throws before.
    pub fn result(&self) -> Result<JsValue, JsValue> {
        to_js(&self.estimate().map_err(js_err)?)
    }

    /// `"ais"` or `"raise"`.
    #[wasm_bindgen(getter)]
    pub fn method(&self) -> String {
        self.plan.method().to_string()
    }
}

/// The benchmark workloads (`rbm_core::bench::workloads`), for `npm run bench` in a browser
/// worker (feature `bench`, never in the page's build).
#[cfg(feature = "bench")]
#[wasm_bindgen(js_name = benchWorkloads)]
pub fn bench_workloads(quick: bool) -> Vec<String> {
    rbm_core::bench::workloads(quick)
}

/// Runs one benchmark workload for at least `min_secs` seconds of `Date.now()` time and returns
/// its figure (the unit is the native bench's).
#[cfg(feature = "bench")]
#[wasm_bindgen(js_name = benchRun)]
pub fn bench_run(name: &str, min_secs: f64) -> Result<f64, JsValue> {
    let now = || js_sys::Date::now() / 1000.0;
    rbm_core::bench::run(name, &now, min_secs)
        .map(|r| r.0)
        .map_err(js_err)
}

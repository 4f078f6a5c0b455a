//! The WebAssembly shell of RBM Playground, used by the page's Web Workers. It only translates:
//! every computation is `rbm-core`'s. One [`WasmLane`] per worker wraps a core
//! [`Lane`]; [`catalog`] hands the page the core's declarations (algorithms, options,
//! statistics, data sets, presets).
//!
//! Lanes, exact evaluations and AIS runs are built within the page's budget
//! ([`rbm_core::schema::budget::PAGE`]: 256 MiB per lane, an update within 0.5 s, an exact
//! evaluation inside the lane's worker within 2 s, else the lane trains without its exact curve
//! and [`WasmLane::notice`] says why), checked by the cost model ([`rbm_core::cost`]).
//!
//! Errors come back as plain objects `{kind, key, message}` ([`ErrorInfo`]), so the page shows
//! an option's error under its input. A panic (a bug) is recorded by a hook before the module
//! traps; [`last_panic`] gives its message so the page can show it on the lane and restart the
//! worker. The TypeScript types of every value crossing this boundary are generated from these
//! Rust types (`www/src/generated/core.ts`, checked by `tests/ts_types.rs`).
#![deny(missing_docs)]

use rbm_core::cost;
use rbm_core::data::{gzip, idx, mnist, Dataset, BUILTIN};
use rbm_core::diagnostics::mixing_bound::{BoundWalk, GibbsBound};
use rbm_core::diagnostics::spectrum;
use rbm_core::error::{Error, ErrorInfo};
use rbm_core::eval::ais::{AisConfig, AisResult, Block, Plan, Schedule};
use rbm_core::eval::exact;
use rbm_core::math::LogSumExp;
use rbm_core::model::Rbm;
use rbm_core::schema::budget;
use rbm_core::train::trace::Trace;
use rbm_core::train::{resume, Lane, LaneConfig, Record, View};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use wasm_bindgen::prelude::*;

pub mod explore;
#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "gpu")]
pub mod gpu_samplers;
#[cfg(feature = "gpu")]
pub mod gpu_study;
pub mod lanes;
pub mod measure;

use lanes::{on_lane, AnyLane};

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

/// A file's bytes unpacked by the core's one gzip reader, the command line's too
/// ([`gzip::unpack`]: every member of a multi-member file; a truncated file, or bytes after the
/// last member that are not gzip, refused), at most [`gzip::MAX_FILE_BYTES`] out; bytes that
/// are not gzip come back as they are. Throws `{kind, key: "data", message}` naming the file
/// (`what`).
#[wasm_bindgen]
pub fn unpack(bytes: &[u8], what: &str) -> Result<Vec<u8>, JsValue> {
    gzip::unpack(bytes, gzip::MAX_FILE_BYTES, what)
        .map(|b| b.into_owned())
        .map_err(file_err)
}

/// An error of reading a file as `{kind, key: "data", message}`: the message alone, since it
/// names the file and says what is wrong.
fn file_err(e: Error) -> JsValue {
    let msg = match e {
        Error::Parse(s) | Error::TooLarge(s) => s,
        Error::InvalidOption { message, .. } => message,
        other => other.to_string(),
    };
    js_err(Error::option("data", msg))
}

/// Checks the user's IDX images file `what` (its bytes as read, gzipped or not) from its header
/// alone, before it is unpacked and decoded: throws `{kind, key: "data", message}` naming the
/// file when its images would not fit in one lane of the page's budget. Only the budget: a
/// damaged or malformed file is refused by the readers that follow (`unpack`, `loadIdx`), each
/// fault with its one message.
#[wasm_bindgen(js_name = checkIdx)]
pub fn check_idx(bytes: &[u8], what: &str) -> Result<(), JsValue> {
    let Ok(head) = gzip::head(bytes, idx::MAX_HEADER_BYTES, what) else {
        return Ok(());
    };
    match idx::check_images(what, &head, &budget::PAGE) {
        Err(e @ Error::InvalidOption { .. }) => Err(file_err(e)),
        _ => Ok(()),
    }
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

/// Loads the user's own patterns — one 0/1 pattern per line, the data-file format the CLI reads
/// (`Dataset::parse`) — as the data set `name`: `{name, rows, m, shape, labelled}`. Square
/// patterns (a drawn D×D grid) are images of that shape. Throws `{kind, key: "data", message}`
/// naming the line of a bad pattern.
#[wasm_bindgen(js_name = loadPatterns)]
pub fn load_patterns(name: &str, text: &str) -> Result<JsValue, JsValue> {
    let mut d =
        Dataset::parse(name, text).map_err(|e| js_err(Error::option("data", e.to_string())))?;
    let side = (d.m as f64).sqrt().round() as usize;
    if d.shape.is_none() && side * side == d.m {
        d.shape = Some((side, side));
    }
    register(d)
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

/// The seed of trial `trial` of a study seeded `seed` (`rbm_core::experiments::trials::trial_seed`,
/// below 2^53): the page's trial i of a lane is the CLI's trial i (`rbm reproduce`), bit for bit.
#[wasm_bindgen(js_name = trialSeed)]
pub fn trial_seed(seed: f64, trial: u32) -> Result<f64, JsValue> {
    if !(seed >= 0.0 && seed <= rbm_core::schema::options::MAX_SEED as f64 && seed.fract() == 0.0) {
        return Err(js_err(Error::option(
            "seed",
            format!("a trial's study seed must be a whole number from 0 to 2^53 - 1, got {seed}"),
        )));
    }
    Ok(rbm_core::experiments::trials::trial_seed(seed as u64, trial as u64) as f64)
}

/// The seed of the AIS run at checkpoint `k` (0 for update 0) of a trial seeded `trial_seed`
/// (`rbm_core::experiments::trials::ais_seed`, below 2^53): a page study measured by AIS
/// anneals each checkpoint with the CLI's seed (`rbm reproduce`).
#[wasm_bindgen(js_name = aisSeed)]
pub fn ais_seed(trial_seed: f64, k: u32) -> Result<f64, JsValue> {
    if !(trial_seed >= 0.0
        && trial_seed <= rbm_core::schema::options::MAX_SEED as f64
        && trial_seed.fract() == 0.0)
    {
        return Err(js_err(Error::option(
            "seed",
            format!("a trial's seed must be a whole number from 0 to 2^53 - 1, got {trial_seed}"),
        )));
    }
    Ok(rbm_core::experiments::trials::ais_seed(trial_seed as u64, k as u64) as f64)
}

/// The verdicts (`rbm_core::experiments::claims::Verdict`) of preset `preset`'s claims at
/// learning rate `lr` on the page's bands (`LaneBand[]`: label, trials, checkpoints with
/// the median and statistics), for a study whose last checkpoint is update `end`: the same
/// evaluation as `rbm reproduce`'s claim lines. Throws `{kind, key, message}`.
#[wasm_bindgen(js_name = evaluateClaims)]
pub fn evaluate_claims(
    preset: &str,
    lr: f64,
    bands: JsValue,
    end: f64,
    bound: Option<f64>,
) -> Result<JsValue, JsValue> {
    let p = rbm_core::experiments::find_preset(preset).map_err(js_err)?;
    let bands: Vec<rbm_core::experiments::claims::LaneBand> = serde_wasm_bindgen::from_value(bands)
        .map_err(|e| internal(format!("the claims' bands: {e}")))?;
    let v = rbm_core::experiments::claims::evaluate(p.claims, lr, &bands, end as u64, bound);
    to_js(&v)
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

/// The slice result as the worker takes it: its view's weights as a `Float32Array`.
fn slice_to_js(r: &SliceResult) -> Result<JsValue, JsValue> {
    let out = to_js(r)?;
    if let Some(v) = &r.view {
        let w = js_sys::Float32Array::from(&v.weights[..]);
        let view = js_sys::Reflect::get(&out, &"view".into())?;
        js_sys::Reflect::set(&view, &"weights".into(), &w)?;
    }
    Ok(out)
}

/// One update in slow motion ([`WasmLane::step_traced`]).
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TracedSlice {
    /// The update's phases (None when it failed).
    pub trace: Option<Trace>,
    /// The records it made (the initial one first, when not made yet; one at an evaluation).
    pub records: Vec<Record>,
    /// Updates done.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// Why it failed (a divergence), if it did.
    pub error: Option<ErrorInfo>,
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
    Lane::within(cfg, data, &budget::PAGE)
}

/// The largest smaller layer a lane enumerates inside its own `step` (2^20 states, about a
/// second for 784×20 in one worker). Between this and the lane's `exact_bits` (e.g. Tieleman
/// 2008's 784×25), the exact curve is *deferred*: the lane's records come without an ATLL, the
/// worker sends the model to the page's pool of evaluation workers ([`log_z_blocks`]), and
/// [`WasmLane::finish_exact`] turns their partial sums into the record's ATLL.
pub const INLINE_EXACT_BITS: usize = 20;

/// The longest log Z a lane enumerates inside its own `step`, estimated at the page's speeds
/// (seconds): a slower one (e.g. 16×1000 on `bas4`, ≈ 0.1 s estimated; 16×16 is 0.04 s) is
/// deferred to the evaluation pool too, so that the lane's worker answers Pause within 200 ms
/// meanwhile, even when a loaded machine gives it a fraction of a core.
pub const INLINE_EXACT_SECS: f64 = 0.05;

/// A lane's deferred exact curve: the rows it is computed on (the training data, thresholded
/// at 0.5 when grey, docs/algorithms.md §2) and the number of blocks of the enumeration.
pub(crate) struct Deferred {
    data: Arc<Dataset>,
    blocks: usize,
}

/// One training lane for a Web Worker: a seeded core [`Lane`] on a data set.
#[wasm_bindgen]
pub struct WasmLane {
    lane: AnyLane,
    deferred: Option<Deferred>,
}

/// The partial sums of blocks `from..to` of the exact log Z of the model `model` (the binary
/// `RBMM` bytes of [`WasmLane::export_model_binary`]) as `[max₀, sum₀, max₁, sum₁, …]`: the
/// unit of work of the page's evaluation workers (docs/algorithms.md §2; blocks of 2^16 states).
/// Throws `{kind, key, message}`.
#[wasm_bindgen(js_name = logZBlocks)]
pub fn log_z_blocks(model: &[u8], from: u32, to: u32) -> Result<Vec<f64>, JsValue> {
    let rbm = Rbm::from_file_bytes(model).map_err(js_err)?;
    let parts = exact::log_z_blocks(&rbm, from as usize, to as usize).map_err(js_err)?;
    Ok(parts
        .iter()
        .flat_map(|p| {
            let (max, sum) = p.parts();
            [max, sum]
        })
        .collect())
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
        WasmLane::make(cfg, data, None).map_err(js_err)
    }

    /// A lane that continues the model file `bytes` (JSON or binary, at most
    /// [`resume::MAX_MODEL_FILE_BYTES`]) on `dataset`, from the saved update ([`Lane::resume`]),
    /// with the configuration `config` — and, when `recorded`, the per-lane options the file
    /// recorded ([`resume::resume_config`]). Throws `{kind, key, message}` saying what is wrong
    /// with the file.
    pub fn resume(
        config: JsValue,
        dataset: &str,
        bytes: &[u8],
        recorded: bool,
    ) -> Result<WasmLane, JsValue> {
        let current = lane_config(config).map_err(js_err)?;
        let data = self::dataset(dataset).map_err(js_err)?;
        let (model, training) = resume::read_model_file(bytes).map_err(js_err)?;
        let from = training.as_ref().filter(|_| recorded);
        let cfg = resume::resume_config(&current, from, &model);
        WasmLane::make(cfg, data, Some((model, training))).map_err(js_err)
    }

    /// The lane's configuration object (after [`WasmLane::resume`]: the options it continues
    /// with).
    #[wasm_bindgen(getter)]
    pub fn config(&self) -> Result<JsValue, JsValue> {
        to_js(self.lane.config())
    }

    /// Sets option `key` to `value` from the next update on, without rebuilding the lane
    /// ([`Lane::set_live`]: options the schema marks `live`). Throws `{kind, key, message}`.
    #[wasm_bindgen(js_name = setLive)]
    pub fn set_live(&mut self, key: &str, value: JsValue) -> Result<(), JsValue> {
        let v: serde_json::Value = serde_wasm_bindgen::from_value(value)
            .map_err(|e| js_err(Error::option(key, format!("{key}: {e}"))))?;
        self.lane.set_live(key, v).map_err(js_err)
    }
}

impl WasmLane {
    /// A lane within the page's budget ([`page_lane`]), fresh or continuing a loaded model.
    fn make(
        mut cfg: LaneConfig,
        data: Arc<Dataset>,
        loaded: Option<(Rbm, Option<resume::Training>)>,
    ) -> Result<WasmLane, Error> {
        let deferred = defer(&mut cfg, &data)?;
        let lane = match loaded {
            None => page_lane(cfg, data)?,
            Some((model, t)) => Lane::resume(cfg, data, model, t.as_ref(), &budget::PAGE)?,
        };
        Ok(WasmLane {
            lane: AnyLane::Cpu(lane),
            deferred,
        })
    }
}

/// Whether the exact curve of `cfg` on `data` is deferred to the page's evaluation pool (and
/// then `cfg` is set to the inline limit), once `cfg` is checked against the page's budget.
pub(crate) fn defer(cfg: &mut LaneConfig, data: &Arc<Dataset>) -> Result<Option<Deferred>, Error> {
    // The configuration as given (its exact limit included) against the page's budget; a
    // curve deferred to the evaluation pool is not computed in this worker, so the lane is
    // then built with the inline limit.
    cfg.validate_for(data, &budget::PAGE)?;
    let bits = data.m.min(cfg.hidden);
    let wide = bits > INLINE_EXACT_BITS;
    // Within the budget, but too slow for the lane's own slices.
    let slow = cost::log_z_secs(data.m, cfg.hidden, &budget::PAGE.speed) > INLINE_EXACT_SECS
        && cost::exact_secs(data.m, cfg.hidden, data.rows(), &budget::PAGE.speed)
            <= budget::PAGE.eval_secs;
    let deferred = if bits <= cfg.exact_bits && (wide || slow) {
        cfg.exact_bits = bits.min(INLINE_EXACT_BITS + 1) - 1;
        let rows = if data.is_binary() {
            data.clone()
        } else {
            Arc::new(data.thresholded())
        };
        Some(Deferred {
            data: rows,
            blocks: exact::blocks(bits).count(),
        })
    } else {
        None
    };
    Ok(deferred)
}

#[wasm_bindgen]
impl WasmLane {
    /// Why the lane trains without the exact curve its size would allow (its exact evaluation
    /// exceeds the page's budget), or undefined.
    #[wasm_bindgen(getter)]
    pub fn notice(&self) -> Option<String> {
        on_lane!(&self.lane, l => l.notice().map(str::to_string))
    }

    /// The number of blocks of the lane's deferred exact evaluation (0: the exact curve, if
    /// any, is computed inside `step`). With a deferred curve, the worker ends a slice on each
    /// record, sends the model to the pool and waits for [`WasmLane::finish_exact`].
    #[wasm_bindgen(getter, js_name = exactBlocks)]
    pub fn exact_blocks(&self) -> u32 {
        self.deferred.as_ref().map_or(0, |d| d.blocks as u32)
    }

    /// Whether the panels' model distribution of a deferred lane waits for the record's log Z
    /// from the pool (the visible layer is small enough for it): the worker then asks for the
    /// view after [`WasmLane::finish_exact`] rather than at the record.
    #[wasm_bindgen(getter, js_name = viewAfterExact)]
    pub fn view_after_exact(&self) -> bool {
        self.deferred.is_some() && self.lane.model().m() <= exact::MAX_DIST_BITS
    }

    /// Whether copies from the GPU are on their way (a GPU lane's records or view): the
    /// worker calls `step` again, even paused, until they are in.
    #[wasm_bindgen(getter)]
    pub fn busy(&self) -> bool {
        match &self.lane {
            AnyLane::Cpu(_) => false,
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(g) => g.lane.busy(),
        }
    }

    /// Test hook: destroys a GPU lane's device, as a driver reset would (nothing for a CPU
    /// lane): its next slice reports the failure, and the worker continues it on the CPU.
    #[wasm_bindgen(js_name = loseGpuForTest)]
    pub fn lose_gpu_for_test(&self) {
        #[cfg(feature = "gpu")]
        if let AnyLane::Gpu(g) = &self.lane {
            g.lane.lane().engine_model().device().lose_for_test();
        }
    }

    /// The adapter a GPU lane runs on, or undefined for a CPU lane.
    #[wasm_bindgen(getter)]
    pub fn gpu(&self) -> Option<String> {
        match &self.lane {
            AnyLane::Cpu(_) => None,
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(g) => Some(g.adapter.clone()),
        }
    }

    /// The exact ATLL of the lane's training data (thresholded at 0.5 when grey) under its
    /// current model, from `parts`, the partial sums of every block of the enumeration in
    /// block order as [`log_z_blocks`] gives them: `{atll, logZ}`, with the bits of the core's
    /// one-thread evaluation whatever the split over workers. Throws `{kind, key, message}`.
    #[wasm_bindgen(js_name = finishExact)]
    pub fn finish_exact(&mut self, parts: &[f64]) -> Result<JsValue, JsValue> {
        let d = self.deferred.as_ref().ok_or_else(|| {
            js_err(Error::Invalid(
                "this lane computes its exact curve itself".into(),
            ))
        })?;
        if !parts.len().is_multiple_of(2) {
            return Err(js_err(Error::Invalid(
                "partial sums come in (max, sum) pairs".into(),
            )));
        }
        let rbm = self.lane.model();
        let sums: Vec<LogSumExp> = parts
            .chunks_exact(2)
            .map(|p| LogSumExp::from_parts(p[0], p[1]))
            .collect();
        let log_z = exact::merge_blocks(rbm, &sums).map_err(js_err)?;
        let atll = exact::average_log_likelihood(rbm, &d.data, log_z).map_err(js_err)?;
        // The next view at this update shows the model distribution from it.
        self.lane.take_log_z(log_z);
        to_js(&ExactResult { atll, log_z })
    }

    /// One slice of work: `updates` updates, the records they made and, if `view`, the
    /// panels' view — one call per slice. A failure (divergence) is reported in `error`
    /// with the records made before it.
    pub fn step(
        &mut self,
        updates: u32,
        view: bool,
        within_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let mut records = Vec::new();
        // A slice sized for its time can take far longer when the machine gives the worker
        // less of a core than before: with `within_ms`, it ends between updates once that much
        // wall time has passed, so the worker reads Pause soon whatever the load.
        let t0 = js_sys::Date::now();
        let go_on = || within_ms.is_none_or(|ms| js_sys::Date::now() - t0 < ms);
        #[cfg(feature = "gpu")]
        if let AnyLane::Gpu(g) = &mut self.lane {
            return gpu::step(g, self.deferred.is_some(), updates, view, within_ms);
        }
        #[allow(irrefutable_let_patterns)]
        let AnyLane::Cpu(lane) = &mut self.lane
        else {
            unreachable!("a GPU lane returned above")
        };
        let error = lane
            .run_while(updates as u64, &mut records, go_on)
            .err()
            .map(|e| e.info());
        let view = view.then(|| lane.view(VIEW_CHAINS));
        slice_to_js(&SliceResult {
            records,
            iter: lane.iter(),
            error,
            failed: lane.failure().is_some(),
            view,
        })
    }

    /// One update in slow motion ([`Lane::step_traced`]: the ordinary update, bit for bit),
    /// showing its first `show` batch rows and chains.
    #[wasm_bindgen(js_name = stepTraced)]
    pub fn step_traced(&mut self, show: u32) -> Result<JsValue, JsValue> {
        let mut records = Vec::new();
        let lane = self.lane.cpu("Slow motion").map_err(js_err)?;
        let (trace, error) = match lane.step_traced(show as usize, &mut records) {
            Ok(t) => (Some(t), None),
            Err(e) => (None, Some(e.info())),
        };
        to_js(&TracedSlice {
            trace,
            records,
            iter: lane.iter(),
            error,
        })
    }

    /// The record of the lane as it is now (the last checkpoint of a trial whose length is not a
    /// multiple of `every`, as `rbm reproduce` records it). Throws `{kind, key, message}`.
    pub fn record(&mut self) -> Result<JsValue, JsValue> {
        let lane = self.lane.cpu("A record on demand").map_err(js_err)?;
        to_js(&lane.record().map_err(js_err)?)
    }

    /// The model file `{"visible": m, "hidden": n, "w": [m·n], "b": [m], "c": [n], "training":
    /// …}` with the lane's training recorded ([`Lane::model_file`]).
    #[wasm_bindgen(js_name = exportModel)]
    pub fn export_model(&self) -> String {
        self.lane.model_file()
    }

    /// The model in the compact binary format (`RBMM`, f32 parameters, checksummed): about a
    /// fifth of the JSON file for 784×500, and exact.
    #[wasm_bindgen(js_name = exportModelBinary)]
    pub fn export_model_binary(&self) -> Vec<u8> {
        self.lane.model().to_bytes()
    }

    /// The stopping times τ of the latest update's chains as counts by τ (`taus[t]` chains
    /// stopped at τ = t; UCD only, else undefined): the page's τ histogram across trials.
    #[wasm_bindgen(getter)]
    pub fn taus(&self) -> Option<Vec<u32>> {
        on_lane!(&self.lane, l => l.stopping_times().map(<[u32]>::to_vec))
    }

    /// A copy of the current weights W, m×n row-major (`w[i·n + j]` joins visible unit i and
    /// hidden unit j): what the page's analysis handlers read in the lane's worker
    /// (www/src/workers/analyses.ts).
    pub fn weights(&self) -> Vec<f32> {
        self.lane.model().w().to_vec()
    }

    /// Hidden units n (the columns of [`WasmLane::weights`]).
    #[wasm_bindgen(getter)]
    pub fn hidden(&self) -> u32 {
        self.lane.model().n() as u32
    }

    /// Updates done so far.
    #[wasm_bindgen(getter)]
    pub fn iter(&self) -> f64 {
        on_lane!(&self.lane, l => l.iter()) as f64
    }

    /// The update the exported model is of (after a divergence: the last record's).
    #[wasm_bindgen(getter, js_name = modelIter)]
    pub fn model_iter(&self) -> f64 {
        self.lane.model_iter() as f64
    }

    /// The seed in use, as a decimal string.
    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> String {
        on_lane!(&self.lane, l => l.seed().to_string())
    }

    /// The evaluation interval in updates.
    #[wasm_bindgen(getter)]
    pub fn every(&self) -> f64 {
        self.lane.config().every as f64
    }

    /// An AIS (`reverse` false) or RAISE (`reverse` true) estimate of the average
    /// log-likelihood of the data set `dataset` under a copy of the lane's current model, to run
    /// step by step ([`WasmAis::step`]); the lane keeps training meanwhile. `schedule`:
    /// `"linear"` (none: linear) or `"sm2008"`, Salakhutdinov & Murray's 14 501 β. Throws
    /// `{kind, key, message}` (keys `particles`, `betas`, `schedule`, `data`).
    pub fn ais(
        &self,
        dataset: &str,
        particles: u32,
        betas: u32,
        seed: f64,
        reverse: bool,
        schedule: Option<String>,
    ) -> Result<WasmAis, JsValue> {
        let data = self::dataset(dataset).map_err(js_err)?;
        let schedule = match schedule.as_deref() {
            None | Some("linear") => Schedule::Linear,
            Some("sm2008") => Schedule::SalakhutdinovMurray,
            Some(other) => {
                return Err(js_err(Error::option(
                    "schedule",
                    format!("unknown β schedule '{other}' (linear or sm2008)"),
                )))
            }
        };
        let cfg = AisConfig {
            particles: particles as usize,
            betas: betas as usize,
            seed: seed as u64,
            schedule,
        };
        let model = self.lane.model();
        check_ais_in_page(model, &cfg).map_err(js_err)?;
        #[cfg(feature = "gpu")]
        if let AnyLane::Gpu(g) = &self.lane {
            let dev = g.lane.lane().engine_model().device();
            return gpu::ais(
                dev,
                &g.adapter,
                model,
                &data,
                cfg,
                reverse,
                self.lane.model_iter(),
            )
            .map_err(js_err);
        }
        WasmAis::new(
            model,
            &data,
            cfg,
            reverse,
            on_lane!(&self.lane, l => l.iter()),
        )
        .map_err(js_err)
    }

    /// A study's exact measure of `dataset` (grey levels thresholded at 0.5) under a copy of
    /// the lane's current model (a GPU lane: its latest record's), to run step by step
    /// ([`measure::WasmExact::step`]): log Z enumerated on the lane's GPU for a GPU lane, else
    /// on the CPU in blocks, as `rbm reproduce` measures `pcd-mnist-25`'s checkpoints. Throws
    /// `{kind, key, message}` (a layer too large to enumerate, rows that do not fit).
    #[wasm_bindgen(js_name = exactMeasure)]
    pub fn exact_measure(&self, dataset: &str) -> Result<measure::WasmExact, JsValue> {
        let data = self::dataset(dataset).map_err(js_err)?;
        let model = self.lane.model();
        let iter = self.lane.model_iter();
        #[cfg(feature = "gpu")]
        if let AnyLane::Gpu(g) = &self.lane {
            let dev = g.lane.lane().engine_model().device();
            return measure::ExactMeasure::gpu(dev, model, &data, iter)
                .map(|run| measure::WasmExact { run })
                .map_err(js_err);
        }
        measure::ExactMeasure::cpu(model, &data, iter)
            .map(|run| measure::WasmExact { run })
            .map_err(js_err)
    }

    /// The exact average log-likelihood of `dataset` (grey levels thresholded at 0.5, like the
    /// exact curve) under the lane's current model, or null when the lane computes no exact
    /// curve (the smaller layer has more than the lane's `exact_bits` units or than
    /// [`INLINE_EXACT_BITS`], or the page's budget dropped it) or this data set's evaluation
    /// exceeds the page's budget for one. One call: at 20 units it enumerates 2^20 states.
    #[wasm_bindgen(js_name = exactAtll)]
    pub fn exact_atll(&self, dataset: &str) -> Result<Option<f64>, JsValue> {
        let rbm = self.lane.model();
        let data = self::dataset(dataset).map_err(js_err)?;
        let secs = cost::exact_secs(rbm.m(), rbm.n(), data.rows(), &budget::PAGE.speed);
        let bits = rbm.m().min(rbm.n());
        // A curve deferred for its time (not its width) is still one the page may compute.
        let curve = on_lane!(&self.lane, l => l.exact()) || self.deferred.is_some();
        if !curve || bits > INLINE_EXACT_BITS || secs > budget::PAGE.eval_secs {
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

    /// The exact law p_k = p_0 Tᵏ of a Gibbs chain of the lane's current model after k sweeps,
    /// k = 0..=`k_max`, started at `start` (`data`: the data set `dataset`'s rows, CD's start;
    /// `uniform`), to walk sweep by sweep ([`WasmChain::step`]): `rbm chain`'s computation
    /// (docs/algorithms.md §7). Throws `{kind, key, message}` (a model over 2^24 joint states).
    pub fn chain(&self, dataset: &str, start: &str, k_max: u32) -> Result<WasmChain, JsValue> {
        let data = self::dataset(dataset).map_err(js_err)?;
        let start = rbm_core::eval::chain::Start::parse(start).map_err(js_err)?;
        let walk =
            rbm_core::eval::chain::ChainWalk::new(self.lane.model(), &data, start, k_max as usize)
                .map_err(js_err)?;
        Ok(WasmChain {
            walk,
            k_max,
            iter: on_lane!(&self.lane, l => l.iter()),
        })
    }

    /// The lane's algorithm's gradient estimate at its current model over `reps` repetitions
    /// seeded `seed`, against the exact gradient on `dataset` (`rbm grad`'s computation,
    /// [`rbm_core::diagnostics::grad`]), to run a few repetitions per call ([`WasmGrad::step`]).
    /// Throws `{kind, key, message}`: no exact gradient (the smaller layer is too large), or it
    /// would hold the worker longer than the page's budget for one evaluation.
    pub fn grad(&self, dataset: &str, reps: u32, seed: f64) -> Result<WasmGrad, JsValue> {
        let data = self::dataset(dataset).map_err(js_err)?;
        let model = self.lane.model().clone();
        let cfg = grad_config(self.lane.config(), &model, reps as usize, seed).map_err(js_err)?;
        check_grad_in_page(&model, &data).map_err(js_err)?;
        let exact = rbm_core::diagnostics::grad::exact_gradient(&model, &data)
            .map_err(js_err)?
            .ok_or_else(|| js_err(Error::Invalid("no exact gradient for this model".into())))?;
        Ok(WasmGrad {
            acc: rbm_core::diagnostics::grad::Accumulator::new(model.m(), model.n()),
            model,
            data,
            cfg,
            exact,
            reps: reps as usize,
            iter: on_lane!(&self.lane, l => l.iter()),
        })
    }

    /// The mixing diagnostics of the lane's current model (`rbm mixing`'s,
    /// [`rbm_core::diagnostics::spectrum`]): λ₂ of the visible Gibbs chain a few Lanczos steps
    /// per call ([`WasmMixing::step`]) — beyond m + n ≤ 24, its lower bound
    /// ([`rbm_core::diagnostics::mixing_bound`]) a few thousand states per call — then the
    /// singular values of W and the modes of p(v). Throws `{kind, key, message}`: a model with
    /// m + n > 24 and a layer beyond 20 units.
    pub fn mixing(&self) -> Result<WasmMixing, JsValue> {
        let model = self.lane.model().clone();
        let walk = if spectrum::check_mixing(&model).is_ok() {
            MixingJob::Exact(Box::new(spectrum::MixingWalk::new(&model).map_err(js_err)?))
        } else {
            MixingJob::Bound(Box::new(BoundWalk::new(&model).map_err(|e| {
                js_err(Error::TooLarge(format!(
                    "{e}; the exact λ₂ is limited to m + n ≤ {}",
                    spectrum::MAX_MIXING_BITS
                )))
            })?))
        };
        let data = on_lane!(&self.lane, l => l.data().thresholded().values);
        // A GPU lane's chains stay on its GPU: its projection shows the data only.
        let chains = match &self.lane {
            AnyLane::Cpu(l) => l.chain_states().map(|c| {
                let m = model.m();
                c[..c.len().min(MIXING_CHAINS * m)].to_vec()
            }),
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(_) => None,
        };
        Ok(WasmMixing {
            walk,
            model,
            data,
            chains: chains.unwrap_or_default(),
            iter: on_lane!(&self.lane, l => l.iter()),
        })
    }
}

/// What [`WasmMixing::result`] returns: the mixing diagnostics of a lane's model at update
/// `iter`.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MixingResult {
    /// The lane's update the model is of.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// λ₂ of the visible Gibbs chain and its relaxation time 1/(1 − λ₂), in sweeps, exactly
    /// (null beyond m + n ≤ 24).
    pub gibbs: Option<spectrum::GibbsSpectrum>,
    /// Beyond m + n ≤ 24: a lower bound on λ₂ and on the relaxation time (null within).
    pub bound: Option<GibbsBound>,
    /// The singular values of W, descending.
    pub singular_values: Vec<f64>,
    /// The number of modes of p(v) (null beyond 20 visible units).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub modes: Option<u64>,
    /// The training rows (thresholded) projected on W's top two singular directions
    /// ([`spectrum::project`]), one pair per row.
    pub data_points: Vec<[f64; 2]>,
    /// The lane's first chains (at most [`MIXING_CHAINS`]) projected likewise (none: the lane
    /// keeps no chains, or they are on its GPU).
    pub chain_points: Vec<[f64; 2]>,
}

/// Chains a [`MixingResult`] projects at most.
pub const MIXING_CHAINS: usize = 200;

/// States of the bound's walk per step of [`WasmMixing::step`].
pub const BOUND_STEP_STATES: u64 = 1024;

/// How [`WasmMixing`] finds λ₂: exactly, or a lower bound on it.
enum MixingJob {
    Exact(Box<spectrum::MixingWalk>),
    Bound(Box<BoundWalk>),
}

/// The mixing diagnostics of a copy of a lane's model, a few Lanczos steps (or a few thousand
/// states of the bound's walk) per call.
#[wasm_bindgen]
pub struct WasmMixing {
    walk: MixingJob,
    model: Rbm,
    /// The training rows and the chains' visible states (row-major, m per row) at the update.
    data: Vec<f32>,
    chains: Vec<f32>,
    iter: u64,
}

#[wasm_bindgen]
impl WasmMixing {
    /// Up to `max_steps` more Lanczos steps (each walks the 2^(m+n) joint states once), or
    /// [`BOUND_STEP_STATES`] states of the bound's walk per step: `{done, doneSteps,
    /// totalSteps}` (the total is the most it may take).
    pub fn step(&mut self, max_steps: u32) -> Result<JsValue, JsValue> {
        let steps = max_steps.max(1);
        let (done, at, most) = match &mut self.walk {
            MixingJob::Exact(w) => {
                let done = w.advance(steps as usize);
                let (at, most) = w.progress();
                (done, at as f64, most as f64)
            }
            MixingJob::Bound(w) => {
                let done = w.advance(steps as u64 * BOUND_STEP_STATES);
                let per = BOUND_STEP_STATES as f64;
                (
                    done,
                    (w.done_states() as f64 / per).ceil(),
                    (w.total() as f64 / per).ceil(),
                )
            }
        };
        to_js(&AisProgress {
            done,
            done_steps: at,
            total_steps: if done { at } else { most },
        })
    }

    /// The diagnostics ([`MixingResult`]) once `step` said done; throws before.
    pub fn result(&self) -> Result<JsValue, JsValue> {
        let (gibbs, bound) = match &self.walk {
            MixingJob::Exact(w) if w.done() => (Some(w.result()), None),
            MixingJob::Bound(w) if w.done_states() == w.total() => {
                (None, Some(w.result().map_err(js_err)?))
            }
            _ => {
                return Err(js_err(Error::Invalid(
                    "the mixing diagnostics have not finished".into(),
                )))
            }
        };
        let modes = if self.model.m() <= rbm_core::eval::exact::MAX_DIST_BITS {
            Some(spectrum::modes(&self.model).map_err(js_err)?)
        } else {
            None
        };
        let ws = spectrum::weight_spectrum(&self.model);
        to_js(&MixingResult {
            iter: self.iter,
            gibbs,
            bound,
            data_points: spectrum::project(&self.data, &ws),
            chain_points: spectrum::project(&self.chains, &ws),
            singular_values: ws.values,
            modes,
        })
    }
}

/// The configuration of `rbm grad` for a lane's algorithm: the lane's options, seeded `seed`,
/// that never evaluates (its repetitions are single updates at the model).
pub fn grad_config(
    lane: &LaneConfig,
    model: &Rbm,
    reps: usize,
    seed: f64,
) -> Result<LaneConfig, Error> {
    let spec = &rbm_core::schema::views::GRAD_REPS;
    spec.parse(&reps.to_string())?;
    let seed = rbm_core::train::config::SEED
        .parse(&format!("{seed}"))?
        .as_u64()
        .unwrap_or(1);
    Ok(LaneConfig {
        seed: Some(seed),
        hidden: model.n(),
        exact_bits: 0,
        ..lane.clone()
    })
}

/// The longest the live gradient panel's exact gradient may hold a lane's worker (estimated by
/// the cost model): its one call is not split, and the lane must still answer Pause within
/// 200 ms (BAS 4×4 with 16 hidden units: about 0.1 s estimated; with 1 000: several seconds).
pub const GRAD_IN_LANE_SECS: f64 = 0.15;

/// Refuses the exact gradient of `model` on `data` when its one call (it is not split) would
/// hold the lane's worker longer than [`GRAD_IN_LANE_SECS`], or when the smaller layer is too
/// large to enumerate ([`exact::MAX_DIST_BITS`]).
pub fn check_grad_in_page(model: &Rbm, data: &Dataset) -> Result<(), Error> {
    let (m, n) = (model.m(), model.n());
    if m.min(n) > exact::MAX_DIST_BITS {
        return Err(Error::TooLarge(format!(
            "the exact gradient enumerates 2^{} states: at most 2^{} (fewer hidden units)",
            m.min(n),
            exact::MAX_DIST_BITS
        )));
    }
    let extra = cost::exact_gradient_extra_secs(m, n, data.rows(), &budget::PAGE.speed);
    let in_lane = budget::Budget {
        job_secs: GRAD_IN_LANE_SECS,
        place: "a lane's worker (so that it answers Pause at once)",
        ..budget::PAGE
    };
    cost::check_exact_job("the exact gradient", (m, n), 0, extra, 1, &in_lane).map(|_| ())
}

/// What [`WasmChain::result`] returns.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChainResult {
    /// The lane's update at which the model was taken.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// One point per k = 0..=k_max.
    pub points: Vec<rbm_core::eval::chain::ChainPoint>,
}

/// An exact chain walk ([`rbm_core::eval::chain::ChainWalk`]) on a copy of a lane's model.
#[wasm_bindgen]
pub struct WasmChain {
    walk: rbm_core::eval::chain::ChainWalk,
    k_max: u32,
    iter: u64,
}

#[wasm_bindgen]
impl WasmChain {
    /// Walks up to `max_steps` more sweeps: `{done, doneSteps, totalSteps}` (sweeps).
    pub fn step(&mut self, max_steps: u32) -> Result<JsValue, JsValue> {
        let done = self.walk.advance(max_steps as usize);
        to_js(&AisProgress {
            done,
            done_steps: self.walk.sweeps() as f64,
            total_steps: self.k_max as f64,
        })
    }

    /// The points walked so far ([`ChainResult`]).
    pub fn result(&self) -> Result<JsValue, JsValue> {
        to_js(&ChainResult {
            iter: self.iter,
            points: self.walk.points().to_vec(),
        })
    }
}

/// What [`WasmGrad::result`] returns.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GradResult {
    /// The lane's update at which the model was taken.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// The seed of the repetitions (`rbm grad --seed`).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub seed: u64,
    /// Over all parameters.
    pub summary: rbm_core::diagnostics::grad::GradSummary,
    /// Per block, as `rbm grad` prints it.
    pub estimate: rbm_core::diagnostics::grad::GradEstimate,
}

/// A gradient estimate of a lane's algorithm at a copy of its model, a few repetitions per call:
/// the repetitions are added in order, so the result is `rbm grad`'s with the same seed.
#[wasm_bindgen]
pub struct WasmGrad {
    acc: rbm_core::diagnostics::grad::Accumulator,
    model: Rbm,
    data: Arc<Dataset>,
    cfg: LaneConfig,
    exact: rbm_core::model::Params<f64>,
    reps: usize,
    iter: u64,
}

#[wasm_bindgen]
impl WasmGrad {
    /// Runs up to `max_steps` more repetitions: `{done, doneSteps, totalSteps}` (repetitions).
    /// Throws `{kind, key, message}` (a non-finite estimate).
    pub fn step(&mut self, max_steps: u32) -> Result<JsValue, JsValue> {
        for _ in 0..max_steps.max(1) {
            if self.acc.reps() >= self.reps {
                break;
            }
            let g = rbm_core::diagnostics::grad::repetition(
                &self.model,
                self.data.clone(),
                &self.cfg,
                self.acc.reps(),
            )
            .map_err(js_err)?;
            self.acc.add(&g);
        }
        to_js(&AisProgress {
            done: self.acc.reps() >= self.reps,
            done_steps: self.acc.reps() as f64,
            total_steps: self.reps as f64,
        })
    }

    /// The estimate ([`GradResult`]) once `step` said done; throws before.
    pub fn result(&self) -> Result<JsValue, JsValue> {
        if self.acc.reps() < self.reps {
            return Err(js_err(Error::Invalid(
                "the gradient estimate has not finished".into(),
            )));
        }
        let chains = self
            .cfg
            .chains
            .unwrap_or(self.cfg.batch.unwrap_or(self.data.rows()));
        let estimate = self
            .acc
            .finish(&self.cfg.algo, chains, Some(&self.exact))
            .map_err(js_err)?;
        to_js(&GradResult {
            iter: self.iter,
            seed: self.cfg.seed.unwrap_or(0),
            summary: estimate.summary(),
            estimate,
        })
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
            &budget::PAGE,
        )?;
    }
    check_config(model, cfg)
}

/// What [`WasmLane::finish_exact`] returns.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExactResult {
    /// The exact average log-likelihood of the lane's (thresholded) training data.
    pub atll: f64,
    /// The exact log Z.
    pub log_z: f64,
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
    /// The GPU adapter whose chains it ran (f32; other random streams than the CPU's), or null:
    /// the CPU's (f64).
    pub gpu: Option<String>,
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
    /// Every chain at once on a GPU lane's GPU (then `block` is None).
    #[cfg(feature = "gpu")]
    gpu: Option<gpu::GpuAis>,
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
            #[cfg(feature = "gpu")]
            gpu: None,
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
        #[cfg(feature = "gpu")]
        let gpu = self.gpu.as_ref().map(|g| g.adapter.clone());
        #[cfg(not(feature = "gpu"))]
        let gpu = None;
        Ok(AisEstimate {
            result: r,
            iter: self.iter,
            dataset: self.name.clone(),
            gpu,
        })
    }

    /// Runs up to `max_steps` annealing steps (over blocks, in order).
    pub fn advance(&mut self, max_steps: usize) -> Result<AisProgress, Error> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &mut self.gpu {
            let (lw, done, total) = g.advance(max_steps)?;
            if let Some(lw) = lw {
                self.parts = rbm_gpu::ais::Anneal::blocks(&lw);
                self.next = self.plan.blocks();
            }
            return Ok(AisProgress {
                done: self.next >= self.plan.blocks(),
                done_steps: done as f64,
                total_steps: total as f64,
            });
        }
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

/// One sampler's progress in a [`WasmSamplers::step`] slice.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SamplerSlice {
    /// Samples emitted so far.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub emitted: u64,
    /// The 1-NN class of every sample of the slice (empty without labels).
    pub classes: Vec<u8>,
    /// Classes visited and run lengths so far.
    pub mixing: rbm_core::eval::mixing::Mixing,
    /// ISL points reached in this slice.
    pub isl: Vec<rbm_core::eval::isl::IslPoint>,
    /// ‖W_F‖ now.
    pub fast_norm: f64,
}

struct SamplerRow {
    stream: rbm_core::sampler::SampleStream,
    isl: Option<rbm_core::eval::isl::Isl>,
    mixing: rbm_core::eval::mixing::MixingCounter,
    next_isl: u64,
}

/// The rates-FPCD paper's comparison in one worker (docs/algorithms.md §5): several samplers
/// on one trained model, each a seeded [`rbm_core::sampler::SampleStream`], with the ISL of
/// their samples on a held-out set (β chosen on a validation set) at log-spaced N and the 1-NN
/// class of every sample.
#[wasm_bindgen]
pub struct WasmSamplers {
    rows: Vec<SamplerRow>,
    nearest: Option<rbm_core::eval::mixing::Nearest>,
    m: usize,
}

/// The next N after `n` at which ISL is reported: 1, 2, 5, 10, 20, 50, …
fn next_isl_at(n: u64) -> u64 {
    let mut p = 1u64;
    loop {
        for k in [1, 2, 5] {
            if k * p > n {
                return k * p;
            }
        }
        p *= 10;
    }
}

/// What the sampler view's cores (`WasmSamplers`, and `WasmGpuSamplers` on the GPU) are given,
/// read and checked once: the model file, the sampler configurations, the rates' data (which
/// the model must fit), the ISL sets (empty names: none) and the seed.
pub(crate) struct SamplerInputs {
    pub model: Rbm,
    pub configs: Vec<serde_json::Value>,
    pub train: Arc<Dataset>,
    pub test: Option<Arc<Dataset>>,
    pub valid: Option<Arc<Dataset>>,
    pub seed: u64,
}

impl SamplerInputs {
    /// Reads the constructor's arguments; throws `{kind, key, message}` for a bad one.
    pub(crate) fn read(
        model: &[u8],
        configs: JsValue,
        train: &str,
        test: &str,
        valid: &str,
        seed: f64,
    ) -> Result<SamplerInputs, JsValue> {
        let model = Rbm::from_file_bytes(model)
            .map_err(|e| js_err(Error::option("model", e.to_string())))?;
        let configs: Vec<serde_json::Value> = serde_wasm_bindgen::from_value(configs)
            .map_err(|e| internal(format!("sampler configurations: {e}")))?;
        let train = dataset(train).map_err(js_err)?;
        rbm_core::eval::exact::check_fit(&model, &train).map_err(js_err)?;
        let held_out = |name: &str| -> Result<Option<Arc<Dataset>>, JsValue> {
            if name.is_empty() {
                return Ok(None);
            }
            let d = dataset(name).map_err(js_err)?;
            rbm_core::eval::exact::check_fit(&model, &d).map_err(js_err)?;
            Ok(Some(d))
        };
        let (test, valid) = (held_out(test)?, held_out(valid)?);
        let seed = rbm_core::train::config::SEED
            .parse(&format!("{seed}"))
            .map_err(js_err)?
            .as_u64()
            .unwrap_or(1);
        Ok(SamplerInputs {
            model,
            configs,
            train,
            test,
            valid,
            seed,
        })
    }
}

#[wasm_bindgen]
impl WasmSamplers {
    /// The samplers `configs` (an array of sampler configurations) on the model file `model`
    /// (JSON or binary bytes, gzip already removed), with rates and starts from `train`, ISL on
    /// `test` with β chosen on `valid` (empty names: no ISL), all from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        model: &[u8],
        configs: JsValue,
        train: &str,
        test: &str,
        valid: &str,
        seed: f64,
    ) -> Result<WasmSamplers, JsValue> {
        let SamplerInputs {
            model,
            configs,
            train,
            test,
            valid,
            seed,
        } = SamplerInputs::read(model, configs, train, test, valid, seed)?;
        let mut rows = Vec::new();
        for c in configs {
            let cfg = sampler_config(&c).map_err(js_err)?;
            let stream = rbm_core::sampler::SampleStream::new(
                &model,
                &train,
                rbm_core::data::Binarize::Sample,
                &cfg,
                seed,
            )
            .map_err(js_err)?;
            let isl = match &test {
                Some(t) => Some(
                    rbm_core::eval::isl::Isl::new(
                        &t.values,
                        valid.as_ref().map(|v| &v.values[..]),
                        model.m(),
                    )
                    .map_err(js_err)?,
                ),
                None => None,
            };
            rows.push(SamplerRow {
                stream,
                isl,
                mixing: Default::default(),
                next_isl: 1,
            });
        }
        let nearest = match train.labels {
            Some(_) => {
                Some(rbm_core::eval::mixing::Nearest::new(&train.thresholded()).map_err(js_err)?)
            }
            None => None,
        };
        Ok(WasmSamplers {
            rows,
            nearest,
            m: model.m(),
        })
    }

    /// `samples` more samples from sampler `row`: its [`SamplerSlice`]. The last sample's grey
    /// levels E[x|h] are in `grey`, its 0/1 state in `binary` (`Float32Array`s of m).
    pub fn step(&mut self, row: usize, samples: u32) -> Result<JsValue, JsValue> {
        let m = self.m;
        let r = self
            .rows
            .get_mut(row)
            .ok_or_else(|| internal(format!("no sampler {row}")))?;
        let mut classes = Vec::new();
        let mut isl = Vec::new();
        for _ in 0..samples {
            let x = r.stream.next_sample();
            if let Some(nn) = &mut self.nearest {
                let c = nn.class(x);
                classes.push(c);
                r.mixing.add(c);
            }
            if let Some(acc) = &mut r.isl {
                acc.add(x);
                if acc.count() == r.next_isl {
                    isl.push(acc.point(None).map_err(js_err)?);
                    r.next_isl = next_isl_at(r.next_isl);
                }
            }
        }
        let mut grey = vec![0.0; m];
        r.stream.mean(&mut grey);
        let out = to_js(&SamplerSlice {
            emitted: r.stream.emitted(),
            classes,
            mixing: r.mixing.summary(),
            isl,
            fast_norm: r.stream.fast_norm(),
        })?;
        js_sys::Reflect::set(&out, &"grey".into(), &js_sys::Float32Array::from(&grey[..]))?;
        js_sys::Reflect::set(
            &out,
            &"binary".into(),
            &js_sys::Float32Array::from(r.stream.visible()),
        )?;
        Ok(out)
    }

    /// The ISL of a data set's own rows (the reference line): points at log-spaced N up to all
    /// of `data`'s rows, on the same test and validation sets.
    #[wasm_bindgen(js_name = referenceIsl)]
    pub fn reference_isl(data: &str, test: &str, valid: &str) -> Result<JsValue, JsValue> {
        let (d, t) = (
            dataset(data).map_err(js_err)?,
            dataset(test).map_err(js_err)?,
        );
        let v = if valid.is_empty() {
            None
        } else {
            Some(dataset(valid).map_err(js_err)?)
        };
        let mut acc =
            rbm_core::eval::isl::Isl::new(&t.values, v.as_ref().map(|v| &v.values[..]), d.m)
                .map_err(js_err)?;
        let mut points = Vec::new();
        let mut next = 1;
        for r in 0..d.rows() {
            acc.add(d.row(r));
            if acc.count() == next || r + 1 == d.rows() {
                points.push(acc.point(None).map_err(js_err)?);
                next = next_isl_at(next);
            }
        }
        to_js(&points)
    }
}

/// The samplers the core registers, for the page's sampler view.
#[wasm_bindgen(js_name = samplerCatalog)]
pub fn sampler_catalog() -> Result<JsValue, JsValue> {
    to_js(&rbm_core::sampler::catalog())
}

/// The no-drift self-test of each sampler in `configs` on a trained Bars & Stripes 4×4 model
/// (`rbm_core::sampler::drift::self_test`): `chains` chains from exact draws of p(v), total
/// variation to p after 1, 4 and 16 samples against the Monte-Carlo floor.
#[wasm_bindgen(js_name = samplerSelfTest)]
pub fn sampler_self_test(configs: JsValue, chains: usize, seed: f64) -> Result<JsValue, JsValue> {
    let configs: Vec<serde_json::Value> = serde_wasm_bindgen::from_value(configs)
        .map_err(|e| internal(format!("sampler configurations: {e}")))?;
    let configs = configs
        .iter()
        .map(sampler_config)
        .collect::<Result<Vec<_>, Error>>()
        .map_err(js_err)?;
    let seed = rbm_core::train::config::SEED
        .parse(&format!("{seed}"))
        .map_err(js_err)?
        .as_u64()
        .unwrap_or(1);
    to_js(&rbm_core::sampler::drift::self_test(&configs, chains, seed).map_err(js_err)?)
}

/// A sampler configuration from a plain object (`null` values keep the defaults).
fn sampler_config(c: &serde_json::Value) -> Result<rbm_core::sampler::SamplerConfig, Error> {
    let mut cfg = rbm_core::sampler::SamplerConfig::default();
    if let Some(obj) = c.as_object() {
        for (key, value) in obj {
            if !value.is_null() {
                cfg.set(key, value)?;
            }
        }
    }
    cfg.validate()?;
    Ok(cfg)
}

//! The page's GPU lanes (issue 30): a lane's dense work on the user's GPU through WebGPU, in
//! the lane's worker. Built only with the `gpu` feature (`www/pkg-gpu`), which a worker loads
//! only when its lane asks for the GPU.
//!
//! The worker cannot wait for its GPU, so the lane is `rbm_gpu::lane::GpuLane`: records and
//! views come from copies taken on the GPU at their update and arrive a slice or more later;
//! the model the page exports, estimates and analyses is that of the latest record. A record's
//! exact curve is the host's f64 enumeration, in the worker or (deferred) in the page's pool.

pub mod ais_batch;

use crate::lanes::AnyLane;
use crate::{dataset, defer, js_err, lane_config, slice_to_js, SliceResult, WasmLane, VIEW_CHAINS};
use rbm_core::engine::Engine;
use rbm_core::error::Error;
use rbm_core::schema::budget;
use rbm_core::train::{Lane, Record};
use rbm_gpu::ais::Anneal;
use rbm_gpu::device::Fence;
use rbm_gpu::exact::ExactWalk;
use rbm_gpu::lane::GpuLane;
use rbm_gpu::{Device, Gpu, Snapshot};
use std::cell::RefCell;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The worker's GPU, opened once.
    static DEVICE: RefCell<Option<Arc<Device>>> = const { RefCell::new(None) };
}

/// The worker's GPU (opened on first use): a clear error where the browser offers none.
async fn device() -> Result<Arc<Device>, Error> {
    if let Some(d) = DEVICE.with(|d| d.borrow().clone()) {
        return Ok(d);
    }
    let d = Device::open_async(None).await?;
    DEVICE.with(|slot| *slot.borrow_mut() = Some(d.clone()));
    Ok(d)
}

/// The worker's GPU once [`gpu_adapter`] has opened it.
pub(crate) fn opened() -> Option<Arc<Device>> {
    DEVICE.with(|d| d.borrow().clone())
}

/// The name of the GPU adapter the browser offers (opening it). Throws `{kind, key, message}`
/// where there is none.
#[wasm_bindgen(js_name = gpuAdapter)]
pub async fn gpu_adapter() -> Result<String, JsValue> {
    let d = device().await.map_err(js_err)?;
    Ok(adapter_name(&d))
}

/// The adapter's name, or what the browser says of it where it gives no name (it may not, to
/// keep the machine from being fingerprinted).
pub(crate) fn adapter_name(d: &Device) -> String {
    let i = &d.info;
    match (i.name.is_empty(), i.driver.is_empty(), i.kind.is_empty()) {
        (false, _, _) => i.name.clone(),
        (true, false, _) => i.driver.clone(),
        (true, true, false) => format!("a WebGPU adapter of kind {}", i.kind),
        (true, true, true) => "a WebGPU adapter".into(),
    }
}

/// A GPU lane's state in its [`WasmLane`].
pub struct GpuState {
    /// The lane.
    pub lane: GpuLane,
    /// The adapter's name.
    pub adapter: String,
    /// (update, sweeps, half-steps) of the latest records, for the exported model's record.
    counters: Vec<(u64, f64, f64)>,
}

impl GpuState {
    /// Sweeps and half-steps at update `iter` (a record's), or 0 before any.
    pub fn counters_at(&self, iter: u64) -> (f64, f64) {
        self.counters
            .iter()
            .rev()
            .find(|c| c.0 == iter)
            .map_or((0.0, 0.0), |c| (c.1, c.2))
    }

    fn remember(&mut self, r: &Record) {
        if self.counters.len() >= 4 {
            self.counters.remove(0);
        }
        self.counters.push((r.iter, r.sweeps, r.vh_steps));
    }
}

/// A lane (as `new WasmLane`) whose dense work runs on the browser's GPU, opened before by
/// [`gpu_adapter`]. Throws `{kind, key, message}`: no GPU open, an algorithm the page runs on
/// the CPU only (UCD, PT), or what `new WasmLane` refuses.
#[wasm_bindgen(js_name = newGpuLane)]
pub fn new_gpu_lane(config: JsValue, dataset_name: &str) -> Result<WasmLane, JsValue> {
    let mut cfg = lane_config(config).map_err(js_err)?;
    if !Gpu::runs(&cfg.algo) {
        return Err(js_err(Error::option(
            "algo",
            format!(
                "{} runs on the CPU in the page (UCD's chains stop one by one; PT tempers its replicas on the host)",
                cfg.algo
            ),
        )));
    }
    let dev = DEVICE.with(|d| d.borrow().clone()).ok_or_else(|| {
        js_err(Error::Invalid(
            "the GPU is not open (gpuAdapter first)".into(),
        ))
    })?;
    let data = dataset(dataset_name).map_err(js_err)?;
    let deferred = defer(&mut cfg, &data).map_err(js_err)?;
    let lane = Lane::on_within::<Gpu>(&dev, cfg, data, &budget::PAGE).map_err(js_err)?;
    Ok(WasmLane {
        lane: AnyLane::Gpu(Box::new(GpuState {
            lane: GpuLane::new(lane),
            adapter: adapter_name(&dev),
            counters: Vec::new(),
        })),
        deferred,
    })
}

/// An AIS or RAISE run of a GPU lane's estimate on its GPU: every chain at once, a few β
/// steps per call, the log-weights copied back without waiting.
pub struct GpuAis {
    anneal: Anneal,
    copy: Option<Snapshot>,
    /// The adapter's name, for the estimate's label.
    pub adapter: String,
}

impl GpuAis {
    /// Records up to `max_steps` more β steps: the log-weights once they are on the host, the
    /// steps done and the steps in all (the copy back counts as the last).
    pub fn advance(&mut self, max_steps: usize) -> Result<(Option<Vec<f64>>, usize, usize), Error> {
        let (_, total) = self.anneal.progress();
        if self.copy.is_none() && self.anneal.advance(max_steps.max(1)) {
            self.copy = Some(self.anneal.finish());
        }
        let (done, _) = self.anneal.progress();
        if let Some(why) = self.anneal_device_failure() {
            return Err(Error::Invalid(why));
        }
        match self.copy.as_ref().and_then(Snapshot::take) {
            Some(pairs) => Ok((Some(Anneal::log_weights(&pairs?)), total + 1, total + 1)),
            None => Ok((None, done, total + 1)),
        }
    }

    fn anneal_device_failure(&self) -> Option<String> {
        self.anneal.device().failure()
    }
}

/// A checkpoint's exact log Z on a GPU trial's GPU ([`crate::measure::ExactMeasure`]):
/// `rbm_gpu::exact::ExactWalk`, the blocks' sums copied back without waiting — the bits of
/// `rbm_gpu::exact::log_z`. One dispatch (4M states) at a time: a tiny copy after each (the
/// fence, as a GPU lane's slice has) says when the GPU has done it, and the next is recorded
/// only then, so the GPU's queue stays one dispatch long and the trial's Pause and Stop are
/// not kept waiting behind the whole enumeration.
pub struct GpuExact {
    walk: ExactWalk,
    dev: Arc<Device>,
    fence: Fence,
    copy: Option<Snapshot>,
}

impl GpuExact {
    /// The enumeration of `model`'s smaller layer on `dev` (refused as `exact::log_z` refuses).
    pub fn new(dev: &Arc<Device>, model: &rbm_core::model::Rbm) -> Result<GpuExact, Error> {
        Ok(GpuExact {
            walk: ExactWalk::new(dev, model)?,
            dev: dev.clone(),
            fence: Fence::new(dev),
            copy: None,
        })
    }

    /// Steps in all: the dispatches and the copy back.
    pub fn steps(&self) -> usize {
        self.walk.progress().1 + 1
    }

    /// Records the next dispatch once the GPU has done the previous one (at most one per call,
    /// whatever `_max_dispatches`: the fence paces them): log Z once the blocks' sums are on
    /// the host, the steps done and the steps in all. A lost device is an error.
    pub fn advance(
        &mut self,
        _max_dispatches: usize,
    ) -> Result<(Option<f64>, usize, usize), Error> {
        let total = self.steps();
        if let Some(why) = self.dev.failure() {
            return Err(Error::Invalid(why));
        }
        if self.fence.passed()? && self.copy.is_none() {
            if self.walk.advance(1) {
                self.copy = Some(self.walk.finish());
            } else {
                self.fence.mark(&self.dev);
            }
        }
        match self.copy.as_ref().and_then(Snapshot::take) {
            Some(parts) => Ok((Some(ExactWalk::log_z(&parts?)?), total, total)),
            None => Ok((None, self.walk.progress().0, total)),
        }
    }
}

/// A GPU lane's estimate (`WasmLane::ais`) on its GPU: the CPU's plan, its chains on the GPU.
pub(crate) fn ais(
    dev: &Arc<Device>,
    adapter: &str,
    model: &rbm_core::model::Rbm,
    data: &rbm_core::data::Dataset,
    cfg: rbm_core::eval::ais::AisConfig,
    reverse: bool,
    iter: u64,
) -> Result<crate::WasmAis, Error> {
    let mut run = crate::WasmAis::new(model, data, cfg, reverse, iter)?;
    run.block = None;
    run.gpu = Some(GpuAis {
        anneal: Anneal::new(dev, &run.plan)?,
        copy: None,
        adapter: adapter.to_string(),
    });
    Ok(run)
}

/// One slice of a GPU lane ([`WasmLane::step`]): the records and the view whose copies are
/// in, then up to `updates` more updates submitted (none while the GPU is behind, nor — with
/// a deferred exact curve — right after a record, which the pool evaluates first); a view
/// asked for arrives in a later slice.
pub(crate) fn step(
    g: &mut GpuState,
    deferred: bool,
    updates: u32,
    view: bool,
    within_ms: Option<f64>,
) -> Result<JsValue, JsValue> {
    let now = js_sys::Date::now();
    let polled = g.lane.poll(VIEW_CHAINS, within_ms.unwrap_or(80.0), now);
    for r in &polled.records {
        g.remember(r);
    }
    let mut error = polled.error.map(|e| e.info());
    let hold = deferred && !polled.records.is_empty();
    if error.is_none() && !hold && g.lane.lane().failure().is_none() {
        if let Err(e) = g.lane.run(u64::from(updates), now) {
            error = Some(e.info());
        }
    }
    if view && !g.lane.view_pending() {
        g.lane.ask_view();
    }
    slice_to_js(&SliceResult {
        records: polled.records,
        iter: g.lane.lane().iter(),
        error,
        failed: g.lane.lane().failure().is_some(),
        view: polled.view,
    })
}

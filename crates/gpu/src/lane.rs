//! A training lane on the GPU that never waits for it ([`GpuLane`]): what a browser's worker
//! needs, whose GPU hands numbers back only once the worker's event loop has turned.
//!
//! Updates are recorded and submitted as the lane runs; a record or a view takes a copy of θ
//! (and of the chains) on the GPU at its update ([`crate::Snapshot`]) and is completed by a
//! later [`GpuLane::poll`], once the copy is on the host: the records are those of
//! `Lane::run` on the same seed and GPU, one or more slices later. A small copy at the end of
//! every slice (the fence) says when the GPU has caught up, so the work queued on it stays
//! about one slice long (Pause is answered within a slice) and the rate is the GPU's.
//!
//! FPCD's statistic ‖W_F‖ of every update is taken on the GPU too (`Engine::w_norm`'s
//! ‖W_F‖², kept in order on the GPU, `GpuParams::defer_norms`) and copied with the next record,
//! whose window mean of the roots the host forms in f64 as `Lane::run` does from the values it
//! reads back one by one: the same records, without a read after every update.

use crate::{Gpu, Snapshot};
use rbm_core::error::{Error, Result};
use rbm_core::schema::stats::Accumulator;
use rbm_core::train::fpcd::FAST_W_NORM;
use rbm_core::train::{Lane, PendingRecord, Record, View};
use std::collections::VecDeque;

/// A view asked for at an update: copies of θ and of the chains' visible states.
struct PendingView {
    iter: u64,
    theta: Snapshot,
    chains: Option<Snapshot>,
}

/// The end of a slice: a copy taken after its last update, and how many updates it had.
struct Fence {
    copy: Snapshot,
    updates: u64,
    started_ms: f64,
}

/// A record begun at its update: the copies of θ and (FPCD) of the window's ‖W_F‖² values.
struct PendingCopy {
    record: PendingRecord,
    theta: Snapshot,
    norms: Option<Snapshot>,
}

impl PendingCopy {
    fn ready(&self) -> bool {
        self.theta.ready() && self.norms.as_ref().is_none_or(Snapshot::ready)
    }
}

/// What [`GpuLane::poll`] found on the host.
#[derive(Default)]
pub struct Polled {
    /// Records completed, in order.
    pub records: Vec<Record>,
    /// The view asked for, when complete.
    pub view: Option<View>,
    /// The error that stopped the lane (a divergence found at a record, a lost device).
    pub error: Option<Error>,
}

/// A [`Lane`] on the GPU that never waits for it (module docs).
pub struct GpuLane {
    lane: Lane<Gpu>,
    records: VecDeque<PendingCopy>,
    view: Option<PendingView>,
    fence: Option<Fence>,
    /// Updates per slice: doubled while the GPU does a slice well within the time asked for,
    /// halved when it takes longer.
    chunk: u64,
    /// Updates per millisecond the GPU did in the latest slice, once measured.
    rate: Option<f64>,
    /// Whether the record at update 0 was begun.
    started: bool,
}

impl GpuLane {
    /// `lane`, driven without waiting for its GPU.
    pub fn new(lane: Lane<Gpu>) -> GpuLane {
        if let Some(fast) = lane.engine_fast_params() {
            fast.defer_norms();
        }
        GpuLane {
            lane,
            records: VecDeque::new(),
            view: None,
            fence: None,
            chunk: 1,
            rate: None,
            started: false,
        }
    }

    /// The lane (its counters, configuration, and the model of its latest record).
    pub fn lane(&self) -> &Lane<Gpu> {
        &self.lane
    }

    /// The lane, to change its live options.
    pub fn lane_mut(&mut self) -> &mut Lane<Gpu> {
        &mut self.lane
    }

    /// Whether copies are on their way (records, a view, the fence): [`GpuLane::poll`] again.
    pub fn busy(&self) -> bool {
        !self.records.is_empty() || self.view.is_some() || self.fence.is_some()
    }

    /// Whether the GPU has done every update submitted (a new slice may start).
    pub fn caught_up(&self) -> bool {
        self.fence.is_none()
    }

    /// Updates per second the GPU did in the latest slice (wall time from its submission to its
    /// fence), once measured.
    pub fn updates_per_second(&self) -> Option<f64> {
        self.rate.map(|r| r * 1000.0)
    }

    /// Up to `updates` updates (fewer: the slice the GPU did in the time [`GpuLane::poll`] was
    /// given, judged by the previous slices; none while the GPU has not caught up with the
    /// last one), the records among them begun (the first call begins the record at update 0
    /// too). `now_ms`: the wall clock. Returns the updates done.
    pub fn run(&mut self, updates: u64, now_ms: f64) -> Result<u64> {
        if !self.caught_up() {
            return Ok(0);
        }
        if !self.started {
            self.started = true;
            self.begin_record();
        }
        let n = updates.min(self.chunk.max(1));
        let every = self.lane.config().every.max(1);
        for _ in 0..n {
            self.lane.step()?;
            if self.lane.iter().is_multiple_of(every) {
                self.begin_record();
            }
        }
        if n > 0 {
            // θ's first number, copied after the slice: the fence.
            let copy = self.lane.engine_model().snapshot_first();
            self.fence = Some(Fence {
                copy,
                updates: n,
                started_ms: now_ms,
            });
        }
        Ok(n)
    }

    fn begin_record(&mut self) {
        let record = self.lane.begin_record();
        let norms = self.lane.engine_fast_params().and_then(|f| f.take_norms());
        let theta = self.lane.engine_model().snapshot();
        self.records.push_back(PendingCopy {
            record,
            theta,
            norms,
        });
    }

    /// Whether a view asked for is on its way.
    pub fn view_pending(&self) -> bool {
        self.view.is_some()
    }

    /// Asks for the view of the current update (replacing one asked for before).
    pub fn ask_view(&mut self) {
        self.view = Some(PendingView {
            iter: self.lane.iter(),
            theta: self.lane.engine_model().snapshot(),
            chains: self.lane.engine_chains().map(|c| c.snapshot()),
        });
    }

    /// The records and the view whose copies are on the host, completed (`max_chains` chains in
    /// the view), and the fence's measure of the GPU's speed (`within_ms`, `now_ms` as for
    /// [`GpuLane::run`]).
    pub fn poll(&mut self, max_chains: usize, within_ms: f64, now_ms: f64) -> Polled {
        let mut out = Polled::default();
        let dev = self.lane.engine_model().device().clone();
        if self.busy() {
            dev.progress();
        }
        if let Some(why) = dev.failure() {
            self.records.clear();
            self.view = None;
            self.fence = None;
            out.error = Some(Error::Invalid(why));
            return out;
        }
        while self.records.front().is_some_and(PendingCopy::ready) {
            let c = self.records.pop_front().expect("looked at above");
            let done = self.complete_record(c);
            match done {
                Ok(r) => out.records.push(r),
                Err(e) => {
                    out.error = Some(e);
                    self.records.clear();
                    self.view = None;
                    break;
                }
            }
        }
        if let Some(v) = &self.view {
            if v.theta.ready() && v.chains.as_ref().is_none_or(Snapshot::ready) {
                let v = self.view.take().expect("looked at above");
                match self.complete_view(v, max_chains) {
                    Ok(view) => out.view = Some(view),
                    Err(e) => out.error = out.error.or(Some(e)),
                }
            }
        }
        if let Some(f) = &self.fence {
            if let Some(taken) = f.copy.take() {
                let f = self.fence.take().expect("looked at above");
                if let Err(e) = taken {
                    out.error = out.error.or(Some(e));
                }
                let ms = (now_ms - f.started_ms).max(0.0);
                if ms > 0.0 {
                    self.rate = Some(f.updates as f64 / ms);
                }
                if f.updates == self.chunk && ms < within_ms / 2.0 {
                    self.chunk = (self.chunk * 2).min(1 << 16);
                } else if ms > within_ms {
                    self.chunk = (self.chunk / 2).max(1);
                }
            }
        }
        out
    }

    /// The record of `c`, whose copies are on the host: FPCD's ‖W_F‖ is the window's mean of
    /// the roots of its ‖W_F‖² values, in f64 and in order, as `Lane::step` accumulates the
    /// values `Engine::w_norm` reads back.
    fn complete_record(&mut self, c: PendingCopy) -> Result<Record> {
        let mut record = c.record;
        if let Some(norms) = c.norms {
            let values = norms.take().expect("ready")?;
            let how = rbm_core::train::fpcd::INFO
                .stats
                .iter()
                .find(|s| s.key == FAST_W_NORM)
                .map_or(rbm_core::schema::Aggregate::Mean, |s| s.over_updates);
            let mut acc = Accumulator::new(how);
            for v in values {
                acc.add(f64::from(v).sqrt());
            }
            record.set_stat(FAST_W_NORM, acc.value());
        }
        let theta = c.theta.take().expect("ready")?;
        let params = self.lane.engine_model().params_of(&theta);
        self.lane.finish_record(record, params)
    }

    fn complete_view(&self, v: PendingView, max_chains: usize) -> Result<View> {
        let theta = v.theta.take().expect("ready")?;
        let model = self.lane.engine_model().from_theta(theta)?;
        let chains = match v.chains {
            Some(c) => Some(c.take().expect("ready")?),
            None => None,
        };
        let (recorded, at) = self.lane.recorded_model();
        let log_z = self
            .lane
            .recorded_log_z()
            .filter(|&(iter, _)| iter == v.iter && at == v.iter && recorded.m() == model.m())
            .map(|(_, z)| z);
        Ok(self
            .lane
            .view_of(&model, v.iter, chains.as_deref(), log_z, max_chains))
    }

    /// Waits until every copy is on the host, then polls (natively; a browser cannot wait).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn settle(&mut self, max_chains: usize) -> Polled {
        let dev = self.lane.engine_model().device().clone();
        let mut all = Polled::default();
        while self.busy() {
            dev.finish();
            let p = self.poll(max_chains, f64::INFINITY, 0.0);
            all.records.extend(p.records);
            all.view = p.view.or(all.view);
            if let Some(e) = p.error {
                all.error = Some(e);
                break;
            }
        }
        all
    }
}

impl From<GpuLane> for Lane<Gpu> {
    fn from(g: GpuLane) -> Lane<Gpu> {
        g.lane
    }
}

//! The rates-FPCD paper's samplers on the GPU (issue 30; Breuleux, Bengio & Vincent 2011,
//! docs/algorithms.md §5): [`rbm_core::sampler::engine::SamplerEngine`] for the GPU engine, so
//! the core's one definition of Gibbs, rates-FPCD, rates-herding and sample penalisation
//! ([`rbm_core::sampler::engine::EngineSampler`]) runs here on the engine's sweeps, statistics
//! and sums, with three kernels of its own (shaders/sampler.wgsl):
//!
//! - the fast update `θ_F ← α·θ_F + ε_F·(R − s(x⁻))`, one dispatch over [W | b | c];
//! - herding's fixed-point search: per step, the two products' pre-activations (the training
//!   products with their `Pre` epilogue), a threshold of the hidden layer, and one workgroup
//!   that thresholds the visible layer, compares it with the state it replaces and marks the
//!   search done; the later steps of a search that is done change nothing, so the search is
//!   `cap` steps of dispatches with no copy back, and ends where the CPU's loop breaks;
//! - emitted samples copied into a store on the GPU and read back in one go.

use crate::device::{Buf, Device, Params, Pipeline};
use crate::engine::{hidden, visible, Gpu, GpuChains, GpuModel, GpuParams, GpuStats};
use crate::product::Epilogue;
use rbm_core::model::Params as HostParams;
use rbm_core::sampler::engine::SamplerEngine;
use std::sync::{Arc, OnceLock};

const WGSL: &str = include_str!("shaders/sampler.wgsl");

/// Scratch of the GPU's samplers: herding's pre-activations and its "done" flag, and the store
/// of emitted samples.
pub struct GpuSamplerWork {
    dev: Arc<Device>,
    pre_h: Buf,
    pre_v: Buf,
    done: Buf,
    store: Buf,
    /// Rows (of `width` values) stored and the most the store holds.
    rows: usize,
    capacity: usize,
    width: usize,
}

impl GpuSamplerWork {
    fn pipeline(&self, entry: &'static str) -> Arc<Pipeline> {
        self.dev.compile(WGSL, entry)
    }

    /// The stored rows on their way back without waiting ([`crate::sampler_stream`]); the store
    /// is empty after (the GPU copies before it runs what is recorded later).
    pub(crate) fn snapshot(&mut self) -> crate::Snapshot {
        let rows = std::mem::take(&mut self.rows);
        self.dev.snapshot(&self.store, 0, rows * self.width)
    }
}

impl SamplerEngine for Gpu {
    type Work = GpuSamplerWork;

    fn work(model: &GpuModel, chains: usize, capacity: usize) -> GpuSamplerWork {
        let dev = model.dev.clone();
        let (m, n) = (model.m, model.n);
        GpuSamplerWork {
            pre_h: dev.zeros(chains * n),
            pre_v: dev.zeros(chains * m),
            done: dev.zeros(1),
            store: dev.zeros(capacity * chains * m),
            rows: 0,
            capacity,
            width: chains * m,
            dev,
        }
    }

    fn params_of(model: &GpuModel, p: &HostParams<f32>) -> GpuParams {
        GpuParams::new(
            model,
            model.dev.buffer(&[&p.w[..], &p.b[..], &p.c[..]].concat()),
        )
    }

    fn fast_update(
        fast: &mut GpuParams,
        rates: Option<&GpuParams>,
        s: &GpuStats,
        alpha: f32,
        eps_f: f32,
    ) {
        let count = fast.m * fast.n + fast.m + fast.n;
        let p = Params {
            count: count as u32,
            flags: u32::from(rates.is_some()),
            f: [
                alpha,
                eps_f,
                1.0 / s.count.max(1.0),
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            ..Default::default()
        };
        let update = fast.dev.compile(WGSL, "sampler_fast_update");
        fast.dev.run(
            &update,
            &p,
            [Some(&s.sums), rates.map(|r| &r.x), None],
            [Some(&fast.x), None],
            Device::element_groups(count),
        );
    }

    fn herd(model: &GpuModel, chains: &mut GpuChains, work: &mut GpuSamplerWork, cap: usize) {
        assert_eq!(
            chains.count, 1,
            "herding on the GPU runs one chain (its flag is the chain's)"
        );
        chains.host = OnceLock::new();
        let (m, n) = (model.m, model.n);
        let dev = &model.dev;
        let (reset, step_h, step_v) = (
            work.pipeline("sampler_herd_reset"),
            work.pipeline("sampler_herd_hidden"),
            work.pipeline("sampler_herd_visible"),
        );
        dev.run(
            &reset,
            &Params::default(),
            [None, None, None],
            [Some(&work.done), None],
            (1, 1, 1),
        );
        for _ in 0..cap {
            hidden(model, &chains.v, 1, Epilogue::Pre(1.0), &work.pre_h);
            dev.run(
                &step_h,
                &Params {
                    count: n as u32,
                    ..Default::default()
                },
                [Some(&work.pre_h), Some(&work.done), None],
                [Some(&chains.h), None],
                Device::element_groups(n),
            );
            visible(model, &chains.h, 1, Epilogue::Pre(1.0), &work.pre_v);
            dev.run(
                &step_v,
                &Params {
                    count: m as u32,
                    ..Default::default()
                },
                [Some(&work.pre_v), None, None],
                [Some(&chains.v), Some(&work.done)],
                (1, 1, 1),
            );
        }
        hidden(model, &chains.v, 1, Epilogue::Means(1.0), &chains.hp);
    }

    fn emit(chains: &GpuChains, work: &mut GpuSamplerWork) {
        assert!(work.rows < work.capacity, "the store is taken when full");
        work.dev.copy(
            &chains.v,
            0,
            &work.store,
            work.rows * work.width,
            work.width,
        );
        work.rows += 1;
    }

    fn take(work: &mut GpuSamplerWork) -> Vec<f32> {
        if work.rows == 0 {
            return Vec::new();
        }
        let out = work.dev.read(&work.store, 0, work.rows * work.width);
        work.rows = 0;
        out
    }

    fn capacity(work: &GpuSamplerWork) -> usize {
        work.capacity
    }
}

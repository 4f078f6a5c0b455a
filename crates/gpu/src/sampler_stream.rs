//! The rates-FPCD paper's samplers on a GPU that is never waited for (issue 30; Breuleux,
//! Bengio & Vincent 2011, docs/algorithms.md §5): a browser's worker cannot block on its GPU,
//! so [`GpuSamplerStream`] records a block of samples ([`EngineSampler::emit`]: Gibbs,
//! rates-FPCD, rates-herding or SP, the core's one definition on the GPU engine), copies the
//! store into mapped buffers ([`crate::Device::snapshot`]) and hands the block over a slice or
//! more later ([`GpuSamplerStream::poll`]), as `GpuLane` hands its records over. The samples
//! are those [`EngineSampler::samples`] gives for the same seed, bit for bit on the same device
//! (tested): the copies read the store, they change nothing the chains use.
//!
//! With each block come what the page shows of its last sample: the grey levels E[x|h] under
//! the parameters the chain moves under now (θ⁻ = θ + θ_F after the sample's fast update, or θ
//! for Gibbs), h the hidden state the sample was drawn from — as the CPU samplers' `mean` —
//! and ‖W_F‖ (the `sumsq` kernel).

use crate::device::Buf;
use crate::engine::{visible, Gpu};
use crate::product::Epilogue;
use crate::{Device, Snapshot};
use rbm_core::error::{Error, Result};
use rbm_core::sampler::engine::EngineSampler;
use std::collections::VecDeque;
use std::sync::Arc;

/// A block of emitted samples on the host.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleBlock {
    /// The samples, emitted sample after sample, chains in order within each (samples × chains
    /// × m values, 0/1).
    pub samples: Vec<f32>,
    /// E[x|h] of the last sample of every chain (chains × m).
    pub grey: Vec<f32>,
    /// ‖W_F‖ after the block (0 for Gibbs).
    pub fast_norm: f64,
}

/// A block on its way back: the store's copies, then the grey levels' and ‖W_F‖²'s.
struct InFlight {
    parts: Vec<Snapshot>,
    grey: Snapshot,
    norm: Option<Snapshot>,
}

impl InFlight {
    fn ready(&self) -> bool {
        self.parts.iter().all(Snapshot::ready)
            && self.grey.ready()
            && self.norm.as_ref().is_none_or(Snapshot::ready)
    }
}

/// An [`EngineSampler`] on the GPU whose samples come back without waiting: blocks recorded by
/// [`Self::submit`], handed over in order by [`Self::poll`] once their copies are in.
pub struct GpuSamplerStream {
    sampler: EngineSampler<Gpu>,
    dev: Arc<Device>,
    /// E[x|h] of the chains' last samples, ‖W_F‖².
    grey: Buf,
    norm: Buf,
    m: usize,
    flight: VecDeque<InFlight>,
    /// Samples recorded and samples handed over.
    submitted: u64,
    taken: u64,
}

impl GpuSamplerStream {
    /// The stream of `sampler` (made on `dev`) for a model of `m` visible units.
    pub fn new(dev: &Arc<Device>, sampler: EngineSampler<Gpu>, m: usize) -> GpuSamplerStream {
        let chains = sampler.chains();
        GpuSamplerStream {
            sampler,
            dev: dev.clone(),
            grey: dev.zeros(chains * m),
            norm: dev.zeros(1),
            m,
            flight: VecDeque::new(),
            submitted: 0,
            taken: 0,
        }
    }

    /// Records the next `samples` emitted samples of every chain (at least one), their copies
    /// back, and the grey levels and ‖W_F‖ after them; never waits. A block longer than the
    /// store is copied in parts.
    pub fn submit(&mut self, samples: usize) {
        let mut left = samples.max(1);
        let mut parts = Vec::new();
        while left > 0 {
            left -= self.sampler.emit(left);
            parts.push(self.sampler.drain(|p| p.work.snapshot()));
        }
        self.submitted += samples.max(1) as u64;
        let (dev, grey, norm, m) = (&self.dev, &self.grey, &self.norm, self.m);
        let (grey, norm) = self.sampler.drain(|p| {
            let rows = p.chains.count;
            visible(p.model, &p.chains.h, rows, Epilogue::Means(1.0), grey);
            let norm = p.fast.map(|f| {
                f.sumsq(norm, 0);
                dev.snapshot(norm, 0, 1)
            });
            (dev.snapshot(grey, 0, rows * m), norm)
        });
        self.flight.push_back(InFlight { parts, grey, norm });
    }

    /// The oldest block recorded, once its copies are on the host (None: none is in yet); a
    /// lost device or a failed copy is an error.
    pub fn poll(&mut self) -> Option<Result<SampleBlock>> {
        if let Some(why) = self.dev.failure() {
            return Some(Err(Error::Invalid(why)));
        }
        self.dev.progress();
        if !self.flight.front()?.ready() {
            return None;
        }
        let block = self.flight.pop_front()?;
        Some(self.take(block))
    }

    fn take(&mut self, block: InFlight) -> Result<SampleBlock> {
        let gone = || Error::Invalid("a copy back from the GPU was taken twice".into());
        let mut samples = Vec::new();
        for p in &block.parts {
            samples.extend(p.take().ok_or_else(gone)??);
        }
        let grey = block.grey.take().ok_or_else(gone)??;
        let fast_norm = match &block.norm {
            Some(n) => f64::from(n.take().ok_or_else(gone)??[0]).sqrt(),
            None => 0.0,
        };
        self.taken += (samples.len() / (self.m * self.sampler.chains()).max(1)) as u64;
        Ok(SampleBlock {
            samples,
            grey,
            fast_norm,
        })
    }

    /// Blocks recorded and not handed over yet.
    pub fn in_flight(&self) -> usize {
        self.flight.len()
    }

    /// Samples (of every chain) recorded so far, and handed over so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.submitted, self.taken)
    }

    /// The device it runs on.
    pub fn device(&self) -> &Arc<Device> {
        &self.dev
    }
}

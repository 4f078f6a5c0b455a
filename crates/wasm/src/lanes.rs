//! The lane behind a [`crate::WasmLane`]: on the CPU engine, or (built with the `gpu` feature,
//! `www/pkg-gpu`) on the page's GPU through WebGPU — one shell for both, so the worker drives
//! either the same way.

use rbm_core::error::Result;
use rbm_core::model::Rbm;
use rbm_core::train::{Lane, LaneConfig};

/// A lane on one of the page's engines.
// One per worker: the CPU lane stays unboxed, as it was.
#[allow(clippy::large_enum_variant)]
pub enum AnyLane {
    /// The CPU engine (the wasm core itself).
    Cpu(Lane),
    /// The GPU engine, never waiting for the GPU (`rbm_gpu::lane`).
    #[cfg(feature = "gpu")]
    Gpu(Box<crate::gpu::GpuState>),
}

/// `$body` with `$l` bound to the lane, whatever its engine (its engine-generic methods).
macro_rules! on_lane {
    ($any:expr, $l:ident => $body:expr) => {
        match $any {
            $crate::lanes::AnyLane::Cpu($l) => $body,
            #[cfg(feature = "gpu")]
            $crate::lanes::AnyLane::Gpu(g) => {
                let $l = g.lane.lane();
                $body
            }
        }
    };
}
pub(crate) use on_lane;

impl AnyLane {
    /// The model on the host: the CPU lane's current one; a GPU lane's latest record's (what
    /// the page can have without waiting for the GPU).
    pub fn model(&self) -> &Rbm {
        match self {
            AnyLane::Cpu(l) => l.model(),
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(g) => g.lane.lane().recorded_model().0,
        }
    }

    /// The update [`AnyLane::model`] is of.
    pub fn model_iter(&self) -> u64 {
        match self {
            AnyLane::Cpu(l) => l.model_iter(),
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(g) => g.lane.lane().recorded_model().1,
        }
    }

    /// The model file of [`AnyLane::model`] with its training record.
    pub fn model_file(&self) -> String {
        match self {
            AnyLane::Cpu(l) => l.model_file(),
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(g) => {
                let (model, iter) = g.lane.lane().recorded_model();
                let (sweeps, vh) = g.counters_at(iter);
                g.lane.lane().model_file_at(model, iter, sweeps, vh)
            }
        }
    }

    /// The lane's configuration.
    pub fn config(&self) -> &LaneConfig {
        on_lane!(self, l => l.config())
    }

    /// Sets a live option ([`Lane::set_live`]).
    pub fn set_live(&mut self, key: &str, v: serde_json::Value) -> Result<()> {
        match self {
            AnyLane::Cpu(l) => l.set_live(key, v),
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(g) => g.lane.lane_mut().set_live(key, v),
        }
    }

    /// Takes a record's exact log Z computed by the page's pool ([`Lane::take_log_z`]).
    pub fn take_log_z(&mut self, log_z: f64) {
        match self {
            AnyLane::Cpu(l) => l.take_log_z(log_z),
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(g) => g.lane.lane_mut().take_log_z(log_z),
        }
    }

    /// The CPU lane, for what only it does (slow motion, a record on demand).
    pub fn cpu(&mut self, what: &str) -> Result<&mut Lane> {
        let _ = what;
        match self {
            AnyLane::Cpu(l) => Ok(l),
            #[cfg(feature = "gpu")]
            AnyLane::Gpu(_) => Err(rbm_core::error::Error::Invalid(format!(
                "{what} runs on the CPU: choose Compute: CPU for this lane"
            ))),
        }
    }
}

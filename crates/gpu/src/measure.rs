//! A study's checkpoint measurements on the GPU ([`GpuLogZ`]): `rbm reproduce --device gpu`
//! takes every checkpoint's log Z — the exact enumeration (`exact.rs`) or AIS (`ais.rs`) — on
//! the GPU, for the lanes the GPU trains and those it does not alike.

use crate::Device;
use rbm_core::error::Result;
use rbm_core::eval::ais::AisConfig;
use rbm_core::experiments::trials::LogZEngine;
use rbm_core::model::Rbm;
use std::sync::Arc;

/// The GPU's log Z for a study's measurements (f32 with compensated sums; AIS with
/// double-single log-weights): the same estimators as the CPU's, other numbers.
#[derive(Debug)]
pub struct GpuLogZ {
    dev: Arc<Device>,
}

impl GpuLogZ {
    /// Measurements on `dev`.
    pub fn new(dev: Arc<Device>) -> GpuLogZ {
        GpuLogZ { dev }
    }
}

impl LogZEngine for GpuLogZ {
    fn exact(&self, model: &Rbm) -> Result<f64> {
        crate::exact::log_z(&self.dev, model)
    }

    fn ais(&self, model: &Rbm, base: &[f32], cfg: AisConfig) -> Result<f64> {
        crate::ais::log_z(&self.dev, model, base, cfg.particles, cfg.betas, cfg.seed)
            .map(|e| e.log_z)
    }
}

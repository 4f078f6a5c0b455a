//! A study's exact checkpoint measure in a trial worker (issue 30): the exact average
//! log-likelihood of a preset's evaluation rows under a checkpoint's model, as `rbm reproduce`
//! measures `pcd-mnist-25` (`Study::measure`: log Z, then the rows' mean free energy on the CPU
//! in f64; Tieleman 2008, §4: the exact test log-likelihood of a 784×25 model).
//!
//! A 784×25 log Z is 2^25 states, seconds to a minute of work, so it is taken step by step,
//! never longer than a slice and never waiting for a GPU:
//! - on a GPU trial's GPU by [`rbm_gpu::exact::ExactWalk`]: a few dispatches (of 4M states) per
//!   call, the blocks' sums copied back without waiting and merged in f64 — the bits of
//!   `rbm_gpu::exact::log_z`, i.e. of `rbm reproduce --device gpu`;
//! - on the CPU in the enumeration's blocks of 2^16 states ([`exact::log_z_blocks`], merged in
//!   order by [`exact::merge_blocks`]) — the bits of [`exact::log_z`], i.e. of `rbm reproduce`.

use crate::{js_err, to_js, AisProgress, ExactResult};
use rbm_core::data::Dataset;
use rbm_core::error::Error;
use rbm_core::eval::exact;
use rbm_core::math::LogSumExp;
use rbm_core::model::Rbm;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// Where the enumeration runs.
enum Walk {
    /// The CPU's blocks, the partial sums of those done so far.
    Cpu {
        parts: Vec<LogSumExp>,
        blocks: usize,
    },
    /// A GPU trial's GPU.
    #[cfg(feature = "gpu")]
    Gpu(Box<crate::gpu::GpuExact>),
}

/// The exact ATLL of evaluation rows under a copy of a model, its log Z enumerated step by step
/// ([`ExactMeasure::advance`]); steps are the CPU's blocks of 2^16 states, or the GPU's
/// dispatches and the copy back.
pub struct ExactMeasure {
    model: Rbm,
    data: Arc<Dataset>,
    walk: Walk,
    log_z: Option<f64>,
    /// The update the model was taken at.
    iter: u64,
}

impl ExactMeasure {
    fn with(
        model: &Rbm,
        data: &Arc<Dataset>,
        walk: Walk,
        iter: u64,
    ) -> Result<ExactMeasure, Error> {
        exact::check_fit(model, data)?;
        if data.rows() == 0 {
            return Err(Error::Invalid(format!(
                "data set '{}' has no rows to measure",
                data.name
            )));
        }
        // Grey levels are measured on their 0.5 threshold, as the CLI's studies measure them.
        let data = if data.is_binary() {
            Arc::clone(data)
        } else {
            Arc::new(data.thresholded())
        };
        Ok(ExactMeasure {
            model: model.clone(),
            data,
            walk,
            log_z: None,
            iter,
        })
    }

    /// The measure of `data` under `model` (taken at update `iter`), enumerated on the CPU;
    /// refused beyond 2^30 states as [`exact::log_z`] refuses.
    pub fn cpu(model: &Rbm, data: &Arc<Dataset>, iter: u64) -> Result<ExactMeasure, Error> {
        let blocks = exact::block_count(model)?;
        let walk = Walk::Cpu {
            parts: Vec::with_capacity(blocks),
            blocks,
        };
        ExactMeasure::with(model, data, walk, iter)
    }

    /// The measure of `data` under `model` (taken at update `iter`), enumerated on `dev`.
    #[cfg(feature = "gpu")]
    pub fn gpu(
        dev: &Arc<rbm_gpu::Device>,
        model: &Rbm,
        data: &Arc<Dataset>,
        iter: u64,
    ) -> Result<ExactMeasure, Error> {
        let walk = Walk::Gpu(Box::new(crate::gpu::GpuExact::new(dev, model)?));
        ExactMeasure::with(model, data, walk, iter)
    }

    /// Runs up to `max_steps` more steps (at least one): blocks on the CPU, dispatches on the
    /// GPU (whose copy back is the last step, done once the numbers are on the host). A GPU
    /// that fails (device lost) is an error.
    pub fn advance(&mut self, max_steps: usize) -> Result<AisProgress, Error> {
        let max_steps = max_steps.max(1);
        let (done, total) = match &mut self.walk {
            Walk::Cpu { parts, blocks } => {
                let from = parts.len();
                let to = (from + max_steps).min(*blocks);
                parts.extend(exact::log_z_blocks(&self.model, from, to)?);
                if self.log_z.is_none() && parts.len() == *blocks {
                    self.log_z = Some(exact::merge_blocks(&self.model, parts)?);
                }
                (parts.len(), *blocks)
            }
            #[cfg(feature = "gpu")]
            Walk::Gpu(g) => {
                if self.log_z.is_none() {
                    let (z, done, total) = g.advance(max_steps)?;
                    self.log_z = z;
                    (done, total)
                } else {
                    let total = g.steps();
                    (total, total)
                }
            }
        };
        Ok(AisProgress {
            done: self.log_z.is_some(),
            done_steps: done as f64,
            total_steps: total as f64,
        })
    }

    /// The exact log Z and ATLL, once [`ExactMeasure::advance`] said done.
    pub fn result(&self) -> Result<ExactResult, Error> {
        let log_z = self
            .log_z
            .ok_or_else(|| Error::Invalid("the exact enumeration has not finished".into()))?;
        Ok(ExactResult {
            atll: exact::average_log_likelihood(&self.model, &self.data, log_z)?,
            log_z,
        })
    }

    /// The update the model was taken at.
    pub fn iter(&self) -> u64 {
        self.iter
    }
}

/// A checkpoint's exact measure for the page's trial worker ([`crate::WasmLane::exact_measure`]),
/// advanced a few steps per call so the worker answers stop and pause between two.
#[wasm_bindgen]
pub struct WasmExact {
    pub(crate) run: ExactMeasure,
}

#[wasm_bindgen]
impl WasmExact {
    /// Runs up to `max_steps` more steps (at least one): `{done, doneSteps, totalSteps}`.
    /// Throws `{kind, key, message}` (a GPU that failed).
    pub fn step(&mut self, max_steps: u32) -> Result<JsValue, JsValue> {
        let p = self.run.advance(max_steps as usize).map_err(js_err)?;
        to_js(&p)
    }

    /// `{atll, logZ}` once `step` said `done`; throws before.
    pub fn result(&self) -> Result<JsValue, JsValue> {
        to_js(&self.run.result().map_err(js_err)?)
    }
}

//! A GPU study's checkpoint AIS in batches (issue 30): the page's equivalent of
//! `rbm_gpu::measure::GpuLogZ`, which batches `rbm reproduce --device gpu`'s trials' requests.
//!
//! A lone AIS run of 100 particles leaves a large GPU idle: its time is its dispatches' (three per
//! β step), not their arithmetic. So a GPU study's trial workers do not anneal their checkpoints'
//! models themselves: each sends its model ([`StudyAis`]'s parameters, the base rates and the
//! checkpoint's AIS seed) to the study's one AIS worker, which anneals every waiting model of the
//! same shape as one [`Anneal::batch`] ([`WasmAisBatch`], a bounded number of β steps per call,
//! the log-weights copied back without waiting, as [`super::GpuAis`] does for a lane) and answers
//! each trial with its model's log-weights; the trial combines them with its own plan
//! ([`rbm_core::eval::ais::Plan::finish`], f64 on the CPU) into its test log-likelihood.
//!
//! **No result depends on timing.** A model's log-weights in a batch are, bit for bit, those of
//! a batch of that model alone (`Anneal::batch`, tested in crates/gpu/tests/ais.rs), and a
//! trial that anneals its own checkpoint (no AIS worker, or a failed one) runs exactly that: a
//! batch of one on its own GPU ([`StudyAis`]). Which models share a batch changes from run to
//! run; the study's numbers do not (the e2e test gpu.test.mjs compares a study with and without
//! the AIS worker bit for bit).
//!
//! The trial's own AIS of a *live* GPU lane (`WasmLane::ais`, the "Estimate" button) runs
//! `Anneal::new`, which splits a large model's products over workgroups and so sums in another
//! order: its numbers differ from a batch's by f32 rounding (far below AIS's Monte-Carlo error).

use super::{adapter_name, DEVICE};
use crate::lanes::AnyLane;
use crate::{dataset, js_err, to_js, AisEstimate, AisProgress, WasmLane};
use rbm_core::error::{Error, Result};
use rbm_core::eval::ais::{AisConfig, Plan, Schedule};
use rbm_core::model::{Params, Rbm};
use rbm_gpu::ais::Anneal;
use rbm_gpu::device::Fence;
use rbm_gpu::{Device, Snapshot};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// Most models in one batch: the command line's (`rbm_gpu::measure::MAX_BATCH`, native only);
/// their buffers are also bounded by what the GPU binds ([`room`]).
pub const MAX_BATCH: usize = 64;

/// How many m×n models of `particles` chains one batch on `dev` holds: at most [`MAX_BATCH`],
/// and no buffer over the device's `max_storage_buffer_binding_size` (the bound `Anneal::batch`
/// checks), at least 1 (a model too large even alone is refused by `Anneal::batch`).
pub fn room(dev: &Device, m: usize, n: usize, particles: usize) -> usize {
    let limit = dev.wgpu().0.limits().max_storage_buffer_binding_size as usize / 4;
    let per = (particles * m.max(n) + m + 4).max(m * n).max(1);
    (limit / per).clamp(1, MAX_BATCH)
}

/// A batch of AIS runs ([`Anneal::batch`]) stepped without ever waiting: a bounded number of β
/// steps recorded per call, then the log-weights copied back and polled for. The same
/// dispatches in the same order as `rbm_gpu::ais::plans_log_weights`, so the same bits. A tiny
/// copy after each call's steps (a fence, as `super::GpuExact` has) says when the GPU has done
/// them, and the next steps are recorded only then: the GPU's queue stays one call long, so the
/// progress is the GPU's and dropping the batch (a study's Stop) ends its work within a call.
pub struct BatchAnneal {
    anneal: Anneal,
    copy: Option<Snapshot>,
    fence: Fence,
}

impl BatchAnneal {
    /// The runs of `plans` as one batch on `dev` (refused as `Anneal::batch` refuses).
    pub fn new(dev: &Arc<Device>, plans: &[Plan]) -> Result<BatchAnneal> {
        Ok(BatchAnneal {
            anneal: Anneal::batch(dev, plans)?,
            copy: None,
            fence: Fence::new(dev),
        })
    }

    /// Steps in all: the β steps and the copy back.
    pub fn steps(&self) -> usize {
        self.anneal.progress().1 + 1
    }

    /// Once the GPU has done the steps recorded before (else nothing), records up to
    /// `max_steps` more β steps (at least one while any are left); once all are, asks for the
    /// log-weights. Returns each model's log-weights (in the plans' order) once they are on the
    /// host, and the steps recorded. A lost device, or a copy the GPU could not hand back, is an
    /// error.
    pub fn advance(&mut self, max_steps: usize) -> Result<(Option<Vec<Vec<f64>>>, usize)> {
        let dev = self.anneal.device().clone();
        if let Some(why) = dev.failure() {
            return Err(Error::Invalid(why));
        }
        if self.fence.passed()? && self.copy.is_none() {
            if self.anneal.advance(max_steps.max(1)) {
                self.copy = Some(self.anneal.finish());
            } else {
                self.fence.mark(&dev);
            }
        }
        match self.copy.as_ref().and_then(Snapshot::take) {
            Some(pairs) => {
                let lw = Anneal::log_weights(&pairs?);
                Ok((Some(self.anneal.per_model(&lw)), self.steps()))
            }
            None => Ok((None, self.anneal.progress().0)),
        }
    }

    /// The device it runs on.
    pub fn device(&self) -> &Arc<Device> {
        self.anneal.device()
    }
}

/// The AIS plan of one checkpoint model as the study's AIS worker builds it from a trial's
/// request: `Plan::ais_log_z` with the trial's base rates, which anneals exactly as the trial's
/// `Plan::ais` of the test set (the same model, base visible biases and seed).
pub fn request_plan(
    m: usize,
    n: usize,
    params: Params<f32>,
    base: &[f32],
    particles: usize,
    betas: usize,
    seed: u64,
) -> Result<Plan> {
    let model = Rbm::from_params(m, n, params)?;
    let cfg = AisConfig {
        particles,
        betas,
        seed,
        schedule: Schedule::Linear,
    };
    crate::check_ais_in_page(&model, &cfg)?;
    Plan::ais_log_z(&model, Some(base), cfg)
}

/// The study's AIS worker's batch (`newAisBatch`, then `add` every model, then `step` until
/// done): every model's log-weights from one [`Anneal::batch`] on the worker's GPU (opened by
/// `gpuAdapter` first).
#[wasm_bindgen]
pub struct WasmAisBatch {
    particles: usize,
    betas: usize,
    plans: Vec<Plan>,
    run: Option<BatchAnneal>,
    dev: Arc<Device>,
    results: Option<Vec<Vec<f64>>>,
}

/// An empty batch of AIS runs of `particles` chains and `betas` inverse temperatures (linear
/// schedule) on the worker's GPU. Throws `{kind, key, message}` where no GPU is open.
#[wasm_bindgen(js_name = newAisBatch)]
pub fn new_ais_batch(particles: u32, betas: u32) -> std::result::Result<WasmAisBatch, JsValue> {
    let dev = DEVICE.with(|d| d.borrow().clone()).ok_or_else(|| {
        js_err(Error::Invalid(
            "the GPU is not open (gpuAdapter first)".into(),
        ))
    })?;
    Ok(WasmAisBatch {
        particles: particles as usize,
        betas: betas as usize,
        plans: Vec::new(),
        run: None,
        dev,
        results: None,
    })
}

/// Models of `m`×`n` with `particles` chains that one batch on the worker's GPU holds ([`room`];
/// 1 where no GPU is open).
#[wasm_bindgen(js_name = aisBatchRoom)]
pub fn ais_batch_room(m: u32, n: u32, particles: u32) -> u32 {
    DEVICE.with(|d| {
        d.borrow().as_ref().map_or(1, |dev| {
            room(dev, m as usize, n as usize, particles as usize) as u32
        })
    })
}

#[wasm_bindgen]
impl WasmAisBatch {
    /// Adds the model of one request (W row-major m×n, b, c, the base model's visible biases,
    /// the checkpoint's AIS seed) before the first `step`. Throws `{kind, key, message}` on
    /// sizes that do not fit, non-finite numbers, or a batch already under way.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        m: u32,
        n: u32,
        w: Vec<f32>,
        b: Vec<f32>,
        c: Vec<f32>,
        base: Vec<f32>,
        seed: f64,
    ) -> std::result::Result<(), JsValue> {
        if self.run.is_some() {
            return Err(js_err(Error::Invalid(
                "the AIS batch is under way: no model can join it".into(),
            )));
        }
        let plan = request_plan(
            m as usize,
            n as usize,
            Params { w, b, c },
            &base,
            self.particles,
            self.betas,
            seed as u64,
        )
        .map_err(js_err)?;
        self.plans.push(plan);
        Ok(())
    }

    /// Models in the batch.
    #[wasm_bindgen(getter)]
    pub fn models(&self) -> u32 {
        self.plans.len() as u32
    }

    /// Records up to `max_steps` more β steps of every model at once (the first call starts
    /// the batch): `{done, doneSteps, totalSteps}` (the copy back counts as the last step).
    /// Throws `{kind, key, message}`: a lost device, a batch the GPU does not bind.
    pub fn step(&mut self, max_steps: u32) -> std::result::Result<JsValue, JsValue> {
        if self.run.is_none() && self.results.is_none() {
            self.run = Some(BatchAnneal::new(&self.dev, &self.plans).map_err(js_err)?);
        }
        let total = self.betas;
        if let Some(run) = &mut self.run {
            let (lw, done) = run.advance(max_steps as usize).map_err(js_err)?;
            if let Some(lw) = lw {
                self.results = Some(lw);
                self.run = None;
            } else {
                return to_js(&AisProgress {
                    done: false,
                    done_steps: done as f64,
                    total_steps: total as f64,
                });
            }
        }
        to_js(&AisProgress {
            done: true,
            done_steps: total as f64,
            total_steps: total as f64,
        })
    }

    /// Model `i`'s log-weights (one per chain), once `step` said done.
    #[wasm_bindgen(js_name = logWeights)]
    pub fn log_weights(&self, i: u32) -> std::result::Result<Vec<f64>, JsValue> {
        self.results
            .as_ref()
            .and_then(|r| r.get(i as usize).cloned())
            .ok_or_else(|| js_err(Error::Invalid("no such finished model in the batch".into())))
    }

    /// Test hook: destroys the worker's GPU (as a lost device would).
    #[wasm_bindgen(js_name = loseGpuForTest)]
    pub fn lose_gpu_for_test(&self) {
        self.dev.lose_for_test();
    }
}

/// A GPU trial's checkpoint AIS (`WasmLane::studyAis`): the plan of the trial's test set under
/// the checkpoint's model, whose log-weights come either from the study's AIS worker
/// ([`StudyAis::accept`]) or — stepped here — from a batch of this model alone on the trial's own
/// GPU: the same bits either way.
#[wasm_bindgen]
pub struct StudyAis {
    plan: Plan,
    iter: u64,
    name: String,
    adapter: String,
    dev: Arc<Device>,
    run: Option<BatchAnneal>,
    parts: Option<Vec<Vec<f64>>>,
}

#[wasm_bindgen]
impl WasmLane {
    /// A GPU study's AIS of `dataset` under the model of the lane's latest record (forward AIS,
    /// `particles` chains, `betas` linear β, base model at the data's base rates), for the
    /// study's AIS worker or to step here ([`StudyAis`]). Throws `{kind, key, message}`: a lane
    /// not on the GPU, what `ais` refuses.
    #[wasm_bindgen(js_name = studyAis)]
    pub fn study_ais(
        &self,
        dataset_name: &str,
        particles: u32,
        betas: u32,
        seed: f64,
    ) -> std::result::Result<StudyAis, JsValue> {
        let AnyLane::Gpu(g) = &self.lane else {
            return Err(js_err(Error::Invalid(
                "a study's batched AIS is for a GPU lane (a CPU lane runs its own AIS)".into(),
            )));
        };
        let data = dataset(dataset_name).map_err(js_err)?;
        let cfg = AisConfig {
            particles: particles as usize,
            betas: betas as usize,
            seed: seed as u64,
            schedule: Schedule::Linear,
        };
        let model = self.lane.model();
        crate::check_ais_in_page(model, &cfg).map_err(js_err)?;
        let plan = Plan::ais(model, &data, None, cfg).map_err(js_err)?;
        Ok(StudyAis {
            plan,
            iter: self.lane.model_iter(),
            name: data.name.clone(),
            adapter: g.adapter.clone(),
            dev: g.lane.lane().engine_model().device().clone(),
            run: None,
            parts: None,
        })
    }
}

impl StudyAis {
    /// The estimate once the log-weights are in.
    fn estimate(&self) -> Result<AisEstimate> {
        let parts = self
            .parts
            .as_ref()
            .ok_or_else(|| Error::Invalid("the AIS run has not finished".into()))?;
        Ok(AisEstimate {
            result: self.plan.finish(parts)?,
            iter: self.iter,
            dataset: self.name.clone(),
            gpu: Some(self.adapter.clone()),
        })
    }
}

#[wasm_bindgen]
impl StudyAis {
    /// Visible units of the model.
    #[wasm_bindgen(getter)]
    pub fn m(&self) -> u32 {
        self.plan.model().m() as u32
    }

    /// Hidden units of the model.
    #[wasm_bindgen(getter)]
    pub fn n(&self) -> u32 {
        self.plan.model().n() as u32
    }

    /// The model's weights, m×n row-major (for the study's AIS worker).
    #[wasm_bindgen(js_name = weights)]
    pub fn weights(&self) -> Vec<f32> {
        self.plan.model().w().to_vec()
    }

    /// The model's visible biases b.
    #[wasm_bindgen(js_name = visibleBiases)]
    pub fn visible_biases(&self) -> Vec<f32> {
        self.plan.model().b.clone()
    }

    /// The model's hidden biases c.
    #[wasm_bindgen(js_name = hiddenBiases)]
    pub fn hidden_biases(&self) -> Vec<f32> {
        self.plan.model().c.clone()
    }

    /// The base model's visible biases (the test set's base rates).
    #[wasm_bindgen(js_name = baseBiases)]
    pub fn base_biases(&self) -> Vec<f32> {
        self.plan.base_b().to_vec()
    }

    /// The log-weights of this model from the study's AIS worker (one per chain, in chain
    /// order): the run is then done. Throws on a count other than the plan's particles.
    pub fn accept(&mut self, log_weights: Vec<f64>) -> std::result::Result<(), JsValue> {
        let p = self.plan.config().particles;
        if log_weights.len() != p || log_weights.iter().any(|x| x.is_nan()) {
            return Err(js_err(Error::Invalid(format!(
                "the AIS worker sent {} log-weights (not numbers: {}) for {p} chains",
                log_weights.len(),
                log_weights.iter().filter(|x| x.is_nan()).count()
            ))));
        }
        self.run = None;
        self.parts = Some(Anneal::blocks(&log_weights));
        Ok(())
    }

    /// Runs up to `max_steps` more β steps here, as a batch of this model alone on the lane's
    /// GPU (without waiting): `{done, doneSteps, totalSteps}`. Throws `{kind, key, message}`.
    pub fn step(&mut self, max_steps: u32) -> std::result::Result<JsValue, JsValue> {
        let total = self.plan.config().betas;
        if self.parts.is_none() {
            if self.run.is_none() {
                let plan = std::slice::from_ref(&self.plan);
                self.run = Some(BatchAnneal::new(&self.dev, plan).map_err(js_err)?);
            }
            let run = self.run.as_mut().expect("made above");
            let (lw, done) = run.advance(max_steps as usize).map_err(js_err)?;
            match lw {
                Some(mut lw) => {
                    self.parts = Some(Anneal::blocks(&lw.swap_remove(0)));
                    self.run = None;
                }
                None => {
                    return to_js(&AisProgress {
                        done: false,
                        done_steps: done as f64,
                        total_steps: total as f64,
                    })
                }
            }
        }
        to_js(&AisProgress {
            done: true,
            done_steps: total as f64,
            total_steps: total as f64,
        })
    }

    /// The estimate ([`AisEstimate`], labelled with the lane's adapter) once done; throws before.
    pub fn result(&self) -> std::result::Result<JsValue, JsValue> {
        to_js(&self.estimate().map_err(js_err)?)
    }

    /// The adapter's name of the lane's GPU.
    #[wasm_bindgen(getter)]
    pub fn adapter(&self) -> String {
        adapter_name(&self.dev)
    }
}

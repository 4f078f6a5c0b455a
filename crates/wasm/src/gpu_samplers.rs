//! The sampler view's samplers on the user's GPU (issue 30; the rates-FPCD paper, Breuleux,
//! Bengio & Vincent 2011, docs/algorithms.md §5): Gibbs, rates-FPCD, rates-herding and SP as
//! the core's one definition on the GPU engine (`rbm_core::sampler::engine::EngineSampler`),
//! in the sampler view's worker. Built only with the `gpu` feature (`www/pkg-gpu`), which the
//! worker loads only when the view asks for the GPU.
//!
//! The worker cannot wait for its GPU, so each sampler is an `rbm_gpu::sampler_stream::
//! GpuSamplerStream`: a block of samples is recorded in one call and comes back, copied without
//! waiting, a call or more later; the samples' 1-NN classes and ISL are then counted on the
//! host, as [`crate::WasmSamplers`] counts them, into the same [`SamplerSlice`]. The chains
//! start from the CPU's rates and starts for the seed (`rbm_core::sampler::prepare`); their
//! draws are the GPU engine's own stream (Philox), so the samples are not the CPU's.

use crate::gpu::{adapter_name, opened};
use crate::{internal, js_err, next_isl_at, sampler_config, to_js, SamplerSlice};
use rbm_core::data::Binarize;
use rbm_core::error::Error;
use rbm_core::eval::isl::Isl;
use rbm_core::eval::mixing::{MixingCounter, Nearest};
use rbm_core::sampler::engine::EngineSampler;
use rbm_gpu::sampler_stream::GpuSamplerStream;
use rbm_gpu::Gpu;
use wasm_bindgen::prelude::*;

/// Blocks a sampler keeps on their way back at once: the next is computed while the last is
/// counted on the host.
const IN_FLIGHT: usize = 2;

struct GpuRow {
    stream: GpuSamplerStream,
    isl: Option<Isl>,
    mixing: MixingCounter,
    next_isl: u64,
}

/// The samplers of [`crate::WasmSamplers`] on the worker's GPU, opened before by
/// `gpuAdapter`: the same configurations, model and data sets, the same slices, each a block
/// of samples that the GPU hands back without the worker waiting.
#[wasm_bindgen]
pub struct WasmGpuSamplers {
    rows: Vec<GpuRow>,
    nearest: Option<Nearest>,
    m: usize,
    adapter: String,
}

#[wasm_bindgen]
impl WasmGpuSamplers {
    /// As `new WasmSamplers(model, configs, train, test, valid, seed)`, on the GPU. Throws
    /// `{kind, key, message}`: no GPU open (`gpuAdapter` first), or what `WasmSamplers` refuses.
    #[wasm_bindgen(constructor)]
    pub fn new(
        model: &[u8],
        configs: JsValue,
        train: &str,
        test: &str,
        valid: &str,
        seed: f64,
    ) -> Result<WasmGpuSamplers, JsValue> {
        let dev = opened().ok_or_else(|| {
            js_err(Error::Invalid(
                "the GPU is not open (gpuAdapter first)".into(),
            ))
        })?;
        let crate::SamplerInputs {
            model,
            configs,
            train,
            test,
            valid,
            seed,
        } = crate::SamplerInputs::read(model, configs, train, test, valid, seed)?;
        let mut rows = Vec::new();
        for c in configs {
            let cfg = sampler_config(&c).map_err(js_err)?;
            let (rates, start) =
                rbm_core::sampler::prepare(&model, &train, Binarize::Sample, &cfg, seed)
                    .map_err(js_err)?;
            let sampler =
                EngineSampler::<Gpu>::new(&dev, &model, &cfg, rates.as_ref(), &start, seed, 0)
                    .map_err(js_err)?;
            let isl = match &test {
                Some(t) => Some(
                    Isl::new(&t.values, valid.as_ref().map(|v| &v.values[..]), model.m())
                        .map_err(js_err)?,
                ),
                None => None,
            };
            rows.push(GpuRow {
                stream: GpuSamplerStream::new(&dev, sampler, model.m()),
                isl,
                mixing: Default::default(),
                next_isl: 1,
            });
        }
        let nearest = match train.labels {
            Some(_) => Some(Nearest::new(&train.thresholded()).map_err(js_err)?),
            None => None,
        };
        if let Some(why) = dev.failure() {
            return Err(js_err(Error::Invalid(why)));
        }
        Ok(WasmGpuSamplers {
            rows,
            nearest,
            m: model.m(),
            adapter: adapter_name(&dev),
        })
    }

    /// The adapter's name, for the view's label.
    #[wasm_bindgen(getter)]
    pub fn adapter(&self) -> String {
        self.adapter.clone()
    }

    /// Sampler `row`'s next block, if the GPU has handed it back: its [`SamplerSlice`] with
    /// `grey` and `binary` as `WasmSamplers::step` gives them (null: not in yet); then, while
    /// fewer than `limit` samples are recorded, `samples` more recorded (never waiting). A lost
    /// device throws `{kind, key, message}` saying why.
    pub fn step(&mut self, row: usize, samples: u32, limit: f64) -> Result<JsValue, JsValue> {
        let m = self.m;
        let r = self
            .rows
            .get_mut(row)
            .ok_or_else(|| internal(format!("no sampler {row}")))?;
        let block = r.stream.poll().transpose().map_err(js_err)?;
        if r.stream.in_flight() < IN_FLIGHT && (r.stream.counts().0 as f64) < limit {
            r.stream.submit(samples.max(1) as usize);
        }
        let Some(block) = block else {
            return Ok(JsValue::NULL);
        };
        let mut classes = Vec::new();
        let mut isl = Vec::new();
        for x in block.samples.chunks_exact(m) {
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
        let last = block.samples.len().saturating_sub(m);
        let out = to_js(&SamplerSlice {
            emitted: r.stream.counts().1,
            classes,
            mixing: r.mixing.summary(),
            isl,
            fast_norm: block.fast_norm,
        })?;
        js_sys::Reflect::set(
            &out,
            &"grey".into(),
            &js_sys::Float32Array::from(&block.grey[..m]),
        )?;
        js_sys::Reflect::set(
            &out,
            &"binary".into(),
            &js_sys::Float32Array::from(&block.samples[last..]),
        )?;
        Ok(out)
    }

    /// Destroys the GPU, as a driver reset would (for the test of the way back to the CPU).
    #[wasm_bindgen(js_name = loseGpuForTest)]
    pub fn lose_gpu_for_test(&self) {
        if let Some(r) = self.rows.first() {
            r.stream.device().lose_for_test();
        }
    }
}

//! The GPU engine of RBM Playground (issue 30): the dense work of the training algorithms as
//! WGSL compute shaders through wgpu — Vulkan, Metal or DX12 natively, WebGPU in a browser.
//!
//! [`Gpu`] implements rbm_core's `Engine` trait, so the algorithm files of `rbm_core::train`
//! run on it unchanged; [`Device`] is one GPU with the kernels compiled for it.
//!
//! - `device.rs`: the wgpu device, the upload ring and the one-submission-per-update encoder;
//! - `product.rs`: every matrix product, its kernel chosen by size, split when small;
//! - `engine.rs`: the engine's objects and operations (CG's and CS-DCP's centered form too);
//! - `lane.rs`: a training lane that never waits for its GPU (a browser's worker);
//! - `sampler.rs`: the core's samplers (Gibbs, rates-FPCD, rates-herding, SP) on the engine;
//!   `sampler_stream.rs`: their samples copied back without waiting (a browser's worker);
//! - `study.rs`: a study's trials of small models as one job, one workgroup per trial running
//!   its lane's program of engine operations (rbm_core's tape engine), its models copied back
//!   without waiting where a browser's worker drives it;
//! - `exact.rs`, `ais.rs`: the exact log Z and AIS (`measure.rs`: both for a study's
//!   checkpoints); `speed.rs`: the workloads of `rbm speed`;
//! - `shaders/`: `common.wgsl` (dispatch parameters, Philox4x32-10, a product's epilogue),
//!   `gemm.wgsl` (the tiled product), `elementwise.wgsl` (step, sums, restarts, split sums),
//!   `centered.wgsl`, `exact.wgsl`, `ais.wgsl`, `sampler.wgsl`, `study.wgsl`.
//!
//! docs/gpu.md says what runs here, with what numbers, and how fast.

pub mod ais;
pub mod device;
pub mod engine;
pub mod exact;
pub mod isl;
pub mod lane;
#[cfg(not(target_arch = "wasm32"))]
pub mod measure;
mod product;
#[cfg(not(target_arch = "wasm32"))]
pub mod profile;
pub mod sampler;
pub mod sampler_stream;
#[cfg(not(target_arch = "wasm32"))]
pub mod speed;
pub mod study;

#[cfg(not(target_arch = "wasm32"))]
pub use device::adapters;
pub use device::{AdapterInfo, Device, Snapshot, Tuning};
pub use engine::{
    Gpu, GpuCentered, GpuChains, GpuModel, GpuOptimizer, GpuParams, GpuRng, GpuStats,
};

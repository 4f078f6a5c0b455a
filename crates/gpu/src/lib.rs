//! The GPU engine of RBM Playground (issue 30): the dense work of the training algorithms as
//! WGSL compute shaders through wgpu — Vulkan, Metal or DX12 natively, WebGPU in a browser.
//!
//! [`Gpu`] implements rbm_core's `Engine` trait, so the algorithm files of `rbm_core::train`
//! run on it unchanged; [`Device`] is one GPU with the kernels compiled for it.
//!
//! - `device.rs`: the wgpu device, the upload ring and the one-submission-per-update encoder;
//! - `engine.rs`: the engine's objects and operations;
//! - `shaders/`: `common.wgsl` (dispatch parameters, Philox4x32-10), `gemm.wgsl` (the tiled
//!   product with its sigmoid / Bernoulli epilogue), `elementwise.wgsl` (step, sums, restarts).

pub mod ais;
pub mod device;
pub mod engine;
pub mod exact;
mod product;
pub mod speed;

pub use device::{adapters, AdapterInfo, Device};
pub use engine::{Gpu, GpuChains, GpuModel, GpuOptimizer, GpuParams, GpuRng, GpuStats};

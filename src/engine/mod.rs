//! Engines: how fast the dense work of training runs, apart from what it computes.
//!
//! - [`cpu`]: the CPU engine — pattern tables and memos for small models, SIMD kernels, and the
//!   plain reference path they are tested against.
pub mod cpu;

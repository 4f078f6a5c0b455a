//! The CPU engine: Gibbs chains ([`chains`]), the per-pattern caches of small models
//! ([`patterns`]) and the row kernels ([`kernels`]), whose per-target instructions (SSE2, AVX,
//! AVX2, SIMD128 and the plain reference path) are all in `simd`.
pub mod chains;
pub mod kernels;
pub mod patterns;
pub(crate) mod simd;

pub use chains::Chains;

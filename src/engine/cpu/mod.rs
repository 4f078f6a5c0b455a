//! The CPU engine: Gibbs chains ([`chains`]), the per-pattern caches of small models
//! ([`patterns`]) and the row kernels ([`kernels`]).
pub mod chains;
pub mod kernels;
pub mod patterns;

pub use chains::Chains;

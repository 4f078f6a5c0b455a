//! Samplers built on the RBM's block-Gibbs conditionals.
//!
//! - [`coupling`]: the RBM-specialised maximal coupling of two Gibbs chains (Qiu, Zhang & Wang
//!   2020, Algorithm 3), the engine of unbiased contrastive divergence (docs/algorithms.md §4).

pub mod coupling;

pub use coupling::{Coupling, StepInfo};

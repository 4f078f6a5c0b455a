//! RBM Playground: exact, seeded training and sampling of binary Restricted Boltzmann Machines.
//!
//! - [`model`]: the RBM of ALGORITHMS.md §1 (conditionals, free energy, statistics, file format);
//! - [`data`]: the small data sets of §2 with their bounds;
//! - [`eval`]: exact log Z, log-likelihood, model distribution and gradient (§2);
//! - [`train`]: the training algorithms of §4 behind one trait, and seeded lanes;
//! - [`experiments`]: the papers' experiments as presets, and their across-trial statistics;
//! - [`sampler`]: samplers on the Gibbs conditionals (UCD's chain coupling);
//! - [`rng`], [`math`]: platform-independent random streams and numerics;
//! - `cli` (native, feature `cli`): the `rbm` command line;
//! - `wasm` (wasm32 only): the JavaScript boundary used by the page's Web Worker.

pub mod bench;
pub mod data;
pub mod error;
pub mod eval;
pub mod experiments;
pub mod kernels;
pub mod math;
pub mod model;
pub mod rng;
pub mod sampler;
pub mod train;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

#[cfg(all(feature = "cli", not(target_arch = "wasm32")))]
pub mod cli;

pub use error::{Error, Result};

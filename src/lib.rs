//! The core of RBM Playground: exact, seeded training and sampling of binary Restricted
//! Boltzmann Machines. It knows no shell — no wasm-bindgen, no command-line parser — so the page's
//! WebAssembly bindings (`crates/wasm`) and the `rbm` command line (`crates/cli`) only translate.
//!
//! - [`model`]: the RBM of docs/algorithms.md §1 (parameters, conditionals, free energy;
//!   packed layouts, statistics and file formats in its own files);
//! - [`data`]: the small data sets of §2 with their bounds;
//! - [`eval`]: exact log Z, log-likelihood, model distribution and gradient (§2);
//! - [`train`]: the training algorithms of §4, each one file over any engine, and seeded lanes;
//! - [`schema`]: the declarations that drive both shells (options, statistics, budgets);
//! - [`cost`]: the cost model — memory and time of lanes and evaluations against a shell's
//!   budget, and the constructors of lanes within one (it reads `train`, `schema` and the
//!   engine's sizes; none of them reads it);
//! - [`catalog`]: everything a shell lists (algorithms, options, data sets, presets);
//! - [`experiments`]: the papers' experiments as presets, their trials and across-trial
//!   statistics;
//! - [`diagnostics`]: gradient estimates against the exact gradient;
//! - [`sampler`]: samplers on the Gibbs conditionals (UCD's chain coupling);
//! - [`engine`]: how fast the dense work runs — the `Engine` trait the algorithms are written
//!   against, the CPU engine (chains, per-pattern caches, SIMD kernels, the sizes of what it
//!   holds) and the reference engine, the formulas as plain loops that the CPU engine equals;
//! - [`rng`], [`math`]: platform-independent random streams and numerics;
//! - `bench` (feature `bench`): benchmark workloads, outside every shipped build.
#![deny(missing_docs)]
// Every unsafe operation sits in an `unsafe` block (also inside `unsafe fn`), and every such
// block says why it is sound in a `// SAFETY:` comment (the per-target code: engine::cpu::simd).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "bench")]
pub mod bench;
pub mod catalog;
pub mod cost;
pub mod data;
pub mod diagnostics;
pub mod engine;
pub mod error;
pub mod eval;
pub mod experiments;
pub mod math;
pub mod model;
pub mod rng;
pub mod sampler;
pub mod schema;
pub mod train;

pub use error::{Error, Result};

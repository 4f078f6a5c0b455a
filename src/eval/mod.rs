//! Evaluation of models: exact enumeration for small models (docs/algorithms.md §2) and the
//! model distribution over a data set's patterns.

pub mod ais;
pub mod distribution;
pub mod exact;

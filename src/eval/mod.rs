//! Evaluation of models: exact enumeration for small models (docs/algorithms.md §2) and the
//! model distribution over a data set's patterns; the rates-FPCD paper's measures of samplers
//! (ISL, and the classes a chain visits).

pub mod ais;
pub mod bar;
pub mod chain;
pub mod distribution;
pub mod estimators;
pub mod exact;
pub mod isl;
pub mod mixing;

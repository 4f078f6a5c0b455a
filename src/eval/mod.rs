//! Evaluation of models: exact enumeration for small models (ALGORITHMS.md §2).

pub mod exact;
pub mod grad;

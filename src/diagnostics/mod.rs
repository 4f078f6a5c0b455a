//! Diagnostics of the training algorithms and of models against exact quantities: the bias and
//! variance of a gradient estimate (what `rbm grad` prints), and a small model's Gibbs-kernel
//! spectrum, weight spectrum and modes (what `rbm mixing` prints). It sits above both
//! [`crate::train`] (it runs lanes) and [`crate::eval`] (the exact gradient), so neither depends
//! on the other's users.

pub mod grad;
pub mod linalg;
pub mod mixing_bound;
pub mod spectrum;

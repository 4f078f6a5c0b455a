//! Diagnostics of the training algorithms against exact quantities: the bias and variance of a
//! gradient estimate (what `rbm grad` prints). It sits above both [`crate::train`] (it runs
//! lanes) and [`crate::eval`] (the exact gradient), so neither depends on the other's users.

pub mod grad;

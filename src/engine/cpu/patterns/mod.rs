//! Per-pattern caches (docs/algorithms.md §1): a conditional of a binary RBM depends on the
//! conditioning row only through its 0/1 pattern, so small models compute each pattern's
//! numbers once and reuse them while the parameters stay the same.
//!
//! - [`memo`]: the memo any caller of the model's conditionals goes through;
//! - [`sweeps`]: the tables that Gibbs chains of small models sweep on;
//! - [`met`]: the patterns UCD's coupled chains meet in an update, in the order first met.
pub mod memo;
pub(crate) mod met;
pub(crate) mod sweeps;

//! Declarations both shells are driven by: the options of a lane ([`options`]) and the
//! statistics algorithms report ([`stats`]).

pub mod options;
pub mod stats;

pub use options::{Kind, OptionSpec, Scope};
pub use stats::{Aggregate, StatSpec};

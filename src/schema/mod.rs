//! Declarations both shells are driven by: the options of a lane ([`options`]) and the
//! statistics algorithms report ([`stats`]), and the options of the page's exact views ([`views`]).

pub mod options;
pub mod stats;
pub mod views;

pub use options::{Kind, OptionSpec, Scope};
pub use stats::{Aggregate, StatSpec};

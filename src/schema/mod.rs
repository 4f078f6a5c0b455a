//! Declarations both shells are driven by: the options of a lane ([`options`]) and the
//! statistics algorithms report ([`stats`]), the options of the page's exact views ([`views`]),
//! and the budgets each shell holds lanes and evaluations to ([`budget`]).

pub mod budget;
pub mod options;
pub mod stats;
pub mod views;

pub use budget::{Budget, SlowExact, Speed};
pub use options::{Kind, OptionSpec, Scope};
pub use stats::{Aggregate, StatSpec};

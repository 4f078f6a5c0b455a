//! The options of the page's exact views of a lane's model ([`Scope::View`]): not part of a
//! lane's training, one value for the page, declared here so the page's inputs, URL state and
//! hide flags come from the schema like every other option's. The computations they drive are
//! the core's: [`crate::eval::chain`] (`rbm chain`) and [`crate::diagnostics::grad`]
//! (`rbm grad`).

use super::options::{Default as D, Kind, OptionSpec, Scope};

/// Most repetitions of one gradient estimate in the page.
pub const MAX_GRAD_REPS: u64 = 10_000;

/// Where the exact chain starts (docs/algorithms.md §7).
pub const CHAIN_START: OptionSpec = OptionSpec {
    key: "chain_start",
    label: "chain starts at",
    help: "exact chain view: the data (CD's start) or uniformly random patterns",
    kind: Kind::Choice {
        choices: &["data", "uniform"],
    },
    default: D::Name("data"),
    advanced: false,
    scope: Scope::View,
    live: false,
};

/// Sweeps of the exact chain.
pub const CHAIN_K: OptionSpec = OptionSpec {
    key: "chain_k",
    label: "sweeps up to k",
    help: "exact chain view: the chain's law is computed for k = 0 … this many sweeps",
    kind: Kind::Int {
        min: 1,
        max: crate::eval::chain::MAX_SWEEPS as u64,
    },
    default: D::Int(50),
    advanced: false,
    scope: Scope::View,
    live: false,
};

/// Updates between two live gradient estimates.
pub const GRAD_EVERY: OptionSpec = OptionSpec {
    key: "grad_every",
    label: "gradient error every",
    help: "live gradient error: updates between two estimates (0: only on request); each costs about `repetitions` updates",
    kind: Kind::Int { min: 0, max: 1_000_000 },
    // Off by default: the exact gradient is one call in the lane's worker (0.1–0.3 s on BAS 4×4)
    // that Pause waits for. A repetition costs about 3.5 updates (a fresh lane and one update:
    // `rbm grad` against `rbm train`, BAS 4×4 with 1 000 chains), so 50 repetitions every
    // 2 000 updates take about a tenth of the lane's time.
    default: D::Int(0),
    advanced: false,
    scope: Scope::View,
    live: false,
};

/// Repetitions of one gradient estimate.
pub const GRAD_REPS: OptionSpec = OptionSpec {
    key: "grad_reps",
    label: "repetitions",
    help: "live gradient error: independent one-update estimates averaged (as `rbm grad --reps`)",
    kind: Kind::Int {
        min: 2,
        max: MAX_GRAD_REPS,
    },
    default: D::Int(50),
    advanced: false,
    scope: Scope::View,
    live: false,
};

/// Every view option, in the order the page lists them.
pub const VIEW_OPTIONS: &[&OptionSpec] = &[&CHAIN_START, &CHAIN_K, &GRAD_EVERY, &GRAD_REPS];

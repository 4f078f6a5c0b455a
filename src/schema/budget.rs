//! The budgets the shells are held to (README "Limits"): what one lane and one evaluation may
//! hold and take, and the speeds assumed of the machine a shell runs on — [`PAGE`] for lanes
//! built by the page's wasm shell, [`CLI`] for the native command line. Declarations only: the
//! cost model (`src/cost.rs`) estimates a lane or an evaluation and checks it against one of
//! these.

/// Assumed speeds of the machine a shell runs on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speed {
    /// Weight visits per second of the Gibbs kernels (one weight added for one row).
    pub visits_per_sec: f64,
    /// Unit updates per second (a conditional probability and its Bernoulli draw).
    pub units_per_sec: f64,
    /// Summed-out units per second of exact enumeration by the softplus walk (a softplus and a
    /// row add each): layers narrower than [`crate::eval::exact::PRODUCT_WALK_FROM`], and the model
    /// expectation and distribution.
    pub summed_per_sec: f64,
    /// Summed-out units per second of log Z's product walk (one multiply each), used on layers
    /// of at least [`crate::eval::exact::PRODUCT_WALK_FROM`] units; layers wider than [`CACHE_UNITS`] run at
    /// [`OUT_OF_CACHE`] times this rate.
    pub product_per_sec: f64,
    /// Enumerated states per second (the per-state overhead of a Gray-code walk).
    pub states_per_sec: f64,
    /// Joint states (v, h) per second of the exact chain walk (`eval::chain`): f64 products
    /// and sums, one of each per joint state and direction of a sweep.
    pub joint_per_sec: f64,
}

/// Widest summed-out layer whose f64 pre-activations (8 bytes a unit) stay in a core's cache
/// during the product walk.
pub const CACHE_UNITS: usize = 1 << 17;

/// The product walk's rate on wider layers, relative to [`Speed::product_per_sec`] (measured:
/// 0.42 for 16×2^20 against 16×10^5 natively).
pub const OUT_OF_CACHE: f64 = 0.4;

/// What a shell does with a lane whose exact evaluation exceeds its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowExact {
    /// Refuse the lane, naming the option (the command line: the person can pass
    /// `--exact-bits 0` or a smaller model).
    Refuse,
    /// Build the lane without the exact curve and say why (the cost model's
    /// `LaneCost::dropped`, shown by the lane's notice): the page.
    Drop,
}

/// What a shell allows one lane and one evaluation (README "Limits").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Where the budget applies, for messages ("the page").
    pub place: &'static str,
    /// Most bytes one lane may hold (chains, models, statistics, data, an evaluation's copy).
    pub lane_bytes: u64,
    /// Longest one update may take, in seconds (the page answers Pause between updates).
    pub update_secs: f64,
    /// Longest one exact evaluation of a lane may take (one every `every` updates).
    pub eval_secs: f64,
    /// Longest a one-off evaluation asked for may take: exact log Z and the exact gradient of
    /// a model file, an AIS or RAISE run (the page runs these in slices, beside training).
    pub job_secs: f64,
    /// What a too-slow exact evaluation of a lane does.
    pub slow_exact: SlowExact,
    /// The assumed speeds.
    pub speed: Speed,
}

/// The page: one Web Worker per lane, with its own copy of the data; 256 MiB each keeps several
/// lanes inside a tab; an update within 0.5 s, so Pause, Reset and removing a lane answer
/// within about half a second at worst (the papers' heaviest page lanes, `sdcp-mnist`'s, take
/// 0.1–0.3 s); an exact evaluation inside a lane's worker within 2 s, else the lane trains
/// without its exact curve. Speeds: the wasm benchmarks in headless Chromium, rounded down
/// (Gibbs visits ~1.7× slower than native; log Z of 784×20 in 0.56 s, 0.43 s natively).
pub const PAGE: Budget = Budget {
    place: "the page",
    lane_bytes: 256 << 20,
    update_secs: 0.5,
    eval_secs: 2.0,
    job_secs: 600.0,
    slow_exact: SlowExact::Drop,
    speed: Speed {
        visits_per_sec: 5e9,
        units_per_sec: 1e8,
        summed_per_sec: 5e7,
        product_per_sec: 8e8,
        states_per_sec: 4e6,
        // Not measured in the page: half the native rate (its Gibbs visits are 1.7× slower).
        joint_per_sec: 2.5e8,
    },
};

/// The command line: 4 GiB per lane, an update and an exact evaluation each within a minute
/// (784×25 takes ~15 s, 16×2^20 ~80 s), and a one-off evaluation within an hour of the threads
/// it runs on. Speeds: the native benchmarks on one core, rounded down.
pub const CLI: Budget = Budget {
    place: "the command line",
    lane_bytes: 4 << 30,
    update_secs: 60.0,
    eval_secs: 60.0,
    job_secs: 3600.0,
    slow_exact: SlowExact::Refuse,
    speed: Speed {
        visits_per_sec: 8e9,
        units_per_sec: 1.5e8,
        summed_per_sec: 1e8,
        product_per_sec: 1.2e9,
        states_per_sec: 6e6,
        // `rbm chain` on 1×23 and 20×4 models: 7–8·10⁸ on the shared two-core machine.
        joint_per_sec: 5e8,
    },
};

//! The cost model (issue 12): a lane's memory, the time of one update and of one exact
//! evaluation, and the time of a one-off evaluation (exact log Z, the exact gradient, AIS or
//! RAISE), estimated from the sizes before anything is allocated or run, against the budget of
//! the shell that asks (README "Limits", declared in [`crate::schema::budget`]): [`PAGE`] for
//! lanes built by the page's wasm shell, [`CLI`] for the native command line.
//!
//! It sits above what it reads: the budgets are declarations ([`crate::schema::budget`]);
//! each algorithm declares what it holds and spends next to itself, as data
//! ([`crate::train::AlgoInfo::cost`]); the engine says how large what it holds is
//! ([`crate::engine::cpu::sizes`]). Nothing below reads this module back: the constructors
//! that build a lane within a budget ([`crate::train::Lane::new`], `within`, `with_model`,
//! `resume`) and check a configuration against one ([`LaneConfig::validate`],
//! `validate_for`) check before anything is built, so they are defined here (`admit.rs`).
//!
//! Estimates, not measurements. **Memory** counts what a lane holds (the model in its three
//! layouts, the last finite model, the gradient, the statistics and what the algorithm keeps,
//! its chains, the mini-batch, the data and their thresholded copy, the f64 copy of W an exact
//! evaluation makes, one copy of W handed out as a view); a test builds lanes under a counting
//! allocator and checks the estimate within a factor of 2 of the measured peak. **Time** counts
//! *weight visits* (one weight added for one row: half of the m·n weights per row and
//! half-step, as when half the units are on), *unit updates* (one conditional probability and
//! its sample) and, for exact enumeration, *summed-out units* (one softplus per unit of the
//! larger layer per enumerated state) and *enumerated states*, each at an assumed rate
//! ([`Speed`]) measured on the benchmarks (`src/bench.rs`) and rounded down.
//!
//! What exceeds a budget is refused with [`Error::InvalidOption`] keyed by the option that
//! drives the excess — the one furthest above its usual value — and a message naming it and
//! the limit (data too large for any lane: keyed `data`, [`check_data`]), except that in the page an exact evaluation too slow for the budget drops the
//! lane's exact curve (with a notice) instead of refusing the lane.

mod admit;
mod sampling;

pub use sampling::{check_chain, check_drift, check_sample, sample_secs};

use crate::data::Dataset;
use crate::engine::cpu::sizes;
use crate::error::{Error, Result};
use crate::eval::exact;
use crate::schema::OptionSpec;
use crate::train::{config, find, AlgoInfo, ChainKind, LaneConfig};

/// The budgets the checks take, declared with the schema ([`crate::schema::budget`]) and
/// re-exported for the cost model's callers.
pub use crate::schema::budget::{Budget, SlowExact, Speed, CACHE_UNITS, CLI, OUT_OF_CACHE, PAGE};

/// The estimated cost of one lane.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneCost {
    /// Bytes the lane holds while training (with its exact evaluation, when it keeps one).
    pub bytes: u64,
    /// Seconds of one update on the budget's machine.
    pub update_secs: f64,
    /// Seconds of one exact evaluation, when the lane evaluates exactly.
    pub eval_secs: Option<f64>,
    /// Why the lane trains without the exact curve it would otherwise have (a budget with
    /// [`SlowExact::Drop`]), for the shell to show.
    pub dropped: Option<String>,
}

/// The sizes a lane's cost depends on.
struct Sizes {
    m: f64,
    n: f64,
    rows: f64,
    batch: f64,
    /// Chains, or batch rows for an algorithm without chains.
    chains: f64,
    /// Share of visible units on: the data's mean (the chains' states keep about the data's
    /// density), at least 1/16.
    density: f64,
    /// m, n, batch and chains as counts, to ask the engine's sizes.
    counts: Counts,
}

/// Visible and hidden units, batch rows and chains (or batch rows) of a lane.
struct Counts {
    m: usize,
    n: usize,
    batch: usize,
    chains: usize,
}

impl Sizes {
    fn of(cfg: &LaneConfig, data: &Dataset, algo: &AlgoInfo) -> Sizes {
        let batch = cfg.batch.unwrap_or(data.rows());
        let chains = match algo.cost.chains {
            ChainKind::Batch => batch,
            _ => cfg.chains.unwrap_or(batch),
        };
        Sizes {
            m: data.m as f64,
            n: cfg.hidden as f64,
            rows: data.rows() as f64,
            batch: batch as f64,
            chains: chains as f64,
            density: density(data),
            counts: Counts {
                m: data.m,
                n: cfg.hidden,
                batch,
                chains,
            },
        }
    }
}

const F32: f64 = 4.0;

/// Share of visible units on in chains on `data`: the data's mean (chains keep about the data's
/// density), at least 1/16.
fn density(data: &Dataset) -> f64 {
    (data.values.iter().map(|&x| f64::from(x)).sum::<f64>() / data.values.len().max(1) as f64)
        .clamp(1.0 / 16.0, 1.0)
}

/// Values (of 4 bytes) a lane holds for data of `rows` rows of `m` units: the rows as f32
/// (each page worker loads its own copy) and the row order (8-byte indices).
fn data_values(rows: f64, m: f64) -> f64 {
    rows * (m + 2.0)
}

/// Bytes one lane holds for data of `rows` rows of `m` units (the rows and their order).
pub fn data_bytes(rows: usize, m: usize) -> f64 {
    data_values(rows as f64, m as f64) * F32
}

/// Refuses data `name` of `rows` rows (`row_word`: what a row is, e.g. "images of 16×16") of
/// `m` units whose values alone would exceed what `budget` allows one lane, with an error keyed
/// `data` that names the data as the cause and says how many rows fit. Shells call it before
/// they decode a file whose header gives its size ([`crate::data::idx::check_images`]); a lane
/// on such data is refused with it too ([`check_lane`]).
pub fn check_data(
    name: &str,
    rows: usize,
    row_word: &str,
    m: usize,
    budget: &Budget,
) -> Result<()> {
    let need = data_bytes(rows, m);
    let room = budget.lane_bytes as f64;
    if need <= room {
        return Ok(());
    }
    let fit = (room / data_bytes(1, m)).floor() as u64;
    Err(Error::option(
        "data",
        format!(
            "{name} holds {rows} {row_word}: the data alone would take about {} in each lane, \
             over the {} {} allows per lane; use at most {fit} {row_word}",
            bytes(need),
            bytes(room),
            budget.place
        ),
    ))
}

/// Bytes a lane of `cfg` holds, without (`exact` false) or with its exact evaluation.
fn lane_bytes(cfg: &LaneConfig, data: &Dataset, algo: &AlgoInfo, exact: bool) -> f64 {
    let s = Sizes::of(cfg, data, algo);
    let (m, n) = (s.m, s.n);
    let c = &s.counts;
    let mn = m * n;
    // W and its two packed layouts, for the model, the last finite model and the new copy a
    // record makes of it (before the old one is freed).
    let model = mn + sizes::packed(c.m, c.n) + sizes::packed(c.n, c.m) + m + n;
    let mut values = 3.0 * model;
    // The gradient, the velocity (momentum), the positive statistics, one W handed out.
    values +=
        mn * (3.0 + f64::from(cfg.momentum != 0.0)) + m + n + sizes::stats_scratch(c.n, c.batch);
    // The algorithm's own arrays and its chains.
    let a = algo.cost;
    let (sweeps, _) = (a.sweeps)(cfg);
    values += a.weight_sets * mn + a.batch_sets * s.batch * n;
    values += match a.chains {
        ChainKind::Full => {
            s.chains * (m + 3.0 * n)
                + sizes::stats_scratch(c.n, c.chains)
                + sizes::pattern_tables(c.m, c.n, c.chains, sweeps)
        }
        ChainKind::Visible => s.chains * m + sizes::ucd_pattern_tables(c.m, c.n, s.chains * sweeps),
        ChainKind::Batch => s.batch * m + sizes::stats_scratch(c.n, c.batch),
    };
    // The mini-batch, E[h|v] of the batch, the data and its row order.
    values += s.batch * (m + n) + data_values(s.rows, m);
    if exact {
        // Grey data are copied thresholded for the exact curve; the enumeration copies W in
        // f64; enumerating the hidden layer makes Wᵀ for the model and its last finite copy.
        let grey = !data.is_binary();
        values += s.rows * m * f64::from(grey) + 2.0 * mn + if n <= m { 2.0 * mn } else { 0.0 };
    }
    values * F32
}

/// Seconds of one update of a lane of `cfg`.
fn update_secs(cfg: &LaneConfig, data: &Dataset, algo: &AlgoInfo, speed: &Speed) -> f64 {
    let s = Sizes::of(cfg, data, algo);
    let (m, n) = (s.m, s.n);
    let (sweeps, _) = (algo.cost.sweeps)(cfg);
    // Half-steps over W visit the rows of the units on: from the visible layer (the data's
    // density) for E[h|v] and the statistics, from the hidden layer (half on) for v|h. The
    // positive phase: E[h|v] and its statistics; per chain a sweep each way, then E[h|v] and
    // the statistics.
    let (dv, dh) = (s.density, 0.5);
    let visits = m * n * (2.0 * dv * s.batch + s.chains * (sweeps * (dv + dh) + 2.0 * dv));
    // Every weight a few times: the gradient step, the two packed layouts, the algorithm's own
    // arrays.
    let passes = (4.0 + algo.cost.weight_sets) * m * n;
    let units = s.batch * n + s.chains * (sweeps * (m + n) + n);
    (visits + passes) / speed.visits_per_sec + units / speed.units_per_sec
}

/// Seconds of the exact log Z of an m×n model: the 2^min(m,n) states of the smaller layer, each
/// summing out the max(m,n) units of the other — by the product walk on wide layers (its
/// typical case: a model whose pre-activations leave that walk's range falls back to the
/// softplus walk, several times slower).
pub fn log_z_secs(m: usize, n: usize, speed: &Speed) -> f64 {
    let (k, l) = (m.min(n), m.max(n));
    let rate = if l < exact::PRODUCT_WALK_FROM {
        speed.summed_per_sec
    } else if l <= CACHE_UNITS {
        speed.product_per_sec
    } else {
        speed.product_per_sec * OUT_OF_CACHE
    };
    let states = (k as f64).exp2();
    states * l as f64 / rate + states / speed.states_per_sec
}

/// Seconds of the free energies of `rows` rows of an m×n model (the log-likelihood given log Z).
pub fn rows_secs(m: usize, n: usize, rows: usize, speed: &Speed) -> f64 {
    rows as f64 * (m as f64 * n as f64 / speed.visits_per_sec + n as f64 / speed.summed_per_sec)
}

/// Seconds of one exact evaluation of an m×n model on `rows` rows: log Z, then the free energy
/// of every row.
pub fn exact_secs(m: usize, n: usize, rows: usize, speed: &Speed) -> f64 {
    log_z_secs(m, n, speed) + rows_secs(m, n, rows, speed)
}

/// "64 chains and a batch of 32", "1000 chains × 12 Gibbs sweeps and a batch of 32", "a batch
/// of 100" (an algorithm without chains): what a lane's memory or update is made of.
fn workload(s: &Sizes, algo: &AlgoInfo, sweeps: Option<f64>) -> String {
    if algo.cost.chains == ChainKind::Batch {
        return format!("a batch of {}", s.batch);
    }
    let sweeps = match sweeps {
        Some(1.0) => " × 1 Gibbs sweep".to_string(),
        Some(k) => format!(" × {k} Gibbs sweeps"),
        None => String::new(),
    };
    format!("{} chains{sweeps} and a batch of {}", s.chains, s.batch)
}

/// The option `key` of the schema, for its label.
fn spec(key: &str) -> Option<&'static OptionSpec> {
    config::option(key)
}

/// "the hidden units from 1000000": how a message names an option and its value.
fn named(key: &str, value: f64) -> String {
    let label = spec(key).map_or(key, |s| s.label);
    format!("the {label} from {value}")
}

/// The option to blame among `candidates` (key, value, usual value): the one furthest above
/// its usual value.
fn culprit(candidates: &[(&'static str, f64, f64)]) -> (&'static str, f64) {
    candidates
        .iter()
        .map(|&(k, v, usual)| (k, v, v / usual.max(1.0)))
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map_or(("hidden", 0.0), |(k, v, _)| (k, v))
}

/// The size options of a lane as culprit candidates: hidden units (usually up to the data's
/// width), chains (usually one per batch row), batch (usually up to 100 rows) and, with
/// `with_sweeps`, the option that sets the sweeps (usually its default).
fn candidates(
    cfg: &LaneConfig,
    data: &Dataset,
    algo: &AlgoInfo,
    with_sweeps: bool,
) -> Vec<(&'static str, f64, f64)> {
    let s = Sizes::of(cfg, data, algo);
    let default_hidden = config::HIDDEN.default_int().unwrap_or(16) as f64;
    let mut c = vec![
        ("hidden", s.n, default_hidden.max(s.m)),
        ("batch", s.batch, s.rows.min(100.0)),
    ];
    if algo.cost.chains != ChainKind::Batch && cfg.chains.is_some() {
        c.push(("chains", s.chains, s.batch));
    }
    if let (true, (sweeps, Some(key))) = (with_sweeps, (algo.cost.sweeps)(cfg)) {
        // The option's usual value: what gives the default number of sweeps.
        let (usual, _) = (algo.cost.sweeps)(&LaneConfig::default());
        let value = cfg.get(key).ok().and_then(|v| v.as_f64()).unwrap_or(sweeps);
        c.push((key, value, value * usual / sweeps.max(1.0)));
    }
    c
}

/// The message of an exact evaluation over budget (without advice).
fn slow_exact_text(m: usize, n: usize, secs: f64, budget: &Budget) -> String {
    format!(
        "each exact evaluation of the {m}×{n} model would enumerate 2^{} states × {} units, \
         about {} (estimated), over the {} {} allows per evaluation",
        m.min(n),
        m.max(n),
        duration(secs),
        duration(budget.eval_secs),
        budget.place
    )
}

/// The largest number of hidden units (at most `n`) whose exact evaluation fits `budget`.
fn largest_exact_hidden(m: usize, n: usize, rows: usize, budget: &Budget) -> Option<usize> {
    let fits = |h: usize| exact_secs(m, h, rows, &budget.speed) <= budget.eval_secs;
    if !fits(1) {
        return None;
    }
    let (mut lo, mut hi) = (1, n);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// Estimates the cost of a lane of `cfg` on `data` and checks it against `budget`: refuses,
/// with an error keyed by the option that drives the excess, a lane whose memory or update
/// time exceeds the budget, or whose exact evaluation does under [`SlowExact::Refuse`]; under
/// [`SlowExact::Drop`] such a lane is accepted without its exact curve
/// ([`LaneCost::dropped`]). `cfg` must name a registered algorithm.
pub fn check_lane(cfg: &LaneConfig, data: &Dataset, budget: &Budget) -> Result<LaneCost> {
    let algo = find(&cfg.algo)?;
    let s = Sizes::of(cfg, data, algo);
    let (m, n) = (data.m, cfg.hidden);
    let model = format!("{m}×{n}");
    let training = lane_bytes(cfg, data, algo, false);
    if training > budget.lane_bytes as f64 {
        // Data too large for any lane are the cause, whatever the options.
        check_data(
            &format!("the data set '{}'", data.name),
            data.rows(),
            &format!("rows of {m} values"),
            m,
            budget,
        )?;
        let (key, value) = culprit(&candidates(cfg, data, algo, false));
        return Err(Error::option(
            key,
            format!(
                "a {model} lane with {} would hold about {}, over the {} {} allows per lane; \
                 lower {}",
                workload(&s, algo, None),
                bytes(training),
                bytes(budget.lane_bytes as f64),
                budget.place,
                named(key, value)
            ),
        ));
    }
    let update = update_secs(cfg, data, algo, &budget.speed);
    if update > budget.update_secs {
        let (key, value) = culprit(&candidates(cfg, data, algo, true));
        let (sweeps, _) = (algo.cost.sweeps)(cfg);
        return Err(Error::option(
            key,
            format!(
                "one update ({} on the {model} model) would take about {} (estimated), over the \
                 {} {} allows per update; lower {}",
                workload(&s, algo, Some(sweeps)),
                duration(update),
                duration(budget.update_secs),
                budget.place,
                named(key, value)
            ),
        ));
    }
    let mut cost = LaneCost {
        bytes: training as u64,
        update_secs: update,
        eval_secs: None,
        dropped: None,
    };
    let k = m.min(n);
    if k > cfg.exact_bits {
        return Ok(cost);
    }
    let secs = exact_secs(m, n, data.rows(), &budget.speed);
    let with_eval = lane_bytes(cfg, data, algo, true);
    let (what, advice_key) = if secs > budget.eval_secs {
        (slow_exact_text(m, n, secs, budget), "hidden")
    } else if with_eval > budget.lane_bytes as f64 {
        (
            format!(
                "with its exact evaluation a {model} lane would hold about {}, over the {} {} \
                 allows per lane",
                bytes(with_eval),
                bytes(budget.lane_bytes as f64),
                budget.place
            ),
            "hidden",
        )
    } else {
        cost.bytes = with_eval as u64;
        cost.eval_secs = Some(secs);
        return Ok(cost);
    };
    let fit = largest_exact_hidden(m, n, data.rows(), budget).filter(|&h| h < n);
    let fewer = fit.map_or(String::new(), |h| format!(" (at most {h} fit)"));
    let bits_label = config::EXACT_BITS.label;
    match budget.slow_exact {
        SlowExact::Refuse => {
            // A raised exact limit is what to lower when it is above its default; else the
            // model's size.
            let default_bits = config::EXACT_BITS.default_int().unwrap_or(20) as usize;
            let key = if cfg.exact_bits > default_bits {
                "exact_bits"
            } else {
                advice_key
            };
            Err(Error::option(
                key,
                format!(
                    "{what}; lower the hidden units{fewer}, or set the exact limit ({bits_label}) \
                     below {k} to train without the exact curve"
                ),
            ))
        }
        SlowExact::Drop => {
            cost.dropped = Some(format!(
                "No exact curve for this lane: {what}, so it trains without one; lower the \
                 hidden units{fewer} to have it"
            ));
            Ok(cost)
        }
    }
}

/// Refuses a one-off exact evaluation of an m×n model (`what`, e.g. "the exact log-likelihood")
/// — log Z on `threads` threads, the free energies of `rows` rows and `extra_secs` of further
/// work on one — that would take longer than the budget's `job_secs`; returns its estimated
/// seconds.
pub fn check_exact_job(
    what: &str,
    (m, n): (usize, usize),
    rows: usize,
    extra_secs: f64,
    threads: usize,
    budget: &Budget,
) -> Result<f64> {
    let secs = log_z_secs(m, n, &budget.speed) / threads.max(1) as f64
        + rows_secs(m, n, rows, &budget.speed)
        + extra_secs;
    if secs > budget.job_secs {
        return Err(Error::TooLarge(format!(
            "{what} of the {m}×{n} model enumerates 2^{} states × {} units: about {} \
             (estimated, log Z on {threads} thread(s)), over the {} {} allows for one \
             evaluation",
            m.min(n),
            m.max(n),
            duration(secs),
            duration(budget.job_secs),
            budget.place
        )));
    }
    Ok(secs)
}

/// Seconds of the exact gradient of an m×n model beyond its log Z: every enumerated state adds
/// its conditionals to half of the smaller layer's rows of W; the data expectation of `rows`
/// rows is dense.
pub fn exact_gradient_extra_secs(m: usize, n: usize, rows: usize, speed: &Speed) -> f64 {
    let (k, l) = (m.min(n) as f64, m.max(n) as f64);
    let states = k.exp2();
    states * l / speed.summed_per_sec
        + states * k * l * 0.5 / speed.visits_per_sec
        + rows as f64 * 2.0 * m as f64 * n as f64 / speed.visits_per_sec
}

/// Seconds of the full model distribution over the 2^m visible patterns (`rbm loglik`'s top
/// patterns, m ≤ 20): one state of the visible layer per pattern, n units summed out.
pub fn distribution_secs(m: usize, n: usize, speed: &Speed) -> f64 {
    let states = (m as f64).exp2();
    states * n as f64 / speed.summed_per_sec + states / speed.states_per_sec
}

/// Bytes and seconds of an AIS or RAISE run of `particles` chains over `betas` inverse
/// temperatures on an m×n model: per chain and step two half-steps over W (half of it visited
/// per row) and a softplus difference over the hidden units; the run holds a copy of the model.
pub fn ais_cost(m: usize, n: usize, particles: usize, betas: usize, speed: &Speed) -> (f64, f64) {
    let packed = sizes::packed(m, n) + sizes::packed(n, m);
    let (m, n, p, b) = (m as f64, n as f64, particles as f64, betas as f64);
    let secs = p * b * (m * n / speed.visits_per_sec + (m + 2.0 * n) / speed.units_per_sec);
    let bytes = F32 * (m * n + packed + 4.0 * p * (m + n));
    (bytes, secs)
}

/// Refuses an AIS or RAISE run that would exceed `budget` (`job_secs` on `threads` threads, or
/// the lane's memory), with an error keyed `particles` or `betas`, whichever is further above
/// its default; returns its estimated seconds.
pub fn check_ais(
    m: usize,
    n: usize,
    particles: usize,
    betas: usize,
    threads: usize,
    budget: &Budget,
) -> Result<f64> {
    use crate::eval::ais::{DEFAULT_BETAS, DEFAULT_PARTICLES};
    let (bytes_needed, secs) = ais_cost(m, n, particles, betas, &budget.speed);
    let secs = secs / threads.max(1) as f64;
    let key = if particles as f64 / DEFAULT_PARTICLES as f64 > betas as f64 / DEFAULT_BETAS as f64 {
        "particles"
    } else {
        "betas"
    };
    let what = if key == "particles" {
        format!("fewer particles (now {particles})")
    } else {
        format!("fewer inverse temperatures β (now {betas})")
    };
    if bytes_needed > budget.lane_bytes as f64 {
        return Err(Error::option(
            key,
            format!(
                "AIS with {particles} particles on a {m}×{n} model would hold about {}, over \
                 the {} {} allows; use {what}",
                bytes(bytes_needed),
                bytes(budget.lane_bytes as f64),
                budget.place
            ),
        ));
    }
    if secs > budget.job_secs {
        return Err(Error::option(
            key,
            format!(
                "AIS with {particles} particles × {betas} β on a {m}×{n} model would take about \
                 {} (estimated), over the {} {} allows for one estimate; use {what}",
                duration(secs),
                duration(budget.job_secs),
                budget.place
            ),
        ));
    }
    Ok(secs)
}

/// Bytes for people: `1.2 GiB`, `256 MiB`, `12 KiB`.
pub fn bytes(b: f64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < units.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 || x >= 10.0 {
        format!("{x:.0} {}", units[u])
    } else {
        format!("{x:.1} {}", units[u])
    }
}

/// Durations for people: `0.3 s`, `12 s`, `6 min`, `5.8 h`, `3 days`.
pub fn duration(secs: f64) -> String {
    if secs < 10.0 {
        let s = format!("{secs:.1}");
        format!("{} s", s.strip_suffix(".0").unwrap_or(&s))
    } else if secs < 120.0 {
        format!("{secs:.0} s")
    } else if secs < 7200.0 {
        format!("{:.0} min", secs / 60.0)
    } else if secs < 3.0 * 86400.0 {
        format!("{:.1} h", secs / 3600.0)
    } else if secs < 1e6 * 86400.0 {
        format!("{:.0} days", secs / 86400.0)
    } else {
        format!("{:.1e} days", secs / 86400.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(pairs: &[(&str, serde_json::Value)]) -> LaneConfig {
        let mut c = LaneConfig::default();
        for (k, v) in pairs {
            c.set(k, v.clone()).unwrap();
        }
        c
    }

    /// A grey-level data set of `rows` rows of `m` values (also the sampling tests').
    pub(super) fn grey(m: usize, rows: usize) -> Dataset {
        Dataset {
            name: "grey".into(),
            m,
            values: (0..m * rows).map(|i| (i % 7) as f32 / 7.0).collect(),
            shape: None,
            labels: None,
        }
    }

    /// The key and message of a refusal.
    fn refusal(r: Result<LaneCost>) -> (String, String) {
        match r {
            Err(Error::InvalidOption { key, message }) => (key, message),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn every_algorithm_at_the_usual_sizes_fits_both_budgets() {
        let bas = Dataset::builtin("bas4").unwrap();
        let mnist = grey(784, 8000);
        for algo in crate::train::ALGORITHMS {
            let c = cfg(&[("algo", algo.name.into()), ("chains", 1000.into())]);
            for b in [&PAGE, &CLI] {
                let cost = check_lane(&c, &bas, b).unwrap();
                assert!(
                    cost.eval_secs.is_some() && cost.dropped.is_none(),
                    "{}",
                    algo.name
                );
            }
            // MNIST as the page sets it up: 784×500, batch 100, no exact curve.
            let c = cfg(&[
                ("algo", algo.name.into()),
                ("hidden", 500.into()),
                ("batch", 100.into()),
            ]);
            for b in [&PAGE, &CLI] {
                let cost = check_lane(&c, &mnist, b).unwrap();
                assert_eq!(cost.eval_secs, None, "{}", algo.name);
                assert!(
                    cost.bytes < 64 << 20,
                    "{}: {}",
                    algo.name,
                    bytes(cost.bytes as f64)
                );
            }
        }
    }

    #[test]
    fn the_bad_input_sweeps_cases_are_refused_naming_the_culprit() {
        let bas = Dataset::builtin("bas4").unwrap();
        // The page: 64 chains and a million hidden units (the page's own maximum).
        let c = cfg(&[("chains", 64.into()), ("hidden", 1_000_000.into())]);
        let (key, msg) = refusal(check_lane(&c, &bas, &PAGE));
        assert_eq!(key, "hidden", "{msg}");
        assert!(
            msg.contains("256 MiB") && msg.contains("the page") && msg.contains("hidden units"),
            "{msg}"
        );
        // The page: 4 194 304 chains with k = 100 000.
        let c = cfg(&[
            ("chains", 4_194_304.into()),
            ("k", 100_000.into()),
            ("algo", "pcd".into()),
        ]);
        let (key, msg) = refusal(check_lane(&c, &bas, &PAGE));
        assert_eq!(key, "chains", "{msg}");
        assert!(msg.contains("4194304"), "{msg}");
        // The command line: k = 100 000 with 100 000 chains: an update of about an hour.
        let c = cfg(&[("chains", 100_000.into()), ("k", 100_000.into())]);
        let (key, msg) = refusal(check_lane(&c, &bas, &CLI));
        assert_eq!(key, "k", "{msg}");
        assert!(
            msg.contains("per update") && msg.contains("Gibbs sweeps k") && msg.contains("1 min"),
            "{msg}"
        );
        // The command line: 2^20 hidden units on BAS 4×4: each evaluation 2^16 × 2^20.
        let c = cfg(&[("hidden", 1_048_576.into())]);
        let (key, msg) = refusal(check_lane(&c, &bas, &CLI));
        assert_eq!(key, "hidden", "{msg}");
        assert!(
            msg.contains("2^16 states × 1048576 units") && msg.contains("exact up to"),
            "{msg}"
        );
        // With the exact curve off, the same lane is accepted.
        let c = cfg(&[("hidden", 1_048_576.into()), ("exact_bits", 0.into())]);
        check_lane(&c, &bas, &CLI).unwrap();
        // A long update on the page: 10 000 chains with k = 1000.
        let c = cfg(&[("chains", 10_000.into()), ("k", 1000.into())]);
        assert_eq!(refusal(check_lane(&c, &bas, &PAGE)).0, "k");
        // A whole MNIST-sized batch per update on the page blames the batch.
        let c = cfg(&[("hidden", 500.into())]);
        assert_eq!(refusal(check_lane(&c, &grey(784, 8000), &PAGE)).0, "batch");
        // S-DCP's sweeps are d·K′: a huge K′ is blamed, not k.
        let c = cfg(&[
            ("algo", "sdcp".into()),
            ("chains", 1000.into()),
            ("kprime", 10_000.into()),
        ]);
        assert_eq!(refusal(check_lane(&c, &bas, &PAGE)).0, "kprime");
    }

    #[test]
    fn a_slow_exact_evaluation_drops_the_curve_in_the_page_and_is_refused_on_the_command_line() {
        let bas = Dataset::builtin("bas4").unwrap();
        // 16×100 000: 2^16 states × 10^5 units per evaluation, far over the page's 2 s.
        let c = cfg(&[("hidden", 100_000.into())]);
        let cost = check_lane(&c, &bas, &PAGE).unwrap();
        assert_eq!(cost.eval_secs, None);
        let note = cost.dropped.unwrap();
        assert!(
            note.contains("No exact curve") && note.contains("2 s") && note.contains("at most"),
            "{note}"
        );
        // The command line allows it seconds; ten times as many hidden units, not.
        assert!(check_lane(&c, &bas, &CLI).unwrap().eval_secs.unwrap() > 2.0);
        let c = cfg(&[("hidden", 1_000_000.into())]);
        assert_eq!(refusal(check_lane(&c, &bas, &CLI)).0, "hidden");
        // A raised exact limit is blamed when it is what makes evaluation slow.
        let c = cfg(&[
            ("hidden", 30.into()),
            ("exact_bits", 30.into()),
            ("batch", 10.into()),
        ]);
        assert_eq!(
            refusal(check_lane(&c, &grey(784, 10), &CLI)).0,
            "exact_bits"
        );
        // MNIST with 16 hidden units keeps its exact curve in the page; with 24 it drops it.
        let mnist = grey(784, 8000);
        let c = cfg(&[("hidden", 16.into()), ("batch", 100.into())]);
        assert!(check_lane(&c, &mnist, &PAGE).unwrap().eval_secs.is_some());
        let c = cfg(&[
            ("hidden", 24.into()),
            ("batch", 100.into()),
            ("exact_bits", 24.into()),
        ]);
        assert!(check_lane(&c, &mnist, &PAGE).unwrap().dropped.is_some());
    }

    #[test]
    fn the_papers_presets_fit_both_budgets_with_their_exact_curves() {
        for p in crate::experiments::PRESETS {
            // MNIST presets on grey stand-ins of the training split's size.
            let data = p.dataset().unwrap_or_else(|_| grey(784, 8000));
            let exact = p.ais.is_none();
            for i in 0..p.lanes.len() {
                for &lr in p.rates {
                    let c = p.lane_config(i, lr, 1, p.every).unwrap();
                    let what = format!("{} lane {i}", p.name);
                    // The command line evaluates every exact preset itself (784×25 included).
                    let cli = check_lane(&c, &data, &CLI).unwrap();
                    assert_eq!(cli.eval_secs.is_some(), exact, "{what}");
                    // The page too up to 20 units; above, its evaluation pool does (the lane
                    // is built with the inline limit, crates/wasm).
                    let page = check_lane(&c, &data, &PAGE).unwrap();
                    let inline = exact && data.m.min(c.hidden) <= 20;
                    assert_eq!(page.eval_secs.is_some(), inline, "{what}");
                    let mut pooled = c.clone();
                    pooled.exact_bits = 20;
                    let page = check_lane(&pooled, &data, &PAGE).unwrap();
                    assert!(
                        page.dropped.is_none() && page.update_secs < PAGE.update_secs,
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_lane_built_within_the_page_budget_trains_without_the_exact_curve_it_drops() {
        let bas = std::sync::Arc::new(Dataset::builtin("bas4").unwrap());
        let c = cfg(&[
            ("hidden", 100_000.into()),
            ("seed", 1.into()),
            ("every", 1.into()),
        ]);
        let mut lane = crate::train::Lane::within(c.clone(), bas.clone(), &PAGE).unwrap();
        assert!(!lane.exact());
        assert!(lane.notice().unwrap().contains("No exact curve"));
        let records = lane.run(2).unwrap();
        assert_eq!(records.len(), 3);
        assert!(records
            .iter()
            .all(|r| r.atll.is_none() && r.log_z.is_none()));
        assert!(lane.view(4).dist.is_none());
        // The command line refuses nothing here (a minute per evaluation is within its budget),
        // and a small lane keeps its curve in the page.
        check_lane(&c, &bas, &CLI).unwrap();
        let small = cfg(&[("seed", 1.into())]);
        let mut lane = crate::train::Lane::within(small, bas, &PAGE).unwrap();
        assert!(lane.exact() && lane.notice().is_none());
        assert!(lane.run(1).unwrap()[0].atll.is_some());
    }

    #[test]
    fn estimates_grow_with_every_size() {
        let bas = Dataset::builtin("bas4").unwrap();
        let algo = find("cd").unwrap();
        // Layers of up to 16 units keep pattern tables (2^units entries), wider ones none: the
        // hidden layer grows within each of the two.
        for hidden in [8, 17] {
            let base = cfg(&[("chains", 100.into()), ("hidden", hidden.into())]);
            let b0 = lane_bytes(&base, &bas, algo, true);
            let t0 = update_secs(&base, &bas, algo, &CLI.speed);
            for (k, v) in [("chains", 200), ("hidden", 2 * hidden - 2), ("k", 2)] {
                let c = cfg(&[
                    ("chains", 100.into()),
                    ("hidden", hidden.into()),
                    (k, v.into()),
                ]);
                assert!(update_secs(&c, &bas, algo, &CLI.speed) > t0, "{k}");
                assert!(lane_bytes(&c, &bas, algo, true) >= b0, "{k}");
            }
        }
        assert!(exact_secs(16, 17, 32, &CLI.speed) > exact_secs(16, 16, 32, &CLI.speed));
        assert!(exact_secs(17, 16, 32, &CLI.speed) > exact_secs(16, 16, 32, &CLI.speed));
        assert_eq!(bytes(256.0 * 1024.0 * 1024.0), "256 MiB");
        assert_eq!(bytes(1.5 * 1024.0 * 1024.0 * 1024.0), "1.5 GiB");
        assert_eq!(duration(21_000.0), "5.8 h");
        assert_eq!(duration(0.25), "0.2 s");
        assert_eq!(duration(2.0), "2 s");
    }

    #[test]
    fn ais_and_one_off_evaluations_have_budgets() {
        // The README's runs: 100 particles × 1000 β in the page, × 10 000 on the command line.
        check_ais(784, 500, 100, 1000, 1, &PAGE).unwrap();
        check_ais(784, 500, 100, 10_000, 1, &CLI).unwrap();
        let e = check_ais(784, 500, 100, 10_000_000, 1, &PAGE).unwrap_err();
        assert_eq!(e.key(), Some("betas"), "{e}");
        let e = check_ais(784, 4000, 100_000, 100, 1, &PAGE).unwrap_err();
        assert_eq!(e.key(), Some("particles"), "{e}");
        // Exact log Z of 784×20 is seconds; of 20×4 000 000, hours.
        let ll = "the exact log-likelihood";
        check_exact_job(ll, (784, 20), 10_000, 0.0, 1, &CLI).unwrap();
        let e = check_exact_job(ll, (20, 4_000_000), 10, 0.0, 1, &CLI).unwrap_err();
        assert!(e.to_string().contains("2^20 states × 4000000 units"), "{e}");
        // Threads share the enumeration.
        let one = check_exact_job(ll, (784, 20), 10, 0.0, 1, &CLI).unwrap();
        let four = check_exact_job(ll, (784, 20), 10, 0.0, 4, &CLI).unwrap();
        assert!(four < one / 3.0, "{one} {four}");
    }
}

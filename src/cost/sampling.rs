//! The cost of sampling a trained model — `rbm sample`'s stream, `rbm drift`'s self-test and
//! `rbm chain`'s exact walk — estimated from the sizes before anything runs and checked against
//! a shell's budget for one run ([`Budget::job_secs`]). What exceeds it is refused with an error
//! keyed by the flag that drives the excess: the one whose share of the cost is furthest above
//! its usual value, or the model itself when its enumeration alone is too long.
//!
//! Time counts weight visits and unit updates as for a lane's update (a step visits the rows of
//! W of the units on: the data's share of visible units, half of the hidden ones, in every m×n
//! array the sampler sums — [`crate::sampler::SamplerCost`]), and joint states for the exact
//! chain walk ([`Speed::joint_per_sec`]).

use super::{density, distribution_secs, duration, log_z_secs, rows_secs, Budget, Speed};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::eval::chain::{check_walk, DEFAULT_SWEEPS};
use crate::model::Rbm;
use crate::sampler::drift::{self, DEFAULT_CHAINS, DEFAULT_STEPS};
use crate::sampler::{self, SamplerConfig, DEFAULT_SAMPLES};

/// Share of hidden units on in a chain (as for a lane's update).
const HIDDEN_ON: f64 = 0.5;

/// Weight visits one copied weight counts (a copy streams memory where a visit adds from the
/// cache).
const COPY_VISITS: f64 = 4.0;

/// Weight visits one 64-bit word of a Hamming distance counts (the class of each sample's
/// nearest training row, with labelled rates data): 0.27 ns a word measured natively.
const WORD_VISITS: f64 = 4.0;

/// Joint-state equivalents of each state of either layer in a chain sweep (a row of
/// conditionals turned into the probabilities of every state of the other layer): fitted to
/// sweeps of 1×23 and 20×4 models.
const SWEEP_ROW_STATES: f64 = 8.0;

/// Seconds of one emitted sample of sampler `cfg` on an m×n model whose chain keeps about
/// `density` of the visible units on: its steps, and for the fast-parameter samplers the update
/// of θ_F.
pub fn sample_secs(
    m: usize,
    n: usize,
    density: f64,
    cfg: &SamplerConfig,
    speed: &Speed,
) -> Result<f64> {
    let c = sampler::find(&cfg.sampler)?.cost;
    let (steps, _) = (c.steps)(cfg);
    let (mf, nf) = (m as f64, n as f64);
    let mut visits = steps * c.weight_sets * mf * nf * (density + HIDDEN_ON);
    let mut units = steps * (mf + nf);
    if c.fast_update {
        // E[h|x⁻] under θ⁻, then the active rows of W_F and of its transpose.
        visits += (c.weight_sets + 2.0) * mf * nf * density;
        units += mf + 2.0 * nf;
    }
    Ok(visits / speed.visits_per_sec + units / speed.units_per_sec)
}

/// Seconds of p(v) of an m×n model: its log Z, then every visible pattern.
fn p_secs(m: usize, n: usize, speed: &Speed) -> f64 {
    log_z_secs(m, n, speed) + distribution_secs(m, n, speed)
}

/// Seconds a chain of `cfg` takes to start on an m×n model (its copies of W).
fn start_secs(m: usize, n: usize, cfg: &SamplerConfig, speed: &Speed) -> Result<f64> {
    let c = sampler::find(&cfg.sampler)?.cost;
    Ok(c.build_sets * m as f64 * n as f64 * COPY_VISITS / speed.visits_per_sec)
}

/// Seconds of the rates R of `data` under a model with `n` hidden units: E[h|v] and the
/// statistics of every row.
fn rates_secs(n: usize, data: &Dataset, speed: &Speed) -> f64 {
    2.0 * rows_secs(data.m, n, data.rows(), speed)
}

/// "10000 Gibbs sweeps each", "up to 10000 fixed-point steps each": the steps of a sample.
fn steps_text(cfg: &SamplerConfig) -> Result<String> {
    let (_, key) = (sampler::find(&cfg.sampler)?.cost.steps)(cfg);
    Ok(match key {
        "cap" => format!("up to {} fixed-point steps each", cfg.cap),
        _ if cfg.k == 1 => "1 Gibbs sweep each".into(),
        _ => format!("{} Gibbs sweeps each", cfg.k),
    })
}

/// A flag that may drive a run's cost: its key, how a message names it, its value as given,
/// and its share of the cost relative to its usual value.
struct Culprit {
    key: &'static str,
    label: &'static str,
    value: String,
    ratio: f64,
}

/// The option that sets the steps of a sample, as a culprit: its cost relative to the
/// sampler's default steps (rates-herding's cap counts as far as its usual search length).
fn steps_culprit(cfg: &SamplerConfig) -> Result<Culprit> {
    let steps = sampler::find(&cfg.sampler)?.cost.steps;
    let (now, key) = steps(cfg);
    let usual = SamplerConfig {
        sampler: cfg.sampler.clone(),
        ..SamplerConfig::default()
    };
    let value = if key == "cap" { cfg.cap } else { cfg.k };
    Ok(Culprit {
        key,
        label: sampler::OPTIONS
            .iter()
            .find(|o| o.key == key)
            .map_or(key, |o| o.label),
        value: value.to_string(),
        ratio: now / steps(&usual).0.max(1.0),
    })
}

/// A count as a culprit: `value` against its `usual` value.
fn count(key: &'static str, label: &'static str, value: usize, usual: usize) -> Culprit {
    Culprit {
        key,
        label,
        value: value.to_string(),
        ratio: value as f64 / usual.max(1) as f64,
    }
}

/// The refusal of `what` (e.g. "1000 samples with … on the 784×500 model"), estimated at
/// `secs`, keyed by the candidate furthest above its usual value.
fn refuse(what: &str, secs: f64, budget: &Budget, candidates: &[Culprit]) -> Error {
    let c = candidates
        .iter()
        .max_by(|a, b| a.ratio.total_cmp(&b.ratio))
        .expect("at least one candidate");
    Error::option(
        c.key,
        format!(
            "{what} would take about {} (estimated), over the {} {} allows for one run; lower \
             the {} (now {})",
            duration(secs),
            duration(budget.job_secs),
            budget.place,
            c.label,
            c.value
        ),
    )
}

/// The refusal of a model whose enumeration alone (`what`, "p(v) of the 20×800000 model")
/// takes `secs`, over the budget: keyed `model`.
fn refuse_model(what: &str, secs: f64, budget: &Budget) -> Error {
    Error::option(
        "model",
        format!(
            "{what} would take about {} (estimated), over the {} {} allows for one run; use a \
             model with fewer units",
            duration(secs),
            duration(budget.job_secs),
            budget.place
        ),
    )
}

/// Refuses an `rbm sample` run that would take longer than `budget.job_secs`: the rates of
/// `data` (when the sampler needs them), then `samples` samples of `cfg` on an m×n model, each
/// also classed by its nearest row of `data` when `classes`. Keyed `samples` or the option that
/// sets the steps of a sample (`k`, rates-herding's `cap`), whichever is further above its
/// default; returns the estimated seconds.
pub fn check_sample(
    (m, n): (usize, usize),
    data: &Dataset,
    cfg: &SamplerConfig,
    samples: u64,
    classes: bool,
    budget: &Budget,
) -> Result<f64> {
    let speed = &budget.speed;
    let info = sampler::find(&cfg.sampler)?;
    let words = data.rows() as f64 * m.div_ceil(64) as f64;
    let per_sample = sample_secs(m, n, density(data), cfg, speed)?
        + f64::from(u8::from(classes)) * words * WORD_VISITS / speed.visits_per_sec;
    let rates = if info.needs_rates {
        rates_secs(n, data, speed)
    } else {
        0.0
    };
    let secs = rates + start_secs(m, n, cfg, speed)? + samples as f64 * per_sample;
    if secs <= budget.job_secs {
        return Ok(secs);
    }
    let what = format!(
        "{samples} samples with {} on the {m}×{n} model",
        steps_text(cfg)?
    );
    let samples = Culprit {
        key: "samples",
        label: "samples",
        value: samples.to_string(),
        ratio: samples as f64 / DEFAULT_SAMPLES as f64,
    };
    Err(refuse(&what, secs, budget, &[samples, steps_culprit(cfg)?]))
}

/// Refuses an `rbm drift` run beyond the self-test's limits ([`drift::check_request`]) or one
/// that would take longer than `budget.job_secs`: p(v) of the m×n `model` enumerated, the rates
/// of `data` when given, then `chains` chains of `cfg` started and run to the largest of
/// `steps` emitted samples. Keyed `model` when the enumeration alone is too long, else `chains`,
/// `steps` or the option that sets the steps of a sample, whichever is furthest above its
/// default; returns the estimated seconds.
pub fn check_drift(
    model: &Rbm,
    data: Option<&Dataset>,
    cfg: &SamplerConfig,
    steps: &[usize],
    chains: usize,
    budget: &Budget,
) -> Result<f64> {
    let last = drift::check_request(model, cfg, steps, chains)?
        .last()
        .copied()
        .unwrap_or(0);
    let (m, n) = (model.m(), model.n());
    let speed = &budget.speed;
    let p = p_secs(m, n, speed);
    if p > budget.job_secs {
        let what = format!("p(v) of the {m}×{n} model (2^{m} states × {n} units)");
        return Err(refuse_model(&what, p, budget));
    }
    let rates = data.map_or(0.0, |d| rates_secs(n, d, speed));
    let dv = data.map_or(HIDDEN_ON, density);
    let per_chain =
        start_secs(m, n, cfg, speed)? + last as f64 * sample_secs(m, n, dv, cfg, speed)?;
    let secs = p + rates + chains as f64 * per_chain;
    if secs <= budget.job_secs {
        return Ok(secs);
    }
    let what = format!(
        "{chains} chains × {last} samples with {} on the {m}×{n} model",
        steps_text(cfg)?
    );
    let usual_last = DEFAULT_STEPS.iter().copied().max().unwrap_or(1);
    let candidates = [
        count("chains", "chains", chains, DEFAULT_CHAINS),
        count("steps", "emitted samples (--steps)", last, usual_last),
        steps_culprit(cfg)?,
    ];
    Err(refuse(&what, secs, budget, &candidates))
}

/// Refuses an `rbm chain` walk beyond the walk's limits ([`check_walk`]) or one that would take
/// longer than `budget.job_secs`: p(v) of the m×n
/// model, the conditionals of every state of either layer, then `k_max` exact sweeps over the
/// 2^(m+n) joint states. Keyed `model` when what comes before the sweeps is too long, else
/// `k_max`; returns the estimated seconds.
pub fn check_chain(m: usize, n: usize, k_max: usize, budget: &Budget) -> Result<f64> {
    check_walk(m, n, k_max)?;
    let speed = &budget.speed;
    let (sv, sh) = ((m as f64).exp2(), (n as f64).exp2());
    let (mf, nf) = (m as f64, n as f64);
    let setup = p_secs(m, n, speed) + (sv + sh) * mf * nf / speed.joint_per_sec;
    if setup > budget.job_secs {
        let what = format!("p(v) and the conditionals of the {m}×{n} model");
        return Err(refuse_model(&what, setup, budget));
    }
    let sweep = (sv * sh + SWEEP_ROW_STATES * (sv + sh)) / speed.joint_per_sec;
    let secs = setup + k_max as f64 * sweep;
    if secs <= budget.job_secs {
        return Ok(secs);
    }
    let what = format!(
        "{k_max} exact sweeps over the 2^{} joint states of the {m}×{n} model",
        m + n
    );
    let sweeps = count("k_max", "sweeps (--k-max)", k_max, DEFAULT_SWEEPS);
    Err(refuse(&what, secs, budget, &[sweeps]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::CLI;

    fn cfg(sampler: &str, k: usize, cap: usize) -> SamplerConfig {
        SamplerConfig {
            sampler: sampler.into(),
            k,
            cap,
            ..SamplerConfig::default()
        }
    }

    use super::super::tests::grey;

    #[test]
    fn the_sweeps_long_samples_are_refused_naming_the_culprit() {
        let mnist = grey(784, 8000);
        // The defaults on MNIST: seconds.
        let secs = check_sample((784, 500), &mnist, &cfg("gibbs", 1, 10), 10_000, true, &CLI);
        assert!(secs.unwrap() < 60.0);
        // 10^7 samples × 10^4 sweeps: k is furthest above its default.
        let e = check_sample(
            (784, 500),
            &mnist,
            &cfg("gibbs", 10_000, 10),
            10_000_000,
            true,
            &CLI,
        )
        .unwrap_err();
        assert_eq!(e.key(), Some("k"), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("10000000 samples with 10000 Gibbs sweeps each on the 784×500 model")
                && msg.contains("the command line")
                && msg.contains("(now 10000)"),
            "{msg}"
        );
        // Rates-herding with a cap of 10^4: the cap counts as far as the usual search, so the
        // 10^7 samples are blamed.
        let herding = cfg("rates-herding", 1, 10_000);
        let e = check_sample((784, 500), &mnist, &herding, 10_000_000, true, &CLI).unwrap_err();
        assert_eq!(e.key(), Some("samples"), "{e}");
        assert!(
            e.to_string().contains("up to 10000 fixed-point steps"),
            "{e}"
        );
        // A fast-parameter sampler costs more than Gibbs; more steps cost more.
        let speed = &CLI.speed;
        let gibbs = sample_secs(784, 500, 0.13, &cfg("gibbs", 1, 10), speed).unwrap();
        let fpcd = sample_secs(784, 500, 0.13, &cfg("rates-fpcd", 1, 10), speed).unwrap();
        assert!(fpcd > gibbs);
        assert!(sample_secs(784, 500, 0.13, &cfg("gibbs", 2, 10), speed).unwrap() > gibbs);
    }

    #[test]
    fn drift_and_chain_have_budgets() {
        let bas = Dataset::builtin("bas4").unwrap();
        // The defaults on a 16×16 model: well within.
        let c = cfg("gibbs", 1, 10);
        let steps = DEFAULT_STEPS;
        let model = |m, n| Rbm::zeros(m, n).unwrap();
        let small = model(16, 16);
        assert!(check_drift(&small, Some(&bas), &c, &steps, 20_000, &CLI).unwrap() < 10.0);
        // p(v) of 20×800 000: 2^20 states × 800 000 units, hours: the model is blamed.
        let e = check_drift(&model(20, 800_000), None, &c, &steps, 20_000, &CLI).unwrap_err();
        assert_eq!(e.key(), Some("model"), "{e}");
        assert!(e.to_string().contains("2^20 states × 800000 units"), "{e}");
        // 20 000 chains × 10^4 samples on 20×4000: the samples are furthest above their
        // default.
        let e = check_drift(&model(20, 4000), None, &c, &[10_000], 20_000, &CLI).unwrap_err();
        assert_eq!(e.key(), Some("steps"), "{e}");
        // The chain walk: 10^4 sweeps of 2^24 joint states fit the hour, not a minute.
        let walk = check_chain(1, 23, 10_000, &CLI).unwrap();
        assert!(walk > 60.0, "{walk}");
        let minute = Budget {
            job_secs: 60.0,
            ..CLI
        };
        let e = check_chain(1, 23, 10_000, &minute).unwrap_err();
        assert_eq!(e.key(), Some("k_max"), "{e}");
        assert!(e
            .to_string()
            .contains("10000 exact sweeps over the 2^24 joint states"));
        assert!(check_chain(4, 4, 50, &minute).unwrap() < 0.01);
    }
}

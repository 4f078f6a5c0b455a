//! The no-drift self-test of a sampler (RestrictedBoltzmannMachines.jl's sampler tests;
//! docs/algorithms.md §7): on a model small enough to enumerate, start C chains at exact draws
//! from p(v), apply the sampler for t emitted samples, and measure the total-variation distance
//! between the C end states and p. A correct MCMC kernel leaves p invariant, so its distance
//! stays at the Monte-Carlo floor — the distance of C fresh exact draws from p; a biased
//! sampler (rates-FPCD, herding, SP trade exactness for mixing) leaves it.

use super::SamplerConfig;
use crate::data::{decode, encode, Dataset};
use crate::error::{Error, Result};
use crate::eval::exact::model_distribution;
use crate::model::{Params, Rbm};
use crate::rng::{stream, uniform_f64, Purpose, Rng};
use serde::Serialize;

/// Chains of one test unless told.
pub const DEFAULT_CHAINS: usize = 20_000;
/// Emitted samples after which a test measures, unless told.
pub const DEFAULT_STEPS: [usize; 3] = [1, 4, 16];
/// Most chains of one test.
pub const MAX_CHAINS: usize = 1_000_000;
/// Most chains × emitted samples × k of one test.
pub const MAX_WORK: u128 = 1 << 32;
/// Independent sets of exact draws that estimate the Monte-Carlo floor.
pub const FLOOR_REPS: usize = 20;

/// The distance to p after `steps` emitted samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DriftPoint {
    /// Emitted samples since the exact start.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub steps: usize,
    /// TV(empirical law of the C chains, p).
    pub tv: f64,
    /// Mean TV of C fresh exact draws from p ([`FLOOR_REPS`] sets): where a correct sampler
    /// stays.
    pub noise_floor: f64,
    /// Standard deviation of that TV across the sets.
    pub noise_sd: f64,
}

/// Exact draws from a distribution over 2^m patterns by inversion of its cumulative sums.
pub(crate) struct ExactDraws {
    cdf: Vec<f64>,
}

impl ExactDraws {
    pub(crate) fn new(p: &[f64]) -> ExactDraws {
        let mut acc = 0.0;
        let cdf = p
            .iter()
            .map(|&x| {
                acc += x;
                acc
            })
            .collect();
        ExactDraws { cdf }
    }

    pub(crate) fn draw(&self, rng: &mut Rng) -> u64 {
        let total = *self.cdf.last().expect("at least one state");
        let u = uniform_f64(rng) * total;
        self.cdf
            .partition_point(|&c| c <= u)
            .min(self.cdf.len() - 1) as u64
    }
}

/// Total variation ½ Σ |counts/C − p|.
pub(crate) fn tv(counts: &[u32], chains: usize, p: &[f64]) -> f64 {
    let c = chains as f64;
    0.5 * counts
        .iter()
        .zip(p)
        .map(|(&k, &q)| (k as f64 / c - q).abs())
        .sum::<f64>()
}

/// Checks a self-test of the sampler `cfg` on `model` against the limits ([`MAX_CHAINS`],
/// [`MAX_WORK`], p(v) enumerable); returns `steps` sorted, without repeats.
pub fn check_request(
    model: &Rbm,
    cfg: &SamplerConfig,
    steps: &[usize],
    chains: usize,
) -> Result<Vec<usize>> {
    cfg.validate()?;
    if !(1..=MAX_CHAINS).contains(&chains) {
        return Err(Error::InvalidOption {
            key: "chains".into(),
            message: format!("the number of chains must be between 1 and {MAX_CHAINS}"),
        });
    }
    let mut steps: Vec<usize> = steps.to_vec();
    steps.sort_unstable();
    steps.dedup();
    let last = *steps.last().ok_or_else(|| Error::InvalidOption {
        key: "steps".into(),
        message: "give at least one number of steps".into(),
    })?;
    let per_sample = (cfg.k.max(cfg.cap)) as u128;
    if chains as u128 * last as u128 * per_sample > MAX_WORK {
        return Err(Error::TooLarge(format!(
            "{chains} chains × {last} samples × {per_sample} steps exceed the limit of {MAX_WORK} chain steps; use fewer chains or steps"
        )));
    }
    crate::eval::exact::check_distribution(model.m())?;
    Ok(steps)
}

/// Runs the self-test of the sampler `cfg` on `model` (m ≤ 20 visible units): `chains` chains
/// from exact draws, distances after each of `steps` emitted samples (any order), seeded.
pub fn drift(
    model: &Rbm,
    rates: Option<&Params<f32>>,
    cfg: &SamplerConfig,
    steps: &[usize],
    chains: usize,
    seed: u64,
) -> Result<Vec<DriftPoint>> {
    drift_observed(model, rates, cfg, steps, chains, seed, &mut |_| {})
}

/// [`drift`], calling `on_chain` with the number of chains run so far after each one (a shell's
/// progress report; the results do not depend on it).
pub fn drift_observed(
    model: &Rbm,
    rates: Option<&Params<f32>>,
    cfg: &SamplerConfig,
    steps: &[usize],
    chains: usize,
    seed: u64,
    on_chain: &mut dyn FnMut(usize),
) -> Result<Vec<DriftPoint>> {
    let steps = check_request(model, cfg, steps, chains)?;
    let p = model_distribution(model)?;
    let exact = ExactDraws::new(&p);
    let m = model.m();
    let mut starts = stream(seed, 0, Purpose::Aux);
    let mut rng = stream(seed, 1, Purpose::Sampling);
    let mut counts = vec![vec![0u32; p.len()]; steps.len()];
    for chain in 0..chains {
        let start = decode(exact.draw(&mut starts), m);
        let mut s = cfg.build(model, rates, &start)?;
        let mut done = 0;
        for (t, &target) in steps.iter().enumerate() {
            while done < target {
                s.next(&mut rng);
                done += 1;
            }
            counts[t][encode(s.visible()) as usize] += 1;
        }
        on_chain(chain + 1);
    }
    Ok(points(&p, &exact, &steps, &counts, chains, seed))
}

/// The distances of the end states' `counts` after each of `steps` from p, beside the floor of
/// `chains` fresh exact draws ([`FLOOR_REPS`] sets from the seed's own stream).
fn points(
    p: &[f64],
    exact: &ExactDraws,
    steps: &[usize],
    counts: &[Vec<u32>],
    chains: usize,
    seed: u64,
) -> Vec<DriftPoint> {
    let mut floor_rng = stream(seed, 2, Purpose::Aux);
    let floors: Vec<f64> = (0..FLOOR_REPS)
        .map(|_| {
            let mut c = vec![0u32; p.len()];
            for _ in 0..chains {
                c[exact.draw(&mut floor_rng) as usize] += 1;
            }
            tv(&c, chains, p)
        })
        .collect();
    let mean = floors.iter().sum::<f64>() / FLOOR_REPS as f64;
    let sd =
        (floors.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (FLOOR_REPS - 1) as f64).sqrt();
    steps
        .iter()
        .zip(counts)
        .map(|(&steps, c)| DriftPoint {
            steps,
            tv: tv(c, chains, p),
            noise_floor: mean,
            noise_sd: sd,
        })
        .collect()
}

/// [`drift`] of Gibbs on engine `E` ([`super::engine`]): the chains start at the same exact
/// draws as [`drift`]'s and sweep as one batch of the engine (a GPU job), with the engine's
/// draws (stream (`seed`, 1) of `E`), so the distances are the engine's own. The fast-parameter
/// samplers are one chain each (their θ_F is the chain's own): an error here.
pub fn drift_on<E: super::engine::SamplerEngine>(
    dev: &E::Device,
    model: &Rbm,
    cfg: &SamplerConfig,
    steps: &[usize],
    chains: usize,
    seed: u64,
) -> Result<Vec<DriftPoint>> {
    let steps = check_request(model, cfg, steps, chains)?;
    if cfg.sampler != "gibbs" {
        return Err(Error::InvalidOption {
            key: "sampler".into(),
            message: format!(
                "on this engine the self-test batches Gibbs chains; {} runs one chain with its \
                 own fast parameters (test it on the CPU)",
                cfg.sampler
            ),
        });
    }
    let p = model_distribution(model)?;
    let exact = ExactDraws::new(&p);
    let m = model.m();
    let mut starts = stream(seed, 0, Purpose::Aux);
    let rows: Vec<f32> = (0..chains)
        .flat_map(|_| decode(exact.draw(&mut starts), m))
        .collect();
    let mut s = super::engine::EngineSampler::<E>::new(dev, model, cfg, None, &rows, seed, 1)?;
    let mut counts = vec![vec![0u32; p.len()]; steps.len()];
    let mut done = 0;
    for (t, &target) in steps.iter().enumerate() {
        while done < target {
            s.next();
            done += 1;
        }
        for row in s.states().chunks_exact(m) {
            counts[t][encode(row) as usize] += 1;
        }
    }
    Ok(points(&p, &exact, &steps, &counts, chains, seed))
}

/// The self-test's default model: Bars & Stripes 4×4 with 16 hidden units after 1 000 PCD-1
/// updates (100 chains, η 0.1, seeded) — trained enough to be peaked, small enough (2^16
/// visible states) to enumerate — with its training set for the rates.
pub fn self_test_model(seed: u64) -> Result<(Rbm, Dataset)> {
    let data = std::sync::Arc::new(Dataset::builtin("bas4")?);
    let cfg = crate::train::LaneConfig {
        algo: "pcd".into(),
        hidden: 16,
        lr: 0.1,
        chains: Some(100),
        seed: Some(seed),
        every: 1_000,
        ..Default::default()
    };
    let mut lane = crate::train::Lane::new(cfg, data.clone())?;
    lane.run(1_000)?;
    Ok((lane.model().clone(), (*data).clone()))
}

/// One sampler's self-test result.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SelfTest {
    /// The sampler.
    pub sampler: String,
    /// Its distances after each number of steps.
    pub points: Vec<DriftPoint>,
    /// Whether every distance is within 4 standard deviations of the floor.
    pub at_floor: bool,
}

/// Runs the self-test of each of `configs` on [`self_test_model`]: `chains` chains, distances
/// after 1, 4 and 16 samples.
pub fn self_test(configs: &[SamplerConfig], chains: usize, seed: u64) -> Result<Vec<SelfTest>> {
    let (model, data) = self_test_model(seed)?;
    let mut rng = stream(seed, 0, Purpose::Data);
    let rates = super::rates(&model, &data, crate::data::Binarize::Sample, &mut rng)?;
    configs
        .iter()
        .map(|c| {
            let points = drift(&model, Some(&rates), c, &[1, 4, 16], chains, seed)?;
            Ok(SelfTest {
                sampler: c.sampler.clone(),
                at_floor: points
                    .iter()
                    .all(|p| p.tv <= p.noise_floor + 4.0 * p.noise_sd),
                points,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::rates;

    fn trained_like() -> Rbm {
        // A peaked model (weights of scale 1.5) where a biased sampler visibly drifts.
        Rbm::random(9, 6, 1.5, 11).unwrap()
    }

    fn cfg(name: &str, eps_f: Option<f64>) -> SamplerConfig {
        SamplerConfig {
            sampler: name.into(),
            eps_f,
            ..SamplerConfig::default()
        }
    }

    /// Gibbs leaves p invariant: started at exact draws it stays at the Monte-Carlo floor.
    #[test]
    fn gibbs_stays_at_the_noise_floor() {
        let model = trained_like();
        for seed in 1..=3 {
            let pts = drift(&model, None, &cfg("gibbs", None), &[1, 4, 16], 4000, seed).unwrap();
            for p in &pts {
                assert!(
                    p.tv < p.noise_floor + 4.0 * p.noise_sd,
                    "seed {seed}: {p:?} drifted"
                );
            }
        }
    }

    /// Gibbs chains batched on an engine (here the CPU engine) stay at the floor too; the
    /// fast-parameter samplers are refused there.
    #[test]
    fn gibbs_chains_on_an_engine_stay_at_the_noise_floor() {
        let model = trained_like();
        for seed in 1..=3 {
            let pts = drift_on::<crate::engine::Cpu>(
                &(),
                &model,
                &cfg("gibbs", None),
                &[1, 4, 16],
                4000,
                seed,
            )
            .unwrap();
            for p in &pts {
                assert!(
                    p.tv < p.noise_floor + 4.0 * p.noise_sd,
                    "seed {seed}: {p:?} drifted"
                );
            }
        }
        let e = drift_on::<crate::engine::Cpu>(&(), &model, &cfg("sp", None), &[1], 10, 1);
        assert!(matches!(e, Err(Error::InvalidOption { ref key, .. }) if key == "sampler"));
    }

    /// The floor is what C exact draws give, and a sampler that is wrong by construction
    /// (herding from exact starts, a strong fast step) is far above it.
    #[test]
    fn biased_samplers_leave_the_floor() {
        let model = trained_like();
        let data = Dataset::builtin("bas3").unwrap();
        let r = rates(
            &model,
            &data,
            crate::data::Binarize::Sample,
            &mut stream(1, 0, Purpose::Aux),
        )
        .unwrap();
        for name in ["rates-herding", "rates-fpcd"] {
            let pts = drift(&model, Some(&r), &cfg(name, Some(0.5)), &[16], 4000, 1).unwrap();
            assert!(
                pts[0].tv > pts[0].noise_floor + 10.0 * pts[0].noise_sd,
                "{name}: {pts:?}"
            );
        }
        // The floor shrinks like 1/√C.
        let small = drift(&model, None, &cfg("gibbs", None), &[1], 400, 1).unwrap();
        let big = drift(&model, None, &cfg("gibbs", None), &[1], 40_000, 1).unwrap();
        let ratio = small[0].noise_floor / big[0].noise_floor;
        assert!((6.0..14.0).contains(&ratio), "{ratio}");
    }

    /// The page's self-test: on the trained BAS model Gibbs is at the floor, the fast-weight
    /// samplers at their defaults are not.
    #[test]
    fn the_self_test_separates_gibbs_from_the_fast_samplers() {
        let configs: Vec<SamplerConfig> = crate::sampler::SAMPLERS
            .iter()
            .map(|s| cfg(s.name, (s.name != "gibbs").then_some(0.05)))
            .collect();
        let r = self_test(&configs, 20_000, 2).unwrap();
        assert!(r[0].at_floor, "{:?}", r[0]);
        assert!(r[1..].iter().all(|t| !t.at_floor), "{r:?}");
    }

    #[test]
    fn bad_requests_name_the_option() {
        let model = trained_like();
        let e = drift(&model, None, &cfg("gibbs", None), &[], 10, 1).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { ref key, .. } if key == "steps"));
        let e = drift(&model, None, &cfg("gibbs", None), &[1], 0, 1).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { ref key, .. } if key == "chains"));
        assert!(drift(
            &Rbm::random(30, 2, 1.0, 1).unwrap(),
            None,
            &cfg("gibbs", None),
            &[1],
            10,
            1
        )
        .is_err());
    }
}

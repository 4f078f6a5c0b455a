//! The estimator bench (docs/algorithms.md §7): on a model whose log Z is known exactly (§2),
//! the error of AIS's `log Ẑ` and of AIS's and RAISE's average log-likelihood (ATLL) against
//! the exact values, over `runs` independent runs per setting (a method and a β schedule), with
//! the compute of each run counted in Gibbs sweeps, `particles × (betas − 1)`, so that errors
//! can be drawn against compute (the comparison Salakhutdinov & Murray 2008, §4.2, make of
//! schedules, and Burda et al. 2015, §5, of AIS and RAISE).
//!
//! Run `r` of every setting uses the seed [`run_seed`]`(seed, r)`, so a seed gives the same
//! bench on any number of threads or devices that give the same runs; a shell runs the
//! [`Plan`]s ([`Setting::plan`]) as it runs `rbm ais` and hands the results to [`summarize`].
//! [`bench`] does it all on one thread.
//!
//! The third estimator is the Bennett acceptance ratio between the neighbouring temperatures of
//! a parallel-tempering run ([`super::bar`]), its compute `chains × temperatures × rounds` Gibbs
//! sweeps (burn-in included).

use super::ais::{AisConfig, AisResult, Plan, Schedule, SM2008_BETAS};
use super::bar::{bar_log_z, BarConfig};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::Rbm;
use crate::rng::{stream, Purpose};
use rand::Rng as _;
use serde::Serialize;

/// The tag in the lane of the stream that derives the runs' seeds (`"EST"` in ASCII, shifted
/// above any run index).
pub const LANE_TAG: u64 = 0x0045_5354 << 32;

/// Most runs per setting.
pub const MAX_RUNS: usize = 10_000;

/// Most β counts in one bench.
pub const MAX_SETTINGS: usize = 64;

/// The estimators the bench compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Forward AIS (Salakhutdinov & Murray 2008): `log Ẑ` (an under-estimate on average) and
    /// the ATLL it implies (an over-estimate on average).
    Ais,
    /// Reverse AIS (Burda, Grosse & Salakhutdinov 2015): a stochastic lower bound of the ATLL.
    Raise,
    /// The Bennett acceptance ratio over a parallel-tempering ladder from β = 1 to 0
    /// ([`super::bar`]): `log Ẑ` and the ATLL it implies.
    BarPt,
}

impl Method {
    /// `"ais"` or `"raise"`, as [`AisResult::method`].
    pub fn name(self) -> &'static str {
        match self {
            Method::Ais => "ais",
            Method::Raise => "raise",
            Method::BarPt => super::bar::METHOD,
        }
    }
}

/// One setting of the bench: a method with a number of β and their spacing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// AIS, RAISE or BAR.
    pub method: Method,
    /// How the β are spaced.
    pub schedule: Schedule,
    /// Number of β, 0 and 1 included ([`SM2008_BETAS`] for Salakhutdinov & Murray's); BAR:
    /// its temperatures.
    pub betas: usize,
    /// BAR: rounds of samples (a multiple of [`super::bar::BATCHES`]), after a fifth as many
    /// rounds of burn-in; 0 for AIS and RAISE.
    pub rounds: usize,
}

impl Setting {
    /// The settings of a bench: for each method (AIS, then RAISE), each linear β count of
    /// `linear`, then Salakhutdinov & Murray's schedule when `sm2008`.
    pub fn all(linear: &[usize], sm2008: bool) -> Vec<Setting> {
        let mut out = Vec::new();
        for method in [Method::Ais, Method::Raise] {
            for &betas in linear {
                out.push(Setting {
                    method,
                    schedule: Schedule::Linear,
                    betas,
                    rounds: 0,
                });
            }
            if sm2008 {
                out.push(Setting {
                    method,
                    schedule: Schedule::SalakhutdinovMurray,
                    betas: SM2008_BETAS,
                    rounds: 0,
                });
            }
        }
        out
    }

    /// BAR over `temperatures` evenly spaced from β = 1 to 0, with `rounds` rounds of samples.
    pub fn bar(temperatures: usize, rounds: usize) -> Setting {
        Setting {
            method: Method::BarPt,
            schedule: Schedule::Linear,
            betas: temperatures,
            rounds,
        }
    }

    /// The AIS or RAISE run of this setting with `particles` chains and seed `seed` on `data`
    /// (BAR has none: [`Setting::run`] runs it).
    pub fn plan(&self, rbm: &Rbm, data: &Dataset, particles: usize, seed: u64) -> Result<Plan> {
        let cfg = self.config(particles, seed);
        match self.method {
            Method::Ais => Plan::ais(rbm, data, None, cfg),
            Method::Raise => Plan::raise(rbm, data, None, cfg),
            Method::BarPt => Err(Error::Invalid(
                "BAR runs over parallel tempering, not an AIS plan".into(),
            )),
        }
    }

    /// BAR's run with `particles` chains per temperature and seed `seed`.
    pub fn bar_config(&self, particles: usize, seed: u64) -> BarConfig {
        BarConfig {
            chains: particles,
            temperatures: self.betas,
            rounds: self.rounds,
            burn_in: self.rounds / 5,
            seed,
        }
    }

    /// One run of this setting on this thread.
    pub fn run(&self, rbm: &Rbm, data: &Dataset, particles: usize, seed: u64) -> Result<AisResult> {
        match self.method {
            Method::BarPt => bar_log_z(rbm, data, &self.bar_config(particles, seed)),
            _ => self.plan(rbm, data, particles, seed)?.run(),
        }
    }

    /// The configuration of one run.
    pub fn config(&self, particles: usize, seed: u64) -> AisConfig {
        AisConfig {
            particles,
            betas: self.betas,
            seed,
            schedule: self.schedule,
        }
    }

    /// Gibbs sweeps of one run: `particles × (betas − 1)` (one transition per chain and
    /// intermediate distribution, counting the last ratio as one); BAR: `particles ×
    /// temperatures × (burn-in + rounds)`.
    pub fn sweeps(&self, particles: usize) -> u64 {
        match self.method {
            Method::BarPt => self.bar_config(particles, 0).sweeps(),
            _ => particles as u64 * (self.betas as u64 - 1),
        }
    }
}

/// The seed of run `run` of a bench seeded `seed`: a draw from the `Aux` stream of `seed` in
/// lane [`LANE_TAG`] | `run`, below 2^53 (so the page could replay it).
pub fn run_seed(seed: u64, run: usize) -> u64 {
    stream(seed, LANE_TAG | run as u64, Purpose::Aux).next_u64() & crate::schema::options::MAX_SEED
}

/// The exact values the runs are judged against.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Exact {
    /// Exact log Z (§2's enumeration).
    pub log_z: f64,
    /// Exact ATLL of the evaluated rows (the data, thresholded at 0.5 when grey, as AIS
    /// evaluates them).
    pub atll: f64,
}

/// One line of the bench: a setting's runs against the exact values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// `"ais"`, `"raise"` or `"bar-pt"`.
    pub method: &'static str,
    /// How the β were spaced (`linear`, `sm2008`).
    pub schedule: &'static str,
    /// Number of β, 0 and 1 included (BAR: its temperatures).
    pub betas: usize,
    /// BAR only: rounds of samples per run (after a fifth as many of burn-in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<usize>,
    /// Chains per run (BAR: per temperature).
    pub particles: usize,
    /// Gibbs sweeps per run ([`Setting::sweeps`]).
    pub sweeps: u64,
    /// Number of runs.
    pub runs: usize,
    /// Exact log Z.
    pub exact_log_z: f64,
    /// Exact ATLL.
    pub exact_atll: f64,
    /// AIS and BAR (null for RAISE): mean over the runs of `log Ẑ − exact log Z` (negative on
    /// average for AIS: it under-estimates log Z).
    pub log_z_error_mean: Option<f64>,
    /// AIS and BAR: the standard deviation (over runs, n − 1) of that error.
    pub log_z_error_sd: Option<f64>,
    /// Mean over the runs of `ATLL − exact ATLL` (AIS: positive on average; RAISE: negative
    /// on average once the annealing has equilibrated, docs/algorithms.md §7).
    pub atll_error_mean: f64,
    /// The standard deviation (over runs, n − 1) of that error.
    pub atll_error_sd: f64,
    /// The fraction of runs whose ±3σ bar on the ATLL, `[atll_lo, atll_hi]`, contains the exact
    /// ATLL (for AIS the same as its log Z bar containing the exact log Z).
    pub covered: f64,
    /// Each run's seed ([`run_seed`]).
    pub seeds: Vec<u64>,
    /// Each run's log Z (AIS: `log Ẑ`; RAISE: the log Z its bound implies).
    pub log_z: Vec<f64>,
    /// Each run's ATLL.
    pub atll: Vec<f64>,
    /// Each run's ATLL bar, `[lo, hi]` (a lower end of −∞ is JSON `null`).
    pub atll_bar: Vec<[f64; 2]>,
}

/// Mean and standard deviation (n − 1; 0 for one value) of `xs`.
fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let ss = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>();
    (mean, (ss / (n - 1.0)).sqrt())
}

/// The line of `setting` from its runs' results (in run order).
pub fn summarize(setting: &Setting, exact: Exact, results: &[AisResult]) -> Result<Line> {
    let Some(first) = results.first() else {
        return Err(Error::option("runs", "the bench needs at least one run"));
    };
    let particles = first.particles;
    let atll_err: Vec<f64> = results.iter().map(|r| r.atll - exact.atll).collect();
    let (atll_error_mean, atll_error_sd) = mean_sd(&atll_err);
    let (log_z_error_mean, log_z_error_sd) = match setting.method {
        Method::Ais | Method::BarPt => {
            let e: Vec<f64> = results.iter().map(|r| r.log_z - exact.log_z).collect();
            let (m, s) = mean_sd(&e);
            (Some(m), Some(s))
        }
        Method::Raise => (None, None),
    };
    let inside = results
        .iter()
        .filter(|r| r.atll_lo <= exact.atll && exact.atll <= r.atll_hi)
        .count();
    Ok(Line {
        method: setting.method.name(),
        schedule: setting.schedule.name(),
        betas: setting.betas,
        rounds: (setting.method == Method::BarPt).then_some(setting.rounds),
        particles,
        sweeps: setting.sweeps(particles),
        runs: results.len(),
        exact_log_z: exact.log_z,
        exact_atll: exact.atll,
        log_z_error_mean,
        log_z_error_sd,
        atll_error_mean,
        atll_error_sd,
        covered: inside as f64 / results.len() as f64,
        seeds: results.iter().map(|r| r.seed).collect(),
        log_z: results.iter().map(|r| r.log_z).collect(),
        atll: results.iter().map(|r| r.atll).collect(),
        atll_bar: results.iter().map(|r| [r.atll_lo, r.atll_hi]).collect(),
    })
}

/// The whole bench on this thread: for each setting, `runs` runs of `particles` chains seeded
/// [`run_seed`]`(seed, r)`, summarised against `exact`.
pub fn bench(
    rbm: &Rbm,
    data: &Dataset,
    exact: Exact,
    settings: &[Setting],
    particles: usize,
    runs: usize,
    seed: u64,
) -> Result<Vec<Line>> {
    settings
        .iter()
        .map(|s| {
            let results = (0..runs)
                .map(|r| s.run(rbm, data, particles, run_seed(seed, r)))
                .collect::<Result<Vec<_>>>()?;
            summarize(s, exact, &results)
        })
        .collect()
}

/// The exact values for the bench from the exact `log_z` (§2's enumeration, [`super::exact`]):
/// with the exact ATLL of `data` (thresholded at 0.5 when grey, as AIS evaluates it).
pub fn exact_values(rbm: &Rbm, data: &Dataset, log_z: f64) -> Result<Exact> {
    let atll = super::exact::average_log_likelihood(rbm, &data.thresholded(), log_z)?;
    Ok(Exact { log_z, atll })
}

//! The papers' small-data experiments as data (ALGORITHMS.md §6), and the statistics used to
//! report them: quantiles of the exact ATLL across independent trials at each checkpoint, and
//! per-lane summaries (final and best median, time to 90% of the way to the bound).
//!
//! Everything here is plain computation, so the native `rbm reproduce` (which runs the trials
//! on threads) and the page (which runs them in Web Workers) share one definition of each
//! preset and of each reported number.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::Init;
use crate::rng::{stream, Purpose};
use crate::train::{LaneConfig, Record};
use rand::Rng as _;
use serde::Serialize;
use std::collections::BTreeMap;

/// One algorithm of a preset, with the options it overrides; every other option keeps its
/// [`LaneConfig::default`] value.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PresetLane {
    /// Registered algorithm name (see [`crate::train::ALGORITHMS`]).
    pub algo: &'static str,
    /// Label as the paper names it (e.g. "CD-12").
    pub label: &'static str,
    /// Gibbs sweeps per update, if not the default.
    pub k: Option<usize>,
    /// S-DCP / CS-DCP inner steps d, if not the default.
    pub d: Option<usize>,
    /// S-DCP / CS-DCP sweeps K′ per inner step, if not the default.
    pub kprime: Option<usize>,
    /// UCD cap T_max, if not the default.
    pub max_steps: Option<usize>,
}

impl PresetLane {
    const fn new(algo: &'static str, label: &'static str) -> PresetLane {
        PresetLane {
            algo,
            label,
            k: None,
            d: None,
            kprime: None,
            max_steps: None,
        }
    }
    const fn k(self, k: usize) -> PresetLane {
        PresetLane { k: Some(k), ..self }
    }
    const fn dcp(self, d: usize, kprime: usize) -> PresetLane {
        PresetLane {
            d: Some(d),
            kprime: Some(kprime),
            ..self
        }
    }
    const fn max_steps(self, t: usize) -> PresetLane {
        PresetLane {
            max_steps: Some(t),
            ..self
        }
    }
}

/// A published experiment: one data set and model size, several algorithms and learning
/// rates, a number of updates and of independent trials.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Preset {
    /// Name used by `rbm reproduce NAME` and the page.
    pub name: &'static str,
    /// One-line description.
    pub title: &'static str,
    /// Where the settings come from.
    pub paper: &'static str,
    /// Built-in data set name.
    pub data: &'static str,
    /// Hidden units n.
    pub hidden: usize,
    /// Initialisation.
    pub init: Init,
    /// Negative chains (`None`: as many as batch rows).
    pub chains: Option<usize>,
    /// Mini-batch size (`None`: the whole data set).
    pub batch: Option<usize>,
    /// The algorithms compared.
    pub lanes: &'static [PresetLane],
    /// Learning rates; every lane runs at each.
    pub rates: &'static [f64],
    /// Where each learning rate comes from, in the order of `rates` (e.g. the paper's text or
    /// its authors' code), for the page's rate choice.
    pub rate_notes: &'static [&'static str],
    /// What the paper reports, i.e. what to look for in the curves (ALGORITHMS.md §6).
    pub expect: &'static str,
    /// Updates per trial (with a full batch, updates = epochs).
    pub iters: u64,
    /// Default checkpoint interval in updates (exact ATLL at each).
    pub every: u64,
    /// Independent trials per (lane, learning rate).
    pub trials: usize,
}

const SDCP_LANES: &[PresetLane] = &[
    PresetLane::new("cd", "CD-12").k(12),
    PresetLane::new("pcd", "PCD-12").k(12),
    PresetLane::new("sdcp", "S-DCP d=3 K'=4").dcp(3, 4),
    PresetLane::new("cs-dcp", "CS-DCP d=3 K'=4").dcp(3, 4),
    PresetLane::new("cg", "CG-12").k(12),
];

const SDCP_RATE_NOTES: &[&str] = &[
    "the paper's smaller rate",
    "the paper's larger rate (CG escapes the −3.15 plateau)",
];

/// The built-in presets.
///
/// - `sdcp-shifting-bar`, `sdcp-bas3`: Upadhya & Sastry 2017, §5.1 and Fig. 1–2: 4 hidden units,
///   full batch, W ~ N(0, 0.01²) with base-rate visible biases, CD-12 / PCD-12 / CG-12 against
///   S-DCP and CS-DCP with d = 3, K′ = 4 (equal compute d·K′ = 12), η ∈ {0.3, 0.5}, 50 000
///   epochs, 25 trials. The paper does not say how often it evaluated; we take every 100 epochs.
/// - `ucd-bas4`: Qiu, Zhang & Wang 2020, §6.1 and Fig. 2: BAS 4×4 (32 rows), 16 hidden units,
///   W, b, c ~ N(0, 0.1²) (the authors' code), 1000 chains, full batch, CD-1 / PCD-1 / UCD
///   (T_max = 100), η = 0.1 (the published code) and 0.01 (the paper's text), 10 000 updates,
///   25 trials (the paper: 100). Checkpoints every 100 updates carry UCD's τ statistics
///   (averaged over the 100 updates since the previous checkpoint).
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "sdcp-shifting-bar",
        title: "S-DCP paper, Shifting Bar (N=9, B=1), 4 hidden units",
        paper: "Upadhya & Sastry 2017, Fig. 1",
        data: "shifting-bar",
        hidden: 4,
        init: Init::Sdcp,
        chains: None,
        batch: None,
        lanes: SDCP_LANES,
        rates: &[0.3, 0.5],
        rate_notes: SDCP_RATE_NOTES,
        expect: "CD-12 and PCD-12 get stuck near −3.15 at both rates (CG escapes only at η = 0.5), while \
S-DCP and CS-DCP climb on towards the bound at either rate and reach 90% of the way \
sooner. Every lane spends 12 Gibbs sweeps per update (k = 12; S-DCP and CS-DCP d·K′ = 3·4), \
so updates are equal compute.",
        iters: 50_000,
        every: 100,
        trials: 25,
    },
    Preset {
        name: "sdcp-bas3",
        title: "S-DCP paper, Bars & Stripes 3x3, 4 hidden units",
        paper: "Upadhya & Sastry 2017, Fig. 2",
        data: "bas3",
        hidden: 4,
        init: Init::Sdcp,
        chains: None,
        batch: None,
        lanes: SDCP_LANES,
        rates: &[0.3, 0.5],
        rate_notes: &[
            "the paper's smaller rate",
            "the paper's larger rate",
        ],
        expect: "CS-DCP, S-DCP and CG end at about the same ATLL; CD-12 and PCD-12 \
depend on the learning rate and stay below them; CS-DCP and S-DCP get 90% of the way sooner \
(CG about 2500 epochs after CS-DCP). Every lane spends 12 Gibbs sweeps per update (k = 12; \
S-DCP and CS-DCP d·K′ = 3·4), so updates are equal compute.",
        iters: 50_000,
        every: 100,
        trials: 25,
    },
    Preset {
        name: "ucd-bas4",
        title: "UCD paper, Bars & Stripes 4x4, 16 hidden units, 1000 chains",
        paper: "Qiu, Zhang & Wang 2020, Fig. 2",
        data: "bas4",
        hidden: 16,
        init: Init::Ucd,
        chains: Some(1000),
        batch: None,
        lanes: &[
            PresetLane::new("cd", "CD-1").k(1),
            PresetLane::new("pcd", "PCD-1").k(1),
            PresetLane::new("ucd", "UCD").k(1).max_steps(100),
        ],
        rates: &[0.1, 0.01],
        rate_notes: &["the authors' published code", "the paper's text"],
        expect: "CD-1 and PCD-1 rise, then diverge: their log-likelihood falls back from about update \
1200 on. UCD keeps converging; its stopping time τ jumps where CD starts to fail (around \
update 1200) and then falls. The paper reports a mean τ of 2.40, counting coupled steps; \
counted as here (the first t with ξ_t = η_{t−1}) the run's mean is about 4. Compare the lanes \
on the Gibbs-sweeps axis.",
        iters: 10_000,
        every: 100,
        trials: 25,
    },
];

/// Looks a preset up by name, with the known names in the error.
pub fn find_preset(name: &str) -> Result<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown preset '{name}' (known: {})",
            PRESETS
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

impl Preset {
    /// The preset's data set.
    pub fn dataset(&self) -> Result<Dataset> {
        Dataset::builtin(self.data)
    }

    /// The configuration of lane `lane` (index into [`Preset::lanes`]) at learning rate `lr`
    /// for a trial seeded `seed`, evaluated every `every` updates. The lane index is also the
    /// sampling-stream index, so a lane's numbers do not depend on which other lanes run; the
    /// initial model depends on the seed only, so all lanes of a trial start from the same one
    /// (as in the S-DCP paper's comparison).
    pub fn lane_config(&self, lane: usize, lr: f64, seed: u64, every: u64) -> LaneConfig {
        let l = &self.lanes[lane];
        let d = LaneConfig::default();
        LaneConfig {
            algo: l.algo.to_string(),
            hidden: self.hidden,
            lr,
            chains: self.chains,
            batch: self.batch,
            init: self.init,
            seed: Some(seed),
            lane: lane as u64,
            every,
            k: l.k.unwrap_or(d.k),
            d: l.d.unwrap_or(d.d),
            kprime: l.kprime.unwrap_or(d.kprime),
            max_steps: l.max_steps.unwrap_or(d.max_steps),
            ..d
        }
    }
}

/// The seed of trial `trial` of a run seeded `seed`: the first draw of the (seed, trial)
/// auxiliary stream, so trials are independent and each is reproducible on its own.
pub fn trial_seed(seed: u64, trial: u64) -> u64 {
    stream(seed, trial, Purpose::Aux).next_u64()
}

/// The updates at which a run of `iters` updates is evaluated: 0, every, 2·every, … and
/// `iters` itself.
pub fn schedule(iters: u64, every: u64) -> Vec<u64> {
    let every = every.max(1);
    let mut s: Vec<u64> = (0..=iters / every).map(|k| k * every).collect();
    if iters % every != 0 {
        s.push(iters);
    }
    s
}

/// The `p`-quantile of ascending `sorted` values by linear interpolation between order
/// statistics at position p·(N−1) (Hyndman & Fan type 7, numpy's default), so quantiles are
/// non-decreasing in `p`. −∞ entries (diverged trials) are allowed: an interpolation touching
/// one gives −∞. NaN for an empty slice.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = pos - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    if frac == 0.0 || a == b || a == f64::NEG_INFINITY {
        a
    } else {
        a + (b - a) * frac
    }
}

/// The across-trial statistics of one (lane, learning rate) at one checkpoint.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Checkpoint {
    /// Updates done.
    pub iter: u64,
    /// Epochs done (updates × batch / rows).
    pub epoch: f64,
    /// Median exact ATLL across trials (a diverged trial counts as −∞; JSON `null`).
    pub median: f64,
    /// 2.5% quantile (the UCD paper's band).
    pub q025: f64,
    /// 10% quantile.
    pub q10: f64,
    /// 90% quantile.
    pub q90: f64,
    /// 97.5% quantile.
    pub q975: f64,
    /// Mean ATLL across trials (the S-DCP paper's curves); −∞ if any trial diverged.
    pub mean: f64,
    /// Trials that had diverged (non-finite parameters) by this checkpoint.
    pub diverged: usize,
    /// Mean Gibbs sweeps per chain spent so far, over the trials still running.
    pub sweeps: f64,
    /// Mean v|h half-steps per chain spent so far, over the trials still running.
    pub vh_steps: f64,
    /// The lane's statistics over the updates since the previous checkpoint (e.g. UCD's
    /// `mean_tau`, `rejections`, `truncated`): the mean across trials, or for `max_` keys
    /// the maximum.
    pub stats: BTreeMap<String, f64>,
}

/// Combines the records of several trials of one lane, made at the updates of `schedule`
/// (trial records must follow it; a trial with fewer records diverged after its last one).
/// `epochs_per_iter` = batch / rows. Fails if a record has no exact ATLL.
pub fn aggregate(
    trials: &[Vec<Record>],
    schedule: &[u64],
    epochs_per_iter: f64,
) -> Result<Vec<Checkpoint>> {
    let mut out = Vec::with_capacity(schedule.len());
    let mut atll = Vec::with_capacity(trials.len());
    for (k, &iter) in schedule.iter().enumerate() {
        atll.clear();
        let (mut sweeps, mut vh, mut alive) = (0.0, 0.0, 0usize);
        let mut stats: BTreeMap<String, (f64, f64)> = BTreeMap::new();
        for t in trials {
            let Some(r) = t.get(k) else {
                atll.push(f64::NEG_INFINITY);
                continue;
            };
            if r.iter != iter {
                return Err(Error::Invalid(format!(
                    "a trial was evaluated at update {} instead of {iter}",
                    r.iter
                )));
            }
            let a = r.atll.ok_or_else(|| {
                Error::TooLarge(
                    "the model is too large for the exact ATLL these statistics need".into(),
                )
            })?;
            atll.push(a);
            alive += 1;
            sweeps += r.sweeps;
            vh += r.vh_steps;
            for (key, &x) in &r.stats {
                let is_max = key.starts_with("max_");
                let e = stats
                    .entry(key.clone())
                    .or_insert((if is_max { f64::NEG_INFINITY } else { 0.0 }, 0.0));
                e.0 = if is_max { e.0.max(x) } else { e.0 + x };
                e.1 += 1.0;
            }
        }
        atll.sort_by(f64::total_cmp);
        let diverged = trials.len() - alive;
        let q = |p| quantile(&atll, p);
        let per = |s: f64| {
            if alive > 0 {
                s / alive as f64
            } else {
                f64::NAN
            }
        };
        out.push(Checkpoint {
            iter,
            epoch: iter as f64 * epochs_per_iter,
            median: q(0.5),
            q025: q(0.025),
            q10: q(0.1),
            q90: q(0.9),
            q975: q(0.975),
            mean: if diverged > 0 {
                f64::NEG_INFINITY
            } else {
                atll.iter().sum::<f64>() / atll.len().max(1) as f64
            },
            diverged,
            sweeps: per(sweeps),
            vh_steps: per(vh),
            stats: stats
                .into_iter()
                .map(|(key, (s, c))| {
                    let v = if key.starts_with("max_") { s } else { s / c };
                    (key, v)
                })
                .collect(),
        });
    }
    Ok(out)
}

/// The end-of-run summary of one (lane, learning rate).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// The last checkpoint (final median and quantiles).
    #[serde(rename = "final")]
    pub last: Checkpoint,
    /// Median ATLL at update 0.
    pub initial_median: f64,
    /// Largest median over the checkpoints.
    pub best_median: f64,
    /// First update at which the median is largest.
    pub best_iter: u64,
    /// The level of the "90% of max" time: initial + 0.9·(bound − initial).
    pub target: Option<f64>,
    /// First checkpoint (in updates) whose median reaches `target`; `None` if none does.
    pub t90_iter: Option<u64>,
    /// The same in epochs.
    pub t90_epoch: Option<f64>,
    /// First checkpoint whose median reaches initial + 0.9·(best median − initial): how soon
    /// the lane gets 90% of the way to its own best.
    pub t90_own_iter: Option<u64>,
}

/// Summarises a lane's checkpoints against the data set's `bound` (the largest achievable
/// ATLL, −H(data)).
///
/// The S-DCP paper marks "the epoch at which the model achieves 90% of the maximum ATLL"
/// without defining it further; since ATLL is negative, we read it as 90% of the way from the
/// starting value to the maximum: with A₀ the median ATLL at update 0 and B the bound, `t90` is
/// the first checkpoint whose median is ≥ A₀ + 0.9·(B − A₀). `t90_own` uses the lane's own best
/// median in place of B. Both use checkpoints only, so their resolution is the checkpoint
/// interval.
pub fn summarize(cps: &[Checkpoint], bound: Option<f64>) -> Option<Summary> {
    let first = cps.first()?;
    let a0 = first.median;
    let (mut best, mut best_iter) = (f64::NEG_INFINITY, first.iter);
    for c in cps {
        if c.median > best {
            best = c.median;
            best_iter = c.iter;
        }
    }
    let reach = |level: f64| cps.iter().find(|c| c.median >= level);
    let target = bound.map(|b| a0 + 0.9 * (b - a0));
    let t90 = target.and_then(reach);
    let own = if best.is_finite() {
        reach(a0 + 0.9 * (best - a0)).map(|c| c.iter)
    } else {
        None
    };
    Some(Summary {
        last: cps.last()?.clone(),
        initial_median: a0,
        best_median: best,
        best_iter,
        target,
        t90_iter: t90.map(|c| c.iter),
        t90_epoch: t90.map(|c| c.epoch),
        t90_own_iter: own,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(iter: u64, atll: f64, tau: f64) -> Record {
        Record {
            iter,
            sweeps: iter as f64,
            vh_steps: iter as f64,
            atll: Some(atll),
            log_z: Some(0.0),
            stats: [
                ("mean_tau".to_string(), tau),
                ("max_tau".to_string(), 2.0 * tau),
            ]
            .into_iter()
            .collect(),
        }
    }

    #[test]
    fn quantiles_interpolate_and_are_ordered() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&xs, 0.5), 3.0);
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&xs, 1.0), 5.0);
        assert!((quantile(&xs, 0.1) - 1.4).abs() < 1e-12);
        assert!((quantile(&[0.0, 10.0], 0.975) - 9.75).abs() < 1e-12);
        let ys = [f64::NEG_INFINITY, f64::NEG_INFINITY, -3.0, -2.5, -2.0, -1.0];
        let qs: Vec<f64> = [0.025, 0.1, 0.5, 0.9, 0.975]
            .iter()
            .map(|&p| quantile(&ys, p))
            .collect();
        assert!(qs.windows(2).all(|w| w[0] <= w[1]), "{qs:?}");
        assert_eq!(qs[0], f64::NEG_INFINITY);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn schedule_ends_at_the_last_update() {
        assert_eq!(schedule(10, 5), vec![0, 5, 10]);
        assert_eq!(schedule(12, 5), vec![0, 5, 10, 12]);
        assert_eq!(schedule(0, 5), vec![0]);
    }

    #[test]
    fn aggregate_counts_diverged_trials_and_averages_statistics() {
        let sched = schedule(20, 10);
        let trials = vec![
            vec![rec(0, -5.0, 0.0), rec(10, -3.0, 2.0), rec(20, -2.5, 3.0)],
            vec![rec(0, -5.0, 0.0), rec(10, -4.0, 4.0)],
            vec![rec(0, -5.0, 0.0), rec(10, -3.5, 6.0), rec(20, -3.0, 1.0)],
        ];
        let cps = aggregate(&trials, &sched, 0.5).unwrap();
        assert_eq!(cps.len(), 3);
        assert_eq!(cps[1].median, -3.5);
        assert_eq!(cps[1].stats["mean_tau"], 4.0);
        assert_eq!(cps[1].stats["max_tau"], 12.0);
        assert_eq!(cps[1].epoch, 5.0);
        assert_eq!(cps[2].diverged, 1);
        assert_eq!(cps[2].median, -3.0);
        assert_eq!(cps[2].q025, f64::NEG_INFINITY);
        assert_eq!(cps[2].mean, f64::NEG_INFINITY);
        assert_eq!(cps[2].sweeps, 20.0);
        assert!((cps[1].mean + 3.5).abs() < 1e-12);
        let bad = vec![vec![rec(0, -5.0, 0.0), rec(7, -3.0, 0.0)]];
        assert!(aggregate(&bad, &sched, 1.0).is_err());
    }

    #[test]
    fn summary_finds_the_first_checkpoint_at_ninety_percent_of_the_way() {
        let sched = schedule(40, 10);
        // Medians -10, -6, -2.9, -2.2, -2.5 with bound -2: target = -10 + 0.9·8 = -2.8.
        let med = [-10.0, -6.0, -2.9, -2.2, -2.5];
        let trials = vec![sched
            .iter()
            .zip(med)
            .map(|(&i, a)| rec(i, a, 1.0))
            .collect::<Vec<_>>()];
        let cps = aggregate(&trials, &sched, 1.0).unwrap();
        let s = summarize(&cps, Some(-2.0)).unwrap();
        assert!((s.target.unwrap() + 2.8).abs() < 1e-12);
        assert_eq!(s.t90_iter, Some(30));
        assert_eq!(s.best_median, -2.2);
        assert_eq!(s.best_iter, 30);
        // Own best -2.2: level -10 + 0.9·7.8 = -2.98, first reached at 20.
        assert_eq!(s.t90_own_iter, Some(20));
        assert_eq!(s.last.iter, 40);
        assert_eq!(summarize(&cps, Some(0.0)).unwrap().t90_iter, None);
    }

    /// The S-DCP paper compares at equal compute per update (§5: d·K′ = K): every lane of its
    /// presets must record the same Gibbs sweeps.
    #[test]
    fn sdcp_presets_spend_equal_sweeps_per_update() {
        for p in PRESETS.iter().filter(|p| p.name.starts_with("sdcp-")) {
            let data = std::sync::Arc::new(p.dataset().unwrap());
            let sweeps: Vec<f64> = (0..p.lanes.len())
                .map(|i| {
                    let mut lane =
                        crate::train::Lane::new(p.lane_config(i, p.rates[0], 3, 2), data.clone())
                            .unwrap();
                    lane.run(2).unwrap().last().unwrap().sweeps
                })
                .collect();
            assert!(sweeps.iter().all(|&s| s == 24.0), "{}: {sweeps:?}", p.name);
        }
    }

    #[test]
    fn presets_fill_every_other_option_from_the_defaults() {
        let p = find_preset("sdcp-bas3").unwrap();
        let c = p.lane_config(2, 0.3, 7, 100);
        assert_eq!(
            (c.algo.as_str(), c.d, c.kprime, c.lane, c.hidden),
            ("sdcp", 3, 4, 2, 4)
        );
        assert_eq!(c.k, LaneConfig::default().k);
        assert_eq!(p.lane_config(0, 0.3, 7, 100).k, 12);
        assert!(find_preset("nope")
            .unwrap_err()
            .to_string()
            .contains("ucd-bas4"));
        for p in PRESETS {
            assert!(p.dataset().is_ok());
            assert!(!p.rates.is_empty(), "{}", p.name);
            assert_eq!(p.rate_notes.len(), p.rates.len(), "{}", p.name);
            assert!(
                !p.expect.is_empty() && !p.expect.contains('\n'),
                "{}",
                p.name
            );
        }
        assert_ne!(trial_seed(1, 0), trial_seed(1, 1));
        assert_ne!(trial_seed(1, 0), trial_seed(2, 0));
    }
}

//! The rates-FPCD paper's comparison as a study (Breuleux, Bengio & Vincent 2011, §5 and
//! Figure 2; docs/algorithms.md §5–6): the four samplers on one FPCD-trained MNIST model, the
//! fast step ε_F of rates-FPCD and rates-herding swept over a grid, ISL of each sampler's first N
//! samples on the test digits (β chosen on the validation digits), 1-NN class mixing, and the
//! paper's claims checked on the numbers.

use super::{SampleStream, SamplerConfig};
use crate::data::{Binarize, Dataset};
use crate::error::Result;
use crate::eval::isl::{Isl, IslPoint};
use crate::eval::mixing::{Mixing, MixingCounter, Nearest};
use crate::model::Rbm;
use serde::Serialize;

/// The study's name in `rbm reproduce`.
pub const NAME: &str = "rates-fpcd-mnist";

/// What the paper reports (its §5 and Figure 2, on MNIST and USPS).
pub const PAPER: &str = "Gibbs mixes worst by far (100 rates-FPCD samples beat 200 000 Gibbs \
samples in ISL); rates-herding rises fastest at first and rates-FPCD catches up with or passes \
it; sample penalisation lies between Gibbs and the rates samplers; rates-FPCD's best ε_F is \
10–100× smaller than rates-herding's.";

/// ε_F grids swept for the two rates samplers (their defaults are in the grid).
pub const FPCD_EPS: &[f64] = &[0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01];
/// ε_F grid of rates-herding.
pub const HERDING_EPS: &[f64] = &[0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1];

/// Default samples per run (the paper's curves go further: `--samples`).
pub const DEFAULT_SAMPLES: u64 = 2_000;

/// One run of the study: a sampler at one setting.
#[derive(Clone, Debug, Serialize)]
pub struct StudyRun {
    /// The sampler's settings (ε_F and α filled in).
    pub config: SamplerConfig,
    /// ε_F used.
    pub eps_f: f64,
    /// α used.
    pub alpha: f64,
}

/// The runs of the study: Gibbs, SP at its defaults, and the ε_F grids of the rates samplers.
pub fn runs() -> Vec<StudyRun> {
    let mk = |name: &str, eps: Option<f64>| {
        let config = SamplerConfig {
            sampler: name.into(),
            eps_f: eps,
            ..SamplerConfig::default()
        };
        StudyRun {
            eps_f: config.eps_f().expect("registered"),
            alpha: config.alpha().expect("registered"),
            config,
        }
    };
    let mut v = vec![mk("gibbs", None), mk("sp", None)];
    v.extend(FPCD_EPS.iter().map(|&e| mk("rates-fpcd", Some(e))));
    v.extend(HERDING_EPS.iter().map(|&e| mk("rates-herding", Some(e))));
    v
}

/// The N at which ISL is reported: 1, 2, 5, 10, 20, 50, … up to `samples`, and `samples`.
pub fn checkpoints(samples: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut p = 1u64;
    'outer: loop {
        for k in [1, 2, 5] {
            let n = k * p;
            if n >= samples {
                break 'outer;
            }
            v.push(n);
        }
        p *= 10;
    }
    v.push(samples);
    v
}

/// The result of one run.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// The run.
    #[serde(flatten)]
    pub run: StudyRun,
    /// ISL at each checkpoint.
    pub isl: Vec<IslPoint>,
    /// Class mixing over all samples.
    pub mixing: Mixing,
}

/// Runs one sampler setting for `samples` samples on `model` (rates and start from `train`),
/// scoring on `test` with β chosen on `valid`.
pub fn run(
    model: &Rbm,
    train: &Dataset,
    test: &Dataset,
    valid: &Dataset,
    r: &StudyRun,
    samples: u64,
    seed: u64,
) -> Result<RunResult> {
    let mut stream = SampleStream::new(model, train, Binarize::Sample, &r.config, seed)?;
    let mut isl = Isl::new(&test.values, Some(&valid.values), model.m())?;
    let mut nn = Nearest::new(&train.thresholded())?;
    let mut mixing = MixingCounter::default();
    let at = checkpoints(samples);
    let mut points = Vec::with_capacity(at.len());
    let mut next = at.iter().peekable();
    for _ in 0..samples {
        let x = stream.next_sample();
        mixing.add(nn.class(x));
        isl.add(x);
        if next.peek().is_some_and(|&&n| n == isl.count()) {
            next.next();
            points.push(isl.point(None)?);
        }
    }
    Ok(RunResult {
        run: r.clone(),
        isl: points,
        mixing: mixing.summary(),
    })
}

/// A claim of the paper checked on the study's numbers.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    /// The claim in words.
    pub claim: &'static str,
    /// Whether the numbers bear it out.
    pub holds: bool,
    /// The numbers behind the verdict.
    pub detail: String,
}

/// The best run of a sampler by final ISL.
fn best<'a>(results: &'a [RunResult], name: &str) -> Option<&'a RunResult> {
    results
        .iter()
        .filter(|r| r.run.config.sampler == name)
        .max_by(|a, b| last(a).total_cmp(&last(b)))
}

fn last(r: &RunResult) -> f64 {
    r.isl.last().map_or(f64::NEG_INFINITY, |p| p.isl)
}

/// ISL at the earliest checkpoint with at least `n` samples.
fn at(r: &RunResult, n: u64) -> f64 {
    r.isl
        .iter()
        .find(|p| p.n >= n)
        .or(r.isl.last())
        .map_or(f64::NEG_INFINITY, |p| p.isl)
}

/// The paper's claims, checked on `results` (each rates sampler at its best ε_F).
pub fn claims(results: &[RunResult]) -> Vec<Claim> {
    let (Some(g), Some(f), Some(h), Some(s)) = (
        best(results, "gibbs"),
        best(results, "rates-fpcd"),
        best(results, "rates-herding"),
        best(results, "sp"),
    ) else {
        return Vec::new();
    };
    let n = g.isl.last().map_or(0, |p| p.n);
    let early = (n / 20).max(10);
    vec![
        Claim {
            claim: "Gibbs has the lowest ISL of the four",
            holds: [f, h, s].iter().all(|o| last(o) > last(g)),
            detail: format!(
                "ISL at N={n}: Gibbs {:.1}, rates-FPCD {:.1}, rates-herding {:.1}, SP {:.1}",
                last(g),
                last(f),
                last(h),
                last(s)
            ),
        },
        Claim {
            claim: "rates-FPCD with 1/20 of the samples beats Gibbs with all of them",
            holds: at(f, early) > last(g),
            detail: format!(
                "rates-FPCD at N={early}: {:.1}; Gibbs at N={n}: {:.1}",
                at(f, early),
                last(g)
            ),
        },
        Claim {
            claim: "rates-herding rises fastest at first",
            holds: at(h, early) >= at(f, early) && at(h, early) >= at(s, early),
            detail: format!(
                "at N={early}: rates-herding {:.1}, rates-FPCD {:.1}, SP {:.1}",
                at(h, early),
                at(f, early),
                at(s, early)
            ),
        },
        Claim {
            claim: "rates-FPCD catches up with or passes rates-herding in the long run",
            holds: last(f) >= last(h),
            detail: format!(
                "at N={n}: rates-FPCD {:.1}, rates-herding {:.1} (more samples: --samples)",
                last(f),
                last(h)
            ),
        },
        Claim {
            claim: "sample penalisation lies between Gibbs and the rates samplers",
            holds: last(s) > last(g) && last(s) < last(f).max(last(h)),
            detail: format!(
                "SP {:.1} between Gibbs {:.1} and the better rates sampler {:.1}",
                last(s),
                last(g),
                last(f).max(last(h))
            ),
        },
        Claim {
            claim: "rates-FPCD's best ε_F is 10–100× smaller than rates-herding's",
            holds: (10.0..=100.0).contains(&(h.run.eps_f / f.run.eps_f)),
            detail: format!(
                "best ε_F: rates-FPCD {}, rates-herding {} (ratio {:.1}; grids {:?} and {:?})",
                f.run.eps_f,
                h.run.eps_f,
                h.run.eps_f / f.run.eps_f,
                FPCD_EPS,
                HERDING_EPS
            ),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_log_spaced_and_end_at_the_total() {
        assert_eq!(checkpoints(1), vec![1]);
        assert_eq!(
            checkpoints(2000),
            vec![1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]
        );
        assert_eq!(checkpoints(30), vec![1, 2, 5, 10, 20, 30]);
    }

    #[test]
    fn every_sampler_runs_and_the_grids_hold_the_defaults() {
        let r = runs();
        for s in super::super::SAMPLERS {
            assert!(r.iter().any(|x| x.config.sampler == s.name), "{}", s.name);
        }
        assert!(FPCD_EPS.contains(&super::super::rates_fpcd::INFO.eps_f));
        assert!(HERDING_EPS.contains(&super::super::rates_herding::INFO.eps_f));
    }

    /// On a small labelled set the study runs end to end and the claims are judged on its
    /// numbers (a claim that cannot hold by construction would show as an error here).
    #[test]
    fn a_small_study_runs_and_judges_every_claim() {
        let mut data = Dataset::builtin("bas3").unwrap();
        data.labels = Some((0..data.rows() as u8).map(|i| i % 3).collect());
        let model = Rbm::random(9, 5, 1.0, 2).unwrap();
        let results: Vec<RunResult> = runs()
            .iter()
            .map(|r| run(&model, &data, &data, &data, r, 50, 1).unwrap())
            .collect();
        assert!(results.iter().all(|r| r.isl.len() == checkpoints(50).len()));
        assert!(results.iter().all(|r| r.mixing.samples == 50));
        let c = claims(&results);
        assert_eq!(c.len(), 6);
        assert!(c.iter().all(|c| !c.detail.contains("inf")), "{c:?}");
    }
}

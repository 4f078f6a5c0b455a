//! `rbm reproduce`: runs a paper's experiment ([`rbm_core::experiments::PRESETS`]) for several
//! independent trials on all cores and prints across-trial quantiles of the ATLL: exact on the
//! small sets and for `pcd-mnist-25` (Tieleman 2008), by AIS for `sdcp-mnist` (Upadhya &
//! Sastry 2017). A preset on MNIST loads its splits as `--data mnist` does.
//!
//! The plan of trials, their seeds and their statistics are the core's ([`Study`]); this
//! command only runs the trials on threads and prints. Determinism: trial r of every lane is
//! seeded by `trial_seed(S, r)` and uses the lane's index in the preset as its stream index,
//! so each trial's numbers depend neither on the thread that ran it nor on which other lanes
//! or rates were selected. Results are gathered by
//! index and printed in a fixed order (lane, rate, checkpoint), so everything but the timing
//! fields (`seconds`, `train_seconds`, `wall_seconds`, `threads`) is identical for any
//! `--threads`.
//!
//! Parallelism uses `std::thread::scope` with a shared work counter rather than rayon: the work
//! items are few and coarse (one whole trial each), so a work-stealing pool buys nothing, and
//! the crate keeps no native-only dependency beyond clap.

use super::common::{entropy_seed, load_data, parallel, threads, CliResult, Failure, Out};
use clap::Args;
use rbm_core::experiments::trials::{
    summarize, Checkpoint, Study, StudyRequest, Summary, TrialRun,
};
use rbm_core::experiments::{find_preset, AisSpec, Preset};
use serde::Serialize;
use std::time::Instant;

/// Options of `rbm reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceCmd {
    /// Preset: sdcp-shifting-bar, sdcp-bas3, ucd-bas4, pcd-mnist-25, sdcp-mnist (`rbm presets`
    /// lists them with their settings), or rates-fpcd-mnist (the samplers of the rates-FPCD
    /// paper on one trained model)
    preset: String,
    /// Independent trials per (algorithm, learning rate) [default: the preset's]
    #[arg(long)]
    runs: Option<usize>,
    /// Epochs per trial (converted to updates with the preset's batch size) [default: the preset's]
    #[arg(long, conflicts_with = "iters")]
    epochs: Option<u64>,
    /// Updates per trial [default: the preset's]
    #[arg(long)]
    iters: Option<u64>,
    /// Evaluate (the preset's ATLL) every this many updates [default: the preset's]
    #[arg(long)]
    every: Option<u64>,
    /// AIS particles per evaluation (presets measured by AIS) [default: the preset's]
    #[arg(long)]
    particles: Option<usize>,
    /// AIS inverse temperatures per evaluation (presets measured by AIS; the S-DCP paper: 10000)
    /// [default: the preset's]
    #[arg(long)]
    betas: Option<usize>,
    /// Threads [default: available cores]; the output does not depend on it
    #[arg(long)]
    threads: Option<usize>,
    /// Seed [default: drawn from the system and printed in the first line]
    #[arg(long)]
    seed: Option<u64>,
    /// Run only these of the preset's algorithms (comma-separated names, e.g. cd,pcd)
    #[arg(long, value_delimiter = ',')]
    algos: Option<Vec<String>>,
    /// Learning rates instead of the preset's (comma-separated)
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    lrs: Option<Vec<f64>>,
    /// rates-fpcd-mnist only: the model sampled [default: the page's shipped FPCD model]
    #[arg(long)]
    model: Option<String>,
    /// rates-fpcd-mnist only: samples per sampler run [default: 2000]
    #[arg(long)]
    samples: Option<u64>,
}

/// The first line.
#[derive(Serialize)]
struct Header<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    preset: &'a Preset,
    seed: u64,
    runs: usize,
    iters: u64,
    every: u64,
    rows: usize,
    bound: Option<f64>,
    /// The set the ATLL is measured on (the training data when none).
    eval_data: Option<&'a str>,
    /// Its rows.
    eval_rows: Option<usize>,
    /// `exact` or `ais`.
    measure: &'static str,
    /// The AIS run at each checkpoint, with the flags applied.
    ais: Option<AisSpec>,
    algos: Vec<&'static str>,
    rates: &'a [f64],
}

/// A line about one (lane, learning rate).
#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    #[serde(rename = "type")]
    kind: &'static str,
    algo: &'a str,
    label: &'a str,
    lr: f64,
    #[serde(flatten)]
    body: &'a T,
}

/// The body of a summary line.
#[derive(Serialize)]
struct SummaryBody {
    #[serde(flatten)]
    summary: Summary,
    trials: usize,
    /// Wall time summed over this lane's trials (≈ its CPU time).
    seconds: f64,
}

#[derive(Serialize)]
struct Done {
    #[serde(rename = "type")]
    kind: &'static str,
    trials: usize,
    wall_seconds: f64,
    threads: usize,
}

/// The lanes of one learning rate ordered by their final median ATLL, best first: what this
/// run shows, beside what the paper reports (the header's `preset.expect`).
#[derive(Serialize)]
struct Ranking<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    lr: f64,
    /// At which update and epoch the medians are compared (the last checkpoint).
    iter: u64,
    epoch: f64,
    /// Best first.
    order: Vec<Ranked<'a>>,
}

#[derive(Serialize)]
struct Ranked<'a> {
    label: &'a str,
    median: f64,
    /// Mean Gibbs sweeps per chain spent (equal compute when they are equal).
    sweeps: f64,
    /// Mean training seconds (a timing field).
    train_seconds: f64,
}

/// One finished trial.
struct Trial {
    run: TrialRun,
    seconds: f64,
}

/// Runs `rbm reproduce`.
pub fn run(a: ReproduceCmd, out: &mut Out) -> CliResult {
    if a.preset == rbm_core::sampler::study::NAME {
        let seed = a.seed.unwrap_or_else(entropy_seed);
        return super::sample::run_study(a.model, a.samples, seed, threads(a.threads)?, out);
    }
    let wall = Instant::now();
    let p = find_preset(&a.preset)?;
    let threads = threads(a.threads)?;
    let seed = a.seed.unwrap_or_else(entropy_seed);
    let req = StudyRequest {
        algos: a.algos.clone(),
        rates: a.lrs.clone(),
        runs: a.runs,
        epochs: a.epochs,
        iters: a.iters,
        every: a.every,
        particles: a.particles,
        betas: a.betas,
    };
    let eval = p.eval_data.map(load_data).transpose()?;
    let study = Study::with_data(p, &req, seed, load_data(p.data)?, eval)?;
    let (groups, runs, data) = (&study.groups, study.runs, &study.data);
    let mut algos: Vec<&str> = groups.iter().map(|&(li, _)| p.lanes[li].algo).collect();
    algos.dedup();
    let mut rates: Vec<f64> = Vec::new();
    for &(_, lr) in groups {
        if !rates.contains(&lr) {
            rates.push(lr);
        }
    }
    out.line(&Header {
        kind: "header",
        preset: p,
        seed,
        runs,
        iters: study.iters,
        every: study.every,
        rows: data.rows(),
        bound: data.bound(),
        eval_data: p.eval_data,
        eval_rows: study.eval.as_ref().map(|e| e.rows()),
        measure: if study.ais.is_some() { "ais" } else { "exact" },
        ais: study.ais,
        algos,
        rates: &rates,
    })?;

    let mut slots: Vec<Vec<Option<Trial>>> = groups
        .iter()
        .map(|_| (0..runs).map(|_| None).collect())
        .collect();
    let mut done = vec![0usize; groups.len()];
    let mut next_group = 0;
    let mut summaries: Vec<(usize, f64, SummaryBody)> = Vec::new();
    let mut finals: Vec<(usize, f64, Checkpoint)> = Vec::new();
    let mut failure: Option<Failure> = None;

    // Prints every group whose trials are all in, in group order; returns false on failure.
    let mut flush = |slots: &mut Vec<Vec<Option<Trial>>>,
                     done: &[usize],
                     next_group: &mut usize|
     -> CliResult {
        while *next_group < groups.len() && done[*next_group] == runs {
            let g = *next_group;
            let (li, lr) = groups[g];
            let trials: Vec<Trial> = slots[g]
                .iter_mut()
                .map(|t| t.take().expect("trial finished"))
                .collect();
            let seconds = trials.iter().map(|t| t.seconds).sum();
            let runs_done: Vec<TrialRun> = trials.into_iter().map(|t| t.run).collect();
            let lane = &p.lanes[li];
            let cps: Vec<Checkpoint> = study.checkpoints(g, &runs_done)?;
            if let Some(last) = cps.last() {
                finals.push((li, lr, last.clone()));
            }
            for c in &cps {
                out.line(&Line {
                    kind: "checkpoint",
                    algo: lane.algo,
                    label: lane.label,
                    lr,
                    body: c,
                })?;
            }
            if let Some(s) = summarize(&cps, data.bound()) {
                summaries.push((
                    li,
                    lr,
                    SummaryBody {
                        summary: s,
                        trials: runs,
                        seconds,
                    },
                ));
            }
            *next_group += 1;
        }
        Ok(())
    };

    parallel(
        groups.len() * runs,
        threads,
        |idx| {
            let (g, r) = (idx / runs, idx % runs);
            let t = Instant::now();
            let mut clock = || t.elapsed().as_secs_f64();
            study.trial(g, r, Some(&mut clock)).map(|run| Trial {
                run,
                seconds: t.elapsed().as_secs_f64(),
            })
        },
        |idx, res| {
            let (g, r) = (idx / runs, idx % runs);
            match res {
                Ok(t) => {
                    slots[g][r] = Some(t);
                    done[g] += 1;
                    if let Err(e) = flush(&mut slots, &done, &mut next_group) {
                        failure = Some(e);
                    }
                }
                Err(e) => failure = Some(e.into()),
            }
            failure.is_none()
        },
    );
    if let Some(f) = failure {
        return Err(f);
    }
    for (li, lr, s) in &summaries {
        let lane = &p.lanes[*li];
        out.line(&Line {
            kind: "summary",
            algo: lane.algo,
            label: lane.label,
            lr: *lr,
            body: s,
        })?;
    }
    for lr in rates {
        let mut order: Vec<(&str, &Checkpoint)> = finals
            .iter()
            .filter(|(_, r, _)| *r == lr)
            .map(|(li, _, c)| (p.lanes[*li].label, c))
            .collect();
        order.sort_by(|a, b| b.1.median.total_cmp(&a.1.median));
        let Some(&(_, first)) = order.first() else {
            continue;
        };
        out.line(&Ranking {
            kind: "ranking",
            lr,
            iter: first.iter,
            epoch: first.epoch,
            order: order
                .iter()
                .map(|&(label, c)| Ranked {
                    label,
                    median: c.median,
                    sweeps: c.sweeps,
                    train_seconds: c.train_seconds,
                })
                .collect(),
        })?;
    }
    out.line(&Done {
        kind: "done",
        trials: groups.len() * runs,
        wall_seconds: wall.elapsed().as_secs_f64(),
        threads,
    })
}

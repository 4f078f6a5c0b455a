//! `rbm reproduce`: runs a paper's experiment ([`rbm_core::experiments::PRESETS`]) for several
//! independent trials on all cores and prints across-trial quantiles of the exact ATLL.
//!
//! Determinism: trial r of every lane is seeded by [`trial_seed`]`(S, r)` and uses the lane's
//! index in the preset as its stream index, so each trial's numbers depend neither on the
//! thread that ran it nor on which other lanes or rates were selected. Results are gathered by
//! index and printed in a fixed order (lane, rate, checkpoint), so everything but the timing
//! fields (`seconds`, `wall_seconds`, `threads`) is identical for any `--threads`.
//!
//! Parallelism uses `std::thread::scope` with a shared work counter rather than rayon: the work
//! items are few and coarse (one whole trial each), so a work-stealing pool buys nothing, and
//! the crate keeps no native-only dependency beyond clap.

use super::common::{entropy_seed, fail, parallel, threads, CliResult, Failure, Out};
use clap::Args;
use rbm_core::experiments::trials::{
    aggregate, run_trial, schedule, summarize, trial_seed, Checkpoint, Summary,
};
use rbm_core::experiments::{find_preset, Preset};
use rbm_core::train::{find, Record};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// Options of `rbm reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceCmd {
    /// Preset: sdcp-shifting-bar, sdcp-bas3, ucd-bas4 (`rbm presets` lists them with settings)
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
    /// Evaluate (exact ATLL) every this many updates [default: the preset's]
    #[arg(long)]
    every: Option<u64>,
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
}

/// Most trials per (algorithm, learning rate).
const MAX_RUNS: usize = 100_000;
/// Most checkpoints per trial (memory for the gathered curves).
const MAX_CHECKPOINTS: usize = 1_000_000;

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

/// One finished trial.
struct Trial {
    records: Vec<Record>,
    seconds: f64,
}

/// The preset's lanes selected by `--algos` (all if absent), in the preset's order.
fn select_lanes(p: &Preset, algos: &Option<Vec<String>>) -> CliResult<Vec<usize>> {
    let Some(names) = algos else {
        return Ok((0..p.lanes.len()).collect());
    };
    for name in names {
        if !p.lanes.iter().any(|l| l.algo == name) {
            return fail(format!(
                "preset '{}' has no algorithm '{name}' (its algorithms: {})",
                p.name,
                p.lanes
                    .iter()
                    .map(|l| l.algo)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok((0..p.lanes.len())
        .filter(|&i| names.iter().any(|n| n == p.lanes[i].algo))
        .collect())
}

/// Runs `rbm reproduce`.
pub fn run(a: ReproduceCmd, out: &mut Out) -> CliResult {
    let wall = Instant::now();
    let p = find_preset(&a.preset)?;
    let data = Arc::new(p.dataset()?);
    let lanes = select_lanes(p, &a.algos)?;
    let rates: Vec<f64> = a.lrs.clone().unwrap_or_else(|| p.rates.to_vec());
    if rates.is_empty() {
        return fail("no learning rates given");
    }
    let runs = a.runs.unwrap_or(p.trials);
    if !(1..=MAX_RUNS).contains(&runs) {
        return fail(format!("runs must be between 1 and {MAX_RUNS}, got {runs}"));
    }
    let batch = p.batch.unwrap_or(data.rows()) as u64;
    let iters = match (a.epochs, a.iters) {
        (Some(e), _) => e
            .checked_mul(data.rows() as u64)
            .map(|x| x.div_ceil(batch))
            .ok_or_else(|| Failure::Msg(format!("{e} epochs is too many")))?,
        (None, Some(t)) => t,
        (None, None) => p.iters,
    };
    let every = a.every.unwrap_or(p.every);
    if every == 0 {
        return fail("every must be at least 1");
    }
    let sched = schedule(iters, every);
    if sched.len() > MAX_CHECKPOINTS {
        return fail(format!(
            "{} checkpoints per trial exceed the limit of {MAX_CHECKPOINTS}; raise --every",
            sched.len()
        ));
    }
    let threads = threads(a.threads)?;
    let seed = a.seed.unwrap_or_else(entropy_seed);
    // Check every lane before running any, so an unknown algorithm or bad rate fails at once.
    for &li in &lanes {
        for &lr in &rates {
            let cfg = p.lane_config(li, lr, seed, every)?;
            cfg.validate(&data).map_err(|e| {
                Failure::Msg(format!(
                    "preset '{}', lane {} at lr {lr}: {e}",
                    p.name, p.lanes[li].label
                ))
            })?;
            if data.m.min(cfg.hidden) > cfg.exact_bits {
                return fail(format!(
                    "preset '{}' is too large for the exact ATLL",
                    p.name
                ));
            }
        }
    }
    out.line(&Header {
        kind: "header",
        preset: p,
        seed,
        runs,
        iters,
        every,
        rows: data.rows(),
        bound: data.bound(),
        algos: lanes.iter().map(|&i| p.lanes[i].algo).collect(),
        rates: &rates,
    })?;

    let groups: Vec<(usize, f64)> = lanes
        .iter()
        .flat_map(|&li| rates.iter().map(move |&lr| (li, lr)))
        .collect();
    let epochs_per_iter = batch as f64 / data.rows() as f64;
    let seeds: Vec<u64> = (0..runs as u64).map(|r| trial_seed(seed, r)).collect();
    let mut slots: Vec<Vec<Option<Trial>>> = groups
        .iter()
        .map(|_| (0..runs).map(|_| None).collect())
        .collect();
    let mut done = vec![0usize; groups.len()];
    let mut next_group = 0;
    let mut summaries: Vec<(usize, f64, SummaryBody)> = Vec::new();
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
            let recs: Vec<Vec<Record>> = trials.into_iter().map(|t| t.records).collect();
            let lane = &p.lanes[li];
            let cps: Vec<Checkpoint> =
                aggregate(&recs, &sched, epochs_per_iter, find(lane.algo)?.stats)?;
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
            let (li, lr) = groups[g];
            let t = Instant::now();
            run_trial(p, &data, li, lr, seeds[r], iters, every).map(|records| Trial {
                records,
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
    out.line(&Done {
        kind: "done",
        trials: groups.len() * runs,
        wall_seconds: wall.elapsed().as_secs_f64(),
        threads,
    })
}

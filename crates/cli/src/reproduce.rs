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

use super::common::{entropy_seed, fail, load_data, parallel, threads, CliResult, Failure, Out};
use super::jobs::{self, Work};
use super::progress::StudyProgress;
use clap::Args;
use rbm_core::cost::{duration, CLI};
use rbm_core::engine::Engine;
use rbm_core::experiments::claims::{self, BandPoint, LaneBand, Verdict};
use rbm_core::experiments::trials::{
    summarize, trial_seed, Checkpoint, Study, StudyCost, Summary, TrialRun,
};
use rbm_core::experiments::{find_preset, AisSpec, Preset, Scale};
use rbm_core::train::Record;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Options of `rbm reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceCmd {
    /// Preset: sdcp-shifting-bar, sdcp-bas3, ucd-bas4, pcd-mnist-25, sdcp-mnist (`rbm presets`
    /// lists them with their settings), or rates-fpcd-mnist (the samplers of the rates-FPCD
    /// paper on one trained model)
    preset: String,
    #[command(flatten)]
    study: super::study_args::StudyArgs,
    /// Independent trials per (algorithm, learning rate) [default: the preset's at --scale]
    #[arg(long, conflicts_with = "trials")]
    runs: Option<usize>,
    /// Run only trials FIRST..LAST (both included, e.g. 3..7; or one index): trial i is
    /// seeded as in the whole study, so any split of a study over machines gives its numbers
    #[arg(long, value_name = "FIRST..LAST")]
    trials: Option<String>,
    /// Print each trial's records (JSON lines with preset, lane, rate, trial and seed, then a
    /// `trial-end` line) instead of the statistics; `rbm summarize` merges such files
    #[arg(long)]
    per_trial: bool,
    /// Learning rates instead of the preset's (comma-separated)
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    lrs: Option<Vec<f64>>,
    /// rates-fpcd-mnist only: the model sampled [default: the page's shipped FPCD model]
    #[arg(long)]
    model: Option<String>,
    /// rates-fpcd-mnist only: samples per sampler run [default: 2000]
    #[arg(long)]
    samples: Option<u64>,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
}

/// The first line.
#[derive(Serialize)]
struct Header<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    preset: &'a Preset,
    seed: u64,
    runs: usize,
    /// The first trial's index (the trials are first_trial..first_trial + runs).
    first_trial: usize,
    /// Whether the lines that follow are each trial's records (`--per-trial`).
    per_trial: bool,
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
    /// With `--scale paper`: "paper" (the defaults were the paper's scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<Scale>,
    /// With `--device gpu`: "gpu: " and the adapter the trials ran on …
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<String>,
    /// … but for these algorithms', which ran on the CPU engine (the GPU engine does not run
    /// them).
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_algos: Option<Vec<&'static str>>,
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

/// Runs `rbm reproduce`.
pub fn run(a: ReproduceCmd, out: &mut Out) -> CliResult {
    let scale = a.study.scale()?;
    if a.preset == rbm_core::sampler::study::NAME {
        if a.device.is_gpu() {
            return fail(format!(
                "{} runs its sampler study on the CPU only; `rbm sample --device gpu` runs each \
                 sampler on the GPU",
                a.preset
            ));
        }
        if a.study.dry_run {
            return fail(format!(
                "--dry-run plans the presets of `rbm presets`; {} samples one trained model",
                a.preset
            ));
        }
        if scale == Scale::Paper {
            eprintln!(
                "note: {} has no reduced scale: --scale paper changes nothing",
                a.preset
            );
        }
        let seed = a.study.seed.unwrap_or_else(entropy_seed);
        return super::sample::run_study(a.model, a.samples, seed, threads(a.study.threads)?, out);
    }
    let wall = Instant::now();
    let p = find_preset(&a.preset)?;
    let threads = threads(a.study.threads)?;
    let seed = a.study.seed.unwrap_or_else(entropy_seed);
    let (first, runs) = match &a.trials {
        Some(t) => {
            let (first, last) = parse_trials(t)?;
            (Some(first), Some(last - first + 1))
        }
        None => (None, a.runs),
    };
    let req = a.study.request(runs, first, a.lrs.clone())?;
    let eval = p.eval_data.map(load_data).transpose()?;
    // The rates' flag here is --lrs, where the lane's option is --lr.
    let study =
        Study::with_data(p, &req, seed, load_data(p.data)?, eval).map_err(|e| match e.key() {
            Some("lr") => Failure::Msg(format!("{e} (--lrs)")),
            _ => Failure::from(e),
        })?;
    if scale == Scale::Paper && p.paper_scale.is_none() {
        eprintln!(
            "note: preset '{}' runs at its paper's scale by default: --scale paper changes nothing",
            p.name
        );
    }
    let gpu = a.device.open()?;
    // The checkpoints' log Z (exact or AIS) on the GPU too, for every lane alike.
    let study = match &gpu {
        Some(dev) => study.measure_log_z_on(std::sync::Arc::new(rbm_gpu::measure::GpuLogZ::new(
            dev.clone(),
        ))),
        None => study,
    };
    let cost = study.estimate(&CLI, threads, |algo| {
        gpu.is_none() || !<rbm_gpu::Gpu as Engine>::runs(algo)
    })?;
    let note = estimate_note(&study, &cost, threads, gpu.is_some());
    let mut report = Report::new(
        &study,
        a.per_trial,
        gpu.as_deref().map(|d| super::gpu::label(Some(d))),
    );
    report.header(out)?;
    if a.study.dry_run {
        return out.line(&Estimate {
            kind: "estimate",
            trials: study.groups.len() * study.runs,
            threads,
            wall_seconds: cost.wall_secs,
            train_seconds: cost.train_secs,
            eval_seconds: cost.eval_secs,
            note,
        });
    }
    if cost.wall_secs > LONG_STUDY_SECS {
        eprintln!("note: {note}");
    }
    let (groups, runs, first) = (study.groups.len(), study.runs, study.first);

    // Trials finish in any order; they are printed in index order (group-major), each group's
    // checkpoints as soon as its trials are all in (or, with --per-trial, each trial's records
    // as soon as it and the trials before it are in).
    let mut slots: Vec<Option<Trial>> = (0..groups * runs).map(|_| None).collect();
    let mut next = 0;
    let mut failure: Option<Failure> = None;
    let works = jobs::works(&study, gpu.as_ref(), true);
    let progress = StudyProgress::start(groups * runs, study.iters, cost.wall_secs);
    let told = Some(&progress);
    parallel(
        works.len(),
        threads,
        |w| match &works[w] {
            Work::Job(dev, plans) => jobs::job(&study, dev, plans, true, told),
            Work::One(idx) => vec![(*idx, jobs::one(&study, gpu.as_ref(), *idx, true, told))],
        },
        |_, results| {
            for (idx, res) in results {
                progress.finished(idx);
                match res {
                    Ok(t) => {
                        slots[idx] = Some(t);
                        let mut flush = || -> CliResult {
                            if a.per_trial {
                                while next < slots.len() && slots[next].is_some() {
                                    let t = slots[next].take().expect("checked");
                                    report.trial(out, next / runs, first + next % runs, &t)?;
                                    next += 1;
                                }
                            } else {
                                while next < groups
                                    && slots[next * runs..(next + 1) * runs]
                                        .iter()
                                        .all(Option::is_some)
                                {
                                    let trials: Vec<Trial> = slots[next * runs..(next + 1) * runs]
                                        .iter_mut()
                                        .map(|t| t.take().expect("checked"))
                                        .collect();
                                    report.group(out, next, trials)?;
                                    next += 1;
                                }
                            }
                            Ok(())
                        };
                        if let Err(e) = flush() {
                            failure = Some(e);
                        }
                    }
                    Err(e) => failure = Some(e.into()),
                }
                if failure.is_some() {
                    break;
                }
            }
            failure.is_none()
        },
    );
    if let Some(f) = failure {
        return Err(f);
    }
    if a.per_trial {
        return Ok(());
    }
    report.finish(out, wall.elapsed().as_secs_f64(), threads)
}

/// A study estimated longer than this (seconds) is announced on stderr, with its estimate,
/// before it starts.
const LONG_STUDY_SECS: f64 = 600.0;

/// `--dry-run`'s line after the header: the study's estimated cost by the cost model, at the
/// command line's assumed speeds ([`CLI`]).
#[derive(Serialize)]
struct Estimate {
    #[serde(rename = "type")]
    kind: &'static str,
    /// Trials in all (lanes × rates × runs).
    trials: usize,
    threads: usize,
    /// Estimated wall time on `threads` threads.
    wall_seconds: f64,
    /// Training on the CPU, summed over the trials (one core each).
    train_seconds: f64,
    /// The measurements at the checkpoints, summed over the trials (one core each).
    eval_seconds: f64,
    /// The estimate in words, with what would shorten it.
    note: String,
}

/// The algorithms of the study's lanes, in the preset's order.
fn study_algos(study: &Study) -> Vec<&'static str> {
    let mut algos: Vec<&'static str> = study
        .groups
        .iter()
        .map(|&(li, _)| study.preset.lanes[li].algo)
        .collect();
    algos.dedup();
    algos
}

/// The study's size and estimated duration in words, and what would shorten it: `--device gpu`
/// for the lanes the GPU engine trains (when not on it already), `--trials` to split it.
fn estimate_note(study: &Study, cost: &StudyCost, threads: usize, on_gpu: bool) -> String {
    let p = study.preset;
    let measure = match (&study.eval, study.ais) {
        (None, _) => "the lanes' exact ATLL".to_string(),
        (Some(_), None) => format!("the exact ATLL of '{}'", p.eval_data.unwrap_or("")),
        (Some(_), Some(a)) => format!(
            "AIS of '{}' ({} particles × {} β)",
            p.eval_data.unwrap_or(""),
            a.particles,
            a.betas
        ),
    };
    let mut text = format!(
        "preset '{}'{}: {} trials of {} updates, each measured at {} checkpoints by {measure}: \
         about {} on {threads} thread(s) (estimated: {} of training and {} of measurements on \
         one core{})",
        p.name,
        if study.scale == Scale::Paper {
            " at the paper's scale"
        } else {
            ""
        },
        study.groups.len() * study.runs,
        study.iters,
        study.schedule().len(),
        duration(cost.wall_secs),
        duration(cost.train_secs),
        duration(cost.eval_secs),
        if on_gpu {
            ", training and measurements on the GPU not counted: the progress lines on stderr give \
             the time left at the pace so far"
        } else {
            ""
        },
    );
    let gpu_algos: Vec<&str> = study_algos(study)
        .into_iter()
        .filter(|a| <rbm_gpu::Gpu as Engine>::runs(a))
        .collect();
    if !on_gpu && !gpu_algos.is_empty() {
        text += &format!(
            "; --device gpu trains {} and takes the measurements' log Z on the GPU",
            gpu_algos.join(", ")
        );
    }
    text + "; --trials splits the study over machines (docs/cli.md)"
}

/// `A..B` (trials A to B, both included), or `A` alone.
pub fn parse_trials(text: &str) -> CliResult<(usize, usize)> {
    let bad = || {
        Failure::Msg(format!(
            "--trials takes FIRST..LAST (both included, e.g. 3..7) or one trial index, got '{text}'"
        ))
    };
    let num = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
    let (first, last) = match text.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let t = num(text)?;
            (t, t)
        }
    };
    if last < first {
        return Err(bad());
    }
    Ok((first, last))
}

/// One finished trial.
pub struct Trial {
    /// Its records and training times.
    pub run: TrialRun,
    /// Wall seconds it took (training and evaluation).
    pub seconds: f64,
}

/// A line of `--per-trial` output: one record of one trial.
#[derive(Serialize, Deserialize)]
pub struct TrialLine {
    #[serde(rename = "type")]
    kind: String,
    /// The preset.
    pub preset: String,
    /// The algorithm.
    pub algo: String,
    /// The lane's label.
    pub label: String,
    /// The lane's index in the preset (its sampling stream).
    pub lane: usize,
    /// The learning rate.
    pub lr: f64,
    /// The trial's index.
    pub trial: usize,
    /// The trial's seed, `trial_seed(seed, trial)`.
    pub seed: u64,
    /// The record.
    #[serde(flatten)]
    pub record: Record,
    /// Training seconds up to this record (evaluations left out; a timing field).
    pub train_seconds: Option<f64>,
}

/// The last line of a trial in `--per-trial` output: how many records it made (fewer than the
/// checkpoints when it diverged) and how long it took. A trial without it did not finish.
#[derive(Serialize, Deserialize)]
pub struct TrialEnd {
    #[serde(rename = "type")]
    kind: String,
    /// The preset.
    pub preset: String,
    /// The algorithm.
    pub algo: String,
    /// The lane's label.
    pub label: String,
    /// The lane's index in the preset.
    pub lane: usize,
    /// The learning rate.
    pub lr: f64,
    /// The trial's index.
    pub trial: usize,
    /// Records made.
    pub records: usize,
    /// Whether it diverged before the last checkpoint.
    pub diverged: bool,
    /// Wall seconds (a timing field).
    pub seconds: f64,
}

/// The lines `rbm reproduce` prints for a study, shared with `rbm summarize` so both print the
/// same lines for the same trials.
pub struct Report<'a> {
    study: &'a Study,
    per_trial: bool,
    /// The GPU the trials ran on, if any.
    gpu: Option<String>,
    summaries: Vec<(usize, f64, SummaryBody)>,
    finals: Vec<(usize, f64, Checkpoint)>,
    bands: Vec<(f64, LaneBand)>,
}

impl<'a> Report<'a> {
    /// The report of `study` (`per_trial`: each trial's records instead of the statistics).
    pub fn new(study: &'a Study, per_trial: bool, gpu: Option<String>) -> Report<'a> {
        Report {
            study,
            per_trial,
            gpu,
            summaries: Vec::new(),
            finals: Vec::new(),
            bands: Vec::new(),
        }
    }

    /// The rates of the study, in the order given.
    fn rates(&self) -> Vec<f64> {
        let mut rates: Vec<f64> = Vec::new();
        for &(_, lr) in &self.study.groups {
            if !rates.contains(&lr) {
                rates.push(lr);
            }
        }
        rates
    }

    /// The first line.
    pub fn header(&self, out: &mut Out) -> CliResult {
        let (study, p) = (self.study, self.study.preset);
        let algos = study_algos(study);
        out.line(&Header {
            kind: "header",
            preset: p,
            seed: study.seed,
            runs: study.runs,
            first_trial: study.first,
            per_trial: self.per_trial,
            iters: study.iters,
            every: study.every,
            rows: study.data.rows(),
            bound: study.data.bound(),
            eval_data: p.eval_data,
            eval_rows: study.eval.as_ref().map(|e| e.rows()),
            measure: if study.ais.is_some() { "ais" } else { "exact" },
            ais: study.ais,
            cpu_algos: self.gpu.as_ref().map(|_| {
                algos
                    .iter()
                    .copied()
                    .filter(|a| !<rbm_gpu::Gpu as Engine>::runs(a))
                    .collect()
            }),
            algos,
            rates: &self.rates(),
            scale: (study.scale == Scale::Paper).then_some(Scale::Paper),
            device: self.gpu.clone(),
        })
    }

    /// Trial `trial` of group `g`'s records, one line each, then its end line.
    pub fn trial(&self, out: &mut Out, g: usize, trial: usize, t: &Trial) -> CliResult {
        let p = self.study.preset;
        let (li, lr) = self.study.groups[g];
        let lane = &p.lanes[li];
        for (k, r) in t.run.records.iter().enumerate() {
            out.line(&TrialLine {
                kind: "trial".into(),
                preset: p.name.into(),
                algo: lane.algo.into(),
                label: lane.label.into(),
                lane: li,
                lr,
                trial,
                seed: trial_seed(self.study.seed, trial as u64),
                record: r.clone(),
                train_seconds: t.run.train_seconds.get(k).copied(),
            })?;
        }
        out.line(&TrialEnd {
            kind: "trial-end".into(),
            preset: p.name.into(),
            algo: lane.algo.into(),
            label: lane.label.into(),
            lane: li,
            lr,
            trial,
            records: t.run.records.len(),
            diverged: t.run.records.len() < self.study.schedule().len(),
            seconds: t.seconds,
        })
    }

    /// Group `g`'s checkpoint lines from all its trials (in trial order).
    pub fn group(&mut self, out: &mut Out, g: usize, trials: Vec<Trial>) -> CliResult {
        let study = self.study;
        let p = study.preset;
        let (li, lr) = study.groups[g];
        let seconds = trials.iter().map(|t| t.seconds).sum();
        let runs: Vec<TrialRun> = trials.into_iter().map(|t| t.run).collect();
        let lane = &p.lanes[li];
        let cps: Vec<Checkpoint> = study.checkpoints(g, &runs)?;
        if let Some(last) = cps.last() {
            self.finals.push((li, lr, last.clone()));
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
        self.bands.push((lr, band(lane.label, runs.len(), &cps)));
        if let Some(s) = summarize(&cps, study.data.bound()) {
            self.summaries.push((
                li,
                lr,
                SummaryBody {
                    summary: s,
                    trials: runs.len(),
                    seconds,
                },
            ));
        }
        Ok(())
    }

    /// The summary lines, a ranking and the paper's claims per learning rate, and the last line.
    pub fn finish(self, out: &mut Out, wall_seconds: f64, threads: usize) -> CliResult {
        let study = self.study;
        let p = study.preset;
        for (li, lr, s) in &self.summaries {
            let lane = &p.lanes[*li];
            out.line(&Line {
                kind: "summary",
                algo: lane.algo,
                label: lane.label,
                lr: *lr,
                body: s,
            })?;
        }
        let end = study.schedule().last().copied().unwrap_or(0);
        for lr in self.rates() {
            let mut order: Vec<(&str, &Checkpoint)> = self
                .finals
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
            let bands: Vec<LaneBand> = self
                .bands
                .iter()
                .filter(|(r, _)| *r == lr)
                .map(|(_, b)| b.clone())
                .collect();
            for v in claims::evaluate(p.claims, lr, &bands, end, study.data.bound()) {
                out.line(&ClaimLine {
                    kind: "claim",
                    lr,
                    status: v.status.words(),
                    verdict: v,
                })?;
            }
        }
        out.line(&Done {
            kind: "done",
            trials: study.groups.len() * study.runs,
            wall_seconds,
            threads,
        })
    }
}

/// A lane's band as the claims read it: its label, trials and medians.
pub fn band(label: &str, trials: usize, cps: &[Checkpoint]) -> LaneBand {
    LaneBand {
        label: label.to_string(),
        trials,
        points: cps
            .iter()
            .map(|c| BandPoint {
                iter: c.iter,
                median: c.median,
                stats: c.stats.clone(),
            })
            .collect(),
    }
}

/// One claim's verdict at one learning rate.
#[derive(Serialize)]
struct ClaimLine {
    #[serde(rename = "type")]
    kind: &'static str,
    lr: f64,
    #[serde(flatten)]
    verdict: Verdict,
    /// The verdict in words: holds, does not hold, not decided yet.
    #[serde(rename = "verdict")]
    status: &'static str,
}

//! `rbm explore PRESET`: the claims explorer (issue 29). Runs the preset's study in every cell
//! of a grid over the conditions its paper's claims may depend on — the learning rate
//! (`--lrs`), the initialisation's scale (`--init-sigmas`) and the algorithms' own knobs
//! (`--ks`, `--ds`, `--kprimes`, `--chains`, `--batches`) — and prints, per cell, each lane's
//! summary and one line per claim with `holds` and the number the claim is about
//! ([`rbm_core::experiments::explore`]).
//!
//! Each cell's trials are seeded as `rbm reproduce` seeds its trials, so the cell at the
//! preset's own settings prints the verdicts and quantiles `rbm reproduce` prints for that
//! learning rate. `--cells FIRST..LAST` runs part of a grid (GNU parallel, several machines);
//! `rbm summarize` merges the parts into exactly the lines of the whole run (the `done` line's
//! timing fields aside). Trials run on threads as in `reproduce`; the output does not depend
//! on `--threads`.

use super::common::{
    entropy_seed, fail, load_data, parallel, threads, CliResult, Failure, Out, Progress,
};
use super::jobs::{self, Work};
use super::reproduce::band;
use clap::Args;
use rbm_core::cost::{duration, CLI};
use rbm_core::data::Dataset;
use rbm_core::experiments::explore::{
    cell_study, grid_estimate, is_preset_point, judge, own_init_sigma, CellVerdict, Grid,
    GridRequest, Settings,
};
use rbm_core::experiments::trials::{summarize, Study, Summary, TrialRun};
use rbm_core::experiments::{find_preset, AisSpec, Preset, Scale};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// Options of `rbm explore`.
#[derive(Args, Debug)]
pub struct ExploreCmd {
    /// Preset (`rbm presets` lists them): its lanes, data, length and claims
    preset: String,
    #[command(flatten)]
    study: super::study_args::StudyArgs,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
    /// Trials per cell and lane, seeded as `rbm reproduce` seeds trials 0..N [default: the
    /// preset's at --scale]
    #[arg(long)]
    trials_per_cell: Option<usize>,
    /// Run only cells FIRST..LAST (both included, e.g. 0..5; or one index) of the grid, whose
    /// cells are numbered learning rate slowest, then σ, k, d, K′, chains, batch; `rbm
    /// summarize` merges the parts
    #[arg(long, value_name = "FIRST..LAST")]
    cells: Option<String>,
    /// Learning rates (comma-separated) [default: the preset's]
    #[arg(long, allow_hyphen_values = true)]
    lrs: Option<String>,
    /// Standard deviations of the initial draws (W for the sdcp initialisation, W, b, c for
    /// ucd; comma-separated) [default: the initialisation's own, 0.01 or 0.1]
    #[arg(long, allow_hyphen_values = true)]
    init_sigmas: Option<String>,
    /// Gibbs sweeps k of the lanes that read k (CD, PCD, CG, UCD) [default: the preset's]
    #[arg(long, allow_hyphen_values = true)]
    ks: Option<String>,
    /// S-DCP / CS-DCP inner steps d [default: the preset's]
    #[arg(long, allow_hyphen_values = true)]
    ds: Option<String>,
    /// S-DCP / CS-DCP sweeps per inner step K′ [default: the preset's]
    #[arg(long, allow_hyphen_values = true)]
    kprimes: Option<String>,
    /// Negative chains [default: the preset's]
    #[arg(long, allow_hyphen_values = true)]
    chains: Option<String>,
    /// Mini-batch sizes [default: the preset's]
    #[arg(long, allow_hyphen_values = true)]
    batches: Option<String>,
}

/// A comma-separated list of numbers given to `--flag` (an empty list is the core's to
/// refuse, naming the flag).
fn numbers(flag: &str, text: &Option<String>) -> CliResult<Option<Vec<f64>>> {
    let Some(text) = text else { return Ok(None) };
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<f64>().map_err(|_| {
                Failure::Msg(format!("--{flag} takes comma-separated numbers, got '{s}'"))
            })
        })
        .collect::<CliResult<Vec<f64>>>()
        .map(Some)
}

/// The flag of a grid setting's option key (an error about `k` names `--ks`).
fn flag_of(key: &str) -> Option<&'static str> {
    Some(match key {
        "lr" | "lrs" => "lrs",
        "init_sigma" | "init-sigmas" => "init-sigmas",
        "k" | "ks" => "ks",
        "d" | "ds" => "ds",
        "kprime" | "kprimes" => "kprimes",
        "chains" => "chains",
        "batch" | "batches" => "batches",
        "runs" => "trials-per-cell",
        "cells" => "cells",
        _ => return None,
    })
}

fn failure(e: rbm_core::Error) -> Failure {
    match e.key().and_then(flag_of) {
        Some(flag) => Failure::Msg(format!("{e} (--{flag})")),
        None => Failure::from(e),
    }
}

/// The grid's axes as the header prints them (null: the preset's own setting).
#[derive(Serialize)]
struct Axes<'a> {
    lr: &'a [f64],
    init_sigma: &'a [Option<f64>],
    k: &'a [Option<u64>],
    d: &'a [Option<u64>],
    kprime: &'a [Option<u64>],
    chains: &'a [Option<u64>],
    batch: &'a [Option<u64>],
}

/// The first line: identical in every part of a split grid.
#[derive(Serialize)]
struct Header<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    command: &'static str,
    preset: &'a Preset,
    seed: u64,
    trials_per_cell: usize,
    iters: u64,
    every: u64,
    measure: &'static str,
    ais: Option<AisSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<Scale>,
    /// The lanes run in every cell (labels).
    lanes: Vec<&'static str>,
    /// The claims judged in every cell.
    claims: Vec<&'static str>,
    axes: Axes<'a>,
    /// The preset's own initialisation scale (where σ is null).
    own_init_sigma: f64,
    /// Cells in the whole grid.
    cells: usize,
    /// With `--device gpu`: "gpu: " and the adapter (the lanes a GPU job takes train there,
    /// their draws the GPU's own: a grid's numbers are its device's).
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<String>,
}

/// The second line: the cells that follow.
#[derive(Serialize)]
struct Range {
    #[serde(rename = "type")]
    kind: &'static str,
    first_cell: usize,
    last_cell: usize,
}

/// One lane's summary in one cell.
#[derive(Serialize)]
struct LaneLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    cell: usize,
    algo: &'a str,
    label: &'a str,
    lr: f64,
    trials: usize,
    #[serde(flatten)]
    summary: &'a Summary,
}

/// One claim judged in one cell.
#[derive(Serialize)]
struct ClaimLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    cell: usize,
    #[serde(flatten)]
    settings: &'a Settings,
    /// Whether this cell is the preset's own setting (its numbers are `rbm reproduce`'s).
    preset_point: bool,
    #[serde(flatten)]
    verdict: &'a CellVerdict,
}

#[derive(Serialize)]
struct Done {
    #[serde(rename = "type")]
    kind: &'static str,
    cells: usize,
    trials: usize,
    wall_seconds: f64,
    threads: usize,
}

#[derive(Serialize)]
struct Estimate {
    #[serde(rename = "type")]
    kind: &'static str,
    cells: usize,
    trials: usize,
    threads: usize,
    wall_seconds: f64,
    train_seconds: f64,
    eval_seconds: f64,
    note: String,
}

/// An explorer's grid studies longer than this (seconds, estimated) are announced on stderr.
const LONG_SECS: f64 = 600.0;

/// `A..B` or `A` for `--cells`.
fn parse_cells(text: &str, total: usize) -> CliResult<(usize, usize)> {
    let bad = || {
        Failure::Msg(format!(
            "--cells takes FIRST..LAST (both included, e.g. 0..5) or one cell index below {total}, got '{text}'"
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
    if last < first || last >= total {
        return Err(bad());
    }
    Ok((first, last))
}

/// A cell's settings in words, for messages.
fn describe(s: &Settings) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Runs `rbm explore`.
pub fn run(a: ExploreCmd, out: &mut Out) -> CliResult {
    let wall = Instant::now();
    let scale = a.study.scale()?;
    let p = find_preset(&a.preset)?;
    let threads = threads(a.study.threads)?;
    let grid = Grid::new(
        p,
        &GridRequest {
            lrs: numbers("lrs", &a.lrs)?,
            init_sigmas: numbers("init-sigmas", &a.init_sigmas)?,
            ks: numbers("ks", &a.ks)?,
            ds: numbers("ds", &a.ds)?,
            kprimes: numbers("kprimes", &a.kprimes)?,
            chains: numbers("chains", &a.chains)?,
            batches: numbers("batches", &a.batches)?,
        },
    )
    .map_err(failure)?;
    let (first, last) = match &a.cells {
        Some(t) => parse_cells(t, grid.len())?,
        None => (0, grid.len() - 1),
    };
    let seed = a.study.seed.unwrap_or_else(entropy_seed);
    let base = a.study.request(a.trials_per_cell, None, None)?;
    let data = Arc::new(load_data(p.data)?);
    let eval: Option<Arc<Dataset>> = p.eval_data.map(load_data).transpose()?.map(Arc::new);
    let mut studies: Vec<(Settings, bool, Study)> = Vec::with_capacity(last - first + 1);
    for i in first..=last {
        let s = grid.cell(i);
        let study =
            cell_study(p, &base, &s, seed, data.clone(), eval.clone()).map_err(
                |e| match failure(e) {
                    Failure::Msg(m) => Failure::Msg(format!("cell {i} ({}): {m}", describe(&s))),
                    f => f,
                },
            )?;
        let own = is_preset_point(p, &s)?;
        studies.push((s, own, study));
    }
    let gpu = a.device.open()?;
    let s0 = &studies[0].2;
    let lanes: Vec<&'static str> = s0.groups.iter().map(|&(li, _)| p.lanes[li].label).collect();
    out.line(&Header {
        kind: "header",
        command: "explore",
        preset: p,
        seed,
        trials_per_cell: s0.runs,
        iters: s0.iters,
        every: s0.every,
        measure: if s0.ais.is_some() { "ais" } else { "exact" },
        ais: s0.ais,
        scale: (scale == Scale::Paper).then_some(Scale::Paper),
        lanes: lanes.clone(),
        claims: p.claims.iter().map(|c| c.text).collect(),
        axes: Axes {
            lr: &grid.lrs,
            init_sigma: &grid.init_sigmas,
            k: &grid.ks,
            d: &grid.ds,
            kprime: &grid.kprimes,
            chains: &grid.chains,
            batch: &grid.batches,
        },
        own_init_sigma: own_init_sigma(p.init),
        cells: grid.len(),
        device: gpu.as_deref().map(|d| super::gpu::label(Some(d))),
    })?;
    out.line(&Range {
        kind: "range",
        first_cell: first,
        last_cell: last,
    })?;
    // The cost: every cell's study by the cost model, spread over the threads.
    let cost = grid_estimate(studies.iter().map(|(_, _, st)| st), &CLI, threads)?;
    let (train, evals, est) = (cost.train_secs, cost.eval_secs, cost.wall_secs);
    let per_cell = s0.groups.len() * s0.runs;
    let items = studies.len() * per_cell;
    let note = format!(
        "preset '{}': {} cell(s) of {} trials of {} updates: about {} on {threads} thread(s) \
         (estimated: {} of training and {} of measurements on one core); --cells splits the \
         grid over machines, --trials-per-cell and --iters shorten it",
        p.name,
        studies.len(),
        per_cell,
        s0.iters,
        duration(est),
        duration(train),
        duration(evals),
    );
    if a.study.dry_run {
        return out.line(&Estimate {
            kind: "estimate",
            cells: studies.len(),
            trials: items,
            threads,
            wall_seconds: est,
            train_seconds: train,
            eval_seconds: evals,
            note,
        });
    }
    if est > LONG_SECS {
        eprintln!("note: {note}");
    }
    let mut progress = Progress::start("explore", items as u64, "trials", est);
    let mut slots: Vec<Option<TrialRun>> = (0..items).map(|_| None).collect();
    let (mut next, mut done) = (0usize, 0u64);
    let mut failure_: Option<Failure> = None;
    // Each cell's work (with a GPU, one job of the lanes a job takes), cell after cell.
    let works: Vec<(usize, Work)> = studies
        .iter()
        .enumerate()
        .flat_map(|(c, (_, _, st))| {
            jobs::works(st, gpu.as_ref(), c == 0)
                .into_iter()
                .map(move |w| (c, w))
        })
        .collect();
    parallel(
        works.len(),
        threads,
        |w| {
            let (c, work) = &works[w];
            let st = &studies[*c].2;
            let ran = match work {
                Work::Job(dev, plans) => jobs::job(st, dev, plans, false, None),
                Work::One(idx) => vec![(*idx, jobs::one(st, gpu.as_ref(), *idx, false, None))],
            };
            ran.into_iter()
                .map(|(idx, r)| (c * per_cell + idx, r.map(|t| t.run)))
                .collect::<Vec<_>>()
        },
        |_, results| {
            for (idx, res) in results {
                match res {
                    Ok(run) => {
                        slots[idx] = Some(run);
                        done += 1;
                    }
                    Err(e) => {
                        failure_ = Some(e.into());
                        return false;
                    }
                }
            }
            progress.tick(done);
            while next < studies.len()
                && slots[next * per_cell..(next + 1) * per_cell]
                    .iter()
                    .all(Option::is_some)
            {
                let trials: Vec<TrialRun> = slots[next * per_cell..(next + 1) * per_cell]
                    .iter_mut()
                    .map(|t| t.take().expect("checked"))
                    .collect();
                let (s, own, st) = &studies[next];
                if let Err(e) = print_cell(out, first + next, s, *own, st, trials) {
                    failure_ = Some(e);
                    return false;
                }
                next += 1;
            }
            failure_.is_none()
        },
    );
    if let Some(f) = failure_ {
        return Err(f);
    }
    out.line(&Done {
        kind: "done",
        cells: studies.len(),
        trials: items,
        wall_seconds: wall.elapsed().as_secs_f64(),
        threads,
    })
}

/// One cell's lines: each lane's summary, then each claim's verdict with its number.
fn print_cell(
    out: &mut Out,
    cell: usize,
    s: &Settings,
    own: bool,
    st: &Study,
    trials: Vec<TrialRun>,
) -> CliResult {
    let p = st.preset;
    let runs = st.runs;
    let mut bands = Vec::with_capacity(st.groups.len());
    for (g, chunk) in trials.chunks(runs).enumerate() {
        let (li, lr) = st.groups[g];
        let lane = &p.lanes[li];
        let cps = st.checkpoints(g, chunk)?;
        if let Some(summary) = summarize(&cps, st.data.bound()) {
            out.line(&LaneLine {
                kind: "lane",
                cell,
                algo: lane.algo,
                label: lane.label,
                lr,
                trials: runs,
                summary: &summary,
            })?;
        }
        bands.push(band(lane.label, runs, &cps));
    }
    let end = st.schedule().last().copied().unwrap_or(0);
    let verdicts = judge(p.claims, &bands, end, st.data.bound());
    let held = verdicts.iter().filter(|v| v.holds == Some(true)).count();
    for v in &verdicts {
        out.line(&ClaimLine {
            kind: "claim",
            cell,
            settings: s,
            preset_point: own,
            verdict: v,
        })?;
    }
    eprintln!(
        "{}",
        serde_json::json!({
            "progress": "explore",
            "cell": cell,
            "claims_holding": held,
            "claims": verdicts.len(),
        })
    );
    Ok(())
}

/// Whether the first line of `text` is an explorer's header (`rbm summarize` then merges
/// explorer parts).
pub fn is_explore_output(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|v| v["type"] == "header" && v["command"] == "explore")
}

/// Merges parts of one grid (`rbm explore --cells …` output) into the lines of the whole run:
/// the parts' headers must be the same line; every cell from the lowest to the highest given
/// must be present and complete (its lanes' and claims' lines); a cell given twice must be the
/// same lines (else both files are named).
pub fn merge(files: &[(String, String)], out: &mut Out) -> CliResult {
    let wall = Instant::now();
    let mut header: Option<(String, String)> = None;
    // cell → (its lines, the file).
    let mut cells: BTreeMap<usize, (Vec<String>, String)> = BTreeMap::new();
    let mut per_cell = 0usize;
    let mut trials_per_cell = 0usize;
    for (file, text) in files {
        let mut here: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let mut saw = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = || format!("{file}, line {}", n + 1);
            let v: Value = serde_json::from_str(line)
                .map_err(|e| Failure::Msg(format!("{}: not JSON ({e})", at())))?;
            match v["type"].as_str() {
                Some("header") => {
                    if v["command"] != "explore" {
                        return fail(format!(
                            "{}: not the output of `rbm explore` (files of `rbm reproduce --per-trial` and of `rbm explore` cannot be merged together)",
                            at()
                        ));
                    }
                    match &header {
                        None => {
                            let lanes = v["lanes"].as_array().map_or(0, Vec::len);
                            let claims = v["claims"].as_array().map_or(0, Vec::len);
                            per_cell = lanes + claims;
                            trials_per_cell = lanes
                                * v["trials_per_cell"].as_u64().unwrap_or(0) as usize;
                            header = Some((line.to_string(), file.clone()));
                        }
                        Some((h, f0)) if h != line => {
                            return fail(format!(
                                "{file} and {f0} are of different grids (preset, seed, length, lanes, axes or device differ)"
                            ))
                        }
                        _ => {}
                    }
                    saw = true;
                }
                Some("lane" | "claim") => {
                    if !saw {
                        return fail(format!("{}: a cell's line before the file's header", at()));
                    }
                    let c = v["cell"]
                        .as_u64()
                        .ok_or_else(|| Failure::Msg(format!("{}: a line without its cell", at())))?
                        as usize;
                    here.entry(c).or_default().push(line.to_string());
                }
                _ => {}
            }
        }
        if !saw {
            return fail(format!(
                "{file} has no header line: not `rbm explore` output"
            ));
        }
        for (c, lines) in here {
            if lines.len() != per_cell {
                return fail(format!(
                    "cell {c} in {file} has {} lines instead of {per_cell}: the job did not finish it; run it again",
                    lines.len()
                ));
            }
            match cells.get(&c) {
                None => {
                    cells.insert(c, (lines, file.clone()));
                }
                Some((old, f0)) if *old != lines => {
                    return fail(format!(
                        "cell {c} is in {f0} and in {file} with other numbers: which is right cannot be told; remove one"
                    ))
                }
                _ => {}
            }
        }
    }
    let Some((h, _)) = header else {
        return fail("no input");
    };
    let (Some(&first), Some(&last)) = (cells.keys().next(), cells.keys().next_back()) else {
        return fail("the files hold no finished cell");
    };
    if let Some(missing) = (first..=last).find(|c| !cells.contains_key(c)) {
        return fail(format!(
            "cell {missing} is missing (cells {first}..{last} are merged)"
        ));
    }
    out.raw(&h)?;
    out.line(&Range {
        kind: "range",
        first_cell: first,
        last_cell: last,
    })?;
    for (lines, _) in cells.values() {
        for l in lines {
            out.raw(l)?;
        }
    }
    out.line(&Done {
        kind: "done",
        cells: cells.len(),
        trials: cells.len() * trials_per_cell,
        wall_seconds: wall.elapsed().as_secs_f64(),
        threads: 1,
    })
}

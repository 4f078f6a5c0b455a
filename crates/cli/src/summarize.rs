//! `rbm summarize FILE…`: merges the per-trial output of `rbm reproduce PRESET --per-trial`
//! (any split of a study's trials over files, jobs or machines) into exactly the lines
//! `rbm reproduce` prints for the same trials (and parts of an explorer's grid, `rbm explore
//! --cells`, into the lines of the whole grid: [`super::explore::merge`]) — the statistics are the core's, computed from
//! the same records, so everything but the timing fields is the same, bit for bit.
//!
//! Each file starts with its run's header (preset, seed, length, lanes, rates, its trials);
//! the headers must describe one study. Every trial of the merged range must be present, each
//! ended by its `trial-end` line (a job that was killed leaves none, and is reported, rather
//! than being taken for a diverged trial). A trial given twice (the same file listed twice, or
//! a job run again) is taken once when both copies are the same numbers; a partial copy (a
//! killed job's: no `trial-end` line) whose records the complete copy begins with is dropped
//! with a note on stderr, in whichever order the files come; copies with other numbers are
//! refused, naming both files.

use super::common::{fail, load_data, read_input, CliResult, Failure, Out};
use super::reproduce::{Report, Trial, TrialEnd, TrialLine};
use clap::Args;
use rbm_core::experiments::trials::{Study, StudyRequest, TrialRun};
use rbm_core::experiments::{find_preset, Scale};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Instant;

/// Options of `rbm summarize`.
#[derive(Args, Debug)]
pub struct SummarizeCmd {
    /// Files written by `rbm reproduce PRESET --per-trial` (gzipped or not; `-` reads stdin)
    #[arg(required = true)]
    files: Vec<String>,
}

/// What a header says about its study; every file's must agree.
#[derive(PartialEq, Debug, Clone)]
struct StudyKey {
    preset: String,
    seed: u64,
    iters: u64,
    every: u64,
    algos: Value,
    rates: Value,
    ais: Value,
    /// The engine the trials ran on (`--device gpu`: "gpu: " and the adapter; None: the CPU),
    /// whose numbers differ from another's: files of two devices are not one study.
    device: Option<String>,
    /// "paper" for a study run with `--scale paper`, else null.
    scale: Value,
}

/// A trial as read: its records and, once its end line came, the end.
#[derive(Default)]
struct Read {
    lines: Vec<TrialLine>,
    end: Option<TrialEnd>,
    file: String,
}

fn key_of(h: &Value, file: &str) -> CliResult<StudyKey> {
    let bad = |what: &str| Failure::Msg(format!("{file}: the header has no {what}"));
    let u = |k: &str| h[k].as_u64().ok_or_else(|| bad(k));
    Ok(StudyKey {
        preset: h["preset"]["name"]
            .as_str()
            .ok_or_else(|| bad("preset"))?
            .to_string(),
        seed: u("seed")?,
        iters: u("iters")?,
        every: u("every")?,
        algos: h["algos"].clone(),
        rates: h["rates"].clone(),
        ais: h["ais"].clone(),
        device: h["device"].as_str().map(str::to_string),
        scale: h["scale"].clone(),
    })
}

/// Runs `rbm summarize`.
pub fn run(a: SummarizeCmd, out: &mut Out) -> CliResult {
    let wall = Instant::now();
    let mut key: Option<(StudyKey, String)> = None;
    // (lane, lr bits, trial) → the trial.
    let mut trials: BTreeMap<(usize, u64, usize), Read> = BTreeMap::new();
    let mut texts: Vec<(String, String)> = Vec::with_capacity(a.files.len());
    for file in &a.files {
        let bytes = read_input(file, "the per-trial file")?;
        let text =
            String::from_utf8(bytes).map_err(|_| Failure::Msg(format!("'{file}' is not text")))?;
        texts.push((file.clone(), text));
    }
    // Parts of an explorer's grid (`rbm explore --cells`) are merged as such.
    if texts
        .first()
        .is_some_and(|(_, t)| super::explore::is_explore_output(t))
    {
        return super::explore::merge(&texts, out);
    }
    for (file, text) in &texts {
        let mut saw_header = false;
        // This file's trials, merged with the others' once it is read whole.
        let mut here: BTreeMap<(usize, u64, usize), Read> = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = || format!("{file}, line {}", n + 1);
            let v: Value = serde_json::from_str(line)
                .map_err(|e| Failure::Msg(format!("{}: not JSON ({e})", at())))?;
            match v["type"].as_str() {
                Some("header") => {
                    if v["per_trial"] != Value::Bool(true) {
                        return fail(format!(
                            "{}: not the output of `rbm reproduce --per-trial`",
                            at()
                        ));
                    }
                    let k = key_of(&v, file)?;
                    match &key {
                        None => key = Some((k, file.clone())),
                        Some((k0, f0)) if *k0 != k => {
                            return fail(format!(
                                "{file} and {f0} are of different studies (preset, seed, scale, length, lanes, rates or device differ)"
                            ))
                        }
                        _ => {}
                    }
                    saw_header = true;
                }
                Some(kind @ ("trial" | "trial-end")) => {
                    if !saw_header {
                        return fail(format!("{}: a trial before the file's header", at()));
                    }
                    let bad = |e: serde_json::Error| Failure::Msg(format!("{}: {e}", at()));
                    let id = |lane: usize, lr: f64, trial: usize| (lane, lr.to_bits(), trial);
                    if kind == "trial" {
                        let t: TrialLine = serde_json::from_value(v).map_err(bad)?;
                        let read = here.entry(id(t.lane, t.lr, t.trial)).or_default();
                        if read.end.is_some() {
                            return fail(format!("{}: a record after its trial's end", at()));
                        }
                        read.lines.push(t);
                    } else {
                        let e: TrialEnd = serde_json::from_value(v).map_err(bad)?;
                        let read = here.entry(id(e.lane, e.lr, e.trial)).or_default();
                        if read.end.is_some() {
                            return fail(format!("{}: a second end of one trial", at()));
                        }
                        read.end = Some(e);
                    }
                }
                _ => {}
            }
        }
        if !saw_header {
            return fail(format!(
                "{file} has no header line: not `rbm reproduce --per-trial` output"
            ));
        }
        for (id, mut read) in here {
            read.file = file.clone();
            match trials.remove(&id) {
                None => trials.insert(id, read),
                Some(old) => trials.insert(id, merge(old, read)?),
            };
        }
    }
    let Some((k, _)) = key else {
        return fail("no input");
    };
    let ids: Vec<usize> = trials.keys().map(|&(_, _, t)| t).collect();
    let first = ids.iter().copied().min().unwrap_or(0);
    let last = ids.iter().copied().max().unwrap_or(0);
    let p = find_preset(&k.preset)?;
    let strings = |v: &Value| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|x| x.as_str().map(String::from))
            .collect()
    };
    let numbers =
        |v: &Value| -> Option<Vec<f64>> { v.as_array()?.iter().map(Value::as_f64).collect() };
    let ais = k.ais.as_object();
    let req = StudyRequest {
        scale: match k.scale.as_str() {
            Some(name) => Scale::parse(name)?,
            None => Scale::Reduced,
        },
        algos: strings(&k.algos),
        rates: numbers(&k.rates),
        runs: Some(last - first + 1),
        first: Some(first),
        epochs: None,
        iters: Some(k.iters),
        every: Some(k.every),
        particles: ais
            .and_then(|a| a["particles"].as_u64())
            .map(|x| x as usize),
        betas: ais.and_then(|a| a["betas"].as_u64()).map(|x| x as usize),
        overrides: Default::default(),
    };
    let eval = p.eval_data.map(load_data).transpose()?;
    let study = Study::with_data(p, &req, k.seed, load_data(p.data)?, eval)?;
    let mut report = Report::new(&study, false, k.device.clone());
    report.header(out)?;
    for (g, &(li, lr)) in study.groups.iter().enumerate() {
        let label = p.lanes[li].label;
        let mut group = Vec::with_capacity(study.runs);
        for trial in study.trials() {
            let Some(read) = trials.remove(&(li, lr.to_bits(), trial)) else {
                return fail(format!(
                    "trial {trial} of {label} at lr {lr} is missing (trials {first}..{last} are merged)"
                ));
            };
            let Some(end) = read.end else {
                return fail(format!(
                    "trial {trial} of {label} at lr {lr} did not finish in {} (no trial-end line): run it again",
                    read.file
                ));
            };
            if end.records != read.lines.len() {
                return fail(format!(
                    "trial {trial} of {label} at lr {lr} in {} has {} records, its end line says {}",
                    read.file,
                    read.lines.len(),
                    end.records
                ));
            }
            let train_seconds: Vec<f64> =
                read.lines.iter().filter_map(|l| l.train_seconds).collect();
            let records = read.lines.into_iter().map(|l| l.record).collect();
            group.push(Trial {
                run: TrialRun {
                    records,
                    train_seconds,
                },
                seconds: end.seconds,
            });
        }
        report.group(out, g, group)?;
    }
    if let Some(((li, lr, t), read)) = trials.into_iter().next() {
        return fail(format!(
            "{}: trial {t} of lane {li} at lr {} is not in this study",
            read.file,
            f64::from_bits(lr)
        ));
    }
    report.finish(out, wall.elapsed().as_secs_f64(), 1)
}

/// Whether a copy of a trial is whole: its end line, with as many records as it says.
fn complete(r: &Read) -> bool {
    r.end.as_ref().is_some_and(|e| e.records == r.lines.len())
}

/// Whether `short`'s records are the first records of `long` (the same numbers and seeds;
/// the timing fields aside).
fn begins(long: &Read, short: &Read) -> bool {
    short.lines.len() <= long.lines.len()
        && short
            .lines
            .iter()
            .zip(&long.lines)
            .all(|(a, b)| a.record == b.record && a.seed == b.seed)
}

/// One trial given twice (two files, or one file listed twice): the same numbers are taken
/// once (the first copy, with its timings); a partial copy that the other begins with gives way
/// to it, with a note on stderr when the other is complete; anything else is refused, naming
/// both files.
fn merge(old: Read, new: Read) -> CliResult<Read> {
    let what = |r: &Read| match (r.lines.first(), &r.end) {
        (Some(l), _) => format!("trial {} of {} at lr {}", l.trial, l.label, l.lr),
        (None, Some(e)) => format!("trial {} of {} at lr {}", e.trial, e.label, e.lr),
        (None, None) => "a trial".into(),
    };
    let (long, short) = if new.lines.len() > old.lines.len() || (complete(&new) && !complete(&old))
    {
        (new, old)
    } else {
        (old, new)
    };
    let same_end = match (&long.end, &short.end) {
        (Some(a), Some(b)) => a.records == b.records && a.diverged == b.diverged,
        _ => true,
    };
    if !begins(&long, &short) || !same_end || (complete(&short) && !complete(&long)) {
        return fail(format!(
            "{} is in {} and in {} with other numbers: which is right cannot be told; remove one",
            what(&long),
            long.file,
            short.file
        ));
    }
    if !complete(&short) && complete(&long) {
        eprintln!(
            "note: {} in {} did not finish ({} records, no trial-end line): its complete copy in {} is taken",
            what(&long),
            short.file,
            short.lines.len(),
            long.file
        );
    }
    Ok(long)
}

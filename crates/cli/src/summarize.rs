//! `rbm summarize FILE…`: merges the per-trial output of `rbm reproduce PRESET --per-trial`
//! (any split of a study's trials over files, jobs or machines) into exactly the lines
//! `rbm reproduce` prints for the same trials — the statistics are the core's, computed from
//! the same records, so everything but the timing fields is the same, bit for bit.
//!
//! Each file starts with its run's header (preset, seed, length, lanes, rates, its trials);
//! the headers must describe one study. Every trial of the merged range must be present, each
//! ended by its `trial-end` line (a job that was killed leaves none, and is reported, rather
//! than being taken for a diverged trial). A trial given twice must have the same records.

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
        scale: h["scale"].clone(),
    })
}

/// Runs `rbm summarize`.
pub fn run(a: SummarizeCmd, out: &mut Out) -> CliResult {
    let wall = Instant::now();
    let mut key: Option<(StudyKey, String)> = None;
    // (lane, lr bits, trial) → the trial.
    let mut trials: BTreeMap<(usize, u64, usize), Read> = BTreeMap::new();
    for file in &a.files {
        let bytes = read_input(file, "the per-trial file")?;
        let text =
            String::from_utf8(bytes).map_err(|_| Failure::Msg(format!("'{file}' is not text")))?;
        let mut saw_header = false;
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
                                "{file} and {f0} are of different studies (preset, seed, scale, length, lanes or rates differ)"
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
                    if kind == "trial" {
                        let t: TrialLine = serde_json::from_value(v).map_err(bad)?;
                        let id = (t.lane, t.lr.to_bits(), t.trial);
                        let read = trials.entry(id).or_default();
                        if read.file.is_empty() {
                            read.file = file.clone();
                        }
                        if read.file == *file {
                            read.lines.push(t);
                        } else {
                            check_same(read, &t, &at())?;
                        }
                    } else {
                        let e: TrialEnd = serde_json::from_value(v).map_err(bad)?;
                        let id = (e.lane, e.lr.to_bits(), e.trial);
                        let read = trials.entry(id).or_default();
                        if read.file.is_empty() {
                            read.file = file.clone();
                        }
                        if read.file == *file {
                            read.end = Some(e);
                        }
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
    };
    let eval = p.eval_data.map(load_data).transpose()?;
    let study = Study::with_data(p, &req, k.seed, load_data(p.data)?, eval)?;
    let mut report = Report::new(&study, false, None);
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

/// A trial given again (in another file) must be the same numbers.
fn check_same(read: &Read, t: &TrialLine, at: &str) -> CliResult {
    let same = read
        .lines
        .iter()
        .any(|l| l.record == t.record && l.seed == t.seed);
    if same {
        Ok(())
    } else {
        fail(format!(
            "{at}: trial {} of {} at lr {} was also in {} with other numbers",
            t.trial, t.label, t.lr, read.file
        ))
    }
}

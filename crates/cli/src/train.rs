//! `rbm train`: one seeded training lane (docs/algorithms.md §4), one JSON line per evaluation.

use super::common::{
    check_writable, entropy_seed, load_data, save_model, CliResult, Failure, Out, TrainArgs,
};
use clap::Args;
use rbm_core::train::{Lane, LaneConfig};
use serde::Serialize;
use std::sync::Arc;

/// Options of `rbm train`.
#[derive(Args, Debug)]
pub struct TrainCmd {
    /// Built-in data set (bas3, shifting-bar, bas4) or a file with one 0/1 pattern per line
    #[arg(long)]
    data: String,
    #[command(flatten)]
    lane: TrainArgs,
    /// Number of updates
    #[arg(long, default_value_t = 1000)]
    iters: u64,
    /// Write the final model (after a divergence: the last finite one) to this file
    #[arg(long)]
    save_model: Option<String>,
}

/// The first line: everything needed to repeat the run.
#[derive(Serialize)]
struct Header<'a> {
    seed: u64,
    data: &'a str,
    rows: usize,
    visible: usize,
    bound: Option<f64>,
    iters: u64,
    config: &'a LaneConfig,
}

/// Runs `rbm train`.
pub fn run(a: TrainCmd, out: &mut Out) -> CliResult {
    let data = Arc::new(load_data(&a.data)?);
    if let Some(path) = &a.save_model {
        check_writable(path)?;
    }
    let mut cfg = LaneConfig::default();
    a.lane.0.apply(&mut cfg)?;
    let seed = cfg.seed.unwrap_or_else(entropy_seed);
    cfg.seed = Some(seed);
    let mut lane = Lane::new(cfg.clone(), data.clone())?;
    out.line(&Header {
        seed,
        data: &data.name,
        rows: data.rows(),
        visible: data.m,
        bound: data.bound(),
        iters: a.iters,
        config: &cfg,
    })?;
    out.line(&lane.record()?)?;
    for _ in 0..a.iters {
        if let Err(e) = lane.step() {
            // The lane keeps its last finite model (the one at the last record).
            if let Some(path) = &a.save_model {
                if let Err(Failure::Msg(s)) = save_model(path, lane.model()) {
                    return Err(Failure::Msg(format!("{e}; moreover {s}")));
                }
            }
            return Err(e.into());
        }
        if lane.iter() % cfg.every == 0 {
            out.line(&lane.record()?)?;
        }
    }
    if !a.iters.is_multiple_of(cfg.every) {
        out.line(&lane.record()?)?;
    }
    if let Some(path) = &a.save_model {
        save_model(path, lane.model())?;
    }
    Ok(())
}

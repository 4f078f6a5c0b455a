//! `rbm train`: one seeded training lane (docs/algorithms.md §4), one JSON line per evaluation.

use super::common::{
    check_readable_back, check_writable, entropy_seed, fail, interrupt_flag, save_model, CliResult,
    Failure, Out, ProtocolArgs, TrainArgs, INTERRUPTED,
};
use clap::Args;
use rbm_core::data::Dataset;
use rbm_core::engine::Engine;
use rbm_core::train::{Lane, LaneConfig};
use serde::Serialize;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Options of `rbm train`.
#[derive(Args, Debug)]
pub struct TrainCmd {
    /// Built-in data set (bas3, shifting-bar, bas4, mnist, mnist-valid, mnist-test) or a file:
    /// one 0/1 pattern per line, or IDX images (either optionally gzipped)
    #[arg(long)]
    data: String,
    #[command(flatten)]
    lane: TrainArgs,
    /// Number of updates [default: 1000]
    #[arg(long, conflicts_with = "epochs")]
    iters: Option<u64>,
    /// Number of epochs (passes over the training rows), instead of --iters
    #[arg(long)]
    epochs: Option<u64>,
    /// Write the final model (after a divergence: the last finite one) to this file
    #[arg(long)]
    save_model: Option<String>,
    #[command(flatten)]
    protocol: ProtocolArgs,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
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
    /// Updates per pass over the training rows (rows / batch).
    updates_per_epoch: f64,
    /// The engine the updates ran on: "cpu", or "gpu: " and the adapter's name.
    device: &'a str,
    config: &'a LaneConfig,
}

/// Runs `rbm train`.
pub fn run(a: TrainCmd, out: &mut Out) -> CliResult {
    if a.protocol.protocol.is_some() && a.lane.0.given.iter().any(|(k, _)| k == "binarize") {
        return fail(
            "--binarize has no effect under --protocol: the data are binarised once by the \
             protocol (drop one of them)",
        );
    }
    let (data, _) = a.protocol.load(&a.data, out)?;
    let data = Arc::new(data);
    if let Some(path) = &a.save_model {
        check_writable(path)?;
    }
    let mut cfg = LaneConfig::default();
    a.lane.0.apply(&mut cfg)?;
    let seed = cfg.seed.unwrap_or_else(entropy_seed);
    cfg.seed = Some(seed);
    match a.device.open()? {
        None => {
            let lane = Lane::new(cfg.clone(), data.clone())?;
            train(lane, &a, cfg, &data, seed, "cpu", out)
        }
        Some(dev) => {
            let lane = Lane::on::<rbm_gpu::Gpu>(&dev, cfg.clone(), data.clone())?;
            let name = super::gpu::label(Some(&dev));
            train(lane, &a, cfg, &data, seed, &name, out)
        }
    }
}

/// The training loop of [`run`] on engine `E`.
fn train<E: Engine>(
    mut lane: Lane<E>,
    a: &TrainCmd,
    cfg: LaneConfig,
    data: &Dataset,
    seed: u64,
    device: &str,
    out: &mut Out,
) -> CliResult {
    if let Some(path) = &a.save_model {
        check_readable_back(path, data.m, cfg.hidden)?;
    }
    // Installed before the first line, so that a caller who saw it can interrupt safely.
    let interrupted = interrupt_flag(a.save_model.is_some())?;
    let batch = cfg.batch.unwrap_or(data.rows()) as u64;
    let iters = match (a.epochs, a.iters) {
        (Some(e), _) => e
            .checked_mul(data.rows() as u64)
            .map(|x| x.div_ceil(batch))
            .ok_or_else(|| Failure::Msg(format!("{e} epochs is too many (--epochs)")))?,
        (None, Some(t)) => t,
        (None, None) => 1000,
    };
    out.line(&Header {
        seed,
        data: &data.name,
        rows: data.rows(),
        visible: data.m,
        bound: data.bound(),
        iters,
        updates_per_epoch: data.rows() as f64 / batch as f64,
        device,
        config: &cfg,
    })?;
    out.line(&lane.record()?)?;
    for _ in 0..iters {
        if interrupted.load(Ordering::SeqCst) {
            return save_interrupted(&mut lane, a, cfg.every, out);
        }
        if let Err(e) = lane.step() {
            // The lane keeps its last finite model (the one at the last record).
            if let Some(path) = &a.save_model {
                if let Err(Failure::Msg(s)) = save_model(path, &lane.host_model()) {
                    return Err(Failure::Msg(format!("{e}; moreover {s}")));
                }
            }
            return Err(e.into());
        }
        if lane.iter().is_multiple_of(cfg.every) {
            out.line(&lane.record()?)?;
        }
    }
    if !iters.is_multiple_of(cfg.every) {
        out.line(&lane.record()?)?;
    }
    if let Some(path) = &a.save_model {
        save_model(path, &lane.host_model())?;
    }
    Ok(())
}

/// After Ctrl-C, SIGTERM or SIGHUP: prints the record of the last update done (unless already printed), saves
/// that model and ends with an error line naming the update count.
fn save_interrupted<E: Engine>(
    lane: &mut Lane<E>,
    a: &TrainCmd,
    every: u64,
    out: &mut Out,
) -> CliResult {
    if !lane.iter().is_multiple_of(every) {
        out.line(&lane.record()?)?;
    }
    let path = a.save_model.as_deref().unwrap_or_default();
    save_model(path, &lane.host_model())?;
    Err(Failure::Msg(format!(
        "interrupted after {} updates ({INTERRUPTED}); the model at update {} is saved to \
         '{path}'",
        lane.iter(),
        lane.iter()
    )))
}

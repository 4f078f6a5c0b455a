//! `rbm loglik`: the exact log-likelihood of a data set under a saved model (docs/algorithms.md §2).

use super::common::{check_fit, load_model, threads, CliResult, Out, ProtocolArgs};
use clap::Args;
use rbm_core::cost;
use rbm_core::eval::distribution::{distribution, top_patterns, Pattern};
use rbm_core::eval::exact;
use rbm_core::schema::budget;
use serde::Serialize;

/// Options of `rbm loglik`.
#[derive(Args, Debug)]
pub struct LoglikArgs {
    /// Model file: {"visible": m, "hidden": n, "w": [m·n, row-major], "b": [m], "c": [n]}
    #[arg(long)]
    model: String,
    /// Built-in data set (bas3, shifting-bar, bas4, mnist, mnist-valid, mnist-test) or a file:
    /// one 0/1 pattern per line, or IDX images (either optionally gzipped); grey levels are
    /// evaluated thresholded at 0.5, as `rbm ais` and the training curves do
    #[arg(long)]
    data: String,
    /// How many of the most probable patterns to list (models with ≤ 20 visible units)
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Threads for the enumeration of log Z (default: all cores; the result does not depend on it)
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    protocol: ProtocolArgs,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
}

/// What `rbm loglik` prints.
#[derive(Serialize)]
struct Report {
    data: String,
    visible: usize,
    hidden: usize,
    /// Where log Z was enumerated: "cpu" (f64), or "gpu: " and the adapter (f32 with
    /// compensated sums, relative error ≤ 1e-6).
    device: String,
    /// How the rows were made binary: "none" (they were), or "threshold-0.5" (grey levels: a
    /// pixel is on iff it is at least 0.5, docs/algorithms.md §2).
    binarized: &'static str,
    #[serde(flatten)]
    eval: exact::Evaluation,
    /// Total model probability of the distinct patterns of the data set (m ≤ 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    mass_on_data: Option<f64>,
    /// Number of distinct patterns in the data set (m ≤ 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    distinct: Option<usize>,
    /// The most probable patterns under the model (m ≤ 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    top: Option<Vec<Pattern>>,
}

/// Runs `rbm loglik`: refused up front when the enumeration (and, for m ≤ 20, the full
/// distribution behind the top patterns) exceeds the command line's budget
/// ([`rbm_core::schema::budget::CLI`]).
pub fn run(a: LoglikArgs, out: &mut Out) -> CliResult {
    let threads = threads(a.threads)?;
    let model = load_model(&a.model)?;
    let (data, _) = a.protocol.load(&a.data, out)?;
    check_fit(&model, &data)?;
    // One meaning of log-likelihood: grey levels are thresholded, as by `ais` and in training.
    let (data, binarized) = if data.is_binary() {
        (data, "none")
    } else {
        (data.thresholded(), "threshold-0.5")
    };
    let (m, n) = (model.m(), model.n());
    let speed = &budget::CLI.speed;
    let top_secs = if m <= exact::MAX_DIST_BITS {
        // top_patterns: the distribution over the 2^m patterns, after its own log Z.
        cost::log_z_secs(m, n, speed) + cost::distribution_secs(m, n, speed)
    } else {
        0.0
    };
    let gpu = a.device.open()?;
    let log_z = match &gpu {
        None => {
            cost::check_exact_job(
                "the exact log-likelihood",
                (m, n),
                data.rows(),
                top_secs,
                threads,
                &budget::CLI,
            )?;
            exact::log_z_threaded(&model, threads)?
        }
        // The enumeration's own limit (30 units) applies; the top patterns need m ≤ 20.
        Some(dev) => rbm_gpu::exact::log_z(dev, &model)?,
    };
    let eval = exact::evaluate_given(&model, &data, log_z)?;
    let (mass_on_data, distinct, top) = if model.m() <= exact::MAX_DIST_BITS {
        let dist = distribution(&model, &data, eval.log_z);
        let top = top_patterns(&model, &data, a.top)?;
        (Some(dist.on), Some(dist.model.len()), Some(top))
    } else {
        (None, None, None)
    };
    out.line(&Report {
        data: data.name.clone(),
        visible: model.m(),
        hidden: model.n(),
        device: super::gpu::label(gpu.as_deref()),
        binarized,
        eval,
        mass_on_data,
        distinct,
        top,
    })
}

//! `rbm grad`: bias, standard error and variance of an algorithm's gradient estimate at a saved
//! model ([`rbm_core::diagnostics::grad`]).

use super::common::{
    check_fit, entropy_seed, fail, load_data, load_model, parallel_map, threads, AlgoArgs,
    CliResult, Failure, Out,
};
use clap::Args;
use rbm_core::cost;
use rbm_core::diagnostics::grad::{exact_gradient, repetition, Accumulator, GradEstimate};
use rbm_core::error::Error;
use rbm_core::eval::exact;
use rbm_core::schema::budget;
use rbm_core::train::LaneConfig;
use serde::Serialize;
use std::sync::Arc;

/// Options of `rbm grad`.
#[derive(Args, Debug)]
pub struct GradCmd {
    /// Model file: {"visible": m, "hidden": n, "w": [m·n, row-major], "b": [m], "c": [n]}
    #[arg(long)]
    model: String,
    /// Built-in data set (bas3, shifting-bar, bas4) or a file with one 0/1 pattern per line
    #[arg(long)]
    data: String,
    #[command(flatten)]
    algo: AlgoArgs,
    /// Independent repetitions of the one-update estimate
    #[arg(long, default_value_t = 100)]
    reps: usize,
    /// Seed [default: drawn from the system and printed]
    #[arg(long)]
    seed: Option<u64>,
    /// Threads for the repetitions [default: available cores]; the result does not depend on it
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Serialize)]
struct Report<'a> {
    seed: u64,
    data: &'a str,
    #[serde(flatten)]
    estimate: GradEstimate,
}

/// The error of a repetition as `grad` reports it: a non-finite estimate is the model's doing
/// (its parameters are too large for the estimator's f32 arithmetic), not a learning rate's —
/// `grad` has none.
fn estimate_error(algo: &str, e: Error) -> Failure {
    match e {
        Error::Diverged { what, .. } => Failure::Msg(format!(
            "the {algo} estimate of the gradient at this model is not finite ({what} became NaN \
             or infinite in its update): the model's parameters are too large for {algo}'s f32 \
             arithmetic"
        )),
        e => e.into(),
    }
}

/// Most repetitions accepted (each is one fresh lane and one update).
const MAX_REPS: usize = 10_000_000;

/// Runs `rbm grad`. Repetitions are computed in blocks on threads and added to the sums in
/// repetition order, so the output is the sequential [`rbm_core::diagnostics::grad::estimate`]'s.
pub fn run(a: GradCmd, out: &mut Out) -> CliResult {
    let threads = threads(a.threads)?;
    let model = load_model(&a.model)?;
    let data = Arc::new(load_data(&a.data)?);
    check_fit(&model, &data)?;
    if a.reps < 2 {
        return fail("reps must be at least 2 to estimate a standard error");
    }
    if a.reps > MAX_REPS {
        return fail(format!(
            "reps = {} is more than the limit of {MAX_REPS}",
            a.reps
        ));
    }
    let seed = a.seed.unwrap_or_else(entropy_seed);
    let (m, n) = (model.m(), model.n());
    let mut cfg = LaneConfig {
        seed: Some(seed),
        // Each repetition is one update of a lane of the model's size that never evaluates:
        // the cost of an exact curve does not apply to it.
        hidden: n,
        exact_bits: 0,
        ..LaneConfig::default()
    };
    a.algo.0.apply(&mut cfg)?;
    cfg.validate(&data)?;
    if m.min(n) <= exact::MAX_DIST_BITS {
        let extra = cost::exact_gradient_extra_secs(m, n, data.rows(), &budget::CLI.speed);
        cost::check_exact_job("the exact gradient", (m, n), 0, extra, 1, &budget::CLI)?;
    }
    let exact = exact_gradient(&model, &data)?;
    let mut acc = Accumulator::new(model.m(), model.n());
    // Blocks bound the memory held by finished repetitions waiting to be added in order.
    let block = threads * 16;
    let mut start = 0;
    while start < a.reps {
        let len = block.min(a.reps - start);
        let gs = parallel_map(len, threads, |i| {
            repetition(&model, data.clone(), &cfg, start + i)
        });
        for g in gs {
            acc.add(&g.map_err(|e| estimate_error(&cfg.algo, e))?);
        }
        start += len;
    }
    let chains = cfg.chains.unwrap_or(cfg.batch.unwrap_or(data.rows()));
    let estimate = acc.finish(&cfg.algo, chains, exact.as_ref())?;
    out.line(&Report {
        seed,
        data: &data.name,
        estimate,
    })
}

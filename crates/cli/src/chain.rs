//! `rbm chain`: the exact law of a Gibbs chain after k sweeps and its distance to the model and
//! to the data (docs/algorithms.md §7; `rbm_core::eval::chain`).

use super::common::{check_fit, fail, load_data, load_model, CliResult, Out, Progress};
use clap::Args;
use rbm_core::eval::chain::{ChainWalk, Start, DEFAULT_SWEEPS};
use rbm_core::schema::budget::CLI;

/// Options of `rbm chain`.
#[derive(Args, Debug)]
pub struct ChainCmd {
    /// Model file (2^(m+n) at most 2^24: e.g. Bars & Stripes 3x3 or Shifting Bar)
    #[arg(long)]
    model: String,
    /// Data set: the chain's start with --start data, and the data distribution compared with
    #[arg(long)]
    data: String,
    /// Where the chain starts: data (CD's start) or uniform
    #[arg(long, default_value = "data")]
    start: String,
    /// Sweeps: one line for each k = 0..=k-max
    #[arg(long, default_value_t = DEFAULT_SWEEPS)]
    k_max: usize,
}

/// Runs `rbm chain`.
pub fn run(a: ChainCmd, out: &mut Out) -> CliResult {
    let start = match Start::parse(&a.start) {
        Ok(s) => s,
        Err(_) => {
            return fail(format!(
                "--start must be data or uniform (got '{}')",
                a.start
            ))
        }
    };
    let model = load_model(&a.model)?;
    let data = load_data(&a.data)?;
    check_fit(&model, &data)?;
    let estimate = rbm_core::cost::check_chain(model.m(), model.n(), a.k_max, &CLI)?;
    let mut progress = Progress::start("chain", a.k_max as u64, "sweeps", estimate);
    let mut walk = ChainWalk::new(&model, &data, start, a.k_max)?;
    // Each line as soon as its sweep is walked.
    let mut printed = 0;
    loop {
        for p in &walk.points()[printed..] {
            out.line(p)?;
        }
        printed = walk.points().len();
        if walk.done() {
            return Ok(());
        }
        walk.advance(1);
        progress.tick(walk.sweeps() as u64);
    }
}

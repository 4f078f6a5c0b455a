//! `rbm chain`: the exact law of a Gibbs chain after k sweeps and its distance to the model and
//! to the data (docs/algorithms.md §7; `rbm_core::eval::chain`).

use super::common::{check_fit, fail, load_data, load_model, CliResult, Out};
use clap::Args;
use rbm_core::eval::chain::{chain_distances, Start};

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
    #[arg(long, default_value_t = 50)]
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
    for p in chain_distances(&model, &data, start, a.k_max)? {
        out.line(&p)?;
    }
    Ok(())
}

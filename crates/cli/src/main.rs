//! The native command line `rbm`, a thin shell over `rbm-core`: exact evaluation of saved models, seeded
//! training, gradient-estimate diagnostics and the papers' experiments, all printing JSON so
//! the output can be piped (`jq`, plotting scripts).
//!
//! ```text
//! rbm train --data bas4 --algo pcd --hidden 16 --lr 0.01 --chains 1000 --iters 2000 --seed 1 \
//!     --save-model m.json                       # header line, then one record per evaluation
//! rbm loglik --model m.json --data bas4         # log Z, ATLL, bound, KL, mass on data, top patterns
//! rbm estimators --model m.json --data bas4 --betas 10,100,1000 --runs 10 --seed 1
//! rbm grad --model m.json --data bas4 --algo cd --chains 1000 --reps 100 --seed 1
//! rbm reproduce sdcp-shifting-bar --algos cd,pcd --runs 5 --seed 1
//! rbm reproduce ucd-bas4 --trials 0..4 --per-trial --seed 1 > a.jsonl   # a study in parts,
//! rbm summarize a.jsonl b.jsonl                 # merged into what `reproduce` prints
//! rbm explore sdcp-bas3 --lrs 0.1,0.3 --init-sigmas 0.001,0.01,0.1 --seed 1   # where claims hold
//! rbm presets                                   # the presets' settings
//! rbm sample --model m.rbm --sampler rates-fpcd --samples 10000 --seed 1 --out s.txt
//! rbm isl --samples s.txt --data mnist-test      # ISL against N, beta chosen on mnist-valid
//! rbm chain --model m.json --data bas3 --start data --k-max 50   # exact p_k = p_0 T^k
//! rbm mixing --model m.json --data bas4         # exact λ₂, relaxation time, σ(W), modes
//! rbm drift --model m.json --data bas4 --sampler gibbs --steps 1,4,16 --chains 20000 --seed 1
//! ```
//!
//! Every failure prints one line `error: …` on stderr and exits with status 1 (clap's own
//! usage errors keep clap's format and status 2). Output cut short by a closed pipe
//! (`| head`) ends quietly.

mod ais;
mod chain;
mod common;
mod estimators;
mod explore;
mod gpu;
mod grad;
mod jobs;
mod loglik;
mod mixing;
mod progress;
mod reproduce;
mod sample;
mod study_args;
mod summarize;
mod train;

use clap::{Parser, Subcommand};
use common::{CliResult, Failure, Out};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exact, seeded RBM training and evaluation. `rbm presets` lists the papers' experiments;
/// `rbm train --help` lists every algorithm and option.
#[derive(Parser, Debug)]
#[command(name = "rbm", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Exact log Z, average log-likelihood, bound and KL of a data set under a model file
    #[command(allow_negative_numbers = true)]
    Loglik(loglik::LoglikArgs),
    /// AIS estimate of log Z and the average log-likelihood with ±3σ bars; --reverse: RAISE bound
    Ais(ais::AisArgs),
    /// Estimator bench: AIS's and RAISE's errors against the exact log Z and ATLL, per β count
    Estimators(estimators::EstimatorsArgs),
    /// Train one lane; one JSON line per evaluation (the first line: seed and configuration)
    #[command(allow_negative_numbers = true)]
    Train(train::TrainCmd),
    /// Bias, standard error and variance of an algorithm's gradient estimate at a model file
    #[command(allow_negative_numbers = true)]
    Grad(grad::GradCmd),
    /// Run a paper's experiment for several trials; quantiles of the exact ATLL per checkpoint
    #[command(allow_negative_numbers = true)]
    Reproduce(reproduce::ReproduceCmd),
    /// Map where a preset's claims hold: its study over a grid of learning rates, init scales, k, d, K′, chains, batch
    #[command(allow_negative_numbers = true)]
    Explore(explore::ExploreCmd),
    /// Merge per-trial files of `reproduce --per-trial` (or parts of `explore --cells`) into the lines of the whole run
    Summarize(summarize::SummarizeCmd),
    /// List the presets of `reproduce` with their settings (one JSON line each)
    Presets,
    /// Sample a trained model with Gibbs, rates-FPCD, rates-herding or sample penalisation
    #[command(allow_negative_numbers = true)]
    Sample(sample::SampleCmd),
    /// Indirect sampling likelihood of samples (Parzen density) on held-out data, against N
    Isl(sample::IslCmd),
    /// No-drift self-test: a sampler's distance to p(v) from exact starts, against the noise floor
    #[command(allow_negative_numbers = true)]
    Drift(sample::DriftCmd),
    /// Exact law of a Gibbs chain after k sweeps: its distance to the model and to the data
    Chain(chain::ChainCmd),
    /// Exact λ₂ and relaxation time of the Gibbs chain, singular values of W, modes of p(v)
    Mixing(mixing::MixingCmd),
    /// The GPU adapters wgpu finds (one JSON line each)
    Devices(gpu::DevicesCmd),
    /// The GPU engine's speed on the PyTorch peer's workloads (benchmark; one JSON line each)
    Speed(gpu::SpeedCmd),
}

fn presets(out: &mut Out) -> CliResult {
    for p in rbm_core::experiments::PRESETS {
        out.line(p)?;
    }
    Ok(())
}

/// Error text on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Replaces the default panic message (multi-line, with a backtrace hint) by one `error:` line;
/// a panic is a bug, but the user still gets the one-line contract.
fn install_panic_hook() {
    static REPORTED: AtomicBool = AtomicBool::new(false);
    std::panic::set_hook(Box::new(|info| {
        if REPORTED.swap(true, Ordering::SeqCst) {
            return;
        }
        eprintln!("error: {}", rbm_core::error::panic_message(info));
    }));
}

/// Entry point of the `rbm` binary.
fn main() -> ExitCode {
    install_panic_hook();
    let cli = Cli::parse();
    let mut out = Out::stdout();
    let r = match cli.cmd {
        Command::Loglik(a) => loglik::run(a, &mut out),
        Command::Train(a) => train::run(a, &mut out),
        Command::Grad(a) => grad::run(a, &mut out),
        Command::Reproduce(a) => reproduce::run(a, &mut out),
        Command::Explore(a) => explore::run(a, &mut out),
        Command::Summarize(a) => summarize::run(a, &mut out),
        Command::Presets => presets(&mut out),
        Command::Ais(a) => ais::run(a, &mut out),
        Command::Estimators(a) => estimators::run(a, &mut out),
        Command::Sample(a) => sample::run_sample(a, &mut out),
        Command::Isl(a) => sample::run_isl(a, &mut out),
        Command::Drift(a) => sample::run_drift(a, &mut out),
        Command::Chain(a) => chain::run(a, &mut out),
        Command::Mixing(a) => mixing::run(a, &mut out),
        Command::Devices(a) => gpu::devices(a, &mut out),
        Command::Speed(a) => gpu::speed(a, &mut out),
    };
    match r {
        Ok(()) | Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Msg(s)) => {
            eprintln!("error: {}", one_line(&s));
            ExitCode::FAILURE
        }
    }
}

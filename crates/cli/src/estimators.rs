//! `rbm estimators`: the estimator bench (docs/algorithms.md §7) — on a model whose log Z is
//! exact (§2), AIS's and RAISE's errors against the exact log Z and ATLL over `--runs` seeded
//! runs per β count, and BAR's over a parallel-tempering ladder per number of temperatures
//! (`--pt-temperatures`), with the compute in Gibbs sweeps. The core
//! ([`rbm_core::eval::estimators`]) seeds the runs and summarises them; here each AIS or RAISE
//! run's blocks go over `--threads` threads, or to the GPU, as in `rbm ais`; BAR's runs go over
//! the threads, one run each, on the CPU.

use super::ais::ScheduleArg;
use super::common::{
    check_fit, entropy_seed, fail, load_model, parallel_map, threads, CliResult, Failure, Out,
    Progress, ProtocolArgs,
};

/// A refused BAR setting, named by its flags.
fn pt_flag(message: String) -> Failure {
    Failure::Msg(format!(
        "{message} (--pt-temperatures, --pt-rounds, --particles)"
    ))
}
use clap::Args;
use rbm_core::cost;
use rbm_core::eval::ais::{check_config, AisResult, DEFAULT_PARTICLES, MAX_BETAS, MAX_PARTICLES};
use rbm_core::eval::estimators::{
    exact_values, run_seed, summarize, Line, Method, Setting, MAX_RUNS, MAX_SETTINGS,
};
use rbm_core::eval::exact;
use rbm_core::schema::budget;
use serde::Serialize;

/// Options of `rbm estimators`.
#[derive(Args, Debug)]
pub struct EstimatorsArgs {
    /// Model file whose smaller layer is enumerable (exact log Z: at most 30 units, and within
    /// the command line's time budget; about 20–25 in practice)
    #[arg(long)]
    model: String,
    /// Data set: a built-in name or a file, as for `rbm ais` (grey levels evaluated
    /// thresholded at 0.5, or as `--protocol` says)
    #[arg(long)]
    data: String,
    /// Linear β counts to compare, comma-separated (0 and 1 included in each) [default:
    /// 100,1000,10000]
    #[arg(long, value_delimiter = ',')]
    betas: Option<Vec<usize>>,
    /// Chains per run (AIS's importance samples; RAISE's chains over the rows)
    #[arg(long, default_value_t = DEFAULT_PARTICLES)]
    particles: usize,
    /// Independent runs per setting (at least 2: the errors' standard deviation)
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// β spacings, comma-separated: `linear` (the --betas counts) and/or `sm2008`
    /// (Salakhutdinov & Murray's 14 501 β)
    #[arg(long, value_enum, value_delimiter = ',', default_value = "linear")]
    schedule: Vec<ScheduleArg>,
    /// BAR over parallel tempering: temperature counts to compare, comma-separated (β evenly
    /// spaced from 1 to 0, both included; e.g. 10,50) [default: none]
    #[arg(long, value_delimiter = ',')]
    pt_temperatures: Vec<usize>,
    /// BAR: rounds of samples per run (a multiple of 10; a fifth as many rounds of burn-in
    /// come first), each round one sweep of every replica and a round of swaps
    #[arg(long, default_value_t = 100)]
    pt_rounds: usize,
    /// Seed of the runs' seeds (default: drawn from the system; the seed used is printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Threads (default: all cores; the result does not depend on it)
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    protocol: ProtocolArgs,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
}

/// What `rbm estimators` prints, one line per (method, schedule, β count).
#[derive(Serialize)]
struct Report<'a> {
    /// How the data were made binary: `paper:SEED` (`--protocol`), `threshold-0.5` (grey
    /// levels, the default) or `binary` (the data were).
    protocol: &'a str,
    data: &'a str,
    visible: usize,
    hidden: usize,
    /// Where the runs ran: "cpu" (f64), or "gpu: " and the adapter (the exact values on the
    /// CPU in f64 either way).
    device: &'a str,
    /// The bench's seed (run r's seed is in `seeds`).
    seed: u64,
    #[serde(flatten)]
    line: Line,
}

/// Runs `rbm estimators`: refused up front beyond the exact enumeration's limit or when one run
/// or the whole bench exceeds the command line's budget.
pub fn run(a: EstimatorsArgs, out: &mut Out) -> CliResult {
    let threads = threads(a.threads)?;
    let model = load_model(&a.model)?;
    // The protocol is a field of every line here (not a prefix, as in the other commands).
    let protocol = a.protocol.get()?;
    let data = super::common::load_data(&a.data)?;
    let (data, protocol_name) = match protocol {
        Some(p) => (p.apply(&data), p.name()),
        None if data.is_binary() => (data, "binary".to_string()),
        None => (data, "threshold-0.5".to_string()),
    };
    check_fit(&model, &data)?;
    let (m, n) = (model.m(), model.n());
    if a.runs < 2 || a.runs > MAX_RUNS {
        return fail(format!(
            "--runs must be between 2 and {MAX_RUNS} (got {}): the errors' spread needs two runs",
            a.runs
        ));
    }
    let linear = a.schedule.iter().any(|s| matches!(s, ScheduleArg::Linear));
    let sm2008 = a.schedule.iter().any(|s| matches!(s, ScheduleArg::Sm2008));
    if !linear && a.betas.is_some() {
        return fail(
            "--betas lists linear β counts: add linear to --schedule (e.g. --schedule \
             linear,sm2008), or drop --betas",
        );
    }
    let betas: Vec<usize> = match (linear, a.betas) {
        (false, _) => Vec::new(),
        (true, Some(b)) => b,
        (true, None) => vec![100, 1_000, 10_000],
    };
    let betas = &betas[..];
    if linear && (betas.is_empty() || betas.len() > MAX_SETTINGS) {
        return fail(format!(
            "--betas must list between 1 and {MAX_SETTINGS} β counts (got {})",
            betas.len()
        ));
    }
    if let Some(b) = betas.iter().find(|b| !(2..=MAX_BETAS).contains(*b)) {
        return fail(format!(
            "--betas: each β count must be between 2 and {MAX_BETAS} (got {b})"
        ));
    }
    if !(2..=MAX_PARTICLES).contains(&a.particles) {
        return fail(format!(
            "--particles must be between 2 and {MAX_PARTICLES} (got {})",
            a.particles
        ));
    }
    let k = m.min(n);
    if k > exact::MAX_ENUM_BITS {
        return fail(format!(
            "the estimator bench needs the exact log Z: the smaller layer of this {m}×{n} model \
             has {k} units, over the {} the exact enumeration allows (--model)",
            exact::MAX_ENUM_BITS
        ));
    }
    cost::check_exact_job(
        "the estimator bench's exact log Z",
        (m, n),
        data.rows(),
        0.0,
        threads,
        &budget::CLI,
    )?;
    if a.pt_temperatures.len() > MAX_SETTINGS {
        return fail(format!(
            "--pt-temperatures must list at most {MAX_SETTINGS} counts (got {})",
            a.pt_temperatures.len()
        ));
    }
    let mut settings = Setting::all(betas, sm2008);
    settings.extend(
        a.pt_temperatures
            .iter()
            .map(|&t| Setting::bar(t, a.pt_rounds)),
    );
    let seed = a.seed.unwrap_or_else(entropy_seed);
    let mut total_secs = 0.0;
    for s in &settings {
        if s.method == Method::BarPt {
            let cfg = s.bar_config(a.particles, seed);
            cfg.check().map_err(|e| pt_flag(e.to_string()))?;
            // A run sweeps chains × temperatures states per round and takes their free
            // energies: about AIS's cost with those particles and twice the rounds as β.
            let rounds = cfg.burn_in + cfg.rounds;
            let one = cost::check_ais(
                m,
                n,
                cfg.chains * cfg.temperatures,
                2 * rounds,
                1,
                &budget::CLI,
            )
            .map_err(|e| pt_flag(e.to_string()))?;
            total_secs += one * a.runs as f64 / threads.min(a.runs) as f64;
            continue;
        }
        let cfg = s.config(a.particles, seed);
        total_secs +=
            cost::check_ais(m, n, cfg.particles, cfg.betas, threads, &budget::CLI)? * a.runs as f64;
        check_config(&model, &cfg)?;
    }
    if total_secs > budget::CLI.job_secs {
        return fail(format!(
            "the bench ({} settings × {} runs) would take about {} (estimated), over the {} the \
             command line allows; use fewer --runs, fewer or smaller --betas or fewer --particles",
            settings.len(),
            a.runs,
            cost::duration(total_secs),
            cost::duration(budget::CLI.job_secs)
        ));
    }
    let gpu = a.device.open()?;
    let device = super::gpu::label(gpu.as_deref());
    // The reference is exact in f64 on the CPU whatever runs the estimators.
    let exact = exact_values(&model, &data, exact::log_z_threaded(&model, threads)?)?;
    let total_runs = (settings.len() * a.runs) as u64;
    let mut progress = Progress::start("estimators", total_runs, "runs", total_secs);
    let mut done = 0;
    for s in &settings {
        let mut results: Vec<AisResult> = Vec::with_capacity(a.runs);
        if s.method == Method::BarPt {
            // One run per thread, in run order whatever the threads.
            let seeds: Vec<u64> = (0..a.runs).map(|r| run_seed(seed, r)).collect();
            for chunk in seeds.chunks(threads) {
                let got = parallel_map(chunk.len(), chunk.len(), |i| {
                    s.run(&model, &data, a.particles, chunk[i])
                });
                for r in got {
                    results.push(r?);
                }
                done += chunk.len() as u64;
                progress.tick(done);
            }
        } else {
            for r in 0..a.runs {
                let plan = s.plan(&model, &data, a.particles, run_seed(seed, r))?;
                let result = super::ais::run_plan(&plan, threads, gpu.as_ref())?;
                results.push(result);
                done += 1;
                progress.tick(done);
            }
        }
        out.line(&Report {
            protocol: &protocol_name,
            data: &data.name,
            visible: m,
            hidden: n,
            device: if s.method == Method::BarPt {
                "cpu"
            } else {
                &device
            },
            seed,
            line: summarize(s, exact, &results)?,
        })?;
    }
    Ok(())
}

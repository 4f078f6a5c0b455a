//! `rbm ais`: annealed importance sampling for log Z and the average log-likelihood of a data
//! set under a saved model, or with `--reverse` the RAISE stochastic lower bound
//! (docs/algorithms.md §3 and §7). The particles run in the core's fixed blocks on `--threads`
//! threads and are combined in block order, so the output does not depend on the thread count.

use super::common::{
    check_fit, entropy_seed, load_model, parallel_map, threads, CliResult, Out, ProtocolArgs,
};
use clap::Args;
use rbm_core::cost;
use rbm_core::eval::ais::{
    check_config, AisConfig, AisResult, Plan, Schedule, DEFAULT_BETAS, DEFAULT_PARTICLES,
    MAX_BETAS, MAX_PARTICLES, SM2008_BETAS,
};
use rbm_core::eval::exact;
use rbm_core::schema::budget;
use serde::Serialize;

/// The exact values are added to the output when the smaller layer has at most this many units
/// (and their enumeration fits the command line's budget).
const EXACT_UP_TO: usize = 20;

/// Options of `rbm ais`.
#[derive(Args, Debug)]
pub struct AisArgs {
    /// Model file: {"visible": m, "hidden": n, "w": [m·n, row-major], "b": [m], "c": [n]}
    #[arg(long)]
    model: String,
    /// Data set: a built-in name (bas3, shifting-bar, bas4, mnist, mnist-valid, mnist-test) or a
    /// file (0/1 patterns, one per line, or IDX images); its base rates define the base model,
    /// and grey levels are evaluated thresholded at 0.5
    #[arg(long)]
    data: String,
    /// Annealing chains (importance samples); with --reverse, the chains over all evaluated
    /// rows (fewer chains than rows: a seeded random subset of rows, one chain each)
    #[arg(long, default_value_t = DEFAULT_PARTICLES)]
    particles: usize,
    /// Inverse temperatures β from 0 to 1, both ends included [default: 10000; with
    /// `--schedule sm2008`, its 14501]
    #[arg(long)]
    betas: Option<usize>,
    /// How the β are spaced: `linear`, or `sm2008`, Salakhutdinov & Murray's (2008, §4.2) steps
    /// of 1/1000 to 0.5, 1/10 000 to 0.9 and 1/100 000 to 1 (14 501 β; with 100 particles, their
    /// protocol)
    #[arg(long, value_enum, default_value_t = ScheduleArg::Linear)]
    schedule: ScheduleArg,
    /// Seed (default: drawn from the system; the seed used is printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Reverse AIS (RAISE, Burda et al. 2015) from the data rows: a stochastic lower bound of
    /// the average log-likelihood instead of AIS's stochastic upper one
    #[arg(long)]
    reverse: bool,
    /// Threads (default: all cores; the result does not depend on it)
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    protocol: ProtocolArgs,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
}

/// `--schedule`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ScheduleArg {
    Linear,
    Sm2008,
}

impl From<ScheduleArg> for Schedule {
    fn from(s: ScheduleArg) -> Schedule {
        match s {
            ScheduleArg::Linear => Schedule::Linear,
            ScheduleArg::Sm2008 => Schedule::SalakhutdinovMurray,
        }
    }
}

/// What `rbm ais` prints.
#[derive(Serialize)]
struct Report<'a> {
    data: &'a str,
    visible: usize,
    hidden: usize,
    /// Where the particles ran: "cpu" (f64, the same bits on any thread count), or "gpu: " and
    /// the adapter (f32, log-weights in double-single; the exact values there too).
    device: String,
    /// How the β were spaced (`linear`, `sm2008`).
    schedule: &'static str,
    #[serde(flatten)]
    result: AisResult,
    /// Exact log Z when the smaller layer has at most 20 units.
    #[serde(skip_serializing_if = "Option::is_none")]
    exact_log_z: Option<f64>,
    /// Exact average log-likelihood of the data (thresholded when grey), with `exact_log_z`.
    #[serde(skip_serializing_if = "Option::is_none")]
    exact_atll: Option<f64>,
}

/// Runs an AIS or RAISE plan: its blocks over `threads` threads on the CPU (the same bits on
/// any count), or every chain at once on `gpu`.
pub fn run_plan(
    plan: &Plan,
    threads: usize,
    gpu: Option<&std::sync::Arc<rbm_gpu::Device>>,
) -> CliResult<AisResult> {
    Ok(match gpu {
        None => {
            let parts = parallel_map(plan.blocks(), threads, |i| plan.run_block(i))
                .into_iter()
                .collect::<Result<Vec<_>, _>>()?;
            plan.finish(&parts)?
        }
        Some(dev) => rbm_gpu::ais::evaluate(dev, plan)?,
    })
}

/// Runs `rbm ais`: refused up front when the run exceeds the command line's budget
/// ([`rbm_core::schema::budget::CLI`]); the exact values are added only when their enumeration
/// fits it.
pub fn run(a: AisArgs, out: &mut Out) -> CliResult {
    let threads = threads(a.threads)?;
    let model = load_model(&a.model)?;
    let (data, _) = a.protocol.load(&a.data, out)?;
    check_fit(&model, &data)?;
    let schedule = Schedule::from(a.schedule);
    let cfg = AisConfig {
        particles: a.particles,
        betas: a.betas.unwrap_or(match schedule {
            Schedule::Linear => DEFAULT_BETAS,
            Schedule::SalakhutdinovMurray => SM2008_BETAS,
        }),
        seed: a.seed.unwrap_or_else(entropy_seed),
        schedule,
    };
    let (m, n) = (model.m(), model.n());
    // The ranges' messages first, then the budget's (keyed by the flag), then the core's limit.
    if (2..=MAX_PARTICLES).contains(&cfg.particles) && (2..=MAX_BETAS).contains(&cfg.betas) {
        cost::check_ais(m, n, cfg.particles, cfg.betas, threads, &budget::CLI)?;
    }
    check_config(&model, &cfg)?;
    let plan = if a.reverse {
        Plan::raise(&model, &data, None, cfg)?
    } else {
        Plan::ais(&model, &data, None, cfg)?
    };
    let gpu = a.device.open()?;
    let result = run_plan(&plan, threads, gpu.as_ref())?;
    let exact_fits = cost::check_exact_job("", (m, n), data.rows(), 0.0, threads, &budget::CLI);
    let (exact_log_z, exact_atll) = if m.min(n) <= EXACT_UP_TO && exact_fits.is_ok() {
        let log_z = match &gpu {
            None => exact::log_z_threaded(&model, threads)?,
            Some(dev) => rbm_gpu::exact::log_z(dev, &model)?,
        };
        // On the rows AIS evaluates: grey levels thresholded at 0.5 (binary data unchanged).
        let atll = exact::average_log_likelihood(&model, &data.thresholded(), log_z)?;
        (Some(log_z), Some(atll))
    } else {
        (None, None)
    };
    out.line(&Report {
        data: &data.name,
        visible: model.m(),
        hidden: model.n(),
        device: super::gpu::label(gpu.as_deref()),
        schedule: schedule.name(),
        result,
        exact_log_z,
        exact_atll,
    })
}

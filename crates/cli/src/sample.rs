//! `rbm sample`, `rbm isl` and `rbm drift`: the rates-FPCD paper's samplers of a trained model,
//! its indirect sampling likelihood, and the no-drift self-test (docs/algorithms.md §5, §7).
//! `sample`, `isl` and `drift` (Gibbs) run on the GPU engine with `--device gpu` (docs/gpu.md).
//! The sampler flags are built from the core's sampler options (`rbm_core::sampler::OPTIONS`).

use super::common::{
    check_fit, entropy_seed, fail, interrupt_flag, load_data, load_model, schema_flag, CliResult,
    Out, Progress, INTERRUPTED,
};
use clap::{Arg, ArgMatches, Args, FromArgMatches};
use rbm_core::cost;
use rbm_core::data::Binarize;
use rbm_core::eval::isl::{Isl, IslPoint};
use rbm_core::eval::mixing::{MixingCounter, Nearest};
use rbm_core::sampler::engine::EngineSampler;
use rbm_core::sampler::{
    self, drift, study, SampleStream, SamplerConfig, DEFAULT_SAMPLES, OPTIONS, SAMPLERS,
};
use rbm_core::schema::budget::CLI;
use serde::Serialize;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The sampler and its options as flags, from the core's declarations.
#[derive(Debug, Clone, Default)]
pub struct SamplerArgs {
    given: Vec<(String, String)>,
}

impl SamplerArgs {
    /// The configuration the flags give, each value checked by its schema.
    pub fn config(&self) -> rbm_core::Result<SamplerConfig> {
        let mut cfg = SamplerConfig::default();
        for (key, text) in &self.given {
            let value = match OPTIONS.iter().find(|o| o.key == key) {
                Some(spec) => spec.parse(text)?,
                None => serde_json::Value::from(text.as_str()),
            };
            cfg.set(key, &value)?;
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

impl FromArgMatches for SamplerArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let keys = std::iter::once("sampler").chain(OPTIONS.iter().map(|o| o.key));
        Ok(SamplerArgs {
            given: keys
                .filter_map(|k| {
                    m.try_get_one::<String>(k)
                        .ok()
                        .flatten()
                        .map(|v| (k.to_string(), v.clone()))
                })
                .collect(),
        })
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for SamplerArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let names: Vec<String> = SAMPLERS
            .iter()
            .map(|s| format!("{} ({})", s.name, s.about))
            .collect();
        let mut cmd = cmd.arg(
            Arg::new("sampler")
                .long("sampler")
                .value_name("NAME")
                .help(format!("Sampler: {} [default: gibbs]", names.join("; "))),
        );
        for spec in OPTIONS {
            cmd = cmd.arg(schema_flag(
                spec,
                format!("{}: {}", spec.help, spec.range_text()),
            ));
        }
        cmd
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// Options of `rbm sample`.
#[derive(Args, Debug)]
pub struct SampleCmd {
    /// Model file (JSON or binary)
    #[arg(long)]
    model: String,
    #[command(flatten)]
    sampler: SamplerArgs,
    /// Samples to emit
    #[arg(long, default_value_t = DEFAULT_SAMPLES)]
    samples: u64,
    /// Training set whose positive statistics are the rates R (and whose rows give the start)
    #[arg(long, default_value = "mnist")]
    rates_data: String,
    /// Binarisation of grey-level data: sample or threshold
    #[arg(long, default_value = "sample")]
    binarize: String,
    /// Seed (default: drawn from the system; printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Write the samples here, one 0/1 pattern per line (the data-file format)
    #[arg(long)]
    out: Option<String>,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
}

/// Most samples one `rbm sample` emits.
const MAX_SAMPLES: u64 = 10_000_000;

fn binarize(name: &str) -> CliResult<Binarize> {
    match name {
        "sample" => Ok(Binarize::Sample),
        "threshold" => Ok(Binarize::Threshold),
        _ => fail(format!(
            "--binarize must be sample or threshold (got '{name}')"
        )),
    }
}

/// The summary `rbm sample` prints.
#[derive(Serialize)]
struct SampleSummary {
    seed: u64,
    config: SamplerConfig,
    eps_f: f64,
    alpha: f64,
    samples: u64,
    seconds: f64,
    samples_per_s: f64,
    fast_w_norm: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    mixing: Option<rbm_core::eval::mixing::Mixing>,
    /// "gpu: <adapter>" when the chain ran on the GPU engine (the CPU's line is unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<String>,
}

/// Where `rbm sample`'s chain runs: the CPU's sampler, or the core's engine sampler on the GPU
/// (`rbm_core::sampler::engine`), whose samples come back in blocks.
enum Chain {
    Cpu(SampleStream),
    Gpu {
        sampler: Box<EngineSampler<rbm_gpu::Gpu>>,
        block: Vec<f32>,
        next: usize,
    },
}

impl Chain {
    /// The next sample (0/1) of `m` values; the GPU's next block holds at most `left` samples
    /// (those still wanted), so the chain ends where the output does.
    fn next_sample(&mut self, m: usize, left: u64) -> &[f32] {
        match self {
            Chain::Cpu(s) => s.next_sample(),
            Chain::Gpu {
                sampler,
                block,
                next,
            } => {
                if *next * m >= block.len() {
                    *block = sampler.samples(GPU_BLOCK.min(left.max(1) as usize));
                    *next = 0;
                }
                *next += 1;
                &block[(*next - 1) * m..*next * m]
            }
        }
    }

    fn fast_norm(&self) -> f64 {
        match self {
            Chain::Cpu(s) => s.fast_norm(),
            Chain::Gpu { sampler, .. } => sampler.fast_norm(),
        }
    }
}

/// Samples the GPU emits per block read back (an interrupt is answered between blocks).
const GPU_BLOCK: usize = 256;

/// Runs `rbm sample`.
pub fn run_sample(a: SampleCmd, out: &mut Out) -> CliResult {
    let cfg = a.sampler.config()?;
    if !(1..=MAX_SAMPLES).contains(&a.samples) {
        return fail(format!("--samples must be between 1 and {MAX_SAMPLES}"));
    }
    let model = load_model(&a.model)?;
    let train = load_data(&a.rates_data)?;
    check_fit(&model, &train)?;
    let classes = train.labels.is_some();
    let (m, n) = (model.m(), model.n());
    let estimate = cost::check_sample((m, n), &train, &cfg, a.samples, classes, &CLI)?;
    let mut file = match &a.out {
        Some(p) => Some(super::common::AtomicFile::create(p, "samples file")?),
        None => None,
    };
    let seed = a.seed.unwrap_or_else(entropy_seed);
    let gpu = a.device.open()?;
    let mut stream = match &gpu {
        None => Chain::Cpu(SampleStream::new(
            &model,
            &train,
            binarize(&a.binarize)?,
            &cfg,
            seed,
        )?),
        Some(dev) => {
            // The CPU's rates and start for the seed; the chain's draws are the GPU's own stream.
            let (rates, start) =
                sampler::prepare(&model, &train, binarize(&a.binarize)?, &cfg, seed)?;
            Chain::Gpu {
                sampler: Box::new(EngineSampler::new(
                    dev,
                    &model,
                    &cfg,
                    rates.as_ref(),
                    &start,
                    seed,
                    0,
                )?),
                block: Vec::new(),
                next: 0,
            }
        }
    };
    let mut classes = match classes {
        true => Some((
            Nearest::new(&train.thresholded())?,
            MixingCounter::default(),
        )),
        false => None,
    };
    // With --out, a signal ends the stream and keeps the samples emitted so far.
    let interrupted = interrupt_flag(file.is_some())?;
    let mut progress = Progress::start("sample", a.samples, "samples", estimate);
    let t0 = Instant::now();
    let mut line = Vec::with_capacity(model.m() + 1);
    let mut emitted = 0;
    while emitted < a.samples && !interrupted.load(Ordering::SeqCst) {
        let x = stream.next_sample(m, a.samples - emitted);
        if let Some(f) = &mut file {
            line.clear();
            line.extend(x.iter().map(|&b| if b != 0.0 { b'1' } else { b'0' }));
            line.push(b'\n');
            f.write_all(&line)?;
        }
        if let Some((nn, c)) = &mut classes {
            c.add(nn.class(x));
        }
        emitted += 1;
        progress.tick(emitted);
    }
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(f) = file {
        f.commit()?;
    }
    out.line(&SampleSummary {
        seed,
        eps_f: cfg.eps_f()?,
        alpha: cfg.alpha()?,
        config: cfg,
        samples: emitted,
        seconds,
        samples_per_s: emitted as f64 / seconds.max(1e-9),
        fast_w_norm: stream.fast_norm(),
        mixing: classes.map(|(_, c)| c.summary()),
        device: gpu.as_deref().map(|d| super::gpu::label(Some(d))),
    })?;
    match (&a.out, emitted < a.samples) {
        (Some(path), true) => fail(format!(
            "interrupted after {emitted} of {} samples ({INTERRUPTED}); those {emitted} are \
             saved to '{path}'",
            a.samples
        )),
        _ => Ok(()),
    }
}

/// Options of `rbm isl`.
#[derive(Args, Debug)]
pub struct IslCmd {
    /// Samples: a file of 0/1 patterns (from `rbm sample --out`) or a data set name (e.g.
    /// `mnist` for the training set's own ISL)
    #[arg(long)]
    samples: String,
    /// Held-out examples scored
    #[arg(long, default_value = "mnist-test")]
    data: String,
    /// Examples on which β is chosen (default: mnist-valid when --data is an MNIST split)
    #[arg(long)]
    valid: Option<String>,
    /// The kernel's β in (0.5, 1) (default: chosen on --valid at each N)
    #[arg(long, allow_hyphen_values = true)]
    beta: Option<f64>,
    /// Numbers of samples N at which to report, comma-separated (default: 1, 10, 100, … up to
    /// all samples)
    #[arg(long, value_delimiter = ',')]
    at: Vec<u64>,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
}

/// A line of `rbm isl`: the point, with `device` when the distances were counted on the GPU
/// (the CPU's lines are unchanged).
#[derive(Serialize)]
struct IslLine {
    #[serde(flatten)]
    point: IslPoint,
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<String>,
}

/// Runs `rbm isl`.
pub fn run_isl(a: IslCmd, out: &mut Out) -> CliResult {
    let samples = load_data(&a.samples)?;
    let test = load_data(&a.data)?;
    let valid_name = a.valid.clone().or_else(|| {
        a.data
            .starts_with("mnist")
            .then(|| "mnist-valid".to_string())
    });
    let valid = valid_name.as_deref().map(load_data).transpose()?;
    for d in std::iter::once(&test).chain(valid.as_ref()) {
        if d.m != samples.m {
            return fail(format!(
                "the samples have {} values each but '{}' has {}",
                samples.m, d.name, d.m
            ));
        }
    }
    let rows = samples.rows() as u64;
    let mut at: Vec<u64> = if a.at.is_empty() {
        std::iter::successors(Some(1u64), |x| Some(x * 10))
            .take_while(|&x| x < rows)
            .chain(std::iter::once(rows))
            .collect()
    } else {
        a.at.clone()
    };
    at.sort_unstable();
    at.dedup();
    if let Some(&bad) = at.iter().find(|&&n| n == 0 || n > rows) {
        return fail(format!(
            "--at {bad}: give numbers between 1 and the {rows} samples"
        ));
    }
    if let Some(dev) = a.device.open()? {
        let points = rbm_gpu::isl::curve(
            &dev,
            &test.values,
            valid.as_ref().map(|v| &v.values[..]),
            &samples.values,
            samples.m,
            &at,
            a.beta,
        )?;
        let device = Some(super::gpu::label(Some(&dev)));
        for point in points {
            out.line(&IslLine {
                point,
                device: device.clone(),
            })?;
        }
        return Ok(());
    }
    let mut isl = Isl::new(
        &test.values,
        valid.as_ref().map(|v| &v.values[..]),
        samples.m,
    )?;
    let mut next = at.iter().peekable();
    for r in 0..samples.rows() {
        isl.add(samples.row(r));
        if next.peek().is_some_and(|&&n| n == isl.count()) {
            next.next();
            out.line(&isl.point(a.beta)?)?;
        }
    }
    Ok(())
}

/// Options of `rbm drift`.
#[derive(Args, Debug)]
pub struct DriftCmd {
    /// Model file (at most 20 visible units: p(v) is enumerated)
    #[arg(long)]
    model: String,
    /// Training set for the rates R (rates-FPCD, rates-herding)
    #[arg(long)]
    data: Option<String>,
    #[command(flatten)]
    sampler: SamplerArgs,
    /// Emitted samples after which to measure, comma-separated
    #[arg(long, value_delimiter = ',', default_values_t = drift::DEFAULT_STEPS)]
    steps: Vec<usize>,
    /// Chains started at exact draws from p(v)
    #[arg(long, default_value_t = drift::DEFAULT_CHAINS)]
    chains: usize,
    /// Seed (default: drawn from the system; printed)
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    device: super::gpu::DeviceArgs,
}

#[derive(Serialize)]
struct DriftLine<'a> {
    sampler: &'a str,
    seed: u64,
    chains: usize,
    #[serde(flatten)]
    point: drift::DriftPoint,
    /// "gpu: <adapter>" when the chains ran on the GPU (the CPU's lines are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<String>,
}

/// Runs `rbm drift`.
pub fn run_drift(a: DriftCmd, out: &mut Out) -> CliResult {
    let cfg = a.sampler.config()?;
    let model = load_model(&a.model)?;
    let data = a.data.as_deref().map(load_data).transpose()?;
    if let Some(data) = &data {
        check_fit(&model, data)?;
    } else if sampler::find(&cfg.sampler)?.needs_rates {
        return fail(format!(
            "--sampler {} needs --data for its rates",
            cfg.sampler
        ));
    }
    if a.device.is_gpu() && cfg.sampler != "gibbs" {
        return fail(format!(
            "rbm drift --device gpu batches Gibbs chains; --sampler {} runs each chain with its \
             own fast parameters on the CPU only (use --device cpu)",
            cfg.sampler
        ));
    }
    let estimate = cost::check_drift(&model, data.as_ref(), &cfg, &a.steps, a.chains, &CLI)?;
    let seed = a.seed.unwrap_or_else(entropy_seed);
    let (points, device) = if let Some(dev) = a.device.open()? {
        let points = drift::drift_on::<rbm_gpu::Gpu>(&dev, &model, &cfg, &a.steps, a.chains, seed)?;
        (points, Some(super::gpu::label(Some(&dev))))
    } else {
        let rates = match &data {
            Some(data) => {
                let mut rng = rbm_core::rng::stream(0, 0, rbm_core::rng::Purpose::Data);
                Some(sampler::rates(&model, data, Binarize::Sample, &mut rng)?)
            }
            None => None,
        };
        let chains = a.chains as u64;
        let mut progress = Progress::start("drift", chains, "chains", estimate);
        let mut tick = |done: usize| progress.tick(done as u64);
        let points = drift::drift_observed(
            &model,
            rates.as_ref(),
            &cfg,
            &a.steps,
            a.chains,
            seed,
            &mut tick,
        )?;
        (points, None)
    };
    for point in points {
        out.line(&DriftLine {
            sampler: &cfg.sampler,
            seed,
            chains: a.chains,
            point,
            device: device.clone(),
        })?;
    }
    Ok(())
}

/// The line `rbm reproduce rates-fpcd-mnist` prints first.
#[derive(Serialize)]
struct StudyHeader<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    study: &'static str,
    paper: &'static str,
    model: &'a str,
    samples: u64,
    seed: u64,
}

/// One sampler run's line.
#[derive(Serialize)]
struct StudyLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    result: &'a study::RunResult,
    seconds: f64,
    samples_per_s: f64,
}

/// One checked claim's line.
#[derive(Serialize)]
struct ClaimLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    claim: &'a study::Claim,
}

/// `rbm reproduce rates-fpcd-mnist`: every run of [`study::runs`] on `model` (default: the
/// page's shipped FPCD model), one line each, then the paper's claims checked. Runs are
/// independent seeded streams, so the output does not depend on `threads` (but for timings).
pub fn run_study(
    model: Option<String>,
    samples: Option<u64>,
    seed: u64,
    threads: usize,
    out: &mut Out,
) -> CliResult {
    let samples = samples.unwrap_or(study::DEFAULT_SAMPLES);
    if !(1..=MAX_SAMPLES).contains(&samples) {
        return fail(format!("--samples must be between 1 and {MAX_SAMPLES}"));
    }
    let path = match model {
        Some(p) => p,
        None => super::common::repo_file(
            "www/public/assets/sampler-model.rbm.gz",
            "RBM_SAMPLER_MODEL",
            "the shipped sampler model is missing: give --model FILE (e.g. one saved by rbm train \
             --algo fpcd --data mnist)",
        )?
        .to_string_lossy()
        .into_owned(),
    };
    let model = load_model(&path)?;
    let (train, test, valid) = (
        load_data("mnist")?,
        load_data("mnist-test")?,
        load_data("mnist-valid")?,
    );
    check_fit(&model, &train)?;
    let runs = study::runs();
    // Each sampler run is one job of the command line's budget (issue 28): refused up front,
    // naming the flag, before any line is printed.
    for r in &runs {
        cost::check_sample(
            (model.m(), model.n()),
            &train,
            &r.config,
            samples,
            true,
            &CLI,
        )?;
    }
    out.line(&StudyHeader {
        kind: "header",
        study: study::NAME,
        paper: study::PAPER,
        model: &path,
        samples,
        seed,
    })?;
    let results = super::common::parallel_map(runs.len(), threads, |i| {
        let t0 = Instant::now();
        let r = study::run(&model, &train, &test, &valid, &runs[i], samples, seed);
        (r, t0.elapsed().as_secs_f64())
    });
    let mut done = Vec::new();
    for (r, seconds) in results {
        let r = r?;
        out.line(&StudyLine {
            kind: "sampler",
            result: &r,
            seconds,
            samples_per_s: samples as f64 / seconds.max(1e-9),
        })?;
        done.push(r);
    }
    for c in study::claims(&done) {
        out.line(&ClaimLine {
            kind: "claim",
            claim: &c,
        })?;
    }
    Ok(())
}

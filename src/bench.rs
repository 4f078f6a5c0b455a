//! Benchmark workloads shared by the native bench (`cargo bench --bench speed`) and the
//! browser bench (the wasm build, run in a Web Worker by `npm run bench`). Timings only — never
//! used by tests. The clock is passed in (`Instant` natively, `performance.now()` in a worker).

use crate::data::Dataset;
use crate::engine::cpu::Chains;
use crate::error::Result;
use crate::eval::exact;
use crate::model::{Init, Params, Rbm};
use crate::rng::{normal, stream, Purpose};
use crate::train::{Lane, LaneConfig};
use std::sync::Arc;

/// "Evaluate every" for lanes whose evaluation is not measured: the schema's largest value.
const NEVER: u64 = 1 << 40;

/// The names of every workload, in the order they are reported.
pub fn workloads(quick: bool) -> Vec<String> {
    let mut w: Vec<String> = crate::train::ALGORITHMS
        .iter()
        .map(|a| format!("bas4_{}_updates", a.name))
        .collect();
    for algo in ["cd", "pcd", "sdcp", "cs-dcp", "cg"] {
        w.push(format!("shifting_bar_{algo}_updates"));
    }
    w.push("gibbs_784x500_b100".into());
    w.push("mnist_pcd_784x500_b100_rows".into());
    for s in crate::sampler::SAMPLERS {
        w.push(format!("sampler_{}_784x500_samples", s.name));
    }
    w.push("isl_10000x2000".into());
    w.push("exact_bas4_evals".into());
    w.push("exact_log_z_16x16".into());
    w.push("ucd_bas4_preset_ucd_over_cd".into());
    w.push("ucd_bas4_preset_sweeps_ucd_over_cd".into());
    w.push(format!("exact_log_z_784x{}", if quick { 16 } else { 20 }));
    if !quick {
        // Tieleman 2008's exact 784×25 test log-likelihood (the pcd-mnist-25 preset).
        w.push("exact_log_z_784x25".into());
    }
    w
}

/// Runs the workload `name` (see [`workloads`]) for at least `min_secs`; returns its figure and
/// unit.
pub fn run(name: &str, now: &dyn Fn() -> f64, min_secs: f64) -> Result<(f64, &'static str)> {
    let algo_of = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix("_updates"))
    };
    if let Some(algo) = algo_of("bas4_") {
        return Ok((bas4_updates(algo, now, min_secs)?, "updates/s"));
    }
    if let Some(algo) = algo_of("shifting_bar_") {
        return Ok((
            small_updates("shifting-bar", algo, now, min_secs)?,
            "updates/s",
        ));
    }
    if let Some(sampler) = name
        .strip_prefix("sampler_")
        .and_then(|r| r.strip_suffix("_784x500_samples"))
    {
        return Ok((sampler_samples(sampler, now, min_secs)?, "samples/s"));
    }
    match name {
        "isl_10000x2000" => Ok((isl_secs(10_000, 2_000, now)?, "s")),
        "gibbs_784x500_b100" => Ok((gibbs_sweeps(784, 500, 100, now, min_secs)?, "sweeps/s")),
        "mnist_pcd_784x500_b100_rows" => Ok((mnist_pcd_rows(now, min_secs)?, "rows/s")),
        "exact_bas4_evals" => Ok((bas4_exact_evals(now, min_secs)?, "evaluations/s")),
        "exact_log_z_16x16" => Ok((1e3 / exact_log_z_rate(16, 16, now, min_secs)?, "ms")),
        "ucd_bas4_preset_ucd_over_cd" => Ok((
            ucd_over_cd(if min_secs < 1.0 { 1_000 } else { 10_000 }, now)?.time,
            "× CD-1's time",
        )),
        "ucd_bas4_preset_sweeps_ucd_over_cd" => Ok((
            ucd_over_cd(if min_secs < 1.0 { 1_000 } else { 10_000 }, now)?.sweeps,
            "× CD-1's sweeps",
        )),
        _ => match name
            .strip_prefix("exact_log_z_784x")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) => Ok((exact_log_z_secs(784, n, now)?, "s")),
            None => Err(crate::Error::Invalid(format!("unknown benchmark '{name}'"))),
        },
    }
}

/// Calls `f` until `min_secs` have passed (at least twice) and returns calls per second. The
/// clock is read after a batch of calls that doubles while a batch takes under 10 ms, so
/// reading it (a file read for `--cpu`) does not weigh on calls of a few microseconds.
pub fn rate(now: &dyn Fn() -> f64, min_secs: f64, mut f: impl FnMut()) -> f64 {
    f(); // warm-up
    let t0 = now();
    let (mut calls, mut batch, mut last) = (0u64, 1u64, t0);
    loop {
        for _ in 0..batch {
            f();
        }
        calls += batch;
        let t = now();
        if t - t0 >= min_secs && calls >= 2 {
            return calls as f64 / (t - t0);
        }
        if t - last < 0.01 {
            batch *= 2;
        }
        last = t;
    }
}

/// Updates per second of the UCD paper's BAS 4×4 set-up (16 hidden, 1000 chains, full 32-row
/// batch, UCD-code init, lr 0.1) for `algo`, evaluation excluded.
pub fn bas4_updates(algo: &str, now: &dyn Fn() -> f64, min_secs: f64) -> Result<f64> {
    let cfg = LaneConfig {
        algo: algo.into(),
        hidden: 16,
        lr: 0.1,
        chains: Some(1000),
        init: Init::Ucd,
        seed: Some(1),
        every: NEVER,
        ..Default::default()
    };
    lane_updates(cfg, "bas4", now, min_secs)
}

/// Updates per second of the S-DCP paper's small-data set-up (4 hidden, full batch, S-DCP
/// init) on `data` for `algo` with its equal-compute setting (K = 12, or d = 3, K′ = 4).
pub fn small_updates(data: &str, algo: &str, now: &dyn Fn() -> f64, min_secs: f64) -> Result<f64> {
    let cfg = LaneConfig {
        algo: algo.into(),
        hidden: 4,
        lr: 0.3,
        k: 12,
        d: 3,
        kprime: 4,
        seed: Some(1),
        every: NEVER,
        ..Default::default()
    };
    lane_updates(cfg, data, now, min_secs)
}

/// Updates per second of a fresh lane of `cfg` on the built-in data set `data`.
fn lane_updates(cfg: LaneConfig, data: &str, now: &dyn Fn() -> f64, min_secs: f64) -> Result<f64> {
    let mut lane = Lane::new(cfg, Arc::new(Dataset::builtin(data)?))?;
    let mut err = None;
    let r = rate(now, min_secs, || {
        if let Err(e) = lane.step() {
            err = Some(e);
        }
    });
    err.map_or(Ok(r), Err)
}

/// Training rows per second of PCD-1 on a 784×500 model, batch 100, Bernoulli binarisation per
/// use (the PCD paper's MNIST set-up) on synthetic digit-like grey data (19% of pixels grey, 13%
/// ink on average), evaluation excluded — the same workload natively and in a worker.
pub fn mnist_pcd_rows(now: &dyn Fn() -> f64, min_secs: f64) -> Result<f64> {
    let data = Dataset::synthetic_digits(2000, 3);
    let cfg = LaneConfig {
        algo: "pcd".into(),
        hidden: 500,
        lr: 0.05,
        batch: Some(100),
        seed: Some(1),
        every: NEVER,
        ..Default::default()
    };
    let mut lane = Lane::new(cfg, Arc::new(data))?;
    let mut err = None;
    let r = rate(now, min_secs, || {
        if let Err(e) = lane.step() {
            err = Some(e);
        }
    });
    err.map_or(Ok(100.0 * r), Err)
}

/// Samples per second of one chain of `sampler` (k = 1, its default ε_F and α) on a 784×500
/// model at MNIST-like densities, rates from synthetic digits (the rates-FPCD paper's set-up;
/// PERFORMANCE.md: Gibbs ≥ 20 000, rates-FPCD ≥ 10 000 per worker).
pub fn sampler_samples(sampler: &str, now: &dyn Fn() -> f64, min_secs: f64) -> Result<f64> {
    let model = sparse_model(784, 500, 0.14, 0.22)?;
    let data = Dataset::synthetic_digits(500, 4);
    let cfg = crate::sampler::SamplerConfig {
        sampler: sampler.into(),
        ..Default::default()
    };
    let mut s =
        crate::sampler::SampleStream::new(&model, &data, crate::data::Binarize::Sample, &cfg, 1)?;
    Ok(rate(now, min_secs, || {
        s.next_sample();
    }))
}

/// Seconds to add `samples` random binary samples to an ISL of `test` test and as many
/// validation rows of 784 pixels and read the curve at 1, 10, 100, … samples (β chosen at
/// each).
pub fn isl_secs(samples: usize, test: usize, now: &dyn Fn() -> f64) -> Result<f64> {
    let (a, b) = (
        Dataset::synthetic_digits(test, 5),
        Dataset::synthetic_digits(test, 6),
    );
    let draws = Dataset::synthetic_digits(samples, 7);
    let t0 = now();
    let mut isl = crate::eval::isl::Isl::new(&a.values, Some(&b.values), 784)?;
    let mut next = 1;
    for r in 0..samples {
        isl.add(draws.row(r));
        if r + 1 == next {
            isl.point(None)?;
            next *= 10;
        }
    }
    isl.point(None)?;
    Ok(now() - t0)
}

/// A random m×n model whose units are on with about the given probabilities (MNIST-like:
/// 14% of visible and 22% of hidden units on), for kernel benchmarks.
pub fn sparse_model(m: usize, n: usize, p_v: f64, p_h: f64) -> Result<Rbm> {
    let mut r = stream(1, 0, Purpose::Aux);
    let mut p = Params::zeros(m, n);
    p.w.iter_mut()
        .for_each(|x| *x = (0.01 * normal(&mut r)) as f32);
    p.b.iter_mut()
        .for_each(|x| *x = (p_v / (1.0 - p_v)).ln() as f32);
    p.c.iter_mut()
        .for_each(|x| *x = (p_h / (1.0 - p_h)).ln() as f32);
    Rbm::from_params(m, n, p)
}

/// Block-Gibbs sweeps per second of an m×n RBM on `batch` chains at MNIST-like densities.
pub fn gibbs_sweeps(
    m: usize,
    n: usize,
    batch: usize,
    now: &dyn Fn() -> f64,
    min_secs: f64,
) -> Result<f64> {
    let model = sparse_model(m, n, 0.14, 0.22)?;
    let mut rng = stream(2, 0, Purpose::Aux);
    let mut start = vec![0.0f32; batch * m];
    start
        .iter_mut()
        .for_each(|x| *x = f32::from(u8::from(crate::rng::uniform(&mut rng) < 0.14)));
    let mut chains = Chains::from_rows(&start, m, n, batch);
    Ok(rate(now, min_secs, || chains.sweep(&model, &mut rng)))
}

/// Exact evaluations (log Z and ATLL) per second of a 16×16 model on BAS 4×4 — what every
/// point of the page's curve costs.
pub fn bas4_exact_evals(now: &dyn Fn() -> f64, min_secs: f64) -> Result<f64> {
    let data = Dataset::builtin("bas4")?;
    let model = Rbm::init(&data, 16, Init::Ucd, &mut stream(1, 0, Purpose::Init))?;
    let mut err = None;
    let r = rate(now, min_secs, || {
        if let Err(e) = exact::evaluate(&model, &data) {
            err = Some(e);
        }
    });
    err.map_or(Ok(r), Err)
}

/// Exact log Z computations per second of an m×n model with N(0, 1) weights and biases (a
/// trained 16×16 model's scale: the "exact evaluation of a 16×16 RBM").
pub fn exact_log_z_rate(m: usize, n: usize, now: &dyn Fn() -> f64, min_secs: f64) -> Result<f64> {
    let model = Rbm::random(m, n, 1.0, 3)?;
    let mut err = None;
    let r = rate(now, min_secs, || {
        if let Err(e) = exact::log_z(&model) {
            err = Some(e);
        }
    });
    err.map_or(Ok(r), Err)
}

/// UCD against CD-1 over the first `updates` updates of the `ucd-bas4` preset (η = 0.1,
/// T_max = 100, 1000 chains, seed 1, evaluation excluded).
#[derive(Clone, Copy)]
pub struct UcdOverCd {
    /// UCD's average update time ÷ CD-1's in the same run: the "within 3× of CD-1".
    pub time: f64,
    /// UCD's Gibbs sweeps per chain ÷ CD-1's (the page's equal-compute axis): the work UCD's law
    /// asks for, whatever the kernels. UCD's coupling times change as the model trains, so both
    /// are averages over the preset's schedule.
    pub sweeps: f64,
}

thread_local! {
    /// The last [`ucd_over_cd`] run, so that its two figures cost one run.
    static UCD_OVER_CD: std::cell::Cell<Option<(u64, UcdOverCd)>> = const { std::cell::Cell::new(None) };
}

/// Runs (or recalls, for the same `updates`) the comparison of [`UcdOverCd`].
pub fn ucd_over_cd(updates: u64, now: &dyn Fn() -> f64) -> Result<UcdOverCd> {
    if let Some((u, r)) = UCD_OVER_CD.get() {
        if u == updates {
            return Ok(r);
        }
    }
    let run = |algo: &str| -> Result<(f64, f64)> {
        let cfg = LaneConfig {
            algo: algo.into(),
            hidden: 16,
            lr: 0.1,
            k: 1,
            max_steps: 100,
            chains: Some(1000),
            init: Init::Ucd,
            seed: Some(1),
            every: NEVER,
            ..Default::default()
        };
        let mut lane = Lane::new(cfg, Arc::new(Dataset::builtin("bas4")?))?;
        let t0 = now();
        for _ in 0..updates {
            lane.step()?;
        }
        Ok(((now() - t0) / updates as f64, lane.sweeps()))
    };
    let (cd_time, cd_sweeps) = run("cd")?;
    let (ucd_time, ucd_sweeps) = run("ucd")?;
    let r = UcdOverCd {
        time: ucd_time / cd_time,
        sweeps: ucd_sweeps / cd_sweeps,
    };
    UCD_OVER_CD.set(Some((updates, r)));
    Ok(r)
}

/// Seconds for the exact log Z of an m×n RBM (enumerating the n hidden units), single thread.
pub fn exact_log_z_secs(m: usize, n: usize, now: &dyn Fn() -> f64) -> Result<f64> {
    let model = sparse_model(m, n, 0.14, 0.22)?;
    let t0 = now();
    let z = exact::log_z(&model)?;
    let dt = now() - t0;
    assert!(z.is_finite());
    Ok(dt)
}

//! `rbm devices` and `rbm speed`: the GPUs wgpu finds, and the GPU engine's speed on the
//! workloads of the PyTorch peer (`../shared/gpu_peer.py`), one JSON line each.

use crate::common::{fail, CliResult, Out};
use clap::Args;
use rbm_gpu::{speed, Device};
use serde_json::json;

/// `--device` and `--adapter` of the commands that can run on the GPU engine.
#[derive(Args, Debug)]
pub struct DeviceArgs {
    /// Where the dense work runs: cpu (the CPU engine, exact and seeded bit for bit) or gpu
    /// (the GPU engine through wgpu: f32, reproducible per seed on one GPU; UCD and PT
    /// run on the CPU only)
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    device: String,
    /// GPU adapter number from `rbm devices` (default: the high-performance one)
    #[arg(long, requires = "device")]
    adapter: Option<usize>,
}

impl DeviceArgs {
    /// Whether `--device gpu` was given (without opening the GPU).
    pub fn is_gpu(&self) -> bool {
        self.device == "gpu"
    }

    /// The GPU when `--device gpu` (a clear error where none is found), else None.
    pub fn open(&self) -> CliResult<Option<std::sync::Arc<Device>>> {
        match self.device.as_str() {
            "gpu" => {
                quiet_wayland();
                Ok(Some(Device::open(self.adapter)?))
            }
            _ => Ok(None),
        }
    }
}

/// Looking for GPUs makes libwayland print "error: XDG_RUNTIME_DIR is invalid or not set" on
/// stderr where no desktop session set that variable (CI, SSH): a second error line beside
/// ours. The engine draws nothing on a display, so the variable is pointed at the temporary
/// folder, where libwayland finds no display and says nothing. Called before any thread
/// starts.
fn quiet_wayland() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
}

/// How an output names where it was computed: "cpu", or "gpu: " and the adapter's name.
pub fn label(gpu: Option<&Device>) -> String {
    gpu.map_or_else(|| "cpu".into(), |d| format!("gpu: {}", d.info.name))
}

/// `rbm devices`.
#[derive(Args, Debug)]
pub struct DevicesCmd {}

/// `rbm speed`.
#[derive(Args, Debug)]
pub struct SpeedCmd {
    /// Engine to measure: gpu (the GPU engine through wgpu); the CPU engine's figures come
    /// from `npm run bench`
    #[arg(long, default_value = "gpu")]
    device: String,
    /// GPU adapter number from `rbm devices` (default: the high-performance one)
    #[arg(long)]
    adapter: Option<usize>,
    /// Seconds each workload runs for (after a warm-up)
    #[arg(long, default_value_t = 1.0)]
    min_seconds: f64,
    /// Only batch 100 and 1 000 (no batch 10 000), AIS at 1 000 β, the study job at 2 000
    /// updates, exact 784×16 and 784×20
    #[arg(long)]
    quick: bool,
    /// Only these workloads (comma-separated: gibbs, pcd, ais, ais-batch, study, exact)
    #[arg(long, value_delimiter = ',', value_parser = ["gibbs", "pcd", "ais", "ais-batch", "study", "exact"])]
    only: Vec<String>,
    /// Where the GPU's time goes instead of rates: Gibbs, PCD-1 and AIS with every pass timed
    /// (one JSON line per kernel, then one for the workload: the GPU's busy time and span per
    /// unit). Slower than a plain run: its times say what is spent where, not how fast
    #[arg(long)]
    profile: bool,
}

/// Lists the adapters wgpu finds, one JSON line each (none: no line, and a note on stderr).
pub fn devices(_: DevicesCmd, out: &mut Out) -> CliResult {
    quiet_wayland();
    let list = rbm_gpu::adapters();
    if list.is_empty() {
        eprintln!("no GPU adapter found (a Vulkan, Metal or DX12 driver is needed; on Debian without a GPU: apt-get install mesa-vulkan-drivers)");
    }
    for (i, a) in list.iter().enumerate() {
        out.line(&json!({
            "adapter": i, "name": a.name, "backend": a.backend, "type": a.kind, "driver": a.driver,
            "subgroups": [a.subgroups.0, a.subgroups.1], "f16": a.f16, "matrix_units": a.matrix_units,
        }))?;
    }
    Ok(())
}

/// Measures the GPU engine: Gibbs sweeps on 784×500 at batch 100, 1 000 and 10 000, and PCD-1
/// training rows per second at batch 100, seconds for AIS (100 particles × 1 000 and 10 000 β)
/// on 784×500, alone and as a batch of 40 models (a paper-scale study's checkpoint), seconds
/// for the whole `sdcp-shifting-bar` study as one GPU job, and seconds for the exact log Z of
/// 784×20 and 784×25 models.
pub fn speed(a: SpeedCmd, out: &mut Out) -> CliResult {
    if a.device != "gpu" {
        return fail(format!(
            "rbm speed measures the GPU engine (--device gpu); '{}' is not measured here: the CPU engine's figures come from `npm run bench`",
            a.device
        ));
    }
    if !(a.min_seconds > 0.0 && a.min_seconds <= 600.0) {
        return fail("--min-seconds must be in (0, 600]");
    }
    quiet_wayland();
    let dev = Device::open(a.adapter)?;
    let label = format!("{} ({}, GPU engine)", dev.info.name, dev.info.backend);
    let (m, n) = (784, 500);
    if a.profile {
        return profile(&dev, &label, &a, out);
    }
    let run = |w: &str| a.only.is_empty() || a.only.iter().any(|o| o == w);
    let batches: &[usize] = if a.quick {
        &[100, 1000]
    } else {
        &[100, 1000, 10_000]
    };
    for &b in batches.iter().filter(|_| run("gibbs")) {
        let r = speed::gibbs(&dev, m, n, b, a.min_seconds)?;
        out.line(&json!({"workload": format!("gibbs_784x500_b{b}"), "value": r, "unit": "sweeps/s", "samples_per_s": r * b as f64, "device": label}))?;
    }
    if run("pcd") {
        let r = speed::pcd1(&dev, m, n, 100, a.min_seconds)?;
        out.line(&json!({"workload": "pcd1_784x500_b100", "value": r, "unit": "rows/s", "device": label}))?;
    }
    let betas: &[usize] = if a.quick { &[1000] } else { &[1000, 10_000] };
    for &k in betas.iter().filter(|_| run("ais")) {
        let s = speed::ais(&dev, m, n, 100, k)?;
        out.line(&json!({"workload": format!("ais_784x500_100x{k}"), "value": s, "unit": "s", "arithmetic": "f32, log-weights in double-single", "device": label}))?;
    }
    // A study's checkpoint: sdcp-mnist at the paper's scale measures 4 lanes × 10 trials.
    let (models, k) = if a.quick { (8, 1000) } else { (40, 10_000) };
    if run("ais-batch") {
        let s = speed::ais_batch(&dev, m, n, models, 100, k)?;
        out.line(&json!({"workload": format!("ais_batch_{models}x784x500_100x{k}"), "value": s, "unit": "s", "per_model_s": s / models as f64, "arithmetic": "f32, log-weights in double-single", "device": label}))?;
    }
    // A small-data study's 250 trials as one job (the preset's 50 000 updates; --quick 2 000).
    let iters = if a.quick { 2_000 } else { 50_000 };
    if run("study") {
        let s = speed::study_job(&dev, iters)?;
        out.line(&json!({"workload": format!("study_sdcp_shifting_bar_250x{iters}"), "value": s, "unit": "s", "updates_per_s": 250.0 * iters as f64 / s, "arithmetic": "f32, exact ATLL in f64 on the host", "device": label}))?;
    }
    let sizes: &[usize] = if a.quick { &[16, 20] } else { &[20, 25] };
    for &k in sizes.iter().filter(|_| run("exact")) {
        let s = speed::exact_log_z(&dev, m, k)?;
        out.line(&json!({"workload": format!("exact_log_z_784x{k}"), "value": s, "unit": "s", "arithmetic": "f32 with compensated sums", "device": label}))?;
    }
    Ok(())
}

/// `rbm speed --profile`: each workload's passes timed on the GPU ([`rbm_gpu::profile`]), one
/// line per kernel (passes, microseconds and share of the busy time per unit; the products'
/// GFLOP/s) and one per workload (busy time and span per unit, and the time between passes).
fn profile(dev: &std::sync::Arc<Device>, label: &str, a: &SpeedCmd, out: &mut Out) -> CliResult {
    let (m, n) = (784, 500);
    let run = |w: &str| a.only.is_empty() || a.only.iter().any(|o| o == w);
    for w in ["ais-batch", "study", "exact"] {
        if a.only.iter().any(|o| o == w) {
            eprintln!("rbm speed --profile times gibbs, pcd and ais; '{w}' is left out");
        }
    }
    let mut report = |name: String,
                      unit: &str,
                      units: f64,
                      s: rbm_gpu::profile::Summary|
     -> CliResult {
        for k in &s.kernels {
            let gflops = (k.flops > 0.0).then(|| k.flops / k.ns);
            out.line(&json!({"profile": name, "kernel": &*k.kernel, "passes_per_unit": k.passes as f64 / units, "us_per_unit": k.ns / units / 1e3, "share": k.ns / s.busy_ns.max(1.0), "gflops": gflops, "unit": unit}))?;
        }
        out.line(&json!({"profile": name, "unit": unit, "units": units, "busy_us_per_unit": s.busy_ns / units / 1e3, "span_us_per_unit": s.span_ns / units / 1e3, "between_passes_us_per_unit": (s.span_ns - s.busy_ns).max(0.0) / units / 1e3, "device": label, "note": "every pass timed: each submission waits for its timestamps, so these are shares, not rates"}))
    };
    let batches: &[usize] = if a.quick {
        &[100, 1000]
    } else {
        &[100, 1000, 10_000]
    };
    for &b in batches.iter().filter(|_| run("gibbs")) {
        let calls = (4_000 / b).clamp(2, 40);
        let mut work = speed::gibbs_work(dev, m, n, b)?;
        let s = speed::profile(dev, 2, calls, || {
            work();
            Ok(())
        })?;
        report(
            format!("gibbs_784x500_b{b}"),
            "sweep",
            (calls * speed::GIBBS_SWEEPS_PER_UNIT) as f64,
            s,
        )?;
    }
    if run("pcd") {
        let mut work = speed::pcd1_work(dev, m, n, 100)?;
        let s = speed::profile(dev, 10, 200, || {
            work();
            Ok(())
        })?;
        report("pcd1_784x500_b100".into(), "update", 200.0, s)?;
    }
    if run("ais") {
        let model = rbm_core::model::Rbm::random(m, n, 0.01, 1)?;
        let betas = 1000;
        let s = speed::profile(dev, 1, 1, || {
            rbm_gpu::ais::log_z(dev, &model, &model.b, 100, betas, 1).map(|_| ())
        })?;
        report(
            format!("ais_784x500_100x{betas}"),
            "beta step",
            betas as f64,
            s,
        )?;
    }
    Ok(())
}

//! The GPU engine's speed on the workloads of `../shared/gpu_peer.py` (the PyTorch peer), for
//! `rbm speed --device gpu`: each returns a rate measured over at least `min_s` seconds after a
//! warm-up, the GPU waited for at both ends. Benchmarks only: nothing here is a test.

use crate::engine::{Gpu, GpuModel, GpuOptimizer, GpuRng};
use crate::Device;
use rbm_core::data::Dataset;
use rbm_core::engine::Engine;
use rbm_core::error::Result;
use rbm_core::model::Rbm;
use rbm_core::rng::{stream, uniform, Purpose};
use rbm_core::train::{pcd::Pcd, Algorithm, Ctx, LaneConfig, Setup};
use std::sync::Arc;
use std::time::Instant;

/// Repeats `f` (one unit of work each) until `min_s` seconds have passed, waiting for the GPU
/// every `per_wait` calls and at the end; units per second.
fn rate(dev: &Device, min_s: f64, per_wait: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..per_wait.min(8) {
        f();
    }
    dev.finish();
    let t0 = Instant::now();
    let mut n = 0usize;
    loop {
        f();
        n += 1;
        if n.is_multiple_of(per_wait) {
            dev.finish();
            if t0.elapsed().as_secs_f64() >= min_s {
                break;
            }
        }
    }
    dev.finish();
    n as f64 / t0.elapsed().as_secs_f64()
}

fn random_rows(rows: usize, m: usize, density: f32, seed: u64) -> Vec<f32> {
    let mut r = stream(seed, 0, Purpose::Aux);
    (0..rows * m)
        .map(|_| f32::from(u8::from(uniform(&mut r) < density)))
        .collect()
}

/// Gibbs sweeps a unit of [`gibbs_work`] runs.
pub const GIBBS_SWEEPS_PER_UNIT: usize = 25;

/// The Gibbs workload on an m×n model (W ~ N(0, 0.01²)) with `chains` chains: each call
/// records [`GIBBS_SWEEPS_PER_UNIT`] sweeps (h ~ p(h|v) then v ~ p(v|h)) and submits them.
pub fn gibbs_work(dev: &Arc<Device>, m: usize, n: usize, chains: usize) -> Result<impl FnMut()> {
    let model = GpuModel::upload(dev, &Rbm::random(m, n, 0.01, 1)?);
    let mut c = Gpu::chains(&model, &random_rows(chains, m, 0.5, 2), chains);
    let mut rng = GpuRng::new(1, 0);
    let dev = dev.clone();
    Ok(move || {
        Gpu::sweeps(&model, &mut c, &mut rng, GIBBS_SWEEPS_PER_UNIT);
        dev.flush();
    })
}

/// Gibbs sweeps per second of `chains` chains on an m×n model ([`gibbs_work`]).
pub fn gibbs(dev: &Arc<Device>, m: usize, n: usize, chains: usize, min_s: f64) -> Result<f64> {
    let work = gibbs_work(dev, m, n, chains)?;
    Ok(GIBBS_SWEEPS_PER_UNIT as f64 * rate(dev, min_s, 4, work))
}

/// The PCD-1 workload on an m×n model, batch `batch` with as many persistent chains, plain
/// SGD (η = 0.05), through the PCD algorithm file on the GPU engine: each call is one update
/// (submitted), its batch cycling through 2 000 random 0/1 rows (20 % on) uploaded from the
/// host.
pub fn pcd1_work(dev: &Arc<Device>, m: usize, n: usize, batch: usize) -> Result<impl FnMut()> {
    let rows = random_rows(2000, m, 0.2, 3);
    let data = Dataset::from_rows(
        "random",
        &rows
            .chunks_exact(m)
            .map(|r| r.iter().map(|&x| x as u8).collect())
            .collect::<Vec<Vec<u8>>>(),
        None,
    )?;
    let cfg = LaneConfig {
        algo: "pcd".into(),
        hidden: n,
        k: 1,
        ..LaneConfig::default()
    };
    let mut model = GpuModel::upload(dev, &Rbm::random(m, n, 0.01, 1)?);
    let setup = Setup::<Gpu> {
        cfg: &cfg,
        model: &model,
        data: &data,
        batch,
        chains: batch,
    };
    let mut algo = Pcd::<Gpu>::new(&setup);
    let mut opt = GpuOptimizer::new(&model, 0.0, 0.0);
    let mut pos = Gpu::stats(&model);
    let mut rng = GpuRng::new(1, 0);
    let mut t = 0usize;
    let batches = 2000 / batch;
    let dev = dev.clone();
    Ok(move || {
        let s = (t % batches) * batch * m;
        t += 1;
        let mut cx = Ctx::<Gpu> {
            model: &mut model,
            batch: &rows[s..s + batch * m],
            rng: &mut rng,
            lr: 0.05,
            opt: &mut opt,
            pos: &mut pos,
        };
        algo.update(&mut cx).expect("PCD's update does not fail");
        dev.flush();
    })
}

/// PCD-1 training rows per second on an m×n model at batch `batch` ([`pcd1_work`]).
pub fn pcd1(dev: &Arc<Device>, m: usize, n: usize, batch: usize, min_s: f64) -> Result<f64> {
    let work = pcd1_work(dev, m, n, batch)?;
    Ok(rate(dev, min_s, 50, work) * batch as f64)
}

/// Where the GPU's time goes in `units` calls of `work`, after `warm` calls not counted
/// ([`crate::profile`]: every pass timed; a profiled run is slower than a plain one, so its
/// times say what is spent where, not how fast the workload runs).
pub fn profile(
    dev: &Arc<Device>,
    warm: usize,
    units: usize,
    mut work: impl FnMut() -> Result<()>,
) -> Result<crate::profile::Summary> {
    for _ in 0..warm {
        work()?;
    }
    dev.finish();
    dev.start_profile()?;
    for _ in 0..units {
        work()?;
    }
    dev.finish();
    Ok(crate::profile::summarize(&dev.take_profile()?))
}

/// Seconds for the exact log Z of an m×n model with W ~ N(0, 0.05²) (the peer's), after a
/// warm-up on m×16 (the pipeline's compilation is not counted, as PyTorch's is not).
pub fn exact_log_z(dev: &Arc<Device>, m: usize, n: usize) -> Result<f64> {
    crate::exact::log_z(dev, &Rbm::random(m, 16, 0.05, 7)?)?;
    let model = Rbm::random(m, n, 0.05, 7)?;
    let t0 = Instant::now();
    crate::exact::log_z(dev, &model)?;
    Ok(t0.elapsed().as_secs_f64())
}

/// Seconds for AIS with `particles` particles and `betas` inverse temperatures on an m×n
/// model with W ~ N(0, 0.01²), the base model's visible biases the model's own (the peer's
/// workload), after a warm-up of 10 β (compiling the kernels).
pub fn ais(dev: &Arc<Device>, m: usize, n: usize, particles: usize, betas: usize) -> Result<f64> {
    let model = Rbm::random(m, n, 0.01, 1)?;
    crate::ais::log_z(dev, &model, &model.b, particles, 10, 1)?;
    let t0 = Instant::now();
    crate::ais::log_z(dev, &model, &model.b, particles, betas, 1)?;
    Ok(t0.elapsed().as_secs_f64())
}

/// Seconds for AIS of `models` m×n models at once ([`crate::ais::Anneal::batch`], a study's
/// checkpoint: W ~ N(0, 0.01²), each with its own seed), `particles` particles and `betas`
/// inverse temperatures each, after a warm-up of 10 β.
pub fn ais_batch(
    dev: &Arc<Device>,
    m: usize,
    n: usize,
    models: usize,
    particles: usize,
    betas: usize,
) -> Result<f64> {
    let rbms = (0..models)
        .map(|i| Rbm::random(m, n, 0.01, 1 + i as u64))
        .collect::<Result<Vec<_>>>()?;
    let runs = |betas| {
        rbms.iter()
            .enumerate()
            .map(|(i, r)| {
                let cfg = rbm_core::eval::ais::AisConfig {
                    particles,
                    betas,
                    seed: i as u64,
                    schedule: Default::default(),
                };
                (r, r.b.as_slice(), cfg)
            })
            .collect::<Vec<_>>()
    };
    crate::ais::log_z_batch(dev, &runs(10))?;
    let t0 = Instant::now();
    crate::ais::log_z_batch(dev, &runs(betas))?;
    Ok(t0.elapsed().as_secs_f64())
}

/// Seconds for the whole `sdcp-shifting-bar` study (its 10 lanes × 25 trials, `iters` updates
/// each, checkpoints every 100) as one GPU job ([`crate::study::StudyJob`]), the records made
/// on the host as `rbm reproduce` makes them, after a warm-up job of 100 updates (compiling the
/// kernel). The goal: 50 000 updates in ≤ 5 s on an H100.
pub fn study_job(dev: &Arc<Device>, iters: u64) -> Result<f64> {
    use rbm_core::experiments::{find_preset, trials::Study, trials::StudyRequest};
    let run = |iters: u64| -> Result<f64> {
        let req = StudyRequest {
            iters: Some(iters),
            every: Some(100),
            ..Default::default()
        };
        let study = Study::new(find_preset("sdcp-shifting-bar")?, &req, 1)?;
        let mut plans = Vec::new();
        for g in 0..study.groups.len() {
            plans.extend(study.job_plans(g)?);
        }
        let t0 = Instant::now();
        let mut job = crate::study::StudyJob::new(dev.clone());
        study.run_job(&mut job, &plans, None, &mut |_| {})?;
        Ok(t0.elapsed().as_secs_f64())
    };
    run(100)?;
    run(iters)
}

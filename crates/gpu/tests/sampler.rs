//! The rates-FPCD paper's samplers on the GPU (issue 30; Breuleux, Bengio & Vincent 2011,
//! docs/algorithms.md §5): the core's one definition (`rbm_core::sampler::engine`) on the GPU
//! engine, on whatever adapter wgpu finds (lavapipe in CI).
//!
//! - law: Gibbs chains started from a small model's exact p(v) stay there (χ² over patterns,
//!   and `rbm drift`'s self-test: total variation at the Monte-Carlo floor);
//! - the fast parameters follow the paper's update θ_F ← α·θ_F + ε_F·(R − s(x⁻)) of the
//!   samples the GPU emitted (rates-FPCD with and without decay, SP);
//! - herding's deterministic steps give the CPU's samples;
//! - rates-FPCD, rates-herding and SP on a trained BAS 3×3 model: the exact mean log p(x) of
//!   their samples and their mean flips per sample agree with the CPU's within the spread over
//!   seeds;
//! - a seed gives the same samples twice.
#![allow(clippy::needless_range_loop)] // index loops mirror the formulas

use rbm_core::data::{Binarize, Dataset};
use rbm_core::eval::exact;
use rbm_core::model::{Init, Params, Rbm};
use rbm_core::rng::{stream, uniform, uniform_f64, Purpose};
use rbm_core::sampler::engine::EngineSampler;
use rbm_core::sampler::{self, SamplerConfig};
use rbm_core::train::{Lane, LaneConfig};
use rbm_gpu::Gpu;
use std::sync::Arc;

mod common;
use common::device;

fn cfg(name: &str, k: usize, eps_f: Option<f64>, alpha: Option<f64>) -> SamplerConfig {
    SamplerConfig {
        sampler: name.into(),
        k,
        eps_f,
        alpha,
        ..SamplerConfig::default()
    }
}

/// The pattern code of a 0/1 row (unit i is bit i, as `exact::model_distribution`).
fn code(row: &[f32]) -> usize {
    row.iter()
        .enumerate()
        .map(|(i, &x)| usize::from(x == 1.0) << i)
        .sum()
}

/// `count` exact draws from p(v) of `model`, as rows.
fn exact_rows(p: &[f64], m: usize, count: usize, seed: u64) -> Vec<f32> {
    let mut r = stream(seed, 0, Purpose::Aux);
    let mut rows = Vec::with_capacity(count * m);
    for _ in 0..count {
        let u = uniform_f64(&mut r);
        let mut acc = 0.0;
        let c = p
            .iter()
            .position(|&q| {
                acc += q;
                u < acc
            })
            .unwrap_or(p.len() - 1);
        rows.extend((0..m).map(|i| ((c >> i) & 1) as f32));
    }
    rows
}

/// Gibbs chains of the GPU's sampler started from the exact p(v) of a 6×4 model are still
/// distributed as p(v) after each of 3 emitted samples of k = 2 sweeps: a chi-square test over
/// the 64 patterns (63 degrees of freedom: about 130 at p = 1e-6; a transposed weight or a
/// wrong uniform gives thousands).
#[test]
fn gibbs_on_the_gpu_started_from_the_exact_distribution_does_not_drift() {
    let (m, n, count) = (6, 4, 40_000);
    let model = Rbm::random(m, n, 1.2, 3).unwrap();
    let p = exact::model_distribution(&model).unwrap();
    let rows = exact_rows(&p, m, count, 5);
    let mut s = EngineSampler::<Gpu>::new(
        &device(),
        &model,
        &cfg("gibbs", 2, None, None),
        None,
        &rows,
        3,
        0,
    )
    .unwrap();
    assert_eq!(s.chains(), count);
    let out = s.samples(3);
    assert_eq!(out.len(), 3 * count * m);
    assert!(out.iter().all(|&x| x == 0.0 || x == 1.0));
    for (t, emitted) in out.chunks_exact(count * m).enumerate() {
        let mut hist = vec![0usize; 1 << m];
        for row in emitted.chunks_exact(m) {
            hist[code(row)] += 1;
        }
        let chi2: f64 = hist
            .iter()
            .zip(&p)
            .map(|(&o, &q)| {
                let e = q * count as f64;
                (o as f64 - e).powi(2) / e
            })
            .sum();
        assert!(
            chi2 < 130.0,
            "sample {t}: chi-square {chi2} over 64 patterns"
        );
    }
    // The chains moved: the last sample is not the start.
    assert_ne!(&out[2 * count * m..], &rows[..]);
    assert_eq!(s.states(), &out[2 * count * m..]);
}

/// `rbm drift --device gpu`'s self-test: Gibbs chains batched on the GPU from exact draws of a
/// peaked 9×6 model stay at the Monte-Carlo floor (within 4 standard deviations) after 1, 4
/// and 16 samples; the fast-parameter samplers are refused there.
#[test]
fn the_drift_self_test_of_gibbs_runs_on_the_gpu() {
    let model = Rbm::random(9, 6, 1.5, 11).unwrap();
    for seed in 1..=2 {
        let pts = rbm_core::sampler::drift::drift_on::<Gpu>(
            &device(),
            &model,
            &cfg("gibbs", 1, None, None),
            &[1, 4, 16],
            20_000,
            seed,
        )
        .unwrap();
        for p in &pts {
            assert!(
                p.tv < p.noise_floor + 4.0 * p.noise_sd,
                "seed {seed}: {p:?} drifted"
            );
        }
    }
    assert!(rbm_core::sampler::drift::drift_on::<Gpu>(
        &device(),
        &model,
        &cfg("rates-fpcd", 1, None, None),
        &[1],
        10,
        1
    )
    .is_err());
}

/// The paper's update, written out in f64: f ← α·f + ε·(R − s(x)), s(x) = (x·hpᵀ, x, hp) with
/// hp = E[h|x] under θ + f before the update; `rates` None is R = 0.
fn reference_step(
    model: &Rbm,
    f: &mut [f64],
    rates: Option<&Params<f32>>,
    x: &[f32],
    alpha: f64,
    eps: f64,
) {
    let (m, n) = (model.m(), model.n());
    let (w, c) = (model.w(), &model.c);
    let hp: Vec<f64> = (0..n)
        .map(|j| {
            let mut a = f64::from(c[j]) + f[m * n + m + j];
            for i in 0..m {
                a += f64::from(x[i]) * (f64::from(w[i * n + j]) + f[i * n + j]);
            }
            1.0 / (1.0 + (-a).exp())
        })
        .collect();
    let r = |k: usize| -> f64 {
        rates.map_or(0.0, |r| {
            let (mn, m) = (r.w.len(), r.b.len());
            f64::from(if k < mn {
                r.w[k]
            } else if k < mn + m {
                r.b[k - mn]
            } else {
                r.c[k - mn - m]
            })
        })
    };
    for i in 0..m {
        for j in 0..n {
            let k = i * n + j;
            f[k] = alpha * f[k] + eps * (r(k) - f64::from(x[i]) * hp[j]);
        }
        let k = m * n + i;
        f[k] = alpha * f[k] + eps * (r(k) - f64::from(x[i]));
    }
    for j in 0..n {
        let k = m * n + m + j;
        f[k] = alpha * f[k] + eps * (r(k) - hp[j]);
    }
}

/// After every emitted sample, θ_F on the GPU equals the paper's update applied in f64 to the
/// samples the GPU emitted (with E[h|x⁻] under θ + θ_F), for rates-FPCD (α = 1, and α = 0.9)
/// and SP (R = 0, α = 0.3): the update, its rates and its E[h|x⁻] under θ⁻ are the paper's.
#[test]
fn the_fast_parameters_on_the_gpu_follow_the_papers_update() {
    let (m, n) = (10, 6);
    let model = Rbm::random(m, n, 0.7, 4).unwrap();
    let mut rng = stream(5, 0, Purpose::Aux);
    let mut rates = Params::zeros(m, n);
    for blk in rates.blocks_mut() {
        blk.iter_mut().for_each(|x| *x = uniform(&mut rng));
    }
    for (name, alpha, use_rates) in [
        ("rates-fpcd", 1.0, true),
        ("sp", 0.3, false),
        ("rates-fpcd", 0.9, true),
    ] {
        let c = cfg(name, 1, Some(0.05), Some(alpha));
        let mut s =
            EngineSampler::<Gpu>::new(&device(), &model, &c, Some(&rates), &[1.0; 10], 6, 0)
                .unwrap();
        let mut reference = vec![0.0f64; m * n + m + n];
        for step in 0..40 {
            let x = s.samples(1);
            reference_step(
                &model,
                &mut reference,
                use_rates.then_some(&rates),
                &x,
                alpha,
                0.05,
            );
            let got = s.fast().unwrap().download();
            for (k, (g, r)) in got.iter().zip(&reference).enumerate() {
                assert!(
                    (f64::from(*g) - r).abs() < 2e-4,
                    "{name} α={alpha} step {step} θ_F[{k}]: GPU {g} vs {r}"
                );
            }
        }
        let w_norm = reference[..m * n].iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!(
            (s.fast_norm() - w_norm).abs() < 1e-3,
            "‖W_F‖ {} vs {w_norm}",
            s.fast_norm()
        );
    }
}

/// Herding is deterministic: from the same start the GPU's fixed-point searches and updates
/// give the CPU's samples (a pre-activation within rounding of 0 would be the only way apart),
/// with no step (every sample the same fixed point), with the paper's update, and with a cap
/// that stops searches early.
#[test]
fn herding_on_the_gpu_gives_the_cpus_samples() {
    let (m, n) = (12, 7);
    let model = Rbm::random(m, n, 0.8, 5).unwrap();
    let mut rng = stream(8, 0, Purpose::Aux);
    let mut rates = Params::zeros(m, n);
    for blk in rates.blocks_mut() {
        blk.iter_mut().for_each(|x| *x = uniform(&mut rng));
    }
    let start: Vec<f32> = (0..m).map(|i| (i % 3 == 0) as u8 as f32).collect();
    for (eps, cap, count) in [(0.0, 1000, 5), (0.05, 10, 60), (0.2, 2, 60)] {
        let c = SamplerConfig {
            cap,
            ..cfg("rates-herding", 1, Some(eps), None)
        };
        let mut cpu = c.build(&model, Some(&rates), &start).unwrap();
        let mut r = stream(1, 0, Purpose::Sampling);
        let want: Vec<f32> = (0..count)
            .flat_map(|_| {
                cpu.next(&mut r);
                cpu.visible().to_vec()
            })
            .collect();
        let mut gpu =
            EngineSampler::<Gpu>::new(&device(), &model, &c, Some(&rates), &start, 1, 0).unwrap();
        let got = gpu.samples(count);
        assert_eq!(got, want, "ε_F {eps}, cap {cap}");
        assert!(
            (gpu.fast_norm() - cpu.fast_norm()).abs() < 1e-4 * (1.0 + cpu.fast_norm()),
            "‖W_F‖ GPU {} vs CPU {}",
            gpu.fast_norm(),
            cpu.fast_norm()
        );
        if eps == 0.0 {
            assert!(got.chunks_exact(m).all(|x| x == &got[..m]));
        }
    }
}

/// A 9×12 model trained by PCD on BAS 3×3 (several modes), and its training set.
fn trained_bas3() -> (Rbm, Dataset) {
    let data = Dataset::builtin("bas3").unwrap();
    let lane_cfg = LaneConfig {
        algo: "pcd".into(),
        hidden: 12,
        lr: 0.2,
        chains: Some(50),
        seed: Some(3),
        every: 3000,
        init: Init::Ucd,
        ..Default::default()
    };
    let mut lane = Lane::new(lane_cfg, Arc::new(data.clone())).unwrap();
    lane.run(3000).unwrap();
    (lane.model().clone(), data)
}

/// Statistics of a stream of samples: the mean exact log p(x) under the model, and the mean
/// number of units that change from one sample to the next (how fast the chain moves).
fn stream_stats(samples: &[f32], m: usize, log_p: &[f64]) -> (f64, f64) {
    let rows: Vec<&[f32]> = samples.chunks_exact(m).collect();
    let lp = rows.iter().map(|r| log_p[code(r)]).sum::<f64>() / rows.len() as f64;
    let flips = rows
        .windows(2)
        .map(|w| w[0].iter().zip(w[1]).filter(|(a, b)| a != b).count() as f64)
        .sum::<f64>()
        / (rows.len() - 1) as f64;
    (lp, flips)
}

fn mean_se(x: &[f64]) -> (f64, f64) {
    let k = x.len() as f64;
    let mean = x.iter().sum::<f64>() / k;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

/// rates-FPCD, rates-herding and SP on a trained BAS 3×3 model, on the GPU and on the CPU from
/// the same starts (`sampler::prepare` of each seed): over 24 seeds of 300 samples, the mean
/// exact log p(x) of the samples and the mean flips per sample agree within 4 standard errors
/// of their difference (plus 0.02 for herding, whose runs are deterministic). Their fast step
/// makes them leave the modes Gibbs stays in (Gibbs flips about 0.06 units per sample here, they
/// 0.15–0.55): the same statistics under Gibbs are far apart (checked). A wrong update fails
/// it: checked with R halved on the GPU (log p −8.6 vs −6.4) and with ε_F 20 % short (flips
/// 0.46 vs 0.55).
#[test]
fn rates_samplers_on_the_gpu_match_the_cpu_within_the_spread_over_seeds() {
    let (model, data) = trained_bas3();
    let m = model.m();
    let log_p: Vec<f64> = exact::model_distribution(&model)
        .unwrap()
        .iter()
        .map(|p| p.ln())
        .collect();
    let (seeds, count) = (24u64, 300usize);
    let runs = |c: &SamplerConfig, gpu: bool| -> Vec<(f64, f64)> {
        (0..seeds)
            .map(|seed| {
                let (rates, start) =
                    sampler::prepare(&model, &data, Binarize::Sample, c, seed).unwrap();
                let samples = if gpu {
                    EngineSampler::<Gpu>::new(&device(), &model, c, rates.as_ref(), &start, seed, 0)
                        .unwrap()
                        .samples(count)
                } else {
                    let mut s = c.build(&model, rates.as_ref(), &start).unwrap();
                    let mut r = stream(seed, 0, Purpose::Sampling);
                    (0..count)
                        .flat_map(|_| {
                            s.next(&mut r);
                            s.visible().to_vec()
                        })
                        .collect()
                };
                stream_stats(&samples, m, &log_p)
            })
            .collect()
    };
    let summary = |r: &[(f64, f64)]| {
        let lp: Vec<f64> = r.iter().map(|x| x.0).collect();
        let fl: Vec<f64> = r.iter().map(|x| x.1).collect();
        (mean_se(&lp), mean_se(&fl))
    };
    let gibbs = summary(&runs(&cfg("gibbs", 1, None, None), false));
    for c in [
        cfg("rates-fpcd", 1, Some(0.1), None),
        cfg("sp", 1, Some(0.1), Some(0.9)),
        SamplerConfig {
            cap: 10,
            ..cfg("rates-herding", 1, Some(0.05), None)
        },
    ] {
        let (g, cpu) = (summary(&runs(&c, true)), summary(&runs(&c, false)));
        let slack = if c.sampler == "rates-herding" {
            0.02
        } else {
            0.0
        };
        for (what, (gm, gs), (cm, cs)) in [
            ("mean log p(x)", g.0, cpu.0),
            ("flips per sample", g.1, cpu.1),
        ] {
            let tol = 4.0 * (gs * gs + cs * cs).sqrt() + slack * cm.abs();
            eprintln!(
                "{}: {what} GPU {gm:.4} ± {gs:.4}, CPU {cm:.4} ± {cs:.4}",
                c.sampler
            );
            assert!(
                (gm - cm).abs() <= tol,
                "{}: {what} GPU {gm} ± {gs} vs CPU {cm} ± {cs}",
                c.sampler
            );
        }
        // The test has power: this sampler's statistics are not Gibbs's.
        let ((cm, cs), (gm, gs)) = (cpu.0, gibbs.0);
        let ((cf, cfs), (gf, gfs)) = (cpu.1, gibbs.1);
        assert!(
            (cm - gm).abs() > 4.0 * (cs * cs + gs * gs).sqrt()
                || (cf - gf).abs() > 4.0 * (cfs * cfs + gfs * gfs).sqrt(),
            "{}: indistinguishable from Gibbs (log p {cm} vs {gm}, flips {cf} vs {gf})",
            c.sampler
        );
    }
}

/// A seed gives the same samples twice on the GPU; another seed other samples (for the samplers
/// that draw); the fast-parameter samplers take one chain.
#[test]
fn a_seed_gives_the_same_samples_twice_on_the_gpu() {
    let model = Rbm::random(12, 7, 0.8, 5).unwrap();
    let r = Params {
        w: vec![0.3; 12 * 7],
        b: vec![0.2; 12],
        c: vec![0.1; 7],
    };
    let start = [0.0f32; 12];
    let run = |c: &SamplerConfig, seed: u64| {
        EngineSampler::<Gpu>::new(&device(), &model, c, Some(&r), &start, seed, 0)
            .unwrap()
            .samples(40)
    };
    for name in ["gibbs", "rates-fpcd", "rates-herding", "sp"] {
        let c = cfg(name, 2, None, None);
        assert_eq!(run(&c, 4), run(&c, 4), "{name}");
        if name != "rates-herding" {
            assert_ne!(run(&c, 4), run(&c, 5), "{name}");
        }
    }
    let two = [0.0f32; 24];
    assert!(EngineSampler::<Gpu>::new(
        &device(),
        &model,
        &cfg("rates-fpcd", 1, None, None),
        Some(&r),
        &two,
        1,
        0
    )
    .is_err());
    assert!(EngineSampler::<Gpu>::new(
        &device(),
        &model,
        &cfg("rates-fpcd", 1, None, None),
        None,
        &start,
        1,
        0
    )
    .is_err());
}

/// The never-waiting path (`GpuSamplerStream`, the page's): blocks recorded, their copies taken
/// slices later, two in flight at once, and a block longer than the store (Gibbs's 100 chains
/// of 784 units: 13 samples a store) — gives the samples and ‖W_F‖ of the waiting
/// `EngineSampler::samples` for the same seed, bit for bit on the same device, with grey levels
/// E[x|h] of every chain's last sample in [0, 1].
#[test]
fn the_never_waiting_sampler_gives_the_waiting_samplers_samples_bit_for_bit() {
    use rbm_gpu::sampler_stream::GpuSamplerStream;
    let dev = device();
    let (m, n) = (784, 20);
    let model = Rbm::random(m, n, 0.1, 3).unwrap();
    let mut g = stream(2, 0, Purpose::Aux);
    let r = Params {
        w: (0..m * n).map(|_| uniform(&mut g) * 0.5).collect(),
        b: (0..m).map(|_| uniform(&mut g)).collect(),
        c: (0..n).map(|_| uniform(&mut g)).collect(),
    };
    let blocks = [1usize, 9, 40, 3, 30];
    let total: usize = blocks.iter().sum();
    for name in ["gibbs", "rates-fpcd", "rates-herding", "sp"] {
        let chains = if name == "gibbs" { 100 } else { 1 };
        let start: Vec<f32> = (0..chains * m).map(|i| f32::from(i % 5 == 0)).collect();
        let c = cfg(name, 1, Some(0.05), None);
        let mut waiting =
            EngineSampler::<Gpu>::new(&dev, &model, &c, Some(&r), &start, 7, 0).unwrap();
        let want = waiting.samples(total);
        let mut s = GpuSamplerStream::new(
            &dev,
            EngineSampler::<Gpu>::new(&dev, &model, &c, Some(&r), &start, 7, 0).unwrap(),
            m,
        );
        let mut got = Vec::new();
        let mut last = None;
        // Two blocks in flight before the first is asked for, then one at a time.
        s.submit(blocks[0]);
        s.submit(blocks[1]);
        for (i, &b) in blocks.iter().enumerate() {
            let block = (0..100_000)
                .find_map(|_| {
                    dev.finish();
                    s.poll()
                })
                .expect("the block comes back")
                .unwrap();
            assert_eq!(block.samples.len(), b * chains * m, "{name}: block {i}");
            assert_eq!(block.grey.len(), chains * m);
            assert!(block.grey.iter().all(|x| (0.0..=1.0).contains(x)));
            got.extend_from_slice(&block.samples);
            last = Some(block);
            if i + 2 < blocks.len() {
                s.submit(blocks[i + 2]);
            }
        }
        assert_eq!(s.in_flight(), 0);
        assert_eq!(s.counts(), (total as u64, total as u64));
        assert_eq!(got, want, "{name}: the same samples bit for bit");
        let last = last.unwrap();
        assert_eq!(last.fast_norm, waiting.fast_norm(), "{name}: ‖W_F‖");
        assert_eq!(name == "gibbs", last.fast_norm == 0.0, "{name}");
    }
}

//! AIS and RAISE on the GPU (issue 30) against exact log Z and the CPU's AIS and RAISE, on
//! whatever adapter wgpu finds (lavapipe in CI):
//!
//! - accumulation: where every particle's log-weight is known exactly (W = 0, b = b_A),
//!   5·10³ β of small increments sum to it within 1e−3 nats of ~376 (lavapipe: −3.6e−4 at
//!   5·10³ β, +1.5e−4 at 10⁴: the increments' f32 rounding, mostly the GPU's `exp`, repeated
//!   coherently since here every step's increment is the same; in a real run it varies), and
//!   so do RAISE's reverse chains;
//! - the bracket (Burda et al. 2015): on exact samples of small models, AIS's ATLL lies above
//!   and RAISE's below the exact one on average over seeds with a coarse schedule (as the CPU's
//!   `tests/ais.rs` asks), and with a finer one each seed's bars reach the exact value from its
//!   side, RAISE's overlapping the CPU's RAISE;
//! - exact: on small models whose log Z enumerates, the ±3σ bracket holds for most seeds and the
//!   estimate is within a few tenths of a nat;
//! - CPU: the GPU's and the CPU's estimates of the same model overlap within their bars;
//! - determinism: a seed gives the same log-weights, and the same RAISE numbers, twice.

use rbm_core::data::Dataset;
use rbm_core::eval::ais::{AisResult, Plan};
use rbm_core::eval::{ais as cpu_ais, exact};
use rbm_core::model::{Params, Rbm};
use rbm_core::rng::{normal, stream, Purpose};
use rbm_gpu::ais;
use std::sync::Arc;
use std::time::Instant;

mod common;
use common::device;

/// An m×n model with W ~ N(0, w²), b ~ N(b_mean, 1), c ~ N(0, 0.5²): trained-like, with
/// nonzero biases.
fn model(m: usize, n: usize, w: f64, b_mean: f64, seed: u64) -> Rbm {
    let mut r = stream(seed, 9, Purpose::Aux);
    let mut p = Params::zeros(m, n);
    p.w.iter_mut()
        .for_each(|x| *x = (w * normal(&mut r)) as f32);
    p.b.iter_mut()
        .for_each(|x| *x = (b_mean + normal(&mut r)) as f32);
    p.c.iter_mut()
        .for_each(|x| *x = (0.5 * normal(&mut r)) as f32);
    Rbm::from_params(m, n, p).unwrap()
}

#[test]
fn log_weights_sum_thousands_of_steps_exactly() {
    // W = 0 and b = b_A: log f_β(v) = b_Aᵀv + Σ_j softplus(β c_j) for every v, so every
    // particle's log-weight is Σ_j softplus(c_j) − n ln 2 whatever the chains do.
    let (m, n) = (16, 500);
    let mut r = stream(3, 0, Purpose::Aux);
    let mut p = Params::zeros(m, n);
    p.b.iter_mut().for_each(|x| *x = normal(&mut r) as f32);
    p.c.iter_mut()
        .for_each(|x| *x = (3.0 * normal(&mut r)) as f32);
    let rbm = Rbm::from_params(m, n, p).unwrap();
    let sp = |x: f64| x.max(0.0) + (-x.abs()).exp().ln_1p();
    let want: f64 = rbm
        .c
        .iter()
        .map(|&c| sp(c as f64) - std::f64::consts::LN_2)
        .sum();
    let t = Instant::now();
    let lw = ais::log_weights(&device(), &rbm, &rbm.b.clone(), 4, 5_000, 1).unwrap();
    eprintln!("5·10³ β, n = 500: {:.2} s", t.elapsed().as_secs_f64());
    for (i, &x) in lw.iter().enumerate() {
        eprintln!(
            "particle {i}: log w {x:.9} vs exact {want:.9} ({:+.2e})",
            x - want
        );
        assert!((x - want).abs() < 1e-3, "particle {i}: {x} vs {want}");
    }
    // RAISE's reverse chains from data rows: the same telescoping sum, K increments after the
    // first transition at β = 1.
    let rows: Vec<Vec<u8>> = (0..3)
        .map(|r| (0..m).map(|i| ((i + r) % 2) as u8).collect())
        .collect();
    let data = Dataset::from_rows("rows", &rows, None).unwrap();
    let plan = Plan::raise(&rbm, &data, Some(&rbm.b), cfg(4, 1_000, 1)).unwrap();
    for (i, &x) in ais::plan_log_weights(&device(), &plan)
        .unwrap()
        .iter()
        .enumerate()
    {
        eprintln!("reverse chain {i}: {x:.9} ({:+.2e})", x - want);
        assert!((x - want).abs() < 1e-3, "reverse chain {i}: {x} vs {want}");
    }
}

fn cfg(particles: usize, betas: usize, seed: u64) -> cpu_ais::AisConfig {
    cpu_ais::AisConfig {
        particles,
        betas,
        seed,
        schedule: Default::default(),
    }
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Standard error of the mean over seeds.
fn se(xs: &[f64]) -> f64 {
    let mu = mean(xs);
    (xs.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / (xs.len() - 1) as f64 / xs.len() as f64)
        .sqrt()
}

/// GPU AIS (2 particles) and GPU RAISE (one chain per row) of `data` over `seeds` seeds of a
/// coarse schedule: the mean AIS ATLL lies above the exact ATLL and the mean RAISE ATLL below
/// it, each by more than 2 standard errors (the CPU's test, tests/ais.rs, on the CPU's
/// estimators). In log Z: AIS ≤ exact ≤ RAISE on average.
fn bracket_on_average(name: &str, rbm: &Rbm, data: &Dataset, betas: usize, seeds: u64) {
    let dev = device();
    let ex = exact::evaluate(rbm, data).unwrap().atll;
    let t = Instant::now();
    let (mut a, mut r) = (Vec::new(), Vec::new());
    for s in 0..seeds {
        let plan = Plan::ais(rbm, data, None, cfg(2, betas, s)).unwrap();
        a.push(ais::evaluate(&dev, &plan).unwrap().atll);
        let plan = Plan::raise(rbm, data, None, cfg(data.rows(), betas, s)).unwrap();
        r.push(ais::evaluate(&dev, &plan).unwrap().atll);
    }
    eprintln!(
        "{name}, {betas} β, {seeds} seeds in {:.2} s: exact ATLL {ex:.4}; GPU AIS mean {:.4} (se \
         {:.4}); GPU RAISE mean {:.4} (se {:.4})",
        t.elapsed().as_secs_f64(),
        mean(&a),
        se(&a),
        mean(&r),
        se(&r)
    );
    assert!(mean(&a) - ex > 2.0 * se(&a), "{name}: AIS not above");
    assert!(ex - mean(&r) > 2.0 * se(&r), "{name}: RAISE not below");
}

#[test]
fn ais_and_raise_bracket_the_exact_likelihood_on_average_over_seeds() {
    let r20 = model(20, 10, 1.0, 0.0, 1);
    bracket_on_average("20×10", &r20, &exact::samples(&r20, 20, 4).unwrap(), 3, 400);
    let r784 = model(784, 16, 0.1, -1.0, 1);
    bracket_on_average(
        "784×16",
        &r784,
        &exact::samples(&r784, 20, 4).unwrap(),
        10,
        50,
    );
}

/// A run taken a few β steps at a time without waiting (`ais::Anneal`, what a browser's worker
/// runs between training slices) gives the log-weights of the one-shot run bit for bit, AIS and
/// RAISE alike.
#[test]
fn a_stepped_run_is_the_one_shot_run() {
    let dev = device();
    let rbm = model(20, 10, 1.0, 0.0, 3);
    let data = exact::samples(&rbm, 30, 5).unwrap();
    for reverse in [false, true] {
        let c = cfg(37, 23, 9);
        let plan = if reverse {
            Plan::raise(&rbm, &data, None, c).unwrap()
        } else {
            Plan::ais(&rbm, &data, None, c).unwrap()
        };
        let want = ais::plan_log_weights(&dev, &plan).unwrap();
        let mut a = ais::Anneal::new(&dev, &plan).unwrap();
        let mut calls = 0;
        while !a.advance(5) {
            calls += 1;
        }
        assert_eq!(
            (calls, a.progress()),
            (4, (22, 22)),
            "22 β steps, 5 at a time"
        );
        let copy = a.finish();
        let host = common::on_host(&dev, &copy);
        let got = ais::Anneal::log_weights(&host.unwrap());
        assert_eq!(got, want, "reverse: {reverse}");
        let r = plan.finish(&ais::Anneal::blocks(&got)).unwrap();
        assert!(r.atll.is_finite());
    }
}

/// With a finer schedule, for each seed: GPU RAISE's ATLL bar reaches the exact ATLL from below
/// (`atll_lo ≤ exact`), GPU AIS's from above (`atll_hi ≥ exact`), both within 0.5 nats of it;
/// GPU RAISE's bar overlaps the CPU RAISE's of the same plan and its other fields are the CPU's.
fn fine(name: &str, rbm: &Rbm, data: &Dataset, betas: usize) {
    let dev = device();
    let ex = exact::evaluate(rbm, data).unwrap().atll;
    for seed in 0..3 {
        let t = Instant::now();
        let raise = Plan::raise(rbm, data, None, cfg(40, betas, seed)).unwrap();
        let g = ais::evaluate(&dev, &raise).unwrap();
        let a = ais::evaluate(
            &dev,
            &Plan::ais(rbm, data, None, cfg(100, betas, seed)).unwrap(),
        )
        .unwrap();
        let tg = t.elapsed().as_secs_f64();
        let c = raise.run().unwrap();
        eprintln!(
            "{name}, {betas} β, seed {seed}: exact {ex:.4}; GPU RAISE {:.4} [{:.4}, {:.4}], CPU \
             RAISE {:.4} [{:.4}, {:.4}], GPU AIS {:.4} [{:.4}, {:.4}] ({tg:.2} s on the GPU)",
            g.atll,
            g.atll_lo,
            g.atll_hi,
            c.atll,
            c.atll_lo,
            c.atll_hi,
            a.atll,
            a.atll_lo,
            a.atll_hi
        );
        assert!(g.atll_lo <= ex && (g.atll - ex).abs() < 0.5, "{g:?}");
        assert!(a.atll_hi >= ex && (a.atll - ex).abs() < 0.5, "{a:?}");
        assert!(
            g.atll_lo <= c.atll_hi && c.atll_lo <= g.atll_hi,
            "GPU {g:?} vs CPU {c:?}"
        );
        let fields = |x: &AisResult| {
            (
                x.method,
                x.particles,
                x.betas,
                x.seed,
                x.rows,
                x.thresholded,
                x.ess,
            )
        };
        assert_eq!(fields(&g), fields(&c));
        assert_eq!(g.base_log_z, c.base_log_z);
    }
}

#[test]
fn raise_is_below_and_ais_above_per_seed_and_raise_agrees_with_the_cpu() {
    let r20 = model(20, 10, 1.0, 0.0, 1);
    fine("20×10", &r20, &exact::samples(&r20, 20, 5).unwrap(), 300);
    let r784 = model(784, 16, 0.1, -1.0, 1);
    fine("784×16", &r784, &exact::samples(&r784, 20, 5).unwrap(), 200);
}

/// The GPU's log Ẑ with its bars against the exact log Z for `seeds` seeds of 100 particles ×
/// `betas` β: the bracket holds for all but at most one, the mean error is below 0.3 nats and
/// none is above 1.
fn bracket(name: &str, rbm: &Rbm, base: &[f32], betas: usize, seeds: u64) {
    let dev = device();
    let exact = exact::log_z(rbm).unwrap();
    let mut inside = 0;
    let mut errs = Vec::new();
    for seed in 0..seeds {
        let t = Instant::now();
        let z = ais::log_z(&dev, rbm, base, 100, betas, seed).unwrap();
        let ok = z.log_z_lo <= exact && exact <= z.log_z_hi;
        inside += u64::from(ok);
        errs.push(z.log_z - exact);
        eprintln!(
            "{name} seed {seed}: log Ẑ {:.4} [{:.4}, {:.4}] exact {exact:.4} ({:+.4}) ess {:.1} \
             {} — 100 × {betas} β in {:.2} s",
            z.log_z,
            z.log_z_lo,
            z.log_z_hi,
            z.log_z - exact,
            z.ess,
            if ok { "inside" } else { "OUTSIDE" },
            t.elapsed().as_secs_f64()
        );
    }
    assert!(
        inside + 1 >= seeds,
        "{name}: the bracket held for {inside} of {seeds} seeds"
    );
    let mean_err = errs.iter().sum::<f64>() / errs.len() as f64;
    assert!(
        mean_err.abs() < 0.3 && errs.iter().all(|e| e.abs() < 1.0),
        "{name}: errors {errs:?}"
    );
}

#[test]
fn bracket_holds_on_a_random_20x10_model() {
    // Base: the model's own visible biases (the CPU's default).
    let rbm = model(20, 10, 0.5, 0.0, 1);
    bracket("20×10", &rbm, &rbm.b.clone(), 1000, 4);
}

#[test]
fn bracket_holds_on_784x16() {
    // A base other than b, so the (b − b_A)ᵀv term is exercised.
    let rbm = model(784, 16, 0.1, -1.0, 2);
    let base: Vec<f32> = rbm.b.iter().map(|&b| 0.5 * b - 0.5).collect();
    bracket("784×16", &rbm, &base, 1000, 3);
}

#[test]
fn bracket_holds_on_784x20() {
    let rbm = model(784, 20, 0.15, -1.5, 3);
    let base: Vec<f32> = rbm.b.iter().map(|&b| 0.5 * b - 0.5).collect();
    bracket("784×20", &rbm, &base, 1000, 3);
}

/// Lavapipe's (or the GPU's) time per β step on 784×500 with 100 particles.
#[test]
#[ignore = "timing only: cargo test --profile quick -p rbm-gpu --test ais -- --ignored"]
fn time_per_beta_on_784x500() {
    let dev = device();
    let rbm = model(784, 500, 0.05, -1.0, 4);
    let base = rbm.b.clone();
    for betas in [2, 51] {
        let t = Instant::now();
        ais::log_weights(&dev, &rbm, &base, 100, betas, 0).unwrap();
        eprintln!(
            "784×500, 100 particles × {betas} β: {:.3} s",
            t.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn gpu_and_cpu_estimates_agree_within_their_bars() {
    let dev = device();
    let rbm = model(784, 20, 0.12, -1.0, 5);
    let exact = exact::log_z(&rbm).unwrap();
    let base: Vec<f32> = rbm.b.iter().map(|&b| 0.5 * b - 0.5).collect();
    let (particles, betas) = (100, 1000);
    for seed in [11, 12] {
        let t = Instant::now();
        let g = ais::log_z(&dev, &rbm, &base, particles, betas, seed).unwrap();
        let tg = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let cfg = cpu_ais::AisConfig {
            particles,
            betas,
            seed,
            schedule: Default::default(),
        };
        let c = cpu_ais::ais_log_z(&rbm, Some(&base), cfg).unwrap();
        let tc = t.elapsed().as_secs_f64();
        eprintln!(
            "784×20 seed {seed}: GPU {:.4} [{:.4}, {:.4}] ({tg:.2} s), CPU {:.4} [{:.4}, {:.4}] \
             ({tc:.2} s), difference {:+.4}, exact {exact:.4}",
            g.log_z,
            g.log_z_lo,
            g.log_z_hi,
            c.log_z,
            c.log_z_lo,
            c.log_z_hi,
            g.log_z - c.log_z
        );
        assert!(
            g.log_z_lo <= c.log_z_hi && c.log_z_lo <= g.log_z_hi,
            "seed {seed}: GPU {g:?} vs CPU {c:?}"
        );
        assert!((g.base_log_z - c.base_log_z).abs() < 1e-9);
    }
}

#[test]
fn a_seed_gives_the_same_log_weights() {
    let dev = device();
    let rbm = model(30, 12, 0.4, 0.0, 7);
    let base = rbm.b.clone();
    let a = ais::log_weights(&dev, &rbm, &base, 37, 200, 5).unwrap();
    let b = ais::log_weights(&dev, &rbm, &base, 37, 200, 5).unwrap();
    let c = ais::log_weights(&dev, &rbm, &base, 37, 200, 6).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(ais::log_weights(&dev, &rbm, &base[..29], 37, 200, 5).is_err());
}

#[test]
fn a_seed_gives_the_same_raise_twice() {
    let dev = device();
    let rbm = model(30, 12, 0.4, 0.0, 7);
    let data = exact::samples(&rbm, 50, 1).unwrap();
    let run = |particles, seed| {
        let plan = Plan::raise(&rbm, &data, None, cfg(particles, 100, seed)).unwrap();
        let r = ais::evaluate(&dev, &plan).unwrap();
        let f = [
            r.log_z, r.log_z_lo, r.log_z_hi, r.atll, r.atll_lo, r.atll_hi,
        ];
        (f, r.rows)
    };
    // Fewer chains than rows: the CPU plan's seeded subset of rows, one chain each.
    let (a, rows) = run(20, 5);
    assert_eq!(run(20, 5), (a, rows));
    assert_ne!(run(20, 6).0, a);
    assert_eq!(rows, 20);
    assert_eq!(run(100, 5).1, 50);
}

/// Salakhutdinov & Murray's schedule (`AisConfig::schedule`) reaches the GPU's annealing: its
/// AIS brackets the exact log Z as the CPU's does with the same β.
#[test]
fn the_salakhutdinov_murray_schedule_runs_on_the_gpu() {
    let dev = device();
    let rbm = model(20, 10, 0.5, 0.0, 3);
    let data = Dataset::from_rows("ones", &[vec![1u8; 20], vec![0u8; 20]], None).unwrap();
    let ex = exact::log_z(&rbm).unwrap();
    let cfg = cpu_ais::AisConfig {
        particles: 50,
        betas: cpu_ais::SM2008_BETAS,
        seed: 4,
        schedule: cpu_ais::Schedule::SalakhutdinovMurray,
    };
    let plan = Plan::ais(&rbm, &data, None, cfg).unwrap();
    let g: AisResult = ais::evaluate(&dev, &plan).unwrap();
    let c = plan.run().unwrap();
    eprintln!(
        "sm2008 20×10: exact {ex:.4}, GPU {:.4} [{:.4}, {:.4}], CPU {:.4}",
        g.log_z, g.log_z_lo, g.log_z_hi, c.log_z
    );
    assert_eq!(g.betas, 14_501);
    assert!(
        g.log_z_lo <= ex && ex <= g.log_z_hi,
        "GPU {g:?}, exact {ex}"
    );
    assert!(
        g.log_z_lo <= c.log_z_hi && c.log_z_lo <= g.log_z_hi,
        "GPU {g:?} vs CPU {c:?}"
    );
}

/// A batch of runs (`Anneal::batch`, a study's checkpoints annealed together) gives each model
/// the log-weights of its run alone, bit for bit, whatever shares the batch and in whatever
/// order — AIS and RAISE, with different models, base rates, data rows and seeds. On a model
/// whose products are never split (depth < 128) that is also the plain one-model run's.
#[test]
fn a_batch_gives_each_model_its_own_run_bit_for_bit() {
    let dev = device();
    let models: Vec<Rbm> = (0..3).map(|i| model(20, 10, 0.8, -0.5, 40 + i)).collect();
    for reverse in [false, true] {
        let plans: Vec<Plan> = models
            .iter()
            .enumerate()
            .map(|(i, rbm)| {
                let c = cfg(37, 23, 100 + i as u64);
                if reverse {
                    let data = exact::samples(rbm, 30, i as u64).unwrap();
                    Plan::raise(rbm, &data, None, c).unwrap()
                } else {
                    let base: Vec<f32> = rbm.b.iter().map(|&b| 0.5 * b - 0.3 * i as f32).collect();
                    Plan::ais_log_z(rbm, Some(&base), c).unwrap()
                }
            })
            .collect();
        let together = ais::plans_log_weights(&dev, &plans).unwrap();
        assert_eq!(together.len(), 3);
        for (i, plan) in plans.iter().enumerate() {
            let alone = ais::plan_log_weights(&dev, plan).unwrap();
            assert_eq!(together[i], alone, "reverse {reverse}, model {i}");
        }
        let reordered =
            ais::plans_log_weights(&dev, &[plans[2].clone(), plans[0].clone()]).unwrap();
        assert_eq!(reordered, vec![together[2].clone(), together[0].clone()]);
        // The models differ, so their weights do: a batch that mixed them up would fail above.
        assert_ne!(together[0], together[1]);
    }
}

/// On MNIST-sized models (whose lone run splits its products), a batch still gives each model
/// what a batch of it alone gives, bit for bit (on a short schedule: the same kernels run for
/// every β), and the batched estimates of 1 000 β bracket the exact log Z of each 784×16 model.
#[test]
fn a_batch_of_784x16_models_brackets_each_exact_log_z() {
    let dev = device();
    let models: Vec<Rbm> = (0..3).map(|i| model(784, 16, 0.1, -1.0, 60 + i)).collect();
    let bases: Vec<Vec<f32>> = models
        .iter()
        .map(|rbm| rbm.b.iter().map(|&b| 0.5 * b - 0.5).collect())
        .collect();
    let runs = |betas: usize| -> Vec<(&Rbm, &[f32], cpu_ais::AisConfig)> {
        models
            .iter()
            .zip(&bases)
            .enumerate()
            .map(|(i, (rbm, base))| (rbm, base.as_slice(), cfg(100, betas, i as u64)))
            .collect()
    };
    let short = runs(50);
    let together = ais::log_z_batch(&dev, &short).unwrap();
    for (i, run) in short.iter().enumerate() {
        let alone = ais::log_z_batch(&dev, std::slice::from_ref(run)).unwrap();
        assert_eq!(together[i], alone[0], "model {i}");
    }
    let t = Instant::now();
    let fine = runs(1000);
    let together = ais::log_z_batch(&dev, &fine).unwrap();
    eprintln!(
        "3 × 784×16, 100 × 1 000 β in one batch: {:.2} s",
        t.elapsed().as_secs_f64()
    );
    for (i, run) in fine.iter().enumerate() {
        let want = exact::log_z(run.0).unwrap();
        let z = &together[i];
        eprintln!(
            "model {i}: log Ẑ {:.4} [{:.4}, {:.4}], exact {want:.4}",
            z.log_z, z.log_z_lo, z.log_z_hi
        );
        assert!(
            z.log_z_lo <= want && want <= z.log_z_hi && (z.log_z - want).abs() < 0.5,
            "model {i}: {z:?} against {want}"
        );
    }
}

/// Runs that differ in size, particles or β cannot share a batch: one clear error.
#[test]
fn a_batch_of_unlike_runs_is_refused() {
    let dev = device();
    let a = model(20, 10, 0.5, 0.0, 1);
    let b = model(20, 12, 0.5, 0.0, 2);
    let plan = |rbm: &Rbm, betas| Plan::ais_log_z(rbm, None, cfg(10, betas, 0)).unwrap();
    for plans in [[plan(&a, 10), plan(&b, 10)], [plan(&a, 10), plan(&a, 11)]] {
        let e = ais::Anneal::batch(&dev, &plans).err().expect("refused");
        assert!(e.to_string().contains("must agree"), "{e}");
    }
}

/// A study's AIS requests from many threads (`GpuLogZ`, its trials at their checkpoints) are
/// annealed in batches, and each answer is the estimate of its model alone, whatever the
/// batches were.
#[test]
fn a_study_s_ais_requests_share_batches_and_keep_their_own_answers() {
    use rbm_core::experiments::trials::LogZEngine;
    let dev = device();
    let engine = Arc::new(rbm_gpu::measure::GpuLogZ::new(dev.clone()));
    let models: Vec<Rbm> = (0..8).map(|i| model(30, 12, 0.6, -0.5, 80 + i)).collect();
    let answers: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = models
            .iter()
            .enumerate()
            .map(|(i, rbm)| {
                let engine = engine.clone();
                s.spawn(move || engine.ais(rbm, &rbm.b, cfg(50, 300, i as u64)).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let batches = engine.batches();
    eprintln!("batches: {batches:?}");
    assert_eq!(batches.iter().sum::<usize>(), 8);
    for (i, rbm) in models.iter().enumerate() {
        let run = (rbm, rbm.b.as_slice(), cfg(50, 300, i as u64));
        let alone = ais::log_z_batch(&dev, &[run]).unwrap()[0].log_z;
        assert_eq!(answers[i].to_bits(), alone.to_bits(), "model {i}");
        let want = exact::log_z(rbm).unwrap();
        assert!(
            (answers[i] - want).abs() < 0.5,
            "model {i}: {} against {want}",
            answers[i]
        );
    }
    // A request the CPU's checks refuse is refused alone.
    let bad = engine.ais(&models[0], &models[0].b, cfg(1, 300, 0));
    assert!(bad.is_err());
}

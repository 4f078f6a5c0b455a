//! AIS and RAISE against exact enumeration (docs/algorithms.md §3, §7): on models small enough
//! to enumerate, AIS's log Ẑ must fall within its ±3σ bars of the exact log Z over several
//! seeds, the same seed must give the same bits however the blocks are run, and on average over
//! seeds RAISE must lie below and AIS above the exact average log-likelihood.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::data::Dataset;
use rbm_core::eval::ais::{
    ais_evaluate, ais_log_z, raise_evaluate, AisConfig, AisResult, Plan, Schedule, BLOCK_PARTICLES,
    MAX_BETAS, MAX_PARTICLES, SM2008_BETAS,
};
use rbm_core::eval::exact;
use rbm_core::model::{Init, Params, Rbm};
use rbm_core::rng::{stream, uniform_f64, Purpose};
use rbm_core::train::{Lane, LaneConfig};
use rbm_core::Error;
use std::sync::Arc;

fn cfg(particles: usize, betas: usize, seed: u64) -> AisConfig {
    AisConfig {
        particles,
        betas,
        seed,
        schedule: Default::default(),
    }
}

fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// `rows` exact samples of a model with few hidden units ([`exact::samples`]).
fn exact_samples(rbm: &Rbm, rows: usize, seed: u64) -> Dataset {
    exact::samples(rbm, rows, seed).unwrap()
}

/// A 16×16 model trained by PCD on BAS 4×4 (a sharper, multimodal target than a random one).
fn trained_bas4() -> (Rbm, Dataset) {
    let data = Dataset::builtin("bas4").unwrap();
    let lane_cfg = LaneConfig {
        algo: "pcd".into(),
        hidden: 16,
        lr: 0.1,
        chains: Some(100),
        seed: Some(3),
        every: 600,
        init: Init::Ucd,
        ..Default::default()
    };
    let mut lane = Lane::new(lane_cfg, Arc::new(data.clone())).unwrap();
    lane.run(600).unwrap();
    (lane.model().clone(), data)
}

/// A 784×16 model trained by PCD on digit-like synthetic data (10 random prototypes with 15%
/// of the pixels on, each pixel flipped with probability 0.05), S-DCP initialisation.
fn trained_784() -> (Rbm, Dataset) {
    let mut r = stream(11, 0, Purpose::Data);
    let protos: Vec<Vec<bool>> = (0..10)
        .map(|_| (0..784).map(|_| uniform_f64(&mut r) < 0.15).collect())
        .collect();
    let rows: Vec<Vec<u8>> = (0..300)
        .map(|k| {
            protos[k % 10]
                .iter()
                .map(|&p| u8::from(p != (uniform_f64(&mut r) < 0.05)))
                .collect()
        })
        .collect();
    let data = Dataset::from_rows("protos", &rows, None).unwrap();
    let lane_cfg = LaneConfig {
        algo: "pcd".into(),
        hidden: 16,
        lr: 0.05,
        batch: Some(100),
        seed: Some(5),
        every: 300,
        exact_bits: 0,
        ..Default::default()
    };
    let mut lane = Lane::new(lane_cfg, Arc::new(data.clone())).unwrap();
    lane.run(300).unwrap();
    (lane.model().clone(), data)
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn f64_fields(r: &AisResult) -> Vec<u64> {
    [
        r.log_z,
        r.log_z_lo,
        r.log_z_hi,
        r.atll,
        r.atll_lo,
        r.atll_hi,
        r.base_log_z,
        r.ess.unwrap_or(0.0),
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect()
}

/// AIS with 100 particles × 1000 β over five seeds: the exact log Z inside the ±3σ bars every
/// time, |log Ẑ − log Z| < 2·`max_sigma`, σ < `max_sigma`, and the ATLL identities.
fn check_against_exact(name: &str, rbm: &Rbm, data: &Dataset, max_sigma: f64) {
    let ex = exact::evaluate(rbm, data).unwrap();
    let fe = ex.atll + ex.log_z; // mean −F(v) over the rows
    for seed in 0..5 {
        let a = ais_evaluate(rbm, data, cfg(100, 1000, seed)).unwrap();
        let sigma = (a.log_z_hi - a.log_z_lo) / 6.0;
        println!(
            "{name} seed {seed}: exact {:.4} ais {:.4} (diff {:+.4}, σ {:.4}, ess {:.1})",
            ex.log_z,
            a.log_z,
            a.log_z - ex.log_z,
            sigma,
            a.ess.unwrap()
        );
        assert!(
            a.log_z_lo <= ex.log_z && ex.log_z <= a.log_z_hi,
            "{name} seed {seed}: exact {} outside [{}, {}]",
            ex.log_z,
            a.log_z_lo,
            a.log_z_hi
        );
        assert!(
            (a.log_z - ex.log_z).abs() < 2.0 * max_sigma,
            "{name} seed {seed}"
        );
        assert!(
            sigma < max_sigma && a.ess.unwrap() > 20.0,
            "{name} seed {seed}"
        );
        // The ATLL is mean(−F) − log Ẑ, and its bar the mirror of log Z's.
        assert!((a.atll - (fe - a.log_z)).abs() < 1e-9);
        assert!((a.atll_lo - (fe - a.log_z_hi)).abs() < 1e-9);
        assert!((a.atll_hi - (fe - a.log_z_lo)).abs() < 1e-9);
        assert_eq!((a.method, a.rows, a.particles), ("ais", data.rows(), 100));
    }
}

#[test]
fn ais_matches_exact_log_z_on_a_random_16x8_model() {
    let rbm = Rbm::random(16, 8, 1.0, 1).unwrap();
    check_against_exact(
        "random 16x8",
        &rbm,
        &Dataset::builtin("bas4").unwrap(),
        0.03,
    );
}

#[test]
fn ais_matches_exact_log_z_on_a_random_784x10_model() {
    let rbm = Rbm::random(784, 10, 0.1, 2).unwrap();
    let data = exact_samples(&rbm, 40, 3);
    check_against_exact("random 784x10", &rbm, &data, 0.03);
}

#[test]
fn ais_matches_exact_log_z_on_a_pcd_trained_bas4_model() {
    let (rbm, data) = trained_bas4();
    check_against_exact("trained bas4 16x16", &rbm, &data, 0.03);
}

#[test]
fn ais_matches_exact_log_z_on_a_pcd_trained_784x16_model() {
    let (rbm, data) = trained_784();
    check_against_exact("trained 784x16", &rbm, &data, 0.2);
}

#[test]
fn ais_log_z_alone_uses_the_given_base_or_the_models_own_biases() {
    let rbm = Rbm::random(16, 8, 1.0, 4).unwrap();
    let exact = exact::log_z(&rbm).unwrap();
    let own = ais_log_z(&rbm, None, cfg(100, 1000, 1)).unwrap();
    let flat = ais_log_z(&rbm, Some(&[0.0; 16]), cfg(100, 1000, 1)).unwrap();
    for z in [&own, &flat] {
        assert!(
            z.log_z_lo <= exact && exact <= z.log_z_hi,
            "{z:?} vs {exact}"
        );
    }
    let sp = |x: f64| softplus(x);
    let own_base: f64 = rbm.b.iter().map(|&b| sp(b as f64)).sum::<f64>() + 8.0 * 2f64.ln();
    assert!((own.base_log_z - own_base).abs() < 1e-12);
    assert!((flat.base_log_z - 24.0 * 2f64.ln()).abs() < 1e-12);
    assert_ne!(own.log_z, flat.log_z);
}

#[test]
fn a_model_without_weights_is_estimated_exactly() {
    // W = 0 and b = the base rates of BAS (logit ½ = 0): every intermediate density is the
    // same function of v up to a constant, so every weight is equal and both AIS and RAISE
    // are exact, with zero-width bars, at any number of β.
    let data = Dataset::builtin("bas4").unwrap();
    let mut p = Params::zeros(16, 6);
    p.c = vec![0.5, -1.0, 2.0, 0.0, -3.0, 1.5];
    let rbm = Rbm::from_params(16, 6, p).unwrap();
    let ex = exact::evaluate(&rbm, &data).unwrap();
    for betas in [2, 3, 50] {
        for r in [
            ais_evaluate(&rbm, &data, cfg(30, betas, 9)).unwrap(),
            raise_evaluate(&rbm, &data, cfg(30, betas, 9)).unwrap(),
        ] {
            assert!((r.log_z - ex.log_z).abs() < 1e-9, "{betas}: {r:?}");
            assert!((r.atll - ex.atll).abs() < 1e-9, "{betas}: {r:?}");
            assert!((r.log_z_hi - r.log_z_lo).abs() < 1e-9, "{betas}: {r:?}");
        }
    }
}

#[test]
fn same_seed_same_bits_however_the_blocks_are_run() {
    let rbm = Rbm::random(20, 12, 0.7, 5).unwrap();
    let data = exact_samples(&rbm, 30, 1);
    let c = cfg(2 * BLOCK_PARTICLES + 7, 200, 42);
    for raise in [false, true] {
        let plan = if raise {
            Plan::raise(&rbm, &data, None, c).unwrap()
        } else {
            Plan::ais(&rbm, &data, None, c).unwrap()
        };
        let whole = if raise {
            raise_evaluate(&rbm, &data, c).unwrap()
        } else {
            ais_evaluate(&rbm, &data, c).unwrap()
        };
        assert_eq!(plan.blocks(), 3);
        // Blocks run backwards, each on its own thread.
        let mut parts: Vec<Vec<f64>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..plan.blocks())
                .rev()
                .map(|i| {
                    let plan = &plan;
                    s.spawn(move || plan.run_block(i).unwrap())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        parts.reverse();
        let threaded = plan.finish(&parts).unwrap();
        assert_eq!(f64_fields(&threaded), f64_fields(&whole), "raise={raise}");
        // Step by step in uneven slices: the same weights.
        let mut b = plan.block(1).unwrap();
        let mut slices = 0;
        while !b.advance(17) {
            slices += 1;
            assert!(b.progress() < 1.0);
        }
        assert_eq!(slices, 199 / 17);
        let stepped: Vec<u64> = b.log_weights().iter().map(|x| x.to_bits()).collect();
        let direct: Vec<u64> = parts[1].iter().map(|x| x.to_bits()).collect();
        assert_eq!(stepped, direct);
        // Another seed gives another estimate.
        let other = if raise {
            raise_evaluate(&rbm, &data, cfg(c.particles, c.betas, 43)).unwrap()
        } else {
            ais_evaluate(&rbm, &data, cfg(c.particles, c.betas, 43)).unwrap()
        };
        assert_ne!(other.log_z, whole.log_z);
    }
}

#[test]
fn the_bracket_holds_on_average_over_seeds() {
    // With a coarse schedule the bias of each estimator shows clearly: AIS's log Ẑ is low on
    // average (Jensen), so its ATLL is high; RAISE's is a stochastic lower bound.
    let (t16, bas4) = trained_bas4();
    let r784 = Rbm::random(784, 10, 0.1, 2).unwrap();
    let d784 = exact_samples(&r784, 20, 4);
    for (name, rbm, data) in [
        ("trained bas4", &t16, &bas4),
        ("random 784x10", &r784, &d784),
    ] {
        let ex = exact::evaluate(rbm, data).unwrap().atll;
        let seeds = 0..400;
        let ais: Vec<f64> = seeds
            .clone()
            .map(|s| ais_evaluate(rbm, data, cfg(2, 10, s)).unwrap().atll)
            .collect();
        let raise: Vec<f64> = seeds
            .map(|s| {
                raise_evaluate(rbm, data, cfg(data.rows(), 10, s))
                    .unwrap()
                    .atll
            })
            .collect();
        let se = |xs: &[f64]| {
            let mu = mean(xs);
            (xs.iter().map(|x| (x - mu).powi(2)).sum::<f64>()
                / (xs.len() - 1) as f64
                / xs.len() as f64)
                .sqrt()
        };
        println!(
            "{name}: exact ATLL {ex:.4}; AIS mean {:.4} (se {:.4}); RAISE mean {:.4} (se {:.4})",
            mean(&ais),
            se(&ais),
            mean(&raise),
            se(&raise)
        );
        assert!(mean(&ais) - ex > 2.0 * se(&ais), "{name}: AIS not above");
        assert!(
            ex - mean(&raise) > 2.0 * se(&raise),
            "{name}: RAISE not below"
        );
    }
    // With a fine schedule both sit close to the truth, still on their sides within noise.
    let ex = exact::evaluate(&t16, &bas4).unwrap().atll;
    let (mut a, mut r) = (Vec::new(), Vec::new());
    for s in 0..5 {
        a.push(ais_evaluate(&t16, &bas4, cfg(100, 1000, s)).unwrap());
        r.push(raise_evaluate(&t16, &bas4, cfg(100, 1000, s)).unwrap());
    }
    let ma = mean(&a.iter().map(|x| x.atll).collect::<Vec<_>>());
    let mr = mean(&r.iter().map(|x| x.atll).collect::<Vec<_>>());
    println!("trained bas4, 1000 β: exact {ex:.4}, AIS mean {ma:.4}, RAISE mean {mr:.4}");
    assert!((ma - ex).abs() < 0.05 && (mr - ex).abs() < 0.05);
    for x in &r {
        assert!(
            x.atll_lo <= ex && x.rows == 32 && x.method == "raise",
            "{x:?}"
        );
    }
}

#[test]
fn raise_evaluates_a_seeded_subset_when_chains_are_fewer_than_rows() {
    let rbm = Rbm::random(30, 8, 0.5, 6).unwrap();
    let data = exact_samples(&rbm, 200, 2);
    let ex = exact::evaluate(&rbm, &data).unwrap();
    let all = raise_evaluate(&rbm, &data, cfg(400, 300, 1)).unwrap();
    let a = raise_evaluate(&rbm, &data, cfg(50, 300, 1)).unwrap();
    let b = raise_evaluate(&rbm, &data, cfg(50, 300, 2)).unwrap();
    assert_eq!((all.rows, a.rows, b.rows), (200, 50, 50));
    assert_ne!(a.atll, b.atll);
    for r in [&all, &a, &b] {
        println!(
            "rows {}: {:.4} [{:.4}, {:.4}] vs exact {:.4}",
            r.rows, r.atll, r.atll_lo, r.atll_hi, ex.atll
        );
        // The exact free energies of all rows plus the subset's estimate of −log Z: the bar
        // stays narrow (the spread of log p(v) across rows does not enter).
        assert!(
            r.atll_lo <= ex.atll + 0.01 && r.atll_hi - r.atll_lo < 0.2,
            "{r:?}"
        );
        assert!((r.atll - ex.atll).abs() < 0.1, "{r:?}");
    }
}

/// log p_ann(v) of the annealing model exactly (Burda et al. 2015, §3): v₀ ~ p_A, then one
/// Gibbs sweep under p_{β_k} for k = 1…K, by 2^m × 2^m transition matrices (tiny m, n).
fn log_p_annealing(rbm: &Rbm, base: &[f32], betas: usize) -> Vec<f64> {
    let (m, n) = (rbm.m(), rbm.n());
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let bern = |p: f64, on: bool| if on { p } else { 1.0 - p };
    let bit = |code: usize, i: usize| (code >> i) & 1 == 1;
    let w = |i: usize, j: usize| rbm.w()[i * n + j] as f64;
    let mut p: Vec<f64> = (0..1usize << m)
        .map(|v| {
            (0..m)
                .map(|i| bern(sig(base[i] as f64), bit(v, i)))
                .product()
        })
        .collect();
    let k_total = betas - 1;
    for k in 1..=k_total {
        let beta = k as f64 / k_total as f64;
        let mut next = vec![0.0; 1 << m];
        for (v, &pv) in p.iter().enumerate() {
            for h in 0..1usize << n {
                let ph: f64 = (0..n)
                    .map(|j| {
                        let a = rbm.c[j] as f64
                            + (0..m).filter(|&i| bit(v, i)).map(|i| w(i, j)).sum::<f64>();
                        bern(sig(beta * a), bit(h, j))
                    })
                    .product();
                for (v2, nx) in next.iter_mut().enumerate() {
                    let pv2: f64 = (0..m)
                        .map(|i| {
                            let a = rbm.b[i] as f64
                                + (0..n).filter(|&j| bit(h, j)).map(|j| w(i, j)).sum::<f64>();
                            bern(sig((1.0 - beta) * base[i] as f64 + beta * a), bit(v2, i))
                        })
                        .product();
                    *nx += pv * ph * pv2;
                }
            }
        }
        p = next;
    }
    p.iter().map(|x| x.ln()).collect()
}

#[test]
fn raise_is_unbiased_for_the_annealing_model_and_ais_for_z() {
    // Burda et al.'s estimator p̂(v) has expectation p_ann(v), which differs from p(v) when the
    // annealing is short. With 20 000 chains on one row, log mean p̂ must match log p_ann(v)
    // within its bar, and be told apart from log p(v) (strong weights: slow mixing).
    let rbm = Rbm::random(4, 3, 2.0, 8).unwrap();
    let base = [0.3f32, -0.5, 1.0, 0.0];
    let log_z = exact::log_z(&rbm).unwrap();
    let mut discriminated = 0;
    for betas in [2, 3, 6] {
        let ann = log_p_annealing(&rbm, &base, betas);
        let total: f64 = ann.iter().map(|x| x.exp()).sum();
        assert!((total - 1.0).abs() < 1e-12);
        for (code, &log_ann) in ann.iter().enumerate() {
            let row: Vec<u8> = (0..4).map(|i| ((code >> i) & 1) as u8).collect();
            let data = Dataset::from_rows("one", &[row], None).unwrap();
            let seed = (100 * betas + code) as u64;
            let plan = Plan::raise(&rbm, &data, Some(&base), cfg(20_000, betas, seed)).unwrap();
            let r = plan.run().unwrap();
            let log_p = -rbm.free_energy(data.row(0)) - log_z;
            println!(
                "β {betas} v {code:04b}: raise {:.4} [{:.4}, {:.4}], p_ann {:.4}, p {:.4}",
                r.atll, r.atll_lo, r.atll_hi, log_ann, log_p
            );
            assert!(r.atll_lo <= log_ann && log_ann <= r.atll_hi, "{r:?}");
            assert!(r.atll_hi - r.atll_lo < 0.6, "{r:?}");
            discriminated += usize::from(log_p < r.atll_lo || log_p > r.atll_hi);
        }
        // And forward AIS: E[Ẑ] = Z, so with many particles the bars hold Z at any β count.
        let z = ais_log_z(&rbm, Some(&base), cfg(20_000, betas, 3)).unwrap();
        assert!(
            z.log_z_lo <= log_z && log_z <= z.log_z_hi,
            "{z:?} vs {log_z}"
        );
        assert!(z.log_z_hi - z.log_z_lo < 0.1, "{z:?}");
    }
    println!("{discriminated} of 48 (β, v) pairs have log p(v) outside RAISE's bar");
    assert!(
        discriminated >= 10,
        "p_ann hardly differed from p: the test could not tell them apart"
    );
}

#[test]
fn grey_levels_are_evaluated_on_their_threshold_binarisation() {
    let rbm = Rbm::random(16, 6, 0.8, 3).unwrap();
    let data = Dataset::builtin("bas4").unwrap();
    let mut grey = data.clone();
    let mut r = stream(1, 0, Purpose::Data);
    // Move every value towards ½ without crossing it: the threshold gives back the data.
    for x in grey.values.iter_mut() {
        *x = (*x - 0.5) * (0.2 + 0.8 * uniform_f64(&mut r) as f32) + 0.5;
    }
    assert!(!grey.is_binary());
    for raise in [false, true] {
        let run = |d: &Dataset| {
            if raise {
                raise_evaluate(&rbm, d, cfg(40, 50, 2)).unwrap()
            } else {
                ais_evaluate(&rbm, d, cfg(40, 50, 2)).unwrap()
            }
        };
        let (a, b) = (run(&data), run(&grey));
        assert_eq!(f64_fields(&a), f64_fields(&b), "raise={raise}");
        assert!(!a.thresholded && b.thresholded);
    }
}

#[test]
fn salakhutdinov_murrays_schedule_is_their_steps_and_brackets_the_exact_log_z() {
    // Their §4.2: steps of 1/1000 to 0.5, 1/10 000 to 0.9, 1/100 000 to 1.
    let c = AisConfig {
        schedule: Schedule::SalakhutdinovMurray,
        betas: SM2008_BETAS,
        ..cfg(100, 0, 1)
    };
    let betas: Vec<f64> = (0..SM2008_BETAS).map(|k| c.beta(k)).collect();
    assert_eq!(betas.len(), 14_501);
    assert_eq!(
        (betas[0], betas[500], betas[4_500], betas[14_500]),
        (0.0, 0.5, 0.9, 1.0)
    );
    for (k, w) in betas.windows(2).enumerate() {
        let step = if k < 500 {
            1e-3
        } else if k < 4_500 {
            1e-4
        } else {
            1e-5
        };
        assert!(
            (w[1] - w[0] - step).abs() < 1e-12,
            "step {k}: {} → {}",
            w[0],
            w[1]
        );
    }
    // The linear schedule is unchanged: k/K.
    assert_eq!(cfg(100, 11, 1).beta(3), 0.3);
    // AIS on it brackets the exact log Z over seeds; RAISE lands near the exact ATLL.
    let rbm = Rbm::random(16, 8, 1.0, 1).unwrap();
    let data = Dataset::builtin("bas4").unwrap();
    let ex = exact::evaluate(&rbm, &data).unwrap();
    for seed in 0..3 {
        let a = ais_evaluate(&rbm, &data, AisConfig { seed, ..c }).unwrap();
        assert!(
            a.log_z_lo <= ex.log_z && ex.log_z <= a.log_z_hi,
            "seed {seed}: {} outside [{}, {}]",
            ex.log_z,
            a.log_z_lo,
            a.log_z_hi
        );
        assert!(
            (a.log_z - ex.log_z).abs() < 0.03,
            "seed {seed}: {} vs {}",
            a.log_z,
            ex.log_z
        );
        let r = raise_evaluate(&rbm, &data, AisConfig { seed, ..c }).unwrap();
        assert!(
            r.atll.is_finite() && (r.atll - ex.atll).abs() < 0.1,
            "RAISE seed {seed}: {} vs {}",
            r.atll,
            ex.atll
        );
    }
    // Any other number of β is refused, naming it.
    let e = ais_evaluate(&rbm, &data, AisConfig { betas: 1000, ..c }).unwrap_err();
    assert_eq!(e.key(), Some("betas"), "{e}");
    assert!(e.to_string().contains("14501"), "{e}");
}

#[test]
fn bad_configurations_are_errors() {
    let rbm = Rbm::random(16, 4, 1.0, 1).unwrap();
    let data = Dataset::builtin("bas4").unwrap();
    let key = |r: Result<AisResult, Error>| r.unwrap_err().key().map(str::to_string);
    for p in [0, 1, MAX_PARTICLES + 1] {
        assert_eq!(
            key(ais_evaluate(&rbm, &data, cfg(p, 100, 1))).as_deref(),
            Some("particles")
        );
        assert_eq!(
            key(raise_evaluate(&rbm, &data, cfg(p, 100, 1))).as_deref(),
            Some("particles")
        );
    }
    for b in [0, 1, MAX_BETAS + 1] {
        assert_eq!(
            key(ais_evaluate(&rbm, &data, cfg(100, b, 1))).as_deref(),
            Some("betas")
        );
    }
    let big = Rbm::zeros(784, 500).unwrap();
    let e = Plan::ais_log_z(&big, None, cfg(10_000, 100_000, 1))
        .err()
        .unwrap();
    assert!(matches!(e, Error::TooLarge(_)), "{e}");
    // Base biases of the wrong size or not finite.
    assert!(ais_log_z(&rbm, Some(&[0.0; 3]), cfg(10, 10, 1)).is_err());
    let mut nan = vec![0.0f32; 16];
    nan[3] = f32::NAN;
    assert!(ais_log_z(&rbm, Some(&nan), cfg(10, 10, 1)).is_err());
    // Data that do not fit.
    let small = Dataset::builtin("bas3").unwrap();
    assert!(ais_evaluate(&rbm, &small, cfg(10, 10, 1)).is_err());
    assert!(raise_evaluate(&rbm, &small, cfg(10, 10, 1)).is_err());
    // Misuse of a plan: a block that does not exist, wrong parts, log Z of a RAISE run.
    let plan = Plan::ais(&rbm, &data, None, cfg(30, 10, 1)).unwrap();
    assert!(plan.block(2).is_err());
    assert!(plan.finish(&[vec![0.0; 25]]).is_err());
    let raise = Plan::raise(&rbm, &data, None, cfg(30, 10, 1)).unwrap();
    assert!(raise.log_z(&[vec![0.0; 25], vec![0.0; 5]]).is_err());
    let alone = Plan::ais_log_z(&rbm, None, cfg(30, 10, 1)).unwrap();
    assert!(alone.finish(&[vec![0.0; 25], vec![0.0; 5]]).is_err());
}

/// The estimator bench (`rbm_core::eval::estimators`): every line's figures are those of its
/// runs (each run the plain AIS or RAISE run of its derived seed, bit for bit), AIS's ±3σ bars
/// hold the exact value in most runs, and on the PCD-trained BAS 4×4 model the error shrinks
/// from 10 to 1000 β, for AIS and RAISE alike (measured: RMS ATLL error 0.080 and 0.21 nats
/// at 10 β, 0.012 and 0.007 at 1000).
#[test]
fn the_estimator_bench_summarises_its_runs_and_errors_shrink_with_more_betas() {
    use rbm_core::eval::estimators::{bench, exact_values, run_seed, Method, Setting};
    let (rbm, data) = trained_bas4();
    let exact = exact_values(&rbm, &data, exact::log_z(&rbm).unwrap()).unwrap();
    let settings = Setting::all(&[10, 1000], false);
    assert_eq!(settings.len(), 4);
    let (particles, runs, seed) = (50, 8, 5);
    let lines = bench(&rbm, &data, exact, &settings, particles, runs, seed).unwrap();
    let mut rms = Vec::new();
    for (s, line) in settings.iter().zip(&lines) {
        assert_eq!(
            (line.method, line.betas, line.runs),
            (s.method.name(), s.betas, runs)
        );
        assert_eq!(line.sweeps, (particles * (s.betas - 1)) as u64);
        assert_eq!(line.exact_log_z, exact.log_z);
        let mut inside = 0;
        for r in 0..runs {
            assert_eq!(line.seeds[r], run_seed(seed, r));
            let c = cfg(particles, s.betas, run_seed(seed, r));
            let direct = match s.method {
                Method::Ais => ais_evaluate(&rbm, &data, c).unwrap(),
                Method::Raise => raise_evaluate(&rbm, &data, c).unwrap(),
                Method::BarPt => unreachable!("no BAR setting here"),
            };
            assert_eq!(line.atll[r].to_bits(), direct.atll.to_bits());
            assert_eq!(line.log_z[r].to_bits(), direct.log_z.to_bits());
            assert_eq!(line.atll_bar[r], [direct.atll_lo, direct.atll_hi]);
            inside += usize::from(direct.atll_lo <= exact.atll && exact.atll <= direct.atll_hi);
        }
        assert_eq!(line.covered, inside as f64 / runs as f64);
        let errs: Vec<f64> = line.atll.iter().map(|a| a - exact.atll).collect();
        let m = mean(&errs);
        let sd = (errs.iter().map(|e| (e - m).powi(2)).sum::<f64>() / (runs - 1) as f64).sqrt();
        assert!((line.atll_error_mean - m).abs() < 1e-12);
        assert!((line.atll_error_sd - sd).abs() < 1e-12);
        match s.method {
            Method::Ais => {
                let zm = mean(&line.log_z) - exact.log_z;
                assert!((line.log_z_error_mean.unwrap() - zm).abs() < 1e-12);
                assert!(line.log_z_error_sd.unwrap() >= 0.0);
                assert!(line.covered >= 0.75, "AIS bars at {} β: {line:?}", s.betas);
            }
            Method::Raise => assert_eq!(line.log_z_error_mean, None),
            Method::BarPt => unreachable!("no BAR setting here"),
        }
        rms.push((m * m + sd * sd).sqrt());
    }
    // [AIS 10, AIS 1000, RAISE 10, RAISE 1000]
    assert!(
        rms[1] < rms[0] / 2.0 && rms[3] < rms[2] / 2.0,
        "RMS errors {rms:?}"
    );
    // The same seed gives the same bench.
    assert_eq!(
        bench(&rbm, &data, exact, &settings[..1], particles, runs, seed).unwrap()[0],
        lines[0]
    );
}

/// BAR over parallel tempering in the estimator bench: each line's figures are those of its runs
/// (each the plain `bar_log_z` of its derived seed, bit for bit), its compute counted in sweeps,
/// and on the PCD-trained BAS 4×4 model its log Z error shrinks with more temperatures.
#[test]
fn the_estimator_bench_runs_bar_over_parallel_tempering() {
    use rbm_core::eval::bar::bar_log_z;
    use rbm_core::eval::estimators::{bench, exact_values, run_seed, Setting};
    let (rbm, data) = trained_bas4();
    let exact = exact_values(&rbm, &data, exact::log_z(&rbm).unwrap()).unwrap();
    let settings = [Setting::bar(4, 50), Setting::bar(32, 50)];
    let (particles, runs, seed) = (20, 6, 4);
    let lines = bench(&rbm, &data, exact, &settings, particles, runs, seed).unwrap();
    let mut rms = Vec::new();
    for (s, line) in settings.iter().zip(&lines) {
        assert_eq!(
            (line.method, line.betas, line.rounds),
            ("bar-pt", s.betas, Some(50))
        );
        assert_eq!(line.sweeps, (particles * s.betas * (50 + 10)) as u64);
        for r in 0..runs {
            let direct =
                bar_log_z(&rbm, &data, &s.bar_config(particles, run_seed(seed, r))).unwrap();
            assert_eq!(line.log_z[r].to_bits(), direct.log_z.to_bits());
            assert_eq!(line.atll[r].to_bits(), direct.atll.to_bits());
        }
        let errs: Vec<f64> = line.log_z.iter().map(|z| z - exact.log_z).collect();
        let m = mean(&errs);
        assert!((line.log_z_error_mean.unwrap() - m).abs() < 1e-12);
        rms.push((errs.iter().map(|e| e * e).sum::<f64>() / runs as f64).sqrt());
    }
    assert!(
        rms[1] < rms[0],
        "RMS log Z errors with 4 and 32 temperatures: {rms:?}"
    );
    assert!(rms[1] < 0.5, "32 temperatures: RMS log Z error {}", rms[1]);
}

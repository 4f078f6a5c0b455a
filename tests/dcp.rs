//! Native tests of S-DCP, CG and CS-DCP (Upadhya & Sastry 2017, Algorithms 3 and 4; Melchior
//! et al. 2016, Algorithm 1; docs/algorithms.md §4): the identities the papers state, reproducibility,
//! the compute axis, and learning on the S-DCP paper's small data sets.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::data::Dataset;
use rbm_core::engine::cpu::Centered;
use rbm_core::model::{Init, Rbm, Stats};
use rbm_core::rng::{stream, Purpose};
use rbm_core::train::cd::Cd;
use rbm_core::train::cg::Cg;
use rbm_core::train::csdcp::Csdcp;
use rbm_core::train::{Algorithm, Ctx, Lane, LaneConfig, Optimizer, Setup};
use std::sync::Arc;

fn data(name: &str) -> Arc<Dataset> {
    Arc::new(Dataset::builtin(name).unwrap())
}

/// The S-DCP paper's small-data settings: 4 hidden units, full batch, K = 12 ↔ d = 3, K′ = 4.
fn paper(algo: &str, lr: f64, seed: u64) -> LaneConfig {
    LaneConfig {
        algo: algo.into(),
        hidden: 4,
        lr,
        k: 12,
        d: 3,
        kprime: 4,
        seed: Some(seed),
        every: 500,
        init: Init::Sdcp,
        ..Default::default()
    }
}

#[test]
fn sdcp_with_one_inner_step_is_cd_bit_for_bit() {
    // Mini-batches smaller than the data (bas4: 32 rows, batch 10, so batches wrap epochs),
    // and the paper's full-batch setting with K = 12.
    for (set, batch, k) in [("bas4", Some(10), 3), ("bas3", None, 12)] {
        let base = LaneConfig {
            algo: "cd".into(),
            hidden: 6,
            lr: 0.2,
            k,
            batch,
            seed: Some(11),
            every: 20,
            ..Default::default()
        };
        let mut cd = Lane::new(base.clone(), data(set)).unwrap();
        let mut sdcp = Lane::new(
            LaneConfig {
                algo: "sdcp".into(),
                d: 1,
                kprime: k,
                k: 1,
                ..base
            },
            data(set),
        )
        .unwrap();
        let a = cd.run(300).unwrap();
        let b = sdcp.run(300).unwrap();
        assert_eq!(a, b, "{set}: records");
        assert_eq!(cd.model(), sdcp.model(), "{set}: models");
        assert_eq!(cd.chain_states(), sdcp.chain_states(), "{set}: chains");
        assert!(
            a.last().unwrap().atll.unwrap() > a[0].atll.unwrap(),
            "{set}: it did learn"
        );
        // d > 1 is a different algorithm.
        let other = Lane::new(
            LaneConfig {
                algo: "sdcp".into(),
                d: 3,
                kprime: k,
                ..cd.config().clone()
            },
            data(set),
        )
        .unwrap()
        .run(300)
        .unwrap();
        assert_ne!(other.last().unwrap().atll, a.last().unwrap().atll, "{set}");
    }
}

#[test]
fn cs_dcp_with_one_inner_step_is_cg_bit_for_bit() {
    let base = LaneConfig {
        algo: "cg".into(),
        hidden: 6,
        lr: 0.2,
        k: 4,
        batch: Some(10),
        seed: Some(5),
        every: 20,
        nu_mu: 0.05,
        nu_lambda: 0.02,
        ..Default::default()
    };
    let mut cg = Lane::new(base.clone(), data("bas4")).unwrap();
    let mut cs = Lane::new(
        LaneConfig {
            algo: "cs-dcp".into(),
            d: 1,
            kprime: 4,
            ..base
        },
        data("bas4"),
    )
    .unwrap();
    assert_eq!(cg.run(300).unwrap(), cs.run(300).unwrap());
    assert_eq!(cg.model(), cs.model());
}

/// Drives an algorithm directly (the lane cannot take a hand-built centered form), with the
/// same mini-batches, learning rate and sampling stream for every algorithm.
struct Driver {
    data: Arc<Dataset>,
    model: Rbm,
    rng: rbm_core::rng::Rng,
    opt: Optimizer,
    pos: Stats,
    batch: Vec<f32>,
    t: usize,
}

impl Driver {
    fn new(data: Arc<Dataset>, model: Rbm) -> Driver {
        let (m, n) = (model.m(), model.n());
        Driver {
            data,
            model,
            rng: stream(21, 0, Purpose::Sampling),
            opt: Optimizer::new(m, n, 0.0, 0.0),
            pos: Stats::new(m, n),
            batch: Vec::new(),
            t: 0,
        }
    }

    /// Batch t holds rows 7t, 7t+1, …, 7t+6 (mod rows), a fixed cycle through the data.
    fn step(&mut self, algo: &mut dyn Algorithm) {
        let rows = self.data.rows();
        self.batch.clear();
        for r in 0..7 {
            self.batch
                .extend_from_slice(self.data.row((7 * self.t + r) % rows));
        }
        self.t += 1;
        let mut cx = Ctx {
            model: &mut self.model,
            batch: &self.batch,
            rng: &mut self.rng,
            lr: 0.3,
            opt: &mut self.opt,
            pos: &mut self.pos,
        };
        algo.update(&mut cx).unwrap();
    }
}

#[test]
fn cg_with_zero_offsets_that_never_move_is_cd_bit_for_bit() {
    let data = data("bas4");
    let cfg = LaneConfig {
        hidden: 5,
        k: 2,
        ..Default::default()
    };
    let model = Rbm::init(&data, 5, Init::Ucd, &mut stream(2, 0, Purpose::Init)).unwrap();
    let setup = Setup {
        cfg: &cfg,
        model: &model,
        data: &data,
        batch: 7,
        chains: 7,
    };
    let mut cd = Cd::new(&setup);
    let zero = Centered::with_offsets(&model, vec![0.0; 16], vec![0.0; 5], 0.0, 0.0).unwrap();
    let mut cg = Cg::with_centered(&setup, zero);
    let (mut a, mut b) = (
        Driver::new(data.clone(), model.clone()),
        Driver::new(data.clone(), model.clone()),
    );
    for t in 0..500 {
        a.step(&mut cd);
        b.step(&mut cg);
        assert_eq!(a.model, b.model, "update {t}");
    }
    let bits = |r: &Rbm| {
        [r.w(), &r.b[..], &r.c[..]]
            .concat()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<u32>>()
    };
    assert_eq!(
        bits(&a.model),
        bits(&b.model),
        "same bits, signs of zeros included"
    );
    assert_eq!(cd.chain_states(), cg.chain_states());
    assert!(cg
        .centered()
        .mu()
        .iter()
        .chain(cg.centered().lambda())
        .all(|&x| x == 0.0));
    assert_ne!(a.model, model, "it did train");

    // With the paper's offsets (μ = data mean, λ = 0.5, ν = 0.01) it is a different trajectory,
    // whose plain model is the centered one converted.
    let mut cg = Cg::new(&setup).unwrap();
    let mut c = Driver::new(data.clone(), model.clone());
    for _ in 0..100 {
        c.step(&mut cg);
    }
    assert_ne!(c.model.w(), a.model.w());
    assert_eq!(c.model, cg.centered().plain());
    assert!(cg.centered().lambda().iter().all(|&l| l != 0.5), "λ slid");
}

#[test]
fn records_count_d_times_kprime_sweeps_per_update() {
    for (algo, per) in [("sdcp", 12.0), ("cs-dcp", 12.0), ("cg", 12.0)] {
        let recs = Lane::new(
            LaneConfig {
                every: 7,
                ..paper(algo, 0.3, 1)
            },
            data("shifting-bar"),
        )
        .unwrap()
        .run(70)
        .unwrap();
        for r in &recs {
            assert_eq!(r.sweeps, r.iter as f64 * per, "{algo}");
            assert_eq!(r.vh_steps, r.iter as f64 * per, "{algo}");
        }
    }
    let r = Lane::new(
        LaneConfig {
            d: 5,
            kprime: 2,
            every: 10,
            ..paper("sdcp", 0.3, 1)
        },
        data("bas3"),
    )
    .unwrap()
    .run(10)
    .unwrap();
    assert_eq!(r.last().unwrap().sweeps, 100.0);
}

#[test]
fn same_seed_same_curve_other_seed_other_curve() {
    for algo in ["sdcp", "cg", "cs-dcp"] {
        let run = |seed| {
            Lane::new(
                LaneConfig {
                    every: 50,
                    batch: Some(5),
                    ..paper(algo, 0.3, seed)
                },
                data("bas3"),
            )
            .unwrap()
            .run(300)
            .unwrap()
        };
        let (a, b, c) = (run(8), run(8), run(9));
        assert_eq!(a, b, "{algo}");
        assert_eq!(a.len(), 7);
        assert_ne!(a.last().unwrap().atll, c.last().unwrap().atll, "{algo}");
    }
}

#[test]
fn the_papers_small_data_runs_learn() {
    // Bars & Stripes 3×3, full batch, 3000 epochs: every lane climbs far from the
    // independent-bits start (−9 ln 2 ≈ −6.24) and stays below the bound (−ln 14 ≈ −2.64).
    let bas3 = data("bas3");
    let bound = bas3.bound().unwrap();
    for algo in ["sdcp", "cg", "cs-dcp"] {
        for seed in [1, 2] {
            let r = Lane::new(paper(algo, 0.1, seed), bas3.clone())
                .unwrap()
                .run(3000)
                .unwrap();
            let (first, last) = (r[0].atll.unwrap(), r.last().unwrap().atll.unwrap());
            assert!(last > first + 1.5, "{algo} seed {seed}: {first} -> {last}");
            assert!(last <= bound + 1e-9);
        }
    }
    // Shifting Bar (the paper's Fig. 1): CD-12 stays at the independent-bits plateau near −3.14
    // while S-DCP and CS-DCP, at the same compute per update, escape it.
    let bar = data("shifting-bar");
    for seed in [1, 2] {
        let cd = Lane::new(paper("cd", 0.3, seed), bar.clone())
            .unwrap()
            .run(3000)
            .unwrap();
        let cd = cd.last().unwrap().atll.unwrap();
        for algo in ["sdcp", "cs-dcp"] {
            let r = Lane::new(paper(algo, 0.3, seed), bar.clone())
                .unwrap()
                .run(3000)
                .unwrap();
            let (first, last) = (r[0].atll.unwrap(), r.last().unwrap().atll.unwrap());
            assert!(
                last > first + 0.2 && last > cd + 0.2,
                "{algo} seed {seed}: {first} -> {last}, CD {cd}"
            );
            assert!(last <= bar.bound().unwrap() + 1e-9);
        }
    }
}

#[test]
fn cs_dcp_slides_the_offsets_at_every_inner_step_as_algorithm_4_prints() {
    let data = data("bas4");
    let cfg = LaneConfig {
        hidden: 5,
        d: 3,
        kprime: 2,
        nu_mu: 0.1,
        nu_lambda: 0.2,
        ..Default::default()
    };
    let model = Rbm::init(&data, 5, Init::Ucd, &mut stream(4, 0, Purpose::Init)).unwrap();
    let setup = Setup {
        cfg: &cfg,
        model: &model,
        data: &data,
        batch: 7,
        chains: 7,
    };
    let mut cs = Csdcp::new(&setup).unwrap();
    let mut drv = Driver::new(data.clone(), model.clone());
    drv.step(&mut cs);
    // One mini-batch = rows 0..7; μ moves d = 3 times towards the batch mean:
    // μ_3 = μ_batch + (1 − ν_μ)³ (μ_0 − μ_batch); λ likewise towards mean E[h|V] under θ_t.
    let mu0 = data.mean();
    let keep = (1.0f64 - 0.1).powi(3);
    for (i, (&mu, &m0)) in cs.centered().mu().iter().zip(&mu0).enumerate() {
        let batch_mean = (0..7).map(|r| data.row(r)[i] as f64).sum::<f64>() / 7.0;
        let want = batch_mean + keep * (m0 - batch_mean);
        assert!(
            (mu as f64 - want).abs() < 1e-6,
            "μ[{i}] = {mu}, want {want}"
        );
    }
    let mut hp = vec![0.0; 7 * 5];
    model.hidden_probs(&data.values[..7 * 16], &mut hp);
    let keep = (1.0f64 - 0.2).powi(3);
    for (j, &l) in cs.centered().lambda().iter().enumerate() {
        let batch_mean = (0..7).map(|r| hp[r * 5 + j] as f64).sum::<f64>() / 7.0;
        let want = batch_mean + keep * (0.5 - batch_mean);
        assert!((l as f64 - want).abs() < 1e-6, "λ[{j}] = {l}, want {want}");
    }
    assert_eq!(drv.model, cs.centered().plain());
}

//! The engine layer (docs/development.md, "Engines"): the same algorithm files run on the
//! reference engine — the formulas as straightforward loops — and on the CPU engine, with its
//! pattern tables, memo, packed layouts, by-unit statistics and SIMD; every update leaves the
//! same model and the same chains, bit for bit. The reference engine is the oracle: a fast path
//! that changes a number fails here.

use rbm_core::data::Dataset;
use rbm_core::engine::{Cpu, Engine, Reference};
use rbm_core::model::{Init, Rbm, Stats};
use rbm_core::rng::{stream, Purpose, Rng};
use rbm_core::train::{
    cd::Cd, cg::Cg, csdcp::Csdcp, fpcd::Fpcd, mfcd::MfCd, pcd::Pcd, sdcp::Sdcp, Algorithm, Ctx,
    LaneConfig, Optimizer, Setup,
};

/// What both engines' algorithms run on: the same model, stream, optimizer and batches.
struct Driver {
    model: Rbm,
    rng: Rng,
    opt: Optimizer,
    pos: Stats,
    batch: Vec<f32>,
}

/// An algorithm of `cfg` on engine `E`, as its registration would build it for the CPU.
fn build<E>(cfg: &LaneConfig, setup: &Setup<E>) -> Box<dyn Algorithm<E>>
where
    E: Engine<Model = Rbm>,
{
    match cfg.algo.as_str() {
        "cd" => Box::new(Cd::<E>::new(setup)),
        "mf-cd" => Box::new(MfCd::<E>::new(setup)),
        "pcd" => Box::new(Pcd::<E>::new(setup)),
        "fpcd" => Box::new(Fpcd::<E>::new(setup)),
        "sdcp" => Box::new(Sdcp::<E>::new(setup)),
        "cg" => Box::new(Cg::<E>::new(setup).unwrap()),
        "cs-dcp" => Box::new(Csdcp::<E>::new(setup).unwrap()),
        other => panic!("no such algorithm here: {other}"),
    }
}

/// The model's parameters and the chains' states after each of `updates` updates of `cfg` on
/// engine `E` (batch t: rows `batch·t …` of the data, cycling).
#[allow(clippy::type_complexity)]
fn run<E>(
    cfg: &LaneConfig,
    data: &Dataset,
    batch: usize,
    updates: usize,
) -> Vec<(Vec<u32>, Option<Vec<f32>>)>
where
    E: Engine<Model = Rbm, Rng = Rng, Optimizer = Optimizer, Stats = Stats>,
{
    let model = Rbm::init(
        data,
        cfg.hidden,
        Init::Ucd,
        &mut stream(cfg.seed.unwrap_or(1), 0, Purpose::Init),
    )
    .unwrap();
    let (m, n) = (model.m(), model.n());
    let setup = Setup::<E> {
        cfg,
        model: &model,
        data,
        batch,
        chains: cfg.chains.unwrap_or(batch),
    };
    let mut algo = build::<E>(cfg, &setup);
    let mut d = Driver {
        model: model.clone(),
        rng: stream(21, 0, Purpose::Sampling),
        opt: Optimizer::new(m, n, cfg.weight_decay as f32, cfg.momentum as f32),
        pos: Stats::new(m, n),
        batch: Vec::new(),
    };
    let rows = data.rows();
    (0..updates)
        .map(|t| {
            d.batch.clear();
            for r in 0..batch {
                d.batch.extend_from_slice(data.row((batch * t + r) % rows));
            }
            let mut cx = Ctx::<E> {
                model: &mut d.model,
                batch: &d.batch,
                rng: &mut d.rng,
                lr: cfg.lr as f32,
                opt: &mut d.opt,
                pos: &mut d.pos,
            };
            algo.update(&mut cx).unwrap();
            let bits = [d.model.w(), &d.model.b[..], &d.model.c[..]]
                .concat()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            (bits, algo.chain_states().map(<[f32]>::to_vec))
        })
        .collect()
}

/// 60 random 0/1 rows of 100 units (a visible layer of two mask words, too wide for the memo).
fn wide() -> Dataset {
    let mut r = stream(3, 0, Purpose::Aux);
    let rows: Vec<Vec<u8>> = (0..60)
        .map(|_| {
            (0..100)
                .map(|_| u8::from(rbm_core::rng::uniform(&mut r) < 0.3))
                .collect()
        })
        .collect();
    Dataset::from_rows("wide", &rows, None).unwrap()
}

/// Every algorithm that runs on any engine, on layers that take every path of the CPU engine:
/// both layers on patterns (≤ 16 units: Shifting Bar 9×4, BAS 3×3 with 12 hidden units, BAS 4×4
/// with 16), a hidden layer too wide for patterns with by-unit statistics (BAS 4×4 with 40
/// hidden units, 20 rows), a visible layer of 100 units (two mask words, prefix tables), chains
/// more and fewer than the batch rows, several sweeps, inner steps, momentum and weight decay.
#[test]
fn every_algorithm_gives_the_reference_engines_bits_on_the_cpu_engine() {
    let cases: &[(&str, usize, usize, Option<usize>)] = &[
        ("shifting-bar", 4, 9, Some(9)),
        ("bas3", 12, 5, Some(7)),
        ("bas4", 16, 7, Some(23)),
        ("bas4", 40, 20, Some(20)),
        ("wide", 24, 30, Some(50)),
    ];
    let algos: &[(&str, usize)] = &[
        ("cd", 1),
        ("cd", 3),
        ("mf-cd", 1),
        ("pcd", 2),
        ("fpcd", 1),
        ("sdcp", 2),
        ("cg", 2),
        ("cs-dcp", 2),
    ];
    for &(name, hidden, batch, chains) in cases {
        let data = match name {
            "wide" => wide(),
            _ => Dataset::builtin(name).unwrap(),
        };
        for &(algo, k) in algos {
            for (momentum, weight_decay) in [(0.0, 0.0), (0.5, 0.001)] {
                let cfg = LaneConfig {
                    algo: algo.into(),
                    hidden,
                    k,
                    d: 3,
                    kprime: k,
                    lr: 0.2,
                    chains,
                    seed: Some(5),
                    momentum,
                    weight_decay,
                    ..Default::default()
                };
                let want = run::<Reference>(&cfg, &data, batch, 40);
                let got = run::<Cpu>(&cfg, &data, batch, 40);
                for (t, (a, b)) in want.iter().zip(&got).enumerate() {
                    assert!(
                        a == b,
                        "{algo} (k {k}, momentum {momentum}) on {name} with {hidden} hidden units: \
                         update {t} differs from the reference engine"
                    );
                }
                assert_ne!(want[0].0, want[39].0, "{algo} on {name}: it trained");
            }
        }
    }
}

//! Native statistical tests of UCD (Qiu, Zhang & Wang 2020; docs/algorithms.md §4): the RBM coupling
//! of Algorithm 3 keeps each chain's Gibbs law and meets with the maximal probability, and the
//! UCD negative phase is an unbiased estimate of E_model[s] where CD-1's is not.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::data::{decode, encode, Dataset};
use rbm_core::diagnostics::grad::estimate;
use rbm_core::model::{Init, Rbm};
use rbm_core::rng::{stream, Purpose};
use rbm_core::sampler::Coupling;
use rbm_core::train::{Lane, LaneConfig};
use std::sync::Arc;

/// Significance level of the goodness-of-fit tests. Every test runs with a fixed seed, so it is
/// deterministic; for a correct sampler a seed fails a test with probability ALPHA.
const ALPHA: f64 = 1e-4;

/// An m×n RBM with every parameter drawn from N(0, 1) (the UCD paper's simulated models).
fn random_model(m: usize, n: usize, seed: u64) -> Rbm {
    Rbm::random(m, n, 1.0, seed).unwrap()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// T_v(v|h) for every visible pattern (index = `encode`), exactly in f64.
fn visible_law(model: &Rbm, h: &[f32]) -> Vec<f64> {
    let (m, n) = (model.m(), model.n());
    let p: Vec<f64> = (0..m)
        .map(|i| {
            sigmoid(
                model.b[i] as f64
                    + (0..n)
                        .map(|j| model.w()[i * n + j] as f64 * h[j] as f64)
                        .sum::<f64>(),
            )
        })
        .collect();
    (0..1u64 << m)
        .map(|code| {
            (0..m)
                .map(|i| {
                    if (code >> i) & 1 == 1 {
                        p[i]
                    } else {
                        1.0 - p[i]
                    }
                })
                .product()
        })
        .collect()
}

/// T_h(h|v) for every hidden pattern, exactly in f64.
fn hidden_law(model: &Rbm, v: &[f32]) -> Vec<f64> {
    let (m, n) = (model.m(), model.n());
    let p: Vec<f64> = (0..n)
        .map(|j| {
            sigmoid(
                model.c[j] as f64
                    + (0..m)
                        .map(|i| model.w()[i * n + j] as f64 * v[i] as f64)
                        .sum::<f64>(),
            )
        })
        .collect();
    (0..1u64 << n)
        .map(|code| {
            (0..n)
                .map(|j| {
                    if (code >> j) & 1 == 1 {
                        p[j]
                    } else {
                        1.0 - p[j]
                    }
                })
                .product()
        })
        .collect()
}

/// The law of one full Gibbs transition from hidden state h: (v, h̃) ~ T_v(v|h)·T_h(h̃|v), indexed
/// by `code(v) + 2^m · code(h̃)`.
fn transition_law(model: &Rbm, h: &[f32]) -> Vec<f64> {
    let (m, n) = (model.m(), model.n());
    let pv = visible_law(model, h);
    let mut out = vec![0.0; 1 << (m + n)];
    for (cv, &p) in pv.iter().enumerate() {
        for (ch, &q) in hidden_law(model, &decode(cv as u64, m)).iter().enumerate() {
            out[cv + (ch << m)] = p * q;
        }
    }
    out
}

/// Upper tail P(χ²_df > x) = Q(df/2, x/2), the regularised upper incomplete gamma function: its
/// power series for x < s + 1, otherwise its continued fraction by the modified Lentz method
/// (Numerical Recipes, 3rd ed., §6.2).
fn chi2_sf(x: f64, df: usize) -> f64 {
    let (s, x) = (df as f64 / 2.0, x / 2.0);
    if x <= 0.0 {
        return 1.0;
    }
    let prefactor = (s * x.ln() - x - libm::lgamma(s)).exp();
    if x < s + 1.0 {
        let (mut a, mut term) = (s, 1.0 / s);
        let mut sum = term;
        while term > sum * 1e-17 {
            a += 1.0;
            term *= x / a;
            sum += term;
        }
        1.0 - prefactor * sum
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - s;
        let (mut c, mut d) = (1.0 / TINY, 1.0 / b);
        let mut f = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - s);
            b += 2.0;
            d = an * d + b;
            d = if d.abs() < TINY { TINY } else { d };
            c = b + an / c;
            c = if c.abs() < TINY { TINY } else { c };
            d = 1.0 / d;
            f *= d * c;
            if (d * c - 1.0).abs() < 1e-16 {
                break;
            }
        }
        prefactor * f
    }
}

/// Pearson's goodness-of-fit p-value of `counts` against the law `probs`. Cells expecting fewer
/// than 5 draws are pooled into one (the usual validity condition of the χ² approximation).
fn chi2_p_value(counts: &[u64], probs: &[f64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let (mut stat, mut cells) = (0.0, 0usize);
    let (mut pooled_obs, mut pooled_exp) = (0.0, 0.0);
    for (&o, &p) in counts.iter().zip(probs) {
        let e = p * total as f64;
        if e < 5.0 {
            pooled_obs += o as f64;
            pooled_exp += e;
        } else {
            stat += (o as f64 - e).powi(2) / e;
            cells += 1;
        }
    }
    if pooled_exp > 0.0 {
        stat += (pooled_obs - pooled_exp).powi(2) / pooled_exp;
        cells += 1;
    }
    chi2_sf(stat, cells - 1)
}

#[test]
fn chi_square_tail_matches_known_values() {
    // df = 2: P(χ² > x) = e^{−x/2} exactly.
    for x in [0.1, 1.0, 5.0, 30.0] {
        assert!((chi2_sf(x, 2) - (-x / 2.0).exp()).abs() < 1e-12, "{x}");
    }
    // Textbook 5% and 0.1% critical values.
    assert!((chi2_sf(3.841_458_820_694_124, 1) - 0.05).abs() < 1e-9);
    assert!((chi2_sf(18.307_038_053_275_146, 10) - 0.05).abs() < 1e-9);
    assert!((chi2_sf(149.448_8, 100) - 0.001).abs() < 1e-5);
}

/// Draws `draws` coupled steps from the fixed states (v, h) and (v′, h′) and returns the
/// counts of the new ξ and η states (index as [`transition_law`]), the meetings and the
/// rejection rounds.
fn coupled_draws(
    model: &Rbm,
    h: &[f32],
    h_eta: &[f32],
    draws: usize,
    seed: u64,
) -> (Vec<u64>, Vec<u64>, u64, u64) {
    let (m, n) = (model.m(), model.n());
    let mut cp = Coupling::new(m, n);
    let mut rng = stream(seed, 0, Purpose::Aux);
    let (mut xi, mut eta) = (vec![0u64; 1 << (m + n)], vec![0u64; 1 << (m + n)]);
    let (mut met, mut rejections) = (0u64, 0u64);
    let (mut v, mut v_eta) = (vec![0.0f32; m], vec![0.0f32; m]);
    for _ in 0..draws {
        let (mut hx, mut he) = (h.to_vec(), h_eta.to_vec());
        let info = cp.step(model, &mut rng, (&mut v, &mut hx), (&mut v_eta, &mut he));
        assert_eq!(info.met, v == v_eta);
        met += u64::from(info.met);
        rejections += info.rejections as u64;
        xi[(encode(&v) + (encode(&hx) << m)) as usize] += 1;
        eta[(encode(&v_eta) + (encode(&he) << m)) as usize] += 1;
    }
    (xi, eta, met, rejections)
}

/// 1 − TV(p, q) = Σ_v min(p(v), q(v)).
fn overlap(p: &[f64], q: &[f64]) -> f64 {
    p.iter().zip(q).map(|(a, b)| a.min(*b)).sum()
}

#[test]
fn each_coupled_chain_keeps_its_gibbs_transition_law() {
    let model = random_model(4, 3, 11);
    let (h, h_eta) = ([1.0f32, 0.0, 1.0], [0.0f32, 1.0, 1.0]);
    let (law, law_eta) = (transition_law(&model, &h), transition_law(&model, &h_eta));
    let tv = 1.0 - overlap(&visible_law(&model, &h), &visible_law(&model, &h_eta));
    assert!(
        tv > 0.2,
        "the pair must exercise the rejection loop often (TV = {tv})"
    );
    let (xi, eta, _, rejections) = coupled_draws(&model, &h, &h_eta, 100_000, 1);
    assert!(
        rejections > 100,
        "rejection rounds beyond the first do happen ({rejections})"
    );
    // The visible marginals over all 2^m patterns (sums of the joint counts over h̃).
    let m = model.m();
    let marginal = |c: &[u64]| -> Vec<u64> {
        let mut out = vec![0u64; 1 << m];
        c.iter()
            .enumerate()
            .for_each(|(i, &x)| out[i & ((1 << m) - 1)] += x);
        out
    };
    let (pv, pv_eta) = (visible_law(&model, &h), visible_law(&model, &h_eta));
    let (p_v, p_v_eta) = (
        chi2_p_value(&marginal(&xi), &pv),
        chi2_p_value(&marginal(&eta), &pv_eta),
    );
    assert!(p_v > ALPHA, "ξ's v law differs from T_v(·|h): p = {p_v}");
    assert!(
        p_v_eta > ALPHA,
        "η's v law differs from T_v(·|h′): p = {p_v_eta}"
    );
    // The joint laws of the new states (v, h̃), hidden update included.
    let (p_xi, p_eta) = (chi2_p_value(&xi, &law), chi2_p_value(&eta, &law_eta));
    assert!(
        p_xi > ALPHA,
        "ξ's (v, h) law differs from T(·|h): p = {p_xi}"
    );
    assert!(
        p_eta > ALPHA,
        "η's (v, h) law differs from T(·|h′): p = {p_eta}"
    );
    // The test has power: each chain's draws are far from the other chain's law.
    assert!(chi2_p_value(&eta, &law) < 1e-12);
    assert!(chi2_p_value(&xi, &law_eta) < 1e-12);
}

#[test]
fn meeting_probability_is_one_minus_total_variation() {
    let model = random_model(4, 3, 12);
    let pairs: [([f32; 3], [f32; 3]); 3] = [
        ([1.0, 0.0, 1.0], [0.0, 1.0, 1.0]),
        ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        ([1.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
    ];
    let draws = 100_000;
    for (k, (h, h_eta)) in pairs.iter().enumerate() {
        let want = overlap(&visible_law(&model, h), &visible_law(&model, h_eta));
        let (_, _, met, _) = coupled_draws(&model, h, h_eta, draws, 20 + k as u64);
        let got = met as f64 / draws as f64;
        let se = (want * (1.0 - want) / draws as f64).sqrt();
        assert!(
            (got - want).abs() < 4.0 * se,
            "pair {k}: P(meet) = {got}, 1 − TV = {want} (se {se})"
        );
    }
}

#[test]
fn met_chains_stay_equal_and_unmet_chains_meet() {
    let model = random_model(6, 4, 13);
    let mut cp = Coupling::new(6, 4);
    let mut rng = stream(3, 0, Purpose::Aux);
    // Equal states stay equal, step after step.
    let (mut v, mut h) = (
        vec![1.0f32, 0.0, 1.0, 1.0, 0.0, 0.0],
        vec![0.0f32, 1.0, 1.0, 0.0],
    );
    let (mut ve, mut he) = (v.clone(), h.clone());
    for _ in 0..2000 {
        let info = cp.step(&model, &mut rng, (&mut v, &mut h), (&mut ve, &mut he));
        assert!(info.met && info.rejections == 0 && info.proposals == 1);
        assert_eq!((&v, &h), (&ve, &he));
    }
    // Different states meet within a few steps, then stay together.
    let mut steps_to_meet = Vec::new();
    for _ in 0..200 {
        let (mut v, mut h) = (vec![0.0f32; 6], vec![1.0f32, 1.0, 1.0, 1.0]);
        let (mut ve, mut he) = (vec![1.0f32; 6], vec![0.0f32; 4]);
        let mut t = 0;
        while !cp
            .step(&model, &mut rng, (&mut v, &mut h), (&mut ve, &mut he))
            .met
        {
            t += 1;
            assert!(t < 1000, "the chains never met");
        }
        steps_to_meet.push(t);
        for _ in 0..20 {
            cp.step(&model, &mut rng, (&mut v, &mut h), (&mut ve, &mut he));
            assert_eq!((&v, &h), (&ve, &he));
        }
    }
    assert!(
        steps_to_meet.iter().any(|&t| t > 0),
        "the start pair is not trivially coupled"
    );
}

/// A tiny data set for the m = 6 model (the rows only enter the exact positive phase and the
/// chains' starting points).
fn tiny_data() -> Arc<Dataset> {
    Arc::new(Dataset::parse("t", "110010\n011001\n100111\n000110\n").unwrap())
}

#[test]
fn ucd_negative_phase_is_unbiased_and_cd1_is_not() {
    let model = random_model(6, 4, 5);
    let data = tiny_data();
    let cfg = |algo: &str, k: usize| LaneConfig {
        algo: algo.into(),
        k,
        chains: Some(1000),
        seed: Some(7),
        max_steps: 1000,
        ..Default::default()
    };
    // 100 repetitions × 1000 chains = 10⁵ chains per estimate. The positive phase is exact, so
    // the bias of the gradient estimate is the bias of the negative phase.
    for k in [1, 2] {
        let e = estimate(&model, data.clone(), &cfg("ucd", k), 100).unwrap();
        for b in &e.blocks {
            let z = b.max_z.unwrap();
            assert!(
                z < 4.0,
                "UCD k={k}, block {}: an entry is {z:.2} standard errors off",
                b.block
            );
        }
    }
    let cd = estimate(&model, data.clone(), &cfg("cd", 1), 100).unwrap();
    let z = cd
        .blocks
        .iter()
        .map(|b| b.max_z.unwrap())
        .fold(0.0, f64::max);
    assert!(
        z > 8.0,
        "CD-1 at this model is biased far outside its error bars (max z = {z:.2})"
    );
    // No chain hit the cap, so the UCD estimates above were exactly unbiased ones.
    let mut lane = Lane::with_model(cfg("ucd", 1), data, model).unwrap();
    let rep = lane.step().unwrap();
    let stat = |k: &str| rep.stats.iter().find(|s| s.0 == k).unwrap().1;
    assert_eq!(stat("truncated"), 0.0);
    assert!(stat("mean_tau") >= 1.0 && stat("max_tau") >= stat("mean_tau"));
    assert!(rep.sweeps >= 1.0 && rep.vh_steps >= 1.0);
}

#[test]
fn the_cap_forces_the_meeting_and_counts_truncated_chains() {
    let model = random_model(6, 4, 5);
    let cfg = LaneConfig {
        algo: "ucd".into(),
        chains: Some(500),
        seed: Some(2),
        max_steps: 2,
        ..Default::default()
    };
    let rep = Lane::with_model(cfg.clone(), tiny_data(), model.clone())
        .unwrap()
        .step()
        .unwrap();
    let stat = |k: &str| rep.stats.iter().find(|s| s.0 == k).unwrap().1;
    // With T_max = 2 no coupled step runs: τ is 1 (ξ_1 = η_0) or forced to 2.
    assert!(
        stat("max_tau") == 2.0 && stat("truncated") > 0.5,
        "{:?}",
        rep.stats
    );
    assert_eq!(stat("rejections"), 0.0);
    assert_eq!(rep.sweeps, 1.0);
    // A cap at k is refused with an error naming the option.
    let bad = LaneConfig {
        max_steps: 1,
        ..cfg
    };
    let err = Lane::with_model(bad, tiny_data(), model)
        .err()
        .expect("refused");
    assert_eq!(err.key(), Some("max_steps"), "{err}");
    assert!(err.to_string().contains("T_max"), "{err}");
}

/// The chain pairs of an update run in lockstep, each on its own stream: a pair's states do
/// not depend on how many other pairs run beside it.
#[test]
fn a_chain_pair_does_not_depend_on_the_other_pairs() {
    let model = random_model(6, 4, 5);
    let run = |chains: usize| {
        let cfg = LaneConfig {
            algo: "ucd".into(),
            chains: Some(chains),
            seed: Some(11),
            max_steps: 50,
            ..Default::default()
        };
        let mut lane = Lane::with_model(cfg, tiny_data(), model.clone()).unwrap();
        lane.step().unwrap();
        lane.chain_states().unwrap()[..3 * 6].to_vec()
    };
    let few = run(3);
    assert_eq!(few, run(200));
    assert_eq!(few, run(7));
    // Beyond one block of pairs run at once.
    assert_eq!(few, run(1500));
}

fn bas4_cfg(seed: u64) -> LaneConfig {
    LaneConfig {
        algo: "ucd".into(),
        hidden: 16,
        lr: 0.1,
        chains: Some(1000),
        init: Init::Ucd,
        seed: Some(seed),
        every: 100,
        ..Default::default()
    }
}

/// The estimate adds its counted terms in the order the patterns were first met since its last
/// addition, whatever its tables keep of earlier ones: with the tables bounded to what they
/// must hold (memos off) the model is the same, bit for bit, after updates that meet more
/// patterns than the bound between two additions.
#[test]
fn ucd_does_not_depend_on_what_its_pattern_tables_keep() {
    let data = Arc::new(Dataset::builtin("bas4").unwrap());
    let run = |memo: bool| {
        rbm_core::engine::cpu::patterns::memo::set_enabled(memo);
        let mut cfg = bas4_cfg(3);
        cfg.chains = Some(2500);
        let mut lane = Lane::new(cfg, data.clone()).unwrap();
        lane.run(6).unwrap();
        rbm_core::engine::cpu::patterns::memo::set_enabled(true);
        let m = lane.model();
        let bits = |x: &[f32]| x.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        (bits(m.w()), bits(&m.b), bits(&m.c), lane.sweeps())
    };
    let kept = run(true);
    assert!(kept.3 > 6.0, "the chains ran");
    assert_eq!(kept, run(false));
}

#[test]
fn ucd_on_bas4_is_reproducible_and_raises_the_likelihood() {
    let data = Arc::new(Dataset::builtin("bas4").unwrap());
    let a = Lane::new(bas4_cfg(1), data.clone())
        .unwrap()
        .run(300)
        .unwrap();
    let b = Lane::new(bas4_cfg(1), data.clone())
        .unwrap()
        .run(300)
        .unwrap();
    assert_eq!(a, b, "same seed, same curve");
    let mut lane = Lane::new(bas4_cfg(1), data.clone()).unwrap();
    lane.run(5).unwrap();
    let states = lane.chain_states().unwrap();
    assert_eq!(states.len(), 1000 * 16);
    assert!(states.iter().all(|&x| x == 0.0 || x == 1.0));
    let c = Lane::new(bas4_cfg(2), data.clone())
        .unwrap()
        .run(100)
        .unwrap();
    assert_ne!(a[1], c[1], "another seed, another curve");
    let (first, last) = (a[0].atll.unwrap(), a.last().unwrap().atll.unwrap());
    // lr 0.1 from the UCD-code init gains about 1 nat in 300 updates.
    assert!(
        last > first + 0.5,
        "UCD raises the exact ATLL: {first} -> {last}"
    );
    assert!(last <= data.bound().unwrap() + 1e-9);
    for r in &a[1..] {
        let tau = r.stats["mean_tau"];
        assert!(tau >= 1.0 && r.stats["max_tau"] >= tau, "{:?}", r.stats);
        assert!(r.stats["rejections"] >= 0.0 && (0.0..=1.0).contains(&r.stats["truncated"]));
    }
    // Both chains of every coupled step count, so a chain spends at least one sweep per update.
    assert!(a.last().unwrap().sweeps >= 300.0);
}

/// Process CPU seconds (user + system) from /proc, where available: the machines that run this
/// are shared, so wall-clock time overstates the cost.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Speed of the page's UCD run: the UCD paper's BAS 4×4 set-up (16 hidden, 1000 chains, full
/// batch, lr 0.1, UCD-code init) for 10 000 updates, evaluation excluded. A measurement, not a
/// test: `cargo test --release --test ucd -- --ignored --nocapture bas4_timing`.
#[test]
#[ignore]
fn bas4_timing() {
    let data = Arc::new(Dataset::builtin("bas4").unwrap());
    let mut lane = Lane::new(
        LaneConfig {
            every: u64::MAX,
            ..bas4_cfg(1)
        },
        data,
    )
    .unwrap();
    let updates = 10_000;
    let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
    let (mut tau, mut sweeps) = (0.0, 0.0);
    for _ in 0..updates {
        let rep = lane.step().unwrap();
        tau += rep.stats[0].1;
        sweeps += rep.sweeps;
    }
    let per = |s: f64| s * 1e3 / updates as f64;
    let cpu = c0.and_then(|c0| cpu_seconds().map(|c| format!("{:.3}", per(c - c0))));
    eprintln!(
        "UCD bas4, {updates} updates: {:.3} ms/update wall, {} ms/update CPU; mean tau {:.3}, sweeps/chain/update {:.3}",
        per(t0.elapsed().as_secs_f64()),
        cpu.unwrap_or_else(|| "?".into()),
        tau / updates as f64,
        sweeps / updates as f64
    );
}

/// The view's τ counts are the latest update's chains: they add up to the chains, their mean is
/// the record's `mean_tau`, their largest τ its `max_tau`; algorithms without stopping times
/// have none.
#[test]
fn the_views_stopping_times_are_the_latest_updates_chains() {
    let data = Arc::new(Dataset::builtin("bas4").unwrap());
    let cfg: LaneConfig = LaneConfig {
        algo: "ucd".into(),
        chains: Some(300),
        seed: Some(3),
        every: 1,
        ..Default::default()
    };
    let mut lane = Lane::new(cfg.clone(), data.clone()).unwrap();
    let mut records = Vec::new();
    lane.run_into(4, &mut records).unwrap();
    let rec = records.last().unwrap();
    assert_eq!(rec.iter, 4);
    let taus = lane.view(4).taus.expect("UCD reports its stopping times");
    assert_eq!(taus[0], 0, "τ ≥ 1");
    assert_eq!(taus.iter().sum::<u32>(), 300);
    let mean = taus
        .iter()
        .enumerate()
        .map(|(t, &c)| t as f64 * c as f64)
        .sum::<f64>()
        / 300.0;
    // A record every update: its statistics are that update's.
    assert_eq!(mean, rec.stats["mean_tau"]);
    assert_eq!((taus.len() - 1) as f64, rec.stats["max_tau"]);
    assert!(*taus.last().unwrap() > 0);
    let cd = Lane::new(
        LaneConfig {
            algo: "cd".into(),
            ..cfg
        },
        data,
    )
    .unwrap();
    assert!(cd.view(4).taus.is_none());
}

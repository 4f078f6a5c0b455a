//! PT — parallel tempering as the negative phase of training (Desjardins, Courville, Bengio,
//! Vincent & Delalleau 2010, "Tempered Markov chain Monte Carlo for training of restricted
//! Boltzmann machines", AISTATS; docs/algorithms.md §4).
//!
//! Persistent chains as PCD, each held as R replicas of the joint state x = (v, h) at inverse
//! temperatures β₁ = 1 > β₂ > … > β_R, replica r sampling p_β(x) ∝ exp(−β E(x)) with
//! E(v, h) = −bᵀv − cᵀh − vᵀWh, i.e. the model with parameters βθ. Per update:
//!
//! 1. every replica runs k block-Gibbs sweeps under βθ (h ~ p_β(h|v), then v ~ p_β(v|h), so
//!    (v, h) is a joint state);
//! 2. neighbours swap their states, pairs (1,2), (2,3), …, (R−1,R) in that order, each with the
//!    Metropolis probability min(1, exp((β_i − β_j)(E(x_i) − E(x_j)))) — the ratio
//!    p_βi(x_j) p_βj(x_i) / (p_βi(x_i) p_βj(x_j)), so each swap leaves the product of the
//!    tempered distributions invariant;
//! 3. the negative statistics are s(v) with E[h|v] of the β = 1 replicas (as PCD's), and θ
//!    steps as every algorithm's.
//!
//! The inverse temperatures are evenly spaced from 1 down to `beta_min` (our choice of
//! schedule; the paper tunes its own). Statistics: the share of proposed swaps accepted, per
//! neighbouring pair (`swap_1_2`, …) and the lowest of them (`swap_min`), the bottleneck of the
//! ladder. Every draw comes from the lane's sampling stream; the CPU engine runs it.

use super::{AlgoCost, AlgoInfo, Algorithm, ChainKind, Ctx, Report, Setup};
use crate::error::{Error, Result};
use crate::math::bernoulli;
use crate::model::{Rbm, Stats};
use crate::rng::{fill_uniform, uniform_f64, Rng};
use crate::schema::options::{Default as D, Kind, OptionSpec, Scope};
use crate::schema::{Aggregate, StatSpec};

/// Most replicas a lane may run (one statistic per neighbouring pair is declared for each).
pub const MAX_REPLICAS: usize = 8;

/// The number of replicas R (the β = 1 chains included).
pub const REPLICAS: OptionSpec = OptionSpec {
    key: "replicas",
    label: "replicas R",
    help: "PT: tempered copies of each chain, β from 1 down to the lowest β (evenly spaced)",
    kind: Kind::Int {
        min: 2,
        max: MAX_REPLICAS as u64,
    },
    default: D::Int(5),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};

/// The lowest inverse temperature β_R.
pub const BETA_MIN: OptionSpec = OptionSpec {
    key: "beta_min",
    label: "lowest β",
    help: "PT: inverse temperature of the hottest replica (0: uniform; below 1)",
    kind: Kind::Float {
        min: 0.0,
        max: 1.0,
        max_open: true,
    },
    default: D::Float(0.2),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};

/// The per-pair acceptance statistic.
const fn pair_stat(key: &'static str, label: &'static str) -> StatSpec {
    StatSpec {
        key,
        label,
        unit: "",
        help: "share of the proposed swaps between these neighbouring replicas that were accepted",
        over_updates: Aggregate::Mean,
        over_trials: Aggregate::Mean,
    }
}

/// The statistics' keys of pair i (replicas i+1, i+2), in order.
const PAIR_KEYS: [&str; MAX_REPLICAS - 1] = [
    "swap_1_2", "swap_2_3", "swap_3_4", "swap_4_5", "swap_5_6", "swap_6_7", "swap_7_8",
];

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "pt",
    title: "PT",
    paper: "Desjardins et al. 2010",
    options: &[
        &super::config::K,
        &super::config::CHAINS,
        &REPLICAS,
        &BETA_MIN,
    ],
    stats: &[
        StatSpec {
            key: "swap_min",
            label: "lowest swap acceptance",
            unit: "",
            help: "the share of accepted swaps of the neighbouring pair that swaps least (the ladder's bottleneck)",
            over_updates: Aggregate::Mean,
            over_trials: Aggregate::Mean,
        },
        pair_stat("swap_1_2", "swap acceptance β₁↔β₂"),
        pair_stat("swap_2_3", "swap acceptance β₂↔β₃"),
        pair_stat("swap_3_4", "swap acceptance β₃↔β₄"),
        pair_stat("swap_4_5", "swap acceptance β₄↔β₅"),
        pair_stat("swap_5_6", "swap acceptance β₅↔β₆"),
        pair_stat("swap_6_7", "swap acceptance β₆↔β₇"),
        pair_stat("swap_7_8", "swap acceptance β₇↔β₈"),
    ],
    // Negative statistics; R sets of chains, each sweeping k times.
    cost: AlgoCost {
        weight_sets: 1.0,
        batch_sets: 0.0,
        chains: ChainKind::Full,
        sweeps: |c| (c.k as f64 * replicas_of(c) as f64, Some("k")),
    },
    build: |s: &Setup| Ok(Box::new(Pt::new(s)?)),
};

/// R of a configuration (its default when unset or unreadable; `check_options` refuses bad ones).
fn replicas_of(c: &super::LaneConfig) -> usize {
    c.number(REPLICAS.key).map_or(5, |x| x as usize)
}

/// β_r = 1 − r (1 − β_min)/(R − 1), r = 0..R: evenly spaced from 1 down to β_min.
pub fn betas(replicas: usize, beta_min: f64) -> Vec<f64> {
    (0..replicas)
        .map(|r| 1.0 - r as f64 * (1.0 - beta_min) / (replicas - 1) as f64)
        .collect()
}

/// E(v, h) = −bᵀv − cᵀh − vᵀWh of one joint state, in f64.
fn energy(model: &Rbm, v: &[f32], h: &[f32]) -> f64 {
    let n = model.n();
    let w = model.w();
    let mut e = 0.0f64;
    for (&x, &b) in v.iter().zip(&model.b) {
        e -= x as f64 * b as f64;
    }
    for (&y, &c) in h.iter().zip(&model.c) {
        e -= y as f64 * c as f64;
    }
    for (i, &x) in v.iter().enumerate() {
        if x != 0.0 {
            let row = &w[i * n..(i + 1) * n];
            e -= x as f64
                * row
                    .iter()
                    .zip(h)
                    .map(|(&a, &y)| a as f64 * y as f64)
                    .sum::<f64>();
        }
    }
    e
}

/// R replicas of `chains` joint states at inverse temperatures `betas` (docs: the module).
/// Replica r samples under βθ through the model's own pre-activations scaled by β — p_β(h|v)
/// = σ(β(c + Wᵀv)), p_β(v|h) = σ(β(b + Wh)) — so no tempered copy of the model is kept.
pub struct Tempering {
    /// β₁ = 1 > … > β_R.
    pub betas: Vec<f64>,
    /// Visible states per replica, chains × m.
    v: Vec<Vec<f32>>,
    /// Hidden states per replica, chains × n.
    h: Vec<Vec<f32>>,
    chains: usize,
    /// Scratch pre-activations and uniforms, chains × max(m, n).
    pre: Vec<f32>,
    u: Vec<f32>,
    /// Swap on every proposal (a wrong kernel, for the tests that must see it drift).
    #[cfg(test)]
    always_swap: bool,
}

/// `x` ← 0/1 draws with P(x_i = 1) = σ(β a_i), one uniform of `u` per unit in order.
fn draw(x: &mut [f32], a: &[f32], u: &[f32], beta: f32) {
    for ((x, &a), &u) in x.iter_mut().zip(a).zip(u) {
        *x = f32::from(u8::from(bernoulli(u, beta * a)));
    }
}

impl Tempering {
    /// Replicas of an m×n model at `betas`, every replica's chain i started at row i mod rows
    /// of `rows` (h = 0 until the first sweep).
    pub fn new(m: usize, n: usize, betas: Vec<f64>, rows: &[f32], chains: usize) -> Tempering {
        let count = rows.len() / m;
        let start: Vec<f32> = (0..chains)
            .flat_map(|i| rows[(i % count) * m..(i % count + 1) * m].iter().copied())
            .collect();
        Tempering {
            v: vec![start; betas.len()],
            h: vec![vec![0.0; chains * n]; betas.len()],
            betas,
            chains,
            pre: vec![0.0; chains * m.max(n)],
            u: vec![0.0; chains * m.max(n)],
            #[cfg(test)]
            always_swap: false,
        }
    }

    /// `k` sweeps of every replica under βθ of `model` (h ~ p_β(h|v), then v ~ p_β(v|h)),
    /// replicas in order.
    pub fn sweeps(&mut self, model: &Rbm, k: usize, rng: &mut Rng) {
        let (hn, vm) = (self.chains * model.n(), self.chains * model.m());
        for ((v, h), &beta) in self.v.iter_mut().zip(&mut self.h).zip(&self.betas) {
            for _ in 0..k {
                model.hidden_pre(v, &mut self.pre[..hn]);
                fill_uniform(rng, &mut self.u[..hn]);
                draw(h, &self.pre[..hn], &self.u[..hn], beta as f32);
                model.visible_pre(h, &mut self.pre[..vm]);
                fill_uniform(rng, &mut self.u[..vm]);
                draw(v, &self.pre[..vm], &self.u[..vm], beta as f32);
            }
        }
    }

    /// One round of swaps between neighbours (1,2), (2,3), … in order, each chain's with its
    /// Metropolis probability; returns the share accepted per pair.
    pub fn swaps(&mut self, model: &Rbm, rng: &mut Rng) -> Vec<f64> {
        let (m, n) = (model.m(), model.n());
        let mut e: Vec<Vec<f64>> = (0..self.betas.len())
            .map(|r| {
                (0..self.chains)
                    .map(|c| {
                        energy(
                            model,
                            &self.v[r][c * m..(c + 1) * m],
                            &self.h[r][c * n..(c + 1) * n],
                        )
                    })
                    .collect()
            })
            .collect();
        let mut shares = Vec::with_capacity(self.betas.len() - 1);
        for i in 0..self.betas.len() - 1 {
            let d_beta = self.betas[i] - self.betas[i + 1];
            let mut accepted = 0usize;
            let (lo, hi) = self.v.split_at_mut(i + 1);
            let (vi, vj) = (&mut lo[i], &mut hi[0]);
            let (lo, hi) = self.h.split_at_mut(i + 1);
            let (hi_, hj) = (&mut lo[i], &mut hi[0]);
            let (lo, hi) = e.split_at_mut(i + 1);
            let (ei, ej) = (&mut lo[i], &mut hi[0]);
            for c in 0..self.chains {
                let a = d_beta * (ei[c] - ej[c]);
                #[cfg(test)]
                let a = if self.always_swap { 0.0 } else { a };
                if a >= 0.0 || uniform_f64(rng) < libm::exp(a) {
                    accepted += 1;
                    vi[c * m..(c + 1) * m].swap_with_slice(&mut vj[c * m..(c + 1) * m]);
                    hi_[c * n..(c + 1) * n].swap_with_slice(&mut hj[c * n..(c + 1) * n]);
                    std::mem::swap(&mut ei[c], &mut ej[c]);
                }
            }
            shares.push(accepted as f64 / self.chains as f64);
        }
        shares
    }

    /// The visible states of replica `r` (chains × m).
    pub fn visible(&self, r: usize) -> &[f32] {
        &self.v[r]
    }

    /// Sets replica `r`'s joint states (chains × m, chains × n).
    pub fn set_states(&mut self, r: usize, v: &[f32], h: &[f32]) {
        self.v[r].copy_from_slice(v);
        self.h[r].copy_from_slice(h);
    }
}

/// Parallel tempering, on the CPU engine.
pub struct Pt {
    k: usize,
    tempering: Tempering,
    neg: Stats,
    hp: Vec<f32>,
}

impl Pt {
    /// R = `cfg.replicas` replicas of `s.chains` persistent chains, each started at training
    /// row i mod rows, at β evenly spaced from 1 to `cfg.beta_min`.
    pub fn new(s: &Setup) -> Result<Pt> {
        let r = s.cfg.number(REPLICAS.key)? as usize;
        let beta_min = s.cfg.number(BETA_MIN.key)?;
        if !(2..=MAX_REPLICAS).contains(&r) {
            return Err(Error::option(
                REPLICAS.key,
                format!(
                    "{} must be between 2 and {MAX_REPLICAS}, got {r}",
                    REPLICAS.label
                ),
            ));
        }
        let (m, n) = (s.model.m(), s.model.n());
        Ok(Pt {
            k: s.cfg.k,
            tempering: Tempering::new(m, n, betas(r, beta_min), &s.data.values, s.chains),
            neg: Stats::new(m, n),
            hp: vec![0.0; s.chains * n],
        })
    }
}

impl Algorithm for Pt {
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        cx.positive_phase(None);
        self.tempering.sweeps(cx.model, self.k, cx.rng);
        let shares = self.tempering.swaps(cx.model, cx.rng);
        let v = self.tempering.visible(0);
        cx.model.hidden_probs(v, &mut self.hp);
        self.neg.clear();
        self.neg.add(v, &self.hp);
        cx.step(&self.neg);
        let r = self.tempering.betas.len() as f64;
        let mut stats: Vec<(&'static str, f64)> = vec![(
            "swap_min",
            shares.iter().copied().fold(f64::INFINITY, f64::min),
        )];
        stats.extend(PAIR_KEYS.iter().copied().zip(shares));
        Ok(Report {
            sweeps: self.k as f64 * r,
            vh_steps: self.k as f64 * r,
            stats,
        })
    }

    fn chain_states(&self) -> Option<&[f32]> {
        Some(self.tempering.visible(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{encode, Dataset};
    use crate::eval::exact::model_distribution;
    use crate::rng::{stream, Purpose};
    use crate::sampler::drift::{tv, ExactDraws};
    use crate::train::{Lane, LaneConfig};
    use std::sync::Arc;

    fn scaled(model: &Rbm, beta: f64) -> Rbm {
        let mut s = model.clone();
        s.edit(|w, b, c| {
            for x in w.iter_mut().chain(b.iter_mut()).chain(c.iter_mut()) {
                *x *= beta as f32;
            }
        });
        s
    }

    /// Replicas of `model` at `betas` whose chains start at exact joint draws of p_β(v, h):
    /// v by inversion of p_β(v), then h ~ p_β(h|v).
    fn exact_start(model: &Rbm, betas: &[f64], chains: usize, seed: u64) -> Tempering {
        let (m, n) = (model.m(), model.n());
        let mut t = Tempering::new(m, n, betas.to_vec(), &vec![0.0; m], chains);
        let mut r = stream(seed, 0, Purpose::Aux);
        for (i, &beta) in betas.iter().enumerate() {
            let sm = scaled(model, beta);
            let draws = ExactDraws::new(&model_distribution(&sm).unwrap());
            let v: Vec<f32> = (0..chains)
                .flat_map(|_| crate::data::decode(draws.draw(&mut r), m))
                .collect();
            let mut h = vec![0.0; chains * n];
            sm.sample_hidden(&v, &mut h, &mut r);
            t.set_states(i, &v, &h);
        }
        t
    }

    /// TV between each replica's visible states and its p_β(v), and the noise floor of as many
    /// exact draws (mean + 5 sd over 20 sets).
    fn distances(model: &Rbm, t: &Tempering, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let m = model.m();
        let mut r = stream(seed, 9, Purpose::Aux);
        let mut got = Vec::new();
        let mut floors = Vec::new();
        for (i, &beta) in t.betas.iter().enumerate() {
            let p = model_distribution(&scaled(model, beta)).unwrap();
            let mut counts = vec![0u32; p.len()];
            for v in t.visible(i).chunks_exact(m) {
                counts[encode(v) as usize] += 1;
            }
            got.push(tv(&counts, t.chains, &p));
            let draws = ExactDraws::new(&p);
            let reps: Vec<f64> = (0..20)
                .map(|_| {
                    let mut c = vec![0u32; p.len()];
                    for _ in 0..t.chains {
                        c[draws.draw(&mut r) as usize] += 1;
                    }
                    tv(&c, t.chains, &p)
                })
                .collect();
            let mean = reps.iter().sum::<f64>() / 20.0;
            let sd = (reps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 19.0).sqrt();
            floors.push(mean + 5.0 * sd);
        }
        (got, floors)
    }

    #[test]
    fn chains_started_at_every_tempered_distribution_stay_there() {
        let model = Rbm::random(5, 3, 1.5, 4).unwrap();
        let betas = betas(3, 0.2);
        let chains = 20_000;
        let mut t = exact_start(&model, &betas, chains, 1);
        let mut rng = stream(2, 0, Purpose::Sampling);
        let mut accepted = vec![0.0; 2];
        for _ in 0..6 {
            t.sweeps(&model, 1, &mut rng);
            let s = t.swaps(&model, &mut rng);
            accepted.iter_mut().zip(&s).for_each(|(a, x)| *a += x);
        }
        let (got, floors) = distances(&model, &t, 3);
        for (i, (g, f)) in got.iter().zip(&floors).enumerate() {
            assert!(
                g <= f,
                "replica {i} (β {}): TV {g} above the floor {f}",
                betas[i]
            );
        }
        assert!(
            accepted.iter().all(|&a| a > 0.1 && a < 6.0 * 0.999),
            "swaps happen: {accepted:?}"
        );

        // The control: a kernel that swaps on every proposal moves the β = 1 replica off p(v).
        let mut t = exact_start(&model, &betas, chains, 1);
        t.always_swap = true;
        t.sweeps(&model, 1, &mut rng);
        t.swaps(&model, &mut rng);
        let (got, floors) = distances(&model, &t, 3);
        assert!(
            got[0] > 3.0 * floors[0],
            "a wrong swap drifts: TV {} vs floor {}",
            got[0],
            floors[0]
        );
    }

    /// E[min(1, exp((β₁ − β₂)(E(x₁) − E(x₂))))] over independent x_i ~ p_βi(v, h), by
    /// enumerating the joint states.
    fn exact_acceptance(model: &Rbm, b1: f64, b2: f64) -> f64 {
        let (m, n) = (model.m(), model.n());
        let states: Vec<f64> = (0..1u64 << (m + n))
            .map(|s| {
                let v = crate::data::decode(s & ((1 << m) - 1), m);
                let h = crate::data::decode(s >> m, n);
                energy(model, &v, &h)
            })
            .collect();
        let law = |beta: f64| {
            let w: Vec<f64> = states.iter().map(|e| (-beta * e).exp()).collect();
            let z: f64 = w.iter().sum();
            w.into_iter().map(|x| x / z).collect::<Vec<f64>>()
        };
        let (p1, p2) = (law(b1), law(b2));
        let mut a = 0.0;
        for (e1, q1) in states.iter().zip(&p1) {
            for (e2, q2) in states.iter().zip(&p2) {
                a += q1 * q2 * ((b1 - b2) * (e1 - e2)).exp().min(1.0);
            }
        }
        a
    }

    #[test]
    fn swap_acceptance_equals_its_exact_expectation_on_two_replicas() {
        let model = Rbm::random(4, 3, 1.5, 8).unwrap();
        let betas = vec![1.0, 0.4];
        let want = exact_acceptance(&model, 1.0, 0.4);
        assert!(want > 0.05 && want < 0.95, "a test that can tell: {want}");
        let chains = 40_000;
        let mut rng = stream(5, 0, Purpose::Sampling);
        let mut t = exact_start(&model, &betas, chains, 6);
        t.sweeps(&model, 1, &mut rng);
        let got = t.swaps(&model, &mut rng)[0];
        assert!((0.0..=1.0).contains(&got));
        let se = (want * (1.0 - want) / chains as f64).sqrt();
        assert!(
            (got - want).abs() < 4.0 * se,
            "acceptance {got} vs exact {want} (se {se})"
        );
    }

    #[test]
    fn a_pt_lane_trains_reports_its_swaps_and_is_reproducible() {
        let data = Arc::new(Dataset::builtin("bas3").unwrap());
        let run = || {
            let mut cfg = LaneConfig {
                algo: "pt".into(),
                hidden: 8,
                lr: 0.1,
                chains: Some(20),
                seed: Some(3),
                every: 500,
                ..Default::default()
            };
            cfg.set("replicas", 4.into()).unwrap();
            let mut lane = Lane::new(cfg, data.clone()).unwrap();
            let recs = lane.run(1500).unwrap();
            (lane.model().clone(), recs)
        };
        let ((a, recs), (b, _)) = (run(), run());
        assert_eq!(a, b, "the same seed, the same model");
        let last = recs.last().unwrap();
        for key in ["swap_min", "swap_1_2", "swap_2_3", "swap_3_4"] {
            let x = last.stats[key];
            assert!((0.0..=1.0).contains(&x), "{key} = {x}");
        }
        assert!(
            !last.stats.contains_key("swap_4_5"),
            "3 pairs for 4 replicas"
        );
        assert!(last.stats["swap_min"] <= last.stats["swap_1_2"]);
        let atll = |i: usize| recs[i].atll.unwrap();
        assert!(
            atll(recs.len() - 1) > atll(0) + 0.5,
            "it learns: {} → {}",
            atll(0),
            atll(recs.len() - 1)
        );
    }

    #[test]
    fn betas_are_evenly_spaced_from_one() {
        let b = betas(5, 0.2);
        for (x, want) in b.iter().zip([1.0, 0.8, 0.6, 0.4, 0.2]) {
            assert!((x - want).abs() < 1e-15, "{b:?}");
        }
        assert_eq!(b[0], 1.0, "the first replica samples the model itself");
        assert_eq!(betas(2, 0.0), vec![1.0, 0.0]);
    }
}

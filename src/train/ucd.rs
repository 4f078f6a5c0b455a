//! UCD — unbiased contrastive divergence (Qiu, Zhang & Wang 2020, Algorithms 1–3;
//! docs/algorithms.md §4).
//!
//! Per chain: draw a row v of the mini-batch and h ~ p(h|v); set ξ_0 = η_0 = (v, h); draw ξ_1
//! by one Gibbs sweep; then advance the pair (ξ_t, η_{t−1}) → (ξ_{t+1}, η_t) with the RBM
//! coupling of Algorithm 3 ([`Coupling`]) up to the meeting time τ, the first t ≥ 1 with
//! ξ_t = η_{t−1} (τ = 1 when ξ_1 = η_0). If the chains have not met by step T_max − 1 the
//! meeting is forced at τ = T_max (Algorithm 1, line 4) and the chain counts as truncated.
//! A chain's negative statistics are
//! `f(ξ_k) + Σ_{t=k+1}^{τ−1} [f(ξ_t) − f(η_{t−1})]` (Section 3.3) with f = s(v) using E[h|v]
//! (Rao-Blackwellised over h, as `accumulate_grad2_ucd` in the authors' python/rbm.py), and the
//! update averages them over the chains: an unbiased estimate of E_model[s] (Theorem 1) when no
//! chain is truncated.
//!
//! Per-update bookkeeping, per chain and averaged over the chains of the update:
//! - `sweeps`: Gibbs sweeps of the chains: 1 for ξ_1, 2 per coupled step (ξ and η each advance),
//!   1 per step of ξ alone (only when the chains meet before step k);
//! - `vh_steps`: visible vectors actually drawn: ξ_1's, each coupled step's line-1 proposal
//!   (counted once even when shared), every rejection-loop proposal, ξ's steps alone;
//! - stats: `mean_tau` and `max_tau` (τ as above; the authors' code reports the number of
//!   coupled steps instead, max(1, τ − 1)), `rejections` (rejection rounds beyond the first,
//!   summed over a chain's steps, as the authors' code counts its discarded samples) and
//!   `truncated` (the share of chains that hit the cap).

use super::{config, AlgoInfo, Algorithm, Ctx, Report, Setup};
use crate::cost::{AlgoCost, ChainKind};
use crate::error::{Error, Result};
use crate::math::fast_exp;
use crate::model::{Rbm, Stats};
use crate::rng::fill_uniform;
use crate::rng::{index, Rng};
use crate::sampler::Coupling;
use crate::schema::{Aggregate, StatSpec};

/// Registration.
pub const INFO: AlgoInfo = AlgoInfo {
    name: "ucd",
    title: "UCD",
    paper: "Qiu, Zhang & Wang 2020",
    options: &[&config::K, &config::CHAINS, &config::MAX_STEPS],
    stats: &[
        StatSpec {
            key: "mean_tau",
            label: "mean stopping time τ",
            unit: "steps",
            help: "the first t ≥ 1 with ξ_t = η_{t−1}, averaged over the chains",
            over_updates: Aggregate::Mean,
            over_trials: Aggregate::Mean,
        },
        StatSpec {
            key: "max_tau",
            label: "largest τ",
            unit: "steps",
            help: "the largest stopping time of any chain",
            over_updates: Aggregate::Max,
            over_trials: Aggregate::Max,
        },
        StatSpec {
            key: "rejections",
            label: "rejections per chain",
            unit: "",
            help: "rejection rounds beyond the first, per chain",
            over_updates: Aggregate::Mean,
            over_trials: Aggregate::Mean,
        },
        StatSpec {
            key: "truncated",
            label: "share truncated",
            unit: "",
            help: "share of chains that reached the cap T_max (their estimate is biased)",
            over_updates: Aggregate::Mean,
            over_trials: Aggregate::Mean,
        },
    ],
    // Negative statistics; the batch rows' hidden thresholds. Per chain k sweeps, then two per
    // coupled step until the chains meet: τ is typically a few steps (mean 4.4 on BAS 4×4), so
    // the estimate takes min(T_max, 5) coupled steps.
    cost: AlgoCost {
        weight_sets: 1.0,
        batch_sets: 1.0,
        chains: ChainKind::Visible,
        sweeps: |c| {
            let coupled = c.max_steps.min(5);
            let key = if c.k >= coupled { "k" } else { "max_steps" };
            ((c.k + 2 * coupled) as f64, Some(key))
        },
    },
    build: |s: &Setup| Ok(Box::new(Ucd::new(s)?)),
};

/// Unbiased contrastive divergence with k = `cfg.k`, cap T_max = `cfg.max_steps` and
/// `s.chains` coupled chain pairs per update.
pub struct Ucd {
    k: usize,
    max_steps: usize,
    chains: usize,
    coupling: Coupling,
    /// ξ_t = (v, h) and η_{t−1} = (v_eta, h_eta) of the chain being run.
    v: Vec<f32>,
    h: Vec<f32>,
    v_eta: Vec<f32>,
    h_eta: Vec<f32>,
    /// E[h|v] of the current ξ and η states.
    mean: Vec<f32>,
    mean_eta: Vec<f32>,
    /// Scratch: pre-activations and uniforms (length max(m, n)).
    pre: Vec<f32>,
    z: Vec<f32>,
    neg: Stats,
    /// Hidden thresholds 1 + e^{−(c + Wᵀv)} of the mini-batch rows (`rows × n`): every chain
    /// starts at one of them.
    row_t: Vec<f32>,
    /// The last ξ visible state of every chain (`chains × m`), for display.
    states: Vec<f32>,
    /// The chains' stopping times τ of the latest update, as counts: `taus[t]` chains met at
    /// τ = t (index 0 unused; τ ≤ T_max), for the page's τ histogram.
    taus: Vec<u32>,
}

/// What one chain pair did.
#[derive(Default)]
struct ChainRun {
    tau: usize,
    rejections: u64,
    truncated: bool,
    sweeps: u64,
    vh_steps: u64,
}

/// Adds s(v) − s(v′) with s(v) = (v·E[h|v]ᵀ, v, E[h|v]) to `neg` in one pass (what
/// `add_weighted(v, mean, 1)` then `add_weighted(v′, mean′, −1)` would add): the W rows of units
/// on in both chains get E[h|v] − E[h|v′] once. `diff` is scratch of length ≥ n.
#[inline]
fn add_difference(
    neg: &mut Stats,
    (v, mean): (&[f32], &[f32]),
    (v_eta, mean_eta): (&[f32], &[f32]),
    diff: &mut [f32],
) {
    let n = mean.len();
    let diff = &mut diff[..n];
    diff.iter_mut()
        .zip(mean.iter().zip(mean_eta))
        .for_each(|(d, (&p, &q))| *d = p - q);
    let sum = &mut neg.sum;
    for (i, (&x, &y)) in v.iter().zip(v_eta).enumerate() {
        let row = &mut sum.w[i * n..(i + 1) * n];
        match (x != 0.0, y != 0.0) {
            (true, true) => row.iter_mut().zip(diff.iter()).for_each(|(g, &d)| *g += d),
            (true, false) => {
                row.iter_mut().zip(mean).for_each(|(g, &p)| *g += p);
                sum.b[i] += 1.0;
            }
            (false, true) => {
                row.iter_mut().zip(mean_eta).for_each(|(g, &q)| *g -= q);
                sum.b[i] -= 1.0;
            }
            (false, false) => {}
        }
    }
    sum.c
        .iter_mut()
        .zip(diff.iter())
        .for_each(|(g, &d)| *g += d);
}

impl Ucd {
    /// UCD for the model and options of `s`; chain pair i of the display starts at data row
    /// i mod rows. Refuses a cap T_max ≤ k (the estimator would be plain CD-k).
    pub fn new(s: &Setup) -> Result<Ucd> {
        let (k, max_steps) = (s.cfg.k, s.cfg.max_steps);
        if max_steps <= k {
            return Err(Error::option(
                "max_steps",
                format!("UCD needs the cap T_max above k, got T_max = {max_steps} and k = {k}"),
            ));
        }
        let (m, n) = (s.model.m(), s.model.n());
        let rows = s.data.rows().max(1);
        let mut states = vec![0.0f32; s.chains * m];
        for (i, st) in states.chunks_exact_mut(m).enumerate() {
            let r = i % rows;
            st.copy_from_slice(&s.data.values[r * m..(r + 1) * m]);
        }
        Ok(Ucd {
            k,
            max_steps,
            chains: s.chains,
            coupling: Coupling::new(m, n),
            v: vec![0.0; m],
            h: vec![0.0; n],
            v_eta: vec![0.0; m],
            h_eta: vec![0.0; n],
            mean: vec![0.0; n],
            mean_eta: vec![0.0; n],
            pre: vec![0.0; m.max(n)],
            z: vec![0.0; m.max(n)],
            neg: Stats::new(m, n),
            row_t: Vec::new(),
            states,
            taus: Vec::new(),
        })
    }

    /// Runs one chain pair from mini-batch row `r` (`v0`), adding its estimate to `self.neg`.
    fn run_chain(&mut self, model: &Rbm, rng: &mut Rng, v0: &[f32], r: usize) -> ChainRun {
        let (k, cap, n) = (self.k, self.max_steps, self.h.len());
        // ξ_0 = η_0 = (v0, h0), h0 ~ p(h|v0).
        self.v_eta.copy_from_slice(v0);
        let z = &mut self.z[..n];
        fill_uniform(rng, z);
        let t0 = &self.row_t[r * n..(r + 1) * n];
        for ((h, &t), &z) in self.h_eta.iter_mut().zip(t0).zip(z.iter()) {
            *h = if z * t < 1.0 { 1.0 } else { 0.0 };
        }
        // ξ_1 by one sweep.
        model.sample_visible(&self.h_eta, &mut self.v, rng);
        model.sample_hidden_with_probs(&self.v, &mut self.h, &mut self.mean, rng);
        let mut run = ChainRun {
            sweeps: 1,
            vh_steps: 1,
            ..Default::default()
        };
        let mut t = 1;
        let mut met = self.v == self.v_eta && self.h == self.h_eta;
        if met {
            run.tau = 1;
        }
        if k == 1 {
            self.neg.add_weighted(&self.v, &self.mean, 1.0);
        }
        loop {
            if met && t >= k {
                return run;
            }
            if !met && t + 1 >= cap {
                // Algorithm 1, line 4: η_t is set to ξ_{t+1} at t + 1 = T_max, whose term is 0.
                // As cap > k, t ≥ k here and the chain is done.
                met = true;
                run.tau = t + 1;
                run.truncated = true;
                continue;
            }
            if met {
                // Met before step k: η_{t−1} = ξ_t from now on, so ξ runs alone up to ξ_k.
                model.sample_visible(&self.h, &mut self.v, rng);
                model.sample_hidden_with_probs(&self.v, &mut self.h, &mut self.mean, rng);
                t += 1;
                run.sweeps += 1;
                run.vh_steps += 1;
                if t == k {
                    self.neg.add_weighted(&self.v, &self.mean, 1.0);
                }
                continue;
            }
            let info = self.coupling.step(
                model,
                rng,
                (&mut self.v, &mut self.h),
                (&mut self.v_eta, &mut self.h_eta),
            );
            t += 1;
            run.sweeps += 2;
            run.vh_steps += info.proposals as u64;
            run.rejections += info.rejections as u64;
            if info.met {
                met = true;
                run.tau = t;
            }
            // f(ξ_k), then f(ξ_t) − f(η_{t−1}) for k < t < τ (zero once the chains have met).
            if t == k || (t > k && !info.met) {
                self.coupling
                    .hidden_means(&mut self.mean, &mut self.mean_eta);
                if t > k {
                    add_difference(
                        &mut self.neg,
                        (&self.v, &self.mean),
                        (&self.v_eta, &self.mean_eta),
                        &mut self.pre,
                    );
                } else {
                    self.neg.add_weighted(&self.v, &self.mean, 1.0);
                }
            }
        }
    }
}

impl Algorithm for Ucd {
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        cx.positive_phase();
        let m = cx.model.m();
        let rows = cx.rows();
        let model: &Rbm = cx.model;
        let n = model.n();
        self.row_t.resize(rows * n, 0.0);
        for (v, t) in cx.batch.chunks_exact(m).zip(self.row_t.chunks_exact_mut(n)) {
            model.hidden_pre(v, t);
            t.iter_mut().for_each(|x| *x = 1.0 + fast_exp(-*x));
        }
        self.neg.clear();
        let (mut tau_sum, mut tau_max, mut rejections, mut truncated, mut sweeps, mut vh_steps) =
            (0u64, 0usize, 0u64, 0u64, 0u64, 0u64);
        self.taus.clear();
        for c in 0..self.chains {
            // Algorithm 2, line 2: a data point drawn at random.
            let r = index(cx.rng, rows);
            let run = self.run_chain(model, cx.rng, &cx.batch[r * m..(r + 1) * m], r);
            self.states[c * m..(c + 1) * m].copy_from_slice(&self.v);
            if self.taus.len() <= run.tau {
                self.taus.resize(run.tau + 1, 0);
            }
            self.taus[run.tau] += 1;
            tau_sum += run.tau as u64;
            tau_max = tau_max.max(run.tau);
            rejections += run.rejections;
            truncated += u64::from(run.truncated);
            sweeps += run.sweeps;
            vh_steps += run.vh_steps;
        }
        self.neg.count = self.chains as f32;
        cx.opt.step(cx.model, cx.pos, &self.neg, cx.lr);
        let c = self.chains as f64;
        Ok(Report {
            sweeps: sweeps as f64 / c,
            vh_steps: vh_steps as f64 / c,
            stats: vec![
                ("mean_tau", tau_sum as f64 / c),
                ("max_tau", tau_max as f64),
                ("rejections", rejections as f64 / c),
                ("truncated", truncated as f64 / c),
            ],
        })
    }

    fn chain_states(&self) -> Option<&[f32]> {
        Some(&self.states)
    }

    fn stopping_times(&self) -> Option<&[u32]> {
        Some(&self.taus)
    }
}

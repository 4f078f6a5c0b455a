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

use super::{config, AlgoCost, AlgoInfo, Algorithm, ChainKind, Ctx, Report, Setup};
use crate::engine::cpu::kernels::{bernoulli_row_key, set_bits};
use crate::engine::cpu::patterns::met::Patterns;
use crate::error::{Error, Result};
use crate::model::{Rbm, Stats};
use crate::rng::{fill_uniform, index, stream, Purpose, Rng};
use crate::sampler::Coupling;
use crate::schema::{Aggregate, StatSpec};
use rand::Rng as _;

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
///
/// The chain pairs of an update run in lockstep, in blocks of at most [`BLOCK`] pairs: each
/// round advances every pair of the block that has not finished by one step, and the
/// pre-activations of all of them are computed together by the batch kernels
/// (`Rbm::visible_pre`, `Rbm::hidden_pre`); pairs that are done drop out. Each pair draws from
/// its own stream, derived from one number of the lane's stream per update, so its law and its
/// numbers do not depend on the other pairs or on the order of the batch.
pub struct Ucd {
    k: usize,
    max_steps: usize,
    chains: usize,
    coupling: Coupling,
    /// ξ_t = (v, h) and η_{t−1} = (v_eta, h_eta) of the block's pairs (`pairs × m`, `pairs × n`).
    v: Vec<f32>,
    h: Vec<f32>,
    v_eta: Vec<f32>,
    h_eta: Vec<f32>,
    /// The same states as patterns (first 64 units; η's once drawn), one per pair, as the
    /// draws return them: the tables of layers of at most 64 units find them by these.
    keys: [Vec<u64>; 4],
    /// Per pair of the block: its stream, its step t, whether it has met and what it did.
    rngs: Vec<Rng>,
    pairs: Vec<Pair>,
    /// The pairs still running.
    active: Vec<usize>,
    /// The hidden patterns met in the update with their visible pre-activations and thresholds,
    /// and the visible patterns with their hidden ones.
    vis: Patterns,
    hid: Patterns,
    /// The pattern of each active pair's ξ row in the current layer (in `active` order), and
    /// its η row's when the pair is coupled and the two differ.
    xi_at: Vec<usize>,
    eta_at: Vec<Option<usize>>,
    /// Scratch uniforms (length max(m, n)).
    z: Vec<f32>,
    neg: Stats,
    /// The update's estimate as signed counts of visible patterns (entries of `hid`): f depends
    /// on v alone, so Σ ±f(v) over the chains' terms is Σ_e counts[e]·f(v_e).
    counts: Vec<i32>,
    /// Positive-phase E[h|v] and hidden thresholds 1 + e^{−(c + Wᵀv)} of the mini-batch rows
    /// (`rows × n`): every chain starts at one of them.
    row_p: Vec<f32>,
    row_t: Vec<f32>,
    /// The last ξ visible state of every chain (`chains × m`), for display.
    states: Vec<f32>,
    /// The chains' stopping times τ of the latest update, as counts: `taus[t]` chains met at
    /// τ = t (index 0 unused; τ ≤ T_max), for the page's τ histogram.
    taus: Vec<u32>,
}

/// Most chain pairs run in lockstep at once: the chains of an update run in blocks of this
/// many, which bounds the memory (a pair's numbers do not depend on its block).
const BLOCK: usize = 1024;

/// Most patterns a table of [`Patterns`] counts before the counted terms are added to the
/// estimate between rounds (the grouping of the estimate's sums: it fixes its bits).
const MAX_PATTERNS: usize = 2 * BLOCK;

/// Pre-activations a table of [`Patterns`] keeps at most, of the patterns met in an update
/// (with as many thresholds); a table always keeps room for [`MAX_PATTERNS`] + 2·[`BLOCK`]
/// patterns, what it may meet between two additions to the estimate, and only that room when
/// the memos are off ([`crate::engine::cpu::patterns::memo::set_enabled`]: the same bits, tests compare both).
const CACHED_VALUES: usize = 1 << 18;

/// Most patterns a table of [`Patterns`] whose entries hold `width` values each keeps.
pub(crate) fn table_bound(width: usize) -> usize {
    ROOM.max(CACHED_VALUES / width.max(1))
}

/// Patterns a table of [`Patterns`] may meet between two additions to the estimate: what it
/// always keeps room for.
const ROOM: usize = MAX_PATTERNS + 2 * BLOCK;

/// What one chain pair did.
#[derive(Clone, Copy, Default)]
struct ChainRun {
    tau: usize,
    rejections: u64,
    truncated: bool,
    sweeps: u64,
    vh_steps: u64,
}

/// A chain pair in its update: step t of ξ, whether ξ and η have met, and its record.
#[derive(Clone, Copy, Default)]
struct Pair {
    t: usize,
    met: bool,
    done: bool,
    run: ChainRun,
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
        let c = s.chains.min(BLOCK);
        Ok(Ucd {
            k,
            max_steps,
            chains: s.chains,
            coupling: Coupling::new(m, n),
            v: vec![0.0; c * m],
            h: vec![0.0; c * n],
            v_eta: vec![0.0; c * m],
            h_eta: vec![0.0; c * n],
            keys: std::array::from_fn(|_| vec![0; c]),
            rngs: Vec::with_capacity(c),
            pairs: vec![Pair::default(); c],
            active: Vec::with_capacity(c),
            vis: Patterns::new(m, n, true, ROOM, table_bound(m)),
            hid: Patterns::new(m, n, false, ROOM, table_bound(n)),
            xi_at: Vec::with_capacity(c),
            eta_at: Vec::with_capacity(c),
            z: vec![0.0; m.max(n)],
            neg: Stats::new(m, n),
            counts: Vec::new(),
            row_p: Vec::new(),
            row_t: Vec::new(),
            states,
            taus: Vec::new(),
        })
    }

    /// Starts every pair of the block: a row r of the mini-batch (Algorithm 2, line 2), ξ_0 = η_0 = (v_r, h_0)
    /// with h_0 ~ p(h|v_r) from the row's thresholds, then ξ_1 by one sweep of all of them at
    /// once.
    fn start(&mut self, model: &Rbm, batch: &[f32]) {
        let (m, n) = (model.m(), model.n());
        let rows = batch.len() / m;
        let Ucd {
            rngs,
            v,
            h,
            v_eta,
            h_eta,
            keys: [v_key, h_key, _, h_eta_key],
            vis,
            hid,
            xi_at,
            z,
            row_t,
            ..
        } = self;
        let len = rngs.len();
        for (c, rng) in rngs.iter_mut().enumerate() {
            let r = index(rng, rows);
            v_eta[c * m..(c + 1) * m].copy_from_slice(&batch[r * m..(r + 1) * m]);
            let t0 = &row_t[r * n..(r + 1) * n];
            h_eta_key[c] = sample_from_thresholds(rng, t0, &mut h_eta[c * n..(c + 1) * n], z);
        }
        // ξ_1: v_1 ~ p(v|h_0), h_1 ~ p(h|v_1); `xi_at` keeps the patterns of the v_1 rows.
        xi_at.clear();
        let h0 = h_eta.chunks_exact(n).zip(&*h_eta_key).take(len);
        xi_at.extend(h0.map(|(r, &key)| vis.find(r, key)));
        vis.compute(model);
        for (c, (rng, &e)) in rngs.iter_mut().zip(xi_at.iter()).enumerate() {
            v_key[c] = sample_from_thresholds(rng, vis.thr(e), &mut v[c * m..(c + 1) * m], z);
        }
        xi_at.clear();
        let v1 = v.chunks_exact(m).zip(&*v_key).take(len);
        xi_at.extend(v1.map(|(r, &key)| hid.find(r, key)));
        hid.compute(model);
        for (c, (rng, &e)) in rngs.iter_mut().zip(xi_at.iter()).enumerate() {
            h_key[c] = sample_from_thresholds(rng, hid.thr(e), &mut h[c * n..(c + 1) * n], z);
        }
    }

    /// Past [`MAX_PATTERNS`] patterns met in a table since the last time, between rounds, adds
    /// the counted terms to the estimate and starts counting afresh (a round or a block start
    /// meets at most 2·[`BLOCK`] patterns more); the tables keep the numbers of the patterns
    /// within their bound ([`CACHED_VALUES`]), so memory stays bounded whatever the number of
    /// chains.
    fn bound_patterns(&mut self) {
        if self.vis.len().max(self.hid.len()) > MAX_PATTERNS {
            add_counted(&mut self.neg, &self.hid, &self.counts);
            self.counts.clear();
            self.vis.restart();
            self.hid.restart();
        }
    }

    /// One round: every active pair advances one step — ξ alone (met before step k) or the
    /// coupled step of Algorithm 3 — with the pre-activations and thresholds of the patterns
    /// not met before in this update computed together.
    fn round(&mut self, model: &Rbm) {
        let (m, n) = (model.m(), model.n());
        let Ucd {
            coupling,
            v,
            h,
            v_eta,
            h_eta,
            keys: [v_key, h_key, v_eta_key, h_eta_key],
            rngs,
            pairs,
            active,
            vis,
            hid,
            xi_at,
            eta_at,
            z,
            ..
        } = self;
        // Visible layer: a = W h_t + b for every active pair, a′ = W h′_{t−1} + b for the
        // coupled pairs whose hidden states differ.
        locate(
            active,
            pairs,
            [(h, h_key), (h_eta, h_eta_key)],
            n,
            vis,
            (xi_at, eta_at),
        );
        vis.compute(model);
        for ((&c, &e), &e_eta) in active.iter().zip(xi_at.iter()).zip(eta_at.iter()) {
            let (rng, pair) = (&mut rngs[c], &mut pairs[c]);
            let x = &mut v[c * m..(c + 1) * m];
            if pair.met {
                v_key[c] = sample_from_thresholds(rng, vis.thr(e), x, z);
                pair.run.sweeps += 1;
                pair.run.vh_steps += 1;
                continue;
            }
            let xi = vis.conditional(e);
            let eta = e_eta.map(|j| vis.conditional(j));
            let v_eta = &mut v_eta[c * m..(c + 1) * m];
            let info = coupling.step_visible_from_thresholds(rng, xi, eta, x, v_eta);
            [v_key[c], v_eta_key[c]] = info.keys;
            pair.run.sweeps += 2;
            pair.run.vh_steps += info.proposals as u64;
            pair.run.rejections += info.rejections as u64;
            // Whether the chains meet now is read from the new states below.
        }
        // Hidden layer: g = Wᵀv_{t+1} + c for every active pair, g′ = Wᵀv′_t + c for the
        // coupled pairs whose visible states differ.
        locate(
            active,
            pairs,
            [(v, v_key), (v_eta, v_eta_key)],
            m,
            hid,
            (xi_at, eta_at),
        );
        hid.compute(model);
        for ((&c, &e), &e_eta) in active.iter().zip(xi_at.iter()).zip(eta_at.iter()) {
            let (rng, t) = (&mut rngs[c], hid.thr(e));
            let x = &mut h[c * n..(c + 1) * n];
            if pairs[c].met {
                h_key[c] = sample_from_thresholds(rng, t, x, z);
                continue;
            }
            let t_eta = e_eta.map_or(t, |j| hid.thr(j));
            let x_eta = &mut h_eta[c * n..(c + 1) * n];
            [h_key[c], h_eta_key[c]] =
                coupling.step_hidden_from_thresholds(rng, t, t_eta, x, x_eta);
        }
    }
}

/// The pattern of the ξ row of every active pair and, for the coupled pairs whose η row
/// differs, of the η row (`width` values each, with their keys) in `patterns`, in `active`
/// order.
fn locate(
    active: &[usize],
    pairs: &[Pair],
    [(xi, xi_key), (eta, eta_key)]: [(&[f32], &[u64]); 2],
    width: usize,
    patterns: &mut Patterns,
    (xi_at, eta_at): (&mut Vec<usize>, &mut Vec<Option<usize>>),
) {
    xi_at.clear();
    eta_at.clear();
    for &c in active {
        let e = patterns.find(&xi[c * width..(c + 1) * width], xi_key[c]);
        xi_at.push(e);
        let e_eta = (!pairs[c].met)
            .then(|| patterns.find(&eta[c * width..(c + 1) * width], eta_key[c]))
            .filter(|&j| j != e);
        eta_at.push(e_eta);
    }
}

/// Adds `by` to the count of entry `e`.
#[inline]
fn count(counts: &mut Vec<i32>, e: usize, by: i32) {
    if counts.len() <= e {
        counts.resize(e + 1, 0);
    }
    counts[e] += by;
}

/// Adds Σ_e counts[e]·s(v_e) to `neg` with s(v) = (v·E[h|v]ᵀ, v, E[h|v]) (docs/algorithms.md
/// §1) and E[h|v] = 1/t from the pattern's hidden thresholds, patterns in the order they were
/// first met since the table's last restart (the row count is left alone).
fn add_counted(neg: &mut Stats, hid: &Patterns, counts: &[i32]) {
    match hid.width {
        4 => add_counted_as::<4>(neg, hid, counts),
        8 => add_counted_as::<8>(neg, hid, counts),
        16 => add_counted_as::<16>(neg, hid, counts),
        32 => add_counted_as::<32>(neg, hid, counts),
        _ => add_counted_as::<0>(neg, hid, counts),
    }
}

/// [`add_counted`] for `N` hidden units, or any number (`N` = 0): a known width makes each
/// row's additions a few vector instructions instead of a loop.
#[inline(always)]
fn add_counted_as<const N: usize>(neg: &mut Stats, hid: &Patterns, counts: &[i32]) {
    let n = if N > 0 { N } else { hid.width };
    let mut p = vec![0.0f32; n];
    let p = &mut p[..n];
    for &e in &hid.order {
        let e = e as usize;
        let k = counts.get(e).copied().unwrap_or(0);
        if k == 0 {
            continue;
        }
        let w = k as f32;
        p.iter_mut()
            .zip(&hid.thr(e)[..n])
            .for_each(|(p, &t)| *p = w * (1.0 / t));
        for i in set_bits(hid.key(e)) {
            neg.sum.w[i * n..(i + 1) * n]
                .iter_mut()
                .zip(&*p)
                .for_each(|(g, &p)| *g += p);
            neg.sum.b[i] += w;
        }
        neg.sum.c[..n]
            .iter_mut()
            .zip(&*p)
            .for_each(|(g, &p)| *g += p);
    }
}

/// `x ~ Bernoulli(σ(a))` unit by unit from the thresholds t = 1 + e^{−a}: one uniform each
/// from [`fill_uniform`], unit on iff `u·t < 1` (as `Rbm::sample_hidden`); returns x as a
/// pattern (first 64 units).
#[inline]
fn sample_from_thresholds(rng: &mut Rng, t: &[f32], x: &mut [f32], z: &mut [f32]) -> u64 {
    let z = &mut z[..t.len()];
    fill_uniform(rng, z);
    bernoulli_row_key(x, z, t)
}

impl Algorithm for Ucd {
    fn update(&mut self, cx: &mut Ctx<'_>) -> Result<Report> {
        cx.positive_phase_thresholds(&mut self.row_p, &mut self.row_t);
        let model: &Rbm = cx.model;
        let (m, n) = (model.m(), model.n());
        let (k, cap) = (self.k, self.max_steps);
        // One stream per pair, from one number of the lane's stream.
        let seed = cx.rng.next_u64();
        self.neg.clear();
        let (mut tau_sum, mut tau_max, mut rejections, mut truncated, mut sweeps, mut vh_steps) =
            (0u64, 0usize, 0u64, 0u64, 0u64, 0u64);
        self.taus.clear();
        // The parameters are fixed for the whole update: patterns are kept across its blocks.
        self.vis.clear();
        self.hid.clear();
        self.counts.clear();
        for c0 in (0..self.chains).step_by(BLOCK) {
            let len = BLOCK.min(self.chains - c0);
            self.rngs.clear();
            self.rngs
                .extend((c0..c0 + len).map(|c| stream(seed, c as u64, Purpose::Sampling)));
            self.bound_patterns();
            self.start(model, cx.batch);
            self.active.clear();
            for c in 0..len {
                let met = self.v[c * m..(c + 1) * m] == self.v_eta[c * m..(c + 1) * m]
                    && self.h[c * n..(c + 1) * n] == self.h_eta[c * n..(c + 1) * n];
                self.pairs[c] = Pair {
                    t: 1,
                    met,
                    done: false,
                    run: ChainRun {
                        tau: usize::from(met),
                        sweeps: 1,
                        vh_steps: 1,
                        ..Default::default()
                    },
                };
                self.active.push(c);
            }
            if k == 1 {
                // f(ξ_1) of every pair (`xi_at` holds the patterns of the v_1 rows).
                for &e in &self.xi_at {
                    count(&mut self.counts, e, 1);
                }
            }
            loop {
                // Pairs done before this round drop out; a pair that has not met by step
                // T_max − 1 is met by force at τ = T_max (Algorithm 1, line 4: η_t is set to
                // ξ_{t+1}, whose term is 0); as T_max > k, it is done.
                let pairs = &mut self.pairs;
                self.active.retain(|&c| {
                    let p = &mut pairs[c];
                    if !p.met && p.t + 1 >= cap {
                        p.met = true;
                        p.run.tau = p.t + 1;
                        p.run.truncated = true;
                    }
                    p.done = p.met && p.t >= k;
                    !p.done
                });
                if self.active.is_empty() {
                    break;
                }
                self.bound_patterns();
                self.round(model);
                // `xi_at` and `eta_at` now hold the patterns of v_{t+1} and, if it differs, v′_t.
                for (i, &c) in self.active.iter().enumerate() {
                    let p = &mut self.pairs[c];
                    let was_met = p.met;
                    p.t += 1;
                    let met_now = !was_met && self.eta_at[i].is_none();
                    if met_now {
                        p.met = true;
                        p.run.tau = p.t;
                    }
                    // f(ξ_k) (ξ alone or coupled), then f(ξ_t) − f(η_{t−1}) for k < t < τ (zero
                    // once the chains have met).
                    if p.t == k || (p.t > k && !was_met && !met_now) {
                        count(&mut self.counts, self.xi_at[i], 1);
                    }
                    if p.t > k && !was_met && !met_now {
                        count(&mut self.counts, self.eta_at[i].expect("an η row"), -1);
                    }
                }
            }
            for p in &self.pairs[..len] {
                let run = &p.run;
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
            self.states[c0 * m..(c0 + len) * m].copy_from_slice(&self.v[..len * m]);
        }
        add_counted(&mut self.neg, &self.hid, &self.counts);
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

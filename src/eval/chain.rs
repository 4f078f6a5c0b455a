//! Exact chain-time distributions (docs/algorithms.md §7): the law p_k = p_0 Tᵏ of a block-Gibbs
//! chain's visible state after k sweeps, where T(v→v′) = Σ_h p(h|v) p(v′|h), computed without
//! sampling for models whose 2^(m+n) joint states can be walked. One sweep is applied as
//! q(h) = Σ_v p_{k−1}(v) p(h|v), then p_k(v′) = Σ_h q(h) p(v′|h), never forming T. Started at the
//! data (CD's start) it shows CD-k's negative phase exactly, and its distance to the model's
//! equilibrium is CD-k's bias.

use super::exact::model_distribution;
use crate::data::{encode, Dataset};
use crate::error::{Error, Result};
use crate::model::Rbm;
use serde::Serialize;

/// Most joint states 2^(m+n) walked per sweep.
pub const MAX_JOINT_BITS: usize = 24;
/// Sweeps of one request unless told.
pub const DEFAULT_SWEEPS: usize = 50;
/// Most sweeps of one request.
pub const MAX_SWEEPS: usize = 10_000;

/// Refuses a walk of an m×n model beyond 2^[`MAX_JOINT_BITS`] joint states or
/// [`MAX_SWEEPS`] sweeps.
pub fn check_walk(m: usize, n: usize, k_max: usize) -> Result<()> {
    if m + n > MAX_JOINT_BITS {
        return Err(Error::TooLarge(format!(
            "the exact chain walks 2^(m+n) = 2^{} joint states per sweep; at most \
             2^{MAX_JOINT_BITS} (e.g. Bars & Stripes 3x3 or Shifting Bar with few hidden units)",
            m + n
        )));
    }
    if k_max > MAX_SWEEPS {
        return Err(Error::InvalidOption {
            key: "k_max".into(),
            message: format!("at most {MAX_SWEEPS} sweeps (got {k_max})"),
        });
    }
    Ok(())
}

/// Where the chain starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// The data's empirical distribution (CD's start).
    Data,
    /// Every visible pattern equally likely.
    Uniform,
}

impl Start {
    /// `data` or `uniform` (the CLI's `--start`, the page's choice).
    pub fn parse(s: &str) -> Result<Start> {
        match s {
            "data" => Ok(Start::Data),
            "uniform" => Ok(Start::Uniform),
            s => Err(Error::InvalidOption {
                key: "start".into(),
                message: format!("the chain starts at data or uniform (got '{s}')"),
            }),
        }
    }
}

/// The distances of p_k after k sweeps.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChainPoint {
    /// Sweeps.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub k: usize,
    /// TV(p_k, p_model).
    pub tv_model: f64,
    /// KL(p_k ‖ p_model) in nats.
    pub kl_model: f64,
    /// TV(p_k, p_data).
    pub tv_data: f64,
}

/// p(unit on) for each of `width` units given each state of the `other` layer, in f64:
/// `weight(o, u)` joins unit o of the other layer to unit u. `2^other × width`.
fn conditionals(
    bias: &[f32],
    weight: impl Fn(usize, usize) -> f32,
    other: usize,
    width: usize,
) -> Vec<f64> {
    let mut out = vec![0.0; (1 << other) * width];
    for s in 0..(1usize << other) {
        for (u, o) in out[s * width..(s + 1) * width].iter_mut().enumerate() {
            let mut a = bias[u] as f64;
            for k in (0..other).filter(|k| s >> k & 1 == 1) {
                a += weight(k, u) as f64;
            }
            *o = 1.0 / (1.0 + (-a).exp());
        }
    }
    out
}

/// p(state | probabilities of each unit), for every state of `width` units, into `out`.
fn state_probs(p: &[f64], out: &mut [f64]) {
    out[0] = 1.0;
    let mut len = 1;
    for &pj in p {
        for s in 0..len {
            out[s + len] = out[s] * pj;
            out[s] *= 1.0 - pj;
        }
        len *= 2;
    }
}

/// One sweep: p ← p T.
fn sweep(p: &[f64], ph: &[f64], pv: &[f64], m: usize, n: usize) -> Vec<f64> {
    let (sv, sh) = (1usize << m, 1usize << n);
    let mut q = vec![0.0; sh];
    let mut buf = vec![0.0; sh.max(sv)];
    for (v, &pv_v) in p.iter().enumerate() {
        if pv_v == 0.0 {
            continue;
        }
        state_probs(&ph[v * n..(v + 1) * n], &mut buf[..sh]);
        q.iter_mut()
            .zip(&buf[..sh])
            .for_each(|(q, &b)| *q += pv_v * b);
    }
    let mut next = vec![0.0; sv];
    for (h, &qh) in q.iter().enumerate() {
        if qh == 0.0 {
            continue;
        }
        state_probs(&pv[h * m..(h + 1) * m], &mut buf[..sv]);
        next.iter_mut()
            .zip(&buf[..sv])
            .for_each(|(x, &b)| *x += qh * b);
    }
    next
}

fn tv(a: &[f64], b: &[f64]) -> f64 {
    0.5 * a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>()
}

/// KL(a ‖ b), clamped at 0: once a has converged to b the sum is rounding noise of either sign.
fn kl(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .filter(|(&x, _)| x > 0.0)
        .map(|(&x, &y)| x * (x / y).ln())
        .sum::<f64>()
        .max(0.0)
}

/// A chain walked sweep by sweep (docs/algorithms.md §7), so a caller can report progress and
/// stop between sweeps; [`chain_distances`] walks it to the end in one call, with the same bits.
pub struct ChainWalk {
    m: usize,
    n: usize,
    ph: Vec<f64>,
    pv: Vec<f64>,
    p: Vec<f64>,
    p_model: Vec<f64>,
    p_data: Vec<f64>,
    k_max: usize,
    points: Vec<ChainPoint>,
}

impl ChainWalk {
    /// p_0 (the data's law or uniform) of `model`'s chain on `data`, to walk up to `k_max`
    /// sweeps. Refuses models of more than 2^[`MAX_JOINT_BITS`] joint states and more than
    /// [`MAX_SWEEPS`] sweeps.
    pub fn new(model: &Rbm, data: &Dataset, start: Start, k_max: usize) -> Result<ChainWalk> {
        super::exact::check_fit(model, data)?;
        let (m, n) = (model.m(), model.n());
        check_walk(m, n, k_max)?;
        let p_model = model_distribution(model)?;
        let mut p_data = vec![0.0; 1 << m];
        let thresholded;
        let data = if data.is_binary() {
            data
        } else {
            thresholded = data.thresholded();
            &thresholded
        };
        for r in 0..data.rows() {
            p_data[encode(data.row(r)) as usize] += 1.0 / data.rows() as f64;
        }
        let w = model.w();
        let ph = conditionals(&model.c, |i, j| w[i * n + j], m, n);
        let pv = conditionals(&model.b, |j, i| w[i * n + j], n, m);
        let p = match start {
            Start::Data => p_data.clone(),
            Start::Uniform => vec![1.0 / (1u64 << m) as f64; 1 << m],
        };
        let mut walk = ChainWalk {
            m,
            n,
            ph,
            pv,
            p,
            p_model,
            p_data,
            k_max,
            points: Vec::with_capacity(k_max + 1),
        };
        walk.record();
        Ok(walk)
    }

    fn record(&mut self) {
        self.points.push(ChainPoint {
            k: self.points.len(),
            tv_model: tv(&self.p, &self.p_model),
            kl_model: kl(&self.p, &self.p_model),
            tv_data: tv(&self.p, &self.p_data),
        });
    }

    /// Walks up to `sweeps` more sweeps (at least one unless done); true once k = `k_max`.
    pub fn advance(&mut self, sweeps: usize) -> bool {
        for _ in 0..sweeps.max(1) {
            if self.done() {
                break;
            }
            self.p = sweep(&self.p, &self.ph, &self.pv, self.m, self.n);
            self.record();
        }
        self.done()
    }

    /// Whether every sweep up to `k_max` is walked.
    pub fn done(&self) -> bool {
        self.points.len() > self.k_max
    }

    /// Sweeps walked so far.
    pub fn sweeps(&self) -> usize {
        self.points.len() - 1
    }

    /// The distances for k = 0..=sweeps walked.
    pub fn points(&self) -> &[ChainPoint] {
        &self.points
    }
}

/// The distances of p_k to the model and to the data for k = 0..=`k_max`.
pub fn chain_distances(
    model: &Rbm,
    data: &Dataset,
    start: Start,
    k_max: usize,
) -> Result<Vec<ChainPoint>> {
    let mut walk = ChainWalk::new(model, data, start, k_max)?;
    while !walk.advance(usize::MAX) {}
    Ok(walk.points)
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    use super::*;

    /// T written out entry by entry (straightforward sums over h) for a tiny model.
    fn explicit_t(model: &Rbm) -> Vec<Vec<f64>> {
        let (m, n) = (model.m(), model.n());
        let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
        let w = |i: usize, j: usize| model.w()[i * n + j] as f64;
        let mut t = vec![vec![0.0; 1 << m]; 1 << m];
        for v in 0..1usize << m {
            for v2 in 0..1usize << m {
                for h in 0..1usize << n {
                    let mut p = 1.0;
                    for j in 0..n {
                        let a = model.c[j] as f64
                            + (0..m).map(|i| (v >> i & 1) as f64 * w(i, j)).sum::<f64>();
                        p *= if h >> j & 1 == 1 {
                            sig(a)
                        } else {
                            1.0 - sig(a)
                        };
                    }
                    for i in 0..m {
                        let a = model.b[i] as f64
                            + (0..n).map(|j| (h >> j & 1) as f64 * w(i, j)).sum::<f64>();
                        p *= if v2 >> i & 1 == 1 {
                            sig(a)
                        } else {
                            1.0 - sig(a)
                        };
                    }
                    t[v][v2] += p;
                }
            }
        }
        t
    }

    #[test]
    fn one_sweep_is_p_times_t_and_the_model_is_stationary() {
        let model = Rbm::random(4, 3, 1.2, 7).unwrap();
        let t = explicit_t(&model);
        let w = model.w();
        let ph = conditionals(&model.c, |i, j| w[i * 3 + j], 4, 3);
        let pv = conditionals(&model.b, |j, i| w[i * 3 + j], 3, 4);
        let p0: Vec<f64> = (0..16).map(|s| (s as f64 + 1.0) / 136.0).collect();
        let p1 = sweep(&p0, &ph, &pv, 4, 3);
        for v2 in 0..16 {
            let want: f64 = (0..16).map(|v| p0[v] * t[v][v2]).sum();
            assert!((p1[v2] - want).abs() < 1e-14, "{v2}: {} vs {want}", p1[v2]);
        }
        assert!((p1.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        let pm = model_distribution(&model).unwrap();
        let pm1 = sweep(&pm, &ph, &pv, 4, 3);
        assert!(
            tv(&pm, &pm1) < 1e-12,
            "the model's law is invariant under T"
        );
    }

    /// Walked a few sweeps at a time, the chain gives the one-shot call's bits.
    #[test]
    fn a_stepped_walk_gives_the_one_shot_bits() {
        let data = Dataset::builtin("bas3").unwrap();
        let model = Rbm::random(9, 4, 1.0, 3).unwrap();
        let once = chain_distances(&model, &data, Start::Uniform, 17).unwrap();
        let mut walk = ChainWalk::new(&model, &data, Start::Uniform, 17).unwrap();
        let mut calls = 0;
        while !walk.advance(5) {
            calls += 1;
            assert_eq!(walk.sweeps(), 5 * calls);
        }
        assert_eq!(walk.points(), &once[..]);
        assert!(walk.advance(1), "a finished walk stays finished");
        assert_eq!(walk.points().len(), 18);
        assert!(Start::parse("model").is_err());
        assert_eq!(Start::parse("data").unwrap(), Start::Data);
    }

    /// From the data the chain moves towards the model: TV to the model shrinks with k (an
    /// ergodic kernel contracts), TV to the data starts at 0.
    #[test]
    fn chains_from_the_data_approach_the_model() {
        let data = Dataset::builtin("shifting-bar").unwrap();
        let model = Rbm::random(9, 4, 0.8, 2).unwrap();
        let pts = chain_distances(&model, &data, Start::Data, 30).unwrap();
        assert_eq!(pts[0].tv_data, 0.0);
        assert!(
            pts.windows(2)
                .all(|w| w[1].tv_model <= w[0].tv_model + 1e-12),
            "{pts:?}"
        );
        assert!(pts[30].tv_model < pts[0].tv_model);
        let uni = chain_distances(&model, &data, Start::Uniform, 1).unwrap();
        assert!(
            (uni[0].tv_data
                - tv(&vec![1.0 / 512.0; 512], &{
                    let mut p = vec![0.0; 512];
                    for r in 0..9 {
                        p[encode(data.row(r)) as usize] += 1.0 / 9.0;
                    }
                    p
                }))
            .abs()
                < 1e-12
        );
        assert!(chain_distances(
            &Rbm::random(16, 16, 0.1, 1).unwrap(),
            &Dataset::builtin("bas4").unwrap(),
            Start::Data,
            1
        )
        .is_err());
    }
}

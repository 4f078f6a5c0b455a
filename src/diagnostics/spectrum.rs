//! Exact diagnostics of a small model (issue 29): how hard it is to sample now, the spectrum of
//! its weights, and how many modes its distribution has — what `rbm mixing` prints.
//!
//! **The Gibbs kernel's second eigenvalue.** The visible chain of block Gibbs sampling moves by
//! `T(v→v′) = Σ_h p(h|v) p(v′|h)`. With `K(v,h) = p(v,h)/√(p(v) p(h))`, the symmetrised kernel
//! `D^{1/2} T D^{−1/2}` (D = diag p(v)) equals `K Kᵀ`: T is reversible with respect to p(v), its
//! eigenvalues are the squared singular values of K, all in [0, 1], the largest 1 with
//! eigenvector √p. The hidden chain's kernel is similar to `Kᵀ K`, which has the same non-zero
//! eigenvalues, so λ₂ (the largest eigenvalue below 1, = |λ₂| since none is negative) is found
//! on the **smaller** layer: the largest eigenvalue of `Kᵀ K` on the complement of √p, by
//! Lanczos ([`super::linalg::lanczos_largest`]), applying `Kᵀ K` through the rows of K without
//! forming it (each product walks the 2^(m+n) joint states, [`MAX_MIXING_BITS`]). The
//! relaxation time is `1/(1 − λ₂)` (Levin, Peres & Wilmer, *Markov Chains and Mixing Times*,
//! §12.2): the number of sweeps over which correlations decay by a factor e.
//!
//! With W = 0, p(h|v) = p(h) and T(v→v′) = p(v′): one sweep draws exactly from p(v), T has
//! rank one, λ₂ = 0 and the relaxation time is 1.
//!
//! **The singular values of W** (all of them, descending) and its top two singular directions,
//! onto which data rows and chains are projected (as Decelle, Fissore & Furtlehner 2017 and
//! Bachtis et al. 2024 watch training).
//!
//! **Modes of p(v)**: visible states whose probability is strictly above that of each of their m
//! neighbours under a single-unit flip, counted exactly from the free energies of all 2^m
//! states (m ≤ [`MAX_DIST_BITS`]).

use super::linalg::{svd, Lanczos};
use super::mixing_bound::{check_bound, gibbs_lambda2_bound, GibbsBound};
use crate::error::{Error, Result};
use crate::eval::exact::{
    check_enumerable, gray, log_marginal, smaller_layer, view, walk, Layer, View, MAX_DIST_BITS,
};
use crate::math::LogSumExp;
use crate::model::Rbm;
use crate::rng::{stream, uniform_f64, Purpose};
use serde::Serialize;

/// Largest m + n for which [`gibbs_lambda2`] runs: each Lanczos step walks the 2^(m+n) joint
/// states once (2^24: about 0.2 s natively).
pub const MAX_MIXING_BITS: usize = 24;

/// Up to 2^this joint states, the rows of K are computed once and kept (32 MiB); beyond, each
/// product computes them again.
const KEEP_BITS: usize = 22;

/// At most this many Lanczos steps.
const MAX_LANCZOS_STEPS: usize = 300;

/// Lanczos vectors kept at most (values), bounding the memory of the basis to 32 MiB.
const MAX_BASIS_VALUES: usize = 1 << 22;

/// Refuses [`gibbs_lambda2`] of a model beyond [`MAX_MIXING_BITS`], naming the limit.
pub fn check_mixing(rbm: &Rbm) -> Result<()> {
    let bits = rbm.m() + rbm.n();
    if bits > MAX_MIXING_BITS {
        return Err(Error::TooLarge(format!(
            "the exact Gibbs kernel of a {}×{} model walks 2^{bits} joint states (m + n = {bits}); \
             it is limited to m + n ≤ {MAX_MIXING_BITS}",
            rbm.m(),
            rbm.n()
        )));
    }
    Ok(())
}

/// The second eigenvalue of the visible Gibbs chain and its relaxation time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GibbsSpectrum {
    /// λ₂ of T(v→v′) = Σ_h p(h|v) p(v′|h): the largest eigenvalue below 1 (all are ≥ 0).
    pub lambda2: f64,
    /// 1/(1 − λ₂), in sweeps (infinite, null in JSON, when λ₂ rounds to 1).
    pub relaxation_time: f64,
    /// Lanczos steps taken (products with Kᵀ K).
    pub lanczos_steps: usize,
}

/// The bound on the magnitude of each factor's log in [`row_by_products`].
const RANGE: f64 = 200.0;

/// `row[s] = e^{base + Σ_{j∈s} pre_j − half_small[s]}` for every state s of the smaller layer,
/// each entry one exponential.
fn row_by_logs(row: &mut [f64], base: f64, pre: &[f64], half_small: &[f64]) {
    row[0] = libm::exp(base - half_small[0]);
    let mut acc = base;
    let mut code = 0usize;
    for t in 1..row.len() {
        let x = t.trailing_zeros() as usize;
        code ^= 1 << x;
        if (code >> x) & 1 == 1 {
            acc += pre[x];
        } else {
            acc -= pre[x];
        }
        debug_assert_eq!(code as u64, gray(t as u64));
        row[code] = libm::exp(acc - half_small[code]);
    }
}

/// The same row as [`row_by_logs`] from `scale = e^{base}` and `g[s] = e^{−half_small[s]}`:
/// `P(s) = P(s without its lowest unit) · e^{pre_lowest}`, so one multiply per entry (and one
/// to scale), a relative error of a few ulps per unit.
fn row_by_products(row: &mut [f64], scale: f64, pre: &[f64], g: &[f64]) {
    let e: Vec<f64> = pre.iter().map(|&a| libm::exp(a)).collect();
    row[0] = scale;
    for s in 1..row.len() {
        let low = s.trailing_zeros() as usize;
        row[s] = row[s & (s - 1)] * e[low];
    }
    row.iter_mut().zip(g).for_each(|(r, &g)| *r *= g);
}

/// The matrix K on (larger layer × smaller layer) states, row by row.
struct Kernel {
    large: View<'static>,
    /// Unnormalised log-marginals of the smaller layer's states, by code.
    log_small: Vec<f64>,
    /// Every row, when kept.
    kept: Option<Vec<f64>>,
}

impl Kernel {
    fn new(rbm: &Rbm) -> Kernel {
        let small = smaller_layer(rbm);
        let large = match small {
            Layer::Hidden => Layer::Visible,
            Layer::Visible => Layer::Hidden,
        };
        let vs = view(rbm, small);
        let mut log_small = vec![0.0; 1 << vs.k];
        walk(&vs, 0, 1 << vs.k, |code, lin, pre| {
            log_small[code as usize] = log_marginal(lin, pre)
        });
        let mut k = Kernel {
            large: view(rbm, large),
            log_small,
            kept: None,
        };
        if k.large.k + k.large.l <= KEEP_BITS {
            let mut all = Vec::with_capacity(1 << (k.large.k + k.large.l));
            k.compute_rows(|row| all.extend_from_slice(row));
            k.kept = Some(all);
        }
        k
    }

    /// States of the smaller layer.
    fn dim(&self) -> usize {
        self.log_small.len()
    }

    /// Calls `f` with each row `K(u, ·)` of a larger-layer state u:
    /// `K(u,s) = exp(−E(u,s) − ½ log p̃(u) − ½ log p̃(s))` (log Z cancels), every entry ≤ 1.
    /// With `−E(u,s) = lin(u) + Σ_{j∈s} pre_j(u)`, a row is `e^{lin − ½ log p̃(u)} · Π_{j∈s}
    /// e^{pre_j} · e^{−½ log p̃(s)}`: the products over s are built from s without its lowest
    /// unit, one multiply per entry ([`row_by_products`]), where every factor stays within
    /// e^{±200} so nothing leaves f64's normal range; otherwise each entry is one exponential
    /// of its log ([`row_by_logs`]).
    fn compute_rows(&self, mut f: impl FnMut(&[f64])) {
        let k = self.large.l;
        let mut row = vec![0.0; 1 << k];
        let half_small: Vec<f64> = self.log_small.iter().map(|&x| 0.5 * x).collect();
        let g: Option<Vec<f64>> = half_small
            .iter()
            .all(|x| x.abs() <= RANGE)
            .then(|| half_small.iter().map(|&x| libm::exp(-x)).collect());
        walk(&self.large, 0, 1 << self.large.k, |_, lin, pre| {
            let base = lin - 0.5 * log_marginal(lin, pre);
            match &g {
                Some(g)
                    if base.abs() <= RANGE && pre.iter().map(|x| x.abs()).sum::<f64>() <= RANGE =>
                {
                    row_by_products(&mut row, libm::exp(base), pre, g)
                }
                _ => row_by_logs(&mut row, base, pre, &half_small),
            }
            f(&row);
        });
    }

    fn rows(&self, f: impl FnMut(&[f64])) {
        match &self.kept {
            Some(all) => all.chunks_exact(self.dim()).for_each(f),
            None => self.compute_rows(f),
        }
    }

    /// y ← Kᵀ K x.
    fn apply(&self, x: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        self.rows(|row| {
            let t: f64 = row.iter().zip(x).map(|(a, b)| a * b).sum();
            y.iter_mut().zip(row).for_each(|(y, a)| *y += t * a);
        });
    }
}

/// λ₂ of the visible Gibbs chain and its relaxation time, exact up to the Lanczos method's
/// convergence (10⁻¹³ relative), for m + n ≤ [`MAX_MIXING_BITS`] (see the module's text).
pub fn gibbs_lambda2(rbm: &Rbm) -> Result<GibbsSpectrum> {
    let mut walk = MixingWalk::new(rbm)?;
    while !walk.done() {
        walk.advance(usize::MAX);
    }
    Ok(walk.result())
}

/// [`gibbs_lambda2`] a few Lanczos steps at a time (each step walks the 2^(m+n) joint states
/// once), for a shell that computes between time slices with progress and cancel: the same
/// numbers in any slicing.
pub struct MixingWalk {
    kernel: Kernel,
    lanczos: Lanczos,
}

impl MixingWalk {
    /// Ready to walk; refuses a model beyond [`MAX_MIXING_BITS`] or with a non-finite parameter.
    pub fn new(rbm: &Rbm) -> Result<MixingWalk> {
        check_mixing(rbm)?;
        if let Some(what) = rbm.non_finite() {
            return Err(Error::Invalid(format!("the model has a {what} parameter")));
        }
        let kernel = Kernel::new(rbm);
        let dim = kernel.dim();
        let mut lse = LogSumExp::default();
        kernel.log_small.iter().for_each(|&x| lse.add(x));
        let log_z = lse.value();
        let top: Vec<f64> = kernel
            .log_small
            .iter()
            .map(|&x| libm::exp(0.5 * (x - log_z)))
            .collect();
        let mut r = stream(0, 0, Purpose::Aux);
        let start: Vec<f64> = (0..dim).map(|_| uniform_f64(&mut r) - 0.5).collect();
        let steps = MAX_LANCZOS_STEPS.min(MAX_BASIS_VALUES / dim).max(8);
        Ok(MixingWalk {
            lanczos: Lanczos::new(dim, &top, &start, steps, 1e-13),
            kernel,
        })
    }

    /// Takes up to `max_steps` more Lanczos steps; returns whether it is done.
    pub fn advance(&mut self, max_steps: usize) -> bool {
        for _ in 0..max_steps {
            if self.lanczos.done() {
                break;
            }
            let k = &self.kernel;
            self.lanczos.step(|x, y| k.apply(x, y));
        }
        self.lanczos.done()
    }

    /// Whether it has converged (or reached its step limit).
    pub fn done(&self) -> bool {
        self.lanczos.done()
    }

    /// Steps taken, and the most it may take (for progress).
    pub fn progress(&self) -> (usize, usize) {
        (self.lanczos.steps(), self.lanczos.max_steps())
    }

    /// λ₂ and the relaxation time (the estimate so far before [`MixingWalk::done`]).
    pub fn result(&self) -> GibbsSpectrum {
        let got = self.lanczos.result();
        let lambda2 = got.value.clamp(0.0, 1.0);
        GibbsSpectrum {
            lambda2,
            relaxation_time: 1.0 / (1.0 - lambda2),
            lanczos_steps: got.steps,
        }
    }
}

/// The number of modes of p(v): visible states v with F(v) < F(v ⊕ e_i) for every unit i (a
/// strict local maximum of p(v) under single-unit flips), for m ≤ [`MAX_DIST_BITS`].
pub fn modes(rbm: &Rbm) -> Result<u64> {
    let m = rbm.m();
    check_enumerable(m, MAX_DIST_BITS, "the modes of p(v)")?;
    let mut lp = vec![0.0; 1 << m];
    walk(&view(rbm, Layer::Visible), 0, 1 << m, |code, lin, pre| {
        lp[code as usize] = log_marginal(lin, pre)
    });
    Ok((0..lp.len())
        .filter(|&v| (0..m).all(|i| lp[v] > lp[v ^ (1 << i)]))
        .count() as u64)
}

/// The singular values of W and its top two singular directions.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WeightSpectrum {
    /// All min(m, n) singular values of W (m × n), descending.
    pub values: Vec<f64>,
    /// The left singular vectors u₁, u₂ (length m, in the visible space; zero where W has a
    /// single singular value), each signed so that its entries sum to ≥ 0.
    pub visible: [Vec<f64>; 2],
    /// The matching right singular vectors v₁, v₂ (length n, hidden space), signed with them.
    pub hidden: [Vec<f64>; 2],
}

/// [`WeightSpectrum`] of `rbm`'s W by the one-sided Jacobi SVD ([`super::linalg::svd`]), f64.
pub fn weight_spectrum(rbm: &Rbm) -> WeightSpectrum {
    let (m, n) = (rbm.m(), rbm.n());
    let w: Vec<f64> = rbm.w().iter().map(|&x| x as f64).collect();
    let s = svd(&w, m, n);
    let r = m.min(n);
    let col = |a: &[f64], len: usize, j: usize| -> Vec<f64> {
        if j < r {
            (0..len).map(|i| a[i * r + j]).collect()
        } else {
            vec![0.0; len]
        }
    };
    let mut visible = [col(&s.u, m, 0), col(&s.u, m, 1)];
    let mut hidden = [col(&s.v, n, 0), col(&s.v, n, 1)];
    for j in 0..2 {
        if visible[j].iter().sum::<f64>() < 0.0 {
            visible[j].iter_mut().for_each(|x| *x = -*x);
            hidden[j].iter_mut().for_each(|x| *x = -*x);
        }
    }
    WeightSpectrum {
        values: s.values,
        visible,
        hidden,
    }
}

/// The projections `(x·u₁, x·u₂)` of visible rows `rows` (rows × m: data or chains) on the top
/// two left singular directions of W ([`WeightSpectrum::visible`]).
pub fn project(rows: &[f32], ws: &WeightSpectrum) -> Vec<[f64; 2]> {
    let m = ws.visible[0].len();
    rows.chunks_exact(m)
        .map(|x| {
            let d = |u: &[f64]| x.iter().zip(u).map(|(&a, b)| a as f64 * b).sum::<f64>();
            [d(&ws.visible[0]), d(&ws.visible[1])]
        })
        .collect()
}

/// Everything `rbm mixing` prints for one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diagnostics {
    /// λ₂ and the relaxation time of the visible Gibbs chain, exact (m + n ≤
    /// [`MAX_MIXING_BITS`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub gibbs: Option<GibbsSpectrum>,
    /// A lower bound on λ₂ from test functions ([`super::mixing_bound`]): beyond the exact
    /// kernel, or when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<GibbsBound>,
    /// The singular values of W, descending.
    pub singular_values: Vec<f64>,
    /// The number of modes of p(v).
    pub modes: u64,
}

/// [`Diagnostics`] of a model with at most [`MAX_DIST_BITS`] visible units: λ₂ exactly within
/// [`MAX_MIXING_BITS`], and the bound on it beyond (or also, with `bound`), which needs each
/// layer within [`MAX_DIST_BITS`]; a model beyond both is refused, naming the limits.
pub fn diagnose(rbm: &Rbm, bound: bool) -> Result<Diagnostics> {
    check_enumerable(rbm.m(), MAX_DIST_BITS, "the modes of p(v)")?;
    let exact = check_mixing(rbm).is_ok();
    if !exact {
        check_bound(rbm).map_err(|e| {
            Error::TooLarge(format!(
                "{e}; the exact λ₂ is limited to m + n ≤ {MAX_MIXING_BITS}"
            ))
        })?;
    }
    Ok(Diagnostics {
        gibbs: if exact {
            Some(gibbs_lambda2(rbm)?)
        } else {
            None
        },
        bound: if bound || !exact {
            Some(gibbs_lambda2_bound(rbm)?)
        } else {
            None
        },
        singular_values: weight_spectrum(rbm).values,
        modes: modes(rbm)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::decode;
    use crate::diagnostics::linalg::symmetric_eigen;

    /// p(h_j = 1 | v) and p(v_i = 1 | h) straight from the parameters, f64.
    fn cond(bias: f64, w: impl Iterator<Item = f64>) -> f64 {
        1.0 / (1.0 + (-(bias + w.sum::<f64>())).exp())
    }

    /// The visible chain's T(v→v′) formed explicitly as Σ_h p(h|v) p(v′|h), 2^m × 2^m.
    fn transition(rbm: &Rbm) -> Vec<f64> {
        let (m, n) = (rbm.m(), rbm.n());
        let w = rbm.w();
        let states = |bits: usize| (0..1usize << bits).map(move |c| decode(c as u64, bits));
        let p_h_given_v = |v: &[f32], h: &[f32]| -> f64 {
            (0..n)
                .map(|j| {
                    let p = cond(
                        rbm.c[j] as f64,
                        (0..m).map(|i| v[i] as f64 * w[i * n + j] as f64),
                    );
                    if h[j] == 1.0 {
                        p
                    } else {
                        1.0 - p
                    }
                })
                .product()
        };
        let p_v_given_h = |h: &[f32], v: &[f32]| -> f64 {
            (0..m)
                .map(|i| {
                    let p = cond(
                        rbm.b[i] as f64,
                        (0..n).map(|j| h[j] as f64 * w[i * n + j] as f64),
                    );
                    if v[i] == 1.0 {
                        p
                    } else {
                        1.0 - p
                    }
                })
                .product()
        };
        let size = 1 << m;
        let mut t = vec![0.0; size * size];
        for (a, v) in states(m).enumerate() {
            for (b, v2) in states(m).enumerate() {
                t[a * size + b] = states(n)
                    .map(|h| p_h_given_v(&v, &h) * p_v_given_h(&h, &v2))
                    .sum();
            }
        }
        t
    }

    /// λ₂ by a dense eigen-decomposition of the explicitly formed T, symmetrised with p(v).
    fn dense_lambda2(rbm: &Rbm) -> f64 {
        let m = rbm.m();
        let size = 1 << m;
        let t = transition(rbm);
        let p = crate::eval::exact::model_distribution(rbm).unwrap();
        for a in 0..size {
            let row: f64 = t[a * size..(a + 1) * size].iter().sum();
            assert!((row - 1.0).abs() < 1e-12, "rows of T sum to 1");
            for b in 0..size {
                let (x, y) = (p[a] * t[a * size + b], p[b] * t[b * size + a]);
                assert!(
                    (x - y).abs() < 1e-12 * x.max(y).max(1e-300),
                    "detailed balance"
                );
            }
        }
        let s: Vec<f64> = (0..size * size)
            .map(|k| {
                let (a, b) = (k / size, k % size);
                (p[a] / p[b]).sqrt() * t[k]
            })
            .collect();
        let sym: Vec<f64> = (0..size * size)
            .map(|k| 0.5 * (s[k] + s[(k % size) * size + k / size]))
            .collect();
        let (mut vals, _) = symmetric_eigen(&sym, size);
        vals.sort_by(|a, b| b.abs().total_cmp(&a.abs()));
        assert!(
            (vals[0] - 1.0).abs() < 1e-10,
            "the top eigenvalue is 1: {}",
            vals[0]
        );
        assert!(
            vals.iter().all(|&x| x > -1e-10),
            "T has no negative eigenvalue"
        );
        vals[1].abs()
    }

    #[test]
    fn lambda2_equals_the_dense_eigen_decomposition_of_the_explicit_transition_matrix() {
        for (m, n, scale, seed) in [
            (4, 3, 1.0, 1),
            (6, 4, 1.5, 2),
            (3, 5, 2.0, 3),
            (5, 5, 0.5, 4),
            (2, 1, 3.0, 5),
        ] {
            let rbm = Rbm::random(m, n, scale, seed).unwrap();
            let want = dense_lambda2(&rbm);
            let got = gibbs_lambda2(&rbm).unwrap();
            assert!(
                (got.lambda2 - want).abs() < 1e-9,
                "{m}×{n}: Lanczos {} vs dense {want}",
                got.lambda2
            );
            assert!((got.relaxation_time - 1.0 / (1.0 - want)).abs() < 1e-6 * got.relaxation_time);
            assert!(
                want > 1e-3,
                "{m}×{n}: a model that is not trivially mixed ({want})"
            );
        }
    }

    #[test]
    fn a_walk_in_slices_gives_the_bits_of_one_call() {
        let rbm = Rbm::random(7, 5, 2.0, 12).unwrap();
        let whole = gibbs_lambda2(&rbm).unwrap();
        for slice in [1, 3] {
            let mut w = MixingWalk::new(&rbm).unwrap();
            let mut calls = 0;
            while !w.advance(slice) {
                calls += 1;
                let (done, most) = w.progress();
                assert!(done <= most && done == calls * slice, "{done} of {most}");
            }
            assert_eq!(w.result(), whole, "slices of {slice}");
        }
        assert!(
            whole.lanczos_steps > 3,
            "several slices: {}",
            whole.lanczos_steps
        );
    }

    #[test]
    fn the_transposed_model_has_the_same_lambda2() {
        let rbm = Rbm::random(5, 3, 1.5, 7).unwrap();
        let (m, n) = (rbm.m(), rbm.n());
        let mut p = crate::model::Params::zeros(n, m);
        for i in 0..m {
            for j in 0..n {
                p.w[j * m + i] = rbm.w()[i * n + j];
            }
        }
        p.b = rbm.c.clone();
        p.c = rbm.b.clone();
        let t = Rbm::from_params(n, m, p).unwrap();
        let (a, b) = (gibbs_lambda2(&rbm).unwrap(), gibbs_lambda2(&t).unwrap());
        assert!(
            (a.lambda2 - b.lambda2).abs() < 1e-10,
            "{} vs {}",
            a.lambda2,
            b.lambda2
        );
    }

    #[test]
    fn without_weights_one_sweep_is_an_exact_draw_so_lambda2_is_zero() {
        let mut rbm = Rbm::random(5, 4, 1.0, 11).unwrap();
        rbm.edit_w(|w| w.fill(0.0));
        assert!(dense_lambda2(&rbm) < 1e-12, "T(v→v′) = p(v′): rank one");
        let g = gibbs_lambda2(&rbm).unwrap();
        assert!(g.lambda2 < 1e-12, "{}", g.lambda2);
        assert!((g.relaxation_time - 1.0).abs() < 1e-12);
    }

    #[test]
    fn larger_weights_mix_more_slowly() {
        let base = Rbm::random(6, 4, 1.0, 3).unwrap();
        let lambda = |s: f32| {
            let mut r = base.clone();
            r.edit(|w, b, c| {
                w.iter_mut().for_each(|x| *x *= s);
                b.iter_mut().for_each(|x| *x *= s);
                c.iter_mut().for_each(|x| *x *= s);
            });
            gibbs_lambda2(&r).unwrap().lambda2
        };
        assert!(lambda(0.5) < lambda(1.0) && lambda(1.0) < lambda(3.0));
    }

    #[test]
    fn rows_by_products_equal_rows_by_logs() {
        let rbm = Rbm::random(6, 5, 1.5, 9).unwrap();
        let k = Kernel::new(&rbm);
        let half: Vec<f64> = k.log_small.iter().map(|&x| 0.5 * x).collect();
        let g: Vec<f64> = half.iter().map(|&x| (-x).exp()).collect();
        let (mut a, mut b) = (vec![0.0; 32], vec![0.0; 32]);
        let mut rows = 0;
        walk(&k.large, 0, 1 << 6, |_, lin, pre| {
            let base = lin - 0.5 * log_marginal(lin, pre);
            row_by_logs(&mut a, base, pre, &half);
            row_by_products(&mut b, base.exp(), pre, &g);
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-13 * x.max(1e-300), "{x} vs {y}");
            }
            rows += 1;
        });
        assert_eq!(rows, 64);
    }

    #[test]
    fn the_rows_of_k_are_the_same_kept_or_computed() {
        let rbm = Rbm::random(4, 3, 1.0, 2).unwrap();
        let k = Kernel::new(&rbm);
        let kept = k.kept.clone().unwrap();
        let mut again = Vec::new();
        k.compute_rows(|r| again.extend_from_slice(r));
        assert_eq!(kept, again);
        assert!(kept.iter().all(|&x| (0.0..=1.0 + 1e-12).contains(&x)));
        assert_eq!(kept.len(), 16 * 8);
        // Kᵀ K √p(h) = √p(h): the top eigenvector, eigenvalue 1.
        let lse = k.log_small.iter().fold(LogSumExp::default(), |mut a, &x| {
            a.add(x);
            a
        });
        let top: Vec<f64> = k
            .log_small
            .iter()
            .map(|&x| (0.5 * (x - lse.value())).exp())
            .collect();
        let mut y = vec![0.0; 8];
        k.apply(&top, &mut y);
        for (a, b) in y.iter().zip(&top) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    #[test]
    fn modes_equal_a_brute_force_count_over_free_energies() {
        for (m, n, scale, seed) in [
            (6, 3, 3.0, 1),
            (8, 4, 4.0, 2),
            (5, 6, 2.0, 3),
            (9, 2, 6.0, 4),
        ] {
            let rbm = Rbm::random(m, n, scale, seed).unwrap();
            let f: Vec<f64> = (0..1u64 << m)
                .map(|c| rbm.free_energy(&decode(c, m)))
                .collect();
            let want = (0..f.len())
                .filter(|&v| (0..m).all(|i| f[v] < f[v ^ (1 << i)]))
                .count() as u64;
            assert_eq!(modes(&rbm).unwrap(), want, "{m}×{n}");
            assert!(want >= 1, "a distribution's most probable state is a mode");
        }
        let e = modes(&Rbm::random(MAX_DIST_BITS + 1, 1, 0.1, 1).unwrap()).unwrap_err();
        assert!(e.to_string().contains("2^20"), "{e}");
    }

    #[test]
    fn singular_values_square_to_the_eigenvalues_of_w_transpose_w_and_projections_use_u() {
        let rbm = Rbm::random(7, 4, 1.0, 5).unwrap();
        let (m, n) = (7, 4);
        let w: Vec<f64> = rbm.w().iter().map(|&x| x as f64).collect();
        let wtw: Vec<f64> = (0..n * n)
            .map(|k| (0..m).map(|i| w[i * n + k / n] * w[i * n + k % n]).sum())
            .collect();
        let (mut eig, _) = symmetric_eigen(&wtw, n);
        eig.reverse();
        let ws = weight_spectrum(&rbm);
        assert_eq!(ws.values.len(), 4);
        for (s, e) in ws.values.iter().zip(&eig) {
            assert!((s * s - e).abs() < 1e-10, "{s}² vs {e}");
        }
        // W v₁ = σ₁ u₁, and u₁'s entries sum to ≥ 0.
        for i in 0..m {
            let wv: f64 = (0..n).map(|j| w[i * n + j] * ws.hidden[0][j]).sum();
            assert!((wv - ws.values[0] * ws.visible[0][i]).abs() < 1e-10);
        }
        assert!(ws.visible[0].iter().sum::<f64>() >= 0.0);
        let rows = [1.0f32, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0];
        let p = project(&rows, &ws);
        let want: f64 = [0, 2, 3, 6].iter().map(|&i| ws.visible[1][i]).sum();
        assert!((p[0][1] - want).abs() < 1e-12);
    }

    #[test]
    fn too_large_models_are_refused_naming_the_limit() {
        let e = gibbs_lambda2(&Rbm::random(16, 9, 0.1, 1).unwrap()).unwrap_err();
        assert!(e.to_string().contains("m + n ≤ 24"), "{e}");
    }
}

//! A lower bound on the Gibbs kernel's second eigenvalue λ₂ for models beyond the exact kernel
//! ([`super::spectrum::MAX_MIXING_BITS`]) whose layers can each be enumerated — Bars & Stripes
//! 4×4 with 16 hidden units (2^32 joint states) — computed exactly in f64 (issue 29).
//!
//! **Why it is a bound.** The visible chain T(v→v′) = Σ_h p(h|v) p(v′|h) is self-adjoint and
//! positive semi-definite on L²(p(v)), its top eigenvalue 1 with the constants, so λ₂ is the
//! largest Rayleigh quotient over functions f with E_p[f] = 0 (Levin, Peres & Wilmer, *Markov
//! Chains and Mixing Times*, Remark 13.8), where
//!
//! `⟨f, T f⟩_p = Σ_h p(h) E[f(v) | h]²`  and  `⟨f, f⟩_p = E_p[f(v)²]`.
//!
//! Over any finite family of test functions the largest quotient — a generalised symmetric
//! eigenproblem (Rayleigh–Ritz) — is a lower bound on λ₂, reached when the family spans λ₂'s
//! eigenfunction. The hidden chain has the same non-zero eigenvalues (the module text of
//! [`super::spectrum`]), so test functions of h bound λ₂ too, with the roles of the layers
//! swapped; the bound is the larger of the two.
//!
//! **The test functions** are the monomials of degree 1 and 2 of a layer's units (v_i and
//! v_i v_k): given the other layer the units are independent, so `E[v_i v_k | h] = σ_i σ_k`
//! with σ_i = p(v_i = 1 | h), and both quadratic forms are sums over the states of one layer
//! at a time: `A = Σ_h p(h) φ(h) φ(h)ᵀ` with φ the conditional means of the monomials, and
//! `B = Σ_v p(v) f(v) f(v)ᵀ` with f the monomials themselves (0 or 1). Degree 2 tells Bars from
//! Stripes (their pixels' means are equal; their pairs are not). A layer of L units has L
//! monomials of degree 1 and L(L−1)/2 of degree 2; degree 2 is used where the sum over the
//! other layer stays within [`DENSE_BUDGET`], degree 1 otherwise. With a layer of at most two
//! units the monomials span every function of it and the bound is λ₂ itself (tested).

use super::linalg::symmetric_eigen;
use crate::error::{Error, Result};
use crate::eval::exact::{check_enumerable, log_marginal, log_z, view, walk, Layer, MAX_DIST_BITS};
use crate::model::Rbm;
use serde::Serialize;

/// Most multiply-adds the sum of one layer's φφᵀ may take (states of the other layer × the
/// triangle of the features' products) for degree 2 to be used: 16×16 takes about 6·10⁸.
pub const DENSE_BUDGET: f64 = (1u64 << 30) as f64;

/// States whose √p·φ are gathered before they are added to A (a row of A stays in the cache
/// while a block's states are added to it, rather than A passing through it per state).
const BLOCK: usize = 32;

/// Eigen-directions of the test functions' covariance B below this fraction of its largest
/// eigenvalue are left out (functions that are nearly constant under p, where rounding would
/// dominate the quotient).
const COVARIANCE_FLOOR: f64 = 1e-9;

/// A lower bound on λ₂ of the visible Gibbs chain, from test functions of one layer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GibbsBound {
    /// λ₂ ≥ this: the largest Rayleigh quotient of T over the test functions.
    pub lambda2_lower: f64,
    /// 1/(1 − lambda2_lower): the relaxation time is at least this many sweeps.
    pub relaxation_time_lower: f64,
    /// The layer whose test functions gave the bound: `"visible"` or `"hidden"`.
    #[cfg_attr(feature = "ts", ts(type = "'visible' | 'hidden'"))]
    pub layer: &'static str,
    /// Their largest degree (1 or 2).
    pub degree: u8,
    /// How many test functions that layer had.
    pub functions: usize,
}

/// Refuses [`gibbs_lambda2_bound`] of a model with a layer beyond [`MAX_DIST_BITS`] units.
pub fn check_bound(rbm: &Rbm) -> Result<()> {
    let what = "the bound on λ₂ (a sum over each layer's states)";
    check_enumerable(rbm.m(), MAX_DIST_BITS, what)?;
    check_enumerable(rbm.n(), MAX_DIST_BITS, what)
}

/// [`GibbsBound`] of `rbm` in one call (see the module's text).
pub fn gibbs_lambda2_bound(rbm: &Rbm) -> Result<GibbsBound> {
    let mut walk = BoundWalk::new(rbm)?;
    while !walk.advance(u64::MAX) {}
    walk.result()
}

/// The monomials of one layer's units as bit masks over its states.
struct Monomials {
    /// Unit pairs; a monomial of degree 1 is the pair (i, i).
    units: Vec<(usize, usize)>,
    masks: Vec<u64>,
    degree: u8,
}

impl Monomials {
    fn new(len: usize, other_states: f64) -> Monomials {
        // Degree 2's functions, and the triangle of their products summed per state.
        let functions = len * (len + 1) / 2;
        let degree = if other_states * (functions * (functions + 1) / 2) as f64 <= DENSE_BUDGET {
            2
        } else {
            1
        };
        let mut units: Vec<(usize, usize)> = (0..len).map(|i| (i, i)).collect();
        if degree == 2 {
            units.extend((0..len).flat_map(|i| (i + 1..len).map(move |k| (i, k))));
        }
        let masks = units.iter().map(|&(i, k)| (1 << i) | (1 << k)).collect();
        Monomials {
            units,
            masks,
            degree,
        }
    }

    fn len(&self) -> usize {
        self.units.len()
    }
}

/// The sums of one layer's test functions.
struct Side {
    name: &'static str,
    monomials: Monomials,
    /// Σ p(y) φ(y) φ(y)ᵀ over the other layer's states y (upper triangle, row-major).
    a: Vec<f64>,
    /// Σ p(y) φ(y): the functions' means.
    mean: Vec<f64>,
    /// Σ p(x) f(x) f(x)ᵀ over this layer's states x (upper triangle, row-major).
    b: Vec<f64>,
    /// The states gathered for A: √p·φ_a of state r at `block[r·d + a]`.
    block: Vec<f64>,
    gathered: usize,
}

impl Side {
    fn new(name: &'static str, monomials: Monomials) -> Side {
        let d = monomials.len();
        Side {
            name,
            monomials,
            a: vec![0.0; d * d],
            mean: vec![0.0; d],
            b: vec![0.0; d * d],
            block: vec![0.0; d * BLOCK],
            gathered: 0,
        }
    }

    /// Adds a state of the other layer with probability `p` and this layer's conditional means
    /// `sigma`: to the means at once, to A with its block (every [`BLOCK`] states, and at the
    /// end of the layer, [`Side::flush`]), so the sums' order is the states' in any slicing.
    fn add_dense(&mut self, p: f64, sigma: &[f64]) {
        let (d, root) = (self.monomials.len(), p.sqrt());
        let row = &mut self.block[self.gathered * d..(self.gathered + 1) * d];
        for (a, &(i, k)) in self.monomials.units.iter().enumerate() {
            let phi = if i == k {
                sigma[i]
            } else {
                sigma[i] * sigma[k]
            };
            self.mean[a] += p * phi;
            row[a] = root * phi;
        }
        self.gathered += 1;
        if self.gathered == BLOCK {
            self.flush();
        }
    }

    /// Adds the gathered states to A: `A_ab += Σ_r (√p φ_a)(√p φ_b)`.
    fn flush(&mut self) {
        let (d, g) = (self.monomials.len(), self.gathered);
        if g == 0 {
            return;
        }
        for a in 0..d {
            let out = &mut self.a[a * d + a..(a + 1) * d];
            for x in self.block[..g * d].chunks_exact(d) {
                let s = x[a];
                out.iter_mut().zip(&x[a..]).for_each(|(o, &y)| *o += s * y);
            }
        }
        self.gathered = 0;
    }

    /// Adds a state `code` of this layer with probability `p`.
    fn add_sparse(&mut self, p: f64, code: u64, active: &mut Vec<usize>) {
        active.clear();
        active.extend(
            (0..self.monomials.len())
                .filter(|&a| code & self.monomials.masks[a] == self.monomials.masks[a]),
        );
        let d = self.monomials.len();
        for (t, &a) in active.iter().enumerate() {
            for &b in &active[t..] {
                self.b[a * d + b] += p;
            }
        }
    }

    /// The largest generalised Rayleigh quotient of (A − μμᵀ, B − μμᵀ) over the directions where
    /// B − μμᵀ is not negligible.
    fn quotient(&self) -> f64 {
        let d = self.monomials.len();
        let full = |u: &[f64]| -> Vec<f64> {
            let mut c = vec![0.0; d * d];
            for i in 0..d {
                for j in i..d {
                    let x = u[i * d + j] - self.mean[i] * self.mean[j];
                    c[i * d + j] = x;
                    c[j * d + i] = x;
                }
            }
            c
        };
        let (a, b) = (full(&self.a), full(&self.b));
        let (vals, vecs) = symmetric_eigen(&b, d);
        let top = vals.iter().cloned().fold(0.0, f64::max);
        if top <= 0.0 {
            return 0.0;
        }
        // Columns of Q Λ^{−1/2} for the kept directions.
        let kept: Vec<usize> = (0..d)
            .filter(|&j| vals[j] > COVARIANCE_FLOOR * top)
            .collect();
        let r = kept.len();
        let mut q = vec![0.0; d * r];
        for (c, &j) in kept.iter().enumerate() {
            let s = 1.0 / vals[j].sqrt();
            for i in 0..d {
                q[i * r + c] = vecs[i * d + j] * s;
            }
        }
        // M = Qᵀ A Q (r × r).
        let mut aq = vec![0.0; d * r];
        for i in 0..d {
            for k in 0..d {
                let x = a[i * d + k];
                if x != 0.0 {
                    aq[i * r..(i + 1) * r]
                        .iter_mut()
                        .zip(&q[k * r..(k + 1) * r])
                        .for_each(|(o, &y)| *o += x * y);
                }
            }
        }
        let mut m = vec![0.0; r * r];
        for i in 0..d {
            for c in 0..r {
                let x = q[i * r + c];
                m[c * r..(c + 1) * r]
                    .iter_mut()
                    .zip(&aq[i * r..(i + 1) * r])
                    .for_each(|(o, &y)| *o += x * y);
            }
        }
        let (mv, _) = symmetric_eigen(&m, r);
        mv.iter().cloned().fold(0.0, f64::max)
    }
}

/// [`gibbs_lambda2_bound`] a number of states at a time, for a shell that computes between
/// time slices with progress and cancel: the same numbers in any slicing. It walks the hidden
/// states (the visible functions' A, the hidden functions' B), then the visible states.
pub struct BoundWalk {
    rbm: Rbm,
    log_z: f64,
    visible: Side,
    hidden: Side,
    /// States walked so far over both layers (hidden first).
    at: u64,
    active: Vec<usize>,
}

impl BoundWalk {
    /// Ready to walk; refuses a model with a layer beyond [`MAX_DIST_BITS`] or a non-finite
    /// parameter.
    pub fn new(rbm: &Rbm) -> Result<BoundWalk> {
        check_bound(rbm)?;
        if let Some(what) = rbm.non_finite() {
            return Err(Error::Invalid(format!("the model has a {what} parameter")));
        }
        let (m, n) = (rbm.m(), rbm.n());
        Ok(BoundWalk {
            log_z: log_z(rbm)?,
            visible: Side::new("visible", Monomials::new(m, (1u64 << n) as f64)),
            hidden: Side::new("hidden", Monomials::new(n, (1u64 << m) as f64)),
            rbm: rbm.clone(),
            at: 0,
            active: Vec::new(),
        })
    }

    /// States to walk in all: 2^n + 2^m.
    pub fn total(&self) -> u64 {
        (1u64 << self.rbm.n()) + (1u64 << self.rbm.m())
    }

    /// States walked so far.
    pub fn done_states(&self) -> u64 {
        self.at
    }

    /// Walks up to `max_states` more states; returns whether every state is walked.
    pub fn advance(&mut self, max_states: u64) -> bool {
        let hidden_states = 1u64 << self.rbm.n();
        let mut budget = max_states;
        while budget > 0 && self.at < self.total() {
            let (layer, base, len) = if self.at < hidden_states {
                (Layer::Hidden, 0, hidden_states)
            } else {
                (Layer::Visible, hidden_states, 1u64 << self.rbm.m())
            };
            let start = self.at - base;
            let end = len.min(start.saturating_add(budget));
            self.walk_range(layer, start, end);
            if end == len {
                match layer {
                    Layer::Hidden => self.visible.flush(),
                    Layer::Visible => self.hidden.flush(),
                }
            }
            budget -= end - start;
            self.at = base + end;
        }
        self.at >= self.total()
    }

    fn walk_range(&mut self, layer: Layer, start: u64, end: u64) {
        let v = view(&self.rbm, layer);
        let (dense, sparse) = match layer {
            Layer::Hidden => (&mut self.visible, &mut self.hidden),
            Layer::Visible => (&mut self.hidden, &mut self.visible),
        };
        let (log_z, active) = (self.log_z, &mut self.active);
        let mut sigma = vec![0.0; v.l];
        walk(&v, start, end, |code, lin, pre| {
            let p = libm::exp(log_marginal(lin, pre) - log_z);
            sigma
                .iter_mut()
                .zip(pre)
                .for_each(|(s, &a)| *s = 1.0 / (1.0 + libm::exp(-a)));
            dense.add_dense(p, &sigma);
            sparse.add_sparse(p, code, active);
        });
    }

    /// The bound once every state is walked.
    pub fn result(&self) -> Result<GibbsBound> {
        if self.at < self.total() {
            return Err(Error::Invalid("the bound on λ₂ has not finished".into()));
        }
        let (v, h) = (self.visible.quotient(), self.hidden.quotient());
        let side = if v >= h { &self.visible } else { &self.hidden };
        let lambda2_lower = v.max(h).clamp(0.0, 1.0);
        Ok(GibbsBound {
            lambda2_lower,
            relaxation_time_lower: 1.0 / (1.0 - lambda2_lower),
            layer: side.name,
            degree: side.monomials.degree,
            functions: side.monomials.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::spectrum::gibbs_lambda2;

    #[test]
    fn the_bound_never_exceeds_the_exact_lambda2() {
        for (m, n, scale, seed) in [
            (4, 3, 1.0, 1),
            (6, 4, 1.5, 2),
            (3, 5, 2.0, 3),
            (5, 5, 0.5, 4),
            (8, 6, 2.5, 5),
            (7, 7, 3.0, 6),
            (10, 5, 1.0, 7),
        ] {
            let rbm = Rbm::random(m, n, scale, seed).unwrap();
            let exact = gibbs_lambda2(&rbm).unwrap().lambda2;
            let b = gibbs_lambda2_bound(&rbm).unwrap();
            assert!(
                b.lambda2_lower <= exact + 1e-9,
                "{m}×{n}: bound {} above λ₂ {exact}",
                b.lambda2_lower
            );
            // Seen: within 1.5 % on these (0.447 against 0.453 on 8×6 the farthest).
            assert!(
                b.lambda2_lower > 0.95 * exact,
                "{m}×{n}: a tight bound: {} against {exact}",
                b.lambda2_lower
            );
            assert_eq!(b.degree, 2);
        }
    }

    #[test]
    fn with_a_layer_of_two_units_the_bound_is_lambda2() {
        for (m, n, scale, seed) in [
            (6, 2, 2.0, 1),
            (2, 7, 2.5, 2),
            (9, 1, 3.0, 3),
            (1, 4, 1.0, 4),
        ] {
            let rbm = Rbm::random(m, n, scale, seed).unwrap();
            let exact = gibbs_lambda2(&rbm).unwrap().lambda2;
            let b = gibbs_lambda2_bound(&rbm).unwrap();
            assert!(
                (b.lambda2_lower - exact).abs() < 1e-8,
                "{m}×{n}: bound {} vs λ₂ {exact}",
                b.lambda2_lower
            );
            assert!(exact > 1e-3, "{m}×{n}: not trivially mixed ({exact})");
        }
    }

    #[test]
    fn a_walk_in_slices_gives_the_bits_of_one_call() {
        let rbm = Rbm::random(7, 6, 2.0, 12).unwrap();
        let whole = gibbs_lambda2_bound(&rbm).unwrap();
        for slice in [1, 37, 100] {
            let mut w = BoundWalk::new(&rbm).unwrap();
            while !w.advance(slice) {
                assert!(w.done_states() < w.total());
                assert!(w.result().is_err());
            }
            assert_eq!(w.result().unwrap(), whole, "slices of {slice}");
        }
    }

    #[test]
    fn without_weights_the_bound_is_zero() {
        let mut rbm = Rbm::random(5, 4, 1.0, 11).unwrap();
        rbm.edit_w(|w| w.fill(0.0));
        let b = gibbs_lambda2_bound(&rbm).unwrap();
        assert!(b.lambda2_lower < 1e-12, "{}", b.lambda2_lower);
        assert!((b.relaxation_time_lower - 1.0).abs() < 1e-12);
    }

    #[test]
    fn degree_one_beyond_the_budget_and_layers_beyond_the_enumeration_refused() {
        let big = Monomials::new(20, (1u64 << 20) as f64);
        assert_eq!((big.degree, big.len()), (1, 20));
        let small = Monomials::new(16, (1u64 << 16) as f64);
        assert_eq!((small.degree, small.len()), (2, 136));
        let rbm = Rbm::random(21, 3, 1.0, 1).unwrap();
        let e = BoundWalk::new(&rbm).err().unwrap().to_string();
        assert!(e.contains("2^21"), "{e}");
    }
}

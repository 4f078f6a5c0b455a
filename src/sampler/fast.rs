//! The chain the rates-FPCD paper's samplers share (Breuleux, Bengio & Vincent 2011, §3–4 and
//! its Algorithm 1, reconstructed in docs/algorithms.md §5): one persistent chain that runs
//! under θ⁻ = θ + θ_F, where after every emitted sample x⁻ the fast parameters move away from
//! it and towards the rates R:
//!
//! `θ_F ← α·θ_F + ε_F·(R − s(x⁻))`, with `s(x) = (x·E[h|x]ᵀ, x, E[h|x])` under θ⁻.
//!
//! - rates-FPCD ([`super::rates_fpcd`]): Gibbs sweeps, R the training set's positive statistics;
//! - rates-herding ([`super::rates_herding`]): deterministic steps to a fixed point, same update;
//! - sample penalisation ([`super::sp`]): Gibbs sweeps, R = 0 and α < 1.

use super::{Sampler, SamplerSetup};
use crate::error::Result;
use crate::math::{one_plus_exp_neg, sigmoid};
use crate::model::{sample_in_place, Params};
use crate::rng::Rng;

/// How the chain moves between two updates of θ_F.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `k` block-Gibbs sweeps under θ⁻.
    Gibbs {
        /// Sweeps per emitted sample.
        k: usize,
    },
    /// Deterministic steps h = 1{c⁻ + W⁻ᵀx > 0}, x = 1{b⁻ + W⁻h > 0} until x is a fixed point
    /// or `cap` steps were made (Welling's herding, the paper's rates-herding).
    Herding {
        /// Most steps per emitted sample.
        cap: usize,
    },
}

/// A weight matrix in both layouts the chain reads: W (m×n, a row per visible unit) and Wᵀ
/// (n×m, a row per hidden unit).
#[derive(Clone, Debug)]
struct Both {
    w: Vec<f32>,
    wt: Vec<f32>,
}

impl Both {
    fn new(w: &[f32], m: usize, n: usize) -> Both {
        let mut wt = vec![0.0; m * n];
        for (i, row) in w.chunks_exact(n).enumerate() {
            for (j, &x) in row.iter().enumerate() {
                wt[j * m + i] = x;
            }
        }
        Both { w: w.to_vec(), wt }
    }
}

/// `out = bias + Σ_{k ∈ active} (a_k + s·b_k + r·c_k)` over rows k of width `out.len()`, the
/// terms of a row added per entry in that order and the rows in `active`'s order; a missing
/// matrix contributes nothing. With `b` and `c` absent (or zero) this is the sum the model's
/// own kernels form — bias first, then the selected rows in index order — bit for bit.
fn sum_rows(
    out: &mut [f32],
    bias: &[f32],
    active: &[usize],
    a: &[f32],
    b: Option<(&[f32], f32)>,
    c: Option<(&[f32], f32)>,
) {
    let w = out.len();
    out.copy_from_slice(bias);
    for &k in active {
        let ra = &a[k * w..(k + 1) * w];
        match (b, c) {
            (None, None) => out.iter_mut().zip(ra).for_each(|(o, &x)| *o += x),
            (Some((b, s)), None) => {
                let rb = &b[k * w..(k + 1) * w];
                out.iter_mut()
                    .zip(ra.iter().zip(rb))
                    .for_each(|(o, (&x, &y))| *o += x + s * y)
            }
            (None, Some((c, r))) => {
                let rc = &c[k * w..(k + 1) * w];
                out.iter_mut()
                    .zip(ra.iter().zip(rc))
                    .for_each(|(o, (&x, &z))| *o += x + r * z)
            }
            (Some((b, s)), Some((c, r))) => {
                let (rb, rc) = (&b[k * w..(k + 1) * w], &c[k * w..(k + 1) * w]);
                out.iter_mut()
                    .zip(ra.iter().zip(rb.iter().zip(rc)))
                    .for_each(|(o, (&x, (&y, &z)))| *o += x + s * y + r * z)
            }
        }
    }
}

/// The indices of the non-zero entries of a 0/1 state.
fn active_units(x: &[f32], out: &mut Vec<usize>) {
    out.clear();
    out.extend(
        x.iter()
            .enumerate()
            .filter(|(_, &v)| v != 0.0)
            .map(|(i, _)| i),
    );
}

/// The cost of a fast-parameter sampler stepping by `steps` ([`super::SamplerCost`]): a step
/// sums A and R (or B) on each active row; each sample updates θ_F; a chain starts with A and R
/// copied and transposed, and W kept.
pub const fn cost(steps: fn(&super::SamplerConfig) -> (f64, &'static str)) -> super::SamplerCost {
    super::SamplerCost {
        weight_sets: 2.0,
        fast_update: true,
        build_sets: 12.0,
        steps,
    }
}

/// Below this scale σ the decayed sample part is folded back (σ·B → B, σ = 1), long before
/// f32 would lose it.
const MIN_SCALE: f32 = 1e-12;

/// One chain under θ⁻ = θ + θ_F with the fast-parameter update of the rates-FPCD paper.
///
/// The fast weights are kept as W_F = (A − W) + σ·B + ρ·R: the update
/// `W_F ← α·W_F + ε_F·(R − x·hpᵀ)` only changes the scalars σ ← α·σ and ρ ← α·ρ + ε_F and the
/// rows of the active visible units (−ε_F·x·hpᵀ goes into A when α = 1, into B/σ otherwise),
/// so a sample costs sparse row sums, not a pass over every weight. The biases are updated
/// directly.
pub struct FastChain {
    step: Step,
    eps_f: f32,
    alpha: f32,
    m: usize,
    n: usize,
    /// W plus the sample part of W_F when α = 1 (else W).
    a: Both,
    /// The sample part of W_F divided by σ (α < 1 only).
    b: Option<Both>,
    /// R_W (`None`: rates 0).
    r: Option<Both>,
    r_b: Vec<f32>,
    r_c: Vec<f32>,
    sigma: f32,
    rho: f32,
    /// b + b_F and c + c_F, updated directly.
    b_minus: Vec<f32>,
    c_minus: Vec<f32>,
    /// The bias parts of θ_F.
    b_fast: Vec<f32>,
    c_fast: Vec<f32>,
    /// θ's W, b and c.
    w0: Vec<f32>,
    b0: Vec<f32>,
    c0: Vec<f32>,
    v: Vec<f32>,
    h: Vec<f32>,
    hp: Vec<f32>,
    t: Vec<f32>,
    on_v: Vec<usize>,
    on_h: Vec<usize>,
}

impl FastChain {
    /// A chain at `s.start` under θ (θ_F = 0) moving by `step`; `use_rates` false means R = 0.
    pub fn new(s: &SamplerSetup, step: Step, use_rates: bool) -> Result<FastChain> {
        let (m, n) = (s.model.m(), s.model.n());
        let alpha = s.cfg.alpha()? as f32;
        let rates = if use_rates { s.rates } else { None };
        Ok(FastChain {
            step,
            eps_f: s.cfg.eps_f()? as f32,
            alpha,
            m,
            n,
            a: Both::new(s.model.w(), m, n),
            b: (alpha != 1.0).then(|| Both {
                w: vec![0.0; m * n],
                wt: vec![0.0; m * n],
            }),
            r: rates.map(|r| Both::new(&r.w, m, n)),
            r_b: rates.map_or_else(|| vec![0.0; m], |r| r.b.clone()),
            r_c: rates.map_or_else(|| vec![0.0; n], |r| r.c.clone()),
            sigma: 1.0,
            rho: 0.0,
            b_minus: s.model.b.clone(),
            c_minus: s.model.c.clone(),
            b_fast: vec![0.0; m],
            c_fast: vec![0.0; n],
            w0: s.model.w().to_vec(),
            b0: s.model.b.clone(),
            c0: s.model.c.clone(),
            v: s.start.to_vec(),
            h: vec![0.0; n],
            hp: vec![0.0; n],
            t: vec![0.0; n],
            on_v: Vec::new(),
            on_h: Vec::new(),
        })
    }

    /// θ_F now: W_F = (A − W) + σ·B + ρ·R and the bias parts.
    pub fn fast_params(&self) -> Params<f32> {
        let w = (0..self.m * self.n)
            .map(|k| {
                let mut x = self.a.w[k] - self.w0[k];
                if let Some(b) = &self.b {
                    x += self.sigma * b.w[k];
                }
                if let Some(r) = &self.r {
                    x += self.rho * r.w[k];
                }
                x
            })
            .collect();
        Params {
            w,
            b: self.b_fast.clone(),
            c: self.c_fast.clone(),
        }
    }

    /// c⁻ + W⁻ᵀx for the current x into `out`.
    fn hidden_pre(&mut self, out: &mut [f32]) {
        active_units(&self.v, &mut self.on_v);
        let b = self.b.as_ref().map(|b| (&b.w[..], self.sigma));
        let r = self.r.as_ref().map(|r| (&r.w[..], self.rho));
        sum_rows(out, &self.c_minus, &self.on_v, &self.a.w, b, r);
    }

    /// b⁻ + W⁻h for the current h into `out`.
    fn visible_pre(&mut self, out: &mut [f32]) {
        active_units(&self.h, &mut self.on_h);
        let b = self.b.as_ref().map(|b| (&b.wt[..], self.sigma));
        let r = self.r.as_ref().map(|r| (&r.wt[..], self.rho));
        sum_rows(out, &self.b_minus, &self.on_h, &self.a.wt, b, r);
    }

    fn gibbs_sweep(&mut self, rng: &mut Rng) {
        let mut h = std::mem::take(&mut self.h);
        self.hidden_pre(&mut h);
        sample_in_place(&mut h, None, rng);
        self.h = h;
        let mut v = std::mem::take(&mut self.v);
        self.visible_pre(&mut v);
        sample_in_place(&mut v, None, rng);
        self.v = v;
    }

    /// Deterministic steps from the current x to a fixed point or the cap.
    fn herd(&mut self, cap: usize) {
        let mut x = vec![0.0f32; self.m];
        let mut h = std::mem::take(&mut self.h);
        for _ in 0..cap {
            self.hidden_pre(&mut h);
            h.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
            self.h = std::mem::take(&mut h);
            self.visible_pre(&mut x);
            h = std::mem::take(&mut self.h);
            x.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
            let fixed = x == self.v;
            std::mem::swap(&mut x, &mut self.v);
            if fixed {
                break;
            }
        }
        self.h = h;
    }

    /// θ_F ← α·θ_F + ε_F·(R − s(x⁻)), s with E[h|x⁻] under θ⁻.
    fn update(&mut self) {
        let mut hp = std::mem::take(&mut self.hp);
        self.hidden_pre(&mut hp);
        one_plus_exp_neg(&hp, &mut self.t);
        hp.iter_mut().zip(&self.t).for_each(|(p, &t)| *p = 1.0 / t);
        let (a, e) = (self.alpha, self.eps_f);
        // The weights' sample part, on the rows of the active visible units.
        self.sigma *= a;
        self.rho = a * self.rho + e;
        let (m, n) = (self.m, self.n);
        let (target, k) = match &mut self.b {
            Some(b) => (b, e / self.sigma),
            None => (&mut self.a, e),
        };
        for &i in &self.on_v {
            target.w[i * n..(i + 1) * n]
                .iter_mut()
                .zip(&hp)
                .for_each(|(w, &p)| *w -= k * p);
        }
        for (j, &p) in hp.iter().enumerate() {
            let row = &mut target.wt[j * m..(j + 1) * m];
            for &i in &self.on_v {
                row[i] -= k * p;
            }
        }
        if self.sigma < MIN_SCALE {
            if let Some(b) = &mut self.b {
                let s = self.sigma;
                b.w.iter_mut().chain(b.wt.iter_mut()).for_each(|x| *x *= s);
                self.sigma = 1.0;
            }
        }
        // The biases directly: b_F ← α·b_F + ε(R_b − x), c_F ← α·c_F + ε(R_c − hp).
        for (i, f) in self.b_fast.iter_mut().enumerate() {
            *f = a * *f + e * (self.r_b[i] - self.v[i]);
            self.b_minus[i] = self.b0[i] + *f;
        }
        for (j, f) in self.c_fast.iter_mut().enumerate() {
            *f = a * *f + e * (self.r_c[j] - hp[j]);
            self.c_minus[j] = self.c0[j] + *f;
        }
        self.hp = hp;
    }
}

impl Sampler for FastChain {
    fn next(&mut self, rng: &mut Rng) {
        match self.step {
            Step::Gibbs { k } => (0..k).for_each(|_| self.gibbs_sweep(rng)),
            Step::Herding { cap } => self.herd(cap),
        }
        self.update();
    }

    fn visible(&self) -> &[f32] {
        &self.v
    }

    fn mean(&self, out: &mut [f32]) {
        let mut on = Vec::new();
        active_units(&self.h, &mut on);
        let b = self.b.as_ref().map(|b| (&b.wt[..], self.sigma));
        let r = self.r.as_ref().map(|r| (&r.wt[..], self.rho));
        sum_rows(out, &self.b_minus, &on, &self.a.wt, b, r);
        out.iter_mut().for_each(|x| *x = sigmoid(*x));
    }

    fn fast_norm(&self) -> f64 {
        self.fast_params()
            .w
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt()
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    use super::*;
    use crate::model::Rbm;
    use crate::rng::{stream, Purpose};
    use crate::sampler::SamplerConfig;

    /// The paper's update written out, the reference for the lazy form.
    /// `f ← α·f + ε·(R − s(x))` with `s(x) = (x·hpᵀ, x, hp)`; `rates` `None` stands for R = 0. Each
    /// weight is read and written once; rows of inactive visible units skip the product.
    fn fast_step(
        f: &mut Params<f32>,
        rates: Option<&Params<f32>>,
        x: &[f32],
        hp: &[f32],
        alpha: f32,
        eps: f32,
    ) {
        let (a, e) = (alpha, eps);
        let n = hp.len();
        let rate = |blk: &[f32], k: usize| rates.map_or(0.0, |_| blk[k]);
        let (rw, rb, rc): (&[f32], &[f32], &[f32]) = match rates {
            Some(r) => (&r.w, &r.b, &r.c),
            None => (&[], &[], &[]),
        };
        for (i, (row, &xi)) in f.w.chunks_exact_mut(n).zip(x).enumerate() {
            let r = if rates.is_some() {
                &rw[i * n..(i + 1) * n]
            } else {
                &[][..]
            };
            match (xi != 0.0, rates.is_some()) {
                (true, true) => row
                    .iter_mut()
                    .zip(r)
                    .zip(hp)
                    .for_each(|((w, &rw), &hj)| *w = a * *w + e * (rw - hj)),
                (false, true) => row
                    .iter_mut()
                    .zip(r)
                    .for_each(|(w, &rw)| *w = a * *w + e * rw),
                (true, false) => row
                    .iter_mut()
                    .zip(hp)
                    .for_each(|(w, &hj)| *w = a * *w - e * hj),
                (false, false) => row.iter_mut().for_each(|w| *w *= a),
            }
        }
        for (i, (b, &xi)) in f.b.iter_mut().zip(x).enumerate() {
            *b = a * *b + e * (rate(rb, i) - xi);
        }
        for (j, (c, &hj)) in f.c.iter_mut().zip(hp).enumerate() {
            *c = a * *c + e * (rate(rc, j) - hj);
        }
    }

    /// The update θ_F ← α·θ_F + ε_F·(R − s(x)) entry by entry, with and without rates.
    #[test]
    fn the_fast_step_is_the_papers_update() {
        let (m, n) = (5, 3);
        let mut rng = stream(2, 0, Purpose::Aux);
        let mut f = Params::zeros(m, n);
        let mut r = Params::zeros(m, n);
        for p in [&mut f, &mut r] {
            for blk in p.blocks_mut() {
                blk.iter_mut()
                    .for_each(|x| *x = crate::rng::normal(&mut rng) as f32);
            }
        }
        let x = [1.0, 0.0, 1.0, 1.0, 0.0];
        let hp = [0.25, 0.5, 0.75];
        let (a, e) = (0.9f32, 0.1f32);
        for rates in [Some(&r), None] {
            let mut g = f.clone();
            fast_step(&mut g, rates, &x, &hp, a, e);
            let rv = |blk: &[f32], k: usize| rates.map_or(0.0, |_| blk[k]);
            for i in 0..m {
                for j in 0..n {
                    let want = a * f.w[i * n + j] + e * (rv(&r.w, i * n + j) - x[i] * hp[j]);
                    assert!((g.w[i * n + j] - want).abs() < 1e-6);
                }
                assert!((g.b[i] - (a * f.b[i] + e * (rv(&r.b, i) - x[i]))).abs() < 1e-6);
            }
            for j in 0..n {
                assert!((g.c[j] - (a * f.c[j] + e * (rv(&r.c, j) - hp[j]))).abs() < 1e-6);
            }
        }
    }

    /// After every emitted sample, the lazily kept θ_F equals the paper's update applied to
    /// the same samples (with E[h|x⁻] under θ + θ_F), for rates-FPCD (α = 1), SP (R = 0,
    /// α < 1, through a fold of σ) and rates with α < 1.
    #[test]
    fn the_lazy_fast_parameters_follow_the_papers_update() {
        let (m, n) = (10, 6);
        let model = Rbm::random(m, n, 0.7, 4).unwrap();
        let mut rng = stream(5, 0, Purpose::Aux);
        let mut rates = Params::zeros(m, n);
        for blk in rates.blocks_mut() {
            blk.iter_mut()
                .for_each(|x| *x = crate::rng::uniform(&mut rng));
        }
        for (name, alpha, use_rates) in [
            ("rates-fpcd", 1.0, true),
            ("sp", 0.3, false),
            ("rates-fpcd", 0.9, true),
        ] {
            let cfg = SamplerConfig {
                sampler: name.into(),
                eps_f: Some(0.05),
                alpha: Some(alpha),
                ..SamplerConfig::default()
            };
            let setup = SamplerSetup {
                model: &model,
                cfg: &cfg,
                rates: Some(&rates),
                start: &[1.0; 10],
            };
            let mut chain = FastChain::new(&setup, Step::Gibbs { k: 1 }, use_rates).unwrap();
            let mut reference = Params::zeros(m, n);
            let mut srng = stream(6, 0, Purpose::Sampling);
            for step in 0..60 {
                chain.next(&mut srng);
                let x = chain.visible().to_vec();
                // E[h|x] under θ + θ_F before this update, in f64.
                let hp: Vec<f32> = (0..n)
                    .map(|j| {
                        let mut a = (model.c[j] + reference.c[j]) as f64;
                        for i in 0..m {
                            a += x[i] as f64
                                * (model.w()[i * n + j] + reference.w[i * n + j]) as f64;
                        }
                        (1.0 / (1.0 + (-a).exp())) as f32
                    })
                    .collect();
                fast_step(
                    &mut reference,
                    use_rates.then_some(&rates),
                    &x,
                    &hp,
                    alpha as f32,
                    0.05,
                );
                let got = chain.fast_params();
                for ((name_, a), (_, b)) in got.blocks().iter().zip(reference.blocks().iter()) {
                    for (k, (p, q)) in a.iter().zip(b.iter()).enumerate() {
                        assert!(
                            (p - q).abs() < 2e-4,
                            "{name} α={alpha} step {step} {name_}[{k}]: {p} vs {q}"
                        );
                    }
                }
            }
        }
    }
}

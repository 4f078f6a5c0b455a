//! The RBM-specialised maximal coupling of two block-Gibbs chains (Qiu, Zhang & Wang 2020,
//! Algorithm 3 and Appendix A.2; docs/algorithms.md §4, UCD).
//!
//! Two chains ξ = (v, h) and η = (v′, h′) advance together, (ξ_t, η_{t−1}) → (ξ_{t+1}, η_t).
//! Each keeps the law of a plain Gibbs chain, while the new visible states coincide with the
//! largest possible probability, 1 − TV(T_v(·|h_t), T_v(·|h′_{t−1})) (lines 1–3). When they
//! do not, both are drawn from the residual laws by rejection with common uniforms Z₂
//! (lines 5–13), and the hidden states with common uniforms Z₃ (lines 15–16), which keeps the
//! chains close and shortens the meeting time (Appendix A.2).
//!
//! Ratios are formed in log space. With a = W h + b and thresholds t_i = 1 + e^{−a_i} (those
//! that sampling uses: unit i is on iff u·t_i < 1), log σ(a_i) = −ln t_i and
//! log σ(−a_i) = −a_i − ln t_i, so for a′ = W h′ + b, δ = a′ − a:
//! `L(v) = log T_v(v|h′) − log T_v(v|h) = Σ_i v_i δ_i − K` with
//! `K = Σ_i δ_i + ln Π_i t′_i − ln Π_i t_i`, computed once per step with a single logarithm
//! (the products are kept in f64 with their binary exponents split off). Every decision is
//! plain f32/f64 arithmetic, [`fast_exp`] and `libm` — no `exp`/`ln` from std — so a seed gives
//! the same chains natively and in wasm.

use crate::engine::cpu::kernels::bernoulli_row_key;
use crate::math::fast_exp;
use crate::model::Rbm;
use crate::rng::{fill_uniform, uniform, Rng};

/// Most rounds of the rejection loop (lines 5–13) in one step. Each round accepts each chain's
/// proposal with probability TV (the total-variation distance of the two conditionals) and the
/// loop is entered with probability TV, so the cap is reached with probability below
/// 2·TV·(1 − TV)^cap ≤ 2/(e·cap) ≈ 7·10⁻⁶ per step whatever TV is. It guards against an endless
/// loop when rounding makes the two conditionals numerically indistinguishable; at the cap the
/// current proposals are kept (as the authors' code does after its `max_try` = 10 rounds).
pub const MAX_ROUNDS: u32 = 100_000;

/// What one coupled visible step did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepInfo {
    /// The new visible states are equal: v_{t+1} = v′_t (the chains have met, or stay met).
    pub met: bool,
    /// Rejection rounds beyond the first (0 when the shared proposal of line 2 was accepted):
    /// the count the authors' code reports as discarded samples (`maxcoup_v_update` returns the
    /// index of the round in which both chains were accepted).
    pub rejections: u32,
    /// Visible vectors drawn: the proposal of line 1 plus every proposal of the rejection loop.
    pub proposals: u32,
    /// The new visible states v_{t+1} and v′_t as patterns (bit i = unit i, first 64 units).
    pub keys: [u64; 2],
}

/// Scratch space for coupled steps of an m×n RBM (no allocation per step).
#[derive(Clone, Debug)]
pub struct Coupling {
    /// Visible pre-activations W h + b of the ξ chain and W h′ + b of the η chain.
    a: Vec<f32>,
    a_eta: Vec<f32>,
    /// Bernoulli thresholds 1 + e^{−a}: a unit is on iff u·t < 1 (= u < σ(a)).
    t: Vec<f32>,
    t_eta: Vec<f32>,
    /// δ_i = a′_i − a_i (exact in f64).
    delta: Vec<f64>,
    /// Common uniforms (Z₁ and Z₂ for the visible layer, Z₃ for the hidden layer).
    z: Vec<f32>,
    zh: Vec<f32>,
    /// Hidden thresholds 1 + e^{−(Wᵀv + c)} of the new states v_{t+1} and v′_t.
    g: Vec<f32>,
    g_eta: Vec<f32>,
}

/// `u < e^l`: the event of probability min(1, e^l) for a uniform u (24-bit, as in sampling).
#[inline(always)]
fn below(u: f32, l: f64) -> bool {
    l >= 0.0 || u < fast_exp(l as f32)
}

/// Σ_i x_i·y_i in a fixed order with four independent partial sums, so the loop vectorises and
/// the result is the same on every target.
#[inline(always)]
fn dot4(x: &[f32], y: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (cx, cy) = (x.chunks_exact(4), y.chunks_exact(4));
    let (rx, ry) = (cx.remainder(), cy.remainder());
    for (x, y) in cx.zip(cy) {
        for k in 0..4 {
            acc[k] += x[k] as f64 * y[k];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (&x, &y) in rx.iter().zip(ry) {
        s += x as f64 * y;
    }
    s
}

/// Below this pre-activation the threshold 1 + e^{−a} would reach [`fast_exp`]'s clamp at
/// e^{87}; there ln(1 + e^{−a}) = −a to within e^{a} < 10⁻³⁴ and is added instead of multiplied.
const EXTREME: f32 = -80.0;

/// Splits the binary exponent off a positive normal `p`: returns p·2^{−e} ∈ [1, 2) and adds e
/// to `exp` (exact, integer arithmetic on the bits).
#[inline(always)]
fn renormalise(p: f64, exp: &mut i64) -> f64 {
    let bits = p.to_bits();
    *exp += ((bits >> 52) & 0x7ff) as i64 - 1023;
    f64::from_bits((bits & !(0x7ff << 52)) | (1023 << 52))
}

/// Replaces pre-activations by Bernoulli thresholds 1 + e^{−a}.
#[inline]
fn to_thresholds(a: &[f32], t: &mut [f32]) {
    t.iter_mut()
        .zip(a)
        .for_each(|(t, &a)| *t = 1.0 + fast_exp(-a));
}

/// `x = 1{z < σ(a)}` written as `z·t < 1` with t = 1 + e^{−a} (as `math::bernoulli`);
/// returns x as a pattern (first 64 units).
#[inline]
fn propose(z: &[f32], t: &[f32], x: &mut [f32]) -> u64 {
    let n = x.len();
    bernoulli_row_key(x, &z[..n], &t[..n])
}

/// Π_i t_i of a conditional's Bernoulli thresholds t = 1 + e^{−a}, leaving out the extreme
/// units (a_i < `EXTREME`, whose ln t_i = −a_i is added to K instead), as a mantissa in
/// [1, 16) and a binary exponent: the part of K (see `log_norm`) that depends on one
/// chain's conditional alone, so a table of patterns computes it once per pattern. Four
/// independent lanes (unit i in lane i mod 4), in a fixed order of operations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThresholdProduct {
    mantissa: f64,
    exp: i64,
}

impl ThresholdProduct {
    /// The product of the thresholds `t` of the pre-activations `a`.
    #[inline]
    pub fn of(a: &[f32], t: &[f32]) -> ThresholdProduct {
        let m = a.len();
        let t = &t[..m];
        let factor = |i: usize| if a[i] < EXTREME { 1.0 } else { t[i] as f64 };
        let mut prod = [1.0f64; 4];
        let mut exp = 0i64;
        let full = m / 4 * 4;
        for c in (0..full).step_by(4) {
            for (k, p) in prod.iter_mut().enumerate() {
                *p *= factor(c + k);
            }
            // Each threshold is below 2^116, so eight per lane stay below f64's 2^1024.
            if c % 32 == 28 {
                for p in &mut prod {
                    *p = renormalise(*p, &mut exp);
                }
            }
        }
        for i in full..m {
            prod[i - full] *= factor(i);
        }
        let mut mantissa = 1.0f64;
        for p in prod {
            mantissa *= renormalise(p, &mut exp);
        }
        ThresholdProduct { mantissa, exp }
    }
}

/// One chain's visible conditional T_v(·|h) as the coupling reads it: the pre-activations
/// a = W h + b, the thresholds 1 + e^{−a} and their [`ThresholdProduct`].
#[derive(Clone, Copy, Debug)]
pub struct Conditional<'a> {
    /// a = W h + b.
    pub pre: &'a [f32],
    /// 1 + e^{−a}.
    pub thr: &'a [f32],
    /// Π t_i ([`ThresholdProduct::of`] `pre` and `thr`).
    pub product: ThresholdProduct,
}

impl<'a> Conditional<'a> {
    /// The conditional of pre-activations `pre` and thresholds `thr`, its product computed.
    #[inline]
    pub fn new(pre: &'a [f32], thr: &'a [f32]) -> Conditional<'a> {
        Conditional {
            pre,
            thr,
            product: ThresholdProduct::of(pre, thr),
        }
    }
}

/// K = Σ_i ln t′_i − ln t_i + δ_i for the pre-activations a (ξ) and b (η) and their thresholds
/// t and t′ of the current step, with δ = b − a written into `delta`, so that
/// L(v) = Σ_i v_i δ_i − K: the sums in four independent lanes (unit i in lane i mod 4), the
/// products from the conditionals' [`ThresholdProduct`]s, and a single logarithm.
#[inline]
fn log_norm(xi: &Conditional<'_>, eta: &Conditional<'_>, delta: &mut [f64]) -> f64 {
    let (a, b) = (xi.pre, eta.pre);
    let m = a.len();
    let (b, delta) = (&b[..m], &mut delta[..m]);
    // Per lane: Σ δ_i, with ln t = −a folded in for extreme units.
    let mut sum = [0.0f64; 4];
    let mut unit = |i: usize, k: usize| {
        let (ai, bi) = (a[i] as f64, b[i] as f64);
        let (xa, xb) = (a[i] < EXTREME, b[i] < EXTREME);
        delta[i] = bi - ai;
        sum[k] += (bi - ai) + if xa { ai } else { 0.0 } - if xb { bi } else { 0.0 };
    };
    let full = m / 4 * 4;
    for c in (0..full).step_by(4) {
        for k in 0..4 {
            unit(c + k, k);
        }
    }
    for i in full..m {
        unit(i, i - full);
    }
    let (p, p_eta) = (xi.product, eta.product);
    ((sum[0] + sum[1]) + (sum[2] + sum[3]))
        + libm::log(p_eta.mantissa / p.mantissa)
        + (p_eta.exp - p.exp) as f64 * std::f64::consts::LN_2
}

/// L(v) = log T_v(v|h′) − log T_v(v|h)
/// = Σ_i v_i (a′_i − a_i) − Σ_i [softplus(a′_i) − softplus(a_i)], from δ and K of
/// [`log_norm`].
#[inline(always)]
fn log_ratio(v: &[f32], delta: &[f64], log_norm: f64) -> f64 {
    dot4(v, delta) - log_norm
}

/// Lines 1–14 of Algorithm 3 from the visible conditional of ξ (`xi`, of h_t) and, unless
/// h_t = h′_{t−1} (`None`), of η; `z` and `delta` are scratch.
/// Random numbers, in order: Z₁ (m), then unless h = h′: U₁, then per rejection round Z₂ (m),
/// U₂, U₂′.
fn coupled_visible(
    (z, delta): (&mut [f32], &mut [f64]),
    rng: &mut Rng,
    xi: Conditional<'_>,
    eta: Option<Conditional<'_>>,
    v: &mut [f32],
    v_eta: &mut [f32],
) -> StepInfo {
    let t = xi.thr;
    // Line 1: v_{t+1} = 1{Z₁ ≤ σ(W h_t + b)}.
    fill_uniform(rng, z);
    let mut key = propose(z, t, v);
    let Some(eta) = eta else {
        // Equal conditionals: the ratio of line 2 is 1 and the proposal is always shared.
        v_eta.copy_from_slice(v);
        return StepInfo {
            met: true,
            rejections: 0,
            proposals: 1,
            keys: [key; 2],
        };
    };
    let t_eta = eta.thr;
    let log_norm = log_norm(&xi, &eta, delta);
    // Lines 2–3: share the proposal with probability min(1, T_v(v|h′)/T_v(v|h)).
    let u1 = uniform(rng);
    if below(u1, log_ratio(v, delta, log_norm)) {
        v_eta.copy_from_slice(v);
        return StepInfo {
            met: true,
            rejections: 0,
            proposals: 1,
            keys: [key; 2],
        };
    }
    // Lines 5–13: draw both from their residual laws, with common uniforms Z₂.
    let mut proposals = 1;
    let (mut xi_done, mut eta_done) = (false, false);
    let mut rounds = 0;
    let mut key_eta = 0;
    while !(xi_done && eta_done) && rounds < MAX_ROUNDS {
        rounds += 1;
        fill_uniform(rng, z);
        let (u2, u2_eta) = (uniform(rng), uniform(rng));
        if !xi_done {
            key = propose(z, t, v);
            proposals += 1;
            // Accept if U₂ > T_v(v|h′)/T_v(v|h).
            xi_done = !below(u2, log_ratio(v, delta, log_norm));
        }
        if !eta_done {
            key_eta = propose(z, t_eta, v_eta);
            proposals += 1;
            // Accept if U₂′ > T_v(v′|h)/T_v(v′|h′).
            eta_done = !below(u2_eta, -log_ratio(v_eta, delta, log_norm));
        }
    }
    StepInfo {
        met: v == v_eta,
        rejections: rounds - 1,
        proposals,
        keys: [key, key_eta],
    }
}

impl Coupling {
    /// Scratch space for an m×n model.
    pub fn new(m: usize, n: usize) -> Coupling {
        Coupling {
            a: vec![0.0; m],
            a_eta: vec![0.0; m],
            t: vec![0.0; m],
            t_eta: vec![0.0; m],
            delta: vec![0.0; m],
            z: vec![0.0; m],
            zh: vec![0.0; n],
            g: vec![0.0; n],
            g_eta: vec![0.0; n],
        }
    }

    /// Lines 1–14 of Algorithm 3: the coupled visible update. `h` is h_t (the ξ chain), `h_eta`
    /// is h′_{t−1}; `v` receives v_{t+1} ~ T_v(·|h_t) and `v_eta` receives v′_t ~ T_v(·|h′_{t−1}).
    /// Random numbers, in order: Z₁ (m), then unless h = h′: U₁, then per rejection round Z₂ (m),
    /// U₂, U₂′.
    pub fn step_visible(
        &mut self,
        model: &Rbm,
        rng: &mut Rng,
        h: &[f32],
        h_eta: &[f32],
        v: &mut [f32],
        v_eta: &mut [f32],
    ) -> StepInfo {
        model.visible_pre(h, &mut self.a);
        to_thresholds(&self.a, &mut self.t);
        let same = h == h_eta;
        if !same {
            model.visible_pre(h_eta, &mut self.a_eta);
            to_thresholds(&self.a_eta, &mut self.t_eta);
        }
        let Coupling {
            a,
            a_eta,
            t,
            t_eta,
            delta,
            z,
            ..
        } = self;
        let xi = Conditional::new(a, t);
        let eta = (!same).then(|| Conditional::new(a_eta, t_eta));
        coupled_visible((z, delta), rng, xi, eta, v, v_eta)
    }

    /// [`Coupling::step_visible`] from the visible conditional of ξ (`xi`) and, unless
    /// h_t = h′_{t−1} (`None`), that of η — for chains run in lockstep, whose conditionals are
    /// computed for a whole block of chains at once (once per pattern). The same random numbers
    /// and the same decisions.
    pub fn step_visible_from_thresholds(
        &mut self,
        rng: &mut Rng,
        xi: Conditional<'_>,
        eta: Option<Conditional<'_>>,
        v: &mut [f32],
        v_eta: &mut [f32],
    ) -> StepInfo {
        coupled_visible((&mut self.z, &mut self.delta), rng, xi, eta, v, v_eta)
    }

    /// Lines 15–16 of Algorithm 3: h_{t+1} = 1{Z₃ ≤ σ(Wᵀv_{t+1} + c)} and
    /// h′_t = 1{Z₃ ≤ σ(Wᵀv′_t + c)} with common uniforms Z₃ (n of them).
    pub fn step_hidden(
        &mut self,
        model: &Rbm,
        rng: &mut Rng,
        v: &[f32],
        v_eta: &[f32],
        h: &mut [f32],
        h_eta: &mut [f32],
    ) {
        model.hidden_pre(v, &mut self.g);
        self.g.iter_mut().for_each(|x| *x = 1.0 + fast_exp(-*x));
        if v == v_eta {
            self.g_eta.copy_from_slice(&self.g);
        } else {
            model.hidden_pre(v_eta, &mut self.g_eta);
            self.g_eta.iter_mut().for_each(|x| *x = 1.0 + fast_exp(-*x));
        }
        fill_uniform(rng, &mut self.zh);
        propose(&self.zh, &self.g, h);
        propose(&self.zh, &self.g_eta, h_eta);
    }

    /// [`Coupling::step_hidden`] from the hidden thresholds 1 + e^{−g} of g = Wᵀv_{t+1} + c
    /// (`t`) and g′ = Wᵀv′_t + c (`t_eta`; the same slice when v_{t+1} = v′_t), computed for a
    /// block of chains at once. The same random numbers and the same states, returned as
    /// patterns too (first 64 units).
    pub fn step_hidden_from_thresholds(
        &mut self,
        rng: &mut Rng,
        t: &[f32],
        t_eta: &[f32],
        h: &mut [f32],
        h_eta: &mut [f32],
    ) -> [u64; 2] {
        fill_uniform(rng, &mut self.zh);
        [propose(&self.zh, t, h), propose(&self.zh, t_eta, h_eta)]
    }

    /// One full coupled step (ξ_t, η_{t−1}) → (ξ_{t+1}, η_t) of Algorithm 3, in place:
    /// [`Coupling::step_visible`] then [`Coupling::step_hidden`]. Once the chains have met
    /// (equal states) they stay equal.
    pub fn step(
        &mut self,
        model: &Rbm,
        rng: &mut Rng,
        (v, h): (&mut [f32], &mut [f32]),
        (v_eta, h_eta): (&mut [f32], &mut [f32]),
    ) -> StepInfo {
        let info = self.step_visible(model, rng, h, h_eta, v, v_eta);
        self.step_hidden(model, rng, v, v_eta, h, h_eta);
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::log_sigmoid;
    use crate::rng::{index, normal, stream, Purpose};

    #[test]
    fn log_ratio_matches_libm_even_for_extreme_pre_activations() {
        let mut cp = Coupling::new(12, 1);
        let mut r = stream(9, 0, Purpose::Aux);
        // Beyond ±87 the thresholds 1 + e^{−a} reach fast_exp's clamp.
        let extremes = [-120.0f32, -85.0, -79.9, -30.0, 30.0, 95.0];
        for trial in 0..200 {
            for (a, b) in cp.a.iter_mut().zip(cp.a_eta.iter_mut()) {
                *a = (4.0 * normal(&mut r)) as f32;
                *b = *a + (2.0 * normal(&mut r)) as f32;
                if trial % 2 == 0 && uniform(&mut r) < 0.5 {
                    *a = extremes[index(&mut r, extremes.len())];
                    *b = extremes[index(&mut r, extremes.len())];
                }
            }
            to_thresholds(&cp.a, &mut cp.t);
            to_thresholds(&cp.a_eta, &mut cp.t_eta);
            let (xi, eta) = (
                Conditional::new(&cp.a, &cp.t),
                Conditional::new(&cp.a_eta, &cp.t_eta),
            );
            let log_norm = log_norm(&xi, &eta, &mut cp.delta);
            for _ in 0..10 {
                let v: Vec<f32> = (0..12)
                    .map(|_| f32::from(u8::from(uniform(&mut r) < 0.5)))
                    .collect();
                let want: f64 = v
                    .iter()
                    .zip(cp.a.iter().zip(&cp.a_eta))
                    .map(|(&x, (&a, &b))| {
                        let (a, b) = (a as f64, b as f64);
                        if x == 1.0 {
                            log_sigmoid(b) - log_sigmoid(a)
                        } else {
                            log_sigmoid(-b) - log_sigmoid(-a)
                        }
                    })
                    .sum();
                let got = log_ratio(&v, &cp.delta, log_norm);
                // f32 thresholds carry a relative error of ~10⁻⁷ each.
                assert!(
                    (got - want).abs() < 1e-5 * (1.0 + want.abs()),
                    "{got} {want} {:?} {:?}",
                    cp.a,
                    cp.a_eta
                );
            }
        }
    }
}

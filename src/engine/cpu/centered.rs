//! The centered parameterisation shared by CG and CS-DCP (not an algorithm): Melchior, Fischer
//! & Wiskott 2016, "How to center deep Boltzmann machines", Algorithm 1 in its dd^b_s variant,
//! as the S-DCP paper uses it (Upadhya & Sastry 2017, §4 and Algorithm 4; docs/algorithms.md §4).
//!
//! With offsets μ (visible) and λ (hidden) the energy is
//!
//! ```text
//! E(v, h) = −(v − μ)ᵀ W (h − λ) − (v − μ)ᵀ b̃ − (h − λ)ᵀ c̃
//! p(h_j = 1 | v) = σ(c̃_j + ((v − μ)ᵀ W)_j)          (Algorithm 4's σ((v−μ)ᵀW + c))
//! p(v_i = 1 | h) = σ(b̃_i + (W (h − λ))_i)
//! ```
//!
//! which is the plain RBM (W, b, c) with b = b̃ − Wλ and c = c̃ − Wᵀμ (the energies differ by a
//! constant, so the distributions are equal). Per mini-batch V (N rows):
//!
//! ```text
//! μ_batch = column mean of V                  (the data batch, "d" for μ)
//! λ_batch = column mean of E[h|V] under θ_t   (hidden probabilities on the data batch, "d" for λ)
//! b̃ ← b̃ + ν_λ W (λ_batch − λ)                 (re-parameterisation: the plain model is unchanged
//! c̃ ← c̃ + ν_μ Wᵀ(μ_batch − μ)                  by the offset move that follows)
//! μ ← (1 − ν_μ) μ + ν_μ μ_batch               (sliding averages, "s")
//! λ ← (1 − ν_λ) λ + ν_λ λ_batch
//! ∇W  = (V − μ)(H − λ)ᵀ/N − (V_n − μ)(H_n − λ)ᵀ/N_n      (both phases with the new offsets)
//! ∇b̃ = mean(V) − mean(V_n),  ∇c̃ = mean(H) − mean(H_n)
//! θ̃  ← θ̃ + η ∇                                 (through the shared optimizer)
//! ```
//!
//! where H = E[h|V] and H_n = E[h|V_n] for the negative samples V_n. The centered parameters
//! (W, b̃, c̃) are authoritative; after every step they are converted to the plain model the lane
//! evaluates, exports and samples ([`Centered::to_plain`]). The chains run under the plain model,
//! whose conditionals equal the centered ones (up to f32 rounding).
//!
//! The shared optimizer steps the centered parameters, so the gradient it records (what
//! `Lane::last_gradient` and `rbm grad` see for cg and cs-dcp) is the centered one,
//! (∇W, ∇b̃, ∇c̃) = (G_W − G_b λᵀ − μ G_cᵀ, G_b, G_c) in terms of the plain estimate G.

use super::Chains;
use crate::data::Dataset;
use crate::engine::cpu::kernels::row_mask;
use crate::error::{Error, Result};
use crate::math::{sigmoid, softplus};
use crate::model::{Rbm, Stats};
use crate::train::Optimizer;

/// Offsets μ, λ with the centered parameters (W, b̃, c̃) and the batch quantities of one update.
#[derive(Clone, Debug)]
pub struct Centered {
    /// (W, b̃, c̃) held as an `Rbm` so the shared optimizer can step them.
    params: Rbm,
    /// Visible offset μ (length m).
    mu: Vec<f32>,
    /// Hidden offset λ (length n).
    lambda: Vec<f32>,
    /// Sliding factor ν_μ of μ.
    nu_mu: f32,
    /// Sliding factor ν_λ of λ.
    nu_lambda: f32,
    /// Column mean of the data batch.
    mu_batch: Vec<f32>,
    /// Column mean of `hp`.
    lambda_batch: Vec<f32>,
    /// E[h|v] on the data batch under θ_t (Algorithm 4's H_p), rows × n.
    hp: Vec<f32>,
    /// The batch rows' hidden thresholds (H = 1/t) when read from the chains' table.
    t: Vec<f32>,
    /// Scratch of length m (μ_batch − μ).
    scratch_m: Vec<f32>,
    /// W(λ_batch − λ), the re-parameterisation direction of b̃.
    shift_b: Vec<f32>,
    /// Wᵀ(μ_batch − μ), the re-parameterisation direction of c̃.
    shift_c: Vec<f32>,
    /// Scratch of length n (one row of h − λ).
    scratch_n: Vec<f32>,
    /// Column sums of h − λ over the rows of one phase.
    hsum: Vec<f32>,
    /// The batch rows' patterns, when [`Centered::begin_batch`] read them from the chains.
    batch_keys: Vec<u32>,
}

impl Centered {
    /// The paper's start (S-DCP paper §4): μ = data mean, λ = 0.5, for the plain model `plain`.
    pub fn new(plain: &Rbm, data: &Dataset, nu_mu: f32, nu_lambda: f32) -> Result<Centered> {
        let mu = data.mean().into_iter().map(|x| x as f32).collect();
        Centered::with_offsets(plain, mu, vec![0.5; plain.n()], nu_mu, nu_lambda)
    }

    /// The centered form of `plain` with given offsets: b̃ = b + Wλ, c̃ = c + Wᵀμ.
    pub fn with_offsets(
        plain: &Rbm,
        mu: Vec<f32>,
        lambda: Vec<f32>,
        nu_mu: f32,
        nu_lambda: f32,
    ) -> Result<Centered> {
        let (m, n) = (plain.m(), plain.n());
        if mu.len() != m || lambda.len() != n {
            return Err(Error::Invalid(format!(
                "offsets of lengths {} and {} do not fit a {m}×{n} model",
                mu.len(),
                lambda.len()
            )));
        }
        if mu.iter().chain(&lambda).any(|x| !x.is_finite()) {
            return Err(Error::Invalid("the offsets must be finite numbers".into()));
        }
        let mut params = plain.clone();
        let w = plain.w();
        for (i, b) in params.b.iter_mut().enumerate() {
            *b += dot(&w[i * n..(i + 1) * n], &lambda);
        }
        let wt = plain.wt();
        for (j, c) in params.c.iter_mut().enumerate() {
            *c += dot(&wt[j * m..(j + 1) * m], &mu);
        }
        Ok(Centered {
            params,
            mu,
            lambda,
            nu_mu,
            nu_lambda,
            mu_batch: vec![0.0; m],
            lambda_batch: vec![0.0; n],
            hp: Vec::new(),
            t: Vec::new(),
            scratch_m: vec![0.0; m],
            shift_b: vec![0.0; m],
            shift_c: vec![0.0; n],
            scratch_n: vec![0.0; n],
            hsum: vec![0.0; n],
            batch_keys: Vec::new(),
        })
    }

    /// The centered parameters (W, b̃, c̃) (not a plain model: its `b`, `c` are b̃, c̃).
    pub fn params(&self) -> &Rbm {
        &self.params
    }

    /// Visible offset μ.
    pub fn mu(&self) -> &[f32] {
        &self.mu
    }

    /// Hidden offset λ.
    pub fn lambda(&self) -> &[f32] {
        &self.lambda
    }

    /// Writes the equivalent plain model into `out`: W, b = b̃ − Wλ, c = c̃ − Wᵀμ.
    pub fn to_plain(&self, out: &mut Rbm) {
        let n = self.params.n();
        let w = self.params.w();
        out.edit(|ow, ob, oc| {
            ow.copy_from_slice(w);
            for (i, b) in ob.iter_mut().enumerate() {
                *b = self.params.b[i] - dot(&w[i * n..(i + 1) * n], &self.lambda);
            }
            dot_columns(w, &self.mu, oc);
            for (c, &ct) in oc.iter_mut().zip(&self.params.c) {
                *c = ct - *c;
            }
        });
    }

    /// The equivalent plain model (allocates; the update path uses [`Centered::to_plain`]).
    pub fn plain(&self) -> Rbm {
        let mut out = self.params.clone();
        self.to_plain(&mut out);
        out
    }

    /// p(h=1|v) = σ(c̃ + Wᵀ(v − μ)) computed in the centered form, for every row of `v`.
    pub fn hidden_probs(&self, v: &[f32], hp: &mut [f32]) {
        let (m, n) = (self.params.m(), self.params.n());
        let wt = self.params.wt();
        for (vr, hr) in v.chunks_exact(m).zip(hp.chunks_exact_mut(n)) {
            for (j, h) in hr.iter_mut().enumerate() {
                let a: f32 = wt[j * m..(j + 1) * m]
                    .iter()
                    .zip(vr.iter().zip(&self.mu))
                    .map(|(w, (v, mu))| w * (v - mu))
                    .sum();
                *h = sigmoid(self.params.c[j] + a);
            }
        }
    }

    /// p(v=1|h) = σ(b̃ + W(h − λ)) computed in the centered form, for every row of `h`.
    pub fn visible_probs(&self, h: &[f32], vp: &mut [f32]) {
        let (m, n) = (self.params.m(), self.params.n());
        let w = self.params.w();
        for (hr, vr) in h.chunks_exact(n).zip(vp.chunks_exact_mut(m)) {
            for (i, v) in vr.iter_mut().enumerate() {
                let a: f32 = w[i * n..(i + 1) * n]
                    .iter()
                    .zip(hr.iter().zip(&self.lambda))
                    .map(|(w, (h, l))| w * (h - l))
                    .sum();
                *v = sigmoid(self.params.b[i] + a);
            }
        }
    }

    /// Centered free energy in f64, summing the energy above over h:
    /// F̃(v) = −(v−μ)ᵀb̃ + λᵀc̃ + (v−μ)ᵀWλ − Σ_j softplus(c̃_j + ((v−μ)ᵀW)_j).
    /// It differs from the plain [`Rbm::free_energy`] by a constant independent of v.
    pub fn free_energy(&self, v: &[f32]) -> f64 {
        let (m, n) = (self.params.m(), self.params.n());
        let w = self.params.w();
        let vc: Vec<f64> = v
            .iter()
            .zip(&self.mu)
            .map(|(&v, &mu)| v as f64 - mu as f64)
            .collect();
        let mut f: f64 = self
            .lambda
            .iter()
            .zip(&self.params.c)
            .map(|(&l, &c)| l as f64 * c as f64)
            .sum();
        for i in 0..m {
            f -= vc[i] * self.params.b[i] as f64;
            let wl: f64 = (0..n)
                .map(|j| w[i * n + j] as f64 * self.lambda[j] as f64)
                .sum();
            f += vc[i] * wl;
        }
        for j in 0..n {
            let a: f64 =
                self.params.c[j] as f64 + (0..m).map(|i| vc[i] * w[i * n + j] as f64).sum::<f64>();
            f -= softplus(a);
        }
        f
    }

    /// Starts a mini-batch: H = E[h|batch] under the plain model θ_t, μ_batch = column mean of
    /// the batch, λ_batch = column mean of H (Melchior et al. Algorithm 1; S-DCP Algorithm 4's
    /// H_p, μ_batch, λ_batch).
    /// With `chains`, H comes from their pattern table where it applies
    /// ([`Chains::row_thresholds`], the same bits), for the sweeps under `plain` that follow.
    pub fn begin_batch(&mut self, plain: &Rbm, batch: &[f32], chains: Option<&mut Chains>) {
        let (m, n) = (plain.m(), plain.n());
        let rows = batch.len() / m;
        self.hp.resize(rows * n, 0.0);
        self.t.resize(rows * n, 0.0);
        self.batch_keys.clear();
        if let Some(keys) = chains.and_then(|c| c.row_thresholds(plain, batch, &mut self.t)) {
            self.batch_keys.extend_from_slice(keys);
            self.hp
                .iter_mut()
                .zip(&self.t)
                .for_each(|(p, &t)| *p = 1.0 / t);
        } else {
            plain.hidden_probs(batch, &mut self.hp);
        }
        column_mean(batch, m, &mut self.mu_batch);
        column_mean(&self.hp, n, &mut self.lambda_batch);
    }

    /// [`Centered::begin_batch`] with H = E[h|V] under θ_t given (`hp`, rows × n): the batch
    /// means, and the statistics of [`Centered::data_stats`] computed row by row.
    pub fn begin_batch_from_probs(&mut self, batch: &[f32], hp: &[f32]) {
        let (m, n) = (self.mu.len(), self.lambda.len());
        self.hp.clear();
        self.hp.extend_from_slice(hp);
        self.batch_keys.clear();
        column_mean(batch, m, &mut self.mu_batch);
        column_mean(&self.hp, n, &mut self.lambda_batch);
    }

    /// Re-parameterises b̃ ← b̃ + ν_λ W(λ_batch − λ), c̃ ← c̃ + ν_μ Wᵀ(μ_batch − μ) with the
    /// current W, then slides the offsets μ ← (1−ν_μ)μ + ν_μ μ_batch, λ ← (1−ν_λ)λ + ν_λ λ_batch.
    /// The plain model is unchanged (up to rounding).
    pub fn slide(&mut self) {
        let n = self.params.n();
        let w = self.params.w();
        for ((d, lb), l) in self
            .scratch_n
            .iter_mut()
            .zip(&self.lambda_batch)
            .zip(&self.lambda)
        {
            *d = lb - l;
        }
        for ((d, mb), mu) in self.scratch_m.iter_mut().zip(&self.mu_batch).zip(&self.mu) {
            *d = mb - mu;
        }
        for (i, s) in self.shift_b.iter_mut().enumerate() {
            *s = dot(&w[i * n..(i + 1) * n], &self.scratch_n);
        }
        dot_columns(w, &self.scratch_m, &mut self.shift_c);
        let (nl, nm) = (self.nu_lambda, self.nu_mu);
        self.params
            .b
            .iter_mut()
            .zip(&self.shift_b)
            .for_each(|(b, s)| *b += nl * s);
        self.params
            .c
            .iter_mut()
            .zip(&self.shift_c)
            .for_each(|(c, s)| *c += nm * s);
        for (mu, mb) in self.mu.iter_mut().zip(&self.mu_batch) {
            *mu = (1.0 - nm) * *mu + nm * mb;
        }
        for (l, lb) in self.lambda.iter_mut().zip(&self.lambda_batch) {
            *l = (1.0 - nl) * *l + nl * lb;
        }
    }

    /// Centered positive statistics of the batch given to [`Centered::begin_batch`], with the
    /// current offsets: sums of ((v−μ)(h−λ)ᵀ, v, h) over the rows, h = E[h|v] under θ_t.
    pub fn data_stats(&mut self, batch: &[f32], pos: &mut Stats) {
        let rows = batch.len() / self.mu.len().max(1);
        let keys = (self.batch_keys.len() == rows).then_some(&self.batch_keys[..]);
        centered_sums(
            (batch, keys),
            &self.hp,
            &self.mu,
            &self.lambda,
            &mut self.scratch_n,
            &mut self.hsum,
            pos,
        );
    }

    /// Centered negative statistics of the chains (after [`Chains::finish`]), with the
    /// current offsets: sums of ((v−μ)(h−λ)ᵀ, v, h), h = E[h|v].
    pub fn chain_stats(&mut self, chains: &Chains, neg: &mut Stats) {
        self.sums((chains.v(), chains.visible_patterns()), &chains.hp, neg);
    }

    /// [`Centered::chain_stats`] of the rows `v` with E[h|v] = `hp`, row by row.
    pub fn row_stats(&mut self, v: &[f32], hp: &[f32], neg: &mut Stats) {
        self.sums((v, None), hp, neg);
    }

    /// The centered sums of `rows` (with their patterns, if known) and their E[h|v].
    fn sums(&mut self, rows: (&[f32], Option<&[u32]>), hp: &[f32], out: &mut Stats) {
        centered_sums(
            rows,
            hp,
            &self.mu,
            &self.lambda,
            &mut self.scratch_n,
            &mut self.hsum,
            out,
        );
    }

    /// θ̃ ← θ̃ + η (mean(pos) − mean(neg)) on the centered parameters through the shared
    /// optimizer (so its last gradient is the centered one), then writes the plain model.
    pub fn step(
        &mut self,
        opt: &mut Optimizer,
        pos: &Stats,
        neg: &Stats,
        lr: f32,
        plain: &mut Rbm,
    ) {
        opt.step(&mut self.params, pos, neg, lr);
        self.to_plain(plain);
    }
}

/// Σ_k a_k b_k in f32, in index order.
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        s += x * y;
    }
    s
}

/// `out[j]` ← Σ_i w[i][j]·x[i] for the m×n matrix `w` (row-major), each sum in increasing i
/// from 0 — [`dot`] of column j and `x`, bit for bit, without the transpose.
fn dot_columns(w: &[f32], x: &[f32], out: &mut [f32]) {
    out.iter_mut().for_each(|o| *o = 0.0);
    if out.is_empty() {
        return;
    }
    for (row, &xi) in w.chunks_exact(out.len()).zip(x) {
        out.iter_mut().zip(row).for_each(|(o, &wij)| *o += wij * xi);
    }
}

/// Column means of a rows × width matrix into `out`.
fn column_mean(x: &[f32], width: usize, out: &mut [f32]) {
    out.iter_mut().for_each(|o| *o = 0.0);
    let rows = x.len() / width;
    for r in x.chunks_exact(width) {
        out.iter_mut().zip(r).for_each(|(o, v)| *o += v);
    }
    let k = 1.0 / rows.max(1) as f32;
    out.iter_mut().for_each(|o| *o *= k);
}

/// Fills `out` with the sums of the centered statistics ((v−μ)(h−λ)ᵀ, v, h) over the rows of
/// `v` (rows × m) and `hp` (rows × n), and their count.
///
/// Σ_r (v_r − μ)(h_r − λ)ᵀ is accumulated as Σ_r v_r (h_r − λ)ᵀ − μ (Σ_r (h_r − λ))ᵀ: the first
/// sum adds rows only for the active visible units (cheap for 0/1 data), the second is a rank-one
/// correction. With μ = 0 and λ = 0 this adds exactly what [`Stats::add`] adds, in the same order.
fn centered_sums(
    (v, keys): (&[f32], Option<&[u32]>),
    hp: &[f32],
    mu: &[f32],
    lambda: &[f32],
    hc: &mut [f32],
    hsum: &mut [f32],
    out: &mut Stats,
) {
    let (m, n) = (mu.len(), lambda.len());
    out.clear();
    hsum.iter_mut().for_each(|s| *s = 0.0);
    for (r, (vr, hr)) in v.chunks_exact(m).zip(hp.chunks_exact(n)).enumerate() {
        for (((c, s), &h), &l) in hc.iter_mut().zip(hsum.iter_mut()).zip(hr).zip(lambda) {
            *c = h - l;
            *s += *c;
        }
        let mut word = [0u64];
        if let Some(&key) = keys.and_then(|k| k.get(r)) {
            word[0] = u64::from(key);
        }
        if keys.is_some() || (m <= 64 && row_mask(vr, &mut word)) {
            // A 0/1 row: its units on, in increasing order, without a branch per unit.
            let mut on = word[0];
            while on != 0 {
                let i = on.trailing_zeros() as usize;
                on &= on - 1;
                let row = &mut out.sum.w[i * n..(i + 1) * n];
                row.iter_mut().zip(&*hc).for_each(|(g, &c)| *g += c);
                out.sum.b[i] += 1.0;
            }
        } else {
            for (i, &vi) in vr.iter().enumerate() {
                if vi != 0.0 {
                    let row = &mut out.sum.w[i * n..(i + 1) * n];
                    if vi == 1.0 {
                        row.iter_mut().zip(&*hc).for_each(|(g, &c)| *g += c);
                    } else {
                        row.iter_mut().zip(&*hc).for_each(|(g, &c)| *g += vi * c);
                    }
                    out.sum.b[i] += vi;
                }
            }
        }
        out.sum.c.iter_mut().zip(hr).for_each(|(g, &h)| *g += h);
        out.count += 1.0;
    }
    for (i, &mi) in mu.iter().enumerate() {
        if mi != 0.0 {
            let row = &mut out.sum.w[i * n..(i + 1) * n];
            row.iter_mut().zip(&*hsum).for_each(|(g, &s)| *g -= mi * s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exact;

    use crate::rng::{stream, uniform, Purpose};

    fn random_model(m: usize, n: usize, seed: u64) -> Rbm {
        Rbm::random(m, n, 1.0, seed).unwrap()
    }

    fn random_offsets(m: usize, n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
        let mut r = stream(seed, 1, Purpose::Aux);
        (
            (0..m).map(|_| uniform(&mut r)).collect(),
            (0..n).map(|_| uniform(&mut r)).collect(),
        )
    }

    fn close(a: &[f32], b: &[f32], tol: f32) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + x.abs().max(y.abs())))
    }

    /// Column-wise sums are the dot products of W's columns, bit for bit (the plain model's c
    /// and the re-parameterisation of c̃ used the transpose before).
    #[test]
    fn column_dots_are_the_transposes_dots_bit_for_bit() {
        for (m, n) in [(9, 4), (16, 16), (7, 1), (1, 5)] {
            let model = random_model(m, n, 11);
            let (x, _) = random_offsets(m, n, 12);
            let mut got = vec![f32::NAN; n];
            dot_columns(model.w(), &x, &mut got);
            let wt = model.wt();
            for (j, g) in got.iter().enumerate() {
                assert_eq!(
                    g.to_bits(),
                    dot(&wt[j * m..(j + 1) * m], &x).to_bits(),
                    "{m}×{n}"
                );
            }
        }
    }

    #[test]
    fn centered_sums_match_the_dense_definition() {
        let (m, n) = (5, 3);
        let model = random_model(m, n, 2);
        let (mu, lambda) = random_offsets(m, n, 2);
        let v = [
            1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0, 1.0,
        ];
        let mut hp = vec![0.0; 3 * n];
        model.hidden_probs(&v, &mut hp);
        let mut out = Stats::new(m, n);
        let (mut hc, mut hsum) = (vec![0.0; n], vec![0.0; n]);
        centered_sums((&v, None), &hp, &mu, &lambda, &mut hc, &mut hsum, &mut out);
        assert_eq!(out.count, 3.0);
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..3)
                    .map(|r| (v[r * m + i] - mu[i]) as f64 * (hp[r * n + j] - lambda[j]) as f64)
                    .sum();
                assert!((out.sum.w[i * n + j] as f64 - want).abs() < 1e-5, "{i},{j}");
            }
            let want: f32 = (0..3).map(|r| v[r * m + i]).sum();
            assert_eq!(out.sum.b[i], want);
        }
        // With zero offsets the sums are exactly those of the plain statistics.
        let mut plain = Stats::new(m, n);
        plain.add(&v, &hp);
        centered_sums(
            (&v, None),
            &hp,
            &[0.0; 5],
            &[0.0; 3],
            &mut hc,
            &mut hsum,
            &mut out,
        );
        assert_eq!(out.sum, plain.sum);
        // 0/1 rows given with their patterns: the same sums as masking the rows.
        let v01 = v.map(|x| if x == 0.5 { 1.0 } else { x });
        let mut keys = Vec::new();
        assert!(crate::engine::cpu::kernels::row_keys(&v01, m, &mut keys));
        let mut by_keys = Stats::new(m, n);
        centered_sums(
            (&v01, Some(&keys)),
            &hp,
            &mu,
            &lambda,
            &mut hc,
            &mut hsum,
            &mut by_keys,
        );
        centered_sums(
            (&v01, None),
            &hp,
            &mu,
            &lambda,
            &mut hc,
            &mut hsum,
            &mut out,
        );
        assert_eq!((by_keys.sum, by_keys.count), (out.sum, out.count));
    }

    #[test]
    fn conversions_round_trip_and_conditionals_agree() {
        let (m, n) = (7, 4);
        let model = random_model(m, n, 5);
        let (mu, lambda) = random_offsets(m, n, 5);
        let c = Centered::with_offsets(&model, mu, lambda, 0.01, 0.01).unwrap();
        let back = c.plain();
        assert!(close(back.w(), model.w(), 0.0));
        assert!(close(&back.b, &model.b, 1e-6));
        assert!(close(&back.c, &model.c, 1e-6));
        let mut r = stream(9, 0, Purpose::Aux);
        let v: Vec<f32> = (0..10 * m)
            .map(|_| f32::from(u8::from(uniform(&mut r) < 0.5)))
            .collect();
        let h: Vec<f32> = (0..10 * n)
            .map(|_| f32::from(u8::from(uniform(&mut r) < 0.5)))
            .collect();
        let (mut a, mut b) = (vec![0.0; 10 * n], vec![0.0; 10 * n]);
        c.hidden_probs(&v, &mut a);
        model.hidden_probs(&v, &mut b);
        assert!(close(&a, &b, 1e-5));
        let (mut a, mut b) = (vec![0.0; 10 * m], vec![0.0; 10 * m]);
        c.visible_probs(&h, &mut a);
        model.visible_probs(&h, &mut b);
        assert!(close(&a, &b, 1e-5));
        assert!(Centered::with_offsets(&model, vec![0.0; 3], vec![0.0; n], 0.0, 0.0).is_err());
    }

    #[test]
    fn centered_energy_gives_the_plain_exact_log_likelihood_before_and_after_sliding() {
        let data = Dataset::builtin("bas3").unwrap();
        let model = random_model(9, 4, 7);
        let mut c = Centered::new(&model, &data, 0.3, 0.3).unwrap();
        let atll = |c: &Centered| {
            let f: Vec<f64> = (0..1u64 << 9)
                .map(|code| c.free_energy(&crate::data::decode(code, 9)))
                .collect();
            let mut lse = crate::math::LogSumExp::default();
            f.iter().for_each(|&x| lse.add(-x));
            (0..data.rows())
                .map(|r| -c.free_energy(data.row(r)))
                .sum::<f64>()
                / data.rows() as f64
                - lse.value()
        };
        let want = exact::evaluate(&model, &data).unwrap().atll;
        assert!((atll(&c) - want).abs() < 1e-5, "{} vs {want}", atll(&c));
        // The re-parameterisation keeps the distribution while the offsets move.
        let (mu0, lambda0) = (c.mu().to_vec(), c.lambda().to_vec());
        c.begin_batch(&model, &data.values[..5 * 9], None);
        c.slide();
        assert!(
            c.mu().iter().zip(&mu0).all(|(a, b)| a != b)
                && c.lambda().iter().zip(&lambda0).all(|(a, b)| a != b)
        );
        assert!((atll(&c) - want).abs() < 1e-5);
        let plain = c.plain();
        assert!((exact::evaluate(&plain, &data).unwrap().atll - want).abs() < 1e-5);
        assert!(close(&plain.b, &model.b, 1e-5) && close(&plain.c, &model.c, 1e-5));
    }
}

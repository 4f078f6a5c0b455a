//! The binary RBM (ALGORITHMS.md §1): parameters, initialisation, conditionals, free energy,
//! sufficient statistics and the model file format.
//!
//! The weights are kept in both layouts — `w` (m×n, row i = visible unit i's weights) and
//! `wt` (n×m) — because v and h are 0/1: a pre-activation is a bias plus the rows selected by
//! the active units, a contiguous walk in either direction.

use crate::data::Dataset;
use crate::error::{ensure, Error, Result};
use crate::math::{bernoulli, sigmoid, softplus};
use crate::rng::{normal, uniform, Rng};
use serde::{Deserialize, Serialize};

/// The largest model the core accepts (visible × hidden weights), to refuse absurd requests
/// before allocating: 784×4000 fits, 10⁸ weights do not.
pub const MAX_WEIGHTS: usize = 1 << 24;

/// Parameters θ = (W, b, c) or anything shaped like them (gradients, statistics, velocities,
/// fast parameters). `w[i*n + j]` joins visible i and hidden j.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params<T> {
    /// m×n, row-major.
    pub w: Vec<T>,
    /// Visible biases, length m.
    pub b: Vec<T>,
    /// Hidden biases, length n.
    pub c: Vec<T>,
}

impl<T: Copy + Default> Params<T> {
    /// All zeros for an m×n model.
    pub fn zeros(m: usize, n: usize) -> Self {
        Params {
            w: vec![T::default(); m * n],
            b: vec![T::default(); m],
            c: vec![T::default(); n],
        }
    }

    /// The three blocks in order (W, b, c), with their names.
    pub fn blocks(&self) -> [(&'static str, &[T]); 3] {
        [("W", &self.w), ("b", &self.b), ("c", &self.c)]
    }

    /// Mutable blocks (W, b, c).
    pub fn blocks_mut(&mut self) -> [&mut Vec<T>; 3] {
        [&mut self.w, &mut self.b, &mut self.c]
    }
}

impl Params<f32> {
    /// Resets every entry to zero, keeping the allocation.
    pub fn clear(&mut self) {
        for blk in self.blocks_mut() {
            blk.iter_mut().for_each(|x| *x = 0.0);
        }
    }
}

/// How to initialise a model (ALGORITHMS.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Init {
    /// S-DCP paper: W ~ N(0, 0.01²), c = 0, b = logit(data mean clipped to [1e−3, 1−1e−3]).
    #[default]
    Sdcp,
    /// UCD paper's code: W, b, c ~ N(0, 0.1²).
    Ucd,
}

impl std::str::FromStr for Init {
    type Err = Error;
    fn from_str(s: &str) -> Result<Init> {
        match s {
            "sdcp" => Ok(Init::Sdcp),
            "ucd" => Ok(Init::Ucd),
            _ => Err(Error::Invalid(format!("unknown init '{s}' (sdcp or ucd)"))),
        }
    }
}

/// A binary RBM with m visible and n hidden units.
#[derive(Clone, Debug, PartialEq)]
pub struct Rbm {
    m: usize,
    n: usize,
    w: Vec<f32>,
    wt: Vec<f32>,
    /// Visible biases b (length m).
    pub b: Vec<f32>,
    /// Hidden biases c (length n).
    pub c: Vec<f32>,
}

/// The JSON model file: `{"visible": m, "hidden": n, "w": [m·n], "b": [m], "c": [n]}` with
/// `w[i*n+j]` joining visible i and hidden j.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    /// m.
    pub visible: usize,
    /// n.
    pub hidden: usize,
    /// Row-major m×n weights.
    pub w: Vec<f64>,
    /// Visible biases.
    pub b: Vec<f64>,
    /// Hidden biases.
    pub c: Vec<f64>,
}

/// Checks that an m×n model is within [`MAX_WEIGHTS`] and non-empty.
pub fn check_size(m: usize, n: usize) -> Result<()> {
    ensure(m > 0, || "the model needs at least one visible unit".into())?;
    ensure(n > 0, || {
        "the number of hidden units must be at least 1".into()
    })?;
    if m.checked_mul(n).is_none_or(|k| k > MAX_WEIGHTS) {
        return Err(Error::TooLarge(format!(
            "{m}×{n} = {} weights exceeds the limit of {MAX_WEIGHTS}",
            m as u128 * n as u128
        )));
    }
    Ok(())
}

impl Rbm {
    /// A model from its parameters. Fails on inconsistent sizes or non-finite values.
    pub fn from_params(m: usize, n: usize, p: Params<f32>) -> Result<Rbm> {
        check_size(m, n)?;
        if p.w.len() != m * n || p.b.len() != m || p.c.len() != n {
            return Err(Error::Parse(format!(
                "parameter sizes w={} b={} c={} do not fit {m} visible × {n} hidden (want {}, {m}, {n})",
                p.w.len(),
                p.b.len(),
                p.c.len(),
                m * n
            )));
        }
        for (name, blk) in p.blocks() {
            if let Some(k) = blk.iter().position(|x| !x.is_finite()) {
                return Err(Error::Parse(format!("{name}[{k}] is not a finite number")));
            }
        }
        let mut r = Rbm {
            m,
            n,
            wt: vec![0.0; m * n],
            w: p.w,
            b: p.b,
            c: p.c,
        };
        r.sync_transpose();
        Ok(r)
    }

    /// A zero model.
    pub fn zeros(m: usize, n: usize) -> Result<Rbm> {
        Rbm::from_params(m, n, Params::zeros(m, n))
    }

    /// A fresh model for `data` with `n` hidden units, initialised as `init` says, drawing from
    /// `rng` (the lane's `Init` stream).
    pub fn init(data: &Dataset, n: usize, init: Init, rng: &mut Rng) -> Result<Rbm> {
        let m = data.m;
        check_size(m, n)?;
        let mut p = Params::zeros(m, n);
        match init {
            Init::Sdcp => {
                p.w.iter_mut()
                    .for_each(|x| *x = (0.01 * normal(rng)) as f32);
                for (b, mu) in p.b.iter_mut().zip(data.mean()) {
                    let mu = mu.clamp(1e-3, 1.0 - 1e-3);
                    *b = libm::log(mu / (1.0 - mu)) as f32;
                }
            }
            Init::Ucd => {
                for blk in p.blocks_mut() {
                    blk.iter_mut().for_each(|x| *x = (0.1 * normal(rng)) as f32);
                }
            }
        }
        Rbm::from_params(m, n, p)
    }

    /// Number of visible units m.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Number of hidden units n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// W, m×n row-major.
    pub fn w(&self) -> &[f32] {
        &self.w
    }

    /// Wᵀ, n×m row-major (row j = hidden unit j's weights).
    pub fn wt(&self) -> &[f32] {
        &self.wt
    }

    /// Edits W in place and then refreshes Wᵀ; the only way to change the weights.
    pub fn edit_w(&mut self, f: impl FnOnce(&mut [f32])) {
        f(&mut self.w);
        self.sync_transpose();
    }

    /// Edits W, b and c together (Wᵀ is refreshed afterwards).
    pub fn edit(&mut self, f: impl FnOnce(&mut [f32], &mut [f32], &mut [f32])) {
        f(&mut self.w, &mut self.b, &mut self.c);
        self.sync_transpose();
    }

    fn sync_transpose(&mut self) {
        let (m, n) = (self.m, self.n);
        for i in 0..m {
            for j in 0..n {
                self.wt[j * m + i] = self.w[i * n + j];
            }
        }
    }

    /// A copy of the parameters.
    pub fn params(&self) -> Params<f32> {
        Params {
            w: self.w.clone(),
            b: self.b.clone(),
            c: self.c.clone(),
        }
    }

    /// Sets `self` to `base + delta` (used for FPCD's θ + θ_F) without reallocating.
    pub fn set_sum(&mut self, base: &Rbm, delta: &Params<f32>) {
        debug_assert!(self.m == base.m && self.n == base.n);
        for (dst, (a, d)) in [
            (&mut self.w, (&base.w, &delta.w)),
            (&mut self.b, (&base.b, &delta.b)),
            (&mut self.c, (&base.c, &delta.c)),
        ] {
            for (x, (y, z)) in dst.iter_mut().zip(a.iter().zip(d)) {
                *x = y + z;
            }
        }
        self.sync_transpose();
    }

    /// The name of the first non-finite parameter block, if any.
    pub fn non_finite(&self) -> Option<&'static str> {
        [("W", &self.w), ("b", &self.b), ("c", &self.c)]
            .into_iter()
            .find(|(_, blk)| blk.iter().any(|x| !x.is_finite()))
            .map(|(name, _)| name)
    }

    /// Hidden pre-activations c + vᵀW for one visible row (0/1 or real values).
    #[inline]
    pub fn hidden_pre(&self, v: &[f32], out: &mut [f32]) {
        select_rows(&self.c, &self.w, self.n, v, out);
    }

    /// Visible pre-activations b + W h for one hidden row.
    #[inline]
    pub fn visible_pre(&self, h: &[f32], out: &mut [f32]) {
        select_rows(&self.b, &self.wt, self.m, h, out);
    }

    /// p(h=1|v) for every row of `v` (rows × m) into `hp` (rows × n).
    pub fn hidden_probs(&self, v: &[f32], hp: &mut [f32]) {
        for (vr, hr) in v.chunks_exact(self.m).zip(hp.chunks_exact_mut(self.n)) {
            self.hidden_pre(vr, hr);
            hr.iter_mut().for_each(|a| *a = sigmoid(*a));
        }
    }

    /// p(v=1|h) for every row of `h` (rows × n) into `vp` (rows × m).
    pub fn visible_probs(&self, h: &[f32], vp: &mut [f32]) {
        for (hr, vr) in h.chunks_exact(self.n).zip(vp.chunks_exact_mut(self.m)) {
            self.visible_pre(hr, vr);
            vr.iter_mut().for_each(|a| *a = sigmoid(*a));
        }
    }

    /// Samples h ~ p(h|v) for every row; one uniform per unit, rows in order.
    pub fn sample_hidden(&self, v: &[f32], h: &mut [f32], rng: &mut Rng) {
        for (vr, hr) in v.chunks_exact(self.m).zip(h.chunks_exact_mut(self.n)) {
            self.hidden_pre(vr, hr);
            hr.iter_mut()
                .for_each(|a| *a = f32::from(u8::from(bernoulli(uniform(rng), *a))));
        }
    }

    /// Samples v ~ p(v|h) for every row; one uniform per unit, rows in order.
    pub fn sample_visible(&self, h: &[f32], v: &mut [f32], rng: &mut Rng) {
        for (hr, vr) in h.chunks_exact(self.n).zip(v.chunks_exact_mut(self.m)) {
            self.visible_pre(hr, vr);
            vr.iter_mut()
                .for_each(|a| *a = f32::from(u8::from(bernoulli(uniform(rng), *a))));
        }
    }

    /// Free energy F(v) = −bᵀv − Σ_j softplus(c_j + (vᵀW)_j) in f64 (ALGORITHMS.md §1).
    pub fn free_energy(&self, v: &[f32]) -> f64 {
        let mut f = 0.0f64;
        for (&vi, &bi) in v.iter().zip(&self.b) {
            f -= vi as f64 * bi as f64;
        }
        for j in 0..self.n {
            let mut a = self.c[j] as f64;
            for (i, &vi) in v.iter().enumerate() {
                if vi != 0.0 {
                    a += vi as f64 * self.w[i * self.n + j] as f64;
                }
            }
            f -= softplus(a);
        }
        f
    }

    /// Serialises to the JSON model file format.
    pub fn to_json(&self) -> String {
        let f = |xs: &[f32]| xs.iter().map(|&x| x as f64).collect::<Vec<f64>>();
        let file = ModelFile {
            visible: self.m,
            hidden: self.n,
            w: f(&self.w),
            b: f(&self.b),
            c: f(&self.c),
        };
        serde_json::to_string(&file).expect("finite numbers serialise")
    }

    /// Parses the JSON model file format, checking sizes and finiteness.
    pub fn from_json(text: &str) -> Result<Rbm> {
        let f: ModelFile =
            serde_json::from_str(text).map_err(|e| Error::Parse(format!("model file: {e}")))?;
        let g = |xs: Vec<f64>| xs.into_iter().map(|x| x as f32).collect::<Vec<f32>>();
        Rbm::from_params(
            f.visible,
            f.hidden,
            Params {
                w: g(f.w),
                b: g(f.b),
                c: g(f.c),
            },
        )
        .map_err(|e| match e {
            Error::Parse(s) => Error::Parse(format!("model file: {s}")),
            other => other,
        })
    }
}

/// `out = bias + Σ_k x_k · rows[k]` over the non-zero `x_k`: the binary-sparse pre-activation.
/// A 0/1 state adds whole rows (no multiply); real values (mean-field, grey data) scale them.
#[inline]
fn select_rows(bias: &[f32], rows: &[f32], width: usize, x: &[f32], out: &mut [f32]) {
    out.copy_from_slice(bias);
    for (k, &xk) in x.iter().enumerate() {
        if xk == 0.0 {
            continue;
        }
        let row = &rows[k * width..(k + 1) * width];
        if xk == 1.0 {
            out.iter_mut().zip(row).for_each(|(o, r)| *o += r);
        } else {
            out.iter_mut().zip(row).for_each(|(o, r)| *o += xk * r);
        }
    }
}

/// Accumulated sufficient statistics s(v) = (v·E[h|v]ᵀ, v, E[h|v]) over a set of rows
/// (ALGORITHMS.md §1), kept as sums with their row count.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Sums of s over the rows added.
    pub sum: Params<f32>,
    /// Number of rows added.
    pub count: f32,
    m: usize,
    n: usize,
}

impl Stats {
    /// Empty statistics for an m×n model.
    pub fn new(m: usize, n: usize) -> Stats {
        Stats {
            sum: Params::zeros(m, n),
            count: 0.0,
            m,
            n,
        }
    }

    /// Forgets everything added.
    pub fn clear(&mut self) {
        self.sum.clear();
        self.count = 0.0;
    }

    /// Adds s(v) for every row: `v` (rows × m) and the matching `hp` = E[h|v] (rows × n).
    pub fn add(&mut self, v: &[f32], hp: &[f32]) {
        for (vr, hr) in v.chunks_exact(self.m).zip(hp.chunks_exact(self.n)) {
            self.add_weighted(vr, hr, 1.0);
            self.count += 1.0;
        }
    }

    /// Adds `weight · s` for one row without counting it (for signed correction terms).
    pub fn add_weighted(&mut self, v: &[f32], hp: &[f32], weight: f32) {
        let n = self.n;
        for (i, &vi) in v.iter().enumerate() {
            if vi != 0.0 {
                let a = weight * vi;
                let row = &mut self.sum.w[i * n..(i + 1) * n];
                row.iter_mut().zip(hp).for_each(|(g, &h)| *g += a * h);
                self.sum.b[i] += a;
            }
        }
        self.sum
            .c
            .iter_mut()
            .zip(hp)
            .for_each(|(g, &h)| *g += weight * h);
    }

    /// Mean statistics (sums divided by the row count).
    pub fn mean(&self) -> Params<f32> {
        let k = 1.0 / self.count.max(1.0);
        let mut p = self.sum.clone();
        for blk in p.blocks_mut() {
            blk.iter_mut().for_each(|x| *x *= k);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Purpose};

    fn random_model(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
        let mut r = stream(seed, 0, Purpose::Aux);
        let mut p = Params::zeros(m, n);
        for blk in p.blocks_mut() {
            blk.iter_mut()
                .for_each(|x| *x = (scale * normal(&mut r)) as f32);
        }
        Rbm::from_params(m, n, p).unwrap()
    }

    #[test]
    fn transpose_layout_and_conditionals_agree_with_dense_formulas() {
        let rbm = random_model(5, 3, 1.0, 3);
        for i in 0..5 {
            for j in 0..3 {
                assert_eq!(rbm.w()[i * 3 + j], rbm.wt()[j * 5 + i]);
            }
        }
        let v = [1.0, 0.0, 1.0, 1.0, 0.0];
        let mut hp = [0.0; 3];
        rbm.hidden_probs(&v, &mut hp);
        for j in 0..3 {
            let a: f64 = rbm.c[j] as f64
                + (0..5)
                    .map(|i| v[i] as f64 * rbm.w()[i * 3 + j] as f64)
                    .sum::<f64>();
            assert!((hp[j] as f64 - 1.0 / (1.0 + (-a).exp())).abs() < 1e-6);
        }
    }

    #[test]
    fn model_file_round_trips_and_rejects_bad_files() {
        let rbm = random_model(4, 2, 0.5, 1);
        let back = Rbm::from_json(&rbm.to_json()).unwrap();
        assert_eq!(back, rbm);
        let bad = [
            r#"{"visible": 2, "hidden": 1, "w": [1], "b": [0, 0], "c": [0]}"#,
            r#"{"visible": 2, "hidden": 0, "w": [], "b": [0, 0], "c": []}"#,
            r#"{"visible": 1, "hidden": 1, "w": [1], "b": [0], "c": [0], "x": 1}"#,
            r#"{"visible": 1, "hidden": 1, "w": [1e400], "b": [0], "c": [0]}"#,
            "not json",
        ];
        for t in bad {
            assert!(Rbm::from_json(t).is_err(), "{t}");
        }
        assert!(matches!(
            check_size(100_000, 100_000),
            Err(Error::TooLarge(_))
        ));
    }

    #[test]
    fn init_follows_the_papers() {
        let d = Dataset::builtin("bas4").unwrap();
        let mut r = stream(1, 0, Purpose::Init);
        let a = Rbm::init(&d, 16, Init::Sdcp, &mut r).unwrap();
        assert!(a.c.iter().all(|&x| x == 0.0));
        assert!(
            (a.b[0] as f64 - 0.0).abs() < 1e-6,
            "BAS mean is 1/2 so b = logit(0.5) = 0"
        );
        let sd = (a.w().iter().map(|x| (*x as f64).powi(2)).sum::<f64>() / 256.0).sqrt();
        assert!((sd - 0.01).abs() < 0.003, "{sd}");
        let u = Rbm::init(&d, 16, Init::Ucd, &mut r).unwrap();
        assert!(u.c.iter().any(|&x| x != 0.0));
    }
}

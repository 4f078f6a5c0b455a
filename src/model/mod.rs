//! The binary RBM (docs/algorithms.md §1): parameters, initialisation, conditionals, free energy,
//! sufficient statistics and the model file format.
//!
//! The weights are kept in both layouts — `w` (m×n, row i = visible unit i's weights) and
//! `wt` (n×m) — because v and h are 0/1: a pre-activation is a bias plus the rows selected by
//! the active units, a contiguous walk in either direction.
//!
//! The model itself is here: [`Params`], [`Init`] and [`Rbm`] with its parameters, edits,
//! conditionals and free energy, and [`check_size`]. The packed layouts of W and Wᵀ with the
//! pre-activation kernels over them are in `packed.rs`, the sufficient statistics ([`Stats`]) in
//! `stats.rs` and the file formats ([`ModelFile`], [`Rbm::to_bytes`]) in `format.rs`; every
//! public item is re-exported here, at its path before the split.

mod format;
mod packed;
mod stats;

pub use format::{ModelFile, MODEL_HEADER, MODEL_MAGIC};
pub(crate) use packed::chunk_width;
pub use stats::Stats;
pub(crate) use stats::{BY_UNIT_MIN_HIDDEN, BY_UNIT_MIN_ROWS};

use crate::data::Dataset;
use crate::engine::cpu::kernels::{bernoulli_row, copy_row};
use crate::engine::cpu::patterns::memo::{self, Conditional, Memo, Side};
use crate::error::{ensure, Error, Result};
use crate::math::{one_plus_exp_neg, sigmoid, softplus};
use crate::rng::{fill_uniform, normal, Rng};
use packed::{
    add_selected_packed, add_selected_prefix_packed, pre_activations, Packed, EAGER_PACK_MIN,
    PREFIX_BITS, PREFIX_MIN,
};
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

/// How to initialise a model (docs/algorithms.md §4).
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
#[derive(Clone, Debug)]
pub struct Rbm {
    m: usize,
    n: usize,
    w: Vec<f32>,
    /// Wᵀ row-major, made on first use after each edit (the Gibbs kernels use `packed_wt`).
    wt: std::sync::OnceLock<Vec<f32>>,
    /// W packed by column chunks (for c + vᵀW) and Wᵀ likewise (for b + W h), kept in sync
    /// with `w`: refilled on every edit for large models, made on first use after an edit for
    /// small ones ([`EAGER_PACK_MIN`]).
    packed: std::sync::OnceLock<(Packed, Packed)>,
    /// Which weights these are: a number drawn anew on every edit of `w` (clones keep it, as
    /// they keep the weights), so the conditionals' memo knows W without comparing it.
    w_gen: u64,
    /// Visible biases b (length m).
    pub b: Vec<f32>,
    /// Hidden biases c (length n).
    pub c: Vec<f32>,
}

/// Models are equal when their parameters are (the layouts derived from them follow).
impl PartialEq for Rbm {
    fn eq(&self, o: &Rbm) -> bool {
        (self.m, self.n) == (o.m, o.n) && self.w == o.w && self.b == o.b && self.c == o.c
    }
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
            wt: std::sync::OnceLock::new(),
            packed: std::sync::OnceLock::new(),
            w_gen: 0,
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
        Rbm::init_scaled(data, n, init, None, rng)
    }

    /// [`Rbm::init`] with the standard deviation of the initial draws set to `sigma` (W for
    /// `sdcp`, whose b stays the data's base rates and c zero; W, b and c for `ucd`); `None`
    /// keeps the initialisation's own (0.01 for `sdcp`, 0.1 for `ucd`), so the same draws give
    /// the same model bit for bit. The papers fix the scale without testing it; the claims
    /// explorer (`rbm explore --init-sigmas`) varies it.
    pub fn init_scaled(
        data: &Dataset,
        n: usize,
        init: Init,
        sigma: Option<f64>,
        rng: &mut Rng,
    ) -> Result<Rbm> {
        let m = data.m;
        check_size(m, n)?;
        let mut p = Params::zeros(m, n);
        match init {
            Init::Sdcp => {
                let sigma = sigma.unwrap_or(0.01);
                p.w.iter_mut()
                    .for_each(|x| *x = (sigma * normal(rng)) as f32);
                for (b, mu) in p.b.iter_mut().zip(data.mean()) {
                    let mu = mu.clamp(1e-3, 1.0 - 1e-3);
                    *b = libm::log(mu / (1.0 - mu)) as f32;
                }
            }
            Init::Ucd => {
                let sigma = sigma.unwrap_or(0.1);
                for blk in p.blocks_mut() {
                    blk.iter_mut()
                        .for_each(|x| *x = (sigma * normal(rng)) as f32);
                }
            }
        }
        Rbm::from_params(m, n, p)
    }

    /// An m×n model with every parameter drawn from N(0, scale²) on the `Aux` stream of
    /// `seed`: the simulated models of the UCD paper (scale 1, its §6.1) and of the tests.
    pub fn random(m: usize, n: usize, scale: f64, seed: u64) -> Result<Rbm> {
        check_size(m, n)?;
        let mut r = crate::rng::stream(seed, 0, crate::rng::Purpose::Aux);
        let mut p = Params::zeros(m, n);
        for blk in p.blocks_mut() {
            blk.iter_mut()
                .for_each(|x| *x = (scale * normal(&mut r)) as f32);
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
        self.wt.get_or_init(|| {
            let (m, n) = (self.m, self.n);
            let mut wt = vec![0.0; m * n];
            for (i, row) in self.w.chunks_exact(n).enumerate() {
                for (j, &x) in row.iter().enumerate() {
                    wt[j * m + i] = x;
                }
            }
            wt
        })
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
        static W_GEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        self.w_gen = W_GEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.wt = std::sync::OnceLock::new();
        let old = self.packed.take();
        if self.m * self.n >= EAGER_PACK_MIN {
            // Refilled in place: a large model's kernels read them after every edit.
            let (m, n) = (self.m, self.n);
            let mut p = old.unwrap_or_else(|| (Packed::new(m, n), Packed::new(n, m)));
            p.0.fill(&self.w);
            p.1.fill_transposed(&self.w);
            let _ = self.packed.set(p);
        }
    }

    /// W and Wᵀ packed by column chunks, packed now if not since the last edit.
    fn packed(&self) -> &(Packed, Packed) {
        self.packed.get_or_init(|| {
            let (m, n) = (self.m, self.n);
            let mut p = (Packed::new(m, n), Packed::new(n, m));
            p.0.fill(&self.w);
            p.1.fill_transposed(&self.w);
            p
        })
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

    /// Hidden pre-activations c + vᵀW for every row of `v` (rows × m, 0/1 or real values)
    /// into `out` (rows × n).
    #[inline]
    pub fn hidden_pre(&self, v: &[f32], out: &mut [f32]) {
        self.pre(Side::Hidden, v, out);
    }

    /// Visible pre-activations b + W h for every row of `h` (rows × n) into `out` (rows × m).
    #[inline]
    pub fn visible_pre(&self, h: &[f32], out: &mut [f32]) {
        self.pre(Side::Visible, h, out);
    }

    /// p(h=1|v) for every row of `v` (rows × m) into `hp` (rows × n).
    pub fn hidden_probs(&self, v: &[f32], hp: &mut [f32]) {
        self.probs(Side::Hidden, v, hp);
    }

    /// p(v=1|h) for every row of `h` (rows × n) into `vp` (rows × m).
    pub fn visible_probs(&self, h: &[f32], vp: &mut [f32]) {
        self.probs(Side::Visible, h, vp);
    }

    /// Samples h ~ p(h|v) for every row, with one uniform per unit from [`fill_uniform`], rows in order.
    pub fn sample_hidden(&self, v: &[f32], h: &mut [f32], rng: &mut Rng) {
        self.sample(Side::Hidden, v, h, None, rng);
    }

    /// [`Rbm::sample_hidden`] that also writes E[h|v] into `hp` (the same numbers as
    /// [`Rbm::hidden_probs`]), for estimators that need both the sample and its mean (UCD).
    pub fn sample_hidden_with_probs(
        &self,
        v: &[f32],
        h: &mut [f32],
        hp: &mut [f32],
        rng: &mut Rng,
    ) {
        self.sample(Side::Hidden, v, h, Some(hp), rng);
    }

    /// Samples v ~ p(v|h) for every row, with one uniform per unit from [`fill_uniform`], rows in order.
    pub fn sample_visible(&self, h: &[f32], v: &mut [f32], rng: &mut Rng) {
        self.sample(Side::Visible, h, v, None, rng);
    }

    /// The bias, packed weights and width of the conditional of `side`.
    fn side(&self, side: Side) -> (&[f32], &Packed, usize) {
        let (bias, _, width) = self.shape(side);
        let packed = match side {
            Side::Hidden => &self.packed().0,
            Side::Visible => &self.packed().1,
        };
        (bias, packed, width)
    }

    /// The bias of the conditional of `side`, its conditioning units and its width (without
    /// packing the weights).
    fn shape(&self, side: Side) -> (&[f32], usize, usize) {
        match side {
            Side::Hidden => (&self.c, self.m, self.n),
            Side::Visible => (&self.b, self.n, self.m),
        }
    }

    /// Pre-activations of `side` for the rows `x`, computed for every row without the
    /// conditionals' memo (the same bits as with it): also for callers whose rows are distinct
    /// patterns already (UCD's pattern tables), where a lookup would only cost.
    pub(crate) fn pre_direct(&self, side: Side, x: &[f32], out: &mut [f32]) {
        let (bias, packed, _) = self.side(side);
        match side {
            Side::Hidden => pre_activations(bias, || &self.w, packed, x, out),
            Side::Visible => pre_activations(bias, || self.wt(), packed, x, out),
        }
    }

    /// Pre-activations of `side` for conditioning patterns given as bit masks (bit i = unit i
    /// of a conditioning layer of at most 64 units) into `out` (`masks.len()` rows): the same
    /// bits as [`Rbm::pre_direct`] on the 0/1 rows, without the rows.
    pub(crate) fn pre_of_masks(&self, side: Side, masks: &[u64], out: &mut [f32]) {
        let (bias, packed, _) = self.side(side);
        debug_assert!(packed.k <= 64);
        SCRATCH.with_borrow_mut(|s| {
            if self.pre_of_masks_uses_prefix(side, masks.len()) {
                add_selected_prefix_packed(bias, packed, masks, &mut s.acc, out)
            } else {
                add_selected_packed(bias, packed, masks, 1, &mut s.acc, out)
            }
        })
    }

    /// Whether [`Rbm::pre_of_masks`] sums `count` patterns of `side` through prefix tables
    /// (otherwise it adds each pattern's rows one by one, in increasing order).
    pub(crate) fn pre_of_masks_uses_prefix(&self, side: Side, count: usize) -> bool {
        count >= PREFIX_MIN && self.shape(side).1 > PREFIX_BITS
    }

    /// What the conditional of `side` depends on besides the conditioning row: W (as the number
    /// drawn on its last edit) and the bias of the conditioned layer.
    pub(crate) fn conditional_params(&self, side: Side) -> (u64, &[f32]) {
        (self.w_gen, self.shape(side).0)
    }

    /// Runs `f` on the memo of `side` holding every row of `x` ([`crate::engine::cpu::patterns::memo`]), if it applies.
    /// With `means`, `f` may read the means ([`Memo::means`]).
    fn memo<R>(&self, side: Side, x: &[f32], means: bool, f: impl FnOnce(&Memo) -> R) -> Option<R> {
        let (bias, k, width) = self.shape(side);
        let c = Conditional {
            side,
            w_gen: self.w_gen,
            weights: self.w.len(),
            bias,
            k,
            width,
        };
        let compute = |rows: &[f32], out: &mut [f32]| self.pre_direct(side, rows, out);
        memo::with(&c, x, means, compute, f)
    }

    fn pre(&self, side: Side, x: &[f32], out: &mut [f32]) {
        let copied = self.memo(side, x, false, |m| {
            gather_rows(out, m.width(), &m.slots, &m.pre)
        });
        if copied.is_none() {
            self.pre_direct(side, x, out);
        }
    }

    fn probs(&self, side: Side, x: &[f32], p: &mut [f32]) {
        let done = self.memo(side, x, true, |m| copy_means(m, p));
        if done.is_none() {
            self.pre_direct(side, x, p);
            p.iter_mut().for_each(|a| *a = sigmoid(*a));
        }
    }

    /// Samples `out` ~ the conditional of `side` given the rows `x` (and its means into
    /// `probs`): thresholds from the memo when it applies, else computed; the same uniforms.
    fn sample(
        &self,
        side: Side,
        x: &[f32],
        out: &mut [f32],
        mut probs: Option<&mut [f32]>,
        rng: &mut Rng,
    ) {
        let done = self.memo(side, x, probs.is_some(), |m| {
            SCRATCH.with_borrow_mut(|s| {
                s.u.resize(out.len(), 0.0);
                fill_uniform(rng, &mut s.u);
                let w = m.width();
                for ((o, u), &slot) in out
                    .chunks_exact_mut(w)
                    .zip(s.u.chunks_exact(w))
                    .zip(&m.slots)
                {
                    bernoulli_row(o, u, m.t_of(slot));
                }
            });
            if let Some(p) = probs.as_deref_mut() {
                copy_means(m, p);
            }
        });
        if done.is_none() {
            self.pre_direct(side, x, out);
            sample_in_place(out, probs, rng);
        }
    }

    /// Free energy F(v) = −bᵀv − Σ_j softplus(c_j + (vᵀW)_j) in f64 (docs/algorithms.md §1).
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
}

/// E[x] for every row of the memo's current call (called with `means`).
fn copy_means(m: &Memo, p: &mut [f32]) {
    gather_rows(p, m.width(), &m.slots, m.means());
}

/// Row r of `out` (rows of `width`) ← row `slots[r]` of `table`.
fn gather_rows(out: &mut [f32], width: usize, slots: &[u32], table: &[f32]) {
    for (o, &s) in out.chunks_exact_mut(width).zip(slots) {
        let s = s as usize * width;
        copy_row(o, &table[s..s + width]);
    }
}

/// Replaces pre-activations `a` (any number of rows) by 0/1 samples: unit on iff
/// `u·(1+e^{−a}) < 1` (= u < σ(a)), one uniform per unit from [`fill_uniform`] in order; with
/// `probs`, also writes σ(a) = 1/(1+e^{−a}) there.
pub(crate) fn sample_in_place(a: &mut [f32], probs: Option<&mut [f32]>, rng: &mut Rng) {
    SCRATCH.with_borrow_mut(|s| {
        s.t.resize(a.len(), 0.0);
        s.u.resize(a.len(), 0.0);
        one_plus_exp_neg(a, &mut s.t);
        fill_uniform(rng, &mut s.u);
        bernoulli_row(a, &s.u, &s.t);
        if let Some(p) = probs {
            p.iter_mut().zip(&s.t).for_each(|(p, &t)| *p = 1.0 / t);
        }
    })
}

/// Work buffers of the Gibbs kernels, reused across calls so the hot path does not allocate
/// (on 9×4 models allocation would cost more than the arithmetic).
#[derive(Default)]
struct Scratch {
    bits: Vec<u64>,
    dense_rows: Vec<usize>,
    acc: Vec<f32>,
    t: Vec<f32>,
    u: Vec<f32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    use super::*;
    use crate::rng::{stream, Purpose};

    fn random_model(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
        Rbm::random(m, n, scale, seed).unwrap()
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

    /// The initialisation's own scale, given explicitly, is the same model bit for bit (the
    /// explorer's cell at the preset's σ is the preset's study); another scale scales W.
    #[test]
    fn an_init_scale_scales_the_draws_and_its_own_changes_nothing() {
        let d = Dataset::builtin("bas3").unwrap();
        for (init, own) in [(Init::Sdcp, 0.01), (Init::Ucd, 0.1)] {
            let at = |sigma| {
                Rbm::init_scaled(&d, 4, init, sigma, &mut stream(5, 0, Purpose::Init)).unwrap()
            };
            assert_eq!(at(None), at(Some(own)));
            let big = at(Some(own * 10.0));
            for (x, y) in big.w().iter().zip(at(None).w()) {
                assert!((*x as f64 - 10.0 * *y as f64).abs() <= 1e-6 * x.abs() as f64 + 1e-9);
            }
            if init == Init::Sdcp {
                assert_eq!(big.b, at(None).b, "b stays the base rates");
            }
        }
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

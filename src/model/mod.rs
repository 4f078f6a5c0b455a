//! The binary RBM (docs/algorithms.md §1): parameters, initialisation, conditionals, free energy,
//! sufficient statistics and the model file format.
//!
//! The weights are kept in both layouts — `w` (m×n, row i = visible unit i's weights) and
//! `wt` (n×m) — because v and h are 0/1: a pre-activation is a bias plus the rows selected by
//! the active units, a contiguous walk in either direction.

use crate::data::Dataset;
use crate::engine::cpu::kernels::by_unit::{rows_mask, sum_selected_bits2, transpose_bits};
use crate::engine::cpu::kernels::{bernoulli_row, copy_row, row_mask, sum_selected_bits};
use crate::engine::cpu::patterns::memo::{self, Conditional, Memo, Side};
use crate::error::{ensure, Error, Result};
use crate::math::{one_plus_exp_neg, sigmoid, softplus};
use crate::rng::{fill_uniform, normal, Rng};
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

/// The JSON model file: `{"visible": m, "hidden": n, "w": [m·n], "b": [m], "c": [n]}` with
/// `w[i*n+j]` joining visible i and hidden j, and optionally `"training"`: how a lane trained
/// it ([`crate::train::resume::Training`]), which readers of the model alone ignore.
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
    /// The lane's training settings and counters, when a lane saved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<serde_json::Value>,
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

    /// Serialises to the JSON model file format.
    pub fn to_json(&self) -> String {
        self.json_file(None)
    }

    /// [`Rbm::to_json`] with the `training` record of the lane that trained it.
    pub fn to_json_with(&self, training: serde_json::Value) -> String {
        self.json_file(Some(training))
    }

    fn json_file(&self, training: Option<serde_json::Value>) -> String {
        let f = |xs: &[f32]| xs.iter().map(|&x| x as f64).collect::<Vec<f64>>();
        let file = ModelFile {
            visible: self.m,
            hidden: self.n,
            w: f(&self.w),
            b: f(&self.b),
            c: f(&self.c),
            training,
        };
        serde_json::to_string(&file).expect("finite numbers serialise")
    }

    /// Serialises to the compact binary model format: little-endian, `RBMM`, format version
    /// (u32 = 1), m and n (u32 each), an FNV-1a 64 checksum of what follows (u64), then W
    /// (m×n, row-major), b (m) and c (n) as f32 — 4 bytes a parameter, about a fifth of the JSON
    /// file of a 784×500 model, and exact (the f32 bits are kept).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(4 * (self.w.len() + self.m + self.n));
        for x in self.w.iter().chain(&self.b).chain(&self.c) {
            body.extend_from_slice(&x.to_le_bytes());
        }
        let mut out = Vec::with_capacity(MODEL_HEADER + body.len());
        out.extend_from_slice(MODEL_MAGIC);
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&(self.m as u32).to_le_bytes());
        out.extend_from_slice(&(self.n as u32).to_le_bytes());
        out.extend_from_slice(&crate::data::mnist::fnv1a(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Serialises to version 2 of the binary format, with 8-bit weights: the header of
    /// [`Rbm::to_bytes`] (version 2), then per visible unit i a scale s_i = max_j |W_ij| / 127
    /// (f32), W as i8 with W_ij ≈ s_i·q_ij (rounded to nearest), and b, c as f32 — about a
    /// quarter of version 1, for models shipped with the page; each weight within s_i/2.
    pub fn to_quantized_bytes(&self) -> Vec<u8> {
        let n = self.n;
        let scales: Vec<f32> = self
            .w
            .chunks_exact(n)
            .map(|row| row.iter().fold(0.0f32, |a, &x| a.max(x.abs())) / 127.0)
            .collect();
        let mut body = Vec::with_capacity(4 * self.m + self.w.len() + 4 * (self.m + n));
        for s in &scales {
            body.extend_from_slice(&s.to_le_bytes());
        }
        for (row, &s) in self.w.chunks_exact(n).zip(&scales) {
            body.extend(row.iter().map(|&x| {
                let q = if s > 0.0 { (x / s).round() } else { 0.0 };
                q.clamp(-127.0, 127.0) as i8 as u8
            }));
        }
        for x in self.b.iter().chain(&self.c) {
            body.extend_from_slice(&x.to_le_bytes());
        }
        let mut out = Vec::with_capacity(MODEL_HEADER + body.len());
        out.extend_from_slice(MODEL_MAGIC);
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(self.m as u32).to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        out.extend_from_slice(&crate::data::mnist::fnv1a(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Parses the binary model format ([`Rbm::to_bytes`], version 1, or
    /// [`Rbm::to_quantized_bytes`], version 2), checking magic, version, sizes, checksum and
    /// finiteness.
    pub fn from_bytes(bytes: &[u8]) -> Result<Rbm> {
        let bad = |m: String| Error::Parse(format!("model file: {m}"));
        if bytes.len() < MODEL_HEADER || &bytes[..4] != MODEL_MAGIC {
            return Err(bad("not a binary model file (wrong magic bytes)".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let version = u32_at(4);
        if version != 1 && version != 2 {
            return Err(bad(format!(
                "format version {version}, this build reads 1 and 2"
            )));
        }
        let (m, n) = (u32_at(8) as usize, u32_at(12) as usize);
        check_size(m, n)?;
        let want = if version == 1 {
            4 * (m * n + m + n)
        } else {
            4 * m + m * n + 4 * (m + n)
        };
        if bytes.len() != MODEL_HEADER + want {
            return Err(bad(format!(
                "{} bytes, expected {} for {m}×{n} (format version {version})",
                bytes.len(),
                MODEL_HEADER + want
            )));
        }
        let body = &bytes[MODEL_HEADER..];
        let sum = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        if crate::data::mnist::fnv1a(body) != sum {
            return Err(bad(
                "checksum mismatch (the file is damaged or truncated)".into()
            ));
        }
        let f32s = |b: &[u8]| -> Vec<f32> {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        let (w, biases) = if version == 1 {
            let (w, rest) = body.split_at(4 * m * n);
            (f32s(w), f32s(rest))
        } else {
            let (scales, rest) = body.split_at(4 * m);
            let (q, rest) = rest.split_at(m * n);
            let scales = f32s(scales);
            let w = q
                .chunks_exact(n)
                .zip(&scales)
                .flat_map(|(row, &s)| row.iter().map(move |&q| s * f32::from(q as i8)))
                .collect();
            (w, f32s(rest))
        };
        let (b, c) = biases.split_at(m);
        Rbm::from_params(
            m,
            n,
            Params {
                w,
                b: b.to_vec(),
                c: c.to_vec(),
            },
        )
        .map_err(|e| match e {
            Error::Parse(s) => bad(s),
            other => other,
        })
    }

    /// Parses either model format: binary when `bytes` start with `RBMM`, else JSON.
    pub fn from_file_bytes(bytes: &[u8]) -> Result<Rbm> {
        Rbm::from_file_bytes_with(bytes).map(|(rbm, _)| rbm)
    }

    /// [`Rbm::from_file_bytes`], with the JSON file's `training` record if it has one (the
    /// binary format has none).
    pub fn from_file_bytes_with(bytes: &[u8]) -> Result<(Rbm, Option<serde_json::Value>)> {
        if bytes.starts_with(MODEL_MAGIC) {
            return Ok((Rbm::from_bytes(bytes)?, None));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Error::Parse("model file: neither JSON nor the binary format".into()))?;
        Rbm::from_json_with(text)
    }

    /// Parses the JSON model file format, checking sizes and finiteness.
    pub fn from_json(text: &str) -> Result<Rbm> {
        Rbm::from_json_with(text).map(|(rbm, _)| rbm)
    }

    /// [`Rbm::from_json`], with the file's `training` record if it has one.
    pub fn from_json_with(text: &str) -> Result<(Rbm, Option<serde_json::Value>)> {
        let f: ModelFile =
            serde_json::from_str(text).map_err(|e| Error::Parse(format!("model file: {e}")))?;
        let training = f.training;
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
        .map(|rbm| (rbm, training))
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

/// Magic bytes of the binary model format ([`Rbm::to_bytes`]).
pub const MODEL_MAGIC: &[u8; 4] = b"RBMM";
/// Header bytes of the binary model format.
pub const MODEL_HEADER: usize = 24;

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

/// A k×width row-major matrix re-laid by column chunks: chunk c holds, for every row i, the
/// `cw` columns c·cw … c·cw+cw−1 contiguously (zero-padded past `width`); cw = 32 (eight
/// 4-lane registers), or 16 / 8 for layers of at most 16 / 8 units. Summing selected rows then walks
/// one small contiguous block per chunk, which stays in cache across a batch.
#[derive(Clone, Debug, PartialEq)]
struct Packed {
    k: usize,
    width: usize,
    cw: usize,
    data: Vec<f32>,
}

impl Packed {
    fn new(k: usize, width: usize) -> Packed {
        let cw = if width <= 8 {
            8
        } else if width <= 16 {
            16
        } else {
            32
        };
        Packed {
            k,
            width,
            cw,
            data: vec![0.0; width.div_ceil(cw) * k * cw],
        }
    }

    fn fill(&mut self, mat: &[f32]) {
        match self.cw {
            8 => self.fill_chunks::<8>(mat),
            16 => self.fill_chunks::<16>(mat),
            _ => self.fill_chunks::<32>(mat),
        }
    }

    /// [`Packed::fill`] with the transpose of `mat` (`width`×`k` row-major): eight rows of
    /// `mat` at a time — eight sequential reads, one 8-value write per row of the packed matrix
    /// (a chunk width is a multiple of 8, so the eight values never straddle two chunks).
    fn fill_transposed(&mut self, mat: &[f32]) {
        let (k, width, cw) = (self.k, self.width, self.cw);
        let mut panels = mat.chunks_exact(8 * k);
        for (p, panel) in (&mut panels).enumerate() {
            let r: [&[f32]; 8] = std::array::from_fn(|t| &panel[t * k..(t + 1) * k]);
            let (c, o) = (8 * p / cw, 8 * p % cw);
            let blk = &mut self.data[c * k * cw..(c + 1) * k * cw];
            for (j, dst) in blk.chunks_exact_mut(cw).enumerate() {
                let d: &mut [f32; 8] = (&mut dst[o..o + 8]).try_into().expect("8 values");
                *d = std::array::from_fn(|t| r[t][j]);
            }
        }
        let i0 = width / 8 * 8;
        for (t, row) in panels.remainder().chunks_exact(k).enumerate() {
            let (c, o) = ((i0 + t) / cw, (i0 + t) % cw);
            for (j, &x) in row.iter().enumerate() {
                self.data[c * k * cw + j * cw + o] = x;
            }
        }
    }

    /// [`Packed::fill`] with the chunk width known at compile time (whole chunks are fixed-size
    /// copies, not `memmove` calls).
    fn fill_chunks<const CW: usize>(&mut self, mat: &[f32]) {
        let (k, width) = (self.k, self.width);
        for (c, blk) in self.data.chunks_exact_mut(k * CW).enumerate() {
            let c0 = c * CW;
            let cols = CW.min(width - c0);
            let (dst, _) = blk.as_chunks_mut::<CW>();
            if cols == CW {
                for (i, d) in dst.iter_mut().enumerate() {
                    *d = mat[i * width + c0..i * width + c0 + CW]
                        .try_into()
                        .expect("a whole chunk");
                }
            } else {
                for (i, d) in dst.iter_mut().enumerate() {
                    d[..cols].copy_from_slice(&mat[i * width + c0..i * width + c0 + cols]);
                }
            }
        }
    }
}

/// `out_r = bias + Σ_i x_ri · mat[i]` for every row r of `x` (rows of k values; `mat` is
/// k×width row-major, `packed` the same matrix by chunks): the binary-sparse pre-activation.
/// A 0/1 row adds the rows selected by its active units — no multiplies — chunk by chunk with
/// register accumulators, chunk-outer so each chunk's block is reused by the whole batch.
/// Rows with other values (mean-field, grey data) scale the selected rows. Additions run in
/// index order, so the result equals the dense product bit for bit.
fn pre_activations<'a>(
    bias: &[f32],
    mat: impl FnOnce() -> &'a [f32],
    packed: &Packed,
    x: &[f32],
    out: &mut [f32],
) {
    let (k, width) = (packed.k, packed.width);
    let words = k.div_ceil(64);
    SCRATCH.with_borrow_mut(|s| {
        // The active units of every binary row as a bitset of `words` words.
        let Scratch {
            bits,
            dense_rows,
            acc,
            ..
        } = s;
        let rows = x.len() / k;
        bits.resize(rows * words, 0);
        dense_rows.clear();
        for (r, (xr, br)) in x
            .chunks_exact(k)
            .zip(bits.chunks_exact_mut(words))
            .enumerate()
        {
            if !row_mask(xr, br) {
                br.fill(0);
                dense_rows.push(r);
            }
        }
        add_selected_packed(bias, packed, bits, words, acc, out);
        let mat = if dense_rows.is_empty() {
            &[][..]
        } else {
            mat()
        };
        for &r in dense_rows.iter() {
            let (xr, or) = (&x[r * k..(r + 1) * k], &mut out[r * width..(r + 1) * width]);
            or.copy_from_slice(bias);
            for (i, &xi) in xr.iter().enumerate() {
                if xi != 0.0 {
                    or.iter_mut()
                        .zip(&mat[i * width..(i + 1) * width])
                        .for_each(|(o, m)| *o += xi * m);
                }
            }
        }
    })
}

/// [`add_selected`] at the chunk width of `packed`.
fn add_selected_packed(
    bias: &[f32],
    packed: &Packed,
    bits: &[u64],
    words: usize,
    acc: &mut Vec<f32>,
    out: &mut [f32],
) {
    match packed.cw {
        8 => add_selected::<2>(bias, packed, bits, words, acc, out),
        16 => add_selected::<4>(bias, packed, bits, words, acc, out),
        _ => add_selected::<8>(bias, packed, bits, words, acc, out),
    }
}

/// `o` ← the first `o.len()` values of the chunk sums `a` (all 4·`Q` of them when the chunk is
/// whole: a fixed-size store, as a copy of run-time length calls memcpy).
#[inline(always)]
fn store_chunk<const Q: usize>(o: &mut [f32], a: &[[f32; 4]; Q]) {
    if o.len() == 4 * Q {
        let o: &mut [[f32; 4]; Q] = o.as_chunks_mut::<4>().0.try_into().expect("a whole chunk");
        *o = *a;
    } else {
        o.iter_mut()
            .zip(a.as_flattened())
            .for_each(|(o, a)| *o = *a);
    }
}

/// The low bits of a pattern whose sums a prefix table holds ([`add_selected_prefix`]).
const PREFIX_BITS: usize = 8;
/// Fewest patterns for which a prefix table pays: it costs 2^[`PREFIX_BITS`] row additions
/// and saves about half of each pattern's.
const PREFIX_MIN: usize = 128;

/// [`add_selected_prefix`] at the chunk width of `packed`.
fn add_selected_prefix_packed(
    bias: &[f32],
    packed: &Packed,
    masks: &[u64],
    table: &mut Vec<f32>,
    out: &mut [f32],
) {
    match packed.cw {
        8 => add_selected_prefix::<2>(bias, packed, masks, table, out),
        16 => add_selected_prefix::<4>(bias, packed, masks, table, out),
        _ => add_selected_prefix::<8>(bias, packed, masks, table, out),
    }
}

/// [`add_selected`] over one-word patterns (`masks`, more than [`PREFIX_BITS`] units) with the
/// same bits and fewer additions: per chunk of columns, a table holds b + Σ_{i ∈ p} row i for
/// every pattern p of the low [`PREFIX_BITS`] units, each entry from the entry without its
/// highest unit plus that unit's row — the additions [`add_selected`] makes, in the same
/// (increasing) order — and a pattern's sum continues from its low part's entry with the rows
/// of its other units, in increasing order.
fn add_selected_prefix<const Q: usize>(
    bias: &[f32],
    packed: &Packed,
    masks: &[u64],
    table: &mut Vec<f32>,
    out: &mut [f32],
) {
    let (width, cw) = (packed.width, 4 * Q);
    let (entries, low) = (1usize << PREFIX_BITS, (1u64 << PREFIX_BITS) - 1);
    table.resize(entries * cw, 0.0);
    let (t, _) = table.as_chunks_mut::<4>();
    let (t, _) = t.as_chunks_mut::<Q>();
    for (c, blk) in packed.data.chunks_exact(packed.k * cw).enumerate() {
        let c0 = c * cw;
        let cols = cw.min(width - c0);
        let mut b = [[0.0f32; 4]; Q];
        b.as_flattened_mut()[..cols].copy_from_slice(&bias[c0..c0 + cols]);
        t[0] = b;
        for p in 1..entries {
            let top = usize::BITS - 1 - p.leading_zeros();
            let row = &blk[top as usize * cw..(top as usize + 1) * cw];
            let mut e = t[p ^ (1 << top)];
            e.as_flattened_mut()
                .iter_mut()
                .zip(row)
                .for_each(|(e, &w)| *e += w);
            t[p] = e;
        }
        for (r, &mask) in masks.iter().enumerate() {
            let a = sum_selected_bits(&t[(mask & low) as usize], blk, 0, &[mask & !low]);
            store_chunk(&mut out[r * width + c0..r * width + c0 + cols], &a);
        }
    }
}

/// The accumulation of [`pre_activations`] over binary rows (`bits`: `words` words per row),
/// with chunks of 4·`Q` columns: chunk-outer, then blocks of rows of `mat` small enough for L1
/// (16 KB, a whole number of 64-row words), then the batch, so each block is reused by every
/// row of the batch while in cache. Each row's units are added in increasing order across
/// blocks, so the additions happen in index order.
fn add_selected<const Q: usize>(
    bias: &[f32],
    packed: &Packed,
    bits: &[u64],
    words: usize,
    acc: &mut Vec<f32>,
    out: &mut [f32],
) {
    let (k, width, cw) = (packed.k, packed.width, 4 * Q);
    let block_words = (64 / cw).max(1);
    let rows = bits.len() / words;
    for (c, blk) in packed.data.chunks_exact(k * cw).enumerate() {
        let c0 = c * cw;
        let cols = cw.min(width - c0);
        let mut b = [[0.0f32; 4]; Q];
        b.as_flattened_mut()[..cols].copy_from_slice(&bias[c0..c0 + cols]);
        let store = |out: &mut [f32], r: usize, a: &[[f32; 4]; Q]| {
            store_chunk(&mut out[r * width + c0..r * width + c0 + cols], a);
        };
        if words <= block_words {
            // One block: each row at once, straight to the output.
            for (r, br) in bits.chunks_exact(words).enumerate() {
                store(out, r, &sum_selected_bits(&b, blk, 0, br));
            }
            continue;
        }
        acc.resize(rows * cw, 0.0);
        let (acc, _) = acc.as_chunks_mut::<4>();
        let (acc, _) = acc.as_chunks_mut::<Q>();
        acc.iter_mut().for_each(|a| *a = b);
        for w0 in (0..words).step_by(block_words) {
            let w1 = (w0 + block_words).min(words);
            for (a, br) in acc.iter_mut().zip(bits.chunks_exact(words)) {
                *a = sum_selected_bits(a, blk, w0, &br[w0..w1]);
            }
        }
        for (r, a) in acc.iter().enumerate() {
            store(out, r, a);
        }
    }
}

/// `w[i] += Σ_{r ∈ bits_i} row r` for every unit i in `targets` and `c += Σ_r row r` (target
/// m, last, bitset `all`), where row r is the batch row r of E[h|v] in `data` (chunks of 4·`Q`
/// columns, as [`Packed`]), chunk by chunk, each sum in increasing row order; two targets at a
/// time so that their chains of additions overlap ([`sum_selected_bits2`]), in place.
fn add_rows_by_unit<const Q: usize>(
    sum: &mut Params<f32>,
    data: &[f32],
    rows: usize,
    bits: &[u64],
    all: &[u64],
    targets: &[usize],
) {
    let (n, cw) = (sum.c.len(), 4 * Q);
    let (m, rw) = (sum.b.len(), all.len());
    let bits_of = |t: usize| {
        if t == m {
            all
        } else {
            &bits[t * rw..(t + 1) * rw]
        }
    };
    for (ch, blk) in data.chunks_exact(rows * cw).enumerate() {
        let c0 = ch * cw;
        let cols = cw.min(n - c0);
        for t in targets.chunks(2) {
            match *t {
                [a, b] => {
                    // The chunk's columns of targets a < b (c is last), as disjoint slices.
                    let Params { w, c, .. } = &mut *sum;
                    let [x, y] = if b == m {
                        [&mut w[a * n + c0..a * n + c0 + cols], &mut c[c0..c0 + cols]]
                    } else {
                        let (lo, hi) = w.split_at_mut(b * n);
                        [
                            &mut lo[a * n + c0..a * n + c0 + cols],
                            &mut hi[c0..c0 + cols],
                        ]
                    };
                    if cols == cw {
                        let acc = [whole::<Q>(x), whole::<Q>(y)];
                        sum_selected_bits2(acc, blk, [bits_of(a), bits_of(b)]);
                    } else {
                        let mut acc = [[[0.0f32; 4]; Q]; 2];
                        acc[0].as_flattened_mut()[..cols].copy_from_slice(x);
                        acc[1].as_flattened_mut()[..cols].copy_from_slice(y);
                        let [p, q] = &mut acc;
                        sum_selected_bits2([p, q], blk, [bits_of(a), bits_of(b)]);
                        x.copy_from_slice(&acc[0].as_flattened()[..cols]);
                        y.copy_from_slice(&acc[1].as_flattened()[..cols]);
                    }
                }
                [a] => {
                    let dst = if a == m {
                        &mut sum.c[c0..c0 + cols]
                    } else {
                        &mut sum.w[a * n + c0..a * n + c0 + cols]
                    };
                    let mut acc = [[0.0f32; 4]; Q];
                    acc.as_flattened_mut()[..cols].copy_from_slice(dst);
                    acc = sum_selected_bits(&acc, blk, 0, bits_of(a));
                    dst.copy_from_slice(&acc.as_flattened()[..cols]);
                }
                _ => unreachable!("chunks of two"),
            }
        }
    }
}

/// `row[j] += a·x[j]` (`+= x[j]` when a = 1: the same value) for every j, four columns at a
/// time so that small rows (4 or 8 hidden units) take whole 4-lane additions.
#[inline]
fn add_scaled(row: &mut [f32], x: &[f32], a: f32) {
    let (rc, rr) = row.as_chunks_mut::<4>();
    let (xc, xr) = x[..rc.len() * 4 + rr.len()].as_chunks::<4>();
    if a == 1.0 {
        for (r, x) in rc.iter_mut().zip(xc) {
            *r = std::array::from_fn(|t| r[t] + x[t]);
        }
        rr.iter_mut().zip(xr).for_each(|(r, &x)| *r += x);
    } else {
        for (r, x) in rc.iter_mut().zip(xc) {
            *r = std::array::from_fn(|t| r[t] + a * x[t]);
        }
        rr.iter_mut().zip(xr).for_each(|(r, &x)| *r += a * x);
    }
}

/// A whole chunk of 4·`Q` columns as arrays of four.
fn whole<const Q: usize>(s: &mut [f32]) -> &mut [[f32; 4]; Q] {
    s.as_chunks_mut().0.try_into().expect("a whole chunk")
}

/// `b + 1 + 1 + … + 1` (`k` ones, added one at a time in f32) — by one addition of k when that
/// provably gives the same value: b an integer of magnitude at most 2²⁴ − k, so that every
/// partial sum is an integer f32 represents exactly.
fn add_ones(b: f32, k: u32) -> f32 {
    const EXACT: f64 = (1u32 << 24) as f64;
    if k == 0 {
        b
    } else if b.trunc() == b && f64::from(b.abs()) + f64::from(k) <= EXACT {
        b + k as f32
    } else {
        (0..k).fold(b, |b, _| b + 1.0)
    }
}

/// W row i and b_i of `sum` gain `weight · hp` and `weight` for every unit i set in `bits`
/// (bit j of word w = unit 64w + j), in increasing i.
#[inline(always)]
fn add_selected_rows(sum: &mut Params<f32>, bits: &[u64], hp: &[f32], weight: f32) {
    let n = sum.c.len();
    for (wi, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let i = 64 * wi + x.trailing_zeros() as usize;
            x &= x - 1;
            add_scaled(&mut sum.w[i * n..(i + 1) * n], hp, weight);
            sum.b[i] += weight;
        }
    }
}

/// Models with at least this many weights pack W and Wᵀ on every edit; smaller ones when a
/// kernel first reads them after an edit (small models' chains on patterns, and their
/// statistics, seldom do; one model's packing is then two small allocations).
const EAGER_PACK_MIN: usize = 1 << 14;

/// Below these sizes [`Stats::add`] goes row by row (same bits; packing would cost more).
const BY_UNIT_MIN_HIDDEN: usize = 16;
const BY_UNIT_MIN_ROWS: usize = 16;

/// Work buffers of [`Stats::add_binary_by_unit`] and [`Stats::add_row`].
#[derive(Clone, Debug)]
struct StatsScratch {
    row_bits: Vec<u64>,
    unit_bits: Vec<u64>,
    /// The bitset of every batch row (for the c sums).
    all: Vec<u64>,
    /// The statistics' rows to update: units with an active row in increasing order, then m
    /// for c.
    targets: Vec<usize>,
    packed: Packed,
}

/// Accumulated sufficient statistics s(v) = (v·E[h|v]ᵀ, v, E[h|v]) over a set of rows
/// (docs/algorithms.md §1), kept as sums with their row count.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Sums of s over the rows added.
    pub sum: Params<f32>,
    /// Number of rows added.
    pub count: f32,
    m: usize,
    n: usize,
    scratch: StatsScratch,
}

impl Stats {
    /// Empty statistics for an m×n model.
    pub fn new(m: usize, n: usize) -> Stats {
        Stats {
            sum: Params::zeros(m, n),
            count: 0.0,
            m,
            n,
            scratch: StatsScratch {
                row_bits: vec![0; m.div_ceil(64)],
                unit_bits: Vec::new(),
                all: Vec::new(),
                targets: Vec::new(),
                packed: Packed::new(0, 0),
            },
        }
    }

    /// Forgets everything added.
    pub fn clear(&mut self) {
        self.sum.clear();
        self.count = 0.0;
    }

    /// Adds s(v) for every row: `v` (rows × m) and the matching `hp` = E[h|v] (rows × n).
    pub fn add(&mut self, v: &[f32], hp: &[f32]) {
        let (m, n) = (self.m, self.n);
        let rows = v.len() / m;
        if n >= BY_UNIT_MIN_HIDDEN && rows >= BY_UNIT_MIN_ROWS && self.add_binary_by_unit(v, hp) {
            return;
        }
        for (vr, hr) in v.chunks_exact(m).zip(hp.chunks_exact(n)) {
            self.add_row(vr, hr, 1.0);
            self.count += 1.0;
        }
    }

    /// [`Stats::add`] for 0/1 rows, visible unit by visible unit: W row i gains the E[h|v] rows
    /// of the batch rows where unit i is on, in increasing row order — the same additions in
    /// the same order as row by row, but each 32-column chunk of the batch's E[h|v] stays in L1
    /// while every unit reads it, and W is walked once. The units' row bitsets are the
    /// transpose of the rows' ([`transpose_bits`]), b gains their popcounts ([`add_ones`]) and
    /// c is one more target whose bitset holds every row. Returns false (having changed
    /// nothing) if a row is not 0/1.
    fn add_binary_by_unit(&mut self, v: &[f32], hp: &[f32]) -> bool {
        let (m, rows) = (self.m, v.len() / self.m);
        let row_bits = &mut self.scratch.row_bits;
        row_bits.resize(rows * m.div_ceil(64), 0);
        if !rows_mask(v, m, row_bits) {
            return false;
        }
        self.add_row_bits_by_unit(rows, hp);
        true
    }

    /// [`Stats::add`] for 0/1 rows also given as patterns: `keys[r]` is row r of `v` (bit i =
    /// unit i; m ≤ 32). The same bits; the rows are not read again where the statistics are
    /// summed unit by unit.
    pub fn add_patterns(&mut self, v: &[f32], keys: &[u32], hp: &[f32]) {
        let (m, n) = (self.m, self.n);
        let rows = v.len() / m.max(1);
        assert!(m <= 32 && keys.len() == rows, "a 32-bit pattern per row");
        debug_assert!(v.chunks_exact(m).zip(keys).all(|(r, &k)| r
            .iter()
            .enumerate()
            .all(|(i, &x)| x == ((k >> i) & 1) as f32)));
        if n < BY_UNIT_MIN_HIDDEN || rows < BY_UNIT_MIN_ROWS {
            // Row by row, as `add_row` with weight 1 on the row's bits.
            for (&key, hr) in keys.iter().zip(hp.chunks_exact(n)) {
                add_selected_rows(&mut self.sum, &[u64::from(key)], hr, 1.0);
                add_scaled(&mut self.sum.c, hr, 1.0);
                self.count += 1.0;
            }
            return;
        }
        let row_bits = &mut self.scratch.row_bits;
        row_bits.clear();
        row_bits.extend(keys.iter().map(|&k| u64::from(k)));
        self.add_row_bits_by_unit(rows, hp);
    }

    /// The sums of [`Stats::add_binary_by_unit`] from the rows' bitsets in `scratch.row_bits`.
    fn add_row_bits_by_unit(&mut self, rows: usize, hp: &[f32]) {
        let (m, n) = (self.m, self.n);
        let (mw, rw) = (m.div_ceil(64), rows.div_ceil(64));
        let StatsScratch {
            row_bits,
            unit_bits,
            all,
            targets,
            packed,
        } = &mut self.scratch;
        unit_bits.resize(m * rw, 0);
        transpose_bits(row_bits, mw, m, unit_bits);
        targets.clear();
        for (i, (b, bi)) in self
            .sum
            .b
            .iter_mut()
            .zip(unit_bits.chunks_exact(rw))
            .enumerate()
        {
            let k = bi.iter().map(|w| w.count_ones()).sum();
            if k > 0 {
                *b = add_ones(*b, k);
                targets.push(i);
            }
        }
        targets.push(m);
        all.clear();
        all.resize(rw, u64::MAX);
        if !rows.is_multiple_of(64) {
            all[rw - 1] = (1 << (rows % 64)) - 1;
        }
        let hp = &hp[..rows * n];
        // E[h|v] one chunk wide is already in the chunk layout.
        let cw = Packed::new(0, n).cw;
        let data = if n == cw {
            hp
        } else {
            if packed.k != rows || packed.width != n {
                *packed = Packed::new(rows, n);
            }
            packed.fill(hp);
            &packed.data
        };
        match cw {
            8 => add_rows_by_unit::<2>(&mut self.sum, data, rows, unit_bits, all, targets),
            16 => add_rows_by_unit::<4>(&mut self.sum, data, rows, unit_bits, all, targets),
            _ => add_rows_by_unit::<8>(&mut self.sum, data, rows, unit_bits, all, targets),
        }
        self.count += rows as f32;
    }

    /// Adds `weight · s` for one row without counting it (for signed correction terms).
    pub fn add_weighted(&mut self, v: &[f32], hp: &[f32], weight: f32) {
        self.add_row(v, hp, weight);
    }

    /// Adds `weight · s(v)` with E[h|v] = `hp` for one row: the rows of W selected by v's
    /// active units (a bitset walk, no allocation), or every row scaled for a grey v.
    fn add_row(&mut self, v: &[f32], hp: &[f32], weight: f32) {
        let n = self.n;
        let bits = &mut self.scratch.row_bits[..self.m.div_ceil(64)];
        let sum = &mut self.sum;
        if row_mask(v, bits) {
            add_selected_rows(sum, bits, hp, weight);
        } else {
            for (i, &vi) in v.iter().enumerate() {
                let a = weight * vi;
                add_scaled(&mut sum.w[i * n..(i + 1) * n], hp, a);
                sum.b[i] += a;
            }
        }
        add_scaled(&mut sum.c, hp, weight);
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
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    /// The packed weights follow every edit, packed lazily (a small model) or in place (a large
    /// one), in the model and in a clone made before they were packed: both conditionals'
    /// pre-activations stay the plain sums.
    #[test]
    fn packed_weights_follow_every_edit_small_and_large() {
        use crate::rng::{stream, uniform, Purpose};
        for (m, n) in [(9, 4), (160, 120)] {
            assert_eq!(m * n >= EAGER_PACK_MIN, m > 9);
            let mut r = stream(2, m as u64, Purpose::Aux);
            let mut rows = |len: usize| -> Vec<f32> {
                (0..3 * len)
                    .map(|_| f32::from(u8::from(uniform(&mut r) < 0.5)))
                    .collect()
            };
            let (v, h) = (rows(m), rows(n));
            let mut rbm = Rbm::random(m, n, 0.5, 5).unwrap();
            for edit in 0..3 {
                rbm.edit_w(|w| w.iter_mut().for_each(|x| *x = 0.8 * *x + 0.01));
                let copy = rbm.clone();
                if edit == 1 {
                    rbm.edit_w(|w| w[0] += 1.0);
                }
                for model in [&rbm, &copy] {
                    let (mut a, mut g) = (vec![0.0; 3 * m], vec![0.0; 3 * n]);
                    model.visible_pre(&h, &mut a);
                    model.hidden_pre(&v, &mut g);
                    let w = model.w();
                    // Row r of `pre` against bias + Σ_k x_{r,k}·weight(k, out) in f64.
                    let check =
                        |pre: &[f32],
                         bias: &[f32],
                         x: &[f32],
                         weight: &dyn Fn(usize, usize) -> f32| {
                            let (outs, ins) = (bias.len(), x.len() / 3);
                            for (r, row) in pre.chunks_exact(outs).enumerate() {
                                for (o, &p) in row.iter().enumerate() {
                                    let dot =
                                        (0..ins).map(|k| (x[r * ins + k] * weight(k, o)) as f64);
                                    let want = bias[o] as f64 + dot.sum::<f64>();
                                    assert!((p as f64 - want).abs() < 1e-4, "{m}×{n}");
                                }
                            }
                        };
                    check(&a, &model.b, &h, &|j, i| w[i * n + j]);
                    check(&g, &model.c, &v, &|i, j| w[i * n + j]);
                }
            }
        }
    }

    #[test]
    fn the_quantised_format_is_within_half_a_step_and_refuses_damage() {
        let rbm = Rbm::random(9, 6, 0.7, 3).unwrap();
        let bytes = rbm.to_quantized_bytes();
        assert_eq!(bytes.len(), MODEL_HEADER + 4 * 9 + 9 * 6 + 4 * (9 + 6));
        let back = Rbm::from_file_bytes(&bytes).unwrap();
        assert_eq!(
            (back.b.clone(), back.c.clone()),
            (rbm.b.clone(), rbm.c.clone())
        );
        for (r0, r1) in rbm.w().chunks(6).zip(back.w().chunks(6)) {
            let step = r0.iter().fold(0.0f32, |a, &x| a.max(x.abs())) / 127.0;
            for (a, b) in r0.iter().zip(r1) {
                assert!((a - b).abs() <= step / 2.0 + 1e-7, "{a} vs {b}");
            }
        }
        let mut bad = bytes.clone();
        bad[MODEL_HEADER + 40] ^= 1;
        assert!(Rbm::from_bytes(&bad)
            .unwrap_err()
            .to_string()
            .contains("checksum"));
        assert!(Rbm::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut v3 = bytes;
        v3[4] = 3;
        assert!(Rbm::from_bytes(&v3)
            .unwrap_err()
            .to_string()
            .contains("version 3"));
    }

    #[test]
    fn the_binary_model_format_keeps_every_bit_and_refuses_damage() {
        let rbm = Rbm::random(7, 5, 0.7, 3).unwrap();
        let bytes = rbm.to_bytes();
        assert_eq!(bytes.len(), MODEL_HEADER + 4 * (7 * 5 + 7 + 5));
        let back = Rbm::from_bytes(&bytes).unwrap();
        assert_eq!(back, rbm);
        assert_eq!(Rbm::from_file_bytes(&bytes).unwrap(), rbm);
        assert_eq!(Rbm::from_file_bytes(rbm.to_json().as_bytes()).unwrap(), rbm);
        let mut damaged = bytes.clone();
        damaged[MODEL_HEADER + 9] ^= 4;
        assert!(Rbm::from_bytes(&damaged)
            .unwrap_err()
            .to_string()
            .contains("checksum"));
        assert!(Rbm::from_bytes(&bytes[..bytes.len() - 4]).is_err());
        let mut nan = rbm.clone();
        nan.edit(|_, b, _| b[0] = f32::NAN);
        let mut with_nan = nan.to_bytes();
        // A NaN with a valid checksum is still refused (sizes and finiteness are checked).
        assert!(Rbm::from_bytes(&with_nan).is_err());
        with_nan[0] = b'X';
        assert!(Rbm::from_file_bytes(&with_nan).is_err());
    }

    use super::*;
    use crate::rng::{stream, Purpose};

    fn random_model(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
        Rbm::random(m, n, scale, seed).unwrap()
    }

    /// s(v) summed by definition: row by row, W row i gains `weight·v_i·E[h|v]` for every
    /// active i, b gains `weight·v_i`, c gains `weight·E[h|v]`, in row order.
    fn straightforward(sum: &mut Params<f32>, v: &[f32], hp: &[f32], weight: f32) {
        let (m, n) = (sum.b.len(), sum.c.len());
        for (vr, hr) in v.chunks_exact(m).zip(hp.chunks_exact(n)) {
            for i in 0..m {
                if vr[i] != 0.0 {
                    let a = if vr[i] == 1.0 { weight } else { weight * vr[i] };
                    for j in 0..n {
                        sum.w[i * n + j] += if a == 1.0 { hr[j] } else { a * hr[j] };
                    }
                    sum.b[i] += a;
                }
            }
            for j in 0..n {
                sum.c[j] += weight * hr[j];
            }
        }
    }

    fn same_bits(a: &Params<f32>, b: &Params<f32>) -> bool {
        a.blocks()
            .iter()
            .zip(b.blocks())
            .all(|((_, x), (_, y))| x.iter().zip(y).all(|(x, y)| x.to_bits() == y.to_bits()))
    }

    #[test]
    fn statistics_are_the_row_by_row_sums_bit_for_bit() {
        let mut rng = stream(5, 0, Purpose::Aux);
        let sizes = [
            (70, 33, 16),
            (130, 64, 70),
            (9, 100, 131),
            (784, 40, 100),
            (16, 16, 1000),
            (16, 16, 30),
            (16, 17, 64),
            (13, 23, 65),
            (64, 32, 127),
            (5, 8, 200),
            (9, 4, 9),
            (3, 5, 40),
            (65, 7, 20),
        ];
        for (m, n, rows) in sizes {
            let mut v: Vec<f32> = (0..rows * m)
                .map(|_| f32::from(crate::rng::uniform(&mut rng) < 0.3))
                .collect();
            // A row of zeros, a row of ones and a unit on in every row.
            v[..m].fill(0.0);
            v[m * (rows - 1)..].fill(1.0);
            (0..rows).for_each(|r| v[r * m + m / 2] = 1.0);
            let hp: Vec<f32> = (0..rows * n)
                .map(|_| crate::rng::uniform(&mut rng))
                .collect();
            // Start from non-zero sums (b integer, non-integer and negative), then add twice
            // (reusing the scratch).
            let mut fast = Stats::new(m, n);
            for x in fast.sum.w.iter_mut().chain(&mut fast.sum.c) {
                *x = crate::rng::uniform(&mut rng);
            }
            for (i, b) in fast.sum.b.iter_mut().enumerate() {
                *b = match i % 4 {
                    0 => 0.0,
                    1 => 3.0 + crate::rng::uniform(&mut rng),
                    2 => -7.0,
                    _ => 16_777_000.0,
                };
            }
            let mut want = fast.sum.clone();
            for _ in 0..2 {
                fast.add(&v, &hp);
                straightforward(&mut want, &v, &hp, 1.0);
            }
            assert_eq!(fast.count, 2.0 * rows as f32);
            assert!(same_bits(&fast.sum, &want), "{m}x{n}, {rows} rows");
            // Grey rows: the whole batch goes row by row, scaled.
            let mut grey = v.clone();
            grey[m + 1] = 0.5;
            fast.add(&grey, &hp);
            straightforward(&mut want, &grey, &hp, 1.0);
            assert!(same_bits(&fast.sum, &want), "{m}x{n} grey");
            // Signed single rows.
            for (r, weight) in [(0, -1.0), (rows - 1, 1.0), (rows / 2, 0.25)] {
                let (vr, hr) = (&v[r * m..(r + 1) * m], &hp[r * n..(r + 1) * n]);
                fast.add_weighted(vr, hr, weight);
                straightforward(&mut want, vr, hr, weight);
            }
            assert!(same_bits(&fast.sum, &want), "{m}x{n} weighted");
        }
    }

    #[test]
    fn statistics_by_unit_leave_grey_batches_unchanged() {
        let (m, n, rows) = (20, 16, 40);
        let mut v = vec![1.0; rows * m];
        v[3 * m + 1] = 0.5;
        let hp = vec![0.5; rows * n];
        let mut s = Stats::new(m, n);
        s.sum.b[2] = 1.5;
        let before = s.sum.clone();
        assert!(!s.add_binary_by_unit(&v, &hp));
        assert_eq!((s.sum, s.count), (before, 0.0));
    }

    #[test]
    fn adding_ones_at_once_is_adding_them_one_by_one() {
        let big = 16_777_216.0f32;
        for b in [
            0.0,
            -0.0,
            1.0,
            -3.0,
            -1000.0,
            0.5,
            -2.25,
            1e-3,
            big - 100.0,
            big - 5.0,
            big,
            -big,
            big * 2.0,
            f32::INFINITY,
            f32::NAN,
        ] {
            for k in [0, 1, 2, 3, 5, 64, 100, 1000] {
                let one_by_one = (0..k).fold(b, |b, _| b + 1.0);
                assert_eq!(add_ones(b, k).to_bits(), one_by_one.to_bits(), "{b} + {k}");
            }
        }
    }

    #[test]
    fn packed_layouts_give_the_index_order_sums_bit_for_bit() {
        let mut rng = stream(9, 0, Purpose::Aux);
        for (m, n) in [(5, 3), (13, 20), (37, 70), (100, 9), (19, 784)] {
            let rbm = random_model(m, n, 1.0, (m * n) as u64);
            for i in 0..m {
                for j in 0..n {
                    assert_eq!(rbm.w()[i * n + j], rbm.wt()[j * m + i]);
                }
            }
            for (k, width, x_len, pre) in [(m, n, 4 * m, 0), (n, m, 4 * n, 1)] {
                let mut x: Vec<f32> = (0..x_len)
                    .map(|_| f32::from(crate::rng::uniform(&mut rng) < 0.4))
                    .collect();
                x[k + 1] = 0.25; // one grey row takes the dense path
                let mut out = vec![0.0; 4 * width];
                if pre == 0 {
                    rbm.hidden_pre(&x, &mut out);
                } else {
                    rbm.visible_pre(&x, &mut out);
                }
                for (xr, or) in x.chunks_exact(k).zip(out.chunks_exact(width)) {
                    let mut want = if pre == 0 {
                        rbm.c.clone()
                    } else {
                        rbm.b.clone()
                    };
                    for (i, &xi) in xr.iter().enumerate() {
                        for (t, w) in want.iter_mut().enumerate() {
                            let wij = if pre == 0 {
                                rbm.w()[i * n + t]
                            } else {
                                rbm.w()[t * n + i]
                            };
                            if xi != 0.0 {
                                *w += xi * wij;
                            }
                        }
                    }
                    assert!(
                        want.iter().zip(or).all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{m}x{n}"
                    );
                }
            }
        }
    }

    /// Pre-activations of patterns given as masks — below [`PREFIX_MIN`] patterns by
    /// [`add_selected`], from it on by the prefix tables of [`add_selected_prefix`] — are the
    /// index-order sums b + Σ_{i ∈ p} W_i, bit for bit, for every chunk width.
    #[test]
    fn pre_activations_of_masks_are_the_index_order_sums_bit_for_bit() {
        let mut rng = stream(11, 0, Purpose::Aux);
        for (m, n) in [(16, 16), (12, 5), (9, 30), (40, 37), (64, 8), (7, 12)] {
            let rbm = random_model(m, n, 1.0, (m + 100 * n) as u64);
            for side in [Side::Hidden, Side::Visible] {
                let (k, width, bias) = match side {
                    Side::Hidden => (m, n, &rbm.c),
                    Side::Visible => (n, m, &rbm.b),
                };
                for rows in [3, PREFIX_MIN - 1, PREFIX_MIN, 2 * PREFIX_MIN + 5] {
                    let masks: Vec<u64> = (0..rows)
                        .map(|_| rand::Rng::next_u64(&mut rng) & (u64::MAX >> (64 - k)))
                        .collect();
                    let mut out = vec![0.0; rows * width];
                    rbm.pre_of_masks(side, &masks, &mut out);
                    for (&mask, got) in masks.iter().zip(out.chunks_exact(width)) {
                        let mut want = bias.clone();
                        for i in (0..k).filter(|&i| mask >> i & 1 == 1) {
                            for (t, w) in want.iter_mut().enumerate() {
                                *w += match side {
                                    Side::Hidden => rbm.w()[i * n + t],
                                    Side::Visible => rbm.w()[t * n + i],
                                };
                            }
                        }
                        assert!(
                            want.iter()
                                .zip(got)
                                .all(|(a, b)| a.to_bits() == b.to_bits()),
                            "{m}x{n} {side:?} {rows} patterns"
                        );
                    }
                }
            }
        }
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

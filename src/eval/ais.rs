//! Annealed importance sampling (AIS) for log Z of a binary RBM, and reverse AIS (RAISE) for a
//! stochastic lower bound of the average log-likelihood (docs/algorithms.md §3 and §7).
//!
//! **AIS** (Neal 2001, *Annealed importance sampling*, Statistics and Computing 11; for RBMs
//! Salakhutdinov & Murray 2008, *On the quantitative analysis of deep belief networks*, ICML,
//! §3: Algorithm 1 and the ratio of two RBMs' partition functions). The base model A has zero weights, zero hidden biases and visible
//! biases `b_A`, so `log Z_A = Σ_i softplus(b_A,i) + n·ln 2` in closed form. With the target B =
//! (W, b, c), the intermediate distributions `p_β ∝ exp(−(1−β)·E_A − β·E_B)` share the hidden
//! layer (E_A does not involve h) and, with h summed out, are on the visible units only:
//!
//! `log f_β(v) = b_Aᵀv + β·(b − b_A)ᵀv + Σ_j softplus(β·a_j(v))`, `a(v) = c + vᵀW`,
//!
//! which is Salakhutdinov & Murray's form up to the constant `2^n` of A's own hidden units.
//! At β = 0 it is the base model, at β = 1 `log f_1 = −F(v)` (docs/algorithms.md §1). The
//! `betas` inverse temperatures are linear, `β_k = k/K` for k = 0…K, K = `betas` − 1 (both ends
//! included), or Salakhutdinov & Murray's own spacing ([`Schedule::SalakhutdinovMurray`]).
//! Each particle starts with an exact draw `v₀ ~ p_A`; for k = 1…K it adds
//! `log f_{β_k}(v) − log f_{β_{k−1}}(v)` to its log-weight and (for k < K) moves by one Gibbs
//! transition that leaves `p_{β_k}` invariant: `h ~ p_β(h|v)`, `p(h_j=1|v) = σ(β·a_j)`, then
//! `v ~ p_β(v|h)`, `p(v_i=1|h) = σ((1−β)·b_A,i + β·(b_i + (Wh)_i))`. Then
//! `Ẑ = Z_A · mean_p exp(log w_p)` is unbiased for Z (Neal 2001), so `log Ẑ` is an
//! under-estimate on average (Jensen) and the log-likelihood `mean(−F(v)) − log Ẑ` an
//! over-estimate: AIS gives the upper side of a bracket. The uncertainty is the one
//! Salakhutdinov & Murray report, log Ẑ ± 3 standard deviations: with `r̂` the mean weight and `σ̂ = sd(w)/√P` its standard error,
//! `log Ẑ_lo, log Ẑ_hi = log Z_A + log(r̂ ∓ 3σ̂)` (`−∞` when `r̂ − 3σ̂ ≤ 0`).
//!
//! **RAISE** (Burda, Grosse & Salakhutdinov 2015, *Accurate and conservative estimates of MRF
//! log-likelihood using reverse annealing*, AISTATS, §3). The same transitions define a directed
//! *annealing model* `p_ann(v_K) = Σ p_A(v₀) Π_{k=1..K} T_k(v_k|v_{k−1})`. Started at a test point
//! `v_K = v` and run backwards (`v_{k−1} ~ T_k(·|v_k)` for k = K…1; a Gibbs sweep on v is
//! reversible with respect to `p_{β_k}`, so the reverse kernel is the kernel itself), the chain is
//! an importance proposal for `p_ann(v)` with weight
//! `p̂(v) = f_1(v)/Z_A · Π_{k=1..K} f_{β_{k−1}}(v_{k−1}) / f_{β_k}(v_{k−1})`, unbiased for
//! `p_ann(v)`; so `log p̂(v)` is a stochastic lower bound of `log p_ann(v)` (Jensen), and
//! `p_ann → p` as the annealing gets slower. The first reverse transition is at β = 1
//! (`h ~ p(h|v)` under the target, docs/algorithms.md §7).
//!
//! **Note**: the bound is on the annealing model, not on the RBM itself (Burda et al. say so in
//! their abstract). Where the annealing has not equilibrated, `p_ann` can give the test points
//! more probability than `p` does, and RAISE's ATLL can then exceed the exact one. Measured
//! here: on a PCD-trained 784×20 MNIST model RAISE was above the exact test ATLL by about 0.45,
//! 0.33, 0.17, 0.06 and 0.045 nats at 10³, 3·10³, 10⁴, 3·10⁴ and 10⁵ β (below it at 100 β,
//! where the Jensen gap dominates); on a 784×16 model of ten noisy prototypes, by 4.0, 2.2 and
//! 1.6 nats at 10³, 10⁴ and 3·10⁴ β, while AIS's log Ẑ was within its bars of the exact log Z.
//! With enough β the bracket holds on average; with few it may not.
//!
//! **Data.** The base model's visible biases are the data's base rates (logit of each unit's
//! mean, clipped to [1e−3, 1 − 1e−3], [`base_rates`]) unless given; log Z alone defaults to the
//! model's own visible biases. Grey-level data are evaluated on their 0.5-threshold
//! binarisation, like the exact curves (docs/algorithms.md §2), and RAISE starts from those
//! binary rows.
//!
//! **Determinism.** All sums are f64 with the platform-independent kernels of [`crate::math`]
//! (and `libm`), so native and wasm give the same bits. Particles run in fixed blocks of
//! [`BLOCK_PARTICLES`]; block `i` draws from `stream(seed, LANE_TAG | i, Aux)` and the
//! results are combined in block order, so a shell may run the blocks ([`Plan::run_block`]) on
//! any number of threads or workers and get the same bits as [`ais_evaluate`] on one thread.
//! Pre-activations `a(v)` come from the f32 kernel [`Rbm::hidden_pre`] (a deterministic
//! function of v), so the estimator is exactly unbiased for the f32-rounded densities; the
//! rounding moves log Z by far less than the Monte-Carlo error (about 1e-5 nats on 784×500).

use crate::data::Dataset;
use crate::engine::cpu::kernels::bernoulli_row;
use crate::error::{Error, Result};
use crate::math::{exp_nonpos, one_plus_exp_neg, softplus, softplus_sum};
use crate::model::Rbm;
use crate::rng::{fill_uniform, shuffle, stream, Purpose, Rng};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::Arc;

/// Default number of particles (the S-DCP paper's §4.1 AIS set-up).
pub const DEFAULT_PARTICLES: usize = 100;

/// Default number of inverse temperatures, 0 and 1 included (the S-DCP paper's §4.1).
pub const DEFAULT_BETAS: usize = 10_000;

/// Largest number of particles (chains) accepted.
pub const MAX_PARTICLES: usize = 100_000;

/// Largest number of inverse temperatures accepted.
pub const MAX_BETAS: usize = 10_000_000;

/// Largest amount of work accepted: `particles × betas × ((m+1)(n+1) + 1024)`, roughly half an
/// hour on one native core at most (100 particles × 10 000 β on 784×500 is 3.9·10¹¹, ~25 s).
pub const MAX_WORK: u128 = 1 << 44;

/// Particles per block: the unit of seeding and of parallel work (see the module docs).
pub const BLOCK_PARTICLES: usize = 25;

/// The base rates of the data are clipped to `[CLIP, 1 − CLIP]` before the logit, as in the
/// S-DCP initialisation (docs/algorithms.md §4), so unused pixels get a finite bias.
pub const BASE_RATE_CLIP: f64 = 1e-3;

/// The tag in the lane of every AIS stream (`"AIS"` in ASCII, shifted above any block index),
/// so AIS never shares random numbers with another `Aux` user of the same seed (e.g.
/// [`Rbm::random`], which uses lane 0).
pub const LANE_TAG: u64 = 0x0041_4953 << 32;

/// The lane of the stream that picks the rows RAISE evaluates when there are fewer chains than
/// rows.
const ROW_PICK_LANE: u64 = LANE_TAG | (1 << 31);

/// How much annealing to do and with which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AisConfig {
    /// Number of independent annealing chains (importance samples), 2 ≤ P ≤ [`MAX_PARTICLES`].
    /// For RAISE: the total number of chains over all evaluated data rows.
    pub particles: usize,
    /// Number of inverse temperatures β, linear from 0 to 1 with both ends included
    /// (2 ≤ `betas` ≤ [`MAX_BETAS`]; 2 is plain importance sampling from the base model).
    pub betas: usize,
    /// Seed of the random streams.
    pub seed: u64,
    /// How the β are spaced (default linear; absent from older JSON: linear).
    #[serde(default)]
    pub schedule: Schedule,
}

impl Default for AisConfig {
    /// [`DEFAULT_PARTICLES`] particles, [`DEFAULT_BETAS`] β, seed 0, linear β.
    fn default() -> Self {
        AisConfig {
            particles: DEFAULT_PARTICLES,
            betas: DEFAULT_BETAS,
            seed: 0,
            schedule: Schedule::Linear,
        }
    }
}

impl AisConfig {
    /// β_k, k = 0…K (K = `betas` − 1): 0 at k = 0 and exactly 1 at k = K.
    pub fn beta(&self, k: usize) -> f64 {
        self.schedule.beta(k, self.betas - 1)
    }
}

/// The number of β of Salakhutdinov & Murray's schedule, 0 and 1 included.
pub const SM2008_BETAS: usize = 14_501;

/// How the inverse temperatures are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    /// `β_k = k/K`.
    #[default]
    Linear,
    /// Salakhutdinov & Murray 2008, §4.2 (*On the quantitative analysis of deep belief
    /// networks*): β in steps of 1/1000 from 0 to 0.5, of 1/10 000 from 0.5 to 0.9 and of
    /// 1/100 000 from 0.9 to 1 — [`SM2008_BETAS`] = 14 501 temperatures, denser where p_β
    /// changes fastest. With 100 runs, the protocol their MNIST figures use.
    SalakhutdinovMurray,
}

impl Schedule {
    /// β_k of a schedule of `k_total` + 1 temperatures.
    pub fn beta(self, k: usize, k_total: usize) -> f64 {
        match self {
            Schedule::Linear => k as f64 / k_total as f64,
            Schedule::SalakhutdinovMurray => {
                // In units of 10⁻⁵, so that every β (and the last, 1) is the nearest f64 to its
                // decimal value.
                let units = if k <= 500 {
                    k * 100
                } else if k <= 4_500 {
                    50_000 + (k - 500) * 10
                } else {
                    90_000 + (k - 4_500)
                };
                units as f64 / 100_000.0
            }
        }
    }

    /// The schedule's name on the command line and in JSON (`linear`, `sm2008`).
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Linear => "linear",
            Schedule::SalakhutdinovMurray => "sm2008",
        }
    }
}

/// An AIS estimate of log Z alone (Salakhutdinov & Murray 2008, §3.1 and §4).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogZEstimate {
    /// `log Ẑ = log Z_A + log mean_p w_p`; an under-estimate on average.
    pub log_z: f64,
    /// `log Z_A + log(r̂ − 3σ̂)`; `−∞` (JSON `null`) when `r̂ − 3σ̂ ≤ 0`.
    pub log_z_lo: f64,
    /// `log Z_A + log(r̂ + 3σ̂)`.
    pub log_z_hi: f64,
    /// The base model's exact `log Z_A`.
    pub base_log_z: f64,
    /// Effective sample size of the weights, `(Σw)²/Σw²` (1 … particles); a small value warns
    /// that a few particles dominate and the error bars are unreliable.
    pub ess: f64,
}

/// An AIS or RAISE evaluation of a data set: log Z and the average log-likelihood (ATLL) with
/// ±3 standard-error bars.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AisResult {
    /// AIS: `log Ẑ` (an under-estimate on average). RAISE: the log Z implied by its bound,
    /// `mean(−F(v)) − atll` (an over-estimate on average).
    pub log_z: f64,
    /// Lower end of the log Z bar (AIS: `log Z_A + log(r̂ − 3σ̂)`; RAISE: `log_z − 3·se`).
    pub log_z_lo: f64,
    /// Upper end of the log Z bar (AIS: `log Z_A + log(r̂ + 3σ̂)`; RAISE: `log_z + 3·se`).
    pub log_z_hi: f64,
    /// Average log-likelihood of the evaluated rows. AIS: `mean(−F(v)) − log Ẑ`, an
    /// over-estimate on average; RAISE: the mean of the per-row reverse estimates, a stochastic
    /// lower bound (Burda et al. 2015).
    pub atll: f64,
    /// Lower end of the ATLL bar (AIS: `mean(−F) − log_z_hi`; RAISE: `atll − 3·se`).
    pub atll_lo: f64,
    /// Upper end of the ATLL bar (AIS: `mean(−F) − log_z_lo`; RAISE: `atll + 3·se`).
    pub atll_hi: f64,
    /// `"ais"` or `"raise"`.
    pub method: &'static str,
    /// Number of chains.
    pub particles: usize,
    /// Number of inverse temperatures.
    pub betas: usize,
    /// The seed used.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub seed: u64,
    /// AIS: the data's rows. RAISE: the rows chains started from (all of them when
    /// `particles ≥ rows`, else a seeded random subset); the ATLL is over all rows either way.
    pub rows: usize,
    /// The base model's exact `log Z_A`.
    pub base_log_z: f64,
    /// Whether the data were grey levels, evaluated on their 0.5-threshold binarisation.
    pub thresholded: bool,
    /// AIS only: effective sample size of the importance weights (see [`LogZEstimate::ess`]);
    /// null for RAISE.
    pub ess: Option<f64>,
}

/// The visible biases of the base model for `data`: `logit` of each unit's mean, clipped to
/// `[BASE_RATE_CLIP, 1 − BASE_RATE_CLIP]` (the "base-rate model" of Salakhutdinov & Murray 2008,
/// §3.2; the same clip as the S-DCP initialisation, docs/algorithms.md §4).
pub fn base_rates(data: &Dataset) -> Vec<f32> {
    data.mean()
        .into_iter()
        .map(|mu| {
            let mu = mu.clamp(BASE_RATE_CLIP, 1.0 - BASE_RATE_CLIP);
            libm::log(mu / (1.0 - mu)) as f32
        })
        .collect()
}

/// Exact log partition function of the base model (zero weights and hidden biases, visible
/// biases `base_b`) with `n` hidden units: `Σ_i softplus(b_A,i) + n·ln 2`.
pub fn base_log_z(base_b: &[f32], n: usize) -> f64 {
    base_b.iter().map(|&b| softplus(b as f64)).sum::<f64>() + n as f64 * std::f64::consts::LN_2
}

/// Checks `cfg` against the limits for `rbm`.
pub fn check_config(rbm: &Rbm, cfg: &AisConfig) -> Result<()> {
    if !(2..=MAX_PARTICLES).contains(&cfg.particles) {
        return Err(Error::option(
            "particles",
            format!(
                "the number of AIS particles must be between 2 and {MAX_PARTICLES} (got {})",
                cfg.particles
            ),
        ));
    }
    if !(2..=MAX_BETAS).contains(&cfg.betas) {
        return Err(Error::option(
            "betas",
            format!(
                "the number of inverse temperatures β (0 and 1 included) must be between 2 and \
                 {MAX_BETAS} (got {})",
                cfg.betas
            ),
        ));
    }
    if cfg.schedule == Schedule::SalakhutdinovMurray && cfg.betas != SM2008_BETAS {
        return Err(Error::option(
            "betas",
            format!(
                "Salakhutdinov & Murray's schedule has {SM2008_BETAS} inverse temperatures β \
                 (got {})",
                cfg.betas
            ),
        ));
    }
    let per_step = ((rbm.m() + 1) * (rbm.n() + 1) + 1024) as u128;
    let work = cfg.particles as u128 * cfg.betas as u128 * per_step;
    if work > MAX_WORK {
        return Err(Error::TooLarge(format!(
            "AIS with {} particles × {} β on a {}×{} model is {:.2e} operations; the limit is \
             {:.2e} (use fewer particles or β)",
            cfg.particles,
            cfg.betas,
            rbm.m(),
            rbm.n(),
            work as f64,
            MAX_WORK as f64
        )));
    }
    Ok(())
}

/// Fails unless `data` fits `rbm` and has at least one row.
fn check_data(rbm: &Rbm, data: &Dataset) -> Result<()> {
    super::exact::check_fit(rbm, data)?;
    if data.rows() == 0 {
        return Err(Error::Invalid(format!(
            "data set '{}' has no rows",
            data.name
        )));
    }
    Ok(())
}

/// `data` checked against `rbm`, as given when binary, else thresholded at 0.5.
fn binary<'a>(rbm: &Rbm, data: &'a Dataset) -> Result<Cow<'a, Dataset>> {
    check_data(rbm, data)?;
    Ok(if data.is_binary() {
        Cow::Borrowed(data)
    } else {
        Cow::Owned(data.thresholded())
    })
}

/// `log mean exp(xs)` in f64 (fixed order).
fn log_mean_exp(xs: impl Iterator<Item = f64> + Clone) -> f64 {
    let mx = xs.clone().fold(f64::NEG_INFINITY, f64::max);
    let (mut s, mut k) = (0.0f64, 0usize);
    for x in xs {
        s += libm::exp(x - mx);
        k += 1;
    }
    mx + libm::log(s / k as f64)
}

/// Sample mean and standard error of the mean (`sd/√k`, with the `k − 1` variance).
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (k - 1.0).max(1.0);
    (mean, libm::sqrt(var / k))
}

/// A prepared AIS or RAISE run: the model, base model, schedule and (for RAISE) the starting
/// rows, split into blocks of [`BLOCK_PARTICLES`] chains that can run in any order, on any
/// thread or worker ([`Plan::run_block`] or, step by step, [`Plan::block`]); [`Plan::finish`]
/// combines their log-weights in block order.
///
/// A plan owns what it needs (a copy of the model and of the evaluated data) and is a cheap,
/// shareable handle, so a shell can keep a run across calls (a worker between slices) with no
/// borrow to manage.
#[derive(Clone)]
pub struct Plan(Arc<PlanParts>);

/// What a [`Plan`] holds.
pub struct PlanParts {
    rbm: Rbm,
    /// The data evaluated: binary rows as given, grey levels thresholded at 0.5.
    data: Option<Dataset>,
    /// Whether `data` are a thresholded copy of grey levels.
    thresholded: bool,
    cfg: AisConfig,
    reverse: bool,
    base_b: Vec<f32>,
    /// `b − b_A` in f64.
    diff: Vec<f64>,
    base_log_z: f64,
    /// RAISE: the rows evaluated; chain p starts at `rows[p % rows.len()]`.
    rows: Vec<usize>,
}

impl std::ops::Deref for Plan {
    type Target = PlanParts;
    fn deref(&self) -> &PlanParts {
        &self.0
    }
}

impl Plan {
    fn new(
        rbm: &Rbm,
        data: Option<Cow<'_, Dataset>>,
        base_b: Vec<f32>,
        cfg: AisConfig,
        reverse: bool,
        rows: Vec<usize>,
    ) -> Result<Plan> {
        check_config(rbm, &cfg)?;
        if base_b.len() != rbm.m() {
            return Err(Error::Invalid(format!(
                "the base model has {} visible biases but the model has {} visible units",
                base_b.len(),
                rbm.m()
            )));
        }
        if let Some(k) = base_b.iter().position(|x| !x.is_finite()) {
            return Err(Error::Invalid(format!(
                "visible bias {k} of the base model is not a finite number"
            )));
        }
        let diff = rbm
            .b
            .iter()
            .zip(&base_b)
            .map(|(&b, &a)| b as f64 - a as f64)
            .collect();
        let base_log_z = base_log_z(&base_b, rbm.n());
        Ok(Plan(Arc::new(PlanParts {
            rbm: rbm.clone(),
            thresholded: matches!(data, Some(Cow::Owned(_))),
            data: data.map(Cow::into_owned),
            cfg,
            reverse,
            base_b,
            diff,
            base_log_z,
            rows,
        })))
    }

    /// Forward AIS for log Z and the ATLL of `data`. The base model's visible biases are
    /// `base_b` (length m) or, when `None`, the data's base rates ([`base_rates`]). Grey-level
    /// data are evaluated on their 0.5-threshold binarisation ([`Dataset::thresholded`]), as the
    /// exact curves are (docs/algorithms.md §2).
    pub fn ais(rbm: &Rbm, data: &Dataset, base_b: Option<&[f32]>, cfg: AisConfig) -> Result<Plan> {
        let data = binary(rbm, data)?;
        let base = base_b.map_or_else(|| base_rates(&data), <[f32]>::to_vec);
        Plan::new(rbm, Some(data), base, cfg, false, Vec::new())
    }

    /// Forward AIS for log Z alone, with base visible biases `base_b` (length m), or the
    /// model's own `b` when `None` (a base model with the target's visible biases).
    pub fn ais_log_z(rbm: &Rbm, base_b: Option<&[f32]>, cfg: AisConfig) -> Result<Plan> {
        let base = base_b.map_or_else(|| rbm.b.clone(), <[f32]>::to_vec);
        Plan::new(rbm, None, base, cfg, false, Vec::new())
    }

    /// RAISE from the rows of `data`; base model and grey levels as in [`Plan::ais`]. When
    /// `particles ≥ rows`, every row gets chains (chain p starts at row `p mod rows`); with
    /// fewer chains than rows, a seeded random subset of `particles` rows gets one chain each.
    /// Either way the ATLL is over all rows (see [`Plan::finish`]).
    pub fn raise(
        rbm: &Rbm,
        data: &Dataset,
        base_b: Option<&[f32]>,
        cfg: AisConfig,
    ) -> Result<Plan> {
        let data = binary(rbm, data)?;
        let base = base_b.map_or_else(|| base_rates(&data), <[f32]>::to_vec);
        let n_rows = data.rows();
        let rows = if cfg.particles >= n_rows {
            (0..n_rows).collect()
        } else {
            let mut order: Vec<usize> = (0..n_rows).collect();
            shuffle(
                &mut stream(cfg.seed, ROW_PICK_LANE, Purpose::Aux),
                &mut order,
            );
            order.truncate(cfg.particles);
            order.sort_unstable();
            order
        };
        Plan::new(rbm, Some(data), base, cfg, true, rows)
    }

    /// The configuration.
    pub fn config(&self) -> &AisConfig {
        &self.cfg
    }

    /// The model evaluated.
    pub fn model(&self) -> &Rbm {
        &self.rbm
    }

    /// Whether this is a RAISE run (reverse annealing from data rows, Burda et al. 2015 §3).
    pub fn is_reverse(&self) -> bool {
        self.reverse
    }

    /// RAISE: the data row chain `chain` starts from, `v_K` of Burda et al. 2015 §3 (binary, the
    /// 0.5 threshold of grey levels): row `rows[chain mod rows.len()]` of the evaluated rows.
    /// `None` for forward AIS, whose chains start from exact draws of the base model.
    pub fn start_row(&self, chain: usize) -> Option<&[f32]> {
        let data = self.data.as_ref().filter(|_| self.reverse)?;
        Some(data.row(self.rows[chain % self.rows.len()]))
    }

    /// The base model's visible biases.
    pub fn base_b(&self) -> &[f32] {
        &self.base_b
    }

    /// The base model's exact log Z.
    pub fn base_log_z(&self) -> f64 {
        self.base_log_z
    }

    /// `"ais"` or `"raise"`.
    pub fn method(&self) -> &'static str {
        if self.reverse {
            "raise"
        } else {
            "ais"
        }
    }

    /// Number of blocks: ⌈particles / [`BLOCK_PARTICLES`]⌉.
    pub fn blocks(&self) -> usize {
        self.cfg.particles.div_ceil(BLOCK_PARTICLES)
    }

    /// Block `i` ready to run (its chains initialised), for a shell that wants progress and
    /// cancellation between steps ([`Block::advance`]).
    pub fn block(&self, i: usize) -> Result<Block> {
        if i >= self.blocks() {
            return Err(Error::Invalid(format!(
                "block {i} does not exist (the run has {} blocks)",
                self.blocks()
            )));
        }
        Ok(Block::new(self, i))
    }

    /// Runs block `i` to the end and returns the log-weights of its chains (AIS: log of the
    /// importance weight `w_p`; RAISE: `Σ_k log f_{β_k}(v_{k−1}) − log f_{β_{k−1}}(v_{k−1})`,
    /// the reverse chain's log-ratio without `log Z_A`).
    pub fn run_block(&self, i: usize) -> Result<Vec<f64>> {
        let mut b = self.block(i)?;
        b.advance(usize::MAX);
        Ok(b.into_log_weights())
    }

    /// Runs every block in order on this thread and combines them.
    pub fn run(&self) -> Result<AisResult> {
        let parts = (0..self.blocks())
            .map(|i| self.run_block(i))
            .collect::<Result<Vec<_>>>()?;
        self.finish(&parts)
    }

    /// The log-weights of all chains, checking that `parts` are the blocks' results in order.
    fn gather(&self, parts: &[Vec<f64>]) -> Result<Vec<f64>> {
        let ok = parts.len() == self.blocks()
            && parts
                .iter()
                .enumerate()
                .all(|(i, p)| p.len() == self.block_len(i));
        if !ok {
            return Err(Error::Invalid(format!(
                "expected the log-weights of {} blocks of {} chains ({} in all)",
                self.blocks(),
                BLOCK_PARTICLES,
                self.cfg.particles
            )));
        }
        Ok(parts.concat())
    }

    fn block_len(&self, i: usize) -> usize {
        BLOCK_PARTICLES.min(self.cfg.particles - i * BLOCK_PARTICLES)
    }

    /// Forward AIS: combines the blocks' log-weights (in block order) into `log Ẑ` with its
    /// ±3σ bars (Salakhutdinov & Murray 2008, §4).
    pub fn log_z(&self, parts: &[Vec<f64>]) -> Result<LogZEstimate> {
        if self.reverse {
            return Err(Error::Invalid(
                "a RAISE run gives a log-likelihood bound, not a log Z estimate".into(),
            ));
        }
        let lw = self.gather(parts)?;
        let mx = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = lw.iter().map(|&x| libm::exp(x - mx)).collect();
        let (mean, se) = mean_se(&w);
        let s1: f64 = w.iter().sum();
        let s2: f64 = w.iter().map(|x| x * x).sum();
        let at = |r: f64| {
            if r > 0.0 {
                self.base_log_z + mx + libm::log(r)
            } else {
                f64::NEG_INFINITY
            }
        };
        Ok(LogZEstimate {
            log_z: at(mean),
            log_z_lo: at(mean - 3.0 * se),
            log_z_hi: at(mean + 3.0 * se),
            base_log_z: self.base_log_z,
            ess: s1 * s1 / s2,
        })
    }

    /// Combines the blocks' log-weights (in block order) into the result. AIS: log Ẑ and
    /// `ATLL = mean(−F(v)) − log Ẑ` over every row of the data. RAISE: for each evaluated row,
    /// `log p̂(v) = −F(v) + d_v` with `d_v = log mean_c exp(−log Z_A − s_c)` over its chains c
    /// (an importance estimate of `p_ann(v)`, Burda et al. 2015 §3, averaged over chains before
    /// the log); then `ATLL = mean_all(−F(v)) + mean_evaluated(d_v)`: the exact free energies
    /// of all rows plus the mean of the rows' estimated `−log Z`. Over a random subset this has
    /// the same expectation as evaluating every row (still a stochastic lower bound) with far
    /// less variance than averaging the subset's `log p̂`. The bars are ±3 standard errors of
    /// `mean(d_v)` over rows (over the chains by the delta method when one row is evaluated);
    /// RAISE's `log_z` is `−mean(d_v)`, the log Z its bound implies.
    ///
    /// An estimate that cannot be computed is an error with its reason, never a result of
    /// NaN or infinite values (what the shells would print as `null` beside a success).
    pub fn finish(&self, parts: &[Vec<f64>]) -> Result<AisResult> {
        let r = self.combine(parts)?;
        // The bars may be unbounded (a lower end of log 0 when 3σ̂ exceeds the mean weight).
        let bars = [r.log_z_lo, r.log_z_hi, r.atll_lo, r.atll_hi];
        if r.log_z.is_finite() && r.atll.is_finite() && !bars.iter().any(|x| x.is_nan()) {
            return Ok(r);
        }
        let params = self.rbm.params();
        let top = (params.w.iter().chain(&params.b).chain(&params.c))
            .fold(0.0f32, |m, &x| m.max(x.abs()));
        let lw = self.gather(parts)?;
        let why = if lw.iter().all(|x| x.is_finite()) {
            "the importance weights underflow or their spread is too wide for f64".to_string()
        } else {
            format!(
                "the particles' log importance weights are not finite: the model's energies \
                 overflow (its largest |parameter| is {top:e})"
            )
        };
        Err(Error::TooLarge(format!(
            "{} cannot estimate {} of this model: {why}",
            if self.reverse { "RAISE" } else { "AIS" },
            if r.log_z.is_finite() {
                "the log-likelihood"
            } else {
                "log Z"
            },
        )))
    }

    /// [`Plan::finish`]'s numbers, finite or not.
    fn combine(&self, parts: &[Vec<f64>]) -> Result<AisResult> {
        let data = self.data.as_ref().ok_or_else(|| {
            Error::Invalid("this AIS run has no data set: use Plan::log_z for log Z alone".into())
        })?;
        let cfg = self.cfg;
        if !self.reverse {
            let z = self.log_z(parts)?;
            let rows = data.rows();
            let fe = (0..rows)
                .map(|r| -self.rbm.free_energy(data.row(r)))
                .sum::<f64>()
                / rows as f64;
            return Ok(AisResult {
                log_z: z.log_z,
                log_z_lo: z.log_z_lo,
                log_z_hi: z.log_z_hi,
                atll: fe - z.log_z,
                atll_lo: fe - z.log_z_hi,
                atll_hi: fe - z.log_z_lo,
                method: "ais",
                particles: cfg.particles,
                betas: cfg.betas,
                seed: cfg.seed,
                rows,
                base_log_z: self.base_log_z,
                thresholded: self.thresholded,
                ess: Some(z.ess),
            });
        }
        let lw = self.gather(parts)?;
        let r_count = self.rows.len();
        // Per evaluated row r: d_r = log mean_c exp(−ζ_c) over its chains, ζ_c = log Z_A + s_c,
        // so that log p̂(v_r) = −F(v_r) + d_r.
        let d: Vec<f64> = (0..r_count)
            .map(|r| {
                log_mean_exp(
                    lw.iter()
                        .skip(r)
                        .step_by(r_count)
                        .map(|&s| -(self.base_log_z + s)),
                )
            })
            .collect();
        let (mean_d, se) = if r_count >= 2 {
            mean_se(&d)
        } else {
            // One row, all chains on it: se of log mean w by the delta method, sd(w)/(√C·w̄).
            let top = lw.iter().map(|&s| -s).fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = lw.iter().map(|&s| libm::exp(-s - top)).collect();
            let (mean, se) = mean_se(&w);
            (d[0], se / mean)
        };
        let rows = data.rows();
        let fe = (0..rows)
            .map(|r| -self.rbm.free_energy(data.row(r)))
            .sum::<f64>()
            / rows as f64;
        let atll = fe + mean_d;
        Ok(AisResult {
            log_z: -mean_d,
            log_z_lo: -mean_d - 3.0 * se,
            log_z_hi: -mean_d + 3.0 * se,
            atll,
            atll_lo: atll - 3.0 * se,
            atll_hi: atll + 3.0 * se,
            method: "raise",
            particles: cfg.particles,
            betas: cfg.betas,
            seed: cfg.seed,
            rows: r_count,
            base_log_z: self.base_log_z,
            thresholded: self.thresholded,
            ess: None,
        })
    }
}

/// `Σ_j softplus(hi·a_j) − softplus(lo·a_j)` for `0 ≤ lo < hi`, in f64. With
/// `softplus(βx) = β·max(x, 0) + ln(1 + e^{−β|x|})` it is `(hi − lo)·Σ max(a_j, 0)` plus
/// `ln Π(1 + y_hi,j) / Π(1 + y_lo,j)`, `y = e^{−β|a_j|}`. When `(hi − lo)·max|a| ≤ 1/8` (every
/// step of a schedule with many β), `y_hi = y_lo · e^{−(hi−lo)|a_j|}` with the second factor
/// from its Taylor series to degree 9 (truncation < 3·10⁻¹⁶): one `exp` per unit instead of
/// two. Otherwise two [`softplus_sum`]s, using `buf` (length n). Fixed order: same bits on
/// every target.
fn softplus_diff(a: &[f32], hi: f64, lo: f64, buf: &mut [f64]) -> f64 {
    let d = hi - lo;
    let top = a.iter().fold(0.0f32, |m, &x| m.max(x.abs())) as f64;
    if d * top > 0.125 {
        buf.iter_mut().zip(a).for_each(|(b, &x)| *b = hi * x as f64);
        let s_hi = softplus_sum(buf);
        buf.iter_mut().zip(a).for_each(|(b, &x)| *b = lo * x as f64);
        return s_hi - softplus_sum(buf);
    }
    // e^{−t} for 0 ≤ t ≤ 1/8 by Horner on the Taylor coefficients (−1)^k / k!.
    const C: [f64; 10] = [
        1.0,
        -1.0,
        1.0 / 2.0,
        -1.0 / 6.0,
        1.0 / 24.0,
        -1.0 / 120.0,
        1.0 / 720.0,
        -1.0 / 5_040.0,
        1.0 / 40_320.0,
        -1.0 / 362_880.0,
    ];
    let mut total = 0.0;
    // Blocks of 512: every factor is in [1, 2], so the products stay below 2^512.
    for block in a.chunks(512) {
        let mut pos = [0.0f64; 4];
        let mut p_hi = [1.0f64; 4];
        let mut p_lo = [1.0f64; 4];
        let mut term = |j: usize, x: f32| {
            let x = x as f64;
            let ax = x.abs();
            pos[j] += x.max(0.0);
            let y_lo = exp_nonpos(-lo * ax);
            let t = d * ax;
            let mut e = C[9];
            for &c in C[..9].iter().rev() {
                e = e * t + c;
            }
            p_hi[j] *= 1.0 + y_lo * e;
            p_lo[j] *= 1.0 + y_lo;
        };
        let mut quads = block.chunks_exact(4);
        for q in &mut quads {
            for (j, &x) in q.iter().enumerate() {
                term(j, x);
            }
        }
        for (j, &x) in quads.remainder().iter().enumerate() {
            term(j, x);
        }
        let ratio = ((p_hi[0] * p_hi[1]) * (p_hi[2] * p_hi[3]))
            / ((p_lo[0] * p_lo[1]) * (p_lo[2] * p_lo[3]));
        total += d * ((pos[0] + pos[1]) + (pos[2] + pos[3])) + libm::log(ratio);
    }
    total
}

/// One block of chains of a [`Plan`], advanced step by step. Its random numbers come from
/// `stream(seed, LANE_TAG | block, Aux)` in a fixed order (per transition: one uniform per
/// hidden unit of every chain, then one per visible unit), so a block's result does not depend
/// on where or when it runs.
pub struct Block {
    plan: Plan,
    rng: Rng,
    /// Annealing steps done, 0 ..= K.
    done: usize,
    /// Current visible states, chains × m.
    v: Vec<f32>,
    /// `c + vᵀW` of the current states, chains × n.
    a: Vec<f32>,
    /// `(b − b_A)ᵀv` of the current states.
    dv: Vec<f64>,
    /// Hidden states, chains × n.
    h: Vec<f32>,
    /// Visible pre-activations, chains × m.
    x: Vec<f32>,
    /// `1 + e^{−pre}` and uniforms, chains × max(m, n).
    t: Vec<f32>,
    u: Vec<f32>,
    /// β·a of one chain in f64 (n).
    buf: Vec<f64>,
    logw: Vec<f64>,
}

impl Block {
    fn new(plan: &Plan, i: usize) -> Block {
        let (m, n) = (plan.rbm.m(), plan.rbm.n());
        let chains = plan.block_len(i);
        let mut b = Block {
            plan: plan.clone(),
            rng: stream(plan.cfg.seed, LANE_TAG | i as u64, Purpose::Aux),
            done: 0,
            v: vec![0.0; chains * m],
            a: vec![0.0; chains * n],
            dv: vec![0.0; chains],
            h: vec![0.0; chains * n],
            x: vec![0.0; chains * m],
            t: vec![0.0; chains * m.max(n)],
            u: vec![0.0; chains * m.max(n)],
            buf: vec![0.0; n],
            logw: vec![0.0; chains],
        };
        if plan.reverse {
            let first = i * BLOCK_PARTICLES;
            for (c, dst) in b.v.chunks_exact_mut(m).enumerate() {
                dst.copy_from_slice(plan.start_row(first + c).expect("a RAISE plan has data"));
            }
        } else {
            // v₀ ~ p_A exactly: independent units with p(v_i = 1) = σ(b_A,i).
            for row in b.x.chunks_exact_mut(m) {
                row.copy_from_slice(&plan.base_b);
            }
            b.sample_visible();
        }
        b.refresh();
        b
    }

    /// K = betas − 1: the number of steps of the run.
    pub fn steps(&self) -> usize {
        self.plan.cfg.betas - 1
    }

    /// Steps done so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Fraction of the block's work done, in [0, 1].
    pub fn progress(&self) -> f64 {
        self.done as f64 / self.steps() as f64
    }

    /// Runs up to `steps` more annealing steps; returns true when the block is finished.
    pub fn advance(&mut self, steps: usize) -> bool {
        let k_total = self.steps();
        let end = self.done.saturating_add(steps).min(k_total);
        let cfg = self.plan.cfg;
        let beta = |k: usize| cfg.beta(k);
        while self.done < end {
            let s = self.done + 1;
            if self.plan.reverse {
                // Step s goes down from β_k, k = K − s + 1: move under p_{β_k}, then weigh.
                let k = k_total - s + 1;
                self.transition(beta(k));
                self.add_log_ratio(beta(k), beta(k - 1));
            } else {
                self.add_log_ratio(beta(s), beta(s - 1));
                if s < k_total {
                    self.transition(beta(s));
                }
            }
            self.done = s;
        }
        self.done == k_total
    }

    /// The chains' log-weights so far.
    pub fn log_weights(&self) -> &[f64] {
        &self.logw
    }

    /// The chains' log-weights, consuming the block.
    pub fn into_log_weights(self) -> Vec<f64> {
        self.logw
    }

    /// `logw += log f_hi(v) − log f_lo(v)` for every chain at its current state.
    fn add_log_ratio(&mut self, hi: f64, lo: f64) {
        let n = self.plan.rbm.n();
        for ((ar, lw), &dv) in self.a.chunks_exact(n).zip(&mut self.logw).zip(&self.dv) {
            *lw += (hi - lo) * dv + softplus_diff(ar, hi, lo, &mut self.buf);
        }
    }

    /// One Gibbs transition leaving `p_β` invariant: h ~ p_β(h|v), then v ~ p_β(v|h).
    fn transition(&mut self, beta: f64) {
        let (bt, ct) = (beta as f32, (1.0 - beta) as f32);
        let hn = self.h.len();
        self.h
            .iter_mut()
            .zip(&self.a)
            .for_each(|(h, &a)| *h = bt * a);
        one_plus_exp_neg(&self.h, &mut self.t[..hn]);
        fill_uniform(&mut self.rng, &mut self.u[..hn]);
        bernoulli_row(&mut self.h, &self.u[..hn], &self.t[..hn]);
        self.plan.rbm.visible_pre(&self.h, &mut self.x);
        let base = &self.plan.base_b;
        for row in self.x.chunks_exact_mut(base.len()) {
            row.iter_mut()
                .zip(base)
                .for_each(|(x, &ba)| *x = bt * *x + ct * ba);
        }
        self.sample_visible();
        self.refresh();
    }

    /// v ~ Bernoulli(σ(x)) for the pre-activations in `x`, one uniform per unit in order.
    fn sample_visible(&mut self) {
        let vm = self.v.len();
        one_plus_exp_neg(&self.x, &mut self.t[..vm]);
        fill_uniform(&mut self.rng, &mut self.u[..vm]);
        bernoulli_row(&mut self.v, &self.u[..vm], &self.t[..vm]);
    }

    /// Recomputes `a = c + vᵀW` and `(b − b_A)ᵀv` for the current states.
    fn refresh(&mut self) {
        self.plan.rbm.hidden_pre(&self.v, &mut self.a);
        let diff = &self.plan.diff;
        for (vr, dv) in self.v.chunks_exact(diff.len()).zip(&mut self.dv) {
            // Four interleaved partial sums in a fixed order: vectorises, same bits everywhere.
            let mut acc = [0.0f64; 4];
            let mut vq = vr.chunks_exact(4);
            let mut dq = diff.chunks_exact(4);
            for (v4, d4) in (&mut vq).zip(&mut dq) {
                for j in 0..4 {
                    acc[j] += v4[j] as f64 * d4[j];
                }
            }
            for (j, (&v, &d)) in vq.remainder().iter().zip(dq.remainder()).enumerate() {
                acc[j] += v as f64 * d;
            }
            *dv = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        }
    }
}

/// AIS estimate of log Z (Salakhutdinov & Murray 2008, §3) with base visible biases `base_b`
/// (length m), or the model's own visible biases when `None`.
pub fn ais_log_z(rbm: &Rbm, base_b: Option<&[f32]>, cfg: AisConfig) -> Result<LogZEstimate> {
    let plan = Plan::ais_log_z(rbm, base_b, cfg)?;
    let parts = (0..plan.blocks())
        .map(|i| plan.run_block(i))
        .collect::<Result<Vec<_>>>()?;
    plan.log_z(&parts)
}

/// AIS estimate of log Z with the data's base rates as base model, and the resulting ATLL of
/// `data`, `mean(−F(v)) − log Ẑ`: an over-estimate on average, the upper side of the bracket
/// (docs/algorithms.md §3, §7).
pub fn ais_evaluate(rbm: &Rbm, data: &Dataset, cfg: AisConfig) -> Result<AisResult> {
    Plan::ais(rbm, data, None, cfg)?.run()
}

/// RAISE (Burda, Grosse & Salakhutdinov 2015): a stochastic lower bound of the ATLL of
/// `data` with the data's base rates as base model, from reverse annealing chains started at
/// its rows (see [`Plan::raise`] for how chains are assigned to rows and [`Plan::finish`] for
/// the estimate).
pub fn raise_evaluate(rbm: &Rbm, data: &Dataset, cfg: AisConfig) -> Result<AisResult> {
    Plan::raise(rbm, data, None, cfg)?.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-sum form with libm, in f64.
    fn reference(a: &[f32], hi: f64, lo: f64) -> f64 {
        let sp = |x: f64| x.max(0.0) + libm::log1p(libm::exp(-x.abs()));
        a.iter()
            .map(|&x| sp(hi * x as f64) - sp(lo * x as f64))
            .sum()
    }

    #[test]
    fn softplus_diff_matches_the_two_sums_on_both_paths() {
        let mut r = stream(5, 0, Purpose::Aux);
        for (n, scale) in [
            (1usize, 3.0),
            (7, 10.0),
            (500, 5.0),
            (1100, 20.0),
            (20, 300.0),
        ] {
            let a: Vec<f32> = (0..n)
                .map(|_| (scale * crate::rng::normal(&mut r)) as f32)
                .collect();
            let mut buf = vec![0.0; n];
            for (hi, lo) in [
                (1e-4, 0.0),
                (0.5, 0.4999),
                (1.0, 0.9999),
                (0.3, 0.1),
                (1.0, 0.0),
            ] {
                let got = softplus_diff(&a, hi, lo, &mut buf);
                let want = reference(&a, hi, lo);
                let tol = 1e-14 * (n as f64) * (1.0 + scale);
                assert!(
                    (got - want).abs() <= tol,
                    "n {n} scale {scale} β {hi}/{lo}: {got} vs {want}"
                );
            }
        }
    }
}

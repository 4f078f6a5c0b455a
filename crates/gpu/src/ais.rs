//! Annealed importance sampling for log Z, and its reverse (RAISE), on the GPU (issue 30): the
//! CPU's estimators (`rbm_core::eval::ais`, docs/algorithms.md §3 and §7) with the particles'
//! Gibbs transitions and log-weights in f32 on the GPU, all β steps recorded into a handful of
//! submissions.
//!
//! **The same estimators.** Base model A with visible biases `b_A`, zero weights and hidden
//! biases; `log f_β(v) = b_Aᵀv + β(b − b_A)ᵀv + Σ_j softplus(β a_j(v))`, `a(v) = c + vᵀW`;
//! the plan's `β_k` (`AisConfig::beta`: linear `k/K`, or Salakhutdinov & Murray's spacing), k = 0…K, K = `betas` − 1. Forward AIS (Salakhutdinov & Murray 2008, §3):
//! each particle starts with an exact draw `v₀ ~ p_A` and for k = 1…K adds `log f_{β_k}(v) −
//! log f_{β_{k−1}}(v)` to its log-weight, then (k < K) moves by `h ~ σ(β_k a)`, `v ~ σ((1−β_k)
//! b_A + β_k(b + W h))`. RAISE (Burda, Grosse & Salakhutdinov 2015, §3): each chain starts at
//! a data row (the CPU plan's [`Plan::start_row`]) and for k = K…1 first moves by that
//! transition at β_k, then adds `log f_{β_k}(v) − log f_{β_{k−1}}(v)` at the state it reached,
//! exactly as the CPU's reverse blocks do. The log-weights are read back and combined in f64 by
//! the CPU's own code ([`Plan::log_z`], [`Plan::finish`]): `log Ẑ = log Z_A + log mean w`, bars
//! `log Z_A + log(r̂ ∓ 3σ̂)`; RAISE's per-row `log p̂(v) = −F(v) + log mean_c exp(−log Z_A − s_c)`
//! and its ±3 standard errors over rows.
//!
//! **Per β step, three dispatches** (gemm.wgsl and shaders/ais.wgsl, no host round trip):
//! 1. `ais_step` (one workgroup per particle): the weight increment from `a(v)` and `v`, the
//!    draw `h ~ σ(β a)`, and `b_β = b + ((1−β)/β)·b_A` for the next product (β = β_k forward,
//!    β_{k−1} in reverse, where one more `ais_step` draws for the first transition, at β = 1);
//! 2. the product `v ~ σ(β (b_β + W h))` with the Bernoulli epilogue (mode 2);
//! 3. the product `a = c + vᵀW` (mode 4) for the next step.
//!
//! The random numbers are Philox4x32-10 on the GPU, keyed by (`seed`, [`LANE`]), draw `2t` for
//! the hidden and `2t + 1` for the visible units of transition t (forward: t = k, draw 1 for
//! `v₀`; reverse: t = 1 at β_K, …, t = K at β_1), uniform `r·cols + j` for unit j of particle
//! r; so a run is a deterministic function of its seed on a given GPU (not the CPU's stream:
//! the two estimates agree in law, not bit for bit).
//!
//! **Error of f32.** The schedule is the f32 rounding of `k/K`; the increment's `Δβ = β_k −
//! β_{k−1}` is computed from those f32 values, which is exact (Sterbenz), so the f32 schedule is
//! itself a valid AIS schedule from 0 to 1 and the estimator stays unbiased for it. Each
//! softplus difference is evaluated without cancellation, `Δβ·max(x, 0) + log1p(y·expm1(−Δβ|x|)
//! /(1 + y))`, `y = e^{−β_{k−1}|x|}`, with series for the small arguments (WGSL's `log` near 1
//! has only an absolute accuracy of 2⁻²¹), so each increment carries a relative error of a few
//! f32 ulps (~1e−6) instead of the ~1e−3 a difference of two f32 softplus values would have at
//! 10⁴ β. The per-particle sum of K increments (log w is hundreds of nats on 784×500) is kept
//! as a double-single pair (hi, lo) updated by an error-free two-sum, so accumulation adds about
//! 1e−12 relative instead of the plain f32 sum's random walk of √K·ulp(log w)/2 (~3e−3 nats at
//! 10⁴ β, up to 0.3 if the roundings were biased). What is left is (i) the increments' own
//! rounding, ~1e−7–1e−6 relative (mostly the GPU's `exp`, whose WGSL accuracy is 3 + 2|x| ulp),
//! mostly random from step to step; its worst case, the same increment repeated (W = 0, the
//! tests), measured on lavapipe as 1.5e−4 nats on a log-weight of 376 after 10⁴ β; and (ii) the
//! transitions using f32 pre-activations, i.e. leaving a distribution within f32 rounding of
//! p_β invariant, as the CPU's f32 kernels do: both far below AIS's
//! Monte-Carlo error.

use crate::device::{Buf, Device, Params, Pipeline};
use crate::product::{self, key_halves, Batch, Epilogue, Product};
use rbm_core::error::{Error, Result};
use rbm_core::eval::ais::{AisConfig, AisResult, LogZEstimate, Plan, BLOCK_PARTICLES, LANE_TAG};
use rbm_core::model::Rbm;
use rbm_core::rng::philox;
use std::sync::Arc;

/// The Philox lane of the GPU's AIS and RAISE draws: the CPU's AIS tag with bit 30 set, apart
/// from the CPU's blocks (`LANE_TAG | block`) and its RAISE row pick (`LANE_TAG | 1 << 31`).
/// As on the CPU, AIS and RAISE with the same seed draw from the same stream.
pub const LANE: u64 = LANE_TAG | (1 << 30);

/// Largest grid dimension WebGPU guarantees.
const MAX_GROUPS: u32 = 65_535;

/// Flags of `ais_step`: bit 0, draw h for a transition; bit 1, add a weight increment.
const DRAW: u32 = 1;
const WEIGH: u32 = 2;
/// Flag of `ais_step` and of a batch's products: a batch of models, each with its own key.
const BATCH: u32 = 4;

/// The per-particle log-weights `log w_p` of a forward AIS run (f64 from the GPU's
/// double-single pairs), for `particles` chains and `betas` inverse temperatures (0 and 1
/// included) from the base model with visible biases `base`.
pub fn log_weights(
    dev: &Arc<Device>,
    model: &Rbm,
    base: &[f32],
    particles: usize,
    betas: usize,
    seed: u64,
) -> Result<Vec<f64>> {
    let cfg = AisConfig {
        particles,
        betas,
        seed,
        schedule: Default::default(),
    };
    // The CPU's checks (sizes, limits, finite base biases) are the plan's.
    plan_log_weights(dev, &Plan::ais_log_z(model, Some(base), cfg)?)
}

/// AIS estimate of log Z (Salakhutdinov & Murray 2008, §3) on the GPU, with base visible
/// biases `base` (length m; the model's own `b` is the CPU's default, the data's base rates
/// `rbm_core::eval::ais::base_rates` the usual choice for a trained model): the CPU's
/// [`LogZEstimate`], combined by the CPU's code from the GPU's log-weights.
pub fn log_z(
    dev: &Arc<Device>,
    model: &Rbm,
    base: &[f32],
    particles: usize,
    betas: usize,
    seed: u64,
) -> Result<LogZEstimate> {
    let cfg = AisConfig {
        particles,
        betas,
        seed,
        schedule: Default::default(),
    };
    let plan = Plan::ais_log_z(model, Some(base), cfg)?;
    plan.log_z(&blocks(&plan_log_weights(dev, &plan)?))
}

/// The log-weight of every chain of `plan` in chain order, run on the GPU: what the CPU's
/// [`Plan::run_block`] gives block by block, for the same definitions. Forward AIS
/// (Salakhutdinov & Murray 2008, §3, Algorithm 1): `log w = Σ_{k=1..K} log f_{β_k}(v_{k−1}) −
/// log f_{β_{k−1}}(v_{k−1})` from `v₀ ~ p_A`. RAISE (Burda, Grosse & Salakhutdinov 2015, §3,
/// the reverse chain of eq. 9–10): each chain starts at its data row ([`Plan::start_row`]) and for
/// k = K…1 moves by one transition leaving `p_{β_k}` invariant, then adds `log f_{β_k}(v_{k−1})
/// − log f_{β_{k−1}}(v_{k−1})`, so that `log p̂(v) = −F(v) − log Z_A − s` ([`Plan::finish`]).
pub fn plan_log_weights(dev: &Arc<Device>, plan: &Plan) -> Result<Vec<f64>> {
    run(dev, plan)
}

/// An AIS or RAISE evaluation of `plan` ([`Plan::ais`], [`Plan::raise`]) with its chains on the
/// GPU ([`plan_log_weights`]), combined by the CPU's [`Plan::finish`] in f64: AIS's upper and
/// RAISE's lower stochastic bound of the average log-likelihood (Burda et al. 2015, §3–4), the
/// same fields as the CPU's `ais_evaluate` and `raise_evaluate`.
pub fn evaluate(dev: &Arc<Device>, plan: &Plan) -> Result<AisResult> {
    plan.finish(&blocks(&plan_log_weights(dev, plan)?))
}

/// Chain-ordered log-weights cut into the CPU's blocks of [`BLOCK_PARTICLES`].
fn blocks(lw: &[f64]) -> Vec<Vec<f64>> {
    lw.chunks(BLOCK_PARTICLES).map(<[f64]>::to_vec).collect()
}

/// The GPU buffers and kernels of one run: one model's particles, or a batch of models'
/// (`batched`: each model's buffers one after the other, its draws under its own key).
struct Run {
    dev: Arc<Device>,
    step: Arc<Pipeline>,
    /// Models in the run (1 unless batched).
    models: usize,
    batched: bool,
    /// Particles (chains) per model.
    p: usize,
    m: usize,
    n: usize,
    /// The key of a run of one model (a batch's keys are in `vis` and `hb`).
    key: [u32; 2],
    /// W, m×n row-major, per model.
    w: Buf,
    /// c (n) per model.
    c: Buf,
    /// [b − b_A | b | b_A] (3m) per model, then a batch's keys (4 per model).
    vis: Buf,
    /// Visible states, particles × m per model.
    v: Buf,
    /// a = c + vᵀW, particles × n per model.
    a: Buf,
    /// [h (models · particles × n) | b_β (m per model) | a batch's keys (4 per model)].
    hb: Buf,
    /// Log-weights as (hi, lo) pairs, particles per model.
    lw: Buf,
}

/// An AIS or RAISE run on the GPU taken a few β steps at a time ([`Anneal::advance`]), whose
/// log-weights come back without waiting ([`Anneal::finish`]): what a browser's worker runs
/// between a lane's training slices (its GPU answers through the event loop). The same
/// dispatches, in the same order, as [`plan_log_weights`]. [`Anneal::batch`] anneals several
/// models at once, three dispatches per β step for all of them.
pub struct Anneal {
    r: Run,
    /// The plan's configuration (its β schedule).
    cfg: AisConfig,
    reverse: bool,
    /// β steps (transitions with their increments) recorded so far, of `total`.
    done: usize,
    total: usize,
}

impl Anneal {
    /// The run of `plan` on `dev`, its start recorded (AIS: `v₀ ~ p_A`; RAISE: the first
    /// transition at β = 1 from the data rows).
    pub fn new(dev: &Arc<Device>, plan: &Plan) -> Result<Anneal> {
        Anneal::start(setup(dev, std::slice::from_ref(plan), false)?, plan)
    }

    /// The runs of several `plans` as one (a study's checkpoint models of every trial and
    /// lane): the plans must agree in direction, model size, particles and β schedule; their
    /// models, base rates, data rows and seeds may differ. Each model's log-weights are those
    /// of `Anneal::batch` on that plan alone, bit for bit, whatever else is in the batch
    /// (tested): its products are never split over workgroups (for a large model alone,
    /// [`Anneal::new`] splits them and so sums in another order), and its draws are under its
    /// own seed's key at its own particles' indices.
    pub fn batch(dev: &Arc<Device>, plans: &[Plan]) -> Result<Anneal> {
        let first = plans
            .first()
            .ok_or_else(|| Error::Invalid("a batch of AIS runs needs a plan".into()))?;
        let shape = |q: &Plan| {
            let c = q.config();
            (
                q.is_reverse(),
                q.model().m(),
                q.model().n(),
                c.particles,
                c.betas,
                c.schedule,
            )
        };
        if let Some(q) = plans.iter().find(|q| shape(q) != shape(first)) {
            return Err(Error::Invalid(format!(
                "the runs of one AIS batch must agree in direction, size, particles and β;                  {:?} and {:?} differ",
                shape(first),
                shape(q)
            )));
        }
        Anneal::start(setup(dev, plans, true)?, first)
    }

    fn start(r: Run, plan: &Plan) -> Result<Anneal> {
        let k_total = plan.config().betas - 1;
        if plan.is_reverse() {
            r.hidden();
            r.step(1.0, 1.0, 1.0, DRAW, 1);
            r.visible(1.0, 1);
        } else {
            // v₀ ~ p_A: a product over depth 0 is its bias, b_A (A is never read).
            let (p, m, n) = (r.p, r.m, r.n);
            r.gemm(Gemm {
                rows: p,
                cols: m,
                depth: 0,
                a: (&r.a, m, 1, p * n),
                b: (&r.w, 1, n, m * n),
                bias: (&r.vis, 2 * m, 3 * m),
                keys: Some(3 * m * r.models),
                mode: 2,
                f0: 1.0,
                draw: 1,
                out: (&r.v, p * m),
            });
            r.hidden();
        }
        Ok(Anneal {
            r,
            cfg: *plan.config(),
            reverse: plan.is_reverse(),
            done: 0,
            total: k_total,
        })
    }

    /// The device it runs on.
    pub fn device(&self) -> &Arc<Device> {
        &self.r.dev
    }

    /// β steps recorded so far and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.done, self.total)
    }

    /// Records up to `max_steps` more β steps (none once all are); true when all are.
    pub fn advance(&mut self, max_steps: usize) -> bool {
        let r = &self.r;
        let k_total = self.total;
        let cfg = self.cfg;
        let beta = |k: usize| cfg.beta(k) as f32;
        let end = (self.done + max_steps).min(k_total);
        for t in self.done + 1..=end {
            if self.reverse {
                // Transition t = 1…K at β_k, k = K − t + 1, then the increment from β_k down
                // to β_{k−1} at the state it reached; each step's dispatch weighs the previous
                // step's state and draws h for the next transition.
                let k = k_total - t + 1;
                let more = k > 1;
                let (hi, lo) = (beta(k), beta(k - 1));
                r.step(hi, lo, lo, WEIGH | if more { DRAW } else { 0 }, t + 1);
                if more {
                    r.visible(lo, t + 1);
                }
            } else {
                // Step k = t: the increment from β_{k−1} up to β_k at the current state, then
                // (k < K) transition k at β_k.
                let k = t;
                let more = k < k_total;
                let (hi, lo) = (beta(k), beta(k - 1));
                r.step(hi, lo, hi, WEIGH | if more { DRAW } else { 0 }, k);
                if more {
                    r.visible(hi, k);
                }
            }
        }
        self.done = end;
        self.done == k_total
    }

    /// A copy of the log-weights as (hi, lo) pairs on its way to the host, once every step is
    /// recorded ([`Anneal::log_weights`] makes them f64; a batch's come model after model).
    pub fn finish(&self) -> crate::Snapshot {
        self.r
            .dev
            .snapshot(&self.r.lw, 0, 2 * self.r.models * self.r.p)
    }

    /// The log-weights (one per chain, in chain order) from [`Anneal::finish`]'s pairs.
    pub fn log_weights(pairs: &[f32]) -> Vec<f64> {
        pairs
            .chunks_exact(2)
            .map(|q| q[0] as f64 + q[1] as f64)
            .collect()
    }

    /// The log-weights cut into the CPU's blocks, for [`Plan::finish`].
    pub fn blocks(log_weights: &[f64]) -> Vec<Vec<f64>> {
        blocks(log_weights)
    }

    /// A batch's log-weights ([`Anneal::log_weights`]) cut per model, in the plans' order.
    pub fn per_model(&self, log_weights: &[f64]) -> Vec<Vec<f64>> {
        log_weights.chunks(self.r.p).map(<[f64]>::to_vec).collect()
    }
}

/// Each plan's chains' log-weights, the plans annealed as one batch ([`Anneal::batch`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn plans_log_weights(dev: &Arc<Device>, plans: &[Plan]) -> Result<Vec<Vec<f64>>> {
    let mut a = Anneal::batch(dev, plans)?;
    a.advance(usize::MAX);
    let pairs = dev.read(&a.r.lw, 0, 2 * a.r.models * a.r.p);
    if let Some(e) = dev.failure() {
        return Err(Error::Invalid(e));
    }
    Ok(a.per_model(&Anneal::log_weights(&pairs)))
}

/// AIS estimates of log Z for several models at once (a study's checkpoints of every trial):
/// [`log_z`] for each `(model, base, cfg)`, annealed as one batch ([`Anneal::batch`]) — the
/// configurations must agree in particles and β — with each estimate what a batch of that
/// model alone gives.
#[cfg(not(target_arch = "wasm32"))]
pub fn log_z_batch(
    dev: &Arc<Device>,
    runs: &[(&Rbm, &[f32], AisConfig)],
) -> Result<Vec<LogZEstimate>> {
    let plans = runs
        .iter()
        .map(|&(model, base, cfg)| Plan::ais_log_z(model, Some(base), cfg))
        .collect::<Result<Vec<_>>>()?;
    let lw = plans_log_weights(dev, &plans)?;
    plans
        .iter()
        .zip(&lw)
        .map(|(plan, w)| plan.log_z(&blocks(w)))
        .collect()
}

#[cfg(not(target_arch = "wasm32"))]
fn run(dev: &Arc<Device>, plan: &Plan) -> Result<Vec<f64>> {
    let mut a = Anneal::new(dev, plan)?;
    a.advance(usize::MAX);
    Ok(Anneal::log_weights(&dev.read(&a.r.lw, 0, 2 * a.r.p)))
}

#[cfg(target_arch = "wasm32")]
fn run(_: &Arc<Device>, _: &Plan) -> Result<Vec<f64>> {
    Err(Error::Invalid(
        "a browser's GPU cannot be waited for: use Anneal".into(),
    ))
}

/// The buffers of `plans`' run on `dev` (one plan unless `batched`; refused when a buffer
/// would exceed what it binds).
fn setup(dev: &Arc<Device>, plans: &[Plan], batched: bool) -> Result<Run> {
    let first = &plans[0];
    let cfg = *first.config();
    let k = plans.len();
    let (p, m, n) = (cfg.particles, first.model().m(), first.model().n());
    let limit = dev.wgpu().0.limits().max_storage_buffer_binding_size;
    let biggest = (k * (p * m.max(n) + m + 4)).max(k * m * n) as u64 * 4;
    let what = if first.is_reverse() { "RAISE" } else { "AIS" };
    if biggest > limit {
        return Err(Error::TooLarge(format!(
            "{what} with {p} particles on {k} {m}×{n} model(s) needs a {biggest}-byte buffer;              this GPU binds at most {limit} (use fewer particles, or fewer models at once)"
        )));
    }
    if k > MAX_GROUPS as usize {
        return Err(Error::TooLarge(format!(
            "{what} of {k} models at once: at most {MAX_GROUPS}"
        )));
    }
    let keys: Vec<[u32; 2]> = plans
        .iter()
        .map(|q| philox::key(q.config().seed, LANE))
        .collect();
    let halves: Vec<f32> = keys.iter().flat_map(|&key| key_halves(key)).collect();
    let mut vis = Vec::with_capacity(k * 3 * m + 4 * k);
    for q in plans {
        let (model, base) = (q.model(), q.base_b());
        vis.extend(
            model
                .b
                .iter()
                .zip(base)
                .map(|(&b, &a)| (b as f64 - a as f64) as f32),
        );
        vis.extend(model.b.iter().copied());
        vis.extend(base.iter().copied());
    }
    vis.extend(&halves);
    // RAISE's chains start at their data rows; AIS's are drawn from p_A.
    let v = if first.is_reverse() {
        let rows: Vec<f32> = plans
            .iter()
            .flat_map(|q| (0..p).flat_map(move |c| q.start_row(c).expect("a RAISE plan has data")))
            .copied()
            .collect();
        dev.buffer(&rows)
    } else {
        dev.zeros(k * p * m)
    };
    let hb = if batched {
        let mut hb = vec![0.0; k * (p * n + m)];
        hb.extend(&halves);
        dev.buffer(&hb)
    } else {
        dev.zeros(p * n + m)
    };
    let w: Vec<f32> = plans
        .iter()
        .flat_map(|q| q.model().w().iter().copied())
        .collect();
    let c: Vec<f32> = plans
        .iter()
        .flat_map(|q| q.model().c.iter().copied())
        .collect();
    Ok(Run {
        step: dev.compile(include_str!("shaders/ais.wgsl"), "ais_step"),
        key: keys[0],
        w: dev.buffer(&w),
        c: dev.buffer(&c),
        vis: dev.buffer(&vis),
        v,
        a: dev.zeros(k * p * n),
        hb,
        lw: dev.zeros(2 * k * p),
        dev: dev.clone(),
        models: k,
        batched,
        p,
        m,
        n,
    })
}

/// One product of gemm.wgsl per model: rows × cols over depth, A(r, k) = a.0[r·a.1 + k·a.2],
/// B(k, c) = w[k·b.1 + c·b.2], bias = bias.0[bias.1 + c], C into out.0; model t's operands
/// `a.3`, `b.3`, `bias.2` and `out.1` further on, its key at `keys + 4t` of the bias buffer
/// (a batch's draws).
struct Gemm<'b> {
    rows: usize,
    cols: usize,
    depth: usize,
    a: (&'b Buf, usize, usize, usize),
    b: (&'b Buf, usize, usize, usize),
    bias: (&'b Buf, usize, usize),
    keys: Option<usize>,
    mode: u32,
    f0: f32,
    draw: u64,
    out: (&'b Buf, usize),
}

impl Run {
    /// One `ais_step` dispatch: with [`WEIGH`], `log f_hi(v) − log f_lo(v)` added to the
    /// log-weights; with [`DRAW`], `h ~ σ(β a)` (draw `2t` of transition t) and `b_β`.
    fn step(&self, hi: f32, lo: f32, beta: f32, flags: u32, t: usize) {
        let rows = self.models * self.p;
        let params = Params {
            rows: rows as u32,
            cols: self.n as u32,
            depth: self.m as u32,
            flags: flags | if self.batched { BATCH } else { 0 },
            key: self.key,
            draw: 2 * t as u64,
            f: [
                hi,
                lo,
                hi - lo,
                ((1.0 - beta as f64) / beta as f64) as f32,
                beta,
                0.0,
                0.0,
                0.0,
            ],
            per: self.p as u32,
            key_off: (3 * self.m * self.models) as u32,
            ..Default::default()
        };
        let groups = (rows as u32).min(MAX_GROUPS);
        self.dev.run(
            &self.step,
            &params,
            [Some(&self.a), Some(&self.v), Some(&self.vis)],
            [Some(&self.hb), Some(&self.lw)],
            (groups, (rows as u32).div_ceil(MAX_GROUPS), 1),
        );
    }

    /// The rest of transition t at β after [`Run::step`] drew h: `v ~ σ(β (b_β + W h))` (draw
    /// `2t + 1`; A = h rows, B = Wᵀ by strides, bias b_β after h), then `a = c + vᵀW`.
    fn visible(&self, beta: f32, t: usize) {
        let (k, p, m, n) = (self.models, self.p, self.m, self.n);
        self.gemm(Gemm {
            rows: p,
            cols: m,
            depth: n,
            a: (&self.hb, n, 1, p * n),
            b: (&self.w, 1, n, m * n),
            bias: (&self.hb, k * p * n, m),
            keys: Some(k * (p * n + m)),
            mode: 2,
            f0: beta,
            draw: 2 * t as u64 + 1,
            out: (&self.v, p * m),
        });
        self.hidden();
    }

    fn gemm(&self, g: Gemm) {
        let epi = match g.mode {
            2 => Epilogue::Draw(g.f0, self.key, g.draw),
            _ => Epilogue::Pre(g.f0),
        };
        let product = Product {
            rows: g.rows,
            cols: g.cols,
            depth: g.depth,
            a: (g.a.0, g.a.1, g.a.2),
            b: (g.b.0, 0, g.b.1, g.b.2),
            bias: Some((g.bias.0, g.bias.1)),
        };
        if !self.batched {
            product::run(&self.dev, &product, epi, g.out.0, 0);
            return;
        }
        let batch = Batch {
            count: self.models,
            a: g.a.3,
            b: g.b.3,
            bias: g.bias.2,
            c: g.out.1,
            keys: g.keys,
        };
        product::run_batch(&self.dev, &product, epi, g.out.0, batch);
    }

    /// a = c + vᵀW (mode 4 with β = 1).
    fn hidden(&self) {
        let (p, m, n) = (self.p, self.m, self.n);
        self.gemm(Gemm {
            rows: p,
            cols: n,
            depth: m,
            a: (&self.v, m, 1, p * m),
            b: (&self.w, n, 1, m * n),
            bias: (&self.c, 0, n),
            keys: None,
            mode: 4,
            f0: 1.0,
            draw: 0,
            out: (&self.a, p * n),
        });
    }
}

//! Annealed importance sampling for log Z on the GPU (issue 30): the CPU's estimator
//! (`rbm_core::eval::ais`, docs/algorithms.md §3) with the particles' Gibbs transitions and
//! log-weights in f32 on the GPU, all β steps recorded into a handful of submissions.
//!
//! **The same estimator.** Base model A with visible biases `b_A`, zero weights and hidden
//! biases; `log f_β(v) = b_Aᵀv + β(b − b_A)ᵀv + Σ_j softplus(β a_j(v))`, `a(v) = c + vᵀW`;
//! linear `β_k = k/K`, k = 0…K, K = `betas` − 1; each particle starts with an exact draw
//! `v₀ ~ p_A` and for k = 1…K adds `log f_{β_k}(v) − log f_{β_{k−1}}(v)` to its log-weight,
//! then (k < K) moves by `h ~ σ(β_k a)`, `v ~ σ((1−β_k) b_A + β_k(b + W h))`. The log-weights
//! are read back and combined in f64 by the CPU's own code ([`Plan::log_z`]): `log Ẑ = log Z_A +
//! log mean w`, bars `log Z_A + log(r̂ ∓ 3σ̂)`.
//!
//! **Per β step, three dispatches** (gemm.wgsl and shaders/ais.wgsl, no host round trip):
//! 1. `ais_step` (one workgroup per particle): the weight increment from `a(v)` and `v`, the
//!    draw `h ~ σ(β_k a)`, and `b_β = b + ((1−β_k)/β_k)·b_A` for the next product;
//! 2. the product `v ~ σ(β_k (b_β + W h))` with the Bernoulli epilogue (mode 2);
//! 3. the product `a = c + vᵀW` (mode 4) for the next step.
//!
//! The random numbers are Philox4x32-10 on the GPU, keyed by (`seed`, [`LANE`]), draw `2k` for
//! the hidden and `2k + 1` for the visible units of step k (draw 1 for `v₀`), uniform `r·cols +
//! j` for unit j of particle r; so a run is a deterministic function of its seed on a given GPU
//! (not the CPU's stream: the two estimates agree in law, not bit for bit).
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
use crate::product::{self, Epilogue, Product};
use rbm_core::error::{Error, Result};
use rbm_core::eval::ais::{AisConfig, LogZEstimate, Plan, BLOCK_PARTICLES, LANE_TAG};
use rbm_core::model::Rbm;
use rbm_core::rng::philox;
use std::sync::Arc;

/// The Philox lane of the GPU's AIS draws: the CPU's AIS tag with bit 30 set, apart from the
/// CPU's blocks (`LANE_TAG | block`) and its RAISE row pick (`LANE_TAG | 1 << 31`).
pub const LANE: u64 = LANE_TAG | (1 << 30);

/// Largest grid dimension WebGPU guarantees.
const MAX_GROUPS: u32 = 65_535;

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
    };
    // The CPU's checks (sizes, limits, finite base biases).
    Plan::ais_log_z(model, Some(base), cfg)?;
    run(dev, model, base, cfg)
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
    };
    let plan = Plan::ais_log_z(model, Some(base), cfg)?;
    let lw = run(dev, model, base, cfg)?;
    let parts: Vec<Vec<f64>> = lw.chunks(BLOCK_PARTICLES).map(<[f64]>::to_vec).collect();
    plan.log_z(&parts)
}

/// The GPU buffers and kernels of one run.
struct Run<'a> {
    dev: &'a Device,
    step: Arc<Pipeline>,
    p: usize,
    m: usize,
    n: usize,
    key: [u32; 2],
    /// W, m×n row-major.
    w: Buf,
    /// c (n).
    c: Buf,
    /// b_A (m).
    base: Buf,
    /// [b − b_A | b | b_A] (3m).
    vis: Buf,
    /// Visible states, particles × m.
    v: Buf,
    /// a = c + vᵀW, particles × n.
    a: Buf,
    /// [h (particles × n) | b_β (m)].
    hb: Buf,
    /// Log-weights as (hi, lo) pairs.
    lw: Buf,
}

fn run(dev: &Arc<Device>, model: &Rbm, base: &[f32], cfg: AisConfig) -> Result<Vec<f64>> {
    let (p, m, n) = (cfg.particles, model.m(), model.n());
    let limit = dev.wgpu().0.limits().max_storage_buffer_binding_size;
    let biggest = (p * m.max(n) + m) as u64 * 4;
    if biggest > limit {
        return Err(Error::TooLarge(format!(
            "AIS with {p} particles on a {m}×{n} model needs a {biggest}-byte buffer; this GPU \
             binds at most {limit} (use fewer particles)"
        )));
    }
    let vis: Vec<f32> = model
        .b
        .iter()
        .zip(base)
        .map(|(&b, &a)| (b as f64 - a as f64) as f32)
        .chain(model.b.iter().copied())
        .chain(base.iter().copied())
        .collect();
    let r = Run {
        step: dev.compile(include_str!("shaders/ais.wgsl"), "ais_step"),
        key: philox::key(cfg.seed, LANE),
        w: dev.buffer(model.w()),
        c: dev.buffer(&model.c),
        base: dev.buffer(base),
        vis: dev.buffer(&vis),
        v: dev.zeros(p * m),
        a: dev.zeros(p * n),
        hb: dev.zeros(p * n + m),
        lw: dev.zeros(2 * p),
        dev,
        p,
        m,
        n,
    };
    let k_total = cfg.betas - 1;
    let beta = |k: usize| (k as f64 / k_total as f64) as f32;
    // v₀ ~ p_A: a product over depth 0 is its bias, b_A (A is never read).
    r.gemm(Gemm {
        rows: p,
        cols: m,
        depth: 0,
        a: (&r.a, m, 1),
        b: (&r.w, 1, n),
        bias: (&r.base, 0),
        mode: 2,
        f0: 1.0,
        draw: 1,
        out: &r.v,
    });
    r.hidden();
    for k in 1..=k_total {
        let (hi, lo) = (beta(k), beta(k - 1));
        let more = k < k_total;
        let params = Params {
            rows: p as u32,
            cols: n as u32,
            depth: m as u32,
            flags: u32::from(more),
            key: r.key,
            draw: 2 * k as u64,
            f: [
                hi,
                lo,
                hi - lo,
                ((1.0 - hi as f64) / hi as f64) as f32,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            ..Default::default()
        };
        let groups = (p as u32).min(MAX_GROUPS);
        dev.run(
            &r.step,
            &params,
            [Some(&r.a), Some(&r.v), Some(&r.vis)],
            [Some(&r.hb), Some(&r.lw)],
            (groups, (p as u32).div_ceil(MAX_GROUPS), 1),
        );
        if more {
            // v ~ σ(β_k (b_β + W h)), A = h rows, B = Wᵀ by strides, bias b_β after h.
            r.gemm(Gemm {
                rows: p,
                cols: m,
                depth: n,
                a: (&r.hb, n, 1),
                b: (&r.w, 1, n),
                bias: (&r.hb, p * n),
                mode: 2,
                f0: hi,
                draw: 2 * k as u64 + 1,
                out: &r.v,
            });
            r.hidden();
        }
    }
    let pairs = dev.read(&r.lw, 0, 2 * p);
    Ok(pairs
        .chunks_exact(2)
        .map(|q| q[0] as f64 + q[1] as f64)
        .collect())
}

/// One product of gemm.wgsl: rows × cols over depth, A(r, k) = a.0[r·a.1 + k·a.2],
/// B(k, c) = w[k·b.1 + c·b.2], bias = bias.0[bias.1 + c].
struct Gemm<'b> {
    rows: usize,
    cols: usize,
    depth: usize,
    a: (&'b Buf, usize, usize),
    b: (&'b Buf, usize, usize),
    bias: (&'b Buf, usize),
    mode: u32,
    f0: f32,
    draw: u64,
    out: &'b Buf,
}

impl Run<'_> {
    fn gemm(&self, g: Gemm) {
        let epi = match g.mode {
            2 => Epilogue::Draw(g.f0, self.key, g.draw),
            _ => Epilogue::Pre(g.f0),
        };
        let product = Product {
            rows: g.rows,
            cols: g.cols,
            depth: g.depth,
            a: g.a,
            b: (g.b.0, 0, g.b.1, g.b.2),
            bias: Some(g.bias),
        };
        product::run(self.dev, &product, epi, g.out, 0);
    }

    /// a = c + vᵀW (mode 4 with β = 1).
    fn hidden(&self) {
        let (p, m, n) = (self.p, self.m, self.n);
        self.gemm(Gemm {
            rows: p,
            cols: n,
            depth: m,
            a: (&self.v, m, 1),
            b: (&self.w, n, 1),
            bias: (&self.c, 0),
            mode: 4,
            f0: 1.0,
            draw: 0,
            out: &self.a,
        });
    }
}

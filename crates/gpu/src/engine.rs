//! The GPU engine ([`Gpu`]): the operations of rbm_core's `Engine` trait as WGSL dispatches
//! recorded into one command encoder and submitted once per update (`Device`).
//!
//! Numbers: f32 throughout, as the CPU engine; sums are taken in another order (tiles of 16
//! along the summed index) and `exp` is the GPU's, so results equal the CPU engine's within
//! f32 rounding, not bit for bit, and a Bernoulli draw whose uniform falls within rounding of
//! its probability may differ. Draws use Philox4x32-10 keyed by the lane's seed and lane
//! (`rbm_core::rng::philox`): a run is reproducible for a seed on a given GPU.
//!
//! Layouts: a parameter set θ is one buffer [W | b | c] (W m×n row-major), so the step, FPCD's
//! sums and copies are single dispatches; statistics sums use the same layout.

use crate::device::{Buf, Device, Kernel, Params};
use crate::product::{self, Epilogue, Product};
use rbm_core::data::Dataset;
use rbm_core::engine::Engine;
use rbm_core::error::Result;
use rbm_core::model::Rbm;
use rbm_core::rng::philox;
use rbm_core::train::{AlgoInfo, Algorithm, Setup};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

/// The GPU engine (issue 30): WGSL compute shaders through wgpu.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gpu;

/// An m×n model on the GPU: θ = [W | b | c].
pub struct GpuModel {
    pub(crate) dev: Arc<Device>,
    pub(crate) theta: Buf,
    pub(crate) m: usize,
    pub(crate) n: usize,
}

/// A parameter-shaped buffer [W | b | c] (a gradient, FPCD's fast weights).
pub struct GpuParams {
    pub(crate) dev: Arc<Device>,
    pub(crate) x: Buf,
    pub(crate) m: usize,
    pub(crate) n: usize,
    /// ‖W‖² of each [`Engine::w_norm`], taken on the GPU (FPCD's ‖W_F‖).
    norms: Mutex<Norms>,
}

/// The ‖W‖² values [`Engine::w_norm`] takes on the GPU (the `sumsq` kernel), one float each:
/// read back at once (waiting: `Lane::run`), or, once [`GpuParams::defer_norms`] is called (a
/// `GpuLane`, which never waits), kept on the GPU in order until a record's copy takes them
/// ([`GpuParams::take_norms`]). The host takes the root in f64 either way, so both give the
/// same bits.
#[derive(Default)]
struct Norms {
    /// The values (capacity: the buffer's length), or the one value of a read.
    buf: Option<Buf>,
    len: usize,
    deferred: bool,
}

/// Gibbs chains on the GPU: visible states, hidden states, E[h|v]; a host copy of the
/// visible states is made when a view asks.
pub struct GpuChains {
    pub(crate) dev: Arc<Device>,
    pub(crate) v: Buf,
    pub(crate) h: Buf,
    pub(crate) hp: Buf,
    /// The batch rows chains restart at, when their number differs from the chains'.
    batch: Option<Buf>,
    pub(crate) count: usize,
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) host: OnceLock<Vec<f32>>,
}

/// Statistics sums [Σ v hᵀ | Σ v | Σ h] and their count, with the scratch their phases need.
pub struct GpuStats {
    pub(crate) dev: Arc<Device>,
    pub(crate) sums: Buf,
    pub(crate) count: f32,
    m: usize,
    n: usize,
    scratch: Option<Scratch>,
}

/// Per-rows scratch of a statistics object: the batch, E[h|v], and mean-field visibles.
struct Scratch {
    rows: usize,
    batch: Buf,
    hp: Buf,
    v1: Buf,
}

/// The parameter step's state: the gradient, and the velocity when momentum is on (in the
/// same buffer, after the gradient).
pub struct GpuOptimizer {
    grad: GpuParams,
    weight_decay: f32,
    momentum: f32,
}

/// A lane's random stream: a Philox key and the number of draws made (each half-sweep of every
/// chain is one draw, its uniforms indexed by chain·width + unit).
#[derive(Clone, Debug)]
pub struct GpuRng {
    key: [u32; 2],
    draw: u64,
}

/// The centered parameterisation of CG and CS-DCP (Melchior, Fischer & Wiskott 2016) on the
/// GPU: the centered parameters θ̃ = [W | b̃ | c̃], the offsets [μ | λ], and the mini-batch of
/// [`Engine::begin_batch`] with its E[h|v] and column sums (shaders/centered.wgsl).
pub struct GpuCentered {
    params: GpuModel,
    offsets: Buf,
    nu_mu: f32,
    nu_lambda: f32,
    /// Rows of the current batch, its rows, E[h|v] and column sums [Σ v | Σ E[h|v]].
    rows: usize,
    batch: Option<Buf>,
    hp: Option<Buf>,
    sums: Buf,
    /// The batch means less the offsets before they slide, [μ_b − μ | λ_b − λ].
    slid: Buf,
    /// h − λ of the rows being summed (batch or chains).
    centered_h: Option<Buf>,
}

fn len(m: usize, n: usize) -> usize {
    m * n + m + n
}

impl GpuModel {
    /// `model` uploaded to `dev`.
    pub fn upload(dev: &Arc<Device>, model: &Rbm) -> GpuModel {
        let mut theta = Vec::with_capacity(len(model.m(), model.n()));
        theta.extend_from_slice(model.w());
        theta.extend_from_slice(&model.b);
        theta.extend_from_slice(&model.c);
        GpuModel {
            dev: dev.clone(),
            theta: dev.buffer(&theta),
            m: model.m(),
            n: model.n(),
        }
    }

    /// The model on the host (waits for the GPU).
    pub fn download(&self) -> Result<Rbm> {
        self.from_theta(self.dev.read(&self.theta, 0, self.theta.len))
    }

    /// A copy of θ on its way to the host, taken after the work recorded so far
    /// ([`GpuModel::from_theta`] makes the model of it).
    pub fn snapshot(&self) -> crate::Snapshot {
        self.dev.snapshot(&self.theta, 0, self.theta.len)
    }

    /// A copy of θ's first number taken after the work recorded so far: on the host once the
    /// GPU has done that work (a fence).
    pub fn snapshot_first(&self) -> crate::Snapshot {
        self.dev.snapshot(&self.theta, 0, 1)
    }

    /// The model of this shape with θ = `t` ([W | b | c]).
    pub fn from_theta(&self, t: Vec<f32>) -> Result<Rbm> {
        Rbm::from_params(self.m, self.n, self.params_of(&t))
    }

    /// θ = `t` ([W | b | c]) as the three blocks of this shape.
    pub fn params_of(&self, t: &[f32]) -> rbm_core::model::Params<f32> {
        let (mn, m) = (self.m * self.n, self.m);
        rbm_core::model::Params {
            w: t[..mn].to_vec(),
            b: t[mn..mn + m].to_vec(),
            c: t[mn + m..].to_vec(),
        }
    }

    /// The device it lives on.
    pub fn device(&self) -> &Arc<Device> {
        &self.dev
    }

    /// Visible and hidden units (m, n).
    pub fn shape(&self) -> (usize, usize) {
        (self.m, self.n)
    }
}

impl GpuParams {
    /// A parameter set of `model`'s shape holding `x`.
    pub(crate) fn new(model: &GpuModel, x: Buf) -> GpuParams {
        GpuParams {
            dev: model.dev.clone(),
            x,
            m: model.m,
            n: model.n,
            norms: Mutex::new(Norms::default()),
        }
    }

    /// The parameters on the host as [W | b | c] (waits for the GPU).
    pub fn download(&self) -> Vec<f32> {
        self.dev.read(&self.x, 0, len(self.m, self.n))
    }

    fn norms(&self) -> std::sync::MutexGuard<'_, Norms> {
        self.norms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// From now on, [`Engine::w_norm`] reads nothing back: it records ‖W‖² into a list on the
    /// GPU and returns NaN, and [`GpuParams::take_norms`] copies the list with a record (a
    /// browser's worker cannot wait for its GPU within an update).
    pub fn defer_norms(&self) {
        self.norms().deferred = true;
    }

    /// A copy of the ‖W‖² values recorded since the last call, in order, on its way to the host
    /// (None: none were); the list starts again. The values' roots in f64 are those
    /// [`Engine::w_norm`] returns where it reads back.
    pub fn take_norms(&self) -> Option<crate::Snapshot> {
        let mut norms = self.norms();
        if norms.len == 0 {
            return None;
        }
        let buf = norms.buf.as_ref().expect("values were recorded");
        let copy = self.dev.snapshot(buf, 0, norms.len);
        norms.len = 0;
        Some(copy)
    }

    /// Records ‖W‖² into slot `at` of `out`.
    pub(crate) fn sumsq(&self, out: &Buf, at: usize) {
        let count = self.m * self.n;
        let p = Params {
            count: count as u32,
            c_off: at as u32,
            ..Default::default()
        };
        self.dev.dispatch(
            Kernel::SumSq,
            &p,
            [Some(&self.x), None, None],
            [Some(out), None],
            (1, 1, 1),
        );
    }
}

impl GpuOptimizer {
    /// The step of the lane's weight decay λ and momentum μ for `model`'s shape.
    pub fn new(model: &GpuModel, weight_decay: f32, momentum: f32) -> GpuOptimizer {
        let l = len(model.m, model.n);
        GpuOptimizer {
            grad: GpuParams::new(
                model,
                model.dev.zeros(if momentum != 0.0 { 2 * l } else { l }),
            ),
            weight_decay,
            momentum,
        }
    }
}

impl GpuRng {
    /// The stream of (`seed`, `lane`).
    pub fn new(seed: u64, lane: u64) -> GpuRng {
        GpuRng {
            key: philox::key(seed, lane),
            draw: 0,
        }
    }

    /// The epilogue of the next draw: a Bernoulli draw with its own uniforms.
    fn draw(&mut self) -> Epilogue {
        self.draw += 1;
        Epilogue::Draw(1.0, self.key, self.draw)
    }
}

impl GpuChains {
    /// A copy of the chains' visible states (`count × m`) on its way to the host, taken after
    /// the work recorded so far.
    pub fn snapshot(&self) -> crate::Snapshot {
        self.dev.snapshot(&self.v, 0, self.count * self.m)
    }

    /// The chains' hidden states (0/1) of the last sweep on the host (waits for the GPU).
    pub fn hidden_states(&self) -> Vec<f32> {
        self.dev.read(&self.h, 0, self.count * self.n)
    }
}

/// Hidden layer of `rows` visible rows `v`: c + vᵀW, with the epilogue `epi`.
pub(crate) fn hidden(model: &GpuModel, v: &Buf, rows: usize, epi: Epilogue, target: &Buf) {
    let (m, n) = (model.m, model.n);
    let g = Product {
        rows,
        cols: n,
        depth: m,
        a: (v, m, 1),
        b: (&model.theta, 0, n, 1),
        bias: Some((&model.theta, m * n + m)),
    };
    product::run(&model.dev, &g, epi, target, 0);
}

/// Visible layer of `rows` hidden rows `h`: b + W h, with the epilogue `epi`.
pub(crate) fn visible(model: &GpuModel, h: &Buf, rows: usize, epi: Epilogue, target: &Buf) {
    let (m, n) = (model.m, model.n);
    let g = Product {
        rows,
        cols: m,
        depth: n,
        a: (h, n, 1),
        b: (&model.theta, 0, 1, n),
        bias: Some((&model.theta, m * n)),
    };
    product::run(&model.dev, &g, epi, target, 0);
}

/// `stats` ← s(v) with E[h|v] = `hp` summed over `rows` rows.
fn sums(stats: &mut GpuStats, v: &Buf, hp: &Buf, rows: usize) {
    let (m, n) = (stats.m, stats.n);
    let g = Product {
        rows: m,
        cols: n,
        depth: rows,
        a: (v, 1, m),
        b: (hp, 0, n, 1),
        bias: None,
    };
    product::run(&stats.dev, &g, Epilogue::Sums, &stats.sums, 0);
    let p = Params {
        rows: rows as u32,
        cols: m as u32,
        depth: n as u32,
        c_off: (m * n) as u32,
        flags: 1,
        ..Default::default()
    };
    stats.dev.elementwise(
        Kernel::Colsum,
        &p,
        m + n,
        [Some(v), Some(hp), None],
        [Some(&stats.sums), None],
    );
    stats.count = rows as f32;
}

impl GpuStats {
    fn scratch(&mut self, rows: usize) -> &Scratch {
        if self.scratch.as_ref().is_none_or(|s| s.rows < rows) {
            self.scratch = Some(Scratch {
                rows,
                batch: self.dev.zeros(rows * self.m),
                hp: self.dev.zeros(rows * self.n),
                v1: self.dev.zeros(rows * self.m),
            });
        }
        self.scratch.as_ref().expect("made above")
    }

    /// The sums on the host as [Σ v hᵀ | Σ v | Σ h], and the count (waits for the GPU).
    pub fn download(&self) -> (Vec<f32>, f32) {
        (
            self.dev.read(&self.sums, 0, len(self.m, self.n)),
            self.count,
        )
    }
}

/// k full sweeps of `chains` under `model`, then E[h|v] of the final states.
fn run_sweeps(model: &GpuModel, chains: &mut GpuChains, rng: &mut GpuRng, k: usize) {
    chains.host = OnceLock::new();
    for _ in 0..k {
        hidden(model, &chains.v, chains.count, rng.draw(), &chains.h);
        visible(model, &chains.h, chains.count, rng.draw(), &chains.v);
    }
    hidden(
        model,
        &chains.v,
        chains.count,
        Epilogue::Means(1.0),
        &chains.hp,
    );
}

fn rows_of(batch: &[f32], m: usize) -> usize {
    batch.len() / m.max(1)
}

impl Engine for Gpu {
    type Model = GpuModel;
    type Chains = GpuChains;
    type Stats = GpuStats;
    type Params = GpuParams;
    type Optimizer = GpuOptimizer;
    type Rng = GpuRng;
    type Centered = GpuCentered;
    type Device = Arc<Device>;

    const ON_HOST: bool = false;

    fn upload(dev: &Arc<Device>, model: &Rbm) -> GpuModel {
        GpuModel::upload(dev, model)
    }

    fn host(model: &GpuModel) -> Cow<'_, Rbm> {
        Cow::Owned(
            model
                .download()
                .expect("a model of the GPU engine has a valid shape"),
        )
    }

    fn rng(_: &Arc<Device>, seed: u64, lane: u64) -> GpuRng {
        GpuRng::new(seed, lane)
    }

    fn optimizer(model: &GpuModel, weight_decay: f32, momentum: f32) -> GpuOptimizer {
        GpuOptimizer::new(model, weight_decay, momentum)
    }

    fn set_coefficients(opt: &mut GpuOptimizer, weight_decay: f32, momentum: f32) {
        let l = len(opt.grad.m, opt.grad.n);
        if momentum != 0.0 && opt.momentum == 0.0 {
            // A velocity starts at zero (as the CPU's), after the gradient in the same buffer.
            opt.grad.x = opt.grad.dev.zeros(2 * l);
        }
        opt.weight_decay = weight_decay;
        opt.momentum = momentum;
    }

    fn runs(algo: &str) -> bool {
        // UCD's coupled chains stop one by one; PT rescales its replicas' models on the host.
        // (FPCD's ‖W_F‖ of every update is kept on the GPU for the next record's copy where it
        // cannot be waited for: `GpuParams::defer_norms`.)
        algo != "ucd" && algo != "pt"
    }

    fn exact_log_z(model: &GpuModel, host: &Rbm) -> Option<Result<f64>> {
        // In a browser the enumeration's sums could not be waited for: the host's f64 one.
        if cfg!(target_arch = "wasm32") {
            return None;
        }
        Some(crate::exact::log_z(&model.dev, host))
    }

    fn build(info: &AlgoInfo, setup: &Setup<Gpu>) -> Result<Box<dyn Algorithm<Gpu>>> {
        rbm_core::train::build_on(info, setup)
    }

    fn chains(model: &GpuModel, rows: &[f32], count: usize) -> GpuChains {
        let (m, n) = (model.m, model.n);
        let r = rows_of(rows, m).max(1);
        let mut v = Vec::with_capacity(count * m);
        for i in 0..count {
            let s = (i % r) * m;
            v.extend_from_slice(&rows[s..s + m]);
        }
        GpuChains {
            dev: model.dev.clone(),
            v: model.dev.buffer(&v),
            h: model.dev.zeros(count * n),
            hp: model.dev.zeros(count * n),
            batch: None,
            count,
            m,
            n,
            host: OnceLock::new(),
        }
    }

    fn chain_states(chains: &GpuChains) -> &[f32] {
        chains
            .host
            .get_or_init(|| chains.dev.read(&chains.v, 0, chains.count * chains.m))
    }

    fn restart_sweeps(
        model: &GpuModel,
        chains: &mut GpuChains,
        batch: &[f32],
        rng: &mut GpuRng,
        k: usize,
    ) {
        let (m, rows) = (chains.m, rows_of(batch, chains.m));
        if rows == chains.count {
            chains.dev.upload(&chains.v, 0, batch);
        } else {
            if chains.batch.as_ref().is_none_or(|b| b.len != batch.len()) {
                chains.batch = Some(chains.dev.zeros(batch.len()));
            }
            let tmp = chains.batch.as_ref().expect("made above");
            chains.dev.upload(tmp, 0, batch);
            let p = Params {
                rows: rows as u32,
                cols: m as u32,
                count: chains.count as u32,
                ..Default::default()
            };
            chains.dev.elementwise(
                Kernel::Restart,
                &p,
                chains.count * m,
                [Some(tmp), None, None],
                [Some(&chains.v), None],
            );
        }
        run_sweeps(model, chains, rng, k);
    }

    fn sweeps(model: &GpuModel, chains: &mut GpuChains, rng: &mut GpuRng, k: usize) {
        run_sweeps(model, chains, rng, k);
    }

    fn chain_stats(chains: &GpuChains, neg: &mut GpuStats) {
        sums(neg, &chains.v, &chains.hp, chains.count);
    }

    fn stats(model: &GpuModel) -> GpuStats {
        GpuStats {
            dev: model.dev.clone(),
            sums: model.dev.zeros(len(model.m, model.n)),
            count: 0.0,
            m: model.m,
            n: model.n,
            scratch: None,
        }
    }

    fn positive_phase(
        model: &GpuModel,
        batch: &[f32],
        pos: &mut GpuStats,
        _next: Option<&mut GpuChains>,
    ) {
        let rows = rows_of(batch, model.m);
        let dev = model.dev.clone();
        let s = pos.scratch(rows);
        let (b, hp) = (s.batch.clone_ref(), s.hp.clone_ref());
        dev.upload(&b, 0, batch);
        hidden(model, &b, rows, Epilogue::Means(1.0), &hp);
        sums(pos, &b, &hp, rows);
    }

    fn mean_field_stats(model: &GpuModel, batch: &[f32], neg: &mut GpuStats) {
        let rows = rows_of(batch, model.m);
        let dev = model.dev.clone();
        let s = neg.scratch(rows);
        let (b, hp, v1) = (s.batch.clone_ref(), s.hp.clone_ref(), s.v1.clone_ref());
        dev.upload(&b, 0, batch);
        hidden(model, &b, rows, Epilogue::Means(1.0), &hp);
        visible(model, &hp, rows, Epilogue::Means(1.0), &v1);
        hidden(model, &v1, rows, Epilogue::Means(1.0), &hp);
        sums(neg, &v1, &hp, rows);
    }

    fn step(opt: &mut GpuOptimizer, model: &mut GpuModel, pos: &GpuStats, neg: &GpuStats, lr: f32) {
        let count = len(model.m, model.n);
        let p = Params {
            count: count as u32,
            mn: (model.m * model.n) as u32,
            flags: u32::from(opt.momentum != 0.0),
            f: [
                1.0 / pos.count.max(1.0),
                1.0 / neg.count.max(1.0),
                opt.weight_decay,
                lr,
                opt.momentum,
                0.0,
                0.0,
                0.0,
            ],
            ..Default::default()
        };
        model.dev.elementwise(
            Kernel::Step,
            &p,
            count,
            [Some(&pos.sums), Some(&neg.sums), None],
            [Some(&model.theta), Some(&opt.grad.x)],
        );
    }

    fn grad(opt: &GpuOptimizer) -> &GpuParams {
        &opt.grad
    }

    fn zeros(model: &GpuModel) -> GpuParams {
        GpuParams::new(model, model.dev.zeros(len(model.m, model.n)))
    }

    fn set_sum(sum: &mut GpuModel, model: &GpuModel, extra: &GpuParams) {
        let count = len(model.m, model.n);
        let p = Params {
            count: count as u32,
            ..Default::default()
        };
        model.dev.elementwise(
            Kernel::Add,
            &p,
            count,
            [Some(&model.theta), Some(&extra.x), None],
            [Some(&sum.theta), None],
        );
    }

    fn decay_add(x: &mut GpuParams, alpha: f32, eta: f32, g: &GpuParams) {
        let count = len(x.m, x.n);
        let p = Params {
            count: count as u32,
            f: [alpha, eta, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ..Default::default()
        };
        x.dev.elementwise(
            Kernel::DecayAdd,
            &p,
            count,
            [Some(&g.x), None, None],
            [Some(&x.x), None],
        );
    }

    fn w_norm(x: &GpuParams) -> f64 {
        // ‖W‖² by the `sumsq` kernel (one float), its root in f64: read back at once, or kept
        // on the GPU for a record's copy (`GpuParams::defer_norms`; NaN until then).
        let mut norms = x.norms();
        if norms.deferred {
            let at = norms.len;
            let cap = norms.buf.as_ref().map_or(0, |b| b.len);
            if at >= cap {
                let bigger = x.dev.zeros((2 * cap).max(64));
                if let Some(old) = &norms.buf {
                    x.dev.copy(old, 0, &bigger, 0, at);
                }
                norms.buf = Some(bigger);
            }
            x.sumsq(norms.buf.as_ref().expect("made above"), at);
            norms.len += 1;
            return f64::NAN;
        }
        let out = norms.buf.get_or_insert_with(|| x.dev.zeros(1));
        x.sumsq(out, 0);
        f64::from(x.dev.read(out, 0, 1)[0]).sqrt()
    }

    fn copy(model: &GpuModel) -> GpuModel {
        let theta = model.dev.zeros(model.theta.len);
        model.dev.copy(&model.theta, 0, &theta, 0, model.theta.len);
        GpuModel {
            dev: model.dev.clone(),
            theta,
            m: model.m,
            n: model.n,
        }
    }

    fn centered(
        model: &GpuModel,
        data: &Dataset,
        nu_mu: f32,
        nu_lambda: f32,
    ) -> Result<GpuCentered> {
        // The paper's start, computed once on the host as the CPU engine does.
        let c = rbm_core::engine::cpu::Centered::new(&model.download()?, data, nu_mu, nu_lambda)?;
        let dev = &model.dev;
        Ok(GpuCentered {
            params: GpuModel::upload(dev, c.params()),
            offsets: dev.buffer(&[c.mu(), c.lambda()].concat()),
            nu_mu,
            nu_lambda,
            rows: 0,
            batch: None,
            hp: None,
            sums: dev.zeros(model.m + model.n),
            slid: dev.zeros(model.m + model.n),
            centered_h: None,
        })
    }

    fn begin_batch(
        c: &mut GpuCentered,
        model: &GpuModel,
        batch: &[f32],
        _next: Option<&mut GpuChains>,
    ) {
        let (m, n) = (model.m, model.n);
        let rows = rows_of(batch, m);
        let dev = model.dev.clone();
        if c.rows != rows || c.batch.is_none() {
            c.batch = Some(dev.zeros(rows * m));
            c.hp = Some(dev.zeros(rows * n));
        }
        c.rows = rows;
        let (b, hp) = (
            c.batch.as_ref().expect("made above"),
            c.hp.as_ref().expect("made above"),
        );
        dev.upload(b, 0, batch);
        hidden(model, b, rows, Epilogue::Means(1.0), hp);
        column_sums(&dev, b, hp, rows, m, n, &c.sums, 0);
    }

    fn slide(c: &mut GpuCentered) {
        let (m, n) = (c.params.m, c.params.n);
        let p = Params {
            rows: m as u32,
            cols: n as u32,
            f: [
                1.0 / c.rows.max(1) as f32,
                c.nu_mu,
                c.nu_lambda,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            ..Default::default()
        };
        let dev = &c.params.dev;
        dev.elementwise(
            Kernel::SlideOffsets,
            &p,
            m + n,
            [None, Some(&c.sums), None],
            [Some(&c.offsets), Some(&c.slid)],
        );
        dev.elementwise(
            Kernel::SlideShift,
            &p,
            m + n,
            [Some(&c.slid), None, None],
            [Some(&c.params.theta), None],
        );
    }

    fn centered_data_stats(c: &mut GpuCentered, _batch: &[f32], pos: &mut GpuStats) {
        let (b, hp) = (
            c.batch
                .as_ref()
                .expect("begin_batch came first")
                .clone_ref(),
            c.hp.as_ref().expect("begin_batch came first").clone_ref(),
        );
        centered_sums(c, &b, &hp, c.rows, pos);
    }

    fn centered_chain_stats(c: &mut GpuCentered, chains: &GpuChains, neg: &mut GpuStats) {
        centered_sums(c, &chains.v, &chains.hp, chains.count, neg);
    }

    fn centered_step(
        c: &mut GpuCentered,
        opt: &mut GpuOptimizer,
        pos: &GpuStats,
        neg: &GpuStats,
        lr: f32,
        model: &mut GpuModel,
    ) {
        Gpu::step(opt, &mut c.params, pos, neg, lr);
        let (m, n) = (model.m, model.n);
        let dev = &model.dev;
        dev.copy(&c.params.theta, 0, &model.theta, 0, m * n);
        let p = Params {
            rows: m as u32,
            cols: n as u32,
            ..Default::default()
        };
        dev.elementwise(
            Kernel::ToPlain,
            &p,
            m + n,
            [Some(&c.params.theta), Some(&c.offsets), None],
            [Some(&model.theta), None],
        );
    }
}

/// `out[off..off + m]` ← Σ_r v_r and `out[off + m..off + m + n]` ← Σ_r h_r over `rows` rows.
#[allow(clippy::too_many_arguments)]
fn column_sums(
    dev: &Device,
    v: &Buf,
    h: &Buf,
    rows: usize,
    m: usize,
    n: usize,
    out: &Buf,
    off: usize,
) {
    let p = Params {
        rows: rows as u32,
        cols: m as u32,
        depth: n as u32,
        c_off: off as u32,
        flags: 1,
        ..Default::default()
    };
    dev.elementwise(
        Kernel::Colsum,
        &p,
        m + n,
        [Some(v), Some(h), None],
        [Some(out), None],
    );
}

/// `out` ← the centered sums ((v − μ)(h − λ)ᵀ, v, h) over `rows` rows (CPU `centered_sums`):
/// Σ v (h − λ)ᵀ by the product, less μ (Σ (h − λ))ᵀ.
fn centered_sums(c: &mut GpuCentered, v: &Buf, hp: &Buf, rows: usize, out: &mut GpuStats) {
    let (m, n) = (c.params.m, c.params.n);
    let dev = c.params.dev.clone();
    if c.centered_h.as_ref().is_none_or(|b| b.len < rows * n) {
        c.centered_h = Some(dev.zeros(rows * n));
    }
    let hc = c.centered_h.as_ref().expect("made above");
    let p = Params {
        rows: m as u32,
        cols: n as u32,
        count: rows as u32,
        ..Default::default()
    };
    dev.elementwise(
        Kernel::SubLambda,
        &p,
        rows * n,
        [Some(hp), Some(&c.offsets), None],
        [Some(hc), None],
    );
    let g = Product {
        rows: m,
        cols: n,
        depth: rows,
        a: (v, 1, m),
        b: (hc, 0, n, 1),
        bias: None,
    };
    product::run(&dev, &g, Epilogue::Sums, &out.sums, 0);
    column_sums(&dev, v, hp, rows, m, n, &out.sums, m * n);
    let p = Params {
        rows: m as u32,
        cols: n as u32,
        f: [rows as f32, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ..Default::default()
    };
    dev.elementwise(
        Kernel::CenterW,
        &p,
        m * n,
        [Some(&c.offsets), None, None],
        [Some(&out.sums), None],
    );
    out.count = rows as f32;
}

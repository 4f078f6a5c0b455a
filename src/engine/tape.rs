//! The tape engine ([`Tape`]): an algorithm file, run once on handles instead of numbers,
//! leaves the [`Program`] of engine operations its updates perform — so an engine that runs
//! many trials at once (a GPU's study job, `rbm_gpu::batch`) executes the algorithm's own
//! definition, not a second copy of it.
//!
//! [`record`] builds the algorithm on the tape engine, as a lane would, and calls its update
//! twice with the lane's context: the operations of its constructor are the program's setup,
//! those of an update its body, which must be the same at every update (true of every algorithm
//! whose update has no data-dependent control flow). [`Replay`] runs a program on any engine;
//! on the CPU engine it gives a lane's model bit for bit (`tests/tape.rs`), which is what shows
//! the tape left nothing out.
//!
//! A program names its objects by [`Slot`]: the lane's model (slot 0), its optimizer (1) with
//! the gradient (2), its positive statistics (3), then what the algorithm makes. Rows are the
//! training data ([`Rows::Data`]: chains start there) or the update's mini-batch
//! ([`Rows::Batch`]); anything else an algorithm passes is refused.

use super::Engine;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::Rbm;
use crate::train::{build_on, AlgoInfo, Algorithm, Ctx, LaneConfig, Report, Setup};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard};

/// An object of a program: an index into its [`Program::slots`].
pub type Slot = usize;

/// What a slot holds (the engine trait's object kinds), with the sizes an engine allocates.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Kind {
    /// A model θ = [W | b | c].
    Model,
    /// `count` Gibbs chains: v (count × m), h and E[h|v] (count × n).
    Chains { count: usize },
    /// Statistics sums [Σ v hᵀ | Σ v | Σ h] and their count.
    Stats,
    /// A parameter-shaped set of numbers.
    Params,
    /// The parameter step: the gradient (slot `grad`), and a velocity when `momentum` ≠ 0.
    Optimizer {
        grad: Slot,
        weight_decay: f32,
        momentum: f32,
    },
    /// The centered parameterisation: θ̃, the offsets [μ | λ] and a batch's E[h|v].
    Centered { nu_mu: f32, nu_lambda: f32 },
}

/// Rows an operation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// The training data, every row (where chains start).
    Data,
    /// The current update's mini-batch.
    Batch,
}

/// The learning rate of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lr {
    /// The lane's η of the update (its schedule's).
    Lane,
    /// A number of the algorithm's own.
    Fixed(f32),
}

/// One engine operation (the [`Engine`] trait's functions, by the same names).
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Op {
    // Setup.
    Chains {
        chains: Slot,
        model: Slot,
        rows: Rows,
    },
    Stats {
        stats: Slot,
    },
    Zeros {
        params: Slot,
    },
    Copy {
        to: Slot,
        from: Slot,
    },
    Centered {
        centered: Slot,
        model: Slot,
    },
    // Chains and statistics.
    RestartSweeps {
        model: Slot,
        chains: Slot,
        k: usize,
    },
    Sweeps {
        model: Slot,
        chains: Slot,
        k: usize,
    },
    ChainStats {
        chains: Slot,
        neg: Slot,
    },
    PositivePhase {
        model: Slot,
        pos: Slot,
    },
    MeanFieldStats {
        model: Slot,
        neg: Slot,
    },
    // Parameters.
    Step {
        opt: Slot,
        model: Slot,
        pos: Slot,
        neg: Slot,
        lr: Lr,
    },
    SetSum {
        sum: Slot,
        model: Slot,
        extra: Slot,
    },
    DecayAdd {
        x: Slot,
        alpha: f32,
        eta: f32,
        g: Slot,
    },
    WNorm {
        x: Slot,
    },
    // The centered parameterisation.
    BeginBatch {
        c: Slot,
        model: Slot,
    },
    Slide {
        c: Slot,
    },
    CenteredDataStats {
        c: Slot,
        pos: Slot,
    },
    CenteredChainStats {
        c: Slot,
        chains: Slot,
        neg: Slot,
    },
    CenteredStep {
        c: Slot,
        opt: Slot,
        pos: Slot,
        neg: Slot,
        lr: Lr,
        model: Slot,
    },
    // Reads of the host copy (a view's, or a mistake in an update).
    HostRead {
        slot: Slot,
    },
}

/// The lane's objects, made before the algorithm's: the model, the optimizer, its gradient and
/// the positive statistics.
pub const MODEL: Slot = 0;
/// The lane's optimizer.
pub const OPTIMIZER: Slot = 1;
/// The optimizer's gradient.
pub const GRAD: Slot = 2;
/// The lane's positive statistics.
pub const POS: Slot = 3;

/// The engine operations of one algorithm on one lane configuration: what [`record`] saw.
#[derive(Clone, Debug)]
pub struct Program {
    /// The algorithm's name.
    pub algo: &'static str,
    /// Visible units.
    pub m: usize,
    /// Hidden units.
    pub n: usize,
    /// Rows of the training data.
    pub data_rows: usize,
    /// Rows of a mini-batch.
    pub batch_rows: usize,
    /// The objects, by slot.
    pub slots: Vec<Kind>,
    /// The constructor's operations.
    pub setup: Vec<Op>,
    /// One update's operations.
    pub update: Vec<Op>,
    /// What every update reports (sweeps and v|h steps per chain; its statistics' names).
    pub report: Report,
}

impl Program {
    /// Random draws (half-sweeps, each one stream position) per update.
    pub fn draws_per_update(&self) -> u64 {
        self.update
            .iter()
            .map(|op| match op {
                Op::RestartSweeps { k, .. } | Op::Sweeps { k, .. } => 2 * *k as u64,
                _ => 0,
            })
            .sum()
    }

    /// Why an engine that runs programs without a host (a GPU's study job) cannot run this one,
    /// if it cannot: an update that reads a number back (FPCD's ‖W_F‖), reads the model, or
    /// reports a statistic.
    pub fn unsupported(&self) -> Option<String> {
        let reads = self
            .update
            .iter()
            .any(|op| matches!(op, Op::WNorm { .. } | Op::HostRead { .. }));
        if reads || !self.report.stats.is_empty() {
            return Some(format!(
                "{}'s updates read numbers back from the engine (a statistic of every update)",
                self.algo
            ));
        }
        None
    }
}

/// The recording the handles of one [`record`] share.
#[derive(Debug, Default)]
struct Recording {
    slots: Vec<Kind>,
    ops: Vec<Op>,
    data: (usize, usize),
    batch: (usize, usize),
    /// The lane's η of the update being recorded, to tell [`Lr::Lane`] from a number of the
    /// algorithm's own.
    lane_lr: f32,
    error: Option<String>,
}

/// A handle on the recording: the tape engine's device, and what its objects share.
#[derive(Clone, Debug, Default)]
pub struct Rec(Arc<Mutex<Recording>>);

impl Rec {
    fn lock(&self) -> MutexGuard<'_, Recording> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, op: Op) {
        self.lock().ops.push(op);
    }

    fn make(&self, kind: Kind) -> Slot {
        let mut r = self.lock();
        r.slots.push(kind);
        r.slots.len() - 1
    }

    /// Which rows `rows` are: the training data's or the mini-batch's (by address), else an
    /// error kept for [`record`].
    fn rows(&self, rows: &[f32]) -> Rows {
        let mut r = self.lock();
        let at = (rows.as_ptr() as usize, rows.len());
        if at == r.batch {
            Rows::Batch
        } else if at == r.data {
            Rows::Data
        } else {
            r.error.get_or_insert_with(|| {
                "it passes rows that are neither the data nor the mini-batch".into()
            });
            Rows::Batch
        }
    }

    /// A step's rate `lr`: the lane's, or a number of the algorithm's own.
    fn lr(&self, lr: f32) -> Lr {
        if lr.to_bits() == self.lock().lane_lr.to_bits() {
            Lr::Lane
        } else {
            Lr::Fixed(lr)
        }
    }

    fn need_batch(&self, rows: &[f32]) {
        if self.rows(rows) != Rows::Batch {
            self.lock()
                .error
                .get_or_insert_with(|| "it reads the data where a mini-batch is expected".into());
        }
    }
}

/// The tape engine: its objects are [`Handle`]s, its operations entries of a [`Program`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Tape;

/// An object on the tape: its slot, and the recording it belongs to.
#[derive(Debug)]
pub struct Handle {
    rec: Rec,
    slot: Slot,
    /// The lane's model, for [`Engine::host`] (which the tape records as a read).
    host: Option<Arc<Rbm>>,
}

/// The tape engine's optimizer: its slot and its gradient's handle.
#[derive(Debug)]
pub struct TapeOptimizer {
    handle: Handle,
    grad: Handle,
}

impl Handle {
    fn new(rec: &Rec, kind: Kind) -> Handle {
        Handle {
            rec: rec.clone(),
            slot: rec.make(kind),
            host: None,
        }
    }
}

impl Engine for Tape {
    type Model = Handle;
    type Chains = Handle;
    type Stats = Handle;
    type Params = Handle;
    type Optimizer = TapeOptimizer;
    type Rng = ();
    type Centered = Handle;
    type Device = Rec;

    const ON_HOST: bool = false;

    fn upload(dev: &Rec, model: &Rbm) -> Handle {
        let mut h = Handle::new(dev, Kind::Model);
        h.host = Some(Arc::new(model.clone()));
        h
    }

    fn host(model: &Handle) -> Cow<'_, Rbm> {
        model.rec.push(Op::HostRead { slot: model.slot });
        Cow::Borrowed(
            model
                .host
                .as_deref()
                .expect("a model handle holds the lane's model"),
        )
    }

    fn rng(_: &Rec, _: u64, _: u64) {}

    fn optimizer(model: &Handle, weight_decay: f32, momentum: f32) -> TapeOptimizer {
        let rec = &model.rec;
        let slot = rec.make(Kind::Optimizer {
            grad: 0,
            weight_decay,
            momentum,
        });
        let grad = Handle::new(rec, Kind::Params);
        if let Kind::Optimizer { grad: g, .. } = &mut rec.lock().slots[slot] {
            *g = grad.slot;
        }
        TapeOptimizer {
            handle: Handle {
                rec: rec.clone(),
                slot,
                host: None,
            },
            grad,
        }
    }

    fn set_coefficients(opt: &mut TapeOptimizer, weight_decay: f32, momentum: f32) {
        if let Kind::Optimizer {
            weight_decay: w,
            momentum: mu,
            ..
        } = &mut opt.handle.rec.lock().slots[opt.handle.slot]
        {
            *w = weight_decay;
            *mu = momentum;
        }
    }

    fn build(info: &AlgoInfo, setup: &Setup<Tape>) -> Result<Box<dyn Algorithm<Tape>>> {
        build_on(info, setup)
    }

    fn chains(model: &Handle, rows: &[f32], count: usize) -> Handle {
        let rows = model.rec.rows(rows);
        let h = Handle::new(&model.rec, Kind::Chains { count });
        model.rec.push(Op::Chains {
            chains: h.slot,
            model: model.slot,
            rows,
        });
        h
    }

    fn chain_states(chains: &Handle) -> &[f32] {
        chains.rec.push(Op::HostRead { slot: chains.slot });
        &[]
    }

    fn restart_sweeps(model: &Handle, chains: &mut Handle, batch: &[f32], _: &mut (), k: usize) {
        model.rec.need_batch(batch);
        model.rec.push(Op::RestartSweeps {
            model: model.slot,
            chains: chains.slot,
            k,
        });
    }

    fn sweeps(model: &Handle, chains: &mut Handle, _: &mut (), k: usize) {
        model.rec.push(Op::Sweeps {
            model: model.slot,
            chains: chains.slot,
            k,
        });
    }

    fn chain_stats(chains: &Handle, neg: &mut Handle) {
        chains.rec.push(Op::ChainStats {
            chains: chains.slot,
            neg: neg.slot,
        });
    }

    fn stats(model: &Handle) -> Handle {
        let h = Handle::new(&model.rec, Kind::Stats);
        model.rec.push(Op::Stats { stats: h.slot });
        h
    }

    fn positive_phase(model: &Handle, batch: &[f32], pos: &mut Handle, _: Option<&mut Handle>) {
        model.rec.need_batch(batch);
        model.rec.push(Op::PositivePhase {
            model: model.slot,
            pos: pos.slot,
        });
    }

    fn mean_field_stats(model: &Handle, batch: &[f32], neg: &mut Handle) {
        model.rec.need_batch(batch);
        model.rec.push(Op::MeanFieldStats {
            model: model.slot,
            neg: neg.slot,
        });
    }

    fn step(opt: &mut TapeOptimizer, model: &mut Handle, pos: &Handle, neg: &Handle, lr: f32) {
        let lr = model.rec.lr(lr);
        model.rec.push(Op::Step {
            opt: opt.handle.slot,
            model: model.slot,
            pos: pos.slot,
            neg: neg.slot,
            lr,
        });
    }

    fn grad(opt: &TapeOptimizer) -> &Handle {
        &opt.grad
    }

    fn zeros(model: &Handle) -> Handle {
        let h = Handle::new(&model.rec, Kind::Params);
        model.rec.push(Op::Zeros { params: h.slot });
        h
    }

    fn set_sum(sum: &mut Handle, model: &Handle, extra: &Handle) {
        model.rec.push(Op::SetSum {
            sum: sum.slot,
            model: model.slot,
            extra: extra.slot,
        });
    }

    fn decay_add(x: &mut Handle, alpha: f32, eta: f32, g: &Handle) {
        x.rec.push(Op::DecayAdd {
            x: x.slot,
            alpha,
            eta,
            g: g.slot,
        });
    }

    fn w_norm(x: &Handle) -> f64 {
        x.rec.push(Op::WNorm { x: x.slot });
        f64::NAN
    }

    fn copy(model: &Handle) -> Handle {
        let mut h = Handle::new(&model.rec, Kind::Model);
        h.host = model.host.clone();
        model.rec.push(Op::Copy {
            to: h.slot,
            from: model.slot,
        });
        h
    }

    fn centered(model: &Handle, data: &Dataset, nu_mu: f32, nu_lambda: f32) -> Result<Handle> {
        model.rec.rows(&data.values);
        let h = Handle::new(&model.rec, Kind::Centered { nu_mu, nu_lambda });
        model.rec.push(Op::Centered {
            centered: h.slot,
            model: model.slot,
        });
        Ok(h)
    }

    fn begin_batch(c: &mut Handle, model: &Handle, batch: &[f32], _: Option<&mut Handle>) {
        c.rec.need_batch(batch);
        c.rec.push(Op::BeginBatch {
            c: c.slot,
            model: model.slot,
        });
    }

    fn slide(c: &mut Handle) {
        c.rec.push(Op::Slide { c: c.slot });
    }

    fn centered_data_stats(c: &mut Handle, batch: &[f32], pos: &mut Handle) {
        c.rec.need_batch(batch);
        c.rec.push(Op::CenteredDataStats {
            c: c.slot,
            pos: pos.slot,
        });
    }

    fn centered_chain_stats(c: &mut Handle, chains: &Handle, neg: &mut Handle) {
        c.rec.push(Op::CenteredChainStats {
            c: c.slot,
            chains: chains.slot,
            neg: neg.slot,
        });
    }

    fn centered_step(
        c: &mut Handle,
        opt: &mut TapeOptimizer,
        pos: &Handle,
        neg: &Handle,
        lr: f32,
        model: &mut Handle,
    ) {
        let lr = c.rec.lr(lr);
        c.rec.push(Op::CenteredStep {
            c: c.slot,
            opt: opt.handle.slot,
            pos: pos.slot,
            neg: neg.slot,
            lr,
            model: model.slot,
        });
    }
}

/// The program of lane configuration `cfg` (its algorithm, options, batch and chains) on
/// `data`, with `model` the lane's initial model (its shape). Fails for an algorithm the
/// engine trait does not run (UCD, PT), one whose updates differ from one to the next, or one
/// that passes rows the tape cannot name.
pub fn record(cfg: &LaneConfig, data: &Dataset, model: &Rbm) -> Result<Program> {
    let info = crate::train::find(&cfg.algo)?;
    let batch_rows = cfg.batch.unwrap_or(data.rows());
    let chains = cfg.chains.unwrap_or(batch_rows);
    let rec = Rec::default();
    let batch = vec![0.0f32; batch_rows * data.m];
    {
        let mut r = rec.lock();
        r.data = (data.values.as_ptr() as usize, data.values.len());
        r.batch = (batch.as_ptr() as usize, batch.len());
        r.lane_lr = cfg.lr as f32;
    }
    let mut lane_model = Tape::upload(&rec, model);
    let mut opt = Tape::optimizer(&lane_model, cfg.weight_decay as f32, cfg.momentum as f32);
    let mut pos = Tape::stats(&lane_model);
    debug_assert_eq!(
        (lane_model.slot, opt.handle.slot, opt.grad.slot, pos.slot),
        (MODEL, OPTIMIZER, GRAD, POS)
    );
    let mut algo = Tape::build(
        info,
        &Setup {
            cfg,
            model: &lane_model,
            data,
            batch: batch_rows,
            chains,
        },
    )?;
    let setup = std::mem::take(&mut rec.lock().ops);
    let lr = cfg.lr as f32;
    let mut updates = Vec::new();
    let mut reports = Vec::new();
    for _ in 0..2 {
        let mut cx = Ctx {
            model: &mut lane_model,
            batch: &batch,
            rng: &mut (),
            lr,
            opt: &mut opt,
            pos: &mut pos,
        };
        reports.push(algo.update(&mut cx)?);
        updates.push(std::mem::take(&mut rec.lock().ops));
    }
    let r = rec.lock();
    let refuse = |why: &str| {
        Err(Error::Invalid(format!(
            "{} cannot be run as a program of engine operations: {why}",
            info.name
        )))
    };
    if let Some(e) = &r.error {
        return refuse(e);
    }
    if updates[0] != updates[1] {
        return refuse("its updates differ from one to the next");
    }
    let (a, b) = (&reports[0], &reports[1]);
    let keys = |r: &Report| r.stats.iter().map(|s| s.0).collect::<Vec<_>>();
    if a.sweeps != b.sweeps || a.vh_steps != b.vh_steps || keys(a) != keys(b) {
        return refuse("its updates report different counts from one to the next");
    }
    Ok(Program {
        algo: info.name,
        m: model.m(),
        n: model.n(),
        data_rows: data.rows(),
        batch_rows,
        slots: r.slots.clone(),
        setup,
        update: updates.swap_remove(0),
        report: reports.swap_remove(0),
    })
}

/// An object of a program on engine `E`.
enum Obj<E: Engine> {
    Model(E::Model),
    Chains(E::Chains),
    Stats(E::Stats),
    Params(E::Params),
    Optimizer(E::Optimizer),
    Centered(E::Centered),
    /// The optimizer's gradient (reached through it), or a slot not made yet.
    None,
}

/// A program running on engine `E`: its objects, and the lane's random stream.
pub struct Replay<E: Engine> {
    program: Program,
    objs: Vec<Obj<E>>,
    rng: E::Rng,
}

macro_rules! get {
    ($objs:expr, $slot:expr, $kind:ident) => {
        match &$objs[$slot] {
            Obj::$kind(x) => x,
            _ => unreachable!("slot {} holds a {}", $slot, stringify!($kind)),
        }
    };
}

impl<E: Engine> Replay<E> {
    /// `program` on engine `E` at `dev`, from `model` on `data`, drawing from the stream of
    /// (`seed`, `lane`) (the lane's objects as [`crate::train::Lane`] makes them, then the
    /// program's setup).
    pub fn new(
        dev: &E::Device,
        program: &Program,
        model: &Rbm,
        data: &Dataset,
        seed: u64,
        lane: u64,
    ) -> Result<Replay<E>> {
        let mut objs: Vec<Obj<E>> = (0..program.slots.len()).map(|_| Obj::None).collect();
        let up = E::upload(dev, model);
        if let Kind::Optimizer {
            weight_decay,
            momentum,
            ..
        } = program.slots[OPTIMIZER]
        {
            objs[OPTIMIZER] = Obj::Optimizer(E::optimizer(&up, weight_decay, momentum));
        }
        objs[POS] = Obj::Stats(E::stats(&up));
        objs[MODEL] = Obj::Model(up);
        for op in &program.setup {
            let made = match *op {
                Op::Chains {
                    chains,
                    model,
                    rows,
                } => {
                    debug_assert_eq!(rows, Rows::Data);
                    let Kind::Chains { count } = program.slots[chains] else {
                        unreachable!("a chains slot")
                    };
                    (
                        chains,
                        Obj::Chains(E::chains(get!(objs, model, Model), &data.values, count)),
                    )
                }
                Op::Stats { stats } => (stats, Obj::Stats(E::stats(get!(objs, MODEL, Model)))),
                Op::Zeros { params } => (params, Obj::Params(E::zeros(get!(objs, MODEL, Model)))),
                Op::Copy { to, from } => (to, Obj::Model(E::copy(get!(objs, from, Model)))),
                Op::Centered { centered, model } => {
                    let Kind::Centered { nu_mu, nu_lambda } = program.slots[centered] else {
                        unreachable!("a centered slot")
                    };
                    let c = E::centered(get!(objs, model, Model), data, nu_mu, nu_lambda)?;
                    (centered, Obj::Centered(c))
                }
                ref other => return Err(Error::Invalid(format!("{other:?} in a program's setup"))),
            };
            objs[made.0] = made.1;
        }
        Ok(Replay {
            program: program.clone(),
            objs,
            rng: E::rng(dev, seed, lane),
        })
    }

    /// The lane's model.
    pub fn model(&self) -> &E::Model {
        get!(self.objs, MODEL, Model)
    }

    /// One update on mini-batch `batch` (`batch_rows × m`) at the lane's learning rate `lr`.
    pub fn update(&mut self, batch: &[f32], lr: f32) {
        let (objs, rng) = (&mut self.objs, &mut self.rng);
        let rate = |l: Lr| match l {
            Lr::Lane => lr,
            Lr::Fixed(x) => x,
        };
        for op in &self.program.update {
            match *op {
                Op::RestartSweeps { model, chains, k } => {
                    let mut ch = take(objs, chains);
                    E::restart_sweeps(get!(objs, model, Model), chains_mut(&mut ch), batch, rng, k);
                    objs[chains] = ch;
                }
                Op::Sweeps { model, chains, k } => {
                    let mut ch = take(objs, chains);
                    E::sweeps(get!(objs, model, Model), chains_mut(&mut ch), rng, k);
                    objs[chains] = ch;
                }
                Op::ChainStats { chains, neg } => {
                    let mut s = take(objs, neg);
                    E::chain_stats(get!(objs, chains, Chains), stats_mut(&mut s));
                    objs[neg] = s;
                }
                Op::PositivePhase { model, pos } => {
                    let mut s = take(objs, pos);
                    E::positive_phase(get!(objs, model, Model), batch, stats_mut(&mut s), None);
                    objs[pos] = s;
                }
                Op::MeanFieldStats { model, neg } => {
                    let mut s = take(objs, neg);
                    E::mean_field_stats(get!(objs, model, Model), batch, stats_mut(&mut s));
                    objs[neg] = s;
                }
                Op::Step {
                    opt,
                    model,
                    pos,
                    neg,
                    lr: l,
                } => {
                    let (mut o, mut m) = (take(objs, opt), take(objs, model));
                    let (Obj::Optimizer(o2), Obj::Model(m2)) = (&mut o, &mut m) else {
                        unreachable!("a step's optimizer and model")
                    };
                    E::step(
                        o2,
                        m2,
                        get!(objs, pos, Stats),
                        get!(objs, neg, Stats),
                        rate(l),
                    );
                    objs[opt] = o;
                    objs[model] = m;
                }
                Op::SetSum { sum, model, extra } => {
                    let mut s = take(objs, sum);
                    let Obj::Model(s2) = &mut s else {
                        unreachable!("a sum's model")
                    };
                    E::set_sum(s2, get!(objs, model, Model), get!(objs, extra, Params));
                    objs[sum] = s;
                }
                Op::DecayAdd { x, alpha, eta, g } => {
                    let mut p = take(objs, x);
                    let Obj::Params(p2) = &mut p else {
                        unreachable!("parameters")
                    };
                    let g = if g == GRAD {
                        E::grad(get!(objs, OPTIMIZER, Optimizer))
                    } else {
                        get!(objs, g, Params)
                    };
                    E::decay_add(p2, alpha, eta, g);
                    objs[x] = p;
                }
                Op::WNorm { x } => {
                    E::w_norm(get!(objs, x, Params));
                }
                Op::BeginBatch { c, model } => {
                    let mut cc = take(objs, c);
                    E::begin_batch(centered_mut(&mut cc), get!(objs, model, Model), batch, None);
                    objs[c] = cc;
                }
                Op::Slide { c } => E::slide(centered_mut(&mut objs[c])),
                Op::CenteredDataStats { c, pos } => {
                    let mut s = take(objs, pos);
                    E::centered_data_stats(centered_mut(&mut objs[c]), batch, stats_mut(&mut s));
                    objs[pos] = s;
                }
                Op::CenteredChainStats { c, chains, neg } => {
                    let (mut cc, mut s) = (take(objs, c), take(objs, neg));
                    let ch = get!(objs, chains, Chains);
                    E::centered_chain_stats(centered_mut(&mut cc), ch, stats_mut(&mut s));
                    objs[c] = cc;
                    objs[neg] = s;
                }
                Op::CenteredStep {
                    c,
                    opt,
                    pos,
                    neg,
                    lr: l,
                    model,
                } => {
                    let (mut cc, mut o, mut m) =
                        (take(objs, c), take(objs, opt), take(objs, model));
                    let (Obj::Optimizer(o2), Obj::Model(m2)) = (&mut o, &mut m) else {
                        unreachable!("a step's optimizer and model")
                    };
                    let (p, n) = (get!(objs, pos, Stats), get!(objs, neg, Stats));
                    E::centered_step(centered_mut(&mut cc), o2, p, n, rate(l), m2);
                    objs[c] = cc;
                    objs[opt] = o;
                    objs[model] = m;
                }
                Op::HostRead { slot } => {
                    if let Obj::Model(m) = &objs[slot] {
                        drop(E::host(m));
                    }
                }
                ref setup => unreachable!("{setup:?} in an update"),
            }
        }
    }
}

/// The object of `slot`, taken out while an operation changes it (put back after).
fn take<E: Engine>(objs: &mut [Obj<E>], slot: Slot) -> Obj<E> {
    std::mem::replace(&mut objs[slot], Obj::None)
}

fn chains_mut<E: Engine>(o: &mut Obj<E>) -> &mut E::Chains {
    match o {
        Obj::Chains(x) => x,
        _ => unreachable!("a chains slot"),
    }
}

fn stats_mut<E: Engine>(o: &mut Obj<E>) -> &mut E::Stats {
    match o {
        Obj::Stats(x) => x,
        _ => unreachable!("a statistics slot"),
    }
}

fn centered_mut<E: Engine>(o: &mut Obj<E>) -> &mut E::Centered {
    match o {
        Obj::Centered(x) => x,
        _ => unreachable!("a centered slot"),
    }
}

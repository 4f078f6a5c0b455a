//! A study's trials as one GPU job ([`StudyJob`], issue 30): every trial of every lane advances
//! together, one workgroup per trial (shaders/study.wgsl), running its lane's program — the
//! engine operations its algorithm file performs per update, recorded by rbm_core's tape
//! engine — so a small model's update costs no dispatch of its own: one dispatch advances every
//! trial by as many updates as [`BARRIERS_PER_DISPATCH`] allows.
//!
//! Numbers: each operation computes what the GPU engine's dispatches for it compute, in the same
//! order, with the same Philox uniforms for the same (key, draw, index): a trial follows the GPU
//! engine's lane of its seed within f32 rounding (`tests/study.rs`), and a job is reproducible
//! for a seed on a given GPU.
//!
//! Objects live in an arena, a stretch of one buffer per trial laid out by [`Layout`]; the
//! programs' setups (chains at the data rows, zeroed statistics, the centered start) are made on
//! the host, as the GPU engine makes them.

use crate::device::{Buf, Device, Params, Snapshot};
use crate::product::key_halves;
use rbm_core::data::Dataset;
use rbm_core::engine::cpu::Centered;
use rbm_core::engine::tape::{Kind, Lr, Op, Program, Rows, Slot};
use rbm_core::error::{Error, Result};
use rbm_core::experiments::jobs::{ProgramJob, TrialPlan};
use rbm_core::model::Params as ModelParams;
use rbm_core::rng::philox;
use std::sync::Arc;

/// Workgroup barriers one dispatch runs at most: a dispatch advances every trial by as many
/// updates as fit ([`barriers_per_update`]), so each is bounded work that no watchdog ends.
/// Lavapipe (Mesa's Vulkan on the CPU, CI's GPU) ends a workgroup silently after about 2 048
/// barriers: S-DCP's 36 per update stopped at update 57, PCD-12's 29 at 70
/// (`tests/study.rs` runs past both).
pub const BARRIERS_PER_DISPATCH: u64 = 512;

/// The largest model a job runs (m·n): one workgroup per trial suits small models; larger
/// lanes run one by one on the GPU engine, whose products use the whole GPU.
pub const MAX_WEIGHTS: usize = 1 << 16;

/// Floats of a trial's arena that the kernel keeps in workgroup memory (16 KiB, what every
/// WebGPU adapter offers); a job whose trials need more keeps them in the buffer.
pub const SHARED_FLOATS: usize = 4096;

/// The kernel (shaders/study.wgsl) as written: every trial's arena in the buffer.
const STUDY_WGSL: &str = include_str!("shaders/study.wgsl");

/// The kernel with a trial's arena in workgroup memory: the same operations in the same order,
/// so the same bits, with no trip to the GPU's memory between phases.
fn shared_wgsl() -> &'static str {
    static SOURCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SOURCE.get_or_init(|| {
        let load = "for (var e = lid; e < p.depth; e += WG) { wg[e] = out0[base + e]; }\n    workgroupBarrier();";
        let store = "workgroupBarrier();\n    for (var e = lid; e < p.depth; e += WG) { out0[base + e] = wg[e]; }";
        let body = STUDY_WGSL
            .replace("out0[base + ", "wg[")
            .replace("fn study(", "fn study_shared(")
            .replace("// @load", load)
            .replace("// @store", store);
        format!("var<workgroup> wg: array<f32, {SHARED_FLOATS}>;\n{body}")
    })
}

/// Words per operation in the program buffer.
const OP_WORDS: usize = 16;

/// Where a program's objects lie in a trial's stretch of the arena.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The first float of each slot's block.
    at: Vec<usize>,
    /// Scratch E[h|v] (rows × n) of the positive phase, mean-field v₁ (rows × m), h − λ.
    hp: usize,
    v1: usize,
    hc: usize,
    /// Floats per trial.
    pub len: usize,
}

/// The GPU engine's chains' blocks: v (count × m), h, E[h|v] (count × n).
fn chain_blocks(at: usize, count: usize, m: usize, n: usize) -> (usize, usize, usize) {
    (at, at + count * m, at + count * m + count * n)
}

/// A centered object's blocks: θ̃, offsets [μ | λ], the batch's E[h|v], its column sums.
fn centered_blocks(at: usize, m: usize, n: usize, rows: usize) -> (usize, usize, usize, usize) {
    let l = m * n + m + n;
    (at, at + l, at + l + m + n, at + l + m + n + rows * n)
}

impl Layout {
    /// The layout of `p`'s objects.
    pub fn of(p: &Program) -> Layout {
        let (m, n) = (p.m, p.n);
        let l = m * n + m + n;
        let mut at = Vec::with_capacity(p.slots.len());
        let mut next = 0;
        let mut widest = p.batch_rows;
        for kind in &p.slots {
            at.push(next);
            next += match kind {
                Kind::Model | Kind::Params => l,
                Kind::Stats => l + 1,
                Kind::Chains { count } => {
                    widest = widest.max(*count);
                    count * (m + 2 * n)
                }
                Kind::Optimizer { momentum, .. } => {
                    if *momentum != 0.0 {
                        l
                    } else {
                        0
                    }
                }
                Kind::Centered { .. } => l + 2 * (m + n) + p.batch_rows * n,
            };
        }
        let hp = next;
        let v1 = hp + p.batch_rows * n;
        let hc = v1 + p.batch_rows * m;
        Layout {
            at,
            hp,
            v1,
            hc,
            len: hc + widest * n,
        }
    }
}

/// Workgroup barriers the kernel runs for one update of `p` (each phase of an operation ends
/// with one: shaders/study.wgsl).
pub fn barriers_per_update(p: &Program) -> u64 {
    p.update
        .iter()
        .map(|op| match op {
            Op::RestartSweeps { k, .. } => 2 * *k as u64 + 2,
            Op::Sweeps { k, .. } => 2 * *k as u64 + 1,
            Op::ChainStats { .. } | Op::Step { .. } | Op::SetSum { .. } | Op::DecayAdd { .. } => 1,
            Op::PositivePhase { .. }
            | Op::BeginBatch { .. }
            | Op::Slide { .. }
            | Op::CenteredStep { .. } => 2,
            Op::CenteredDataStats { .. } | Op::CenteredChainStats { .. } => 3,
            Op::MeanFieldStats { .. } => 4,
            _ => 0,
        })
        .sum()
}

/// `op` of a program laid out as `lay`, as the kernel's 16 words.
fn encode(p: &Program, lay: &Layout, op: &Op) -> Result<[f32; OP_WORDS]> {
    let (m, n) = (p.m, p.n);
    let at = |s: Slot| lay.at[s] as f32;
    let chains = |s: Slot| {
        let Kind::Chains { count } = p.slots[s] else {
            unreachable!("a chains slot")
        };
        let (v, h, hp) = chain_blocks(lay.at[s], count, m, n);
        (v as f32, h as f32, hp as f32, count as f32)
    };
    let centered = |s: Slot| {
        let (th, off, hp, sums) = centered_blocks(lay.at[s], m, n, p.batch_rows);
        (th as f32, off as f32, hp as f32, sums as f32)
    };
    let opt = |s: Slot| match p.slots[s] {
        Kind::Optimizer {
            grad,
            weight_decay,
            momentum,
        } => (at(grad), at(s), weight_decay, momentum),
        _ => unreachable!("an optimizer slot"),
    };
    let rate = |lr: Lr| match lr {
        Lr::Lane => (0.0, 0.0),
        Lr::Fixed(x) => (1.0, x),
    };
    let mut w = [0.0f32; OP_WORDS];
    let words: &[f32] = match *op {
        Op::RestartSweeps {
            model,
            chains: c,
            k,
        }
        | Op::Sweeps {
            model,
            chains: c,
            k,
        } => {
            let code = if matches!(op, Op::RestartSweeps { .. }) {
                1.0
            } else {
                2.0
            };
            let (v, h, hp, count) = chains(c);
            &[code, at(model), v, h, hp, count, k as f32]
        }
        Op::ChainStats { chains: c, neg } => {
            let (v, _, hp, count) = chains(c);
            &[3.0, v, hp, count, at(neg)]
        }
        Op::PositivePhase { model, pos } => &[4.0, at(model), at(pos)],
        Op::MeanFieldStats { model, neg } => &[5.0, at(model), at(neg)],
        Op::Step {
            opt: o,
            model,
            pos,
            neg,
            lr,
        } => {
            let (grad, vel, wd, mu) = opt(o);
            let (fixed, x) = rate(lr);
            &[
                6.0,
                at(model),
                at(pos),
                at(neg),
                grad,
                vel,
                wd,
                mu,
                fixed,
                x,
            ]
        }
        Op::SetSum { sum, model, extra } => &[7.0, at(sum), at(model), at(extra)],
        Op::DecayAdd { x, alpha, eta, g } => &[8.0, at(x), at(g), alpha, eta],
        Op::BeginBatch { c, model } => {
            let (_, _, hp, sums) = centered(c);
            &[9.0, hp, sums, at(model)]
        }
        Op::Slide { c } => {
            let Kind::Centered { nu_mu, nu_lambda } = p.slots[c] else {
                unreachable!("a centered slot")
            };
            let (th, off, _, sums) = centered(c);
            &[10.0, th, off, sums, nu_mu, nu_lambda]
        }
        Op::CenteredDataStats { c, pos } => {
            let (_, off, hp, _) = centered(c);
            &[11.0, off, hp, at(pos), lay.hc as f32]
        }
        Op::CenteredChainStats { c, chains: ch, neg } => {
            let (_, off, _, _) = centered(c);
            let (v, _, hp, count) = chains(ch);
            &[12.0, off, v, hp, count, at(neg), lay.hc as f32]
        }
        Op::CenteredStep {
            c,
            opt: o,
            pos,
            neg,
            lr,
            model,
        } => {
            let (th, off, _, _) = centered(c);
            let (grad, vel, wd, mu) = opt(o);
            let (fixed, x) = rate(lr);
            &[
                13.0,
                th,
                at(pos),
                at(neg),
                grad,
                vel,
                wd,
                mu,
                fixed,
                x,
                at(model),
                off,
            ]
        }
        ref other => {
            return Err(Error::Invalid(format!(
                "{}: {other:?} has no place in a GPU job's update",
                p.algo
            )))
        }
    };
    w[..words.len()].copy_from_slice(words);
    Ok(w)
}

/// A trial's arena at the start: the lane's model, then its program's setup as the GPU engine
/// makes it (chains at the data rows, zeros, copies, the centered start on the host).
fn start_arena(p: &Program, lay: &Layout, plan: &TrialPlan, data: &Dataset) -> Result<Vec<f32>> {
    let (m, n) = (p.m, p.n);
    let l = m * n + m + n;
    let mut a = vec![0.0f32; lay.len];
    let theta = |a: &mut [f32], at: usize, model: &rbm_core::model::Rbm| {
        a[at..at + m * n].copy_from_slice(model.w());
        a[at + m * n..at + m * n + m].copy_from_slice(&model.b);
        a[at + m * n + m..at + l].copy_from_slice(&model.c);
    };
    theta(&mut a, lay.at[0], &plan.model);
    for op in &p.setup {
        match *op {
            Op::Chains { chains, rows, .. } => {
                debug_assert_eq!(rows, Rows::Data);
                let Kind::Chains { count } = p.slots[chains] else {
                    unreachable!("a chains slot")
                };
                let r = data.rows().max(1);
                for i in 0..count {
                    let at = lay.at[chains] + i * m;
                    a[at..at + m].copy_from_slice(data.row(i % r));
                }
            }
            Op::Stats { .. } | Op::Zeros { .. } => {}
            Op::Copy { to, from } => {
                let (f, t) = (lay.at[from], lay.at[to]);
                a.copy_within(f..f + l, t);
            }
            Op::Centered { centered, .. } => {
                let Kind::Centered { nu_mu, nu_lambda } = p.slots[centered] else {
                    unreachable!("a centered slot")
                };
                let c = Centered::new(&plan.model, data, nu_mu, nu_lambda)?;
                let (th, off, _, _) = centered_blocks(lay.at[centered], m, n, p.batch_rows);
                theta(&mut a, th, c.params());
                a[off..off + m].copy_from_slice(c.mu());
                a[off + m..off + m + n].copy_from_slice(c.lambda());
            }
            ref other => {
                return Err(Error::Invalid(format!(
                    "{}: {other:?} in a program's setup",
                    p.algo
                )))
            }
        }
    }
    Ok(a)
}

/// Whether a job runs `p`: a program without reads back, of a model of at most
/// [`MAX_WEIGHTS`] weights, on full batches.
fn check(p: &Program) -> Result<()> {
    if let Some(why) = p.unsupported() {
        return Err(Error::Invalid(why));
    }
    if p.m * p.n > MAX_WEIGHTS {
        return Err(Error::Invalid(format!(
            "a GPU job runs models of at most {MAX_WEIGHTS} weights, not {}×{}",
            p.m, p.n
        )));
    }
    if p.batch_rows != p.data_rows {
        return Err(Error::Invalid(format!(
            "{}: a GPU job trains on full batches of its data",
            p.algo
        )));
    }
    Ok(())
}

/// Whether a job runs the trials of `plans` (each program checked as [`StudyJob`]'s start
/// checks it), so a shell can leave the others out before it starts.
pub fn fits(plans: &[TrialPlan]) -> Result<()> {
    plans.iter().try_for_each(|p| check(&p.program))
}

/// A study's trials on one GPU, advanced together ([`ProgramJob`]).
pub struct StudyJob {
    dev: Arc<Device>,
    state: Option<State>,
    /// Keep every arena in the buffer even where it fits workgroup memory (tests take both
    /// arms).
    in_buffer: bool,
}

struct State {
    programs: Buf,
    data: Buf,
    trials: Buf,
    arena: Buf,
    stride: usize,
    /// Updates per dispatch (within [`BARRIERS_PER_DISPATCH`] for the heaviest program).
    per_dispatch: u64,
    /// Each trial's model: (offset in the arena, m, n).
    models: Vec<(usize, usize, usize)>,
    done: u64,
}

impl StudyJob {
    /// A job on `dev`.
    pub fn new(dev: Arc<Device>) -> StudyJob {
        StudyJob {
            dev,
            state: None,
            in_buffer: false,
        }
    }

    /// Keeps every trial's arena in the buffer (`true`), as for trials too large for
    /// workgroup memory, so tests compare the kernel's two arms.
    pub fn force_buffer(&mut self, yes: bool) {
        self.in_buffer = yes;
    }

    /// Whether the started job keeps its trials' arenas in workgroup memory.
    pub fn shared(&self) -> bool {
        self.state.as_ref().is_some_and(|s| self.shares(s.stride))
    }

    fn shares(&self, stride: usize) -> bool {
        !self.in_buffer && stride <= SHARED_FLOATS
    }

    /// Updates done by every trial.
    pub fn updates(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.done)
    }
}

impl ProgramJob for StudyJob {
    fn start(&mut self, data: &Arc<Dataset>, plans: &[TrialPlan]) -> Result<()> {
        // One program per group, in the order the groups first appear.
        let mut groups: Vec<(usize, Arc<Program>, Layout)> = Vec::new();
        for plan in plans {
            if !groups.iter().any(|g| g.0 == plan.group) {
                let p = &plan.program;
                check(p)?;
                if p.data_rows != data.rows() || p.m != data.m {
                    return Err(Error::Invalid(format!(
                        "{}: its program is of other data than the job's",
                        p.algo
                    )));
                }
                groups.push((plan.group, p.clone(), Layout::of(p)));
            }
        }
        let stride = groups.iter().map(|g| g.2.len).max().unwrap_or(0);
        let heaviest = groups
            .iter()
            .map(|g| barriers_per_update(&g.1))
            .max()
            .unwrap_or(1);
        let per_dispatch = (BARRIERS_PER_DISPATCH / heaviest.max(1)).max(1);
        let limit = self.dev.wgpu().0.limits().max_storage_buffer_binding_size as usize / 4;
        if stride * plans.len() > limit || stride >= 1 << 24 {
            return Err(Error::Invalid(format!(
                "a GPU job of {} trials needs {} floats, more than this GPU binds ({limit})",
                plans.len(),
                stride * plans.len()
            )));
        }
        // Headers, then each group's operations.
        let mut words = vec![0.0f32; 8 * groups.len()];
        for (g, (_, p, lay)) in groups.iter().enumerate() {
            let header = [
                words.len() as f32,
                p.update.len() as f32,
                p.m as f32,
                p.n as f32,
                data.rows() as f32,
                p.draws_per_update() as f32,
                lay.hp as f32,
                lay.v1 as f32,
            ];
            words[8 * g..8 * g + 8].copy_from_slice(&header);
            for op in &p.update {
                words.extend_from_slice(&encode(p, lay, op)?);
            }
        }
        let mut table = Vec::with_capacity(8 * plans.len());
        let mut arena = Vec::with_capacity(stride * plans.len());
        let mut models = Vec::with_capacity(plans.len());
        for plan in plans {
            let g = groups
                .iter()
                .position(|g| g.0 == plan.group)
                .expect("every group was laid out");
            let (_, p, lay) = &groups[g];
            let k = key_halves(philox::key(plan.seed, plan.cfg.lane));
            table.extend_from_slice(&[
                g as f32,
                k[0],
                k[1],
                k[2],
                k[3],
                plan.cfg.lr as f32,
                0.0,
                0.0,
            ]);
            models.push((arena.len() + lay.at[0], p.m, p.n));
            let mut a = start_arena(p, lay, plan, data)?;
            a.resize(stride, 0.0);
            arena.extend_from_slice(&a);
        }
        let dev = &self.dev;
        self.state = Some(State {
            programs: dev.buffer(&words),
            data: dev.buffer(&data.values),
            trials: dev.buffer(&table),
            arena: dev.buffer(&arena),
            stride,
            per_dispatch,
            models,
            done: 0,
        });
        Ok(())
    }

    fn advance(&mut self, updates: u64) -> Result<()> {
        let shared = self.shared();
        let st = self.state.as_mut().expect("the job was started");
        let trials = st.models.len();
        if trials == 0 {
            st.done += updates;
            return Ok(());
        }
        let pipeline = if shared {
            self.dev.compile(shared_wgsl(), "study_shared")
        } else {
            self.dev.compile(STUDY_WGSL, "study")
        };
        let x = trials.min(65_535);
        let groups = (x as u32, trials.div_ceil(x) as u32, 1);
        let mut left = updates;
        while left > 0 {
            let now = left.min(st.per_dispatch);
            let first = u32::try_from(st.done)
                .map_err(|_| Error::Invalid("a GPU job runs at most 2^32 updates".into()))?;
            let p = Params {
                rows: trials as u32,
                depth: st.stride as u32,
                count: now as u32,
                extra: first,
                ..Default::default()
            };
            self.dev.run(
                &pipeline,
                &p,
                [Some(&st.programs), Some(&st.data), Some(&st.trials)],
                [Some(&st.arena), None],
                groups,
            );
            st.done += now;
            left -= now;
        }
        self.dev.flush();
        Ok(())
    }

    /// Waits for the GPU (natively; a browser's worker takes [`StudyJob::copy_models`]).
    fn models(&mut self) -> Result<Vec<ModelParams<f32>>> {
        let st = self.state.as_ref().expect("the job was started");
        let all = self.dev.read(&st.arena, 0, st.stride * st.models.len());
        if let Some(why) = self.dev.failure() {
            return Err(Error::Invalid(why));
        }
        Ok(split_models(&st.models, &all))
    }
}

/// Each trial's model from a copy of the arena's first trials (`models`: each one's offset
/// and sizes).
fn split_models(models: &[(usize, usize, usize)], all: &[f32]) -> Vec<ModelParams<f32>> {
    models
        .iter()
        .map(|&(at, m, n)| {
            let (mn, l) = (m * n, m * n + m + n);
            ModelParams {
                w: all[at..at + mn].to_vec(),
                b: all[at + mn..at + mn + m].to_vec(),
                c: all[at + mn + m..at + l].to_vec(),
            }
        })
        .collect()
}

/// The trials' models on their way to the host ([`StudyJob::copy_models`]), never waited for.
pub struct ModelsCopy {
    copy: Snapshot,
    models: Vec<(usize, usize, usize)>,
    /// The updates every trial had done when the copy was taken.
    pub updates: u64,
}

impl ModelsCopy {
    /// Every trial's model, in plan order, once the copy is on the host (None: not yet; an
    /// error: the GPU could not hand it over, e.g. its device was lost).
    pub fn take(&self) -> Option<Result<Vec<ModelParams<f32>>>> {
        Some(
            self.copy
                .take()?
                .map(|all| split_models(&self.models, &all)),
        )
    }

    /// Whether [`ModelsCopy::take`] would give the models (or an error) now.
    pub fn ready(&self) -> bool {
        self.copy.ready()
    }
}

impl StudyJob {
    /// A copy of every trial's model after the updates submitted so far, coming to the host
    /// without waiting ([`Device::snapshot`]): the same numbers [`ProgramJob::models`] reads.
    /// A browser's worker takes it on a later slice; natively [`Device::progress`] moves it.
    pub fn copy_models(&self) -> Result<ModelsCopy> {
        let st = self.state.as_ref().expect("the job was started");
        if let Some(why) = self.dev.failure() {
            return Err(Error::Invalid(why));
        }
        Ok(ModelsCopy {
            copy: self.dev.snapshot(&st.arena, 0, st.stride * st.models.len()),
            models: st.models.clone(),
            updates: st.done,
        })
    }

    /// The job's GPU.
    pub fn device(&self) -> &Arc<Device> {
        &self.dev
    }
}

//! A study's checkpoint measurements on the GPU ([`GpuLogZ`]): `rbm reproduce --device gpu`
//! takes every checkpoint's log Z — the exact enumeration (`exact.rs`) or AIS (`ais.rs`) — on
//! the GPU, for the lanes the GPU trains and those it does not alike.
//!
//! **AIS in batches.** A run of 100 particles leaves most of a large GPU idle: its time is the
//! dispatches' (three per β step), not their arithmetic. The study's trials run on their own
//! threads and reach their checkpoints at about the same time, so their AIS requests are
//! annealed together: a request that finds the GPU free takes every waiting request of its
//! shape (model size, particles, β) as one [`ais::Anneal::batch`], and the others wait for
//! their results. Which requests share a batch depends on timing, but no result does: a
//! model's estimate in a batch is, bit for bit, what it would be alone (tested).

use crate::{ais, Device};
use rbm_core::error::{Error, Result};
use rbm_core::eval::ais::{AisConfig, Plan, Schedule};
use rbm_core::experiments::trials::LogZEngine;
use rbm_core::model::Rbm;
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Most models annealed in one batch (their buffers are also bounded by what the GPU binds).
pub const MAX_BATCH: usize = 64;

/// The GPU's log Z for a study's measurements (f32 with compensated sums; AIS with
/// double-single log-weights): the same estimators as the CPU's, other numbers.
#[derive(Debug)]
pub struct GpuLogZ {
    dev: Arc<Device>,
    queue: Mutex<Queue>,
    answered: Condvar,
}

/// AIS requests waiting for a batch, and the answers not yet collected.
#[derive(Default)]
struct Queue {
    next: u64,
    waiting: Vec<(u64, Plan)>,
    running: bool,
    answers: HashMap<u64, Result<f64>>,
    /// Batches run so far and the models in them (for tests and benchmarks).
    batches: Vec<usize>,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("waiting", &self.waiting.len())
            .field("running", &self.running)
            .field("batches", &self.batches)
            .finish()
    }
}

/// What must agree for AIS runs to share a batch: size, particles and β schedule.
type Shape = (usize, usize, usize, usize, Schedule);

fn shape(plan: &Plan) -> Shape {
    let c = plan.config();
    (
        plan.model().m(),
        plan.model().n(),
        c.particles,
        c.betas,
        c.schedule,
    )
}

impl GpuLogZ {
    /// Measurements on `dev`.
    pub fn new(dev: Arc<Device>) -> GpuLogZ {
        GpuLogZ {
            dev,
            queue: Mutex::default(),
            answered: Condvar::new(),
        }
    }

    /// The number of models in each AIS batch run so far, in order.
    pub fn batches(&self) -> Vec<usize> {
        self.lock().batches.clone()
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs the waiting requests of the first one's shape (at most [`MAX_BATCH`] and what the
    /// GPU binds) as one batch, with the queue unlocked meanwhile, and files their answers.
    fn lead<'q>(&'q self, mut q: MutexGuard<'q, Queue>) -> MutexGuard<'q, Queue> {
        let want = shape(&q.waiting[0].1);
        let (m, n, particles, _, _) = want;
        let limit = self.dev.wgpu().0.limits().max_storage_buffer_binding_size as usize / 4;
        let room = (limit / (particles * m.max(n) + m + 4).max(m * n)).clamp(1, MAX_BATCH);
        let mut batch = Vec::new();
        let mut i = 0;
        while i < q.waiting.len() && batch.len() < room {
            if shape(&q.waiting[i].1) == want {
                batch.push(q.waiting.remove(i));
            } else {
                i += 1;
            }
        }
        q.running = true;
        q.batches.push(batch.len());
        drop(q);
        let (ids, plans): (Vec<u64>, Vec<Plan>) = batch.into_iter().unzip();
        // A panic must not leave the queue `running` with the other trials waiting forever.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ais::plans_log_weights(&self.dev, &plans)
        }))
        .unwrap_or_else(|_| {
            Err(Error::Invalid(
                "the GPU's AIS batch failed (a panic in the GPU engine)".into(),
            ))
        });
        let answers: Vec<Result<f64>> = match run {
            Ok(lw) => plans
                .iter()
                .zip(&lw)
                .map(|(plan, w)| plan.log_z(&ais::Anneal::blocks(w)).map(|e| e.log_z))
                .collect(),
            Err(e) => vec![Err(e); plans.len()],
        };
        let mut q = self.lock();
        q.running = false;
        q.answers.extend(ids.into_iter().zip(answers));
        self.answered.notify_all();
        q
    }
}

impl LogZEngine for GpuLogZ {
    fn exact(&self, model: &Rbm) -> Result<f64> {
        crate::exact::log_z(&self.dev, model)
    }

    /// AIS's log Ẑ, annealed with the other trials' waiting requests of its shape.
    fn ais(&self, model: &Rbm, base: &[f32], cfg: AisConfig) -> Result<f64> {
        // The CPU's checks (sizes, limits, finite base biases) are the plan's.
        let plan = Plan::ais_log_z(model, Some(base), cfg)?;
        let mut q = self.lock();
        let id = q.next;
        q.next += 1;
        q.waiting.push((id, plan));
        loop {
            if let Some(answer) = q.answers.remove(&id) {
                return answer;
            }
            q = if q.running {
                self.answered.wait(q).unwrap_or_else(|e| e.into_inner())
            } else {
                self.lead(q)
            };
        }
    }
}

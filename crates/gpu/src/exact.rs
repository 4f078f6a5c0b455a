//! Exact log Z on the GPU (issue 30): the 2^k states of the smaller layer enumerated by
//! `shaders/exact.wgsl`, as `rbm_core::eval::exact::log_z` does on the CPU in f64.
//!
//! With the hidden layer enumerated (n ≤ m; the visible case is the same with the layers'
//! roles swapped), log Z = logsumexp_h t(h) with t(h) = cᵀh + Σ_i softplus(b_i + (W h)_i).
//! Each workgroup takes a block of 1024 states sharing their high bits (the high part of
//! b + W h is formed once per block in workgroup memory), each thread 16 states, and returns
//! the block's (max t, Σ exp(t − max)); the blocks are merged here in f64.
//!
//! WGSL has no f64, so the error is kept in bounds as follows (t ≈ 550 for 784 visible units,
//! so a relative 1e-6 of log Z allows an absolute ~5e-4 in each t):
//! - pre-activations x_i are sums of at most k + 1 f32 terms (|error| ≲ k·ε·Σ|terms|, rounding
//!   errors of random sign, and softplus' slope is below 1);
//! - softplus(x) = max(x, 0) + ln(1 + e^−|x|): the max parts are summed with Kahan's
//!   compensation (error ~ε·t), the ln parts as one product Π(1 + e^−|x|) renormalised by
//!   frexp (exact) every 64 units, one log at the end: l multiplications and l roundings of
//!   1 + e^−|x| give a relative error of the product, i.e. an absolute error of its log, of at
//!   most ~2·l·ε (1e-4 for l = 784, typically √l·ε ≈ 2e-6);
//! - t is assembled in double-single (two f32), the exponent's e·ln 2 exactly;
//! - the block sums Σ exp(t − max) ≥ 1 are tree-summed in f32: a relative error of ~10·ε of
//!   the sum is an absolute ~1e-6 of log Z, and the blocks merge in f64.
//!
//! So the error of log Z is at most the largest error of one t plus ~1e-6. Measured on
//! lavapipe: ~2e-5 absolute for 784 visible units (3e-8 – 6e-8 relative), ~1e-6 for small
//! models; the tests require a relative 1e-6.
//!
//! The compensated sums rely on the driver not reassociating f32 additions (SPIR-V does not
//! allow it without fast-math flags; naga emits none).

use crate::device::{Device, Params};
use rbm_core::error::{Error, Result};
use rbm_core::eval::exact::{check_enumerable, MAX_ENUM_BITS};
use rbm_core::model::Rbm;
use std::sync::Arc;

/// States per workgroup (the shader's EXZ_BITS).
const BLOCK_BITS: usize = 10;
/// Workgroups per dispatch: 4M states, so each dispatch stays short on a slow GPU.
const GROUPS_PER_DISPATCH: usize = 4096;

/// Exact log Z of `model` by enumerating the 2^k states of its smaller layer (hidden on ties)
/// on `dev`; refused beyond 2^30 states ([`MAX_ENUM_BITS`]) as on the CPU. Waits for the GPU;
/// a browser's worker, which cannot wait, uses [`ExactWalk`].
pub fn log_z(dev: &Arc<Device>, model: &Rbm) -> Result<f64> {
    let mut walk = ExactWalk::new(dev, model)?;
    walk.advance(usize::MAX);
    let parts = dev.read(&walk.out, 0, 2 * walk.groups);
    merge(&parts)
}

/// [`log_z`] a few dispatches at a time, never waiting for the GPU: [`ExactWalk::advance`]
/// records up to a number of dispatches (of 4M states each) and submits them, and once every
/// one is recorded [`ExactWalk::finish`] takes a copy of the blocks' sums on its way to the host,
/// which [`ExactWalk::log_z`] merges — the same numbers as [`log_z`], bit for bit.
pub struct ExactWalk {
    dev: Arc<Device>,
    pipeline: Arc<crate::device::Pipeline>,
    rows: crate::device::Buf,
    bias_y: crate::device::Buf,
    bias_x: crate::device::Buf,
    out: crate::device::Buf,
    k: usize,
    l: usize,
    /// Workgroups (blocks of 1024 states) in all, and the first not yet recorded.
    groups: usize,
    first: usize,
}

impl ExactWalk {
    /// Ready to walk `model`'s smaller layer on `dev`; refused as [`log_z`] refuses.
    pub fn new(dev: &Arc<Device>, model: &Rbm) -> Result<ExactWalk> {
        let (m, n) = (model.m(), model.n());
        // x: the enumerated layer (k units), y: the summed-out one (l units).
        let (k, l, rows, bias_y, bias_x) = if n <= m {
            (n, m, model.wt(), &model.b, &model.c)
        } else {
            (m, n, model.w(), &model.c, &model.b)
        };
        check_enumerable(k, MAX_ENUM_BITS, &format!("exact log Z of a {m}×{n} model"))?;
        if k == 0 || l == 0 {
            return Err(Error::Invalid(
                "exact log Z needs both layers non-empty".into(),
            ));
        }
        if (l as u64) * (k.max(BLOCK_BITS) as u64) >= u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "exact log Z of a {m}×{n} model: the weights exceed the GPU's 32-bit indices"
            )));
        }
        // Rows and biases padded with zeros to the block's 10 bits.
        let kp = k.max(BLOCK_BITS);
        let mut rows_p = rows.to_vec();
        rows_p.resize(kp * l, 0.0);
        let mut bias_xp = bias_x.to_vec();
        bias_xp.resize(kp, 0.0);
        let groups = 1usize << k.saturating_sub(BLOCK_BITS);
        Ok(ExactWalk {
            rows: dev.buffer(&rows_p),
            bias_y: dev.buffer(bias_y),
            bias_x: dev.buffer(&bias_xp),
            out: dev.zeros(2 * groups),
            pipeline: dev.compile(include_str!("shaders/exact.wgsl"), "exact_log_z"),
            dev: dev.clone(),
            k,
            l,
            groups,
            first: 0,
        })
    }

    /// Dispatches recorded so far and in all.
    pub fn progress(&self) -> (usize, usize) {
        let per = GROUPS_PER_DISPATCH;
        (self.first.div_ceil(per), self.groups.div_ceil(per))
    }

    /// Records and submits up to `max_dispatches` more dispatches; true once all are.
    pub fn advance(&mut self, max_dispatches: usize) -> bool {
        for _ in 0..max_dispatches {
            if self.first >= self.groups {
                break;
            }
            let count = (self.groups - self.first).min(GROUPS_PER_DISPATCH);
            let p = Params {
                rows: self.k as u32,
                cols: self.l as u32,
                a_off: self.first as u32,
                ..Default::default()
            };
            self.dev.run(
                &self.pipeline,
                &p,
                [Some(&self.rows), Some(&self.bias_y), Some(&self.bias_x)],
                [Some(&self.out), None],
                (count as u32, 1, 1),
            );
            self.dev.flush();
            self.first += count;
        }
        self.first >= self.groups
    }

    /// A copy of the blocks' (max, sum) pairs on its way to the host, once every dispatch is
    /// recorded.
    pub fn finish(&self) -> crate::Snapshot {
        self.dev.snapshot(&self.out, 0, 2 * self.groups)
    }

    /// log Z from [`ExactWalk::finish`]'s numbers, merged in f64.
    pub fn log_z(parts: &[f32]) -> Result<f64> {
        merge(parts)
    }
}

/// log Σ_g sum_g·e^{max_g} of the blocks' (max, sum) pairs, in f64.
fn merge(parts: &[f32]) -> Result<f64> {
    let top = parts
        .chunks_exact(2)
        .map(|p| p[0] as f64)
        .fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = parts
        .chunks_exact(2)
        .map(|p| p[1] as f64 * (p[0] as f64 - top).exp())
        .sum();
    let z = top + sum.ln();
    if z.is_finite() {
        Ok(z)
    } else {
        Err(Error::Invalid(format!(
            "the GPU's enumeration gave a non-finite log Z ({z}); the model's parameters may be too large for f32"
        )))
    }
}

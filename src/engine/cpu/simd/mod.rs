//! Every CPU-specific instruction of the core, in one folder (issue 26: what is computed, in
//! [`super::kernels`], [`crate::math`] and [`crate::rng`], against how fast, here).
//!
//! - `plain.rs`: the reference path, plain Rust compiled on every target; the definition the
//!   other arms are tested against, bit for bit (`tests.rs` forces every arm the machine has).
//! - `x86_64.rs`: SSE2 (the x86-64 baseline, enabled at compile time), AVX and AVX2 (detected at
//!   run time, once).
//! - `wasm32.rs`: SIMD128 (enabled at compile time: `-C target-feature=+simd128`,
//!   .cargo/config.toml).
//!
//! Each function below picks an implementation by [`Arm`]: the best one the function has among
//! the arms the CPU has. Every arm does the same IEEE operations on each value in the same order
//! (only additions in index order, compares, exact integer steps; no fused multiply-add), so
//! every arm gives the same bits. An arm enabled at compile time costs no check at all; one
//! detected at run time costs one relaxed load of a cached byte, as `is_x86_feature_detected!`
//! did, and only where that check was before (per call of the row-sum kernels, never per value).
// A target with no arm but the plain one (wasm32 without SIMD128, other architectures) never
// asks which arm runs.
#![cfg_attr(
    not(any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]

use std::sync::atomic::{AtomicU8, Ordering};

/// The instruction sets the functions of this module are written for. Ordered within a target:
/// an arm includes the ones before it on the same target (AVX2 includes AVX includes SSE2
/// includes the plain path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Arm {
    /// Plain Rust: the reference path, compiled on every target.
    Plain = 1,
    /// x86-64 SSE2 (the baseline of the target).
    Sse2 = 2,
    /// x86-64 AVX (256-bit float vectors).
    Avx = 3,
    /// x86-64 AVX2.
    Avx2 = 4,
    /// wasm32 SIMD128.
    Simd128 = 5,
}

impl Arm {
    /// Whether this arm exists on the target compiled for (the CPU may still lack it).
    const fn native(self) -> bool {
        match self {
            Arm::Plain => true,
            Arm::Sse2 | Arm::Avx | Arm::Avx2 => cfg!(target_arch = "x86_64"),
            Arm::Simd128 => cfg!(target_arch = "wasm32"),
        }
    }

    /// Whether code written for `need` may run where this arm (a native one) is in use.
    #[inline(always)]
    const fn includes(self, need: Arm) -> bool {
        need.native() && need as u8 <= self as u8
    }
}

/// The best arm enabled at compile time: the target's baseline, or more with
/// `-C target-feature` / `-C target-cpu`.
const BASELINE: Arm = if cfg!(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "avx"
)) {
    Arm::Avx2
} else if cfg!(all(target_arch = "x86_64", target_feature = "avx")) {
    Arm::Avx
} else if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
    Arm::Sse2
} else if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
    Arm::Simd128
} else {
    Arm::Plain
};

/// The CPU's best arm once detected (an [`Arm`] as its byte), 0 before.
static DETECTED: AtomicU8 = AtomicU8::new(0);

/// The CPU's best arm as its byte: one relaxed load of the cached byte (detection on the
/// first call only).
#[inline(always)]
fn detected() -> u8 {
    match DETECTED.load(Ordering::Relaxed) {
        0 => detect() as u8,
        arm => arm,
    }
}

/// Detects the CPU's best arm and caches it (racing threads store the same byte).
#[cold]
#[inline(never)]
fn detect() -> Arm {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let arm = if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("avx")
    {
        Arm::Avx2
    } else if std::arch::is_x86_feature_detected!("avx") {
        Arm::Avx
    } else {
        Arm::Sse2
    };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let arm = BASELINE;
    DETECTED.store(arm as u8, Ordering::Relaxed);
    arm
}

/// Whether the code written for `need` runs now: the CPU has it, and — in the crate's tests — it
/// is not above the arm [`force`]d on this thread. The dispatching functions ask [`has!`].
#[inline(always)]
fn has(need: Arm) -> bool {
    #[cfg(test)]
    if let Some(arm) = forced() {
        return arm.includes(need);
    }
    BASELINE.includes(need) || (need.native() && need as u8 <= detected())
}

/// [`has`] for an arm named where the dispatch is written. Outside the tests, an arm enabled at
/// compile time (SSE2 on x86-64, SIMD128 in the page's wasm) is a constant `true` before any
/// inlining or folding, so the dispatching function is as small as its arm's code alone (and
/// inlines where that code did); a detected arm costs [`detected`]'s one load.
macro_rules! has {
    ($arm:expr) => {{
        const ALWAYS: bool = !cfg!(test) && BASELINE.includes($arm);
        ALWAYS || has($arm)
    }};
}

#[cfg(test)]
thread_local! {
    /// The arm [`force`]d on this thread (an [`Arm`] as its byte), 0 for none.
    static FORCED: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// The arm forced on this thread, if any.
#[cfg(test)]
#[inline(always)]
fn forced() -> Option<Arm> {
    match FORCED.with(std::cell::Cell::get) {
        0 => None,
        b => ALL.into_iter().find(|&a| a as u8 == b),
    }
}

/// Every arm, in the order of their bytes.
#[cfg(test)]
const ALL: [Arm; 5] = [Arm::Plain, Arm::Sse2, Arm::Avx, Arm::Avx2, Arm::Simd128];

/// The arms this CPU runs, the plain one first, the best last.
#[cfg(test)]
pub(crate) fn available() -> Vec<Arm> {
    let best = (BASELINE as u8).max(detected());
    ALL.into_iter()
        .filter(|&a| a == Arm::Plain || (a.native() && a as u8 <= best))
        .collect()
}

/// An arm asked for that this CPU (or target) does not have.
#[cfg(test)]
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unavailable(pub Arm);

/// Makes every function of this module on this thread use `arm` (at most: a function without
/// code for `arm` uses its best arm below), or the CPU's best again for `None`. An arm the CPU
/// lacks is refused, never run.
#[cfg(test)]
pub(crate) fn force(arm: Option<Arm>) -> Result<(), Unavailable> {
    if let Some(a) = arm {
        if !available().contains(&a) {
            return Err(Unavailable(a));
        }
    }
    FORCED.with(|f| f.set(arm.map_or(0, |a| a as u8)));
    Ok(())
}

/// The vector steps of [`xoshiro128p_fill`] from a target's operations on four u32 lanes (`$v`
/// the vector type); the same steps as the plain one, four lanes per operation.
#[cfg(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "wasm32", target_feature = "simd128")
))]
macro_rules! fill_u32x4 {
    ($s:ident, $out:ident, $v:ty, load: $load:expr, store: $store:expr, store_f: $store_f:expr,
     add: $add:path, xor: $xor:path, or: $or:path, shl: $shl:ident, shr: $shr:ident,
     to_f32: $cvt:expr) => {{
        const V: usize = 8 / 4;
        let mut st: [[$v; V]; 4] =
            std::array::from_fn(|w| std::array::from_fn(|q| $load($s[w][4 * q..].as_ptr())));
        for c in $out.chunks_exact_mut(8) {
            for q in 0..V {
                let [s0, s1, s2, s3] = [st[0][q], st[1][q], st[2][q], st[3][q]];
                $store_f(c[4 * q..].as_mut_ptr(), $cvt($shr!($add(s0, s3), 8)));
                let t = $shl!(s1, 9);
                let s2 = $xor(s2, s0);
                let s3 = $xor(s3, s1);
                let s1 = $xor(s1, s2);
                let s0 = $xor(s0, s3);
                let s2 = $xor(s2, t);
                let s3 = $or($shl!(s3, 11), $shr!(s3, 21));
                [st[0][q], st[1][q], st[2][q], st[3][q]] = [s0, s1, s2, s3];
            }
        }
        for w in 0..4 {
            for q in 0..V {
                $store($s[w][4 * q..].as_mut_ptr(), st[w][q]);
            }
        }
    }};
}

pub(crate) mod plain;
#[cfg(test)]
mod tests;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm32;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod x86_64;

/// Bit masks of (x ≠ 0) and (x ≠ 0 ∧ x ≠ 1) for four values (NaN is both).
#[inline(always)]
pub fn nonzero_not_one(x: &[f32; 4]) -> (u32, u32) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if has!(Arm::Sse2) {
        return x86_64::nonzero_not_one(x);
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if has!(Arm::Simd128) {
        return wasm32::nonzero_not_one(x);
    }
    plain::nonzero_not_one(x)
}

/// Bit mask of u·t < 1 for four values (bit j for value j).
#[inline(always)]
pub fn below_one(u: &[f32; 4], t: &[f32; 4]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if has!(Arm::Sse2) {
        return x86_64::below_one(u, t);
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if has!(Arm::Simd128) {
        return wasm32::below_one(u, t);
    }
    plain::below_one(u, t)
}

/// `init + Σ_{i ∈ bits} blk[i·W .. i·W+W]` over the set bits of `bits` (bit j of word w is row
/// 64·(`word0` + w) + j of `blk`), in increasing row order; W = 4·`Q` columns. AVX for Q = 8
/// where the CPU has it, else SSE2 / SIMD128 (Q 4-lane accumulators), else plain loops.
///
/// # Panics
/// If a set bit addresses past the end of `blk`.
#[inline]
pub fn sum_selected_bits<const Q: usize>(
    init: &[[f32; 4]; Q],
    blk: &[f32],
    word0: usize,
    bits: &[u64],
) -> [[f32; 4]; Q] {
    // Every arm's loads rely on this: each set bit addresses a whole row inside `blk`.
    if let Some((w, &last)) = bits.iter().enumerate().rev().find(|(_, &b)| b != 0) {
        let top = 64 * (word0 + w) + 63 - last.leading_zeros() as usize;
        assert!((top + 1) * 4 * Q <= blk.len(), "bit past the packed block");
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        if Q == 8 && has!(Arm::Avx) {
            // SAFETY: the CPU has AVX (`has`: enabled at compile time or detected at run
            // time); every set bit addresses a whole row inside `blk` (asserted above).
            return unsafe { x86_64::sum_selected_bits_avx(init, blk, word0, bits) };
        }
        if has!(Arm::Sse2) {
            // SAFETY: SSE2 is enabled at compile time (this block is compiled only then);
            // every set bit addresses a whole row inside `blk` (asserted above).
            return unsafe { x86_64::sum_selected_bits_sse2(init, blk, word0, bits) };
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if has!(Arm::Simd128) {
        // SAFETY: every set bit addresses a whole row inside `blk` (asserted above); SIMD128
        // is enabled at compile time (this block is compiled only then).
        return unsafe { wasm32::sum_selected_bits(init, blk, word0, bits) };
    }
    plain::sum_selected_bits(init, blk, word0, bits)
}

/// [`sum_selected_bits`] (with `word0` = 0) for two bitsets of the same length at once, in
/// place: `acc[t] += Σ_{i ∈ bits[t]} row i` for t = 0, 1, each in increasing row order, rows of
/// W = 4·`Q` columns of `blk`; the two chains of additions overlap their latency. AVX for even
/// Q where the CPU has it, else SSE2 / SIMD128 up to Q = 4; else one bitset at a time (where two
/// sets of accumulators would not fit the registers, and on the plain path).
///
/// # Panics
/// If the bitsets differ in length or a set bit addresses past the end of `blk`.
#[inline]
pub fn sum_selected_bits2<const Q: usize>(
    acc: [&mut [[f32; 4]; Q]; 2],
    blk: &[f32],
    bits: [&[u64]; 2],
) {
    assert_eq!(bits[0].len(), bits[1].len(), "bitsets of one length");
    // Every arm's loads rely on this: each set bit addresses a whole row inside `blk`.
    for b in bits {
        if let Some((w, &last)) = b.iter().enumerate().rev().find(|(_, &x)| x != 0) {
            let top = 64 * w + 63 - last.leading_zeros() as usize;
            assert!((top + 1) * 4 * Q <= blk.len(), "bit past the packed block");
        }
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        if Q.is_multiple_of(2) && has!(Arm::Avx) {
            // SAFETY: the CPU has AVX (`has`: enabled at compile time or detected at run
            // time); every set bit addresses a whole row inside `blk` (asserted above).
            return unsafe { x86_64::sum_selected_bits2_avx(acc, blk, bits) };
        }
        if Q <= 4 && has!(Arm::Sse2) {
            // SAFETY: SSE2 is enabled at compile time (this block is compiled only then);
            // every set bit addresses a whole row inside `blk` (asserted above).
            return unsafe { x86_64::sum_selected_bits2_sse2(acc, blk, bits) };
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if Q <= 4 && has!(Arm::Simd128) {
        // SAFETY: every set bit addresses a whole row inside `blk` (asserted above); SIMD128
        // is enabled at compile time (this block is compiled only then).
        return unsafe { wasm32::sum_selected_bits2(acc, blk, bits) };
    }
    for (a, b) in acc.into_iter().zip(bits) {
        *a = sum_selected_bits(a, blk, 0, b);
    }
}

/// Walks the set bits of two bitsets of one length in lockstep with accumulators `acc`,
/// calling `add(acc[0], i); add(acc[1], j)` while both words have bits left, then `add` for the
/// rest of either; each bitset in increasing order. The control of every arm's
/// [`sum_selected_bits2`].
#[cfg(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "wasm32", target_feature = "simd128")
))]
#[inline(always)]
fn lockstep<A>(bits: [&[u64]; 2], acc: &mut [A; 2], add: impl Fn(&mut A, usize)) {
    let [a0, a1] = acc;
    for (w, (&x, &y)) in bits[0].iter().zip(bits[1]).enumerate() {
        let (mut a, mut b) = (x, y);
        while a != 0 && b != 0 {
            let (i, j) = (
                64 * w + a.trailing_zeros() as usize,
                64 * w + b.trailing_zeros() as usize,
            );
            a &= a - 1;
            b &= b - 1;
            add(a0, i);
            add(a1, j);
        }
        while a != 0 {
            add(a0, 64 * w + a.trailing_zeros() as usize);
            a &= a - 1;
        }
        while b != 0 {
            add(a1, 64 * w + b.trailing_zeros() as usize);
            b &= b - 1;
        }
    }
}

/// `t[j] ← 1 + e^{−t[j]}` ([`crate::math::one_plus_exp_neg_one`]) for every value: eight at a
/// time where an x86-64 CPU has AVX2 (from eight values on), else the plain map (which the
/// compiler vectorises for the baseline).
#[inline(always)]
pub fn one_plus_exp_neg_in_place(t: &mut [f32]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if t.len() >= 8 && has!(Arm::Avx2) {
        // SAFETY: the CPU has AVX2 (`has`: enabled at compile time or detected at run time).
        return unsafe { x86_64::one_plus_exp_neg_in_place_avx2(t) };
    }
    plain::one_plus_exp_neg_in_place(t)
}

/// The four uniforms of two 64-bit outputs: the top 24 bits of `x0`'s high and low halves, then
/// `x1`'s, each times 2⁻²⁴ (one vector on SSE2 and SIMD128).
#[inline(always)]
pub fn halves_to_uniforms(x0: u64, x1: u64) -> [f32; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if has!(Arm::Sse2) {
        return x86_64::halves_to_uniforms(x0, x1);
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if has!(Arm::Simd128) {
        return wasm32::halves_to_uniforms(x0, x1);
    }
    plain::halves_to_uniforms(x0, x1)
}

/// Eight Xoshiro128+ sub-streams in lockstep (state word-major: `s[w][l]` is word w of
/// sub-stream l): each step fills eight draws of `out` (a multiple of eight long), value l from
/// sub-stream l, the top 24 bits of its output times 2⁻²⁴ ([`plain::xoshiro128p_fill`], the
/// definition). Four u32 lanes per operation on SSE2 and SIMD128.
pub fn xoshiro128p_fill(s: &mut [[u32; 8]; 4], out: &mut [f32]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if has!(Arm::Sse2) {
        return x86_64::xoshiro128p_fill(s, out);
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if has!(Arm::Simd128) {
        return wasm32::xoshiro128p_fill(s, out);
    }
    plain::xoshiro128p_fill(s, out)
}

//! The wasm32 arm: SIMD128, enabled at compile time (this module is compiled only where
//! `target_feature = "simd128"` is, as .cargo/config.toml sets for the page's build).
//!
//! `v128` loads and stores have no alignment requirement: a pointer needs only to address its
//! 16 bytes inside their slice or array.

use std::arch::wasm32::*;

/// Bit masks of (x ≠ 0) and (x ≠ 0 ∧ x ≠ 1) for four values.
#[inline(always)]
pub fn nonzero_not_one(x: &[f32; 4]) -> (u32, u32) {
    // SAFETY: the load reads the 4 values (16 bytes) of `x`.
    let v = unsafe { v128_load(x.as_ptr() as *const v128) };
    let nz = f32x4_ne(v, f32x4_splat(0.0));
    let no = v128_and(nz, f32x4_ne(v, f32x4_splat(1.0)));
    (i32x4_bitmask(nz) as u32, i32x4_bitmask(no) as u32)
}

/// Bit mask of u·t < 1 for four values.
#[inline(always)]
pub fn below_one(u: &[f32; 4], t: &[f32; 4]) -> u32 {
    // SAFETY: the loads read the 4 values (16 bytes) of `u` and of `t`.
    let (u, t) = unsafe {
        (
            v128_load(u.as_ptr() as *const v128),
            v128_load(t.as_ptr() as *const v128),
        )
    };
    i32x4_bitmask(f32x4_lt(f32x4_mul(u, t), f32x4_splat(1.0))) as u32
}

/// [`super::sum_selected_bits`] in Q v128 accumulators walking the set bits.
///
/// # Safety
/// Every set bit of `bits` (bit j of word w = row i = 64·(`word0` + w) + j) addresses a whole row
/// of `blk`: (i + 1)·4·Q ≤ `blk.len()`.
#[inline(always)]
pub unsafe fn sum_selected_bits<const Q: usize>(
    init: &[[f32; 4]; Q],
    blk: &[f32],
    word0: usize,
    bits: &[u64],
) -> [[f32; 4]; Q] {
    // SAFETY: the loads read the 4 values of `init[q]`, or values 4q .. 4q + 4 (q < Q) of a row
    // i of a set bit, which is inside `blk` (the caller's contract): i·4Q + 4q + 4 ≤ (i + 1)·4Q
    // ≤ `blk.len()`; the stores write the 4 values of `out[q]`.
    unsafe {
        let mut a: [v128; Q] = std::array::from_fn(|q| v128_load(init[q].as_ptr() as *const v128));
        let base = blk.as_ptr();
        for (w, &word) in bits.iter().enumerate() {
            let mut m = word;
            while m != 0 {
                let i = 64 * (word0 + w) + m.trailing_zeros() as usize;
                m &= m - 1;
                let r = base.add(i * 4 * Q) as *const v128;
                for (q, acc) in a.iter_mut().enumerate() {
                    *acc = f32x4_add(*acc, v128_load(r.add(q)));
                }
            }
        }
        let mut out = [[0.0f32; 4]; Q];
        for (o, v) in out.iter_mut().zip(a) {
            v128_store(o.as_mut_ptr() as *mut v128, v);
        }
        out
    }
}

/// [`super::sum_selected_bits2`] in Q v128 accumulators per bitset (Q ≤ 4: sixteen would
/// spill).
///
/// # Safety
/// Every set bit of `bits[0]` and `bits[1]` (bit j of word w = row 64·w + j) addresses a whole
/// row of `blk`, and the bitsets have one length.
#[inline(always)]
pub unsafe fn sum_selected_bits2<const Q: usize>(
    out: [&mut [[f32; 4]; Q]; 2],
    blk: &[f32],
    bits: [&[u64]; 2],
) {
    // SAFETY: the loads read the 4 values of `out[t][q]`, or values 4q .. 4q + 4 (q < Q) of a
    // row i that `lockstep` passes, the row of a set bit, inside `blk` (the caller's contract);
    // the stores write the 4 values of `out[t][q]`.
    unsafe {
        let mut acc: [[v128; Q]; 2] = std::array::from_fn(|t| {
            std::array::from_fn(|q| v128_load(out[t][q].as_ptr() as *const v128))
        });
        let base = blk.as_ptr();
        let add = |a: &mut [v128; Q], i: usize| {
            let r = base.add(i * 4 * Q) as *const v128;
            for (q, a) in a.iter_mut().enumerate() {
                *a = f32x4_add(*a, v128_load(r.add(q)));
            }
        };
        super::lockstep(bits, &mut acc, add);
        for (o, a) in out.into_iter().zip(acc) {
            for (o, v) in o.iter_mut().zip(a) {
                v128_store(o.as_mut_ptr() as *mut v128, v);
            }
        }
    }
}

/// [`super::halves_to_uniforms`] as one vector: the halves swapped in place, shifted and
/// converted at once.
#[inline(always)]
pub fn halves_to_uniforms(x0: u64, x1: u64) -> [f32; 4] {
    const K: f32 = 1.0 / 16_777_216.0;
    let v = u64x2(x0, x1);
    let v = u32x4_shr(i32x4_shuffle::<1, 0, 3, 2>(v, v), 8);
    let mut q = [0.0f32; 4];
    // SAFETY: the store writes the four floats (16 bytes) of `q`.
    unsafe {
        v128_store(
            q.as_mut_ptr().cast(),
            f32x4_mul(f32x4_convert_i32x4(v), f32x4_splat(K)),
        )
    };
    q
}

/// [`super::xoshiro128p_fill`] in 4-lane vectors, two per step.
pub fn xoshiro128p_fill(s: &mut [[u32; 8]; 4], out: &mut [f32]) {
    const K: f32 = 1.0 / 16_777_216.0;
    macro_rules! shl {
        ($v:expr, $n:literal) => {
            i32x4_shl($v, $n)
        };
    }
    macro_rules! shr {
        ($v:expr, $n:literal) => {
            u32x4_shr($v, $n)
        };
    }
    // SAFETY: every pointer is to the first of four u32 of a state word (index 4q, q < 2, of
    // eight) or of four f32 of a chunk of eight of `out` (index 4q): in bounds.
    unsafe {
        let k = f32x4_splat(K);
        fill_u32x4!(s, out, v128,
            load: |p: *const u32| v128_load(p.cast()),
            store: |p: *mut u32, v| v128_store(p.cast(), v),
            store_f: |p: *mut f32, v| v128_store(p.cast(), v),
            add: i32x4_add, xor: v128_xor, or: v128_or,
            shl: shl, shr: shr, to_f32: |y| f32x4_mul(f32x4_convert_i32x4(y), k));
    }
}

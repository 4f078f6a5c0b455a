//! The x86-64 arms: SSE2 (the target's baseline; this module is compiled only where
//! `target_feature = "sse2"` is enabled at compile time), and AVX and AVX2 in functions compiled
//! for them, called only where [`super::has`] says the CPU has them.
//!
//! Loads and stores are unaligned ones (`loadu` / `storeu`): a pointer needs only to address
//! its values inside their slice or array.

use std::arch::x86_64::*;

/// Bit masks of (x ≠ 0) and (x ≠ 0 ∧ x ≠ 1) for four values.
#[inline(always)]
pub fn nonzero_not_one(x: &[f32; 4]) -> (u32, u32) {
    // SAFETY: SSE2 is enabled at compile time (see the module); the load reads the 4 values of
    // `x`.
    unsafe {
        let v = _mm_loadu_ps(x.as_ptr());
        let nz = _mm_cmpneq_ps(v, _mm_setzero_ps());
        let no = _mm_and_ps(nz, _mm_cmpneq_ps(v, _mm_set1_ps(1.0)));
        (_mm_movemask_ps(nz) as u32, _mm_movemask_ps(no) as u32)
    }
}

/// Bit mask of u·t < 1 for four values.
#[inline(always)]
pub fn below_one(u: &[f32; 4], t: &[f32; 4]) -> u32 {
    // SAFETY: SSE2 is enabled at compile time (see the module); the loads read the 4 values of
    // `u` and of `t`.
    unsafe {
        let p = _mm_mul_ps(_mm_loadu_ps(u.as_ptr()), _mm_loadu_ps(t.as_ptr()));
        _mm_movemask_ps(_mm_cmplt_ps(p, _mm_set1_ps(1.0))) as u32
    }
}

/// [`super::sum_selected_bits`] in Q 4-lane registers.
///
/// # Safety
/// Every set bit of `bits` (bit j of word w = row i = 64·(`word0` + w) + j) addresses a whole row
/// of `blk`: (i + 1)·4·Q ≤ `blk.len()`.
#[inline(always)]
pub unsafe fn sum_selected_bits_sse2<const Q: usize>(
    init: &[[f32; 4]; Q],
    blk: &[f32],
    word0: usize,
    bits: &[u64],
) -> [[f32; 4]; Q] {
    // SAFETY: SSE2 is enabled at compile time (see the module). The loads read the 4 values of
    // `init[q]`, or values 4q .. 4q + 4 (q < Q) of a row i of a set bit, which is inside `blk`
    // (the caller's contract): i·4Q + 4q + 4 ≤ (i + 1)·4Q ≤ `blk.len()`; the stores write the 4
    // values of `out[q]`.
    unsafe {
        let mut a: [__m128; Q] = std::array::from_fn(|q| _mm_loadu_ps(init[q].as_ptr()));
        let base = blk.as_ptr();
        for (w, &word) in bits.iter().enumerate() {
            let mut m = word;
            while m != 0 {
                let i = 64 * (word0 + w) + m.trailing_zeros() as usize;
                m &= m - 1;
                let r = base.add(i * 4 * Q);
                for (q, acc) in a.iter_mut().enumerate() {
                    *acc = _mm_add_ps(*acc, _mm_loadu_ps(r.add(4 * q)));
                }
            }
        }
        let mut out = [[0.0f32; 4]; Q];
        for (o, v) in out.iter_mut().zip(a) {
            _mm_storeu_ps(o.as_mut_ptr(), v);
        }
        out
    }
}

/// [`super::sum_selected_bits`] in Q/2 8-lane registers (Q even, at most 8): the same
/// element-wise additions as [`sum_selected_bits_sse2`], half the instructions.
///
/// # Safety
/// The CPU has AVX, and every set bit of `bits` addresses a whole row of `blk` (as for
/// [`sum_selected_bits_sse2`]).
#[target_feature(enable = "avx")]
pub unsafe fn sum_selected_bits_avx<const Q: usize>(
    init: &[[f32; 4]; Q],
    blk: &[f32],
    word0: usize,
    bits: &[u64],
) -> [[f32; 4]; Q] {
    // SAFETY: AVX: the caller's contract. The loads read values 8q .. 8q + 8 (q < Q/2) of the 4Q
    // of `init`, or of a row i of a set bit, which is inside `blk` (the caller's contract):
    // i·4Q + 8q + 8 ≤ (i + 1)·4Q ≤ `blk.len()`; the stores write values 8q .. 8q + 8 of the 4Q
    // of `out`.
    unsafe {
        let flat = init.as_flattened();
        let h = Q / 2;
        let mut a = [_mm256_setzero_ps(); 4];
        for (q, acc) in a.iter_mut().enumerate().take(h) {
            *acc = _mm256_loadu_ps(flat.as_ptr().add(8 * q));
        }
        let base = blk.as_ptr();
        for (w, &word) in bits.iter().enumerate() {
            let mut m = word;
            while m != 0 {
                let i = 64 * (word0 + w) + m.trailing_zeros() as usize;
                m &= m - 1;
                let r = base.add(i * 4 * Q);
                for (q, acc) in a.iter_mut().enumerate().take(h) {
                    *acc = _mm256_add_ps(*acc, _mm256_loadu_ps(r.add(8 * q)));
                }
            }
        }
        let mut out = [[0.0f32; 4]; Q];
        let o = out.as_flattened_mut().as_mut_ptr();
        for (q, v) in a.iter().enumerate().take(h) {
            _mm256_storeu_ps(o.add(8 * q), *v);
        }
        out
    }
}

/// [`super::sum_selected_bits2`] in Q 4-lane registers per bitset (Q ≤ 4, so that the two
/// sets fit the sixteen registers).
///
/// # Safety
/// Every set bit of `bits[0]` and `bits[1]` (bit j of word w = row 64·w + j) addresses a whole
/// row of `blk`, and the bitsets have one length.
#[inline(always)]
pub unsafe fn sum_selected_bits2_sse2<const Q: usize>(
    out: [&mut [[f32; 4]; Q]; 2],
    blk: &[f32],
    bits: [&[u64]; 2],
) {
    // SAFETY: SSE2 is enabled at compile time (see the module). The loads read the 4 values of
    // `out[t][q]`, or values 4q .. 4q + 4 (q < Q) of a row i that `lockstep` passes, the row of
    // a set bit, inside `blk` (the caller's contract); the stores write the 4 values of
    // `out[t][q]`.
    unsafe {
        let mut acc: [[__m128; Q]; 2] =
            std::array::from_fn(|t| std::array::from_fn(|q| _mm_loadu_ps(out[t][q].as_ptr())));
        let base = blk.as_ptr();
        let add = |a: &mut [__m128; Q], i: usize| {
            let r = base.add(i * 4 * Q);
            for (q, a) in a.iter_mut().enumerate() {
                *a = _mm_add_ps(*a, _mm_loadu_ps(r.add(4 * q)));
            }
        };
        super::lockstep(bits, &mut acc, add);
        for (o, a) in out.into_iter().zip(acc) {
            for (o, v) in o.iter_mut().zip(a) {
                _mm_storeu_ps(o.as_mut_ptr(), v);
            }
        }
    }
}

/// [`super::sum_selected_bits2`] in Q/2 8-lane registers per bitset (Q even, at most 8): the
/// same element-wise additions.
///
/// # Safety
/// The CPU has AVX, and `bits` and `blk` are as for [`sum_selected_bits2_sse2`].
#[target_feature(enable = "avx")]
pub unsafe fn sum_selected_bits2_avx<const Q: usize>(
    out: [&mut [[f32; 4]; Q]; 2],
    blk: &[f32],
    bits: [&[u64]; 2],
) {
    // SAFETY: AVX: the caller's contract (and the closure is inlined into this function). The
    // loads read values 8q .. 8q + 8 (q < Q/2) of the 4Q of `out[t]`, or of a row i that
    // `lockstep` passes, the row of a set bit, inside `blk` (the caller's contract); the stores
    // write values 8q .. 8q + 8 of the 4Q of `out[t]`.
    unsafe {
        let h = Q / 2;
        let mut acc = [[_mm256_setzero_ps(); 4]; 2];
        for (a, init) in acc.iter_mut().zip(&out) {
            let flat = init.as_flattened();
            for (q, a) in a.iter_mut().enumerate().take(h) {
                *a = _mm256_loadu_ps(flat.as_ptr().add(8 * q));
            }
        }
        let base = blk.as_ptr();
        let add = |a: &mut [__m256; 4], i: usize| {
            let r = base.add(i * 4 * Q);
            for (q, a) in a.iter_mut().enumerate().take(h) {
                *a = _mm256_add_ps(*a, _mm256_loadu_ps(r.add(8 * q)));
            }
        };
        super::lockstep(bits, &mut acc, add);
        for (o, a) in out.into_iter().zip(&acc) {
            let o = o.as_flattened_mut().as_mut_ptr();
            for (q, v) in a.iter().enumerate().take(h) {
                _mm256_storeu_ps(o.add(8 * q), *v);
            }
        }
    }
}

/// [`super::one_plus_exp_neg_in_place`] compiled for 256-bit vectors: the compiler vectorises
/// the map eight wide, and never fuses a multiply and an add, so each value's operations are
/// the scalar ones. Eights, then fours, then single values: the short runs of table slots
/// (multiples of four) need no value-at-a-time step. Plain loops: closures passed to iterator
/// adapters or `map` may stay out of line, and would then miss this function's target features.
#[target_feature(enable = "avx2")]
pub fn one_plus_exp_neg_in_place_avx2(t: &mut [f32]) {
    use crate::math::one_plus_exp_neg_one;
    let (eights, rest) = t.as_chunks_mut::<8>();
    for c in eights {
        for x in c {
            *x = one_plus_exp_neg_one(*x);
        }
    }
    let (fours, rest) = rest.as_chunks_mut::<4>();
    for c in fours {
        for x in c {
            *x = one_plus_exp_neg_one(*x);
        }
    }
    for x in rest {
        *x = one_plus_exp_neg_one(*x);
    }
}

/// [`super::halves_to_uniforms`] as one vector: the halves swapped in place, shifted and
/// converted at once.
#[inline(always)]
pub fn halves_to_uniforms(x0: u64, x1: u64) -> [f32; 4] {
    const K: f32 = 1.0 / 16_777_216.0;
    // SAFETY: SSE2 is enabled at compile time (see the module); the store writes the four
    // floats of `q`.
    unsafe {
        let v = _mm_set_epi64x(x1 as i64, x0 as i64);
        let v = _mm_srli_epi32::<8>(_mm_shuffle_epi32::<0b10_11_00_01>(v));
        let mut q = [0.0f32; 4];
        _mm_storeu_ps(
            q.as_mut_ptr(),
            _mm_mul_ps(_mm_cvtepi32_ps(v), _mm_set1_ps(K)),
        );
        q
    }
}

/// [`super::xoshiro128p_fill`] in 4-lane vectors, two per step.
pub fn xoshiro128p_fill(s: &mut [[u32; 8]; 4], out: &mut [f32]) {
    const K: f32 = 1.0 / 16_777_216.0;
    macro_rules! shl {
        ($v:expr, $n:literal) => {
            _mm_slli_epi32::<$n>($v)
        };
    }
    macro_rules! shr {
        ($v:expr, $n:literal) => {
            _mm_srli_epi32::<$n>($v)
        };
    }
    // SAFETY: SSE2 is enabled at compile time. Every pointer is to the first of four u32 of a
    // state word (index 4q, q < 2, of eight) or of four f32 of a chunk of eight of `out`
    // (index 4q): in bounds; the accesses are unaligned ones.
    unsafe {
        let k = _mm_set1_ps(K);
        fill_u32x4!(s, out, __m128i,
            load: |p: *const u32| _mm_loadu_si128(p.cast()),
            store: |p: *mut u32, v| _mm_storeu_si128(p.cast(), v),
            store_f: |p: *mut f32, v| _mm_storeu_ps(p, v),
            add: _mm_add_epi32, xor: _mm_xor_si128, or: _mm_or_si128,
            shl: shl, shr: shr, to_f32: |y| _mm_mul_ps(_mm_cvtepi32_ps(y), k));
    }
}

//! The inner kernel of every Gibbs step: summing rows selected by active 0/1 units.
//!
//! Explicit SIMD (SSE2 or, when the CPU has it, AVX on x86-64; SIMD128 on wasm32; plain loops
//! elsewhere) keeps 32 columns
//! in eight 4-lane registers while walking a list of active indices (PERFORMANCE.md: "8 v128
//! accumulators per chunk walking the list of active indices"). Only additions, in index
//! order, so every target gives the same bits.

/// Returns `init + Σ_{i ∈ idx} blk[i·W .. i·W+W]` for W = 4·`Q` columns (Q = 8: 32 columns,
/// Q = 4: 16 columns for narrow layers), added in the order of `idx`.
///
/// # Panics
/// If an index addresses past the end of `blk` (callers pass indices < rows of the block).
#[inline]
pub fn sum_selected<const Q: usize>(
    init: &[[f32; 4]; Q],
    blk: &[f32],
    idx: &[u32],
) -> [[f32; 4]; Q] {
    if let Some(&last) = idx.iter().max() {
        assert!(
            (last as usize + 1) * 4 * Q <= blk.len(),
            "index past the packed block"
        );
    }
    imp::sum_selected(init, blk, idx)
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use std::arch::x86_64::*;

    #[inline(always)]
    pub fn sum_selected<const Q: usize>(
        init: &[[f32; 4]; Q],
        blk: &[f32],
        idx: &[u32],
    ) -> [[f32; 4]; Q] {
        if Q % 2 == 0 && std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: AVX was detected at run time.
            unsafe { sum_avx(init, blk, idx) }
        } else {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe { sum_sse2(init, blk, idx) }
        }
    }

    /// 4-lane registers. Loads read 4·Q floats inside `blk` (bounds checked by the caller).
    #[target_feature(enable = "sse2")]
    unsafe fn sum_sse2<const Q: usize>(
        init: &[[f32; 4]; Q],
        blk: &[f32],
        idx: &[u32],
    ) -> [[f32; 4]; Q] {
        let mut a: [__m128; Q] = std::array::from_fn(|q| _mm_loadu_ps(init[q].as_ptr()));
        let base = blk.as_ptr();
        for &i in idx {
            let r = base.add(i as usize * 4 * Q);
            for (q, acc) in a.iter_mut().enumerate() {
                *acc = _mm_add_ps(*acc, _mm_loadu_ps(r.add(4 * q)));
            }
        }
        let mut out = [[0.0f32; 4]; Q];
        for (o, v) in out.iter_mut().zip(a) {
            _mm_storeu_ps(o.as_mut_ptr(), v);
        }
        out
    }

    /// 8-lane registers (Q even): the same element-wise additions, half the instructions.
    #[target_feature(enable = "avx")]
    unsafe fn sum_avx<const Q: usize>(
        init: &[[f32; 4]; Q],
        blk: &[f32],
        idx: &[u32],
    ) -> [[f32; 4]; Q] {
        let flat = init.as_flattened();
        let mut a = [_mm256_setzero_ps(); 4];
        let h = Q / 2;
        for (q, acc) in a.iter_mut().enumerate().take(h) {
            *acc = _mm256_loadu_ps(flat.as_ptr().add(8 * q));
        }
        let base = blk.as_ptr();
        for &i in idx {
            let r = base.add(i as usize * 4 * Q);
            for (q, acc) in a.iter_mut().enumerate().take(h) {
                *acc = _mm256_add_ps(*acc, _mm256_loadu_ps(r.add(8 * q)));
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

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use std::arch::wasm32::*;

    #[inline(always)]
    pub fn sum_selected<const Q: usize>(
        init: &[[f32; 4]; Q],
        blk: &[f32],
        idx: &[u32],
    ) -> [[f32; 4]; Q] {
        // SAFETY: every load reads 4·Q floats inside `blk` (bounds checked by the caller) or
        // `init`; v128 loads and stores have no alignment requirement.
        unsafe {
            let mut a: [v128; Q] =
                std::array::from_fn(|q| v128_load(init[q].as_ptr() as *const v128));
            let base = blk.as_ptr();
            for &i in idx {
                let r = base.add(i as usize * 4 * Q) as *const v128;
                for (q, acc) in a.iter_mut().enumerate() {
                    *acc = f32x4_add(*acc, v128_load(r.add(q)));
                }
            }
            let mut out = [[0.0f32; 4]; Q];
            for (o, v) in out.iter_mut().zip(a) {
                v128_store(o.as_mut_ptr() as *mut v128, v);
            }
            out
        }
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod imp {

    #[inline(always)]
    pub fn sum_selected<const Q: usize>(
        init: &[[f32; 4]; Q],
        blk: &[f32],
        idx: &[u32],
    ) -> [[f32; 4]; Q] {
        let mut acc = *init;
        for &i in idx {
            let row = &blk[i as usize * 4 * Q..(i as usize + 1) * 4 * Q];
            for (q, a) in acc.iter_mut().enumerate() {
                a.iter_mut()
                    .zip(&row[4 * q..4 * q + 4])
                    .for_each(|(a, r)| *a += r);
            }
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<const Q: usize>() {
        let w = 4 * Q;
        let blk: Vec<f32> = (0..10 * w)
            .map(|x| ((x * 7919) % 1000) as f32 * 0.001 - 0.3)
            .collect();
        let init: [[f32; 4]; Q] =
            std::array::from_fn(|q| std::array::from_fn(|t| (4 * q + t) as f32 * 0.1));
        let idx = [3u32, 0, 9, 9, 4];
        let got = sum_selected(&init, &blk, &idx);
        let mut want = init;
        for &i in &idx {
            for q in 0..Q {
                for t in 0..4 {
                    want[q][t] += blk[i as usize * w + 4 * q + t];
                }
            }
        }
        assert_eq!(got, want);
        assert_eq!(sum_selected(&init, &blk, &[]), init);
    }

    #[test]
    fn simd_sum_equals_scalar_sum_in_index_order() {
        check::<8>();
        check::<4>();
        check::<2>();
    }
}

//! The inner kernel of every Gibbs step: summing rows selected by active 0/1 units.
//!
//! Explicit SIMD (SSE2 on x86-64, SIMD128 on wasm32, plain loops elsewhere) keeps 32 columns
//! in eight 4-lane registers while walking a list of active indices (PERFORMANCE.md: "8 v128
//! accumulators per chunk walking the list of active indices"). Only additions, in index
//! order, so every target gives the same bits.

/// Columns per chunk of the packed layouts.
pub const CHUNK: usize = 32;

/// Returns `init + Σ_{i ∈ idx} blk[i·32 .. i·32+32]`, added in the order of `idx`.
///
/// # Panics
/// If an index addresses past the end of `blk` (callers pass indices < rows of the block).
#[inline]
pub fn sum_selected_32(init: &[f32; CHUNK], blk: &[f32], idx: &[u32]) -> [f32; CHUNK] {
    if let Some(&last) = idx.iter().max() {
        assert!((last as usize + 1) * CHUNK <= blk.len(), "index past the packed block");
    }
    imp::sum_selected_32(init, blk, idx)
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::CHUNK;
    use std::arch::x86_64::*;

    #[inline]
    pub fn sum_selected_32(init: &[f32; CHUNK], blk: &[f32], idx: &[u32]) -> [f32; CHUNK] {
        // SAFETY: SSE2 is part of the x86-64 baseline; every load reads 32 floats inside `blk`
        // (bounds checked by the caller) and the stores write inside `out`.
        unsafe {
            let p = init.as_ptr();
            let mut a = [_mm_loadu_ps(p), _mm_loadu_ps(p.add(4)), _mm_loadu_ps(p.add(8)), _mm_loadu_ps(p.add(12)),
                _mm_loadu_ps(p.add(16)), _mm_loadu_ps(p.add(20)), _mm_loadu_ps(p.add(24)), _mm_loadu_ps(p.add(28))];
            let base = blk.as_ptr();
            for &i in idx {
                let r = base.add(i as usize * CHUNK);
                a[0] = _mm_add_ps(a[0], _mm_loadu_ps(r));
                a[1] = _mm_add_ps(a[1], _mm_loadu_ps(r.add(4)));
                a[2] = _mm_add_ps(a[2], _mm_loadu_ps(r.add(8)));
                a[3] = _mm_add_ps(a[3], _mm_loadu_ps(r.add(12)));
                a[4] = _mm_add_ps(a[4], _mm_loadu_ps(r.add(16)));
                a[5] = _mm_add_ps(a[5], _mm_loadu_ps(r.add(20)));
                a[6] = _mm_add_ps(a[6], _mm_loadu_ps(r.add(24)));
                a[7] = _mm_add_ps(a[7], _mm_loadu_ps(r.add(28)));
            }
            let mut out = [0.0f32; CHUNK];
            let o = out.as_mut_ptr();
            for (q, v) in a.iter().enumerate() {
                _mm_storeu_ps(o.add(4 * q), *v);
            }
            out
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use super::CHUNK;
    use std::arch::wasm32::*;

    #[inline]
    pub fn sum_selected_32(init: &[f32; CHUNK], blk: &[f32], idx: &[u32]) -> [f32; CHUNK] {
        // SAFETY: every load reads 32 floats inside `blk` (bounds checked by the caller);
        // v128 loads and stores have no alignment requirement.
        unsafe {
            let p = init.as_ptr() as *const v128;
            let mut a = [v128_load(p), v128_load(p.add(1)), v128_load(p.add(2)), v128_load(p.add(3)),
                v128_load(p.add(4)), v128_load(p.add(5)), v128_load(p.add(6)), v128_load(p.add(7))];
            let base = blk.as_ptr();
            for &i in idx {
                let r = base.add(i as usize * CHUNK) as *const v128;
                a[0] = f32x4_add(a[0], v128_load(r));
                a[1] = f32x4_add(a[1], v128_load(r.add(1)));
                a[2] = f32x4_add(a[2], v128_load(r.add(2)));
                a[3] = f32x4_add(a[3], v128_load(r.add(3)));
                a[4] = f32x4_add(a[4], v128_load(r.add(4)));
                a[5] = f32x4_add(a[5], v128_load(r.add(5)));
                a[6] = f32x4_add(a[6], v128_load(r.add(6)));
                a[7] = f32x4_add(a[7], v128_load(r.add(7)));
            }
            let mut out = [0.0f32; CHUNK];
            let o = out.as_mut_ptr() as *mut v128;
            for (q, v) in a.iter().enumerate() {
                v128_store(o.add(q), *v);
            }
            out
        }
    }
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
mod imp {
    use super::CHUNK;

    #[inline]
    pub fn sum_selected_32(init: &[f32; CHUNK], blk: &[f32], idx: &[u32]) -> [f32; CHUNK] {
        let mut acc = *init;
        for &i in idx {
            let row = &blk[i as usize * CHUNK..(i as usize + 1) * CHUNK];
            acc.iter_mut().zip(row).for_each(|(a, r)| *a += r);
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd_sum_equals_scalar_sum_in_index_order() {
        let blk: Vec<f32> = (0..10 * CHUNK).map(|x| ((x * 7919) % 1000) as f32 * 0.001 - 0.3).collect();
        let init: [f32; CHUNK] = std::array::from_fn(|t| t as f32 * 0.1);
        let idx = [3u32, 0, 9, 9, 4];
        let got = sum_selected_32(&init, &blk, &idx);
        let mut want = init;
        for &i in &idx {
            for t in 0..CHUNK {
                want[t] += blk[i as usize * CHUNK + t];
            }
        }
        assert_eq!(got, want);
        assert_eq!(sum_selected_32(&init, &blk, &[]), init);
    }
}

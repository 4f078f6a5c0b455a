//! The reference path: every function of [`super`] in plain Rust, compiled on every target. It
//! runs where no other arm applies (and where the tests force it); every other arm is tested
//! against it bit for bit.

/// Bit masks of (x ≠ 0) and (x ≠ 0 ∧ x ≠ 1) for four values.
#[inline(always)]
pub fn nonzero_not_one(x: &[f32; 4]) -> (u32, u32) {
    let (mut nz, mut no) = (0, 0);
    for (t, &v) in x.iter().enumerate() {
        nz |= u32::from(v != 0.0) << t;
        no |= u32::from((v != 0.0) & (v != 1.0)) << t;
    }
    (nz, no)
}

/// Bit mask of u·t < 1 for four values.
#[inline(always)]
pub fn below_one(u: &[f32; 4], t: &[f32; 4]) -> u32 {
    (0..4).fold(0, |k, j| k | (u32::from(u[j] * t[j] < 1.0) << j))
}

/// [`super::sum_selected_bits`]: plain loops over the set bits.
///
/// # Panics
/// If a set bit addresses past the end of `blk`.
#[inline(always)]
pub fn sum_selected_bits<const Q: usize>(
    init: &[[f32; 4]; Q],
    blk: &[f32],
    word0: usize,
    bits: &[u64],
) -> [[f32; 4]; Q] {
    let mut acc = *init;
    for (w, &word) in bits.iter().enumerate() {
        let mut m = word;
        while m != 0 {
            let i = 64 * (word0 + w) + m.trailing_zeros() as usize;
            m &= m - 1;
            let row = &blk[i * 4 * Q..(i + 1) * 4 * Q];
            for (q, a) in acc.iter_mut().enumerate() {
                a.iter_mut()
                    .zip(&row[4 * q..4 * q + 4])
                    .for_each(|(a, r)| *a += r);
            }
        }
    }
    acc
}

/// [`super::sum_selected_bits2`]: one bitset at a time.
///
/// # Panics
/// If a set bit addresses past the end of `blk`.
#[cfg(test)]
pub fn sum_selected_bits2<const Q: usize>(
    acc: [&mut [[f32; 4]; Q]; 2],
    blk: &[f32],
    bits: [&[u64]; 2],
) {
    for (a, b) in acc.into_iter().zip(bits) {
        *a = sum_selected_bits(a, blk, 0, b);
    }
}

/// [`super::one_plus_exp_neg_in_place`]: the map value by value.
#[inline(always)]
pub fn one_plus_exp_neg_in_place(t: &mut [f32]) {
    for x in t {
        *x = crate::math::one_plus_exp_neg_one(*x);
    }
}

/// [`super::halves_to_uniforms`]: the four 32-bit halves, shifted and converted one by one.
#[inline(always)]
pub fn halves_to_uniforms(x0: u64, x1: u64) -> [f32; 4] {
    const K: f32 = 1.0 / 16_777_216.0;
    let w = [(x0 >> 32) as u32, x0 as u32, (x1 >> 32) as u32, x1 as u32];
    w.map(|w| (w >> 8) as i32 as f32 * K)
}

/// [`super::xoshiro128p_fill`], the definition: the scalar steps of the eight sub-streams.
/// `out.len()` is a multiple of eight.
pub fn xoshiro128p_fill(s: &mut [[u32; 8]; 4], out: &mut [f32]) {
    const K: f32 = 1.0 / 16_777_216.0;
    let [s0, s1, s2, s3] = s;
    for c in out.chunks_exact_mut(8) {
        for l in 0..8 {
            c[l] = (s0[l].wrapping_add(s3[l]) >> 8) as i32 as f32 * K;
            let t = s1[l] << 9;
            s2[l] ^= s0[l];
            s3[l] ^= s1[l];
            s1[l] ^= s2[l];
            s0[l] ^= s3[l];
            s2[l] ^= t;
            s3[l] = s3[l].rotate_left(11);
        }
    }
}

//! Numerics shared by every target.
//!
//! Sampling uses a polynomial `exp` in plain f32 arithmetic (no FMA, no libm), so a Gibbs
//! decision is the same bit on x86_64 and wasm32. Exact evaluation uses `libm` in f64.

/// Logistic sigmoid σ(x) = 1/(1+e^{−x}) in f32 (docs/algorithms.md §1), via [`fast_exp`].
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + fast_exp(-x))
}

/// Bernoulli test `u < σ(a)` written as `u·(1+e^{−a}) < 1`: no division, one `exp`.
#[inline(always)]
pub fn bernoulli(u: f32, a: f32) -> bool {
    u * (1.0 + fast_exp(-a)) < 1.0
}

/// e^x in f32: range reduction by ln 2 and a degree-6 polynomial (relative error < 4·10⁻⁷
/// on the clamped range). Inputs are clamped to [−87, 87] so the result is finite and
/// normal; `NaN` propagates. Only +, ×, compare and bit casts, so it vectorises (no `floor`,
/// which is a libm call on baseline x86-64) and is bit-identical on every target.
// The published coefficients, digit for digit (they round to the same floats).
#[allow(clippy::excessive_precision)]
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // 1.5·2²³: adding it rounds to the nearest integer, held in the low mantissa bits.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 87.0);
    let t = x * LOG2E + ROUND;
    let n = t - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    // Minimax coefficients of e^r on |r| ≤ ln2/2 (Cephes expf).
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 5.000_000_1e-1;
    let y = p * r * r + r + 1.0;
    // 2ⁿ from the integer in t's low bits: (n + 127) << 23.
    let scale = f32::from_bits((t.to_bits().wrapping_sub(ROUND.to_bits()).wrapping_add(127)) << 23);
    y * scale
}

/// `out[j] = 1 + e^{−a[j]}` for a whole row (vectorised); a unit is on iff `u·out[j] < 1`.
#[inline]
pub fn one_plus_exp_neg(a: &[f32], out: &mut [f32]) {
    out.iter_mut()
        .zip(a)
        .for_each(|(o, &x)| *o = one_plus_exp_neg_one(x));
}

/// [`one_plus_exp_neg`] in place: `t[j] ← 1 + e^{−t[j]}` (the pattern tables' runs of new
/// slots). Eight values at a time where an x86-64 CPU has AVX2 (`engine::cpu::simd`): the same
/// operations on each value, so the same bits on every target.
#[inline]
pub fn one_plus_exp_neg_in_place(t: &mut [f32]) {
    crate::engine::cpu::simd::one_plus_exp_neg_in_place(t)
}

/// One value of [`one_plus_exp_neg`]: 1 + e^{−a}.
#[inline(always)]
pub fn one_plus_exp_neg_one(a: f32) -> f32 {
    1.0 + fast_exp(-a)
}

/// e^x for x ≤ 0 in f64, branch-free (vectorises): x = n·ln2 + r with |r| ≤ ln2/2 and a
/// degree-13 Taylor polynomial for e^r (truncation < 2·10⁻¹⁶ relative). Inputs below −700 are
/// clamped (e^−700 ≈ 10⁻³⁰⁴, negligible in every sum it enters); relative error ≲ 3·10⁻¹⁶.
// The published coefficients, digit for digit (they round to the same floats).
#[allow(clippy::excessive_precision)]
#[inline(always)]
pub fn exp_nonpos(x: f64) -> f64 {
    const LN2_HI: f64 = 6.931_471_803_691_238_2e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    // 1.5·2⁵²: adding it rounds to the nearest integer, held in the low mantissa bits.
    const ROUND: f64 = 6_755_399_441_055_744.0;
    let x = x.max(-700.0);
    let t = x * std::f64::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    const C: [f64; 14] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    let mut p = C[13];
    for &c in C[..13].iter().rev() {
        p = p * r + c;
    }
    let bits = (t.to_bits().wrapping_sub(ROUND.to_bits()) as i64).wrapping_add(1023) as u64;
    p * f64::from_bits(bits << 52)
}

/// ln(1+y) for y ∈ [0, 1] in f64, branch-free: u = 1+y rounded, halved when above √2; then
/// ln u = 2·atanh(s), s = (u−1)/(u+1), |s| ≤ 0.172, by its odd series to s²³, plus the
/// classic correction (y − (u−1))/u for the rounding of 1+y. Relative error ≲ 4·10⁻¹⁶.
#[inline(always)]
pub fn log1p_unit(y: f64) -> f64 {
    let u = 1.0 + y;
    let corr = (y - (u - 1.0)) / u;
    let k = if u > std::f64::consts::SQRT_2 {
        1.0
    } else {
        0.0
    };
    let v = u * (1.0 - 0.5 * k);
    let s = (v - 1.0) / (v + 1.0);
    let s2 = s * s;
    let mut p = 1.0 / 23.0;
    for d in [21.0, 19.0, 17.0, 15.0, 13.0, 11.0, 9.0, 7.0, 5.0, 3.0, 1.0] {
        p = p * s2 + 1.0 / d;
    }
    k * std::f64::consts::LN_2 + 2.0 * s * p + corr
}

/// softplus(x) = ln(1+eˣ) = max(x, 0) + ln(1 + e^{−|x|}) in f64, stable for all x, branch-free
/// so that enumerations vectorise; agrees with libm to ~1e-15 relative and is the same bits on
/// every target.
#[inline(always)]
pub fn softplus(x: f64) -> f64 {
    x.max(0.0) + log1p_unit(exp_nonpos(-x.abs()))
}

/// ln x for finite x ≥ 1 (used on products of terms in [1, 2]): x = 2ᵉ·(1+f), f ∈ [0, 1),
/// ln x = e·ln2 + ln(1+f) with [`log1p_unit`].
#[inline]
pub fn ln_ge1(x: f64) -> f64 {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mant = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    e as f64 * std::f64::consts::LN_2 + log1p_unit(mant - 1.0)
}

/// Σ softplus(xᵢ) = Σ max(xᵢ, 0) + ln Π (1 + e^{−|xᵢ|}): one exp per term and one log per call
/// (every factor is in [1, 2], so blocks of 1000 cannot overflow). Four interleaved lanes
/// combined in a fixed order, so it vectorises and every target gets the same bits. Relative
/// error about n ulps, like a plain sum of n softplus values.
#[inline]
pub fn softplus_sum(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for block in xs.chunks(1000) {
        let mut pos = [0.0f64; 4];
        let mut prod = [1.0f64; 4];
        let mut it = block.chunks_exact(4);
        for ch in &mut it {
            for j in 0..4 {
                pos[j] += ch[j].max(0.0);
                prod[j] *= 1.0 + exp_nonpos(-ch[j].abs());
            }
        }
        for (j, &x) in it.remainder().iter().enumerate() {
            pos[j] += x.max(0.0);
            prod[j] *= 1.0 + exp_nonpos(-x.abs());
        }
        total += ((pos[0] + pos[1]) + (pos[2] + pos[3]))
            + ln_ge1((prod[0] * prod[1]) * (prod[2] * prod[3]));
    }
    total
}

/// ln σ(x) = −softplus(−x) in f64.
#[inline]
pub fn log_sigmoid(x: f64) -> f64 {
    -softplus(-x)
}

/// Streaming log-sum-exp: a running maximum and a sum of exponentials relative to it
/// (docs/algorithms.md §2). Partial accumulators merge, so ranges can be summed in parallel.
#[derive(Clone, Copy, Debug)]
pub struct LogSumExp {
    max: f64,
    sum: f64,
}

impl Default for LogSumExp {
    fn default() -> Self {
        Self {
            max: f64::NEG_INFINITY,
            sum: 0.0,
        }
    }
}

impl LogSumExp {
    /// Adds one term `x` (a log-weight).
    #[inline]
    pub fn add(&mut self, x: f64) {
        if x <= self.max {
            self.sum += exp_nonpos(x - self.max);
        } else {
            self.sum = self.sum * exp_nonpos(self.max - x) + 1.0;
            self.max = x;
        }
    }

    /// Merges another partial accumulator.
    pub fn merge(&mut self, o: LogSumExp) {
        if o.max == f64::NEG_INFINITY {
            return;
        }
        if self.max == f64::NEG_INFINITY {
            *self = o;
            return;
        }
        if o.max <= self.max {
            self.sum += o.sum * exp_nonpos(o.max - self.max);
        } else {
            self.sum = self.sum * exp_nonpos(self.max - o.max) + o.sum;
            self.max = o.max;
        }
    }

    /// ln Σ eˣ over everything added.
    pub fn value(&self) -> f64 {
        self.max + libm::log(self.sum)
    }

    /// The running maximum and the sum of exponentials relative to it: a partial sum as two
    /// numbers, to send from one worker to another and rebuild with [`LogSumExp::from_parts`]
    /// (docs/algorithms.md §2: ranges of the enumeration merge with one log-sum-exp).
    pub fn parts(&self) -> (f64, f64) {
        (self.max, self.sum)
    }

    /// The accumulator of [`LogSumExp::parts`], bit for bit.
    pub fn from_parts(max: f64, sum: f64) -> LogSumExp {
        LogSumExp { max, sum }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-place path (AVX2 where the CPU has it) gives the row kernel's bits, clamps, NaN
    /// and ±∞ included, for every length (the vector loop's remainders too).
    #[test]
    fn one_plus_exp_neg_paths_equal_the_scalar_map() {
        let mut a: Vec<f32> = (0..2000).map(|i| (i as f32 - 1000.0) * 0.0931).collect();
        a.extend([
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            0.0,
            88.5,
            -88.5,
        ]);
        a.extend((0..500).map(|i| f32::from_bits(0x3000_0000 + i * 0x0011_3457)));
        let want: Vec<u32> = a
            .iter()
            .map(|&x| one_plus_exp_neg_one(x).to_bits())
            .collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 100, a.len()] {
            let mut out = vec![0.0; len];
            one_plus_exp_neg(&a[..len], &mut out);
            let mut t = a[..len].to_vec();
            one_plus_exp_neg_in_place(&mut t);
            for (j, (o, t)) in out.iter().zip(&t).enumerate() {
                assert_eq!(o.to_bits(), want[j], "len {len}, value {j} = {}", a[j]);
                assert_eq!(
                    t.to_bits(),
                    want[j],
                    "in place: len {len}, value {j} = {}",
                    a[j]
                );
            }
        }
    }

    #[test]
    fn fast_exp_matches_libm() {
        let mut x = -87.0f32;
        while x < 87.0 {
            let a = fast_exp(x) as f64;
            let b = libm::exp(x as f64);
            assert!(((a - b) / b).abs() < 4e-7, "x={x} {a} {b}");
            x += 0.0137;
        }
    }

    /// Reference softplus on libm.
    fn softplus_libm(x: f64) -> f64 {
        if x > 0.0 {
            x + libm::log1p(libm::exp(-x))
        } else {
            libm::log1p(libm::exp(x))
        }
    }

    #[test]
    fn f64_kernels_match_libm_to_a_few_ulps() {
        let mut worst = [0.0f64; 3];
        let mut x = -745.0f64;
        while x <= 745.0 {
            if (-700.0..=0.0).contains(&x) {
                let (a, b) = (exp_nonpos(x), libm::exp(x));
                worst[0] = worst[0].max(((a - b) / b).abs());
            }
            let sp = softplus(x);
            let want = softplus_libm(x.max(-700.0));
            worst[1] = worst[1].max(((sp - want) / want).abs());
            x += 0.001_37;
        }
        let mut y = 0.0f64;
        while y <= 1.0 {
            let (a, b) = (log1p_unit(y), libm::log1p(y));
            if b > 0.0 {
                worst[2] = worst[2].max(((a - b) / b).abs());
            }
            y += 1.1e-5;
        }
        assert!(worst[0] < 1e-15, "exp rel err {}", worst[0]);
        assert!(worst[1] < 1e-15, "softplus rel err {}", worst[1]);
        assert!(worst[2] < 1e-15, "log1p rel err {}", worst[2]);
        assert_eq!(log1p_unit(0.0), 0.0);
        assert_eq!(exp_nonpos(0.0), 1.0);
    }

    #[test]
    fn softplus_sum_matches_a_libm_sum() {
        let mut r = crate::rng::stream(3, 0, crate::rng::Purpose::Aux);
        for (len, scale) in [
            (1usize, 1.0),
            (3, 5.0),
            (16, 2.0),
            (784, 3.0),
            (2500, 1.0),
            (17, 300.0),
        ] {
            let xs: Vec<f64> = (0..len)
                .map(|_| scale * crate::rng::normal(&mut r))
                .collect();
            let want: f64 = xs.iter().map(|&x| softplus_libm(x)).sum();
            let got = softplus_sum(&xs);
            assert!(
                (got - want).abs() <= 1e-14 * want.abs().max(1.0) * (len as f64).sqrt(),
                "{len}: {got} vs {want}"
            );
        }
        for x in [1.0, 1.5, 2.0, 1e300, 3.7e5] {
            assert!(
                (ln_ge1(x) - libm::log(x)).abs() <= 2e-16 * libm::log(x).max(1.0),
                "{x}"
            );
        }
    }

    #[test]
    fn softplus_and_logsumexp_are_exact() {
        for &x in &[-1.0, 0.0, 0.5, 3.0, 30.0] {
            let naive = (1.0f64 + f64::exp(x)).ln();
            assert!((softplus(x) - naive).abs() <= 1e-14 * naive.abs(), "{x}");
        }
        // Far left softplus(x) = eˣ − e²ˣ/2 + …, where the naive form loses every digit.
        for &x in &[-30.0f64, -700.0] {
            let series = x.exp() - (2.0 * x).exp() / 2.0;
            assert!((softplus(x) - series).abs() <= 1e-15 * series, "{x}");
        }
        assert_eq!(softplus(800.0), 800.0);
        let xs = [1000.0, 999.0, -5.0, 1001.5];
        let mut l = LogSumExp::default();
        xs.iter().for_each(|&x| l.add(x));
        let m = 1001.5f64;
        let want = m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
        assert!((l.value() - want).abs() < 1e-12);
        let (mut a, mut b) = (LogSumExp::default(), LogSumExp::default());
        a.add(xs[0]);
        a.add(xs[1]);
        b.add(xs[2]);
        b.add(xs[3]);
        a.merge(b);
        assert!((a.value() - want).abs() < 1e-12);
    }
}

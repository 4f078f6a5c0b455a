//! Numerics shared by every target.
//!
//! Sampling uses a polynomial `exp` in plain f32 arithmetic (no FMA, no libm), so a Gibbs
//! decision is the same bit on x86_64 and wasm32. Exact evaluation uses `libm` in f64.

/// Logistic sigmoid σ(x) = 1/(1+e^{−x}) in f32 (ALGORITHMS.md §1), via [`fast_exp`].
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + fast_exp(-x))
}

/// Bernoulli test `u < σ(a)` written as `u·(1+e^{−a}) < 1`: no division, one `exp`.
#[inline(always)]
pub fn bernoulli(u: f32, a: f32) -> bool {
    u * (1.0 + fast_exp(-a)) < 1.0
}

/// e^x in f32: range reduction by ln 2 and a degree-6 polynomial (relative error < 2·10⁻⁷
/// on the clamped range). Inputs are clamped to [−87, 88] so the result is finite and
/// normal; `NaN` propagates.
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * LOG2E + 0.5).floor();
    let r = x - n * LN2_HI - n * LN2_LO;
    // Taylor/minimax coefficients of e^r on |r| ≤ ln2/2 (Cephes expf).
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 5.000_000_1e-1;
    let y = p * r * r + r + 1.0;
    let scale = f32::from_bits((((n as i32) + 127) as u32) << 23);
    y * scale
}

/// softplus(x) = ln(1+eˣ) in f64, stable for all x.
#[inline]
pub fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + libm::log1p(libm::exp(-x))
    } else {
        libm::log1p(libm::exp(x))
    }
}

/// ln σ(x) = −softplus(−x) in f64.
#[inline]
pub fn log_sigmoid(x: f64) -> f64 {
    -softplus(-x)
}

/// Streaming log-sum-exp: a running maximum and a sum of exponentials relative to it
/// (ALGORITHMS.md §2). Partial accumulators merge, so ranges can be summed in parallel.
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
            self.sum += libm::exp(x - self.max);
        } else {
            self.sum = self.sum * libm::exp(self.max - x) + 1.0;
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
            self.sum += o.sum * libm::exp(o.max - self.max);
        } else {
            self.sum = self.sum * libm::exp(self.max - o.max) + o.sum;
            self.max = o.max;
        }
    }

    /// ln Σ eˣ over everything added.
    pub fn value(&self) -> f64 {
        self.max + libm::log(self.sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_exp_matches_libm() {
        let mut x = -87.0f32;
        while x < 88.0 {
            let a = fast_exp(x) as f64;
            let b = libm::exp(x as f64);
            assert!(((a - b) / b).abs() < 4e-7, "x={x} {a} {b}");
            x += 0.0137;
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

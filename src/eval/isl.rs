//! Indirect sampling likelihood (Breuleux, Bengio & Vincent 2010; the rates-FPCD paper's
//! Figure 2; docs/algorithms.md §5): a Parzen density on the first N generated samples, scored
//! by the mean log-density of held-out examples, as a curve over N.
//!
//! Binary kernel `p(x | s) = Π_d β^{[x_d = s_d]} (1−β)^{[x_d ≠ s_d]}`: it depends on x and s only
//! through their Hamming distance d, `log p(x|s) = (D−d)·ln β + d·ln(1−β)`. So each held-out
//! example keeps a histogram of its distances to the samples so far (patterns packed into 64-bit
//! words, a distance is a few popcounts), and the Parzen log-density at any β is a log-sum over
//! at most D + 1 bins — exact, incremental as samples arrive, and β can be re-chosen on the
//! validation split at every N without seeing the samples again. Grey-level examples and
//! samples are thresholded at 0.5.

use crate::error::{Error, Result};
use serde::Serialize;

/// The smallest and largest β tried (β ∈ (½, 1)).
pub const BETA_RANGE: (f64, f64) = (0.5 + 1e-6, 1.0 - 1e-6);

/// Patterns packed as bits (x ≥ 0.5 is 1), `words` u64 each.
#[derive(Clone, Debug)]
pub struct Packed {
    /// Values per pattern D.
    pub d: usize,
    /// Words per pattern.
    pub words: usize,
    /// The bits, pattern after pattern.
    pub bits: Vec<u64>,
}

impl Packed {
    /// Packs `rows` patterns of `d` values.
    pub fn new(values: &[f32], d: usize) -> Packed {
        let words = d.div_ceil(64);
        let mut bits = vec![0u64; values.len() / d.max(1) * words];
        for (row, out) in values.chunks_exact(d).zip(bits.chunks_exact_mut(words)) {
            pack_into(row, out);
        }
        Packed { d, words, bits }
    }

    /// Number of patterns.
    pub fn rows(&self) -> usize {
        self.bits.len() / self.words.max(1)
    }

    /// Pattern `r`'s words.
    pub fn row(&self, r: usize) -> &[u64] {
        &self.bits[r * self.words..(r + 1) * self.words]
    }
}

/// Packs one pattern (x ≥ 0.5 is 1) into `out` (⌈D/64⌉ words).
pub fn pack_into(x: &[f32], out: &mut [u64]) {
    out.iter_mut().for_each(|w| *w = 0);
    for (i, &xi) in x.iter().enumerate() {
        out[i / 64] |= u64::from(xi >= 0.5) << (i % 64);
    }
}

/// Hamming distance of two packed patterns.
#[inline]
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// Calls `f(r, d)` with the Hamming distance `d` of every pattern `r` of `rows` to `s`, in row
/// order. On x86-64 CPUs with POPCNT it runs a copy compiled for that instruction (the generic
/// target counts bits with a dozen shifts and masks); the distances are the same integers.
#[inline]
pub fn distances(rows: &Packed, s: &[u64], mut f: impl FnMut(usize, u32)) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        /// [`distances_generic`] compiled for POPCNT.
        ///
        /// # Safety
        /// The CPU has POPCNT. (The body is safe code: only the target feature makes a call
        /// unsafe.)
        #[target_feature(enable = "popcnt")]
        unsafe fn with_popcnt(rows: &Packed, s: &[u64], f: &mut dyn FnMut(usize, u32)) {
            distances_generic(rows, s, f)
        }
        // SAFETY: `with_popcnt` needs only a CPU with POPCNT, which `is_x86_feature_detected!`
        // found just above; its body is safe code (bounds-checked slices).
        unsafe { with_popcnt(rows, s, &mut f) };
        return;
    }
    distances_generic(rows, s, &mut f)
}

#[inline(always)]
fn distances_generic(rows: &Packed, s: &[u64], f: &mut dyn FnMut(usize, u32)) {
    for (r, row) in rows.bits.chunks_exact(rows.words).enumerate() {
        f(r, hamming(row, s));
    }
}

/// One point of an ISL curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IslPoint {
    /// Samples in the Parzen density.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub n: u64,
    /// Mean log-density of the test examples, in nats.
    pub isl: f64,
    /// The kernel's β (chosen on the validation examples, or given).
    pub beta: f64,
}

/// Distance histograms of a set of held-out examples against the samples added so far.
#[derive(Clone, Debug)]
struct Histograms {
    examples: Packed,
    /// `rows × (D+1)` counts.
    counts: Vec<u32>,
}

impl Histograms {
    fn new(examples: Packed) -> Histograms {
        let counts = vec![0; examples.rows() * (examples.d + 1)];
        Histograms { examples, counts }
    }

    fn add(&mut self, s: &[u64]) {
        let bins = self.examples.d + 1;
        let counts = &mut self.counts;
        distances(&self.examples, s, |r, d| counts[r * bins + d as usize] += 1);
    }

    /// Mean over the examples of log (1/N) Σ_s p(x|s) at β. With r = (1−β)/β < 1,
    /// Σ_s p(x|s) = β^D Σ_d k_d r^d: per example a polynomial in r from its nearest distance
    /// on, summed by multiplications until the remaining terms (at most N·r^d each, and
    /// falling) cannot change the sum in f64, then one logarithm.
    fn mean_log_density(&self, beta: f64, n: u64) -> f64 {
        let d = self.examples.d;
        let r = (1.0 - beta) / beta;
        let (log_beta, log_r) = (beta.ln(), r.ln());
        let (nf, log_n) = (n as f64, (n as f64).ln());
        let rows = self.examples.rows();
        let total: f64 = self
            .counts
            .chunks_exact(d + 1)
            .map(|c| {
                let Some(d_min) = c.iter().position(|&k| k > 0) else {
                    return f64::NEG_INFINITY;
                };
                let (mut sum, mut p) = (0.0f64, 1.0f64);
                for &k in &c[d_min..] {
                    sum += k as f64 * p;
                    p *= r;
                    if p * nf < 1e-18 * sum {
                        break;
                    }
                }
                d as f64 * log_beta + d_min as f64 * log_r + sum.ln() - log_n
            })
            .sum();
        total / rows as f64
    }
}

/// An ISL curve in the making: test (and validation) examples, samples added one by one.
#[derive(Clone, Debug)]
pub struct Isl {
    test: Histograms,
    valid: Option<Histograms>,
    n: u64,
    word: Vec<u64>,
}

impl Isl {
    /// Scores on `test` (rows of `d` values); β is chosen on `valid` when given.
    pub fn new(test: &[f32], valid: Option<&[f32]>, d: usize) -> Result<Isl> {
        if d == 0 || test.is_empty() || !test.len().is_multiple_of(d) {
            return Err(Error::Invalid(format!(
                "ISL needs test examples of {d} values (got {} values)",
                test.len()
            )));
        }
        if let Some(v) = valid {
            if v.is_empty() || !v.len().is_multiple_of(d) {
                return Err(Error::Invalid(format!(
                    "ISL's validation examples must have {d} values each (got {} values)",
                    v.len()
                )));
            }
        }
        Ok(Isl {
            test: Histograms::new(Packed::new(test, d)),
            valid: valid.map(|v| Histograms::new(Packed::new(v, d))),
            n: 0,
            word: vec![0; d.div_ceil(64)],
        })
    }

    /// Adds one sample (D values, thresholded at 0.5).
    pub fn add(&mut self, sample: &[f32]) {
        let mut word = std::mem::take(&mut self.word);
        pack_into(sample, &mut word);
        self.add_packed(&word);
        self.word = word;
    }

    /// Adds one packed sample.
    pub fn add_packed(&mut self, s: &[u64]) {
        self.test.add(s);
        if let Some(v) = &mut self.valid {
            v.add(s);
        }
        self.n += 1;
    }

    /// Replaces the distance histograms by those of the first `n` samples counted elsewhere
    /// (the GPU engine's `rbm_gpu::isl`): `test[r·(D+1) + d]` samples lie at Hamming distance d
    /// from test example r (thresholded at 0.5), `valid` likewise for the validation examples.
    /// The counts are integers, so the curve ([`Isl::point`]) is the one [`Isl::add`] of the same
    /// samples gives, bit for bit (Breuleux, Bengio & Vincent 2010's Parzen estimate with the
    /// binary kernel of the module docs).
    pub fn set_counts(&mut self, test: Vec<u32>, valid: Option<Vec<u32>>, n: u64) -> Result<()> {
        let fits = |h: &Histograms, c: &[u32]| {
            c.len() == h.counts.len()
                && c.chunks_exact(h.examples.d + 1)
                    .all(|row| row.iter().map(|&k| k as u64).sum::<u64>() == n)
        };
        let ok = fits(&self.test, &test)
            && match (&self.valid, &valid) {
                (Some(h), Some(c)) => fits(h, c),
                (None, None) => true,
                _ => false,
            };
        if !ok {
            return Err(Error::Invalid(format!(
                "ISL's distance counts must hold {n} samples for each of the {} test{} examples",
                self.test.examples.rows(),
                if self.valid.is_some() {
                    " and validation"
                } else {
                    ""
                }
            )));
        }
        self.test.counts = test;
        if let (Some(h), Some(c)) = (&mut self.valid, valid) {
            h.counts = c;
        }
        self.n = n;
        Ok(())
    }

    /// Samples added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The β that maximises the validation examples' mean log-density (without validation
    /// examples, the test examples' — an optimistic choice), by a grid over (½, 1) refined by
    /// golden-section search.
    pub fn best_beta(&self) -> f64 {
        let h = self.valid.as_ref().unwrap_or(&self.test);
        let n = self.n.max(1);
        let f = |b: f64| h.mean_log_density(b, n);
        // β = 1 − 2^−t for t on a grid covers (½, 1) with resolution where it matters.
        let grid: Vec<f64> = (0..=60)
            .map(|i| 1.0 - 0.5f64.powf(1.0 + i as f64 * 0.25))
            .collect();
        let (mut best, mut best_f) = (grid[0], f64::NEG_INFINITY);
        for (i, &b) in grid.iter().enumerate() {
            let v = f(b);
            if v > best_f {
                (best, best_f) = (i as f64, v);
            }
        }
        let i = best as usize;
        let (mut lo, mut hi) = (grid[i.saturating_sub(1)], grid[(i + 1).min(grid.len() - 1)]);
        let g = (5f64.sqrt() - 1.0) / 2.0;
        let (mut a, mut b) = (hi - g * (hi - lo), lo + g * (hi - lo));
        let (mut fa, mut fb) = (f(a), f(b));
        for _ in 0..40 {
            if fa >= fb {
                (hi, b, fb) = (b, a, fa);
                a = hi - g * (hi - lo);
                fa = f(a);
            } else {
                (lo, a, fa) = (a, b, fb);
                b = lo + g * (hi - lo);
                fb = f(b);
            }
        }
        ((lo + hi) / 2.0).clamp(BETA_RANGE.0, BETA_RANGE.1)
    }

    /// The ISL of the samples so far at `beta` (chosen by [`Isl::best_beta`] when `None`).
    pub fn point(&self, beta: Option<f64>) -> Result<IslPoint> {
        if self.n == 0 {
            return Err(Error::Invalid("ISL needs at least one sample".into()));
        }
        let beta = match beta {
            Some(b) if b > 0.5 && b < 1.0 => b,
            Some(b) => {
                return Err(Error::InvalidOption {
                    key: "beta".into(),
                    message: format!(
                        "the kernel's β must lie strictly between 0.5 and 1 (got {b})"
                    ),
                })
            }
            None => self.best_beta(),
        };
        Ok(IslPoint {
            n: self.n,
            isl: self.test.mean_log_density(beta, self.n),
            beta,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The histogram form equals the straightforward Parzen sum over samples and dimensions.
    #[test]
    fn histograms_equal_the_straightforward_parzen_sum() {
        let mut rng = crate::rng::stream(3, 0, crate::rng::Purpose::Aux);
        let d = 70;
        let draw = |rng: &mut crate::rng::Rng, rows: usize| -> Vec<f32> {
            (0..rows * d)
                .map(|_| f32::from(crate::rng::uniform(rng) < 0.3))
                .collect()
        };
        let (test, samples) = (draw(&mut rng, 5), draw(&mut rng, 9));
        let mut isl = Isl::new(&test, None, d).unwrap();
        samples.chunks(d).for_each(|s| isl.add(s));
        let beta = 0.83;
        let direct: f64 = test
            .chunks(d)
            .map(|x| {
                let dens: f64 = samples
                    .chunks(d)
                    .map(|s| {
                        x.iter()
                            .zip(s)
                            .map(|(a, b)| if a == b { beta } else { 1.0 - beta })
                            .product::<f64>()
                    })
                    .sum::<f64>()
                    / 9.0;
                dens.ln()
            })
            .sum::<f64>()
            / 5.0;
        let got = isl.point(Some(beta)).unwrap();
        assert!((got.isl - direct).abs() < 1e-9, "{} vs {direct}", got.isl);
        assert_eq!(got.n, 9);
    }

    /// The chosen β maximises the validation score: no grid point does better.
    #[test]
    fn best_beta_is_a_maximum() {
        let mut rng = crate::rng::stream(4, 0, crate::rng::Purpose::Aux);
        let d = 40;
        let v: Vec<f32> = (0..30 * d)
            .map(|_| f32::from(crate::rng::uniform(&mut rng) < 0.2))
            .collect();
        let (samples, valid) = v.split_at(20 * d);
        let mut isl = Isl::new(valid, Some(valid), d).unwrap();
        samples.chunks(d).for_each(|s| isl.add(s));
        let b = isl.best_beta();
        let best = isl.point(Some(b)).unwrap().isl;
        for i in 1..100 {
            let other = 0.5 + i as f64 * 0.005;
            assert!(
                isl.point(Some(other)).unwrap().isl <= best + 1e-9,
                "β {other} beats {b}"
            );
        }
        assert!(isl.point(Some(1.0)).is_err());
        assert!(Isl::new(&[], None, d).is_err());
    }
}

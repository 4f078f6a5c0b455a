//! log Z by the Bennett acceptance ratio between the neighbouring temperatures of a parallel-
//! tempering run (Bennett 1976, "Efficient estimation of free energy differences from Monte
//! Carlo data", J. Comput. Phys. 22; in the form of Shirts, Bair, Hooker & Pande 2003, eq. 9;
//! the estimator bench of issue 29, docs/algorithms.md §7).
//!
//! Parallel tempering ([`crate::train::pt::Tempering`]) runs R replicas of `chains` joint
//! states at inverse temperatures β₁ = 1 > … > β_R = 0, evenly spaced, each replica sampling
//! p_β(v, h) ∝ exp(−β E(v, h)), with Gibbs sweeps and swaps between neighbours. At β = 0 every
//! joint state is equally likely: `log Z_R = (m + n) ln 2`. Summing h out, replica r's visible
//! states follow p_β(v) ∝ exp(−F_β(v)) with `F_β(v) = −β bᵀv − Σ_j softplus(β(c_j + W_jᵀv))`.
//!
//! For each neighbouring pair (r, r+1), with the reduced potentials u_r = F_{β_r}:
//! forward works `w_F = u_{r+1}(v) − u_r(v)` of replica r's samples, reverse works
//! `w_R = u_r(v) − u_{r+1}(v)` of replica r+1's, and Δf = f_{r+1} − f_r = log Z_r − log Z_{r+1}
//! solves Bennett's equation
//!
//! `Σ_F 1/(1 + e^{M + w_F − Δf}) = Σ_R 1/(1 + e^{−M + w_R + Δf})`, `M = ln(N_F/N_R)`,
//!
//! whose left side increases and right side decreases with Δf (bisection). Then
//! `log Z₁ = log Z_R + Σ_r Δf_r`. Samples are the states after each of `rounds` rounds (one
//! sweep of every replica, then a round of swaps) following `burn_in` rounds; the compute is
//! `chains × R × (burn_in + rounds)` Gibbs sweeps.
//!
//! **The bar.** The rounds are split into [`BATCHES`] consecutive batches, each batch's samples
//! give their own estimate, and the bar is ±3 standard errors of their mean (batch means:
//! consecutive rounds of a chain are correlated, which the textbook variance of Bennett's
//! estimator ignores).

use super::ais::AisResult;
use super::exact::average_log_likelihood;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::math::softplus;
use crate::model::Rbm;
use crate::rng::{stream, Purpose};
use crate::train::pt::{betas, Tempering};

/// `AisResult::method` of a BAR run.
pub const METHOD: &str = "bar-pt";

/// Batches the rounds are split into for the bar.
pub const BATCHES: usize = 10;

/// Most work values a run keeps (two per chain, round and neighbouring pair; 128 MiB).
pub const MAX_WORKS: usize = 1 << 24;

/// Most temperatures of one run.
pub const MAX_TEMPERATURES: usize = 10_000;

/// One BAR run over a parallel-tempering ladder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarConfig {
    /// Chains per temperature.
    pub chains: usize,
    /// Temperatures R, β = 1 and β = 0 included (evenly spaced).
    pub temperatures: usize,
    /// Rounds whose states are samples.
    pub rounds: usize,
    /// Rounds before them, discarded.
    pub burn_in: usize,
    /// Seed of the run's draws.
    pub seed: u64,
}

impl BarConfig {
    /// Gibbs sweeps of the run: `chains × temperatures × (burn_in + rounds)`.
    pub fn sweeps(&self) -> u64 {
        (self.chains * self.temperatures) as u64 * (self.burn_in + self.rounds) as u64
    }

    /// Refuses a run outside the limits, naming the setting.
    pub fn check(&self) -> Result<()> {
        if self.chains < 1 {
            return Err(Error::option("chains", "BAR needs at least one chain"));
        }
        if !(2..=MAX_TEMPERATURES).contains(&self.temperatures) {
            return Err(Error::option(
                "temperatures",
                format!(
                    "BAR's temperatures must be between 2 and {MAX_TEMPERATURES} (got {})",
                    self.temperatures
                ),
            ));
        }
        if self.rounds < BATCHES || !self.rounds.is_multiple_of(BATCHES) {
            return Err(Error::option(
                "rounds",
                format!(
                    "BAR's rounds must be a multiple of {BATCHES} (its batches for the bar; got {})",
                    self.rounds
                ),
            ));
        }
        let works = 2 * self.chains * self.rounds * (self.temperatures - 1);
        if works > MAX_WORKS {
            return Err(Error::TooLarge(format!(
                "BAR would keep {works} work values (chains × rounds × pairs × 2), over {MAX_WORKS}: \
                 fewer chains, rounds or temperatures"
            )));
        }
        Ok(())
    }
}

/// `F_β(v)` of the module's text, in f64, from `v`'s hidden pre-activations `pre = c + Wᵀv`
/// and `bᵀv`.
fn tempered_free_energy(beta: f64, bv: f64, pre: &[f64]) -> f64 {
    -beta * bv - pre.iter().map(|&a| softplus(beta * a)).sum::<f64>()
}

/// Bennett's Δf for forward works `wf` and reverse works `wr` (the module's equation), by
/// bisection to the last bits of f64.
pub fn bennett(wf: &[f64], wr: &[f64]) -> f64 {
    let m = (wf.len() as f64 / wr.len() as f64).ln();
    let fermi = |x: f64| 1.0 / (1.0 + libm::exp(x));
    // Increasing in Δf: zero at Bennett's estimate.
    let g = |df: f64| -> f64 {
        wf.iter().map(|&w| fermi(m + w - df)).sum::<f64>()
            - wr.iter().map(|&w| fermi(-m + w + df)).sum::<f64>()
    };
    // The root lies near the works' range (forward works and negated reverse ones); the
    // bracket is widened until g changes sign across it.
    let all = || wf.iter().copied().chain(wr.iter().map(|&w| -w));
    let lo = all().fold(f64::INFINITY, f64::min);
    let hi = all().fold(f64::NEG_INFINITY, f64::max);
    let (mut a, mut b) = (lo - 50.0 - m.abs(), hi + 50.0 + m.abs());
    while g(a) > 0.0 {
        a -= 2.0 * (b - a);
    }
    while g(b) < 0.0 {
        b += 2.0 * (b - a);
    }
    for _ in 0..200 {
        let mid = 0.5 * (a + b);
        if mid <= a || mid >= b {
            break;
        }
        if g(mid) < 0.0 {
            a = mid;
        } else {
            b = mid;
        }
    }
    0.5 * (a + b)
}

/// log Z of `rbm` by BAR over a parallel-tempering run, with the ATLL of `data` (grey levels
/// thresholded at 0.5, as AIS evaluates them) it implies, as an [`AisResult`] with method
/// [`METHOD`] (`betas`: the temperatures; `particles`: the chains; `base_log_z`: (m + n) ln 2).
pub fn bar_log_z(rbm: &Rbm, data: &Dataset, cfg: &BarConfig) -> Result<AisResult> {
    cfg.check()?;
    let (m, n) = (rbm.m(), rbm.n());
    let rows = data.thresholded();
    let ladder = betas(cfg.temperatures, 0.0);
    let mut pt = Tempering::new(m, n, ladder.clone(), &rows.values, cfg.chains);
    let mut rng = stream(cfg.seed, 0, Purpose::Sampling);
    for _ in 0..cfg.burn_in {
        pt.sweeps(rbm, 1, &mut rng);
        pt.swaps(rbm, &mut rng);
    }
    let pairs = cfg.temperatures - 1;
    // works[p] = (forward, reverse) of pair p, round-major.
    let mut works: Vec<(Vec<f64>, Vec<f64>)> = (0..pairs)
        .map(|_| {
            let len = cfg.chains * cfg.rounds;
            (Vec::with_capacity(len), Vec::with_capacity(len))
        })
        .collect();
    let (w, b, c) = (rbm.w(), &rbm.b, &rbm.c);
    let mut pre = vec![0.0f64; n];
    for _ in 0..cfg.rounds {
        pt.sweeps(rbm, 1, &mut rng);
        pt.swaps(rbm, &mut rng);
        for r in 0..cfg.temperatures {
            for v in pt.visible(r).chunks_exact(m) {
                pre.iter_mut().zip(c).for_each(|(p, &x)| *p = x as f64);
                let mut bv = 0.0f64;
                for (i, &x) in v.iter().enumerate() {
                    if x != 0.0 {
                        bv += b[i] as f64;
                        pre.iter_mut()
                            .zip(&w[i * n..(i + 1) * n])
                            .for_each(|(p, &y)| *p += y as f64);
                    }
                }
                let u = |beta: f64| tempered_free_energy(beta, bv, &pre);
                let here = u(ladder[r]);
                if r + 1 < cfg.temperatures {
                    works[r].0.push(u(ladder[r + 1]) - here);
                }
                if r > 0 {
                    works[r - 1].1.push(u(ladder[r - 1]) - here);
                }
            }
        }
    }
    let base_log_z = (m + n) as f64 * std::f64::consts::LN_2;
    let estimate = |from: usize, to: usize| -> f64 {
        let per = cfg.chains;
        base_log_z
            + works
                .iter()
                .map(|(f, r)| bennett(&f[from * per..to * per], &r[from * per..to * per]))
                .sum::<f64>()
    };
    let log_z = estimate(0, cfg.rounds);
    let size = cfg.rounds / BATCHES;
    let batches: Vec<f64> = (0..BATCHES)
        .map(|k| estimate(k * size, (k + 1) * size))
        .collect();
    let mean = batches.iter().sum::<f64>() / BATCHES as f64;
    let var = batches.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (BATCHES - 1) as f64;
    let se = (var / BATCHES as f64).sqrt();
    let atll = average_log_likelihood(rbm, &rows, log_z)?;
    Ok(AisResult {
        log_z,
        log_z_lo: log_z - 3.0 * se,
        log_z_hi: log_z + 3.0 * se,
        atll,
        atll_lo: atll - 3.0 * se,
        atll_hi: atll + 3.0 * se,
        method: METHOD,
        particles: cfg.chains,
        betas: cfg.temperatures,
        seed: cfg.seed,
        rows: rows.rows(),
        base_log_z,
        thresholded: !data.is_binary(),
        ess: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exact::log_z;
    use crate::rng::uniform_f64;

    /// Exact draws of v from p_β(v) ∝ exp(−F_β(v)) of a small model, by inversion.
    fn exact_draws(rbm: &Rbm, beta: f64, count: usize, seed: u64) -> Vec<Vec<f32>> {
        let (m, n) = (rbm.m(), rbm.n());
        let states: Vec<Vec<f32>> = (0..1u64 << m).map(|s| crate::data::decode(s, m)).collect();
        let logp: Vec<f64> = states
            .iter()
            .map(|v| {
                let pre: Vec<f64> = (0..n)
                    .map(|j| {
                        rbm.c[j] as f64
                            + (0..m)
                                .map(|i| v[i] as f64 * rbm.w()[i * n + j] as f64)
                                .sum::<f64>()
                    })
                    .collect();
                let bv: f64 = (0..m).map(|i| v[i] as f64 * rbm.b[i] as f64).sum();
                -tempered_free_energy(beta, bv, &pre)
            })
            .collect();
        let top = logp.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let p: Vec<f64> = logp.iter().map(|x| (x - top).exp()).collect();
        let total: f64 = p.iter().sum();
        let mut r = stream(seed, 7, Purpose::Aux);
        (0..count)
            .map(|_| {
                let mut u = uniform_f64(&mut r) * total;
                let mut k = 0;
                while k + 1 < p.len() && u >= p[k] {
                    u -= p[k];
                    k += 1;
                }
                states[k].clone()
            })
            .collect()
    }

    fn works(rbm: &Rbm, from: f64, to: f64, vs: &[Vec<f32>]) -> Vec<f64> {
        let n = rbm.n();
        vs.iter()
            .map(|v| {
                let pre: Vec<f64> = (0..n)
                    .map(|j| {
                        rbm.c[j] as f64
                            + v.iter()
                                .enumerate()
                                .map(|(i, &x)| x as f64 * rbm.w()[i * n + j] as f64)
                                .sum::<f64>()
                    })
                    .collect();
                let bv: f64 = v
                    .iter()
                    .zip(&rbm.b)
                    .map(|(&x, &b)| x as f64 * b as f64)
                    .sum();
                tempered_free_energy(to, bv, &pre) - tempered_free_energy(from, bv, &pre)
            })
            .collect()
    }

    /// log Σ_v exp(−F_β(v)) by enumeration.
    fn exact_log_z_at(rbm: &Rbm, beta: f64) -> f64 {
        let mut scaled = rbm.clone();
        scaled.edit(|w, b, c| {
            w.iter_mut().for_each(|x| *x *= beta as f32);
            b.iter_mut().for_each(|x| *x *= beta as f32);
            c.iter_mut().for_each(|x| *x *= beta as f32);
        });
        log_z(&scaled).unwrap()
    }

    #[test]
    fn bennett_on_exact_draws_finds_the_exact_free_energy_difference() {
        let rbm = Rbm::random(6, 4, 1.5, 3).unwrap();
        let (b0, b1) = (1.0, 0.5);
        let want = exact_log_z_at(&rbm, b0) - exact_log_z_at(&rbm, b1);
        let mut errors = Vec::new();
        for seed in 0..20 {
            let f = exact_draws(&rbm, b0, 400, 2 * seed);
            let r = exact_draws(&rbm, b1, 300, 2 * seed + 1);
            let got = bennett(&works(&rbm, b0, b1, &f), &works(&rbm, b1, b0, &r));
            errors.push(got - want);
        }
        let mean = errors.iter().sum::<f64>() / 20.0;
        let sd = (errors.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / 19.0).sqrt();
        assert!(sd > 0.0 && sd < 0.1, "spread {sd}");
        assert!(
            mean.abs() < 4.0 * sd / 20f64.sqrt(),
            "bias {mean} (sd {sd})"
        );
    }

    #[test]
    fn bennett_is_the_exact_answer_when_the_two_distributions_are_one() {
        // Equal works on both sides (a constant shift c): Δf = c exactly.
        let wf = vec![0.7; 50];
        let wr = vec![-0.7; 80];
        assert!((bennett(&wf, &wr) - 0.7).abs() < 1e-12);
    }

    #[test]
    fn bar_over_parallel_tempering_brackets_the_exact_log_z_over_seeds() {
        let rbm = Rbm::random(10, 6, 1.0, 5).unwrap();
        let data = Dataset::from_rows("ten", &[vec![0; 10], vec![1; 10]], None).unwrap();
        let exact = log_z(&rbm).unwrap();
        let mut errors = Vec::new();
        let mut inside = 0;
        for seed in 0..12 {
            let cfg = BarConfig {
                chains: 50,
                temperatures: 8,
                rounds: 100,
                burn_in: 20,
                seed,
            };
            let r = bar_log_z(&rbm, &data, &cfg).unwrap();
            assert_eq!((r.method, r.betas, r.particles), (METHOD, 8, 50));
            assert!(r.log_z_lo < r.log_z && r.log_z < r.log_z_hi);
            inside += usize::from(r.log_z_lo <= exact && exact <= r.log_z_hi);
            errors.push(r.log_z - exact);
        }
        let mean = errors.iter().sum::<f64>() / 12.0;
        let sd = (errors.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / 11.0).sqrt();
        assert!(sd < 0.1, "spread {sd}: {errors:?}");
        assert!(
            mean.abs() < 4.0 * sd / 12f64.sqrt() + 0.01,
            "bias {mean} (sd {sd})"
        );
        assert!(
            inside >= 9,
            "the ±3σ bars held the exact log Z in {inside} of 12 runs"
        );
    }

    #[test]
    fn a_seed_gives_the_same_run_and_bad_settings_are_refused() {
        let rbm = Rbm::random(5, 3, 1.0, 2).unwrap();
        let data = Dataset::from_rows("five", &[vec![1, 0, 1, 0, 1]], None).unwrap();
        let cfg = BarConfig {
            chains: 10,
            temperatures: 4,
            rounds: 20,
            burn_in: 5,
            seed: 9,
        };
        assert_eq!(
            bar_log_z(&rbm, &data, &cfg).unwrap(),
            bar_log_z(&rbm, &data, &cfg).unwrap()
        );
        assert_eq!(cfg.sweeps(), 10 * 4 * 25);
        for (bad, key) in [
            (BarConfig { rounds: 15, ..cfg }, "rounds"),
            (
                BarConfig {
                    temperatures: 1,
                    ..cfg
                },
                "temperatures",
            ),
            (BarConfig { chains: 0, ..cfg }, "chains"),
        ] {
            let e = bar_log_z(&rbm, &data, &bad).unwrap_err().to_string();
            assert!(e.contains(key) || e.contains("BAR"), "{e}");
        }
    }
}

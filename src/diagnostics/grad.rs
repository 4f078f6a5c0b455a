//! Bias and variance of a training algorithm's gradient estimate (what `rbm grad` prints).
//!
//! One repetition = one update with η = 0 of a fresh lane started at the given model: the
//! lane's gradient estimate pos − neg is recorded and the model stays unchanged. Repetitions
//! use independent sampling streams (lane index = repetition). Over R repetitions we report per
//! block (W, b, c) the exact gradient when the model can be enumerated, the mean estimate, its
//! standard error, the bias norm ‖mean − exact‖, and the variance of the UCD paper's
//! Appendix C, V = E‖f̂ − E f̂‖²_F, estimated across repetitions.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::eval::exact;
use crate::model::{Params, Rbm};
use crate::train::{Lane, LaneConfig};
use serde::Serialize;
use std::sync::Arc;

/// The estimate for one parameter block.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BlockEstimate {
    /// "W", "b" or "c".
    pub block: &'static str,
    /// Exact gradient E_data[s] − E_model[s] (when enumerable).
    pub exact: Option<Vec<f64>>,
    /// Mean of the estimates over the repetitions.
    pub mean: Vec<f64>,
    /// Standard error of each mean entry (sample s.d. / √R).
    pub std_err: Vec<f64>,
    /// ‖mean − exact‖₂ (when exact is known).
    pub bias_norm: Option<f64>,
    /// Largest |mean − exact| / std_err over the entries (when exact is known).
    pub max_z: Option<f64>,
    /// V = E‖f̂ − E f̂‖²_F across repetitions (UCD paper, Appendix C).
    pub variance: f64,
}

/// The whole estimate.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GradEstimate {
    /// Algorithm name.
    pub algo: String,
    /// Chains per repetition.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub chains: usize,
    /// Repetitions.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub reps: usize,
    /// Per block.
    pub blocks: Vec<BlockEstimate>,
}

/// One repetition: the gradient estimate pos − neg of one η = 0 update of a fresh lane at
/// `model`, with sampling stream `rep`. Repetitions are independent of each other, so callers
/// may compute them in any order or in parallel and feed them to an [`Accumulator`] in order.
pub fn repetition(
    model: &Rbm,
    data: Arc<Dataset>,
    cfg: &LaneConfig,
    rep: usize,
) -> Result<Params<f32>> {
    let c = LaneConfig {
        lr: 0.0,
        lane: rep as u64,
        weight_decay: 0.0,
        momentum: 0.0,
        ..cfg.clone()
    };
    let mut lane = Lane::with_model(c, data, model.clone())?;
    lane.step()?;
    Ok(lane.last_gradient().clone())
}

/// The whole estimate in three numbers over every parameter (W, b and c together): what the
/// page plots over training (the UCD paper's §5 argument: a biased estimator's mean moves away
/// from the exact gradient by more than its standard error).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GradSummary {
    /// ‖mean − exact‖₂ over all parameters (when exact is known).
    pub bias_norm: Option<f64>,
    /// cos∠(mean, exact) (when exact is known and both are non-zero).
    pub cosine: Option<f64>,
    /// √(Σ std_err²): the size of the mean's standard error over all parameters.
    pub std_err_norm: f64,
    /// ‖exact‖₂ (when known).
    pub exact_norm: Option<f64>,
}

impl GradEstimate {
    /// The estimate summed over its blocks.
    pub fn summary(&self) -> GradSummary {
        let se2: f64 = self
            .blocks
            .iter()
            .flat_map(|b| &b.std_err)
            .map(|s| s * s)
            .sum();
        let exact: Option<Vec<(f64, f64)>> = self
            .blocks
            .iter()
            .map(|b| {
                b.exact
                    .as_ref()
                    .map(|e| e.iter().copied().zip(b.mean.iter().copied()))
            })
            .collect::<Option<Vec<_>>>()
            .map(|v| v.into_iter().flatten().collect());
        let (bias_norm, cosine, exact_norm) = match exact {
            None => (None, None, None),
            Some(pairs) => {
                let (mut d2, mut dot, mut ee, mut mm) = (0.0, 0.0, 0.0, 0.0);
                for (e, m) in pairs {
                    d2 += (e - m) * (e - m);
                    dot += e * m;
                    ee += e * e;
                    mm += m * m;
                }
                let cos = (ee > 0.0 && mm > 0.0).then(|| dot / (ee.sqrt() * mm.sqrt()));
                (Some(d2.sqrt()), cos, Some(ee.sqrt()))
            }
        };
        GradSummary {
            bias_norm,
            cosine,
            std_err_norm: se2.sqrt(),
            exact_norm,
        }
    }
}

/// Running sums of the repetitions' estimates (in f64); the result depends only on the order
/// in which repetitions are added.
pub struct Accumulator {
    sum: Params<f64>,
    sum2: Params<f64>,
    reps: usize,
}

impl Accumulator {
    /// Empty sums for an m×n model.
    pub fn new(m: usize, n: usize) -> Accumulator {
        Accumulator {
            sum: Params::zeros(m, n),
            sum2: Params::zeros(m, n),
            reps: 0,
        }
    }

    /// Adds one repetition's estimate.
    pub fn add(&mut self, g: &Params<f32>) {
        for ((s, s2), x) in self
            .sum
            .blocks_mut()
            .into_iter()
            .zip(self.sum2.blocks_mut())
            .zip(g.blocks())
        {
            for ((a, a2), &v) in s.iter_mut().zip(s2.iter_mut()).zip(x.1) {
                *a += v as f64;
                *a2 += (v as f64) * (v as f64);
            }
        }
        self.reps += 1;
    }

    /// Repetitions added so far.
    pub fn reps(&self) -> usize {
        self.reps
    }

    /// Mean, standard error, bias and Appendix C variance per block, against `exact` when known.
    pub fn finish(
        &self,
        algo: &str,
        chains: usize,
        exact: Option<&Params<f64>>,
    ) -> Result<GradEstimate> {
        if self.reps < 2 {
            return Err(Error::Invalid(
                "reps must be at least 2 to estimate a standard error".into(),
            ));
        }
        let r = self.reps as f64;
        let mut blocks = Vec::new();
        for (k, ((name, s), (_, s2))) in self
            .sum
            .blocks()
            .into_iter()
            .zip(self.sum2.blocks())
            .enumerate()
        {
            let mean: Vec<f64> = s.iter().map(|a| a / r).collect();
            let var: Vec<f64> = s2
                .iter()
                .zip(&mean)
                .map(|(a2, mu)| ((a2 / r - mu * mu) * r / (r - 1.0)).max(0.0))
                .collect();
            let std_err: Vec<f64> = var.iter().map(|v| (v / r).sqrt()).collect();
            let ex = exact.map(|e| e.blocks()[k].1.to_vec());
            let bias_norm = ex.as_ref().map(|e| {
                e.iter()
                    .zip(&mean)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f64>()
                    .sqrt()
            });
            let max_z = ex.as_ref().map(|e| {
                e.iter()
                    .zip(&mean)
                    .zip(&std_err)
                    .map(|((a, b), se)| (a - b).abs() / se.max(1e-300))
                    .fold(0.0, f64::max)
            });
            blocks.push(BlockEstimate {
                block: name,
                exact: ex,
                mean,
                std_err,
                bias_norm,
                max_z,
                variance: var.iter().sum(),
            });
        }
        Ok(GradEstimate {
            algo: algo.to_string(),
            chains,
            reps: self.reps,
            blocks,
        })
    }
}

/// The exact gradient at `model`, when the smaller layer has at most [`exact::MAX_DIST_BITS`]
/// units (otherwise `None`).
pub fn exact_gradient(model: &Rbm, data: &Dataset) -> Result<Option<Params<f64>>> {
    exact::check_fit(model, data)?;
    if model.m().min(model.n()) <= exact::MAX_DIST_BITS {
        Ok(Some(exact::gradient(model, data)?))
    } else {
        Ok(None)
    }
}

/// Runs `reps` independent one-update estimates of `cfg.algo` at `model` on `data`, in order.
/// `cfg.seed` must be set; the learning rate is forced to 0. Exact values are computed when the
/// smaller layer has at most [`exact::MAX_DIST_BITS`] units.
pub fn estimate(
    model: &Rbm,
    data: Arc<Dataset>,
    cfg: &LaneConfig,
    reps: usize,
) -> Result<GradEstimate> {
    if reps < 2 {
        return Err(Error::Invalid(
            "reps must be at least 2 to estimate a standard error".into(),
        ));
    }
    let exact = exact_gradient(model, &data)?;
    let mut acc = Accumulator::new(model.m(), model.n());
    for rep in 0..reps {
        acc.add(&repetition(model, data.clone(), cfg, rep)?);
    }
    acc.finish(
        &cfg.algo,
        cfg.chains.unwrap_or(cfg.batch.unwrap_or(data.rows())),
        exact.as_ref(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_field_estimate_has_zero_variance_and_cd_is_biased_at_a_random_model() {
        let data = Arc::new(Dataset::parse("t", "110010\n011001\n100111\n000110\n").unwrap());
        let model = Rbm::random(6, 4, 1.0, 5).unwrap();
        let cfg = LaneConfig {
            algo: "mf-cd".into(),
            seed: Some(1),
            ..Default::default()
        };
        let e = estimate(&model, data.clone(), &cfg, 3).unwrap();
        assert!(e.blocks.iter().all(|b| b.variance < 1e-20));
        let cd = LaneConfig {
            algo: "cd".into(),
            chains: Some(400),
            seed: Some(1),
            ..Default::default()
        };
        let e = estimate(&model, data, &cd, 50).unwrap();
        assert!(
            e.blocks[0].max_z.unwrap() > 5.0,
            "CD-1 at a random N(0,1) model is visibly biased"
        );
        assert!(e.blocks.iter().all(|b| b.variance > 0.0));
        let s = e.summary();
        let per_block: f64 = e.blocks.iter().map(|b| b.bias_norm.unwrap().powi(2)).sum();
        assert!((s.bias_norm.unwrap() - per_block.sqrt()).abs() < 1e-12);
        let c = s.cosine.unwrap();
        assert!(c > -1.0 && c < 1.0, "{c}");
        assert!(s.std_err_norm > 0.0);
        // A data set of another width is an error, not a panic.
        let other = Dataset::builtin("bas3").unwrap();
        assert!(exact_gradient(&model, &other).is_err());
    }

    /// The summary's cosine and norms against straightforward sums of a hand-made estimate.
    #[test]
    fn the_summary_is_the_sums_over_all_blocks() {
        let block = |name, exact: Vec<f64>, mean: Vec<f64>, se: Vec<f64>| BlockEstimate {
            block: name,
            exact: Some(exact),
            mean,
            std_err: se,
            bias_norm: None,
            max_z: None,
            variance: 0.0,
        };
        let e = GradEstimate {
            algo: "cd".into(),
            chains: 1,
            reps: 2,
            blocks: vec![
                block("W", vec![1.0, 0.0], vec![1.0, 1.0], vec![0.3, 0.4]),
                block("b", vec![0.0], vec![0.0], vec![0.0]),
                block("c", vec![0.0], vec![-1.0], vec![1.2]),
            ],
        };
        let s = e.summary();
        assert_eq!(s.bias_norm, Some(2f64.sqrt()));
        assert_eq!(s.exact_norm, Some(1.0));
        assert!((s.cosine.unwrap() - 1.0 / 3f64.sqrt()).abs() < 1e-15);
        assert!((s.std_err_norm - (0.09f64 + 0.16 + 1.44).sqrt()).abs() < 1e-15);
        let mut no_exact = e.clone();
        no_exact.blocks[1].exact = None;
        assert_eq!(no_exact.summary().cosine, None);
    }
}

//! Bias and variance of a training algorithm's gradient estimate (what `rbm grad` prints).
//!
//! One repetition = one update with η = 0 of a fresh lane started at the given model: the
//! lane's gradient estimate pos − neg is recorded and the model stays unchanged. Repetitions
//! use independent sampling streams (lane index = repetition). Over R repetitions we report per
//! block (W, b, c) the exact gradient when the model can be enumerated, the mean estimate, its
//! standard error, the bias norm ‖mean − exact‖, and the variance of the UCD paper's
//! Appendix C, V = E‖f̂ − E f̂‖²_F, estimated across repetitions.

use super::exact;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::{Params, Rbm};
use crate::train::{Lane, LaneConfig};
use serde::Serialize;
use std::sync::Arc;

/// The estimate for one parameter block.
#[derive(Clone, Debug, Serialize)]
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
pub struct GradEstimate {
    /// Algorithm name.
    pub algo: String,
    /// Chains per repetition.
    pub chains: usize,
    /// Repetitions.
    pub reps: usize,
    /// Per block.
    pub blocks: Vec<BlockEstimate>,
}

/// Runs `reps` independent one-update estimates of `cfg.algo` at `model` on `data`.
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
    let exact = if model.m().min(model.n()) <= exact::MAX_DIST_BITS {
        Some(exact::gradient(model, &data)?)
    } else {
        None
    };
    let (m, n) = (model.m(), model.n());
    let mut sum = Params::<f64>::zeros(m, n);
    let mut sum2 = Params::<f64>::zeros(m, n);
    for rep in 0..reps {
        let c = LaneConfig {
            lr: 0.0,
            lane: rep as u64,
            weight_decay: 0.0,
            momentum: 0.0,
            ..cfg.clone()
        };
        let mut lane = Lane::with_model(c, data.clone(), model.clone())?;
        lane.step()?;
        let g = lane.last_gradient();
        for ((s, s2), x) in sum
            .blocks_mut()
            .into_iter()
            .zip(sum2.blocks_mut())
            .zip(g.blocks())
        {
            for ((a, a2), &v) in s.iter_mut().zip(s2.iter_mut()).zip(x.1) {
                *a += v as f64;
                *a2 += (v as f64) * (v as f64);
            }
        }
    }
    let r = reps as f64;
    let mut blocks = Vec::new();
    for (k, ((name, s), (_, s2))) in sum.blocks().into_iter().zip(sum2.blocks()).enumerate() {
        let mean: Vec<f64> = s.iter().map(|a| a / r).collect();
        let var: Vec<f64> = s2
            .iter()
            .zip(&mean)
            .map(|(a2, mu)| ((a2 / r - mu * mu) * r / (r - 1.0)).max(0.0))
            .collect();
        let std_err: Vec<f64> = var.iter().map(|v| (v / r).sqrt()).collect();
        let ex = exact.as_ref().map(|e| e.blocks()[k].1.to_vec());
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
        algo: cfg.algo.clone(),
        chains: cfg.chains.unwrap_or(data.rows()),
        reps,
        blocks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{normal, stream, Purpose};

    #[test]
    fn mean_field_estimate_has_zero_variance_and_cd_is_biased_at_a_random_model() {
        let data = Arc::new(Dataset::parse("t", "110010\n011001\n100111\n000110\n").unwrap());
        let mut r = stream(5, 0, Purpose::Aux);
        let mut p = Params::zeros(6, 4);
        for blk in p.blocks_mut() {
            blk.iter_mut().for_each(|x| *x = normal(&mut r) as f32);
        }
        let model = Rbm::from_params(6, 4, p).unwrap();
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
    }
}

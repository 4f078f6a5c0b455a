//! The model's distribution seen from a data set (docs/algorithms.md §2): the probability of
//! each distinct training pattern against its frequency, the mass off the data, and the most
//! probable patterns — what the page's distribution panel and `rbm loglik` show.

use super::exact;
use crate::data::{decode, Dataset};
use crate::error::Result;
use crate::model::Rbm;
use serde::Serialize;

/// The model distribution over a data set's distinct patterns.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Distribution {
    /// p_model(v) of each distinct pattern, in the order of [`Dataset::distinct`].
    pub model: Vec<f64>,
    /// The empirical probability of each distinct pattern (count / rows).
    pub data: Vec<f64>,
    /// Model mass on the data set's patterns: Σ model.
    pub on: f64,
    /// Model mass off the data set's patterns: 1 − Σ model (never below 0).
    pub off: f64,
    /// log Z of the model these numbers describe.
    pub log_z: f64,
}

/// The distribution of `model` over the distinct patterns of `data`, given its exact `log_z`
/// (pass [`exact::log_z`] of the model, or a log Z computed for it already).
pub fn distribution(model: &Rbm, data: &Dataset, log_z: f64) -> Distribution {
    let rows = data.rows() as f64;
    let mut d = Distribution {
        model: Vec::new(),
        data: Vec::new(),
        on: 0.0,
        off: 1.0,
        log_z,
    };
    for (_, count, lp) in exact::pattern_log_probs(model, data, log_z) {
        let p = libm::exp(lp);
        d.model.push(p);
        d.data.push(count as f64 / rows);
        d.off -= p;
        d.on += p;
    }
    d.off = d.off.max(0.0);
    d
}

/// One visible pattern and its exact probability.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Pattern {
    /// Units as a 0/1 string, in the data-file format.
    pub pattern: String,
    /// p(v).
    pub p: f64,
    /// Whether the pattern occurs in the data set.
    pub in_data: bool,
}

/// The `top` most probable visible patterns of `model` (ties broken by pattern code, so the
/// list is deterministic), from the full distribution (m ≤ [`exact::MAX_DIST_BITS`]).
pub fn top_patterns(model: &Rbm, data: &Dataset, top: usize) -> Result<Vec<Pattern>> {
    let p = exact::model_distribution(model)?;
    let distinct = data.distinct();
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
    Ok(order
        .into_iter()
        .take(top)
        .map(|code| Pattern {
            pattern: decode(code as u64, model.m())
                .iter()
                .map(|&x| if x != 0.0 { '1' } else { '0' })
                .collect(),
            p: p[code],
            in_data: distinct.iter().any(|&(c, _)| c == code as u64),
        })
        .collect())
}

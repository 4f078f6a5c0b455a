//! `rbm loglik`: the exact log-likelihood of a data set under a saved model (docs/algorithms.md §2).

use super::common::{check_fit, load_data, load_model, CliResult, Out};
use crate::data::{decode, Dataset};
use crate::eval::exact;
use crate::model::Rbm;
use clap::Args;
use serde::Serialize;

/// Options of `rbm loglik`.
#[derive(Args, Debug)]
pub struct LoglikArgs {
    /// Model file: {"visible": m, "hidden": n, "w": [m·n, row-major], "b": [m], "c": [n]}
    #[arg(long)]
    model: String,
    /// Built-in data set (bas3, shifting-bar, bas4) or a file with one 0/1 pattern per line
    #[arg(long)]
    data: String,
    /// How many of the most probable patterns to list (models with ≤ 20 visible units)
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Threads for the enumeration of log Z (default: all cores; the result does not depend on it)
    #[arg(long)]
    threads: Option<usize>,
}

/// One visible pattern and its exact probability.
#[derive(Serialize)]
struct Pattern {
    /// Units as a 0/1 string, in the data-file format.
    pattern: String,
    /// p(v).
    p: f64,
    /// Whether the pattern occurs in the data set.
    in_data: bool,
}

/// What `rbm loglik` prints.
#[derive(Serialize)]
struct Report {
    data: String,
    visible: usize,
    hidden: usize,
    #[serde(flatten)]
    eval: exact::Evaluation,
    /// Total model probability of the distinct patterns of the data set (m ≤ 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    mass_on_data: Option<f64>,
    /// Number of distinct patterns in the data set (m ≤ 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    distinct: Option<usize>,
    /// The most probable patterns under the model (m ≤ 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    top: Option<Vec<Pattern>>,
}

fn pattern_string(code: u64, m: usize) -> String {
    decode(code, m)
        .iter()
        .map(|&x| if x != 0.0 { '1' } else { '0' })
        .collect()
}

/// Mass on the data's distinct patterns and the `top` most probable patterns, from the full
/// model distribution (m ≤ [`exact::MAX_DIST_BITS`]).
fn distribution_facts(
    model: &Rbm,
    data: &Dataset,
    top: usize,
) -> CliResult<(f64, usize, Vec<Pattern>)> {
    let p = exact::model_distribution(model)?;
    let distinct = data.distinct();
    let mass = distinct.iter().map(|&(code, _)| p[code as usize]).sum();
    let mut order: Vec<usize> = (0..p.len()).collect();
    // Ties broken by pattern code, so the listing is deterministic.
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
    let pats = order
        .into_iter()
        .take(top)
        .map(|code| Pattern {
            pattern: pattern_string(code as u64, model.m()),
            p: p[code],
            in_data: distinct.iter().any(|&(c, _)| c == code as u64),
        })
        .collect();
    Ok((mass, distinct.len(), pats))
}

/// Runs `rbm loglik`.
pub fn run(a: LoglikArgs, out: &mut Out) -> CliResult {
    let model = load_model(&a.model)?;
    let data = load_data(&a.data)?;
    check_fit(&model, &data)?;
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let eval = exact::evaluate_given(&model, &data, exact::log_z_threaded(&model, threads)?)?;
    let (mass_on_data, distinct, top) = if model.m() <= exact::MAX_DIST_BITS {
        let (mass, d, t) = distribution_facts(&model, &data, a.top)?;
        (Some(mass), Some(d), Some(t))
    } else {
        (None, None, None)
    };
    out.line(&Report {
        data: data.name.clone(),
        visible: model.m(),
        hidden: model.n(),
        eval,
        mass_on_data,
        distinct,
        top,
    })
}

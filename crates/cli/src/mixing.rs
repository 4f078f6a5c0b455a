//! `rbm mixing`: exact diagnostics of a small model (issue 29; `rbm_core::diagnostics::spectrum`):
//! the second eigenvalue λ₂ of the visible Gibbs chain and its relaxation time, the singular
//! values of W, and the number of modes of p(v); with `--data`, the data rows projected on W's
//! top two singular directions. Beyond the exact kernel (m + n > 24) λ₂ is bounded from below
//! (`rbm_core::diagnostics::mixing_bound`), in a `bound` object; `--bound` prints it beside the
//! exact value.

use super::common::{check_fit, load_data, load_model, CliResult, Out};
use clap::Args;
use rbm_core::diagnostics::spectrum::{self, Diagnostics};
use serde::Serialize;

/// Options of `rbm mixing`.
#[derive(Args, Debug)]
pub struct MixingCmd {
    /// Model file with m ≤ 20 visible units: λ₂ exactly for m + n ≤ 24 (e.g. 16×8 on Bars &
    /// Stripes 4×4), a lower bound on it for n ≤ 20 beyond (16×16)
    #[arg(long)]
    model: String,
    /// Also print the lower bound on λ₂ where the exact value is printed
    #[arg(long)]
    bound: bool,
    /// Data set whose rows are projected on W's top two left singular directions (optional)
    #[arg(long)]
    data: Option<String>,
}

/// What `rbm mixing` prints (one line).
#[derive(Serialize)]
struct Report {
    visible: usize,
    hidden: usize,
    #[serde(flatten)]
    diagnostics: Diagnostics,
    /// W's top two left singular vectors u₁, u₂ (visible space), each signed to sum to ≥ 0.
    directions: [Vec<f64>; 2],
    /// With --data: the name of the data set and each row's (v·u₁, v·u₂).
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data_projection: Option<Vec<[f64; 2]>>,
}

/// Runs `rbm mixing`: a model beyond the exact limits is refused with an error naming them.
pub fn run(a: MixingCmd, out: &mut Out) -> CliResult {
    let model = load_model(&a.model)?;
    let data = match &a.data {
        Some(d) => {
            let data = load_data(d)?;
            check_fit(&model, &data)?;
            Some(data)
        }
        None => None,
    };
    let diagnostics = spectrum::diagnose(&model, a.bound)?;
    let ws = spectrum::weight_spectrum(&model);
    out.line(&Report {
        visible: model.m(),
        hidden: model.n(),
        diagnostics,
        data: data.as_ref().map(|d| d.name.clone()),
        data_projection: data.as_ref().map(|d| spectrum::project(&d.values, &ws)),
        directions: ws.visible,
    })
}

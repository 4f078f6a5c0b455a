//! The claims explorer in the page (issue 29): the shell's translation of
//! [`rbm_core::experiments::explore`]. [`explore_plan`] lays out a grid of a preset on a small
//! data set as the core does for `rbm explore` — each cell's settings, whether it is the
//! preset's own point, each lane's configuration as the cell's study builds it
//! ([`Study::lane_config`]; a trial worker replaces its seed by the trial's, as
//! [`Study::trial`] does) and the cost model's estimate at the page's speeds — and
//! [`explore_judge`] judges a finished cell's bands with the core's [`judge`], so a cell's
//! verdicts and numbers are `rbm explore`'s for the same preset, grid and seed.

use crate::{internal, js_err, to_js};
use rbm_core::data::Dataset;
use rbm_core::error::Error;
use rbm_core::experiments::claims::LaneBand;
use rbm_core::experiments::explore::{
    cell_study, grid_estimate, is_preset_point, judge, own_init_sigma, Grid, GridRequest, Settings,
};
use rbm_core::experiments::find_preset;
use rbm_core::experiments::trials::StudyRequest;
use rbm_core::schema::budget;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// What the page asks of a grid (`rbm explore PRESET --seed … --trials-per-cell … --iters …
/// --every …` and the axes swept; an axis left out is the preset's own setting).
#[derive(Deserialize, Debug, Default, Clone)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExploreRequest {
    /// The seed (`--seed`), a whole number below 2^53.
    pub seed: f64,
    /// Trials per cell and lane (`--trials-per-cell`).
    pub trials_per_cell: usize,
    /// Updates per trial (`--iters`).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iters: u64,
    /// Evaluation interval in updates (`--every`).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub every: u64,
    /// `--lrs` (absent: the preset's rates).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub lrs: Option<Vec<f64>>,
    /// `--init-sigmas`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub init_sigmas: Option<Vec<f64>>,
    /// `--ks`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ks: Option<Vec<f64>>,
    /// `--ds`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ds: Option<Vec<f64>>,
    /// `--kprimes`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub kprimes: Option<Vec<f64>>,
    /// `--chains`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub chains: Option<Vec<f64>>,
    /// `--batches`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub batches: Option<Vec<f64>>,
}

/// One lane of every cell (a group of the cell's study).
#[derive(Serialize, Debug)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExploreLane {
    /// The lane's label in the preset (the name its claims use).
    pub label: String,
    /// Its algorithm.
    pub algo: String,
}

/// One cell of the grid.
#[derive(Serialize, Debug)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExploreCell {
    /// Its index in the grid (learning rate slowest, as `rbm explore` numbers cells).
    pub cell: usize,
    /// Its settings (null: the preset's own).
    pub settings: Settings,
    /// Whether it is the preset's own setting.
    pub preset_point: bool,
    /// Each lane's configuration, in [`ExplorePlan::lanes`]' order, seeded with the grid's
    /// seed (a trial's worker seeds it as the trial).
    #[cfg_attr(feature = "ts", ts(type = "Record<string, number | string | null>[]"))]
    pub configs: Vec<serde_json::Value>,
}

/// The cost model's estimate of the whole grid at the page's speeds.
#[derive(Serialize, Debug)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExploreCost {
    /// Seconds of training on one core.
    pub train_secs: f64,
    /// Seconds of the exact measurements on one core.
    pub eval_secs: f64,
    /// Wall seconds on the page's trial workers.
    pub wall_secs: f64,
}

/// A grid laid out for the page's trial workers.
#[derive(Serialize, Debug)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExplorePlan {
    /// Trials per cell and lane.
    pub runs: usize,
    /// Updates per trial.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iters: u64,
    /// Evaluation interval.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub every: u64,
    /// The initialisation's own σ (where a cell's σ is null).
    pub own_init_sigma: f64,
    /// The lanes every cell runs.
    pub lanes: Vec<ExploreLane>,
    /// The claims judged in every cell.
    pub claims: Vec<String>,
    /// The cells, in grid order.
    pub cells: Vec<ExploreCell>,
    /// How long the grid takes, by the cost model.
    pub estimate: ExploreCost,
}

/// One claim judged in one cell: `rbm explore`'s `claim` line without the cell's settings
/// (a number that is not finite is null, as in the command line's JSON).
#[derive(Serialize, Debug)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExploreVerdict {
    /// The claim's text.
    pub claim: String,
    /// `holds`, `fails` or `undecided`.
    pub status: rbm_core::experiments::claims::Status,
    /// The verdict as yes/no (null: not decided).
    pub holds: Option<bool>,
    /// The numbers behind it, in words.
    pub detail: String,
    /// Trials behind the medians it read.
    pub trials: usize,
    /// What `value` is (null: not decided).
    pub quantity: Option<String>,
    /// The number the claim is judged by.
    pub value: Option<f64>,
    /// Its signed distance from the claim's threshold (positive: holds).
    pub margin: Option<f64>,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The grid `req` asks of preset `preset`, with the estimate for `workers` trial workers: the
/// core's [`Grid`], [`cell_study`] per cell, [`is_preset_point`] and [`grid_estimate`]. Errors
/// name the setting at fault (`lrs`, `init-sigmas`, …, `runs`, `iters`, `every`, `seed`).
pub fn plan(preset: &str, req: &ExploreRequest, workers: usize) -> Result<ExplorePlan, Error> {
    let p = find_preset(preset)?;
    if !(req.seed >= 0.0
        && req.seed <= rbm_core::schema::options::MAX_SEED as f64
        && req.seed.fract() == 0.0)
    {
        return Err(Error::option(
            "seed",
            format!(
                "the seed must be a whole number from 0 to 2^53 - 1, got {}",
                req.seed
            ),
        ));
    }
    let seed = req.seed as u64;
    let grid = Grid::new(
        p,
        &GridRequest {
            lrs: req.lrs.clone(),
            init_sigmas: req.init_sigmas.clone(),
            ks: req.ks.clone(),
            ds: req.ds.clone(),
            kprimes: req.kprimes.clone(),
            chains: req.chains.clone(),
            batches: req.batches.clone(),
        },
    )?;
    let base = StudyRequest {
        runs: Some(req.trials_per_cell),
        iters: Some(req.iters),
        every: Some(req.every),
        ..StudyRequest::default()
    };
    let data = Arc::new(p.dataset()?);
    let eval = p.eval_data.map(Dataset::builtin).transpose()?.map(Arc::new);
    let mut studies = Vec::with_capacity(grid.len());
    let mut cells = Vec::with_capacity(grid.len());
    for i in 0..grid.len() {
        let s = grid.cell(i);
        let st = cell_study(p, &base, &s, seed, data.clone(), eval.clone())?;
        let configs = (0..st.groups.len())
            .map(|g| {
                let cfg = st.lane_config(g, seed)?;
                serde_json::to_value(&cfg).map_err(|e| Error::Invalid(e.to_string()))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        cells.push(ExploreCell {
            cell: i,
            preset_point: is_preset_point(p, &s)?,
            settings: s,
            configs,
        });
        studies.push(st);
    }
    let cost = grid_estimate(&studies, &budget::PAGE, workers)?;
    let s0 = &studies[0];
    Ok(ExplorePlan {
        runs: s0.runs,
        iters: s0.iters,
        every: s0.every,
        own_init_sigma: own_init_sigma(p.init),
        lanes: s0
            .groups
            .iter()
            .map(|&(li, _)| ExploreLane {
                label: p.lanes[li].label.to_string(),
                algo: p.lanes[li].algo.to_string(),
            })
            .collect(),
        claims: p.claims.iter().map(|c| c.text.to_string()).collect(),
        cells,
        estimate: ExploreCost {
            train_secs: cost.train_secs,
            eval_secs: cost.eval_secs,
            wall_secs: cost.wall_secs,
        },
    })
}

/// Every claim of preset `preset` judged on a finished cell's bands (`bands`: each lane's
/// medians, as the page's study computes them; `end`: the last checkpoint) against the preset's
/// data's bound: the core's [`judge`], as `rbm explore` judges a cell.
pub fn judge_cell(
    preset: &str,
    bands: &[LaneBand],
    end: u64,
) -> Result<Vec<ExploreVerdict>, Error> {
    let p = find_preset(preset)?;
    let bound = match p.eval_data {
        None => p.dataset()?.bound(),
        Some(e) => Dataset::builtin(e)?.bound(),
    };
    Ok(judge(p.claims, bands, end, bound)
        .into_iter()
        .map(|v| ExploreVerdict {
            claim: v.claim.to_string(),
            status: v.status,
            holds: v.holds,
            detail: v.detail,
            trials: v.trials,
            quantity: v.measured.as_ref().map(|m| m.quantity.to_string()),
            value: v.measured.as_ref().and_then(|m| finite(m.value)),
            margin: v.measured.as_ref().and_then(|m| finite(m.margin)),
        })
        .collect())
}

/// [`plan`] for the page: `request` is an [`ExploreRequest`]; returns an [`ExplorePlan`] or
/// throws `{kind, key, message}`.
#[wasm_bindgen(js_name = explorePlan)]
pub fn explore_plan(preset: &str, request: JsValue, workers: u32) -> Result<JsValue, JsValue> {
    let req: ExploreRequest = serde_wasm_bindgen::from_value(request)
        .map_err(|e| internal(format!("the explorer's request: {e}")))?;
    to_js(&plan(preset, &req, workers as usize).map_err(js_err)?)
}

/// [`judge_cell`] for the page: `bands` is a `LaneBand[]`; returns `ExploreVerdict[]` or throws
/// `{kind, key, message}`.
#[wasm_bindgen(js_name = exploreJudge)]
pub fn explore_judge(preset: &str, bands: JsValue, end: f64) -> Result<JsValue, JsValue> {
    let bands: Vec<LaneBand> = serde_wasm_bindgen::from_value(bands)
        .map_err(|e| internal(format!("the cell's bands: {e}")))?;
    to_js(&judge_cell(preset, &bands, end as u64).map_err(js_err)?)
}

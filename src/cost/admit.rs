//! Admission: a configuration checked against a shell's budget, and the lanes built once it
//! is. These are methods of [`LaneConfig`] and [`Lane`] (the same paths for every caller), but
//! they are defined here, beside the check they run first, so that `train` needs nothing of
//! the cost model: `train` checks the options and sizes ([`LaneConfig::check_options`]) and
//! builds an admitted lane (`Lane::admitted`); this module puts the cost check between the two.

use super::{check_lane, LaneCost};
use crate::data::Dataset;
use crate::engine::Engine;
use crate::error::Result;
use crate::model::Rbm;
use crate::schema::budget::{Budget, CLI};
use crate::train::resume::Training;
use crate::train::{Lane, LaneConfig};
use std::sync::Arc;

impl LaneConfig {
    /// Checks every option against its schema and against `data`, and the lane's cost against
    /// the command line's budget ([`CLI`]), with an error naming the option at fault.
    pub fn validate(&self, data: &Dataset) -> Result<()> {
        self.validate_for(data, &CLI).map(drop)
    }

    /// [`LaneConfig::validate`] against the `budget` of a shell: the schema, the data, the
    /// size limits ([`LaneConfig::check_options`]), then the cost model ([`check_lane`]), whose
    /// estimate is returned (with the reason when the budget drops the exact curve).
    pub fn validate_for(&self, data: &Dataset, budget: &Budget) -> Result<LaneCost> {
        self.check_options(data)?;
        check_lane(self, data, budget)
    }
}

/// The lane of `cfg` on `data` (from `model` when given) once `cfg` fits `budget`: what exceeds
/// it is refused before anything is allocated; an exact evaluation the budget drops leaves the
/// lane without its exact curve, saying why ([`Lane::notice`]).
fn build(cfg: LaneConfig, data: Arc<Dataset>, model: Option<Rbm>, budget: &Budget) -> Result<Lane> {
    let cost = cfg.validate_for(&data, budget)?;
    Lane::admitted(cfg, data, model, cost.eval_secs.is_some(), cost.dropped)
}

/// [`build`] from `model`, `cfg.hidden` taken from it.
fn build_from(cfg: LaneConfig, data: Arc<Dataset>, model: Rbm, budget: &Budget) -> Result<Lane> {
    let cfg = LaneConfig {
        hidden: model.n(),
        ..cfg
    };
    build(cfg, data, Some(model), budget)
}

impl Lane {
    /// A new lane within the command line's budget ([`CLI`]): validates `cfg`, initialises the
    /// model from the seed's `Init` stream (shared by all lanes of a seed, so lanes start from
    /// the same model) and builds the algorithm.
    pub fn new(cfg: LaneConfig, data: Arc<Dataset>) -> Result<Lane> {
        build(cfg, data, None, &CLI)
    }

    /// [`Lane::new`] within a shell's `budget` (the page's wasm shell passes
    /// [`crate::schema::budget::PAGE`]): what exceeds it is refused before anything is
    /// allocated, and an exact evaluation the budget drops leaves the lane without its exact
    /// curve, saying why ([`Lane::notice`]).
    pub fn within(cfg: LaneConfig, data: Arc<Dataset>, budget: &Budget) -> Result<Lane> {
        build(cfg, data, None, budget)
    }

    /// [`Lane::new`] with its dense work on engine `E` at `dev` (a GPU): the same admission
    /// within the command line's budget, model initialisation, data order and records; the
    /// draws are the engine's own.
    pub fn on<E: Engine>(dev: &E::Device, cfg: LaneConfig, data: Arc<Dataset>) -> Result<Lane<E>> {
        Lane::on_within(dev, cfg, data, &CLI)
    }

    /// [`Lane::on`] within `budget` (the page's, for a GPU lane in a browser worker).
    pub fn on_within<E: Engine>(
        dev: &E::Device,
        cfg: LaneConfig,
        data: Arc<Dataset>,
        budget: &Budget,
    ) -> Result<Lane<E>> {
        let cost = cfg.validate_for(&data, budget)?;
        Lane::admitted_on(dev, cfg, data, None, cost.eval_secs.is_some(), cost.dropped)
    }

    /// A lane that starts from a given model instead of a fresh initialisation (`cfg.hidden`
    /// and `cfg.init` are ignored; the model's sizes must fit the data), within the command
    /// line's budget.
    pub fn with_model(cfg: LaneConfig, data: Arc<Dataset>, model: Rbm) -> Result<Lane> {
        build_from(cfg, data, model, &CLI)
    }

    /// A lane that continues the model of a file within `budget`: configuration `cfg` (see
    /// [`crate::train::resume::resume_config`]), its counters from the file's record (update 0
    /// without one), fresh chains and random streams from the seed. Its first record is that
    /// of the loaded model at the saved update, with the same exact log-likelihood the saving
    /// lane had there.
    pub fn resume(
        cfg: LaneConfig,
        data: Arc<Dataset>,
        model: Rbm,
        recorded: Option<&Training>,
        budget: &Budget,
    ) -> Result<Lane> {
        let mut lane = build_from(cfg, data, model, budget)?;
        lane.resume_counters(recorded);
        Ok(lane)
    }
}

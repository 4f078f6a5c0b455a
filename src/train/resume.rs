//! A lane's model file with its training recorded, and a lane continued from one: the page's
//! "Download model" writes [`Lane::model_file`], its "Load model…" reads it back with
//! [`read_model_file`] and [`Lane::resume`] goes on from the saved update with the recorded
//! settings. The file stays a plain model file for every other reader (the CLI's `--model`).

use super::config::option;
use super::{Lane, LaneConfig};
use crate::data::gzip::MAX_FILE_BYTES;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::model::Rbm;
use crate::schema::Scope;
use serde::{Deserialize, Serialize};

/// The largest model file a shell reads, gzipped or not: every input file's limit
/// ([`MAX_FILE_BYTES`]), which holds the JSON file of the largest lane the page admits (a
/// 784×500 model is about 8 MB of JSON, 1.6 MB binary; 784×5000 about 81 MB of JSON).
pub const MAX_MODEL_FILE_BYTES: usize = MAX_FILE_BYTES;

/// How a lane trained the model of its file: its configuration, the data set and its counters
/// when saved.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Training {
    /// The lane's configuration (every option, `algo` and `lane`).
    pub config: LaneConfig,
    /// The data set's name.
    pub data: String,
    /// Updates done.
    pub iter: u64,
    /// Gibbs sweeps per chain spent.
    pub sweeps: f64,
    /// v|h half-steps per chain spent.
    pub vh_steps: f64,
}

/// A model file's model and, when a lane saved it, its training record — checked: the size
/// (at most [`MAX_MODEL_FILE_BYTES`]), the format, the parameters, and every recorded option
/// against the schema. Errors say what is wrong with the file.
pub fn read_model_file(bytes: &[u8]) -> Result<(Rbm, Option<Training>)> {
    if bytes.len() > MAX_MODEL_FILE_BYTES {
        return Err(Error::TooLarge(format!(
            "model file: {} bytes, more than the {} MB a model file may have",
            bytes.len(),
            MAX_MODEL_FILE_BYTES >> 20
        )));
    }
    let (rbm, training) = Rbm::from_file_bytes_with(bytes)?;
    let Some(t) = training else {
        return Ok((rbm, None));
    };
    let bad = |m: String| Error::Parse(format!("model file: its training record: {m}"));
    let obj = t.as_object().ok_or_else(|| bad("not an object".into()))?;
    let mut t: Training = serde_json::from_value(serde_json::Value::Object(obj.clone()))
        .map_err(|e| bad(e.to_string()))?;
    // Through the schema's checks, as any configuration the page sends.
    let cfg = obj
        .get("config")
        .and_then(|c| c.as_object())
        .ok_or_else(|| bad("no configuration".into()))?;
    t.config = LaneConfig::from_object(cfg).map_err(|e| bad(e.to_string()))?;
    if !(t.sweeps.is_finite() && t.sweeps >= 0.0 && t.vh_steps.is_finite() && t.vh_steps >= 0.0) {
        return Err(bad("negative or non-finite counters".into()));
    }
    if t.config.hidden != rbm.n() {
        return Err(bad(format!(
            "it records {} hidden units, the model has {}",
            t.config.hidden,
            rbm.n()
        )));
    }
    Ok((rbm, Some(t)))
}

/// The configuration a lane continues with from a file: the lane's own (`current`: its shared
/// options, index and seed are the page's), with every per-lane option the file recorded when
/// it was trained by the same algorithm (another algorithm's options may not mean the same), and
/// the model's hidden units.
pub fn resume_config(current: &LaneConfig, recorded: Option<&Training>, model: &Rbm) -> LaneConfig {
    let mut cfg = current.clone();
    if let Some(t) = recorded.filter(|t| t.config.algo == current.algo) {
        for key in super::find(&current.algo)
            .map(|a| a.options)
            .unwrap_or(&[])
            .iter()
            .chain(super::config::GENERAL)
            .map(|o| o.key)
        {
            let lane_scope = option(key).is_some_and(|o| o.scope == Scope::Lane);
            if let (true, Ok(v)) = (lane_scope, t.config.get(key)) {
                // Checked when the file was read: the value is valid.
                let _ = cfg.set(key, v);
            }
        }
    }
    cfg.hidden = model.n();
    cfg
}

impl<E: Engine> Lane<E> {
    /// The model file of `model`, this lane's model at update `iter` after `sweeps` sweeps and
    /// `vh_steps` half-steps ([`Rbm::to_json`]), with its [`Training`] record: configuration,
    /// data set and those counters (a shell whose engine hands the model back later).
    pub fn model_file_at(&self, model: &Rbm, iter: u64, sweeps: f64, vh_steps: f64) -> String {
        let t = Training {
            config: self.config().clone(),
            data: self.data().name.clone(),
            iter,
            sweeps,
            vh_steps,
        };
        model.to_json_with(serde_json::to_value(t).expect("a configuration serialises"))
    }
}

impl Lane {
    /// The model file of the lane's current model ([`Rbm::to_json`]) with its [`Training`]
    /// record: configuration, data set and counters.
    pub fn model_file(&self) -> String {
        self.model_file_at(self.model(), self.iter(), self.sweeps(), self.vh_steps())
    }

    /// Takes the counters of a file's training record, when it has one, for a lane continued
    /// from the file that has not run yet ([`Lane::resume`], built within a budget by the cost
    /// model); without one the lane starts at update 0.
    pub(crate) fn resume_counters(&mut self, recorded: Option<&Training>) {
        if let Some(t) = recorded {
            self.set_counters(t.iter, t.sweeps, t.vh_steps);
        }
    }
}

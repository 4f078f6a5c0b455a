//! The papers' small-data experiments as data (docs/algorithms.md §6) and their trials
//! ([`trials`]): the trial runner, quantiles of the exact ATLL across trials at each checkpoint
//! and per-lane summaries.
//!
//! Everything here is plain computation, so the native `rbm reproduce` (which runs the trials
//! on threads) and the page (which runs them in Web Workers) share one definition of each
//! preset, of each trial and of each reported number.

pub mod trials;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::Init;
use crate::train::config::option;
use crate::train::LaneConfig;
use serde::Serialize;

/// One algorithm of a preset, with the options it overrides as a person would type them
/// (key, value); every other option keeps its [`LaneConfig::default`] value.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PresetLane {
    /// Registered algorithm name (see [`crate::train::ALGORITHMS`]).
    pub algo: &'static str,
    /// Label as the paper names it (e.g. "CD-12").
    pub label: &'static str,
    /// Options that differ from the defaults, by key (see [`crate::train::config::options`]).
    pub options: &'static [(&'static str, &'static str)],
}

/// A published experiment: one data set and model size, several algorithms and learning
/// rates, a number of updates and of independent trials.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Preset {
    /// Name used by `rbm reproduce NAME` and the page.
    pub name: &'static str,
    /// One-line description.
    pub title: &'static str,
    /// Where the settings come from.
    pub paper: &'static str,
    /// Built-in data set name.
    pub data: &'static str,
    /// Hidden units n.
    pub hidden: usize,
    /// Initialisation.
    pub init: Init,
    /// Negative chains (`None`: as many as batch rows).
    pub chains: Option<usize>,
    /// Mini-batch size (`None`: the whole data set).
    pub batch: Option<usize>,
    /// The algorithms compared.
    pub lanes: &'static [PresetLane],
    /// Learning rates; every lane runs at each.
    pub rates: &'static [f64],
    /// Where each learning rate comes from, in the order of `rates` (e.g. the paper's text or
    /// its authors' code), for the page's rate choice.
    pub rate_notes: &'static [&'static str],
    /// What the paper reports, i.e. what to look for in the curves (docs/algorithms.md §6).
    pub expect: &'static str,
    /// Updates per trial (with a full batch, updates = epochs).
    pub iters: u64,
    /// Default checkpoint interval in updates (exact ATLL at each).
    pub every: u64,
    /// Independent trials per (lane, learning rate).
    pub trials: usize,
}

const SDCP_LANES: &[PresetLane] = &[
    PresetLane {
        algo: "cd",
        label: "CD-12",
        options: &[("k", "12")],
    },
    PresetLane {
        algo: "pcd",
        label: "PCD-12",
        options: &[("k", "12")],
    },
    PresetLane {
        algo: "sdcp",
        label: "S-DCP d=3 K'=4",
        options: &[("d", "3"), ("kprime", "4")],
    },
    PresetLane {
        algo: "cs-dcp",
        label: "CS-DCP d=3 K'=4",
        options: &[("d", "3"), ("kprime", "4")],
    },
    PresetLane {
        algo: "cg",
        label: "CG-12",
        options: &[("k", "12")],
    },
];

const SDCP_RATE_NOTES: &[&str] = &[
    "the paper's smaller rate",
    "the paper's larger rate (CG escapes the −3.15 plateau)",
];

/// The built-in presets.
///
/// - `sdcp-shifting-bar`, `sdcp-bas3`: Upadhya & Sastry 2017, §4.1, §4.2.1 and Fig. 1–2: 4 hidden units,
///   full batch, W ~ N(0, 0.01²) with base-rate visible biases, CD-12 / PCD-12 / CG-12 against
///   S-DCP and CS-DCP with d = 3, K′ = 4 (equal compute d·K′ = 12), η ∈ {0.3, 0.5}, 50 000
///   epochs, 25 trials. The paper does not say how often it evaluated; we take every 100 epochs.
/// - `ucd-bas4`: Qiu, Zhang & Wang 2020, §6.1 and Fig. 2: BAS 4×4 (32 rows), 16 hidden units,
///   W, b, c ~ N(0, 0.1²) (the authors' code), 1000 chains, full batch, CD-1 / PCD-1 / UCD
///   (T_max = 100), η = 0.1 (the published code) and 0.01 (the paper's text), 10 000 updates,
///   25 trials (the paper: 100). Checkpoints every 100 updates carry UCD's τ statistics
///   (averaged over the 100 updates since the previous checkpoint).
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "sdcp-shifting-bar",
        title: "S-DCP paper, Shifting Bar (N=9, B=1), 4 hidden units",
        paper: "Upadhya & Sastry 2017, Fig. 1",
        data: "shifting-bar",
        hidden: 4,
        init: Init::Sdcp,
        chains: None,
        batch: None,
        lanes: SDCP_LANES,
        rates: &[0.3, 0.5],
        rate_notes: SDCP_RATE_NOTES,
        expect: "CD-12 and PCD-12 get stuck near −3.15 at both rates (CG escapes only at η = 0.5), while \
S-DCP and CS-DCP climb on towards the bound at either rate and reach 90% of the way \
sooner. Every lane spends 12 Gibbs sweeps per update (k = 12; S-DCP and CS-DCP d·K′ = 3·4), \
so updates are equal compute.",
        iters: 50_000,
        every: 100,
        trials: 25,
    },
    Preset {
        name: "sdcp-bas3",
        title: "S-DCP paper, Bars & Stripes 3x3, 4 hidden units",
        paper: "Upadhya & Sastry 2017, Fig. 2",
        data: "bas3",
        hidden: 4,
        init: Init::Sdcp,
        chains: None,
        batch: None,
        lanes: SDCP_LANES,
        rates: &[0.3, 0.5],
        rate_notes: &[
            "the paper's smaller rate",
            "the paper's larger rate",
        ],
        expect: "CS-DCP, S-DCP and CG end at about the same ATLL; CD-12 and PCD-12 \
depend on the learning rate and stay below them; CS-DCP and S-DCP get 90% of the way sooner \
(CG about 2500 epochs after CS-DCP). Every lane spends 12 Gibbs sweeps per update (k = 12; \
S-DCP and CS-DCP d·K′ = 3·4), so updates are equal compute.",
        iters: 50_000,
        every: 100,
        trials: 25,
    },
    Preset {
        name: "ucd-bas4",
        title: "UCD paper, Bars & Stripes 4x4, 16 hidden units, 1000 chains",
        paper: "Qiu, Zhang & Wang 2020, Fig. 2",
        data: "bas4",
        hidden: 16,
        init: Init::Ucd,
        chains: Some(1000),
        batch: None,
        lanes: &[
            PresetLane { algo: "cd", label: "CD-1", options: &[("k", "1")] },
            PresetLane { algo: "pcd", label: "PCD-1", options: &[("k", "1")] },
            PresetLane { algo: "ucd", label: "UCD", options: &[("k", "1"), ("max_steps", "100")] },
        ],
        rates: &[0.1, 0.01],
        rate_notes: &["the authors' published code", "the paper's text"],
        expect: "CD-1 and PCD-1 rise, then diverge: their log-likelihood falls back from about update \
1200 on. UCD keeps converging; its stopping time τ jumps where CD starts to fail (around \
update 1200) and then falls. The paper reports a mean τ of 2.40, counting coupled steps; \
counted as here (the first t with ξ_t = η_{t−1}) the run's mean is about 4. Compare the lanes \
on the Gibbs-sweeps axis.",
        iters: 10_000,
        every: 100,
        trials: 25,
    },
];

/// Looks a preset up by name, with the known names in the error.
pub fn find_preset(name: &str) -> Result<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown preset '{name}' (known: {})",
            PRESETS
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

impl Preset {
    /// The preset's data set.
    pub fn dataset(&self) -> Result<Dataset> {
        Dataset::builtin(self.data)
    }

    /// The configuration of lane `lane` (index into [`Preset::lanes`]) at learning rate `lr`
    /// for a trial seeded `seed`, evaluated every `every` updates. The lane index is also the
    /// sampling-stream index, so a lane's numbers do not depend on which other lanes run; the
    /// initial model depends on the seed only, so all lanes of a trial start from the same one
    /// (as in the S-DCP paper's comparison).
    pub fn lane_config(&self, lane: usize, lr: f64, seed: u64, every: u64) -> Result<LaneConfig> {
        let l = &self.lanes[lane];
        let mut cfg = LaneConfig {
            algo: l.algo.to_string(),
            hidden: self.hidden,
            lr,
            chains: self.chains,
            batch: self.batch,
            init: self.init,
            seed: Some(seed),
            lane: lane as u64,
            every,
            ..LaneConfig::default()
        };
        for &(key, text) in l.options {
            let spec = option(key).ok_or_else(|| {
                Error::Invalid(format!("preset '{}': unknown option '{key}'", self.name))
            })?;
            cfg.set(key, spec.parse(text)?)?;
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::trials::trial_seed;

    /// The S-DCP paper compares at equal compute per update (§3.1: d·K′ = K): every lane of its
    /// presets must record the same Gibbs sweeps.
    #[test]
    fn sdcp_presets_spend_equal_sweeps_per_update() {
        for p in PRESETS.iter().filter(|p| p.name.starts_with("sdcp-")) {
            let data = std::sync::Arc::new(p.dataset().unwrap());
            let sweeps: Vec<f64> = (0..p.lanes.len())
                .map(|i| {
                    let mut lane = crate::train::Lane::new(
                        p.lane_config(i, p.rates[0], 3, 2).unwrap(),
                        data.clone(),
                    )
                    .unwrap();
                    lane.run(2).unwrap().last().unwrap().sweeps
                })
                .collect();
            assert!(sweeps.iter().all(|&s| s == 24.0), "{}: {sweeps:?}", p.name);
        }
    }

    #[test]
    fn presets_fill_every_other_option_from_the_defaults() {
        let p = find_preset("sdcp-bas3").unwrap();
        let c = p.lane_config(2, 0.3, 7, 100).unwrap();
        assert_eq!(
            (c.algo.as_str(), c.d, c.kprime, c.lane, c.hidden),
            ("sdcp", 3, 4, 2, 4)
        );
        assert_eq!(c.k, LaneConfig::default().k);
        assert_eq!(p.lane_config(0, 0.3, 7, 100).unwrap().k, 12);
        assert!(find_preset("nope")
            .unwrap_err()
            .to_string()
            .contains("ucd-bas4"));
        for p in PRESETS {
            assert!(p.dataset().is_ok());
            assert!(!p.rates.is_empty(), "{}", p.name);
            assert_eq!(p.rate_notes.len(), p.rates.len(), "{}", p.name);
            assert!(
                !p.expect.is_empty() && !p.expect.contains('\n'),
                "{}",
                p.name
            );
        }
        assert_ne!(trial_seed(1, 0), trial_seed(1, 1));
        assert_ne!(trial_seed(1, 0), trial_seed(2, 0));
    }
}

//! Everything a shell lists, in one place: the registered algorithms with their options and
//! statistics, the option schema, the built-in data sets and the papers' experiments. The page
//! builds its pickers, inputs, URL codec and statistics tables from [`catalog`]; the CLI builds
//! its flags and help from the same declarations.

use crate::data::{decode, mnist, Dataset, BUILTIN};
use crate::error::Result;
use crate::experiments::PRESETS;
use crate::model::Init;
use crate::schema::{OptionSpec, StatSpec};
use crate::train::config::{options, GENERAL};
use crate::train::{LaneConfig, ALGORITHMS};
use serde::Serialize;

/// A registered algorithm.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AlgoEntry {
    /// CLI and API name.
    pub name: &'static str,
    /// Label.
    pub title: &'static str,
    /// Where it comes from.
    pub paper: &'static str,
    /// The keys of the options it reads besides the general ones.
    pub options: Vec<&'static str>,
    /// The statistics it reports.
    pub stats: Vec<StatSpec>,
}

/// An option of the schema with who reads it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OptionEntry {
    /// The declaration.
    #[serde(flatten)]
    pub spec: OptionSpec,
    /// Whether every algorithm reads it.
    pub general: bool,
    /// The algorithms that read it (all of them when `general`).
    pub algos: Vec<&'static str>,
}

/// A built-in data set (docs/algorithms.md §2).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DataSetEntry {
    /// Name (CLI `--data`, the page's picker).
    pub name: &'static str,
    /// One line for people.
    pub description: &'static str,
    /// Training rows.
    pub rows: usize,
    /// Units per pattern.
    pub m: usize,
    /// Image shape `[height, width]`, if the patterns are images.
    pub shape: Option<[usize; 2]>,
    /// Largest achievable average log-likelihood (−entropy of the data).
    pub bound: Option<f64>,
    /// The distinct patterns, each as `m` 0/1 numbers, in order of first appearance.
    pub patterns: Vec<Vec<u8>>,
    /// How many rows each distinct pattern has.
    pub counts: Vec<usize>,
    /// The data asset a shell must load before using this set (e.g. `mnist`; the page fetches
    /// `assets/generated/mnist.bin.gz`), or null for sets built into the core.
    pub asset: Option<&'static str>,
}

/// A lane of a paper's experiment.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PresetLaneEntry {
    /// The paper's name for it (e.g. "S-DCP d=3 K'=4").
    pub label: &'static str,
    /// The algorithm's registered name.
    pub algo: &'static str,
    /// The full configuration [`crate::experiments::Preset::lane_config`] gives at the
    /// preset's first learning rate, seed 1 and the preset's evaluation interval.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, number | string | null>"))]
    pub config: LaneConfig,
}

/// A paper's experiment (docs/algorithms.md §6), the table `rbm reproduce` runs.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PresetEntry {
    /// Name (`rbm reproduce NAME`).
    pub name: &'static str,
    /// One line for people.
    pub title: &'static str,
    /// Where the settings come from.
    pub paper: &'static str,
    /// Training data set name (an entry of [`Catalog::data_sets`]; MNIST's splits need their
    /// asset loaded).
    pub data: &'static str,
    /// The data set the paper measures the ATLL on (null: the training data).
    pub eval_data: Option<&'static str>,
    /// The AIS run at each checkpoint (null: the exact ATLL).
    pub ais: Option<crate::experiments::AisSpec>,
    /// Whether η decays linearly to 0 at the end of the run (Tieleman 2008).
    pub decay: bool,
    /// How the defaults were shortened, and the flags that run the paper's scale.
    pub scale: &'static str,
    /// Hidden units.
    pub hidden: usize,
    /// Initialisation.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub init: Init,
    /// Negative chains (null: one per batch row).
    pub chains: Option<usize>,
    /// Mini-batch size (null: the whole data set).
    pub batch: Option<usize>,
    /// Learning rates; every lane runs at each.
    pub rates: &'static [f64],
    /// Where each rate comes from, in the order of `rates`.
    pub rate_notes: &'static [&'static str],
    /// What the paper reports, i.e. what to look for.
    pub expect: &'static str,
    /// Updates per trial.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iters: u64,
    /// Evaluation interval in updates.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub every: u64,
    /// Independent trials per lane and rate.
    pub trials: usize,
    /// The paper's trials, length and evaluation where the defaults above are shortened (null:
    /// they are the paper's), e.g. `sdcp-mnist`'s 10 trials × 200 epochs with AIS at 10 000 β
    /// (Upadhya & Sastry 2017, §4.1): `rbm reproduce NAME --scale paper`.
    pub paper_scale: Option<crate::experiments::Extent>,
    /// The paper's statements, checked on the across-trial medians.
    pub claims: &'static [crate::experiments::claims::Claim],
    /// The lanes.
    pub lanes: Vec<PresetLaneEntry>,
}

/// Everything a shell lists.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Catalog {
    /// The algorithms, in registration order (the first is the default).
    pub algorithms: Vec<AlgoEntry>,
    /// Every option: the general ones, the algorithms' own, then the page's views' (scope
    /// `view`: not part of a lane's configuration).
    pub options: Vec<OptionEntry>,
    /// The built-in data sets.
    pub data_sets: Vec<DataSetEntry>,
    /// The papers' experiments.
    pub presets: Vec<PresetEntry>,
}

/// The catalog of this build of the core.
pub fn catalog() -> Result<Catalog> {
    let algorithms = ALGORITHMS
        .iter()
        .map(|a| AlgoEntry {
            name: a.name,
            title: a.title,
            paper: a.paper,
            options: a.options.iter().map(|o| o.key).collect(),
            stats: a.stats.to_vec(),
        })
        .collect();
    let options = options()
        .into_iter()
        .map(|spec| {
            let general = GENERAL.iter().any(|g| g.key == spec.key);
            OptionEntry {
                spec: *spec,
                general,
                algos: ALGORITHMS
                    .iter()
                    .filter(|a| general || a.options.iter().any(|o| o.key == spec.key))
                    .map(|a| a.name)
                    .collect(),
            }
        })
        .chain(
            crate::schema::views::VIEW_OPTIONS
                .iter()
                .map(|&spec| OptionEntry {
                    spec: *spec,
                    general: false,
                    algos: Vec::new(),
                }),
        )
        .collect();
    let mut data_sets = Vec::new();
    for &(name, description) in BUILTIN {
        let d = Dataset::builtin(name)?;
        let distinct = d.distinct();
        data_sets.push(DataSetEntry {
            name,
            description,
            rows: d.rows(),
            m: d.m,
            shape: d.shape.map(|(h, w)| [h, w]),
            bound: d.bound(),
            patterns: distinct
                .iter()
                .map(|&(code, _)| decode(code, d.m).iter().map(|&x| x as u8).collect())
                .collect(),
            counts: distinct.iter().map(|&(_, c)| c).collect(),
            asset: None,
        });
    }
    let [train, valid, test] = mnist::split(mnist::COUNT);
    for (&(name, description), rows) in mnist::SPLITS.iter().zip([train, valid, test]) {
        data_sets.push(DataSetEntry {
            name,
            description,
            rows: rows.len(),
            m: mnist::SIDE * mnist::SIDE,
            shape: Some([mnist::SIDE, mnist::SIDE]),
            bound: None,
            patterns: Vec::new(),
            counts: Vec::new(),
            asset: Some("mnist"),
        });
    }
    let mut presets = Vec::new();
    for p in PRESETS {
        let mut lanes = Vec::new();
        for (i, l) in p.lanes.iter().enumerate() {
            lanes.push(PresetLaneEntry {
                label: l.label,
                algo: l.algo,
                config: p.lane_config(i, p.rates[0], 1, p.every)?,
            });
        }
        presets.push(PresetEntry {
            name: p.name,
            title: p.title,
            paper: p.paper,
            data: p.data,
            eval_data: p.eval_data,
            ais: p.ais,
            decay: p.decay,
            scale: p.scale,
            hidden: p.hidden,
            init: p.init,
            chains: p.chains,
            batch: p.batch,
            rates: p.rates,
            rate_notes: p.rate_notes,
            expect: p.expect,
            iters: p.iters,
            every: p.every,
            trials: p.trials,
            paper_scale: p.paper_scale,
            claims: p.claims,
            lanes,
        });
    }
    Ok(Catalog {
        algorithms,
        options,
        data_sets,
        presets,
    })
}

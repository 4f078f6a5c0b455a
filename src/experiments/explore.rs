//! The claims explorer (issue 29): where each paper's claim holds. A grid over the conditions a
//! claim may depend on — the learning rate, the initialisation's scale and the algorithms' own
//! knobs the papers set (k, d and K′, chains, batch) — each cell a [`Study`] of the preset with
//! those settings in every lane that reads them, judged by the preset's claims
//! ([`claims::evaluate`]) with the number each verdict is about ([`claims::measure`]).
//!
//! A cell's trials are seeded exactly as `rbm reproduce` seeds its trials (trial r:
//! [`super::trials::trial_seed`]`(seed, r)`, each lane its index in the preset as its stream),
//! and a trial's numbers depend only on its lane's configuration, so the cell at the preset's
//! own settings *is* the preset's study at that learning rate: the same medians and verdicts,
//! bit for bit. Cells are numbered in a fixed order (learning rate slowest, then σ, k, d, K′,
//! chains, batch), so a grid can be split over machines by cell range and merged again.

use super::claims::{self, Claim, LaneBand, Measured, Status};
use super::trials::{LaneOverrides, Study, StudyCost, StudyRequest};
use super::Preset;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::Init;
use serde::Serialize;
use std::sync::Arc;

/// Most cells of one grid.
pub const MAX_CELLS: usize = 100_000;

/// The axes of a grid, in cell order, as (setting, flag of `rbm explore`).
pub const AXES: [(&str, &str); 7] = [
    ("lr", "lrs"),
    ("init_sigma", "init-sigmas"),
    ("k", "ks"),
    ("d", "ds"),
    ("kprime", "kprimes"),
    ("chains", "chains"),
    ("batch", "batches"),
];

/// A cell's settings: the learning rate, and each knob set (`None`: the preset's own).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Settings {
    /// Learning rate η.
    pub lr: f64,
    /// Standard deviation of the initial draws (W for the `sdcp` initialisation; W, b, c for
    /// `ucd`).
    pub init_sigma: Option<f64>,
    /// Gibbs sweeps per update of the lanes that read k (CD, PCD, CG, UCD).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub k: Option<u64>,
    /// S-DCP / CS-DCP inner steps.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub d: Option<u64>,
    /// S-DCP / CS-DCP sweeps per inner step.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub kprime: Option<u64>,
    /// Negative chains.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub chains: Option<u64>,
    /// Mini-batch size.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub batch: Option<u64>,
}

impl Settings {
    /// The overrides a study of this cell applies to every lane.
    pub fn overrides(&self) -> LaneOverrides {
        let options = [
            ("k", self.k),
            ("d", self.d),
            ("kprime", self.kprime),
            ("chains", self.chains),
            ("batch", self.batch),
        ]
        .into_iter()
        .filter_map(|(key, v)| v.map(|v| (key.to_string(), serde_json::Value::from(v))))
        .collect();
        LaneOverrides {
            init_sigma: self.init_sigma,
            options,
        }
    }
}

/// A grid of cells over a preset: each axis's values, `[None]` where the axis is not swept
/// (the preset's own setting).
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Learning rates (the preset's when not given).
    pub lrs: Vec<f64>,
    /// Initialisation scales.
    pub init_sigmas: Vec<Option<f64>>,
    /// k values.
    pub ks: Vec<Option<u64>>,
    /// d values.
    pub ds: Vec<Option<u64>>,
    /// K′ values.
    pub kprimes: Vec<Option<u64>>,
    /// Chain counts.
    pub chains: Vec<Option<u64>>,
    /// Batch sizes.
    pub batches: Vec<Option<u64>>,
}

/// The values given for one axis, checked: not empty, finite, above zero, no repeats, whole
/// numbers where `whole`; errors keyed and worded by the flag.
fn checked(flag: &str, given: &[f64], whole: bool) -> Result<()> {
    let what = match flag {
        "lrs" => "learning rates",
        "init-sigmas" => "initialisation scales σ",
        "ks" => "values of k",
        "ds" => "values of d",
        "kprimes" => "values of K′",
        "chains" => "chain counts",
        _ => "batch sizes",
    };
    let bad = |msg: String| Err(Error::option(flag, format!("the grid's {what}: {msg}")));
    if given.is_empty() {
        return bad("no values given".into());
    }
    for (i, &x) in given.iter().enumerate() {
        if !x.is_finite() || x <= 0.0 {
            return bad(format!(
                "every value must be a finite number above 0, got {x}"
            ));
        }
        if whole && (x.fract() != 0.0 || x > (1u64 << 53) as f64) {
            return bad(format!("every value must be a whole number, got {x}"));
        }
        if given[..i].contains(&x) {
            return bad(format!("{x} is given twice"));
        }
    }
    Ok(())
}

/// Axis values as the grid keeps them: the given ones, or `[None]`.
fn axis_f(flag: &str, given: Option<&[f64]>) -> Result<Vec<Option<f64>>> {
    match given {
        None => Ok(vec![None]),
        Some(v) => {
            checked(flag, v, false)?;
            Ok(v.iter().map(|&x| Some(x)).collect())
        }
    }
}

fn axis_u(flag: &str, given: Option<&[f64]>) -> Result<Vec<Option<u64>>> {
    match given {
        None => Ok(vec![None]),
        Some(v) => {
            checked(flag, v, true)?;
            Ok(v.iter().map(|&x| Some(x as u64)).collect())
        }
    }
}

/// What a shell asks of a grid: each axis's values as given (`None`: not swept).
#[derive(Clone, Debug, Default)]
pub struct GridRequest {
    /// `--lrs`.
    pub lrs: Option<Vec<f64>>,
    /// `--init-sigmas`.
    pub init_sigmas: Option<Vec<f64>>,
    /// `--ks`.
    pub ks: Option<Vec<f64>>,
    /// `--ds`.
    pub ds: Option<Vec<f64>>,
    /// `--kprimes`.
    pub kprimes: Option<Vec<f64>>,
    /// `--chains`.
    pub chains: Option<Vec<f64>>,
    /// `--batches`.
    pub batches: Option<Vec<f64>>,
}

impl Grid {
    /// The grid `req` asks of preset `p`; empty lists, NaN, infinite, zero, negative, repeated
    /// or (for the counts) fractional values are refused, naming the flag.
    pub fn new(p: &Preset, req: &GridRequest) -> Result<Grid> {
        let lrs = match &req.lrs {
            None => p.rates.to_vec(),
            Some(v) => {
                checked("lrs", v, false)?;
                v.clone()
            }
        };
        let g = Grid {
            lrs,
            init_sigmas: axis_f("init-sigmas", req.init_sigmas.as_deref())?,
            ks: axis_u("ks", req.ks.as_deref())?,
            ds: axis_u("ds", req.ds.as_deref())?,
            kprimes: axis_u("kprimes", req.kprimes.as_deref())?,
            chains: axis_u("chains", req.chains.as_deref())?,
            batches: axis_u("batches", req.batches.as_deref())?,
        };
        if let Some(s) = g
            .init_sigmas
            .iter()
            .flatten()
            .find(|&&s| s > crate::train::config::MAX_INIT_SIGMA)
        {
            return Err(Error::option(
                "init-sigmas",
                format!(
                    "the grid's initialisation scales σ: at most {}, got {s}",
                    crate::train::config::MAX_INIT_SIGMA
                ),
            ));
        }
        let len = g.sizes().iter().try_fold(1usize, |n, &s| n.checked_mul(s));
        if len.is_none_or(|n| n > MAX_CELLS) {
            return Err(Error::option(
                "cells",
                format!("the grid has more than {MAX_CELLS} cells: sweep fewer values"),
            ));
        }
        Ok(g)
    }

    /// Values per axis, in [`AXES`] order.
    fn sizes(&self) -> [usize; 7] {
        [
            self.lrs.len(),
            self.init_sigmas.len(),
            self.ks.len(),
            self.ds.len(),
            self.kprimes.len(),
            self.chains.len(),
            self.batches.len(),
        ]
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.sizes().iter().product()
    }

    /// Whether the grid has no cells (never, once built).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cell `i`'s settings (learning rate slowest, batch fastest).
    pub fn cell(&self, i: usize) -> Settings {
        let sizes = self.sizes();
        let mut at = [0usize; 7];
        let mut rest = i;
        for a in (0..7).rev() {
            at[a] = rest % sizes[a];
            rest /= sizes[a];
        }
        Settings {
            lr: self.lrs[at[0]],
            init_sigma: self.init_sigmas[at[1]],
            k: self.ks[at[2]],
            d: self.ds[at[3]],
            kprime: self.kprimes[at[4]],
            chains: self.chains[at[5]],
            batch: self.batches[at[6]],
        }
    }
}

/// The initialisation's own standard deviation ([`crate::model::Rbm::init_scaled`]).
pub fn own_init_sigma(init: Init) -> f64 {
    match init {
        Init::Sdcp => 0.01,
        Init::Ucd => 0.1,
    }
}

/// Whether `s` is the preset's own setting: one of its learning rates, and every knob set either
/// unset or equal to the value in every lane of the preset that reads it (σ: the
/// initialisation's own). Its cell's numbers are then the preset's study's.
pub fn is_preset_point(p: &Preset, s: &Settings) -> Result<bool> {
    if !p.rates.contains(&s.lr) {
        return Ok(false);
    }
    if s.init_sigma.is_some_and(|x| x != own_init_sigma(p.init)) {
        return Ok(false);
    }
    for (key, v) in s.overrides().options {
        for li in 0..p.lanes.len() {
            let cfg = p.lane_config_for(li, s.lr, 0, p.every, p.iters)?;
            let a = crate::train::find(&cfg.algo)?;
            let reads = crate::train::config::GENERAL
                .iter()
                .chain(a.options)
                .any(|o| o.key == key);
            if reads && cfg.get(&key)? != v {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The study of cell `s`: `base` (the length, trials, lanes and measure every cell shares) at
/// the cell's learning rate, with its settings in every lane that reads them.
pub fn cell_study(
    p: &'static Preset,
    base: &StudyRequest,
    s: &Settings,
    seed: u64,
    data: Arc<Dataset>,
    eval: Option<Arc<Dataset>>,
) -> Result<Study> {
    let req = StudyRequest {
        rates: Some(vec![s.lr]),
        overrides: s.overrides(),
        ..base.clone()
    };
    Study::with_shared(p, &req, seed, data, eval)
}

/// How long a grid's cell studies take on `threads` threads of the machine `budget` assumes, by
/// the cost model ([`Study::estimate`]): every trial's training and measurements on one core
/// each, spread over the threads, and never less than the longest single trial.
pub fn grid_estimate<'a>(
    studies: impl IntoIterator<Item = &'a Study>,
    budget: &crate::schema::budget::Budget,
    threads: usize,
) -> Result<StudyCost> {
    let (mut train, mut evals, mut longest) = (0.0, 0.0, 0.0_f64);
    let mut items = 0usize;
    for st in studies {
        let c = st.estimate(budget, threads, |_| true)?;
        let whole = st.estimate(budget, usize::MAX, |_| true)?;
        train += c.train_secs;
        evals += c.eval_secs;
        longest = longest.max(whole.wall_secs);
        items += st.groups.len() * st.runs;
    }
    Ok(StudyCost {
        train_secs: train,
        eval_secs: evals,
        wall_secs: ((train + evals) / threads.clamp(1, items.max(1)) as f64).max(longest),
    })
}

/// One claim judged in one cell.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CellVerdict {
    /// The claim's text.
    pub claim: &'static str,
    /// The learning rates the paper states it at (empty: every rate); the explorer judges it at
    /// every rate of its grid.
    pub stated_at: &'static [f64],
    /// `holds`, `fails` or `undecided`.
    pub status: Status,
    /// true / false, or null when not decided.
    pub holds: Option<bool>,
    /// The numbers behind the verdict, in words ([`claims::Verdict::detail`]).
    pub detail: String,
    /// Trials the medians are of.
    pub trials: usize,
    /// The number the claim is about and its margin (none when not decided).
    #[serde(flatten)]
    pub measured: Option<Measured>,
}

/// Every claim of `claims` judged on a cell's lanes (`bands`: each lane's medians), ended at
/// update `end`, against the data's `bound`: [`claims::evaluate`]'s verdicts (here at every
/// learning rate, not only those the paper states a claim at) with [`claims::measure`]'s
/// numbers.
pub fn judge(
    claims: &'static [Claim],
    bands: &[LaneBand],
    end: u64,
    bound: Option<f64>,
) -> Vec<CellVerdict> {
    claims
        .iter()
        .map(|c| {
            // Judged as `rbm reproduce` judges it at a rate the paper states it at.
            let at = c.rates.first().copied().unwrap_or(0.0);
            let v = claims::evaluate(std::slice::from_ref(c), at, bands, end, bound)
                .pop()
                .expect("the claim applies at its own rate");
            CellVerdict {
                claim: c.text,
                stated_at: c.rates,
                status: v.status,
                holds: v.holds,
                detail: v.detail,
                trials: v.trials,
                measured: claims::measure(c, bands, end, bound),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::find_preset;

    fn req(f: impl FnOnce(&mut GridRequest)) -> GridRequest {
        let mut r = GridRequest::default();
        f(&mut r);
        r
    }

    #[test]
    fn a_grid_numbers_its_cells_learning_rate_slowest() {
        let p = find_preset("sdcp-bas3").unwrap();
        let g = Grid::new(
            p,
            &req(|r| {
                r.init_sigmas = Some(vec![0.001, 0.1]);
                r.ks = Some(vec![1.0, 12.0, 24.0]);
            }),
        )
        .unwrap();
        assert_eq!(g.len(), 2 * 2 * 3);
        let c = g.cell(0);
        assert_eq!(
            (c.lr, c.init_sigma, c.k, c.d),
            (0.3, Some(0.001), Some(1), None)
        );
        let c = g.cell(5);
        assert_eq!((c.lr, c.init_sigma, c.k), (0.3, Some(0.1), Some(24)));
        let c = g.cell(6);
        assert_eq!((c.lr, c.init_sigma, c.k), (0.5, Some(0.001), Some(1)));
        assert!(!is_preset_point(p, &g.cell(0)).unwrap());
        assert!(
            !is_preset_point(p, &g.cell(4)).unwrap(),
            "σ 0.1 is not the preset's"
        );
        let own = Grid::new(p, &req(|r| r.ks = Some(vec![12.0]))).unwrap();
        assert!(is_preset_point(p, &own.cell(1)).unwrap());
        let mut s = own.cell(0);
        s.init_sigma = Some(0.01);
        s.d = Some(3);
        assert!(is_preset_point(p, &s).unwrap());
        s.lr = 0.1;
        assert!(!is_preset_point(p, &s).unwrap());
    }

    #[test]
    fn bad_grids_are_refused_naming_the_flag() {
        let p = find_preset("sdcp-bas3").unwrap();
        let cases: Vec<(GridRequest, &str)> = vec![
            (req(|r| r.lrs = Some(vec![])), "lrs"),
            (req(|r| r.lrs = Some(vec![0.1, f64::NAN])), "lrs"),
            (req(|r| r.lrs = Some(vec![-0.1])), "lrs"),
            (req(|r| r.lrs = Some(vec![0.1, 0.1])), "lrs"),
            (req(|r| r.init_sigmas = Some(vec![0.0])), "init-sigmas"),
            (
                req(|r| r.init_sigmas = Some(vec![f64::INFINITY])),
                "init-sigmas",
            ),
            (req(|r| r.init_sigmas = Some(vec![1e3])), "init-sigmas"),
            (req(|r| r.ks = Some(vec![1.5])), "ks"),
            (req(|r| r.ds = Some(vec![-3.0])), "ds"),
            (req(|r| r.kprimes = Some(vec![])), "kprimes"),
            (req(|r| r.chains = Some(vec![f64::NAN])), "chains"),
            (req(|r| r.batches = Some(vec![0.0])), "batches"),
        ];
        for (r, flag) in cases {
            let e = Grid::new(p, &r).unwrap_err();
            assert_eq!(e.key(), Some(flag), "{r:?}: {e}");
            assert!(e.to_string().starts_with("the grid's "), "{e}");
        }
    }

    /// A grid's estimate adds its cells' studies' training and measurements and spreads them
    /// over the threads, never below the longest trial (one cell's whole study on unlimited
    /// threads); one cell on one thread is that cell's study's own estimate.
    #[test]
    fn a_grids_estimate_is_its_cells_studies_spread_over_the_threads() {
        let p = find_preset("sdcp-bas3").unwrap();
        let data = Arc::new(p.dataset().unwrap());
        let g = Grid::new(p, &req(|r| r.ks = Some(vec![1.0, 12.0]))).unwrap();
        let base = StudyRequest {
            iters: Some(1000),
            runs: Some(2),
            ..StudyRequest::default()
        };
        let studies: Vec<Study> = (0..g.len())
            .map(|i| cell_study(p, &base, &g.cell(i), 1, data.clone(), None).unwrap())
            .collect();
        let budget = &crate::schema::budget::PAGE;
        let one = grid_estimate(&studies[..1], budget, 1).unwrap();
        let own = studies[0].estimate(budget, 1, |_| true).unwrap();
        assert_eq!(
            (one.train_secs, one.eval_secs, one.wall_secs),
            (own.train_secs, own.eval_secs, own.wall_secs)
        );
        let all = grid_estimate(&studies, budget, 4).unwrap();
        let train: f64 = studies
            .iter()
            .map(|s| s.estimate(budget, 4, |_| true).unwrap().train_secs)
            .sum();
        assert_eq!(all.train_secs, train);
        let longest = studies
            .iter()
            .map(|s| s.estimate(budget, usize::MAX, |_| true).unwrap().wall_secs)
            .fold(0.0, f64::max);
        assert!(all.wall_secs >= longest && all.wall_secs > 0.0);
        assert!(all.wall_secs < grid_estimate(&studies, budget, 1).unwrap().wall_secs);
    }

    /// A cell's study is the preset's study at its rate with the knobs in the lanes that read
    /// them: k in CD's lane, not in S-DCP's; σ in the model every lane starts from.
    #[test]
    fn a_cells_study_sets_its_knobs_where_they_are_read() {
        let p = find_preset("sdcp-bas3").unwrap();
        let data = Arc::new(p.dataset().unwrap());
        let s = Settings {
            lr: 0.1,
            init_sigma: Some(0.5),
            k: Some(2),
            d: Some(5),
            kprime: None,
            chains: None,
            batch: None,
        };
        let base = StudyRequest {
            iters: Some(10),
            runs: Some(1),
            ..StudyRequest::default()
        };
        let st = cell_study(p, &base, &s, 3, data.clone(), None).unwrap();
        assert_eq!(st.groups.len(), p.lanes.len());
        for g in 0..st.groups.len() {
            let cfg = st.lane_config(g, 1).unwrap();
            assert_eq!(cfg.lr, 0.1);
            assert_eq!(cfg.init_sigma, Some(0.5));
            match cfg.algo.as_str() {
                "sdcp" | "cs-dcp" => assert_eq!((cfg.d, cfg.kprime, cfg.k), (5, 4, 1)),
                _ => assert_eq!(cfg.k, 2),
            }
        }
        let lane = crate::train::Lane::new(st.lane_config(0, 1).unwrap(), data.clone()).unwrap();
        let w = lane.model().w();
        let sd = (w.iter().map(|&x| (x as f64).powi(2)).sum::<f64>() / w.len() as f64).sqrt();
        assert!(
            sd > 0.2 && sd < 1.0,
            "σ 0.5 gives weights of about that size: {sd}"
        );
        let only_sdcp = StudyRequest {
            algos: Some(vec!["sdcp".into()]),
            ..base.clone()
        };
        let e = cell_study(p, &only_sdcp, &s, 3, data, None).unwrap_err();
        assert_eq!(e.key(), Some("k"), "{e}");
    }
}

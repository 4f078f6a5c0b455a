//! The papers' experiments as data (docs/algorithms.md §6) and their trials ([`trials`]): the
//! trial runner, quantiles of the ATLL across trials at each checkpoint and per-lane summaries.
//!
//! A preset names its data sets: the training set and, for the MNIST experiments, the set the
//! ATLL is measured on (`mnist-test`), which a shell loads as it does for `--data` (the core
//! builds only the small sets in; see [`trials::Study::with_data`]). It says how the ATLL is
//! measured: exactly, by enumerating the smaller layer, or by AIS ([`AisSpec`]).
//!
//! Everything here is plain computation, so the native `rbm reproduce` (which runs the trials
//! on threads) and the page (which runs them in Web Workers) share one definition of each
//! preset, of each trial and of each reported number.

pub mod claims;
pub mod explore;
pub mod jobs;
pub mod trials;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::eval::exact::MAX_ENUM_BITS;
use crate::model::Init;
use crate::train::config::option;
use crate::train::LaneConfig;
use claims::{Check, Claim};
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

/// How a preset measures the ATLL at its checkpoints when the smaller layer is too large to
/// enumerate: annealed importance sampling (Salakhutdinov & Murray 2008; the S-DCP paper's §4.1
/// uses 100 particles and 10 000 β), log Ẑ from `particles` chains over `betas` linear inverse
/// temperatures ([`crate::eval::ais`]).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AisSpec {
    /// Annealing chains.
    pub particles: usize,
    /// Inverse temperatures, 0 and 1 included.
    pub betas: usize,
}

/// How much of a preset a study runs: independent trials per (lane, learning rate), updates per
/// trial, the checkpoint interval and, on a preset measured by AIS, the AIS run at each
/// checkpoint. A preset's own fields give its default ([`Preset::extent`] at
/// [`Scale::Reduced`]); [`Preset::paper_scale`] the paper's, where the default is shortened.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Extent {
    /// Independent trials per (lane, learning rate).
    pub trials: usize,
    /// Updates per trial.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iters: u64,
    /// Checkpoint interval in updates.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub every: u64,
    /// The AIS run at each checkpoint (null: the exact ATLL).
    pub ais: Option<AisSpec>,
}

/// Which settings a study of a preset starts from (`rbm reproduce --scale`); flags given beside
/// it (`--runs`, `--iters`, `--every`, `--betas`, …) still override them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// The preset's defaults, shortened where its `scale` text says so (the MNIST presets and
    /// `ucd-bas4`).
    #[default]
    Reduced,
    /// The paper's own trials, length and evaluation ([`Preset::paper_scale`]); a preset whose
    /// defaults are the paper's is unchanged.
    Paper,
}

impl Scale {
    /// The names `--scale` takes, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["reduced", "paper"];

    /// The scale named `text` (`reduced` or `paper`), or an error keyed `scale`.
    pub fn parse(text: &str) -> Result<Scale> {
        match text {
            "reduced" => Ok(Scale::Reduced),
            "paper" => Ok(Scale::Paper),
            _ => Err(Error::option(
                "scale",
                format!("unknown scale '{text}' (known: reduced, paper)"),
            )),
        }
    }

    /// Its name, as `--scale` takes it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
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
    /// Training data set: a built-in name, or an MNIST split (`mnist`) a shell loads.
    pub data: &'static str,
    /// The data set the ATLL is measured on (`None`: the training data, as on the small sets,
    /// where the lanes' own exact records are the measure). Grey levels are measured on their
    /// 0.5-threshold binarisation, like every exact curve (docs/algorithms.md §2).
    pub eval_data: Option<&'static str>,
    /// `None`: the exact ATLL (the smaller layer enumerated, ≤ 2^30 states); else AIS.
    pub ais: Option<AisSpec>,
    /// Hidden units n.
    pub hidden: usize,
    /// Initialisation.
    pub init: Init,
    /// Negative chains (`None`: as many as batch rows).
    pub chains: Option<usize>,
    /// Mini-batch size (`None`: the whole data set).
    pub batch: Option<usize>,
    /// Whether η decays linearly to 0 over each trial's updates (Tieleman 2008, §4.5); else η
    /// is constant.
    pub decay: bool,
    /// The algorithms compared.
    pub lanes: &'static [PresetLane],
    /// Learning rates; every lane runs at each.
    pub rates: &'static [f64],
    /// Where each learning rate comes from, in the order of `rates` (e.g. the paper's text or
    /// its authors' code), for the page's rate choice.
    pub rate_notes: &'static [&'static str],
    /// What the paper reports, i.e. what to look for in the curves (docs/algorithms.md §6).
    pub expect: &'static str,
    /// The paper's statements as checks on the across-trial medians ([`claims`]).
    pub claims: &'static [Claim],
    /// Updates per trial (with a full batch, updates = epochs).
    pub iters: u64,
    /// Default checkpoint interval in updates (ATLL at each).
    pub every: u64,
    /// Independent trials per (lane, learning rate).
    pub trials: usize,
    /// How the defaults were shortened and the flags that run the paper's scale (empty when the
    /// defaults are the paper's).
    pub scale: &'static str,
    /// The paper's trials, length and evaluation, where the defaults are shortened (`None`: the
    /// defaults are the paper's): `rbm reproduce NAME --scale paper`.
    pub paper_scale: Option<Extent>,
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

/// Tieleman 2008, §4 and Figure 1: PCD against CD-1, CD-10 and MF-CD (one Gibbs sweep per
/// update for PCD and CD-1; MF-CD is CD-1 with probabilities in place of samples).
const PCD_MNIST_LANES: &[PresetLane] = &[
    PresetLane {
        algo: "pcd",
        label: "PCD",
        options: &[("k", "1")],
    },
    PresetLane {
        algo: "cd",
        label: "CD-1",
        options: &[("k", "1")],
    },
    PresetLane {
        algo: "cd",
        label: "CD-10",
        options: &[("k", "10")],
    },
    PresetLane {
        algo: "mf-cd",
        label: "MF-CD",
        options: &[],
    },
];

/// Upadhya & Sastry 2017, §4.1 and Figure 3: CD-24 against S-DCP and CS-DCP with d = 6,
/// K′ = 4 (equal compute per mini-batch: d·K′ = 24 = K).
const SDCP_MNIST_LANES: &[PresetLane] = &[
    PresetLane {
        algo: "cd",
        label: "CD-24",
        options: &[("k", "24")],
    },
    PresetLane {
        algo: "sdcp",
        label: "S-DCP d=6 K'=4",
        options: &[("d", "6"), ("kprime", "4")],
    },
    PresetLane {
        algo: "cs-dcp",
        label: "CS-DCP d=6 K'=4",
        options: &[("d", "6"), ("kprime", "4")],
    },
];

const SDCP_FAST: &[&str] = &["S-DCP d=3 K'=4", "CS-DCP d=3 K'=4"];
const SDCP_SLOW: &[&str] = &["CD-12", "PCD-12"];

/// Upadhya & Sastry 2017, §4.2.1 and Fig. 1 (Shifting Bar): CD and PCD stick near −3.15, CG
/// escapes only at the larger rate, S-DCP and CS-DCP climb on and get 90% of the way sooner.
const SHIFTING_BAR_CLAIMS: &[Claim] = &[
    Claim {
        text: "CD-12 gets stuck near −3.15 (final median within 0.15 of it)",
        rates: &[],
        check: Check::EndsNear {
            lane: "CD-12",
            value: -3.15,
            within: 0.15,
        },
    },
    Claim {
        text: "PCD-12 gets stuck near −3.15 (final median within 0.15 of it)",
        rates: &[],
        check: Check::EndsNear {
            lane: "PCD-12",
            value: -3.15,
            within: 0.15,
        },
    },
    Claim {
        text: "CG-12 stays near −3.15 at η = 0.3 (final median within 0.15 of it)",
        rates: &[0.3],
        check: Check::EndsNear {
            lane: "CG-12",
            value: -3.15,
            within: 0.15,
        },
    },
    Claim {
        text: "CG-12 escapes the −3.15 plateau at η = 0.5 (final median above −3.0)",
        rates: &[0.5],
        check: Check::EndsAboveLevel {
            lane: "CG-12",
            level: -3.0,
        },
    },
    Claim {
        text: "S-DCP and CS-DCP end above CD-12 and PCD-12",
        rates: &[],
        check: Check::EndsAbove {
            lanes: SDCP_FAST,
            than: SDCP_SLOW,
        },
    },
    Claim {
        text: "S-DCP and CS-DCP get 90% of the way to their best median before CD-12 and PCD-12 do to theirs",
        rates: &[],
        check: Check::SoonerToOwnBest {
            lanes: SDCP_FAST,
            than: SDCP_SLOW,
        },
    },
];

/// Upadhya & Sastry 2017, §4.2.1 and Fig. 2 (Bars & Stripes 3×3).
const BAS3_CLAIMS: &[Claim] = &[
    Claim {
        text: "CS-DCP, S-DCP and CG-12 end at about the same ATLL (final medians within 0.1 nats)",
        rates: &[],
        check: Check::EndTogether {
            lanes: &["CS-DCP d=3 K'=4", "S-DCP d=3 K'=4", "CG-12"],
            within: 0.1,
        },
    },
    Claim {
        text: "CD-12 and PCD-12 end below CS-DCP, S-DCP and CG-12",
        rates: &[],
        check: Check::EndsAbove {
            lanes: &["CS-DCP d=3 K'=4", "S-DCP d=3 K'=4", "CG-12"],
            than: SDCP_SLOW,
        },
    },
    Claim {
        text: "CS-DCP and S-DCP get 90% of the way to their best median before CG-12 does to its",
        rates: &[],
        check: Check::SoonerToOwnBest {
            lanes: SDCP_FAST,
            than: &["CG-12"],
        },
    },
];

/// Qiu, Zhang & Wang 2020, §6.1 and Fig. 2 (Bars & Stripes 4×4): CD-1 and PCD-1 diverge, UCD
/// converges, and UCD's stopping time surges where CD starts to fail (near update 1 200).
const UCD_CLAIMS: &[Claim] = &[
    Claim {
        text: "CD-1 declines after its peak (final median at least 0.5 nats below its best)",
        rates: &[],
        check: Check::Declines {
            lane: "CD-1",
            by: 0.5,
        },
    },
    Claim {
        text: "PCD-1 declines after its peak (final median at least 0.5 nats below its best)",
        rates: &[],
        check: Check::Declines {
            lane: "PCD-1",
            by: 0.5,
        },
    },
    Claim {
        text: "UCD keeps converging (final median within 0.5 nats of its best)",
        rates: &[],
        check: Check::StaysNearBest {
            lane: "UCD",
            within: 0.5,
        },
    },
    Claim {
        text: "UCD ends above CD-1 and PCD-1",
        rates: &[],
        check: Check::EndsAbove {
            lanes: &["UCD"],
            than: &["CD-1", "PCD-1"],
        },
    },
    Claim {
        text: "UCD's mean stopping time τ surges near update 1 200 (largest between updates 600 and 2 400), then falls (ends below half its peak)",
        rates: &[],
        check: Check::StatPeak {
            lane: "UCD",
            stat: "mean_tau",
            from: 600,
            to: 2_400,
            falls_to: 0.5,
        },
    },
];

/// Tieleman 2008, §4 and Fig. 1.
const PCD_MNIST_CLAIMS: &[Claim] = &[
    Claim {
        text: "PCD reaches the highest test log-likelihood",
        rates: &[],
        check: Check::EndsAbove {
            lanes: &["PCD"],
            than: &["CD-1", "CD-10", "MF-CD"],
        },
    },
    Claim {
        text: "CD-10 ends above CD-1",
        rates: &[],
        check: Check::EndsAbove {
            lanes: &["CD-10"],
            than: &["CD-1"],
        },
    },
    Claim {
        text: "MF-CD ends lowest",
        rates: &[],
        check: Check::EndsAbove {
            lanes: &["PCD", "CD-1", "CD-10"],
            than: &["MF-CD"],
        },
    },
];

/// Upadhya & Sastry 2017, §4.2.2 and Fig. 3 (MNIST at η = 0.01).
const SDCP_MNIST_CLAIMS: &[Claim] = &[Claim {
    text: "CS-DCP gets 90% of the way to its best median before CD-24 does to its",
    rates: &[],
    check: Check::SoonerToOwnBest {
        lanes: &["CS-DCP d=6 K'=4"],
        than: &["CD-24"],
    },
}];

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
/// - `pcd-mnist-25`: Tieleman 2008, §4 and Figure 1: MNIST (our 8 000 training digits,
///   binarised by a fresh Bernoulli draw per use), 25 hidden units so that the test
///   log-likelihood is exact (2^25 hidden states), mini-batches of 100 with PCD's chains one per
///   batch row, η decaying linearly to 0 over each run, PCD / CD-1 / CD-10 / MF-CD, exact ATLL
///   of `mnist-test` (thresholded at 0.5) at each checkpoint, 10 runs in the paper. The paper
///   chose η per algorithm and duration on validation data and does not print it; we use one η
///   for all. Its Figure 1 plots separate runs of each duration against training time; here
///   each run is evaluated at checkpoints along one schedule that ends at the last one.
/// - `sdcp-mnist`: Upadhya & Sastry 2017, §4.1, §4.2.2 and Figure 3: MNIST, 500 hidden units,
///   mini-batches of 200, W ~ N(0, 0.01²) with base-rate visible biases, CD-24 against S-DCP
///   and CS-DCP with d = 6, K′ = 4, constant η, 200 epochs, 10 trials, AIS test log-likelihood
///   (100 particles, 10 000 β) per epoch.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "sdcp-shifting-bar",
        title: "S-DCP paper, Shifting Bar (N=9, B=1), 4 hidden units",
        paper: "Upadhya & Sastry 2017, Fig. 1",
        data: "shifting-bar",
        eval_data: None,
        ais: None,
        hidden: 4,
        init: Init::Sdcp,
        chains: None,
        batch: None,
        decay: false,
        lanes: SDCP_LANES,
        rates: &[0.3, 0.5],
        rate_notes: SDCP_RATE_NOTES,
        expect: "The paper reports that CD-12 and PCD-12 get stuck near −3.15 at both rates (CG escapes \
only at η = 0.5), while S-DCP and CS-DCP climb on towards the bound at either rate and reach \
90% of the way sooner. Every lane spends 12 Gibbs sweeps per update (k = 12; S-DCP and CS-DCP d·K′ = 3·4), \
so updates are equal compute. In our explorer runs (rbm explore, docs/explorer.md) the plateau \
and five of these six claims hold at η = 0.05 with initial weights of σ ≤ 0.001, not at the \
paper's rates with σ = 0.01.",
        claims: SHIFTING_BAR_CLAIMS,
        iters: 50_000,
        every: 100,
        trials: 25,
        scale: "",
        paper_scale: None,
    },
    Preset {
        name: "sdcp-bas3",
        title: "S-DCP paper, Bars & Stripes 3x3, 4 hidden units",
        paper: "Upadhya & Sastry 2017, Fig. 2",
        data: "bas3",
        eval_data: None,
        ais: None,
        hidden: 4,
        init: Init::Sdcp,
        chains: None,
        batch: None,
        decay: false,
        lanes: SDCP_LANES,
        rates: &[0.3, 0.5],
        rate_notes: &[
            "the paper's smaller rate",
            "the paper's larger rate",
        ],
        expect: "The paper reports that CS-DCP, S-DCP and CG end at about the same ATLL, that CD-12 \
and PCD-12 depend on the learning rate and stay below them, and that CS-DCP and S-DCP get 90% \
of the way sooner (CG about 2500 epochs after CS-DCP). Every lane spends 12 Gibbs sweeps per update (k = 12; \
S-DCP and CS-DCP d·K′ = 3·4), so updates are equal compute. In our explorer runs (rbm explore, \
docs/explorer.md) CD-12 and PCD-12 end below the others only for η ≤ 0.02, the three others end \
within 0.1 nats at no η or σ we tried, and CS-DCP and S-DCP get 90% of the way sooner almost \
everywhere.",
        claims: BAS3_CLAIMS,
        iters: 50_000,
        every: 100,
        trials: 25,
        scale: "",
        paper_scale: None,
    },
    Preset {
        name: "ucd-bas4",
        title: "UCD paper, Bars & Stripes 4x4, 16 hidden units, 1000 chains",
        paper: "Qiu, Zhang & Wang 2020, Fig. 2",
        data: "bas4",
        eval_data: None,
        ais: None,
        hidden: 16,
        init: Init::Ucd,
        chains: Some(1000),
        batch: None,
        decay: false,
        lanes: &[
            PresetLane { algo: "cd", label: "CD-1", options: &[("k", "1")] },
            PresetLane { algo: "pcd", label: "PCD-1", options: &[("k", "1")] },
            PresetLane { algo: "ucd", label: "UCD", options: &[("k", "1"), ("max_steps", "100")] },
        ],
        rates: &[0.1, 0.01],
        rate_notes: &["the authors' published code", "the paper's text"],
        expect: "The paper reports that CD-1 and PCD-1 rise, then diverge (their log-likelihood falls \
back from about update 1200 on), while UCD keeps converging, its stopping time τ jumping where \
CD starts to fail and then falling. The paper reports a mean τ of 2.40, counting coupled steps; \
the page counts τ as the first t with ξ_t = η_{t−1}, so its τ is not the paper's number. \
Compare the lanes on the Gibbs-sweeps axis.",
        claims: UCD_CLAIMS,
        iters: 10_000,
        every: 100,
        trials: 25,
        scale: "25 trials instead of the paper's 100 (--scale paper, or --runs 100)",
        // Qiu, Zhang & Wang 2020, §6.1: 100 runs.
        paper_scale: Some(Extent {
            trials: 100,
            iters: 10_000,
            every: 100,
            ais: None,
        }),
    },
    Preset {
        name: "pcd-mnist-25",
        title: "PCD paper, MNIST, 25 hidden units, exact test log-likelihood",
        paper: "Tieleman 2008, Fig. 1",
        data: "mnist",
        eval_data: Some("mnist-test"),
        ais: None,
        hidden: 25,
        init: Init::Sdcp,
        chains: None,
        batch: Some(100),
        decay: true,
        lanes: PCD_MNIST_LANES,
        rates: &[0.1],
        rate_notes: &["ours (chosen from 0.02, 0.05 and 0.1 on runs of PCD, CD-1 and CD-10 of 50 epochs); the paper \
chose η per algorithm and duration on validation data and does not print it"],
        expect: "The paper reports that PCD reaches the highest test log-likelihood, that CD-10 beats \
CD-1 but costs about four times as much per update (ten sweeps here), and that MF-CD is the worst. The paper compares at equal \
training time: read the lanes against train_seconds or Gibbs sweeps, not updates.",
        claims: PCD_MNIST_CLAIMS,
        iters: 4_000,
        every: 2_000,
        trials: 2,
        scale: "2 runs of 4 000 updates (50 epochs of our 8 000 digits) evaluated at 0, 25 and 50 \
epochs, instead of the paper's 10 runs per training duration (--scale paper, or --runs 10; \
longer runs: --iters, --every)",
        // Tieleman 2008, §4: 10 runs per training duration, each with the exact test
        // log-likelihood. The paper's durations are training times on its machine, so the
        // length stays the preset's.
        paper_scale: Some(Extent {
            trials: 10,
            iters: 4_000,
            every: 2_000,
            ais: None,
        }),
    },
    Preset {
        name: "sdcp-mnist",
        title: "S-DCP paper, MNIST, 500 hidden units, AIS test log-likelihood",
        paper: "Upadhya & Sastry 2017, Fig. 3",
        data: "mnist",
        eval_data: Some("mnist-test"),
        ais: Some(AisSpec {
            particles: 100,
            betas: 1_000,
        }),
        hidden: 500,
        init: Init::Sdcp,
        chains: None,
        batch: Some(200),
        decay: false,
        lanes: SDCP_MNIST_LANES,
        rates: &[0.01],
        rate_notes: &["the paper's small rate, where the paper reports CS-DCP converging faster"],
        expect: "The paper reports that at η = 0.01 CS-DCP converges fastest (it reaches 90% of its \
best ATLL about 100 epochs before CG) and that after 200 epochs all algorithms reach about \
the same ATLL. Every lane spends 24 Gibbs sweeps per update (CD-24; S-DCP and CS-DCP d·K′ = 6·4), so \
updates are equal compute.",
        claims: SDCP_MNIST_CLAIMS,
        iters: 200,
        every: 40,
        trials: 1,
        scale: "1 trial of 5 epochs with AIS of 100 particles × 1 000 β per epoch instead of the \
paper's 10 trials of 200 epochs with 10 000 β (--scale paper, or --runs 10 --epochs 200 \
--betas 10000)",
        // Upadhya & Sastry 2017, §4.1: 10 trials of 200 epochs, AIS with 100 particles and
        // 10 000 β per epoch; an epoch of our 8 000 training digits is 40 mini-batches of 200.
        paper_scale: Some(Extent {
            trials: 10,
            iters: 8_000,
            every: 40,
            ais: Some(AisSpec {
                particles: 100,
                betas: 10_000,
            }),
        }),
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
    /// The trials, length, checkpoint interval and AIS a study of this preset starts from at
    /// `scale`: its own fields, or at [`Scale::Paper`] its [`Preset::paper_scale`] when it has
    /// one (a preset without one runs at the paper's scale by default).
    pub fn extent(&self, scale: Scale) -> Extent {
        match (scale, self.paper_scale) {
            (Scale::Paper, Some(paper)) => paper,
            _ => Extent {
                trials: self.trials,
                iters: self.iters,
                every: self.every,
                ais: self.ais,
            },
        }
    }

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
        self.lane_config_for(lane, lr, seed, every, self.iters)
    }

    /// [`Preset::lane_config`] for a run of `iters` updates: with `decay`, η reaches 0 at
    /// update `iters` (Tieleman 2008, §4.5). An exactly measured preset on a model too large
    /// for the lanes' default exact curve (more than 20 units in the smaller layer) raises the
    /// lane's `exact_bits` to that size, so the page enumerates it.
    pub fn lane_config_for(
        &self,
        lane: usize,
        lr: f64,
        seed: u64,
        every: u64,
        iters: u64,
    ) -> Result<LaneConfig> {
        let l = &self.lanes[lane];
        // Checked by the schema before it joins the configuration (a NaN would reach the other
        // options' checks as JSON's null, and be blamed on them).
        option("lr")
            .expect("the schema has a learning rate")
            .parse(&lr.to_string())?;
        let defaults = LaneConfig::default();
        let mut cfg = LaneConfig {
            algo: l.algo.to_string(),
            hidden: self.hidden,
            lr,
            lr_decay_iters: self.decay.then_some(iters.max(1)),
            chains: self.chains,
            batch: self.batch,
            init: self.init,
            seed: Some(seed),
            lane: lane as u64,
            every,
            exact_bits: if self.ais.is_none() {
                defaults.exact_bits.max(self.hidden.min(MAX_ENUM_BITS))
            } else {
                defaults.exact_bits
            },
            ..defaults
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
    use crate::train::Lane;
    use std::sync::Arc;

    /// MNIST-shaped stand-ins (the core's tests do not read the asset): `count` 28×28 grey
    /// digits of a few blurred strokes, split as the asset is (the last 1 000 are the test
    /// set, the 1 000 before them the validation set).
    pub(crate) fn fake_mnist(name: &str, count: usize) -> Dataset {
        let side = crate::data::mnist::SIDE;
        let mut pixels = Vec::with_capacity(count * side * side);
        for d in 0..count {
            for y in 0..side {
                for x in 0..side {
                    let stroke = (x + d % 7).abs_diff(y + (d * 3) % 5) < 3 || (x + y + d) % 11 == 0;
                    let edge = x < 3 || y < 3 || x > 24 || y > 24;
                    pixels.push(if edge {
                        0
                    } else if stroke {
                        230
                    } else {
                        20
                    });
                }
            }
        }
        let images = crate::data::mnist::Images {
            height: side,
            width: side,
            pixels,
            labels: None,
        };
        crate::data::mnist::split_dataset(&images, name).unwrap()
    }

    /// A preset's training data: the core's own, or the MNIST stand-in.
    pub(crate) fn data_of(p: &Preset) -> Dataset {
        p.dataset()
            .unwrap_or_else(|_| fake_mnist(p.data, 2_000 + p.batch.unwrap_or(1) * 2))
    }

    /// The S-DCP paper compares at equal compute per update (§3.1: d·K′ = K; K = 12 on the small
    /// sets, K = 24 = 6·4 on MNIST): every lane of its presets must record the same Gibbs
    /// sweeps, K per update.
    #[test]
    fn sdcp_presets_spend_equal_sweeps_per_update() {
        let mut seen = 0;
        for p in PRESETS.iter().filter(|p| p.name.starts_with("sdcp-")) {
            let k = if p.data == "mnist" { 24.0 } else { 12.0 };
            let data = Arc::new(data_of(p));
            let sweeps: Vec<f64> = (0..p.lanes.len())
                .map(|i| {
                    let mut lane =
                        Lane::new(p.lane_config(i, p.rates[0], 3, 2).unwrap(), data.clone())
                            .unwrap();
                    lane.run(2).unwrap().last().unwrap().sweeps
                })
                .collect();
            assert!(
                sweeps.iter().all(|&s| s == 2.0 * k),
                "{}: {sweeps:?}",
                p.name
            );
            seen += 1;
        }
        assert_eq!(seen, 3, "sdcp-shifting-bar, sdcp-bas3 and sdcp-mnist");
        let p = find_preset("sdcp-mnist").unwrap();
        let c = |i| p.lane_config(i, 0.01, 1, 40).unwrap();
        assert_eq!((c(0).algo.as_str(), c(0).k), ("cd", 24));
        for i in [1, 2] {
            assert_eq!(c(i).d * c(i).kprime, 24, "{}", p.lanes[i].label);
            assert_eq!((c(i).d, c(i).kprime), (6, 4));
        }
    }

    /// Tieleman 2008, Figure 1: PCD, CD-1, CD-10 and MF-CD on 784×25 with mini-batches of 100,
    /// PCD's chains one per batch row, η decaying to 0 at the end of the run, and the test ATLL
    /// exact (so the page enumerates 2^25 hidden states too).
    #[test]
    fn the_mnist_presets_build_their_lanes() {
        let p = find_preset("pcd-mnist-25").unwrap();
        assert_eq!(
            (p.data, p.eval_data, p.ais),
            ("mnist", Some("mnist-test"), None)
        );
        let labels: Vec<&str> = p.lanes.iter().map(|l| l.label).collect();
        assert_eq!(labels, ["PCD", "CD-1", "CD-10", "MF-CD"]);
        let data = Arc::new(data_of(p));
        for i in 0..p.lanes.len() {
            let c = p.lane_config(i, p.rates[0], 5, p.every).unwrap();
            assert_eq!((c.hidden, c.batch, c.chains), (25, Some(100), None));
            assert_eq!(c.lr_decay_iters, Some(p.iters));
            assert_eq!(c.exact_bits, 25);
            assert_eq!(
                p.lane_config_for(i, 0.1, 5, 10, 777)
                    .unwrap()
                    .lr_decay_iters,
                Some(777)
            );
            // Built and stepped without its exact curve (a 2^25 enumeration per record).
            let mut lane = Lane::new(LaneConfig { exact_bits: 0, ..c }, data.clone()).unwrap();
            let r = lane.run(1).unwrap();
            assert_eq!((lane.iter(), r[0].iter), (1, 0));
        }
        let ks: Vec<usize> = (0..4)
            .map(|i| p.lane_config(i, 0.05, 1, 1).unwrap().k)
            .collect();
        assert_eq!(ks, [1, 1, 10, 1]);
        let s = find_preset("sdcp-mnist").unwrap();
        assert_eq!((s.hidden, s.batch, s.decay), (500, Some(200), false));
        assert_eq!(s.ais.unwrap().particles, 100);
        assert_eq!(s.lane_config(0, 0.01, 1, 40).unwrap().exact_bits, 20);
        assert_eq!(s.lane_config(0, 0.01, 1, 40).unwrap().lr_decay_iters, None);
    }

    /// The paper scale of each shortened preset is what its paper reports: Tieleman 2008 §4,
    /// 10 runs of `pcd-mnist-25` with the exact test log-likelihood; Upadhya & Sastry 2017 §4.1,
    /// 10 trials of `sdcp-mnist` × 200 epochs with AIS of 100 particles × 10 000 β every
    /// epoch; Qiu, Zhang & Wang 2020 §6.1, 100 runs of `ucd-bas4`. A preset already at its
    /// paper's scale has none, and every preset's `scale` text names `--scale paper` exactly
    /// when it has one.
    #[test]
    fn the_paper_scales_are_the_papers() {
        let train_rows = crate::data::mnist::split(crate::data::mnist::COUNT)[0].len();
        assert_eq!(train_rows, 8_000);
        let pcd = find_preset("pcd-mnist-25").unwrap();
        let paper = pcd.extent(Scale::Paper);
        assert_eq!(Some(paper), pcd.paper_scale);
        assert_eq!(
            (paper.trials, paper.iters, paper.every, paper.ais),
            (10, pcd.iters, pcd.every, None)
        );
        assert!(pcd.hidden <= MAX_ENUM_BITS, "its curves stay exact");
        let sdcp = find_preset("sdcp-mnist").unwrap();
        let paper = sdcp.extent(Scale::Paper);
        let batch = sdcp.batch.unwrap() as u64;
        assert_eq!(paper.trials, 10);
        assert_eq!(paper.iters * batch, 200 * train_rows as u64, "200 epochs");
        assert_eq!(paper.every * batch, train_rows as u64, "AIS every epoch");
        assert_eq!(
            paper.ais,
            Some(AisSpec {
                particles: 100,
                betas: 10_000
            })
        );
        let ucd = find_preset("ucd-bas4").unwrap().extent(Scale::Paper);
        assert_eq!((ucd.trials, ucd.iters, ucd.every), (100, 10_000, 100));
        for p in PRESETS {
            let reduced = p.extent(Scale::Reduced);
            assert_eq!(
                (reduced.trials, reduced.iters, reduced.every, reduced.ais),
                (p.trials, p.iters, p.every, p.ais),
                "{}",
                p.name
            );
            assert_eq!(
                p.paper_scale.is_some(),
                !p.scale.is_empty(),
                "{}: a shortened preset has a paper scale",
                p.name
            );
            assert_eq!(
                p.scale.contains("--scale paper"),
                p.paper_scale.is_some(),
                "{}",
                p.name
            );
            match p.paper_scale {
                Some(paper) => {
                    assert_ne!(paper, reduced, "{}", p.name);
                    assert_eq!(paper.ais.is_some(), p.ais.is_some(), "{}", p.name);
                }
                None => assert_eq!(p.extent(Scale::Paper), reduced, "{}", p.name),
            }
        }
        for (i, name) in Scale::NAMES.iter().enumerate() {
            let s = Scale::parse(name).unwrap();
            assert_eq!((s as usize, s.name()), (i, *name));
        }
        assert_eq!(Scale::parse("full").unwrap_err().key(), Some("scale"));
        assert_eq!(Scale::default(), Scale::Reduced);
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
            assert!(p.dataset().is_ok() || p.data == "mnist", "{}", p.name);
            assert!(!p.rates.is_empty(), "{}", p.name);
            assert_eq!(p.rate_notes.len(), p.rates.len(), "{}", p.name);
            assert!(
                !p.expect.is_empty() && !p.expect.contains('\n'),
                "{}",
                p.name
            );
            // What the paper found is the paper's word, never the page's (issue 27): the page's
            // own findings come from the claims' verdicts and the lanes' numbers.
            assert!(
                p.expect.starts_with("The paper reports"),
                "{}: {}",
                p.name,
                p.expect
            );
        }
        assert_ne!(trial_seed(1, 0), trial_seed(1, 1));
    }

    /// Every claim names lanes of its preset and rates it runs at.
    #[test]
    fn claims_name_their_presets_lanes_and_rates() {
        for p in PRESETS {
            assert!(!p.claims.is_empty(), "{}", p.name);
            for c in p.claims {
                for l in c.lanes() {
                    assert!(
                        p.lanes.iter().any(|x| x.label == l),
                        "{}: '{}' names '{l}'",
                        p.name,
                        c.text
                    );
                }
                assert!(c.rates.iter().all(|r| p.rates.contains(r)), "{}", c.text);
                assert!(p.rates.iter().any(|&r| c.applies_to(r)));
            }
        }
        assert_ne!(trial_seed(1, 0), trial_seed(2, 0));
    }
}

//! Samplers built on the RBM's block-Gibbs conditionals.
//!
//! - [`coupling`]: the RBM-specialised maximal coupling of two Gibbs chains (Qiu, Zhang & Wang
//!   2020, Algorithm 3), the engine of unbiased contrastive divergence (docs/algorithms.md §4).
//! - Samplers of a trained model (Breuleux, Bengio & Vincent 2011; docs/algorithms.md §5), one
//!   file each behind [`Sampler`], registered in [`SAMPLERS`]: [`gibbs`], [`rates_fpcd`],
//!   [`rates_herding`] and [`sp`] (sample penalisation). The three fast-parameter samplers share
//!   [`fast`]. Each produces a stream of samples from one persistent chain, `k` steps between
//!   emitted samples.
//! - [`engine`]: the same samplers on an engine ([`crate::engine::Engine`] and the few
//!   operations of [`engine::SamplerEngine`]): `rbm sample --device gpu`;
//! - [`drift`]: the no-drift self-test of a sampler on a model small enough to enumerate;
//! - [`study`]: the paper's comparison on MNIST with its claims checked (`rbm reproduce
//!   rates-fpcd-mnist`).

pub mod coupling;
pub mod drift;
pub mod engine;
pub mod fast;
pub mod gibbs;
pub mod rates_fpcd;
pub mod rates_herding;
pub mod sp;
pub mod study;

pub use coupling::{Conditional, Coupling, StepInfo, ThresholdProduct};

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::model::{Params, Rbm};
use crate::rng::Rng;
use crate::schema::{OptionSpec, Scope};
use serde::Serialize;

/// A sampler of a trained model: one persistent chain that emits a visible sample every
/// [`Sampler::next`] call.
pub trait Sampler: Send {
    /// Advances the chain `k` steps (and, for the fast-parameter samplers, applies the
    /// update of θ_F after them); the emitted sample is then [`Sampler::visible`].
    fn next(&mut self, rng: &mut Rng);
    /// The emitted 0/1 visible state x⁻.
    fn visible(&self) -> &[f32];
    /// E[x | h⁻] under the parameters the chain ran under (grey levels, for display), into
    /// `out` (length m).
    fn mean(&self, out: &mut [f32]);
    /// Frobenius norm of the fast weights W_F (0 for samplers without them).
    fn fast_norm(&self) -> f64 {
        0.0
    }
}

/// A sampler's settings. Options a sampler does not declare are ignored by it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SamplerConfig {
    /// Registered sampler name (see [`SAMPLERS`]).
    pub sampler: String,
    /// Steps between emitted samples (Gibbs sweeps, or herding fixed-point searches).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub k: usize,
    /// ε_F, the step of the fast parameters (`None`: the sampler's default).
    pub eps_f: Option<f64>,
    /// α, the decay of the fast parameters (`None`: the sampler's default).
    pub alpha: Option<f64>,
    /// Most deterministic steps of rates-herding's fixed-point search per emitted sample.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub cap: usize,
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig {
            sampler: "gibbs".into(),
            k: 1,
            eps_f: None,
            alpha: None,
            cap: 10,
        }
    }
}

/// What a sampler is built from.
pub struct SamplerSetup<'a> {
    /// The trained model θ.
    pub model: &'a Rbm,
    /// The settings.
    pub cfg: &'a SamplerConfig,
    /// The rates R (the positive statistics of the training set under θ, [`rates`]), for the
    /// samplers that use them.
    pub rates: Option<&'a Params<f32>>,
    /// The chain's first visible state (0/1, length m).
    pub start: &'a [f32],
}

/// A registered sampler (docs/algorithms.md §5).
pub struct SamplerInfo {
    /// Name used by the CLI (`--sampler`) and the page.
    pub name: &'static str,
    /// Name as the paper writes it.
    pub title: &'static str,
    /// Where it comes from.
    pub paper: &'static str,
    /// One sentence on what it does.
    pub about: &'static str,
    /// The options it reads.
    pub options: &'static [&'static OptionSpec],
    /// Its default ε_F (meaningful when it declares [`EPS_F`]).
    pub eps_f: f64,
    /// Its default α (meaningful when it declares [`ALPHA`]).
    pub alpha: f64,
    /// Whether it needs the rates R of a training set.
    pub needs_rates: bool,
    /// What it spends per emitted sample, for the cost model.
    pub cost: SamplerCost,
    /// Constructor.
    pub build: fn(&SamplerSetup) -> Result<Box<dyn Sampler>>,
}

/// What a sampler spends, declared in its file next to its options ([`SamplerInfo::cost`]):
/// data only, which the cost model (`src/cost.rs`) turns into the time of `rbm sample` and
/// `rbm drift`.
#[derive(Clone, Copy, Debug)]
pub struct SamplerCost {
    /// m×n arrays a step sums on each active row: θ alone 1; θ + θ_F, kept lazily as
    /// A + σ·B + ρ·R, 2 (3 with both a decay α < 1 and rates).
    pub weight_sets: f64,
    /// Whether each emitted sample updates θ_F: a half-step more for E[h|x⁻], and the rows of
    /// the active visible units written in W_F and in its transpose.
    pub fast_update: bool,
    /// m×n arrays a chain makes when it starts (copies of W, its layouts and R; a transposed
    /// copy counts 4): what `rbm drift` pays per chain.
    pub build_sets: f64,
    /// Steps per emitted sample (an estimate where the count is random) and the option that
    /// sets them.
    pub steps: fn(&SamplerConfig) -> (f64, &'static str),
}

/// `k` steps per emitted sample, set by `--k` ([`SamplerCost::steps`] of the Gibbs-stepping
/// samplers).
pub fn k_steps(c: &SamplerConfig) -> (f64, &'static str) {
    (c.k as f64, "k")
}

/// Every sampler, in the order the page shows them.
pub const SAMPLERS: &[&SamplerInfo] = &[
    &gibbs::INFO,
    &rates_fpcd::INFO,
    &rates_herding::INFO,
    &sp::INFO,
];

/// Looks a sampler up by name, with the known names in the error.
pub fn find(name: &str) -> Result<&'static SamplerInfo> {
    SAMPLERS
        .iter()
        .copied()
        .find(|s| s.name == name)
        .ok_or_else(|| {
            invalid(
                "sampler",
                format!(
                    "unknown sampler '{name}' (known: {})",
                    SAMPLERS
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
}

/// An error about option `key`.
fn invalid(key: &str, message: impl Into<String>) -> Error {
    Error::InvalidOption {
        key: key.into(),
        message: message.into(),
    }
}

/// Samples `rbm sample` emits unless told (the usual value the cost model measures
/// `--samples` against).
pub const DEFAULT_SAMPLES: u64 = 10_000;

/// Largest k and herding cap.
pub const STEP_LIMIT: u64 = 10_000;

/// `k`: steps between emitted samples.
pub const K: OptionSpec = OptionSpec {
    key: "k",
    label: "steps between samples k",
    help: "Gibbs sweeps (or herding fixed-point searches) between two emitted samples",
    kind: crate::schema::Kind::Int {
        min: 1,
        max: STEP_LIMIT,
    },
    default: crate::schema::options::Default::Int(1),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};

/// `eps_f`: ε_F, the step of the fast parameters.
pub const EPS_F: OptionSpec = OptionSpec {
    key: "eps_f",
    label: "fast step ε_F",
    help: "step of the fast parameters: θ_F ← α·θ_F + ε_F·(R − s(x⁻))",
    kind: crate::schema::Kind::Float {
        min: 0.0,
        max: 100.0,
        max_open: false,
    },
    default: crate::schema::options::Default::Derived("the sampler's own"),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};

/// `alpha`: α, the decay of the fast parameters.
pub const ALPHA: OptionSpec = OptionSpec {
    key: "alpha",
    label: "fast decay α",
    help:
        "decay of the fast parameters per emitted sample (1: none, the paper's best for rates-FPCD)",
    kind: crate::schema::Kind::Float {
        min: 0.0,
        max: 1.0,
        max_open: false,
    },
    default: crate::schema::options::Default::Derived("the sampler's own"),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};

/// `cap`: most deterministic steps of rates-herding's fixed-point search.
pub const CAP: OptionSpec = OptionSpec {
    key: "cap",
    label: "fixed-point cap",
    help: "most deterministic steps h = 1{c+Wᵀx>0}, x = 1{b+Wh>0} while looking for a fixed point",
    kind: crate::schema::Kind::Int {
        min: 1,
        max: STEP_LIMIT,
    },
    default: crate::schema::options::Default::Int(10),
    advanced: true,
    scope: Scope::Lane,
    live: false,
};

impl SamplerConfig {
    /// ε_F after defaults.
    pub fn eps_f(&self) -> Result<f64> {
        Ok(self.eps_f.unwrap_or(find(&self.sampler)?.eps_f))
    }

    /// α after defaults.
    pub fn alpha(&self) -> Result<f64> {
        Ok(self.alpha.unwrap_or(find(&self.sampler)?.alpha))
    }

    /// Checks every option against its declaration, with an error naming the option.
    pub fn validate(&self) -> Result<()> {
        let info = find(&self.sampler)?;
        let check = |spec: &OptionSpec, x: Option<f64>| -> Result<()> {
            if let Some(x) = x {
                spec.parse(&format!("{x}"))?;
            }
            Ok(())
        };
        check(&K, Some(self.k as f64))?;
        check(&CAP, Some(self.cap as f64))?;
        check(&EPS_F, self.eps_f)?;
        check(&ALPHA, self.alpha)?;
        if info.name == "sp" && self.alpha()? >= 1.0 {
            return Err(invalid(
                "alpha",
                "sample penalisation needs a decay α below 1 (with rates 0 and no decay the fast \
                 parameters only grow)",
            ));
        }
        Ok(())
    }

    /// Builds the sampler starting at `start`, with the `rates` it needs.
    pub fn build(
        &self,
        model: &Rbm,
        rates: Option<&Params<f32>>,
        start: &[f32],
    ) -> Result<Box<dyn Sampler>> {
        self.validate()?;
        let info = find(&self.sampler)?;
        if start.len() != model.m() {
            return Err(Error::Invalid(format!(
                "the chain's start has {} values but the model has {} visible units",
                start.len(),
                model.m()
            )));
        }
        if info.needs_rates && rates.is_none() {
            return Err(Error::Invalid(format!(
                "{} needs the rates of a training set",
                info.title
            )));
        }
        (info.build)(&SamplerSetup {
            model,
            cfg: self,
            rates,
            start,
        })
    }
}

/// Every sampler option, in the order the shells show them.
pub const OPTIONS: &[&OptionSpec] = &[&K, &EPS_F, &ALPHA, &CAP];

impl SamplerConfig {
    /// Sets option `key` (the sampler's name under `sampler`) from a value its schema parsed.
    pub fn set(&mut self, key: &str, value: &serde_json::Value) -> Result<()> {
        let num = || {
            value
                .as_f64()
                .ok_or_else(|| invalid(key, format!("{key} needs a number (got {value})")))
        };
        match key {
            "sampler" => {
                let name = value.as_str().unwrap_or_default();
                self.sampler = find(name)?.name.to_string();
            }
            "k" => self.k = num()? as usize,
            "cap" => self.cap = num()? as usize,
            "eps_f" => self.eps_f = value.as_f64(),
            "alpha" => self.alpha = value.as_f64(),
            _ => return Err(invalid(key, format!("unknown sampler option '{key}'"))),
        }
        Ok(())
    }
}

/// A seeded stream of samples: the rates from the training set (`Data` stream), the chain's
/// start — a training row binarised (`Aux` stream) — and the chain (`Sampling` stream), all from
/// one seed, so the same seed gives the same samples natively and in wasm.
pub struct SampleStream {
    sampler: Box<dyn Sampler>,
    rng: Rng,
    emitted: u64,
}

impl SampleStream {
    /// The stream of `cfg` on `model`, with rates and start from `train` (binarised as
    /// `binarize` says when grey).
    pub fn new(
        model: &Rbm,
        train: &Dataset,
        binarize: crate::data::Binarize,
        cfg: &SamplerConfig,
        seed: u64,
    ) -> Result<SampleStream> {
        let (rates, start) = prepare(model, train, binarize, cfg, seed)?;
        Ok(SampleStream {
            sampler: cfg.build(model, rates.as_ref(), &start)?,
            rng: crate::rng::stream(seed, 0, crate::rng::Purpose::Sampling),
            emitted: 0,
        })
    }

    /// The next sample (0/1).
    pub fn next_sample(&mut self) -> &[f32] {
        self.sampler.next(&mut self.rng);
        self.emitted += 1;
        self.sampler.visible()
    }

    /// The last sample's grey levels E[x|h⁻] into `out`.
    pub fn mean(&self, out: &mut [f32]) {
        self.sampler.mean(out);
    }

    /// The last sample.
    pub fn visible(&self) -> &[f32] {
        self.sampler.visible()
    }

    /// Samples emitted so far.
    pub fn emitted(&self) -> u64 {
        self.emitted
    }

    /// ‖W_F‖ now.
    pub fn fast_norm(&self) -> f64 {
        self.sampler.fast_norm()
    }
}

/// What a stream of `cfg` on `model` starts from, for `seed`: the rates R from `train` (`Data`
/// stream; None for a sampler that does not use them) and the chain's first state, a training
/// row binarised (`Aux` stream). [`SampleStream::new`] and the engines' samplers
/// ([`engine::EngineSampler`]) start from the same.
pub fn prepare(
    model: &Rbm,
    train: &Dataset,
    binarize: crate::data::Binarize,
    cfg: &SamplerConfig,
    seed: u64,
) -> Result<(Option<Params<f32>>, Vec<f32>)> {
    cfg.validate()?;
    crate::eval::exact::check_fit(model, train)?;
    if train.rows() == 0 {
        return Err(Error::Invalid("the training set has no rows".into()));
    }
    let info = find(&cfg.sampler)?;
    let rates = if info.needs_rates {
        let mut rng = crate::rng::stream(seed, 0, crate::rng::Purpose::Data);
        Some(rates(model, train, binarize, &mut rng)?)
    } else {
        None
    };
    let mut aux = crate::rng::stream(seed, 0, crate::rng::Purpose::Aux);
    let mut start = train
        .row(crate::rng::index(&mut aux, train.rows()))
        .to_vec();
    if !train.is_binary() {
        binarize.apply(&mut start, &mut aux);
    }
    Ok((rates, start))
}

/// Rows per block when computing the rates.
const RATES_BLOCK: usize = 256;

/// The rates R = (mean v·E[h|v]ᵀ, mean v, mean E[h|v]) of `data` under `model`: the positive
/// statistics of the whole training set (the rates-FPCD paper §4; docs/algorithms.md §5).
/// Grey-level rows are binarised once each as `data` is during training (one Bernoulli draw per
/// pixel from `rng`, or the threshold).
pub fn rates(
    model: &Rbm,
    data: &Dataset,
    binarize: crate::data::Binarize,
    rng: &mut Rng,
) -> Result<Params<f32>> {
    crate::eval::exact::check_fit(model, data)?;
    let (m, n) = (model.m(), model.n());
    let mut stats = crate::model::Stats::new(m, n);
    let mut hp = vec![0.0; RATES_BLOCK * n];
    let binary = data.is_binary();
    let mut v = Vec::with_capacity(RATES_BLOCK * m);
    for rows in data.values.chunks(RATES_BLOCK * m) {
        v.clear();
        v.extend_from_slice(rows);
        if !binary {
            binarize.apply(&mut v, rng);
        }
        let hp = &mut hp[..rows.len() / m * n];
        model.hidden_probs(&v, hp);
        stats.add(&v, hp);
    }
    Ok(stats.mean())
}

/// A sampler's description for the shells' menus.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SamplerEntry {
    /// [`SamplerInfo::name`].
    pub name: &'static str,
    /// [`SamplerInfo::title`].
    pub title: &'static str,
    /// [`SamplerInfo::paper`].
    pub paper: &'static str,
    /// [`SamplerInfo::about`].
    pub about: &'static str,
    /// The declarations of the options it reads (kind, range, label), so a shell checks their
    /// inputs as it checks a lane's.
    pub options: Vec<OptionSpec>,
    /// Default ε_F.
    pub eps_f: f64,
    /// Default α.
    pub alpha: f64,
}

/// Every registered sampler, for the shells.
pub fn catalog() -> Vec<SamplerEntry> {
    SAMPLERS
        .iter()
        .map(|s| SamplerEntry {
            name: s.name,
            title: s.title,
            paper: s.paper,
            about: s.about,
            options: s.options.iter().map(|&&o| o).collect(),
            eps_f: s.eps_f,
            alpha: s.alpha,
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    use super::*;
    use crate::rng::{stream, Purpose};

    fn model() -> Rbm {
        Rbm::random(12, 7, 0.8, 5).unwrap()
    }

    fn run(
        cfg: &SamplerConfig,
        rates: Option<&Params<f32>>,
        seed: u64,
        count: usize,
    ) -> Vec<Vec<f32>> {
        let m = model();
        let start = vec![0.0; m.m()];
        let mut s = cfg.build(&m, rates, &start).unwrap();
        let mut rng = stream(seed, 0, Purpose::Sampling);
        (0..count)
            .map(|_| {
                s.next(&mut rng);
                s.visible().to_vec()
            })
            .collect()
    }

    fn cfg(name: &str, k: usize, eps_f: Option<f64>, alpha: Option<f64>) -> SamplerConfig {
        SamplerConfig {
            sampler: name.into(),
            k,
            eps_f,
            alpha,
            ..SamplerConfig::default()
        }
    }

    /// With ε_F = 0, θ_F stays 0 and rates-FPCD and sample penalisation are Gibbs, bit for bit
    /// (the rates-FPCD paper's samplers differ from Gibbs only through θ_F).
    #[test]
    fn fast_samplers_with_no_fast_step_are_gibbs() {
        let r = Params {
            w: vec![0.3; 12 * 7],
            b: vec![0.2; 12],
            c: vec![0.1; 7],
        };
        let gibbs = run(&cfg("gibbs", 3, None, None), None, 9, 50);
        assert_eq!(
            run(&cfg("rates-fpcd", 3, Some(0.0), None), Some(&r), 9, 50),
            gibbs
        );
        assert_eq!(run(&cfg("sp", 3, Some(0.0), Some(0.5)), None, 9, 50), gibbs);
        // and a real fast step changes the chain
        assert_ne!(
            run(&cfg("rates-fpcd", 3, Some(0.5), None), Some(&r), 9, 50),
            gibbs
        );
    }

    #[test]
    fn same_seed_same_samples() {
        let r = Params {
            w: vec![0.3; 12 * 7],
            b: vec![0.2; 12],
            c: vec![0.1; 7],
        };
        for name in ["gibbs", "rates-fpcd", "rates-herding", "sp"] {
            let c = cfg(name, 2, None, None);
            assert_eq!(run(&c, Some(&r), 4, 30), run(&c, Some(&r), 4, 30), "{name}");
        }
        assert_ne!(
            run(&cfg("gibbs", 1, None, None), None, 4, 30),
            run(&cfg("gibbs", 1, None, None), None, 5, 30)
        );
    }

    /// Herding's emitted state is a fixed point of the deterministic map under θ + θ_F before
    /// the update: with ε_F = 0 every emitted sample is the same fixed point.
    #[test]
    fn herding_without_a_step_stays_at_a_fixed_point() {
        let m = model();
        let c = SamplerConfig {
            cap: 1000,
            ..cfg("rates-herding", 1, Some(0.0), None)
        };
        let r = Params::zeros(12, 7);
        let xs = run(&c, Some(&r), 1, 5);
        assert!(xs.windows(2).all(|w| w[0] == w[1]), "{xs:?}");
        let mut h = vec![0.0; 7];
        let mut x = vec![0.0; 12];
        m.hidden_pre(&xs[0], &mut h);
        h.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
        m.visible_pre(&h, &mut x);
        x.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
        assert_eq!(x, xs[0]);
    }

    /// R is the mean of s(v) = (v·E[h|v]ᵀ, v, E[h|v]) over the training rows.
    #[test]
    fn rates_are_the_mean_positive_statistics() {
        let data = crate::data::Dataset::builtin("bas3").unwrap();
        let m = Rbm::random(9, 4, 0.7, 2).unwrap();
        let r = rates(
            &m,
            &data,
            crate::data::Binarize::Sample,
            &mut stream(1, 0, Purpose::Aux),
        )
        .unwrap();
        let rows = data.rows();
        let mut hp = vec![0.0; 4];
        let (mut w, mut c) = (vec![0.0f64; 36], vec![0.0f64; 4]);
        for k in 0..rows {
            let v = data.row(k);
            m.hidden_probs(v, &mut hp);
            for i in 0..9 {
                for j in 0..4 {
                    w[i * 4 + j] += (v[i] * hp[j]) as f64 / rows as f64;
                }
            }
            for j in 0..4 {
                c[j] += hp[j] as f64 / rows as f64;
            }
        }
        for (a, b) in r.w.iter().zip(&w).chain(r.c.iter().zip(&c)) {
            assert!((*a as f64 - b).abs() < 1e-5, "{a} vs {b}");
        }
    }

    #[test]
    fn bad_settings_name_the_option() {
        let key = |e: Error| match e {
            Error::InvalidOption { key, .. } => key,
            e => panic!("{e}"),
        };
        assert_eq!(
            key(cfg("nope", 1, None, None).validate().unwrap_err()),
            "sampler"
        );
        assert_eq!(
            key(cfg("sp", 1, None, Some(1.0)).validate().unwrap_err()),
            "alpha"
        );
        assert_eq!(
            key(cfg("gibbs", 0, None, None).validate().unwrap_err()),
            "k"
        );
        assert_eq!(
            key(cfg("rates-fpcd", 1, Some(-1.0), None)
                .validate()
                .unwrap_err()),
            "eps_f"
        );
        assert!(cfg("rates-fpcd", 1, None, None)
            .build(&model(), None, &[0.0; 12])
            .is_err());
        assert!(cfg("gibbs", 1, None, None)
            .build(&model(), None, &[0.0; 3])
            .is_err());
    }
}

//! A lane's configuration, [`LaneConfig`], and the schema of its options: each option is
//! declared once here (or, for an option only one algorithm reads, in that algorithm's file),
//! and the defaults, the checks, the CLI's flags, the page's inputs, the presets and the URL
//! state all follow from the declaration.

use super::{find, ALGORITHMS};
use crate::data::{Binarize, Dataset};
use crate::error::{Error, Result};
use crate::eval::exact::MAX_ENUM_BITS;
use crate::model::{check_size, Init, MAX_WEIGHTS};
use crate::schema::options::{
    Default as D, Kind, OptionSpec, Scope, F32_MAX, MAX_SEED, STEP_LIMIT,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The largest standard deviation of the initial draws ([`LaneConfig::init_sigma`]): weights
/// of this size already saturate every conditional of the small sets' models.
pub const MAX_INIT_SIGMA: f64 = 100.0;

/// Most chain states a lane may hold (chains × the larger layer), to refuse requests that
/// would exhaust a browser tab.
pub const MAX_CHAIN_VALUES: usize = 1 << 26;

const fn int(min: u64, max: u64) -> Kind {
    Kind::Int { min, max }
}

const fn float(min: f64, max: f64, max_open: bool) -> Kind {
    Kind::Float { min, max, max_open }
}

/// Hidden units n.
pub const HIDDEN: OptionSpec = OptionSpec {
    key: "hidden",
    label: "hidden units",
    help: "number of hidden units n",
    kind: int(1, MAX_WEIGHTS as u64),
    default: D::Int(16),
    advanced: false,
    scope: Scope::Shared,
    live: false,
};
/// Learning rate η.
pub const LR: OptionSpec = OptionSpec {
    key: "lr",
    label: "learning rate η",
    help: "step size of every update",
    kind: float(0.0, F32_MAX, false),
    default: D::Float(0.1),
    advanced: false,
    scope: Scope::Lane,
    live: true,
};
/// Linear decay of η to 0 (Tieleman 2008, §4).
pub const LR_DECAY_ITERS: OptionSpec = OptionSpec {
    key: "lr_decay_iters",
    label: "η decays to 0 over",
    help: "updates over which η decays linearly to 0 (Tieleman 2008)",
    kind: int(1, 1 << 50),
    default: D::Derived("constant η"),
    advanced: true,
    scope: Scope::Lane,
    live: true,
};
/// Gibbs sweeps per update.
pub const K: OptionSpec = OptionSpec {
    key: "k",
    label: "Gibbs sweeps k",
    help: "Gibbs sweeps (h|v then v|h) per update",
    kind: int(1, STEP_LIMIT),
    default: D::Int(1),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// Negative chains.
pub const CHAINS: OptionSpec = OptionSpec {
    key: "chains",
    label: "chains",
    help: "negative-phase chains",
    kind: int(1, MAX_CHAIN_VALUES as u64),
    default: D::Derived("one per batch row"),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// Mini-batch size.
pub const BATCH: OptionSpec = OptionSpec {
    key: "batch",
    label: "batch size",
    help: "training rows per update",
    kind: int(1, MAX_CHAIN_VALUES as u64),
    default: D::Derived("the whole data set"),
    advanced: true,
    scope: Scope::Lane,
    live: false,
};
/// Initialisation of the parameters.
pub const INIT: OptionSpec = OptionSpec {
    key: "init",
    label: "initialisation",
    help: "sdcp: W ~ N(0, 0.01²), base-rate b, c = 0 (Upadhya & Sastry 2017); ucd: W, b, c ~ N(0, 0.1²) (Qiu, Zhang & Wang 2020, their code)",
    kind: Kind::Choice {
        choices: &["sdcp", "ucd"],
    },
    default: D::Name("sdcp"),
    advanced: false,
    scope: Scope::Shared,
    live: false,
};
/// Seed of every random stream.
pub const SEED: OptionSpec = OptionSpec {
    key: "seed",
    label: "seed",
    help: "seed of every random stream; the same seed gives the same numbers",
    kind: int(0, MAX_SEED),
    default: D::Derived("drawn from the system and reported"),
    advanced: false,
    scope: Scope::Shared,
    live: false,
};
/// Evaluation interval.
pub const EVERY: OptionSpec = OptionSpec {
    key: "every",
    label: "evaluate every",
    help: "updates between two evaluations (exact log-likelihood and statistics)",
    kind: int(1, 1 << 40),
    default: D::Int(10),
    advanced: false,
    scope: Scope::Shared,
    live: false,
};
/// How grey-level data become binary visible states.
pub const BINARIZE: OptionSpec = OptionSpec {
    key: "binarize",
    label: "binarisation",
    help: "grey-level data: sample (a fresh Bernoulli draw per use, as the papers do) or threshold (at 0.5); binary data are used as they are",
    kind: Kind::Choice {
        choices: &["sample", "threshold"],
    },
    default: D::Name("sample"),
    advanced: true,
    scope: Scope::Shared,
    live: false,
};
/// Largest layer enumerated for the exact curve.
pub const EXACT_BITS: OptionSpec = OptionSpec {
    key: "exact_bits",
    label: "exact up to",
    help: "largest smaller layer enumerated for the exact log-likelihood (2^bits states)",
    kind: int(0, MAX_ENUM_BITS as u64),
    default: D::Int(20),
    advanced: true,
    scope: Scope::Shared,
    live: false,
};
/// L2 weight decay.
pub const WEIGHT_DECAY: OptionSpec = OptionSpec {
    key: "weight_decay",
    label: "weight decay",
    help: "L2 penalty on W",
    kind: float(0.0, F32_MAX, false),
    default: D::Float(0.0),
    advanced: true,
    scope: Scope::Lane,
    live: true,
};
/// Momentum.
pub const MOMENTUM: OptionSpec = OptionSpec {
    key: "momentum",
    label: "momentum",
    help: "momentum of the parameter updates",
    kind: float(0.0, 1.0, true),
    default: D::Float(0.0),
    advanced: true,
    scope: Scope::Lane,
    live: true,
};
/// S-DCP / CS-DCP inner steps (Upadhya & Sastry 2017, Algorithm 1).
pub const D_STEPS: OptionSpec = OptionSpec {
    key: "d",
    label: "inner steps d",
    help: "S-DCP / CS-DCP inner steps per update",
    kind: int(1, STEP_LIMIT),
    default: D::Int(3),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// S-DCP / CS-DCP sweeps per inner step.
pub const KPRIME: OptionSpec = OptionSpec {
    key: "kprime",
    label: "sweeps per inner step K′",
    help: "S-DCP / CS-DCP Gibbs sweeps per inner step",
    kind: int(1, STEP_LIMIT),
    default: D::Int(4),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// Sliding factor of the visible offset (centered gradient).
pub const NU_MU: OptionSpec = OptionSpec {
    key: "nu_mu",
    label: "ν_μ",
    help: "sliding factor of the visible offset μ (centered gradient)",
    kind: float(0.0, 1.0, false),
    default: D::Float(0.01),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// Sliding factor of the hidden offset (centered gradient).
pub const NU_LAMBDA: OptionSpec = OptionSpec {
    key: "nu_lambda",
    label: "ν_λ",
    help: "sliding factor of the hidden offset λ (centered gradient)",
    kind: float(0.0, 1.0, false),
    default: D::Float(0.01),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// FPCD's fast learning rate (Tieleman & Hinton 2009).
pub const FAST_LR: OptionSpec = OptionSpec {
    key: "fast_lr",
    label: "fast learning rate η_F",
    help: "FPCD: learning rate of the fast weights",
    kind: float(0.0, F32_MAX, false),
    default: D::Derived("the learning rate η"),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// FPCD's decay of the fast parameters.
pub const FAST_DECAY: OptionSpec = OptionSpec {
    key: "fast_decay",
    label: "fast decay α",
    help: "FPCD: decay of the fast weights per update",
    kind: float(0.0, 1.0, false),
    default: D::Float(0.95),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};
/// UCD's cap on the coupled steps (Qiu, Zhang & Wang 2020, Algorithm 1).
pub const MAX_STEPS: OptionSpec = OptionSpec {
    key: "max_steps",
    label: "cap T_max",
    help: "UCD: cap on the coupled steps before a meeting is forced",
    kind: int(1, STEP_LIMIT),
    default: D::Int(100),
    advanced: false,
    scope: Scope::Lane,
    live: false,
};

/// The options every algorithm reads, in the order the page and the CLI list them.
pub const GENERAL: &[&OptionSpec] = &[
    &HIDDEN,
    &INIT,
    &SEED,
    &EVERY,
    &EXACT_BITS,
    &BINARIZE,
    &LR,
    &BATCH,
    &LR_DECAY_ITERS,
    &WEIGHT_DECAY,
    &MOMENTUM,
];

/// The options stored in fields of [`LaneConfig`] (the rest live in [`LaneConfig::extra`]).
const FIELDS: &[&OptionSpec] = &[
    &HIDDEN,
    &LR,
    &LR_DECAY_ITERS,
    &K,
    &CHAINS,
    &BATCH,
    &INIT,
    &SEED,
    &EVERY,
    &EXACT_BITS,
    &BINARIZE,
    &WEIGHT_DECAY,
    &MOMENTUM,
    &D_STEPS,
    &KPRIME,
    &NU_MU,
    &NU_LAMBDA,
    &FAST_LR,
    &FAST_DECAY,
    &MAX_STEPS,
];

/// Every option of the schema: [`GENERAL`], then each registered algorithm's own in
/// registration order, each once.
pub fn options() -> Vec<&'static OptionSpec> {
    let mut all: Vec<&'static OptionSpec> = GENERAL.to_vec();
    for a in ALGORITHMS {
        for &o in a.options {
            if !all.iter().any(|x| x.key == o.key) {
                all.push(o);
            }
        }
    }
    all
}

/// The option `key` of the schema.
pub fn option(key: &str) -> Option<&'static OptionSpec> {
    options().into_iter().find(|o| o.key == key)
}

/// Everything that defines a lane. Keys are the options' keys ([`options`]) plus `algo` and
/// `lane`; defaults come from the schema.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct LaneConfig {
    /// Algorithm name (see [`super::ALGORITHMS`]).
    pub algo: String,
    /// Number of hidden units n.
    pub hidden: usize,
    /// Learning rate η.
    pub lr: f64,
    /// If set, η decays linearly to 0 over this many updates (Tieleman 2008).
    pub lr_decay_iters: Option<u64>,
    /// Gibbs sweeps per update (CD-k, PCD-k, FPCD, CG; UCD's k).
    pub k: usize,
    /// Number of negative chains; default: the batch size.
    pub chains: Option<usize>,
    /// Mini-batch size; default: the whole data set.
    pub batch: Option<usize>,
    /// Parameter initialisation.
    pub init: Init,
    /// The standard deviation of the initial draws ([`crate::model::Rbm::init_scaled`]);
    /// `None` (the default, not written out): the initialisation's own, 0.01 for `sdcp` and
    /// 0.1 for `ucd`. Not an option of the page or of `rbm train`: the claims explorer
    /// (`rbm explore --init-sigmas`) sets it, since the papers fix the scale without testing it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_sigma: Option<f64>,
    /// Seed; a shell that gets none draws one and reports it.
    pub seed: Option<u64>,
    /// Lane index (not an option a person sets): lanes with the same seed get independent
    /// sampling streams.
    pub lane: u64,
    /// Evaluate (exact ATLL when small enough) every this many updates.
    pub every: u64,
    /// Largest layer enumerated for the exact curve (2^bits states per evaluation).
    pub exact_bits: usize,
    /// How grey-level data are binarised.
    pub binarize: Binarize,
    /// L2 weight decay on W.
    pub weight_decay: f64,
    /// Momentum.
    pub momentum: f64,
    /// S-DCP / CS-DCP: inner steps d.
    pub d: usize,
    /// S-DCP / CS-DCP: Gibbs sweeps K′ per inner step.
    pub kprime: usize,
    /// CG / CS-DCP: sliding factor ν_μ of the visible offset.
    pub nu_mu: f64,
    /// CG / CS-DCP: sliding factor ν_λ of the hidden offset.
    pub nu_lambda: f64,
    /// FPCD: fast learning rate η_F (default η).
    pub fast_lr: Option<f64>,
    /// FPCD: decay α of the fast parameters.
    pub fast_decay: f64,
    /// UCD: cap T_max on the coupled steps.
    pub max_steps: usize,
    /// Options an algorithm declares in its own file, by key (absent: the option's default).
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The schema's default of a whole-number option (`None` when derived).
fn int_default(o: &OptionSpec) -> Option<u64> {
    match o.default {
        D::Int(x) => Some(x),
        _ => None,
    }
}

/// The schema's default of a numeric option (`None` when derived).
fn float_default(o: &OptionSpec) -> Option<f64> {
    match o.default {
        D::Float(x) => Some(x),
        D::Int(x) => Some(x as f64),
        _ => None,
    }
}

impl Default for LaneConfig {
    /// Every option at its schema default (no serde here: `#[serde(default)]` calls this).
    fn default() -> Self {
        let int = |o: &OptionSpec| int_default(o).expect("a whole-number default") as usize;
        let float = |o: &OptionSpec| float_default(o).expect("a numeric default");
        LaneConfig {
            algo: ALGORITHMS[0].name.to_string(),
            hidden: int(&HIDDEN),
            lr: float(&LR),
            lr_decay_iters: int_default(&LR_DECAY_ITERS),
            k: int(&K),
            chains: int_default(&CHAINS).map(|x| x as usize),
            batch: int_default(&BATCH).map(|x| x as usize),
            init: match INIT.default {
                D::Name("ucd") => Init::Ucd,
                _ => Init::Sdcp,
            },
            init_sigma: None,
            seed: int_default(&SEED),
            lane: 0,
            every: int(&EVERY) as u64,
            exact_bits: int(&EXACT_BITS),
            binarize: match BINARIZE.default {
                D::Name("threshold") => Binarize::Threshold,
                _ => Binarize::Sample,
            },
            weight_decay: float(&WEIGHT_DECAY),
            momentum: float(&MOMENTUM),
            d: int(&D_STEPS),
            kprime: int(&KPRIME),
            nu_mu: float(&NU_MU),
            nu_lambda: float(&NU_LAMBDA),
            fast_lr: float_default(&FAST_LR),
            fast_decay: float(&FAST_DECAY),
            max_steps: int(&MAX_STEPS),
            extra: BTreeMap::new(),
        }
    }
}

impl LaneConfig {
    fn to_object(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(o)) => o,
            _ => unreachable!("a struct serialises to an object"),
        }
    }

    /// The value of option `key` (its default when an algorithm's own option is absent).
    pub fn get(&self, key: &str) -> Result<Value> {
        let spec = option(key).ok_or_else(|| unknown(key))?;
        Ok(self
            .to_object()
            .remove(key)
            .unwrap_or_else(|| spec.default.value()))
    }

    /// An algorithm's own numeric option (declared in its file), or its default.
    pub fn number(&self, key: &str) -> Result<f64> {
        self.get(key)?
            .as_f64()
            .ok_or_else(|| Error::option(key, format!("{key} needs a number")))
    }

    /// Sets option `key` (or `algo`) to `v`, checked against its schema; nothing changes on
    /// an error, which names the option.
    pub fn set(&mut self, key: &str, v: Value) -> Result<()> {
        if key == "algo" {
            let name = v
                .as_str()
                .ok_or_else(|| Error::option("algo", "the algorithm must be a name"))?;
            find(name)?;
            self.algo = name.to_string();
            return Ok(());
        }
        let spec = option(key).ok_or_else(|| unknown(key))?;
        spec.check(&v)?;
        let mut obj = self.to_object();
        if FIELDS.iter().any(|f| f.key == key) {
            obj.insert(key.to_string(), v);
        } else if v.is_null() {
            obj.remove(key);
        } else {
            obj.insert(key.to_string(), v);
        }
        *self = serde_json::from_value(Value::Object(obj))
            .map_err(|e| Error::option(key, format!("{}: {e}", spec.label)))?;
        Ok(())
    }

    /// Reads a configuration object (the page's, a preset's): unknown keys and bad values fail
    /// with an error naming the key; absent keys keep their defaults. `init_sigma`, which no
    /// input sets but a claims-explorer cell's configuration carries (its trials run in the
    /// page's workers), is read too, so every configuration reads back from its own object.
    pub fn from_object(obj: &Map<String, Value>) -> Result<LaneConfig> {
        let mut cfg = LaneConfig::default();
        for (key, v) in obj {
            if key == "lane" {
                cfg.lane = v.as_u64().ok_or_else(|| {
                    Error::option("lane", "the lane index must be a whole number")
                })?;
            } else if key == "init_sigma" {
                cfg.init_sigma = match v {
                    Value::Null => None,
                    v => Some(
                        v.as_f64()
                            .filter(|s| s.is_finite() && *s > 0.0 && *s <= MAX_INIT_SIGMA)
                            .ok_or_else(|| {
                                Error::option(
                                    "init_sigma",
                                    format!(
                                        "the initialisation's scale σ must be above 0 and at \
                                         most {MAX_INIT_SIGMA}, got {v}"
                                    ),
                                )
                            })?,
                    ),
                };
            } else {
                cfg.set(key, v.clone())?;
            }
        }
        Ok(cfg)
    }

    /// Checks every option against its schema and against `data`, and the size limits every
    /// shell shares (the model's size, [`MAX_CHAIN_VALUES`]), with an error naming the option at
    /// fault: what [`LaneConfig::validate`] checks before the lane's cost. `validate` and
    /// `validate_for`, which go on to check the cost against a shell's budget, are defined with
    /// the cost model (`src/cost/admit.rs`).
    pub fn check_options(&self, data: &Dataset) -> Result<()> {
        let algo = find(&self.algo)?;
        let obj = self.to_object();
        for spec in GENERAL.iter().chain(algo.options) {
            // An option declared in an algorithm's own file and left unset takes its default.
            match obj.get(spec.key) {
                Some(v) => spec.check(v)?,
                None => spec.check(&spec.default.value())?,
            }
        }
        for key in self.extra.keys() {
            option(key).ok_or_else(|| unknown(key))?;
        }
        if let Some(s) = self.init_sigma {
            if !(s.is_finite() && s > 0.0 && s <= MAX_INIT_SIGMA) {
                return Err(Error::option(
                    "init_sigma",
                    format!(
                        "the initialisation's scale σ must be above 0 and at most \
                         {MAX_INIT_SIGMA}, got {s}"
                    ),
                ));
            }
        }
        check_size(data.m, self.hidden).map_err(|e| Error::option("hidden", e.to_string()))?;
        if let Some(b) = self.batch {
            if b > data.rows() {
                return Err(Error::option(
                    "batch",
                    format!(
                        "batch size must be at most the {} rows of '{}', got {b}",
                        data.rows(),
                        data.name
                    ),
                ));
            }
        }
        let batch = self.batch.unwrap_or(data.rows());
        let chains = self.chains.unwrap_or(batch);
        let units = data.m.max(self.hidden);
        if chains.saturating_mul(units) > MAX_CHAIN_VALUES {
            // The culprit is the size furthest above its usual value: hidden units against the
            // data's width (at least the default 16), chains against one per batch row.
            let usual_hidden = data.m.max(HIDDEN.default_int().unwrap_or(16) as usize);
            let hidden_excess = self.hidden as f64 / usual_hidden as f64;
            let (key, what) =
                if self.hidden > data.m && hidden_excess >= chains as f64 / batch as f64 {
                    ("hidden", "fewer hidden units")
                } else if self.chains.is_some() {
                    ("chains", "fewer chains")
                } else {
                    ("batch", "a smaller batch size")
                };
            return Err(Error::option(
                key,
                format!(
                    "{chains} chains × {units} units (the larger layer, of {} visible and {} \
                     hidden units) = {} chain values exceed the limit of {MAX_CHAIN_VALUES}; use \
                     {what}",
                    data.m,
                    self.hidden,
                    chains as u128 * units as u128,
                ),
            ));
        }
        Ok(())
    }
}

fn unknown(key: &str) -> Error {
    Error::option(
        key,
        format!(
            "unknown option '{key}' (known: algo, lane, {})",
            options()
                .iter()
                .map(|o| o.key)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::options::Kind;

    /// Values outside each option's range, and of the wrong type.
    fn bad_values(spec: &OptionSpec) -> Vec<Value> {
        let mut bad = vec![Value::from("x"), Value::from(true)];
        match spec.kind {
            Kind::Int { min, max } => {
                bad.push(Value::from(max as f64 + 0.5));
                bad.push(Value::from(-1));
                bad.push(Value::from(max.saturating_add(1)));
                if min > 0 {
                    bad.push(Value::from(min - 1));
                }
            }
            Kind::Float { min, max, max_open } => {
                bad.push(Value::from(min - 1.0));
                bad.push(Value::from(if max_open { max } else { max * 2.0 }));
            }
            Kind::Choice { .. } => bad = vec![Value::from("nope"), Value::from(1)],
        }
        if !spec.optional() {
            bad.push(Value::Null);
        }
        bad
    }

    #[test]
    fn every_option_has_a_valid_default_and_refuses_bad_values_by_key() {
        let data = Dataset::builtin("bas4").unwrap();
        let all = options();
        assert!(all.len() >= 19, "{}", all.len());
        for spec in all {
            let cfg = LaneConfig::default();
            let d = cfg.get(spec.key).unwrap();
            assert_eq!(d, spec.default.value(), "{}", spec.key);
            spec.check(&d).unwrap();
            for v in bad_values(spec) {
                let mut c = LaneConfig::default();
                let e = c.set(spec.key, v.clone()).unwrap_err();
                assert_eq!(e.key(), Some(spec.key), "{} = {v}: {e}", spec.key);
                assert!(
                    e.to_string().contains(spec.label),
                    "{} = {v}: the message names the option: {e}",
                    spec.key
                );
                assert_eq!(
                    c.get(spec.key).unwrap(),
                    d,
                    "a refused value changes nothing"
                );
            }
            // A bad value that bypassed `set` is caught by `check_options` (and so `validate`)
            // with the same key.
            if let Some(v) = bad_values(spec).into_iter().find(|v| v.is_number()) {
                let mut obj = cfg.to_object();
                obj.insert(spec.key.into(), v.clone());
                if let Ok(mut c) = serde_json::from_value::<LaneConfig>(Value::Object(obj)) {
                    c.algo = ALGORITHMS
                        .iter()
                        .find(|a| GENERAL.iter().chain(a.options).any(|o| o.key == spec.key))
                        .unwrap()
                        .name
                        .into();
                    let e = c.check_options(&data).unwrap_err();
                    assert_eq!(e.key(), Some(spec.key), "{} = {v}: {e}", spec.key);
                }
            }
        }
    }

    /// The initialisation's scale is written out only when set (so no existing output
    /// changes), survives `set`, and is refused out of range under its key.
    #[test]
    fn init_sigma_is_optional_and_checked() {
        let data = Dataset::builtin("bas3").unwrap();
        let plain = serde_json::to_value(LaneConfig::default()).unwrap();
        assert!(plain.get("init_sigma").is_none());
        let mut c = LaneConfig {
            init_sigma: Some(0.5),
            ..LaneConfig::default()
        };
        c.set("lr", Value::from(0.2)).unwrap();
        assert_eq!(c.init_sigma, Some(0.5));
        c.check_options(&data).unwrap();
        for bad in [0.0, -1.0, f64::NAN, MAX_INIT_SIGMA * 2.0] {
            c.init_sigma = Some(bad);
            assert_eq!(
                c.check_options(&data).unwrap_err().key(),
                Some("init_sigma")
            );
        }
    }

    /// A configuration with σ set reads back from its own object (an explorer cell's trial in
    /// the page's worker); a bad σ in an object is refused under its key.
    #[test]
    fn init_sigma_reads_back_from_the_object() {
        let c = LaneConfig {
            init_sigma: Some(0.25),
            seed: Some(7),
            ..LaneConfig::default()
        };
        let obj = c.to_object();
        assert_eq!(obj.get("init_sigma"), Some(&Value::from(0.25)));
        let back = LaneConfig::from_object(&obj).unwrap();
        assert_eq!(back.init_sigma, Some(0.25));
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            Value::Object(obj.clone())
        );
        let mut none = obj.clone();
        none.insert("init_sigma".into(), Value::Null);
        assert_eq!(LaneConfig::from_object(&none).unwrap().init_sigma, None);
        for bad in [
            Value::from(0.0),
            Value::from(-1.0),
            Value::from("x"),
            Value::from(MAX_INIT_SIGMA * 2.0),
        ] {
            let mut o = obj.clone();
            o.insert("init_sigma".into(), bad.clone());
            let e = LaneConfig::from_object(&o).unwrap_err();
            assert_eq!(e.key(), Some("init_sigma"), "{bad}: {e}");
        }
    }

    #[test]
    fn typed_values_round_trip_through_text_and_set() {
        for spec in options() {
            let text = match spec.kind {
                Kind::Int { min, .. } => (min + 1).to_string(),
                Kind::Float { min, .. } => (min + 0.25).to_string(),
                Kind::Choice { choices } => choices[choices.len() - 1].to_string(),
            };
            let v = spec.parse(&text).unwrap();
            let mut c = LaneConfig::default();
            c.set(spec.key, v.clone()).unwrap();
            assert_eq!(c.get(spec.key).unwrap(), v, "{}", spec.key);
            let back = LaneConfig::from_object(&c.to_object()).unwrap();
            assert_eq!(back.get(spec.key).unwrap(), v, "{}", spec.key);
        }
        assert!(LaneConfig::default().set("nope", Value::from(1)).is_err());
        let e = LaneConfig::default()
            .set("algo", Value::from("nope"))
            .unwrap_err();
        assert_eq!(e.key(), Some("algo"));
    }

    #[test]
    fn cross_checks_name_the_option_at_fault() {
        let data = Dataset::builtin("bas4").unwrap();
        let cases: [(&str, Value); 3] = [
            ("batch", Value::from(33)),
            ("hidden", Value::from(MAX_WEIGHTS as u64)),
            ("chains", Value::from(MAX_CHAIN_VALUES as u64)),
        ];
        for (key, v) in cases {
            let mut c = LaneConfig::default();
            c.set(key, v).unwrap();
            assert_eq!(c.check_options(&data).unwrap_err().key(), Some(key));
        }
        // 1000 chains are ordinary; 100 000 hidden units on 16 visible ones are not.
        let mut c = LaneConfig::default();
        c.set("hidden", Value::from(100_000)).unwrap();
        c.set("chains", Value::from(1000)).unwrap();
        let e = c.check_options(&data).unwrap_err();
        assert_eq!(e.key(), Some("hidden"), "{e}");
        assert!(e.to_string().contains("fewer hidden units"), "{e}");
        // A million chains of a 100-unit model: the chains.
        let mut c = LaneConfig::default();
        c.set("hidden", Value::from(100)).unwrap();
        c.set("chains", Value::from(1_000_000)).unwrap();
        assert_eq!(c.check_options(&data).unwrap_err().key(), Some("chains"));
    }
}

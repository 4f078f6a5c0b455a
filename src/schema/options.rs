//! The option schema: every option of a lane declared once, with its key, label, help, kind,
//! default, valid range and scope. It drives the CLI's flags and help, the page's inputs and
//! their validation, the presets' overrides and the page's URL state; [`crate::train::LaneConfig`]
//! takes its defaults and its checks from it.

use crate::error::{Error, Result};
use serde::Serialize;
use serde_json::Value;

/// What values an option takes.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Kind {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest valid value.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        min: u64,
        /// Largest valid value.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        max: u64,
    },
    /// A finite number in `min..=max` (`max` excluded when `max_open`).
    Float {
        /// Smallest valid value.
        min: f64,
        /// Largest valid value (or bound, when `max_open`).
        max: f64,
        /// Whether `max` itself is excluded.
        max_open: bool,
    },
    /// One of a few names.
    Choice {
        /// The valid names, the first being the usual one.
        choices: &'static [&'static str],
    },
}

/// Who sets an option in the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One value for every lane (a fair race: same model size, seed, schedule).
    Shared,
    /// Each lane has its own value.
    Lane,
    /// The page's exact views of a lane's model (not its training): one value for the page
    /// ([`super::views`]).
    View,
}

/// An option's default.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Default {
    /// A whole number.
    Int(#[cfg_attr(feature = "ts", ts(type = "number"))] u64),
    /// A number.
    Float(f64),
    /// A name (for [`Kind::Choice`]).
    Name(&'static str),
    /// No value: the core derives one; the text says how (e.g. "one per batch row").
    Derived(&'static str),
}

impl OptionSpec {
    /// The default as a whole number, if it is one.
    pub fn default_int(&self) -> Option<u64> {
        match self.default {
            Default::Int(x) => Some(x),
            _ => None,
        }
    }
}

impl Default {
    /// The default as a JSON value (`null` when derived).
    pub fn value(&self) -> Value {
        match *self {
            Default::Int(x) => Value::from(x),
            Default::Float(x) => Value::from(x),
            Default::Name(s) => Value::from(s),
            Default::Derived(_) => Value::Null,
        }
    }
}

/// One option of a lane.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OptionSpec {
    /// Key in [`crate::train::LaneConfig`], the page's URL and the wasm API; the CLI flag is
    /// the key with `-` for `_`.
    pub key: &'static str,
    /// Short label for an input (may use the papers' symbols, e.g. "learning rate η").
    pub label: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Values it takes.
    pub kind: Kind,
    /// Its default.
    pub default: Default,
    /// Whether the page tucks it under "more options" (rarely changed in the papers' set-ups).
    pub advanced: bool,
    /// Who sets it in the page.
    pub scope: Scope,
    /// Whether a running lane takes a new value at its next update without being rebuilt
    /// ([`crate::train::Lane::set_live`]): the step size and the optimizer's coefficients,
    /// which no algorithm's state depends on (docs/algorithms.md §4).
    pub live: bool,
}

/// Largest seed: seeds stay exact as JavaScript numbers (2^53 − 1).
pub const MAX_SEED: u64 = (1 << 53) - 1;

impl OptionSpec {
    /// The CLI flag, e.g. `--nu-mu`.
    pub fn flag(&self) -> String {
        format!("--{}", self.key.replace('_', "-"))
    }

    /// Whether an absent value (`null`) is valid: the core then derives one.
    pub fn optional(&self) -> bool {
        matches!(self.default, Default::Derived(_))
    }

    fn refuse(&self, message: String) -> Error {
        Error::InvalidOption {
            key: self.key.to_string(),
            message,
        }
    }

    /// The valid values, in words (e.g. "a whole number from 1 to 100000").
    pub fn range_text(&self) -> String {
        match self.kind {
            Kind::Int { min, max } => format!("a whole number from {min} to {max}"),
            Kind::Float { min, max, max_open } => {
                let (min, max) = (number(min), number(max));
                if max_open {
                    format!("a number from {min} up to (not including) {max}")
                } else {
                    format!("a number from {min} to {max}")
                }
            }
            Kind::Choice { choices } => format!("one of {}", choices.join(", ")),
        }
    }

    /// Checks a value of this option; the error names the option.
    pub fn check(&self, v: &Value) -> Result<()> {
        if v.is_null() {
            return if self.optional() {
                Ok(())
            } else {
                Err(self.refuse(format!(
                    "{} needs a value: {}",
                    self.label,
                    self.range_text()
                )))
            };
        }
        let ok = match self.kind {
            Kind::Int { min, max } => v.as_u64().is_some_and(|x| (min..=max).contains(&x)),
            Kind::Float { min, max, max_open } => v
                .as_f64()
                .is_some_and(|x| x.is_finite() && x >= min && (x < max || (!max_open && x == max))),
            Kind::Choice { choices } => v.as_str().is_some_and(|s| choices.contains(&s)),
        };
        if ok {
            Ok(())
        } else {
            let shown = match v {
                Value::String(s) => format!("'{s}'"),
                other => other.to_string(),
            };
            Err(self.refuse(format!(
                "{} must be {}, got {shown}{}",
                self.label,
                self.range_text(),
                f32_note(self.kind, v)
            )))
        }
    }

    /// Reads a value typed by a person (a CLI argument, an input of the page): empty text is
    /// `null` for an optional option. The value is then [`OptionSpec::check`]ed.
    pub fn parse(&self, text: &str) -> Result<Value> {
        let t = text.trim();
        let v = if t.is_empty() && self.optional() {
            Value::Null
        } else {
            match self.kind {
                Kind::Int { .. } => match t.parse::<u64>() {
                    Ok(x) => Value::from(x),
                    Err(_) => match t.parse::<f64>() {
                        Ok(x) if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= 1e300 => {
                            // "1e3" is a whole number; a huge one fails the range check below.
                            if x <= u64::MAX as f64 {
                                Value::from(x as u64)
                            } else {
                                Value::from(x)
                            }
                        }
                        _ => {
                            return Err(self.refuse(format!(
                                "{} must be {}, got '{t}'",
                                self.label,
                                self.range_text()
                            )))
                        }
                    },
                },
                Kind::Float { .. } => match t.parse::<f64>() {
                    Ok(x) if x.is_finite() => Value::from(x),
                    _ => {
                        return Err(self.refuse(format!(
                            "{} must be {}, got '{t}'",
                            self.label,
                            self.range_text()
                        )))
                    }
                },
                Kind::Choice { .. } => Value::from(t),
            }
        };
        if v.is_null() {
            self.check(&v)?;
        } else if self.check(&v).is_err() {
            // Quote what the person typed, not its parsed form ("got 2", not "got 2.0").
            return Err(self.refuse(format!(
                "{} must be {}, got {t}{}",
                self.label,
                self.range_text(),
                f32_note(self.kind, &v)
            )));
        }
        Ok(v)
    }
}

/// Why a finite number above an f32 bound is refused: the model computes in f32, where it is
/// infinite ("" otherwise).
fn f32_note(kind: Kind, v: &Value) -> &'static str {
    match (kind, v.as_f64()) {
        (Kind::Float { max, .. }, Some(x)) if max == F32_MAX && x.is_finite() && x > max => {
            ", which is infinite as a 32-bit float (the model computes in f32)"
        }
        _ => "",
    }
}

/// A number for people: plain when moderate, with an exponent when huge (f32's largest value
/// reads 3.40e38, not 39 digits).
fn number(x: f64) -> String {
    if x.abs() >= 1e9 {
        format!("{x:.2e}")
    } else {
        x.to_string()
    }
}

/// Largest finite value of the f32 parameters (a learning rate above it is infinite in f32).
pub const F32_MAX: f64 = f32::MAX as f64;

/// The `min..=max` of whole-number options with an upper limit on work per update.
pub const STEP_LIMIT: u64 = 100_000;

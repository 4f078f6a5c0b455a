//! The one error type of the core: every failure is a readable one-line message, never a panic,
//! and an error about one option names it ([`Error::InvalidOption`]), so the page shows it under
//! that input and the CLI names the flag.

use serde::Serialize;
use std::fmt;

/// What went wrong, in words a user can act on.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// A value of one option that its schema ([`crate::schema::OptionSpec`]) or a check against
    /// the data refuses; `key` is the option's key.
    InvalidOption {
        /// The option's key (e.g. `batch`).
        key: String,
        /// What is wrong, in the user's words, naming the option.
        message: String,
    },
    /// An invalid hyperparameter or option (e.g. a negative learning rate, zero hidden units).
    Invalid(String),
    /// A request beyond a documented size limit (e.g. an enumeration of 2^40 states).
    TooLarge(String),
    /// A malformed or inconsistent input file.
    Parse(String),
    /// Training produced a non-finite parameter; the lane stops and keeps its last finite model.
    Diverged {
        /// The update at which a non-finite value first appeared.
        iter: u64,
        /// Which parameters went non-finite.
        what: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidOption { message, .. } => write!(f, "{message}"),
            Error::Invalid(s) => write!(f, "invalid input: {s}"),
            Error::TooLarge(s) => write!(f, "too large: {s}"),
            Error::Parse(s) => write!(f, "malformed input: {s}"),
            Error::Diverged { iter, what } => write!(
                f,
                "training diverged at update {iter}: {what} became NaN or infinite \
                 (try a smaller learning rate); the last finite model is kept"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// An error as the shells hand it on: its kind, the option it is about (if any) and its message.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ErrorInfo {
    /// `invalid_option`, `invalid`, `too_large`, `parse`, `diverged` or `internal`.
    pub kind: &'static str,
    /// The option's key, for `invalid_option`.
    pub key: Option<String>,
    /// The one-line message.
    pub message: String,
}

impl Error {
    /// A refusal of option `key`.
    pub fn option(key: &str, message: impl Into<String>) -> Error {
        Error::InvalidOption {
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// The option this error is about, if any.
    pub fn key(&self) -> Option<&str> {
        match self {
            Error::InvalidOption { key, .. } => Some(key),
            _ => None,
        }
    }

    /// Kind, key and message, for a shell to pass on.
    pub fn info(&self) -> ErrorInfo {
        ErrorInfo {
            kind: match self {
                Error::InvalidOption { .. } => "invalid_option",
                Error::Invalid(_) => "invalid",
                Error::TooLarge(_) => "too_large",
                Error::Parse(_) => "parse",
                Error::Diverged { .. } => "diverged",
            },
            key: self.key().map(str::to_string),
            message: self.to_string(),
        }
    }
}

/// Shorthand for results of the core.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns `Error::Invalid` with `msg` unless `ok`.
pub fn ensure(ok: bool, msg: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid(msg()))
    }
}

/// The one-line message of a panic (a bug), with where it happened, for a shell's panic hook:
/// "internal error at FILE:LINE: MESSAGE (please report this)".
pub fn panic_message(info: &std::panic::PanicHookInfo<'_>) -> String {
    let msg = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    let at = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    let msg = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("internal error{at}: {msg} (please report this)")
}

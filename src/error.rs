//! The one error type of the core: every failure is a readable one-line message, never a panic.

use std::fmt;

/// What went wrong, in words a user can act on.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
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

//! The statistics an algorithm reports, declared with the algorithm: key, label, unit and how
//! values combine over the updates of an evaluation window and over trials.

use serde::Serialize;

/// How values of a statistic combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    /// The mean of the values.
    Mean,
    /// The largest value.
    Max,
}

impl Aggregate {
    /// Combines `values` (NaN for none).
    pub fn combine(self, values: impl IntoIterator<Item = f64>) -> f64 {
        let mut acc = Accumulator::new(self);
        for x in values {
            acc.add(x);
        }
        acc.value()
    }
}

/// A running [`Aggregate`].
#[derive(Clone, Copy, Debug)]
pub struct Accumulator {
    how: Aggregate,
    sum: f64,
    count: u64,
}

impl Accumulator {
    /// No values yet.
    pub fn new(how: Aggregate) -> Accumulator {
        Accumulator {
            how,
            sum: 0.0,
            count: 0,
        }
    }

    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.sum = match (self.how, self.count) {
            (Aggregate::Max, 0) => x,
            (Aggregate::Max, _) => self.sum.max(x),
            (Aggregate::Mean, _) => self.sum + x,
        };
        self.count += 1;
    }

    /// The combined value (NaN when nothing was added).
    pub fn value(&self) -> f64 {
        match (self.how, self.count) {
            (_, 0) => f64::NAN,
            (Aggregate::Max, _) => self.sum,
            (Aggregate::Mean, c) => self.sum / c as f64,
        }
    }
}

/// One statistic of an algorithm.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StatSpec {
    /// Key in [`crate::train::Record::stats`].
    pub key: &'static str,
    /// Label for people (e.g. "mean stopping time τ").
    pub label: &'static str,
    /// Unit, or "" for a pure number.
    pub unit: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// How the values of the updates between two records combine.
    pub over_updates: Aggregate,
    /// How the values of several trials at one checkpoint combine.
    pub over_trials: Aggregate,
}

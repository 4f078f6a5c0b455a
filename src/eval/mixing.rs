//! Mixing you can see (the rates-FPCD paper's point, measured without a classifier): each
//! sample takes the class of its nearest training example (1-nearest neighbour in Hamming
//! distance, patterns thresholded at 0.5), and a chain's class sequence gives the number of
//! classes it visited and the mean run length between class changes.

use super::isl::{distances, pack_into, Packed};
use crate::data::Dataset;
use crate::error::{Error, Result};
use serde::Serialize;

/// A labelled reference set for 1-nearest-neighbour classes.
#[derive(Clone, Debug)]
pub struct Nearest {
    examples: Packed,
    labels: Vec<u8>,
    word: Vec<u64>,
}

impl Nearest {
    /// The labelled rows of `data` (MNIST's training split).
    pub fn new(data: &Dataset) -> Result<Nearest> {
        let labels = data.labels.clone().ok_or_else(|| {
            Error::Invalid(format!(
                "data set '{}' has no labels to name classes",
                data.name
            ))
        })?;
        if labels.len() != data.rows() || labels.is_empty() {
            return Err(Error::Invalid(format!(
                "data set '{}' has {} labels for {} rows",
                data.name,
                labels.len(),
                data.rows()
            )));
        }
        Ok(Nearest {
            examples: Packed::new(&data.values, data.m),
            labels,
            word: vec![0; data.m.div_ceil(64)],
        })
    }

    /// The label of the training example nearest to `x` (the first of equals).
    pub fn class(&mut self, x: &[f32]) -> u8 {
        pack_into(x, &mut self.word);
        let mut best = (u32::MAX, 0);
        distances(&self.examples, &self.word, |r, d| {
            if d < best.0 {
                best = (d, r);
            }
        });
        self.labels[best.1]
    }
}

/// Summary of a class sequence.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Mixing {
    /// Samples classified.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub samples: u64,
    /// Distinct classes visited.
    pub classes: u32,
    /// Class changes between consecutive samples.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub changes: u64,
    /// Mean length of a run of equal classes (samples / runs).
    pub mean_run: f64,
}

/// Counts a class sequence as it arrives.
#[derive(Clone, Debug, Default)]
pub struct MixingCounter {
    seen: Vec<u8>,
    last: Option<u8>,
    samples: u64,
    changes: u64,
}

impl MixingCounter {
    /// Adds the next class.
    pub fn add(&mut self, class: u8) {
        if !self.seen.contains(&class) {
            self.seen.push(class);
        }
        if self.last.is_some_and(|l| l != class) {
            self.changes += 1;
        }
        self.last = Some(class);
        self.samples += 1;
    }

    /// The summary so far.
    pub fn summary(&self) -> Mixing {
        Mixing {
            samples: self.samples,
            classes: self.seen.len() as u32,
            changes: self.changes,
            mean_run: if self.samples == 0 {
                0.0
            } else {
                self.samples as f64 / (self.changes + 1) as f64
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_neighbour_and_runs() {
        let data = Dataset {
            name: "t".into(),
            m: 3,
            values: vec![0., 0., 0., 1., 1., 1., 1., 0., 0.],
            shape: None,
            labels: Some(vec![7, 3, 5]),
        };
        let mut nn = Nearest::new(&data).unwrap();
        assert_eq!(nn.class(&[0.9, 0.8, 0.6]), 3);
        assert_eq!(nn.class(&[0.1, 0.0, 0.0]), 7);
        assert_eq!(nn.class(&[1.0, 0.0, 0.2]), 5);
        let mut c = MixingCounter::default();
        for k in [1, 1, 2, 2, 2, 1] {
            c.add(k);
        }
        assert_eq!(
            c.summary(),
            Mixing {
                samples: 6,
                classes: 2,
                changes: 2,
                mean_run: 2.0
            }
        );
        let unlabelled = Dataset {
            labels: None,
            ..data
        };
        assert!(Nearest::new(&unlabelled).is_err());
    }
}

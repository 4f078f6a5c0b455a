//! Data sets (docs/algorithms.md §2): the built-in small binary sets with their exact
//! log-likelihood bounds, user files of 0/1 patterns, grey-level image sets ([`mnist`]: the
//! project's MNIST asset; [`idx`]: the user's IDX files) and their binarisation; [`gzip`]: the
//! one reader of gzip-compressed files.

pub mod gzip;
pub mod idx;
pub mod mnist;
pub mod protocol;

use crate::error::{Error, Result};
use crate::rng::{fill_uniform, Rng};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How grey-level data (values in [0, 1]) become binary visible states. Binary data are used as
/// they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Binarize {
    /// A fresh Bernoulli draw per use with the grey level as probability, from the lane's
    /// `Data` stream (the PCD and S-DCP papers' MNIST set-up).
    #[default]
    Sample,
    /// A fixed threshold: 1 where the grey level is ≥ 0.5.
    Threshold,
}

impl Binarize {
    /// Binarises `values` in place (grey levels in [0, 1]).
    pub fn apply(self, values: &mut [f32], rng: &mut Rng) {
        match self {
            Binarize::Sample => {
                // Only grey levels strictly inside (0, 1) draw (most of a digit is 0): chunk by
                // chunk, one uniform per grey value, in order.
                let mut u = [0.0f32; 64];
                for xs in values.chunks_mut(64) {
                    let grey = xs.iter().filter(|&&x| x > 0.0 && x < 1.0).count();
                    fill_uniform(rng, &mut u[..grey]);
                    let mut us = u.iter();
                    for x in xs.iter_mut().filter(|x| **x > 0.0 && **x < 1.0) {
                        *x = f32::from(*us.next().expect("one draw per grey value") < *x);
                    }
                    xs.iter_mut().for_each(|x| *x = f32::from(*x >= 1.0));
                }
            }
            Binarize::Threshold => threshold(values),
        }
    }
}

/// Thresholds grey levels at 0.5 in place.
pub fn threshold(values: &mut [f32]) {
    values.iter_mut().for_each(|x| *x = f32::from(*x >= 0.5));
}

/// A data set: `rows` patterns of `m` values, row-major. Binary sets hold exactly 0.0 / 1.0.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// Short name (`bas4`, `shifting-bar`, a file name …).
    pub name: String,
    /// Number of visible units.
    pub m: usize,
    /// Row-major values, `len() == rows() * m`.
    pub values: Vec<f32>,
    /// Image shape for display (height, width), when the patterns are images.
    pub shape: Option<(usize, usize)>,
    /// A class label per row, when the data set has them (MNIST digits).
    pub labels: Option<Vec<u8>>,
}

/// The built-in data sets: (name, description).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "bas3",
        "Bars & Stripes 3x3, 14 distinct patterns (S-DCP paper)",
    ),
    (
        "shifting-bar",
        "Shifting Bar N=9, B=1, 9 patterns (S-DCP paper)",
    ),
    (
        "bas4",
        "Bars & Stripes 4x4, 32 rows with duplicates (UCD paper's code)",
    ),
];

impl Dataset {
    /// `rows` synthetic digit-like grey rows of 28×28 pixels (19% of pixels grey, uniform on
    /// [0.3, 1), 13% ink on average), drawn from the `Aux` stream of `seed`: MNIST-shaped data for
    /// benchmarks and cost tests that must not depend on the MNIST asset. Not a data set offered
    /// to users (not in [`BUILTIN`]).
    pub fn synthetic_digits(rows: usize, seed: u64) -> Dataset {
        let m = 784;
        let mut r = crate::rng::stream(seed, 0, crate::rng::Purpose::Aux);
        let values = (0..m * rows)
            .map(|_| {
                let u = crate::rng::uniform(&mut r);
                if u < 0.19 {
                    u / 0.19 * 0.7 + 0.3
                } else {
                    0.0
                }
            })
            .collect();
        Dataset {
            name: "synthetic-digits".into(),
            m,
            values,
            shape: Some((28, 28)),
            labels: None,
        }
    }

    /// A built-in data set by name (see [`BUILTIN`]).
    pub fn builtin(name: &str) -> Result<Dataset> {
        match name {
            "bas3" => Ok(bars_and_stripes(3, false)),
            "bas4" => Ok(bars_and_stripes(4, true)),
            "shifting-bar" => Ok(shifting_bar(9, 1)),
            _ => Err(Error::Invalid(format!(
                "unknown data set '{name}' (known: {})",
                BUILTIN.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// Builds a binary data set from explicit 0/1 rows.
    pub fn from_rows(
        name: &str,
        rows: &[Vec<u8>],
        shape: Option<(usize, usize)>,
    ) -> Result<Dataset> {
        let m = rows.first().map(|r| r.len()).unwrap_or(0);
        if m == 0 {
            return Err(Error::Parse(format!("data set '{name}' has no patterns")));
        }
        let mut values = Vec::with_capacity(rows.len() * m);
        for (k, r) in rows.iter().enumerate() {
            if r.len() != m {
                return Err(Error::Parse(format!(
                    "data set '{name}': pattern {} has {} units, the first has {m}",
                    k + 1,
                    r.len()
                )));
            }
            values.extend(r.iter().map(|&x| x as f32));
        }
        Ok(Dataset {
            name: name.to_string(),
            m,
            values,
            shape,
            labels: None,
        })
    }

    /// Parses a data file: one pattern per line of `0`/`1` characters; blank lines and lines
    /// starting with `#` are skipped, spaces inside a line are ignored.
    pub fn parse(name: &str, text: &str) -> Result<Dataset> {
        let mut rows = Vec::new();
        for (ln, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let mut row = Vec::with_capacity(t.len());
            for ch in t.chars().filter(|c| !c.is_whitespace()) {
                match ch {
                    '0' => row.push(0),
                    '1' => row.push(1),
                    _ => {
                        return Err(Error::Parse(format!(
                        "{name}, line {}: unexpected character '{ch}' (patterns are 0/1 strings)",
                        ln + 1
                    )))
                    }
                }
            }
            if let Some(first) = rows.first().map(|r: &Vec<u8>| r.len()) {
                if row.len() != first {
                    return Err(Error::Parse(format!(
                        "{name}, line {}: pattern has {} units, earlier ones have {first}",
                        ln + 1,
                        row.len()
                    )));
                }
            }
            rows.push(row);
        }
        if rows.is_empty() {
            return Err(Error::Parse(format!("{name}: no patterns found")));
        }
        Dataset::from_rows(name, &rows, None)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.values.len() / self.m
    }

    /// Row `r` as a slice of `m` values.
    pub fn row(&self, r: usize) -> &[f32] {
        &self.values[r * self.m..(r + 1) * self.m]
    }

    /// The data with every value thresholded at 0.5 (binary data are returned unchanged):
    /// the fixed binary version of grey-level data on which exact likelihoods are computed.
    pub fn thresholded(&self) -> Dataset {
        let mut d = self.clone();
        threshold(&mut d.values);
        d
    }

    /// True if every value is exactly 0 or 1.
    pub fn is_binary(&self) -> bool {
        self.values.iter().all(|&x| x == 0.0 || x == 1.0)
    }

    /// Mean of each visible unit over the rows.
    pub fn mean(&self) -> Vec<f64> {
        let mut mu = vec![0.0f64; self.m];
        for r in 0..self.rows() {
            for (a, &x) in mu.iter_mut().zip(self.row(r)) {
                *a += x as f64;
            }
        }
        let n = self.rows() as f64;
        mu.iter_mut().for_each(|a| *a /= n);
        mu
    }

    /// Distinct binary patterns with their counts, in order of first appearance. Patterns are
    /// encoded as integers with bit i = visible unit i (m ≤ 64).
    pub fn distinct(&self) -> Vec<(u64, usize)> {
        let mut order: Vec<(u64, usize)> = Vec::new();
        let mut at: HashMap<u64, usize> = HashMap::new();
        for r in 0..self.rows() {
            let code = encode(self.row(r));
            match at.get(&code) {
                Some(&k) => order[k].1 += 1,
                None => {
                    at.insert(code, order.len());
                    order.push((code, 1));
                }
            }
        }
        order
    }

    /// The maximum achievable average log-likelihood: minus the entropy of the empirical
    /// distribution (docs/algorithms.md §2 table). `None` for non-binary data.
    pub fn bound(&self) -> Option<f64> {
        if !self.is_binary() || self.m > 64 {
            return None;
        }
        let n = self.rows() as f64;
        Some(
            self.distinct()
                .iter()
                .map(|&(_, c)| (c as f64 / n) * (c as f64 / n).ln())
                .sum(),
        )
    }
}

/// Encodes a binary pattern as an integer, bit i = unit i.
pub fn encode(v: &[f32]) -> u64 {
    v.iter().enumerate().fold(
        0u64,
        |acc, (i, &x)| if x != 0.0 { acc | 1 << i } else { acc },
    )
}

/// Decodes an integer pattern of `m` units.
pub fn decode(code: u64, m: usize) -> Vec<f32> {
    (0..m).map(|i| ((code >> i) & 1) as f32).collect()
}

/// Bars & Stripes D×D: every pattern whose rows are each all-0 or all-1 (stripes), plus their
/// transposes (bars). With `keep_duplicates` all 2·2^D rows are kept (the UCD code's 4×4 set);
/// otherwise the all-0/all-1 patterns appear once (the S-DCP paper's 3×3 set).
pub fn bars_and_stripes(d: usize, keep_duplicates: bool) -> Dataset {
    let mut rows: Vec<Vec<u8>> = Vec::new();
    for transpose in [false, true] {
        for mask in 0..(1u32 << d) {
            let mut p = vec![0u8; d * d];
            for r in 0..d {
                for c in 0..d {
                    let line = if transpose { c } else { r };
                    p[r * d + c] = ((mask >> line) & 1) as u8;
                }
            }
            if keep_duplicates || !rows.contains(&p) {
                rows.push(p);
            }
        }
    }
    let name = if d == 3 {
        "bas3"
    } else if d == 4 {
        "bas4"
    } else {
        "bas"
    };
    Dataset::from_rows(name, &rows, Some((d, d))).expect("non-empty equal-length rows")
}

/// Shifting Bar N, B: N patterns of length N; pattern k has units k..k+B−1 (mod N) on.
pub fn shifting_bar(n: usize, b: usize) -> Dataset {
    let rows: Vec<Vec<u8>> = (0..n)
        .map(|k| (0..n).map(|i| u8::from((i + n - k) % n < b)).collect())
        .collect();
    Dataset::from_rows("shifting-bar", &rows, Some((1, n))).expect("non-empty equal-length rows")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_sizes_and_bounds_match_the_spec() {
        let cases = [
            ("bas3", 14, 14, -(14f64).ln()),
            ("shifting-bar", 9, 9, -(9f64).ln()),
            (
                "bas4",
                32,
                30,
                -(28.0 * 32f64.ln() + 2.0 * 2.0 * 16f64.ln()) / 32.0,
            ),
        ];
        for (name, rows, distinct, bound) in cases {
            let d = Dataset::builtin(name).unwrap();
            assert_eq!(d.rows(), rows, "{name}");
            assert_eq!(d.distinct().len(), distinct, "{name}");
            assert!((d.bound().unwrap() - bound).abs() < 1e-12, "{name}");
        }
        assert!((Dataset::builtin("bas4").unwrap().bound().unwrap() + 3.379).abs() < 1e-3);
    }

    #[test]
    fn bas_patterns_are_bars_or_stripes() {
        let d = Dataset::builtin("bas4").unwrap();
        for r in 0..d.rows() {
            let p = d.row(r);
            let rows_const = (0..4).all(|i| (0..4).all(|j| p[i * 4 + j] == p[i * 4]));
            let cols_const = (0..4).all(|j| (0..4).all(|i| p[i * 4 + j] == p[j]));
            assert!(rows_const || cols_const);
        }
        let sb = Dataset::builtin("shifting-bar").unwrap();
        for k in 0..9 {
            assert_eq!(sb.row(k).iter().sum::<f32>(), 1.0);
            assert_eq!(sb.row(k)[k], 1.0);
        }
    }

    #[test]
    fn parse_reports_line_numbers() {
        assert_eq!(Dataset::parse("f", "0101\n\n1100\n").unwrap().rows(), 2);
        let e = Dataset::parse("f", "0101\n110\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = Dataset::parse("f", "01x1\n").unwrap_err();
        assert!(e.to_string().contains("'x'"), "{e}");
        assert!(Dataset::parse("f", "\n# only a comment\n").is_err());
        assert!(Dataset::builtin("mnist9").is_err());
    }
}

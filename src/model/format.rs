//! The model file formats of the parameters θ = (W, b, c) of docs/algorithms.md §1: the JSON
//! file ([`ModelFile`]: [`Rbm::to_json`], [`Rbm::from_json`], with the optional `training`
//! record of the lane that trained the model) and the compact binary format ([`Rbm::to_bytes`]:
//! [`MODEL_MAGIC`], a header of [`MODEL_HEADER`] bytes with a checksum, then the f32 parameters;
//! version 2, [`Rbm::to_quantized_bytes`], with 8-bit weights). [`Rbm::from_file_bytes`] reads
//! either; every reader checks the sizes ([`check_size`]) and finiteness ([`Rbm::from_params`]).

use super::{check_size, Params, Rbm};
use crate::data::gzip::{self, MAX_FILE_BYTES};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The JSON model file: `{"visible": m, "hidden": n, "w": [m·n], "b": [m], "c": [n]}` with
/// `w[i*n+j]` joining visible i and hidden j, and optionally `"training"`: how a lane trained
/// it ([`crate::train::resume::Training`]), which readers of the model alone ignore.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    /// m.
    pub visible: usize,
    /// n.
    pub hidden: usize,
    /// Row-major m×n weights.
    pub w: Vec<f64>,
    /// Visible biases.
    pub b: Vec<f64>,
    /// Hidden biases.
    pub c: Vec<f64>,
    /// The lane's training settings and counters, when a lane saved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<serde_json::Value>,
}

/// Magic bytes of the binary model format ([`Rbm::to_bytes`]).
pub const MODEL_MAGIC: &[u8; 4] = b"RBMM";
/// Header bytes of the binary model format.
pub const MODEL_HEADER: usize = 24;

/// Most bytes one parameter takes in the JSON file with its comma: an f32's shortest f64 form
/// is at worst a sign, four zeros after the point and 17 significant digits
/// (`-0.000012345678442216013`, 24 characters).
pub const JSON_NUMBER_BYTES: u64 = 25;

/// Most bytes of the JSON file besides its parameters: keys, sizes and brackets.
const JSON_FRAME_BYTES: u64 = 128;

impl Rbm {
    /// Most bytes [`Rbm::to_json`] writes for an m×n model, whatever its parameters: what a
    /// reader's size limit must allow for the file to be read back.
    pub fn json_len_max(m: usize, n: usize) -> u64 {
        let numbers = (m as u64) * (n as u64) + m as u64 + n as u64;
        numbers * JSON_NUMBER_BYTES + JSON_FRAME_BYTES
    }

    /// Serialises to the JSON model file format.
    pub fn to_json(&self) -> String {
        self.json_file(None)
    }

    /// [`Rbm::to_json`] with the `training` record of the lane that trained it.
    pub fn to_json_with(&self, training: serde_json::Value) -> String {
        self.json_file(Some(training))
    }

    fn json_file(&self, training: Option<serde_json::Value>) -> String {
        let f = |xs: &[f32]| xs.iter().map(|&x| x as f64).collect::<Vec<f64>>();
        let file = ModelFile {
            visible: self.m,
            hidden: self.n,
            w: f(&self.w),
            b: f(&self.b),
            c: f(&self.c),
            training,
        };
        serde_json::to_string(&file).expect("finite numbers serialise")
    }

    /// Serialises to the compact binary model format: little-endian, `RBMM`, format version
    /// (u32 = 1), m and n (u32 each), an FNV-1a 64 checksum of what follows (u64), then W
    /// (m×n, row-major), b (m) and c (n) as f32 — 4 bytes a parameter, about a fifth of the JSON
    /// file of a 784×500 model, and exact (the f32 bits are kept).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(4 * (self.w.len() + self.m + self.n));
        for x in self.w.iter().chain(&self.b).chain(&self.c) {
            body.extend_from_slice(&x.to_le_bytes());
        }
        let mut out = Vec::with_capacity(MODEL_HEADER + body.len());
        out.extend_from_slice(MODEL_MAGIC);
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&(self.m as u32).to_le_bytes());
        out.extend_from_slice(&(self.n as u32).to_le_bytes());
        out.extend_from_slice(&crate::data::mnist::fnv1a(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Serialises to version 2 of the binary format, with 8-bit weights: the header of
    /// [`Rbm::to_bytes`] (version 2), then per visible unit i a scale s_i = max_j |W_ij| / 127
    /// (f32), W as i8 with W_ij ≈ s_i·q_ij (rounded to nearest), and b, c as f32 — about a
    /// quarter of version 1, for models shipped with the page; each weight within s_i/2.
    pub fn to_quantized_bytes(&self) -> Vec<u8> {
        let n = self.n;
        let scales: Vec<f32> = self
            .w
            .chunks_exact(n)
            .map(|row| row.iter().fold(0.0f32, |a, &x| a.max(x.abs())) / 127.0)
            .collect();
        let mut body = Vec::with_capacity(4 * self.m + self.w.len() + 4 * (self.m + n));
        for s in &scales {
            body.extend_from_slice(&s.to_le_bytes());
        }
        for (row, &s) in self.w.chunks_exact(n).zip(&scales) {
            body.extend(row.iter().map(|&x| {
                let q = if s > 0.0 { (x / s).round() } else { 0.0 };
                q.clamp(-127.0, 127.0) as i8 as u8
            }));
        }
        for x in self.b.iter().chain(&self.c) {
            body.extend_from_slice(&x.to_le_bytes());
        }
        let mut out = Vec::with_capacity(MODEL_HEADER + body.len());
        out.extend_from_slice(MODEL_MAGIC);
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(self.m as u32).to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        out.extend_from_slice(&crate::data::mnist::fnv1a(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Parses the binary model format ([`Rbm::to_bytes`], version 1, or
    /// [`Rbm::to_quantized_bytes`], version 2), checking magic, version, sizes, checksum and
    /// finiteness.
    pub fn from_bytes(bytes: &[u8]) -> Result<Rbm> {
        let bad = |m: String| Error::Parse(format!("model file: {m}"));
        if bytes.len() < MODEL_HEADER || &bytes[..4] != MODEL_MAGIC {
            return Err(bad("not a binary model file (wrong magic bytes)".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let version = u32_at(4);
        if version != 1 && version != 2 {
            return Err(bad(format!(
                "format version {version}, this build reads 1 and 2"
            )));
        }
        let (m, n) = (u32_at(8) as usize, u32_at(12) as usize);
        check_size(m, n)?;
        let want = if version == 1 {
            4 * (m * n + m + n)
        } else {
            4 * m + m * n + 4 * (m + n)
        };
        if bytes.len() != MODEL_HEADER + want {
            return Err(bad(format!(
                "{} bytes, expected {} for {m}×{n} (format version {version})",
                bytes.len(),
                MODEL_HEADER + want
            )));
        }
        let body = &bytes[MODEL_HEADER..];
        let sum = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        if crate::data::mnist::fnv1a(body) != sum {
            return Err(bad(
                "checksum mismatch (the file is damaged or truncated)".into()
            ));
        }
        let f32s = |b: &[u8]| -> Vec<f32> {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        let (w, biases) = if version == 1 {
            let (w, rest) = body.split_at(4 * m * n);
            (f32s(w), f32s(rest))
        } else {
            let (scales, rest) = body.split_at(4 * m);
            let (q, rest) = rest.split_at(m * n);
            let scales = f32s(scales);
            let w = q
                .chunks_exact(n)
                .zip(&scales)
                .flat_map(|(row, &s)| row.iter().map(move |&q| s * f32::from(q as i8)))
                .collect();
            (w, f32s(rest))
        };
        let (b, c) = biases.split_at(m);
        Rbm::from_params(
            m,
            n,
            Params {
                w,
                b: b.to_vec(),
                c: c.to_vec(),
            },
        )
        .map_err(|e| match e {
            Error::Parse(s) => bad(s),
            other => other,
        })
    }

    /// Parses either model format: binary when `bytes` start with `RBMM`, else JSON; either may
    /// be gzip-compressed ([`crate::data::gzip::unpack`]: read whole, at most
    /// [`MAX_FILE_BYTES`] unpacked).
    pub fn from_file_bytes(bytes: &[u8]) -> Result<Rbm> {
        Rbm::from_file_bytes_with(bytes).map(|(rbm, _)| rbm)
    }

    /// [`Rbm::from_file_bytes`], with the JSON file's `training` record if it has one (the
    /// binary format has none).
    pub fn from_file_bytes_with(bytes: &[u8]) -> Result<(Rbm, Option<serde_json::Value>)> {
        let bytes = &*gzip::unpack(bytes, MAX_FILE_BYTES, "model file")?;
        if bytes.starts_with(MODEL_MAGIC) {
            return Ok((Rbm::from_bytes(bytes)?, None));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Error::Parse("model file: neither JSON nor the binary format".into()))?;
        Rbm::from_json_with(text)
    }

    /// Parses the JSON model file format, checking sizes and finiteness.
    pub fn from_json(text: &str) -> Result<Rbm> {
        Rbm::from_json_with(text).map(|(rbm, _)| rbm)
    }

    /// [`Rbm::from_json`], with the file's `training` record if it has one.
    pub fn from_json_with(text: &str) -> Result<(Rbm, Option<serde_json::Value>)> {
        let f: ModelFile =
            serde_json::from_str(text).map_err(|e| Error::Parse(format!("model file: {e}")))?;
        let training = f.training;
        let g = |xs: Vec<f64>| xs.into_iter().map(|x| x as f32).collect::<Vec<f32>>();
        Rbm::from_params(
            f.visible,
            f.hidden,
            Params {
                w: g(f.w),
                b: g(f.b),
                c: g(f.c),
            },
        )
        .map_err(|e| match e {
            Error::Parse(s) => Error::Parse(format!("model file: {s}")),
            other => other,
        })
        .map(|rbm| (rbm, training))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_model(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
        Rbm::random(m, n, scale, seed).unwrap()
    }

    /// The longest form of each parameter, found by the property test below.
    const LONGEST: f32 = -1.234_567_8e-5;

    #[test]
    fn no_parameter_takes_more_json_than_the_bound() {
        let len = |x: f32| serde_json::to_string(&f64::from(x)).unwrap().len() as u64;
        assert_eq!(len(LONGEST) + 1, JSON_NUMBER_BYTES);
        // Every exponent with long mantissas, and a stream of arbitrary bit patterns.
        let mut rng = crate::rng::stream(1, 0, crate::rng::Purpose::Aux);
        let mut longest = 0;
        for e in -46..=39 {
            for mantissa in [1.234_567_9_f64, 9.876_543_2, 3.333_333_3, 7.000_001] {
                let x = (-mantissa * 10f64.powi(e)) as f32;
                if x.is_finite() {
                    longest = longest.max(len(x));
                }
            }
        }
        for _ in 0..200_000 {
            let x = f32::from_bits(crate::rng::index(&mut rng, 1 << 32) as u32);
            if x.is_finite() {
                longest = longest.max(len(x));
            }
        }
        assert_eq!(longest + 1, JSON_NUMBER_BYTES);
    }

    #[test]
    fn the_json_file_of_the_longest_parameters_fits_its_bound_and_reads_back() {
        for (m, n) in [(1, 1), (30, 17), (784, 40)] {
            let k = m * n;
            let p = Params {
                w: vec![LONGEST; k],
                b: vec![LONGEST; m],
                c: vec![LONGEST; n],
            };
            let rbm = Rbm::from_params(m, n, p).unwrap();
            let text = rbm.to_json();
            let max = Rbm::json_len_max(m, n);
            assert!(text.len() as u64 <= max, "{m}×{n}: {} > {max}", text.len());
            // Tight: only the frame's allowance is left over.
            assert!(max - (text.len() as u64) < JSON_FRAME_BYTES, "{m}×{n}");
            assert_eq!(Rbm::from_json(&text).unwrap(), rbm);
        }
    }

    #[test]
    fn the_quantised_format_is_within_half_a_step_and_refuses_damage() {
        let rbm = Rbm::random(9, 6, 0.7, 3).unwrap();
        let bytes = rbm.to_quantized_bytes();
        assert_eq!(bytes.len(), MODEL_HEADER + 4 * 9 + 9 * 6 + 4 * (9 + 6));
        let back = Rbm::from_file_bytes(&bytes).unwrap();
        assert_eq!(
            (back.b.clone(), back.c.clone()),
            (rbm.b.clone(), rbm.c.clone())
        );
        for (r0, r1) in rbm.w().chunks(6).zip(back.w().chunks(6)) {
            let step = r0.iter().fold(0.0f32, |a, &x| a.max(x.abs())) / 127.0;
            for (a, b) in r0.iter().zip(r1) {
                assert!((a - b).abs() <= step / 2.0 + 1e-7, "{a} vs {b}");
            }
        }
        let mut bad = bytes.clone();
        bad[MODEL_HEADER + 40] ^= 1;
        assert!(Rbm::from_bytes(&bad)
            .unwrap_err()
            .to_string()
            .contains("checksum"));
        assert!(Rbm::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut v3 = bytes;
        v3[4] = 3;
        assert!(Rbm::from_bytes(&v3)
            .unwrap_err()
            .to_string()
            .contains("version 3"));
    }

    #[test]
    fn the_binary_model_format_keeps_every_bit_and_refuses_damage() {
        let rbm = Rbm::random(7, 5, 0.7, 3).unwrap();
        let bytes = rbm.to_bytes();
        assert_eq!(bytes.len(), MODEL_HEADER + 4 * (7 * 5 + 7 + 5));
        let back = Rbm::from_bytes(&bytes).unwrap();
        assert_eq!(back, rbm);
        assert_eq!(Rbm::from_file_bytes(&bytes).unwrap(), rbm);
        assert_eq!(Rbm::from_file_bytes(rbm.to_json().as_bytes()).unwrap(), rbm);
        let mut damaged = bytes.clone();
        damaged[MODEL_HEADER + 9] ^= 4;
        assert!(Rbm::from_bytes(&damaged)
            .unwrap_err()
            .to_string()
            .contains("checksum"));
        assert!(Rbm::from_bytes(&bytes[..bytes.len() - 4]).is_err());
        let mut nan = rbm.clone();
        nan.edit(|_, b, _| b[0] = f32::NAN);
        let mut with_nan = nan.to_bytes();
        // A NaN with a valid checksum is still refused (sizes and finiteness are checked).
        assert!(Rbm::from_bytes(&with_nan).is_err());
        with_nan[0] = b'X';
        assert!(Rbm::from_file_bytes(&with_nan).is_err());
    }

    #[test]
    fn model_file_round_trips_and_rejects_bad_files() {
        let rbm = random_model(4, 2, 0.5, 1);
        let back = Rbm::from_json(&rbm.to_json()).unwrap();
        assert_eq!(back, rbm);
        let bad = [
            r#"{"visible": 2, "hidden": 1, "w": [1], "b": [0, 0], "c": [0]}"#,
            r#"{"visible": 2, "hidden": 0, "w": [], "b": [0, 0], "c": []}"#,
            r#"{"visible": 1, "hidden": 1, "w": [1], "b": [0], "c": [0], "x": 1}"#,
            r#"{"visible": 1, "hidden": 1, "w": [1e400], "b": [0], "c": [0]}"#,
            "not json",
        ];
        for t in bad {
            assert!(Rbm::from_json(t).is_err(), "{t}");
        }
        assert!(matches!(
            check_size(100_000, 100_000),
            Err(Error::TooLarge(_))
        ));
    }
}

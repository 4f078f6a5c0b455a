//! IDX files, the format MNIST is distributed in (LeCun et al.): `idx3-ubyte` images and
//! optional `idx1-ubyte` labels. The core reads uncompressed bytes; the shells undo gzip first
//! with the core's one reader ([`super::gzip::unpack`]).
//!
//! Layout: two zero bytes, a type byte (0x08: unsigned bytes, the only type read here), the
//! number of dimensions, each dimension as a big-endian u32, then the data, row-major.

use super::mnist::{Images, MAX_IMAGES};
use crate::error::{Error, Result};
use crate::schema::budget::Budget;

/// The most bytes an IDX header takes: the magic and 255 dimensions of 4 bytes each. A shell
/// unpacks this much of a gzipped file to check its header ([`check_images`]) before the rest.
pub const MAX_HEADER_BYTES: usize = 4 + 4 * 255;

fn bad(name: &str, msg: impl std::fmt::Display) -> Error {
    Error::Parse(format!("{name}: {msg}"))
}

/// The dimensions an IDX file of unsigned bytes declares, and its header's length, from its
/// first bytes (the header alone will do).
fn header(name: &str, bytes: &[u8]) -> Result<(Vec<usize>, usize)> {
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
    Ok((shape, head))
}

/// The dimensions and data of an IDX file of unsigned bytes.
fn read<'a>(name: &str, bytes: &'a [u8]) -> Result<(Vec<usize>, &'a [u8])> {
    let (shape, head) = header(name, bytes)?;
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
    let (n, h, w) = image_shape(name, &shape)?;
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

/// Count, height and width of images of IDX dimensions `shape`, or why they are no images this
/// build reads.
fn image_shape(name: &str, shape: &[usize]) -> Result<(usize, usize, usize)> {
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
    Ok((n, h, w))
}

/// Checks the images an IDX file's header declares against `budget` before the file is read
/// whole: `head` is the file's first bytes (at least its header: [`MAX_HEADER_BYTES`] do).
/// Images whose decoded data alone would not fit in one lane are refused with an error keyed
/// `data` that names the file and says how many images of that size fit
/// ([`crate::cost::check_data`]); so is a header that declares no images.
pub fn check_images(name: &str, head: &[u8], budget: &Budget) -> Result<()> {
    let (shape, _) = header(name, head)?;
    let (n, h, w) = image_shape(name, &shape)?;
    crate::cost::check_data(name, n, &format!("images of {h}×{w}"), h * w, budget)
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

    #[test]
    fn images_over_the_budget_are_refused_from_the_header_naming_the_data() {
        use crate::schema::budget::{CLI, PAGE};
        // 10⁶ images of 16×16: 256 MB of bytes, about 1 GB as a lane's f32 values. The
        // header alone (no pixel present) is enough to refuse them.
        let head = idx(&[1_000_000, 16, 16], &[]);
        let e = check_images("'big.gz'", &head, &PAGE).unwrap_err();
        let Error::InvalidOption { key, message } = &e else {
            panic!("{e}")
        };
        assert_eq!(key, "data");
        assert_eq!(
            message,
            "'big.gz' holds 1000000 images of 16×16: the data alone would take about 984 MiB \
             in each lane, over the 256 MiB the page allows per lane; use at most 260111 \
             images of 16×16"
        );
        // As many as fit, and the command line's larger budget, pass; so does MNIST.
        check_images("x", &idx(&[260_111, 16, 16], &[]), &PAGE).unwrap();
        check_images("x", &idx(&[1_000_000, 16, 16], &[]), &CLI).unwrap();
        check_images("x", &idx(&[60_000, 28, 28], &[]), &PAGE).unwrap();
        // A header that declares no images is refused as the whole file would be.
        assert!(check_images("x", &idx(&[24], &[]), &PAGE)
            .unwrap_err()
            .to_string()
            .contains("3 dimensions"));
        assert!(check_images("x", &[0, 0, 8, 3, 0], &PAGE)
            .unwrap_err()
            .to_string()
            .contains("truncated"));
    }
}

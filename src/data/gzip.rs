//! The one reader of gzip-compressed files that both shells use (data files, IDX files, the
//! MNIST asset, model files): [`unpack`] reads a gzip file whole, as `gzip -d` does — every
//! member of a multi-member file (`cat a.gz b.gz > ab.gz` is one file of both contents) — and
//! refuses what it cannot read whole: a truncated or damaged member, or bytes after the last
//! member that are not gzip (where `gzip -d` warns "trailing garbage ignored").

use crate::error::{Error, Result};
use std::borrow::Cow;
use std::io::Read;

/// The most bytes a shell reads of one input file (data, model, per-trial records), before and
/// after unpacking: the page and the command line alike (a model file of the largest lane the
/// page admits is about 150 MB of JSON at worst, [`crate::model::Rbm::json_len_max`]).
pub const MAX_FILE_BYTES: usize = 256 << 20;

/// gzip's magic number, the first two bytes of every member.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `bytes` start like a gzip file (its magic number).
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// The content of a file's bytes: unpacked whole when they are gzip ([`is_gzip`]), every member
/// in turn, else the bytes as they are. At most `max` bytes come out (a gzip bomb, or a file
/// past a shell's limit, is refused with [`Error::TooLarge`]); a truncated or damaged member and
/// trailing bytes that are no gzip member are refused with [`Error::Parse`]. `what` names the
/// file in the messages.
pub fn unpack<'a>(bytes: &'a [u8], max: usize, what: &str) -> Result<Cow<'a, [u8]>> {
    if !is_gzip(bytes) {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut member = 0usize;
    while !rest.is_empty() {
        member += 1;
        let at = bytes.len() - rest.len();
        if !is_gzip(rest) {
            return Err(Error::Parse(format!(
                "{what} has {} bytes after the end of its gzip data (at byte {at}) that are not \
                 gzip: the file is damaged or has something appended",
                rest.len()
            )));
        }
        let mut dec = flate2::bufread::GzDecoder::new(rest);
        let room = (max - out.len()) as u64 + 1;
        (&mut dec).take(room).read_to_end(&mut out).map_err(|e| {
            Error::Parse(if e.kind() == std::io::ErrorKind::UnexpectedEof {
                format!(
                    "{what} is truncated: gzip member {member} (at byte {at}) ends early, so \
                     the file cannot be read whole"
                )
            } else {
                format!(
                    "{what} is damaged: gzip member {member} (at byte {at}) cannot be read \
                     whole ({e})"
                )
            })
        })?;
        if out.len() > max {
            return Err(Error::TooLarge(format!(
                "{what} unpacks to more than {} MiB, the most read",
                max >> 20
            )));
        }
        rest = dec.into_inner();
    }
    Ok(Cow::Owned(out))
}

/// The first `n` bytes of a file's content (fewer when it holds fewer): of gzip bytes, only
/// as much as gives them is unpacked, so a shell reads a header (an IDX file's dimensions)
/// before it unpacks the whole file; else the bytes as they are. A damaged start is refused
/// with [`Error::Parse`]; a content shorter than `n` is not (the header's reader says what is
/// missing), nor anything after the first `n` bytes ([`unpack`] reads the file whole).
pub fn head<'a>(bytes: &'a [u8], n: usize, what: &str) -> Result<Cow<'a, [u8]>> {
    if !is_gzip(bytes) {
        return Ok(Cow::Borrowed(&bytes[..n.min(bytes.len())]));
    }
    let mut out = Vec::with_capacity(n);
    let dec = flate2::bufread::GzDecoder::new(bytes);
    match dec.take(n as u64).read_to_end(&mut out) {
        Ok(_) => Ok(Cow::Owned(out)),
        // A member that ends early: what came out so far is the head.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(Cow::Owned(out)),
        Err(e) => Err(Error::Parse(format!(
            "{what} is damaged: its gzip data cannot be read ({e})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_bytes_pass_through() {
        assert_eq!(&*unpack(b"0101\n", 10, "f").unwrap(), b"0101\n");
    }

    #[test]
    fn every_member_of_a_multi_member_file_is_read() {
        let mut both = gz(b"first\n");
        both.extend(gz(b"second\n"));
        both.extend(gz(b""));
        assert_eq!(&*unpack(&both, 1 << 20, "f").unwrap(), b"first\nsecond\n");
    }

    #[test]
    fn truncated_damaged_and_trailing_bytes_are_refused() {
        let one = gz(&[7u8; 1000]);
        for cut in [2, 5, 12, one.len() / 2, one.len() - 4, one.len() - 1] {
            let e = unpack(&one[..cut], 1 << 20, "f.gz")
                .unwrap_err()
                .to_string();
            assert!(e.contains("f.gz is truncated: gzip member 1"), "{cut}: {e}");
        }
        let mut trailing = one.clone();
        trailing.extend_from_slice(b"junk");
        let e = unpack(&trailing, 1 << 20, "f.gz").unwrap_err().to_string();
        assert!(
            e.contains("4 bytes after the end") && e.contains("not gzip"),
            "{e}"
        );
        let mut zeros = one.clone();
        zeros.extend_from_slice(&[0; 8]);
        assert!(unpack(&zeros, 1 << 20, "f.gz").is_err());
        let mut second_cut = one.clone();
        second_cut.extend_from_slice(&one[..20]);
        let e = unpack(&second_cut, 1 << 20, "f.gz")
            .unwrap_err()
            .to_string();
        assert!(e.contains("gzip member 2"), "{e}");
        let mut flipped = one.clone();
        let last = flipped.len() - 6;
        flipped[last] ^= 1; // the CRC
        let e = unpack(&flipped, 1 << 20, "f.gz").unwrap_err().to_string();
        assert!(e.contains("f.gz is damaged: gzip member 1"), "{e}");
    }

    #[test]
    fn the_output_is_bounded() {
        let one = gz(&[0u8; 5000]);
        assert_eq!(unpack(&one, 5000, "f").unwrap().len(), 5000);
        let e = unpack(&one, 4999, "f").unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e}");
        let mut two = one.clone();
        two.extend(&one);
        assert!(matches!(unpack(&two, 9999, "f"), Err(Error::TooLarge(_))));
    }

    #[test]
    fn the_head_unpacks_only_what_it_gives() {
        // The first 12 of 10⁷ zeros come out without the rest.
        let big = gz(&vec![0u8; 10_000_000]);
        assert_eq!(&*head(&big, 12, "f").unwrap(), &[0u8; 12]);
        assert_eq!(&*head(b"0101\n", 3, "f").unwrap(), b"010");
        assert_eq!(&*head(b"01", 3, "f").unwrap(), b"01");
        // A short or truncated content gives what there is; a damaged start is refused.
        assert_eq!(&*head(&gz(b"ab"), 12, "f").unwrap(), b"ab");
        let noise: Vec<u8> = (0..4000u32).map(|i| (i * i * 7 % 251) as u8).collect();
        let one = gz(&noise);
        assert_eq!(
            &*head(&one[..one.len() / 2], 12, "f").unwrap(),
            &noise[..12]
        );
        let mut bad = one.clone();
        bad[3] = 0xff; // reserved flag bits
        let e = head(&bad, 12, "f.gz").unwrap_err().to_string();
        assert!(e.contains("f.gz is damaged"), "{e}");
    }
}

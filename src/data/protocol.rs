//! The "paper protocol" for grey-level data (docs/algorithms.md §2): one seeded stochastic
//! binarisation of the grey levels, drawn once and kept fixed, the set-up of the RBM papers'
//! MNIST log-likelihood figures (e.g. Salakhutdinov & Murray 2008, *On the quantitative
//! analysis of deep belief networks*, §4, whose binary MNIST later AIS comparisons reuse).
//! Training and evaluation then see the very same bits — unlike [`Binarize::Sample`] (a fresh Bernoulli
//! draw per use, in training) or the 0.5 threshold on which the exact curves and AIS evaluate
//! grey data by default — so figures made under it must not be compared with figures made
//! under another protocol without saying so: every output made under it names it
//! ([`Protocol::name`]).

use super::{Binarize, Dataset};
use crate::error::{Error, Result};
use crate::rng::{stream, Purpose};

/// The tag in the lane of the protocol's stream (`"PAPR"` in ASCII), so the fixed
/// binarisation never shares random numbers with a lane's own `Data` stream of the same seed.
pub const LANE_TAG: u64 = 0x5041_5052 << 32;

/// How a data set is made binary before anything uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// One stochastic binarisation with this seed, kept fixed: each grey level `x ∈ (0, 1)`
    /// becomes 1 with probability `x` (levels 0 and 1 stay as they are).
    Paper {
        /// Seed of the one draw.
        seed: u64,
    },
}

impl Protocol {
    /// Parses `paper:SEED` (the command line's `--protocol`).
    pub fn parse(text: &str) -> Result<Protocol> {
        let bad = || {
            Error::option(
                "protocol",
                format!(
                    "protocol must be paper:SEED, one fixed stochastic binarisation with seed \
                     SEED, e.g. paper:1 (got '{text}')"
                ),
            )
        };
        let seed = text.strip_prefix("paper:").ok_or_else(bad)?;
        let seed = seed.parse::<u64>().map_err(|_| bad())?;
        if seed > crate::schema::options::MAX_SEED {
            return Err(Error::option(
                "protocol",
                format!(
                    "the protocol's seed {seed} is above the largest seed, {}",
                    crate::schema::options::MAX_SEED
                ),
            ));
        }
        Ok(Protocol::Paper { seed })
    }

    /// The protocol's name in outputs: `paper:SEED`.
    pub fn name(&self) -> String {
        match self {
            Protocol::Paper { seed } => format!("paper:{seed}"),
        }
    }

    /// `data` under the protocol: binary data unchanged, grey levels binarised once
    /// ([`fixed_binarization`]).
    pub fn apply(&self, data: &Dataset) -> Dataset {
        match *self {
            Protocol::Paper { seed } => fixed_binarization(data, seed),
        }
    }
}

/// FNV-1a (64 bits) of the data's width and values: the stream of [`fixed_binarization`]
/// depends on the data, so that two different sets binarised with one seed (a training and a
/// test split) draw independent numbers, while the same set always gets the same bits.
fn content_key(data: &Dataset) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(&(data.m as u64).to_le_bytes());
    for x in &data.values {
        eat(&x.to_bits().to_le_bytes());
    }
    h
}

/// One stochastic binarisation of `data` with `seed`: every grey level `x ∈ (0, 1)` becomes 1
/// with probability `x` ([`Binarize::Sample`]'s draw, row after row), from the `Data` stream
/// of `seed` in lane [`LANE_TAG`] ^ (a hash of the data's values). The same data and seed give
/// the same bits on every platform; binary data are returned unchanged.
pub fn fixed_binarization(data: &Dataset, seed: u64) -> Dataset {
    let mut out = data.clone();
    if data.is_binary() {
        return out;
    }
    let mut rng = stream(seed, LANE_TAG ^ content_key(data), Purpose::Data);
    Binarize::Sample.apply(&mut out.values, &mut rng);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_paper_seed_and_refuses_anything_else() {
        assert_eq!(
            Protocol::parse("paper:7").unwrap(),
            Protocol::Paper { seed: 7 }
        );
        assert_eq!(Protocol::parse("paper:7").unwrap().name(), "paper:7");
        for bad in ["paper", "paper:", "paper:x", "paper:-1", "fixed:1", ""] {
            let e = Protocol::parse(bad).unwrap_err();
            assert_eq!(e.key(), Some("protocol"), "{bad}");
        }
        assert!(Protocol::parse(&format!("paper:{}", u64::MAX)).is_err());
    }
}

//! The sizes of what the CPU engine holds, for the cost model (`src/cost.rs`), which asks here
//! instead of copying the engine's formulas: the packed layouts of a matrix, the statistics'
//! scratch, the chains' pattern tables and UCD's.
//!
//! Counts are of f32-sized values, as f64: the cost model sizes configurations far too large to
//! allocate (it refuses them), whose counts could overflow `usize` on wasm32. Every size reads
//! the constants of the code it sizes; `tests/cost.rs` also measures the allocations of
//! [`crate::model::Stats::add`] and of a model's packed layouts against these functions.

use crate::engine::cpu::patterns::met::DIRECT_BITS as UCD_DIRECT_BITS;
use crate::engine::cpu::patterns::sweeps::BitSweeps;
use crate::model::{BY_UNIT_MIN_HIDDEN, BY_UNIT_MIN_ROWS};
use crate::train::ucd::table_bound;

/// The chunk width of a packed layout of a matrix `width` columns wide: 8, 16 or 32 columns
/// (the model's `Packed::new`: 32 columns are eight 4-lane registers; narrower layers take the
/// smallest chunk that holds them).
pub fn chunk_width(width: usize) -> usize {
    crate::model::chunk_width(width)
}

/// f32 values of a packed layout of a `k`×`width` matrix (the model's `Packed`: column chunks
/// of [`chunk_width`] columns, the last one zero-padded), as the model holds W (`m`×`n`) and
/// Wᵀ (`n`×`m`).
pub fn packed(k: usize, width: usize) -> f64 {
    let cw = chunk_width(width) as f64;
    (width as f64 / cw).ceil() * cw * k as f64
}

/// f32 values of the packed copy of E[h|v] a statistics accumulator keeps after adding `rows`
/// 0/1 rows of a model with `n` hidden units ([`crate::model::Stats::add`] and
/// [`crate::model::Stats::add_patterns`]): at least `BY_UNIT_MIN_HIDDEN` (16) hidden units and
/// `BY_UNIT_MIN_ROWS` (16) rows go unit by unit over E[h|v] in the packed layout, which E[h|v]
/// already is when `n` is one chunk wide (16 or 32 units); else none. Its bitsets (a few words
/// per row and unit) are not counted.
pub fn stats_scratch(n: usize, rows: usize) -> f64 {
    if n >= BY_UNIT_MIN_HIDDEN && rows >= BY_UNIT_MIN_ROWS && n != chunk_width(n) {
        packed(rows, n)
    } else {
        0.0
    }
}

/// f32-sized values of the pattern tables the chains of an `m`×`n` model keep when both layers
/// are small enough to run on patterns (at most `MAX_BITS` units each, the engine's
/// `patterns::sweeps`; else none): two patterns per chain of `chains`, two 16-bit words per
/// possible pattern of each layer, and the thresholds of the patterns one update of `sweeps`
/// sweeps per chain meets — at most every pattern, at most one per chain and sweep (and
/// E[h|v] after them).
pub fn pattern_tables(m: usize, n: usize, chains: usize, sweeps: f64) -> f64 {
    if !BitSweeps::applies(m, n) {
        return 0.0;
    }
    let (m, n, chains) = (m as f64, n as f64, chains as f64);
    let (vis, hid) = (m.exp2(), n.exp2());
    2.0 * chains + (vis + hid) + vis.min(chains * (sweeps + 1.0)) * n + hid.min(chains * sweeps) * m
}

/// f32-sized values of UCD's pattern tables (`train::ucd`) for an `m`×`n` model whose update
/// meets at most `met` patterns per layer (one per chain and sweep), one table per layer: the
/// direct index of a layer of at most 16 units (two words per possible pattern) and, per
/// pattern met (at most the table's bound, `train::ucd::table_bound`), its key, two list words
/// and the other layer's pre-activations and thresholds (and, for hidden patterns, their
/// thresholds' product).
pub fn ucd_pattern_tables(m: usize, n: usize, met: f64) -> f64 {
    [(m, n, 0.0), (n, m, 4.0)]
        .iter()
        .map(|&(units, width, product)| {
            let index = if units <= UCD_DIRECT_BITS {
                2.0 * (units as f64).exp2()
            } else {
                0.0
            };
            let kept = met.min(table_bound(width) as f64);
            let (k, width) = (units as f64, width as f64);
            index + kept * (2.0 * width + 2.0 * (k / 64.0).ceil() + 2.0 + product)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cpu::patterns::sweeps::MAX_BITS;

    #[test]
    fn packed_layouts_pad_to_whole_chunks() {
        assert_eq!(packed(3, 5), 24.0);
        assert_eq!(packed(3, 9), 48.0);
        assert_eq!(packed(3, 16), 48.0);
        assert_eq!(packed(3, 17), 96.0);
        assert_eq!(packed(2, 65), 192.0);
    }

    #[test]
    fn the_statistics_copy_e_h_only_when_they_go_unit_by_unit_on_a_layer_not_one_chunk_wide() {
        assert_eq!(stats_scratch(15, 100), 0.0);
        assert_eq!(stats_scratch(17, 15), 0.0);
        assert_eq!(stats_scratch(16, 100), 0.0);
        assert_eq!(stats_scratch(32, 100), 0.0);
        assert_eq!(stats_scratch(17, 16), packed(16, 17));
        assert_eq!(stats_scratch(500, 100), packed(100, 500));
    }

    #[test]
    fn pattern_tables_only_on_layers_that_run_on_patterns() {
        assert!(pattern_tables(MAX_BITS, MAX_BITS, 10, 1.0) > 0.0);
        assert_eq!(pattern_tables(MAX_BITS + 1, 4, 10, 1.0), 0.0);
        assert_eq!(pattern_tables(4, MAX_BITS + 1, 10, 1.0), 0.0);
        // Direct indexes on both small layers, none on a wide one.
        let met = 0.0;
        assert_eq!(ucd_pattern_tables(16, 4, met), 2.0 * (65536.0 + 16.0));
        assert_eq!(ucd_pattern_tables(17, 100, met), 0.0);
    }
}

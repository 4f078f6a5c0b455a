//! The samplers' golden streams (native side): every sampler's fixed-seed samples, grey mean,
//! fast-weight norm and ISL, committed in `tests/golden/samplers.json` and checked bit for bit
//! here and in the browser (`crates/wasm/tests/wasm.rs`), so the page samples exactly what the
//! CLI samples.
//!
//! Regenerate after an intended change with `GOLDEN_UPDATE=1 cargo test --release --test
//! samplers` and commit the file.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{sampler_golden, SamplerGolden, SAMPLER_GOLDEN_PATH};

#[test]
fn sampler_streams_match_the_golden_file() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLER_GOLDEN_PATH);
    let got = sampler_golden();
    if std::env::var_os("GOLDEN_UPDATE").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let want: Vec<SamplerGolden> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        got, want,
        "regenerate with GOLDEN_UPDATE=1 after an intended change"
    );
    // Four different streams: the samplers really differ.
    let hashes: std::collections::BTreeSet<_> = got.iter().map(|g| &g.samples_hash).collect();
    assert_eq!(hashes.len(), got.len());
}

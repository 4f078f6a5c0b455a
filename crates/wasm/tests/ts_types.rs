//! The TypeScript declarations of every value crossing the wasm boundary are generated from the
//! Rust types (ts-rs) and committed as `www/src/generated/core.ts`; this test fails when the
//! file differs from what the types give, so the page's types cannot drift from the core's.
//! After an intended change: `TS_UPDATE=1 cargo test -p rbm-playground --features ts --test ts_types`.
#![cfg(all(feature = "ts", not(target_arch = "wasm32")))]

use rbm_core::catalog::{
    AlgoEntry, Catalog, DataSetEntry, OptionEntry, PresetEntry, PresetLaneEntry,
};
use rbm_core::diagnostics::grad::{BlockEstimate, GradEstimate, GradSummary};
use rbm_core::diagnostics::mixing_bound::GibbsBound;
use rbm_core::diagnostics::spectrum::GibbsSpectrum;
use rbm_core::error::ErrorInfo;
use rbm_core::eval::chain::ChainPoint;
use rbm_core::eval::distribution::Distribution;
use rbm_core::eval::isl::IslPoint;
use rbm_core::eval::mixing::Mixing;
use rbm_core::experiments::claims::{BandPoint, Check, Claim, LaneBand, Status, Verdict};
use rbm_core::experiments::explore::Settings;
use rbm_core::experiments::{AisSpec, Extent};
use rbm_core::sampler::drift::{DriftPoint, SelfTest};
use rbm_core::sampler::{SamplerConfig, SamplerEntry};
use rbm_core::schema::options::{Default, Kind, OptionSpec, Scope};
use rbm_core::schema::stats::{Aggregate, StatSpec};
use rbm_core::train::trace::Trace;
use rbm_core::train::{Record, View};
use rbm_playground::explore::{
    ExploreCell, ExploreCost, ExploreLane, ExplorePlan, ExploreRequest, ExploreVerdict,
};
use rbm_playground::{
    AisEstimate, AisProgress, ChainResult, ExactResult, GradResult, LoadedSet, MixingResult,
    SamplerSlice, SliceResult, TracedSlice,
};
use ts_rs::{Config, TS};

fn decl<T: TS>(cfg: &Config) -> String {
    format!("export {}\n", T::decl(cfg))
}

fn generated() -> String {
    let cfg = Config::new();
    let mut out = String::from(
        "// Generated from the Rust types by crates/wasm/tests/ts_types.rs (ts-rs); do not edit.\n\
         // Regenerate: TS_UPDATE=1 cargo test -p rbm-playground --features ts --test ts_types\n\n",
    );
    for d in [
        decl::<Catalog>(&cfg),
        decl::<AlgoEntry>(&cfg),
        decl::<OptionEntry>(&cfg),
        decl::<OptionSpec>(&cfg),
        decl::<Kind>(&cfg),
        decl::<Default>(&cfg),
        decl::<Scope>(&cfg),
        decl::<StatSpec>(&cfg),
        decl::<Aggregate>(&cfg),
        decl::<DataSetEntry>(&cfg),
        decl::<PresetEntry>(&cfg),
        decl::<PresetLaneEntry>(&cfg),
        decl::<AisSpec>(&cfg),
        decl::<Extent>(&cfg),
        decl::<Claim>(&cfg),
        decl::<Check>(&cfg),
        decl::<LaneBand>(&cfg),
        decl::<BandPoint>(&cfg),
        decl::<Verdict>(&cfg),
        decl::<Status>(&cfg),
        decl::<Record>(&cfg),
        decl::<View>(&cfg),
        decl::<Distribution>(&cfg),
        decl::<ErrorInfo>(&cfg),
        decl::<SliceResult>(&cfg),
        decl::<TracedSlice>(&cfg),
        decl::<Trace>(&cfg),
        decl::<LoadedSet>(&cfg),
        decl::<AisProgress>(&cfg),
        decl::<AisEstimate>(&cfg),
        decl::<ExactResult>(&cfg),
        decl::<SamplerEntry>(&cfg),
        decl::<SamplerConfig>(&cfg),
        decl::<SamplerSlice>(&cfg),
        decl::<IslPoint>(&cfg),
        decl::<Mixing>(&cfg),
        decl::<DriftPoint>(&cfg),
        decl::<SelfTest>(&cfg),
        decl::<ChainPoint>(&cfg),
        decl::<ChainResult>(&cfg),
        decl::<GradSummary>(&cfg),
        decl::<BlockEstimate>(&cfg),
        decl::<GradEstimate>(&cfg),
        decl::<GradResult>(&cfg),
        decl::<GibbsSpectrum>(&cfg),
        decl::<GibbsBound>(&cfg),
        decl::<MixingResult>(&cfg),
        decl::<ExploreRequest>(&cfg),
        decl::<ExplorePlan>(&cfg),
        decl::<ExploreLane>(&cfg),
        decl::<ExploreCell>(&cfg),
        decl::<Settings>(&cfg),
        decl::<ExploreCost>(&cfg),
        decl::<ExploreVerdict>(&cfg),
    ] {
        out.push_str(&d);
    }
    out
}

#[test]
fn typescript_declarations_match_the_rust_types() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../www/src/generated/core.ts"
    );
    let want = generated();
    if std::env::var_os("TS_UPDATE").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "www/src/generated/core.ts is out of date with the Rust types; regenerate it with \
         TS_UPDATE=1 cargo test -p rbm-playground --features ts --test ts_types"
    );
}

//! The cost model's memory estimate against the memory lanes really allocate (issue 12): a
//! counting global allocator records the peak of live heap bytes while a lane is built from
//! its data, trains, records (with its exact evaluation when it has one) and hands out a
//! view. One test function, so no other test allocates meanwhile.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::cost::{self, check_lane};
use rbm_core::data::Dataset;
use rbm_core::train::{Lane, LaneConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            if new_size >= layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Ordering::SeqCst)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::SeqCst);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The data sets of the cases: BAS 4×4, or MNIST-shaped digits with this many rows.
fn data(rows: usize) -> Dataset {
    if rows == 0 {
        Dataset::builtin("bas4").unwrap()
    } else {
        Dataset::synthetic_digits(rows, 3)
    }
}

/// Peak heap bytes above the start while the data (`rows`, see [`data`]) are made and a lane of
/// `cfg` on them is built, trains `updates` updates, records and makes a view; and the cost
/// model's estimate.
fn measure(cfg: &LaneConfig, rows: usize, updates: u64) -> (f64, f64) {
    let estimate = check_lane(cfg, &data(rows), &cost::CLI).unwrap().bytes as f64;
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    {
        let mut lane = Lane::new(cfg.clone(), Arc::new(data(rows))).unwrap();
        lane.run(updates).unwrap();
        lane.record().unwrap();
        let view = lane.view(24);
        assert_eq!(view.weights.len(), view.m * view.n);
    }
    let peak = PEAK.load(Ordering::SeqCst) - base;
    (estimate, peak as f64)
}

#[test]
fn the_memory_estimate_is_within_a_factor_of_two_of_what_lanes_allocate() {
    let lane =
        |algo: &str, hidden: usize, batch: Option<usize>, chains: Option<usize>| LaneConfig {
            algo: algo.into(),
            hidden,
            batch,
            chains,
            seed: Some(1),
            every: 1 << 40,
            ..LaneConfig::default()
        };
    // (what, configuration, rows of digits or 0 for BAS 4×4)
    let mut cases = vec![
        // Weight-dominated: the MNIST set-up, a wide model on BAS 4×4, exact curves.
        (
            "pcd 784×500 b100".to_string(),
            lane("pcd", 500, Some(100), None),
            2000,
        ),
        (
            "cd 784×16 b100, exact".into(),
            lane("cd", 16, Some(100), None),
            500,
        ),
        (
            "pcd 16×200000".into(),
            LaneConfig {
                exact_bits: 0,
                ..lane("pcd", 200_000, None, None)
            },
            0,
        ),
        // Chain-dominated.
        (
            "pcd 16×16, 200000 chains, exact".into(),
            lane("pcd", 16, None, Some(200_000)),
            0,
        ),
        (
            "ucd 16×16, 200000 chains, exact".into(),
            lane("ucd", 16, None, Some(200_000)),
            0,
        ),
    ];
    for a in rbm_core::train::ALGORITHMS {
        cases.push((
            format!("{} 784×300 b50", a.name),
            lane(a.name, 300, Some(50), None),
            500,
        ));
    }
    let mut report = Vec::new();
    for (name, cfg, rows) in &cases {
        let (estimate, peak) = measure(cfg, *rows, 3);
        let ratio = estimate / peak;
        report.push(format!(
            "{name}: estimate {}, peak {} (×{ratio:.2})",
            cost::bytes(estimate),
            cost::bytes(peak)
        ));
        assert!(
            (0.5..=2.0).contains(&ratio),
            "{name}: the estimate {} is not within ×2 of the peak {}\n{}",
            cost::bytes(estimate),
            cost::bytes(peak),
            report.join("\n")
        );
    }
    println!("{}", report.join("\n"));
}

//! The cost model's memory estimate against the memory lanes really allocate (issue 12): a
//! counting global allocator records the peak of live heap bytes while a lane is built from
//! its data, trains, records (with its exact evaluation when it has one) and hands out a
//! view; and the engine's sizes the estimate asks (`engine::cpu::sizes`) against what the
//! model and its statistics really allocate, so that a size mirroring a constant of
//! `src/model.rs` fails here when the constant changes. Each test measures holding [`SERIAL`],
//! so no other test allocates meanwhile.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::cost::{self, check_lane};
use rbm_core::data::Dataset;
use rbm_core::engine::cpu::sizes;
use rbm_core::model::{Rbm, Stats};
use rbm_core::schema::budget;
use rbm_core::train::{Lane, LaneConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard};

/// The system allocator, counting the live bytes of each thread and their peak: a test's
/// counts are then its own, whatever the other test threads allocate or free meanwhile (a test
/// thread that ends frees its thread-local buffers while the next test measures).
struct Counting;

thread_local! {
    /// Bytes this thread allocated less what it freed (signed: a thread may free what another
    /// allocated), and their peak since [`peak_of`] reset it. Constant-initialised cells: using
    /// them allocates nothing.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Adds `delta` bytes to this thread's live count (nothing while the thread is being torn
/// down).
fn count(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call forwards to the system allocator with the caller's arguments; counting
// only reads the layout's size.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is the system allocator's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` was allocated by this allocator, which is the system's, with `layout`.
        unsafe { System.dealloc(p, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, with the caller's `new_size`.
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Held by each test while it measures (the counts are per thread; this keeps the measuring
/// tests from competing for the two cores' caches and memory as well).
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Peak heap bytes this thread held above the start while `f` runs, and what it returns.
fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let t = f();
    ((PEAK.with(Cell::get) - base).max(0) as usize, t)
}

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
    let estimate = check_lane(cfg, &data(rows), &budget::CLI).unwrap().bytes as f64;
    let (peak, ()) = peak_of(|| {
        let mut lane = Lane::new(cfg.clone(), Arc::new(data(rows))).unwrap();
        lane.run(updates).unwrap();
        lane.record().unwrap();
        let view = lane.view(24);
        assert_eq!(view.weights.len(), view.m * view.n);
    });
    (estimate, peak as f64)
}

#[test]
fn the_memory_estimate_is_within_a_factor_of_two_of_what_lanes_allocate() {
    let _serial = serial();
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

/// The statistics' scratch the estimate counts ([`sizes::stats_scratch`]) is what
/// [`Stats::add`] allocates beyond its bitsets: the packed copy of E[h|v] exactly when it goes
/// unit by unit (the thresholds `BY_UNIT_MIN_HIDDEN` and `BY_UNIT_MIN_ROWS` of `src/model.rs`)
/// on a hidden layer that is not one chunk wide (the chunk widths of its `Packed`).
#[test]
fn the_statistics_scratch_the_estimate_counts_is_what_stats_add_allocates() {
    let _serial = serial();
    let m: usize = 4;
    let mut report = Vec::new();
    for n in [1, 8, 15, 16, 17, 24, 31, 32, 33, 64, 100] {
        for rows in [1, 8, 15, 16, 17, 64, 100] {
            let v: Vec<f32> = (0..rows * m)
                .map(|i| ((i * 7 + i / 3) % 2) as f32)
                .collect();
            let hp: Vec<f32> = (0..rows * n).map(|i| (i % 5) as f32 / 5.0).collect();
            let mut stats = Stats::new(m, n);
            let (peak, ()) = peak_of(|| stats.add(&v, &hp));
            drop(stats);
            let scratch = 4.0 * sizes::stats_scratch(n, rows);
            // The bitsets of the rows and of the units, the bitset of every row and the target
            // list (its capacity doubling up to m + 1 entries): a few words, fewer than the
            // smallest packed copy (16 rows of one 32-column chunk, 2 KiB).
            let words = rows * m.div_ceil(64) + (m + 1) * rows.div_ceil(64) + 2 * (m + 1);
            let bitsets = (8 * words) as f64;
            report.push(format!(
                "n {n}, {rows} rows: {peak} bytes, scratch {scratch}"
            ));
            assert!(
                scratch <= peak as f64 && peak as f64 <= scratch + bitsets,
                "n {n}, {rows} rows: Stats::add allocated {peak} bytes; the estimate counts \
                 {scratch} bytes of scratch (and up to {bitsets} of bitsets)\n{}",
                report.join("\n")
            );
        }
    }
}

/// The packed layouts the estimate counts ([`sizes::packed`]: chunks of 8, 16 or 32 columns)
/// are what a model holds beside W and its biases: a model large enough to pack W and Wᵀ when
/// it is made, with layers of each chunk width.
#[test]
fn the_packed_layouts_the_estimate_counts_are_what_a_model_holds() {
    let _serial = serial();
    for (m, n) in [(5, 4000), (12, 2000), (17, 1000), (64, 300), (4000, 5)] {
        let (held, model) = peak_of(|| Rbm::zeros(m, n).unwrap());
        drop(model);
        let params = 4 * (m * n + m + n);
        let packed = 4.0 * (sizes::packed(m, n) + sizes::packed(n, m));
        assert!(
            held >= params && (held - params) as f64 == packed,
            "{m}×{n}: the model holds {} bytes beside its parameters; the estimate counts {packed}",
            held as i64 - params as i64
        );
    }
}

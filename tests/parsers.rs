//! Property tests of every parser of the core (issue 12): model files (JSON, binary versions 1
//! and 2, gzipped or not: the one gzip reader), data files of 0/1 lines, IDX files, the MNIST asset, every option of the schema and
//! sampler configurations get arbitrary and mutated inputs. Each must return a value or an error —
//! never panic — and never allocate much more than its input: the peak of live bytes on the
//! parsing thread stays within `32 × input + 1 MiB` (a header announcing 10⁹ images must be
//! refused before anything that size is allocated).
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use rbm_core::data::{idx, mnist, Dataset};
use rbm_core::model::Rbm;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting live bytes per thread and their peak (tests run on threads).
struct PerThread;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grow(by: isize) {
    let _ = LIVE.try_with(|l| {
        l.set(l.get() + by);
        let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
    });
}

unsafe impl GlobalAlloc for PerThread {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        grow(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            grow(new_size as isize - layout.size() as isize);
        }
        q
    }
}

#[global_allocator]
static ALLOC: PerThread = PerThread;

/// Runs `f` and returns the peak of bytes it had live above what was live before.
fn peak_of(f: impl FnOnce()) -> isize {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    f();
    PEAK.with(Cell::get) - base
}

/// Checks that parsing `input` (of `len` bytes) stays within the allocation bound.
fn bounded(len: usize, f: impl FnOnce()) -> Result<(), TestCaseError> {
    let peak = peak_of(f);
    let bound = 32 * len as isize + (1 << 20);
    prop_assert!(
        peak <= bound,
        "{peak} bytes allocated for {len} bytes of input"
    );
    Ok(())
}

/// Valid inputs to mutate.
fn model_bytes() -> Vec<Vec<u8>> {
    let rbm = Rbm::random(7, 5, 0.8, 2).unwrap();
    vec![
        rbm.to_bytes(),
        rbm.to_quantized_bytes(),
        rbm.to_json().into_bytes(),
    ]
}

fn idx_bytes() -> Vec<u8> {
    let mut b = vec![0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 4];
    b.extend((0..48).map(|i| (i * 5) as u8));
    b
}

/// A mutation: flip, set, insert or delete bytes, or truncate.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
    /// Overwrite 4 bytes with a big-endian u32 and its little-endian twin (size fields).
    Word(usize, u32),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        prop_oneof![
            (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
            (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
            any::<usize>().prop_map(Edit::Delete),
            any::<usize>().prop_map(Edit::Truncate),
            (
                0usize..32,
                prop_oneof![any::<u32>(), Just(u32::MAX), Just(1 << 30), Just(0)]
            )
                .prop_map(|(i, w)| Edit::Word(i, w)),
        ],
        1..6,
    )
}

fn mutate(mut b: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = b.len().max(1);
        match *e {
            Edit::Set(i, x) if !b.is_empty() => b[i % n] = x,
            Edit::Insert(i, x) => b.insert(i % (b.len() + 1), x),
            Edit::Delete(i) if !b.is_empty() => {
                b.remove(i % n);
            }
            Edit::Truncate(i) => b.truncate(i % n),
            Edit::Word(i, w) if b.len() >= i + 4 => {
                let bytes = if i % 2 == 0 {
                    w.to_be_bytes()
                } else {
                    w.to_le_bytes()
                };
                b[i..i + 4].copy_from_slice(&bytes);
            }
            _ => {}
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn model_files_from_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        bounded(bytes.len(), || { let _ = Rbm::from_file_bytes(&bytes); })?;
    }

    #[test]
    fn model_files_mutated(which in 0usize..3, e in edits()) {
        let bytes = mutate(model_bytes()[which].clone(), &e);
        bounded(bytes.len(), || {
            if let Ok(m) = Rbm::from_file_bytes(&bytes) {
                assert!(m.non_finite().is_none(), "a parsed model is finite");
            }
        })?;
    }

    #[test]
    fn gzipped_model_files_mutated(which in 0usize..3, e in edits()) {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, &model_bytes()[which]).unwrap();
        let bytes = mutate(gz.finish().unwrap(), &e);
        bounded(bytes.len(), || {
            if let Ok(m) = Rbm::from_file_bytes(&bytes) {
                assert!(m.non_finite().is_none(), "a parsed model is finite");
            }
        })?;
    }

    #[test]
    fn data_files_from_text(text in "[01 \t\n#a-z,.-]{0,300}") {
        bounded(text.len(), || {
            if let Ok(d) = Dataset::parse("t", &text) {
                assert!(d.values.iter().all(|&x| x == 0.0 || x == 1.0));
                assert_eq!(d.values.len(), d.rows() * d.m);
            }
        })?;
    }

    #[test]
    fn idx_files_mutated(e in edits(), labels in prop::option::of(prop::collection::vec(any::<u8>(), 0..16))) {
        let images = mutate(idx_bytes(), &e);
        let labels = labels.map(|l| { let mut b = vec![0, 0, 8, 1, 0, 0, 0, l.len() as u8]; b.extend(l); b });
        bounded(images.len() + labels.as_ref().map_or(0, Vec::len), || {
            if let Ok(im) = idx::parse("t", &images, labels.as_deref()) {
                assert!(im.count() > 0);
            }
        })?;
    }

    #[test]
    fn mnist_assets_mutated(e in edits()) {
        let tiny = idx::parse("t", &idx_bytes(), None).unwrap().encode();
        let bytes = mutate(tiny, &e);
        bounded(bytes.len(), || { let _ = mnist::decode(&bytes); })?;
    }

    #[test]
    fn every_option_parses_or_names_itself(text in "\\PC{0,24}") {
        let sampler_options = rbm_core::sampler::OPTIONS.iter().copied();
        for spec in rbm_core::train::config::options().into_iter().chain(sampler_options) {
            match spec.parse(&text) {
                Ok(v) => prop_assert!(v.as_f64().is_none_or(|x| x.is_finite()), "{}: {v}", spec.key),
                Err(rbm_core::Error::InvalidOption { key, .. }) => prop_assert_eq!(key, spec.key),
                Err(e) => prop_assert!(false, "{}: {e}", spec.key),
            }
        }
    }

    #[test]
    fn sampler_configs_validate_or_refuse(name in "[a-z-]{0,14}", k in any::<u64>(), eps in any::<f64>(), alpha in any::<f64>()) {
        let mut cfg = rbm_core::sampler::SamplerConfig::default();
        let _ = cfg.set("sampler", &serde_json::Value::from(name));
        let _ = cfg.set("k", &serde_json::Value::from(k));
        let _ = cfg.set("eps_f", &serde_json::json!(eps));
        let _ = cfg.set("alpha", &serde_json::json!(alpha));
        if cfg.validate().is_ok() {
            prop_assert!(cfg.k >= 1 && cfg.k <= rbm_core::sampler::STEP_LIMIT as usize);
            prop_assert!(cfg.eps_f().unwrap().is_finite() && cfg.alpha().unwrap().is_finite());
        }
    }
}

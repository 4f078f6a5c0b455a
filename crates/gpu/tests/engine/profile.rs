//! The GPU profile (`rbm speed --profile`, [`rbm_gpu::profile`]): every pass of a profiled
//! stretch is timed under its kernel's name, the products carry their arithmetic, and timing
//! changes nothing that is computed. On a device of its own: a profile is the device's state.

use rbm_core::data::Dataset;
use rbm_core::engine::Engine;
use rbm_core::model::Rbm;
use rbm_core::rng::{stream, uniform, Purpose};
use rbm_core::train::{pcd::Pcd, Algorithm, Ctx, LaneConfig, Setup};
use rbm_gpu::profile::{summarize, PassTime};
use rbm_gpu::{Device, Gpu, GpuModel, GpuOptimizer, GpuRng};
use std::sync::Arc;

const M: usize = 20;
const N: usize = 8;
const BATCH: usize = 4;
const UPDATES: usize = 6;

/// PCD-1 on random 20-pixel rows from a fixed model and seed, `UPDATES` updates with
/// `BATCH` rows and chains: the trained parameters' bits, and the passes timed meanwhile when
/// `profiled`.
fn pcd(dev: &Arc<Device>, profiled: bool) -> (Vec<u32>, Vec<PassTime>) {
    let mut r = stream(7, 0, Purpose::Aux);
    let rows: Vec<Vec<u8>> = (0..16)
        .map(|_| (0..M).map(|_| u8::from(uniform(&mut r) < 0.3)).collect())
        .collect();
    let data = Dataset::from_rows("random", &rows, None).unwrap();
    let cfg = LaneConfig {
        algo: "pcd".into(),
        hidden: N,
        k: 1,
        ..LaneConfig::default()
    };
    let mut model = GpuModel::upload(dev, &Rbm::random(M, N, 0.1, 3).unwrap());
    let setup = Setup::<Gpu> {
        cfg: &cfg,
        model: &model,
        data: &data,
        batch: BATCH,
        chains: BATCH,
    };
    let mut algo = Pcd::<Gpu>::new(&setup);
    let mut opt = GpuOptimizer::new(&model, 0.0, 0.0);
    let mut pos = Gpu::stats(&model);
    let mut rng = GpuRng::new(5, 0);
    dev.finish();
    if profiled {
        dev.start_profile()
            .expect("the adapter times its passes (lavapipe does)");
    }
    let mut b = Vec::new();
    for t in 0..UPDATES {
        b.clear();
        for i in 0..BATCH {
            b.extend_from_slice(data.row((BATCH * t + i) % data.rows()));
        }
        let mut cx = Ctx::<Gpu> {
            model: &mut model,
            batch: &b,
            rng: &mut rng,
            lr: 0.1,
            opt: &mut opt,
            pos: &mut pos,
        };
        algo.update(&mut cx).unwrap();
        dev.flush();
    }
    let passes = dev.take_profile().unwrap();
    let host = model.download().unwrap();
    let bits = host
        .w()
        .iter()
        .chain(&host.b)
        .chain(&host.c)
        .map(|x| x.to_bits())
        .collect();
    (bits, passes)
}

#[test]
fn a_profile_times_every_pass_by_kernel_and_changes_nothing_computed() {
    let dev = Device::open(None).expect("a GPU adapter (lavapipe in CI)");
    let (plain, none) = pcd(&dev, false);
    assert!(
        none.is_empty(),
        "no profile, no passes timed: {}",
        none.len()
    );

    let (timed, passes) = pcd(&dev, true);
    assert_eq!(
        timed, plain,
        "timing the passes changed the trained parameters"
    );

    // Each update records the same dispatches, so the passes divide evenly among the updates,
    // in the same order of kernels each time.
    assert!(!passes.is_empty());
    assert_eq!(
        passes.len() % UPDATES,
        0,
        "{} passes over {UPDATES} updates",
        passes.len()
    );
    let per = passes.len() / UPDATES;
    let kernels: Vec<&str> = passes.iter().map(|p| &*p.kernel).collect();
    for u in 1..UPDATES {
        assert_eq!(
            kernels[u * per..(u + 1) * per],
            kernels[..per],
            "update {u}'s kernels"
        );
    }
    // The products of PCD-1: v·W and h·Wᵀ for the data and the chains, vᵀh for the statistics.
    let products: Vec<&PassTime> = passes
        .iter()
        .filter(|p| p.kernel.starts_with("Gemm"))
        .collect();
    assert!(
        products.len() >= 4 * UPDATES,
        "products per update: {:?}",
        &kernels[..per]
    );
    for p in &passes {
        assert!(
            p.end_ns >= p.begin_ns,
            "{} ended before it began: {p:?}",
            p.kernel
        );
        assert_eq!(p.flops > 0.0, p.kernel.starts_with("Gemm"), "{p:?}");
    }
    // Each product is 2·rows·cols·depth of this shape: a multiple of 2·BATCH·(M or N).
    for p in &products {
        let f = p.flops as usize;
        assert!(
            f.is_multiple_of(2 * BATCH) && f <= 2 * BATCH * M * N * 2,
            "{p:?}"
        );
    }
    // The clock ran: the passes took time, and the passes of one submission lie within its span.
    let s = summarize(&passes);
    assert!(s.busy_ns > 0.0, "{s:?}");
    assert!(s.span_ns > 0.0, "{s:?}");
    assert_eq!(
        s.kernels.iter().map(|k| k.passes).sum::<usize>(),
        passes.len()
    );
    assert!(
        s.kernels.windows(2).all(|w| w[0].ns >= w[1].ns),
        "longest first: {s:?}"
    );

    // After a profile, nothing is timed again until the next one.
    let (again, after) = pcd(&dev, false);
    assert_eq!(again, plain);
    assert!(after.is_empty());
}

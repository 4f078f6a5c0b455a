//! What the GPU test files share: one device per test binary, and the wait for a copy that
//! comes back without blocking (`Snapshot`).

use rbm_core::error::Result;
use rbm_gpu::{Device, Snapshot};
use std::sync::{Arc, OnceLock};

/// The adapter wgpu finds (lavapipe in CI), opened once and shared by the binary's tests.
pub fn device() -> Arc<Device> {
    static DEV: OnceLock<Arc<Device>> = OnceLock::new();
    DEV.get_or_init(|| Device::open(None).expect("a GPU adapter (lavapipe in CI)"))
        .clone()
}

/// The numbers of `copy` once on the host. The tests share one device: another thread's poll
/// may be the one that runs the copy's callback, a moment after this thread's wait returns (as
/// `Device::read` allows for), so this polls until it is in.
#[allow(dead_code)] // not every test binary waits for a copy
pub fn on_host(dev: &Device, copy: &Snapshot) -> Result<Vec<f32>> {
    (0..10_000)
        .find_map(|_| {
            dev.finish();
            dev.progress();
            let got = copy.take();
            if got.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            got
        })
        .expect("on the host within 10 000 polls")
}

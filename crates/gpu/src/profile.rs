//! Where a GPU's time goes, kernel by kernel (benchmarks only: `rbm speed --profile`). With
//! [`crate::Device::start_profile`], every dispatch's compute pass writes a timestamp at its
//! beginning and its end (WebGPU's timestamp queries, where the adapter has them); each
//! submission resolves its timestamps and waits for them, so a profiled run is slower than a
//! plain one and is never what `rbm speed` reports as a rate. What it tells: how long each kernel
//! runs per update, what the products reach in FLOP/s, and how much of an update's span on the
//! GPU is left between passes (the dispatch overhead a fused update would save).

use std::collections::BTreeMap;
use std::sync::Arc;

/// Passes timed per submission at most (a fuller one is submitted early): two timestamps each,
/// and a query set holds at most 4 096.
pub(crate) const CAPACITY: usize = 2048;

/// One dispatch's compute pass, timed on the GPU.
#[derive(Clone, Debug)]
pub struct PassTime {
    /// Its kernel ("Gemm", "GemmLarge", "SplitSum", "step", an entry point of a kernel file).
    pub kernel: Arc<str>,
    /// The products' arithmetic (2 · rows · cols · depth per product; 0 for other kernels).
    pub flops: f64,
    /// When it began and ended, in nanoseconds on the GPU's clock.
    pub begin_ns: f64,
    pub end_ns: f64,
    /// The submission it was part of (passes of one submission run one after another).
    pub submission: u64,
}

/// The timestamps of the submission being recorded, and the passes measured so far.
pub(crate) struct Recorder {
    pub set: wgpu::QuerySet,
    pub resolve: wgpu::Buffer,
    pub read: wgpu::Buffer,
    /// The passes of the submission being recorded: kernel and flops.
    pub pending: Vec<(Arc<str>, f64)>,
    pub done: Vec<PassTime>,
    pub submissions: u64,
}

impl Recorder {
    pub fn new(device: &wgpu::Device) -> Recorder {
        let bytes = (2 * CAPACITY * 8) as u64;
        Recorder {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("profile"),
                ty: wgpu::QueryType::Timestamp,
                count: (2 * CAPACITY) as u32,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("profile resolve"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            read: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("profile read"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            pending: Vec::new(),
            done: Vec::new(),
            submissions: 0,
        }
    }

    /// Whether the submission being recorded has room for another timed pass.
    pub fn full(&self) -> bool {
        self.pending.len() >= CAPACITY
    }

    /// The timestamp writes of the next pass, which runs `kernel` with `flops` of products.
    pub fn pass(&mut self, kernel: Arc<str>, flops: f64) -> wgpu::ComputePassTimestampWrites<'_> {
        let i = self.pending.len() as u32;
        self.pending.push((kernel, flops));
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        }
    }

    /// Records the resolution of the pending passes' timestamps into `read` (before the
    /// submission's encoder is finished). The number of passes resolved.
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) -> usize {
        let n = self.pending.len();
        if n > 0 {
            enc.resolve_query_set(&self.set, 0..(2 * n) as u32, &self.resolve, 0);
            enc.copy_buffer_to_buffer(&self.resolve, 0, &self.read, 0, (2 * n * 8) as u64);
        }
        n
    }

    /// After the submission: waits for its timestamps and keeps its passes' times.
    pub fn collect(&mut self, device: &wgpu::Device, period_ns: f64) {
        let n = self.pending.len();
        if n == 0 {
            return;
        }
        let slice = self.read.slice(..(2 * n * 8) as u64);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        let ticks: Vec<u64> = {
            let view = slice
                .get_mapped_range()
                .expect("a mapped buffer is readable");
            view.chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect()
        };
        self.read.unmap();
        for (i, (kernel, flops)) in self.pending.drain(..).enumerate() {
            self.done.push(PassTime {
                kernel,
                flops,
                begin_ns: ticks[2 * i] as f64 * period_ns,
                end_ns: ticks[2 * i + 1] as f64 * period_ns,
                submission: self.submissions,
            });
        }
        self.submissions += 1;
    }
}

/// A kernel's share of a profiled run.
#[derive(Clone, Debug)]
pub struct KernelTime {
    pub kernel: Arc<str>,
    /// Its passes and their time on the GPU (from each pass's beginning to its end).
    pub passes: usize,
    pub ns: f64,
    /// The products' arithmetic in those passes.
    pub flops: f64,
}

/// A profiled run in sum: each kernel's passes and time (longest first), the time the passes
/// ran, and their submissions' span on the GPU (first beginning to last end, per submission),
/// whose difference is the time between passes.
#[derive(Clone, Debug)]
pub struct Summary {
    pub kernels: Vec<KernelTime>,
    pub busy_ns: f64,
    pub span_ns: f64,
}

/// The sum of `passes` ([`Summary`]).
pub fn summarize(passes: &[PassTime]) -> Summary {
    let mut by: BTreeMap<Arc<str>, KernelTime> = BTreeMap::new();
    let mut spans: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for p in passes {
        let k = by.entry(p.kernel.clone()).or_insert_with(|| KernelTime {
            kernel: p.kernel.clone(),
            passes: 0,
            ns: 0.0,
            flops: 0.0,
        });
        k.passes += 1;
        k.ns += (p.end_ns - p.begin_ns).max(0.0);
        k.flops += p.flops;
        let s = spans.entry(p.submission).or_insert((p.begin_ns, p.end_ns));
        s.0 = s.0.min(p.begin_ns);
        s.1 = s.1.max(p.end_ns);
    }
    let mut kernels: Vec<KernelTime> = by.into_values().collect();
    kernels.sort_by(|a, b| b.ns.total_cmp(&a.ns));
    Summary {
        busy_ns: kernels.iter().map(|k| k.ns).sum(),
        span_ns: spans.values().map(|(b, e)| (e - b).max(0.0)).sum(),
        kernels,
    }
}

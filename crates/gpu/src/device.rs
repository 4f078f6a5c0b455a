//! One GPU as the engine sees it ([`Device`]): the wgpu device and queue, the compiled kernels,
//! and the command encoder that collects an update's dispatches into one submission.
//!
//! Every dispatch's parameters and every small upload go into one host-side ring, written to
//! the GPU once per submission (`queue.write_buffer` is applied at the start of the next
//! submit, so two uploads to the same buffer between two submits would otherwise see only the
//! last); a dispatch reads its 256-byte slot through a dynamic uniform offset.

use rbm_core::error::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use wgpu::util::DeviceExt;

/// Bytes of one dispatch's parameter slot (the uniform offset alignment WebGPU guarantees).
const SLOT: usize = 256;
/// Bytes of the upload ring; larger uploads go straight to the queue after a submission.
const RING: usize = 8 << 20;
/// f32 of the split products' buffer: 264 workgroups of 128×128 partial sums.
const SPLIT_SCRATCH: usize = 264 * 128 * 128;
/// Threads of an element-wise workgroup.
const WG: u32 = 256;
/// The untiled product's workgroup: TINY × TINY elements (gemm.wgsl's `gemm_tiny`).
const TINY: u32 = 8;

/// The kernels (WGSL entry points) of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Tiled A·B with an epilogue (gemm.wgsl), 64×64 tiles.
    Gemm,
    /// The same with 32×32 tiles, for products of few tiles.
    GemmSmall,
    /// The same with 128×128 tiles (8×8 per thread), for the largest products.
    GemmLarge,
    /// 128×64 tiles (8×4 per thread, depth tiles of 16): a third more multiply-adds per load
    /// of workgroup memory than 64×64 (32 per 3 against 16 per 2) and twice the workgroups of
    /// 128×128 on a product (a large GPU's last wave less empty). Not chosen by
    /// [`Device::gemm_for`] until measured on a real GPU; `RBM_GPU_TILE=128x64` forces it.
    /// Compiled natively only (a page would compile it for nothing).
    GemmTall,
    /// 64×64 tiles with depth tiles of 16, for products of many tiles (more workgroups per
    /// multiprocessor).
    GemmMany,
    /// One thread per element, no tiles (gemm.wgsl's `gemm_tiny`), for products within one
    /// 32×32 tile and a short summed index (BAS 3×3, the shifting bar).
    GemmTiny,
    /// The parameter step.
    Step,
    /// out = a + b.
    Add,
    /// x = α·x + η·g.
    DecayAdd,
    /// Σ x² by one workgroup (FPCD's ‖W_F‖²).
    SumSq,
    /// Column sums (bias statistics).
    Colsum,
    /// Chains restarted at batch rows.
    Restart,
    /// Philox uniforms, for tests.
    Uniforms,
    /// The partial sums of a split product added, then its epilogue (product.rs).
    SplitSum,
    /// The centered parameterisation (centered.wgsl): the offsets' slide towards the batch
    /// means …
    SlideOffsets,
    /// … the biases re-parameterised by how far they slid …
    SlideShift,
    /// … h − λ …
    SubLambda,
    /// … the centered weights' sums …
    CenterW,
    /// … and the plain biases.
    ToPlain,
}

impl Kernel {
    /// The product kernels (gemm.wgsl in its sizes, and untiled).
    pub const PRODUCTS: [Kernel; 6] = [
        Kernel::GemmSmall,
        Kernel::Gemm,
        Kernel::GemmMany,
        Kernel::GemmLarge,
        Kernel::GemmTall,
        Kernel::GemmTiny,
    ];
}

const CENTERED: [(Kernel, &str); 5] = [
    (Kernel::SlideShift, "slide_shift"),
    (Kernel::SlideOffsets, "slide_offsets"),
    (Kernel::SubLambda, "sub_lambda"),
    (Kernel::CenterW, "center_w"),
    (Kernel::ToPlain, "to_plain"),
];

const KERNELS: [(Kernel, &str); 8] = [
    (Kernel::SplitSum, "split_sum"),
    (Kernel::Step, "step"),
    (Kernel::Add, "add"),
    (Kernel::DecayAdd, "decay_add"),
    (Kernel::SumSq, "sumsq"),
    (Kernel::Colsum, "colsum"),
    (Kernel::Restart, "restart"),
    (Kernel::Uniforms, "uniforms"),
];

/// One dispatch's parameters, as the WGSL struct `P` of common.wgsl: 20 words, 8 floats, then 8
/// words for batches (a batch of products, or of models in one AIS dispatch).
#[derive(Clone, Copy, Debug, Default)]
pub struct Params {
    pub rows: u32,
    pub cols: u32,
    pub depth: u32,
    pub mode: u32,
    pub a_off: u32,
    pub a_row: u32,
    pub a_k: u32,
    pub b_off: u32,
    pub b_k: u32,
    pub b_col: u32,
    pub bias_off: u32,
    pub c_off: u32,
    pub key: [u32; 2],
    pub draw: u64,
    pub count: u32,
    pub mn: u32,
    pub flags: u32,
    pub extra: u32,
    pub f: [f32; 8],
    /// A product's splits of its summed index (workgroup z = batch · splits + split; 0 as 1).
    pub splits: u32,
    /// Rows per model of a batched `ais_step`.
    pub per: u32,
    /// Where a batch's Philox keys start in binding 3 (four 16-bit halves each; flags bit 2).
    pub key_off: u32,
    /// Per-batch strides of A, B, the bias and C.
    pub a_batch: u32,
    pub b_batch: u32,
    pub bias_batch: u32,
    pub c_batch: u32,
}

/// Bytes of [`Params`] (the WGSL struct `P`).
const PARAMS_BYTES: usize = 144;

impl Params {
    fn bytes(&self) -> [u8; PARAMS_BYTES] {
        let words: [u32; PARAMS_BYTES / 4] = [
            self.rows,
            self.cols,
            self.depth,
            self.mode,
            self.a_off,
            self.a_row,
            self.a_k,
            self.b_off,
            self.b_k,
            self.b_col,
            self.bias_off,
            self.c_off,
            self.key[0],
            self.key[1],
            self.draw as u32,
            (self.draw >> 32) as u32,
            self.count,
            self.mn,
            self.flags,
            self.extra,
            self.f[0].to_bits(),
            self.f[1].to_bits(),
            self.f[2].to_bits(),
            self.f[3].to_bits(),
            self.f[4].to_bits(),
            self.f[5].to_bits(),
            self.f[6].to_bits(),
            self.f[7].to_bits(),
            self.splits,
            self.per,
            self.key_off,
            self.a_batch,
            self.b_batch,
            self.bias_batch,
            self.c_batch,
            0,
        ];
        let mut out = [0u8; PARAMS_BYTES];
        for (o, w) in out.chunks_exact_mut(4).zip(words) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

/// A compute pipeline on the engine's bind group layout ([`Device::compile`]).
#[derive(Debug)]
pub struct Pipeline {
    id: u64,
    pipeline: wgpu::ComputePipeline,
    /// What a profile calls it (`crate::profile`), and whether it is a product (whose
    /// arithmetic a profile counts).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    name: Arc<str>,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    product: bool,
}

/// One dispatch of [`Device::dispatch_all`].
pub struct Dispatch<'a> {
    pub kernel: Kernel,
    pub params: Params,
    pub inputs: [Option<&'a Buf>; 3],
    pub outputs: [Option<&'a Buf>; 2],
    pub groups: (u32, u32, u32),
}

/// A storage buffer of f32 on the GPU, with an identity for the bind-group cache.
#[derive(Debug)]
pub struct Buf {
    id: u64,
    /// The wgpu buffer.
    pub buf: wgpu::Buffer,
    /// Its length in f32.
    pub len: usize,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// What the adapter is, for `rbm devices` and for labelling GPU figures.
#[derive(Clone, Debug)]
pub struct AdapterInfo {
    /// The adapter's name ("NVIDIA H100 PCIe", "llvmpipe (LLVM 15.0.6, 256 bits)").
    pub name: String,
    /// The API it is reached through ("Vulkan", "Metal", "Dx12", "BrowserWebGpu").
    pub backend: String,
    /// "DiscreteGpu", "IntegratedGpu", "Cpu" (a software rasteriser) …
    pub kind: String,
    /// The driver and its version, where the API says.
    pub driver: String,
    /// The smallest and largest subgroup (an NVIDIA warp: 32) the adapter reports.
    pub subgroups: (u32, u32),
    /// Whether shaders may compute in f16 (`wgpu::Features::SHADER_F16`).
    pub f16: bool,
    /// The matrix tiles its matrix units multiply, as wgpu 30 offers them natively
    /// (`wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX`; NVIDIA's tensor cores through
    /// `VK_KHR_cooperative_matrix`): "M×N×K in→accumulator", e.g. "16×16×16 F16→F32". None of
    /// the engine's kernels uses them (docs/gpu.md, "Speed on an H100"): listed so that a
    /// real GPU's run says whether they are there.
    pub matrix_units: Vec<String>,
}

impl AdapterInfo {
    /// What `adapter` is and offers (the device's label, `rbm devices`).
    fn of(adapter: &wgpu::Adapter) -> Self {
        let i = adapter.get_info();
        #[cfg(not(target_arch = "wasm32"))]
        let matrix_units = adapter
            .cooperative_matrix_properties()
            .iter()
            .map(|m| {
                let (a, c) = (m.ab_type, m.cr_type);
                format!("{}×{}×{} {a:?}→{c:?}", m.m_size, m.n_size, m.k_size)
            })
            .collect();
        #[cfg(target_arch = "wasm32")]
        let matrix_units = Vec::new();
        AdapterInfo {
            name: i.name,
            backend: format!("{:?}", i.backend),
            kind: format!("{:?}", i.device_type),
            driver: format!("{} {}", i.driver, i.driver_info).trim().to_string(),
            subgroups: (i.subgroup_min_size, i.subgroup_max_size),
            f16: adapter.features().contains(wgpu::Features::SHADER_F16),
            matrix_units,
        }
    }
}

/// The APIs the engine looks for GPUs through: Vulkan, Metal, DX12 and the browser's WebGPU
/// (OpenGL has no compute shaders on many drivers), or those `WGPU_BACKEND` names.
fn instance() -> (wgpu::Instance, wgpu::Backends) {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    (wgpu::Instance::new(desc), backends)
}

/// What to do where no GPU is found.
#[cfg(not(target_arch = "wasm32"))]
const NO_GPU: &str = "the GPU engine needs a Vulkan, Metal or DX12 driver (on Debian without a GPU: apt-get install mesa-vulkan-drivers); use --device cpu";
#[cfg(target_arch = "wasm32")]
const NO_GPU: &str = "this browser offers no WebGPU adapter; the lane runs on the CPU";

/// The adapters wgpu finds on this machine (`rbm devices`).
#[cfg(not(target_arch = "wasm32"))]
pub fn adapters() -> Vec<AdapterInfo> {
    let (instance, backends) = instance();
    pollster::block_on(instance.enumerate_adapters(backends))
        .into_iter()
        .map(|a| AdapterInfo::of(&a))
        .collect()
}

struct State {
    encoder: Option<wgpu::CommandEncoder>,
    ring: Vec<u8>,
    bind_groups: HashMap<(u64, [u64; 5]), wgpu::BindGroup>,
    submissions: u64,
    /// Every pass timed (`Device::start_profile`; benchmarks only).
    #[cfg(not(target_arch = "wasm32"))]
    profile: Option<crate::profile::Recorder>,
}

/// How the product kernels are compiled and chosen: by default as the engine does, or (for
/// benchmarks, [`Tuning::from_env`]) as the environment says; the products' sums are the
/// same whichever is set (each forced in the tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// The kernel every product uses (one of [`Kernel::PRODUCTS`]; None: by size,
    /// [`Device::gemm_for`]). `RBM_GPU_TILE` = 8 (untiled), 32, 64, 128 or 128x64.
    pub product: Option<Kernel>,
    /// Depth tiles of at most 16 (`RBM_GPU_TK=16`).
    pub short_depth: bool,
    /// The depth tiles in workgroup memory as floats, read one per load
    /// (`shaders/tiles_scalar.wgsl`, `RBM_GPU_TILES=scalar`), instead of vec4s
    /// (`tiles_vec4.wgsl`).
    pub scalar_tiles: bool,
    /// The product kernels compiled without wgpu's runtime checks (`RBM_GPU_CHECKS=off`;
    /// natively only): by default naga clamps every index into workgroup memory (two clamps
    /// per step of the inner loop of a 4×4 thread) and bounds every loop with a counter.
    /// Their indices are within their arrays by construction and their loops end; the knob
    /// measures what the checks cost.
    pub unchecked: bool,
}

/// [`Device`]'s `forced_tile` for `kernel`.
fn forced(kernel: Option<Kernel>) -> usize {
    kernel
        .and_then(|k| Kernel::PRODUCTS.iter().position(|&p| p == k))
        .map_or(0, |i| i + 1)
}

impl Tuning {
    /// The tuning the environment asks for (benchmarks): `RBM_GPU_TILE`, `RBM_GPU_TK`,
    /// `RBM_GPU_TILES`, `RBM_GPU_CHECKS`; the default where none is set (and in a browser).
    pub fn from_env() -> Tuning {
        let var = |name: &str| std::env::var(name).ok();
        Tuning {
            product: match var("RBM_GPU_TILE").as_deref() {
                Some("8") => Some(Kernel::GemmTiny),
                Some("32") => Some(Kernel::GemmSmall),
                Some("64") => Some(Kernel::Gemm),
                Some("128") => Some(Kernel::GemmLarge),
                Some("128x64") => Some(Kernel::GemmTall),
                _ => None,
            },
            short_depth: var("RBM_GPU_TK").as_deref() == Some("16"),
            scalar_tiles: var("RBM_GPU_TILES").as_deref() == Some("scalar"),
            unchecked: var("RBM_GPU_CHECKS").as_deref() == Some("off"),
        }
    }
}

/// A GPU with the engine's kernels compiled for it.
pub struct Device {
    /// The adapter the device was opened on.
    pub info: AdapterInfo,
    /// 1 + the index in [`Kernel::PRODUCTS`] of the kernel every product uses, or 0: chosen by
    /// the product's size ([`Device::gemm_for`]); set by [`Tuning::product`] and
    /// [`Device::force_product`].
    forced_tile: AtomicUsize,
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout: wgpu::BindGroupLayout,
    pipelines: HashMap<Kernel, Pipeline>,
    pipeline_layout: wgpu::PipelineLayout,
    ring: wgpu::Buffer,
    dummy_ro: Buf,
    dummy_rw: [Buf; 2],
    state: Mutex<State>,
    /// The partial sums of split products (product.rs), made on first use.
    split: OnceLock<Buf>,
    /// The pipelines of [`Device::compile`], by entry point.
    compiled: Mutex<HashMap<&'static str, Arc<Pipeline>>>,
    /// Why the device stopped (lost, or an error no call could return), once it has.
    failure: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({})", self.info.name)
    }
}

impl Device {
    /// The first adapter wgpu offers (the high-performance one where there are several), or
    /// `index` into [`adapters`]; a clear error where none is there.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open(index: Option<usize>) -> Result<Arc<Device>> {
        Device::open_tuned(index, Tuning::from_env())
    }

    /// [`Device::open`] with the product kernels compiled and chosen as `tuning` says.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_tuned(index: Option<usize>, tuning: Tuning) -> Result<Arc<Device>> {
        pollster::block_on(Device::open_async_tuned(index, tuning))
    }

    /// [`Device::open`] without waiting: the only way in a browser, whose GPU answers through
    /// the event loop (`index` must then be None: a page sees one adapter).
    pub async fn open_async(index: Option<usize>) -> Result<Arc<Device>> {
        Device::open_async_tuned(index, Tuning::from_env()).await
    }

    async fn open_async_tuned(index: Option<usize>, tuning: Tuning) -> Result<Arc<Device>> {
        let (instance, backends) = instance();
        let adapter = match index {
            Some(i) => instance
                .enumerate_adapters(backends)
                .await
                .into_iter()
                .nth(i)
                .ok_or_else(|| {
                    Error::Invalid(format!(
                        "no GPU adapter number {i} (rbm devices lists them)"
                    ))
                })?,
            None => instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    force_fallback_adapter: false,
                    compatible_surface: None,
                    ..Default::default()
                })
                .await
                .map_err(|e| Error::Invalid(format!("no GPU found ({e}): {NO_GPU}")))?,
        };
        Device::on(adapter, tuning).await
    }

    async fn on(adapter: wgpu::Adapter, tuning: Tuning) -> Result<Arc<Device>> {
        let info = AdapterInfo::of(&adapter);
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("rbm"),
                // Timestamps, natively where the adapter has them: only a profile writes any.
                required_features: if cfg!(target_arch = "wasm32") {
                    wgpu::Features::empty()
                } else {
                    adapter.features() & wgpu::Features::TIMESTAMP_QUERY
                },
                required_limits: limits,
                ..Default::default()
            })
            .await
            .map_err(|e| Error::Invalid(format!("the GPU {} refused a device: {e}", info.name)))?;
        let failure: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let lost = failure.clone();
        device.set_device_lost_callback(move |reason, message| {
            let mut f = lost.lock().unwrap_or_else(|e| e.into_inner());
            f.get_or_insert_with(|| format!("the GPU device was lost ({reason:?}: {message})"));
        });
        // An error after a loss must not stop a browser's worker or the command line: it is
        // kept and reported (a lane's poll, a read) rather than wgpu's default panic.
        let seen = failure.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut f = seen.lock().unwrap_or_else(|e| e.into_inner());
            f.get_or_insert_with(|| format!("the GPU reported an error: {e}"));
        }));
        let common = include_str!("shaders/common.wgsl");
        let source = format!("{common}\n{}", include_str!("shaders/elementwise.wgsl"));
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("rbm kernels"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("rbm"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(PARAMS_BYTES as u64),
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                storage(3, true),
                storage(4, false),
                storage(5, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("rbm"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let mut pipelines: HashMap<Kernel, Pipeline> = KERNELS
            .iter()
            .map(|&(k, entry)| {
                let p = pipeline(&device, &pipeline_layout, &module, entry);
                (k, p)
            })
            .collect();
        let centered = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("centered"),
            source: wgpu::ShaderSource::Wgsl(
                format!("{common}\n{}", include_str!("shaders/centered.wgsl")).into(),
            ),
        });
        for (k, entry) in CENTERED {
            let p = pipeline(&device, &pipeline_layout, &centered, entry);
            pipelines.insert(k, p);
        }
        // The depth tiles' layout: whole vec4s (single 16-byte loads in the inner loop), or
        // floats padded by one (`RBM_GPU_TILES=scalar`, for benchmarks); the same sums.
        let (tiles, pad) = if tuning.scalar_tiles {
            (include_str!("shaders/tiles_scalar.wgsl"), 1)
        } else {
            (include_str!("shaders/tiles_vec4.wgsl"), 4)
        };
        let gemm = format!("{}\n{tiles}", include_str!("shaders/gemm.wgsl"));
        // Depth tiles of 32 where both (padded) tiles fit the device's workgroup memory (half
        // the barriers of 16), else 16 (WebGPU's default 16 KiB); `RBM_GPU_TK=16` sets 16 (for
        // benchmarks). Tile bytes: TK · (TM + pad + TN + pad) · 4.
        let room = device.limits().max_compute_workgroup_storage_size as usize;
        let tk_for = |tm: usize, tn: usize, most: usize| {
            let fits = |tk: usize| tk <= most && tk * (tm + tn + 2 * pad) * 4 <= room;
            if fits(32) && !tuning.short_depth {
                "32u"
            } else if fits(16) {
                "16u"
            } else {
                "8u"
            }
        };
        // (kernel, threads a side, rows and columns per thread, depth tile)
        for (k, w, rm, rn, tk) in [
            (Kernel::Gemm, "16u", "4u", "4u", tk_for(64, 64, 32)),
            (Kernel::GemmSmall, "8u", "4u", "4u", tk_for(32, 32, 32)),
            (Kernel::GemmLarge, "16u", "8u", "8u", tk_for(128, 128, 16)),
            (Kernel::GemmTall, "16u", "8u", "4u", tk_for(128, 64, 16)),
            (Kernel::GemmMany, "16u", "4u", "4u", tk_for(64, 64, 16)),
        ] {
            if k == Kernel::GemmTall && cfg!(target_arch = "wasm32") {
                continue; // forced only: a page would compile it for nothing
            }
            let tiled = gemm
                .replace("const TK: u32 = 16u;", &format!("const TK: u32 = {tk};"))
                .replace("const WX: u32 = 16u;", &format!("const WX: u32 = {w};"))
                .replace("const WY: u32 = 16u;", &format!("const WY: u32 = {w};"))
                .replace("const RM: u32 = 4u;", &format!("const RM: u32 = {rm};"))
                .replace("const RN: u32 = 4u;", &format!("const RN: u32 = {rn};"));
            let desc = wgpu::ShaderModuleDescriptor {
                label: Some("gemm"),
                source: wgpu::ShaderSource::Wgsl(format!("{common}\n{tiled}").into()),
            };
            let module = if tuning.unchecked && cfg!(not(target_arch = "wasm32")) {
                // SAFETY: every index of gemm.wgsl and its tiles file is within its array (the
                // tiles' by their loops' bounds, the buffers' behind each read's and write's
                // test of rows, columns and depth), and every loop ends (`Tuning::unchecked`).
                unsafe {
                    device
                        .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
                }
            } else {
                device.create_shader_module(desc)
            };
            let product = Pipeline {
                name: format!("{k:?}").into(),
                product: true,
                ..pipeline(&device, &pipeline_layout, &module, "gemm")
            };
            pipelines.insert(k, product);
            if k == Kernel::GemmSmall {
                let tiny = Pipeline {
                    name: "GemmTiny".into(),
                    product: true,
                    ..pipeline(&device, &pipeline_layout, &module, "gemm_tiny")
                };
                pipelines.insert(Kernel::GemmTiny, tiny);
            }
        }
        let ring = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ring"),
            size: RING as u64,
            usage: wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mk = |d: &wgpu::Device| Buf::zeroed(d, 4);
        let dev = Arc::new(Device {
            info,
            forced_tile: AtomicUsize::new(0),
            dummy_ro: mk(&device),
            dummy_rw: [mk(&device), mk(&device)],
            device,
            queue,
            layout,
            pipelines,
            pipeline_layout,
            ring,
            state: Mutex::new(State {
                encoder: None,
                ring: Vec::with_capacity(RING),
                bind_groups: HashMap::new(),
                submissions: 0,
                #[cfg(not(target_arch = "wasm32"))]
                profile: None,
            }),
            split: OnceLock::new(),
            compiled: Mutex::new(HashMap::new()),
            failure,
        });
        dev.force_product(tuning.product);
        Ok(dev)
    }

    /// `entry` of `wgsl` (after common.wgsl's parameters, bindings and Philox) as a pipeline on
    /// the engine's layout, for kernels kept in their own files (exact enumeration, AIS);
    /// compiled once per device and entry point.
    pub fn compile(&self, wgsl: &'static str, entry: &'static str) -> Arc<Pipeline> {
        let mut cache = self.compiled.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(entry)
            .or_insert_with(|| {
                let source = format!("{}\n{wgsl}", include_str!("shaders/common.wgsl"));
                let module = self
                    .device
                    .create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some(entry),
                        source: wgpu::ShaderSource::Wgsl(source.into()),
                    });
                Arc::new(pipeline(
                    &self.device,
                    &self.pipeline_layout,
                    &module,
                    entry,
                ))
            })
            .clone()
    }

    /// Makes every product use `kernel` (one of [`Kernel::PRODUCTS`]; None: by size again), so
    /// the tests take every arm. A kernel this device has not compiled (`GemmTall` in a
    /// browser) leaves the choice by size.
    pub fn force_product(&self, kernel: Option<Kernel>) {
        let kernel = kernel.filter(|k| self.pipelines.contains_key(k));
        self.forced_tile.store(forced(kernel), Ordering::Relaxed);
    }

    /// The kernel for a `rows × cols` product summing `depth` terms, and its tile (rows,
    /// columns): untiled for products within one 32×32 tile summing at most 64 terms (on
    /// lavapipe a 9×12 product took about 3× a plain pass with 32×32 tiles), 32×32 for
    /// products of fewer than 8 tiles of 64×64, 128×128 from 16 384 such tiles (on the H100
    /// 128×128 ran slower than 64×64 at 10 000 × 500: 483 against 570 sweeps/s), 64×64 between,
    /// with depth tiles of 16 from 512 tiles (on the H100, 10 000 × 500: 590 sweeps/s against
    /// 445 with 32; 1 000 × 500: 3 242 against 3 507). Products of few tiles also split their
    /// summed index (product.rs).
    pub fn gemm_for(&self, rows: usize, cols: usize, depth: usize) -> (Kernel, u32, u32) {
        let tiles = rows.div_ceil(64) * cols.div_ceil(64);
        let kernel = match self.forced_tile.load(Ordering::Relaxed) {
            0 if rows <= 32 && cols <= 32 && depth <= 64 => Kernel::GemmTiny,
            0 if tiles < 8 => Kernel::GemmSmall,
            0 if tiles >= 16_384 => Kernel::GemmLarge,
            0 if tiles >= 512 => Kernel::GemmMany,
            0 => Kernel::Gemm,
            i => Kernel::PRODUCTS[i - 1],
        };
        let (tm, tn) = match kernel {
            Kernel::GemmTiny => (TINY, TINY),
            Kernel::GemmSmall => (32, 32),
            Kernel::GemmLarge => (128, 128),
            Kernel::GemmTall => (128, 64),
            _ => (64, 64),
        };
        (kernel, tm, tn)
    }

    /// The buffer of split products' partial sums (every product is recorded in order, so one
    /// buffer serves them all).
    pub fn split_scratch(&self) -> Buf {
        self.split
            .get_or_init(|| self.zeros(SPLIT_SCRATCH))
            .clone_ref()
    }

    /// How many partial products of `size` elements the split buffer holds.
    pub fn max_splits(&self, size: usize) -> usize {
        SPLIT_SCRATCH / size.max(1)
    }

    /// The wgpu device and queue, for what the engine's helpers do not cover.
    pub fn wgpu(&self) -> (&wgpu::Device, &wgpu::Queue) {
        (&self.device, &self.queue)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A zeroed buffer of `len` f32.
    pub fn zeros(&self, len: usize) -> Buf {
        Buf::zeroed(&self.device, len)
    }

    /// A buffer holding `data`.
    pub fn buffer(&self, data: &[f32]) -> Buf {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let buf = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: &bytes,
                usage: Buf::USAGE,
            });
        Buf {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            buf,
            len: data.len(),
        }
    }

    /// Records `dst[offset..] ← data` in order with the dispatches around it.
    pub fn upload(&self, dst: &Buf, offset: usize, data: &[f32]) {
        assert!(
            offset + data.len() <= dst.len,
            "upload past the buffer's end"
        );
        let bytes = data.len() * 4;
        if bytes == 0 {
            return;
        }
        let mut st = self.state();
        if bytes > RING / 2 {
            self.submit(&mut st);
            let raw: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
            self.queue.write_buffer(&dst.buf, (offset * 4) as u64, &raw);
            return;
        }
        let at = self.reserve(&mut st, bytes);
        for (o, x) in st.ring[at..at + bytes].chunks_exact_mut(4).zip(data) {
            o.copy_from_slice(&x.to_le_bytes());
        }
        self.encoder(&mut st).copy_buffer_to_buffer(
            &self.ring,
            at as u64,
            &dst.buf,
            (offset * 4) as u64,
            bytes as u64,
        );
    }

    /// Records `dst[dst_off..] ← src[src_off..src_off + len]`.
    pub fn copy(&self, src: &Buf, src_off: usize, dst: &Buf, dst_off: usize, len: usize) {
        let mut st = self.state();
        self.encoder(&mut st).copy_buffer_to_buffer(
            &src.buf,
            (src_off * 4) as u64,
            &dst.buf,
            (dst_off * 4) as u64,
            (len * 4) as u64,
        );
    }

    /// Records zeroing `buf`.
    pub fn clear(&self, buf: &Buf) {
        let mut st = self.state();
        self.encoder(&mut st).clear_buffer(&buf.buf, 0, None);
    }

    /// Room for `bytes` in the ring, `SLOT`-aligned (submitting what is pending when full).
    fn reserve(&self, st: &mut State, bytes: usize) -> usize {
        let at = st.ring.len().next_multiple_of(SLOT);
        if at + bytes > RING {
            self.submit(st);
            return self.reserve(st, bytes);
        }
        st.ring.resize(at + bytes, 0);
        at
    }

    fn encoder<'s>(&self, st: &'s mut State) -> &'s mut wgpu::CommandEncoder {
        st.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        })
    }

    /// Records one dispatch of `kernel` over `groups` workgroups with `params`, reading
    /// `inputs` (bindings 1–3) and writing `outputs` (bindings 4–5).
    pub fn dispatch(
        &self,
        kernel: Kernel,
        params: &Params,
        inputs: [Option<&Buf>; 3],
        outputs: [Option<&Buf>; 2],
        groups: (u32, u32, u32),
    ) {
        let mut st = self.state();
        self.record(
            &mut st,
            &self.pipelines[&kernel],
            params,
            inputs,
            outputs,
            groups,
        );
    }

    /// Records one dispatch of a [`Device::compile`]d pipeline (as [`Device::dispatch`]).
    pub fn run(
        &self,
        pipeline: &Pipeline,
        params: &Params,
        inputs: [Option<&Buf>; 3],
        outputs: [Option<&Buf>; 2],
        groups: (u32, u32, u32),
    ) {
        let mut st = self.state();
        self.record(&mut st, pipeline, params, inputs, outputs, groups);
    }

    /// Records dispatches of `kernel`s one after the other with no other thread's in between
    /// (a split product's partial sums and their addition share the device's one scratch
    /// buffer, which another lane's product on another thread would overwrite).
    pub fn dispatch_all(&self, steps: &[Dispatch<'_>]) {
        let mut st = self.state();
        for d in steps {
            let pipeline = &self.pipelines[&d.kernel];
            self.record(&mut st, pipeline, &d.params, d.inputs, d.outputs, d.groups);
        }
    }

    fn record(
        &self,
        st: &mut State,
        pipeline: &Pipeline,
        params: &Params,
        inputs: [Option<&Buf>; 3],
        outputs: [Option<&Buf>; 2],
        groups: (u32, u32, u32),
    ) {
        #[cfg(not(target_arch = "wasm32"))]
        if st.profile.as_ref().is_some_and(|p| p.full()) {
            self.submit(st);
        }
        let at = self.reserve(st, SLOT);
        st.ring[at..at + PARAMS_BYTES].copy_from_slice(&params.bytes());
        let bufs = [
            inputs[0].unwrap_or(&self.dummy_ro),
            inputs[1].unwrap_or(&self.dummy_ro),
            inputs[2].unwrap_or(&self.dummy_ro),
            outputs[0].unwrap_or(&self.dummy_rw[0]),
            outputs[1].unwrap_or(&self.dummy_rw[1]),
        ];
        let key = (pipeline.id, bufs.map(|b| b.id));
        if st.bind_groups.len() > 4096 {
            st.bind_groups.clear();
        }
        let group = st
            .bind_groups
            .entry(key)
            .or_insert_with(|| {
                let mut entries = vec![wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.ring,
                        offset: 0,
                        size: wgpu::BufferSize::new(SLOT as u64),
                    }),
                }];
                for (i, b) in bufs.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: i as u32 + 1,
                        resource: b.buf.as_entire_binding(),
                    });
                }
                self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &self.layout,
                    entries: &entries,
                })
            })
            .clone();
        self.encoder(st);
        let enc = st.encoder.as_mut().expect("made above");
        #[cfg(not(target_arch = "wasm32"))]
        let timestamp_writes = st.profile.as_mut().map(|p| {
            p.pass(
                pipeline.name.clone(),
                product_flops(pipeline, params, groups),
            )
        });
        #[cfg(target_arch = "wasm32")]
        let timestamp_writes = None;
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes,
        });
        pass.set_pipeline(&pipeline.pipeline);
        pass.set_bind_group(0, &group, &[at as u32]);
        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
    }

    /// The workgroups of an element-wise kernel over `count` elements (256 threads each; a
    /// second dimension past 65 535 groups).
    pub fn element_groups(count: usize) -> (u32, u32, u32) {
        let groups = (count as u32).div_ceil(WG).max(1);
        if groups > 65_535 {
            (65_535, groups.div_ceil(65_535), 1)
        } else {
            (groups, 1, 1)
        }
    }

    /// An element-wise kernel over `count` elements.
    pub fn elementwise(
        &self,
        kernel: Kernel,
        params: &Params,
        count: usize,
        inputs: [Option<&Buf>; 3],
        outputs: [Option<&Buf>; 2],
    ) {
        self.dispatch(
            kernel,
            params,
            inputs,
            outputs,
            Device::element_groups(count),
        );
    }

    /// Submits what is recorded: one submission per call, however many dispatches.
    pub fn flush(&self) {
        let mut st = self.state();
        self.submit(&mut st);
    }

    fn submit(&self, st: &mut State) {
        if let Some(mut enc) = st.encoder.take() {
            if !st.ring.is_empty() {
                self.queue.write_buffer(&self.ring, 0, &st.ring);
            }
            #[cfg(not(target_arch = "wasm32"))]
            if let Some(p) = &st.profile {
                p.resolve(&mut enc);
            }
            #[cfg(target_arch = "wasm32")]
            let _ = &mut enc;
            self.queue.submit([enc.finish()]);
            #[cfg(not(target_arch = "wasm32"))]
            if let Some(p) = &mut st.profile {
                p.collect(&self.device, f64::from(self.queue.get_timestamp_period()));
            }
            st.ring.clear();
            st.submissions += 1;
            if st.submissions.is_multiple_of(64) {
                // Reclaims finished submissions' resources without waiting.
                let _ = self.device.poll(wgpu::PollType::Poll);
            }
        }
    }

    /// Submits what is recorded and waits until the GPU has done it.
    pub fn finish(&self) {
        self.flush();
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// `buf[offset..offset + len]` on the host (submits and waits). Not in a browser, which
    /// cannot wait for its GPU: there, [`Device::snapshot`] and come back later.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read(&self, buf: &Buf, offset: usize, len: usize) -> Vec<f32> {
        let snap = self.snapshot(buf, offset, len);
        loop {
            let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
            // Another thread polling the same device may be the one that runs the callback.
            if let Some(taken) = snap.take() {
                return taken.expect("a buffer mapped for reading is readable");
            }
            if let Some(why) = self.failure() {
                panic!("{why}");
            }
            std::thread::yield_now();
        }
    }

    /// Never in a browser: its GPU answers only once the worker's event loop turns, so a lane
    /// there copies back with [`Device::snapshot`] (the GPU lane of `lane.rs`, which keeps even
    /// FPCD's ‖W_F‖ of every update on the GPU for its records' copies).
    #[cfg(target_arch = "wasm32")]
    pub fn read(&self, _buf: &Buf, _offset: usize, _len: usize) -> Vec<f32> {
        panic!("the GPU engine cannot wait for its GPU in a browser (a synchronous read)")
    }

    /// A copy of `buf[offset..offset + len]` taken after the work recorded so far (submitted
    /// now), coming to the host without waiting: [`Snapshot::take`] has it once the GPU is
    /// there (in a browser, after the worker's event loop has turned).
    pub fn snapshot(&self, buf: &Buf, offset: usize, len: usize) -> Snapshot {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("snapshot"),
            size: (len.max(1) * 4) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        {
            let mut st = self.state();
            if len > 0 {
                self.encoder(&mut st).copy_buffer_to_buffer(
                    &buf.buf,
                    (offset * 4) as u64,
                    &staging,
                    0,
                    (len * 4) as u64,
                );
            }
            self.submit(&mut st);
        }
        let ready: Arc<Mutex<Option<bool>>> = Arc::new(Mutex::new(None));
        let flag = ready.clone();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            *flag.lock().unwrap_or_else(|e| e.into_inner()) = Some(r.is_ok());
        });
        Snapshot {
            staging,
            len,
            ready,
        }
    }

    /// Why the device stopped working (lost, or an error no call could return), if it has.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Destroys the device, as a driver reset or a browser reclaiming the GPU would: every
    /// later copy fails and [`Device::failure`] says why (for tests of the way back to the CPU).
    pub fn lose_for_test(&self) {
        self.device.destroy();
    }

    /// Times every pass from now on (`crate::profile`; benchmarks only: each submission then
    /// waits for its timestamps). An error where the adapter has no timestamp queries.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn start_profile(&self) -> Result<()> {
        if !self
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return Err(Error::Invalid(format!(
                "the GPU {} cannot time its passes (no timestamp queries)",
                self.info.name
            )));
        }
        let mut st = self.state();
        self.submit(&mut st);
        st.profile = Some(crate::profile::Recorder::new(&self.device));
        Ok(())
    }

    /// Ends the profile ([`Device::start_profile`]) once what is recorded has run: every pass
    /// it timed, in order (none without a profile). An error if the GPU reported one meanwhile
    /// (its timestamps would then be zeros).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn take_profile(&self) -> Result<Vec<crate::profile::PassTime>> {
        let mut st = self.state();
        self.submit(&mut st);
        let passes = st.profile.take().map(|p| p.done).unwrap_or_default();
        match self.failure() {
            Some(why) => Err(Error::Invalid(why)),
            None => Ok(passes),
        }
    }

    /// Lets finished work's callbacks run (natively; a browser runs them itself).
    pub fn progress(&self) {
        let _ = self.device.poll(wgpu::PollType::Poll);
    }
}

/// A copy of part of a buffer on its way to the host ([`Device::snapshot`]).
pub struct Snapshot {
    staging: wgpu::Buffer,
    len: usize,
    ready: Arc<Mutex<Option<bool>>>,
}

impl Snapshot {
    /// The numbers once they are on the host (None: not yet; an error: the GPU could not
    /// hand them over, e.g. the device was lost).
    pub fn take(&self) -> Option<Result<Vec<f32>>> {
        let state = *self.ready.lock().unwrap_or_else(|e| e.into_inner());
        match state? {
            false => Some(Err(Error::Invalid(
                "the GPU did not hand its numbers back (the device may have been lost)".into(),
            ))),
            true => {
                let view = self
                    .staging
                    .slice(..)
                    .get_mapped_range()
                    .expect("a mapped buffer is readable");
                let out: Vec<f32> = view[..self.len * 4]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                drop(view);
                self.staging.unmap();
                *self.ready.lock().unwrap_or_else(|e| e.into_inner()) = None;
                Some(Ok(out))
            }
        }
    }

    /// Whether [`Snapshot::take`] would give the numbers (or an error) now.
    pub fn ready(&self) -> bool {
        self.ready
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }
}

/// A one-float copy recorded behind a stretch of work: once it is on the host, the GPU has done
/// that work. Work that never waits for its GPU (a browser's worker) records its next stretch
/// only then, so the GPU's queue stays one stretch long and a Pause or a Stop is not kept
/// waiting behind it (the page's exact walk, study AIS batches and study jobs).
pub struct Fence {
    buf: Buf,
    pending: Option<Snapshot>,
}

impl Fence {
    /// A fence on `dev`, passed (nothing marked yet).
    pub fn new(dev: &Device) -> Fence {
        Fence {
            buf: dev.zeros(1),
            pending: None,
        }
    }

    /// Whether the GPU has done the work recorded before the last [`Fence::mark`] (true when
    /// none is marked). A copy the GPU could not hand back (a lost device) is an error.
    pub fn passed(&mut self) -> Result<bool> {
        match self.pending.as_ref().map(Snapshot::take) {
            None => Ok(true),
            Some(None) => Ok(false),
            Some(Some(done)) => {
                self.pending = None;
                done.map(|_| true)
            }
        }
    }

    /// Marks the work recorded on `dev` so far.
    pub fn mark(&mut self, dev: &Device) {
        self.pending = Some(dev.snapshot(&self.buf, 0, 1));
    }

    /// Whether a mark is still on its way (not yet on the host).
    pub fn pending(&self) -> bool {
        self.pending.as_ref().is_some_and(|s| !s.ready())
    }
}

/// The arithmetic of a product's dispatch (2 · rows · cols · depth for each product of a
/// batch; its split workgroups share one product's), 0 for any other kernel: for a profile.
#[cfg(not(target_arch = "wasm32"))]
fn product_flops(pipeline: &Pipeline, p: &Params, groups: (u32, u32, u32)) -> f64 {
    if !pipeline.product {
        return 0.0;
    }
    let products = f64::from(groups.2 / p.splits.max(1));
    2.0 * f64::from(p.rows) * f64::from(p.cols) * f64::from(p.depth) * products
}

fn pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
) -> Pipeline {
    Pipeline {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        name: entry.into(),
        product: false,
        pipeline: device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(layout),
            module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        }),
    }
}

impl Buf {
    /// Another handle on the same buffer.
    pub fn clone_ref(&self) -> Buf {
        Buf {
            id: self.id,
            buf: self.buf.clone(),
            len: self.len,
        }
    }

    const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
        .union(wgpu::BufferUsages::COPY_DST)
        .union(wgpu::BufferUsages::COPY_SRC);

    fn zeroed(device: &wgpu::Device, len: usize) -> Buf {
        Buf {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            buf: device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: (len.max(1) * 4) as u64,
                usage: Buf::USAGE,
                mapped_at_creation: false,
            }),
            len,
        }
    }
}

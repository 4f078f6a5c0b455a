//! The one way the GPU code runs a product C = A·B with its epilogue (gemm.wgsl): the tile
//! size by the product's size, and a split of the summed index over several workgroups when
//! the product alone would leave most of the GPU idle (a batch of 100 chains: 16 tiles of
//! 64×64). Split products write partial sums; one element-wise pass adds them in order and
//! applies the epilogue, with the same uniforms (index r·cols + c of the draw).

use crate::device::{Buf, Device, Dispatch, Kernel, Params};

/// Workgroups a product should keep in flight before its summed index is split (about two per
/// multiprocessor of a large GPU; a small GPU is full either way).
const TARGET_GROUPS: usize = 264;
/// The summed index is split into chunks of at least this many terms.
const MIN_CHUNK: usize = 64;

/// C (rows × cols) = Σ_k A(r, k) B(k, c): A(r, k) = a.0[r·a.1 + k·a.2],
/// B(k, c) = b.0[b.1 + k·b.2 + c·b.3], with bias[c] = bias.0[bias.1 + c] for the epilogues
/// that take one.
pub(crate) struct Product<'a> {
    pub rows: usize,
    pub cols: usize,
    pub depth: usize,
    pub a: (&'a Buf, usize, usize),
    pub b: (&'a Buf, usize, usize, usize),
    pub bias: Option<(&'a Buf, usize)>,
}

/// What is written of each element x = C(r, c).
#[derive(Clone, Copy)]
pub(crate) enum Epilogue {
    /// x itself.
    Sums,
    /// 1/(1 + e^{−β(bias + x)}).
    Means(f32),
    /// A Bernoulli draw of that probability with the uniforms of (key, draw).
    Draw(f32, [u32; 2], u64),
    /// β(bias + x).
    Pre(f32),
}

impl Epilogue {
    fn mode(self) -> (u32, f32, [u32; 2], u64) {
        match self {
            Epilogue::Sums => (0, 1.0, [0, 0], 0),
            Epilogue::Means(b) => (1, b, [0, 0], 0),
            Epilogue::Draw(b, key, draw) => (2, b, key, draw),
            Epilogue::Pre(b) => (4, b, [0, 0], 0),
        }
    }
}

/// The parameters every product shares: its shape, strides and epilogue (mode, β, key, draw).
fn params(g: &Product, epi: Epilogue) -> Params {
    let (mode, beta, key, draw) = epi.mode();
    Params {
        rows: g.rows as u32,
        cols: g.cols as u32,
        depth: g.depth as u32,
        mode,
        a_row: g.a.1 as u32,
        a_k: g.a.2 as u32,
        b_off: g.b.1 as u32,
        b_k: g.b.2 as u32,
        b_col: g.b.3 as u32,
        bias_off: g.bias.map_or(0, |b| b.1) as u32,
        key,
        draw,
        f: [beta, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ..Default::default()
    }
}

/// Records the product into `out[c_off..]` (row-major, `cols` wide).
pub(crate) fn run(dev: &Device, g: &Product, epi: Epilogue, out: &Buf, c_off: usize) {
    let (kernel, tm, tn) = dev.gemm_for(g.rows, g.cols, g.depth);
    let tiles = g.rows.div_ceil(tm as usize) * g.cols.div_ceil(tn as usize);
    let splits = (TARGET_GROUPS / tiles.max(1))
        .min(g.depth / MIN_CHUNK)
        .min(dev.max_splits(g.rows * g.cols))
        .max(1);
    let chunk = g.depth.div_ceil(splits).next_multiple_of(32);
    let splits = g.depth.div_ceil(chunk.max(1)).max(1);
    let mut p = Params {
        c_off: c_off as u32,
        extra: chunk.max(1) as u32,
        splits: splits as u32,
        ..params(g, epi)
    };
    let groups = (
        (g.cols as u32).div_ceil(tn),
        (g.rows as u32).div_ceil(tm),
        splits as u32,
    );
    let inputs = [Some(g.a.0), Some(g.b.0), g.bias.map(|b| b.0)];
    if splits == 1 {
        dev.dispatch(kernel, &p, inputs, [Some(out), None], groups);
        return;
    }
    let partial = dev.split_scratch();
    let mut sum = p;
    p.mode = 0;
    p.c_off = 0;
    sum.splits = 1;
    sum.count = splits as u32;
    dev.dispatch_all(&[
        Dispatch {
            kernel,
            params: p,
            inputs,
            outputs: [Some(&partial), None],
            groups,
        },
        Dispatch {
            kernel: Kernel::SplitSum,
            params: sum,
            inputs: [Some(&partial), None, g.bias.map(|b| b.0)],
            outputs: [Some(out), None],
            groups: Device::element_groups((g.rows * g.cols).div_ceil(4)),
        },
    ]);
}

/// The per-product strides of a batch of equal-sized products ([`run_batch`]): product t reads
/// A from `a`·t, B from `b`·t and the bias from `bias`·t further on, writes C at `c`·t, and
/// draws (if it draws) under the key stored at `keys + 4t` of the bias buffer (four 16-bit
/// halves, high word first: [`key_halves`]).
#[derive(Clone, Copy)]
pub(crate) struct Batch {
    pub count: usize,
    pub a: usize,
    pub b: usize,
    pub bias: usize,
    pub c: usize,
    pub keys: Option<usize>,
}

/// Records `batch.count` products of `g`'s shape as one dispatch (workgroup z = the product).
/// Each product is what [`run`] makes of it alone with no split of its summed index (the same
/// sums in the same order, the same uniforms under its own key), whatever the batch: its tile
/// is chosen by one product's size, never by the batch's.
pub(crate) fn run_batch(dev: &Device, g: &Product, epi: Epilogue, out: &Buf, batch: Batch) {
    let (kernel, tm, tn) = dev.gemm_for(g.rows, g.cols, g.depth);
    let p = Params {
        extra: g.depth.max(1) as u32,
        flags: if batch.keys.is_some() { 4 } else { 0 },
        splits: 1,
        key_off: batch.keys.unwrap_or(0) as u32,
        a_batch: batch.a as u32,
        b_batch: batch.b as u32,
        bias_batch: batch.bias as u32,
        c_batch: batch.c as u32,
        ..params(g, epi)
    };
    let groups = (
        (g.cols as u32).div_ceil(tn),
        (g.rows as u32).div_ceil(tm),
        batch.count as u32,
    );
    let inputs = [Some(g.a.0), Some(g.b.0), g.bias.map(|b| b.0)];
    dev.dispatch(kernel, &p, inputs, [Some(out), None], groups);
}

/// A Philox key as the four 16-bit halves a batch stores ([`Batch::keys`]), high word first.
pub(crate) fn key_halves(key: [u32; 2]) -> [f32; 4] {
    [
        (key[0] >> 16) as f32,
        (key[0] & 0xffff) as f32,
        (key[1] >> 16) as f32,
        (key[1] & 0xffff) as f32,
    ]
}

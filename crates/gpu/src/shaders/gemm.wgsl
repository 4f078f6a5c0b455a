// C = A·B with its epilogue, tiled TM×TN per workgroup of WX×WY threads, each thread RM×RN
// outputs (RM consecutive rows; RN columns in groups of four, TN/2 apart where RN is 8; RM
// and RN 4 or 8) held in vec4 registers, depth tiles of TK (8, 16 or 32) through workgroup
// memory (laid out by tiles_vec4.wgsl, or tiles_scalar.wgsl for benchmarks). The engine
// compiles it in several sizes (device.rs): 64×64 tiles (16×16 threads, 4×4 each), 128×128
// (16×16 threads, 8×8) for the largest products, 128×64 (16×16 threads, 8×4; a benchmark's
// choice so far), 32×32 (8×8 threads, 4×4) for the smallest.
// No loop indexes a private array (drivers may then place it in slow memory): the
// accumulators are named vec4s, and the loops over them are written out.
//
// Operands are read through strides, so one kernel makes
//   hidden pre-activations  c + vᵀW   (A = v rows, B = W),
//   visible pre-activations b + W h   (A = h rows, B = Wᵀ by strides),
//   statistics sums         Σ_r v_r h_rᵀ (A = Vᵀ, B = H by strides).
// A(r, k) = in0[a_off + r·a_row + k·a_k], B(k, c) = in1[b_off + k·b_k + c·b_col],
// bias[c] = in2[bias_off + c]; element (r, c) goes to out0[c_off + r·cols + c] through
// common.wgsl's `finish_u` (sums, means, Bernoulli draws or pre-activations, by p.mode).

const WX: u32 = 16u;
const WY: u32 = 16u;
const RM: u32 = 4u;
const RN: u32 = 4u;
const TM: u32 = WY * RM;
const TN: u32 = WX * RN;
const TK: u32 = 16u;
const THREADS: u32 = WX * WY;

// Workgroup z is split s = z % splits of product (batch) t = z / splits. Split s sums k in
// [s·extra, (s + 1)·extra) and writes its partial sums (mode 0) at c_off + s·rows·cols.
// Product t of a batch reads and writes at its strides' offsets (a_batch, b_batch,
// bias_batch, c_batch), and with flags bit 2 draws under its own key (key_at(key_off + 4t)):
// each product of a batch computes what it would alone, bit for bit.
struct Span { batch: u32, split: u32, k_begin: u32, k_end: u32 };

fn span(z: u32) -> Span {
    let splits = max(p.splits, 1u);
    let split = z % splits;
    let k_begin = split * p.extra;
    return Span(z / splits, split, k_begin, min(k_begin + p.extra, p.depth));
}

struct Place { out: u32, bias: u32, key: vec2<u32> };

fn place(sp: Span) -> Place {
    var key = vec2<u32>(p.key0, p.key1);
    if ((p.flags & 4u) != 0u) { key = key_at(p.key_off + 4u * sp.batch); }
    let out = p.c_off + sp.batch * p.c_batch + sp.split * p.rows * p.cols;
    return Place(out, p.bias_off + sp.batch * p.bias_batch, key);
}

// Uniforms i … i + 3 under `key` for any i: from the one or two blocks that hold them.
fn uniforms4_from(i: u32, key: vec2<u32>) -> vec4<f32> {
    let lo = uniforms4_key(i >> 2u, key);
    let s = i & 3u;
    if (s == 0u) { return lo; }
    let hi = uniforms4_key((i >> 2u) + 1u, key);
    if (s == 1u) { return vec4<f32>(lo.yzw, hi.x); }
    if (s == 2u) { return vec4<f32>(lo.zw, hi.xy); }
    return vec4<f32>(lo.w, hi.xyz);
}

// Row r's elements in columns c0 … c0 + 3, their draws' uniforms taken from one Philox block
// (two where cols is not a multiple of 4): the uniforms of `finish_in`, a quarter of the work.
fn epilogue(r: u32, c0: u32, at: Place, acc: vec4<f32>) {
    if (r >= p.rows) { return; }
    var u = vec4<f32>(0.0);
    if (draws()) { u = uniforms4_from(r * p.cols + c0, at.key); }
    for (var j = 0u; j < 4u; j++) {
        let c = c0 + j;
        if (c >= p.cols) { return; }
        finish_u(at.out + r * p.cols + c, c, acc[j], at.bias, u[j]);
    }
}

// Thread t's place (x, y) in the WX × WY grid of the tile's threads: each 32 consecutive t
// (a warp on NVIDIA's GPUs) take 8 × 4 places, not a row of 16 × 2, so that one step of the
// inner loop reads 8 + 4 distinct vec4s of the tiles instead of 16 + 2. Which thread sums
// which elements changes no sum.
fn place_of(t: u32) -> vec2<u32> {
    let lane = t % 32u;
    let warp = t / 32u;
    let across = WX / 8u; // warps side by side
    return vec2<u32>((warp % across) * 8u + lane % 8u, (warp / across) * 4u + lane / 8u);
}

@compute @workgroup_size(WX, WY, 1)
fn gemm(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let t = lid.y * WX + lid.x;
    let xy = place_of(t);
    let sp = span(wid.z);
    let a_off = p.a_off + sp.batch * p.a_batch;
    let b_off = p.b_off + sp.batch * p.b_batch;
    let r0 = wid.y * TM;
    let c0 = wid.x * TN;
    let ra = xy.y * RM; // this thread's first row in the tile
    // Its first column, and (RN = 8) the next four at cb + TN/2: the warp's 8 threads read
    // 8 consecutive vec4s of a tile row, where 8 columns side by side would make them read
    // every other vec4 over twice the memory banks.
    let cb = xy.x * 4u;
    // acc_i_j: row i of the thread's rows, columns 4j … 4j + 3 of its columns.
    var acc0_0 = vec4<f32>(0.0); var acc0_1 = vec4<f32>(0.0);
    var acc1_0 = vec4<f32>(0.0); var acc1_1 = vec4<f32>(0.0);
    var acc2_0 = vec4<f32>(0.0); var acc2_1 = vec4<f32>(0.0);
    var acc3_0 = vec4<f32>(0.0); var acc3_1 = vec4<f32>(0.0);
    var acc4_0 = vec4<f32>(0.0); var acc4_1 = vec4<f32>(0.0);
    var acc5_0 = vec4<f32>(0.0); var acc5_1 = vec4<f32>(0.0);
    var acc6_0 = vec4<f32>(0.0); var acc6_1 = vec4<f32>(0.0);
    var acc7_0 = vec4<f32>(0.0); var acc7_1 = vec4<f32>(0.0);
    for (var k0 = sp.k_begin; k0 < sp.k_end; k0 += TK) {
        load_tiles(t, r0, c0, k0, sp.k_end, a_off, b_off);
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            let b0 = col4(kk, cb);
            let a = row4(kk, ra);
            acc0_0 += a.x * b0; acc1_0 += a.y * b0; acc2_0 += a.z * b0; acc3_0 += a.w * b0;
            if (RM == 8u) {
                let a2 = row4(kk, ra + 4u);
                acc4_0 += a2.x * b0; acc5_0 += a2.y * b0; acc6_0 += a2.z * b0; acc7_0 += a2.w * b0;
                if (RN == 8u) {
                    let b1 = col4(kk, cb + TN / 2u);
                    acc0_1 += a.x * b1; acc1_1 += a.y * b1; acc2_1 += a.z * b1; acc3_1 += a.w * b1;
                    acc4_1 += a2.x * b1; acc5_1 += a2.y * b1; acc6_1 += a2.z * b1; acc7_1 += a2.w * b1;
                }
            }
        }
        workgroupBarrier();
    }
    let r = r0 + ra;
    let c = c0 + cb;
    let z = place(sp);
    epilogue(r, c, z, acc0_0); epilogue(r + 1u, c, z, acc1_0);
    epilogue(r + 2u, c, z, acc2_0); epilogue(r + 3u, c, z, acc3_0);
    if (RM == 8u) {
        epilogue(r + 4u, c, z, acc4_0); epilogue(r + 5u, c, z, acc5_0);
        epilogue(r + 6u, c, z, acc6_0); epilogue(r + 7u, c, z, acc7_0);
        if (RN == 8u) {
            let c4 = c + TN / 2u;
            epilogue(r, c4, z, acc0_1); epilogue(r + 1u, c4, z, acc1_1);
            epilogue(r + 2u, c4, z, acc2_1); epilogue(r + 3u, c4, z, acc3_1);
            epilogue(r + 4u, c4, z, acc4_1); epilogue(r + 5u, c4, z, acc5_1);
            epilogue(r + 6u, c4, z, acc6_1); epilogue(r + 7u, c4, z, acc7_1);
        }
    }
}

// The epilogue of a product's element (r, c) with sum x, into out0[o], the bias at
// in2[bias + c] and the draws under `key` (a batch's own; else p.key0, p.key1): `finish_u`
// with u = the draw's uniform r·cols + c.
fn finish_in(o: u32, r: u32, c: u32, x: f32, bias: u32, key: vec2<u32>) {
    var u = 0.0;
    if (draws()) { u = uniform01_key(r * p.cols + c, key); }
    finish_u(o, c, x, bias, u);
}

// The untiled product (Kernel::GemmTiny) for products within one small tile and a short summed
// index: one thread per element, no workgroup memory and no barriers. Its sums run over k in the
// same order from the same zero as the tiled kernel's, and it places and finishes its elements
// as they do (splits, batches, keys).
const TINY: u32 = 8u; // device.rs's TINY

@compute @workgroup_size(TINY, TINY, 1)
fn gemm_tiny(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let r = wid.y * TINY + lid.y;
    let c = wid.x * TINY + lid.x;
    if (r >= p.rows || c >= p.cols) { return; }
    let sp = span(wid.z);
    let a = p.a_off + sp.batch * p.a_batch + r * p.a_row;
    let b = p.b_off + sp.batch * p.b_batch + c * p.b_col;
    let a_k = p.a_k;
    let b_k = p.b_k;
    var acc = 0.0;
    for (var k = sp.k_begin; k < sp.k_end; k++) {
        acc += in0[a + k * a_k] * in1[b + k * b_k];
    }
    let at = place(sp);
    finish_in(at.out + r * p.cols + c, r, c, acc, at.bias, at.key);
}

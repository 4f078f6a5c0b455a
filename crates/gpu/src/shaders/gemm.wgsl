// C = A·B with its epilogue, tiled TM×TN per workgroup of WX×WY threads, each thread RM×4
// outputs (RM consecutive rows × 4 consecutive columns) held in vec4 registers, depth tiles of
// TK through workgroup memory. The engine compiles it in several sizes (device.rs): 64×64 tiles
// (16×16 threads, 4×4 each) for large products, 128×64 (16×16 threads, 8×4) for the largest,
// 32×32 (8×8 threads, 4×4) where larger tiles would leave most of the GPU idle (a batch of 100).
// No loop indexes a private array (drivers may then place it in slow memory): the
// accumulators are named vec4s, and the loops over them are written out.
//
// Operands are read through strides, so one kernel makes
//   hidden pre-activations  c + vᵀW   (A = v rows, B = W),
//   visible pre-activations b + W h   (A = h rows, B = Wᵀ by strides),
//   statistics sums         Σ_r v_r h_rᵀ (A = Vᵀ, B = H by strides).
// A(r, k) = in0[a_off + r·a_row + k·a_k], B(k, c) = in1[b_off + k·b_k + c·b_col],
// bias[c] = in2[bias_off + c]; element (r, c) goes to out0[c_off + r·cols + c] through
// common.wgsl's `finish` (sums, means, Bernoulli draws or pre-activations, by p.mode).

const WX: u32 = 16u;
const WY: u32 = 16u;
const RM: u32 = 4u;
const TM: u32 = WY * RM;
const TN: u32 = WX * 4u;
const TK: u32 = 16u;
const THREADS: u32 = WX * WY;

var<workgroup> tile_a: array<f32, TK * TM>; // [k][r]
var<workgroup> tile_b: array<f32, TK * TN>; // [k][c]

// Workgroup z of a split product sums k in [z·extra, (z + 1)·extra) and writes its partial
// sums (mode 0) at c_off + z·rows·cols.
fn epilogue(r: u32, c0: u32, z: u32, acc: vec4<f32>) {
    if (r >= p.rows) { return; }
    for (var j = 0u; j < 4u; j++) {
        let c = c0 + j;
        if (c >= p.cols) { return; }
        finish(p.c_off + z * p.rows * p.cols + r * p.cols + c, r, c, acc[j]);
    }
}

@compute @workgroup_size(WX, WY, 1)
fn gemm(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let t = lid.y * WX + lid.x;
    let k_begin = wid.z * p.extra;
    let k_end = min(k_begin + p.extra, p.depth);
    let r0 = wid.y * TM;
    let c0 = wid.x * TN;
    let ra = lid.y * RM; // this thread's first row in the tile
    let cb = lid.x * 4u; // and first column
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    var acc4 = vec4<f32>(0.0);
    var acc5 = vec4<f32>(0.0);
    var acc6 = vec4<f32>(0.0);
    var acc7 = vec4<f32>(0.0);
    for (var k0 = k_begin; k0 < k_end; k0 += TK) {
        for (var idx = t; idx < TK * TM; idx += THREADS) {
            var kk: u32; var rr: u32;
            if (p.a_k == 1u) { kk = idx % TK; rr = idx / TK; } else { rr = idx % TM; kk = idx / TM; }
            let r = r0 + rr; let k = k0 + kk;
            var x = 0.0;
            if (r < p.rows && k < k_end) { x = in0[p.a_off + r * p.a_row + k * p.a_k]; }
            tile_a[kk * TM + rr] = x;
        }
        for (var idx = t; idx < TK * TN; idx += THREADS) {
            var kb: u32; var cc: u32;
            if (p.b_col == 1u) { cc = idx % TN; kb = idx / TN; } else { kb = idx % TK; cc = idx / TK; }
            let c = c0 + cc; let kc = k0 + kb;
            var y = 0.0;
            if (c < p.cols && kc < k_end) { y = in1[p.b_off + kc * p.b_k + c * p.b_col]; }
            tile_b[kb * TN + cc] = y;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            let ab = kk * TM + ra;
            let bb = kk * TN + cb;
            let b = vec4<f32>(tile_b[bb], tile_b[bb + 1u], tile_b[bb + 2u], tile_b[bb + 3u]);
            let a = vec4<f32>(tile_a[ab], tile_a[ab + 1u], tile_a[ab + 2u], tile_a[ab + 3u]);
            acc0 += a.x * b;
            acc1 += a.y * b;
            acc2 += a.z * b;
            acc3 += a.w * b;
            if (RM == 8u) {
                let a2 = vec4<f32>(tile_a[ab + 4u], tile_a[ab + 5u], tile_a[ab + 6u], tile_a[ab + 7u]);
                acc4 += a2.x * b;
                acc5 += a2.y * b;
                acc6 += a2.z * b;
                acc7 += a2.w * b;
            }
        }
        workgroupBarrier();
    }
    let r = r0 + ra;
    let c = c0 + cb;
    epilogue(r, c, wid.z, acc0);
    epilogue(r + 1u, c, wid.z, acc1);
    epilogue(r + 2u, c, wid.z, acc2);
    epilogue(r + 3u, c, wid.z, acc3);
    if (RM == 8u) {
        epilogue(r + 4u, c, wid.z, acc4);
        epilogue(r + 5u, c, wid.z, acc5);
        epilogue(r + 6u, c, wid.z, acc6);
        epilogue(r + 7u, c, wid.z, acc7);
    }
}

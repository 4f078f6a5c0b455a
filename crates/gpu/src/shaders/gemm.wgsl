// C = A·B with its epilogue, tiled TM×TN per workgroup (16×16 threads, RM×RN outputs each,
// depth tiles of TK through workgroup memory). The engine compiles it twice: 64×64 tiles (4×4
// per thread) for large products, 32×32 (2×2) where 64×64 tiles would leave most of the GPU
// idle (a batch of 100). Operands are read through strides, so one kernel makes
//   hidden pre-activations  c + vᵀW   (A = v rows, B = W),
//   visible pre-activations b + W h   (A = h rows, B = Wᵀ by strides),
//   statistics sums         Σ_r v_r h_rᵀ (A = Vᵀ, B = H by strides).
// A(r, k) = in0[a_off + r·a_row + k·a_k], B(k, c) = in1[b_off + k·b_k + c·b_col],
// bias[c] = in2[bias_off + c]. Modes:
//   0: out0[c_off + r·cols + c]  = acc                      (sums)
//   1: out0[…] = E[x] = 1/(1 + e^{−β(bias + acc)})           (means; β = f0)
//   2: out0[…] = 1 if u·(1 + e^{−β(bias + acc)}) < 1 else 0  (Bernoulli draw, u = uniform01)
//   3: as 2, and the means in out1[…]
//   4: out0[…] = β(bias + acc)                               (pre-activations)

const RM: u32 = 4u;
const RN: u32 = 4u;
const TM: u32 = 16u * RM;
const TN: u32 = 16u * RN;
const TK: u32 = 16u;

var<workgroup> tile_a: array<f32, TK * TM>; // [k][r]
var<workgroup> tile_b: array<f32, TK * TN>; // [k][c]

@compute @workgroup_size(16, 16, 1)
fn gemm(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let t = lid.y * 16u + lid.x;
    let r0 = wid.y * TM;
    let c0 = wid.x * TN;
    var acc: array<array<f32, RN>, RM>;
    for (var i = 0u; i < RM; i++) { for (var j = 0u; j < RN; j++) { acc[i][j] = 0.0; } }
    for (var k0 = 0u; k0 < p.depth; k0 += TK) {
        for (var e = 0u; e < TK * TM / 256u; e++) {
            let idx = t + e * 256u;
            var kk: u32; var rr: u32;
            if (p.a_k == 1u) { kk = idx % TK; rr = idx / TK; } else { rr = idx % TM; kk = idx / TM; }
            let r = r0 + rr; let k = k0 + kk;
            var x = 0.0;
            if (r < p.rows && k < p.depth) { x = in0[p.a_off + r * p.a_row + k * p.a_k]; }
            tile_a[kk * TM + rr] = x;
        }
        for (var e = 0u; e < TK * TN / 256u; e++) {
            let idx = t + e * 256u;
            var kb: u32; var cc: u32;
            if (p.b_col == 1u) { cc = idx % TN; kb = idx / TN; } else { kb = idx % TK; cc = idx / TK; }
            let c = c0 + cc; let kc = k0 + kb;
            var y = 0.0;
            if (c < p.cols && kc < p.depth) { y = in1[p.b_off + kc * p.b_k + c * p.b_col]; }
            tile_b[kb * TN + cc] = y;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            var a: array<f32, RM>; var b: array<f32, RN>;
            for (var i = 0u; i < RM; i++) { a[i] = tile_a[kk * TM + lid.y + 16u * i]; }
            for (var j = 0u; j < RN; j++) { b[j] = tile_b[kk * TN + lid.x + 16u * j]; }
            for (var i = 0u; i < RM; i++) {
                for (var j = 0u; j < RN; j++) { acc[i][j] = acc[i][j] + a[i] * b[j]; }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < RM; i++) {
        let r = r0 + lid.y + 16u * i;
        if (r >= p.rows) { continue; }
        for (var j = 0u; j < RN; j++) {
            let c = c0 + lid.x + 16u * j;
            if (c >= p.cols) { continue; }
            let o = p.c_off + r * p.cols + c;
            if (p.mode == 0u) { out0[o] = acc[i][j]; continue; }
            let a = p.f0 * (in2[p.bias_off + c] + acc[i][j]);
            if (p.mode == 4u) { out0[o] = a; continue; }
            let one_plus = 1.0 + exp(-a);
            if (p.mode == 1u) { out0[o] = 1.0 / one_plus; continue; }
            let u = uniform01(r * p.cols + c);
            out0[o] = select(0.0, 1.0, u * one_plus < 1.0);
            if (p.mode == 3u) { out1[o] = 1.0 / one_plus; }
        }
    }
}

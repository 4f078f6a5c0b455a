// gemm.wgsl's depth tiles as floats, read one per load (`RBM_GPU_TILES=scalar`: the layout
// before tiles_vec4.wgsl, kept to measure one against the other), the same interface. Rows
// padded by one float: threads that store one row's consecutive k (a row-major operand) write
// a column of the tile, which without the pad falls in one memory bank.
const TMP: u32 = TM + 1u;
const TNP: u32 = TN + 1u;
var<workgroup> tile_a: array<f32, TK * TMP>; // [k][r]
var<workgroup> tile_b: array<f32, TK * TNP>; // [k][c]

fn load_tiles(t: u32, r0: u32, c0: u32, k0: u32, k_end: u32, a_off: u32, b_off: u32) {
    for (var idx = t; idx < TK * TM; idx += THREADS) {
        var kk: u32; var rr: u32;
        if (p.a_k == 1u) { kk = idx % TK; rr = idx / TK; } else { rr = idx % TM; kk = idx / TM; }
        let r = r0 + rr; let k = k0 + kk;
        var x = 0.0;
        if (r < p.rows && k < k_end) { x = in0[a_off + r * p.a_row + k * p.a_k]; }
        tile_a[kk * TMP + rr] = x;
    }
    for (var idx = t; idx < TK * TN; idx += THREADS) {
        var kb: u32; var cc: u32;
        if (p.b_col == 1u) { cc = idx % TN; kb = idx / TN; } else { kb = idx % TK; cc = idx / TK; }
        let c = c0 + cc; let kc = k0 + kb;
        var y = 0.0;
        if (c < p.cols && kc < k_end) { y = in1[b_off + kc * p.b_k + c * p.b_col]; }
        tile_b[kb * TNP + cc] = y;
    }
}

fn row4(kk: u32, r: u32) -> vec4<f32> {
    let base = kk * TMP + r;
    return vec4<f32>(tile_a[base], tile_a[base + 1u], tile_a[base + 2u], tile_a[base + 3u]);
}

fn col4(kk: u32, c: u32) -> vec4<f32> {
    let base = kk * TNP + c;
    return vec4<f32>(tile_b[base], tile_b[base + 1u], tile_b[base + 2u], tile_b[base + 3u]);
}

// gemm.wgsl's depth tiles in workgroup memory, A's as [k][r] and B's as [k][c], each row of a
// tile whole vec4s: the inner loop reads four rows or columns in one 16-byte load (`row4`,
// `col4`), where reading floats one by one (tiles_scalar.wgsl) a 4×4 thread made 8 loads from
// workgroup memory for its 16 multiply-adds per k — by count more than the multiply-adds cost
// on an H100's SM. Each thread also stores whole vec4s: threads that wrote single components
// of one vec4 would, where a compiler writes a component as a load and a store of the whole
// vector, race. Rows padded by one vec4: threads that store one row's consecutive k (a
// row-major operand) then write to different banks. The sums are those of the other layout,
// in the same order.
const TMP4: u32 = TM / 4u + 1u;
const TNP4: u32 = TN / 4u + 1u;
var<workgroup> tile_a: array<vec4<f32>, TK * TMP4>;
var<workgroup> tile_b: array<vec4<f32>, TK * TNP4>;

// A(r, k) and B(k, c) of this workgroup's product, 0 outside it or past its summed range.
fn a_at(r: u32, k: u32, k_end: u32, a_off: u32) -> f32 {
    if (r < p.rows && k < k_end) { return in0[a_off + r * p.a_row + k * p.a_k]; }
    return 0.0;
}

fn b_at(k: u32, c: u32, k_end: u32, b_off: u32) -> f32 {
    if (c < p.cols && k < k_end) { return in1[b_off + k * p.b_k + c * p.b_col]; }
    return 0.0;
}

// Fills the tiles with the depth tile from k0, thread t of the workgroup's THREADS: a thread's
// four values are consecutive rows (columns), and consecutive threads take consecutive
// addresses of the operand where it is stored that way.
fn load_tiles(t: u32, r0: u32, c0: u32, k0: u32, k_end: u32, a_off: u32, b_off: u32) {
    for (var idx = t; idx < TK * TM / 4u; idx += THREADS) {
        var kk: u32; var q: u32; // q: the tile's rows 4q … 4q + 3
        if (p.a_k == 1u) { kk = idx % TK; q = idx / TK; } else { q = idx % (TM / 4u); kk = idx / (TM / 4u); }
        let r = r0 + 4u * q; let k = k0 + kk;
        tile_a[kk * TMP4 + q] = vec4<f32>(a_at(r, k, k_end, a_off), a_at(r + 1u, k, k_end, a_off),
            a_at(r + 2u, k, k_end, a_off), a_at(r + 3u, k, k_end, a_off));
    }
    for (var idx = t; idx < TK * TN / 4u; idx += THREADS) {
        var kb: u32; var q: u32; // q: the tile's columns 4q … 4q + 3
        if (p.b_col == 1u) { q = idx % (TN / 4u); kb = idx / (TN / 4u); } else { kb = idx % TK; q = idx / TK; }
        let c = c0 + 4u * q; let k = k0 + kb;
        tile_b[kb * TNP4 + q] = vec4<f32>(b_at(k, c, k_end, b_off), b_at(k, c + 1u, k_end, b_off),
            b_at(k, c + 2u, k_end, b_off), b_at(k, c + 3u, k_end, b_off));
    }
}

// A(r … r + 3, kk) and B(kk, c … c + 3) of the depth tile (r and c multiples of 4).
fn row4(kk: u32, r: u32) -> vec4<f32> { return tile_a[kk * TMP4 + r / 4u]; }
fn col4(kk: u32, c: u32) -> vec4<f32> { return tile_b[kk * TNP4 + c / 4u]; }

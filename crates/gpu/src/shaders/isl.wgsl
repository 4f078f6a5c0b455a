// Distance histograms of ISL (crates/gpu/src/isl.rs; Breuleux, Bengio & Vincent 2010, with the
// binary Parzen kernel of rbm_core::eval::isl): one thread per held-out example r.
//   in0 = the examples, in1 = the samples, each pattern `cols` f32 words holding 24 of its bits
//   as an exact integer (unit i in word i / 24, bit i mod 24; x ≥ 0.5 is 1);
//   out0 = counts, rows × (depth + 1), as exact integers in f32.
// rows = examples, cols = words per pattern, depth = D; samples a_off … a_off + count − 1 are
// added: out0[r·(D+1) + d] += 1 for each at Hamming distance d = Σ countOneBits(x ^ s).

@compute @workgroup_size(256)
fn isl_hist(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = element(gid, nwg);
    if (r >= p.rows) { return; }
    let w = p.cols;
    for (var s = p.a_off; s < p.a_off + p.count; s++) {
        var d = 0u;
        for (var k = 0u; k < w; k++) {
            d = d + countOneBits(u32(in0[r * w + k]) ^ u32(in1[s * w + k]));
        }
        let o = r * (p.depth + 1u) + d;
        out0[o] = out0[o] + 1.0;
    }
}

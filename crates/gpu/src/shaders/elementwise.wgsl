// The element-wise kernels: one thread per element (common.wgsl's `element`).

// The parameter step (docs/algorithms.md §4, rbm_core::train::Optimizer::step) on θ = [W|b|c]:
// g = pos·kp − neg·kn − λ·θ (W only); θ += η·g, or with momentum μ: vel = μ·vel + η·g, θ += vel.
// in0 = pos sums, in1 = neg sums; out0 = θ, out1 = g; f0 = kp, f1 = kn, f2 = λ, f3 = η,
// f4 = μ; flags bit 0: momentum (vel in out1's second half: out1[count + e]).
@compute @workgroup_size(256)
fn step(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count) { return; }
    var g = in0[e] * p.f0 - in1[e] * p.f1;
    if (e < p.mn && p.f2 != 0.0) { g = g - p.f2 * out0[e]; }
    out1[e] = g;
    if ((p.flags & 1u) != 0u) {
        let v = p.f4 * out1[p.count + e] + p.f3 * g;
        out1[p.count + e] = v;
        out0[e] = out0[e] + v;
    } else {
        out0[e] = out0[e] + p.f3 * g;
    }
}

// out0 = in0 + in1 (FPCD's θ + θ_F).
@compute @workgroup_size(256)
fn add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count) { return; }
    out0[e] = in0[e] + in1[e];
}

// out0 = f0·out0 + f1·in0 (FPCD's θ_F ← α·θ_F + η_F·g).
@compute @workgroup_size(256)
fn decay_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count) { return; }
    out0[e] = p.f0 * out0[e] + p.f1 * in0[e];
}

// Column sums: out0[c_off + c] = Σ_r in0[r·cols + c] for c < cols (the bias statistics), and
// when flags bit 0, out0[c_off + cols + c] = Σ_r in1[r·depth + c] for c < depth.
@compute @workgroup_size(256)
fn colsum(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e < p.cols) {
        var s = 0.0;
        for (var r = 0u; r < p.rows; r++) { s = s + in0[r * p.cols + e]; }
        out0[p.c_off + e] = s;
    } else if ((p.flags & 1u) != 0u && e < p.cols + p.depth) {
        let c = e - p.cols;
        var s = 0.0;
        for (var r = 0u; r < p.rows; r++) { s = s + in1[r * p.depth + c]; }
        out0[p.c_off + p.cols + c] = s;
    }
}

// Chain i of `count` restarts at row i mod rows of the batch (width `cols`): out0 = rows of in0.
@compute @workgroup_size(256)
fn restart(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count * p.cols) { return; }
    let i = e / p.cols;
    let u = e % p.cols;
    out0[e] = in0[(i % p.rows) * p.cols + u];
}

// The uniforms of a draw, for the test that the WGSL Philox equals the CPU's bit for bit.
@compute @workgroup_size(256)
fn uniforms(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count) { return; }
    out0[e] = uniform01(e);
}

// The end of a split product (product.rs): element e = r·cols + c of the rows × cols product is
// the sum of the `count` partial sums in0[z·rows·cols + e], z in order, then `finish_u`. Thread q
// takes elements 4q … 4q + 3, whose draws are uniforms 4q … 4q + 3: one Philox block.
@compute @workgroup_size(256)
fn split_sum(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let q = element(gid, nwg);
    let size = p.rows * p.cols;
    if (4u * q >= size) { return; }
    var u = vec4<f32>(0.0);
    if (draws()) { u = uniforms4_key(q, vec2<u32>(p.key0, p.key1)); }
    for (var j = 0u; j < 4u; j++) {
        let e = 4u * q + j;
        if (e >= size) { return; }
        var x = 0.0;
        for (var z = 0u; z < p.count; z++) { x = x + in0[z * size + e]; }
        finish_u(p.c_off + e, e % p.cols, x, p.bias_off, u[j]);
    }
}

// Σ in0[e]² over e < count into out0[c_off], by one workgroup (FPCD's ‖W_F‖², docs/gpu.md):
// each thread sums a stride of the elements with Kahan's compensation, then the 256 partial
// sums are added as a tree in workgroup memory, the same order at every call.
var<workgroup> sq_part: array<f32, 256>;

@compute @workgroup_size(256)
fn sumsq(@builtin(local_invocation_index) t: u32) {
    var s = 0.0;
    var comp = 0.0;
    for (var e = t; e < p.count; e += 256u) {
        let y = in0[e] * in0[e] - comp;
        let u = s + y;
        comp = (u - s) - y;
        s = u;
    }
    sq_part[t] = s;
    workgroupBarrier();
    for (var half = 128u; half > 0u; half = half >> 1u) {
        if (t < half) { sq_part[t] = sq_part[t] + sq_part[t + half]; }
        workgroupBarrier();
    }
    if (t == 0u) { out0[p.c_off] = sq_part[0]; }
}

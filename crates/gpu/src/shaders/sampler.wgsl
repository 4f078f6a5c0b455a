// The rates-FPCD paper's samplers beyond the training kernels (crates/gpu/src/sampler.rs;
// Breuleux, Bengio & Vincent 2011, docs/algorithms.md §5): the fast-parameter update and
// herding's deterministic steps to a fixed point.

// θ_F ← α·θ_F + ε_F·(R − s·k) on every element of [W | b | c]:
// in0 = s (the statistics' sums), in1 = R (read when flags bit 0, else R = 0); out0 = θ_F;
// count = elements, f0 = α, f1 = ε_F, f2 = k = 1/(rows summed).
@compute @workgroup_size(256)
fn sampler_fast_update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count) { return; }
    var r = 0.0;
    if ((p.flags & 1u) != 0u) { r = in1[e]; }
    out0[e] = p.f0 * out0[e] + p.f1 * (r - in0[e] * p.f2);
}

// A fixed-point search starts: out0[0] = 0 (not found yet).
@compute @workgroup_size(1)
fn sampler_herd_reset() {
    out0[0] = 0.0;
}

// Herding's hidden step, unless the search has found its fixed point (in1[0] != 0):
// out0[j] = 1{in0[j] > 0} for the count pre-activations c + Wᵀx of in0.
@compute @workgroup_size(256)
fn sampler_herd_hidden(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count || in1[0] != 0.0) { return; }
    out0[e] = select(0.0, 1.0, in0[e] > 0.0);
}

var<workgroup> moved: atomic<u32>;

// Herding's visible step, in one workgroup, unless the search has found its fixed point
// (out1[0] != 0): x = 1{in0 > 0} for the count pre-activations b + W h of in0, written to out0
// (the chain's state); when x equals the state it replaces, the search is done: out1[0] = 1.
// Each thread compares and writes its own units, so no unit is read after another thread wrote it.
@compute @workgroup_size(256)
fn sampler_herd_visible(@builtin(local_invocation_index) t: u32) {
    if (t == 0u) { atomicStore(&moved, 0u); }
    workgroupBarrier();
    let done = out1[0] != 0.0;
    if (!done) {
        var differs = 0u;
        for (var i = t; i < p.count; i += 256u) {
            let x = select(0.0, 1.0, in0[i] > 0.0);
            if (x != out0[i]) { differs = 1u; }
            out0[i] = x;
        }
        if (differs != 0u) { atomicOr(&moved, 1u); }
    }
    workgroupBarrier();
    if (t == 0u && !done && atomicLoad(&moved) == 0u) { out1[0] = 1.0; }
}

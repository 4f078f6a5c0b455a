// The centered parameterisation of CG and CS-DCP (Melchior, Fischer & Wiskott 2016; the CPU's
// src/engine/cpu/centered.rs) on the GPU: θ̃ = [W | b̃ | c̃] (m×n, m, n), offsets o = [μ | λ]
// (m + n), a batch's column sums s = [Σ v | Σ E[h|v]] (m + n). p.rows = m, p.cols = n.

// The offsets slide towards the batch means (CPU `slide`): d = [μ_b − μ | λ_b − λ] with the
// batch means s·f0 (f0 = 1/rows) into out1 for `slide_shift`, then μ ← (1 − ν_μ)μ + ν_μ μ_b,
// λ ← (1 − ν_λ)λ + ν_λ λ_b. out0 = o, in1 = s; f1 = ν_μ, f2 = ν_λ.
@compute @workgroup_size(256)
fn slide_offsets(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.rows + p.cols) { return; }
    let mean = in1[e] * p.f0;
    out1[e] = mean - out0[e];
    let nu = select(p.f2, p.f1, e < p.rows);
    out0[e] = (1.0 - nu) * out0[e] + nu * mean;
}

// Re-parameterisation with the current W as the offsets slide (CPU `slide`):
// b̃_i += ν_λ Σ_j W_ij (λ_b,j − λ_j), c̃_j += ν_μ Σ_i W_ij (μ_b,i − μ_i). out0 = θ̃, in0 = d
// (`slide_offsets`); f1 = ν_μ, f2 = ν_λ. (With d computed here from o and s instead, both
// loops reading three buffers, this pass took 30× a plain one on lavapipe.)
@compute @workgroup_size(256)
fn slide_shift(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    let m = p.rows;
    let n = p.cols;
    let mn = m * n;
    if (e < m) {
        var s = 0.0;
        for (var j = 0u; j < n; j++) { s = s + out0[e * n + j] * in0[m + j]; }
        out0[mn + e] = out0[mn + e] + p.f2 * s;
    } else if (e < m + n) {
        let j = e - m;
        var s = 0.0;
        for (var i = 0u; i < m; i++) { s = s + out0[i * n + j] * in0[i]; }
        out0[mn + m + j] = out0[mn + m + j] + p.f1 * s;
    }
}

// h − λ of every row (count rows of n): out0[r·n + j] = in0[r·n + j] − in1[rows + j].
@compute @workgroup_size(256)
fn sub_lambda(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    if (e >= p.count * p.cols) { return; }
    out0[e] = in0[e] - in1[p.rows + e % p.cols];
}

// The centered sums' weights: Σ_r v_r (h_r − λ)ᵀ − μ (Σ_r (h_r − λ))ᵀ, with Σ_r (h_r − λ) =
// Σ h − count·λ from the sums' c block. out0 = the sums [W | Σv | Σh], in0 = o; f0 = count.
@compute @workgroup_size(256)
fn center_w(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    let m = p.rows;
    let n = p.cols;
    if (e >= m * n) { return; }
    let i = e / n;
    let j = e % n;
    out0[e] = out0[e] - in0[i] * (out0[m * n + m + j] - p.f0 * in0[m + j]);
}

// The plain biases of θ̃ (CPU `to_plain`): b_i = b̃_i − Σ_j W_ij λ_j, c_j = c̃_j − Σ_i W_ij μ_i.
// in0 = θ̃, in1 = o; out0 = the plain θ (its W copied apart).
@compute @workgroup_size(256)
fn to_plain(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = element(gid, nwg);
    let m = p.rows;
    let n = p.cols;
    let mn = m * n;
    if (e < m) {
        var s = 0.0;
        for (var j = 0u; j < n; j++) { s = s + in0[e * n + j] * in1[m + j]; }
        out0[mn + e] = in0[mn + e] - s;
    } else if (e < m + n) {
        let j = e - m;
        var s = 0.0;
        for (var i = 0u; i < m; i++) { s = s + in0[i * n + j] * in1[i]; }
        out0[mn + m + j] = in0[mn + m + j] - s;
    }
}

// One annealing step of AIS or RAISE (crates/gpu/src/ais.rs): one workgroup per particle r.
//   in0 = a = c + vᵀW (particles × n), in1 = v (particles × m),
//   in2 = [b − b_A | b | b_A] (3m);
//   out0 = [h (particles × n) | b_β (m)], out1 = log-weights as (hi, lo) pairs (2·particles).
// rows = particles, cols = n, depth = m; f0 = β_hi, f1 = β_lo, f2 = β_hi − β_lo (exact in
// f32), f4 = β of the transition's draw, f3 = (1 − f4)/f4. With flags bit 1 it adds
//   log f_hi(v) − log f_lo(v) = Δβ·((b − b_A)ᵀv + Σ_j max(a_j, 0))
//                               + Σ_j log1p(y_j·expm1(−Δβ|a_j|)/(1 + y_j)),
//   y_j = e^{−β_lo|a_j|} (softplus(βx) = β·max(x, 0) + ln(1 + e^{−β|x|}), with no
// cancellation) to the particle's log-weight, a double-single (hi, lo) pair updated by an
// error-free two-sum (AIS: β_hi = β_k, β_lo = β_{k−1}, f4 = β_k; RAISE: the same increment
// after the transition at β_k, f4 = β_{k−1} for the next one). With flags bit 0 it draws
// h_j ~ σ(f4·a_j) (Philox uniform r·n + j of this dispatch's draw) and, in workgroup 0, writes
// b_β = b + f3·b_A so the visible product's epilogue σ(β(b_β + W h)) = σ((1 − β) b_A + β(b + W h)).
// A batch of models (flags bit 2): rows = models × per, model t = r / per owns rows
// [t·per, (t + 1)·per), its in2 at 3m·t, its b_β at rows·n + m·t, and its Philox key at
// key_at(key_off + 4t); particle r − t·per draws its uniforms as it would alone.

var<workgroup> part: array<f32, 256>;

// e^{−t} − 1 for t ≥ 0, without cancellation for small t (Taylor to degree 7 below 1/8:
// truncation < 1.3e−11 relative).
fn expm1_neg(t: f32) -> f32 {
    if (t > 0.125) { return exp(-t) - 1.0; }
    let s = -t;
    return s * (1.0 + s * (0.5 + s * (1.0 / 6.0 + s * (1.0 / 24.0 + s * (1.0 / 120.0
        + s * (1.0 / 720.0 + s * (1.0 / 5040.0)))))));
}

// ln(1 + z) for −1/2 ≤ z ≤ 0: the series below |z| = 1/16 (truncation < 1e−10 relative), where
// WGSL's log near 1 has only an absolute accuracy of 2^−21.
fn log1p_neg(z: f32) -> f32 {
    if (z < -0.0625) { return log(1.0 + z); }
    var s = 0.0;
    var pw = z;
    for (var i = 1u; i <= 8u; i++) {
        s = s + pw / f32(i) * select(-1.0, 1.0, (i & 1u) == 1u);
        pw = pw * z;
    }
    return s;
}

@compute @workgroup_size(256)
fn ais_step(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let r = wid.x + wid.y * 65535u;
    if (r >= p.rows) { return; }
    let t = lid.x;
    let n = p.cols;
    let m = p.depth;
    let draw = (p.flags & 1u) != 0u;
    let weigh = (p.flags & 2u) != 0u;
    let batched = (p.flags & 4u) != 0u;
    var model = 0u;
    var key = vec2<u32>(p.key0, p.key1);
    if (batched) {
        model = r / p.per;
        key = key_at(p.key_off + 4u * model);
    }
    let own = r - model * p.per; // the particle's row in its own model
    let vis = 3u * m * model;
    var pos = 0.0;
    var lg = 0.0;
    for (var j = t; j < n; j += 256u) {
        let x = in0[r * n + j];
        let ax = abs(x);
        pos = pos + max(x, 0.0);
        let y = exp(-p.f1 * ax);
        lg = lg + log1p_neg(y * expm1_neg(p.f2 * ax) / (1.0 + y));
        if (draw) {
            let u = uniform01_key(own * n + j, key);
            out0[r * n + j] = select(0.0, 1.0, u * (1.0 + exp(-p.f4 * x)) < 1.0);
        }
    }
    var dv = 0.0;
    for (var i = t; i < m; i += 256u) {
        dv = dv + in2[vis + i] * in1[r * m + i];
    }
    if (draw && own == 0u) {
        for (var i = t; i < m; i += 256u) {
            out0[p.rows * n + m * model + i] = in2[vis + m + i] + p.f3 * in2[vis + 2u * m + i];
        }
    }
    part[t] = p.f2 * (dv + pos) + lg;
    workgroupBarrier();
    for (var half = 128u; half > 0u; half = half >> 1u) {
        if (t < half) { part[t] = part[t] + part[t + half]; }
        workgroupBarrier();
    }
    if (t == 0u && weigh) {
        // Two-sum of (hi, lo) + x: s + e = hi + x exactly, then lo absorbs e.
        let hi = out1[2u * r];
        let lo = out1[2u * r + 1u];
        let x = part[0];
        let s = hi + x;
        let bb = s - hi;
        let e = (hi - (s - bb)) + (x - bb);
        let l = lo + e;
        let s2 = s + l;
        out1[2u * r] = s2;
        out1[2u * r + 1u] = l - (s2 - s);
    }
}

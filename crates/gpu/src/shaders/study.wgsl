// A study's trials as one job (study.rs): one workgroup per trial runs its lane's program — the
// engine operations its algorithm file performs per update (rbm_core::engine::tape) — for
// p.count updates, every object of the trial in its own stretch of out0 (the arena).
//
// Each operation computes what the GPU engine's dispatches for it compute (engine.rs,
// gemm.wgsl's epilogue, elementwise.wgsl, centered.wgsl): the same sums in the same order, the
// same Philox uniforms for the same (key, draw, index), so a trial follows the GPU engine's
// lane of its seed within f32 rounding. The threads of a workgroup share an operation's
// elements; a barrier ends each of its phases.
//
// in0: the programs — a header of 8 per group [program offset, operations, m, n, data rows,
//      draws per update, scratch E[h|v], scratch v₁], then 16 words per operation;
// in1: the training data (rows × m), every trial's full batch;
// in2: 8 per trial [group, key as four 16-bit halves, η, 0, 0];
// out0: the arena, p.depth floats per trial. study.rs also compiles this file with the trial's
//      stretch in workgroup memory (`wg`) for trials that fit: every `out0[base + …]` reads
//      `wg[…]`, loaded at @load and stored back at @store.
// p.rows = trials, p.count = updates, p.extra = the first update's index.

const WG: u32 = 64u;
const OP: u32 = 16u;

var<private> lid: u32;
var<private> base: u32;
var<private> key: vec2<u32>;
var<private> m: u32;
var<private> n: u32;

fn uniform_at(index: u32, draw: vec2<u32>) -> f32 {
    let block = philox(vec4<u32>(index >> 2u, draw.x, draw.y, 0u), key);
    return f32(block[index & 3u] >> 8u) * (1.0 / 16777216.0);
}

// The arena's value at x (the trial's own stretch), or the data's when `data`.
fn src(data: bool, x: u32) -> f32 {
    if (data) { return in1[x]; }
    return out0[base + x];
}

fn word(at: u32) -> u32 { return u32(in0[at]); }

fn sync() {
    storageBarrier();
    workgroupBarrier();
}

// A layer of `rows` rows from the rows at `at` (data or arena) under θ at `th`: hidden
// (c + vᵀW, width n) or visible (b + W h, width m); mode 1: E[x] = 1/(1 + e^{−a}), into dst;
// mode 2: a Bernoulli draw, on iff u·(1 + e^{−a}) < 1 with u the draw's uniform r·width + c.
fn layer(data: bool, at: u32, rows: u32, th: u32, hidden: bool, mode: u32, dst: u32, draw: vec2<u32>) {
    let mn = m * n;
    var width = m; var depth = n;
    if (hidden) { width = n; depth = m; }
    for (var e = lid; e < rows * width; e += WG) {
        let r = e / width;
        let c = e % width;
        var x = 0.0;
        for (var k = 0u; k < depth; k++) {
            var w: f32;
            if (hidden) { w = out0[base + th + k * n + c]; } else { w = out0[base + th + c * n + k]; }
            x = x + src(data, at + r * depth + k) * w;
        }
        var bias: f32;
        if (hidden) { bias = out0[base + th + mn + m + c]; } else { bias = out0[base + th + mn + c]; }
        let a = 1.0 * (bias + x);
        let one_plus = 1.0 + exp(-a);
        if (mode == 1u) {
            out0[base + dst + e] = 1.0 / one_plus;
        } else {
            let u = uniform_at(r * width + c, draw);
            out0[base + dst + e] = select(0.0, 1.0, u * one_plus < 1.0);
        }
    }
}

// Draw j of update `upd`: the GPU engine's counter 1 + upd·D + j (its GpuRng counts from 1).
fn draw_of(upd: u32, per: u32, j: u32) -> vec2<u32> {
    let prod = mulhilo(upd, per);
    let lo = prod.y + 1u + j;
    return vec2<u32>(lo, prod.x + select(0u, 1u, lo < prod.y));
}

// k sweeps of `count` chains (v, h, E[h|v] at v, h, hp) under θ at th, then E[h|v].
fn sweeps(th: u32, v: u32, h: u32, hp: u32, count: u32, k: u32, upd: u32, per: u32, j0: u32) -> u32 {
    var j = j0;
    for (var s = 0u; s < k; s++) {
        layer(false, v, count, th, true, 2u, h, draw_of(upd, per, j));
        sync();
        layer(false, h, count, th, false, 2u, v, draw_of(upd, per, j + 1u));
        sync();
        j += 2u;
    }
    layer(false, v, count, th, true, 1u, hp, vec2<u32>(0u));
    sync();
    return j;
}

// Statistics sums at st: [Σ_r v_r hw_rᵀ | Σ v | Σ hs] over `rows` rows, and the count (hw = hs
// = E[h|v]; the centered sums' weights take hw = h − λ).
fn sums(st: u32, data: bool, v: u32, hw: u32, hs: u32, rows: u32) {
    let mn = m * n;
    for (var e = lid; e < mn + m + n; e += WG) {
        var s = 0.0;
        if (e < mn) {
            let i = e / n;
            let jj = e % n;
            for (var r = 0u; r < rows; r++) { s = s + src(data, v + r * m + i) * out0[base + hw + r * n + jj]; }
        } else if (e < mn + m) {
            let i = e - mn;
            for (var r = 0u; r < rows; r++) { s = s + src(data, v + r * m + i); }
        } else {
            let jj = e - mn - m;
            for (var r = 0u; r < rows; r++) { s = s + out0[base + hs + r * n + jj]; }
        }
        out0[base + st + e] = s;
    }
    if (lid == 0u) { out0[base + st + mn + m + n] = f32(rows); }
    sync();
}

// The parameter step on θ at th (elementwise.wgsl's `step`).
fn step(th: u32, pos: u32, neg: u32, grad: u32, vel: u32, wd: f32, mom: f32, lr: f32) {
    let len = m * n + m + n;
    let kp = 1.0 / max(out0[base + pos + len], 1.0);
    let kn = 1.0 / max(out0[base + neg + len], 1.0);
    for (var e = lid; e < len; e += WG) {
        var g = out0[base + pos + e] * kp - out0[base + neg + e] * kn;
        if (e < m * n && wd != 0.0) { g = g - wd * out0[base + th + e]; }
        out0[base + grad + e] = g;
        if (mom != 0.0) {
            let v = mom * out0[base + vel + e] + lr * g;
            out0[base + vel + e] = v;
            out0[base + th + e] = out0[base + th + e] + v;
        } else {
            out0[base + th + e] = out0[base + th + e] + lr * g;
        }
    }
    sync();
}

// The centered sums at st of `rows` rows v, hp (centered.wgsl): h − λ into hc, Σ v (h − λ)ᵀ
// with Σ v and Σ hp, then the weights less μ (Σ h − rows·λ)ᵀ.
fn centered_sums(st: u32, off: u32, data: bool, v: u32, hp: u32, rows: u32, hc: u32) {
    for (var e = lid; e < rows * n; e += WG) {
        out0[base + hc + e] = out0[base + hp + e] - out0[base + off + m + e % n];
    }
    sync();
    sums(st, data, v, hc, hp, rows);
    let mn = m * n;
    for (var e = lid; e < mn; e += WG) {
        let i = e / n;
        let jj = e % n;
        let sh = out0[base + st + mn + m + jj];
        out0[base + st + e] = out0[base + st + e] - out0[base + off + i] * (sh - f32(rows) * out0[base + off + m + jj]);
    }
    sync();
}

@compute @workgroup_size(64)
fn study(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>) {
    let trial = wid.x + wid.y * nwg.x;
    if (trial >= p.rows) { return; }
    lid = li;
    base = trial * p.depth;
    // @load
    let t = trial * 8u;
    let group = u32(in2[t]);
    key = key_at(t + 1u);
    let lane_lr = in2[t + 5u];
    let hdr = group * 8u;
    let prog = word(hdr);
    let ops = word(hdr + 1u);
    m = word(hdr + 2u);
    n = word(hdr + 3u);
    let rows = word(hdr + 4u);
    let per = word(hdr + 5u);
    let s_hp = word(hdr + 6u);
    let s_v1 = word(hdr + 7u);
    for (var u = 0u; u < p.count; u++) {
        let upd = p.extra + u;
        var j = 0u;
        for (var o = 0u; o < ops; o++) {
            let at = prog + o * OP;
            let code = word(at);
            let a1 = word(at + 1u); let a2 = word(at + 2u); let a3 = word(at + 3u);
            let a4 = word(at + 4u); let a5 = word(at + 5u); let a6 = word(at + 6u);
            switch code {
                // Restart the chains at the data rows (chain i at row i mod rows), then sweeps.
                case 1u: {
                    for (var e = lid; e < a5 * m; e += WG) {
                        out0[base + a2 + e] = in1[((e / m) % rows) * m + e % m];
                    }
                    sync();
                    j = sweeps(a1, a2, a3, a4, a5, a6, upd, per, j);
                }
                case 2u: { j = sweeps(a1, a2, a3, a4, a5, a6, upd, per, j); }
                // Chain statistics: v, hp, count, stats.
                case 3u: { sums(a4, false, a1, a2, a2, a3); }
                // Positive phase: θ, stats.
                case 4u: {
                    layer(true, 0u, rows, a1, true, 1u, s_hp, vec2<u32>(0u));
                    sync();
                    sums(a2, true, 0u, s_hp, s_hp, rows);
                }
                // Mean-field statistics: θ, stats.
                case 5u: {
                    layer(true, 0u, rows, a1, true, 1u, s_hp, vec2<u32>(0u));
                    sync();
                    layer(false, s_hp, rows, a1, false, 1u, s_v1, vec2<u32>(0u));
                    sync();
                    layer(false, s_v1, rows, a1, true, 1u, s_hp, vec2<u32>(0u));
                    sync();
                    sums(a2, false, s_v1, s_hp, s_hp, rows);
                }
                // Step: θ, pos, neg, grad, vel, λ, μ, fixed rate?, rate.
                case 6u: {
                    let lr = select(lane_lr, in0[at + 9u], word(at + 8u) != 0u);
                    step(a1, a2, a3, a4, a5, in0[at + 6u], in0[at + 7u], lr);
                }
                // θ + θ_F: sum, model, extra.
                case 7u: {
                    for (var e = lid; e < m * n + m + n; e += WG) {
                        out0[base + a1 + e] = out0[base + a2 + e] + out0[base + a3 + e];
                    }
                    sync();
                }
                // x ← α·x + η·g: x, g, α, η.
                case 8u: {
                    for (var e = lid; e < m * n + m + n; e += WG) {
                        out0[base + a1 + e] = in0[at + 3u] * out0[base + a1 + e] + in0[at + 4u] * out0[base + a2 + e];
                    }
                    sync();
                }
                // Begin a batch: the centered's E[h|v] of the rows (c_hp), column sums (c_sums), θ.
                case 9u: {
                    layer(true, 0u, rows, a3, true, 1u, a1, vec2<u32>(0u));
                    sync();
                    for (var e = lid; e < m + n; e += WG) {
                        var s = 0.0;
                        if (e < m) {
                            for (var r = 0u; r < rows; r++) { s = s + in1[r * m + e]; }
                        } else {
                            for (var r = 0u; r < rows; r++) { s = s + out0[base + a1 + r * n + e - m]; }
                        }
                        out0[base + a2 + e] = s;
                    }
                    sync();
                }
                // Slide: θ̃, offsets, sums, ν_μ, ν_λ.
                case 10u: {
                    let f0 = 1.0 / f32(max(rows, 1u));
                    let nu_mu = in0[at + 4u];
                    let nu_lambda = in0[at + 5u];
                    let mn = m * n;
                    for (var e = lid; e < m + n; e += WG) {
                        var s = 0.0;
                        if (e < m) {
                            for (var jj = 0u; jj < n; jj++) {
                                s = s + out0[base + a1 + e * n + jj] * (out0[base + a3 + m + jj] * f0 - out0[base + a2 + m + jj]);
                            }
                            out0[base + a1 + mn + e] = out0[base + a1 + mn + e] + nu_lambda * s;
                        } else {
                            let jj = e - m;
                            for (var i = 0u; i < m; i++) {
                                s = s + out0[base + a1 + i * n + jj] * (out0[base + a3 + i] * f0 - out0[base + a2 + i]);
                            }
                            out0[base + a1 + mn + m + jj] = out0[base + a1 + mn + m + jj] + nu_mu * s;
                        }
                    }
                    sync();
                    for (var e = lid; e < m + n; e += WG) {
                        let nu = select(nu_lambda, nu_mu, e < m);
                        out0[base + a2 + e] = (1.0 - nu) * out0[base + a2 + e] + nu * (out0[base + a3 + e] * f0);
                    }
                    sync();
                }
                // Centered data statistics: offsets, c_hp, stats, hc.
                case 11u: { centered_sums(a3, a1, true, 0u, a2, rows, a4); }
                // Centered chain statistics: offsets, v, hp, count, stats, hc.
                case 12u: { centered_sums(a5, a1, false, a2, a3, a4, a6); }
                // Centered step: θ̃, pos, neg, grad, vel, λ, μ, fixed?, rate, model θ, offsets.
                case 13u: {
                    let lr = select(lane_lr, in0[at + 9u], word(at + 8u) != 0u);
                    step(a1, a2, a3, a4, a5, in0[at + 6u], in0[at + 7u], lr);
                    let th = word(at + 10u);
                    let off = word(at + 11u);
                    let mn = m * n;
                    for (var e = lid; e < mn + m + n; e += WG) {
                        if (e < mn) {
                            out0[base + th + e] = out0[base + a1 + e];
                        } else if (e < mn + m) {
                            let i = e - mn;
                            var s = 0.0;
                            for (var jj = 0u; jj < n; jj++) { s = s + out0[base + a1 + i * n + jj] * out0[base + off + m + jj]; }
                            out0[base + th + e] = out0[base + a1 + e] - s;
                        } else {
                            let jj = e - mn - m;
                            var s = 0.0;
                            for (var i = 0u; i < m; i++) { s = s + out0[base + a1 + i * n + jj] * out0[base + off + i]; }
                            out0[base + th + e] = out0[base + a1 + e] - s;
                        }
                    }
                    sync();
                }
                default: {}
            }
        }
    }
    // @store
}

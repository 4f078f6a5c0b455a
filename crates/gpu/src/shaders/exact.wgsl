// Exact log Z by enumeration (exact.rs): the partial log-sum-exp of one block of 1024 states of
// the enumerated layer per workgroup.
//
// Bindings: in0 = the enumerated units' weight rows (k' × l, row j = unit j's weights to the
// summed-out layer, k' = max(k, 10) with zero rows past k), in1 = the summed-out layer's biases
// (l), in2 = the enumerated layer's biases (k'); out0[2g], out0[2g + 1] = (max, Σ exp(t − max))
// of block g. Parameters: rows = k, cols = l, a_off = the first block of this dispatch.
//
// State s of block g is g·1024 + 16·thread + r: bits 0–3 (r) vary within a thread, bits 4–9 are
// the thread's, bits 10.. the block's. The summed-out layer is walked in tiles of 64 units: the
// block's part of the pre-activations (bias + rows of the block's bits) goes to workgroup
// memory, each thread adds its rows and forms its 16 states' pre-activations by subset sums.
// Per state and unit: softplus(x) = max(x, 0) + ln(1 + e^−|x|); the max parts are summed with
// Kahan's compensation, the ln parts as one product Π(1 + e^−|x|), renormalised by frexp after
// every tile (each factor is in [1, 2], so 64 of them stay far from f32's range).

const EXZ_T: u32 = 16u;
const EXZ_WG: u32 = 64u;
const EXZ_BITS: u32 = 10u;
// ln 2 = LN2_HI + LN2_LO, LN2_HI with 12 significant bits, so a·LN2_HI is exact for a < 2^12
// (an exponent e < 2^20 is taken as 256·(e >> 8) + (e & 255)).
const EXZ_LN2_HI: f32 = 0.693115234375;
const EXZ_LN2_LO: f32 = 3.194618494528623e-5;
const EXZ_NONE: f32 = -3.0e38;

var<workgroup> exz_base: array<f32, 64>;
var<workgroup> exz_red: array<f32, 64>;

// a + b = s + e exactly (Knuth's two-sum).
fn exz_two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    return vec2<f32>(s, e);
}

// A double-single number (hi, lo) plus an f32.
fn exz_add(x: vec2<f32>, b: f32) -> vec2<f32> {
    let s = exz_two_sum(x.x, b);
    let lo = s.y + x.y;
    let hi = s.x + lo;
    return vec2<f32>(hi, lo - (hi - s.x));
}

// One unit's softplus for 4 states: the product and the compensated sum of the max parts.
fn exz_step(
    x: vec4<f32>,
    prod: ptr<function, vec4<f32>>,
    pos: ptr<function, vec4<f32>>,
    comp: ptr<function, vec4<f32>>,
) {
    *prod *= 1.0 + exp(-abs(x));
    let y = max(x, vec4<f32>(0.0)) - *comp;
    let sum = *pos + y;
    *comp = (sum - *pos) - y;
    *pos = sum;
}

// The product back to [0.5, 1), its exponent counted.
fn exz_renorm(prod: ptr<function, vec4<f32>>, expo: ptr<function, vec4<i32>>) {
    let f = frexp(*prod);
    *prod = f.fract;
    *expo += f.exp;
}

@compute @workgroup_size(64)
fn exact_log_z(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let k = p.rows;
    let l = p.cols;
    let group = p.a_off + wid.x;
    let first = (group << EXZ_BITS) | (t << 4u);
    let total = 1u << k;

    // States 4q + c of the thread in component c of the q-th vector (q's bits are bits 2–3).
    var pos0 = vec4<f32>(0.0);
    var pos1 = vec4<f32>(0.0);
    var pos2 = vec4<f32>(0.0);
    var pos3 = vec4<f32>(0.0);
    var comp0 = vec4<f32>(0.0);
    var comp1 = vec4<f32>(0.0);
    var comp2 = vec4<f32>(0.0);
    var comp3 = vec4<f32>(0.0);
    var prod0 = vec4<f32>(1.0);
    var prod1 = vec4<f32>(1.0);
    var prod2 = vec4<f32>(1.0);
    var prod3 = vec4<f32>(1.0);
    var expo0 = vec4<i32>(0);
    var expo1 = vec4<i32>(0);
    var expo2 = vec4<i32>(0);
    var expo3 = vec4<i32>(0);

    for (var i0 = 0u; i0 < l; i0 += EXZ_WG) {
        let n = min(EXZ_WG, l - i0);
        workgroupBarrier();
        if (t < n) {
            let i = i0 + t;
            var x = in1[i];
            for (var j = EXZ_BITS; j < k; j++) {
                if (((group >> (j - EXZ_BITS)) & 1u) == 1u) {
                    x += in0[j * l + i];
                }
            }
            exz_base[t] = x;
        }
        workgroupBarrier();
        for (var ii = 0u; ii < n; ii++) {
            let i = i0 + ii;
            var h = exz_base[ii];
            for (var j = 0u; j < 6u; j++) {
                h += f32((t >> j) & 1u) * in0[(j + 4u) * l + i];
            }
            let r0 = in0[i];
            let r1 = in0[l + i];
            let r2 = in0[2u * l + i];
            let r3 = in0[3u * l + i];
            let v0 = h + vec4<f32>(0.0, r0, r1, r0 + r1);
            let v1 = v0 + r2;
            let v2 = v0 + r3;
            let v3 = v1 + r3;
            exz_step(v0, &prod0, &pos0, &comp0);
            exz_step(v1, &prod1, &pos1, &comp1);
            exz_step(v2, &prod2, &pos2, &comp2);
            exz_step(v3, &prod3, &pos3, &comp3);
        }
        exz_renorm(&prod0, &expo0);
        exz_renorm(&prod1, &expo1);
        exz_renorm(&prod2, &expo2);
        exz_renorm(&prod3, &expo3);
    }
    var pos = array<vec4<f32>, 4>(pos0, pos1, pos2, pos3);
    var comp = array<vec4<f32>, 4>(comp0, comp1, comp2, comp3);
    var prod = array<vec4<f32>, 4>(prod0, prod1, prod2, prod3);
    var expo = array<vec4<i32>, 4>(expo0, expo1, expo2, expo3);

    // cᵀx of the thread's bits 4.. and the subset sums of bits 0–3.
    var lin = 0.0;
    for (var j = 4u; j < k; j++) {
        if (((first >> j) & 1u) == 1u) {
            lin += in2[j];
        }
    }
    var th: array<f32, 16>;
    var tl: array<f32, 16>;
    var best = EXZ_NONE;
    for (var s = 0u; s < EXZ_T; s++) {
        var ls = lin;
        for (var j = 0u; j < 4u; j++) {
            if (((s >> j) & 1u) == 1u) {
                ls += in2[j];
            }
        }
        let q = s >> 2u;
        let c = s & 3u;
        let e = u32(expo[q][c]);
        var acc = exz_two_sum(pos[q][c], -comp[q][c]);
        acc = exz_add(acc, f32(e >> 8u) * (256.0 * EXZ_LN2_HI));
        acc = exz_add(acc, f32(e & 255u) * EXZ_LN2_HI);
        acc = exz_add(acc, f32(e) * EXZ_LN2_LO);
        acc = exz_add(acc, log(prod[q][c]));
        acc = exz_add(acc, ls);
        th[s] = acc.x;
        tl[s] = acc.y;
        if (first + s < total) {
            best = max(best, acc.x);
        }
    }

    exz_red[t] = best;
    workgroupBarrier();
    for (var w = EXZ_WG / 2u; w > 0u; w >>= 1u) {
        if (t < w) {
            exz_red[t] = max(exz_red[t], exz_red[t + w]);
        }
        workgroupBarrier();
    }
    let top = exz_red[0];
    workgroupBarrier();
    var sum = 0.0;
    for (var s = 0u; s < EXZ_T; s++) {
        if (first + s < total) {
            sum += exp((th[s] - top) + tl[s]);
        }
    }
    exz_red[t] = sum;
    workgroupBarrier();
    for (var w = EXZ_WG / 2u; w > 0u; w >>= 1u) {
        if (t < w) {
            exz_red[t] = exz_red[t] + exz_red[t + w];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        out0[2u * group] = top;
        out0[2u * group + 1u] = exz_red[0];
    }
}

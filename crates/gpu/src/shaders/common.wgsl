// What every kernel of the GPU engine shares: the parameters of one dispatch (a 256-byte slot of
// the upload ring, bound with a dynamic offset) and the buffers of one bind group layout
// (three read-only, two read-write). Each kernel names what it reads in its own words.

struct P {
    rows: u32, cols: u32, depth: u32, mode: u32,
    a_off: u32, a_row: u32, a_k: u32, b_off: u32,
    b_k: u32, b_col: u32, bias_off: u32, c_off: u32,
    key0: u32, key1: u32, draw_lo: u32, draw_hi: u32,
    count: u32, mn: u32, flags: u32, extra: u32,
    f0: f32, f1: f32, f2: f32, f3: f32,
    f4: f32, f5: f32, f6: f32, f7: f32,
    // A batch of products or models in one dispatch (products: workgroup z = batch · splits +
    // split; offsets advance by these strides per batch; ais_step: `per` rows per model).
    splits: u32, per: u32, key_off: u32, a_batch: u32,
    b_batch: u32, bias_batch: u32, c_batch: u32, pad0: u32,
};

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> in0: array<f32>;
@group(0) @binding(2) var<storage, read> in1: array<f32>;
@group(0) @binding(3) var<storage, read> in2: array<f32>;
@group(0) @binding(4) var<storage, read_write> out0: array<f32>;
@group(0) @binding(5) var<storage, read_write> out1: array<f32>;

// The element of an element-wise kernel's thread: a 2-D grid of 256-thread groups, at most
// 65 535 in x, the rest in y (Device::element_groups).
fn element(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * 256u;
}

// The high and low words of a·b (WGSL has no 64-bit integers): four 16-bit partial products.
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu; let a1 = a >> 16u;
    let b0 = b & 0xffffu; let b1 = b >> 16u;
    let lo_lo = a0 * b0;
    let hi_lo = a1 * b0;
    let lo_hi = a0 * b1;
    let hi_hi = a1 * b1;
    let mid = (lo_lo >> 16u) + (hi_lo & 0xffffu) + (lo_hi & 0xffffu);
    let hi = hi_hi + (hi_lo >> 16u) + (lo_hi >> 16u) + (mid >> 16u);
    return vec2<u32>(hi, a * b);
}

// Philox4x32-10 (Salmon et al. 2011), as rbm_core::rng::philox::philox4x32.
fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var x = counter;
    var k = key;
    for (var round = 0u; round < 10u; round++) {
        if (round > 0u) {
            k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
        }
        let p0 = mulhilo(0xD2511F53u, x.x);
        let p1 = mulhilo(0xCD9E8D57u, x.z);
        x = vec4<u32>(p1.x ^ x.y ^ k.x, p1.y, p0.x ^ x.w ^ k.y, p0.y);
    }
    return x;
}

// Uniform `index` of this dispatch's draw, as rbm_core::rng::philox::uniform.
fn uniform01(index: u32) -> f32 {
    return uniform01_key(index, vec2<u32>(p.key0, p.key1));
}

// Uniform `index` of this dispatch's draw under another key (a batch's model's own).
fn uniform01_key(index: u32, key: vec2<u32>) -> f32 {
    return uniforms4_key(index >> 2u, key)[index & 3u];
}

// Uniforms 4q … 4q + 3 of this dispatch's draw under `key`: one Philox block gives four, so a
// thread that draws four consecutive indices computes it once (a block is about 400 integer
// operations without 64-bit products: one per element of a 784-deep product would be, by
// count, half as many operations as its multiply-adds).
fn uniforms4_key(q: u32, key: vec2<u32>) -> vec4<f32> {
    let block = philox(vec4<u32>(q, p.draw_lo, p.draw_hi, 0u), key);
    return vec4<f32>(block >> vec4<u32>(8u)) * (1.0 / 16777216.0);
}

// The Philox key stored at in2[at..at + 4] as four 16-bit halves (high word first), each an
// f32 integer below 2^16: exact, where a bit cast could meet a NaN pattern a driver rewrites.
fn key_at(at: u32) -> vec2<u32> {
    return vec2<u32>((u32(in2[at]) << 16u) | u32(in2[at + 1u]),
                     (u32(in2[at + 2u]) << 16u) | u32(in2[at + 3u]));
}

// Whether this dispatch's epilogue draws (modes 2 and 3 of `finish_u`), i.e. reads uniforms.
fn draws() -> bool {
    return p.mode == 2u || p.mode == 3u;
}

// The epilogue of an element in column c with sum x, into out0[o] (and out1[o]): by p.mode
// 0: x; 1: 1/(1 + e^{−β(bias + x)}); 2: a Bernoulli draw of that, unit on iff
// u·(1 + e^{−β(bias + x)}) < 1; 3: as 2, the mean in out1; 4: β(bias + x). β = f0, the bias
// in2[bias + c]; u (read by modes 2 and 3 only) is the element's uniform, r·cols + c of the
// dispatch's draw.
fn finish_u(o: u32, c: u32, x: f32, bias: u32, u: f32) {
    if (p.mode == 0u) { out0[o] = x; return; }
    let a = p.f0 * (in2[bias + c] + x);
    if (p.mode == 4u) { out0[o] = a; return; }
    let one_plus = 1.0 + exp(-a);
    if (p.mode == 1u) { out0[o] = 1.0 / one_plus; return; }
    out0[o] = select(0.0, 1.0, u * one_plus < 1.0);
    if (p.mode == 3u) { out1[o] = 1.0 / one_plus; }
}

//! Every arm the machine has — the plain one included — forced in turn, against the plain
//! reference bit for bit, for every function of [`super`] and for their callers.

use super::*;
use crate::engine::cpu::kernels::{self, by_unit};
use crate::rng::{stream, uniform, Purpose, Rng};
use rand::Rng as _;

/// Runs `f` with `arm` forced on this thread, then the CPU's best again (also on a panic).
fn with_arm<T>(arm: Arm, f: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            force(None).expect("none is always available");
        }
    }
    force(Some(arm)).unwrap_or_else(|e| panic!("{arm:?} is available: {e:?}"));
    let _reset = Reset;
    f()
}

/// Values that take every branch of a compare or a clamp: 0 and 1 exactly, signed zeros, NaN,
/// ±∞, the clamps of the exponential (±87) and past them, subnormals, neighbours of 1.
const EDGES: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    87.0,
    -87.0,
    88.5,
    -88.5,
    1.0e-45,
    1.000_000_1,
    0.999_999_94,
];

/// A value drawn from [`EDGES`] one time in four, else uniform on (−`scale`, `scale`).
fn value(r: &mut Rng, scale: f32) -> f32 {
    if uniform(r) < 0.25 {
        EDGES[(uniform(r) * EDGES.len() as f32) as usize]
    } else {
        (2.0 * uniform(r) - 1.0) * scale
    }
}

/// Lengths around every vector width and its remainders, and longer ones.
fn lengths() -> impl Iterator<Item = usize> {
    (0..=41).chain([63, 64, 65, 100, 127, 128, 129, 1000, 1031])
}

/// The same bits; two NaNs count as equal whatever their payloads (which IEEE leaves to the
/// hardware when both operands of an addition are NaN, and whose operands a compiler may swap).
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn assert_same(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (j, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            same(*g, *w),
            "{what}: value {j}: {g} ({:#x}) vs {w} ({:#x})",
            g.to_bits(),
            w.to_bits()
        );
    }
}

#[test]
fn the_plain_arm_is_always_there_and_an_absent_arm_is_refused() {
    let arms = available();
    assert_eq!(arms[0], Arm::Plain, "{arms:?}");
    assert!(arms.iter().all(|a| a.native()), "{arms:?}");
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    assert!(arms.contains(&Arm::Sse2), "{arms:?}");
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    assert!(arms.contains(&Arm::Simd128), "{arms:?}");
    for arm in ALL {
        if arms.contains(&arm) {
            assert_eq!(force(Some(arm)), Ok(()));
            assert_eq!(forced(), Some(arm));
        } else {
            // Another target's arm, or one this CPU lacks: refused, and the forced arm stays.
            let before = forced();
            assert_eq!(force(Some(arm)), Err(Unavailable(arm)));
            assert_eq!(forced(), before);
        }
    }
    #[cfg(target_arch = "x86_64")]
    assert_eq!(force(Some(Arm::Simd128)), Err(Unavailable(Arm::Simd128)));
    #[cfg(target_arch = "wasm32")]
    assert_eq!(force(Some(Arm::Avx)), Err(Unavailable(Arm::Avx)));
    assert_eq!(force(None), Ok(()));
    assert_eq!(forced(), None);
    // Forcing is per thread: another thread still sees none.
    with_arm(Arm::Plain, || {
        assert!(!has(Arm::Sse2) && !has(Arm::Simd128));
        std::thread::spawn(|| assert_eq!(forced(), None))
            .join()
            .unwrap();
    });
    // A forced arm includes those below it on its target, never those above or elsewhere.
    let best = *arms.last().unwrap();
    with_arm(best, || {
        for &a in &arms {
            assert!(has(a), "{best:?} includes {a:?}");
        }
        for a in ALL.into_iter().filter(|a| !arms.contains(a)) {
            assert!(!has(a), "{best:?} excludes {a:?}");
        }
    });
}

/// The four-value compares and the uniforms of two outputs, on every arm.
#[test]
fn every_arm_gives_the_plain_bits_of_the_four_value_functions() {
    for arm in available() {
        with_arm(arm, || {
            let mut r = stream(26, 1, Purpose::Aux);
            for _ in 0..20_000 {
                let x: [f32; 4] = std::array::from_fn(|_| value(&mut r, 2.0));
                assert_eq!(
                    nonzero_not_one(&x),
                    plain::nonzero_not_one(&x),
                    "{arm:?} {x:?}"
                );
                let u: [f32; 4] = std::array::from_fn(|_| {
                    if uniform(&mut r) < 0.1 {
                        value(&mut r, 1.0)
                    } else {
                        uniform(&mut r)
                    }
                });
                let t: [f32; 4] = std::array::from_fn(|_| 1.0 + value(&mut r, 4.0).abs());
                assert_eq!(
                    below_one(&u, &t),
                    plain::below_one(&u, &t),
                    "{arm:?} {u:?} {t:?}"
                );
                let t = x.map(|x| x + 1.0);
                assert_eq!(
                    below_one(&u, &t),
                    plain::below_one(&u, &t),
                    "{arm:?} {u:?} {t:?}"
                );
                let (x0, x1) = (r.next_u64(), r.next_u64());
                let (got, want) = (
                    halves_to_uniforms(x0, x1),
                    plain::halves_to_uniforms(x0, x1),
                );
                assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "{arm:?}");
            }
            for (x0, x1) in [
                (0, 0),
                (u64::MAX, u64::MAX),
                (1 << 63, 0xFF),
                (0xFF, 1 << 31),
            ] {
                let (got, want) = (
                    halves_to_uniforms(x0, x1),
                    plain::halves_to_uniforms(x0, x1),
                );
                assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "{arm:?}");
            }
        });
    }
}

/// `1 + e^{−t}` in place on every arm, every length (the eights, fours and single values).
#[test]
fn every_arm_gives_the_plain_bits_of_the_exponential_map() {
    for arm in available() {
        with_arm(arm, || {
            let mut r = stream(26, 2, Purpose::Aux);
            for len in lengths() {
                for scale in [1.0, 30.0, 200.0] {
                    let a: Vec<f32> = (0..len).map(|_| value(&mut r, scale)).collect();
                    let (mut got, mut want) = (a.clone(), a.clone());
                    one_plus_exp_neg_in_place(&mut got);
                    plain::one_plus_exp_neg_in_place(&mut want);
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "{arm:?}, len {len}, {a:?}");
                    // And the caller, which is the map of the one-value function.
                    let mut caller = a.clone();
                    crate::math::one_plus_exp_neg_in_place(&mut caller);
                    assert_eq!(bits(&caller), bits(&want), "{arm:?}, len {len}");
                }
            }
        });
    }
}

/// The Xoshiro128+ lanes on every arm: the draws and the states they leave.
#[test]
fn every_arm_gives_the_plain_bits_of_the_generator_lanes() {
    for arm in available() {
        with_arm(arm, || {
            let mut r = stream(26, 3, Purpose::Aux);
            for steps in [0, 1, 2, 3, 7, 64, 129] {
                let s0: [[u32; 8]; 4] =
                    std::array::from_fn(|_| std::array::from_fn(|_| r.next_u32()));
                let (mut s, mut t) = (s0, s0);
                let (mut got, mut want) = (vec![0.5; 8 * steps], vec![0.5; 8 * steps]);
                xoshiro128p_fill(&mut s, &mut got);
                plain::xoshiro128p_fill(&mut t, &mut want);
                assert_eq!(s, t, "{arm:?}, {steps} steps");
                assert_same(&got, &want, &format!("{arm:?}, {steps} steps"));
            }
        });
    }
}

/// A block of `rows` rows of `w` values with large and small magnitudes (so that any other
/// order of the additions would show in the bits), some ±∞ and NaN.
fn block(r: &mut Rng, rows: usize, w: usize) -> Vec<f32> {
    (0..rows * w)
        .map(|_| match uniform(r) {
            p if p < 0.02 => value(r, 1.0),
            p if p < 0.3 => (2.0 * uniform(r) - 1.0) * 1.0e6,
            _ => (2.0 * uniform(r) - 1.0) * 1.0e-3,
        })
        .collect()
}

/// A bitset of `words` words over `rows` rows (no bit at or past `rows`), density `d`.
fn bitset(r: &mut Rng, words: usize, rows: usize, d: f32) -> Vec<u64> {
    let mut b = vec![0u64; words];
    for i in 0..rows.min(64 * words) {
        if uniform(r) < d {
            b[i / 64] |= 1 << (i % 64);
        }
    }
    b
}

const DENSITIES: [f32; 6] = [0.0, 0.02, 0.3, 0.5, 0.9, 1.0];

fn sums<const Q: usize>(arm: Arm, r: &mut Rng) {
    let w = 4 * Q;
    for rows in [1usize, 5, 63, 64, 65, 130, 200] {
        let blk = block(r, rows, w);
        let init: [[f32; 4]; Q] = std::array::from_fn(|_| std::array::from_fn(|_| value(r, 10.0)));
        for d in DENSITIES {
            // Bits from row 0, and a later block of words addressing rows from 64·word0.
            for word0 in [0, 1] {
                let words = rows.div_ceil(64).saturating_sub(word0);
                let bits = bitset(r, words, rows.saturating_sub(64 * word0), d);
                let got = sum_selected_bits(&init, &blk, word0, &bits);
                let want = plain::sum_selected_bits(&init, &blk, word0, &bits);
                let what = format!("{arm:?}, Q = {Q}, {rows} rows, density {d}, word0 {word0}");
                assert_same(got.as_flattened(), want.as_flattened(), &what);
                let caller = kernels::sum_selected_bits(&init, &blk, word0, &bits);
                assert_same(caller.as_flattened(), want.as_flattened(), &what);
            }
            for d1 in DENSITIES {
                let words = rows.div_ceil(64) + usize::from(d1 == 0.5);
                let bits = [bitset(r, words, rows, d), bitset(r, words, rows, d1)];
                let init2: [[[f32; 4]; Q]; 2] =
                    std::array::from_fn(|_| std::array::from_fn(|_| init[0].map(|x| -x)));
                let (mut got, mut want, mut caller) = (init2, init2, init2);
                let [g0, g1] = &mut got;
                sum_selected_bits2([g0, g1], &blk, [&bits[0], &bits[1]]);
                let [w0, w1] = &mut want;
                plain::sum_selected_bits2([w0, w1], &blk, [&bits[0], &bits[1]]);
                let [c0, c1] = &mut caller;
                by_unit::sum_selected_bits2([c0, c1], &blk, [&bits[0], &bits[1]]);
                let what = format!("{arm:?}, Q = {Q}, {rows} rows, densities {d} {d1}");
                let flat = |a: &[[[f32; 4]; Q]; 2]| a.as_flattened().as_flattened().to_vec();
                assert_same(&flat(&got), &flat(&want), &what);
                assert_same(&flat(&caller), &flat(&want), &what);
            }
        }
    }
}

/// The row sums of one and of two bitsets on every arm, for every width of 4 to 32 columns
/// (the AVX ones for Q = 8 and even Q, the paired SSE2 / SIMD128 ones up to Q = 4, one bitset at
/// a time above).
#[test]
fn every_arm_gives_the_plain_bits_of_the_row_sums() {
    for arm in available() {
        with_arm(arm, || {
            let mut r = stream(26, 4, Purpose::Aux);
            sums::<1>(arm, &mut r);
            sums::<2>(arm, &mut r);
            sums::<3>(arm, &mut r);
            sums::<4>(arm, &mut r);
            sums::<5>(arm, &mut r);
            sums::<6>(arm, &mut r);
            sums::<7>(arm, &mut r);
            sums::<8>(arm, &mut r);
        });
    }
}

/// A bit set past the block is refused on every arm (before any load).
#[test]
fn every_arm_refuses_a_bit_past_the_block() {
    for arm in available() {
        with_arm(arm, || {
            let blk = vec![1.0f32; 3 * 32];
            let one =
                std::panic::catch_unwind(|| sum_selected_bits(&[[0.0; 4]; 8], &blk, 0, &[1 << 3]));
            assert!(one.is_err(), "{arm:?}");
            let two = std::panic::catch_unwind(|| {
                let (mut a, mut b) = ([[0.0; 4]; 8], [[0.0; 4]; 8]);
                sum_selected_bits2([&mut a, &mut b], &blk, [&[1], &[1 << 3]]);
            });
            assert!(two.is_err(), "{arm:?}");
            assert_eq!(
                sum_selected_bits(&[[0.0; 4]; 8], &blk, 0, &[0b111]),
                [[3.0; 4]; 8]
            );
        });
    }
}

/// The callers of the dispatched functions (row masks and keys, keyed Bernoulli rows and
/// quads, batch masks, uniform fills) give on every arm what they give on the plain one.
#[test]
fn every_arm_gives_the_callers_the_plain_bits() {
    /// Everything the callers return, as bits.
    fn outputs(seed: u64) -> Vec<u64> {
        let mut r = stream(26, seed, Purpose::Aux);
        let mut out = Vec::new();
        // Masks of rows of every length, 0/1 or with a grey, NaN or ±∞ value.
        for len in lengths().filter(|&l| l > 0) {
            for grey in [0.0, 0.05] {
                let x: Vec<f32> = (0..len)
                    .map(|_| {
                        if uniform(&mut r) < grey {
                            value(&mut r, 2.0)
                        } else {
                            f32::from(uniform(&mut r) < 0.5)
                        }
                    })
                    .collect();
                let mut bits = vec![u64::MAX; len.div_ceil(64)];
                out.push(u64::from(kernels::row_mask(&x, &mut bits)));
                out.extend(&bits);
            }
        }
        // Keys of rows of every width up to 32.
        for width in 1..=32 {
            for grey in [0.0, 0.02] {
                let rows: Vec<f32> = (0..9 * width)
                    .map(|_| {
                        if uniform(&mut r) < grey {
                            value(&mut r, 2.0)
                        } else {
                            f32::from(uniform(&mut r) < 0.5)
                        }
                    })
                    .collect();
                let mut keys = Vec::new();
                let binary = kernels::row_keys(&rows, width, &mut keys);
                out.push(u64::from(binary));
                if binary {
                    out.extend(keys.iter().map(|&k| u64::from(k)));
                }
            }
        }
        // Batch masks.
        for m in [1usize, 4, 7, 8, 16, 20, 32, 64, 65, 130] {
            for grey in [0.0, 0.01] {
                let rows = 37;
                let v: Vec<f32> = (0..rows * m)
                    .map(|_| {
                        if uniform(&mut r) < grey {
                            value(&mut r, 2.0)
                        } else {
                            f32::from(uniform(&mut r) < 0.5)
                        }
                    })
                    .collect();
                let mut bits = vec![u64::MAX; rows * m.div_ceil(64)];
                out.push(u64::from(by_unit::rows_mask(&v, m, &mut bits)));
                out.extend(&bits);
            }
        }
        // Keyed Bernoulli rows and quads, thresholds with +∞ pads, NaN and clamps.
        for len in lengths() {
            let u: Vec<f32> = (0..len).map(|_| uniform(&mut r)).collect();
            let t: Vec<f32> = (0..len).map(|_| 1.0 + value(&mut r, 3.0).abs()).collect();
            let mut x = vec![0.5; len];
            out.push(kernels::bernoulli_row_key(&mut x, &u, &t));
            out.extend(x.iter().map(|x| u64::from(x.to_bits())));
            let (u, t) = (&u[..], &t[..]);
            if len >= 32 {
                out.push(kernels::bernoulli_quads::<1>(u, t));
                out.push(kernels::bernoulli_quads::<2>(u, t));
                out.push(kernels::bernoulli_quads::<3>(u, t));
                out.push(kernels::bernoulli_quads::<4>(u, t));
                out.push(kernels::bernoulli_quads::<8>(u, t));
            }
        }
        // Uniform fills, short (two draws per output) and wide (the sub-streams).
        for len in lengths().chain([crate::rng::WIDE_MIN + 13, 5000]) {
            let mut u = vec![0.0; len];
            crate::rng::fill_uniform(&mut r, &mut u);
            out.extend(u.iter().map(|x| u64::from(x.to_bits())));
        }
        out
    }
    let want = with_arm(Arm::Plain, || outputs(5));
    for arm in available() {
        let got = with_arm(arm, || outputs(5));
        assert_eq!(got.len(), want.len(), "{arm:?}");
        let first = got.iter().zip(&want).position(|(g, w)| g != w);
        assert_eq!(first, None, "{arm:?}: first difference");
    }
}

//! Exact log-partition function, log-likelihood, model distribution and gradient by
//! enumeration (docs/algorithms.md §2), in f64.
//!
//! `log Z` sums over the 2^k states of the smaller layer in Gray-code order: each next state
//! flips one unit, so the other layer's pre-activations change by one row add or subtract.
//! Ranges of the enumeration are independent and merge with one log-sum-exp, so callers can
//! split the work across threads or Web Workers ([`log_z_range`]).

use crate::data::{decode, Dataset};
use crate::error::{Error, Result};
use crate::math::{log_sigmoid, softplus_sum, LogSumExp};
use crate::model::{Params, Rbm};
use crate::rng::{stream, uniform_f64, Purpose};

/// Largest layer the core enumerates for log Z: 2^30 states (on one native core, 784×25 takes
/// about 12 s with the product walk, so 784×30 about 6 min); beyond it, exact evaluation is
/// refused.
pub const MAX_ENUM_BITS: usize = 30;

/// Largest visible layer for which the full model distribution over 2^m patterns is built.
pub const MAX_DIST_BITS: usize = 20;

/// Which layer an enumeration walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// Enumerate v ∈ {0,1}^m.
    Visible,
    /// Enumerate h ∈ {0,1}^n.
    Hidden,
}

/// The layer [`log_z`] enumerates: the smaller one (hidden on ties).
pub fn smaller_layer(rbm: &Rbm) -> Layer {
    if rbm.n() <= rbm.m() {
        Layer::Hidden
    } else {
        Layer::Visible
    }
}

/// Fails with a clear message if enumerating `bits` units exceeds `limit`.
pub fn check_enumerable(bits: usize, limit: usize, what: &str) -> Result<()> {
    if bits > limit {
        Err(Error::TooLarge(format!(
            "{what} needs 2^{bits} states; exact enumeration is limited to 2^{limit}"
        )))
    } else {
        Ok(())
    }
}

/// The Gray code of t: consecutive codes differ in exactly one bit.
#[inline]
pub fn gray(t: u64) -> u64 {
    t ^ (t >> 1)
}

/// The layer view of an enumeration: `x` is the enumerated layer (size k), `y` the summed-out
/// one (size l); `rows[x*l..]` are the weights of unit x of the enumerated layer.
pub(crate) struct View<'a> {
    pub(crate) k: usize,
    pub(crate) l: usize,
    pub(crate) bias_x: Vec<f64>,
    pub(crate) bias_y: Vec<f64>,
    pub(crate) rows: Vec<f64>,
    _m: std::marker::PhantomData<&'a ()>,
}

pub(crate) fn view(rbm: &Rbm, layer: Layer) -> View<'static> {
    let f = |xs: &[f32]| xs.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    match layer {
        Layer::Hidden => View {
            k: rbm.n(),
            l: rbm.m(),
            bias_x: f(&rbm.c),
            bias_y: f(&rbm.b),
            rows: f(rbm.wt()),
            _m: Default::default(),
        },
        Layer::Visible => View {
            k: rbm.m(),
            l: rbm.n(),
            bias_x: f(&rbm.b),
            bias_y: f(&rbm.c),
            rows: f(rbm.w()),
            _m: Default::default(),
        },
    }
}

/// Walks Gray codes `gray(t)` for t in `start..end`, calling `f(code, lin, pre)` where
/// `lin = bias_xᵀx` and `pre = bias_y + Σ_x rows[x]` for the current state x.
pub(crate) fn walk(v: &View, start: u64, end: u64, mut f: impl FnMut(u64, f64, &[f64])) {
    if start >= end {
        return;
    }
    let mut code = gray(start);
    let mut pre = v.bias_y.clone();
    let mut lin = 0.0;
    for x in 0..v.k {
        if (code >> x) & 1 == 1 {
            lin += v.bias_x[x];
            pre.iter_mut()
                .zip(&v.rows[x * v.l..(x + 1) * v.l])
                .for_each(|(p, r)| *p += r);
        }
    }
    f(code, lin, &pre);
    for t in start + 1..end {
        let x = t.trailing_zeros() as usize;
        let row = &v.rows[x * v.l..(x + 1) * v.l];
        code ^= 1 << x;
        if (code >> x) & 1 == 1 {
            lin += v.bias_x[x];
            pre.iter_mut().zip(row).for_each(|(p, r)| *p += r);
        } else {
            lin -= v.bias_x[x];
            pre.iter_mut().zip(row).for_each(|(p, r)| *p -= r);
        }
        f(code, lin, &pre);
    }
}

/// Unnormalised log-marginal of a state of the enumerated layer: `lin + Σ softplus(pre)`.
#[inline]
pub(crate) fn log_marginal(lin: f64, pre: &[f64]) -> f64 {
    lin + softplus_sum(pre)
}

/// Partial log Z over Gray-code indices `start..end` of `layer`; merge partials with
/// [`LogSumExp::merge`]. Ranges of `0..2^k` may be computed in any order or in parallel.
///
/// When the summed-out layer has at least [`PRODUCT_WALK_FROM`] units (MNIST's 784 visible
/// units), the range is walked by [`product_walk`] (one multiply per unit and state instead
/// of an exponential) if its pre-activations stay in the range that walk needs, else by the
/// softplus walk. The choice depends only on the model and the range, so a split into
/// [`blocks`] gives the same bits on any number of threads or workers.
pub fn log_z_range(rbm: &Rbm, layer: Layer, start: u64, end: u64) -> LogSumExp {
    let v = view(rbm, layer);
    if v.l >= PRODUCT_WALK_FROM {
        if let Some(acc) = product_walk(&v, start, end) {
            return acc;
        }
    } else if let Some(acc) = split_walk(&v, start, end) {
        return acc;
    }
    let mut acc = LogSumExp::default();
    walk(&v, start, end, |_, lin, pre| {
        acc.add(log_marginal(lin, pre))
    });
    acc
}

/// Width of the summed-out layer from which [`log_z_range`] uses the product walk; narrower
/// layers (every small data set) take the [`split_walk`].
pub const PRODUCT_WALK_FROM: usize = 64;

/// The split walk refuses a range whose terms may span more than this many nats within one
/// outer state (so that no term of its linear-scale sums leaves f64's normal range).
const SPLIT_MAX_SPAN: f64 = 600.0;

/// For every state s of the `count` enumerated units from `first` (bit j of s = unit
/// `first + j`): the summed-out layer's pre-activations `pre0 + Σ_{x on} rows[x]` (row s of
/// the first table, `l` values) and `lin0 + Σ_{x on} bias_x[x]` (the second), each state
/// from s without its lowest unit.
fn subset_sums(
    v: &View,
    first: usize,
    count: usize,
    pre0: &[f64],
    lin0: f64,
) -> (Vec<f64>, Vec<f64>) {
    let (l, states) = (v.l, 1usize << count);
    let mut pre = vec![0.0f64; states * l];
    let mut lin = vec![0.0f64; states];
    pre[..l].copy_from_slice(pre0);
    lin[0] = lin0;
    for s in 1..states {
        let (x, prev) = (first + s.trailing_zeros() as usize, s & (s - 1));
        lin[s] = lin[prev] + v.bias_x[x];
        let (lo, hi) = pre.split_at_mut(s * l);
        hi[..l]
            .iter_mut()
            .zip(&lo[prev * l..(prev + 1) * l])
            .zip(&v.rows[x * l..(x + 1) * l])
            .for_each(|((b, &q), &r)| *b = q + r);
    }
    (pre, lin)
}

/// Exact log Z over an aligned range of the enumeration in linear scale, for narrow summed-out
/// layers (the small models of the page: 16×16 in well under a millisecond).
///
/// An aligned range `start..start + 2^p` (start a multiple of 2^p) holds every state of the
/// enumerated units below p with the units from p up fixed to those of `gray(start)` (Gray
/// indices of one aligned range share their high code bits). Those p units split into `p_in`
/// inner and `p_out` outer ones. With the summed-out layer's pre-activations
/// `a_i = base_i(o) + B_i(s)` (o the outer, s the inner state), docs/algorithms.md §2's
/// marginal is `e^{lin(o) + cin(s)} Π_i (1 + e^{a_i})`, and with `S_i = max(0, base_i +
/// max_s B_i)` each factor is `e^{S_i} (e^{−S_i} + e^{base_i − S_i} e^{B_i(s)})`, where the
/// bracket lies in `[e^{−(max B_i − min B_i)}, 2]`. So per outer state
///
/// `ln Σ_s term = lin(o) + max cin + Σ_i S_i + ln Σ_s e^{cin(s) − max cin} Π_i (α_i + β_i E_is)`
///
/// with `E_is = e^{B_i(s)}` tabulated once, `α_i = e^{−S_i}`, `β_i = e^{base_i − S_i}`: one
/// multiply-add and one multiply per unit and state, vectorised over the inner states, and
/// one log per outer state (merged with [`LogSumExp`]). Every term stays above
/// `e^{−SPLIT_MAX_SPAN}` relative to its outer state's scale, so no term loses precision;
/// each product carries a relative error of a few ulps per unit (≈ 10⁻¹⁴ on 16 units), far
/// below the 10⁻⁹ a test allows against a straightforward sum. IEEE operations and `libm`
/// only, in a fixed order: the same bits natively and in wasm, on any split into blocks.
///
/// Returns `None` (walk with softplus instead) for unaligned ranges, non-finite parameters,
/// or inner-unit weights spanning more than [`SPLIT_MAX_SPAN`].
fn split_walk(v: &View, start: u64, end: u64) -> Option<LogSumExp> {
    let (k, l) = (v.k, v.l);
    let len = end.checked_sub(start)?;
    if len == 0 || !len.is_power_of_two() || !start.is_multiple_of(len) || len > BLOCK_STATES {
        return None;
    }
    let p = len.trailing_zeros() as usize;
    if p > k {
        return None;
    }
    let (p_in, p_out) = (p.div_ceil(2), p / 2);
    let (n_in, n_out) = (1usize << p_in, 1usize << p_out);
    // The fixed units (from p up) of this range.
    let high = gray(start) >> p << p;
    let mut base0 = v.bias_y.clone();
    let mut lin0 = 0.0;
    for x in p..k {
        if (high >> x) & 1 == 1 {
            lin0 += v.bias_x[x];
            base0
                .iter_mut()
                .zip(&v.rows[x * l..(x + 1) * l])
                .for_each(|(a, r)| *a += r);
        }
    }
    // Inner states: B(s) and cin(s).
    let (b_in, cin) = subset_sums(v, 0, p_in, &vec![0.0; l], 0.0);
    let range = |xs: &mut dyn Iterator<Item = f64>| {
        xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        })
    };
    let (cin_lo, cin_hi) = range(&mut cin.iter().copied());
    let mut max_b = vec![0.0f64; l];
    let mut span = cin_hi - cin_lo;
    for (i, mb) in max_b.iter_mut().enumerate() {
        let (lo, hi) = range(&mut (0..n_in).map(|s| b_in[s * l + i]));
        *mb = hi;
        span += hi - lo;
    }
    if span.is_nan()
        || span >= SPLIT_MAX_SPAN
        || !base0.iter().all(|a| a.is_finite())
        || !lin0.is_finite()
    {
        return None;
    }
    // E_is = e^{B_i(s)}, unit-major so the inner loop runs over states.
    let mut e = vec![0.0f64; l * n_in];
    for s in 0..n_in {
        for i in 0..l {
            e[i * n_in + s] = libm::exp(b_in[s * l + i]);
        }
    }
    let w_in: Vec<f64> = cin.iter().map(|&c| libm::exp(c - cin_hi)).collect();
    let beta_top: Vec<f64> = max_b.iter().map(|&mb| libm::exp(-mb)).collect();
    // Outer states: base(o) and lin(o).
    let (base, lin) = subset_sums(v, p_in, p_out, &base0, lin0);
    let mut prod = vec![0.0f64; n_in];
    let mut acc = LogSumExp::default();
    for o in 0..n_out {
        prod.fill(1.0);
        let mut scale = lin[o] + cin_hi;
        for i in 0..l {
            let a = base[o * l + i];
            let top = a + max_b[i];
            let (alpha, beta) = if top > 0.0 {
                scale += top;
                (libm::exp(-top), beta_top[i])
            } else {
                (1.0, libm::exp(a))
            };
            prod.iter_mut()
                .zip(&e[i * n_in..(i + 1) * n_in])
                .for_each(|(p, &x)| *p *= alpha + beta * x);
        }
        let mut sums = [0.0f64; 4];
        let mut quads = prod.chunks_exact(4).zip(w_in.chunks_exact(4));
        for (ps, ws) in &mut quads {
            for t in 0..4 {
                sums[t] += ws[t] * ps[t];
            }
        }
        let tail: f64 = prod[n_in / 4 * 4..]
            .iter()
            .zip(&w_in[n_in / 4 * 4..])
            .map(|(p, w)| p * w)
            .sum();
        let sum = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + tail;
        acc.merge(LogSumExp::from_parts(scale, sum));
    }
    Some(acc)
}

/// f64 lanes of the product walk (independent running products, combined at each state).
const LANES: usize = 8;

/// A range is refused by the product walk (and walked by softplus) when a pre-activation can
/// exceed this within it: factors `1 + e^a` must stay far from f64's range.
const PRODUCT_MAX_PRE: f64 = 170.0;

/// … or when a pre-activation can move by more than this within the range (so that every
/// factor the walk keeps stays a normal f64; see [`product_walk`]).
const PRODUCT_MAX_SPAN: f64 = 100.0;

/// Below this a pre-activation's factor `1 + e^a` is taken as 1 (`e^a < 10⁻²⁶⁰`).
const PRODUCT_NEGLIGIBLE: f64 = -600.0;

/// Σ_i softplus(a_i) = ln Π_i (1 + E_i) for the lanes of `e` (E_i = e^{a_i}), after
/// multiplying each E_i by `tab[i]` when given (one Gray-code flip). Each lane's running
/// product is brought back to [1, 2) every `G` rows, its binary exponent counted apart, so
/// nothing overflows when every factor is below 2^((1023/G − 1)).
#[inline(always)]
fn product_sum<const G: usize>(e: &mut [[f64; LANES]], tab: Option<&[[f64; LANES]]>) -> f64 {
    const MANT: u64 = (1 << 52) - 1;
    const ONE: u64 = 1023 << 52;
    let mut p = [1.0f64; LANES];
    let mut ex = [0i64; LANES];
    let mut renorm = |p: &mut [f64; LANES]| {
        for j in 0..LANES {
            let b = p[j].to_bits();
            ex[j] += (b >> 52) as i64 - 1023;
            p[j] = f64::from_bits((b & MANT) | ONE);
        }
    };
    match tab {
        Some(tab) => {
            for (es, ts) in e.chunks_mut(G).zip(tab.chunks(G)) {
                for (er, tr) in es.iter_mut().zip(ts) {
                    for j in 0..LANES {
                        let x = er[j] * tr[j];
                        er[j] = x;
                        p[j] *= 1.0 + x;
                    }
                }
                renorm(&mut p);
            }
        }
        None => {
            for es in e.chunks(G) {
                for er in es {
                    for j in 0..LANES {
                        p[j] *= 1.0 + er[j];
                    }
                }
                renorm(&mut p);
            }
        }
    }
    let prod = ((p[0] * p[1]) * (p[2] * p[3])) * ((p[4] * p[5]) * (p[6] * p[7]));
    let bits: i64 = ex.iter().sum();
    bits as f64 * std::f64::consts::LN_2 + libm::log(prod)
}

/// The product walk of [`log_z_range`]: log Z over Gray-code indices `start..end` keeping
/// `E_i = e^{a_i}` for the summed-out layer's pre-activations `a` instead of `a` itself.
///
/// docs/algorithms.md §2 sums `lin + Σ_i softplus(a_i)` over the enumerated states, updating
/// `a` by one row per Gray-code flip. Since `softplus(a) = ln(1 + e^a)` and a flip of unit x
/// adds `±w_x` to `a`, `E_i` follows by one multiplication by the tabulated `e^{±w_{x,i}}`, and
/// the sum over i is the logarithm of a product, taken once per state (binary exponents kept
/// apart, see [`product_sum`]). This trades one exponential per unit and state for one
/// multiplication: about ten times faster on 784×25. Every operation is an IEEE f64 operation
/// or `libm` (exp and log), so native and wasm give the same bits.
///
/// Accuracy: `E` is recomputed with `libm::exp` at the start of each range and multiplied at
/// most `end − start` times since, so its relative error is below (end − start)·2⁻⁵² (≈ 10⁻¹¹
/// for a 2^16-state block), and so is the absolute error of each `ln(1 + E_i)`; a test bounds
/// the difference from the softplus walk on 784-unit layers (far below the 10⁻⁶ nats issue 7
/// allows for a faster path).
///
/// Returns `None` (walk with softplus instead) when a pre-activation could leave the range
/// the walk needs within this range of states: above [`PRODUCT_MAX_PRE`], or moving by more
/// than [`PRODUCT_MAX_SPAN`]. Within `start..end` only units up to the highest bit in which
/// `start` and `end − 1` differ can flip, so `a_i` stays within `a_i(start) ± Σ_x |w_{x,i}|`
/// over those units.
fn product_walk(v: &View, start: u64, end: u64) -> Option<LogSumExp> {
    if start >= end {
        return Some(LogSumExp::default());
    }
    let (k, l) = (v.k, v.l);
    let rows_l = l.div_ceil(LANES);
    let mut code = gray(start);
    let mut pre = v.bias_y.clone();
    let mut lin = 0.0;
    for x in 0..k {
        if (code >> x) & 1 == 1 {
            lin += v.bias_x[x];
            pre.iter_mut()
                .zip(&v.rows[x * l..(x + 1) * l])
                .for_each(|(p, r)| *p += r);
        }
    }
    let flips = if end - start > 1 {
        64 - (start ^ (end - 1)).leading_zeros() as usize
    } else {
        0
    };
    let flips = flips.min(k);
    let mut span = vec![0.0f64; l];
    for x in 0..flips {
        span.iter_mut()
            .zip(&v.rows[x * l..(x + 1) * l])
            .for_each(|(s, r)| *s += r.abs());
    }
    let mut top = f64::NEG_INFINITY;
    for (&a, &s) in pre.iter().zip(&span) {
        if !(a + s <= PRODUCT_MAX_PRE && s <= PRODUCT_MAX_SPAN / 2.0) {
            return None;
        }
        top = top.max(a + s);
    }
    // E_i, padded with zeros (factor 1) to whole rows of lanes.
    let mut e = vec![[0.0f64; LANES]; rows_l];
    for (i, (&a, &s)) in pre.iter().zip(&span).enumerate() {
        if a + s >= PRODUCT_NEGLIGIBLE {
            e[i / LANES][i % LANES] = libm::exp(a);
        }
    }
    // e^{+w} and e^{−w} of the units that flip, padded with ones.
    let table = |sign: f64| -> Vec<[f64; LANES]> {
        let mut t = vec![[1.0f64; LANES]; flips * rows_l];
        for x in 0..flips {
            for (i, &w) in v.rows[x * l..(x + 1) * l].iter().enumerate() {
                t[x * rows_l + i / LANES][i % LANES] = libm::exp(sign * w);
            }
        }
        t
    };
    let (up, down) = (table(1.0), table(-1.0));
    // Every factor is below 2·e^top; G rows per renormalisation keep the lanes finite.
    let top2 = 1.0 + top.max(0.0) / std::f64::consts::LN_2;
    let g = [64usize, 16, 4]
        .into_iter()
        .find(|&g| 1.0 + g as f64 * top2 < 1023.0)?;
    let sum = |e: &mut [[f64; LANES]], tab: Option<&[[f64; LANES]]>| match g {
        64 => product_sum::<64>(e, tab),
        16 => product_sum::<16>(e, tab),
        _ => product_sum::<4>(e, tab),
    };
    let mut acc = LogSumExp::default();
    acc.add(lin + sum(&mut e, None));
    for t in start + 1..end {
        let x = t.trailing_zeros() as usize;
        code ^= 1 << x;
        let rows = x * rows_l..(x + 1) * rows_l;
        let tab = if (code >> x) & 1 == 1 {
            lin += v.bias_x[x];
            &up[rows]
        } else {
            lin -= v.bias_x[x];
            &down[rows]
        };
        acc.add(lin + sum(&mut e, Some(tab)));
    }
    Some(acc)
}

/// States per block of an enumeration: log Z is the ordered merge of per-block partial sums, so
/// any split of the blocks over threads or workers gives the same bits as one thread.
pub const BLOCK_STATES: u64 = 1 << 16;

/// The Gray-code index ranges of the blocks of a 2^k enumeration, in merge order.
pub fn blocks(k: usize) -> impl Iterator<Item = (u64, u64)> {
    let total = 1u64 << k;
    (0..total.div_ceil(BLOCK_STATES))
        .map(move |b| (b * BLOCK_STATES, ((b + 1) * BLOCK_STATES).min(total)))
}

/// Exact log Z, enumerating the smaller layer block by block; refused beyond [`MAX_ENUM_BITS`].
pub fn log_z(rbm: &Rbm) -> Result<f64> {
    merge_blocks(rbm, &log_z_blocks(rbm, 0, block_count(rbm)?)?)
}

/// How many [`blocks`] the enumeration of `rbm`'s smaller layer has (refused beyond
/// [`MAX_ENUM_BITS`]): the units of work a shell may spread over threads or Web Workers.
pub fn block_count(rbm: &Rbm) -> Result<usize> {
    let (_, k) = enumeration(rbm)?;
    Ok(blocks(k).count())
}

/// The partial sums of blocks `from..to` of the enumeration of `rbm`'s smaller layer, one per
/// block, in order. A pool of workers computes disjoint runs of blocks and
/// [`merge_blocks`] merges all of them in block order, so log Z has the bits of [`log_z`]
/// whatever the split (docs/algorithms.md §2).
pub fn log_z_blocks(rbm: &Rbm, from: usize, to: usize) -> Result<Vec<LogSumExp>> {
    let (layer, k) = enumeration(rbm)?;
    let ranges: Vec<(u64, u64)> = blocks(k).collect();
    if from > to || to > ranges.len() {
        return Err(Error::Invalid(format!(
            "blocks {from}..{to} do not exist (the enumeration has {} blocks)",
            ranges.len()
        )));
    }
    Ok(ranges[from..to]
        .iter()
        .map(|&(a, b)| log_z_range(rbm, layer, a, b))
        .collect())
}

/// log Z from the partial sums of every block of `rbm`'s enumeration, merged in block order
/// (the bits of [`log_z`]); fails unless there is one partial per block.
pub fn merge_blocks(rbm: &Rbm, parts: &[LogSumExp]) -> Result<f64> {
    let want = block_count(rbm)?;
    if parts.len() != want {
        return Err(Error::Invalid(format!(
            "log Z needs the partial sums of {want} blocks, got {}",
            parts.len()
        )));
    }
    let mut acc = LogSumExp::default();
    parts.iter().for_each(|&p| acc.merge(p));
    Ok(acc.value())
}

/// [`log_z`] on `threads` threads (native only); the same bits as [`log_z`].
#[cfg(not(target_arch = "wasm32"))]
pub fn log_z_threaded(rbm: &Rbm, threads: usize) -> Result<f64> {
    let (layer, k) = enumeration(rbm)?;
    let ranges: Vec<(u64, u64)> = blocks(k).collect();
    let threads = threads.clamp(1, ranges.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut parts = vec![LogSumExp::default(); ranges.len()];
    let done: Vec<Vec<(usize, LogSumExp)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(a, b)) = ranges.get(i) else {
                            break mine;
                        };
                        mine.push((i, log_z_range(rbm, layer, a, b)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("log Z worker"))
            .collect()
    });
    for (i, p) in done.into_iter().flatten() {
        parts[i] = p;
    }
    let mut acc = LogSumExp::default();
    parts.into_iter().for_each(|p| acc.merge(p));
    Ok(acc.value())
}

/// The layer [`log_z`] enumerates and its size, refused beyond [`MAX_ENUM_BITS`].
fn enumeration(rbm: &Rbm) -> Result<(Layer, usize)> {
    let k = rbm.m().min(rbm.n());
    check_enumerable(k, MAX_ENUM_BITS, "exact log Z")?;
    Ok((smaller_layer(rbm), k))
}

/// Fails unless the patterns of `data` have as many units as `rbm` has visible units.
pub fn check_fit(rbm: &Rbm, data: &Dataset) -> Result<()> {
    if data.m != rbm.m() {
        return Err(Error::Invalid(format!(
            "data set '{}' has {} units per pattern but the model has {} visible units",
            data.name,
            data.m,
            rbm.m()
        )));
    }
    Ok(())
}

/// Exact average log-likelihood `(1/N) Σ log p(v_r)` of the rows of `data` given `log_z`.
pub fn average_log_likelihood(rbm: &Rbm, data: &Dataset, log_z: f64) -> Result<f64> {
    check_fit(rbm, data)?;
    let n = data.rows();
    Ok((0..n).map(|r| -rbm.free_energy(data.row(r))).sum::<f64>() / n as f64 - log_z)
}

/// What the page and the CLI show about a small model.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Evaluation {
    /// Exact log Z.
    pub log_z: f64,
    /// Exact average log-likelihood of the data set (ATLL).
    pub atll: f64,
    /// Number of rows averaged.
    pub rows: usize,
    /// The data set's bound (−entropy), when binary.
    pub bound: Option<f64>,
    /// KL(data‖model) = −H(data) − ATLL, when the bound is known.
    pub kl: Option<f64>,
}

/// Exact log Z and ATLL of `data` (and KL when the data are binary).
pub fn evaluate(rbm: &Rbm, data: &Dataset) -> Result<Evaluation> {
    evaluate_given(rbm, data, log_z(rbm)?)
}

/// [`evaluate`] with a log Z computed elsewhere (e.g. by [`log_z_threaded`] or by workers).
pub fn evaluate_given(rbm: &Rbm, data: &Dataset, log_z: f64) -> Result<Evaluation> {
    let atll = average_log_likelihood(rbm, data, log_z)?;
    let bound = data.bound();
    Ok(Evaluation {
        log_z,
        atll,
        rows: data.rows(),
        bound,
        kl: bound.map(|b| b - atll),
    })
}

/// Refuses [`model_distribution`] of a model with m visible units beyond [`MAX_DIST_BITS`].
pub fn check_distribution(m: usize) -> Result<()> {
    check_enumerable(
        m,
        MAX_DIST_BITS,
        "the model distribution over visible patterns",
    )
}

/// The full model distribution p(v) over all 2^m visible patterns (index = pattern code with
/// bit i = unit i), for m ≤ [`MAX_DIST_BITS`].
pub fn model_distribution(rbm: &Rbm) -> Result<Vec<f64>> {
    let m = rbm.m();
    check_distribution(m)?;
    let log_z = log_z(rbm)?;
    let v = view(rbm, Layer::Visible);
    let mut p = vec![0.0f64; 1 << m];
    walk(&v, 0, 1u64 << m, |code, lin, pre| {
        p[code as usize] = libm::exp(log_marginal(lin, pre) - log_z)
    });
    Ok(p)
}

/// `rows` independent exact draws from p(v) of a model with at most [`MAX_DIST_BITS`] hidden
/// units, as a binary data set named "samples": h from its marginal `p(h) ∝ exp(cᵀh) Π_i (1 +
/// e^{b_i + (Wh)_i})` by enumeration (docs/algorithms.md §2), then `v ~ p(v|h)`, from
/// `stream(seed, 7, Data)`. Test data on which the average log-likelihood is that of the model's
/// own distribution: there `E[log p_ann(v)] ≤ E[log p(v)]` (KL(p‖p_ann) ≥ 0), so RAISE's lower
/// bound (Burda, Grosse & Salakhutdinov 2015, §3) holds in expectation however short the
/// annealing.
pub fn samples(rbm: &Rbm, rows: usize, seed: u64) -> Result<Dataset> {
    let (m, n) = (rbm.m(), rbm.n());
    check_enumerable(n, MAX_DIST_BITS, "exact samples of the hidden layer")?;
    let mut log_p = vec![0.0f64; 1 << n];
    walk(&view(rbm, Layer::Hidden), 0, 1u64 << n, |code, lin, pre| {
        log_p[code as usize] = log_marginal(lin, pre)
    });
    let top = log_p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = log_p.iter().map(|x| libm::exp(x - top)).collect();
    let total: f64 = w.iter().sum();
    let mut r = stream(seed, 7, Purpose::Data);
    let mut pre = vec![0.0f32; m];
    let out: Vec<Vec<u8>> = (0..rows)
        .map(|_| {
            let mut u = uniform_f64(&mut r) * total;
            let code = w
                .iter()
                .position(|&wk| {
                    u -= wk;
                    u < 0.0
                })
                .unwrap_or(w.len() - 1);
            let h: Vec<f32> = (0..n).map(|j| ((code >> j) & 1) as f32).collect();
            rbm.visible_pre(&h, &mut pre);
            pre.iter()
                .map(|&a| u8::from(uniform_f64(&mut r) < 1.0 / (1.0 + libm::exp(-(a as f64)))))
                .collect()
        })
        .collect();
    Dataset::from_rows("samples", &out, None)
}

/// log p(v) for each distinct pattern of `data`, with its count, in order of first appearance.
pub fn pattern_log_probs(rbm: &Rbm, data: &Dataset, log_z: f64) -> Vec<(u64, usize, f64)> {
    data.distinct()
        .into_iter()
        .map(|(code, count)| (code, count, -rbm.free_energy(&decode(code, data.m)) - log_z))
        .collect()
}

/// Exact E_model[s] = (E[v hᵀ], E[v], E[h]) by enumerating the smaller layer.
// Index loops: the same index walks the statistics and the state at once.
#[allow(clippy::needless_range_loop)]
pub fn model_expectation(rbm: &Rbm) -> Result<Params<f64>> {
    let (m, n) = (rbm.m(), rbm.n());
    let layer = smaller_layer(rbm);
    let k = m.min(n);
    check_enumerable(k, MAX_DIST_BITS + 4, "the exact model expectation")?;
    let log_z = log_z(rbm)?;
    let v = view(rbm, layer);
    let mut e = Params::<f64>::zeros(m, n);
    let mut cond = vec![0.0f64; v.l];
    walk(&v, 0, 1u64 << k, |code, lin, pre| {
        let p = libm::exp(log_marginal(lin, pre) - log_z);
        cond.iter_mut()
            .zip(pre)
            .for_each(|(c, &a)| *c = libm::exp(log_sigmoid(a)));
        for x in 0..k {
            if (code >> x) & 1 == 0 {
                continue;
            }
            match layer {
                // x is hidden unit j, cond[i] = p(v_i=1|h).
                Layer::Hidden => {
                    e.c[x] += p;
                    for i in 0..m {
                        e.w[i * n + x] += p * cond[i];
                    }
                }
                // x is visible unit i, cond[j] = p(h_j=1|v).
                Layer::Visible => {
                    e.b[x] += p;
                    for j in 0..n {
                        e.w[x * n + j] += p * cond[j];
                    }
                }
            }
        }
        let other = if layer == Layer::Hidden {
            &mut e.b
        } else {
            &mut e.c
        };
        other.iter_mut().zip(&cond).for_each(|(o, &c)| *o += p * c);
    });
    Ok(e)
}

/// Exact E_data[s] over the rows of `data`, with E[h|v] in f64.
// Index loops: the same index walks the statistics and the state at once.
#[allow(clippy::needless_range_loop)]
pub fn data_expectation(rbm: &Rbm, data: &Dataset) -> Params<f64> {
    let (m, n) = (rbm.m(), rbm.n());
    let mut e = Params::<f64>::zeros(m, n);
    let rows = data.rows();
    for r in 0..rows {
        let v = data.row(r);
        for j in 0..n {
            let a = rbm.c[j] as f64
                + (0..m)
                    .map(|i| v[i] as f64 * rbm.w()[i * n + j] as f64)
                    .sum::<f64>();
            let h = libm::exp(log_sigmoid(a));
            e.c[j] += h;
            for i in 0..m {
                e.w[i * n + j] += v[i] as f64 * h;
            }
        }
        e.b.iter_mut().zip(v).for_each(|(b, &x)| *b += x as f64);
    }
    for blk in e.blocks_mut() {
        blk.iter_mut().for_each(|x| *x /= rows as f64);
    }
    e
}

/// The exact gradient of the average log-likelihood: E_data[s] − E_model[s].
pub fn gradient(rbm: &Rbm, data: &Dataset) -> Result<Params<f64>> {
    let mut g = data_expectation(rbm, data);
    let e = model_expectation(rbm)?;
    for (gb, eb) in g.blocks_mut().into_iter().zip(e.blocks()) {
        gb.iter_mut().zip(eb.1).for_each(|(x, y)| *x -= y);
    }
    Ok(g)
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops mirror the formulas
mod tests {
    use super::*;

    fn random_model(m: usize, n: usize, scale: f64, seed: u64) -> Rbm {
        Rbm::random(m, n, scale, seed).unwrap()
    }

    /// log Z by the definition: a double sum over every (v, h).
    fn brute_log_z(rbm: &Rbm) -> f64 {
        let (m, n) = (rbm.m(), rbm.n());
        let mut terms = Vec::new();
        for vc in 0..1u64 << m {
            let v = decode(vc, m);
            for hc in 0..1u64 << n {
                let h = decode(hc, n);
                let mut e = 0.0f64;
                for i in 0..m {
                    e += v[i] as f64 * rbm.b[i] as f64;
                    for j in 0..n {
                        e += v[i] as f64 * rbm.w()[i * n + j] as f64 * h[j] as f64;
                    }
                }
                e += (0..n).map(|j| h[j] as f64 * rbm.c[j] as f64).sum::<f64>();
                terms.push(e);
            }
        }
        let mx = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        mx + terms.iter().map(|t| (t - mx).exp()).sum::<f64>().ln()
    }

    #[test]
    fn gray_code_visits_every_state_once_flipping_one_bit() {
        for k in 0..12u32 {
            let mut seen = vec![false; 1 << k];
            for t in 0..1u64 << k {
                let g = gray(t) as usize;
                assert!(!seen[g]);
                seen[g] = true;
                if t > 0 {
                    assert_eq!((gray(t) ^ gray(t - 1)).count_ones(), 1);
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn log_z_matches_brute_force_enumerating_either_layer() {
        for (seed, (m, n)) in [(5, 3), (3, 6), (4, 4), (7, 2), (1, 1)]
            .into_iter()
            .enumerate()
        {
            let rbm = random_model(m, n, 1.5, seed as u64);
            let want = brute_log_z(&rbm);
            for layer in [Layer::Visible, Layer::Hidden] {
                let k = if layer == Layer::Visible { m } else { n };
                let got = log_z_range(&rbm, layer, 0, 1 << k).value();
                assert!(
                    (got - want).abs() < 1e-10,
                    "{m}x{n} {layer:?}: {got} vs {want}"
                );
                // Split ranges merge to the same value.
                let mid = (1u64 << k) / 3;
                let mut a = log_z_range(&rbm, layer, 0, mid);
                a.merge(log_z_range(&rbm, layer, mid, 1 << k));
                assert!((a.value() - want).abs() < 1e-10);
            }
            assert!((log_z(&rbm).unwrap() - want).abs() < 1e-10);
        }
    }

    #[test]
    fn threaded_log_z_has_the_same_bits_as_sequential() {
        // 2^18 hidden states = 4 blocks.
        let rbm = random_model(20, 18, 0.3, 4);
        let seq = log_z(&rbm).unwrap();
        for t in [1, 2, 3, 8] {
            assert_eq!(
                log_z_threaded(&rbm, t).unwrap().to_bits(),
                seq.to_bits(),
                "{t} threads"
            );
        }
        // And the blocks add up to one full-range sweep up to rounding.
        let whole = log_z_range(&rbm, Layer::Hidden, 0, 1 << 18).value();
        assert!((whole - seq).abs() < 1e-9 * seq.abs());
    }

    /// log Z by the softplus walk alone (the reference for the product walk).
    fn softplus_log_z(rbm: &Rbm, start: u64, end: u64) -> LogSumExp {
        let v = view(rbm, smaller_layer(rbm));
        let mut acc = LogSumExp::default();
        walk(&v, start, end, |_, lin, pre| {
            acc.add(log_marginal(lin, pre))
        });
        acc
    }

    /// A 784×n model with MNIST-like pre-activations: visible biases from −9 to +2, weights of a
    /// few tenths (a trained 784×25 PCD model has |W| up to about 1.5).
    fn mnist_like(n: usize, seed: u64) -> Rbm {
        let mut rbm = random_model(784, n, 0.3, seed);
        rbm.edit(|_, b, _| {
            for (i, x) in b.iter_mut().enumerate() {
                *x = -9.0 + 11.0 * ((i * 37) % 784) as f32 / 783.0;
            }
        });
        rbm
    }

    /// Issue 7: a faster path for large enumerations must stay within 1e-6 nats of the f64
    /// softplus walk; the product walk is within 1e-9 on 784-unit layers, over whole blocks
    /// and over ranges that start and end anywhere.
    #[test]
    fn product_walk_matches_the_softplus_walk_on_784_units() {
        for (n, seed) in [(1usize, 1u64), (6, 2), (12, 3), (17, 4)] {
            let rbm = mnist_like(n, seed);
            let total = 1u64 << n;
            let want = softplus_log_z(&rbm, 0, total).value();
            let got = log_z(&rbm).unwrap();
            assert!((got - want).abs() < 1e-9, "784x{n}: {got} vs {want}");
            // An odd range: the flipping units and the start state come from the range.
            let (a, b) = (total / 3 + 1, total - total / 5);
            let want = softplus_log_z(&rbm, a, b).value();
            let got = log_z_range(&rbm, Layer::Hidden, a, b).value();
            assert!(
                (got - want).abs() < 1e-9,
                "784x{n} [{a}, {b}): {got} vs {want}"
            );
        }
    }

    /// Pre-activations beyond the product walk's range fall back to the softplus walk, bit for
    /// bit; within it, the product walk really runs (it is not the softplus walk's bits).
    #[test]
    fn product_walk_falls_back_outside_its_range() {
        let wild = random_model(100, 6, 40.0, 5);
        let v = view(&wild, Layer::Hidden);
        assert!(product_walk(&v, 0, 64).is_none());
        assert_eq!(
            log_z(&wild).unwrap().to_bits(),
            softplus_log_z(&wild, 0, 64).value().to_bits()
        );
        let tame = mnist_like(6, 6);
        let v = view(&tame, Layer::Hidden);
        assert!(product_walk(&v, 0, 64).is_some());
        // Narrow layers never take it: they take the split walk (next test).
        let narrow = random_model(20, 6, 0.3, 7);
        assert!(split_walk(&view(&narrow, Layer::Hidden), 0, 64).is_some());
        let got = log_z(&narrow).unwrap();
        let want = softplus_log_z(&narrow, 0, 64).value();
        assert!((got - want).abs() <= 1e-12 * want.abs());
    }

    /// log Z the straightforward way: every state of the hidden layer from scratch, its
    /// log-marginal `cᵀh + Σ_i ln(1 + e^{b_i + (W h)_i})` in f64, then one log-sum-exp.
    fn straightforward_log_z(rbm: &Rbm) -> f64 {
        let (m, n) = (rbm.m(), rbm.n());
        let terms: Vec<f64> = (0..1u64 << n)
            .map(|code| {
                let h = decode(code, n);
                let mut t: f64 = (0..n).map(|j| h[j] as f64 * rbm.c[j] as f64).sum();
                for i in 0..m {
                    let a = rbm.b[i] as f64
                        + (0..n)
                            .map(|j| rbm.w()[i * n + j] as f64 * h[j] as f64)
                            .sum::<f64>();
                    t += if a > 0.0 {
                        a + libm::log1p(libm::exp(-a))
                    } else {
                        libm::log1p(libm::exp(a))
                    };
                }
                t
            })
            .collect();
        let mx = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        mx + libm::log(terms.iter().map(|t| libm::exp(t - mx)).sum::<f64>())
    }

    /// Issue 11: the split walk (every small model's log Z) is within 10⁻⁹ relative of the
    /// straightforward sum, on 16×16 models from tame to trained-large weights and on shapes
    /// whose enumeration splits unevenly; a range it cannot take (weights spanning more than
    /// its limit, or unaligned) is walked by softplus, bit for bit.
    #[test]
    fn split_walk_matches_the_straightforward_sum() {
        for (m, n, scale, seed) in [
            (16, 16, 0.1, 1u64),
            (16, 16, 1.0, 2),
            (16, 16, 3.0, 3),
            (9, 4, 2.0, 4),
            (20, 5, 1.0, 5),
            (12, 1, 1.0, 6),
            (30, 13, 0.5, 7),
        ] {
            let rbm = random_model(m, n, scale, seed);
            let v = view(&rbm, Layer::Hidden);
            assert!(
                split_walk(&v, 0, 1 << n).is_some(),
                "{m}x{n} took the split walk"
            );
            let want = straightforward_log_z(&rbm);
            let got = log_z(&rbm).unwrap();
            assert!(
                (got - want).abs() <= 1e-9 * want.abs(),
                "{m}x{n} scale {scale}: {got} vs {want}"
            );
            // Aligned sub-ranges (fixed high units) merge to the same value.
            let mut parts = LogSumExp::default();
            for b in 0..4u64 {
                let q = (1u64 << n) / 4;
                if q > 0 {
                    parts.merge(split_walk(&v, b * q, (b + 1) * q).unwrap());
                }
            }
            if n >= 2 {
                assert!((parts.value() - want).abs() <= 1e-9 * want.abs());
            }
        }
        // Huge weights: the walk declines and softplus gives its bits.
        let wild = random_model(16, 16, 60.0, 8);
        let v = view(&wild, Layer::Hidden);
        assert!(split_walk(&v, 0, 1 << 16).is_none());
        assert_eq!(
            log_z(&wild).unwrap().to_bits(),
            softplus_log_z(&wild, 0, 1 << 16).value().to_bits()
        );
        assert!(split_walk(&v, 3, 7).is_none());
    }

    /// A pool of workers gets runs of blocks and sends their partial sums as numbers: any
    /// split, merged in block order, gives the bits of log_z.
    #[test]
    fn blocks_split_any_way_merge_to_the_same_bits() {
        let rbm = mnist_like(18, 10);
        let want = log_z(&rbm).unwrap();
        let n = block_count(&rbm).unwrap();
        assert_eq!(n, 4);
        for cuts in [
            vec![0, 4],
            vec![0, 1, 4],
            vec![0, 3, 4],
            vec![0, 1, 2, 3, 4],
        ] {
            // Runs computed in any order (here the last first) …
            let mut runs: Vec<(usize, Vec<LogSumExp>)> = cuts
                .windows(2)
                .rev()
                .map(|w| (w[0], log_z_blocks(&rbm, w[0], w[1]).unwrap()))
                .collect();
            // … sent as numbers and put back in block order.
            runs.sort_by_key(|r| r.0);
            let parts: Vec<LogSumExp> = runs
                .into_iter()
                .flat_map(|r| r.1)
                .map(|p| {
                    let (max, sum) = p.parts();
                    LogSumExp::from_parts(max, sum)
                })
                .collect();
            assert_eq!(
                merge_blocks(&rbm, &parts).unwrap().to_bits(),
                want.to_bits()
            );
        }
        assert!(merge_blocks(&rbm, &[LogSumExp::default()]).is_err());
        assert!(log_z_blocks(&rbm, 3, 5).is_err());
    }

    #[test]
    fn threaded_product_walk_has_the_same_bits_as_sequential() {
        // 2^17 hidden states over 784 visible units = 2 blocks.
        let rbm = mnist_like(17, 8);
        let seq = log_z(&rbm).unwrap();
        for t in [1, 2, 3] {
            assert_eq!(log_z_threaded(&rbm, t).unwrap().to_bits(), seq.to_bits());
        }
    }

    #[test]
    fn distribution_sums_to_one_and_matches_free_energy() {
        let rbm = random_model(6, 4, 1.0, 9);
        let p = model_distribution(&rbm).unwrap();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let lz = log_z(&rbm).unwrap();
        for code in [0u64, 5, 63] {
            let lp = -rbm.free_energy(&decode(code, 6)) - lz;
            assert!((p[code as usize].ln() - lp).abs() < 1e-10);
        }
    }

    #[test]
    fn exact_gradient_matches_finite_differences_of_exact_atll() {
        let data = Dataset::parse("t", "110010\n011001\n100111\n000110\n").unwrap();
        for (m, n) in [(6, 3), (6, 8)] {
            let rbm = random_model(m, n, 0.7, 11);
            let g = gradient(&rbm, &data).unwrap();
            let f = |r: &Rbm| evaluate(r, &data).unwrap().atll;
            // Central differences in f64 need an f64 perturbation; f32 params bound the step.
            let eps = 1e-2f32;
            for (blk, idx) in [(0, 0), (0, m * n - 1), (0, 4), (1, 2), (2, n - 1)] {
                let bump = |d: f32| {
                    let mut r = rbm.clone();
                    r.edit(|w, b, c| [w, b, c][blk][idx] += d);
                    r
                };
                let fd = (f(&bump(eps)) - f(&bump(-eps))) / (2.0 * eps as f64);
                let exact = [&g.w, &g.b, &g.c][blk][idx];
                assert!(
                    (fd - exact).abs() < 2e-4,
                    "{m}x{n} block {blk}[{idx}]: fd {fd} exact {exact}"
                );
            }
        }
    }

    #[test]
    fn refuses_huge_enumerations() {
        let rbm = Rbm::zeros(40, 40).unwrap();
        assert!(matches!(log_z(&rbm), Err(Error::TooLarge(_))));
        assert!(matches!(
            model_distribution(&Rbm::zeros(21, 2).unwrap()),
            Err(Error::TooLarge(_))
        ));
        // A zero model: Z = 2^(m+n).
        let z = log_z(&Rbm::zeros(3, 2).unwrap()).unwrap();
        assert!((z - 5.0 * 2f64.ln()).abs() < 1e-12);
    }
}

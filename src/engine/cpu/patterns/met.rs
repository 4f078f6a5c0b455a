//! The patterns met in an update, in the order first met (docs/algorithms.md §4, UCD): UCD's
//! coupled chains (Qiu, Zhang & Wang 2020) revisit few 0/1 patterns while the parameters stay
//! the same for the whole update, so each pattern's pre-activations and thresholds are
//! computed once, in batches. Unlike the memo and the sweep tables, the entries are also
//! listed in the order first met since the last restart: UCD's estimate adds its counted terms
//! in that order, which fixes its bits whatever the table keeps.

use super::memo::Side;
use super::DirectIndex;
use crate::engine::cpu::kernels::{push_row, row_mask};
use crate::math::one_plus_exp_neg;
use crate::model::Rbm;
use crate::sampler::{Conditional, ThresholdProduct};

/// Layers of at most this many units index their patterns directly ([`Patterns`]).
pub(crate) const DIRECT_BITS: usize = 16;

/// The first slot to probe for `key` in a table of `mask + 1` slots (a multiplicative hash).
#[inline(always)]
fn slot_of(key: &[u64], mask: usize) -> usize {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let h = key
        .iter()
        .fold(0u64, |h, &w| (h.rotate_left(29) ^ w).wrapping_mul(K));
    (h >> 32) as usize & mask
}

/// The 0/1 patterns of one layer met in an update, each with the other layer's pre-activations
/// and Bernoulli thresholds 1 + e^{−pre} computed once: the parameters do not change within an
/// update, and UCD's chains revisit few patterns (on BAS 4×4, over the ucd-bas4 preset's 10 000
/// updates, about one row in five is a pattern not met before in its update). Same bits as
/// computing every row: a row's pre-activations do not depend on the other rows of the batch.
///
/// Apart from its entries, a table lists the ones met since its last [`Patterns::restart`] in
/// the order first met: the estimate adds its counted terms in that order, and
/// [`Patterns::len`] (how many) says when to add them, so its bits do not depend on how many
/// patterns the table keeps.
pub(crate) struct Patterns {
    /// Whether the patterns are hidden ones (entries hold visible values) or visible ones.
    hidden_keys: bool,
    /// u64 words per key (`⌈k/64⌉` for k units) and values per entry (the other layer's units).
    words: usize,
    pub(crate) width: usize,
    /// The patterns as bitsets (`entries × words`) and an open-addressing table of entry + 1
    /// (0 = empty; a power of two, at most half full).
    keys: Vec<u64>,
    slots: Vec<u32>,
    /// For layers of at most [`DIRECT_BITS`] units, instead of the hash table: every pattern's
    /// entry.
    direct: DirectIndex<u32>,
    /// Pre-activations and thresholds (`entries × width`) of the first `computed` entries
    /// (past them, numbers of earlier parameters).
    pre: Vec<f32>,
    thr: Vec<f32>,
    /// For hidden patterns, per entry: the product of its visible thresholds (what the
    /// coupling's ratios need of one conditional, [`ThresholdProduct`]).
    products: Vec<ThresholdProduct>,
    computed: usize,
    /// The entries found since the last [`Patterns::compute`]: their patterns as one-word
    /// masks for layers of at most 64 units, else their rows.
    pending_keys: Vec<u64>,
    pending: Vec<f32>,
    /// Scratch key.
    key: Vec<u64>,
    /// The entries met since the last restart, in the order first met; per entry, the epoch in
    /// which it was last listed (a restart starts an epoch).
    pub(crate) order: Vec<u32>,
    listed: Vec<u32>,
    epoch: u32,
    /// Entries kept at most: a restart past `cap` − `room` empties the table.
    cap: usize,
    /// Patterns met at most between two restarts.
    room: usize,
}

impl Patterns {
    /// An empty set of hidden patterns (`hidden_keys`) or visible ones, for an m×n model.
    /// `room`: patterns met at most between two restarts; `bound`: patterns kept at most (at
    /// least `room`; only `room` with the memos off,
    /// [`memo::set_enabled`](super::memo::set_enabled): the same bits).
    pub(crate) fn new(
        m: usize,
        n: usize,
        hidden_keys: bool,
        room: usize,
        bound: usize,
    ) -> Patterns {
        let (k, width) = if hidden_keys { (n, m) } else { (m, n) };
        let words = k.div_ceil(64).max(1);
        Patterns {
            hidden_keys,
            words,
            width,
            keys: Vec::new(),
            slots: vec![0; 1024],
            direct: DirectIndex::new(if k <= DIRECT_BITS { 1 << k } else { 0 }),
            pre: Vec::new(),
            thr: Vec::new(),
            products: Vec::new(),
            computed: 0,
            pending_keys: Vec::new(),
            pending: Vec::new(),
            key: vec![0; words],
            order: Vec::new(),
            listed: Vec::new(),
            epoch: 1,
            cap: if super::memo::enabled() { bound } else { room },
            room,
        }
    }

    /// Forgets every pattern (the parameters changed).
    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        if self.direct.len() == 0 {
            self.slots.fill(0);
        } else {
            self.direct.clear();
        }
        self.computed = 0;
        self.pending_keys.clear();
        self.pending.clear();
        self.order.clear();
        self.listed.clear();
    }

    /// Starts a new list of the entries met ([`Patterns::len`] = 0); empties the table if it
    /// could outgrow its bound before the next restart.
    pub(crate) fn restart(&mut self) {
        if self.entries() + self.room > self.cap {
            return self.clear();
        }
        self.order.clear();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.listed.fill(0);
            self.epoch = 1;
        }
    }

    /// The patterns met since the last restart.
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    /// The patterns the table holds.
    pub(crate) fn entries(&self) -> usize {
        self.listed.len()
    }

    /// Lists entry `e` as met (if not yet since the last restart) and returns it.
    #[inline(always)]
    fn met(&mut self, e: usize) -> usize {
        if self.listed[e] != self.epoch {
            self.listed[e] = self.epoch;
            self.order.push(e as u32);
        }
        e
    }

    /// A new entry for the key in `key` and the row `x`: pending, listed as met.
    #[inline(always)]
    fn add(&mut self, x: &[f32]) -> usize {
        let e = self.entries();
        self.keys.extend_from_slice(&self.key);
        if self.words == 1 {
            self.pending_keys.push(self.key[0]);
        } else {
            push_row(&mut self.pending, x);
        }
        self.listed.push(self.epoch);
        self.order.push(e as u32);
        e
    }

    /// The entry of the 0/1 row `x`, whose pattern is `key` when the layer has at most 64
    /// units, added (its values pending) if not met before.
    #[inline(always)]
    pub(crate) fn find(&mut self, x: &[f32], key: u64) -> usize {
        if self.words == 1 {
            debug_assert!(
                row_mask(x, &mut self.key) && self.key[0] == key,
                "key of the row"
            );
            self.key[0] = key;
        } else {
            let binary = row_mask(x, &mut self.key);
            debug_assert!(binary, "chain states are 0/1");
        }
        if self.direct.len() != 0 {
            let e = self.entries();
            return match self.direct.get_or_insert(self.key[0] as usize, e as u32) {
                Some(found) => self.met(found as usize),
                None => self.add(x),
            };
        }
        let words = self.words;
        let mask = self.slots.len() - 1;
        let mut i = slot_of(&self.key, mask);
        loop {
            let e = match self.slots[i] {
                0 => break,
                e => e as usize - 1,
            };
            // Not `==` on the slices: that calls memcmp, slower for a word or two.
            let key = &self.keys[e * words..(e + 1) * words];
            if key.iter().zip(&self.key).all(|(a, b)| a == b) {
                return self.met(e);
            }
            i = (i + 1) & mask;
        }
        let e = self.add(x);
        self.slots[i] = e as u32 + 1;
        if 2 * (e + 1) > self.slots.len() {
            self.grow();
        }
        e
    }

    /// Doubles the table and re-inserts every entry.
    fn grow(&mut self) {
        self.slots = vec![0; 2 * self.slots.len()];
        let mask = self.slots.len() - 1;
        for (e, key) in self.keys.chunks_exact(self.words).enumerate() {
            let mut i = slot_of(key, mask);
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = e as u32 + 1;
        }
    }

    /// Computes the values of the pending entries, all in one batch product of `model`: the
    /// visible pre-activations W h + b of hidden patterns or the hidden ones Wᵀv + c of visible
    /// patterns, as the entries' width says.
    pub(crate) fn compute(&mut self, model: &Rbm) {
        let (done, width) = (self.computed * self.width, self.width);
        let len = self.entries() * width;
        // Kept at their largest across clears: no zero-fill before the writes.
        if self.pre.len() < len {
            self.pre.resize(len, 0.0);
            self.thr.resize(len, 0.0);
        }
        self.computed = self.entries();
        let side = if self.hidden_keys {
            Side::Visible
        } else {
            Side::Hidden
        };
        if self.words == 1 {
            model.pre_of_masks(side, &self.pending_keys, &mut self.pre[done..len]);
        } else {
            model.pre_direct(side, &self.pending, &mut self.pre[done..len]);
        }
        self.pending_keys.clear();
        self.pending.clear();
        one_plus_exp_neg(&self.pre[done..len], &mut self.thr[done..len]);
        if self.hidden_keys {
            self.products.truncate(done / width);
            let (pre, thr) = (&self.pre[done..len], &self.thr[done..len]);
            let new = pre.chunks_exact(width).zip(thr.chunks_exact(width));
            self.products
                .extend(new.map(|(a, t)| ThresholdProduct::of(a, t)));
        }
    }

    /// The visible conditional of hidden pattern `e`, as the coupling reads it.
    pub(crate) fn conditional(&self, e: usize) -> Conditional<'_> {
        let (pre, thr, product) = (self.pre(e), self.thr(e), self.products[e]);
        debug_assert_eq!(
            product,
            ThresholdProduct::of(pre, thr),
            "the entry's product"
        );
        Conditional { pre, thr, product }
    }

    pub(crate) fn pre(&self, e: usize) -> &[f32] {
        &self.pre[e * self.width..(e + 1) * self.width]
    }

    /// The pattern of entry `e`, as a bitset.
    pub(crate) fn key(&self, e: usize) -> &[u64] {
        &self.keys[e * self.words..(e + 1) * self.words]
    }

    pub(crate) fn thr(&self, e: usize) -> &[f32] {
        &self.thr[e * self.width..(e + 1) * self.width]
    }
}

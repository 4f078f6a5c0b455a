//! Per-pattern caches (docs/algorithms.md §1): a conditional of a binary RBM depends on the
//! conditioning row only through its 0/1 pattern, so small models compute each pattern's
//! numbers once and reuse them while the parameters stay the same.
//!
//! - [`memo`]: the memo any caller of the model's conditionals goes through;
//! - [`sweeps`]: the tables that Gibbs chains of small models sweep on;
//! - [`met`]: the patterns UCD's coupled chains meet in an update, in the order first met.
pub mod memo;
pub(crate) mod met;
pub(crate) mod sweeps;

/// The parameters a cache's numbers are for: W by its generation number (the model draws a new
/// one on every edit of W) and the bias bitwise (so −0.0 ≠ 0.0 and a NaN equals itself: a cache
/// is only reused for the very same parameters).
#[derive(Clone, Debug, Default)]
pub(crate) struct ParamsKey {
    w_gen: u64,
    bias: Vec<u32>,
}

impl ParamsKey {
    /// Whether these are the parameters W (as `w_gen`) and `bias`.
    #[inline]
    pub(crate) fn is(&self, w_gen: u64, bias: &[f32]) -> bool {
        w_gen == self.w_gen
            && bias.len() == self.bias.len()
            && bias.iter().zip(&self.bias).all(|(b, &s)| b.to_bits() == s)
    }

    /// Makes these the parameters W (as `w_gen`) and `bias`.
    pub(crate) fn set(&mut self, w_gen: u64, bias: &[f32]) {
        self.w_gen = w_gen;
        self.bias.clear();
        self.bias.extend(bias.iter().map(|b| b.to_bits()));
    }
}

/// An unsigned word of a [`DirectIndex`].
pub(crate) trait Word: Copy + Eq {
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// `self + 1`, wrapping.
    fn next(self) -> Self;
}

impl Word for u16 {
    const ZERO: u16 = 0;
    const ONE: u16 = 1;
    #[inline(always)]
    fn next(self) -> u16 {
        self.wrapping_add(1)
    }
}

impl Word for u32 {
    const ZERO: u32 = 0;
    const ONE: u32 = 1;
    #[inline(always)]
    fn next(self) -> u32 {
        self.wrapping_add(1)
    }
}

/// Every pattern of a small layer (at most 2^16 patterns) to its slot, emptied in O(1): per
/// pattern, the generation that last gave it a slot, and the slot. [`DirectIndex::clear`]
/// starts a generation (and, when the generation number wraps around, empties every entry).
#[derive(Clone, Debug)]
pub(crate) struct DirectIndex<T> {
    entries: Vec<[T; 2]>,
    generation: T,
}

impl<T: Word> Default for DirectIndex<T> {
    fn default() -> Self {
        DirectIndex {
            entries: Vec::new(),
            generation: T::ONE,
        }
    }
}

impl<T: Word> DirectIndex<T> {
    /// An empty index of `len` patterns.
    pub(crate) fn new(len: usize) -> Self {
        DirectIndex {
            entries: vec![[T::ZERO; 2]; len],
            generation: T::ONE,
        }
    }

    /// Patterns indexed (0 for none).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets every slot.
    pub(crate) fn clear(&mut self) {
        self.generation = self.generation.next();
        if self.generation == T::ZERO {
            self.entries.fill([T::ZERO; 2]);
            self.generation = T::ONE;
        }
    }

    /// The slot of pattern `key`, if it has one.
    #[inline(always)]
    pub(crate) fn get(&self, key: usize) -> Option<T> {
        let e = self.entries[key];
        (e[0] == self.generation).then_some(e[1])
    }

    /// The slot of pattern `key`, which has one.
    #[inline(always)]
    pub(crate) fn slot(&self, key: usize) -> T {
        debug_assert!(self.get(key).is_some(), "a located pattern");
        self.entries[key][1]
    }

    /// The slot of pattern `key` if it has one; else gives it `slot` and returns `None`.
    #[inline(always)]
    pub(crate) fn get_or_insert(&mut self, key: usize, slot: T) -> Option<T> {
        let e = &mut self.entries[key];
        if e[0] == self.generation {
            return Some(e[1]);
        }
        *e = [self.generation, slot];
        None
    }

    /// Gives every pattern `p` the slot `slot(p)`.
    pub(crate) fn fill(&mut self, slot: impl Fn(usize) -> T) {
        let g = self.generation;
        for (p, e) in self.entries.iter_mut().enumerate() {
            *e = [g, slot(p)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key holds only the very same parameters: another W generation, another bias, −0.0
    /// for 0.0 differ; a NaN bias equals itself.
    #[test]
    fn params_key_is_bitwise() {
        let mut k = ParamsKey::default();
        k.set(7, &[0.0, f32::NAN, 1.5]);
        assert!(k.is(7, &[0.0, f32::NAN, 1.5]));
        assert!(!k.is(8, &[0.0, f32::NAN, 1.5]));
        assert!(!k.is(7, &[-0.0, f32::NAN, 1.5]));
        assert!(!k.is(7, &[0.0, f32::NAN]));
        assert!(!k.is(7, &[0.0, f32::NAN, 1.25]));
    }

    /// Slots given stay until a clear, a clear forgets every one, and so does the clear at
    /// which the generation number wraps around (entries of the generation that would come
    /// back are emptied).
    #[test]
    fn direct_index_forgets_on_clear_and_wrap_around() {
        let mut d = DirectIndex::<u16>::new(8);
        assert_eq!(d.get_or_insert(3, 5), None);
        assert_eq!(d.get_or_insert(3, 6), Some(5));
        assert_eq!((d.get(3), d.slot(3), d.get(4)), (Some(5), 5, None));
        d.clear();
        assert_eq!(d.get(3), None);
        d.fill(|p| p as u16 + 10);
        assert!((0..8).all(|p| d.get(p) == Some(p as u16 + 10)));
        // Through a whole cycle of generations: an entry set at generation g must not come
        // back when the number returns to g.
        let mut d = DirectIndex::<u16>::new(4);
        assert_eq!(d.get_or_insert(1, 9), None);
        for _ in 0..=u16::MAX as usize {
            d.clear();
            assert_eq!(d.get(1), None);
        }
    }
}

//! [`Names`]: the map from a function's local names (values and block labels) to what they
//! stand for. Canonical decimal names (`%7`, `7:`) index a vector; any other name, and any
//! number from the limit on (so that a hostile number allocates nothing), is hashed.
//! Invariant: a name means the same entry whichever way it is stored.
//! Complexity: O(1) per lookup or insert (expected, for hashed names).

use super::*;

/// A map from local names (values or block labels) to `V`. Names in canonical decimal
/// (`%7`, `7:`, what clang writes for nearly every value and block) index a vector; other
/// names (and numbers from `limit` on, so that a hostile number allocates nothing) are
/// hashed. A name means the same entry whichever way it is stored.
pub(super) struct Names<'a, V> {
    numbered: Vec<Option<V>>,
    named: FastMap<Cow<'a, str>, V>,
    /// Numbers below this are kept in `numbered`.
    limit: usize,
}

impl<'a, V> Names<'a, V> {
    /// An empty map keeping numbers below `limit` in its vector, with room for `capacity`.
    pub(super) fn new(limit: usize, capacity: usize) -> Self {
        Names {
            numbered: Vec::with_capacity(capacity.min(limit)),
            named: FastMap::default(),
            limit,
        }
    }

    /// The slot of `name` in `numbered`: a canonical decimal number below `limit`.
    pub(super) fn number(&self, name: &str) -> Option<usize> {
        let b = name.as_bytes();
        if b.is_empty() || b.len() > 9 || (b[0] == b'0' && b.len() > 1) {
            return None;
        }
        let mut n = 0usize;
        for &c in b {
            if !c.is_ascii_digit() {
                return None;
            }
            n = n * 10 + usize::from(c - b'0');
        }
        (n < self.limit).then_some(n)
    }

    pub(super) fn get(&self, name: &str) -> Option<&V> {
        match self.number(name) {
            Some(n) => self.numbered.get(n).and_then(Option::as_ref),
            None => self.named.get(name),
        }
    }

    pub(super) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Sets `name` to `v`; returns the value it had.
    pub(super) fn insert(&mut self, name: Cow<'a, str>, v: V) -> Option<V> {
        match self.number(&name) {
            Some(n) => {
                if n >= self.numbered.len() {
                    self.numbered.resize_with(n + 1, || None);
                }
                self.numbered[n].replace(v)
            }
            None => self.named.insert(name, v),
        }
    }

    /// Every entry with its name (numbered ones first, in no useful order).
    pub(super) fn entries(&self) -> impl Iterator<Item = (String, &V)> {
        let numbered = self
            .numbered
            .iter()
            .enumerate()
            .filter_map(|(n, v)| v.as_ref().map(|v| (n.to_string(), v)));
        numbered.chain(self.named.iter().map(|(k, v)| (k.to_string(), v)))
    }
}

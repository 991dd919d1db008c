//! Sets of physical registers.
//!
//! What: [`PRegSet`] is a bitset over all physical registers (3 classes x 64), used for
//! clobber sets and for "which registers are live here" queries.
//!
//! Invariants: bit `i` of word `c` stands for the register of class `c` and index `i`.
//!
//! Complexity: every operation is O(1) (three `u64` words); iteration is O(members).

use super::location::{PReg, RegClass};

/// A set of physical registers: one bit per (class, index), 192 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PRegSet {
    words: [u64; 3],
}

impl PRegSet {
    /// The empty set.
    pub const fn empty() -> PRegSet {
        PRegSet { words: [0; 3] }
    }

    /// Adds `reg`.
    pub fn insert(&mut self, reg: PReg) {
        self.words[reg.class().index()] |= 1u64 << reg.index();
    }

    /// Removes `reg`.
    pub fn remove(&mut self, reg: PReg) {
        self.words[reg.class().index()] &= !(1u64 << reg.index());
    }

    /// Whether `reg` is in the set.
    pub fn contains(&self, reg: PReg) -> bool {
        self.words[reg.class().index()] & (1u64 << reg.index()) != 0
    }

    /// The union of both sets.
    pub fn union(self, other: PRegSet) -> PRegSet {
        PRegSet {
            words: [
                self.words[0] | other.words[0],
                self.words[1] | other.words[1],
                self.words[2] | other.words[2],
            ],
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words == [0; 3]
    }

    /// The registers in the set, by class, then by index.
    pub fn iter(&self) -> impl Iterator<Item = PReg> + '_ {
        // One step per member (lowest set bit), not one per possible register.
        RegClass::ALL.into_iter().flat_map(move |class| {
            let mut word = self.words[class.index()];
            std::iter::from_fn(move || {
                while word != 0 {
                    let i = word.trailing_zeros() as u8;
                    word &= word - 1;
                    if let Some(r) = PReg::new(class, i) {
                        return Some(r);
                    }
                }
                None
            })
        })
    }
}

impl FromIterator<PReg> for PRegSet {
    fn from_iter<I: IntoIterator<Item = PReg>>(iter: I) -> PRegSet {
        let mut set = PRegSet::empty();
        for reg in iter {
            set.insert(reg);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preg_set_inserts_removes_and_iterates_in_order() {
        let r3 = PReg::new(RegClass::Int, 3).unwrap();
        let f63 = PReg::new(RegClass::Float, 63).unwrap();
        let v0 = PReg::new(RegClass::Vector, 0).unwrap();
        let mut set: PRegSet = [v0, f63, r3].into_iter().collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![r3, f63, v0]);
        set.remove(f63);
        assert!(!set.contains(f63) && set.contains(r3) && set.contains(v0));
        set.remove(r3);
        set.remove(v0);
        assert!(set.is_empty());
    }
}

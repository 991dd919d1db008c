//! Per-register allocation maps (Ion design, "Core Allocation State": the allocation map of
//! each physical register).
//!
//! What: [`RegMap`] records which live range holds a register over which program points, or
//! that the register is reserved there (a clobber, a fixed non-allocatable mention, a
//! decoupled multi-fixed use). The seed keys a B-tree by ranges with an overlap-equality
//! comparator; here the entries of one register never overlap, so a B-tree keyed by the
//! start point alone answers "what overlaps `[from, to)`" as a backward walk from the last
//! entry starting before `to`, stopping at the first entry that ends at or before `from`.
//!
//! The same map serves spill slots: a slot's map records which spill set holds the slot
//! where (the owner type is the map's parameter, [`MapOwner`]).
//!
//! Invariants: entries of one map are disjoint; an owner is a live-range handle or
//! [`RESERVED`] in a register's map, a spill-set handle in a slot's map.
//!
//! Complexity: insert, remove O(log n); an overlap query O(log n + k) for k overlaps.

use crate::regalloc::handles::{LiveRangeIndex, SpillSetIndex};
use crate::regalloc::point::{CodeRange, ProgPoint};
use std::collections::BTreeMap;

/// The owner of a reserved (fixed) entry: no live range, cannot be evicted.
pub const RESERVED: LiveRangeIndex = LiveRangeIndex::NONE;

/// What may own an entry of a [`RegMap`]: a live range (register maps) or a spill set
/// (slot maps); `RESERVED` is the owner of a reservation.
pub trait MapOwner: Copy + Eq + std::fmt::Debug {
    /// The owner of a reservation.
    const RESERVED: Self;
}

impl MapOwner for LiveRangeIndex {
    const RESERVED: Self = RESERVED;
}

impl MapOwner for SpillSetIndex {
    const RESERVED: Self = SpillSetIndex::NONE;
}

/// The allocation map of one register (or spill slot): start point -> (end point, owner).
#[derive(Clone, Debug)]
pub struct RegMap<O: MapOwner = LiveRangeIndex> {
    entries: BTreeMap<u32, (u32, O)>,
}

impl<O: MapOwner> Default for RegMap<O> {
    fn default() -> Self {
        RegMap {
            entries: BTreeMap::new(),
        }
    }
}

impl<O: MapOwner> RegMap<O> {
    /// Empties the map.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Records `range` as held by `owner`. The caller guarantees no overlap.
    pub fn insert(&mut self, range: CodeRange, owner: O) {
        debug_assert!(
            self.first_overlap(range).is_none(),
            "allocation map overlap at {range}"
        );
        self.entries.insert(range.from.0, (range.to.0, owner));
    }

    /// Adds a reservation over `range`, joining it with reservations it overlaps or touches
    /// (reservations may repeat: a clobber and a fixed mention at one point).
    pub fn reserve(&mut self, range: CodeRange) {
        let (mut from, mut to) = (range.from.0, range.to.0);
        let mut joined: smallvec::SmallVec<[u32; 4]> = smallvec::SmallVec::new();
        for (&f, &(t, owner)) in self.entries.range(..=to).rev() {
            if t < from {
                break;
            }
            if owner != O::RESERVED {
                debug_assert!(t <= range.from.0, "reservation over a live range");
                continue;
            }
            joined.push(f);
            from = from.min(f);
            to = to.max(t);
        }
        for f in joined {
            self.entries.remove(&f);
        }
        self.entries.insert(from, (to, O::RESERVED));
    }

    /// Removes the entry starting at `from` (a range previously inserted).
    pub fn remove(&mut self, from: ProgPoint) {
        self.entries.remove(&from.0);
    }

    /// Calls `visit(entry, owner)` for every entry overlapping `range`, latest first; stops
    /// when `visit` returns false.
    pub fn overlaps(&self, range: CodeRange, mut visit: impl FnMut(CodeRange, O) -> bool) {
        for (&f, &(t, owner)) in self.entries.range(..range.to.0).rev() {
            if t <= range.from.0 {
                break;
            }
            if !visit(CodeRange::new(ProgPoint(f), ProgPoint(t)), owner) {
                break;
            }
        }
    }

    /// The earliest entry overlapping `range`, if any.
    pub fn first_overlap(&self, range: CodeRange) -> Option<(CodeRange, O)> {
        let mut first = None;
        self.overlaps(range, |r, o| {
            first = Some((r, o));
            true
        });
        first
    }

    /// Whether some entry holds `point`.
    pub fn is_taken(&self, point: ProgPoint) -> bool {
        self.first_overlap(CodeRange::new(point, point.next()))
            .is_some()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry in order (tests and invariant checks).
    pub fn iter(&self) -> impl Iterator<Item = (CodeRange, O)> + '_ {
        self.entries
            .iter()
            .map(|(&f, &(t, o))| (CodeRange::new(ProgPoint(f), ProgPoint(t)), o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(a: u32, b: u32) -> CodeRange {
        CodeRange::new(ProgPoint(a), ProgPoint(b))
    }

    #[test]
    fn overlap_queries_find_every_entry_and_only_those() {
        let l = LiveRangeIndex;
        let mut m = RegMap::default();
        m.insert(r(0, 4), l(1));
        m.insert(r(6, 8), l(2));
        m.insert(r(8, 12), l(3));
        let mut seen = Vec::new();
        m.overlaps(r(3, 9), |_, o| {
            seen.push(o);
            true
        });
        assert_eq!(seen, vec![l(3), l(2), l(1)]);
        assert!(m.first_overlap(r(4, 6)).is_none());
        assert_eq!(m.first_overlap(r(5, 20)).map(|x| x.1), Some(l(2)));
        m.reserve(r(12, 13));
        m.reserve(r(13, 14));
        m.reserve(r(12, 13));
        assert_eq!(m.iter().filter(|e| e.1 == RESERVED).count(), 1);
        assert!(m.is_taken(ProgPoint(13)) && !m.is_taken(ProgPoint(14)));
        m.remove(ProgPoint(6));
        assert!(m.first_overlap(r(5, 8)).is_none());
    }
}

//! Per-register allocation maps (Ion design, "Core Allocation State": the allocation map of
//! each physical register).
//!
//! What: [`RegMap`] records which live range holds a register over which program points (by
//! the bundle holding it, so a probe learns the conflicting bundle without a lookup), or
//! that the register is reserved there (a clobber, a fixed non-allocatable mention, a
//! decoupled multi-fixed use). The seed keys a B-tree by ranges with an overlap-equality
//! comparator; here the entries of one register never overlap, so a vector sorted by start
//! point answers "what overlaps `[from, to)`" with one binary search for the last entry
//! starting before `to` and a backward walk that stops at the first entry ending at or
//! before `from` (the ends are sorted too, as the entries are disjoint).
//!
//! Why a sorted vector and not a B-tree: probes (several per allocation attempt) far
//! outnumber inserts and removals (one per range assigned or evicted), a binary search over
//! a contiguous array of 12-byte entries touches a few cache lines where a B-tree walk
//! chases node pointers, clearing the map for the next function keeps its capacity (a warm
//! context allocates nothing), and the corpus's maps hold tens to a few hundred entries, so
//! the memmove of an insert is short. A probe walks a bundle's sorted ranges through the
//! map in one merge-like pass ([`RegMap::walk`]): a range ending before the next entry that
//! may reach it costs one comparison (most ranges of a probe that finds the register free),
//! and a range reaching it finds its first overlap by an exponential search forward from
//! the previous range's, usually a few entries on, not by a binary search over the whole
//! map (one per range per probed register was most of the allocation loop).
//! Inserts that do not go at the end wait in a short second sorted vector (about the
//! square root of the main one's length, then merged in one pass), so a register held by
//! tens of thousands of ranges, inserted in priority order (the alternating-argument
//! shape), costs O(sqrt n) moved entries per insert, not O(n);
//! queries walk both vectors. A removal far from the end vacates its entry in place (an
//! empty extent that queries skip, dropped in one pass once an eighth of the entries are
//! vacant) instead of moving the tail: evictions in a 100,000-instruction function moved
//! tens of thousands of entries each, a third of its allocation time.
//!
//! The same map serves spill slots: a slot's map records which spill set holds the slot
//! where (the owner type is the map's parameter, [`MapOwner`]).
//!
//! Invariants: entries of one map are disjoint and sorted by start, and so are their ends
//! (a vacant entry's empty extent included); an owner is the bundle holding the entry's live
//! range in a register's map (right as long as a bundle's ranges do not change while it holds
//! a register: splits and moves into a spill bundle take unassigned bundles only) or
//! [`RESERVED`], a spill-set handle in a slot's map, or
//! [`MapOwner::VACANT`] (main vector only).
//!
//! Complexity: an overlap query O(log n + k) for k overlaps; a walk O(log n) to start, then
//! per range O(1) if it overlaps nothing before the next entry, else O(log d + k) for d
//! entries between the previous range's overlaps and this one's; an insert O(log n) to find the
//! place plus, amortized, O(sqrt n) moved entries (the pending vector and its merges; an
//! insert past the end moves nothing); a removal O(log n), plus, amortized, O(1) for the
//! vacant entries' compaction (or the move of fewer than 64 entries near the end).

use crate::regalloc::handles::{BundleIndex, SpillSetIndex};
use crate::regalloc::point::{CodeRange, ProgPoint};

/// The owner of a reserved (fixed) entry: no bundle, cannot be evicted.
pub const RESERVED: BundleIndex = BundleIndex::NONE;

/// What may own an entry of a [`RegMap`]: the bundle holding the range (register maps) or
/// a spill set (slot maps); `RESERVED` is the owner of a reservation.
pub trait MapOwner: Copy + Eq + std::fmt::Debug {
    /// The owner of a reservation.
    const RESERVED: Self;
    /// The owner of a vacated entry (what [`RegMap::remove`] leaves in a long map): never
    /// a real owner, and queries skip it.
    const VACANT: Self;
}

impl MapOwner for BundleIndex {
    const RESERVED: Self = RESERVED;
    const VACANT: Self = BundleIndex(u32::MAX - 1);
}

impl MapOwner for SpillSetIndex {
    const RESERVED: Self = SpillSetIndex::NONE;
    const VACANT: Self = SpillSetIndex(u32::MAX - 1);
}

/// A removal this many entries or more before the end of the main vector vacates the entry
/// in place instead of moving the tail (see [`RegMap::remove`]).
const VACATE_FROM_TAIL: usize = 64;

/// One entry: `[from, to)` held by `owner`.
#[derive(Clone, Copy, Debug)]
struct Entry<O> {
    from: u32,
    to: u32,
    owner: O,
}

/// The allocation map of one register (or spill slot): entries sorted by start point, in
/// two sorted vectors: the main one, and a short one of recent inserts that did not go at
/// the end (merged into the main one, in one linear pass, once it outgrows the square root
/// of the main one's length). An insert into the middle of a map of n entries then moves
/// O(sqrt n) entries, amortized, instead of O(n): a register held by one value across
/// thousands of calls (wasmtime issue 4291's shape) gets its entries in priority order, not
/// program order, which made that shape quadratic.
#[derive(Clone, Debug)]
pub struct RegMap<O: MapOwner = BundleIndex> {
    entries: Vec<Entry<O>>,
    /// Recent inserts, sorted by start, disjoint from the live entries of `entries`.
    pending: Vec<Entry<O>>,
    /// Vacated entries in `entries` (owner [`MapOwner::VACANT`], empty extent).
    vacant: usize,
}

impl<O: MapOwner> Default for RegMap<O> {
    fn default() -> Self {
        RegMap {
            entries: Vec::new(),
            pending: Vec::new(),
            vacant: 0,
        }
    }
}

/// The index of the first entry of `list`, at or after `start`, ending after `point` (the
/// entries' ends are sorted, as they are disjoint and sorted by start; those before `start`
/// must end at or before `point`). A bundle's next range is usually a few entries on, so
/// the first few are stepped over one by one; past them, an exponential search (probes at
/// distances 1, 2, 4, ... until one ends after `point`) and a binary search of its last
/// step: O(log d) for an answer d entries on.
#[inline(always)]
fn first_reaching<O>(list: &[Entry<O>], start: usize, point: u32) -> usize {
    const STEPS: usize = 4;
    let near = list.len().min(start + STEPS);
    for (k, e) in list[start..near].iter().enumerate() {
        if e.to > point {
            return start + k;
        }
    }
    let rest = &list[near..];
    // `rest[..low]` end at or before `point`.
    let (mut low, mut high) = (0, 1);
    while high <= rest.len() && rest[high - 1].to <= point {
        low = high;
        high *= 2;
    }
    let high = high.min(rest.len());
    near + low + rest[low..high].partition_point(|e| e.to <= point)
}

/// The entries of `list` overlapping `[from, to)` (as an index range `(first, end)`),
/// searched from `*at` (entries before it end at or before `from`); moves `*at` to the first
/// entry that may reach a later range: the last overlapping one if it ends after `to`, else
/// the first one after the overlaps.
#[inline(always)]
fn overlapping<O>(list: &[Entry<O>], at: &mut usize, from: u32, to: u32) -> (usize, usize) {
    let first = first_reaching(list, *at, from);
    let mut end = first;
    while list.get(end).is_some_and(|e| e.from < to) {
        end += 1;
    }
    *at = match end > first && list[end - 1].to > to {
        true => end - 1,
        false => end,
    };
    (first, end)
}

/// How long the pending vector of a map with `n` main entries may grow: the square root of
/// `n` rounded up to a power of two, at least 16 (a shift, where `usize::isqrt`, a loop,
/// cost about 13M instructions per 100,000-instruction function, being computed per
/// insert). Only how often the vectors merge depends on it, never what a query finds.
#[inline]
fn pending_limit(n: usize) -> usize {
    let bits = usize::BITS - n.leading_zeros();
    (1usize << bits.div_ceil(2)).max(16)
}

/// The number of entries of `list` starting before `point`.
fn starting_before<O>(list: &[Entry<O>], point: u32) -> usize {
    list.partition_point(|e| e.from < point)
}

/// Merges `items` (sorted by start, disjoint from `list`'s live entries and each other)
/// into the sorted `list`: from the last item back, each item's place among the old entries
/// is found by binary search and the old entries after it move once, as one block (a
/// memmove), to their final place, so the tail moves once in all, not once per item. A
/// vacated entry the item covers (it starts inside the item) moves to the item's end, empty,
/// so the ends stay sorted.
fn merge_sorted<O: MapOwner, T>(
    list: &mut Vec<Entry<O>>,
    items: &[T],
    entry: impl Fn(&T) -> Entry<O>,
) {
    let (n, k) = (list.len(), items.len());
    let Some(first) = items.first() else {
        return;
    };
    list.resize(n + k, entry(first));
    // Old entries `[..old]` are not placed yet; everything from `old + j + 1` on is.
    let mut old = n;
    for j in (0..k).rev() {
        let e = entry(&items[j]);
        // An item after every old entry not placed yet (all of them, for a bundle assigned
        // past the map's last entry) needs no search.
        let p = match old.checked_sub(1).map(|k| list[k].from) {
            Some(last) if last >= e.from => list[..old].partition_point(|x| x.from < e.from),
            _ => old,
        };
        list.copy_within(p..old, p + j + 1);
        list[p + j] = e;
        for x in list[p + j + 1..old + j + 1].iter_mut() {
            if x.from >= e.to {
                break;
            }
            debug_assert!(x.owner == O::VACANT, "allocation map overlap");
            (x.from, x.to) = (e.to, e.to);
        }
        old = p;
    }
}

impl<O: MapOwner> RegMap<O> {
    /// Empties the map (keeping its capacity).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.pending.clear();
        self.vacant = 0;
    }

    /// Drops the vacated entries of the main vector (one pass).
    fn compact(&mut self) {
        if self.vacant > 0 {
            self.entries.retain(|e| e.owner != O::VACANT);
            self.vacant = 0;
        }
    }

    /// The number of entries of the main vector starting before `point`.
    fn starting_before(&self, point: u32) -> usize {
        starting_before(&self.entries, point)
    }

    /// Merges the pending entries into the main vector.
    fn flush(&mut self) {
        merge_sorted(&mut self.entries, &self.pending, |&e| e);
        self.pending.clear();
    }

    /// Records `range` as held by `owner`. The caller guarantees no overlap.
    pub fn insert(&mut self, range: CodeRange, owner: O) {
        debug_assert!(
            self.first_overlap(range).is_none(),
            "allocation map overlap at {range}"
        );
        let entry = Entry {
            from: range.from.0,
            to: range.to.0,
            owner,
        };
        match self.entries.last() {
            Some(last) if last.from >= entry.from => {
                let k = starting_before(&self.pending, entry.from);
                self.pending.insert(k, entry);
                // Merged once it outgrows the square root of the main vector (at least 16).
                let limit = pending_limit(self.entries.len());
                if self.pending.len() > limit {
                    self.flush();
                }
            }
            _ => self.entries.push(entry),
        }
    }

    /// Records every item of `items` (ranges sorted by start, disjoint from each other and
    /// from the map) with its owner. From the last item back, each item's place among the
    /// old entries is found by binary search and the old entries after it move once, as one
    /// block (a memmove), to their final place: the tail moves once in all, not once per
    /// item. Items out of order fall back to one insert each.
    pub fn insert_sorted<T>(&mut self, items: &[T], entry: impl Fn(&T) -> (CodeRange, O)) {
        let sorted = items
            .windows(2)
            .all(|w| entry(&w[0]).0.to <= entry(&w[1]).0.from);
        // A batch shorter than the pending limit goes to the pending vector (one insert
        // each) unless it lies past the end; a larger one moves the main vector's tail once.
        let past_end = match (self.entries.last(), items.first()) {
            (Some(last), Some(x)) => last.from < entry(x).0.from.0,
            _ => true,
        };
        let small = !past_end && items.len() <= pending_limit(self.entries.len());
        if items.len() <= 1 || !sorted || small {
            for x in items {
                let (range, owner) = entry(x);
                self.insert(range, owner);
            }
            return;
        }
        debug_assert!(
            items
                .iter()
                .all(|x| self.first_overlap(entry(x).0).is_none()),
            "allocation map overlap"
        );
        merge_sorted(&mut self.entries, items, |x| {
            let (range, owner) = entry(x);
            Entry {
                from: range.from.0,
                to: range.to.0,
                owner,
            }
        });
    }

    /// Adds a reservation over `range`, joining it with reservations it overlaps or touches
    /// (reservations may repeat: a clobber and a fixed mention at one point).
    pub fn reserve(&mut self, range: CodeRange) {
        // Reservations come before any live range (the queue phase), so this is free then.
        self.flush();
        self.compact();
        let (mut from, mut to) = (range.from.0, range.to.0);
        // Reservations come sorted (one register's clobbers and fixed mentions in order):
        // past the last entry, the new one is appended.
        match self.entries.last() {
            None => {
                self.entries.push(Entry {
                    from,
                    to,
                    owner: O::RESERVED,
                });
                return;
            }
            Some(last) if last.to < from => {
                self.entries.push(Entry {
                    from,
                    to,
                    owner: O::RESERVED,
                });
                return;
            }
            // A reservation starting inside or at the end of the last one, which is a
            // reservation starting before it (so no earlier entry reaches it): the last one
            // grows (a call's clobber and the next call's fixed-register fixup touch).
            Some(last) if last.owner == O::RESERVED && last.from < from => {
                let last = self.entries.last_mut().expect("a last entry");
                last.to = last.to.max(to);
                return;
            }
            _ => {}
        }
        // Entries starting at or before `to`, walked back while they reach `from`.
        let end = self.entries.partition_point(|e| e.from <= to);
        let mut joined: smallvec::SmallVec<[usize; 4]> = smallvec::SmallVec::new();
        for k in (0..end).rev() {
            let e = self.entries[k];
            if e.to < from {
                break;
            }
            if e.owner != O::RESERVED {
                debug_assert!(e.to <= range.from.0, "reservation over a live range");
                continue;
            }
            joined.push(k);
            from = from.min(e.from);
            to = to.max(e.to);
        }
        // `joined` is in decreasing index order: removing in that order keeps the rest valid.
        for &k in &joined {
            self.entries.remove(k);
        }
        let k = self.starting_before(from);
        self.entries.insert(
            k,
            Entry {
                from,
                to,
                owner: O::RESERVED,
            },
        );
    }

    /// Adds reservations over `ranges` (sorted by start), as [`RegMap::reserve`] of each in
    /// order would: one past the last entry is appended, one starting inside or at the end
    /// of the last entry, a reservation starting before it, grows that entry, and only the
    /// others (none in a map cleared for a new function) take the general path. A call's
    /// clobbers of a register, one reservation per call, cost a few comparisons each.
    pub fn reserve_sorted(&mut self, ranges: &[CodeRange]) {
        self.flush();
        self.compact();
        for r in ranges {
            let (from, to) = (r.from.0, r.to.0);
            match self.entries.last_mut() {
                None => {}
                Some(last) if last.to < from => {}
                Some(last) if last.owner == O::RESERVED && last.from < from => {
                    last.to = last.to.max(to);
                    continue;
                }
                Some(_) => {
                    self.reserve(*r);
                    continue;
                }
            }
            self.entries.push(Entry {
                from,
                to,
                owner: O::RESERVED,
            });
        }
    }

    /// Removes the entry starting at `from` (a range previously inserted). Near the end of
    /// the main vector the tail moves up; further from it the entry is vacated in place
    /// (an empty extent at its start, owner [`MapOwner::VACANT`], which queries skip), so a
    /// removal from a map of n entries costs O(log n), not an O(n) move (evictions in a
    /// 100,000-instruction function moved tens of thousands of entries each). The vacated
    /// entries are dropped in one pass once they are an eighth of the vector.
    pub fn remove(&mut self, from: ProgPoint) {
        let from = from.0;
        let k = self.starting_before(from);
        let found = self.entries[k..]
            .iter()
            .take_while(|e| e.from == from)
            .position(|e| e.owner != O::VACANT);
        if let Some(j) = found {
            let k = k + j;
            if self.entries.len() - k < VACATE_FROM_TAIL {
                self.entries.remove(k);
            } else {
                self.entries[k] = Entry {
                    from,
                    to: from,
                    owner: O::VACANT,
                };
                self.vacant += 1;
                if self.vacant > (self.entries.len() / 8).max(16) {
                    self.compact();
                }
            }
            return;
        }
        let from = ProgPoint(from);
        let k = starting_before(&self.pending, from.0);
        if self.pending.get(k).is_some_and(|e| e.from == from.0) {
            self.pending.remove(k);
        }
    }

    /// Calls `visit(entry, owner)` for every entry overlapping `range`, latest first; stops
    /// when `visit` returns false.
    pub fn overlaps(&self, range: CodeRange, mut visit: impl FnMut(CodeRange, O) -> bool) {
        let main = &self.entries[..self.starting_before(range.to.0)];
        if self.pending.is_empty() {
            for e in main.iter().rev() {
                if e.to <= range.from.0 {
                    return;
                }
                if e.owner != O::VACANT
                    && !visit(CodeRange::new(ProgPoint(e.from), ProgPoint(e.to)), e.owner)
                {
                    return;
                }
            }
            return;
        }
        // Each vector walked back from the last entry starting before the range's end while
        // its entries reach the range (the ends are sorted too, the entries being disjoint);
        // the two walks merged, latest start first.
        let pending = &self.pending[..starting_before(&self.pending, range.to.0)];
        let reaches = |e: &&Entry<O>| e.to > range.from.0;
        let live = |e: &&Entry<O>| e.owner != O::VACANT;
        let mut a = main
            .iter()
            .rev()
            .take_while(reaches)
            .filter(live)
            .peekable();
        let mut b = pending.iter().rev().take_while(reaches).peekable();
        loop {
            let e = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.from > y.from => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => return,
            };
            if let Some(e) = e {
                if !visit(CodeRange::new(ProgPoint(e.from), ProgPoint(e.to)), e.owner) {
                    return;
                }
            }
        }
    }

    /// Visits the overlaps of `items`' ranges (sorted and disjoint, as a bundle's are) with
    /// the map, earliest first, as `visit(range, entry, owner)`, until `visit` returns false
    /// or no entry is left past the current range (a probe of a register for a bundle).
    ///
    /// One merge-like pass over both vectors: in each, a cursor before which every entry
    /// ends at or before the current range's start, and `next`, the earliest start of the
    /// entries at the cursors; a range ending at or before `next` overlaps nothing and costs
    /// one comparison. Only a range reaching `next` looks further, by stepping or an
    /// exponential search from the cursors (`first_reaching`), and visits the overlaps of
    /// the two vectors merged by start.
    #[inline]
    pub fn walk<T>(
        &self,
        items: &[T],
        range: impl Fn(&T) -> CodeRange,
        mut visit: impl FnMut(CodeRange, CodeRange, O) -> bool,
    ) {
        let Some(head) = items.first() else {
            return;
        };
        debug_assert!(
            items
                .windows(2)
                .all(|w| range(&w[0]).to <= range(&w[1]).from),
            "a walk over unsorted ranges"
        );
        let (main, pending) = (&self.entries[..], &self.pending[..]);
        let start = |list: &[Entry<O>], at: usize| list.get(at).map_or(u32::MAX, |e| e.from);
        let head = range(head).from.0;
        // Two O(1) checks before the binary search for the first entry reaching the head: a
        // map ending at or before it (or empty) and one whose first entry reaches it.
        let mut i = match (main.first(), main.last()) {
            (_, None) => 0,
            (_, Some(last)) if last.to <= head => main.len(),
            (Some(first), _) if first.to > head => 0,
            _ => main.partition_point(|e| e.to <= head),
        };
        if pending.is_empty() {
            // The main vector alone (the common case): its overlaps in order, no merge.
            let mut next = start(main, i);
            for x in items {
                if next == u32::MAX {
                    return;
                }
                let r = range(x);
                let (from, to) = (r.from.0, r.to.0);
                if to <= next {
                    continue;
                }
                let (a, b) = overlapping(main, &mut i, from, to);
                for e in &main[a..b] {
                    if e.owner != O::VACANT {
                        let entry = CodeRange::new(ProgPoint(e.from), ProgPoint(e.to));
                        if !visit(r, entry, e.owner) {
                            return;
                        }
                    }
                }
                next = start(main, i);
            }
            return;
        }
        let mut k = pending.partition_point(|e| e.to <= head);
        let mut next = start(main, i).min(start(pending, k));
        for x in items {
            let r = range(x);
            let (from, to) = (r.from.0, r.to.0);
            if next == u32::MAX {
                return;
            }
            if to <= next {
                continue;
            }
            let (a, b) = overlapping(main, &mut i, from, to);
            let (c, d) = overlapping(pending, &mut k, from, to);
            let (mut ours, mut theirs) = (&main[a..b], &pending[c..d]);
            loop {
                let list = match (ours.first(), theirs.first()) {
                    (Some(x), Some(y)) if x.from < y.from => &mut ours,
                    (Some(_), None) => &mut ours,
                    (_, Some(_)) => &mut theirs,
                    (None, None) => break,
                };
                let e = list[0];
                *list = &list[1..];
                if e.owner != O::VACANT {
                    let entry = CodeRange::new(ProgPoint(e.from), ProgPoint(e.to));
                    if !visit(r, entry, e.owner) {
                        return;
                    }
                }
            }
            next = start(main, i).min(start(pending, k));
        }
    }

    /// True when no entry overlaps any of `items` (sorted and disjoint by `range`), in one
    /// [`RegMap::walk`] instead of a search per item.
    #[inline]
    pub fn free_over<T>(&self, items: &[T], range: impl Fn(&T) -> CodeRange) -> bool {
        let mut free = true;
        self.walk(items, range, |_, _, _| {
            free = false;
            false
        });
        free
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
        let holds = |list: &[Entry<O>]| {
            let end = starting_before(list, point.0.saturating_add(1));
            end > 0 && list[end - 1].to > point.0
        };
        holds(&self.entries) || holds(&self.pending)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len() + self.pending.len() - self.vacant
    }

    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every entry in order of start (tests and invariant checks).
    pub fn iter(&self) -> impl Iterator<Item = (CodeRange, O)> + '_ {
        let mut a = self
            .entries
            .iter()
            .filter(|e| e.owner != O::VACANT)
            .peekable();
        let mut b = self.pending.iter().peekable();
        std::iter::from_fn(move || {
            let e = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.from < y.from => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => None,
            }?;
            Some((CodeRange::new(ProgPoint(e.from), ProgPoint(e.to)), e.owner))
        })
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
        let l = BundleIndex;
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

    /// Reservations added in one sorted batch give the map that one call each gives, on
    /// random sorted lists with repeats, touching and overlapping ranges.
    #[test]
    fn sorted_reservations_equal_one_by_one() {
        let mut rng = crate::fuzzing::llvm_import::Rng::new(0x5851_f42d_4c95_7f2d);
        let mut next = |n: u32| rng.below(n as usize) as u32;
        for _ in 0..300 {
            let mut list: Vec<CodeRange> = (0..next(60))
                .map(|_| {
                    let from = next(200);
                    r(from, from + 1 + next(4))
                })
                .collect();
            list.sort_unstable();
            let (mut one, mut batch): (RegMap, RegMap) = Default::default();
            for &x in &list {
                one.reserve(x);
            }
            batch.reserve_sorted(&list);
            let entries = |m: &RegMap| m.iter().collect::<Vec<_>>();
            assert_eq!(entries(&batch), entries(&one), "{list:?}");
        }
    }

    /// Random inserts, removals and queries against a plain list of entries (the oracle):
    /// every overlap query visits exactly the overlapping entries, latest first.
    #[test]
    fn sorted_vector_map_agrees_with_a_plain_list() {
        agrees_with_a_plain_list(0x2545_f491_4f6c_dd1d, 50, 400, 200);
    }

    /// The same on maps long enough that removals vacate entries in place (more than
    /// [`VACATE_FROM_TAIL`] entries after them) and later inserts cover vacated entries.
    #[test]
    fn long_maps_with_vacated_entries_agree_with_a_plain_list() {
        agrees_with_a_plain_list(0x9e37_79b9_7f4a_7c15, 6, 3000, 1500);
    }

    /// `rounds` maps over points below about `space`, `steps` random operations each.
    fn agrees_with_a_plain_list(seed: u64, rounds: usize, space: u32, steps: u32) {
        let mut rng = crate::fuzzing::llvm_import::Rng::new(seed);
        let mut next = |n: u32| rng.below(n as usize) as u32;
        for _round in 0..rounds {
            let mut m: RegMap = RegMap::default();
            let mut list: Vec<(u32, u32, BundleIndex)> = Vec::new();
            for step in 0..steps {
                let from = next(space);
                let range = r(from, from + 1 + next(12));
                let free = !list
                    .iter()
                    .any(|&(f, t, _)| f < range.to.0 && range.from.0 < t);
                match next(4) {
                    0 | 1 if free => {
                        m.insert(range, BundleIndex(step));
                        list.push((range.from.0, range.to.0, BundleIndex(step)));
                    }
                    3 => {
                        // A batch of up to four sorted ranges, each free and disjoint.
                        let mut batch: Vec<(CodeRange, BundleIndex)> = Vec::new();
                        let mut at = next(space);
                        for b in 0..1 + next(4) {
                            let r = r(at, at + 1 + next(6));
                            at = r.to.0 + next(8);
                            let taken = list.iter().any(|&(f, t, _)| f < r.to.0 && r.from.0 < t);
                            if !taken {
                                batch.push((r, BundleIndex(1000 * step + b)));
                            }
                        }
                        m.insert_sorted(&batch, |&(r, o)| (r, o));
                        list.extend(batch.iter().map(|&(r, o)| (r.from.0, r.to.0, o)));
                    }
                    2 if !list.is_empty() => {
                        let k = next(list.len() as u32) as usize;
                        m.remove(ProgPoint(list.swap_remove(k).0));
                    }
                    _ => {}
                }
                let q = r(next(space), 0);
                let q = r(q.from.0, q.from.0 + 1 + next(30));
                let mut want: Vec<(u32, u32, BundleIndex)> = list
                    .iter()
                    .copied()
                    .filter(|&(f, t, _)| f < q.to.0 && q.from.0 < t)
                    .collect();
                want.sort_by_key(|e| std::cmp::Reverse(e.0));
                let mut got = Vec::new();
                m.overlaps(q, |e, o| {
                    got.push((e.from.0, e.to.0, o));
                    true
                });
                assert_eq!(got, want, "query {q}");
                // A walk over sorted, disjoint ranges (a bundle's probe) visits what one
                // query per range visits, earliest first, and stops where `visit` says so.
                let mut walk = Vec::new();
                // Half the walks start anywhere, past the map's end too (the O(1) checks
                // before the walk's binary search).
                let mut at = match step % 2 {
                    0 => next(space / 10),
                    _ => next(space + 50),
                };
                for _ in 0..1 + next(6) {
                    let r = r(at, at + 1 + next(20));
                    at = r.to.0 + next(30);
                    walk.push(r);
                }
                let mut want = Vec::new();
                for &q in &walk {
                    let mut one = Vec::new();
                    m.overlaps(q, |e, o| {
                        one.push((q.from.0, e.from.0, e.to.0, o));
                        true
                    });
                    want.extend(one.into_iter().rev());
                }
                let stop = next(4) as usize;
                let mut got = Vec::new();
                m.walk(
                    &walk,
                    |&q| q,
                    |q, e, o| {
                        got.push((q.from.0, e.from.0, e.to.0, o));
                        stop == 0 || got.len() < stop
                    },
                );
                if stop > 0 {
                    want.truncate(stop);
                }
                assert_eq!(got, want, "walk {walk:?}");
                assert_eq!(m.len(), list.len());
                let p = ProgPoint(next(space + 20));
                let taken = list.iter().any(|&(f, t, _)| f <= p.0 && p.0 < t);
                assert_eq!(m.is_taken(p), taken, "point {p:?}");
            }
        }
    }
}

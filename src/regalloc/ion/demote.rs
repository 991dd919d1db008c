//! Use-free join ranges move to the stack when their neighbours live there (after
//! second-chance allocation, before spill slots).
//!
//! What: `demote_join_ranges` looks at every live range that a register holds, starts at
//! the start of a block with an in-edge (mostly a join, a block with several in-edges; the
//! step is named after them), ends inside that block, and that no operand reads or writes (a
//! back edge's argument use only keeps the location up to the branch). Such a range only
//! carries the value from the block's in-edges to where it goes next (the next
//! range of the vreg, the successors' live-ins or the parameters its branch feeds). With its
//! neighbours placed, the edit cost of either location is known: each in-edge whose source
//! sits on the stack costs a reload if the range keeps its register, each whose source is in
//! a register a store if the range moves to the slot; on the way out, a destination on the
//! stack costs a store from the register, one in a register a reload from the slot; every
//! edit weighs the loop-weighted cost (spill 1, reload 4, times 4^loop depth of where the
//! edge's moves sit). When the slot costs less, the range leaves its register's map for its
//! spill set's spill bundle (only a set whose spill bundle already lives on the stack: no
//! new slot, no new bundle row). Typical case: the latch of a loop whose body spilled the
//! loop-carried values (`XSUM_main` in xxhash: the 7-predecessor latch of the inner loop
//! kept its parameters in registers, and every predecessor reloaded them only for the latch
//! to store them back before the back edge).
//!
//! Ranges are decided one at a time against the current locations of the others, so each
//! decision lowers the estimated cost. A demotion can make a neighbour's pay (a case block's
//! range next to a latch's), so the candidates left are looked at again, up to
//! `DEMOTE_ROUNDS` rounds, each only after a demotion next to its block (in it, a
//! predecessor or a successor: the only places its cost reads). Then
//! [`super::groups`] moves groups of such ranges that only pay together.
//!
//! Invariants: a demoted range keeps its vreg, span and uses; register maps stay disjoint
//! (an entry is only removed); the spill bundle's range list stays sorted.
//!
//! Complexity: O(ranges) to find candidates; per candidate and round O((in-edges +
//! out-edges) x ranges of the vregs involved), after one O(ranges log ranges) sort of a per-vreg index
//! built only when a candidate exists.

use super::process::{Tables, DEAD};
use super::IonState;
use crate::machine::{MBlock, MachineRead, OperandConstraint, VReg};
use crate::regalloc::handles::{BundleIndex, LiveRangeIndex};
use crate::regalloc::location::Allocation;
use crate::regalloc::point::ProgPoint;
use crate::regalloc::ranges::{RangeEntry, RangeFlags, RangeSide, Use};

/// Where a vreg is at a point, as far as edit costs go.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// In a register.
    Reg,
    /// In its spill slot.
    Stack,
    /// Recomputed where needed, or unknown: no decision is taken around it.
    Other,
}

/// Rounds over the candidates: a demotion can make a neighbour's move pay, so the ones left
/// are looked at again while a round demotes any.
const DEMOTE_ROUNDS: usize = 4;

/// Scratch of `demote_join_ranges`, reused between functions.
#[derive(Default)]
pub struct DemoteScratch {
    /// (range, bundle, register dense index, join block) of each candidate.
    candidates: Vec<(u32, BundleIndex, usize, MBlock)>,
    /// Per candidate: the number of demotions made when it was last looked at.
    seen_at: Vec<u32>,
    /// Per block: the number of demotions made when the last one next to it (in it, or in a
    /// predecessor or successor, whose exits and starts its candidates read) was made.
    touched: Vec<u32>,
}

/// The per-vreg range index `spill::absorb_stack_ranges` and [`demote_join_ranges`] search
/// (built by [`ranges_by_vreg`]; one vreg's part of it from [`vreg_entries`]).
#[derive(Clone, Copy)]
pub(crate) struct ByVreg<'a> {
    /// (vreg, start, range) of every live range some bundle holds, sorted.
    pub(crate) entries: &'a [(u32, u32, u32)],
    /// `reach[i]`: the largest end (a program point index) of the ranges of `entries[i]`'s
    /// vreg from its first entry up to `i`, when the index was built. Ends only shrink
    /// while the index is searched (tail cuts), so no range before an entry whose reach is
    /// at most `q` covers `q`: [`covering`] stops there.
    pub(crate) reach: &'a [u32],
}

/// The storage of a [`ByVreg`] index, kept in [`IonState`] between functions (a warm
/// context allocates nothing for it).
#[derive(Clone, Debug, Default)]
pub(crate) struct VregIndex {
    /// [`ByVreg::entries`].
    entries: Vec<(u32, u32, u32)>,
    /// [`ByVreg::reach`].
    reach: Vec<u32>,
}

impl VregIndex {
    /// The index as the searches read it.
    pub(crate) fn view(&self) -> ByVreg<'_> {
        ByVreg {
            entries: &self.entries,
            reach: &self.reach,
        }
    }
}

/// Fills `index` with (vreg, start, range) of every live range some bundle holds, sorted,
/// and their [`ByVreg::reach`]: the per-vreg index `spill::absorb_stack_ranges` and
/// [`demote_join_ranges`] search. Sorted by vreg with [`super::sort_grouped`] (`state`'s
/// sort scratch).
pub(crate) fn ranges_by_vreg(t: &Tables<'_>, index: &mut VregIndex, state: &mut IonState) {
    let VregIndex {
        entries: out,
        reach,
    } = index;
    out.clear();
    for r in 0..t.counts.ranges {
        if t.rr.bundles[r] != DEAD {
            out.push((t.rr.vregs[r].index() as u32, t.rr.spans[r].from.0, r as u32));
        }
    }
    super::sort_grouped(out, &mut state.sort_scratch, &mut state.sort_groups);
    reach.clear();
    let mut prev = (u32::MAX, 0u32);
    reach.extend(out.iter().map(|&(v, _, r)| {
        let end = t.rr.spans[r as usize].to.0;
        prev = if v == prev.0 {
            (v, prev.1.max(end))
        } else {
            (v, end)
        };
        prev.1
    }));
}

/// Whether `u` only keeps a location up to a branch (a back edge's argument, no operand).
pub(super) fn is_ghost(u: &Use) -> bool {
    u.slot() == Use::NO_SLOT && u.operand.constraint == OperandConstraint::Any
}

/// The `demote_join_ranges` step (see the module doc), run at the end of second-chance
/// allocation. `indexed`: `state.by_vreg` already holds this function's [`ranges_by_vreg`]
/// (built by `spill::absorb_stack_ranges`, which moves ranges between bundles but never
/// frees one, so the index stays exact).
pub(crate) fn demote_join_ranges<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut Tables<'_>,
    rs: &RangeSide,
    state: &mut IonState,
    indexed: bool,
) {
    state.tail_cuts.clear();
    let mut sc = std::mem::take(&mut state.demote);
    sc.candidates.clear();
    for b in 0..t.counts.bundles {
        let Allocation::Reg(reg) = t.br.allocs[b] else {
            continue;
        };
        let set = t.br.spill_sets[b].index();
        let st = &t.sets.state[set];
        let sb = st.spill_bundle;
        if !st.required || sb.is_none() || t.br.allocs[sb.index()] != Allocation::None {
            continue;
        }
        for e in &t.br.ranges[b] {
            let r = e.index.index();
            if let Some(block) = candidate(f, t, state, r) {
                sc.candidates
                    .push((r as u32, BundleIndex::new(b), reg.dense_index(), block));
            }
        }
    }
    let tails = super::tails::any_candidate(t, state);
    let groups = super::groups::any_member(f, t, state);
    if !sc.candidates.is_empty() || tails || groups {
        let mut by_vreg = std::mem::take(&mut state.by_vreg);
        if !indexed {
            ranges_by_vreg(t, &mut by_vreg, state);
        }
        let index = by_vreg.view();
        // A candidate is looked at again only when a demotion next to its block came after
        // its last look (else its neighbours' places, and so its answer, are the same).
        sc.seen_at.clear();
        sc.seen_at.resize(sc.candidates.len(), 0);
        sc.touched.clear();
        sc.touched.resize(f.num_blocks(), 0);
        let mut made = 0u32;
        for round in 0..DEMOTE_ROUNDS {
            let before = made;
            for k in 0..sc.candidates.len() {
                let (r, b, reg, block) = sc.candidates[k];
                if b.is_none() || (round > 0 && sc.touched[block.index()] <= sc.seen_at[k]) {
                    continue;
                }
                sc.seen_at[k] = made;
                if cheaper_on_stack(f, t, rs, index, r as usize, block) {
                    demote(t, state, r as usize, b, reg);
                    made += 1;
                    sc.candidates[k].1 = BundleIndex::NONE;
                    sc.touched[block.index()] = made;
                    for &q in f.block_preds(block).iter().chain(f.block_succs(block)) {
                        sc.touched[q.index()] = made;
                    }
                }
            }
            if made == before {
                break;
            }
        }
        if groups {
            super::groups::demote_use_free_groups(f, t, rs, state, index);
        }
        if tails {
            super::tails::demote_tails(f, t, rs, state, index);
        }
        state.by_vreg = by_vreg;
    }
    state.demote = sc;
}

/// The join whose start range `r` starts at, when it ends in that block and has no operand
/// (see the module doc).
fn candidate<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    state: &IonState,
    r: usize,
) -> Option<MBlock> {
    let span = t.rr.spans[r];
    let i = span.from.inst().index();
    if span.from.is_after() || i == 0 || state.block_of[i - 1] == state.block_of[i] {
        return None;
    }
    let block = state.block_of[i];
    if f.block_preds(block).is_empty() || span.to > ProgPoint::before(f.block_insts(block).end) {
        return None;
    }
    if !t.rr.uses[r].iter().all(is_ghost) {
        return None;
    }
    // A range starting at a def must be one of the join's parameters (its in-edges write it).
    (t.rr.flags[r] & RangeFlags::STARTS_AT_DEF == 0
        || f.block_params(block).contains(&t.rr.vregs[r]))
    .then_some(block)
}

/// Where `vreg` is at point `q` (a register preferred when several ranges cover it), or
/// `None` when no range covers it.
pub(super) fn place_at(
    t: &Tables<'_>,
    by_vreg: ByVreg<'_>,
    vreg: VReg,
    q: ProgPoint,
) -> Option<Place> {
    place_in(t, vreg_entries(by_vreg, vreg), q)
}

/// The entries of `vreg` in `by_vreg` (sorted by start), for [`place_in`]: the two binary
/// searches over the whole index done once for a walk that asks about one vreg at many
/// points.
pub(super) fn vreg_entries(by_vreg: ByVreg<'_>, vreg: VReg) -> ByVreg<'_> {
    let v = vreg.index() as u32;
    let all = by_vreg.entries;
    let lo = all.partition_point(|e| e.0 < v);
    let hi = lo + all[lo..].partition_point(|e| e.0 == v);
    ByVreg {
        entries: &all[lo..hi],
        reach: &by_vreg.reach[lo..hi],
    }
}

/// [`place_at`] over one vreg's entries (from [`vreg_entries`]): a register if one covering
/// range is in one, else another place if one is neither, else the stack (the same in any
/// order of the covering ranges).
pub(super) fn place_in(t: &Tables<'_>, entries: ByVreg<'_>, q: ProgPoint) -> Option<Place> {
    let mut found = None;
    for r in covering(t, entries, q) {
        let place = place_of(t, r);
        match (found, place) {
            (_, Place::Reg) => return Some(Place::Reg),
            (None, p) | (Some(Place::Stack), p) => found = Some(p),
            _ => {}
        }
    }
    found
}

/// The ranges among one vreg's `entries` (from [`vreg_entries`]) that cover point `q`, in
/// reverse start order: from the last range starting at or before `q` back to the first
/// entry, stopping where the reach shows that no earlier range ends after `q` (ranges
/// inside blocks of a long-lived, often split vreg were all walked, at every query).
pub(super) fn covering<'a>(
    t: &'a Tables<'_>,
    entries: ByVreg<'a>,
    q: ProgPoint,
) -> impl Iterator<Item = usize> + 'a {
    let hi = entries.entries.partition_point(|e| e.1 <= q.0);
    (0..hi)
        .rev()
        .take_while(move |&i| entries.reach[i] > q.0)
        .map(move |i| entries.entries[i].2 as usize)
        .filter(move |&r| t.rr.spans[r].to > q)
}

/// The place of range `r` from its bundle (before slots are numbered).
pub(super) fn place_of(t: &Tables<'_>, r: usize) -> Place {
    let b = t.rr.bundles[r].index();
    match t.br.allocs[b] {
        Allocation::Reg(_) => Place::Reg,
        Allocation::None if t.sets.state[t.br.spill_sets[b].index()].required => Place::Stack,
        _ => Place::Other,
    }
}

/// 4^depth, the loop weight of an edit at depth `depth`.
pub(super) fn weight(depth: u32) -> u64 {
    1u64 << (2 * depth.min(10))
}

/// Adds the cost of one flow between a neighbour at `place` and the range, weighing `w`:
/// `(cost in the register, cost on the stack)` in tenths. `None` when the neighbour's place
/// is unknown.
pub(super) fn add(
    costs: &mut (u64, u64),
    place: Option<Place>,
    w: u64,
    into_range: bool,
) -> Option<()> {
    match place {
        None => {}
        Some(Place::Other) => return None,
        // Register to register is a move (or nothing); register to slot a store, slot to
        // register a reload.
        Some(Place::Reg) => costs.1 += if into_range { 10 } else { 40 } * w,
        Some(Place::Stack) => costs.0 += if into_range { 40 } else { 10 } * w,
    }
    Some(())
}

/// Whether range `r` costs less in its spill slot than in its register (see the module doc).
fn cheaper_on_stack<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    rs: &RangeSide,
    by_vreg: ByVreg<'_>,
    r: usize,
    block: MBlock,
) -> bool {
    let span = t.rr.spans[r];
    let vreg = t.rr.vregs[r];
    let own = vreg_entries(by_vreg, vreg);
    let param = f.block_params(block).iter().position(|&p| p == vreg);
    let mut costs = (0u64, 0u64);
    // In-edges: the parameter's argument, or the vreg itself, at each predecessor's exit.
    for &pred in f.block_preds(block) {
        if pred == block {
            return false;
        }
        let exit = ProgPoint::after(f.block_insts(pred).last());
        let source = match param {
            Some(k) => {
                let Some(s) = f.block_succs(pred).iter().position(|&s| s == block) else {
                    return false;
                };
                f.branch_args(pred, s)[k]
            }
            None => vreg,
        };
        let place = place_at(t, by_vreg, source, exit);
        if add(&mut costs, place, weight(rs.loop_depth[pred.index()]), true).is_none() {
            return false;
        }
    }
    let end = ProgPoint::before(f.block_insts(block).end);
    if span.to < end {
        // The vreg continues in another range in this block.
        let place = place_in(t, own, span.to);
        if add(
            &mut costs,
            place,
            weight(rs.loop_depth[block.index()]),
            false,
        )
        .is_none()
        {
            return false;
        }
    } else {
        for (s, &succ) in f.block_succs(block).iter().enumerate() {
            let start = ProgPoint::before(f.block_insts(succ).start);
            let depth = if f.block_preds(succ).len() > 1 {
                rs.loop_depth[block.index()]
            } else {
                rs.loop_depth[succ.index()]
            };
            let w = weight(depth);
            if add(&mut costs, place_in(t, own, start), w, false).is_none() {
                return false;
            }
            let args = f.branch_args(block, s);
            for (&a, &p) in args.iter().zip(f.block_params(succ)) {
                if a == vreg && add(&mut costs, place_at(t, by_vreg, p, start), w, false).is_none()
                {
                    return false;
                }
            }
        }
    }
    costs.1 < costs.0
}

/// Moves range `r` of bundle `b` (in register `reg`) into its set's spill bundle.
pub(super) fn demote(
    t: &mut Tables<'_>,
    state: &mut IonState,
    r: usize,
    b: BundleIndex,
    reg: usize,
) {
    to_spill_bundle(t, state, r, b, reg);
    state.stats.demoted += 1;
    let span = t.rr.spans[r];
    super::note!(
        state,
        span.from,
        "{}: join range {span} to the stack (its neighbours are there)",
        t.rr.vregs[r]
    );
}

/// Moves range `r` of bundle `b` (in register `reg`) into its set's spill bundle, without
/// counting it.
pub(super) fn to_spill_bundle(
    t: &mut Tables<'_>,
    state: &mut IonState,
    r: usize,
    b: BundleIndex,
    reg: usize,
) {
    let span = t.rr.spans[r];
    let set = t.br.spill_sets[b.index()].index();
    let sb = t.sets.state[set].spill_bundle;
    state.maps[reg].remove(span.from);
    let list = &mut t.br.ranges[b.index()];
    if let Some(k) = list.iter().position(|e| e.index.index() == r) {
        list.remove(k);
    }
    t.rr.bundles[r] = sb;
    let spill = &mut t.br.ranges[sb.index()];
    let k = spill.partition_point(|e| e.range.from < span.from);
    spill.insert(
        k,
        RangeEntry {
            range: span,
            index: LiveRangeIndex::new(r),
        },
    );
}

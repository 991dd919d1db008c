//! Use-free tails of register ranges move to the stack when the blocks they cover are
//! entered from the stack (after join demotion, before spill slots).
//!
//! What: `demote_tails` looks at every live range a register holds whose value's spill set
//! already lives on the stack, and that reaches, past the block of its last operand, over
//! whole blocks to a block end (its use-free tail; a back edge's argument use only keeps the
//! location up to the branch). In layout order such a tail often covers blocks that control
//! flow reaches from elsewhere: the latch and case blocks of an inner loop laid out after the
//! outer loop's body, entered from the inner loop's header where the value sits in its slot.
//! In the register, every such in-edge reloads the value and the back edge stores it again,
//! though no operand reads it there (`pack` in jansson.O2 on aarch64: three values live across
//! an inner loop paid a reload on each of five case edges and a store on the back edge, at
//! loop depth 2). For each candidate the cut is chosen among the block starts of the tail:
//! with the neighbours placed, the cost of the blocks from the cut to the end in the register
//! or in the slot is the sum over the edges that enter or leave them (a reload where a slot
//! meets the register, a store where a register meets the slot, each times 4^loop depth of
//! where the edge's moves sit: the predecessor's when the successor is a join, else the
//! successor's; [`super::demote`]'s weights), plus the branch arguments the value feeds to
//! parameters. The cut with the largest saving, if any, splits the range: the head keeps
//! its register, the tail joins the spill set's spill bundle (only a set whose spill bundle
//! already lives on the stack: no new slot, no new bundle row).
//!
//! The range may end inside its last block, where the vreg's next range takes over: that
//! flow then replaces the block's out-edges.
//!
//! Slots: a tail on the stack makes its set hold the slot longer. Spill slots are colored
//! with the cuts and, for a function with cuts, again without them; the cuts stay only if
//! they open no slot ([`super::spill::allocate_spill_slots`]; each module's slot count over
//! both targets' corpora went up by 1 to 7 without this check).
//!
//! The costs of all cuts come from one pass from the tail's last block back to its first:
//! adding a block to the suffix adds its edges to blocks outside and takes back what its
//! edges to blocks already inside had added.
//!
//! Rows: each cut takes one new live-range row; the allocation loop keeps
//! `row_bound` rows in reserve when it ends, so no table grows here.
//!
//! Invariants: the head and the tail keep the vreg, are disjoint and cover the old span;
//! the tail's uses are back-edge argument uses only; register maps stay disjoint (an entry
//! only shrinks); the spill bundle's range list stays sorted.
//!
//! Complexity: O(ranges) to find candidates; per candidate O(edges of its tail's blocks x
//! ranges of the vregs involved).

use super::demote::{add, is_ghost, place_at, weight};
use super::process::{Tables, DEAD};
use super::IonState;
use crate::machine::{MBlock, MachineRead};
use crate::regalloc::handles::{BundleIndex, LiveRangeIndex};
use crate::regalloc::location::Allocation;
use crate::regalloc::point::{CodeRange, ProgPoint};
use crate::regalloc::ranges::{RangeEntry, RangeSide};

/// (first, last) block index of range `r`'s use-free tail: the blocks after the block of
/// its last operand (or of its start) that it reaches into (the last one possibly only up
/// to where the vreg's next range starts).
fn tail_blocks(t: &Tables<'_>, state: &IonState, r: usize) -> Option<(usize, usize)> {
    let span = t.rr.spans[r];
    let last = t.rr.uses[r]
        .iter()
        .rev()
        .find(|u| !is_ghost(u))
        .map_or(span.from, |u| u.point);
    let from = state.block_of.get(last.inst().index())?.index();
    let to = state.block_of.get(span.to.prev().inst().index())?.index();
    (to > from).then_some((from + 1, to))
}

/// Live-range rows `demote_tails` may take: one per range with a use-free tail (an upper
/// bound, whatever the ranges' locations).
pub(crate) fn row_bound(t: &Tables<'_>, state: &IonState) -> usize {
    (0..t.counts.ranges)
        .filter(|&r| t.rr.bundles[r] != DEAD && tail_blocks(t, state, r).is_some())
        .count()
}

/// Range `r`'s bundle when it is a candidate (see the module doc).
fn candidate(t: &Tables<'_>, r: usize) -> Option<BundleIndex> {
    let b = t.rr.bundles[r];
    if b == DEAD {
        return None;
    }
    t.br.allocs[b.index()].as_reg()?;
    let st = &t.sets.state[t.br.spill_sets[b.index()].index()];
    let sb = st.spill_bundle;
    (st.required && !sb.is_none() && t.br.allocs[sb.index()] == Allocation::None).then_some(b)
}

/// Whether some range may have its tail demoted (cheap: decides whether the per-vreg index
/// is needed).
pub(crate) fn any_candidate(t: &Tables<'_>, state: &IonState) -> bool {
    (0..t.counts.ranges).any(|r| candidate(t, r).is_some() && tail_blocks(t, state, r).is_some())
}

/// The `demote_tails` step (see the module doc). `by_vreg`: the per-vreg range index
/// (`demote::ranges_by_vreg`) of this function.
pub(crate) fn demote_tails<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut Tables<'_>,
    rs: &RangeSide,
    state: &mut IonState,
    by_vreg: &[(u32, u32, u32)],
) {
    let n = t.counts.ranges;
    for r in 0..n {
        let Some(b) = candidate(t, r) else {
            continue;
        };
        let Some((first, last)) = tail_blocks(t, state, r) else {
            continue;
        };
        if let Some(k) = best_cut(f, t, rs, by_vreg, r, first, last) {
            cut(f, t, state, r, b, k);
        }
    }
}

/// The weight of the moves on edge `p -> q` (see the module doc).
fn edge_weight<F: MachineRead + ?Sized>(f: &F, rs: &RangeSide, p: MBlock, q: MBlock) -> u64 {
    let depth = if f.block_preds(q).len() > 1 {
        rs.loop_depth[p.index()]
    } else {
        rs.loop_depth[q.index()]
    };
    weight(depth)
}

/// The block index where the tail of range `r` (blocks `first..=last`) is best cut, when a
/// cut saves anything (see the module doc).
fn best_cut<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    rs: &RangeSide,
    by_vreg: &[(u32, u32, u32)],
    r: usize,
    first: usize,
    last: usize,
) -> Option<usize> {
    let span = t.rr.spans[r];
    let vreg = t.rr.vregs[r];
    // The range may end inside its last block, where the vreg's next range takes over.
    let end_inside = span.to < ProgPoint::before(f.block_insts(MBlock::new(last)).end);
    // (cost in the register, cost on the stack), in tenths, of blocks k..=last.
    let mut costs = (0u64, 0u64);
    // What edges inside the suffix had added to the stack cost, taken back at the end.
    let mut back = 0u64;
    let mut best: Option<(u64, usize)> = None;
    for k in (first..=last).rev() {
        let x = MBlock::new(k);
        if f.block_params(x).contains(&vreg) {
            break;
        }
        // Blocks of the suffix whose exit the range reaches.
        let inside = |i: usize| i > k && i <= last && !(i == last && end_inside);
        let mut ok = true;
        for &p in f.block_preds(x) {
            let w = edge_weight(f, rs, p, x);
            if inside(p.index()) {
                // Counted as a reload into x (in the register then) when p's out-edges
                // were added.
                back += 40 * w;
            } else if p.index() != k {
                let exit = ProgPoint::after(f.block_insts(p).last());
                ok &= add(&mut costs, place_at(t, by_vreg, vreg, exit), w, true).is_some();
            }
        }
        if k == last && end_inside {
            let w = weight(rs.loop_depth[k]);
            ok &= add(&mut costs, place_at(t, by_vreg, vreg, span.to), w, false).is_some();
        }
        let succs = if k == last && end_inside {
            &[][..]
        } else {
            f.block_succs(x)
        };
        for (s, &q) in succs.iter().enumerate() {
            let w = edge_weight(f, rs, x, q);
            let start = ProgPoint::before(f.block_insts(q).start);
            for (&a, &p) in f.branch_args(x, s).iter().zip(f.block_params(q)) {
                if a == vreg {
                    ok &= add(&mut costs, place_at(t, by_vreg, p, start), w, false).is_some();
                }
            }
            if inside(q.index()) {
                // Counted as a store out of x (in the register then) when q's in-edges
                // were added.
                back += 10 * w;
            } else if q.index() != k {
                ok &= add(&mut costs, place_at(t, by_vreg, vreg, start), w, false).is_some();
            }
        }
        if !ok {
            break;
        }
        let stack = costs.1.saturating_sub(back);
        if stack < costs.0 && best.is_none_or(|(saved, _)| costs.0 - stack > saved) {
            best = Some((costs.0 - stack, k));
        }
    }
    best.map(|(_, k)| k)
}

/// Cuts range `r` of bundle `b` at the start of block `k`: the tail, a new range row,
/// joins the spill set's spill bundle (the cut is recorded in `state.tail_cuts`).
fn cut<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut Tables<'_>,
    state: &mut IonState,
    r: usize,
    b: BundleIndex,
    k: usize,
) {
    let span = t.rr.spans[r];
    let at = ProgPoint::before(f.block_insts(MBlock::new(k)).start);
    let sb = t.sets.state[t.br.spill_sets[b.index()].index()].spill_bundle;
    let nr = t.new_range(CodeRange::new(at, span.to), t.rr.vregs[r], sb, 0);
    apply(t, state, r, nr.index());
    state.tail_cuts.push((r as u32, nr.index() as u32));
    super::note!(
        state,
        at,
        "{}: use-free tail [{at}, {}) to the stack",
        t.rr.vregs[r],
        span.to
    );
}

/// Moves the part of range `r` from the start of range row `nr` (its tail, span set) into
/// `nr`, in the spill set's spill bundle; `r` keeps its register over the rest.
fn apply(t: &mut Tables<'_>, state: &mut IonState, r: usize, nr: usize) {
    let b = t.rr.bundles[r];
    let Allocation::Reg(reg) = t.br.allocs[b.index()] else {
        return;
    };
    let sb = t.sets.state[t.br.spill_sets[b.index()].index()].spill_bundle;
    let span = t.rr.spans[r];
    let tail = t.rr.spans[nr];
    let at = tail.from;
    t.rr.bundles[nr] = sb;
    let mut uses = std::mem::take(&mut t.rr.uses[r]);
    let keep = uses.partition_point(|u| u.point < at);
    t.rr.uses[nr].clear();
    t.rr.uses[nr].extend(uses.drain(keep..));
    t.rr.uses[r] = uses;
    t.rr.spans[r].to = at;
    if let Some(e) = t.br.ranges[b.index()]
        .iter_mut()
        .find(|e| e.index.index() == r)
    {
        e.range.to = at;
    }
    let map = &mut state.maps[reg.dense_index()];
    map.remove(span.from);
    map.insert(CodeRange::new(span.from, at), b);
    let spill = &mut t.br.ranges[sb.index()];
    let i = spill.partition_point(|e| e.range.from < at);
    spill.insert(
        i,
        RangeEntry {
            range: tail,
            index: LiveRangeIndex::new(nr),
        },
    );
}

/// Joins the tail row `nr` back to range `r` (undoes `apply`); `nr` keeps its span and
/// no bundle holds it.
fn join(t: &mut Tables<'_>, state: &mut IonState, r: usize, nr: usize) {
    let b = t.rr.bundles[r];
    let sb = t.rr.bundles[nr];
    let Allocation::Reg(reg) = t.br.allocs[b.index()] else {
        return;
    };
    let span = t.rr.spans[r];
    let tail = t.rr.spans[nr];
    t.rr.bundles[nr] = DEAD;
    let mut uses = std::mem::take(&mut t.rr.uses[nr]);
    t.rr.uses[r].extend(uses.drain(..));
    t.rr.uses[nr] = uses;
    t.rr.spans[r].to = tail.to;
    if let Some(e) = t.br.ranges[b.index()]
        .iter_mut()
        .find(|e| e.index.index() == r)
    {
        e.range.to = tail.to;
    }
    let map = &mut state.maps[reg.dense_index()];
    map.remove(span.from);
    map.insert(CodeRange::new(span.from, tail.to), b);
    let spill = &mut t.br.ranges[sb.index()];
    if let Some(i) = spill.iter().position(|e| e.index.index() == nr) {
        spill.remove(i);
    }
}

/// Undoes every cut of this function (`undo`) or applies them again (see
/// [`super::spill::allocate_spill_slots`], which keeps them only when they open no spill
/// slot).
pub(crate) fn set_cuts(t: &mut Tables<'_>, state: &mut IonState, undo: bool) {
    let cuts = std::mem::take(&mut state.tail_cuts);
    if undo {
        for &(r, nr) in cuts.iter().rev() {
            join(t, state, r as usize, nr as usize);
        }
    } else {
        for &(r, nr) in &cuts {
            apply(t, state, r as usize, nr as usize);
        }
    }
    state.tail_cuts = cuts;
}

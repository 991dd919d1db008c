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
//! already lives on the stack: no new slot, no new bundle row). A range with no operand
//! that starts at the start of its block may be cut at that block too: it then joins the
//! spill bundle whole (no head, no new row; not undone by the slot check below, like a
//! join demotion).
//!
//! The range may end inside its last block, where the vreg's next range takes over: that
//! flow then replaces the block's out-edges.
//!
//! Middle stretches: a range whose operands lie in two blocks with whole blocks between
//! them may carry the value through an inner loop's case blocks laid out there, entered
//! from the loop's body where the value sits in its slot (`pack` in jansson.O2 on aarch64:
//! two values used after two inner loops reloaded on five case edges at loop depth 2 and
//! stored on each back edge). After the suffix cuts, each candidate range gets at most one
//! middle stretch cut out: the stretch ends at the block before the later operand's or at
//! a block whose loop depth is above the next block's (a loop exit in layout order; up to
//! `STRETCH_ENDS` ends per gap), its start and cost come from the same backward pass as a
//! suffix's (the blocks after the stretch keep the register), and it must save cost
//! without adding edits (counted unweighted by the same pass). The stretch joins the spill
//! bundle; the rest of the range after it, a second new row, stays in the bundle and its
//! register.
//!
//! Slots: a tail on the stack makes its set hold the slot longer. Spill slots are colored
//! with the cuts and, for a function with cuts, again without them; the cuts stay only if
//! they open no slot ([`super::spill::allocate_spill_slots`]; each module's slot count over
//! both targets' corpora went up by 1 to 7 without this check). When they open one and
//! middle stretches are among them, the suffix cuts alone are colored once more and stay
//! if they open none (else `sendMTFValues` in bzip2.O2 lost its suffix cuts to a stretch).
//!
//! The costs of all cuts come from one pass from the tail's last block back to its first:
//! adding a block to the suffix adds its edges to blocks outside and takes back what its
//! edges to blocks already inside had added.
//!
//! Rows: each suffix cut takes one new live-range row, each middle stretch two; the
//! allocation loop keeps `row_bound` rows in reserve when it ends (one per range with a
//! use-free tail, two per range over three blocks or more), so no table grows here.
//!
//! Invariants: the head and the tail (and the rest) keep the vreg, are disjoint and cover
//! the old span;
//! the tail's uses are back-edge argument uses only; register maps stay disjoint (an entry
//! only shrinks); the spill bundle's range list stays sorted.
//!
//! Complexity: O(ranges) to find candidates; per candidate O(edges of its tail's blocks x
//! ranges of the vregs involved), and for middle stretches at most `STRETCH_ENDS` such
//! passes per gap between two operand blocks.

use super::demote::{add, is_ghost, place_at, place_in, vreg_entries, weight, ByVreg, Place};
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
    let to = state.block_of.get(span.to.prev().inst().index())?.index();
    // Blocks are laid out in order and the uses lie in the span, so a range that ends in
    // the block it starts in has no tail whatever its uses (most ranges: no use scan).
    if state.block_of.get(span.from.inst().index())?.index() >= to {
        return None;
    }
    let last = t.rr.uses[r]
        .iter()
        .rev()
        .find(|u| !is_ghost(u))
        .map_or(span.from, |u| u.point);
    let from = state.block_of.get(last.inst().index())?.index();
    (to > from).then_some((from + 1, to))
}

/// Whether range `r` has no operand (a back edge's argument use aside) and starts at the
/// start of its block (so that moving it whole to the stack leaves no head behind).
pub(super) fn whole_block_start<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    state: &IonState,
    r: usize,
) -> bool {
    let from = t.rr.spans[r].from;
    let Some(&block) = state.block_of.get(from.inst().index()) else {
        return false;
    };
    from == ProgPoint::before(f.block_insts(block).start) && t.rr.uses[r].iter().all(is_ghost)
}

/// Live-range rows `demote_tails` may take: one per range with a use-free tail (an upper
/// bound, whatever the ranges' locations).
pub(crate) fn row_bound(t: &Tables<'_>, state: &IonState) -> usize {
    (0..t.counts.ranges)
        .filter(|&r| t.rr.bundles[r] != DEAD)
        .map(|r| {
            usize::from(tail_blocks(t, state, r).is_some())
                + 2 * usize::from(spans_gap(t, state, r))
        })
        .sum()
}

/// Whether range `r` covers some whole block between two others (it may then have a
/// middle stretch cut off: two rows).
fn spans_gap(t: &Tables<'_>, state: &IonState, r: usize) -> bool {
    let span = t.rr.spans[r];
    let block = |p: ProgPoint| state.block_of.get(p.inst().index()).map(|b| b.index());
    matches!((block(span.from), block(span.to.prev())), (Some(a), Some(z)) if z >= a + 2)
}

/// Range `r`'s bundle when it is a candidate (see the module doc): a register holds it and
/// its spill set's spill bundle lives on the stack.
pub(super) fn candidate(t: &Tables<'_>, r: usize) -> Option<BundleIndex> {
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
    by_vreg: ByVreg<'_>,
) {
    let n = t.counts.ranges;
    for r in 0..n {
        let Some(b) = candidate(t, r) else {
            continue;
        };
        let Some((first, last)) = tail_blocks(t, state, r) else {
            continue;
        };
        // A range with no operand that starts where its block does may go to the stack
        // whole (no new row): its first block is a candidate too.
        let whole = whole_block_start(f, t, state, r);
        let lo = if whole { first - 1 } else { first };
        match best_cut(f, t, rs, by_vreg, r, lo, last, false) {
            Some((_, k)) if whole && k == lo => {
                let reg = t.br.allocs[b.index()]
                    .as_reg()
                    .expect("a candidate's register");
                super::demote::demote(t, state, r, b, reg.dense_index());
            }
            Some((_, k)) => cut(f, t, state, r, b, k),
            None => {}
        }
    }
    for r in 0..n {
        let Some(b) = candidate(t, r) else {
            continue;
        };
        if !spans_gap(t, state, r) {
            continue;
        }
        if let Some((k, m)) = best_stretch(f, t, rs, state, by_vreg, r) {
            cut_stretch(f, t, state, r, b, k, m);
        }
    }
}

/// Loop-exit ends tried per gap between two operand blocks (see [`best_stretch`]).
const STRETCH_ENDS: usize = 4;

/// The blocks `k..=m` of the best use-free middle stretch of range `r` to move to the
/// stack, when one saves anything: between the blocks of two consecutive operands of `r`
/// at least one whole block lies; the stretch ends at the block before the later operand's
/// or at a block whose loop depth is above the next one's (up to `STRETCH_ENDS` ends
/// per gap, last first), and starts where [`best_cut`] finds the largest saving.
fn best_stretch<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    rs: &RangeSide,
    state: &IonState,
    by_vreg: ByVreg<'_>,
    r: usize,
) -> Option<(usize, usize)> {
    let mut best: Option<(u64, usize, usize)> = None;
    let mut prev: Option<usize> = None;
    for u in t.rr.uses[r].iter().filter(|u| !is_ghost(u)) {
        let bu = state.block_of.get(u.point.inst().index())?.index();
        if let Some(a) = prev {
            if bu >= a + 2 {
                let mut ends = 0;
                for m in (a + 1..bu).rev() {
                    if ends == STRETCH_ENDS {
                        break;
                    }
                    if m + 1 != bu && rs.loop_depth[m] <= rs.loop_depth[m + 1] {
                        continue;
                    }
                    ends += 1;
                    if let Some((saved, k)) = best_cut(f, t, rs, by_vreg, r, a + 1, m, true) {
                        if best.is_none_or(|(s, _, _)| saved > s) {
                            best = Some((saved, k, m));
                        }
                    }
                }
            }
        }
        prev = Some(bu);
    }
    best.map(|(_, k, m)| (k, m))
}

/// The weight of the moves on edge `p -> q` (see the module doc).
pub(super) fn edge_weight<F: MachineRead + ?Sized>(
    f: &F,
    rs: &RangeSide,
    p: MBlock,
    q: MBlock,
) -> u64 {
    let depth = if f.block_preds(q).len() > 1 {
        rs.loop_depth[p.index()]
    } else {
        rs.loop_depth[q.index()]
    };
    weight(depth)
}

/// (saving, block index) of the best cut of the stretch `first..=last` of range `r`: the
/// blocks from the cut to `last` move to the stack, when that saves anything (see the
/// module doc). `middle`: the range goes on in its register after block `last` (a middle
/// stretch), and the cut must not add edits either (counted unweighted the same way).
#[allow(clippy::too_many_arguments)]
fn best_cut<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    rs: &RangeSide,
    by_vreg: ByVreg<'_>,
    r: usize,
    first: usize,
    last: usize,
    middle: bool,
) -> Option<(u64, usize)> {
    let span = t.rr.spans[r];
    let vreg = t.rr.vregs[r];
    let own = vreg_entries(by_vreg, vreg);
    // The range may end inside its last block, where the vreg's next range takes over.
    let end_inside = !middle && span.to < ProgPoint::before(f.block_insts(MBlock::new(last)).end);
    // (cost in the register, cost on the stack), in tenths, of blocks k..=last.
    let mut costs = (0u64, 0u64);
    // What edges inside the suffix had added to the stack cost, taken back at the end.
    let mut back = 0u64;
    // The same as edit counts (unweighted).
    let mut edits = (0u64, 0u64);
    let mut back_edits = 0u64;
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
                back_edits += 1;
            } else if p.index() != k {
                let exit = ProgPoint::after(f.block_insts(p).last());
                let place = place_in(t, own, exit);
                ok &= add(&mut costs, place, w, true).is_some();
                count(&mut edits, place);
            }
        }
        if k == last && end_inside {
            let w = weight(rs.loop_depth[k]);
            let place = place_in(t, own, span.to);
            ok &= add(&mut costs, place, w, false).is_some();
            count(&mut edits, place);
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
                    let place = place_at(t, by_vreg, p, start);
                    ok &= add(&mut costs, place, w, false).is_some();
                    count(&mut edits, place);
                }
            }
            if inside(q.index()) {
                // Counted as a store out of x (in the register then) when q's in-edges
                // were added.
                back += 10 * w;
                back_edits += 1;
            } else if q.index() != k {
                let place = place_in(t, own, start);
                ok &= add(&mut costs, place, w, false).is_some();
                count(&mut edits, place);
            }
        }
        if !ok {
            break;
        }
        let stack = costs.1.saturating_sub(back);
        let fewer_edits = edits.1.saturating_sub(back_edits) <= edits.0;
        if stack < costs.0
            && (fewer_edits || !middle)
            && best.is_none_or(|(saved, _)| costs.0 - stack > saved)
        {
            best = Some((costs.0 - stack, k));
        }
    }
    best
}

/// Counts one edit flow with a neighbour at `place` into `edits` (in the register, on the
/// stack), as `add` weighs costs: a neighbour in a register costs the stack side one edit,
/// one on the stack the register side.
pub(super) fn count(edits: &mut (u64, u64), place: Option<Place>) {
    match place {
        Some(Place::Reg) => edits.1 += 1,
        Some(Place::Stack) => edits.0 += 1,
        _ => {}
    }
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
    apply(t, state, r, nr.index(), None);
    state
        .tail_cuts
        .push((r as u32, nr.index() as u32, u32::MAX));
    super::note!(
        state,
        at,
        "{}: use-free tail [{at}, {}) to the stack",
        t.rr.vregs[r],
        span.to
    );
}

/// Moves the stack row `stack` (a tail or a middle stretch, its span set) out of range `r`
/// into the spill set's spill bundle; for a stretch, the `rest` row (span set) takes the
/// part of `r` after it and stays in `r`'s bundle and register. `r` keeps its register up
/// to the stack row. [`join`] undoes it.
fn apply(t: &mut Tables<'_>, state: &mut IonState, r: usize, stack: usize, rest: Option<usize>) {
    let b = t.rr.bundles[r];
    let Allocation::Reg(reg) = t.br.allocs[b.index()] else {
        return;
    };
    let sb = t.sets.state[t.br.spill_sets[b.index()].index()].spill_bundle;
    let span = t.rr.spans[r];
    let moved = t.rr.spans[stack];
    let rest = rest.map(|q| (q, t.rr.spans[q]));
    t.rr.bundles[stack] = sb;
    let mut uses = std::mem::take(&mut t.rr.uses[r]);
    if let Some((q, range)) = rest {
        t.rr.bundles[q] = b;
        let j = uses.partition_point(|u| u.point < range.from);
        t.rr.uses[q].clear();
        t.rr.uses[q].extend(uses.drain(j..));
    }
    let i = uses.partition_point(|u| u.point < moved.from);
    t.rr.uses[stack].clear();
    t.rr.uses[stack].extend(uses.drain(i..));
    t.rr.uses[r] = uses;
    t.rr.spans[r].to = moved.from;
    let own = &mut t.br.ranges[b.index()];
    if let Some(e) = own.iter_mut().find(|e| e.index.index() == r) {
        e.range.to = moved.from;
    }
    let map = &mut state.maps[reg.dense_index()];
    map.remove(span.from);
    map.insert(CodeRange::new(span.from, moved.from), b);
    if let Some((q, range)) = rest {
        let at = own.partition_point(|e| e.range.from < range.from);
        own.insert(
            at,
            RangeEntry {
                range,
                index: LiveRangeIndex::new(q),
            },
        );
        map.insert(range, b);
    }
    let spill = &mut t.br.ranges[sb.index()];
    let at = spill.partition_point(|e| e.range.from < moved.from);
    spill.insert(
        at,
        RangeEntry {
            range: moved,
            index: LiveRangeIndex::new(stack),
        },
    );
}

/// Cuts the blocks `k..=m` out of range `r` of bundle `b`: the stretch, a new range row,
/// joins the spill set's spill bundle, the rest after it, another new row, stays in `b`
/// (recorded in `state.tail_cuts`).
fn cut_stretch<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut Tables<'_>,
    state: &mut IonState,
    r: usize,
    b: BundleIndex,
    k: usize,
    m: usize,
) {
    let span = t.rr.spans[r];
    let at = ProgPoint::before(f.block_insts(MBlock::new(k)).start);
    let to = ProgPoint::before(f.block_insts(MBlock::new(m + 1)).start);
    let sb = t.sets.state[t.br.spill_sets[b.index()].index()].spill_bundle;
    let vreg = t.rr.vregs[r];
    let nm = t.new_range(CodeRange::new(at, to), vreg, sb, 0).index();
    let nrest = t.new_range(CodeRange::new(to, span.to), vreg, b, 0).index();
    apply(t, state, r, nm, Some(nrest));
    state.tail_cuts.push((r as u32, nm as u32, nrest as u32));
    super::note!(
        state,
        at,
        "{vreg}: use-free stretch [{at}, {to}) to the stack"
    );
}

/// Joins the stack row `stack` (a tail or a middle stretch, in the spill bundle) and, for
/// a stretch, the `rest` row after it (in `r`'s bundle) back to range `r`: undoes [`apply`].
/// The rows keep their spans, and no bundle holds them after.
fn join(t: &mut Tables<'_>, state: &mut IonState, r: usize, stack: usize, rest: Option<usize>) {
    let b = t.rr.bundles[r];
    let sb = t.rr.bundles[stack];
    let Allocation::Reg(reg) = t.br.allocs[b.index()] else {
        return;
    };
    let span = t.rr.spans[r];
    let to = t.rr.spans[rest.unwrap_or(stack)].to;
    for q in std::iter::once(stack).chain(rest) {
        t.rr.bundles[q] = DEAD;
        let mut uses = std::mem::take(&mut t.rr.uses[q]);
        t.rr.uses[r].extend(uses.drain(..));
        t.rr.uses[q] = uses;
    }
    t.rr.spans[r].to = to;
    let own = &mut t.br.ranges[b.index()];
    if let Some(i) = rest.and_then(|q| own.iter().position(|e| e.index.index() == q)) {
        own.remove(i);
    }
    if let Some(e) = own.iter_mut().find(|e| e.index.index() == r) {
        e.range.to = to;
    }
    let map = &mut state.maps[reg.dense_index()];
    map.remove(span.from);
    if let Some(q) = rest {
        map.remove(t.rr.spans[q].from);
    }
    map.insert(CodeRange::new(span.from, to), b);
    let spill = &mut t.br.ranges[sb.index()];
    if let Some(i) = spill.iter().position(|e| e.index.index() == stack) {
        spill.remove(i);
    }
}

/// Undoes every cut of this function (`undo`) or applies them again (see
/// [`super::spill::allocate_spill_slots`], which keeps them only when they open no spill
/// slot).
/// With `tails_only`, only the suffix cuts are undone or applied.
pub(crate) fn set_cuts(t: &mut Tables<'_>, state: &mut IonState, undo: bool, tails_only: bool) {
    let cuts = std::mem::take(&mut state.tail_cuts);
    if undo {
        for &(r, nr, rest) in cuts.iter().rev() {
            if tails_only && rest != u32::MAX {
                continue;
            }
            let rest = (rest != u32::MAX).then_some(rest as usize);
            join(t, state, r as usize, nr as usize, rest);
        }
    } else {
        for &(r, nr, rest) in &cuts {
            if tails_only && rest != u32::MAX {
                continue;
            }
            let rest = (rest != u32::MAX).then_some(rest as usize);
            apply(t, state, r as usize, nr as usize, rest);
        }
    }
    state.tail_cuts = cuts;
}

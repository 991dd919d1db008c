//! Splitting bundles (Ion design, "How to Split", "Spill Bundle and Splitting", and the
//! fallback of splitting a bundle into minimal bundles).
//!
//! What: `split` cuts a bundle at a program point into two bundles of the same spill set
//! (a live range under the point is cut too; its uses go to the side of their point), trims
//! the loose ends around the cut into the spill set's spill bundle (the end of the first
//! half past its last use, the start of the second half before its first use, unless that
//! starts at a def, and trailing use-free ranges of the second half that a gap in layout
//! separates from its uses or that start a join, when more of their block's in-edges,
//! weighted by loop depth, come from outside the two halves than from them), and queues both
//! halves with the register hint. The point is adjusted as the seed says: at the bundle start
//! it moves past the first use; an "after" point moves to the next instruction's "before"
//! point (no move can sit between an instruction's uses and defs); with a fixed-register use
//! ahead, to just before that use.
//!
//! `split_into_minimal` (after [`super::MAX_SPLITS_PER_SPILL_SET`] splits of one spill
//! set, or for a bundle spanning one instruction) gives every use that needs a register a
//! bundle of its own covering just its instruction, and moves each whole range, with its
//! `Any` uses, into the spill bundle from the def on; the spill bundle's range is the value's
//! home and the minimal pieces are copies of it (they overlap it).
//!
//! Invariants: after a split the two halves are disjoint and cover the original's ranges
//! minus what went to the spill bundle; new rows come from the reserve checked by the loop.
//!
//! Complexity: O(ranges + uses) of the bundle split.

use super::process::{Tables, DEAD};
use super::{IonState, Need, MAX_SPLITS_PER_SPILL_SET};
use crate::machine::{OperandConstraint, OperandKind};
use crate::regalloc::bundles::BundleProps;
use crate::regalloc::handles::{BundleIndex, LiveRangeIndex, SpillSetIndex};
use crate::regalloc::location::PReg;
use crate::regalloc::point::{CodeRange, ProgPoint};
use crate::regalloc::ranges::{RangeEntry, RangeFlags, Use};
use smallvec::SmallVec;

/// The spill bundle of bundle `b`'s spill set, created (and put on the second-chance list)
/// when absent.
pub(crate) fn spill_bundle(
    t: &mut Tables<'_>,
    state: &mut IonState,
    b: BundleIndex,
) -> BundleIndex {
    let set = t.br.spill_sets[b.index()];
    let existing = t.sets.state[set.index()].spill_bundle;
    if !existing.is_none() {
        return existing;
    }
    let s = t.new_bundle(set);
    t.sets.state[set.index()].spill_bundle = s;
    state.spilled.push(s);
    state.stats.spill_bundles += 1;
    s
}

/// Moves every range of bundle `b` into `spill` (whose range list stays unsorted).
pub(crate) fn move_to_spill_bundle(t: &mut Tables<'_>, b: BundleIndex, spill: BundleIndex) {
    let list = std::mem::take(&mut t.br.ranges[b.index()]);
    for e in &list {
        t.rr.bundles[e.index.index()] = spill;
    }
    t.br.ranges[spill.index()].extend_from_slice(&list);
    let mut list = list;
    list.clear();
    t.br.ranges[b.index()] = list;
}

fn hint_bits(hint: Option<PReg>) -> u8 {
    hint.map_or(super::process::NO_HINT, |r| r.dense_index() as u8)
}

fn enqueue(t: &mut Tables<'_>, state: &mut IonState, b: BundleIndex, hint: Option<PReg>) {
    if t.br.ranges[b.index()].is_empty() {
        return;
    }
    let need = t.recompute(b, state.fixed_stack);
    super::process::set_need(state, b, need);
    state.queue.push(super::QueueEntry::new(
        t.br.props[b.index()].priority,
        b,
        hint_bits(hint),
    ));
}

/// Adjusts a split point as the seed says; `None` when no point strictly inside the bundle
/// is left (the caller splits into minimal bundles).
fn split_point(t: &Tables<'_>, b: BundleIndex, at: ProgPoint) -> Option<ProgPoint> {
    let list = &t.br.ranges[b.index()];
    let start = list[0].range.from;
    let end = list[list.len() - 1].range.to;
    let mut at = if at <= start {
        let first_use = list
            .iter()
            .find_map(|e| t.rr.uses[e.index.index()].first().map(|u| u.point));
        match first_use {
            Some(p) if p.inst() == start.inst() => ProgPoint::before(p.inst() + 1),
            Some(p) => ProgPoint::before(p.inst()),
            None => ProgPoint::before(start.inst() + 1),
        }
    } else if at.is_after() {
        at.next()
    } else {
        at
    };
    if at >= end {
        at = ProgPoint::before(end.prev().inst());
    }
    if t.br.props[b.index()].flags & BundleProps::FIXED != 0 {
        // Just before the first fixed-register use at or after the point, if inside.
        let fixed = list
            .iter()
            .filter(|e| e.range.to > at)
            .flat_map(|e| t.rr.uses[e.index.index()].iter())
            .find(|u| {
                u.point >= at && matches!(u.operand.constraint, OperandConstraint::FixedReg(_))
            });
        if let Some(u) = fixed {
            let p = ProgPoint::before(u.point.inst());
            if p > start && p < end {
                at = p;
            }
        }
    }
    (at > start && at < end && !at.is_after()).then_some(at)
}

/// Splits bundle `b` at `at` and queues both halves with `hint` (see the module doc).
pub(crate) fn split(
    t: &mut Tables<'_>,
    state: &mut IonState,
    b: BundleIndex,
    at: ProgPoint,
    hint: Option<PReg>,
    trim: bool,
) {
    let set = t.br.spill_sets[b.index()];
    let list = &t.br.ranges[b.index()];
    let spans_one = list[0].range.from.inst() == list[list.len() - 1].range.to.prev().inst();
    if spans_one || t.sets.state[set.index()].splits >= MAX_SPLITS_PER_SPILL_SET {
        split_into_minimal(t, state, b, hint);
        return;
    }
    let Some(at) = split_point(t, b, at) else {
        split_into_minimal(t, state, b, hint);
        return;
    };
    t.sets.state[set.index()].splits += 1;
    state.stats.splits += 1;
    let mut list = std::mem::take(&mut t.br.ranges[b.index()]);
    let idx = list.partition_point(|e| e.range.to <= at);
    let nb = t.new_bundle(set);
    // The tail goes straight into the new row's list (cleared, its capacity kept): no
    // temporary vector.
    let mut tail = std::mem::take(&mut t.br.ranges[nb.index()]);
    tail.extend(list.drain(idx..));
    if tail[0].range.from < at {
        // Cut the range under the point.
        let r = tail[0].index.index();
        let span = t.rr.spans[r];
        let vreg = t.rr.vregs[r];
        let k = t.rr.uses[r].partition_point(|u| u.point < at);
        let nr = t.new_range(CodeRange::new(at, span.to), vreg, nb, 0);
        let mut uses = std::mem::take(&mut t.rr.uses[r]);
        t.rr.uses[nr.index()].extend(uses.drain(k..));
        t.rr.uses[r] = uses;
        t.rr.spans[r].to = at;
        list.push(RangeEntry {
            range: CodeRange::new(span.from, at),
            index: LiveRangeIndex::new(r),
        });
        tail[0] = RangeEntry {
            range: CodeRange::new(at, span.to),
            index: nr,
        };
    }
    for e in &tail {
        t.rr.bundles[e.index.index()] = nb;
    }
    t.br.ranges[b.index()] = list;
    t.br.ranges[nb.index()] = tail;
    super::note!(state, at, "split b{b} at {at}: b{b} + b{nb}");
    if trim {
        trim_end(t, state, b);
        trim_start(t, state, nb);
        trim_detached_end(t, state, b, nb);
    }
    enqueue(t, state, b, hint);
    enqueue(t, state, nb, hint);
}

/// Puts `piece`, cut off range `r` of bundle `b` (no uses), into a new range of the spill
/// bundle.
fn spill_piece(
    t: &mut Tables<'_>,
    state: &mut IonState,
    b: BundleIndex,
    r: usize,
    piece: CodeRange,
) {
    let spill = spill_bundle(t, state, b);
    let vreg = t.rr.vregs[r];
    let nr = t.new_range(piece, vreg, spill, 0);
    t.br.ranges[spill.index()].push(RangeEntry {
        range: piece,
        index: nr,
    });
}

/// Trims the end of `b`'s last ranges past their last use into the spill bundle.
fn trim_end(t: &mut Tables<'_>, state: &mut IonState, b: BundleIndex) {
    while let Some(&last) = t.br.ranges[b.index()].last() {
        let r = last.index.index();
        match t.rr.uses[r].last().map(|u| u.point) {
            None => {
                super::note!(
                    state,
                    last.range.from,
                    "b{b}: end {} to the spill bundle",
                    last.range
                );
                let spill = spill_bundle(t, state, b);
                t.br.ranges[b.index()].pop();
                t.rr.bundles[r] = spill;
                t.br.ranges[spill.index()].push(last);
                continue;
            }
            Some(p) => {
                let cut = ProgPoint::before(p.inst() + 1);
                if cut < last.range.to {
                    let piece = CodeRange::new(cut, last.range.to);
                    super::note!(state, cut, "b{b}: end {piece} to the spill bundle");
                    spill_piece(t, state, b, r, piece);
                    t.rr.spans[r].to = cut;
                    if let Some(e) = t.br.ranges[b.index()].last_mut() {
                        e.range.to = cut;
                    }
                }
            }
        }
        break;
    }
}

/// Moves the use-free ranges at the end of bundle `b` (the second half of a split of
/// `first`) that a gap separates from the rest of the bundle into the spill bundle (not a
/// range that starts at a def), when the in-edges of its first block weigh more from outside
/// both halves than from them ([`edges_favour_slot`]). Such a range is reached by other
/// control flow than the bundle's uses (in layout order the bundle jumps over code it is not
/// live in, typically to a shared join or latch block): in a register it costs a reload on
/// each in-edge whose piece lives in the slot, and a store where it leaves, with no use to
/// pay for them (`inflate` in zlib.O2: a second half ending in the 35-predecessor latch block
/// reloaded about 13 values on every case edge only to store them again before the back
/// edge). Entered from the halves themselves it stays (`yyparse` in jq.O2 on aarch64: case
/// blocks entered from the switch, whose neighbouring pieces are in registers, paid a store
/// and two reloads per case when it always went to the slot).
///
/// A range starting at a join (a block with several in-edges) counts as detached even when
/// the range before it ends there in layout order: its value comes over the edges. There,
/// use-free also admits a join's parameter (its in-edges write it) and a back edge's
/// argument use (which only keeps the location to the branch): `XSUM_main` in xxhash on
/// x86-64 kept its outer-loop latch's parameters in registers for such a use, and each of
/// the latch's slot-side predecessors reloaded them.
fn trim_detached_end(t: &mut Tables<'_>, state: &mut IonState, first: BundleIndex, b: BundleIndex) {
    loop {
        let list = &t.br.ranges[b.index()];
        let n = list.len();
        if n < 2 {
            return;
        }
        let (prev, last) = (list[n - 2], list[n - 1]);
        let r = last.index.index();
        let join = starts_join(state, last.range.from);
        // No operand reads or writes it (a back edge's argument use only), and it starts at
        // no def other than a join's parameter (which its in-edges write).
        let use_free = t.rr.uses[r].iter().all(is_ghost)
            && (t.rr.flags[r] & RangeFlags::STARTS_AT_DEF == 0 || join);
        if !use_free || prev.range.to >= last.range.from && !join {
            return;
        }
        if !edges_favour_slot(t, state, first, b, last.range.from) {
            return;
        }
        super::note!(
            state,
            last.range.from,
            "b{b}: detached end {} to the spill bundle",
            last.range
        );
        let spill = spill_bundle(t, state, b);
        t.br.ranges[b.index()].pop();
        t.rr.bundles[r] = spill;
        t.br.ranges[spill.index()].push(last);
    }
}

/// Whether `u` is a back edge's branch-argument use (no operand: it only keeps the value's
/// location up to the branch).
fn is_ghost(u: &Use) -> bool {
    u.slot() == Use::NO_SLOT && u.operand.constraint == OperandConstraint::Any
}

/// Whether `at` is the start of a block with several in-edges (a join: what reaches it
/// comes over its edges, not from the range before it in layout order, even when that range
/// ends at `at`).
fn starts_join(state: &IonState, at: ProgPoint) -> bool {
    let i = at.inst().index();
    if at.is_after() || i == 0 || state.block_of[i - 1] == state.block_of[i] {
        return false;
    }
    let k = state.block_of[i].index();
    state.pred_start[k + 1] - state.pred_start[k] > 1
}

/// Whether the in-edges of the block starting at `at` weigh more from outside the two halves
/// of the split (`first`, `second`: where the value is likely in a register) than from
/// them; each edge weighs 4^(loop depth of its predecessor).
fn edges_favour_slot(
    t: &Tables<'_>,
    state: &IonState,
    first: BundleIndex,
    second: BundleIndex,
    at: ProgPoint,
) -> bool {
    let block = state.block_of[at.inst().index()];
    let k = block.index();
    let (lo, hi) = (
        state.pred_start[k] as usize,
        state.pred_start[k + 1] as usize,
    );
    let covers = |list: &[RangeEntry], q: ProgPoint| {
        let i = list.partition_point(|e| e.range.to <= q);
        i < list.len() && list[i].range.from <= q
    };
    let (mut own, mut other) = (0u64, 0u64);
    for &(exit, depth) in &state.pred_exits[lo..hi] {
        let q = ProgPoint(exit);
        let w = 1u64 << (2 * depth.min(10));
        if covers(&t.br.ranges[first.index()], q) || covers(&t.br.ranges[second.index()], q) {
            own += w;
        } else {
            other += w;
        }
    }
    other > own
}

/// Trims the start of `b`'s first ranges before their first use into the spill bundle
/// (not a range that starts at a def). Leading ranges without uses move as one run, so a
/// long value with many use-free ranges costs linear time.
fn trim_start(t: &mut Tables<'_>, state: &mut IonState, b: BundleIndex) {
    let list = &t.br.ranges[b.index()];
    let empty = list
        .iter()
        .take_while(|e| {
            let r = e.index.index();
            t.rr.flags[r] & RangeFlags::STARTS_AT_DEF == 0 && t.rr.uses[r].is_empty()
        })
        .count();
    if empty > 0 {
        if state.annotate {
            let list = &t.br.ranges[b.index()];
            let (from, to) = (list[0].range.from, list[empty - 1].range.to);
            super::note!(
                state,
                from,
                "b{b}: {empty} use-free start ranges [{from}, {to}) to the spill bundle"
            );
        }
        let spill = spill_bundle(t, state, b);
        let mut list = std::mem::take(&mut t.br.ranges[b.index()]);
        for e in &list[..empty] {
            t.rr.bundles[e.index.index()] = spill;
        }
        t.br.ranges[spill.index()].extend(list.drain(..empty));
        t.br.ranges[b.index()] = list;
    }
    let Some(&first) = t.br.ranges[b.index()].first() else {
        return;
    };
    let r = first.index.index();
    if t.rr.flags[r] & RangeFlags::STARTS_AT_DEF != 0 {
        return;
    }
    if let Some(p) = t.rr.uses[r].first().map(|u| u.point) {
        let cut = ProgPoint::before(p.inst());
        if cut > first.range.from {
            let piece = CodeRange::new(first.range.from, cut);
            super::note!(
                state,
                first.range.from,
                "b{b}: start {piece} to the spill bundle"
            );
            spill_piece(t, state, b, r, piece);
            t.rr.spans[r].from = cut;
            if let Some(e) = t.br.ranges[b.index()].first_mut() {
                e.range.from = cut;
            }
        }
    }
}

/// The points a use needs its own register over: an early def the whole instruction, a late
/// def its late point, an early use its early point, a late use the whole instruction.
pub fn minimal_range(u: &Use) -> CodeRange {
    let i = u.point.inst();
    let (before, after, next) = (
        ProgPoint::before(i),
        ProgPoint::after(i),
        ProgPoint::before(i + 1),
    );
    match (u.point.is_after(), u.operand.kind) {
        (false, OperandKind::Def) => CodeRange::new(before, next),
        (false, OperandKind::Use) => CodeRange::new(before, after),
        (true, OperandKind::Def) => CodeRange::new(after, next),
        (true, OperandKind::Use) => CodeRange::new(before, next),
    }
}

/// Splits bundle `b` into minimal bundles plus its spill bundle (see the module doc).
pub(crate) fn split_into_minimal(
    t: &mut Tables<'_>,
    state: &mut IonState,
    b: BundleIndex,
    hint: Option<PReg>,
) {
    state.stats.minimal_splits += 1;
    if let Some(first) = t.br.ranges[b.index()].first() {
        super::note!(state, first.range.from, "split b{b} into minimal bundles");
    }
    let set = t.br.spill_sets[b.index()];
    let spill = spill_bundle(t, state, b);
    let list = std::mem::take(&mut t.br.ranges[b.index()]);
    for e in &list {
        let r = e.index.index();
        let vreg = t.rr.vregs[r];
        let flags = t.rr.flags[r];
        // The dead range keeps its use list's buffer (given back below); the home range's
        // uses gather in pooled scratch.
        let mut uses = std::mem::take(&mut t.rr.uses[r]);
        t.rr.bundles[r] = DEAD;
        let mut home_from = e.range.from;
        let mut home_uses = std::mem::take(&mut state.home_uses);
        home_uses.clear();
        // Uses needing a location at one instruction share one minimal bundle when their
        // needs meet (several register uses of one value need one register, not several).
        let mut group: Option<(u32, Need, CodeRange, SmallVec<[Use; 4]>)> = None;
        for u in &uses {
            let is_def = u.operand.kind == OperandKind::Def;
            if u.operand.constraint == OperandConstraint::Any {
                home_uses.push(*u);
                continue;
            }
            if is_def {
                home_from = ProgPoint::before(u.point.inst() + 1);
            }
            let span = minimal_range(u);
            let need = Need::of(u.operand.constraint, state.fixed_stack);
            if let Some((inst, gneed, gspan, guses)) = &mut group {
                if *inst == u.point.inst().0 {
                    if let Some(m) = gneed.meet(need) {
                        *gneed = m;
                        *gspan = CodeRange::new(gspan.from.min(span.from), gspan.to.max(span.to));
                        guses.push(*u);
                        continue;
                    }
                }
            }
            if let Some(g) = group.take() {
                minimal_bundle(t, state, set, vreg, g.2, &g.3, hint);
            }
            group = Some((u.point.inst().0, need, span, SmallVec::from_slice(&[*u])));
        }
        if let Some(g) = group.take() {
            minimal_bundle(t, state, set, vreg, g.2, &g.3, hint);
        }
        let home = CodeRange::new(home_from, e.range.to);
        if !home.is_empty() {
            let flags = if home_from == e.range.from { flags } else { 0 };
            let nr = t.new_range(home, vreg, spill, flags);
            t.rr.uses[nr.index()].extend_from_slice(&home_uses);
            t.br.ranges[spill.index()].push(RangeEntry {
                range: home,
                index: nr,
            });
        }
        state.home_uses = home_uses;
        uses.clear();
        t.rr.uses[r] = uses;
    }
    let mut list = list;
    list.clear();
    t.br.ranges[b.index()] = list;
}

/// A bundle of one minimal range holding `uses` (a def among them makes it start at the def).
fn minimal_bundle(
    t: &mut Tables<'_>,
    state: &mut IonState,
    set: SpillSetIndex,
    vreg: crate::machine::VReg,
    span: CodeRange,
    uses: &[Use],
    hint: Option<PReg>,
) {
    let nb = t.new_bundle(set);
    let def = uses.iter().any(|u| u.operand.kind == OperandKind::Def);
    let flags = if def { RangeFlags::STARTS_AT_DEF } else { 0 };
    let nr = t.new_range(span, vreg, nb, flags);
    t.rr.uses[nr.index()].extend_from_slice(uses);
    t.br.ranges[nb.index()].push(RangeEntry {
        range: span,
        index: nr,
    });
    enqueue(t, state, nb, hint);
}

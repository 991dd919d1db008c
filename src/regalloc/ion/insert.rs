//! Allocation assignment and move insertion (Ion design, "Allocation Assignment", "Move
//! Generation", "Move Resolution").
//!
//! What: [`insert_moves`] fills the per-operand allocations and the edits of
//! [`crate::regalloc::output::AllocOutput`]:
//! 1. every live range's location is its bundle's register or its spill set's slot; each use
//!    with an operand slot writes that location into the operand's allocation; operands
//!    naming a fixed non-allocatable register get that register;
//! 2. the ranges of each vreg are sorted by start (longest first on ties); a range that
//!    starts where an earlier range of the vreg still holds the value (overlapping, or
//!    abutting inside a block) and not at a def gets a move from the earlier range's
//!    location (the longest-living one) at its start;
//! 3. block edges: for each block start a range covers where its vreg is live in (a range
//!    crossing into the block from before, not starting at a def, always is; the live-in
//!    lists decide the others), and each predecessor, a move from the location covering
//!    the predecessor's exit (a register preferred); for each block-parameter flow, a move
//!    from the argument's location at the predecessor's exit to every range of the
//!    parameter starting at the block. An edge's moves sit at the successor's start when
//!    it has one predecessor, else before the predecessor's branch (critical edges are
//!    split, so it has one successor);
//! 4. reused inputs: when a def reusing input `k` got another location than the input, a
//!    move before the instruction copies the input into the def's location, which becomes
//!    operand `k`'s allocation; multi-fixed-register fixups copy the kept slot's location
//!    into each decoupled slot's register;
//! 5. moves are sorted by (point, priority: in-edge, regular, multi-fixed, reused input,
//!    out-edge); each group is one parallel move, resolved by [`MoveResolver`] with the
//!    class's scratch register, else registers free at the point, else a temporary slot
//!    (at most two per class, shared by all points: each holds a value only within one
//!    parallel move);
//! 6. a range of a set recomputed where needed ([`super::spill`]) has a remat pseudo slot
//!    as its location (`REMAT_SLOT`): the resolver sees a slot nothing writes, so
//!    a move from it is ordered like a reload and becomes a remat edit; moves into it are
//!    dropped (no store feeds a recomputation).
//!
//! Redundant moves are removed afterwards ([`super::redundant`]).
//!
//! Invariants of the output: edits sorted by point, none after a block's terminator, none
//! stack to stack; the checker judges the rest.
//!
//! Complexity: O(ranges + vregs + blocks covered log blocks covered + moves log moves).

use super::process::DEAD;
use super::segment_starts;
use super::{range_alloc, remat_of, IonError, IonState};
use crate::machine::MBlock;
use crate::machine::{MachineEnv, MachineRead, OperandConstraint, OperandKind};
use crate::regalloc::bundles::{BundleRows, BundleTables, SetRows};
use crate::regalloc::handles::LiveRangeIndex;
use crate::regalloc::location::{Allocation, PReg, RegClass, SpillSlot};
use crate::regalloc::moves::{Move, MoveResolver, ScratchEnv};
use crate::regalloc::output::Edit;
use crate::regalloc::point::ProgPoint;
use crate::regalloc::ranges::{RangeFlags, RangeRows, RangeSide};

/// Move priorities at one point, in execution order.
const PRIO_IN_EDGE: u8 = 0;
const PRIO_REGULAR: u8 = 1;
const PRIO_MULTI_FIXED: u8 = 2;
const PRIO_REUSE: u8 = 3;
const PRIO_OUT_EDGE: u8 = 4;

/// Scratch vectors of move insertion, reused between functions.
#[derive(Default)]
pub struct InsertScratch {
    /// (vreg, range) of every live range, sorted.
    by_vreg: Vec<(u32, LiveRangeIndex)>,
    /// Sort keys of `by_vreg`: (vreg, start, complemented end, range), compared without
    /// loading the spans.
    by_vreg_keys: Vec<(u32, u32, u32, u32)>,
    /// `alloc_of[r]`: location of range `r`.
    alloc_of: Vec<Allocation>,
    /// `range_start[v]..range_start[v + 1]`: the entries of vreg `v` in `by_vreg`.
    range_start: Vec<u32>,
    /// Per vreg, the next free place in its segment while the keys are bucketed.
    fill: Vec<u32>,
    /// (vreg, block, location) of a vreg at each block exit a range covers.
    sources: Vec<(u32, MBlock, Allocation)>,
    /// `source_start[v]..source_start[v + 1]`: the entries of vreg `v` in `sources`.
    source_start: Vec<u32>,
    /// `livein_cursor[b]`: index into the concatenated live-in lists of the first vreg of
    /// block `b`'s live-in not below the last vreg looked up there (vregs come in
    /// increasing order, so the cursors only move forward: a merge-join, not a search per
    /// block start). Only ranges starting at a block start or at a def look it up; a range
    /// crossing into a block from before carries a live-in value.
    livein_cursor: Vec<u32>,
    /// `exit_loc[b]`: (vreg + 1, location) of the vreg being placed at block `b`'s exit,
    /// scattered from its sources, so an in-edge's source is one load, not a binary search
    /// of the vreg's sources per predecessor (the stamp makes clearing between vregs
    /// unnecessary).
    exit_loc: Vec<(u32, Allocation)>,
    /// (point, priority, move) of every generated move.
    moves: Vec<(u32, u8, Move)>,
    /// The resolver.
    resolver: MoveResolver,
    /// Resolver output.
    seq: Vec<Move>,
    /// Move order for resolution: (point, priority, index into `moves`) packed in a word,
    /// so an unstable sort of plain integers keeps insertion order within a group.
    order: Vec<u64>,
    /// The moves of one (point, priority) group.
    group: Vec<Move>,
    /// Registers free at a point.
    free: Vec<PReg>,
    /// Value numbers of redundant-move elimination.
    pub(crate) values: super::redundant::ValueNumbers,
}

/// The point at which moves on edge `pred -> succ` go, and their priority.
///
/// A block with several in-edges (the entry counts one more) takes its moves before the
/// predecessor's branch, which then has one out-edge (critical edges are split; a branch
/// with one successor reads no register, as regalloc2 also requires); otherwise they go at
/// the successor's start.
fn edge_point<F: MachineRead + ?Sized>(f: &F, pred: MBlock, succ: MBlock) -> (u32, u8) {
    let ins = f.block_preds(succ).len() + (succ == f.entry_block()) as usize;
    let last = f.block_insts(pred).last();
    let outs = f.block_succs(pred).len() + f.is_ret(last) as usize;
    if ins > 1 && outs <= 1 {
        (ProgPoint::before(last).0, PRIO_OUT_EDGE)
    } else {
        (ProgPoint::before(f.block_insts(succ).start).0, PRIO_IN_EDGE)
    }
}

/// The `insert_moves` phase (with `resolve_moves`): fills the output's allocations and
/// edits (see the module doc). Reads the live-range and bundle columns and
/// [`crate::regalloc::ranges::RangeSide`]; writes `state.output`.
///
/// # Errors
/// A range left without a location, or moves the resolver refuses (allocator bugs).
pub fn insert_moves<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut BundleTables<'_, '_>,
    state: &mut IonState,
) -> Result<(), IonError> {
    let (rr, br, sets, rs, _side, counts) = t.all();
    assign_locations(f, &rr, &br, &sets, counts.ranges, state)?;
    sort_ranges_by_vreg(f, &rr, state);
    collect_exit_sources(f, &rr, state);
    state.insert.moves.clear();
    insert_range_moves(f, &rr, rs, state);
    insert_blockparam_moves(f, rs, state);
    insert_fixup_moves(f, rs, state);
    Ok(())
}

/// Step 1: the location of every live range (`alloc_of`, with `by_vreg` listing the live
/// ones unsorted) and every operand's allocation.
fn assign_locations<F: MachineRead + ?Sized>(
    f: &F,
    rr: &RangeRows<'_>,
    br: &BundleRows<'_>,
    sets: &SetRows<'_>,
    nr: usize,
    state: &mut IonState,
) -> Result<(), IonError> {
    let sc = &mut state.insert;
    sc.alloc_of.clear();
    sc.by_vreg.clear();
    for r in 0..nr {
        let b = rr.bundles[r];
        if b == DEAD {
            sc.alloc_of.push(Allocation::None);
            continue;
        }
        let a = range_alloc(br.allocs, br.spill_sets, sets.state, b, rr.vregs[r]);
        if a == Allocation::None {
            return Err(IonError::Unallocated {
                vreg: rr.vregs[r].index(),
                range: rr.spans[r],
            });
        }
        sc.alloc_of.push(a);
        sc.by_vreg
            .push((rr.vregs[r].index() as u32, LiveRangeIndex::new(r)));
    }
    let out = &mut state.output;
    out.allocs.clear();
    out.inst_alloc_offsets.clear();
    out.edits.clear();
    for i in f.insts() {
        out.inst_alloc_offsets.push(out.allocs.len() as u32);
        for op in f.inst_operands(i) {
            let a = match op.constraint {
                OperandConstraint::FixedReg(r) if !op.vreg.is_value() => Allocation::Reg(r),
                _ => Allocation::None,
            };
            out.allocs.push(a);
        }
    }
    for &(_, r) in &sc.by_vreg {
        let a = sc.alloc_of[r.index()];
        for u in &rr.uses[r.index()] {
            if u.slot() != crate::regalloc::ranges::Use::NO_SLOT {
                let k = out.inst_alloc_offsets[u.point.inst().index()] as usize + u.slot() as usize;
                out.allocs[k] = a;
            }
        }
    }
    Ok(())
}

/// Step 2: sorts the ranges per vreg (start, longest first) with their segment bounds.
fn sort_ranges_by_vreg<F: MachineRead + ?Sized>(f: &F, rr: &RangeRows<'_>, state: &mut IonState) {
    let sc = &mut state.insert;
    let spans = &*rr.spans;
    // A counting sort by vreg (the segment bounds are the buckets), then each vreg's few
    // keys sorted: the order one sort of all the keys gives (they are distinct, the range
    // being part of each), in O(ranges + vregs) plus the small sorts instead of
    // O(ranges log ranges).
    let nv = f.num_vregs();
    segment_starts(&mut sc.range_start, nv, sc.by_vreg.iter().map(|e| e.0));
    sc.fill.clear();
    sc.fill.extend_from_slice(&sc.range_start[..nv]);
    sc.by_vreg_keys.clear();
    sc.by_vreg_keys.resize(sc.by_vreg.len(), (0, 0, 0, 0));
    for &(v, r) in &sc.by_vreg {
        let span = spans[r.index()];
        let k = &mut sc.fill[v as usize];
        sc.by_vreg_keys[*k as usize] = (v, span.from.0, !span.to.0, r.index() as u32);
        *k += 1;
    }
    for w in sc.range_start.windows(2) {
        let segment = &mut sc.by_vreg_keys[w[0] as usize..w[1] as usize];
        if segment.len() > 1 {
            segment.sort_unstable();
        }
    }
    sc.by_vreg.clear();
    sc.by_vreg.extend(
        sc.by_vreg_keys
            .iter()
            .map(|&(v, _, _, r)| (v, LiveRangeIndex::new(r as usize))),
    );
    if state.annotate {
        for &(v, r) in &sc.by_vreg {
            let span = spans[r.index()];
            let b = rr.bundles[r.index()];
            state.annotations.push((
                span.from,
                format!(
                    "v{v} in {} over {span} (range {r}, bundle {b})",
                    shown(sc.alloc_of[r.index()])
                ),
            ));
        }
    }
}

/// The location of each vreg at each block exit a range of it covers (`sources`, a register
/// preferred among equal (vreg, block)), with its segment bounds per vreg.
fn collect_exit_sources<F: MachineRead + ?Sized>(f: &F, rr: &RangeRows<'_>, state: &mut IonState) {
    let sc = &mut state.insert;
    sc.sources.clear();
    let nb = MBlock::new(f.num_blocks());
    for &(v, r) in &sc.by_vreg {
        let span = rr.spans[r.index()];
        let mut b = state.block_of[span.from.inst().index()];
        while b < nb {
            let exit = ProgPoint::after(f.block_insts(b).last());
            if span.to <= exit || span.from > exit {
                break;
            }
            sc.sources.push((v, b, sc.alloc_of[r.index()]));
            b = b.next();
        }
    }
    sc.sources
        .sort_unstable_by_key(|&(v, b, a)| (v, b, !matches!(a, Allocation::Reg(_))));
    sc.sources.dedup_by_key(|&mut (v, b, _)| (v, b));
    segment_starts(
        &mut sc.source_start,
        f.num_vregs(),
        sc.sources.iter().map(|e| e.0),
    );
}

/// The location of a vreg at block `b`'s exit among its sources `v_sources`.
fn source_at(v_sources: &[(u32, MBlock, Allocation)], b: MBlock) -> Option<Allocation> {
    v_sources
        .binary_search_by_key(&b, |&(_, b, _)| b)
        .ok()
        .map(|k| v_sources[k].2)
}

/// Steps 2-3 per vreg: a move into each range from the earlier range still holding the value,
/// and moves on the in-edges of each block start a range covers where the vreg is live in.
fn insert_range_moves<F: MachineRead + ?Sized>(
    f: &F,
    rr: &RangeRows<'_>,
    rs: &RangeSide,
    state: &mut IonState,
) {
    let sc = &mut state.insert;
    let spans = &*rr.spans;
    let nb = MBlock::new(f.num_blocks());
    sc.livein_cursor.clear();
    sc.livein_cursor
        .extend_from_slice(&rs.liveness.in_start[..f.num_blocks()]);
    sc.exit_loc.clear();
    sc.exit_loc.resize(f.num_blocks(), (0, Allocation::None));
    let block_start = |p: ProgPoint, block_of: &[MBlock]| -> Option<MBlock> {
        let b = block_of[p.inst().index()];
        (ProgPoint::before(f.block_insts(b).start) == p).then_some(b)
    };
    let mut k = 0;
    let ins = &rs.liveness.ins;
    let in_start = &rs.liveness.in_start;
    while k < sc.by_vreg.len() {
        let v = sc.by_vreg[k].0;
        // The vreg's locations at the block exits its ranges cover, by block.
        for &(_, b, a) in sources_of(&sc.sources, &sc.source_start, v) {
            sc.exit_loc[b.index()] = (v + 1, a);
        }
        let end = sc.range_start[v as usize + 1] as usize;
        // (to, location) of the longest range started before the current start.
        let mut best_before: Option<(ProgPoint, Allocation)> = None;
        let mut best_all: Option<(ProgPoint, Allocation)> = None;
        let mut last_from = ProgPoint(0);
        for &(_, r) in &sc.by_vreg[k..end] {
            let span = spans[r.index()];
            let a = sc.alloc_of[r.index()];
            let class = rr.vregs[r.index()].class();
            if span.from > last_from {
                best_before = best_all;
                last_from = span.from;
            }
            let starts_def = rr.flags[r.index()] & RangeFlags::STARTS_AT_DEF != 0;
            let at_block = block_start(span.from, &state.block_of);
            if let Some((to, pa)) = best_before {
                if !starts_def
                    && to >= span.from
                    && (to > span.from || at_block.is_none())
                    && pa != a
                {
                    sc.moves.push((
                        span.from.0,
                        PRIO_REGULAR,
                        Move {
                            src: pa,
                            dst: a,
                            class,
                        },
                    ));
                    state.stats.moves_intra += 1;
                }
            }
            // Block starts covered by this range where the vreg is live in.
            let mut b = state.block_of[span.from.inst().index()];
            if at_block.is_none() {
                b = b.next();
            }
            while b < nb {
                let start = ProgPoint::before(f.block_insts(b).start);
                if start >= span.to {
                    break;
                }
                // Only a value live into the block comes over its edges: a block parameter
                // (even a piece of one that starts at the block without the def flag, such
                // as a minimal bundle for a use in the first instruction) gets its value from
                // the parameter moves below.
                // A range holding the value across a block boundary (it starts before the
                // block, not at a def) carries a value live into the block: the scan's ranges
                // cover a block start only for the block's live-ins and parameters, and a
                // parameter's range starts at its block with the def flag, so only ranges
                // starting at the block or at a def need the live-in list (skipping it for the
                // others took a tenth off this phase's D1 read misses on bzip2.O2); the
                // cursors stay valid, as they only move forward.
                let live_in = if start > span.from && !starts_def {
                    debug_assert!(
                        ins[in_start[b.index()] as usize..in_start[b.index() + 1] as usize]
                            .binary_search(&v)
                            .is_ok(),
                        "v{v} covers the start of block {b} without being live into it"
                    );
                    true
                } else {
                    let cursor = &mut sc.livein_cursor[b.index()];
                    let block_end = in_start[b.index() + 1];
                    while *cursor < block_end && ins[*cursor as usize] < v {
                        *cursor += 1;
                    }
                    *cursor < block_end && ins[*cursor as usize] == v
                };
                if live_in && !(start == span.from && starts_def) {
                    for &p in f.block_preds(b) {
                        let (stamp, src) = sc.exit_loc[p.index()];
                        if stamp == v + 1 && src != a {
                            let (pt, prio) = edge_point(f, p, b);
                            sc.moves.push((pt, prio, Move { src, dst: a, class }));
                            state.stats.moves_edge += 1;
                            super::note!(
                                state,
                                ProgPoint(pt),
                                "move v{v} {} -> {} (edge block{p} -> block{b})",
                                shown(src),
                                shown(a)
                            );
                        }
                    }
                }
                b = b.next();
            }
            if best_all.is_none_or(|(to, _)| span.to > to) {
                best_all = Some((span.to, a));
            }
        }
        k = end;
    }
}

/// Step 3, block parameters: a move from each branch argument's location at the
/// predecessor's exit into every range of the parameter starting at the block.
fn insert_blockparam_moves<F: MachineRead + ?Sized>(f: &F, rs: &RangeSide, state: &mut IonState) {
    let sc = &mut state.insert;
    for &(arg, pred, succ, param) in &rs.blockparam_outs {
        let arg_sources = sources_of(&sc.sources, &sc.source_start, arg.index() as u32);
        let Some(src) = source_at(arg_sources, pred) else {
            continue;
        };
        let start = ProgPoint::before(f.block_insts(succ).start);
        let pv = param.index();
        // The parameter's ranges starting at the block (its keys hold the starts).
        let (lo, hi) = match sc.range_start.get(pv + 1) {
            Some(&hi) => (sc.range_start[pv] as usize, hi as usize),
            None => (0, 0),
        };
        let first = lo + sc.by_vreg_keys[lo..hi].partition_point(|key| key.1 < start.0);
        for (key, &(_, r)) in sc.by_vreg_keys[first..hi]
            .iter()
            .zip(&sc.by_vreg[first..hi])
        {
            if key.1 != start.0 {
                break;
            }
            let dst = sc.alloc_of[r.index()];
            if dst != src {
                let (pt, prio) = edge_point(f, pred, succ);
                sc.moves.push((
                    pt,
                    prio,
                    Move {
                        src,
                        dst,
                        class: param.class(),
                    },
                ));
                state.stats.moves_edge += 1;
            }
        }
    }
}

/// Step 4: multi-fixed-register fixups, then reused inputs.
fn insert_fixup_moves<F: MachineRead + ?Sized>(f: &F, rs: &RangeSide, state: &mut IonState) {
    let sc = &mut state.insert;
    let out = &mut state.output;
    for fx in &rs.multi_fixed {
        let i = fx.point.inst();
        let base = out.inst_alloc_offsets[i.index()] as usize;
        let src = out.allocs[base + fx.from_slot as usize];
        let dst = Allocation::Reg(fx.to_reg);
        out.allocs[base + fx.to_slot as usize] = dst;
        if src != dst {
            sc.moves.push((
                ProgPoint::before(i).0,
                PRIO_MULTI_FIXED,
                Move {
                    src,
                    dst,
                    class: fx.vreg.class(),
                },
            ));
            state.stats.moves_fixup += 1;
        }
    }
    for i in f.insts() {
        let ops = f.inst_operands(i);
        let base = out.inst_alloc_offsets[i.index()] as usize;
        for (d, op) in ops.iter().enumerate() {
            if let (OperandKind::Def, OperandConstraint::Reuse(k)) = (op.kind, op.constraint) {
                let (def_a, in_a) = (out.allocs[base + d], out.allocs[base + k as usize]);
                if def_a != in_a {
                    let class: RegClass = ops[k as usize].vreg.class();
                    sc.moves.push((
                        ProgPoint::before(i).0,
                        PRIO_REUSE,
                        Move {
                            src: in_a,
                            dst: def_a,
                            class,
                        },
                    ));
                    out.allocs[base + k as usize] = def_a;
                    state.stats.moves_fixup += 1;
                    super::note!(
                        state,
                        ProgPoint::before(i),
                        "move {in_a} -> {def_a} (reused input)"
                    );
                }
            }
        }
    }
}

/// The `resolve_moves` phase: sorts the moves [`insert_moves`] generated by (point,
/// priority) and resolves each group as one parallel move into the output's edits, with the
/// class's scratch register, else registers free at the point, else a fresh slot (see the
/// module doc). Reads and writes `state` (the register maps for free registers).
///
/// # Errors
/// Moves the resolver refuses (an allocator bug).
pub fn resolve_moves<F: MachineRead + ?Sized>(
    f: &F,
    env: &MachineEnv,
    state: &mut IonState,
) -> Result<(), IonError> {
    let sc = &mut state.insert;
    let out = &mut state.output;
    // 5. Resolve each (point, priority) group.
    debug_assert!(sc.moves.len() < 1 << 29);
    sc.order.clear();
    sc.order.extend(
        sc.moves
            .iter()
            .enumerate()
            .map(|(k, &(p, prio, _))| (p as u64) << 32 | (prio as u64) << 29 | k as u64),
    );
    sc.order.sort_unstable();
    let group_of = |key: u64| key >> 29;
    let mut next_slot = out.num_spillslots as u32;
    // The fresh slots a group's resolution asks for (at most two per class) hold values only
    // within that group's parallel move, so every group reuses the same ones: opened on
    // first need, after the spill sets' slots.
    let mut temp_slots: [[Option<u32>; 2]; 3] = [[None; 2]; 3];
    let mut g = 0;
    let group = &mut sc.group;
    while g < sc.order.len() {
        let key = group_of(sc.order[g]);
        let p = (key >> 3) as u32;
        let gend = g + sc.order[g..].partition_point(|&o| group_of(o) == key);
        group.clear();
        for &o in &sc.order[g..gend] {
            let m = sc.moves[(o & ((1 << 29) - 1)) as usize].2;
            // Exact duplicates (two ranges of one value in one slot) are one move; two
            // different sources for one destination are left for the resolver to refuse
            // (an allocator bug must not be hidden by dropping one of them).
            // A move into a remat pseudo slot stores nothing anyone reads (the value is
            // recomputed there).
            if remat_of(m.dst).is_some() {
                continue;
            }
            if m.src != m.dst && !group.iter().any(|x| x.dst == m.dst && x.src == m.src) {
                group.push(m);
            }
        }
        g = gend;
        if group.is_empty() {
            continue;
        }
        let point = ProgPoint(p);
        // A register naming a stack location is a slot to the resolver (pseudo slot numbers
        // above every real one), so it never emits a move between two of them.
        if !state.fixed_stack.is_empty() {
            for m in group.iter_mut() {
                m.src = to_pseudo_slot(m.src, state.fixed_stack);
                m.dst = to_pseudo_slot(m.dst, state.fixed_stack);
            }
        }
        // Free registers serve only cycles and stack-to-stack moves; a cycle needs a move
        // reading another's destination (large groups are not searched for one).
        let needs_scratch = group.iter().any(|m| m.src.is_stack() && m.dst.is_stack())
            || (group.len() > 1
                && (group.len() > 16
                    || group.iter().any(|m| group.iter().any(|x| x.dst == m.src))));
        sc.free.clear();
        if needs_scratch {
            for class in RegClass::ALL {
                for r in env.allocatable(class) {
                    if !state.maps[r.dense_index()].is_taken(point) {
                        sc.free.push(r);
                    }
                }
            }
        }
        let borrow = RegClass::ALL.map(|c| env.allocatable(c).next());
        let scratch_env = ScratchEnv {
            scratch: env.scratch,
            free: &sc.free,
            borrow,
        };
        sc.seq.clear();
        let mut taken = [0usize; 3];
        sc.resolver
            .resolve(
                group,
                &scratch_env,
                |class| {
                    let c = class.index();
                    let k = taken[c];
                    taken[c] += 1;
                    let mut open = || {
                        let size = f.spill_slot_size(class).max(1) as u32;
                        let s = next_slot.div_ceil(size) * size;
                        next_slot = s + size;
                        s
                    };
                    SpillSlot(match temp_slots[c].get_mut(k) {
                        Some(slot) => *slot.get_or_insert_with(open),
                        None => open(),
                    })
                },
                &mut sc.seq,
            )
            .map_err(|source| IonError::Moves { point, source })?;
        for m in &sc.seq {
            let edit = match remat_of(m.src) {
                Some(v) => Edit::remat(
                    crate::machine::VReg::new(v, m.class).expect("a vreg index"),
                    from_pseudo_slot(m.dst),
                ),
                None => Edit::mov(from_pseudo_slot(m.src), from_pseudo_slot(m.dst)),
            };
            out.edits.push((point, edit));
        }
    }
    out.num_spillslots = next_slot as usize;
    state.stats.spill_slots = out.num_spillslots;
    state.stats.edits = out.edits.len();
    Ok(())
}

/// The sources of vreg `v` (its segment of `sources`, bounded by `start`).
fn sources_of<'a>(
    sources: &'a [(u32, MBlock, Allocation)],
    start: &[u32],
    v: u32,
) -> &'a [(u32, MBlock, Allocation)] {
    let v = v as usize;
    match start.get(v + 1) {
        Some(&hi) => &sources[start[v] as usize..hi as usize],
        None => &sources[..0],
    }
}

/// A location as annotations show it: a remat pseudo slot as `remat`.
fn shown(a: Allocation) -> String {
    match remat_of(a) {
        Some(_) => "remat".to_string(),
        None => a.to_string(),
    }
}

/// First pseudo slot number standing for a fixed-stack register (its dense index added).
const PSEUDO_SLOT: u32 = u32::MAX - 256;

fn to_pseudo_slot(a: Allocation, fixed_stack: crate::machine::PRegSet) -> Allocation {
    match a {
        Allocation::Reg(r) if fixed_stack.contains(r) => {
            Allocation::Stack(SpillSlot(PSEUDO_SLOT + r.dense_index() as u32))
        }
        a => a,
    }
}

fn from_pseudo_slot(a: Allocation) -> Allocation {
    match a {
        Allocation::Stack(SpillSlot(s)) if s >= PSEUDO_SLOT => {
            let d = (s - PSEUDO_SLOT) as u8;
            Allocation::Reg(super::process::preg_from_dense(d))
        }
        a => a,
    }
}

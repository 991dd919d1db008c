//! Second-chance allocation and spill slots (Ion design, "Second-Chance Allocation:
//! Spilled Bundles", "Spillslot Allocation").
//!
//! What: [`second_chance`] gives each bundle on the second-chance list (spill bundles and
//! bundles whose uses need no register), longest first (total length of its ranges, as
//! the allocation queue orders bundles: a long bundle fits only while the short ones have
//! not yet filled the holes it needs), one more probe of the registers of its class, hint
//! first, taking a register only where it is free over every range (no eviction, no split),
//! or, where none is, one whose only occupant over its ranges can move to another register
//! free over all of the occupant's ranges ([`super::relocate`]); a bundle that finds none
//! lives in its spill set's slot, unless all its ranges are
//! use-free ranges of rematerializable values ([`crate::machine::MachineRead::remat`]): then
//! it lives nowhere, the set needs no slot for it, and move insertion recomputes the value
//! where a piece of it needs it (a remat instead of a reload; the store that would have
//! fed the reload goes too). A spill bundle left on the stack then gives up the ranges that
//! a register can take from a neighbour (`absorb_stack_ranges`): a range inside one block
//! that another piece of its value meets there, in a register free over the whole range,
//! joins that piece (the store or reload where they meet goes; inside one block no edge sees
//! the change, so no edit is added elsewhere; a set left without stack ranges needs no slot).
//! [`allocate_spill_slots`] gives
//! every spill set that has a bundle on the stack a slot. A set holds its slot only where
//! the slot holds its value for some reader: over the ranges of its bundles on the stack
//! (each one point longer, for a reload at its end), and at the branch of each predecessor of
//! a block with several in-edges whose start such a range covers (an edge's moves sit there
//! and may store into the slot). Everywhere else the value is in a register, and another set
//! may use the slot: a move that stores or reloads a value always names a range covering
//! its point, and redundant-move elimination keeps a store unless the slot still holds the
//! value by the edits it has seen. Sets are colored in order of their first point (first fit
//! in start order colors interval graphs optimally): slots are kept per size class, most
//! recently taken last; a set takes the first slot whose last holder ends before the set
//! starts, or, searching the maps of at most [`super::SLOT_PROBES`] other slots, one free
//! over all its points; the slot moves to the back of the list; else a new slot, aligned to
//! its size. (regalloc2 reserves a slot over the hull of the set's ranges with ten probes;
//! over both targets' corpora these points and first fit leave about a quarter fewer slots.)
//!
//! Complexity: O(bundles x (log bundles + registers x ranges x log n)) for second chance;
//! O(ranges log ranges) to absorb stack ranges (a per-vreg index, built only when a spill
//! bundle stays on the stack; each of its ranges looks at a few neighbours);
//! O(points log points + sets x (slots + probes x points x log n)) for slots.

use super::maps::RegMap;
use super::process::{allocatable_masks, assign, candidates, Tables};
use super::relocate::{holders, relocate_for, relocation_open, Holders};
use super::{IonState, Need, SLOT_PROBES};
use crate::machine::{MBlock, MachineEnv, MachineRead};
use crate::regalloc::bundles::{BundleRows, BundleTables, SetRows};
use crate::regalloc::handles::{BundleIndex, SpillSetIndex};
use crate::regalloc::location::{Allocation, PReg};
use crate::regalloc::point::{CodeRange, ProgPoint};

/// The `allocate_spill_bundles` phase: second-chance allocation of the spilled bundles (see
/// the module doc). Reads and writes the bundle columns and `state`.
pub fn second_chance<F: MachineRead + ?Sized>(
    f: &F,
    env: &MachineEnv,
    t: &mut BundleTables<'_, '_>,
    state: &mut IonState,
) {
    let (mut t, rs, _) = Tables::of(t);
    let mut list = std::mem::take(&mut state.spilled);
    // Longest first (see the module doc); ties by bundle index. Each bundle's length is
    // summed once, into a packed key `(!length) << 32 | bundle` that orders as
    // `(Reverse(length), bundle)` (a key function summed it at every comparison).
    let mut keys = std::mem::take(&mut state.sort_scratch);
    keys.clear();
    keys.extend(list.iter().map(|&b| {
        let length: u32 = t.br.ranges[b.index()]
            .iter()
            .map(|e| e.range.to.0 - e.range.from.0)
            .sum();
        (u64::from(!length) << 32) | u64::from(b.0)
    }));
    keys.sort_unstable();
    for (b, &key) in list.iter_mut().zip(keys.iter()) {
        *b = BundleIndex(key as u32);
    }
    state.sort_scratch = keys;
    let allocatable = allocatable_masks(env);
    for &b in &list {
        if t.br.ranges[b.index()].is_empty() || t.br.allocs[b.index()].as_reg().is_some() {
            continue;
        }
        t.br.ranges[b.index()].sort_unstable();
        let set = t.br.spill_sets[b.index()].index();
        let class = t.sets.info[set].class;
        let offset = b.index();
        let mut cands = candidates(
            env,
            allocatable[class.index()],
            class,
            Need::Reg,
            [t.sets.state[set].hint, None],
            offset,
        );
        // While relocation is open, the probe also notes each register that one bundle
        // alone holds over `b`'s ranges (in probe order), for `relocate_for`. A class has
        // at most 64 registers and the probe yields each once.
        let relocating = relocation_open(state);
        let mut occupants = [(PReg::new(class, 0).expect("index 0"), BundleIndex::NONE); 64];
        let mut held = 0;
        let free = cands.find(|&reg| {
            let map = &state.maps[reg.dense_index()];
            let ranges = &t.br.ranges[b.index()];
            if !relocating {
                return map.free_over(ranges, |e| e.range);
            }
            match holders(map, ranges) {
                Holders::Free => true,
                Holders::One(o) => {
                    occupants[held] = (reg, o);
                    held += 1;
                    false
                }
                Holders::Several => false,
            }
        });
        match free {
            Some(reg) => {
                assign(&mut t, state, b, reg, true);
                state.stats.second_chance += 1;
                let at = t.br.ranges[b.index()][0].range.from;
                super::note!(state, at, "second chance: b{b} -> {reg}");
            }
            None if relocate_for(env, &allocatable, &mut t, state, b, &occupants[..held])
                .is_some() =>
            {
                state.stats.second_chance += 1;
            }
            None if !state.no_remat && rematerializable(f, &t, b) => {
                t.sets.state[set].remat = true;
                state.stats.remat_bundles += 1;
                let at = t.br.ranges[b.index()][0].range.from;
                super::note!(state, at, "second chance: b{b} is recomputed where needed");
            }
            None => {
                t.sets.state[set].required = true;
                state.stats.spilled += 1;
                let at = t.br.ranges[b.index()][0].range.from;
                super::note!(state, at, "second chance: b{b} stays on the stack");
            }
        }
    }
    let indexed = absorb_stack_ranges(&mut t, state, &list);
    state.spilled = list;
    super::demote::demote_join_ranges(f, &mut t, rs, state, indexed);
}

/// Moves ranges of the spill bundles in `list` left on the stack into the register of a
/// neighbouring piece of the same value (see the module doc): a range inside one block,
/// both ends inside it, that another piece of its vreg meets (ends where it starts, else
/// starts where it ends), held in a register free over the whole range, joins that piece's
/// bundle. The store or reload at the meeting point goes; at the other end the value meets
/// its next piece (or dies) inside the block, where a reload becomes a move, a store moves
/// to that point, or nothing is needed. Measured on both targets' corpora and the drop-in
/// modules: edits, cost and slots each equal or lower on every module (`unpack_object` in
/// jansson on x86-64: stores of values around calls that a callee-saved register was free
/// over). Reads and writes the bundle and live-range columns and the register maps. True
/// when it built `state.by_vreg` ([`super::demote::ranges_by_vreg`]) for this function.
pub(crate) fn absorb_stack_ranges(
    t: &mut Tables<'_>,
    state: &mut IonState,
    list: &[BundleIndex],
) -> bool {
    let any = list.iter().any(|&b| {
        let set = t.br.spill_sets[b.index()].index();
        t.sets.state[set].spill_bundle == b
            && t.sets.state[set].required
            && t.br.allocs[b.index()] == Allocation::None
            && !t.br.ranges[b.index()].is_empty()
    });
    if !any {
        return false;
    }
    let mut by_vreg = std::mem::take(&mut state.by_vreg);
    super::demote::ranges_by_vreg(t, &mut by_vreg, state);
    for &b in list {
        let set = t.br.spill_sets[b.index()].index();
        if t.sets.state[set].spill_bundle != b
            || !t.sets.state[set].required
            || t.br.allocs[b.index()] != Allocation::None
        {
            continue;
        }
        // Kept ranges are compacted in place (one pass, no removal in the middle).
        let mut own = std::mem::take(&mut t.br.ranges[b.index()]);
        let mut w = 0;
        for k in 0..own.len() {
            let e = own[k];
            let Some((nb, reg)) = neighbour_reg(t, state, by_vreg.view(), e) else {
                own[w] = e;
                w += 1;
                continue;
            };
            let list = &mut t.br.ranges[nb.index()];
            let at = list.partition_point(|x| x.range.from < e.range.from);
            list.insert(at, e);
            t.rr.bundles[e.index.index()] = nb;
            state.maps[reg.dense_index()].insert(e.range, nb);
            state.stats.absorbed += 1;
            super::note!(
                state,
                e.range.from,
                "b{b}: {} joins b{nb} in {reg}",
                e.range
            );
        }
        own.truncate(w);
        t.br.ranges[b.index()] = own;
    }
    state.by_vreg = by_vreg;
    true
}

/// The bundle and register of a piece of `e`'s vreg that meets `e` inside a block, in a
/// register free over `e` (the piece ending where `e` starts first).
fn neighbour_reg(
    t: &Tables<'_>,
    state: &IonState,
    by_vreg: super::demote::ByVreg<'_>,
    e: crate::regalloc::ranges::RangeEntry,
) -> Option<(BundleIndex, crate::regalloc::location::PReg)> {
    let r = e.index.index();
    let inside = |p: ProgPoint| {
        let i = p.inst().index();
        p.is_after()
            || (i > 0 && i < state.block_of.len() && state.block_of[i - 1] == state.block_of[i])
    };
    let held = |q: u32| {
        let q = q as usize;
        let nb = t.rr.bundles[q];
        match t.br.allocs[nb.index()] {
            Allocation::Reg(reg)
                if state.maps[reg.dense_index()]
                    .first_overlap(e.range)
                    .is_none() =>
            {
                Some((nb, reg))
            }
            _ => None,
        }
    };
    // Only a range inside one block, both ends inside it: no in- or out-edge of a block
    // sees the value's location change (a range reaching a block end would trade the one
    // store where it starts for one per out-edge into a slot piece).
    let last = e.range.to.prev().inst().index();
    if !inside(e.range.from)
        || !inside(e.range.to)
        || state.block_of[e.range.from.inst().index()] != state.block_of[last]
    {
        return None;
    }
    let own = super::demote::vreg_entries(by_vreg, t.rr.vregs[r]).entries;
    {
        let at = own.partition_point(|x| x.1 < e.range.from.0);
        // Pieces are disjoint but for minimal copies: look back a few entries.
        for x in own[..at].iter().rev().take(4) {
            if t.rr.spans[x.2 as usize].to == e.range.from {
                if let Some(found) = held(x.2) {
                    return Some(found);
                }
            }
        }
    }
    {
        let at = own.partition_point(|x| x.1 < e.range.to.0);
        for x in own[at..].iter().take_while(|x| x.1 == e.range.to.0) {
            if let Some(found) = held(x.2) {
                return Some(found);
            }
        }
    }
    None
}

/// Whether bundle `b` can live nowhere: every range is a rematerializable value without
/// uses (an operand in it would need a real location).
fn rematerializable<F: MachineRead + ?Sized>(f: &F, t: &Tables<'_>, b: BundleIndex) -> bool {
    t.br.ranges[b.index()].iter().all(|e| {
        let r = e.index.index();
        t.rr.uses[r].is_empty() && f.remat(t.rr.vregs[r]).is_some()
    })
}

/// The `allocate_spill_slots` phase: assigns spill slots to the spill sets that need one
/// (see the module doc). Reads and writes the spill-set columns and `state`.
pub fn allocate_spill_slots<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut BundleTables<'_, '_>,
    state: &mut IonState,
) {
    assign_slots(f, t, state);
    if state.tail_cuts.is_empty() {
        return;
    }
    // Tails cut off to the stack (`tails::demote_tails`) stay only if they open no slot:
    // the slots are counted again without them, and when the cuts cost none they are
    // applied again with the coloring they had (coloring is deterministic, so coloring a
    // third time would give the same; it was two thirds of this phase on bzip2.O2).
    let with = state.output.num_spillslots;
    {
        let (_, _, sets, _, _, _) = t.all();
        state.slots_with_cuts.clear();
        state.slots_with_cuts.extend(
            state
                .slot_order
                .iter()
                .map(|&(_, s, _, _)| (s, sets.state[s as usize].slot)),
        );
    }
    super::tails::set_cuts(&mut Tables::of(t).0, state, true, false);
    assign_slots(f, t, state);
    let without = state.output.num_spillslots;
    if without >= with {
        super::tails::set_cuts(&mut Tables::of(t).0, state, false, false);
        let (_, _, sets, _, _, _) = t.all();
        for &(s, slot) in &state.slots_with_cuts {
            sets.state[s as usize].slot = slot;
        }
        state.output.num_spillslots = with;
        state.stats.spill_slots = with;
        let stretches = state.tail_cuts.iter().filter(|c| c.2 != u32::MAX).count();
        state.stats.stretches += stretches;
        state.stats.tails += state.tail_cuts.len() - stretches;
    } else if state.tail_cuts.iter().any(|c| c.2 != u32::MAX)
        && state.tail_cuts.iter().any(|c| c.2 == u32::MAX)
    {
        // The middle stretches are the newer, riskier cuts for slots: the suffix cuts
        // alone may open none (sendMTFValues in bzip2.O2 lost all its suffix cuts to
        // a stretch that opened a slot).
        super::tails::set_cuts(&mut Tables::of(t).0, state, false, true);
        assign_slots(f, t, state);
        if state.output.num_spillslots > without {
            super::tails::set_cuts(&mut Tables::of(t).0, state, true, true);
            assign_slots(f, t, state);
        } else {
            state.stats.tails += state.tail_cuts.iter().filter(|c| c.2 == u32::MAX).count();
        }
    }
    state.tail_cuts.clear();
}

/// Slot coloring proper (see [`allocate_spill_slots`]).
fn assign_slots<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut BundleTables<'_, '_>,
    state: &mut IonState,
) {
    let (_, br, sets, _, _, counts) = t.all();
    // Slot maps live by slot number, cleared when a slot is opened: a repeated function
    // finds each slot's map with the storage it needed before (a warm context allocates
    // none); the probe lists hold slot numbers.
    for class_slots in state.slots.iter_mut() {
        class_slots.clear();
    }
    slot_pieces(f, &br, &sets, counts.bundles, state);
    let mut next = 0u32;
    let pieces = &state.slot_pieces;
    for &(start, s, lo, hi) in &state.slot_order {
        let s = s as usize;
        let own = &pieces[lo as usize..hi as usize];
        let size = sets.info[s].slots.max(1) as usize;
        if state.slots.len() <= size {
            state.slots.resize_with(size + 1, Vec::new);
        }
        let list = &mut state.slots[size];
        let maps = &mut state.slot_maps;
        let ends = &mut state.slot_ends;
        // Sets come in order of their first point: a slot whose last holder ends before
        // it is free over all of it; other slots are searched up to the probe bound.
        let mut searched = 0;
        let found = list.iter().position(|&slot| {
            if ends[slot as usize] <= start {
                return true;
            }
            if searched >= SLOT_PROBES {
                return false;
            }
            searched += 1;
            let map = &maps[slot as usize];
            own.iter()
                .all(|&(_, from, to)| map.first_overlap(piece(from, to)).is_none())
        });
        let slot = match found {
            Some(k) => list.remove(k),
            None => {
                let slot = next.div_ceil(size as u32) * size as u32;
                next = slot + size as u32;
                if maps.len() <= slot as usize {
                    maps.resize_with(slot as usize + 1, RegMap::default);
                }
                if ends.len() <= slot as usize {
                    ends.resize(slot as usize + 1, 0);
                }
                maps[slot as usize].clear();
                ends[slot as usize] = 0;
                slot
            }
        };
        for &(_, from, to) in own {
            maps[slot as usize].insert(piece(from, to), SpillSetIndex::new(s));
            ends[slot as usize] = ends[slot as usize].max(to);
        }
        list.push(slot);
        sets.state[s].slot = slot;
    }
    state.output.num_spillslots = next as usize;
    state.stats.spill_slots = next as usize;
}

fn piece(from: u32, to: u32) -> CodeRange {
    CodeRange::new(ProgPoint(from), ProgPoint(to))
}

/// Fills `state.slot_pieces` with (set, from, to) of the program points each spill set
/// needing a slot holds it over, sorted per set and coalesced, and `state.slot_order` with
/// (first point, set, pieces start, pieces end) per set in slot-assignment order.
///
/// A set holds its slot where one of its bundles lives on the stack (one point past each
/// range's end: a reload there reads it), and on each branch point of a predecessor of a
/// block such a range covers the start of when the block has several in-edges (an edge's
/// moves sit before the predecessor's branch there, and may store into the slot); a branch
/// point inside the range's own piece is not listed (it adds no point; on bzip2.O2 such
/// points made the pieces' sort most of the coloring).
fn slot_pieces<F: MachineRead + ?Sized>(
    f: &F,
    br: &BundleRows<'_>,
    sets: &SetRows<'_>,
    nbundles: usize,
    state: &mut IonState,
) {
    let pieces = &mut state.slot_pieces;
    pieces.clear();
    let nblocks = MBlock::new(f.num_blocks());
    for b in 0..nbundles {
        if br.allocs[b] != Allocation::None || br.ranges[b].is_empty() {
            continue;
        }
        let s = br.spill_sets[b];
        if s.is_none() || !sets.state[s.index()].required {
            continue;
        }
        let set = s.index() as u32;
        for e in &br.ranges[b] {
            let hold = (e.range.from.0, e.range.to.0 + 1);
            pieces.push((set, hold.0, hold.1));
            let mut block = state.block_of[e.range.from.inst().index()];
            if ProgPoint::before(f.block_insts(block).start) != e.range.from {
                block = block.next();
            }
            while block < nblocks {
                let start = ProgPoint::before(f.block_insts(block).start);
                if start >= e.range.to {
                    break;
                }
                let preds = f.block_preds(block);
                if preds.len() + (block == f.entry_block()) as usize > 1 {
                    for &p in preds {
                        let last = f.block_insts(p).last();
                        let edge = (ProgPoint::before(last).0, ProgPoint::before(last + 1).0);
                        // A branch point inside the range's own piece adds nothing (most
                        // in-edges of a long range's blocks come from blocks it covers):
                        // pushing it only made the sort below longer.
                        if edge.0 < hold.0 || edge.1 > hold.1 {
                            pieces.push((set, edge.0, edge.1));
                        }
                    }
                }
                block = block.next();
            }
        }
    }
    super::sort_grouped(pieces, &mut state.sort_scratch, &mut state.sort_groups);
    // Coalesce overlapping or abutting pieces of one set.
    let mut w = 0;
    for k in 0..pieces.len() {
        let p = pieces[k];
        if w > 0 && pieces[w - 1].0 == p.0 && pieces[w - 1].2 >= p.1 {
            pieces[w - 1].2 = pieces[w - 1].2.max(p.2);
        } else {
            pieces[w] = p;
            w += 1;
        }
    }
    pieces.truncate(w);
    let order = &mut state.slot_order;
    order.clear();
    let mut k = 0;
    while k < pieces.len() {
        let set = pieces[k].0;
        let end = k + pieces[k..].partition_point(|p| p.0 == set);
        order.push((pieces[k].1, set, k as u32, end as u32));
        k = end;
    }
    order.sort_unstable();
}

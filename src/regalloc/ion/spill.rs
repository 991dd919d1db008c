//! Second-chance allocation and spill slots (Ion design, "Second-Chance Allocation:
//! Spilled Bundles", "Spillslot Allocation").
//!
//! What: [`second_chance`] gives each bundle on the second-chance list (spill bundles and
//! bundles whose uses need no register) one more probe of the registers of its class, hint
//! first, taking a register only where it is free over every range (no eviction, no split);
//! a bundle that finds none lives in its spill set's slot, unless all its ranges are
//! use-free ranges of rematerializable values ([`crate::machine::MachineRead::remat`]): then
//! it lives nowhere, the set needs no slot for it, and move insertion recomputes the value
//! where a piece of it needs it (a remat instead of a reload; the store that would have
//! fed the reload goes too). [`allocate_spill_slots`] gives
//! every spill set that has a bundle on the stack a slot: slots are kept per size class in
//! probe order; a set takes the first of at most [`super::SLOT_PROBES`] slots whose map is
//! free over all the set's extents (the original bundle's ranges, so a value reloaded and
//! not redefined is still in its slot), which then moves to the back of the list
//! (round-robin); else a new slot, aligned to its size.
//!
//! Complexity: O(bundles x registers x ranges x log n) for second chance; O(sets x probes x
//! extents x log n) for slots.

use super::maps::RegMap;
use super::process::{assign, candidates, Tables};
use super::{IonState, Need, SLOT_PROBES};
use crate::machine::{MachineEnv, MachineRead};
use crate::regalloc::bundles::BundleTables;
use crate::regalloc::handles::{BundleIndex, SpillSetIndex};

/// The `allocate_spill_bundles` phase: second-chance allocation of the spilled bundles (see
/// the module doc). Reads and writes the bundle columns and `state`.
pub fn second_chance<F: MachineRead + ?Sized>(
    f: &F,
    env: &MachineEnv,
    t: &mut BundleTables<'_, '_>,
    state: &mut IonState,
) {
    let (mut t, _, _) = Tables::of(t);
    let list = std::mem::take(&mut state.spilled);
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
            class,
            Need::Reg,
            [t.sets.state[set].hint, None],
            offset,
        );
        let free = cands.find(|&reg| {
            let map = &state.maps[reg.dense_index()];
            t.br.ranges[b.index()]
                .iter()
                .all(|e| map.first_overlap(e.range).is_none())
        });
        match free {
            Some(reg) => {
                assign(&mut t, state, b, reg);
                state.stats.second_chance += 1;
                let at = t.br.ranges[b.index()][0].range.from;
                super::note!(state, at, "second chance: b{b} -> {reg}");
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
    state.spilled = list;
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
pub fn allocate_spill_slots(t: &mut BundleTables<'_, '_>, state: &mut IonState) {
    let (_, _, sets, _, _, counts) = t.all();
    // Slot maps live by slot number, cleared when a slot is opened: a repeated function
    // finds each slot's map with the storage it needed before (a warm context allocates
    // none); the probe lists hold slot numbers.
    for class_slots in state.slots.iter_mut() {
        class_slots.clear();
    }
    let mut next = 0u32;
    for s in 0..counts.sets {
        if !sets.state[s].required {
            continue;
        }
        let size = sets.info[s].slots.max(1) as usize;
        if state.slots.len() <= size {
            state.slots.resize_with(size + 1, Vec::new);
        }
        let extents = &sets.extents[s];
        let list = &mut state.slots[size];
        let maps = &mut state.slot_maps;
        let fits =
            |map: &RegMap<SpillSetIndex>| extents.iter().all(|&r| map.first_overlap(r).is_none());
        let found = list
            .iter()
            .take(SLOT_PROBES)
            .position(|&slot| fits(&maps[slot as usize]));
        let slot = match found {
            Some(k) => list.remove(k),
            None => {
                let slot = next.div_ceil(size as u32) * size as u32;
                next = slot + size as u32;
                if maps.len() <= slot as usize {
                    maps.resize_with(slot as usize + 1, RegMap::default);
                }
                maps[slot as usize].clear();
                slot
            }
        };
        for &r in extents.iter() {
            maps[slot as usize].insert(r, SpillSetIndex::new(s));
        }
        list.push(slot);
        sets.state[s].slot = slot;
    }
    state.output.num_spillslots = next as usize;
    state.stats.spill_slots = next as usize;
}

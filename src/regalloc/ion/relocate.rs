//! Relocation in second-chance allocation: a spill bundle that finds no register free over
//! all its ranges takes one whose only occupant there is a single bundle that can move to
//! another register free over all of that bundle's ranges.
//!
//! What: second chance ([`super::spill::second_chance`]) gives spilled bundles, longest
//! first, a register only where one is free, without eviction. An earlier, longer bundle
//! may have taken the one register a later bundle could use (a callee-saved register over a
//! stretch without calls, taken for its hint, while the later bundle crosses a call and can
//! use no other), although another register was free for it. `relocate_for` moves such an
//! occupant to that other register and gives its register to the bundle, which then needs
//! no spill, reload or slot. The occupant keeps every range and only changes register, so
//! at most a move appears where it meets a neighbouring piece of its value, against the
//! store and reloads (and often the slot) of the bundle that would stay on the stack.
//!
//! Invariants: a register map holds disjoint entries; the occupant has no fixed-register
//! use (its register is a choice, not a constraint) and moves only to a register that
//! meets its uses' need (below the bound of a `limit(n)` use) and is free over every one
//! of its ranges; reserved entries (fixed uses, clobbers) are never moved.
//!
//! Complexity: per bundle left without a register, one walk of each register's map over its ranges
//! to find a register with one occupant (second chance's own probe, which walks on past the first
//! overlap to the second owner while relocation is open: `holders`), and for each such register one
//! walk of every other register's map over the occupant's ranges; it runs only for bundles second
//! chance would leave on the stack, and only until [`RELOCATION_FAILURES`] of the function's
//! bundles have stayed there. An occupant found unmovable is not probed again in the function
//! (`IonState::unmovable`): second chance only fills the maps, so it would stay unmovable, except
//! where a relocation freed the part of a register its bundle did not take (a missed chance, not a
//! wrong result). On the drop-in (blake3, rust-json, pulldown-cmark) that cut the step's
//! instructions by a third with the same allocations.

use super::maps::{RegMap, RESERVED};
use super::process::{assign, candidates, Tables};
use super::{IonState, Need};
use crate::machine::MachineEnv;
use crate::regalloc::bundles::BundleProps;
use crate::regalloc::handles::BundleIndex;
use crate::regalloc::location::{Allocation, PReg};
use crate::regalloc::ranges::RangeEntry;

/// Relocation is tried in a function only until this many of its bundles have stayed on
/// the stack (or gone to rematerialization). Failed attempts are most of the step's cost
/// (a probe of every register, and of every register again for each sole occupant), and
/// they cluster: where a few bundles found nothing, the others mostly find nothing too.
/// Measured on bzip2.O2 (`ion::allocate`, callgrind) against no relocation: unlimited
/// +3.7% (x86-64) / +6.7% (aarch64); 16, +1.6% / +3.1%; 4, +0.75% / +1.2%, with the same
/// slot results on x86-64 jansson (60, regalloc2 60) and nearly the same on the drop-in
/// (blake3 514 against 512 unlimited, regalloc2 524). With 2, x86-64 jansson keeps 61.
pub const RELOCATION_FAILURES: usize = 4;

/// Who holds a register over a bundle's ranges, as second chance's probe finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holders {
    /// No entry overlaps the ranges: the register is free over all of them.
    Free,
    /// Every overlapping entry belongs to this one bundle (none is reserved).
    One(BundleIndex),
    /// Entries of two bundles, or a reserved entry.
    Several,
}

/// Whether relocation may still be tried in this function: fewer than
/// [`RELOCATION_FAILURES`] bundles have stayed on the stack or gone to rematerialization.
pub(crate) fn relocation_open(state: &IonState) -> bool {
    state.stats.spilled + state.stats.remat_bundles < RELOCATION_FAILURES
}

/// Who holds `map`'s register over `ranges` (sorted and disjoint), in one walk that stops
/// at the first overlap of a second bundle or of a reserved entry. Second chance probes
/// each candidate register with it while relocation is open, so a register that is not
/// free names its one occupant without a second walk of its map.
pub(crate) fn holders(map: &RegMap, ranges: &[RangeEntry]) -> Holders {
    let mut found = Holders::Free;
    map.walk(
        ranges,
        |e| e.range,
        |_, _, owner| {
            found = match found {
                _ if owner == RESERVED => Holders::Several,
                Holders::Free => Holders::One(owner),
                Holders::One(o) if o == owner => found,
                _ => Holders::Several,
            };
            found != Holders::Several
        },
    );
    found
}

/// Finds a register for spill bundle `b` (no register of its class is free over all its
/// ranges) by moving its one occupant elsewhere (see the module doc). `occupants` are the
/// registers of `b`'s probe, in its order, that one bundle alone holds over `b`'s ranges
/// (from [`holders`]; the maps have not changed since); `allocatable` are the allocatable
/// registers per class. On success the occupant has moved, `b` is assigned the register
/// (as its set's hint) and the register is returned; else nothing changed.
pub(crate) fn relocate_for(
    env: &MachineEnv,
    allocatable: &[u64; 3],
    t: &mut Tables<'_>,
    state: &mut IonState,
    b: BundleIndex,
    occupants: &[(PReg, BundleIndex)],
) -> Option<PReg> {
    if !relocation_open(state) {
        return None;
    }
    for &(reg, occupant) in occupants {
        if !movable(t, occupant, reg) || state.unmovable.contains(&occupant) {
            continue;
        }
        let Some(to) = free_elsewhere(env, allocatable, t, state, occupant, reg) else {
            state.unmovable.push(occupant);
            continue;
        };
        let map = &mut state.maps[reg.dense_index()];
        for e in &t.br.ranges[occupant.index()] {
            map.remove(e.range.from);
        }
        assign(t, state, occupant, to, false);
        assign(t, state, b, reg, true);
        state.stats.relocated += 1;
        let at = t.br.ranges[b.index()][0].range.from;
        super::note!(
            state,
            at,
            "second chance: b{occupant} moves to {to}, b{b} -> {reg}"
        );
        return Some(reg);
    }
    None
}

/// Whether bundle `o`, the one holder of `reg` over a spill bundle's ranges, may move: it
/// has a spill set, no fixed-register use, and holds `reg` as its allocation.
fn movable(t: &Tables<'_>, o: BundleIndex, reg: PReg) -> bool {
    !t.br.spill_sets[o.index()].is_none()
        && t.br.props[o.index()].flags & BundleProps::FIXED == 0
        && t.br.allocs[o.index()] == Allocation::Reg(reg)
}

/// A register other than `from`, of `occupant`'s class, that meets the register need of
/// `occupant`'s uses (a `Limit(n)` use keeps it below index n) and is free over all of
/// `occupant`'s ranges. None where its uses pin it (a fixed register, a stack location)
/// or conflict.
fn free_elsewhere(
    env: &MachineEnv,
    allocatable: &[u64; 3],
    t: &Tables<'_>,
    state: &IonState,
    occupant: BundleIndex,
    from: PReg,
) -> Option<PReg> {
    let need = match t.requirement(occupant, state.fixed_stack) {
        Ok(Need::Any | Need::Reg) => Need::Reg,
        Ok(Need::Limit(n)) => Need::Limit(n),
        Ok(Need::Fixed(_) | Need::Stack | Need::FixedStack(_)) | Err(_) => return None,
    };
    let class = t.sets.info[t.br.spill_sets[occupant.index()].index()].class;
    let mut regs = candidates(
        env,
        allocatable[class.index()],
        class,
        need,
        [None, None],
        occupant.index(),
    );
    regs.find(|&r| {
        r != from
            && state.maps[r.dense_index()].free_over(&t.br.ranges[occupant.index()], |e| e.range)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regalloc::handles::LiveRangeIndex;
    use crate::regalloc::point::{CodeRange, ProgPoint};

    fn entries(spans: &[(u32, u32)]) -> Vec<RangeEntry> {
        spans
            .iter()
            .enumerate()
            .map(|(k, &(a, b))| RangeEntry {
                range: CodeRange::new(ProgPoint(a), ProgPoint(b)),
                index: LiveRangeIndex::new(k),
            })
            .collect()
    }

    #[test]
    fn holders_names_the_one_owner_and_stops_at_a_second_or_a_reservation() {
        let r = |a, b| CodeRange::new(ProgPoint(a), ProgPoint(b));
        let mut map = RegMap::default();
        map.insert(r(0, 4), BundleIndex(1));
        map.insert(r(10, 14), BundleIndex(1));
        map.insert(r(20, 24), BundleIndex(2));
        map.reserve(r(30, 32));
        // Nothing over the ranges, one owner over both, a second owner, a reservation.
        assert_eq!(holders(&map, &entries(&[(5, 9), (15, 19)])), Holders::Free);
        assert_eq!(
            holders(&map, &entries(&[(2, 6), (12, 16)])),
            Holders::One(BundleIndex(1))
        );
        assert_eq!(
            holders(&map, &entries(&[(2, 6), (22, 26)])),
            Holders::Several
        );
        assert_eq!(
            holders(&map, &entries(&[(12, 16), (31, 33)])),
            Holders::Several
        );
        // Free exactly where the map's free_over says so.
        for spans in [&[(5, 9)][..], &[(4, 10), (14, 20)], &[(3, 5)]] {
            let list = entries(spans);
            assert_eq!(
                holders(&map, &list) == Holders::Free,
                map.free_over(&list, |e| e.range)
            );
        }
    }
}

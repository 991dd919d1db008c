//! Groups of use-free ranges that carry one value through several blocks move to the stack
//! together (after join demotion, before tail cuts).
//!
//! What: a value that an inner loop only passes along (a loop-carried parameter that no case
//! block of the loop reads) often sits, in those case blocks, in a register that a split left
//! it: one live range per block or per run of blocks, all in one bundle, none with an
//! operand. Entered from the loop's header where the value sits in its slot, every case edge
//! reloads it, and the latch stores it back (`XSUM_main` in xxhash on x86-64: two such values
//! reloaded on each of a dozen case edges at loop depth 2). Moving any one of these ranges
//! alone does not pay (it meets the others in the register), so `demote_use_free_groups`
//! decides them together: starting from each such range, it gathers the ranges of the same
//! bundle that the value flows into or out of (along control-flow edges, into the parameters
//! its branches feed, or into the vreg's next range inside a block) and that are use-free
//! and start at a block start too. With every other neighbour placed, the group's cost in
//! the register and in the slot is the sum over the flows that cross its boundary
//! ([`super::demote`]'s weights: a reload where a slot meets the register, a store where a
//! register meets the slot, times 4^loop depth of where the edge's moves sit); flows
//! between members cost nothing either way. When the slot costs less and adds no edit
//! (counted unweighted), every member leaves its register for the spill set's spill bundle
//! (only a set whose spill bundle already lives on the stack: no new slot, no new row).
//!
//! Invariants: a demoted range keeps its vreg, span and uses; register maps stay disjoint
//! (entries are only removed); each range is a member of at most one group evaluated.
//!
//! Complexity: O(ranges) to find seeds; per group O(flows of its members x ranges of the
//! vregs involved) (binary searches in the per-vreg index).

use super::demote::{add, covering, place_of, to_spill_bundle, vreg_entries, weight, ByVreg};
use super::process::{Tables, DEAD};
use super::tails::{candidate, count, edge_weight, whole_block_start};
use super::IonState;
use crate::machine::{MBlock, MachineRead, VReg};
use crate::regalloc::handles::BundleIndex;
use crate::regalloc::point::ProgPoint;
use crate::regalloc::ranges::RangeSide;

/// Scratch of `demote_use_free_groups`, reused between functions.
#[derive(Default)]
pub struct GroupScratch {
    /// Per range: the seed of the group it was gathered into (`u32::MAX`: none yet).
    group_of: Vec<u32>,
    /// The group being gathered and evaluated (range indices).
    members: Vec<u32>,
    /// The flows of the group's members gathered with it: (neighbour range, weight, into
    /// the member); those between members are skipped when the group is priced.
    edges: Vec<(u32, u64, bool)>,
}

/// The `demote_use_free_groups` step (see the module doc). `by_vreg`: the exact per-vreg
/// range index (`demote::ranges_by_vreg`) of this function.
pub(crate) fn demote_use_free_groups<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut Tables<'_>,
    rs: &RangeSide,
    state: &mut IonState,
    by_vreg: ByVreg<'_>,
) {
    let n = t.counts.ranges;
    let mut sc = std::mem::take(&mut state.groups);
    sc.group_of.clear();
    sc.group_of.resize(n, u32::MAX);
    for seed in 0..n {
        if sc.group_of[seed] != u32::MAX {
            continue;
        }
        let Some(b) = member_bundle(f, t, state, seed) else {
            continue;
        };
        sc.members.clear();
        sc.members.push(seed as u32);
        sc.edges.clear();
        sc.group_of[seed] = seed as u32;
        let mut at = 0;
        let mut known = true;
        while at < sc.members.len() {
            let x = sc.members[at] as usize;
            at += 1;
            let GroupScratch {
                group_of,
                members,
                edges,
            } = &mut sc;
            flows(f, t, rs, state, by_vreg, x, &mut |y, w, into, unknown| {
                known &= !unknown;
                let Some(y) = y else { return };
                if group_of[y] == u32::MAX && member_bundle(f, t, state, y) == Some(b) {
                    group_of[y] = seed as u32;
                    members.push(y as u32);
                }
                edges.push((y as u32, w, into));
            });
        }
        if known && cheaper_on_stack(t, &sc, seed as u32) {
            let reg = t.br.allocs[b.index()]
                .as_reg()
                .expect("a member's bundle has a register")
                .dense_index();
            for &x in &sc.members {
                to_spill_bundle(t, state, x as usize, b, reg);
            }
            state.stats.grouped += sc.members.len();
            let at = t.rr.spans[seed].from;
            super::note!(
                state,
                at,
                "{}: {} use-free ranges of b{b} to the stack together",
                t.rr.vregs[seed],
                sc.members.len()
            );
        }
    }
    state.groups = sc;
}

/// Range `r`'s bundle when `r` may be a member of a group: a register holds it, its spill
/// set's spill bundle lives on the stack, no operand reads or writes it (a back edge's
/// argument use aside) and it starts at the start of its block.
fn member_bundle<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    state: &IonState,
    r: usize,
) -> Option<BundleIndex> {
    candidate(t, r).filter(|_| whole_block_start(f, t, state, r))
}

/// The range of `vreg` covering point `q`, if any: the first in start order that a register
/// holds, else the first.
fn range_at(t: &Tables<'_>, by_vreg: ByVreg<'_>, vreg: VReg, q: ProgPoint) -> Option<usize> {
    // `covering` walks in reverse start order: the last one seen is the first.
    let (mut in_reg, mut first) = (None, None);
    for r in covering(t, vreg_entries(by_vreg, vreg), q) {
        if t.rr.bundles[r] == DEAD {
            continue;
        }
        if t.br.allocs[t.rr.bundles[r].index()].as_reg().is_some() {
            in_reg = Some(r);
        }
        first = Some(r);
    }
    in_reg.or(first)
}

/// Calls `visit(neighbour, weight, into, unknown)` for every flow of range `x`'s value across
/// its boundary: into its first block from each predecessor (the vreg, or the argument of
/// the parameter it is), into each later block it covers from a predecessor it does not
/// cover, out of each block whose end it reaches to each successor it does not cover (the
/// vreg's live-in range there, and the parameters the branch feeds it to), and into the
/// vreg's next range where `x` ends inside a block. `neighbour` is the range at the other
/// end (`None`: the value is dead there); flows to `x` itself are skipped.
fn flows<F: MachineRead + ?Sized>(
    f: &F,
    t: &Tables<'_>,
    rs: &RangeSide,
    state: &IonState,
    by_vreg: ByVreg<'_>,
    x: usize,
    visit: &mut dyn FnMut(Option<usize>, u64, bool, bool),
) {
    let span = t.rr.spans[x];
    let vreg = t.rr.vregs[x];
    let first = state.block_of[span.from.inst().index()].index();
    let last = state.block_of[span.to.prev().inst().index()].index();
    let covers_exit =
        |k: usize| k < last || span.to >= ProgPoint::before(f.block_insts(MBlock::new(last)).end);
    for k in first..=last {
        let block = MBlock::new(k);
        let param = f.block_params(block).iter().position(|&p| p == vreg);
        for &p in f.block_preds(block) {
            if p.index() >= first && p.index() <= last && covers_exit(p.index()) && param.is_none()
            {
                continue;
            }
            let exit = ProgPoint::after(f.block_insts(p).last());
            let source = match param {
                Some(j) => match f.block_succs(p).iter().position(|&s| s == block) {
                    Some(s) => f.branch_args(p, s)[j],
                    None => {
                        visit(None, 0, true, true);
                        continue;
                    }
                },
                None => vreg,
            };
            let y = range_at(t, by_vreg, source, exit);
            if y != Some(x) {
                visit(y, edge_weight(f, rs, p, block), true, false);
            }
        }
        if !covers_exit(k) {
            // The vreg goes on in its next range inside this block.
            let y = range_at(t, by_vreg, vreg, span.to);
            visit(y, weight(rs.loop_depth[k]), false, false);
            continue;
        }
        for (s, &q) in f.block_succs(block).iter().enumerate() {
            let w = edge_weight(f, rs, block, q);
            let start = ProgPoint::before(f.block_insts(q).start);
            let y = range_at(t, by_vreg, vreg, start);
            if y.is_some() && y != Some(x) {
                visit(y, w, false, false);
            }
            for (&a, &p) in f.branch_args(block, s).iter().zip(f.block_params(q)) {
                if a == vreg {
                    visit(range_at(t, by_vreg, p, start), w, false, false);
                }
            }
        }
    }
}

/// Whether the group gathered from `seed` (its flows in `sc.edges`) costs less in its
/// spill slot than in its register, adding no edit (see the module doc).
fn cheaper_on_stack(t: &Tables<'_>, sc: &GroupScratch, seed: u32) -> bool {
    let mut costs = (0u64, 0u64);
    let mut edits = (0u64, 0u64);
    for &(y, w, into) in &sc.edges {
        if sc.group_of[y as usize] == seed {
            continue;
        }
        let place = Some(place_of(t, y as usize));
        if add(&mut costs, place, w, into).is_none() {
            return false;
        }
        count(&mut edits, place);
    }
    costs.1 < costs.0 && edits.1 <= edits.0
}

/// Whether some range may seed a group (cheap: decides whether the per-vreg index is
/// needed).
pub(crate) fn any_member<F: MachineRead + ?Sized>(f: &F, t: &Tables<'_>, state: &IonState) -> bool {
    (0..t.counts.ranges).any(|r| member_bundle(f, t, state, r).is_some())
}

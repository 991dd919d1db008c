//! Phase 1: arc consistency (AC-3) over the transition constraints.
//!
//! What: shrinks every reachable block's domain until, for each constraint `u -> v` and each
//! target left in `u`, some target left in `v` is an allowed partner, and vice versa (000,
//! "Phase 1").
//!
//! Algorithm: Mackworth's AC-3 ("Consistency in networks of relations", 1977). Every arc
//! `(constraint, revise the source?)` is revised once in constraint order (the initial
//! queue of AC-3, swept without queueing it); the queue then holds the arcs a change made
//! stale. Revising `u` against `v` keeps `t_u` iff `support(t_u) ∩ dom(v) ≠ ∅`, one AND
//! per target with the precomputed support masks. When `dom(u)` shrinks, every other arc
//! that revises a neighbour of `u` against `u` is queued (an `in_queue` flag per arc keeps
//! it a set; an arc the sweep has not reached yet may be revised twice, which is harmless).
//! The result is the largest arc-consistent set of domains whatever the order, and the
//! blocks reported empty are exactly the reachable blocks left with an empty domain (every
//! one started non-empty), so neither depends on the order either.
//!
//! Invariants: domains only shrink; a target used by some feasible assignment is never
//! removed (it has a supporting partner on every constraint); unreachable blocks keep an
//! empty domain and raise no diagnostic.
//!
//! Complexity: O(E·K) revisions of O(K) each, O(E·K²) overall, E constraints, K targets.

use super::problem::{Constraints, TargetSet};
use std::collections::VecDeque;

/// Scratch of [`prune`], reusable across problems.
#[derive(Default, Debug)]
pub struct Ac3Scratch {
    queue: VecDeque<(u32, bool)>,
    in_queue: Vec<bool>,
}

/// Runs AC-3 on `domains` (one per block, initially [`Constraints::domain`]). Returns the
/// reachable blocks whose domain became empty, in ascending order (empty: consistent).
pub fn prune(c: &Constraints, domains: &mut [TargetSet], scratch: &mut Ac3Scratch) -> Vec<u32> {
    scratch.queue.clear();
    scratch.in_queue.clear();
    scratch.in_queue.resize(c.constraints.len() * 2, false);
    let mut emptied = Vec::new();
    for ci in 0..c.constraints.len() as u32 {
        for src in [true, false] {
            revise(c, (ci, src), domains, scratch, &mut emptied);
        }
    }
    while let Some((ci, revise_source)) = scratch.queue.pop_front() {
        scratch.in_queue[ci as usize * 2 + revise_source as usize] = false;
        revise(c, (ci, revise_source), domains, scratch, &mut emptied);
    }
    emptied.sort_unstable();
    emptied.dedup();
    emptied
}

/// Revises one end of constraint `ci` against the other (`revise_source`: the source end),
/// queueing the arcs a change makes stale and recording a domain it empties.
fn revise(
    c: &Constraints,
    (ci, revise_source): (u32, bool),
    domains: &mut [TargetSet],
    Ac3Scratch { queue, in_queue }: &mut Ac3Scratch,
    emptied: &mut Vec<u32>,
) {
    let con = &c.constraints[ci as usize];
    let (u, v) = if revise_source {
        (con.from as usize, con.to as usize)
    } else {
        (con.to as usize, con.from as usize)
    };
    let dv = domains[v];
    let before = domains[u];
    let mut after = before;
    for t in before.iter() {
        if (c.support(ci, revise_source, t) & dv).is_empty() {
            after.remove(t);
        }
    }
    if after == before {
        return;
    }
    domains[u] = after;
    if after.is_empty() {
        emptied.push(u as u32);
    }
    // Arcs that revise a neighbour w of u against u.
    for &(cj, u_is_source) in c.incident(u) {
        if cj == ci {
            continue;
        }
        let arc = (cj, !u_is_source);
        let slot = cj as usize * 2 + arc.1 as usize;
        if !in_queue[slot] {
            in_queue[slot] = true;
            queue.push_back(arc);
        }
    }
}

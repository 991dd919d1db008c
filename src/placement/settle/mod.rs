//! Placing a function before its transfer sizes are known: AC-3 on the edges' support
//! alone, and a lower-bound test that settles the optimum when it is the obvious one.
//!
//! What: when no size can make an allowed transition forbidden
//! ([`super::build::BuildScratch::sizes_cannot_forbid`]), every edge's matrix forbids
//! exactly the pairs the model disallows, so AC-3 needs only the pieces' block costs and
//! the edge list ([`arc_consistency`]: the same domains, and the same blocks reported
//! empty, as [`super::ac3::prune`] on the full constraints). Every matrix is at least the
//! model's overhead table (nothing live across: `per_unit · size >= 0`), and equal to it
//! on a same-target pair (0). So for a component of free pieces (domain of two targets or
//! more, joined by edges), an assignment that is the *unique* optimum of the component under
//! the overhead table and puts every edge touching the component on one target costs the
//! same under the true matrices while every other assignment costs at least as much as
//! under the table, strictly more: it is the unique true optimum, which exact elimination
//! ([`super::eliminate`]) would return. [`settle_lower`] finds it by enumerating each small
//! component; when every component settles (and every edge between fixed pieces joins
//! one target), the function's placement is known without sizes, liveness, matrices or
//! the solver's constraints.
//!
//! Where a component does not settle so, the caller computes the sizes and matrices of the
//! edges whose cost can depend on them and [`settle_exact`] enumerates it under the exact
//! matrices: its optimum, when unique, is elimination's too. A component that ties, or
//! has more than [`MAX_ASSIGNMENTS`] assignments, is solved by exact elimination of that
//! component alone (its neighbours are fixed pieces): whole-problem elimination conditions
//! the fixed pieces out, never joins two components in a table, and orders, lays out and
//! breaks ties within a component by its own blocks alone, so it gives the component the
//! same answer (measured, callgrind: on jq -O0 and sqlite -O2 this leaves no function to
//! the whole-problem path, where 104 and 619 went, for 17 and 105 M instructions of
//! constraints and elimination, against about 10 and 60 M now). What would exceed the budget,
//! or is infeasible, goes to the solver.
//!
//! Invariants: [`settle_lower`] and [`settle_exact`] answer only where elimination would
//! have answered (its work, bounded per component by `members · Π |domain|`, fits the
//! exact budget), and then the same assignment and cost
//! ([`super::cost::objective_with`] of it); declining only costs the full path.
//!
//! Complexity: [`arc_consistency`] O(edges · K) per domain change, O((pieces + edges) ·
//! K²) overall; [`settle_lower`] O((pieces + edges) · K) plus `Π |domain| · (members +
//! edges between members)` per component (at most [`MAX_ASSIGNMENTS`] assignments; see
//! `enumerate`); a component's elimination that of [`super::eliminate`] on its members and
//! their edges (within the budget).

mod enumerate;

use enumerate::settle_component;

use super::cost::UNPLACED;
use super::eliminate::{eliminate_into, EliminateScratch};
use super::problem::{add, Constraints, Cost, Edge, Problem, TargetSet, FORBIDDEN};

/// The most assignments [`settle_lower`] enumerates for one component (larger: exact elimination of
/// the component answers, once the sizes are known). Measured (callgrind, placement systems on
/// xxhash, jq, bzip2, jansson, tcc at -O0): 729 cost up to 15% more than the limit 81 (enumerating
/// wide components that elimination then solves anyway), 9 up to 5% more, 32 about 1% more.
pub const MAX_ASSIGNMENTS: u64 = 81;

/// Working memory of [`arc_consistency`], [`settle_lower`] and [`settle_exact`], reused
/// between functions.
#[derive(Clone, Debug, Default)]
pub struct SettleScratch {
    /// Per piece: reachable from piece 0 along the edges.
    pub reachable: Vec<bool>,
    /// `incident[start[b]..start[b + 1]]`: the edges (between distinct pieces, from a
    /// reachable one) touching piece `b`.
    start: Vec<u32>,
    incident: Vec<u32>,
    /// Work list of pieces (reachability, then AC-3, then a component's members).
    list: Vec<u32>,
    queued: Vec<bool>,
    /// Per piece: its component (`u32::MAX`: not yet visited).
    component: Vec<u32>,
    /// The components [`settle_lower`] left to [`settle_exact`]: component `i`'s members
    /// are `pending_members[pending[i]..pending[i + 1]]`; `pending_large[i]`: it has more
    /// than [`MAX_ASSIGNMENTS`] assignments (exact elimination answers it).
    pending: Vec<u32>,
    pending_members: Vec<u32>,
    pending_large: Vec<bool>,
    /// Per piece: a member of a component [`settle_lower`] left pending
    /// ([`SettleScratch::mark_pending`]).
    pending_piece: Vec<bool>,
    /// The elimination work [`settle_lower`] counted against the budget (each enumerated
    /// component's bound `members · Π |domain|`).
    work: u64,
    /// One component as a problem of its own, for exact elimination.
    single: ComponentProblem,
    /// Per piece of the component being enumerated: its position in `list`.
    slot: Vec<u32>,
    /// The edges between members of that component: `(source slot, destination slot,
    /// edge)`; its edges to fixed pieces: `(member slot, the fixed piece's target)`.
    ends: Vec<(u32, u32, u32)>,
    fixed_ends: Vec<(u32, u8)>,
    /// Per member slot and target (`K` per member): its block cost plus its edges to fixed
    /// pieces.
    unary: Vec<Cost>,
    /// The enumeration's current and best choices, per member.
    choice: Vec<u8>,
    best: Vec<u8>,
}

/// One component of free pieces as a problem of its own ([`eliminate_component`]): block
/// `i` the component's `i`-th member in ascending piece order, its costs the member's
/// block costs plus its edges to fixed pieces under their targets, and the edges between
/// members with their own matrices; every block counts as reachable
/// ([`Constraints::rebuild_all_reachable`]: the members are reached from outside).
#[derive(Clone, Debug, Default)]
struct ComponentProblem {
    problem: Problem,
    constraints: Constraints,
    domains: Vec<TargetSet>,
    eliminate: EliminateScratch,
    assignment: Vec<u8>,
    /// The members, ascending.
    members: Vec<u32>,
}

/// `allowed[s]`: the targets a transition from `s` may go to; `[d]` of `allowed_into`: the
/// targets it may come from (both from the overhead table, `K × K`).
fn allowed(overhead: &[Cost], k: usize) -> (Vec<TargetSet>, Vec<TargetSet>) {
    let (mut out, mut into) = (vec![TargetSet::EMPTY; k], vec![TargetSet::EMPTY; k]);
    for s in 0..k {
        for d in 0..k {
            if overhead[s * k + d] != FORBIDDEN {
                out[s].insert(d);
                into[d].insert(s);
            }
        }
    }
    (out, into)
}

/// The union of `table[t]` over `t` in `d`.
fn image(table: &[TargetSet], d: TargetSet) -> TargetSet {
    d.iter()
        .fold(TargetSet::EMPTY, |m, t| TargetSet(m.0 | table[t].0))
}

/// Targets up to which [`images`] tabulates every domain's image.
const TABULATED: usize = 8;

/// `image(table, d)` for every `d` below `2^K` (empty for more than [`TABULATED`] targets).
fn images(table: &[TargetSet], k: usize) -> Vec<TargetSet> {
    if k > TABULATED {
        return Vec::new();
    }
    (0..1u64 << k).map(|d| image(table, TargetSet(d))).collect()
}

/// AC-3 over `p`'s edges with the support of the model's `overhead` table (see the module
/// doc): `domains` (cleared) gets every piece's pruned domain, empty for unreachable
/// pieces. `Err` lists the reachable pieces without a target, ascending: those whose block
/// costs forbid every target, else those AC-3 emptied (what
/// [`super::solve::Solver::enforce_arc_consistency`] reports).
pub fn arc_consistency(
    p: &Problem,
    overhead: &[Cost],
    s: &mut SettleScratch,
    domains: &mut Vec<TargetSet>,
) -> Result<(), Vec<u32>> {
    let (n, k) = (p.num_blocks(), p.num_targets());
    reach(p, s);
    domains.clear();
    domains.extend((0..n).map(|b| {
        let mut d = TargetSet::EMPTY;
        if s.reachable[b] {
            for (t, &c) in p.block_cost[b * k..(b + 1) * k].iter().enumerate() {
                if c != FORBIDDEN {
                    d.insert(t);
                }
            }
        }
        d
    }));
    let empty = |d: &[TargetSet], s: &SettleScratch| -> Vec<u32> {
        (0..n as u32)
            .filter(|&b| s.reachable[b as usize] && d[b as usize].is_empty())
            .collect()
    };
    if (0..n).any(|b| s.reachable[b] && domains[b].is_empty()) {
        return Err(empty(domains, s));
    }
    let (out_of, into) = allowed(overhead, k);
    let (out_table, into_table) = (images(&out_of, k), images(&into, k));
    let lookup = |table: &[TargetSet], of: &[TargetSet], d: TargetSet| match table.get(d.0 as usize)
    {
        Some(&i) => i,
        None => image(of, d),
    };
    // Every piece starts queued; a piece whose domain shrinks re-queues its neighbours.
    s.list.clear();
    s.list
        .extend((0..n as u32).rev().filter(|&b| s.reachable[b as usize]));
    s.queued.clear();
    s.queued.resize(n, false);
    for &b in &s.list {
        s.queued[b as usize] = true;
    }
    while let Some(u) = s.list.pop() {
        let u = u as usize;
        s.queued[u] = false;
        let du = domains[u];
        for &e in &s.incident[s.start[u] as usize..s.start[u + 1] as usize] {
            let e = p.edges[e as usize];
            // Revise the other end against u.
            let (w, support) = if e.from as usize == u {
                (e.to as usize, lookup(&out_table, &out_of, du))
            } else {
                (e.from as usize, lookup(&into_table, &into, du))
            };
            let after = domains[w] & support;
            if after != domains[w] {
                domains[w] = after;
                if !s.queued[w] {
                    s.queued[w] = true;
                    s.list.push(w as u32);
                }
            }
        }
    }
    if (0..n).any(|b| s.reachable[b] && domains[b].is_empty()) {
        return Err(empty(domains, s));
    }
    Ok(())
}

/// Reachability from piece 0 and the incident lists of the edges between distinct pieces
/// whose source is reachable.
fn reach(p: &Problem, s: &mut SettleScratch) {
    let n = p.num_blocks();
    incident_lists(p, s, |_| true);
    s.reachable.clear();
    s.reachable.resize(n, false);
    s.list.clear();
    if n > 0 {
        s.reachable[0] = true;
        s.list.push(0);
    }
    while let Some(b) = s.list.pop() {
        for &i in &s.incident[s.start[b as usize] as usize..s.start[b as usize + 1] as usize] {
            let e = p.edges[i as usize];
            let to = e.to as usize;
            if e.from == b && !s.reachable[to] {
                s.reachable[to] = true;
                s.list.push(to as u32);
            }
        }
    }
    // An edge from an unreachable piece is no constraint (rare: list without them).
    if p.edges.iter().any(|e| !s.reachable[e.from as usize]) {
        let reachable = std::mem::take(&mut s.reachable);
        incident_lists(p, s, |from| reachable[from]);
        s.reachable = reachable;
    }
}

/// The incident lists (both ends) of the edges between distinct pieces whose source
/// passes `keep`.
fn incident_lists(p: &Problem, s: &mut SettleScratch, keep: impl Fn(usize) -> bool) {
    let n = p.num_blocks();
    let counted = |e: &super::problem::Edge| e.from != e.to && keep(e.from as usize);
    s.start.clear();
    s.start.resize(n + 1, 0);
    for e in p.edges.iter().filter(|e| counted(e)) {
        s.start[e.from as usize + 1] += 1;
        s.start[e.to as usize + 1] += 1;
    }
    for b in 0..n {
        s.start[b + 1] += s.start[b];
    }
    s.incident.clear();
    s.incident.resize(s.start[n] as usize, 0);
    s.list.clear();
    s.list.extend_from_slice(&s.start[..n]);
    for (i, e) in p.edges.iter().enumerate() {
        if counted(e) {
            for b in [e.from, e.to] {
                let at = &mut s.list[b as usize];
                s.incident[*at as usize] = i as u32;
                *at += 1;
            }
        }
    }
}

impl SettleScratch {
    /// Marks the members of the components [`settle_lower`] left pending (for
    /// [`exact_edge`]); `n` is the problem's number of pieces.
    pub fn mark_pending(&mut self, n: usize) {
        self.pending_piece.clear();
        self.pending_piece.resize(n, false);
        for &b in &self.pending_members {
            self.pending_piece[b as usize] = true;
        }
    }
}

/// Whether edge `e`'s exact matrix can change the answer of [`settle_exact`] or its cost
/// ([`super::cost::objective_with`]) after [`settle_lower`] answered
/// [`Settled::Pending`] with `assignment` (and [`SettleScratch::mark_pending`] ran): an
/// edge from a reachable piece to another one that touches a pending component, or joins
/// two fixed pieces on different targets. Every other edge from a reachable piece joins
/// one target in the settled assignment (a settled component puts every edge touching it
/// on one target) and costs the free same-target transition, 0, whatever its size; an
/// edge from an unreachable piece is no constraint and costs nothing.
pub fn exact_edge(s: &SettleScratch, dom: &[TargetSet], assignment: &[u8], e: &Edge) -> bool {
    let (a, b) = (e.from as usize, e.to as usize);
    let fixed = |x: usize| dom[x].len() <= 1;
    s.reachable[a]
        && a != b
        && (s.pending_piece[a]
            || s.pending_piece[b]
            || (fixed(a) && fixed(b) && assignment[a] != assignment[b]))
}

/// What a component's enumeration prices an edge with.
#[derive(Clone, Copy, Debug)]
pub enum EdgeCosts<'a> {
    /// The model's overhead table (`K × K`, the same for every edge), a lower bound of
    /// every edge's matrix: the problem has no matrices yet.
    Lower(&'a [Cost]),
    /// The problem's own matrices.
    Exact,
}

impl EdgeCosts<'_> {
    /// The cost of edge `e` from target `s` to `d`.
    fn of(self, p: &Problem, e: usize, s: usize, d: usize) -> Cost {
        match self {
            EdgeCosts::Lower(overhead) => overhead[s * p.num_targets() + d],
            EdgeCosts::Exact => p.transition(e, s, d),
        }
    }
}

/// What [`settle_lower`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Every component settled under the lower bound, and every edge joins one target: the
    /// assignment is the optimum, its cost its block costs ([`block_costs`]).
    All,
    /// Some components (listed in the scratch) need the exact costs ([`settle_exact`]);
    /// the others' pieces are placed.
    Pending,
    /// Elimination would have declined (the components' work bound exceeds the budget):
    /// the solver answers.
    Declined,
}

/// The placement of `p` (domains `dom` from [`arc_consistency`], which also left the
/// reachability and incident lists in `s`) under the lower bound `overhead` (see the
/// module doc): every fixed piece gets its target, every component of free pieces that
/// settles its optimum (a component settles when its optimum under the lower bound is
/// unique and on one target with every neighbour); the others are listed for
/// [`settle_exact`]. `budget` is the exact elimination's
/// ([`super::solve::SolveOptions::exact_budget`]). Unreachable pieces are [`UNPLACED`].
pub fn settle_lower(
    p: &Problem,
    dom: &[TargetSet],
    overhead: &[Cost],
    budget: u64,
    s: &mut SettleScratch,
    assignment: &mut Vec<u8>,
) -> Settled {
    let n = p.num_blocks();
    let free = |b: usize| dom[b].len() > 1;
    assignment.clear();
    assignment.extend((0..n).map(|b| match dom[b].iter().next() {
        Some(t) if s.reachable[b] && !free(b) => t as u8,
        _ => UNPLACED,
    }));
    // An edge between fixed pieces on two targets costs what its size says.
    let mut all = p.edges.iter().all(|e| {
        let (a, b) = (e.from as usize, e.to as usize);
        !s.reachable[a] || free(a) || free(b) || assignment[a] == assignment[b]
    });
    if budget == 0 {
        return Settled::Declined;
    }
    s.component.clear();
    s.component.resize(n, u32::MAX);
    s.slot.clear();
    s.slot.resize(n, 0);
    s.pending.clear();
    s.pending.push(0);
    s.pending_members.clear();
    s.pending_large.clear();
    s.work = 0;
    for root in 0..n {
        if !s.reachable[root] || !free(root) || s.component[root] != u32::MAX {
            continue;
        }
        let assignments = gather(p, dom, root, s);
        let large = assignments > MAX_ASSIGNMENTS;
        if !large {
            s.work = s
                .work
                .saturating_add(assignments.saturating_mul(s.list.len() as u64));
            if s.work > budget {
                return Settled::Declined;
            }
        }
        if large || settle_component(p, dom, EdgeCosts::Lower(overhead), s, assignment).is_none() {
            s.pending_members.extend_from_slice(&s.list);
            s.pending.push(s.pending_members.len() as u32);
            s.pending_large.push(large);
            all = false;
        }
    }
    if all {
        Settled::All
    } else {
        Settled::Pending
    }
}

/// Settles the components [`settle_lower`] left pending under `p`'s own matrices: a small
/// one by enumeration when its exact optimum is unique, else (a tie, or a component past
/// [`MAX_ASSIGNMENTS`]) by exact elimination ([`super::eliminate`]) of the component
/// alone, which gives what elimination of the whole problem gives it (see the module doc).
/// True when every one settles (the assignment is then the optimum, its cost
/// [`super::cost::objective_with`]); false when elimination would decline (the work of the
/// large components past what is left of `budget`) or finds a component infeasible: the
/// solver answers.
pub fn settle_exact(
    p: &Problem,
    dom: &[TargetSet],
    budget: u64,
    s: &mut SettleScratch,
    assignment: &mut [u8],
) -> bool {
    let mut work = s.work;
    for i in 0..s.pending.len().saturating_sub(1) {
        let (lo, hi) = (s.pending[i] as usize, s.pending[i + 1] as usize);
        s.list.clear();
        s.list.extend_from_slice(&s.pending_members[lo..hi]);
        let left = if s.pending_large[i] {
            budget.saturating_sub(work)
        } else if settle_component(p, dom, EdgeCosts::Exact, s, assignment).is_some() {
            continue;
        } else {
            // A tie: elimination's own choice, its work within the bound already counted.
            u64::MAX
        };
        match eliminate_component(p, dom, left, s, assignment) {
            Some(w) if s.pending_large[i] => work = work.saturating_add(w),
            Some(_) => {}
            None => return false,
        }
    }
    true
}

/// Exact elimination ([`super::eliminate`]) of the component listed in `s.list`, its
/// neighbours fixed at their targets in `assignment`, within `budget` table entries:
/// writes the members' targets into `assignment` and returns the work, or `None` (over
/// the budget, or infeasible). Whole-problem elimination conditions the fixed pieces out
/// and never joins two components, and its greedy order, table layout and ties (the
/// first best value per cell) depend only on the component's own blocks in ascending
/// order, so its answer on the members is this one.
fn eliminate_component(
    p: &Problem,
    dom: &[TargetSet],
    budget: u64,
    s: &mut SettleScratch,
    assignment: &mut [u8],
) -> Option<u64> {
    let k = p.num_targets();
    let SettleScratch {
        start,
        incident,
        list,
        component,
        slot,
        single: c,
        ..
    } = s;
    c.members.clear();
    c.members.extend_from_slice(list);
    c.members.sort_unstable();
    for (i, &b) in c.members.iter().enumerate() {
        slot[b as usize] = i as u32;
    }
    let q = &mut c.problem;
    q.targets.resize(k, String::new());
    q.blocks.clear();
    q.blocks.resize(c.members.len(), String::new());
    q.block_cost.clear();
    q.edges.clear();
    q.matrices.clear();
    c.domains.clear();
    for &b in &c.members {
        let b = b as usize;
        let at = q.block_cost.len();
        q.block_cost
            .extend_from_slice(&p.block_cost[b * k..(b + 1) * k]);
        c.domains.push(dom[b]);
        for &ei in &incident[start[b] as usize..start[b + 1] as usize] {
            let e = p.edges[ei as usize];
            let (from, to) = (e.from as usize, e.to as usize);
            let other = if from == b { to } else { from };
            if component[other] == component[b] {
                if from == b {
                    q.edges.push(super::problem::Edge {
                        from: slot[from],
                        to: slot[to],
                    });
                    let m = ei as usize * k * k;
                    q.matrices.extend_from_slice(&p.matrices[m..m + k * k]);
                }
                continue;
            }
            let fixed = usize::from(assignment[other]);
            for t in 0..k {
                let cost = if from == b {
                    p.transition(ei as usize, t, fixed)
                } else {
                    p.transition(ei as usize, fixed, t)
                };
                q.block_cost[at + t] = add(q.block_cost[at + t], cost);
            }
        }
    }
    c.constraints.rebuild_all_reachable(q);
    let solved = eliminate_into(
        &c.constraints,
        &c.domains,
        budget,
        &mut c.eliminate,
        &mut c.assignment,
    );
    if solved != Ok(true) {
        return None;
    }
    for (i, &b) in c.members.iter().enumerate() {
        assignment[b as usize] = c.assignment[i];
    }
    Some(c.eliminate.work())
}

/// Lists in `s.list` the component of free pieces containing `root` (labelling its
/// members with `root` in `s.component`) and returns its number of assignments
/// (saturating).
fn gather(p: &Problem, dom: &[TargetSet], root: usize, s: &mut SettleScratch) -> u64 {
    s.list.clear();
    s.list.push(root as u32);
    s.component[root] = root as u32;
    let mut assignments: u64 = u64::from(dom[root].len());
    let mut at = 0;
    while at < s.list.len() {
        let b = s.list[at] as usize;
        at += 1;
        for &e in &s.incident[s.start[b] as usize..s.start[b + 1] as usize] {
            let e = p.edges[e as usize];
            let o = if e.from as usize == b { e.to } else { e.from } as usize;
            if dom[o].len() > 1 && s.component[o] == u32::MAX {
                s.component[o] = root as u32;
                s.list.push(o as u32);
                assignments = assignments.saturating_mul(u64::from(dom[o].len()));
            }
        }
    }
    assignments
}

/// The cost of a settled assignment under [`EdgeCosts::Lower`]: its block costs (every
/// edge joins one target and costs 0), [`super::cost::objective_with`] of it.
pub fn block_costs(p: &Problem, reachable: &[bool], assignment: &[u8]) -> Cost {
    let k = p.num_targets();
    let mut cost: Cost = 0;
    for b in 0..p.num_blocks() {
        if reachable[b] {
            cost = add(cost, p.block_cost[b * k + assignment[b] as usize]);
        }
    }
    cost
}

#[cfg(all(test, feature = "fuzzing"))]
mod tests {
    use super::*;
    use crate::analysis::{Cfg, Sccs};
    use crate::fuzzing::generate::{module, seed_bytes};
    use crate::fuzzing::generate_ssa::{seeded_ssa, SsaGenOptions};
    use crate::ir::Function;
    use crate::placement::build::{
        build_pieces_in, build_problem_in, complete_edges_in, complete_problem_in, BuildScratch,
        IrProblem,
    };
    use crate::placement::cost::objective_with;
    use crate::placement::problem::Constraints;
    use crate::placement::targets::TargetModel;
    use crate::placement::{Placement, SolveOptions, Solver};

    /// What happened to one function: `Some(outcome)` (0 settled under the lower bound, 1
    /// under the exact costs, 2 declined) after checking it against the full path.
    /// `narrowed[1]` counts the pending functions whose completion tracked fewer values
    /// than the full one (`[0]` the others), `narrowed[3]` those whose completion with the
    /// dominator tree tracked fewer than with the horizon alone (`[2]` the others), both
    /// giving the same matrices.
    fn check(
        f: &Function,
        model: &TargetModel,
        s: &mut SettleScratch,
        narrowed: &mut [usize; 4],
    ) -> Option<usize> {
        let opts = SolveOptions::default();
        let mut cfg = Cfg::new();
        cfg.compute(f);
        let mut sccs = Sccs::new();
        sccs.compute(&cfg);
        let (mut b, mut ir, mut full, mut full_b) = (
            BuildScratch::default(),
            IrProblem::default(),
            IrProblem::default(),
            BuildScratch::default(),
        );
        build_pieces_in(f, &cfg, &sccs, None, model, &mut b, &mut ir);
        assert!(b.sizes_cannot_forbid);
        build_problem_in(f, &cfg, &sccs, None, model, &mut full_b, &mut full);
        let c = Constraints::new(&full.problem);
        let (mut solver, mut want_dom, mut dom) = (Solver::new(), Vec::new(), Vec::new());
        let want_ok = solver
            .enforce_arc_consistency(&full.problem, &c, &mut want_dom)
            .is_ok();
        let got = arc_consistency(&ir.problem, &b.overhead, s, &mut dom);
        assert_eq!(got.is_ok(), want_ok, "@{}", f.name);
        if !want_ok {
            return None;
        }
        assert_eq!(dom, want_dom, "@{}", f.name);
        let mut want = Placement::default();
        if !solver.eliminate_exactly(&full.problem, &c, &dom, &opts, &mut want) {
            return None;
        }
        let mut assignment = Vec::new();
        let p = &ir.problem;
        let (outcome, cost) =
            match settle_lower(p, &dom, &b.overhead, opts.exact_budget, s, &mut assignment) {
                Settled::All => (0, block_costs(p, &s.reachable, &assignment)),
                Settled::Pending => {
                    // As the pipeline does: only the edges `exact_edge` accepts.
                    s.mark_pending(p.num_blocks());
                    let (settled, assigned) = (&*s, &assignment);
                    let exact = |e: &Edge| exact_edge(settled, &dom, assigned, e);
                    let mut dom_tree = crate::analysis::DomTree::new();
                    dom_tree.compute(&cfg);
                    let analyses = (&cfg, Some(&dom_tree));
                    complete_edges_in(f, analyses, None, model, &mut b, &mut ir, exact);
                    narrowed[usize::from(b.gval.len() < full_b.gval.len())] += 1;
                    // The same matrices with the horizon alone (no dominator tree), which
                    // tracks at least as many values.
                    let (mut alone, mut alone_b) = (IrProblem::default(), BuildScratch::default());
                    build_pieces_in(f, &cfg, &sccs, None, model, &mut alone_b, &mut alone);
                    complete_edges_in(
                        f,
                        (&cfg, None),
                        None,
                        model,
                        &mut alone_b,
                        &mut alone,
                        exact,
                    );
                    assert_eq!(ir.problem.matrices, alone.problem.matrices, "@{}", f.name);
                    assert!(b.gval.len() <= alone_b.gval.len(), "@{}", f.name);
                    narrowed[2 + usize::from(b.gval.len() < alone_b.gval.len())] += 1;
                    if !settle_exact(&ir.problem, &dom, opts.exact_budget, s, &mut assignment) {
                        complete_problem_in(f, &cfg, None, model, &mut b, &mut ir, Some(&dom));
                        return Some(2);
                    }
                    let cost = objective_with(&ir.problem, &s.reachable, &assignment);
                    (1, cost.expect("a settled placement is feasible"))
                }
                Settled::Declined => return Some(2),
            };
        assert_eq!(assignment, want.assignment, "@{}", f.name);
        assert_eq!(cost, want.cost, "@{}", f.name);
        Some(outcome)
    }

    /// Oracle: on generated functions (memory-form modules with calls, whose fixed pieces
    /// leave small free components; SSA functions), [`arc_consistency`] gives the full
    /// AC-3's domains, and wherever [`settle_lower`] / [`settle_exact`] settle, their
    /// assignment and cost are exact elimination's on the whole problem; both ways of
    /// settling occur. Settling under the exact costs completes only the edges
    /// [`exact_edge`] accepts, as the pipeline does, and that tracks fewer values than
    /// the full completion in some functions; with the dominator tree it gives the same
    /// matrices as with the horizon alone.
    #[test]
    fn settled_placements_are_elimination_s() {
        let model = TargetModel::default_model();
        let mut s = SettleScratch::default();
        let (mut seen, mut narrowed) = ([0usize; 3], [0usize; 4]);
        for seed in 0..300u64 {
            let bytes = seed_bytes(seed, 4096);
            let mut u = arbitrary::Unstructured::new(&bytes);
            let Ok(m) = module(&mut u, &Default::default()) else {
                continue;
            };
            for f in &m.functions {
                if let Some(o) = check(f, &model, &mut s, &mut narrowed) {
                    seen[o] += 1;
                }
            }
            let f = seeded_ssa(seed, &SsaGenOptions::default());
            if let Some(o) = check(&f, &model, &mut s, &mut narrowed) {
                seen[o] += 1;
            }
        }
        assert!(seen[0] > 10 && seen[1] > 10, "outcomes {seen:?}");
        assert!(narrowed[1] > 5, "narrowed {narrowed:?}");
        // The dominator tree's matrices were compared on every pending function. (The
        // generated functions' pending components span most of their blocks, so it tracks
        // no fewer values here; on the corpus it does, see `complete_edges_in`.)
        assert!(narrowed[2] + narrowed[3] > 100, "narrowed {narrowed:?}");
    }
}

#[cfg(test)]
mod component_tests {
    use super::*;
    use crate::placement::generate::{problem, Shape};
    use crate::placement::Solver;

    /// Oracle for [`eliminate_component`]: on generated problems (every shape, up to 60
    /// blocks, so components both small and past [`MAX_ASSIGNMENTS`], ties included),
    /// eliminating each component of free pieces alone, its neighbours fixed at the whole
    /// problem's answer, gives its members what whole-problem elimination gives them, and
    /// its work fits within the whole's.
    #[test]
    fn a_component_alone_eliminates_as_the_whole_problem() {
        let mut s = SettleScratch::default();
        let (mut checked, mut large) = (0, 0);
        for seed in 0..210u64 {
            let blocks = 4 + (seed as usize * 7) % 57;
            let p = problem(seed, Shape::ALL[(seed % 7) as usize], blocks, 3);
            // Self-loops cost their diagonal, which the pipeline's matrices keep at 0.
            if p.edges.iter().any(|e| e.from == e.to) {
                continue;
            }
            let c = Constraints::new(&p);
            let mut dom = Vec::new();
            if Solver::new()
                .enforce_arc_consistency(&p, &c, &mut dom)
                .is_err()
            {
                continue;
            }
            let (mut whole, mut scratch) = (Vec::new(), EliminateScratch::default());
            if eliminate_into(&c, &dom, u64::MAX, &mut scratch, &mut whole) != Ok(true) {
                continue;
            }
            reach(&p, &mut s);
            let n = p.num_blocks();
            s.component.clear();
            s.component.resize(n, u32::MAX);
            s.slot.clear();
            s.slot.resize(n, 0);
            for root in 0..n {
                if !s.reachable[root] || dom[root].len() < 2 || s.component[root] != u32::MAX {
                    continue;
                }
                large += usize::from(gather(&p, &dom, root, &mut s) > MAX_ASSIGNMENTS);
                let mut assignment = whole.clone();
                for &b in &s.list {
                    assignment[b as usize] = UNPLACED;
                }
                checked += s.list.len();
                let work = eliminate_component(&p, &dom, u64::MAX, &mut s, &mut assignment);
                assert!(work.is_some_and(|w| w <= scratch.work()), "seed {seed}");
                assert_eq!(assignment, whole, "seed {seed}, component of {root}");
            }
        }
        assert!(
            checked > 300 && large > 5,
            "{checked} members, {large} large"
        );
    }
}

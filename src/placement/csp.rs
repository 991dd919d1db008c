//! Phase 2b: the exact CSP over a set of blocks with a fixed boundary.
//!
//! What: given member blocks (a non-trivial region, or any window of blocks the refinement
//! passes re-solve), their domains, and the targets of the blocks outside that are already
//! placed, find the member assignment of least cost: members' unary costs, constraints
//! between members, and constraints to placed outside blocks (000, "CSP Solver"). Outside
//! blocks not yet placed constrain nothing and cost nothing.
//!
//! Algorithm: depth-first search with
//! - MRV variable ordering (smallest remaining domain; ties: most constraints to placed
//!   blocks, then the first member, which [`super::condense`] makes the loop header);
//! - cheapest-first value ordering (unary cost plus edges to placed blocks);
//! - bidirectional forward checking through the precomputed support masks, undone by a
//!   trail (000's rollback: every narrowing below a depth is recorded and restored);
//! - branch and bound with an admissible lower bound: for every unplaced member the cheapest
//!   unary cost over its remaining domain, plus for every member constraint with an unplaced
//!   end the cheapest allowed transition over the remaining domains. The terms are disjoint
//!   parts of the objective, so the bound never exceeds the true completion cost and the
//!   search is exact (DESIGN.md 4, where 000's implementation notes drop the bound).
//!
//! Above [`CspLimits::exact_members`] members, or after [`CspLimits::node_budget`] search
//! nodes, the search stops at the first complete assignment found after the budget (greedy
//! with forward checking); [`CspSolution::exact`] says which happened. `nogoods` exclude
//! given assignments of the interface members (those with an edge leaving the set), which
//! the forward pass uses to ask for the next-best boundary behaviour when backtracking.
//!
//! Invariants: a returned assignment is feasible for every member constraint and every
//! constraint to a placed outside block; its `cost` is exactly the sum described above.
//!
//! Complexity: O(K^m) worst case for m members; O(m + E_m·K²) per node for the bound.

use super::cost::UNPLACED;
use super::problem::{add, Constraints, Cost, TargetSet, FORBIDDEN};

/// Where the CSP stops being exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CspLimits {
    /// Largest member count solved exactly by branch and bound.
    pub exact_members: usize,
    /// Search nodes before the search settles for the next complete assignment.
    pub node_budget: u64,
}

impl Default for CspLimits {
    fn default() -> Self {
        CspLimits {
            exact_members: 16,
            node_budget: 20_000,
        }
    }
}

/// A CSP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CspSolution {
    /// Target per member, in the order of the `members` argument.
    pub targets: Vec<u8>,
    /// Members' unary costs + member constraints + constraints to placed outside blocks.
    pub cost: Cost,
    /// True if branch and bound ran to completion (the cost is the optimum).
    pub exact: bool,
}

/// Reusable scratch of [`solve_csp`].
#[derive(Default, Debug)]
pub struct CspScratch {
    local: Vec<u32>,
    /// Per member: `(constraint, member is source, other member or NONE)`.
    adj: Vec<Vec<(u32, bool, u32)>>,
    base: Vec<Cost>,
    dom: Vec<TargetSet>,
    assigned: Vec<u8>,
    trail: Vec<(u32, TargetSet)>,
    internal: Vec<u32>,
    best: Option<(Cost, Vec<u8>)>,
    nodes: u64,
    interface: Vec<u32>,
}

const NONE: u32 = u32::MAX;

/// Solves the CSP over `members` (see the module doc), considering only assignments that
/// cost strictly less than `upper` ([`FORBIDDEN`]: no bound; the refinement passes pass the
/// current cost, so branch and bound prunes from the start). `domains` are per block (all
/// blocks); `outside[b]` is the target of an outside block or [`UNPLACED`]. Returns `None`
/// if no assignment satisfies the constraints and nogoods (or the budget ran out before any
/// complete assignment was found).
#[allow(clippy::too_many_arguments)] // the CSP's inputs are independent; a struct would only rename them
pub fn solve_csp(
    c: &Constraints,
    members: &[u32],
    domains: &[TargetSet],
    outside: &[u8],
    nogoods: &[Vec<u8>],
    upper: Cost,
    limits: CspLimits,
    s: &mut CspScratch,
) -> Option<CspSolution> {
    let (k, m) = (c.k, members.len());
    if s.local.len() < c.n {
        s.local.resize(c.n, NONE);
    }
    for (i, &b) in members.iter().enumerate() {
        s.local[b as usize] = i as u32;
    }
    s.adj.resize_with(m.max(s.adj.len()), Vec::new);
    s.base.clear();
    s.base.resize(m * k, FORBIDDEN);
    s.dom.clear();
    s.assigned.clear();
    s.assigned.resize(m, UNPLACED);
    s.trail.clear();
    s.internal.clear();
    s.interface.clear();
    let mut feasible = true;
    for (i, &b) in members.iter().enumerate() {
        let adj = &mut s.adj[i];
        adj.clear();
        let mut dom = domains[b as usize];
        for t in dom.iter() {
            s.base[i * k + t] = c.unary(b as usize, t);
        }
        let mut leaves = false;
        for &(ci, src) in c.incident(b as usize) {
            let o = c.other(ci, src);
            let lo = s.local[o];
            if lo != NONE {
                adj.push((ci, src, lo));
                if src {
                    s.internal.push(ci);
                }
                continue;
            }
            leaves = true;
            let to = outside[o];
            if to == UNPLACED {
                continue;
            }
            dom = dom & c.support(ci, !src, to as usize);
            for t in dom.iter() {
                let v = &mut s.base[i * k + t];
                *v = add(*v, c.edge_cost(ci, src, t, to as usize));
            }
        }
        if leaves {
            s.interface.push(i as u32);
        }
        for t in dom.iter() {
            if s.base[i * k + t] == FORBIDDEN {
                dom.remove(t);
            }
        }
        if dom.is_empty() {
            feasible = false;
        }
        s.dom.push(dom);
    }
    s.best = None;
    s.nodes = 0;
    let exact_mode = m <= limits.exact_members;
    let mut exact = exact_mode;
    if feasible {
        let mut ctx = Search {
            c,
            k,
            nogoods,
            exact_mode,
            budget: limits.node_budget,
            upper,
            out_of_budget: false,
        };
        ctx.search(s, 0, 0);
        if ctx.out_of_budget {
            exact = false;
        }
    }
    for &b in members {
        s.local[b as usize] = NONE;
    }
    s.best.take().map(|(cost, targets)| CspSolution {
        targets,
        cost,
        exact,
    })
}

struct Search<'a> {
    c: &'a Constraints,
    k: usize,
    nogoods: &'a [Vec<u8>],
    exact_mode: bool,
    budget: u64,
    out_of_budget: bool,
    upper: Cost,
}

impl Search<'_> {
    /// Lower bound on the cost still to come (see the module doc), or `FORBIDDEN` if some
    /// member constraint has no allowed pair left.
    fn lower_bound(&self, s: &CspScratch) -> Cost {
        let k = self.k;
        let mut lb: Cost = 0;
        for (i, &a) in s.assigned.iter().enumerate() {
            if a == UNPLACED {
                let min = s.dom[i]
                    .iter()
                    .map(|t| s.base[i * k + t])
                    .min()
                    .unwrap_or(FORBIDDEN);
                lb = add(lb, min);
            }
        }
        for &ci in &s.internal {
            let con = &self.c.constraints[ci as usize];
            let (f, t) = (
                s.local[con.from as usize] as usize,
                s.local[con.to as usize] as usize,
            );
            let (af, at) = (s.assigned[f], s.assigned[t]);
            if af != UNPLACED && at != UNPLACED {
                continue;
            }
            let fd = if af != UNPLACED {
                TargetSet::single(af as usize)
            } else {
                s.dom[f]
            };
            let td = if at != UNPLACED {
                TargetSet::single(at as usize)
            } else {
                s.dom[t]
            };
            let mut min = FORBIDDEN;
            for x in fd.iter() {
                for y in (self.c.fwd(ci, x) & td).iter() {
                    min = min.min(self.c.cost(ci, x, y));
                }
            }
            lb = add(lb, min);
        }
        lb
    }

    fn search(&mut self, s: &mut CspScratch, depth: usize, cost: Cost) {
        let m = s.assigned.len();
        s.nodes += 1;
        if s.nodes > self.budget {
            self.out_of_budget = true;
        }
        if depth == m {
            if !self.nogoods.is_empty() {
                let tuple: Vec<u8> = s
                    .interface
                    .iter()
                    .map(|&i| s.assigned[i as usize])
                    .collect();
                if self.nogoods.contains(&tuple) {
                    return;
                }
            }
            if cost < self.upper && s.best.as_ref().is_none_or(|(b, _)| cost < *b) {
                s.best = Some((cost, s.assigned.clone()));
            }
            return;
        }
        // MRV: smallest domain, then most placed neighbours, then first member.
        let mut pick = usize::MAX;
        let mut key = (u32::MAX, 0usize);
        for i in 0..m {
            if s.assigned[i] != UNPLACED {
                continue;
            }
            let size = s.dom[i].len();
            if size > key.0 {
                continue;
            }
            let degree = s.adj[i]
                .iter()
                .filter(|&&(_, _, o)| o != NONE && s.assigned[o as usize] != UNPLACED)
                .count();
            if size < key.0 || degree > key.1 {
                key = (size, degree);
                pick = i;
            }
        }
        let i = pick;
        let k = self.k;
        // Cheapest-first values: unary plus edges to placed members.
        let mut values: smallvec::SmallVec<[(Cost, u8); 16]> = smallvec::SmallVec::new();
        for t in s.dom[i].iter() {
            let mut v = s.base[i * k + t];
            for &(ci, src, o) in &s.adj[i] {
                let ao = s.assigned[o as usize];
                if ao != UNPLACED {
                    v = add(v, self.c.edge_cost(ci, src, t, ao as usize));
                }
            }
            if v != FORBIDDEN {
                values.push((v, t as u8));
            }
        }
        values.sort_unstable();
        for (step, t) in values {
            let next = add(cost, step);
            let bound = s.best.as_ref().map_or(self.upper, |b| b.0);
            if next >= bound {
                break; // values are sorted: no later one can do better
            }
            let mark = s.trail.len();
            let mut wiped = false;
            for j in 0..s.adj[i].len() {
                let (ci, src, o) = s.adj[i][j];
                if s.assigned[o as usize] != UNPLACED {
                    continue;
                }
                let old = s.dom[o as usize];
                let new = old & self.c.support(ci, src, t as usize);
                if new != old {
                    s.trail.push((o, old));
                    s.dom[o as usize] = new;
                    if new.is_empty() {
                        wiped = true;
                        break;
                    }
                }
            }
            s.assigned[i] = t;
            let prune = wiped
                || (self.exact_mode
                    && bound != FORBIDDEN
                    && add(next, self.lower_bound(s)) >= bound);
            if !prune {
                self.search(s, depth + 1, next);
            }
            s.assigned[i] = UNPLACED;
            while s.trail.len() > mark {
                let (o, d) = s.trail.pop().expect("trail above mark");
                s.dom[o as usize] = d;
            }
            if s.best.is_some() && (!self.exact_mode || self.out_of_budget) {
                return; // greedy: keep the first complete assignment
            }
        }
    }
}

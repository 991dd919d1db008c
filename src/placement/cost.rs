//! The exact objective and the exhaustive oracle.
//!
//! What: [`objective`] prices a complete assignment exactly as DESIGN.md 4 defines the
//! reported cost: the sum of block costs of every reachable block plus, for every edge whose
//! source is reachable, its matrix entry (each edge charged once; parallel edges each;
//! self-loops at `M[t][t]`). [`brute_force`] enumerates every assignment of the reachable
//! blocks (depth-first, abandoning a prefix as soon as an edge inside it is forbidden or its
//! cost reaches the best complete one), the oracle for small problems.
//!
//! Invariants: an assignment is a `Vec<u8>` over all blocks; unreachable blocks carry
//! [`UNPLACED`] and are ignored; a reachable block must carry a target below K.
//!
//! Complexity: [`objective`] O(blocks + edges); [`brute_force`] O(K^reachable) worst case.

use super::problem::{add, Constraints, Cost, Problem, FORBIDDEN};

/// The target of a block that is not placed (unreachable from the entry).
pub const UNPLACED: u8 = u8::MAX;

/// The exact objective of `assignment` for `p`, or `None` if it uses an unsupported target
/// or a disallowed transition (or leaves a reachable block unplaced).
pub fn objective(p: &Problem, assignment: &[u8]) -> Option<Cost> {
    let c = Constraints::new(p);
    objective_with(p, &c.reachable, assignment)
}

/// [`objective`] with the reachability already computed.
pub fn objective_with(p: &Problem, reachable: &[bool], assignment: &[u8]) -> Option<Cost> {
    let k = p.num_targets();
    let mut total: Cost = 0;
    for b in 0..p.num_blocks() {
        if !reachable[b] {
            continue;
        }
        let t = assignment[b] as usize;
        if t >= k {
            return None;
        }
        total = add(total, p.cost(b, t));
    }
    for (i, e) in p.edges.iter().enumerate() {
        if !reachable[e.from as usize] {
            continue;
        }
        let (s, d) = (assignment[e.from as usize], assignment[e.to as usize]);
        total = add(total, p.transition(i, s as usize, d as usize));
    }
    (total != FORBIDDEN).then_some(total)
}

/// The optimum of `p` by exhaustive search: `Some((cost, assignment))`, or `None` if no
/// assignment is feasible. Meant for problems of at most a dozen reachable blocks.
pub fn brute_force(p: &Problem) -> Option<(Cost, Vec<u8>)> {
    let c = Constraints::new(p);
    let order: Vec<usize> = (0..c.n).filter(|&b| c.reachable[b]).collect();
    let mut position = vec![usize::MAX; c.n];
    for (i, &b) in order.iter().enumerate() {
        position[b] = i;
    }
    let mut assignment = vec![UNPLACED; c.n];
    let mut best: Option<(Cost, Vec<u8>)> = None;
    fn go(
        c: &Constraints,
        order: &[usize],
        position: &[usize],
        depth: usize,
        cost: Cost,
        assignment: &mut Vec<u8>,
        best: &mut Option<(Cost, Vec<u8>)>,
    ) {
        if let Some((b, _)) = best {
            if cost >= *b {
                return;
            }
        }
        if depth == order.len() {
            *best = Some((cost, assignment.clone()));
            return;
        }
        let b = order[depth];
        for t in 0..c.k {
            let mut total = add(cost, c.unary(b, t));
            for &(ci, src) in c.incident(b) {
                let o = c.other(ci, src);
                if position[o] < depth {
                    total = add(total, c.edge_cost(ci, src, t, assignment[o] as usize));
                }
            }
            if total == FORBIDDEN {
                continue;
            }
            assignment[b] = t as u8;
            go(c, order, position, depth + 1, total, assignment, best);
        }
        assignment[b] = UNPLACED;
    }
    go(&c, &order, &position, 0, 0, &mut assignment, &mut best);
    best
}

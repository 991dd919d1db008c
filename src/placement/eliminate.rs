//! Exact placement by variable elimination over a small-width elimination order.
//!
//! What: the objective is a sum of unary terms (blocks) and pairwise terms (constraints)
//! over the blocks' domains (after AC-3). When the constraint graph has small treewidth, as
//! structured CFGs do (Thorup, "All structured programs have small tree width and good
//! register allocation", 1998), min-sum bucket elimination finds the exact optimum in time
//! linear in the number of blocks and exponential only in the width. [`eliminate`] picks a
//! greedy min-fill order, estimates the table sizes it would build, and gives up (returns
//! `Ok(None)`) when they exceed a budget, leaving the problem to the search of
//! [`super::solve`].
//!
//! Algorithm: Dechter, "Bucket elimination: a unifying framework for reasoning" (1999),
//! min-sum form. Eliminating block `x` joins every factor mentioning `x` into one table over
//! `x`'s neighbours `S` and minimises over `x`, recording the argmin per assignment of `S`;
//! decoding runs the order backwards. Forbidden entries are [`FORBIDDEN`] and absorb.
//!
//! Invariants: the answer is a minimum of the exact objective over all assignments within
//! the AC-3 domains (AC-3 keeps every target of every feasible assignment), or infeasible.
//!
//! Complexity: O(Σ_x Π_{y ∈ S(x) ∪ {x}} |dom y| · factors(x)); bounded by the budget.

use super::problem::{add, Constraints, Cost, TargetSet, FORBIDDEN};

const NONE: u32 = u32::MAX;

/// Working memory of [`eliminate_with`], reused between calls (every table is flat or a
/// reused list, so a warm scratch allocates only when a problem is larger than every
/// earlier one).
#[derive(Default, Debug)]
pub struct EliminateScratch {
    /// `vals[vals_start[b]..vals_start[b + 1]]`: block `b`'s domain, ascending.
    vals_start: Vec<u32>,
    vals: Vec<u8>,
    /// Current neighbours of each block in the elimination graph (lists kept between calls).
    nb: Vec<Vec<u32>>,
    eliminated: Vec<bool>,
    order: Vec<u32>,
    key: Vec<u64>,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32)>>,
    rank: Vec<u32>,
    /// Factors: scope `scopes[scope.0..scope.0 + scope.1]`, table
    /// `tables[table.0..table.0 + table.1]` (row-major in scope order, each axis over the
    /// block's domain), chained per bucket through `next`.
    factor_scope: Vec<(u32, u32)>,
    factor_table: Vec<(usize, usize)>,
    next: Vec<u32>,
    scopes: Vec<u32>,
    tables: Vec<Cost>,
    bucket: Vec<u32>,
    /// Per elimination: the factors of the bucket, the separator, axis sizes, the position
    /// of each factor's scope variables in the separator (`NONE`: the eliminated block),
    /// the odometer and the new table.
    fids: Vec<u32>,
    sep: Vec<u32>,
    dims: Vec<usize>,
    maps: Vec<u32>,
    idx: Vec<usize>,
    table: Vec<Cost>,
    /// Per eliminated block (in order): its separator and argmin table.
    arg_sep: Vec<(u32, u32)>,
    arg_at: Vec<usize>,
    seps: Vec<u32>,
    args: Vec<u8>,
    choice: Vec<usize>,
}

impl EliminateScratch {
    fn dlen(&self, b: usize) -> usize {
        (self.vals_start[b + 1] - self.vals_start[b]) as usize
    }

    fn push_factor(&mut self, bucket: u32, scope_at: usize, table_at: usize) {
        let id = self.factor_scope.len() as u32;
        self.factor_scope
            .push((scope_at as u32, (self.scopes.len() - scope_at) as u32));
        self.factor_table
            .push((table_at, self.tables.len() - table_at));
        self.next.push(self.bucket[bucket as usize]);
        self.bucket[bucket as usize] = id;
    }
}

/// The exact optimum within `budget` table entries: `Ok(Some(assignment))`, `Ok(None)` if
/// the elimination would exceed the budget, `Err(())` if no assignment is feasible.
#[allow(clippy::result_unit_err)]
pub fn eliminate(c: &Constraints, dom: &[TargetSet], budget: u64) -> Result<Option<Vec<u8>>, ()> {
    eliminate_with(c, dom, budget, &mut EliminateScratch::default())
}

/// [`eliminate`] with reusable working memory.
#[allow(clippy::result_unit_err)]
pub fn eliminate_with(
    c: &Constraints,
    dom: &[TargetSet],
    budget: u64,
    s: &mut EliminateScratch,
) -> Result<Option<Vec<u8>>, ()> {
    let n = c.n;
    s.vals_start.clear();
    s.vals.clear();
    s.vals_start.push(0);
    for d in dom.iter().take(n) {
        s.vals.extend(d.iter().map(|t| t as u8));
        s.vals_start.push(s.vals.len() as u32);
    }
    // Adjacency (undirected, deduplicated) for the order.
    if s.nb.len() < n {
        s.nb.resize_with(n, Vec::new);
    }
    for list in &mut s.nb[..n] {
        list.clear();
    }
    for con in &c.constraints {
        let (a, b) = (con.from as usize, con.to as usize);
        if !s.nb[a].contains(&(b as u32)) {
            s.nb[a].push(b as u32);
            s.nb[b].push(a as u32);
        }
    }
    // Greedy order by smallest table (min-size, a weighted min-degree), with the fill it
    // creates and the work it implies.
    s.eliminated.clear();
    s.eliminated.resize(n, false);
    s.order.clear();
    let mut work: u64 = 0;
    // Lazy min-heap of (table size, block); a stale entry's size differs from `key`.
    let table_size = |s: &EliminateScratch, x: u32| -> u64 {
        s.nb[x as usize]
            .iter()
            .map(|&y| s.dlen(y as usize) as u64)
            .fold(s.dlen(x as usize) as u64, |a, b| a.saturating_mul(b))
    };
    s.key.clear();
    s.key.resize(n, 0);
    s.heap.clear();
    for b in 0..n {
        if c.reachable[b] {
            s.key[b] = table_size(s, b as u32);
            s.heap.push(std::cmp::Reverse((s.key[b], b as u32)));
        }
    }
    while let Some(std::cmp::Reverse((size, x))) = s.heap.pop() {
        if s.eliminated[x as usize] || size != s.key[x as usize] {
            continue;
        }
        work = work.saturating_add(size);
        if work > budget {
            return Ok(None);
        }
        s.eliminated[x as usize] = true;
        s.order.push(x);
        let xs = std::mem::take(&mut s.nb[x as usize]);
        for &y in &xs {
            let list = &mut s.nb[y as usize];
            list.retain(|&z| z != x);
            for &z in &xs {
                if z != y && !list.contains(&z) {
                    list.push(z);
                }
            }
        }
        for &y in &xs {
            s.key[y as usize] = table_size(s, y);
            s.heap.push(std::cmp::Reverse((s.key[y as usize], y)));
        }
        // Keep the list's allocation for the next call.
        s.nb[x as usize] = xs;
        s.nb[x as usize].clear();
    }
    // Factors: unary and pairwise, bucketed by the earliest-eliminated variable in scope.
    s.rank.clear();
    s.rank.resize(n, NONE);
    for (i, &x) in s.order.iter().enumerate() {
        s.rank[x as usize] = i as u32;
    }
    s.bucket.clear();
    s.bucket.resize(s.order.len(), NONE);
    s.factor_scope.clear();
    s.factor_table.clear();
    s.next.clear();
    s.scopes.clear();
    s.tables.clear();
    for b in 0..n {
        if !c.reachable[b] {
            continue;
        }
        let (sa, ta) = (s.scopes.len(), s.tables.len());
        s.scopes.push(b as u32);
        let (lo, hi) = (s.vals_start[b] as usize, s.vals_start[b + 1] as usize);
        for i in lo..hi {
            let t = s.vals[i] as usize;
            s.tables.push(c.unary(b, t));
        }
        s.push_factor(s.rank[b], sa, ta);
    }
    for (ci, con) in c.constraints.iter().enumerate() {
        let (a, b) = (con.from as usize, con.to as usize);
        let (sa, ta) = (s.scopes.len(), s.tables.len());
        s.scopes.extend([a as u32, b as u32]);
        for i in s.vals_start[a] as usize..s.vals_start[a + 1] as usize {
            for j in s.vals_start[b] as usize..s.vals_start[b + 1] as usize {
                let (sv, dv) = (s.vals[i] as usize, s.vals[j] as usize);
                s.tables.push(c.cost(ci as u32, sv, dv));
            }
        }
        s.push_factor(s.rank[a].min(s.rank[b]), sa, ta);
    }
    // Eliminate.
    s.arg_sep.clear();
    s.arg_at.clear();
    s.seps.clear();
    s.args.clear();
    for i in 0..s.order.len() {
        let x = s.order[i];
        s.fids.clear();
        let mut f = s.bucket[i];
        while f != NONE {
            s.fids.push(f);
            f = s.next[f as usize];
        }
        // The bucket lists newest first; the minimum does not depend on the order.
        s.sep.clear();
        for &f in &s.fids {
            let (at, len) = s.factor_scope[f as usize];
            s.sep.extend(
                s.scopes[at as usize..(at + len) as usize]
                    .iter()
                    .filter(|&&y| y != x),
            );
        }
        s.sep.sort_unstable();
        s.sep.dedup();
        s.dims.clear();
        for j in 0..s.sep.len() {
            let d = s.dlen(s.sep[j] as usize);
            s.dims.push(d);
        }
        let total: usize = s.dims.iter().product();
        let xv = s.dlen(x as usize);
        s.table.clear();
        s.table.resize(total, FORBIDDEN);
        let arg_at = s.args.len();
        s.args.resize(arg_at + total, 0);
        // Position of each factor's scope variables in (sep, x).
        s.maps.clear();
        for &f in &s.fids {
            let (at, len) = s.factor_scope[f as usize];
            for &y in &s.scopes[at as usize..(at + len) as usize] {
                let m = if y == x {
                    NONE
                } else {
                    s.sep.iter().position(|&z| z == y).expect("in sep") as u32
                };
                s.maps.push(m);
            }
        }
        s.idx.clear();
        s.idx.resize(s.sep.len(), 0);
        for cell in 0..total {
            let mut best = FORBIDDEN;
            let mut best_v = 0u8;
            for v in 0..xv {
                let mut sum: Cost = 0;
                let mut mi = 0usize;
                for &f in &s.fids {
                    let (sat, len) = s.factor_scope[f as usize];
                    let mut at = 0usize;
                    for &y in &s.scopes[sat as usize..(sat + len) as usize] {
                        let m = s.maps[mi];
                        mi += 1;
                        let coord = if m == NONE { v } else { s.idx[m as usize] };
                        at = at * s.dlen(y as usize) + coord;
                    }
                    let (tat, _) = s.factor_table[f as usize];
                    sum = add(sum, s.tables[tat + at]);
                    if sum == FORBIDDEN {
                        break;
                    }
                }
                if sum < best {
                    best = sum;
                    best_v = v as u8;
                }
            }
            s.table[cell] = best;
            s.args[arg_at + cell] = best_v;
            // Odometer over sep (last axis fastest, matching row-major).
            for d in (0..s.idx.len()).rev() {
                s.idx[d] += 1;
                if s.idx[d] < s.dims[d] {
                    break;
                }
                s.idx[d] = 0;
            }
        }
        if s.sep.is_empty() {
            if s.table[0] == FORBIDDEN {
                return Err(());
            }
        } else {
            let r = s
                .sep
                .iter()
                .map(|&y| s.rank[y as usize])
                .min()
                .expect("non-empty");
            let (sa, ta) = (s.scopes.len(), s.tables.len());
            s.scopes.extend_from_slice(&s.sep);
            s.tables.extend_from_slice(&s.table);
            s.push_factor(r, sa, ta);
        }
        s.arg_sep.push((s.seps.len() as u32, s.sep.len() as u32));
        s.seps.extend_from_slice(&s.sep);
        s.arg_at.push(arg_at);
    }
    // Decode backwards: every separator variable is eliminated later, so decoded earlier.
    s.choice.clear();
    s.choice.resize(n, 0);
    let mut assignment = vec![super::cost::UNPLACED; n];
    for i in (0..s.order.len()).rev() {
        let x = s.order[i] as usize;
        let (sat, len) = s.arg_sep[i];
        let mut at = 0usize;
        for &y in &s.seps[sat as usize..(sat + len) as usize] {
            at = at * s.dlen(y as usize) + s.choice[y as usize];
        }
        let v = s.args[s.arg_at[i] + at] as usize;
        s.choice[x] = v;
        assignment[x] = s.vals[s.vals_start[x] as usize + v];
    }
    Ok(Some(assignment))
}

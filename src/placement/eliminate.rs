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
//! A bucket whose separator is one block or none (every bucket of a path or a tree
//! eliminated leaves first) adds its factors into one small table of sums by their own layout
//! (`eliminate_narrow`) instead of walking every factor's strides per cell
//! (`eliminate_wide`); the minima and the first best values are the same.
//! A block whose domain is a single target (over half the pieces of the C corpora) is
//! fixed: it is conditioned out before the order is chosen (its edges to free blocks
//! become terms of their unary factors), so the elimination graph holds only the free
//! blocks, and a problem whose blocks are all fixed is answered without one.
//!
//! Invariants: the answer is a minimum of the exact objective over all assignments within
//! the AC-3 domains (AC-3 keeps every target of every feasible assignment), or infeasible.
//!
//! Complexity: O(Σ_x Π_{y ∈ S(x) ∪ {x}} |dom y| · factors(x)); bounded by the budget.

use super::problem::{add, Constraints, Cost, TargetSet, FORBIDDEN};

const NONE: u32 = u32::MAX;

/// Working memory of [`eliminate_into`], reused between calls (every table is flat or a
/// reused list, so a warm scratch allocates only when a problem is larger than every
/// earlier one).
#[derive(Clone, Default, Debug)]
pub struct EliminateScratch {
    /// The work (table entries) of the last greedy order: the sum of the table sizes it
    /// planned ([`EliminateScratch::work`]).
    work: u64,
    /// `vals[vals_start[b]..vals_start[b + 1]]`: block `b`'s domain, ascending.
    vals_start: Vec<u32>,
    vals: Vec<u8>,
    /// Current neighbours of each block in the elimination graph (lists kept between calls).
    nb: Vec<Vec<u32>>,
    /// Stamp per block: building the lists (the block whose list it is on), then per
    /// elimination step (the neighbour list being updated).
    seen: Vec<u32>,
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
    /// Per elimination: the factors of the bucket, the separator, axis sizes, each factor's
    /// strides (`fterms`, over `(separator position, stride)` pairs in `maps`), the
    /// odometer and the new table.
    fids: Vec<u32>,
    sep: Vec<u32>,
    dims: Vec<usize>,
    maps: Vec<(u32, usize)>,
    fterms: Vec<FactorTerms>,
    idx: Vec<usize>,
    table: Vec<Cost>,
    /// A narrow bucket's sums ([`eliminate_narrow`]): row per separator value, column per
    /// value of the eliminated block.
    sums: Vec<Cost>,
    /// Every bucket through [`eliminate_wide`] (tests compare the two paths).
    #[cfg(test)]
    wide_only: bool,
    /// Per eliminated block (in order): its separator and argmin table.
    arg_sep: Vec<(u32, u32)>,
    arg_at: Vec<usize>,
    seps: Vec<u32>,
    args: Vec<u8>,
    choice: Vec<usize>,
}

/// One factor of the bucket being eliminated, as strides over the separator and `x`.
#[derive(Clone, Copy, Debug, Default)]
struct FactorTerms {
    /// Start of its table in `tables`.
    table: usize,
    /// Stride of the eliminated block's axis.
    xstride: usize,
    /// `maps[terms.0..terms.0 + terms.1]`: `(separator position, stride)` of the others.
    terms: (u32, u32),
    /// Table offset of the current separator cell (x at its first value).
    base: usize,
}

impl EliminateScratch {
    /// The work of the last [`eliminate_into`] call's elimination order (the sum of the
    /// sizes of the tables it builds, what the budget bounds): callers that split one
    /// budget between several calls subtract it.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// A reachable block with more than one value.
    fn free(&self, c: &Constraints, b: usize) -> bool {
        c.reachable[b] && self.dlen(b) > 1
    }

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
    let mut assignment = Vec::new();
    Ok(eliminate_into(
        c,
        dom,
        budget,
        &mut EliminateScratch::default(),
        &mut assignment,
    )?
    .then_some(assignment))
}

/// [`eliminate`] with reusable working memory, writing the assignment into `assignment`
/// (reused): `Ok(true)` when solved, `Ok(false)` over the budget.
#[allow(clippy::result_unit_err)]
pub fn eliminate_into(
    c: &Constraints,
    dom: &[TargetSet],
    budget: u64,
    s: &mut EliminateScratch,
    assignment: &mut Vec<u8>,
) -> Result<bool, ()> {
    let n = c.n;
    domain_values(dom, n, s);
    adjacency(c, s);
    if !greedy_order(c, budget, s) {
        return Ok(false);
    }
    check_fixed(c, s)?;
    build_factors(c, s);
    // Eliminate.
    s.arg_sep.clear();
    s.arg_at.clear();
    s.seps.clear();
    s.args.clear();
    for i in 0..s.order.len() {
        eliminate_bucket(i, s)?;
    }
    decode(c, s, assignment);
    Ok(true)
}

/// Each block's domain as a list of values (`vals`, `vals_start`).
fn domain_values(dom: &[TargetSet], n: usize, s: &mut EliminateScratch) {
    s.vals_start.clear();
    s.vals.clear();
    s.vals_start.push(0);
    for d in dom.iter().take(n) {
        s.vals.extend(d.iter().map(|t| t as u8));
        s.vals_start.push(s.vals.len() as u32);
    }
}

/// The elimination graph over the free blocks (`nb`, deduplicated).
fn adjacency(c: &Constraints, s: &mut EliminateScratch) {
    let n = c.n;
    // Adjacency (undirected, deduplicated) for the order: each block's neighbours from its
    // incident constraints, a stamp per neighbour keeping the list a set (a hub's list is
    // built in time linear in its degree).
    if s.nb.len() < n {
        s.nb.resize_with(n, Vec::new);
    }
    s.seen.clear();
    s.seen.resize(n, NONE);
    for b in 0..n {
        s.nb[b].clear();
        if !s.free(c, b) {
            continue;
        }
        s.seen[b] = b as u32;
        for &(ci, src) in c.incident(b) {
            let o = c.other(ci, src);
            if s.free(c, o) && s.seen[o] != b as u32 {
                s.seen[o] = b as u32;
                s.nb[b].push(o as u32);
            }
        }
    }
}

/// The greedy elimination order into `order`; false when its work exceeds `budget`.
fn greedy_order(c: &Constraints, budget: u64, s: &mut EliminateScratch) -> bool {
    let n = c.n;
    // Greedy order by smallest table (min-size, a weighted min-degree), with the fill it
    // creates and the work it implies.
    s.eliminated.clear();
    s.eliminated.resize(n, false);
    s.order.clear();
    let mut work: u64 = 0;
    // Lazy min-heap of (table size, block); a stale entry's size differs from `key`.
    s.key.clear();
    s.key.resize(n, 0);
    s.heap.clear();
    for b in 0..n {
        if s.free(c, b) {
            s.key[b] = s.nb[b]
                .iter()
                .map(|&y| s.dlen(y as usize) as u64)
                .fold(s.dlen(b) as u64, |a, b| a.saturating_mul(b));
            s.heap.push(std::cmp::Reverse((s.key[b], b as u32)));
        }
    }
    // `seen` now stamps by elimination step (blocks are below `n`, steps start there).
    let mut stamp = n as u32;
    while let Some(std::cmp::Reverse((size, x))) = s.heap.pop() {
        if s.eliminated[x as usize] || size != s.key[x as usize] {
            continue;
        }
        work = work.saturating_add(size);
        if work > budget {
            return false;
        }
        s.eliminated[x as usize] = true;
        s.order.push(x);
        let xs = std::mem::take(&mut s.nb[x as usize]);
        for &y in &xs {
            // One pass over y's list: drop x, stamp the rest and multiply their domain
            // sizes; then the fill (x's other neighbours not yet there).
            stamp = stamp.wrapping_add(1);
            if stamp == NONE {
                s.seen.fill(0);
                stamp = n as u32;
            }
            let mut list = std::mem::take(&mut s.nb[y as usize]);
            let mut size = s.dlen(y as usize) as u64;
            list.retain(|&z| {
                if z == x {
                    return false;
                }
                s.seen[z as usize] = stamp;
                size = size.saturating_mul(s.dlen(z as usize) as u64);
                true
            });
            for &z in &xs {
                if z != y && s.seen[z as usize] != stamp {
                    s.seen[z as usize] = stamp;
                    list.push(z);
                    size = size.saturating_mul(s.dlen(z as usize) as u64);
                }
            }
            s.nb[y as usize] = list;
            s.key[y as usize] = size;
            s.heap.push(std::cmp::Reverse((size, y)));
        }
        // Keep the list's allocation for the next call.
        s.nb[x as usize] = xs;
        s.nb[x as usize].clear();
    }
    s.work = work;
    true
}

/// `Err` when a fixed block's own term or an edge between two fixed blocks is forbidden
/// (or a reachable block has no value).
fn check_fixed(c: &Constraints, s: &EliminateScratch) -> Result<(), ()> {
    let n = c.n;
    if (0..n).any(|b| c.reachable[b] && s.dlen(b) == 0) {
        return Err(());
    }
    // The fixed blocks' own terms are constants, but must be allowed (they are after AC-3;
    // a caller may pass other domains).
    for b in 0..n {
        if c.reachable[b] && s.dlen(b) == 1 {
            let t = s.vals[s.vals_start[b] as usize] as usize;
            if c.unary(b, t) == FORBIDDEN {
                return Err(());
            }
        }
    }
    for (ci, con) in c.constraints.iter().enumerate() {
        let (a, b) = (con.from as usize, con.to as usize);
        if s.dlen(a) == 1 && s.dlen(b) == 1 {
            let (ta, tb) = (
                s.vals[s.vals_start[a] as usize],
                s.vals[s.vals_start[b] as usize],
            );
            if c.cost(ci as u32, ta as usize, tb as usize) == FORBIDDEN {
                return Err(());
            }
        }
    }
    Ok(())
}

/// The unary and pairwise factors over the free blocks, bucketed by the
/// earliest-eliminated variable in scope.
fn build_factors(c: &Constraints, s: &mut EliminateScratch) {
    let n = c.n;
    // Factors: unary and pairwise over the free blocks, bucketed by the earliest-eliminated
    // variable in scope.
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
        if !s.free(c, b) {
            continue;
        }
        // The unary factor, conditioned on the fixed neighbours' single targets.
        let (sa, ta) = (s.scopes.len(), s.tables.len());
        s.scopes.push(b as u32);
        let (lo, hi) = (s.vals_start[b] as usize, s.vals_start[b + 1] as usize);
        s.tables
            .extend(s.vals[lo..hi].iter().map(|&t| c.unary(b, t as usize)));
        // Each fixed neighbour's edge, added per value in incident order (the order of
        // the sum per value, one test per edge).
        for &(ci, src) in c.incident(b) {
            let o = c.other(ci, src);
            if !s.free(c, o) && c.reachable[o] {
                let to = s.vals[s.vals_start[o] as usize] as usize;
                for (cost, &t) in s.tables[ta..].iter_mut().zip(&s.vals[lo..hi]) {
                    *cost = add(*cost, c.edge_cost(ci, src, t as usize, to));
                }
            }
        }
        s.push_factor(s.rank[b], sa, ta);
    }
    for (ci, con) in c.constraints.iter().enumerate() {
        let (a, b) = (con.from as usize, con.to as usize);
        if !s.free(c, a) || !s.free(c, b) {
            continue;
        }
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
}

/// Eliminates the `i`-th block of the order: joins its bucket's factors over the
/// separator, minimises over the block (recording the argmin) and buckets the new factor;
/// `Err` when the problem is infeasible.
fn eliminate_bucket(i: usize, s: &mut EliminateScratch) -> Result<(), ()> {
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
    let narrow = s.sep.len() <= 1;
    #[cfg(test)]
    let narrow = narrow && !s.wide_only;
    if narrow {
        eliminate_narrow(x, xv, total, arg_at, s);
    } else {
        eliminate_wide(x, xv, total, arg_at, s);
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
    Ok(())
}

/// The minimum over block `x` (`xv` values) of the bucket's factors for every cell of a
/// separator of two blocks or more (`total` cells, row-major over `sep`): per cell, each
/// factor's offset from its strides, then the first best value of `x`.
fn eliminate_wide(x: u32, xv: usize, total: usize, arg_at: usize, s: &mut EliminateScratch) {
    // Each factor's table offset as strides over (sep, x): per factor its table start,
    // the stride of x, and `(separator position, stride)` per other scope variable.
    s.maps.clear();
    s.fterms.clear();
    for &f in &s.fids {
        let (at, len) = s.factor_scope[f as usize];
        let term_at = s.maps.len();
        let mut stride = 1usize;
        let mut xstride = 0usize;
        for &y in s.scopes[at as usize..(at + len) as usize].iter().rev() {
            if y == x {
                xstride = stride;
            } else {
                let m = s.sep.iter().position(|&z| z == y).expect("in sep");
                s.maps.push((m as u32, stride));
            }
            stride *= s.dlen(y as usize);
        }
        s.fterms.push(FactorTerms {
            table: s.factor_table[f as usize].0,
            xstride,
            terms: (term_at as u32, (s.maps.len() - term_at) as u32),
            base: 0,
        });
    }
    s.idx.clear();
    s.idx.resize(s.sep.len(), 0);
    for cell in 0..total {
        for ft in &mut s.fterms {
            let (at, len) = ft.terms;
            ft.base = ft.table
                + s.maps[at as usize..(at + len) as usize]
                    .iter()
                    .map(|&(m, stride)| s.idx[m as usize] * stride)
                    .sum::<usize>();
        }
        let mut best = FORBIDDEN;
        let mut best_v = 0u8;
        for v in 0..xv {
            let mut sum: Cost = 0;
            for ft in &s.fterms {
                sum = add(sum, s.tables[ft.base + v * ft.xstride]);
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
}

/// [`eliminate_wide`] for a separator of at most one block `y` (`total` its values, 1
/// without it): every factor of the bucket is over `x` alone, or `x` and `y`, so they
/// are added into one `total × xv` table of sums (a row per value of `y`) by their own
/// layout, and each row's first best value is the one [`eliminate_wide`] picks (the sum
/// is the same, [`add`] saturating in any order).
fn eliminate_narrow(x: u32, xv: usize, total: usize, arg_at: usize, s: &mut EliminateScratch) {
    s.sums.clear();
    s.sums.resize(total * xv, 0);
    for &f in &s.fids {
        let (at, len) = s.factor_scope[f as usize];
        let (table, size) = s.factor_table[f as usize];
        let t = &s.tables[table..table + size];
        if len == 1 {
            for row in s.sums.chunks_exact_mut(xv) {
                for (sum, &c) in row.iter_mut().zip(t) {
                    *sum = add(*sum, c);
                }
            }
        } else if s.scopes[at as usize] == x {
            // Scope (x, y): entry v * total + r.
            for (v, column) in t.chunks_exact(total).enumerate() {
                for (r, &c) in column.iter().enumerate() {
                    let sum = &mut s.sums[r * xv + v];
                    *sum = add(*sum, c);
                }
            }
        } else {
            // Scope (y, x): entry r * xv + v, the layout of the sums.
            for (sum, &c) in s.sums.iter_mut().zip(t) {
                *sum = add(*sum, c);
            }
        }
    }
    for (r, row) in s.sums.chunks_exact(xv).enumerate() {
        let mut best = FORBIDDEN;
        let mut best_v = 0u8;
        for (v, &sum) in row.iter().enumerate() {
            if sum < best {
                best = sum;
                best_v = v as u8;
            }
        }
        s.table[r] = best;
        s.args[arg_at + r] = best_v;
    }
}

/// Decodes the assignment backwards: every separator variable is eliminated later, so
/// decoded earlier.
fn decode(c: &Constraints, s: &mut EliminateScratch, assignment: &mut Vec<u8>) {
    let n = c.n;
    s.choice.clear();
    s.choice.resize(n, 0);
    assignment.clear();
    assignment.extend((0..n).map(|b| {
        if c.reachable[b] && s.dlen(b) == 1 {
            s.vals[s.vals_start[b] as usize]
        } else {
            super::cost::UNPLACED
        }
    }));
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::generate::{problem, Shape};

    /// [`eliminate_narrow`] gives what [`eliminate_wide`] gives: on generated problems
    /// (every shape, 3 and 5 targets, ties and infeasible ones included), elimination with
    /// every bucket through the general loop gives the same answer, tables and argmin
    /// tables; both kinds of bucket occur.
    #[test]
    fn narrow_buckets_eliminate_as_the_general_loop() {
        let (mut narrow, mut wide) = (0, 0);
        for seed in 0..160u64 {
            let blocks = 4 + (seed as usize * 5) % 45;
            let targets = if seed % 2 == 0 { 3 } else { 5 };
            let p = problem(seed, Shape::ALL[(seed % 7) as usize], blocks, targets);
            let c = Constraints::new(&p);
            let dom: Vec<TargetSet> = (0..c.n).map(|b| p.domain(b)).collect();
            let mut fast = EliminateScratch::default();
            let mut general = EliminateScratch {
                wide_only: true,
                ..EliminateScratch::default()
            };
            let (mut got, mut want) = (Vec::new(), Vec::new());
            let solved = eliminate_into(&c, &dom, u64::MAX, &mut fast, &mut got);
            let expected = eliminate_into(&c, &dom, u64::MAX, &mut general, &mut want);
            assert_eq!(solved, expected, "seed {seed}");
            assert_eq!(got, want, "seed {seed}");
            assert_eq!(fast.args, general.args, "seed {seed}");
            assert_eq!(fast.tables, general.tables, "seed {seed}");
            for &(_, len) in &fast.arg_sep {
                if len <= 1 {
                    narrow += 1;
                } else {
                    wide += 1;
                }
            }
        }
        assert!(
            narrow > 200 && wide > 50,
            "{narrow} narrow, {wide} wide buckets"
        );
    }
}

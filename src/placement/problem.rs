//! The dense placement problem: blocks, directed edges with per-edge transition matrices,
//! per-block per-target costs, and target domains as bitsets.
//!
//! What: [`Problem`] is the solver's whole input (000's `TargetBitSet`, `TransMatrix` and
//! `StatementCostVec`, flattened). It is built from a text problem ([`super::text`]), from an
//! IR function and a target model ([`super::system`]) or by generators (tests, fuzzing,
//! benchmarks). [`Constraints`] is the solver's view derived from it once per solve: edges
//! restricted to blocks reachable from the entry, parallel edges merged (each still charged,
//! each still required to be allowed, so the merged matrix is their entrywise sum with
//! "forbidden" absorbing), self-loops folded into the block's own costs (a self-loop only
//! ever sees `M[t][t]`), and per-constraint support masks for AC-3 and forward checking.
//!
//! Invariants: block 0 is the entry; `block_cost.len() == blocks * targets`; every matrix
//! has `targets * targets` entries, row = source target, column = destination target;
//! [`FORBIDDEN`] marks an unsupported target or a disallowed transition; at most
//! [`MAX_TARGETS`] targets, so a domain is one `u64`.
//!
//! Complexity: building [`Constraints`] is O(N + E·K² + Σ d log d) for N blocks, E edges, K
//! targets and d the out-degrees.

use std::fmt;

/// A cost in abstract units (the objective is their sum; integers keep it exact).
pub type Cost = u64;

/// Marks an unsupported target in a block cost or a disallowed transition in a matrix.
pub const FORBIDDEN: Cost = Cost::MAX;

/// The most targets a problem may name (a domain is one `u64` bitset).
pub const MAX_TARGETS: usize = 64;

/// A set of targets: bit `t` is target `t`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TargetSet(pub u64);

impl TargetSet {
    /// The empty set.
    pub const EMPTY: TargetSet = TargetSet(0);

    /// The set `{0, .., k-1}`.
    pub fn all(k: usize) -> TargetSet {
        if k >= 64 {
            TargetSet(u64::MAX)
        } else {
            TargetSet((1u64 << k) - 1)
        }
    }

    /// The set `{t}`.
    pub fn single(t: usize) -> TargetSet {
        TargetSet(1u64 << t)
    }

    /// True if `t` is in the set.
    pub fn contains(self, t: usize) -> bool {
        self.0 >> t & 1 == 1
    }

    /// Adds `t`.
    pub fn insert(&mut self, t: usize) {
        self.0 |= 1u64 << t;
    }

    /// Removes `t`.
    pub fn remove(&mut self, t: usize) {
        self.0 &= !(1u64 << t);
    }

    /// Number of targets in the set.
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// True if the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The targets, ascending.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let t = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(t)
            }
        })
    }
}

impl std::ops::BitAnd for TargetSet {
    type Output = TargetSet;
    fn bitand(self, o: TargetSet) -> TargetSet {
        TargetSet(self.0 & o.0)
    }
}

impl fmt::Debug for TargetSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// One CFG edge of a problem (parallel edges are separate entries).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Edge {
    /// Source block (dense index).
    pub from: u32,
    /// Destination block (dense index).
    pub to: u32,
}

/// A placement problem; see the module doc.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Problem {
    /// Target names, index = target id.
    pub targets: Vec<String>,
    /// Block names, index = dense block index; block 0 is the entry. A name may be empty:
    /// the pipeline builds its problems unnamed and names them only for an error
    /// ([`super::build::IrProblem::name_pieces`]); the list is always `num_blocks` long.
    pub blocks: Vec<String>,
    /// `block_cost[b * K + t]`: cost of block `b` on target `t`, or [`FORBIDDEN`].
    pub block_cost: Vec<Cost>,
    /// The CFG edges, in source order (a block's out-edges in successor order).
    pub edges: Vec<Edge>,
    /// `matrices[e * K * K + from_t * K + to_t]`: transition cost of edge `e`.
    pub matrices: Vec<Cost>,
}

impl Problem {
    /// An empty problem over `targets`.
    pub fn new(targets: Vec<String>) -> Problem {
        Problem {
            targets,
            ..Problem::default()
        }
    }

    /// Number of targets K.
    pub fn num_targets(&self) -> usize {
        self.targets.len()
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Adds a block with its per-target costs (`costs.len() == K`); returns its index.
    pub fn add_block(&mut self, name: impl Into<String>, costs: &[Cost]) -> u32 {
        debug_assert_eq!(costs.len(), self.num_targets());
        self.blocks.push(name.into());
        self.block_cost.extend_from_slice(costs);
        (self.blocks.len() - 1) as u32
    }

    /// Adds an edge with its K×K matrix (row-major, row = source target); returns its index.
    pub fn add_edge(&mut self, from: u32, to: u32, matrix: &[Cost]) -> usize {
        debug_assert_eq!(matrix.len(), self.num_targets() * self.num_targets());
        self.edges.push(Edge { from, to });
        self.matrices.extend_from_slice(matrix);
        self.edges.len() - 1
    }

    /// Cost of block `b` on target `t` ([`FORBIDDEN`] if unsupported).
    pub fn cost(&self, b: usize, t: usize) -> Cost {
        self.block_cost[b * self.num_targets() + t]
    }

    /// Transition cost of edge `e` from target `s` to target `d` ([`FORBIDDEN`] if disallowed).
    pub fn transition(&self, e: usize, s: usize, d: usize) -> Cost {
        let k = self.num_targets();
        self.matrices[e * k * k + s * k + d]
    }

    /// The initial domain of block `b`: targets with a finite cost.
    pub fn domain(&self, b: usize) -> TargetSet {
        let k = self.num_targets();
        let mut d = TargetSet::EMPTY;
        for t in 0..k {
            if self.block_cost[b * k + t] != FORBIDDEN {
                d.insert(t);
            }
        }
        d
    }

    /// Checks the shape invariants of the module doc.
    ///
    /// # Errors
    /// The first violation.
    pub fn validate(&self) -> Result<(), ProblemError> {
        let k = self.num_targets();
        if k == 0 {
            return Err(ProblemError::NoTargets);
        }
        if k > MAX_TARGETS {
            return Err(ProblemError::TooManyTargets(k));
        }
        if self.block_cost.len() != self.blocks.len() * k {
            return Err(ProblemError::BlockCostShape {
                costs: self.block_cost.len(),
                blocks: self.blocks.len(),
                targets: k,
            });
        }
        if self.matrices.len() != self.edges.len() * k * k {
            return Err(ProblemError::MatrixShape {
                entries: self.matrices.len(),
                edges: self.edges.len(),
                targets: k,
            });
        }
        for (i, e) in self.edges.iter().enumerate() {
            if e.from as usize >= self.blocks.len() || e.to as usize >= self.blocks.len() {
                return Err(ProblemError::EdgeOutOfRange { edge: i });
            }
        }
        Ok(())
    }
}

/// A violated shape invariant of a [`Problem`] ([`Problem::validate`]), naming the table or
/// edge at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProblemError {
    /// The problem has no target.
    #[error("a placement problem needs at least one target")]
    NoTargets,
    /// More targets than a domain bit set holds.
    #[error("{0} targets; at most {MAX_TARGETS} are supported")]
    TooManyTargets(usize),
    /// The block cost table is not blocks × targets long.
    #[error("block cost table does not match blocks × targets ({costs} entries for {blocks} blocks × {targets} targets)")]
    BlockCostShape {
        /// Entries in the table.
        costs: usize,
        /// Blocks.
        blocks: usize,
        /// Targets.
        targets: usize,
    },
    /// The matrix table is not edges × targets² long.
    #[error("matrix table does not match edges × targets² ({entries} entries for {edges} edges, {targets} targets)")]
    MatrixShape {
        /// Entries in the table.
        entries: usize,
        /// Edges.
        edges: usize,
        /// Targets.
        targets: usize,
    },
    /// An edge whose end is not a block of the problem.
    #[error("edge {edge} names a block out of range")]
    EdgeOutOfRange {
        /// Index of the edge in [`Problem::edges`].
        edge: usize,
    },
}

/// One merged directed constraint between two distinct reachable blocks (its matrix and
/// support masks live in the flat tables of [`Constraints`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constraint {
    /// Source block.
    pub from: u32,
    /// Destination block.
    pub to: u32,
}

/// The solver's view of a [`Problem`]; see the module doc. Every table is flat (one
/// allocation each, reused by [`Constraints::rebuild`]).
#[derive(Clone, Debug, Default)]
pub struct Constraints {
    /// Number of targets.
    pub k: usize,
    /// Number of blocks (as in the problem).
    pub n: usize,
    /// Reachable from the entry along the problem's edges.
    pub reachable: Vec<bool>,
    /// `unary[b * K + t]`: block cost plus self-loop costs, or [`FORBIDDEN`].
    pub unary: Vec<Cost>,
    /// Merged constraints between distinct reachable blocks, sorted by `(from, to)`.
    pub constraints: Vec<Constraint>,
    /// `matrix[c * K * K + s * K + d]`: merged matrix of constraint `c` (sum over parallel
    /// edges; [`FORBIDDEN`] absorbs).
    matrix: Vec<Cost>,
    /// `fwd[c * K + s]`: destination targets allowed after source target `s`.
    fwd: Vec<TargetSet>,
    /// `bwd[c * K + d]`: source targets allowed before destination target `d`.
    bwd: Vec<TargetSet>,
    /// `incident_list[incident_start[b]..incident_start[b + 1]]`: `(constraint, b is its
    /// source)` for every constraint touching `b`, in constraint order.
    incident_start: Vec<u32>,
    incident_list: Vec<(u32, bool)>,
    /// Scratch: edge order and DFS stack.
    order: Vec<u32>,
    stack: Vec<u32>,
}

impl Constraints {
    /// Derives the solver's view of `p` (which must [`Problem::validate`]).
    pub fn new(p: &Problem) -> Constraints {
        let mut c = Constraints::default();
        c.rebuild(p);
        c
    }

    /// Makes `self` the view of `p` (which must [`Problem::validate`]), reusing its tables.
    pub fn rebuild(&mut self, p: &Problem) {
        self.rebuild_reaching(p, false);
    }

    /// [`Constraints::rebuild`] with every block of `p` taken as reachable (no search from
    /// the entry): for a problem whose blocks are all reached from outside it, such as one
    /// component of a larger problem, which would otherwise need a virtual entry block
    /// with an edge to each of them.
    pub fn rebuild_all_reachable(&mut self, p: &Problem) {
        self.rebuild_reaching(p, true);
    }

    /// [`Constraints::rebuild`], with `all_reachable`: every block reachable.
    fn rebuild_reaching(&mut self, p: &Problem, all_reachable: bool) {
        let (n, k) = (p.num_blocks(), p.num_targets());
        self.n = n;
        self.k = k;
        // Edges sorted by (from, to, index): parallel edges become adjacent, and the edges
        // of one source form one run (used as compressed rows for reachability below). A
        // counting sort by source keeps index order inside a run; a stable sort of each
        // run (a few edges) by destination finishes the order.
        self.incident_start.clear();
        self.incident_start.resize(n + 1, 0);
        for e in &p.edges {
            self.incident_start[e.from as usize + 1] += 1;
        }
        for b in 0..n {
            self.incident_start[b + 1] += self.incident_start[b];
        }
        self.order.clear();
        self.order.resize(p.edges.len(), 0);
        self.stack.clear();
        self.stack.extend_from_slice(&self.incident_start[..n]);
        for (i, e) in p.edges.iter().enumerate() {
            let at = &mut self.stack[e.from as usize];
            self.order[*at as usize] = i as u32;
            *at += 1;
        }
        for b in 0..n {
            let (lo, hi) = (
                self.incident_start[b] as usize,
                self.incident_start[b + 1] as usize,
            );
            if hi - lo > 1 {
                self.order[lo..hi].sort_by_key(|&i| p.edges[i as usize].to);
            }
        }
        // Reachability from the entry over the sorted edges (CSR by source).
        self.reachable.clear();
        self.reachable.resize(n, all_reachable);
        if n > 0 && !all_reachable {
            self.stack.clear();
            self.stack.push(0);
            self.reachable[0] = true;
            while let Some(b) = self.stack.pop() {
                let (lo, hi) = (
                    self.incident_start[b as usize] as usize,
                    self.incident_start[b as usize + 1] as usize,
                );
                for &i in &self.order[lo..hi] {
                    let s = p.edges[i as usize].to;
                    if !self.reachable[s as usize] {
                        self.reachable[s as usize] = true;
                        self.stack.push(s);
                    }
                }
            }
        }
        self.unary.clear();
        self.unary.extend_from_slice(&p.block_cost);
        self.constraints.clear();
        self.matrix.clear();
        // At most one constraint per edge: one growth at most, not a doubling per overflow
        // (each copying the table so far).
        self.constraints.reserve(p.edges.len());
        self.matrix.reserve(p.matrices.len());
        for &i in &self.order {
            let i = i as usize;
            let e = p.edges[i];
            if !self.reachable[e.from as usize] {
                continue;
            }
            let m = &p.matrices[i * k * k..(i + 1) * k * k];
            if e.from == e.to {
                let b = e.from as usize;
                for t in 0..k {
                    let u = &mut self.unary[b * k + t];
                    *u = add(*u, m[t * k + t]);
                }
                continue;
            }
            match self.constraints.last() {
                Some(c) if c.from == e.from && c.to == e.to => {
                    let at = self.matrix.len() - k * k;
                    for (a, &b) in self.matrix[at..].iter_mut().zip(m) {
                        *a = add(*a, b);
                    }
                }
                _ => {
                    self.constraints.push(Constraint {
                        from: e.from,
                        to: e.to,
                    });
                    self.matrix.extend_from_slice(m);
                }
            }
        }
        let nc = self.constraints.len();
        self.fwd.clear();
        self.fwd.resize(nc * k, TargetSet::EMPTY);
        self.bwd.clear();
        self.bwd.resize(nc * k, TargetSet::EMPTY);
        self.incident_start.clear();
        self.incident_start.resize(n + 1, 0);
        for (ci, c) in self.constraints.iter().enumerate() {
            let m = &self.matrix[ci * k * k..(ci + 1) * k * k];
            for s in 0..k {
                for d in 0..k {
                    if m[s * k + d] != FORBIDDEN {
                        self.fwd[ci * k + s].insert(d);
                        self.bwd[ci * k + d].insert(s);
                    }
                }
            }
            self.incident_start[c.from as usize + 1] += 1;
            self.incident_start[c.to as usize + 1] += 1;
        }
        for b in 0..n {
            self.incident_start[b + 1] += self.incident_start[b];
        }
        self.incident_list.clear();
        self.incident_list.resize(2 * nc, (0, false));
        // `stack` as the fill cursor per block.
        self.stack.clear();
        self.stack.extend_from_slice(&self.incident_start[..n]);
        for (ci, c) in self.constraints.iter().enumerate() {
            for (b, src) in [(c.from, true), (c.to, false)] {
                let at = &mut self.stack[b as usize];
                self.incident_list[*at as usize] = (ci as u32, src);
                *at += 1;
            }
        }
    }

    /// `(constraint, b is its source)` for every constraint touching `b`.
    #[inline]
    pub fn incident(&self, b: usize) -> &[(u32, bool)] {
        &self.incident_list[self.incident_start[b] as usize..self.incident_start[b + 1] as usize]
    }

    /// Transition cost of constraint `c` from source target `s` to destination target `d`.
    #[inline]
    pub fn cost(&self, c: u32, s: usize, d: usize) -> Cost {
        self.matrix[c as usize * self.k * self.k + s * self.k + d]
    }

    /// Destination targets of constraint `c` allowed after source target `s`.
    #[inline]
    pub fn fwd(&self, c: u32, s: usize) -> TargetSet {
        self.fwd[c as usize * self.k + s]
    }

    /// Unary cost of block `b` on target `t`.
    #[inline]
    pub fn unary(&self, b: usize, t: usize) -> Cost {
        self.unary[b * self.k + t]
    }

    /// Initial domain of block `b` (finite unary cost; empty for unreachable blocks).
    pub fn domain(&self, b: usize) -> TargetSet {
        let mut d = TargetSet::EMPTY;
        if self.reachable[b] {
            for t in 0..self.k {
                if self.unary(b, t) != FORBIDDEN {
                    d.insert(t);
                }
            }
        }
        d
    }

    /// Every block's [`Constraints::domain`], into `out` (cleared), in one pass over the
    /// unary table.
    pub fn domains_into(&self, out: &mut Vec<TargetSet>) {
        out.clear();
        if self.k == 0 {
            out.resize(self.n, TargetSet::EMPTY);
            return;
        }
        let rows = self.unary.chunks_exact(self.k).zip(&self.reachable);
        out.extend(rows.map(|(row, &reachable)| {
            let mut d = TargetSet::EMPTY;
            if reachable {
                for (t, &u) in row.iter().enumerate() {
                    if u != FORBIDDEN {
                        d.insert(t);
                    }
                }
            }
            d
        }));
    }

    /// The block at the other end of constraint `c` from `b`.
    #[inline]
    pub fn other(&self, c: u32, b_is_source: bool) -> usize {
        let c = &self.constraints[c as usize];
        if b_is_source {
            c.to as usize
        } else {
            c.from as usize
        }
    }

    /// Cost of constraint `c` when its endpoint `b` takes `tb` and the other takes `to`.
    #[inline]
    pub fn edge_cost(&self, c: u32, b_is_source: bool, tb: usize, to: usize) -> Cost {
        if b_is_source {
            self.cost(c, tb, to)
        } else {
            self.cost(c, to, tb)
        }
    }

    /// Targets of the other endpoint compatible with `b` taking `tb`.
    #[inline]
    pub fn support(&self, c: u32, b_is_source: bool, tb: usize) -> TargetSet {
        if b_is_source {
            self.fwd[c as usize * self.k + tb]
        } else {
            self.bwd[c as usize * self.k + tb]
        }
    }
}

/// Saturating cost addition where [`FORBIDDEN`] absorbs.
#[inline]
pub fn add(a: Cost, b: Cost) -> Cost {
    if a == FORBIDDEN || b == FORBIDDEN {
        FORBIDDEN
    } else {
        a.saturating_add(b).min(FORBIDDEN - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::generate::{problem, Shape};

    /// [`Constraints::rebuild_all_reachable`] is [`Constraints::rebuild`] with every block
    /// reachable: the same view where every block is reached from the entry, and every
    /// block's constraints kept where some are not.
    #[test]
    fn all_reachable_rebuild_keeps_every_block() {
        let (mut same, mut more) = (0, 0);
        let mut all = Constraints::default();
        for seed in 0..140u64 {
            let mut p = problem(
                seed,
                Shape::ALL[(seed % 7) as usize],
                3 + seed as usize % 30,
                3,
            );
            // Every other problem gets a block no edge reaches, with an edge out of it.
            if seed % 2 == 1 {
                let k = p.num_targets();
                let b = p.add_block("island", &vec![0; k]);
                p.add_edge(b, 0, &vec![1; k * k]);
            }
            let c = Constraints::new(&p);
            all.rebuild_all_reachable(&p);
            assert!(all.reachable.iter().all(|&r| r), "seed {seed}");
            if c.reachable.iter().all(|&r| r) {
                same += 1;
                assert_eq!(all.unary, c.unary, "seed {seed}");
                assert_eq!(all.constraints, c.constraints, "seed {seed}");
                assert_eq!(all.matrix, c.matrix, "seed {seed}");
                assert_eq!(all.fwd, c.fwd, "seed {seed}");
                assert_eq!(all.incident_list, c.incident_list, "seed {seed}");
            } else if seed % 2 == 1 {
                // The island's edge counts only here.
                more += 1;
                assert!(all.constraints.len() > c.constraints.len(), "seed {seed}");
            }
        }
        assert!(same > 30 && more > 30, "{same} reached, {more} not");
    }
}

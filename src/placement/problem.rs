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
//! Complexity: building [`Constraints`] is O(E log E + E·K²) for E edges and K targets.

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
    /// Block names, index = dense block index; block 0 is the entry.
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
    /// A message naming the first violation.
    pub fn validate(&self) -> Result<(), String> {
        let k = self.num_targets();
        if k == 0 {
            return Err("a placement problem needs at least one target".into());
        }
        if k > MAX_TARGETS {
            return Err(format!("{k} targets; at most {MAX_TARGETS} are supported"));
        }
        if self.block_cost.len() != self.blocks.len() * k {
            return Err("block cost table does not match blocks × targets".into());
        }
        if self.matrices.len() != self.edges.len() * k * k {
            return Err("matrix table does not match edges × targets²".into());
        }
        for (i, e) in self.edges.iter().enumerate() {
            if e.from as usize >= self.blocks.len() || e.to as usize >= self.blocks.len() {
                return Err(format!("edge {i} names a block out of range"));
            }
        }
        Ok(())
    }
}

/// One merged directed constraint between two distinct reachable blocks.
#[derive(Clone, Debug)]
pub struct Constraint {
    /// Source block.
    pub from: u32,
    /// Destination block.
    pub to: u32,
    /// Merged K×K matrix (sum over parallel edges; [`FORBIDDEN`] absorbs).
    pub matrix: Vec<Cost>,
    /// `fwd[s]`: destination targets allowed after source target `s`.
    pub fwd: Vec<TargetSet>,
    /// `bwd[d]`: source targets allowed before destination target `d`.
    pub bwd: Vec<TargetSet>,
}

impl Constraint {
    /// Transition cost from source target `s` to destination target `d`.
    #[inline]
    pub fn cost(&self, s: usize, d: usize) -> Cost {
        self.matrix[s * self.fwd.len() + d]
    }
}

/// The solver's view of a [`Problem`]; see the module doc.
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
    /// Merged constraints between distinct reachable blocks.
    pub constraints: Vec<Constraint>,
    /// `incident[b]`: `(constraint, b is its source)` for every constraint touching `b`.
    pub incident: Vec<Vec<(u32, bool)>>,
}

impl Constraints {
    /// Derives the solver's view of `p` (which must [`Problem::validate`]).
    pub fn new(p: &Problem) -> Constraints {
        let (n, k) = (p.num_blocks(), p.num_targets());
        let mut reachable = vec![false; n];
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for e in &p.edges {
            succs[e.from as usize].push(e.to);
        }
        if n > 0 {
            let mut stack = vec![0u32];
            reachable[0] = true;
            while let Some(b) = stack.pop() {
                for &s in &succs[b as usize] {
                    if !reachable[s as usize] {
                        reachable[s as usize] = true;
                        stack.push(s);
                    }
                }
            }
        }
        let mut unary = p.block_cost.clone();
        let mut order: Vec<usize> = Vec::new();
        for (i, e) in p.edges.iter().enumerate() {
            if !reachable[e.from as usize] {
                continue;
            }
            if e.from == e.to {
                let b = e.from as usize;
                for t in 0..k {
                    let m = p.transition(i, t, t);
                    let u = &mut unary[b * k + t];
                    *u = add(*u, m);
                }
            } else {
                order.push(i);
            }
        }
        order.sort_by_key(|&i| (p.edges[i].from, p.edges[i].to));
        let mut constraints: Vec<Constraint> = Vec::new();
        for i in order {
            let e = p.edges[i];
            let m = &p.matrices[i * k * k..(i + 1) * k * k];
            match constraints.last_mut() {
                Some(c) if c.from == e.from && c.to == e.to => {
                    for (a, &b) in c.matrix.iter_mut().zip(m) {
                        *a = add(*a, b);
                    }
                }
                _ => constraints.push(Constraint {
                    from: e.from,
                    to: e.to,
                    matrix: m.to_vec(),
                    fwd: Vec::new(),
                    bwd: Vec::new(),
                }),
            }
        }
        let mut incident = vec![Vec::new(); n];
        for (ci, c) in constraints.iter_mut().enumerate() {
            c.fwd = vec![TargetSet::EMPTY; k];
            c.bwd = vec![TargetSet::EMPTY; k];
            for s in 0..k {
                for d in 0..k {
                    if c.matrix[s * k + d] != FORBIDDEN {
                        c.fwd[s].insert(d);
                        c.bwd[d].insert(s);
                    }
                }
            }
            incident[c.from as usize].push((ci as u32, true));
            incident[c.to as usize].push((ci as u32, false));
        }
        Constraints {
            k,
            n,
            reachable,
            unary,
            constraints,
            incident,
        }
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
        let c = &self.constraints[c as usize];
        if b_is_source {
            c.cost(tb, to)
        } else {
            c.cost(to, tb)
        }
    }

    /// Targets of the other endpoint compatible with `b` taking `tb`.
    #[inline]
    pub fn support(&self, c: u32, b_is_source: bool, tb: usize) -> TargetSet {
        let c = &self.constraints[c as usize];
        if b_is_source {
            c.fwd[tb]
        } else {
            c.bwd[tb]
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

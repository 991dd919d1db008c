//! Strongly connected components of the CFG, or of any graph given by successor lists
//! (placement's island graph).
//!
//! What: [`Sccs`] assigns every block reachable from the entry a component id and lists the
//! components in reverse topological order of the condensation (a component is listed before
//! every component that can reach it; sinks first), each with its members sorted by block
//! index.
//!
//! Algorithm: Tarjan, "Depth-first search and linear graph algorithms" (1972), made iterative:
//! an explicit call stack of (block, next successor index) frames replaces recursion (CFGs
//! can have 100k blocks), and a finished frame propagates its lowlink to its parent frame.
//! Components are emitted in Tarjan's natural completion order, which is reverse
//! topological.
//!
//! Invariants: `component(a) == component(b)` iff each of `a`, `b` reaches the other; for an
//! edge `a -> b` between reachable blocks, `component(a) >= component(b)`; unreachable, dead
//! and out-of-range blocks have no component.
//!
//! Complexity: O(blocks + edges) time and space, plus sorting members.

use super::Cfg;
use crate::ir::Block;

const NONE: u32 = u32::MAX;

/// Strongly connected components of the reachable CFG; see the module doc.
#[derive(Default, Debug, Clone)]
pub struct Sccs {
    /// `comp[b]`: component id, or `NONE`.
    comp: Vec<u32>,
    /// `start[c]..start[c + 1]` indexes `members`.
    start: Vec<u32>,
    /// Members of every component, flat, sorted within each component.
    members: Vec<Block>,
    /// `self_loop[c]`: some member has an edge to itself.
    self_loop: Vec<bool>,
    /// Scratch: DFS index per block.
    index: Vec<u32>,
    /// Scratch: lowlink per block.
    low: Vec<u32>,
    /// Scratch: block is on the Tarjan stack.
    on_stack: Vec<bool>,
    /// Scratch: the Tarjan stack.
    tarjan: Vec<Block>,
    /// Scratch: call stack of (block, next successor position).
    calls: Vec<(u32, u32)>,
}

impl Sccs {
    /// No components.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the components of the blocks of `cfg` reachable from the entry.
    pub fn compute(&mut self, cfg: &Cfg) {
        let entry = cfg.rpo().first().copied();
        self.run(cfg.num_blocks(), entry.into_iter(), |b| cfg.succs(b));
    }

    /// Computes the components of every node of a graph of `n` nodes whose successors are
    /// `succs(node)` (all nodes, not only those reachable from node 0: roots are taken in
    /// index order). Used for graphs other than the CFG, such as placement's island graph.
    pub fn compute_graph<'a>(&mut self, n: usize, succs: impl Fn(Block) -> &'a [Block]) {
        self.run(n, (0..n).map(Block::new), succs);
    }

    /// Tarjan from each root in turn that is not visited yet (see the module doc).
    fn run<'a>(
        &mut self,
        n: usize,
        roots: impl Iterator<Item = Block>,
        succs: impl Fn(Block) -> &'a [Block],
    ) {
        self.clear();
        self.comp.resize(n, NONE);
        self.index.resize(n, NONE);
        self.low.resize(n, NONE);
        self.on_stack.resize(n, false);
        self.start.push(0);
        let mut counter = 0u32;
        for root in roots {
            if self.index[root.index()] != NONE {
                continue;
            }
            self.visit(root, &mut counter);
            self.finish_from_root(&mut counter, &succs);
        }
    }

    /// Runs the iterative DFS until the call stack of the current root is empty.
    fn finish_from_root<'a>(&mut self, counter: &mut u32, succs: &impl Fn(Block) -> &'a [Block]) {
        while let Some(top) = self.calls.last_mut() {
            let v = Block(top.0);
            let out = succs(v);
            if (top.1 as usize) < out.len() {
                let w = out[top.1 as usize];
                top.1 += 1;
                if self.index[w.index()] == NONE {
                    self.visit(w, counter);
                } else if self.on_stack[w.index()] {
                    let vi = v.index();
                    self.low[vi] = self.low[vi].min(self.index[w.index()]);
                }
                continue;
            }
            self.calls.pop();
            let vi = v.index();
            if self.low[vi] == self.index[vi] {
                let c = (self.start.len() - 1) as u32;
                let first = self.members.len();
                loop {
                    let w = self.tarjan.pop().expect("v is on the Tarjan stack");
                    self.on_stack[w.index()] = false;
                    self.comp[w.index()] = c;
                    self.members.push(w);
                    if w == v {
                        break;
                    }
                }
                self.members[first..].sort_unstable();
                let self_loop = self.members[first..].iter().any(|&m| succs(m).contains(&m));
                self.self_loop.push(self_loop);
                self.start.push(self.members.len() as u32);
            }
            if let Some(parent) = self.calls.last() {
                let pi = parent.0 as usize;
                self.low[pi] = self.low[pi].min(self.low[vi]);
            }
        }
    }

    fn visit(&mut self, b: Block, counter: &mut u32) {
        self.index[b.index()] = *counter;
        self.low[b.index()] = *counter;
        *counter += 1;
        self.on_stack[b.index()] = true;
        self.tarjan.push(b);
        self.calls.push((b.0, 0));
    }

    /// Empties the table, keeping capacity.
    pub fn clear(&mut self) {
        self.comp.clear();
        self.start.clear();
        self.members.clear();
        self.self_loop.clear();
        self.index.clear();
        self.low.clear();
        self.on_stack.clear();
        self.tarjan.clear();
        self.calls.clear();
    }

    /// Number of components.
    pub fn num_components(&self) -> usize {
        self.self_loop.len()
    }

    /// Number of components (same as [`Sccs::num_components`]).
    pub fn len(&self) -> usize {
        self.self_loop.len()
    }

    /// True if there are no components (no reachable block).
    pub fn is_empty(&self) -> bool {
        self.self_loop.is_empty()
    }

    /// Component id of `b` (an index into `0..len()`); `None` if unreachable, dead or out of
    /// range.
    pub fn component(&self, b: Block) -> Option<usize> {
        self.comp
            .get(b.index())
            .copied()
            .filter(|&c| c != NONE)
            .map(|c| c as usize)
    }

    /// Members of component `c`, sorted by block index (empty if out of range).
    pub fn members(&self, c: usize) -> &[Block] {
        match (self.start.get(c), self.start.get(c + 1)) {
            (Some(&lo), Some(&hi)) => &self.members[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// True if component `c` is a single block without a self-loop (not a cycle).
    pub fn is_trivial(&self, c: usize) -> bool {
        self.members(c).len() == 1 && !self.self_loop[c]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_and_tail() {
        let mut cfg = Cfg::new();
        cfg.compute_from_succs(&[vec![1], vec![2, 3], vec![1], vec![3]]);
        let mut s = Sccs::new();
        s.compute(&cfg);
        assert_eq!(s.num_components(), 3);
        assert_eq!(s.members(0), &[Block(3)]);
        assert!(!s.is_trivial(0));
        assert_eq!(s.members(1), &[Block(1), Block(2)]);
        assert_eq!(s.members(2), &[Block(0)]);
        assert!(s.is_trivial(2));
    }

    /// Every node is a root in `compute_graph`: node 3 is not reachable from node 0.
    #[test]
    fn whole_graph() {
        let succs = [vec![Block(1)], vec![Block(0)], vec![], vec![Block(2)]];
        let mut s = Sccs::new();
        s.compute_graph(succs.len(), |b| &succs[b.index()]);
        assert_eq!(s.num_components(), 3);
        assert_eq!(s.members(0), &[Block(0), Block(1)]);
        assert_eq!(s.members(1), &[Block(2)]);
        assert_eq!(s.members(2), &[Block(3)]);
        assert_eq!(s.component(Block(3)), Some(2));
    }
}

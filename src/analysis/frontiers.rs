//! Dominance frontiers and iterated dominance frontiers (002 steps 4 and 5).
//!
//! What: [`DominanceFrontiers`] holds DF(b) for every block in CSR form, each list sorted by
//! block index without duplicates; [`DominanceFrontiers::iterated`] computes the iterated
//! dominance frontier DF+(S) of a set of blocks, where phis go in SSA construction.
//!
//! Definition: `j ∈ DF(b)` iff `b` dominates some predecessor of `j` and `b` does not strictly
//! dominate `j` (Cytron et al. 1991; only reachable blocks and edges between them count).
//!
//! Algorithm: the join-point walk of Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm" (2001). For every reachable block `j` and every distinct reachable predecessor
//! `p`, walk `runner` from `p` up the dominator tree, adding `j` to DF(runner), until
//! `runner == idom(j)`. The usual filter "only blocks with two or more predecessors" is
//! dropped: for a non-entry block with one predecessor `p`, `idom(j) == p` and the walk is
//! empty anyway, but the **entry block** may be a loop header with a single back edge. The entry has no immediate dominator, so
//! its walks never meet `idom(j)`: they run up to and including the entry itself and stop
//! there. That is exactly the definition: nothing strictly dominates the entry, so the entry
//! is in DF(b) for every dominator `b` of each of its predecessors (the entry in its own
//! frontier included). Duplicates from several predecessors of the same `j` are suppressed
//! with a per-block stamp holding the last `j` added.
//!
//! Invariants: lists sorted ascending, no duplicates; unreachable blocks have empty
//! frontiers and appear in none.
//!
//! Complexity: O(edges + Σ|DF(b)|) for the frontiers; `iterated` is
//! O(|S| + Σ_{b ∈ DF+(S) ∪ S} |DF(b)| + |result| log |result|) with reusable scratch.

use super::{Cfg, DomTree};
use crate::ir::Block;

const NONE: u32 = u32::MAX;

/// Dominance frontier of every block; see the module doc.
#[derive(Default, Debug, Clone)]
pub struct DominanceFrontiers {
    /// `start[b]..start[b + 1]` indexes `list`.
    start: Vec<u32>,
    /// Frontier entries, flat.
    list: Vec<Block>,
    /// Scratch: (runner, join point) pairs in join-point order.
    pairs: Vec<(u32, u32)>,
    /// Scratch: last join point added to each block's frontier.
    stamp: Vec<u32>,
}

/// Reusable scratch for [`DominanceFrontiers::iterated`]: dense bitsets over blocks and a
/// worklist. Left all-clear after every call.
#[derive(Default, Debug, Clone)]
pub struct IdfScratch {
    in_result: Vec<u64>,
    queued: Vec<u64>,
    worklist: Vec<Block>,
}

fn test_and_set(bits: &mut Vec<u64>, i: usize) -> bool {
    let w = i / 64;
    if w >= bits.len() {
        bits.resize(w + 1, 0);
    }
    let m = 1u64 << (i % 64);
    let was = bits[w] & m != 0;
    bits[w] |= m;
    was
}

fn reset(bits: &mut [u64], i: usize) {
    if let Some(w) = bits.get_mut(i / 64) {
        *w &= !(1u64 << (i % 64));
    }
}

/// Adapter so the frontier walk reads immediate dominators through one interface.
struct IdomOf<F>(F);

impl<F: Fn(Block) -> Option<Block>> IdomOf<F> {
    fn idom(&self, b: Block) -> Option<Block> {
        (self.0)(b)
    }
}

impl DominanceFrontiers {
    /// Empty frontiers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes every block's dominance frontier from `cfg` and its dominator tree `dom`
    /// (which must have been computed from the same `cfg`).
    pub fn compute(&mut self, cfg: &Cfg, dom: &DomTree) {
        self.compute_from_idoms(cfg, |b| dom.idom(b));
    }

    /// Computes every block's dominance frontier from `cfg` and the immediate dominator of
    /// each block (`idom(b)`, `None` for the entry and unreachable blocks), for instance
    /// read from the `ImmediateDominator` column of the block entities.
    pub fn compute_from_idoms(&mut self, cfg: &Cfg, idom: impl Fn(Block) -> Option<Block>) {
        let dom = IdomOf(idom);
        self.clear();
        let n = cfg.num_blocks();
        self.stamp.resize(n, NONE);
        self.start.resize(n + 1, 0);
        // Join points in block-index order, so each frontier list comes out sorted.
        for j in 0..n {
            let jb = Block::new(j);
            if !cfg.is_reachable(jb) {
                continue;
            }
            let stop = dom.idom(jb).map_or(NONE, |d| d.0);
            for &p in cfg.preds(jb) {
                if !cfg.is_reachable(p) {
                    continue;
                }
                let mut runner = p.0;
                while runner != stop {
                    if self.stamp[runner as usize] == j as u32 {
                        break; // this runner and its dominators were walked for `j` already
                    }
                    self.stamp[runner as usize] = j as u32;
                    self.pairs.push((runner, j as u32));
                    match dom.idom(Block(runner)) {
                        Some(d) => runner = d.0,
                        None => break, // the entry: the walk ends after adding `j` to it
                    }
                }
            }
        }
        // Counting sort by runner; stable, so each list stays sorted by join point.
        for &(r, _) in &self.pairs {
            self.start[r as usize + 1] += 1;
        }
        for b in 0..n {
            self.start[b + 1] += self.start[b];
        }
        self.list.resize(self.pairs.len(), Block(0));
        // Reuse `stamp` as the fill cursor.
        self.stamp.clear();
        self.stamp.extend_from_slice(&self.start[..n]);
        for &(r, j) in &self.pairs {
            let slot = &mut self.stamp[r as usize];
            self.list[*slot as usize] = Block(j);
            *slot += 1;
        }
        self.pairs.clear();
    }

    /// Empties the frontiers, keeping capacity.
    pub fn clear(&mut self) {
        self.start.clear();
        self.list.clear();
        self.pairs.clear();
        self.stamp.clear();
    }

    /// DF(b), sorted by block index; empty for unreachable or out-of-range blocks.
    pub fn frontier(&self, b: Block) -> &[Block] {
        match (self.start.get(b.index()), self.start.get(b.index() + 1)) {
            (Some(&lo), Some(&hi)) => &self.list[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// Total number of frontier entries.
    pub fn total_len(&self) -> usize {
        self.list.len()
    }

    /// The iterated dominance frontier DF+(defs): the least set `X` with
    /// `DF(defs ∪ X) ⊆ X`. Clears `out` and fills it sorted by block index. Blocks out of
    /// range are ignored. `scratch` is reused across calls.
    pub fn iterated(&self, defs: &[Block], out: &mut Vec<Block>, scratch: &mut IdfScratch) {
        out.clear();
        let n = self.start.len().saturating_sub(1);
        for &d in defs {
            if d.index() < n && !test_and_set(&mut scratch.queued, d.index()) {
                scratch.worklist.push(d);
            }
        }
        while let Some(x) = scratch.worklist.pop() {
            for &y in self.frontier(x) {
                if !test_and_set(&mut scratch.in_result, y.index()) {
                    out.push(y);
                    if !test_and_set(&mut scratch.queued, y.index()) {
                        scratch.worklist.push(y);
                    }
                }
            }
        }
        // Leave the scratch all-clear, touching only the bits set by this call.
        for &d in defs {
            reset(&mut scratch.queued, d.index());
        }
        for &y in out.iter() {
            reset(&mut scratch.queued, y.index());
            reset(&mut scratch.in_result, y.index());
        }
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(succs: &[Vec<usize>]) -> (Cfg, DomTree, DominanceFrontiers) {
        let mut cfg = Cfg::new();
        cfg.compute_from_succs(succs);
        let mut dt = DomTree::new();
        dt.compute(&cfg);
        let mut df = DominanceFrontiers::new();
        df.compute(&cfg, &dt);
        (cfg, dt, df)
    }

    #[test]
    fn entry_is_loop_header() {
        // block0 -> block1 -> block0, block1 -> block2
        let (_, _, df) = build(&[vec![1], vec![0, 2], vec![]]);
        assert_eq!(df.frontier(Block(0)), &[Block(0)]);
        assert_eq!(df.frontier(Block(1)), &[Block(0)]);
        assert_eq!(df.frontier(Block(2)), &[] as &[Block]);
        let mut out = Vec::new();
        let mut s = IdfScratch::default();
        df.iterated(&[Block(2)], &mut out, &mut s);
        assert!(out.is_empty());
        df.iterated(&[Block(1)], &mut out, &mut s);
        assert_eq!(out, vec![Block(0)]);
    }

    #[test]
    fn entry_self_loop() {
        let (_, _, df) = build(&[vec![0, 1], vec![]]);
        assert_eq!(df.frontier(Block(0)), &[Block(0)]);
    }
}

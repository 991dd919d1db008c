//! The control-flow graph of one function: successors, predecessors, reverse postorder and
//! critical edges (002 step 2).
//!
//! What: [`Cfg`] is a dense side table keyed by [`Block`] index, built from the terminators
//! and the `asm goto` labels of a function ([`IrRead`]). Successors and predecessors are
//! stored in CSR form (one offsets array, one flat edge array), so a whole CFG is four
//! vectors that are cleared, never dropped, between functions.
//!
//! Algorithm: one pass over the live blocks collects successor edges in successor-index
//! order (terminator successors first, then the `goto_labels` of every
//! [`InlineAsm`](crate::ir::InlineAsm) instruction of the block, in instruction order).
//! Predecessors are built from the successor lists by a counting sort, so every predecessor
//! list is ordered by (source block, successor index). Reverse postorder comes from an
//! iterative depth-first search from block 0 with an explicit stack of
//! (block, next successor index) frames (no recursion: CFGs can have 100k blocks).
//!
//! Invariants after [`Cfg::compute`]:
//! - dead blocks have no successors and no predecessors;
//! - an edge to an out-of-range or dead block is skipped and counted in
//!   [`Cfg::invalid_edges`] (the verifier reports it); successor indices of a block with a
//!   skipped edge are then shifted, which is harmless because such a function is rejected;
//! - predecessor lists have one entry per edge: `br c, b2, b2` gives `b2` two entries;
//! - the sum of predecessor list lengths equals the sum of successor list lengths;
//! - `rpo()[rpo_number(b)] == b` for every block reachable from block 0, and every edge that
//!   is not a back edge of the DFS goes from a lower to a higher RPO number;
//! - critical edges are listed in (block, successor index) order.
//!
//! Complexity: O(blocks + edges + instructions) time, O(blocks + edges) space.

use crate::ir::{Block, InstKind, IrRead};

/// Sentinel for "no RPO number" (unreachable or dead block).
const NONE: u32 = u32::MAX;

/// Successors, predecessors, reverse postorder and critical edges of one function; see the
/// module doc.
#[derive(Default, Debug, Clone)]
pub struct Cfg {
    /// `succ_start[b]..succ_start[b + 1]` indexes `succs` (length `num_blocks + 1`).
    succ_start: Vec<u32>,
    /// Successor edges of every block, flat.
    succs: Vec<Block>,
    /// `pred_start[b]..pred_start[b + 1]` indexes `preds` (length `num_blocks + 1`).
    pred_start: Vec<u32>,
    /// Predecessor edges of every block, flat; one entry per edge.
    preds: Vec<Block>,
    /// Blocks reachable from block 0 in reverse postorder.
    rpo: Vec<Block>,
    /// `rpo_number[b]`: position of `b` in `rpo`, or `NONE`.
    rpo_number: Vec<u32>,
    /// Critical edges as (source block, successor index).
    critical: Vec<(Block, u32)>,
    /// Edges skipped because their target is out of range or dead.
    invalid_edges: usize,
    /// `live[b]`: the block is not a dead hole.
    live: Vec<bool>,
    /// DFS scratch: (block, next successor index).
    stack: Vec<(u32, u32)>,
}

impl Cfg {
    /// An empty CFG (no blocks).
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the CFG of `ir`, replacing the previous contents but keeping capacity.
    pub fn compute(&mut self, ir: &impl IrRead) {
        self.clear();
        let n = ir.num_blocks();
        self.live
            .extend((0..n).map(|b| !ir.is_block_dead(Block::new(b))));
        self.succ_start.reserve(n + 1);
        self.succ_start.push(0);
        let num_insts = ir.num_insts();
        for b in 0..n {
            if self.live[b] {
                let live = &self.live;
                let succs = &mut self.succs;
                let invalid = &mut self.invalid_edges;
                let mut add = |s: Block| {
                    if live.get(s.index()).copied().unwrap_or(false) {
                        succs.push(s);
                    } else {
                        *invalid += 1;
                    }
                };
                ir.terminator(Block::new(b)).for_each_successor(&mut add);
                for &i in ir.block_insts(Block::new(b)) {
                    if i.index() >= num_insts {
                        continue; // the verifier reports the dangling instruction
                    }
                    if let InstKind::InlineAsm(asm) = ir.inst_kind(i) {
                        asm.goto_labels.iter().for_each(|&s| add(s));
                    }
                }
            }
            self.succ_start.push(self.succs.len() as u32);
        }
        self.build_preds(n);
        self.build_rpo(n);
        self.build_critical(n);
    }

    /// Builds a CFG directly from successor lists (for tests, fuzzing and generators):
    /// `succs[b]` lists the successors of block `b` in successor-index order; every block is
    /// live; out-of-range targets are skipped and counted in [`Cfg::invalid_edges`].
    pub fn compute_from_succs(&mut self, succs: &[Vec<usize>]) {
        self.clear();
        let n = succs.len();
        self.live.resize(n, true);
        self.succ_start.push(0);
        for list in succs {
            for &s in list {
                if s < n {
                    self.succs.push(Block::new(s));
                } else {
                    self.invalid_edges += 1;
                }
            }
            self.succ_start.push(self.succs.len() as u32);
        }
        self.build_preds(n);
        self.build_rpo(n);
        self.build_critical(n);
    }

    fn build_preds(&mut self, n: usize) {
        // Counting sort of edges by target: counts, exclusive prefix sums, then placement in
        // source order so each list is ordered by (source, successor index).
        self.pred_start.resize(n + 1, 0);
        for &s in &self.succs {
            self.pred_start[s.index() + 1] += 1;
        }
        for b in 0..n {
            self.pred_start[b + 1] += self.pred_start[b];
        }
        self.preds.resize(self.succs.len(), Block(0));
        // `stack` is free here: reuse it as the per-target fill cursor.
        let cursor = &mut self.stack;
        cursor.extend(self.pred_start[..n].iter().map(|&s| (s, 0)));
        for b in 0..n {
            let (lo, hi) = (self.succ_start[b] as usize, self.succ_start[b + 1] as usize);
            for &s in &self.succs[lo..hi] {
                let slot = &mut cursor[s.index()].0;
                self.preds[*slot as usize] = Block::new(b);
                *slot += 1;
            }
        }
        cursor.clear();
    }

    fn build_rpo(&mut self, n: usize) {
        self.rpo_number.resize(n, NONE);
        if n == 0 || !self.live[0] {
            return;
        }
        // Iterative DFS; `rpo_number` doubles as the visited mark (0 = visited, numbered
        // properly below). Postorder is collected in `rpo`, then reversed.
        self.rpo_number[0] = 0;
        self.stack.push((0, self.succ_start[0]));
        while let Some(top) = self.stack.last_mut() {
            let b = top.0 as usize;
            if top.1 < self.succ_start[b + 1] {
                let s = self.succs[top.1 as usize];
                top.1 += 1;
                if self.rpo_number[s.index()] == NONE {
                    self.rpo_number[s.index()] = 0;
                    self.stack.push((s.0, self.succ_start[s.index()]));
                }
            } else {
                self.rpo.push(Block::new(b));
                self.stack.pop();
            }
        }
        self.rpo.reverse();
        for (i, b) in self.rpo.iter().enumerate() {
            self.rpo_number[b.index()] = i as u32;
        }
    }

    fn build_critical(&mut self, n: usize) {
        for b in 0..n {
            let (lo, hi) = (self.succ_start[b] as usize, self.succ_start[b + 1] as usize);
            if hi - lo < 2 {
                continue;
            }
            for (i, s) in self.succs[lo..hi].iter().enumerate() {
                let p = s.index();
                if self.pred_start[p + 1] - self.pred_start[p] > 1 {
                    self.critical.push((Block::new(b), i as u32));
                }
            }
        }
    }

    /// Empties the CFG, keeping capacity.
    pub fn clear(&mut self) {
        self.succ_start.clear();
        self.succs.clear();
        self.pred_start.clear();
        self.preds.clear();
        self.rpo.clear();
        self.rpo_number.clear();
        self.critical.clear();
        self.invalid_edges = 0;
        self.live.clear();
        self.stack.clear();
    }

    /// Number of block indices (dead holes included).
    pub fn num_blocks(&self) -> usize {
        self.rpo_number.len()
    }

    /// Number of edges (sum of successor list lengths).
    pub fn num_edges(&self) -> usize {
        self.succs.len()
    }

    /// Every block's successors, flat, in block order: block `b`'s are
    /// `flat_succs()[succ_starts()[b]..succ_starts()[b + 1]]` (that is [`Cfg::succs`]).
    pub fn flat_succs(&self) -> &[Block] {
        &self.succs
    }

    /// Where each block's successors start in [`Cfg::flat_succs`] (length blocks + 1; empty
    /// for a CFG never computed).
    pub fn succ_starts(&self) -> &[u32] {
        &self.succ_start
    }

    /// Every block's predecessors, flat, in block order: block `b`'s are
    /// `flat_preds()[pred_starts()[b]..pred_starts()[b + 1]]` (that is [`Cfg::preds`]).
    pub fn flat_preds(&self) -> &[Block] {
        &self.preds
    }

    /// Where each block's predecessors start in [`Cfg::flat_preds`] (length blocks + 1;
    /// empty for a CFG never computed).
    pub fn pred_starts(&self) -> &[u32] {
        &self.pred_start
    }

    /// Successors of `b` in successor-index order (duplicates included); empty for a dead or
    /// out-of-range block.
    pub fn succs(&self, b: Block) -> &[Block] {
        match (
            self.succ_start.get(b.index()),
            self.succ_start.get(b.index() + 1),
        ) {
            (Some(&lo), Some(&hi)) => &self.succs[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// Predecessors of `b`, one entry per edge, ordered by (source block, successor index);
    /// empty for a dead or out-of-range block. Unreachable sources are included.
    pub fn preds(&self, b: Block) -> &[Block] {
        match (
            self.pred_start.get(b.index()),
            self.pred_start.get(b.index() + 1),
        ) {
            (Some(&lo), Some(&hi)) => &self.preds[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// Blocks reachable from block 0, in reverse postorder (block 0 first).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Position of `b` in [`Cfg::rpo`]; `None` if `b` is unreachable, dead or out of range.
    pub fn rpo_number(&self, b: Block) -> Option<u32> {
        self.rpo_number
            .get(b.index())
            .copied()
            .filter(|&n| n != NONE)
    }

    /// True if `b` is reachable from block 0.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_number(b).is_some()
    }

    /// True if `b` is in range and not a dead hole.
    pub fn is_live(&self, b: Block) -> bool {
        self.live.get(b.index()).copied().unwrap_or(false)
    }

    /// Critical edges as (source block, successor index): the source has more than one
    /// successor edge and the target more than one predecessor edge.
    pub fn critical_edges(&self) -> &[(Block, u32)] {
        &self.critical
    }

    /// Number of edges skipped because they named an out-of-range or dead block.
    pub fn invalid_edges(&self) -> usize {
        self.invalid_edges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_edges_count_twice() {
        let mut cfg = Cfg::new();
        cfg.compute_from_succs(&[vec![1, 1], vec![2], vec![]]);
        assert_eq!(cfg.preds(Block(1)), &[Block(0), Block(0)]);
        assert_eq!(cfg.rpo(), &[Block(0), Block(1), Block(2)]);
        assert_eq!(cfg.critical_edges(), &[(Block(0), 0), (Block(0), 1)]);
    }

    #[test]
    fn invalid_edges_are_skipped() {
        let mut cfg = Cfg::new();
        cfg.compute_from_succs(&[vec![5, 1], vec![], vec![0]]);
        assert_eq!(cfg.invalid_edges(), 1);
        assert_eq!(cfg.succs(Block(0)), &[Block(1)]);
        assert!(!cfg.is_reachable(Block(2)));
        assert_eq!(cfg.preds(Block(0)), &[Block(2)]);
    }

    #[test]
    fn dead_blocks_and_asm_goto() {
        use crate::ir::*;
        let mut b = FunctionBuilder::new("f", Signature::default());
        let b1 = b.create_block();
        let b2 = b.create_block();
        let b3 = b.create_block();
        b.push(InstKind::InlineAsm(Box::new(InlineAsm {
            template: String::new(),
            clobbers: vec![],
            side_effects: true,
            outputs: vec![],
            inputs: vec![],
            goto_labels: vec![b3, b1, Block(99)],
        })));
        b.jump(b2);
        b.switch_to(b1);
        b.jump(b2); // b2 will be dead: skipped and counted
        b.switch_to(b3);
        b.ret(None);
        let mut f = b.finish();
        f.blocks[2] = BlockData::dead();
        let mut cfg = Cfg::new();
        cfg.compute(&f);
        assert_eq!(cfg.succs(Block(0)), &[b3, b1]);
        assert_eq!(cfg.invalid_edges(), 3);
        assert!(!cfg.is_live(b2) && cfg.preds(b2).is_empty());
        // A dead entry block: nothing is reachable.
        f.blocks[0] = BlockData::dead();
        cfg.compute(&f);
        assert!(cfg.rpo().is_empty());
        let mut dt = crate::analysis::DomTree::new();
        dt.compute(&cfg);
        assert!(!dt.dominates(Block(1), Block(1)));
    }
}

//! Immediate dominators and the dominator tree (002 step 3).
//!
//! What: [`DomTree`] holds, per [`Block`] index, the immediate dominator, the dominator-tree
//! children (CSR, sorted by block index) and preorder/postorder numbers of a depth-first walk
//! of the tree, so that [`DomTree::dominates`] is two comparisons.
//!
//! Algorithm: Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001). Blocks
//! are processed in reverse postorder; the candidate immediate dominator of a block is the
//! `intersect` of its already-processed reachable predecessors, where `intersect` walks two
//! fingers up the current tree, always moving the one with the larger RPO number, until they
//! meet. Iterate until nothing changes (one or two sweeps on reducible CFGs). The tree is then
//! numbered with an iterative DFS (explicit stack; no recursion).
//!
//! Invariants after [`DomTree::compute`]:
//! - `idom(entry) == None`, also when the entry block has predecessors (a loop header);
//! - `idom(b) == None` for unreachable, dead and out-of-range blocks;
//! - for every other reachable block, `idom(b)` is reachable and has a smaller RPO number;
//! - `a` dominates `b` iff `pre[a] <= pre[b] && post[b] <= post[a]`; a block dominates
//!   itself; unreachable blocks dominate nothing and are dominated by nothing.
//!
//! Complexity: O(sweeps * edges * depth) for the idoms (near linear in practice), O(blocks)
//! for the tree and numbering; O(blocks) space.

use super::Cfg;
use crate::ir::Block;

const NONE: u32 = u32::MAX;

/// Immediate dominators, dominator tree and its DFS numbering; see the module doc.
#[derive(Default, Debug, Clone)]
pub struct DomTree {
    /// `idom[b]` as a block index, or `NONE`.
    idom: Vec<u32>,
    /// `child_start[b]..child_start[b + 1]` indexes `children`.
    child_start: Vec<u32>,
    /// Dominator-tree children of every block, flat, each list sorted by block index.
    children: Vec<Block>,
    /// Preorder number on the tree, or `NONE` if unreachable.
    pre: Vec<u32>,
    /// Postorder number on the tree, or `NONE` if unreachable.
    post: Vec<u32>,
    /// Reachable blocks in tree preorder.
    preorder: Vec<Block>,
    /// Scratch: idoms indexed by RPO number.
    doms: Vec<u32>,
    /// Scratch: DFS stack of (block, next child position).
    stack: Vec<(u32, u32)>,
}

impl DomTree {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the dominator tree of `cfg`, replacing the previous contents.
    pub fn compute(&mut self, cfg: &Cfg) {
        self.clear();
        let n = cfg.num_blocks();
        let rpo = cfg.rpo();
        self.idom.resize(n, NONE);
        self.pre.resize(n, NONE);
        self.post.resize(n, NONE);
        if rpo.is_empty() {
            self.child_start.resize(n + 1, 0);
            return;
        }
        // Cooper-Harvey-Kennedy over RPO numbers: doms[0] = 0 marks the entry as its own
        // idom during the iteration; its predecessors (if the entry is a loop header) are
        // ignored because the loop starts at RPO number 1.
        self.doms.resize(rpo.len(), NONE);
        self.doms[0] = 0;
        let doms = &mut self.doms;
        let mut changed = true;
        while changed {
            changed = false;
            for (i, &b) in rpo.iter().enumerate().skip(1) {
                let mut new_idom = NONE;
                for &p in cfg.preds(b) {
                    let Some(pn) = cfg.rpo_number(p) else {
                        continue; // unreachable predecessor
                    };
                    if doms[pn as usize] == NONE {
                        continue; // not processed yet
                    }
                    new_idom = if new_idom == NONE {
                        pn
                    } else {
                        intersect(doms, pn, new_idom)
                    };
                }
                if doms[i] != new_idom {
                    doms[i] = new_idom;
                    changed = true;
                }
            }
        }
        for (i, &b) in rpo.iter().enumerate().skip(1) {
            self.idom[b.index()] = rpo[self.doms[i] as usize].0;
        }
        // Children CSR by counting sort over block indices, so each list is sorted.
        self.child_start.resize(n + 1, 0);
        for &d in &self.idom {
            if d != NONE {
                self.child_start[d as usize + 1] += 1;
            }
        }
        for b in 0..n {
            self.child_start[b + 1] += self.child_start[b];
        }
        self.children.resize(self.child_start[n] as usize, Block(0));
        self.stack
            .extend(self.child_start[..n].iter().map(|&s| (s, 0)));
        for (b, &d) in self.idom.iter().enumerate() {
            if d != NONE {
                let slot = &mut self.stack[d as usize].0;
                self.children[*slot as usize] = Block::new(b);
                *slot += 1;
            }
        }
        self.stack.clear();
        // Iterative DFS numbering of the tree from the entry.
        let entry = rpo[0];
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        self.pre[entry.index()] = pre_n;
        pre_n += 1;
        self.preorder.push(entry);
        self.stack.push((entry.0, self.child_start[entry.index()]));
        while let Some(top) = self.stack.last_mut() {
            let b = top.0 as usize;
            if top.1 < self.child_start[b + 1] {
                let c = self.children[top.1 as usize];
                top.1 += 1;
                self.pre[c.index()] = pre_n;
                pre_n += 1;
                self.preorder.push(c);
                self.stack.push((c.0, self.child_start[c.index()]));
            } else {
                self.post[b] = post_n;
                post_n += 1;
                self.stack.pop();
            }
        }
    }

    /// Empties the tree, keeping capacity.
    pub fn clear(&mut self) {
        self.idom.clear();
        self.child_start.clear();
        self.children.clear();
        self.pre.clear();
        self.post.clear();
        self.preorder.clear();
        self.doms.clear();
        self.stack.clear();
    }

    /// Number of block indices covered.
    pub fn num_blocks(&self) -> usize {
        self.idom.len()
    }

    /// Immediate dominator of `b`: `None` for the entry block and for unreachable, dead or
    /// out-of-range blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom
            .get(b.index())
            .copied()
            .filter(|&d| d != NONE)
            .map(Block)
    }

    /// Dominator-tree children of `b`, sorted by block index.
    pub fn children(&self, b: Block) -> &[Block] {
        match (
            self.child_start.get(b.index()),
            self.child_start.get(b.index() + 1),
        ) {
            (Some(&lo), Some(&hi)) => &self.children[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// Reachable blocks in dominator-tree preorder (entry first, children by block index).
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }

    /// Preorder number of `b` on the tree (`None` if unreachable).
    pub fn preorder_number(&self, b: Block) -> Option<u32> {
        self.pre.get(b.index()).copied().filter(|&n| n != NONE)
    }

    /// Postorder number of `b` on the tree (`None` if unreachable).
    pub fn postorder_number(&self, b: Block) -> Option<u32> {
        self.post.get(b.index()).copied().filter(|&n| n != NONE)
    }

    /// True if `a` dominates `b` (every path from the entry to `b` passes through `a`). A
    /// block dominates itself; unreachable blocks dominate nothing and are dominated by
    /// nothing. O(1).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        match (
            self.preorder_number(a),
            self.preorder_number(b),
            self.postorder_number(a),
            self.postorder_number(b),
        ) {
            (Some(pa), Some(pb), Some(qa), Some(qb)) => pa <= pb && qb <= qa,
            _ => false,
        }
    }

    /// True if `a` dominates `b` and `a != b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }
}

/// Walks two RPO-numbered fingers up the partial tree `doms` until they meet.
fn intersect(doms: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = doms[a as usize];
        }
        while b > a {
            b = doms[b as usize];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond() {
        let mut cfg = Cfg::new();
        cfg.compute_from_succs(&[vec![1, 2], vec![3], vec![3], vec![]]);
        let mut dt = DomTree::new();
        dt.compute(&cfg);
        assert_eq!(dt.idom(Block(0)), None);
        assert_eq!(dt.idom(Block(3)), Some(Block(0)));
        assert_eq!(dt.children(Block(0)), &[Block(1), Block(2), Block(3)]);
        assert!(dt.dominates(Block(0), Block(3)));
        assert!(!dt.dominates(Block(1), Block(3)));
        assert!(dt.dominates(Block(3), Block(3)));
        assert!(!dt.strictly_dominates(Block(3), Block(3)));
    }
}

//! Fusion (spec 001): which pieces and which blocks run as one unit after placement.
//!
//! Complexity: O(pieces + edges).

use super::build::{has_goto_labels, IrProblem};
use crate::ir::{Block, InstKind, IrRead, Terminator};

/// Groups of problem blocks that run as one unit after placement:
/// consecutive pieces of one IR block on the same target, and chains of blocks joined by an
/// argument-free `jump` to a block with no phis and a single predecessor, on the same
/// target. Returns, per problem block, the index of its group's first block.
pub fn fuse<F: IrRead>(f: &F, ir: &IrProblem, assignment: &[u8]) -> Vec<u32> {
    let n = ir.pieces.len();
    let mut leader: Vec<u32> = (0..n as u32).collect();
    let mut preds = vec![0u32; f.num_blocks()];
    for e in &ir.problem.edges {
        let (a, b) = (&ir.pieces[e.from as usize], &ir.pieces[e.to as usize]);
        if a.block != b.block {
            preds[b.block as usize] += 1;
        }
    }
    for e in &ir.problem.edges {
        let (fa, fb) = (e.from as usize, e.to as usize);
        if assignment[fa] == crate::placement::UNPLACED || assignment[fa] != assignment[fb] {
            continue;
        }
        let (a, b) = (ir.pieces[fa], ir.pieces[fb]);
        let joinable = if a.block == b.block {
            true
        } else {
            let (data, target) = (Block::new(a.block as usize), Block::new(b.block as usize));
            // The checks that read no instruction list first, each column read only when
            // the checks before it pass (most edges fail the first).
            matches!(f.terminator(data), Terminator::Jump(t) if t.args.is_empty())
                && f.block_params(target).is_empty()
                && b.block != 0
                && b.start == 0
                && preds[b.block as usize] == 1
                && !f
                    .block_insts(data)
                    .iter()
                    .any(|&i| has_goto_labels(f.inst_kind(i)))
                && !f.block_insts(target).iter().any(|&i| {
                    let kind = f.inst_kind(i);
                    has_goto_labels(kind) || matches!(kind, InstKind::Phi { .. })
                })
        };
        if joinable && leader[fb] == fb as u32 {
            leader[fb] = leader[fa];
        }
    }
    // Transitive chains: follow leaders to their root.
    for i in 0..n {
        let mut r = leader[i];
        while leader[r as usize] != r {
            r = leader[r as usize];
        }
        leader[i] = r;
    }
    leader
}

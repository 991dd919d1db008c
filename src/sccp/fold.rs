//! Basic constant folding: the fallback when SCCP exceeds its memory limit (003 "Memory
//! Limit Exceeded": "Caller falls back to basic constant folding").
//!
//! What: one forward pass over the blocks reachable from the entry in reverse postorder;
//! each instruction is evaluated with the same rules as SCCP ([`eval_inst`], hence the
//! interpreter's scalar semantics) from the cells of its operands. Every cell starts
//! `Overdefined`, so the pass is pessimistic: a value becomes `Const` only when its operands
//! are constants already known (constant operands, or values folded earlier in the pass).
//! Phis stay `Overdefined` (no edge is assumed unexecutable), every live block counts as
//! reachable, and the result goes through the same [`Rewriter`]: uses are replaced, folded
//! instructions removed, branches on constants become jumps (their other successor loses the
//! phi entries of that edge but is not removed, even if nothing reaches it any more).
//!
//! Why it is sound: reverse postorder visits a definition before every use it dominates
//! (all non-phi uses in reachable blocks), and an `Overdefined` cell is always a safe answer,
//! so each `Const` is computed from final operand cells.
//!
//! Memory: one cell per value plus the CFG; no worklist. It is not subject to the limit: the
//! limit bounds SCCP's worklist-driven state, and this pass is the bounded alternative.
//!
//! Complexity: O(blocks + edges + instructions + operands), one pass.

use super::lattice::{Constant, LatticeValue};
use super::rewrite::{RewriteStats, Rewriter};
use super::solver::{eval_inst, BitSet};
use crate::analysis::Cfg;
use crate::ir::{Const, Function, InstKind, Operand};

/// Reusable scratch of the fallback folder.
#[derive(Default, Debug)]
pub struct Folder {
    cells: Vec<LatticeValue>,
    const_cells: Vec<LatticeValue>,
    live: BitSet,
    cfg: Cfg,
}

impl Folder {
    /// An empty folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds `f` locally and rewrites it with `rewriter`; returns what changed.
    /// `f` must be valid for the verifier (as after a failed-by-limit SCCP analysis, which
    /// has checked every reference).
    pub fn fold(&mut self, f: &mut Function, rewriter: &mut Rewriter) -> RewriteStats {
        self.cfg.compute(&*f);
        self.cells.clear();
        self.cells.resize(f.values.len(), LatticeValue::Overdefined);
        self.const_cells.clear();
        self.const_cells.extend((0..f.consts.len()).map(|c| {
            let c = Const::new(c);
            Constant::of_pool(c, f.consts.get(c))
                .map_or(LatticeValue::Overdefined, LatticeValue::Const)
        }));
        for &b in self.cfg.rpo() {
            for &i in &f.blocks[b.index()].insts {
                let d = &f.insts[i.index()];
                let Some(v) = d.result() else { continue };
                if matches!(d.kind, InstKind::Phi { .. }) {
                    continue;
                }
                let (cells, consts) = (&self.cells, &self.const_cells);
                let cell = eval_inst(&d.kind, |o| match o {
                    Operand::Value(v) => cells[v.index()],
                    Operand::Const(c) => consts[c.index()],
                });
                // Every cell starts Overdefined, so Unknown cannot arise; keep it safe anyway.
                if let LatticeValue::Const(_) = cell {
                    self.cells[v.index()] = cell;
                }
            }
        }
        self.live.reset(f.blocks.len());
        for (b, bd) in f.blocks.iter().enumerate() {
            if !bd.dead {
                self.live.insert(b);
            }
        }
        rewriter.apply(f, &self.cells, &self.live)
    }
}

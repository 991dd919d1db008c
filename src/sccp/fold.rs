//! The fallback of SCCP: basic constant folding for when SCCP exceeds its memory limit (003
//! "Memory Limit Exceeded": "Caller falls back to basic constant folding").
//!
//! [`Folder`]: one forward pass over the blocks reachable from the entry in the reverse
//! postorder of the shared [`Cfg`] (read, never rebuilt); each instruction is evaluated with
//! the rules of [`super::rules`], the solver's. Every cell starts `Overdefined`, so the pass
//! is pessimistic: a value becomes `Const` only when its operands are constants already
//! known (constant operands, or values folded earlier in the pass). Phis stay `Overdefined`
//! (no edge is assumed unexecutable), every live block counts as reachable, and the result
//! goes through the same [`Rewriter`]: uses are replaced, folded instructions removed,
//! branches on constants become jumps (their other successor loses the phi entries of that
//! edge but is not removed, even if nothing reaches it any more).
//!
//! Why the fallback is sound: reverse postorder visits a definition before every use it
//! dominates (all non-phi uses in reachable blocks), and an `Overdefined` cell is always a
//! safe answer, so each `Const` is computed from final operand cells.
//!
//! Memory: one cell per value (the CFG is the shared one); no worklist. It is not subject to
//! the limit: the limit bounds SCCP's worklist-driven state, and this pass is the bounded
//! alternative.
//!
//! Complexity: O(blocks + edges + instructions + operands), one pass.

use super::lattice::{AggConsts, LatticeValue};
use super::rewrite::{RewriteStats, Rewriter};
use super::rules::{const_cell, eval_inst};
use super::BitSet;
use crate::analysis::Cfg;
use crate::ir::{Body, Const, InstKind, IrRead, Operand, SymbolTable};

/// Reusable scratch of the fallback folder.
#[derive(Default, Debug)]
pub struct Folder {
    cells: Vec<LatticeValue>,
    const_cells: Vec<LatticeValue>,
    live: BitSet,
    aggregates: AggConsts,
}

impl Folder {
    /// An empty folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds `f` locally and rewrites it with `rewriter`; returns what changed. `cfg` is
    /// the shared control-flow graph of `f` as it is now (its reverse postorder orders the
    /// pass). `f` must be valid for the verifier (as after a failed-by-limit SCCP analysis,
    /// which has checked every reference). Loads from read-only globals of `symbols` fold as
    /// in SCCP.
    pub fn fold(
        &mut self,
        f: &mut Body<'_>,
        cfg: &Cfg,
        symbols: &SymbolTable,
        rewriter: &mut Rewriter,
    ) -> RewriteStats {
        self.cells.clear();
        self.cells.resize(f.values.len(), LatticeValue::Overdefined);
        self.const_cells.clear();
        self.aggregates.clear();
        let aggregates = &mut self.aggregates;
        self.const_cells.extend((0..f.consts.len()).map(|c| {
            let c = Const::new(c);
            const_cell(aggregates, f.consts, c, f.consts.get(c))
        }));
        for &b in cfg.rpo() {
            for &i in &f.block_insts[b.index()] {
                let d = f.inst(i);
                let Some(v) = d.result() else { continue };
                if matches!(d.kind, InstKind::Phi { .. }) {
                    continue;
                }
                let (cells, consts) = (&self.cells, &self.const_cells);
                let cell = eval_inst(
                    d.kind,
                    |o| match o {
                        Operand::Value(v) => cells[v.index()],
                        Operand::Const(c) => consts[c.index()],
                    },
                    Some(symbols),
                    &mut self.aggregates,
                    f.consts,
                );
                // Every cell starts Overdefined, so Unknown cannot arise; keep it safe anyway.
                if let LatticeValue::Const(_) = cell {
                    self.cells[v.index()] = cell;
                }
            }
        }
        self.live.reset(f.num_blocks());
        for b in 0..f.num_blocks() {
            if !f.block_dead[b] {
                self.live.insert(b);
            }
        }
        rewriter.apply(f, cfg, &self.cells, &self.live, &self.aggregates)
    }
}

//! Phase 4 of building the problem: block costs (spec 001's separable cost model). A
//! piece costs, per target, the sum of its statements' kind costs plus its terminator's,
//! plus for every path it accesses whose origin is another target `path_unit` × the
//! estimate of the path's size; a target the piece's support (statements, the leading phi
//! group, the terminator and its operands, loops) excludes is forbidden. Pieces stay
//! unnamed (empty names) until [`IrProblem::name_pieces`] names them.
//!
//! Reads: the function, the model, `out`'s pieces and paths, `inst_sup`, `kind_masks`,
//! `elig`, `in_loop`, `phi_count` of the scratch. Writes: the problem's (empty) block
//! names and block costs; `kind_cost` and `costs` of the scratch.
//!
//! Complexity: O((instructions + pieces · paths) · K).

use super::super::problem::FORBIDDEN;
use super::super::targets::{TargetModel, KINDS};
use super::{kind_of, terminator_kind, BuildScratch, IrProblem};
use crate::ir::{Block, IrRead, Operand};

/// Runs the phase (see the module doc).
pub(super) fn block_costs<F: IrRead>(
    f: &F,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) {
    let k = model.len();
    let all = s.all;
    let ni = f.num_insts();
    let loop_mask = s.loop_mask;
    // Per kind: its cost on every target (0 where unsupported; the mask forbids those).
    s.kind_cost.clear();
    s.kind_cost.extend(
        (0..KINDS.len()).flat_map(|kind| (0..k).map(move |t| model.cost(t, kind).unwrap_or(0))),
    );
    // Problem blocks.
    for pi in 0..out.pieces.len() {
        let pc = out.pieces[pi];
        let insts = f.block_insts(Block(pc.block));
        s.costs.clear();
        s.costs.resize(k, 0);
        let mut mask = all;
        for &i in &insts[pc.start as usize..pc.end as usize] {
            if i.index() >= ni {
                continue;
            }
            mask &= s.inst_sup[i.index()];
            let kind = kind_of(f.inst_kind(i));
            let row = &s.kind_cost[kind * k..(kind + 1) * k];
            for (c, &add) in s.costs.iter_mut().zip(row) {
                *c = c.saturating_add(add);
            }
        }
        if pc.start == 0 {
            // The leading phi group's common support (see above).
            let phis = s.phi_count[pc.block as usize] as usize;
            if phis > pc.end as usize {
                for &i in &insts[pc.end as usize..phis] {
                    mask &= s.inst_sup[i.index()];
                }
            }
        }
        if pc.terminator {
            let term = f.terminator(Block(pc.block));
            let tkind = terminator_kind(term);
            let row = &s.kind_cost[tkind * k..(tkind + 1) * k];
            for (c, &add) in s.costs.iter_mut().zip(row) {
                *c = c.saturating_add(add);
            }
            mask &= s.kind_masks[tkind];
            term.for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    mask &= s.elig.get(v.index()).copied().unwrap_or(all);
                }
            });
        }
        if s.in_loop[pc.block as usize] {
            mask &= loop_mask;
        }
        for (t, c) in s.costs.iter_mut().enumerate() {
            if mask >> t & 1 == 0 {
                *c = FORBIDDEN;
                continue;
            }
            for &q in &out.paths[pi] {
                if out.path_origin[q as usize] as usize != t {
                    let units = out.path_sizes[q as usize]
                        .total()
                        .estimate(model.size_estimate);
                    *c = c.saturating_add(model.targets[t].path_unit.saturating_mul(units));
                }
            }
        }
        out.problem.block_cost.extend_from_slice(&s.costs);
    }
    // Names are made on demand ([`IrProblem::name_pieces`]): every piece gets an empty
    // name, which allocates nothing.
    out.problem.blocks.clear();
    out.problem.blocks.resize(out.pieces.len(), String::new());
}

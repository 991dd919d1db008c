//! Phase 5 of building the problem: the edge matrices (spec 001's transfer costs). Every
//! seam between two pieces of a block and every CFG edge between live blocks (parallel
//! edges apart) gets a K×K matrix: `s -> d` costs the pair's overhead plus its per-unit
//! cost times the estimated size of the values live across the edge (live-in of the
//! successor plus the values its phis read on this edge); same-target transitions are
//! free; disallowed pairs are forbidden.
//!
//! Reads: the function, its CFG, the model, `seams`, `live_blocks`, `first_piece`,
//! `last_piece`, `live_in`, `gidx`, `gval`, `est` of the scratch. Writes: the problem's
//! edges and matrices; `live` and `matrix` of the scratch.
//!
//! Complexity: O(edges · (K² + globals / 64) + phi operands).

use super::super::problem::{Cost, FORBIDDEN};
use super::super::targets::TargetModel;
use super::{set_bit, BuildScratch, IrProblem};
use crate::analysis::Cfg;
use crate::ir::{Block, InstKind, IrRead, Operand};

/// Runs the phase (see the module doc).
pub(super) fn edge_matrices<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) {
    let k = model.len();
    let ni = f.num_insts();
    let words = s.gval.len().div_ceil(64);
    let gidx = &s.gidx;
    let global = |op: Operand| super::global_index(gidx, op);
    let (est, gval) = (&s.est, &s.gval);
    let bits_size = |bits: &[u64], global: bool| super::bits_size(est, gval, bits, global);
    let fill_matrix = |matrix: &mut Vec<Cost>, size: u64| {
        matrix.clear();
        matrix.resize(k * k, FORBIDDEN);
        for from in 0..k {
            for to in 0..k {
                if let Some((o, u)) = model.transition(from, to) {
                    matrix[from * k + to] = if from == to {
                        0
                    } else {
                        o.saturating_add(u.saturating_mul(size))
                    };
                }
            }
        }
    };
    for &(from, size) in &s.seams {
        fill_matrix(&mut s.matrix, size);
        out.problem.add_edge(from, from + 1, &s.matrix);
    }
    for &b in &s.live_blocks {
        let b = b as usize;
        for &succ in cfg.succs(Block::new(b)) {
            let succ = succ.index();
            if s.first_piece[succ] == u32::MAX {
                continue;
            }
            s.live.clear();
            s.live
                .extend_from_slice(&s.live_in[succ * words..(succ + 1) * words]);
            for &i in f.block_insts(Block::new(succ)) {
                if i.index() >= ni {
                    continue;
                }
                let InstKind::Phi { incoming, .. } = f.inst_kind(i) else {
                    continue;
                };
                for (pb, op) in incoming {
                    if pb.index() == b {
                        if let Some(x) = global(*op) {
                            set_bit(&mut s.live, x);
                        }
                    }
                }
            }
            fill_matrix(&mut s.matrix, bits_size(&s.live, true));
            out.problem
                .add_edge(s.last_piece[b], s.first_piece[succ], &s.matrix);
        }
    }
}

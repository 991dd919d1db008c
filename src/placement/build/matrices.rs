//! Phase 5 of building the problem: the edge matrices (spec 001's transfer costs). Every
//! seam between two pieces of a block and every CFG edge between live blocks (parallel
//! edges apart) gets a K×K matrix: `s -> d` costs the pair's overhead plus its per-unit
//! cost times the estimated size of the values live across the edge (live-in of the
//! successor plus the values its phis read on this edge); same-target transitions are
//! free; disallowed pairs are forbidden.
//!
//! Reads: the function, its CFG, the model, `seams`, `live_blocks`, `first_piece`,
//! `last_piece`, `live_in`, `gidx`, `gval`, `est` of the scratch. Writes: the problem's
//! edges and matrices; `transitions`, `in_size` and `marked` of the scratch (`live_in` rows
//! are marked and restored per edge).
//!
//! Complexity: O(blocks · globals / 64 + edges · K² + phi operands · predecessors).

use super::super::problem::{Edge, Problem, FORBIDDEN};
use super::super::targets::TargetModel;
use super::{BuildScratch, IrProblem};
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
    // The model's transitions, looked up once per function: `(overhead, per_unit)` of
    // every pair in matrix order, `None` where disallowed; same-target pairs are free.
    s.transitions.clear();
    s.transitions.extend((0..k * k).map(|at| {
        let (from, to) = (at / k, at % k);
        model
            .transition(from, to)
            .map(|ou| if from == to { None } else { Some(ou) })
    }));
    let transitions = &s.transitions;
    // Appends the edge `from -> to` with its matrix for `size` units live across it.
    let push_edge = |problem: &mut Problem, from: u32, to: u32, size: u64| {
        problem.edges.push(Edge { from, to });
        problem
            .matrices
            .extend(transitions.iter().map(|entry| match entry {
                None => FORBIDDEN,
                Some(None) => 0,
                Some(Some((o, u))) => o.saturating_add(u.saturating_mul(size)),
            }));
    };
    for &(from, size) in &s.seams {
        push_edge(&mut out.problem, from, from + 1, size);
    }
    // Per block: the exact total size of its live-in set (a block is a successor of many
    // edges; each edge adds only its phi operands).
    s.in_size.clear();
    s.in_size.resize(f.num_blocks(), 0);
    for &b in cfg.rpo() {
        let b = b.index();
        s.in_size[b] = set_size(est, gval, &s.live_in[b * words..(b + 1) * words]);
    }
    for &b in &s.live_blocks {
        let b = b as usize;
        for &succ in cfg.succs(Block::new(b)) {
            let succ = succ.index();
            if s.first_piece[succ] == u32::MAX {
                continue;
            }
            // Live across the edge: the successor's live-in plus the values its phis read
            // on this edge (each once: a value entering the set is marked in the row and
            // unmarked after).
            let row = &mut s.live_in[succ * words..(succ + 1) * words];
            let mut size = s.in_size[succ];
            s.marked.clear();
            for &i in f.block_insts(Block::new(succ)) {
                if i.index() >= ni {
                    continue;
                }
                // Phis come first in their block (the verifier's rule).
                let InstKind::Phi { incoming, .. } = f.inst_kind(i) else {
                    break;
                };
                for (pb, op) in incoming {
                    if pb.index() == b {
                        if let Some(x) = global(*op) {
                            let bit = 1u64 << (x % 64);
                            if row[x / 64] & bit == 0 {
                                row[x / 64] |= bit;
                                s.marked.push(x as u32);
                                size += u128::from(est[gval[x] as usize]);
                            }
                        }
                    }
                }
            }
            for &x in &s.marked {
                row[x as usize / 64] &= !(1 << (x % 64));
            }
            let size = u64::try_from(size).unwrap_or(u64::MAX);
            push_edge(&mut out.problem, s.last_piece[b], s.first_piece[succ], size);
        }
    }
}

/// The exact total estimated size of the values in a bit set over global indices (`gval`
/// maps them to values, `est` is the per-value estimate), in `u128`: clamped to `u64`, it
/// is the saturating sum.
fn set_size(est: &[u64], gval: &[u32], bits: &[u64]) -> u128 {
    let mut total = 0u128;
    for (w, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let i = w * 64 + x.trailing_zeros() as usize;
            x &= x - 1;
            total += u128::from(est[gval[i] as usize]);
        }
    }
    total
}

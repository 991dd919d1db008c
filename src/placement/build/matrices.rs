//! The problem's edges ([`edges`], with the pieces) and their matrices ([`edge_matrices`],
//! spec 001's transfer costs, only when the solver needs them). Every seam between two
//! pieces of a block and every CFG edge between live blocks (parallel edges apart) is an
//! edge with a K×K matrix: `s -> d` costs the pair's overhead plus its per-unit cost times
//! the estimated size of the values live across the edge (live-in of the successor plus
//! the values its phis read on this edge); same-target transitions are free; disallowed
//! pairs are forbidden.
//!
//! Reads: the function, its CFG, the model, `seams`, `live_blocks`, `first_piece`, `last_piece`
//! ([`edge_matrices`]: the edges, the pieces, `accepted`, `overhead`, `live_in`, `gidx`, `gval`,
//! `est`) of the scratch. Writes: the problem's edges ([`edge_matrices`]: its matrices;
//! `transitions`, `in_size` and `marked` of the scratch, `live_in` rows are marked and restored per
//! edge).
//!
//! Complexity: [`edges`] O(edges); [`edge_matrices`] O(blocks · globals / 64 + edges · K²
//! + phi operands · predecessors).

use super::super::problem::{Cost, Edge, FORBIDDEN};
use super::super::targets::TargetModel;
use super::{BuildScratch, IrProblem};
use crate::analysis::Cfg;
use crate::ir::{Block, InstKind, IrRead, Operand};

/// The problem's edges: every seam in order, then every CFG edge between live blocks in
/// block and successor order (the order [`edge_matrices`] fills their matrices in).
pub(super) fn edges(cfg: &Cfg, s: &BuildScratch, out: &mut IrProblem) {
    let edges = &mut out.problem.edges;
    edges.clear();
    edges.extend(s.seams.iter().map(|&(from, _)| Edge { from, to: from + 1 }));
    for &b in &s.live_blocks {
        for &succ in cfg.succs(Block::new(b as usize)) {
            let to = s.first_piece[succ.index()];
            if to != u32::MAX {
                let from = s.last_piece[b as usize];
                edges.push(Edge { from, to });
            }
        }
    }
}

/// The matrix of every edge [`edges`] listed (see the module doc), into the problem's
/// `matrices` (cleared); the seams' sizes are those `pieces::seam_sizes` recorded, an edge
/// that `accepted` does not mark gets size 0. A matrix of size 0 is the model's
/// `overhead` table (`transfer_bounds`), copied.
pub(super) fn edge_matrices<F: IrRead>(
    f: &F,
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
    // With nothing live across an edge its matrix is the overhead table (`overhead`
    // holds the same model's, unless a caller changed the model since the pieces).
    debug_assert_eq!(s.overhead.len(), k * k);
    let overhead = Some(&s.overhead[..]).filter(|o| o.len() == k * k);
    // Appends the matrix of an edge with `size` units live across it.
    let push_matrix = |matrices: &mut Vec<Cost>, size: u64| match overhead {
        Some(zero) if size == 0 => matrices.extend_from_slice(zero),
        _ => matrices.extend(transitions.iter().map(|entry| match entry {
            None => FORBIDDEN,
            Some(None) => 0,
            Some(Some((o, u))) => o.saturating_add(u.saturating_mul(size)),
        })),
    };
    let IrProblem {
        problem, pieces, ..
    } = out;
    problem.matrices.clear();
    // One matrix per edge: one growth at most, not a doubling per overflow.
    problem.matrices.reserve(problem.edges.len() * k * k);
    for &(_, size) in &s.seams {
        push_matrix(&mut problem.matrices, size);
    }
    // Per block: the exact total size of its live-in set (a block is a successor of many
    // edges; each edge adds only its phi operands), computed on first use (`NOT_YET`).
    const NOT_YET: u128 = u128::MAX;
    s.in_size.clear();
    s.in_size.resize(f.num_blocks(), NOT_YET);
    let cfg_edges = problem.edges[s.seams.len()..].iter();
    for (e, &accepted) in cfg_edges.zip(&s.accepted[s.seams.len()..]) {
        if !accepted {
            push_matrix(&mut problem.matrices, 0);
            continue;
        }
        {
            let (b, succ) = (
                pieces[e.from as usize].block as usize,
                pieces[e.to as usize].block as usize,
            );
            // Live across the edge: the successor's live-in plus the values its phis read
            // on this edge (each once: a value entering the set is marked in the row and
            // unmarked after).
            let row = &mut s.live_in[succ * words..(succ + 1) * words];
            if s.in_size[succ] == NOT_YET {
                s.in_size[succ] = set_size(est, gval, row);
            }
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
            push_matrix(
                &mut problem.matrices,
                u64::try_from(size).unwrap_or(u64::MAX),
            );
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

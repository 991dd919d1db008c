//! Phase 3 of building the problem: splitting blocks into pieces (spec 001, block
//! splitting). A piece is a maximal run of a block's instructions with the same support
//! (the leading phis form one group; a block with an `asm goto` is one piece); the
//! terminator belongs to the last piece, or forms its own when its support differs. At
//! each seam the size of the values live there is recorded for the seam's edge.
//!
//! Reads: the function, the model, `live_blocks`, `inst_sup`, `kind_masks`, `elig`,
//! `in_loop`, `access_path`, `live_out`, `gval`, `est` of the scratch. Writes: `out`'s
//! pieces, target names and per-piece paths (the problem's tables are cleared); `supports`,
//! `seam_size`, `live`, `first_piece`, `last_piece`, `seams` of the scratch.
//!
//! Complexity: O(instructions · K) plus, in a block with a seam, O(instructions + values /
//! 64) for its backward liveness walk.

use super::super::targets::TargetModel;
use super::{has_goto_labels, set_bit, terminator_kind, BuildScratch, IrProblem, Piece, NO_PATH};
use crate::ir::{Block, InstKind, IrRead, Operand};

/// Runs the phase (see the module doc).
pub(super) fn split<F: IrRead>(
    f: &F,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) {
    let k = model.len();
    let all = s.all;
    let nb = f.num_blocks();
    let ni = f.num_insts();
    let nv = f.values().len();
    let loop_mask = s.loop_mask;
    let words = s.gval.len().div_ceil(64);
    let (est, gval) = (&s.est, &s.gval);
    let bits_size = |bits: &[u64], global: bool| super::bits_size(est, gval, bits, global);
    // Pieces.
    let names_reused = out.problem.targets.len() == k
        && out
            .problem
            .targets
            .iter()
            .zip(&model.targets)
            .all(|(a, b)| *a == b.name);
    if !names_reused {
        out.problem.targets = model.targets.iter().map(|t| t.name.clone()).collect();
    }
    out.problem.block_cost.clear();
    out.problem.edges.clear();
    out.problem.matrices.clear();
    out.pieces.clear();
    let mut npaths = 0usize;
    s.first_piece.clear();
    s.first_piece.resize(nb, u32::MAX);
    s.last_piece.clear();
    s.last_piece.resize(nb, u32::MAX);
    s.seams.clear();
    let access_path = &s.access_path;
    for &b in &s.live_blocks {
        let b = b as usize;
        let insts = f.block_insts(Block::new(b));
        let term = f.terminator(Block::new(b));
        let restrict = if s.in_loop[b] { loop_mask } else { all };
        s.supports.clear();
        s.supports.extend(
            insts
                .iter()
                .map(|i| s.inst_sup.get(i.index()).copied().unwrap_or(all) & restrict),
        );
        // The leading phis are one group (a block cannot be cut between its phis).
        let phis = insts
            .iter()
            .take_while(|i| i.index() < ni && matches!(f.inst_kind(**i), InstKind::Phi { .. }))
            .count();
        if phis > 1 {
            let group = s.supports[..phis].iter().fold(all, |m, &x| m & x);
            s.supports[..phis].fill(group);
        }
        let mut tmask = s.kind_masks[terminator_kind(term)] & restrict;
        term.for_each_operand(|op| {
            if let Operand::Value(v) = op {
                tmask &= s.elig.get(v.index()).copied().unwrap_or(all);
            }
        });
        s.supports.push(tmask);
        if insts
            .iter()
            .any(|&i| i.index() < ni && has_goto_labels(f.inst_kind(i)))
        {
            // One piece (see the module doc): the intersection of its supports.
            let common = s.supports.iter().fold(all, |m, &x| m & x);
            s.supports.fill(common);
        }
        // Runs of equal support; the terminator is position `len`.
        let n = insts.len();
        let mut start = 0usize;
        // Sizes of the values live just before each seam position (only where the support
        // changes), walking backwards from live-out; `seam_size[pos]`.
        s.seam_size.clear();
        s.seam_size.resize(n + 1, 0);
        let has_seam = (1..=n).any(|pos| s.supports[pos] != s.supports[pos - 1]);
        if has_seam {
            s.live.clear();
            s.live.resize(nv.div_ceil(64), 0);
            for (w, &word) in s.live_out[b * words..(b + 1) * words].iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    let g = w * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    set_bit(&mut s.live, s.gval[g] as usize);
                }
            }
            let live = &mut s.live;
            term.for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    if v.index() < nv {
                        set_bit(live, v.index());
                    }
                }
            });
            s.seam_size[n] = bits_size(&s.live, false);
            for pos in (1..n).rev() {
                let i = insts[pos];
                if i.index() >= ni {
                    continue;
                }
                for r in f.inst_results(i) {
                    if r.index() < nv {
                        s.live[r.index() / 64] &= !(1 << (r.index() % 64));
                    }
                }
                let kind = f.inst_kind(i);
                if !matches!(kind, InstKind::Phi { .. }) {
                    let live = &mut s.live;
                    kind.for_each_operand(|op| {
                        if let Operand::Value(v) = op {
                            if v.index() < nv {
                                set_bit(live, v.index());
                            }
                        }
                    });
                }
                if s.supports[pos] != s.supports[pos - 1] {
                    s.seam_size[pos] = bits_size(&s.live, false);
                }
            }
        }
        let mut push_piece = |piece: Piece,
                              out: &mut IrProblem,
                              first_piece: &mut [u32],
                              seams: &mut Vec<(u32, u64)>,
                              seam_size: &[u64]| {
            let idx = out.pieces.len() as u32;
            out.pieces.push(piece);
            if out.paths.len() <= npaths {
                out.paths.push(Vec::new());
            }
            let paths = &mut out.paths[npaths];
            npaths += 1;
            paths.clear();
            paths.extend(
                insts[piece.start as usize..piece.end as usize]
                    .iter()
                    .filter_map(|i| access_path.get(i.index()))
                    .filter(|&&p| p != NO_PATH),
            );
            paths.sort_unstable();
            paths.dedup();
            if first_piece[b] == u32::MAX {
                first_piece[b] = idx;
            } else {
                seams.push((idx - 1, seam_size[piece.start as usize]));
            }
        };
        for pos in 1..=n {
            let cut = s.supports[pos] != s.supports[pos - 1];
            if !cut && pos < n {
                continue;
            }
            let piece = Piece {
                block: b as u32,
                start: start as u32,
                end: pos as u32,
                terminator: pos == n && !cut,
            };
            push_piece(piece, out, &mut s.first_piece, &mut s.seams, &s.seam_size);
            start = pos;
        }
        if out
            .pieces
            .last()
            .is_none_or(|pc| pc.block != b as u32 || !pc.terminator)
        {
            // The terminator alone (its support differs, or the block is empty).
            let piece = Piece {
                block: b as u32,
                start: n as u32,
                end: n as u32,
                terminator: true,
            };
            push_piece(piece, out, &mut s.first_piece, &mut s.seams, &s.seam_size);
        }
        s.last_piece[b] = out.pieces.len() as u32 - 1;
    }
    out.paths.truncate(npaths);
}

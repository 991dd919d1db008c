//! Phase 3 of building the problem: splitting blocks into pieces (spec 001, block
//! splitting). A piece is a maximal run of a block's instructions with the same support
//! (the leading phis form one group; a block with an `asm goto` is one piece); the
//! terminator belongs to the last piece, or forms its own when its support differs. Each
//! piece's block costs are computed as it is cut (`costs::piece_costs`, from the support
//! the cut used and the kinds eligibility recorded), so no later phase walks the
//! instructions for them. [`split`] records every seam (the piece before it and the
//! instruction position it is at); [`seam_sizes`], run only when the problem needs its
//! transfer costs, replaces each position by the size of the values live there.
//!
//! Reads: the function, the model, `live_blocks`, `inst_sup`, `inst_kind`, `kind_masks`,
//! `kind_cost`, `elig`, `in_loop`, `access_path` of the scratch ([`seam_sizes`]: `seams`,
//! `first_piece`, `last_piece`, `accepted`, `live_out`, `gval`, `est`, `inst_kind`, `op_span`,
//! `uses`).
//! Writes: `out`'s pieces, target names, per-piece paths and block costs, the (empty) block
//! names (the edge tables are cleared); `supports`, `first_piece`, `last_piece`, `seams` of the scratch
//! ([`seam_sizes`]: `seams`, `seam_size`, `cut`, `live`).
//!
//! Complexity: O(instructions · K); [`seam_sizes`] in a block with a seam O(instructions
//! from its first seam on + values / 64) for its backward liveness walk.

use super::super::sizes::{SizeEstimate, SizeScratch};
use super::super::targets::TargetModel;
use super::costs::{piece_costs, CostTables};
use super::liveness::estimate;
use super::{
    has_goto_labels, terminator_kind, BuildScratch, IrProblem, Piece, ASM_KIND, NO_PATH, PHI_KIND,
};
use crate::ir::{Block, IrRead, Operand};

/// Runs the phase (see the module doc).
pub(super) fn split<F: IrRead>(
    f: &F,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) {
    let k = model.len();
    let nb = f.num_blocks();
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
    // No global of the function has an origin: no piece accesses a path.
    let no_paths = out.path_names.is_empty();
    for bi in 0..s.live_blocks.len() {
        let b = s.live_blocks[bi] as usize;
        let insts = f.block_insts(Block::new(b));
        let term = f.terminator(Block::new(b));
        let term_kind = terminator_kind(term);
        block_supports(f, insts, term, b, s);
        // Runs of equal support; the terminator is position `len`.
        let n = insts.len();
        let mut start = 0usize;
        let access_path = &s.access_path;
        let tables = CostTables {
            model,
            kind_cost: &s.kind_cost,
            kind_rows: &s.kind_rows,
            inst_kind: &s.inst_kind,
        };
        let supports = &s.supports;
        let mut push_piece = |piece: Piece,
                              out: &mut IrProblem,
                              first_piece: &mut [u32],
                              seams: &mut Vec<(u32, u64)>| {
            let idx = out.pieces.len() as u32;
            out.pieces.push(piece);
            if out.paths.len() <= npaths {
                out.paths.push(Vec::new());
            }
            let paths = &mut out.paths[npaths];
            npaths += 1;
            paths.clear();
            if !no_paths {
                paths.extend(
                    insts[piece.start as usize..piece.end as usize]
                        .iter()
                        .filter_map(|i| access_path.get(i.index()))
                        .filter(|&&p| p != NO_PATH),
                );
                paths.sort_unstable();
                paths.dedup();
            }
            // Every position of the piece has the support of its first (the cut's rule).
            let mask = supports[piece.start as usize];
            let IrProblem {
                problem,
                paths,
                path_origin,
                path_sizes,
                ..
            } = out;
            let accessed = (&paths[npaths - 1][..], &path_origin[..], &path_sizes[..]);
            piece_costs(&tables, insts, piece, (term_kind, mask), accessed, problem);
            if first_piece[b] == u32::MAX {
                first_piece[b] = idx;
            } else {
                // The seam's position, which `seam_sizes` replaces by its size.
                seams.push((idx - 1, u64::from(piece.start)));
            }
        };
        for pos in 1..=n {
            let cut = supports[pos] != supports[pos - 1];
            if !cut && pos < n {
                continue;
            }
            let piece = Piece {
                block: b as u32,
                start: start as u32,
                end: pos as u32,
                terminator: pos == n && !cut,
            };
            push_piece(piece, out, &mut s.first_piece, &mut s.seams);
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
            push_piece(piece, out, &mut s.first_piece, &mut s.seams);
        }
        s.last_piece[b] = out.pieces.len() as u32 - 1;
    }
    out.paths.truncate(npaths);
    // Names are made on demand ([`IrProblem::name_pieces`]): every piece gets an empty
    // name, which allocates nothing.
    out.problem.blocks.clear();
    out.problem.blocks.resize(out.pieces.len(), String::new());
}

/// Replaces every seam's position in `seams` (as [`split`] recorded them) by the total
/// estimated size of the values live just before it: per block with a seam, one backward
/// walk from its live-out set ([`block_seam_sizes`]).
/// A block none of whose seams `accepted` marks (the seams are the problem's first
/// edges, in order) is not walked: its seams get size 0.
pub(super) fn seam_sizes<F: IrRead>(f: &F, s: &mut BuildScratch, out: &IrProblem) {
    let nv = f.values().len();
    let words = s.gval.len().div_ceil(64);
    s.live.clear();
    s.live.resize(nv.div_ceil(64), 0);
    let mut at = 0usize;
    for &b in &s.live_blocks {
        let b = b as usize;
        let (first, last) = (s.first_piece[b] as usize, s.last_piece[b] as usize);
        if first == last {
            continue;
        }
        let insts = f.block_insts(Block::new(b));
        let n = insts.len();
        let seams = &mut s.seams[at..at + (last - first)];
        let accepted = s.accepted[at..at + (last - first)].contains(&true);
        at += last - first;
        if !accepted {
            seams.iter_mut().for_each(|seam| seam.1 = 0);
            continue;
        }
        s.cut.clear();
        s.cut.resize(n + 1, false);
        for &(_, pos) in seams.iter() {
            s.cut[pos as usize] = true;
        }
        s.seam_size.clear();
        s.seam_size.resize(n + 1, 0);
        let operands = Operands {
            inst_kind: &s.inst_kind,
            op_span: &s.op_span,
            uses: &s.uses,
        };
        // The walk reads the estimates of the live-out values (global, estimated with
        // liveness), of the terminator's operands and of the instructions' operands.
        let term = f.terminator(Block::new(b));
        let sizes = (&s.sizes, s.size_estimate);
        estimate_operands(f, (insts, term), sizes, &mut s.est, &operands);
        let live_out = &s.live_out[b * words..(b + 1) * words];
        let sets = (&s.est[..], &s.gval[..], live_out, &mut s.live[..]);
        block_seam_sizes(f, insts, term, sets, operands, &s.cut, &mut s.seam_size);
        for seam in seams {
            seam.1 = s.seam_size[seam.1 as usize];
        }
        debug_assert!(out.pieces[first..=last].iter().all(|p| p.block == b as u32));
    }
}

/// Computes the estimates (`liveness::estimate`, into `est`) of the value operands of a
/// block's instructions other than phis (their ranges of `uses`) and of its terminator.
fn estimate_operands<F: IrRead>(
    f: &F,
    (insts, term): (&[crate::ir::Inst], &crate::ir::Terminator),
    sizes: (&SizeScratch, SizeEstimate),
    est: &mut [u64],
    operands: &Operands<'_>,
) {
    let (ni, nv) = (f.num_insts(), f.values().len());
    for &i in insts {
        if i.index() >= ni || operands.inst_kind[i.index()] == PHI_KIND {
            continue;
        }
        let (start, end) = operands.op_span[i.index()];
        for &(_, v) in &operands.uses[start as usize..end as usize] {
            estimate(f, sizes, est, v as usize);
        }
    }
    term.for_each_operand(|op| {
        if let Operand::Value(v) = op {
            if v.index() < nv {
                estimate(f, sizes, est, v.index());
            }
        }
    });
}

/// The operands of a block's instructions as eligibility recorded them: each
/// instruction's kind index and its range of `uses`.
struct Operands<'a> {
    /// Per instruction: its [`super::kind_of`] index.
    inst_kind: &'a [u8],
    /// Per instruction: its range of `uses` (see [`BuildScratch`]).
    op_span: &'a [(u32, u32)],
    /// (block, value) per value operand, in instruction order.
    uses: &'a [(u32, u32)],
}

/// Fills `seam_size[pos]` for every seam position `pos` of a block (`cut[pos]`; `n`, the
/// terminator's position, always): the total estimated size of the values live just
/// before it, walking backwards from the block's live-out set. The running total
/// is kept as bits enter and leave `live` (a bit set over values, all clear on entry and
/// on exit), in `u128`, so clamped to `u64` it is the saturating sum of the set's
/// estimates, without a pass over the whole set per seam.
/// An instruction's operands are read from the ranges of `uses` eligibility recorded
/// (`op_span`), its kind from `inst_kind`.
fn block_seam_sizes<F: IrRead>(
    f: &F,
    insts: &[crate::ir::Inst],
    term: &crate::ir::Terminator,
    (est, gval, live_out, live): (&[u64], &[u32], &[u64], &mut [u64]),
    Operands {
        inst_kind,
        op_span,
        uses,
    }: Operands<'_>,
    cut: &[bool],
    seam_size: &mut [u64],
) {
    let ni = f.num_insts();
    let nv = f.values().len();
    let n = insts.len();
    let mut total: u128 = 0;
    let clamp = |total: u128| u64::try_from(total).unwrap_or(u64::MAX);
    let enter = |live: &mut [u64], v: usize, total: &mut u128| {
        let (word, bit) = (&mut live[v / 64], 1u64 << (v % 64));
        if *word & bit == 0 {
            *word |= bit;
            *total += u128::from(est[v]);
        }
    };
    for (w, &word) in live_out.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let g = w * 64 + x.trailing_zeros() as usize;
            x &= x - 1;
            enter(live, gval[g] as usize, &mut total);
        }
    }
    term.for_each_operand(|op| {
        if let Operand::Value(v) = op {
            if v.index() < nv {
                enter(live, v.index(), &mut total);
            }
        }
    });
    seam_size[n] = clamp(total);
    // Sizes below the block's first seam are never read: the walk stops there.
    let first_cut = cut.iter().position(|&c| c).unwrap_or(n).max(1).min(n);
    for pos in (first_cut..n).rev() {
        let i = insts[pos];
        if i.index() >= ni {
            continue;
        }
        for r in f.inst_results(i) {
            let r = r.index();
            if r < nv && live[r / 64] & (1 << (r % 64)) != 0 {
                live[r / 64] &= !(1 << (r % 64));
                total -= u128::from(est[r]);
            }
        }
        if inst_kind[i.index()] != PHI_KIND {
            let (start, end) = op_span[i.index()];
            for &(_, v) in &uses[start as usize..end as usize] {
                enter(live, v as usize, &mut total);
            }
        }
        if cut[pos] {
            seam_size[pos] = clamp(total);
        }
    }
    // Clear every bit the walk may have left set (live-out values, operands): zeroing the
    // set's words (one per 64 values) costs less than finding those bits again (callgrind:
    // 2.1M fewer on jq, 6.7M on sqlite.O2 than clearing the operands walked).
    live.fill(0);
}

/// Fills `supports` with the support of every position of block `b` (its instructions,
/// then its terminator at position `len`), restricted to the loop targets on a cycle; the
/// leading phis share their intersection (a block cannot be cut between its phis), and a
/// block with an `asm goto` has one support throughout (see the module doc). Kinds are
/// read from `inst_kind` (eligibility recorded every live block's).
fn block_supports<F: IrRead>(
    f: &F,
    insts: &[crate::ir::Inst],
    term: &crate::ir::Terminator,
    b: usize,
    s: &mut BuildScratch,
) {
    let all = s.all;
    let restrict = if s.in_loop[b] { s.loop_mask } else { all };
    s.supports.clear();
    s.supports.extend(
        insts
            .iter()
            .map(|i| s.inst_sup.get(i.index()).copied().unwrap_or(all) & restrict),
    );
    let kind = |i: &crate::ir::Inst| s.inst_kind.get(i.index()).copied();
    let phis = insts
        .iter()
        .take_while(|i| kind(i) == Some(PHI_KIND))
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
        .any(|i| kind(i) == Some(ASM_KIND) && has_goto_labels(f.inst_kind(*i)))
    {
        let common = s.supports.iter().fold(all, |m, &x| m & x);
        s.supports.fill(common);
    }
}

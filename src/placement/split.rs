//! Block splitting and fusion applied to the IR after placement (spec 001, "Block splitting",
//! "Fusion and islands").
//!
//! What: [`apply`] rewrites the function so that every block runs on one target. A block
//! whose pieces ([`super::build::Piece`]) were placed on more than one target is cut at each
//! seam where the target changes: the block keeps its first run of same-target pieces
//! (so its parameters, its phis and any `blockaddress` of it stay valid) and ends in a
//! zero-cost `jump` to a new block holding the next run, and so on; the last new block takes
//! the original terminator. Consecutive pieces on one target are never cut (that is the
//! fusion of split pieces). Then chains of blocks joined by an argument-free `jump` into a
//! block with one predecessor edge, no parameters, no phis, no address taken, on the same
//! target, are fused into one block (transitively). Phis naming a split or fused block as a
//! predecessor are renamed to the block that now ends with the edge.
//!
//! Invariants kept: SSA dominance (a cut block's first part dominates its later parts; a
//! fused block's single predecessor dominated it), phi/predecessor correspondence, one
//! `InstBlock` per listed instruction, dense block rows (new blocks take spare rows the
//! pass asked for through `RowDemand`: [`blocks_needed`]). What the interpreter computes is
//! unchanged: a cut inserts only a jump, fusion removes only one. Blocks with an `asm goto`
//! are neither cut nor fused (their label edges leave from the asm, not the terminator; see
//! [`super::build`]): problem construction already makes such a block one piece, so it is
//! placed on one target and leaving it whole is exact, not an approximation.
//!
//! Complexity: O(blocks + instructions + phi entries).

use super::build::IrProblem;
use super::columns::{BlockPlacement, PieceCounts};
use super::solve::Placement;
use super::UNPLACED;
use crate::ir::{Block, Body, Const, ConstKind, InstKind, Target, Terminator};

/// What [`apply`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RewriteStats {
    /// Blocks cut into more than one.
    pub blocks_split: u64,
    /// Blocks created by cutting.
    pub blocks_created: u64,
    /// Blocks fused into their predecessor (now dead holes).
    pub blocks_fused: u64,
}

impl RewriteStats {
    /// True if the IR changed.
    pub fn changed(&self) -> bool {
        self.blocks_created + self.blocks_fused > 0
    }
}

/// An upper bound on the blocks [`apply`] creates for `placement` of `ir`: one per seam
/// between pieces of one block on different targets.
pub fn blocks_needed(ir: &IrProblem, placement: &Placement) -> usize {
    ir.pieces
        .windows(2)
        .zip(placement.assignment.windows(2))
        .filter(|(p, a)| p[0].block == p[1].block && a[0] != a[1])
        .count()
}

fn has_asm_goto(body: &Body<'_>, b: usize) -> bool {
    body.block_insts[b].iter().any(|&i| {
        matches!(&body.kinds[i.index()], InstKind::InlineAsm(asm) if !asm.goto_labels.is_empty())
    })
}

/// Per-block data of pieces `lo..hi` (one run on one target).
fn run_row(placement: &Placement, island_of: &[u32], lo: usize, hi: usize) -> BlockPlacement {
    BlockPlacement {
        target: placement.assignment[lo],
        domain: placement.domains[lo..hi].iter().fold(0, |d, s| d | s.0),
        island: island_of[lo],
        pieces: PieceCounts {
            pieces: (hi - lo) as u32,
            fused: 1,
        },
    }
}

/// Marks a block that no fusion absorbed (see [`fuse_chains`]).
const NOT_MERGED: u32 = u32::MAX;

/// Splits and fuses `body` as the module doc says; `rows` (one per block row in use, as the
/// pass computed them for the unsplit function) is updated to describe the blocks after the
/// rewrite, new blocks appended. `island_of` is per piece. Panics only if the pass asked for
/// fewer spare rows than [`blocks_needed`].
pub fn apply(
    body: &mut Body<'_>,
    ir: &IrProblem,
    placement: &Placement,
    island_of: &[u32],
    rows: &mut Vec<BlockPlacement>,
) -> RewriteStats {
    let mut stats = RewriteStats::default();
    let n0 = body.counts.blocks;
    rows.resize(n0, BlockPlacement::default());
    let last_of = cut_blocks(body, ir, placement, island_of, rows, &mut stats);
    let merged = fuse_chains(body, rows, &mut stats);
    if stats.changed() {
        redirect_phis(body, &last_of, &merged);
    }
    rows.truncate(body.counts.blocks);
    stats
}

/// Cuts every block whose pieces run on more than one target into one block per run, chained
/// by jumps (rows of the new blocks appended to `rows`). Returns, per original block, the
/// block that now ends with its terminator.
fn cut_blocks(
    body: &mut Body<'_>,
    ir: &IrProblem,
    placement: &Placement,
    island_of: &[u32],
    rows: &mut Vec<BlockPlacement>,
    stats: &mut RewriteStats,
) -> Vec<u32> {
    // `last_of[b]`: the block that ends with b's original terminator after cutting.
    let mut last_of: Vec<u32> = (0..body.counts.blocks as u32).collect();
    let pieces = &ir.pieces;
    let mut i = 0;
    while i < pieces.len() {
        let b = pieces[i].block as usize;
        let mut j = i + 1;
        while j < pieces.len() && pieces[j].block as usize == b {
            j += 1;
        }
        // Runs of equal target among pieces i..j.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut lo = i;
        for k in i + 1..=j {
            if k == j || placement.assignment[k] != placement.assignment[k - 1] {
                runs.push((lo, k));
                lo = k;
            }
        }
        if runs.len() > 1 && !has_asm_goto(body, b) {
            let insts = std::mem::take(&mut body.block_insts[b]);
            let term = std::mem::replace(&mut body.terminators[b], Terminator::Unreachable);
            let cut = |r: usize| pieces[runs[r].0].start as usize;
            body.block_insts[b] = insts[..cut(1)].to_vec();
            rows[b] = run_row(placement, island_of, runs[0].0, runs[0].1);
            let mut prev = b;
            for r in 1..runs.len() {
                let end = if r + 1 < runs.len() {
                    cut(r + 1)
                } else {
                    insts.len()
                };
                let part = insts[cut(r)..end].to_vec();
                let nb = body.push_block(part, Terminator::Unreachable);
                for &moved in &body.block_insts[nb.index()] {
                    body.inst_blocks[moved.index()] = nb;
                }
                body.terminators[prev] = Terminator::Jump(Target::new(nb));
                rows.push(run_row(placement, island_of, runs[r].0, runs[r].1));
                prev = nb.index();
            }
            body.terminators[prev] = term;
            last_of[b] = prev as u32;
            stats.blocks_split += 1;
            stats.blocks_created += runs.len() as u64 - 1;
        }
        i = j;
    }
    last_of
}

/// Fuses argument-free jump chains on one target: a block whose only predecessor jumps to
/// it without arguments, on the same target, takes no address and no phi, joins that
/// predecessor. Returns, per block, the block that absorbed it ([`NOT_MERGED`] if none).
fn fuse_chains(
    body: &mut Body<'_>,
    rows: &mut [BlockPlacement],
    stats: &mut RewriteStats,
) -> Vec<u32> {
    let n = body.counts.blocks;
    let mut preds = vec![0u32; n];
    for b in (0..n).filter(|&b| !body.block_dead[b]) {
        body.terminators[b].for_each_successor(|s| {
            if let Some(p) = preds.get_mut(s.index()) {
                *p += 1;
            }
        });
        for &inst in &body.block_insts[b] {
            if let InstKind::InlineAsm(asm) = &body.kinds[inst.index()] {
                for s in &asm.goto_labels {
                    if let Some(p) = preds.get_mut(s.index()) {
                        *p += 1;
                    }
                }
            }
        }
    }
    let mut address_taken = vec![false; n];
    for c in 0..body.consts.len() {
        if let Some(ConstKind::BlockAddr(b)) = body.consts.try_get(Const::new(c)).map(|d| d.kind) {
            if let Some(t) = address_taken.get_mut(b.index()) {
                *t = true;
            }
        }
    }
    let mut merged = vec![NOT_MERGED; n];
    for a in 0..n {
        if body.block_dead[a] || rows[a].target == UNPLACED || has_asm_goto(body, a) {
            continue;
        }
        loop {
            let c = match &body.terminators[a] {
                Terminator::Jump(t) if t.args.is_empty() => t.block.index(),
                _ => break,
            };
            let fusable = c != a
                && c != 0
                && c < n
                && !body.block_dead[c]
                && preds[c] == 1
                && !address_taken[c]
                && body.block_params[c].is_empty()
                && rows[c].target == rows[a].target
                && !has_asm_goto(body, c)
                && !body.block_insts[c]
                    .first()
                    .is_some_and(|i| matches!(body.kinds[i.index()], InstKind::Phi { .. }));
            if !fusable {
                break;
            }
            let moved = std::mem::take(&mut body.block_insts[c]);
            for &m in &moved {
                body.inst_blocks[m.index()] = Block::new(a);
            }
            body.block_insts[a].extend(moved);
            body.terminators[a] =
                std::mem::replace(&mut body.terminators[c], Terminator::Unreachable);
            body.block_params[c].clear();
            body.block_dead[c] = true;
            merged[c] = a as u32;
            let absorbed = std::mem::take(&mut rows[c]);
            rows[a].domain |= absorbed.domain;
            rows[a].pieces.pieces += absorbed.pieces.pieces;
            rows[a].pieces.fused = 1;
            stats.blocks_fused += 1;
        }
    }
    merged
}

/// Phis name the block that now ends with the edge: the last piece of a cut predecessor
/// (`last_of`, per original block), followed through fusions (`merged`).
fn redirect_phis(body: &mut Body<'_>, last_of: &[u32], merged: &[u32]) {
    let n = body.counts.blocks;
    let resolve = |p: usize| -> usize {
        let mut p = if p < last_of.len() {
            last_of[p] as usize
        } else {
            p
        };
        while p < n && merged[p] != NOT_MERGED {
            p = merged[p] as usize;
        }
        p
    };
    for b in (0..n).filter(|&b| !body.block_dead[b]) {
        for &inst in &body.block_insts[b] {
            let InstKind::Phi { incoming, .. } = &mut body.kinds[inst.index()] else {
                continue;
            };
            for (p, _) in incoming.iter_mut() {
                *p = Block::new(resolve(p.index()));
            }
        }
    }
}

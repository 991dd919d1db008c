//! Block costs (spec 001's separable cost model), computed piece by piece as
//! `pieces::split` cuts the pieces. A piece costs, per target, the sum of its statements'
//! kind costs plus its terminator's, plus for every path it accesses whose origin is
//! another target `path_unit` × the estimate of the path's size; a target the piece's
//! support excludes is forbidden.
//!
//! The piece's support is the one the cut used: every position of a piece has the same
//! support (the instruction's support restricted to the loop targets on a cycle, the
//! leading phis' common support, the terminator's kind and operands), so it is the support
//! of the piece's first position (see `pieces::block_supports`), and the statements'
//! kinds are those eligibility recorded (`inst_kind`), so the instructions are not walked
//! again.
//!
//! Reads: the model, `kind_cost` and `inst_kind` of the scratch, the piece's support and
//! paths. Writes: the piece's row of the problem's block costs ([`kind_costs`] fills
//! `kind_cost` once per function).
//!
//! Complexity: O((statements + paths) · K) per piece.

use super::super::problem::{Cost, Problem, FORBIDDEN};
use super::super::sizes::Size;
use super::super::targets::{TargetModel, KINDS};
use super::{BuildScratch, Piece};
use crate::ir::Inst;

/// Fills `kind_cost[kind * K + t]`: the cost of every kind on every target (0 where
/// unsupported; the support forbids those).
pub(super) fn kind_costs(model: &TargetModel, s: &mut BuildScratch) {
    let k = model.len();
    s.kind_cost.clear();
    s.kind_cost.extend(
        (0..KINDS.len()).flat_map(|kind| (0..k).map(move |t| model.cost(t, kind).unwrap_or(0))),
    );
}

/// What [`piece_costs`] reads besides the piece: the model, `kind_cost` and `inst_kind`.
pub(super) struct CostTables<'a> {
    /// The model (targets' path units, the size estimate).
    pub model: &'a TargetModel,
    /// `kind_cost[kind * K + t]` ([`kind_costs`]).
    pub kind_cost: &'a [Cost],
    /// Per instruction: its kind index (eligibility's `inst_kind`).
    pub inst_kind: &'a [u8],
}

/// Appends the block-cost row of `piece` (instructions `insts[piece.start..piece.end]`,
/// terminator kind `term_kind` when the piece ends the block, support `mask`; the paths it
/// accesses with every path's origin and size) to `problem`.
pub(super) fn piece_costs(
    t: &CostTables<'_>,
    insts: &[Inst],
    piece: Piece,
    (term_kind, mask): (usize, u64),
    (paths, path_origin, path_sizes): (&[u32], &[u8], &[Size]),
    problem: &mut Problem,
) {
    let k = t.model.len();
    let costs = &mut problem.block_cost;
    let at = costs.len();
    costs.resize(at + k, 0);
    let costs = &mut costs[at..];
    let mut add_kind = |kind: usize| {
        let row = &t.kind_cost[kind * k..(kind + 1) * k];
        for (c, &add) in costs.iter_mut().zip(row) {
            *c = c.saturating_add(add);
        }
    };
    for &i in &insts[piece.start as usize..piece.end as usize] {
        if let Some(&kind) = t.inst_kind.get(i.index()) {
            add_kind(kind as usize);
        }
    }
    if piece.terminator {
        add_kind(term_kind);
    }
    for (target, c) in costs.iter_mut().enumerate() {
        if mask >> target & 1 == 0 {
            *c = FORBIDDEN;
            continue;
        }
        for &q in paths {
            if path_origin[q as usize] as usize != target {
                let units = path_sizes[q as usize]
                    .total()
                    .estimate(t.model.size_estimate);
                *c = c.saturating_add(t.model.targets[target].path_unit.saturating_mul(units));
            }
        }
    }
}

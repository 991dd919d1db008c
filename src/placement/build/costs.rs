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

/// Models with at most this many targets sum a piece's kind costs in a fixed-width row
/// (`kind_rows` of the scratch), which the compiler unrolls; wider ones use the flat table.
pub(super) const ROW: usize = 4;

/// Fills `kind_cost[kind * K + t]`: the cost of every kind on every target (0 where
/// unsupported; the support forbids those), and for a model of at most [`ROW`] targets the
/// same costs as one fixed-width row per kind (`kind_rows`, padded with 0).
pub(super) fn kind_costs(model: &TargetModel, s: &mut BuildScratch) {
    let k = model.len();
    s.kind_cost.clear();
    s.kind_cost.extend(
        (0..KINDS.len()).flat_map(|kind| (0..k).map(move |t| model.cost(t, kind).unwrap_or(0))),
    );
    s.kind_rows.clear();
    if k <= ROW {
        s.kind_rows
            .extend(s.kind_cost.chunks(k.max(1)).map(|costs| {
                let mut row = [0; ROW];
                row[..costs.len()].copy_from_slice(costs);
                row
            }));
    }
}

/// What [`piece_costs`] reads besides the piece: the model, `kind_cost`, `kind_rows` and
/// `inst_kind`.
pub(super) struct CostTables<'a> {
    /// The model (targets' path units, the size estimate).
    pub model: &'a TargetModel,
    /// `kind_cost[kind * K + t]` ([`kind_costs`]).
    pub kind_cost: &'a [Cost],
    /// `kind_rows[kind][t]` when K is at most [`ROW`] ([`kind_costs`]).
    pub kind_rows: &'a [[Cost; ROW]],
    /// Per instruction: its kind index (eligibility's `inst_kind`).
    pub inst_kind: &'a [u8],
}

/// Appends the block-cost row of `piece` (instructions `insts[piece.start..piece.end]`,
/// terminator kind `term_kind` when the piece ends the block, support `mask`; the paths it
/// accesses with every path's origin and size) to `problem`.
///
/// Every term of a cost is non-negative, so a sum that does not overflow is the saturating
/// sum: with at most [`ROW`] targets the kind costs are summed in a fixed-width row and,
/// unless a sum overflows (then [`wide_piece_costs`] sums again, saturating), copied to the
/// problem's row, to which the path premiums are then added saturating.
pub(super) fn piece_costs(
    t: &CostTables<'_>,
    insts: &[Inst],
    piece: Piece,
    (term_kind, mask): (usize, u64),
    accessed: (&[u32], &[u8], &[Size]),
    problem: &mut Problem,
) {
    let k = t.model.len();
    let insts = &insts[piece.start as usize..piece.end as usize];
    let kinds = || {
        insts
            .iter()
            .filter_map(|i| t.inst_kind.get(i.index()))
            .map(|&kind| kind as usize)
            .chain(piece.terminator.then_some(term_kind))
    };
    if k > ROW || t.kind_rows.is_empty() {
        return wide_piece_costs(t, kinds(), mask, accessed, problem);
    }
    let (mut sum, mut overflow) = ([0 as Cost; ROW], false);
    let mut add = |kind: usize| {
        let row = &t.kind_rows[kind];
        for (s, &c) in sum.iter_mut().zip(row) {
            let (total, o) = s.overflowing_add(c);
            *s = total;
            overflow |= o;
        }
    };
    for &i in insts {
        if let Some(&kind) = t.inst_kind.get(i.index()) {
            add(kind as usize);
        }
    }
    if piece.terminator {
        add(term_kind);
    }
    if overflow {
        return wide_piece_costs(t, kinds(), mask, accessed, problem);
    }
    let at = problem.block_cost.len();
    problem.block_cost.extend_from_slice(&sum[..k]);
    add_paths(t, mask, accessed, &mut problem.block_cost[at..]);
}

/// Forbids in a piece's cost row (its kind costs summed) the targets outside its support
/// `mask`, and adds to the others, saturating, the premium of every path the piece
/// accesses whose origin is another target.
fn add_paths(
    t: &CostTables<'_>,
    mask: u64,
    (paths, path_origin, path_sizes): (&[u32], &[u8], &[Size]),
    costs: &mut [Cost],
) {
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

/// [`piece_costs`] for a model of more than [`ROW`] targets (or a sum that overflows):
/// saturating sums in the problem's row, from the flat `kind_cost` table.
fn wide_piece_costs(
    t: &CostTables<'_>,
    kinds: impl Iterator<Item = usize>,
    mask: u64,
    accessed: (&[u32], &[u8], &[Size]),
    problem: &mut Problem,
) {
    let k = t.model.len();
    let costs = &mut problem.block_cost;
    let at = costs.len();
    costs.resize(at + k, 0);
    let costs = &mut costs[at..];
    for kind in kinds {
        let row = &t.kind_cost[kind * k..(kind + 1) * k];
        for (c, &add) in costs.iter_mut().zip(row) {
            *c = c.saturating_add(add);
        }
    }
    add_paths(t, mask, accessed, costs);
}

#[cfg(test)]
mod tests {
    use super::super::super::problem::{Cost, Problem, FORBIDDEN};
    use super::super::super::sizes::Size;
    use super::super::super::targets::{TargetModel, KINDS};
    use super::super::{BuildScratch, Piece};
    use super::{kind_costs, piece_costs, CostTables};
    use crate::ir::Inst;

    /// A model of `k` targets whose kinds cost `cost` (the last target supports no call).
    fn model(k: usize, cost: u64) -> TargetModel {
        let mut text = String::new();
        for t in 0..k {
            text.push_str(&format!(
                "[[target]]\nname = \"t{t}\"\ndefault_cost = {}\npath_unit = {}\n",
                cost + t as u64,
                t + 1
            ));
            if t + 1 == k && k > 1 {
                text.push_str("unsupported = [\"call\"]\n");
            }
            text.push('\n');
        }
        TargetModel::parse(&text).expect("the test model parses")
    }

    /// Oracle: the textbook row, one saturating addition per term.
    fn oracle(
        m: &TargetModel,
        kinds: &[usize],
        mask: u64,
        paths: &[u32],
        sizes: &[Size],
    ) -> Vec<Cost> {
        (0..m.len())
            .map(|t| {
                if mask >> t & 1 == 0 {
                    return FORBIDDEN;
                }
                let mut c: Cost = 0;
                for &kind in kinds {
                    c = c.saturating_add(m.cost(t, kind).unwrap_or(0));
                }
                for &q in paths {
                    if q as usize != t {
                        let units = sizes[q as usize].total().estimate(m.size_estimate);
                        c = c.saturating_add(m.targets[t].path_unit.saturating_mul(units));
                    }
                }
                c
            })
            .collect()
    }

    /// The fixed-width row (3 targets), its overflow fallback (costs near `u64::MAX`) and
    /// the wide path (6 targets) give the saturating row of the oracle, paths included.
    #[test]
    fn piece_costs_agree_with_saturating_sums() {
        let mut checked = 0;
        for (k, cost) in [(3, 5), (3, u64::MAX / 3), (6, 7), (6, u64::MAX / 4)] {
            let m = model(k, cost);
            let mut s = BuildScratch::default();
            kind_costs(&m, &mut s);
            assert_eq!(s.kind_rows.is_empty(), k > super::ROW);
            let inst_kind: Vec<u8> = (0..40).map(|i| (i * 7 % KINDS.len()) as u8).collect();
            let insts: Vec<Inst> = (0..40).map(Inst::new).collect();
            let tables = CostTables {
                model: &m,
                kind_cost: &s.kind_cost,
                kind_rows: &s.kind_rows,
                inst_kind: &inst_kind,
            };
            let sizes = [Size::units(3), Size::units(5)];
            for (start, end) in [(0, 0), (0, 1), (2, 6), (5, 40)] {
                for terminator in [false, true] {
                    for paths in [&[][..], &[0, 1][..]] {
                        let mask = (1u64 << k) - 1 - 2;
                        let piece = Piece {
                            block: 0,
                            start,
                            end,
                            terminator,
                        };
                        let mut p = Problem::default();
                        let accessed = (paths, &[0u8, 1][..], &sizes[..]);
                        piece_costs(&tables, &insts, piece, (20, mask), accessed, &mut p);
                        let mut kinds: Vec<usize> = inst_kind[start as usize..end as usize]
                            .iter()
                            .map(|&x| x as usize)
                            .collect();
                        kinds.extend(terminator.then_some(20));
                        assert_eq!(p.block_cost, oracle(&m, &kinds, mask, paths, &sizes));
                        checked += usize::from(
                            (0..k).any(|t| mask >> t & 1 == 1 && p.block_cost[t] == Cost::MAX),
                        );
                    }
                }
            }
        }
        assert!(checked > 4, "only {checked} rows saturated");
    }
}

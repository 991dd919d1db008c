//! Placement results as component columns of the block entities.
//!
//! What: the per-block data the `placement` pass establishes, one component per column in
//! the column pattern of [`crate::ir::body`] (DESIGN.md 2, rule 5): each component is
//! `#[repr(transparent)]` over its row type, every block entity carries all of them (the
//! engine's loader and `grow_rows` spawn them with [`PlacementRow::EMPTY`], so the block
//! kind stays one table), and row `b` of a column is [`crate::ir::Block`] `b`. The pass
//! writes them through contiguous slices ([`write_rows`]); [`placement_of`] reads them back
//! for tests and tools.
//!
//! | component | row type | bytes | meaning |
//! |---|---|---|---|
//! | [`BlockTarget`] | `u8` | 1 | target of the block ([`UNPLACED`] for dead and unreachable blocks) |
//! | [`BlockDomain`] | [`TargetSet`] | 8 | union of the AC-3 domains of its pieces |
//! | [`BlockIsland`] | `u32` | 4 | island of the block (`u32::MAX` if none) |
//! | [`BlockPieces`] | [`PieceCounts`] | 8 | pieces after splitting and after fusion |
//!
//! Invariants: valid for rows below `RowCounts::blocks` once the Placement stage has run on
//! the function in the World (the loader leaves pooled rows as the previous function had
//! them; like the analyses, the columns describe the function only after their pass ran).
//!
//! Complexity: O(blocks) to write or read.

use super::problem::TargetSet;
use super::UNPLACED;
use bevy_ecs::prelude::*;

/// Target of a block (column of block entities).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct BlockTarget(pub u8);

/// Union of the AC-3 domains of a block's pieces.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct BlockDomain(pub TargetSet);

/// Island of a block (`u32::MAX` if none).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct BlockIsland(pub u32);

/// How many problem pieces a block was split into, and how many units they form after fusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct PieceCounts {
    /// Pieces after splitting.
    pub pieces: u32,
    /// Pieces after fusion.
    pub fused: u32,
}

/// Piece counts of a block.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct BlockPieces(pub PieceCounts);

/// The placement columns of one block row, as spawned (every block entity carries them).
#[derive(Bundle, Clone, Copy, Debug)]
pub struct PlacementRow {
    /// Target.
    pub target: BlockTarget,
    /// Domain.
    pub domain: BlockDomain,
    /// Island.
    pub island: BlockIsland,
    /// Piece counts.
    pub pieces: BlockPieces,
}

impl PlacementRow {
    /// A row with no placement.
    pub const EMPTY: PlacementRow = PlacementRow {
        target: BlockTarget(UNPLACED),
        domain: BlockDomain(TargetSet::EMPTY),
        island: BlockIsland(u32::MAX),
        pieces: BlockPieces(PieceCounts {
            pieces: 0,
            fused: 0,
        }),
    };
}

/// The placement columns, writable.
pub type PlacementColumnsMut = (
    &'static mut BlockTarget,
    &'static mut BlockDomain,
    &'static mut BlockIsland,
    &'static mut BlockPieces,
    &'static crate::ir::SlotOf,
);

/// The placement columns, shared.
pub type PlacementColumns = (
    &'static BlockTarget,
    &'static BlockDomain,
    &'static BlockIsland,
    &'static BlockPieces,
    &'static crate::ir::SlotOf,
);

/// Per-block placement data in one value (what [`placement_of`] returns and what
/// [`write_rows`] stores).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlockPlacement {
    /// Target ([`UNPLACED`] for dead or unreachable blocks).
    pub target: u8,
    /// Union of the AC-3 domains of its pieces (bit `t` = target `t`).
    pub domain: u64,
    /// Island (`u32::MAX` if none).
    pub island: u32,
    /// Piece counts.
    pub pieces: PieceCounts,
}

impl Default for BlockPlacement {
    fn default() -> Self {
        BlockPlacement {
            target: UNPLACED,
            domain: 0,
            island: u32::MAX,
            pieces: PieceCounts::default(),
        }
    }
}

/// The placement columns of one slot's table, as slices.
pub type PlacementSlices<'w> = (
    &'w mut [BlockTarget],
    &'w mut [BlockDomain],
    &'w mut [BlockIsland],
    &'w mut [BlockPieces],
);

/// Every slot's placement columns (`None` for a slot without block rows), obtained once
/// for all slots (`crate::ir::access::slot_columns`).
pub fn slot_rows<'w>(
    columns: &'w mut Query<PlacementColumnsMut>,
) -> [Option<PlacementSlices<'w>>; crate::ir::SLOTS] {
    crate::ir::access::slot_columns(columns.contiguous_iter_mut(), "placement")
}

/// Writes `rows` into one slot's placement columns (row `b` = block `b`); rows of the
/// table beyond `rows.len()` are left alone. Returns how many rows were written (fewer
/// than `rows.len()` only if the table is shorter, which the engine's row invariant rules
/// out).
pub fn write_rows(columns: Option<PlacementSlices<'_>>, rows: &[BlockPlacement]) -> usize {
    let Some((targets, domains, islands, pieces)) = columns else {
        return 0;
    };
    let n = rows.len().min(targets.len());
    for (b, r) in rows.iter().enumerate().take(n) {
        targets[b].0 = r.target;
        domains[b].0 = TargetSet(r.domain);
        islands[b].0 = r.island;
        pieces[b].0 = r.pieces;
    }
    n
}

/// The placement columns of the function now in slot 0 of `world` (rows below
/// `RowCounts::blocks`):
/// for tests and tools that run the pipeline and inspect the World before taking the
/// function out.
pub fn placement_of(world: &mut World) -> Vec<BlockPlacement> {
    let n = world.resource::<crate::ir::FunctionTables>().slots[0]
        .counts
        .blocks;
    let mut state = world.query::<PlacementColumns>();
    let Some((targets, domains, islands, pieces, _)) = state
        .contiguous_iter(world)
        .ok()
        .and_then(|mut it| it.find(|c| c.4[0].0 == 0))
    else {
        return Vec::new();
    };
    (0..n.min(targets.len()))
        .map(|b| BlockPlacement {
            target: targets[b].0,
            domain: domains[b].0 .0,
            island: islands[b].0,
            pieces: pieces[b].0,
        })
        .collect()
}

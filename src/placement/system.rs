//! The `placement` pass: the adapter from a function to the solver, and its system.
//!
//! What: [`place_function`] builds the problem of a function under a target model
//! ([`super::ir::build_problem`]), solves it, fuses the result ([`super::ir::fuse`]) and
//! builds the islands ([`super::islands::build_islands`]), giving per-block results
//! ([`BlockPlacement`]: domain, chosen target, island) shaped as the component each will
//! become once blocks carry placement data in the World. [`place_blocks`] is the system: it
//! reads the function's columns through [`IrView`], the module's [`Symbols`] and the
//! [`PlacementModel`] resource (the built-in model unless replaced), writes
//! [`PlacementResult`], and reports an error diagnostic naming the blocks when no placement
//! exists. It does not rewrite the IR (splitting and fusion are modelled on the problem).
//!
//! Requires: `cfg` (successor lists are read from terminators here). Establishes:
//! [`PlacementResult`] for the current function.
//!
//! Complexity: that of the problem construction plus the solver (see [`super::solve`]).

use super::ir::{build_problem, fuse, IrProblem};
use super::islands::{build_islands, IslandGraph};
use super::solve::{Placement, PlacementError, SolveOptions, Solver};
use super::targets::TargetModel;
use crate::engine::{Diagnostic, Diagnostics, PassStats, Severity, Stage};
use crate::ir::{IrRead, SymbolTable};
use crate::ir::{IrView, Symbols};
use bevy_ecs::prelude::*;
use std::sync::Arc;

/// Per-block placement data (one per IR block; the future block component).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct BlockPlacement {
    /// Target of the block's first piece (`u8::MAX` for dead or unreachable blocks).
    pub target: u8,
    /// Union of the AC-3 domains of its pieces.
    pub domain: u64,
    /// Island of its first piece (`u32::MAX` if none).
    pub island: u32,
    /// Number of pieces after splitting.
    pub pieces: u32,
    /// Number of pieces after fusion.
    pub fused_pieces: u32,
}

/// A placed function.
#[derive(Clone, Debug)]
pub struct FunctionPlacement {
    /// The problem built from the function.
    pub ir: IrProblem,
    /// The solver's answer.
    pub placement: Placement,
    /// Leader of each piece's fusion group.
    pub fused: Vec<u32>,
    /// Islands and their graph.
    pub islands: IslandGraph,
    /// Per IR block results.
    pub blocks: Vec<BlockPlacement>,
}

/// Places one function (see the module doc).
///
/// # Errors
/// [`PlacementError`] when no placement exists (or the search gave up).
pub fn place_function<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    opts: &SolveOptions,
    solver: &mut Solver,
) -> Result<FunctionPlacement, PlacementError> {
    let ir = build_problem(f, symbols, model);
    let placement = solver.solve(&ir.problem, opts)?;
    let fused = fuse(f, &ir, &placement.assignment);
    let islands = build_islands(
        &ir.problem,
        &placement.assignment,
        &ir.paths,
        &ir.path_origin,
    );
    let mut blocks = vec![
        BlockPlacement {
            target: u8::MAX,
            island: u32::MAX,
            ..BlockPlacement::default()
        };
        f.num_blocks()
    ];
    for (i, pc) in ir.pieces.iter().enumerate() {
        let b = &mut blocks[pc.block as usize];
        if b.pieces == 0 {
            b.target = placement.assignment[i];
            b.island = islands.island_of[i];
        }
        b.pieces += 1;
        b.fused_pieces += (fused[i] == i as u32) as u32;
        b.domain |= placement.domains[i].0;
    }
    Ok(FunctionPlacement {
        ir,
        placement,
        fused,
        islands,
        blocks,
    })
}

/// The target model the pass uses.
#[derive(Resource, Clone, Debug)]
pub struct PlacementModel(pub Arc<TargetModel>);

impl Default for PlacementModel {
    fn default() -> Self {
        PlacementModel(Arc::new(TargetModel::default_model()))
    }
}

/// The pass's result for the current function: one entry per IR block.
#[derive(Resource, Clone, Debug, Default)]
pub struct PlacementResult(pub Vec<BlockPlacement>);

/// The solver's reusable scratch.
#[derive(Resource, Default, Debug)]
pub struct PlacementScratch(pub Solver);

/// Places the function in the World; see the module doc.
pub fn place_blocks(
    ir: IrView,
    symbols: Res<Symbols>,
    model: Res<PlacementModel>,
    mut scratch: ResMut<PlacementScratch>,
    mut result: ResMut<PlacementResult>,
    mut diagnostics: ResMut<Diagnostics>,
    mut stats: ResMut<PassStats>,
) {
    result.0.clear();
    let f = ir.body();
    match place_function(
        &f,
        Some(&symbols.0),
        &model.0,
        &SolveOptions::default(),
        &mut scratch.0,
    ) {
        Ok(fp) => {
            stats.add("placement", "pieces", fp.ir.pieces.len() as u64);
            stats.add("placement", "islands", fp.islands.islands.len() as u64);
            stats.add("placement", "cost", fp.placement.cost);
            stats.add("placement", "backtracks", fp.placement.stats.backtracks);
            result.0 = fp.blocks;
        }
        Err(e) => diagnostics.0.push(Diagnostic {
            severity: Severity::Error,
            pass: "placement",
            message: format!("function @{}: {e}", f.name()),
        }),
    }
}

/// Inserts the pass's resources.
pub fn init_resources(world: &mut World) {
    world.init_resource::<PlacementModel>();
    world.init_resource::<PlacementResult>();
    world.init_resource::<PlacementScratch>();
}

/// Adds the pass's system to the Placement stage.
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(place_blocks.in_set(Stage::Placement));
}

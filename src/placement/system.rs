//! The `placement` pass: the adapter from a function to the solver, and its systems.
//!
//! What: [`place_function`] builds the problem of a function under a target model
//! ([`super::ir::build_problem`]), solves it, fuses the result ([`super::ir::fuse`]) and
//! builds the islands ([`super::islands::build_islands`]), giving per-block results
//! ([`BlockPlacement`]). In the pipeline the pass is three systems in the Placement stage,
//! each visiting every live function slot (`PlacementScratch`, `RowDemand`, the analyses,
//! `Diagnostics` and `PassStats` are per slot; the model is shared):
//!
//! | system | reads | writes |
//! |---|---|---|
//! | [`place_blocks`] | all columns (through `IrView`), `Cfg`, `Sccs`, `Symbols`, `PipelineConfig` | `PlacementModel`, `PlacementScratch`, `RowDemand`, `Diagnostics`, `PassStats` |
//! | `grow_rows` (exclusive) | `RowDemand`, `FunctionTables` (row counts) | new rows |
//! | [`apply_placement`] | `PlacementScratch`, `PipelineConfig` | all IR columns (with splitting), the placement columns ([`super::columns`]), `ValidAnalyses`, `PassStats` |
//!
//! [`place_blocks`] builds the problem with [`super::ir::build_problem_in`] from the shared
//! `Cfg` and `Sccs` into the dense scratch kept in [`PlacementScratch`] (reused between
//! functions), solves it, and reports an error diagnostic naming the blocks when no
//! placement exists. With `PassOptions::placement_split` it asks for the rows the split
//! creates ([`super::split::blocks_needed`]). [`apply_placement`] then, with splitting,
//! rewrites the IR ([`super::split::apply`]: cut at target seams, fuse jump chains) and
//! invalidates the analyses if it changed anything; in every case it writes the per-block
//! columns (target, domain, island, piece counts), and a placed SSA function enters
//! [`Phase::Placed`].
//!
//! The model is the built-in one unless `PassOptions::placement_model` holds a model file's
//! text ([`PlacementModel`] parses it once and keeps it while the text is the same).
//!
//! Requires: `cfg`, `sccs` (the pass table's `reads`), a verified function. Establishes: the
//! placement columns for every block row in use.
//!
//! Complexity: that of the problem construction plus the solver (see [`super::solve`]).

use super::columns::{slot_rows, write_rows, BlockPlacement, PlacementColumnsMut};
use super::ir::{build_problem_in, fuse, BuildScratch, IrProblem};
use super::islands::{build_islands, IslandGraph};
use super::solve::{Placement, PlacementError, SolveOptions, Solver};
use super::split;
use super::targets::{ModelError, TargetModel};
use crate::analysis::{Cfg, Sccs, ValidAnalyses};
use crate::ir::{IrMut, IrRead, IrView, PerSlot, Phase, RowDemand, SymbolTable, Symbols};
use crate::stage::{
    grow_rows, Analyses, Diagnostic, Diagnostics, PassStats, PipelineConfig, Severity, Stage,
};
use bevy_ecs::prelude::*;
use std::sync::Arc;

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

/// Per-block results of a solved problem (`num_blocks` rows): the target and island of the
/// block's first piece, the union of its pieces' domains, and its piece counts.
fn block_rows(
    num_blocks: usize,
    ir: &IrProblem,
    placement: &Placement,
    fused: &[u32],
    island_of: &[u32],
    rows: &mut Vec<BlockPlacement>,
) {
    rows.clear();
    rows.resize(num_blocks, BlockPlacement::default());
    for (i, pc) in ir.pieces.iter().enumerate() {
        let b = &mut rows[pc.block as usize];
        if b.pieces.pieces == 0 {
            b.target = placement.assignment[i];
            b.island = island_of[i];
        }
        b.pieces.pieces += 1;
        b.pieces.fused += (fused[i] == i as u32) as u32;
        b.domain |= placement.domains[i].0;
    }
}

/// Places one function outside the World (see the module doc).
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
    place_function_with_summaries(f, symbols, model, opts, solver, &Default::default())
}

/// [`place_function`] with callees' return-size summaries (see
/// [`super::ir::build_problem_with_summaries`]); `strata place` passes the module's.
///
/// # Errors
/// [`PlacementError`] when no placement exists (or the search gave up).
pub fn place_function_with_summaries<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    opts: &SolveOptions,
    solver: &mut Solver,
    summaries: &super::sizes::SizeSummaries,
) -> Result<FunctionPlacement, PlacementError> {
    let ir = super::ir::build_problem_with_summaries(f, symbols, model, summaries);
    let placement = solver.solve(&ir.problem, opts)?;
    let fused = fuse(f, &ir, &placement.assignment);
    let islands = build_islands(
        &ir.problem,
        &placement.assignment,
        &ir.paths,
        &ir.path_origin,
    );
    let mut blocks = Vec::new();
    block_rows(
        f.num_blocks(),
        &ir,
        &placement,
        &fused,
        &islands.island_of,
        &mut blocks,
    );
    Ok(FunctionPlacement {
        ir,
        placement,
        fused,
        islands,
        blocks,
    })
}

/// The target model the pass uses, and the model-file text it was parsed from (`None`: the
/// built-in model).
#[derive(Resource, Clone, Debug)]
pub struct PlacementModel {
    /// The model.
    pub model: Arc<TargetModel>,
    /// The text it came from (compared by pointer with `PassOptions::placement_model`).
    pub source: Option<Arc<str>>,
}

impl Default for PlacementModel {
    fn default() -> Self {
        PlacementModel {
            model: Arc::new(TargetModel::default_model()),
            source: None,
        }
    }
}

impl PlacementModel {
    /// Makes the model the one `source` describes (parsing only when the text changed).
    ///
    /// # Errors
    /// The model text's error (with its line and column for a TOML error).
    pub fn select(&mut self, source: Option<&Arc<str>>) -> Result<(), ModelError> {
        let same = match (&self.source, source) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || **a == **b,
            _ => false,
        };
        if same {
            return Ok(());
        }
        self.model = Arc::new(match source {
            Some(text) => TargetModel::parse(text)?,
            None => TargetModel::default_model(),
        });
        self.source = source.cloned();
        Ok(())
    }
}

/// The pass's working memory, kept between functions: the solver's scratch, the dense
/// scratch of problem construction, the problem itself, and the current function's solution
/// and per-block rows (between [`place_blocks`] and [`apply_placement`]).
#[derive(Default, Debug)]
pub struct PlacementScratch {
    /// The solver.
    pub solver: Solver,
    /// Problem-construction scratch.
    pub build: BuildScratch,
    /// The current function's problem.
    pub ir: IrProblem,
    /// The current function's solution, if one was found.
    pub solution: Option<(Placement, IslandGraph)>,
    /// The current function's per-block rows.
    pub rows: Vec<BlockPlacement>,
}

/// Builds and solves each live function's placement problem; see the module doc.
#[allow(clippy::too_many_arguments)]
pub fn place_blocks(
    ir: IrView,
    cfg: Res<PerSlot<Cfg>>,
    sccs: Res<PerSlot<Sccs>>,
    symbols: Res<Symbols>,
    config: Res<PipelineConfig>,
    mut model: ResMut<PlacementModel>,
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut demand: ResMut<PerSlot<RowDemand>>,
    mut diagnostics: ResMut<PerSlot<Diagnostics>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    let selected = model.select(config.options.placement_model.as_ref());
    for (s, f) in ir.bodies() {
        let scratch = &mut scratch[s];
        scratch.solution = None;
        scratch.rows.clear();
        if let Err(e) = &selected {
            diagnostics[s].0.push(Diagnostic {
                severity: Severity::Error,
                pass: "placement",
                message: e.to_string(),
            });
            continue;
        }
        build_problem_in(
            &f,
            &cfg[s],
            &sccs[s],
            Some(&symbols.0),
            &model.model,
            &mut scratch.build,
            &mut scratch.ir,
        );
        let stats = &mut stats[s];
        match scratch
            .solver
            .solve(&scratch.ir.problem, &SolveOptions::default())
        {
            Ok(placement) => {
                let fused = fuse(&f, &scratch.ir, &placement.assignment);
                let islands = build_islands(
                    &scratch.ir.problem,
                    &placement.assignment,
                    &scratch.ir.paths,
                    &scratch.ir.path_origin,
                );
                block_rows(
                    f.num_blocks(),
                    &scratch.ir,
                    &placement,
                    &fused,
                    &islands.island_of,
                    &mut scratch.rows,
                );
                stats.add("placement", "pieces", scratch.ir.pieces.len() as u64);
                stats.add("placement", "islands", islands.islands.len() as u64);
                stats.add("placement", "cost", placement.cost);
                stats.add("placement", "backtracks", placement.stats.backtracks);
                if config.options.placement_split {
                    demand[s].blocks += split::blocks_needed(&scratch.ir, &placement);
                }
                scratch.solution = Some((placement, islands));
            }
            Err(e) => diagnostics[s].0.push(Diagnostic {
                severity: Severity::Error,
                pass: "placement",
                message: format!("function @{}: {e}", f.name()),
            }),
        }
    }
}

/// Applies splitting and fusion (with `PassOptions::placement_split`) and writes the
/// placement columns of each live function; see the module doc.
pub fn apply_placement(
    mut ir: IrMut,
    mut columns: Query<PlacementColumnsMut>,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    let mut placement_columns = slot_rows(&mut columns);
    for (s, mut body) in ir.bodies() {
        let scratch = &mut scratch[s];
        let n = body.counts.blocks;
        if let (true, Some((placement, islands))) =
            (config.options.placement_split, scratch.solution.as_ref())
        {
            let done = split::apply(
                &mut body,
                &scratch.ir,
                placement,
                &islands.island_of,
                &mut scratch.rows,
            );
            if done.changed() {
                valid[s].0 = Analyses::empty();
            }
            let stats = &mut stats[s];
            stats.add("placement", "blocks_split", done.blocks_split);
            stats.add("placement", "blocks_created", done.blocks_created);
            stats.add("placement", "blocks_fused", done.blocks_fused);
        }
        // A placed SSA function is in the Placed phase (a memory-form one keeps its phase:
        // Placed is an SSA phase).
        if scratch.solution.is_some() && body.info.phase.is_ssa() {
            body.info.phase = Phase::Placed;
        }
        // Every row in use gets a value (unplaced when there is no solution).
        let rows_in_use = body.counts.blocks.max(n);
        scratch.rows.resize(rows_in_use, BlockPlacement::default());
        write_rows(placement_columns[s].take(), &scratch.rows);
    }
}

/// Inserts the pass's resources and registers the placement columns (every block entity
/// carries them; see [`super::columns`]).
pub fn init_resources(world: &mut World) {
    world.init_resource::<PlacementModel>();
    world.init_resource::<PerSlot<PlacementScratch>>();
    world.register_component::<super::columns::BlockTarget>();
    world.register_component::<super::columns::BlockDomain>();
    world.register_component::<super::columns::BlockIsland>();
    world.register_component::<super::columns::BlockPieces>();
}

/// Adds the pass's systems to the Placement stage.
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(
        (place_blocks, grow_rows, apply_placement)
            .chain()
            .in_set(Stage::Placement),
    );
}

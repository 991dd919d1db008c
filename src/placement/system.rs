//! The `placement` pass: the adapter from a function to the solver, and its systems.
//!
//! What: [`place_function`] builds the problem of a function under a target model
//! ([`super::build::build_problem`]), solves it, fuses the result ([`super::fusion::fuse`]) and
//! builds the islands ([`super::islands::build_islands`]), giving per-block results
//! ([`BlockPlacement`]); `strata place` and the tools use it. In the pipeline the same
//! phases are a chain of systems in the Placement stage, each visiting every live function
//! slot and working on the slot's [`PlacementScratch`] (the problem, the solver's
//! [`SolveData`]: constraints, per-piece domains, condensation, placement; the islands and
//! rows), kept between functions so that a warm slot allocates nothing:
//!
//! | system | reads | writes |
//! |---|---|---|
//! | [`build_problem`] | all columns (through `IrView`), `Cfg`, `Sccs`, `Symbols`, `PipelineConfig` | `PlacementModel`, the problem without its matrices (pieces, block costs, edges; the whole problem and its constraints only where a size could forbid a transition), `Diagnostics` |
//! | [`enforce_arc_consistency`] | the constraints, or the block costs, edges and model's allowed transitions | per-piece domains (AC-3), `Diagnostics` |
//! | [`eliminate_exactly`] | problem, domains (the function, `Cfg`, `Symbols`, `PlacementModel` when it needs the sizes; `DomTree` where `ValidAnalyses` says it is still valid) | the placement where [`super::settle`] or exact elimination answers (most functions), with no condensation; the matrices and constraints of what it does not settle |
//! | [`condense_regions`] | the constraints (of the functions elimination declined) | the condensation (region of each piece, members; boundaries when the search runs) |
//! | [`solve_regions`] | problem, constraints, domains, condensation | the placement (the search), `RowDemand`, `PassStats`, `Diagnostics` |
//! | `grow_rows` (exclusive) | `RowDemand`, `FunctionTables` (row counts) | new rows |
//! | [`apply_placement`] | the placement, `PipelineConfig` (`DomTree` where `ValidAnalyses` says it is still valid, for the islands' dominators) | fusion groups, islands, rows; all IR columns (with splitting), the placement columns ([`super::columns`]), `Phase`, `ValidAnalyses`, `PassStats` |
//!
//! Every system also records its wall time in `SystemTimes` when the config times passes
//! (`strata compile --time-passes` prints them under `placement`). A failing phase reports
//! an error diagnostic naming the blocks and leaves the slot's [`Progress`] short, so the
//! later systems skip that function. With `PassOptions::placement_split`,
//! [`solve_regions`] asks for the rows the split creates ([`super::split::blocks_needed`])
//! and [`apply_placement`] rewrites the IR ([`super::split::apply`]: cut at target seams,
//! fuse jump chains), invalidating the analyses if it changed anything; in every case it
//! writes the per-block columns (target, domain, island, piece counts), and a placed SSA
//! function enters [`Phase::Placed`].
//!
//! The model is the built-in one unless `PassOptions::placement_model` holds a model file's
//! text ([`PlacementModel`] parses it once and keeps it while the text is the same).
//!
//! Requires: `cfg`, `sccs` (the pass table's `reads`), a verified function. Establishes: the
//! placement columns for every block row in use.
//!
//! Complexity: that of the problem construction plus the solver (see [`super::solve`]).

use super::build::{
    build_pieces_in, complete_edges_in, complete_problem_in, fuse, BuildScratch, IrProblem,
};
use super::columns::{slot_rows, write_rows, BlockPlacement, PlacementColumnsMut};
use super::islands::{build_piece_islands, IslandGraph};
use super::problem::Edge;
use super::settle::{
    arc_consistency, block_costs, exact_edge, settle_exact, settle_lower, SettleScratch, Settled,
};
use super::solve::{Placement, PlacementError, SolveData, SolveOptions, Solver};
use super::split;
use super::targets::{ModelError, TargetModel};
use crate::analysis::{Cfg, DomTree, Sccs, ValidAnalyses};
use crate::ir::{IrMut, IrRead, IrView, PerSlot, Phase, RowDemand, SymbolTable, Symbols};
use crate::stage::{
    grow_rows, Analyses, Diagnostic, Diagnostics, PassStats, PipelineConfig, Severity, Stage,
    SystemTimes,
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
/// [`super::build::build_problem_with_summaries`]); `strata place` passes the module's.
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
    let ir = super::build::build_problem_with_summaries(f, symbols, model, summaries);
    let placement = solver.solve(&ir.problem, opts)?;
    let fused = fuse(f, &ir, &placement.assignment);
    let islands = build_piece_islands(
        &ir.problem,
        &ir.pieces,
        (&placement.assignment, &ir.paths, &ir.path_origin),
        None,
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

/// The pass's data for the function of one slot, kept between functions (every table is
/// cleared and refilled, so a warm slot allocates only for a function larger than every
/// earlier one): the problem, the solver's data (constraints, per-piece domains,
/// condensation, placement), the islands and the per-block rows. Each system of the chain
/// fills its part; `placed` says how far the current function got.
#[derive(Default, Debug)]
pub struct PlacementScratch {
    /// The solver's scratch (AC-3 queue, Tarjan, elimination tables, search state).
    pub solver: Solver,
    /// Problem-construction scratch.
    pub build: BuildScratch,
    /// The current function's problem.
    pub ir: IrProblem,
    /// Its constraints, per-piece domains, condensation and placement.
    pub data: SolveData,
    /// The current function's islands (with `placed`).
    pub islands: IslandGraph,
    /// Leader of each piece's fusion group (with `placed`).
    pub fused: Vec<u32>,
    /// The current function's per-block rows.
    pub rows: Vec<BlockPlacement>,
    /// How far the current function got.
    pub progress: Progress,
    /// [`eliminate_exactly`] declined the current function (too wide or infeasible): the
    /// search answers it.
    pub declined: bool,
    /// The problem has its edge matrices and the solver's constraints (else only pieces,
    /// block costs and edges: [`super::settle`] may place it without them).
    pub complete: bool,
    /// AC-3 on the edges' support and the lower-bound test ([`super::settle`]).
    pub settle: SettleScratch,
}

/// How far a slot's function got through the placement systems (each system works on the
/// slots its predecessor left in the state it expects; a failure stops the function there).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Progress {
    /// Not built (or failed: an error diagnostic says why).
    #[default]
    None,
    /// The problem and its constraints are built.
    Built,
    /// The domains are arc consistent (and, after [`eliminate_exactly`], elimination
    /// declined).
    Consistent,
    /// The regions are known.
    Condensed,
    /// The placement is solved (by elimination or by the search).
    Placed,
}

/// Adds the transfer costs to the slot's problem ([`complete_problem_in`]), validates it
/// and builds its constraints; false (the function failed, reported) if it is invalid.
fn complete<F: IrRead>(
    scratch: &mut PlacementScratch,
    f: &F,
    cfg: &Cfg,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    diagnostics: &mut Diagnostics,
) -> bool {
    complete_problem_in(
        f,
        cfg,
        symbols,
        model,
        &mut scratch.build,
        &mut scratch.ir,
        None,
    );
    if let Err(e) = scratch.ir.problem.validate() {
        fail(scratch, diagnostics, f.name(), PlacementError::from(e));
        return false;
    }
    scratch.data.constraints.rebuild(&scratch.ir.problem);
    scratch.complete = true;
    true
}

/// Reports `e` for the function `f` of slot `s` and stops the function.
fn fail(
    scratch: &mut PlacementScratch,
    diagnostics: &mut Diagnostics,
    name: &str,
    e: impl std::fmt::Display,
) {
    scratch.progress = Progress::None;
    diagnostics.0.push(Diagnostic {
        severity: Severity::Error,
        pass: "placement",
        message: format!("function @{name}: {e}"),
    });
}

/// `e` with its blocks named after their pieces (the pipeline builds problems unnamed).
fn named(mut e: PlacementError, ir: &mut IrProblem) -> PlacementError {
    ir.name_pieces();
    e.name_blocks(&ir.problem);
    e
}

/// System 1, building the problem: reads every column (through `IrView`), `Cfg`, `Sccs`,
/// `Symbols`, `PipelineConfig`; writes `PlacementModel` (selected once), each slot's
/// problem (`PlacementScratch::ir`: eligibility, pieces, block costs, edges; see
/// [`super::build::build_pieces_in`]), and only where a size could forbid a transition
/// (never under the built-in model) its sizes and edge matrices and its constraints
/// (`SolveData::constraints`; else [`eliminate_exactly`] adds them when it needs them),
/// `Diagnostics` (a bad model file), `SystemTimes`.
#[allow(clippy::too_many_arguments)]
pub fn build_problem(
    ir: IrView,
    cfg: Res<PerSlot<Cfg>>,
    sccs: Res<PerSlot<Sccs>>,
    symbols: Res<Symbols>,
    config: Res<PipelineConfig>,
    mut model: ResMut<PlacementModel>,
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut diagnostics: ResMut<PerSlot<Diagnostics>>,
    mut times: ResMut<SystemTimes>,
) {
    let clock = SystemTimes::start(&config);
    let selected = model.select(config.options.placement_model.as_ref());
    for (s, f) in ir.bodies() {
        let scratch = &mut scratch[s];
        scratch.progress = Progress::None;
        scratch.declined = false;
        scratch.rows.clear();
        if let Err(e) = &selected {
            diagnostics[s].0.push(Diagnostic {
                severity: Severity::Error,
                pass: "placement",
                message: e.to_string(),
            });
            continue;
        }
        build_pieces_in(
            &f,
            &cfg[s],
            &sccs[s],
            Some(&symbols.0),
            &model.model,
            &mut scratch.build,
            &mut scratch.ir,
        );
        scratch.complete = false;
        if !scratch.build.sizes_cannot_forbid {
            let symbols = Some(&*symbols.0);
            if !complete(
                scratch,
                &f,
                &cfg[s],
                symbols,
                &model.model,
                &mut diagnostics[s],
            ) {
                continue;
            }
        }
        scratch.progress = Progress::Built;
    }
    times.record(Stage::Placement, "build_problem", clock);
}

/// System 2, `enforce_arc_consistency`: reads each built slot's constraints, or where the
/// problem has no matrices yet its block costs, edges and the model's allowed transitions
/// (the same support: [`super::settle::arc_consistency`]); writes its per-piece domains
/// (`SolveData::domains`: the supported targets pruned by AC-3,
/// [`Solver::enforce_arc_consistency`]), `Diagnostics` (pieces left without a target),
/// `SystemTimes`.
pub fn enforce_arc_consistency(
    ir: IrView,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut diagnostics: ResMut<PerSlot<Diagnostics>>,
    mut times: ResMut<SystemTimes>,
) {
    let clock = SystemTimes::start(&config);
    for (s, f) in ir.bodies() {
        let scratch = &mut scratch[s];
        if scratch.progress != Progress::Built {
            continue;
        }
        let PlacementScratch {
            solver,
            ir,
            data,
            build,
            settle,
            complete,
            ..
        } = scratch;
        let consistent = if *complete {
            solver.enforce_arc_consistency(&ir.problem, &data.constraints, &mut data.domains)
        } else {
            arc_consistency(&ir.problem, &build.overhead, settle, &mut data.domains).map_err(
                |empty| PlacementError::EmptyDomain(super::solve::names(&ir.problem, &empty)),
            )
        };
        match consistent {
            Ok(()) => scratch.progress = Progress::Consistent,
            Err(e) => {
                let e = named(e, ir);
                fail(scratch, &mut diagnostics[s], f.name(), e)
            }
        }
    }
    times.record(Stage::Placement, "enforce_arc_consistency", clock);
}

/// System 3, `eliminate_exactly`: reads each consistent slot's problem, constraints and
/// domains; writes its placement where the lower-bound test settles it before any size is
/// known ([`super::settle::settle_lower`], then with the sizes
/// [`super::settle::settle_exact`], which eliminates tied and large components alone;
/// its sizes' liveness tracks only the values of the dominators of the edges it prices
/// when `ValidAnalyses` says the slot's `DomTree` is valid),
/// else (after adding the transfer costs and the constraints, reading the function,
/// `Cfg`, `Symbols` and `PlacementModel` for them) where exact variable elimination answers ([`Solver::eliminate_exactly`]; the slot is
/// then placed and skips the condensation), else marks it declined for the search;
/// `Diagnostics`, `SystemTimes`.
#[allow(clippy::too_many_arguments)]
pub fn eliminate_exactly(
    ir: IrView,
    cfg: Res<PerSlot<Cfg>>,
    (dom_tree, valid): (Res<PerSlot<DomTree>>, Res<PerSlot<ValidAnalyses>>),
    symbols: Res<Symbols>,
    model: Res<PlacementModel>,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut diagnostics: ResMut<PerSlot<Diagnostics>>,
    mut times: ResMut<SystemTimes>,
) {
    let clock = SystemTimes::start(&config);
    let opts = SolveOptions::default();
    for (s, f) in ir.bodies() {
        let scratch = &mut scratch[s];
        if scratch.progress != Progress::Consistent {
            continue;
        }
        if !scratch.complete {
            let PlacementScratch {
                build,
                ir,
                data,
                settle,
                ..
            } = scratch;
            let (p, dom, out) = (&ir.problem, &data.domains, &mut data.placement);
            let budget = opts.exact_budget;
            let lower = settle_lower(p, dom, &build.overhead, budget, settle, &mut out.assignment);
            if lower == Settled::All {
                out.cost = block_costs(p, &settle.reachable, &out.assignment);
                settled(data);
                scratch.progress = Progress::Placed;
                continue;
            }
            let symbols = Some(&*symbols.0);
            let model = &model.model;
            if lower == Settled::Pending {
                // Only the edges whose size can matter to the pending components and the
                // cost get their matrices (and liveness tracks only their values).
                settle.mark_pending(p.num_blocks());
                let (settle_now, assigned) = (&*settle, &out.assignment);
                let exact = |e: &Edge| exact_edge(settle_now, dom, assigned, e);
                // With the dominator tree, liveness tracks only the dominators' values.
                let tree = valid_dom_tree(&dom_tree, &valid, s);
                complete_edges_in(&f, (&cfg[s], tree), symbols, model, build, ir, exact);
                let (p, out) = (&ir.problem, &mut data.placement);
                if settle_exact(p, dom, budget, settle, &mut out.assignment) {
                    out.cost = super::cost::objective_with(p, &settle.reachable, &out.assignment)
                        .expect("a settled optimum satisfies every constraint");
                    settled(data);
                    scratch.progress = Progress::Placed;
                    continue;
                }
            }
            // The solver answers: every edge whose cost the domains leave open.
            let dom = &data.domains;
            complete_problem_in(&f, &cfg[s], symbols, model, build, ir, Some(dom));
            if let Err(e) = scratch.ir.problem.validate() {
                fail(
                    scratch,
                    &mut diagnostics[s],
                    f.name(),
                    PlacementError::from(e),
                );
                continue;
            }
            scratch.data.constraints.rebuild(&scratch.ir.problem);
            scratch.complete = true;
        }
        let PlacementScratch {
            solver, ir, data, ..
        } = scratch;
        let SolveData {
            constraints,
            domains,
            placement,
            ..
        } = data;
        if solver.eliminate_exactly(&ir.problem, constraints, domains, &opts, placement) {
            scratch.progress = Progress::Placed;
        } else {
            scratch.declined = true;
        }
    }
    times.record(Stage::Placement, "eliminate_exactly", clock);
}

/// Records a placement [`super::settle`] found (assignment and cost written) as exact
/// elimination would: the AC-3 domains, no regions, eliminated.
fn settled(data: &mut SolveData) {
    let out = &mut data.placement;
    out.domains.clone_from(&data.domains);
    out.region_of.clear();
    out.stats = super::solve::SolveStats {
        csp_exact: true,
        eliminated: true,
        ..Default::default()
    };
}

/// System 4, `condense_regions`: reads each slot's constraints that is still consistent
/// (elimination declined it, or did not run: then it first adds the transfer costs and
/// the constraints, reading the function, `Cfg`, `Symbols` and `PlacementModel`); writes its
/// condensation (`SolveData::condensation`: the region of each piece, the regions' members;
/// `solve_regions` adds the boundary edges when it searches; [`Solver::condense_regions`]), `SystemTimes`.
#[allow(clippy::too_many_arguments)]
pub fn condense_regions(
    ir: IrView,
    cfg: Res<PerSlot<Cfg>>,
    symbols: Res<Symbols>,
    model: Res<PlacementModel>,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut diagnostics: ResMut<PerSlot<Diagnostics>>,
    mut times: ResMut<SystemTimes>,
) {
    let clock = SystemTimes::start(&config);
    for (s, f) in ir.bodies() {
        let scratch = &mut scratch[s];
        if scratch.progress != Progress::Consistent {
            continue;
        }
        // Run without `eliminate_exactly` (which completes every problem it declines).
        let symbols = Some(&*symbols.0);
        if !scratch.complete
            && !complete(
                scratch,
                &f,
                &cfg[s],
                symbols,
                &model.model,
                &mut diagnostics[s],
            )
        {
            continue;
        }
        let PlacementScratch { solver, data, .. } = scratch;
        solver.condense_regions(&data.constraints, &mut data.condensation);
        scratch.progress = Progress::Condensed;
    }
    times.record(Stage::Placement, "condense_regions", clock);
}

/// System 5, `solve_regions`: reads each condensed slot's problem, constraints, domains
/// and condensation; writes its placement (`SolveData::placement`: the search when
/// [`eliminate_exactly`] declined, [`Solver::search_regions`], else elimination first,
/// [`Solver::solve_regions`]); for every placed slot `RowDemand` (the rows splitting will
/// create, with `PassOptions::placement_split`) and `PassStats`; `Diagnostics` (no
/// placement exists), `SystemTimes`.
#[allow(clippy::too_many_arguments)]
pub fn solve_regions(
    ir: IrView,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut demand: ResMut<PerSlot<RowDemand>>,
    mut diagnostics: ResMut<PerSlot<Diagnostics>>,
    mut stats: ResMut<PerSlot<PassStats>>,
    mut times: ResMut<SystemTimes>,
) {
    let clock = SystemTimes::start(&config);
    let opts = SolveOptions::default();
    for (s, f) in ir.bodies() {
        let scratch = &mut scratch[s];
        if scratch.progress == Progress::Condensed {
            let PlacementScratch {
                solver,
                ir,
                data,
                declined,
                ..
            } = scratch;
            let SolveData {
                constraints,
                domains,
                condensation,
                placement,
            } = data;
            let (p, c) = (&ir.problem, &*constraints);
            let solved = if *declined {
                solver.search_regions(p, c, domains, condensation, &opts, placement)
            } else {
                solver.solve_regions(p, c, domains, condensation, &opts, placement)
            };
            match solved {
                Ok(()) => scratch.progress = Progress::Placed,
                Err(e) => {
                    let e = named(e, ir);
                    fail(scratch, &mut diagnostics[s], f.name(), e);
                    continue;
                }
            }
        }
        if scratch.progress != Progress::Placed {
            continue;
        }
        let (ir, placement) = (&scratch.ir, &scratch.data.placement);
        let stats = &mut stats[s];
        stats.add("placement", "pieces", ir.pieces.len() as u64);
        // The counter's place in the report; `apply_placement` adds the islands.
        stats.add("placement", "islands", 0);
        stats.add("placement", "cost", placement.cost);
        stats.add("placement", "backtracks", placement.stats.backtracks);
        if config.options.placement_split {
            demand[s].blocks += split::blocks_needed(ir, placement);
        }
    }
    times.record(Stage::Placement, "solve_regions", clock);
}

/// Slot `s`'s dominator tree where `ValidAnalyses` says it is still valid: that of the CFG
/// placement builds its problem on (mem2reg's, when SCCP left the CFG alone).
fn valid_dom_tree<'a>(
    dom_tree: &'a PerSlot<DomTree>,
    valid: &PerSlot<ValidAnalyses>,
    s: usize,
) -> Option<&'a DomTree> {
    valid[s].0.contains(Analyses::DOMTREE).then(|| &dom_tree[s])
}

/// System 7 (after `grow_rows`), `apply_placement`: reads each slot's placement; writes its
/// fusion groups ([`super::fusion::fuse`]), islands
/// ([`super::islands::build_islands`], dominators from the `DomTree` where `ValidAnalyses`
/// says it is still valid) and per-block rows, with
/// `PassOptions::placement_split` all IR columns ([`super::split::apply`]: cut at target
/// seams, fuse jump chains; the analyses are invalidated if it changed anything), the
/// placement columns of every block row in use ([`super::columns`]; unplaced when there is
/// no solution), the function's phase, `ValidAnalyses`, `PassStats`, `SystemTimes`.
#[allow(clippy::too_many_arguments)]
pub fn apply_placement(
    mut ir: IrMut,
    mut columns: Query<PlacementColumnsMut>,
    (config, dom_tree): (Res<PipelineConfig>, Res<PerSlot<DomTree>>),
    mut scratch: ResMut<PerSlot<PlacementScratch>>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
    mut stats: ResMut<PerSlot<PassStats>>,
    mut times: ResMut<SystemTimes>,
) {
    let clock = SystemTimes::start(&config);
    let mut placement_columns = slot_rows(&mut columns);
    for (s, mut body) in ir.bodies() {
        let scratch = &mut scratch[s];
        let n = body.counts.blocks;
        let placed = scratch.progress == Progress::Placed;
        if placed {
            let PlacementScratch {
                ir,
                data,
                islands,
                fused,
                rows,
                ..
            } = scratch;
            let placement = &data.placement;
            *fused = fuse(&body, ir, &placement.assignment);
            // With the dominator tree, the islands' dominators are read off it.
            let tree = valid_dom_tree(&dom_tree, &valid, s);
            *islands = build_piece_islands(
                &ir.problem,
                &ir.pieces,
                (&placement.assignment, &ir.paths, &ir.path_origin),
                tree,
            );
            block_rows(n, ir, placement, fused, &islands.island_of, rows);
            stats[s].add("placement", "islands", islands.islands.len() as u64);
            if config.options.placement_split {
                let done = split::apply(&mut body, ir, placement, &islands.island_of, rows);
                if done.changed() {
                    valid[s].0 = Analyses::empty();
                }
                let stats = &mut stats[s];
                stats.add("placement", "blocks_split", done.blocks_split);
                stats.add("placement", "blocks_created", done.blocks_created);
                stats.add("placement", "blocks_fused", done.blocks_fused);
            }
        }
        // A placed SSA function is in the Placed phase (a memory-form one keeps its phase:
        // Placed is an SSA phase).
        if placed && body.info.phase.is_ssa() {
            body.info.phase = Phase::Placed;
        }
        // Every row in use gets a value (unplaced when there is no solution).
        let rows_in_use = body.counts.blocks.max(n);
        scratch.rows.resize(rows_in_use, BlockPlacement::default());
        write_rows(placement_columns[s].take(), &scratch.rows);
    }
    times.record(Stage::Placement, "apply_placement", clock);
}

/// Inserts the pass's resources and registers the placement columns (every block entity
/// carries them; see [`super::columns`]).
pub fn init_resources(world: &mut World) {
    world.init_resource::<PlacementModel>();
    world.init_resource::<PerSlot<PlacementScratch>>();
    world.init_resource::<SystemTimes>();
    world.register_component::<super::columns::BlockTarget>();
    world.register_component::<super::columns::BlockDomain>();
    world.register_component::<super::columns::BlockIsland>();
    world.register_component::<super::columns::BlockPieces>();
}

/// Adds the pass's systems to the Placement stage, in the order of the module doc.
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(
        (
            build_problem,
            enforce_arc_consistency,
            eliminate_exactly,
            condense_regions,
            solve_regions,
            grow_rows,
            apply_placement,
        )
            .chain()
            .in_set(Stage::Placement),
    );
}

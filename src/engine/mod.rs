//! The engine: one World and one Schedule per worker, the stage sets, per-stage timing and
//! the reset between functions.
//!
//! Lifecycle (DESIGN.md 2): [`Engine::new`] builds the World, inserts every resource and
//! builds the schedule for the stages its config runs (100-240 µs; a later config with other
//! stages gets its own schedule, built once and cached, so a stage the config does not run
//! costs nothing per function); it then runs the schedule once on an empty function so that
//! every lazily created resource exists. [`Engine::run`] loads a function into the
//! World's column tables (pooled rows overwritten in place; rows are spawned only beyond the
//! largest function so far: [`world::FunctionLoader`]), runs the schedule with the
//! single-threaded executor, and takes the function back out. Between load and take the
//! function exists only as component columns: every pass is a system on those columns.
//! Batch drivers use [`Engine::run_batch`] instead: up to [`Engine::batch_size`] functions
//! are copied into the pooled rows of their own slots (a World holds [`SLOTS`] functions, each in its own tables: see
//! [`crate::ir::access`]), the schedule runs once for all of them (every system visits each
//! live slot), and the results are copied out into functions the caller reuses, so that
//! once warm neither side allocates or frees per function and the schedule's fixed cost
//! per run (system runs, resource fetches) is spread over the batch. A slot whose function
//! has an error reported is dropped by the gate step that opens each later stage, so the
//! other functions of the batch go on.
//! Engines are per thread (`thread_local!` in batch drivers); a schedule never runs on
//! another World.
//!
//! The stage order and the passes come from one table each ([`STAGES`], [`PASSES`] in
//! [`crate::stage`]); [`build_schedule`] derives the chain from them. Each stage is a
//! [`Stage`] system set between [`StageStep::Begin`] (timer start; the analyses its enabled
//! passes read, computed if stale) and [`StageStep::End`] (verify-after, dump, dense-table
//! check in debug builds, timer lap). Ambiguity detection is an error, so every ordering
//! is explicit and the output is deterministic.
//!
//! # Components (per entity; one table per kind and slot, row = dense index)
//!
//! | kind | component | bytes | written by | read by |
//! |---|---|---|---|---|
//! | instruction | `InstOp` (operation, operands) | 64 | load; `rename_allocas`, `rewrite_sccp`, `eliminate_phis`, `convert_phis_to_block_params` | every pass, `compute_cfg` (asm-goto labels), verify, dump |
//! | instruction | `InstResults` | 24 | load; `rename_allocas` (asm outputs, phis), `eliminate_phis` (copies) | verify, mem2reg, SCCP, phi-elim, block-params, dump |
//! | instruction | `InstBlock` | 4 | load; row creation (`Body::push_inst`) | verify |
//! | instruction | `InstDead` | 1 | load; every pass that unlists an instruction | `grow_rows` (new rows), passes' "still listed" tests |
//! | block | `BlockInsts` (order) | 24 | load; mem2reg, SCCP, phi-elim, block-params | every pass, `compute_cfg`, verify, dump |
//! | block | `BlockParams` | 24 | load; `convert_phis_to_block_params`, `rewrite_sccp` (removed blocks) | verify, dump |
//! | block | `BlockTerm` | 80 | load; `rename_allocas` (operands), `rewrite_sccp`, `eliminate_phis`, `convert_phis_to_block_params` (retargeted edges, arguments) | `compute_cfg`, verify, every pass, dump |
//! | block | `BlockDead` | 1 | load; `rewrite_sccp`, row creation | `compute_cfg`, every pass |
//! | both | `SlotOf` (the row's slot, the same in every row of a table) | 1 | load, row creation | every system's column access (which chunk is which slot) |
//! | both | `SlotMark<S>` (zero-sized: one archetype per kind and slot) | 0 | load, row creation | nobody |
//! | block | `ImmediateDominator` (analysis result) | 4 | the dominator-tree refresh (`AnalysesMut::refresh`, `compute_idoms`) | the frontier computation |
//! | block | `BlockTarget` (placement: target of the block) | 1 | `apply_placement` | tests, tools (`placement::columns::placement_of`) |
//! | block | `BlockDomain` (placement: union of the pieces' AC-3 domains) | 8 | `apply_placement` | tests, tools |
//! | block | `BlockIsland` (placement: island of the block) | 4 | `apply_placement` | tests, tools |
//! | block | `BlockPieces` (placement: pieces after splitting and after fusion) | 8 | `apply_placement` | tests, tools |
//!
//! Per-function tables that are not per entity are resources with one entry per slot:
//! `FunctionTables` (per slot the value table, the `ConstPool`, `FunctionInfo` with name,
//! signature, parameters and phase, and `RowCounts`, plus the mask of live slots: one
//! resource, since systems reach them together through `IrMut`/`IrView` and each fetch
//! costs per system run), and `PerSlot<T>` for `RowDemand`, the analyses, the plans between
//! a pass's systems (`Mem2RegScratch`, `SccpSolution`, `PlacementScratch`), `Diagnostics`
//! and `PassStats`. Pure scratch (`PhiElimScratch`, `SccpScratch`, the verifier's tables)
//! is one per World, cleared per function. Per-block
//! results are columns: `ImmediateDominator`, and placement's four (spawned with every block
//! row, registered by `init_world`, valid once the Placement stage ran on the function); the
//! analyses' own tables are dense resources keyed by block index (`Cfg`, `DomTree`,
//! `DominanceFrontiers`, `Sccs`), valid as `ValidAnalyses` says.
//!
//! # Systems
//!
//! | stage | system | reads | writes |
//! |---|---|---|---|
//! | Gate of every running stage after the first | `gate_failed`: slots with an error reported stop being live | `Diagnostics` | `FunctionTables` (live mask) |
//! | Begin of a stage | `start_timer` (when timed, first running stage only: later stages' clocks start at the previous End's lap); `refresh_analyses` (left out where the analyses are valid for sure), computing per live slot the CFG, idoms, frontiers and SCCs that are stale | `BlockInsts`, `BlockTerm`, `BlockDead`, `InstOp`; `Cfg`; `DomTree` | `Cfg`, `DomTree`, `DominanceFrontiers`, `Sccs`, `ValidAnalyses` |
//! | Verify (and End of transforming stages) | `verify_system` | all columns, values, constants, `Symbols`, `Cfg`, `DomTree` | `Diagnostics` |
//! | Cfg, Dominance | (none of their own: the Begin refresh computes what they promise) | | |
//! | Mem2Reg | `plan_mem2reg` | all columns, `Cfg`, `DominanceFrontiers`, `PipelineConfig` | `FunctionTables` (constant pool), `Mem2RegScratch`, `RowDemand` |
//! | Mem2Reg | `grow_rows` (exclusive) | `RowDemand`, `FunctionTables` (row counts) | new rows, `EntityMap` |
//! | Mem2Reg | `rename_allocas` | `Cfg`, `DomTree`, `Mem2RegScratch` | instruction and block columns, values, phase, `PassStats` |
//! | Sccp | `solve_sccp` | `InstOp`, `InstResults`, `BlockInsts`, `BlockTerm`, `BlockDead`, values, constants, `Cfg`, `Symbols`, `PipelineConfig` | `SccpSolution` |
//! | Sccp | `rewrite_sccp` | `SccpSolution`, `Cfg`, `Symbols` | all columns but `InstBlock`, constants, phase, `PassStats`, `Diagnostics`, `ValidAnalyses` |
//! | Placement | `build_problem` | all columns (through `IrView`), `Cfg`, `Sccs`, `Symbols`, `PipelineConfig` | `PlacementModel`, `PlacementScratch` (problem, constraints), `Diagnostics`, `SystemTimes` |
//! | Placement | `enforce_arc_consistency`, `condense_regions` | `PlacementScratch` (constraints) | `PlacementScratch` (per-piece domains; condensation of what elimination declined), `Diagnostics`, `SystemTimes` |
//! | Placement | `eliminate_exactly` | `PlacementScratch` (problem, constraints, domains) | `PlacementScratch` (placement where elimination answers), `SystemTimes` |
//! | Placement | `solve_regions` | `PlacementScratch` (problem, constraints, domains, condensation) | `PlacementScratch` (placement), `RowDemand` (with splitting), `Diagnostics`, `PassStats`, `SystemTimes` |
//! | Placement | `grow_rows` (exclusive) | `RowDemand`, `FunctionTables` (row counts) | new rows, `EntityMap` |
//! | Placement | `apply_placement` | `PlacementScratch`, `PipelineConfig` | fusion, islands, per-block rows; with splitting: all IR columns (cut blocks, fused jump chains), `ValidAnalyses`; always: `BlockTarget`, `BlockDomain`, `BlockIsland`, `BlockPieces`, `PassStats` |
//! | OutOfSsa | `plan_phi_elim`, `plan_block_params` | `BlockInsts`, `InstOp`, `BlockTerm`, `BlockDead`, `Cfg`, `PipelineConfig` | `RowDemand` |
//! | OutOfSsa | `grow_rows` (exclusive) | `RowDemand`, `FunctionTables` (row counts) | new rows, `EntityMap` |
//! | OutOfSsa | `eliminate_phis` / `convert_phis_to_block_params` | `Cfg`, `PipelineConfig` | all columns, values, phase, `ValidAnalyses`, `PassStats` |
//! | Lower | `lower` | all columns (through `IrView`), `PipelineConfig` | `LoweredScratch`, `MachineInfo`, `Diagnostics`, `PassStats` |
//! | Lower | `store_lowered` (exclusive) | `LoweredScratch` | machine instruction and block rows (`crate::machine::columns`), `MachineInfo` |
//! | Regalloc | `allocate_registers` (ours, or regalloc2 with `--allocator regalloc2`) | machine rows, `PipelineConfig`, `IonEngine` | `AllocationResult`, `IonEngine`, `Diagnostics`, `PassStats` |
//! | Check | `check_allocation` | machine rows, `AllocationResult`, `PipelineConfig` | `AllocationResult`, `Diagnostics`, `PassStats` |
//! | End of a stage | `end_stage` when it verifies after the stage or dumps (`verify_each`, debug builds, `verify_output` after the last transforming stage, `dump_after`); else `lap_timer` when timed (the stage's time ends, the next stage's starts); else none; `check_tables` in debug builds, before them | all columns (verify, dump), tables | `Diagnostics`, `Dumps`, `PassTimings` |
//!
//! Every system above visits the live slots (the machine stages hold one function, so an
//! engine running them, or dumping, takes one function per run: [`batch_size`]).

pub mod batch;
pub mod harness;
pub mod world;

pub use crate::ir::{FunctionInfo, FunctionTables, IrMut, IrView, Symbols};
pub use crate::stage::{
    Analyses, Diagnostic, Diagnostics, Pass, PassError, PassInfo, PassOptions, PassReport, PassSet,
    PassStats, PipelineConfig, Severity, Stage, StageInfo, Stat, PASSES, STAGES,
};
pub use world::EntityMap;

use crate::analysis::AnalysesMut;
use crate::ir::{Function, PerSlot, SymbolTable, SLOTS};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{LogLevel, ScheduleBuildSettings, ScheduleLabel, SingleThreadedExecutor};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Wall time per stage for the current function (filled with `time_passes`).
#[derive(Resource, Default, Debug, Clone)]
pub struct PassTimings {
    /// `per_stage[Stage as usize]`.
    pub per_stage: [Duration; Stage::ALL.len()],
    started: Option<Instant>,
}

impl PassTimings {
    /// Adds the time since the clock started to `stage` and restarts the clock for the
    /// next stage (End steps are laps: one system per stage instead of a stop and a start).
    fn lap(&mut self, stage: Stage) {
        if let Some(t) = self.started {
            let now = Instant::now();
            self.per_stage[stage as usize] += now - t;
            self.started = Some(now);
        }
    }
}

/// Bookends of each stage: timing, analysis refresh, dumping and verify-after.
#[derive(SystemSet, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum StageStep {
    /// Runs first (every running stage after the first): drops failed slots
    /// (`gate_failed`).
    Gate(Stage),
    /// Runs before the stage's systems (starts the clock for the first timed stage, brings the analyses its passes
    /// read up to date).
    Begin(Stage),
    /// Runs after them (verifies, dumps, ends the stage's time and starts the next one's).
    End(Stage),
}

/// Text dumps requested with `dump_after`, in order.
#[derive(Resource, Default, Debug)]
pub struct Dumps(pub Vec<String>);

/// The schedule label of the pipeline.
#[derive(ScheduleLabel, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Pipeline;

/// The gate at the begin of every running stage after the first: a slot whose function
/// has an error reported is no longer live, so the stage's systems (which visit live slots
/// only) leave it alone, and so do the later stages.
///
/// Reads [`Diagnostics`]; writes `FunctionTables::live`.
fn gate_failed(diags: Res<PerSlot<Diagnostics>>, mut tables: ResMut<FunctionTables>) {
    let failed = tables
        .live_slots()
        .filter(|&s| diags[s].has_errors())
        .fold(0, |mask, s| mask | 1 << s);
    tables.live &= !failed;
}

/// The first Begin system of the first running stage when stages are timed: starts the
/// clock (each End step then laps it).
fn start_timer() -> impl FnMut(ResMut<PassTimings>) {
    |mut timings: ResMut<PassTimings>| timings.started = Some(Instant::now())
}

/// The Begin system of a stage whose enabled passes read `reads`: computes, for each live
/// slot, those of them that are stale ([`AnalysesMut::refresh`]).
///
/// Reads the block columns and `InstOp`; writes the analysis resources.
fn refresh_analyses(reads: Analyses) -> impl FnMut(IrView, AnalysesMut) {
    move |ir: IrView, mut analyses: AnalysesMut| {
        for (s, body) in ir.bodies() {
            analyses.refresh(s, &body, reads);
        }
    }
}

/// The End system of `stage`: verifies after a transforming pass (with `verify_each`,
/// always in debug builds, and after the last one with `verify_output`), dumps the function if asked, laps the timer ([`PassTimings::lap`]).
///
/// Reads [`PipelineConfig`], every column, [`Symbols`]; writes the analysis resources (the
/// CFG and dominator tree the verifier reads), [`Diagnostics`], [`Dumps`], [`PassTimings`].
#[allow(clippy::type_complexity)]
fn end_stage(
    stage: Stage,
) -> impl FnMut(
    Res<PipelineConfig>,
    IrView,
    Res<Symbols>,
    AnalysesMut,
    ResMut<PerSlot<Diagnostics>>,
    ResMut<Dumps>,
    ResMut<PassTimings>,
) {
    move |config: Res<PipelineConfig>,
          ir: IrView,
          symbols: Res<Symbols>,
          mut analyses: AnalysesMut,
          mut diags: ResMut<PerSlot<Diagnostics>>,
          mut dumps: ResMut<Dumps>,
          mut timings: ResMut<PassTimings>| {
        for (s, body) in ir.bodies() {
            if config.verifies_after(stage) && !diags[s].has_errors() {
                analyses.refresh(s, &body, Analyses::CFG | Analyses::DOMTREE);
                let errors = crate::verify::verify_with(
                    &body,
                    &symbols.0,
                    &analyses.cfg[s],
                    &analyses.dom[s],
                );
                crate::verify::report(errors, stage.name(), &mut diags[s]);
            }
            if config.dump_after.is_some_and(|p| p.info().stage == stage) {
                let text = crate::text::print_function(&body, &symbols.0);
                dumps.0.push(format!("; after {}\n{}", stage.name(), text));
            }
        }
        if config.time_passes {
            timings.lap(stage);
        }
    }
}

/// Asserts one dense table per entity kind after a stage (DESIGN.md 2 rule 4; added to the
/// schedule in debug builds only).
fn check_tables(world: &mut World) {
    world::check_dense(world);
}

/// Builds the pipeline schedule on `world` for the stages its [`PipelineConfig`] runs (an
/// engine builds one per set of running stages, on first use, and keeps it).
///
/// The stage order is [`STAGES`]' (each entry says why it sits there); stages none of whose
/// passes this build has, and stages the config does not run, are left out, so a function
/// pays nothing per run for a stage it does not use (the empty pipeline is an empty
/// schedule); within a running stage, the systems of passes the config does not run (their
/// [`Pass`] set) are left out too. Around each stage: a `Gate` system (every running stage
/// after the first) drops the slots whose function has an error reported
/// (`gate_failed`); a `Begin` system computes the
/// analyses its enabled passes read and find stale ([`PipelineConfig::reads`],
/// [`crate::analysis::ValidAnalyses`]; the first running stage's also starts the clock
/// when timed), unless they are valid for sure (an earlier Begin step computed them and no
/// enabled pass since may invalidate them, by [`PassInfo::invalidates`]); debug builds
/// check the tables; an `End` system runs the verifier after transforming passes when
/// asked, dumps the function if asked and laps the timer (the stage's time ends and the
/// next stage's starts; its shape follows the config: see `end_kind`). No system has a run
/// condition: each visits the live slots, so "no error so far" is per function.
pub fn build_schedule(world: &mut World) -> Schedule {
    let mut schedule = Schedule::new(Pipeline);
    schedule.set_executor(SingleThreadedExecutor::new());
    schedule.set_build_settings(ScheduleBuildSettings {
        ambiguity_detection: LogLevel::Error,
        ..Default::default()
    });
    let stages = running_stages(world.resource::<PipelineConfig>());
    let mut chain = Vec::new();
    let mut first_timed = true;
    // Analyses that are valid for sure when a stage begins, whatever the function: what
    // an earlier Begin step computed, less what an enabled pass since then may invalidate
    // (`PassInfo::invalidates`; load starts every function with none valid). A stage whose
    // reads are all among them gets no refresh step: it would find nothing stale, and
    // running it costs a system run and its resource fetches.
    let mut surely_valid = Analyses::empty();
    let mut gate_needed = false;
    for info in &STAGES {
        let stage = info.stage;
        if !PASSES.iter().any(|p| p.stage == stage && p.available) {
            continue;
        }
        // Every stage this build has is ordered (so its pass systems are, until they are
        // removed below); only running stages get Begin/End systems.
        chain.push(StageStep::Gate(stage).intern());
        chain.push(StageStep::Begin(stage).intern());
        chain.push(stage.intern());
        chain.push(StageStep::End(stage).intern());
        if stages & stage_bit(stage) == 0 {
            continue;
        }
        // Every running stage after the first starts by dropping the slots whose function
        // failed (errors are reported only by running stages' systems).
        let gate = std::mem::replace(&mut gate_needed, true);
        // End runs whenever the stage is in the schedule, even after an error, so its time
        // ends; verify-after checks for errors itself. Its shape follows the config (part
        // of the schedule's cache key, [`schedule_key`]): the full system only when it
        // verifies or dumps after this stage, a timer lap alone when only timing, else none
        // (the full one fetches fourteen resources per function).
        let end = match end_kind(world.resource::<PipelineConfig>(), stage) {
            EndKind::Full => Some(end_stage(stage).into_configs()),
            EndKind::Timer => Some(lap_timer(stage).into_configs()),
            EndKind::None => None,
        };
        let config = world.resource::<PipelineConfig>();
        let (mut reads, timed) = (config.reads(stage), config.time_passes);
        let invalidated = config.invalidates(stage);
        if (reads.with_inputs() - surely_valid).is_empty() {
            reads = Analyses::empty();
        } else {
            surely_valid |= reads.with_inputs();
        }
        surely_valid -= invalidated;
        // Timed: the first running stage's Begin starts the clock and every End is a lap
        // that also starts the next stage's time, so later Begins need no timer system.
        let start_clock = timed && std::mem::take(&mut first_timed);
        if gate {
            schedule.add_systems(gate_failed.in_set(StageStep::Gate(stage)));
        }
        match (start_clock, reads.is_empty()) {
            (true, true) => {
                schedule.add_systems(start_timer().in_set(StageStep::Begin(stage)));
            }
            (true, false) => {
                schedule.add_systems(
                    (start_timer(), refresh_analyses(reads))
                        .chain()
                        .in_set(StageStep::Begin(stage)),
                );
            }
            (false, false) => {
                schedule.add_systems(refresh_analyses(reads).in_set(StageStep::Begin(stage)));
            }
            (false, true) => {}
        }
        match (end, cfg!(debug_assertions)) {
            (Some(end), true) => {
                schedule.add_systems((check_tables, end).chain().in_set(StageStep::End(stage)));
            }
            (Some(end), false) => {
                schedule.add_systems(end.in_set(StageStep::End(stage)));
            }
            (None, true) => {
                schedule.add_systems(check_tables.in_set(StageStep::End(stage)));
            }
            (None, false) => {}
        }
    }
    for pair in chain.windows(2) {
        schedule.configure_sets(pair[1].after(pair[0]));
    }
    crate::verify::configure(&mut schedule);
    crate::ssa::configure(&mut schedule);
    crate::sccp::configure(&mut schedule);
    crate::placement::system::configure(&mut schedule);
    crate::machine::systems::configure(&mut schedule);
    crate::regalloc::systems::configure(&mut schedule);
    schedule
        .initialize(world)
        .expect("pipeline schedule is well formed");
    for info in &STAGES {
        if stages & stage_bit(info.stage) != 0 {
            continue;
        }
        remove_set(&mut schedule, world, info.stage);
    }
    // Within a running stage, the systems of passes the config does not run go too.
    let passes = world.resource::<PipelineConfig>().passes;
    for info in PASSES.iter().filter(|p| !passes.has(p.pass)) {
        remove_set(&mut schedule, world, info.pass);
    }
    schedule
        .initialize(world)
        .expect("pipeline schedule is well formed");
    // A stage with no pass system of its own (`cfg`, `dominance`: their Begin step computes
    // what they promise) needs no gate: nothing in it would skip a failed slot, and its
    // analyses tolerate invalid IR. Each gate left out saves a system run per schedule run.
    let idle: Vec<Stage> = STAGES
        .iter()
        .map(|info| info.stage)
        .filter(|&stage| {
            schedule
                .graph()
                .systems_in_set(stage.intern())
                .map_or(true, |systems| systems.is_empty())
        })
        .collect();
    if !idle.is_empty() {
        for stage in idle {
            remove_set(&mut schedule, world, StageStep::Gate(stage));
        }
        schedule
            .initialize(world)
            .expect("pipeline schedule is well formed");
    }
    // No system of the pipeline defers work (none takes `Commands`), so the executor's
    // final apply-deferred pass over every system that ran has nothing to do; it is kept
    // only if some system does defer.
    let defers = schedule
        .systems()
        .map_or(true, |mut systems| systems.any(|(_, s)| s.has_deferred()));
    schedule.set_apply_final_deferred(defers);
    schedule
}

/// Removes the systems of `set` from `schedule`, keeping the order between the systems
/// around them. A set without systems of its own has no node in the graph: nothing to
/// remove.
fn remove_set(schedule: &mut Schedule, world: &mut World, set: impl SystemSet) {
    match schedule.remove_systems_in_set(
        set,
        world,
        bevy_ecs::schedule::ScheduleCleanupPolicy::RemoveSetAndSystems,
    ) {
        Ok(_) | Err(bevy_ecs::schedule::ScheduleError::SetNotFound) => {}
        Err(e) => panic!("pipeline schedule is well formed: {e:?}"),
    }
}

/// The bit of `stage` in a stage mask.
const fn stage_bit(stage: Stage) -> u32 {
    1 << stage as u32
}

/// What the End step of a stage must do under a config (see [`build_schedule`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum EndKind {
    /// Verify after the stage or dump the function (and lap the timer).
    Full,
    /// Only stop the stage's timer.
    Timer,
    /// Nothing.
    None,
}

fn end_kind(config: &PipelineConfig, stage: Stage) -> EndKind {
    if config.verifies_after(stage) || config.dump_after.is_some_and(|p| p.info().stage == stage) {
        EndKind::Full
    } else if config.time_passes {
        EndKind::Timer
    } else {
        EndKind::None
    }
}

/// The End system of `stage` when the config only times passes: ends the stage's time and
/// starts the next one's ([`PassTimings::lap`]; one resource, where [`end_stage`] fetches
/// fourteen).
fn lap_timer(stage: Stage) -> impl FnMut(ResMut<PassTimings>) {
    move |mut timings: ResMut<PassTimings>| timings.lap(stage)
}

/// The key an engine caches schedules under: the parts of the config [`build_schedule`]
/// reads (the passes give the running stages and what each Begin step refreshes; with
/// `verify_each`, `verify_output`, the dumped stage and `time_passes` they give each End
/// step's shape,
/// [`end_kind`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct ScheduleKey {
    passes: crate::stage::PassSet,
    verify_each: bool,
    verify_output: bool,
    dump_stage: Option<Stage>,
    time_passes: bool,
}

fn schedule_key(config: &PipelineConfig) -> ScheduleKey {
    ScheduleKey {
        passes: config.passes,
        verify_each: config.verify_each,
        verify_output: config.verify_output,
        dump_stage: config.dump_after.map(|p| p.info().stage),
        time_passes: config.time_passes,
    }
}

/// The stages `config` runs that this build has a pass for, as a mask of [`stage_bit`]s:
/// what a schedule is built for.
fn running_stages(config: &PipelineConfig) -> u32 {
    STAGES
        .iter()
        .filter(|info| {
            config.runs(info.stage) && PASSES.iter().any(|p| p.stage == info.stage && p.available)
        })
        .fold(0, |mask, info| mask | stage_bit(info.stage))
}

/// What running one function through the engine produced.
#[derive(Debug)]
pub struct FunctionRun {
    /// The function after the pipeline.
    pub function: Function,
    /// Errors and notes reported by systems.
    pub diagnostics: Vec<Diagnostic>,
    /// Per-stage wall time (zero unless `time_passes`).
    pub timings: [Duration; Stage::ALL.len()],
    /// Wall time of the systems that time themselves ([`crate::stage::SystemTimes`];
    /// empty unless `time_passes`).
    pub system_timings: Vec<(Stage, &'static str, Duration)>,
    /// Dumps requested with `dump_after`.
    pub dumps: Vec<String>,
    /// Statistics reported by passes.
    pub stats: Vec<Stat>,
}

/// What running one function through the engine reported, without the function (see
/// [`Engine::run_batch`]).
#[derive(Debug)]
pub struct RunReport {
    /// Errors and notes reported by systems.
    pub diagnostics: Vec<Diagnostic>,
    /// Per-stage wall time (zero unless `time_passes`).
    pub timings: [Duration; Stage::ALL.len()],
    /// Wall time of the systems that time themselves ([`crate::stage::SystemTimes`];
    /// empty unless `time_passes`).
    pub system_timings: Vec<(Stage, &'static str, Duration)>,
    /// Dumps requested with `dump_after`.
    pub dumps: Vec<String>,
    /// Statistics reported by passes.
    pub stats: Vec<Stat>,
}

impl RunReport {
    /// True if any error was reported.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

impl FunctionRun {
    /// The run of `function` that reported `report`.
    pub fn new(function: Function, report: RunReport) -> Self {
        let RunReport {
            diagnostics,
            timings,
            system_timings,
            dumps,
            stats,
        } = report;
        FunctionRun {
            function,
            diagnostics,
            timings,
            system_timings,
            dumps,
            stats,
        }
    }

    /// True if any error was reported.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Inserts every resource the pipeline's systems read or write into `world`: the
/// per-function tables, `config`, diagnostics, statistics, timings, dumps, the analyses and
/// each stage's scratch. The engine and the test harness both build their World with it, so
/// a system that runs in one finds what it needs in the other.
pub fn init_world(world: &mut World, config: PipelineConfig) {
    world::init_resources(world);
    world.insert_resource(crate::stage::RowGrowth(world::spawn_demanded_rows));
    world.insert_resource(config);
    world.init_resource::<PerSlot<Diagnostics>>();
    world.init_resource::<PassTimings>();
    world.init_resource::<crate::stage::SystemTimes>();
    world.init_resource::<Dumps>();
    world.init_resource::<PerSlot<PassStats>>();
    crate::analysis::init_resources(world);
    crate::ssa::init_resources(world);
    crate::sccp::init_resources(world);
    crate::placement::system::init_resources(world);
    crate::machine::systems::init_resources(world);
    crate::regalloc::systems::init_resources(world);
}

/// How many functions an engine running `config` takes per run of its schedule (see
/// [`Engine::batch_size`]).
pub fn batch_size(config: &PipelineConfig) -> usize {
    if config.passes.intersects(PassSet::machine_passes()) || config.dump_after.is_some() {
        1
    } else {
        SLOTS
    }
}

/// A World with the pipeline schedule built on it, reused across functions (see module doc).
pub struct Engine {
    world: World,
    /// Moves functions in and out of the World's tables (held here rather than taken out
    /// of the World as a resource around each load and take, which costs two archetype
    /// moves per call).
    loader: world::FunctionLoader,
    /// The schedule for the current config's running stages.
    schedule: Schedule,
    /// Its cache key ([`schedule_key`]).
    schedule_key: ScheduleKey,
    /// Schedules built for other keys, kept for when the config returns to them.
    other_schedules: Vec<(ScheduleKey, Schedule)>,
    empty_symbols: Arc<SymbolTable>,
    baseline_entities: u32,
}

impl Engine {
    /// Builds an engine running `config`.
    pub fn new(config: PipelineConfig) -> Self {
        let mut world = World::new();
        init_world(&mut world, config);
        let schedule_key = schedule_key(world.resource::<PipelineConfig>());
        let schedule = build_schedule(&mut world);
        let loader = world::FunctionLoader::new(&mut world, true);
        let mut engine = Engine {
            world,
            loader,
            schedule,
            schedule_key,
            other_schedules: Vec::new(),
            empty_symbols: Arc::new(SymbolTable::default()),
            baseline_entities: 0,
        };
        // Run once on an empty function so that lazily created state exists (rule 1).
        let mut warm = crate::ir::FunctionBuilder::new("warmup", Default::default());
        warm.ret(None);
        let symbols = engine.empty_symbols.clone();
        engine.run(warm.finish(), &symbols);
        // The warm-up function (one block, no instruction) stays pooled.
        engine.baseline_entities = engine.world.entities().count_spawned() - 1;
        engine
    }

    /// The pipeline config.
    pub fn config(&self) -> &PipelineConfig {
        self.world.resource::<PipelineConfig>()
    }

    /// Replaces the pipeline config. Cheap when what the schedule is built from (the
    /// schedule key: passes, `verify_each`, `verify_output`, the dumped stage, timing) stays
    /// the same;
    /// otherwise the schedule for the new key is taken from the engine's cache or built once
    /// (about 1 ms) and kept.
    pub fn set_config(&mut self, config: PipelineConfig) {
        let key = schedule_key(&config);
        *self.world.resource_mut::<PipelineConfig>() = config;
        if key == self.schedule_key {
            return;
        }
        let next = match self.other_schedules.iter().position(|(s, _)| *s == key) {
            Some(k) => self.other_schedules.swap_remove(k).1,
            None => build_schedule(&mut self.world),
        };
        let previous = std::mem::replace(&mut self.schedule, next);
        self.other_schedules.push((self.schedule_key, previous));
        self.schedule_key = key;
    }

    /// How many functions one run of the schedule takes ([`Engine::run_batch`]):
    /// [`SLOTS`], or one when the config runs the machine stages (their lowered form and
    /// allocation are per World) or dumps (the dump list is per run).
    pub fn batch_size(&self) -> usize {
        batch_size(self.config())
    }

    /// Starts a run: no slot is live until a function is loaded into it.
    fn clear_slots(&mut self) {
        self.world.resource_mut::<FunctionTables>().live = 0;
    }

    /// Runs the pipeline on `function` (whose calls and addresses refer to `symbols`) and
    /// returns it with the diagnostics. Never panics on invalid input: the verifier reports
    /// errors and later stages are skipped.
    pub fn run(&mut self, function: Function, symbols: &Arc<SymbolTable>) -> FunctionRun {
        self.load(function, symbols);
        self.run_schedule();
        self.take()
    }

    /// Runs the pipeline on up to [`Engine::batch_size`] functions at once and copies the
    /// results into `outs`: function `k` is copied into slot `k`'s pooled rows in place
    /// ([`world::FunctionLoader::load_copies`]), the schedule runs once for all of them
    /// (each system visits every slot), and result `k` is copied into `outs[k]` in place
    /// ([`world::FunctionLoader::copy_out_all`]; `outs` is grown to `functions.len()` if
    /// shorter). The World keeps its rows and `outs` its allocations, so a driver that
    /// reuses `outs` allocates and frees nothing per function once warm. Reports come back
    /// in input order; each gets an equal share of the run's stage times. The results equal
    /// those of one [`Engine::run`] per function: slots share nothing but scratch that every
    /// system clears per function. The inputs are only read, so the caller still holds them
    /// if the run panics.
    ///
    /// # Panics
    /// If `functions` holds more than [`Engine::batch_size`] functions.
    pub fn run_batch(
        &mut self,
        functions: &[&Function],
        symbols: &Arc<SymbolTable>,
        outs: &mut Vec<Function>,
    ) -> Vec<RunReport> {
        self.run_loaded_batch(functions, symbols);
        let n = functions.len();
        if outs.len() < n {
            outs.resize_with(n, Function::default);
        }
        self.loader.copy_out_all(&mut self.world, 0, &mut outs[..n]);
        let reports = (0..n).map(|slot| self.take_report(slot, n)).collect();
        self.end_batch();
        reports
    }

    /// Copies `functions` into slots `0..` and runs the schedule once for all of them.
    fn run_loaded_batch(&mut self, functions: &[&Function], symbols: &Arc<SymbolTable>) {
        assert!(
            functions.len() <= self.batch_size(),
            "a batch of {} functions exceeds the engine's batch size {}",
            functions.len(),
            self.batch_size()
        );
        self.clear_slots();
        self.loader
            .load_copies(&mut self.world, 0, functions, symbols);
        self.run_schedule();
    }

    /// Ends a batch: its stage times were handed out in equal shares, and the clock
    /// restarts for the next run.
    fn end_batch(&mut self) {
        self.world.resource_mut::<PassTimings>().per_stage = Default::default();
        self.world
            .resource_mut::<crate::stage::SystemTimes>()
            .0
            .clear();
    }

    /// Makes the pooled tables of every slot hold at least `blocks` block rows and `insts`
    /// instruction rows, so that functions up to that size (with what their passes create)
    /// run without spawning rows or reallocating columns. A batch driver that knows its
    /// largest function calls this once per engine before timing; otherwise the tables
    /// grow with the first functions large enough to need it. Costs one `spawn_batch` per
    /// table.
    pub fn reserve_rows(&mut self, blocks: usize, insts: usize) {
        for slot in 0..self.batch_size() {
            self.reserve_slot_rows(slot, blocks, insts);
        }
    }

    /// [`Engine::reserve_rows`] for slot `slot` alone (a driver that knows which functions
    /// land in which slot sizes each for its own largest).
    pub fn reserve_slot_rows(&mut self, slot: usize, blocks: usize, insts: usize) {
        world::spawn_spare_rows(&mut self.world, slot, blocks, insts);
    }

    /// Loads `function` into the World, in slot 0 (the first third of [`Engine::run`]; for
    /// tests and fuzz checks that inspect resources before taking the function back).
    pub fn load(&mut self, function: Function, symbols: &Arc<SymbolTable>) {
        self.clear_slots();
        self.loader.load(&mut self.world, 0, function, symbols);
    }

    /// Runs the pipeline schedule on the functions in the World.
    pub fn run_schedule(&mut self) {
        self.schedule.run(&mut self.world);
    }

    /// Takes the function in slot 0 and what the pipeline reported out of the World.
    pub fn take(&mut self) -> FunctionRun {
        let function = self.loader.take(&mut self.world, 0);
        FunctionRun::new(function, self.take_report(0, 1))
    }

    /// Takes what the pipeline reported for slot `slot` (diagnostics, statistics; dumps
    /// and `1/share` of the stage times) out of the World, leaving the function there.
    fn take_report(&mut self, slot: usize, share: usize) -> RunReport {
        let diagnostics =
            std::mem::take(&mut self.world.resource_mut::<PerSlot<Diagnostics>>()[slot].0);
        let dumps = std::mem::take(&mut self.world.resource_mut::<Dumps>().0);
        // The next function reports about as many statistics: keep that capacity (the list
        // would otherwise regrow from empty on every function).
        let stats = {
            let mut stats = self.world.resource_mut::<PerSlot<PassStats>>();
            let stats = &mut stats[slot];
            let capacity = stats.0.len();
            std::mem::replace(&mut stats.0, Vec::with_capacity(capacity))
        };
        let mut t = self.world.resource_mut::<PassTimings>();
        let timings = if share <= 1 {
            std::mem::take(&mut t.per_stage)
        } else {
            t.per_stage.map(|d| d / share as u32)
        };
        let mut systems = self.world.resource_mut::<crate::stage::SystemTimes>();
        let system_timings = if share <= 1 {
            std::mem::take(&mut systems.0)
        } else {
            systems
                .0
                .iter()
                .map(|&(stage, name, d)| (stage, name, d / share as u32))
                .collect()
        };
        RunReport {
            diagnostics,
            timings,
            system_timings,
            dumps,
            stats,
        }
    }

    /// The World (for tests that run one system alone and inspect resources).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Mutable World access (for tests and tools that load a function and run systems alone).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// Number of entities alive in the World, resources included (bevy 0.20 stores resources
    /// as entities). Constant between functions.
    pub fn entity_count(&self) -> u32 {
        self.world.entities().count_spawned()
    }

    /// Entities alive beyond those the engine had after warm-up. Between functions this is
    /// the pooled block and instruction entities of the last function (see
    /// [`world::FunctionLoader`]).
    pub fn function_entity_count(&self) -> u32 {
        self.entity_count().saturating_sub(self.baseline_entities)
    }

    /// Highest entity index ever allocated plus one (bounded if ids are reused).
    pub fn entity_capacity(&self) -> u32 {
        self.world.entities().len()
    }
}

thread_local! {
    static THREAD_ENGINE: std::cell::RefCell<Option<Engine>> = const { std::cell::RefCell::new(None) };
}

/// A panic inside the pipeline (a bug, never an input error), caught by
/// [`with_thread_engine`]: the panic's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Panicked {
    /// The panic payload's text (`unknown panic` if it was not a string).
    pub message: String,
}

/// A function whose run through the pipeline panicked (see [`batch`]): the function and the
/// panic. Its results are lost; the other functions of the batch are not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("function @{function}: internal error: {panic}")]
pub struct InternalError {
    /// The function's name.
    pub function: String,
    /// What the pipeline panicked with.
    pub panic: Panicked,
}

/// Runs `f` with this thread's engine (built on first use, then reused: DESIGN.md 2, rule 1),
/// after installing `config`. If `f` panics, the engine is discarded (its World may be
/// half-updated) and the panic is returned as a [`Panicked`] error, so a batch driver loses
/// only the function that triggered it.
pub fn with_thread_engine<R>(
    config: &PipelineConfig,
    f: impl FnOnce(&mut Engine) -> R,
) -> Result<R, Panicked> {
    THREAD_ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let engine = match slot.as_mut() {
            Some(e) => {
                if e.config() != config {
                    e.set_config(config.clone());
                }
                e
            }
            None => slot.insert(Engine::new(config.clone())),
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(engine))) {
            Ok(r) => Ok(r),
            Err(payload) => {
                *slot = None;
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".to_string());
                Err(Panicked { message })
            }
        }
    })
}

#[cfg(test)]
mod stage_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::harness::Harness;

    /// The gate step alone (DESIGN.md 2, rule 11): of two live slots, the one whose
    /// function has an error reported stops being live; the other stays, and so does a
    /// slot with only a note.
    #[test]
    fn gate_drops_only_failed_slots() {
        let text = "func @f() -> void {\nblock0:\n  ret\n}\n";
        let mut h = Harness::from_sir(text, PipelineConfig::default()).unwrap();
        let module = crate::text::parse_module(text, "gate").unwrap();
        let symbols = Arc::new(module.symbol_table());
        for slot in [1, 2] {
            let f = module.functions[0].clone();
            h.world_mut()
                .resource_scope(|world, mut loader: Mut<world::FunctionLoader>| {
                    loader.load(world, slot, f, &symbols)
                });
        }
        assert_eq!(h.world().resource::<FunctionTables>().live, 0b111);
        {
            let mut diags = h.world_mut().resource_mut::<PerSlot<Diagnostics>>();
            diags[1].0.push(Diagnostic {
                severity: Severity::Error,
                pass: "verify",
                message: "broken".into(),
            });
            diags[2].0.push(Diagnostic {
                severity: Severity::Note,
                pass: "sccp",
                message: "fell back".into(),
            });
        }
        h.run(gate_failed);
        assert_eq!(h.world().resource::<FunctionTables>().live, 0b101);
        h.check_dense();
    }
}

//! The engine: one World and one Schedule per worker, the stage sets, the pipeline config,
//! per-pass timing and the reset between functions.
//!
//! Lifecycle (DESIGN.md 2): [`Engine::new`] builds the World, inserts every resource and
//! builds the schedule once (100-240 µs); it then runs the schedule once on an empty function
//! so that every lazily created resource exists. [`Engine::run`] loads a function into pooled
//! block and instruction entities (overwriting components in place; spawning or despawning,
//! newest first, only the difference in size: [`world::FunctionLoader`]), runs the schedule
//! with the single-threaded executor, and takes the function back out, so entity ids stay
//! bounded by the largest function. Engines are per thread (`thread_local!` in batch drivers);
//! a schedule must never run on another World.
//!
//! Stage order is fixed in [`build_schedule`], with one line per stage saying why it sits
//! there. Each stage is a [`Stage`] system set wrapped by [`StageStep::Begin`] and
//! [`StageStep::End`] sets that time it, dump the IR after it and verify after transforming
//! passes. Ambiguity detection is an error, so every ordering is explicit and the output is
//! deterministic.

pub mod batch;
pub mod harness;
pub mod world;

pub use crate::ir::{FunctionInfo, IrMut, IrView, Symbols, ValueTable};
pub use crate::stage::{
    Analyses, Diagnostic, Diagnostics, Pass, PassError, PassInfo, PassOptions, PassSet, PassStats,
    PipelineConfig, Severity, Stage, StageInfo, Stat, PASSES, STAGES,
};
pub use world::EntityMap;

use crate::analysis::refresh_systems;
use crate::ir::{Function, SymbolTable};
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

/// Bookends of each stage: timing, analysis refresh, dumping and verify-after.
#[derive(SystemSet, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum StageStep {
    /// Runs before the stage's systems (starts its timer, brings the analyses its passes
    /// read up to date).
    Begin(Stage),
    /// Runs after them (verifies, dumps, stops the timer).
    End(Stage),
}

/// Text dumps requested with `dump_after`, in order.
#[derive(Resource, Default, Debug)]
pub struct Dumps(pub Vec<String>);

/// The schedule label of the pipeline.
#[derive(ScheduleLabel, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Pipeline;

fn stage_enabled(
    stage: Stage,
) -> impl FnMut(Res<PipelineConfig>, Res<Diagnostics>) -> bool + Clone {
    move |config: Res<PipelineConfig>, diags: Res<Diagnostics>| {
        config.runs(stage) && !diags.has_errors()
    }
}

fn begin_stage(stage: Stage) -> impl FnMut(Res<PipelineConfig>, ResMut<PassTimings>) {
    let _ = stage;
    move |config: Res<PipelineConfig>, mut timings: ResMut<PassTimings>| {
        if config.time_passes {
            timings.started = Some(Instant::now());
        }
    }
}

fn end_stage(stage: Stage) -> impl FnMut(Res<PipelineConfig>, ResMut<PassTimings>) {
    move |config: Res<PipelineConfig>, mut timings: ResMut<PassTimings>| {
        if config.time_passes {
            if let Some(t) = timings.started.take() {
                timings.per_stage[stage as usize] += t.elapsed();
            }
        }
    }
}

fn dump_after(
    stage: Stage,
) -> impl FnMut(Res<PipelineConfig>, IrView, Res<Symbols>, ResMut<Dumps>) {
    move |config: Res<PipelineConfig>,
          ir: IrView,
          symbols: Res<Symbols>,
          mut dumps: ResMut<Dumps>| {
        if config.dump_after.is_some_and(|p| p.info().stage == stage) {
            let text = crate::text::print_function(&ir.body(), &symbols.0);
            dumps.0.push(format!("; after {}\n{}", stage.name(), text));
        }
    }
}

/// Asserts one dense table per entity kind after a stage (debug builds; DESIGN.md 2 rule 4).
fn check_tables(world: &mut World) {
    if cfg!(debug_assertions) {
        world::check_dense(world);
    }
}

/// Builds the pipeline schedule on `world` (called once per engine).
///
/// The stage order is [`STAGES`]' (each entry says why it sits there). Around each stage:
/// `Begin` starts its timer and runs the analysis systems for what its enabled passes read
/// and find stale ([`PipelineConfig::reads`], [`crate::analysis::ValidAnalyses`]); `End`
/// refreshes the CFG and dominator tree and runs the verifier if verify-after is on, dumps
/// the function if asked, checks the tables (debug builds) and stops the timer.
pub fn build_schedule(world: &mut World) -> Schedule {
    let mut schedule = Schedule::new(Pipeline);
    schedule.set_executor(SingleThreadedExecutor::new());
    schedule.set_build_settings(ScheduleBuildSettings {
        ambiguity_detection: LogLevel::Error,
        ..Default::default()
    });
    let mut chain = Vec::new();
    for info in &STAGES {
        let stage = info.stage;
        chain.push(StageStep::Begin(stage).intern());
        chain.push(stage.intern());
        chain.push(StageStep::End(stage).intern());
        let enabled = stage_enabled(stage);
        schedule.configure_sets(StageStep::Begin(stage).run_if(enabled.clone()));
        schedule.configure_sets(stage.run_if(enabled.clone()));
        // End runs whenever the stage was enabled, even if it reported an error, so its
        // timer stops; dumps and verify-after check for errors themselves.
        schedule.configure_sets(
            StageStep::End(stage).run_if(move |config: Res<PipelineConfig>| config.runs(stage)),
        );
        let reads = PASSES
            .iter()
            .filter(|p| p.stage == stage)
            .fold(Analyses::empty(), |a, p| a | p.reads);
        if reads.is_empty() {
            schedule.add_systems(begin_stage(stage).in_set(StageStep::Begin(stage)));
        } else {
            schedule.add_systems(
                (
                    begin_stage(stage),
                    refresh_systems(
                        move |config: Res<PipelineConfig>| !config.reads(stage).is_empty(),
                        reads,
                    ),
                )
                    .chain()
                    .in_set(StageStep::Begin(stage)),
            );
        }
        let verifies = move |config: Res<PipelineConfig>, diags: Res<Diagnostics>| {
            config.verifies_after(stage) && !diags.has_errors()
        };
        let transforms = PASSES.iter().any(|p| p.stage == stage && p.transforms);
        if transforms {
            schedule.add_systems(
                (
                    refresh_systems(verifies, Analyses::CFG | Analyses::DOMTREE),
                    crate::verify::verify_system(stage.name()).run_if(verifies),
                    dump_after(stage),
                    check_tables,
                    end_stage(stage),
                )
                    .chain()
                    .in_set(StageStep::End(stage)),
            );
        } else {
            schedule.add_systems(
                (dump_after(stage), check_tables, end_stage(stage))
                    .chain()
                    .in_set(StageStep::End(stage)),
            );
        }
    }
    for pair in chain.windows(2) {
        schedule.configure_sets(pair[1].after(pair[0]));
    }
    crate::verify::configure(&mut schedule);
    crate::ssa::configure(&mut schedule);
    crate::sccp::configure(&mut schedule);
    schedule
        .initialize(world)
        .expect("pipeline schedule is well formed");
    schedule
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
    /// Dumps requested with `dump_after`.
    pub dumps: Vec<String>,
    /// Statistics reported by passes.
    pub stats: Vec<Stat>,
}

impl FunctionRun {
    /// True if any error was reported.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// A World with the pipeline schedule built on it, reused across functions (see module doc).
pub struct Engine {
    world: World,
    schedule: Schedule,
    empty_symbols: Arc<SymbolTable>,
    baseline_entities: u32,
}

impl Engine {
    /// Builds an engine running `config`.
    pub fn new(config: PipelineConfig) -> Self {
        let mut world = World::new();
        world::init_resources(&mut world);
        world.insert_resource(config);
        world.init_resource::<crate::ir::RowDemand>();
        world.init_resource::<Diagnostics>();
        world.init_resource::<PassTimings>();
        world.init_resource::<Dumps>();
        world.init_resource::<PassStats>();
        crate::analysis::init_resources(&mut world);
        crate::ssa::init_resources(&mut world);
        crate::sccp::init_resources(&mut world);
        let schedule = build_schedule(&mut world);
        let mut engine = Engine {
            world,
            schedule,
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

    /// Replaces the pipeline config (cheap; the schedule is not rebuilt).
    pub fn set_config(&mut self, config: PipelineConfig) {
        *self.world.resource_mut::<PipelineConfig>() = config;
    }

    /// Runs the pipeline on `function` (whose calls and addresses refer to `symbols`) and
    /// returns it with the diagnostics. Never panics on invalid input: the verifier reports
    /// errors and later stages are skipped.
    pub fn run(&mut self, function: Function, symbols: &Arc<SymbolTable>) -> FunctionRun {
        self.load(function, symbols);
        self.run_schedule();
        self.take()
    }

    /// Loads `function` into the World (the first third of [`Engine::run`]; for tests and
    /// fuzz checks that inspect resources before taking the function back).
    pub fn load(&mut self, function: Function, symbols: &Arc<SymbolTable>) {
        self.world
            .resource_scope(|world, mut loader: Mut<world::FunctionLoader>| {
                loader.load(world, function, symbols)
            });
    }

    /// Runs the pipeline schedule on the function in the World.
    pub fn run_schedule(&mut self) {
        self.schedule.run(&mut self.world);
    }

    /// Takes the function and what the pipeline reported out of the World.
    pub fn take(&mut self) -> FunctionRun {
        let function = self
            .world
            .resource_scope(|world, mut loader: Mut<world::FunctionLoader>| loader.take(world));
        let diagnostics = std::mem::take(&mut self.world.resource_mut::<Diagnostics>().0);
        let dumps = std::mem::take(&mut self.world.resource_mut::<Dumps>().0);
        let stats = std::mem::take(&mut self.world.resource_mut::<PassStats>().0);
        let mut t = self.world.resource_mut::<PassTimings>();
        let timings = std::mem::take(&mut t.per_stage);
        FunctionRun {
            function,
            diagnostics,
            timings,
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

/// What a pass run in place reported (see [`run_in_place`]).
#[derive(Debug, Default)]
pub struct PassReport {
    /// Errors and notes reported by systems.
    pub diagnostics: Vec<Diagnostic>,
    /// Statistics reported by passes.
    pub stats: Vec<Stat>,
}

impl PassReport {
    /// The value of statistic `pass`/`name` (0 if not reported).
    pub fn stat(&self, pass: &str, name: &str) -> u64 {
        self.stats
            .iter()
            .find(|s| s.pass == pass && s.name == name)
            .map_or(0, |s| s.value)
    }

    /// True if any error was reported.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Runs the passes of `config` (with their requirements) on `f` in place, through this
/// thread's engine: the very systems of the pipeline, so a library entry point and the
/// pipeline pass of the same name behave the same. A panic inside a system is re-raised
/// here (after the engine is discarded).
pub fn run_in_place(
    f: &mut Function,
    symbols: &Arc<SymbolTable>,
    config: &PipelineConfig,
) -> PassReport {
    let input = std::mem::take(f);
    match with_thread_engine(config, |engine| engine.run(input, symbols)) {
        Ok(run) => {
            *f = run.function;
            PassReport {
                diagnostics: run.diagnostics,
                stats: run.stats,
            }
        }
        Err(panic) => panic!("{panic}"),
    }
}

thread_local! {
    static THREAD_ENGINE: std::cell::RefCell<Option<Engine>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's engine (built on first use, then reused: DESIGN.md 2, rule 1),
/// after installing `config`. If `f` panics, the engine is discarded (its World may be
/// half-updated) and the panic is returned as an error message, so a batch driver loses only
/// the function that triggered it.
pub fn with_thread_engine<R>(
    config: &PipelineConfig,
    f: impl FnOnce(&mut Engine) -> R,
) -> Result<R, String> {
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
                Err(payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".to_string()))
            }
        }
    })
}

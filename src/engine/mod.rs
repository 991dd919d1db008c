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
mod passes;
pub mod world;

pub use passes::{Pass, PassError, PassInfo, PassSet};
pub use world::{EntityMap, FunctionInfo, IrQuery, Symbols, ValueTable};

use crate::ir::{Function, SymbolTable};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{LogLevel, ScheduleBuildSettings, ScheduleLabel, SingleThreadedExecutor};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The stages of the pipeline, in order (DESIGN.md 1). Each is a system set; stage modules add
/// their systems to it in their `configure` function.
#[derive(SystemSet, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Stage {
    /// IR invariants before anything reads the function.
    Verify,
    /// Successors, predecessors, reverse postorder, critical edges.
    Cfg,
    /// Immediate dominators, dominator tree, dominance frontiers, SCCs.
    Dominance,
    /// SSA construction.
    Mem2Reg,
    /// Sparse conditional constant propagation.
    Sccp,
    /// Placement on execution targets.
    Placement,
    /// Phi elimination or block-parameter conversion.
    OutOfSsa,
    /// Lowering to machine operands.
    Lower,
    /// Register allocation.
    Regalloc,
    /// Allocation checking.
    Check,
    /// Output (reserved: emission currently happens after the function leaves the World).
    Emit,
}

impl Stage {
    /// Every stage in pipeline order.
    pub const ALL: [Stage; 11] = [
        Stage::Verify,
        Stage::Cfg,
        Stage::Dominance,
        Stage::Mem2Reg,
        Stage::Sccp,
        Stage::Placement,
        Stage::OutOfSsa,
        Stage::Lower,
        Stage::Regalloc,
        Stage::Check,
        Stage::Emit,
    ];

    /// The passes implemented by this stage.
    pub fn passes(self) -> PassSet {
        Pass::ALL
            .iter()
            .filter(|p| p.info().stage == self)
            .fold(PassSet::empty(), |s, p| s | p.bit())
    }

    /// True if the stage's systems read the function through [`IrQuery`], so a function
    /// checked out by an earlier transforming stage must go back into the World first
    /// ([`world::check_in`]). Verify, mem2reg, SCCP and out-of-SSA work on the checked-out
    /// function; dominance reads only the CFG. Stages not built yet count as readers.
    pub fn reads_world(self) -> bool {
        !matches!(
            self,
            Stage::Verify | Stage::Dominance | Stage::Mem2Reg | Stage::Sccp | Stage::OutOfSsa
        )
    }

    /// Lower-case name used in timing reports.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Verify => "verify",
            Stage::Cfg => "cfg",
            Stage::Dominance => "dominance",
            Stage::Mem2Reg => "mem2reg",
            Stage::Sccp => "sccp",
            Stage::Placement => "placement",
            Stage::OutOfSsa => "out-of-ssa",
            Stage::Lower => "lower",
            Stage::Regalloc => "regalloc",
            Stage::Check => "check",
            Stage::Emit => "emit",
        }
    }
}

/// Bookends of each stage: timing, dumping and verify-after.
#[derive(SystemSet, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum StageStep {
    /// Runs before the stage's systems (starts its timer).
    Begin(Stage),
    /// Runs after them (stops the timer, dumps, verifies).
    End(Stage),
}

/// Tunable parameters of the passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassOptions {
    /// SCCP lattice memory limit in bytes (003: 100 KB); above it SCCP falls back to local
    /// constant folding.
    pub sccp_memory_limit: usize,
}

impl Default for PassOptions {
    fn default() -> Self {
        PassOptions {
            sccp_memory_limit: 100 * 1024,
        }
    }
}

/// A named counter reported by a pass for the current function (for `--stats` and the bench
/// JSON), for example `mem2reg` / `allocas_promoted`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
pub struct Stat {
    /// The pass reporting it (kebab-case pass name).
    pub pass: &'static str,
    /// What is counted (snake_case).
    pub name: &'static str,
    /// The count.
    pub value: u64,
}

/// Statistics of the current function, filled by passes.
#[derive(Resource, Default, Debug)]
pub struct PassStats(pub Vec<Stat>);

impl PassStats {
    /// Adds `value` to the counter `pass`/`name` (creating it at zero).
    pub fn add(&mut self, pass: &'static str, name: &'static str, value: u64) {
        match self.0.iter_mut().find(|s| s.pass == pass && s.name == name) {
            Some(s) => s.value += value,
            None => self.0.push(Stat { pass, name, value }),
        }
    }
}

/// Which passes run and what the engine does around them.
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub struct PipelineConfig {
    /// Passes that run: the requested ones plus what they require.
    pub passes: PassSet,
    /// Run the verifier after every transforming pass.
    pub verify_each: bool,
    /// Measure each stage's wall time into [`PassTimings`].
    pub time_passes: bool,
    /// Print the function into [`Dumps`] after this pass's stage.
    pub dump_after: Option<Pass>,
    /// Pass parameters.
    pub options: PassOptions,
}

impl PipelineConfig {
    /// Config running `requested` plus its requirements.
    pub fn new(requested: PassSet) -> Self {
        PipelineConfig {
            passes: requested.with_requirements(),
            ..Default::default()
        }
    }

    /// True if any pass of `stage` is enabled.
    pub fn runs(&self, stage: Stage) -> bool {
        self.passes.intersects(stage.passes())
    }
}

/// Severity of a diagnostic.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
pub enum Severity {
    /// The function is invalid; later stages do not run.
    Error,
    /// Informational (for example a fallback taken).
    Note,
}

/// A message from a system about the function in the World.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// The pass that reported it.
    pub pass: &'static str,
    /// The message, naming function, block and instruction where relevant.
    pub message: String,
}

/// Diagnostics of the current function. After an error, later stages are skipped.
#[derive(Resource, Default, Debug)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// True if an error was reported.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
}

/// Wall time per stage for the current function (filled with `time_passes`).
#[derive(Resource, Default, Debug, Clone)]
pub struct PassTimings {
    /// `per_stage[Stage as usize]`.
    pub per_stage: [Duration; Stage::ALL.len()],
    started: Option<Instant>,
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

/// Puts a checked-out function back into the World before a stage that reads it there
/// (timed with the stage).
fn check_in_before(stage: Stage) -> impl FnMut(&mut World) {
    move |world: &mut World| {
        if stage.reads_world() {
            world::check_in(world);
        }
    }
}

fn dump_after(stage: Stage) -> impl FnMut(&mut World) {
    move |world: &mut World| {
        let config = world.resource::<PipelineConfig>();
        if config.dump_after.is_some_and(|p| p.info().stage == stage) {
            let symbols = world.resource::<Symbols>().0.clone();
            let text = world::with_function(world, |f, _| crate::text::print_function(f, &symbols));
            world
                .resource_mut::<Dumps>()
                .0
                .push(format!("; after {}\n{}", stage.name(), text));
        }
    }
}

fn verify_after(stage: Stage) -> impl FnMut(&mut World) {
    move |world: &mut World| {
        let config = world.resource::<PipelineConfig>();
        let transforms = config
            .passes
            .passes()
            .any(|p| p.info().stage == stage && p.info().transforms);
        // Debug builds always verify after transforming passes (DESIGN.md 1, Verify).
        let wanted = (config.verify_each || cfg!(debug_assertions)) && transforms;
        if wanted && !world.resource::<Diagnostics>().has_errors() {
            crate::ir::verifier::verify_in_world(world, stage.name());
        }
    }
}

/// Builds the pipeline schedule on `world` (called once per engine).
pub fn build_schedule(world: &mut World) -> Schedule {
    let mut schedule = Schedule::new(Pipeline);
    schedule.set_executor(SingleThreadedExecutor::new());
    schedule.set_build_settings(ScheduleBuildSettings {
        ambiguity_detection: LogLevel::Error,
        ..Default::default()
    });
    // The order of the pipeline (DESIGN.md 1). Why each stage sits where it does:
    let order = [
        Stage::Verify,    // first: no pass may read an invalid function
        Stage::Cfg,       // every later analysis and pass reads edges and orders
        Stage::Dominance, // needs the CFG; mem2reg and placement need idoms and frontiers
        Stage::Mem2Reg,   // builds SSA, which SCCP's sparse def-use propagation needs
        Stage::Sccp,      // on SSA; folds constants before placement costs blocks
        Stage::Placement, // on optimised SSA, before SSA is left (splits blocks)
        Stage::OutOfSsa,  // after every SSA pass: phis become copies or block parameters
        Stage::Lower,     // needs phi-free IR to map to machine operands
        Stage::Regalloc,  // on machine operands with constraints
        Stage::Check,     // judges the allocation just made
        Stage::Emit,      // last: prints what the pipeline produced
    ];
    let mut chain = Vec::new();
    for &stage in &order {
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
        schedule.add_systems(
            (begin_stage(stage), check_in_before(stage))
                .chain()
                .in_set(StageStep::Begin(stage)),
        );
        schedule.add_systems(
            (end_stage(stage), verify_after(stage), dump_after(stage))
                .chain()
                .in_set(StageStep::End(stage)),
        );
    }
    for pair in chain.windows(2) {
        schedule.configure_sets(pair[1].after(pair[0]));
    }
    crate::ir::verifier::configure(&mut schedule);
    crate::analysis::configure(&mut schedule);
    crate::ssa::configure(&mut schedule);
    crate::sccp::configure(&mut schedule);
    crate::placement::system::configure(&mut schedule);
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
        world.init_resource::<Diagnostics>();
        world.init_resource::<PassTimings>();
        world.init_resource::<Dumps>();
        world.init_resource::<PassStats>();
        crate::analysis::init_resources(&mut world);
        crate::sccp::init_resources(&mut world);
        crate::placement::system::init_resources(&mut world);
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
        self.world
            .resource_scope(|world, mut loader: Mut<world::FunctionLoader>| {
                loader.load(world, function, symbols)
            });
        self.schedule.run(&mut self.world);
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

//! The pipeline declared once: stages, passes, the analyses each pass reads and
//! invalidates, and what passes report (statistics, diagnostics). A leaf module: it imports
//! nothing of ours, so every stage module and the engine import it and nothing imports back.
//!
//! [`STAGES`] lists the stages in pipeline order, each with its name and why it sits there;
//! [`PASSES`] lists the passes, each with its stage, requirements, the analyses it reads and
//! invalidates, and its help text. The pass registry (`--passes`), `--help`, the schedule's
//! stage chain and the analysis refresh points are all derived from these two tables.

use bevy_ecs::prelude::*;
use std::fmt;

/// The stages of the pipeline, in order (DESIGN.md 1). Each is a system set; stage modules add
/// their systems to it in their `configure` function. Facts about each are in [`STAGES`].
#[derive(SystemSet, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Stage {
    /// IR invariants before anything reads the function.
    Verify,
    /// Successors, predecessors, reverse postorder, critical edges.
    Cfg,
    /// Immediate dominators, dominator tree, dominance frontiers.
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
    /// Output (reserved: emission happens after the function leaves the World).
    Emit,
}

/// Static facts about a stage.
#[derive(Clone, Copy, Debug)]
pub struct StageInfo {
    /// The stage.
    pub stage: Stage,
    /// Lower-case name used in timing reports.
    pub name: &'static str,
    /// Why the stage sits where it does in the pipeline.
    pub why_here: &'static str,
}

/// Every stage in pipeline order; `STAGES[s as usize].stage == s`.
pub const STAGES: [StageInfo; 11] = [
    StageInfo {
        stage: Stage::Verify,
        name: "verify",
        why_here: "first: no pass may read an invalid function",
    },
    StageInfo {
        stage: Stage::Cfg,
        name: "cfg",
        why_here: "every later analysis and pass reads edges and orders",
    },
    StageInfo {
        stage: Stage::Dominance,
        name: "dominance",
        why_here: "needs the CFG; mem2reg and placement need idoms and frontiers",
    },
    StageInfo {
        stage: Stage::Mem2Reg,
        name: "mem2reg",
        why_here: "builds SSA, which SCCP's sparse def-use propagation needs",
    },
    StageInfo {
        stage: Stage::Sccp,
        name: "sccp",
        why_here: "on SSA; folds constants before placement costs blocks",
    },
    StageInfo {
        stage: Stage::Placement,
        name: "placement",
        why_here: "on optimised SSA, before SSA is left (splits blocks)",
    },
    StageInfo {
        stage: Stage::OutOfSsa,
        name: "out-of-ssa",
        why_here: "after every SSA pass: phis become copies or block parameters",
    },
    StageInfo {
        stage: Stage::Lower,
        name: "lower",
        why_here: "needs phi-free IR to map to machine operands",
    },
    StageInfo {
        stage: Stage::Regalloc,
        name: "regalloc",
        why_here: "on machine operands with constraints",
    },
    StageInfo {
        stage: Stage::Check,
        name: "check",
        why_here: "judges the allocation just made",
    },
    StageInfo {
        stage: Stage::Emit,
        name: "emit",
        why_here: "last: prints what the pipeline produced",
    },
];

impl Stage {
    /// Every stage in pipeline order (from [`STAGES`]).
    pub const ALL: [Stage; 11] = {
        let mut all = [Stage::Verify; 11];
        let mut i = 0;
        while i < STAGES.len() {
            all[i] = STAGES[i].stage;
            i += 1;
        }
        all
    };

    /// Static facts about the stage.
    pub fn info(self) -> &'static StageInfo {
        &STAGES[self as usize]
    }

    /// Lower-case name used in timing reports.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The passes implemented by this stage.
    pub fn passes(self) -> PassSet {
        PASSES
            .iter()
            .filter(|p| p.stage == self)
            .fold(PassSet::empty(), |s, p| s | p.pass.bit())
    }
}

bitflags::bitflags! {
    /// A set of analyses (what a pass reads, what it invalidates, what is currently valid).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct Analyses: u8 {
        /// The control-flow graph (`analysis::Cfg`).
        const CFG = 1 << 0;
        /// The dominator tree (`analysis::DomTree`; computed from the CFG).
        const DOMTREE = 1 << 1;
        /// Dominance frontiers (`analysis::DominanceFrontiers`; from the tree).
        const FRONTIERS = 1 << 2;
        /// Strongly connected components (`analysis::Sccs`; from the CFG).
        const SCCS = 1 << 3;
    }
}

impl Analyses {
    /// This set plus the analyses its members are computed from.
    pub fn with_inputs(self) -> Analyses {
        let mut set = self;
        if set.intersects(Analyses::FRONTIERS) {
            set |= Analyses::DOMTREE;
        }
        if set.intersects(Analyses::DOMTREE | Analyses::SCCS) {
            set |= Analyses::CFG;
        }
        set
    }
}

bitflags::bitflags! {
    /// A set of passes (bit `i` is `Pass::ALL[i]`).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct PassSet: u16 {
        /// `verify`
        const VERIFY = 1 << 0;
        /// `cfg`
        const CFG = 1 << 1;
        /// `dominance`
        const DOMINANCE = 1 << 2;
        /// `mem2reg`
        const MEM2REG = 1 << 3;
        /// `sccp`
        const SCCP = 1 << 4;
        /// `placement`
        const PLACEMENT = 1 << 5;
        /// `phi-elim`
        const PHI_ELIM = 1 << 6;
        /// `block-params`
        const BLOCK_PARAMS = 1 << 7;
        /// `lower`
        const LOWER = 1 << 8;
        /// `regalloc`
        const REGALLOC = 1 << 9;
        /// `check`
        const CHECK = 1 << 10;
    }
}

/// A pass of the pipeline, as named on the command line. Facts about each are in [`PASSES`].
///
/// Also the system set of the pass's own systems where a stage holds systems of several
/// passes (out-of-SSA: `phi-elim` and `block-params`): the schedule for a config drops the
/// sets of passes the config does not run, so they cost nothing per function.
#[derive(SystemSet, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Pass {
    /// IR invariants of the current phase.
    Verify,
    /// Control-flow graph.
    Cfg,
    /// Immediate dominators, dominator tree, dominance frontiers.
    Dominance,
    /// SSA construction (promotion of allocas).
    Mem2Reg,
    /// Sparse conditional constant propagation.
    Sccp,
    /// Placement of blocks on execution targets.
    Placement,
    /// Phi elimination to copies.
    PhiElim,
    /// Phi to block-parameter conversion.
    BlockParams,
    /// Lowering to machine operands.
    Lower,
    /// Register allocation.
    Regalloc,
    /// Allocation checker.
    Check,
}

/// Static facts about a pass.
#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// The pass.
    pub pass: Pass,
    /// Kebab-case name.
    pub name: &'static str,
    /// The stage whose systems implement it.
    pub stage: Stage,
    /// Built in this version.
    pub available: bool,
    /// Passes that must run before it (run on demand).
    pub requires: PassSet,
    /// Analyses its systems read (brought up to date before its stage runs).
    pub reads: Analyses,
    /// Analyses it may invalidate (its systems mark them stale when they do).
    pub invalidates: Analyses,
    /// True if the pass rewrites the IR (the verifier runs after it with `--verify-each`).
    pub transforms: bool,
    /// One-line description for `--help`.
    pub summary: &'static str,
}

const NO_PASS: PassSet = PassSet::empty();
const NOTHING: Analyses = Analyses::empty();
const CFG_CHANGES: Analyses = Analyses::all();

/// Every pass in pipeline order; `PASSES[p as usize].pass == p`. Transforming passes require
/// `verify`, so they never see invalid input.
pub const PASSES: [PassInfo; 11] = [
    PassInfo {
        pass: Pass::Verify,
        name: "verify",
        stage: Stage::Verify,
        available: true,
        requires: NO_PASS,
        reads: Analyses::CFG.union(Analyses::DOMTREE),
        invalidates: NOTHING,
        transforms: false,
        summary: "check the IR invariants of the current phase",
    },
    PassInfo {
        pass: Pass::Cfg,
        name: "cfg",
        stage: Stage::Cfg,
        available: true,
        requires: NO_PASS,
        reads: Analyses::CFG,
        invalidates: NOTHING,
        transforms: false,
        summary: "successors, predecessors (per edge), reverse postorder, critical edges",
    },
    PassInfo {
        pass: Pass::Dominance,
        name: "dominance",
        stage: Stage::Dominance,
        available: true,
        requires: PassSet::CFG,
        reads: Analyses::DOMTREE.union(Analyses::FRONTIERS),
        invalidates: NOTHING,
        transforms: false,
        summary: "immediate dominators, dominator tree, dominance frontiers",
    },
    PassInfo {
        pass: Pass::Mem2Reg,
        name: "mem2reg",
        stage: Stage::Mem2Reg,
        available: true,
        requires: PassSet::VERIFY,
        reads: Analyses::CFG
            .union(Analyses::DOMTREE)
            .union(Analyses::FRONTIERS),
        invalidates: NOTHING,
        transforms: true,
        summary: "promote allocas to SSA values",
    },
    PassInfo {
        pass: Pass::Sccp,
        name: "sccp",
        stage: Stage::Sccp,
        available: true,
        requires: PassSet::VERIFY,
        reads: Analyses::CFG,
        invalidates: CFG_CHANGES,
        transforms: true,
        summary: "sparse conditional constant propagation",
    },
    PassInfo {
        pass: Pass::Placement,
        name: "placement",
        stage: Stage::Placement,
        available: true,
        requires: PassSet::VERIFY,
        reads: Analyses::CFG.union(Analyses::SCCS),
        invalidates: CFG_CHANGES,
        transforms: true,
        summary: "place blocks on execution targets (per-block target, domain, island columns); \
                  with splitting enabled, split blocks at target seams and fuse jump chains",
    },
    PassInfo {
        pass: Pass::PhiElim,
        name: "phi-elim",
        stage: Stage::OutOfSsa,
        available: true,
        requires: PassSet::VERIFY,
        reads: Analyses::CFG,
        invalidates: CFG_CHANGES,
        transforms: true,
        summary: "replace phis by copies in predecessors",
    },
    PassInfo {
        pass: Pass::BlockParams,
        name: "block-params",
        stage: Stage::OutOfSsa,
        available: true,
        requires: PassSet::VERIFY,
        reads: Analyses::CFG,
        invalidates: CFG_CHANGES,
        transforms: true,
        summary: "convert phis to block parameters",
    },
    PassInfo {
        pass: Pass::Lower,
        name: "lower",
        stage: Stage::Lower,
        available: true,
        requires: PassSet::BLOCK_PARAMS,
        reads: NOTHING,
        invalidates: NOTHING,
        transforms: false,
        summary: "lower to machine instructions for --target (off unless --target is given)",
    },
    PassInfo {
        pass: Pass::Regalloc,
        name: "regalloc",
        stage: Stage::Regalloc,
        available: cfg!(feature = "regalloc2"),
        requires: PassSet::LOWER,
        reads: NOTHING,
        invalidates: NOTHING,
        transforms: false,
        summary: "allocate registers with regalloc2 and check with its checker (needs --target)",
    },
    PassInfo {
        pass: Pass::Check,
        name: "check",
        stage: Stage::Check,
        available: cfg!(feature = "regalloc2"),
        requires: PassSet::REGALLOC,
        reads: NOTHING,
        invalidates: NOTHING,
        transforms: false,
        summary: "judge the allocation with our symbolic checker (needs --target; --check)",
    },
];

impl Pass {
    /// Every pass, in pipeline order (from [`PASSES`]).
    pub const ALL: [Pass; 11] = {
        let mut all = [Pass::Verify; 11];
        let mut i = 0;
        while i < PASSES.len() {
            all[i] = PASSES[i].pass;
            i += 1;
        }
        all
    };

    /// The pass's bit in a [`PassSet`].
    pub fn bit(self) -> PassSet {
        PassSet::from_bits_truncate(1 << (self as u16))
    }

    /// Static facts about the pass.
    pub fn info(self) -> PassInfo {
        PASSES[self as usize]
    }

    /// Looks a pass up by its kebab-case name.
    pub fn from_name(name: &str) -> Option<Pass> {
        PASSES.iter().find(|p| p.name == name).map(|p| p.pass)
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().name)
    }
}

/// The target architecture lowering writes machine code for (`--target`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Arch {
    /// x86-64, System V ABI.
    #[default]
    X86_64,
    /// aarch64, AAPCS64.
    Aarch64,
}

impl Arch {
    /// Both architectures.
    pub const ALL: [Arch; 2] = [Arch::X86_64, Arch::Aarch64];

    /// The name used by `--target` and in machine text.
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86-64",
            Arch::Aarch64 => "aarch64",
        }
    }

    /// Parses a `--target` name.
    pub fn from_name(s: &str) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// Tunable parameters of the passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassOptions {
    /// SCCP lattice memory limit in bytes (003: 100 KB); above it SCCP falls back to local
    /// constant folding.
    pub sccp_memory_limit: usize,
    /// mem2reg leaves the first N entry-block allocas (N = number of parameters) alone
    /// (002 invocation 1, before inlining); off by default (002 invocation 2).
    pub mem2reg_skip_params: bool,
    /// The text of the target model file the `placement` pass uses (TOML, the format of
    /// `placement::targets`); `None` for the built-in model. Kept as text so this module
    /// stays a leaf; the pass parses it once per engine (callers validate it first).
    pub placement_model: Option<std::sync::Arc<str>>,
    /// `placement` applies block splitting and fusion to the IR (off: results only).
    pub placement_split: bool,
    /// The architecture `lower` writes machine code for.
    pub target: Arch,
    /// The register allocator of the `regalloc` pass.
    pub allocator: Allocator,
    /// Our allocator records debug annotations per program point (`--annotate`).
    pub annotate_alloc: bool,
    /// Our allocator ignores the rematerialization hook (spills and reloads every value;
    /// `--no-remat`, for comparisons).
    pub no_remat: bool,
}

/// The register allocator the `regalloc` pass uses.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub enum Allocator {
    /// Ours: the Ion design over live-range and bundle entities (`crate::regalloc::ion`).
    #[default]
    Ion,
    /// regalloc2 0.15.2 (Ion), the reference allocator (feature `regalloc2`).
    Regalloc2,
}

impl Default for PassOptions {
    fn default() -> Self {
        PassOptions {
            sccp_memory_limit: 100 * 1024,
            mem2reg_skip_params: false,
            placement_model: None,
            placement_split: false,
            target: Arch::X86_64,
            allocator: Allocator::Ion,
            annotate_alloc: false,
            no_remat: false,
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
#[derive(Default, Debug)]
pub struct PassStats(pub Vec<Stat>);

impl PassStats {
    /// Adds `value` to the counter `pass`/`name` (creating it at zero).
    pub fn add(&mut self, pass: &'static str, name: &'static str, value: u64) {
        // Names are static strings: the same literal is usually the same pointer, so the
        // pointer test settles most comparisons before the text is compared.
        let same = |a: &'static str, b: &'static str| std::ptr::eq(a, b) || a == b;
        match self
            .0
            .iter_mut()
            .find(|s| same(s.name, name) && same(s.pass, pass))
        {
            Some(s) => s.value += value,
            None => self.0.push(Stat { pass, name, value }),
        }
    }
}

/// Wall time of the named systems of a stage that times its own phases (with
/// [`PipelineConfig::time_passes`]), in the order they ran; the engine hands them out with
/// the stage times (`strata compile --time-passes` prints them under their stage).
#[derive(Resource, Default, Debug)]
pub struct SystemTimes(pub Vec<(Stage, &'static str, std::time::Duration)>);

impl SystemTimes {
    /// A clock for a system when the config times passes (`None`: not timed).
    pub fn start(config: &PipelineConfig) -> Option<std::time::Instant> {
        config.time_passes.then(std::time::Instant::now)
    }

    /// Adds the time since `clock` (from [`SystemTimes::start`]) to system `name` of
    /// `stage`.
    pub fn record(&mut self, stage: Stage, name: &'static str, clock: Option<std::time::Instant>) {
        let Some(clock) = clock else {
            return;
        };
        let spent = clock.elapsed();
        match self.0.iter_mut().find(|(_, n, _)| *n == name) {
            Some((_, _, d)) => *d += spent,
            None => self.0.push((stage, name, spent)),
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
    /// Run the verifier after the last stage with a transforming pass, so that no output
    /// the verifier rejects is written (as `opt` verifies its output unless told not to).
    /// `strata compile` sets it; `bench` and the library default leave it off.
    pub verify_output: bool,
    /// Measure each stage's wall time into the engine's `PassTimings`.
    pub time_passes: bool,
    /// Print the function into the engine's `Dumps` after this pass's stage.
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
#[derive(Default, Debug)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// True if an error was reported.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
}

/// What a pipeline run reported about one function, without the function: its diagnostics
/// and statistics (what the library entry points of [`crate::api`] return, and what a
/// pass's typed statistics are read from).
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

/// How the World grows its tables: the function a stage's [`grow_rows`] step calls. The
/// engine inserts it (with every resource, in `engine::init_world`); only the engine knows
/// every column a new row needs, and a stage must not import the engine.
#[derive(Resource, Clone, Copy)]
pub struct RowGrowth(pub fn(&mut World));

/// Spawns the spare rows that the systems before it asked for (in each slot's
/// `ir::RowDemand`), so the systems after it can write them: an exclusive system that calls
/// the World's [`RowGrowth`]. A stage that adds blocks or instructions chains its planning
/// systems, this step, and its rewriting systems (DESIGN.md 2, rule 6: rows are spawned
/// while no column is borrowed).
///
/// # Panics
/// In a World not set up by `engine::init_world` (no [`RowGrowth`]): a bug, not an input.
pub fn grow_rows(world: &mut World) {
    let grow = *world.resource::<RowGrowth>();
    (grow.0)(world);
}

/// Why a pass list was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PassError {
    /// The name is not a pass.
    #[error("unknown pass `{name}` (known passes: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// Comma-separated list of pass names.
        known: String,
    },
    /// The pass exists but is not built yet.
    #[error("pass `{0}` is not available in this build yet")]
    Unavailable(&'static str),
    /// Two passes that exclude each other were requested.
    #[error("passes `{0}` and `{1}` are alternatives; request one of them")]
    Conflict(&'static str, &'static str),
}

impl PassSet {
    /// Every pass this build has.
    pub fn available() -> PassSet {
        Pass::ALL
            .iter()
            .filter(|p| p.info().available)
            .fold(PassSet::empty(), |s, p| s | p.bit())
    }

    /// The pipeline run when no pass list is given: every available pass, leaving SSA by
    /// phi elimination (`block-params` is the alternative for register allocation), without
    /// the machine passes (`lower` and what follows it), which the CLI adds when a
    /// `--target` is given.
    pub fn default_pipeline() -> PassSet {
        let set = PassSet::available() - PassSet::machine_passes();
        if set.contains(PassSet::PHI_ELIM) {
            set - PassSet::BLOCK_PARAMS
        } else {
            set
        }
    }

    /// Parses a comma-separated list of pass names; `none` (alone) is the empty set.
    ///
    /// # Errors
    /// [`PassError::Unknown`] for a name that is not a pass, [`PassError::Unavailable`] for a
    /// pass this build does not have.
    pub fn parse(list: &str) -> Result<PassSet, PassError> {
        let mut set = PassSet::empty();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "none" {
                continue;
            }
            let pass = Pass::from_name(name).ok_or_else(|| PassError::Unknown {
                name: name.to_string(),
                known: Pass::ALL
                    .iter()
                    .map(|p| p.info().name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
            if !pass.info().available {
                return Err(PassError::Unavailable(pass.info().name));
            }
            set |= pass.bit();
        }
        if set.contains(PassSet::PHI_ELIM | PassSet::BLOCK_PARAMS) {
            return Err(PassError::Conflict("phi-elim", "block-params"));
        }
        Ok(set)
    }

    /// The passes that work on the machine form (`lower`, `regalloc`, `check`).
    pub const fn machine_passes() -> PassSet {
        PassSet::LOWER
            .union(PassSet::REGALLOC)
            .union(PassSet::CHECK)
    }

    /// This set plus, transitively, every pass its members require.
    pub fn with_requirements(self) -> PassSet {
        let mut set = self;
        loop {
            let next = Pass::ALL
                .iter()
                .filter(|p| set.contains(p.bit()))
                .fold(set, |s, p| s | p.info().requires);
            if next == set {
                return set;
            }
            set = next;
        }
    }

    /// True if `pass` is in the set.
    pub fn has(self, pass: Pass) -> bool {
        self.contains(pass.bit())
    }

    /// The passes of the set, in pipeline order.
    pub fn passes(self) -> impl Iterator<Item = Pass> {
        Pass::ALL.into_iter().filter(move |p| self.has(*p))
    }
}

impl PipelineConfig {
    /// The analyses the enabled passes of `stage` read.
    pub fn reads(&self, stage: Stage) -> Analyses {
        self.stage_analyses(stage, |p| p.reads)
    }

    /// The analyses the enabled passes of `stage` may invalidate.
    pub fn invalidates(&self, stage: Stage) -> Analyses {
        self.stage_analyses(stage, |p| p.invalidates)
    }

    /// The union of `field` over the enabled passes of `stage`.
    fn stage_analyses(&self, stage: Stage, field: impl Fn(&PassInfo) -> Analyses) -> Analyses {
        self.passes
            .passes()
            .filter(|p| p.info().stage == stage)
            .fold(Analyses::empty(), |a, p| a | field(&p.info()))
    }

    /// True if the verifier runs after `stage`: after a stage with an enabled transforming
    /// pass, with `verify_each` and always in debug builds; with `verify_output`, after the
    /// last such stage.
    pub fn verifies_after(&self, stage: Stage) -> bool {
        let transforms = |s: Stage| {
            self.passes
                .passes()
                .any(|p| p.info().stage == s && p.info().transforms)
        };
        transforms(stage)
            && (self.verify_each
                || cfg!(debug_assertions)
                || (self.verify_output
                    && Stage::ALL.iter().rev().find(|s| transforms(**s)) == Some(&stage)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_output_verifies_after_the_last_transforming_stage() {
        let passes = PassSet::MEM2REG | PassSet::SCCP;
        let config = PipelineConfig {
            verify_output: true,
            ..PipelineConfig::new(passes)
        };
        assert!(config.verifies_after(Stage::Sccp));
        // Analysis-only stages never verify; earlier transforming stages only when every
        // stage verifies (`verify_each`, or any debug build).
        assert!(!config.verifies_after(Stage::Cfg));
        assert_eq!(
            config.verifies_after(Stage::Mem2Reg),
            cfg!(debug_assertions)
        );
        let plain = PipelineConfig::new(passes);
        assert_eq!(plain.verifies_after(Stage::Sccp), cfg!(debug_assertions));
    }

    #[test]
    fn bits_match_order() {
        for (i, p) in Pass::ALL.iter().enumerate() {
            assert_eq!(p.bit().bits(), 1 << i, "{p}");
            assert_eq!(Pass::from_name(p.info().name), Some(*p));
        }
    }

    #[test]
    fn parse_lists() {
        assert_eq!(PassSet::parse("none"), Ok(PassSet::empty()));
        assert_eq!(
            PassSet::parse("cfg,verify"),
            Ok(PassSet::CFG | PassSet::VERIFY)
        );
        assert!(matches!(
            PassSet::parse("cfg,bogus"),
            Err(PassError::Unknown { .. })
        ));
        assert_eq!(
            PassSet::parse("dominance").unwrap().with_requirements(),
            PassSet::CFG | PassSet::DOMINANCE
        );
    }
}

//! Sparse conditional constant propagation (the `sccp` pass; 003; DESIGN.md 1 and 4).
//!
//! What: finds the SSA values that are the same constant on every execution and the blocks
//! and edges that can execute at all, then replaces those values by constants, turns branches
//! on constants into jumps, removes unreachable blocks and simplifies phis.
//!
//! Algorithm: Wegman & Zadeck, "Constant propagation with conditional branches", ACM TOPLAS
//! 13(2), 1991: optimistic propagation over the lattice of [`lattice`] with a CFG-edge
//! worklist and an SSA-value worklist ([`solver`]), then the rewrite ([`rewrite`]).
//! Folding ([`rules`]) uses the interpreter's scalar rules ([`crate::interp::ops`]), so a folded constant is
//! exactly what execution computes and an operation that would trap (division by a constant
//! zero, `MIN / -1`, an oversized shift) is `Overdefined` and stays in the function.
//!
//! Decisions (beyond 003):
//! - Lattice names `Unknown`/`Const`/`Overdefined`; edges keyed by (block, successor
//!   index); `switch` and `indirect_br` (of a `blockaddress`) resolve too (DESIGN.md 4).
//! - Loads from read-only globals fold (003 makes loads `Overdefined` "conservative, may be
//!   improved"; LLVM's SCCP folds these through `ConstantFoldLoadFromConstPtr`). The pass
//!   reads the module's [`SymbolTable`](crate::ir::SymbolTable): a global that is `constant` with an initialiser is
//!   read-only ([`SymbolTable::read_only`](crate::ir::SymbolTable::read_only); the LLVM importer leaves weak, linkonce and
//!   common definitions out). The lattice has symbol-plus-offset address constants: `@g` is
//!   offset 0 and a `gep` by constant indices moves the offset; a non-volatile load from such
//!   an address within a read-only global is what the interpreter reads there
//!   ([`rules::load_constant`]: little-endian bytes, zero past the initialiser, a relocation's
//!   symbol and addend for a `ptr` load at its offset). Out-of-bounds loads stay (they trap).
//!   Other loads, calls, allocas, atomics, asm and opaque instructions are `Overdefined`, and
//!   so is a `gep` of anything but a symbol. A symbol at a non-zero offset has no pool
//!   constant: its `gep` stays while used and is removed once the loads it fed have folded.
//!   Addresses are constants for phis, selects, copies and `indirect_br`; they are not
//!   compared (`icmp eq @g, null` stays: the interpreter has no address for an external
//!   global, and folding the comparison would hide that error).
//! - `undef` is the zero of its type, as in the interpreter (LLVM instead lets `undef` meet
//!   to any constant; that would make SCCP and the oracle disagree).
//! - Like LLVM's SCCP, `x & 0`, `x * 0`, `x | -1`, `x urem 1`, comparisons with the extreme
//!   value of their predicate (`x ult 0`, `x sgt MAX`, ...), `fcmp false`/`fcmp true` and a
//!   `select` whose arms agree fold even when the other operands are `Overdefined`; nothing
//!   that could trap is folded this way. LLVM 14 goes further with integer ranges and
//!   branch-condition facts (PredicateInfo); 003 fixes a three-level lattice, so those are
//!   not done here.
//! - Measured against LLVM 14's `sccp` after `mem2reg` on zlib, bzip2 and lua (`strata
//!   bench target/corpus --against-llvm`): this pass removes more instructions than LLVM's
//!   on each (45/85/85 against 36/71/78 for bzip2/lua/zlib) and also resolves branches and
//!   removes dead blocks, which LLVM 14's SCCP leaves. What LLVM folds and this pass does not:
//!   (1) a `gep` of a symbol used other than by a folded load, which LLVM turns into a
//!   constant expression (the constant pool has no address-plus-offset constant); (2) ranges
//!   (bzip2: `icmp slt %phi, 8` with the phi's values in a range; 003 fixes a three-level
//!   lattice). LLVM's `undef` rule changed no result on these modules.
//! - Copies propagate: a `copy` of a constant folds, any other `copy` is removed and its uses
//!   read its source.
//! - 003's `verbose` flag: notes go to [`Diagnostics`] (printed by `--verbose`), counters to
//!   [`PassStats`] (`--stats`), and [`SccpResult::describe`] dumps an analysis (the `sccp`
//!   filetests).
//! - Input phases: SSA (`ssa` becomes `optimized`; `optimized` and `placed` stay). Memory form
//!   is accepted too: it is valid single-definition IR whose locals live in allocas, so SCCP
//!   folds what does not go through memory (loads are `Overdefined`) and the phase stays
//!   `memory`, so that mem2reg can still run. From `destructed` on (several definitions per
//!   value) SCCP reports [`SccpError::UnsupportedPhase`].
//! - The memory limit (003: 24 bytes per lattice entry, default 100 KiB,
//!   `PipelineConfig.options.sccp_memory_limit`) makes the analysis fail with
//!   [`SccpError::MemoryLimit`]; the pass then runs the local folder ([`fold`]) instead,
//!   counts `sccp/memory_limit_fallbacks` and reports a [`Severity::Note`].
//! - Invalid input (a missing successor, a dangling value) is an error diagnostic, never a
//!   panic; the function is left unchanged.
//! - Functions are independent: one [`SccpSolution`] per function slot and one
//!   [`SccpScratch`] per engine, engines per thread, so `strata bench` and
//!   `batch::run_functions` run SCCP on all cores, a batch of functions per schedule run.
//!
//! Systems (DESIGN.md 2: the function lives in the World as component columns; analysis and
//! transformation are separate systems, as 003 separates them), chained in [`Stage::Sccp`]
//! by [`configure`]. The pass declares that it reads `cfg` (the engine brings the shared
//! [`Cfg`] up to date at the stage's begin) and invalidates every analysis.
//!
//! | system | reads | writes |
//! |---|---|---|
//! | [`solve_sccp`] | `InstOp`, `InstResults`, `BlockInsts`, `BlockTerm`, `BlockDead`; values, constants, `FunctionInfo`; [`Cfg`], [`Symbols`], [`PipelineConfig`], [`ValidAnalyses`] | [`SccpSolution`] |
//! | [`rewrite_sccp`] | [`SccpSolution`], [`Cfg`], [`Symbols`], [`PipelineConfig`]; `InstResults`, values | `InstOp`, `InstDead`, `BlockInsts`, `BlockTerm`, `BlockParams`, `BlockDead`; constants, `FunctionInfo.phase`; [`SccpScratch`], [`PassStats`], [`Diagnostics`], [`ValidAnalyses`] |
//!
//! When the solver saw nothing to change ([`SccpResult::nothing_to_rewrite`]: 97% of the
//! functions of sqlite at `-O0`) the rewrite only sets the phase and zero counters; when
//! that holds for every function of the batch it does not take the column slices at all
//! (`IrMut::tables_mut` instead of `IrMut::bodies`).
//!
//! Neither builds a CFG: edge ids are (block, successor index) in the shared [`Cfg`]'s
//! successor order, and the fallback walks its reverse postorder. SCCP creates no rows:
//! removed instructions are flagged in `InstDead`, removed blocks in `BlockDead`. When the
//! rewrite changed the CFG (a branch resolved, a block removed) it removes what the pass
//! invalidates from [`ValidAnalyses`], and the engine recomputes the analyses once, before
//! the next stage that reads them.
//!
//! Library entry points: [`crate::api::optimize_with_sccp`] runs the same two systems on a
//! [`Function`](crate::ir::Function) through this thread's engine (with the verifier the pass requires),
//! [`crate::api::apply_sccp_transformations`] runs [`rewrite_sccp`] on a given result in a
//! temporary World (they live in [`crate::api`], above the engine), and [`sccp_analysis`] /
//! [`sccp_analysis_in_module`] run the solver alone on a [`Function`](crate::ir::Function) (analysis only, with
//! the function's [`Cfg`] from [`Cfg::compute`]).
//!
//! Complexity: linear in instructions + operands + edges (see [`solver`] and [`rewrite`]).

pub mod fold;
pub mod lattice;
pub mod rewrite;
pub mod rules;
pub mod solver;
mod vector;

pub use fold::Folder;
pub use lattice::{Constant, LatticeValue};
pub use rewrite::{RewriteStats, Rewriter};
pub use solver::{sccp_analysis, sccp_analysis_in_module, Solver, LATTICE_ENTRY_BYTES};

use crate::analysis::{Analyses, Cfg, ValidAnalyses};
use crate::ir::{
    Block, Body, BodyRef, Const, ConstKind, Inst, IrMut, IrRead, IrView, PerSlot, Phase, Symbols,
    Value, ValueDef,
};
use crate::stage::{
    Diagnostic, Diagnostics, Pass, PassStats, PipelineConfig, Severity, Stage, Stat,
};
use bevy_ecs::prelude::*;

/// A violated invariant of an [`SccpResult`] ([`SccpResult::validate`]): a solver bug, never
/// an input error. Each variant names the block, edge or value where it fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidResult {
    /// Block 0 is not reachable.
    #[error("entry block not reachable")]
    EntryUnreachable,
    /// An executable edge leaves an unreachable block.
    #[error("executable edge {from}#{succ} from unreachable {from}")]
    EdgeFromUnreachable {
        /// The edge's source block.
        from: Block,
        /// The edge's successor index in its terminator.
        succ: usize,
    },
    /// An executable edge enters an unreachable block.
    #[error("executable edge {from}#{succ} to unreachable {to}")]
    EdgeToUnreachable {
        /// The edge's source block.
        from: Block,
        /// The edge's successor index in its terminator.
        succ: usize,
        /// The edge's target block.
        to: Block,
    },
    /// A reachable block other than the entry that no executable edge enters.
    #[error("{0} is reachable but no executable edge enters it")]
    NotEntered(Block),
    /// The lattice has a cell for a value the function does not have.
    #[error("more cells than values ({cells} cells, {values} values)")]
    TooManyCells {
        /// Lattice cells.
        cells: usize,
        /// Values of the function.
        values: usize,
    },
    /// A value the function never defines has a cell other than `Unknown`.
    #[error("cell of undefined value {value} is {cell}")]
    UndefinedCell {
        /// The value.
        value: Value,
        /// Its cell.
        cell: LatticeValue,
    },
}

/// Why SCCP did not run on a function (003 `SCCPError`, with Rust casing: `InvalidCFG` is
/// [`SccpError::InvalidCfg`], `InvalidSSA` is [`SccpError::InvalidSsa`]; plus the checks the
/// dense tables need).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SccpError {
    /// More than `limit` bytes of lattice entries (24 bytes each) were live.
    #[error("SCCP lattice memory limit ({limit} bytes) exceeded for function {function_name}")]
    MemoryLimit {
        /// The function's name.
        function_name: String,
        /// The limit in bytes.
        limit: usize,
    },
    /// A terminator or `asm goto` label names a block that is out of range or dead (or the
    /// entry block is missing).
    #[error("Invalid CFG: missing successor block {block_id}")]
    InvalidCfg {
        /// The missing block.
        block_id: Block,
    },
    /// An operand or result names a value that is out of range or never defined.
    #[error("Invalid SSA reference: value {value_id} not found")]
    InvalidSsa {
        /// The value.
        value_id: Value,
    },
    /// A block lists an instruction index that is out of range.
    #[error("Invalid instruction reference: {inst} not found")]
    InvalidInstruction {
        /// The instruction.
        inst: Inst,
    },
    /// An operand names a constant outside the pool.
    #[error("Invalid constant reference: {constant} not found")]
    InvalidConstant {
        /// The constant.
        constant: Const,
    },
    /// The function is past SSA (several definitions per value).
    #[error("SCCP needs single-definition IR; function is in phase {}", phase.name())]
    UnsupportedPhase {
        /// The phase found.
        phase: Phase,
    },
    /// [`crate::api::optimize_with_sccp`] only: the pipeline reported an error diagnostic (the verifier, which
    /// runs before SCCP, rejected the function; or SCCP itself failed). The function is
    /// unchanged.
    #[error("{message}")]
    Rejected {
        /// The first error diagnostic, as reported.
        message: String,
    },
}

/// How SCCP ended on a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SccpOutcome {
    /// The full analysis ran and its result was applied.
    Optimized(RewriteStats),
    /// The memory limit was exceeded; local folding ran instead.
    Fallback(RewriteStats),
}

impl SccpOutcome {
    /// The rewrite statistics, whichever path ran.
    pub fn stats(&self) -> RewriteStats {
        match self {
            SccpOutcome::Optimized(s) | SccpOutcome::Fallback(s) => *s,
        }
    }
}

/// What [`solve_sccp`] concluded about the function in the World.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SccpStatus {
    /// No analysis since the resource was created.
    #[default]
    NotRun,
    /// The analysis reached its fixpoint: [`Solver::result`] holds it.
    Solved,
    /// The lattice memory limit was exceeded: no result; the rewrite folds locally.
    MemoryLimit,
    /// The function cannot be analysed (bad phase or reference): no result, no rewrite.
    Failed(SccpError),
}

/// The SCCP analysis of the function in the World: written by [`solve_sccp`], read by
/// [`rewrite_sccp`] (and by tests and the fuzz check, after a run). The solver keeps its
/// scratch (cleared, never dropped, between functions).
#[derive(Default, Debug)]
pub struct SccpSolution {
    /// The analysis with its scratch; [`Solver::result`] is the result when `status` is
    /// [`SccpStatus::Solved`] (empty otherwise).
    pub solver: Solver,
    /// How the last analysis ended.
    pub status: SccpStatus,
}

impl SccpSolution {
    /// The result of the last analysis, if it reached its fixpoint.
    pub fn result(&self) -> Option<&SccpResult> {
        (self.status == SccpStatus::Solved).then(|| self.solver.result())
    }

    /// True if the analysis reached its fixpoint and saw nothing to change
    /// ([`SccpResult::nothing_to_rewrite`]): the rewrite only sets the phase.
    pub fn nothing_to_rewrite(&self) -> bool {
        self.result().is_some_and(|r| r.nothing_to_rewrite)
    }
}

/// The reusable state of the rewrite: rewriter and fallback folder scratch (cleared, never
/// dropped, between functions).
#[derive(Resource, Default, Debug)]
pub struct SccpScratch {
    /// The rewrite.
    pub rewriter: Rewriter,
    /// The fallback.
    pub folder: Folder,
}

/// The SCCP analysis of the function in the World (the first system of [`Stage::Sccp`]).
///
/// Reads, through [`IrView`], the instruction columns `InstOp` (operations and operands)
/// and `InstResults`, the block columns `BlockInsts`, `BlockTerm` and `BlockDead`, the value
/// table, the constant pool and `FunctionInfo` (phase, parameters, name); and the resources
/// [`Cfg`] (edge ids in its successor order), [`Symbols`] (read-only globals),
/// [`PipelineConfig`] (`options.sccp_memory_limit`) and [`ValidAnalyses`]. Writes
/// [`SccpSolution`] only; the function is untouched. Requires a verified single-definition
/// function and a valid CFG (the engine refreshes it at the stage's begin: the pass
/// declares it reads `cfg`). Establishes: `SccpSolution.status` says how the analysis
/// ended, and when `Solved` the solver's result describes the function as it is now.
pub fn solve_sccp(
    ir: IrView,
    cfg: Res<PerSlot<Cfg>>,
    symbols: Res<Symbols>,
    config: Res<PipelineConfig>,
    valid: Res<PerSlot<ValidAnalyses>>,
    mut solution: ResMut<PerSlot<SccpSolution>>,
) {
    let limit = config.options.sccp_memory_limit;
    for (s, f) in ir.bodies() {
        debug_assert!(
            valid[s].0.contains(Analyses::CFG),
            "solve_sccp runs on a stale CFG"
        );
        let solution = &mut solution[s];
        let phase = f.phase();
        solution.status = if !phase.single_definition() {
            SccpStatus::Failed(SccpError::UnsupportedPhase { phase })
        } else {
            match solution.solver.analyze(&f, &cfg[s], &symbols.0, limit) {
                Ok(_) => SccpStatus::Solved,
                Err(SccpError::MemoryLimit { .. }) => SccpStatus::MemoryLimit,
                Err(e) => SccpStatus::Failed(e),
            }
        };
    }
}

/// Instructions and terminators of live blocks: the size whose drop is reported as
/// `sccp/instructions_removed`, measured the way `bench --against-llvm` measures LLVM's (the
/// rewrite counts it as it removes; debug builds check the count against this).
fn size(f: &BodyRef<'_>) -> u64 {
    let blocks = (0..f.num_blocks()).filter(|&b| !f.block_dead[b]).count();
    (f.live_inst_count() + blocks) as u64
}

/// The SCCP transformation of the function in the World (the second system of
/// [`Stage::Sccp`], after [`solve_sccp`]).
///
/// Reads [`SccpSolution`], [`Cfg`] (the pre-rewrite edges: phi entries per remaining edge;
/// the fallback's reverse postorder), [`Symbols`] and [`PipelineConfig`] (fallback only).
/// Writes, through [`IrMut`], the columns `InstOp` (operands replaced, phi entries
/// trimmed), `InstDead` (every instruction unlisted), `BlockInsts`, `BlockTerm` (resolved
/// branches; `unreachable` for removed blocks), `BlockParams` (cleared for removed blocks)
/// and `BlockDead` (removed blocks), the constant pool (folded constants interned) and
/// `FunctionInfo.phase`; reads `InstResults` and the value table. Writes [`PassStats`]
/// (`sccp/*` counters), [`Diagnostics`] (an error when the analysis failed, a note on the
/// memory-limit fallback), [`SccpScratch`], and removes the analyses the pass invalidates
/// from [`ValidAnalyses`] when the CFG changed (resolved branches, removed blocks), so the
/// engine recomputes them before the next stage that reads them. Creates no row.
/// Requires [`solve_sccp`] to have run on the function as it is. Establishes: constant
/// values replaced, no branch on a constant in a reachable block, no unreachable block
/// (full analysis), phase `optimized` (from `ssa`).
#[allow(clippy::too_many_arguments)]
pub fn rewrite_sccp(
    mut ir: IrMut,
    cfg: Res<PerSlot<Cfg>>,
    symbols: Res<Symbols>,
    config: Res<PipelineConfig>,
    solution: Res<PerSlot<SccpSolution>>,
    mut scratch: ResMut<SccpScratch>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
    mut stats: ResMut<PerSlot<PassStats>>,
    mut diags: ResMut<PerSlot<Diagnostics>>,
) {
    // Most functions of unoptimised C code have nothing to rewrite: when no live slot has,
    // only the phase and the zero counters change, and handing out the column slices
    // (`IrMut::bodies`, about 5,000 instructions per batch) is skipped.
    let tables = ir.tables_mut();
    if tables
        .live_slots()
        .all(|s| solution[s].nothing_to_rewrite())
    {
        for s in tables.live_slots() {
            mark_optimized(&mut tables.slots[s].info);
            record(&mut stats[s], RewriteStats::default());
        }
        return;
    }
    for (s, mut f) in ir.bodies() {
        rewrite_one(
            &mut f,
            &cfg[s],
            &symbols,
            &config,
            &solution[s],
            &mut scratch,
            &mut valid[s],
            &mut stats[s],
            &mut diags[s],
        );
    }
}

/// [`rewrite_sccp`] on one function.
#[allow(clippy::too_many_arguments)]
fn rewrite_one(
    f: &mut Body<'_>,
    cfg: &Cfg,
    symbols: &Symbols,
    config: &PipelineConfig,
    solution: &SccpSolution,
    scratch: &mut SccpScratch,
    valid: &mut ValidAnalyses,
    stats: &mut PassStats,
    diags: &mut Diagnostics,
) {
    // The solver saw nothing to change (most functions of unoptimised C code): no walk.
    let unchanged = solution.nothing_to_rewrite();
    let before = cfg!(debug_assertions).then(|| size(&f.view()));
    let SccpScratch { rewriter, folder } = &mut *scratch;
    let rewritten = match &solution.status {
        SccpStatus::Solved if unchanged => Some(RewriteStats::default()),
        SccpStatus::Solved => {
            let result = solution.solver.result();
            Some(rewriter.apply(
                f,
                cfg,
                &result.values,
                &result.reachable,
                &result.aggregates,
            ))
        }
        SccpStatus::MemoryLimit => {
            let limit = config.options.sccp_memory_limit;
            stats.add("sccp", "memory_limit_fallbacks", 1);
            diags.0.push(Diagnostic {
                severity: Severity::Note,
                pass: "sccp",
                message: format!(
                    "SCCP lattice memory limit ({limit} bytes) exceeded for function @{}; \
                     fell back to local constant folding",
                    f.info.name
                ),
            });
            Some(folder.fold(f, cfg, &symbols.0, rewriter))
        }
        SccpStatus::Failed(e) => {
            diags.0.push(Diagnostic {
                severity: Severity::Error,
                pass: "sccp",
                message: format!("function @{}: {e}", f.info.name),
            });
            None
        }
        SccpStatus::NotRun => None,
    };
    if rewritten.is_some() {
        mark_optimized(f.info);
    }
    let rs = rewritten.unwrap_or_default();
    if let Some(before) = before {
        debug_assert_eq!(
            before - size(&f.view()),
            rs.instructions_removed,
            "SCCP of @{} miscounted what it removed",
            f.info.name
        );
    }
    record(stats, rs);
    if rs.cfg_changed() {
        valid.0 -= Pass::Sccp.info().invalidates;
    }
}

/// An SSA function SCCP has run on is in `Phase::Optimized` (other phases stay).
fn mark_optimized(info: &mut crate::ir::FunctionInfo) {
    if info.phase == Phase::Ssa {
        info.phase = Phase::Optimized;
    }
}

/// Adds the `sccp/*` counters of one function's rewrite to its [`PassStats`].
fn record(stats: &mut PassStats, rs: RewriteStats) {
    let counters = [
        ("instructions_folded", rs.instructions_folded),
        ("branches_resolved", rs.branches_resolved),
        ("blocks_removed", rs.blocks_removed),
        ("phis_simplified", rs.phis_simplified),
        ("copies_propagated", rs.copies_propagated),
        ("instructions_removed", rs.instructions_removed),
    ];
    // `PassStats::add` searches the list once per counter; when no `sccp` counter exists
    // yet (the list is per function) one search shows that each would be created, in order.
    let same = |a: &'static str, b: &'static str| std::ptr::eq(a, b) || a == b;
    if stats.0.iter().any(|s| same(s.pass, "sccp")) {
        for (name, value) in counters {
            stats.add("sccp", name, value);
        }
    } else {
        stats.0.extend(counters.map(|(name, value)| Stat {
            pass: "sccp",
            name,
            value,
        }));
    }
}

/// Inserts the pass's resources, [`SccpSolution`] and [`SccpScratch`] (done once per World).
pub fn init_resources(world: &mut World) {
    world.init_resource::<PerSlot<SccpSolution>>();
    world.init_resource::<SccpScratch>();
}

/// Adds [`solve_sccp`] then [`rewrite_sccp`], chained, to [`Stage::Sccp`].
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems((solve_sccp, rewrite_sccp).chain().in_set(Stage::Sccp));
}

/// Empties `v` and leaves room for `n` elements. A vector too small is replaced rather
/// than grown: growing a cleared vector would copy its stale contents (`realloc` copies
/// the whole old block), and every function sizes the per-slot scratch anew.
#[inline]
pub(crate) fn clear_for<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() < n {
        *v = Vec::with_capacity(n);
    } else {
        v.clear();
    }
}

/// Sets `v` to `n` copies of `x` (a dense table keyed by index), without copying stale
/// contents when it must grow ([`clear_for`]).
#[inline]
pub(crate) fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    clear_for(v, n);
    v.resize(n, x);
}

/// A growable bitset over dense indices.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// Clears and sizes the set for indices `0..n`.
    pub fn reset(&mut self, n: usize) {
        refill(&mut self.words, n.div_ceil(64), 0);
    }

    /// Inserts `i`; true if it was absent.
    #[inline]
    pub fn insert(&mut self, i: usize) -> bool {
        let (w, m) = (i / 64, 1u64 << (i % 64));
        let was = self.words[w] & m != 0;
        self.words[w] |= m;
        !was
    }

    /// True if `i` is in the set (false beyond the size).
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Number of members.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// What SCCP proved about one function (003 `SCCPResult`, as dense tables).
#[derive(Clone, Default, Debug)]
pub struct SccpResult {
    /// `values[Value]`: the final lattice cell of every value index (holes stay `Unknown`).
    pub values: Vec<LatticeValue>,
    /// Blocks proven reachable from the entry block.
    pub reachable: BitSet,
    /// `succ_start[b]..succ_start[b + 1]` are the edge ids of block `b` (length blocks + 1).
    pub succ_start: Vec<u32>,
    /// `succ_block[edge]`: the target of each edge.
    pub succ_block: Vec<Block>,
    /// Executable edges, by edge id.
    pub executable: BitSet,
    /// Instructions of reachable blocks whose result is a constant.
    pub foldable_count: usize,
    /// Reachable conditional terminators (`br`, `switch`, `indirect_br`) whose condition is
    /// a constant.
    pub resolvable_branches: usize,
    /// Cell updates that would have moved a cell up the lattice (always 0; a fuzzing oracle).
    pub monotonicity_violations: usize,
    /// Member lists of the aggregate constants in `values` ([`lattice::AggConsts`]).
    pub aggregates: lattice::AggConsts,
    /// True when the solver saw that the rewrite has nothing to do: no constant cell, every
    /// live block reachable, no resolvable branch, no `copy` and no phi whose entries are
    /// one operand (besides itself) in the function. [`rewrite_sccp`] then changes only the
    /// phase. False (the rewrite runs) in a result built otherwise.
    pub nothing_to_rewrite: bool,
}

impl SccpResult {
    /// Empties every table (keeping capacity) and zeroes the counts.
    pub fn clear(&mut self) {
        self.values.clear();
        self.reachable.reset(0);
        self.succ_start.clear();
        self.succ_block.clear();
        self.executable.reset(0);
        self.foldable_count = 0;
        self.resolvable_branches = 0;
        self.monotonicity_violations = 0;
        self.aggregates.clear();
        self.nothing_to_rewrite = false;
    }

    /// The lattice cell of `v` (`Unknown` for an out-of-range index).
    pub fn value(&self, v: Value) -> LatticeValue {
        self.values.get(v.index()).copied().unwrap_or_default()
    }

    /// True if `b` is reachable.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.reachable.contains(b.index())
    }

    /// True if successor edge `succ` of block `b` is executable.
    pub fn is_edge_executable(&self, b: Block, succ: usize) -> bool {
        let (s, e) = self.edge_range(b);
        s + succ < e && self.executable.contains(s + succ)
    }

    fn edge_range(&self, b: Block) -> (usize, usize) {
        match (
            self.succ_start.get(b.index()),
            self.succ_start.get(b.index() + 1),
        ) {
            (Some(&s), Some(&e)) => (s as usize, e as usize),
            _ => (0, 0),
        }
    }

    /// Executable edges as (block, successor index, target), in block order.
    pub fn executable_edges(&self) -> impl Iterator<Item = (Block, usize, Block)> + '_ {
        (0..self.succ_start.len().saturating_sub(1)).flat_map(move |b| {
            let (s, e) = self.edge_range(Block::new(b));
            (s..e)
                .filter(|&id| self.executable.contains(id))
                .map(move |id| (Block::new(b), id - s, self.succ_block[id]))
        })
    }

    /// A text dump (003's `verbose` output, used by the `sccp` filetests): reachable blocks,
    /// executable edges as `blockN#i -> blockM`, every cell that is not `Unknown`, and the
    /// two counts. Values print as `vN: const i32 7`, `vN: overdefined`.
    pub fn describe(&self, f: &impl IrRead) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let reachable: Vec<String> = (0..f.num_blocks())
            .filter(|&b| self.reachable.contains(b))
            .map(|b| Block::new(b).to_string())
            .collect();
        let _ = writeln!(out, "reachable [{}]", reachable.join(", "));
        let edges: Vec<String> = self
            .executable_edges()
            .map(|(b, i, t)| format!("{b}#{i} -> {t}"))
            .collect();
        let _ = writeln!(out, "executable [{}]", edges.join(", "));
        for (v, c) in self.values.iter().enumerate() {
            if *c != LatticeValue::Unknown {
                let c = match c {
                    LatticeValue::Const(Constant::Symbol { symbol, offset: 0 }) => {
                        format!("const address {:?}", ConstKind::SymbolAddr(*symbol))
                    }
                    LatticeValue::Const(Constant::Address(k)) => match f.consts().try_get(*k) {
                        Some(d) => format!("const address {:?}", d.kind),
                        None => c.to_string(),
                    },
                    _ => c.to_string(),
                };
                let _ = writeln!(out, "v{v}: {c}");
            }
        }
        let _ = writeln!(
            out,
            "foldable {} resolvable branches {}",
            self.foldable_count, self.resolvable_branches
        );
        out
    }

    /// The 003 invariants: the entry block is reachable, both ends of every executable edge
    /// are reachable (so every reachable block but the entry is entered by an executable
    /// edge), every cell names a value of `f` and a non-`Unknown` cell a defined one.
    /// Returns the first violation.
    pub fn validate(&self, f: &impl IrRead) -> Result<(), InvalidResult> {
        if f.num_blocks() > 0 && !self.is_reachable(Block(0)) {
            return Err(InvalidResult::EntryUnreachable);
        }
        let mut entered = BitSet::default();
        entered.reset(f.num_blocks());
        if f.num_blocks() > 0 {
            entered.insert(0);
        }
        for (b, i, t) in self.executable_edges() {
            if !self.is_reachable(b) {
                return Err(InvalidResult::EdgeFromUnreachable { from: b, succ: i });
            }
            if !self.is_reachable(t) {
                return Err(InvalidResult::EdgeToUnreachable {
                    from: b,
                    succ: i,
                    to: t,
                });
            }
            entered.insert(t.index());
        }
        for b in 0..f.num_blocks() {
            if self.reachable.contains(b) && !entered.contains(b) {
                return Err(InvalidResult::NotEntered(Block::new(b)));
            }
        }
        if self.values.len() > f.values().len() {
            return Err(InvalidResult::TooManyCells {
                cells: self.values.len(),
                values: f.values().len(),
            });
        }
        for (i, c) in self.values.iter().enumerate() {
            if *c != LatticeValue::Unknown && f.values()[i].def == ValueDef::Unused {
                return Err(InvalidResult::UndefinedCell {
                    value: Value::new(i),
                    cell: *c,
                });
            }
        }
        Ok(())
    }
}

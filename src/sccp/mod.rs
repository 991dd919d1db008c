//! Sparse conditional constant propagation (the `sccp` pass; 003; DESIGN.md 1 and 4).
//!
//! What: finds the SSA values that are the same constant on every execution and the blocks
//! and edges that can execute at all, then replaces those values by constants, turns branches
//! on constants into jumps, removes unreachable blocks and simplifies phis.
//!
//! Algorithm: Wegman & Zadeck, "Constant propagation with conditional branches", ACM TOPLAS
//! 13(2), 1991: optimistic propagation over the lattice of [`lattice`] with a CFG-edge
//! worklist and an SSA-value worklist ([`solver`]), then the rewrite ([`rewrite`]). Folding
//! uses the interpreter's scalar rules ([`crate::interp::ops`]), so a folded constant is
//! exactly what execution computes and an operation that would trap (division by a constant
//! zero, `MIN / -1`, an oversized shift) is `Overdefined` and stays in the function.
//!
//! Decisions (beyond 003):
//! - Lattice names `Unknown`/`Const`/`Overdefined`; edges keyed by (block, successor
//!   index); `switch` and `indirect_br` (of a `blockaddress`) resolve too (DESIGN.md 4).
//! - Loads from read-only globals fold (003 makes loads `Overdefined` "conservative, may be
//!   improved"; LLVM's SCCP folds these through `ConstantFoldLoadFromConstPtr`). The pass
//!   reads the module's [`SymbolTable`]: a global that is `constant` with an initialiser is
//!   read-only ([`SymbolTable::read_only`]; the LLVM importer leaves weak, linkonce and
//!   common definitions out). The lattice has symbol-plus-offset address constants: `@g` is
//!   offset 0 and a `gep` by constant indices moves the offset; a non-volatile load from such
//!   an address within a read-only global is what the interpreter reads there
//!   ([`fold::load_constant`]: little-endian bytes, zero past the initialiser, a relocation's
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
//! - Functions are independent: one [`SccpScratch`] per engine, engines per thread, so
//!   `strata bench` and `batch::run_functions` run SCCP on all cores.
//!
//! The system [`run_sccp`] reads the function through [`with_function`] (dense tables, rule 6
//! of DESIGN.md 2) and [`PipelineConfig`]; writes the function, [`PassStats`],
//! [`Diagnostics`] and, when the CFG changed, recomputes the analyses
//! ([`crate::analysis::recompute_analyses`]:
//! CFG, dominator tree, frontiers, SCCs) so later stages see the current function. Requires a
//! verified function (the registry pulls in `verify`). Establishes: constant values replaced,
//! no branch on a constant in a reachable block, no unreachable block (SCCP path), phase
//! `optimized` (from `ssa`).
//!
//! Complexity: linear in instructions + operands + edges (see [`solver`] and [`rewrite`]).

pub mod fold;
pub mod lattice;
pub mod rewrite;
pub mod solver;

pub use fold::Folder;
pub use lattice::{Constant, LatticeValue};
pub use rewrite::{RewriteStats, Rewriter};
pub use solver::{sccp_analysis, sccp_analysis_in_module, Solver, LATTICE_ENTRY_BYTES};

use crate::engine::world::with_function;
use crate::engine::{Diagnostic, Diagnostics, PassStats, PipelineConfig, Severity, Stage, Symbols};
use crate::ir::{Block, Const, ConstKind, Function, Inst, Phase, SymbolTable, Value, ValueDef};
use bevy_ecs::prelude::*;

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

/// The reusable state of the pass: solver, rewriter and fallback folder scratch (cleared,
/// never dropped, between functions).
#[derive(Resource, Default, Debug)]
pub struct SccpScratch {
    /// The analysis.
    pub solver: Solver,
    /// The rewrite.
    pub rewriter: Rewriter,
    /// The fallback.
    pub folder: Folder,
}

/// Runs SCCP on `f` and applies it (003 `optimize_with_sccp`), falling back to local folding
/// on [`SccpError::MemoryLimit`]. `symbols` are those of `f`'s module (loads from its
/// read-only globals fold; an empty table keeps every load). Sets the phase as described in
/// the module doc.
///
/// # Errors
/// Every [`SccpError`] except `MemoryLimit`; `f` is then unchanged.
pub fn optimize(
    f: &mut Function,
    symbols: &SymbolTable,
    memory_limit: usize,
    scratch: &mut SccpScratch,
) -> Result<SccpOutcome, SccpError> {
    if !f.phase.single_definition() {
        return Err(SccpError::UnsupportedPhase { phase: f.phase });
    }
    let outcome = match scratch.solver.analyze(f, symbols, memory_limit) {
        Ok(result) => {
            let stats = scratch.rewriter.apply(f, &result.values, &result.reachable);
            SccpOutcome::Optimized(stats)
        }
        Err(SccpError::MemoryLimit { .. }) => {
            SccpOutcome::Fallback(scratch.folder.fold(f, symbols, &mut scratch.rewriter))
        }
        Err(e) => return Err(e),
    };
    if f.phase == Phase::Ssa {
        f.phase = Phase::Optimized;
    }
    Ok(outcome)
}

/// Applies an SCCP result to the function it was computed on (003
/// `apply_sccp_transformations`); returns the number of transformed instructions. Batch code
/// keeps a [`Rewriter`] (or uses [`optimize`]) to reuse scratch.
pub fn apply_sccp_transformations(f: &mut Function, result: &SccpResult) -> usize {
    Rewriter::new()
        .apply(f, &result.values, &result.reachable)
        .transformed() as usize
}

/// The `sccp` pass on the function in the World (see the module doc for what it reads,
/// writes, requires and establishes).
pub fn run_sccp(world: &mut World) {
    let limit = world.resource::<PipelineConfig>().options.sccp_memory_limit;
    let symbols = world.resource::<Symbols>().0.clone();
    world.resource_scope(|world, mut scratch: Mut<SccpScratch>| {
        with_function(world, |f, world| {
            // Instructions and terminators of live blocks, to report the drop the way it is
            // measured on LLVM's output (`bench --against-llvm`).
            let size = |f: &Function| (f.live_inst_count() + f.live_block_count()) as u64;
            let before = size(f);
            let result = optimize(f, &symbols, limit, &mut scratch);
            let mut diags = Vec::new();
            let stats = match result {
                Ok(SccpOutcome::Optimized(s)) => s,
                Ok(SccpOutcome::Fallback(s)) => {
                    world
                        .resource_mut::<PassStats>()
                        .add("sccp", "memory_limit_fallbacks", 1);
                    diags.push(Diagnostic {
                        severity: Severity::Note,
                        pass: "sccp",
                        message: format!(
                            "SCCP lattice memory limit ({limit} bytes) exceeded for function @{}; \
                             fell back to local constant folding",
                            f.name
                        ),
                    });
                    s
                }
                Err(e) => {
                    diags.push(Diagnostic {
                        severity: Severity::Error,
                        pass: "sccp",
                        message: format!("function @{}: {e}", f.name),
                    });
                    RewriteStats::default()
                }
            };
            world.resource_mut::<Diagnostics>().0.extend(diags);
            let mut ps = world.resource_mut::<PassStats>();
            ps.add("sccp", "instructions_folded", stats.instructions_folded);
            ps.add("sccp", "branches_resolved", stats.branches_resolved);
            ps.add("sccp", "blocks_removed", stats.blocks_removed);
            ps.add("sccp", "phis_simplified", stats.phis_simplified);
            ps.add("sccp", "copies_propagated", stats.copies_propagated);
            ps.add(
                "sccp",
                "instructions_removed",
                before.saturating_sub(size(f)),
            );
            if stats.cfg_changed() {
                crate::analysis::recompute_analyses(world, f);
            }
        })
    });
}

/// Inserts the pass's scratch resource (done once per World).
pub fn init_resources(world: &mut World) {
    world.init_resource::<SccpScratch>();
}

/// Adds [`run_sccp`] to [`Stage::Sccp`].
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(run_sccp.in_set(Stage::Sccp));
}

/// A growable bitset over dense indices.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// Clears and sizes the set for indices `0..n`.
    pub fn reset(&mut self, n: usize) {
        self.words.clear();
        self.words.resize(n.div_ceil(64), 0);
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
    pub fn describe(&self, f: &Function) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let reachable: Vec<String> = (0..f.blocks.len())
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
                    LatticeValue::Const(Constant::Address(k)) => match f.consts.try_get(*k) {
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

    /// The 003 invariants: the entry block is reachable, the target of every executable edge
    /// is reachable, every cell names a value of `f` and a non-`Unknown` cell a defined one.
    /// Returns a description of the first violation.
    pub fn validate(&self, f: &Function) -> Result<(), String> {
        if !f.blocks.is_empty() && !self.is_reachable(Block(0)) {
            return Err("entry block not reachable".into());
        }
        for (b, i, t) in self.executable_edges() {
            if !self.is_reachable(t) {
                return Err(format!("executable edge {b}#{i} to unreachable {t}"));
            }
        }
        if self.values.len() > f.values.len() {
            return Err("more cells than values".into());
        }
        for (i, c) in self.values.iter().enumerate() {
            if *c != LatticeValue::Unknown && f.values[i].def == ValueDef::Unused {
                return Err(format!("cell of undefined value v{i} is {c}"));
            }
        }
        Ok(())
    }
}

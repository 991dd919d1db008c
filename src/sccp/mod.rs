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
//! - Loads, calls, allocas, atomics, asm and opaque instructions are `Overdefined`. A `gep`
//!   is `Overdefined` even with constant operands: addresses of stack slots and globals are
//!   only known at run time, so pointer arithmetic is not tracked. Addresses (`@g`,
//!   `blockaddress`) are constants for phis, selects and copies only.
//! - `undef` is the zero of its type, as in the interpreter (LLVM instead lets `undef` meet
//!   to any constant; that would make SCCP and the oracle disagree).
//! - Like LLVM's SCCP, `x & 0`, `x * 0`, `x | -1`, `x urem 1`, comparisons with the extreme
//!   value of their predicate (`x ult 0`, `x sgt MAX`, ...), `fcmp false`/`fcmp true` and a
//!   `select` whose arms agree fold even when the other operands are `Overdefined`; nothing
//!   that could trap is folded this way. LLVM 14 goes further with integer ranges and
//!   branch-condition facts (PredicateInfo); 003 fixes a three-level lattice, so those are
//!   not done here.
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
//! [`Diagnostics`] and, when the CFG changed, recomputes [`Cfg`], [`DomTree`],
//! [`DominanceFrontiers`] and [`Sccs`] so later stages see the current function. Requires a
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
pub use solver::{sccp_analysis, SccpResult, Solver, LATTICE_ENTRY_BYTES};

use crate::analysis::{Cfg, DomTree, DominanceFrontiers, Sccs};
use crate::engine::world::with_function;
use crate::engine::{Diagnostic, Diagnostics, PassStats, PipelineConfig, Severity, Stage};
use crate::ir::{Block, Const, Function, Inst, Phase, Value};
use bevy_ecs::prelude::*;

/// Why SCCP did not run on a function (003 `SCCPError`, plus the checks the dense tables
/// need).
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
/// on [`SccpError::MemoryLimit`]. Sets the phase as described in the module doc.
///
/// # Errors
/// Every [`SccpError`] except `MemoryLimit`; `f` is then unchanged.
pub fn optimize(
    f: &mut Function,
    memory_limit: usize,
    scratch: &mut SccpScratch,
) -> Result<SccpOutcome, SccpError> {
    if !f.phase.single_definition() {
        return Err(SccpError::UnsupportedPhase { phase: f.phase });
    }
    let outcome = match scratch.solver.analyze(f, memory_limit) {
        Ok(result) => {
            let stats = scratch.rewriter.apply(f, &result.values, &result.reachable);
            SccpOutcome::Optimized(stats)
        }
        Err(SccpError::MemoryLimit { .. }) => {
            SccpOutcome::Fallback(scratch.folder.fold(f, &mut scratch.rewriter))
        }
        Err(e) => return Err(e),
    };
    if f.phase == Phase::Ssa {
        f.phase = Phase::Optimized;
    }
    Ok(outcome)
}

/// The `sccp` pass on the function in the World (see the module doc for what it reads,
/// writes, requires and establishes).
pub fn run_sccp(world: &mut World) {
    let limit = world.resource::<PipelineConfig>().options.sccp_memory_limit;
    world.resource_scope(|world, mut scratch: Mut<SccpScratch>| {
        with_function(world, |f, world| {
            let result = optimize(f, limit, &mut scratch);
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
            if stats.cfg_changed() {
                recompute_analyses(world, f);
            }
        })
    });
}

/// Recomputes the CFG and dominance resources present in `world` for `f`.
fn recompute_analyses(world: &mut World, f: &Function) {
    let Some(mut cfg) = world
        .get_resource_mut::<Cfg>()
        .map(|mut c| std::mem::take(&mut *c))
    else {
        return;
    };
    cfg.compute(f);
    if let Some(mut dom) = world.get_resource_mut::<DomTree>() {
        dom.compute(&cfg);
    }
    if let Some(mut sccs) = world.get_resource_mut::<Sccs>() {
        sccs.compute(&cfg);
    }
    if let Some(mut df) = world
        .get_resource_mut::<DominanceFrontiers>()
        .map(|mut d| std::mem::take(&mut *d))
    {
        df.compute(&cfg, world.resource::<DomTree>());
        *world.resource_mut::<DominanceFrontiers>() = df;
    }
    *world.resource_mut::<Cfg>() = cfg;
}

/// Inserts the pass's scratch resource (done once per World).
pub fn init_resources(world: &mut World) {
    world.init_resource::<SccpScratch>();
}

/// Adds [`run_sccp`] to [`Stage::Sccp`].
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(run_sccp.in_set(Stage::Sccp));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{
        BinaryOp, FunctionBuilder, IntPredicate, Operand, Signature, Terminator, Type,
    };

    fn sig(params: &[Type], ret: Type) -> Signature {
        Signature {
            params: params.to_vec(),
            ret,
            varargs: false,
        }
    }

    /// `br c, block1, block1` then `ret`; `c` is a parameter or a constant.
    fn duplicate_edges(constant: bool) -> Function {
        let mut b = FunctionBuilder::new("dup", sig(&[Type::I1], Type::I32));
        b.set_phase(Phase::Ssa);
        let cond = if constant {
            b.iconst(Type::I1, 0)
        } else {
            Operand::Value(b.param(0))
        };
        let b1 = b.create_block();
        b.br(cond, b1, b1);
        b.switch_to(b1);
        let one = b.iconst(Type::I32, 1);
        let v = b.phi(Type::I32, &[(Block(0), one), (Block(0), one)]);
        b.ret(Some(Operand::Value(v)));
        b.finish()
    }

    #[test]
    fn parallel_edges_are_distinct() {
        let r = sccp_analysis(&duplicate_edges(true), 1 << 20).unwrap();
        assert!(!r.is_edge_executable(Block(0), 0));
        assert!(r.is_edge_executable(Block(0), 1), "false takes successor 1");
        assert_eq!(r.executable_edges().count(), 1);
        assert_eq!(r.resolvable_branches, 1);
        let r = sccp_analysis(&duplicate_edges(false), 1 << 20).unwrap();
        assert_eq!(
            r.executable_edges().collect::<Vec<_>>(),
            vec![(Block(0), 0, Block(1)), (Block(0), 1, Block(1))]
        );
        assert_eq!(r.resolvable_branches, 0);
        assert_eq!(r.foldable_count, 1, "the phi of two 1s");
    }

    #[test]
    fn invalid_input_is_an_error_not_a_panic() {
        let mut f = duplicate_edges(false);
        f.blocks[0].terminator = Terminator::Jump(crate::ir::Target::new(Block(7)));
        assert_eq!(
            sccp_analysis(&f, 1 << 20).unwrap_err(),
            SccpError::InvalidCfg { block_id: Block(7) }
        );
        let mut f = duplicate_edges(false);
        f.blocks[1].terminator = Terminator::Ret(Some(Operand::Value(Value(99))));
        let e = sccp_analysis(&f, 1 << 20).unwrap_err();
        assert_eq!(
            e,
            SccpError::InvalidSsa {
                value_id: Value(99)
            }
        );
        assert_eq!(e.to_string(), "Invalid SSA reference: value v99 not found");
        let before = f.clone();
        assert!(optimize(&mut f, 1 << 20, &mut SccpScratch::default()).is_err());
        assert_eq!(f, before, "unchanged on error");
        let mut f = duplicate_edges(false);
        f.phase = Phase::Destructed;
        assert!(matches!(
            optimize(&mut f, 1 << 20, &mut SccpScratch::default()),
            Err(SccpError::UnsupportedPhase { .. })
        ));
    }

    /// A chain of `n` additions starting from a parameter: every value is overdefined.
    fn chain(n: usize) -> Function {
        let mut b = FunctionBuilder::new("chain", sig(&[Type::I32], Type::I32));
        b.set_phase(Phase::Ssa);
        let mut v = b.param(0);
        let one = b.iconst(Type::I32, 1);
        for _ in 0..n {
            v = b.binary(BinaryOp::Add, Type::I32, Operand::Value(v), one);
        }
        let seven = b.iconst(Type::I32, 7);
        let c = b.icmp(IntPredicate::Eq, Type::I32, seven, seven);
        let (t, e) = (b.create_block(), b.create_block());
        b.br(Operand::Value(c), t, e);
        b.switch_to(t);
        b.ret(Some(Operand::Value(v)));
        b.switch_to(e);
        b.ret(Some(seven));
        b.finish()
    }

    #[test]
    fn memory_limit_is_all_or_nothing_and_falls_back() {
        // 1 parameter + 10 additions + 1 comparison = 12 entries = 288 bytes.
        let f = chain(10);
        assert!(sccp_analysis(&f, 288).is_ok());
        assert_eq!(
            sccp_analysis(&f, 287).unwrap_err(),
            SccpError::MemoryLimit {
                function_name: "chain".into(),
                limit: 287
            }
        );
        let mut g = f.clone();
        let out = optimize(&mut g, 287, &mut SccpScratch::default()).unwrap();
        assert!(matches!(out, SccpOutcome::Fallback(s) if s.branches_resolved == 1));
        assert_eq!(g.phase, Phase::Optimized);
        assert!(!g.blocks[2].dead, "local folding removes no block");
        let mut h = f.clone();
        let out = optimize(&mut h, 288, &mut SccpScratch::default()).unwrap();
        assert!(matches!(out, SccpOutcome::Optimized(s) if s.blocks_removed == 1));
    }

    /// DESIGN.md 2 rule 8: the system runs alone in a World holding only what it reads.
    #[test]
    fn system_runs_alone() {
        use crate::engine::world::{init_resources as init_world, FunctionLoader};
        let mut world = World::new();
        init_world(&mut world);
        crate::analysis::init_resources(&mut world);
        init_resources(&mut world);
        world.insert_resource(PipelineConfig {
            options: crate::engine::PassOptions {
                sccp_memory_limit: 24,
            },
            ..Default::default()
        });
        world.init_resource::<Diagnostics>();
        world.init_resource::<PassStats>();
        let symbols = std::sync::Arc::new(crate::ir::SymbolTable::default());
        world.resource_scope(|w, mut l: Mut<FunctionLoader>| l.load(w, chain(3), &symbols));
        let mut schedule = Schedule::default();
        schedule.add_systems(run_sccp);
        schedule.run(&mut world);
        let diags = &world.resource::<Diagnostics>().0;
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].severity, Severity::Note);
        let stats = &world.resource::<PassStats>().0;
        assert!(stats
            .iter()
            .any(|s| s.name == "memory_limit_fallbacks" && s.value == 1));
        world
            .resource_mut::<PipelineConfig>()
            .options
            .sccp_memory_limit = 1 << 20;
        world.resource_mut::<Diagnostics>().0.clear();
        schedule.run(&mut world);
        assert!(world.resource::<Diagnostics>().0.is_empty());
        let f = world.resource_scope(|w, mut l: Mut<FunctionLoader>| l.take(w));
        assert!(f.blocks[2].dead);
        assert_eq!(world.resource::<Cfg>().rpo(), &[Block(0), Block(1)]);
        assert!(crate::ir::verifier::verify(&f, &symbols).is_empty());
    }
}

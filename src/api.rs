//! Library entry points that run one pass on one [`Function`]: the layer above the engine.
//!
//! What: [`run_in_place`] runs any passes on one function through this thread's engine;
//! each function after it runs the very systems of the pipeline pass of its name that way,
//! so a library call and the pipeline behave the same; [`apply_sccp_transformations`] runs
//! SCCP's rewrite system alone in a [`Harness`]. They live here, not in `ssa` or `sccp`, because they drive the engine,
//! and the engine drives the stages: a stage that called back into the engine would close an
//! import cycle (issue 24 §2; `tests/module_graph.rs` keeps the graph acyclic).
//!
//! | entry point | pass | specification |
//! |---|---|---|
//! | [`run_in_place`] | those of a [`PipelineConfig`] | |
//! | [`promote_allocas`] | `mem2reg` | 002, invocation 2 |
//! | [`promote_allocas_skipping_params`] | `mem2reg` with `mem2reg_skip_params` | 002, invocation 1 |
//! | [`eliminate_phis`] | `phi-elim` | 002 (leaving SSA) |
//! | [`convert_phis_to_block_params`] | `block-params` | DESIGN.md 4 |
//! | [`optimize_with_sccp`] | `sccp` (with the verifier it requires) | 003 `optimize_with_sccp` |
//! | [`apply_sccp_transformations`] | SCCP's rewrite on a given result | 003 `apply_sccp_transformations` |
//!
//! A batch of functions goes through [`crate::engine::batch::run_functions`] instead (one
//! engine per worker, functions in batches per schedule run).
//!
//! Invariants: every entry point leaves `f` valid; on an error `f` is unchanged. Cost: the
//! pass's own (linear in the function, see each pass's module) plus one load into and one
//! take out of the World; the thread's engine is built once (about 1 ms) and reused.

use crate::engine::harness::Harness;
use crate::engine::with_thread_engine;
use crate::ir::{Function, PerSlot, SymbolTable};
use crate::sccp::{
    rewrite_sccp, RewriteStats, SccpError, SccpOutcome, SccpResult, SccpSolution, SccpStatus,
};
use crate::ssa::{BlockParamStats, Mem2RegStats, PhiElimStats};
use crate::stage::{PassReport, PassSet, PassStats, PipelineConfig, Severity};
use bevy_ecs::schedule::IntoScheduleConfigs;
use std::sync::Arc;

/// Runs the passes of `config` on `f` in place, through this thread's engine
/// ([`with_thread_engine`]): the very systems of the pipeline, so a library entry point and
/// the pipeline pass of the same name behave the same. A panic inside a system (a bug) is
/// re-raised here, after the engine is discarded.
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

/// Promotes the allocas of `f` through the `mem2reg` systems (002 invocation 2: parameter
/// allocas included unless nothing stores to them) and returns the pass's counters. `f` must
/// be valid; `symbols` are those of its module (debug builds verify after the pass and
/// resolve callees with them).
pub fn promote_allocas(f: &mut Function, symbols: &Arc<SymbolTable>) -> Mem2RegStats {
    promote(f, symbols, false)
}

/// 002 invocation 1 (before inlining): as [`promote_allocas`] but the first N entry-block
/// allocas (N = number of parameters) are not promoted. The pipeline runs this with
/// `PassOptions::mem2reg_skip_params`.
pub fn promote_allocas_skipping_params(
    f: &mut Function,
    symbols: &Arc<SymbolTable>,
) -> Mem2RegStats {
    promote(f, symbols, true)
}

/// The `mem2reg` pass alone (the caller hands it a valid function: no `verify` first).
fn promote(f: &mut Function, symbols: &Arc<SymbolTable>, skip_params: bool) -> Mem2RegStats {
    let mut config = alone(PassSet::MEM2REG);
    config.options.mem2reg_skip_params = skip_params;
    Mem2RegStats::from_report(&run_in_place(f, symbols, &config))
}

/// Eliminates the phis of `f` through the `phi-elim` systems and returns the pass's
/// statistics; `f` ends in phase `Destructed`.
pub fn eliminate_phis(f: &mut Function, symbols: &Arc<SymbolTable>) -> PhiElimStats {
    PhiElimStats::from_report(&run_in_place(f, symbols, &alone(PassSet::PHI_ELIM)))
}

/// Converts the phis of `f` to block parameters through the `block-params` systems and
/// returns the pass's statistics.
pub fn convert_phis_to_block_params(
    f: &mut Function,
    symbols: &Arc<SymbolTable>,
) -> BlockParamStats {
    BlockParamStats::from_report(&run_in_place(f, symbols, &alone(PassSet::BLOCK_PARAMS)))
}

/// A config running `passes` alone, without the verifier [`PipelineConfig::new`] would add
/// (the caller hands a valid function); the engine brings the analyses they read up to date
/// at each stage's begin.
fn alone(passes: PassSet) -> PipelineConfig {
    PipelineConfig {
        passes,
        ..Default::default()
    }
}

/// Runs the `sccp` pass on `f` (003 `optimize_with_sccp`): the systems `solve_sccp` and
/// `rewrite_sccp`, after the verifier the pass requires, with `memory_limit` as
/// `PipelineConfig.options.sccp_memory_limit`; beyond it the rewrite falls back to local
/// folding ([`SccpOutcome::Fallback`]). `symbols` are those of `f`'s module (loads from its
/// read-only globals fold; an empty table keeps every load). Sets the phase as the `sccp`
/// module doc describes.
///
/// # Errors
/// [`SccpError::UnsupportedPhase`] from `destructed` on; [`SccpError::Rejected`] with the
/// first error diagnostic when the verifier rejects `f` (or SCCP reports an error). `f` is
/// then unchanged.
pub fn optimize_with_sccp(
    f: &mut Function,
    symbols: &Arc<SymbolTable>,
    memory_limit: usize,
) -> Result<SccpOutcome, SccpError> {
    // The system reports the same error; checked first so that the verifier of a later
    // phase (which rejects phis, say) does not hide it.
    if !f.phase.single_definition() {
        return Err(SccpError::UnsupportedPhase { phase: f.phase });
    }
    let mut config = PipelineConfig::new(PassSet::SCCP);
    config.options.sccp_memory_limit = memory_limit;
    let report = run_in_place(f, symbols, &config);
    if let Some(d) = report
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        return Err(SccpError::Rejected {
            message: format!("[{}] {}", d.pass, d.message),
        });
    }
    let stats = RewriteStats {
        instructions_folded: report.stat("sccp", "instructions_folded"),
        branches_resolved: report.stat("sccp", "branches_resolved"),
        blocks_removed: report.stat("sccp", "blocks_removed"),
        phis_simplified: report.stat("sccp", "phis_simplified"),
        copies_propagated: report.stat("sccp", "copies_propagated"),
        instructions_removed: report.stat("sccp", "instructions_removed"),
    };
    Ok(if report.stat("sccp", "memory_limit_fallbacks") > 0 {
        SccpOutcome::Fallback(stats)
    } else {
        SccpOutcome::Optimized(stats)
    })
}

/// Applies an SCCP result to the function it was computed on (003
/// `apply_sccp_transformations`); returns the number of transformed instructions (folded,
/// resolved branches, simplified phis, propagated copies). Runs the system
/// [`rewrite_sccp`] in a [`Harness`] holding `f`, its CFG ([`crate::analysis::compute_cfg`])
/// and `result` as the [`SccpSolution`]; like the pass, it moves the phase from `ssa` to
/// `optimized`. `result` must come from an analysis of `f` as it is now
/// ([`crate::sccp::sccp_analysis`]); batch code runs the pass ([`optimize_with_sccp`], the
/// pipeline) instead.
pub fn apply_sccp_transformations(f: &mut Function, result: &SccpResult) -> usize {
    let mut h = Harness::new(
        std::mem::take(f),
        &Arc::new(SymbolTable::default()),
        PipelineConfig::new(PassSet::SCCP),
    );
    {
        let mut solutions = h.world_mut().resource_mut::<PerSlot<SccpSolution>>();
        let solution = &mut solutions[0];
        solution.solver.set_result(result);
        solution.status = SccpStatus::Solved;
    }
    h.run((crate::analysis::compute_cfg, rewrite_sccp).chain());
    *f = h.take();
    h.world().resource::<PerSlot<PassStats>>()[0]
        .0
        .iter()
        .filter(|s| {
            s.pass == "sccp"
                && matches!(
                    s.name,
                    "instructions_folded"
                        | "branches_resolved"
                        | "phis_simplified"
                        | "copies_propagated"
                )
        })
        .map(|s| s.value as usize)
        .sum()
}

// ---- Driving modules to machine code (lowering, then register allocation). ----

/// `passes` with phi elimination replaced by block parameters and `lower` added, lowering
/// for `arch`.
pub fn machine_config(
    passes: crate::engine::PassSet,
    arch: crate::stage::Arch,
) -> crate::engine::PipelineConfig {
    let mut config = crate::engine::PipelineConfig::new(
        (passes - crate::engine::PassSet::PHI_ELIM) | crate::engine::PassSet::LOWER,
    );
    config.options.target = arch;
    config
}

/// [`machine_config`] allocating with `allocator`.
pub fn machine_config_with(
    passes: crate::engine::PassSet,
    arch: crate::stage::Arch,
    allocator: crate::stage::Allocator,
) -> crate::engine::PipelineConfig {
    let mut config = machine_config(passes, arch);
    config.options.allocator = allocator;
    config
}

/// Why a function has no machine function after the pipeline.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerFailure {
    /// Passes reported errors: each `[pass] message`, in order.
    #[error("{}", .0.join("; "))]
    Errors(Vec<String>),
    /// The pipeline ran clean but left no machine function (it did not include `lower`).
    #[error("@{0}: lowering produced no machine function")]
    NoMachineFunction(String),
    /// The engine panicked on the function.
    #[error("@{function}: internal error: {panic}")]
    Internal {
        /// The function.
        function: String,
        /// The panic's message.
        panic: String,
    },
}

/// One function's way through lowering.
#[derive(Debug)]
pub struct Lowered {
    /// The function's name.
    pub name: String,
    /// The machine function, or why there is none.
    pub result: Result<crate::machine::function::MachineFunction, LowerFailure>,
    /// Notes and errors the pipeline reported.
    pub diagnostics: Vec<crate::engine::Diagnostic>,
    /// The allocation the Regalloc stage made, when `regalloc` was in the pipeline.
    pub allocation: Option<crate::regalloc::driver::AllocRun>,
}

/// Runs every function of `module` through `config` (which must include `lower`) with the
/// batch driver ([`crate::engine::batch::map_functions_in_world`]: the functions are copied
/// into the worker engines, the module is not cloned) and takes each lowered function and
/// its allocation out of the World. Results are in input order.
pub fn lower_module(
    module: &crate::ir::Module,
    config: &crate::engine::PipelineConfig,
) -> Vec<Lowered> {
    let symbols = std::sync::Arc::new(module.symbol_table());
    let runs = crate::engine::batch::map_functions_in_world(
        &module.functions,
        &symbols,
        config,
        &|| {},
        &|f, report, world| {
            let machine = crate::machine::columns::take_machine(world);
            let allocation = world
                .resource_mut::<crate::regalloc::systems::AllocationResult>()
                .run
                .take();
            let name = f.name.clone();
            let errors: Vec<String> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity == crate::engine::Severity::Error)
                .map(|d| format!("[{}] {}", d.pass, d.message))
                .collect();
            let result = match (errors.is_empty(), machine) {
                (true, Some(m)) => Ok(m),
                (true, None) => Err(LowerFailure::NoMachineFunction(name.clone())),
                (false, _) => Err(LowerFailure::Errors(errors)),
            };
            Lowered {
                name,
                result,
                diagnostics: report.diagnostics,
                allocation,
            }
        },
    );
    runs.into_iter()
        .zip(&module.functions)
        .map(|(run, f)| {
            run.unwrap_or_else(|e| Lowered {
                name: f.name.clone(),
                result: Err(LowerFailure::Internal {
                    function: f.name.clone(),
                    panic: e.panic.to_string(),
                }),
                diagnostics: Vec::new(),
                allocation: None,
            })
        })
        .collect()
}

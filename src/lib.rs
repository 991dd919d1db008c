//! strata: a data-oriented compiler middle and back end on `bevy_ecs`.
//!
//! Functions in memory form (allocas, loads, stores) flow through a staged schedule of
//! systems: verification, CFG and dominance analysis, SSA construction, constant
//! propagation, placement, SSA destruction, lowering and register allocation. Blocks and
//! instructions are entities with dense typed index components; analyses are dense side
//! tables held in resources. See `DESIGN.md` and the module docs below.
//!
//! One entry point per purpose:
//!
//! - [`engine::Engine::run`] runs the pipeline its [`engine::PipelineConfig`] names on one
//!   [`ir::Function`] and returns it with the diagnostics and statistics;
//! - [`engine::Engine::run_batch`] runs it on up to [`engine::Engine::batch_size`] functions
//!   at once, copying the results into functions the caller reuses, and
//!   [`engine::batch::run_functions`] spreads a module over one engine per core;
//! - [`engine::Engine::load`], [`engine::Engine::run_schedule`] and [`engine::Engine::take`]
//!   are the three steps of `run`, for a caller who inspects the World in between;
//! - [`api`] runs passes on one function in place (`run_in_place`, `promote_allocas`,
//!   `optimize_with_sccp`, ...).
//!
//! Functions come from the builder ([`ir::FunctionBuilder`]), `.sir` text
//! ([`text::parse_module`]) or LLVM IR ([`llvm::import`]). For example, a local written on
//! both arms of a branch whose condition is a constant: mem2reg turns the local into a phi,
//! then SCCP resolves the branch, removes the dead arm and the phi, and folds the result.
//!
//! ```
//! use std::sync::Arc;
//! use strata::engine::{Engine, PassSet, PipelineConfig};
//! use strata::ir::InstKind;
//!
//! let text = "
//! func @pick(i32 v0) -> i32 {
//! block0:
//!   v1 = alloca i32, size 4, align 4
//!   v2 = icmp eq i32 3, 3
//!   br v2, block1, block2
//! block1:
//!   store i32 10, v1
//!   jump block3
//! block2:
//!   store i32 v0, v1
//!   jump block3
//! block3:
//!   v3 = load i32, v1
//!   v4 = mul i32 v3, 2
//!   ret i32 v4
//! }
//! ";
//! let module = strata::text::parse_module(text, "pick.sir")?;
//! let symbols = Arc::new(module.symbol_table());
//! let function = module.functions.into_iter().next().expect("one function");
//!
//! // mem2reg alone: the local becomes a phi at the join.
//! let mut engine = Engine::new(PipelineConfig::new(PassSet::MEM2REG));
//! let run = engine.run(function.clone(), &symbols);
//! assert!(!run.has_errors(), "{:?}", run.diagnostics);
//! let phis = |f: &strata::ir::Function| {
//!     let live = f.blocks.iter().filter(|b| !b.dead).flat_map(|b| &b.insts);
//!     live.filter(|i| matches!(f.insts[i.index()].kind, InstKind::Phi { .. }))
//!         .count()
//! };
//! assert_eq!(phis(&run.function), 1);
//!
//! // mem2reg then SCCP (the config adds what they require: verifier, CFG, dominance).
//! engine.set_config(PipelineConfig::new(PassSet::MEM2REG | PassSet::SCCP));
//! let run = engine.run(function, &symbols);
//! assert_eq!(phis(&run.function), 0);
//! let printed = strata::text::print_function(&run.function, &symbols);
//! assert!(printed.contains("ret i32 20"), "{printed}");
//! println!("{printed}");
//! # Ok::<(), strata::text::ParseError>(())
//! ```
#![warn(missing_docs)]

pub mod analysis;
pub mod api;
pub mod cli;
pub mod engine;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod interp;
pub mod ir;
pub mod llvm;
pub mod machine;
pub mod placement;
pub mod regalloc;
pub mod registers;
pub mod sccp;
pub mod ssa;
pub mod stage;
pub mod text;
pub mod verify;

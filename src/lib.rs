//! strata: a data-oriented compiler middle and back end on `bevy_ecs`.
//!
//! Functions in memory form (allocas, loads, stores) flow through a staged schedule of
//! systems: verification, CFG and dominance analysis, SSA construction, constant
//! propagation, placement, SSA destruction, lowering and register allocation. Blocks and
//! instructions are entities with dense typed index components; analyses are dense side
//! tables held in resources. See `DESIGN.md` and the module docs below.
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
pub mod sccp;
pub mod ssa;
pub mod stage;
pub mod text;
pub mod verify;

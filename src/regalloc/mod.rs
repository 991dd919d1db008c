//! Register allocation (issue 13, part 1), first slice.
//!
//! What part 1 will contain (specification: the "Ion" design in
//! `../shared/seeds/004_a35bf7de693e4d8a.txt`): the machine form and its lowering for x86-64
//! and aarch64, the regalloc2 model both ways, liveness, live ranges and bundles as entities,
//! bundle merging, the requirements lattice, the parallel-move resolver and a symbolic
//! checker, with the whole pipeline running to allocated code through regalloc2.
//!
//! What this slice provides, self-contained and independent of the World:
//! - [`location`]: the machine vocabulary: register classes, physical registers, spill
//!   slots and the [`Allocation`] of a value (none, a register or a slot).
//! - [`requirement`]: the requirements lattice (Unknown, Any(class), Stack(class),
//!   FixedReg(reg), Conflict) with its meet and an accumulator that records the first
//!   conflict point.
//! - [`moves`]: the parallel-move resolver: parallel moves in, sequential moves out, cycles
//!   broken through a scratch location, never a stack-to-stack move.
//!
//! The fuzz check `fuzzing::moves` judges the resolver with an abstract interpreter.

pub mod bundles;
pub mod checker;
pub mod flat;
pub mod liveness;
pub mod location;
pub mod moves;
pub mod output;
pub mod point;
pub mod ranges;
#[cfg(feature = "regalloc2")]
pub mod regalloc2_model;
pub mod requirement;

pub use location::{Allocation, PReg, RegClass, SpillSlot};
pub use moves::{Move, MoveError, MoveResolver, ResolveStats, ScratchEnv};
pub use requirement::{ConflictPoint, Requirement, RequirementMerge};

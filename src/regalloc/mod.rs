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
//! - [`point`]: program points packed in a `u32` and half-open code ranges.
//! - [`flat`]: an owned, flat [`crate::machine::MachineRead`] function (import and test
//!   form); [`regalloc2_model`] (feature `regalloc2`): import of any `regalloc2::Function`
//!   with its `MachineEnv`, export of flat functions, output conversion.
//! - [`liveness`]: exact live-in/live-out by backward dataflow (dense and chunked sets).
//! - [`ranges`], [`bundles`]: live ranges and bundles as entities in the World, built by one
//!   reverse scan, merged, with spill sets, properties and the allocation queue.
//! - [`output`], [`checker`]: an allocation result in `regalloc2::Output`'s shape and the
//!   symbolic checker that judges it.
//!
//! Fuzz checks: `fuzzing::moves` (resolver, abstract interpreter), `fuzzing::liveness`
//! (brute-force path search), `fuzzing::bundle_merge` (invariants, coverage, pooling) and
//! `fuzzing::checker` (agreement with regalloc2's checker, corruptions caught).

pub mod bundles;
pub mod checker;
pub mod corrupt;
pub mod driver;
#[cfg(feature = "regalloc2")]
pub mod dropin;
pub mod flat;
pub mod ion;
pub mod liveness;
pub use crate::registers::location;
pub mod moves;
pub mod output;
pub mod point;
pub mod ranges;
#[cfg(feature = "regalloc2")]
pub mod regalloc2_model;
pub mod requirement;
pub mod systems;
#[cfg(feature = "regalloc2")]
pub mod to_regalloc2;

#[cfg(feature = "regalloc2")]
pub use dropin::{run, run_with_ctx, Ctx};
pub use location::{Allocation, PReg, RegClass, SpillSlot};
pub use moves::{Move, MoveError, MoveResolver, ResolveStats, ScratchEnv};
pub use requirement::{ConflictPoint, Requirement, RequirementMerge};

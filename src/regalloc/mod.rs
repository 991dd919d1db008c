//! Register allocation: our allocator after the Ion design
//! (`../shared/seeds/004_a35bf7de693e4d8a.txt`), the pipeline's default, and regalloc2 0.15.2
//! as the reference and oracle.
//!
//! The phases, in the order the Regalloc stage chains them as systems ([`systems`]) over
//! live-range and bundle entities of the engine's World:
//! - [`liveness`]: exact live-in/live-out by backward dataflow (dense and chunked sets);
//! - [`ranges`]: live ranges by one reverse scan (the `compute_liveness` and
//!   `build_live_ranges` systems);
//! - [`bundles`]: one bundle per vreg, merged across reused inputs and block-parameter flows
//!   (`merge_bundles`), with spill sets and the allocation queue;
//! - [`ion`]: the queue's properties (`queue_bundles`), the allocation loop with probing,
//!   eviction and splitting (`process_bundles`), second-chance allocation
//!   (`allocate_spill_bundles`), spill slots (`allocate_spill_slots`), per-operand allocations
//!   and moves (`insert_moves`), their resolution (`resolve_moves`, through [`moves`]) and
//!   redundant-move elimination (`remove_redundant_moves`);
//! - [`checker`]: the symbolic checker (the Check stage's `check_allocation`).
//!
//! Around them: the vocabulary re-exported from [`crate::registers`] ([`location`]);
//! [`requirement`] (the seed's lattice, used by merging), [`point`] (program points),
//! [`output`] (results in `regalloc2::Output`'s shape), [`driver`] (allocate any machine function, check,
//! print), [`corrupt`] (checker tests); with the feature `regalloc2`: [`regalloc2_model`]
//! (any `regalloc2::Function` in, outputs both ways), [`to_regalloc2`] (a machine function
//! presented to regalloc2) and [`dropin`] ([`run`], [`run_with_ctx`], [`Ctx`] with
//! regalloc2's own signatures).
//!
//! Fuzz checks: `fuzzing::ion` (`ion`, `ion_checker`), `fuzzing::moves`,
//! `fuzzing::liveness`, `fuzzing::bundle_merge`, `fuzzing::checker`.

pub mod bundles;
pub mod checker;
pub mod corrupt;
pub mod driver;
#[cfg(feature = "regalloc2")]
pub mod dropin;
pub mod handles;
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
pub use handles::{BundleIndex, LiveRangeIndex, SpillSetIndex};

/// A broken invariant of the allocator's tables, as text naming what and where (the debug
/// checks [`ranges::check_ranges`], [`bundles::check_bundles`] and
/// [`ion::check_invariants`], run in debug builds, tests and fuzz checks).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvariantViolation(pub String);

/// An [`InvariantViolation`] from `format!` arguments.
macro_rules! violation {
    ($($arg:tt)*) => {
        $crate::regalloc::InvariantViolation(format!($($arg)*))
    };
}
pub use location::{Allocation, PReg, RegClass, SpillSlot};
pub use moves::{Move, MoveError, MoveResolver, ResolveStats, ScratchEnv};
pub use requirement::{ConflictPoint, Requirement, RequirementMerge};
pub(crate) use violation;

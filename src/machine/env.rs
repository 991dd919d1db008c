//! Register environments: which physical registers an allocator may use, per class.
//!
//! What: a [`MachineEnv`] lists, per register class, the allocatable registers in
//! preference order (caller-saved first where a target prefers them), the registers used
//! only when the preferred ones run out, and a dedicated scratch register for the
//! parallel-move resolver (or none, when the resolver must find a free register or a slot).
//! (Register sets are [`crate::registers::PRegSet`].)
//!
//! Invariants: no register appears twice in a class's lists; every register's class is the
//! class of the list holding it; a scratch register is in neither list.
//!
//! Complexity: [`MachineEnv::allocatable`] is an iterator over the two lists.

use crate::registers::{PReg, RegClass};

/// The registers an allocator may use, per class (indexed by [`RegClass::index`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MachineEnv {
    /// Allocatable registers tried first, in order.
    pub preferred: [Vec<PReg>; 3],
    /// Allocatable registers tried when the preferred ones are taken (typically
    /// callee-saved registers, which cost a save and restore in the prologue).
    pub non_preferred: [Vec<PReg>; 3],
    /// A register per class reserved for the move resolver, if the target has one.
    pub scratch: [Option<PReg>; 3],
}

impl MachineEnv {
    /// Every allocatable register of `class`, preferred first.
    pub fn allocatable(&self, class: RegClass) -> impl Iterator<Item = PReg> + '_ {
        self.preferred[class.index()]
            .iter()
            .chain(&self.non_preferred[class.index()])
            .copied()
    }
}

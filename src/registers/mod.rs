//! The register vocabulary the machine form and the register allocator share: register
//! classes, physical registers, spill slots and allocations ([`location`]), virtual registers
//! and operands with their constraints ([`operand`]), register sets ([`set`]).
//!
//! What: a leaf module (it imports no other module of the crate), so `machine` (which
//! lowers into this vocabulary) and `regalloc` (which allocates in it) both import it and
//! neither imports the other for it.
//!
//! Invariants and complexity: see each submodule; every value here is a few bytes and every
//! operation O(1).

pub mod location;
pub mod operand;
pub mod set;

pub use location::{Allocation, PReg, RegClass, SpillSlot};
pub use operand::{Operand, OperandConstraint, OperandKind, OperandPos, VReg};
pub use set::PRegSet;

//! The machine form: lowered functions as the register allocator sees them.
//!
//! What: the interface between lowering (Lower stage) and register allocation (issue 13).
//! A machine function is blocks of instructions over virtual registers ([`VReg`]); each
//! instruction lists its [`Operand`]s (use/def, early/late, constraint) and the physical
//! registers it clobbers; blocks have parameters, and a branch passes arguments to each
//! successor's parameters (the SSA form of phi-to-block-parameter conversion). Instructions
//! of a block are contiguous and numbered in layout order, so a program point is an
//! instruction index and a before/after bit (Ion design,
//! `../shared/seeds/004_a35bf7de693e4d8a.txt`).
//!
//! [`MachineRead`] is the read interface every allocator phase (liveness, live ranges,
//! bundles, the checker) is written against. The World's machine-form columns implement it
//! through a borrowed view (as [`crate::ir::IrRead`] does for the IR), and so does the
//! adapter that presents a `regalloc2::Function` (feature `regalloc2`).
//!
//! Invariants of a well-formed machine function (checked by the machine verifier):
//! - every block is non-empty and ends with exactly one terminator (a branch or a return);
//! - `block_insts` ranges partition `0..num_insts` in block order;
//! - `branch_args(b, s)` has the length of `block_params(succs(b)[s])`, with matching classes;
//! - every vreg has exactly one def (an operand def or a block parameter);
//! - no critical edge: a block with several successors has successors with one predecessor.
//!
//! Complexity: every accessor is O(1) and returns a slice into the machine function.

pub mod columns;
pub mod env;
pub mod function;
pub mod lower;
pub use crate::registers::operand;
pub mod parts;
pub mod systems;
pub mod targets;
pub mod text;
pub mod verify;

pub use crate::registers::PRegSet;
pub use env::MachineEnv;
pub use operand::{Operand, OperandConstraint, OperandKind, OperandPos, VReg};

use std::ops::Range;

/// A block of a machine function: a dense index in layout order.
pub type MBlock = u32;
/// An instruction of a machine function: a dense index in layout order.
pub type MInst = u32;

/// Read access to a machine function, the shape every allocator phase reads.
pub trait MachineRead {
    /// Number of instructions.
    fn num_insts(&self) -> usize;
    /// Number of blocks.
    fn num_blocks(&self) -> usize;
    /// Number of virtual registers (an upper bound on `VReg::index() + 1`).
    fn num_vregs(&self) -> usize;
    /// The entry block.
    fn entry_block(&self) -> MBlock {
        0
    }
    /// The instructions of `block`, a contiguous range of instruction indices.
    fn block_insts(&self, block: MBlock) -> Range<MInst>;
    /// The successors of `block`, in the order of its terminator's targets.
    fn block_succs(&self, block: MBlock) -> &[MBlock];
    /// The predecessors of `block` (one entry per edge).
    fn block_preds(&self, block: MBlock) -> &[MBlock];
    /// The parameters of `block`.
    fn block_params(&self, block: MBlock) -> &[VReg];
    /// Whether `inst` is a return (ends its block, no successors).
    fn is_ret(&self, inst: MInst) -> bool;
    /// Whether `inst` is a branch (ends its block, passes `branch_args` to successors).
    fn is_branch(&self, inst: MInst) -> bool;
    /// The arguments the terminator of `block` passes to the parameters of successor number
    /// `succ` (an index into `block_succs(block)`).
    fn branch_args(&self, block: MBlock, succ: usize) -> &[VReg];
    /// The operands of `inst`.
    fn inst_operands(&self, inst: MInst) -> &[Operand];
    /// The physical registers `inst` clobbers (their values are lost across it).
    fn inst_clobbers(&self, inst: MInst) -> PRegSet;
    /// Spill slots a value of `class` takes (in units of the smallest slot).
    fn spill_slot_size(&self, class: crate::registers::RegClass) -> usize {
        match class {
            crate::registers::RegClass::Vector => 2,
            _ => 1,
        }
    }
}

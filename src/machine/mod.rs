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

/// A block of a machine function: a dense index in layout order (a row of the machine
/// block table). Prints as its bare index (`block{b}` in text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct MBlock(pub u32);

/// An instruction of a machine function: a dense index in layout order (a row of the
/// machine instruction table). Prints as its bare index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct MInst(pub u32);

impl MBlock {
    /// The block of row `index`.
    pub const fn new(index: usize) -> MBlock {
        MBlock(index as u32)
    }
    /// The row index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl MBlock {
    /// The block after this one in layout.
    pub const fn next(self) -> MBlock {
        MBlock(self.0 + 1)
    }
}

impl MInst {
    /// The instruction of row `index`.
    pub const fn new(index: usize) -> MInst {
        MInst(index as u32)
    }
    /// The row index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The instruction after this one in layout.
    pub const fn next(self) -> MInst {
        MInst(self.0 + 1)
    }
    /// The instruction before this one in layout (this one must not be the first).
    pub const fn prev(self) -> MInst {
        MInst(self.0 - 1)
    }
}

impl std::ops::Add<u32> for MInst {
    type Output = MInst;
    /// The instruction `n` places later in layout.
    fn add(self, n: u32) -> MInst {
        MInst(self.0 + n)
    }
}

impl std::ops::Sub<u32> for MInst {
    type Output = MInst;
    /// The instruction `n` places earlier in layout.
    fn sub(self, n: u32) -> MInst {
        MInst(self.0 - n)
    }
}

impl std::ops::AddAssign<u32> for MInst {
    fn add_assign(&mut self, n: u32) {
        self.0 += n;
    }
}

impl crate::analysis::order::Node for MBlock {
    fn dense_index(self) -> usize {
        self.index()
    }
}

impl std::str::FromStr for MBlock {
    type Err = std::num::ParseIntError;
    /// A block index in decimal.
    fn from_str(s: &str) -> Result<MBlock, Self::Err> {
        s.parse().map(MBlock)
    }
}

impl std::fmt::Display for MBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::fmt::Display for MInst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The iterator over an [`InstRange`]'s instructions, in layout order.
pub type InstIter = std::iter::Map<Range<u32>, fn(u32) -> MInst>;

/// The iterator over a function's blocks ([`MachineRead::blocks`]), in layout order.
pub type BlockIter = std::iter::Map<Range<u32>, fn(u32) -> MBlock>;

/// The instructions of a block: the half-open layout range `[start, end)`. A `Range<MInst>`
/// cannot be iterated (its `Step` trait is unstable), so this range is its own iterator
/// source: `for i in f.block_insts(b)` visits `start`, `start + 1`, ... in layout order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct InstRange {
    /// The first instruction.
    pub start: MInst,
    /// One past the last instruction.
    pub end: MInst,
}

impl InstRange {
    /// `[start, end)`.
    pub const fn new(start: MInst, end: MInst) -> InstRange {
        InstRange { start, end }
    }
    /// Number of instructions.
    pub const fn len(self) -> usize {
        (self.end.0 - self.start.0) as usize
    }
    /// Whether the range holds no instruction.
    pub const fn is_empty(self) -> bool {
        self.end.0 <= self.start.0
    }
    /// Whether `inst` is in the range.
    pub const fn contains(self, inst: MInst) -> bool {
        self.start.0 <= inst.0 && inst.0 < self.end.0
    }
    /// The last instruction (the block's terminator); the range must not be empty.
    pub const fn last(self) -> MInst {
        MInst(self.end.0 - 1)
    }
    /// The instructions in layout order.
    pub fn iter(self) -> InstIter {
        (self.start.0..self.end.0).map(MInst as fn(u32) -> MInst)
    }
    /// The instructions in reverse layout order.
    pub fn rev(self) -> std::iter::Rev<InstIter> {
        self.iter().rev()
    }
}

impl IntoIterator for InstRange {
    type Item = MInst;
    type IntoIter = InstIter;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Blocks `0..n` as handles.
pub fn block_range(n: usize) -> BlockIter {
    (0..n as u32).map(MBlock as fn(u32) -> MBlock)
}

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
        MBlock(0)
    }
    /// Every block, in layout order.
    fn blocks(&self) -> BlockIter {
        block_range(self.num_blocks())
    }
    /// Every instruction, in layout order.
    fn insts(&self) -> InstRange {
        InstRange::new(MInst(0), MInst::new(self.num_insts()))
    }
    /// The instructions of `block`, a contiguous range of instruction indices.
    fn block_insts(&self, block: MBlock) -> InstRange;
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
    /// The rematerialization hook: the instruction that recomputes `vreg` anywhere (cheap,
    /// without side effects, reading no register: a constant, a frame or global address),
    /// or `None` when the value must be kept (spilled and reloaded). The allocator may
    /// recompute such a value instead of reloading it (a remat edit) at any point a move
    /// may go, so `op` must change nothing but its destination (an emitter uses a
    /// flag-preserving form: `mov imm`, not `xor r, r`, since a remat may sit between an
    /// `add` and its `adc`). Default: no value is rematerializable.
    fn remat(&self, vreg: VReg) -> Option<function::MachineOp> {
        let _ = vreg;
        None
    }
    /// Whether `inst`'s opcode is commutative ([`function::Opcode::is_commutative`]): its
    /// two register inputs may be exchanged. Default: no instruction is.
    fn is_commutative(&self, inst: MInst) -> bool {
        let _ = inst;
        false
    }
    /// Spill slots a value of `class` takes (in units of the smallest slot, 8 bytes): a
    /// float-class register is a whole 128-bit xmm / v register, which may hold a vector
    /// ([`parts`]), so its slot is 16 bytes (as Cranelift sizes its float-class slots).
    fn spill_slot_size(&self, class: crate::registers::RegClass) -> usize {
        match class {
            crate::registers::RegClass::Int => 1,
            _ => 2,
        }
    }
}

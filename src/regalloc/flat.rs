//! An owned, flat machine function: the smallest [`MachineRead`] implementation.
//!
//! What: [`FlatFunction`] stores a machine function as plain per-block and per-instruction
//! vectors. It is the form in which a function imported from regalloc2
//! ([`super::regalloc2_model`]) and the functions of the generator in
//! `fuzzing::machine_gen` reach the allocator phases, and (feature `regalloc2`) it can be
//! presented back to regalloc2 so both allocators and both checkers see the same function.
//! It is a test- and interchange-oriented form, not the World's machine form (which lives in
//! component columns and also implements [`MachineRead`]).
//!
//! An operand whose vreg index is [`NO_VREG`] names no value: it is a mention of a fixed,
//! non-allocatable register (regalloc2's `Operand::fixed_nonallocatable`); liveness and
//! live ranges skip it, the checker only checks its allocation.
//!
//! Invariants: as for every [`MachineRead`] (see `crate::machine`); [`FlatFunction::validate`]
//! checks the structural ones and names the first violation.
//!
//! Complexity: accessors O(1); `validate` O(instructions + operands + edges).

use crate::machine::{MBlock, MInst, MachineRead, Operand, OperandConstraint, PRegSet, VReg};
use std::ops::Range;

/// The vreg index that marks an operand naming no value (a fixed non-allocatable register).
pub const NO_VREG: u32 = VReg::MAX_INDEX;

/// Whether an instruction ends its block, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatInstKind {
    /// An ordinary instruction.
    Op,
    /// A branch to the block's successors, passing `branch_args`.
    Branch,
    /// A return.
    Ret,
}

/// A machine function as plain vectors (see the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlatFunction {
    /// `insts[b]`: the instruction range of block `b`.
    pub block_insts: Vec<Range<MInst>>,
    /// `succs[b]`: successors of `b`.
    pub succs: Vec<Vec<MBlock>>,
    /// `preds[b]`: predecessors of `b` (one entry per edge).
    pub preds: Vec<Vec<MBlock>>,
    /// `params[b]`: parameters of `b`.
    pub params: Vec<Vec<VReg>>,
    /// `branch_args[b][s]`: arguments of `b`'s terminator for successor number `s`.
    pub branch_args: Vec<Vec<Vec<VReg>>>,
    /// `kinds[i]`: op, branch or return.
    pub kinds: Vec<FlatInstKind>,
    /// `operands[i]`: operands of instruction `i`.
    pub operands: Vec<Vec<Operand>>,
    /// `clobbers[i]`: registers instruction `i` clobbers.
    pub clobbers: Vec<PRegSet>,
    /// Number of vregs (every vreg index but [`NO_VREG`] is below it).
    pub num_vregs: usize,
}

/// A structural defect of a [`FlatFunction`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlatError {
    /// Block instruction ranges do not partition the instructions in block order.
    #[error("block {0}: instruction range does not follow the previous block's or is empty")]
    BlockRange(MBlock),
    /// A block's last instruction is not a terminator, or a terminator is not last.
    #[error("block {block}: instruction {inst} misplaces a terminator")]
    Terminator {
        /// The block.
        block: MBlock,
        /// The instruction.
        inst: MInst,
    },
    /// Successor and predecessor lists disagree, or a block index is out of range.
    #[error("block {0}: successor/predecessor lists disagree or name a missing block")]
    Edges(MBlock),
    /// A branch passes the wrong number of arguments to a successor.
    #[error("block {block}: successor {succ} gets {got} arguments for {want} parameters")]
    BranchArgs {
        /// The branching block.
        block: MBlock,
        /// The successor's position in the block's successor list.
        succ: usize,
        /// Arguments passed.
        got: usize,
        /// Parameters expected.
        want: usize,
    },
    /// A vreg index is out of range.
    #[error("instruction {inst}: operand {operand} names vreg {vreg} beyond num_vregs")]
    VRegRange {
        /// The instruction.
        inst: MInst,
        /// The operand index.
        operand: usize,
        /// The vreg.
        vreg: VReg,
    },
    /// A reuse constraint names a missing or non-use operand, or sits on a use.
    #[error("instruction {inst}: operand {operand} has a bad reuse constraint")]
    Reuse {
        /// The instruction.
        inst: MInst,
        /// The operand index.
        operand: usize,
    },
}

impl FlatFunction {
    /// Checks the structural invariants; the first violation is returned.
    pub fn validate(&self) -> Result<(), FlatError> {
        let nb = self.block_insts.len();
        let mut next = 0;
        for b in 0..nb {
            let r = &self.block_insts[b];
            if r.start != next || r.end <= r.start {
                return Err(FlatError::BlockRange(b as MBlock));
            }
            next = r.end;
            for i in r.clone() {
                let term = self.kinds[i as usize] != FlatInstKind::Op;
                if term != (i + 1 == r.end) {
                    return Err(FlatError::Terminator {
                        block: b as MBlock,
                        inst: i,
                    });
                }
            }
            let last = r.end - 1;
            if self.kinds[last as usize] == FlatInstKind::Ret && !self.succs[b].is_empty() {
                return Err(FlatError::Edges(b as MBlock));
            }
            for (s, &succ) in self.succs[b].iter().enumerate() {
                let Some(preds) = self.preds.get(succ as usize) else {
                    return Err(FlatError::Edges(b as MBlock));
                };
                let forward = self.succs[b].iter().filter(|&&x| x == succ).count();
                let backward = preds.iter().filter(|&&p| p as usize == b).count();
                if forward != backward {
                    return Err(FlatError::Edges(b as MBlock));
                }
                let (got, want) = (
                    self.branch_args[b].get(s).map_or(0, Vec::len),
                    self.params[succ as usize].len(),
                );
                if got != want {
                    return Err(FlatError::BranchArgs {
                        block: b as MBlock,
                        succ: s,
                        got,
                        want,
                    });
                }
            }
        }
        if next as usize != self.kinds.len()
            || self.operands.len() != self.kinds.len()
            || self.clobbers.len() != self.kinds.len()
        {
            return Err(FlatError::BlockRange(nb as MBlock));
        }
        for (i, ops) in self.operands.iter().enumerate() {
            for (k, op) in ops.iter().enumerate() {
                let idx = op.vreg.index();
                if idx != NO_VREG as usize && idx >= self.num_vregs {
                    return Err(FlatError::VRegRange {
                        inst: i as MInst,
                        operand: k,
                        vreg: op.vreg,
                    });
                }
                if let OperandConstraint::Reuse(u) = op.constraint {
                    let ok = op.kind == crate::machine::OperandKind::Def
                        && ops
                            .get(u as usize)
                            .is_some_and(|o| o.kind == crate::machine::OperandKind::Use);
                    if !ok {
                        return Err(FlatError::Reuse {
                            inst: i as MInst,
                            operand: k,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether `vreg` names a value (is not the [`NO_VREG`] marker).
    pub fn is_value(vreg: VReg) -> bool {
        vreg.index() != NO_VREG as usize
    }
}

impl MachineRead for FlatFunction {
    fn num_insts(&self) -> usize {
        self.kinds.len()
    }
    fn num_blocks(&self) -> usize {
        self.block_insts.len()
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn block_insts(&self, block: MBlock) -> Range<MInst> {
        self.block_insts[block as usize].clone()
    }
    fn block_succs(&self, block: MBlock) -> &[MBlock] {
        &self.succs[block as usize]
    }
    fn block_preds(&self, block: MBlock) -> &[MBlock] {
        &self.preds[block as usize]
    }
    fn block_params(&self, block: MBlock) -> &[VReg] {
        &self.params[block as usize]
    }
    fn is_ret(&self, inst: MInst) -> bool {
        self.kinds[inst as usize] == FlatInstKind::Ret
    }
    fn is_branch(&self, inst: MInst) -> bool {
        self.kinds[inst as usize] == FlatInstKind::Branch
    }
    fn branch_args(&self, block: MBlock, succ: usize) -> &[VReg] {
        self.branch_args[block as usize]
            .get(succ)
            .map_or(&[], Vec::as_slice)
    }
    fn inst_operands(&self, inst: MInst) -> &[Operand] {
        &self.operands[inst as usize]
    }
    fn inst_clobbers(&self, inst: MInst) -> PRegSet {
        self.clobbers[inst as usize]
    }
}

//! Machine operands: virtual registers and the constraints an instruction puts on them.
//!
//! What: the vocabulary the machine form (lowering's output) and the register allocator
//! share. A [`VReg`] is a virtual register of one [`RegClass`]; an [`Operand`] says how one
//! instruction touches one virtual register: read or written ([`OperandKind`]), at the
//! instruction's early or late point ([`OperandPos`]), and where the value must be
//! ([`OperandConstraint`]). The model is the one of the Ion design
//! (`../shared/seeds/004_a35bf7de693e4d8a.txt`, "operands and constraints"), the same
//! model regalloc2 exposes, so either side can be presented as the other.
//!
//! Invariants: a [`VReg`] index is below [`VReg::MAX_INDEX`] + 1 (class in the low two
//! bits of one `u32`); a `Reuse(i)` constraint appears only on a def and names a use of the
//! same instruction; a `FixedReg` register has the operand's class.
//!
//! Complexity: every operation is O(1); an [`Operand`] is 8 bytes.

use std::fmt;

use super::location::{PReg, RegClass};

/// A virtual register: a dense index and a register class packed in a `u32` (index in the
/// high 30 bits, class in the low 2), so vregs compare and hash as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg {
    bits: u32,
}

impl VReg {
    /// The largest index a virtual register may have.
    pub const MAX_INDEX: u32 = (1 << 30) - 1;

    /// The index that marks an operand naming no value: a mention of a fixed,
    /// non-allocatable register (regalloc2's `Operand::fixed_nonallocatable`). Liveness and
    /// live ranges skip such operands; the checker only checks their allocation.
    pub const NO_VALUE: u32 = Self::MAX_INDEX;

    /// The operand marker of a fixed non-allocatable register of `class` (see
    /// [`VReg::NO_VALUE`]).
    pub const fn no_value(class: RegClass) -> VReg {
        VReg {
            bits: (Self::NO_VALUE << 2) | class as u32,
        }
    }

    /// Whether this vreg names a value (is not the [`VReg::NO_VALUE`] marker).
    pub const fn is_value(self) -> bool {
        self.index() != Self::NO_VALUE as usize
    }

    /// Virtual register `index` of `class`, or `None` when `index > MAX_INDEX`.
    pub const fn new(index: u32, class: RegClass) -> Option<VReg> {
        if index > Self::MAX_INDEX {
            return None;
        }
        Some(VReg {
            bits: (index << 2) | class as u32,
        })
    }

    /// The dense index (0-based, per function, over all classes).
    pub const fn index(self) -> usize {
        (self.bits >> 2) as usize
    }

    /// The register class.
    pub const fn class(self) -> RegClass {
        match self.bits & 3 {
            0 => RegClass::Int,
            1 => RegClass::Float,
            _ => RegClass::Vector,
        }
    }
}

impl fmt::Display for VReg {
    /// `v12i`, `v3f`, `v7v`: index, then the class letter.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let class = match self.class() {
            RegClass::Int => 'i',
            RegClass::Float => 'f',
            RegClass::Vector => 'v',
        };
        write!(f, "v{}{}", self.index(), class)
    }
}

/// Whether an operand reads or writes its virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// The instruction reads the value.
    Use,
    /// The instruction writes (defines) the value.
    Def,
}

/// When, within its instruction, an operand is read or written. Uses are normally early and
/// defs late; a late use stays live across the instruction's defs, an early def is written
/// before the instruction's uses are read (so it may not share their registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandPos {
    /// At the instruction's "before" program point.
    Early,
    /// At the instruction's "after" program point.
    Late,
}

/// Where an operand's value must be at its program point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandConstraint {
    /// Any location: a register of the class or a spill slot.
    Any,
    /// Any register of the class.
    Reg,
    /// A spill slot.
    Stack,
    /// Exactly this register.
    FixedReg(PReg),
    /// (Defs only) the same register as the use operand at this index of the same
    /// instruction: two-address arithmetic.
    Reuse(u8),
    /// A register of the class whose hardware index is below this bound (for encodings
    /// that reach only the low registers).
    Limit(u8),
}

/// One operand: a virtual register, what the instruction does with it, when, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The virtual register.
    pub vreg: VReg,
    /// Where the value must be.
    pub constraint: OperandConstraint,
    /// Read or written.
    pub kind: OperandKind,
    /// Early or late.
    pub pos: OperandPos,
}

impl Operand {
    /// An early use with constraint `constraint`.
    pub const fn use_(vreg: VReg, constraint: OperandConstraint) -> Operand {
        Operand {
            vreg,
            constraint,
            kind: OperandKind::Use,
            pos: OperandPos::Early,
        }
    }

    /// A late def with constraint `constraint`.
    pub const fn def(vreg: VReg, constraint: OperandConstraint) -> Operand {
        Operand {
            vreg,
            constraint,
            kind: OperandKind::Def,
            pos: OperandPos::Late,
        }
    }

    /// The same operand at position `pos`.
    pub const fn at(self, pos: OperandPos) -> Operand {
        Operand { pos, ..self }
    }
}

impl fmt::Display for Operand {
    /// `use v3i:reg`, `def v4i:reuse(0)`, `def@early v5i:fixed(r0)`, `use@late v6f:any`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            OperandKind::Use => "use",
            OperandKind::Def => "def",
        };
        let default_pos = match self.kind {
            OperandKind::Use => OperandPos::Early,
            OperandKind::Def => OperandPos::Late,
        };
        f.write_str(kind)?;
        if self.pos != default_pos {
            f.write_str(match self.pos {
                OperandPos::Early => "@early",
                OperandPos::Late => "@late",
            })?;
        }
        write!(f, " {}:", self.vreg)?;
        match self.constraint {
            OperandConstraint::Any => f.write_str("any"),
            OperandConstraint::Reg => f.write_str("reg"),
            OperandConstraint::Stack => f.write_str("stack"),
            OperandConstraint::FixedReg(r) => write!(f, "fixed({r})"),
            OperandConstraint::Reuse(i) => write!(f, "reuse({i})"),
            OperandConstraint::Limit(n) => write!(f, "limit({n})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vreg_round_trips_index_and_class() {
        for class in RegClass::ALL {
            for index in [0, 1, 77, VReg::MAX_INDEX] {
                let v = VReg::new(index, class).unwrap();
                assert_eq!(v.index(), index as usize);
                assert_eq!(v.class(), class);
            }
        }
        assert!(VReg::new(VReg::MAX_INDEX + 1, RegClass::Int).is_none());
    }

    #[test]
    fn operand_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Operand>(), 8);
    }
}

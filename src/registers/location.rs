//! Machine locations: register classes, physical registers, spill slots, allocations.
//!
//! What: the small value types every allocator phase speaks in. A [`PReg`] packs its
//! [`RegClass`] and hardware index into one byte (class in the two high bits, index in the
//! six low bits), so registers compare, hash and sort as integers. A [`SpillSlot`] is an
//! index into the function's spill area; slot sizes and offsets are decided by the frame
//! layout, not here. An [`Allocation`] is where a value lives at a program point.
//!
//! Invariants: a register's index is below [`PReg::MAX_INDEX`] + 1 (64 per class, enough
//! for every target of issue 13: x86-64 has 16 GPRs and 16 XMM, aarch64 31 GPRs and 32
//! FP/SIMD registers).
//!
//! Complexity: every operation is O(1).

use std::fmt;

/// A register class: the kind of register file a value lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum RegClass {
    /// General-purpose integer (and pointer) registers.
    Int = 0,
    /// Scalar floating-point registers.
    Float = 1,
    /// Vector (SIMD) registers.
    Vector = 2,
}

impl RegClass {
    /// Every class, in index order.
    pub const ALL: [RegClass; 3] = [RegClass::Int, RegClass::Float, RegClass::Vector];

    /// The dense index of the class (0, 1, 2), for per-class tables.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The class of dense index `i`, or `None` when `i >= 3`.
    pub const fn from_index(i: usize) -> Option<RegClass> {
        match i {
            0 => Some(RegClass::Int),
            1 => Some(RegClass::Float),
            2 => Some(RegClass::Vector),
            _ => None,
        }
    }
}

impl fmt::Display for RegClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RegClass::Int => "int",
            RegClass::Float => "float",
            RegClass::Vector => "vector",
        })
    }
}

/// A physical register: a class and a hardware index within the class, packed in a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PReg {
    bits: u8,
}

impl PReg {
    /// The largest hardware index a register may have.
    pub const MAX_INDEX: u8 = 63;

    /// The register `index` of `class`, or `None` when `index > MAX_INDEX`.
    pub const fn new(class: RegClass, index: u8) -> Option<PReg> {
        if index > Self::MAX_INDEX {
            return None;
        }
        Some(PReg {
            bits: ((class as u8) << 6) | index,
        })
    }

    /// The register's class.
    pub const fn class(self) -> RegClass {
        match self.bits >> 6 {
            0 => RegClass::Int,
            1 => RegClass::Float,
            _ => RegClass::Vector,
        }
    }

    /// The register's hardware index within its class.
    pub const fn index(self) -> u8 {
        self.bits & Self::MAX_INDEX
    }

    /// A dense index over all classes (`class * 64 + index`, below 192), for tables.
    pub const fn dense_index(self) -> usize {
        self.bits as usize
    }
}

impl fmt::Display for PReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.class() {
            RegClass::Int => 'r',
            RegClass::Float => 'f',
            RegClass::Vector => 'v',
        };
        write!(f, "{prefix}{}", self.index())
    }
}

/// A spill slot: an index into the function's spill area (sizes are the frame's concern).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpillSlot(pub u32);

impl fmt::Display for SpillSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slot{}", self.0)
    }
}

/// Where a value lives: nowhere (not yet allocated, or dead), a register or a spill slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Allocation {
    /// No location.
    #[default]
    None,
    /// A physical register.
    Reg(PReg),
    /// A spill slot.
    Stack(SpillSlot),
}

impl Allocation {
    /// Whether this is a spill slot.
    pub const fn is_stack(self) -> bool {
        matches!(self, Allocation::Stack(_))
    }

    /// The register, if this is one.
    pub const fn as_reg(self) -> Option<PReg> {
        match self {
            Allocation::Reg(r) => Some(r),
            _ => None,
        }
    }
}

impl From<PReg> for Allocation {
    fn from(r: PReg) -> Self {
        Allocation::Reg(r)
    }
}

impl From<SpillSlot> for Allocation {
    fn from(s: SpillSlot) -> Self {
        Allocation::Stack(s)
    }
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allocation::None => f.write_str("none"),
            Allocation::Reg(r) => r.fmt(f),
            Allocation::Stack(s) => s.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preg_packs_class_and_index() {
        for class in RegClass::ALL {
            assert_eq!(RegClass::from_index(class.index()), Some(class));
            for index in 0..=PReg::MAX_INDEX {
                let r = PReg::new(class, index).unwrap();
                assert_eq!((r.class(), r.index()), (class, index));
                assert_eq!(r.dense_index(), class.index() * 64 + index as usize);
            }
            assert_eq!(PReg::new(class, PReg::MAX_INDEX + 1), None);
        }
        assert_eq!(RegClass::from_index(3), None);
    }

    #[test]
    fn display() {
        let r = PReg::new(RegClass::Float, 7).unwrap();
        assert_eq!(Allocation::from(r).to_string(), "f7");
        assert_eq!(Allocation::from(SpillSlot(3)).to_string(), "slot3");
        assert_eq!(Allocation::None.to_string(), "none");
        assert!(Allocation::Stack(SpillSlot(0)).is_stack());
        assert_eq!(Allocation::Reg(r).as_reg(), Some(r));
    }
}

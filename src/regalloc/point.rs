//! Program points and code ranges, packed as the Ion design packs them.
//!
//! What: a [`ProgPoint`] is an instruction index and a before/after bit in one `u32`
//! (`inst << 1 | after`), so points compare, sort and step as integers (seed,
//! "Performance-Tuning Lessons": the derived comparator of a struct was measurably slower).
//! A [`CodeRange`] is a half-open range of points `[from, to)`.
//!
//! Invariants: an instruction index is below `2^31`; `from <= to` in every [`CodeRange`].
//!
//! Complexity: every operation is O(1).

use crate::machine::MInst;
use std::fmt;

/// An instruction index and a before/after position, packed in a `u32`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct ProgPoint(pub u32);

impl ProgPoint {
    /// The point just before instruction `inst` (where its early operands are).
    pub const fn before(inst: MInst) -> ProgPoint {
        ProgPoint(inst.0 << 1)
    }
    /// The point just after instruction `inst` (where its late operands are).
    pub const fn after(inst: MInst) -> ProgPoint {
        ProgPoint((inst.0 << 1) | 1)
    }
    /// The instruction.
    pub const fn inst(self) -> MInst {
        MInst(self.0 >> 1)
    }
    /// Whether this is an "after" point.
    pub const fn is_after(self) -> bool {
        self.0 & 1 == 1
    }
    /// The next point.
    pub const fn next(self) -> ProgPoint {
        ProgPoint(self.0 + 1)
    }
    /// The previous point (saturating at 0).
    pub const fn prev(self) -> ProgPoint {
        ProgPoint(self.0.saturating_sub(1))
    }
}

impl fmt::Display for ProgPoint {
    /// `12b` / `12a`: instruction 12, before or after.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            self.inst(),
            if self.is_after() { 'a' } else { 'b' }
        )
    }
}

/// A half-open range of program points `[from, to)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CodeRange {
    /// First point in the range.
    pub from: ProgPoint,
    /// First point after the range.
    pub to: ProgPoint,
}

impl CodeRange {
    /// `[from, to)`.
    pub const fn new(from: ProgPoint, to: ProgPoint) -> CodeRange {
        CodeRange { from, to }
    }
    /// Whether the two ranges share a point.
    pub const fn overlaps(self, other: CodeRange) -> bool {
        self.from.0 < other.to.0 && other.from.0 < self.to.0
    }
    /// Whether `p` is in the range.
    pub const fn contains(self, p: ProgPoint) -> bool {
        self.from.0 <= p.0 && p.0 < self.to.0
    }
    /// Number of points in the range.
    pub const fn len(self) -> u32 {
        self.to.0 - self.from.0
    }
    /// Whether the range holds no point.
    pub const fn is_empty(self) -> bool {
        self.to.0 <= self.from.0
    }
}

impl fmt::Display for CodeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {})", self.from, self.to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_pack_and_order() {
        let (b, a) = (ProgPoint::before(MInst(7)), ProgPoint::after(MInst(7)));
        assert!(b < a && a < ProgPoint::before(MInst(8)));
        assert_eq!(
            (a.inst(), a.is_after(), b.is_after()),
            (MInst(7), true, false)
        );
        assert_eq!(b.next(), a);
        assert_eq!(a.prev(), b);
        assert_eq!(a.to_string(), "7a");
        let r = CodeRange::new(b, ProgPoint::before(MInst(9)));
        assert!(r.contains(a) && !r.contains(ProgPoint::before(MInst(9))));
        assert!(r.overlaps(CodeRange::new(
            ProgPoint::after(MInst(8)),
            ProgPoint::before(MInst(10))
        )));
        assert!(!r.overlaps(CodeRange::new(
            ProgPoint::before(MInst(9)),
            ProgPoint::before(MInst(10))
        )));
        assert_eq!(r.len(), 4);
    }
}

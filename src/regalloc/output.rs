//! An allocation result in `regalloc2::Output`'s shape, independent of regalloc2.
//!
//! What: [`AllocOutput`] holds, per instruction, one [`Allocation`] per operand (flat, with
//! offsets), the edits an allocator inserts (moves at program points, sorted by point) and
//! the number of spill slots used. The checker ([`super::checker`]) judges it; the regalloc2
//! model converts regalloc2's output into it.
//!
//! Invariants of a well-formed output (checked by the checker, not by construction):
//! edits sorted by point; none after a block's terminator; no move from a slot to a slot.
//!
//! Complexity: O(1) accessors.

use super::location::Allocation;
use super::point::ProgPoint;

/// One inserted move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    /// The location read.
    pub from: Allocation,
    /// The location written.
    pub to: Allocation,
}

/// Per-operand allocations, edits and spill-slot count of one allocated function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllocOutput {
    /// Allocations of all operands, instruction by instruction.
    pub allocs: Vec<Allocation>,
    /// `inst_alloc_offsets[i]`: index of instruction `i`'s first allocation in `allocs`.
    pub inst_alloc_offsets: Vec<u32>,
    /// Inserted moves with their points, sorted by point.
    pub edits: Vec<(ProgPoint, Edit)>,
    /// Spill slots used (slot indices are below it).
    pub num_spillslots: usize,
}

impl AllocOutput {
    /// The allocations of instruction `inst`'s operands (empty for a missing instruction).
    pub fn inst_allocs(&self, inst: u32) -> &[Allocation] {
        let i = inst as usize;
        let Some(&start) = self.inst_alloc_offsets.get(i) else {
            return &[];
        };
        let end = self
            .inst_alloc_offsets
            .get(i + 1)
            .map_or(self.allocs.len(), |&e| e as usize);
        self.allocs.get(start as usize..end).unwrap_or(&[])
    }
}

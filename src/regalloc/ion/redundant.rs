//! Intra-block redundant-move elimination (Ion design, "Redundant-Spill/Load Elimination").
//!
//! What: [`remove_redundant_moves`] walks each block's edits and instructions in execution
//! order (moves at an instruction's "before" point, the instruction, moves at its "after"
//! point) and numbers the value each location holds: a move gives its destination the
//! source's value number, a def or clobber gives its location a fresh one, a block start
//! forgets everything (a location is a copy of another only if it is so on every incoming
//! edge; the seed takes the intra-block approximation, as here). A move whose destination
//! already holds its source's value is dropped. This removes the reload into the register a
//! value was just spilled from, a second spill of a value whose slot still holds it, and a
//! move back to where a value came from. A rematerialization gives its destination the
//! value number of its value's remat pseudo slot (`REMAT_SLOT`), which is also the
//! number a def of that value gives its location, so recomputing a value into a register
//! that still holds it (from its def or an earlier remat) is dropped too.
//!
//! Invariants: every dropped move was a no-op on every path through its block, so the
//! checker's verdict is unchanged.
//!
//! Complexity: O(edits + operands) per function: value numbers of registers in a table
//! stamped per block ([`ValueNumbers`]; clobbers make most of them), of other locations in
//! a hash map.

use crate::machine::{MachineRead, OperandKind};
use crate::regalloc::location::Allocation;
use crate::regalloc::output::AllocOutput;
use crate::regalloc::point::ProgPoint;
use rustc_hash::FxHashMap;

/// Value numbers of locations within one block: registers in a table indexed by dense
/// register index, stamped with the block's epoch (clearing is O(1)), every other location
/// (spill slots, remat keys) in a hash map. Reused between functions.
#[derive(Default)]
pub struct ValueNumbers {
    /// `regs[r]`: (epoch, value number) of register `r`.
    regs: Vec<(u32, u32)>,
    /// The current block's epoch (entries of other epochs hold nothing).
    epoch: u32,
    /// Value numbers of the other locations.
    others: FxHashMap<Allocation, u32>,
}

impl ValueNumbers {
    /// Forgets every location's value.
    fn clear(&mut self) {
        self.others.clear();
        if self.regs.is_empty() {
            self.regs.resize(256, (0, 0));
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Wrapped: stale stamps could match again.
            self.regs.iter_mut().for_each(|e| *e = (0, 0));
            self.epoch = 1;
        }
    }

    /// The value number `a` holds.
    fn get(&self, a: Allocation) -> Option<u32> {
        match a {
            Allocation::Reg(r) => {
                let (epoch, v) = self.regs[r.dense_index()];
                (epoch == self.epoch).then_some(v)
            }
            _ => self.others.get(&a).copied(),
        }
    }

    /// Records that `a` holds value `v`.
    fn insert(&mut self, a: Allocation, v: u32) {
        match a {
            Allocation::Reg(r) => self.regs[r.dense_index()] = (self.epoch, v),
            _ => {
                self.others.insert(a, v);
            }
        }
    }
}

/// Drops redundant moves from `out.edits` (see the module doc); returns how many.
pub fn remove_redundant_moves<F: MachineRead + ?Sized>(
    f: &F,
    out: &mut AllocOutput,
    values: &mut ValueNumbers,
) -> usize {
    // Compacted in place (the kept edits are a subsequence, so the write index never passes
    // the read index): no second vector.
    let mut edits = std::mem::take(&mut out.edits);
    let mut kept = 0;
    let mut next = 0u32;
    let mut fresh = || {
        next += 1;
        next
    };
    let mut e = 0;
    let mut removed = 0;
    for b in f.blocks() {
        let insts = f.block_insts(b);
        // Only the instructions from the block's first edit on matter: before it, defs and
        // clobbers give locations fresh values, which a location never read before has too.
        // A block without edits is skipped.
        match edits.get(e) {
            Some(&(p, _)) if p < ProgPoint::before(insts.end) => {}
            _ => continue,
        }
        values.clear();
        let first = edits[e].0.inst().max(insts.start);
        for i in first.0..insts.end.0 {
            let i = crate::machine::MInst(i);
            for after in [false, true] {
                let point = if after {
                    ProgPoint::after(i)
                } else {
                    ProgPoint::before(i)
                };
                if after {
                    // The instruction's effects happen between its two points.
                    let allocs = out.inst_allocs(i.0);
                    for (k, op) in f.inst_operands(i).iter().enumerate() {
                        if op.kind == OperandKind::Def {
                            if let Some(&a) = allocs.get(k) {
                                let v = match f.remat(op.vreg) {
                                    Some(_) => number(values, remat_slot(op.vreg), &mut fresh),
                                    None => fresh(),
                                };
                                values.insert(a, v);
                            }
                        }
                    }
                    for r in f.inst_clobbers(i).iter() {
                        values.insert(Allocation::Reg(r), fresh());
                    }
                }
                while e < edits.len() && edits[e].0 == point {
                    let (p, edit) = edits[e];
                    e += 1;
                    let from = edit.remat.map_or(edit.from, remat_slot);
                    let v = number(values, from, &mut fresh);
                    if values.get(edit.to) == Some(v) {
                        removed += 1;
                        continue;
                    }
                    values.insert(edit.to, v);
                    edits[kept] = (p, edit);
                    kept += 1;
                }
            }
        }
    }
    // Edits past the last instruction (none in a well-formed output) are kept as they are.
    edits.copy_within(e.., kept);
    edits.truncate(kept + edits.len() - e);
    out.edits = edits;
    removed
}

/// The remat pseudo slot of `v`: the key of its recomputed value's number.
fn remat_slot(v: crate::machine::VReg) -> Allocation {
    Allocation::Stack(crate::regalloc::location::SpillSlot(
        super::REMAT_SLOT + v.index() as u32,
    ))
}

/// The value number `a` holds, numbering it afresh when it has none yet.
fn number(values: &mut ValueNumbers, a: Allocation, fresh: &mut impl FnMut() -> u32) -> u32 {
    match values.get(a) {
        Some(v) => v,
        None => {
            let v = fresh();
            values.insert(a, v);
            v
        }
    }
}

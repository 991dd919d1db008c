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
//! An edit is a move or a rematerialization: `remat: Some(v)` recomputes value `v` into `to`
//! with the instruction of `v`'s rematerialization hook ([`crate::machine::MachineRead::remat`])
//! instead of reloading it. regalloc2's `Edit` has moves only, so
//! [`AllocOutput::remats_as_moves`] presents remats to regalloc2 (its checker, drop-in users)
//! as moves from a pseudo slot per value, written right after the value's def: a correct
//! program as it stands, and one a rematerializing emitter turns back into the remats.
//!
//! Complexity: O(1) accessors; [`AllocOutput::remats_as_moves`] O(edits + remat values x
//! log).

use super::location::{Allocation, RegClass, SpillSlot};
use super::point::ProgPoint;
use crate::machine::VReg;

/// One inserted move or rematerialization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    /// The location read (`None` for a rematerialization).
    pub from: Allocation,
    /// The location written.
    pub to: Allocation,
    /// `Some(v)`: a rematerialization of `v` into `to` (recomputed, nothing read).
    pub remat: Option<VReg>,
}

impl Edit {
    /// A move from `from` to `to`.
    pub const fn mov(from: Allocation, to: Allocation) -> Edit {
        Edit {
            from,
            to,
            remat: None,
        }
    }

    /// A rematerialization of `vreg` into `to`.
    pub const fn remat(vreg: VReg, to: Allocation) -> Edit {
        Edit {
            from: Allocation::None,
            to,
            remat: Some(vreg),
        }
    }
}

/// The edits of an output by kind, and their loop-weighted cost (issue 23's measure): a
/// spill (register to slot) costs 1, a reload (slot to register) 4, a register move 0.2, a
/// rematerialization 1, each times 4^(loop depth of the edit's block).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EditCosts {
    /// Register to slot moves.
    pub spills: usize,
    /// Slot to register moves.
    pub reloads: usize,
    /// Register to register moves.
    pub moves: usize,
    /// Rematerializations.
    pub remats: usize,
    /// The loop-weighted cost in tenths (integral: a move is 2 tenths).
    pub cost_tenths: u64,
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

    /// The edits by kind and their loop-weighted cost ([`EditCosts`]) for `f`; registers in
    /// `fixed_stack` name stack locations. O(edits + blocks + edges).
    pub fn edit_costs<F: crate::machine::MachineRead + ?Sized>(
        &self,
        f: &F,
        fixed_stack: crate::machine::PRegSet,
    ) -> EditCosts {
        let depth = super::ranges::loop_depths(f);
        let mut block_ends: Vec<(u32, u32)> = f
            .blocks()
            .map(|b| (f.block_insts(b).end.0, depth[b.index()]))
            .collect();
        block_ends.sort_unstable();
        let stack = |a: Allocation| match a {
            Allocation::Stack(_) => true,
            Allocation::Reg(r) => fixed_stack.contains(r),
            Allocation::None => false,
        };
        let mut c = EditCosts::default();
        for &(p, e) in &self.edits {
            let inst = p.inst().0;
            let k = block_ends.partition_point(|&(end, _)| end <= inst);
            let d = block_ends.get(k).map_or(0, |&(_, d)| d);
            let tenths = if e.remat.is_some() {
                c.remats += 1;
                10
            } else if stack(e.from) {
                c.reloads += 1;
                40
            } else if stack(e.to) {
                c.spills += 1;
                10
            } else {
                c.moves += 1;
                2
            };
            c.cost_tenths += tenths * 4u64.saturating_pow(d.min(20));
        }
        c
    }

    /// Rematerializations among the edits.
    pub fn remat_count(&self) -> usize {
        self.edits.iter().filter(|(_, e)| e.remat.is_some()).count()
    }

    /// The values some edit rematerializes, sorted by index, each once.
    pub fn remat_values(&self) -> Vec<VReg> {
        let mut vs: Vec<VReg> = self.edits.iter().filter_map(|(_, e)| e.remat).collect();
        vs.sort_unstable_by_key(|v| v.index());
        vs.dedup();
        vs
    }

    /// The output with its remats as moves (see the module doc): each rematerialized value
    /// `v` gets a pseudo slot (numbered from `num_spillslots` on, `slot_size(class)` units,
    /// in vreg order); a move from `v`'s def location into it sits first among the edits
    /// right after the def, and every remat of `v` into `to` becomes a move from it.
    /// `defs` lists `(v, instruction, operand index)` of the def of each value of
    /// [`Self::remat_values`] (others are ignored; a value without a def gets no store).
    /// Returns the output and the pseudo slots with their values.
    pub fn remats_as_moves(
        &self,
        defs: &[(VReg, u32, usize)],
        slot_size: impl Fn(RegClass) -> usize,
    ) -> (AllocOutput, Vec<(SpillSlot, VReg)>) {
        let values = self.remat_values();
        let mut next = self.num_spillslots;
        let mut slots = Vec::with_capacity(values.len());
        for &v in &values {
            let size = slot_size(v.class()).max(1);
            let s = next.div_ceil(size) * size;
            next = s + size;
            slots.push((SpillSlot(s as u32), v));
        }
        let slot_of = |v: VReg| {
            let k = values
                .binary_search_by_key(&v.index(), |w| w.index())
                .ok()?;
            Some(Allocation::Stack(slots[k].0))
        };
        let mut stores: Vec<(ProgPoint, Edit)> = defs
            .iter()
            .filter_map(|&(v, inst, k)| {
                let to = slot_of(v)?;
                let from = *self.inst_allocs(inst).get(k)?;
                Some((
                    ProgPoint::after(crate::machine::MInst(inst)),
                    Edit::mov(from, to),
                ))
            })
            .collect();
        stores.sort_unstable_by_key(|(p, _)| *p);
        let mut edits = Vec::with_capacity(self.edits.len() + stores.len());
        let mut s = 0;
        for &(p, e) in &self.edits {
            while s < stores.len() && stores[s].0 <= p {
                edits.push(stores[s]);
                s += 1;
            }
            let e = match e.remat.and_then(slot_of) {
                Some(from) => Edit::mov(from, e.to),
                None => e,
            };
            edits.push((p, e));
        }
        edits.extend_from_slice(&stores[s..]);
        let out = AllocOutput {
            allocs: self.allocs.clone(),
            inst_alloc_offsets: self.inst_alloc_offsets.clone(),
            edits,
            num_spillslots: next,
        };
        (out, slots)
    }

    /// [`Self::remats_as_moves`] for a function read through [`crate::machine::MachineRead`]
    /// (the defs found by one scan of its operands); the output itself when it has no remat.
    pub fn remats_as_moves_for<F: crate::machine::MachineRead + ?Sized>(
        &self,
        f: &F,
    ) -> std::borrow::Cow<'_, AllocOutput> {
        if self.remat_count() == 0 {
            return std::borrow::Cow::Borrowed(self);
        }
        let values = self.remat_values();
        let mut defs = Vec::with_capacity(values.len());
        for i in f.insts() {
            for (k, op) in f.inst_operands(i).iter().enumerate() {
                if op.kind == crate::machine::OperandKind::Def
                    && values.binary_search(&op.vreg).is_ok()
                {
                    defs.push((op.vreg, i.0, k));
                }
            }
        }
        std::borrow::Cow::Owned(self.remats_as_moves(&defs, |c| f.spill_slot_size(c)).0)
    }
}

//! Step 1 of SSA construction: which allocas can be promoted (002 step 1, DESIGN.md 4).
//!
//! What: `scan` makes one linear pass over the instructions of every live block (two when
//! some alloca is outside the entry block; allocas in every block count, not only the
//! entry: inlined bodies) and fills `Candidates`: one
//! slot per alloca with its type and zero constant, the reason it was rejected (if any), and
//! per promotable slot the blocks that define it (stores, register-constraint asm outputs)
//! and the blocks where it is upward-exposed (a load before any definition or the alloca
//! itself in that block), which [`super::place_phis`] needs for phi placement and liveness.
//!
//! Rules (an alloca is promotable iff all hold):
//! - the allocation holds the type: a scalar's allocation at most
//!   [`MAX_PROMOTABLE_ALLOCA_SIZE`](super::MAX_PROMOTABLE_ALLOCA_SIZE) bytes, or its store
//!   size rounded up to a power of two for wider scalars (`i128`, `i96`, `f80`), and an
//!   aggregate (struct or array, DESIGN.md 3.1) or vector of any size, as LLVM 14 promotes
//!   every first-class type ([`super::promotable_size`]);
//! - the alloca is not `volatile`;
//! - its value is used only as the address of non-volatile loads and stores whose type is
//!   the alloca's type (a different type is type punning: DESIGN.md 4), or as the
//!   `Pointer` place of a register-constraint inline-asm output of the alloca's type. Any
//!   other use escapes: call argument or callee, stored value, `gep` base, asm input,
//!   atomics, opaque operands, casts, phis, terminators. A memory-constraint asm output
//!   (`=m`, `=o`, `=V`, `=p`) disqualifies; so does a read-write (`+`) asm output, whose
//!   input half reads the slot through memory.
//! - Parameter allocas (the first N allocas of the entry block, N = number of parameters)
//!   are skipped by [`ParamAllocas::Skip`]; with [`ParamAllocas::IncludeStored`] they are
//!   candidates unless they are read and nothing in the IR stores to them.
//!
//! Invariants after `scan`: `slot_of[v]` is the slot of alloca value `v` or `NONE`;
//! each slot's def and use lists (entries of `defs` / `uses` linked from `Slot::def_head`
//! / `Slot::use_head`, latest first) hold each block at most once; the first access of a
//! slot in its alloca's block is the alloca itself (a kill), so a slot is never
//! upward-exposed there.
//!
//! Complexity: O(instructions + operands) time; O(values + allocas + accesses) space,
//! all in reusable vectors.

use super::{promotable_size, Reject};
use crate::ir::{
    AsmOutputPlace, Block, BodyRef, Const, ConstData, ConstPool, Inst, InstKind, IrRead, Operand,
    Terminator, Type, Value,
};

/// Sentinel for "no slot" / "no block".
pub(crate) const NONE: u32 = u32::MAX;

/// Which entry-block parameter allocas are candidates (002 "Two invocations").
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum ParamAllocas {
    /// Skip the first N entry-block allocas, N = number of parameters
    /// (`promote_allocas`, before inlining).
    Skip,
    /// Include them, except those with no IR-visible store (`promote_allocas`,
    /// after inlining; the pipeline default).
    #[default]
    IncludeStored,
}

/// One alloca of the function.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    /// The alloca's result.
    pub value: Value,
    /// Its block.
    pub block: Block,
    /// Element type.
    pub ty: Type,
    /// `ConstData::zero(ty)`, interned once the slot is promoted.
    pub zero: Const,
    /// Why it is not promoted, or `None`.
    pub reject: Option<Reject>,
    /// One of the first N entry-block allocas.
    pub is_param: bool,
    /// Some store or asm output defines it.
    pub has_def: bool,
    /// Some load, store or asm output accesses it.
    pub accessed: bool,
    /// Block where the slot was last accessed during the scan (dedup stamp).
    last_block: u32,
    /// A definition (or the alloca) came earlier in `last_block`.
    killed: bool,
    /// `last_block` is already in `defs` for this slot.
    def_recorded: bool,
    /// `last_block` is already in `uses` for this slot.
    use_recorded: bool,
    /// The slot's last entry in [`Candidates::defs`] (or `NONE`); each entry links the
    /// slot's previous one.
    pub def_head: u32,
    /// The slot's last entry in [`Candidates::uses`] (or `NONE`), linked the same way.
    pub use_head: u32,
}

/// The result of `scan`: candidate slots and their access blocks (reusable scratch).
#[derive(Default, Debug)]
pub(crate) struct Candidates {
    /// `slot_of[value]` = slot index of an alloca result, or `NONE`.
    pub slot_of: Vec<u32>,
    /// One past the largest alloca value index with a slot: `slot_of` is `NONE` from here
    /// on, so most operands (defined after the allocas) are told apart without a lookup.
    slot_end: usize,
    /// Every alloca of the function, in instruction order of a block walk.
    pub slots: Vec<Slot>,
    /// (block, previous entry of the same slot or `NONE`): the blocks with a definition of
    /// a slot (deduplicated), linked per slot from [`Slot::def_head`] as the scan records
    /// them, so phi placement needs no sort or linking pass.
    pub defs: Vec<(u32, u32)>,
    /// (block, previous entry of the same slot or `NONE`): the blocks where a slot is
    /// upward-exposed (live-in), linked per slot from [`Slot::use_head`].
    pub uses: Vec<(u32, u32)>,
    /// (slot, block) pairs: blocks holding an asm goto after which the slot is defined in
    /// the same block (the goto labels then need a phi: see `place_phis`).
    pub late_goto: Vec<(u32, u32)>,
    /// Phis that were in the function before (their operands are rewritten at the end).
    pub old_phis: Vec<Inst>,
    /// (slot, block, instruction) of every accepted load and store, in scan order: those
    /// of promoted slots are removed by renaming, and their table entries are reused for
    /// the phis.
    pub accesses: Vec<(u32, u32, Inst)>,
    /// `dyn_alloca`s in live blocks (never slots; counted for the statistics).
    pub dynamic: u64,
    /// Some live block holds an inline asm (renaming then walks every instruction in
    /// dominator-tree order: an asm's goto edges and outputs depend on where it sits
    /// among the accesses).
    pub has_asm: bool,
}

impl Candidates {
    /// Empties every table, keeping capacity.
    pub fn clear(&mut self) {
        for s in &self.slots {
            self.slot_of[s.value.index()] = NONE;
        }
        self.slots.clear();
        self.slot_end = 0;
        self.defs.clear();
        self.uses.clear();
        self.late_goto.clear();
        self.old_phis.clear();
        self.accesses.clear();
        self.dynamic = 0;
        self.has_asm = false;
    }

    /// Rejects the slot whose alloca value `op` is (if any) for `why`, unless it already
    /// has a reason.
    #[inline]
    fn reject_operand(&mut self, op: Operand, why: Reject) {
        if let Operand::Value(v) = op {
            if v.index() >= self.slot_end {
                return;
            }
            if let Some(&s) = self.slot_of.get(v.index()) {
                if s != NONE {
                    self.slots[s as usize].reject.get_or_insert(why);
                }
            }
        }
    }

    #[inline]
    fn slot(&self, op: Operand) -> Option<usize> {
        match op {
            Operand::Value(v) => match self.slot_of.get(v.index()) {
                Some(&s) if s != NONE => Some(s as usize),
                _ => None,
            },
            Operand::Const(_) => None,
        }
    }

    /// A load (`def` false) or store (`def` true) of type `ty` through slot `s`'s pointer,
    /// instruction `i` in block `b`: volatile and type-punned accesses reject the slot;
    /// otherwise the access is recorded, unless the slot is rejected already (a reason
    /// stays, so nothing reads a rejected slot's accesses: most of them are aggregates
    /// too large to promote). Returns true if it was recorded.
    #[inline(always)]
    fn memory_access(
        &mut self,
        s: usize,
        ty: Type,
        volatile: bool,
        b: u32,
        i: Inst,
        def: bool,
    ) -> bool {
        if self.slots[s].reject.is_some() {
            return false;
        }
        if volatile {
            self.slots[s].reject.get_or_insert(Reject::VolatileAccess);
            false
        } else if ty != self.slots[s].ty {
            self.slots[s].reject.get_or_insert(Reject::TypePunned);
            false
        } else {
            self.access(s, b, def);
            self.accesses.push((s as u32, b, i));
            true
        }
    }

    /// Records an access of slot `s` in block `b`: `def` for a definition.
    #[inline]
    fn access(&mut self, s: usize, b: u32, def: bool) {
        let slot = &mut self.slots[s];
        slot.accessed = true;
        if slot.last_block != b {
            slot.last_block = b;
            slot.killed = false;
            slot.def_recorded = false;
            slot.use_recorded = false;
        }
        if def {
            slot.has_def = true;
            slot.killed = true;
            if !slot.def_recorded {
                slot.def_recorded = true;
                let prev = std::mem::replace(&mut slot.def_head, self.defs.len() as u32);
                self.defs.push((b, prev));
            }
        } else if !slot.killed && !slot.use_recorded {
            slot.use_recorded = true;
            let prev = std::mem::replace(&mut slot.use_head, self.uses.len() as u32);
            self.uses.push((b, prev));
        }
    }
}

/// Scans `f` (see the module doc). Instructions of unreachable blocks count too (for
/// escapes and rejections).
///
/// One walk in block order when every alloca is in the entry block (clang's `-O0` output,
/// whose inliner hoists static allocas there): each alloca then comes before all its uses
/// (verified SSA: the entry dominates every block, and a use in the entry follows its
/// definition), so slots can be created as the walk meets them. Otherwise (an alloca in
/// another block, whose uses may sit in blocks before it) a first walk collects the allocas
/// and a second the uses. Both number the slots and record the accesses in the same order.
pub(crate) fn scan(f: &BodyRef<'_>, params: ParamAllocas, c: &mut Candidates) {
    c.clear();
    if c.slot_of.len() < f.values.len() {
        c.slot_of.resize(f.values.len(), NONE);
    }
    if !scan_uses(f, Some(params), c) {
        c.clear();
        collect_allocas(f, params, c);
        if c.slots.is_empty() {
            for bi in 0..f.num_blocks() {
                if f.block_dead[bi] {
                    continue;
                }
                for &i in &f.block_insts[bi] {
                    if matches!(f.kinds[i.index()], InstKind::Phi { .. }) {
                        c.old_phis.push(i);
                    }
                }
            }
            return;
        }
        scan_uses(f, None, c);
    }
    if !c.late_goto.is_empty() {
        c.late_goto.sort_unstable();
        c.late_goto.dedup();
    }
    // Parameter allocas read without any IR-visible definition keep their slot (one never
    // accessed, such as a forwarded address slot, goes).
    for s in c.slots.iter_mut() {
        if s.is_param && !s.has_def && s.accessed && s.reject.is_none() {
            s.reject = Some(Reject::ParamWithoutStore);
        }
    }
}

/// Adds a slot for alloca `i` (of `ty`, `size` bytes) in block `bi`; `entry_allocas` counts
/// the entry block's allocas so far (the first N, N = `nparams`, are parameter allocas).
/// The slot starts killed in `bi` (the alloca yields a fresh slot), as the walk over its
/// uses would record on meeting the alloca.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn add_slot(
    f: &BodyRef<'_>,
    (params, nparams): (ParamAllocas, usize),
    c: &mut Candidates,
    bi: usize,
    i: Inst,
    (ty, size, volatile): (Type, u32, bool),
    entry_allocas: &mut usize,
) {
    let Some(&value) = f.results[i.index()].first() else {
        return;
    };
    let is_param = bi == 0 && *entry_allocas < nparams;
    if bi == 0 {
        *entry_allocas += 1;
    }
    let reject = if !promotable_size(ty, size as u64) || !ty.is_value() {
        Some(Reject::Size)
    } else if volatile {
        Some(Reject::Volatile)
    } else if is_param && params == ParamAllocas::Skip {
        Some(Reject::ParamSkipped)
    } else {
        None
    };
    c.slot_of[value.index()] = c.slots.len() as u32;
    c.slot_end = c.slot_end.max(value.index() + 1);
    c.slots.push(Slot {
        value,
        block: Block::new(bi),
        ty,
        zero: Const(0),
        reject,
        is_param,
        has_def: false,
        accessed: false,
        last_block: bi as u32,
        killed: true,
        def_recorded: false,
        use_recorded: false,
        def_head: NONE,
        use_head: NONE,
    });
}

/// The first walk of the two-walk scan: every alloca of a live block becomes a slot.
fn collect_allocas(f: &BodyRef<'_>, params: ParamAllocas, c: &mut Candidates) {
    let mut entry_allocas = 0usize;
    let policy = (params, f.info.signature.params.len());
    for bi in 0..f.num_blocks() {
        if f.block_dead[bi] {
            continue;
        }
        for &i in &f.block_insts[bi] {
            match f.kinds[i.index()] {
                InstKind::DynAlloca { .. } => c.dynamic += 1,
                InstKind::Alloca {
                    ty, size, volatile, ..
                } => add_slot(
                    f,
                    policy,
                    c,
                    bi,
                    i,
                    (ty, size, volatile),
                    &mut entry_allocas,
                ),
                _ => {}
            }
        }
    }
}

/// The walk over every use of an alloca value. With `single` (the parameter allocas'
/// policy) it also creates the slots as it meets the allocas and counts the `dyn_alloca`s
/// (the one-walk scan), and returns false, leaving `c` partly filled, at the first alloca
/// outside the entry block; without, the slots exist already and it returns true.
fn scan_uses(f: &BodyRef<'_>, single: Option<ParamAllocas>, c: &mut Candidates) -> bool {
    let (kinds, results) = (f.kinds, f.results);
    let nblocks = f.num_blocks();
    let mut entry_allocas = 0usize;
    let nparams = f.info.signature.params.len();
    for bi in 0..nblocks {
        if f.block_dead[bi] {
            continue;
        }
        let b = bi as u32;
        let mut goto_seen = false;
        for &i in &f.block_insts[bi] {
            match &kinds[i.index()] {
                InstKind::Binary { lhs, rhs, .. }
                | InstKind::Icmp { lhs, rhs, .. }
                | InstKind::Fcmp { lhs, rhs, .. } => {
                    c.reject_operand(*lhs, Reject::EscapeOther);
                    c.reject_operand(*rhs, Reject::EscapeOther);
                }
                InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => {
                    c.reject_operand(*arg, Reject::EscapeOther);
                }
                InstKind::Alloca {
                    ty, size, volatile, ..
                } => {
                    if let Some(params) = single {
                        if bi != 0 {
                            return false;
                        }
                        // The new slot starts killed here (see `add_slot`).
                        add_slot(
                            f,
                            (params, nparams),
                            c,
                            bi,
                            i,
                            (*ty, *size, *volatile),
                            &mut entry_allocas,
                        );
                    } else if let Some(s) =
                        results[i.index()].first().and_then(|&v| c.slot(v.into()))
                    {
                        // The alloca kills: a fresh slot each time it executes.
                        let slot = &mut c.slots[s];
                        slot.last_block = b;
                        slot.killed = true;
                        slot.def_recorded = false;
                        slot.use_recorded = false;
                    }
                }
                InstKind::Load {
                    ty, ptr, volatile, ..
                } => {
                    if let Some(s) = c.slot(*ptr) {
                        c.memory_access(s, *ty, *volatile, b, i, false);
                    }
                }
                InstKind::Store {
                    ty,
                    value,
                    ptr,
                    volatile,
                } => {
                    c.reject_operand(*value, Reject::EscapeStoredValue);
                    if let Some(s) = c.slot(*ptr) {
                        if c.memory_access(s, *ty, *volatile, b, i, true) && goto_seen {
                            c.late_goto.push((s as u32, b));
                        }
                    }
                }
                InstKind::InlineAsm(asm) => {
                    c.has_asm = true;
                    for input in &asm.inputs {
                        c.reject_operand(input.value, Reject::EscapeAsmInput);
                    }
                    let has_goto = !asm.goto_labels.is_empty();
                    // Outputs of an asm goto are defined after its goto edges leave.
                    goto_seen |= has_goto;
                    for out in &asm.outputs {
                        if let AsmOutputPlace::Pointer(p) = out.place {
                            let Some(s) = c.slot(p) else { continue };
                            if crate::ir::InlineAsm::is_memory_constraint(&out.constraint) {
                                c.slots[s].reject.get_or_insert(Reject::AsmMemoryOutput);
                            } else if out.constraint.contains('+') {
                                c.slots[s].reject.get_or_insert(Reject::AsmReadWrite);
                            } else if out.ty != c.slots[s].ty {
                                c.slots[s].reject.get_or_insert(Reject::TypePunned);
                            } else {
                                c.access(s, b, true);
                                if goto_seen {
                                    c.late_goto.push((s as u32, b));
                                }
                            }
                        }
                    }
                }
                InstKind::Gep { base, indices, .. } => {
                    c.reject_operand(*base, Reject::EscapeGep);
                    for &(idx, _) in indices {
                        c.reject_operand(idx, Reject::EscapeOther);
                    }
                }
                InstKind::Call { callee, args, .. } => {
                    if let crate::ir::Callee::Indirect(p) = callee {
                        c.reject_operand(*p, Reject::EscapeCall);
                    }
                    for &a in args {
                        c.reject_operand(a, Reject::EscapeCall);
                    }
                }
                kind => {
                    match kind {
                        InstKind::Phi { .. } => c.old_phis.push(i),
                        InstKind::DynAlloca { .. } if single.is_some() => c.dynamic += 1,
                        _ => {}
                    }
                    kind.for_each_operand(|op| c.reject_operand(op, Reject::EscapeOther));
                }
            }
        }
        match &f.terminators[bi] {
            Terminator::Jump(t) if t.args.is_empty() => {}
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } if then_dest.args.is_empty() && else_dest.args.is_empty() => {
                c.reject_operand(*cond, Reject::EscapeTerminator)
            }
            Terminator::Ret(Some(v)) => c.reject_operand(*v, Reject::EscapeTerminator),
            Terminator::Ret(None) | Terminator::Unreachable => {}
            t => t.for_each_operand(|op| c.reject_operand(op, Reject::EscapeTerminator)),
        }
    }
    true
}

/// The zero constant of `ty` (002: uninitialised reads), narrowed constants (002: a wider
/// integer constant stored into a narrower slot is masked to the slot's width).
#[inline]
pub(crate) fn narrow(consts: &mut ConstPool, op: Operand, ty: Type) -> Operand {
    if let Operand::Const(k) = op {
        let c = consts.get(k);
        if c.ty != ty && c.ty.is_int() && ty.is_int() {
            if let crate::ir::ConstKind::Int(bits) = c.kind {
                return Operand::Const(consts.intern(ConstData::int(ty, bits)));
            }
        }
    }
    op
}

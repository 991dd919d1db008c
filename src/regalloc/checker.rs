//! The symbolic checker: does an allocation compute what the virtual-register program
//! computes? (Ion design, appendix "Fuzzing", `ion_checker`; the symbolic checker of
//! regalloc.rs described there.)
//!
//! What: [`check`] judges an [`AllocOutput`] for a [`MachineRead`] function in a
//! [`MachineEnv`]. First the structure: one allocation per operand; edits sorted by point;
//! no edit after a block's terminator; no move from a stack location to a stack location
//! (registers the environment declares as fixed stack slots count as stack); every
//! allocation of the vreg's class. Then each operand's constraint (any, reg, stack, fixed,
//! reuse: the reused use's location, limit). Then the values, by abstract interpretation:
//! the state maps each location (register or slot) to the set of vregs whose current value
//! it holds. A move copies the source's set to the destination; an instruction reads its
//! early uses, writes its early defs, reads its late uses, empties its clobbers, writes its
//! late defs (a def of `v` makes its location `{v}` and removes `v` from every other
//! location: older copies are stale); a branch's edge to a successor renames through the
//! block parameters in parallel (every location holding argument `a_j` also holds parameter
//! `p_j`; old values of the parameters are dropped). A rematerialization of `v` (an edit
//! recomputing a value with its rematerialization hook, which it must have) reads a virtual
//! location of its own that a def of `v` sets to `{v}` and that edges rename like any other:
//! its destination holds `v` and every parameter `v` flowed into on the way; the edit is
//! malformed if `v` has no hook. States meet at block entries by
//! intersection, a missing location meaning the empty set. Blocks start as "not reached"
//! (top) and are only processed once a predecessor's state has reached them, so the result
//! does not depend on block layout. A use is correct iff its location's set at its point
//! contains its vreg.
//!
//! Errors name the instruction, the operand and the location ([`CheckError`]); the first
//! error in block order is returned. Never panics on malformed outputs.
//!
//! Complexity: O(iterations x (instructions + edits) x locations) with hash-map states; the
//! iteration count is bounded by the lattice height (sets only shrink).

use super::location::{Allocation, PReg};
use super::output::AllocOutput;
use super::point::ProgPoint;
use crate::machine::MInst;
use crate::machine::{
    MBlock, MachineEnv, MachineRead, Operand, OperandConstraint, OperandKind, OperandPos, PRegSet,
};
use smallvec::SmallVec;
use std::collections::HashMap;

/// What the checker found wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The output does not have one allocation per operand of every instruction.
    #[error("instruction {inst}: {got} allocations for {want} operands")]
    AllocCount {
        /// The instruction.
        inst: u32,
        /// Allocations given.
        got: usize,
        /// Operands.
        want: usize,
    },
    /// Edits are not sorted by point.
    #[error("edit {index} at {at} comes after a later point")]
    Unsorted {
        /// Position in the edit list.
        index: usize,
        /// Its point.
        at: ProgPoint,
    },
    /// An edit at or after a terminator's "after" point.
    #[error("edit {index} at {at} is after the terminator of block {block}")]
    EditAfterTerminator {
        /// Position in the edit list.
        index: usize,
        /// Its point.
        at: ProgPoint,
        /// The block.
        block: MBlock,
    },
    /// A move from a stack location to a stack location.
    #[error("edit {index} at {at}: stack-to-stack move {from} -> {to}")]
    StackToStack {
        /// Position in the edit list.
        index: usize,
        /// Its point.
        at: ProgPoint,
        /// Source.
        from: Allocation,
        /// Destination.
        to: Allocation,
    },
    /// An edit names `none`, or a point beyond the function.
    #[error("edit {index} at {at} is malformed")]
    BadEdit {
        /// Position in the edit list.
        index: usize,
        /// Its point.
        at: ProgPoint,
    },
    /// A rematerialization of a value without a rematerialization hook.
    #[error("edit {index} at {at} recomputes {vreg}, which has no remat hook")]
    NotRematerializable {
        /// Position in the edit list.
        index: usize,
        /// Its point.
        at: ProgPoint,
        /// The value.
        vreg: crate::machine::VReg,
    },
    /// An operand's allocation breaks its constraint (or its class).
    #[error(
        "instruction {inst}, operand {operand} ({op}): allocation {alloc} breaks the constraint"
    )]
    Constraint {
        /// The instruction.
        inst: u32,
        /// The operand index.
        operand: usize,
        /// The operand.
        op: Operand,
        /// Its allocation.
        alloc: Allocation,
    },
    /// A use's location does not hold its vreg's value.
    #[error("instruction {inst}, operand {operand} ({op}): {alloc} does not hold the value (holds {holds:?})")]
    WrongValue {
        /// The instruction.
        inst: u32,
        /// The operand index.
        operand: usize,
        /// The operand.
        op: Operand,
        /// Its allocation.
        alloc: Allocation,
        /// Vreg indices the location holds there.
        holds: Vec<u32>,
    },
}

impl CheckError {
    /// The instruction the finding is at, if it names one (an edit's point names its
    /// instruction).
    pub fn inst(&self) -> Option<u32> {
        match self {
            CheckError::AllocCount { inst, .. }
            | CheckError::Constraint { inst, .. }
            | CheckError::WrongValue { inst, .. } => Some(*inst),
            CheckError::Unsorted { at, .. }
            | CheckError::EditAfterTerminator { at, .. }
            | CheckError::StackToStack { at, .. }
            | CheckError::BadEdit { at, .. }
            | CheckError::NotRematerializable { at, .. } => Some(at.inst().0),
        }
    }
}

type Values = SmallVec<[u32; 2]>;

/// The virtual location a rematerialization of vreg `v` reads (a slot number no output uses:
/// above every real and pseudo slot of the allocators).
fn remat_home(v: u32) -> Allocation {
    Allocation::Stack(super::location::SpillSlot(u32::MAX - 512 - v.min(1 << 30)))
}

/// The abstract state: location -> vregs it holds (sorted). Missing = empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    map: HashMap<Allocation, Values>,
}

impl State {
    fn holds(&self, a: Allocation, v: u32) -> bool {
        self.map.get(&a).is_some_and(|s| s.contains(&v))
    }
    fn def(&mut self, a: Allocation, v: u32) {
        for s in self.map.values_mut() {
            s.retain(|x| *x != v);
        }
        self.map.insert(a, smallvec::smallvec![v]);
    }
    fn mov(&mut self, from: Allocation, to: Allocation) {
        let s = self.map.get(&from).cloned().unwrap_or_default();
        self.map.insert(to, s);
    }
    /// Applies edit `e`: a move, or a rematerialization (from the value's virtual location,
    /// which holds at least the value itself).
    fn edit(&mut self, e: super::output::Edit) {
        match e.remat {
            Some(v) => {
                let home = remat_home(v.index() as u32);
                let mut s = self.map.get(&home).cloned().unwrap_or_default();
                if !s.contains(&(v.index() as u32)) {
                    s.push(v.index() as u32);
                    s.sort_unstable();
                }
                self.map.insert(e.to, s);
            }
            None => self.mov(e.from, e.to),
        }
    }
    /// Intersects `other` into `self`; whether `self` changed.
    fn meet(&mut self, other: &State) -> bool {
        let mut changed = false;
        self.map.retain(|a, s| {
            let before = s.len();
            match other.map.get(a) {
                Some(o) => s.retain(|v| o.contains(v)),
                None => s.clear(),
            }
            changed |= s.len() != before;
            !s.is_empty()
        });
        changed
    }
}

/// Registers that name stack locations, and the environment (for messages and limits).
struct Ctx<'a, F: ?Sized> {
    f: &'a F,
    out: &'a AllocOutput,
    fixed_stack: PRegSet,
}

impl<F: MachineRead + ?Sized> Ctx<'_, F> {
    fn is_stack(&self, a: Allocation) -> bool {
        match a {
            Allocation::Stack(_) => true,
            Allocation::Reg(r) => self.fixed_stack.contains(r),
            Allocation::None => false,
        }
    }

    fn constraint_ok(&self, inst: u32, op: &Operand, a: Allocation) -> bool {
        let allocs = self.out.inst_allocs(inst);
        let reg_of_class = |r: PReg| r.class() == op.vreg.class() && !self.fixed_stack.contains(r);
        if let Allocation::Reg(r) = a {
            if r.class() != op.vreg.class() {
                return false;
            }
        }
        match op.constraint {
            OperandConstraint::Any => a != Allocation::None,
            OperandConstraint::Reg => a.as_reg().is_some_and(reg_of_class),
            OperandConstraint::Stack => self.is_stack(a),
            OperandConstraint::FixedReg(r) => a == Allocation::Reg(r),
            OperandConstraint::Reuse(u) => {
                allocs.get(u as usize).is_some_and(|&b| b == a) && a != Allocation::None
            }
            OperandConstraint::Limit(n) => {
                a.as_reg().is_some_and(|r| reg_of_class(r) && r.index() < n)
            }
        }
    }

    /// Runs block `b` from `state`; with `check`, returns the first error. Edits are the
    /// slice for the block (already validated).
    fn run_block(
        &self,
        b: MBlock,
        state: &mut State,
        edits: &[(ProgPoint, super::output::Edit)],
        check: bool,
    ) -> Result<(), CheckError> {
        let mut e = 0;
        for i in self.f.block_insts(b) {
            while e < edits.len() && edits[e].0 <= ProgPoint::before(i) {
                state.edit(edits[e].1);
                e += 1;
            }
            let ops = self.f.inst_operands(i);
            let allocs = self.out.inst_allocs(i.0);
            for phase in 0..4 {
                for (k, op) in ops.iter().enumerate() {
                    let a = allocs[k];
                    let is_value = op.vreg.is_value();
                    let v = op.vreg.index() as u32;
                    match (phase, op.kind, op.pos) {
                        (0, OperandKind::Use, OperandPos::Early)
                        | (2, OperandKind::Use, OperandPos::Late)
                            if check && is_value && !state.holds(a, v) =>
                        {
                            return Err(CheckError::WrongValue {
                                inst: i.0,
                                operand: k,
                                op: *op,
                                alloc: a,
                                holds: state.map.get(&a).map(|s| s.to_vec()).unwrap_or_default(),
                            });
                        }
                        (1, OperandKind::Def, OperandPos::Early)
                        | (3, OperandKind::Def, OperandPos::Late) => {
                            if is_value {
                                state.def(a, v);
                                if self.f.remat(op.vreg).is_some() {
                                    state.map.insert(remat_home(v), smallvec::smallvec![v]);
                                }
                            } else {
                                state.map.remove(&a);
                            }
                        }
                        _ => {}
                    }
                }
                if phase == 2 {
                    for r in self.f.inst_clobbers(i).iter() {
                        state.map.remove(&Allocation::Reg(r));
                    }
                }
            }
            while e < edits.len() && edits[e].0 <= ProgPoint::after(i) {
                state.edit(edits[e].1);
                e += 1;
            }
        }
        Ok(())
    }
}

/// The state on the edge to successor number `s` of `b`: parameters renamed in parallel.
fn edge_state<F: MachineRead + ?Sized>(f: &F, b: MBlock, s: usize, state: &State) -> State {
    let succ = f.block_succs(b)[s];
    let args = f.branch_args(b, s);
    let params = f.block_params(succ);
    if params.is_empty() {
        return state.clone();
    }
    let mut out = State::default();
    for (&a, set) in &state.map {
        let mut n: Values = set
            .iter()
            .copied()
            .filter(|v| !params.iter().any(|p| p.index() as u32 == *v))
            .collect();
        for (arg, p) in args.iter().zip(params) {
            if set.contains(&(arg.index() as u32)) {
                n.push(p.index() as u32);
            }
        }
        n.sort_unstable();
        n.dedup();
        if !n.is_empty() {
            out.map.insert(a, n);
        }
    }
    out
}

/// Judges `out` for `f` (see the module doc). `fixed_stack` lists registers that name stack
/// locations (empty for real targets). The environment is taken for the shape of
/// regalloc2's checker; no rule above depends on it (a fixed register outside the
/// allocatable set is legal).
pub fn check<F: MachineRead + ?Sized>(
    f: &F,
    _env: &MachineEnv,
    fixed_stack: PRegSet,
    out: &AllocOutput,
) -> Result<(), CheckError> {
    let ctx = Ctx {
        f,
        out,
        fixed_stack,
    };
    let ni = f.num_insts();
    // Structure: allocation counts.
    if out.inst_alloc_offsets.len() != ni {
        return Err(CheckError::AllocCount {
            inst: out.inst_alloc_offsets.len().min(ni) as u32,
            got: out.inst_alloc_offsets.len(),
            want: ni,
        });
    }
    for i in 0..ni as u32 {
        let (got, want) = (out.inst_allocs(i).len(), f.inst_operands(MInst(i)).len());
        let start = out.inst_alloc_offsets[i as usize] as usize;
        let end = out
            .inst_alloc_offsets
            .get(i as usize + 1)
            .map_or(out.allocs.len(), |&e| e as usize);
        if got != want || end < start || end > out.allocs.len() {
            return Err(CheckError::AllocCount { inst: i, got, want });
        }
    }
    // Structure: edits.
    let mut block_of_inst = vec![MBlock(0); ni];
    for b in f.blocks() {
        for i in f.block_insts(b) {
            block_of_inst[i.index()] = b;
        }
    }
    for (index, &(at, e)) in out.edits.iter().enumerate() {
        if index > 0 && out.edits[index - 1].0 > at {
            return Err(CheckError::Unsorted { index, at });
        }
        let from_ok = match e.remat {
            Some(_) => e.from == Allocation::None,
            None => e.from != Allocation::None,
        };
        if at.inst().index() >= ni || !from_ok || e.to == Allocation::None {
            return Err(CheckError::BadEdit { index, at });
        }
        if let Some(vreg) = e.remat {
            if f.remat(vreg).is_none() {
                return Err(CheckError::NotRematerializable { index, at, vreg });
            }
        }
        let i = at.inst();
        if at.is_after() && (f.is_branch(i) || f.is_ret(i)) {
            return Err(CheckError::EditAfterTerminator {
                index,
                at,
                block: block_of_inst[i.index()],
            });
        }
        if ctx.is_stack(e.from) && ctx.is_stack(e.to) {
            return Err(CheckError::StackToStack {
                index,
                at,
                from: e.from,
                to: e.to,
            });
        }
    }
    // Constraints.
    for i in 0..ni as u32 {
        for (k, op) in f.inst_operands(MInst(i)).iter().enumerate() {
            let a = out.inst_allocs(i)[k];
            if !ctx.constraint_ok(i, op, a) {
                return Err(CheckError::Constraint {
                    inst: i,
                    operand: k,
                    op: *op,
                    alloc: a,
                });
            }
        }
    }
    // Values: fixpoint over blocks, then one checking pass.
    let nb = f.num_blocks();
    let edits_of = |b: MBlock| {
        let r = f.block_insts(b);
        let lo = out
            .edits
            .partition_point(|e| e.0 < ProgPoint::before(r.start));
        let hi = out
            .edits
            .partition_point(|e| e.0 < ProgPoint::before(r.end));
        &out.edits[lo..hi]
    };
    let mut block_in: Vec<Option<State>> = vec![None; nb];
    block_in[f.entry_block().index()] = Some(State::default());
    let order: Vec<MBlock> = {
        let mut po = super::liveness::postorder(f);
        po.reverse();
        po
    };
    let mut rpo_index = vec![0usize; nb];
    for (k, &b) in order.iter().enumerate() {
        rpo_index[b.index()] = k;
    }
    let mut queued = vec![false; nb];
    let mut work = std::collections::BTreeSet::new();
    work.insert((0usize, f.entry_block()));
    queued[f.entry_block().index()] = true;
    while let Some((_, b)) = work.pop_first() {
        queued[b.index()] = false;
        let Some(mut state) = block_in[b.index()].clone() else {
            continue;
        };
        ctx.run_block(b, &mut state, edits_of(b), false)?;
        for s in 0..f.block_succs(b).len() {
            let succ = f.block_succs(b)[s];
            let es = edge_state(f, b, s, &state);
            let changed = match &mut block_in[succ.index()] {
                slot @ None => {
                    *slot = Some(es);
                    true
                }
                Some(cur) => cur.meet(&es),
            };
            if changed && !queued[succ.index()] {
                queued[succ.index()] = true;
                work.insert((rpo_index[succ.index()], succ));
            }
        }
    }
    for b in crate::machine::block_range(nb) {
        if let Some(mut state) = block_in[b.index()].clone() {
            ctx.run_block(b, &mut state, edits_of(b), true)?;
        }
    }
    Ok(())
}

//! The machine form in the World: machine instructions and machine blocks as entities whose
//! components are the columns of the function, and the views through which systems read
//! them as slices.
//!
//! Same pattern as the IR ([`crate::ir::body`], [`crate::ir::access`],
//! [`crate::engine::world`]): one table per entity kind, row `i` = dense index `i`; every
//! component is `#[repr(transparent)]` over its row type, so a contiguous query's column
//! is reinterpreted as a plain slice of rows; rows are pooled between functions (a function
//! overwrites rows in place, only rows beyond the largest function so far are spawned, in one
//! `spawn_batch`), so row order never changes.
//!
//! | kind | component | row type | bytes |
//! |---|---|---|---|
//! | machine instruction | [`MInstOp`] | [`MachineOp`] (mnemonic, suffix, immediate) | 16 |
//! | machine instruction | [`MInstOperands`] | [`Operands`] (inline up to 4) | 40 |
//! | machine instruction | [`MInstClobbers`] | [`PRegSet`] | 24 |
//! | machine block | [`MBlockInsts`] | `Range<u32>` (instruction range) | 8 |
//! | machine block | [`MBlockParams`] | `SmallVec<[VReg; 2]>` | 16 |
//! | machine block | [`MBlockSuccs`] | `SmallVec<[u32; 2]>` | 16 |
//! | machine block | [`MBlockPreds`] | `SmallVec<[u32; 2]>` | 16 |
//! | machine block | [`MBlockArgs`] | [`BranchArgs`] | 48 |
//!
//! Per-function facts that are not per entity ([`MachineInfo`]: name, target, vreg count,
//! frame slots, rows in use) are a resource. [`MachineView`] is the read-only system
//! parameter; [`MachineView::body`] returns a [`MachineRef`] (slices, O(1)), which
//! implements [`MachineRead`]. The Lower stage builds a [`MachineFunction`] and
//! [`MachineLoader::load`] moves it into the rows (an exclusive system, since it may spawn);
//! [`MachineLoader::take`] moves it back out.
//!
//! Complexity: load and take O(blocks + instructions); [`MachineView::body`] O(1).

use super::function::{BranchArgs, MachineFunction, MachineOp, Operands};
use super::{InstRange, MBlock, MInst, MachineRead, Operand, PRegSet, VReg};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use smallvec::SmallVec;

/// A machine instruction's operation (column).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct MInstOp(pub MachineOp);

/// A machine instruction's operands (column).
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct MInstOperands(pub Operands);

/// The registers a machine instruction clobbers (column).
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct MInstClobbers(pub PRegSet);

/// A machine block's instruction range (column).
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct MBlockInsts(pub InstRange);

/// A machine block's parameters (column).
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct MBlockParams(pub SmallVec<[VReg; 2]>);

/// A machine block's successors (column).
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct MBlockSuccs(pub SmallVec<[MBlock; 2]>);

/// A machine block's predecessors, one per edge (column).
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct MBlockPreds(pub SmallVec<[MBlock; 2]>);

/// The arguments a machine block's terminator passes to its successors (column).
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct MBlockArgs(pub BranchArgs);

/// Per-function facts of the machine form in the World.
#[derive(Resource, Clone, Debug, Default)]
pub struct MachineInfo {
    /// True while the rows hold a lowered function (set by the loader, cleared by take and
    /// at the start of lowering).
    pub present: bool,
    /// Function name.
    pub name: String,
    /// Target name.
    pub target: String,
    /// Number of vregs.
    pub num_vregs: usize,
    /// Frame slots `(size, align)`.
    pub frame_slots: Vec<(u32, u32)>,
    /// The per-value rematerialization hook, `(vreg, op)` sorted by vreg index (see
    /// [`MachineRead::remat`]; vregs are no entities, so this column lives here).
    pub remat: Vec<(VReg, MachineOp)>,
    /// Spill slots per class when the producer set them (see
    /// `MachineFunction::spill_slot_sizes`).
    pub spill_slot_sizes: Option<[usize; 3]>,
    /// Instruction rows in use.
    pub insts: usize,
    /// Block rows in use.
    pub blocks: usize,
}

/// Entities of the pooled machine rows, in row order.
#[derive(Resource, Default, Debug)]
pub struct MachineEntities {
    /// `insts[MInst]`.
    pub insts: Vec<Entity>,
    /// `blocks[MBlock]`.
    pub blocks: Vec<Entity>,
}

type InstCols = (
    &'static mut MInstOp,
    &'static mut MInstOperands,
    &'static mut MInstClobbers,
);
type BlockCols = (
    &'static mut MBlockInsts,
    &'static mut MBlockParams,
    &'static mut MBlockSuccs,
    &'static mut MBlockPreds,
    &'static mut MBlockArgs,
);

/// Reinterprets a column of `#[repr(transparent)]` components as its rows.
///
/// # Safety
/// `C` must be `#[repr(transparent)]` over `T` (every component of this module is).
unsafe fn rows<C, T>(column: &[C]) -> &[T] {
    debug_assert_eq!(std::mem::size_of::<C>(), std::mem::size_of::<T>());
    // SAFETY: same layout (repr(transparent)), same length, the borrow is carried over.
    unsafe { std::slice::from_raw_parts(column.as_ptr().cast::<T>(), column.len()) }
}

/// Moves machine functions into the World's machine rows and back out (pooled; see the
/// module doc).
#[derive(Resource)]
pub struct MachineLoader {
    insts: QueryState<InstCols>,
    blocks: QueryState<BlockCols>,
}

impl MachineLoader {
    /// A loader for `world`.
    pub fn new(world: &mut World) -> Self {
        MachineLoader {
            insts: world.query(),
            blocks: world.query(),
        }
    }

    /// Puts `f` into the machine rows of `world`.
    pub fn load(&mut self, world: &mut World, f: MachineFunction) {
        let MachineFunction {
            name,
            target,
            ops,
            operands,
            clobbers,
            insts,
            params,
            succs,
            preds,
            branch_args,
            num_vregs,
            frame_slots,
            remat,
            spill_slot_sizes,
        } = f;
        let (ni, nb) = (ops.len(), insts.len());
        let mut map = world
            .remove_resource::<MachineEntities>()
            .unwrap_or_default();
        let mut inst_rows = ops.into_iter().zip(operands).zip(clobbers);
        let mut block_rows = insts
            .into_iter()
            .zip(params)
            .zip(succs)
            .zip(preds)
            .zip(branch_args);
        {
            let reuse = map.insts.len().min(ni);
            let mut it = self.insts.iter_mut(world);
            // Rows come out of a one-table query in row order (dense index order).
            for ((op, operands), clobbers) in inst_rows.by_ref().take(reuse) {
                let (mut o, mut a, mut c) = it.next().expect("pooled machine instruction row");
                o.bypass_change_detection().0 = op;
                a.bypass_change_detection().0 = operands;
                c.bypass_change_detection().0 = clobbers;
            }
        }
        {
            let reuse = map.blocks.len().min(nb);
            let mut it = self.blocks.iter_mut(world);
            for ((((r, p), s), pr), args) in block_rows.by_ref().take(reuse) {
                let (mut ri, mut pi, mut si, mut pri, mut ai) =
                    it.next().expect("pooled machine block row");
                ri.bypass_change_detection().0 = r;
                pi.bypass_change_detection().0 = p;
                si.bypass_change_detection().0 = s;
                pri.bypass_change_detection().0 = pr;
                ai.bypass_change_detection().0 = args;
            }
        }
        map.insts.extend(
            world.spawn_batch(inst_rows.map(|((op, operands), clobbers)| {
                (
                    MInstOp(op),
                    MInstOperands(operands),
                    MInstClobbers(clobbers),
                )
            })),
        );
        map.blocks.extend(
            world.spawn_batch(block_rows.map(|((((r, p), s), pr), args)| {
                (
                    MBlockInsts(r),
                    MBlockParams(p),
                    MBlockSuccs(s),
                    MBlockPreds(pr),
                    MBlockArgs(args),
                )
            })),
        );
        world.insert_resource(map);
        *world.resource_mut::<MachineInfo>() = MachineInfo {
            present: true,
            name,
            target,
            num_vregs,
            frame_slots,
            remat,
            spill_slot_sizes,
            insts: ni,
            blocks: nb,
        };
    }

    /// Moves the machine function out of `world` (None if none is present); the rows stay
    /// pooled.
    pub fn take(&mut self, world: &mut World) -> Option<MachineFunction> {
        let info = std::mem::take(&mut *world.resource_mut::<MachineInfo>());
        if !info.present {
            return None;
        }
        let mut f = MachineFunction {
            name: info.name,
            target: info.target,
            num_vregs: info.num_vregs,
            frame_slots: info.frame_slots,
            remat: info.remat,
            spill_slot_sizes: info.spill_slot_sizes,
            ..Default::default()
        };
        for (o, a, c) in self.insts.iter_mut(world).take(info.insts) {
            f.ops.push(o.0);
            f.operands.push(std::mem::take(&mut a.into_inner().0));
            f.clobbers.push(c.0);
        }
        for (r, p, s, pr, args) in self.blocks.iter_mut(world).take(info.blocks) {
            f.insts.push(r.0);
            f.params.push(std::mem::take(&mut p.into_inner().0));
            f.succs.push(std::mem::take(&mut s.into_inner().0));
            f.preds.push(std::mem::take(&mut pr.into_inner().0));
            f.branch_args.push(std::mem::take(&mut args.into_inner().0));
        }
        Some(f)
    }
}

/// Inserts the machine-form resources into `world` (once per World).
pub fn init_resources(world: &mut World) {
    world.init_resource::<MachineInfo>();
    world.init_resource::<MachineEntities>();
    let loader = MachineLoader::new(world);
    world.insert_resource(loader);
}

/// Moves the lowered function out of the World, if the Lower stage left one there.
pub fn take_machine(world: &mut World) -> Option<MachineFunction> {
    world.resource_scope(|world, mut loader: Mut<MachineLoader>| loader.take(world))
}

/// Read-only access to the machine function in the World.
#[derive(SystemParam)]
pub struct MachineView<'w, 's> {
    insts: Query<
        'w,
        's,
        (
            &'static MInstOp,
            &'static MInstOperands,
            &'static MInstClobbers,
        ),
    >,
    blocks: Query<
        'w,
        's,
        (
            &'static MBlockInsts,
            &'static MBlockParams,
            &'static MBlockSuccs,
            &'static MBlockPreds,
            &'static MBlockArgs,
        ),
    >,
    info: Res<'w, MachineInfo>,
}

impl MachineView<'_, '_> {
    /// The machine function's columns as slices (None when no function is lowered).
    pub fn body(&self) -> Option<MachineRef<'_>> {
        if !self.info.present {
            return None;
        }
        let mut it = self
            .insts
            .contiguous_iter()
            .expect("machine instruction columns are table components");
        let (ops, operands, clobbers) = it.next().unwrap_or((&[], &[], &[]));
        debug_assert!(it.next().is_none(), "machine instructions span two tables");
        let mut it = self
            .blocks
            .contiguous_iter()
            .expect("machine block columns are table components");
        let (insts, params, succs, preds, args) = it.next().unwrap_or((&[], &[], &[], &[], &[]));
        debug_assert!(it.next().is_none(), "machine blocks span two tables");
        let (ni, nb) = (self.info.insts, self.info.blocks);
        // SAFETY: every component of this module is repr(transparent) over its row type.
        unsafe {
            Some(MachineRef {
                ops: &rows(ops)[..ni],
                operands: &rows(operands)[..ni],
                clobbers: &rows(clobbers)[..ni],
                insts: &rows(insts)[..nb],
                params: &rows(params)[..nb],
                succs: &rows(succs)[..nb],
                preds: &rows(preds)[..nb],
                branch_args: &rows(args)[..nb],
                info: &self.info,
            })
        }
    }
}

/// The machine function in the World as slices (see [`MachineView`]).
#[derive(Clone, Copy)]
pub struct MachineRef<'a> {
    /// `ops[MInst]`.
    pub ops: &'a [MachineOp],
    /// `operands[MInst]`.
    pub operands: &'a [Operands],
    /// `clobbers[MInst]`.
    pub clobbers: &'a [PRegSet],
    /// `insts[MBlock]`.
    pub insts: &'a [InstRange],
    /// `params[MBlock]`.
    pub params: &'a [SmallVec<[VReg; 2]>],
    /// `succs[MBlock]`.
    pub succs: &'a [SmallVec<[MBlock; 2]>],
    /// `preds[MBlock]`.
    pub preds: &'a [SmallVec<[MBlock; 2]>],
    /// `branch_args[MBlock]`.
    pub branch_args: &'a [BranchArgs],
    /// Per-function facts.
    pub info: &'a MachineInfo,
}

impl MachineRead for MachineRef<'_> {
    fn num_insts(&self) -> usize {
        self.ops.len()
    }
    fn num_blocks(&self) -> usize {
        self.insts.len()
    }
    fn num_vregs(&self) -> usize {
        self.info.num_vregs
    }
    fn block_insts(&self, block: MBlock) -> InstRange {
        self.insts[block.index()]
    }
    fn block_succs(&self, block: MBlock) -> &[MBlock] {
        &self.succs[block.index()]
    }
    fn block_preds(&self, block: MBlock) -> &[MBlock] {
        &self.preds[block.index()]
    }
    fn block_params(&self, block: MBlock) -> &[VReg] {
        &self.params[block.index()]
    }
    fn is_ret(&self, inst: MInst) -> bool {
        self.ops[inst.index()].opcode.is_ret()
    }
    fn is_branch(&self, inst: MInst) -> bool {
        let op = self.ops[inst.index()].opcode;
        op.is_terminator() && !op.is_ret()
    }
    fn branch_args(&self, block: MBlock, succ: usize) -> &[VReg] {
        self.branch_args[block.index()].get(succ)
    }
    fn inst_operands(&self, inst: MInst) -> &[Operand] {
        &self.operands[inst.index()]
    }
    fn inst_clobbers(&self, inst: MInst) -> PRegSet {
        self.clobbers[inst.index()]
    }
    fn remat(&self, vreg: VReg) -> Option<MachineOp> {
        super::function::remat_lookup(&self.info.remat, vreg)
    }
    fn is_commutative(&self, inst: MInst) -> bool {
        self.ops[inst.index()].opcode.is_commutative()
    }
    fn spill_slot_size(&self, class: crate::registers::RegClass) -> usize {
        super::function::slot_size(self.info.spill_slot_sizes, class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::function::{MachineBuilder, Opcode};
    use crate::machine::OperandConstraint as C;
    use crate::registers::RegClass;

    fn sample(n: usize) -> MachineFunction {
        let mut m = MachineBuilder::default();
        let b0 = m.block();
        let mut prev = None;
        for k in 0..n {
            let v = m.vreg(RegClass::Int).unwrap();
            let mut ops: Operands = smallvec::smallvec![Operand::def(v, C::Reg)];
            if let Some(p) = prev {
                ops.push(Operand::use_(p, C::Any));
            }
            m.push(
                b0,
                MachineOp::imm(Opcode::MovImm, k as i64),
                ops,
                PRegSet::empty(),
            );
            prev = Some(v);
        }
        m.push(
            b0,
            MachineOp::new(Opcode::Ret),
            Operands::new(),
            PRegSet::empty(),
        );
        m.finish(&format!("f{n}"), "x86-64")
    }

    /// Load, read through the system parameter, take: the function comes back unchanged,
    /// through growing and shrinking functions (pooled rows).
    #[test]
    fn round_trips_through_pooled_rows() {
        let mut world = World::new();
        init_resources(&mut world);
        for n in [3, 10, 2, 12] {
            let f = sample(n);
            world.resource_scope(|w, mut l: Mut<MachineLoader>| l.load(w, f.clone()));
            let seen;
            let mut state = bevy_ecs::system::SystemState::<MachineView>::new(&mut world);
            {
                let view = state.get(&world).unwrap();
                let body = view.body().unwrap();
                assert_eq!(body.num_insts(), n + 1);
                assert_eq!(body.inst_operands(MInst(1)), f.inst_operands(MInst(1)));
                assert!(crate::machine::verify::verify(&body).is_empty());
                seen = Some(body.num_blocks());
            }
            assert_eq!(seen, Some(1));
            assert_eq!(take_machine(&mut world), Some(f));
            assert_eq!(take_machine(&mut world), None);
        }
        assert_eq!(world.resource::<MachineEntities>().insts.len(), 13);
    }
}

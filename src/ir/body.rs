//! A function body as component columns: the shape in which the IR lives in the World.
//!
//! What: the per-entity data of blocks and instructions, split into one component per column
//! along the lines passes read and write them (DESIGN.md 2, rule 5), and [`Body`] /
//! [`BodyRef`], the views through which passes work on those columns as plain slices.
//!
//! | kind | component | Rust type of a row | bytes per row |
//! |---|---|---|---|
//! | instruction | [`InstOp`] | [`InstKind`] (operation and operands) | 64 |
//! | instruction | [`InstResults`] | `SmallVec<[Value; 1]>` (values defined) | 24 |
//! | instruction | [`InstBlock`] | [`Block`] (the block listing it) | 4 |
//! | instruction | [`InstDead`] | `bool` (removed from its block) | 1 |
//! | block | [`BlockInsts`] | `Vec<Inst>` (instruction order) | 24 |
//! | block | [`BlockParams`] | `SmallVec<[Value; 2]>` (block parameters) | 24 |
//! | block | [`BlockTerm`] | [`Terminator`] | 80 |
//! | block | [`BlockDead`] | `bool` (a hole in the block table) | 1 |
//! | block | [`ImmediateDominator`] | [`Block`] (analysis result) | 4 |
//!
//! Each component is `#[repr(transparent)]` over its row type, so a column slice of
//! components is reinterpreted as a slice of row types ([`columns_mut`]): passes index
//! `body.kinds[i]`, `body.terminators[b]` at `Vec` speed with no wrapper in the way.
//!
//! Invariants (kept by the engine's loader and by every pass):
//! - one table per entity kind and function slot (a World holds up to
//!   [`super::access::SLOTS`] functions, each in its own tables); row `i` of a slot's
//!   instruction table is its function's [`Inst`] `i`, row `b` of its block table is
//!   [`Block`] `b` (spawned in index order, despawned newest first);
//! - a table may hold more rows than the function uses (spare rows, reserved before a pass
//!   that creates instructions or blocks); [`RowCounts`] gives the rows in use, and only those
//!   are part of the function;
//! - an instruction is part of the function iff a live block lists it; [`InstDead`] is set
//!   for every instruction a pass removed (loading sets it for unlisted rows), so
//!   `!inst_dead[i]` is a cheap "still listed" test.
//!
//! Complexity: every accessor is O(1); nothing here allocates.

use super::{
    Block, ConstPool, Inst, InstKind, IrRead, Linkage, Phase, Signature, Terminator, Value,
    ValueData,
};
use bevy_ecs::component::Component;
use smallvec::SmallVec;

/// An instruction's operation with its operands (column of instruction entities).
#[derive(Component, Clone, Debug, PartialEq)]
#[repr(transparent)]
pub struct InstOp(pub InstKind);

/// The values an instruction defines, one per [`InstKind::result_types`] entry.
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct InstResults(pub SmallVec<[Value; 1]>);

/// The block that lists an instruction (meaningless once it is removed).
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct InstBlock(pub Block);

/// True once an instruction has been removed from its block (or was never listed).
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct InstDead(pub bool);

/// A block's instructions in execution order.
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct BlockInsts(pub Vec<Inst>);

/// A block's parameters (block-parameter form; empty before it).
#[derive(Component, Clone, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct BlockParams(pub SmallVec<[Value; 2]>);

/// A block's terminator.
#[derive(Component, Clone, Debug, PartialEq)]
#[repr(transparent)]
pub struct BlockTerm(pub Terminator);

/// True for a hole in the block table (never reached, never printed).
#[derive(Component, Clone, Copy, Debug, PartialEq, Default)]
#[repr(transparent)]
pub struct BlockDead(pub bool);

/// A per-block analysis result as a column: the block's immediate dominator
/// ([`ImmediateDominator::NONE`] for the entry, unreachable and dead blocks). Written with
/// the dominator tree (`analysis::AnalysesMut::refresh`, `analysis::compute_idoms`); read
/// by the dominance-frontier computation. Valid while `ValidAnalyses` holds `DOMTREE`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct ImmediateDominator(pub Block);

impl ImmediateDominator {
    /// No immediate dominator.
    pub const NONE: ImmediateDominator = ImmediateDominator(Block(u32::MAX));

    /// The dominator, if any.
    pub fn get(self) -> Option<Block> {
        (self != Self::NONE).then_some(self.0)
    }
}

/// Reinterprets a column of `#[repr(transparent)]` components as a slice of their rows.
///
/// # Safety
/// `C` must be `#[repr(transparent)]` over `T` (every component of this module is).
unsafe fn rows_mut<C, T>(column: &mut [C]) -> &mut [T] {
    debug_assert_eq!(std::mem::size_of::<C>(), std::mem::size_of::<T>());
    // SAFETY: same layout (repr(transparent)), same length, the borrow is carried over.
    unsafe { std::slice::from_raw_parts_mut(column.as_mut_ptr().cast::<T>(), column.len()) }
}

/// Shared counterpart of [`rows_mut`].
///
/// # Safety
/// As for [`rows_mut`].
unsafe fn rows<C, T>(column: &[C]) -> &[T] {
    debug_assert_eq!(std::mem::size_of::<C>(), std::mem::size_of::<T>());
    // SAFETY: see `rows_mut`.
    unsafe { std::slice::from_raw_parts(column.as_ptr().cast::<T>(), column.len()) }
}

/// The mutable column slices of both tables, as handed out by a contiguous query.
pub struct ColumnsMut<'a> {
    /// [`InstOp`] column.
    pub ops: &'a mut [InstOp],
    /// [`InstResults`] column.
    pub results: &'a mut [InstResults],
    /// [`InstBlock`] column.
    pub blocks_of: &'a mut [InstBlock],
    /// [`InstDead`] column.
    pub inst_dead: &'a mut [InstDead],
    /// [`BlockInsts`] column.
    pub block_insts: &'a mut [BlockInsts],
    /// [`BlockParams`] column.
    pub block_params: &'a mut [BlockParams],
    /// [`BlockTerm`] column.
    pub terminators: &'a mut [BlockTerm],
    /// [`BlockDead`] column.
    pub block_dead: &'a mut [BlockDead],
}

/// Reinterprets the component columns as row slices (see the module doc).
pub fn columns_mut(c: ColumnsMut<'_>) -> RowsMut<'_> {
    // SAFETY: every component of this module is repr(transparent) over its row type.
    unsafe {
        RowsMut {
            kinds: rows_mut(c.ops),
            results: rows_mut(c.results),
            inst_blocks: rows_mut(c.blocks_of),
            inst_dead: rows_mut(c.inst_dead),
            block_insts: rows_mut(c.block_insts),
            block_params: rows_mut(c.block_params),
            terminators: rows_mut(c.terminators),
            block_dead: rows_mut(c.block_dead),
        }
    }
}

/// The column slices as row types (what [`Body`] holds).
pub struct RowsMut<'a> {
    /// `kinds[Inst]`.
    pub kinds: &'a mut [InstKind],
    /// `results[Inst]`.
    pub results: &'a mut [SmallVec<[Value; 1]>],
    /// `inst_blocks[Inst]`.
    pub inst_blocks: &'a mut [Block],
    /// `inst_dead[Inst]`.
    pub inst_dead: &'a mut [bool],
    /// `block_insts[Block]`.
    pub block_insts: &'a mut [Vec<Inst>],
    /// `block_params[Block]`.
    pub block_params: &'a mut [SmallVec<[Value; 2]>],
    /// `terminators[Block]`.
    pub terminators: &'a mut [Terminator],
    /// `block_dead[Block]`.
    pub block_dead: &'a mut [bool],
}

/// Shared column slices of both tables.
pub struct ColumnsRef<'a> {
    /// [`InstOp`] column.
    pub ops: &'a [InstOp],
    /// [`InstResults`] column.
    pub results: &'a [InstResults],
    /// [`InstBlock`] column.
    pub blocks_of: &'a [InstBlock],
    /// [`InstDead`] column.
    pub inst_dead: &'a [InstDead],
    /// [`BlockInsts`] column.
    pub block_insts: &'a [BlockInsts],
    /// [`BlockParams`] column.
    pub block_params: &'a [BlockParams],
    /// [`BlockTerm`] column.
    pub terminators: &'a [BlockTerm],
    /// [`BlockDead`] column.
    pub block_dead: &'a [BlockDead],
}

/// Per-function data that is not per entity: name, signature, parameters, phase.
#[derive(bevy_ecs::resource::Resource, Default, Debug, Clone)]
pub struct FunctionInfo {
    /// Function name.
    pub name: String,
    /// Linkage.
    pub linkage: Linkage,
    /// Signature.
    pub signature: Signature,
    /// Parameter values.
    pub param_values: Vec<Value>,
    /// Current IR phase; passes that change phase update it.
    pub phase: Phase,
}

/// Rows of each table that belong to the function (the rest are spare rows).
#[derive(bevy_ecs::resource::Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowCounts {
    /// Block rows in use.
    pub blocks: usize,
    /// Instruction rows in use.
    pub insts: usize,
}

/// Rows a pass will create, asked for before it runs so that the engine can spawn them
/// while no column is borrowed (DESIGN.md 2, rule 6). Reset to zero after they are spawned.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowDemand {
    /// Blocks the next pass may create.
    pub blocks: usize,
    /// Instructions the next pass may create.
    pub insts: usize,
}

/// A function in the World, writable: its columns as slices plus the per-function tables.
///
/// Slices may be longer than the function ([`RowCounts`]): index only below
/// [`IrRead::num_insts`] / [`IrRead::num_blocks`]. New instructions and blocks take spare
/// rows ([`Body::push_inst`], [`Body::push_block`]); a pass asks for them through
/// [`RowDemand`] before it runs.
pub struct Body<'a> {
    /// `kinds[Inst]`: operation and operands.
    pub kinds: &'a mut [InstKind],
    /// `results[Inst]`: values defined.
    pub results: &'a mut [SmallVec<[Value; 1]>],
    /// `inst_blocks[Inst]`: the block listing the instruction.
    pub inst_blocks: &'a mut [Block],
    /// `inst_dead[Inst]`: removed from its block.
    pub inst_dead: &'a mut [bool],
    /// `block_insts[Block]`: instruction order.
    pub block_insts: &'a mut [Vec<Inst>],
    /// `block_params[Block]`.
    pub block_params: &'a mut [SmallVec<[Value; 2]>],
    /// `terminators[Block]`.
    pub terminators: &'a mut [Terminator],
    /// `block_dead[Block]`: a hole.
    pub block_dead: &'a mut [bool],
    /// The value table.
    pub values: &'a mut Vec<ValueData>,
    /// The constant pool.
    pub consts: &'a mut ConstPool,
    /// Name, signature, parameters, phase.
    pub info: &'a mut FunctionInfo,
    /// Rows in use.
    pub counts: &'a mut RowCounts,
}

impl<'a> Body<'a> {
    /// Assembles a body from its parts.
    pub fn new(
        rows: RowsMut<'a>,
        values: &'a mut Vec<ValueData>,
        consts: &'a mut ConstPool,
        info: &'a mut FunctionInfo,
        counts: &'a mut RowCounts,
    ) -> Self {
        Body {
            kinds: rows.kinds,
            results: rows.results,
            inst_blocks: rows.inst_blocks,
            inst_dead: rows.inst_dead,
            block_insts: rows.block_insts,
            block_params: rows.block_params,
            terminators: rows.terminators,
            block_dead: rows.block_dead,
            values,
            consts,
            info,
            counts,
        }
    }

    /// Spare instruction rows left.
    pub fn spare_insts(&self) -> usize {
        self.kinds.len() - self.counts.insts
    }

    /// Spare block rows left.
    pub fn spare_blocks(&self) -> usize {
        self.block_dead.len() - self.counts.blocks
    }

    /// Creates an instruction in the next spare row (not yet listed by any block).
    ///
    /// Panics if no spare row is left: the pass asked for too few in [`RowDemand`].
    pub fn push_inst(
        &mut self,
        kind: InstKind,
        results: SmallVec<[Value; 1]>,
        block: Block,
    ) -> Inst {
        let i = self.counts.insts;
        assert!(
            i < self.kinds.len(),
            "no spare instruction row: RowDemand too small"
        );
        self.kinds[i] = kind;
        self.results[i] = results;
        self.inst_blocks[i] = block;
        self.inst_dead[i] = false;
        self.counts.insts += 1;
        Inst::new(i)
    }

    /// Creates a live block in the next spare row, with the given instructions and
    /// terminator. Panics if no spare row is left.
    pub fn push_block(&mut self, insts: Vec<Inst>, terminator: Terminator) -> Block {
        let b = self.counts.blocks;
        assert!(
            b < self.block_dead.len(),
            "no spare block row: RowDemand too small"
        );
        self.block_insts[b] = insts;
        self.block_params[b] = SmallVec::new();
        self.terminators[b] = terminator;
        self.block_dead[b] = false;
        self.counts.blocks += 1;
        Block::new(b)
    }

    /// The single result of `i`, if it has exactly one.
    pub fn result(&self, i: Inst) -> Option<Value> {
        match self.results[i.index()].as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }

    /// A shared view of the same columns.
    pub fn view(&self) -> BodyRef<'_> {
        BodyRef {
            kinds: &self.kinds[..],
            results: &self.results[..],
            inst_blocks: &self.inst_blocks[..],
            inst_dead: &self.inst_dead[..],
            block_insts: &self.block_insts[..],
            block_params: &self.block_params[..],
            terminators: &self.terminators[..],
            block_dead: &self.block_dead[..],
            values: &self.values[..],
            consts: &*self.consts,
            info: &*self.info,
            counts: *self.counts,
        }
    }

    /// Number of instructions listed by live blocks.
    pub fn live_inst_count(&self) -> usize {
        self.view().live_inst_count()
    }
}

/// A function in the World, read-only (see [`Body`]).
#[derive(Clone, Copy)]
pub struct BodyRef<'a> {
    /// `kinds[Inst]`.
    pub kinds: &'a [InstKind],
    /// `results[Inst]`.
    pub results: &'a [SmallVec<[Value; 1]>],
    /// `inst_blocks[Inst]`.
    pub inst_blocks: &'a [Block],
    /// `inst_dead[Inst]`.
    pub inst_dead: &'a [bool],
    /// `block_insts[Block]`.
    pub block_insts: &'a [Vec<Inst>],
    /// `block_params[Block]`.
    pub block_params: &'a [SmallVec<[Value; 2]>],
    /// `terminators[Block]`.
    pub terminators: &'a [Terminator],
    /// `block_dead[Block]`.
    pub block_dead: &'a [bool],
    /// The value table.
    pub values: &'a [ValueData],
    /// The constant pool.
    pub consts: &'a ConstPool,
    /// Name, signature, parameters, phase.
    pub info: &'a FunctionInfo,
    /// Rows in use.
    pub counts: RowCounts,
}

impl<'a> BodyRef<'a> {
    /// Assembles a read-only body from shared columns.
    pub fn new(
        c: ColumnsRef<'a>,
        values: &'a [ValueData],
        consts: &'a ConstPool,
        info: &'a FunctionInfo,
        counts: RowCounts,
    ) -> Self {
        // SAFETY: every component of this module is repr(transparent) over its row type.
        unsafe {
            BodyRef {
                kinds: rows(c.ops),
                results: rows(c.results),
                inst_blocks: rows(c.blocks_of),
                inst_dead: rows(c.inst_dead),
                block_insts: rows(c.block_insts),
                block_params: rows(c.block_params),
                terminators: rows(c.terminators),
                block_dead: rows(c.block_dead),
                values,
                consts,
                info,
                counts,
            }
        }
    }

    /// Number of instructions listed by live blocks.
    pub fn live_inst_count(&self) -> usize {
        (0..self.counts.blocks)
            .filter(|&b| !self.block_dead[b])
            .map(|b| self.block_insts[b].len())
            .sum()
    }
}

macro_rules! impl_ir_read {
    ($t:ty) => {
        impl IrRead for $t {
            fn name(&self) -> &str {
                &self.info.name
            }
            fn linkage(&self) -> Linkage {
                self.info.linkage
            }
            fn signature(&self) -> &Signature {
                &self.info.signature
            }
            fn param_values(&self) -> &[Value] {
                &self.info.param_values
            }
            fn phase(&self) -> Phase {
                self.info.phase
            }
            fn num_blocks(&self) -> usize {
                self.counts.blocks
            }
            fn block_insts(&self, b: Block) -> &[Inst] {
                &self.block_insts[b.index()]
            }
            fn block_params(&self, b: Block) -> &[Value] {
                &self.block_params[b.index()]
            }
            fn terminator(&self, b: Block) -> &Terminator {
                &self.terminators[b.index()]
            }
            fn is_block_dead(&self, b: Block) -> bool {
                self.block_dead[b.index()]
            }
            fn num_insts(&self) -> usize {
                self.counts.insts
            }
            fn inst_kind(&self, i: Inst) -> &InstKind {
                &self.kinds[i.index()]
            }
            fn inst_results(&self, i: Inst) -> &[Value] {
                &self.results[i.index()]
            }
            fn inst_block(&self, i: Inst) -> Block {
                self.inst_blocks[i.index()]
            }
            fn values(&self) -> &[ValueData] {
                &self.values[..]
            }
            fn consts(&self) -> &ConstPool {
                &*self.consts
            }
        }
    };
}

impl_ir_read!(Body<'_>);
impl_ir_read!(BodyRef<'_>);

//! System parameters and resources through which systems reach the functions in the World.
//!
//! What: [`IrMut`] and [`IrView`] hold plain queries over the column components of
//! [`super::body`] (so the schedule's ambiguity check sees every access) plus the
//! per-function tables (one resource, [`FunctionTables`]), and hand out the columns as
//! slices ([`Body`], [`BodyRef`]): random access then costs what a `Vec` index costs
//! (DESIGN.md 2, rule 5). Slices never go through `ContiguousMut`'s `DerefMut` (which marks
//! every tick of the column on each write): `bypass_change_detection_split` gives the plain
//! `&mut [T]`.
//!
//! Function slots: a World holds up to [`SLOTS`] functions at once, one per slot, and one
//! run of the schedule takes them all (a batch). Each slot's blocks and instructions live
//! in their own tables (the zero-sized [`SlotMark`] puts them in their own archetypes), so
//! each function is dense in its tables (row `i` = its dense index `i`) and grows at its
//! own end; the [`SlotOf`] column tells a contiguous query's chunk which slot it is.
//! Systems loop over [`IrMut::bodies`] / [`IrView::bodies`] (the live slots) and keep one
//! value per slot of every per-function resource in [`PerSlot`]. Why: the schedule's cost
//! per run (about 15,000 instructions: system runs, resource fetches, query setup) is fixed,
//! and C functions are small (50-200 instructions, 70,000-150,000 instructions of pass work
//! each), so one run per function cost 1.05-1.23x of the passes' own work; spread over a
//! batch of eight it is about 1.05x (README, "Engine cost").
//!
//! Invariant: each entity kind is one table per slot (see [`super::body`]); a debug
//! assertion checks that no slot spans two chunks.
//!
//! Complexity: O(slots) per call to hand out the slices (one chunk per slot table).

use super::{
    BlockDead, BlockInsts, BlockParams, BlockTerm, Body, BodyRef, ColumnsMut, ColumnsRef,
    ConstPool, FunctionInfo, InstBlock, InstDead, InstOp, InstResults, RowCounts, SymbolTable,
    ValueData,
};
use bevy_ecs::change_detection::ContiguousMut;
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use std::sync::Arc;

/// Function slots of a World: how many functions it holds at once (a batch). Each slot
/// has its own block and instruction tables (archetypes told apart by [`SlotMark`]), so
/// each function is dense in its own tables, row `i` = its dense index `i`, and grows at
/// its own end. Systems loop over the slots in one run of the schedule, which spreads the
/// schedule's fixed cost per run (system runs, resource fetches) over the batch.
pub const SLOTS: usize = 8;

/// The slot of a row: a column of every block and instruction table, with the same value in
/// every row of a table (a slot's tables hold only its rows), which tells a contiguous
/// query's chunk which slot it is.
#[derive(Component, Clone, Copy, PartialEq, Eq, Debug)]
pub struct SlotOf(pub u8);

/// Marker that puts the rows of slot `S` in their own tables (one archetype per kind and
/// slot). Zero-sized.
#[derive(Component, Clone, Copy, Default, Debug)]
pub struct SlotMark<const S: usize>;

/// A resource with one value per function slot (`slots[s]` belongs to the function in slot
/// `s`): analyses, plans between a pass's systems, diagnostics and statistics.
#[derive(Resource, Debug)]
pub struct PerSlot<T: Send + Sync + 'static>(pub Vec<T>);

impl<T: Default + Send + Sync + 'static> Default for PerSlot<T> {
    fn default() -> Self {
        PerSlot((0..SLOTS).map(|_| T::default()).collect())
    }
}

impl<T: Send + Sync + 'static> std::ops::Index<usize> for PerSlot<T> {
    type Output = T;
    fn index(&self, slot: usize) -> &T {
        &self.0[slot]
    }
}

impl<T: Send + Sync + 'static> std::ops::IndexMut<usize> for PerSlot<T> {
    fn index_mut(&mut self, slot: usize) -> &mut T {
        &mut self.0[slot]
    }
}

/// The per-function tables of one slot that are not per entity: the value table
/// (`values[Value]`), the constant pool, the name, signature and phase ([`FunctionInfo`])
/// and the rows in use ([`RowCounts`]).
#[derive(Default, Debug)]
pub struct SlotTables {
    /// `values[Value]`: type and definition of each value.
    pub values: Vec<ValueData>,
    /// The constant pool.
    pub consts: ConstPool,
    /// Name, linkage, signature, parameters and phase.
    pub info: FunctionInfo,
    /// Rows of each table in use.
    pub counts: RowCounts,
}

/// The per-function tables of every slot ([`SlotTables`]) and which slots the current
/// stage works on, as one resource: every system reaches them through [`IrMut`] /
/// [`IrView`], and a resource fetch costs about 80 instructions per system run.
#[derive(Resource, Debug)]
pub struct FunctionTables {
    /// `slots[s]`: the tables of the function in slot `s`.
    pub slots: Vec<SlotTables>,
    /// Bit `s`: slot `s` holds a function of this run with no error reported before the
    /// current stage (loading sets the loaded slots; the engine's gate step at each stage's
    /// begin clears failed ones). Systems visit only these slots.
    pub live: u32,
}

impl Default for FunctionTables {
    fn default() -> Self {
        FunctionTables {
            slots: (0..SLOTS).map(|_| SlotTables::default()).collect(),
            live: 0,
        }
    }
}

impl FunctionTables {
    /// The live slots, in order.
    pub fn live_slots(&self) -> impl Iterator<Item = usize> {
        let live = self.live;
        (0..SLOTS).filter(move |s| live & (1 << s) != 0)
    }
}

/// Names and signatures of the symbols of the module the function belongs to.
#[derive(Resource, Default, Debug, Clone)]
pub struct Symbols(pub Arc<SymbolTable>);

/// The instruction columns, mutable.
pub type InstColumnsMut = (
    &'static mut InstOp,
    &'static mut InstResults,
    &'static mut InstBlock,
    &'static mut InstDead,
    &'static SlotOf,
);
/// The block columns, mutable.
pub type BlockColumnsMut = (
    &'static mut BlockInsts,
    &'static mut BlockParams,
    &'static mut BlockTerm,
    &'static mut BlockDead,
    &'static SlotOf,
);
/// The instruction columns, shared.
pub type InstColumns = (
    &'static InstOp,
    &'static InstResults,
    &'static InstBlock,
    &'static InstDead,
    &'static SlotOf,
);
/// The block columns, shared.
pub type BlockColumns = (
    &'static BlockInsts,
    &'static BlockParams,
    &'static BlockTerm,
    &'static BlockDead,
    &'static SlotOf,
);

pub(crate) fn plain<T>(c: ContiguousMut<'_, T>) -> &mut [T] {
    ContiguousMut::bypass_change_detection_split(c).0
}

/// Four mutable column slices of one table.
pub(crate) type Four<'w, A, B, C, D> = (&'w mut [A], &'w mut [B], &'w mut [C], &'w mut [D]);

/// The chunks of a contiguous query over every slot's table, placed by slot: `out[s]` is
/// slot `s`'s chunk (`None` for a slot whose table is empty or does not exist yet; bevy
/// skips empty tables, so the order of the chunks says nothing). Each chunk comes with its
/// `SlotOf` column, whose first row names the slot. `what` names the kind for the panic
/// messages.
pub(crate) fn by_slot<'w, T>(
    chunks: impl Iterator<Item = (T, &'w [SlotOf])>,
    what: &str,
) -> [Option<T>; SLOTS] {
    let mut out: [Option<T>; SLOTS] = Default::default();
    for (chunk, slot) in chunks {
        let s = slot[0].0 as usize;
        debug_assert!(out[s].is_none(), "{what} rows of slot {s} span two tables");
        out[s] = Some(chunk);
    }
    out
}

/// The four column slices of each slot's table, from a contiguous query over every slot
/// ([`by_slot`]). A column that is not a table component breaks DESIGN.md 2 rule 4: the
/// panic names the kind (`what`).
pub(crate) fn slot_columns<'w, A, B, C, D, E: std::fmt::Debug>(
    iter: Result<
        impl Iterator<
            Item = (
                ContiguousMut<'w, A>,
                ContiguousMut<'w, B>,
                ContiguousMut<'w, C>,
                ContiguousMut<'w, D>,
                &'w [SlotOf],
            ),
        >,
        E,
    >,
    what: &str,
) -> [Option<Four<'w, A, B, C, D>>; SLOTS] {
    let it = iter.unwrap_or_else(|e| panic!("{what} columns are not dense: {e:?}"));
    by_slot(
        it.map(|(a, b, c, d, slot)| ((plain(a), plain(b), plain(c), plain(d)), slot)),
        what,
    )
}

/// The four column slices of slot `slot`'s table (empty slices if it has no rows).
pub(crate) fn four_columns<'w, A, B, C, D, E: std::fmt::Debug>(
    iter: Result<
        impl Iterator<
            Item = (
                ContiguousMut<'w, A>,
                ContiguousMut<'w, B>,
                ContiguousMut<'w, C>,
                ContiguousMut<'w, D>,
                &'w [SlotOf],
            ),
        >,
        E,
    >,
    what: &str,
    slot: usize,
) -> Four<'w, A, B, C, D> {
    slot_columns(iter, what)[slot]
        .take()
        .unwrap_or((&mut [], &mut [], &mut [], &mut []))
}

/// Shared column slices of one table.
pub(crate) type FourRef<'w, A, B, C, D> = (&'w [A], &'w [B], &'w [C], &'w [D]);

/// [`slot_columns`] for a shared query.
pub(crate) fn slot_columns_ref<'w, A, B, C, D, E: std::fmt::Debug>(
    iter: Result<impl Iterator<Item = (&'w [A], &'w [B], &'w [C], &'w [D], &'w [SlotOf])>, E>,
    what: &str,
) -> [Option<FourRef<'w, A, B, C, D>>; SLOTS] {
    let it = iter.unwrap_or_else(|e| panic!("{what} columns are not dense: {e:?}"));
    by_slot(it.map(|(a, b, c, d, slot)| ((a, b, c, d), slot)), what)
}

/// Read-write access to the functions in the World: every column and per-function table.
///
/// Systems that transform the IR take this parameter and loop over [`IrMut::bodies`].
#[derive(SystemParam)]
pub struct IrMut<'w, 's> {
    insts: Query<'w, 's, InstColumnsMut>,
    blocks: Query<'w, 's, BlockColumnsMut>,
    tables: ResMut<'w, FunctionTables>,
}

impl IrMut<'_, '_> {
    /// The live slots' functions, each with its slot, as column slices (one contiguous
    /// query call per table for all slots).
    pub fn bodies(&mut self) -> impl Iterator<Item = (usize, Body<'_>)> {
        let mut insts = slot_columns(self.insts.contiguous_iter_mut(), "instruction");
        let mut blocks = slot_columns(self.blocks.contiguous_iter_mut(), "block");
        let live = self.tables.live;
        self.tables
            .slots
            .iter_mut()
            .enumerate()
            .filter(move |(s, _)| live & (1 << s) != 0)
            .map(move |(s, t)| {
                let (ops, results, blocks_of, inst_dead) =
                    insts[s]
                        .take()
                        .unwrap_or((&mut [], &mut [], &mut [], &mut []));
                let (block_insts, block_params, terminators, block_dead) = blocks[s]
                    .take()
                    .unwrap_or((&mut [], &mut [], &mut [], &mut []));
                let rows = super::columns_mut(ColumnsMut {
                    ops,
                    results,
                    blocks_of,
                    inst_dead,
                    block_insts,
                    block_params,
                    terminators,
                    block_dead,
                });
                let body = Body::new(
                    rows,
                    &mut t.values,
                    &mut t.consts,
                    &mut t.info,
                    &mut t.counts,
                );
                (s, body)
            })
    }

    /// The per-function tables of every slot (no column access: for a system that changes
    /// only a function's info, such as its phase, without the cost of [`IrMut::bodies`]).
    pub fn tables_mut(&mut self) -> &mut FunctionTables {
        &mut self.tables
    }

    /// The function in slot 0, live or not (for Worlds that hold one function: the
    /// harness, tests and tools; pipeline systems use [`IrMut::bodies`]).
    pub fn body(&mut self) -> Body<'_> {
        let (ops, results, blocks_of, inst_dead) =
            four_columns(self.insts.contiguous_iter_mut(), "instruction", 0);
        let (block_insts, block_params, terminators, block_dead) =
            four_columns(self.blocks.contiguous_iter_mut(), "block", 0);
        let rows = super::columns_mut(ColumnsMut {
            ops,
            results,
            blocks_of,
            inst_dead,
            block_insts,
            block_params,
            terminators,
            block_dead,
        });
        let t = &mut self.tables.slots[0];
        Body::new(
            rows,
            &mut t.values,
            &mut t.consts,
            &mut t.info,
            &mut t.counts,
        )
    }
}

/// Read-only access to the functions in the World (see [`IrMut`]).
#[derive(SystemParam)]
pub struct IrView<'w, 's> {
    insts: Query<'w, 's, InstColumns>,
    blocks: Query<'w, 's, BlockColumns>,
    tables: Res<'w, FunctionTables>,
}

impl IrView<'_, '_> {
    /// The live slots' functions, each with its slot, as shared column slices.
    pub fn bodies(&self) -> impl Iterator<Item = (usize, BodyRef<'_>)> {
        let insts = slot_columns_ref(self.insts.contiguous_iter(), "instruction");
        let blocks = slot_columns_ref(self.blocks.contiguous_iter(), "block");
        let tables = &*self.tables;
        tables
            .live_slots()
            .map(move |s| (s, body_ref(insts[s], blocks[s], &tables.slots[s])))
    }

    /// The function in slot 0, live or not (see [`IrMut::body`]).
    pub fn body(&self) -> BodyRef<'_> {
        let insts = slot_columns_ref(self.insts.contiguous_iter(), "instruction");
        let blocks = slot_columns_ref(self.blocks.contiguous_iter(), "block");
        body_ref(insts[0], blocks[0], &self.tables.slots[0])
    }

    /// The function tables of every slot.
    pub fn tables(&self) -> &FunctionTables {
        &self.tables
    }
}

type InstChunk<'w> = FourRef<'w, InstOp, InstResults, InstBlock, InstDead>;
type BlockChunk<'w> = FourRef<'w, BlockInsts, BlockParams, BlockTerm, BlockDead>;

fn body_ref<'w>(
    insts: Option<InstChunk<'w>>,
    blocks: Option<BlockChunk<'w>>,
    t: &'w SlotTables,
) -> BodyRef<'w> {
    let (ops, results, blocks_of, inst_dead) = insts.unwrap_or((&[], &[], &[], &[]));
    let (block_insts, block_params, terminators, block_dead) =
        blocks.unwrap_or((&[], &[], &[], &[]));
    BodyRef::new(
        ColumnsRef {
            ops,
            results,
            blocks_of,
            inst_dead,
            block_insts,
            block_params,
            terminators,
            block_dead,
        },
        &t.values,
        &t.consts,
        &t.info,
        t.counts,
    )
}

//! System parameters and resources through which systems reach the function in the World.
//!
//! What: [`IrMut`] and [`IrView`] hold plain queries over the column components of
//! [`super::body`] (so the schedule's ambiguity check sees every access) plus the
//! per-function tables (one resource, [`FunctionTables`]), and hand out the columns as slices ([`Body`], [`BodyRef`]) with
//! one contiguous-query call per table: random access then costs what a `Vec` index costs
//! (DESIGN.md 2, rule 5). Slices never go through `ContiguousMut`'s `DerefMut` (which marks
//! every tick of the column on each write): `bypass_change_detection_split` gives the plain
//! `&mut [T]`.
//!
//! Invariant: each entity kind is one table (see [`super::body`]); a debug assertion checks
//! that a query yields at most one chunk.
//!
//! Complexity: O(1) per call (about 20 ns for both tables).

use super::{
    BlockDead, BlockInsts, BlockParams, BlockTerm, Body, BodyRef, ColumnsMut, ColumnsRef,
    ConstPool, FunctionInfo, InstBlock, InstDead, InstOp, InstResults, RowCounts, SymbolTable,
    ValueData,
};
use bevy_ecs::change_detection::ContiguousMut;
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use std::sync::Arc;

/// The per-function tables that are not per entity, as one resource: the value table
/// (`values[Value]`), the constant pool, the name, signature and phase
/// ([`FunctionInfo`]) and the rows in use ([`RowCounts`]). One resource because every
/// system reaches them together through [`IrMut`] / [`IrView`]: a resource fetch costs
/// about 80 instructions per system run, and four of them were 1.5% of the default
/// pipeline on the built-in corpus.
#[derive(Resource, Default, Debug)]
pub struct FunctionTables {
    /// `values[Value]`: type and definition of each value.
    pub values: Vec<ValueData>,
    /// The constant pool.
    pub consts: ConstPool,
    /// Name, linkage, signature, parameters and phase.
    pub info: FunctionInfo,
    /// Rows of each table in use.
    pub counts: RowCounts,
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
);
/// The block columns, mutable.
pub type BlockColumnsMut = (
    &'static mut BlockInsts,
    &'static mut BlockParams,
    &'static mut BlockTerm,
    &'static mut BlockDead,
);
/// The instruction columns, shared.
pub type InstColumns = (
    &'static InstOp,
    &'static InstResults,
    &'static InstBlock,
    &'static InstDead,
);
/// The block columns, shared.
pub type BlockColumns = (
    &'static BlockInsts,
    &'static BlockParams,
    &'static BlockTerm,
    &'static BlockDead,
);

pub(crate) fn plain<T>(c: ContiguousMut<'_, T>) -> &mut [T] {
    ContiguousMut::bypass_change_detection_split(c).0
}

/// The four column slices of one table, from a contiguous query over it (empty slices if
/// the table does not exist yet). `what` names the kind for the panic messages: a column
/// that is not a table component, or a kind spread over two tables, breaks DESIGN.md 2
/// rule 4.
pub(crate) fn four_columns<'w, A, B, C, D, E: std::fmt::Debug>(
    iter: Result<
        impl Iterator<
            Item = (
                ContiguousMut<'w, A>,
                ContiguousMut<'w, B>,
                ContiguousMut<'w, C>,
                ContiguousMut<'w, D>,
            ),
        >,
        E,
    >,
    what: &str,
) -> (&'w mut [A], &'w mut [B], &'w mut [C], &'w mut [D]) {
    let mut it = iter.unwrap_or_else(|e| panic!("{what} columns are not dense: {e:?}"));
    let chunk = it.next();
    debug_assert!(it.next().is_none(), "{what} span more than one table");
    match chunk {
        Some((a, b, c, d)) => (plain(a), plain(b), plain(c), plain(d)),
        None => (&mut [], &mut [], &mut [], &mut []),
    }
}

/// Read-write access to the function in the World: every column and per-function table.
///
/// Systems that transform the IR take this parameter and call [`IrMut::body`] once.
#[derive(SystemParam)]
pub struct IrMut<'w, 's> {
    insts: Query<'w, 's, InstColumnsMut>,
    blocks: Query<'w, 's, BlockColumnsMut>,
    tables: ResMut<'w, FunctionTables>,
}

impl IrMut<'_, '_> {
    /// The function's columns as slices (about 20 ns).
    pub fn body(&mut self) -> Body<'_> {
        let (ops, results, blocks_of, inst_dead) =
            four_columns(self.insts.contiguous_iter_mut(), "instruction");
        let (block_insts, block_params, terminators, block_dead) =
            four_columns(self.blocks.contiguous_iter_mut(), "block");
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
        let t = &mut *self.tables;
        Body::new(
            rows,
            &mut t.values,
            &mut t.consts,
            &mut t.info,
            &mut t.counts,
        )
    }
}

/// Read-only access to the function in the World (see [`IrMut`]).
#[derive(SystemParam)]
pub struct IrView<'w, 's> {
    insts: Query<'w, 's, InstColumns>,
    blocks: Query<'w, 's, BlockColumns>,
    tables: Res<'w, FunctionTables>,
}

impl IrView<'_, '_> {
    /// The function's columns as shared slices.
    pub fn body(&self) -> BodyRef<'_> {
        let mut it = self
            .insts
            .contiguous_iter()
            .expect("instruction columns are table components");
        let (ops, results, blocks_of, inst_dead) = it.next().unwrap_or((&[], &[], &[], &[]));
        let mut it = self
            .blocks
            .contiguous_iter()
            .expect("block columns are table components");
        let (block_insts, block_params, terminators, block_dead) =
            it.next().unwrap_or((&[], &[], &[], &[]));
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
            &self.tables.values,
            &self.tables.consts,
            &self.tables.info,
            self.tables.counts,
        )
    }
}

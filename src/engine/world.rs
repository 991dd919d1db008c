//! The functions in the World: loading into pooled column tables, taking back out, growing
//! tables for passes that create instructions or blocks.
//!
//! Model (DESIGN.md 2, rules 3-6 and 10): a function enters the World once, when the
//! pipeline starts ([`FunctionLoader::load`], [`FunctionLoader::load_copies`]), and leaves
//! once, when it ends ([`FunctionLoader::take`], [`FunctionLoader::copy_out_all`]). In
//! between its blocks and instructions are entities whose components are the columns of
//! [`crate::ir::body`]; per-function tables that are not per entity (values, constants, name
//! and signature, rows in use) are resources. A World holds up to [`SLOTS`] functions, one
//! per slot ([`crate::ir::access`]): one table per entity kind and slot, row `i` = dense
//! index `i` of the slot's function. Loading overwrites a slot's pooled rows in place, rows
//! beyond the function stay as spare rows, and only rows beyond the slot's largest function
//! so far are spawned (one `spawn_batch`, at the end), so rows never move. [`check_dense`]
//! asserts this after every stage in debug builds.
//!
//! A pass that creates instructions or blocks first writes how many it may create into its
//! slot's [`RowDemand`]; the exclusive system [`crate::stage::grow_rows`] (the stage's
//! step, which calls [`spawn_demanded_rows`] through the World's `RowGrowth`) spawns that
//! many spare rows at the end of each slot's tables while no slice is borrowed; the pass then fills them
//! ([`crate::ir::Body::push_inst`]). Removed instructions and blocks are flagged in the
//! `InstDead` / `BlockDead` columns, never despawned mid-pipeline.
//!
//! Cost: O(blocks + instructions) to load and to take; O(slots) to obtain the slices.

use crate::ir::{
    Block, BlockColumnsMut, BlockData, BlockDead, BlockInsts, BlockParams, BlockTerm, Function,
    FunctionInfo, FunctionTables, ImmediateDominator, InstBlock, InstColumnsMut, InstData,
    InstDead, InstKind, InstOp, InstResults, RowCounts, RowDemand, SymbolTable, Symbols,
    Terminator,
};
use crate::ir::{Inst, PerSlot, SlotMark, SlotOf, Value, SLOTS};
use bevy_ecs::bundle::Bundle;
use bevy_ecs::prelude::*;
use smallvec::SmallVec;
use std::sync::Arc;

/// Entities of one slot's pooled rows, in row order (for despawning newest first and for
/// [`check_dense`]).
#[derive(Default, Debug)]
pub struct SlotEntities {
    /// `blocks[Block]`: the entity of each block row.
    pub blocks: Vec<Entity>,
    /// `insts[Inst]`: the entity of each instruction row.
    pub insts: Vec<Entity>,
}

/// Entities of the pooled rows of every slot (`slots[s]`).
#[derive(Resource, Debug)]
pub struct EntityMap {
    /// `slots[s]`: the rows of slot `s`.
    pub slots: Vec<SlotEntities>,
}

impl Default for EntityMap {
    fn default() -> Self {
        EntityMap {
            slots: (0..SLOTS).map(|_| SlotEntities::default()).collect(),
        }
    }
}

const _: () = assert!(SLOTS == 8, "spawn_in_slot names every slot");

/// Spawns `rows` at the end of slot `slot`'s table (each row with its [`SlotOf`] and
/// [`SlotMark`]) and appends their entities to `pool`.
fn spawn_in_slot<B: Bundle<Effect: bevy_ecs::bundle::NoBundleEffect>>(
    world: &mut World,
    slot: usize,
    rows: impl Iterator<Item = B>,
    pool: &mut Vec<Entity>,
) {
    macro_rules! dispatch {
        ($($s:literal),*) => {
            match slot {
                $($s => pool.extend(
                    world.spawn_batch(rows.map(|row| (row, SlotOf($s), SlotMark::<$s>))),
                ),)*
                _ => panic!("function slot {slot} out of range (there are {SLOTS})"),
            }
        };
    }
    dispatch!(0, 1, 2, 3, 4, 5, 6, 7);
}

/// Inserts the per-function resources with empty contents (done once per World).
pub fn init_resources(world: &mut World) {
    world.init_resource::<EntityMap>();
    world.init_resource::<FunctionTables>();
    world.init_resource::<Symbols>();
    world.init_resource::<PerSlot<RowDemand>>();
    let loader = FunctionLoader::new(world, true);
    world.insert_resource(loader);
}

/// Loads functions into a World and takes them back out, pooling entities.
///
/// Entity pooling (DESIGN.md 2, rule 10): between functions the block and instruction
/// entities stay alive, and the next function overwrites their components in place. Rows it
/// does not use stay as spare rows (a later pass or function reuses them); only rows beyond
/// the largest function so far are spawned (one `spawn_batch`), so entity ids stay bounded
/// by the largest function, nothing is despawned between functions, and table rows keep
/// index order. Measured on the built-in corpus: trimming the tables to each function's size
/// cost about 7% of the pipeline's instructions in despawns.
#[derive(Resource)]
pub struct FunctionLoader {
    insts: QueryState<InstColumnsMut>,
    blocks: QueryState<BlockColumnsMut>,
    pool: bool,
}

impl FunctionLoader {
    /// A loader for `world`. With `pool` false, [`FunctionLoader::take`] despawns every
    /// entity, leaving the World empty.
    pub fn new(world: &mut World, pool: bool) -> Self {
        FunctionLoader {
            insts: world.query(),
            blocks: world.query(),
            pool,
        }
    }

    /// Puts `f` into slot `slot` of `world` (and makes the slot live): its tables move into
    /// columns and resources.
    pub fn load(
        &mut self,
        world: &mut World,
        slot: usize,
        f: Function,
        symbols: &Arc<SymbolTable>,
    ) {
        let Function {
            name,
            linkage,
            signature,
            param_values,
            blocks,
            insts,
            values,
            consts,
            phase,
        } = f;
        let listed = listed_insts(&blocks, insts.len());
        self.load_rows(world, slot, listed, insts.into_iter(), blocks.into_iter());
        let mut tables = world.resource_mut::<FunctionTables>();
        let t = &mut tables.slots[slot];
        t.info = FunctionInfo {
            name,
            linkage,
            signature,
            param_values,
            phase,
        };
        t.values = values;
        t.consts = consts;
        set_symbols(world, symbols);
    }

    /// Puts a copy of `functions[k]` into slot `first + k` of `world` (and makes those slots
    /// live), cloning each part into the pooled rows and resources in place (`clone_from`),
    /// so no intermediate function is built: cheaper than cloning and loading the clones,
    /// for drivers that keep their functions (benchmarks, repeated runs). The column slices
    /// of every slot are obtained once for the whole batch. After
    /// [`FunctionLoader::copy_out`] (which leaves every row and table in place) the rows'
    /// block lists, the value table and the constant pool keep their allocations too; after
    /// [`FunctionLoader::take`] (which moves them out) they are allocated anew.
    pub fn load_copies(
        &mut self,
        world: &mut World,
        first: usize,
        functions: &[&Function],
        symbols: &Arc<SymbolTable>,
    ) {
        // Rows beyond a slot's pool are spawned first (as spare rows), so that every row is
        // then written in place through one set of slices.
        for (k, f) in functions.iter().enumerate() {
            spawn_spare_rows(world, first + k, f.blocks.len(), f.insts.len());
        }
        {
            let mut insts = crate::ir::access::slot_columns(
                self.insts.contiguous_iter_mut(world),
                "instruction",
            );
            let mut listed = Vec::new();
            for (k, f) in functions.iter().enumerate() {
                listed_insts_into(&f.blocks, f.insts.len(), &mut listed);
                if let Some((ops, results, blocks_of, dead)) = insts[first + k].take() {
                    for (row, data) in f.insts.iter().enumerate() {
                        data.write(&mut ops[row].0, &mut results[row].0, &mut blocks_of[row].0);
                        dead[row].0 = !listed[row];
                    }
                }
            }
        }
        {
            let mut blocks =
                crate::ir::access::slot_columns(self.blocks.contiguous_iter_mut(world), "block");
            for (k, f) in functions.iter().enumerate() {
                if let Some((order, params, terms, dead)) = blocks[first + k].take() {
                    for (row, data) in f.blocks.iter().enumerate() {
                        dead[row].0 =
                            data.write(&mut order[row].0, &mut params[row].0, &mut terms[row].0);
                    }
                }
            }
        }
        {
            let mut tables = world.resource_mut::<FunctionTables>();
            for (k, f) in functions.iter().enumerate() {
                let slot = first + k;
                tables.live |= 1 << slot;
                let t = &mut tables.slots[slot];
                t.counts = RowCounts {
                    blocks: f.blocks.len(),
                    insts: f.insts.len(),
                };
                let info = &mut t.info;
                info.name.clone_from(&f.name);
                info.linkage = f.linkage;
                info.signature.clone_from(&f.signature);
                info.param_values.clone_from(&f.param_values);
                info.phase = f.phase;
                t.values.clone_from(&f.values);
                t.consts.clone_from(&f.consts);
            }
        }
        if let Some(mut valid) = world.get_resource_mut::<PerSlot<crate::analysis::ValidAnalyses>>()
        {
            for k in 0..functions.len() {
                valid[first + k].0 = crate::analysis::Analyses::empty();
            }
        }
        set_symbols(world, symbols);
    }

    /// Writes the instruction and block rows of slot `slot` (pooled rows overwritten in
    /// place, rows beyond the pool spawned in one batch), resets its row counts and
    /// analyses and makes it live.
    fn load_rows<I: InstSource, B: BlockSource>(
        &mut self,
        world: &mut World,
        slot: usize,
        listed: Vec<bool>,
        mut insts: impl ExactSizeIterator<Item = I>,
        mut blocks: impl ExactSizeIterator<Item = B>,
    ) {
        let (num_blocks, num_insts) = (blocks.len(), insts.len());
        let (pooled_blocks, pooled_insts) = {
            let map = &world.resource::<EntityMap>().slots[slot];
            (map.blocks.len(), map.insts.len())
        };
        // Pooled rows are overwritten in place; rows beyond the function stay as spare rows
        // (they hold placeholders since the last take), so the tables only ever grow to the
        // largest function and nothing is despawned between functions.
        let reused_blocks = pooled_blocks.min(num_blocks);
        let reused_insts = pooled_insts.min(num_insts);
        if reused_insts > 0 {
            let (ops, results, blocks_of, dead) = crate::ir::access::four_columns(
                self.insts.contiguous_iter_mut(world),
                "instruction",
                slot,
            );
            for (row, data) in insts.by_ref().take(reused_insts).enumerate() {
                data.write(&mut ops[row].0, &mut results[row].0, &mut blocks_of[row].0);
                dead[row].0 = !listed[row];
            }
        }
        if reused_blocks > 0 {
            let (order, params, terms, dead) = crate::ir::access::four_columns(
                self.blocks.contiguous_iter_mut(world),
                "block",
                slot,
            );
            for (row, data) in blocks.by_ref().take(reused_blocks).enumerate() {
                dead[row].0 = data.write(&mut order[row].0, &mut params[row].0, &mut terms[row].0);
            }
        }
        if num_blocks > pooled_blocks || num_insts > pooled_insts {
            // Only a function larger than every earlier one in its slot spawns rows (the
            // map is moved out and back, not removed as a resource, which costs an
            // archetype move).
            let mut map = std::mem::take(&mut world.resource_mut::<EntityMap>().slots[slot]);
            spawn_in_slot(
                world,
                slot,
                blocks.map(|data| {
                    let (insts, params, terminator, dead) = data.into_parts();
                    (
                        BlockInsts(insts),
                        BlockParams(params),
                        BlockTerm(terminator),
                        BlockDead(dead),
                        ImmediateDominator::NONE,
                        crate::placement::columns::PlacementRow::EMPTY,
                    )
                }),
                &mut map.blocks,
            );
            spawn_in_slot(
                world,
                slot,
                insts.enumerate().map(|(k, data)| {
                    let (kind, results, block) = data.into_parts();
                    (
                        InstOp(kind),
                        InstResults(results),
                        InstBlock(block),
                        InstDead(!listed[reused_insts + k]),
                    )
                }),
                &mut map.insts,
            );
            world.resource_mut::<EntityMap>().slots[slot] = map;
        }
        {
            let mut tables = world.resource_mut::<FunctionTables>();
            tables.slots[slot].counts = RowCounts {
                blocks: num_blocks,
                insts: num_insts,
            };
            tables.live |= 1 << slot;
        }
        if let Some(mut valid) = world.get_resource_mut::<PerSlot<crate::analysis::ValidAnalyses>>()
        {
            valid[slot].0 = crate::analysis::Analyses::empty();
        }
    }

    /// Copies the function in slot `slot` of `world` into `out`, overwriting `out`'s rows
    /// and tables in place (`clone_from`, and the heap-free instruction and terminator
    /// copies of [`InstKind::copy_from`] and [`Terminator::copy_from`]), so neither side
    /// allocates once both are as large as the function: the World keeps its rows (the
    /// next [`FunctionLoader::load_copies`] overwrites them in place) and `out` keeps its
    /// allocations for the next call. Same result as [`FunctionLoader::take`] (every row
    /// below the row counts, dead ones included), for drivers that run many functions and
    /// read each result before the next (`batch::map_functions`). The slot stays live until
    /// the next load. O(blocks + instructions).
    pub fn copy_out(&mut self, world: &mut World, slot: usize, out: &mut Function) {
        self.copy_out_all(world, slot, std::slice::from_mut(out));
    }

    /// [`FunctionLoader::copy_out`] of slots `first..first + outs.len()` into `outs`, with
    /// the column slices of every slot obtained once.
    pub fn copy_out_all(&mut self, world: &mut World, first: usize, outs: &mut [Function]) {
        let world: &World = world;
        let insts =
            crate::ir::access::slot_columns_ref(self.insts.contiguous_iter(world), "instruction");
        let blocks =
            crate::ir::access::slot_columns_ref(self.blocks.contiguous_iter(world), "block");
        let tables = &world.resource::<FunctionTables>().slots;
        for (k, out) in outs.iter_mut().enumerate() {
            let slot = first + k;
            let t = &tables[slot];
            let counts = t.counts;
            let (ops, results, blocks_of, _) = insts[slot].unwrap_or((&[], &[], &[], &[]));
            let n = counts.insts.min(ops.len());
            // Rows beyond the function go; heap-free ones without their drop (a match over
            // every variant), since they own nothing.
            while out.insts.len() > n {
                let data = out.insts.pop().expect("longer than n");
                if data.kind.owns_no_heap() && !data.results.spilled() {
                    std::mem::forget(data);
                }
            }
            let reused = out.insts.len();
            for (row, data) in out.insts.iter_mut().enumerate() {
                data.kind.copy_from(&ops[row].0);
                copy_values(&mut data.results, &results[row].0);
                data.block = blocks_of[row].0;
            }
            out.insts.extend((reused..n).map(|row| InstData {
                kind: ops[row].0.duplicate(),
                results: duplicate_values(&results[row].0),
                block: blocks_of[row].0,
            }));
            let (order, params, terms, dead) = blocks[slot].unwrap_or((&[], &[], &[], &[]));
            let n = counts.blocks.min(order.len());
            out.blocks.truncate(n);
            let reused = out.blocks.len();
            for (row, data) in out.blocks.iter_mut().enumerate() {
                data.insts.clone_from(&order[row].0);
                copy_values(&mut data.params, &params[row].0);
                data.terminator.copy_from(&terms[row].0);
                data.dead = dead[row].0;
            }
            out.blocks.extend((reused..n).map(|row| BlockData {
                insts: order[row].0.clone(),
                params: params[row].0.clone(),
                terminator: terms[row].0.clone(),
                dead: dead[row].0,
            }));
            let info = &t.info;
            out.name.clone_from(&info.name);
            out.linkage = info.linkage;
            out.signature.clone_from(&info.signature);
            out.param_values.clone_from(&info.param_values);
            out.phase = info.phase;
            out.values.clone_from(&t.values);
            out.consts.clone_from(&t.consts);
        }
    }

    /// Moves the function in slot `slot` out of `world` in one linear pass per table and
    /// makes the slot not live. Pooled entities keep empty rows; otherwise they are
    /// despawned, newest first.
    pub fn take(&mut self, world: &mut World, slot: usize) -> Function {
        self.take_all(world, slot, 1)
            .pop()
            .expect("take_all returns one function per slot")
    }

    /// [`FunctionLoader::take`] of slots `first..first + n`, in slot order, with the column
    /// slices of every slot obtained once.
    pub fn take_all(&mut self, world: &mut World, first: usize, n: usize) -> Vec<Function> {
        let counts: Vec<RowCounts> = {
            let tables = world.resource::<FunctionTables>();
            (first..first + n).map(|s| tables.slots[s].counts).collect()
        };
        let mut insts_out: Vec<Vec<InstData>> = Vec::with_capacity(n);
        {
            let mut insts = crate::ir::access::slot_columns(
                self.insts.contiguous_iter_mut(world),
                "instruction",
            );
            for (k, c) in counts.iter().enumerate() {
                let mut out = Vec::with_capacity(c.insts);
                if let Some((ops, results, blocks_of, _)) = insts[first + k].take() {
                    for row in 0..c.insts.min(ops.len()) {
                        out.push(InstData {
                            kind: std::mem::replace(&mut ops[row].0, placeholder_inst()),
                            results: std::mem::take(&mut results[row].0),
                            block: blocks_of[row].0,
                        });
                    }
                }
                insts_out.push(out);
            }
        }
        let mut blocks_out: Vec<Vec<BlockData>> = Vec::with_capacity(n);
        {
            let mut blocks =
                crate::ir::access::slot_columns(self.blocks.contiguous_iter_mut(world), "block");
            for (k, c) in counts.iter().enumerate() {
                let mut out = Vec::with_capacity(c.blocks);
                if let Some((order, params, terms, dead)) = blocks[first + k].take() {
                    for row in 0..c.blocks.min(order.len()) {
                        out.push(BlockData {
                            insts: std::mem::take(&mut order[row].0),
                            params: std::mem::take(&mut params[row].0),
                            terminator: std::mem::replace(
                                &mut terms[row].0,
                                Terminator::Unreachable,
                            ),
                            dead: dead[row].0,
                        });
                    }
                }
                blocks_out.push(out);
            }
        }
        if !self.pool {
            let mut map = world.remove_resource::<EntityMap>().unwrap_or_default();
            for slot in first..first + n {
                fit(world, &mut map.slots[slot].insts, 0);
                fit(world, &mut map.slots[slot].blocks, 0);
            }
            world.insert_resource(map);
        }
        let mut tables = world.resource_mut::<FunctionTables>();
        insts_out
            .into_iter()
            .zip(blocks_out)
            .enumerate()
            .map(|(k, (insts, blocks))| {
                let slot = first + k;
                tables.live &= !(1 << slot);
                let t = &mut tables.slots[slot];
                t.counts = RowCounts::default();
                let info = std::mem::take(&mut t.info);
                Function {
                    name: info.name,
                    linkage: info.linkage,
                    signature: info.signature,
                    param_values: info.param_values,
                    blocks,
                    insts,
                    values: std::mem::take(&mut t.values),
                    consts: std::mem::take(&mut t.consts),
                    phase: info.phase,
                }
            })
            .collect()
    }
}

/// `listed[Inst]`: some live block lists the instruction (the others load as dead rows).
fn listed_insts(blocks: &[BlockData], num_insts: usize) -> Vec<bool> {
    let mut listed = Vec::new();
    listed_insts_into(blocks, num_insts, &mut listed);
    listed
}

/// [`listed_insts`] into a reused buffer.
fn listed_insts_into(blocks: &[BlockData], num_insts: usize, listed: &mut Vec<bool>) {
    listed.clear();
    listed.resize(num_insts, false);
    for block in blocks.iter().filter(|b| !b.dead) {
        for i in &block.insts {
            if let Some(l) = listed.get_mut(i.index()) {
                *l = true;
            }
        }
    }
}

fn set_symbols(world: &mut World, symbols: &Arc<SymbolTable>) {
    let mut sym = world.resource_mut::<Symbols>();
    if !Arc::ptr_eq(&sym.0, symbols) {
        sym.0 = symbols.clone();
    }
}

/// `dst = src` in place. When neither list has spilled to the heap (nearly every result
/// and parameter list: zero, one or two values), the inline `SmallVec` is copied as its
/// bytes; `SmallVec::clone_from` or a clear and pushes cost tens of instructions and a
/// mispredicted branch or two per row, about 4% of the built-in pipeline's wall time.
#[inline]
fn copy_values<A: smallvec::Array<Item = Value>>(dst: &mut SmallVec<A>, src: &SmallVec<A>) {
    if !src.spilled() && !dst.spilled() {
        // SAFETY: an unspilled `SmallVec` of `Copy` items (`Value` is a `u32`) owns nothing
        // outside its own bytes, so a bitwise copy is an independent value equal to a clone,
        // and overwriting the unspilled `dst` without dropping it leaks nothing.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, 1) };
    } else {
        dst.clear();
        dst.extend_from_slice(src);
    }
}

/// `src.clone()`, as its bytes when the list has not spilled to the heap (see
/// [`copy_values`]).
#[inline]
fn duplicate_values<A: smallvec::Array<Item = Value>>(src: &SmallVec<A>) -> SmallVec<A> {
    if src.spilled() {
        src.clone()
    } else {
        // SAFETY: an unspilled `SmallVec` of `Copy` items owns nothing outside its own bytes.
        unsafe { std::ptr::read(src) }
    }
}

/// An instruction row to load: moved ([`InstData`]) or copied in place (`&InstData`).
trait InstSource {
    /// Writes the row into its pooled columns.
    fn write(self, kind: &mut InstKind, results: &mut SmallVec<[Value; 1]>, block: &mut Block);
    /// The row's parts, for a spawned row.
    fn into_parts(self) -> (InstKind, SmallVec<[Value; 1]>, Block);
}

impl InstSource for InstData {
    fn write(self, kind: &mut InstKind, results: &mut SmallVec<[Value; 1]>, block: &mut Block) {
        *kind = self.kind;
        *results = self.results;
        *block = self.block;
    }
    fn into_parts(self) -> (InstKind, SmallVec<[Value; 1]>, Block) {
        (self.kind, self.results, self.block)
    }
}

impl InstSource for &InstData {
    fn write(self, kind: &mut InstKind, results: &mut SmallVec<[Value; 1]>, block: &mut Block) {
        kind.copy_from(&self.kind);
        copy_values(results, &self.results);
        *block = self.block;
    }
    fn into_parts(self) -> (InstKind, SmallVec<[Value; 1]>, Block) {
        (
            self.kind.duplicate(),
            duplicate_values(&self.results),
            self.block,
        )
    }
}

/// A block row to load: moved ([`BlockData`]) or copied in place (`&BlockData`).
trait BlockSource {
    /// Writes the row into its pooled columns and returns its dead flag.
    fn write(
        self,
        insts: &mut Vec<Inst>,
        params: &mut SmallVec<[Value; 2]>,
        terminator: &mut Terminator,
    ) -> bool;
    /// The row's parts, for a spawned row.
    fn into_parts(self) -> (Vec<Inst>, SmallVec<[Value; 2]>, Terminator, bool);
}

impl BlockSource for BlockData {
    fn write(
        self,
        insts: &mut Vec<Inst>,
        params: &mut SmallVec<[Value; 2]>,
        terminator: &mut Terminator,
    ) -> bool {
        *insts = self.insts;
        *params = self.params;
        *terminator = self.terminator;
        self.dead
    }
    fn into_parts(self) -> (Vec<Inst>, SmallVec<[Value; 2]>, Terminator, bool) {
        (self.insts, self.params, self.terminator, self.dead)
    }
}

impl BlockSource for &BlockData {
    fn write(
        self,
        insts: &mut Vec<Inst>,
        params: &mut SmallVec<[Value; 2]>,
        terminator: &mut Terminator,
    ) -> bool {
        insts.clone_from(&self.insts);
        copy_values(params, &self.params);
        terminator.copy_from(&self.terminator);
        self.dead
    }
    fn into_parts(self) -> (Vec<Inst>, SmallVec<[Value; 2]>, Terminator, bool) {
        self.clone().into_parts()
    }
}

/// Despawns entities of `pool` beyond `len`, newest first (so table rows keep their order).
fn fit(world: &mut World, pool: &mut Vec<Entity>, len: usize) {
    while pool.len() > len {
        let e = pool.pop().expect("pool is longer than len");
        world.despawn(e);
    }
}

fn placeholder_inst() -> InstKind {
    InstKind::Fence {
        ordering: crate::ir::Ordering::SeqCst,
    }
}

/// Spawns the spare rows asked for in each slot's [`RowDemand`] at the end of the slot's
/// tables (an exclusive system: spawning needs no column borrowed).
///
/// Reads [`RowDemand`] and the row counts ([`FunctionTables`]); writes [`EntityMap`],
/// [`RowDemand`] (back to zero) and the tables (new rows: empty blocks ending in
/// `unreachable`, flagged dead; removed instructions). Establishes: each slot's tables
/// have at least `counts + demand` rows.
pub fn spawn_demanded_rows(world: &mut World) {
    let mut wanted = [(0usize, 0usize); SLOTS];
    let mut any = false;
    {
        let demands = &mut world.resource_mut::<PerSlot<RowDemand>>().0;
        for (s, demand) in demands.iter_mut().enumerate() {
            let d = std::mem::take(demand);
            if d != RowDemand::default() {
                wanted[s] = (d.blocks, d.insts);
                any = true;
            }
        }
    }
    if !any {
        return;
    }
    for (s, (blocks, insts)) in wanted.into_iter().enumerate() {
        if blocks + insts > 0 {
            let counts = world.resource::<FunctionTables>().slots[s].counts;
            spawn_spare_rows(world, s, counts.blocks + blocks, counts.insts + insts);
        }
    }
}

/// Spawns spare rows at the end of slot `slot`'s tables until they have at least
/// `want_blocks` block rows and `want_insts` instruction rows (new rows: empty blocks
/// ending in `unreachable` and placeholder instructions, flagged dead). Needs no column
/// borrowed. Used by [`spawn_demanded_rows`] and, before a batch, by `Engine::reserve_rows`.
pub fn spawn_spare_rows(world: &mut World, slot: usize, want_blocks: usize, want_insts: usize) {
    {
        let map = &world.resource::<EntityMap>().slots[slot];
        if map.blocks.len() >= want_blocks && map.insts.len() >= want_insts {
            return;
        }
    }
    let mut map = std::mem::take(&mut world.resource_mut::<EntityMap>().slots[slot]);
    if map.blocks.len() < want_blocks {
        let extra = want_blocks - map.blocks.len();
        spawn_in_slot(
            world,
            slot,
            (0..extra).map(|_| {
                (
                    BlockInsts::default(),
                    BlockParams::default(),
                    BlockTerm(Terminator::Unreachable),
                    BlockDead(true),
                    ImmediateDominator::NONE,
                    crate::placement::columns::PlacementRow::EMPTY,
                )
            }),
            &mut map.blocks,
        );
    }
    if map.insts.len() < want_insts {
        let extra = want_insts - map.insts.len();
        spawn_in_slot(
            world,
            slot,
            (0..extra).map(|_| {
                (
                    InstOp(placeholder_inst()),
                    InstResults::default(),
                    InstBlock(Block(0)),
                    InstDead(true),
                )
            }),
            &mut map.insts,
        );
    }
    world.resource_mut::<EntityMap>().slots[slot] = map;
}

/// Asserts that each entity kind is one dense table per slot whose row `i` is the entity
/// pooled for dense index `i` of that slot (DESIGN.md 2, rule 4, with one table per kind
/// and function slot). Run after every stage in debug builds and by the soak test. Panics
/// with a description of the first violation.
pub fn check_dense(world: &mut World) {
    let map = world.remove_resource::<EntityMap>().unwrap_or_default();
    let inst_rows = rows_by_slot::<InstOp>(world, "instruction");
    let block_rows = rows_by_slot::<BlockTerm>(world, "block");
    let tables = world.resource::<FunctionTables>();
    for s in 0..SLOTS {
        assert_eq!(
            inst_rows[s], map.slots[s].insts,
            "instruction rows of slot {s} are not in dense-index order"
        );
        assert_eq!(
            block_rows[s], map.slots[s].blocks,
            "block rows of slot {s} are not in dense-index order"
        );
        let counts = tables.slots[s].counts;
        assert!(
            counts.insts <= map.slots[s].insts.len() && counts.blocks <= map.slots[s].blocks.len()
        );
    }
    world.insert_resource(map);
}

/// The entities of each slot's table of the kind that has component `C`, in row order
/// (for [`check_dense`]). Panics if a table mixes slots or a slot spans two tables.
fn rows_by_slot<C: Component>(world: &mut World, what: &str) -> Vec<Vec<Entity>> {
    let mut query = world.query::<(Entity, &C, &SlotOf)>();
    let mut rows: Vec<Vec<Entity>> = vec![Vec::new(); SLOTS];
    for (e, _, slot) in query
        .contiguous_iter(world)
        .unwrap_or_else(|_| panic!("{what} table is not dense"))
    {
        let s = slot[0].0 as usize;
        assert!(
            slot.iter().all(|x| x.0 as usize == s),
            "{what} table mixes slots"
        );
        assert!(
            rows[s].is_empty(),
            "{what} rows of slot {s} span two tables"
        );
        rows[s] = e.to_vec();
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, FunctionBuilder, Inst, IrMut, IrRead, Type};

    /// A system creates an instruction in a spare row; the function comes back with it and
    /// the tables stay dense.
    #[test]
    fn spare_rows_round_trip() {
        let mut world = World::new();
        init_resources(&mut world);
        let mut b = FunctionBuilder::new("f", Default::default());
        let one = b.iconst(Type::I32, 1);
        b.binary(BinaryOp::Add, Type::I32, one, one);
        b.ret(None);
        let f = b.finish();
        let symbols = Arc::new(SymbolTable::default());
        world.resource_scope(|world, mut l: Mut<FunctionLoader>| {
            l.load(world, 0, f.clone(), &symbols)
        });
        world.resource_mut::<PerSlot<RowDemand>>()[0].insts = 1;
        let mut schedule = Schedule::default();
        schedule.add_systems(
            (spawn_demanded_rows, |mut ir: IrMut| {
                let mut body = ir.body();
                let kind = body.kinds[0].clone();
                let i = body.push_inst(kind, Default::default(), Block(0));
                body.block_insts[0].push(i);
                assert_eq!(body.num_insts(), 2);
            })
                .chain(),
        );
        schedule.run(&mut world);
        check_dense(&mut world);
        let back = world.resource_scope(|world, mut l: Mut<FunctionLoader>| l.take(world, 0));
        assert_eq!(back.blocks[0].insts, vec![Inst(0), Inst(1)]);
        assert_eq!(back.insts[0], f.insts[0]);
        assert_eq!(back.insts.len(), 2);
    }
}

//! Live ranges as entities in the World, built by one reverse scan (Ion design,
//! "Live-range Construction").
//!
//! What: a live range is an entity of the live-range table; its data are component columns
//! ([`RangeSpan`], [`RangeVReg`], [`RangeBundle`], [`RangeUses`], [`RangeFlags`]), each
//! `#[repr(transparent)]` over its row type, one table, row `i` = range index `i`, read and
//! written as plain slices ([`RangeRows`]) through a cached [`SystemState`] (DESIGN.md 2,
//! rules 4, 5, 9). Bundles are the second table ([`super::bundles`]). Per-vreg range lists,
//! physical-register ranges, blockparam in/out vectors and fixups are side tables in the
//! [`RangeSide`] resource (rule 8). Rows are pooled: [`RangeStore::reserve`] spawns only rows
//! beyond the largest function so far (one `spawn_batch`), so rows never move; [`RangeCounts`]
//! says how many are in use.
//!
//! Algorithm ([`build_ranges`]): liveness first ([`super::liveness`]); the number of ranges
//! is at most `defs + block parameters + sum |livein(b) - liveout(block before b)|` (a range starts
//! at a def, or at a block start its vreg is live into and not live out of the block laid out
//! before, which the scan would extend), so the rows are reserved before the scan. Then one scan
//! over blocks and instructions in reverse: vregs live out of a block get a range over the whole
//! block (extending the range of the next block when it starts exactly there, so ranges come out
//! coalesced and in order); per instruction, clobbers become single-point ranges (the
//! "after" point) on their physical registers; operands are visited at their effective
//! point, after then before, defs before uses at one point: a def trims its range to start
//! there (a dead def's range reaches the next instruction, so an early def stays apart from
//! the late defs), a use opens a range from the block start when the vreg is not live below
//! it. Effective points: on an instruction with a reused input, every use of another vreg is
//! moved to the "after" point (a branch's operands are not moved: a branch with one successor reads
//! no register, as regalloc2 requires). An early use fixed to a register the instruction
//! clobbers or defines late, of a vreg live below it, becomes an `Any` use plus a fixup
//! copying it into the register, reserved at the early point. Of several uses of
//! one vreg fixed to different registers at one point, the first stays and the others are
//! recorded as multi-fixed-register fixups (a copy the move phase inserts) with their
//! registers reserved at that point. Block parameters are defs at the block start; every
//! (parameter, predecessor) gives a blockparam "in", every branch argument a blockparam
//! "out"; both vectors are sorted at the end. Branch arguments live to the branch's after
//! point; on a back edge (to a depth-first ancestor) each is also an `Any` use there without an
//! operand slot (a ghost use), weighting loop-carried values. Range use lists are built in reverse
//! and reversed once: only the lists that reached two entries, which the scan records as they do
//! (no pass over every row). The per-vreg range lists are one flat array ([`VregRanges`]), built
//! after the scan by a counting sort of the rows on their vreg; during the scan only each vreg's
//! newest range is kept.
//!
//! A use is packed as its operand (8 bytes), point and a word with the operand slot (low 8
//! bits) and weight (high 16 bits). Weights: 4 x 4^min(loop depth, 6), plus 2 for a def
//! and 3 for a fixed-register constraint; loop depth is the number of natural loops
//! containing the block, one loop per header of back edges (edges to a block on the
//! depth-first stack), from a loop nesting forest ([`loop_depths`], near-linear).
//!
//! Invariants ([`check_ranges`], run after every build in debug builds, and in tests): ranges of
//! one vreg are sorted and disjoint; every use lies inside its range; the vregs live at each block
//! start after the scan are exactly `livein`.
//!
//! Complexity: liveness (read as sorted per-block lists, [`liveness::LiveLists`]), then
//! O(instructions + operands + sum |liveout|) for the scan, whose live set is a vector of
//! generation marks (starting a block is O(1), never O(vregs)), near-linear loop depths and
//! O(n log n) for the blockparam sorts; nothing is O(blocks x vregs), so 50,000 blockparam
//! flows into one block cost about 10x 5,000 (`fan_in` bench).

use super::handles::{BundleIndex, LiveRangeIndex};
use super::liveness::{self, LiveLists};
use super::location::{PReg, RegClass};
use super::point::{CodeRange, ProgPoint};
use super::violation;
use crate::machine::{
    MBlock, MInst, MachineRead, Operand, OperandConstraint, OperandKind, OperandPos, VReg,
};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemState;
use smallvec::SmallVec;

mod loops;
mod scan;

pub use loops::{loop_depths, loop_depths_into, LoopScratch};
use scan::scan;

/// A use of a vreg in a live range: the operand, its effective point, slot and weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    /// The operand word, copied.
    pub operand: Operand,
    /// The effective program point.
    pub point: ProgPoint,
    /// Operand slot (low 8 bits; 255 for a ghost use with no slot) and weight (high 16).
    pub slot_weight: u32,
}

impl Use {
    /// Slot value of a use that comes from no operand.
    pub const NO_SLOT: u8 = u8::MAX;
    /// A use at `point` of operand slot `slot` with weight `weight`.
    pub fn new(operand: Operand, point: ProgPoint, slot: u8, weight: u16) -> Use {
        Use {
            operand,
            point,
            slot_weight: slot as u32 | (weight as u32) << 16,
        }
    }
    /// The operand slot.
    pub fn slot(self) -> u8 {
        self.slot_weight as u8
    }
    /// The weight.
    pub fn weight(self) -> u16 {
        (self.slot_weight >> 16) as u16
    }
}

/// A range's extent (column of live-range entities).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct RangeSpan(pub CodeRange);

/// The vreg whose value the range carries.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct RangeVReg(pub VReg);

impl Default for RangeVReg {
    fn default() -> Self {
        RangeVReg(VReg::new(0, RegClass::Int).expect("index 0"))
    }
}

/// The bundle holding the range.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct RangeBundle(pub BundleIndex);

/// The range's uses, sorted by point.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct RangeUses(pub SmallVec<[Use; 2]>);

/// Range flags ([`RangeFlags::STARTS_AT_DEF`]).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct RangeFlags(pub u8);

impl RangeFlags {
    /// The range starts at a def (an operand def or a block parameter): it consumes no
    /// value at its start.
    pub const STARTS_AT_DEF: u8 = 1;
}

/// One entry of a range list: the range's extent (copied, so overlap tests need no lookup)
/// and its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RangeEntry {
    /// The extent.
    pub range: CodeRange,
    /// The range (row of the live-range table).
    pub index: LiveRangeIndex,
}

/// A recorded multi-fixed-register fixup: operand `to_slot` of the instruction at `point`
/// reads `vreg` in `to_reg`, served by a copy from where operand `from_slot` gets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiFixedFixup {
    /// The point of the uses.
    pub point: ProgPoint,
    /// The slot that keeps the vreg.
    pub from_slot: u8,
    /// The decoupled slot.
    pub to_slot: u8,
    /// The register the decoupled slot needs.
    pub to_reg: PReg,
    /// The vreg.
    pub vreg: VReg,
}

/// Side tables of live-range construction (DESIGN.md 2, rule 8: cleared, never dropped).
#[derive(Resource, Default, Debug)]
pub struct RangeSide {
    /// `vreg_ranges[v]`: ranges of vreg `v`, sorted by start, for `v` below the function's
    /// vreg count (one flat array, [`VregRanges`]).
    pub vreg_ranges: VregRanges,
    /// `preg_ranges[r.dense_index()]`: points where register `r` is taken (clobbers,
    /// fixed non-allocatable operands, decoupled multi-fixed uses), sorted.
    pub preg_ranges: Vec<Vec<CodeRange>>,
    /// (parameter vreg, block, predecessor), sorted.
    pub blockparam_ins: Vec<(VReg, MBlock, MBlock)>,
    /// (argument vreg, block, successor, parameter vreg), sorted.
    pub blockparam_outs: Vec<(VReg, MBlock, MBlock, VReg)>,
    /// Multi-fixed-register fixups in scan order.
    pub multi_fixed: Vec<MultiFixedFixup>,
    /// `loop_depth[b]`.
    pub loop_depth: Vec<u32>,
    /// Liveness of the function.
    pub liveness: LiveLists,
    /// Working storage of [`loop_depths_into`], reused between functions.
    pub loops: LoopScratch,
    /// Whether the scan may exchange the inputs of a commutative two-address instruction
    /// (see `scan`'s `commute_inputs`); only a caller that then writes the exchange into
    /// the function sets it (the pipeline, whose `commute_inputs` system follows the scan).
    pub commute: bool,
    /// The instructions whose first two inputs the scan exchanged, in scan order (for the
    /// caller to exchange in the function before the later phases read it).
    pub commuted: Vec<crate::machine::MInst>,
    /// Working storage of the scan, reused between functions.
    scan: ScanScratch,
}

/// Working storage of the reverse scan (cleared, never dropped: a warm context allocates
/// nothing).
#[derive(Default, Debug)]
struct ScanScratch {
    /// `classes[v]`: vreg `v` with its class, when mentioned.
    classes: Vec<Option<VReg>>,
    /// `cur[v]`: the range of `v` being extended backwards.
    cur: Vec<LiveRangeIndex>,
    /// Live-set generation marks.
    mark: Vec<u32>,
    /// Operand order of one instruction: (operand index, effective point).
    at: Vec<(usize, ProgPoint)>,
    /// Rows whose use list reached two entries during the scan (the lists to reverse).
    multi_use_rows: Vec<u32>,
}

/// The ranges of every vreg as one flat array: `entries[start[v]..start[v + 1]]` are the
/// ranges of vreg `v`, sorted by start; indexing (`vreg_ranges[v]`) gives that slice.
///
/// Built after the scan by a counting sort of the live-range rows on their vreg
/// ([`VregRanges::rebuild`]): the scan keeps only each vreg's newest range, and a vector
/// of entries per vreg (a small-vector header of 56 bytes for every vreg, most of them
/// empty in sparsely numbered drop-in functions) cost a cache miss wherever a pass over
/// the vregs touched it. O(ranges + vregs) time, 12 bytes per range and 4 per vreg.
#[derive(Default, Debug)]
pub struct VregRanges {
    /// Entries of all vregs, grouped by vreg, each group sorted by start.
    entries: Vec<RangeEntry>,
    /// `start[v]`: the first entry of vreg `v`; `start[vregs]` = `entries.len()`.
    start: Vec<u32>,
}

impl VregRanges {
    /// Vregs listed (the function's vreg count; 0 before the first build).
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Whether no vreg is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The range lists of vregs `0..len()`, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[RangeEntry]> + '_ {
        self.start
            .windows(2)
            .map(|w| &self.entries[w[0] as usize..w[1] as usize])
    }

    /// Lists the rows `0..spans.len()` (spans and vregs of the live-range table) by vreg, for
    /// vregs `0..vregs`: a counting sort, rows of one vreg taken from the last to the first
    /// (the reverse scan makes a vreg's ranges in decreasing order of start).
    pub fn rebuild(&mut self, spans: &[CodeRange], range_vregs: &[VReg], vregs: usize) {
        let start = &mut self.start;
        start.clear();
        start.resize(vregs + 1, 0);
        for v in range_vregs {
            start[v.index() + 1] += 1;
        }
        for v in 1..start.len() {
            start[v] += start[v - 1];
        }
        // `start[v]` serves as vreg v's cursor, ending at the start of v + 1 ...
        self.entries.clear();
        self.entries.resize(
            spans.len(),
            RangeEntry {
                range: CodeRange::default(),
                index: LiveRangeIndex::NONE,
            },
        );
        for (k, (&range, v)) in spans.iter().zip(range_vregs).enumerate().rev() {
            let at = &mut start[v.index()];
            self.entries[*at as usize] = RangeEntry {
                range,
                index: LiveRangeIndex::new(k),
            };
            *at += 1;
        }
        // ... so shifting by one gives the starts back.
        for v in (1..start.len()).rev() {
            start[v] = start[v - 1];
        }
        start[0] = 0;
    }
}

impl std::ops::Index<usize> for VregRanges {
    type Output = [RangeEntry];

    /// The ranges of vreg `v`, sorted by start. Panics for `v` at or beyond [`Self::len`].
    #[inline]
    fn index(&self, v: usize) -> &[RangeEntry] {
        &self.entries[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// Rows in use in the live-range and bundle tables.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeCounts {
    /// Live-range rows in use.
    pub ranges: usize,
    /// Bundle rows in use.
    pub bundles: usize,
    /// Spill-set rows in use.
    pub sets: usize,
}

/// The live-range columns, mutable.
pub type RangeColumnsMut = (
    &'static mut RangeSpan,
    &'static mut RangeVReg,
    &'static mut RangeBundle,
    &'static mut RangeUses,
    &'static mut RangeFlags,
);

/// The live-range columns as row slices (index = range index).
pub struct RangeRows<'a> {
    /// `spans[r]`.
    pub spans: &'a mut [CodeRange],
    /// `vregs[r]`.
    pub vregs: &'a mut [VReg],
    /// `bundles[r]`.
    pub bundles: &'a mut [BundleIndex],
    /// `uses[r]`.
    pub uses: &'a mut [SmallVec<[Use; 2]>],
    /// `flags[r]`.
    pub flags: &'a mut [u8],
}

/// Reinterprets a column of `#[repr(transparent)]` components as its rows.
///
/// # Safety
/// `C` must be `#[repr(transparent)]` over `T`.
pub(crate) unsafe fn rows_mut<C, T>(column: &mut [C]) -> &mut [T] {
    debug_assert_eq!(std::mem::size_of::<C>(), std::mem::size_of::<T>());
    // SAFETY: same layout (repr(transparent)), same length, the borrow is carried over.
    unsafe { std::slice::from_raw_parts_mut(column.as_mut_ptr().cast::<T>(), column.len()) }
}

/// The live-range table's slices from a contiguous query (empty before the first reserve).
pub fn range_rows<'a>(q: &'a mut Query<'_, '_, RangeColumnsMut>) -> RangeRows<'a> {
    use bevy_ecs::change_detection::ContiguousMut;
    let mut it = q
        .contiguous_iter_mut()
        .unwrap_or_else(|e| panic!("live-range columns are not dense: {e:?}"));
    let Some((a, b, c, d, e)) = it.next() else {
        return RangeRows {
            spans: &mut [],
            vregs: &mut [],
            bundles: &mut [],
            uses: &mut [],
            flags: &mut [],
        };
    };
    debug_assert!(it.next().is_none(), "live ranges span more than one table");
    // SAFETY: every range component is repr(transparent) over its row type.
    unsafe {
        RangeRows {
            spans: rows_mut(ContiguousMut::bypass_change_detection_split(a).0),
            vregs: rows_mut(ContiguousMut::bypass_change_detection_split(b).0),
            bundles: rows_mut(ContiguousMut::bypass_change_detection_split(c).0),
            uses: rows_mut(ContiguousMut::bypass_change_detection_split(d).0),
            flags: rows_mut(ContiguousMut::bypass_change_detection_split(e).0),
        }
    }
}

/// The World side of live ranges and bundles: pooled rows and the cached system states
/// through which the phases see the columns. One per World (like the engine's loader).
pub struct RangeStore {
    range_rows: Vec<Entity>,
    bundle_rows: Vec<Entity>,
    set_rows: Vec<Entity>,
    /// Cached access for bundle phases.
    pub(crate) bundles: SystemState<super::bundles::BundleTables<'static, 'static>>,
}

impl RangeStore {
    /// Inserts the side-table resources into `world` and caches the system states.
    pub fn new(world: &mut World) -> RangeStore {
        world.init_resource::<RangeSide>();
        world.init_resource::<RangeCounts>();
        world.init_resource::<super::bundles::BundleSide>();
        RangeStore {
            range_rows: Vec::new(),
            bundle_rows: Vec::new(),
            set_rows: Vec::new(),
            bundles: SystemState::new(world),
        }
    }

    /// Makes sure the tables hold at least `ranges` live-range rows and `bundles` bundle
    /// rows, spawning only the missing rows, at the end (rows never move).
    pub fn reserve(&mut self, world: &mut World, ranges: usize, bundles: usize) {
        if ranges > self.range_rows.len() {
            let extra = ranges - self.range_rows.len();
            self.range_rows
                .extend(world.spawn_batch((0..extra).map(|_| {
                    (
                        RangeSpan::default(),
                        RangeVReg::default(),
                        RangeBundle::default(),
                        RangeUses::default(),
                        RangeFlags::default(),
                    )
                })));
        }
        if bundles > self.bundle_rows.len() {
            let extra = bundles - self.bundle_rows.len();
            self.bundle_rows
                .extend(world.spawn_batch((0..extra).map(|_| super::bundles::bundle_row())));
        }
    }

    /// Makes sure the spill-set table holds at least `sets` rows (merging makes at most one
    /// per vreg), spawning only the missing ones, at the end.
    pub fn reserve_sets(&mut self, world: &mut World, sets: usize) {
        if sets > self.set_rows.len() {
            let extra = sets - self.set_rows.len();
            self.set_rows.extend(world.spawn_batch((0..extra).map(|_| {
                (
                    super::bundles::SpillSet::default(),
                    super::bundles::SpillSetState::default(),
                )
            })));
        }
    }

    /// Whether the pool already holds `ranges` live-range rows and `bundles` bundle and
    /// spill-set rows ([`reserve`](Self::reserve) and [`reserve_sets`](Self::reserve_sets)
    /// with these would spawn nothing).
    pub fn covers(&self, ranges: usize, bundles: usize) -> bool {
        ranges <= self.range_rows.len()
            && bundles <= self.bundle_rows.len()
            && bundles <= self.set_rows.len()
    }

    /// Live-range and bundle rows the tables hold (in use or spare).
    pub fn rows(&self) -> (usize, usize) {
        (self.range_rows.len(), self.bundle_rows.len())
    }
}

/// The weight of a use at loop depth `depth`.
pub fn use_weight(op: &Operand, depth: u32) -> u16 {
    // Scaled to distinguish depths up to 6 within 16 bits (4 x 4^6 + 5 < 2^16): with a cap
    // at 5, values of depth-6 loops weighed no more than those of the loop around them.
    let mut w = 4u32 << (2 * depth.min(6));
    if op.kind == OperandKind::Def {
        w += 2;
    }
    if matches!(op.constraint, OperandConstraint::FixedReg(_)) {
        w += 3;
    }
    w.min(u16::MAX as u32) as u16
}

/// Builds the live ranges of `f` into the World's live-range table (see the module doc):
/// [`compute_liveness`], rows reserved for its bound, then [`build_live_ranges`].
/// Columns written: every live-range column; resources: [`RangeSide`], [`RangeCounts`].
pub fn build_ranges<F: MachineRead + ?Sized>(f: &F, world: &mut World, store: &mut RangeStore) {
    let bound = {
        let mut t = store
            .bundles
            .get_mut(world)
            .expect("range resources are inserted by RangeStore::new");
        compute_liveness(f, &mut t)
    };
    store.reserve(world, bound, 0);
    let mut t = store
        .bundles
        .get_mut(world)
        .expect("range resources are inserted by RangeStore::new");
    build_live_ranges(f, &mut t);
}

/// The `compute_liveness` phase: exact live-in/live-out lists of `f` into
/// [`RangeSide::liveness`]; returns the number of live-range rows the scan can need
/// (`range_bound`: defs, block parameters, and live-ins not extended from the block laid out
/// before), which the caller reserves before [`build_live_ranges`].
pub fn compute_liveness<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut super::bundles::BundleTables<'_, '_>,
) -> usize {
    let (_, _, side, _, _) = t.parts();
    liveness::compute_lists_into(f, &mut side.liveness);
    range_bound(f, &side.liveness)
}

/// The number of live ranges the scan can make: a range starts at a def (an operand def or
/// a block parameter), or at the start of a block `b` its vreg is live into; of the latter,
/// those whose vreg is also live out of the block laid out just before `b` (ending where
/// `b` starts) are not new: the scan extends that block's range over them. So the bound is
/// defs + block parameters + the sum over blocks of |livein(b) - liveout(previous block)|,
/// where `sum |livein(b)|` counted a value live across k consecutive blocks k times (on
/// bzip2.O2 it reserved several times the rows the scan made, and every row reserved is a
/// spawned entity). O(instructions + operands + sum |livein| + sum |liveout|).
fn range_bound<F: MachineRead + ?Sized>(f: &F, lists: &LiveLists) -> usize {
    let mut bound = 0;
    let mut prev: Option<(usize, MInst)> = None;
    for b in f.blocks() {
        let insts = f.block_insts(b);
        let ins = lists.livein(b.index());
        bound += ins.len();
        if let Some((p, _)) = prev.filter(|&(_, end)| end == insts.start) {
            // Both lists are increasing: count the common vregs by one merge.
            let outs = lists.liveout(p);
            let (mut i, mut o) = (0, 0);
            while i < ins.len() && o < outs.len() {
                match ins[i].cmp(&outs[o]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => o += 1,
                    std::cmp::Ordering::Equal => {
                        bound -= 1;
                        i += 1;
                        o += 1;
                    }
                }
            }
        }
        prev = Some((b.index(), insts.end));
        bound += f.block_params(b).len();
        for i in f.block_insts(b) {
            bound += f
                .inst_operands(i)
                .iter()
                .filter(|o| o.kind == OperandKind::Def)
                .count();
        }
    }
    bound
}

/// The `build_live_ranges` phase: the reverse scan over `f` (liveness computed, rows
/// reserved). Reads [`RangeSide::liveness`]; writes every live-range column, the other
/// [`RangeSide`] tables and [`RangeCounts::ranges`].
pub fn build_live_ranges<F: MachineRead + ?Sized>(
    f: &F,
    t: &mut super::bundles::BundleTables<'_, '_>,
) {
    let (rows, _, side, _, counts) = t.parts();
    let n = scan(f, rows, side);
    counts.ranges = n;
    if cfg!(debug_assertions) {
        let (rows, _, side, _, _) = t.parts();
        if let Err(e) = check_ranges(&rows.spans[..n], &rows.uses[..n], side) {
            panic!("live-range invariant broken: {e}");
        }
    }
}

/// Checks the live-range invariants (module doc); the first violation as text.
pub fn check_ranges(
    spans: &[CodeRange],
    uses: &[SmallVec<[Use; 2]>],
    side: &RangeSide,
) -> Result<(), super::InvariantViolation> {
    for (v, list) in side.vreg_ranges.iter().enumerate() {
        for w in list.windows(2) {
            if w[0].range.to > w[1].range.from {
                return Err(violation!(
                    "vreg {v}: ranges {} and {} overlap or are unsorted",
                    w[0].range,
                    w[1].range
                ));
            }
        }
        for e in list {
            if spans[e.index.index()] != e.range {
                return Err(violation!(
                    "vreg {v}: entry {} differs from range {}",
                    e.range,
                    spans[e.index.index()]
                ));
            }
            for u in &uses[e.index.index()] {
                if !e.range.contains(u.point) {
                    return Err(violation!(
                        "vreg {v}: use at {} outside range {}",
                        u.point,
                        e.range
                    ));
                }
            }
        }
    }
    Ok(())
}

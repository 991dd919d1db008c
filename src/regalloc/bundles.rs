//! Bundles as entities in the World: one per vreg, merged, with spill sets, properties and
//! the allocation queue (Ion design, "Bundle Merging", "Properties: Weight, Priority, and
//! Requirements", "Spillsets and Spillslots", "Allocation Queue").
//!
//! What: a bundle is an entity of the bundle table; its data are the component columns
//! [`BundleRanges`] (entries of its ranges, sorted), [`BundleSpillSet`], [`BundleProps`],
//! [`BundleRequirement`] and [`BundleAlloc`], seen as slices like the live-range columns
//! ([`super::ranges`]). [`merge_bundles`] starts with bundle `v` = the ranges of vreg `v`,
//! then tries to merge across every reused-input pair (def with its reused use) and every
//! blockparam flow (argument with parameter), in that order. Two bundles merge when their
//! classes agree, their ranges do not overlap, and their requirements do not conflict: a
//! coarse check first (the fixed/stack flags: with neither, only `Any` requirements meet and
//! nothing can conflict), then the exact meet of the cached requirements
//! ([`super::requirement`]), each bundle's requirement having been folded from its uses by
//! the lattice meet ([`Requirement::meet`]). The smaller bundle goes into the larger.
//!
//! Near-linear merging (regalloc2's issue 203 was quadratic when 50,000 blockparam flows
//! joined one bundle): append-then-sort on every merge costs O(size of the big bundle) per
//! merge. Here a bundle's entry vector is a concatenation of sorted runs whose lengths
//! decrease geometrically (run lengths are a side table during merging): the overlap test
//! binary-searches each of the small bundle's ranges in each run of the big one
//! (O(m log^2 n)); a merge appends the small bundle's entries, sorted, as a new run, then
//! merges trailing runs while the previous run is at most twice as long (Rust's sort merges
//! two sorted runs in linear time), so each entry is re-sorted O(log n) times. After merging,
//! each bundle is sorted once. The 50,000-flow shape is a criterion bench.
//!
//! After merging: spill sets are assigned one per non-empty bundle, as entities of the
//! spill-set table ([`SpillSet`], [`SpillSetState`]: the set's class and slot size, and
//! what allocation decides for it; a slot is held only where it holds the set's value,
//! which `ion::spill::allocate_spill_slots` works out from its bundles on the stack); the
//! flags FIXED (a fixed-register use) and STACK (a stack use) gathered while merging stay,
//! and every non-empty bundle is listed for the allocation queue. Priority, spill weight and
//! the MINIMAL flag are the queue phase's (`ion::process::prepare`, which computes them
//! from the final ranges once: a pass here too would read every use twice; the spill weight
//! of a set of rematerializable values is halved there, `ion::REMAT_WEIGHT_FACTOR`).
//!
//! Invariants ([`check_bundles`], run after every merge in debug builds, and in tests):
//! bundle range vectors sorted and disjoint, their entries equal to the ranges' spans; every
//! range's bundle lists it; every non-empty bundle has a spill set. By construction (not
//! checked), no bundle's requirement is `Conflict` unless one of its vregs alone conflicts.
//!
//! Complexity: O(N log^2 N) for N ranges in the worst case; O(N) in the common case of
//! one-run bundles.

use super::handles::{BundleIndex, SpillSetIndex};
use super::location::{Allocation, RegClass};
use super::ranges::{
    range_rows, rows_mut, RangeColumnsMut, RangeCounts, RangeEntry, RangeRows, RangeSide,
    RangeStore, Use,
};
use super::requirement::Requirement;
use super::violation;
use crate::machine::{MachineRead, OperandConstraint, OperandKind};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use smallvec::SmallVec;

/// The bundle's ranges (column of bundle entities), sorted by start after merging.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct BundleRanges(pub SmallVec<[RangeEntry; 4]>);

/// The bundle's spill set ([`SpillSetIndex::NONE`] for none).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct BundleSpillSet(pub SpillSetIndex);

impl Default for BundleSpillSet {
    fn default() -> Self {
        BundleSpillSet(SpillSetIndex::NONE)
    }
}

/// Cached bundle properties.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct BundleProps {
    /// Sum of range lengths, in instructions.
    pub priority: u32,
    /// Sum of use weights divided by the priority.
    pub spill_weight: f32,
    /// [`BundleProps::MINIMAL`], [`BundleProps::FIXED`], [`BundleProps::STACK`].
    pub flags: u8,
}

impl BundleProps {
    /// Every range lies within one instruction.
    pub const MINIMAL: u8 = 1;
    /// Some use has a fixed-register constraint.
    pub const FIXED: u8 = 2;
    /// Some use has a stack constraint.
    pub const STACK: u8 = 4;
}

/// The meet of the requirements of the bundle's uses.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct BundleRequirement(pub Requirement);

impl Default for BundleRequirement {
    fn default() -> Self {
        BundleRequirement(Requirement::Unknown)
    }
}

/// The bundle's allocation (none until part 2's allocation loop assigns one).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct BundleAlloc(pub Allocation);

/// A fresh bundle row.
pub(crate) fn bundle_row() -> (
    BundleRanges,
    BundleSpillSet,
    BundleProps,
    BundleRequirement,
    BundleAlloc,
) {
    Default::default()
}

/// The bundle columns, mutable.
pub type BundleColumnsMut = (
    &'static mut BundleRanges,
    &'static mut BundleSpillSet,
    &'static mut BundleProps,
    &'static mut BundleRequirement,
    &'static mut BundleAlloc,
);

/// A spill set (column of spill-set entities, row = spill-set index): the bundles that came
/// from one merged bundle share it when the allocator splits them.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillSet {
    /// The register class of its values.
    pub class: RegClass,
    /// The bundle it was created for.
    pub bundle: BundleIndex,
    /// Slots a value takes.
    pub slots: u8,
}

impl Default for SpillSet {
    fn default() -> Self {
        SpillSet {
            class: RegClass::Int,
            bundle: BundleIndex::NONE,
            slots: 1,
        }
    }
}

/// What allocation decided for a spill set (column of spill-set entities).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillSetState {
    /// Register hint: the last register a bundle of the set got without a fixed constraint.
    pub hint: Option<crate::registers::PReg>,
    /// The set's spill bundle ([`BundleIndex::NONE`] when none yet).
    pub spill_bundle: BundleIndex,
    /// Splits of the set's bundles so far.
    pub splits: u32,
    /// Some bundle of the set lives on the stack.
    pub required: bool,
    /// The assigned slot (meaningful when `required`).
    pub slot: u32,
    /// Some bundle of the set lives in no location: every one of its ranges is a
    /// rematerializable value without uses, recomputed where a piece needs it (meaningful
    /// when not `required`, which takes precedence).
    pub remat: bool,
    /// Every value of the set is rematerializable: its bundles weigh less (spilling them
    /// costs recomputations, not stores and reloads).
    pub cheap: bool,
}

impl Default for SpillSetState {
    fn default() -> Self {
        SpillSetState {
            hint: None,
            spill_bundle: BundleIndex::NONE,
            splits: 0,
            required: false,
            slot: 0,
            remat: false,
            cheap: false,
        }
    }
}

/// The spill-set columns, mutable.
pub type SpillSetColumnsMut = (&'static mut SpillSet, &'static mut SpillSetState);

/// The spill-set table's slices (index = spill-set index).
pub struct SetRows<'a> {
    /// `info[s]`.
    pub info: &'a mut [SpillSet],
    /// `state[s]`.
    pub state: &'a mut [SpillSetState],
}

/// The spill-set table's slices from a contiguous query (empty before the first reserve).
pub fn set_rows<'a>(q: &'a mut Query<'_, '_, SpillSetColumnsMut>) -> SetRows<'a> {
    use bevy_ecs::change_detection::ContiguousMut;
    let mut it = q
        .contiguous_iter_mut()
        .unwrap_or_else(|e| panic!("spill-set columns are not dense: {e:?}"));
    let Some((a, b)) = it.next() else {
        return SetRows {
            info: &mut [],
            state: &mut [],
        };
    };
    debug_assert!(it.next().is_none(), "spill sets span more than one table");
    SetRows {
        info: ContiguousMut::bypass_change_detection_split(a).0,
        state: ContiguousMut::bypass_change_detection_split(b).0,
    }
}

/// Side tables of bundle merging.
#[derive(Resource, Default, Debug)]
pub struct BundleSide {
    /// Run lengths of each bundle's entry vector during merging; empty for a bundle never
    /// merged into (its entries are one run), so only merged bundles write here.
    pub runs: Vec<SmallVec<[u32; 2]>>,
    /// The non-empty bundles after merging, in increasing order (the queue phase
    /// computes their priorities and fills the allocation queue).
    pub queue: Vec<BundleIndex>,
    /// Merges done and refused (overlap, requirement conflict, class).
    pub merges: MergeStats,
    /// Bundles whose `runs` are not empty (cleared at the next merge).
    runs_touched: Vec<u32>,
    /// The vreg count of the last merge: its bundles at and beyond it were made by
    /// splitting (see `clear_stale_bundles`).
    merged_vregs: usize,
    /// Scratch: the (vreg, vreg) pairs to try merging.
    pairs: Vec<(crate::machine::VReg, crate::machine::VReg)>,
    /// Scratch: the smaller bundle's ranges, sorted.
    small: Vec<RangeEntry>,
    /// Scratch: two sorted runs merged.
    merged: Vec<RangeEntry>,
}

/// Counters of [`merge_bundles`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// Pairs merged.
    pub merged: usize,
    /// Pairs already in one bundle.
    pub same: usize,
    /// Refused: ranges overlap.
    pub overlap: usize,
    /// Refused: requirements conflict (after the coarse check let them through).
    pub conflict: usize,
    /// Refused: classes differ.
    pub class: usize,
    /// Exact requirement checks the coarse flag check could not skip.
    pub exact_checks: usize,
}

/// Access to both tables and their side tables (the bundle phases' system parameter).
#[derive(SystemParam)]
pub struct BundleTables<'w, 's> {
    ranges: Query<'w, 's, RangeColumnsMut>,
    bundles: Query<'w, 's, BundleColumnsMut>,
    sets: Query<'w, 's, SpillSetColumnsMut>,
    range_side: ResMut<'w, RangeSide>,
    side: ResMut<'w, BundleSide>,
    counts: ResMut<'w, RangeCounts>,
}

impl<'w, 's> BundleTables<'w, 's> {
    /// All three tables as row slices and the side tables, borrowed at once.
    #[allow(clippy::type_complexity)]
    pub(crate) fn all(
        &mut self,
    ) -> (
        RangeRows<'_>,
        BundleRows<'_>,
        SetRows<'_>,
        &mut RangeSide,
        &mut BundleSide,
        &mut RangeCounts,
    ) {
        (
            range_rows(&mut self.ranges),
            bundle_rows(&mut self.bundles),
            set_rows(&mut self.sets),
            &mut self.range_side,
            &mut self.side,
            &mut self.counts,
        )
    }

    /// Both tables as row slices and the side tables, borrowed at once (the allocation
    /// phases' view).
    pub(crate) fn parts(
        &mut self,
    ) -> (
        RangeRows<'_>,
        BundleRows<'_>,
        &mut RangeSide,
        &mut BundleSide,
        &mut RangeCounts,
    ) {
        (
            range_rows(&mut self.ranges),
            bundle_rows(&mut self.bundles),
            &mut self.range_side,
            &mut self.side,
            &mut self.counts,
        )
    }
}

/// The bundle table's slices.
pub struct BundleRows<'a> {
    /// `ranges[b]`.
    pub ranges: &'a mut [SmallVec<[RangeEntry; 4]>],
    /// `spill_sets[b]`.
    pub spill_sets: &'a mut [SpillSetIndex],
    /// `props[b]`.
    pub props: &'a mut [BundleProps],
    /// `reqs[b]`.
    pub reqs: &'a mut [Requirement],
    /// `allocs[b]`.
    pub allocs: &'a mut [Allocation],
}

/// The bundle table's slices from a contiguous query (empty before the first reserve).
pub fn bundle_rows<'a>(q: &'a mut Query<'_, '_, BundleColumnsMut>) -> BundleRows<'a> {
    use bevy_ecs::change_detection::ContiguousMut;
    let mut it = q
        .contiguous_iter_mut()
        .unwrap_or_else(|e| panic!("bundle columns are not dense: {e:?}"));
    let Some((a, b, c, d, e)) = it.next() else {
        return BundleRows {
            ranges: &mut [],
            spill_sets: &mut [],
            props: &mut [],
            reqs: &mut [],
            allocs: &mut [],
        };
    };
    debug_assert!(it.next().is_none(), "bundles span more than one table");
    // SAFETY: the bundle components but `BundleProps` (used as is) are repr(transparent).
    unsafe {
        BundleRows {
            ranges: rows_mut(ContiguousMut::bypass_change_detection_split(a).0),
            spill_sets: rows_mut(ContiguousMut::bypass_change_detection_split(b).0),
            props: ContiguousMut::bypass_change_detection_split(c).0,
            reqs: rows_mut(ContiguousMut::bypass_change_detection_split(d).0),
            allocs: rows_mut(ContiguousMut::bypass_change_detection_split(e).0),
        }
    }
}

/// The requirement a use puts on its bundle.
pub fn use_requirement(u: &Use) -> Requirement {
    let class = u.operand.vreg.class();
    match u.operand.constraint {
        OperandConstraint::FixedReg(r) => Requirement::FixedReg(r),
        OperandConstraint::Stack => Requirement::Stack(class),
        _ => Requirement::Any(class),
    }
}

/// Whether some range of `small` overlaps some range of the runs of `big` (no runs: one).
fn overlaps(big: &[RangeEntry], runs: &[u32], small: &[RangeEntry]) -> bool {
    let whole = [big.len() as u32];
    let runs = if runs.is_empty() { &whole[..] } else { runs };
    let mut start = 0usize;
    for &len in runs {
        let run = &big[start..start + len as usize];
        start += len as usize;
        for x in small {
            // First range of the run ending after x starts.
            let k = run.partition_point(|e| e.range.to <= x.range.from);
            if k < run.len() && run[k].range.from < x.range.to {
                return true;
            }
        }
    }
    false
}

/// Builds, merges and queues the bundles of `f`, whose live ranges [`super::ranges::build_ranges`]
/// built (see the module doc). Columns written: every bundle column and `RangeBundle`.
pub fn merge_bundles<F: MachineRead + ?Sized>(f: &F, world: &mut World, store: &mut RangeStore) {
    store.reserve(world, 0, f.num_vregs());
    store.reserve_sets(world, f.num_vregs());
    let mut t = store
        .bundles
        .get_mut(world)
        .expect("range and bundle resources are inserted by RangeStore::new");
    merge_bundles_in(f, &mut t);
}

/// The `merge_bundles` phase on the tables ([`merge_bundles`] without the reserve: the
/// bundle and spill-set tables must hold a row per vreg). The driver of the phases: reset
/// the run lists (`reset_runs`), one bundle per vreg (`init_bundles`), the pairs to
/// try (`gather_pairs`), each pair merged or refused (`merge_pair`), then spill sets
/// and the queue (`assign_spill_sets`).
pub fn merge_bundles_in<F: MachineRead + ?Sized>(f: &F, t: &mut BundleTables<'_, '_>) {
    let nv = f.num_vregs();
    let mut rr = range_rows(&mut t.ranges);
    let mut br = bundle_rows(&mut t.bundles);
    let mut sets = set_rows(&mut t.sets);
    let side = &mut *t.side;
    let rs = &*t.range_side;
    clear_stale_bundles(side, &mut br, t.counts.bundles);
    side.merged_vregs = nv;
    t.counts.bundles = nv;
    side.merges = MergeStats::default();
    reset_runs(side, nv);
    init_bundles(rs, &mut rr, &mut br, nv);
    let mut pairs = std::mem::take(&mut side.pairs);
    let mut buffers = MergeBuffers {
        small: std::mem::take(&mut side.small),
        merged: std::mem::take(&mut side.merged),
    };
    gather_pairs(f, rs, &mut pairs);
    for &(vx, vy) in &pairs {
        merge_pair(vx, vy, nv, rs, rr.bundles, &mut br, side, &mut buffers);
    }
    t.counts.sets = assign_spill_sets(f, rs, rr.vregs, &mut br, &mut sets, side, nv);
    side.pairs = pairs;
    side.small = buffers.small;
    side.merged = buffers.merged;
    if cfg!(debug_assertions) {
        let counts = *t.counts;
        if let Err(e) = check_rows(&rr, &br, rs, counts) {
            panic!("bundle invariant broken: {e}");
        }
    }
}

/// Clears the run lists the previous function used and grows the table to `nv` bundles.
/// Grown, never shortened: a shorter function leaves the lists beyond it (and their
/// storage) for the next larger one; only those the previous function used are cleared.
fn reset_runs(side: &mut BundleSide, nv: usize) {
    for &b in &side.runs_touched {
        side.runs[b as usize].clear();
    }
    side.runs_touched.clear();
    if side.runs.len() < nv {
        side.runs.resize_with(nv, SmallVec::new);
    }
}

/// Empties the bundle rows the previous function left with ranges, so that every row is
/// empty before [`init_bundles`] (which then reads no row of a vreg without ranges). Those
/// rows are the previous merge's queue (its non-empty bundles; the others stay empty:
/// allocation gives ranges only to queued bundles and to the rows it makes by splitting)
/// and the rows from that merge's vreg count to `prev_bundles` (made by splitting). Rows
/// beyond were emptied by an earlier call or never used. O(bundles the previous function
/// used), not O(rows): in sparsely numbered drop-in functions most vregs have no range,
/// and reading every row's 56-byte list header cost a cache miss each.
fn clear_stale_bundles(side: &BundleSide, br: &mut BundleRows<'_>, prev_bundles: usize) {
    for &b in &side.queue {
        br.ranges[b.index()].clear();
    }
    for ranges in &mut br.ranges[side.merged_vregs.min(prev_bundles)..prev_bundles] {
        if !ranges.is_empty() {
            ranges.clear();
        }
    }
}

/// One bundle per vreg: bundle `v` holds the ranges of vreg `v` (each range's bundle set),
/// no allocation or spill set, the meet of its uses' requirements and the FIXED and STACK
/// flags of its uses. Every bundle row is empty on entry ([`clear_stale_bundles`]).
fn init_bundles(rs: &RangeSide, rr: &mut RangeRows<'_>, br: &mut BundleRows<'_>, nv: usize) {
    debug_assert!(
        br.ranges[..nv].iter().all(|r| r.is_empty()),
        "a bundle row left by the previous function holds ranges"
    );
    for v in 0..nv {
        let list = &rs.vreg_ranges[v];
        // Many vregs of a drop-in function have no range (regalloc2 users number vregs
        // sparsely): their (empty) bundle rows are not read.
        if !list.is_empty() {
            br.ranges[v].extend_from_slice(list);
        }
        br.allocs[v] = Allocation::None;
        br.spill_sets[v] = SpillSetIndex::NONE;
        // The meet of the uses' requirements (as `use_requirement` gives them) and the
        // FIXED and STACK flags, from one match per use: the constraint is read once.
        let mut req = Requirement::Unknown;
        let mut flags = 0;
        for e in list {
            rr.bundles[e.index.index()] = BundleIndex::new(v);
            for u in &rr.uses[e.index.index()] {
                let class = u.operand.vreg.class();
                let (own, flag) = match u.operand.constraint {
                    OperandConstraint::FixedReg(r) => {
                        (Requirement::FixedReg(r), BundleProps::FIXED)
                    }
                    OperandConstraint::Stack => (Requirement::Stack(class), BundleProps::STACK),
                    _ => (Requirement::Any(class), 0),
                };
                req = req.meet(own);
                flags |= flag;
            }
        }
        br.reqs[v] = req;
        br.props[v] = BundleProps {
            flags,
            ..BundleProps::default()
        };
    }
}

/// The (vreg, vreg) pairs to try merging, in order: every reused-input pair (def with its
/// reused use) in instruction order, then every blockparam flow (parameter with argument).
fn gather_pairs<F: MachineRead + ?Sized>(
    f: &F,
    rs: &RangeSide,
    pairs: &mut Vec<(crate::machine::VReg, crate::machine::VReg)>,
) {
    pairs.clear();
    for b in f.blocks() {
        for i in f.block_insts(b) {
            let ops = f.inst_operands(i);
            for op in ops {
                if let (OperandKind::Def, OperandConstraint::Reuse(k)) = (op.kind, op.constraint) {
                    if let Some(input) = ops.get(k as usize) {
                        pairs.push((op.vreg, input.vreg));
                    }
                }
            }
        }
    }
    pairs.extend(rs.blockparam_outs.iter().map(|&(a, _, _, p)| (p, a)));
}

/// Scratch vectors of [`merge_pair`] (taken out of [`BundleSide`] while merging).
struct MergeBuffers {
    /// The smaller bundle's ranges, sorted.
    small: Vec<RangeEntry>,
    /// Two sorted runs merged.
    merged: Vec<RangeEntry>,
}

/// Merges the bundles of vregs `vx` and `vy` when they differ, their classes agree, their
/// requirements meet and their ranges do not overlap (the smaller goes into the larger, as
/// a new sorted run; trailing runs merge while the previous one is at most twice as long);
/// counts the outcome in `side.merges`.
#[allow(clippy::too_many_arguments)]
fn merge_pair(
    vx: crate::machine::VReg,
    vy: crate::machine::VReg,
    nv: usize,
    rs: &RangeSide,
    rbundles: &mut [BundleIndex],
    br: &mut BundleRows<'_>,
    side: &mut BundleSide,
    buffers: &mut MergeBuffers,
) {
    let (x, y) = (vx.index(), vy.index());
    if x >= nv || y >= nv {
        return;
    }
    let bundle_of = |v: usize| rs.vreg_ranges[v].first().map(|e| rbundles[e.index.index()]);
    let (Some(a), Some(b)) = (bundle_of(x), bundle_of(y)) else {
        return;
    };
    let (a, b) = (a.index(), b.index());
    if a == b {
        side.merges.same += 1;
        return;
    }
    // A bundle's class is that of each of its vregs (merging never mixes classes).
    if vx.class() != vy.class() {
        side.merges.class += 1;
        return;
    }
    // Coarse check, then the exact requirement meet.
    let coarse =
        (br.props[a].flags | br.props[b].flags) & (BundleProps::FIXED | BundleProps::STACK);
    let merged_req = br.reqs[a].meet(br.reqs[b]);
    if coarse != 0 {
        side.merges.exact_checks += 1;
        if merged_req.is_conflict() {
            side.merges.conflict += 1;
            return;
        }
    }
    let (big, small) = if br.ranges[a].len() >= br.ranges[b].len() {
        (a, b)
    } else {
        (b, a)
    };
    // The small side as one sorted slice.
    let scratch = &mut buffers.small;
    scratch.clear();
    scratch.extend_from_slice(&br.ranges[small]);
    if side.runs[small].len() > 1 {
        scratch.sort_unstable();
    }
    if overlaps(&br.ranges[big], &side.runs[big], scratch) {
        side.merges.overlap += 1;
        return;
    }
    side.merges.merged += 1;
    for e in scratch.iter() {
        rbundles[e.index.index()] = BundleIndex::new(big);
    }
    br.ranges[small].clear();
    side.runs[small].clear();
    let runs = &mut side.runs[big];
    if runs.is_empty() {
        runs.push(br.ranges[big].len() as u32);
        side.runs_touched.push(big as u32);
    }
    br.ranges[big].extend_from_slice(scratch);
    runs.push(scratch.len() as u32);
    while runs.len() >= 2 && runs[runs.len() - 2] <= 2 * runs[runs.len() - 1] {
        let last = runs.pop().expect("two runs");
        let prev = runs.pop().expect("two runs");
        let total = br.ranges[big].len();
        let from = total - (last + prev) as usize;
        merge_runs(
            &mut br.ranges[big][from..],
            prev as usize,
            &mut buffers.merged,
        );
        runs.push(last + prev);
    }
    br.reqs[big] = merged_req;
    br.props[big].flags |= br.props[small].flags;
    br.reqs[small] = Requirement::Unknown;
    br.props[small] = BundleProps::default();
}

/// Sorts each merged bundle once, gives every non-empty bundle a spill set and lists it
/// for the allocation queue; returns the number of spill sets. Priority, spill weight and
/// the minimal flag are the queue phase's (`ion::process::prepare` computes them from the
/// ranges); the FIXED and STACK flags gathered while merging stay. Only bundles of vregs
/// with ranges are read: merging moves ranges only into non-empty bundles, so the others
/// are empty, with no runs and no spill set ([`init_bundles`]).
fn assign_spill_sets<F: MachineRead + ?Sized>(
    f: &F,
    rs: &RangeSide,
    vregs: &[crate::machine::VReg],
    br: &mut BundleRows<'_>,
    sets: &mut SetRows<'_>,
    side: &mut BundleSide,
    nv: usize,
) -> usize {
    let mut nsets = 0usize;
    side.queue.clear();
    for b in 0..nv {
        if rs.vreg_ranges[b].is_empty() {
            continue;
        }
        if side.runs[b].len() > 1 {
            br.ranges[b].sort_unstable();
        }
        if br.ranges[b].is_empty() {
            br.spill_sets[b] = SpillSetIndex::NONE;
            continue;
        }
        let class = rs_class(&br.ranges[b], vregs).unwrap_or(RegClass::Int);
        br.spill_sets[b] = SpillSetIndex::new(nsets);
        sets.info[nsets] = SpillSet {
            class,
            bundle: BundleIndex::new(b),
            slots: f.spill_slot_size(class).max(1) as u8,
        };
        sets.state[nsets] = SpillSetState::default();
        nsets += 1;
        side.queue.push(BundleIndex::new(b));
    }
    nsets
}

/// Sorts `list`, made of two sorted runs split at `mid`, by merging them through `buf`.
fn merge_runs(list: &mut [RangeEntry], mid: usize, buf: &mut Vec<RangeEntry>) {
    buf.clear();
    let (a, b) = list.split_at(mid);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if b[j] < a[i] {
            buf.push(b[j]);
            j += 1;
        } else {
            buf.push(a[i]);
            i += 1;
        }
    }
    buf.extend_from_slice(&a[i..]);
    buf.extend_from_slice(&b[j..]);
    list.copy_from_slice(buf);
}

fn rs_class(list: &[RangeEntry], vregs: &[crate::machine::VReg]) -> Option<RegClass> {
    list.first().map(|e| vregs[e.index.index()].class())
}

/// Checks the bundle invariants (module doc) on the World's tables; the first violation.
pub fn check_bundles(
    world: &mut World,
    store: &mut RangeStore,
) -> Result<(), super::InvariantViolation> {
    let mut t = store
        .bundles
        .get_mut(world)
        .expect("range and bundle resources are inserted by RangeStore::new");
    let counts = *t.counts;
    let rr = range_rows(&mut t.ranges);
    let br = bundle_rows(&mut t.bundles);
    check_rows(&rr, &br, &t.range_side, counts)
}

/// [`check_bundles`] on the tables' slices.
fn check_rows(
    rr: &super::ranges::RangeRows<'_>,
    br: &BundleRows<'_>,
    range_side: &RangeSide,
    counts: RangeCounts,
) -> Result<(), super::InvariantViolation> {
    super::ranges::check_ranges(
        &rr.spans[..counts.ranges],
        &rr.uses[..counts.ranges],
        range_side,
    )?;
    // Each entry names a range whose bundle is the list's (checked below) and a list has no
    // repeats (sorted and disjoint), so every range is listed exactly when the entries
    // number the ranges; which one is missing is searched only then (no allocation on the
    // way to success: this runs after every merge in debug builds).
    let mut entries = 0usize;
    for b in 0..counts.bundles {
        let list = &br.ranges[b];
        for w in list.windows(2) {
            if w[0].range.to > w[1].range.from {
                return Err(violation!(
                    "bundle {b}: ranges {} and {} overlap or are unsorted",
                    w[0].range,
                    w[1].range
                ));
            }
        }
        for e in list {
            if rr.bundles[e.index.index()] != BundleIndex::new(b) {
                return Err(violation!(
                    "bundle {b}: range {} says bundle {}",
                    e.index,
                    rr.bundles[e.index.index()]
                ));
            }
            if rr.spans[e.index.index()] != e.range {
                return Err(violation!(
                    "bundle {b}: entry {} differs from range {}",
                    e.range,
                    rr.spans[e.index.index()]
                ));
            }
            entries += 1;
        }
        if !list.is_empty() && br.spill_sets[b].index() >= counts.sets {
            return Err(violation!("bundle {b}: no spill set"));
        }
    }
    if entries != counts.ranges {
        let mut listed = vec![false; counts.ranges];
        for list in &br.ranges[..counts.bundles] {
            for e in list {
                listed[e.index.index()] = true;
            }
        }
        if let Some(r) = listed.iter().position(|&l| !l) {
            return Err(violation!("range {r} is in no bundle"));
        }
    }
    Ok(())
}

/// Statistics of the last merge.
pub fn merge_stats(world: &World) -> MergeStats {
    world.resource::<BundleSide>().merges
}

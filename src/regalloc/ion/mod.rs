//! The Ion allocation phases over the live-range and bundle tables (Ion design,
//! `../shared/seeds/004_a35bf7de693e4d8a.txt`: "Bundle Processing", "How to Split",
//! "Second-Chance Allocation", "Spillslot Allocation", "Allocation Assignment", "Move
//! Generation", "Move Resolution").
//!
//! What: [`allocate`] runs the whole allocator on one machine function: liveness and live
//! ranges ([`super::ranges`]), bundle merging ([`super::bundles`]), then the phases here:
//! - [`process`]: the allocation loop: a bundle's requirement, probing registers in the
//!   seed's order (spill-set hint, preferred, non-preferred, each from a pseudo-random
//!   offset) against per-register allocation maps ([`maps`]), and the allocate / evict /
//!   split decision;
//! - [`split`]: splitting at a program point (inside a live range too) with the loose ends
//!   trimmed into the spill set's spill bundle, and the fallback split into minimal bundles;
//! - [`demote`]: after second chance, use-free ranges at joins whose neighbours live on the
//!   stack move to their spill slot;
//! - [`groups`]: then groups of use-free ranges of one bundle that carry a value through
//!   several blocks entered from the stack move there together;
//! - [`tails`]: then use-free tails and middle stretches of register ranges whose blocks
//!   are entered from the stack move there too (kept only when they open no spill slot);
//! - [`spill`]: second-chance allocation of spilled bundles (no eviction, no split) and
//!   spill slots by size class, sets colored first fit in start order over the points where
//!   the slot holds their value;
//! - [`insert`]: per-operand allocations, moves between pieces of a vreg, across block edges
//!   and for block parameters, multi-fixed-register fixups and reused inputs, grouped by
//!   program point and move priority and resolved by the parallel-move resolver
//!   ([`super::moves`]);
//! - [`redundant`]: intra-block redundant-move elimination.
//!
//! The live ranges, bundles and spill sets are entities of the [`RangeStore`]'s World (one
//! table each, row = index; in the pipeline, the engine's World); splitting takes new rows
//! from a reserve, and the loop stops between iterations to grow the tables when the reserve
//! runs low, so slices are never held across a spawn. Per-register maps, the queue, slot
//! maps and output vectors are side tables in [`IonState`], cleared and reused between
//! functions.
//!
//! Errors: impossible constraints (more values fixed to one register at one point than
//! exist, a minimal bundle that no register can hold) and a loop past its iteration bound
//! are [`IonError`]s naming the instruction; never a panic or a hang.
//!
//! Invariants (checked in debug builds and by the fuzz check `fuzzing::ion`): no two ranges
//! in one register's map overlap; every range with a use has an allocation when moves are
//! inserted; the output satisfies the symbolic checker.
//!
//! Complexity: each iteration of the loop is O(ranges of the bundle x (log n + conflicts))
//! per probed register; termination follows the seed's argument (bundles only get smaller,
//! eviction needs strictly lower weight, minimal bundles outweigh every other), guarded by an
//! iteration bound linear in the function's size.

pub mod demote;
pub mod groups;
pub mod insert;
pub mod maps;
pub mod process;
pub mod redundant;
pub mod relocate;
pub mod spill;
pub mod split;
pub mod tails;

use super::location::{Allocation, PReg, RegClass};
use super::output::AllocOutput;
use super::point::{CodeRange, ProgPoint};
use super::ranges::{build_ranges, RangeStore};
use crate::machine::{MachineEnv, MachineRead, OperandConstraint};
use crate::regalloc::handles::{BundleIndex, SpillSetIndex};
use crate::regalloc::violation;
use bevy_ecs::world::World;
use maps::RegMap;

/// Spill weight of a minimal bundle with a fixed-register use (outweighs everything).
pub const MINIMAL_FIXED_WEIGHT: f32 = 2_000_000.0;
/// Spill weight of other minimal bundles held over both points of their instruction (one
/// held at one point weighs one less).
pub const MINIMAL_WEIGHT: f32 = 1_999_999.0;
/// Upper bound of a non-minimal bundle's spill weight.
pub const MAX_WEIGHT: f32 = 1_999_997.0;
/// Factor on the spill weight of a non-minimal bundle whose values are all
/// rematerializable: spilling it costs a recomputation where a piece needs the value instead
/// of a store and reloads, so it is evicted and split before bundles of equal use density.
/// (0.5 measured best of 0.25/0.5/0.75 on both targets' corpora: edits and spill slots down
/// on both, the loop-weighted cost down on aarch64.)
pub const REMAT_WEIGHT_FACTOR: f32 = 0.5;
/// Splits of one spill set before its bundles are split into minimal bundles at once.
pub const MAX_SPLITS_PER_SPILL_SET: u32 = 10;
/// Spill slots whose maps are searched per spill set before a new slot is opened (slots
/// whose last holder ends before the set starts are taken without a search). At 10, the
/// colouring left more slots than the largest total size of the sets live at one point in
/// many functions; 40 takes the drop-in corpus from 481 to 460 slots on bz2 and from 1,017
/// to 1,006 on rust-json, and a search of every slot saves one more on bz2 only.
pub const SLOT_PROBES: usize = 40;

/// Why an allocation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IonError {
    /// No register can hold a minimal bundle: more values need one register (or one class)
    /// at one instruction than exist.
    #[error("impossible register constraints at instruction {inst}: {what}")]
    TooManyLiveRegs {
        /// The instruction.
        inst: u32,
        /// What could not be placed.
        what: String,
    },
    /// A register class has no allocatable register but a value needs one.
    #[error("instruction {inst}: a {class} value needs a register, but the environment has none of that class")]
    NoRegisters {
        /// The instruction.
        inst: u32,
        /// The class.
        class: RegClass,
    },
    /// The allocation loop passed its iteration bound (an allocator bug, reported instead
    /// of hanging).
    #[error("allocation loop did not terminate after {iterations} iterations")]
    NoTermination {
        /// Iterations run.
        iterations: usize,
    },
    /// The parallel-move resolver refused the moves at a point.
    #[error("moves at {point}: {source}")]
    Moves {
        /// The program point.
        point: ProgPoint,
        /// The resolver's error.
        source: super::moves::MoveError,
    },
    /// A live range with uses was left without an allocation (an allocator bug).
    #[error("vreg {vreg} has no allocation over {range}")]
    Unallocated {
        /// The vreg index.
        vreg: usize,
        /// The range.
        range: CodeRange,
    },
}

/// Counters of one allocation (summed by callers over a module).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IonStats {
    /// Bundles after merging.
    pub bundles: usize,
    /// Bundles taken off the queue.
    pub processed: usize,
    /// Bundles assigned a register in the main loop.
    pub allocated: usize,
    /// Evictions.
    pub evictions: usize,
    /// Splits at a point.
    pub splits: usize,
    /// Splits into minimal bundles.
    pub minimal_splits: usize,
    /// Spill bundles created.
    pub spill_bundles: usize,
    /// Second-chance allocations that found a register.
    pub second_chance: usize,
    /// Second-chance allocations that found a register by moving its one occupant to
    /// another register ([`relocate`]).
    pub relocated: usize,
    /// Use-free join ranges moved from a register to their slot after second chance
    /// ([`demote`]).
    pub demoted: usize,
    /// Use-free tails of register ranges moved to their slot after second chance and kept
    /// by the slot check ([`tails`]).
    pub tails: usize,
    /// Use-free middle stretches of register ranges moved to their slot after second
    /// chance and kept by the slot check ([`tails`]).
    pub stretches: usize,
    /// Use-free ranges moved from a register to their slot together, as groups that carry
    /// one value through several blocks ([`groups`]).
    pub grouped: usize,
    /// Bundles left on the stack.
    pub spilled: usize,
    /// Stack ranges of spill bundles that joined a neighbouring piece's register after
    /// second chance (`spill::absorb_stack_ranges`).
    pub absorbed: usize,
    /// Spill slots (units of the smallest slot).
    pub spill_slots: usize,
    /// Moves between pieces of one vreg inside a block.
    pub moves_intra: usize,
    /// Moves on block edges (live-in values and block parameters).
    pub moves_edge: usize,
    /// Moves for reused inputs and multi-fixed uses.
    pub moves_fixup: usize,
    /// Edits emitted after resolution.
    pub edits: usize,
    /// Moves removed as redundant.
    pub redundant: usize,
    /// Rematerializations among the edits (values recomputed instead of reloaded).
    pub remats: usize,
    /// Spilled bundles that live nowhere because their values are recomputed.
    pub remat_bundles: usize,
}

/// An allocation-queue entry: priority, bundle and hint register bits (`u8::MAX` for none),
/// packed into one integer as `priority << 40 | bundle << 8 | hint`, so entries order exactly
/// as the tuple `(priority, bundle, hint)` would, with one integer comparison instead of three
/// chained ones (the heap's sift compares at every level of every pop).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct QueueEntry(u128);

impl QueueEntry {
    /// The entry of bundle `b` with `priority` and hint bits `hint`.
    #[inline]
    pub fn new(priority: u32, b: BundleIndex, hint: u8) -> Self {
        QueueEntry(((priority as u128) << 40) | ((b.0 as u128) << 8) | hint as u128)
    }

    /// The entry's bundle.
    #[inline]
    pub fn bundle(self) -> BundleIndex {
        BundleIndex((self.0 >> 8) as u32)
    }

    /// The entry's hint bits (`u8::MAX`: no hint).
    #[inline]
    pub fn hint(self) -> u8 {
        self.0 as u8
    }
}

/// Side tables of the allocation phases, cleared and reused between functions.
#[derive(Default)]
pub struct IonState {
    /// Allocation map per register (dense index).
    pub maps: Vec<RegMap>,
    /// The allocation queue: (priority, bundle, hint register bits or `u8::MAX`), packed.
    pub queue: std::collections::BinaryHeap<QueueEntry>,
    /// Bundles for second-chance allocation.
    pub spilled: Vec<BundleIndex>,
    /// `needs[b]`: the meet of bundle `b`'s uses' needs as of its last
    /// `process::Tables::recompute` (where it was queued), `Err` at the first use that
    /// conflicts; read when the allocation loop takes the bundle.
    pub(crate) needs: Vec<Result<Need, ProgPoint>>,
    /// Counters.
    pub stats: IonStats,
    /// Scratch: conflicting bundles of one probe.
    pub(crate) conflicts: Vec<BundleIndex>,
    /// Bundles of this function that second-chance relocation found no other register
    /// for ([`relocate`]); not probed again.
    pub(crate) unmovable: Vec<BundleIndex>,
    /// Scratch: the best eviction set so far.
    pub(crate) best_conflicts: Vec<BundleIndex>,
    /// Spill slots per size class, in probe order.
    pub(crate) slots: Vec<Vec<u32>>,
    /// `slot_maps[slot]`: which spill set holds the slot where (kept between functions).
    pub(crate) slot_maps: Vec<RegMap<SpillSetIndex>>,
    /// `pred_exits[pred_start[b]..pred_start[b + 1]]`: (exit point, loop depth) of each
    /// predecessor of block `b`.
    pub(crate) pred_start: Vec<u32>,
    /// See `pred_start`.
    pub(crate) pred_exits: Vec<(u32, u32)>,
    /// `slot_ends[slot]`: the end of the last point any set holds the slot over (kept
    /// between functions like `slot_maps`).
    pub(crate) slot_ends: Vec<u32>,
    /// Scratch: (set, from, to) of the points each spill set holds its slot over.
    pub(crate) slot_pieces: Vec<(u32, u32, u32)>,
    /// Scratch of [`sort_grouped`]: the items' packed keys scattered by group.
    pub(crate) sort_scratch: Vec<u64>,
    /// Scratch of [`sort_grouped`]: per group, where its items start, then end.
    pub(crate) sort_groups: Vec<u32>,
    /// Scratch: (key, set, pieces start, pieces end) in slot-assignment order.
    pub(crate) slot_order: Vec<(u32, u32, u32, u32)>,
    /// Scratch of `spill::allocate_spill_slots`: (set, slot) of each spill set as colored
    /// with this function's tail cuts, restored when the cuts stay.
    pub(crate) slots_with_cuts: Vec<(u32, u32)>,
    /// Scratch of `spill::absorb_stack_ranges` and `demote::demote_join_ranges`: (vreg,
    /// start, range) of every live range held by some bundle, sorted, with each entry's
    /// reach (`demote::ranges_by_vreg`), built once per function by whichever needs it
    /// first.
    pub(crate) by_vreg: demote::VregIndex,
    /// Scratch: the uses of a home range being rebuilt by a minimal split.
    pub(crate) home_uses: Vec<crate::regalloc::ranges::Use>,
    /// The output being built.
    pub output: AllocOutput,
    /// `block_of[i]`: block of instruction `i`.
    pub(crate) block_of: Vec<crate::machine::MBlock>,
    /// Move insertion scratch.
    pub(crate) insert: insert::InsertScratch,
    /// Scratch of the join-range demotion after second chance.
    pub(crate) demote: demote::DemoteScratch,
    /// Scratch of `groups::demote_use_free_groups`.
    pub(crate) groups: groups::GroupScratch,
    /// (range, stack range, rest range or `u32::MAX`) of each use-free tail or middle
    /// stretch `tails::demote_tails` cut off in this function, kept until spill slots
    /// decide whether the cuts stay.
    pub(crate) tail_cuts: Vec<(u32, u32, u32)>,
    /// Registers that name stack locations (regalloc2's fixed stack slots): moves between
    /// them are stack to stack. Set by the caller; empty for real targets.
    pub fixed_stack: crate::machine::PRegSet,
    /// Ignore the rematerialization hook (spill and reload every value; for comparisons).
    pub no_remat: bool,
    /// Record debug annotations (`--annotate`).
    pub annotate: bool,
    /// Debug annotations per program point: live ranges with their locations, bundle
    /// assignments, merges, splits, evictions and inserted moves.
    pub annotations: Vec<(ProgPoint, String)>,
    /// Iterations of the allocation loop so far (across growth rounds).
    pub iterations: usize,
    /// `allocatable[class]`: the class's allocatable registers (preferred or not) as bits
    /// by index, set by [`process::process_bundles`] (a hint is checked against it).
    pub(crate) allocatable: [u64; 3],
}

/// Records a debug annotation at a point when annotations are on (a macro, so the text is
/// only formatted when they are).
macro_rules! note {
    ($state:expr, $point:expr, $($fmt:tt)*) => {
        if $state.annotate {
            $state.annotations.push(($point, format!($($fmt)*)));
        }
    };
}
pub(crate) use note;

/// A reusable allocation context: a World holding the live-range and bundle tables, and the
/// side tables (`strata::regalloc::Ctx` for drop-in users).
pub struct IonContext {
    /// The World of the live-range and bundle tables.
    pub world: World,
    /// Its row store.
    pub store: RangeStore,
    /// Side tables.
    pub state: IonState,
}

impl Default for IonContext {
    fn default() -> Self {
        let mut world = World::new();
        let store = RangeStore::new(&mut world);
        IonContext {
            world,
            store,
            state: IonState::default(),
        }
    }
}

/// A use's demand on its location, in the order of the seed's requirement lattice refined
/// as regalloc2 0.15 refines it (a register requirement is distinct from "anything").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A register or a slot.
    Any,
    /// Some register of the class.
    Reg,
    /// A register whose index is below the bound.
    Limit(u8),
    /// Exactly this register.
    Fixed(PReg),
    /// A spill slot.
    Stack,
    /// Exactly this register, which names a stack location (regalloc2's fixed stack slot).
    FixedStack(PReg),
}

impl std::fmt::Display for Need {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Need::Any => f.write_str("any location"),
            Need::Reg => f.write_str("a register"),
            Need::Limit(n) => write!(f, "a register below index {n}"),
            Need::Fixed(r) => write!(f, "register {r}"),
            Need::Stack => f.write_str("a stack slot"),
            Need::FixedStack(r) => write!(f, "stack location {r}"),
        }
    }
}

impl Need {
    /// The need of an operand constraint; registers in `fixed_stack` name stack locations.
    pub fn of(c: OperandConstraint, fixed_stack: crate::machine::PRegSet) -> Need {
        match c {
            OperandConstraint::Any => Need::Any,
            OperandConstraint::Reg | OperandConstraint::Reuse(_) => Need::Reg,
            OperandConstraint::Limit(n) => Need::Limit(n),
            OperandConstraint::FixedReg(r) if fixed_stack.contains(r) => Need::FixedStack(r),
            OperandConstraint::FixedReg(r) => Need::Fixed(r),
            OperandConstraint::Stack => Need::Stack,
        }
    }

    /// The meet of two needs; `None` when no location satisfies both.
    pub fn meet(self, other: Need) -> Option<Need> {
        use Need::*;
        match (self, other) {
            (Any, x) | (x, Any) => Some(x),
            (Reg, Reg) => Some(Reg),
            (Stack, Stack) => Some(Stack),
            (Stack, FixedStack(r)) | (FixedStack(r), Stack) => Some(FixedStack(r)),
            (FixedStack(a), FixedStack(b)) if a == b => Some(FixedStack(a)),
            (Limit(a), Limit(b)) => Some(Limit(a.min(b))),
            (Limit(a), Reg) | (Reg, Limit(a)) => Some(Limit(a)),
            (Fixed(a), Fixed(b)) if a == b => Some(Fixed(a)),
            (Fixed(r), Reg) | (Reg, Fixed(r)) => Some(Fixed(r)),
            (Fixed(r), Limit(n)) | (Limit(n), Fixed(r)) if r.index() < n => Some(Fixed(r)),
            _ => None,
        }
    }

    /// Whether a register is required.
    pub fn needs_reg(self) -> bool {
        matches!(self, Need::Reg | Need::Limit(_) | Need::Fixed(_))
    }
}

/// Allocates registers for `f` under `env` with the context's tables (see the module doc);
/// the result in `ctx.state.output`. The phases run in the order the Regalloc stage chains
/// them as systems (`crate::regalloc::systems`): `compute_liveness`, `build_live_ranges`,
/// `merge_bundles`, `queue_bundles`, `process_bundles` (growing the tables between rounds),
/// `allocate_spill_bundles`, `allocate_spill_slots`, `insert_moves` (with `resolve_moves`),
/// `remove_redundant_moves`.
///
/// # Errors
/// See [`IonError`].
pub fn allocate<F: MachineRead + ?Sized>(
    f: &F,
    env: &MachineEnv,
    ctx: &mut IonContext,
) -> Result<(), IonError> {
    let IonContext {
        world,
        store,
        state,
    } = ctx;
    build_ranges(f, world, store);
    super::bundles::merge_bundles(f, world, store);
    {
        let mut t = store.bundles.get_mut(world).expect("tables");
        process::prepare(f, &mut t, state);
    }
    loop {
        let capacity = store.rows();
        let short = {
            let mut t = store.bundles.get_mut(world).expect("tables");
            process::process_bundles(f, env, &mut t, state, capacity)?
        };
        match short {
            None => break,
            Some((r, b)) => store.reserve(world, r, b),
        }
    }
    let mut t = store.bundles.get_mut(world).expect("tables");
    spill::second_chance(f, env, &mut t, state);
    spill::allocate_spill_slots(f, &mut t, state);
    insert::insert_moves(f, &mut t, state)?;
    insert::resolve_moves(f, env, state)?;
    finish(f, state);
    Ok(())
}

/// The `remove_redundant_moves` phase and the final counters.
pub fn finish<F: MachineRead + ?Sized>(f: &F, state: &mut IonState) {
    let removed = redundant::remove_redundant_moves(f, &mut state.output, &mut state.insert.values);
    state.stats.redundant = removed;
    state.stats.edits = state.output.edits.len();
    state.stats.remats = state.output.remat_count();
}

/// Convenience: allocates `f` in a fresh context and returns the output and counters.
pub fn allocate_once<F: MachineRead + ?Sized>(
    f: &F,
    env: &MachineEnv,
) -> Result<(AllocOutput, IonStats), IonError> {
    let mut ctx = IonContext::default();
    allocate(f, env, &mut ctx)?;
    Ok((std::mem::take(&mut ctx.state.output), ctx.state.stats))
}

/// First pseudo slot number standing for "recompute the value" inside move insertion and
/// resolution: `REMAT_SLOT + vreg index` (vreg indices are below 2^30); moves from it become
/// remat edits, moves into it are dropped.
pub(crate) const REMAT_SLOT: u32 = 1 << 31;

/// The vreg index a remat pseudo slot stands for, if `a` is one.
pub(crate) fn remat_of(a: Allocation) -> Option<u32> {
    match a {
        Allocation::Stack(super::location::SpillSlot(s))
            if (REMAT_SLOT..REMAT_SLOT + (1 << 30)).contains(&s) =>
        {
            Some(s - REMAT_SLOT)
        }
        _ => None,
    }
}

/// The allocation of live range `r` of `vreg` in `bundle`: its bundle's register, else its
/// spill set's slot, else (a set recomputed where needed) the remat pseudo slot of `vreg`.
pub(crate) fn range_alloc(
    bundle_alloc: &[Allocation],
    spill_sets: &[SpillSetIndex],
    sets: &[crate::regalloc::bundles::SpillSetState],
    bundle: BundleIndex,
    vreg: crate::machine::VReg,
) -> Allocation {
    match bundle_alloc[bundle.index()] {
        Allocation::None => {
            let s = spill_sets[bundle.index()];
            match sets.get(s.index()) {
                Some(set) if set.required => {
                    Allocation::Stack(super::location::SpillSlot(set.slot))
                }
                Some(set) if set.remat => {
                    Allocation::Stack(super::location::SpillSlot(REMAT_SLOT + vreg.index() as u32))
                }
                _ => Allocation::None,
            }
        }
        a => a,
    }
}

/// Checks the allocator's invariants after [`allocate`]: the entries of every register's
/// allocation map and of every spill slot's map are disjoint, and the ranges of every
/// bundle are disjoint; the first violation as text.
pub fn check_invariants(ctx: &mut IonContext) -> Result<(), crate::regalloc::InvariantViolation> {
    for (p, map) in ctx.state.maps.iter().enumerate() {
        let mut last = ProgPoint(0);
        for (r, _) in map.iter() {
            if r.from < last {
                return Err(violation!(
                    "register {p}: entry {r} overlaps the one before"
                ));
            }
            last = r.to;
        }
    }
    let mut t = ctx
        .store
        .bundles
        .get_mut(&mut ctx.world)
        .expect("range and bundle resources are inserted by RangeStore::new");
    let (_rr, br, _sets, _rs, _side, counts) = t.all();
    for b in 0..counts.bundles {
        let mut list: Vec<CodeRange> = br.ranges[b].iter().map(|e| e.range).collect();
        list.sort_unstable();
        for w in list.windows(2) {
            if w[0].overlaps(w[1]) {
                return Err(violation!(
                    "bundle {b}: ranges {} and {} overlap",
                    w[0],
                    w[1]
                ));
            }
        }
    }
    Ok(())
}

/// `starts[g]..starts[g + 1]`: where group `g` of `n` goes when `keys` (one group number,
/// below `n`, per item) are bucketed in order (a counting sort's prefix sums).
pub(super) fn segment_starts(starts: &mut Vec<u32>, n: usize, keys: impl Iterator<Item = u32>) {
    starts.clear();
    starts.resize(n + 1, 0);
    for g in keys {
        starts[g as usize + 1] += 1;
    }
    for g in 0..n {
        starts[g + 1] += starts[g];
    }
}

/// An item [`sort_grouped`] sorts: a small group number first, then the rest of the item
/// packed into a `u64` that orders as the rest does (so `(group, key)` orders exactly as the
/// item), and from which the item is rebuilt.
pub(super) trait Grouped: Copy {
    /// The group number and the packed rest.
    fn split(self) -> (u32, u64);
    /// The item of a group number and a packed rest ([`split`](Self::split)'s inverse).
    fn join(group: u32, key: u64) -> Self;
}

/// `(group, a, b)` orders as `(group, a << 32 | b)`.
impl Grouped for (u32, u32, u32) {
    #[inline]
    fn split(self) -> (u32, u64) {
        (self.0, (u64::from(self.1) << 32) | u64::from(self.2))
    }

    #[inline]
    fn join(group: u32, key: u64) -> Self {
        (group, (key >> 32) as u32, key as u32)
    }
}

/// Sorts `items` into the order `sort_unstable` gives (items that compare equal are equal,
/// so the order is the same), for items whose order starts with a small group number (a
/// spill set or a vreg): a counting sort by group (one count and one scatter pass of each
/// item's packed rest into `keys`), then each group's keys, sorted as plain integers, are
/// joined back into the items. Linear plus the per-group sorts, where one sort of all the
/// items is O(n log n) (it was most of the spill-slot phase on bzip2.O2); sorting the
/// packed integers instead of the tuples (three chained comparisons each) took a third off
/// the sort (11M instructions on bzip2.O2). `keys` and `groups` are scratch (one entry per
/// item, per group).
pub(super) fn sort_grouped<T: Grouped>(
    items: &mut [T],
    keys: &mut Vec<u64>,
    groups: &mut Vec<u32>,
) {
    let Some(n) = items.iter().map(|x| x.split().0 as usize + 1).max() else {
        return;
    };
    segment_starts(groups, n, items.iter().map(|x| x.split().0));
    keys.clear();
    keys.resize(items.len(), 0);
    for &x in items.iter() {
        let (g, key) = x.split();
        let at = &mut groups[g as usize];
        keys[*at as usize] = key;
        *at += 1;
    }
    // `groups[g]` is now where group `g` ends (and `g + 1` starts).
    let mut start = 0;
    for (g, &end) in groups[..n].iter().enumerate() {
        let end = end as usize;
        let run = &mut keys[start..end];
        if run.len() > 1 {
            run.sort_unstable();
        }
        for (item, &key) in items[start..end].iter_mut().zip(run.iter()) {
            *item = T::join(g as u32, key);
        }
        start = end;
    }
}

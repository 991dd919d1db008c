//! The allocation loop (Ion design, "Bundle Processing": requirements, the
//! no-register-required cases, allocation-map probing, and the allocate / evict / split
//! decision).
//!
//! What: [`prepare`] fills the side tables for one function (register maps with the fixed
//! reservations, spill-set state, the queue, bundle weights); [`process_bundles`] takes
//! bundles off the queue by priority until it is empty. For each bundle:
//! - its requirement is the meet of its uses' needs ([`super::Need`]); a conflict splits the
//!   bundle just before the first use that made it;
//! - `Any` (no use needs a register): into the spill set's spill bundle when there is one,
//!   else onto the second-chance list; `Stack`: stays on the stack;
//! - otherwise registers are probed in the seed's order (spill-set hint: the last register
//!   a bundle of the set got without a fixed constraint; then the queue entry's
//!   hint, preferred then non-preferred registers each from an offset of bundle index plus
//!   first instruction), gathering per register whether it is free, the conflicting bundles
//!   with their maximum spill weight, whether a reservation conflicts, and the first conflict
//!   point; a probe stops early once its cost reaches the best eviction so far;
//! - a free register is taken; otherwise the bundle is split (not minimal, and: a second
//!   attempt, no evictable register, or its weight does not exceed the cheapest eviction) at
//!   the latest first-conflict point with that register as hint, or the cheapest set is
//!   evicted and the probe repeats. A minimal bundle that can evict nothing is an
//!   impossible constraint.
//!
//! Rows: splitting spawns live ranges and bundles; before each bundle the loop checks the
//! reserve against the most one bundle can need and, when short, returns so the caller grows
//! the tables between iterations (slices are never held across a spawn).
//!
//! Complexity: per iteration, O(ranges x (log n + k)) per probed register for k conflicts.

use super::maps::RESERVED;
use super::split;
use super::{
    IonError, IonState, Need, MAX_WEIGHT, MINIMAL_FIXED_WEIGHT, MINIMAL_WEIGHT, REMAT_WEIGHT_FACTOR,
};
use crate::machine::{MachineEnv, MachineRead, OperandConstraint};
use crate::regalloc::bundles::{BundleProps, BundleRows, BundleTables, SetRows};
use crate::regalloc::handles::{BundleIndex, LiveRangeIndex, SpillSetIndex};
use crate::regalloc::location::{Allocation, PReg, RegClass};
use crate::regalloc::point::ProgPoint;
use crate::regalloc::ranges::{RangeCounts, RangeRows};

/// Marks a live range that no bundle holds any more (replaced by a minimal split).
pub const DEAD: BundleIndex = BundleIndex::NONE;
/// "No hint" in a queue entry.
pub const NO_HINT: u8 = u8::MAX;

/// The allocator's view of both tables during the loop.
pub(crate) struct Tables<'a> {
    pub rr: RangeRows<'a>,
    pub br: BundleRows<'a>,
    pub sets: SetRows<'a>,
    pub counts: &'a mut RangeCounts,
}

impl<'a> Tables<'a> {
    /// The three tables of `t` as the allocator's view, with the two side tables.
    pub fn of(
        t: &'a mut BundleTables<'_, '_>,
    ) -> (
        Tables<'a>,
        &'a mut crate::regalloc::ranges::RangeSide,
        &'a mut crate::regalloc::bundles::BundleSide,
    ) {
        let (rr, br, sets, rs, side, counts) = t.all();
        (
            Tables {
                rr,
                br,
                sets,
                counts,
            },
            rs,
            side,
        )
    }

    /// A new live-range row (the reserve was checked by the caller).
    pub fn new_range(
        &mut self,
        span: crate::regalloc::point::CodeRange,
        vreg: crate::machine::VReg,
        bundle: BundleIndex,
        flags: u8,
    ) -> LiveRangeIndex {
        let k = self.counts.ranges;
        self.counts.ranges += 1;
        self.rr.spans[k] = span;
        self.rr.vregs[k] = vreg;
        self.rr.bundles[k] = bundle;
        self.rr.uses[k].clear();
        self.rr.flags[k] = flags;
        LiveRangeIndex::new(k)
    }

    /// A new, empty bundle row of spill set `set`.
    pub fn new_bundle(&mut self, set: SpillSetIndex) -> BundleIndex {
        let k = self.counts.bundles;
        self.counts.bundles += 1;
        self.br.ranges[k].clear();
        self.br.spill_sets[k] = set;
        self.br.props[k] = BundleProps::default();
        self.br.reqs[k] = crate::regalloc::requirement::Requirement::Unknown;
        self.br.allocs[k] = Allocation::None;
        BundleIndex::new(k)
    }

    /// Recomputes priority, spill weight and flags of bundle `b` from its ranges, and
    /// returns what [`Tables::requirement`] would (the meet of its uses' needs, registers
    /// in `fixed_stack` naming stack locations), from the same walk of its uses.
    pub fn recompute(
        &mut self,
        b: BundleIndex,
        fixed_stack: crate::machine::PRegSet,
    ) -> Result<Need, ProgPoint> {
        let list = &self.br.ranges[b.index()];
        let (mut priority, mut weight, mut flags) = (0u32, 0u64, 0u8);
        let mut need = Ok(Need::Any);
        for e in list {
            priority += e.range.len();
            for u in &self.rr.uses[e.index.index()] {
                weight += u.weight() as u64;
                let c = u.operand.constraint;
                match c {
                    OperandConstraint::FixedReg(_) => flags |= BundleProps::FIXED,
                    OperandConstraint::Stack => flags |= BundleProps::STACK,
                    _ => {}
                }
                if let Ok(n) = need {
                    need = n.meet(Need::of(c, fixed_stack)).ok_or(u.point);
                }
            }
        }
        // Minimal (the seed: "covers only one instruction", made exact as regalloc2 does):
        // one range, its uses at one instruction, and the range inside the union of their
        // minimal ranges.
        let minimal = match &list[..] {
            [only] => {
                let uses = &self.rr.uses[only.index.index()];
                match uses.first() {
                    None => true,
                    Some(u0) => {
                        let inst = u0.point.inst();
                        let (mut from, mut to) = (ProgPoint(u32::MAX), ProgPoint(0));
                        let same = uses.iter().all(|u| {
                            let m = super::split::minimal_range(u);
                            from = from.min(m.from);
                            to = to.max(m.to);
                            u.point.inst() == inst
                        });
                        same && from <= only.range.from && only.range.to <= to
                    }
                }
            }
            _ => false,
        };
        let spill_weight = match minimal {
            true => {
                flags |= BundleProps::MINIMAL;
                if flags & BundleProps::FIXED != 0 {
                    MINIMAL_FIXED_WEIGHT
                } else if priority >= 2 {
                    // Held over both points of its instruction: more constrained than a
                    // bundle held at one point, so it may evict one.
                    MINIMAL_WEIGHT
                } else {
                    MINIMAL_WEIGHT - 1.0
                }
            }
            _ => {
                let w = (weight as f32 / priority.max(1) as f32).min(MAX_WEIGHT);
                let set = self.br.spill_sets[b.index()].index();
                match self.sets.state.get(set) {
                    Some(s) if s.cheap => w * REMAT_WEIGHT_FACTOR,
                    _ => w,
                }
            }
        };
        self.br.props[b.index()] = BundleProps {
            priority,
            spill_weight,
            flags,
        };
        need
    }

    /// The requirement of bundle `b`, or the point of the first use that conflicts.
    pub fn requirement(
        &self,
        b: BundleIndex,
        fixed_stack: crate::machine::PRegSet,
    ) -> Result<Need, ProgPoint> {
        let mut need = Need::Any;
        for e in &self.br.ranges[b.index()] {
            for u in &self.rr.uses[e.index.index()] {
                match need.meet(Need::of(u.operand.constraint, fixed_stack)) {
                    Some(n) => need = n,
                    None => return Err(u.point),
                }
            }
        }
        Ok(need)
    }
}

/// Records `need` as bundle `b`'s need as of its last [`Tables::recompute`] (the table
/// grows with the bundle rows; a warm context has the capacity).
pub(crate) fn set_need(state: &mut IonState, b: BundleIndex, need: Result<Need, ProgPoint>) {
    if state.needs.len() <= b.index() {
        state.needs.resize(b.index() + 1, Ok(Need::Any));
    }
    state.needs[b.index()] = need;
}

/// The `queue_bundles` phase: fills the side tables for the function whose bundles were
/// just merged: register maps with the fixed reservations, spill-set state, bundle
/// properties and the allocation queue, the instruction-to-block
/// table. Reads the bundle and live-range columns and [`crate::regalloc::ranges::RangeSide`];
/// writes [`BundleProps`] and `state`.
pub fn prepare<F: MachineRead + ?Sized>(f: &F, t: &mut BundleTables<'_, '_>, state: &mut IonState) {
    let (mut tables, rs, side) = Tables::of(t);
    state.maps.resize_with(192, Default::default);
    state.maps.iter_mut().for_each(|m| m.clear());
    for (p, list) in rs.preg_ranges.iter().enumerate() {
        if !list.is_empty() {
            state.maps[p].reserve_sorted(list);
        }
    }
    state.spilled.clear();
    state.unmovable.clear();
    state.queue.clear();
    state.stats = super::IonStats::default();
    // Cleared, not replaced: the output's vectors keep their capacity for the next function.
    state.output.allocs.clear();
    state.output.inst_alloc_offsets.clear();
    state.output.edits.clear();
    state.output.num_spillslots = 0;
    state.annotations.clear();
    state.iterations = 0;
    // The queue is filled as a vector and made a heap once (O(n), not n sift-ups); its
    // entries are distinct (one per bundle), so the pop order is the same either way.
    let mut queue = std::mem::take(&mut state.queue).into_vec();
    queue.clear();
    for &b in side.queue.iter() {
        // A set whose every value is rematerializable weighs less (see
        // [`REMAT_WEIGHT_FACTOR`]).
        if !state.no_remat {
            let set = tables.br.spill_sets[b.index()].index();
            let cheap = tables.br.ranges[b.index()]
                .iter()
                .all(|e| f.remat(tables.rr.vregs[e.index.index()]).is_some());
            tables.sets.state[set].cheap = cheap;
        }
        let need = tables.recompute(b, state.fixed_stack);
        set_need(state, b, need);
        if state.annotate {
            let list = &tables.br.ranges[b.index()];
            let mut vregs: Vec<String> = list
                .iter()
                .map(|e| tables.rr.vregs[e.index.index()].to_string())
                .collect();
            vregs.dedup();
            if vregs.len() > 1 {
                super::note!(
                    state,
                    list[0].range.from,
                    "merged b{b}: {}",
                    vregs.join(" ")
                );
            }
        }
        let prio = tables.br.props[b.index()].priority;
        queue.push(super::QueueEntry::new(prio, b, NO_HINT));
        state.stats.bundles += 1;
    }
    state.queue = std::collections::BinaryHeap::from(queue);
    state.block_of.clear();
    state
        .block_of
        .resize(f.num_insts(), crate::machine::MBlock(0));
    for b in f.blocks() {
        for i in f.block_insts(b) {
            state.block_of[i.index()] = b;
        }
    }
    // Predecessor exits per block (CSR), with the loop depth of each predecessor.
    state.pred_start.clear();
    state.pred_exits.clear();
    for b in f.blocks() {
        state.pred_start.push(state.pred_exits.len() as u32);
        for &p in f.block_preds(b) {
            let exit = ProgPoint::after(f.block_insts(p).last());
            state.pred_exits.push((exit.0, rs.loop_depth[p.index()]));
        }
    }
    state.pred_start.push(state.pred_exits.len() as u32);
}

/// The `process_bundles` phase: runs the allocation loop until the queue is empty (`None`)
/// or the reserve of rows (`capacity`: live-range and bundle rows) runs short, returning the
/// row counts to reserve before calling again (see the module doc). Reads and writes the
/// bundle and live-range columns and `state`.
///
/// # Errors
/// Impossible constraints, no register of a needed class, or the iteration bound.
pub fn process_bundles<F: MachineRead + ?Sized>(
    f: &F,
    env: &MachineEnv,
    t: &mut BundleTables<'_, '_>,
    state: &mut IonState,
    capacity: (usize, usize),
) -> Result<Option<(usize, usize)>, IonError> {
    let bound = 64 * (f.num_insts() + state.stats.bundles) + 100_000;
    let (mut tables, _, _) = Tables::of(t);
    state.allocatable = allocatable_masks(env);
    let mut iterations = state.iterations;
    let r = run(&mut tables, env, state, capacity, &mut iterations, bound);
    state.iterations = iterations;
    r
}

/// The loop proper; returns the row counts to reserve when the reserve runs short.
fn run(
    t: &mut Tables<'_>,
    env: &MachineEnv,
    state: &mut IonState,
    (cap_r, cap_b): (usize, usize),
    iterations: &mut usize,
    bound: usize,
) -> Result<Option<(usize, usize)>, IonError> {
    while let Some(&entry) = state.queue.peek() {
        let (b, hint) = (entry.bundle(), entry.hint());
        let list = &t.br.ranges[b.index()];
        let uses: usize = list.iter().map(|e| t.rr.uses[e.index.index()].len()).sum();
        let need_r = t.counts.ranges + uses + list.len() + 4;
        let need_b = t.counts.bundles + uses + 3;
        if need_r > cap_r || need_b > cap_b {
            return Ok(Some((grown(need_r, cap_r), grown(need_b, cap_b))));
        }
        state.queue.pop();
        *iterations += 1;
        if *iterations > bound {
            return Err(IonError::NoTermination {
                iterations: *iterations,
            });
        }
        if t.br.ranges[b.index()].is_empty() {
            continue;
        }
        state.stats.processed += 1;
        let hint = (hint != NO_HINT).then(|| preg_from_dense(hint));
        process_bundle(t, env, state, b, hint)?;
    }
    // Rows for the tails `tails::demote_tails` may cut off after second chance.
    let need_r = t.counts.ranges + super::tails::row_bound(t, state);
    if need_r > cap_r {
        return Ok(Some((need_r, cap_b)));
    }
    Ok(None)
}

/// The rows to reserve for a table holding `cap` rows when the loop needs `need`: `cap`
/// when they suffice (only the table that runs short grows), else `need` and at least a
/// quarter more than `cap`. Every row is a spawned entity (a few hundred instructions
/// each, most of the cost of growing), so growing both tables, or doubling, spawned rows
/// no function used (a tenth of our allocator's instructions on bzip2.O2 went to spawning);
/// a quarter keeps the number of growth rounds logarithmic.
fn grown(need: usize, cap: usize) -> usize {
    if need <= cap {
        cap
    } else {
        need.max(cap + cap / 4)
    }
}

/// The register with dense index `d`.
pub(crate) fn preg_from_dense(d: u8) -> PReg {
    PReg::new(
        RegClass::from_index((d >> 6) as usize).unwrap_or(RegClass::Int),
        d & PReg::MAX_INDEX,
    )
    .expect("index below 64")
}

/// The allocatable registers of each class (preferred or not) as bits by index.
pub(crate) fn allocatable_masks(env: &MachineEnv) -> [u64; 3] {
    let mut masks = [0u64; 3];
    for (class, mask) in masks.iter_mut().enumerate() {
        for r in env.preferred[class].iter().chain(&env.non_preferred[class]) {
            *mask |= 1u64 << r.index();
        }
    }
    masks
}

/// The registers to probe for a bundle of `class` with need `need`, in the seed's order
/// (see [`Candidates`]); `allocatable` is the class's mask from [`allocatable_masks`].
pub(crate) fn candidates(
    env: &MachineEnv,
    allocatable: u64,
    class: RegClass,
    need: Need,
    hints: [Option<PReg>; 2],
    offset: usize,
) -> Candidates<'_> {
    let fixed = match need {
        Need::Fixed(r) | Need::FixedStack(r) => Some(r),
        _ => None,
    };
    let lists = match fixed {
        Some(_) => [&[][..]; 2],
        None => [
            &env.preferred[class.index()][..],
            &env.non_preferred[class.index()][..],
        ],
    };
    Candidates {
        fixed,
        hints: match fixed {
            Some(_) => [None; 2],
            None => hints,
        },
        next_hint: 0,
        lists,
        list: 0,
        step: 0,
        offset,
        start: 0,
        class,
        allocatable,
        limit: match need {
            Need::Limit(n) => n,
            _ => u8::MAX,
        },
        seen: 0,
    }
}

/// The registers to probe, in the seed's order, generated as they are probed (most bundles
/// take the first register probed; building the whole list, up to 64 registers with their
/// checks, was a fifth of the allocation loop): a fixed need's register alone; else the
/// hints that are allocatable registers of the class, then the preferred and then the
/// non-preferred registers of the class, each list from `offset` (modulo its length) round
/// to just before it; each register once, and for `Limit(n)` only those below index n.
/// Clone it before iterating to probe the same order again.
#[derive(Clone, Debug)]
pub(crate) struct Candidates<'a> {
    /// A fixed need's register, given alone.
    fixed: Option<PReg>,
    hints: [Option<PReg>; 2],
    /// The next hint to consider.
    next_hint: usize,
    /// The preferred and non-preferred registers of the class.
    lists: [&'a [PReg]; 2],
    /// The list being walked, and how many of its registers were considered.
    list: usize,
    step: usize,
    offset: usize,
    /// `offset` modulo the length of the list being walked.
    start: usize,
    class: RegClass,
    /// The allocatable registers of the class, as bits by index.
    allocatable: u64,
    /// Registers from this index on are not candidates (`Limit`; `u8::MAX` otherwise).
    limit: u8,
    /// Registers given so far, by index within the class.
    seen: u64,
}

impl Candidates<'_> {
    /// Whether `r` is a candidate not given yet; marks it given.
    fn take(&mut self, r: PReg) -> bool {
        let bit = 1u64 << r.index();
        let ok = r.class() == self.class && r.index() < self.limit && self.seen & bit == 0;
        if ok {
            self.seen |= bit;
        }
        ok
    }
}

impl Iterator for Candidates<'_> {
    type Item = PReg;

    fn next(&mut self) -> Option<PReg> {
        if let Some(r) = self.fixed.take() {
            return Some(r);
        }
        while self.next_hint < 2 {
            let hint = self.hints[self.next_hint];
            self.next_hint += 1;
            if let Some(h) = hint {
                // The class first: the mask has the class's registers by index.
                if h.class() == self.class
                    && self.allocatable & (1u64 << h.index()) != 0
                    && self.take(h)
                {
                    return Some(h);
                }
            }
        }
        while let Some(list) = self.lists.get(self.list).copied() {
            if self.step == list.len() {
                self.list += 1;
                self.step = 0;
                continue;
            }
            // From the offset round to it: the registers after it, then those before it
            // (the offset reduced once per list, not per register).
            if self.step == 0 {
                self.start = self.offset % list.len();
            }
            let mut k = self.start + self.step;
            if k >= list.len() {
                k -= list.len();
            }
            self.step += 1;
            if self.take(list[k]) {
                return Some(list[k]);
            }
        }
        None
    }
}

/// What probing one register found.
enum Probe {
    Free,
    Conflict {
        max_weight: f32,
        first: ProgPoint,
        reserved: bool,
    },
}

/// Probes `reg` for bundle `b`; conflicting bundles land in `state.conflicts`. Stops early
/// (reporting a cost of at least `limit`) once the cost reaches `limit`, and at a conflict
/// with a reservation (the caller then only needs the first conflict point).
fn probe(t: &Tables<'_>, state: &mut IonState, b: BundleIndex, reg: PReg, limit: f32) -> Probe {
    let map = &state.maps[reg.dense_index()];
    let conflicts = &mut state.conflicts;
    conflicts.clear();
    let mut first: Option<ProgPoint> = None;
    let mut reserved = false;
    let mut max_weight = 0f32;
    // The bundle's ranges are sorted and disjoint: one walk through the map, earliest
    // overlap first (so the first one gives the first conflict point), which ends when the
    // map has nothing past the range. A map entry names its bundle.
    map.walk(
        &t.br.ranges[b.index()],
        |e| e.range,
        |range, entry, owner| {
            if first.is_none() {
                first = Some(entry.from.max(range.from));
            }
            if owner == RESERVED {
                reserved = true;
                return false;
            }
            if !conflicts.contains(&owner) {
                conflicts.push(owner);
                max_weight = max_weight.max(t.br.props[owner.index()].spill_weight);
            }
            max_weight < limit
        },
    );
    match first {
        None => Probe::Free,
        Some(first) => Probe::Conflict {
            max_weight,
            first,
            reserved,
        },
    }
}

/// Gives bundle `b` register `reg` (the map must be free over its ranges); with `hint`, the
/// register becomes its spill set's hint. A register a fixed constraint chose is no hint:
/// the set's other pieces (its spill bundle around a call, most often) would be steered to
/// an argument or result register, away from the register the set's free pieces chose.
pub(crate) fn assign(
    t: &mut Tables<'_>,
    state: &mut IonState,
    b: BundleIndex,
    reg: PReg,
    hint: bool,
) {
    state.maps[reg.dense_index()].insert_sorted(&t.br.ranges[b.index()], |e| (e.range, b));
    t.br.allocs[b.index()] = Allocation::Reg(reg);
    let s = t.br.spill_sets[b.index()].index();
    if let Some(set) = t.sets.state.get_mut(s).filter(|_| hint) {
        set.hint = Some(reg);
    }
}

/// Takes bundle `b` out of its register and queues it again.
fn evict(t: &mut Tables<'_>, state: &mut IonState, b: BundleIndex) {
    let Allocation::Reg(reg) = t.br.allocs[b.index()] else {
        return;
    };
    let map = &mut state.maps[reg.dense_index()];
    for e in &t.br.ranges[b.index()] {
        map.remove(e.range.from);
    }
    t.br.allocs[b.index()] = Allocation::None;
    state.stats.evictions += 1;
    super::note!(
        state,
        t.br.ranges[b.index()][0].range.from,
        "evict b{b} from {reg}"
    );
    state.queue.push(super::QueueEntry::new(
        t.br.props[b.index()].priority,
        b,
        NO_HINT,
    ));
}

/// Processes one bundle taken off the queue (see the module doc).
fn process_bundle(
    t: &mut Tables<'_>,
    env: &MachineEnv,
    state: &mut IonState,
    b: BundleIndex,
    hint: Option<PReg>,
) -> Result<(), IonError> {
    let set = t.br.spill_sets[b.index()].index();
    // Every queued bundle's need was computed where it was queued (its ranges have not
    // changed since: a split queues its pieces anew).
    debug_assert_eq!(
        state.needs[b.index()],
        t.requirement(b, state.fixed_stack),
        "a stale need for b{b}"
    );
    let need = match state.needs[b.index()] {
        Err(at) => {
            split::split(t, state, b, at, hint, false);
            return Ok(());
        }
        Ok(n) => n,
    };
    match need {
        Need::Any => {
            let spill = t.sets.state[set].spill_bundle;
            if !spill.is_none() && spill != b {
                split::move_to_spill_bundle(t, b, spill);
            } else {
                state.spilled.push(b);
            }
            return Ok(());
        }
        Need::Stack => {
            t.sets.state[set].required = true;
            state.stats.spilled += 1;
            super::note!(
                state,
                t.br.ranges[b.index()][0].range.from,
                "b{b} on the stack"
            );
            return Ok(());
        }
        _ => {}
    }
    let class = t.sets.info[set].class;
    let first_range = t.br.ranges[b.index()][0].range;
    let offset = b.index() + first_range.from.inst().index();
    let cands = candidates(
        env,
        state.allocatable[class.index()],
        class,
        need,
        [t.sets.state[set].hint, hint],
        offset,
    );
    let weight = t.br.props[b.index()].spill_weight;
    let minimal = t.br.props[b.index()].flags & BundleProps::MINIMAL != 0;
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut best_cost = f32::INFINITY;
        let mut best_split: Option<(ProgPoint, PReg)> = None;
        state.best_conflicts.clear();
        // No candidate at all shows on the first attempt (the order is the same each time):
        // checked here rather than by generating the first candidate twice.
        let mut probed = false;
        for reg in cands.clone() {
            probed = true;
            match probe(t, state, b, reg, best_cost) {
                Probe::Free => {
                    assign(t, state, b, reg, !matches!(need, Need::Fixed(_)));
                    state.stats.allocated += 1;
                    super::note!(state, first_range.from, "b{b} -> {reg}");
                    return Ok(());
                }
                Probe::Conflict {
                    max_weight,
                    first,
                    reserved,
                } => {
                    if !reserved && max_weight < best_cost {
                        best_cost = max_weight;
                        std::mem::swap(&mut state.conflicts, &mut state.best_conflicts);
                    }
                    if best_split.is_none_or(|(p, _)| first > p) {
                        best_split = Some((first, reg));
                    }
                }
            }
        }
        if !probed {
            return Err(IonError::NoRegisters {
                inst: first_range.from.inst().0,
                class,
            });
        }
        let can_evict = best_cost < weight;
        if minimal {
            if !can_evict {
                return Err(IonError::TooManyLiveRegs {
                    inst: first_range.from.inst().0,
                    what: blocked(t, state, b, cands, need),
                });
            }
        } else if attempts >= 2 || !can_evict {
            let (at, reg) = best_split.expect("some register was probed");
            split::split(t, state, b, at, Some(reg), true);
            return Ok(());
        }
        let victims = std::mem::take(&mut state.best_conflicts);
        for &v in &victims {
            evict(t, state, v);
        }
        state.best_conflicts = victims;
    }
}

/// Says what holds each candidate register where bundle `b` needs it (for the error).
fn blocked(
    t: &Tables<'_>,
    state: &IonState,
    b: BundleIndex,
    cands: Candidates<'_>,
    need: Need,
) -> String {
    let list = &t.br.ranges[b.index()];
    let vreg = t.rr.vregs[list[0].index.index()];
    let spans: Vec<String> = list.iter().map(|e| e.range.to_string()).collect();
    let mut s = format!("{vreg} needs {need} over {}", spans.join(" "));
    for reg in cands {
        let map = &state.maps[reg.dense_index()];
        match list.iter().find_map(|e| map.first_overlap(e.range)) {
            Some((r, RESERVED)) => s += &format!("; {reg} is reserved over {r}"),
            Some((r, holder)) => {
                // The holder's live range with the entry's extent.
                let Some(owner) = t.br.ranges[holder.index()]
                    .iter()
                    .find(|e| e.range == r)
                    .map(|e| e.index)
                else {
                    continue;
                };
                let uses: Vec<String> = t.rr.uses[owner.index()]
                    .iter()
                    .map(|u| format!("{} at {}", u.operand, u.point))
                    .collect();
                s += &format!(
                    "; {reg} holds {} over {r} ({})",
                    t.rr.vregs[owner.index()],
                    uses.join(", ")
                );
            }
            None => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The candidate order spelled out as a list (the oracle): hints, then each list
    /// rotated to `offset`, skipping repeats, other classes and registers over a limit.
    fn listed(
        env: &MachineEnv,
        class: RegClass,
        need: Need,
        hints: [Option<PReg>; 2],
        offset: usize,
    ) -> Vec<PReg> {
        if let Need::Fixed(r) | Need::FixedStack(r) = need {
            return vec![r];
        }
        let lists = [
            &env.preferred[class.index()],
            &env.non_preferred[class.index()],
        ];
        let fits = |r: PReg| {
            r.class() == class
                && match need {
                    Need::Limit(n) => r.index() < n,
                    _ => true,
                }
        };
        let mut out: Vec<PReg> = Vec::new();
        let allocatable = |h: &PReg| lists.iter().any(|l| l.contains(h));
        let rotated = lists.iter().flat_map(|l| {
            let k = if l.is_empty() { 0 } else { offset % l.len() };
            l[k..].iter().chain(&l[..k]).copied()
        });
        for r in hints
            .into_iter()
            .flatten()
            .filter(allocatable)
            .chain(rotated)
        {
            if fits(r) && !out.contains(&r) {
                out.push(r);
            }
        }
        out
    }

    /// Packed queue entries order as their (priority, bundle, hint) tuples and give their
    /// fields back, on random entries with the fields' extremes.
    #[test]
    fn queue_entries_order_as_their_tuples() {
        let mut rng = crate::fuzzing::llvm_import::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut field = |max: u64| -> u64 {
            match rng.below(4) {
                0 => 0,
                1 => max,
                _ => rng.below(1 << 20) as u64 % (max + 1),
            }
        };
        let mut entries = Vec::new();
        for _ in 0..500 {
            let prio = field(u32::MAX as u64) as u32;
            let b = BundleIndex(field(u32::MAX as u64) as u32);
            let hint = field(u8::MAX as u64) as u8;
            let e = super::super::QueueEntry::new(prio, b, hint);
            assert_eq!((e.bundle(), e.hint()), (b, hint));
            entries.push(((prio, b, hint), e));
        }
        for x in &entries {
            for y in &entries {
                assert_eq!(x.0.cmp(&y.0), x.1.cmp(&y.1), "{x:?} {y:?}");
            }
        }
    }

    /// Random environments, needs, hints and offsets: the lazily generated candidates are
    /// the oracle's list, in its order.
    #[test]
    fn candidates_come_in_the_listed_order() {
        let mut rng = crate::fuzzing::llvm_import::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| rng.below(n);
        let reg = |class: RegClass, i: usize| PReg::new(class, i as u8).expect("index below 64");
        for _ in 0..2000 {
            let mut env = MachineEnv::default();
            for class in [RegClass::Int, RegClass::Float] {
                for i in 0..next(40) {
                    let r = reg(class, i);
                    match next(3) {
                        0 => env.preferred[class.index()].push(r),
                        1 => env.non_preferred[class.index()].push(r),
                        _ => {}
                    }
                }
                // Shuffled, as a target's order need not be by index.
                let list = &mut env.preferred[class.index()];
                for k in (1..list.len()).rev() {
                    list.swap(k, next(k + 1));
                }
            }
            let class = [RegClass::Int, RegClass::Float][next(2)];
            let any = |next: &mut dyn FnMut(usize) -> usize| {
                let c = [RegClass::Int, RegClass::Float][next(2)];
                reg(c, next(45))
            };
            let need = match next(4) {
                0 => Need::Reg,
                1 => Need::Limit(next(40) as u8),
                2 if next(4) == 0 => Need::Fixed(any(&mut next)),
                _ => Need::Reg,
            };
            let hints = [
                (next(2) == 0).then(|| any(&mut next)),
                (next(2) == 0).then(|| any(&mut next)),
            ];
            let offset = next(1000);
            let mask = allocatable_masks(&env)[class.index()];
            let got: Vec<PReg> = candidates(&env, mask, class, need, hints, offset).collect();
            let want = listed(&env, class, need, hints, offset);
            assert_eq!(
                got, want,
                "{need} hints {hints:?} offset {offset} env {env:?}"
            );
        }
    }

    /// A class without allocatable registers is the `NoRegisters` error naming the class and
    /// the first instruction of the value that needs one, not a panic or a loop (the probe
    /// finds no candidate in its first round).
    #[test]
    fn a_class_without_registers_is_an_error_naming_it() {
        const MIR: &str = "function @f target x86-64 {
block0:
  movi #1 def v0i:reg
  movi #2 def v1f:reg
  add def v2i:reg, use v0i:reg, use v0i:reg
  ret use v2i:fixed(rax)
}
";
        let f = crate::machine::text::parse_functions(MIR, "t")
            .expect("parses")
            .remove(0);
        let with_floats = |floats: u8| {
            let list = |c: RegClass, n: u8| (0..n).map(move |i| PReg::new(c, i).expect("index"));
            MachineEnv {
                preferred: [
                    list(RegClass::Int, 4).collect(),
                    list(RegClass::Float, floats).collect(),
                    Vec::new(),
                ],
                non_preferred: [Vec::new(), Vec::new(), Vec::new()],
                scratch: [None; 3],
            }
        };
        let env = with_floats(0);
        let mut ctx = super::super::IonContext::default();
        match super::super::allocate(&f, &env, &mut ctx) {
            Err(IonError::NoRegisters { inst, class }) => {
                assert_eq!(class, RegClass::Float);
                assert_eq!(inst, 1, "the float value is defined by instruction 1");
            }
            other => panic!("expected NoRegisters, got {other:?}"),
        }
        // The same function allocates once the class has a register.
        let mut ctx = super::super::IonContext::default();
        super::super::allocate(&f, &with_floats(2), &mut ctx).expect("allocates");
    }
}

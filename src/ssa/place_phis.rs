//! Step 2 of SSA construction: where phis go (002 step 5; DESIGN.md 4).
//!
//! What: `PhiPlan::place` decides, for every promotable alloca (slot), the blocks that get a
//! phi for it, applies the phi copy-cost limit, and creates the phi instructions and their
//! result values (their incoming entries are filled by the renamer into a flat table).
//!
//! Algorithm, per slot:
//! 1. **Placement**: DF+(defining blocks) (Cytron et al. 1991, iterated with the dominance
//!    frontiers of Cooper, Harvey and Kennedy 2001), restricted to live-in blocks (step 2).
//!    Phis at the iterated frontier where the slot is dead are counted as pruned. Because
//!    the candidate set is minimal SSA's (the defining blocks, without the implicit entry
//!    definition) and pruning only removes, the phi count is at most minimal SSA's.
//! 2. **Liveness** (pruning): the blocks where the slot is live-in, by a backward worklist
//!    from the blocks where it is upward-exposed (read before any definition in the block)
//!    over predecessor edges, not crossing blocks that define it or hold its alloca (the
//!    alloca yields a fresh slot each time it executes, so it kills the old value).
//!    A slot that is never read gets no phi at all. Only the DF+ blocks that could get a
//!    phi (reachable, not the entry) need an answer: with none the worklist is not run, and
//!    it stops as soon as all of them are found live (live-in sets only grow, so the
//!    answers are those of the whole region).
//! 3. **asm goto**: a block that defines a slot after an `asm goto` sends different values
//!    along its goto edges (the definitions before the asm) and its other edges; its goto
//!    labels become phi sites too (if live-in), so each edge carries its own value.
//!
//! Shortcut: a slot with one defining block `D` (and no late asm-goto definition) whose
//! upward-exposed uses all lie in blocks `D` strictly dominates gets no phi, and its
//! liveness walk is skipped (its sites are counted as pruned, as the walk would find them).
//! Every block of DF+(D) is not strictly dominated by `D`; one other than `D` is reached
//! from the entry by a path avoiding `D`, so a path from it to a use that avoided `D` would
//! make the use not dominated by `D`: the slot is not live-in there; `D` itself kills the
//! slot and has no upward-exposed use. (LLVM's mem2reg special-cases the same
//! single-store-dominates-all-loads alloca.)
//!
//! Cost limit: each phi costs one copy per predecessor edge. If the total exceeds
//! [`MAX_PHI_COPY_COST`], slots are dropped from promotion in decreasing order of cost
//! (ties: later slots first) until the total fits; they stay in memory ([`Reject::PhiCost`]).
//!
//! Invariants after `place`: `phis` is sorted by (block, slot); `phi_start` is its CSR index
//! by block; `incoming[p.in_start..][..preds(p.block).len()]` holds one operand per
//! predecessor edge in `Cfg::preds` order, initialised to the slot's zero. No phi is in the
//! entry block (a promoted slot is never live-in there: its alloca dominates its uses) nor
//! in an unreachable block.
//!
//! Complexity: per slot O(live region edges + Σ|DF(b)| over DF+); the cost limit adds
//! O(slots log slots); the sites are sorted by block in O(sites + blocks) (counting sort),
//! so DF+ is never sorted. The scan hands over its def and use lists already linked per
//! slot. Scratch is reused; stamps avoid clearing per slot (one mark array holds both
//! "live-in" and "killed" for the current slot, one more both "queued" and "in DF+"), and
//! unreachable blocks are marked once per function, O(blocks).

use super::promotable::{Candidates, Slot, NONE};
use super::{Mem2RegStats, Reject, MAX_PHI_COPY_COST};
use crate::analysis::{Cfg, DomTree, DominanceFrontiers};
use crate::ir::{
    Block, Body, Const, Inst, InstKind, IrRead, Operand, Type, Value, ValueData, ValueDef,
};
use smallvec::SmallVec;

/// One phi to insert.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlacedPhi {
    /// The slot it merges.
    pub slot: u32,
    /// Its block.
    pub block: Block,
    /// Its result.
    pub value: Value,
    /// Its instruction index: the entry of a removed load or store (overwritten after
    /// renaming) or a new entry; listed by its block during renaming.
    pub inst: Inst,
    /// Start of its incoming operands in [`PhiPlan::incoming`].
    pub in_start: u32,
}

/// Phi placement result and scratch; see the module doc.
#[derive(Default, Debug)]
pub(crate) struct PhiPlan {
    /// Phis sorted by (block, slot).
    pub phis: Vec<PlacedPhi>,
    /// `phi_start[b]..phi_start[b + 1]` indexes `phis` (length `num_blocks + 1`).
    pub phi_start: Vec<u32>,
    /// Incoming operands of every phi, flat.
    pub incoming: Vec<Operand>,
    /// Per block, for the current slot (`base = 4 * epoch`): `base` an undecided site (a
    /// reachable non-entry block of DF+, where liveness decides whether a phi goes),
    /// `base + 1` live-in, `base + 2` defined (or allocated) there and not upward-exposed,
    /// `base + 3` the same at a site; [`UNREACHABLE`] for the whole function; below `base`:
    /// not reached. One table, so the liveness walk reads one word per block.
    mark: Vec<u32>,
    epoch: u32,
    /// DF+ stamps: `2 * idf_epoch` queued, `2 * idf_epoch + 1` in the result.
    idf_mark: Vec<u32>,
    idf_epoch: u32,
    worklist: Vec<Block>,
    idf_in: Vec<Block>,
    idf_out: Vec<Block>,
    /// (slot, block) sites before the cost limit, grouped by slot.
    sites: Vec<(u32, u32)>,
    /// (cost, slot) of slots with phis.
    costs: Vec<(usize, u32)>,
    /// Counting-sort scratch: bucket starts and the sorted copy.
    sort_start: Vec<u32>,
    sorted: Vec<(u32, u32)>,
    /// `single_idf[b] = (function_stamp, |DF+({b})|)` once computed in this function.
    single_idf: Vec<(u32, u32)>,
    function_stamp: u32,
}

/// Mark of an unreachable block in [`PhiPlan`]'s liveness table: above every epoch's
/// marks, so the walk never enters it.
const UNREACHABLE: u32 = u32::MAX;

/// The blocks of the per-slot list starting at entry `k` of `links` ((block, previous
/// entry) pairs: the scan's `Candidates::defs` from `Slot::def_head`, or the same for uses).
fn chain(links: &[(u32, u32)], mut k: u32) -> impl Iterator<Item = u32> + '_ {
    std::iter::from_fn(move || {
        let (b, prev) = *links.get(k as usize)?;
        k = prev;
        Some(b)
    })
}

/// True if block `d` strictly dominates every block of `uses` (`DomTree::strictly_dominates`
/// with `d`'s tree numbers looked up once).
fn strictly_dominates_all(dom: &DomTree, d: u32, mut uses: impl Iterator<Item = u32>) -> bool {
    let number = |b: u32| {
        Some((
            dom.preorder_number(Block(b))?,
            dom.postorder_number(Block(b))?,
        ))
    };
    let Some((pre_d, post_d)) = number(d) else {
        return false;
    };
    uses.all(|u| {
        u != d && matches!(number(u), Some((pre_u, post_u)) if pre_d <= pre_u && post_u <= post_d)
    })
}

/// Turns per-bucket counts (`counts[0]` zero, bucket `k`'s count at `k + 1`) into CSR
/// starts, in place: a running sum, without the bounds checks of an indexed loop.
pub(crate) fn prefix_sums(counts: &mut [u32]) {
    let mut sum = 0;
    for x in counts.iter_mut() {
        sum += *x;
        *x = sum;
    }
}

/// Sorts `pairs` stably by `key` (every key below `n`) with a counting sort through the
/// scratch `start` and `out`: O(pairs + n), where a comparison sort was a tenth of mem2reg
/// (used for the sites, which must come out in (block, slot) order).
fn counting_sort(
    pairs: &mut Vec<(u32, u32)>,
    n: usize,
    key: impl Fn((u32, u32)) -> u32,
    start: &mut Vec<u32>,
    out: &mut Vec<(u32, u32)>,
) {
    start.clear();
    start.resize(n + 1, 0);
    for &p in pairs.iter() {
        start[key(p) as usize + 1] += 1;
    }
    prefix_sums(start);
    out.clear();
    out.resize(pairs.len(), (0, 0));
    for &p in pairs.iter() {
        let at = &mut start[key(p) as usize];
        out[*at as usize] = p;
        *at += 1;
    }
    std::mem::swap(pairs, out);
}

impl PhiPlan {
    /// Empties the plan, keeping capacity.
    pub fn clear(&mut self) {
        self.phis.clear();
        self.phi_start.clear();
        self.incoming.clear();
        self.sites.clear();
        self.costs.clear();
    }

    /// Keeps the phis `k` with `keep(k)` (after trivial-phi removal), rebuilding the block
    /// index; incoming operands stay where they are.
    pub fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let mut k = 0;
        self.phis.retain(|_| {
            k += 1;
            keep(k - 1)
        });
        self.phi_start.iter_mut().for_each(|x| *x = 0);
        for p in &self.phis {
            self.phi_start[p.block.index() + 1] += 1;
        }
        prefix_sums(&mut self.phi_start);
    }

    /// The phis of block `b`.
    pub fn phis_of(&self, b: Block) -> &[PlacedPhi] {
        match (
            self.phi_start.get(b.index()),
            self.phi_start.get(b.index() + 1),
        ) {
            (Some(&lo), Some(&hi)) => &self.phis[lo as usize..hi as usize],
            _ => &[],
        }
    }

    /// Places the phis of every promotable slot of `c` (see the module doc) and rejects
    /// slots over the cost limit. Returns how many phi sites were chosen: an upper bound on
    /// the instruction rows [`PhiPlan::create`] needs (it reuses rows of removed loads and
    /// stores first).
    pub fn place(
        &mut self,
        f: &mut Body<'_>,
        cfg: &Cfg,
        dom: &DomTree,
        df: &DominanceFrontiers,
        c: &mut Candidates,
        stats: &mut Mem2RegStats,
    ) -> usize {
        let n = f.num_blocks();
        self.begin_function(n, cfg);
        let mut gi = 0usize;
        let mut total_cost = 0usize;
        for s in 0..c.slots.len() {
            let g0 = gi;
            while gi < c.late_goto.len() && c.late_goto[gi].0 as usize == s {
                gi += 1;
            }
            let slot = c.slots[s];
            let (d0, u0) = (slot.def_head, slot.use_head);
            if slot.reject.is_some() || u0 == NONE || d0 == NONE {
                // Rejected, never read (no phi needed) or never written (reads see zero).
                continue;
            }
            // One defining block that strictly dominates every upward-exposed use (a
            // variable initialised once, every parameter slot): no site is live, so the
            // liveness walk, which would cover the whole region from the uses back to the
            // definition, is skipped (see the module doc), and every block of DF+ of that
            // block is pruned.
            let dominating_def = c.defs[d0 as usize].1 == NONE
                && gi == g0
                && strictly_dominates_all(dom, c.defs[d0 as usize].0, chain(&c.uses, u0));
            if dominating_def {
                let d = c.defs[d0 as usize].0 as usize;
                stats.phis_pruned += u64::from(self.single_frontier_size(d, df));
                continue;
            }
            let cost = self.place_slot(s, f, cfg, df, c, &c.late_goto[g0..gi], stats);
            if cost > 0 {
                self.costs.push((cost, s as u32));
                total_cost += cost;
            }
        }
        self.apply_cost_limit(c, total_cost);
        self.forget_rejected(f, c);
        // By (block, slot): the sites were pushed in slot order, so stably by block (the
        // order of one slot's sites does not matter: each block appears once per slot).
        let (start, out) = (&mut self.sort_start, &mut self.sorted);
        counting_sort(&mut self.sites, n, |(_, b)| b, start, out);
        self.sites.len()
    }

    /// Resets the per-block stamp tables for a function of `n` blocks (`cfg` its CFG):
    /// unreachable blocks are marked [`UNREACHABLE`] once, so the liveness walk never
    /// enters them without asking the CFG per edge.
    fn begin_function(&mut self, n: usize, cfg: &Cfg) {
        self.mark.clear();
        self.mark.resize(n, 0);
        // Every block is in the reverse postorder when all are reachable (the common case).
        if cfg.rpo().len() != n {
            for (b, m) in self.mark.iter_mut().enumerate() {
                if !cfg.is_reachable(Block::new(b)) {
                    *m = UNREACHABLE;
                }
            }
        }
        self.idf_mark.clear();
        self.idf_mark.resize(n, 0);
        self.epoch = 0;
        self.idf_epoch = 0;
        self.function_stamp += 1;
        self.single_idf.resize(n, (0, 0));
    }

    /// |DF+({d})|, computed once per block and function: many slots share their defining
    /// block (the entry, a declaration's block).
    fn single_frontier_size(&mut self, d: usize, df: &DominanceFrontiers) -> u32 {
        match self.single_idf[d] {
            (stamp, size) if stamp == self.function_stamp => size,
            _ => {
                self.idf_in.clear();
                self.idf_in.push(Block(d as u32));
                self.iterated_frontier(df);
                let size = self.idf_out.len() as u32;
                self.single_idf[d] = (self.function_stamp, size);
                size
            }
        }
    }

    /// DF+(`idf_in`) into `idf_out`, in no particular order (Cytron et al.'s worklist over
    /// the frontiers). One stamp table holds both "queued" (`2 * epoch`) and "in the
    /// result" (`2 * epoch + 1`, which implies queued), so nothing is cleared afterwards.
    fn iterated_frontier(&mut self, df: &DominanceFrontiers) {
        self.idf_epoch += 1;
        let (queued, found) = (2 * self.idf_epoch, 2 * self.idf_epoch + 1);
        let (marks, worklist, out) = (&mut self.idf_mark, &mut self.worklist, &mut self.idf_out);
        out.clear();
        for &d in &self.idf_in {
            let m = &mut marks[d.index()];
            if *m < queued {
                *m = queued;
                worklist.push(d);
            }
        }
        while let Some(x) = worklist.pop() {
            for &y in df.frontier(x) {
                let m = &mut marks[y.index()];
                if *m != found {
                    if *m != queued {
                        worklist.push(y);
                    }
                    *m = found;
                    out.push(y);
                }
            }
        }
    }

    /// Placement and liveness of slot `s` (steps 1 to 3 of the module doc), whose late
    /// asm-goto definitions are `late_goto`: pushes its live sites and returns their copy
    /// cost (one per predecessor edge).
    #[allow(clippy::too_many_arguments)]
    fn place_slot(
        &mut self,
        s: usize,
        f: &Body<'_>,
        cfg: &Cfg,
        df: &DominanceFrontiers,
        c: &Candidates,
        late_goto: &[(u32, u32)],
        stats: &mut Mem2RegStats,
    ) -> usize {
        let slot = c.slots[s];
        let defs = || chain(&c.defs, slot.def_head);
        self.epoch += 1;
        let site = 4 * self.epoch;
        // Placement: DF+ of the defining blocks (plus late asm-goto labels).
        self.idf_in.clear();
        self.idf_in.extend(defs().map(Block));
        let labels_start = self.idf_in.len();
        for &(_, b) in late_goto {
            for &i in &f.block_insts[b as usize] {
                if let InstKind::InlineAsm(asm) = &f.kinds[i.index()] {
                    self.idf_in.extend(asm.goto_labels.iter().copied());
                }
            }
        }
        self.iterated_frontier(df);
        let found = 2 * self.idf_epoch + 1;
        for k in labels_start..self.idf_in.len() {
            let l = self.idf_in[k];
            if self.idf_mark[l.index()] != found {
                self.idf_mark[l.index()] = found;
                self.idf_out.push(l);
            }
        }
        // The sites liveness must decide: reachable non-entry blocks of DF+.
        // (`UNREACHABLE` is above `site`.)
        let mut undecided = 0usize;
        for &b in &self.idf_out {
            let m = &mut self.mark[b.index()];
            if b.index() != 0 && *m < site {
                *m = site;
                undecided += 1;
            }
        }
        let live = site + 1;
        if undecided > 0 {
            self.liveness(slot, c, cfg, undecided);
        }
        let mut cost = 0usize;
        for &b in &self.idf_out {
            if self.mark[b.index()] == live && b.index() != 0 {
                self.sites.push((s as u32, b.0));
                cost += cfg.preds(b).len();
            } else {
                stats.phis_pruned += 1;
            }
        }
        cost
    }

    /// Liveness of `slot` for the current epoch: marks `base + 1` on the blocks where it is
    /// live-in (see the `mark` field), by a backward worklist from the blocks where it is
    /// upward-exposed, not crossing blocks that define it or hold its alloca (marked
    /// `base + 2`, or `base + 3` at a site), nor unreachable blocks (which no site is).
    /// Stops once all `undecided` sites are found live.
    fn liveness(&mut self, slot: Slot, c: &Candidates, cfg: &Cfg, mut undecided: usize) {
        let site = 4 * self.epoch;
        let (live, killed, killed_site) = (site + 1, site + 2, site + 3);
        let mark = &mut self.mark;
        // `max` keeps the unreachable marks (every other mark is below `killed_site`).
        let kill = |m: &mut u32| {
            *m = if *m == site {
                killed_site
            } else {
                (*m).max(killed)
            }
        };
        kill(&mut mark[slot.block.index()]);
        for b in chain(&c.defs, slot.def_head) {
            kill(&mut mark[b as usize]);
        }
        for b in chain(&c.uses, slot.use_head) {
            let m = &mut mark[b as usize];
            if *m != live && *m != UNREACHABLE {
                if *m == site || *m == killed_site {
                    undecided -= 1;
                }
                *m = live;
                self.worklist.push(Block(b));
            }
        }
        let (starts, preds) = (cfg.pred_starts(), cfg.flat_preds());
        while undecided > 0 {
            let Some(b) = self.worklist.pop() else { break };
            let (lo, hi) = (starts[b.index()], starts[b.index() + 1]);
            for &p in &preds[lo as usize..hi as usize] {
                let m = &mut mark[p.index()];
                if *m <= site {
                    if *m == site {
                        undecided -= 1;
                    }
                    *m = live;
                    self.worklist.push(p);
                }
            }
        }
        self.worklist.clear();
    }

    /// The copy-cost limit: drops the most expensive slots (ties: later slots first) until
    /// the total cost of the sites fits [`MAX_PHI_COPY_COST`].
    fn apply_cost_limit(&mut self, c: &mut Candidates, mut total_cost: usize) {
        if total_cost <= MAX_PHI_COPY_COST {
            return;
        }
        self.costs
            .sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        for &(cost, s) in &self.costs {
            if total_cost <= MAX_PHI_COPY_COST {
                break;
            }
            total_cost -= cost;
            c.slots[s as usize].reject = Some(Reject::PhiCost);
        }
        self.sites
            .retain(|&(s, _)| c.slots[s as usize].reject.is_none());
    }

    /// Forgets rejected slots (from here on `slot_of` names promoted slots only) and gives
    /// each promoted slot its zero. Zeros are interned once per type (most slots share a
    /// handful of types).
    fn forget_rejected(&mut self, f: &mut Body<'_>, c: &mut Candidates) {
        let mut zeros: SmallVec<[(Type, Const); 8]> = SmallVec::new();
        // The last zero used: runs of slots of one type are common.
        let mut last: Option<(Type, Const)> = None;
        for slot in c.slots.iter_mut() {
            if slot.reject.is_some() {
                c.slot_of[slot.value.index()] = NONE;
                continue;
            }
            let zero = match last.filter(|l| l.0 == slot.ty) {
                Some(l) => l,
                None => match zeros.iter().find(|z| z.0 == slot.ty) {
                    Some(&z) => z,
                    None => {
                        let z = (slot.ty, f.consts.zero(slot.ty));
                        zeros.push(z);
                        z
                    }
                },
            };
            slot.zero = zero.1;
            last = Some(zero);
        }
    }

    /// Creates the phi instructions placed by [`PhiPlan::place`], sorted by (block, slot),
    /// with a CSR index by block. Needs as many spare instruction rows in `f` as `place`
    /// returned, less the rows of promoted loads and stores it reuses.
    pub fn create(&mut self, f: &mut Body<'_>, cfg: &Cfg, c: &mut Candidates) {
        let n = f.num_blocks();
        self.phi_start.clear();
        self.phi_start.resize(n + 1, 0);
        let mut reuse = c.accesses.len();
        f.values.reserve(self.sites.len());
        self.phis.reserve(self.sites.len());
        for &(s, b) in &self.sites {
            self.phi_start[b as usize + 1] += 1;
            let slot = &c.slots[s as usize];
            let block = Block(b);
            // Reuse the table entry of a load or store that renaming removes (it is
            // overwritten only after renaming has read it), or append one. The access
            // list itself stays: renaming reads it (unreachable loads).
            let inst = loop {
                match reuse.checked_sub(1) {
                    Some(r) => {
                        reuse = r;
                        let (s2, _, i) = c.accesses[r];
                        if c.slots[s2 as usize].reject.is_none() {
                            break i;
                        }
                    }
                    None => {
                        break f.push_inst(
                            InstKind::Phi {
                                ty: slot.ty,
                                incoming: SmallVec::new(),
                            },
                            SmallVec::new(),
                            block,
                        );
                    }
                }
            };
            let value = Value::new(f.values.len());
            f.values.push(ValueData {
                ty: slot.ty,
                def: ValueDef::Result(inst, 0),
            });
            let in_start = self.incoming.len() as u32;
            let zero = Operand::Const(slot.zero);
            self.incoming
                .extend(std::iter::repeat_n(zero, cfg.preds(block).len()));
            self.phis.push(PlacedPhi {
                slot: s,
                block,
                value,
                inst,
                in_start,
            });
        }
        prefix_sums(&mut self.phi_start);
    }
}

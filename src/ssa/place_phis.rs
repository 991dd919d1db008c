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
//! Complexity: per slot O(live region edges + Σ|DF(b)| over DF+ + |DF+| log |DF+|); the
//! cost limit adds O(slots log slots); grouping the scan's def and use lists by slot is
//! O(pairs + slots) (linked per slot, not sorted). Scratch is reused; stamps avoid clearing
//! per slot (one mark array holds both "live-in" and "killed" for the current slot).

use super::promotable::{Candidates, NONE};
use super::{Mem2RegStats, Reject, MAX_PHI_COPY_COST};
use crate::analysis::{Cfg, DomTree, DominanceFrontiers, IdfScratch};
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
    /// `mark[b] == 2 * epoch`: the current slot is live-in at `b`; `2 * epoch + 1`: it is
    /// defined (or allocated) in `b` and not upward-exposed there; below: not reached.
    mark: Vec<u32>,
    /// `site[b] == epoch`: `b` is a reachable non-entry block of the current slot's DF+,
    /// where liveness decides whether a phi goes.
    site: Vec<u32>,
    epoch: u32,
    worklist: Vec<Block>,
    idf_in: Vec<Block>,
    idf_out: Vec<Block>,
    idf: IdfScratch,
    /// (slot, block) sites before the cost limit, grouped by slot.
    sites: Vec<(u32, u32)>,
    /// (cost, slot) of slots with phis.
    costs: Vec<(usize, u32)>,
    /// Counting-sort scratch: bucket starts and the sorted copy.
    sort_start: Vec<u32>,
    sorted: Vec<(u32, u32)>,
    /// Per slot, the last of its entries in the scan's `defs` and `uses` (or `NONE`), and
    /// per entry the slot's previous one: the lists grouped by slot without sorting them
    /// (placement does not depend on the order within a slot).
    def_head: Vec<u32>,
    /// `single_idf[b] = (function_stamp, |DF+({b})|)` once computed in this function.
    single_idf: Vec<(u32, u32)>,
    function_stamp: u32,
    def_next: Vec<u32>,
    use_head: Vec<u32>,
    use_next: Vec<u32>,
}

/// Links the (slot, block) `pairs` into per-slot lists: `head[s]` is the last pair of slot
/// `s` (or `NONE`), `next[k]` the one before pair `k`. O(pairs + slots).
fn link_by_slot(pairs: &[(u32, u32)], nslots: usize, head: &mut Vec<u32>, next: &mut Vec<u32>) {
    head.clear();
    head.resize(nslots, NONE);
    next.clear();
    next.extend(
        pairs
            .iter()
            .enumerate()
            .map(|(k, &(s, _))| std::mem::replace(&mut head[s as usize], k as u32)),
    );
}

/// The blocks of the list starting at `k` in `pairs` (see [`link_by_slot`]).
fn chain<'a>(
    pairs: &'a [(u32, u32)],
    next: &'a [u32],
    mut k: u32,
) -> impl Iterator<Item = u32> + 'a {
    std::iter::from_fn(move || {
        let b = pairs.get(k as usize)?.1;
        k = next[k as usize];
        Some(b)
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
        self.mark.clear();
        self.mark.resize(n, 0);
        self.site.clear();
        self.site.resize(n, 0);
        self.epoch = 0;
        self.function_stamp += 1;
        self.single_idf.resize(n, (0, 0));
        // Grouped by slot (the scan recorded each (slot, block) pair once).
        let nslots = c.slots.len();
        link_by_slot(&c.defs, nslots, &mut self.def_head, &mut self.def_next);
        link_by_slot(&c.uses, nslots, &mut self.use_head, &mut self.use_next);
        let mut gi = 0usize;
        let mut total_cost = 0usize;
        for s in 0..c.slots.len() {
            let (d0, u0) = (self.def_head[s], self.use_head[s]);
            let defs = || chain(&c.defs, &self.def_next, d0);
            let uses = || chain(&c.uses, &self.use_next, u0);
            let g0 = gi;
            while gi < c.late_goto.len() && c.late_goto[gi].0 as usize == s {
                gi += 1;
            }
            let slot = c.slots[s];
            if slot.reject.is_some() || u0 == NONE || d0 == NONE {
                // Rejected, never read (no phi needed) or never written (reads see zero).
                continue;
            }
            // One defining block that strictly dominates every upward-exposed use (a
            // variable initialised once, every parameter slot): no site is live, so the
            // liveness walk, which would cover the whole region from the uses back to the
            // definition, is skipped (see the module doc), and every block of DF+ of that
            // block is pruned. Its size is kept per block for the function: many slots
            // share their defining block (the entry, a declaration's block).
            let dominating_def = self.def_next[d0 as usize] == NONE && gi == g0 && {
                let d = Block(c.defs[d0 as usize].1);
                uses().all(|u| dom.strictly_dominates(d, Block(u)))
            };
            if dominating_def {
                let d = c.defs[d0 as usize].1 as usize;
                let pruned = match self.single_idf[d] {
                    (stamp, size) if stamp == self.function_stamp => size,
                    _ => {
                        self.idf_in.clear();
                        self.idf_in.push(Block(d as u32));
                        df.iterated(&self.idf_in, &mut self.idf_out, &mut self.idf);
                        let size = self.idf_out.len() as u32;
                        self.single_idf[d] = (self.function_stamp, size);
                        size
                    }
                };
                stats.phis_pruned += u64::from(pruned);
                continue;
            }
            self.epoch += 1;
            let epoch = self.epoch;
            let (live, killed) = (2 * epoch, 2 * epoch + 1);
            // Placement: DF+ of the defining blocks (plus late asm-goto labels).
            self.idf_in.clear();
            self.idf_in.extend(defs().map(Block));
            let labels_start = self.idf_in.len();
            for &(_, b) in &c.late_goto[g0..gi] {
                for &i in &f.block_insts[b as usize] {
                    if let InstKind::InlineAsm(asm) = &f.kinds[i.index()] {
                        self.idf_in.extend(asm.goto_labels.iter().copied());
                    }
                }
            }
            df.iterated(&self.idf_in, &mut self.idf_out, &mut self.idf);
            if self.idf_in.len() > labels_start {
                let labels: SmallVec<[Block; 4]> =
                    self.idf_in[labels_start..].iter().copied().collect();
                for l in labels {
                    if !self.idf_out.contains(&l) {
                        self.idf_out.push(l);
                    }
                }
            }
            // The sites liveness must decide: reachable non-entry blocks of DF+.
            let mut undecided = 0usize;
            for &b in &self.idf_out {
                if b.index() != 0 && cfg.is_reachable(b) && self.site[b.index()] != epoch {
                    self.site[b.index()] = epoch;
                    undecided += 1;
                }
            }
            // Liveness: backward from upward-exposed uses, stopped by kills; it stops as
            // soon as every site is known live (the rest of the region decides nothing).
            if undecided > 0 {
                self.mark[slot.block.index()] = killed;
                for b in defs() {
                    self.mark[b as usize] = killed;
                }
                for b in uses() {
                    if self.mark[b as usize] != live {
                        self.mark[b as usize] = live;
                        self.worklist.push(Block(b));
                        if self.site[b as usize] == epoch {
                            undecided -= 1;
                        }
                    }
                }
                while undecided > 0 {
                    let Some(b) = self.worklist.pop() else { break };
                    for &p in cfg.preds(b) {
                        let pi = p.index();
                        if self.mark[pi] < live && cfg.is_reachable(p) {
                            self.mark[pi] = live;
                            self.worklist.push(p);
                            if self.site[pi] == epoch {
                                undecided -= 1;
                            }
                        }
                    }
                }
                self.worklist.clear();
            }
            let mut cost = 0usize;
            for &b in &self.idf_out {
                if self.mark[b.index()] == live && b.index() != 0 && cfg.is_reachable(b) {
                    self.sites.push((s as u32, b.0));
                    cost += cfg.preds(b).len();
                } else {
                    stats.phis_pruned += 1;
                }
            }
            if cost > 0 {
                self.costs.push((cost, s as u32));
                total_cost += cost;
            }
        }
        // The copy-cost limit: drop the most expensive slots first.
        if total_cost > MAX_PHI_COPY_COST {
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
        // Forget rejected slots: from here on `slot_of` names promoted slots only. Zeros
        // are interned once per type (most slots share a handful of types).
        let mut zeros: SmallVec<[(Type, Const); 8]> = SmallVec::new();
        for slot in c.slots.iter_mut() {
            if slot.reject.is_some() {
                c.slot_of[slot.value.index()] = NONE;
            } else {
                slot.zero = match zeros.iter().find(|z| z.0 == slot.ty) {
                    Some(z) => z.1,
                    None => {
                        let z = f.consts.zero(slot.ty);
                        zeros.push((slot.ty, z));
                        z
                    }
                };
            }
        }
        // By (block, slot): the sites were pushed in slot order, so stably by block.
        let (start, out) = (&mut self.sort_start, &mut self.sorted);
        counting_sort(&mut self.sites, n, |(_, b)| b, start, out);
        self.sites.len()
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

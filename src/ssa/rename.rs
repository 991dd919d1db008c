//! Step 3 of SSA construction: renaming (002 step 6).
//!
//! What: `Renamer::run` walks the dominator tree once, iteratively (an explicit stack of
//! (block, next child, undo mark) frames: no recursion, so 100k-block functions are fine),
//! and rewrites the function:
//!
//! - at a block entry, its phis become the current definitions of their slots;
//! - a promoted `load` disappears: its result is mapped to the slot's current definition
//!   and every later use of it is rewritten to that operand (no `copy` is left);
//! - a promoted `store` disappears and its value (with integer constants narrowed to the
//!   slot's type) becomes the current definition;
//! - a register-constraint asm output into a promoted slot becomes a result of the asm
//!   (place `Pointer` to `Result`, with a fresh value) and the current definition;
//! - successor phis receive the current definition for each edge (one entry per edge, so a
//!   `br` naming a block twice fills two entries); along the goto edges of an `asm goto`
//!   they receive the definitions as they were just before that asm (its outputs and later
//!   definitions are invisible there);
//! - after the children, the block's definitions are undone.
//!
//! Two shapes of the same walk. Without inline asm (nearly every function) the walk in
//! dominator-tree preorder visits of each block only its placed phis, its promoted loads
//! and stores (the scan's access list, grouped by block) and, if an edge leaves it for a
//! block with phis, its successors' phis; every other instruction is rewritten afterwards
//! in one pass over the blocks in index order (`rewrite_blocks`), since the walk has then
//! mapped every removed load; in a reachable block that pass drops the walk's removals by
//! their dead flag (a listed row is otherwise live) before it looks at an instruction.
//! This halves the work per block, which was as large as the work per instruction on
//! `-O0` code (a handful of instructions per block). With inline
//! asm, whose goto edges and outputs depend on where the asm sits among the accesses, the
//! walk visits every instruction of every block (`walk_instructions`, `block`, `inst`)
//! and cleans the unreachable blocks after it. Both produce the same function.
//!
//! Definition stacks are one array `cur[slot]` plus an undo log of (slot, previous operand),
//! truncated back to the frame's mark when the walk leaves a block: together they are the
//! per-alloca stacks of Cytron et al. (1991) without one vector per alloca. Before any
//! definition a slot reads its zero constant (`ConstData::zero`: uninitialised locals).
//!
//! Cleanup: promoted allocas, loads and stores are unlisted from their blocks, except that
//! promoted parameter allocas stay in the entry block (002: the backend finds parameter
//! allocas by position). Blocks unreachable from the entry are not walked: their promoted
//! loads read zero (found through the scan's access list, before any of those blocks is
//! rewritten, as a use may come in an earlier block), their promoted stores and allocas are
//! removed, and their other instructions are rewritten like the rest. Phis that were in the function before are
//! rewritten last (their operands may come from blocks walked later). Placed phis are
//! written into their instruction entries at the very end: most reuse the entries of
//! removed loads and stores, which the walk must still read as loads and stores.
//!
//! Trivial phis and redundant phi SCCs (steps 3b and 3c, [`super::trivial_phis`]): before
//! materialising, placed phis whose incoming operands are one value apart from themselves,
//! and cycles of placed phis with one value from outside, are dropped. Their uses were
//! written during the walk, so every listed instruction or terminator that received a
//! placed phi's value is recorded (`phi_user_insts`, `phi_user_terms`: a range check on the
//! replaced operand) and rewritten afterwards; removed phis are unlisted from the front of
//! their blocks, their values left undefined (`ValueDef::Unused`), and the plan keeps only
//! the phis that stay.
//!
//! Invariants after `run`: no listed instruction uses a promoted alloca, a removed load or
//! a removed phi; every placed phi that stays is listed first in its block with one incoming entry per predecessor
//! edge in `Cfg::preds` order; the result verifies in phase `ssa` if the input verified.
//!
//! Complexity: O(instructions + operands + Σ phis × predecessor edges) time, O(values +
//! blocks) scratch reused across functions.

use super::place_phis::PhiPlan;
use super::promotable::{narrow, Candidates, NONE};
use super::trivial_phis::{TrivialPhis, KEPT};
use super::Mem2RegStats;
use crate::analysis::{Cfg, DomTree};
use crate::ir::{
    AsmOutputPlace, Block, Body, Inst, InstKind, IrRead, Operand, Terminator, Value, ValueData,
    ValueDef,
};
use smallvec::SmallVec;

/// "No replacement" in [`Renamer::repl`].
const NO_REPL: Operand = Operand::Value(Value(u32::MAX));

/// The renamer's reusable state; see the module doc.
#[derive(Default, Debug)]
pub(crate) struct Renamer {
    /// Current definition of every slot.
    cur: Vec<Operand>,
    /// Undo log of (slot, previous definition).
    log: Vec<(u32, Operand)>,
    /// `repl[v]`: what a removed load's result `v` reads, or `NO_REPL`.
    repl: Vec<Operand>,
    /// DFS frames: (block, next child position, log mark).
    stack: Vec<(u32, u32, u32)>,
    /// `c.accesses[access_start[b]..access_start[b + 1]]` are block `b`'s accesses (the
    /// scan records them in block order).
    access_start: Vec<u32>,
    /// `feeds_phis[b]`: some successor of `b` has placed phis.
    feeds_phis: Vec<bool>,
    /// Values for the phis of asm-goto labels, in edge order, for the current block.
    goto_vals: Vec<Operand>,
    /// Per target block: the stamp of the block that last filled its edges, and the next
    /// predecessor position of that block's edges.
    edge_stamp: Vec<u32>,
    edge_cursor: Vec<u32>,
    /// Blocks visited by the walk.
    visited: Vec<bool>,
    /// How many: the dominator tree's blocks (every block if it equals their count).
    reached: usize,
    /// Placed phi values: (first value index, count).
    phi_vals: (u32, u32),
    /// Listed instructions and terminators (by block) with an operand naming a placed phi.
    phi_user_insts: Vec<Inst>,
    phi_user_terms: Vec<Block>,
    /// Trivial-phi and redundant-SCC removal (steps 3b and 3c).
    trivial: TrivialPhis,
}

/// True if `v` is the alloca of a promoted slot.
#[inline]
fn is_slot(c: &Candidates, v: Value) -> bool {
    c.slot_of.get(v.index()).is_some_and(|&s| s != NONE)
}

/// Rewrites `op` through `repl`; true if it now names a placed phi (value index in
/// `phis.0..phis.0 + phis.1`), whose user the trivial-phi fix-up must revisit.
#[inline]
fn rewrite(repl: &[Operand], op: &mut Operand, phis: (u32, u32)) -> bool {
    if let Operand::Value(v) = *op {
        if let Some(&r) = repl.get(v.index()) {
            if r != NO_REPL {
                *op = r;
                if let Operand::Value(w) = r {
                    return w.0.wrapping_sub(phis.0) < phis.1;
                }
            }
        }
    }
    false
}

/// Rewrites every operand of `kind` through `repl` ([`rewrite`]); true if one now names a
/// placed phi. The common kinds are written out (in the order of
/// [`InstKind::for_each_operand_mut`], which takes the rest): no call per instruction.
#[inline]
fn rewrite_operands(kind: &mut InstKind, repl: &[Operand], phis: (u32, u32)) -> bool {
    match kind {
        InstKind::Binary { lhs, rhs, .. }
        | InstKind::Icmp { lhs, rhs, .. }
        | InstKind::Fcmp { lhs, rhs, .. } => rewrite(repl, lhs, phis) | rewrite(repl, rhs, phis),
        InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => rewrite(repl, arg, phis),
        InstKind::Load { ptr, .. } => rewrite(repl, ptr, phis),
        InstKind::Store { value, ptr, .. } => rewrite(repl, value, phis) | rewrite(repl, ptr, phis),
        InstKind::Gep { base, indices, .. } => {
            let mut hit = rewrite(repl, base, phis);
            for (i, _) in indices.iter_mut() {
                hit |= rewrite(repl, i, phis);
            }
            hit
        }
        InstKind::Call { callee, args, .. } => {
            let mut hit = false;
            if let crate::ir::Callee::Indirect(p) = callee {
                hit |= rewrite(repl, p, phis);
            }
            for a in args.iter_mut() {
                hit |= rewrite(repl, a, phis);
            }
            hit
        }
        _ => {
            let mut hit = false;
            kind.for_each_operand_mut(|op| hit |= rewrite(repl, op, phis));
            hit
        }
    }
}

/// Rewrites every operand of terminator `t` through `repl` ([`rewrite`]); true if one now
/// names a placed phi. Jumps without arguments, branches and returns are written out.
#[inline]
fn rewrite_terminator(t: &mut Terminator, repl: &[Operand], phis: (u32, u32)) -> bool {
    match t {
        Terminator::Jump(target) if target.args.is_empty() => false,
        Terminator::Br {
            cond,
            then_dest,
            else_dest,
        } if then_dest.args.is_empty() && else_dest.args.is_empty() => rewrite(repl, cond, phis),
        Terminator::Ret(Some(v)) => rewrite(repl, v, phis),
        Terminator::Ret(None) | Terminator::Unreachable => false,
        _ => {
            let mut hit = false;
            t.for_each_operand_mut(|op| hit |= rewrite(repl, op, phis));
            hit
        }
    }
}

impl Renamer {
    /// Renames `f` (see the module doc). `c` and `plan` come from the scan and placement of
    /// the same function.
    pub fn run(
        &mut self,
        f: &mut Body<'_>,
        cfg: &Cfg,
        dom: &DomTree,
        c: &Candidates,
        plan: &mut PhiPlan,
        stats: &mut Mem2RegStats,
    ) {
        let n = f.num_blocks();
        self.cur.clear();
        self.cur
            .extend(c.slots.iter().map(|s| Operand::Const(s.zero)));
        self.log.clear();
        self.repl.clear();
        self.repl.resize(f.values.len(), NO_REPL);
        if !plan.phis.is_empty() {
            // Read only for successors with phis.
            self.edge_stamp.clear();
            self.edge_stamp.resize(n, NONE);
            self.edge_cursor.resize(n, 0);
        }
        self.reached = dom.preorder().len();
        self.visited.clear();
        self.visited.resize(n, false);
        self.phi_vals = match plan.phis.first() {
            Some(p) => (p.value.0, plan.phis.len() as u32),
            None => (0, 0),
        };
        self.phi_user_insts.clear();
        self.phi_user_terms.clear();
        let Some(&entry) = cfg.rpo().first() else {
            return;
        };
        if c.has_asm {
            self.walk_instructions(f, cfg, dom, c, plan, entry, stats);
            self.unreachable(f, c, stats);
        } else {
            self.walk_accesses(f, cfg, dom, c, plan, stats);
            self.zero_unreachable_loads(f, c);
            self.rewrite_blocks(f, c, plan, stats);
        }
        // Phis that were there before: operands may come from any block.
        for &i in &c.old_phis {
            let (repl, ph) = (&self.repl, self.phi_vals);
            let mut hit = false;
            f.kinds[i.index()].for_each_operand_mut(|op| hit |= rewrite(repl, op, ph));
            if hit {
                self.phi_user_insts.push(i);
            }
        }
        // Steps 3b and 3c: trivial phis, then redundant phi SCCs, go; their uses read
        // what they forward to.
        let trivial = self.trivial.run(plan, cfg, c);
        let in_sccs = self.trivial.remove_redundant_sccs(plan, cfg);
        let removed = trivial + in_sccs;
        if removed > 0 {
            self.remove_redundant(f, plan);
        }
        stats.phis_trivial_removed = trivial;
        stats.phis_redundant_scc_removed = in_sccs;
        stats.phis_placed = plan.phis.len() as u64 - removed;
        // Materialise the placed phis that stay.
        for (k, p) in plan.phis.iter().enumerate() {
            if self.trivial.fwd[k] != KEPT {
                continue;
            }
            let preds = cfg.preds(p.block);
            let ops = &plan.incoming[p.in_start as usize..p.in_start as usize + preds.len()];
            let trivial = &mut self.trivial;
            let mut incoming: SmallVec<[(Block, Operand); 2]> =
                SmallVec::with_capacity(preds.len());
            for (&pred, &op) in preds.iter().zip(ops) {
                // Nothing to resolve if every placed phi stays.
                let op = if removed > 0 { trivial.resolve(op) } else { op };
                incoming.push((pred, op));
            }
            let ty = c.slots[p.slot as usize].ty;
            let row = p.inst.index();
            f.kinds[row] = InstKind::Phi { ty, incoming };
            f.results[row] = smallvec::smallvec![p.value];
            f.inst_blocks[row] = p.block;
            f.inst_dead[row] = false;
        }
        if removed > 0 {
            plan.retain(|k| self.trivial.fwd[k] == KEPT);
        }
    }

    /// Unlists the removed phis (trivial or in a redundant SCC), rewrites the recorded uses
    /// of placed phis through `trivial` and leaves the removed phis' values undefined.
    fn remove_redundant(&mut self, f: &mut Body<'_>, plan: &PhiPlan) {
        let trivial = &mut self.trivial;
        for &i in &self.phi_user_insts {
            f.kinds[i.index()].for_each_operand_mut(|op| *op = trivial.resolve(*op));
        }
        for &b in &self.phi_user_terms {
            f.terminators[b.index()].for_each_operand_mut(|op| *op = trivial.resolve(*op));
        }
        // Placed phis are listed first in their blocks, in `phis_of` order.
        let n = f.num_blocks();
        for b in 0..n {
            let (lo, hi) = (plan.phi_start[b] as usize, plan.phi_start[b + 1] as usize);
            if (lo..hi).all(|k| trivial.fwd[k] == KEPT) {
                continue;
            }
            let insts = &mut f.block_insts[b];
            let mut w = 0;
            for k in lo..hi {
                if trivial.fwd[k] == KEPT {
                    insts[w] = insts[k - lo];
                    w += 1;
                } else {
                    f.values[plan.phis[k].value.index()].def = ValueDef::Unused;
                }
            }
            insts.drain(w..hi - lo);
        }
    }

    /// The renaming walk of a function with inline asm: every instruction of every
    /// reachable block, in dominator-tree preorder ([`Renamer::block`]).
    #[allow(clippy::too_many_arguments)]
    fn walk_instructions(
        &mut self,
        f: &mut Body<'_>,
        cfg: &Cfg,
        dom: &DomTree,
        c: &Candidates,
        plan: &mut PhiPlan,
        entry: Block,
        stats: &mut Mem2RegStats,
    ) {
        self.stack.clear();
        self.stack.push((entry.0, 0, 0));
        self.block(f, cfg, c, plan, entry, stats);
        while let Some(top) = self.stack.last_mut() {
            let b = Block(top.0);
            let children = dom.children(b);
            if (top.1 as usize) < children.len() {
                let child = children[top.1 as usize];
                top.1 += 1;
                let mark = self.log.len() as u32;
                self.stack.push((child.0, 0, mark));
                self.block(f, cfg, c, plan, child, stats);
            } else {
                let mark = top.2 as usize;
                self.stack.pop();
                self.undo(mark);
            }
        }
    }

    /// Restores the definitions logged from `mark` on.
    fn undo(&mut self, mark: usize) {
        for &(s, prev) in self.log[mark..].iter().rev() {
            self.cur[s as usize] = prev;
        }
        self.log.truncate(mark);
    }

    /// The renaming walk of a function without inline asm: the dominator tree in preorder
    /// (the order of [`Renamer::walk_instructions`]), visiting of each block only its
    /// placed phis, its promoted loads and stores (the scan's access list, in instruction
    /// order) and its successors' phis. A promoted load's result is mapped to the current
    /// definition in `repl`, a promoted store defines its slot; both are flagged dead.
    /// The other instructions are rewritten afterwards, in one pass over the blocks
    /// ([`Renamer::rewrite_blocks`]): a use comes after its definition in this order, so
    /// `repl` is complete by then.
    fn walk_accesses(
        &mut self,
        f: &mut Body<'_>,
        cfg: &Cfg,
        dom: &DomTree,
        c: &Candidates,
        plan: &mut PhiPlan,
        stats: &mut Mem2RegStats,
    ) {
        let n = f.num_blocks();
        let starts = &mut self.access_start;
        starts.clear();
        starts.resize(n + 1, 0);
        for &(_, b, _) in &c.accesses {
            starts[b as usize + 1] += 1;
        }
        super::place_phis::prefix_sums(starts);
        let has_phis = !plan.phis.is_empty();
        // The blocks with an edge into a block with phis: only their walk fills incoming
        // entries (most blocks have no such edge). Placed phis are grouped by block.
        self.feeds_phis.clear();
        if has_phis {
            self.feeds_phis.resize(n, false);
        }
        let mut last = None;
        for p in &plan.phis {
            if last == Some(p.block) {
                continue;
            }
            last = Some(p.block);
            for &pred in cfg.preds(p.block) {
                self.feeds_phis[pred.index()] = true;
            }
        }
        self.stack.clear();
        let Body {
            kinds,
            results,
            inst_dead,
            consts,
            ..
        } = f;
        let (mut loads, mut stores) = (0, 0);
        for &b in dom.preorder() {
            // Leave the subtrees that end before `b`: pop down to its immediate dominator.
            let parent = dom.idom(b).map_or(NONE, |d| d.0);
            while let Some(&(top, _, mark)) = self.stack.last() {
                if top == parent {
                    break;
                }
                self.stack.pop();
                self.undo(mark as usize);
            }
            self.stack.push((b.0, 0, self.log.len() as u32));
            self.visited[b.index()] = true;
            if has_phis {
                for p in plan.phis_of(b) {
                    self.log.push((p.slot, self.cur[p.slot as usize]));
                    self.cur[p.slot as usize] = Operand::Value(p.value);
                }
            }
            let (lo, hi) = (
                self.access_start[b.index()] as usize,
                self.access_start[b.index() + 1] as usize,
            );
            for &(s, _, i) in &c.accesses[lo..hi] {
                let slot = &c.slots[s as usize];
                if slot.reject.is_some() {
                    continue;
                }
                let row = i.index();
                // The accesses are loads and stores; only a load has a result.
                if let Some(&r) = results[row].first() {
                    self.repl[r.index()] = self.cur[s as usize];
                    loads += 1;
                } else if let InstKind::Store { value, .. } = &kinds[row] {
                    let mut v = *value;
                    rewrite(&self.repl, &mut v, self.phi_vals);
                    if let Operand::Const(_) = v {
                        v = narrow(consts, v, slot.ty);
                    }
                    self.define(s as usize, v);
                    stores += 1;
                } else {
                    continue;
                }
                inst_dead[row] = true;
            }
            if has_phis && self.feeds_phis[b.index()] {
                self.fill_successor_phis(cfg, plan, b, usize::MAX);
            }
        }
        stats.loads_removed += loads;
        stats.stores_removed += stores;
    }

    /// The pass after [`Renamer::walk_accesses`] over every live block, in index order:
    /// drops the promoted loads and stores (those of unreachable blocks counted here) and
    /// allocas, rewrites every other operand through `repl` (recording the users of
    /// placed phis), lists the placed phis first in their blocks. Phis that were there
    /// before are rewritten later, with the rest of the function's phis.
    fn rewrite_blocks(
        &mut self,
        f: &mut Body<'_>,
        c: &Candidates,
        plan: &PhiPlan,
        stats: &mut Mem2RegStats,
    ) {
        let n = f.num_blocks();
        let has_phis = !plan.phis.is_empty();
        for b in 0..n {
            // The walk visited only live blocks.
            if self.visited[b] {
                self.rewrite_reachable(f, c, b);
            } else if f.block_dead[b] {
                continue;
            } else {
                self.rewrite_unreachable(f, c, b, stats);
            }
            let (lo, hi) = if has_phis {
                (plan.phi_start[b] as usize, plan.phi_start[b + 1] as usize)
            } else {
                (0, 0)
            };
            if lo < hi {
                // Phis first: append, shift the rest up, write them in front.
                let phis = &plan.phis[lo..hi];
                let insts = &mut f.block_insts[b];
                let w = insts.len();
                insts.extend(phis.iter().map(|p| p.inst));
                insts.copy_within(0..w, phis.len());
                for (slot, p) in insts.iter_mut().zip(phis) {
                    *slot = p.inst;
                }
            }
            if rewrite_terminator(&mut f.terminators[b], &self.repl, self.phi_vals) {
                self.phi_user_terms.push(Block(b as u32));
            }
        }
    }

    /// [`Renamer::rewrite_blocks`] on reachable block `b`: its listed dead rows are the
    /// promoted loads and stores the walk removed (a listed row is otherwise live), so
    /// they are dropped before their kind is looked at.
    fn rewrite_reachable(&mut self, f: &mut Body<'_>, c: &Candidates, b: usize) {
        let Body {
            kinds,
            results,
            inst_dead,
            block_insts,
            ..
        } = f;
        let (repl, ph) = (&self.repl, self.phi_vals);
        let insts = &mut block_insts[b];
        let mut w = 0;
        for r in 0..insts.len() {
            let i = insts[r];
            let row = i.index();
            if inst_dead[row] {
                continue;
            }
            let hit = match &mut kinds[row] {
                InstKind::Binary { lhs, rhs, .. }
                | InstKind::Icmp { lhs, rhs, .. }
                | InstKind::Fcmp { lhs, rhs, .. } => {
                    rewrite(repl, lhs, ph) | rewrite(repl, rhs, ph)
                }
                InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => rewrite(repl, arg, ph),
                InstKind::Load { ptr, .. } => rewrite(repl, ptr, ph),
                InstKind::Store { value, ptr, .. } => {
                    rewrite(repl, value, ph) | rewrite(repl, ptr, ph)
                }
                InstKind::Alloca { .. } => {
                    if results[row].first().is_some_and(|&v| is_slot(c, v)) {
                        inst_dead[row] = true;
                        continue;
                    }
                    false
                }
                InstKind::Phi { .. } => false,
                kind => rewrite_operands(kind, repl, ph),
            };
            if hit {
                self.phi_user_insts.push(i);
            }
            insts[w] = i;
            w += 1;
        }
        insts.truncate(w);
    }

    /// [`Renamer::rewrite_blocks`] on unreachable block `b`: its promoted loads (which
    /// read zero) and stores are counted and dropped here.
    fn rewrite_unreachable(
        &mut self,
        f: &mut Body<'_>,
        c: &Candidates,
        b: usize,
        stats: &mut Mem2RegStats,
    ) {
        let Body {
            kinds,
            results,
            inst_dead,
            block_insts,
            ..
        } = f;
        let promoted = |op: Operand| match op {
            Operand::Value(v) => is_slot(c, v),
            Operand::Const(_) => false,
        };
        let (repl, ph) = (&self.repl, self.phi_vals);
        let insts = &mut block_insts[b];
        let mut w = 0;
        for r in 0..insts.len() {
            let i = insts[r];
            let row = i.index();
            let keep = match &mut kinds[row] {
                InstKind::Load { ptr, .. } if promoted(*ptr) => {
                    stats.loads_removed += 1;
                    false
                }
                InstKind::Store { ptr, .. } if promoted(*ptr) => {
                    stats.stores_removed += 1;
                    false
                }
                InstKind::Alloca { .. } => !results[row].first().is_some_and(|&v| is_slot(c, v)),
                InstKind::Phi { .. } => true,
                kind => {
                    if rewrite_operands(kind, repl, ph) {
                        self.phi_user_insts.push(i);
                    }
                    true
                }
            };
            if keep {
                insts[w] = i;
                w += 1;
            } else {
                inst_dead[row] = true;
            }
        }
        insts.truncate(w);
    }

    /// Fills the incoming entries of the phis of `b`'s successors for the edges from `b`
    /// (one entry per edge, in `Cfg::preds` order): the current definitions along the
    /// first `nterm` edges (the terminator's), the asm-goto snapshot values along the rest.
    fn fill_successor_phis(&mut self, cfg: &Cfg, plan: &mut PhiPlan, b: Block, nterm: usize) {
        let mut g = 0;
        for (e, &s) in cfg.succs(b).iter().enumerate() {
            let (lo, hi) = (plan.phi_start[s.index()], plan.phi_start[s.index() + 1]);
            if lo == hi {
                continue;
            }
            let si = s.index();
            if self.edge_stamp[si] != b.0 {
                self.edge_stamp[si] = b.0;
                self.edge_cursor[si] = cfg.preds(s).partition_point(|&p| p < b) as u32;
            }
            let pos = self.edge_cursor[si] as usize;
            self.edge_cursor[si] += 1;
            for k in lo..hi {
                let p = plan.phis[k as usize];
                let v = if e < nterm {
                    self.cur[p.slot as usize]
                } else {
                    let v = self.goto_vals[g];
                    g += 1;
                    v
                };
                plan.incoming[p.in_start as usize + pos] = v;
            }
        }
    }

    fn define(&mut self, s: usize, op: Operand) {
        self.log.push((s as u32, self.cur[s]));
        self.cur[s] = op;
    }

    /// Processes one reachable block (phis, instructions, terminator, successor phis).
    fn block(
        &mut self,
        f: &mut Body<'_>,
        cfg: &Cfg,
        c: &Candidates,
        plan: &mut PhiPlan,
        b: Block,
        stats: &mut Mem2RegStats,
    ) {
        self.visited[b.index()] = true;
        let phis = plan.phis_of(b);
        for p in phis {
            self.log.push((p.slot, self.cur[p.slot as usize]));
            self.cur[p.slot as usize] = Operand::Value(p.value);
        }
        let nphis = phis.len();
        let mut insts = std::mem::take(&mut f.block_insts[b.index()]);
        self.goto_vals.clear();
        let mut w = 0;
        for r in 0..insts.len() {
            let i = insts[r];
            if self.inst(f, plan, c, i, stats) {
                insts[w] = i;
                w += 1;
            }
        }
        insts.truncate(w);
        if nphis > 0 {
            insts.splice(0..0, plan.phis_of(b).iter().map(|p| p.inst));
        }
        f.block_insts[b.index()] = insts;
        let (repl, ph) = (&self.repl, self.phi_vals);
        let mut hit = false;
        f.terminators[b.index()].for_each_operand_mut(|op| hit |= rewrite(repl, op, ph));
        if hit {
            self.phi_user_terms.push(b);
        }
        // Successor phis, one entry per edge; goto edges take the snapshot values.
        let nterm = f.terminators[b.index()].num_successors();
        self.fill_successor_phis(cfg, plan, b, nterm);
    }

    /// Rewrites one instruction of a reachable block; false if it is removed.
    fn inst(
        &mut self,
        f: &mut Body<'_>,
        plan: &PhiPlan,
        c: &Candidates,
        i: Inst,
        stats: &mut Mem2RegStats,
    ) -> bool {
        let slot_of = |op: Operand| -> Option<usize> {
            match op {
                Operand::Value(v) => match c.slot_of.get(v.index()) {
                    Some(&s) if s != NONE => Some(s as usize),
                    _ => None,
                },
                Operand::Const(_) => None,
            }
        };
        let row = i.index();
        match &mut f.kinds[row] {
            InstKind::Load { ptr, .. } => {
                if let Some(s) = slot_of(*ptr) {
                    if let Some(&r) = f.results[row].first() {
                        self.repl[r.index()] = self.cur[s];
                    }
                    stats.loads_removed += 1;
                    f.inst_dead[row] = true;
                    return false;
                }
            }
            InstKind::Store { value, ptr, .. } => {
                if let Some(s) = slot_of(*ptr) {
                    let mut v = *value;
                    rewrite(&self.repl, &mut v, self.phi_vals);
                    let v = narrow(f.consts, v, c.slots[s].ty);
                    self.define(s, v);
                    stats.stores_removed += 1;
                    f.inst_dead[row] = true;
                    return false;
                }
            }
            InstKind::Alloca { .. } => {
                // A promoted alloca goes, parameter allocas included (DESIGN.md 4).
                let promoted = f.results[row].first().and_then(|&v| slot_of(v.into()));
                if promoted.is_some() {
                    f.inst_dead[row] = true;
                }
                return promoted.is_none();
            }
            InstKind::Phi { .. } => return true, // rewritten at the end
            InstKind::InlineAsm(_) => {
                // Every operand, the pointer of an output written through memory (`=*m`
                // of `*p`, `p` loaded from a promoted slot) as well as the inputs.
                if rewrite_operands(&mut f.kinds[row], &self.repl, self.phi_vals) {
                    self.phi_user_insts.push(i);
                }
                let InstKind::InlineAsm(asm) = &f.kinds[row] else {
                    unreachable!("matched an asm above")
                };
                // Goto edges see the definitions before this asm's outputs.
                for &l in &asm.goto_labels {
                    for p in plan.phis_of(l) {
                        self.goto_vals.push(self.cur[p.slot as usize]);
                    }
                }
                let promoted = asm.outputs.iter().any(|o| match o.place {
                    AsmOutputPlace::Pointer(p) => slot_of(p).is_some(),
                    AsmOutputPlace::Result => false,
                });
                if promoted {
                    let mut defs = SmallVec::new();
                    convert_asm_outputs(f, i, &slot_of, &mut defs);
                    for (s, v) in defs {
                        self.define(s, Operand::Value(v));
                    }
                }
                return true;
            }
            _ => {}
        }
        if rewrite_operands(&mut f.kinds[row], &self.repl, self.phi_vals) {
            self.phi_user_insts.push(i);
        }
        true
    }

    /// Maps the results of the promoted loads in blocks the walk did not reach to their
    /// slot's zero (taken from the scan's access list: a load's result may be used in any
    /// unreachable block, before or after its own). Returns false if every live block was
    /// reached.
    fn zero_unreachable_loads(&mut self, f: &Body<'_>, c: &Candidates) -> bool {
        let n = f.num_blocks();
        if self.reached == n || (0..n).all(|b| self.visited[b] || f.block_dead[b]) {
            return false;
        }
        for &(s, b, i) in &c.accesses {
            if self.visited[b as usize] || c.slots[s as usize].reject.is_some() {
                continue;
            }
            if let InstKind::Load { .. } = f.kinds[i.index()] {
                if let Some(&r) = f.results[i.index()].first() {
                    self.repl[r.index()] = Operand::Const(c.slots[s as usize].zero);
                }
            }
        }
        true
    }

    /// Cleans the blocks the walk did not reach (functions with inline asm): promoted
    /// loads read zero, promoted stores and allocas go, other operands are rewritten.
    fn unreachable(&mut self, f: &mut Body<'_>, c: &Candidates, stats: &mut Mem2RegStats) {
        let slot_of = |op: Operand| -> Option<usize> {
            match op {
                Operand::Value(v) => match c.slot_of.get(v.index()) {
                    Some(&s) if s != NONE => Some(s as usize),
                    _ => None,
                },
                Operand::Const(_) => None,
            }
        };
        if !self.zero_unreachable_loads(f, c) {
            return;
        }
        for b in 0..f.num_blocks() {
            if self.visited[b] || f.block_dead[b] {
                continue;
            }
            let mut insts = std::mem::take(&mut f.block_insts[b]);
            let mut w = 0;
            for r in 0..insts.len() {
                let i = insts[r];
                let row = i.index();
                let removed = match &f.kinds[row] {
                    InstKind::Load { ptr, .. } if slot_of(*ptr).is_some() => {
                        stats.loads_removed += 1;
                        true
                    }
                    InstKind::Store { ptr, .. } if slot_of(*ptr).is_some() => {
                        stats.stores_removed += 1;
                        true
                    }
                    InstKind::Alloca { .. } => f.results[row]
                        .first()
                        .and_then(|&v| slot_of(v.into()))
                        .is_some(),
                    InstKind::InlineAsm(_) => {
                        // A register output into a promoted slot becomes a dead result.
                        convert_asm_outputs(f, i, &slot_of, &mut SmallVec::new());
                        false
                    }
                    _ => false,
                };
                if removed {
                    f.inst_dead[row] = true;
                    continue;
                }
                if rewrite_operands(&mut f.kinds[row], &self.repl, self.phi_vals) {
                    self.phi_user_insts.push(i);
                }
                insts[w] = i;
                w += 1;
            }
            insts.truncate(w);
            let (repl, ph) = (&self.repl, self.phi_vals);
            let mut hit = false;
            f.terminators[b].for_each_operand_mut(|op| hit |= rewrite(repl, op, ph));
            if hit {
                self.phi_user_terms.push(Block(b as u32));
            }
            f.block_insts[b] = insts;
        }
    }
}

/// Turns every `Pointer` output of asm `i` into a promoted slot into a `Result` output
/// with a fresh value, renumbering the results; appends (slot, value) to `defs` in output
/// order.
fn convert_asm_outputs(
    f: &mut Body<'_>,
    i: Inst,
    slot_of: &impl Fn(Operand) -> Option<usize>,
    defs: &mut SmallVec<[(usize, Value); 2]>,
) {
    let row = i.index();
    let values = &mut *f.values;
    let InstKind::InlineAsm(asm) = &mut f.kinds[row] else {
        return;
    };
    let mut old = std::mem::take(&mut f.results[row]).into_iter();
    let mut results: SmallVec<[Value; 1]> = SmallVec::new();
    for o in asm.outputs.iter_mut() {
        match o.place {
            AsmOutputPlace::Result => results.extend(old.next()),
            AsmOutputPlace::Pointer(p) => {
                if let Some(s) = slot_of(p) {
                    o.place = AsmOutputPlace::Result;
                    let v = Value::new(values.len());
                    values.push(ValueData {
                        ty: o.ty,
                        def: ValueDef::Unused,
                    });
                    results.push(v);
                    defs.push((s, v));
                }
            }
        }
    }
    for (n, &v) in results.iter().enumerate() {
        values[v.index()].def = ValueDef::Result(i, n as u32);
    }
    f.results[row] = results;
}

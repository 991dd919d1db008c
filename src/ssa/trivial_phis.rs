//! Steps 3b and 3c of SSA construction: removal of the placed phis that renaming showed
//! trivial, then of redundant phi SCCs.
//!
//! What: `TrivialPhis::run` (3b) finds, after renaming filled the incoming operands, the
//! placed phis whose incoming operands are all one operand `x` apart from the phi itself
//! (and apart from edges out of unreachable predecessors, whose value never flows), and
//! maps each to `x` (`fwd`). `TrivialPhis::remove_redundant_sccs` (3c) then finds, among
//! the placed phis that stay, the redundant SCCs: strongly connected components of the
//! graph "phi -> placed phi among its operands" whose operands from outside the component
//! are all one value `x`, and maps every member to `x`. Liveness pruning cannot see either:
//! the slot is live and defined on several paths, but every path stores the same value
//! (`ret 1` on both arms of a branch, a variable re-stored with the value it already holds,
//! a loop that never changes it). Cycles of phis where no single phi is trivial come from
//! `x = x;` in an irreducible loop, or from nested loops that store the same value before
//! the outer loop and at the end of the inner loop's body (jq's `jv_array_indexes`:
//! `idx = -1`, with the outer header's phi `[-1, inner]` and the inner header's
//! `[outer, -1]`). LLVM's `PromoteMemToReg` removes the trivial phis after renaming (with
//! `simplifyInstruction`), not the cycles; this is what keeps our phi count at or below
//! its count.
//!
//! Algorithm (Braun, Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and Efficient
//! Construction of Static Single Assignment Form", CC 2013):
//! - 3b, trivial phis (their section 3.1), run once over all placed phis: a worklist that
//!   starts with every phi; a phi found trivial is forwarded to its unique operand and the
//!   phis using it are queued again, since removing one phi can make another trivial (a
//!   loop phi `[entry: x], [latch: p]` where `p` was `[x, x]`). A first pass that only
//!   tests each phi on its operands as renaming left them skips the user lists and the
//!   worklist when no phi is trivial (most functions: the worklist would remove nothing).
//! - 3c, redundant phi SCCs (their section 3.2, Algorithm 5): Tarjan's algorithm (1972,
//!   iterative, dense indices) on the kept phis lists the SCCs with every SCC after those
//!   its operands lie in; each SCC in that order collects its operands from outside
//!   (resolved, so earlier replacements count): exactly one value `x` replaces the whole
//!   SCC; several values mean the SCC stays, but its inner phis (those with every operand
//!   inside it) may hold a redundant subset, so Tarjan runs again on the inner phis alone
//!   and their SCCs are examined the same way before the outer list continues (a stack of
//!   frames, no recursion). Nothing runs unless two phis have another phi both as operand
//!   and as user (counted while 3b builds its user lists), and nothing is examined if
//!   Tarjan finds no cycle: 3b left no single phi that could go. Tarjan covers only the
//!   kept phis with a placed phi among their operands: any other phi is in no cycle, and
//!   its operands resolve as 3b saw them whatever 3c removes. A single-phi SCC is examined
//!   only once some phi has been removed (by 3b or earlier in 3c): before that, 3b's
//!   verdict on the same operands stands.
//!
//! Operands are resolved through `fwd` with path halving, so chains of removed phis cost
//! amortised near-constant time.
//!
//! Correctness. Renaming gives strict SSA: an operand for the edge from `p` is defined in a
//! block that dominates `p` (the current definition at the end of `p` in a dominator-tree
//! walk), or is a constant.
//! - A trivial phi: if every incoming operand from a reachable predecessor is `x` or the
//!   phi itself, the phi's value is `x` on every execution, and `x` dominates the phi's
//!   block (its definition dominates every reachable predecessor whose edge carries it,
//!   and the self edges come from blocks the phi's block dominates), so `x` can replace
//!   every use. A phi whose reachable operands are all itself cannot occur in a reachable
//!   block (the edge from the immediate dominator's side carries another value); it would
//!   read the slot's zero.
//! - A redundant SCC `S` with single outside operand `x`: (value) on any execution, the
//!   first evaluation of a member takes an operand that is not a member (a member operand
//!   must have been defined earlier on the path, by strictness), so it is `x`; every later
//!   evaluation takes `x` or the value of a member evaluated before, `x` by induction.
//!   (dominance) suppose a path from the entry reaches a member's block without passing
//!   `x`'s definition; take the shortest. Its last edge, from `p`, carries `x` (whose
//!   definition then dominates `p`, so the path passed it) or a member whose block
//!   dominates `p` (so a shorter such path ends at that block): a contradiction either
//!   way. So `x` dominates every use of a member. An SCC with no outside operand cannot
//!   occur in reachable blocks (the first member reached on a path would need an earlier
//!   member); should one appear it is kept. Members may belong to different slots (`x =
//!   y;` makes one slot's phi an operand of another's), but an operand has its phi's type,
//!   so the members and `x` share one type.
//! - Completeness of 3c: if an SCC `S` has two outside values, a redundant proper subset
//!   `P` of `S` (value `v`) has no member with an operand outside `S`: that operand would
//!   be `v`, and `S` being strongly connected, some member of `P` also has an operand in
//!   `S \ P`, a second value outside `P`. So `P` lies in the inner phis, whose SCCs are
//!   examined; replacing one of them by `v` (a member of `S`) keeps `S` strongly connected
//!   and its outside operands unchanged. The SCC order makes every SCC see its operands'
//!   replacements, and a replacement never changes an SCC examined earlier (edges go from
//!   later SCCs to earlier ones only), so one pass reaches the fixpoint: no redundant set
//!   of placed phis is left (the mem2reg fuzz oracle checks this by brute force).
//!
//! Invariants after both steps: `fwd[k]` is `KEPT` or an operand that is not a removed
//! phi after `TrivialPhis::resolve`; every kept phi has two different operands from
//! reachable predecessors besides itself, and no set of kept phis is redundant.
//!
//! Complexity: 3b is O(phis + incoming operands) time (each phi is re-examined at most
//! once per removed phi among its operands). 3c is O(phis + incoming operands) per level
//! of inner-phi nesting (each level's sets are disjoint and strictly smaller than the SCC
//! they come from: at most the loop nesting depth in practice, O(phis) levels in the
//! worst case); a function without phi cycles costs one Tarjan run. Scratch
//! is reused across functions; no hashing: a placed phi's index is its value's index minus
//! the first placed phi's value index (placement creates their values consecutively).

use super::place_phis::PhiPlan;
use super::promotable::Candidates;
use crate::analysis::Cfg;
use crate::ir::{Operand, Value};

/// "Kept" in [`TrivialPhis::fwd`].
pub(crate) const KEPT: Operand = Operand::Value(Value(u32::MAX));

/// Reusable scratch of the trivial-phi and redundant-SCC removal; see the module doc.
#[derive(Default, Debug)]
pub(crate) struct TrivialPhis {
    /// `fwd[k]`: what placed phi `k` was replaced by (trivial or in a redundant SCC), or
    /// [`KEPT`].
    pub fwd: Vec<Operand>,
    /// Value index of placed phi 0 (placed phi `k` defines value `first + k`).
    first: u32,
    /// CSR of phi users: `users[user_start[k]..user_start[k + 1]]` are the placed phis
    /// with an incoming operand that is phi `k`'s value.
    user_start: Vec<u32>,
    users: Vec<u32>,
    worklist: Vec<u32>,
    queued: Vec<bool>,
    /// `has_phi_operand[k]`: placed phi `k` has another placed phi among its operands.
    has_phi_operand: Vec<bool>,
    /// `has_user[k]`: another placed phi has placed phi `k` among its operands (the quick
    /// test's stand-in for the user lists).
    has_user: Vec<bool>,
    /// At least two placed phis have another placed phi both as an operand and as a
    /// user: without that no phi cycle exists and step 3c has nothing to do.
    may_cycle: bool,
    /// Step 3b removed some phi (step 3c then re-examines single phis: one whose operand
    /// resolves through a chain of removed phis may have become trivial unnoticed).
    run_removed: bool,
    /// Redundant-SCC step: `mark[k] == epoch` while phi `k` is in the set Tarjan runs on
    /// or in the SCC being examined (a new epoch for each).
    mark: Vec<u32>,
    epoch: u32,
    /// Tarjan: preorder number ([`UNVISITED`] before the visit), low link, on-stack flag.
    order: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    /// Tarjan's stack of visited phis whose SCC is not complete yet.
    tarjan_stack: Vec<u32>,
    /// Depth-first search frames: (phi, next incoming position to look at).
    dfs: Vec<(u32, u32)>,
    /// The phi set the next Tarjan run covers (all kept phis, then the inner phis of an
    /// SCC).
    set: Vec<u32>,
    /// SCC members, SCC after SCC; `sccs[i]` is the range of SCC `i` in it.
    members: Vec<u32>,
    sccs: Vec<(u32, u32)>,
    /// One frame per set being processed, innermost last.
    frames: Vec<SetFrame>,
}

/// "Not visited yet" in [`TrivialPhis::order`].
const UNVISITED: u32 = u32::MAX;

/// The SCCs of one phi set, examined in order: `sccs[next..end]` are still to come; the
/// frame's SCCs and members start at `first` and `members_base` (truncated back to them
/// when the frame is done, since frames nest like a stack).
#[derive(Clone, Copy, Debug)]
struct SetFrame {
    first: u32,
    next: u32,
    end: u32,
    members_base: u32,
}

impl TrivialPhis {
    /// The placed phi whose value `op` is, if any.
    #[inline]
    pub fn phi_of(&self, op: Operand) -> Option<usize> {
        match op {
            Operand::Value(v) => {
                let k = v.0.wrapping_sub(self.first) as usize;
                (k < self.fwd.len()).then_some(k)
            }
            Operand::Const(_) => None,
        }
    }

    /// `op` with removed placed phis replaced by what they forward to (path halving).
    #[inline]
    pub fn resolve(&mut self, mut op: Operand) -> Operand {
        while let Some(k) = self.phi_of(op) {
            let next = self.fwd[k];
            if next == KEPT {
                break;
            }
            if let Some(j) = self.phi_of(next) {
                let after = self.fwd[j];
                if after != KEPT {
                    self.fwd[k] = after;
                }
            }
            op = next;
        }
        op
    }

    /// Step 3b: finds the trivial phis of `plan` (incoming operands filled by renaming)
    /// and fills `fwd`; returns how many were removed. `c` gives each slot's zero.
    pub fn run(&mut self, plan: &PhiPlan, cfg: &Cfg, c: &Candidates) -> u64 {
        let n = plan.phis.len();
        self.fwd.clear();
        self.fwd.resize(n, KEPT);
        self.may_cycle = false;
        self.run_removed = false;
        let Some(p0) = plan.phis.first() else {
            return 0;
        };
        self.first = p0.value.0;
        debug_assert!(plan
            .phis
            .iter()
            .enumerate()
            .all(|(k, p)| p.value.index() == self.first as usize + k));
        if !self.any_trivial(plan, cfg) {
            return 0;
        }
        // Users, as a CSR (count, prefix sums, fill).
        self.user_start.clear();
        self.user_start.resize(n + 1, 0);
        self.has_phi_operand.clear();
        self.has_phi_operand.resize(n, false);
        for (k, p) in plan.phis.iter().enumerate() {
            let m = cfg.preds(p.block).len();
            for &op in &plan.incoming[p.in_start as usize..p.in_start as usize + m] {
                if let Some(j) = self.phi_of(op) {
                    if j != k {
                        self.user_start[j + 1] += 1;
                        self.has_phi_operand[k] = true;
                    }
                }
            }
        }
        for k in 0..n {
            self.user_start[k + 1] += self.user_start[k];
        }
        self.users.clear();
        self.users.resize(self.user_start[n] as usize, 0);
        self.worklist.clear();
        self.worklist.extend((0..n as u32).rev());
        self.queued.clear();
        self.queued.resize(n, true);
        {
            // Fill with a moving cursor per phi (user_start[j] advances, then is restored).
            for (k, p) in plan.phis.iter().enumerate() {
                let m = cfg.preds(p.block).len();
                for &op in &plan.incoming[p.in_start as usize..p.in_start as usize + m] {
                    if let Some(j) = self.phi_of(op) {
                        if j != k {
                            let at = self.user_start[j] as usize;
                            self.users[at] = k as u32;
                            self.user_start[j] += 1;
                        }
                    }
                }
            }
            for k in (1..=n).rev() {
                self.user_start[k] = self.user_start[k - 1];
            }
            self.user_start[0] = 0;
        }
        // Every member of a cycle of two or more phis has another phi as an operand and
        // as a user; removals only take such edges away.
        self.may_cycle = (0..n)
            .filter(|&k| self.has_phi_operand[k] && self.user_start[k + 1] > self.user_start[k])
            .nth(1)
            .is_some();
        let mut removed = 0;
        while let Some(k) = self.worklist.pop() {
            let k = k as usize;
            self.queued[k] = false;
            if self.fwd[k] != KEPT {
                continue;
            }
            let p = plan.phis[k];
            let preds = cfg.preds(p.block);
            let me = Operand::Value(p.value);
            let mut unique: Option<Operand> = None;
            let mut trivial = true;
            for (e, &pred) in preds.iter().enumerate() {
                if !cfg.is_reachable(pred) {
                    continue;
                }
                let op = self.resolve(plan.incoming[p.in_start as usize + e]);
                if op == me {
                    continue;
                }
                match unique {
                    None => unique = Some(op),
                    Some(u) if u == op => {}
                    Some(_) => {
                        trivial = false;
                        break;
                    }
                }
            }
            if !trivial {
                continue;
            }
            let zero = Operand::Const(c.slots[p.slot as usize].zero);
            self.fwd[k] = unique.unwrap_or(zero);
            removed += 1;
            for u in self.user_start[k]..self.user_start[k + 1] {
                let u = self.users[u as usize] as usize;
                if !self.queued[u] && self.fwd[u] == KEPT {
                    self.queued[u] = true;
                    self.worklist.push(u as u32);
                }
            }
        }
        self.run_removed = removed > 0;
        removed
    }

    /// The quick test of step 3b: true if some phi of `plan` is trivial on its operands
    /// as renaming left them. If none is, the worklist of [`TrivialPhis::run`] removes
    /// nothing (it examines every phi once with nothing resolved yet, and queues again
    /// only the users of a removed phi), so only `may_cycle` is set here, as `run` sets
    /// it, from one pass over the incoming operands instead of the user lists.
    fn any_trivial(&mut self, plan: &PhiPlan, cfg: &Cfg) -> bool {
        let n = plan.phis.len();
        self.has_phi_operand.clear();
        self.has_phi_operand.resize(n, false);
        self.has_user.clear();
        self.has_user.resize(n, false);
        let mut any = false;
        for (k, p) in plan.phis.iter().enumerate() {
            let preds = cfg.preds(p.block);
            let me = Operand::Value(p.value);
            let mut unique: Option<Operand> = None;
            let mut trivial = true;
            let ops = &plan.incoming[p.in_start as usize..p.in_start as usize + preds.len()];
            for (&pred, &op) in preds.iter().zip(ops) {
                if let Some(j) = self.phi_of(op) {
                    if j != k {
                        self.has_user[j] = true;
                        self.has_phi_operand[k] = true;
                    }
                }
                if !trivial || op == me || !cfg.is_reachable(pred) {
                    continue;
                }
                match unique {
                    None => unique = Some(op),
                    Some(u) if u == op => {}
                    Some(_) => trivial = false,
                }
            }
            any |= trivial;
        }
        if !any {
            self.may_cycle = (0..n)
                .filter(|&k| self.has_phi_operand[k] && self.has_user[k])
                .nth(1)
                .is_some();
        }
        any
    }

    /// Step 3c, after [`TrivialPhis::run`] on the same `plan`: removes the redundant SCCs
    /// among the phis `run` kept (see the module doc) and extends `fwd` with them; returns
    /// how many phis were removed.
    pub fn remove_redundant_sccs(&mut self, plan: &PhiPlan, cfg: &Cfg) -> u64 {
        let n = self.fwd.len();
        if !self.may_cycle {
            return 0;
        }
        // Only the kept phis with a placed phi among their operands: the others are never
        // in a cycle, and their operands never resolve to anything else, so `run`'s
        // verdict (not trivial) stands for them whatever 3c removes.
        self.set.clear();
        self.set.extend(
            (0..n as u32)
                .filter(|&k| self.fwd[k as usize] == KEPT && self.has_phi_operand[k as usize]),
        );
        // Fewer than two such phis make no cycle, and `run` left no single phi that could
        // go on its own.
        if self.set.len() < 2 {
            return 0;
        }
        self.mark.clear();
        self.mark.resize(n, 0);
        self.epoch = 0;
        self.order.resize(n, UNVISITED);
        self.low.resize(n, 0);
        self.on_stack.resize(n, false);
        self.members.clear();
        self.sccs.clear();
        self.frames.clear();
        self.push_set(plan, cfg);
        if self.sccs.len() == self.set.len() {
            // No cycle: every SCC is a single phi that `run` found not trivial, and none
            // changes while nothing is removed.
            return 0;
        }
        let mut removed = 0;
        while let Some(frame) = self.frames.last_mut() {
            if frame.next == frame.end {
                let done = *frame;
                self.frames.pop();
                self.sccs.truncate(done.first as usize);
                self.members.truncate(done.members_base as usize);
                continue;
            }
            let (lo, hi) = self.sccs[frame.next as usize];
            frame.next += 1;
            let (lo, hi) = (lo as usize, hi as usize);
            if hi - lo == 1 && removed == 0 && !self.run_removed {
                // A single phi while no phi has been removed at all: `run` found it not
                // trivial on these very operands.
                continue;
            }
            // Operands from outside the SCC (resolved, so replacements made earlier count),
            // and the members whose operands all lie inside it (the next set, if needed).
            self.epoch += 1;
            let scc = self.epoch;
            for &k in &self.members[lo..hi] {
                self.mark[k as usize] = scc;
            }
            self.set.clear();
            let mut outside: Option<Operand> = None;
            let mut many = false;
            for m in lo..hi {
                let k = self.members[m];
                let p = plan.phis[k as usize];
                let mut inner = true;
                for (e, &pred) in cfg.preds(p.block).iter().enumerate() {
                    if !cfg.is_reachable(pred) {
                        continue;
                    }
                    let op = self.resolve(plan.incoming[p.in_start as usize + e]);
                    if self.phi_of(op).is_some_and(|w| self.mark[w] == scc) {
                        continue;
                    }
                    inner = false;
                    match outside {
                        None => outside = Some(op),
                        Some(x) if x == op => {}
                        Some(_) => many = true,
                    }
                }
                if inner {
                    self.set.push(k);
                }
            }
            if !many {
                // One value from outside: every member is that value. None at all cannot
                // happen in reachable blocks (the module doc); such an SCC is kept.
                if let Some(x) = outside {
                    for &k in &self.members[lo..hi] {
                        self.fwd[k as usize] = x;
                    }
                    removed += (hi - lo) as u64;
                }
            } else if hi - lo > 1 && !self.set.is_empty() {
                // Only the inner members can form a redundant subset: look at their SCCs
                // before this frame's later SCCs, which may use them.
                self.push_set(plan, cfg);
            }
        }
        removed
    }

    /// Runs Tarjan on `set` and pushes a frame over the SCCs found.
    fn push_set(&mut self, plan: &PhiPlan, cfg: &Cfg) {
        let first = self.sccs.len() as u32;
        let members_base = self.members.len() as u32;
        self.tarjan(plan, cfg);
        self.frames.push(SetFrame {
            first,
            next: first,
            end: self.sccs.len() as u32,
            members_base,
        });
    }

    /// Tarjan's algorithm (1972), iterative, on the phis of `set` with an edge from each
    /// to every phi of `set` among its resolved operands from reachable predecessors.
    /// Appends the SCCs to `members` and `sccs` in completion order, in which an SCC comes
    /// after every SCC it reaches: operands before their users.
    fn tarjan(&mut self, plan: &PhiPlan, cfg: &Cfg) {
        self.epoch += 1;
        let run = self.epoch;
        for &k in &self.set {
            let k = k as usize;
            self.mark[k] = run;
            self.order[k] = UNVISITED;
            self.on_stack[k] = false;
        }
        let mut count = 0;
        for r in 0..self.set.len() {
            let root = self.set[r];
            if self.order[root as usize] != UNVISITED {
                continue;
            }
            self.visit(root, &mut count);
            while let Some(&(v, e)) = self.dfs.last() {
                let v = v as usize;
                let p = plan.phis[v];
                let preds = cfg.preds(p.block);
                let ops = &plan.incoming[p.in_start as usize..p.in_start as usize + preds.len()];
                // The operands of `v` from position `e` on, until one leads to a phi not
                // visited yet (descend into it, resuming here later) or the end.
                let mut e = e as usize;
                let mut descend = None;
                while e < ops.len() {
                    let op = ops[e];
                    e += 1;
                    // Most operands are not placed phis (nor resolve to one): test that
                    // first.
                    if self.phi_of(op).is_none() || !cfg.is_reachable(preds[e - 1]) {
                        continue;
                    }
                    let op = self.resolve(op);
                    let Some(w) = self.phi_of(op) else {
                        continue;
                    };
                    if self.mark[w] != run {
                        continue;
                    }
                    if self.order[w] == UNVISITED {
                        descend = Some(w as u32);
                        break;
                    }
                    if self.on_stack[w] {
                        self.low[v] = self.low[v].min(self.order[w]);
                    }
                }
                if let Some(w) = descend {
                    self.dfs.last_mut().expect("v's frame").1 = e as u32;
                    self.visit(w, &mut count);
                    continue;
                }
                self.dfs.pop();
                if let Some(&(u, _)) = self.dfs.last() {
                    let u = u as usize;
                    self.low[u] = self.low[u].min(self.low[v]);
                }
                if self.low[v] == self.order[v] {
                    let lo = self.members.len() as u32;
                    loop {
                        let w = self.tarjan_stack.pop().expect("v is on the stack");
                        self.on_stack[w as usize] = false;
                        self.members.push(w);
                        if w as usize == v {
                            break;
                        }
                    }
                    self.sccs.push((lo, self.members.len() as u32));
                }
            }
        }
    }

    /// Tarjan: numbers phi `k` and opens its frame.
    fn visit(&mut self, k: u32, count: &mut u32) {
        let i = k as usize;
        self.order[i] = *count;
        self.low[i] = *count;
        *count += 1;
        self.on_stack[i] = true;
        self.tarjan_stack.push(k);
        self.dfs.push((k, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Cfg;
    use crate::ir::{Block, Inst};
    use crate::ssa::place_phis::PlacedPhi;

    /// Placed phi values start here; other values are below.
    const FIRST: u32 = 100;

    fn val(v: u32) -> Operand {
        Operand::Value(Value(v))
    }

    /// The plan of `phis`, (block, incoming operands in `Cfg::preds` order), with values
    /// `FIRST`, `FIRST + 1`, ... in order.
    fn plan(phis: &[(u32, Vec<Operand>)]) -> PhiPlan {
        let mut plan = PhiPlan::default();
        for (k, (b, ops)) in phis.iter().enumerate() {
            plan.phis.push(PlacedPhi {
                slot: 0,
                block: Block(*b),
                value: Value(FIRST + k as u32),
                inst: Inst(k as u32),
                in_start: plan.incoming.len() as u32,
            });
            plan.incoming.extend_from_slice(ops);
        }
        plan
    }

    /// Both steps; (trivial, in SCCs) removed.
    fn remove(t: &mut TrivialPhis, plan: &PhiPlan, cfg: &Cfg) -> (u64, u64) {
        // No phi here is trivial with no operand but itself, so no slot zero is needed.
        let trivial = t.run(plan, cfg, &Candidates::default());
        (trivial, t.remove_redundant_sccs(plan, cfg))
    }

    /// An irreducible loop (block1 and block2 both entered from block0) where x is only
    /// re-stored: p0 = [x, p1, y from the unreachable block4], p1 = [x, p0] and, at the
    /// exit, p2 = [p0, p1]. None is trivial; {p0, p1} is redundant (the edge from block4
    /// does not count), and then so is p2.
    fn irreducible() -> (PhiPlan, Cfg) {
        let mut cfg = Cfg::new();
        cfg.compute_from_succs(&[vec![1, 2], vec![2, 3], vec![1, 3], vec![], vec![1]]);
        assert_eq!(cfg.preds(Block(1)), &[Block(0), Block(2), Block(4)]);
        let (x, y) = (val(1), val(2));
        let p = |k| val(FIRST + k);
        let plan = plan(&[
            (1, vec![x, p(1), y]),
            (2, vec![x, p(0)]),
            (3, vec![p(0), p(1)]),
        ]);
        (plan, cfg)
    }

    #[test]
    fn a_redundant_cycle_goes_and_then_its_users() {
        let (plan, cfg) = irreducible();
        let mut t = TrivialPhis::default();
        assert_eq!(remove(&mut t, &plan, &cfg), (0, 3));
        assert_eq!(t.fwd, vec![val(1); 3]);
    }

    /// An outer loop around an irreducible inner loop (the nested filetest's shape):
    /// h = [x0, l] at the outer header (block1), a = [h, b] and b = [h, a] in the inner
    /// loop (block3, block4), e = [a, b] at its exit (block5), l = [e, y] at the latch
    /// (block7, y defined in block6). One SCC with outside operands x0 and y keeps h and
    /// l; its inner phis a, b, e are redundant: all of them are h. With `user`, block9
    /// (entered from block1 and block3) adds u = [h, a], outside the SCC: it is examined
    /// after the SCC's inner phis, so it sees [h, h] and goes too.
    fn nested(user: bool) -> (PhiPlan, Cfg) {
        let mut cfg = Cfg::new();
        let mut succs = vec![
            vec![1],
            vec![2, 8],
            vec![3, 4],
            vec![4, 5],
            vec![3, 5],
            vec![6, 7],
            vec![7],
            vec![1],
            vec![],
        ];
        if user {
            succs[1].push(9);
            succs[3].push(9);
            succs.push(vec![]);
        }
        cfg.compute_from_succs(&succs);
        let (x0, y) = (val(1), val(2));
        let p = |k| val(FIRST + k);
        let (h, a, b, e, l) = (p(0), p(1), p(2), p(3), p(4));
        let mut phis = vec![
            (1, vec![x0, l]),
            (3, vec![h, b]),
            (4, vec![h, a]),
            (5, vec![a, b]),
            (7, vec![e, y]),
        ];
        if user {
            phis.push((9, vec![h, a]));
        }
        (plan(&phis), cfg)
    }

    #[test]
    fn inner_redundant_sccs_of_a_needed_scc_go() {
        let (plan, cfg) = nested(false);
        let mut t = TrivialPhis::default();
        assert_eq!(remove(&mut t, &plan, &cfg), (0, 3));
        let h = val(FIRST);
        assert_eq!(t.fwd, vec![KEPT, h, h, h, KEPT]);
        let (plan, cfg) = nested(true);
        assert_eq!(remove(&mut t, &plan, &cfg), (0, 4));
        assert_eq!(t.fwd, vec![KEPT, h, h, h, KEPT, h]);
    }

    /// Two phis that swap two values around a loop are a cycle with two outside operands
    /// and no inner phi: both stay.
    #[test]
    fn a_cycle_with_two_outside_values_stays() {
        let mut cfg = Cfg::new();
        cfg.compute_from_succs(&[vec![1], vec![1, 2], vec![]]);
        let p = |k| val(FIRST + k);
        // a = [x, b], b = [y, a] at the loop header block1 (preds block0, block1).
        let plan = plan(&[(1, vec![val(1), p(1)]), (1, vec![val(2), p(0)])]);
        let mut t = TrivialPhis::default();
        assert_eq!(remove(&mut t, &plan, &cfg), (0, 0));
        assert_eq!(t.fwd, vec![KEPT; 2]);
    }

    /// The scratch is reused across functions: results do not depend on what ran before.
    #[test]
    fn scratch_reuse_gives_fresh_results() {
        let mut t = TrivialPhis::default();
        for _ in 0..2 {
            let (plan, cfg) = nested(true);
            assert_eq!(remove(&mut t, &plan, &cfg), (0, 4));
            let (plan, cfg) = irreducible();
            assert_eq!(remove(&mut t, &plan, &cfg), (0, 3));
            assert_eq!(t.fwd, vec![val(1); 3]);
        }
    }
}

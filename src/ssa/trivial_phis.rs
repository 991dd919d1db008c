//! Step 3b of SSA construction: removal of the placed phis that renaming showed trivial.
//!
//! What: `TrivialPhis::run` finds, after renaming filled the incoming operands, the placed
//! phis whose incoming operands are all one operand `x` apart from the phi itself (and
//! apart from edges out of unreachable predecessors, whose value never flows), and maps
//! each to `x` (`fwd`). Liveness pruning cannot see these: the slot is live and defined
//! on several paths, but every path stores the same value (`ret 1` on both arms of a
//! branch, a variable re-stored with the value it already holds, a loop that never changes
//! it). LLVM's `PromoteMemToReg` removes the same phis after renaming (with
//! `simplifyInstruction`); this is what keeps our phi count at or below its count.
//!
//! Algorithm (Braun et al., "Simple and Efficient Construction of Static Single Assignment
//! Form", 2013, trivial phi removal, run once over all placed phis): a worklist that starts
//! with every phi; a phi found trivial is forwarded to its unique operand and the phis
//! using it are queued again, since removing one phi can make another trivial (a loop phi
//! `[entry: x], [latch: p]` where `p` was `[x, x]`). Operands are resolved through `fwd`
//! with path halving, so chains of removed phis cost amortised near-constant time.
//!
//! Correctness: if every incoming operand from a reachable predecessor is `x` or the phi
//! itself, the phi's value is `x` on every execution, and `x` dominates the phi's block
//! (its definition dominates every reachable predecessor whose edge carries it, and the
//! self edges come from blocks the phi's block dominates), so `x` can replace every use.
//! A phi whose reachable operands are all itself cannot occur in a reachable block (the
//! edge from the immediate dominator's side carries another value); it would read the
//! slot's zero.
//!
//! Complexity: O(phis + incoming operands) time (each phi is re-examined at most once
//! per removed phi among its operands), scratch reused across functions; no hashing: a
//! placed phi's index is its value's index minus the first placed phi's value index
//! (placement creates their values consecutively).

use super::place_phis::PhiPlan;
use super::promotable::Candidates;
use crate::analysis::Cfg;
use crate::ir::{Operand, Value};

/// "Kept" in [`TrivialPhis::fwd`].
pub(crate) const KEPT: Operand = Operand::Value(Value(u32::MAX));

/// Reusable scratch of the trivial-phi removal; see the module doc.
#[derive(Default, Debug)]
pub(crate) struct TrivialPhis {
    /// `fwd[k]`: what placed phi `k` was replaced by, or [`KEPT`].
    pub fwd: Vec<Operand>,
    /// Value index of placed phi 0 (placed phi `k` defines value `first + k`).
    first: u32,
    /// CSR of phi users: `users[user_start[k]..user_start[k + 1]]` are the placed phis
    /// with an incoming operand that is phi `k`'s value.
    user_start: Vec<u32>,
    users: Vec<u32>,
    worklist: Vec<u32>,
    queued: Vec<bool>,
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

    /// Finds the trivial phis of `plan` (incoming operands filled by renaming) and fills
    /// `fwd`; returns how many were removed. `c` gives each slot's zero.
    pub fn run(&mut self, plan: &PhiPlan, cfg: &Cfg, c: &Candidates) -> u64 {
        let n = plan.phis.len();
        self.fwd.clear();
        self.fwd.resize(n, KEPT);
        let Some(p0) = plan.phis.first() else {
            return 0;
        };
        self.first = p0.value.0;
        debug_assert!(plan
            .phis
            .iter()
            .enumerate()
            .all(|(k, p)| p.value.index() == self.first as usize + k));
        // Users, as a CSR (count, prefix sums, fill).
        self.user_start.clear();
        self.user_start.resize(n + 1, 0);
        for (k, p) in plan.phis.iter().enumerate() {
            let m = cfg.preds(p.block).len();
            for &op in &plan.incoming[p.in_start as usize..p.in_start as usize + m] {
                if let Some(j) = self.phi_of(op) {
                    if j != k {
                        self.user_start[j + 1] += 1;
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
        removed
    }
}

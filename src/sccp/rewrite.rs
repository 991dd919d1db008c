//! Applying an SCCP result to the function (003 "Transformation Application").
//!
//! What, in order (one linear pass each over the function's dense tables):
//!
//! 1. **Constant replacement**: every value whose cell is `Const(c)` gets a replacement
//!    operand, `c` interned into the constant pool (once per value). A non-null pointer
//!    scalar (from `inttoptr` of a constant) has no text form and is left computed.
//! 2. **Branch resolution**: a reachable `br`, `switch` or `indirect_br` whose condition is a
//!    constant becomes a `jump` to the successor [`resolved_successor`] picks, the same
//!    choice the solver made and the interpreter makes.
//! 3. **Unreachable blocks**: a live block the result does not mark reachable is removed: it
//!    becomes a dead hole (`BlockData::dead`, no instructions, `unreachable`).
//! 4. **Folded instructions**: an instruction of a reachable block whose result is replaced
//!    and which has no side effect is unlisted from its block (a `Const` cell never comes from
//!    a trapping operation, so nothing observable is removed).
//!    A remaining `copy` (of a non-constant) is removed too and its uses read its source,
//!    whose definition dominates the copy's (copy propagation).
//! 5. **Phi edges**: each phi keeps, per predecessor `P`, as many entries naming `P` as the
//!    rewritten CFG has edges from `P` (the first ones: the entry the interpreter reads);
//!    entries from removed blocks and resolved-away edges go.
//! 6. **Phi simplification**: a phi whose remaining entries, after replacement, are all the
//!    same operand (ignoring entries that are the phi itself) becomes that operand; repeated
//!    until nothing changes, since one simplification can enable another. Safe for
//!    dominance: every path into the block enters through an edge carrying that operand.
//! 7. **Use rewriting**: every operand of the remaining instructions and terminators is
//!    replaced through the table (transitively). Constants are interned into the pool once
//!    per constant value, behind a 64-slot direct-mapped cache (the pool's hash map is the
//!    only hashing in SCCP).
//! 8. **Constants without a pool form**: a value whose cell is a constant the pool cannot
//!    express (a symbol plus a non-zero offset, from a `gep`; a non-null pointer scalar)
//!    stays computed by its instruction, but once its uses have folded away (the loads it
//!    fed read a read-only global) the instruction is dead and is removed, with any such
//!    instruction that only it used. LLVM turns these into constant expressions; removing
//!    them when unused keeps the function the same size as that would.
//!
//! Invariants established: no reachable block branches to a removed block (every remaining
//! edge of a reachable block is executable, see the solver's module doc); every use of a
//! removed instruction's result is replaced; phis have one entry per incoming edge. So a
//! function valid for the verifier before stays valid.
//!
//! Complexity: O(instructions + operands + blocks) plus O(phi entries * successors of the
//! entry's block) for step 5, times the number of simplification rounds for step 6 (at most
//! the longest chain of dependent phis, usually 1-2).

use super::fold::{condition, resolved_successor};
use super::lattice::{Constant, LatticeValue};
use super::BitSet;
use crate::ir::{
    Block, Const, Function, Inst, InstData, InstKind, Operand, Target, Terminator, Value, ValueDef,
};
use smallvec::SmallVec;

/// What the rewrite changed (reported as `sccp` statistics).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct RewriteStats {
    /// Instructions removed because their value is a constant.
    pub instructions_folded: u64,
    /// Conditional terminators turned into jumps.
    pub branches_resolved: u64,
    /// Blocks removed as unreachable.
    pub blocks_removed: u64,
    /// Phis replaced by their single remaining incoming value.
    pub phis_simplified: u64,
    /// `copy` instructions removed, their uses reading the source instead.
    pub copies_propagated: u64,
}

impl RewriteStats {
    /// Number of transformed instructions (003's return value of
    /// `apply_sccp_transformations`): folded + resolved branches + simplified phis +
    /// propagated copies.
    pub fn transformed(&self) -> u64 {
        self.instructions_folded
            + self.branches_resolved
            + self.phis_simplified
            + self.copies_propagated
    }

    /// True if the control-flow graph changed.
    pub fn cfg_changed(&self) -> bool {
        self.branches_resolved + self.blocks_removed > 0
    }
}

/// Reusable scratch of the rewrite.
#[derive(Default, Debug)]
pub struct Rewriter {
    /// `repl[Value]`: the operand that replaces every use of the value.
    repl: Vec<Option<Operand>>,
    /// Direct-mapped cache of constants already interned into this function's pool.
    cache: Vec<Option<(Constant, Const)>>,
    /// `uses[Value]`: remaining uses, for step 8.
    uses: Vec<u32>,
    /// Step 8's worklist of unused instructions to remove.
    dead: Vec<Inst>,
    /// Instructions step 8 removed.
    removed: BitSet,
}

const CACHE_SLOTS: usize = 64;

/// A cheap hash of a constant into `0..CACHE_SLOTS`.
fn cache_slot(k: &Constant) -> usize {
    let x = match k {
        Constant::Scalar(v) => v.as_u128() as u64 ^ ((v.ty().code() as u64) << 56),
        Constant::Symbol { symbol, offset } => (symbol.0 as u64) << 40 ^ *offset as u64 ^ (1 << 62),
        Constant::Address(c) => c.0 as u64 ^ (1 << 63),
    };
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize
}

impl Rewriter {
    /// An empty rewriter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rewrites `f` given `cells[Value]` and the `reachable` blocks (see the module doc).
    /// `cells` and `reachable` must come from an analysis of `f` as it is now (the SCCP
    /// solver, or the fallback folder with every live block reachable).
    pub fn apply(
        &mut self,
        f: &mut Function,
        cells: &[LatticeValue],
        reachable: &BitSet,
    ) -> RewriteStats {
        let mut stats = RewriteStats::default();
        // True once some value has a replacement (step 7 is the identity otherwise).
        let mut any_repl = false;
        // True if some constant cell has no pool form (step 8 has work).
        let mut unexpressed = false;
        let nv = f.values.len();
        self.repl.clear();
        self.repl.resize(nv, None);
        // 1. Constant replacement table.
        self.cache.clear();
        self.cache.resize(CACHE_SLOTS, None);
        for (v, cell) in cells.iter().enumerate().take(nv) {
            if let LatticeValue::Const(k) = cell {
                // Folded values repeat (0, 1, -1, ...): a small direct-mapped cache in front
                // of the pool's hash map.
                let slot = cache_slot(k);
                let c = match self.cache[slot] {
                    Some((key, c)) if key == *k => Some(c),
                    _ => {
                        let c = k.to_pool(&mut f.consts);
                        if let Some(c) = c {
                            self.cache[slot] = Some((*k, c));
                        }
                        c
                    }
                };
                self.repl[v] = c.map(Operand::Const);
                any_repl |= c.is_some();
                unexpressed |= c.is_none();
            }
        }
        let const_cell = |f: &Function, o: Operand| match o {
            Operand::Value(v) => cells.get(v.index()).copied().unwrap_or_default(),
            Operand::Const(c) => f
                .consts
                .try_get(c)
                .and_then(|d| Constant::of_pool(c, d))
                .map_or(LatticeValue::Overdefined, LatticeValue::Const),
        };
        for b in 0..f.blocks.len() {
            if f.blocks[b].dead {
                continue;
            }
            if !reachable.contains(b) {
                // 3. Unreachable block.
                let bd = &mut f.blocks[b];
                bd.dead = true;
                bd.insts.clear();
                bd.params.clear();
                bd.terminator = Terminator::Unreachable;
                stats.blocks_removed += 1;
                continue;
            }
            // 2. Branch resolution.
            let t = &f.blocks[b].terminator;
            if let Some(LatticeValue::Const(k)) = condition(t).map(|o| const_cell(f, o)) {
                if let Some(i) = resolved_successor(f, t, k) {
                    let target = nth_target(t, i);
                    f.blocks[b].terminator = Terminator::Jump(target);
                    stats.branches_resolved += 1;
                }
            }
            // 4. Folded instructions.
            let (insts, blocks) = (&f.insts, &mut f.blocks);
            let repl = &self.repl;
            let before = blocks[b].insts.len();
            blocks[b].insts.retain(|i| {
                let d = &insts[i.index()];
                let folded = d.result().is_some_and(|v| repl[v.index()].is_some());
                !folded || d.kind.has_side_effects()
            });
            stats.instructions_folded += (before - blocks[b].insts.len()) as u64;
            // 4b. Copies: uses of `v = copy x` read `x` (its definition dominates `v`'s).
            let repl = &mut self.repl;
            let before = blocks[b].insts.len();
            blocks[b].insts.retain(|i| {
                let d = &insts[i.index()];
                match (&d.kind, d.result()) {
                    (InstKind::Copy { src, .. }, Some(v)) => {
                        repl[v.index()] = Some(*src);
                        false
                    }
                    _ => true,
                }
            });
            stats.copies_propagated += (before - blocks[b].insts.len()) as u64;
        }
        any_repl |= stats.copies_propagated > 0;
        // 5. Phi entries per remaining edge. Only edges this rewrite removed (resolved
        // branches, removed blocks) can leave a phi entry without its edge: in a verified
        // function each phi has one entry per predecessor edge, so when the CFG did not
        // change (most functions) the step is skipped.
        if stats.cfg_changed() {
            trim_phi_entries(f);
        }
        // 6. Phi simplification, to a fixpoint.
        loop {
            let mut changed = false;
            for b in 0..f.blocks.len() {
                if f.blocks[b].dead {
                    continue;
                }
                let mut k = 0;
                while k < f.blocks[b].insts.len() {
                    let i = f.blocks[b].insts[k];
                    let d = &f.insts[i.index()];
                    let InstKind::Phi { incoming, .. } = &d.kind else {
                        break;
                    };
                    let Some(me) = d.result() else {
                        k += 1;
                        continue;
                    };
                    let mut single: Option<Operand> = None;
                    let mut many = false;
                    for &(_, o) in incoming {
                        let o = resolve(&self.repl, o);
                        if o == Operand::Value(me) || single == Some(o) {
                            continue;
                        }
                        if single.is_some() {
                            many = true;
                            break;
                        }
                        single = Some(o);
                    }
                    match single {
                        Some(o) if !many => {
                            self.repl[me.index()] = Some(o);
                            f.blocks[b].insts.remove(k);
                            stats.phis_simplified += 1;
                            changed = true;
                        }
                        _ => k += 1,
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // 7. Use rewriting (the identity when no value has a replacement).
        if any_repl || stats.phis_simplified > 0 {
            let repl = &self.repl;
            for bd in f.blocks.iter_mut().filter(|bd| !bd.dead) {
                for i in &bd.insts {
                    f.insts[i.index()]
                        .kind
                        .for_each_operand_mut(|o| *o = resolve(repl, *o));
                }
                bd.terminator
                    .for_each_operand_mut(|o| *o = resolve(repl, *o));
            }
        }
        // 8. Unused constants without a pool form.
        if unexpressed {
            stats.instructions_folded += self.remove_unused_constants(f, cells);
        }
        stats
    }

    /// Step 8 of [`Rewriter::apply`]: removes the side-effect-free instructions whose result
    /// is a constant without a pool form and has no use left, repeatedly; returns how many.
    fn remove_unused_constants(&mut self, f: &mut Function, cells: &[LatticeValue]) -> u64 {
        let candidate = |v: Value| {
            matches!(cells.get(v.index()), Some(LatticeValue::Const(_)))
                && self.repl.get(v.index()).is_some_and(Option::is_none)
        };
        self.uses.clear();
        self.uses.resize(f.values.len(), 0);
        let count = |o: Operand, uses: &mut Vec<u32>| {
            if let Operand::Value(v) = o {
                if let Some(n) = uses.get_mut(v.index()) {
                    *n += 1;
                }
            }
        };
        for bd in f.blocks.iter().filter(|bd| !bd.dead) {
            for i in &bd.insts {
                f.insts[i.index()]
                    .kind
                    .for_each_operand(|o| count(o, &mut self.uses));
            }
            bd.terminator.for_each_operand(|o| count(o, &mut self.uses));
        }
        // An unused candidate is removed if it is a single-result, side-effect-free
        // instruction; removing it can leave the candidates it used unused in turn.
        let removable = |d: &InstData| d.result().is_some() && !d.kind.has_side_effects();
        self.dead.clear();
        for bd in f.blocks.iter().filter(|bd| !bd.dead) {
            for &i in &bd.insts {
                let d = &f.insts[i.index()];
                if d.result()
                    .is_some_and(|v| candidate(v) && self.uses[v.index()] == 0)
                    && removable(d)
                {
                    self.dead.push(i);
                }
            }
        }
        self.removed.reset(f.insts.len());
        while let Some(i) = self.dead.pop() {
            if !self.removed.insert(i.index()) {
                continue;
            }
            let (uses, dead) = (&mut self.uses, &mut self.dead);
            f.insts[i.index()].kind.for_each_operand(|o| {
                let Operand::Value(v) = o else { return };
                let Some(n) = uses.get_mut(v.index()) else {
                    return;
                };
                *n = n.saturating_sub(1);
                if *n == 0 && candidate(v) {
                    if let ValueDef::Result(j, _) = f.values[v.index()].def {
                        if removable(&f.insts[j.index()]) {
                            dead.push(j);
                        }
                    }
                }
            });
        }
        let mut n = 0;
        for bd in f.blocks.iter_mut().filter(|bd| !bd.dead) {
            let before = bd.insts.len();
            bd.insts.retain(|i| !self.removed.contains(i.index()));
            n += (before - bd.insts.len()) as u64;
        }
        n
    }
}

/// Step 5 of [`Rewriter::apply`]: each phi keeps, per predecessor, as many entries as the
/// current CFG has edges from it (the first ones).
fn trim_phi_entries(f: &mut Function) {
    let mut counts: SmallVec<[(Block, u32); 4]> = SmallVec::new();
    for b in 0..f.blocks.len() {
        if f.blocks[b].dead {
            continue;
        }
        counts.clear();
        for i in &f.blocks[b].insts {
            let InstKind::Phi { incoming, .. } = &f.insts[i.index()].kind else {
                break;
            };
            for &(p, _) in incoming {
                if !counts.iter().any(|(q, _)| *q == p) {
                    counts.push((p, edges_between(f, p, Block::new(b))));
                }
            }
        }
        if counts.is_empty() {
            continue;
        }
        for i in &f.blocks[b].insts {
            let InstKind::Phi { incoming, .. } = &mut f.insts[i.index()].kind else {
                break;
            };
            let mut kept: SmallVec<[(Block, u32); 4]> = SmallVec::new();
            incoming.retain(|(p, _)| {
                let allowed = counts.iter().find(|(q, _)| q == p).map_or(0, |c| c.1);
                match kept.iter_mut().find(|(q, _)| q == p) {
                    Some((_, n)) if *n < allowed => {
                        *n += 1;
                        true
                    }
                    Some(_) => false,
                    None if allowed > 0 => {
                        kept.push((*p, 1));
                        true
                    }
                    None => false,
                }
            });
        }
    }
}

/// Follows the replacement table from `o` (chains come from phi simplification).
#[inline]
fn resolve(repl: &[Option<Operand>], mut o: Operand) -> Operand {
    // Chains are acyclic (a phi is simplified only to an operand already resolved); the bound
    // is a guard, not a limit met in practice.
    for _ in 0..repl.len() + 1 {
        match o {
            Operand::Value(v) => match repl.get(v.index()).copied().flatten() {
                Some(next) => o = next,
                None => return o,
            },
            Operand::Const(_) => return o,
        }
    }
    o
}

/// Successor `i` of a conditional terminator, as a jump target.
fn nth_target(t: &Terminator, i: usize) -> Target {
    match t {
        Terminator::Br {
            then_dest,
            else_dest,
            ..
        } => {
            if i == 0 {
                then_dest.clone()
            } else {
                else_dest.clone()
            }
        }
        Terminator::Switch { default, cases, .. } => {
            if i == 0 {
                default.clone()
            } else {
                cases[i - 1].1.clone()
            }
        }
        Terminator::IndirectBr { dests, .. } => Target::new(dests[i]),
        Terminator::Jump(t) => t.clone(),
        Terminator::Ret(_) | Terminator::Unreachable => unreachable!("no successors"),
    }
}

/// Number of edges from `p` to `b` in the current IR: terminator successors and `asm goto`
/// labels of `p` (0 for a dead or out-of-range `p`).
fn edges_between(f: &Function, p: Block, b: Block) -> u32 {
    let Some(pd) = f.blocks.get(p.index()).filter(|d| !d.dead) else {
        return 0;
    };
    let mut n = 0;
    pd.terminator.for_each_successor(|s| n += (s == b) as u32);
    for i in &pd.insts {
        if let InstKind::InlineAsm(asm) = &f.insts[i.index()].kind {
            n += asm.goto_labels.iter().filter(|&&l| l == b).count() as u32;
        }
    }
    n
}

//! Applying an SCCP result to the function (003 "Transformation Application").
//!
//! What, in order (one linear pass each over the function's columns, [`Body`]: the World's
//! column slices in the pipeline):
//!
//! 1. **Constant replacement**: every value whose cell is `Const(c)` gets a replacement
//!    operand, `c` interned into the constant pool (once per value). A non-null pointer
//!    scalar (from `inttoptr` of a constant) has no text form and is left computed.
//! 2. **Branch resolution**: a reachable `br`, `switch` or `indirect_br` whose condition is a
//!    constant becomes a `jump` to the successor [`resolved_successor`] picks, the same
//!    choice the solver made and the interpreter makes.
//! 3. **Unreachable blocks**: a live block the result does not mark reachable is removed: it
//!    becomes a dead hole (`BlockDead` set, no instructions, no parameters, `unreachable`);
//!    its instructions are flagged in `InstDead`.
//! 4. **Folded instructions**: an instruction of a reachable block whose result is replaced
//!    and which has no side effect is unlisted from its block (a `Const` cell never comes from
//!    a trapping operation, so nothing observable is removed), and flagged in `InstDead`
//!    (as is every instruction a later step unlists).
//!    A remaining `copy` (of a non-constant) is removed too and its uses read its source,
//!    whose definition dominates the copy's (copy propagation).
//! 5. **Phi edges**: each phi keeps, per predecessor `P`, as many entries naming `P` as the
//!    rewritten CFG has edges from `P` (the first ones: the entry the interpreter reads);
//!    entries from removed blocks and resolved-away edges go. The count comes from the
//!    shared [`Cfg`] as it was before the rewrite, minus what steps 2-3 removed (all edges of
//!    a removed block; all but the kept successor and the `asm goto` labels of a resolved
//!    branch): no CFG is rebuilt.
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
//! Access: reads `InstResults`, the value table and the pre-rewrite [`Cfg`]; writes
//! `InstOp` (operands, phi entries), `InstDead`, `BlockInsts`, `BlockTerm`, `BlockParams`,
//! `BlockDead` and the constant pool. Creates no row.
//!
//! Invariants established: no reachable block branches to a removed block (every remaining
//! edge of a reachable block is executable, see the solver's module doc); every use of a
//! removed instruction's result is replaced; phis have one entry per incoming edge. So a
//! function valid for the verifier before stays valid.
//!
//! Complexity: O(instructions + operands + blocks), plus for step 5 (only when the CFG
//! changed) O(phi entries) and O(successors of each distinct predecessor of a block with
//! phis), plus for step 6 O(phi entries) times the number of simplification rounds (at most
//! the longest chain of dependent phis, usually 1-2).

use super::lattice::{AggConsts, Constant, LatticeValue};
use super::rules::{condition, resolved_successor};
use super::BitSet;
use crate::analysis::Cfg;
use crate::ir::{
    Block, Body, Const, ConstPool, Inst, InstKind, IrRead, Operand, Target, Terminator, Value,
    ValueDef,
};

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
    /// Instructions unlisted plus blocks removed (the drop in live instructions and
    /// terminators, counted as they go rather than by measuring the function twice).
    pub instructions_removed: u64,
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
    /// Direct-mapped cache of constants already interned into this function's pool: a
    /// slot is valid for the apply whose `generation` it carries (so a new function needs
    /// no clearing).
    cache: Vec<(u32, Constant, Const)>,
    /// Number of the current apply (0 marks an empty slot).
    generation: u32,
    /// `resolved[Block]`: for a branch step 2 turned into a jump, the successor index it
    /// kept and the number of terminator successors it had (`(NONE, 0)` otherwise), so that
    /// step 5 knows which edges of the (pre-rewrite) CFG remain.
    resolved: Vec<(u32, u32)>,
    /// Step 5's scratch by predecessor block: (stamp, edges to the block being trimmed).
    allowed: Vec<(u32, u32)>,
    /// Step 5's scratch by predecessor block: (stamp, entries the phi being trimmed kept).
    kept: Vec<(u32, u32)>,
    /// `uses[Value]`: remaining uses, for step 8.
    uses: Vec<u32>,
    /// Step 8's worklist of unused instructions to remove.
    dead: Vec<Inst>,
    /// Instructions step 8 removed.
    removed: BitSet,
    /// Instructions defining a value step 1 replaced (by its `ValueDef`): only these and
    /// copies can go in step 4, so the other instructions' test is one bit.
    replaced_defs: BitSet,
}

const CACHE_SLOTS: usize = 64;
const NONE: u32 = u32::MAX;

/// A cheap hash of a constant into `0..CACHE_SLOTS`.
fn cache_slot(k: &Constant) -> usize {
    let x = match k {
        Constant::Scalar(v) => v.as_u128() as u64 ^ ((v.ty().code() as u64) << 56),
        Constant::Symbol { symbol, offset } => (symbol.0 as u64) << 40 ^ *offset as u64 ^ (1 << 62),
        Constant::Address(c) => c.0 as u64 ^ (1 << 63),
        Constant::Aggregate { ty, id } => (*id as u64) << 8 ^ ty.code() as u64 ^ (3 << 61),
    };
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize
}

/// The cell of an operand: `cells` for a value, the pool entry for a constant.
fn operand_cell(cells: &[LatticeValue], consts: &ConstPool, o: Operand) -> LatticeValue {
    match o {
        Operand::Value(v) => cells.get(v.index()).copied().unwrap_or_default(),
        Operand::Const(c) => consts
            .try_get(c)
            .and_then(|d| Constant::of_pool(c, d))
            .map_or(LatticeValue::Overdefined, LatticeValue::Const),
    }
}

/// Step 4's test for a folded instruction: its single result has a replacement and it has
/// no side effect.
#[inline]
fn goes_folded(
    kinds: &[InstKind],
    results: &[smallvec::SmallVec<[Value; 1]>],
    repl: &[Option<Operand>],
    i: Inst,
) -> bool {
    match results[i.index()].as_slice() {
        [v] => repl[v.index()].is_some() && !kinds[i.index()].has_side_effects(),
        _ => false,
    }
}

/// True if the instruction (`kind`, defining `results`) may be removed once its single
/// result has no use.
fn removable(kind: &InstKind, results: &[Value]) -> bool {
    results.len() == 1 && !kind.has_side_effects()
}

impl Rewriter {
    /// An empty rewriter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rewrites `f` given `cells[Value]` and the `reachable` blocks (see the module doc).
    /// `cfg` is the shared control-flow graph of `f` as it is before the rewrite; `cells`
    /// and `reachable` must come from an analysis of `f` as it is now (the SCCP solver, or
    /// the fallback folder with every live block reachable). Removed instructions get
    /// `inst_dead`, removed blocks `block_dead`; no row is created.
    pub fn apply(
        &mut self,
        f: &mut Body<'_>,
        cfg: &Cfg,
        cells: &[LatticeValue],
        reachable: &BitSet,
        aggregates: &AggConsts,
    ) -> RewriteStats {
        let mut stats = RewriteStats::default();
        crate::sccp::refill(&mut self.repl, f.values.len(), None);
        crate::sccp::refill(&mut self.resolved, f.num_blocks(), (NONE, 0));
        // 1. Constant replacement table.
        let (mut any_repl, unexpressed) = self.replacement_table(f, cells, aggregates);
        // 2-4. Branches, unreachable blocks, folded instructions and copies.
        self.rewrite_blocks(f, cells, reachable, &mut stats);
        any_repl |= stats.copies_propagated > 0;
        // 5. Phi entries per remaining edge. Only edges this rewrite removed (resolved
        // branches, removed blocks) can leave a phi entry without its edge: in a verified
        // function each phi has one entry per predecessor edge, so when the CFG did not
        // change (most functions) the step is skipped.
        if stats.cfg_changed() {
            trim_phi_entries(f, cfg, &self.resolved, &mut self.allowed, &mut self.kept);
        }
        // 6. Phi simplification, to a fixpoint.
        stats.phis_simplified = self.simplify_phis(f);
        // 7. Use rewriting (the identity when no value has a replacement).
        if any_repl || stats.phis_simplified > 0 {
            rewrite_uses(f, &self.repl);
        }
        // 8. Unused constants without a pool form.
        if unexpressed {
            stats.instructions_folded += self.remove_unused_constants(f, cells);
        }
        // Every other removal unlisted one instruction and counted it once.
        stats.instructions_removed +=
            stats.instructions_folded + stats.copies_propagated + stats.phis_simplified;
        stats
    }

    /// Step 1 of [`Rewriter::apply`]: `repl[v]` is the pool constant of every value whose
    /// cell is a constant with a pool form, and `replaced_defs` holds their definitions.
    /// Returns whether some value has a replacement and whether some constant cell has no
    /// pool form (step 8 has work).
    fn replacement_table(
        &mut self,
        f: &mut Body<'_>,
        cells: &[LatticeValue],
        aggregates: &AggConsts,
    ) -> (bool, bool) {
        let (mut any_repl, mut unexpressed) = (false, false);
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 || self.cache.len() != CACHE_SLOTS {
            self.generation = 1;
            self.cache.clear();
            self.cache.resize(
                CACHE_SLOTS,
                (0, Constant::Address(Const::new(0)), Const::new(0)),
            );
        }
        let generation = self.generation;
        let (nv, ni) = (f.values.len(), f.num_insts());
        self.replaced_defs.reset(ni);
        for (v, cell) in cells[..nv.min(cells.len())].iter().enumerate() {
            if let LatticeValue::Const(k) = cell {
                // Folded values repeat (0, 1, -1, ...): a small direct-mapped cache in front
                // of the pool's hash map.
                let slot = cache_slot(k);
                let c = match self.cache[slot] {
                    (g, key, c) if g == generation && key == *k => Some(c),
                    _ => {
                        let c = aggregates.to_pool(*k, f.consts);
                        if let Some(c) = c {
                            self.cache[slot] = (generation, *k, c);
                        }
                        c
                    }
                };
                self.repl[v] = c.map(Operand::Const);
                any_repl |= c.is_some();
                unexpressed |= c.is_none();
                if let (Some(_), ValueDef::Result(i, _)) = (c, f.values[v].def) {
                    if i.index() < ni {
                        self.replaced_defs.insert(i.index());
                    }
                }
            }
        }
        (any_repl, unexpressed)
    }

    /// Steps 2-4 of [`Rewriter::apply`], block by block: resolves branches on constants
    /// (noting the kept successor in `resolved`), removes unreachable blocks, unlists folded
    /// instructions and copies (a copy's uses read its source: `repl`); counts in `stats`.
    fn rewrite_blocks(
        &mut self,
        f: &mut Body<'_>,
        cells: &[LatticeValue],
        reachable: &BitSet,
        stats: &mut RewriteStats,
    ) {
        for b in 0..f.num_blocks() {
            if f.block_dead[b] {
                continue;
            }
            if !reachable.contains(b) {
                // 3. Unreachable block: a dead hole; its instructions are removed with it.
                for &i in f.block_insts[b].iter() {
                    f.inst_dead[i.index()] = true;
                }
                stats.instructions_removed += f.block_insts[b].len() as u64 + 1;
                f.block_insts[b].clear();
                f.block_params[b].clear();
                f.terminators[b] = Terminator::Unreachable;
                f.block_dead[b] = true;
                stats.blocks_removed += 1;
                continue;
            }
            // 2. Branch resolution.
            let t = &f.terminators[b];
            if let Some(LatticeValue::Const(k)) =
                condition(t).map(|o| operand_cell(cells, f.consts, o))
            {
                if let Some(i) = resolved_successor(f.consts, t, k) {
                    self.resolved[b] = (i as u32, t.num_successors() as u32);
                    f.terminators[b] = Terminator::Jump(nth_target(t, i));
                    stats.branches_resolved += 1;
                }
            }
            // 4. Folded instructions, and (4b) copies: uses of `v = copy x` read `x` (its
            // definition dominates `v`'s). One walk: a copy's entry in `repl` is its own
            // result's, which no other instruction's test reads.
            let (kinds, results, inst_dead) = (&*f.kinds, &*f.results, &mut *f.inst_dead);
            let insts = &mut f.block_insts[b];
            let (repl, replaced_defs) = (&mut self.repl, &self.replaced_defs);
            let (mut folded, mut copies) = (0, 0);
            // Most blocks lose nothing: the walk starts at the first instruction that goes
            // (found by a read-only scan; the test of an instruction reads only its own
            // result's entry, which the walk writes after) and compacts in place.
            let goes = |i: &Inst| {
                let kind = &kinds[i.index()];
                if !replaced_defs.contains(i.index()) {
                    // Its result has no constant: only a copy goes (the walk checks its
                    // result).
                    return matches!(kind, InstKind::Copy { .. });
                }
                let [v] = results[i.index()].as_slice() else {
                    return false;
                };
                match repl[v.index()] {
                    Some(_) => !kind.has_side_effects(),
                    None => matches!(kind, InstKind::Copy { .. }),
                }
            };
            let Some(first) = insts.iter().position(goes) else {
                continue;
            };
            let mut kept = first;
            for k in first..insts.len() {
                let i = insts[k];
                if let InstKind::Copy { src, .. } = &kinds[i.index()] {
                    if let [v] = results[i.index()].as_slice() {
                        if repl[v.index()].is_none() {
                            repl[v.index()] = Some(*src);
                            copies += 1;
                            inst_dead[i.index()] = true;
                            continue;
                        }
                    }
                }
                if goes_folded(kinds, results, repl, i) {
                    folded += 1;
                    inst_dead[i.index()] = true;
                    continue;
                }
                insts[kept] = i;
                kept += 1;
            }
            insts.truncate(kept);
            stats.instructions_folded += folded;
            stats.copies_propagated += copies;
        }
    }

    /// Step 6 of [`Rewriter::apply`]: replaces (through `repl`) and unlists every phi whose
    /// entries, after replacement, are one operand besides the phi itself, until none is
    /// left; returns how many.
    fn simplify_phis(&mut self, f: &mut Body<'_>) -> u64 {
        let mut simplified = 0;
        loop {
            let mut changed = false;
            for b in 0..f.num_blocks() {
                if f.block_dead[b] {
                    continue;
                }
                let mut k = 0;
                while k < f.block_insts[b].len() {
                    let i = f.block_insts[b][k];
                    let InstKind::Phi { incoming, .. } = &f.kinds[i.index()] else {
                        break;
                    };
                    let &[me] = f.results[i.index()].as_slice() else {
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
                            f.block_insts[b].remove(k);
                            f.inst_dead[i.index()] = true;
                            simplified += 1;
                            changed = true;
                        }
                        _ => k += 1,
                    }
                }
            }
            if !changed {
                return simplified;
            }
        }
    }

    /// Step 8 of [`Rewriter::apply`]: removes the side-effect-free instructions whose result
    /// is a constant without a pool form and has no use left, repeatedly; returns how many.
    fn remove_unused_constants(&mut self, f: &mut Body<'_>, cells: &[LatticeValue]) -> u64 {
        let repl = &self.repl;
        let candidate = |v: Value| {
            matches!(cells.get(v.index()), Some(LatticeValue::Const(_)))
                && repl.get(v.index()).is_some_and(Option::is_none)
        };
        let nb = f.num_blocks();
        crate::sccp::refill(&mut self.uses, f.values.len(), 0);
        let count = |o: Operand, uses: &mut Vec<u32>| {
            if let Operand::Value(v) = o {
                if let Some(n) = uses.get_mut(v.index()) {
                    *n += 1;
                }
            }
        };
        for b in (0..nb).filter(|&b| !f.block_dead[b]) {
            for &i in f.block_insts[b].iter() {
                f.kinds[i.index()].for_each_operand(|o| count(o, &mut self.uses));
            }
            f.terminators[b].for_each_operand(|o| count(o, &mut self.uses));
        }
        // An unused candidate is removed if it is a single-result, side-effect-free
        // instruction; removing it can leave the candidates it used unused in turn.
        self.dead.clear();
        for b in (0..nb).filter(|&b| !f.block_dead[b]) {
            for &i in f.block_insts[b].iter() {
                let (kind, results) = (&f.kinds[i.index()], f.results[i.index()].as_slice());
                if let [v] = results {
                    if candidate(*v) && self.uses[v.index()] == 0 && removable(kind, results) {
                        self.dead.push(i);
                    }
                }
            }
        }
        self.removed.reset(f.num_insts());
        while let Some(i) = self.dead.pop() {
            if !self.removed.insert(i.index()) {
                continue;
            }
            let (uses, dead) = (&mut self.uses, &mut self.dead);
            let (kinds, results, values) = (&*f.kinds, &*f.results, &*f.values);
            kinds[i.index()].for_each_operand(|o| {
                let Operand::Value(v) = o else { return };
                let Some(n) = uses.get_mut(v.index()) else {
                    return;
                };
                *n = n.saturating_sub(1);
                if *n == 0 && candidate(v) {
                    if let ValueDef::Result(j, _) = values[v.index()].def {
                        if removable(&kinds[j.index()], &results[j.index()]) {
                            dead.push(j);
                        }
                    }
                }
            });
        }
        let mut n = 0;
        let removed = &self.removed;
        for b in 0..nb {
            if f.block_dead[b] {
                continue;
            }
            let (insts, inst_dead) = (&mut f.block_insts[b], &mut *f.inst_dead);
            let before = insts.len();
            insts.retain(|i| {
                let gone = removed.contains(i.index());
                inst_dead[i.index()] |= gone;
                !gone
            });
            n += (before - insts.len()) as u64;
        }
        n
    }
}

/// Step 5 of [`Rewriter::apply`]: each phi keeps, per predecessor, as many entries as the
/// rewritten CFG has edges from it (the first ones). `cfg` is the CFG before the rewrite and
/// `resolved` says which branches became jumps (see [`Rewriter::resolved`]). `allowed` and
/// `kept` are scratch tables by predecessor, valid where their stamp is the current block's
/// (`allowed`: the edge count) or phi's (`kept`: entries kept so far), so that a phi with
/// many entries costs O(entries), not O(entries * predecessors).
fn trim_phi_entries(
    f: &mut Body<'_>,
    cfg: &Cfg,
    resolved: &[(u32, u32)],
    allowed: &mut Vec<(u32, u32)>,
    kept: &mut Vec<(u32, u32)>,
) {
    let nb = f.num_blocks();
    crate::sccp::refill(allowed, nb, (0, 0));
    crate::sccp::refill(kept, nb, (0, 0));
    let (mut block_stamp, mut phi_stamp) = (0u32, 0u32);
    for b in 0..nb {
        if f.block_dead[b] {
            continue;
        }
        block_stamp += 1;
        for i in f.block_insts[b].iter() {
            let InstKind::Phi { incoming, .. } = &f.kinds[i.index()] else {
                break;
            };
            for &(p, _) in incoming {
                // A predecessor out of range has no edge (its entries all go).
                if let Some(a) = allowed.get_mut(p.index()) {
                    if a.0 != block_stamp {
                        *a = (
                            block_stamp,
                            edges_between(f, cfg, resolved, p, Block::new(b)),
                        );
                    }
                }
            }
        }
        for i in f.block_insts[b].iter() {
            let InstKind::Phi { incoming, .. } = &mut f.kinds[i.index()] else {
                break;
            };
            phi_stamp += 1;
            incoming.retain(|(p, _)| {
                let Some(&(_, allowed)) = allowed.get(p.index()) else {
                    return false;
                };
                let k = &mut kept[p.index()];
                if k.0 != phi_stamp {
                    *k = (phi_stamp, 0);
                }
                if k.1 < allowed {
                    k.1 += 1;
                    true
                } else {
                    false
                }
            });
        }
    }
}

/// Step 7 of [`Rewriter::apply`]: every operand of the instructions and terminators of
/// live blocks is replaced through `repl` (transitively).
fn rewrite_uses(f: &mut Body<'_>, repl: &[Option<Operand>]) {
    for b in 0..f.num_blocks() {
        if f.block_dead[b] {
            continue;
        }
        for &i in f.block_insts[b].iter() {
            f.kinds[i.index()].for_each_operand_mut(|o| replace(repl, o));
        }
        f.terminators[b].for_each_operand_mut(|o| replace(repl, o));
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

/// Replaces operand `o` through the table if it is a value with a replacement (most are
/// not: the test comes before the walk and the store).
#[inline(always)]
fn replace(repl: &[Option<Operand>], o: &mut Operand) {
    if let Operand::Value(v) = *o {
        if let Some(&Some(next)) = repl.get(v.index()) {
            *o = resolve(repl, next);
        }
    }
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

/// Number of edges from `p` to `b` after the rewrite: the edges of the pre-rewrite `cfg`
/// (terminator successors, then `asm goto` labels) that remain, that is all of them unless
/// `p` was removed (none) or its branch was resolved (the kept successor and the labels).
fn edges_between(f: &Body<'_>, cfg: &Cfg, resolved: &[(u32, u32)], p: Block, b: Block) -> u32 {
    if p.index() >= f.num_blocks() || f.block_dead[p.index()] {
        return 0;
    }
    let (taken, num_term) = resolved[p.index()];
    cfg.succs(p)
        .iter()
        .enumerate()
        .filter(|&(k, &s)| s == b && (taken == NONE || k as u32 == taken || k as u32 >= num_term))
        .count() as u32
}

//! Address-slot forwarding: mem2reg's second round, done before the first.
//!
//! What: clang at -O0 inlines every `always_inline` helper, and a helper taking a pointer
//! (`static inline void inc(int *p) { *p += 1; }` called as `inc(&y)`) leaves an *address
//! slot*: `%p.addr = alloca i32*`, one `store %y, %p.addr`, and loads of `%p.addr` whose
//! results are used as addresses of `%y`. `%y` escapes (its address is a stored value), so
//! one promotion round keeps it; LLVM's `PromotePass` repeats promotion until nothing more
//! is promotable, and its second round promotes `%y` once the first replaced the loads of
//! `%p.addr` by `%y`. This step reaches the same result within one mem2reg run, between
//! two `promotable::scan`s (mem2reg's plan calls it only when the first scan
//! rejected an alloca for a stored address, and scans again if it forwarded): a pointer slot `S` whose every store stores one alloca `A`
//! (after forwarding of the slots feeding those stores: chains of helpers calling helpers
//! resolve in rounds) and whose every load is dominated by one of those stores has its
//! loads replaced by `A` and its loads and stores removed. `S` is then unused (the scan
//! promotes it, removing the alloca) and `A` is promotable if its other uses allow.
//!
//! Rules for `S` (all must hold): an `alloca` of type `ptr`, not volatile; its value is used
//! only as the address of non-volatile `load ptr` and `store ptr` (never as a stored value,
//! call argument, gep base, ...); it has at least one store and one load; every store
//! stores the same value, which is (after forwarding) the result of an `alloca`; every load
//! is preceded in its block by a store to `S` or lies in a block strictly dominated by a
//! block holding one (a load that may run before any store reads an uninitialised slot,
//! which promotion turns into zero, so it is left alone). Loads in blocks unreachable from
//! the entry disqualify `S` (they have no dominator).
//!
//! Soundness: every load of `S` runs after some store of `S` on every path (dominance), and
//! every store stores `A`, so every load reads `A`; `S`'s address never escapes, so nothing
//! else reads or writes it, and its stores are dead once no load is left.
//!
//! Complexity: O(instructions + operands) to classify, plus per candidate O(loads x
//! dominator-tree depth); forwarding rounds are bounded by the chain length (each round
//! forwards at least one slot); one final pass rewrites every operand. Nothing is
//! allocated per function once the scratch vectors are large enough.

use crate::analysis::DomTree;
use crate::ir::{Block, Body, Inst, InstKind, IrRead, Operand, Type, Value, ValueDef};

const NONE: u32 = u32::MAX;

/// A pointer slot that may be forwarded.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// The slot's alloca result.
    slot: Value,
    /// False once some use disqualifies it.
    ok: bool,
    /// Forwarded in an earlier round.
    done: bool,
}

/// Reusable scratch of [`forward_address_slots`].
#[derive(Default, Debug)]
pub struct ForwardScratch {
    /// `candidate_of[Value]`: index into `candidates`, or `NONE`.
    candidate_of: Vec<u32>,
    candidates: Vec<Candidate>,
    /// (candidate, block, position, instruction) of every store into a candidate.
    stores: Vec<(u32, u32, u32, Inst)>,
    /// (candidate, block, position, instruction) of every load of a candidate.
    loads: Vec<(u32, u32, u32, Inst)>,
    /// `repl[Value]`: the value that replaces a forwarded load's result.
    repl: Vec<Option<Value>>,
    /// Per block: the first position holding a store into the candidate being checked
    /// (`u32::MAX`: none), valid where `stamp` is the candidate's.
    first_store: Vec<(u32, u32)>,
    /// `removed[Inst]`: a forwarded load or store (unlisted at the end).
    removed: Vec<bool>,
}

/// The result of one forwarding.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Forwarded {
    /// Address slots forwarded (their loads replaced, their stores removed).
    pub slots: u64,
    /// Loads replaced by the stored alloca.
    pub loads: u64,
    /// Stores removed.
    pub stores: u64,
}

/// Forwards the address slots of `f` (see the module doc); `dom` must describe `f`'s CFG.
/// Removed loads and stores are unlisted and flagged in `inst_dead`; every use of a removed
/// load's result reads the forwarded alloca instead. Creates no row.
///
/// Phases: `collect_candidates`, `record_uses`, then rounds of `try_forward` until
/// one forwards nothing, and `apply`.
pub fn forward_address_slots(
    f: &mut Body<'_>,
    dom: &DomTree,
    params: super::ParamAllocas,
    scratch: &mut ForwardScratch,
) -> Forwarded {
    let s = scratch;
    collect_candidates(f, params, s);
    if s.candidates.is_empty() {
        return Forwarded::default();
    }
    record_uses(f, s);
    if !s.candidates.iter().any(|c| c.ok) {
        return Forwarded::default();
    }
    // Group the accesses by candidate (stable: block order within a candidate).
    s.stores.sort_by_key(|a| a.0);
    s.loads.sort_by_key(|a| a.0);
    s.repl.clear();
    s.repl.resize(f.values.len(), None);
    s.first_store.clear();
    s.first_store.resize(f.num_blocks(), (NONE, NONE));
    s.removed.clear();
    s.removed.resize(f.num_insts(), false);
    let mut out = Forwarded::default();
    // Rounds: a slot whose stores store a load of another slot becomes forwardable once
    // that slot is forwarded.
    loop {
        let mut progress = false;
        for c in 0..s.candidates.len() {
            if try_forward(f, dom, s, c, &mut out) {
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    if out.slots > 0 {
        apply(f, s);
    }
    out
}

/// Candidates: the non-volatile pointer allocas of live blocks, except the parameter
/// allocas with [`ParamAllocas::Skip`](super::ParamAllocas::Skip) (the first N allocas of
/// the entry block must stay as they are, so they are never forwarded).
fn collect_candidates(f: &Body<'_>, params: super::ParamAllocas, s: &mut ForwardScratch) {
    let mut protected = match params {
        super::ParamAllocas::Skip => f.info.param_values.len(),
        super::ParamAllocas::IncludeStored => 0,
    };
    s.candidates.clear();
    s.stores.clear();
    s.loads.clear();
    s.candidate_of.clear();
    s.candidate_of.resize(f.values.len(), NONE);
    for b in (0..f.num_blocks()).filter(|&b| !f.block_dead[b]) {
        for &i in &f.block_insts[b] {
            if b == 0 && protected > 0 && matches!(f.kinds[i.index()], InstKind::Alloca { .. }) {
                protected -= 1;
                continue;
            }
            if let InstKind::Alloca {
                ty: Type::Ptr,
                volatile: false,
                ..
            } = f.kinds[i.index()]
            {
                if let [v] = f.results[i.index()].as_slice() {
                    s.candidate_of[v.index()] = s.candidates.len() as u32;
                    s.candidates.push(Candidate {
                        slot: *v,
                        ok: true,
                        done: false,
                    });
                }
            }
        }
    }
}

/// Uses: loads and stores through a candidate are recorded (with their block and
/// position); every other use of a candidate's value disqualifies it.
fn record_uses(f: &Body<'_>, s: &mut ForwardScratch) {
    let (candidate_of, candidates) = (&s.candidate_of, &mut s.candidates);
    let disqualify = |o: Operand, candidates: &mut Vec<Candidate>| {
        if let Operand::Value(v) = o {
            if let Some(&c) = candidate_of.get(v.index()).filter(|&&c| c != NONE) {
                candidates[c as usize].ok = false;
            }
        }
    };
    let candidate = |o: Operand| match o {
        Operand::Value(v) => candidate_of.get(v.index()).copied().filter(|&c| c != NONE),
        Operand::Const(_) => None,
    };
    for b in (0..f.num_blocks()).filter(|&b| !f.block_dead[b]) {
        for (pos, &i) in f.block_insts[b].iter().enumerate() {
            let at = (b as u32, pos as u32, i);
            match &f.kinds[i.index()] {
                // A load's only operand is its address.
                InstKind::Load { ty, ptr, volatile } => {
                    if let Some(c) = candidate(*ptr) {
                        if *ty == Type::Ptr && !volatile {
                            s.loads.push((c, at.0, at.1, at.2));
                        } else {
                            candidates[c as usize].ok = false;
                        }
                    }
                }
                InstKind::Store {
                    ty,
                    value,
                    ptr,
                    volatile,
                } => {
                    disqualify(*value, candidates);
                    if let Some(c) = candidate(*ptr) {
                        if *ty == Type::Ptr && !volatile {
                            s.stores.push((c, at.0, at.1, at.2));
                        } else {
                            candidates[c as usize].ok = false;
                        }
                    }
                }
                kind => kind.for_each_operand(|o| disqualify(o, candidates)),
            }
        }
        f.terminators[b].for_each_operand(|o| disqualify(o, candidates));
    }
}

/// One candidate `c` in one round: forwards it if every store stores one alloca (after
/// the forwardings so far) and every load is dominated by one of those stores, marking
/// its loads and stores removed and mapping the loads' results to the alloca in
/// `s.repl`. Returns true if it forwarded.
fn try_forward(
    f: &Body<'_>,
    dom: &DomTree,
    s: &mut ForwardScratch,
    c: usize,
    out: &mut Forwarded,
) -> bool {
    let cand = s.candidates[c];
    if !cand.ok || cand.done {
        return false;
    }
    let stores = range_of(&s.stores, c as u32);
    let loads = range_of(&s.loads, c as u32);
    if stores.is_empty() || loads.is_empty() {
        return false;
    }
    // One stored value, an alloca (after forwarding).
    let mut stored: Option<Value> = None;
    for &(_, _, _, i) in &s.stores[stores.clone()] {
        let InstKind::Store { value, .. } = &f.kinds[i.index()] else {
            return false;
        };
        let v = match *value {
            Operand::Value(v) => resolve(&s.repl, v),
            Operand::Const(_) => return false,
        };
        if stored.is_some_and(|w| w != v) || v == cand.slot {
            return false;
        }
        stored = Some(v);
    }
    let Some(target) = stored else {
        return false;
    };
    let is_alloca = match f.values[target.index()].def {
        ValueDef::Result(i, 0) => matches!(f.kinds[i.index()], InstKind::Alloca { .. }),
        _ => false,
    };
    if !is_alloca || !loads_covered(dom, s, c as u32, stores.clone(), loads.clone()) {
        return false;
    }
    // Forward: loads read `target`; loads and stores go.
    // (Unlisted at the end: the positions recorded stay valid meanwhile.)
    for &(_, _, _, i) in &s.loads[loads] {
        if let [r] = f.results[i.index()].as_slice() {
            s.repl[r.index()] = Some(target);
        }
        s.removed[i.index()] = true;
        out.loads += 1;
    }
    for &(_, _, _, i) in &s.stores[stores] {
        s.removed[i.index()] = true;
        out.stores += 1;
    }
    s.candidates[c].done = true;
    out.slots += 1;
    true
}

/// True if every load of candidate `stamp` (`s.loads[loads]`) comes after one of its
/// stores (`s.stores[stores]`) in its block or lies in a block strictly dominated by a
/// block holding one. Leaves `s.first_store` clear.
fn loads_covered(
    dom: &DomTree,
    s: &mut ForwardScratch,
    stamp: u32,
    stores: std::ops::Range<usize>,
    loads: std::ops::Range<usize>,
) -> bool {
    for &(_, b, pos, _) in &s.stores[stores.clone()] {
        let e = &mut s.first_store[b as usize];
        if e.0 != stamp || pos < e.1 {
            *e = (stamp, pos);
        }
    }
    let covered = s.loads[loads].iter().all(|&(_, b, pos, _)| {
        let first = &s.first_store;
        let stored_before = |blk: usize, before: u32| {
            let (st, p) = first[blk];
            st == stamp && p < before
        };
        if stored_before(b as usize, pos) {
            return true;
        }
        if dom.preorder_number(Block(b)).is_none() {
            return false;
        }
        let mut d = dom.idom(Block(b));
        while let Some(x) = d {
            if stored_before(x.index(), u32::MAX) {
                return true;
            }
            d = dom.idom(x);
        }
        false
    });
    // Reset this candidate's marks, so the stamp can be reused safely next round.
    for &(_, b, _, _) in &s.stores[stores] {
        s.first_store[b as usize] = (NONE, NONE);
    }
    covered
}

/// Unlists the removed loads and stores (flagging them in `inst_dead`) and rewrites every
/// operand through `s.repl`.
fn apply(f: &mut Body<'_>, s: &ForwardScratch) {
    let repl = &s.repl;
    let rewrite = |o: &mut Operand| {
        if let Operand::Value(v) = *o {
            let r = resolve(repl, v);
            if r != v {
                *o = Operand::Value(r);
            }
        }
    };
    let nb = f.num_blocks();
    let (removed, inst_dead) = (&s.removed, &mut *f.inst_dead);
    for b in (0..nb).filter(|&b| !f.block_dead[b]) {
        let insts = &mut f.block_insts[b];
        insts.retain(|i| {
            let gone = removed[i.index()];
            inst_dead[i.index()] |= gone;
            !gone
        });
        for &i in insts.iter() {
            f.kinds[i.index()].for_each_operand_mut(rewrite);
        }
        f.terminators[b].for_each_operand_mut(rewrite);
    }
}

/// The index range of `accesses` (sorted by candidate) that belongs to candidate `c`.
fn range_of(accesses: &[(u32, u32, u32, Inst)], c: u32) -> std::ops::Range<usize> {
    let start = accesses.partition_point(|a| a.0 < c);
    let end = accesses.partition_point(|a| a.0 <= c);
    start..end
}

/// Follows the replacement chain from `v` (loads forwarded to a value that is itself a
/// forwarded load's result never happens: targets are allocas; the bound is a guard).
fn resolve(repl: &[Option<Value>], mut v: Value) -> Value {
    for _ in 0..repl.len() + 1 {
        match repl.get(v.index()).copied().flatten() {
            Some(next) => v = next,
            None => return v,
        }
    }
    v
}

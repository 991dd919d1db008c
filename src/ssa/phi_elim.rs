//! Phi elimination: SSA to copies for the backend (002 "Phi elimination pass").
//!
//! What: [`eliminate`] replaces every phi by `copy` instructions on its incoming edges and
//! leaves the function in phase [`Phase::Destructed`](crate::ir::Phase), where a value may
//! be defined by several copies (each copy's `results` is `[phi value]`; the value table
//! names the first one).
//!
//! Algorithm, per block `B` with phis `d_i = phi [..]` (Briggs, Cooper, Harvey and Simpson,
//! "Practical Improvements to the Construction and Destruction of Static Single Assignment
//! Form", 1998, for the lost-copy and swap problems; Sreedhar et al. 1999 for why copies on
//! a split edge are safe):
//!
//! 1. **Edge values.** For the k-th edge from predecessor `P` (predecessor lists count
//!    edges), phi `i` carries its k-th incoming entry naming `P` (the last one if there are
//!    fewer).
//! 2. **Conflicts (lost copy / swap).** On an edge, phi `i` conflicts if its source is the
//!    destination of another phi of `B` (not itself). Safety net: the destination of any phi
//!    read by a conflicting phi is marked too, to a fixpoint, which covers chains
//!    (`a = b, b = c`) and rotations (`a = b, b = c, c = a`). Temporaries are global: a phi
//!    conflicting on any edge gets one temporary `t_i`, used on every edge.
//! 3. **Two-phase copies.** Phase 1 on each edge: `t_i = copy src_i` for phis with a
//!    temporary (all of them first, even self-copies: the restore reads `t_i`), then
//!    `d_j = copy src_j` for the others, self-copies elided. Phase 2, once at the head of
//!    `B`: `d_i = copy t_i`. Saves read every source before any destination is written, and
//!    direct copies never read a destination, so the sequence is a correct parallel copy.
//! 4. **Where the phase-1 copies go.** At the end of `P` (before its terminator) if the edge
//!    is `P`'s only successor edge and `P` ends in `jump` (which reads no value); at the head of `B` if it is `B`'s only predecessor edge;
//!    at the end of `P` if `P` ends in `indirect_br` (its targets cannot be redirected: 002's
//!    exception; to make it safe, every phi of a block entered by an `indirect_br` edge
//!    uses a temporary, so the copies that also run on the other edges write only
//!    temporaries); otherwise on a **trampoline**: a new block (appended to the block table,
//!    so its label is unique) holding the copies and `jump B`, with the edge redirected to
//!    it. Trampolines are memoised per (predecessor, target): consecutive edges from `P` to
//!    `B` with the same copies share one. `asm goto` edges always get a trampoline (they
//!    leave in the middle of `P`). Edges with nothing to copy are left alone.
//!
//! Deviation from 002's rule "trampolines on critical edges": an edge from a block with
//! several successors into a block with one predecessor gets its copies at the head of the
//! target instead (placing them at the end of `P` would run them on `P`'s other edges too).
//!
//! Invariants after [`eliminate`]: no phi is listed; every copy's source is available at
//! its position on every path; the CFG changed iff `trampolines > 0` (analyses computed
//! before are then stale: the system marks them so).
//!
//! Complexity: O(Σ phis × predecessor edges + blocks + edges) time; scratch is dense and
//! reused (`phi_index[value]` is reset after each block).

use crate::analysis::Cfg;
use crate::ir::{
    Block, Body, BodyRef, Inst, InstKind, IrRead, Operand, Target, Terminator, Type, Value,
    ValueData, ValueDef,
};
use crate::stage::PassStats;
use bevy_ecs::resource::Resource;

const NONE: u32 = u32::MAX;

/// Counters of one phi elimination.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PhiElimStats {
    /// Phis removed.
    pub phis: u64,
    /// Copies emitted (phase 1 and phase 2).
    pub copies: u64,
    /// Trampoline blocks created.
    pub trampolines: u64,
    /// Temporaries allocated (one per conflicting phi).
    pub temporaries: u64,
}

impl PhiElimStats {
    /// Adds the counters to `stats` under pass `phi-elim` (zero counters are left out).
    pub fn report(&self, stats: &mut PassStats) {
        for (name, n) in [
            ("phis_eliminated", self.phis),
            ("copies_emitted", self.copies),
            ("trampolines", self.trampolines),
            ("temporaries", self.temporaries),
        ] {
            if n > 0 {
                stats.add("phi-elim", name, n);
            }
        }
    }

    /// The counters a pipeline run reported under `phi-elim`.
    pub fn from_report(report: &crate::stage::PassReport) -> Self {
        PhiElimStats {
            phis: report.stat("phi-elim", "phis_eliminated"),
            copies: report.stat("phi-elim", "copies_emitted"),
            trampolines: report.stat("phi-elim", "trampolines"),
            temporaries: report.stat("phi-elim", "temporaries"),
        }
    }
}

/// Reusable scratch of [`eliminate`].
#[derive(Resource, Default, Debug)]
pub struct PhiElimScratch {
    /// `phi_index[value]`: index of the phi of the current block defining it, or `NONE`.
    phi_index: Vec<u32>,
    /// Phis of the current block: (instruction, destination, type).
    phis: Vec<(Inst, Value, Type)>,
    /// Edge values, `vals[e * k + i]`.
    vals: Vec<Operand>,
    /// Temporary of each phi, or `NONE`.
    temp: Vec<u32>,
    /// Per predecessor run start: entries of the current phi placed so far.
    used: Vec<u32>,
    /// Phis that need a temporary.
    marked: Vec<bool>,
    /// Worklist for the safety net.
    work: Vec<u32>,
    /// Phase-1 copies of one edge: (destination, source, type).
    copies: Vec<(Value, Operand, Type)>,
    /// Copies to put at the head of the current block.
    head: Vec<Inst>,
}

fn new_copy(f: &mut Body<'_>, block: Block, dest: Value, src: Operand, ty: Type) -> Inst {
    let i = f.push_inst(InstKind::Copy { ty, src }, smallvec::smallvec![dest], block);
    if f.values[dest.index()].def == ValueDef::Unused {
        f.values[dest.index()].def = ValueDef::Result(i, 0);
    }
    i
}

/// Emits `copies` (destination, source, type) as copy instructions of `block`, in order:
/// appended to its instruction list, or pushed to `head` (the caller splices them in).
fn emit_copies(
    f: &mut Body<'_>,
    block: Block,
    copies: &[(Value, Operand, Type)],
    mut head: Option<&mut Vec<Inst>>,
) {
    for &(d, src, ty) in copies {
        let c = new_copy(f, block, d, src, ty);
        match head.as_deref_mut() {
            Some(h) => h.push(c),
            None => f.block_insts[block.index()].push(c),
        }
    }
}

/// Redirects the `occurrence`-th successor edge of `p` naming `from` (terminator successors,
/// then asm-goto labels in instruction order) to `to`.
pub(crate) fn retarget(f: &mut Body<'_>, p: Block, from: Block, occurrence: usize, to: Block) {
    let mut seen = 0;
    let mut done = false;
    f.terminators[p.index()].for_each_successor_mut(|s| {
        if !done && *s == from {
            if seen == occurrence {
                *s = to;
                done = true;
            }
            seen += 1;
        }
    });
    if done {
        return;
    }
    for &i in &f.block_insts[p.index()] {
        if let InstKind::InlineAsm(asm) = &mut f.kinds[i.index()] {
            for l in asm.goto_labels.iter_mut() {
                if *l == from {
                    if seen == occurrence {
                        *l = to;
                        return;
                    }
                    seen += 1;
                }
            }
        }
    }
}

/// Upper bounds on the instructions and blocks [`eliminate`] creates in `f`: per block with
/// `k` leading phis and `ne` predecessor edges, at most `k * (ne + 1)` copies and `ne`
/// trampolines. O(blocks + phis).
pub fn rows_needed(f: &BodyRef<'_>, cfg: &Cfg) -> (usize, usize) {
    let (mut insts, mut blocks) = (0, 0);
    for b in 0..f.num_blocks() {
        if f.block_dead[b] {
            continue;
        }
        let k = f.block_insts[b]
            .iter()
            .take_while(|i| matches!(f.kinds[i.index()], InstKind::Phi { .. }))
            .count();
        if k > 0 {
            let ne = cfg.preds(Block::new(b)).len();
            insts += k * (ne + 1);
            blocks += ne;
        }
    }
    (insts, blocks)
}

/// Replaces every phi of `f` by copies (see the module doc). `f` must be in an SSA phase
/// and valid, `cfg` its CFG, with the spare rows of [`rows_needed`]; the caller sets the
/// phase to `Destructed` and invalidates the analyses if trampolines were added.
pub fn eliminate(f: &mut Body<'_>, cfg: &Cfg, s: &mut PhiElimScratch) -> PhiElimStats {
    let mut stats = PhiElimStats::default();
    if s.phi_index.len() < f.values.len() {
        s.phi_index.resize(f.values.len(), NONE);
    }
    for bi in 0..f.num_blocks() {
        if f.block_dead[bi] {
            continue;
        }
        collect_leading_phis(f, Block::new(bi), s);
        if !s.phis.is_empty() {
            eliminate_block(f, cfg, Block::new(bi), s, &mut stats);
        }
    }
    stats
}

/// Fills `s.phis` with the leading phis of `b` (those with a result).
fn collect_leading_phis(f: &Body<'_>, b: Block, s: &mut PhiElimScratch) {
    s.phis.clear();
    for &i in &f.block_insts[b.index()] {
        match &f.kinds[i.index()] {
            InstKind::Phi { ty, .. } => {
                if let Some(&d) = f.results[i.index()].first() {
                    s.phis.push((i, d, *ty));
                }
            }
            _ => break,
        }
    }
}

/// Steps 1 to 4 of the module doc for one block `b` whose phis are in `s.phis`.
fn eliminate_block(
    f: &mut Body<'_>,
    cfg: &Cfg,
    b: Block,
    s: &mut PhiElimScratch,
    stats: &mut PhiElimStats,
) {
    let k = s.phis.len();
    stats.phis += k as u64;
    for (n, &(_, d, _)) in s.phis.iter().enumerate() {
        s.phi_index[d.index()] = n as u32;
        f.values[d.index()].def = ValueDef::Unused;
    }
    // 1. Edge values.
    let preds = cfg.preds(b);
    edge_values(
        f.kinds,
        preds,
        s.phis.iter().map(|p| p.0),
        k,
        &mut s.vals,
        &mut s.used,
    );
    // 2. Conflicts and temporaries (global per phi).
    allocate_temporaries(f, preds, b, s, stats);
    // 3-4. Phase-1 copies per edge, placed at the end of P, the head of B or on a
    // trampoline.
    s.head.clear();
    place_edge_copies(f, cfg, b, s, stats);
    // Phase 2: restores at the head of B.
    for i in 0..k {
        if s.temp[i] != NONE {
            let (_, d, ty) = s.phis[i];
            let c = new_copy(f, b, d, Operand::Value(Value(s.temp[i])), ty);
            s.head.push(c);
            stats.copies += 1;
        }
    }
    // Unlist the phis, put the head copies first.
    let mut insts = std::mem::take(&mut f.block_insts[b.index()]);
    insts.splice(0..k, s.head.iter().copied());
    f.block_insts[b.index()] = insts;
    for &(inst, d, _) in &s.phis {
        f.inst_dead[inst.index()] = true;
        s.phi_index[d.index()] = NONE;
        if f.values[d.index()].def == ValueDef::Unused {
            // Never copied into (only self-copies): keep the old definition's name.
            f.values[d.index()].def = ValueDef::Result(inst, 0);
        }
    }
}

/// Step 2: marks the phis of `b` that need a temporary (lost copy, swap, the safety net's
/// fixpoint, every phi when an `indirect_br` enters `b`) and gives each its temporary
/// value in `s.temp` (`NONE` for the others).
fn allocate_temporaries(
    f: &mut Body<'_>,
    preds: &[Block],
    b: Block,
    s: &mut PhiElimScratch,
    stats: &mut PhiElimStats,
) {
    let k = s.phis.len();
    s.temp.clear();
    s.temp.resize(k, NONE);
    s.marked.clear();
    // Copies placed before an `indirect_br` also run on its other edges: with every phi
    // of `B` behind a temporary, they only write temporaries, which nothing but `B`'s
    // head reads (and every edge into `B` writes), so the exception becomes safe.
    let indirect_pred = preds.iter().any(|p| {
        matches!(&f.terminators[p.index()], Terminator::IndirectBr { dests, .. } if dests.contains(&b))
    });
    s.marked.resize(k, indirect_pred);
    for e in 0..preds.len() {
        let row = &s.vals[e * k..(e + 1) * k];
        for (i, &src) in row.iter().enumerate() {
            if let Operand::Value(v) = src {
                let j = s.phi_index.get(v.index()).copied().unwrap_or(NONE);
                if j != NONE && j as usize != i && !s.marked[i] {
                    s.marked[i] = true;
                    s.work.push(i as u32);
                }
            }
        }
        // Safety net: a phi whose destination a marked phi reads is marked too.
        while let Some(i) = s.work.pop() {
            if let Operand::Value(v) = row[i as usize] {
                let j = s.phi_index.get(v.index()).copied().unwrap_or(NONE);
                if j != NONE && !s.marked[j as usize] {
                    s.marked[j as usize] = true;
                    s.work.push(j);
                }
            }
        }
    }
    for (i, &m) in s.marked.iter().enumerate() {
        if m {
            let t = Value::new(f.values.len());
            f.values.push(ValueData {
                ty: s.phis[i].2,
                def: ValueDef::Unused,
            });
            s.temp[i] = t.0;
            stats.temporaries += 1;
        }
    }
}

/// Fills `s.copies` with the phase-1 copies of edge `e` into the current block: saves to
/// temporaries first, then direct copies (self-copies elided).
fn edge_copies(s: &mut PhiElimScratch, e: usize) {
    let k = s.phis.len();
    s.copies.clear();
    for i in 0..k {
        if s.temp[i] != NONE {
            s.copies
                .push((Value(s.temp[i]), s.vals[e * k + i], s.phis[i].2));
        }
    }
    for i in 0..k {
        let src = s.vals[e * k + i];
        let d = s.phis[i].1;
        if s.temp[i] == NONE && src != Operand::Value(d) {
            s.copies.push((d, src, s.phis[i].2));
        }
    }
}

/// Whether the `occurrence`-th edge from `p` to `b` is an `asm goto` label edge (one past
/// the terminator's successors).
fn is_goto_edge(f: &Body<'_>, cfg: &Cfg, p: Block, b: Block, occurrence: usize) -> bool {
    let nterm = f.terminators[p.index()].num_successors();
    let succs = cfg.succs(p);
    // Only blocks with asm-goto labels have successor edges beyond the terminator's.
    if succs.len() <= nterm {
        return false;
    }
    let mut seen = 0;
    for (idx, &t) in succs.iter().enumerate() {
        if t == b {
            if seen == occurrence {
                return idx >= nterm;
            }
            seen += 1;
        }
    }
    false
}

/// Steps 3 and 4: for each predecessor edge of `b`, emits its phase-1 copies at the end of
/// the predecessor, into `s.head` (the head of `b`), or on a trampoline (memoised for
/// identical consecutive edges from one predecessor).
fn place_edge_copies(
    f: &mut Body<'_>,
    cfg: &Cfg,
    b: Block,
    s: &mut PhiElimScratch,
    stats: &mut PhiElimStats,
) {
    let k = s.phis.len();
    let preds = cfg.preds(b);
    let ne = preds.len();
    let mut last_tramp: Option<(Block, Block, usize)> = None; // (pred, trampoline, edge)
    let mut redirected = (Block(NONE), 0usize); // (pred, edges redirected so far)
    for e in 0..ne {
        let p = preds[e];
        let occurrence = e - preds.partition_point(|&q| q < p);
        edge_copies(s, e);
        if s.copies.is_empty() {
            continue;
        }
        let is_goto = is_goto_edge(f, cfg, p, b, occurrence);
        let indirect = matches!(f.terminators[p.index()], Terminator::IndirectBr { .. });
        // A lone edge of a `jump` (a one-edge `switch` reads its scrutinee after the
        // copies, so it gets a trampoline like any other edge).
        let jump = matches!(f.terminators[p.index()], Terminator::Jump(_));
        if !is_goto && ((cfg.succs(p).len() == 1 && jump) || indirect) {
            emit_copies(f, p, &s.copies, None);
        } else if ne == 1 && !is_goto {
            emit_copies(f, b, &s.copies, Some(&mut s.head));
        } else {
            // Memoised per (predecessor, target) for identical consecutive edges.
            let reuse = match last_tramp {
                Some((q, t, pe))
                    if q == p && s.vals[pe * k..(pe + 1) * k] == s.vals[e * k..(e + 1) * k] =>
                {
                    Some(t)
                }
                _ => None,
            };
            let t = match reuse {
                Some(t) => t,
                None => {
                    let t = f.push_block(Vec::new(), Terminator::Jump(Target::new(b)));
                    emit_copies(f, t, &s.copies, None);
                    stats.trampolines += 1;
                    stats.copies += s.copies.len() as u64;
                    t
                }
            };
            // Earlier redirected edges from `p` no longer name `b`.
            if redirected.0 != p {
                redirected = (p, 0);
            }
            retarget(f, p, b, occurrence - redirected.1, t);
            redirected.1 += 1;
            last_tramp = Some((p, t, e));
            continue;
        }
        stats.copies += s.copies.len() as u64;
    }
}

/// Fills `vals[e * k + i]` with the operand phi `i` (of `phis`, `k` of them) carries on edge
/// `e` of `preds` (one entry per predecessor edge, sorted by source): the j-th incoming
/// entry naming `P` goes to the j-th edge from `P`, and if there are fewer entries than
/// edges, the last one serves the rest. O(k × (ne + entries × log ne)).
pub(crate) fn edge_values(
    kinds: &[InstKind],
    preds: &[Block],
    phis: impl Iterator<Item = Inst>,
    k: usize,
    vals: &mut Vec<Operand>,
    used: &mut Vec<u32>,
) {
    let ne = preds.len();
    vals.clear();
    vals.resize(ne * k, Operand::Value(Value(NONE)));
    for (i, inst) in phis.enumerate() {
        let InstKind::Phi { incoming, .. } = &kinds[inst.index()] else {
            continue;
        };
        used.clear();
        used.resize(ne, 0);
        for &(q, v) in incoming.iter() {
            let first = preds.partition_point(|&x| x < q);
            if first < ne && preds[first] == q {
                let pos = first + used[first] as usize;
                used[first] += 1;
                if pos < ne && preds[pos] == q {
                    vals[pos * k + i] = v;
                }
            }
        }
        for e in 1..ne {
            if preds[e] == preds[e - 1] && vals[e * k + i] == Operand::Value(Value(NONE)) {
                vals[e * k + i] = vals[(e - 1) * k + i];
            }
        }
    }
}

//! Phase 1 of building the problem: statement eligibility (spec 001), a forward must-
//! analysis. Finds the paths (globals with an origin in the model) each pointer value is
//! derived from and each memory access reaches, every instruction's operand-independent
//! support (its kind, `fn_ptr` operands, own paths), then the greatest fixpoint of value
//! eligibility (a value is eligible on a target iff its instruction is supported there and
//! every operand is eligible), and the blocks on a cycle (targets banned in loops).
//!
//! Reads: the function, its SCCs, the symbols and the model. Writes: `kind_masks`,
//! `live_blocks`, `sym_path`, `sym_seen`, `derived`, `value_path`, `access_path`,
//! `base_sup`, `inst_sup`, `inst_kind`, `elig`, `first_reader`, `in_loop`, `all`, `loop_mask` of the
//! scratch; the path tables of `out`. Its first round, which visits every instruction and
//! every operand anyway, also records for liveness the block defining each value
//! (`def_block`) and every use (`uses`: block and value, terminators included; `phi_uses`:
//! predecessor and value), so that liveness walks no instruction, and every instruction's
//! value operands (`op_span`: its range of `phi_uses` for a phi, of `uses` otherwise),
//! which later rounds and seam sizes read instead of matching each instruction's kind
//! again.
//!
//! Complexity: O(instructions · rounds) for the fixpoint (rounds: until one in which no
//! value shrank after being read; one when definitions come before uses; a later round
//! starts at the first block holding a stale reader and stops after the last reader of
//! every value shrunk since its readers were visited, which on sqlite -O2 took the phase
//! from 97.8M to 95.6M instructions, callgrind), O(paths looked up) per function for the
//! symbol table.

use super::super::sizes::global_size;
use super::super::targets::{TargetModel, KINDS};
use super::{kind_of, BuildScratch, IrProblem, FN_PTR_KIND, NO_PATH, PHI_KIND, UNKNOWN_PATH};
use crate::analysis::Sccs;
use crate::ir::{Block, Callee, ConstKind, Inst, InstKind, IrRead, Operand, SymbolTable};

/// Runs the phase (see the module doc).
pub(super) fn compute<F: IrRead>(
    f: &F,
    sccs: &Sccs,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) {
    let k = model.len();
    let all = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    s.kind_masks.clear();
    s.kind_masks.extend((0..KINDS.len()).map(|kind| {
        (0..k)
            .filter(|&t| model.cost(t, kind).is_some())
            .fold(0u64, |m, t| m | 1 << t)
    }));
    let nb = f.num_blocks();
    s.live_blocks.clear();
    s.live_blocks
        .extend((0..nb as u32).filter(|&b| !f.is_block_dead(Block(b))));
    out.path_names.clear();
    out.path_origin.clear();
    out.path_sizes.clear();
    // Forget the symbols the last function looked up (not the whole table: it is as long
    // as the module's symbol list, and this runs once per function).
    for &sym in &s.sym_seen {
        if let Some(slot) = s.sym_path.get_mut(sym as usize) {
            *slot = UNKNOWN_PATH;
        }
    }
    s.sym_seen.clear();
    let num_symbols = symbols.map_or(0, |t| t.names.len());
    s.sym_path.truncate(num_symbols);
    s.sym_path.resize(num_symbols, UNKNOWN_PATH);
    let only_own = model
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| t.only_own_paths)
        .fold(0u64, |m, (t, _)| m | 1 << t);
    let lookup = Lookup {
        f,
        symbols,
        model,
        all,
        only_own,
    };
    derive_paths(&lookup, s, out);
    fixpoint(&lookup, s, out);
    // Loops: blocks in a non-trivial SCC of the CFG (or with a self-loop).
    s.in_loop.clear();
    s.in_loop.extend((0..nb).map(|b| {
        sccs.component(Block::new(b))
            .is_some_and(|c| !sccs.is_trivial(c))
    }));
    s.all = all;
    s.loop_mask = (0..k)
        .filter(|&t| model.targets[t].in_loops)
        .fold(0u64, |m, t| m | 1 << t);
}

/// What the path and support rules read: the function, its symbols, the model, every
/// target (`all`) and the targets that access only their own paths (`only_own`).
struct Lookup<'a, F> {
    f: &'a F,
    symbols: Option<&'a SymbolTable>,
    model: &'a TargetModel,
    all: u64,
    only_own: u64,
}

impl<F: IrRead> Lookup<'_, F> {
    /// The path of a constant operand: the address of a global with an origin in the model
    /// (looked up once per symbol; `sym_seen` lists the symbols looked up).
    fn const_path(
        &self,
        op: Operand,
        (sym_path, sym_seen): (&mut [u32], &mut Vec<u32>),
        out: &mut IrProblem,
    ) -> u32 {
        let Operand::Const(c) = op else {
            return NO_PATH;
        };
        let Some(ConstKind::SymbolAddr(sym)) = self.f.consts().try_get(c).map(|d| d.kind) else {
            return NO_PATH;
        };
        let Some(slot) = sym_path.get_mut(sym.index()) else {
            return NO_PATH;
        };
        if *slot == UNKNOWN_PATH {
            sym_seen.push(sym.index() as u32);
            let t = self.symbols.expect("symbols sized the table");
            let name = &t.names[sym.index()];
            *slot = match self.model.origin_of(name) {
                Some(o) => {
                    out.path_names.push(name.clone());
                    out.path_origin.push(o as u8);
                    out.path_sizes.push(global_size(
                        t.global_bytes.get(sym.index()).copied().unwrap_or(0),
                    ));
                    (out.path_names.len() - 1) as u32
                }
                None => NO_PATH,
            };
        }
        *slot
    }

    /// True for the address of a function symbol.
    fn is_fn_const(&self, op: Operand) -> bool {
        let Operand::Const(c) = op else { return false };
        match self.f.consts().try_get(c).map(|d| d.kind) {
            Some(ConstKind::SymbolAddr(s)) => self
                .symbols
                .and_then(|t| t.signatures.get(s.index()))
                .is_some_and(|sig| sig.is_some()),
            _ => false,
        }
    }

    /// The targets allowed to access path `p` (all but the own-path targets that are not
    /// its origin).
    fn own_mask(&self, p: u32, origins: &[u8]) -> u64 {
        let origin = if p == NO_PATH {
            0
        } else {
            1u64 << origins[p as usize]
        };
        self.all & !(self.only_own & !origin)
    }

    /// Instruction `i`'s operand-independent support (its kind, `fn_ptr` operands, own
    /// paths), given whether an operand is a function's address (`fn_operand`); records
    /// its kind index in `inst_kind` and the path a load or store accesses in
    /// `access_path`.
    fn base_support(
        &self,
        i: Inst,
        fn_operand: bool,
        s: &mut BuildScratch,
        out: &mut IrProblem,
    ) -> u64 {
        let kind = self.f.inst_kind(i);
        let kind_index = kind_of(kind);
        s.inst_kind[i.index()] = kind_index as u8;
        let mut m = s.kind_masks[kind_index];
        if fn_operand
            && !matches!(
                kind,
                InstKind::Call {
                    callee: Callee::Direct(_),
                    ..
                }
            )
        {
            m &= s.kind_masks[FN_PTR_KIND];
        }
        let mut path_of = |op: Operand, out: &mut IrProblem| match op {
            Operand::Value(v) => s.value_path.get(v.index()).copied().unwrap_or(NO_PATH),
            c => self.const_path(c, (&mut s.sym_path, &mut s.sym_seen), out),
        };
        match kind {
            InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => {
                let p = path_of(*ptr, out);
                s.access_path[i.index()] = p;
                m &= self.own_mask(p, &out.path_origin);
            }
            InstKind::Gep { base, .. } => {
                let p = path_of(*base, out);
                m &= self.own_mask(p, &out.path_origin);
            }
            InstKind::Alloca { .. } | InstKind::Call { .. } => {
                m &= self.own_mask(NO_PATH, &out.path_origin)
            }
            _ => {}
        }
        m
    }
}

/// Path of a value: a pointer derived (gep, copy, cast) from a path constant, in two
/// passes over the derivations in block order (the second sees bases defined later in
/// that order). The first pass walks every instruction and lists the derivations
/// (`derived`: result, base), the second walks only that list.
fn derive_paths<F: IrRead>(lookup: &Lookup<'_, F>, s: &mut BuildScratch, out: &mut IrProblem) {
    let f = lookup.f;
    s.value_path.clear();
    s.value_path.resize(f.values().len(), NO_PATH);
    s.derived.clear();
    for &b in &s.live_blocks {
        for &i in f.block_insts(Block(b)) {
            let base = match f.inst_kind(i) {
                InstKind::Gep { base, .. } => *base,
                InstKind::Copy { src, .. } => *src,
                InstKind::Cast { arg, .. } => *arg,
                _ => continue,
            };
            let [r] = f.inst_results(i) else { continue };
            s.derived.push((*r, base));
        }
    }
    for _ in 0..2 {
        for &(r, base) in &s.derived {
            let p = match base {
                Operand::Value(v) => s.value_path.get(v.index()).copied().unwrap_or(NO_PATH),
                c => lookup.const_path(c, (&mut s.sym_path, &mut s.sym_seen), out),
            };
            if let Some(slot) = s.value_path.get_mut(r.index()) {
                *slot = p;
            }
        }
    }
}

/// Eligibility: the greatest fixpoint over values, by rounds over the instructions in block
/// order; the first round also computes each instruction's base support (`base_sup`) and
/// records each value's first reader (`first_reader`: the position in `live_blocks` of the
/// first block that reads it, all readers being visited in the first round). A value that
/// shrinks at block position `d` leaves stale exactly the readers that read it before,
/// which are at positions up to `d` (a reader after `d` is visited later in the same
/// round); another round is needed only then, and it starts at the earliest such reader
/// (an instruction before it read only values that did not shrink after the read) and
/// ends after the last reader (`last_reader`) of every value shrunk after a read or during
/// the round (an instruction after that read only values that did not shrink since), so
/// a round's stored supports (`inst_sup`) are those of the fixpoint when it ends with no
/// stale reader (in definition-before-use order, one round).
fn fixpoint<F: IrRead>(lookup: &Lookup<'_, F>, s: &mut BuildScratch, out: &mut IrProblem) {
    let (f, all) = (lookup.f, lookup.all);
    let ni = f.num_insts();
    let nv = f.values().len();
    s.base_sup.clear();
    s.base_sup.resize(ni, all);
    s.inst_sup.clear();
    s.inst_sup.resize(ni, all);
    // Every entry of a live block's instruction is written in the first round.
    s.inst_kind.resize(ni, 0);
    s.access_path.clear();
    s.access_path.resize(ni, NO_PATH);
    s.elig.clear();
    s.elig.resize(nv, all);
    s.first_reader.clear();
    s.first_reader.resize(nv, u32::MAX);
    s.last_reader.clear();
    s.last_reader.resize(nv, 0);
    start_uses(f, s);
    let mut next = first_round(lookup, s, out);
    while next.from != usize::MAX {
        next = later_round(f, next, s);
    }
}

/// Where the next round of [`fixpoint`] starts (`from`, a block position; `usize::MAX`:
/// none is needed) and the last position it must reach (`until`; a round goes on past it
/// while values it narrows have readers further on).
#[derive(Clone, Copy)]
struct Round {
    from: usize,
    until: usize,
}

impl Round {
    /// No round.
    const NONE: Round = Round {
        from: usize::MAX,
        until: 0,
    };

    /// A value defined at block position `bi` narrowed: if a reader read it at or before
    /// `bi` (its first reader, `first`, is there), the round must start there and reach
    /// its last reader known so far (`last`).
    #[inline]
    fn stale(&mut self, first: u32, last: u32, bi: usize) {
        if first as usize <= bi {
            self.from = self.from.min(first as usize);
            self.until = self.until.max(last as usize);
        }
    }
}

/// The first round of [`fixpoint`], over every instruction of the live blocks: each
/// instruction's base support, kind and support; each value's first reader and
/// eligibility; and for liveness each result's block (`def_block`), each use of a value by
/// an instruction other than a phi or by a terminator (`uses`), each value a phi reads with
/// its predecessor (`phi_uses`); each value's last reader (`last_reader`). Returns where
/// the next round starts and what it must reach ([`Round::NONE`]: none is needed).
fn first_round<F: IrRead>(
    lookup: &Lookup<'_, F>,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) -> Round {
    let (f, all) = (lookup.f, lookup.all);
    let ni = f.num_insts();
    let nv = f.values().len();
    let mut next = Round::NONE;
    for bi in 0..s.live_blocks.len() {
        let b = s.live_blocks[bi];
        for &i in f.block_insts(Block(b)) {
            if i.index() >= ni {
                continue;
            }
            // The operands' eligibility, whether one is a function's address, and the
            // uses liveness reads, in one walk over them.
            let (mut operands, mut fn_operand) = (all, false);
            let (elig, first_reader) = (&s.elig, &mut s.first_reader);
            let last_reader = &mut s.last_reader;
            let kind = f.inst_kind(i);
            let span = if let InstKind::Phi { incoming, .. } = kind {
                let start = s.phi_uses.len() as u32;
                for &(p, op) in incoming {
                    match op {
                        Operand::Value(v) => {
                            if let Some(&e) = elig.get(v.index()) {
                                operands &= e;
                                let first = &mut first_reader[v.index()];
                                *first = (*first).min(bi as u32);
                                last_reader[v.index()] = bi as u32;
                                s.phi_uses.push((p.index() as u32, v.index() as u32));
                            }
                        }
                        c => fn_operand |= lookup.is_fn_const(c),
                    }
                }
                (start, s.phi_uses.len() as u32)
            } else {
                let start = s.uses.len() as u32;
                let uses = &mut s.uses;
                kind.for_each_operand(|op| match op {
                    Operand::Value(v) => {
                        if let Some(&e) = elig.get(v.index()) {
                            operands &= e;
                            let first = &mut first_reader[v.index()];
                            *first = (*first).min(bi as u32);
                            last_reader[v.index()] = bi as u32;
                            uses.push((b, v.index() as u32));
                        }
                    }
                    c => fn_operand |= lookup.is_fn_const(c),
                });
                (start, s.uses.len() as u32)
            };
            s.op_span[i.index()] = span;
            let base = lookup.base_support(i, fn_operand, s, out);
            s.base_sup[i.index()] = base;
            let m = base & operands;
            s.inst_sup[i.index()] = m;
            for &r in f.inst_results(i) {
                if r.index() < nv {
                    s.def_block[r.index()] = b;
                    if narrow(&mut s.elig[r.index()], m) {
                        let r = r.index();
                        next.stale(s.first_reader[r], s.last_reader[r], bi);
                    }
                }
            }
        }
        f.terminator(Block(b)).for_each_operand(|op| {
            if let Operand::Value(v) = op {
                if v.index() < nv {
                    s.uses.push((b, v.index() as u32));
                }
            }
        });
    }
    next
}

/// A later round of [`fixpoint`] (`round`: where it starts, what it must reach), with the
/// base supports and the operand ranges (`op_span`) the first round stored, and the
/// readers' positions it recorded (every reader was visited then, so a value's first and
/// last readers are known). It visits the blocks from `round.from` on while one may hold
/// an instruction that read a value narrowed since: up to the position it was asked to
/// reach and to the last reader of every value it narrows (a block further on reads only
/// values that did not change since it was visited). Returns where the next round starts
/// and what it must reach.
fn later_round<F: IrRead>(f: &F, round: Round, s: &mut BuildScratch) -> Round {
    let ni = f.num_insts();
    let mut next = Round::NONE;
    let mut until = round.until;
    for bi in round.from..s.live_blocks.len() {
        if bi > until {
            break;
        }
        for &i in f.block_insts(Block(s.live_blocks[bi])) {
            if i.index() >= ni {
                continue;
            }
            let mut operands = u64::MAX;
            let (start, end) = s.op_span[i.index()];
            let table = if s.inst_kind[i.index()] == PHI_KIND {
                &s.phi_uses
            } else {
                &s.uses
            };
            for &(_, v) in &table[start as usize..end as usize] {
                operands &= s.elig[v as usize];
            }
            let m = s.base_sup[i.index()] & operands;
            s.inst_sup[i.index()] = m;
            for &r in f.inst_results(i) {
                let r = r.index();
                if r < s.elig.len() && narrow(&mut s.elig[r], m) {
                    let last = s.last_reader[r];
                    until = until.max(last as usize);
                    next.stale(s.first_reader[r], last, bi);
                }
            }
        }
    }
    next
}

/// Narrows a value's eligibility `e` to the support `m` of its instruction; true if it
/// shrank.
#[inline]
fn narrow(e: &mut u64, m: u64) -> bool {
    let shrinks = *e & m != *e;
    *e &= m;
    shrinks
}

/// Clears the tables the first round of [`fixpoint`] fills for liveness: `def_block`
/// (parameters in the entry block, block 0), `uses` and `phi_uses`; and the operand table
/// (`op_span`) it fills for later rounds and seam sizes.
fn start_uses<F: IrRead>(f: &F, s: &mut BuildScratch) {
    let nv = f.values().len();
    s.def_block.clear();
    s.def_block.resize(nv, u32::MAX);
    for &p in f.param_values() {
        if let Some(d) = s.def_block.get_mut(p.index()) {
            *d = 0;
        }
    }
    s.uses.clear();
    s.phi_uses.clear();
    s.op_span.clear();
    s.op_span.resize(f.num_insts(), (0, 0));
}

#[cfg(all(test, feature = "fuzzing"))]
mod tests {
    use super::super::{BuildScratch, IrProblem};
    use crate::analysis::{Cfg, Sccs};
    use crate::fuzzing::generate_ssa::{seeded_ssa, SsaGenOptions};
    use crate::ir::{Block, IrRead, Operand};
    use crate::placement::targets::TargetModel;

    /// A model whose second and third targets leave out kinds generated functions use, so
    /// that values shrink around loops (phis read them before their definition).
    const MODEL: &str = "[[target]]\nname = \"a\"\n\n[[target]]\nname = \"b\"\n\
        unsupported = [\"binary\"]\n\n[[target]]\nname = \"c\"\nunsupported = [\"icmp\", \"select\"]\n";

    /// Oracle: the greatest fixpoint by full rounds over every instruction until none
    /// changes, from the operand-independent supports the phase computed (`base_sup`).
    /// Returns the eligibility per value, the support per instruction and the rounds.
    fn full_rounds<F: IrRead>(f: &F, s: &BuildScratch) -> (Vec<u64>, Vec<u64>, usize) {
        let mut elig = vec![s.all; f.values().len()];
        let mut sup = vec![s.all; f.num_insts()];
        for rounds in 1.. {
            let mut changed = false;
            for &b in &s.live_blocks {
                for &i in f.block_insts(Block(b)) {
                    let mut m = s.base_sup[i.index()];
                    f.inst_kind(i).for_each_operand(|op| {
                        if let Operand::Value(v) = op {
                            m &= elig[v.index()];
                        }
                    });
                    changed |= sup[i.index()] != m;
                    sup[i.index()] = m;
                    for r in f.inst_results(i) {
                        changed |= elig[r.index()] & m != elig[r.index()];
                        elig[r.index()] &= m;
                    }
                }
            }
            if !changed {
                return (elig, sup, rounds);
            }
        }
        unreachable!()
    }

    /// The rounds with restarts reach the textbook fixpoint (every value's
    /// eligibility, every instruction's support) on generated SSA functions, many of which
    /// need more than one round.
    #[test]
    fn fixpoint_agrees_with_full_rounds() {
        let model = TargetModel::parse(MODEL).expect("the test model parses");
        let (mut s, mut out) = (BuildScratch::default(), IrProblem::default());
        let mut later_rounds = 0;
        for seed in 0..300u64 {
            let f = seeded_ssa(seed, &SsaGenOptions::default());
            let mut cfg = Cfg::new();
            cfg.compute(&f);
            let mut sccs = Sccs::new();
            sccs.compute(&cfg);
            super::compute(&f, &sccs, None, &model, &mut s, &mut out);
            let (elig, sup, rounds) = full_rounds(&f, &s);
            later_rounds += usize::from(rounds > 2);
            assert_eq!(s.elig, elig, "seed {seed}: eligibility");
            for &b in &s.live_blocks {
                for &i in f.block_insts(Block(b)) {
                    let at = i.index();
                    assert_eq!(s.inst_sup[at], sup[at], "seed {seed}: support of {i:?}");
                }
            }
        }
        assert!(
            later_rounds > 20,
            "only {later_rounds} functions needed a later round"
        );
    }
}

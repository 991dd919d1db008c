//! From an IR function and a target model to a placement [`Problem`]: statement
//! eligibility, size estimation, block splitting, block costs and per-edge matrices
//! (spec 001).
//!
//! What: [`build_problem`] reads a function through [`IrRead`] (blocks, instructions,
//! terminators, constants) and produces one problem block per *piece*: a maximal run of a
//! block's instructions with the same supported target set (the terminator belongs to the
//! last piece, or forms its own when its support differs). Pieces of one IR block are joined
//! by zero-cost jump edges that still carry the normal transition cost; the IR itself is not
//! rewritten, so splitting cannot change what the interpreter computes ([`fuse`] reports
//! which pieces and which argument-free jump chains run as one unit).
//!
//! - Eligibility (forward must-analysis, greatest fixpoint): value `v` is eligible on `t`
//!   iff its defining instruction's kind is supported on `t` and every operand is eligible
//!   on `t` (a phi: every incoming value, i.e. on every path). Parameters are eligible
//!   everywhere. A statement's support is its kind's support intersected with its operands'
//!   eligibility; a target with `only_own_paths` supports a memory access only to a path it
//!   is the origin of. The IR's values are scalars, so the per-field rule of 001 applies
//!   trivially (one field per value).
//! - Targets banned in loops are removed from blocks that lie on a cycle.
//! - A block with an `asm goto` is one piece whose support is the intersection over its
//!   statements and terminator (001's "intersection" strategy, for that block only), and
//!   [`fuse`] never joins it: its label edges leave from the asm instruction, not from the
//!   terminator, so after a cut behind the asm a label target and a terminator successor
//!   could be the same block reached from two different blocks, which one phi entry per
//!   predecessor cannot express. [`super::split`] leaves such blocks alone accordingly.
//! - Sizes ([`super::sizes`]): information units with a cardinality axis, both ranges,
//!   static from types and globals' byte sizes, then propagated forward through
//!   assignments, affine in the parameters (callees' summaries from
//!   [`BuildScratch::summaries`], which the caller fills; empty: static sizes for calls). A
//!   range becomes one number by the model's [`super::sizes::SizeEstimate`] (default: the
//!   midpoint).
//! - Costs: a piece costs the sum of its statements' kind costs, plus its terminator's,
//!   plus for every path (a global it loads from or stores to, with an origin in the model)
//!   whose origin differs from the target a premium of `path_unit` × the estimate of the
//!   path's size (the global's total units). An edge's matrix entry `s -> d` (`s ≠ d`) is the
//!   pair's overhead plus per-unit cost times the summed estimates of the values live
//!   across the edge; same-target transitions are free; disallowed pairs are forbidden;
//!   parallel edges are separate edges.
//!
//! Complexity: O((instructions + blocks) · K) plus liveness O(blocks · values / 64 · d).

use super::problem::{Cost, Problem, FORBIDDEN};
use super::sizes::{self, global_size, Size, SizeForm, SizeScratch, SizeSummaries};
use super::targets::{TargetModel, KINDS};
use crate::analysis::{Cfg, Sccs};
use crate::ir::{Block, Callee, ConstKind, InstKind, IrRead, Operand, SymbolTable, Terminator};

/// A piece: instructions `start..end` of an IR block's list (`end == len` plus the
/// terminator when `terminator` is set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Piece {
    /// The IR block.
    pub block: u32,
    /// First instruction position.
    pub start: u32,
    /// One past the last instruction position.
    pub end: u32,
    /// The piece ends with the block's terminator.
    pub terminator: bool,
}

/// A problem built from a function.
#[derive(Clone, Debug, Default)]
pub struct IrProblem {
    /// The dense problem (one block per piece; piece 0 starts the entry block).
    pub problem: Problem,
    /// The pieces, parallel to `problem.blocks`.
    pub pieces: Vec<Piece>,
    /// Path ids each piece accesses.
    pub paths: Vec<Vec<u32>>,
    /// Path names (global symbol names).
    pub path_names: Vec<String>,
    /// Origin target of each path.
    pub path_origin: Vec<u8>,
    /// Size of each path (the global's, see [`super::sizes::global_size`]).
    pub path_sizes: Vec<Size>,
}

/// The kind index of an instruction in [`KINDS`] (a `match`, not a name lookup: this runs
/// for every instruction; `kind_indices_match_names` checks it against [`KINDS`]).
fn kind_of(k: &InstKind) -> usize {
    match k {
        InstKind::Binary { .. } => 0,
        InstKind::Unary { .. } => 1,
        InstKind::Icmp { .. } => 2,
        InstKind::Fcmp { .. } => 3,
        InstKind::Cast { .. } => 4,
        InstKind::Select { .. } => 5,
        InstKind::Alloca { .. } | InstKind::DynAlloca { .. } => 6,
        InstKind::Load { .. } => 7,
        InstKind::Store { .. } => 8,
        InstKind::Gep { .. } => 9,
        InstKind::Call {
            callee: Callee::Direct(_),
            ..
        } => 10,
        InstKind::Call { .. } => 11,
        InstKind::InlineAsm(_) => 12,
        InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => 13,
        InstKind::Fence { .. } => 14,
        InstKind::Phi { .. } => 15,
        // Member moves cost what a copy costs.
        InstKind::Copy { .. } | InstKind::ExtractValue { .. } | InstKind::InsertValue { .. } => 16,
        InstKind::Opaque(_) => 17,
    }
}

/// [`KINDS`] index of `fn_ptr`.
const FN_PTR_KIND: usize = 18;

/// The kind index of a terminator in [`KINDS`].
fn terminator_kind(t: &Terminator) -> usize {
    match t {
        Terminator::Jump(_) => 19,
        Terminator::Br { .. } => 20,
        Terminator::Switch { .. } => 21,
        Terminator::IndirectBr { .. } => 22,
        Terminator::Ret(_) => 23,
        Terminator::Unreachable => 24,
    }
}

/// True for an `asm goto` (an instruction with label edges).
fn has_goto_labels(k: &InstKind) -> bool {
    matches!(k, InstKind::InlineAsm(asm) if !asm.goto_labels.is_empty())
}

/// No path (per value, per instruction, per symbol).
const NO_PATH: u32 = u32::MAX;
/// A symbol whose path was not looked up yet.
const UNKNOWN_PATH: u32 = u32::MAX - 1;

/// Dense scratch of [`build_problem_in`], kept between functions (the pass holds one in its
/// scratch resource) so that building a problem allocates only when a function is larger
/// than every earlier one. Every table is indexed by a dense IR index (value, instruction,
/// block, symbol) and cleared, never dropped.
#[derive(Clone, Debug, Default)]
pub struct BuildScratch {
    kind_masks: Vec<u64>,
    /// Per symbol: its path id, [`NO_PATH`], or [`UNKNOWN_PATH`].
    sym_path: Vec<u32>,
    /// Per value: the path a pointer value is derived from.
    value_path: Vec<u32>,
    /// Per value: targets it is eligible on.
    elig: Vec<u64>,
    /// Per instruction: operand-independent support (kind, `fn_ptr`, own paths).
    base_sup: Vec<u64>,
    /// Per instruction: full support after the eligibility fixpoint.
    inst_sup: Vec<u64>,
    /// Per instruction: the path a load or store accesses.
    access_path: Vec<u32>,
    /// Size estimation's forms per value.
    sizes: SizeScratch,
    /// Per value: the estimate of its total size (the number costs use).
    est: Vec<u64>,
    /// Return-size summaries of callees (the inter-procedural phase; filled by the caller,
    /// for example from [`super::sizes::summarize_module`]; empty: static sizes for calls).
    pub summaries: SizeSummaries,
    /// The summary of the last function built (its return size, affine in its
    /// parameters), for a caller that collects summaries.
    pub summary: Option<SizeForm>,
    /// Per value: its defining block (`u32::MAX`: none).
    def_block: Vec<u32>,
    /// Per value: its global index (live across blocks), or `u32::MAX`.
    gidx: Vec<u32>,
    /// Per global index: the value.
    gval: Vec<u32>,
    live_in: Vec<u64>,
    live_out: Vec<u64>,
    gen: Vec<u64>,
    kill: Vec<u64>,
    phi_out: Vec<u64>,
    live: Vec<u64>,
    in_loop: Vec<bool>,
    live_blocks: Vec<u32>,
    supports: Vec<u64>,
    seam_size: Vec<u64>,
    first_piece: Vec<u32>,
    last_piece: Vec<u32>,
    seams: Vec<(u32, u64)>,
    costs: Vec<Cost>,
    matrix: Vec<Cost>,
}

/// Builds the placement problem of `f` under `model`; `symbols` (when known) names globals
/// for path origins and tells function symbols apart for `fn_ptr`. Computes the CFG and its
/// SCCs itself and allocates fresh scratch: the pipeline pass uses [`build_problem_in`].
pub fn build_problem<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
) -> IrProblem {
    build_problem_with_summaries(f, symbols, model, &SizeSummaries::default())
}

/// [`build_problem`] with callees' return-size summaries (the inter-procedural phase of
/// [`super::sizes`], for example from [`super::sizes::summarize_module`]): a direct call's
/// result gets its callee's summary applied to the arguments instead of its type's static
/// size.
pub fn build_problem_with_summaries<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    summaries: &SizeSummaries,
) -> IrProblem {
    let mut cfg = Cfg::new();
    cfg.compute(f);
    let mut sccs = Sccs::new();
    sccs.compute(&cfg);
    let mut out = IrProblem::default();
    build_problem_in(
        f,
        &cfg,
        &sccs,
        symbols,
        model,
        &mut BuildScratch {
            summaries: summaries.clone(),
            ..BuildScratch::default()
        },
        &mut out,
    );
    out
}

/// Sets bit `v` of a bitset.
#[inline]
fn set_bit(bits: &mut [u64], v: usize) {
    bits[v / 64] |= 1 << (v % 64);
}

/// Builds the placement problem of `f` into `out` (overwritten; its vectors and strings are
/// reused), reading successors from `cfg` and loops from `sccs` (both of `f`), with `scratch`
/// as working memory. See the module doc for what is computed.
pub fn build_problem_in<F: IrRead>(
    f: &F,
    cfg: &Cfg,
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
    let ni = f.num_insts();
    let nv = f.values().len();
    s.live_blocks.clear();
    s.live_blocks
        .extend((0..nb as u32).filter(|&b| !f.is_block_dead(Block(b))));
    out.path_names.clear();
    out.path_origin.clear();
    out.path_sizes.clear();
    s.sym_path.clear();
    s.sym_path
        .resize(symbols.map_or(0, |t| t.names.len()), UNKNOWN_PATH);
    // The path of a constant operand: the address of a global with an origin in the model
    // (looked up once per symbol).
    let const_path = |op: Operand, sym_path: &mut Vec<u32>, out: &mut IrProblem| -> u32 {
        let Operand::Const(c) = op else {
            return NO_PATH;
        };
        let Some(ConstKind::SymbolAddr(sym)) = f.consts().try_get(c).map(|d| d.kind) else {
            return NO_PATH;
        };
        let Some(slot) = sym_path.get_mut(sym.index()) else {
            return NO_PATH;
        };
        if *slot == UNKNOWN_PATH {
            let name = &symbols.expect("symbols sized the table").names[sym.index()];
            *slot = match model.origin_of(name) {
                Some(o) => {
                    out.path_names.push(name.clone());
                    out.path_origin.push(o as u8);
                    let t = symbols.expect("symbols sized the table");
                    out.path_sizes.push(global_size(
                        t.global_bytes.get(sym.index()).copied().unwrap_or(0),
                    ));
                    (out.path_names.len() - 1) as u32
                }
                None => NO_PATH,
            };
        }
        *slot
    };
    let is_fn_const = |op: Operand| -> bool {
        let Operand::Const(c) = op else { return false };
        match f.consts().try_get(c).map(|d| d.kind) {
            Some(ConstKind::SymbolAddr(s)) => symbols
                .and_then(|t| t.signatures.get(s.index()))
                .is_some_and(|sig| sig.is_some()),
            _ => false,
        }
    };
    // Path of a value: pointer derived (gep, copy, cast) from a path constant.
    s.value_path.clear();
    s.value_path.resize(nv, NO_PATH);
    for _ in 0..2 {
        for &b in &s.live_blocks {
            for &i in f.block_insts(Block(b)) {
                let base = match f.inst_kind(i) {
                    InstKind::Gep { base, .. } => *base,
                    InstKind::Copy { src, .. } => *src,
                    InstKind::Cast { arg, .. } => *arg,
                    _ => continue,
                };
                let [r] = f.inst_results(i) else { continue };
                let p = match base {
                    Operand::Value(v) => s.value_path.get(v.index()).copied().unwrap_or(NO_PATH),
                    c => const_path(c, &mut s.sym_path, out),
                };
                if let Some(slot) = s.value_path.get_mut(r.index()) {
                    *slot = p;
                }
            }
        }
    }
    // Operand-independent support of every listed instruction, and the paths accessed.
    let only_own = model
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| t.only_own_paths)
        .fold(0u64, |m, (t, _)| m | 1 << t);
    let own_mask = |p: u32, origins: &[u8]| -> u64 {
        let origin = if p == NO_PATH {
            0
        } else {
            1u64 << origins[p as usize]
        };
        all & !(only_own & !origin)
    };
    s.base_sup.clear();
    s.base_sup.resize(ni, all);
    s.inst_sup.clear();
    s.inst_sup.resize(ni, all);
    s.access_path.clear();
    s.access_path.resize(ni, NO_PATH);
    for &b in &s.live_blocks {
        for &i in f.block_insts(Block(b)) {
            if i.index() >= ni {
                continue;
            }
            let kind = f.inst_kind(i);
            let mut m = s.kind_masks[kind_of(kind)];
            let mut fnp = false;
            kind.for_each_operand(|op| fnp |= is_fn_const(op));
            if fnp
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
            let path_of = |op: Operand, sym_path: &mut Vec<u32>, out: &mut IrProblem| match op {
                Operand::Value(v) => s.value_path.get(v.index()).copied().unwrap_or(NO_PATH),
                c => const_path(c, sym_path, out),
            };
            match kind {
                InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => {
                    let p = path_of(*ptr, &mut s.sym_path, out);
                    s.access_path[i.index()] = p;
                    m &= own_mask(p, &out.path_origin);
                }
                InstKind::Gep { base, .. } => {
                    let p = path_of(*base, &mut s.sym_path, out);
                    m &= own_mask(p, &out.path_origin);
                }
                InstKind::Alloca { .. } | InstKind::Call { .. } => {
                    m &= own_mask(NO_PATH, &out.path_origin)
                }
                _ => {}
            }
            s.base_sup[i.index()] = m;
        }
    }
    // Eligibility: greatest fixpoint over values. The last round changes nothing, so the
    // supports it stored are those of the fixpoint.
    s.elig.clear();
    s.elig.resize(nv, all);
    loop {
        let mut changed = false;
        for &b in &s.live_blocks {
            for &i in f.block_insts(Block(b)) {
                if i.index() >= ni {
                    continue;
                }
                let mut m = s.base_sup[i.index()];
                let elig = &s.elig;
                f.inst_kind(i).for_each_operand(|op| {
                    if let Operand::Value(v) = op {
                        m &= elig.get(v.index()).copied().unwrap_or(all);
                    }
                });
                s.inst_sup[i.index()] = m;
                for &r in f.inst_results(i) {
                    if let Some(e) = s.elig.get_mut(r.index()) {
                        if *e & m != *e {
                            *e &= m;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Loops: blocks in a non-trivial SCC of the CFG (or with a self-loop).
    s.in_loop.clear();
    s.in_loop.extend((0..nb).map(|b| {
        sccs.component(Block::new(b))
            .is_some_and(|c| !sccs.is_trivial(c))
    }));
    let loop_mask = (0..k)
        .filter(|&t| model.targets[t].in_loops)
        .fold(0u64, |m, t| m | 1 << t);
    // Sizes: forms per value, then the estimate each cost uses.
    s.summary = sizes::compute(f, cfg, symbols, &s.summaries, &mut s.sizes);
    s.est.clear();
    s.est.extend(
        f.values()
            .iter()
            .enumerate()
            .map(|(v, d)| s.sizes.size(v, d.ty).total().estimate(model.size_estimate)),
    );
    // Liveness of values per block (bitsets), phi uses on the predecessor's edge. Only
    // values used outside their defining block (and phi operands) can be live across a
    // block boundary; they get dense "global" indices, so the bitsets are as wide as those
    // (SSA temporaries used where they are defined, most values, never enter them).
    s.def_block.clear();
    s.def_block.resize(nv, u32::MAX);
    for &p in f.param_values() {
        if let Some(d) = s.def_block.get_mut(p.index()) {
            *d = 0;
        }
    }
    for &b in &s.live_blocks {
        for &i in f.block_insts(Block(b)) {
            if i.index() < ni {
                for r in f.inst_results(i) {
                    if let Some(d) = s.def_block.get_mut(r.index()) {
                        *d = b;
                    }
                }
            }
        }
    }
    // Mark (gidx = 0) every value used outside its defining block or by a phi, then number
    // the marked values in value order.
    s.gidx.clear();
    s.gidx.resize(nv, u32::MAX);
    s.gval.clear();
    for &b in &s.live_blocks {
        let (def_block, gidx) = (&s.def_block, &mut s.gidx);
        let mut use_in_b = |op: Operand| {
            if let Operand::Value(v) = op {
                if v.index() < nv && def_block[v.index()] != b {
                    gidx[v.index()] = 0;
                }
            }
        };
        f.terminator(Block(b)).for_each_operand(&mut use_in_b);
        for &i in f.block_insts(Block(b)) {
            if i.index() >= ni {
                continue;
            }
            match f.inst_kind(i) {
                InstKind::Phi { incoming, .. } => {
                    for (_, op) in incoming {
                        if let Operand::Value(v) = op {
                            if v.index() < nv {
                                s.gidx[v.index()] = 0;
                            }
                        }
                    }
                }
                kind => {
                    let (def_block, gidx) = (&s.def_block, &mut s.gidx);
                    kind.for_each_operand(|op| {
                        if let Operand::Value(v) = op {
                            if v.index() < nv && def_block[v.index()] != b {
                                gidx[v.index()] = 0;
                            }
                        }
                    })
                }
            }
        }
    }
    for v in 0..nv {
        if s.gidx[v] == 0 {
            s.gidx[v] = s.gval.len() as u32;
            s.gval.push(v as u32);
        }
    }
    let gidx = &s.gidx;
    let global = |op: Operand| -> Option<usize> {
        match op {
            Operand::Value(v) if v.index() < nv && gidx[v.index()] != u32::MAX => {
                Some(gidx[v.index()] as usize)
            }
            _ => None,
        }
    };
    let words = s.gval.len().div_ceil(64);
    for v in [
        &mut s.live_in,
        &mut s.live_out,
        &mut s.gen,
        &mut s.kill,
        &mut s.phi_out,
    ] {
        v.clear();
        v.resize(nb * words, 0);
    }
    // Per block: upward-exposed uses (gen), definitions (kill), and the values its
    // successors' phis read on its edges (phi_out); then the usual backward fixpoint.
    for &b in &s.live_blocks {
        let b = b as usize;
        let g = &mut s.gen[b * words..(b + 1) * words];
        f.terminator(Block::new(b)).for_each_operand(|op| {
            if let Some(x) = global(op) {
                set_bit(g, x);
            }
        });
        for &i in f.block_insts(Block::new(b)).iter().rev() {
            if i.index() >= ni {
                continue;
            }
            for r in f.inst_results(i) {
                if let Some(x) = global(Operand::Value(*r)) {
                    g[x / 64] &= !(1 << (x % 64));
                    set_bit(&mut s.kill[b * words..(b + 1) * words], x);
                }
            }
            match f.inst_kind(i) {
                InstKind::Phi { incoming, .. } => {
                    for (p, op) in incoming {
                        if let (Some(x), true) = (global(*op), p.index() < nb) {
                            let p = p.index();
                            set_bit(&mut s.phi_out[p * words..(p + 1) * words], x);
                        }
                    }
                }
                kind => kind.for_each_operand(|op| {
                    if let Some(x) = global(op) {
                        set_bit(g, x);
                    }
                }),
            }
        }
    }
    // Postorder (reverse RPO) converges in few rounds; unreachable blocks keep empty sets.
    loop {
        let mut changed = false;
        for &b in cfg.rpo().iter().rev() {
            let b = b.index();
            for w in 0..words {
                let mut o = s.phi_out[b * words + w];
                for &succ in cfg.succs(Block::new(b)) {
                    o |= s.live_in[succ.index() * words + w];
                }
                s.live_out[b * words + w] = o;
                let inn = s.gen[b * words + w] | (o & !s.kill[b * words + w]);
                if inn != s.live_in[b * words + w] {
                    s.live_in[b * words + w] = inn;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let (est, gval) = (&s.est, &s.gval);
    let size_of = |v: usize| est[v];
    // Total size of a bitset over value indices (`global` false) or global indices.
    let bits_size = |bits: &[u64], global: bool| -> u64 {
        let mut total = 0u64;
        for (w, &word) in bits.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let i = w * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                let v = if global { gval[i] as usize } else { i };
                total = total.saturating_add(size_of(v));
            }
        }
        total
    };
    // Pieces.
    let names_reused = out.problem.targets.len() == k
        && out
            .problem
            .targets
            .iter()
            .zip(&model.targets)
            .all(|(a, b)| *a == b.name);
    if !names_reused {
        out.problem.targets = model.targets.iter().map(|t| t.name.clone()).collect();
    }
    out.problem.block_cost.clear();
    out.problem.edges.clear();
    out.problem.matrices.clear();
    out.pieces.clear();
    let mut npaths = 0usize;
    s.first_piece.clear();
    s.first_piece.resize(nb, u32::MAX);
    s.last_piece.clear();
    s.last_piece.resize(nb, u32::MAX);
    s.seams.clear();
    let access_path = &s.access_path;
    for &b in &s.live_blocks {
        let b = b as usize;
        let insts = f.block_insts(Block::new(b));
        let term = f.terminator(Block::new(b));
        let restrict = if s.in_loop[b] { loop_mask } else { all };
        s.supports.clear();
        s.supports.extend(
            insts
                .iter()
                .map(|i| s.inst_sup.get(i.index()).copied().unwrap_or(all) & restrict),
        );
        // The leading phis are one group (a block cannot be cut between its phis).
        let phis = insts
            .iter()
            .take_while(|i| i.index() < ni && matches!(f.inst_kind(**i), InstKind::Phi { .. }))
            .count();
        if phis > 1 {
            let group = s.supports[..phis].iter().fold(all, |m, &x| m & x);
            s.supports[..phis].fill(group);
        }
        let mut tmask = s.kind_masks[terminator_kind(term)] & restrict;
        term.for_each_operand(|op| {
            if let Operand::Value(v) = op {
                tmask &= s.elig.get(v.index()).copied().unwrap_or(all);
            }
        });
        s.supports.push(tmask);
        if insts
            .iter()
            .any(|&i| i.index() < ni && has_goto_labels(f.inst_kind(i)))
        {
            // One piece (see the module doc): the intersection of its supports.
            let common = s.supports.iter().fold(all, |m, &x| m & x);
            s.supports.fill(common);
        }
        // Runs of equal support; the terminator is position `len`.
        let n = insts.len();
        let mut start = 0usize;
        // Sizes of the values live just before each seam position (only where the support
        // changes), walking backwards from live-out; `seam_size[pos]`.
        s.seam_size.clear();
        s.seam_size.resize(n + 1, 0);
        let has_seam = (1..=n).any(|pos| s.supports[pos] != s.supports[pos - 1]);
        if has_seam {
            s.live.clear();
            s.live.resize(nv.div_ceil(64), 0);
            for (w, &word) in s.live_out[b * words..(b + 1) * words].iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    let g = w * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    set_bit(&mut s.live, s.gval[g] as usize);
                }
            }
            let live = &mut s.live;
            term.for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    if v.index() < nv {
                        set_bit(live, v.index());
                    }
                }
            });
            s.seam_size[n] = bits_size(&s.live, false);
            for pos in (1..n).rev() {
                let i = insts[pos];
                if i.index() >= ni {
                    continue;
                }
                for r in f.inst_results(i) {
                    if r.index() < nv {
                        s.live[r.index() / 64] &= !(1 << (r.index() % 64));
                    }
                }
                let kind = f.inst_kind(i);
                if !matches!(kind, InstKind::Phi { .. }) {
                    let live = &mut s.live;
                    kind.for_each_operand(|op| {
                        if let Operand::Value(v) = op {
                            if v.index() < nv {
                                set_bit(live, v.index());
                            }
                        }
                    });
                }
                if s.supports[pos] != s.supports[pos - 1] {
                    s.seam_size[pos] = bits_size(&s.live, false);
                }
            }
        }
        let mut push_piece = |piece: Piece,
                              out: &mut IrProblem,
                              first_piece: &mut [u32],
                              seams: &mut Vec<(u32, u64)>,
                              seam_size: &[u64]| {
            let idx = out.pieces.len() as u32;
            out.pieces.push(piece);
            if out.paths.len() <= npaths {
                out.paths.push(Vec::new());
            }
            let paths = &mut out.paths[npaths];
            npaths += 1;
            paths.clear();
            paths.extend(
                insts[piece.start as usize..piece.end as usize]
                    .iter()
                    .filter_map(|i| access_path.get(i.index()))
                    .filter(|&&p| p != NO_PATH),
            );
            paths.sort_unstable();
            paths.dedup();
            if first_piece[b] == u32::MAX {
                first_piece[b] = idx;
            } else {
                seams.push((idx - 1, seam_size[piece.start as usize]));
            }
        };
        for pos in 1..=n {
            let cut = s.supports[pos] != s.supports[pos - 1];
            if !cut && pos < n {
                continue;
            }
            let piece = Piece {
                block: b as u32,
                start: start as u32,
                end: pos as u32,
                terminator: pos == n && !cut,
            };
            push_piece(piece, out, &mut s.first_piece, &mut s.seams, &s.seam_size);
            start = pos;
        }
        if out
            .pieces
            .last()
            .is_none_or(|pc| pc.block != b as u32 || !pc.terminator)
        {
            // The terminator alone (its support differs, or the block is empty).
            let piece = Piece {
                block: b as u32,
                start: n as u32,
                end: n as u32,
                terminator: true,
            };
            push_piece(piece, out, &mut s.first_piece, &mut s.seams, &s.seam_size);
        }
        s.last_piece[b] = out.pieces.len() as u32 - 1;
    }
    out.paths.truncate(npaths);
    // Problem blocks.
    for pi in 0..out.pieces.len() {
        let pc = out.pieces[pi];
        let insts = f.block_insts(Block(pc.block));
        s.costs.clear();
        s.costs.resize(k, 0);
        let mut mask = all;
        for &i in &insts[pc.start as usize..pc.end as usize] {
            if i.index() >= ni {
                continue;
            }
            mask &= s.inst_sup[i.index()];
            let kind = kind_of(f.inst_kind(i));
            for (t, c) in s.costs.iter_mut().enumerate() {
                *c = c.saturating_add(model.cost(t, kind).unwrap_or(0));
            }
        }
        if pc.start == 0 {
            // The leading phi group's common support (see above).
            let phis = insts
                .iter()
                .take_while(|i| i.index() < ni && matches!(f.inst_kind(**i), InstKind::Phi { .. }))
                .count();
            if phis > pc.end as usize {
                for &i in &insts[pc.end as usize..phis] {
                    mask &= s.inst_sup[i.index()];
                }
            }
        }
        if pc.terminator {
            let term = f.terminator(Block(pc.block));
            let tkind = terminator_kind(term);
            for (t, c) in s.costs.iter_mut().enumerate() {
                *c = c.saturating_add(model.cost(t, tkind).unwrap_or(0));
            }
            mask &= s.kind_masks[tkind];
            term.for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    mask &= s.elig.get(v.index()).copied().unwrap_or(all);
                }
            });
        }
        if s.in_loop[pc.block as usize] {
            mask &= loop_mask;
        }
        for (t, c) in s.costs.iter_mut().enumerate() {
            if mask >> t & 1 == 0 {
                *c = FORBIDDEN;
                continue;
            }
            for &q in &out.paths[pi] {
                if out.path_origin[q as usize] as usize != t {
                    let units = out.path_sizes[q as usize]
                        .total()
                        .estimate(model.size_estimate);
                    *c = c.saturating_add(model.targets[t].path_unit.saturating_mul(units));
                }
            }
        }
        // Names are reused strings (no allocation once the table is warm).
        if pi == out.problem.blocks.len() {
            out.problem.blocks.push(String::new());
        }
        let name = &mut out.problem.blocks[pi];
        name.clear();
        name.push_str("block");
        push_decimal(name, pc.block);
        if s.first_piece[pc.block as usize] != pi as u32 {
            name.push('.');
            push_decimal(name, pc.start);
        }
        out.problem.block_cost.extend_from_slice(&s.costs);
    }
    out.problem.blocks.truncate(out.pieces.len());
    let fill_matrix = |matrix: &mut Vec<Cost>, size: u64| {
        matrix.clear();
        matrix.resize(k * k, FORBIDDEN);
        for from in 0..k {
            for to in 0..k {
                if let Some((o, u)) = model.transition(from, to) {
                    matrix[from * k + to] = if from == to {
                        0
                    } else {
                        o.saturating_add(u.saturating_mul(size))
                    };
                }
            }
        }
    };
    for &(from, size) in &s.seams {
        fill_matrix(&mut s.matrix, size);
        out.problem.add_edge(from, from + 1, &s.matrix);
    }
    for &b in &s.live_blocks {
        let b = b as usize;
        for &succ in cfg.succs(Block::new(b)) {
            let succ = succ.index();
            if s.first_piece[succ] == u32::MAX {
                continue;
            }
            s.live.clear();
            s.live
                .extend_from_slice(&s.live_in[succ * words..(succ + 1) * words]);
            for &i in f.block_insts(Block::new(succ)) {
                if i.index() >= ni {
                    continue;
                }
                let InstKind::Phi { incoming, .. } = f.inst_kind(i) else {
                    continue;
                };
                for (pb, op) in incoming {
                    if pb.index() == b {
                        if let Some(x) = global(*op) {
                            set_bit(&mut s.live, x);
                        }
                    }
                }
            }
            fill_matrix(&mut s.matrix, bits_size(&s.live, true));
            out.problem
                .add_edge(s.last_piece[b], s.first_piece[succ], &s.matrix);
        }
    }
}

/// Appends `n` in decimal to `out` (block names are made for every piece of every function;
/// `write!` through the formatting machinery was a tenth of the problem construction).
fn push_decimal(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| d as char));
}

/// Fusion (spec 001): groups of problem blocks that run as one unit after placement:
/// consecutive pieces of one IR block on the same target, and chains of blocks joined by an
/// argument-free `jump` to a block with no phis and a single predecessor, on the same
/// target. Returns, per problem block, the index of its group's first block.
pub fn fuse<F: IrRead>(f: &F, ir: &IrProblem, assignment: &[u8]) -> Vec<u32> {
    let n = ir.pieces.len();
    let mut leader: Vec<u32> = (0..n as u32).collect();
    let mut preds = vec![0u32; f.num_blocks()];
    for (i, e) in ir.problem.edges.iter().enumerate() {
        let _ = i;
        let (a, b) = (&ir.pieces[e.from as usize], &ir.pieces[e.to as usize]);
        if a.block != b.block {
            preds[b.block as usize] += 1;
        }
    }
    for e in &ir.problem.edges {
        let (fa, fb) = (e.from as usize, e.to as usize);
        if assignment[fa] == crate::placement::UNPLACED || assignment[fa] != assignment[fb] {
            continue;
        }
        let (a, b) = (ir.pieces[fa], ir.pieces[fb]);
        let joinable = if a.block == b.block {
            true
        } else {
            let data = f.block(Block::new(a.block as usize));
            let target = f.block(Block::new(b.block as usize));
            matches!(&data.terminator, Terminator::Jump(t) if t.args.is_empty())
                && !data.insts.iter().any(|&i| has_goto_labels(f.inst(i).kind))
                && !target
                    .insts
                    .iter()
                    .any(|&i| has_goto_labels(f.inst(i).kind))
                && target.params.is_empty()
                && b.block != 0
                && b.start == 0
                && preds[b.block as usize] == 1
                && !target
                    .insts
                    .iter()
                    .any(|&i| matches!(f.inst(i).kind, InstKind::Phi { .. }))
        };
        if joinable && leader[fb] == fb as u32 {
            leader[fb] = leader[fa];
        }
    }
    // Transitive chains: follow leaders to their root.
    for i in 0..n {
        let mut r = leader[i];
        while leader[r as usize] != r {
            r = leader[r as usize];
        }
        leader[i] = r;
    }
    leader
}

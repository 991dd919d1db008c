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
//! - Sizes: information units (1 per scalar, 2 for `i128`) times a cardinality; both as
//!   `[lo, hi]` ranges. Static: an `alloca` of `n` bytes of a `w`-byte element has
//!   cardinality `[1, n / w]`; forward propagation joins ranges through `copy`, `phi`,
//!   `select`, `cast` and `gep` until nothing changes.
//! - Costs: a piece costs the sum of its statements' kind costs, plus its terminator's,
//!   plus for every path (a global it loads from or stores to, with an origin in the model)
//!   whose origin differs from the target a premium of `path_unit` × the path's units. An
//!   edge's matrix entry `s -> d` (`s ≠ d`) is the pair's overhead plus per-unit cost times
//!   the upper size of the values live across the edge; same-target transitions are free;
//!   disallowed pairs are forbidden; parallel edges are separate edges.
//!
//! Complexity: O((instructions + blocks) · K) plus liveness O(blocks · values / 64 · d).

use super::condense::condense;
use super::problem::{Constraints, Cost, Problem, FORBIDDEN};
use super::targets::{TargetModel, KINDS};
use crate::ir::{
    Block, BlockRef, Callee, ConstKind, Inst, InstKind, InstRef, IrRead, Operand, SymbolTable,
    Terminator, Type,
};

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
#[derive(Clone, Debug)]
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
}

/// Upper bound of a cardinality (keeps sizes finite).
const MAX_CARD: u64 = 1 << 16;

fn units(ty: Type) -> u64 {
    match ty {
        Type::Void => 0,
        Type::I128 => 2,
        _ => 1,
    }
}

/// The kind index of an instruction in [`KINDS`].
fn kind_of(k: &InstKind) -> usize {
    let name = match k {
        InstKind::Binary { .. } => "binary",
        InstKind::Unary { .. } => "unary",
        InstKind::Icmp { .. } => "icmp",
        InstKind::Fcmp { .. } => "fcmp",
        InstKind::Cast { .. } => "cast",
        InstKind::Select { .. } => "select",
        InstKind::Alloca { .. } | InstKind::DynAlloca { .. } => "alloca",
        InstKind::Load { .. } => "load",
        InstKind::Store { .. } => "store",
        InstKind::Gep { .. } => "gep",
        InstKind::Call {
            callee: Callee::Direct(_),
            ..
        } => "call",
        InstKind::Call { .. } => "call_indirect",
        InstKind::InlineAsm(_) => "inline_asm",
        InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => "atomic",
        InstKind::Fence { .. } => "fence",
        InstKind::Phi { .. } => "phi",
        // Member moves cost what a copy costs.
        InstKind::Copy { .. } | InstKind::ExtractValue { .. } | InstKind::InsertValue { .. } => {
            "copy"
        }
        InstKind::Opaque(_) => "opaque",
    };
    TargetModel::kind(name).expect("every instruction kind is in KINDS")
}

fn terminator_kind(t: &Terminator) -> usize {
    let name = match t {
        Terminator::Jump(_) => "jump",
        Terminator::Br { .. } => "br",
        Terminator::Switch { .. } => "switch",
        Terminator::IndirectBr { .. } => "indirect_br",
        Terminator::Ret(_) => "ret",
        Terminator::Unreachable => "unreachable",
    };
    TargetModel::kind(name).expect("every terminator kind is in KINDS")
}

/// The instruction `i` of a live block (looked up once by [`build_problem`]).
fn inst_ref<'a>(refs: &[Option<InstRef<'a>>], i: Inst) -> InstRef<'a> {
    refs[i.index()].expect("instructions of live blocks were looked up")
}

/// Builds the placement problem of `f` under `model`; `symbols` (when known) names globals
/// for path origins and tells function symbols apart for `fn_ptr`.
pub fn build_problem<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
) -> IrProblem {
    let k = model.len();
    let all = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    let kind_masks: Vec<u64> = (0..KINDS.len())
        .map(|kind| {
            (0..k)
                .filter(|&t| model.cost(t, kind).is_some())
                .fold(0u64, |m, t| m | 1 << t)
        })
        .collect();
    let kind_mask = |kind: usize| -> u64 { kind_masks[kind] };
    // One World lookup per block and per instruction; everything below indexes these.
    let nb = f.num_blocks();
    let brefs: Vec<BlockRef<'_>> = (0..nb).map(|b| f.block(Block::new(b))).collect();
    let mut irefs: Vec<Option<InstRef<'_>>> = vec![None; f.num_insts()];
    for d in brefs.iter().filter(|d| !d.dead) {
        for &i in d.insts {
            if let Some(slot) = irefs.get_mut(i.index()) {
                *slot = Some(f.inst(i));
            }
        }
    }
    let fn_ptr = TargetModel::kind("fn_ptr").expect("fn_ptr kind");
    let nv = f.values().len();
    // Paths: globals with an origin.
    let mut path_names: Vec<String> = Vec::new();
    let mut path_origin: Vec<u8> = Vec::new();
    let const_path = |op: Operand, names: &mut Vec<String>, origins: &mut Vec<u8>| -> Option<u32> {
        let Operand::Const(c) = op else { return None };
        let ConstKind::SymbolAddr(s) = f.consts().try_get(c)?.kind else {
            return None;
        };
        let name = symbols?.names.get(s.index())?;
        let o = model.origin_of(name)?;
        Some(match names.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                names.push(name.clone());
                origins.push(o as u8);
                (names.len() - 1) as u32
            }
        })
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
    let mut value_path: Vec<u32> = vec![u32::MAX; nv];
    let live_blocks: Vec<usize> = (0..f.num_blocks()).filter(|&b| !brefs[b].dead).collect();
    for _ in 0..2 {
        for &b in &live_blocks {
            for &i in brefs[b].insts {
                let d = inst_ref(&irefs, i);
                let base = match d.kind {
                    InstKind::Gep { base, .. } => Some(*base),
                    InstKind::Copy { src, .. } => Some(*src),
                    InstKind::Cast { arg, .. } => Some(*arg),
                    _ => None,
                };
                if let (Some(base), Some(r)) = (base, d.result()) {
                    let p = match base {
                        Operand::Value(v) => value_path.get(v.index()).copied().unwrap_or(u32::MAX),
                        c => const_path(c, &mut path_names, &mut path_origin).unwrap_or(u32::MAX),
                    };
                    if let Some(slot) = value_path.get_mut(r.index()) {
                        *slot = p;
                    }
                }
            }
        }
    }
    let path_of = |op: Operand, names: &mut Vec<String>, origins: &mut Vec<u8>| -> Option<u32> {
        match op {
            Operand::Value(v) => value_path
                .get(v.index())
                .copied()
                .filter(|&p| p != u32::MAX),
            c => const_path(c, names, origins),
        }
    };
    // Eligibility: greatest fixpoint over values.
    let mut elig: Vec<u64> = vec![all; nv];
    let only_own = model
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| t.only_own_paths)
        .fold(0u64, |m, (t, _)| m | 1 << t);
    let own_mask = |p: Option<u32>, origins: &[u8]| -> u64 {
        let origin = p.map_or(0, |p| 1u64 << origins[p as usize]);
        all & !(only_own & !origin)
    };
    let inst_support =
        |i: Inst, elig: &[u64], names: &mut Vec<String>, origins: &mut Vec<u8>| -> u64 {
            let d = inst_ref(&irefs, i);
            let mut m = kind_mask(kind_of(d.kind));
            let mut fnp = false;
            d.kind.for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    m &= elig.get(v.index()).copied().unwrap_or(all);
                }
                fnp |= is_fn_const(op);
            });
            if fnp
                && !matches!(
                    d.kind,
                    InstKind::Call {
                        callee: Callee::Direct(_),
                        ..
                    }
                )
            {
                m &= kind_mask(fn_ptr);
            }
            match d.kind {
                InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => {
                    m &= own_mask(path_of(*ptr, names, origins), origins)
                }
                InstKind::Gep { base, .. } => {
                    m &= own_mask(path_of(*base, names, origins), origins)
                }
                InstKind::Alloca { .. } | InstKind::Call { .. } => m &= own_mask(None, origins),
                _ => {}
            }
            m
        };
    loop {
        let mut changed = false;
        for &b in &live_blocks {
            for &i in brefs[b].insts {
                let m = inst_support(i, &elig, &mut path_names, &mut path_origin);
                for &r in inst_ref(&irefs, i).results {
                    if let Some(e) = elig.get_mut(r.index()) {
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
    // Loops: blocks on a cycle of the CFG.
    let mut shape = Problem::new(vec!["cfg".into()]);
    for b in 0..nb {
        shape.add_block(format!("{b}"), &[0]);
    }
    let mut self_loop = vec![false; nb];
    for &b in &live_blocks {
        brefs[b].terminator.for_each_successor(|s| {
            if s.index() < nb {
                shape.add_edge(b as u32, s.index() as u32, &[0]);
                if s.index() == b {
                    self_loop[b] = true;
                }
            }
        });
    }
    let cond = condense(&Constraints::new(&shape));
    let in_loop: Vec<bool> = (0..nb)
        .map(|b| {
            self_loop[b]
                || (cond.region_of[b] != u32::MAX
                    && !cond.regions[cond.region_of[b] as usize].is_trivial())
        })
        .collect();
    let loop_mask = (0..k)
        .filter(|&t| model.targets[t].in_loops)
        .fold(0u64, |m, t| m | 1 << t);
    // Sizes: (lo, hi) cardinality per value; size = units × cardinality.
    let mut card: Vec<(u64, u64)> = vec![(1, 1); nv];
    loop {
        let mut changed = false;
        for &b in &live_blocks {
            for &i in brefs[b].insts {
                let d = inst_ref(&irefs, i);
                let Some(r) = d.result() else { continue };
                let of = |op: Operand| match op {
                    Operand::Value(v) => card.get(v.index()).copied().unwrap_or((1, 1)),
                    Operand::Const(_) => (1, 1),
                };
                let new = match d.kind {
                    InstKind::Alloca { ty, size, .. } => {
                        let w = (ty.bits().div_ceil(8)).max(1) as u64;
                        (1, (*size as u64 / w).clamp(1, MAX_CARD))
                    }
                    InstKind::Copy { src, .. } | InstKind::Cast { arg: src, .. } => of(*src),
                    InstKind::Gep { base, .. } => of(*base),
                    InstKind::Select {
                        if_true, if_false, ..
                    } => {
                        let (a, b) = (of(*if_true), of(*if_false));
                        (a.0.min(b.0), a.1.max(b.1))
                    }
                    InstKind::Phi { incoming, .. } => incoming
                        .iter()
                        .map(|(_, v)| of(*v))
                        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
                        .unwrap_or((1, 1)),
                    _ => (1, 1),
                };
                if let Some(c) = card.get_mut(r.index()) {
                    if *c != new {
                        *c = new;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let value_size = |v: usize| -> u64 { units(f.values()[v].ty) * card[v].1 };
    // Liveness of values per block (bitsets), phi uses on the predecessor's edge.
    let words = nv.div_ceil(64);
    let mut live_in = vec![0u64; nb * words];
    let mut live_out = vec![0u64; nb * words];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for &b in &live_blocks {
        brefs[b]
            .terminator
            .for_each_successor(|s| succs[b].push(s.index()));
    }
    let set = |bits: &mut [u64], v: usize| bits[v / 64] |= 1 << (v % 64);
    // Per block: upward-exposed uses (gen), definitions (kill), and the values its
    // successors' phis read on its edges (phi_out); then the usual backward fixpoint.
    let mut gen = vec![0u64; nb * words];
    let mut kill = vec![0u64; nb * words];
    let mut phi_out = vec![0u64; nb * words];
    for &b in &live_blocks {
        let data = brefs[b];
        let g = &mut gen[b * words..(b + 1) * words];
        data.terminator.for_each_operand(|op| {
            if let Operand::Value(v) = op {
                if v.index() < nv {
                    set(g, v.index());
                }
            }
        });
        for &i in data.insts.iter().rev() {
            let d = inst_ref(&irefs, i);
            for r in d.results {
                if r.index() < nv {
                    g[r.index() / 64] &= !(1 << (r.index() % 64));
                    set(&mut kill[b * words..(b + 1) * words], r.index());
                }
            }
            match d.kind {
                InstKind::Phi { incoming, .. } => {
                    for (p, op) in incoming {
                        if let (Operand::Value(v), true) = (op, p.index() < nb) {
                            if v.index() < nv {
                                set(
                                    &mut phi_out[p.index() * words..(p.index() + 1) * words],
                                    v.index(),
                                );
                            }
                        }
                    }
                }
                k => k.for_each_operand(|op| {
                    if let Operand::Value(v) = op {
                        if v.index() < nv {
                            set(g, v.index());
                        }
                    }
                }),
            }
        }
    }
    loop {
        let mut changed = false;
        for &b in live_blocks.iter().rev() {
            for w in 0..words {
                let mut out = phi_out[b * words + w];
                for &s in &succs[b] {
                    if s < nb {
                        out |= live_in[s * words + w];
                    }
                }
                live_out[b * words + w] = out;
                let inn = gen[b * words + w] | (out & !kill[b * words + w]);
                if inn != live_in[b * words + w] {
                    live_in[b * words + w] = inn;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let bits_size = |bits: &[u64]| -> u64 {
        let mut total = 0u64;
        for (w, &word) in bits.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let v = w * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                total = total.saturating_add(value_size(v));
            }
        }
        total
    };
    // Pieces.
    let mut p = Problem::new(model.targets.iter().map(|t| t.name.clone()).collect());
    let mut pieces: Vec<Piece> = Vec::new();
    let mut piece_paths: Vec<Vec<u32>> = Vec::new();
    let mut first_piece = vec![u32::MAX; nb];
    let mut last_piece = vec![u32::MAX; nb];
    let mut seams: Vec<(u32, u64)> = Vec::new(); // (first piece of the pair, live size)
    for &b in &live_blocks {
        let data = brefs[b];
        let restrict = if in_loop[b] { loop_mask } else { all };
        let mut supports: Vec<u64> = Vec::with_capacity(data.insts.len() + 1);
        let mut stmt_paths: Vec<Option<u32>> = Vec::with_capacity(data.insts.len());
        for &i in data.insts {
            supports.push(inst_support(i, &elig, &mut path_names, &mut path_origin) & restrict);
            let ptr = match inst_ref(&irefs, i).kind {
                InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => Some(*ptr),
                _ => None,
            };
            stmt_paths.push(ptr.and_then(|ptr| path_of(ptr, &mut path_names, &mut path_origin)));
        }
        let tkind = terminator_kind(data.terminator);
        let mut tmask = kind_mask(tkind) & restrict;
        data.terminator.for_each_operand(|op| {
            if let Operand::Value(v) = op {
                tmask &= elig.get(v.index()).copied().unwrap_or(all);
            }
        });
        supports.push(tmask);
        // Runs of equal support; the terminator is position `len`.
        let n = data.insts.len();
        let mut start = 0usize;
        // Sizes of the values live just before each seam position (only where the support
        // changes), walking backwards from live-out; `seam_size[pos]`.
        let mut seam_size: Vec<u64> = vec![0; n + 1];
        let has_seam = (1..=n).any(|pos| supports[pos] != supports[pos - 1]);
        if has_seam {
            let mut live = live_out[b * words..(b + 1) * words].to_vec();
            data.terminator.for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    if v.index() < nv {
                        set(&mut live, v.index());
                    }
                }
            });
            seam_size[n] = bits_size(&live);
            for pos in (1..n).rev() {
                let d = inst_ref(&irefs, data.insts[pos]);
                for r in d.results {
                    if r.index() < nv {
                        live[r.index() / 64] &= !(1 << (r.index() % 64));
                    }
                }
                if !matches!(d.kind, InstKind::Phi { .. }) {
                    d.kind.for_each_operand(|op| {
                        if let Operand::Value(v) = op {
                            if v.index() < nv {
                                set(&mut live, v.index());
                            }
                        }
                    });
                }
                if supports[pos] != supports[pos - 1] {
                    seam_size[pos] = bits_size(&live);
                }
            }
        }
        for pos in 1..=n {
            let cut = supports[pos] != supports[pos - 1];
            if !cut && pos < n {
                continue;
            }
            let terminator = pos == n && !cut;
            let idx = pieces.len() as u32;
            pieces.push(Piece {
                block: b as u32,
                start: start as u32,
                end: pos as u32,
                terminator,
            });
            let mut paths: Vec<u32> = stmt_paths[start..pos].iter().flatten().copied().collect();
            paths.sort_unstable();
            paths.dedup();
            piece_paths.push(paths);
            if first_piece[b] == u32::MAX {
                first_piece[b] = idx;
            } else {
                seams.push((idx - 1, seam_size[start]));
            }
            start = pos;
        }
        if pieces
            .last()
            .is_none_or(|pc| pc.block != b as u32 || !pc.terminator)
        {
            // The terminator alone (its support differs, or the block is empty).
            let idx = pieces.len() as u32;
            pieces.push(Piece {
                block: b as u32,
                start: n as u32,
                end: n as u32,
                terminator: true,
            });
            piece_paths.push(Vec::new());
            if first_piece[b] == u32::MAX {
                first_piece[b] = idx;
            } else {
                seams.push((idx - 1, seam_size[n]));
            }
        }
        last_piece[b] = pieces.len() as u32 - 1;
    }
    // Problem blocks.
    for (pi, pc) in pieces.iter().enumerate() {
        let data = brefs[pc.block as usize];
        let mut costs = vec![0u64; k];
        let mut mask = all;
        for pos in pc.start..pc.end {
            let i = data.insts[pos as usize];
            mask &= inst_support(i, &elig, &mut path_names, &mut path_origin);
            let kind = kind_of(inst_ref(&irefs, i).kind);
            for (t, c) in costs.iter_mut().enumerate() {
                *c = c.saturating_add(model.cost(t, kind).unwrap_or(0));
            }
        }
        if pc.terminator {
            let tkind = terminator_kind(data.terminator);
            for (t, c) in costs.iter_mut().enumerate() {
                *c = c.saturating_add(model.cost(t, tkind).unwrap_or(0));
            }
            mask &= kind_mask(tkind);
            data.terminator.for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    mask &= elig.get(v.index()).copied().unwrap_or(all);
                }
            });
        }
        if in_loop[pc.block as usize] {
            mask &= loop_mask;
        }
        for (t, c) in costs.iter_mut().enumerate() {
            if mask >> t & 1 == 0 {
                *c = FORBIDDEN;
                continue;
            }
            for &q in &piece_paths[pi] {
                if path_origin[q as usize] as usize != t {
                    *c = c.saturating_add(model.targets[t].path_unit * 4);
                }
            }
        }
        let name = if first_piece[pc.block as usize] == pi as u32 {
            format!("block{}", pc.block)
        } else {
            format!("block{}.{}", pc.block, pc.start)
        };
        p.add_block(name, &costs);
    }
    let matrix = |size: u64| -> Vec<Cost> {
        let mut m = vec![FORBIDDEN; k * k];
        for s in 0..k {
            for d in 0..k {
                if let Some((o, u)) = model.transition(s, d) {
                    m[s * k + d] = if s == d {
                        0
                    } else {
                        o.saturating_add(u.saturating_mul(size))
                    };
                }
            }
        }
        m
    };
    for (from, size) in seams {
        p.add_edge(from, from + 1, &matrix(size));
    }
    for &b in &live_blocks {
        for &s in &succs[b] {
            if s >= nb || first_piece[s] == u32::MAX {
                continue;
            }
            let mut live = live_in[s * words..(s + 1) * words].to_vec();
            for &i in brefs[s].insts {
                if let InstKind::Phi { incoming, .. } = inst_ref(&irefs, i).kind {
                    for (pb, op) in incoming {
                        if pb.index() == b {
                            if let Operand::Value(v) = op {
                                if v.index() < nv {
                                    set(&mut live, v.index());
                                }
                            }
                        }
                    }
                }
            }
            p.add_edge(last_piece[b], first_piece[s], &matrix(bits_size(&live)));
        }
    }
    let _ = KINDS;
    IrProblem {
        problem: p,
        pieces,
        paths: piece_paths,
        path_names,
        path_origin,
    }
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

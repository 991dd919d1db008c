//! Phase 1 of building the problem: statement eligibility (spec 001), a forward must-
//! analysis. Finds the paths (globals with an origin in the model) each pointer value is
//! derived from and each memory access reaches, every instruction's operand-independent
//! support (its kind, `fn_ptr` operands, own paths), then the greatest fixpoint of value
//! eligibility (a value is eligible on a target iff its instruction is supported there and
//! every operand is eligible), and the blocks on a cycle (targets banned in loops).
//!
//! Reads: the function, its SCCs, the symbols and the model. Writes: `kind_masks`,
//! `live_blocks`, `value_path`, `access_path`, `base_sup`, `inst_sup`, `elig`, `in_loop`,
//! `all`, `loop_mask` of the scratch; the path tables of `out`.
//!
//! Complexity: O(instructions · rounds) for the fixpoint (rounds: the longest chain of
//! eligibility changes, small in practice), O(symbols) once per function for the table.

use super::super::sizes::global_size;
use super::super::targets::{TargetModel, KINDS};
use super::{kind_of, BuildScratch, IrProblem, FN_PTR_KIND, NO_PATH, UNKNOWN_PATH};
use crate::analysis::Sccs;
use crate::ir::{Block, Callee, ConstKind, InstKind, IrRead, Operand, SymbolTable};

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
    s.all = all;
    s.loop_mask = (0..k)
        .filter(|&t| model.targets[t].in_loops)
        .fold(0u64, |m, t| m | 1 << t);
}

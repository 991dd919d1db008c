//! Phase 2 of building the problem: sizes and liveness. Size estimation
//! ([`super::super::sizes::compute`]) gives every value a size form and the model's
//! estimate turns it into one number; then values live across block boundaries (used
//! outside their defining block, or by a phi) get dense global indices and the per-block
//! live-in/live-out bit sets over them (phi operands live out of their predecessor only),
//! by the usual backward fixpoint in postorder.
//!
//! Reads: the function, its CFG, the symbols, the model, `live_blocks` and `summaries`.
//! Writes: `sizes`, `summary`, `est`, `def_block`, `gidx`, `gval`, `gen`, `kill`,
//! `phi_out`, `live_in`, `live_out` of the scratch.
//!
//! Complexity: sizes O(rounds · instructions); liveness O(instructions + rounds · blocks ·
//! globals / 64 · successors).

use super::super::sizes;
use super::super::targets::TargetModel;
use super::{set_bit, BuildScratch};
use crate::analysis::Cfg;
use crate::ir::{Block, InstKind, IrRead, Operand, SymbolTable};

/// Runs the phase (see the module doc).
pub(super) fn compute<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    s: &mut BuildScratch,
) {
    let nb = f.num_blocks();
    let ni = f.num_insts();
    let nv = f.values().len();
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
    let global = |op: Operand| super::global_index(gidx, op);
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
}

//! Phase 2 of building the problem: sizes and liveness. Size estimation
//! ([`super::super::sizes::compute`]) gives every value a size form and the model's
//! estimate turns it into one number; then values live across block boundaries (used
//! outside their defining block, or by a phi) get dense global indices and the per-block
//! live-in/live-out bit sets over them (phi operands live out of their predecessor only),
//! by the usual backward fixpoint in postorder, over a worklist of blocks.
//!
//! The global values and the per-block sets come from the definitions and uses that
//! eligibility's first round recorded (`def_block`, `uses`, `phi_uses`), not from another
//! walk over the instructions: the sets are those of the instruction walk (every use of a
//! value in its defining block follows the definition in a verified function).
//!
//! Reads: the function, its CFG, the symbols, the model, `summaries`, `def_block`, `uses`
//! and `phi_uses` (with the dominator tree also `in_dom`, `inst_kind`, `op_span`,
//! `live_blocks`, `first_piece`, `last_piece`, `accepted`). Writes: `sizes`, `summary`,
//! `size_estimate`, `est` (the global values' estimates; every other entry
//! [`NOT_ESTIMATED`], filled on demand by [`estimate`]), `gidx`, `gval`, `gen`, `kill`,
//! `phi_out`, `live_in`, `live_out` (and `dom_blocks`, `size_block`, `size_value`,
//! `size_work`) of the scratch.
//!
//! Only the values an accepted edge of [`super::complete_edges_in`] can count are given
//! global indices: those defined no later than its horizon in reverse postorder and, with
//! the dominator tree, in a dominator of an accepted edge's block (`in_dom`).
//! With the dominator tree, sizes too are computed only over those dominators closed
//! under operands (`size_closure`: with a block its immediate dominator and the blocks
//! defining what its phis read), which on sqlite -O2 cuts the sizes of the functions
//! [`super::super::settle::settle_exact`] completes from 29.2M to 17.9M instructions (callgrind);
//! and within those blocks only the values whose estimates are read, closed under the
//! operands size transfer reads (`size_values`; 17.9M to 11.9M).
//!
//! Why a fixpoint over bit sets and not SSA's walk from each use up to the definition
//! (Brandner et al., INRIA RR-7503): the walk sets one (value, block) bit per step,
//! the fixpoint 64 per word operation; on the corpus most functions' sets are one or two
//! words wide and values stay live over many blocks, and the walk cost 43% more
//! (callgrind, jq.ll).
//!
//! Complexity: sizes O(rounds · instructions); liveness O(uses + values + visits · globals /
//! 64 · successors), a visit being one block's recomputation: every reachable block once,
//! then only the predecessors of a block whose live-in changed (one round, no confirming
//! one, for a loop-free function).

use super::super::sizes;
use super::super::targets::TargetModel;
use super::{set_bit, BuildScratch};
use crate::analysis::{Cfg, DomTree};
use crate::ir::{Block, IrRead, SymbolTable};

/// Runs the phase (see the module doc), tracking only the values defined no later than
/// reverse-postorder number `horizon` (`None`: none), and with `dominated` (the dominator
/// tree, given when `in_dom` marks the dominators of the accepted edges' blocks) only
/// those of them defined in a block `in_dom` marks, or in no reachable block (see
/// [`super::complete_edges_in`]).
pub(super) fn compute<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    s: &mut BuildScratch,
    (horizon, dominated): (Option<u32>, Option<&DomTree>),
) {
    // Sizes: forms per value, then the estimate each cost uses; with the dominator tree
    // only of the tracked dominators closed under operands, else only of the blocks up to
    // the horizon when no phi there reads a value of a later block.
    let rpo = cfg.rpo();
    let upto = match horizon {
        None => 0,
        Some(h) => (h as usize).saturating_add(1).min(rpo.len()),
    };
    number_globals(f, cfg, s, (horizon, dominated.is_some()));
    s.summary = if let Some(dom) = dominated {
        size_closure(f, cfg, dom, s);
        size_values(f, s);
        let blocks = std::mem::take(&mut s.dom_blocks);
        let keep = Some(&s.size_value[..]);
        sizes::compute_values(f, &blocks, keep, symbols, &s.summaries, &mut s.sizes);
        s.dom_blocks = blocks;
        None
    } else if upto < rpo.len() && phis_read_before(f, cfg, upto, s) {
        sizes::compute_blocks(f, &rpo[..upto], symbols, &s.summaries, &mut s.sizes);
        None
    } else {
        sizes::compute(f, cfg, symbols, &s.summaries, &mut s.sizes)
    };
    // Estimates on demand: the global values' here (the edge matrices read them), a seam
    // block's operands in `pieces::seam_sizes`; no other value's is read.
    s.size_estimate = model.size_estimate;
    s.est.clear();
    s.est.resize(f.values().len(), NOT_ESTIMATED);
    for &v in &s.gval {
        estimate(f, (&s.sizes, s.size_estimate), &mut s.est, v as usize);
    }
    live_sets(f, cfg, s);
}

/// An `est` entry not computed yet (no estimate reaches it: sizes saturate at
/// [`sizes::MAX_UNITS`] units times [`sizes::MAX_CARD`]).
pub(super) const NOT_ESTIMATED: u64 = u64::MAX;

/// Fills `est[v]` (when not yet computed, [`NOT_ESTIMATED`]) with the estimate of value
/// `v`'s total size under `how` (the model's size estimate), from the forms `sizes` holds.
#[inline]
pub(super) fn estimate<F: IrRead>(
    f: &F,
    (sizes, how): (&sizes::SizeScratch, sizes::SizeEstimate),
    est: &mut [u64],
    v: usize,
) {
    if est[v] == NOT_ESTIMATED {
        est[v] = sizes.size(v, f.values()[v].ty).total().estimate(how);
    }
}

/// Lists in `dom_blocks`, in reverse postorder, the smallest set of reachable blocks that
/// holds every block `in_dom` marks (the dominators of the accepted edges' blocks) and is
/// closed under operands: with a block, its immediate dominator (an instruction's operand
/// other than a phi's is defined in a dominating block) and the reachable block defining
/// each value its phis read. [`sizes::compute_blocks`] over such a set gives its values
/// the forms of the whole computation, and every value an estimate is read of (the
/// tracked values, the operands in a seam block, itself marked) is defined in it or by
/// no instruction or in no reachable block (no form either way). `dom` is the function's
/// dominator tree; `size_block` marks the set. O(blocks + the marked blocks' phi operands).
fn size_closure<F: IrRead>(f: &F, cfg: &Cfg, dom: &DomTree, s: &mut BuildScratch) {
    let nb = f.num_blocks();
    s.size_block.clear();
    s.size_block.extend_from_slice(&s.in_dom);
    s.size_block.resize(nb, false);
    s.dom_blocks.clear();
    s.dom_blocks
        .extend((0..nb).filter(|&b| s.size_block[b]).map(Block::new));
    // `dom_blocks` is the work list while the closure grows, sorted into reverse
    // postorder at the end.
    let mut next = 0;
    while next < s.dom_blocks.len() {
        let b = s.dom_blocks[next];
        next += 1;
        for &i in f.block_insts(b) {
            if s.inst_kind.get(i.index()) != Some(&super::PHI_KIND) {
                break;
            }
            let (start, end) = s.op_span[i.index()];
            for &(_, v) in &s.phi_uses[start as usize..end as usize] {
                let mut d = s.def_block[v as usize];
                if d == u32::MAX || cfg.rpo_number(Block::new(d as usize)).is_none() {
                    continue;
                }
                while !s.size_block[d as usize] {
                    s.size_block[d as usize] = true;
                    s.dom_blocks.push(Block::new(d as usize));
                    match dom.idom(Block::new(d as usize)) {
                        Some(up) if up.index() != d as usize => d = up.index() as u32,
                        _ => break,
                    }
                }
            }
        }
    }
    s.dom_blocks.clear();
    let marked = &s.size_block;
    s.dom_blocks
        .extend(cfg.rpo().iter().filter(|b| marked[b.index()]));
}

/// Marks in `size_value` the values whose estimates edge completion reads (the tracked
/// values `gval`; the operands of the instructions and terminator of every block with an
/// accepted seam, which `pieces::seam_sizes` walks), closed under the operands size
/// transfer may read: every value operand of a gep, cast, select, phi, direct call or
/// member move (kinds [`super::kind_of`] 9, 4, 5, 15, 10 and 16; more than transfer
/// reads, which only widens the set). [`sizes::compute_values`] over `dom_blocks` (which
/// holds every marked value's defining block, see [`size_closure`]) then gives each marked
/// value the form [`sizes::compute_blocks`] would. O(marked values + their operands +
/// the seam blocks' instructions).
fn size_values<F: IrRead>(f: &F, s: &mut BuildScratch) {
    const PROPAGATING: [u8; 6] = [9, 4, 5, super::PHI_KIND, 10, 16];
    let nv = f.values().len();
    s.size_value.clear();
    s.size_value.resize(nv, false);
    s.size_work.clear();
    for &v in &s.gval {
        s.size_value[v as usize] = true;
        s.size_work.push(v);
    }
    // The operands of the blocks whose seams are walked (seams are the first edges).
    let mut at = 0usize;
    for &b in &s.live_blocks {
        let b = b as usize;
        let (first, last) = (s.first_piece[b] as usize, s.last_piece[b] as usize);
        if first == last {
            continue;
        }
        let accepted = s.accepted[at..at + (last - first)].contains(&true);
        at += last - first;
        if !accepted {
            continue;
        }
        let block = Block::new(b);
        for &i in f.block_insts(block) {
            let kind = s.inst_kind.get(i.index()).copied();
            if kind.is_none() || kind == Some(super::PHI_KIND) {
                continue;
            }
            let (start, end) = s.op_span[i.index()];
            for &(_, v) in &s.uses[start as usize..end as usize] {
                if !std::mem::replace(&mut s.size_value[v as usize], true) {
                    s.size_work.push(v);
                }
            }
        }
        f.terminator(block).for_each_operand(|op| {
            if let crate::ir::Operand::Value(v) = op {
                if v.index() < nv && !std::mem::replace(&mut s.size_value[v.index()], true) {
                    s.size_work.push(v.index() as u32);
                }
            }
        });
    }
    // Only an instruction of the set `size_block` marks gets a form (and its kinds and
    // operand ranges are this function's: its block is reachable).
    while let Some(v) = s.size_work.pop() {
        let d = s.def_block[v as usize];
        if d == u32::MAX || !s.size_block[d as usize] {
            continue;
        }
        let crate::ir::ValueDef::Result(i, _) = f.values()[v as usize].def else {
            continue;
        };
        let Some(&kind) = s.inst_kind.get(i.index()) else {
            continue;
        };
        if !PROPAGATING.contains(&kind) {
            continue;
        }
        let (start, end) = s.op_span[i.index()];
        let operands = if kind == super::PHI_KIND {
            &s.phi_uses[start as usize..end as usize]
        } else {
            &s.uses[start as usize..end as usize]
        };
        for &(_, x) in operands {
            if !std::mem::replace(&mut s.size_value[x as usize], true) {
                s.size_work.push(x);
            }
        }
    }
}

/// True when every phi of the first `upto` blocks of `cfg`'s reverse postorder reads only
/// values defined in those blocks (or by no instruction): the blocks' sizes are then
/// closed under their operands (see [`sizes::compute_blocks`]). Reads the phis' operand
/// ranges eligibility recorded (`inst_kind`, `op_span`, `phi_uses`, `def_block`).
fn phis_read_before<F: IrRead>(f: &F, cfg: &Cfg, upto: usize, s: &BuildScratch) -> bool {
    cfg.rpo()[..upto].iter().all(|&b| {
        f.block_insts(b)
            .iter()
            .take_while(|i| s.inst_kind.get(i.index()) == Some(&super::PHI_KIND))
            .all(|i| {
                let (start, end) = s.op_span[i.index()];
                s.phi_uses[start as usize..end as usize]
                    .iter()
                    .all(|&(_, v)| {
                        let d = s.def_block[v as usize];
                        d == u32::MAX
                            || cfg
                                .rpo_number(Block::new(d as usize))
                                .is_some_and(|n| (n as usize) < upto)
                    })
            })
    })
}

/// Gives dense global indices to the values that can be live across a block boundary:
/// those used outside their defining block, and phi operands (SSA temporaries used where
/// they are defined, most values, never get one, so the bit sets are as wide as these).
/// Reads the definitions and uses eligibility's first round recorded (`def_block`, `uses`,
/// `phi_uses`) instead of walking the instructions again. Only values defined in a
/// reachable block numbered at most `horizon` in reverse postorder (and when `dominated`
/// marked in `in_dom`), or in none, are numbered (`None`: no value). Fills `gidx` and
/// `gval`.
fn number_globals<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    s: &mut BuildScratch,
    (horizon, dominated): (Option<u32>, bool),
) {
    let nv = f.values().len();
    // Mark (gidx = 0) every value used outside its defining block or by a phi, then number
    // the marked values in value order.
    s.gidx.clear();
    s.gidx.resize(nv, u32::MAX);
    for &(b, v) in &s.uses {
        if s.def_block[v as usize] != b {
            s.gidx[v as usize] = 0;
        }
    }
    for &(_, v) in &s.phi_uses {
        s.gidx[v as usize] = 0;
    }
    s.gval.clear();
    let Some(horizon) = horizon else {
        s.gidx.fill(u32::MAX);
        return;
    };
    let everything = horizon == u32::MAX;
    for v in 0..nv {
        if s.gidx[v] == 0 {
            let d = s.def_block[v];
            let tracked = everything
                || d == u32::MAX
                || cfg
                    .rpo_number(Block::new(d as usize))
                    .is_none_or(|n| n <= horizon && (!dominated || s.in_dom[d as usize]));
            if tracked {
                s.gidx[v] = s.gval.len() as u32;
                s.gval.push(v as u32);
            } else {
                s.gidx[v] = u32::MAX;
            }
        }
    }
}

/// The per-block live-in/live-out sets over the global indices: definitions (`kill`: the
/// globals an instruction of the block defines), upward-exposed uses (`gen`: the globals
/// an instruction other than a phi, or the terminator, of the block reads, less `kill`, as
/// a verified function defines a value before its uses in its block) and the values
/// successors' phis read on each edge (`phi_out`), all from the tables eligibility
/// recorded; then the usual backward fixpoint over the reachable blocks.
fn live_sets<F: IrRead>(f: &F, cfg: &Cfg, s: &mut BuildScratch) {
    let nb = f.num_blocks();
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
    for (g, &v) in s.gval.iter().enumerate() {
        let d = s.def_block[v as usize] as usize;
        if d < nb {
            set_bit(&mut s.kill[d * words..(d + 1) * words], g);
        }
    }
    // A parameter is defined in the entry block (`def_block`) but by no instruction there.
    for &p in f.param_values() {
        if let Some(&g) = s.gidx.get(p.index()).filter(|&&g| g != u32::MAX) {
            s.kill[g as usize / 64] &= !(1 << (g % 64));
        }
    }
    for &(b, v) in &s.uses {
        let g = s.gidx[v as usize];
        if g != u32::MAX {
            let b = b as usize;
            set_bit(&mut s.gen[b * words..(b + 1) * words], g as usize);
        }
    }
    for (g, k) in s.gen.iter_mut().zip(&s.kill) {
        *g &= !k;
    }
    for &(p, v) in &s.phi_uses {
        let (g, p) = (s.gidx[v as usize], p as usize);
        if g != u32::MAX && p < nb {
            set_bit(&mut s.phi_out[p * words..(p + 1) * words], g as usize);
        }
    }
    // Rounds in postorder (reverse RPO) over the blocks whose sets may change (`pending`):
    // every reachable block in the first round, later only a block some successor's
    // live-in changed under. A block's predecessors come after it in postorder except
    // across a retreating edge (from a block not earlier in RPO: a loop's latch, or a
    // self-loop), so a change reaches the rest of its predecessors in the same round and
    // only a change across a retreating edge asks for another one. Rows are whole words
    // per block (the successors read once per block, not once per word). Unreachable
    // blocks keep empty sets.
    let rpo_number = |b: Block| cfg.rpo_number(b).unwrap_or(u32::MAX);
    s.reread.clear();
    s.reread.resize(nb, false);
    for &b in cfg.rpo() {
        s.reread[b.index()] = true;
    }
    loop {
        let mut again = false;
        for &blk in cfg.rpo().iter().rev() {
            let b = blk.index();
            if !std::mem::take(&mut s.reread[b]) {
                continue;
            }
            let row = b * words..(b + 1) * words;
            let out = &mut s.live_out[row.clone()];
            out.copy_from_slice(&s.phi_out[row.clone()]);
            for &succ in cfg.succs(blk) {
                let si = succ.index() * words;
                for (o, &x) in out.iter_mut().zip(&s.live_in[si..si + words]) {
                    *o |= x;
                }
            }
            let mut changed = false;
            let inputs = out
                .iter()
                .zip(&s.gen[row.clone()])
                .zip(&s.kill[row.clone()]);
            for (inn, ((&o, &g), &k)) in s.live_in[row].iter_mut().zip(inputs) {
                let new = g | (o & !k);
                changed |= new != *inn;
                *inn = new;
            }
            if changed {
                let number = rpo_number(blk);
                for &p in cfg.preds(blk) {
                    let pn = rpo_number(p);
                    if pn != u32::MAX {
                        s.reread[p.index()] = true;
                        again |= pn >= number;
                    }
                }
            }
        }
        if !again {
            break;
        }
    }
}

#[cfg(all(test, feature = "fuzzing"))]
mod tests {
    use super::super::{build_problem_in, BuildScratch, IrProblem};
    use crate::analysis::{Cfg, Sccs};
    use crate::fuzzing::generate_ssa::{seeded_ssa, SsaGenOptions};
    use crate::ir::{Block, InstKind, IrRead, Operand, Value};
    use crate::placement::targets::TargetModel;

    /// Oracle: the textbook backward fixpoint for one value, with its own definition and
    /// upward-exposed-use tests (by instruction position, not SSA's definition block).
    fn fixpoint_of<F: IrRead>(f: &F, cfg: &Cfg, x: Value) -> (Vec<bool>, Vec<bool>) {
        let nb = f.num_blocks();
        let is_x = |op: Operand| op == Operand::Value(x);
        let mut exposed = vec![false; nb];
        let mut defines = vec![false; nb];
        let mut phi_out = vec![false; nb];
        for &b in cfg.rpo() {
            let mut defined = false;
            for &i in f.block_insts(b) {
                if let InstKind::Phi { incoming, .. } = f.inst_kind(i) {
                    for (p, op) in incoming {
                        if is_x(*op) && p.index() < nb {
                            phi_out[p.index()] = true;
                        }
                    }
                } else {
                    f.inst_kind(i).for_each_operand(|op| {
                        exposed[b.index()] |= is_x(op) && !defined;
                    });
                }
                defined |= f.inst_results(i).contains(&x);
            }
            f.terminator(b)
                .for_each_operand(|op| exposed[b.index()] |= is_x(op) && !defined);
            defines[b.index()] = defined;
        }
        let (mut live_in, mut live_out) = (vec![false; nb], vec![false; nb]);
        loop {
            let mut changed = false;
            for &b in cfg.rpo() {
                let b = b.index();
                let out = phi_out[b] || cfg.succs(Block::new(b)).iter().any(|s| live_in[s.index()]);
                let inn = exposed[b] || (out && !defines[b]);
                changed |= out != live_out[b] || inn != live_in[b];
                (live_out[b], live_in[b]) = (out, inn);
            }
            if !changed {
                return (live_in, live_out);
            }
        }
    }

    /// The walk from uses to definitions gives the fixpoint's live-in and live-out sets on
    /// generated SSA functions (loops, phis, parameters live throughout).
    #[test]
    fn liveness_agrees_with_the_fixpoint() {
        let model = TargetModel::default_model();
        let (mut s, mut out) = (BuildScratch::default(), IrProblem::default());
        let mut checked = 0;
        for seed in 0..200u64 {
            let f = seeded_ssa(seed, &SsaGenOptions::default());
            let mut cfg = Cfg::new();
            cfg.compute(&f);
            let mut sccs = Sccs::new();
            sccs.compute(&cfg);
            build_problem_in(&f, &cfg, &sccs, None, &model, &mut s, &mut out);
            let words = s.gval.len().div_ceil(64);
            for (g, &v) in s.gval.iter().enumerate() {
                let (live_in, live_out) = fixpoint_of(&f, &cfg, Value::new(v as usize));
                for b in 0..f.num_blocks() {
                    let bit = |bits: &[u64]| bits[b * words + g / 64] >> (g % 64) & 1 == 1;
                    assert_eq!(bit(&s.live_in), live_in[b], "seed {seed} v{v} in at {b}");
                    assert_eq!(bit(&s.live_out), live_out[b], "seed {seed} v{v} out at {b}");
                    checked += usize::from(live_in[b]);
                }
            }
        }
        assert!(checked > 1000, "only {checked} live-in bits checked");
    }

    /// Completing only some edges with the dominator tree (liveness over the dominators'
    /// values, sizes only of the values read, closed under operands) gives every accepted
    /// edge the matrix of the full build, and every other edge the overhead table.
    #[test]
    fn partial_completion_agrees_with_the_full_build() {
        use super::super::{build_pieces_in, complete_edges_in};
        use crate::analysis::DomTree;
        use crate::placement::problem::Edge;
        let model = TargetModel::default_model();
        let k2 = model.len() * model.len();
        let (mut full_s, mut full) = (BuildScratch::default(), IrProblem::default());
        let (mut s, mut out) = (BuildScratch::default(), IrProblem::default());
        let (mut sized, mut skipped) = (0, 0);
        for seed in 0..300u64 {
            let f = seeded_ssa(seed, &SsaGenOptions::default());
            let mut cfg = Cfg::new();
            cfg.compute(&f);
            let mut sccs = Sccs::new();
            sccs.compute(&cfg);
            let mut dom = DomTree::new();
            dom.compute(&cfg);
            build_problem_in(&f, &cfg, &sccs, None, &model, &mut full_s, &mut full);
            build_pieces_in(&f, &cfg, &sccs, None, &model, &mut s, &mut out);
            let pick = |e: &Edge| (u64::from(e.from) * 7 + u64::from(e.to) + seed) % 4 == 0;
            complete_edges_in(&f, (&cfg, Some(&dom)), None, &model, &mut s, &mut out, pick);
            assert_eq!(out.problem.edges, full.problem.edges, "seed {seed}");
            for (i, e) in out.problem.edges.iter().enumerate() {
                let got = &out.problem.matrices[i * k2..(i + 1) * k2];
                if pick(e) {
                    let want = &full.problem.matrices[i * k2..(i + 1) * k2];
                    assert_eq!(got, want, "seed {seed} edge {i}");
                    sized += usize::from(got != &s.overhead[..]);
                } else {
                    assert_eq!(got, &s.overhead[..], "seed {seed} edge {i}");
                    skipped += 1;
                }
            }
        }
        assert!(
            sized > 100 && skipped > 100,
            "{sized} sized, {skipped} skipped"
        );
    }
}

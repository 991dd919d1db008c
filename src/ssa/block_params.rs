//! Phi to block-parameter conversion (the `block-params` pass; DESIGN.md 1, OutOfSsa).
//!
//! What: [`convert`] turns the phis of each block into block parameters
//! (the `BlockParams` column) and their incoming values into branch arguments
//! ([`Target::args`]) on every predecessor edge, the form register allocators such as
//! regalloc2 and Cranelift take. The phase stays `ssa`: block parameters are SSA values.
//!
//! Algorithm, per block `B` with phis, in block order:
//! 1. each phi's result becomes the next parameter of `B` (its value-table entry becomes
//!    `BlockParam(B, n)`), in phi order, after any parameters `B` already has;
//! 2. for the k-th edge from predecessor `P` (predecessor lists count edges), the argument
//!    of phi `i` is its k-th incoming entry naming `P` (the last one if there are fewer),
//!    appended to the `Target` of that edge: `jump`, both arms of `br` (a `br` naming `B`
//!    twice carries separate arguments per edge) and every `switch` case have their own
//!    `Target`;
//! 3. an `asm goto` edge has no `Target`: it is redirected to a trampoline block (appended
//!    to the block table) that jumps to `B` with the arguments;
//! 4. an `indirect_br` edge can neither carry arguments nor be redirected (its address is a
//!    runtime value): blocks entered by one keep their phis (the verifier and the
//!    interpreter accept phis and block parameters together in SSA phases).
//! 5. the phis are unlisted.
//!
//! Invariants after [`convert`]: every branch argument list matches its target's parameters
//! in number and type; no phi is listed except in `indirect_br` targets; the CFG changed iff
//! `trampolines > 0`.
//!
//! Complexity: O(Σ phis × predecessor edges + blocks + edges).

use crate::analysis::Cfg;
use crate::ir::{
    Block, Body, BodyRef, InstKind, IrRead, Operand, Target, Terminator, Value, ValueDef,
};
use crate::stage::PassStats;
use bevy_ecs::resource::Resource;

/// Counters of one conversion.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BlockParamStats {
    /// Phis turned into block parameters.
    pub params: u64,
    /// Branch arguments added.
    pub args: u64,
    /// Trampolines created for `asm goto` edges.
    pub trampolines: u64,
    /// Phis kept because an `indirect_br` edge enters their block.
    pub phis_kept: u64,
}

impl BlockParamStats {
    /// Adds the counters to `stats` under pass `block-params` (zero counters left out).
    pub fn report(&self, stats: &mut PassStats) {
        for (name, n) in [
            ("block_params", self.params),
            ("branch_args", self.args),
            ("trampolines", self.trampolines),
            ("phis_kept", self.phis_kept),
        ] {
            if n > 0 {
                stats.add("block-params", name, n);
            }
        }
    }

    /// The counters a pipeline run reported under `block-params`.
    pub fn from_report(report: &crate::stage::PassReport) -> Self {
        BlockParamStats {
            params: report.stat("block-params", "block_params"),
            args: report.stat("block-params", "branch_args"),
            trampolines: report.stat("block-params", "trampolines"),
            phis_kept: report.stat("block-params", "phis_kept"),
        }
    }
}

/// Reusable scratch of [`convert`] (a resource, so the system keeps one per World).
#[derive(Resource, Default, Debug)]
pub struct BlockParamScratch {
    phis: Vec<(Value, crate::ir::Inst)>,
    vals: Vec<Operand>,
    used: Vec<u32>,
}

/// The `occurrence`-th `Target` of `term` naming `b`, if the terminator has it.
fn target_mut(term: &mut Terminator, b: Block, occurrence: usize) -> Option<&mut Target> {
    let mut seen = 0;
    let mut pick = move |t: &Target| {
        if t.block == b {
            seen += 1;
            seen - 1 == occurrence
        } else {
            false
        }
    };
    match term {
        Terminator::Jump(t) => pick(t).then_some(t),
        Terminator::Br {
            then_dest,
            else_dest,
            ..
        } => {
            if pick(then_dest) {
                Some(then_dest)
            } else if pick(else_dest) {
                Some(else_dest)
            } else {
                None
            }
        }
        Terminator::Switch { default, cases, .. } => {
            if pick(default) {
                return Some(default);
            }
            cases.iter_mut().map(|(_, t)| t).find(|t| pick(t))
        }
        _ => None,
    }
}

/// Redirects the `occurrence`-th asm-goto label of `p` naming `from` to `to`.
fn retarget_label(f: &mut Body<'_>, p: Block, from: Block, mut occurrence: usize, to: Block) {
    for &i in &f.block_insts[p.index()] {
        if let InstKind::InlineAsm(asm) = &mut f.kinds[i.index()] {
            for l in asm.goto_labels.iter_mut() {
                if *l == from {
                    if occurrence == 0 {
                        *l = to;
                        return;
                    }
                    occurrence -= 1;
                }
            }
        }
    }
}

/// Upper bound on the blocks [`convert`] creates in `f` (trampolines of asm-goto edges into
/// blocks with phis): the predecessor edges of such blocks that come from a block with
/// asm-goto labels. O(blocks + phis).
pub fn blocks_needed(f: &BodyRef<'_>, cfg: &Cfg) -> usize {
    let mut n = 0;
    for b in 0..f.num_blocks() {
        if f.block_dead[b] {
            continue;
        }
        let has_phi = f.block_insts[b]
            .first()
            .is_some_and(|i| matches!(f.kinds[i.index()], InstKind::Phi { .. }));
        if has_phi {
            n += cfg
                .preds(Block::new(b))
                .iter()
                .filter(|p| cfg.succs(**p).len() > f.terminators[p.index()].num_successors())
                .count();
        }
    }
    n
}

/// Converts the phis of `f` to block parameters (see the module doc). `f` must be valid and
/// in an SSA phase, `cfg` its CFG, with the spare block rows of [`blocks_needed`].
pub fn convert(f: &mut Body<'_>, cfg: &Cfg, scratch: &mut BlockParamScratch) -> BlockParamStats {
    let mut stats = BlockParamStats::default();
    let BlockParamScratch { phis, vals, used } = scratch;
    for bi in 0..f.num_blocks() {
        let b = Block::new(bi);
        if f.block_dead[bi] {
            continue;
        }
        phis.clear();
        for &i in &f.block_insts[bi] {
            match f.kinds[i.index()] {
                InstKind::Phi { .. } => {
                    if let Some(&d) = f.results[i.index()].first() {
                        phis.push((d, i));
                    }
                }
                _ => break,
            }
        }
        if phis.is_empty() {
            continue;
        }
        let preds = cfg.preds(b);
        let indirect = preds.iter().any(|p| {
            matches!(
                f.terminators[p.index()],
                Terminator::IndirectBr { ref dests, .. } if dests.contains(&b)
            )
        });
        if indirect {
            stats.phis_kept += phis.len() as u64;
            continue;
        }
        // 1. Parameters.
        let base = f.block_params[bi].len();
        for (n, &(d, _)) in phis.iter().enumerate() {
            f.block_params[bi].push(d);
            f.values[d.index()].def = ValueDef::BlockParam(b, (base + n) as u32);
        }
        stats.params += phis.len() as u64;
        // 2-3. Arguments per edge.
        let k = phis.len();
        super::phi_elim::edge_values(f.kinds, preds, phis.iter().map(|p| p.1), k, vals, used);
        let mut e = 0;
        while e < preds.len() {
            let p = preds[e];
            let mut run = 1;
            while e + run < preds.len() && preds[e + run] == p {
                run += 1;
            }
            let nterm_b = {
                let mut n = 0;
                f.terminators[p.index()].for_each_successor(|s| n += usize::from(s == b));
                n
            };
            for j in 0..run {
                let args = &vals[(e + j) * k..(e + j + 1) * k];
                stats.args += k as u64;
                if j < nterm_b {
                    let t = target_mut(&mut f.terminators[p.index()], b, j)
                        .expect("terminator edges have targets");
                    t.args.extend_from_slice(args);
                } else {
                    // An asm-goto edge: a trampoline carries the arguments. Earlier goto
                    // occurrences were redirected already, so this one is the first left.
                    let t = f.push_block(
                        Vec::new(),
                        Terminator::Jump(Target {
                            block: b,
                            args: args.to_vec(),
                        }),
                    );
                    retarget_label(f, p, b, 0, t);
                    stats.trampolines += 1;
                }
            }
            e += run;
        }
        // 5. Unlist the phis.
        for &(_, i) in phis.iter() {
            f.inst_dead[i.index()] = true;
        }
        f.block_insts[bi].drain(..phis.len());
    }
    stats
}

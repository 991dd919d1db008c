//! The machine verifier: checks the invariants of [`super`] on anything that implements
//! [`MachineRead`].
//!
//! What is checked (each failure is one message naming the block or instruction):
//! - block instruction ranges partition `0..num_insts` in block order, and no block is empty;
//! - the last instruction of every block is its one terminator (branch or return), no other
//!   instruction is one, and a return has no successors;
//! - predecessor lists are the inverse of the successor lists (as multisets of edges);
//! - branch arguments match the successor's parameters in number and class;
//! - every vreg is below `num_vregs` and has at most one def (an operand def or a block
//!   parameter), exactly one if it is used; operand constraints are well formed (`Reuse` on a def naming a use of the
//!   same class, `FixedReg` of the operand's class, `Limit` not zero);
//! - no critical edge (a block with several successors whose successor has several
//!   predecessors).
//!
//! Complexity: O(blocks + edges + operands + vregs).

use super::{MBlock, MachineRead, OperandConstraint, OperandKind};

/// Checks `f`; returns the violations found (empty when well formed).
pub fn verify(f: &impl MachineRead) -> Vec<String> {
    let mut errors = Vec::new();
    let nb = f.num_blocks();
    let ni = f.num_insts();
    let mut next = 0u32;
    let mut preds_expected: Vec<Vec<MBlock>> = vec![Vec::new(); nb];
    for b in 0..nb as MBlock {
        let r = f.block_insts(b);
        if r.start != next || r.end < r.start || r.end as usize > ni {
            errors.push(format!(
                "block{b}: instructions {}..{} do not continue the layout at {next}",
                r.start, r.end
            ));
            return errors;
        }
        next = r.end;
        if r.is_empty() {
            errors.push(format!("block{b}: empty (a block ends with a terminator)"));
            continue;
        }
        for i in r.clone() {
            let term = f.is_branch(i) || f.is_ret(i);
            if i + 1 == r.end && !term {
                errors.push(format!(
                    "inst{i} (block{b}): the last instruction is no terminator"
                ));
            } else if i + 1 != r.end && term {
                errors.push(format!(
                    "inst{i} (block{b}): terminator before the end of its block"
                ));
            }
        }
        let last = r.end - 1;
        let succs = f.block_succs(b);
        if f.is_ret(last) && !succs.is_empty() {
            errors.push(format!("block{b}: ends in a return but has successors"));
        }
        for (k, &s) in succs.iter().enumerate() {
            if s as usize >= nb {
                errors.push(format!("block{b}: successor {k} is block{s}, out of range"));
                continue;
            }
            preds_expected[s as usize].push(b);
            let args = f.branch_args(b, k);
            let params = f.block_params(s);
            if args.len() != params.len() {
                errors.push(format!(
                    "block{b}: passes {} arguments to block{s}, which has {} parameters",
                    args.len(),
                    params.len()
                ));
            } else if let Some((a, p)) = args
                .iter()
                .zip(params)
                .find(|(a, p)| a.class() != p.class())
            {
                errors.push(format!(
                    "block{b}: argument {a} passed to parameter {p} of block{s}: classes differ"
                ));
            }
        }
    }
    if next as usize != ni {
        errors.push(format!("instructions {next}..{ni} belong to no block"));
    }
    for (b, expected) in preds_expected.iter_mut().enumerate() {
        let mut got = f.block_preds(b as MBlock).to_vec();
        got.sort_unstable();
        expected.sort_unstable();
        if got != *expected {
            errors.push(format!(
                "block{b}: predecessors {got:?} but the edges into it come from {expected:?}"
            ));
        }
    }
    for b in 0..nb as MBlock {
        let succs = f.block_succs(b);
        if succs.len() > 1 {
            for &s in succs {
                if (s as usize) < nb && f.block_preds(s).len() > 1 {
                    errors.push(format!("critical edge block{b} -> block{s} is not split"));
                }
            }
        }
    }
    // One def per vreg.
    let nv = f.num_vregs();
    let mut defs = vec![0u32; nv];
    let mut used = vec![false; nv];
    let mut def_of = |v: super::VReg, at: &dyn Fn() -> String, errors: &mut Vec<String>| match defs
        .get_mut(v.index())
    {
        Some(d) => *d += 1,
        None => errors.push(format!("{}: {v} is beyond num_vregs {nv}", at())),
    };
    for b in 0..nb as MBlock {
        for &p in f.block_params(b) {
            def_of(p, &|| format!("block{b}"), &mut errors);
        }
    }
    for i in 0..ni as u32 {
        let ops = f.inst_operands(i);
        for (k, o) in ops.iter().enumerate() {
            let at = || format!("inst{i} operand {k}");
            if o.kind == OperandKind::Def {
                def_of(o.vreg, &at, &mut errors);
            } else if o.vreg.index() >= nv {
                errors.push(format!("{}: {} is beyond num_vregs {nv}", at(), o.vreg));
            } else {
                used[o.vreg.index()] = true;
            }
            match o.constraint {
                OperandConstraint::Reuse(u) => {
                    let ok = o.kind == OperandKind::Def
                        && ops.get(u as usize).is_some_and(|t| {
                            t.kind == OperandKind::Use && t.vreg.class() == o.vreg.class()
                        });
                    if !ok {
                        errors.push(format!(
                            "{}: reuse({u}) must be on a def and name a use of the same class",
                            at()
                        ));
                    }
                }
                OperandConstraint::FixedReg(r) if r.class() != o.vreg.class() => {
                    errors.push(format!("{}: fixed({r}) is not of {}'s class", at(), o.vreg));
                }
                OperandConstraint::Limit(0) => {
                    errors.push(format!("{}: limit(0) admits no register", at()));
                }
                _ => {}
            }
        }
    }
    for b in 0..nb as MBlock {
        for k in 0..f.block_succs(b).len() {
            for a in f.branch_args(b, k) {
                if let Some(u) = used.get_mut(a.index()) {
                    *u = true;
                }
            }
        }
    }
    for (v, &d) in defs.iter().enumerate() {
        if d > 1 {
            errors.push(format!("v{v} is defined {d} times"));
        } else if d == 0 && used[v] {
            errors.push(format!("v{v} is used but never defined"));
        }
    }
    errors
}

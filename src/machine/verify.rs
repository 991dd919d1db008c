//! The machine verifier: checks the invariants of [`super`] on anything that implements
//! [`MachineRead`].
//!
//! What is checked (each failure is one [`MachineDefect`] naming the block or instruction):
//! - block instruction ranges partition `0..num_insts` in block order, and no block is empty;
//! - the last instruction of every block is its one terminator (branch or return), no other
//!   instruction is one, and a return has no successors;
//! - predecessor lists are the inverse of the successor lists (as multisets of edges);
//! - branch arguments match the successor's parameters in number and class;
//! - every vreg is below `num_vregs` and has at most one def (an operand def or a block
//!   parameter), exactly one if it is used; operand constraints are well formed (`Reuse` on a
//!   def naming a use of the same class, `FixedReg` of the operand's class, `Limit` not zero).
//!   An operand naming no value ([`VReg::NO_VALUE`], a fixed non-allocatable register) is
//!   exempt from the vreg rules;
//! - no critical edge (a block with several successors whose successor has several
//!   predecessors);
//! - no block parameter has a rematerialization hook.
//!
//! Complexity: O(blocks + edges + operands + vregs).

use super::{MBlock, MInst, MachineRead, OperandConstraint, OperandKind, VReg};
use crate::registers::PReg;

/// One violation of the machine form's invariants.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MachineDefect {
    /// A block's instruction range does not continue the layout.
    #[error("block{block}: instructions {start}..{end} do not continue the layout at {next}")]
    Layout {
        /// The block.
        block: MBlock,
        /// Its first instruction.
        start: MInst,
        /// One past its last instruction.
        end: MInst,
        /// Where the previous block ended.
        next: MInst,
    },
    /// A block without instructions.
    #[error("block{0}: empty (a block ends with a terminator)")]
    EmptyBlock(MBlock),
    /// A block's last instruction is not a terminator.
    #[error("inst{inst} (block{block}): the last instruction is no terminator")]
    MissingTerminator {
        /// The instruction.
        inst: MInst,
        /// Its block.
        block: MBlock,
    },
    /// A terminator before the end of its block.
    #[error("inst{inst} (block{block}): terminator before the end of its block")]
    EarlyTerminator {
        /// The instruction.
        inst: MInst,
        /// Its block.
        block: MBlock,
    },
    /// A block ending in a return has successors.
    #[error("block{0}: ends in a return but has successors")]
    ReturnWithSuccessors(MBlock),
    /// A successor index out of range.
    #[error("block{block}: successor {position} is block{succ}, out of range")]
    SuccessorRange {
        /// The block.
        block: MBlock,
        /// The position in its successor list.
        position: usize,
        /// The successor named.
        succ: MBlock,
    },
    /// Arguments and parameters differ in number.
    #[error("block{block}: passes {args} arguments to block{succ}, which has {params} parameters")]
    ArgumentCount {
        /// The branching block.
        block: MBlock,
        /// The successor.
        succ: MBlock,
        /// Arguments passed.
        args: usize,
        /// Parameters of the successor.
        params: usize,
    },
    /// An argument and its parameter differ in class.
    #[error(
        "block{block}: argument {arg} passed to parameter {param} of block{succ}: classes differ"
    )]
    ArgumentClass {
        /// The branching block.
        block: MBlock,
        /// The successor.
        succ: MBlock,
        /// The argument.
        arg: VReg,
        /// The parameter.
        param: VReg,
    },
    /// Instructions after the last block.
    #[error("instructions {0}..{1} belong to no block")]
    Orphans(MInst, usize),
    /// A predecessor list that is not the inverse of the successor lists.
    #[error("block{block}: predecessors {listed:?} but the edges into it come from {edges:?}")]
    Predecessors {
        /// The block.
        block: MBlock,
        /// Its predecessor list, sorted.
        listed: Vec<MBlock>,
        /// The sources of the edges into it, sorted.
        edges: Vec<MBlock>,
    },
    /// A critical edge.
    #[error("critical edge block{0} -> block{1} is not split")]
    CriticalEdge(MBlock, MBlock),
    /// A vreg at or beyond `num_vregs`.
    #[error("{at}: {vreg} is beyond num_vregs {num_vregs}")]
    VRegRange {
        /// Where (`block3`, `inst7 operand 1`).
        at: String,
        /// The vreg.
        vreg: VReg,
        /// The function's vreg count.
        num_vregs: usize,
    },
    /// A malformed reuse constraint.
    #[error("inst{inst} operand {operand}: reuse({target}) must be on a def and name a use of the same class")]
    Reuse {
        /// The instruction.
        inst: MInst,
        /// The operand.
        operand: usize,
        /// The operand it names.
        target: u8,
    },
    /// A fixed register of another class than its operand's vreg.
    #[error("inst{inst} operand {operand}: fixed({reg}) is not of {vreg}'s class")]
    FixedClass {
        /// The instruction.
        inst: MInst,
        /// The operand.
        operand: usize,
        /// The register.
        reg: PReg,
        /// The vreg.
        vreg: VReg,
    },
    /// `Limit(0)`.
    #[error("inst{inst} operand {operand}: limit(0) admits no register")]
    EmptyLimit {
        /// The instruction.
        inst: MInst,
        /// The operand.
        operand: usize,
    },
    /// A vreg with several defs.
    #[error("v{vreg} is defined {defs} times")]
    SeveralDefs {
        /// The vreg index.
        vreg: usize,
        /// Its def count.
        defs: u32,
    },
    /// A used vreg without a def.
    #[error("v{0} is used but never defined")]
    Undefined(usize),
    /// A block parameter with a rematerialization hook (its value differs per edge, so no
    /// one instruction recomputes it).
    #[error("block{block}: parameter {vreg} has a remat hook")]
    RematParam {
        /// The block.
        block: MBlock,
        /// The parameter.
        vreg: VReg,
    },
}

/// The defects as one line, `; `-separated (for diagnostics).
pub fn describe(defects: &[MachineDefect]) -> String {
    defects
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reusable working storage of [`verify_with`]: a caller that verifies many functions (the
/// regalloc2 drop-in, once per call) keeps one, so a well-formed function is verified
/// without allocating once the vectors have grown.
#[derive(Clone, Debug, Default)]
pub struct VerifyScratch {
    /// `edge_start[b]..edge_start[b + 1]`: the slice of `edge_preds` for block `b`.
    edge_start: Vec<u32>,
    /// Sources of the edges into each block, in block order (from the successor lists).
    edge_preds: Vec<MBlock>,
    /// One block's predecessor list, sorted.
    listed: Vec<MBlock>,
    /// Defs per vreg.
    defs: Vec<u32>,
    /// Whether each vreg is used.
    used: Vec<bool>,
}

/// Checks `f`; returns the violations found (empty when well formed).
pub fn verify(f: &impl MachineRead) -> Vec<MachineDefect> {
    let mut errors = Vec::new();
    verify_with(f, &mut VerifyScratch::default(), &mut errors);
    errors
}

/// Checks `f` as [`verify`] does, with the caller's working storage; the violations are
/// appended to `errors` (nothing is allocated for a well-formed function once `scratch`
/// is warm).
pub fn verify_with(
    f: &impl MachineRead,
    scratch: &mut VerifyScratch,
    errors: &mut Vec<MachineDefect>,
) {
    if verify_structure_with(f, scratch, errors) {
        check_vregs(f, scratch, errors);
    }
}

/// The structural subset of [`verify_with`]: block layout, terminators, successors,
/// branch-argument counts and classes, predecessor lists and critical edges, but not the
/// per-vreg rules (one def per vreg, a def for every use, constraint forms), which cost a
/// pass over every operand and vreg. For callers that check what they need of those rules
/// while reading the operands (the regalloc2 drop-in, whose contract leaves SSA to the
/// caller unless `validate_ssa` is set). Returns false when the layout is too broken to
/// check further.
pub fn verify_structure_with(
    f: &impl MachineRead,
    scratch: &mut VerifyScratch,
    errors: &mut Vec<MachineDefect>,
) -> bool {
    if !check_layout(f, errors) {
        return false;
    }
    check_edges(f, scratch, errors);
    true
}

/// Block ranges, terminators, successors and branch arguments. False when the layout is so
/// broken that the other checks would index out of range.
fn check_layout(f: &impl MachineRead, errors: &mut Vec<MachineDefect>) -> bool {
    let nb = f.num_blocks();
    let ni = f.num_insts();
    let mut next = MInst(0);
    for b in f.blocks() {
        let r = f.block_insts(b);
        if r.start != next || r.end < r.start || r.end.index() > ni {
            errors.push(MachineDefect::Layout {
                block: b,
                start: r.start,
                end: r.end,
                next,
            });
            return false;
        }
        next = MInst(r.end.0);
        if r.is_empty() {
            errors.push(MachineDefect::EmptyBlock(b));
            continue;
        }
        for i in r {
            let term = f.is_branch(i) || f.is_ret(i);
            if i + 1 == r.end && !term {
                errors.push(MachineDefect::MissingTerminator { inst: i, block: b });
            } else if i + 1 != r.end && term {
                errors.push(MachineDefect::EarlyTerminator { inst: i, block: b });
            }
        }
        let succs = f.block_succs(b);
        if f.is_ret(r.end - 1) && !succs.is_empty() {
            errors.push(MachineDefect::ReturnWithSuccessors(b));
        }
        for (k, &s) in succs.iter().enumerate() {
            if s.index() >= nb {
                errors.push(MachineDefect::SuccessorRange {
                    block: b,
                    position: k,
                    succ: s,
                });
                continue;
            }
            let args = f.branch_args(b, k);
            let params = f.block_params(s);
            if args.len() != params.len() {
                errors.push(MachineDefect::ArgumentCount {
                    block: b,
                    succ: s,
                    args: args.len(),
                    params: params.len(),
                });
            } else if let Some((&arg, &param)) = args
                .iter()
                .zip(params)
                .find(|(a, p)| a.class() != p.class())
            {
                errors.push(MachineDefect::ArgumentClass {
                    block: b,
                    succ: s,
                    arg,
                    param,
                });
            }
        }
    }
    if next.index() != ni {
        errors.push(MachineDefect::Orphans(next, ni));
    }
    true
}

/// Predecessor lists against the successor lists; critical edges. The edges into each
/// block are gathered in a compressed table (counts, prefix sums, then a fill in block
/// order, which leaves each block's sources sorted).
fn check_edges(f: &impl MachineRead, scratch: &mut VerifyScratch, errors: &mut Vec<MachineDefect>) {
    let nb = f.num_blocks();
    let start = &mut scratch.edge_start;
    start.clear();
    start.resize(nb + 1, 0);
    for b in crate::machine::block_range(nb) {
        for &s in f.block_succs(b) {
            if s.index() < nb {
                start[s.index() + 1] += 1;
            }
        }
    }
    for b in 0..nb {
        start[b + 1] += start[b];
    }
    let preds = &mut scratch.edge_preds;
    preds.clear();
    preds.resize(start[nb] as usize, MBlock(0));
    // `fill[b]` runs from `start[b]`; `start` is shifted back afterwards.
    for b in crate::machine::block_range(nb) {
        for &s in f.block_succs(b) {
            if s.index() < nb {
                preds[start[s.index()] as usize] = b;
                start[s.index()] += 1;
            }
        }
    }
    for b in (0..nb).rev() {
        start[b + 1] = start[b];
    }
    start[0] = 0;
    for b in 0..nb {
        let edges = &preds[start[b] as usize..start[b + 1] as usize];
        // A list already in block order (most are) equals its sorted copy.
        if f.block_preds(MBlock::new(b)) == edges {
            continue;
        }
        let listed = &mut scratch.listed;
        listed.clear();
        listed.extend_from_slice(f.block_preds(MBlock::new(b)));
        listed.sort_unstable();
        if listed.as_slice() != edges {
            errors.push(MachineDefect::Predecessors {
                block: MBlock::new(b),
                listed: listed.clone(),
                edges: edges.to_vec(),
            });
        }
    }
    for b in crate::machine::block_range(nb) {
        let succs = f.block_succs(b);
        if succs.len() > 1 {
            for &s in succs {
                if s.index() < nb && f.block_preds(s).len() > 1 {
                    errors.push(MachineDefect::CriticalEdge(b, s));
                }
            }
        }
    }
}

/// One def per vreg, a def for every use, well-formed constraints.
fn check_vregs(f: &impl MachineRead, scratch: &mut VerifyScratch, errors: &mut Vec<MachineDefect>) {
    let nb = f.num_blocks();
    let nv = f.num_vregs();
    let defs = &mut scratch.defs;
    defs.clear();
    defs.resize(nv, 0);
    let used = &mut scratch.used;
    used.clear();
    used.resize(nv, false);
    let beyond = |at: String, vreg: VReg| MachineDefect::VRegRange {
        at,
        vreg,
        num_vregs: nv,
    };
    for b in crate::machine::block_range(nb) {
        for &p in f.block_params(b) {
            if f.remat(p).is_some() {
                errors.push(MachineDefect::RematParam { block: b, vreg: p });
            }
            match defs.get_mut(p.index()) {
                Some(d) => *d += 1,
                None => errors.push(beyond(format!("block{b}"), p)),
            }
        }
    }
    for i in f.insts() {
        let ops = f.inst_operands(i);
        for (k, o) in ops.iter().enumerate() {
            if !o.vreg.is_value() {
                continue;
            }
            let slot = if o.kind == OperandKind::Def {
                defs.get_mut(o.vreg.index()).map(|d| *d += 1)
            } else {
                used.get_mut(o.vreg.index()).map(|u| *u = true)
            };
            if slot.is_none() {
                errors.push(beyond(format!("inst{i} operand {k}"), o.vreg));
            }
            match o.constraint {
                OperandConstraint::Reuse(u) => {
                    let ok = o.kind == OperandKind::Def
                        && ops.get(u as usize).is_some_and(|t| {
                            t.kind == OperandKind::Use && t.vreg.class() == o.vreg.class()
                        });
                    if !ok {
                        errors.push(MachineDefect::Reuse {
                            inst: i,
                            operand: k,
                            target: u,
                        });
                    }
                }
                OperandConstraint::FixedReg(reg) if reg.class() != o.vreg.class() => {
                    errors.push(MachineDefect::FixedClass {
                        inst: i,
                        operand: k,
                        reg,
                        vreg: o.vreg,
                    });
                }
                OperandConstraint::Limit(0) => {
                    errors.push(MachineDefect::EmptyLimit {
                        inst: i,
                        operand: k,
                    });
                }
                _ => {}
            }
        }
    }
    for b in crate::machine::block_range(nb) {
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
            errors.push(MachineDefect::SeveralDefs { vreg: v, defs: d });
        } else if d == 0 && used[v] {
            errors.push(MachineDefect::Undefined(v));
        }
    }
}

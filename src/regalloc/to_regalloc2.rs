//! Our machine form presented to regalloc2 (feature `regalloc2`): anything implementing
//! [`MachineRead`] becomes a `regalloc2::Function`, a [`MachineEnv`] a
//! `regalloc2::MachineEnv`, and regalloc2's `Output` comes back as an [`Allocated`] in our
//! vocabulary (allocations per operand, edits sorted by program point).
//!
//! What: [`Presented`] converts the operand, edge, parameter and branch-argument lists into
//! regalloc2's types once (regalloc2's trait returns slices of its own types, and our
//! [`VReg`](crate::registers::VReg)/[`Operand`](crate::registers::Operand) are packed differently), in flat vectors with per-instruction and
//! per-block offsets. The conversions of classes, registers, operands and allocations are
//! [`super::regalloc2_model`]'s, shared with the importing direction.
//!
//! [`allocate`] runs `regalloc2::run` (the Ion algorithm; SSA validation in debug builds),
//! [`allocate_with_ctx`] runs `regalloc2::run_with_ctx` in a caller's reused context (what
//! Cranelift does, and what `strata bench --compare regalloc2` times), and
//! [`check_with_regalloc2`] runs regalloc2's own `checker::Checker` on the result.
//!
//! Program points in [`Allocated::edits`] are packed as in regalloc2 and the seed: `inst << 1`
//! for before, `inst << 1 | 1` for after.
//!
//! Complexity: presenting is O(instructions + operands + edges); converting the output
//! O(operands + edits).

pub use super::regalloc2_model::preg_to;
pub use super::regalloc2_model::{alloc_from, operand_to, preg_from};
use super::regalloc2_model::{class_from, set_to, vreg_to};
use crate::machine::MInst;
use crate::machine::{MBlock, MachineEnv, MachineRead};
use crate::registers::Allocation;
use regalloc2 as ra2;

/// Our environment as regalloc2's (no fixed stack slots).
pub fn env_to(env: &MachineEnv) -> ra2::MachineEnv {
    super::regalloc2_model::to_regalloc2_env(env, crate::registers::PRegSet::empty())
}

/// A machine function in regalloc2's types (see the module doc).
pub struct Presented<'a, M: MachineRead> {
    f: &'a M,
    operands: Vec<ra2::Operand>,
    operand_start: Vec<u32>,
    clobbers: Vec<ra2::PRegSet>,
    edges: Vec<ra2::Block>,
    succ_start: Vec<u32>,
    pred_start: Vec<u32>,
    params: Vec<ra2::VReg>,
    param_start: Vec<u32>,
    args: Vec<ra2::VReg>,
    /// `arg_start[edge index]`, edges numbered block by block in successor order.
    arg_start: Vec<u32>,
}

impl<'a, M: MachineRead> Presented<'a, M> {
    /// Converts `f` (O(size of f)).
    pub fn new(f: &'a M) -> Self {
        let (ni, nb) = (f.num_insts(), f.num_blocks());
        let mut p = Presented {
            f,
            operands: Vec::new(),
            operand_start: Vec::with_capacity(ni + 1),
            clobbers: Vec::with_capacity(ni),
            edges: Vec::new(),
            succ_start: Vec::with_capacity(nb + 1),
            pred_start: Vec::with_capacity(nb + 1),
            params: Vec::new(),
            param_start: Vec::with_capacity(nb + 1),
            args: Vec::new(),
            arg_start: Vec::new(),
        };
        for i in f.insts() {
            p.operand_start.push(p.operands.len() as u32);
            p.operands.extend(f.inst_operands(i).iter().map(operand_to));
            p.clobbers.push(set_to(f.inst_clobbers(i)));
        }
        p.operand_start.push(p.operands.len() as u32);
        let mut succ_edges = Vec::new();
        for b in crate::machine::block_range(nb) {
            p.param_start.push(p.params.len() as u32);
            p.params
                .extend(f.block_params(b).iter().copied().map(vreg_to));
            for (k, &s) in f.block_succs(b).iter().enumerate() {
                succ_edges.push(ra2::Block::new(s.index()));
                p.arg_start.push(p.args.len() as u32);
                p.args
                    .extend(f.branch_args(b, k).iter().copied().map(vreg_to));
            }
        }
        p.param_start.push(p.params.len() as u32);
        p.arg_start.push(p.args.len() as u32);
        // Successors first, then predecessors, in one vector.
        let mut at = 0;
        for b in crate::machine::block_range(nb) {
            p.succ_start.push(at);
            at += f.block_succs(b).len() as u32;
        }
        p.succ_start.push(at);
        p.edges = succ_edges;
        let base = p.edges.len() as u32;
        for b in crate::machine::block_range(nb) {
            p.pred_start.push(base + (p.edges.len() as u32 - base));
            p.edges
                .extend(f.block_preds(b).iter().map(|&x| ra2::Block::new(x.index())));
        }
        p.pred_start.push(p.edges.len() as u32);
        p
    }

    /// The function presented.
    pub fn source(&self) -> &'a M {
        self.f
    }
}

impl<M: MachineRead> ra2::Function for Presented<'_, M> {
    fn num_insts(&self) -> usize {
        self.f.num_insts()
    }
    fn num_blocks(&self) -> usize {
        self.f.num_blocks()
    }
    fn entry_block(&self) -> ra2::Block {
        ra2::Block::new(self.f.entry_block().index())
    }
    fn block_insns(&self, block: ra2::Block) -> ra2::InstRange {
        let r = self.f.block_insts(MBlock::new(block.index()));
        ra2::InstRange::new(
            ra2::Inst::new(r.start.index()),
            ra2::Inst::new(r.end.index()),
        )
    }
    fn block_succs(&self, block: ra2::Block) -> &[ra2::Block] {
        let b = block.index();
        &self.edges[self.succ_start[b] as usize..self.succ_start[b + 1] as usize]
    }
    fn block_preds(&self, block: ra2::Block) -> &[ra2::Block] {
        let b = block.index();
        &self.edges[self.pred_start[b] as usize..self.pred_start[b + 1] as usize]
    }
    fn block_params(&self, block: ra2::Block) -> &[ra2::VReg] {
        let b = block.index();
        &self.params[self.param_start[b] as usize..self.param_start[b + 1] as usize]
    }
    fn is_ret(&self, insn: ra2::Inst) -> bool {
        self.f.is_ret(MInst::new(insn.index()))
    }
    fn is_branch(&self, insn: ra2::Inst) -> bool {
        self.f.is_branch(MInst::new(insn.index()))
    }
    fn branch_blockparams(
        &self,
        block: ra2::Block,
        _insn: ra2::Inst,
        succ_idx: usize,
    ) -> &[ra2::VReg] {
        let e = self.succ_start[block.index()] as usize + succ_idx;
        &self.args[self.arg_start[e] as usize..self.arg_start[e + 1] as usize]
    }
    fn inst_operands(&self, insn: ra2::Inst) -> &[ra2::Operand] {
        let i = insn.index();
        &self.operands[self.operand_start[i] as usize..self.operand_start[i + 1] as usize]
    }
    fn inst_clobbers(&self, insn: ra2::Inst) -> ra2::PRegSet {
        self.clobbers[insn.index()]
    }
    fn num_vregs(&self) -> usize {
        self.f.num_vregs()
    }
    fn spillslot_size(&self, regclass: ra2::RegClass) -> usize {
        self.f.spill_slot_size(class_from(regclass))
    }
}

/// An allocation in our vocabulary: regalloc2's `Output`, converted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Allocated {
    /// Allocation of every operand, instruction by instruction.
    pub allocs: Vec<Allocation>,
    /// `allocs[alloc_start[i]..alloc_start[i + 1]]` are instruction `i`'s.
    pub alloc_start: Vec<u32>,
    /// Moves `(point, from, to)`, sorted by point (`inst << 1 | after`).
    pub edits: Vec<(u32, Allocation, Allocation)>,
    /// Spill slots used.
    pub num_spill_slots: usize,
}

impl Allocated {
    /// The same allocation in [`super::output::AllocOutput`]'s shape (what our
    /// checker judges). O(operands + edits).
    pub fn to_output(&self) -> super::output::AllocOutput {
        use super::output::{AllocOutput, Edit};
        use super::point::ProgPoint;
        let n = self.alloc_start.len().saturating_sub(1);
        AllocOutput {
            allocs: self.allocs.clone(),
            inst_alloc_offsets: self.alloc_start[..n].to_vec(),
            edits: self
                .edits
                .iter()
                .map(|&(p, from, to)| (ProgPoint(p), Edit::mov(from, to)))
                .collect(),
            num_spillslots: self.num_spill_slots,
        }
    }

    /// The allocations of instruction `i`'s operands.
    pub fn inst_allocs(&self, i: usize) -> &[Allocation] {
        &self.allocs[self.alloc_start[i] as usize..self.alloc_start[i + 1] as usize]
    }
}

/// Converts regalloc2's output to ours.
pub fn output_from(out: &ra2::Output) -> Allocated {
    let mut alloc_start: Vec<u32> = out.inst_alloc_offsets.clone();
    alloc_start.push(out.allocs.len() as u32);
    Allocated {
        allocs: out.allocs.iter().copied().map(alloc_from).collect(),
        alloc_start,
        edits: out
            .edits
            .iter()
            .map(|(p, e)| {
                let ra2::Edit::Move { from, to } = e;
                let point =
                    ((p.inst().index() as u32) << 1) | (p.pos() == ra2::InstPosition::After) as u32;
                (point, alloc_from(*from), alloc_from(*to))
            })
            .collect(),
        num_spill_slots: out.num_spillslots,
    }
}

/// Why regalloc2 could not allocate or check a function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Regalloc2Error {
    /// `regalloc2::run` refused the function.
    #[error("regalloc2 refused the function: {0}")]
    Run(String),
    /// regalloc2's checker rejected the allocation.
    #[error("regalloc2's checker rejects the allocation: {0}")]
    Check(String),
}

/// Allocates `f` with regalloc2 (Ion) in environment `env`; returns regalloc2's output.
/// regalloc2's SSA validation (defs dominate uses) runs in debug builds only, so release
/// timings are regalloc2's allocation alone; the machine verifier checks the one-def rule
/// in every build that lowers with `--verify-each`.
///
/// # Errors
/// [`Regalloc2Error::Run`] with regalloc2's reason (critical edge, SSA, too many live
/// registers, ...).
pub fn allocate<M: MachineRead>(
    f: &Presented<'_, M>,
    env: &ra2::MachineEnv,
) -> Result<ra2::Output, Regalloc2Error> {
    let options = ra2::RegallocOptions {
        verbose_log: false,
        validate_ssa: cfg!(debug_assertions),
        algorithm: ra2::Algorithm::Ion,
    };
    ra2::run(f, env, &options).map_err(|e| Regalloc2Error::Run(e.to_string()))
}

/// Runs regalloc2 (Ion) on a presented function in `ctx`, a context reused between
/// functions as regalloc2's `run_with_ctx` intends; the output lives in `ctx` until the next
/// call. Same options as [`allocate`].
///
/// # Errors
/// [`Regalloc2Error::Run`] when regalloc2 refuses the function.
pub fn allocate_with_ctx<'c, M: MachineRead>(
    f: &Presented<'_, M>,
    env: &ra2::MachineEnv,
    ctx: &'c mut ra2::Ctx,
) -> Result<&'c ra2::Output, Regalloc2Error> {
    let options = ra2::RegallocOptions {
        verbose_log: false,
        validate_ssa: cfg!(debug_assertions),
        algorithm: ra2::Algorithm::Ion,
    };
    ra2::run_with_ctx(f, env, &options, ctx).map_err(|e| Regalloc2Error::Run(e.to_string()))
}

/// Runs regalloc2's `checker::Checker` on `out` for `f`.
///
/// # Errors
/// [`Regalloc2Error::Check`] with the checker's findings.
pub fn check_with_regalloc2<M: MachineRead>(
    f: &Presented<'_, M>,
    env: &ra2::MachineEnv,
    out: &ra2::Output,
) -> Result<(), Regalloc2Error> {
    let mut checker = ra2::checker::Checker::new(f, env);
    checker.prepare(out);
    checker
        .run()
        .map_err(|e| Regalloc2Error::Check(format!("{e:?}")))
}

//! Lowering of the control flow: block order, parameters and terminators.

use super::{LowerError, Lowerer, R};
use crate::ir::IrRead;
use crate::ir::{Block, Terminator};
use crate::machine::function::{BuildBlock, MachineOp, Opcode, Operands};
use crate::machine::{MBlock, Operand as MOp, OperandConstraint as C, VReg};
use smallvec::{smallvec, SmallVec};

impl<'a, F: IrRead> Lowerer<'a, F> {
    pub(super) fn run(&mut self) -> R<()> {
        let ir = self.ir;
        let nb = ir.num_blocks();
        if nb == 0 || ir.is_block_dead(Block::new(0)) {
            return Err(LowerError {
                function: ir.name().to_string(),
                place: "block0".into(),
                message: "the function has no entry block".into(),
            });
        }
        // Reachable blocks from the entry, in IR order.
        let mut reach = vec![false; nb];
        let mut stack = vec![Block::new(0)];
        reach[0] = true;
        let mut has_pred_entry = false;
        while let Some(b) = stack.pop() {
            for s in successors(ir.terminator(b)) {
                if s.index() == 0 {
                    has_pred_entry = true;
                }
                if s.index() < nb && !reach[s.index()] && !ir.is_block_dead(s) {
                    reach[s.index()] = true;
                    stack.push(s);
                }
            }
        }
        // An entry block with predecessors (a loop back to it) gets a prologue block of its
        // own: the machine entry must have none (regalloc2: no live-in at entry).
        let prologue = has_pred_entry.then(|| self.m.block());
        for (b, &r) in reach.iter().enumerate() {
            if r {
                self.mblock[b] = Some(self.m.block());
            }
        }
        if let Some(p) = prologue {
            self.place = (Block::new(0), None);
            if !ir.block_params(Block::new(0)).is_empty() || !self.phis(Block::new(0)).is_empty() {
                return Err(self.err("the entry block has predecessors and parameters"));
            }
            self.cur = p;
            self.lower_args()?;
            self.emit1(MachineOp::new(Opcode::Jump), Operands::new());
            let entry = self.mblock[0].expect("the entry is reachable");
            self.set_succs(smallvec![(entry, SmallVec::new())]);
        }
        for b in (0..nb).filter(|&b| reach[b]) {
            let block = Block::new(b);
            self.cur = self.mblock[b].expect("reachable block has a machine block");
            self.place = (block, None);
            let mut params = SmallVec::new();
            for &p in ir.block_params(block) {
                params.extend(self.value_parts(p)?);
            }
            // Phis `block-params` kept (blocks an indirect branch enters) are parameters too,
            // after the block's own; `target` passes their incoming values as arguments.
            let phis = self.phis(block);
            for &i in phis {
                self.place = (block, Some(i));
                let &[v] = ir.inst_results(i) else {
                    return Err(self.err("a phi without exactly one result"));
                };
                params.extend(self.value_parts(v)?);
            }
            self.place = (block, None);
            self.m.blocks[self.cur.index()].params = params;
            if b == 0 && prologue.is_none() {
                self.lower_args()?;
            }
            for &i in &ir.block_insts(block)[phis.len()..] {
                self.place = (block, Some(i));
                self.lower_inst(i)?;
            }
            self.place = (block, None);
            self.lower_terminator(ir.terminator(block))?;
        }
        Ok(())
    }

    pub(super) fn target(&mut self, t: &crate::ir::Target) -> R<(MBlock, SmallVec<[VReg; 2]>)> {
        let mb = self
            .mblock
            .get(t.block.index())
            .copied()
            .flatten()
            .ok_or_else(|| {
                self.err(format!(
                    "branch to {}, which is dead or out of range",
                    t.block
                ))
            })?;
        let mut args = SmallVec::new();
        for a in &t.args {
            args.extend(self.use_parts(*a)?);
        }
        let from = self.place.0;
        for &i in self.phis(t.block) {
            let incoming = match self.ir.inst_kind(i) {
                crate::ir::InstKind::Phi { incoming, .. } => {
                    incoming.iter().rev().find(|(b, _)| *b == from).map(|e| e.1)
                }
                _ => None,
            };
            let value = incoming.ok_or_else(|| {
                self.err(format!(
                    "the phi {i} of {} has no incoming value from {from}",
                    t.block
                ))
            })?;
            args.extend(self.use_parts(value)?);
        }
        Ok((mb, args))
    }

    /// The phis at the start of `b` (those `block-params` keeps: blocks an indirect branch
    /// enters). They become machine block parameters after the IR block's own.
    pub(super) fn phis(&self, b: Block) -> &'a [crate::ir::Inst] {
        let ir = self.ir;
        let insts = ir.block_insts(b);
        let n = insts
            .iter()
            .take_while(|&&i| matches!(ir.inst_kind(i), crate::ir::InstKind::Phi { .. }))
            .count();
        &insts[..n]
    }

    pub(super) fn set_succs(&mut self, succs: SmallVec<[(MBlock, SmallVec<[VReg; 2]>); 2]>) {
        self.m.blocks[self.cur.index()].succs = succs;
    }

    pub(super) fn lower_terminator(&mut self, term: &Terminator) -> R<()> {
        match term {
            Terminator::Jump(t) => {
                let t = self.target(t)?;
                self.emit1(MachineOp::new(Opcode::Jump), Operands::new());
                self.set_succs(smallvec![t]);
            }
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.use_op(*cond)?;
                let a = self.target(then_dest)?;
                let b = self.target(else_dest)?;
                self.emit1(MachineOp::new(Opcode::Br), smallvec![MOp::use_(c, C::Reg)]);
                self.set_succs(smallvec![a, b]);
            }
            Terminator::Switch {
                ty,
                value,
                default,
                cases,
            } => {
                if ty.bits() > 64 {
                    return Err(self.err("switch on a value wider than 64 bits is not lowered"));
                }
                if cases.is_empty() {
                    let d = self.target(default)?;
                    self.emit1(MachineOp::new(Opcode::Jump), Operands::new());
                    self.set_succs(smallvec![d]);
                    return Ok(());
                }
                let v = self.use_op(*value)?;
                for (k, (case, t)) in cases.iter().enumerate() {
                    let hit = self.target(t)?;
                    let next = if k + 1 == cases.len() {
                        self.target(default)?
                    } else {
                        self.m.blocks.push(BuildBlock::default());
                        (MBlock::new(self.m.blocks.len() - 1), SmallVec::new())
                    };
                    let chain = next.0;
                    self.emit1(
                        MachineOp::imm(Opcode::CaseBr, *case as u64 as i64),
                        smallvec![MOp::use_(v, C::Reg)],
                    );
                    self.set_succs(smallvec![hit, next]);
                    if k + 1 < cases.len() {
                        self.cur = chain;
                    }
                }
            }
            Terminator::IndirectBr { addr, dests } => {
                let a = self.use_op(*addr)?;
                let mut succs = SmallVec::new();
                for d in dests {
                    if !self.ir.block_params(*d).is_empty() {
                        return Err(
                            self.err(format!("indirect branch to {d}, which has parameters"))
                        );
                    }
                    succs.push(self.target(&crate::ir::Target::new(*d))?);
                }
                self.emit1(
                    MachineOp::new(Opcode::JumpInd),
                    smallvec![MOp::use_(a, C::Reg)],
                );
                self.set_succs(succs);
            }
            Terminator::Ret(v) => {
                let mut ops = Operands::new();
                if let Some(v) = v {
                    let parts = self.use_parts(*v)?;
                    for (&r, reg) in parts.iter().zip(self.result_regs(&parts)?) {
                        ops.push(MOp::use_(r, C::FixedReg(reg)));
                    }
                }
                self.emit1(MachineOp::new(Opcode::Ret), ops);
            }
            Terminator::Unreachable => self.emit1(MachineOp::new(Opcode::Trap), Operands::new()),
        }
        Ok(())
    }
}

/// The successor blocks a terminator names, in order.
fn successors(t: &Terminator) -> SmallVec<[Block; 2]> {
    match t {
        Terminator::Jump(t) => smallvec![t.block],
        Terminator::Br {
            then_dest,
            else_dest,
            ..
        } => smallvec![then_dest.block, else_dest.block],
        Terminator::Switch { default, cases, .. } => std::iter::once(default.block)
            .chain(cases.iter().map(|c| c.1.block))
            .collect(),
        Terminator::IndirectBr { dests, .. } => dests.iter().copied().collect(),
        Terminator::Ret(_) | Terminator::Unreachable => SmallVec::new(),
    }
}

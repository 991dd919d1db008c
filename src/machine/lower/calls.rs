//! Lowering of calls and parameters by the calling convention of the target.

use super::{Lowerer, R};
use crate::ir::IrRead;
use crate::machine::function::{MachineOp, Opcode, Operands};
use crate::machine::parts::libcall_imm;
use crate::machine::targets::Arch;
use crate::machine::{Operand as MOp, OperandConstraint as C, VReg};
use crate::registers::{PReg, RegClass};
use smallvec::{smallvec, SmallVec};

pub(super) enum CallTarget {
    /// A module symbol or library helper, by immediate.
    Symbol(i64),
    /// An address in a register.
    Reg(VReg),
}

impl<'a, F: IrRead> Lowerer<'a, F> {
    pub(super) fn lower_args(&mut self) -> R<()> {
        let ir = self.ir;
        let mut defs = Operands::new();
        let mut stack = Vec::new();
        let (mut ni, mut nf, mut off) = (0, 0, 0i64);
        let mut parts = Vec::new();
        for &p in ir.param_values() {
            parts.extend(self.value_parts(p)?);
        }
        for v in parts {
            let reg = match v.class() {
                RegClass::Int => {
                    ni += 1;
                    self.t.int_args.get(ni - 1)
                }
                _ => {
                    nf += 1;
                    self.t.float_args.get(nf - 1)
                }
            };
            match reg {
                Some(&r) => defs.push(MOp::def(v, C::FixedReg(r))),
                None => {
                    let size = self.stack_size(v);
                    off = (off + size - 1) / size * size;
                    stack.push((v, off));
                    off += size;
                }
            }
        }
        self.emit1(MachineOp::new(Opcode::Args), defs);
        for (v, off) in stack {
            self.emit1(
                MachineOp::imm(Opcode::LoadArg, off),
                smallvec![MOp::def(v, C::Reg)],
            );
        }
        Ok(())
    }

    /// Bytes a part takes in the stack argument area: 16 (16-aligned) for a vector part
    /// wider than 8 bytes, else 8.
    fn stack_size(&self, v: VReg) -> i64 {
        if self.is_wide(v) {
            16
        } else {
            8
        }
    }

    /// Calls library helper `name` ([`super::parts::LIBCALLS`]; not a module symbol).
    pub(super) fn libcall(&mut self, name: &str, args: &[VReg], results: &[VReg]) -> R<()> {
        let imm = libcall_imm(name)
            .ok_or_else(|| self.err(format!("no library helper `{name}` is known")))?;
        self.call(CallTarget::Symbol(imm), args, results, false)
    }

    /// The result registers of `results`' parts, in order per class.
    pub(super) fn result_regs(&self, results: &[VReg]) -> R<SmallVec<[PReg; 2]>> {
        let (mut ni, mut nf) = (0, 0);
        let mut out = SmallVec::new();
        for d in results {
            let r = if d.class() == RegClass::Int {
                ni += 1;
                self.t.int_rets.get(ni - 1)
            } else {
                nf += 1;
                self.t.float_rets.get(nf - 1)
            };
            out.push(*r.ok_or_else(|| {
                self.err(format!(
                    "a result of {} parts needs more result registers than the target has",
                    results.len()
                ))
            })?);
        }
        Ok(out)
    }

    pub(super) fn call(
        &mut self,
        target: CallTarget,
        args: &[VReg],
        results: &[VReg],
        variadic: bool,
    ) -> R<()> {
        let mut ops = Operands::new();
        let mut clobbers = self.t.caller_saved;
        for (&d, r) in results.iter().zip(self.result_regs(results)?) {
            ops.push(MOp::def(d, C::FixedReg(r)));
            clobbers.remove(r);
        }
        let (mut ni, mut nf, mut off) = (0usize, 0usize, 0i64);
        for &a in args {
            let reg = if a.class() == RegClass::Int {
                ni += 1;
                self.t.int_args.get(ni - 1)
            } else {
                nf += 1;
                self.t.float_args.get(nf - 1)
            };
            match reg {
                Some(&r) => ops.push(MOp::use_(a, C::FixedReg(r))),
                None => {
                    let size = self.stack_size(a);
                    off = (off + size - 1) / size * size;
                    self.emit1(
                        MachineOp::imm(Opcode::StoreArg, off),
                        smallvec![MOp::use_(a, C::Reg)],
                    );
                    off += size;
                }
            }
        }
        if variadic && self.t.arch == Arch::X86_64 {
            // al = number of vector registers used by the arguments.
            let al = self.new_vreg(RegClass::Int)?;
            let rax = self.t.int_ret;
            self.emit1(
                MachineOp::imm(Opcode::MovImm, nf.min(8) as i64),
                smallvec![MOp::def(al, C::Reg)],
            );
            ops.push(MOp::use_(al, C::FixedReg(rax)));
        }
        let op = match target {
            CallTarget::Symbol(s) => MachineOp::imm(Opcode::Call, s),
            CallTarget::Reg(r) => {
                ops.push(MOp::use_(r, C::Reg));
                MachineOp::new(Opcode::CallInd)
            }
        };
        self.emit(op, ops, clobbers);
        Ok(())
    }
}

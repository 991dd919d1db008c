//! Lowering of inline assembly: constraint codes and clobbers.

use super::{Lowerer, R};
use crate::ir::Inst;
use crate::ir::IrRead;
use crate::machine::function::{MachineOp, Opcode, Operands};
use crate::machine::targets::Arch;
use crate::machine::{Operand as MOp, OperandConstraint as C, OperandPos, PRegSet};
use crate::registers::{PReg, RegClass};

impl<'a, F: IrRead> Lowerer<'a, F> {
    pub(super) fn asm_reg(&self, code: &str) -> Option<PReg> {
        if self.t.arch != Arch::X86_64 {
            return None;
        }
        let idx = match code {
            "a" | "{ax}" | "{eax}" | "{rax}" => 0,
            "c" | "{cx}" | "{ecx}" | "{rcx}" => 1,
            "d" | "{dx}" | "{edx}" | "{rdx}" => 2,
            "b" | "{bx}" | "{ebx}" | "{rbx}" => 3,
            "S" | "{si}" | "{esi}" | "{rsi}" => 6,
            "D" | "{di}" | "{edi}" | "{rdi}" => 7,
            _ => return None,
        };
        PReg::new(RegClass::Int, idx)
    }

    pub(super) fn asm_constraint(&self, code: &str, class: RegClass) -> R<C> {
        let code = code.trim_start_matches(['=', '+', '&', '*']);
        if let Some(r) = self.asm_reg(code) {
            if class != RegClass::Int {
                return Err(self.err(format!(
                    "asm constraint `{code}` names an integer register for a float value"
                )));
            }
            return Ok(C::FixedReg(r));
        }
        match code {
            "r" | "q" | "x" | "w" | "l" | "R" => Ok(C::Reg),
            "g" | "rm" | "mr" => Ok(C::Any),
            "m" | "o" | "V" | "p" | "Q" => Ok(C::Reg),
            _ => Err(self.err(format!(
                "asm constraint `{code}` is not supported by lowering"
            ))),
        }
    }

    pub(super) fn lower_asm(&mut self, i: Inst, asm: &crate::ir::InlineAsm) -> R<()> {
        if !asm.goto_labels.is_empty() {
            return Err(self.err("asm goto is not lowered (its labels would make it a terminator)"));
        }
        let mut defs: Vec<MOp> = Vec::new();
        let mut ties: Vec<Option<usize>> = Vec::new();
        let mut uses: Vec<MOp> = Vec::new();
        let mut n_result = 0;
        for out in &asm.outputs {
            match out.place {
                crate::ir::AsmOutputPlace::Result => {
                    let class = self.class(out.ty)?;
                    let d = self.result_or_dead(i, n_result, class)?;
                    n_result += 1;
                    let c = self.asm_constraint(&out.constraint, class)?;
                    let pos = if out.constraint.contains('&') {
                        OperandPos::Early
                    } else {
                        OperandPos::Late
                    };
                    defs.push(MOp::def(d, if c == C::Any { C::Reg } else { c }).at(pos));
                    ties.push(None);
                }
                crate::ir::AsmOutputPlace::Pointer(p) => {
                    let v = self.use_op(p)?;
                    uses.push(MOp::use_(v, C::Reg));
                }
            }
        }
        for input in &asm.inputs {
            let code = input.constraint.as_str();
            if matches!(code, "i" | "n" | "I" | "J" | "K" | "N" | "e" | "Z") {
                continue;
            }
            let v = self.use_op(input.value)?;
            if let Ok(k) = code.parse::<usize>() {
                let Some(t) = ties.get_mut(k) else {
                    return Err(self.err(format!(
                        "asm input tied to output {k}, which is not a register result"
                    )));
                };
                *t = Some(defs.len() + uses.len());
                uses.push(MOp::use_(v, C::Reg));
                continue;
            }
            let c = self.asm_constraint(code, v.class())?;
            uses.push(MOp::use_(v, c));
        }
        let mut ops = Operands::new();
        for (d, t) in defs.iter().zip(&ties) {
            match t {
                Some(u) => ops.push(MOp {
                    constraint: C::Reuse(*u as u8),
                    pos: OperandPos::Late,
                    ..*d
                }),
                None => ops.push(*d),
            }
        }
        ops.extend(uses);
        let mut clobbers = PRegSet::empty();
        for c in &asm.clobbers {
            let name = c.trim_start_matches('~').trim_matches(['{', '}']);
            if matches!(name, "memory" | "cc" | "dirflag" | "fpsr" | "flags") {
                continue;
            }
            match self.asm_reg(&format!("{{{name}}}")) {
                Some(r) => clobbers.insert(r),
                None => {
                    return Err(self.err(format!(
                        "asm clobber `{c}` is not a register lowering knows"
                    )))
                }
            }
        }
        for o in &ops {
            if let C::FixedReg(r) = o.constraint {
                if o.kind == crate::machine::OperandKind::Def || o.pos == OperandPos::Late {
                    clobbers.remove(r);
                }
            }
        }
        self.emit(MachineOp::imm(Opcode::Asm, i.index() as i64), ops, clobbers);
        Ok(())
    }
}

//! Lowering of arithmetic, comparisons, casts and selects on one-register values.

use super::{Lowerer, R};
use crate::ir::IrRead;
use crate::ir::{CastOp, Inst, InstKind, Operand, Type};
use crate::machine::function::{MachineOp, Opcode};
use crate::machine::targets::Arch;
use crate::machine::{Operand as MOp, OperandConstraint as C, OperandPos, VReg};
use crate::registers::{PReg, RegClass};
use smallvec::smallvec;

impl<'a, F: IrRead> Lowerer<'a, F> {
    /// Lowers `i` if it is arithmetic, a comparison, a cast, a select or a copy.
    pub(super) fn lower_arith(&mut self, i: Inst, kind: &InstKind) -> R<bool> {
        let two = self.t.two_address;
        match kind.clone() {
            InstKind::Binary { op, ty, lhs, rhs } => self.lower_binary(i, op, ty, lhs, rhs)?,
            InstKind::Unary { arg, ty, .. } => {
                let class = self.class(ty)?;
                let a = self.use_op(arg)?;
                let d = self.result_or_dead(i, 0, class)?;
                let dc = if two { C::Reuse(1) } else { C::Reg };
                self.emit1(
                    MachineOp::new(Opcode::FNeg),
                    smallvec![MOp::def(d, dc), MOp::use_(a, C::Reg)],
                );
            }
            InstKind::Icmp { pred, lhs, rhs, .. } => {
                self.compare(i, Opcode::Icmp, pred_pos_int(pred), lhs, rhs)?
            }
            InstKind::Fcmp { pred, lhs, rhs, .. } => {
                self.compare(i, Opcode::Fcmp, pred_pos_float(pred), lhs, rhs)?
            }
            InstKind::Cast { op, to, arg, .. } => {
                let a = self.use_op(arg)?;
                let class = self.class(to)?;
                let d = self.result_or_dead(i, 0, class)?;
                let suffix = crate::ir::CastOp::ALL
                    .iter()
                    .position(|c| *c == op)
                    .unwrap_or(0) as u8;
                let rm = self.rm();
                self.emit1(
                    MachineOp::new(Opcode::Cast).with_suffix(suffix),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(a, rm)],
                );
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                let class = self.class(ty)?;
                let c = self.use_op(cond)?;
                let t = self.use_op(if_true)?;
                let f = self.use_op(if_false)?;
                let d = self.result_or_dead(i, 0, class)?;
                let ops = if two {
                    // cmov/blend: d starts as the false value, the true value may be in memory.
                    let tc = if class == RegClass::Int {
                        C::Any
                    } else {
                        C::Reg
                    };
                    smallvec![
                        MOp::def(d, C::Reuse(3)),
                        MOp::use_(c, C::Reg),
                        MOp::use_(t, tc),
                        MOp::use_(f, C::Reg)
                    ]
                } else {
                    smallvec![
                        MOp::def(d, C::Reg),
                        MOp::use_(c, C::Reg),
                        MOp::use_(t, C::Reg),
                        MOp::use_(f, C::Reg)
                    ]
                };
                self.emit1(MachineOp::new(Opcode::Select), ops);
            }
            InstKind::Copy { ty, src } => {
                let class = self.class(ty)?;
                let s = self.use_op(src)?;
                let d = self.result_or_dead(i, 0, class)?;
                self.emit1(
                    MachineOp::new(Opcode::Mov),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(s, C::Any)],
                );
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `d = lhs <op> rhs`: two- or three-address ALU operations, shifts, division and
    /// remainder in the target's shape, `frem` as a call of `fmod`/`fmodf`.
    fn lower_binary(
        &mut self,
        i: Inst,
        op: crate::ir::BinaryOp,
        ty: Type,
        lhs: Operand,
        rhs: Operand,
    ) -> R<()> {
        let class = self.class(ty)?;
        let a = self.use_op(lhs)?;
        let b = self.use_op(rhs)?;
        let d = self.result_or_dead(i, 0, class)?;
        self.binary_regs(op, ty, d, a, b)
    }

    /// `d = a <op> b` on one-register values of type `ty` in vregs (the rules of
    /// [`Self::lower_binary`]; scalarized vector lanes use it too).
    pub(super) fn binary_regs(
        &mut self,
        op: crate::ir::BinaryOp,
        ty: Type,
        d: VReg,
        a: VReg,
        b: VReg,
    ) -> R<()> {
        let x86 = self.t.arch == Arch::X86_64;
        use crate::ir::BinaryOp as B;
        let code = match op {
            B::Add => Opcode::Add,
            B::Sub => Opcode::Sub,
            B::Mul => Opcode::Mul,
            B::And => Opcode::And,
            B::Or => Opcode::Or,
            B::Xor => Opcode::Xor,
            B::FAdd => Opcode::FAdd,
            B::FSub => Opcode::FSub,
            B::FMul => Opcode::FMul,
            B::FDiv => Opcode::FDiv,
            B::Shl | B::LShr | B::AShr => {
                let code = match op {
                    B::Shl => Opcode::Shl,
                    B::LShr => Opcode::LShr,
                    _ => Opcode::AShr,
                };
                self.shift(code, d, a, b);
                return Ok(());
            }
            B::SDiv | B::UDiv | B::SRem | B::URem => {
                let code = match op {
                    B::SDiv => Opcode::SDiv,
                    B::UDiv => Opcode::UDiv,
                    B::SRem => Opcode::SRem,
                    _ => Opcode::URem,
                };
                if x86 {
                    let rax = PReg::new(RegClass::Int, 0).expect("rax");
                    let rdx = PReg::new(RegClass::Int, 2).expect("rdx");
                    let rem = matches!(op, B::SRem | B::URem);
                    let other = self.new_vreg(RegClass::Int)?;
                    let (q, r) = if rem { (other, d) } else { (d, other) };
                    self.emit1(
                        MachineOp::new(code),
                        smallvec![
                            MOp::def(q, C::FixedReg(rax)),
                            MOp::def(r, C::FixedReg(rdx)).at(OperandPos::Early),
                            MOp::use_(a, C::FixedReg(rax)),
                            MOp::use_(b, C::Reg)
                        ],
                    );
                } else if matches!(op, B::SDiv | B::UDiv) {
                    self.alu(MachineOp::new(code), d, a, b);
                } else {
                    let div = if op == B::SRem {
                        Opcode::SDiv
                    } else {
                        Opcode::UDiv
                    };
                    let t = self.new_vreg(RegClass::Int)?;
                    self.alu(MachineOp::new(div), t, a, b);
                    self.emit1(
                        MachineOp::new(Opcode::MSub),
                        smallvec![
                            MOp::def(d, C::Reg),
                            MOp::use_(t, C::Reg),
                            MOp::use_(b, C::Reg),
                            MOp::use_(a, C::Reg)
                        ],
                    );
                }
                return Ok(());
            }
            B::FRem => {
                let name = if ty == Type::F32 { "fmodf" } else { "fmod" };
                self.libcall(name, &[a, b], &[d])?;
                return Ok(());
            }
        };
        self.alu(MachineOp::new(code), d, a, b);
        Ok(())
    }

    /// The constraint of an ALU instruction's second input.
    pub(super) fn rm(&self) -> C {
        if self.t.mem_operands {
            C::Any
        } else {
            C::Reg
        }
    }

    /// `def d, use a, use b` in the target's arithmetic shape.
    pub(super) fn alu(&mut self, op: MachineOp, d: VReg, a: VReg, b: VReg) {
        let ops = if self.t.two_address {
            smallvec![
                MOp::def(d, C::Reuse(1)),
                MOp::use_(a, C::Reg),
                MOp::use_(b, self.rm())
            ]
        } else {
            smallvec![
                MOp::def(d, C::Reg),
                MOp::use_(a, C::Reg),
                MOp::use_(b, C::Reg)
            ]
        };
        self.emit1(op, ops);
    }

    /// `d = a <shift> b`: x86-64 takes the count in rcx (two-address), aarch64 is an ALU op.
    pub(super) fn shift(&mut self, code: Opcode, d: VReg, a: VReg, b: VReg) {
        if self.t.arch == Arch::X86_64 {
            let rcx = PReg::new(RegClass::Int, 1).expect("rcx");
            self.emit1(
                MachineOp::new(code),
                smallvec![
                    MOp::def(d, C::Reuse(1)),
                    MOp::use_(a, C::Reg),
                    MOp::use_(b, C::FixedReg(rcx))
                ],
            );
        } else {
            self.alu(MachineOp::new(code), d, a, b);
        }
    }

    pub(super) fn mov(&mut self, d: VReg, s: VReg) {
        self.emit1(
            MachineOp::new(Opcode::Mov),
            smallvec![MOp::def(d, C::Reg), MOp::use_(s, C::Any)],
        );
    }

    pub(super) fn movi(&mut self, value: i64) -> R<VReg> {
        let d = self.new_vreg(RegClass::Int)?;
        self.emit1(
            MachineOp::imm(Opcode::MovImm, value),
            smallvec![MOp::def(d, C::Reg)],
        );
        Ok(d)
    }

    pub(super) fn cast1(&mut self, op: CastOp, d: VReg, a: VReg) {
        let suffix = CastOp::ALL.iter().position(|c| *c == op).unwrap_or(0) as u8;
        let rm = self.rm();
        self.emit1(
            MachineOp::new(Opcode::Cast).with_suffix(suffix),
            smallvec![MOp::def(d, C::Reg), MOp::use_(a, rm)],
        );
    }

    /// `a` extended to 64 bits when `from` is narrower (for a helper taking a 64-bit integer).
    pub(super) fn widen(&mut self, a: VReg, from: Type, signed: bool) -> R<VReg> {
        if from.bits() >= 64 {
            return Ok(a);
        }
        let w = self.new_vreg(RegClass::Int)?;
        self.cast1(if signed { CastOp::SExt } else { CastOp::ZExt }, w, a);
        Ok(w)
    }

    pub(super) fn compare(
        &mut self,
        i: Inst,
        code: Opcode,
        suffix: u8,
        lhs: Operand,
        rhs: Operand,
    ) -> R<()> {
        let a = self.use_op(lhs)?;
        let b = self.use_op(rhs)?;
        let d = self.result_or_dead(i, 0, RegClass::Int)?;
        let rm = self.rm();
        self.emit1(
            MachineOp::new(code).with_suffix(suffix),
            smallvec![MOp::def(d, C::Reg), MOp::use_(a, C::Reg), MOp::use_(b, rm)],
        );
        Ok(())
    }
}

pub(super) fn pred_pos_int(p: crate::ir::IntPredicate) -> u8 {
    crate::ir::IntPredicate::ALL
        .iter()
        .position(|x| *x == p)
        .unwrap_or(0) as u8
}

pub(super) fn pred_pos_float(p: crate::ir::FloatPredicate) -> u8 {
    crate::ir::FloatPredicate::ALL
        .iter()
        .position(|x| *x == p)
        .unwrap_or(0) as u8
}

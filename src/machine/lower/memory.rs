//! Lowering of frame slots, loads, stores, address arithmetic and atomics.

use super::{Lowerer, R};
use crate::ir::IrRead;
use crate::ir::{AtomicOp, Inst, InstKind, Operand, Type};
use crate::machine::function::{MachineOp, Opcode, Operands};
use crate::machine::targets::Arch;
use crate::machine::{Operand as MOp, OperandConstraint as C, OperandPos};
use crate::registers::RegClass;
use smallvec::smallvec;

pub(super) fn mem_suffix(ty: Type) -> u8 {
    let name = match ty {
        Type::Int(n) if n <= 8 => "i8",
        Type::Int(n) if n <= 16 => "i16",
        Type::Int(n) if n <= 32 => "i32",
        Type::Int(_) => "i64",
        Type::Void => "i8",
        Type::Vec(_) => {
            let bytes = ty.bits().div_ceil(8).clamp(1, 16);
            return mem_suffix_name(&format!("v{bytes}"));
        }
        other => return mem_suffix_name(&other.to_string()),
    };
    mem_suffix_name(name)
}

pub(super) fn mem_suffix_name(name: &str) -> u8 {
    crate::machine::function::MEM_TYPES
        .iter()
        .position(|n| *n == name)
        .unwrap_or(4) as u8
}

impl<'a, F: IrRead> Lowerer<'a, F> {
    /// Lowers `i` if it is a frame slot, a memory access, an address computation or an atomic.
    pub(super) fn lower_memory(&mut self, i: Inst, kind: &InstKind) -> R<bool> {
        match kind.clone() {
            InstKind::Alloca { size, align, .. } => {
                let slot = self.m.frame_slots.len() as i64;
                self.m.frame_slots.push((size, align));
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                self.emit1(
                    MachineOp::imm(Opcode::FrameAddr, slot),
                    smallvec![MOp::def(d, C::Reg)],
                );
            }
            InstKind::DynAlloca {
                count, elem_size, ..
            } => {
                let c = self.use_op(count)?;
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                self.emit1(
                    MachineOp::imm(Opcode::DynAlloca, elem_size as i64),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(c, C::Reg)],
                );
            }
            InstKind::Load { ty, ptr, .. } => {
                let class = self.class(ty)?;
                let p = self.use_op(ptr)?;
                let d = self.result_or_dead(i, 0, class)?;
                self.emit1(
                    MachineOp::imm(Opcode::Load, 0).with_suffix(mem_suffix(ty)),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(p, C::Reg)],
                );
            }
            InstKind::Store { ty, value, ptr, .. } => {
                self.class(ty)?;
                let v = self.use_op(value)?;
                let p = self.use_op(ptr)?;
                self.emit1(
                    MachineOp::imm(Opcode::Store, 0).with_suffix(mem_suffix(ty)),
                    smallvec![MOp::use_(v, C::Reg), MOp::use_(p, C::Reg)],
                );
            }
            InstKind::Gep {
                base,
                offset,
                indices,
            } => self.lower_gep(i, base, offset, &indices)?,
            InstKind::AtomicRmw {
                op, ty, ptr, value, ..
            } => self.lower_atomic_rmw(i, op, ty, ptr, value)?,
            InstKind::CmpXchg {
                ty,
                ptr,
                expected,
                new,
                ..
            } => self.lower_cmpxchg(i, ty, ptr, expected, new)?,
            InstKind::Fence { .. } => self.emit1(MachineOp::new(Opcode::Fence), Operands::new()),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Lowers `gep`: one `lea` for the base and constant offset, then per index a
    /// sign extension to 64 bits when narrower, a multiply when the scale is not an
    /// addressing-mode scale (1, 2, 4, 8), and an indexed `lea`; the last step defines
    /// the result.
    fn lower_gep(
        &mut self,
        i: Inst,
        base: Operand,
        offset: i64,
        indices: &[(Operand, i64)],
    ) -> R<()> {
        let mut acc = self.use_op(base)?;
        let d = self.result_or_dead(i, 0, RegClass::Int)?;
        let steps = indices.len() + 1;
        for k in 0..steps {
            let last = k + 1 == steps;
            let out = if last {
                d
            } else {
                self.new_vreg(RegClass::Int)?
            };
            if k == 0 {
                self.emit1(
                    MachineOp::imm(Opcode::Lea, offset),
                    smallvec![MOp::def(out, C::Reg), MOp::use_(acc, C::Reg)],
                );
            } else {
                let (idx, scale) = indices[k - 1];
                let ity = self.ir.operand_type(idx);
                let mut x = self.use_op(idx)?;
                if ity.bits() < 64 {
                    let w = self.new_vreg(RegClass::Int)?;
                    let sext = crate::ir::CastOp::ALL
                        .iter()
                        .position(|c| *c == crate::ir::CastOp::SExt)
                        .unwrap_or(0) as u8;
                    let rm = self.rm();
                    self.emit1(
                        MachineOp::new(Opcode::Cast).with_suffix(sext),
                        smallvec![MOp::def(w, C::Reg), MOp::use_(x, rm)],
                    );
                    x = w;
                }
                let mut sc = scale;
                if ![1, 2, 4, 8].contains(&scale) {
                    let w = self.new_vreg(RegClass::Int)?;
                    let rm = self.rm();
                    self.emit1(
                        MachineOp::imm(Opcode::MulImm, scale),
                        smallvec![MOp::def(w, C::Reg), MOp::use_(x, rm)],
                    );
                    x = w;
                    sc = 1;
                }
                self.emit1(
                    MachineOp::imm(Opcode::LeaIndex, sc),
                    smallvec![
                        MOp::def(out, C::Reg),
                        MOp::use_(acc, C::Reg),
                        MOp::use_(x, C::Reg)
                    ],
                );
            }
            acc = out;
        }
        Ok(())
    }

    /// Lowers `atomicrmw`: the old value in `rax` on x86-64 (the `lock xadd`/`cmpxchg`
    /// loop's register), an early def on aarch64 (the exclusive-pair loop must not reuse
    /// an input register), plus an early temporary.
    fn lower_atomic_rmw(
        &mut self,
        i: Inst,
        op: AtomicOp,
        ty: Type,
        ptr: Operand,
        value: Operand,
    ) -> R<()> {
        let x86 = self.t.arch == Arch::X86_64;
        let class = self.class(ty)?;
        let p = self.use_op(ptr)?;
        let v = self.use_op(value)?;
        let d = self.result_or_dead(i, 0, class)?;
        let t = self.new_vreg(class)?;
        let suffix = AtomicOp::ALL.iter().position(|o| *o == op).unwrap_or(0) as u8;
        let old = if x86 {
            MOp::def(d, C::FixedReg(self.t.int_ret))
        } else {
            MOp::def(d, C::Reg).at(OperandPos::Early)
        };
        self.emit1(
            MachineOp::new(Opcode::AtomicRmw).with_suffix(suffix),
            smallvec![
                old,
                MOp::def(t, C::Reg).at(OperandPos::Early),
                MOp::use_(p, C::Reg),
                MOp::use_(v, C::Reg)
            ],
        );
        Ok(())
    }

    /// Lowers `cmpxchg` to the old value and the success flag: on x86-64 the expected
    /// value and the old value in `rax` (`lock cmpxchg`), on aarch64 early defs.
    fn lower_cmpxchg(
        &mut self,
        i: Inst,
        ty: Type,
        ptr: Operand,
        expected: Operand,
        new: Operand,
    ) -> R<()> {
        let x86 = self.t.arch == Arch::X86_64;
        let class = self.class(ty)?;
        let p = self.use_op(ptr)?;
        let e = self.use_op(expected)?;
        let n = self.use_op(new)?;
        let old = self.result_or_dead(i, 0, class)?;
        let ok = self.result_or_dead(i, 1, RegClass::Int)?;
        let ops = if x86 {
            let rax = self.t.int_ret;
            smallvec![
                MOp::def(old, C::FixedReg(rax)),
                MOp::def(ok, C::Reg),
                MOp::use_(p, C::Reg),
                MOp::use_(e, C::FixedReg(rax)),
                MOp::use_(n, C::Reg)
            ]
        } else {
            smallvec![
                MOp::def(old, C::Reg).at(OperandPos::Early),
                MOp::def(ok, C::Reg).at(OperandPos::Early),
                MOp::use_(p, C::Reg),
                MOp::use_(e, C::Reg),
                MOp::use_(n, C::Reg)
            ]
        };
        self.emit1(MachineOp::new(Opcode::CmpXchg), ops);
        Ok(())
    }
}

//! Lowering of values of several register parts (aggregates, wide integers, `x86_fp80`).

use super::arith::{pred_pos_float, pred_pos_int};
use super::memory::mem_suffix;
use super::{Lowerer, Parts, R};
use crate::ir::IrRead;
use crate::ir::{CastOp, Inst, InstKind, Operand, Type};
use crate::machine::function::{MachineOp, Opcode};
use crate::machine::parts::{is_split, member_parts};
use crate::machine::{Operand as MOp, OperandConstraint as C, OperandPos, VReg};
use crate::registers::RegClass;
use smallvec::smallvec;

impl<'a, F: IrRead> Lowerer<'a, F> {
    /// Lowers `i` if it reads or makes a value of several parts ([`super::parts`]); false
    /// if it does not (the one-register rules apply).
    pub(super) fn lower_split(&mut self, i: Inst) -> R<bool> {
        match self.ir.inst_kind(i).clone() {
            InstKind::ExtractValue { ty, agg, index } => {
                let member = ty
                    .member(index as usize)
                    .map(|m| m.0)
                    .ok_or_else(|| self.err(format!("{ty} has no member {index}")))?;
                let range = member_parts(ty, index as usize)
                    .ok_or_else(|| self.err(format!("{ty} has no member {index}")))?;
                let a = self.use_parts(agg)?;
                let d = self.result_parts(i, 0, member)?;
                for (k, &dk) in d.iter().enumerate() {
                    let src = *a
                        .get(range.start + k)
                        .ok_or_else(|| self.err("aggregate operand has too few parts"))?;
                    self.mov(dk, src);
                }
            }
            InstKind::InsertValue {
                ty,
                agg,
                value,
                index,
            } => {
                let range = member_parts(ty, index as usize)
                    .ok_or_else(|| self.err(format!("{ty} has no member {index}")))?;
                let a = self.use_parts(agg)?;
                let v = self.use_parts(value)?;
                let d = self.result_parts(i, 0, ty)?;
                if a.len() != d.len() || v.len() != range.len() {
                    return Err(self.err("insertvalue operands do not match the type's parts"));
                }
                for (k, &dk) in d.iter().enumerate() {
                    let src = if range.contains(&k) {
                        v[k - range.start]
                    } else {
                        a[k]
                    };
                    self.mov(dk, src);
                }
            }
            InstKind::Binary { op, ty, lhs, rhs } if is_split(ty) => {
                self.lower_split_binary(i, op, ty, lhs, rhs)?
            }
            InstKind::Unary { ty, arg, .. } if is_split(ty) => {
                if ty != Type::F80 {
                    return Err(self.err(format!("fneg on {ty}")));
                }
                let a = self.use_parts(arg)?;
                let d = self.result_parts(i, 0, ty)?;
                self.mov(d[0], a[0]);
                let sign = self.movi(0x8000)?;
                self.alu(MachineOp::new(Opcode::Xor), d[1], a[1], sign);
            }
            InstKind::Icmp {
                pred, ty, lhs, rhs, ..
            } if is_split(ty) => {
                let a = self.use_parts(lhs)?;
                let b = self.use_parts(rhs)?;
                if a.len() != 2 || b.len() != 2 {
                    return Err(self.err(format!("icmp on {ty} is not lowered")));
                }
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                let t = self.new_vreg(RegClass::Int)?;
                self.emit1(
                    MachineOp::new(Opcode::Icmp2).with_suffix(pred_pos_int(pred)),
                    smallvec![
                        MOp::def(d, C::Reg),
                        MOp::def(t, C::Reg).at(OperandPos::Early),
                        MOp::use_(a[0], C::Reg),
                        MOp::use_(a[1], C::Reg),
                        MOp::use_(b[0], C::Reg),
                        MOp::use_(b[1], C::Reg)
                    ],
                );
            }
            InstKind::Fcmp {
                pred, ty, lhs, rhs, ..
            } if is_split(ty) => {
                let a = self.use_parts(lhs)?;
                let b = self.use_parts(rhs)?;
                let p = self.movi(pred_pos_float(pred) as i64)?;
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                let args: Vec<VReg> = a.iter().chain(&b).copied().chain([p]).collect();
                self.libcall("__cmpxf2", &args, &[d])?;
            }
            InstKind::Cast { op, from, to, arg } if is_split(from) || is_split(to) => {
                self.lower_split_cast(i, op, from, to, arg)?;
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } if is_split(ty) => {
                let c = self.use_op(cond)?;
                let t = self.use_parts(if_true)?;
                let f = self.use_parts(if_false)?;
                let d = self.result_parts(i, 0, ty)?;
                self.select_parts(c, &t, &f, &d);
            }
            InstKind::Load { ty, ptr, .. } if is_split(ty) => self.load_parts(i, ty, ptr)?,
            InstKind::Store { ty, value, ptr, .. } if is_split(ty) => {
                self.store_parts(ty, value, ptr)?
            }
            InstKind::Copy { ty, src } if is_split(ty) => {
                let s = self.use_parts(src)?;
                let d = self.result_parts(i, 0, ty)?;
                for (&dk, &sk) in d.iter().zip(&s) {
                    self.mov(dk, sk);
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Binary arithmetic on a value of several parts: `x86_fp80` through soft-float helper
    /// calls, two-part integers by carry/borrow chains (add, sub), part-wise logic, and
    /// helper calls for multiply, divide, remainder and shifts.
    fn lower_split_binary(
        &mut self,
        i: Inst,
        op: crate::ir::BinaryOp,
        ty: Type,
        lhs: Operand,
        rhs: Operand,
    ) -> R<()> {
        use crate::ir::BinaryOp as B;
        let a = self.use_parts(lhs)?;
        let b = self.use_parts(rhs)?;
        let d = self.result_parts(i, 0, ty)?;
        let both: Vec<VReg> = a.iter().chain(&b).copied().collect();
        if ty == Type::F80 {
            let name = match op {
                B::FAdd => "__addxf3",
                B::FSub => "__subxf3",
                B::FMul => "__mulxf3",
                B::FDiv => "__divxf3",
                B::FRem => "fmodl",
                _ => return Err(self.err(format!("{op:?} on x86_fp80"))),
            };
            return self.libcall(name, &both, &d);
        }
        if ty.is_aggregate() || a.len() != 2 || b.len() != 2 || d.len() != 2 {
            return Err(self.err(format!("arithmetic on {ty} is not lowered")));
        }
        match op {
            B::Add | B::Sub => {
                let (lo, hi) = if op == B::Add {
                    (Opcode::Add, Opcode::AddCarry)
                } else {
                    (Opcode::Sub, Opcode::SubBorrow)
                };
                self.alu(MachineOp::new(lo), d[0], a[0], b[0]);
                self.alu(MachineOp::new(hi), d[1], a[1], b[1]);
            }
            B::And | B::Or | B::Xor => {
                let code = match op {
                    B::And => Opcode::And,
                    B::Or => Opcode::Or,
                    _ => Opcode::Xor,
                };
                self.alu(MachineOp::new(code), d[0], a[0], b[0]);
                self.alu(MachineOp::new(code), d[1], a[1], b[1]);
            }
            B::Mul | B::SDiv | B::UDiv | B::SRem | B::URem => {
                let name = match op {
                    B::Mul => "__multi3",
                    B::SDiv => "__divti3",
                    B::UDiv => "__udivti3",
                    B::SRem => "__modti3",
                    _ => "__umodti3",
                };
                self.libcall(name, &both, &d)?;
            }
            B::Shl | B::LShr | B::AShr => {
                let name = match op {
                    B::Shl => "__ashlti3",
                    B::LShr => "__lshrti3",
                    _ => "__ashrti3",
                };
                self.libcall(name, &[a[0], a[1], b[0]], &d)?;
            }
            _ => return Err(self.err(format!("{op:?} on {ty}"))),
        }
        Ok(())
    }

    /// `d = c ? t : f` part by part on an `i1` condition (a `select` per part: x86-64 `cmov`
    /// or a blend starting from the false value, the true value of an integer part may be in
    /// memory; aarch64 `csel`/`fcsel`).
    pub(super) fn select_parts(&mut self, c: VReg, t: &[VReg], f: &[VReg], d: &[VReg]) {
        for k in 0..d.len() {
            let ops = if self.t.two_address {
                let tc = if d[k].class() == RegClass::Int {
                    C::Any
                } else {
                    C::Reg
                };
                smallvec![
                    MOp::def(d[k], C::Reuse(3)),
                    MOp::use_(c, C::Reg),
                    MOp::use_(t[k], tc),
                    MOp::use_(f[k], C::Reg)
                ]
            } else {
                smallvec![
                    MOp::def(d[k], C::Reg),
                    MOp::use_(c, C::Reg),
                    MOp::use_(t[k], C::Reg),
                    MOp::use_(f[k], C::Reg)
                ]
            };
            self.emit1(MachineOp::new(Opcode::Select), ops);
        }
    }

    /// The result of `i`, a load of type `ty` from `ptr`: one load per part at its offset.
    pub(super) fn load_parts(&mut self, i: Inst, ty: Type, ptr: Operand) -> R<()> {
        let p = self.use_op(ptr)?;
        let d = self.result_parts(i, 0, ty)?;
        for (part, &dk) in self.layout(ty)?.iter().zip(&d) {
            self.emit1(
                MachineOp::imm(Opcode::Load, part.offset as i64).with_suffix(mem_suffix(part.mem)),
                smallvec![MOp::def(dk, C::Reg), MOp::use_(p, C::Reg)],
            );
        }
        Ok(())
    }

    /// A store of `value` of type `ty` to `ptr`: one store per part at its offset.
    pub(super) fn store_parts(&mut self, ty: Type, value: Operand, ptr: Operand) -> R<()> {
        let v = self.use_parts(value)?;
        let p = self.use_op(ptr)?;
        for (part, &vk) in self.layout(ty)?.iter().zip(&v) {
            self.emit1(
                MachineOp::imm(Opcode::Store, part.offset as i64).with_suffix(mem_suffix(part.mem)),
                smallvec![MOp::use_(vk, C::Reg), MOp::use_(p, C::Reg)],
            );
        }
        Ok(())
    }

    /// A conversion from or to a type of several parts (see [`super::parts`]).
    pub(super) fn lower_split_cast(
        &mut self,
        i: Inst,
        op: CastOp,
        from: Type,
        to: Type,
        arg: Operand,
    ) -> R<()> {
        let a = self.use_parts(arg)?;
        let d = self.result_parts(i, 0, to)?;
        let signed = matches!(op, CastOp::SiToFp | CastOp::FpToSi);
        let wide_from = from != Type::F80 && is_split(from);
        let wide_to = to != Type::F80 && is_split(to);
        match op {
            CastOp::FpExt | CastOp::FpTrunc => {
                let name = match (from, to) {
                    (Type::F32, Type::F80) => "__extendsfxf2",
                    (Type::F64, Type::F80) => "__extenddfxf2",
                    (Type::F80, Type::F32) => "__truncxfsf2",
                    (Type::F80, Type::F64) => "__truncxfdf2",
                    _ => return Err(self.err(format!("{op:?} from {from} to {to}"))),
                };
                self.libcall(name, &a, &d)
            }
            CastOp::SiToFp | CastOp::UiToFp => {
                let name = match (wide_from, to, signed) {
                    (true, Type::F80, true) => "__floattixf",
                    (true, Type::F80, false) => "__floatuntixf",
                    (false, Type::F80, true) => "__floatdixf",
                    (false, Type::F80, false) => "__floatundixf",
                    (true, Type::F32, true) => "__floattisf",
                    (true, Type::F64, true) => "__floattidf",
                    (true, Type::F32, false) => "__floatuntisf",
                    (true, Type::F64, false) => "__floatuntidf",
                    _ => return Err(self.err(format!("{op:?} from {from} to {to}"))),
                };
                let args: Parts = if wide_from {
                    a
                } else {
                    smallvec![self.widen(a[0], from, signed)?]
                };
                self.libcall(name, &args, &d)
            }
            CastOp::FpToSi | CastOp::FpToUi => {
                let name = match (from, wide_to, signed) {
                    (Type::F80, true, true) => "__fixxfti",
                    (Type::F80, true, false) => "__fixunsxfti",
                    (Type::F80, false, true) => "__fixxfdi",
                    (Type::F80, false, false) => "__fixunsxfdi",
                    (Type::F32, true, true) => "__fixsfti",
                    (Type::F64, true, true) => "__fixdfti",
                    (Type::F32, true, false) => "__fixunssfti",
                    (Type::F64, true, false) => "__fixunsdfti",
                    _ => return Err(self.err(format!("{op:?} from {from} to {to}"))),
                };
                // A narrower result is the low bits of the helper's 64-bit one.
                self.libcall(name, &a, &d)
            }
            _ => {
                // Integer-like: truncation, extension, pointer casts and bitcasts of equal
                // width (f80 <-> i80 is a pair of integer parts both ways).
                match (a.len(), d.len()) {
                    (n, m) if n == m && a.iter().zip(&d).all(|(x, y)| x.class() == y.class()) => {
                        for (&dk, &ak) in d.iter().zip(&a) {
                            self.mov(dk, ak);
                        }
                    }
                    (2, 1) => self.cast1(op, d[0], a[0]),
                    (1, 2) => {
                        let lo_op = if op == CastOp::SExt {
                            CastOp::SExt
                        } else {
                            CastOp::ZExt
                        };
                        if from.bits() < 64 || matches!(op, CastOp::Bitcast) {
                            self.cast1(lo_op, d[0], a[0]);
                        } else {
                            self.mov(d[0], a[0]);
                        }
                        if op == CastOp::SExt {
                            let c = self.movi(63)?;
                            self.shift(Opcode::AShr, d[1], d[0], c);
                        } else {
                            self.emit1(
                                MachineOp::imm(Opcode::MovImm, 0),
                                smallvec![MOp::def(d[1], C::Reg)],
                            );
                        }
                    }
                    _ => return Err(self.err(format!("{op:?} from {from} to {to} is not lowered"))),
                }
                Ok(())
            }
        }
    }
}

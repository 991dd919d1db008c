//! Lowering of lane access: `extractelement`, `insertelement` and `shufflevector`.
//!
//! - A constant lane index picks the part (`lane / per_part`) and the lane in it:
//!   `vextract.<shape> #j` into a scalar register of the lane's class and
//!   `vinsert.<shape> #j` (result tied to the vector, two-address on both targets: NEON
//!   `ins`/`umov`, SSE2 `pinsrw`/`pextrw` for 16-bit lanes, `movsd`/`unpcklpd` for `f64`;
//!   the other SSE2 shapes need a sequence, so x86-64 adds an early scratch def to an
//!   `i8`/`i32`/`i64`/`f32` insert and to an integer extract of a lane other than 0); the
//!   other parts are moved. An `i128` lane is a whole part: two `i64` lane moves. An index
//!   past the last lane reads zero and writes nothing (LLVM: poison).
//! - A variable index goes **through a stack temporary**: the parts are stored to a
//!   16-byte aligned frame slot of their own, the index (zero-extended, masked to the next
//!   power of two of the lane count so that the access stays inside the slot) scales to
//!   the lane's container, and the lane is loaded, or stored and the parts reloaded.
//! - `shufflevector` is one `vshuffle` per result part, whose immediate names the IR
//!   instruction and the part (the mask is the IR's constant), with the source parts the
//!   part's lanes read as register uses, an early result and early scratch defs (two on
//!   x86-64: SSE2 has no byte shuffle, emission combines `pshufd`/`shufps`/`punpck*`/
//!   `pshuflw`/`pshufhw` with masks; one on aarch64 for the `tbl` index vector); a part that
//!   is a source part unchanged is a `mov`, a part of undefined lanes a `vconst #-1`.
//!
//! `i1` lanes (lane masks) extract to 0/1 and insert from 0/1 (all ones or zero in the
//! container).
//!
//! Complexity: O(parts + lanes) per instruction.

use super::vector::shape;
use super::{Lowerer, Parts, R};
use crate::ir::IrRead;
use crate::ir::{CastOp, Const, Inst, Operand, Type};
use crate::machine::function::{MachineOp, Opcode, Operands};
use crate::machine::parts::VectorForm;
use crate::machine::targets::Arch;
use crate::machine::{Operand as MOp, OperandConstraint as C, OperandPos, VReg};
use crate::registers::RegClass;
use smallvec::smallvec;

impl<'a, F: IrRead> Lowerer<'a, F> {
    /// `d = lane j of part v` (the lane's scalar class).
    pub(super) fn lane_extract(&mut self, form: VectorForm, d: VReg, v: VReg, j: u32) -> R<()> {
        let sh = shape(form);
        let mut ops: Operands = smallvec![MOp::def(d, C::Reg), MOp::use_(v, C::Reg)];
        if self.t.arch == Arch::X86_64 && d.class() == RegClass::Int && j != 0 && sh != 1 {
            let t = self.new_vreg(RegClass::Float)?;
            ops.push(MOp::def(t, C::Reg).at(OperandPos::Early));
        }
        self.emit1(
            MachineOp::imm(Opcode::VExtract, j as i64).with_suffix(sh),
            ops,
        );
        Ok(())
    }

    /// `d = part v with lane j replaced by scalar s`.
    pub(super) fn lane_insert(
        &mut self,
        form: VectorForm,
        d: VReg,
        v: VReg,
        s: VReg,
        j: u32,
    ) -> R<()> {
        let sh = shape(form);
        self.mark_wide(d);
        let mut ops: Operands = smallvec![
            MOp::def(d, C::Reuse(1)),
            MOp::use_(v, C::Reg),
            MOp::use_(s, C::Reg)
        ];
        if self.t.arch == Arch::X86_64 && !matches!(sh, 1 | 5) {
            let t = self.new_vreg(RegClass::Float)?;
            ops.push(MOp::def(t, C::Reg).at(OperandPos::Early));
        }
        self.emit1(
            MachineOp::imm(Opcode::VInsert, j as i64).with_suffix(sh),
            ops,
        );
        Ok(())
    }

    /// The lane index of constant operand `index` (`None` for a value or an undefined
    /// constant: the caller goes through memory, or reads any lane).
    fn const_index(&self, index: Operand) -> Option<u128> {
        match index {
            Operand::Const(c) => match self.ir.consts().try_get(c)?.kind {
                crate::ir::ConstKind::Int(v) => Some(v),
                _ => Some(0),
            },
            Operand::Value(_) => None,
        }
    }

    pub(super) fn extract_element(
        &mut self,
        i: Inst,
        ty: Type,
        vec: Operand,
        index: Operand,
    ) -> R<()> {
        let form = self.vform(ty)?;
        let v = self.use_parts(vec)?;
        let d = self.result_parts(i, 0, form.elem)?;
        let Some(lane) = self.const_index(index) else {
            return self.extract_through_memory(form, &v, index, &d);
        };
        if lane >= form.lanes as u128 {
            for &dk in &d {
                let op = match dk.class() {
                    RegClass::Int => MachineOp::imm(Opcode::MovImm, 0),
                    _ => MachineOp::imm(Opcode::FConst, 0),
                };
                self.emit1(op, smallvec![MOp::def(dk, C::Reg)]);
            }
            return Ok(());
        }
        let lane = lane as u32;
        let (p, j) = ((lane / form.per_part) as usize, lane % form.per_part);
        if form.width == 128 {
            for (k, &dk) in d.iter().enumerate() {
                self.emit1(
                    MachineOp::imm(Opcode::VExtract, k as i64).with_suffix(3),
                    smallvec![MOp::def(dk, C::Reg), MOp::use_(v[p], C::Reg)],
                );
            }
            return Ok(());
        }
        self.lane_extract(form, d[0], v[p], j)
    }

    pub(super) fn insert_element(
        &mut self,
        i: Inst,
        ty: Type,
        vec: Operand,
        value: Operand,
        index: Operand,
    ) -> R<()> {
        let form = self.vform(ty)?;
        let v = self.use_parts(vec)?;
        let s = self.use_parts(value)?;
        let d = self.result_parts(i, 0, ty)?;
        let Some(lane) = self.const_index(index) else {
            return self.insert_through_memory(form, &v, &s, index, &d);
        };
        let target = (lane < form.lanes as u128).then(|| (lane as u32 / form.per_part) as usize);
        for k in 0..d.len() {
            if Some(k) != target {
                self.mov(d[k], v[k]);
            }
        }
        let Some(p) = target else { return Ok(()) };
        let j = lane as u32 % form.per_part;
        if form.width == 128 {
            let half = self.new_wide_vreg()?;
            let lo = MachineOp::imm(Opcode::VInsert, 0).with_suffix(3);
            let hi = MachineOp::imm(Opcode::VInsert, 1).with_suffix(3);
            self.emit1(
                lo,
                smallvec![
                    MOp::def(half, C::Reuse(1)),
                    MOp::use_(v[p], C::Reg),
                    MOp::use_(s[0], C::Reg)
                ],
            );
            self.emit1(
                hi,
                smallvec![
                    MOp::def(d[p], C::Reuse(1)),
                    MOp::use_(half, C::Reg),
                    MOp::use_(s[1], C::Reg)
                ],
            );
            return Ok(());
        }
        self.lane_insert(form, d[p], v[p], s[0], j)
    }

    /// Stores the parts `v` to a frame slot of their own; returns the slot's address and the
    /// address of lane `index` in it.
    fn lane_address(&mut self, form: VectorForm, v: &Parts, index: Operand) -> R<(VReg, VReg)> {
        let span = form.lanes.next_power_of_two();
        let bytes = (form.parts * 16).max(span * form.width / 8);
        let slot = self.m.frame_slots.len() as i64;
        self.m.frame_slots.push((bytes, 16));
        let base = self.new_vreg(RegClass::Int)?;
        self.emit1(
            MachineOp::imm(Opcode::FrameAddr, slot),
            smallvec![MOp::def(base, C::Reg)],
        );
        let v16 = super::memory::mem_suffix_name("v16");
        for (k, &vk) in v.iter().enumerate() {
            self.emit1(
                MachineOp::imm(Opcode::Store, 16 * k as i64).with_suffix(v16),
                smallvec![MOp::use_(vk, C::Reg), MOp::use_(base, C::Reg)],
            );
        }
        let ity = self.ir.operand_type(index);
        let mut idx = self.use_op(index)?;
        if ity.bits() < 64 {
            let w = self.new_vreg(RegClass::Int)?;
            self.cast1(CastOp::ZExt, w, idx);
            idx = w;
        }
        let m = self.movi(span as i64 - 1)?;
        let masked = self.new_vreg(RegClass::Int)?;
        self.alu(MachineOp::new(Opcode::And), masked, idx, m);
        let mut scale = (form.width / 8) as i64;
        let mut x = masked;
        if scale > 8 {
            x = self.new_vreg(RegClass::Int)?;
            let rm = self.rm();
            self.emit1(
                MachineOp::imm(Opcode::MulImm, scale),
                smallvec![MOp::def(x, C::Reg), MOp::use_(masked, rm)],
            );
            scale = 1;
        }
        let addr = self.new_vreg(RegClass::Int)?;
        self.emit1(
            MachineOp::imm(Opcode::LeaIndex, scale),
            smallvec![
                MOp::def(addr, C::Reg),
                MOp::use_(base, C::Reg),
                MOp::use_(x, C::Reg)
            ],
        );
        Ok((base, addr))
    }

    /// The memory type of a lane's container.
    fn container(form: VectorForm) -> Type {
        if form.elem.is_float() {
            form.elem
        } else {
            Type::int(form.width.min(64)).unwrap_or(Type::I64)
        }
    }

    fn extract_through_memory(
        &mut self,
        form: VectorForm,
        v: &Parts,
        index: Operand,
        d: &Parts,
    ) -> R<()> {
        let (_, addr) = self.lane_address(form, v, index)?;
        let mem = super::memory::mem_suffix(Self::container(form));
        let masks = form.elem == Type::I1;
        for (k, &dk) in d.iter().enumerate() {
            let out = if masks {
                self.new_vreg(RegClass::Int)?
            } else {
                dk
            };
            self.emit1(
                MachineOp::imm(Opcode::Load, 8 * k as i64).with_suffix(mem),
                smallvec![MOp::def(out, C::Reg), MOp::use_(addr, C::Reg)],
            );
            if masks {
                let one = self.movi(1)?;
                self.alu(MachineOp::new(Opcode::And), dk, out, one);
            }
        }
        Ok(())
    }

    fn insert_through_memory(
        &mut self,
        form: VectorForm,
        v: &Parts,
        s: &Parts,
        index: Operand,
        d: &Parts,
    ) -> R<()> {
        let (base, addr) = self.lane_address(form, v, index)?;
        let mem = super::memory::mem_suffix(Self::container(form));
        for (k, &sk) in s.iter().enumerate() {
            let value = if form.elem == Type::I1 {
                let zero = self.movi(0)?;
                let m = self.new_vreg(RegClass::Int)?;
                self.alu(MachineOp::new(Opcode::Sub), m, zero, sk);
                m
            } else {
                sk
            };
            self.emit1(
                MachineOp::imm(Opcode::Store, 8 * k as i64).with_suffix(mem),
                smallvec![MOp::use_(value, C::Reg), MOp::use_(addr, C::Reg)],
            );
        }
        let v16 = super::memory::mem_suffix_name("v16");
        for (k, &dk) in d.iter().enumerate() {
            self.emit1(
                MachineOp::imm(Opcode::Load, 16 * k as i64).with_suffix(v16),
                smallvec![MOp::def(dk, C::Reg), MOp::use_(base, C::Reg)],
            );
        }
        Ok(())
    }

    pub(super) fn shuffle(
        &mut self,
        i: Inst,
        ty: Type,
        result: Type,
        a: Operand,
        b: Operand,
        mask: Const,
    ) -> R<()> {
        let sform = self.vform(ty)?;
        let rform = self.vform(result)?;
        let lanes = self
            .const_lanes(mask)
            .ok_or_else(|| self.err("the shufflevector mask is not in the constant pool"))?;
        let ap = self.use_parts(a)?;
        let bp = self.use_parts(b)?;
        let d = self.result_parts(i, 0, result)?;
        let n = sform.lanes as u128;
        let x86 = self.t.arch == Arch::X86_64;
        for (k, &dk) in d.iter().enumerate() {
            let start = k * rform.per_part as usize;
            let end = start + rform.part_lanes(k as u32) as usize;
            let mut srcs: Parts = Parts::new();
            let mut in_place = true;
            for (j, m) in lanes[start.min(lanes.len())..end.min(lanes.len())]
                .iter()
                .enumerate()
            {
                let Some(m) = *m else { continue };
                if m >= 2 * n {
                    continue;
                }
                let (parts, lane) = if m < n { (&ap, m) } else { (&bp, m - n) };
                let lane = lane as u32;
                let src = parts[(lane / sform.per_part) as usize];
                in_place &= lane % sform.per_part == j as u32;
                if !srcs.contains(&src) {
                    srcs.push(src);
                }
            }
            match srcs.as_slice() {
                [] => self.emit1(
                    MachineOp::imm(Opcode::VConst, -1),
                    smallvec![MOp::def(dk, C::Reg)],
                ),
                [src] if in_place => self.mov(dk, *src),
                _ => {
                    let early = OperandPos::Early;
                    let mut ops: Operands = smallvec![MOp::def(dk, C::Reg).at(early)];
                    for _ in 0..if x86 { 2 } else { 1 } {
                        let t = self.new_vreg(RegClass::Float)?;
                        ops.push(MOp::def(t, C::Reg).at(early));
                    }
                    for &s in &srcs {
                        ops.push(MOp::use_(s, C::Reg));
                    }
                    let imm = ((i.index() as i64) << 8) | k as i64;
                    self.emit1(
                        MachineOp::imm(Opcode::VShuffle, imm).with_suffix(shape(rform)),
                        ops,
                    );
                }
            }
        }
        Ok(())
    }
}

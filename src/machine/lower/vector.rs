//! Lowering of vector values: lane-wise arithmetic, comparisons, selects, casts, loads,
//! stores and copies (lane access and shuffles are in `lanes`).
//!
//! Register form ([`crate::machine::parts::vector_form`]): a vector is one float-class vreg
//! per 128-bit part (xmm / v registers); each machine operation acts on one part, suffixed
//! by the lane shape of the part's containers (`vadd.i32x4`, `vfcmp.olt.f64x2`). Rules:
//! - element-wise `add sub mul fadd fsub fmul fdiv and or xor` are one `vadd`/`vsub`/...
//!   per part, two-address on x86-64 (`def d:reuse(1)`, SSE2 `paddd`, `mulps`, ...) and
//!   three-address on aarch64 (NEON); SSE2 has no `i8`, `i32` or `i64` lane product, so
//!   `vmul` of those shapes carries two early scratch defs on x86-64 (the `pmuludq` and
//!   unpack sequence); NEON has no `i64` lane product: it is scalarized (below);
//! - shifts by a splat constant are `vshli`/`vlshri`/`vashri #count` (an early scratch for
//!   SSE2's arithmetic shift of bytes or 64-bit lanes, a sequence); by a vector of counts,
//!   aarch64 `ushl`/`sshl` (`vshl`, and `vlshr`/`vashr` with an early scratch for the
//!   negated counts), x86-64 scalarized (SSE2 shifts all lanes by one count);
//! - integer division and remainder (neither SSE2 nor NEON has them) and `frem` are
//!   **scalarized**: per lane `vextract` both operands, the scalar rule of the lane type
//!   (x86-64 `div` with rax/rdx, `fmod` calls, ...), `vinsert` into the result;
//! - `icmp`/`fcmp` give a lane mask in the operands' shape (SSE2 `pcmpeq`/`pcmpgt` and
//!   `cmpps` with swapped operands where the predicate needs it, two-address; other
//!   predicates and `i64` lanes, which SSE2 cannot compare directly, a sequence with an
//!   early result and an early scratch; NEON `cmeq`/`cmgt`/`cmhi`/`fcmge`..., `ord`, `uno`,
//!   `ueq` and `one` with an early scratch); when the `<N x i1>` result's register form has
//!   other containers (`icmp <4 x i16>` gives `<4 x i1>`, 32-bit masks) a `vcast.sext`
//!   or `vcast.trunc` converts the masks;
//! - `select` on a lane mask is `vselect` per part after converting the mask to the
//!   values' containers (SSE2 `pand`/`pandn`/`por`: result tied to the mask, early scratch;
//!   NEON `bsl`: result tied to the mask); on an `i1` condition it is the scalar `select`
//!   per part;
//! - casts: a bitcast (or `ptrtoint`/`inttoptr`) between values of the same parts in the
//!   same classes without lane masks, and a bitcast between a float scalar and a one-part
//!   vector, is a `mov` per part; conversions between floats and 64-bit integer lanes on
//!   x86-64 (SSE2 has none) are scalarized; every other conversion is one `vcast` from all
//!   source parts to all result parts (early defs; an early scratch on x86-64 except for
//!   bitcasts, for SSE2's unpack-and-shift extensions and unsigned conversions, and on both
//!   targets for a bitcast between lane masks and bits, which needs a constant of lane
//!   bits: `pmovmskb`-like on x86-64, `and` plus `addv` on aarch64);
//! - loads and stores are one `load`/`store` per part of the part's bytes (`load.v16`,
//!   unaligned forms: `movdqu`, `ldr q`); a copy is a `mov` per part; constants are one
//!   `vconst` per part;
//! - fneg is `vfneg` (x86-64: `xorps` with a sign mask in an early scratch).
//!
//! An `i128` lane is a whole part: arithmetic moves its halves to a register pair and uses
//! the pair rules of [`crate::machine::parts`] (`add`/`adc`, `__multi3`, ...).
//!
//! Refused with an error naming the instruction: lanes of `x86_fp80`, comparisons of `i128`
//! lanes, vectors of addresses in `getelementptr`, vector atomics and
//! vector inline-asm operands.
//!
//! Complexity: O(parts) machine instructions per instruction, O(lanes) when scalarized.

use super::{Lowerer, Parts, R};
use crate::ir::IrRead;
use crate::ir::{BinaryOp, CastOp, ConstKind, Inst, InstKind, Operand, Type};
use crate::machine::function::{MachineOp, Opcode, Operands};
use crate::machine::parts::{vector_form, VectorForm};
use crate::machine::targets::Arch;
use crate::machine::{Operand as MOp, OperandConstraint as C, VReg};
use crate::registers::RegClass;
use smallvec::smallvec;

/// Index into [`crate::machine::function::LANE_SHAPES`] of containers of `width` bits,
/// float or not.
pub(super) fn shape_of(float: bool, width: u32) -> u8 {
    match (float, width) {
        (true, 32) => 4,
        (true, _) => 5,
        (false, 8) => 0,
        (false, 16) => 1,
        (false, 32) => 2,
        _ => 3,
    }
}

/// The lane shape of a register form.
pub(super) fn shape(form: VectorForm) -> u8 {
    shape_of(form.elem.is_float(), form.width)
}

/// The form of `lanes` lane masks in containers of `width` bits.
fn mask_form(lanes: u32, width: u32) -> VectorForm {
    let per_part = 128 / width;
    VectorForm {
        lanes,
        elem: Type::I1,
        width,
        per_part,
        parts: lanes.div_ceil(per_part),
    }
}

impl<'a, F: IrRead> Lowerer<'a, F> {
    /// The register form of vector type `ty` (an error for `x86_fp80` lanes or a type that
    /// is no vector).
    pub(super) fn vform(&self, ty: Type) -> R<VectorForm> {
        match vector_form(ty) {
            Some(f) if f.elem != Type::F80 => Ok(f),
            Some(_) => Err(self.err(format!("vectors of x86_fp80 lanes ({ty}) are not lowered"))),
            None => Err(self.err(format!("{ty} is not a vector type"))),
        }
    }

    /// Whether `i` defines or reads a vector value.
    fn involves_vector(&self, i: Inst) -> bool {
        let ir = self.ir;
        let mut vector = ir
            .inst_results(i)
            .iter()
            .any(|&v| ir.values()[v.index()].ty.is_vector());
        ir.inst_kind(i)
            .for_each_operand(|o| vector |= ir.operand_type(o).is_vector());
        vector
    }

    /// Lowers `i` if it defines or reads a vector value and is not a call, an opaque
    /// operation or a terminator (those pass vector parts like any parts); false otherwise.
    pub(super) fn lower_vector(&mut self, i: Inst) -> R<bool> {
        if !self.involves_vector(i) {
            return Ok(false);
        }
        match self.ir.inst_kind(i).clone() {
            InstKind::Binary { op, ty, lhs, rhs } if ty.is_vector() => {
                self.vector_binary(i, op, ty, lhs, rhs)?
            }
            InstKind::Unary { ty, arg, .. } if ty.is_vector() => {
                let form = self.vform(ty)?;
                let a = self.use_parts(arg)?;
                let d = self.result_parts(i, 0, ty)?;
                for (&dk, &ak) in d.iter().zip(&a) {
                    let mut ops: Operands = smallvec![MOp::def(dk, C::Reg), MOp::use_(ak, C::Reg)];
                    if self.t.two_address {
                        ops[0] = MOp::def(dk, C::Reuse(1));
                        let t = self.new_vreg(RegClass::Float)?;
                        ops.push(MOp::def(t, C::Reg).at(crate::machine::OperandPos::Early));
                    }
                    self.emit1(MachineOp::new(Opcode::VFNeg).with_suffix(shape(form)), ops);
                }
            }
            InstKind::Icmp {
                pred, ty, lhs, rhs, ..
            } => {
                let pos = super::arith::pred_pos_int(pred);
                let name = pred.name();
                self.vector_compare(i, Opcode::VIcmp, pos, name, ty, lhs, rhs)?
            }
            InstKind::Fcmp {
                pred, ty, lhs, rhs, ..
            } => {
                let pos = super::arith::pred_pos_float(pred);
                let name = pred.name();
                self.vector_compare(i, Opcode::VFcmp, pos, name, ty, lhs, rhs)?
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => self.vector_select(i, ty, cond, if_true, if_false)?,
            InstKind::Cast { op, from, to, arg } => self.vector_cast(i, op, from, to, arg)?,
            InstKind::Load { ty, ptr, .. } => self.load_parts(i, ty, ptr)?,
            InstKind::Store { ty, value, ptr, .. } => self.store_parts(ty, value, ptr)?,
            InstKind::Copy { ty, src } => {
                let s = self.use_parts(src)?;
                let d = self.result_parts(i, 0, ty)?;
                for (&dk, &sk) in d.iter().zip(&s) {
                    self.mov(dk, sk);
                }
            }
            InstKind::ExtractElement { ty, vec, index } => {
                self.extract_element(i, ty, vec, index)?
            }
            InstKind::InsertElement {
                ty,
                vec,
                value,
                index,
            } => self.insert_element(i, ty, vec, value, index)?,
            InstKind::ShuffleVector {
                ty,
                result,
                a,
                b,
                mask,
            } => self.shuffle(i, ty, result, a, b, mask)?,
            InstKind::Call { .. } | InstKind::Opaque(_) | InstKind::Phi { .. } => return Ok(false),
            other => {
                return Err(self.err(format!(
                    "vector operands of `{}` are not lowered",
                    other.opcode_name()
                )))
            }
        }
        Ok(true)
    }

    /// The lanes of constant `c` (`None` for an undefined lane); `None` for a constant that
    /// is not in the pool.
    pub(super) fn const_lanes(&self, c: crate::ir::Const) -> Option<Vec<Option<u128>>> {
        let pool = self.ir.consts();
        let data = pool.try_get(c)?;
        let n = data.ty.lanes() as usize;
        Some(match data.kind {
            ConstKind::Aggregate(_) => pool
                .members(c)?
                .iter()
                .map(|&m| match pool.try_get(m).map(|d| d.kind) {
                    Some(ConstKind::Int(v) | ConstKind::Float(v)) => Some(v),
                    Some(ConstKind::Null) => Some(0),
                    _ => None,
                })
                .collect(),
            ConstKind::Int(v) | ConstKind::Float(v) => vec![Some(v); n],
            ConstKind::Null => vec![Some(0); n],
            _ => vec![None; n],
        })
    }

    /// Element-wise arithmetic (see the module doc).
    fn vector_binary(
        &mut self,
        i: Inst,
        op: BinaryOp,
        ty: Type,
        lhs: Operand,
        rhs: Operand,
    ) -> R<()> {
        use BinaryOp as B;
        let x86 = self.t.arch == Arch::X86_64;
        let form = self.vform(ty)?;
        let sh = shape(form);
        let bitwise = matches!(op, B::And | B::Or | B::Xor);
        if form.width == 128 && !bitwise {
            let a = self.use_parts(lhs)?;
            let b = self.use_parts(rhs)?;
            let d = self.result_parts(i, 0, ty)?;
            for k in 0..d.len() {
                self.wide_lane_binary(op, d[k], a[k], b[k])?;
            }
            return Ok(());
        }
        let scalarize = match op {
            B::SDiv | B::UDiv | B::SRem | B::URem | B::FRem => true,
            B::Mul => !x86 && form.width == 64,
            _ => false,
        };
        let a = self.use_parts(lhs)?;
        if scalarize {
            let b = self.use_parts(rhs)?;
            let d = self.result_parts(i, 0, ty)?;
            return self.scalarize(op, form, &d, &a, &b);
        }
        if let B::Shl | B::LShr | B::AShr = op {
            let splat = match rhs {
                Operand::Const(c) => self.const_lanes(c).and_then(|l| {
                    let first = l.first().copied().flatten()?;
                    l.iter()
                        .all(|x| x.is_none_or(|v| v == first))
                        .then_some(first)
                }),
                Operand::Value(_) => None,
            };
            let d = self.result_parts(i, 0, ty)?;
            if let Some(count) = splat {
                let code = match op {
                    B::Shl => Opcode::VShlImm,
                    B::LShr => Opcode::VLShrImm,
                    _ => Opcode::VAShrImm,
                };
                // SSE2 has no arithmetic shift of bytes or of 64-bit lanes: a sequence.
                let scratch = x86 && code == Opcode::VAShrImm && matches!(sh, 0 | 3);
                for (&dk, &ak) in d.iter().zip(&a) {
                    let mut ops: Operands = if self.t.two_address {
                        smallvec![MOp::def(dk, C::Reuse(1)), MOp::use_(ak, C::Reg)]
                    } else {
                        smallvec![MOp::def(dk, C::Reg), MOp::use_(ak, C::Reg)]
                    };
                    if scratch {
                        let t = self.new_vreg(RegClass::Float)?;
                        ops.push(MOp::def(t, C::Reg).at(crate::machine::OperandPos::Early));
                    }
                    self.emit1(MachineOp::imm(code, count as i64).with_suffix(sh), ops);
                }
                return Ok(());
            }
            let b = self.use_parts(rhs)?;
            if x86 {
                return self.scalarize(op, form, &d, &a, &b);
            }
            let code = match op {
                B::Shl => Opcode::VShl,
                B::LShr => Opcode::VLShr,
                _ => Opcode::VAShr,
            };
            for k in 0..d.len() {
                let mut ops: Operands = smallvec![
                    MOp::def(d[k], C::Reg),
                    MOp::use_(a[k], C::Reg),
                    MOp::use_(b[k], C::Reg)
                ];
                if code != Opcode::VShl {
                    let t = self.new_vreg(RegClass::Float)?;
                    ops.push(MOp::def(t, C::Reg).at(crate::machine::OperandPos::Early));
                }
                self.emit1(MachineOp::new(code).with_suffix(sh), ops);
            }
            return Ok(());
        }
        let code = match op {
            B::Add | B::FAdd => Opcode::VAdd,
            B::Sub | B::FSub => Opcode::VSub,
            B::Mul | B::FMul => Opcode::VMul,
            B::FDiv => Opcode::VDiv,
            B::And => Opcode::VAnd,
            B::Or => Opcode::VOr,
            _ => Opcode::VXor,
        };
        let b = self.use_parts(rhs)?;
        let d = self.result_parts(i, 0, ty)?;
        let scratch = x86 && code == Opcode::VMul && matches!(sh, 0 | 2 | 3);
        for k in 0..d.len() {
            let mut ops: Operands = if self.t.two_address {
                smallvec![
                    MOp::def(d[k], C::Reuse(1)),
                    MOp::use_(a[k], C::Reg),
                    MOp::use_(b[k], C::Reg)
                ]
            } else {
                smallvec![
                    MOp::def(d[k], C::Reg),
                    MOp::use_(a[k], C::Reg),
                    MOp::use_(b[k], C::Reg)
                ]
            };
            if scratch {
                for _ in 0..2 {
                    let t = self.new_vreg(RegClass::Float)?;
                    ops.push(MOp::def(t, C::Reg).at(crate::machine::OperandPos::Early));
                }
            }
            self.emit1(MachineOp::new(code).with_suffix(sh), ops);
        }
        Ok(())
    }

    /// `d = a <op> b` on one `i128` lane (a whole part): both halves of each operand to
    /// integer registers, the register-pair rule of [`crate::machine::parts`] (`add`/`adc`,
    /// compiler-rt helpers), both halves back.
    fn wide_lane_binary(&mut self, op: BinaryOp, d: VReg, a: VReg, b: VReg) -> R<()> {
        use BinaryOp as B;
        let mut halves = Vec::with_capacity(4);
        for v in [a, b] {
            for h in 0..2 {
                let x = self.new_vreg(RegClass::Int)?;
                self.emit1(
                    MachineOp::imm(Opcode::VExtract, h as i64).with_suffix(3),
                    smallvec![MOp::def(x, C::Reg), MOp::use_(v, C::Reg)],
                );
                halves.push(x);
            }
        }
        let (a0, a1, b0, b1) = (halves[0], halves[1], halves[2], halves[3]);
        let r0 = self.new_vreg(RegClass::Int)?;
        let r1 = self.new_vreg(RegClass::Int)?;
        let helper = match op {
            B::Add => {
                self.alu(MachineOp::new(Opcode::Add), r0, a0, b0);
                self.alu(MachineOp::new(Opcode::AddCarry), r1, a1, b1);
                None
            }
            B::Sub => {
                self.alu(MachineOp::new(Opcode::Sub), r0, a0, b0);
                self.alu(MachineOp::new(Opcode::SubBorrow), r1, a1, b1);
                None
            }
            B::Mul => Some("__multi3"),
            B::SDiv => Some("__divti3"),
            B::UDiv => Some("__udivti3"),
            B::SRem => Some("__modti3"),
            B::URem => Some("__umodti3"),
            B::Shl => Some("__ashlti3"),
            B::LShr => Some("__lshrti3"),
            B::AShr => Some("__ashrti3"),
            _ => return Err(self.err(format!("{op:?} on i128 lanes"))),
        };
        if let Some(name) = helper {
            let args: &[VReg] = if matches!(op, B::Shl | B::LShr | B::AShr) {
                &[a0, a1, b0]
            } else {
                &[a0, a1, b0, b1]
            };
            self.libcall(name, args, &[r0, r1])?;
        }
        let half = self.new_wide_vreg()?;
        for (h, (out, src, r)) in [(half, a, r0), (d, half, r1)].into_iter().enumerate() {
            self.emit1(
                MachineOp::imm(Opcode::VInsert, h as i64).with_suffix(3),
                smallvec![
                    MOp::def(out, C::Reuse(1)),
                    MOp::use_(src, C::Reg),
                    MOp::use_(r, C::Reg)
                ],
            );
        }
        Ok(())
    }

    /// `d = a <op> b` lane by lane through scalar registers: `vextract` both lanes, the
    /// scalar rule of the lane type, `vinsert` into a chain ending in each result part.
    fn scalarize(
        &mut self,
        op: BinaryOp,
        form: VectorForm,
        d: &[VReg],
        a: &[VReg],
        b: &[VReg],
    ) -> R<()> {
        let elem = form.elem;
        let class = if elem.is_float() {
            RegClass::Float
        } else {
            RegClass::Int
        };
        for k in 0..d.len() {
            let lanes = form.part_lanes(k as u32);
            let mut acc = a[k];
            for j in 0..lanes {
                let x = self.new_vreg(class)?;
                let y = self.new_vreg(class)?;
                self.lane_extract(form, x, a[k], j)?;
                self.lane_extract(form, y, b[k], j)?;
                let r = self.new_vreg(class)?;
                self.binary_regs(op, elem, r, x, y)?;
                let next = if j + 1 == lanes {
                    d[k]
                } else {
                    self.new_vreg(RegClass::Float)?
                };
                self.lane_insert(form, next, acc, r, j)?;
                acc = next;
            }
        }
        Ok(())
    }

    /// Lane-wise comparison of `lhs` and `rhs` of type `ty` to `<N x i1>` lane masks.
    #[allow(clippy::too_many_arguments)]
    fn vector_compare(
        &mut self,
        i: Inst,
        code: Opcode,
        pos: u8,
        pred: &str,
        ty: Type,
        lhs: Operand,
        rhs: Operand,
    ) -> R<()> {
        let form = self.vform(ty)?;
        if form.width == 128 {
            return Err(self.err(format!("comparison of {ty} (i128 lanes) is not lowered")));
        }
        let sh = shape(form);
        let float = code == Opcode::VFcmp;
        let suffix = pos * if float { 2 } else { 4 } + if float { sh - 4 } else { sh };
        let a = self.use_parts(lhs)?;
        let b = self.use_parts(rhs)?;
        let rty = ty.with_lane(Type::I1);
        let rform = self.vform(rty)?;
        let same = rform.width == form.width && rform.parts == form.parts;
        let d = self.result_parts(i, 0, rty)?;
        let masks: Parts = if same {
            d.clone()
        } else {
            let mut m = Parts::new();
            for _ in 0..a.len() {
                m.push(self.new_wide_vreg()?);
            }
            m
        };
        let x86 = self.t.arch == Arch::X86_64;
        // Predicates one instruction computes (operands swapped for the second list).
        let (direct, swapped, general) = if x86 && !float {
            let wide = form.width == 64;
            (
                !wide && matches!(pred, "eq" | "sgt"),
                !wide && pred == "slt",
                true,
            )
        } else if x86 {
            (
                matches!(
                    pred,
                    "oeq"
                        | "olt"
                        | "ole"
                        | "uno"
                        | "une"
                        | "uge"
                        | "ugt"
                        | "ord"
                        | "false"
                        | "true"
                ),
                matches!(pred, "ogt" | "oge" | "ult" | "ule"),
                true,
            )
        } else {
            (
                false,
                false,
                float && matches!(pred, "ord" | "uno" | "ueq" | "one"),
            )
        };
        for k in 0..a.len() {
            let op = MachineOp::new(code).with_suffix(suffix);
            if direct || swapped {
                let (x, y) = if swapped { (b[k], a[k]) } else { (a[k], b[k]) };
                self.emit1(
                    op,
                    smallvec![
                        MOp::def(masks[k], C::Reuse(1)),
                        MOp::use_(x, C::Reg),
                        MOp::use_(y, C::Reg)
                    ],
                );
            } else if general {
                let t = self.new_vreg(RegClass::Float)?;
                let early = crate::machine::OperandPos::Early;
                self.emit1(
                    op,
                    smallvec![
                        MOp::def(masks[k], C::Reg).at(early),
                        MOp::def(t, C::Reg).at(early),
                        MOp::use_(a[k], C::Reg),
                        MOp::use_(b[k], C::Reg)
                    ],
                );
            } else {
                self.emit1(
                    op,
                    smallvec![
                        MOp::def(masks[k], C::Reg),
                        MOp::use_(a[k], C::Reg),
                        MOp::use_(b[k], C::Reg)
                    ],
                );
            }
        }
        if !same {
            let op = if rform.width > form.width {
                CastOp::SExt
            } else {
                CastOp::Trunc
            };
            self.vcast(op, shape_of(false, rform.width), &d, &masks, 0)?;
        }
        Ok(())
    }

    /// A fresh float-class vreg holding a 128-bit value (passed in 16 bytes on the stack).
    pub(super) fn new_wide_vreg(&mut self) -> R<VReg> {
        let v = self.new_vreg(RegClass::Float)?;
        self.mark_wide(v);
        Ok(v)
    }

    /// The lane masks `m` of form `from` in the containers and parts of `to` (the same
    /// registers when they already are).
    pub(super) fn masks_as(&mut self, m: Parts, from: VectorForm, to: VectorForm) -> R<Parts> {
        if from.width == to.width && from.parts == to.parts {
            return Ok(m);
        }
        let mut d = Parts::new();
        for _ in 0..to.parts {
            d.push(self.new_wide_vreg()?);
        }
        let op = if to.width > from.width {
            CastOp::SExt
        } else {
            CastOp::Trunc
        };
        self.vcast(op, shape_of(false, to.width), &d, &m, 0)?;
        Ok(d)
    }

    /// `select` of vectors, on an `i1` or on a lane mask.
    fn vector_select(
        &mut self,
        i: Inst,
        ty: Type,
        cond: Operand,
        if_true: Operand,
        if_false: Operand,
    ) -> R<()> {
        let form = self.vform(ty)?;
        let cty = self.ir.operand_type(cond);
        let t = self.use_parts(if_true)?;
        let f = self.use_parts(if_false)?;
        let d = self.result_parts(i, 0, ty)?;
        let two = self.t.two_address;
        if !cty.is_vector() {
            let c = self.use_op(cond)?;
            self.select_parts(c, &t, &f, &d);
            return Ok(());
        }
        let cform = self.vform(cty)?;
        let m = self.use_parts(cond)?;
        let want = mask_form(form.lanes, form.width.min(64));
        let m = self.masks_as(m, cform, want)?;
        let sh = shape(form);
        for k in 0..d.len() {
            let ops = if two {
                let s = self.new_vreg(RegClass::Float)?;
                smallvec![
                    MOp::def(d[k], C::Reuse(2)),
                    MOp::def(s, C::Reg).at(crate::machine::OperandPos::Early),
                    MOp::use_(m[k.min(m.len() - 1)], C::Reg),
                    MOp::use_(t[k], C::Reg),
                    MOp::use_(f[k], C::Reg)
                ]
            } else {
                smallvec![
                    MOp::def(d[k], C::Reuse(1)),
                    MOp::use_(m[k.min(m.len() - 1)], C::Reg),
                    MOp::use_(t[k], C::Reg),
                    MOp::use_(f[k], C::Reg)
                ]
            };
            self.emit1(MachineOp::new(Opcode::VSelect).with_suffix(sh), ops);
        }
        Ok(())
    }

    /// A conversion from or to a vector (see the module doc).
    fn vector_cast(&mut self, i: Inst, op: CastOp, from: Type, to: Type, arg: Operand) -> R<()> {
        let a = self.use_parts(arg)?;
        let d = self.result_parts(i, 0, to)?;
        let ff = vector_form(from);
        let tf = vector_form(to);
        if ff.is_some_and(|f| f.elem == Type::F80) || tf.is_some_and(|f| f.elem == Type::F80) {
            return Err(self.err("vectors of x86_fp80 lanes are not lowered"));
        }
        let mask = |f: Option<VectorForm>| f.is_some_and(|f| f.elem == Type::I1);
        let same_bits = matches!(op, CastOp::Bitcast | CastOp::PtrToInt | CastOp::IntToPtr);
        let same_form = a.len() == d.len()
            && a.iter().zip(&d).all(|(x, y)| x.class() == y.class())
            && !mask(ff)
            && !mask(tf)
            && (ff.is_some() && tf.is_some() || a.iter().all(|x| x.class() == RegClass::Float));
        if same_bits && same_form {
            for (&dk, &ak) in d.iter().zip(&a) {
                self.mov(dk, ak);
            }
            return Ok(());
        }
        let sh = match (tf, ff) {
            (Some(f), _) | (None, Some(f)) => shape(f),
            (None, None) => return Err(self.err("a cast without vectors in vector lowering")),
        };
        let x86 = self.t.arch == Arch::X86_64;
        let int_float = matches!(
            op,
            CastOp::FpToSi | CastOp::FpToUi | CastOp::SiToFp | CastOp::UiToFp
        );
        if let (true, true, Some(sf), Some(rf)) = (x86, int_float, ff, tf) {
            let int_side = if sf.elem.is_float() { rf } else { sf };
            if int_side.width == 64 {
                return self.scalarize_cast(op, sf, rf, &d, &a);
            }
        }
        // Conversions are sequences on SSE2 (unpack and shift, unsigned conversions); lane
        // masks to or from bits need a constant of lane bits on both targets.
        let temps = if mask(ff) != mask(tf) || (x86 && !same_bits) {
            1
        } else {
            0
        };
        self.vcast(op, sh, &d, &a, temps)
    }

    /// A conversion between float and 64-bit integer lanes on x86-64 (SSE2 has none):
    /// per lane `vextract`, the scalar conversion (`cvttsd2si`, `cvtsi2sd` with a general
    /// register), `vinsert`.
    fn scalarize_cast(
        &mut self,
        op: CastOp,
        from: VectorForm,
        to: VectorForm,
        d: &[VReg],
        a: &[VReg],
    ) -> R<()> {
        let class = |t: Type| {
            if t.is_float() {
                RegClass::Float
            } else {
                RegClass::Int
            }
        };
        for (k, &dk) in d.iter().enumerate() {
            let lanes = to.part_lanes(k as u32);
            let mut acc = None;
            for j in 0..lanes {
                let lane = k as u32 * to.per_part + j;
                let (sp, sj) = ((lane / from.per_part) as usize, lane % from.per_part);
                let x = self.new_vreg(class(from.elem))?;
                self.lane_extract(from, x, a[sp], sj)?;
                let r = self.new_vreg(class(to.elem))?;
                self.cast1(op, r, x);
                let next = if j + 1 == lanes {
                    dk
                } else {
                    self.new_wide_vreg()?
                };
                let start = acc.unwrap_or(a[sp]);
                self.lane_insert(to, next, start, r, j)?;
                acc = Some(next);
            }
        }
        Ok(())
    }

    /// `vcast.<op>.<shape>`: every def early, every use in a register, `temps` early
    /// scratch defs.
    pub(super) fn vcast(
        &mut self,
        op: CastOp,
        shape: u8,
        d: &[VReg],
        a: &[VReg],
        temps: usize,
    ) -> R<()> {
        let early = crate::machine::OperandPos::Early;
        let pos = CastOp::ALL.iter().position(|c| *c == op).unwrap_or(0) as u8;
        let mut ops = Operands::new();
        for &dk in d {
            ops.push(MOp::def(dk, C::Reg).at(early));
        }
        for _ in 0..temps {
            let t = self.new_vreg(RegClass::Float)?;
            ops.push(MOp::def(t, C::Reg).at(early));
        }
        for &ak in a {
            ops.push(MOp::use_(ak, C::Reg));
        }
        let n = crate::machine::function::LANE_SHAPES.len() as u8;
        self.emit1(
            MachineOp::new(Opcode::VCast).with_suffix(pos * n + shape),
            ops,
        );
        Ok(())
    }
}

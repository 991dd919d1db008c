//! Verifier group 4 (see the parent module's list): each instruction's operand types by
//! its kind, lane by lane for vectors, with each used value's availability tested as its
//! type is read. One call per block ([`Checker::check_insts`]); the per-kind rules are one
//! match (opcode dispatch).
//!
//! Complexity: O(instructions + operands), plus O(lanes) per `shufflevector` mask.

use super::*;

impl<R: IrRead> Checker<'_, R> {
    /// `check_inst` on every instruction of `b`, with uses checked for dominance if
    /// `checked`. One call per block: `check_inst`, inlined here, sets up its large frame
    /// once per block instead of once per instruction.
    #[inline(never)]
    pub(super) fn check_insts(&mut self, b: Block, checked: bool) {
        self.use_checked = checked;
        self.use_block = b;
        for (n, &i) in self.ir.block_insts(b).iter().enumerate() {
            self.use_at = n as u32;
            self.check_inst(i);
        }
        self.inst = None;
    }

    #[inline(always)]
    fn check_inst(&mut self, i: Inst) {
        let ir = self.ir;
        self.inst = Some(i);
        let kind = ir.inst_kind(i);
        let name = OpcodeName(kind);
        let op = |n: usize| format!("operand {n} of `{name}`");
        match kind {
            InstKind::Binary {
                op: bop,
                ty,
                lhs,
                rhs,
            } => {
                let lane = ty.lane();
                if bop.is_float() != lane.is_float() || !(lane.is_int() || lane.is_float()) {
                    self.error(format!("`{name}` cannot operate on {ty}"));
                }
                self.expect(*lhs, *ty, || op(1));
                self.expect(*rhs, *ty, || op(2));
            }
            InstKind::Unary { ty, arg, .. } => {
                if !ty.lane().is_float() {
                    self.error(format!("`{name}` cannot operate on {ty}"));
                }
                self.expect(*arg, *ty, || op(1));
            }
            InstKind::Icmp { ty, lhs, rhs, .. } => {
                if !(ty.lane().is_int() || ty.lane() == Type::Ptr) {
                    self.error(format!("icmp cannot compare {ty}"));
                }
                self.expect(*lhs, *ty, || op(1));
                self.expect(*rhs, *ty, || op(2));
            }
            InstKind::Fcmp { ty, lhs, rhs, .. } => {
                if !ty.lane().is_float() {
                    self.error(format!("fcmp cannot compare {ty}"));
                }
                self.expect(*lhs, *ty, || op(1));
                self.expect(*rhs, *ty, || op(2));
            }
            InstKind::Cast {
                op: cop,
                from,
                to,
                arg,
            } => {
                self.expect(*arg, *from, || op(1));
                if !cast_fits(*cop, *from, *to) {
                    self.error(format!("`{cop}` cannot convert {from} to {to}"));
                }
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                if !ty.is_value() {
                    self.error("select of void");
                }
                // A scalar `i1` picks whole values; a vector select may pick lane by lane
                // with an `<N x i1>` of its lane count.
                let lanes = ty.with_lane(Type::I1);
                if !ty.is_vector() {
                    self.expect(*cond, Type::I1, || "select condition".to_string());
                } else {
                    self.expect_with(
                        *cond,
                        || "select condition".to_string(),
                        |t| t == Type::I1 || t == lanes,
                        "i1 or a vector of i1 of the select's lane count",
                    );
                }
                self.expect(*if_true, *ty, || op(2));
                self.expect(*if_false, *ty, || op(3));
            }
            InstKind::Alloca {
                ty, size, align, ..
            } => {
                if *size < ty.bytes() {
                    self.error(format!("alloca of {size} bytes cannot hold {ty}"));
                }
                if !align.is_power_of_two() {
                    self.error(format!("alloca alignment {align} is not a power of two"));
                }
            }
            InstKind::DynAlloca { count, align, .. } => {
                let what = || "dyn_alloca count".to_string();
                if let Some(t) = self.operand(*count, what) {
                    if !t.is_int() {
                        self.error(format!(
                            "dyn_alloca count has type {t}, expected an integer"
                        ));
                    }
                }
                if !align.is_power_of_two() {
                    self.error(format!("alloca alignment {align} is not a power of two"));
                }
            }
            InstKind::Load { ty, ptr, .. } => {
                if !ty.is_value() {
                    self.error("load of void");
                }
                self.expect(*ptr, Type::Ptr, || "load address".to_string());
            }
            InstKind::Store { ty, value, ptr, .. } => {
                if !ty.is_value() {
                    self.error("store of void");
                }
                self.expect(*value, *ty, || "stored value".to_string());
                self.expect(*ptr, Type::Ptr, || "store address".to_string());
            }
            InstKind::Gep { base, indices, .. } => {
                self.expect(*base, Type::Ptr, || "gep base".to_string());
                for (n, (idx, _)) in indices.iter().enumerate() {
                    self.expect_with(
                        *idx,
                        || format!("gep index {n}"),
                        Type::is_int,
                        "an integer",
                    );
                }
            }
            InstKind::Call {
                ret,
                callee,
                args,
                fixed_args,
            } => self.check_call(*ret, callee, args, *fixed_args),
            InstKind::InlineAsm(asm) => {
                for (n, o) in asm.outputs.iter().enumerate() {
                    if let AsmOutputPlace::Pointer(p) = o.place {
                        self.expect(p, Type::Ptr, || format!("asm output {n} address"));
                    }
                }
                for (n, input) in asm.inputs.iter().enumerate() {
                    self.operand(input.value, || format!("asm input {n}"));
                }
            }
            InstKind::CmpXchg { ty, .. } if ty.is_aggregate() || ty.is_vector() => {
                self.error(format!("cmpxchg cannot operate on {ty}"));
            }
            InstKind::AtomicRmw { ty, ptr, value, .. } => {
                if !(ty.is_int() || *ty == Type::Ptr || ty.is_float()) {
                    self.error(format!("atomicrmw cannot operate on {ty}"));
                }
                self.expect(*ptr, Type::Ptr, || "atomicrmw address".to_string());
                self.expect(*value, *ty, || "atomicrmw operand".to_string());
            }
            InstKind::CmpXchg {
                ty,
                ptr,
                expected,
                new,
                ..
            } => {
                self.expect(*ptr, Type::Ptr, || "cmpxchg address".to_string());
                self.expect(*expected, *ty, || "cmpxchg expected value".to_string());
                self.expect(*new, *ty, || "cmpxchg new value".to_string());
            }
            InstKind::Fence { .. } => {}
            InstKind::Phi { ty, incoming } => {
                self.has_phi = true;
                let at_inst = (self.use_checked, self.use_block, self.use_at);
                for (n, (b, v)) in incoming.iter().enumerate() {
                    // A phi's incoming value is used at the end of its predecessor.
                    self.use_checked = at_inst.0 && self.cfg.is_reachable(*b);
                    (self.use_block, self.use_at) = (*b, u32::MAX);
                    self.expect(*v, *ty, || format!("phi incoming value {n}"));
                    if !self.is_live_block(*b) {
                        self.error(format!("phi incoming block {b} does not exist"));
                    }
                }
                (self.use_checked, self.use_block, self.use_at) = at_inst;
            }
            InstKind::Copy { ty, src } => self.expect(*src, *ty, || "copy source".to_string()),
            InstKind::ExtractValue { ty, agg, index } => {
                if ty.member(*index as usize).is_none() {
                    self.error(format!("`{name}` index {index} is not a member of {ty}"));
                }
                self.expect(*agg, *ty, || op(1));
            }
            InstKind::InsertValue {
                ty,
                agg,
                value,
                index,
            } => {
                self.expect(*agg, *ty, || op(1));
                match ty.member(*index as usize) {
                    None => self.error(format!("`{name}` index {index} is not a member of {ty}")),
                    Some((m, _)) => self.expect(*value, m, || op(2)),
                }
            }
            InstKind::ExtractElement { ty, vec, index } => {
                self.check_vector_type(*ty, name);
                self.expect(*vec, *ty, || op(1));
                self.expect_with(*index, || op(2), Type::is_int, "an integer");
            }
            InstKind::InsertElement {
                ty,
                vec,
                value,
                index,
            } => {
                self.check_vector_type(*ty, name);
                self.expect(*vec, *ty, || op(1));
                self.expect(*value, ty.lane(), || op(2));
                self.expect_with(*index, || op(3), Type::is_int, "an integer");
            }
            InstKind::ShuffleVector {
                ty,
                result,
                a,
                b,
                mask,
            } => {
                self.check_vector_type(*ty, name);
                self.expect(*a, *ty, || op(1));
                self.expect(*b, *ty, || op(2));
                self.check_shuffle_mask(*ty, *result, *mask);
            }
            InstKind::Opaque(o) => {
                for (n, &a) in o.args.iter().enumerate() {
                    self.operand(a, || format!("operand {n} of opaque `{}`", o.name));
                }
            }
        }
    }

    fn check_vector_type(&mut self, ty: Type, name: impl fmt::Display) {
        if !ty.is_vector() {
            self.error(format!("`{name}` needs a vector type, found {ty}"));
        }
    }

    /// A shuffle mask is a `<M x i32>` constant whose lanes are `undef` or indices below
    /// twice the input lane count, and the result is `<M x lane>`.
    fn check_shuffle_mask(&mut self, ty: Type, result: Type, mask: Const) {
        let pool = self.ir.consts();
        let Some(m) = pool.try_get(mask) else {
            self.error(format!(
                "shufflevector mask {mask} is not in the constant pool"
            ));
            return;
        };
        let Some((len, Type::I32)) = m.ty.vector_shape() else {
            self.error(format!(
                "shufflevector mask has type {}, expected a vector of i32",
                m.ty
            ));
            return;
        };
        if result.vector_shape() != Some((len, ty.lane())) {
            self.error(format!(
                "shufflevector result type {result} is not <{len} x {}>",
                ty.lane()
            ));
        }
        let inputs = 2 * ty.lanes() as u128;
        let lanes: &[Const] = match m.kind {
            ConstKind::Undef => &[],
            _ => pool.members(mask).unwrap_or(&[]),
        };
        for (n, &l) in lanes.iter().enumerate() {
            match pool.try_get(l).map(|d| d.kind) {
                Some(ConstKind::Undef) => {}
                Some(ConstKind::Int(k)) if k < inputs => {}
                _ => self.error(format!(
                    "shufflevector mask lane {n} is not undef or an index below {inputs}"
                )),
            }
        }
    }
}

/// An instruction's opcode name, looked up only when a message is formatted (most
/// instructions are valid, and the lookup is a large match).
#[derive(Clone, Copy)]
struct OpcodeName<'k>(&'k InstKind);

impl fmt::Display for OpcodeName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.opcode_name())
    }
}

/// True if a cast's source and target types suit its operation.
/// Whether `op` converts `from` to `to`: lane by lane for vectors (same lane count, the
/// scalar rule on the lanes); `bitcast` between any non-aggregate types of one width, except
/// that pointers (or vectors of them) only convert to the same kind.
fn cast_fits(op: CastOp, from: Type, to: Type) -> bool {
    if from.is_vector() || to.is_vector() {
        return if op == CastOp::Bitcast {
            from.is_value()
                && !from.is_aggregate()
                && !to.is_aggregate()
                && from.bits() == to.bits()
                && (from.lane() == Type::Ptr) == (to.lane() == Type::Ptr)
                && (from.lane() != Type::Ptr || from.lanes() == to.lanes())
        } else {
            from.is_vector()
                && to.is_vector()
                && from.lanes() == to.lanes()
                && cast_fits(op, from.lane(), to.lane())
        };
    }
    match op {
        CastOp::Trunc => from.is_int() && to.is_int() && to.bits() < from.bits(),
        CastOp::ZExt | CastOp::SExt => from.is_int() && to.is_int() && to.bits() > from.bits(),
        CastOp::FpTrunc => from.is_float() && to.is_float() && to.bits() < from.bits(),
        CastOp::FpExt => from.is_float() && to.is_float() && to.bits() > from.bits(),
        CastOp::FpToSi | CastOp::FpToUi => from.is_float() && to.is_int(),
        CastOp::SiToFp | CastOp::UiToFp => from.is_int() && to.is_float(),
        CastOp::PtrToInt => from == Type::Ptr && to.is_int(),
        CastOp::IntToPtr => from.is_int() && to == Type::Ptr,
        CastOp::Bitcast => {
            from.is_value()
                && !from.is_aggregate()
                && !to.is_aggregate()
                && from.bits() == to.bits()
        }
    }
}

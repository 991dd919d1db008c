//! Operands: a typed LLVM value lowered to a scalar [`Operand`], with constant expressions
//! (casts, `getelementptr`, `icmp`, integer arithmetic, aggregates) materialised as instructions in the current block
//! and names used before their definition given placeholders (resolved at the end of the
//! body, see the parent module).
//! Complexity: linear in the value's tokens (recursively, for constant expressions).

use super::*;

impl<'a, 'm> Lower<'a, 'm> {
    /// Lowers a typed value to a scalar operand, materialising constant expressions in the
    /// current block.
    pub(super) fn operand(&mut self, ty: &LType, v: &Val<'a>) -> PResult<Operand> {
        let at = self.at;
        let sty = self.scalar(ty, at)?;
        match v {
            Val::Local(name, t) => match self.locals.get(name) {
                Some(Local::Op(op)) => {
                    let op = *op;
                    let actual = self.b.function().operand_type(op);
                    if actual != sty {
                        return self
                            .err(*t, format!("%{name} has type {actual} but is used as {ty}"));
                    }
                    Ok(op)
                }
                Some(Local::Tuple(_)) => {
                    self.err(*t, format!("aggregate value %{name} used as a scalar"))
                }
                Some(Local::Unmodelled) => {
                    if self.stand_in.is_none() {
                        self.stand_in = Some(PErr {
                            unsupported: true,
                            ..self.c.perr(*t, format!("%{name} has an unmodelled type"))
                        });
                    }
                    Ok(self.konst(ConstData::zero(sty)))
                }
                None => {
                    if let Some((ph, pty, _)) = self.pending.get(name) {
                        if *pty != sty {
                            return self.err(*t, format!("%{name} used with types {pty} and {ty}"));
                        }
                        return Ok(Operand::Value(*ph));
                    }
                    let f = self.b.function_mut();
                    f.values.push(ValueData {
                        ty: sty,
                        def: ValueDef::Unused,
                    });
                    let ph = Value::new(f.values.len() - 1);
                    self.pending.insert(name.clone(), (ph, sty, *t));
                    Ok(Operand::Value(ph))
                }
            },
            Val::Global(name, t) => {
                if sty != Type::Ptr {
                    return self.err(*t, format!("global @{name} used as {ty}"));
                }
                match self.m.symbols.get(name.as_ref()) {
                    Some(&s) if self.m.symbol_types[s.index()] != *ty => {
                        let actual = &self.m.symbol_types[s.index()];
                        self.err(*t, format!("@{name} has type {actual} but is used as {ty}"))
                    }
                    Some(&s) => Ok(self.konst(ConstData {
                        ty: Type::Ptr,
                        kind: ConstKind::SymbolAddr(s),
                    })),
                    None => self.err(*t, format!("undefined symbol @{name}")),
                }
            }
            Val::Int(x) => {
                if !sty.is_int() {
                    return self.err(at, format!("integer literal for {ty}"));
                }
                Ok(self.konst(ConstData::int(sty, *x)))
            }
            Val::Bool(bv) => {
                if !sty.is_int() {
                    return self.err(at, format!("boolean literal for {ty}"));
                }
                Ok(self.konst(ConstData::int(sty, *bv as u128)))
            }
            Val::Dec(_) | Val::Hex(..) => {
                let bits = float_bits(sty, v).or_else(|e| {
                    if matches!(v, Val::Hex('K' | 'L' | 'M' | 'H' | 'R', _)) {
                        self.unsupported(at, e.to_string())
                    } else {
                        self.err(at, e.to_string())
                    }
                })?;
                Ok(self.konst(ConstData {
                    ty: sty,
                    kind: ConstKind::Float(bits),
                }))
            }
            Val::Zero if sty.is_aggregate() || sty.is_vector() => {
                Ok(Operand::Const(self.b.function_mut().consts.zero(sty)))
            }
            Val::Null | Val::Zero => Ok(self.konst(ConstData::zero(sty))),
            Val::Undef | Val::Poison => Ok(self.konst(ConstData {
                ty: sty,
                kind: ConstKind::Undef,
            })),
            Val::Agg(members) if sty.is_aggregate() || sty.is_vector() => {
                self.aggregate_const(ty, sty, members)
            }
            Val::Bytes(bytes)
                if sty.agg_info().is_some_and(|i| {
                    i.len() == bytes.len() && i.member(0).is_none_or(|m| m == Type::I8)
                }) =>
            {
                let f = self.b.function_mut();
                let consts: Vec<Const> = bytes
                    .iter()
                    .map(|&b| f.consts.intern(ConstData::int(Type::I8, b as u128)))
                    .collect();
                Ok(Operand::Const(f.consts.aggregate(sty, &consts)))
            }
            Val::Bytes(_) | Val::Agg(_) => self.unsupported(
                at,
                format!("aggregate constant of type {ty} used as an operand"),
            ),
            Val::Gep(src, base, idx) => self.gep(src, base, idx),
            Val::Cast(op, inner, to) => {
                let to_s = self.scalar(to, at)?;
                if to_s != sty {
                    return self.err(at, format!("constant cast to {to} used as {ty}"));
                }
                self.cast(*op, inner, to)
            }
            Val::Icmp(pw, pt, a, b) => self.constant_icmp(ty, sty, pw, *pt, a, b),
            Val::Binary(op, t, a, b) => self.constant_binary(ty, sty, *op, *t, a, b),
            Val::OtherExpr(w, t) => {
                self.unsupported(*t, format!("constant expression `{w}` is not supported"))
            }
            Val::BlockAddr(f, blk) => {
                if f.as_ref() != self.fname {
                    return self.unsupported(at, format!("blockaddress of another function @{f}"));
                }
                match self.blocks.get(blk) {
                    Some(&b) => Ok(self.konst(ConstData {
                        ty: Type::Ptr,
                        kind: ConstKind::BlockAddr(b),
                    })),
                    None => self.err(at, format!("blockaddress of unknown block %{blk}")),
                }
            }
        }
    }

    /// A constant `icmp pred (a, b)` of type `sty`, materialised as an instruction (like a
    /// constant cast) before its use.
    fn constant_icmp(
        &mut self,
        ty: &LType,
        sty: Type,
        pw: &str,
        pt: Token,
        a: &TVal<'a>,
        b: &TVal<'a>,
    ) -> PResult<Operand> {
        let at = self.at;
        if sty != Type::I1 {
            return self.err(at, format!("constant icmp used as {ty}"));
        }
        let Some(pred) = crate::ir::IntPredicate::from_name(pw) else {
            return self.err(pt, format!("unknown icmp predicate `{pw}`"));
        };
        let ot = self.scalar(&a.0, at)?;
        if a.0 != b.0 || ot.is_float() || ot.is_aggregate() {
            return self.err(at, format!("icmp of {} and {}", a.0, b.0));
        }
        let lhs = self.operand(&a.0, &a.1)?;
        let rhs = self.operand(&b.0, &b.1)?;
        let r = self.b.push(InstKind::Icmp {
            pred,
            ty: ot,
            lhs,
            rhs,
        });
        Ok(Operand::Value(r[0]))
    }

    /// A constant integer `op (a, b)` of LLVM type `ty` (strata type `sty`), materialised as
    /// an instruction before its use.
    fn constant_binary(
        &mut self,
        ty: &LType,
        sty: Type,
        op: BinaryOp,
        t: Token,
        a: &TVal<'a>,
        b: &TVal<'a>,
    ) -> PResult<Operand> {
        // Its `nuw`/`nsw`/`exact` flags are dropped, which only removes poison.
        if !sty.is_int() || a.0 != *ty || b.0 != *ty {
            return self.err(
                t,
                format!("constant `{op}` of {} and {} used as {ty}", a.0, b.0),
            );
        }
        let lhs = self.operand(&a.0, &a.1)?;
        let rhs = self.operand(&b.0, &b.1)?;
        let r = self.b.push(InstKind::Binary {
            op,
            ty: sty,
            lhs,
            rhs,
        });
        Ok(Operand::Value(r[0]))
    }

    /// An aggregate constant `{ T a, ... }` / `[T a, ...]` of LLVM type `ty` (strata type
    /// `sty`): each member must be a constant of the member's type.
    pub(super) fn aggregate_const(
        &mut self,
        ty: &LType,
        sty: Type,
        members: &[TVal<'a>],
    ) -> PResult<Operand> {
        let at = self.at;
        let Some(info) = sty.shape_info() else {
            return self.err(at, format!("aggregate constant for {ty}"));
        };
        if members.len() != info.len() {
            return self.err(
                at,
                format!(
                    "constant of type {ty} has {} members, expected {}",
                    members.len(),
                    info.len()
                ),
            );
        }
        let mut consts = Vec::with_capacity(members.len());
        for (i, (mt, mv)) in members.iter().enumerate() {
            let want = info.member(i).unwrap_or(Type::Void);
            if self.scalar(mt, at)? != want {
                return self.err(at, format!("member {i} of a {ty} constant has type {mt}"));
            }
            match self.operand(mt, mv)? {
                Operand::Const(c) => consts.push(c),
                Operand::Value(_) => {
                    return self.unsupported(
                        at,
                        format!("constant expression in a {ty} constant is not supported"),
                    )
                }
            }
        }
        Ok(Operand::Const(
            self.b.function_mut().consts.aggregate(sty, &consts),
        ))
    }

    pub(super) fn cast(&mut self, op: CastOp, inner: &TVal<'a>, to: &LType) -> PResult<Operand> {
        let at = self.at;
        let from_s = self.scalar(&inner.0, at)?;
        let to_s = self.scalar(to, at)?;
        let arg = self.operand(&inner.0, &inner.1)?;
        if op == CastOp::Bitcast && from_s == to_s {
            // Pointer-to-pointer (or same-type) casts are aliases.
            return Ok(arg);
        }
        // Vectors convert lane by lane (same lane count); a bitcast may change the shape.
        let same_lanes = from_s.lanes() == to_s.lanes() && from_s.is_vector() == to_s.is_vector();
        let (from_s, to_s) = if op == CastOp::Bitcast || !same_lanes {
            (from_s, to_s)
        } else {
            (from_s.lane(), to_s.lane())
        };
        let ok = (op == CastOp::Bitcast || same_lanes)
            && match op {
                CastOp::Trunc => from_s.is_int() && to_s.is_int() && to_s.bits() < from_s.bits(),
                CastOp::ZExt | CastOp::SExt => {
                    from_s.is_int() && to_s.is_int() && to_s.bits() > from_s.bits()
                }
                CastOp::FpTrunc => {
                    from_s.is_float() && to_s.is_float() && to_s.bits() < from_s.bits()
                }
                CastOp::FpExt => {
                    from_s.is_float() && to_s.is_float() && to_s.bits() > from_s.bits()
                }
                CastOp::FpToSi | CastOp::FpToUi => from_s.is_float() && to_s.is_int(),
                CastOp::SiToFp | CastOp::UiToFp => from_s.is_int() && to_s.is_float(),
                CastOp::PtrToInt => from_s == Type::Ptr && to_s.is_int(),
                CastOp::IntToPtr => from_s.is_int() && to_s == Type::Ptr,
                CastOp::Bitcast => {
                    from_s.bits() == to_s.bits()
                        && from_s.lane() != Type::Ptr
                        && to_s.lane() != Type::Ptr
                }
            };
        if !ok && self.stand_in.is_none() {
            return self.err(at, format!("invalid cast `{op}` from {} to {to}", inner.0));
        }
        let (from, to) = (self.b.function().operand_type(arg), self.scalar(to, at)?);
        Ok(self.push1(InstKind::Cast { op, from, to, arg }))
    }

    pub(super) fn gep(
        &mut self,
        src: &LType,
        base: &TVal<'a>,
        idx: &[TVal<'a>],
    ) -> PResult<Operand> {
        let at = self.at;
        // A lane-wise GEP (from the -O2 vectorizer): a vector base or vector indices.
        let vector_lanes = std::iter::once(&base.0)
            .chain(idx.iter().map(|(t, _)| t))
            .find_map(|t| match t {
                LType::Vector(n, _) => Some(*n),
                _ => None,
            });
        if let Some(n) = vector_lanes {
            return self.vector_gep(src, base, idx, n);
        }
        if !base.0.is_ptr() {
            return self.err(at, format!("getelementptr base of type {}", base.0));
        }
        let base_op = self.operand(&base.0, &base.1)?;
        let consts: Vec<Option<i64>> = idx.iter().map(|(t, v)| const_int(t, v)).collect();
        let (offset, kinds) =
            gep_fold(&self.m.layouts, src, &consts).or_else(|e| self.err(at, e.to_string()))?;
        let mut indices: SmallVec<[(Operand, i64); 2]> = SmallVec::new();
        for ((t, v), k) in idx.iter().zip(&kinds) {
            if let GepIdx::Scaled(scale) = k {
                let st = self.scalar(t, at)?;
                if !st.is_int() {
                    return self.err(at, format!("getelementptr index of type {t}"));
                }
                let op = self.operand(t, v)?;
                indices.push((op, *scale));
            }
        }
        if offset == 0 && indices.is_empty() {
            return Ok(base_op);
        }
        Ok(self.push1(InstKind::Gep {
            base: base_op,
            offset,
            indices,
        }))
    }
}

//! Parsing and lowering of one instruction or terminator (every opcode but `call`).
//!
//! Each arm parses the LLVM syntax of its opcode, lowers operands with
//! [`super::Lower::operand`] (which materialises constant expressions) and pushes the strata
//! instruction; flags (`nsw`, `exact`, fast-math), alignment and metadata attachments are
//! read and dropped. Complexity: linear in the instruction's tokens.

use super::*;

/// LLVM 14 opcodes that are valid IR but not lowered here (an instruction named anything
/// else is malformed input).
const KNOWN_OPCODES: &[&str] = &[
    "invoke",
    "resume",
    "landingpad",
    "catchswitch",
    "catchret",
    "cleanupret",
    "catchpad",
    "cleanuppad",
    "addrspacecast",
    "callbr",
    "unreachable",
];

impl<'a, 'm> Lower<'a, 'm> {
    /// Parses and lowers one instruction or terminator; returns true for a terminator.
    pub(super) fn instruction(&mut self) -> PResult<bool> {
        let start = self.c.peek();
        self.at = start;
        let mut result = None;
        if start.kind == Tok::LocalVar && self.c.peek2() == Tok::Eq {
            let index = self.c.pos;
            self.check_number(start)?;
            self.numbered = Some(index);
            self.c.bump();
            self.c.bump();
            result = Some((self.c.name(start), start));
        }
        let op_tok = self.c.peek();
        if op_tok.kind != Tok::Ident {
            return self.c.expected("an instruction");
        }
        self.c.bump();
        let op = self.c.text(op_tok);
        self.at = op_tok;
        if op != "phi" {
            let cur = self.b.current_block().index();
            if self.non_phi.len() <= cur {
                self.non_phi.resize(cur + 1, false);
            }
            self.non_phi[cur] = true;
        }
        match op {
            "ret" => {
                // `ret void`, but not `ret void (i32)* %f` (a function pointer).
                let v = if self.c.is_word("void") && self.c.peek2() != Tok::LParen {
                    self.c.bump();
                    None
                } else {
                    let (ty, v) = self.typed()?;
                    Some(self.operand(&ty, &v)?)
                };
                let want = self.b.function().signature.ret;
                let got = v.map_or(Type::Void, |o| self.b.function().operand_type(o));
                if self.ret_unmodelled && v.is_none() {
                    return self.err(op_tok, "`ret void` in a function returning a value");
                }
                let mismatch = if self.ret_unmodelled {
                    self.stand_in.is_none()
                } else {
                    got != want && self.stand_in.is_none()
                };
                if mismatch {
                    return self.err(
                        op_tok,
                        format!("`ret` of {got} in a function returning {want}"),
                    );
                }
                self.finish()?;
                self.b.ret(v);
                return Ok(true);
            }
            "br" => {
                if self.c.is_word("label") {
                    let d = self.label()?;
                    self.finish()?;
                    self.b.jump(d);
                } else {
                    let (ty, v) = self.typed()?;
                    if ty != LType::Int(1) {
                        return self.err(op_tok, format!("branch condition of type {ty}"));
                    }
                    let cond = self.operand(&ty, &v)?;
                    self.comma()?;
                    let t = self.label()?;
                    self.comma()?;
                    let f = self.label()?;
                    self.finish()?;
                    self.b.br(cond, t, f);
                }
                return Ok(true);
            }
            "switch" => {
                let (ty, v) = self.typed()?;
                let sty = self.scalar(&ty, op_tok)?;
                if !sty.is_int() {
                    return self.err(op_tok, format!("switch on {ty}"));
                }
                let value = self.operand(&ty, &v)?;
                self.comma()?;
                let default = self.label()?;
                self.c
                    .expect(Tok::LBracket, "`[` starting the switch cases")?;
                let mut cases: Vec<(u128, Block)> = Vec::new();
                while !self.c.eat(Tok::RBracket) {
                    let ct = self.c.peek();
                    let (cty, cv) = self.typed()?;
                    let k = match (cty.scalar(), &cv) {
                        (Some(t), Val::Int(x)) if t == sty => *x & sty.mask(),
                        (Some(t), Val::Bool(bv)) if t == sty => *bv as u128,
                        _ => {
                            return self.err(
                                ct,
                                "switch case must be an integer constant of the switch type",
                            )
                        }
                    };
                    if cases.iter().any(|(c, _)| *c == k) {
                        return self.err(ct, "duplicate switch case value");
                    }
                    self.c.eat(Tok::Comma);
                    let d = self.label()?;
                    cases.push((k, d));
                }
                self.finish()?;
                self.b.switch(sty, value, default, &cases);
                return Ok(true);
            }
            "indirectbr" => {
                let (ty, v) = self.typed()?;
                let addr = self.operand(&ty, &v)?;
                if self.b.function().operand_type(addr) != Type::Ptr {
                    return self.err(op_tok, "indirectbr address must be a pointer");
                }
                self.comma()?;
                self.c.expect(Tok::LBracket, "`[`")?;
                let mut dests = Vec::new();
                while !self.c.eat(Tok::RBracket) {
                    dests.push(self.label()?);
                    self.c.eat(Tok::Comma);
                }
                if dests.is_empty() {
                    return self.err(op_tok, "indirectbr without destinations");
                }
                self.finish()?;
                self.b.terminate(Terminator::IndirectBr { addr, dests });
                return Ok(true);
            }
            "callbr" => {
                // asm goto: the asm instruction carries the indirect labels as goto edges and
                // the block ends with a jump to the fallthrough label.
                let r = match self.call()? {
                    Some(l) => l,
                    None => {
                        return self
                            .unsupported(op_tok, "callbr without inline asm is not supported")
                    }
                };
                let cur = self.b.current_block();
                let last = self.b.function().blocks[cur.index()].insts.last().copied();
                let is_asm = last.is_some_and(|i| {
                    matches!(
                        self.b.function().insts[i.index()].kind,
                        InstKind::InlineAsm(_)
                    )
                });
                if !is_asm {
                    return self.unsupported(
                        op_tok,
                        "callbr of a function (not inline asm) is not supported",
                    );
                }
                self.c.expect_word("to")?;
                let fallthrough = self.label()?;
                self.c
                    .expect(Tok::LBracket, "`[` starting the callbr labels")?;
                let mut labels = Vec::new();
                while !self.c.eat(Tok::RBracket) {
                    labels.push(self.label()?);
                    self.c.eat(Tok::Comma);
                }
                self.finish()?;
                if let Some(i) = last {
                    if let InstKind::InlineAsm(asm) =
                        &mut self.b.function_mut().insts[i.index()].kind
                    {
                        asm.goto_labels = labels;
                    }
                }
                self.b.jump(fallthrough);
                self.define(result, r)?;
                return Ok(true);
            }
            "unreachable" => {
                self.finish()?;
                self.b.terminate(Terminator::Unreachable);
                return Ok(true);
            }
            _ => {}
        }
        if let Some(bop) = binary_op(op) {
            self.skip_flags();
            let ty = self.c.parse_type()?;
            let sty = self.scalar(&ty, op_tok)?;
            if is_float_op(bop) != sty.lane().is_float() || sty.lane() == Type::Ptr {
                return self.err(op_tok, format!("`{op}` on {ty}"));
            }
            let a = self.c.parse_value()?;
            self.comma()?;
            let bv = self.c.parse_value()?;
            let lhs = self.operand(&ty, &a)?;
            let rhs = self.operand(&ty, &bv)?;
            self.finish()?;
            let r = self.push1(InstKind::Binary {
                op: bop,
                ty: sty,
                lhs,
                rhs,
            });
            return self.define(result, Local::Op(r)).map(|_| false);
        }
        if let Some(cop) = cast_op(op) {
            let inner = self.typed()?;
            self.c.expect_word("to")?;
            let to = self.c.parse_type()?;
            self.finish()?;
            let r = self.cast(cop, &inner, &to)?;
            return self.define(result, Local::Op(r)).map(|_| false);
        }
        let r: Local = match op {
            "fneg" => {
                self.skip_flags();
                let (ty, v) = self.typed()?;
                let sty = self.scalar(&ty, op_tok)?;
                if !sty.lane().is_float() {
                    return self.err(op_tok, format!("fneg on {ty}"));
                }
                let arg = self.operand(&ty, &v)?;
                Local::Op(self.push1(InstKind::Unary {
                    op: UnaryOp::FNeg,
                    ty: sty,
                    arg,
                }))
            }
            "icmp" | "fcmp" => {
                self.skip_flags();
                let pt = self.c.expect(Tok::Ident, "a comparison predicate")?;
                let pw = self.c.text(pt);
                let ty = self.c.parse_type()?;
                let sty = self.scalar(&ty, op_tok)?;
                let a = self.c.parse_value()?;
                self.comma()?;
                let bv = self.c.parse_value()?;
                let lhs = self.operand(&ty, &a)?;
                let rhs = self.operand(&ty, &bv)?;
                if op == "icmp" {
                    let Some(pred) = IntPredicate::from_name(pw) else {
                        return self.err(pt, format!("unknown icmp predicate `{pw}`"));
                    };
                    if sty.lane().is_float() {
                        return self.err(op_tok, format!("icmp on {ty}"));
                    }
                    Local::Op(self.push1(InstKind::Icmp {
                        pred,
                        ty: sty,
                        lhs,
                        rhs,
                    }))
                } else {
                    let Some(pred) = FloatPredicate::from_name(pw) else {
                        return self.err(pt, format!("unknown fcmp predicate `{pw}`"));
                    };
                    if !sty.lane().is_float() {
                        return self.err(op_tok, format!("fcmp on {ty}"));
                    }
                    Local::Op(self.push1(InstKind::Fcmp {
                        pred,
                        ty: sty,
                        lhs,
                        rhs,
                    }))
                }
            }
            "select" => {
                self.skip_flags();
                let (ct, cv) = self.typed()?;
                self.comma()?;
                let (at, av) = self.typed()?;
                self.comma()?;
                let (bt, bv) = self.typed()?;
                let sty = self.scalar(&at, op_tok)?;
                // An `i1` picks whole values; an `<N x i1>` picks lane by lane.
                let lane_wise = matches!(&ct, LType::Vector(n, e)
                    if **e == LType::Int(1) && *n == sty.lanes() as u64 && sty.is_vector());
                if ct != LType::Int(1) && !lane_wise {
                    return self.err(op_tok, format!("select condition of type {ct}"));
                }
                if self.m.layouts.value_type(&bt) != Some(sty) {
                    return self.err(op_tok, format!("select arms of types {at} and {bt}"));
                }
                let cond = self.operand(&ct, &cv)?;
                let if_true = self.operand(&at, &av)?;
                let if_false = self.operand(&bt, &bv)?;
                Local::Op(self.push1(InstKind::Select {
                    ty: sty,
                    cond,
                    if_true,
                    if_false,
                }))
            }
            "extractelement" | "insertelement" | "shufflevector" => {
                Local::Op(self.vector_inst(op, op_tok)?)
            }
            "alloca" => {
                self.c.eat_word("inalloca");
                self.c.eat_word("swifterror");
                let ty = self.c.parse_type()?;
                let (mut size, mut align) = self
                    .m
                    .layouts
                    .size_align(&ty)
                    .or_else(|e| self.err(op_tok, e.to_string()))?;
                let elem_size = size;
                let mut dynamic: Option<Operand> = None;
                while self.c.peek().kind == Tok::Comma {
                    if self.c.peek2() == Tok::MetaVar {
                        break;
                    }
                    self.c.bump();
                    if self.c.eat_word("align") {
                        let at = self.c.peek();
                        align = self.c.parse_u64("an alignment")?;
                        super::super::check_align(&self.c, at, align)?;
                    } else if self.c.eat_word("addrspace") {
                        self.c.skip_parens()?;
                    } else {
                        let (nt, nv) = self.typed()?;
                        if !matches!(nt, LType::Int(_)) {
                            return self.err(op_tok, format!("alloca count of type {nt}"));
                        }
                        match const_int(&nt, &nv) {
                            Some(n) if n >= 0 => {
                                size = size
                                    .checked_mul(n as u64)
                                    .ok_or_else(|| self.c.perr(op_tok, "alloca size overflows"))?
                            }
                            // A variable-length array.
                            _ => dynamic = Some(self.operand(&nt, &nv)?),
                        }
                    }
                }
                if size > u32::MAX as u64 {
                    return self.unsupported(
                        op_tok,
                        format!("alloca of {size} bytes with alignment {align} is not supported"),
                    );
                }
                let ety = match ty.scalar() {
                    Some(t) if t != Type::Void => t,
                    _ => Type::I8,
                };
                if let Some(count) = dynamic {
                    if elem_size > u32::MAX as u64 {
                        return self.unsupported(op_tok, "alloca of too large elements");
                    }
                    Local::Op(self.push1(InstKind::DynAlloca {
                        ty: ety,
                        count,
                        elem_size: elem_size as u32,
                        align: align as u32,
                    }))
                } else {
                    let size = (size as u32).max(ety.bytes());
                    Local::Op(self.push1(InstKind::Alloca {
                        ty: ety,
                        size,
                        align: align as u32,
                        volatile: false,
                    }))
                }
            }
            "freeze" => {
                // freeze(x) is x unless x is undef or poison, when it is one arbitrary fixed
                // value: a copy, with `undef`/`poison` constants frozen to zero.
                let (ty, v) = self.typed()?;
                let sty = self.scalar(&ty, op_tok)?;
                let src = match v {
                    Val::Undef | Val::Poison => self.konst(ConstData::zero(sty)),
                    _ => self.operand(&ty, &v)?,
                };
                Local::Op(self.push1(InstKind::Copy { ty: sty, src }))
            }
            "load" => {
                let atomic = self.c.eat_word("atomic");
                let volatile = self.c.eat_word("volatile");
                let ty = self.c.parse_type()?;
                let sty = self.scalar(&ty, op_tok)?;
                self.comma()?;
                let (pt, pv) = self.typed()?;
                if !pt.is_ptr() {
                    return self.err(op_tok, format!("load from {pt}"));
                }
                if matches!(&pt, LType::Ptr(e) if **e != ty) {
                    return self.err(op_tok, format!("load of {ty} through {pt}"));
                }
                let ptr = self.operand(&pt, &pv)?;
                if atomic {
                    let payload = self.atomic_tail(volatile)?;
                    Local::Op(self.push1(InstKind::Opaque(Box::new(OpaqueInst {
                        name: "atomic_load".into(),
                        ty: sty,
                        args: smallvec::smallvec![ptr],
                        payload,
                    }))))
                } else {
                    Local::Op(self.push1(InstKind::Load {
                        ty: sty,
                        ptr,
                        volatile,
                    }))
                }
            }
            "store" => {
                let atomic = self.c.eat_word("atomic");
                let volatile = self.c.eat_word("volatile");
                let (vt, vv) = self.typed()?;
                let sty = self.scalar(&vt, op_tok)?;
                self.comma()?;
                let (pt, pv) = self.typed()?;
                if !pt.is_ptr() {
                    return self.err(op_tok, format!("store to {pt}"));
                }
                if matches!(&pt, LType::Ptr(e) if **e != vt) {
                    return self.err(op_tok, format!("store of {vt} through {pt}"));
                }
                let value = self.operand(&vt, &vv)?;
                let ptr = self.operand(&pt, &pv)?;
                if atomic {
                    let payload = self.atomic_tail(volatile)?;
                    self.b.push(InstKind::Opaque(Box::new(OpaqueInst {
                        name: "atomic_store".into(),
                        ty: Type::Void,
                        args: smallvec::smallvec![value, ptr],
                        payload,
                    })));
                } else {
                    self.b.push(InstKind::Store {
                        ty: sty,
                        value,
                        ptr,
                        volatile,
                    });
                }
                self.finish()?;
                return Ok(false);
            }
            "getelementptr" => {
                self.c.eat_word("inbounds");
                let src = self.c.parse_type()?;
                self.comma()?;
                let base = self.typed()?;
                let mut idx: SmallVec<[TVal<'a>; 3]> = SmallVec::new();
                while self.c.peek().kind == Tok::Comma && self.c.peek2() != Tok::MetaVar {
                    self.c.bump();
                    idx.push(self.typed()?);
                }
                Local::Op(self.gep(&src, &base, &idx)?)
            }
            "call" | "tail" | "musttail" | "notail" => {
                if op != "call" {
                    self.c.expect_word("call")?;
                }
                match self.call()? {
                    Some(l) => l,
                    None => {
                        self.finish()?;
                        if result.is_some() {
                            return self.err(op_tok, "call without a result is named");
                        }
                        return Ok(false);
                    }
                }
            }
            "extractvalue" => {
                let (ty, v) = self.typed()?;
                self.comma()?;
                let indices = self.member_indices()?;
                if let Val::Local(name, t) = &v {
                    if let Some(Local::Tuple(items)) = self.locals.get(name) {
                        if indices.len() != 1 {
                            return self.unsupported(
                                op_tok,
                                "extractvalue with nested indices of a cmpxchg or asm result is not supported",
                            );
                        }
                        match items.get(indices[0] as usize) {
                            Some(op) => Local::Op(*op),
                            None => {
                                return self.err(
                                    *t,
                                    format!("extractvalue index {} out of range", indices[0]),
                                )
                            }
                        }
                    } else {
                        let agg = self.operand(&ty, &v)?;
                        Local::Op(self.extract_path(op_tok, &ty, agg, &indices)?)
                    }
                } else {
                    let agg = self.operand(&ty, &v)?;
                    Local::Op(self.extract_path(op_tok, &ty, agg, &indices)?)
                }
            }
            "insertvalue" => {
                let (ty, v) = self.typed()?;
                self.comma()?;
                let (mty, mv) = self.typed()?;
                self.comma()?;
                let indices = self.member_indices()?;
                let agg = self.operand(&ty, &v)?;
                let member = self.operand(&mty, &mv)?;
                Local::Op(self.insert_path(op_tok, &ty, agg, member, &indices)?)
            }
            "phi" => {
                self.skip_flags();
                let ty = self.c.parse_type()?;
                let sty = self.scalar(&ty, op_tok)?;
                let mut incoming: SmallVec<[(Block, Operand); 2]> = SmallVec::new();
                let cur = self.b.current_block();
                if self.non_phi.get(cur.index()).copied().unwrap_or(false) {
                    return self.err(op_tok, "phi after a non-phi instruction");
                }
                loop {
                    self.c.expect(Tok::LBracket, "`[` starting a phi entry")?;
                    let v = self.c.parse_value()?;
                    self.comma()?;
                    let bt = self.c.expect(Tok::LocalVar, "a block name")?;
                    let bn = self.c.name(bt);
                    let Some(&pred) = self.blocks.get(&bn) else {
                        return self.err(bt, format!("phi names undefined block %{bn}"));
                    };
                    self.c.expect(Tok::RBracket, "`]`")?;
                    // Constant expressions are materialised at the end of the predecessor.
                    self.b.switch_to(pred);
                    let before = self.b.function().insts.len();
                    let r = self.operand(&ty, &v);
                    self.b.switch_to(cur);
                    if pred == cur && self.b.function().insts.len() != before {
                        return self.unsupported(
                            bt,
                            "constant expression in a phi of a self-loop is not supported",
                        );
                    }
                    let after = self.b.function().insts.len();
                    self.deferred.extend((before..after).map(Inst::new));
                    incoming.push((pred, r?));
                    if !(self.c.peek().kind == Tok::Comma && self.c.peek2() == Tok::LBracket) {
                        break;
                    }
                    self.c.bump();
                }
                self.has_phi = true;
                Local::Op(self.push1(InstKind::Phi { ty: sty, incoming }))
            }
            "atomicrmw" => {
                let volatile = self.c.eat_word("volatile");
                let ot = self.c.expect(Tok::Ident, "an atomicrmw operation")?;
                let Some(aop) = AtomicOp::from_name(self.c.text(ot)) else {
                    let w = self.c.text(ot);
                    let known = ["fadd", "fsub", "fmax", "fmin"];
                    if !known.contains(&w) {
                        return self.err(ot, format!("unknown atomicrmw operation `{w}`"));
                    }
                    return self
                        .unsupported(ot, format!("atomicrmw operation `{w}` is not supported"));
                };
                let (pt, pv) = self.typed()?;
                self.comma()?;
                let (vt, vv) = self.typed()?;
                let sty = self.scalar(&vt, op_tok)?;
                if !pt.is_ptr() {
                    return self.err(op_tok, "atomicrmw address must be a pointer");
                }
                let ptr = self.operand(&pt, &pv)?;
                let value = self.operand(&vt, &vv)?;
                let ord = self.ordering()?;
                Local::Op(self.push1(InstKind::AtomicRmw {
                    op: aop,
                    ty: sty,
                    ptr,
                    value,
                    ordering: ord,
                    volatile,
                }))
            }
            "cmpxchg" => {
                let weak = self.c.eat_word("weak");
                let volatile = self.c.eat_word("volatile");
                let (pt, pv) = self.typed()?;
                self.comma()?;
                let (et, ev) = self.typed()?;
                self.comma()?;
                let (nt, nv) = self.typed()?;
                let sty = self.scalar(&et, op_tok)?;
                if !pt.is_ptr() {
                    return self.err(op_tok, "cmpxchg address must be a pointer");
                }
                let ptr = self.operand(&pt, &pv)?;
                let expected = self.operand(&et, &ev)?;
                let new = self.operand(&nt, &nv)?;
                let success = self.ordering()?;
                let failure = match ordering(self.word()) {
                    Some(o) => {
                        self.c.bump();
                        o
                    }
                    None => return self.c.expected("a failure ordering"),
                };
                let rs = self.b.push(InstKind::CmpXchg {
                    ty: sty,
                    ptr,
                    expected,
                    new,
                    success,
                    failure,
                    weak,
                    volatile,
                });
                Local::Tuple(rs.iter().map(|&v| Operand::Value(v)).collect())
            }
            "fence" => {
                let ord = self.ordering()?;
                self.b.push(InstKind::Fence { ordering: ord });
                self.finish()?;
                return Ok(false);
            }
            "va_arg" => {
                let (pt, pv) = self.typed()?;
                self.comma()?;
                let rt = self.c.parse_type()?;
                let sty = self.scalar(&rt, op_tok)?;
                let ptr = self.operand(&pt, &pv)?;
                let payload = format!("{pt}|{rt}");
                Local::Op(self.push1(InstKind::Opaque(Box::new(OpaqueInst {
                    name: "va_arg".into(),
                    ty: sty,
                    args: smallvec::smallvec![ptr],
                    payload,
                }))))
            }
            _ if KNOWN_OPCODES.contains(&op) => {
                return self.unsupported(op_tok, format!("instruction `{op}` is not supported"))
            }
            _ => return self.err(op_tok, format!("unknown instruction `{op}`")),
        };
        self.finish()?;
        self.define(result, r)?;
        Ok(false)
    }

    fn ordering(&mut self) -> PResult<Ordering> {
        if self.c.eat_word("syncscope") {
            self.c.skip_parens()?;
        }
        match ordering(self.word()) {
            Some(o) => {
                self.c.bump();
                Ok(o)
            }
            None => self.c.expected("a memory ordering"),
        }
    }

    /// Reads `[syncscope(..)] ordering, align N` of an atomic load/store into a payload
    /// `volatile|align|ordering-text`.
    fn atomic_tail(&mut self, volatile: bool) -> PResult<String> {
        let s = self.c.peek().start as usize;
        if self.c.eat_word("syncscope") {
            self.c.skip_parens()?;
        }
        if ordering(self.word()).is_none() {
            return self.c.expected("a memory ordering");
        }
        let e = self.c.bump().end as usize;
        let text = self.c.src.get(s..e).unwrap_or("seq_cst").to_string();
        let mut align = 0;
        if self.c.peek().kind == Tok::Comma
            && self
                .c
                .toks
                .get(self.c.pos + 1)
                .is_some_and(|t| self.c.text(*t) == "align")
        {
            self.c.bump();
            self.c.bump();
            let at = self.c.peek();
            align = self.c.parse_u64("an alignment")?;
            super::super::check_align(&self.c, at, align)?;
        }
        Ok(format!(
            "{}|{align}|{text}",
            if volatile { "volatile" } else { "" }
        ))
    }
}

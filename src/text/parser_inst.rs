//! Instruction and operand syntax of the `.sir` parser: opcodes, inline asm, literals.
//!
//! Algorithm: one recursive-descent routine per opcode family (see the syntax table in
//! [`super::parser`]); operands are parsed by `Parser::operand` with the type their context
//! gives a literal: the instruction's type for arithmetic, comparison, cast-source, select
//! arms, stored, phi, copy, switch and atomic values; `i1` for conditions; `ptr` for
//! addresses and indirect callees; the explicitly written type for call, asm, opaque, `ret`,
//! branch and `gep` index operands. Integer literals must fit the signed or unsigned range
//! of their type and are stored masked; float literals are decimal, `inf`, `-inf`, `nan` or
//! `0x` bit patterns. Constants are interned in the function's pool.
//!
//! Invariant: a parsed instruction's operands name values (checked later for definition)
//! or interned constants; nothing here panics on any token sequence.
//! Complexity: O(tokens of the instruction).

use super::lexer::{Tok, Token};
use super::parser::{int_literal, Ctx, Parser};
use super::ParseError;
use crate::ir::*;
use smallvec::SmallVec;

impl<'a> Parser<'a> {
    pub(super) fn comma(&mut self, op: &str, after: &str) -> Result<(), ParseError> {
        self.expect_punct(',', || format!("after the {after} of `{op}`"))
    }

    /// `TY a, b`.
    pub(super) fn two_operands(
        &mut self,
        op: &str,
    ) -> Result<(Type, Operand, Operand), ParseError> {
        let ty = self.ty(|| format!("in `{op}`"))?;
        let lhs = self.operand(ty, || format!("as the first operand of `{op}`"))?;
        self.comma(op, "first operand")?;
        let rhs = self.operand(ty, || format!("as the second operand of `{op}`"))?;
        Ok((ty, lhs, rhs))
    }

    pub(super) fn volatile_suffix(&mut self) -> bool {
        self.word_suffix("volatile")
    }

    /// Eats `, WORD` if it comes next.
    pub(super) fn word_suffix(&mut self, word: &str) -> bool {
        if self.is_punct(',') && self.second_is_word(word) {
            self.bump();
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn ordering(&mut self) -> Result<Ordering, ParseError> {
        self.keyword("a memory ordering", Ordering::from_name)
    }

    /// `(TY op, ...)`.
    pub(super) fn typed_args(&mut self, what: &str) -> Result<SmallVec<[Operand; 4]>, ParseError> {
        let mut args = SmallVec::new();
        self.expect_punct('(', || format!("to open the {what}"))?;
        if self.eat_punct(')') {
            return Ok(args);
        }
        loop {
            let ty = self.ty(|| format!("of an operand in the {what}"))?;
            args.push(self.operand(ty, || format!("in the {what}"))?);
            if self.eat_punct(')') {
                return Ok(args);
            }
            self.expect_punct(',', || format!("or `)` in the {what}"))?;
        }
    }

    /// The instruction after its opcode `op`, which is at `op_at` (line, column).
    pub(super) fn inst_kind(
        &mut self,
        op: &str,
        op_at: (u32, u32),
    ) -> Result<InstKind, ParseError> {
        Ok(match op {
            "icmp" => {
                let pred = self.keyword("an `icmp` predicate", IntPredicate::from_name)?;
                let (ty, lhs, rhs) = self.two_operands(op)?;
                InstKind::Icmp { pred, ty, lhs, rhs }
            }
            "fcmp" => {
                let pred = self.keyword("an `fcmp` predicate", FloatPredicate::from_name)?;
                let (ty, lhs, rhs) = self.two_operands(op)?;
                InstKind::Fcmp { pred, ty, lhs, rhs }
            }
            "select" => {
                let ty = self.ty("after `select`")?;
                // A vector select's condition literal is `<N x i1>` (`true`/`false` stay
                // `i1`: a scalar condition picks whole vectors).
                let cond = self.operand(ty.with_lane(Type::I1), "as the condition")?;
                self.comma(op, "condition")?;
                let if_true = self.operand(ty, "as the true arm")?;
                self.comma(op, "true arm")?;
                let if_false = self.operand(ty, "as the false arm")?;
                InstKind::Select {
                    ty,
                    cond,
                    if_true,
                    if_false,
                }
            }
            "alloca" => {
                let ty = self.ty("after `alloca`")?;
                self.comma(op, "type")?;
                self.expect_word("size", "in `alloca`")?;
                let size = self.uint("a size in bytes", u32::MAX as u64)? as u32;
                self.comma(op, "size")?;
                self.expect_word("align", "in `alloca`")?;
                let align = self.uint("an alignment", u32::MAX as u64)? as u32;
                let volatile = self.volatile_suffix();
                InstKind::Alloca {
                    ty,
                    size,
                    align,
                    volatile,
                }
            }
            "dyn_alloca" => {
                let ty = self.ty("after `dyn_alloca`")?;
                self.comma(op, "type")?;
                let cty = self.ty("as the count's type")?;
                let count = self.operand(cty, "as the element count")?;
                self.comma(op, "count")?;
                self.expect_word("elem", "in `dyn_alloca`")?;
                let elem_size = self.uint("an element size in bytes", u32::MAX as u64)? as u32;
                self.comma(op, "element size")?;
                self.expect_word("align", "in `dyn_alloca`")?;
                let align = self.uint("an alignment", u32::MAX as u64)? as u32;
                InstKind::DynAlloca {
                    ty,
                    count,
                    elem_size,
                    align,
                }
            }
            "load" => {
                let ty = self.ty("after `load`")?;
                self.comma(op, "type")?;
                let ptr = self.operand(Type::Ptr, "as the address")?;
                InstKind::Load {
                    ty,
                    ptr,
                    volatile: self.volatile_suffix(),
                }
            }
            "store" => {
                let ty = self.ty("after `store`")?;
                let value = self.operand(ty, "as the stored value")?;
                self.comma(op, "stored value")?;
                let ptr = self.operand(Type::Ptr, "as the address")?;
                InstKind::Store {
                    ty,
                    value,
                    ptr,
                    volatile: self.volatile_suffix(),
                }
            }
            "gep" => {
                let base = self.operand(Type::Ptr, "as the base of `gep`")?;
                self.comma(op, "base")?;
                let offset = self.int64("a byte offset")?;
                let mut indices = SmallVec::new();
                while self.eat_punct(',') {
                    let ty = self.ty("of a `gep` index")?;
                    let idx = self.operand(ty, "as a `gep` index")?;
                    self.expect_punct('*', "after a `gep` index")?;
                    indices.push((idx, self.int64("a scale")?));
                }
                InstKind::Gep {
                    base,
                    offset,
                    indices,
                }
            }
            "call" => {
                let ret = self.ty("after `call`")?;
                let callee = if matches!(self.peek().tok, Tok::Sym(_)) {
                    Callee::Direct(self.symbol_ref()?)
                } else {
                    Callee::Indirect(self.operand(Type::Ptr, "as the callee")?)
                };
                let args = self.typed_args("argument list")?;
                let fixed_args = if self.eat_word("fixed") {
                    Some(self.uint("a fixed argument count", u32::MAX as u64)? as u32)
                } else {
                    None
                };
                InstKind::Call {
                    ret,
                    callee,
                    args,
                    fixed_args,
                }
            }
            "atomicrmw" => {
                let aop = self.keyword("an `atomicrmw` operation", AtomicOp::from_name)?;
                let ty = self.ty("after the `atomicrmw` operation")?;
                let ptr = self.operand(Type::Ptr, "as the address")?;
                self.comma(op, "address")?;
                let value = self.operand(ty, "as the value")?;
                self.comma(op, "value")?;
                InstKind::AtomicRmw {
                    op: aop,
                    ty,
                    ptr,
                    value,
                    ordering: self.ordering()?,
                    volatile: self.volatile_suffix(),
                }
            }
            "cmpxchg" => {
                let ty = self.ty("after `cmpxchg`")?;
                let ptr = self.operand(Type::Ptr, "as the address")?;
                self.comma(op, "address")?;
                let expected = self.operand(ty, "as the expected value")?;
                self.comma(op, "expected value")?;
                let new = self.operand(ty, "as the new value")?;
                self.comma(op, "new value")?;
                let success = self.ordering()?;
                self.comma(op, "success ordering")?;
                let failure = self.ordering()?;
                let weak = self.word_suffix("weak");
                InstKind::CmpXchg {
                    ty,
                    ptr,
                    expected,
                    new,
                    success,
                    failure,
                    weak,
                    volatile: self.volatile_suffix(),
                }
            }
            "fence" => InstKind::Fence {
                ordering: self.ordering()?,
            },
            "phi" => {
                let ty = self.ty("after `phi`")?;
                let mut incoming = SmallVec::new();
                if self.is_punct('[') {
                    loop {
                        self.expect_punct('[', "to open a `phi` entry")?;
                        let b = self.block_ref("in a `phi` entry")?;
                        self.expect_punct(':', "after the block of a `phi` entry")?;
                        let v = self.operand(ty, "in a `phi` entry")?;
                        self.expect_punct(']', "to close a `phi` entry")?;
                        incoming.push((b, v));
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                }
                InstKind::Phi { ty, incoming }
            }
            "copy" => {
                let ty = self.ty("after `copy`")?;
                InstKind::Copy {
                    ty,
                    src: self.operand(ty, "as the source of `copy`")?,
                }
            }
            "extractvalue" => {
                let ty = self.ty("after `extractvalue`")?;
                let agg = self.operand(ty, "as the aggregate")?;
                self.comma(op, "aggregate")?;
                let t = self.peek().clone();
                let index = self.uint("a member index", u32::MAX as u64)? as u32;
                if ty.member(index as usize).is_none() {
                    return Err(self.err_at(&t, format!("{ty} has no member {index}")));
                }
                InstKind::ExtractValue { ty, agg, index }
            }
            "insertvalue" => {
                let ty = self.ty("after `insertvalue`")?;
                let agg = self.operand(ty, "as the aggregate")?;
                self.comma(op, "aggregate")?;
                let member = self.ty("of the inserted value")?;
                let value = self.operand(member, "as the inserted value")?;
                self.comma(op, "inserted value")?;
                let index = self.uint("a member index", u32::MAX as u64)? as u32;
                InstKind::InsertValue {
                    ty,
                    agg,
                    value,
                    index,
                }
            }
            "extractelement" | "insertelement" | "shufflevector" => self.vector_inst(op)?,
            "asm" => self.inline_asm()?,
            "opaque" => {
                let name = self.string("an operation name string after `opaque`")?;
                let ty = self.ty("after the name of `opaque`")?;
                let args = self.typed_args("operand list")?.into_iter().collect();
                let payload = self.string("a payload string")?;
                InstKind::Opaque(Box::new(OpaqueInst {
                    name,
                    ty,
                    args,
                    payload,
                }))
            }
            _ => {
                if let Some(bop) = BinaryOp::from_name(op) {
                    let (ty, lhs, rhs) = self.two_operands(op)?;
                    InstKind::Binary {
                        op: bop,
                        ty,
                        lhs,
                        rhs,
                    }
                } else if let Some(uop) = UnaryOp::from_name(op) {
                    let ty = self.ty(|| format!("after `{op}`"))?;
                    InstKind::Unary {
                        op: uop,
                        ty,
                        arg: self.operand(ty, "as the operand")?,
                    }
                } else if let Some(cop) = CastOp::from_name(op) {
                    let from = self.ty(|| format!("after `{op}`"))?;
                    let arg = self.operand(from, "as the operand")?;
                    self.expect_word("to", || format!("after the operand of `{op}`"))?;
                    let to = self.ty("after `to`")?;
                    InstKind::Cast {
                        op: cop,
                        from,
                        to,
                        arg,
                    }
                } else {
                    return Err(self.err_loc(
                        op_at.0,
                        op_at.1,
                        format!("expected an instruction opcode or a terminator, found `{op}`"),
                    ));
                }
            }
        })
    }

    /// `extractelement TY vec, ITY index`, `insertelement TY vec, T value, ITY index` and
    /// `shufflevector TY a, b, <M x i32> mask`; `TY` must be a vector type.
    fn vector_inst(&mut self, op: &str) -> Result<InstKind, ParseError> {
        let t = self.peek().clone();
        let ty = self.ty(|| format!("after `{op}`"))?;
        let Some((_, lane)) = ty.vector_shape() else {
            return Err(self.err_at(&t, format!("`{op}` needs a vector type, found {ty}")));
        };
        let vec = self.operand(ty, "as the vector")?;
        self.comma(op, "vector")?;
        Ok(match op {
            "extractelement" => {
                let ity = self.ty("of the lane index")?;
                let index = self.operand(ity, "as the lane index")?;
                InstKind::ExtractElement { ty, vec, index }
            }
            "insertelement" => {
                let vt = self.ty("of the inserted lane")?;
                let value = self.operand(vt, "as the inserted lane")?;
                self.comma(op, "inserted lane")?;
                let ity = self.ty("of the lane index")?;
                let index = self.operand(ity, "as the lane index")?;
                InstKind::InsertElement {
                    ty,
                    vec,
                    value,
                    index,
                }
            }
            _ => {
                let b = self.operand(ty, "as the second vector")?;
                self.comma(op, "second vector")?;
                let mt = self.peek().clone();
                let mask_ty = self.ty("of the shuffle mask")?;
                let Some((m, Type::I32)) = mask_ty.vector_shape() else {
                    return Err(self.err_at(
                        &mt,
                        format!("a shuffle mask is a vector of i32, found {mask_ty}"),
                    ));
                };
                let Operand::Const(mask) = self.operand(mask_ty, "as the shuffle mask")? else {
                    return Err(self.err_at(&mt, "a shuffle mask must be a constant".into()));
                };
                let result =
                    Type::vector_of(m, lane).map_err(|e| self.err_at(&mt, e.to_string()))?;
                InstKind::ShuffleVector {
                    ty,
                    result,
                    a: vec,
                    b,
                    mask,
                }
            }
        })
    }

    pub(super) fn inline_asm(&mut self) -> Result<InstKind, ParseError> {
        let side_effects = self.eat_word("volatile");
        let template = self.string("an asm template string")?;
        let mut asm = InlineAsm {
            template,
            clobbers: Vec::new(),
            side_effects,
            outputs: Vec::new(),
            inputs: Vec::new(),
            goto_labels: Vec::new(),
        };
        if self.eat_word("out") {
            self.expect_punct('(', "after `out`")?;
            while !self.eat_punct(')') {
                if !asm.outputs.is_empty() {
                    self.expect_punct(',', "or `)` between asm outputs")?;
                }
                let (line, col) = (self.peek().line, self.peek().col);
                let c = self.string("an output constraint string")?;
                let Some(constraint) = c.strip_prefix('=') else {
                    return Err(self.err_loc(
                        line,
                        col,
                        format!("expected an output constraint starting with `=`, found {c:?}"),
                    ));
                };
                let ty = self.ty("of an asm output")?;
                let place = if self.eat_word("result") {
                    AsmOutputPlace::Result
                } else if self.eat_word("ptr") {
                    AsmOutputPlace::Pointer(self.operand(Type::Ptr, "as an asm output address")?)
                } else {
                    return Err(self.expected("`result` or `ptr` in an asm output"));
                };
                asm.outputs.push(AsmOutput {
                    constraint: constraint.to_string(),
                    ty,
                    place,
                });
            }
        }
        if self.eat_word("in") {
            self.expect_punct('(', "after `in`")?;
            while !self.eat_punct(')') {
                if !asm.inputs.is_empty() {
                    self.expect_punct(',', "or `)` between asm inputs")?;
                }
                let constraint = self.string("an input constraint string")?;
                let ty = self.ty("of an asm input")?;
                let value = self.operand(ty, "as an asm input")?;
                asm.inputs.push(AsmInput { constraint, value });
            }
        }
        if self.eat_word("clobber") {
            self.expect_punct('(', "after `clobber`")?;
            while !self.eat_punct(')') {
                if !asm.clobbers.is_empty() {
                    self.expect_punct(',', "or `)` between clobbers")?;
                }
                asm.clobbers.push(self.string("a clobber string")?);
            }
        }
        if self.eat_word("goto") {
            self.expect_punct('(', "after `goto`")?;
            while !self.eat_punct(')') {
                if !asm.goto_labels.is_empty() {
                    self.expect_punct(',', "or `)` between goto labels")?;
                }
                asm.goto_labels
                    .push(self.block_ref("as an asm goto label")?);
            }
        }
        Ok(InstKind::InlineAsm(Box::new(asm)))
    }

    /// An integer literal's bit pattern in type `ty` (accepting the signed and the unsigned
    /// range of the width).
    pub(super) fn int_bits(&self, t: &Token, text: &str, ty: Type) -> Result<u128, ParseError> {
        if !(ty.is_int() || ty == Type::Ptr) {
            return Err(self.err_at(
                t,
                format!("expected an operand of type `{ty}`, found the integer `{text}`"),
            ));
        }
        let fits = |(neg, m): (bool, u128)| {
            if neg {
                (m <= 1u128 << (ty.bits() - 1)).then(|| m.wrapping_neg() & ty.mask())
            } else {
                (m <= ty.mask()).then_some(m)
            }
        };
        int_literal(text).and_then(fits).ok_or_else(|| {
            self.err_at(
                t,
                format!("expected an integer literal in the range of `{ty}`, found `{text}`"),
            )
        })
    }

    /// An operand whose literal (if any) takes type `ty` from its context: `vN`, a number,
    /// `inf`/`nan`, `null`, `undef`, `true`/`false` (always `i1`), `@name` and
    /// `blockaddress(blockN)` (always `ptr`).
    pub(super) fn operand(&mut self, ty: Type, ctx: impl Ctx) -> Result<Operand, ParseError> {
        if let Type::Agg(id) | Type::Vec(id) = ty {
            if self.is_punct('{') || self.is_punct('[') || self.is_punct('<') {
                return self.aggregate_const(ty, id.info());
            }
            if self.eat_word("zeroinitializer") {
                return Ok(Operand::Const(self.f.func.consts.zero(ty)));
            }
        }
        let t = self.peek();
        let data = match &t.tok {
            &Tok::Word(w) => {
                if let Some(v) = self.indexed(t, "v")? {
                    self.f.uses.push((v, t.line, t.col));
                    self.bump();
                    return Ok(Operand::Value(Value(v)));
                }
                let kind = match w {
                    "true" | "false" => {
                        self.bump();
                        return Ok(self.intern(ConstData::int(Type::I1, (w == "true") as u128)));
                    }
                    "null" => ConstKind::Null,
                    "undef" => ConstKind::Undef,
                    "inf" | "nan" if ty.is_float() => ConstKind::Float(self.float_bits(t, w, ty)?),
                    "blockaddress" => {
                        self.bump();
                        self.expect_punct('(', "after `blockaddress`")?;
                        let b = self.block_ref("in `blockaddress`")?;
                        self.expect_punct(')', "after the block of `blockaddress`")?;
                        return Ok(self.intern(ConstData {
                            ty: Type::Ptr,
                            kind: ConstKind::BlockAddr(b),
                        }));
                    }
                    _ => return Err(self.expected(|| format!("an operand {}", ctx.build()))),
                };
                ConstData { ty, kind }
            }
            Tok::Sym(_) => {
                let s = self.symbol_ref()?;
                return Ok(self.intern(ConstData {
                    ty: Type::Ptr,
                    kind: ConstKind::SymbolAddr(s),
                }));
            }
            Tok::Num(n) if ty.is_float() => ConstData {
                ty,
                kind: ConstKind::Float(self.float_bits(t, n, ty)?),
            },
            Tok::Num(n) => ConstData::int(ty, self.int_bits(t, n, ty)?),
            _ => return Err(self.expected(|| format!("an operand {}", ctx.build()))),
        };
        self.bump();
        Ok(self.intern(data))
    }

    /// An aggregate or vector constant of type `ty`: `{ T a, ... }`, `<{ T a, ... }>`,
    /// `[T a, ...]` or `<T a, ...>`, each member with its type.
    fn aggregate_const(&mut self, ty: Type, info: &AggInfo) -> Result<Operand, ParseError> {
        let (open, close, packed) = match &info.shape {
            AggShape::Array { .. } => ('[', ']', false),
            AggShape::Struct { packed, .. } => ('{', '}', *packed),
            AggShape::Vector { .. } => ('<', '>', false),
        };
        if packed {
            self.expect_punct('<', "to open a packed struct constant")?;
        }
        self.expect_punct(open, || format!("to open a constant of type {ty}"))?;
        let mut members = Vec::with_capacity(info.len());
        for i in 0..info.len() {
            if i > 0 {
                self.expect_punct(',', "between aggregate members")?;
            }
            let want = info.member(i).unwrap_or(Type::Void);
            let t = self.peek().clone();
            let got = self.ty("of an aggregate member")?;
            if got != want {
                return Err(self.err_at(
                    &t,
                    format!("member {i} of {ty} has type {want}, found {got}"),
                ));
            }
            let op = self.operand(want, "as an aggregate member")?;
            match op {
                Operand::Const(c) => members.push(c),
                Operand::Value(_) => {
                    return Err(
                        self.err_at(&t, "an aggregate constant member must be a constant".into())
                    )
                }
            }
        }
        self.expect_punct(close, || format!("to close a constant of type {ty}"))?;
        if packed {
            self.expect_punct('>', "to close a packed struct constant")?;
        }
        Ok(Operand::Const(self.f.func.consts.aggregate(ty, &members)))
    }

    pub(super) fn intern(&mut self, c: ConstData) -> Operand {
        Operand::Const(self.f.func.consts.intern(c))
    }

    /// A float literal's bit pattern in type `ty` (`f32` bits in the low 32 bits).
    pub(super) fn float_bits(&self, t: &Token, text: &str, ty: Type) -> Result<u128, ParseError> {
        let bits = if let Some(h) = text.strip_prefix("0x") {
            u128::from_str_radix(h, 16).ok().filter(|&b| b <= ty.mask())
        } else if ty == Type::F32 {
            text.parse::<f32>().ok().map(|x| x.to_bits() as u128)
        } else if ty == Type::F80 {
            crate::ir::fp80::parse(text)
        } else {
            text.parse::<f64>().ok().map(|x| x.to_bits() as u128)
        };
        bits.ok_or_else(|| {
            self.err_at(
                t,
                format!("expected a float literal of type `{ty}`, found `{text}`"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::*;
    use crate::text::{parse_module, print_module};

    /// Parses `ty lit` as the operand of `copy` and returns its constant.
    fn lit(ty: &str, text: &str) -> Result<ConstData, crate::text::ParseError> {
        let src = format!("func @f() -> void {{\nblock0:\n  v0 = copy {ty} {text}\n  ret\n}}\n");
        let m = parse_module(&src, "lit.sir")?;
        let f = &m.functions[0];
        match &f.insts[0].kind {
            InstKind::Copy {
                src: Operand::Const(c),
                ..
            } => Ok(f.consts.get(*c)),
            k => panic!("`copy {ty} {text}` parsed to a non-constant: {k:?}"),
        }
    }

    #[test]
    fn integer_literals() {
        assert_eq!(lit("i8", "-128"), Ok(ConstData::int(Type::I8, 0x80)));
        assert_eq!(lit("i8", "255"), Ok(ConstData::int(Type::I8, 0xff)));
        assert_eq!(lit("i8", "0xff"), Ok(ConstData::int(Type::I8, 0xff)));
        assert!(lit("i8", "256").is_err());
        assert!(lit("i8", "-129").is_err());
        assert!(lit("i8", "0x100").is_err());
        assert_eq!(lit("i1", "true"), Ok(ConstData::int(Type::I1, 1)));
        assert_eq!(lit("i1", "-1"), Ok(ConstData::int(Type::I1, 1)));
        assert!(lit("i1", "2").is_err());
        assert_eq!(lit("i128", "-1"), Ok(ConstData::int(Type::I128, u128::MAX)));
        assert!(lit("i128", "340282366920938463463374607431768211456").is_err());
        assert_eq!(lit("ptr", "16"), Ok(ConstData::int(Type::Ptr, 16)));
        assert_eq!(
            lit("ptr", "null"),
            Ok(ConstData {
                ty: Type::Ptr,
                kind: ConstKind::Null
            })
        );
        assert!(lit("i32", "1.5").is_err());
        assert!(lit("i32", "inf").is_err());
        assert!(lit("void", "0").is_err());
    }

    #[test]
    fn float_literals() {
        assert_eq!(lit("f64", "0.1"), Ok(ConstData::f64(0.1)));
        assert_eq!(lit("f32", "0.1"), Ok(ConstData::f32(0.1)));
        assert_eq!(lit("f64", "2"), Ok(ConstData::f64(2.0)));
        assert_eq!(lit("f64", "-inf"), Ok(ConstData::f64(f64::NEG_INFINITY)));
        assert_eq!(lit("f32", "inf"), Ok(ConstData::f32(f32::INFINITY)));
        assert_eq!(lit("f64", "1e-7"), Ok(ConstData::f64(1e-7)));
        assert_eq!(
            lit("f64", "0x7FF0000000000001").map(|c| c.kind),
            Ok(ConstKind::Float(0x7FF0_0000_0000_0001))
        );
        assert!(lit("f32", "0x7FF0000000000001").is_err());
        assert!(lit("f64", "nan").is_ok_and(
            |c| matches!(c.kind, ConstKind::Float(b) if f64::from_bits(b as u64).is_nan())
        ));
        assert!(lit("f64", "-0x1").is_err());
    }

    #[test]
    fn floats_print_canonically() {
        let src = "func @f() -> void {\nblock0:\n  v0 = fadd f64 0x7FF8000000000000, -0.0\n  v1 = fadd f32 nan, 3.4028235e38\n  v2 = fmul f64 1e300, 0.30000000000000004\n  ret\n}\n";
        let printed = print_module(&parse_module(src, "f.sir").unwrap());
        assert!(
            printed.contains("fadd f64 0x7FF8000000000000, -0.0"),
            "{printed}"
        );
        assert!(
            printed.contains("fadd f32 0x7FC00000, 3.4028235e38"),
            "{printed}"
        );
        assert!(
            printed.contains("fmul f64 1e300, 0.30000000000000004"),
            "{printed}"
        );
    }

    #[test]
    fn sparse_indices_and_budget() {
        let src = "func @f(i32 v7) -> i32 {\nblock3:\n  ret i32 v7\nblock0:\n  jump block3\n}\n";
        let m = parse_module(src, "s.sir").unwrap();
        let f = &m.functions[0];
        assert_eq!(f.values.len(), 8);
        assert_eq!(f.blocks.len(), 4);
        assert!(f.blocks[1].dead && f.blocks[2].dead && !f.blocks[3].dead);
        let printed = print_module(&m);
        assert!(printed.starts_with("func @f(i32 v7) -> i32 {\nblock0:\n  jump block3\nblock3:"));
        let huge = "func @f() -> void {\nblock0:\n  v4000000000 = add i32 1, 2\n  ret\n}\n";
        let e = parse_module(huge, "h.sir").unwrap_err();
        assert_eq!((e.line, e.col), (3, 3));
        let many = (0..40)
            .map(|i| {
                format!("func @f{i}() -> void {{\nblock0:\n  v1000000 = add i32 1, 2\n  ret\n}}\n")
            })
            .collect::<String>();
        assert!(parse_module(&many, "m.sir")
            .unwrap_err()
            .message
            .contains("value indices in all"));
    }
}

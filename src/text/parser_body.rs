//! Function bodies of the `.sir` parser: blocks, instructions, terminators and operands.
//!
//! Algorithm: recursive descent over the tokens of one function (see [`super::parser`] for
//! the syntax). Each definition (`vN` as parameter, block parameter or result; `blockN:`
//! label) writes entry `N` of a dense table, growing it with holes; each use is recorded
//! with its location and checked in [`Parser::function`] once the closing `}` is reached.
//! A literal operand is interned in the function's constant pool with the type its context
//! dictates (see [`Parser::operand`]).
//!
//! Invariants: a value or label is defined at most once (a second definition is an error at
//! its location); every block ends with exactly one terminator; the number of result names
//! equals `InstKind::result_types().len()`. Complexity: O(tokens) per function.

use super::lexer::{Tok, Token};
use super::parser::{int_literal, Parser};
use super::ParseError;
use crate::ir::*;
use smallvec::SmallVec;

const TERMINATORS: [&str; 6] = ["jump", "br", "switch", "indirect_br", "ret", "unreachable"];

impl Parser<'_> {
    /// Parses a function after `func @name`.
    pub(super) fn function(&mut self, s: Symbol, linkage: Linkage) -> Result<Function, ParseError> {
        let (signature, names) = self.signature(true)?;
        let phase = if self.eat_word("phase") {
            self.keyword("a phase name after `phase`", Phase::from_name)?
        } else {
            Phase::Memory
        };
        self.f = Default::default();
        self.f.func.name = self.module.symbols[s.index()].name.clone();
        self.f.func.linkage = linkage;
        self.f.func.phase = phase;
        for (i, t) in names.iter().enumerate() {
            let v = self.indexed(t, "v")?.unwrap_or(0);
            self.define_value(v, signature.params[i], ValueDef::Param(i as u32), t)?;
            self.f.func.param_values.push(Value(v));
        }
        self.f.func.signature = signature;
        self.expect_punct('{', "to open the function body")?;
        loop {
            let close = self.peek().clone();
            if self.eat_punct('}') {
                return self.finish_function(&close);
            }
            self.block()?;
        }
    }

    /// Checks the uses of the function that ends at `close` and returns it.
    fn finish_function(&mut self, close: &Token) -> Result<Function, ParseError> {
        let name = self.f.func.name.clone();
        if !self.f.block_defined.first().copied().unwrap_or(false) {
            return Err(self.err_at(
                close,
                format!("expected an entry block `block0` in `@{name}`, found none"),
            ));
        }
        for &(b, line, col) in &self.f.block_refs {
            if !self
                .f
                .block_defined
                .get(b as usize)
                .copied()
                .unwrap_or(false)
            {
                let t = Token {
                    tok: Tok::Eof,
                    line,
                    col,
                };
                return Err(self.err_at(
                    &t,
                    format!("expected a block defined in `@{name}`, found undefined `block{b}`"),
                ));
            }
        }
        for &(v, line, col) in &self.f.uses {
            if !self.f.defined.get(v as usize).copied().unwrap_or(false) {
                let t = Token {
                    tok: Tok::Eof,
                    line,
                    col,
                };
                return Err(self.err_at(
                    &t,
                    format!("expected a value defined in `@{name}`, found undefined `v{v}`"),
                ));
            }
        }
        Ok(std::mem::take(&mut self.f.func))
    }

    /// Records a definition of value `v`.
    fn define_value(
        &mut self,
        v: u32,
        ty: Type,
        def: ValueDef,
        t: &Token,
    ) -> Result<(), ParseError> {
        let i = v as usize;
        if i >= self.f.defined.len() {
            let growth = (i + 1 - self.f.defined.len()) as u64;
            if growth > self.left.values {
                return Err(self.err_at(t, format!("expected at most {} value indices in all for this input, found `v{v}` beyond them", self.limit.values)));
            }
            self.left.values -= growth;
            self.f.defined.resize(i + 1, false);
            self.f.func.values.resize(i + 1, ValueData::default());
        }
        if self.f.defined[i] {
            return Err(self.err_at(
                t,
                format!("expected a new value name, found `v{v}` defined a second time"),
            ));
        }
        self.f.defined[i] = true;
        self.f.func.values[i] = ValueData { ty, def };
        Ok(())
    }

    fn is_label(&self) -> bool {
        matches!(self.indexed(self.peek(), "block"), Ok(Some(_)))
            && matches!(self.peek_at(1), Tok::Punct(':') | Tok::Punct('('))
    }

    /// One block: label, parameters, instructions, terminator.
    fn block(&mut self) -> Result<(), ParseError> {
        let t = self.next();
        let Some(b) = self.indexed(&t, "block")? else {
            return Err(self.err_at(
                &t,
                format!("expected a block label `blockN:` or `}}`, found {}", t.tok),
            ));
        };
        let i = b as usize;
        if i >= self.f.block_defined.len() {
            let growth = (i + 1 - self.f.block_defined.len()) as u64;
            if growth > self.left.blocks {
                return Err(self.err_at(&t, format!("expected at most {} block indices in all for this input, found `block{b}` beyond them", self.limit.blocks)));
            }
            self.left.blocks -= growth;
            self.f.block_defined.resize(i + 1, false);
            self.f.func.blocks.resize(i + 1, BlockData::dead());
        }
        if self.f.block_defined[i] {
            return Err(self.err_at(
                &t,
                format!("expected a new block label, found `block{b}` defined a second time"),
            ));
        }
        self.f.block_defined[i] = true;
        self.f.func.blocks[i] = BlockData::new();
        if self.eat_punct('(') {
            loop {
                let ty = self.ty("of a block parameter")?;
                let vt = self.next();
                let Some(v) = self.indexed(&vt, "v")? else {
                    return Err(self.err_at(
                        &vt,
                        format!("expected a block parameter `vN`, found {}", vt.tok),
                    ));
                };
                let n = self.f.func.blocks[i].params.len() as u32;
                self.define_value(v, ty, ValueDef::BlockParam(Block(b), n), &vt)?;
                self.f.func.blocks[i].params.push(Value(v));
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',', "or `)` after a block parameter")?;
            }
        }
        self.expect_punct(':', "after the block label")?;
        loop {
            if self.is_label() || matches!(self.peek().tok, Tok::Punct('}') | Tok::Eof) {
                return Err(self.expected(&format!("an instruction or a terminator in `block{b}`")));
            }
            if let Some(term) = self.instruction(Block(b))? {
                self.f.func.blocks[i].terminator = term;
                break;
            }
        }
        if !self.is_label() && self.peek().tok != Tok::Punct('}') {
            return Err(self.expected(&format!(
                "a block label or `}}` after the terminator of `block{b}`"
            )));
        }
        Ok(())
    }

    /// One instruction (appended to `block`) or the block's terminator (returned).
    fn instruction(&mut self, block: Block) -> Result<Option<Terminator>, ParseError> {
        let start = self.peek().clone();
        let mut results: Vec<(u32, Token)> = Vec::new();
        if self.indexed(&start, "v")?.is_some() && matches!(self.peek_at(1), Tok::Punct(',' | '='))
        {
            loop {
                let t = self.next();
                let Some(v) = self.indexed(&t, "v")? else {
                    return Err(
                        self.err_at(&t, format!("expected a result value `vN`, found {}", t.tok))
                    );
                };
                results.push((v, t));
                if self.eat_punct('=') {
                    break;
                }
                self.expect_punct(',', "or `=` after a result value")?;
            }
        }
        let op_tok = self.peek().clone();
        let Tok::Word(op) = &op_tok.tok else {
            return Err(self.expected("an instruction opcode or a terminator"));
        };
        let op = op.clone();
        self.next();
        if TERMINATORS.contains(&op.as_str()) {
            if !results.is_empty() {
                return Err(self.err_at(
                    &start,
                    format!(
                        "expected no results before the terminator `{op}`, found {}",
                        start.tok
                    ),
                ));
            }
            return self.terminator(&op).map(Some);
        }
        let kind = self.inst_kind(&op, &op_tok)?;
        let types = kind.result_types();
        if types.len() != results.len() {
            return Err(self.err_at(
                &start,
                format!(
                    "expected {} result value(s) for `{op}`, found {}",
                    types.len(),
                    results.len()
                ),
            ));
        }
        let inst = Inst::new(self.f.func.insts.len());
        let mut values = SmallVec::new();
        for (n, ((v, t), ty)) in results.iter().zip(types).enumerate() {
            self.define_value(*v, ty, ValueDef::Result(inst, n as u32), t)?;
            values.push(Value(*v));
        }
        self.f.func.insts.push(InstData {
            kind,
            results: values,
            block,
        });
        self.f.func.blocks[block.index()].insts.push(inst);
        Ok(None)
    }

    fn comma(&mut self, op: &str, after: &str) -> Result<(), ParseError> {
        self.expect_punct(',', &format!("after the {after} of `{op}`"))
    }

    /// `TY a, b`.
    fn two_operands(&mut self, op: &str) -> Result<(Type, Operand, Operand), ParseError> {
        let ty = self.ty(&format!("in `{op}`"))?;
        let lhs = self.operand(ty, &format!("as the first operand of `{op}`"))?;
        self.comma(op, "first operand")?;
        let rhs = self.operand(ty, &format!("as the second operand of `{op}`"))?;
        Ok((ty, lhs, rhs))
    }

    fn volatile_suffix(&mut self) -> bool {
        if self.peek().tok == Tok::Punct(',')
            && matches!(self.peek_at(1), Tok::Word(w) if w == "volatile")
        {
            self.next();
            self.next();
            true
        } else {
            false
        }
    }

    fn ordering(&mut self) -> Result<Ordering, ParseError> {
        self.keyword("a memory ordering", Ordering::from_name)
    }

    /// `(TY op, ...)`.
    fn typed_args(&mut self, what: &str) -> Result<SmallVec<[Operand; 4]>, ParseError> {
        let mut args = SmallVec::new();
        self.expect_punct('(', &format!("to open the {what}"))?;
        if self.eat_punct(')') {
            return Ok(args);
        }
        loop {
            let ty = self.ty(&format!("of an operand in the {what}"))?;
            args.push(self.operand(ty, &format!("in the {what}"))?);
            if self.eat_punct(')') {
                return Ok(args);
            }
            self.expect_punct(',', &format!("or `)` in the {what}"))?;
        }
    }

    fn inst_kind(&mut self, op: &str, op_tok: &Token) -> Result<InstKind, ParseError> {
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
                let cond = self.operand(Type::I1, "as the condition")?;
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
                InstKind::CmpXchg {
                    ty,
                    ptr,
                    expected,
                    new,
                    success,
                    failure,
                }
            }
            "fence" => InstKind::Fence {
                ordering: self.ordering()?,
            },
            "phi" => {
                let ty = self.ty("after `phi`")?;
                let mut incoming = SmallVec::new();
                if self.peek().tok == Tok::Punct('[') {
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
                    let ty = self.ty(&format!("after `{op}`"))?;
                    InstKind::Unary {
                        op: uop,
                        ty,
                        arg: self.operand(ty, "as the operand")?,
                    }
                } else if let Some(cop) = CastOp::from_name(op) {
                    let from = self.ty(&format!("after `{op}`"))?;
                    let arg = self.operand(from, "as the operand")?;
                    self.expect_word("to", &format!("after the operand of `{op}`"))?;
                    let to = self.ty("after `to`")?;
                    InstKind::Cast {
                        op: cop,
                        from,
                        to,
                        arg,
                    }
                } else {
                    return Err(self.err_at(
                        op_tok,
                        format!("expected an instruction opcode or a terminator, found `{op}`"),
                    ));
                }
            }
        })
    }

    fn inline_asm(&mut self) -> Result<InstKind, ParseError> {
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
                let t = self.peek().clone();
                let c = self.string("an output constraint string")?;
                let Some(constraint) = c.strip_prefix('=') else {
                    return Err(self.err_at(
                        &t,
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

    fn block_ref(&mut self, ctx: &str) -> Result<Block, ParseError> {
        let t = self.peek().clone();
        match self.indexed(&t, "block")? {
            Some(b) => {
                self.next();
                self.f.block_refs.push((b, t.line, t.col));
                Ok(Block(b))
            }
            None => Err(self.expected(&format!("a block `blockN` {ctx}"))),
        }
    }

    fn target(&mut self, ctx: &str) -> Result<Target, ParseError> {
        let block = self.block_ref(ctx)?;
        let mut args = Vec::new();
        if self.peek().tok == Tok::Punct('(') {
            args = self.typed_args("branch argument list")?.into_vec();
        }
        Ok(Target { block, args })
    }

    fn terminator(&mut self, op: &str) -> Result<Terminator, ParseError> {
        Ok(match op {
            "jump" => Terminator::Jump(self.target("after `jump`")?),
            "br" => {
                let cond = self.operand(Type::I1, "as the condition of `br`")?;
                self.comma(op, "condition")?;
                let then_dest = self.target("as the first successor of `br`")?;
                self.comma(op, "first successor")?;
                let else_dest = self.target("as the second successor of `br`")?;
                Terminator::Br {
                    cond,
                    then_dest,
                    else_dest,
                }
            }
            "switch" => {
                let ty = self.ty("after `switch`")?;
                let value = self.operand(ty, "as the scrutinee of `switch`")?;
                self.comma(op, "scrutinee")?;
                let default = self.target("as the default of `switch`")?;
                self.expect_punct('[', "to open the cases of `switch`")?;
                let mut cases = Vec::new();
                while !self.eat_punct(']') {
                    if !cases.is_empty() {
                        self.expect_punct(',', "or `]` between cases")?;
                    }
                    let t = self.peek().clone();
                    let Tok::Num(n) = &t.tok else {
                        return Err(self.expected("an integer case value"));
                    };
                    let c = self.int_bits(&t, n, ty)?;
                    self.next();
                    self.expect_punct(':', "after a case value")?;
                    cases.push((c, self.target("as a case destination")?));
                }
                Terminator::Switch {
                    ty,
                    value,
                    default,
                    cases,
                }
            }
            "indirect_br" => {
                let addr = self.operand(Type::Ptr, "as the address of `indirect_br`")?;
                self.comma(op, "address")?;
                self.expect_punct('[', "to open the destinations of `indirect_br`")?;
                let mut dests = Vec::new();
                while !self.eat_punct(']') {
                    if !dests.is_empty() {
                        self.expect_punct(',', "or `]` between destinations")?;
                    }
                    dests.push(self.block_ref("as a destination")?);
                }
                Terminator::IndirectBr { addr, dests }
            }
            "ret" => match &self.peek().tok {
                Tok::Word(w) if Type::from_name(w).is_some() => {
                    let ty = self.ty("after `ret`")?;
                    if ty == Type::Void {
                        Terminator::Ret(None)
                    } else {
                        Terminator::Ret(Some(self.operand(ty, "as the returned value")?))
                    }
                }
                _ => Terminator::Ret(None),
            },
            _ => Terminator::Unreachable,
        })
    }

    /// An integer literal's bit pattern in type `ty` (accepting the signed and the unsigned
    /// range of the width).
    fn int_bits(&self, t: &Token, text: &str, ty: Type) -> Result<u128, ParseError> {
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
    pub(super) fn operand(&mut self, ty: Type, ctx: &str) -> Result<Operand, ParseError> {
        let t = self.peek().clone();
        let data = match &t.tok {
            Tok::Word(w) => {
                if let Some(v) = self.indexed(&t, "v")? {
                    self.next();
                    self.f.uses.push((v, t.line, t.col));
                    return Ok(Operand::Value(Value(v)));
                }
                let kind = match w.as_str() {
                    "true" | "false" => {
                        self.next();
                        return Ok(self.intern(ConstData::int(Type::I1, (w == "true") as u128)));
                    }
                    "null" => ConstKind::Null,
                    "undef" => ConstKind::Undef,
                    "inf" | "nan" if ty.is_float() => ConstKind::Float(self.float_bits(&t, w, ty)?),
                    "blockaddress" => {
                        self.next();
                        self.expect_punct('(', "after `blockaddress`")?;
                        let b = self.block_ref("in `blockaddress`")?;
                        self.expect_punct(')', "after the block of `blockaddress`")?;
                        return Ok(self.intern(ConstData {
                            ty: Type::Ptr,
                            kind: ConstKind::BlockAddr(b),
                        }));
                    }
                    _ => return Err(self.expected(&format!("an operand {ctx}"))),
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
                kind: ConstKind::Float(self.float_bits(&t, n, ty)?),
            },
            Tok::Num(n) => ConstData::int(ty, self.int_bits(&t, n, ty)?),
            _ => return Err(self.expected(&format!("an operand {ctx}"))),
        };
        self.next();
        Ok(self.intern(data))
    }

    fn intern(&mut self, c: ConstData) -> Operand {
        Operand::Const(self.f.func.consts.intern(c))
    }

    /// A float literal's bit pattern in type `ty` (`f32` bits in the low 32 bits).
    fn float_bits(&self, t: &Token, text: &str, ty: Type) -> Result<u64, ParseError> {
        let bits = if let Some(h) = text.strip_prefix("0x") {
            u64::from_str_radix(h, 16)
                .ok()
                .filter(|&b| ty == Type::F64 || b <= u32::MAX as u64)
        } else if ty == Type::F32 {
            text.parse::<f32>().ok().map(|x| x.to_bits() as u64)
        } else {
            text.parse::<f64>().ok().map(f64::to_bits)
        };
        bits.ok_or_else(|| {
            self.err_at(
                t,
                format!("expected a float literal of type `{ty}`, found `{text}`"),
            )
        })
    }
}

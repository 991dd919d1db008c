//! Function bodies of the `.sir` parser: signature, blocks, instruction framing and
//! terminators (instruction kinds and operands are in `parser_inst`).
//!
//! Algorithm: recursive descent over the tokens of one function (see [`super::parser`] for
//! the syntax). Each definition (`vN` as parameter, block parameter or result; `blockN:`
//! label) writes entry `N` of a dense table, growing it with holes (charged to the parse's
//! [`super::parser::Budget`]); each use of a value or block is recorded with its location
//! and checked once the closing `}` is reached, so uses may precede definitions.
//!
//! Invariants: a value or label is defined at most once (a second definition is an error at
//! its location); block 0 exists; every block ends with exactly one terminator, and
//! anything but a label or `}` after it is an error; the number of result names equals
//! `InstKind::result_types().len()`. Complexity: O(tokens) per function, plus the table
//! growth, bounded by the budget.

use super::lexer::Tok;
use super::parser::{Ctx, Parser};
use super::ParseError;
use crate::ir::*;
use smallvec::SmallVec;

/// Whether `op` names a terminator.
fn is_terminator(op: &str) -> bool {
    matches!(
        op,
        "jump" | "br" | "switch" | "indirect_br" | "ret" | "unreachable"
    )
}

impl<'a> Parser<'a> {
    /// Parses a function after `func @name`.
    pub(super) fn function(&mut self, s: Symbol, linkage: Linkage) -> Result<Function, ParseError> {
        let (signature, names) = self.signature(true)?;
        let phase = if self.eat_word("phase") {
            self.keyword("a phase name after `phase`", Phase::from_name)?
        } else {
            Phase::Memory
        };
        // Reuse the scratch tables' memory from function to function.
        self.f.func = Function::default();
        self.f.defined.clear();
        self.f.block_defined.clear();
        self.f.uses.clear();
        self.f.block_refs.clear();
        // A printed instruction takes about 20-30 bytes; reserving for one per 32 bytes of
        // the body saves most of the tables' regrowth and over-reserves by a bounded factor.
        let estimate = self.bodies.next().unwrap_or(0) / 32;
        self.f.func.insts.reserve(estimate);
        self.f.func.values.reserve(estimate);
        self.f.defined.reserve(estimate);
        self.f.func.name = self.module.symbols[s.index()].name.clone();
        self.f.func.linkage = linkage;
        self.f.func.phase = phase;
        for (i, t) in names.iter().enumerate() {
            let v = self.indexed(t, "v")?.unwrap_or(0);
            self.define_value(
                v,
                signature.params[i],
                ValueDef::Param(i as u32),
                (t.line, t.col),
            )?;
            self.f.func.param_values.push(Value(v));
        }
        self.f.func.signature = signature;
        self.expect_punct('{', "to open the function body")?;
        loop {
            let close = (self.peek().line, self.peek().col);
            if self.eat_punct('}') {
                return self.finish_function(close);
            }
            self.block()?;
        }
    }

    /// Checks the uses of the function that ends at `close` and returns it.
    fn finish_function(&mut self, close: (u32, u32)) -> Result<Function, ParseError> {
        let name = &self.f.func.name;
        if !self.f.block_defined.first().copied().unwrap_or(false) {
            return Err(self.err_loc(
                close.0,
                close.1,
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
                return Err(self.err_loc(
                    line,
                    col,
                    format!("expected a block defined in `@{name}`, found undefined `block{b}`"),
                ));
            }
        }
        for &(v, line, col) in &self.f.uses {
            if !self.f.defined.get(v as usize).copied().unwrap_or(false) {
                return Err(self.err_loc(
                    line,
                    col,
                    format!("expected a value defined in `@{name}`, found undefined `v{v}`"),
                ));
            }
        }
        Ok(std::mem::take(&mut self.f.func))
    }

    /// True if `v` is already defined, with type `ty`, by a `copy` instruction.
    fn defined_by_copy(&self, v: u32, ty: Type) -> bool {
        let i = v as usize;
        if !self.f.defined.get(i).copied().unwrap_or(false) {
            return false;
        }
        let data = self.f.func.values[i];
        match data.def {
            ValueDef::Result(inst, 0) => {
                data.ty == ty
                    && matches!(
                        self.f.func.insts.get(inst.index()).map(|d| &d.kind),
                        Some(InstKind::Copy { .. })
                    )
            }
            _ => false,
        }
    }

    /// Records a definition of value `v`.
    fn define_value(
        &mut self,
        v: u32,
        ty: Type,
        def: ValueDef,
        (line, col): (u32, u32),
    ) -> Result<(), ParseError> {
        let i = v as usize;
        if i >= self.f.defined.len() {
            let growth = (i + 1 - self.f.defined.len()) as u64;
            if growth > self.left.values {
                return Err(self.err_loc(line, col, format!("expected at most {} value indices in all for this input, found `v{v}` beyond them", self.limit.values)));
            }
            self.left.values -= growth;
            self.f.defined.resize(i + 1, false);
            self.f.func.values.resize(i + 1, ValueData::default());
        }
        if self.f.defined[i] {
            return Err(self.err_loc(
                line,
                col,
                format!("expected a new value name, found `v{v}` defined a second time"),
            ));
        }
        self.f.defined[i] = true;
        self.f.func.values[i] = ValueData { ty, def };
        Ok(())
    }

    fn is_label(&self) -> bool {
        matches!(self.indexed(self.peek(), "block"), Ok(Some(_)))
            && (self.second_is_punct(b':') || self.second_is_punct(b'('))
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
                self.define_value(v, ty, ValueDef::BlockParam(Block(b), n), (vt.line, vt.col))?;
                self.f.func.blocks[i].params.push(Value(v));
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',', "or `)` after a block parameter")?;
            }
        }
        self.expect_punct(':', "after the block label")?;
        self.f.block_insts.clear();
        loop {
            if self.is_label() || matches!(self.peek().tok, Tok::Punct('}') | Tok::Eof) {
                return Err(
                    self.expected(|| format!("an instruction or a terminator in `block{b}`"))
                );
            }
            if let Some(term) = self.instruction(Block(b))? {
                let block = &mut self.f.func.blocks[i];
                block.terminator = term;
                block.insts = self.f.block_insts.clone();
                break;
            }
        }
        if !self.is_label() && !self.is_punct('}') {
            return Err(self
                .expected(|| format!("a block label or `}}` after the terminator of `block{b}`")));
        }
        Ok(())
    }

    /// One instruction (appended to `block`) or the block's terminator (returned).
    fn instruction(&mut self, block: Block) -> Result<Option<Terminator>, ParseError> {
        let start = self.peek().clone();
        // Each result: (value index, line, col).
        let mut results: SmallVec<[(u32, u32, u32); 2]> = SmallVec::new();
        if self.indexed(self.peek(), "v")?.is_some()
            && (self.second_is_punct(b',') || self.second_is_punct(b'='))
        {
            loop {
                let t = self.peek();
                let Some(v) = self.indexed(t, "v")? else {
                    return Err(
                        self.err_at(t, format!("expected a result value `vN`, found {}", t.tok))
                    );
                };
                results.push((v, t.line, t.col));
                self.bump();
                if self.eat_punct('=') {
                    break;
                }
                self.expect_punct(',', "or `=` after a result value")?;
            }
        }
        let op_at = (self.peek().line, self.peek().col);
        let Tok::Word(op) = self.peek().tok else {
            return Err(self.expected("an instruction opcode or a terminator"));
        };
        self.bump();
        if is_terminator(op) {
            if !results.is_empty() {
                return Err(self.err_at(
                    &start,
                    format!(
                        "expected no results before the terminator `{op}`, found {}",
                        start.tok
                    ),
                ));
            }
            return self.terminator(op).map(Some);
        }
        let kind = self.inst_kind(op, op_at)?;
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
        // From the `destructed` phase on, phi elimination's copies define one value in several
        // predecessors; the value table keeps the first definition (see the verifier).
        let copy_redefinition =
            !self.f.func.phase.single_definition() && matches!(kind, InstKind::Copy { .. });
        for (n, (&(v, line, col), ty)) in results.iter().zip(types).enumerate() {
            if copy_redefinition && self.defined_by_copy(v, ty) {
                values.push(Value(v));
                continue;
            }
            self.define_value(v, ty, ValueDef::Result(inst, n as u32), (line, col))?;
            values.push(Value(v));
        }
        self.f.func.insts.push(InstData {
            kind,
            results: values,
            block,
        });
        self.f.block_insts.push(inst);
        Ok(None)
    }

    pub(super) fn block_ref(&mut self, ctx: impl Ctx) -> Result<Block, ParseError> {
        let t = self.peek();
        match self.indexed(t, "block")? {
            Some(b) => {
                self.f.block_refs.push((b, t.line, t.col));
                self.bump();
                Ok(Block(b))
            }
            None => Err(self.expected(|| format!("a block `blockN` {}", ctx.build()))),
        }
    }

    pub(super) fn target(&mut self, ctx: impl Ctx) -> Result<Target, ParseError> {
        let block = self.block_ref(ctx)?;
        let mut args = Vec::new();
        if self.is_punct('(') {
            args = self.typed_args("branch argument list")?.into_vec();
        }
        Ok(Target { block, args })
    }

    pub(super) fn terminator(&mut self, op: &str) -> Result<Terminator, ParseError> {
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
                    let t = self.peek();
                    let Tok::Num(n) = &t.tok else {
                        return Err(self.expected("an integer case value"));
                    };
                    let c = self.int_bits(t, n, ty)?;
                    self.bump();
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
            "ret" => match self.peek().tok {
                Tok::Punct('{' | '[' | '<') => {
                    let ty = self.ty("after `ret`")?;
                    Terminator::Ret(Some(self.operand(ty, "as the returned value")?))
                }
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
}

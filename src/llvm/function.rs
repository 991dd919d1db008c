//! Lowering of one LLVM function body to a strata [`Function`], in one pass.
//!
//! Algorithm: a pre-scan of the body's tokens creates one block per label (the unlabelled
//! entry block takes LLVM's implicit number, the count of unnamed parameters), so branches
//! may name later blocks. Then each instruction is parsed and lowered immediately with the
//! [`FunctionBuilder`]. A value used before its definition (a phi operand from a later
//! block, or a use in a block that comes textually later than its dominating definition)
//! gets a placeholder value of the use's type; when the name is defined the placeholder is
//! recorded for substitution, and one final sweep over all operands replaces placeholders
//! (following chains). Pointer `bitcast`s, all-zero GEPs and `bitcast` constant expressions
//! are aliases: the name maps to an existing operand. `cmpxchg` and multi-output asm define
//! a tuple, read back by `extractvalue`.
//!
//! When a global initialiser takes a `blockaddress` of this function, the original block
//! labels are returned too, so export can rename them in the verbatim global text.
//!
//! Invariants of the result: every block has a terminator, every placeholder is resolved,
//! operand types match their instruction (checked against the LLVM types as written), phis
//! only in `Phase::Ssa` functions. Complexity: O(tokens + operands).

use super::consts::{const_int, float_bits, gep_fold, GepIdx};
use super::layout::LType;
use super::lexer::{Tok, Token};
use super::parse::{cast_op, Cursor, PErr, PResult, TVal, Val};
use super::{CallSite, LlvmParam, ModuleInfo};
use crate::ir::*;
use smallvec::SmallVec;
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher (FxHash's scheme) for the per-function name maps: names are
/// short and hashed often, and SipHash's flooding resistance is not worth its cost here.
#[derive(Default, Clone, Copy)]
pub struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// A `HashMap` with [`NameHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<NameHasher>>;

/// What a local name stands for.
#[derive(Clone, Debug)]
enum Local {
    /// A scalar operand.
    Op(Operand),
    /// An aggregate result split into scalars (`cmpxchg`, multi-output asm).
    Tuple(SmallVec<[Operand; 2]>),
}

struct Lower<'a, 'm> {
    c: Cursor<'a>,
    m: &'m ModuleInfo,
    b: FunctionBuilder,
    fname: &'m str,
    blocks: FastMap<Cow<'a, str>, Block>,
    locals: FastMap<Cow<'a, str>, Local>,
    pending: FastMap<Cow<'a, str>, (Value, Type, Token)>,
    subst: FastMap<Value, Operand>,
    calls: Vec<(u32, CallSite)>,
    has_phi: bool,
    /// Blocks that already hold a non-phi instruction of their own (phis must come first).
    non_phi: Vec<bool>,
    /// Instructions materialised for phi operands, to be moved to the end of their block.
    deferred: Vec<Inst>,
    /// Token where the current instruction started (for errors).
    at: Token,
}

/// Lowers the body tokens `body` (after `{`, ending at the closing `}` or the item end) of
/// function `name`. Returns the function and its call-site records, or the first error.
pub fn lower(
    src: &str,
    body: &[Token],
    m: &ModuleInfo,
    name: &str,
    sig: Signature,
    param_names: &[Option<String>],
    keep_labels: bool,
) -> PResult<Lowered> {
    // The body ends at the last `}`.
    let end = body.iter().rposition(|t| t.kind == Tok::RBrace);
    let Some(end) = end else {
        let t = body.last().copied().unwrap_or(Token {
            kind: Tok::Eof,
            start: 0,
            end: 0,
            line: 0,
            col: 0,
        });
        return Err(PErr {
            line: t.line,
            col: t.col,
            msg: "function body is not closed by `}`".into(),
        });
    };
    // The cursor reports a synthetic end-of-input token past the slice.
    let toks = &body[..end];
    let mut l = Lower {
        c: Cursor::new(src, toks),
        m,
        b: FunctionBuilder::new(name, sig),
        fname: name,
        blocks: FastMap::default(),
        // About one named value per 8 tokens in clang output: avoid rehashing.
        locals: FastMap::with_capacity_and_hasher(end / 8, Default::default()),
        pending: FastMap::default(),
        subst: FastMap::default(),
        calls: Vec::new(),
        has_phi: false,
        non_phi: Vec::new(),
        deferred: Vec::new(),
        at: body[end],
    };
    l.body(param_names)?;
    let labels = if keep_labels {
        let mut v: Vec<(String, u32)> =
            l.blocks.iter().map(|(k, b)| (k.to_string(), b.0)).collect();
        v.sort_by_key(|(_, b)| *b);
        v
    } else {
        Vec::new()
    };
    let mut function = l.b.finish();
    if l.has_phi {
        function.phase = Phase::Ssa;
    }
    Ok(Lowered {
        function,
        calls: l.calls,
        labels,
    })
}

/// The result of lowering one function body.
pub struct Lowered {
    /// The function.
    pub function: Function,
    /// Call shapes by instruction index, in increasing order.
    pub calls: Vec<(u32, CallSite)>,
    /// Original block labels and their blocks (only when requested).
    pub labels: Vec<(String, u32)>,
}

fn is_float_op(op: BinaryOp) -> bool {
    op.is_float()
}

fn binary_op(w: &str) -> Option<BinaryOp> {
    Some(match w {
        "add" => BinaryOp::Add,
        "sub" => BinaryOp::Sub,
        "mul" => BinaryOp::Mul,
        "sdiv" => BinaryOp::SDiv,
        "udiv" => BinaryOp::UDiv,
        "srem" => BinaryOp::SRem,
        "urem" => BinaryOp::URem,
        "and" => BinaryOp::And,
        "or" => BinaryOp::Or,
        "xor" => BinaryOp::Xor,
        "shl" => BinaryOp::Shl,
        "lshr" => BinaryOp::LShr,
        "ashr" => BinaryOp::AShr,
        "fadd" => BinaryOp::FAdd,
        "fsub" => BinaryOp::FSub,
        "fmul" => BinaryOp::FMul,
        "fdiv" => BinaryOp::FDiv,
        "frem" => BinaryOp::FRem,
        _ => return None,
    })
}

fn is_flag(w: &str) -> bool {
    matches!(
        w,
        "nuw"
            | "nsw"
            | "exact"
            | "nnan"
            | "ninf"
            | "nsz"
            | "arcp"
            | "contract"
            | "afn"
            | "reassoc"
            | "fast"
            | "inbounds"
    )
}

fn ordering(w: &str) -> Option<Ordering> {
    Some(match w {
        "monotonic" | "unordered" => Ordering::Monotonic,
        "acquire" => Ordering::Acquire,
        "release" => Ordering::Release,
        "acq_rel" => Ordering::AcqRel,
        "seq_cst" => Ordering::SeqCst,
        _ => return None,
    })
}

/// Words that start a value (so they end an argument's attribute list).
fn is_value_word(w: &str) -> bool {
    matches!(
        w,
        "true"
            | "false"
            | "null"
            | "none"
            | "undef"
            | "poison"
            | "zeroinitializer"
            | "getelementptr"
            | "blockaddress"
            | "dso_local_equivalent"
            | "no_cfi"
    ) || cast_op(w).is_some()
        || binary_op(w).is_some()
        || matches!(
            w,
            "icmp"
                | "fcmp"
                | "select"
                | "extractvalue"
                | "insertvalue"
                | "extractelement"
                | "insertelement"
                | "shufflevector"
                | "fneg"
        )
}

impl<'a, 'm> Lower<'a, 'm> {
    fn err<T>(&self, t: Token, msg: impl Into<String>) -> PResult<T> {
        self.c.err_at(t, msg)
    }

    fn scalar(&self, ty: &LType, t: Token) -> PResult<Type> {
        match ty.scalar() {
            Some(Type::Void) | None => self.err(t, format!("unsupported value type {ty}")),
            Some(s) => Ok(s),
        }
    }

    fn body(&mut self, param_names: &[Option<String>]) -> PResult<()> {
        // Parameters.
        let mut unnamed = 0usize;
        for (i, n) in param_names.iter().enumerate() {
            let v = self.b.param(i);
            match n {
                Some(n) => {
                    if n.bytes().all(|c| c.is_ascii_digit()) {
                        unnamed += 1;
                    }
                    self.locals
                        .insert(Cow::Owned(n.clone()), Local::Op(v.into()));
                }
                None => {
                    self.locals
                        .insert(Cow::Owned(unnamed.to_string()), Local::Op(v.into()));
                    unnamed += 1;
                }
            }
        }
        // Pre-scan labels.
        let toks = self.c.toks;
        let mut order: Vec<Cow<'a, str>> = Vec::new();
        if toks.first().is_some_and(|t| t.kind != Tok::Label) {
            order.push(Cow::Owned(unnamed.to_string()));
        }
        let mut prev_line = 0;
        for t in toks {
            if t.kind == Tok::Label && t.line != prev_line {
                order.push(self.c.name(*t));
            }
            prev_line = t.line;
        }
        for (i, name) in order.into_iter().enumerate() {
            let blk = if i == 0 {
                Block(0)
            } else {
                self.b.create_block()
            };
            if self.blocks.insert(name.clone(), blk).is_some() {
                let t = toks
                    .iter()
                    .find(|t| t.kind == Tok::Label && self.c.name(**t) == name)
                    .copied()
                    .unwrap_or(toks[0]);
                return self.err(t, format!("block label %{name} is defined twice"));
            }
        }
        // Instructions.
        let mut current: Option<Block> = Some(Block(0));
        let mut next_block = 1u32;
        let mut first = true;
        loop {
            let t = self.c.peek();
            match t.kind {
                Tok::Eof => break,
                Tok::Label => {
                    self.c.bump();
                    if let Some(cb) = current {
                        if !first {
                            return self.err(
                                t,
                                format!(
                                    "block {cb} does not end with a terminator before label `{}`",
                                    self.c.name(t)
                                ),
                            );
                        }
                    }
                    // The pre-scan created blocks for labels that start a line, in order.
                    let blk = match self.blocks.get(&self.c.name(t)) {
                        Some(&b) if b == Block(if first { 0 } else { next_block }) => b,
                        _ => return self.err(t, format!("unexpected label `{}`", self.c.name(t))),
                    };
                    if !first {
                        next_block += 1;
                    }
                    first = false;
                    self.b.switch_to(blk);
                    current = Some(blk);
                    continue;
                }
                _ => {}
            }
            first = false;
            if current.is_none() {
                return self.err(t, "instruction after a terminator (expected a block label)");
            }
            let terminated = self.instruction()?;
            if terminated {
                current = None;
            }
        }
        if let Some(cb) = current {
            let t = self.c.peek();
            return self.err(t, format!("block {cb} does not end with a terminator"));
        }
        self.move_deferred();
        self.resolve()
    }

    /// Moves instructions materialised for phi operands to the end of their (predecessor)
    /// block, after that block's own phis and instructions.
    fn move_deferred(&mut self) {
        if self.deferred.is_empty() {
            return;
        }
        let deferred = std::mem::take(&mut self.deferred);
        let f = self.b.function_mut();
        let mut is_deferred = vec![false; f.insts.len()];
        for &i in &deferred {
            is_deferred[i.index()] = true;
        }
        let mut touched: Vec<Block> = deferred.iter().map(|i| f.insts[i.index()].block).collect();
        touched.sort_unstable();
        touched.dedup();
        for blk in touched {
            f.blocks[blk.index()]
                .insts
                .retain(|j| !is_deferred[j.index()]);
        }
        // Re-append in creation order: they only depend on constants and each other.
        for &i in &deferred {
            let blk = f.insts[i.index()].block;
            f.blocks[blk.index()].insts.push(i);
        }
    }

    /// Resolves forward references and substitutes placeholders.
    fn resolve(&mut self) -> PResult<()> {
        // Report the earliest unresolved use, so the error does not depend on hash order.
        if let Some((name, (_, _, t))) = self
            .pending
            .iter()
            .min_by_key(|(_, (_, _, t))| (t.line, t.col))
        {
            return self.err(*t, format!("use of undefined value %{name}"));
        }
        if self.subst.is_empty() {
            return Ok(());
        }
        // Flatten chains (a placeholder resolved to another placeholder) once, so the sweep
        // below is one lookup per operand. A cycle cannot occur: a name is defined once.
        let mut subst = std::mem::take(&mut self.subst);
        let keys: Vec<Value> = subst.keys().copied().collect();
        let mut path = Vec::new();
        for k in keys {
            let mut op = Operand::Value(k);
            path.clear();
            while let Operand::Value(v) = op {
                match subst.get(&v) {
                    Some(&n) if path.len() <= subst.len() => {
                        path.push(v);
                        op = n;
                    }
                    _ => break,
                }
            }
            for v in &path {
                subst.insert(*v, op);
            }
        }
        let chase = |op: Operand| -> Operand {
            match op {
                Operand::Value(v) => subst.get(&v).copied().unwrap_or(op),
                Operand::Const(_) => op,
            }
        };
        let f = self.b.function_mut();
        for inst in &mut f.insts {
            inst.kind.for_each_operand_mut(|o| *o = chase(*o));
        }
        for blk in &mut f.blocks {
            blk.terminator.for_each_operand_mut(|o| *o = chase(*o));
        }
        Ok(())
    }

    fn konst(&mut self, c: ConstData) -> Operand {
        self.b.constant(c)
    }

    /// Defines local `name` (if any) as `v`.
    fn define(&mut self, name: Option<(Cow<'a, str>, Token)>, v: Local) -> PResult<()> {
        let Some((name, t)) = name else { return Ok(()) };
        if let Some((ph, ty, _)) = self.pending.remove(&name) {
            match &v {
                Local::Op(op) => {
                    let actual = self.b.function().operand_type(*op);
                    if actual != ty {
                        return self
                            .err(t, format!("%{name} has type {actual} but was used as {ty}"));
                    }
                    self.subst.insert(ph, *op);
                }
                Local::Tuple(_) => {
                    return self.err(
                        t,
                        format!("aggregate value %{name} used before its definition"),
                    )
                }
            }
        }
        if self.locals.insert(name.clone(), v).is_some() {
            return self.err(t, format!("value %{name} is defined twice"));
        }
        Ok(())
    }

    fn push1(&mut self, kind: InstKind) -> Operand {
        Operand::Value(self.b.push(kind)[0])
    }

    /// Lowers a typed value to a scalar operand, materialising constant expressions in the
    /// current block.
    fn operand(&mut self, ty: &LType, v: &Val<'a>) -> PResult<Operand> {
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
                let bits = float_bits(sty, v).or_else(|e| self.err(at, e))?;
                Ok(self.konst(ConstData {
                    ty: sty,
                    kind: ConstKind::Float(bits),
                }))
            }
            Val::Null | Val::Zero => Ok(self.konst(ConstData::zero(sty))),
            Val::Undef | Val::Poison => Ok(self.konst(ConstData {
                ty: sty,
                kind: ConstKind::Undef,
            })),
            Val::Bytes(_) | Val::Agg(_) => self.err(
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
            Val::OtherExpr(w, t) => {
                self.err(*t, format!("constant expression `{w}` is not supported"))
            }
            Val::BlockAddr(f, blk) => {
                if f.as_ref() != self.fname {
                    return self.err(at, format!("blockaddress of another function @{f}"));
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

    fn cast(&mut self, op: CastOp, inner: &TVal<'a>, to: &LType) -> PResult<Operand> {
        let at = self.at;
        let from_s = self.scalar(&inner.0, at)?;
        let to_s = self.scalar(to, at)?;
        let arg = self.operand(&inner.0, &inner.1)?;
        if op == CastOp::Bitcast && from_s == to_s {
            // Pointer-to-pointer (or same-type) casts are aliases.
            return Ok(arg);
        }
        let ok = match op {
            CastOp::Trunc => from_s.is_int() && to_s.is_int() && to_s.bits() < from_s.bits(),
            CastOp::ZExt | CastOp::SExt => {
                from_s.is_int() && to_s.is_int() && to_s.bits() > from_s.bits()
            }
            CastOp::FpTrunc => from_s == Type::F64 && to_s == Type::F32,
            CastOp::FpExt => from_s == Type::F32 && to_s == Type::F64,
            CastOp::FpToSi | CastOp::FpToUi => from_s.is_float() && to_s.is_int(),
            CastOp::SiToFp | CastOp::UiToFp => from_s.is_int() && to_s.is_float(),
            CastOp::PtrToInt => from_s == Type::Ptr && to_s.is_int(),
            CastOp::IntToPtr => from_s.is_int() && to_s == Type::Ptr,
            CastOp::Bitcast => {
                from_s.bits() == to_s.bits() && from_s != Type::Ptr && to_s != Type::Ptr
            }
        };
        if !ok {
            return self.err(at, format!("invalid cast `{op}` from {} to {to}", inner.0));
        }
        Ok(self.push1(InstKind::Cast {
            op,
            from: from_s,
            to: to_s,
            arg,
        }))
    }

    fn gep(&mut self, src: &LType, base: &TVal<'a>, idx: &[TVal<'a>]) -> PResult<Operand> {
        let at = self.at;
        if !base.0.is_ptr() {
            return self.err(
                at,
                format!(
                    "getelementptr base of type {} (vector GEPs are not supported)",
                    base.0
                ),
            );
        }
        let base_op = self.operand(&base.0, &base.1)?;
        let consts: Vec<Option<i64>> = idx.iter().map(|(t, v)| const_int(t, v)).collect();
        let (offset, kinds) =
            gep_fold(&self.m.layouts, src, &consts).or_else(|e| self.err(at, e))?;
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

    fn word(&self) -> &'a str {
        let t = self.c.peek();
        if t.kind == Tok::Ident {
            self.c.text(t)
        } else {
            ""
        }
    }

    fn skip_flags(&mut self) {
        while is_flag(self.word()) {
            self.c.bump();
        }
    }

    fn typed(&mut self) -> PResult<TVal<'a>> {
        self.c.parse_typed()
    }

    fn comma(&mut self) -> PResult<()> {
        self.c.expect(Tok::Comma, "`,`").map(|_| ())
    }

    fn label(&mut self) -> PResult<Block> {
        self.c.expect_word("label")?;
        let t = self.c.expect(Tok::LocalVar, "a block name")?;
        let name = self.c.name(t);
        match self.blocks.get(&name) {
            Some(&b) => Ok(b),
            None => self.err(t, format!("branch to undefined block %{name}")),
        }
    }

    /// Skips `, align N` and metadata attachments after an instruction.
    fn finish(&mut self) -> PResult<()> {
        loop {
            if self.c.peek().kind != Tok::Comma {
                return Ok(());
            }
            match self.c.peek2() {
                Tok::MetaVar => {
                    self.c.bump();
                    self.c.bump();
                    self.skip_metadata()?;
                }
                Tok::Ident
                    if self
                        .c
                        .toks
                        .get(self.c.pos + 1)
                        .is_some_and(|t| self.c.text(*t) == "align") =>
                {
                    self.c.bump();
                    self.c.bump();
                    self.c.parse_u64("an alignment")?;
                }
                _ => return Ok(()),
            }
        }
    }

    fn skip_metadata(&mut self) -> PResult<()> {
        let t = self.c.bump();
        match t.kind {
            Tok::MetaVar => Ok(()),
            Tok::Exclaim => {
                if self.c.eat(Tok::Str) {
                    return Ok(());
                }
                if self.c.peek().kind != Tok::LBrace {
                    return self.c.expected("metadata");
                }
                let mut depth = 0;
                loop {
                    let t = self.c.bump();
                    match t.kind {
                        Tok::LBrace => depth += 1,
                        Tok::RBrace => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(());
                            }
                        }
                        Tok::Eof => return self.err(t, "unterminated metadata"),
                        _ => {}
                    }
                }
            }
            _ => self.err(t, "expected metadata"),
        }
    }

    /// Parses and lowers one instruction or terminator; returns true for a terminator.
    fn instruction(&mut self) -> PResult<bool> {
        let start = self.c.peek();
        self.at = start;
        let mut result = None;
        if start.kind == Tok::LocalVar && self.c.peek2() == Tok::Eq {
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
                let v = if self.c.eat_word("void") {
                    None
                } else {
                    let (ty, v) = self.typed()?;
                    Some(self.operand(&ty, &v)?)
                };
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
            if is_float_op(bop) != sty.is_float() || sty == Type::Ptr {
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
                if !sty.is_float() {
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
                    if sty.is_float() {
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
                    if !sty.is_float() {
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
                if ct != LType::Int(1) {
                    return self.err(op_tok, format!("select condition of type {ct}"));
                }
                self.comma()?;
                let (at, av) = self.typed()?;
                self.comma()?;
                let (bt, bv) = self.typed()?;
                let sty = self.scalar(&at, op_tok)?;
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
            "alloca" => {
                self.c.eat_word("inalloca");
                self.c.eat_word("swifterror");
                let ty = self.c.parse_type()?;
                let (mut size, mut align) = self
                    .m
                    .layouts
                    .size_align(&ty)
                    .or_else(|e| self.err(op_tok, e))?;
                while self.c.peek().kind == Tok::Comma {
                    if self.c.peek2() == Tok::MetaVar {
                        break;
                    }
                    self.c.bump();
                    if self.c.eat_word("align") {
                        align = self.c.parse_u64("an alignment")?;
                    } else if self.c.eat_word("addrspace") {
                        self.c.skip_parens()?;
                    } else {
                        let (nt, nv) = self.typed()?;
                        match const_int(&nt, &nv) {
                            Some(n) if n >= 0 => size = size.checked_mul(n as u64).ok_or_else(|| PErr { line: op_tok.line, col: op_tok.col, msg: "alloca size overflows".into() })?,
                            _ => return self.err(op_tok, "alloca with a dynamic element count (variable-length array) is not supported"),
                        }
                    }
                }
                if size > u32::MAX as u64 || !align.is_power_of_two() || align > u32::MAX as u64 {
                    return self.err(
                        op_tok,
                        format!("alloca of {size} bytes with alignment {align} is not supported"),
                    );
                }
                let ety = match ty.scalar() {
                    Some(t) if t != Type::Void => t,
                    _ => Type::I8,
                };
                let size = (size as u32).max(ety.bytes());
                Local::Op(self.push1(InstKind::Alloca {
                    ty: ety,
                    size,
                    align: align as u32,
                    volatile: false,
                }))
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
                let mut idx = Vec::new();
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
                let (_ty, v) = self.typed()?;
                self.comma()?;
                let k = self.c.parse_u64("an index")?;
                if self.c.peek().kind == Tok::Comma && self.c.peek2() == Tok::Int {
                    return self.err(op_tok, "extractvalue with nested indices is not supported");
                }
                let Val::Local(name, t) = &v else {
                    return self.err(op_tok, "extractvalue of a constant is not supported");
                };
                match self.locals.get(name) {
                    Some(Local::Tuple(items)) => match items.get(k as usize) {
                        Some(op) => Local::Op(*op),
                        None => return self.err(*t, format!("extractvalue index {k} out of range")),
                    },
                    _ => return self.err(*t, format!("extractvalue of %{name}: only cmpxchg and inline-asm results are supported")),
                }
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
                        return self.err(
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
                    return self.err(
                        ot,
                        format!("atomicrmw operation `{}` is not supported", self.c.text(ot)),
                    );
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
                if volatile {
                    return self.err(op_tok, "volatile atomicrmw is not supported");
                }
                Local::Op(self.push1(InstKind::AtomicRmw {
                    op: aop,
                    ty: sty,
                    ptr,
                    value,
                    ordering: ord,
                }))
            }
            "cmpxchg" => {
                self.c.eat_word("weak");
                if self.c.eat_word("volatile") {
                    return self.err(op_tok, "volatile cmpxchg is not supported");
                }
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
            _ => return self.err(op_tok, format!("instruction `{op}` is not supported")),
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
            align = self.c.parse_u64("an alignment")?;
        }
        Ok(format!(
            "{}|{align}|{text}",
            if volatile { "volatile" } else { "" }
        ))
    }

    /// Parses `call ...` after the `call` keyword. Returns the result (or `None` for a
    /// call without a result, or a dropped `llvm.dbg.*` call).
    fn call(&mut self) -> PResult<Option<Local>> {
        let call_tok = self.at;
        let attr_start = self.c.peek().start as usize;
        let mut guard = 0;
        while !self.c.at_type() {
            let t = self.c.peek();
            if matches!(
                t.kind,
                Tok::Eof | Tok::GlobalVar | Tok::LocalVar | Tok::Comma
            ) || guard > 32
            {
                return self.c.expected("the call's type");
            }
            self.c.bump();
            self.c.skip_parens()?;
            guard += 1;
        }
        let attr_end = if self.c.pos > 0 {
            self.c.toks[self.c.pos - 1].end as usize
        } else {
            attr_start
        };
        let ret_attrs = if guard > 0 {
            self.c
                .src
                .get(attr_start..attr_end)
                .unwrap_or("")
                .to_string()
        } else {
            String::new()
        };
        let ty = self.c.parse_type()?;
        let (ret_ty, explicit) = match &ty {
            LType::Func { ret, .. } => ((**ret).clone(), Some(ty.clone())),
            _ => (ty.clone(), None),
        };
        if self.c.is_word("asm") {
            self.c.bump();
            let ret = ret_ty.scalar().unwrap_or(Type::Void);
            return self.inline_asm(ret, &ret_ty).map(Some);
        }
        let ret = match ret_ty.scalar() {
            Some(t) => t,
            None => {
                return self.err(
                    call_tok,
                    format!("call returning {ret_ty} is not supported"),
                )
            }
        };
        let callee_tok = self.c.peek();
        let callee_v = self.c.parse_value()?;
        if let Val::Global(n, _) = &callee_v {
            if n.starts_with("llvm.dbg.") {
                self.c.skip_parens()?;
                self.skip_fn_attrs(callee_tok)?;
                return Ok(None);
            }
        }
        self.c
            .expect(Tok::LParen, "`(` starting the call arguments")?;
        let mut args: SmallVec<[Operand; 4]> = SmallVec::new();
        let mut arg_info: Vec<LlvmParam> = Vec::new();
        let mut arg_types = Vec::new();
        if !self.c.eat(Tok::RParen) {
            loop {
                let aty = self.c.parse_type()?;
                let s = self.c.peek().start as usize;
                let mut e = s;
                loop {
                    let t = self.c.peek();
                    if t.kind != Tok::Ident || is_value_word(self.c.text(t)) {
                        break;
                    }
                    let w = self.c.text(t);
                    self.c.bump();
                    e = t.end as usize;
                    if self.c.peek().kind == Tok::LParen {
                        self.c.skip_parens()?;
                        e = self.c.toks[self.c.pos - 1].end as usize;
                    } else if (w == "align" || w.starts_with("dereferenceable"))
                        && self.c.peek().kind == Tok::Int
                    {
                        e = self.c.bump().end as usize;
                    }
                }
                let attrs = self.c.src.get(s..e).unwrap_or("").to_string();
                let v = self.c.parse_value()?;
                let op = self.operand(&aty, &v)?;
                arg_types.push(self.b.function().operand_type(op));
                args.push(op);
                arg_info.push(LlvmParam { ty: aty, attrs });
                if self.c.eat(Tok::RParen) {
                    break;
                }
                self.comma()?;
            }
        }
        self.skip_fn_attrs(callee_tok)?;
        let fn_ty = explicit.clone().unwrap_or_else(|| LType::Func {
            ret: Box::new(ret_ty.clone()),
            params: arg_info.iter().map(|p| p.ty.clone()).collect(),
            varargs: false,
        });
        let (call_params, varargs) = match &fn_ty {
            LType::Func {
                params, varargs, ..
            } => (params.len(), *varargs),
            _ => (0, false),
        };
        if args.len() < call_params || (!varargs && args.len() != call_params) {
            return self.err(
                call_tok,
                format!(
                    "call passes {} arguments to a function of type {fn_ty}",
                    args.len()
                ),
            );
        }
        let fixed_args = if varargs {
            Some(call_params as u32)
        } else {
            None
        };
        // Resolve the callee: strip pointer casts of a global.
        let mut target = &callee_v;
        while let Val::Cast(CastOp::Bitcast, inner, _) = target {
            target = &inner.1;
        }
        let callee = match target {
            Val::Global(name, t) => {
                let Some(&sym) = self.m.symbols.get(name.as_ref()) else {
                    return self.err(*t, format!("call to undefined symbol @{name}"));
                };
                let call_sig = Signature {
                    params: arg_types[..call_params].to_vec(),
                    ret,
                    varargs,
                };
                if self.m.signatures.get(sym.index()).and_then(|s| s.as_ref()) == Some(&call_sig) {
                    Callee::Direct(sym)
                } else {
                    Callee::Indirect(self.konst(ConstData {
                        ty: Type::Ptr,
                        kind: ConstKind::SymbolAddr(sym),
                    }))
                }
            }
            _ => {
                let pty = LType::Ptr(Box::new(fn_ty.clone()));
                let op = self.operand(&pty, &callee_v)?;
                Callee::Indirect(op)
            }
        };
        let inst = self.b.function().insts.len() as u32;
        let rs = self.b.push(InstKind::Call {
            ret,
            callee,
            args,
            fixed_args,
        });
        self.calls.push((
            inst,
            CallSite {
                fn_ty,
                ret_attrs,
                args: arg_info,
                arg_types,
            },
        ));
        Ok(rs.first().map(|&v| Local::Op(Operand::Value(v))))
    }

    /// Skips function attributes and operand bundles after a call's `)`, on the same line.
    fn skip_fn_attrs(&mut self, call_tok: Token) -> PResult<()> {
        let line = self.c.prev_line().max(call_tok.line);
        loop {
            let t = self.c.peek();
            if t.line != line || matches!(t.kind, Tok::Comma | Tok::Eof) {
                return Ok(());
            }
            if t.kind == Tok::LBracket {
                let mut depth = 0;
                loop {
                    let t = self.c.bump();
                    match t.kind {
                        Tok::LBracket => depth += 1,
                        Tok::RBracket => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Eof => return self.err(t, "unterminated operand bundle"),
                        _ => {}
                    }
                }
                continue;
            }
            self.c.bump();
            self.c.skip_parens()?;
        }
    }

    /// Lowers `asm [sideeffect] "template", "constraints"(args)`.
    fn inline_asm(&mut self, ret: Type, ret_ty: &LType) -> PResult<Local> {
        let at = self.at;
        let mut side_effects = false;
        loop {
            match self.word() {
                "sideeffect" => side_effects = true,
                "alignstack" => {}
                "inteldialect" => {
                    return self.err(at, "inline asm in Intel dialect is not supported")
                }
                "unwind" => return self.err(at, "unwinding inline asm is not supported"),
                _ => break,
            }
            self.c.bump();
        }
        let tt = self.c.expect(Tok::Str, "the asm template string")?;
        self.comma()?;
        let ct = self.c.expect(Tok::Str, "the asm constraint string")?;
        let unq = |t: Token| {
            let s = self.c.text(t);
            let body = s.get(1..s.len().saturating_sub(1)).unwrap_or("");
            String::from_utf8_lossy(&super::lexer::unescape(body.as_bytes())).into_owned()
        };
        let template = unq(tt);
        let constraints = unq(ct);
        self.c
            .expect(Tok::LParen, "`(` starting the asm operands")?;
        let mut args: Vec<(LType, Operand, String)> = Vec::new();
        if !self.c.eat(Tok::RParen) {
            loop {
                let aty = self.c.parse_type()?;
                let mut elem = None;
                while self.c.peek().kind == Tok::Ident && !is_value_word(self.word()) {
                    let w = self.word();
                    self.c.bump();
                    if w == "elementtype" && self.c.eat(Tok::LParen) {
                        elem = Some(self.c.parse_type()?);
                        self.c.expect(Tok::RParen, "`)`")?;
                    } else {
                        self.c.skip_parens()?;
                    }
                }
                let v = self.c.parse_value()?;
                let op = self.operand(&aty, &v)?;
                let pointee = elem.or(match &aty {
                    LType::Ptr(p) => Some((**p).clone()),
                    _ => None,
                });
                args.push((pointee.unwrap_or(LType::Int(8)), op, String::new()));
                if self.c.eat(Tok::RParen) {
                    break;
                }
                self.comma()?;
            }
        }
        self.skip_fn_attrs(tt)?;
        let mut asm = InlineAsm {
            template,
            clobbers: Vec::new(),
            side_effects,
            outputs: Vec::new(),
            inputs: Vec::new(),
            goto_labels: Vec::new(),
        };
        let direct_types: Vec<Type> = match ret_ty {
            LType::Void => Vec::new(),
            LType::Struct { fields, .. } => fields
                .iter()
                .map(|f| self.scalar(f, at))
                .collect::<PResult<_>>()?,
            _ => vec![ret],
        };
        let mut next_direct = 0usize;
        let mut next_arg = 0usize;
        for piece in constraints.split(',') {
            if let Some(c) = piece.strip_prefix('~') {
                asm.clobbers
                    .push(c.trim_start_matches('{').trim_end_matches('}').to_string());
            } else if let Some(c) = piece.strip_prefix('=') {
                if let Some(c) = c.strip_prefix('*') {
                    let Some((pointee, op, _)) = args.get(next_arg) else {
                        return self.err(at, "asm constraints name more operands than given");
                    };
                    let ty = match pointee.scalar() {
                        Some(t) if t != Type::Void => t,
                        _ => Type::I8,
                    };
                    asm.outputs.push(AsmOutput {
                        constraint: c.to_string(),
                        ty,
                        place: AsmOutputPlace::Pointer(*op),
                    });
                    next_arg += 1;
                } else {
                    let Some(&ty) = direct_types.get(next_direct) else {
                        return self.err(at, "asm has more outputs than its result type");
                    };
                    next_direct += 1;
                    asm.outputs.push(AsmOutput {
                        constraint: c.to_string(),
                        ty,
                        place: AsmOutputPlace::Result,
                    });
                }
            } else {
                let Some((_, op, _)) = args.get(next_arg) else {
                    return self.err(at, "asm constraints name more operands than given");
                };
                asm.inputs.push(AsmInput {
                    constraint: piece.to_string(),
                    value: *op,
                });
                next_arg += 1;
            }
        }
        if next_direct != direct_types.len() || next_arg != args.len() {
            return self.err(at, "asm constraints do not match its operands and result");
        }
        let rs = self.b.push(InstKind::InlineAsm(Box::new(asm)));
        Ok(match rs.len() {
            1 if !matches!(ret_ty, LType::Struct { .. }) => Local::Op(Operand::Value(rs[0])),
            _ => Local::Tuple(rs.iter().map(|&v| Operand::Value(v)).collect()),
        })
    }
}

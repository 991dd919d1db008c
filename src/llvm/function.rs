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
use super::hash::FastMap;
use super::layout::LType;
use super::lexer::{Tok, Token};
use super::parse::{cast_op, Cursor, PErr, PResult, TVal, TypeCache, Val};
use super::{CallSite, LlvmParam, ModuleInfo};
use crate::ir::*;
use smallvec::SmallVec;
use std::borrow::Cow;
use std::sync::Arc;

mod aggregate;
mod call;
mod inst;
mod metadata;
mod names;
mod operand;
mod vector;

use names::Names;

/// What a local name stands for.
#[derive(Clone, Debug)]
enum Local {
    /// A scalar operand.
    Op(Operand),
    /// An aggregate result split into scalars (`cmpxchg`, multi-output asm).
    Tuple(SmallVec<[Operand; 2]>),
    /// The result of an instruction (or a parameter) that uses a construct strata does not
    /// model: the function will be skipped, and uses of this name are checked no further.
    Unmodelled,
}

/// True for a bare word that may appear in an LLVM 14 instruction: opcodes, types, flags,
/// predicates, orderings, value keywords and attributes.
fn is_instruction_word(w: &str) -> bool {
    is_value_word(w)
        || is_flag(w)
        || ordering(w).is_some()
        || super::validate::is_keyword(w)
        || super::parse::is_type_word(w)
        || TERMINATORS.contains(&w)
        || matches!(
            w,
            "opaque"
                | "x"
                | "vscale"
                | "to"
                | "volatile"
                | "atomic"
                | "syncscope"
                | "asm"
                | "sideeffect"
                | "inteldialect"
                | "unwind"
                | "personality"
                | "cleanup"
                | "catch"
                | "filter"
                | "within"
                | "from"
                | "caller"
                | "weak"
                | "alloca"
                | "load"
                | "store"
                | "getelementptr"
                | "call"
                | "phi"
                | "va_arg"
                | "landingpad"
                | "invoke"
                | "catchpad"
                | "cleanuppad"
                | "fence"
                | "cmpxchg"
                | "atomicrmw"
                | "xchg"
                | "nand"
                | "max"
                | "min"
                | "umax"
                | "umin"
                | "fmax"
                | "fmin"
                | "eq"
                | "ne"
                | "ugt"
                | "uge"
                | "ult"
                | "ule"
                | "sgt"
                | "sge"
                | "slt"
                | "sle"
                | "oeq"
                | "ogt"
                | "oge"
                | "olt"
                | "ole"
                | "one"
                | "ord"
                | "ueq"
                | "une"
                | "uno"
                | "freeze"
                | "inalloca"
                | "swifterror"
                | "singlethread"
                | "blockaddress"
                | "dso_local_equivalent"
        )
}

/// The scalar a value of unmodelled type `ty` is parsed as: floats for float formats,
/// `i128` for wide integers, the element's for vectors, `i64` for aggregates.
fn stand_in_type(ty: &LType) -> Type {
    match ty {
        LType::Half | LType::BFloat | LType::X86Fp80 | LType::Fp128 => Type::F64,
        LType::Int(_) => Type::I128,
        LType::Vector(_, e) => e.scalar().filter(|t| *t != Type::Void).unwrap_or(Type::I64),
        _ => Type::I64,
    }
}

/// LLVM 14 terminator opcodes (an unmodelled one still ends its block).
const TERMINATORS: &[&str] = &[
    "ret",
    "br",
    "switch",
    "indirectbr",
    "invoke",
    "callbr",
    "resume",
    "unreachable",
    "catchswitch",
    "catchret",
    "cleanupret",
];

struct Lower<'a, 'm> {
    c: Cursor<'a>,
    m: &'m ModuleInfo,
    b: FunctionBuilder,
    fname: &'m str,
    blocks: Names<'a, Block>,
    locals: Names<'a, Local>,
    pending: FastMap<Cow<'a, str>, (Value, Type, Token)>,
    subst: FastMap<Value, Operand>,
    /// Value types of the aggregate LLVM types met so far (see [`Lower::scalar`]).
    value_types: FastMap<LType, Option<Type>>,
    calls: Vec<(u32, CallSite)>,
    has_phi: bool,
    /// Blocks that already hold a non-phi instruction of their own (phis must come first).
    non_phi: Vec<bool>,
    /// Instructions materialised for phi operands, to be moved to the end of their block.
    deferred: Vec<Inst>,
    /// Token where the current instruction started (for errors).
    at: Token,
    /// The first unmodelled construct met; the rest of the body is still checked for
    /// malformed input, and then the function is skipped with this error.
    unmodelled: Option<PErr>,
    /// The number the next unnamed value or block must have (LLVM numbers them in order).
    next_number: u64,
    /// Token index of the result name that [`Lower::check_number`] last accepted (so an
    /// instruction recovered after an unmodelled construct is not numbered twice).
    numbered: Option<usize>,
    /// Local names used by instructions skipped as unmodelled (checked to be defined).
    unmodelled_uses: Vec<Token>,
    /// Set while parsing an instruction that uses an unmodelled type or value: its result
    /// is defined as [`Local::Unmodelled`] and type checks between its operands are off.
    stand_in: Option<PErr>,
    /// The function's return type is unmodelled (so `ret` must return a value).
    ret_unmodelled: bool,
}

/// Lowers the body tokens `body` (after `{`, ending at the closing `}` or the item end) of
/// function `name`; `lines` is the line-start table of `src`; `types` caches parsed types
/// across the bodies one thread lowers (see [`Cursor::with_types`]). Returns the function
/// and its call-site records, or the first error.
///
/// A construct strata does not model (an [`PErr::unsupported`] error, or a parameter marked
/// in [`Shape::unmodelled`]) does not stop the parse: its result is marked unmodelled, the
/// rest of the body is checked, and the first malformed construct anywhere in the body wins
/// over it. Only a body that is valid apart from unmodelled constructs is skipped, so the
/// verbatim text export re-emits for it is valid too.
#[allow(clippy::too_many_arguments)]
pub fn lower(
    src: &str,
    body: &[Token],
    lines: &[u32],
    m: &ModuleInfo,
    name: &str,
    sig: Signature,
    shape: &Shape<'_>,
    types: &mut TypeCache,
) -> PResult<Lowered> {
    let Shape {
        param_names,
        keep_labels,
        unmodelled: unmodelled_params,
    } = *shape;
    // The body ends at the last `}`.
    let end = body.iter().rposition(|t| t.kind == Tok::RBrace);
    let Some(end) = end else {
        let msg = "function body is not closed by `}`";
        // An empty body has no position (0:0).
        return Err(match body.last() {
            Some(&t) => Cursor::new(src, body, lines).perr(t, msg),
            None => PErr::new(0, 0, msg),
        });
    };
    // The cursor reports a synthetic end-of-input token past the slice.
    let toks = &body[..end];
    let mut l = Lower {
        c: Cursor::with_types(src, toks, lines, std::mem::take(types)),
        m,
        b: FunctionBuilder::new(name, sig),
        fname: name,
        // A body's numbers are at most its token count (each numbered value or label is a
        // token), plus the parameters.
        blocks: Names::new(end + param_names.len() + 1, 0),
        // About one value per 8 tokens in clang output: avoid regrowing.
        locals: Names::new(end + param_names.len() + 1, end / 8),
        pending: FastMap::default(),
        subst: FastMap::default(),
        value_types: FastMap::default(),
        calls: Vec::new(),
        has_phi: false,
        non_phi: Vec::new(),
        deferred: Vec::new(),
        at: body[end],
        unmodelled: None,
        next_number: 0,
        numbered: None,
        unmodelled_uses: Vec::new(),
        stand_in: None,
        ret_unmodelled: unmodelled_params.get(param_names.len()) == Some(&true),
    };
    let r = l.body(param_names, unmodelled_params);
    *types = l.c.take_types();
    r?;
    if let Some(e) = l.unmodelled {
        return Err(e);
    }
    let labels = if keep_labels {
        let mut v: Vec<(String, u32)> = l.blocks.entries().map(|(k, b)| (k, b.0)).collect();
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

/// What [`lower`] needs to know about a function besides its signature.
#[derive(Clone, Copy, Debug)]
pub struct Shape<'x> {
    /// Parameter names as written (`None` for unnamed parameters).
    pub param_names: &'x [Option<String>],
    /// Return the original block labels too (a global takes a block's address).
    pub keep_labels: bool,
    /// Per parameter, then one for the return type: true if its type is unmodelled (the
    /// header was read with a loose signature; the body is only checked). Empty if none.
    pub unmodelled: &'x [bool],
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

    /// Valid LLVM that strata does not model: skips the function (see [`PErr::unsupported`]).
    fn unsupported<T>(&self, t: Token, msg: impl Into<String>) -> PResult<T> {
        self.c.unsupported_at(t, msg)
    }

    /// The strata type of a value of LLVM type `ty`. A valid type strata does not model
    /// (an aggregate, `x86_fp80`, a vector, `i200`) gives a stand-in scalar of the same kind
    /// and records the instruction as unmodelled ([`Lower::stand_in`]), so the rest of the
    /// instruction is still parsed and checked.
    fn scalar(&mut self, ty: &LType, t: Token) -> PResult<Type> {
        // `Layouts::value_type`, with the common scalars read off directly and the
        // aggregates (whose value type is built and interned each time) remembered.
        let vt = match ty {
            LType::Ptr(_) | LType::OpaquePtr => Some(Type::Ptr),
            LType::Int(n) => Type::int(*n),
            LType::Double => Some(Type::F64),
            LType::Float => Some(Type::F32),
            LType::Named(_) | LType::Struct { .. } | LType::Array(..) | LType::Vector(..) => {
                match self.value_types.get(ty) {
                    Some(&vt) => vt,
                    None => {
                        let vt = self.m.layouts.value_type(ty);
                        self.value_types.insert(ty.clone(), vt);
                        vt
                    }
                }
            }
            _ => self.m.layouts.value_type(ty),
        };
        match vt {
            Some(Type::Void) => self.err(t, format!("{ty} is not a value type")),
            None if ty.is_first_class() => match self.m.layouts.undefined_name(ty) {
                Some(n) => self.err(t, format!("use of undefined type %{n}")),
                None => {
                    if self.stand_in.is_none() {
                        self.stand_in = Some(PErr {
                            unsupported: true,
                            ..self.c.perr(t, format!("unsupported value type {ty}"))
                        });
                    }
                    Ok(stand_in_type(ty))
                }
            },
            None => self.err(t, format!("{ty} is not a value type")),
            Some(s) => Ok(s),
        }
    }

    fn body(&mut self, param_names: &[Option<String>], unmodelled: &[bool]) -> PResult<()> {
        let unnamed = self.bind_params(param_names, unmodelled);
        self.create_blocks(unnamed)?;
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
                    self.check_number(t)?;
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
            let start = self.c.pos;
            let terminated = match self.instruction() {
                Ok(terminated) => {
                    if let Some(e) = self.stand_in.take() {
                        self.unmodelled.get_or_insert(e);
                    }
                    terminated
                }
                Err(e) if e.unsupported => {
                    self.stand_in = None;
                    self.unmodelled.get_or_insert(e);
                    self.skip_unmodelled(start)?
                }
                Err(e) => return Err(e),
            };
            if terminated {
                current = None;
            }
        }
        if let Some(cb) = current {
            let t = self.c.peek();
            return self.err(t, format!("block {cb} does not end with a terminator"));
        }
        for t in std::mem::take(&mut self.unmodelled_uses) {
            let n = self.c.name(t);
            if !self.locals.contains_key(&n) && !self.blocks.contains_key(&n) {
                return self.err(t, format!("use of undefined value %{n}"));
            }
        }
        self.move_deferred();
        self.resolve()
    }

    /// Binds the parameters' names (unnamed ones take LLVM's implicit numbers). Returns the
    /// count of numbered parameters, where the implicit numbering of the body starts.
    fn bind_params(&mut self, param_names: &[Option<String>], unmodelled: &[bool]) -> usize {
        let mut unnamed = 0usize;
        for (i, n) in param_names.iter().enumerate() {
            let v = self.b.param(i);
            let local = if unmodelled.get(i) == Some(&true) {
                Local::Unmodelled
            } else {
                Local::Op(v.into())
            };
            match n {
                Some(n) => {
                    if n.bytes().all(|c| c.is_ascii_digit()) {
                        unnamed += 1;
                    }
                    self.locals.insert(Cow::Owned(n.clone()), local);
                }
                None => {
                    self.locals.insert(Cow::Owned(unnamed.to_string()), local);
                    unnamed += 1;
                }
            }
        }
        unnamed
    }

    /// The pre-scan: one block per label that starts a line, in order (an unlabelled entry
    /// block takes number `unnamed`), with the function's tables reserved at about their
    /// final size. A label defined twice is an error.
    fn create_blocks(&mut self, unnamed: usize) -> PResult<()> {
        let toks = self.c.toks;
        let mut order: Vec<Cow<'a, str>> = Vec::new();
        self.next_number = unnamed as u64;
        if toks.first().is_some_and(|t| t.kind != Tok::Label) {
            order.push(Cow::Owned(unnamed.to_string()));
            self.next_number += 1;
        }
        // A label starts a block if it starts a line (the first token of the body counts as
        // starting one). Lines are counted per block too: about one instruction each, so
        // the function's tables are allocated once, at about their final size.
        let mut block_lines: Vec<u32> = Vec::new();
        let mut lines = 0u32;
        if let Some(t) = toks.first() {
            lines += u32::from(t.nl);
            if t.kind == Tok::Label {
                if !order.is_empty() {
                    block_lines.push(lines);
                    lines = 0;
                }
                order.push(self.c.name(*t));
            }
        }
        // Only a token that starts a line can be a block's label: test that flag first.
        for t in toks.iter().skip(1) {
            if t.nl {
                lines += 1;
                if t.kind == Tok::Label {
                    block_lines.push(lines);
                    lines = 0;
                    order.push(self.c.name(*t));
                }
            }
        }
        block_lines.push(lines);
        // Each block's lines hold its terminator and (but for the entry) its label, which
        // are not instructions: the tables hold the imported functions, the largest part of
        // an import's memory, so they are not over-reserved by a line per block.
        let total: u32 = block_lines.iter().sum();
        let total = total.saturating_sub((2 * order.len() as u32).saturating_sub(1));
        {
            let f = self.b.function_mut();
            f.insts.reserve(total as usize);
            f.values.reserve(total as usize);
            f.blocks.reserve(order.len());
        }
        for (i, name) in order.into_iter().enumerate() {
            let blk = if i == 0 {
                Block(0)
            } else {
                self.b.create_block()
            };
            if let Some(&n) = block_lines.get(i) {
                self.b.function_mut().blocks[blk.index()]
                    .insts
                    .reserve(n as usize);
            }
            if self.blocks.insert(name.clone(), blk).is_some() {
                let t = toks
                    .iter()
                    .find(|t| t.kind == Tok::Label && self.c.name(**t) == name)
                    .copied()
                    .unwrap_or(toks[0]);
                return self.err(t, format!("block label %{name} is defined twice"));
            }
        }
        Ok(())
    }

    /// Checks that a numbered value or label (`%7`, `7:`) at `t` has the next number; other
    /// names are free.
    pub(super) fn check_number(&mut self, t: Token) -> PResult<()> {
        // The common case without unquoting: `%N` or `N:` written as the expected number.
        let text = self.c.text(t).as_bytes();
        let digits = if t.kind == Tok::Label {
            text
        } else {
            text.get(1..).unwrap_or(&[])
        };
        if !digits.is_empty() && digits.len() <= 19 && digits.iter().all(u8::is_ascii_digit) {
            let n = digits
                .iter()
                .fold(0u64, |n, &c| n * 10 + u64::from(c - b'0'));
            if n == self.next_number {
                self.next_number += 1;
                return Ok(());
            }
        }
        let name = self.c.name(t);
        if name.is_empty() || !name.bytes().all(|c| c.is_ascii_digit()) {
            return Ok(());
        }
        if name.parse::<u64>().ok() != Some(self.next_number) {
            let what = if t.kind == Tok::Label {
                "label"
            } else {
                "value"
            };
            return self.err(
                t,
                format!("{what} %{name} should be numbered %{}", self.next_number),
            );
        }
        self.next_number += 1;
        Ok(())
    }

    /// After an unmodelled construct in the instruction starting at token `start`: marks its
    /// result name unmodelled and moves past the instruction (to the first token of a later
    /// line outside brackets). Returns true if the instruction is a terminator.
    fn skip_unmodelled(&mut self, start: usize) -> PResult<bool> {
        let toks = self.c.toks;
        let first = toks[start];
        let mut k = start;
        if first.kind == Tok::LocalVar && toks.get(k + 1).is_some_and(|t| t.kind == Tok::Eq) {
            let name = self.c.name(first);
            if self.locals.contains_key(&name) {
                return self.err(first, format!("value %{name} is defined twice"));
            }
            if self.numbered != Some(start) {
                self.check_number(first)?;
            }
            self.pending.remove(&name);
            self.locals.insert(name, Local::Unmodelled);
            k += 2;
        }
        let op = toks.get(k).map_or("", |t| self.c.text(*t));
        let mut depth = 0i64;
        // Whether a line starts between the previous token looked at (at first `first`) and `t`.
        let mut new_line = toks[start + 1..=k.min(toks.len() - 1)].iter().any(|t| t.nl);
        let mut prev: Option<Token> = None;
        while let Some(&t) = toks.get(k) {
            if new_line && depth <= 0 {
                break;
            }
            match t.kind {
                Tok::LParen | Tok::LBracket | Tok::LBrace | Tok::Less => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::Greater => {
                    depth -= 1;
                    if depth < 0 {
                        return self.err(t, format!("unbalanced `{}`", self.c.text(t)));
                    }
                }
                Tok::Error => return self.err(t, "malformed token"),
                Tok::Ident => {
                    let w = self.c.text(t);
                    if !is_instruction_word(w) {
                        return self.err(t, format!("unexpected `{w}`"));
                    }
                }
                Tok::LocalVar if !self.is_named_type(t) => {
                    self.unmodelled_uses.push(t);
                }
                Tok::GlobalVar => {
                    let n = self.c.name(t);
                    if !self.m.symbols.contains_key(n.as_ref()) {
                        return self.err(t, format!("undefined symbol @{n}"));
                    }
                }
                Tok::AttrGroup | Tok::Label | Tok::Colon => {
                    return self.err(t, format!("unexpected `{}`", self.c.text(t)));
                }
                _ => {}
            }
            // Two operands need a comma between them.
            if let Some(p) = prev {
                if self.is_operand_token(p) && self.is_operand_token(t) {
                    return self.err(t, format!("expected `,` before `{}`", self.c.text(t)));
                }
            }
            prev = Some(t);
            k += 1;
            new_line = toks.get(k).is_some_and(|t| t.nl);
        }
        if depth != 0 {
            return self.err(first, "unbalanced brackets in the instruction");
        }
        self.c.pos = k;
        Ok(TERMINATORS.contains(&op))
    }

    /// True if `t` names a named type the module defines (`%struct.S`).
    fn is_named_type(&self, t: Token) -> bool {
        t.kind == Tok::LocalVar && self.m.layouts.body(&self.c.name(t)).is_some()
    }

    /// True for a token that is a whole operand value (a name other than a type, a literal).
    fn is_operand_token(&self, t: Token) -> bool {
        match t.kind {
            Tok::LocalVar => !self.is_named_type(t),
            Tok::GlobalVar | Tok::Int | Tok::Float | Tok::HexFloat | Tok::CStr => true,
            _ => false,
        }
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
        if let Some((name, (_, _, t))) = self.pending.iter().min_by_key(|(_, (_, _, t))| t.start) {
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
        let v = if self.stand_in.is_some() {
            Local::Unmodelled
        } else {
            v
        };
        let pending = if self.pending.is_empty() {
            None
        } else {
            self.pending.remove(&name)
        };
        if let Some((ph, ty, _)) = pending {
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
                    return self.unsupported(
                        t,
                        format!("aggregate value %{name} used before its definition"),
                    )
                }
                Local::Unmodelled => {}
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
                    let at = self.c.peek();
                    let a = self.c.parse_u64("an alignment")?;
                    super::check_align(&self.c, at, a)?;
                }
                _ => return Ok(()),
            }
        }
    }
}

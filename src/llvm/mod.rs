//! LLVM 14 textual IR import and export (DESIGN.md 3.2).
//!
//! **Import** ([`import`]) reads the subset of `.ll` that `clang-14 -O0 -Xclang
//! -disable-O0-optnone -S -emit-llvm -g0` emits for C with typed pointers and builds a
//! [`crate::ir::Module`]. It runs in four passes over the token stream:
//!
//! 1. [`lexer::lex`] tokenizes the file; tokens are grouped into top-level *items*: an item
//!    starts at the first token of a line at bracket depth 0 (or at `define`/`declare` in
//!    column 1, which recovers from unbalanced bodies), so a function body is one item
//!    ([`items`]; a body's tokens are not kept but lexed again by pass 4).
//! 2. Named type definitions (`%T = type ...`) are read and every struct layout is computed
//!    with the x86-64 data layout ([`layout`]).
//! 3. Every `define`, `declare` and global gets a [`crate::ir::Symbol`] in order of
//!    appearance (so bodies may reference later symbols); globals are evaluated to sized,
//!    sparse initial bytes plus relocations ([`consts`]): pointers to symbols (through
//!    `getelementptr`, `bitcast` and `ptrtoint` to `i64`), `inttoptr` of a literal (plain
//!    bytes), `blockaddress` (resolved to the block's number once its function is lowered)
//!    and the relative lookup-table entries of clang `-O2`,
//!    `trunc (sub (ptrtoint @target, ptrtoint @table))` ([`crate::ir::RelocationKind`]).
//!    An initialiser using another constant expression is a warning naming the global (an
//!    error with [`ImportOptions::strict`]); its contents are then unknown: the global is not
//!    read-only for the passes and reads as zeros in the interpreter.
//! 4. Each function body is parsed and lowered in one pass ([`function`]); bodies read only
//!    the module-level information of passes 2 and 3, so they are lowered in parallel (rayon)
//!    and their results taken in definition order.
//!
//! **Mapping decisions.** Our IR has one pointer type: every LLVM pointer is `ptr` (also
//! inside aggregates). Literal and named structs and arrays of representable members are
//! aggregate value types ([`crate::ir::aggregate`]; a named struct becomes the literal struct
//! of its body, export writes literal types); `extractvalue`/`insertvalue` with an index path
//! become chains of one-index instructions, aggregate constants (`{ T a, ... }`, `[...]`,
//! `c"..."`, `zeroinitializer`, `undef`) are pool constants. Vectors `<N x T>` are IR vector
//! types with their element instructions (`extractelement`, `insertelement`,
//! `shufflevector` with a constant mask) and lane-wise arithmetic, compares, selects and
//! casts; a `getelementptr` with vector operands becomes one scalar `gep` per lane
//! (`function/vector.rs`). `alloca T` becomes
//! `Alloca { ty: T if it has a strata type else i8, size, align }`;
//! `getelementptr` becomes `Gep { base, offset, [(idx, scale)] }` with constant indices and
//! struct fields folded into `offset` (an all-constant zero GEP and pointer `bitcast`s are
//! aliases, not instructions). Constant expressions in operands are materialised as
//! instructions just before their use (for phis: at the end of the incoming block).
//! `cmpxchg` yields its two results, read by `extractvalue 0/1`; multi-output inline asm
//! likewise. `callbr` (asm goto) becomes an asm instruction whose `goto_labels` are the
//! indirect destinations (their `blockaddress` arguments stay ordinary inputs), followed by
//! a jump to the fallthrough block. Function addresses are `SymbolAddr` constants; a call
//! whose type differs from the callee's declaration (K&R `bitcast` calls) is an indirect
//! call of the symbol's address. An `alloca` with a run-time count (a VLA) is a
//! `DynAlloca`; `llvm.stacksave`/`llvm.stackrestore` stay calls; `freeze` is a `copy` (of zero
//! for an `undef` or `poison` constant, one of the values freeze may pick). `va_arg`, atomic `load`/`store` become [`crate::ir::OpaqueInst`]s; calls to
//! annotation intrinsics (`llvm.dbg.*`, `llvm.experimental.noalias.scope.decl`) are dropped,
//! and with them every debug record (`!dbg` attachments on instructions and function
//! headers are skipped too, and export strips the module's debug metadata: the output is
//! what LLVM's `strip-debug` would leave);
//! metadata arguments of other calls are kept as text in the [`CallSite`] (the IR call has
//! the other arguments); `llvm.memcpy` and friends are ordinary external calls.
//! A function with phis is imported in `Phase::Ssa`, otherwise `Phase::Memory`.
//!
//! **Errors.** Input that is not valid LLVM IR is a fatal [`ImportError`] at `file:line:col`
//! (syntax, undefined names and types, type mismatches, call arity, alignments, value
//! numbering, phis after other instructions, keywords and attribute groups in the text export
//! copies verbatim, metadata references and module flags: [`validate`]). Only a *valid*
//! function using a construct the IR does not model (`fp128`, `invoke`, ...; a
//! [`parse::PErr`] with
//! `unsupported` set) is skipped: its body is still parsed to the end with stand-in types
//! (so a malformed construct anywhere in it is an error), then it is recorded in
//! [`Imported::skipped`] with its line and reason, becomes an external declaration in the
//! module (its signature's unrepresentable types appear as `void`), and export re-emits its
//! original text unchanged. With [`ImportOptions::strict`] the first such function is fatal.
//! Import never panics and every loop consumes input, so it never hangs. Like LLVM's parser,
//! import does not check that definitions dominate their uses: [`Imported::verify`] runs the
//! verifier (the CLI always calls it) and reports the first function it rejects.
//!
//! **Export** ([`export()`], module [`mod@export`]) prints a module back as LLVM 14 `.ll`:
//! every type, global, declaration, attribute group and metadata node is re-emitted
//! verbatim from the [`LlvmContext`], each defined function is printed from the IR with its
//! original signature (pointers are `i8*`, with `bitcast`s where a typed pointer is
//! needed), and skipped functions keep their original text.
//!
//! **Data layout.** Sizes and offsets always use x86-64 System V (what clang 14 emits for
//! `x86_64-pc-linux-gnu`); the `target datalayout` line is kept verbatim but not read.
//! Thread-local globals are imported as ordinary globals.
//!
//! `x86_fp80` is the IR's `f80`: constants are `0xK` + 20 hex digits (or a `double` literal,
//! converted exactly) and export writes them as `0xK`.
//!
//! Complexity: import is linear in the input size (plus one hash lookup per name).

pub mod consts;
pub mod export;
pub mod function;
pub mod hash;
mod import_passes;
pub mod items;
pub mod layout;
pub mod lexer;
pub mod parse;
pub mod validate;

pub use export::{export, exportable, Exporter, Unexportable};
pub use import_passes::import;

use crate::ir::{
    ExternDecl, Global, Linkage, Module, Signature, Symbol, SymbolData, SymbolKind, Type,
};
use layout::{LType, Layouts};
use lexer::{Tok, Token};
use parse::{Cursor, PErr, PResult};
use std::collections::HashMap;
use std::sync::Arc;

/// Import options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Make the first unsupported construct a fatal error instead of skipping its function.
    pub strict: bool,
    /// Keep the original text of a function definition only when import skipped the
    /// function ([`Item::Define`] holds an empty text for the others). The text is what
    /// export prints for a definition the module no longer holds; a caller that never
    /// removes functions saves a copy of every body (a tenth of the peak memory of
    /// `strata compile`).
    pub drop_function_text: bool,
}

/// A function that import skipped (it stays in the module as an external declaration).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedFunction {
    /// Function name without `@`.
    pub name: String,
    /// 1-based line of the offending construct.
    pub line: u32,
    /// What is unsupported or malformed.
    pub reason: String,
}

/// A fatal import error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct ImportError {
    /// File name as passed to [`import`].
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What went wrong.
    pub message: String,
}

/// The result of [`import`].
#[derive(Clone, Debug)]
pub struct Imported {
    /// The module: symbols, globals, external declarations, imported functions.
    pub module: Module,
    /// What export needs that the IR drops.
    pub context: LlvmContext,
    /// Functions skipped with the reason.
    pub skipped: Vec<SkippedFunction>,
}

impl Imported {
    /// Runs the IR verifier on every imported function; the first function it rejects is an
    /// error at that function's `define` (`file:line:col`, the function and the verifier's
    /// message).
    ///
    /// Import checks syntax, names, types and structure but, like LLVM's own parser, leaves
    /// dominance of uses to a verifier: input that is not valid LLVM (a use before its
    /// definition on some path) imports, and this call rejects it. Cost: one verifier run
    /// per function (about a fifth of import time).
    ///
    /// # Errors
    /// The first verifier error, located at its function's header.
    pub fn verify(&self) -> Result<(), ImportError> {
        let symbols = self.module.symbol_table();
        // One verifier for the module: its CFG, dominator tree and tables are reused.
        let mut verifier = crate::verify::Verifier::default();
        for f in &self.module.functions {
            if let Some(e) = verifier.verify(f, &symbols).into_iter().next() {
                let (line, col) = self
                    .context
                    .headers
                    .get(&f.name)
                    .map_or((0, 0), |h| (h.line, h.col));
                return Err(ImportError {
                    file: self.context.file.clone(),
                    line,
                    col,
                    message: format!("invalid function @{}: {e}", f.name),
                });
            }
        }
        Ok(())
    }
}

/// An original function parameter: its LLVM type and its attributes text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlvmParam {
    /// LLVM type (typed pointers kept).
    pub ty: LType,
    /// Attributes as written (`noundef byval(%struct.S) align 8`), possibly empty.
    pub attrs: String,
}

/// The original header of a `define` or `declare`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnHeader {
    /// Text from `define`/`declare` up to the return type (linkage, return attributes).
    pub head: String,
    /// Return type.
    pub ret: LType,
    /// Parameters.
    pub params: Vec<LlvmParam>,
    /// C `...`.
    pub varargs: bool,
    /// Text between `)` and `{` (or the end of a declaration): `#0`, `unnamed_addr`, ...
    pub tail: String,
    /// 1-based line of `define`/`declare`.
    pub line: u32,
    /// 1-based column of `define`/`declare`.
    pub col: u32,
}

impl FnHeader {
    /// The LLVM function type.
    pub fn fn_type(&self) -> LType {
        LType::Func {
            ret: Arc::new(self.ret.clone()),
            params: self.params.iter().map(|p| p.ty.clone()).collect(),
            varargs: self.varargs,
        }
    }
}

/// The original shape of one call: what export needs to rebuild a call that LLVM accepts
/// with the same ABI (function type, typed argument types, attributes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The callee symbol's name for a call of a symbol (direct, or through a cast of it).
    pub callee: Option<String>,
    /// The call's function type as written or implied.
    pub fn_ty: LType,
    /// Return attributes and other text between `call` and the type (`noundef`, `fast`).
    pub ret_attrs: String,
    /// Per argument: LLVM type and attributes.
    pub args: Vec<LlvmParam>,
    /// Strata types of the arguments at import (to detect a rewritten call).
    pub arg_types: Vec<Type>,
    /// Metadata arguments, which the IR call does not carry: (position among all the
    /// call's arguments, text after the `metadata` type), in order.
    pub metadata_args: Vec<(u32, String)>,
}

/// A top-level item of the original file, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// Anything but a function definition, verbatim.
    Text(String),
    /// A function definition: its name and original text (empty for a function import
    /// lowered when [`ImportOptions::drop_function_text`] is set).
    Define(String, String),
}

/// What export needs that our IR drops (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct LlvmContext {
    /// The file name given to [`import`].
    pub file: String,
    /// Top-level items in order.
    pub items: Vec<Item>,
    /// LLVM type of each symbol's address (`[6 x i8]*`, `i32 (i8*, ...)*`), by name.
    pub symbol_types: HashMap<String, LType>,
    /// Headers of every `define` and `declare`, by name.
    pub headers: HashMap<String, FnHeader>,
    /// Named struct bodies and layouts: export compares a header's named struct types with
    /// the IR's aggregate types and converts values between them.
    pub layouts: Layouts,
    /// Original call shapes per function, sorted by instruction index.
    pub call_sites: HashMap<String, Vec<(u32, CallSite)>>,
    /// Original block labels of functions whose blocks a global's `blockaddress` names
    /// (function name -> label -> block index), so export can rename them.
    pub block_labels: HashMap<String, HashMap<String, u32>>,
    /// Non-fatal problems (initialisers that could not be evaluated, ...).
    pub warnings: Vec<String>,
    /// The names of the globals whose initialiser could not be evaluated (each also has a
    /// warning): the module gives them zeros, so `strata run` marks them unknown
    /// (`Interpreter::mark_unknown_globals`) and a read of one stops the run.
    pub unevaluated: Vec<String>,
}

impl LlvmContext {
    /// The recorded shape of the call at instruction `inst` of function `func`.
    pub fn call_site(&self, func: &str, inst: u32) -> Option<&CallSite> {
        let v = self.call_sites.get(func)?;
        v.binary_search_by_key(&inst, |(i, _)| *i)
            .ok()
            .map(|k| &v[k].1)
    }
}

/// Per-module information the function lowering reads.
pub struct ModuleInfo {
    /// Named struct layouts.
    pub layouts: Layouts,
    /// Symbols by name.
    pub symbols: hash::FastMap<String, Symbol>,
    /// Strata signatures of functions and declarations by symbol index (`None` for globals
    /// and for functions whose signature is not representable).
    pub signatures: Vec<Option<Signature>>,
    /// LLVM type of each symbol's address by symbol index (`i32 (i8*)*`, `[4 x i8]*`): a
    /// use of the symbol must name exactly this type.
    pub symbol_types: Vec<LType>,
    /// The module's defined attribute groups and metadata nodes: an instruction's metadata
    /// attachment or call argument naming an undefined node is a located error.
    pub defined: validate::Defined,
}

fn fatal(file: &str, e: PErr) -> ImportError {
    ImportError {
        file: file.to_string(),
        line: e.line,
        col: e.col,
        message: e.msg,
    }
}

/// Parses a `define`/`declare` header up to (not including) `{`. Returns the header, the
/// function name and its name token, and the parameter names.
fn parse_header<'a>(
    c: &mut Cursor<'a>,
    defined: &validate::Defined,
) -> PResult<(FnHeader, String, Token, Vec<Option<String>>)> {
    let first = c.bump();
    let mut guard = 0;
    while !c.at_type() {
        let t = c.peek();
        if matches!(t.kind, Tok::Eof | Tok::GlobalVar | Tok::LBrace) || guard > 64 {
            return c.expected("a return type");
        }
        c.bump();
        c.skip_parens()?;
        guard += 1;
    }
    validate::check_words(c, &c.toks[1..c.pos], defined)?;
    let ret_start = c.peek().start as usize;
    let head = c
        .src
        .get(first.start as usize..ret_start)
        .unwrap_or("")
        .to_string();
    let ret = c.parse_type()?;
    let name_tok = c.expect(Tok::GlobalVar, "a function name")?;
    let name = c.name(name_tok).into_owned();
    c.expect(Tok::LParen, "`(` starting the parameter list")?;
    let mut params = Vec::new();
    let mut names = Vec::new();
    let mut varargs = false;
    if !c.eat(Tok::RParen) {
        loop {
            if c.eat(Tok::Ellipsis) {
                varargs = true;
                c.expect(Tok::RParen, "`)` after `...`")?;
                break;
            }
            let ty = c.parse_type()?;
            let attr_start = c.peek().start as usize;
            let attr_tok = c.pos;
            let mut attr_end = attr_start;
            let mut pname = None;
            loop {
                let t = c.peek();
                match t.kind {
                    Tok::Comma | Tok::RParen => break,
                    Tok::Eof | Tok::LBrace => {
                        return c.expected("`,` or `)` in the parameter list")
                    }
                    Tok::LParen => {
                        c.skip_parens()?;
                        attr_end = c.toks[c.pos - 1].end as usize;
                    }
                    Tok::LocalVar => {
                        c.bump();
                        let n = c.name(t).into_owned();
                        if n.bytes().all(|b| b.is_ascii_digit()) {
                            let want = names.iter().filter(|p: &&Option<String>| {
                                p.as_ref()
                                    .is_none_or(|p| p.bytes().all(|b| b.is_ascii_digit()))
                            });
                            let want = want.count();
                            if n != want.to_string() {
                                return c.err_at(
                                    t,
                                    format!("parameter %{n} should be numbered %{want}"),
                                );
                            }
                        }
                        pname = Some(n);
                    }
                    _ => {
                        c.bump();
                        attr_end = t.end as usize;
                    }
                }
            }
            let name_toks = usize::from(pname.is_some());
            validate::check_words(c, &c.toks[attr_tok..c.pos - name_toks], defined)?;
            let attrs = c
                .src
                .get(attr_start..attr_end.max(attr_start))
                .unwrap_or("")
                .trim()
                .to_string();
            params.push(LlvmParam { ty, attrs });
            names.push(pname);
            if c.eat(Tok::RParen) {
                break;
            }
            c.expect(Tok::Comma, "`,` in the parameter list")?;
        }
    }
    let rparen_end = c.toks[c.pos - 1].end as usize;
    let tail_start = c.pos;
    while !matches!(c.peek().kind, Tok::LBrace | Tok::Eof) {
        c.bump();
    }
    validate::check_words(c, &c.toks[tail_start..c.pos], defined)?;
    let tail_end = if c.pos > tail_start {
        c.toks[c.pos - 1].end as usize
    } else {
        rparen_end
    };
    let tail = strip_debug_attachment(c.src.get(rparen_end..tail_end).unwrap_or(""));
    let (line, col) = c.line_col(first);
    Ok((
        FnHeader {
            head,
            ret,
            params,
            varargs,
            tail,
            line,
            col,
        },
        name,
        name_tok,
        names,
    ))
}

/// The strata signature of an LLVM function header, or an error at the header naming the
/// first type that is not representable ([`PErr::unsupported`]) or not valid there.
/// A function header's text after `)` without its `!dbg !N` attachment: a function printed
/// from the IR has no debug locations, and LLVM requires them on its calls once the
/// function has a subprogram. Other attachments stay.
fn strip_debug_attachment(tail: &str) -> String {
    let Some(at) = tail.find("!dbg") else {
        return tail.to_string();
    };
    let rest = tail[at + 4..].trim_start();
    let node_len = rest.strip_prefix('!').map_or(0, |r| {
        1 + r
            .find(|ch: char| !ch.is_ascii_alphanumeric() && ch != '.' && ch != '_')
            .unwrap_or(r.len())
    });
    let after = &rest[node_len..];
    format!(
        "{}{}",
        tail[..at].trim_end(),
        if after.is_empty() {
            String::new()
        } else {
            format!(" {}", after.trim_start())
        }
    )
}

fn signature_of(h: &FnHeader, layouts: &Layouts) -> Result<Signature, PErr> {
    let at = |msg: String, unsupported: bool| PErr {
        unsupported,
        ..PErr::new(h.line, h.col, msg)
    };
    let ret = match layouts.value_type(&h.ret) {
        Some(t) => t,
        None if h.ret.is_first_class() => {
            return Err(at(format!("return type {} is not supported", h.ret), true))
        }
        None => return Err(at(format!("invalid return type {}", h.ret), false)),
    };
    let mut params = Vec::with_capacity(h.params.len());
    for p in &h.params {
        match layouts.value_type(&p.ty) {
            Some(t) if t != Type::Void => params.push(t),
            None if p.ty.is_first_class() => {
                return Err(at(
                    format!("parameter type {} is not supported", p.ty),
                    true,
                ))
            }
            _ => return Err(at(format!("invalid parameter type {}", p.ty), false)),
        }
    }
    Ok(Signature {
        params,
        ret,
        varargs: h.varargs,
    })
}

/// Best-effort signature: unrepresentable types become `void`.
fn loose_signature(h: &FnHeader, layouts: &Layouts) -> Signature {
    Signature {
        params: h
            .params
            .iter()
            .map(|p| layouts.value_type(&p.ty).unwrap_or(Type::Void))
            .collect(),
        ret: layouts.value_type(&h.ret).unwrap_or(Type::Void),
        varargs: h.varargs,
    }
}

/// Parses `@name = ... global|constant T [init] ...` up to the initialiser (which is
/// evaluated later by [`global_init`]). Aliases and ifuncs become zero-sized globals.
fn parse_global(
    c: &mut Cursor<'_>,
    layouts: &Layouts,
    defined: &validate::Defined,
) -> PResult<(Global, LType)> {
    c.bump();
    c.expect(Tok::Eq, "`=` after a global name")?;
    let mut linkage = Linkage::External;
    let mut external = false;
    // A definition another module may replace (LLVM's "interposable" linkages): its
    // contents are not known here, so it is not read-only for the passes.
    let mut interposable = false;
    loop {
        let t = c.peek();
        if t.kind != Tok::Ident {
            return c.expected("`global` or `constant`");
        }
        let w = c.text(t);
        c.bump();
        match w {
            "global" | "constant" => {
                let at = c.peek();
                let ty = c.parse_type()?;
                if let Some(n) = layouts.undefined_name(&ty) {
                    return c.err_at(at, format!("use of undefined type %{n}"));
                }
                let (size, align) = layouts.size_align(&ty).unwrap_or((0, 1));
                let g = Global {
                    size,
                    align: align as u32,
                    constant: w == "constant" && !interposable,
                    linkage,
                    init: if external { None } else { Some(Vec::new()) },
                    ..Global::default()
                };
                return Ok((g, ty));
            }
            "alias" | "ifunc" => {
                let ty = c.parse_type()?;
                return Ok((
                    Global {
                        size: 0,
                        align: 1,
                        linkage,
                        init: None,
                        ..Global::default()
                    },
                    ty,
                ));
            }
            "private" | "internal" => linkage = Linkage::Internal,
            "external" => external = true,
            "extern_weak" => {
                external = true;
                interposable = true;
            }
            "weak" | "linkonce" | "common" => interposable = true,
            _ => {
                let from = c.pos - 1;
                c.skip_parens()?;
                validate::check_words(c, &c.toks[from..c.pos], defined)?;
            }
        }
    }
}

/// Checks an `align N` value as LLVM's parser does: a power of two up to 2^29.
pub fn check_align(c: &Cursor<'_>, at: Token, a: u64) -> PResult<()> {
    if !a.is_power_of_two() || a > 1 << 29 {
        return c.err_at(
            at,
            format!("alignment {a} is not a power of two up to 2^29"),
        );
    }
    Ok(())
}

/// Evaluates a global's initialiser and `align` into `g`. Returns the initialiser's
/// `blockaddress` pointers as (offset, function, label, line), which the importer resolves
/// once the functions are lowered.
fn global_init(
    c: &mut Cursor<'_>,
    layouts: &Layouts,
    syms: &hash::FastMap<String, Symbol>,
    defined: &validate::Defined,
    g: &mut Global,
) -> PResult<Vec<(u64, String, String, u32)>> {
    let mut block_addresses = Vec::new();
    c.bump();
    c.bump();
    while !c.is_word("global") && !c.is_word("constant") {
        if c.peek().kind == Tok::Eof || c.is_word("alias") || c.is_word("ifunc") {
            return Ok(block_addresses);
        }
        c.bump();
    }
    c.bump();
    let ty = c.parse_type()?;
    if g.init.is_some() && matches!(c.peek().kind, Tok::Comma | Tok::Eof) {
        return c.expected("an initializer");
    }
    if g.init.is_some() {
        let at = c.peek();
        let v = c.parse_value()?;
        let mut buf = consts::InitBuf::default();
        consts::eval_init(layouts, syms, &ty, &v, 0, &mut buf).map_err(|e| PErr {
            unsupported: e.is_unsupported(),
            ..c.perr(at, e.to_string())
        })?;
        g.init = Some(buf.bytes);
        g.relocations = buf.relocs;
        let line = c.perr(at, String::new()).line;
        block_addresses.extend(
            buf.block_addresses
                .into_iter()
                .map(|(offset, f, label)| (offset, f, label, line)),
        );
    }
    while c.eat(Tok::Comma) {
        if c.eat_word("align") {
            let at = c.peek();
            let a = c.parse_u64("an alignment")?;
            check_align(c, at, a)?;
            g.align = a as u32;
        } else if c.peek().kind == Tok::MetaVar {
            // A metadata attachment `!name !N`.
            c.bump();
            let n = c.peek();
            if n.kind != Tok::MetaVar || !defined.metadata.contains(c.text(n)) {
                return c.expected("a defined metadata node");
            }
            c.bump();
        } else {
            let from = c.pos;
            if matches!(c.peek().kind, Tok::Comma | Tok::Eof) {
                return c.expected("a global property after `,`");
            }
            while !matches!(c.peek().kind, Tok::Comma | Tok::Eof) {
                c.bump();
            }
            validate::check_words(c, &c.toks[from..c.pos], defined)?;
        }
    }
    if c.peek().kind != Tok::Eof {
        return c.expected("`,` or the end of the global");
    }
    Ok(block_addresses)
}

#[cfg(test)]
mod tests;

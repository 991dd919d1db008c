//! Recursive-descent parser of `.sir` modules (grammar in the [`super`] module doc).
//!
//! Instructions (results first; their count must equal `kind.result_types().len()`):
//!
//! ```text
//! vR = add i32 a, b              vR = fneg f64 a             vR = icmp slt i32 a, b
//! vR = fcmp olt f64 a, b         vR = zext i8 a to i32       vR = select i32 c, a, b
//! vR = alloca i32, size 4, align 4[, volatile]               vR = load i32, p[, volatile]
//! store i32 a, p[, volatile]     vR = gep p, 16, i32 v2 * 4  fence seq_cst
//! [vR =] call TY @f(TY arg, ...)[ fixed N]                   [vR =] call TY v5(TY arg, ...)
//! vR = atomicrmw add i32 p, v, seq_cst    vA, vB = cmpxchg i32 p, e, n, seq_cst, monotonic
//! vR = phi i32 [block0: a], [block2: b]   vR = copy i32 a
//! [results =] asm [volatile] "tmpl" out("=r" i32 result, "=m" i32 ptr v3) in("r" i32 v5)
//!             clobber("cc") goto(block2)
//! [vR =] opaque "name" TY (TY arg, ...) "payload"
//! vR = extractvalue { i64, i64 } a, 1      vR = insertvalue { i64, i64 } a, i64 b, 0
//! ```
//!
//! Terminators: `jump T`, `br c, T, T`, `switch TY v, T [C: T, ...]`,
//! `indirect_br p, [blockN, ...]`, `ret [TY op]`, `unreachable`, where a target `T` is
//! `blockN[(TY arg, ...)]`. Operands are `vN`, integer and float literals, `null`, `undef`,
//! `true`, `false`, `@name` and `blockaddress(blockN)`; a literal's type comes from its
//! context (see `parser_inst`). Types are the scalar keywords and the aggregates
//! `{ TY, ... }`, `<{ TY, ... }>` (packed) and `[N x TY]`; an aggregate constant lists its
//! typed members in the same brackets (`{ i64 1, [2 x i8] [i8 0, i8 1] }`), or is
//! `zeroinitializer` (printed member by member) or `undef`.
//!
//! Algorithm: pass 1 lexes the whole source (so that a lexical error anywhere is reported
//! before anything else), finds `extern`/`global`/`const`/`func` followed by `@name` at
//! brace depth 0 and creates the module's symbols in text order, hashed by name (it also
//! notes each function body's size, a capacity hint). Pass 2 lexes the source again, one
//! token at a time (tokens borrow from the source), and parses each item. What an error
//! message says was expected is a `Ctx`: a `&str` or a closure, formatted only when the
//! error is built, so the success path does not format. Inside a function, value and block definitions fill dense tables indexed by the
//! names' numbers (holes become unused values and dead blocks); uses are recorded and
//! checked once the function ends, so uses may precede definitions.
//!
//! Invariants established: every used value and block of a function is defined exactly
//! once; block 0 exists; `values`, `insts`, `blocks`, `symbols`, `globals`, `externs` and
//! `functions` are mutually consistent. Table sizes, summed over the module, are bounded
//! by a [`Budget`] linear in the source length. Complexity: O(n) in the number of tokens.

use super::lexer::{Lexer, Tok, Token};
use super::ParseError;
use crate::ir::*;
use std::collections::HashMap;

/// The "what was expected" part of an error message, built only when an error is
/// reported: a `&str`, or a closure that formats it (so that the success path never
/// formats or allocates).
pub(super) trait Ctx {
    /// The text.
    fn build(self) -> String;
}

impl Ctx for &str {
    fn build(self) -> String {
        self.to_string()
    }
}

impl<F: FnOnce() -> String> Ctx for F {
    fn build(self) -> String {
        self()
    }
}

/// Parses a whole module; `file` names the source in error messages.
///
/// Table sizes are budgeted by [`Budget::for_len`]`(src.len())`, so that a short input
/// cannot allocate huge value or block tables.
pub fn parse_module(src: &str, file: &str) -> Result<Module, ParseError> {
    parse_module_with_budget(src, file, Budget::for_len(src.len()))
}

/// Limits on the dense tables a parse may allocate, summed over the module's functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Total value-table entries (also the largest `vN` index accepted).
    pub values: u64,
    /// Total block-table entries (also the largest `blockN` index accepted).
    pub blocks: u64,
}

impl Budget {
    /// The budget of a source of `len` bytes: `16 * len + 2^20` values and
    /// `2 * len + 2^16` blocks. Generous, so that printed functions with sparse indices
    /// (after passes delete most values) still reparse; bounded (about 16 MB of value and
    /// 10 MB of block tables plus a linear term), so that `v4000000000` cannot exhaust memory.
    pub fn for_len(len: usize) -> Budget {
        let len = len as u64;
        Budget {
            values: 16 * len + (1 << 20),
            blocks: 2 * len + (1 << 16),
        }
    }

    /// The larger of two budgets, entry by entry.
    pub fn max(self, other: Budget) -> Budget {
        Budget {
            values: self.values.max(other.values),
            blocks: self.blocks.max(other.blocks),
        }
    }
}

/// [`parse_module`] with an explicit budget (used by round-trip checks that reparse
/// printed text, which may be shorter than the source it came from).
pub fn parse_module_with_budget(
    src: &str,
    file: &str,
    budget: Budget,
) -> Result<Module, ParseError> {
    let Pass1 {
        module,
        names,
        bodies,
    } = collect_symbols(src, file)?;
    // Pass 1 lexed the whole source without error, and lexing is deterministic, so pass 2
    // meets no lexical error.
    let mut lexer = Lexer::new(src, file);
    let cur = lexer.scan();
    let p = Parser {
        lexer,
        cur,
        file,
        limit: budget,
        left: budget,
        names,
        module,
        bodies: bodies.into_iter(),
        f: FnState::default(),
    };
    p.items()
}

/// What pass 1 finds.
struct Pass1 {
    /// A module holding just the symbols.
    module: Module,
    /// The symbols by name.
    names: HashMap<String, Symbol>,
    /// The byte length of every `{ ... }` at brace depth 0 (the function bodies), in order.
    bodies: Vec<usize>,
}

/// Pass 1: lexes the whole source (so that a lexical error anywhere is reported first)
/// and creates one symbol per item, in text order: a `global`, `const`, `func` or
/// `extern` word at brace depth 0 followed by `@name`. A name defined twice is an error
/// at its second definition. Symbols are also mapped by name (`Module::add_symbol` would
/// scan every symbol for the name), and function body sizes recorded as capacity hints.
fn collect_symbols(src: &str, file: &str) -> Result<Pass1, ParseError> {
    let mut module = Module::default();
    let mut names = HashMap::new();
    let (mut bodies, mut body_start) = (Vec::new(), 0);
    let mut lexer = Lexer::new(src, file);
    let (mut depth, mut counts) = (0i64, [0u32; 3]);
    // The kind of item whose keyword was the previous token, if any.
    let mut item: Option<usize> = None;
    let mut duplicate = None;
    loop {
        let t = lexer.scan();
        if let (Some(k), Tok::Sym(name)) = (item, &t.tok) {
            let kind = match k {
                0 => SymbolKind::Global(counts[0]),
                1 => SymbolKind::Function(counts[1]),
                _ => SymbolKind::Extern(counts[2]),
            };
            counts[k] += 1;
            if duplicate.is_none() {
                if names.contains_key(&**name) {
                    duplicate = Some(ParseError {
                        file: file.to_string(),
                        line: t.line,
                        col: t.col,
                        message: format!(
                            "expected a new symbol name, found `@{name}` defined a second time"
                        ),
                    });
                } else {
                    names.insert(name.to_string(), Symbol::new(module.symbols.len()));
                    module.symbols.push(SymbolData {
                        name: name.to_string(),
                        kind,
                    });
                }
            }
        }
        item = None;
        match t.tok {
            Tok::Eof => break,
            Tok::Punct('{') => {
                if depth == 0 {
                    body_start = lexer.offset();
                }
                depth += 1;
            }
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    bodies.push(lexer.offset().saturating_sub(body_start));
                }
            }
            Tok::Word(w) if depth == 0 => {
                item = match w {
                    "global" | "const" => Some(0),
                    "func" => Some(1),
                    "extern" => Some(2),
                    _ => None,
                }
            }
            _ => {}
        }
    }
    if let Some(e) = lexer.take_error() {
        return Err(e);
    }
    match duplicate {
        Some(e) => Err(e),
        None => Ok(Pass1 {
            module,
            names,
            bodies,
        }),
    }
}

/// Per-function parsing state.
#[derive(Default)]
pub(super) struct FnState {
    /// The function being built.
    pub func: Function,
    /// `defined[v]`: value `v` has a definition.
    pub defined: Vec<bool>,
    /// `block_defined[b]`: label `blockb` has been seen.
    pub block_defined: Vec<bool>,
    /// Every value use: (index, line, col), in text order.
    pub uses: Vec<(u32, u32, u32)>,
    /// Every block reference: (index, line, col), in text order.
    pub block_refs: Vec<(u32, u32, u32)>,
    /// The instructions of the block being parsed.
    pub block_insts: Vec<Inst>,
}

/// The parser: tokens, a cursor, the module under construction and the current function.
pub(super) struct Parser<'a> {
    /// The source's tokens after `cur`.
    lexer: Lexer<'a, 'a>,
    /// The next token.
    cur: Token<'a>,
    pub(super) file: &'a str,
    /// The per-index limits.
    pub(super) limit: Budget,
    /// What is left of the budget.
    pub(super) left: Budget,
    /// The module's symbols by name (`Module::symbol_by_name` is a linear scan).
    pub(super) names: HashMap<String, Symbol>,
    /// The byte lengths of the function bodies not yet parsed (capacity hints).
    pub(super) bodies: std::vec::IntoIter<usize>,
    pub(super) module: Module,
    pub(super) f: FnState,
}

impl<'a> Parser<'a> {
    // ---- token helpers -------------------------------------------------------------------

    /// The next token.
    pub(super) fn peek(&self) -> &Token<'a> {
        &self.cur
    }

    /// Whether the token after the next one is the punctuation `c`.
    pub(super) fn second_is_punct(&self, c: u8) -> bool {
        self.lexer.peek_byte() == Some(c)
    }

    /// Whether the token after the next one is the word `w`.
    pub(super) fn second_is_word(&self, w: &str) -> bool {
        self.lexer.peek_word() == Some(w)
    }

    /// Moves past the next token (at the end, stays at [`Tok::Eof`]).
    pub(super) fn bump(&mut self) {
        self.cur = self.lexer.scan();
    }

    pub(super) fn next(&mut self) -> Token<'a> {
        let t = self.peek().clone();
        self.bump();
        t
    }

    pub(super) fn err_at(&self, t: &Token, message: String) -> ParseError {
        self.err_loc(t.line, t.col, message)
    }

    pub(super) fn err_loc(&self, line: u32, col: u32, message: String) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line,
            col,
            message,
        }
    }

    /// "expected {what}, found {next token}" at the next token.
    #[cold]
    pub(super) fn expected(&self, what: impl Ctx) -> ParseError {
        let t = self.peek();
        self.err_at(t, format!("expected {}, found {}", what.build(), t.tok))
    }

    pub(super) fn is_punct(&self, c: char) -> bool {
        matches!(self.peek().tok, Tok::Punct(x) if x == c)
    }

    pub(super) fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_punct(&mut self, c: char, ctx: impl Ctx) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(|| format!("`{c}` {}", ctx.build())))
        }
    }

    pub(super) fn is_word(&self, w: &str) -> bool {
        matches!(self.peek().tok, Tok::Word(x) if x == w)
    }

    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_word(&mut self, w: &str, ctx: impl Ctx) -> Result<(), ParseError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.expected(|| format!("`{w}` {}", ctx.build())))
        }
    }

    /// A word that one of the keyword tables accepts.
    pub(super) fn keyword<T>(
        &mut self,
        what: impl Ctx,
        from: impl Fn(&str) -> Option<T>,
    ) -> Result<T, ParseError> {
        if let Tok::Word(w) = self.peek().tok {
            if let Some(k) = from(w) {
                self.bump();
                return Ok(k);
            }
        }
        Err(self.expected(what))
    }

    /// A type: a scalar keyword, an aggregate `{ T, ... }`, `<{ T, ... }>` (packed) or
    /// `[N x T]`, or a vector `<N x T>`.
    pub(super) fn ty(&mut self, ctx: impl Ctx) -> Result<Type, ParseError> {
        if self.is_punct('{') || self.is_punct('[') || self.is_punct('<') {
            return self.aggregate_type();
        }
        self.keyword(|| format!("a type {}", ctx.build()), Type::from_name)
    }

    fn aggregate_type(&mut self) -> Result<Type, ParseError> {
        let start = self.peek().clone();
        let shape = if self.is_punct('<') && !self.second_is_punct(b'{') {
            self.bump();
            let len = self.uint("a vector length", crate::ir::aggregate::MAX_MEMBERS)? as u32;
            self.expect_word("x", "after a vector length")?;
            let elem = self.ty("as a vector lane")?;
            self.expect_punct('>', "after a vector type")?;
            AggShape::Vector { len, elem }
        } else if self.eat_punct('[') {
            let len = self.uint("an array length", crate::ir::aggregate::MAX_MEMBERS)? as u32;
            self.expect_word("x", "after an array length")?;
            let elem = self.ty("as an array element")?;
            self.expect_punct(']', "after an array type")?;
            AggShape::Array { len, elem }
        } else {
            let packed = self.eat_punct('<');
            self.expect_punct('{', "to open a struct type")?;
            let mut fields = Vec::new();
            if !self.eat_punct('}') {
                loop {
                    fields.push(self.ty("as a struct member")?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.expect_punct(',', "between struct members")?;
                }
            }
            if packed {
                self.expect_punct('>', "to close a packed struct type")?;
            }
            AggShape::Struct {
                fields: fields.into(),
                packed,
            }
        };
        Type::aggregate(shape).map_err(|e| self.err_at(&start, e.to_string()))
    }

    pub(super) fn string(&mut self, what: &str) -> Result<String, ParseError> {
        let t = self.peek();
        match &t.tok {
            Tok::Str(b) => {
                let s = std::str::from_utf8(b).map_err(|_| {
                    self.err_at(t, format!("expected {what} in UTF-8, found invalid bytes"))
                })?;
                let s = s.to_string();
                self.bump();
                Ok(s)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// An unsigned integer literal (decimal or hex) that fits in `max`.
    pub(super) fn uint(&mut self, what: &str, max: u64) -> Result<u64, ParseError> {
        let t = self.peek();
        if let Tok::Num(n) = &t.tok {
            if let Some((false, m)) = int_literal(n) {
                if m <= max as u128 {
                    self.bump();
                    return Ok(m as u64);
                }
                return Err(self.err_at(t, format!("expected {what} at most {max}, found `{n}`")));
            }
        }
        Err(self.expected(what))
    }

    /// A signed 64-bit integer literal.
    pub(super) fn int64(&mut self, what: &str) -> Result<i64, ParseError> {
        let t = self.peek();
        if let Tok::Num(n) = &t.tok {
            if let Some((neg, m)) = int_literal(n) {
                let v = if neg {
                    (m <= 1u128 << 63).then(|| (m as u64).wrapping_neg() as i64)
                } else {
                    (m <= i64::MAX as u128).then_some(m as i64)
                };
                return match v {
                    Some(v) => {
                        self.bump();
                        Ok(v)
                    }
                    None => Err(self.err_at(
                        t,
                        format!("expected {what} in the range of i64, found `{n}`"),
                    )),
                };
            }
        }
        Err(self.expected(what))
    }

    /// Parses a `prefixN` word's number, bounded by the input size.
    pub(super) fn indexed(&self, t: &Token, prefix: &str) -> Result<Option<u32>, ParseError> {
        let Tok::Word(w) = t.tok else {
            return Ok(None);
        };
        let Some(digits) = w.strip_prefix(prefix) else {
            return Ok(None);
        };
        let limit = if prefix == "v" {
            self.limit.values
        } else {
            self.limit.blocks
        };
        match decimal(digits) {
            None => Ok(None),
            Some(Some(n)) if n < limit && n < u32::MAX as u64 => Ok(Some(n as u32)),
            Some(_) => Err(self.err_at(
                t,
                format!("expected a {prefix} index below {limit} for this input, found `{w}`"),
            )),
        }
    }

    // ---- module level --------------------------------------------------------------------

    /// Pass 2: parses every item.
    fn items(mut self) -> Result<Module, ParseError> {
        let mut globals: Vec<Option<Global>> = Vec::new();
        let mut externs: Vec<Option<ExternDecl>> = Vec::new();
        let mut functions: Vec<Option<Function>> = Vec::new();
        for s in &self.module.symbols {
            match s.kind {
                SymbolKind::Global(_) => globals.push(None),
                SymbolKind::Function(_) => functions.push(None),
                SymbolKind::Extern(_) => externs.push(None),
            }
        }
        loop {
            let linkage = if self.eat_word("internal") {
                Linkage::Internal
            } else {
                Linkage::External
            };
            match &self.peek().tok {
                Tok::Eof if linkage == Linkage::External => break,
                Tok::Word("extern") if linkage == Linkage::External => {
                    self.bump();
                    let (symbol, i) = self.item_symbol(|k| matches!(k, SymbolKind::Extern(_)))?;
                    let signature = self.signature(false)?.0;
                    store(&mut externs, i, ExternDecl { symbol, signature });
                }
                &Tok::Word(w @ ("global" | "const")) => {
                    self.bump();
                    let g = self.global(w == "const", linkage)?;
                    let i = self.kind_index(g.symbol);
                    store(&mut globals, i, g);
                }
                Tok::Word("func") => {
                    self.bump();
                    let (s, i) = self.item_symbol(|k| matches!(k, SymbolKind::Function(_)))?;
                    let f = self.function(s, linkage)?;
                    store(&mut functions, i, f);
                }
                _ if linkage == Linkage::Internal => {
                    return Err(self.expected("`global`, `const` or `func` after `internal`"))
                }
                _ => {
                    return Err(self.expected(
                        "`extern`, `global`, `const`, `internal` or `func` at the start of an item",
                    ))
                }
            }
        }
        let eof = self.peek().clone();
        let missing = self.err_at(
            &eof,
            "expected every named item to be defined, found one missing".into(),
        );
        self.module.globals = globals
            .into_iter()
            .collect::<Option<_>>()
            .ok_or_else(|| missing.clone())?;
        self.module.externs = externs
            .into_iter()
            .collect::<Option<_>>()
            .ok_or_else(|| missing.clone())?;
        self.module.functions = functions
            .into_iter()
            .collect::<Option<_>>()
            .ok_or(missing)?;
        Ok(self.module)
    }

    fn kind_index(&self, s: Symbol) -> usize {
        match self.module.symbols[s.index()].kind {
            SymbolKind::Global(i) | SymbolKind::Function(i) | SymbolKind::Extern(i) => i as usize,
        }
    }

    /// The `@name` of an item being defined (created by pass 1, of a kind that `want`
    /// accepts) and its kind index.
    fn item_symbol(
        &mut self,
        want: fn(&SymbolKind) -> bool,
    ) -> Result<(Symbol, usize), ParseError> {
        if let Tok::Sym(name) = &self.peek().tok {
            if let Some(&s) = self
                .names
                .get(&**name)
                .filter(|s| want(&self.module.symbols[s.index()].kind))
            {
                self.bump();
                return Ok((s, self.kind_index(s)));
            }
        }
        Err(self.expected("an `@name` for the item"))
    }

    /// A reference to a module symbol.
    pub(super) fn symbol_ref(&mut self) -> Result<Symbol, ParseError> {
        let t = self.peek();
        match &t.tok {
            Tok::Sym(name) => match self.names.get(&**name) {
                Some(&s) => {
                    self.bump();
                    Ok(s)
                }
                None => Err(self.err_at(
                    t,
                    format!("expected a defined symbol, found unknown `@{name}`"),
                )),
            },
            _ => Err(self.expected("a symbol `@name`")),
        }
    }

    /// `global`/`const` after the keyword.
    fn global(&mut self, constant: bool, linkage: Linkage) -> Result<Global, ParseError> {
        let (symbol, _) = self.item_symbol(|k| matches!(k, SymbolKind::Global(_)))?;
        self.expect_word("size", "after the global's name")?;
        let size = self.uint("a size in bytes", u64::MAX)?;
        self.expect_word("align", "after the global's size")?;
        let align = self.uint("an alignment", u32::MAX as u64)? as u32;
        let mut g = Global {
            symbol,
            size,
            align,
            constant,
            linkage,
            init: Some(Vec::new()),
            relocations: Vec::new(),
        };
        if self.eat_word("external") {
            g.init = None;
            return Ok(g);
        }
        if self.eat_word("init") {
            match &self.peek().tok {
                Tok::Str(b) => {
                    g.init = Some(b.clone());
                    self.bump();
                }
                _ => return Err(self.expected("a string after `init`")),
            }
        }
        while self.eat_word("reloc") {
            let r = self.relocation()?;
            g.relocations.push(r);
        }
        Ok(g)
    }

    /// After `reloc`: `OFFSET @sym [+|- ADDEND]` (a pointer),
    /// `OFFSET blockaddress(@f, blockN) [+|- ADDEND]` (a block's address) or
    /// `OFFSET relative iN @sym [+|- ADDEND] from @base` (the low N bits of
    /// `address(sym) + addend - address(base)`).
    fn relocation(&mut self) -> Result<Relocation, ParseError> {
        let offset = self.uint("a byte offset after `reloc`", u64::MAX)?;
        if self.eat_word("blockaddress") {
            self.expect_punct('(', "after `blockaddress`")?;
            let (symbol, _) = self.item_symbol(|k| matches!(k, SymbolKind::Function(_)))?;
            self.expect_punct(',', "after the function of `blockaddress`")?;
            let t = self.peek().clone();
            let Some(b) = self.indexed(&t, "block")? else {
                return Err(self.expected("a block `blockN` in `blockaddress`"));
            };
            self.bump();
            self.expect_punct(')', "after the block of `blockaddress`")?;
            let addend = self.addend()?;
            return Ok(Relocation {
                offset,
                symbol,
                addend,
                kind: RelocationKind::BlockAddress(Block(b)),
            });
        }
        if self.eat_word("relative") {
            let t = self.peek().clone();
            let bytes = match t.tok {
                Tok::Word("i8") => 1,
                Tok::Word("i16") => 2,
                Tok::Word("i32") => 4,
                Tok::Word("i64") => 8,
                _ => return Err(self.expected("a width i8, i16, i32 or i64 after `relative`")),
            };
            self.bump();
            let symbol = self.symbol_ref()?;
            let addend = self.addend()?;
            self.expect_word("from", "after the target of a relative relocation")?;
            let base = self.symbol_ref()?;
            return Ok(Relocation {
                offset,
                symbol,
                addend,
                kind: RelocationKind::Relative { base, bytes },
            });
        }
        let symbol = self.symbol_ref()?;
        let addend = self.addend()?;
        Ok(Relocation::address(offset, symbol, addend))
    }

    /// An optional `+ N` / `- N` / `-N` after a relocation's symbol (0 when absent).
    fn addend(&mut self) -> Result<i64, ParseError> {
        Ok(if self.eat_punct('+') {
            self.int64("an addend after `+`")?
        } else if self.eat_punct('-') {
            let t = self.peek().clone();
            let m = self.uint("an addend after `-`", 1u64 << 63)?;
            if matches!(&t.tok, Tok::Num(n) if n.starts_with('-')) {
                return Err(self.err_at(&t, "expected an unsigned addend after `-`".into()));
            }
            m.wrapping_neg() as i64
        } else if matches!(&self.peek().tok, Tok::Num(n) if n.starts_with('-')) {
            self.int64("an addend")?
        } else {
            0
        })
    }

    /// `( params ) -> ret`; with `named`, every parameter type is followed by a value name,
    /// returned with its location.
    pub(super) fn signature(
        &mut self,
        named: bool,
    ) -> Result<(Signature, Vec<Token<'a>>), ParseError> {
        let mut sig = Signature::default();
        let mut names = Vec::new();
        self.expect_punct('(', "to open the parameter list")?;
        if !self.eat_punct(')') {
            loop {
                if self.peek().tok == Tok::Ellipsis {
                    self.bump();
                    sig.varargs = true;
                    self.expect_punct(')', "after `...`")?;
                    break;
                }
                sig.params.push(self.ty("of a parameter")?);
                if named {
                    let t = self.next();
                    if self.indexed(&t, "v")?.is_none() {
                        return Err(self.err_at(
                            &t,
                            format!("expected a parameter value `vN`, found {}", t.tok),
                        ));
                    }
                    names.push(t);
                }
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',', "or `)` after a parameter")?;
            }
        }
        if self.peek().tok != Tok::Arrow {
            return Err(self.expected("`->` after the parameters"));
        }
        self.bump();
        sig.ret = self.ty("after `->`")?;
        Ok((sig, names))
    }
}

/// Puts an item in its slot (pass 1 sized the slots, so `i` is in range for parsed text).
fn store<T>(slots: &mut [Option<T>], i: usize, item: T) {
    if let Some(slot) = slots.get_mut(i) {
        *slot = Some(item);
    }
}

/// The value of a nonempty string of ASCII decimal digits: `None` if `text` is not one,
/// `Some(None)` if it overflows `u64`.
fn decimal(text: &str) -> Option<Option<u64>> {
    if text.is_empty() {
        return None;
    }
    let mut n = Some(0u64);
    for b in text.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n
            .and_then(|n| n.checked_mul(10))
            .and_then(|n| n.checked_add((b - b'0') as u64));
    }
    Some(n)
}

/// Splits an integer literal into (negative, magnitude); `None` if it is not one.
pub(super) fn int_literal(text: &str) -> Option<(bool, u128)> {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (digits, radix) = match rest.strip_prefix("0x") {
        Some(h) => (h, 16),
        None => (rest, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u128::from_str_radix(digits, radix).ok().map(|m| (neg, m))
}

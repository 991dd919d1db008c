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
//! ```
//!
//! Terminators: `jump T`, `br c, T, T`, `switch TY v, T [C: T, ...]`,
//! `indirect_br p, [blockN, ...]`, `ret [TY op]`, `unreachable`, where a target `T` is
//! `blockN[(TY arg, ...)]`. Operands are `vN`, integer and float literals, `null`, `undef`,
//! `true`, `false`, `@name` and `blockaddress(blockN)`; a literal's type comes from its
//! context (see `parser_inst`).
//!
//! Algorithm: pass 1 scans the tokens at brace depth 0 for `extern`/`global`/`const`/`func`
//! followed by `@name` and creates the module's symbols in text order; pass 2 parses each
//! item. Inside a function, value and block definitions fill dense tables indexed by the
//! names' numbers (holes become unused values and dead blocks); uses are recorded and
//! checked once the function ends, so uses may precede definitions.
//!
//! Invariants established: every used value and block of a function is defined exactly
//! once; block 0 exists; `values`, `insts`, `blocks`, `symbols`, `globals`, `externs` and
//! `functions` are mutually consistent. Table sizes, summed over the module, are bounded
//! by a [`Budget`] linear in the source length. Complexity: O(n) in the number of tokens.

use super::lexer::{tokenize, Tok, Token};
use super::ParseError;
use crate::ir::*;
use std::collections::HashMap;

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
    let toks = tokenize(src, file)?;
    let mut p = Parser {
        toks,
        pos: 0,
        file,
        limit: budget,
        left: budget,
        names: HashMap::new(),
        module: Module::default(),
        f: FnState::default(),
    };
    p.collect_symbols()?;
    p.items()
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
}

/// The parser: tokens, a cursor, the module under construction and the current function.
pub(super) struct Parser<'a> {
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    pub(super) file: &'a str,
    /// The per-index limits.
    pub(super) limit: Budget,
    /// What is left of the budget.
    pub(super) left: Budget,
    pub(super) names: HashMap<String, Symbol>,
    pub(super) module: Module,
    pub(super) f: FnState,
}

impl Parser<'_> {
    // ---- token helpers -------------------------------------------------------------------

    pub(super) fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    pub(super) fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    pub(super) fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    pub(super) fn err_at(&self, t: &Token, message: String) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line: t.line,
            col: t.col,
            message,
        }
    }

    /// "expected {what}, found {next token}" at the next token.
    pub(super) fn expected(&self, what: &str) -> ParseError {
        let t = self.peek();
        self.err_at(t, format!("expected {what}, found {}", t.tok))
    }

    pub(super) fn eat_punct(&mut self, c: char) -> bool {
        if self.peek().tok == Tok::Punct(c) {
            self.next();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_punct(&mut self, c: char, ctx: &str) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{c}` {ctx}")))
        }
    }

    pub(super) fn is_word(&self, w: &str) -> bool {
        matches!(&self.peek().tok, Tok::Word(x) if x == w)
    }

    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.next();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_word(&mut self, w: &str, ctx: &str) -> Result<(), ParseError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{w}` {ctx}")))
        }
    }

    /// A word that one of the keyword tables accepts.
    pub(super) fn keyword<T>(
        &mut self,
        what: &str,
        from: impl Fn(&str) -> Option<T>,
    ) -> Result<T, ParseError> {
        if let Tok::Word(w) = &self.peek().tok {
            if let Some(k) = from(w) {
                self.next();
                return Ok(k);
            }
        }
        Err(self.expected(what))
    }

    pub(super) fn ty(&mut self, ctx: &str) -> Result<Type, ParseError> {
        self.keyword(&format!("a type {ctx}"), Type::from_name)
    }

    pub(super) fn string(&mut self, what: &str) -> Result<String, ParseError> {
        let t = self.peek().clone();
        match &t.tok {
            Tok::Str(b) => {
                let s = String::from_utf8(b.clone()).map_err(|_| {
                    self.err_at(&t, format!("expected {what} in UTF-8, found invalid bytes"))
                })?;
                self.next();
                Ok(s)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// An unsigned integer literal (decimal or hex) that fits in `max`.
    pub(super) fn uint(&mut self, what: &str, max: u64) -> Result<u64, ParseError> {
        let t = self.peek().clone();
        if let Tok::Num(n) = &t.tok {
            if let Some((false, m)) = int_literal(n) {
                if m <= max as u128 {
                    self.next();
                    return Ok(m as u64);
                }
                return Err(self.err_at(&t, format!("expected {what} at most {max}, found `{n}`")));
            }
        }
        Err(self.expected(what))
    }

    /// A signed 64-bit integer literal.
    pub(super) fn int64(&mut self, what: &str) -> Result<i64, ParseError> {
        let t = self.peek().clone();
        if let Tok::Num(n) = &t.tok {
            if let Some((neg, m)) = int_literal(n) {
                let v = if neg {
                    (m <= 1u128 << 63).then(|| (m as u64).wrapping_neg() as i64)
                } else {
                    (m <= i64::MAX as u128).then_some(m as i64)
                };
                return match v {
                    Some(v) => {
                        self.next();
                        Ok(v)
                    }
                    None => Err(self.err_at(
                        &t,
                        format!("expected {what} in the range of i64, found `{n}`"),
                    )),
                };
            }
        }
        Err(self.expected(what))
    }

    /// Parses a `prefixN` word's number, bounded by the input size.
    pub(super) fn indexed(&self, t: &Token, prefix: &str) -> Result<Option<u32>, ParseError> {
        let Tok::Word(w) = &t.tok else {
            return Ok(None);
        };
        let Some(digits) = w.strip_prefix(prefix) else {
            return Ok(None);
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(None);
        }
        let limit = if prefix == "v" {
            self.limit.values
        } else {
            self.limit.blocks
        };
        match digits.parse::<u64>() {
            Ok(n) if n < limit && n < u32::MAX as u64 => Ok(Some(n as u32)),
            _ => Err(self.err_at(
                t,
                format!("expected a {prefix} index below {limit} for this input, found `{w}`"),
            )),
        }
    }

    // ---- module level --------------------------------------------------------------------

    /// Pass 1: creates one symbol per item, in text order.
    fn collect_symbols(&mut self) -> Result<(), ParseError> {
        let (mut depth, mut counts) = (0i64, [0u32; 3]);
        for i in 0..self.toks.len().saturating_sub(1) {
            match &self.toks[i].tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                Tok::Word(w) if depth == 0 => {
                    let k = match w.as_str() {
                        "global" | "const" => 0,
                        "func" => 1,
                        "extern" => 2,
                        _ => continue,
                    };
                    let Tok::Sym(name) = &self.toks[i + 1].tok else {
                        continue;
                    };
                    let kind = match k {
                        0 => SymbolKind::Global(counts[0]),
                        1 => SymbolKind::Function(counts[1]),
                        _ => SymbolKind::Extern(counts[2]),
                    };
                    counts[k] += 1;
                    match self.module.add_symbol(name, kind) {
                        Some(s) => {
                            self.names.insert(name.clone(), s);
                        }
                        None => {
                            return Err(self.err_at(
                                &self.toks[i + 1],
                                format!(
                                "expected a new symbol name, found `@{name}` defined a second time"
                            ),
                            ))
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

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
            let t = self.peek().clone();
            match &t.tok {
                Tok::Eof if linkage == Linkage::External => break,
                Tok::Word(w) if w == "extern" && linkage == Linkage::External => {
                    self.next();
                    let (symbol, i) = self.item_symbol(|k| matches!(k, SymbolKind::Extern(_)))?;
                    let signature = self.signature(false)?.0;
                    store(&mut externs, i, ExternDecl { symbol, signature });
                }
                Tok::Word(w) if w == "global" || w == "const" => {
                    self.next();
                    let g = self.global(w == "const", linkage)?;
                    let i = self.kind_index(g.symbol);
                    store(&mut globals, i, g);
                }
                Tok::Word(w) if w == "func" => {
                    self.next();
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
        let t = self.peek().clone();
        if let Tok::Sym(name) = &t.tok {
            if let Some(&s) = self
                .names
                .get(name)
                .filter(|s| want(&self.module.symbols[s.index()].kind))
            {
                self.next();
                return Ok((s, self.kind_index(s)));
            }
        }
        Err(self.expected("an `@name` for the item"))
    }

    /// A reference to a module symbol.
    pub(super) fn symbol_ref(&mut self) -> Result<Symbol, ParseError> {
        let t = self.peek().clone();
        match &t.tok {
            Tok::Sym(name) => match self.names.get(name) {
                Some(&s) => {
                    self.next();
                    Ok(s)
                }
                None => Err(self.err_at(
                    &t,
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
                    self.next();
                }
                _ => return Err(self.expected("a string after `init`")),
            }
        }
        while self.eat_word("reloc") {
            let offset = self.uint("a byte offset after `reloc`", u64::MAX)?;
            let symbol = self.symbol_ref()?;
            let addend = if self.eat_punct('+') {
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
            };
            g.relocations.push(Relocation {
                offset,
                symbol,
                addend,
            });
        }
        Ok(g)
    }

    /// `( params ) -> ret`; with `named`, every parameter type is followed by a value name,
    /// returned with its location.
    pub(super) fn signature(&mut self, named: bool) -> Result<(Signature, Vec<Token>), ParseError> {
        let mut sig = Signature::default();
        let mut names = Vec::new();
        self.expect_punct('(', "to open the parameter list")?;
        if !self.eat_punct(')') {
            loop {
                if self.peek().tok == Tok::Ellipsis {
                    self.next();
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
        self.next();
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

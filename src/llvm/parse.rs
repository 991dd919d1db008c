//! Token cursor, type parser and value parser shared by module and function import.
//!
//! [`Cursor`] walks a token slice with one-token lookahead and turns every unexpected token
//! into a [`PErr`] naming what was expected and where. [`Cursor::parse_type`] parses LLVM
//! types (suffixes `*` and `(params)` applied left to right); [`Cursor::parse_value`] parses
//! the value half of a typed operand into a [`Val`] tree (literals, `c"..."`, aggregates,
//! constant expressions, `blockaddress`). Both recurse on nested types and constants and stop
//! at a depth of [`MAX_DEPTH`], so hostile input cannot overflow the stack. Each cursor
//! caches the types it parsed by their source text (`i8*`, `%struct.jv*`, `{ i64, i8* }`,
//! `i32 (i8*, ...)*`): a repeated type costs one hash lookup and reference-count increments
//! ([`LType`] shares its parts through `Arc`), not a parse and its allocations.
//!
//! Complexity: linear in the tokens consumed.

use super::hash::FastMap;
use super::layout::LType;
use super::lexer::{line_col, unescape, Tok, Token};
use std::borrow::Cow;
use std::sync::Arc;

/// Maximum nesting of types and constants.
pub const MAX_DEPTH: u32 = 128;

/// Longest bracketed group (in tokens) whose type [`Cursor::parse_type`] caches.
const CACHED_TYPE_TOKENS: usize = 64;

/// A parse or import error at a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PErr {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What went wrong.
    pub msg: String,
    /// True if the input is valid LLVM IR using a construct strata does not model (the
    /// function may be skipped); false if the input is malformed (always an error).
    pub unsupported: bool,
}

impl PErr {
    /// A malformed-input error at `line:col`.
    pub fn new(line: u32, col: u32, msg: impl Into<String>) -> Self {
        PErr {
            line,
            col,
            msg: msg.into(),
            unsupported: false,
        }
    }
}

/// Result with a [`PErr`].
pub type PResult<T> = Result<T, PErr>;

/// A cast operator of a constant expression or instruction.
pub fn cast_op(word: &str) -> Option<crate::ir::CastOp> {
    use crate::ir::CastOp::*;
    Some(match word {
        "trunc" => Trunc,
        "zext" => ZExt,
        "sext" => SExt,
        "fptrunc" => FpTrunc,
        "fpext" => FpExt,
        "fptosi" => FpToSi,
        "fptoui" => FpToUi,
        "sitofp" => SiToFp,
        "uitofp" => UiToFp,
        "ptrtoint" => PtrToInt,
        "inttoptr" => IntToPtr,
        "bitcast" | "addrspacecast" => Bitcast,
        _ => return None,
    })
}

/// A typed value: `(type, value)`.
pub type TVal<'a> = (LType, Val<'a>);

/// The value part of an operand or constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Val<'a> {
    /// `%name`.
    Local(Cow<'a, str>, Token),
    /// `@name`.
    Global(Cow<'a, str>, Token),
    /// Integer literal (two's complement, 128 bits).
    Int(u128),
    /// `true` / `false`.
    Bool(bool),
    /// Decimal float literal, parsed as `f64`.
    Dec(f64),
    /// Hex float: the prefix letter (`'x'` for plain `0x`) and the digits.
    Hex(char, &'a str),
    /// `null`.
    Null,
    /// `undef`.
    Undef,
    /// `poison`.
    Poison,
    /// `zeroinitializer`.
    Zero,
    /// `c"..."`, decoded.
    Bytes(Vec<u8>),
    /// `[...]`, `{...}`, `<{...}>`, `<...>` elements.
    Agg(Vec<TVal<'a>>),
    /// `getelementptr [inbounds] (T, base, indices...)`.
    Gep(LType, Box<TVal<'a>>, Vec<TVal<'a>>),
    /// `op (T v to U)`.
    Cast(crate::ir::CastOp, Box<TVal<'a>>, LType),
    /// `icmp pred (T a, T b)` (clang -O2 compares a function's address with a constant:
    /// `icmp eq (i64 ptrtoint (... @f to i64), i64 -1)`): the predicate and the operands.
    Icmp(&'a str, Token, Box<TVal<'a>>, Box<TVal<'a>>),
    /// An integer binary constant expression `op [nuw] [nsw] [exact] (T a, T b)`
    /// (`add` to `srem`): the operation, its keyword's token and the operands. Initialisers
    /// use `sub` of two `ptrtoint`s for relative lookup tables; in a body it becomes an
    /// instruction.
    Binary(crate::ir::BinaryOp, Token, Box<TVal<'a>>, Box<TVal<'a>>),
    /// Any other constant expression (`fadd (...)`, `fcmp ...`): its keyword, unsupported.
    OtherExpr(&'a str, Token),
    /// `blockaddress(@f, %b)`.
    BlockAddr(Cow<'a, str>, Cow<'a, str>),
}

/// A cursor over tokens of one source.
pub struct Cursor<'a> {
    /// The source text.
    pub src: &'a str,
    /// The tokens (ending in `Eof`, or at least non-empty).
    pub toks: &'a [Token],
    /// Line starts of the whole source ([`super::lexer::Lexed::lines`]), to locate errors.
    pub lines: &'a [u32],
    /// Index of the current token.
    pub pos: usize,
    /// Types already parsed by this cursor, by source text, for the common shapes `T`, `T*`,
    /// `T**`, ... with `T` a keyword or `%name` (see [`Cursor::parse_type`]): a repeated type
    /// is one hash lookup and reference-count increments instead of fresh allocations. Owned
    /// keys, so that one cache can serve the cursors of many bodies ([`Cursor::with_types`]).
    types: TypeCache,
}

/// Parsed types by their source text (see [`Cursor::with_types`]).
pub type TypeCache = FastMap<Box<str>, LType>;

impl<'a> Cursor<'a> {
    /// A cursor at the start of `toks`, which must end with an `Eof` token; `lines` is the
    /// line-start table of `src`.
    pub fn new(src: &'a str, toks: &'a [Token], lines: &'a [u32]) -> Self {
        Self::with_types(src, toks, lines, TypeCache::default())
    }

    /// A cursor like [`Cursor::new`] that starts with the types another cursor parsed
    /// ([`Cursor::take_types`]): a type's text parses the same anywhere in a module, so the
    /// bodies one thread lowers share one cache.
    pub fn with_types(src: &'a str, toks: &'a [Token], lines: &'a [u32], types: TypeCache) -> Self {
        Cursor {
            src,
            toks,
            lines,
            pos: 0,
            types,
        }
    }

    /// Moves the cursor's parsed types out (for [`Cursor::with_types`]).
    pub fn take_types(&mut self) -> TypeCache {
        std::mem::take(&mut self.types)
    }

    /// The current token (the last one, `Eof`, once past the end).
    #[inline]
    pub fn peek(&self) -> Token {
        self.toks.get(self.pos).copied().unwrap_or_else(|| {
            let mut t = self.toks.last().copied().unwrap_or(Token::eof(0));
            t.kind = Tok::Eof;
            t
        })
    }

    /// The token after the current one.
    #[inline]
    pub fn peek2(&self) -> Tok {
        self.toks.get(self.pos + 1).map_or(Tok::Eof, |t| t.kind)
    }

    /// Consumes and returns the current token.
    pub fn bump(&mut self) -> Token {
        let t = self.peek();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// The 1-based line and column of token `t`.
    pub fn line_col(&self, t: Token) -> (u32, u32) {
        line_col(self.lines, t.start)
    }

    /// A malformed-input error at token `t` (see [`Cursor::err_at`]), as a value.
    pub fn perr(&self, t: Token, msg: impl Into<String>) -> PErr {
        let (line, col) = self.line_col(t);
        PErr::new(line, col, msg)
    }

    /// The source text of a token.
    #[inline]
    pub fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start as usize..t.end as usize).unwrap_or("")
    }

    /// A malformed-input error at token `t`.
    pub fn err_at<T>(&self, t: Token, msg: impl Into<String>) -> PResult<T> {
        Err(self.perr(t, msg))
    }

    /// An error at token `t` for valid input that strata does not model (see
    /// [`PErr::unsupported`]).
    pub fn unsupported_at<T>(&self, t: Token, msg: impl Into<String>) -> PResult<T> {
        Err(PErr {
            unsupported: true,
            ..self.perr(t, msg)
        })
    }

    /// An error at the current token: "expected X, found Y".
    pub fn expected<T>(&self, what: &str) -> PResult<T> {
        let t = self.peek();
        let text = self.text(t);
        let found = if t.kind == Tok::Eof {
            "end of input".to_string()
        } else if t.kind == Tok::Error && text.contains('"') {
            "a string that is not closed before the end of the input".to_string()
        } else {
            let line = text.lines().next().unwrap_or("");
            match line.char_indices().nth(40) {
                Some((k, _)) => format!("`{}...`", &line[..k]),
                None => format!("`{line}`"),
            }
        };
        self.err_at(t, format!("expected {what}, found {found}"))
    }

    /// True if the current token is the keyword `w`.
    #[inline]
    pub fn is_word(&self, w: &str) -> bool {
        let t = self.peek();
        t.kind == Tok::Ident && self.text(t) == w
    }

    /// Consumes keyword `w` if present.
    #[inline]
    pub fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes a token of kind `k` if present.
    #[inline]
    pub fn eat(&mut self, k: Tok) -> bool {
        if self.peek().kind == k {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes a token of kind `k` or fails naming `what`.
    pub fn expect(&mut self, k: Tok, what: &str) -> PResult<Token> {
        if self.peek().kind == k {
            Ok(self.bump())
        } else {
            self.expected(what)
        }
    }

    /// Consumes keyword `w` or fails.
    #[inline]
    pub fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.expected(&format!("`{w}`"))
        }
    }

    /// The name of a `%x`, `@x`, `!x`, `$x` or label token, unquoted and unescaped.
    #[inline]
    pub fn name(&self, t: Token) -> Cow<'a, str> {
        let s = self.text(t);
        let s = match t.kind {
            Tok::Label => s,
            _ => s.get(1..).unwrap_or(""),
        };
        if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
            let body = &s[1..s.len() - 1];
            if body.contains('\\') {
                Cow::Owned(String::from_utf8_lossy(&unescape(body.as_bytes())).into_owned())
            } else {
                Cow::Borrowed(body)
            }
        } else {
            Cow::Borrowed(s)
        }
    }

    /// Parses an unsigned decimal integer token.
    pub fn parse_u64(&mut self, what: &str) -> PResult<u64> {
        let t = self.peek();
        if t.kind == Tok::Int {
            if let Ok(v) = self.text(t).parse::<u64>() {
                self.pos += 1;
                return Ok(v);
            }
        }
        self.expected(what)
    }

    /// Skips a balanced parenthesised group if the current token is `(`.
    pub fn skip_parens(&mut self) -> PResult<()> {
        if self.peek().kind != Tok::LParen {
            return Ok(());
        }
        let mut depth = 0i32;
        loop {
            let t = self.bump();
            match t.kind {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::Eof => return self.err_at(t, "unbalanced parentheses"),
                _ => {}
            }
        }
    }

    /// True if the current token can start a type.
    pub fn at_type(&self) -> bool {
        let t = self.peek();
        match t.kind {
            Tok::LocalVar | Tok::LBrace | Tok::Less | Tok::LBracket => true,
            Tok::Ident => is_type_word(self.text(t)),
            _ => false,
        }
    }

    /// Parses a type.
    pub fn parse_type(&mut self) -> PResult<LType> {
        self.parse_type_depth(0)
    }

    /// The type at the cursor from the cache. The type's span is found from the tokens
    /// alone: a keyword or `%name`, or a bracketed group (`{...}`, `<{...}>`, `<...>`,
    /// `[...]`, at most [`CACHED_TYPE_TOKENS`] tokens), then any run of `*` and
    /// parenthesised parameter lists (with their `*`s), up to a token that continues no
    /// type. Returns the type and the index of the token after it, or `None` (no such span,
    /// or not cached yet: then the span to cache under is returned in `span`). Equal text
    /// lexes to equal tokens, so the cached parse is what parsing again would give; the
    /// caller caches a parse only if it consumed exactly the span.
    fn cached_type(&self, span: &mut Option<(&'a str, usize)>) -> Option<(LType, usize)> {
        let toks = self.toks;
        let t = toks.get(self.pos)?;
        let group_end = |from: usize| -> Option<usize> {
            // Index one past the bracket that closes the group opened at `from`.
            let mut depth = 0i32;
            for (k, tok) in toks.iter().enumerate().skip(from).take(CACHED_TYPE_TOKENS) {
                match tok.kind {
                    Tok::LBrace | Tok::LBracket | Tok::Less | Tok::LParen => depth += 1,
                    Tok::RBrace | Tok::RBracket | Tok::Greater | Tok::RParen => depth -= 1,
                    Tok::Eof => return None,
                    _ => {}
                }
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            None
        };
        let mut end = match t.kind {
            Tok::Ident | Tok::LocalVar => self.pos + 1,
            Tok::LBrace | Tok::LBracket | Tok::Less => group_end(self.pos)?,
            _ => return None,
        };
        loop {
            match toks.get(end)?.kind {
                Tok::Star => end += 1,
                Tok::LParen => end = group_end(end)?,
                Tok::Ident if self.text(toks[end]) == "addrspace" => return None,
                _ => break,
            }
        }
        let text = self.src.get(t.start as usize..toks[end - 1].end as usize)?;
        match self.types.get(text) {
            Some(ty) => Some((ty.clone(), end)),
            None => {
                *span = Some((text, end));
                None
            }
        }
    }

    fn parse_type_depth(&mut self, depth: u32) -> PResult<LType> {
        if depth > MAX_DEPTH {
            return self.err_at(self.peek(), "type nested too deeply");
        }
        let t = self.peek();
        if t.kind == Tok::Ident && !matches!(self.peek2(), Tok::Star | Tok::LParen | Tok::Ident) {
            // A keyword type without suffixes (`i32`, `double`): parsing it is cheaper than
            // hashing its text, and the common ones need no parse at all.
            // (At the depth limit the full parse reports the nesting, as for any type.)
            if let Some(ty) = plain_type(self.text(t)).filter(|_| depth < MAX_DEPTH) {
                self.pos += 1;
                return Ok(ty);
            }
            return self.parse_type_uncached(depth);
        }
        let mut span = None;
        if let Some((ty, end)) = self.cached_type(&mut span) {
            // Every nesting level of the uncached parse consumes a token, so a span this
            // short at this depth cannot reach its limit.
            if depth as usize + (end - self.pos) < MAX_DEPTH as usize {
                self.pos = end;
                return Ok(ty);
            }
            span = None;
        }
        let ty = self.parse_type_uncached(depth)?;
        if let Some((text, end)) = span {
            // Only a parse that consumed exactly the simple span may be cached under it.
            if self.pos == end {
                self.types.insert(text.into(), ty.clone());
            }
        }
        Ok(ty)
    }

    fn parse_type_uncached(&mut self, depth: u32) -> PResult<LType> {
        let t = self.peek();
        let mut ty = match t.kind {
            Tok::Ident => {
                let w = self.text(t);
                self.pos += 1;
                // `iN` without string comparisons (each keyword arm below is one).
                let b = w.as_bytes();
                let width = match b {
                    [b'i', d @ ..] if (1..=7).contains(&d.len()) => {
                        d.iter().try_fold(0u32, |n, c| {
                            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
                        })
                    }
                    _ => None,
                };
                match width.filter(|n| (1..=(1 << 23)).contains(n)) {
                    Some(n) => LType::Int(n),
                    None => match w {
                        "i8" => LType::Int(8),
                        "i32" => LType::Int(32),
                        "i64" => LType::Int(64),
                        "void" => LType::Void,
                        "half" => LType::Half,
                        "bfloat" => LType::BFloat,
                        "float" => LType::Float,
                        "double" => LType::Double,
                        "x86_fp80" => LType::X86Fp80,
                        "fp128" => LType::Fp128,
                        "ppc_fp128" => LType::Other("ppc_fp128"),
                        "label" => LType::Other("label"),
                        "metadata" => LType::Other("metadata"),
                        "token" => LType::Other("token"),
                        "x86_mmx" => LType::Other("x86_mmx"),
                        "x86_amx" => LType::Other("x86_amx"),
                        "opaque" => LType::Other("opaque"),
                        "ptr" => {
                            if self.eat_word("addrspace") {
                                self.skip_parens()?;
                            }
                            LType::OpaquePtr
                        }
                        _ if w.len() > 1
                            && w.starts_with('i')
                            && w[1..].bytes().all(|c| c.is_ascii_digit()) =>
                        {
                            match w[1..].parse::<u32>() {
                                Ok(n) if (1..=(1 << 23)).contains(&n) => LType::Int(n),
                                _ => return self.err_at(t, format!("invalid integer type `{w}`")),
                            }
                        }
                        _ => {
                            self.pos -= 1;
                            return self.expected("a type");
                        }
                    },
                }
            }
            Tok::LocalVar => {
                self.pos += 1;
                LType::Named(self.name(t).into())
            }
            Tok::LBrace => {
                self.pos += 1;
                let fields = self.type_list(Tok::RBrace, depth)?;
                LType::Struct {
                    fields: fields.into(),
                    packed: false,
                }
            }
            Tok::Less => {
                self.pos += 1;
                if self.eat(Tok::LBrace) {
                    let fields = self.type_list(Tok::RBrace, depth)?;
                    self.expect(Tok::Greater, "`>` closing a packed struct")?;
                    LType::Struct {
                        fields: fields.into(),
                        packed: true,
                    }
                } else {
                    if self.eat_word("vscale") {
                        self.expect_word("x")?;
                    }
                    let n = self.parse_u64("a vector length")?;
                    self.expect_word("x")?;
                    let e = self.parse_type_depth(depth + 1)?;
                    self.expect(Tok::Greater, "`>` closing a vector type")?;
                    LType::Vector(n, Arc::new(e))
                }
            }
            Tok::LBracket => {
                self.pos += 1;
                let n = self.parse_u64("an array length")?;
                self.expect_word("x")?;
                let e = self.parse_type_depth(depth + 1)?;
                self.expect(Tok::RBracket, "`]` closing an array type")?;
                LType::Array(n, Arc::new(e))
            }
            _ => return self.expected("a type"),
        };
        // Every suffix nests the type one level deeper: count it against the same limit.
        let mut depth = depth;
        loop {
            depth += 1;
            if depth > MAX_DEPTH {
                return self.err_at(self.peek(), "type nested too deeply");
            }
            if self.eat(Tok::Star) {
                ty = LType::Ptr(Arc::new(ty));
            } else if self.is_word("addrspace") {
                let at = self.peek();
                self.pos += 1;
                self.skip_parens()?;
                if !self.eat(Tok::Star) {
                    return self.err_at(at, "expected `*` after `addrspace(N)`");
                }
                ty = LType::Ptr(Arc::new(ty));
            } else if self.peek().kind == Tok::LParen {
                self.pos += 1;
                let mut params = Vec::new();
                let mut varargs = false;
                if !self.eat(Tok::RParen) {
                    loop {
                        if self.eat(Tok::Ellipsis) {
                            varargs = true;
                            self.expect(Tok::RParen, "`)` after `...`")?;
                            break;
                        }
                        params.push(self.parse_type_depth(depth + 1)?);
                        // Attributes are not allowed in function types; be strict.
                        if self.eat(Tok::RParen) {
                            break;
                        }
                        self.expect(Tok::Comma, "`,` or `)` in a function type")?;
                    }
                }
                ty = LType::Func {
                    ret: Arc::new(ty),
                    params: params.into(),
                    varargs,
                };
            } else {
                return Ok(ty);
            }
        }
    }

    fn type_list(&mut self, close: Tok, depth: u32) -> PResult<Vec<LType>> {
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_type_depth(depth + 1)?);
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(Tok::Comma, "`,` in a type list")?;
        }
    }

    /// Parses `Type Value`.
    pub fn parse_typed(&mut self) -> PResult<TVal<'a>> {
        self.parse_typed_depth(0)
    }

    fn parse_typed_depth(&mut self, depth: u32) -> PResult<TVal<'a>> {
        let ty = self.parse_type_depth(depth)?;
        let v = self.parse_value_depth(depth)?;
        Ok((ty, v))
    }

    /// Parses the value half of an operand.
    pub fn parse_value(&mut self) -> PResult<Val<'a>> {
        self.parse_value_depth(0)
    }

    fn parse_value_depth(&mut self, depth: u32) -> PResult<Val<'a>> {
        if depth > MAX_DEPTH {
            return self.err_at(self.peek(), "constant nested too deeply");
        }
        let t = self.peek();
        let v = match t.kind {
            Tok::LocalVar => {
                self.pos += 1;
                Val::Local(self.name(t), t)
            }
            Tok::GlobalVar => {
                self.pos += 1;
                Val::Global(self.name(t), t)
            }
            Tok::Int => {
                self.pos += 1;
                let s = self.text(t);
                let v = if let Some(m) = s.strip_prefix('-') {
                    m.parse::<u128>()
                        .ok()
                        .filter(|&x| x <= 1u128 << 127)
                        .map(|x| x.wrapping_neg())
                } else {
                    s.parse::<u128>().ok()
                };
                match v {
                    Some(v) => Val::Int(v),
                    None => {
                        return self
                            .err_at(t, format!("integer literal `{s}` does not fit in 128 bits"))
                    }
                }
            }
            Tok::Float => {
                self.pos += 1;
                match self.text(t).parse::<f64>() {
                    Ok(x) => Val::Dec(x),
                    Err(_) => return self.err_at(t, "invalid float literal"),
                }
            }
            Tok::HexFloat => {
                self.pos += 1;
                let s = &self.text(t)[2..];
                match s.chars().next() {
                    Some(c @ ('K' | 'L' | 'M' | 'H' | 'R')) => Val::Hex(c, &s[1..]),
                    _ => Val::Hex('x', s),
                }
            }
            Tok::CStr => {
                self.pos += 1;
                let s = self.text(t);
                let body = s.get(2..s.len().saturating_sub(1).max(2)).unwrap_or("");
                Val::Bytes(unescape(body.as_bytes()))
            }
            Tok::LBracket => {
                self.pos += 1;
                Val::Agg(self.value_list(Tok::RBracket, depth)?)
            }
            Tok::LBrace => {
                self.pos += 1;
                Val::Agg(self.value_list(Tok::RBrace, depth)?)
            }
            Tok::Less => {
                self.pos += 1;
                if self.eat(Tok::LBrace) {
                    let v = self.value_list(Tok::RBrace, depth)?;
                    self.expect(Tok::Greater, "`>` closing a packed struct constant")?;
                    Val::Agg(v)
                } else {
                    Val::Agg(self.value_list(Tok::Greater, depth)?)
                }
            }
            Tok::Ident => {
                let w = self.text(t);
                self.pos += 1;
                match w {
                    "true" => Val::Bool(true),
                    "false" => Val::Bool(false),
                    "null" | "none" => Val::Null,
                    "undef" => Val::Undef,
                    "poison" => Val::Poison,
                    "zeroinitializer" => Val::Zero,
                    "getelementptr" => {
                        self.eat_word("inbounds");
                        self.expect(Tok::LParen, "`(` after `getelementptr`")?;
                        let src = self.parse_type_depth(depth + 1)?;
                        self.expect(Tok::Comma, "`,` after the source type")?;
                        let base = self.parse_typed_depth(depth + 1)?;
                        let mut idx = Vec::new();
                        while self.eat(Tok::Comma) {
                            self.eat_word("inrange");
                            idx.push(self.parse_typed_depth(depth + 1)?);
                        }
                        self.expect(Tok::RParen, "`)` closing `getelementptr`")?;
                        Val::Gep(src, Box::new(base), idx)
                    }
                    "blockaddress" => {
                        self.expect(Tok::LParen, "`(` after `blockaddress`")?;
                        let f = self.expect(Tok::GlobalVar, "a function name")?;
                        self.expect(Tok::Comma, "`,`")?;
                        let b = self.expect(Tok::LocalVar, "a block name")?;
                        self.expect(Tok::RParen, "`)`")?;
                        Val::BlockAddr(self.name(f), self.name(b))
                    }
                    _ => {
                        if let Some(op) = cast_op(w) {
                            self.expect(Tok::LParen, &format!("`(` after `{w}`"))?;
                            let v = self.parse_typed_depth(depth + 1)?;
                            self.expect_word("to")?;
                            let to = self.parse_type_depth(depth + 1)?;
                            self.expect(Tok::RParen, &format!("`)` closing `{w}`"))?;
                            Val::Cast(op, Box::new(v), to)
                        } else if w == "icmp" {
                            let pt = self.expect(Tok::Ident, "an icmp predicate")?;
                            self.expect(Tok::LParen, "`(` after the icmp predicate")?;
                            let a = self.parse_typed_depth(depth + 1)?;
                            self.expect(Tok::Comma, "`,` between the icmp operands")?;
                            let b = self.parse_typed_depth(depth + 1)?;
                            self.expect(Tok::RParen, "`)` closing `icmp`")?;
                            Val::Icmp(self.text(pt), pt, Box::new(a), Box::new(b))
                        } else if let Some(op) = integer_binary_op(w) {
                            while matches!(self.peek().kind, Tok::Ident)
                                && matches!(self.text(self.peek()), "nuw" | "nsw" | "exact")
                            {
                                self.pos += 1;
                            }
                            self.expect(Tok::LParen, &format!("`(` after `{w}`"))?;
                            let a = self.parse_typed_depth(depth + 1)?;
                            self.expect(Tok::Comma, &format!("`,` between the `{w}` operands"))?;
                            let b = self.parse_typed_depth(depth + 1)?;
                            self.expect(Tok::RParen, &format!("`)` closing `{w}`"))?;
                            Val::Binary(op, t, Box::new(a), Box::new(b))
                        } else if is_const_expr_word(w) {
                            // Skip its predicate/flags and the parenthesised operands.
                            while self.peek().kind == Tok::Ident {
                                self.pos += 1;
                            }
                            self.skip_parens()?;
                            Val::OtherExpr(w, t)
                        } else {
                            self.pos -= 1;
                            return self.expected("a value");
                        }
                    }
                }
            }
            _ => return self.expected("a value"),
        };
        Ok(v)
    }

    fn value_list(&mut self, close: Tok, depth: u32) -> PResult<Vec<TVal<'a>>> {
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_typed_depth(depth + 1)?);
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(Tok::Comma, "`,` in a constant list")?;
        }
    }
}

/// The type a keyword names on its own (no suffix follows): `iN` with N in 1..=2^23,
/// `void` and the float types, as [`Cursor::parse_type`] reads them; `None` for anything
/// else (which the full parse handles).
fn plain_type(w: &str) -> Option<LType> {
    match w.as_bytes() {
        [b'i', d @ ..] if (1..=7).contains(&d.len()) => d
            .iter()
            .try_fold(0u32, |n, c| {
                c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
            })
            .filter(|n| (1..=(1 << 23)).contains(n))
            .map(LType::Int),
        b"void" => Some(LType::Void),
        b"float" => Some(LType::Float),
        b"double" => Some(LType::Double),
        b"x86_fp80" => Some(LType::X86Fp80),
        _ => None,
    }
}

/// True for the keywords that start a type.
pub fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "half"
            | "bfloat"
            | "float"
            | "double"
            | "x86_fp80"
            | "fp128"
            | "ppc_fp128"
            | "label"
            | "metadata"
            | "token"
            | "x86_mmx"
            | "x86_amx"
            | "ptr"
    ) || (w.len() > 1 && w.starts_with('i') && w[1..].bytes().all(|c| c.is_ascii_digit()))
}

/// The integer binary operation a constant-expression keyword names (`add` ... `srem`).
fn integer_binary_op(w: &str) -> Option<crate::ir::BinaryOp> {
    crate::ir::BinaryOp::from_name(w).filter(|op| !op.is_float())
}

fn is_const_expr_word(w: &str) -> bool {
    matches!(
        w,
        "add"
            | "sub"
            | "mul"
            | "shl"
            | "lshr"
            | "ashr"
            | "and"
            | "or"
            | "xor"
            | "udiv"
            | "sdiv"
            | "urem"
            | "srem"
            | "fadd"
            | "fsub"
            | "fmul"
            | "fdiv"
            | "frem"
            | "fneg"
            | "icmp"
            | "fcmp"
            | "select"
            | "extractelement"
            | "insertelement"
            | "shufflevector"
            | "extractvalue"
            | "insertvalue"
            | "dso_local_equivalent"
            | "no_cfi"
    )
}

#[cfg(test)]
mod tests {
    use super::super::lexer::{lex, Lexed};

    fn cursor<'a>(s: &'a str, l: &'a Lexed) -> Cursor<'a> {
        Cursor::new(s, &l.toks, &l.lines)
    }
    use super::*;

    fn ty(s: &str) -> LType {
        let toks = lex(s);
        cursor(s, &toks).parse_type().unwrap()
    }

    #[test]
    fn parses_types() {
        assert_eq!(ty("i32 (i8*, ...)*").to_string(), "i32 (i8*, ...)*");
        assert_eq!(
            ty("[4 x { i8, %struct.S* }]").to_string(),
            "[4 x { i8, %struct.S* }]"
        );
        assert_eq!(ty("<{ i8, i32 }>").to_string(), "<{ i8, i32 }>");
        assert_eq!(ty("<4 x float>").to_string(), "<4 x float>");
        assert_eq!(ty("void ()**").to_string(), "void ()**");
    }

    #[test]
    fn parses_constant_expressions() {
        let s = "i8* getelementptr inbounds ([6 x i8], [6 x i8]* @msg, i64 0, i64 0)";
        let toks = lex(s);
        let (t, v) = cursor(s, &toks).parse_typed().unwrap();
        assert_eq!(t, LType::i8_ptr());
        match v {
            Val::Gep(src, base, idx) => {
                assert_eq!(src.to_string(), "[6 x i8]");
                assert!(matches!(base.1, Val::Global(ref n, _) if n == "msg"));
                assert_eq!(idx.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        let s = "i64 ptrtoint (i32* @x to i64)";
        let toks = lex(s);
        assert!(matches!(
            cursor(s, &toks).parse_typed().unwrap().1,
            Val::Cast(crate::ir::CastOp::PtrToInt, _, LType::Int(64))
        ));
    }

    #[test]
    fn parses_literals() {
        let s = "-1 true 1.5e+00 0x3FF0000000000000 c\"hi\\00\" null";
        let toks = lex(s);
        let mut c = cursor(s, &toks);
        let mut out = Vec::new();
        while c.peek().kind != Tok::Eof {
            out.push(c.parse_value().unwrap());
        }
        assert_eq!(
            out,
            vec![
                Val::Int(u128::MAX),
                Val::Bool(true),
                Val::Dec(1.5),
                Val::Hex('x', "3FF0000000000000"),
                Val::Bytes(b"hi\0".to_vec()),
                Val::Null
            ]
        );
        let deep = "[".repeat(10_000);
        let toks = lex(&deep);
        assert!(cursor(&deep, &toks).parse_type().is_err());
    }
}

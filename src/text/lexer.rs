//! Lexer of the `.sir` text format: turns source text into located tokens, one at a time
//! ([`Lexer`], which the parser drives) or as a vector ([`tokenize`]).
//!
//! Algorithm: one left-to-right scan over the bytes of the source, longest match per token
//! (the grammar is ASCII outside strings and comments). Comments start with `;` and run to
//! the end of the line. Words are `[A-Za-z_][A-Za-z0-9_]*`; symbols are `@` followed by
//! `[A-Za-z0-9_.$-]+` or by a quoted string; numbers are decimal integers, `0x` hex bit
//! patterns, decimal floats (`1.5`, `1e-7`) and `-inf`, all with an optional leading `-`
//! glued to the digits; strings are `"..."` with `\\`, `\"` and `\XX` (two hex digits)
//! escapes and hold raw bytes.
//!
//! Tokens borrow their text from the source: words, numbers and symbol names are slices
//! of it, except that a quoted symbol name with escapes is decoded into an owned string and
//! a number written with `0X` or `E` is normalized to `0x` / `e`. String literals are
//! decoded into owned bytes. Line and column are tracked incrementally: the column of byte
//! offset `p` is `p` minus the start of its line minus the UTF-8 continuation bytes before
//! it on that line (non-ASCII text can only occur in strings and comments). The parser's
//! one-token lookahead beyond the current token is answered from the bytes
//! ([`Lexer::peek_byte`], [`Lexer::peek_word`]) without lexing twice.
//!
//! Invariants: every token carries the 1-based line and column (in characters) of its first
//! character; [`tokenize`]'s vector always ends with exactly one [`Tok::Eof`], and a
//! [`Lexer`] returns [`Tok::Eof`] on every call after the end. Bad input (an unknown
//! character, an unterminated string, a bad escape) is a [`ParseError`], never a panic;
//! [`Lexer::scan`] records it (see [`Lexer::take_error`]) and ends the input.
//!
//! Complexity: O(n) time in the length of the source; O(1) space per token beyond the
//! decoded strings (O(n) for [`tokenize`]'s vector).

use super::ParseError;
use std::borrow::Cow;
use std::fmt;

/// A token kind with its payload, borrowing from the source text where it can.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    /// A bare word: keyword, type, opcode, `vN`, `blockN`.
    Word(&'a str),
    /// A symbol reference `@name` (name without the `@`, quotes decoded).
    Sym(Cow<'a, str>),
    /// A number literal, verbatim (sign included) except that `0X` and `E` are written
    /// `0x` and `e`; interpreted by the parser in context.
    Num(Cow<'a, str>),
    /// A string literal's decoded bytes.
    Str(Vec<u8>),
    /// One of `( ) [ ] { } , : = * + -`.
    Punct(char),
    /// `...`.
    Ellipsis,
    /// `->`.
    Arrow,
    /// End of input.
    Eof,
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "`{w}`"),
            Tok::Sym(s) => write!(f, "`@{s}`"),
            Tok::Num(n) => write!(f, "`{n}`"),
            Tok::Str(_) => write!(f, "a string"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Ellipsis => write!(f, "`...`"),
            Tok::Arrow => write!(f, "`->`"),
            Tok::Eof => write!(f, "end of input"),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// The token.
    pub tok: Tok<'a>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

/// True for characters allowed in an unquoted symbol name.
pub fn is_symbol_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')
}

/// Byte class bit: may continue a word (`[A-Za-z0-9_]`).
const WORD: u8 = 1;
/// Byte class bit: may appear in an unquoted symbol name (`[A-Za-z0-9_.$-]`).
const SYMBOL: u8 = 2;
/// Byte class bit: a decimal digit.
const DIGIT: u8 = 4;
/// Byte class bit: a hex digit.
const HEX: u8 = 8;

/// The class bits of every byte value.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        if c.is_ascii_alphanumeric() || c == b'_' {
            t[i] |= WORD | SYMBOL;
        } else if c == b'.' || c == b'$' || c == b'-' {
            t[i] |= SYMBOL;
        }
        if c.is_ascii_digit() {
            t[i] |= DIGIT;
        }
        if c.is_ascii_hexdigit() {
            t[i] |= HEX;
        }
        i += 1;
    }
    t
};

/// True for UTF-8 continuation bytes (which do not start a character).
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The body of a string literal: a slice of the source when it has no escapes.
enum StrBody<'a> {
    /// The literal's text between the quotes, verbatim.
    Raw(&'a str),
    /// The decoded bytes of a literal with escapes.
    Decoded(Vec<u8>),
}

/// A lexer: produces the tokens of a source one at a time.
pub struct Lexer<'a, 'f> {
    src: &'a str,
    bytes: &'a [u8],
    /// Byte offset of the next unread byte.
    pos: usize,
    line: u32,
    /// The start of the current line plus the continuation bytes seen on it, so that the
    /// 1-based column (in characters) of byte offset `p` is `p - base + 1`.
    base: usize,
    file: &'f str,
    /// The error that ended the input, if any.
    error: Option<Box<ParseError>>,
}

impl<'a> Lexer<'a, '_> {
    /// The column of byte offset `p` on the current line.
    fn col_at(&self, p: usize) -> u32 {
        u32::try_from(p - self.base + 1).unwrap_or(u32::MAX)
    }

    /// The offset of the first byte at or after `i` outside `class`.
    fn skip(&self, mut i: usize, class: u8) -> usize {
        while i < self.bytes.len() && CLASS[self.bytes[i] as usize] & class != 0 {
            i += 1;
        }
        i
    }

    /// The character starting at byte offset `p` (a character boundary), if any.
    fn char_at(&self, p: usize) -> Option<char> {
        self.src.get(p..).and_then(|s| s.chars().next())
    }

    fn error(&self, line: u32, col: u32, message: String) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line,
            col,
            message,
        }
    }

    /// Skips a comment: up to (not including) the next newline.
    fn comment(&mut self) {
        let mut i = self.pos;
        while let Some(&b) = self.bytes.get(i) {
            if b == b'\n' {
                break;
            }
            if is_continuation(b) {
                self.base += 1;
            }
            i += 1;
        }
        self.pos = i;
    }

    /// Lexes a number starting at `start` (at its `-`, if any); `self.pos` is at its first
    /// digit.
    fn number(&mut self, start: usize) -> Tok<'a> {
        let b = self.bytes;
        let first = b[self.pos];
        self.pos += 1;
        if first == b'0' && matches!(b.get(self.pos), Some(b'x' | b'X')) {
            let upper = b[self.pos] == b'X';
            self.pos = self.skip(self.pos + 1, HEX);
            let text = &self.src[start..self.pos];
            if upper {
                return Tok::Num(Cow::Owned(text.replacen('X', "x", 1)));
            }
            return Tok::Num(Cow::Borrowed(text));
        }
        self.pos = self.skip(self.pos, DIGIT);
        if b.get(self.pos) == Some(&b'.') {
            self.pos = self.skip(self.pos + 1, DIGIT);
        }
        let mut upper = false;
        if let Some(&e @ (b'e' | b'E')) = b.get(self.pos) {
            upper = e == b'E';
            self.pos += 1;
            if matches!(b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.pos = self.skip(self.pos, DIGIT);
        }
        let text = &self.src[start..self.pos];
        if upper {
            Tok::Num(Cow::Owned(text.replacen('E', "e", 1)))
        } else {
            Tok::Num(Cow::Borrowed(text))
        }
    }

    /// Lexes a string; `self.pos` is just after the opening quote, at `line`:`col`.
    fn string(&mut self, line: u32, col: u32) -> Result<StrBody<'a>, ParseError> {
        let unterminated = |lx: &Self| {
            lx.error(
                line,
                col,
                "expected a closing `\"` before the end of the line, found none".into(),
            )
        };
        let b = self.bytes;
        let start = self.pos;
        let mut i = start;
        loop {
            match b.get(i) {
                None | Some(b'\n') => return Err(unterminated(self)),
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(StrBody::Raw(&self.src[start..i]));
                }
                Some(b'\\') => break,
                Some(&c) => {
                    if is_continuation(c) {
                        self.base += 1;
                    }
                    i += 1;
                }
            }
        }
        let mut bytes = b[start..i].to_vec();
        loop {
            match b.get(i) {
                None | Some(b'\n') => return Err(unterminated(self)),
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(StrBody::Decoded(bytes));
                }
                Some(b'\\') => {
                    let (l, c) = (self.line, self.col_at(i));
                    let mut chars = self.src[i + 1..].chars();
                    match chars.next() {
                        Some('\\') => bytes.push(b'\\'),
                        Some('"') => bytes.push(b'"'),
                        Some(h) => {
                            let lo = chars.next();
                            let hex = |c: char| c.to_digit(16);
                            match (hex(h), lo.and_then(hex)) {
                                (Some(a), Some(b)) => {
                                    bytes.push((a * 16 + b) as u8);
                                    i += 1;
                                }
                                _ => {
                                    return Err(self.error(
                                        l,
                                        c,
                                        format!(
                                            "expected `\\\\`, `\\\"` or `\\` and two hex digits in a string, found `\\{h}{}`",
                                            lo.map(String::from).unwrap_or_default()
                                        ),
                                    ))
                                }
                            }
                        }
                        None => {
                            return Err(self.error(
                                l,
                                c,
                                "expected an escape, found end of input".into(),
                            ))
                        }
                    }
                    i += 2;
                }
                Some(&c) => {
                    if is_continuation(c) {
                        self.base += 1;
                    }
                    bytes.push(c);
                    i += 1;
                }
            }
        }
    }
}

impl<'a, 'f> Lexer<'a, 'f> {
    /// A lexer at the start of `src`; `file` names the source in errors.
    pub fn new(src: &'a str, file: &'f str) -> Self {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            line: 1,
            base: 0,
            file,
            error: None,
        }
    }

    /// The byte offset just past the last token returned.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The next token, or the error that ends the source.
    pub fn next_token(&mut self) -> Result<Token<'a>, ParseError> {
        let t = self.scan();
        match self.error.take() {
            Some(e) => Err(*e),
            None => Ok(t),
        }
    }

    /// The error that [`Lexer::scan`] met, if any (taken: reported once).
    pub fn take_error(&mut self) -> Option<ParseError> {
        self.error.take().map(|e| *e)
    }

    /// Records `e` for [`Lexer::take_error`], ends the input and returns [`Tok::Eof`] at
    /// the error's location.
    #[cold]
    fn fail(&mut self, e: ParseError) -> Token<'a> {
        let t = Token {
            tok: Tok::Eof,
            line: e.line,
            col: e.col,
        };
        self.error = Some(Box::new(e));
        self.pos = self.bytes.len();
        t
    }

    /// The byte that starts the token after the one last returned (`None` at the end),
    /// without consuming anything.
    pub fn peek_byte(&self) -> Option<u8> {
        self.bytes.get(self.skip_blank(self.pos)).copied()
    }

    /// The word that is the token after the one last returned, if it is a word, without
    /// consuming anything.
    pub fn peek_word(&self) -> Option<&'a str> {
        let start = self.skip_blank(self.pos);
        match self.bytes.get(start) {
            Some(b'a'..=b'z' | b'A'..=b'Z' | b'_') => {
                Some(&self.src[start..self.skip(start + 1, WORD)])
            }
            _ => None,
        }
    }

    /// The offset of the first byte at or after `i` outside whitespace and comments.
    fn skip_blank(&self, mut i: usize) -> usize {
        let b = self.bytes;
        while let Some(&c) = b.get(i) {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b';' => {
                    while b.get(i).is_some_and(|&c| c != b'\n') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        i
    }

    /// The next token; at the end of the source, [`Tok::Eof`] (again on every call). After
    /// a lexical error, [`Tok::Eof`] at the error, which [`Lexer::take_error`] returns.
    #[inline]
    pub fn scan(&mut self) -> Token<'a> {
        let src = self.src;
        let lx = self;
        let b = lx.bytes;
        let c = loop {
            match b.get(lx.pos) {
                None => {
                    return Token {
                        tok: Tok::Eof,
                        line: lx.line,
                        col: lx.col_at(lx.pos),
                    };
                }
                Some(b' ' | b'\t' | b'\r') => lx.pos += 1,
                Some(b'\n') => {
                    lx.pos += 1;
                    lx.line = lx.line.saturating_add(1);
                    lx.base = lx.pos;
                }
                Some(b';') => lx.comment(),
                Some(&c) => break c,
            }
        };
        let start = lx.pos;
        let (line, col) = (lx.line, lx.col_at(start));
        let tok = match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                lx.pos = lx.skip(start + 1, WORD);
                Tok::Word(&src[start..lx.pos])
            }
            b'0'..=b'9' => lx.number(start),
            b'-' => match b.get(start + 1) {
                Some(b'0'..=b'9') => {
                    lx.pos = start + 1;
                    lx.number(start)
                }
                Some(b'>') => {
                    lx.pos = start + 2;
                    Tok::Arrow
                }
                Some(b'i') => {
                    let end = lx.skip(start + 1, WORD);
                    let w = &src[start + 1..end];
                    if w != "inf" {
                        return lx.fail(lx.error(
                            line,
                            col,
                            format!("expected a number or `-inf` after `-`, found `-{w}`"),
                        ));
                    }
                    lx.pos = end;
                    Tok::Num(Cow::Borrowed(&src[start..end]))
                }
                _ => {
                    lx.pos = start + 1;
                    Tok::Punct('-')
                }
            },
            b'"' => {
                lx.pos = start + 1;
                let string = match lx.string(line, col) {
                    Ok(string) => string,
                    Err(e) => return lx.fail(e),
                };
                match string {
                    StrBody::Raw(s) => Tok::Str(s.as_bytes().to_vec()),
                    StrBody::Decoded(bytes) => Tok::Str(bytes),
                }
            }
            b'@' => {
                lx.pos = start + 1;
                if b.get(lx.pos) == Some(&b'"') {
                    let (l, c) = (lx.line, lx.col_at(lx.pos));
                    lx.pos += 1;
                    let string = match lx.string(l, c) {
                        Ok(string) => string,
                        Err(e) => return lx.fail(e),
                    };
                    match string {
                        StrBody::Raw(s) => Tok::Sym(Cow::Borrowed(s)),
                        StrBody::Decoded(bytes) => match String::from_utf8(bytes) {
                            Ok(s) => Tok::Sym(Cow::Owned(s)),
                            Err(_) => {
                                return lx.fail(lx.error(
                                    line,
                                    col,
                                    "expected a symbol name in UTF-8, found invalid bytes".into(),
                                ))
                            }
                        },
                    }
                } else {
                    let end = lx.skip(lx.pos, SYMBOL);
                    if end == lx.pos {
                        let found = lx
                            .char_at(lx.pos)
                            .map_or("end of input".to_string(), |c| format!("`{c}`"));
                        return lx.fail(lx.error(
                            line,
                            col,
                            format!("expected a symbol name after `@`, found {found}"),
                        ));
                    }
                    let name = &src[lx.pos..end];
                    lx.pos = end;
                    Tok::Sym(Cow::Borrowed(name))
                }
            }
            b'.' => {
                if b.get(start + 1) != Some(&b'.') {
                    return lx.fail(lx.error(line, col, "expected `...`, found `.`".into()));
                }
                if b.get(start + 2) != Some(&b'.') {
                    return lx.fail(lx.error(line, col, "expected `...`, found `..`".into()));
                }
                lx.pos = start + 3;
                Tok::Ellipsis
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b',' | b':' | b'=' | b'*'
            | b'+' => {
                lx.pos = start + 1;
                Tok::Punct(c as char)
            }
            _ => {
                let other = lx.char_at(start).unwrap_or(char::REPLACEMENT_CHARACTER);
                return lx.fail(lx.error(
                    line,
                    col,
                    format!("expected a token, found the character {other:?}"),
                ));
            }
        };
        Token { tok, line, col }
    }
}

/// Splits `src` into tokens; `file` names the source in errors.
pub fn tokenize<'a>(src: &'a str, file: &str) -> Result<Vec<Token<'a>>, ParseError> {
    let mut lx = Lexer::new(src, file);
    // Printed IR averages over 3 bytes per token (whitespace included).
    let mut out = Vec::with_capacity(src.len() / 3 + 1);
    loop {
        let t = lx.next_token()?;
        let eof = t.tok == Tok::Eof;
        out.push(t);
        if eof {
            return Ok(out);
        }
    }
}

// The tests predate borrowed tokens; they build `Tok::Word` with `.into()` and name the
// token type without its lifetime, which is fine here.
#[cfg(test)]
#[allow(clippy::useless_conversion, mismatched_lifetime_syntaxes)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        tokenize(s, "t")
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn words_numbers_and_punctuation() {
        assert_eq!(
            toks("v1 = add i32 v0, -12 ; comment\n"),
            vec![
                Tok::Word("v1".into()),
                Tok::Punct('='),
                Tok::Word("add".into()),
                Tok::Word("i32".into()),
                Tok::Word("v0".into()),
                Tok::Punct(','),
                Tok::Num("-12".into()),
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("1.5e-7 0xFF -inf - 3 ..."),
            vec![
                Tok::Num("1.5e-7".into()),
                Tok::Num("0xFF".into()),
                Tok::Num("-inf".into()),
                Tok::Punct('-'),
                Tok::Num("3".into()),
                Tok::Ellipsis,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn symbols_and_strings() {
        assert_eq!(
            toks(r#"@a.b$-c @"x y\22" "h\\i\0A\"""#),
            vec![
                Tok::Sym("a.b$-c".into()),
                Tok::Sym("x y\"".into()),
                Tok::Str(b"h\\i\n\"".to_vec()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn positions_and_errors() {
        let t = tokenize("a\n  bc", "f").unwrap();
        assert_eq!((t[1].line, t[1].col), (2, 3));
        let e = tokenize("x\n \"ab\\q1\"", "f").unwrap_err();
        assert_eq!((e.line, e.col), (2, 5));
        let e = tokenize("x #", "f").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:1:3: expected a token, found the character '#'"
        );
        assert!(tokenize("\"open", "f").is_err());
        assert!(tokenize("@", "f").is_err());
        assert!(tokenize("-ix", "f").is_err());
    }
}

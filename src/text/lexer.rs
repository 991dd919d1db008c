//! Lexer of the `.sir` text format: turns source text into a vector of located tokens.
//!
//! Algorithm: one left-to-right scan over the characters, longest match per token. Comments
//! start with `;` and run to the end of the line. Words are `[A-Za-z_][A-Za-z0-9_]*`;
//! symbols are `@` followed by `[A-Za-z0-9_.$-]+` or by a quoted string; numbers are
//! decimal integers, `0x` hex bit patterns, decimal floats (`1.5`, `1e-7`) and `-inf`, all
//! with an optional leading `-` glued to the digits; strings are `"..."` with `\\`, `\"` and
//! `\XX` (two hex digits) escapes and hold raw bytes.
//!
//! Invariants: every token carries the 1-based line and column (in characters) of its first
//! character; the vector always ends with exactly one [`Tok::Eof`]. Bad input (an unknown
//! character, an unterminated string, a bad escape) is a [`ParseError`], never a panic.
//!
//! Complexity: O(n) time and O(n) space in the length of the source.

use super::ParseError;
use std::fmt;

/// A token kind with its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A bare word: keyword, type, opcode, `vN`, `blockN`.
    Word(String),
    /// A symbol reference `@name` (name without the `@`, quotes decoded).
    Sym(String),
    /// A number literal, verbatim (sign included); interpreted by the parser in context.
    Num(String),
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

impl fmt::Display for Tok {
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
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

/// True for characters allowed in an unquoted symbol name.
pub fn is_symbol_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    col: u32,
    file: &'a str,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn error(&self, line: u32, col: u32, message: String) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line,
            col,
            message,
        }
    }

    fn take_while(&mut self, out: &mut String, pred: impl Fn(char) -> bool) {
        while let Some(c) = self.peek() {
            if !pred(c) {
                break;
            }
            out.push(c);
            self.bump();
        }
    }

    /// Lexes a number whose optional `-` has already been pushed to `text`.
    fn number(&mut self, mut text: String) -> Tok {
        let first = self.bump().unwrap_or('0');
        text.push(first);
        if first == '0' && matches!(self.peek(), Some('x') | Some('X')) {
            self.bump();
            text.push('x');
            self.take_while(&mut text, |c| c.is_ascii_hexdigit());
            return Tok::Num(text);
        }
        self.take_while(&mut text, |c| c.is_ascii_digit());
        if self.peek() == Some('.') {
            text.push('.');
            self.bump();
            self.take_while(&mut text, |c| c.is_ascii_digit());
        }
        if matches!(self.peek(), Some('e') | Some('E')) {
            text.push('e');
            self.bump();
            if let Some(c @ ('+' | '-')) = self.peek() {
                text.push(c);
                self.bump();
            }
            self.take_while(&mut text, |c| c.is_ascii_digit());
        }
        Tok::Num(text)
    }

    /// Lexes a string; the opening quote has been consumed.
    fn string(&mut self, line: u32, col: u32) -> Result<Vec<u8>, ParseError> {
        let mut bytes = Vec::new();
        loop {
            let (l, c) = (self.line, self.col);
            match self.bump() {
                None | Some('\n') => {
                    return Err(self.error(
                        line,
                        col,
                        "expected a closing `\"` before the end of the line, found none".into(),
                    ))
                }
                Some('"') => return Ok(bytes),
                Some('\\') => match self.bump() {
                    Some('\\') => bytes.push(b'\\'),
                    Some('"') => bytes.push(b'"'),
                    Some(h) => {
                        let lo = self.bump();
                        let hex = |c: char| c.to_digit(16);
                        match (hex(h), lo.and_then(hex)) {
                            (Some(a), Some(b)) => bytes.push((a * 16 + b) as u8),
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
                },
                Some(ch) => {
                    let mut buf = [0u8; 4];
                    bytes.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }
}

/// Splits `src` into tokens; `file` names the source in errors.
pub fn tokenize(src: &str, file: &str) -> Result<Vec<Token>, ParseError> {
    let mut lx = Lexer {
        chars: src.chars().peekable(),
        line: 1,
        col: 1,
        file,
    };
    let mut out = Vec::new();
    loop {
        let (line, col) = (lx.line, lx.col);
        let Some(c) = lx.peek() else {
            out.push(Token {
                tok: Tok::Eof,
                line,
                col,
            });
            return Ok(out);
        };
        let tok = match c {
            ' ' | '\t' | '\r' | '\n' => {
                lx.bump();
                continue;
            }
            ';' => {
                while lx.peek().is_some_and(|c| c != '\n') {
                    lx.bump();
                }
                continue;
            }
            'a'..='z' | 'A'..='Z' | '_' => {
                let mut w = String::new();
                lx.take_while(&mut w, |c| c.is_ascii_alphanumeric() || c == '_');
                Tok::Word(w)
            }
            '0'..='9' => lx.number(String::new()),
            '-' => {
                lx.bump();
                match lx.peek() {
                    Some('0'..='9') => lx.number("-".into()),
                    Some('>') => {
                        lx.bump();
                        Tok::Arrow
                    }
                    Some('i') => {
                        let mut w = String::new();
                        lx.take_while(&mut w, |c| c.is_ascii_alphanumeric() || c == '_');
                        if w != "inf" {
                            return Err(lx.error(
                                line,
                                col,
                                format!("expected a number or `-inf` after `-`, found `-{w}`"),
                            ));
                        }
                        Tok::Num("-inf".into())
                    }
                    _ => Tok::Punct('-'),
                }
            }
            '"' => {
                lx.bump();
                Tok::Str(lx.string(line, col)?)
            }
            '@' => {
                lx.bump();
                if lx.peek() == Some('"') {
                    let (l, c) = (lx.line, lx.col);
                    lx.bump();
                    let bytes = lx.string(l, c)?;
                    match String::from_utf8(bytes) {
                        Ok(s) => Tok::Sym(s),
                        Err(_) => {
                            return Err(lx.error(
                                line,
                                col,
                                "expected a symbol name in UTF-8, found invalid bytes".into(),
                            ))
                        }
                    }
                } else {
                    let mut name = String::new();
                    lx.take_while(&mut name, is_symbol_char);
                    if name.is_empty() {
                        let found = lx
                            .peek()
                            .map_or("end of input".to_string(), |c| format!("`{c}`"));
                        return Err(lx.error(
                            line,
                            col,
                            format!("expected a symbol name after `@`, found {found}"),
                        ));
                    }
                    Tok::Sym(name)
                }
            }
            '.' => {
                lx.bump();
                if lx.peek() == Some('.') {
                    lx.bump();
                    if lx.peek() == Some('.') {
                        lx.bump();
                        Tok::Ellipsis
                    } else {
                        return Err(lx.error(line, col, "expected `...`, found `..`".into()));
                    }
                } else {
                    return Err(lx.error(line, col, "expected `...`, found `.`".into()));
                }
            }
            '(' | ')' | '[' | ']' | '{' | '}' | ',' | ':' | '=' | '*' | '+' => {
                lx.bump();
                Tok::Punct(c)
            }
            other => {
                return Err(lx.error(
                    line,
                    col,
                    format!("expected a token, found the character {other:?}"),
                ))
            }
        };
        out.push(Token { tok, line, col });
    }
}

#[cfg(test)]
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

//! Pass 1 of import: tokenizes the file and groups the tokens into top-level items, keeping
//! function bodies out of the token vector.
//!
//! An item starts at the first token of a line at bracket depth 0, or at `define`,
//! `declare` or `attributes` in column 1 (which recovers from unbalanced bodies), so a
//! function body is one item. The tokens of a `define`'s body (everything after the `{` that
//! follows the parameter list) are not kept: only their byte range is, and pass 4 lexes
//! each body again when it lowers it ([`Body::tokens`]), on the thread lowering it, into a
//! buffer that thread reuses. Bodies are about nine tenths of a file's tokens, so the
//! module's token vector stays small (jq: 2.7M tokens, 32 MB, would otherwise be written
//! once and read once). Lexing is context-free, so lexing a body's byte range on its own
//! gives exactly the tokens lexing the whole file gave ([`lexer::lex_range`]).
//!
//! Complexity: O(n) in the input length, like the lexer it drives.

use super::lexer::{self, Lexed, Sink, Tok, Token};

/// The tokens of a `define`'s body (after `{`, up to the item end), as pass 4 gets them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Tokens `from..to` of the module's kept tokens.
    Kept(usize, usize),
    /// Not kept: the tokens of source bytes `from..to`.
    Lazy(u32, u32),
    /// The tokens themselves.
    Owned(Vec<Token>),
}

impl Body {
    /// The body's tokens: a slice of `kept` or of `owned`, or lexed from `src` into `buf`
    /// (cleared first).
    pub fn tokens<'a>(
        &'a self,
        src: &str,
        kept: &'a [Token],
        buf: &'a mut Vec<Token>,
    ) -> &'a [Token] {
        match *self {
            Body::Kept(a, b) => kept.get(a..b).unwrap_or(&[]),
            Body::Owned(ref v) => v,
            Body::Lazy(from, to) => {
                buf.clear();
                // The `{` just before `from` is on the line `from` is on.
                lexer::lex_range(src, from as usize, to as usize, true, buf);
                buf.pop();
                buf
            }
        }
    }
}

/// Where a `define` item's tokens are, relative to the body cut.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Header {
    /// Not a `define`, or one whose body is kept: every token is kept.
    Plain,
    /// Before the function name (`@f`).
    Name,
    /// After the name: the parameter list's `(` must follow.
    Paren,
    /// In the parameter list, at this bracket depth.
    Params(u32),
    /// After the parameter list, before the body's `{`.
    Brace,
    /// In the body (after its `{`, which ends at [`Splitter::body_from`]).
    Body,
}

/// The items of a file: kept tokens, item token ranges and per item its end and body.
pub struct Items {
    /// The kept tokens and the line starts of the whole file.
    pub lexed: Lexed,
    /// Per item: its kept tokens `a..b`. A `define` whose body is not kept ends with the
    /// body's `{`.
    pub ranges: Vec<(usize, usize)>,
    /// Per item: the byte offset one past its last token (kept or not).
    pub ends: Vec<u32>,
    /// Per item: the source bytes of its body, for a `define` whose body is not kept.
    pub bodies: Vec<Option<(u32, u32)>>,
}

/// The [`Sink`] that groups tokens into items as they are lexed.
struct Splitter<'s> {
    src: &'s str,
    out: Items,
    /// Bracket depth in the current item.
    depth: i64,
    /// Index (in the kept tokens) of the current item's first token.
    start: usize,
    /// True once the current item has a token.
    started: bool,
    /// True once any token was seen.
    any: bool,
    /// End of the last token.
    last_end: u32,
    header: Header,
    /// Start of the current body (the end of its `{`).
    body_from: u32,
    /// True right after the body's `{`: the body is to be skimmed.
    skim: bool,
}

impl Splitter<'_> {
    fn close(&mut self, b: usize) {
        self.out.ranges.push((self.start, b));
        self.out.ends.push(self.last_end);
        self.out
            .bodies
            .push((self.header == Header::Body).then_some((self.body_from, self.last_end)));
    }
}

impl Sink for Splitter<'_> {
    #[inline(always)]
    fn token(&mut self, t: Token) {
        if t.kind == Tok::Eof {
            self.out.lexed.toks.push(t);
            if self.started {
                self.close(self.out.lexed.toks.len() - 1);
            }
            return;
        }
        let line_start = t.nl || !self.any;
        self.any = true;
        if self.started && line_start {
            let split = self.depth <= 0 || {
                // `define`, `declare` or `attributes` in column 1.
                let s = self.src.as_bytes();
                t.kind == Tok::Ident
                    && (t.start == 0 || s.get(t.start as usize - 1) == Some(&b'\n'))
                    && matches!(
                        self.src.get(t.start as usize..t.end as usize),
                        Some("define" | "declare" | "attributes")
                    )
            };
            if split {
                self.close(self.out.lexed.toks.len());
                self.start = self.out.lexed.toks.len();
                self.depth = 0;
                self.started = false;
            }
        }
        if !self.started {
            self.started = true;
            self.header = if t.kind == Tok::Ident
                && self.src.get(t.start as usize..t.end as usize) == Some("define")
            {
                Header::Name
            } else {
                Header::Plain
            };
        }
        match t.kind {
            Tok::LParen | Tok::LBracket | Tok::LBrace => self.depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => self.depth -= 1,
            _ => {}
        }
        self.last_end = t.end;
        self.header = match self.header {
            Header::Plain => Header::Plain,
            Header::Body => return,
            Header::Name if t.kind == Tok::GlobalVar => Header::Paren,
            Header::Name => Header::Name,
            Header::Paren if t.kind == Tok::LParen => Header::Params(1),
            Header::Paren => Header::Plain,
            Header::Params(d) => match t.kind {
                Tok::LParen | Tok::LBracket | Tok::LBrace => Header::Params(d + 1),
                Tok::RParen | Tok::RBracket | Tok::RBrace if d == 1 => Header::Brace,
                Tok::RParen | Tok::RBracket | Tok::RBrace => Header::Params(d - 1),
                _ => Header::Params(d),
            },
            Header::Brace if t.kind == Tok::LBrace => {
                self.body_from = t.end;
                self.skim = true;
                Header::Body
            }
            Header::Brace => Header::Brace,
        };
        self.out.lexed.toks.push(t);
    }

    #[inline(always)]
    fn line(&mut self, at: u32) {
        self.out.lexed.lines.push(at);
    }

    /// Right after a body's `{`: skims the body to the next item instead of lexing it (a
    /// body with a string that spans lines is lexed).
    #[inline(always)]
    fn resume(&mut self, s: &[u8], at: usize, n: usize, line: &mut u32) -> Option<(usize, u32)> {
        if !self.skim {
            return None;
        }
        self.skim = false;
        let k = lexer::skim_body(s, at, n, self.depth, line, &mut self.out.lexed.lines)?;
        self.depth = k.depth;
        self.last_end = k.last_end;
        Some((k.at, k.last_line))
    }
}

/// Lexes `src` and splits it into items (see the module doc).
pub fn split(src: &str) -> Items {
    let n = src.len();
    let mut lines = Vec::with_capacity(n / 24 + 1);
    lines.push(0);
    let mut sp = Splitter {
        src,
        out: Items {
            lexed: Lexed {
                // Headers and items other than bodies: about a tenth of the tokens.
                toks: Vec::with_capacity(n / 16 + 1),
                lines,
            },
            ranges: Vec::new(),
            ends: Vec::new(),
            bodies: Vec::new(),
        },
        depth: 0,
        start: 0,
        started: false,
        any: false,
        last_end: 0,
        header: Header::Plain,
        body_from: 0,
        skim: false,
    };
    lexer::lex_range(src, 0, n, false, &mut sp);
    sp.out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items as byte ranges by the plain rule over the whole file's tokens.
    fn reference(src: &str) -> Vec<(u32, u32)> {
        let toks = lexer::lex(src).toks;
        let mut out = Vec::new();
        let (mut depth, mut start) = (0i64, 0usize);
        for (i, t) in toks.iter().enumerate() {
            if t.kind == Tok::Eof {
                break;
            }
            let text = &src[t.start as usize..t.end as usize];
            let col1 = t.start == 0 || src.as_bytes()[t.start as usize - 1] == b'\n';
            let forced =
                col1 && t.kind == Tok::Ident && matches!(text, "define" | "declare" | "attributes");
            if i > start && (t.nl || i == 0) && (depth <= 0 || forced) {
                out.push((toks[start].start, toks[i - 1].end));
                start = i;
                depth = 0;
            }
            match t.kind {
                Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace => depth -= 1,
                _ => {}
            }
        }
        if toks.len() - 1 > start {
            out.push((toks[start].start, toks[toks.len() - 2].end));
        }
        out
    }

    fn check(src: &str) {
        let it = split(src);
        let got: Vec<(u32, u32)> = it
            .ranges
            .iter()
            .zip(&it.ends)
            .map(|(&(a, _), &e)| (it.lexed.toks[a].start, e))
            .collect();
        assert_eq!(got, reference(src), "{src:?}");
        let whole = lexer::lex(src);
        assert_eq!(it.lexed.lines, whole.lines, "{src:?}");
        for (k, body) in it.bodies.iter().enumerate() {
            let Some((from, to)) = *body else { continue };
            let (_, b) = it.ranges[k];
            assert_eq!(it.lexed.toks[b - 1].end, from);
            assert_eq!(to, it.ends[k]);
            // The body lexed on its own is the body lexed with the file.
            let mut buf = Vec::new();
            let body = Body::Lazy(from, to).tokens(src, &[], &mut buf).to_vec();
            let first = whole.toks.iter().position(|t| t.start >= from).unwrap();
            let last = whole.toks.iter().position(|t| t.start >= to).unwrap();
            assert_eq!(body, whole.toks[first..last], "{src:?}");
        }
    }

    #[test]
    fn bodies_are_cut_after_the_parameter_list() {
        let src = "@g = global i32 0\ndefine { i32 } @f({ i8 } %a) #0 {\n  %x = add i32 1, 2\n  ret { i32 } zeroinitializer\n}\ndeclare void @h()\n";
        let it = split(src);
        assert_eq!(it.ranges.len(), 3);
        let (a, b) = it.ranges[1];
        let last = it.lexed.toks[b - 1];
        assert_eq!(&src[last.start as usize..last.end as usize], "{");
        assert!(b - a < 20);
        let (from, to) = it.bodies[1].unwrap();
        assert_eq!(
            &src[from as usize..to as usize],
            "\n  %x = add i32 1, 2\n  ret { i32 } zeroinitializer\n}"
        );
        assert_eq!(it.bodies[0], None);
        check(src);
    }

    #[test]
    fn skimmed_bodies_end_where_the_lexed_ones_do() {
        for src in [
            "define void @f() {\n  ret void ; } {\n}\n; c\n\n@x = global i32 0",
            "define void @f() { ret void }\n@x = global i32 0\n",
            "define void @f() {\n  ret void\ndefine void @g() {\n}\n",
            "define void @f() {\n  call void asm \"a\nb\", \"\"()\n  ret void\n}\n@y = global i32 1\n",
            "define void @f() {\n  %\"a}\" = add i32 1, 2 ; \"\n  ret void\n} \"x\"\n \"y\n",
            "define void @f() {\n  ret void\n}\n  define: \n}\n  declare void @g()\n",
            "define void @f() {\n  br label %x\n}}\n x:\ndefined\n",
            "define void @f() {\r\n  ret void\r\n}\r\n",
            "define void @f() {\n  %a = load i8, i8* c\"unterminated ",
            "define void @f() {",
            "define void @f() {\n   ",
            "define i32 @f() prefix { i32 } { i32 1 } {\n  ret i32 0\n}\n",
        ] {
            check(src);
        }
    }
}

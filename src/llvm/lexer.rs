//! Tokenizer for LLVM 14 textual IR.
//!
//! Turns the whole source into a [`Lexed`]: a `Vec<Token>` and a table of line starts, in one
//! forward pass. Tokens carry byte spans into the source (so export can copy source text
//! verbatim) and whether they start a new line; a token's line and column are looked up in
//! the line table only when an error names them ([`Lexed::line_col`]), which keeps a token at
//! 12 bytes (clang's `.ll` has a token per 2.3 bytes of input). Lexing is total:
//! a character that starts no token, or a string the input ends inside, becomes a
//! [`Tok::Error`] token that the parser reports (an unterminated string's token runs to the
//! end of the input). Comments (`;` to end of line) are
//! dropped.
//!
//! Recognised forms: `%local`, `@global`, `%"quoted"`, `label:`, `!meta`, `#N`, `$comdat`,
//! integers (`-12`), decimal floats (`1.5e+00`), hex floats (`0x3FF0...`, `0xK...`,
//! `0xH...`), strings, `c"..."`, keywords, `...` and the punctuation `= , ( ) [ ] { } < > *`.
//!
//! Invariant: token spans are in increasing order and never overlap; the last token is
//! [`Tok::Eof`]. Complexity: O(n) in the input length.

/// Kind of a token.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tok {
    /// `%name`, `%12`, `%"quoted"`.
    LocalVar,
    /// `@name`, `@12`, `@"quoted"`.
    GlobalVar,
    /// `name:` or `12:` or `"quoted":` (span excludes the colon).
    Label,
    /// `!name` or `!12`.
    MetaVar,
    /// A lone `!` (as in `!{` or `!"..."`).
    Exclaim,
    /// `#12`.
    AttrGroup,
    /// `$name`.
    ComdatVar,
    /// Decimal integer, optionally negative.
    Int,
    /// Decimal float (`1.0`, `-2.5e+00`).
    Float,
    /// Hex float (`0x...`, `0xK...`, ...).
    HexFloat,
    /// `"..."`.
    Str,
    /// `c"..."`.
    CStr,
    /// Keyword or type name (`define`, `i32`, `x86_fp80`, ...).
    Ident,
    /// `...`.
    Ellipsis,
    /// `=`.
    Eq,
    /// `,`.
    Comma,
    /// `(`.
    LParen,
    /// `)`.
    RParen,
    /// `[`.
    LBracket,
    /// `]`.
    RBracket,
    /// `{`.
    LBrace,
    /// `}`.
    RBrace,
    /// `<`.
    Less,
    /// `>`.
    Greater,
    /// `*`.
    Star,
    /// `|`.
    Bar,
    /// `:` not attached to a label.
    Colon,
    /// A character that starts no token.
    Error,
    /// End of input.
    Eof,
}

/// A token: kind, byte span and whether it starts a line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Token {
    /// Kind.
    pub kind: Tok,
    /// True if the token's first character is on a later line than the previous token's
    /// first character (true for the first token). Items, labels and instructions are
    /// grouped by lines with this flag.
    pub nl: bool,
    /// Byte offset of the first character.
    pub start: u32,
    /// Byte offset one past the last character.
    pub end: u32,
}

impl Token {
    /// An end-of-input token at byte offset `at`.
    pub fn eof(at: u32) -> Token {
        Token {
            kind: Tok::Eof,
            nl: false,
            start: at,
            end: at,
        }
    }
}

/// The tokens of a source and the byte offsets where its lines start.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// The tokens, ending with [`Tok::Eof`].
    pub toks: Vec<Token>,
    /// Byte offset of the first character of each line: `lines[0] == 0`, then one entry after
    /// every newline (including newlines inside strings).
    pub lines: Vec<u32>,
}

impl Lexed {
    /// The 1-based line and column (in bytes) of byte offset `at`.
    pub fn line_col(&self, at: u32) -> (u32, u32) {
        line_col(&self.lines, at)
    }
}

/// The 1-based line and column (in bytes) of byte offset `at`, given the line-start table
/// `lines` of [`Lexed`] (binary search: O(log lines)).
pub fn line_col(lines: &[u32], at: u32) -> (u32, u32) {
    let k = lines.partition_point(|&s| s <= at).max(1);
    let start = lines.get(k - 1).copied().unwrap_or(0);
    (k as u32, at.saturating_sub(start) + 1)
}

/// Character class bits of [`CLASS`].
const NAME: u8 = 1;
const IDENT_START: u8 = 2;
const WORD: u8 = 4;
const SPACE: u8 = 8;

/// One byte of class bits per input byte: `NAME` for characters of `%name`s and labels
/// (`[A-Za-z0-9$._-]`), `IDENT_START` for those a keyword may start with (`[A-Za-z$._]`),
/// `WORD` for those a keyword may contain (`[A-Za-z0-9$._]`), `SPACE` for blanks other than
/// newline. A table lookup replaces a chain of comparisons in the hot loops.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'$' || b == b'.' || b == b'_' {
            t[c] |= NAME;
        }
        if b.is_ascii_alphabetic() || b == b'_' || b == b'.' || b == b'$' {
            t[c] |= IDENT_START;
        }
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$' {
            t[c] |= WORD;
        }
        if b == b' ' || b == b'\t' || b == b'\r' {
            t[c] |= SPACE;
        }
        c += 1;
    }
    t
};

#[inline(always)]
fn is_name_char(c: u8) -> bool {
    CLASS[c as usize] & NAME != 0
}

#[inline(always)]
fn is_ident_start(c: u8) -> bool {
    CLASS[c as usize] & IDENT_START != 0
}

/// Where [`lex_range`] delivers tokens and line starts.
pub trait Sink {
    /// The next token.
    fn token(&mut self, t: Token);
    /// A line starts at byte offset `at` (after a newline).
    fn line(&mut self, at: u32);
    /// Called after a punctuation token that ends at `at`, with the lexer's line count: the
    /// sink may consume the input from `at` itself (see [`skim_body`]) and return where
    /// lexing goes on and the line of the last token it consumed.
    #[inline(always)]
    fn resume(
        &mut self,
        _src: &[u8],
        _at: usize,
        _n: usize,
        _line: &mut u32,
    ) -> Option<(usize, u32)> {
        None
    }
}

impl Sink for Lexed {
    #[inline(always)]
    fn token(&mut self, t: Token) {
        self.toks.push(t);
    }

    #[inline(always)]
    fn line(&mut self, at: u32) {
        self.lines.push(at);
    }
}

/// A [`Sink`] that keeps the tokens only.
impl Sink for Vec<Token> {
    #[inline(always)]
    fn token(&mut self, t: Token) {
        self.push(t);
    }

    #[inline(always)]
    fn line(&mut self, _: u32) {}
}

/// Tokenizes `src` (see the module doc).
pub fn lex(src: &str) -> Lexed {
    // clang's `.ll` has about one token per 2.3 bytes (jq: 2.7M tokens in 6.1 MB): reserve
    // for one per 2, so the vector is not regrown (and copied) on the way. About one line
    // per 30 bytes.
    let n = src.len();
    let mut l = Lexed {
        toks: Vec::with_capacity(n / 2 + 1),
        lines: Vec::with_capacity(n / 24 + 1),
    };
    l.lines.push(0);
    lex_range(src, 0, n, false, &mut l);
    l
}

/// Tokenizes the bytes `from..to` of `src` (`from` at a token boundary: the start, or the end
/// of a token) into `sink`, ending with an `Eof` token at `to`. Spans are offsets into
/// `src`; lines are reported as they start (the first line start, 0, is not). A token is
/// lexed exactly as in the whole source when `to` is the start of a token of the whole
/// source, or the end of one. `after_token` says whether a token precedes `from`, on the
/// line `from` is on (then the first token starts a line only after a newline); otherwise
/// the first token starts a line.
pub fn lex_range<S: Sink>(src: &str, from: usize, to: usize, after_token: bool, sink: &mut S) {
    // Offsets are u32: cap the input so spans always fit. Indexing the input cut at `n`
    // lets the compiler drop the bounds checks behind each `j < n`.
    let n = to.min(src.len()).min(u32::MAX as usize - 1);
    let s = &src.as_bytes()[..n];
    let mut i = from;
    // Lines started so far (the line of the next character), and the line of the previous
    // token's first character (0 before the first token).
    let mut line = 1u32;
    let mut prev_line = u32::from(after_token);
    // Scans a quoted string starting at `j` (the opening quote); returns the index after the
    // closing quote (or `n` if the input ends first), recording newlines.
    let scan_str = |mut j: usize, line: &mut u32, sink: &mut S| -> usize {
        j += 1;
        while j < n && s[j] != b'"' {
            if s[j] == b'\n' {
                *line += 1;
                sink.line((j + 1) as u32);
            }
            j += 1;
        }
        (j + 1).min(n)
    };
    // True if the string scanned from `from` to `to` is closed by a quote.
    let closed = |from: usize, to: usize| to > from + 1 && s[to - 1] == b'"';
    while i < n {
        let c = s[i];
        // Blanks and newlines are the only bytes up to `' '` that start no token: one
        // comparison lets every token start through.
        if c <= b' ' {
            if CLASS[c as usize] & SPACE != 0 {
                i += 1;
                continue;
            }
            if c == b'\n' {
                line += 1;
                i += 1;
                sink.line(i as u32);
                continue;
            }
        }
        if c == b';' {
            i = memchr::memchr(b'\n', &s[i..n]).map_or(n, |k| i + k);
            continue;
        }
        let start = i;
        let nl = line != prev_line;
        prev_line = line;
        let kind;
        match c {
            // The most common token: `%N` or `%name` (not quoted).
            b'%' if i + 1 < n && s[i + 1] != b'"' => {
                let mut j = i + 1;
                while j < n && is_name_char(s[j]) {
                    j += 1;
                }
                kind = if j == i + 1 {
                    Tok::Error
                } else {
                    Tok::LocalVar
                };
                i = j;
            }
            b'%' | b'@' | b'!' | b'#' | b'$' => {
                let mut j = i + 1;
                let mut unterminated = false;
                if j < n && s[j] == b'"' && c != b'!' && c != b'#' {
                    let q = j;
                    j = scan_str(j, &mut line, sink);
                    unterminated = !closed(q, j);
                } else if c == b'#' {
                    while j < n && s[j].is_ascii_digit() {
                        j += 1;
                    }
                } else {
                    while j < n && is_name_char(s[j]) {
                        j += 1;
                    }
                }
                kind = if unterminated {
                    Tok::Error
                } else if j == i + 1 {
                    match c {
                        b'!' => Tok::Exclaim,
                        _ => Tok::Error,
                    }
                } else {
                    match c {
                        b'%' => Tok::LocalVar,
                        b'@' => Tok::GlobalVar,
                        b'!' => Tok::MetaVar,
                        b'#' => Tok::AttrGroup,
                        _ => Tok::ComdatVar,
                    }
                };
                i = j;
            }
            b'"' => {
                let j = scan_str(i, &mut line, sink);
                if j < n && s[j] == b':' {
                    sink.token(Token {
                        kind: Tok::Label,
                        nl,
                        start: start as u32,
                        end: j as u32,
                    });
                    i = j + 1;
                    continue;
                }
                kind = if closed(i, j) { Tok::Str } else { Tok::Error };
                i = j;
            }
            b'c' if i + 1 < n && s[i + 1] == b'"' => {
                let j = scan_str(i + 1, &mut line, sink);
                kind = if closed(i + 1, j) {
                    Tok::CStr
                } else {
                    Tok::Error
                };
                i = j;
            }
            b'0'..=b'9' | b'-' => {
                let mut j = i;
                if c == b'0' && j + 1 < n && s[j + 1] == b'x' {
                    j += 2;
                    if j < n && matches!(s[j], b'K' | b'L' | b'M' | b'H' | b'R') {
                        j += 1;
                    }
                    while j < n && s[j].is_ascii_hexdigit() {
                        j += 1;
                    }
                    kind = Tok::HexFloat;
                } else {
                    if c == b'-' {
                        j += 1;
                    }
                    let digits = j;
                    while j < n && s[j].is_ascii_digit() {
                        j += 1;
                    }
                    if j == digits {
                        // A name starting with '-' or a lone '-': labels only.
                        while j < n && is_name_char(s[j]) {
                            j += 1;
                        }
                        if j < n && s[j] == b':' && j > i + 1 {
                            sink.token(Token {
                                kind: Tok::Label,
                                nl,
                                start: start as u32,
                                end: j as u32,
                            });
                            i = j + 1;
                            continue;
                        }
                        sink.token(Token {
                            kind: Tok::Error,
                            nl,
                            start: start as u32,
                            end: (i + 1) as u32,
                        });
                        i += 1;
                        continue;
                    }
                    if j < n && s[j] == b'.' {
                        j += 1;
                        while j < n && s[j].is_ascii_digit() {
                            j += 1;
                        }
                        if j < n && (s[j] == b'e' || s[j] == b'E') {
                            let mut k = j + 1;
                            if k < n && (s[k] == b'+' || s[k] == b'-') {
                                k += 1;
                            }
                            if k < n && s[k].is_ascii_digit() {
                                while k < n && s[k].is_ascii_digit() {
                                    k += 1;
                                }
                                j = k;
                            }
                        }
                        kind = Tok::Float;
                    } else if c != b'-' && j < n && (is_name_char(s[j]) || s[j] == b':') {
                        // `12:` label or a name starting with digits.
                        let mut k = j;
                        while k < n && is_name_char(s[k]) {
                            k += 1;
                        }
                        if k < n && s[k] == b':' {
                            sink.token(Token {
                                kind: Tok::Label,
                                nl,
                                start: start as u32,
                                end: k as u32,
                            });
                            i = k + 1;
                            continue;
                        }
                        kind = Tok::Int;
                    } else {
                        kind = Tok::Int;
                    }
                }
                i = j;
            }
            b'.' if i + 2 < n && s[i + 1] == b'.' && s[i + 2] == b'.' => {
                i += 3;
                kind = Tok::Ellipsis;
            }
            _ if is_ident_start(c) => {
                // A keyword never contains '-': scan the word without it, and go on over
                // name characters only to see whether this is a label (`a-1:`).
                let (word_end, j) = word_and_name_end(s, i, n);
                if j < n && s[j] == b':' {
                    sink.token(Token {
                        kind: Tok::Label,
                        nl,
                        start: start as u32,
                        end: j as u32,
                    });
                    i = j + 1;
                    continue;
                }
                i = word_end;
                kind = Tok::Ident;
            }
            _ => {
                kind = match c {
                    b'=' => Tok::Eq,
                    b',' => Tok::Comma,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    b'{' => Tok::LBrace,
                    b'}' => Tok::RBrace,
                    b'<' => Tok::Less,
                    b'>' => Tok::Greater,
                    b'*' => Tok::Star,
                    b'|' => Tok::Bar,
                    b':' => Tok::Colon,
                    _ => Tok::Error,
                };
                // Advance over one whole UTF-8 character.
                i += 1;
                if c >= 0x80 {
                    while i < n && (s[i] & 0xC0) == 0x80 {
                        i += 1;
                    }
                }
            }
        }
        sink.token(Token {
            kind,
            nl,
            start: start as u32,
            end: i as u32,
        });
        if let Some((at, last_line)) = sink.resume(s, i, n, &mut line) {
            i = at;
            prev_line = last_line;
        }
        // Most tokens are followed by one blank: step over it without a trip round the loop.
        if i < n && s[i] == b' ' {
            i += 1;
        }
    }
    sink.token(Token {
        kind: Tok::Eof,
        nl: line != prev_line,
        start: n as u32,
        end: n as u32,
    });
}

/// Where [`skim_body`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skim {
    /// Offset of the first token of the next item (or the end of the input).
    pub at: usize,
    /// Bracket depth (of the item) there.
    pub depth: i64,
    /// End of the last token skimmed (`from` if none).
    pub last_end: u32,
    /// Line of the first character of the last token skimmed.
    pub last_line: u32,
}

/// Byte classes of [`skim_body`].
const SK_OTHER: u8 = 0;
const SK_SPACE: u8 = 1;
const SK_NEWLINE: u8 = 2;
const SK_SEMI: u8 = 3;
const SK_QUOTE: u8 = 4;
const SK_OPEN: u8 = 5;
const SK_CLOSE: u8 = 6;

static SKIM: [u8; 256] = {
    let mut t = [SK_OTHER; 256];
    t[b' ' as usize] = SK_SPACE;
    t[b'\t' as usize] = SK_SPACE;
    t[b'\r' as usize] = SK_SPACE;
    t[b'\n' as usize] = SK_NEWLINE;
    t[b';' as usize] = SK_SEMI;
    t[b'"' as usize] = SK_QUOTE;
    t[b'(' as usize] = SK_OPEN;
    t[b'[' as usize] = SK_OPEN;
    t[b'{' as usize] = SK_OPEN;
    t[b')' as usize] = SK_CLOSE;
    t[b']' as usize] = SK_CLOSE;
    t[b'}' as usize] = SK_CLOSE;
    t
};

/// Skims the input from `from` (just after a token, at bracket depth `depth` of its item) to
/// the next token that starts a line at depth 0 or below, or that is `define`, `declare` or
/// `attributes` in column 1: the start of the next top-level item, as
/// [`super::items`] splits them. Counts lines into `line` and records their starts in
/// `lines`, without making tokens: outside strings and comments, brackets are always
/// tokens of their own, a `"` always starts a string and a `;` a comment, and the first
/// character after a newline always starts a token. Returns `None` (leaving `line` and
/// `lines` as they were) at a string that spans lines: the token after it starts a line
/// although it may not follow a newline, so the caller lexes that body instead.
pub fn skim_body(
    s: &[u8],
    from: usize,
    n: usize,
    mut depth: i64,
    line: &mut u32,
    lines: &mut Vec<u32>,
) -> Option<Skim> {
    let (line0, lines0) = (*line, lines.len());
    let mut i = from;
    // The last line segment that may hold tokens: its start, the end of its scan (blanks
    // before a comment not yet trimmed) and its line. Trimmed only when the skim returns.
    let mut last: (usize, usize, u32);
    // Start of the tokens of the current line (of the input after `from` on the first).
    let mut seg = from;
    loop {
        // The rest of a line: brackets and strings up to a newline or a comment.
        'scan: loop {
            // Sixteen (or eight) bytes at a time while they hold no newline, quote or
            // semicolon; at one, count the brackets before it and go on byte by byte.
            i = skim_chunks(s, i, n, &mut depth);
            // Byte by byte up to the newline, quote or semicolon.
            while i < n {
                let k = SKIM[s[i] as usize];
                if k <= SK_SPACE {
                    i += 1;
                    continue;
                }
                match k {
                    SK_NEWLINE | SK_SEMI => break 'scan,
                    SK_QUOTE => {
                        let close = memchr::memchr(b'"', &s[i + 1..n]).map_or(n, |k| i + 1 + k);
                        if memchr::memchr(b'\n', &s[i + 1..close]).is_some() {
                            *line = line0;
                            lines.truncate(lines0);
                            return None;
                        }
                        if close == n {
                            // Unterminated: the string token runs to the end.
                            return Some(Skim {
                                at: n,
                                depth,
                                last_end: n as u32,
                                last_line: *line,
                            });
                        }
                        i = close + 1;
                        continue 'scan;
                    }
                    SK_OPEN => depth += 1,
                    _ => depth -= 1,
                }
                i += 1;
            }
            break;
        }
        // A segment after the first starts at a token, so it is never blank; the first
        // one, if blank, trims back to `from` on the line it started on.
        last = (seg, i.min(n), *line);
        // Newlines, blanks and comments up to the next token.
        loop {
            if i >= n {
                let (last_end, last_line) = trimmed(s, last);
                return Some(Skim {
                    at: n,
                    depth,
                    last_end,
                    last_line,
                });
            }
            match SKIM[s[i] as usize] {
                SK_SPACE => i += 1,
                SK_NEWLINE => {
                    *line += 1;
                    i += 1;
                    lines.push(i as u32);
                }
                SK_SEMI => i = memchr::memchr(b'\n', &s[i..n]).map_or(n, |k| i + k),
                _ => break,
            }
        }
        // A token starts here, after a newline.
        if depth <= 0 || (s[i - 1] == b'\n' && starts_item_word(s, i, n)) {
            let (last_end, last_line) = trimmed(s, last);
            return Some(Skim {
                at: i,
                depth,
                last_end,
                last_line,
            });
        }
        seg = i;
    }
}

/// The end of the last token of the line segment `(start, end, line)` of [`skim_body`]
/// (its end with trailing blanks dropped) and the segment's line.
fn trimmed(s: &[u8], (start, mut end, line): (usize, usize, u32)) -> (u32, u32) {
    while end > start && SKIM[s[end - 1] as usize] == SK_SPACE {
        end -= 1;
    }
    (end as u32, line)
}

/// Advances `i` over whole chunks of bytes that hold no newline, quote or semicolon,
/// adding their opening brackets to `depth` and subtracting their closing ones; at a chunk
/// that holds one, also counts the brackets before the first such byte and stops there.
/// Returns the new position (at most `n`, and short of `n` only at such a byte or when
/// fewer bytes than a chunk are left).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn skim_chunks(s: &[u8], i: usize, n: usize, depth: &mut i64) -> usize {
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has the features `skim_chunks_avx2` is compiled for.
        unsafe { skim_chunks_avx2(s, i, n, depth) }
    } else {
        skim_chunks_sse2(s, i, n, depth)
    }
}

/// [`skim_chunks`] thirty-two bytes at a time (the last bytes sixteen at a time).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn skim_chunks_avx2(s: &[u8], mut i: usize, n: usize, depth: &mut i64) -> usize {
    use std::arch::x86_64::*;
    let n = n.min(s.len());
    while i + 32 <= n {
        // SAFETY: `i + 32 <= s.len()`, so the unaligned 32-byte load is in bounds.
        let v = unsafe { _mm256_loadu_si256(s.as_ptr().add(i).cast::<__m256i>()) };
        macro_rules! eq {
            ($c:expr) => {
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8($c as i8))
            };
        }
        let stop = _mm256_or_si256(_mm256_or_si256(eq!(b'\n'), eq!(b'"')), eq!(b';'));
        let open = _mm256_or_si256(_mm256_or_si256(eq!(b'('), eq!(b'[')), eq!(b'{'));
        let close = _mm256_or_si256(_mm256_or_si256(eq!(b')'), eq!(b']')), eq!(b'}'));
        let stop = _mm256_movemask_epi8(stop) as u32;
        let (mut open, mut close) = (
            _mm256_movemask_epi8(open) as u32,
            _mm256_movemask_epi8(close) as u32,
        );
        if stop != 0 {
            let before = (1u64 << stop.trailing_zeros()) as u32 - 1;
            open &= before;
            close &= before;
        }
        *depth += i64::from(open.count_ones()) - i64::from(close.count_ones());
        if stop != 0 {
            return i + stop.trailing_zeros() as usize;
        }
        i += 32;
    }
    skim_chunks_sse2(s, i, n, depth)
}

/// [`skim_chunks`] with SSE2 (part of the x86-64 baseline): sixteen bytes at a time.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn skim_chunks_sse2(s: &[u8], mut i: usize, n: usize, depth: &mut i64) -> usize {
    use std::arch::x86_64::*;
    let n = n.min(s.len());
    while i + 16 <= n {
        // SAFETY: `i + 16 <= s.len()`, so the unaligned 16-byte load is in bounds; SSE2 is
        // part of the x86-64 baseline.
        let (stop, open, close) = unsafe {
            let v = _mm_loadu_si128(s.as_ptr().add(i).cast::<__m128i>());
            let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            let stop = _mm_or_si128(_mm_or_si128(eq(b'\n'), eq(b'"')), eq(b';'));
            let open = _mm_or_si128(_mm_or_si128(eq(b'('), eq(b'[')), eq(b'{'));
            let close = _mm_or_si128(_mm_or_si128(eq(b')'), eq(b']')), eq(b'}'));
            (
                _mm_movemask_epi8(stop) as u32,
                _mm_movemask_epi8(open) as u32,
                _mm_movemask_epi8(close) as u32,
            )
        };
        // Most chunks hold no bracket: count only when one does (`count_ones` is a dozen
        // instructions without the `popcnt` extension).
        let (open, close) = if stop != 0 {
            let before = (1u32 << stop.trailing_zeros()) - 1;
            (open & before, close & before)
        } else {
            (open, close)
        };
        if open | close != 0 {
            *depth += i64::from(open.count_ones()) - i64::from(close.count_ones());
        }
        if stop != 0 {
            return i + stop.trailing_zeros() as usize;
        }
        i += 16;
    }
    i
}

/// Portable [`skim_chunks`]: eight bytes at a time through the [`CHUNK`] table, stopping
/// before a chunk that holds a newline, quote or semicolon.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn skim_chunks(s: &[u8], mut i: usize, n: usize, depth: &mut i64) -> usize {
    while i + 8 <= n {
        let c = &s[i..i + 8];
        let f = |k: usize| CHUNK[c[k] as usize];
        let v = f(0) + f(1) + f(2) + f(3) + f(4) + f(5) + f(6) + f(7);
        if v >= CH_STOP {
            break;
        }
        *depth += i64::from(v & 0xF) - i64::from(v >> 4);
        i += 8;
    }
    i
}

/// Stop bit of [`CHUNK`]: a newline, quote or semicolon.
#[cfg(not(target_arch = "x86_64"))]
const CH_STOP: u16 = 0x100;

/// Per byte, summed over eight bytes by [`skim_body`]: 1 for an opening bracket, 0x10 for
/// a closing one, [`CH_STOP`] for a newline, quote or semicolon (sums of eight never carry
/// from one field into the next).
#[cfg(not(target_arch = "x86_64"))]
static CHUNK: [u16; 256] = {
    let mut t = [0u16; 256];
    t[b'(' as usize] = 1;
    t[b'[' as usize] = 1;
    t[b'{' as usize] = 1;
    t[b')' as usize] = 0x10;
    t[b']' as usize] = 0x10;
    t[b'}' as usize] = 0x10;
    t[b'\n' as usize] = CH_STOP;
    t[b'"' as usize] = CH_STOP;
    t[b';' as usize] = CH_STOP;
    t
};

/// True if the lexer makes the keyword `define`, `declare` or `attributes` of the word at
/// `i` (not a label `define:`).
fn starts_item_word(s: &[u8], i: usize, n: usize) -> bool {
    if !is_ident_start(s[i]) {
        return false;
    }
    let (word_end, j) = word_and_name_end(s, i, n);
    !(j < n && s[j] == b':') && matches!(&s[i..word_end], b"define" | b"declare" | b"attributes")
}

/// For the word starting at `i` (an identifier start): where its keyword part ends (word
/// characters; a keyword never contains '-') and where the name goes on to (name
/// characters: a label such as `a-1:` continues there).
fn word_and_name_end(s: &[u8], i: usize, n: usize) -> (usize, usize) {
    let mut j = i + 1;
    while j < n && CLASS[s[j] as usize] & WORD != 0 {
        j += 1;
    }
    let word_end = j;
    while j < n && is_name_char(s[j]) {
        j += 1;
    }
    (word_end, j)
}

/// Decodes an LLVM string body (without quotes): `\\` is a backslash, `\XY` a hex byte.
pub fn unescape(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\\' {
            if i + 1 < body.len() && body[i + 1] == b'\\' {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if i + 2 < body.len() {
                let h = |c: u8| (c as char).to_digit(16);
                if let (Some(a), Some(b)) = (h(body[i + 1]), h(body[i + 2])) {
                    out.push((a * 16 + b) as u8);
                    i += 3;
                    continue;
                }
            }
        }
        out.push(body[i]);
        i += 1;
    }
    out
}

/// Encodes bytes as an LLVM string body: printable ASCII except `"` and `\` verbatim,
/// everything else as `\XY`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s).toks.iter().map(|t| t.kind).collect()
    }

    #[test]
    fn lexes_common_forms() {
        use Tok::*;
        assert_eq!(
            kinds("%1 = load i32, i32* @x, align 4 ; c\n3:"),
            vec![
                LocalVar, Eq, Ident, Ident, Comma, Ident, Star, GlobalVar, Comma, Ident, Int,
                Label, Eof
            ]
        );
        assert_eq!(
            kinds("c\"a\\00\" 0x3FF0000000000000 -1.5e+00 ... #0 !7 !{"),
            vec![CStr, HexFloat, Float, Ellipsis, AttrGroup, MetaVar, Exclaim, LBrace, Eof]
        );
        assert_eq!(
            kinds("for.cond: %\"a b\" -7 \u{e9}"),
            vec![Label, LocalVar, Int, Error, Eof]
        );
        let l = lex("a\n  b \"x\ny\" c\n");
        assert_eq!(l.line_col(l.toks[1].start), (2, 3));
        assert_eq!(l.line_col(l.toks[3].start), (3, 4));
        assert_eq!(l.line_col(l.toks[4].start), (4, 1));
        let nl: Vec<bool> = l.toks.iter().map(|t| t.nl).collect();
        assert_eq!(nl, [true, true, false, true, true]);
        assert_eq!(std::mem::size_of::<Token>(), 12);
    }

    #[test]
    fn string_escapes_round_trip() {
        assert_eq!(unescape(b"a\\0A\\\\\\22"), b"a\n\\\"");
        assert_eq!(escape(b"a\n\\\""), "a\\0A\\5C\\22");
    }
}

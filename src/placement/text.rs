//! The placement-problem text form (DESIGN.md 3.2): parser and printer.
//!
//! ```text
//! # a comment runs to the end of the line
//! targets interp postgres embed
//! block entry 10 2 -           # cost per target, in `targets` order; `-` = unsupported
//! block body 5 - 3
//! edge entry -> body [0 5 -; - 0 -; 1 1 0]   # rows: source target, columns: destination
//! edge body -> body uniform 4                # 0 on the diagonal, 4 elsewhere
//! edge body -> exit uniform -                # only same-target transitions allowed
//! ```
//!
//! The first `block` is the entry. Blocks may be used by edges before they are declared;
//! every block named by an edge must be declared somewhere. Parallel edges are separate
//! lines. [`print_problem`] writes the canonical form ([`parse_problem`] of it gives the same
//! problem).
//!
//! Errors carry the 1-based line and column and say what was expected.
//!
//! Complexity: linear in the input.

use super::problem::{Cost, Problem, FORBIDDEN, MAX_TARGETS};
use std::collections::HashMap;
use std::fmt::Write;

/// A parse error at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ProblemParseError {
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based, in characters).
    pub col: usize,
    /// What went wrong.
    pub message: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok<'a> {
    Word(&'a str),
    Arrow,
    Dash,
    Open,
    Close,
    Semi,
}

fn tokenize(line: &str, lno: usize) -> Result<Vec<(Tok<'_>, usize)>, ProblemParseError> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    let col = |i: usize| line[..i].chars().count() + 1;
    while i < bytes.len() {
        let ch = bytes[i];
        match ch {
            b'#' => break,
            b' ' | b'\t' | b'\r' => i += 1,
            b'[' => {
                out.push((Tok::Open, col(i)));
                i += 1
            }
            b']' => {
                out.push((Tok::Close, col(i)));
                i += 1
            }
            b';' => {
                out.push((Tok::Semi, col(i)));
                i += 1
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => {
                out.push((Tok::Arrow, col(i)));
                i += 2
            }
            b'-' => {
                out.push((Tok::Dash, col(i)));
                i += 1
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'%' => {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'_'
                        || bytes[i] == b'.'
                        || bytes[i] == b'%')
                {
                    i += 1;
                }
                out.push((Tok::Word(&line[start..i]), col(start)));
            }
            _ => {
                let c = line[i..].chars().next().unwrap_or('?');
                return Err(ProblemParseError {
                    line: lno,
                    col: col(i),
                    message: format!("unexpected character `{c}`"),
                });
            }
        }
    }
    Ok(out)
}

struct Cursor<'a> {
    toks: Vec<(Tok<'a>, usize)>,
    pos: usize,
    line: usize,
    end_col: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, message: impl Into<String>) -> ProblemParseError {
        let col = self.toks.get(self.pos).map_or(self.end_col, |t| t.1);
        ProblemParseError {
            line: self.line,
            col,
            message: message.into(),
        }
    }
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.pos).map(|t| t.0)
    }
    fn next(&mut self) -> Option<Tok<'a>> {
        let t = self.peek();
        self.pos += 1;
        t
    }
    fn word(&mut self, what: &str) -> Result<&'a str, ProblemParseError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.err(format!("expected {what}"))),
        }
    }
    fn cost(&mut self) -> Result<Cost, ProblemParseError> {
        match self.peek() {
            Some(Tok::Dash) => {
                self.pos += 1;
                Ok(FORBIDDEN)
            }
            Some(Tok::Word(w)) => match w.parse::<u64>() {
                Ok(v) if v < FORBIDDEN / 2 => {
                    self.pos += 1;
                    Ok(v)
                }
                _ => Err(self.err(format!(
                    "expected a cost (a non-negative integer below 2^62) or `-`, found `{w}`"
                ))),
            },
            _ => Err(self.err("expected a cost (a non-negative integer) or `-`")),
        }
    }
    fn end(&self) -> Result<(), ProblemParseError> {
        if self.pos < self.toks.len() {
            Err(self.err("expected the end of the line"))
        } else {
            Ok(())
        }
    }
}

/// Parses a placement problem (see the module doc).
///
/// # Errors
/// [`ProblemParseError`] with the line and column of the first error: unknown keyword,
/// missing or repeated `targets`, wrong number of costs, unknown or duplicate block names,
/// malformed matrices, or no blocks.
pub fn parse_problem(src: &str) -> Result<Problem, ProblemParseError> {
    let mut problem: Option<Problem> = None;
    let mut index: HashMap<String, u32> = HashMap::new();
    // Edges whose blocks may be declared later: (from, to, matrix, line, col of from, col of to).
    type Pending = (String, String, Vec<Cost>, usize, usize, usize);
    let mut pending: Vec<Pending> = Vec::new();
    for (lno, line) in src.lines().enumerate() {
        let lno = lno + 1;
        let toks = tokenize(line, lno)?;
        if toks.is_empty() {
            continue;
        }
        let mut cur = Cursor {
            toks,
            pos: 0,
            line: lno,
            end_col: line.chars().count() + 1,
        };
        let kw = cur.word("`targets`, `block` or `edge`")?;
        match kw {
            "targets" => {
                if problem.is_some() {
                    return Err(ProblemParseError {
                        line: lno,
                        col: 1,
                        message: "`targets` given twice".into(),
                    });
                }
                let mut names: Vec<String> = Vec::new();
                while cur.peek().is_some() {
                    let w = cur.word("a target name")?;
                    if names.iter().any(|n| n == w) {
                        cur.pos -= 1;
                        return Err(cur.err(format!("target `{w}` named twice")));
                    }
                    names.push(w.to_string());
                }
                if names.is_empty() {
                    return Err(cur.err("expected at least one target name"));
                }
                if names.len() > MAX_TARGETS {
                    return Err(cur.err(format!("at most {MAX_TARGETS} targets are supported")));
                }
                problem = Some(Problem::new(names));
            }
            "block" | "edge" => {
                let Some(p) = problem.as_mut() else {
                    return Err(ProblemParseError {
                        line: lno,
                        col: 1,
                        message: "expected `targets` before the first block or edge".into(),
                    });
                };
                let k = p.num_targets();
                if kw == "block" {
                    let name = cur.word("a block name")?;
                    if index.contains_key(name) {
                        cur.pos -= 1;
                        return Err(cur.err(format!("block `{name}` declared twice")));
                    }
                    let mut costs = Vec::with_capacity(k);
                    for _ in 0..k {
                        costs.push(cur.cost()?);
                    }
                    cur.end()?;
                    index.insert(name.to_string(), p.num_blocks() as u32);
                    p.add_block(name, &costs);
                } else {
                    let from_col = cur.toks.get(cur.pos).map_or(1, |t| t.1);
                    let from = cur.word("the source block name")?;
                    if cur.next() != Some(Tok::Arrow) {
                        cur.pos -= 1;
                        return Err(cur.err("expected `->`"));
                    }
                    let to_col = cur.toks.get(cur.pos).map_or(1, |t| t.1);
                    let to = cur.word("the destination block name")?;
                    let matrix = match cur.next() {
                        Some(Tok::Word("uniform")) => {
                            let off = cur.cost()?;
                            let mut m = vec![off; k * k];
                            for t in 0..k {
                                m[t * k + t] = 0;
                            }
                            m
                        }
                        Some(Tok::Open) => {
                            let mut m = Vec::with_capacity(k * k);
                            for row in 0..k {
                                for _ in 0..k {
                                    m.push(cur.cost()?);
                                }
                                let want = if row + 1 == k { Tok::Close } else { Tok::Semi };
                                if cur.next() != Some(want) {
                                    cur.pos -= 1;
                                    return Err(cur.err(format!(
                                        "expected {} after row {} of the {k}×{k} matrix",
                                        if want == Tok::Close { "`]`" } else { "`;`" },
                                        row + 1
                                    )));
                                }
                            }
                            m
                        }
                        _ => {
                            cur.pos -= 1;
                            return Err(cur.err("expected `[` (a matrix) or `uniform`"));
                        }
                    };
                    cur.end()?;
                    pending.push((from.into(), to.into(), matrix, lno, from_col, to_col));
                }
            }
            other => {
                cur.pos -= 1;
                return Err(cur.err(format!(
                    "unknown keyword `{other}`: expected `targets`, `block` or `edge`"
                )));
            }
        }
    }
    let Some(mut p) = problem else {
        return Err(ProblemParseError {
            line: 1,
            col: 1,
            message: "expected `targets` and at least one block".into(),
        });
    };
    if p.num_blocks() == 0 {
        return Err(ProblemParseError {
            line: src.lines().count().max(1),
            col: 1,
            message: "expected at least one `block`".into(),
        });
    }
    for (from, to, m, line, fc, tc) in pending {
        let look = |name: &str, col: usize| {
            index.get(name).copied().ok_or_else(|| ProblemParseError {
                line,
                col,
                message: format!("unknown block `{name}`"),
            })
        };
        let (f, t) = (look(&from, fc)?, look(&to, tc)?);
        p.add_edge(f, t, &m);
    }
    Ok(p)
}

/// Prints `p` in the canonical text form.
pub fn print_problem(p: &Problem) -> String {
    let k = p.num_targets();
    let mut s = String::new();
    let cost = |c: Cost| {
        if c == FORBIDDEN {
            "-".to_string()
        } else {
            c.to_string()
        }
    };
    let _ = writeln!(s, "targets {}", p.targets.join(" "));
    for b in 0..p.num_blocks() {
        let _ = write!(s, "block {}", p.blocks[b]);
        for t in 0..k {
            let _ = write!(s, " {}", cost(p.cost(b, t)));
        }
        s.push('\n');
    }
    for (i, e) in p.edges.iter().enumerate() {
        let _ = write!(
            s,
            "edge {} -> {} [",
            p.blocks[e.from as usize], p.blocks[e.to as usize]
        );
        for a in 0..k {
            for b in 0..k {
                let _ = write!(
                    s,
                    "{}{}",
                    if b > 0 { " " } else { "" },
                    cost(p.transition(i, a, b))
                );
            }
            s.push_str(if a + 1 == k { "]" } else { "; " });
        }
        s.push('\n');
    }
    s
}

//! The parser of machine text (grammar in the parent module's doc): one line at a time,
//! each line kind its own function (function header, `frame`, `remat`, block header,
//! instruction), then [`finish`] computes predecessors and the vreg count.
//!
//! Errors: the first syntax error, with its line and column; never a panic.
//! Complexity: linear in the text.

use super::super::function::{BranchArgs, MachineFunction, MachineOp, Opcode, Operands};
use super::super::{Operand, OperandConstraint, OperandKind, OperandPos, PRegSet, VReg};
use super::parse_target_reg;
use crate::machine::{InstRange, MBlock, MInst};
use crate::registers::{PReg, RegClass};
use smallvec::SmallVec;

/// A machine-text syntax error with its location.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct ParseError {
    /// File name as given to the parser.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What was wrong.
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Word(&'a str),
    Punct(char),
}

struct Line<'a> {
    toks: Vec<(Tok<'a>, usize)>,
    pos: usize,
    line: usize,
    end_col: usize,
}

fn tokenize(text: &str) -> Vec<(Tok<'_>, usize)> {
    let text = match text.find(';') {
        Some(at) => &text[..at],
        None => text,
    };
    let mut toks = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Bytes, not chars: only ASCII separates tokens, so every token boundary is a char
        // boundary (a byte of a multi-byte character read `as char` may look like
        // whitespace: 0x85 is U+0085).
        let c = bytes[i] as char;
        if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else if "#,:(){}/".contains(c) {
            toks.push((Tok::Punct(c), i + 1));
            i += 1;
        } else {
            let start = i;
            while i < bytes.len() {
                let c = bytes[i] as char;
                if bytes[i].is_ascii_whitespace() || "#,:(){}/;".contains(c) {
                    break;
                }
                i += 1;
            }
            toks.push((Tok::Word(&text[start..i]), start + 1));
        }
    }
    toks
}

struct Parser<'a> {
    file: &'a str,
    /// The module's symbol names, for `call @name`.
    symbols: &'a [&'a str],
}

impl<'a> Parser<'a> {
    fn err(&self, line: usize, col: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line,
            col,
            message: message.into(),
        }
    }
}

impl<'a> Line<'a> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.pos).map(|t| t.0)
    }
    fn col(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end_col, |t| t.1)
    }
    fn next(&mut self) -> Option<Tok<'a>> {
        let t = self.peek();
        self.pos += 1;
        t
    }
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
}

fn parse_vreg(s: &str) -> Option<VReg> {
    let body = s.strip_prefix('v')?;
    let (&last, _) = body.as_bytes().split_last()?;
    let class = match last {
        b'i' => RegClass::Int,
        b'f' => RegClass::Float,
        b'v' => RegClass::Vector,
        _ => return None,
    };
    // The class letter is ASCII, so cutting it off leaves a char boundary.
    let digits = &body[..body.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    VReg::new(digits.parse().ok()?, class)
}

fn parse_preg(s: &str) -> Option<PReg> {
    let class = match s.as_bytes().first()? {
        b'r' => RegClass::Int,
        b'f' => RegClass::Float,
        b'v' => RegClass::Vector,
        _ => return None,
    };
    let digits = &s[1..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    PReg::new(class, digits.parse().ok()?)
}

fn parse_block_name(s: &str) -> Option<MBlock> {
    let d = s.strip_prefix("block")?;
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    d.parse().ok()
}

impl<'a> Parser<'a> {
    fn expect_punct(&self, l: &mut Line<'a>, c: char, what: &str) -> Result<(), ParseError> {
        let col = l.col();
        match l.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            Some(Tok::Word(w)) => {
                Err(self.err(l.line, col, format!("expected `{c}` {what}, found `{w}`")))
            }
            Some(Tok::Punct(p)) => {
                Err(self.err(l.line, col, format!("expected `{c}` {what}, found `{p}`")))
            }
            None => Err(self.err(
                l.line,
                col,
                format!("expected `{c}` {what}, found the end of the line"),
            )),
        }
    }

    fn word(&self, l: &mut Line<'a>, what: &str) -> Result<(&'a str, usize), ParseError> {
        let col = l.col();
        match l.next() {
            Some(Tok::Word(w)) => Ok((w, col)),
            Some(Tok::Punct(p)) => {
                Err(self.err(l.line, col, format!("expected {what}, found `{p}`")))
            }
            None => Err(self.err(
                l.line,
                col,
                format!("expected {what}, found the end of the line"),
            )),
        }
    }

    fn vreg(&self, l: &mut Line<'a>) -> Result<VReg, ParseError> {
        let (w, col) = self.word(l, "a virtual register like `v3i`")?;
        parse_vreg(w).ok_or_else(|| {
            self.err(
                l.line,
                col,
                format!("`{w}` is not a virtual register (`v<index><i|f|v>`)"),
            )
        })
    }

    fn preg(&self, l: &mut Line<'a>, target: &str) -> Result<PReg, ParseError> {
        let (w, col) = self.word(l, "a physical register like `r3`")?;
        parse_target_reg(target, w)
            .or_else(|| parse_preg(w))
            .ok_or_else(|| {
                self.err(
                    l.line,
                    col,
                    format!("`{w}` is not a physical register (a name of the target, or `<r|f|v><0..63>`)"),
                )
            })
    }

    /// The callee of `call @name`: a library helper or one of the parser's symbols.
    fn callee(&self, l: &mut Line<'a>) -> Result<i64, ParseError> {
        let (w, col) = self.word(l, "the callee `@name`")?;
        let name = w.strip_prefix('@').unwrap_or(w);
        super::super::parts::libcall_imm(name)
            .or_else(|| {
                self.symbols
                    .iter()
                    .position(|s| *s == name)
                    .map(|k| k as i64)
            })
            .ok_or_else(|| {
                self.err(
                    l.line,
                    col,
                    format!("unknown callee `{w}` (a library helper, or a symbol of the module)"),
                )
            })
    }

    fn number<T: std::str::FromStr>(&self, l: &mut Line<'a>, what: &str) -> Result<T, ParseError> {
        let (w, col) = self.word(l, what)?;
        w.parse()
            .map_err(|_| self.err(l.line, col, format!("`{w}` is not {what}")))
    }

    fn vreg_list(&self, l: &mut Line<'a>) -> Result<SmallVec<[VReg; 2]>, ParseError> {
        self.expect_punct(l, '(', "to open the list")?;
        let mut out = SmallVec::new();
        if l.peek() == Some(Tok::Punct(')')) {
            l.next();
            return Ok(out);
        }
        loop {
            out.push(self.vreg(l)?);
            let col = l.col();
            match l.next() {
                Some(Tok::Punct(',')) => {}
                Some(Tok::Punct(')')) => return Ok(out),
                _ => return Err(self.err(l.line, col, "expected `,` or `)` in the register list")),
            }
        }
    }

    fn operand(
        &self,
        l: &mut Line<'a>,
        head: &str,
        col: usize,
        target: &str,
    ) -> Result<Operand, ParseError> {
        let (kind, pos) = match head {
            "use" => (OperandKind::Use, OperandPos::Early),
            "use@early" => (OperandKind::Use, OperandPos::Early),
            "use@late" => (OperandKind::Use, OperandPos::Late),
            "def" | "def@late" => (OperandKind::Def, OperandPos::Late),
            "def@early" => (OperandKind::Def, OperandPos::Early),
            _ => {
                return Err(self.err(
                    l.line,
                    col,
                    format!("expected an operand (`use`, `def`, `use@late`, `def@early`) or a target `blockN(...)`, found `{head}`"),
                ))
            }
        };
        let vreg = self.vreg(l)?;
        self.expect_punct(l, ':', "before the constraint")?;
        let (c, ccol) = self.word(l, "a constraint")?;
        let constraint = match c {
            "any" => OperandConstraint::Any,
            "reg" => OperandConstraint::Reg,
            "stack" => OperandConstraint::Stack,
            "fixed" => {
                self.expect_punct(l, '(', "after `fixed`")?;
                let r = self.preg(l, target)?;
                self.expect_punct(l, ')', "after the register")?;
                OperandConstraint::FixedReg(r)
            }
            "reuse" | "limit" => {
                self.expect_punct(l, '(', &format!("after `{c}`"))?;
                let n: u8 = self.number(l, "a number from 0 to 255")?;
                self.expect_punct(l, ')', "after the number")?;
                if c == "reuse" {
                    OperandConstraint::Reuse(n)
                } else {
                    OperandConstraint::Limit(n)
                }
            }
            _ => {
                return Err(self.err(
                    l.line,
                    ccol,
                    format!(
                        "unknown constraint `{c}` (any, reg, stack, fixed(R), reuse(N), limit(N))"
                    ),
                ))
            }
        };
        Ok(Operand {
            vreg,
            constraint,
            kind,
            pos,
        })
    }
}

/// Parses machine text holding any number of functions (see the module doc). `file` names
/// the input in error messages.
///
/// # Errors
/// The first syntax error, with its line and column.
pub fn parse_functions(text: &str, file: &str) -> Result<Vec<MachineFunction>, ParseError> {
    parse_functions_with_symbols(text, file, &[])
}

/// [`parse_functions`] resolving `call @name` against `symbols` (the module's symbol names in
/// symbol order) besides the library helpers.
///
/// # Errors
/// The first syntax error, with its line and column.
pub fn parse_functions_with_symbols(
    text: &str,
    file: &str,
    symbols: &[&str],
) -> Result<Vec<MachineFunction>, ParseError> {
    let p = Parser { file, symbols };
    let mut out = Vec::new();
    let mut cur: Option<MachineFunction> = None;
    let mut last_line = 0;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        last_line = line_no;
        let toks = tokenize(raw);
        if toks.is_empty() {
            continue;
        }
        let mut l = Line {
            toks,
            pos: 0,
            line: line_no,
            end_col: raw.len() + 1,
        };
        let (head, col) = p
            .word(
                &mut l,
                "`function`, `frame`, `blockN`, an instruction or `}`",
            )
            .or_else(|e| {
                if l.toks[0].0 == Tok::Punct('}') {
                    Ok(("}", l.toks[0].1))
                } else {
                    Err(e)
                }
            })?;
        let Some(f) = cur.as_mut() else {
            if head != "function" {
                return Err(p.err(line_no, col, format!("expected `function`, found `{head}`")));
            }
            cur = Some(function_header(&p, &mut l)?);
            continue;
        };
        if head == "}" {
            if l.toks.len() > 1 {
                return Err(p.err(line_no, l.toks[1].1, "text after `}`"));
            }
            let mut f = cur.take().expect("inside a function");
            finish(&p, &mut f, line_no)?;
            out.push(f);
        } else if head == "frame" {
            frame_line(&p, &mut l, f, col)?;
        } else if head == "remat" {
            remat_line(&p, &mut l, f, col)?;
        } else if let Some(b) = parse_block_name(head) {
            block_header(&p, &mut l, f, b, head, col)?;
        } else {
            instruction(&p, &mut l, f, head, col)?;
        }
    }
    if cur.is_some() {
        return Err(p.err(
            last_line + 1,
            1,
            "end of input inside a function (missing `}`)",
        ));
    }
    Ok(out)
}

/// The rest of a `function @name target T {` line, after `function`.
fn function_header<'a>(p: &Parser<'a>, l: &mut Line<'a>) -> Result<MachineFunction, ParseError> {
    let (name, ncol) = p.word(l, "the function name `@name`")?;
    let Some(name) = name.strip_prefix('@') else {
        return Err(p.err(
            l.line,
            ncol,
            format!("function names start with `@`: `{name}`"),
        ));
    };
    let (kw, kcol) = p.word(l, "`target`")?;
    if kw != "target" {
        return Err(p.err(l.line, kcol, format!("expected `target`, found `{kw}`")));
    }
    let (target, _) = p.word(l, "the target name")?;
    p.expect_punct(l, '{', "to open the function")?;
    if !l.at_end() {
        return Err(p.err(l.line, l.col(), "text after `{`"));
    }
    Ok(MachineFunction {
        name: name.to_string(),
        target: target.to_string(),
        ..Default::default()
    })
}

/// The rest of a `frame SIZE/ALIGN ...` line: the function's alloca slots.
fn frame_line<'a>(
    p: &Parser<'a>,
    l: &mut Line<'a>,
    f: &mut MachineFunction,
    col: usize,
) -> Result<(), ParseError> {
    if !f.insts.is_empty() || !f.frame_slots.is_empty() {
        return Err(p.err(l.line, col, "`frame` comes once, before the first block"));
    }
    while !l.at_end() {
        let size: u32 = p.number(l, "a slot size in bytes")?;
        p.expect_punct(l, '/', "between size and alignment")?;
        let align: u32 = p.number(l, "an alignment in bytes")?;
        f.frame_slots.push((size, align));
    }
    Ok(())
}

/// The rest of a `remat vreg: OPCODE [#IMM]` line: a value's rematerialization hook.
fn remat_line<'a>(
    p: &Parser<'a>,
    l: &mut Line<'a>,
    f: &mut MachineFunction,
    col: usize,
) -> Result<(), ParseError> {
    let v = p.vreg(l)?;
    p.expect_punct(l, ':', "after the rematerialized vreg")?;
    let (name, ncol) = p.word(l, "the opcode that recomputes the value")?;
    let opcode = Opcode::from_name(name)
        .filter(|o| o.suffixes().is_empty())
        .ok_or_else(|| {
            p.err(
                l.line,
                ncol,
                format!("`{name}` is no opcode without a suffix"),
            )
        })?;
    let mut imm = 0i64;
    if opcode.has_imm() {
        p.expect_punct(l, '#', &format!("`{name}` takes an immediate `#N`"))?;
        imm = p.number(l, "a 64-bit integer")?;
    }
    if !l.at_end() {
        return Err(p.err(l.line, l.col(), "text after the remat hook"));
    }
    if f.remat.iter().any(|(w, _)| w.index() == v.index()) {
        return Err(p.err(l.line, col, format!("{v} has two remat hooks")));
    }
    f.remat.push((v, MachineOp::imm(opcode, imm)));
    Ok(())
}

/// The rest of a `blockN[(params)]:` header: opens block `b`, which must be the next.
fn block_header<'a>(
    p: &Parser<'a>,
    l: &mut Line<'a>,
    f: &mut MachineFunction,
    b: MBlock,
    head: &str,
    col: usize,
) -> Result<(), ParseError> {
    if b.index() != f.insts.len() {
        return Err(p.err(
            l.line,
            col,
            format!(
                "expected block{} next (blocks are listed in index order), found {head}",
                f.insts.len()
            ),
        ));
    }
    let params = if l.peek() == Some(Tok::Punct('(')) {
        p.vreg_list(l)?
    } else {
        SmallVec::new()
    };
    p.expect_punct(l, ':', "after the block header")?;
    if !l.at_end() {
        return Err(p.err(l.line, l.col(), "text after the block header"));
    }
    let at = f.ops.len() as u32;
    f.insts.push(InstRange::new(MInst(at), MInst(at)));
    f.params.push(params);
    f.succs.push(SmallVec::new());
    f.branch_args.push(BranchArgs::default());
    Ok(())
}

/// An instruction line whose first word (opcode and suffix) is `head`, appended to the
/// last block.
fn instruction<'a>(
    p: &Parser<'a>,
    l: &mut Line<'a>,
    f: &mut MachineFunction,
    head: &str,
    col: usize,
) -> Result<(), ParseError> {
    let Some(block) = f.insts.len().checked_sub(1) else {
        return Err(p.err(l.line, col, "instruction before the first block header"));
    };
    if f.insts[block].end.index() != f.ops.len()
        || f.insts[block].end > f.insts[block].start
            && f.ops[f.ops.len() - 1].opcode.is_terminator()
    {
        return Err(p.err(
            l.line,
            col,
            format!("instruction after the terminator of block{block}"),
        ));
    }
    let (name, suffix) = match head.split_once('.') {
        Some((n, s)) => (n, Some(s)),
        None => (head, None),
    };
    let opcode = Opcode::from_name(name)
        .ok_or_else(|| p.err(l.line, col, format!("unknown opcode `{name}`")))?;
    let suffixes = opcode.suffixes();
    let suffix = match suffix {
        None if suffixes.is_empty() => 0,
        None => {
            return Err(p.err(
                l.line,
                col,
                format!("`{name}` needs a suffix: one of {}", suffixes.join(", ")),
            ))
        }
        Some(s) => match suffixes.iter().position(|x| *x == s) {
            Some(k) => k as u8,
            None if suffixes.is_empty() => {
                return Err(p.err(l.line, col, format!("`{name}` takes no suffix")))
            }
            None => {
                return Err(p.err(
                    l.line,
                    col,
                    format!(
                        "unknown suffix `{s}` of `{name}` (one of {})",
                        suffixes.join(", ")
                    ),
                ))
            }
        },
    };
    let mut imm = 0i64;
    if opcode == Opcode::Call && matches!(l.peek(), Some(Tok::Word(w)) if w.starts_with('@')) {
        imm = p.callee(l)?;
    } else if opcode.has_imm() {
        p.expect_punct(l, '#', &format!("`{name}` takes an immediate `#N`"))?;
        imm = p.number(l, "a 64-bit integer")?;
    } else if l.peek() == Some(Tok::Punct('#')) {
        return Err(p.err(l.line, l.col(), format!("`{name}` takes no immediate")));
    }
    let mut operands = Operands::new();
    let mut targets: SmallVec<[(MBlock, SmallVec<[VReg; 2]>); 2]> = SmallVec::new();
    let mut clobbers = PRegSet::empty();
    let mut first = true;
    while !l.at_end() {
        if !first {
            let col = l.col();
            match l.peek() {
                Some(Tok::Punct(',')) => {
                    l.next();
                }
                Some(Tok::Word("clobbers")) => {}
                _ => return Err(p.err(l.line, col, "expected `,` between operands")),
            }
        }
        first = false;
        let (w, wcol) = p.word(l, "an operand, a target or `clobbers`")?;
        if w == "clobbers" {
            p.expect_punct(l, '(', "after `clobbers`")?;
            while l.peek() != Some(Tok::Punct(')')) {
                if l.at_end() {
                    return Err(p.err(l.line, l.col(), "expected `)` to close `clobbers(`"));
                }
                clobbers.insert(p.preg(l, &f.target)?);
            }
            l.next();
            if !l.at_end() {
                return Err(p.err(l.line, l.col(), "text after the clobbers"));
            }
            break;
        }
        if let Some(t) = parse_block_name(w) {
            if !opcode.is_terminator() || opcode.is_ret() {
                return Err(p.err(l.line, wcol, format!("`{name}` has no successors")));
            }
            let args = p.vreg_list(l)?;
            targets.push((t, args));
            continue;
        }
        if !targets.is_empty() {
            return Err(p.err(l.line, wcol, "operands come before the targets"));
        }
        operands.push(p.operand(l, w, wcol, &f.target)?);
    }
    if opcode.is_terminator() {
        let mut args = BranchArgs::default();
        let mut succs = SmallVec::new();
        for (t, a) in &targets {
            succs.push(*t);
            args.push(a);
        }
        f.succs[block] = succs;
        f.branch_args[block] = args;
    }
    f.ops.push(MachineOp {
        opcode,
        suffix,
        imm,
    });
    f.operands.push(operands);
    f.clobbers.push(clobbers);
    f.insts[block].end += 1;
    Ok(())
}

/// Completes a parsed function: successors in range, predecessors, the vreg count.
fn finish(p: &Parser<'_>, f: &mut MachineFunction, line: usize) -> Result<(), ParseError> {
    let nb = f.insts.len();
    f.preds = vec![SmallVec::new(); nb];
    for b in 0..nb {
        for &s in &f.succs[b] {
            if s.index() >= nb {
                return Err(p.err(
                    line,
                    1,
                    format!("block{b} branches to block{s}, which does not exist"),
                ));
            }
            f.preds[s.index()].push(MBlock::new(b));
        }
    }
    let mut max = 0;
    let vregs = f
        .params
        .iter()
        .flatten()
        .copied()
        .chain(f.operands.iter().flatten().map(|o| o.vreg))
        .chain(f.branch_args.iter().flat_map(|a| a.args.iter().copied()));
    for v in vregs {
        max = max.max(v.index() + 1);
    }
    f.num_vregs = max;
    f.remat.sort_unstable_by_key(|(v, _)| v.index());
    Ok(())
}

//! Machine text: the printed form of [`MachineFunction`]s, and its parser, for filetests and
//! `strata compile --emit machine`.
//!
//! Grammar (one item per line; `;` starts a comment to the end of the line):
//!
//! ```text
//! module   := function*
//! function := "function" "@"NAME "target" TARGET "{" NL [frame NL] (remat NL)* block* "}"
//! frame    := "frame" (SIZE "/" ALIGN)*             ; alloca slots, numbered from 0
//! remat    := "remat" vreg ":" OPCODE ["#" IMM]     ; the value's rematerialization hook
//! block    := "block"N ["(" vreg ("," vreg)* ")"] ":" NL inst*
//! inst     := OPCODE["." SUFFIX] ["#" IMM] [item ("," item)*] [clobbers]
//! item     := operand | target
//! operand  := ("use" | "def")["@early" | "@late"] vreg ":" constraint
//! target   := "block"N "(" [vreg ("," vreg)*] ")"   ; after the operands, terminators only
//! clobbers := "clobbers" "(" preg* ")"
//! vreg     := "v"N ("i" | "f" | "v")                ; index, then class int/float/vector
//! preg     := TARGET_NAME | ("r" | "f" | "v")N      ; the target's name, or class and index
//! constraint := "any" | "reg" | "stack" | "fixed(" preg ")" | "reuse(" N ")" | "limit(" N ")"
//! ```
//!
//! Physical registers print with the function's target's names and parse in either
//! spelling: x86-64 `rax rcx rdx rbx rsp rbp rsi rdi r8`-`r15` (integer 0-15) and
//! `xmm0`-`xmm31` (float); aarch64 `x0`-`x30` (integer), `v0`-`v31` (float) and `q0`-`q31`
//! (vector). The generic spelling (`r7`, `f0`, `v2`: class, then hardware index) is what
//! other targets print, and parses everywhere except where it is one of the target's names
//! (`v2` on aarch64 is the float register `v2`). Calls name their callee: `call @__multi3`
//! for a library helper of lowering ([`super::parts::LIBCALLS`], immediate `-1 - k`), `call
//! @g` for module symbol `g` when the printer and the parser are given the module's symbol
//! names ([`print_function_with_symbols`], [`parse_functions_with_symbols`]); without them
//! a symbol prints and parses as its index, `call #3`.
//!
//! Example:
//!
//! ```text
//! function @max target x86-64 {
//! block0:
//!   args def v0i:fixed(rdi), def v1i:fixed(rsi)
//!   icmp.sgt def v2i:reg, use v0i:reg, use v1i:any
//!   br use v2i:reg, block1(v0i), block2(v1i)
//! block1(v3i):
//!   ret use v3i:fixed(rax)
//! block2(v4i):
//!   ret use v4i:fixed(rax)
//! }
//! ```
//!
//! Uses are early and defs late unless `@early`/`@late` says otherwise. Blocks appear in
//! index order; instruction indices follow from the layout; predecessors are computed; the
//! vreg count is one above the largest index. Parsing then printing is the identity on
//! printed text ([`print_function`] is canonical).
//!
//! Errors: [`ParseError`] names the file, line and column and what was expected.
//!
//! Complexity: linear in the text.

use super::function::{BranchArgs, MachineFunction, MachineOp, Opcode, Operands};
use super::{
    MBlock, MachineRead, Operand, OperandConstraint, OperandKind, OperandPos, PRegSet, VReg,
};
use crate::machine::{InstRange, MInst};
use crate::registers::{PReg, RegClass};
use smallvec::SmallVec;
use std::fmt::Write as _;

/// x86-64's integer registers by hardware encoding.
const X86_64_INT: [&str; 16] = [
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
    "r14", "r15",
];

/// The name of `r` on `target` (see the module doc); the generic `r7`/`f0`/`v2` spelling
/// where the target has no name for it.
pub fn reg_name(target: &str, r: PReg) -> String {
    let n = r.index() as usize;
    match (target, r.class()) {
        ("x86-64", RegClass::Int) if n < 16 => X86_64_INT[n].to_string(),
        ("x86-64", RegClass::Float) if n < 32 => format!("xmm{n}"),
        ("aarch64", RegClass::Int) if n < 31 => format!("x{n}"),
        ("aarch64", RegClass::Float) if n < 32 => format!("v{n}"),
        ("aarch64", RegClass::Vector) if n < 32 => format!("q{n}"),
        _ => r.to_string(),
    }
}

/// An allocation as `target` names it: a register by its name (see [`reg_name`]), a spill
/// slot or `none` as [`Allocation`](crate::registers::Allocation) prints them.
pub fn allocation_name(target: &str, a: crate::registers::Allocation) -> String {
    match a {
        crate::registers::Allocation::Reg(r) => reg_name(target, r),
        other => other.to_string(),
    }
}

/// The register `target` calls `s`, if it is one of its names.
fn parse_target_reg(target: &str, s: &str) -> Option<PReg> {
    let numbered = |prefix: &str, below: usize| {
        let d = s.strip_prefix(prefix)?;
        if d.is_empty()
            || !d.bytes().all(|b| b.is_ascii_digit())
            || (d.len() > 1 && d.starts_with('0'))
        {
            return None;
        }
        d.parse::<usize>().ok().filter(|&n| n < below)
    };
    let (class, n) = match target {
        "x86-64" => match X86_64_INT.iter().position(|&x| x == s) {
            Some(n) => (RegClass::Int, n),
            None => (RegClass::Float, numbered("xmm", 32)?),
        },
        "aarch64" => {
            if let Some(n) = numbered("x", 31) {
                (RegClass::Int, n)
            } else if let Some(n) = numbered("v", 32) {
                (RegClass::Float, n)
            } else {
                (RegClass::Vector, numbered("q", 32)?)
            }
        }
        _ => return None,
    };
    PReg::new(class, u8::try_from(n).ok()?)
}

/// Operand `o` as machine text of `target` (a fixed register by its target name).
pub fn operand_text(target: &str, o: &Operand) -> String {
    let text = o.to_string();
    match o.constraint {
        OperandConstraint::FixedReg(r) => {
            let generic = format!("fixed({r})");
            match text.strip_suffix(&generic) {
                Some(head) => format!("{head}fixed({})", reg_name(target, r)),
                None => text,
            }
        }
        _ => text,
    }
}

/// The callee of a `call` with immediate `imm`: a library helper's or a symbol's name.
fn callee_name<'n>(imm: i64, symbols: &[&'n str]) -> Option<&'n str> {
    if imm < 0 {
        let k = usize::try_from(-1 - imm).ok()?;
        super::parts::LIBCALLS.get(k).copied()
    } else {
        symbols.get(usize::try_from(imm).ok()?).copied()
    }
}

/// Prints instruction `i` of `block` (without indentation or newline); a terminator prints
/// the block's targets with their arguments. Calls of module symbols print as `call #N`
/// (see [`print_function_with_symbols`]).
pub fn print_inst(f: &MachineFunction, block: usize, i: usize, out: &mut String) {
    print_inst_with_symbols(f, block, i, &[], out);
}

/// [`print_inst`] naming the callees of `call`s from `symbols` (the module's symbol names in
/// symbol order).
pub fn print_inst_with_symbols(
    f: &MachineFunction,
    block: usize,
    i: usize,
    symbols: &[&str],
    out: &mut String,
) {
    let op = f.ops[i];
    out.push_str(op.opcode.name());
    if let Some(s) = op.opcode.suffixes().get(op.suffix as usize) {
        write!(out, ".{s}").unwrap();
    }
    let callee = (op.opcode == Opcode::Call)
        .then(|| callee_name(op.imm, symbols))
        .flatten();
    if let Some(name) = callee {
        write!(out, " @{name}").unwrap();
    } else if op.opcode.has_imm() {
        write!(out, " #{}", op.imm).unwrap();
    }
    let mut first = true;
    let mut sep = |out: &mut String| {
        out.push_str(if first { " " } else { ", " });
        first = false;
    };
    for o in &f.operands[i] {
        sep(out);
        out.push_str(&operand_text(&f.target, o));
    }
    if op.opcode.is_terminator() {
        let b = block;
        for (k, s) in f.succs[b].iter().enumerate() {
            sep(out);
            write!(out, "block{s}(").unwrap();
            for (n, a) in f.branch_args[b].get(k).iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                write!(out, "{a}").unwrap();
            }
            out.push(')');
        }
    }
    if !f.clobbers[i].is_empty() {
        out.push_str(" clobbers(");
        for (n, r) in f.clobbers[i].iter().enumerate() {
            if n > 0 {
                out.push(' ');
            }
            out.push_str(&reg_name(&f.target, r));
        }
        out.push(')');
    }
}

/// Prints `f` in machine text (see the module doc); calls of module symbols print as
/// `call #N`.
pub fn print_function(f: &MachineFunction) -> String {
    print_function_with_symbols(f, &[])
}

/// Prints `f` in machine text, naming the callees of `call`s from `symbols` (the module's
/// symbol names in symbol order): `call @g`.
pub fn print_function_with_symbols(f: &MachineFunction, symbols: &[&str]) -> String {
    let mut out = String::new();
    writeln!(out, "function @{} target {} {{", f.name, f.target).unwrap();
    if !f.frame_slots.is_empty() {
        out.push_str("frame");
        for (size, align) in &f.frame_slots {
            write!(out, " {size}/{align}").unwrap();
        }
        out.push('\n');
    }
    for (v, op) in &f.remat {
        write!(out, "remat {v}: {}", op.opcode.name()).unwrap();
        if op.opcode.has_imm() {
            write!(out, " #{}", op.imm).unwrap();
        }
        out.push('\n');
    }
    for b in 0..f.num_blocks() {
        write!(out, "block{b}").unwrap();
        if !f.params[b].is_empty() {
            out.push('(');
            for (n, p) in f.params[b].iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                write!(out, "{p}").unwrap();
            }
            out.push(')');
        }
        out.push_str(":\n");
        for i in f.block_insts(MBlock::new(b)) {
            out.push_str("  ");
            print_inst_with_symbols(f, b, i.index(), symbols, &mut out);
            out.push('\n');
        }
    }
    out.push_str("}\n");
    out
}

/// Prints every function, separated by blank lines.
pub fn print_functions(fs: &[MachineFunction]) -> String {
    fs.iter().map(print_function).collect::<Vec<_>>().join("\n")
}

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
        let c = bytes[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if "#,:(){}/".contains(c) {
            toks.push((Tok::Punct(c), i + 1));
            i += 1;
        } else {
            let start = i;
            while i < bytes.len() {
                let c = bytes[i] as char;
                if c.is_whitespace() || "#,:(){}/;".contains(c) {
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
    let (digits, class) = body.split_at(body.len().checked_sub(1)?);
    let class = match class {
        "i" => RegClass::Int,
        "f" => RegClass::Float,
        "v" => RegClass::Vector,
        _ => return None,
    };
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
        super::parts::libcall_imm(name)
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
            let (name, ncol) = p.word(&mut l, "the function name `@name`")?;
            let Some(name) = name.strip_prefix('@') else {
                return Err(p.err(
                    line_no,
                    ncol,
                    format!("function names start with `@`: `{name}`"),
                ));
            };
            let (kw, kcol) = p.word(&mut l, "`target`")?;
            if kw != "target" {
                return Err(p.err(line_no, kcol, format!("expected `target`, found `{kw}`")));
            }
            let (target, _) = p.word(&mut l, "the target name")?;
            p.expect_punct(&mut l, '{', "to open the function")?;
            if !l.at_end() {
                return Err(p.err(line_no, l.col(), "text after `{`"));
            }
            cur = Some(MachineFunction {
                name: name.to_string(),
                target: target.to_string(),
                ..Default::default()
            });
            continue;
        };
        if head == "}" {
            if l.toks.len() > 1 {
                return Err(p.err(line_no, l.toks[1].1, "text after `}`"));
            }
            let mut f = cur.take().expect("inside a function");
            finish(&p, &mut f, line_no)?;
            out.push(f);
            continue;
        }
        if head == "frame" {
            if !f.insts.is_empty() || !f.frame_slots.is_empty() {
                return Err(p.err(line_no, col, "`frame` comes once, before the first block"));
            }
            while !l.at_end() {
                let size: u32 = p.number(&mut l, "a slot size in bytes")?;
                p.expect_punct(&mut l, '/', "between size and alignment")?;
                let align: u32 = p.number(&mut l, "an alignment in bytes")?;
                f.frame_slots.push((size, align));
            }
            continue;
        }
        if head == "remat" {
            let v = p.vreg(&mut l)?;
            p.expect_punct(&mut l, ':', "after the rematerialized vreg")?;
            let (name, ncol) = p.word(&mut l, "the opcode that recomputes the value")?;
            let opcode = Opcode::from_name(name)
                .filter(|o| o.suffixes().is_empty())
                .ok_or_else(|| {
                    p.err(
                        line_no,
                        ncol,
                        format!("`{name}` is no opcode without a suffix"),
                    )
                })?;
            let mut imm = 0i64;
            if opcode.has_imm() {
                p.expect_punct(&mut l, '#', &format!("`{name}` takes an immediate `#N`"))?;
                imm = p.number(&mut l, "a 64-bit integer")?;
            }
            if !l.at_end() {
                return Err(p.err(line_no, l.col(), "text after the remat hook"));
            }
            if f.remat.iter().any(|(w, _)| w.index() == v.index()) {
                return Err(p.err(line_no, col, format!("{v} has two remat hooks")));
            }
            f.remat.push((v, MachineOp::imm(opcode, imm)));
            continue;
        }
        if let Some(b) = parse_block_name(head) {
            if b.index() != f.insts.len() {
                return Err(p.err(
                    line_no,
                    col,
                    format!(
                        "expected block{} next (blocks are listed in index order), found {head}",
                        f.insts.len()
                    ),
                ));
            }
            let params = if l.peek() == Some(Tok::Punct('(')) {
                p.vreg_list(&mut l)?
            } else {
                SmallVec::new()
            };
            p.expect_punct(&mut l, ':', "after the block header")?;
            if !l.at_end() {
                return Err(p.err(line_no, l.col(), "text after the block header"));
            }
            let at = f.ops.len() as u32;
            f.insts.push(InstRange::new(MInst(at), MInst(at)));
            f.params.push(params);
            f.succs.push(SmallVec::new());
            f.branch_args.push(BranchArgs::default());
            continue;
        }
        // An instruction.
        let Some(block) = f.insts.len().checked_sub(1) else {
            return Err(p.err(line_no, col, "instruction before the first block header"));
        };
        if f.insts[block].end.index() != f.ops.len()
            || f.insts[block].end > f.insts[block].start
                && f.ops[f.ops.len() - 1].opcode.is_terminator()
        {
            return Err(p.err(
                line_no,
                col,
                format!("instruction after the terminator of block{block}"),
            ));
        }
        let (name, suffix) = match head.split_once('.') {
            Some((n, s)) => (n, Some(s)),
            None => (head, None),
        };
        let opcode = Opcode::from_name(name)
            .ok_or_else(|| p.err(line_no, col, format!("unknown opcode `{name}`")))?;
        let suffixes = opcode.suffixes();
        let suffix = match suffix {
            None if suffixes.is_empty() => 0,
            None => {
                return Err(p.err(
                    line_no,
                    col,
                    format!("`{name}` needs a suffix: one of {}", suffixes.join(", ")),
                ))
            }
            Some(s) => match suffixes.iter().position(|x| *x == s) {
                Some(k) => k as u8,
                None if suffixes.is_empty() => {
                    return Err(p.err(line_no, col, format!("`{name}` takes no suffix")))
                }
                None => {
                    return Err(p.err(
                        line_no,
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
            imm = p.callee(&mut l)?;
        } else if opcode.has_imm() {
            p.expect_punct(&mut l, '#', &format!("`{name}` takes an immediate `#N`"))?;
            imm = p.number(&mut l, "a 64-bit integer")?;
        } else if l.peek() == Some(Tok::Punct('#')) {
            return Err(p.err(line_no, l.col(), format!("`{name}` takes no immediate")));
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
                    _ => return Err(p.err(line_no, col, "expected `,` between operands")),
                }
            }
            first = false;
            let (w, wcol) = p.word(&mut l, "an operand, a target or `clobbers`")?;
            if w == "clobbers" {
                p.expect_punct(&mut l, '(', "after `clobbers`")?;
                while l.peek() != Some(Tok::Punct(')')) {
                    if l.at_end() {
                        return Err(p.err(line_no, l.col(), "expected `)` to close `clobbers(`"));
                    }
                    clobbers.insert(p.preg(&mut l, &f.target)?);
                }
                l.next();
                if !l.at_end() {
                    return Err(p.err(line_no, l.col(), "text after the clobbers"));
                }
                break;
            }
            if let Some(t) = parse_block_name(w) {
                if !opcode.is_terminator() || opcode.is_ret() {
                    return Err(p.err(line_no, wcol, format!("`{name}` has no successors")));
                }
                let args = p.vreg_list(&mut l)?;
                targets.push((t, args));
                continue;
            }
            if !targets.is_empty() {
                return Err(p.err(line_no, wcol, "operands come before the targets"));
            }
            operands.push(p.operand(&mut l, w, wcol, &f.target)?);
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

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "function @max target x86-64 {
frame 8/8 16/16
block0:
  args def v0i:fixed(rdi), def v1i:fixed(rsi)
  icmp.sgt def v2i:reg, use v0i:reg, use v1i:any
  add def v5i:reuse(1), use v0i:reg, use@late v1i:limit(8)
  call #3 def@early v6f:fixed(xmm0), use v0i:stack clobbers(rax rcx xmm1)
  call @__multi3 def v7i:fixed(r8)
  br use v2i:reg, block1(v0i), block2(v1i)
block1(v3i):
  ret use v3i:fixed(rax)
block2(v4i):
  jump block1(v4i)
}
";

    #[test]
    fn registers_and_callees_by_name_or_number() {
        let f = &parse_functions(SAMPLE, "t").unwrap()[0];
        // The generic spelling parses to the same function.
        let generic = SAMPLE
            .replace("fixed(rdi)", "fixed(r7)")
            .replace("fixed(rsi)", "fixed(r6)")
            .replace("fixed(xmm0)", "fixed(f0)")
            .replace("rax rcx xmm1", "r0 r1 f1")
            .replace("fixed(rax)", "fixed(r0)")
            .replace("call @__multi3", "call #-4");
        assert_eq!(&parse_functions(&generic, "t").unwrap()[0], f);
        // Module symbols by name with the symbol table, by number without.
        let named = print_function_with_symbols(f, &["a", "b", "c", "max"]);
        assert!(named.contains("call @max def@early"), "{named}");
        let back = parse_functions_with_symbols(&named, "t", &["a", "b", "c", "max"]).unwrap();
        assert_eq!(&back[0], f);
        // aarch64 names: x for integers, v for floats, q for vectors.
        let a64 = "function @g target aarch64 {\nblock0:\n  ret use v0i:fixed(x0), use v1f:fixed(v31), use v2v:fixed(q3)\n}\n";
        let g = &parse_functions(a64, "t").unwrap()[0];
        assert_eq!(print_function(g), a64);
        let o = &g.operands[0];
        assert_eq!(
            o[1].constraint,
            OperandConstraint::FixedReg(PReg::new(RegClass::Float, 31).unwrap())
        );
        assert_eq!(
            reg_name("x86-64", PReg::new(RegClass::Int, 4).unwrap()),
            "rsp"
        );
        assert_eq!(
            reg_name("other", PReg::new(RegClass::Int, 4).unwrap()),
            "r4"
        );
        assert_eq!(parse_target_reg("aarch64", "x31"), None);
        assert_eq!(parse_target_reg("x86-64", "xmm07"), None);
    }

    #[test]
    fn parse_print_round_trip() {
        let fs = parse_functions(SAMPLE, "t").unwrap();
        assert_eq!(fs.len(), 1);
        let printed = print_function(&fs[0]);
        assert_eq!(printed, SAMPLE);
        assert_eq!(parse_functions(&printed, "t").unwrap(), fs);
        let f = &fs[0];
        assert_eq!(f.num_vregs, 8);
        assert_eq!(f.block_preds(MBlock(1)), &[MBlock(0), MBlock(2)]);
        assert_eq!(f.inst_clobbers(MInst(3)).iter().count(), 3);
        assert_eq!(f.ops[4].imm, -4);
        assert_eq!(f.frame_slots, vec![(8, 8), (16, 16)]);
    }

    #[test]
    fn errors_are_located() {
        let cases = [
            ("function @f target x {\nblock0:\n  frob\n}\n", "t:3:3: unknown opcode `frob`"),
            ("function @f target x {\nblock0:\n  ret use v1q:reg\n}\n", "t:3:11: `v1q` is not a virtual register (`v<index><i|f|v>`)"),
            ("function @f target x {\nblock0:\n  ret use v1i:fixed(r99)\n}\n", "t:3:21: `r99` is not a physical register (a name of the target, or `<r|f|v><0..63>`)"),
            ("function @f target x86-64 {\nblock0:\n  call @nosuch\n}\n", "t:3:8: unknown callee `@nosuch` (a library helper, or a symbol of the module)"),
            ("function @f target x {\nblock1:\n", "t:2:1: expected block0 next (blocks are listed in index order), found block1"),
            ("function @f target x {\nblock0:\n  ret\n", "t:4:1: end of input inside a function (missing `}`)"),
            ("function @f target x {\nblock0:\n  jump block7()\n}\n", "t:4:1: block0 branches to block7, which does not exist"),
            ("function @f target x {\nblock0:\n  icmp def v0i:reg\n}\n", "t:3:3: `icmp` needs a suffix: one of eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge"),
            ("function @f target x {\nblock0:\n  movi def v0i:reg\n}\n", "t:3:8: expected `#` `movi` takes an immediate `#N`, found `def`"),
            ("function @f target x {\nblock0:\n  ret\n  ret\n}\n", "t:4:3: instruction after the terminator of block0"),
        ];
        for (text, want) in cases {
            let e = parse_functions(text, "t").unwrap_err();
            assert_eq!(e.to_string(), want, "{text}");
        }
    }
}

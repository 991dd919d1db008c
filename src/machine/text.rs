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

use super::function::{MachineFunction, Opcode};
use super::{MBlock, MachineRead, Operand, OperandConstraint};
use crate::registers::{PReg, RegClass};
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

mod parse;

pub use parse::{parse_functions, parse_functions_with_symbols, ParseError};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::MInst;

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

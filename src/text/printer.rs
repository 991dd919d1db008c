//! Printer of the `.sir` text format: the canonical text of a module or function.
//!
//! Algorithm: one pass over the items in symbol order (so that reparsing recreates the
//! same symbol table), and for each function over its live blocks in index order and each
//! block's instruction list in order. Values print as `vN`, blocks as `blockN`, where `N` is
//! the dense index; constants print from their pool entry: integers as signed decimals of
//! their width (`i1` as `true`/`false`), finite floats with Rust's shortest round-tripping
//! `{:?}`, infinities as `inf`/`-inf`, NaNs as `0x` and the hex bit pattern (8 digits for
//! `f32`, 16 for `f64`). Strings escape `\`, `"` and every byte outside printable ASCII as
//! `\XX`; symbol names are quoted only when they contain other characters than
//! `[A-Za-z0-9_.$-]`.
//!
//! Invariant: the output parses back ([`super::parse_module`]) into a module that prints
//! identically. Operand types that the syntax writes explicitly (call and branch arguments,
//! `gep` indices, `ret`) come from [`IrRead::operand_type`]. The printer never panics on
//! malformed tables: out-of-range instructions print as comments.
//! Complexity: O(size of the module).

use super::lexer::is_symbol_char;
use crate::ir::*;
use std::fmt::Write;

/// Prints a whole module: every item, in symbol order.
pub fn print_module(m: &Module) -> String {
    let table = m.symbol_table();
    let mut out = String::new();
    let mut prev_func = false;
    for (i, s) in m.symbols.iter().enumerate() {
        let is_func = matches!(s.kind, SymbolKind::Function(_));
        if i > 0 && (is_func || prev_func) {
            out.push('\n');
        }
        prev_func = is_func;
        match s.kind {
            SymbolKind::Extern(k) => {
                if let Some(e) = m.externs.get(k as usize) {
                    out.push_str("extern ");
                    out.push_str(&symbol(&s.name));
                    signature(&mut out, &e.signature, None);
                    out.push('\n');
                }
            }
            SymbolKind::Global(k) => {
                if let Some(g) = m.globals.get(k as usize) {
                    global(&mut out, g, &s.name, &table);
                }
            }
            SymbolKind::Function(k) => {
                if let Some(f) = m.functions.get(k as usize) {
                    if f.linkage == Linkage::Internal {
                        out.push_str("internal ");
                    }
                    out.push_str(&print_function(f, &table));
                }
            }
        }
    }
    out
}

fn global(out: &mut String, g: &Global, name: &str, table: &SymbolTable) {
    if g.linkage == Linkage::Internal {
        out.push_str("internal ");
    }
    out.push_str(if g.constant { "const " } else { "global " });
    let _ = write!(out, "{} size {} align {}", symbol(name), g.size, g.align);
    match &g.init {
        None => out.push_str(" external"),
        Some(bytes) if !bytes.is_empty() => {
            out.push_str(" init ");
            out.push_str(&string(bytes));
        }
        Some(_) => {}
    }
    for r in &g.relocations {
        let target = symbol(&table.name(r.symbol));
        let _ = write!(out, " reloc {} ", r.offset);
        match r.kind {
            RelocationKind::Address => out.push_str(&target),
            RelocationKind::BlockAddress(b) => {
                let _ = write!(out, "blockaddress({target}, {b})");
            }
            RelocationKind::Relative { bytes, .. } => {
                let _ = write!(out, "relative i{} {target}", 8 * bytes as u32);
            }
        }
        if r.addend > 0 {
            let _ = write!(out, " + {}", r.addend);
        } else if r.addend < 0 {
            let _ = write!(out, " - {}", r.addend.unsigned_abs());
        }
        if let RelocationKind::Relative { base, .. } = r.kind {
            let _ = write!(out, " from {}", symbol(&table.name(base)));
        }
    }
    out.push('\n');
}

/// `@name`, quoted when needed.
fn symbol(name: &str) -> String {
    if !name.is_empty() && name.chars().all(is_symbol_char) {
        format!("@{name}")
    } else {
        format!("@{}", string(name.as_bytes()))
    }
}

/// A quoted string with `\\`, `\"` and `\XX` escapes.
fn string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:02X}");
            }
        }
    }
    s.push('"');
    s
}

/// `(types...) -> ret`, with value names when `values` is given.
fn signature(out: &mut String, sig: &Signature, values: Option<&[Value]>) {
    out.push('(');
    for (i, t) in sig.params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{t}");
        if let Some(vs) = values {
            let v = vs.get(i).copied().unwrap_or(Value(u32::MAX));
            let _ = write!(out, " {v}");
        }
    }
    if sig.varargs {
        out.push_str(if sig.params.is_empty() {
            "..."
        } else {
            ", ..."
        });
    }
    let _ = write!(out, ") -> {}", sig.ret);
}

/// Prints one function (`func @name(...) -> ty [phase P] { ... }`), without its linkage.
/// Generic over [`IrRead`] so that it serves a [`Function`] and the engine's World view.
pub fn print_function(f: &impl IrRead, symbols: &SymbolTable) -> String {
    let mut out = String::new();
    let _ = write!(out, "func {}", symbol(f.name()));
    signature(&mut out, f.signature(), Some(f.param_values()));
    if f.phase() != Phase::Memory {
        let _ = write!(out, " phase {}", f.phase().name());
    }
    out.push_str(" {\n");
    let p = Printer { f, symbols };
    for b in 0..f.num_blocks() {
        let block = Block::new(b);
        if f.is_block_dead(block) {
            continue;
        }
        let _ = write!(out, "block{b}");
        let params = f.block_params(block);
        if !params.is_empty() {
            out.push('(');
            for (i, v) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{} {v}", p.value_type(*v));
            }
            out.push(')');
        }
        out.push_str(":\n");
        for &i in f.block_insts(block) {
            out.push_str("  ");
            if i.index() < f.num_insts() {
                p.inst(&mut out, f.inst_results(i), f.inst_kind(i));
            } else {
                let _ = write!(out, "; missing {i}");
            }
            out.push('\n');
        }
        out.push_str("  ");
        p.terminator(&mut out, f.terminator(block));
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

struct Printer<'a, F> {
    f: &'a F,
    symbols: &'a SymbolTable,
}

impl<F: IrRead> Printer<'_, F> {
    fn value_type(&self, v: Value) -> Type {
        self.f.values().get(v.index()).map_or(Type::Void, |d| d.ty)
    }

    fn op(&self, op: Operand) -> String {
        let c0 = match op {
            Operand::Value(v) => return v.to_string(),
            Operand::Const(c) => c,
        };
        let c = match op {
            Operand::Value(v) => return v.to_string(),
            Operand::Const(c) => match self.f.consts().try_get(c) {
                Some(c) => c,
                None => return "undef".into(),
            },
        };
        match c.kind {
            ConstKind::Int(bits) => int(c.ty, bits),
            ConstKind::Float(bits) => float(c.ty, bits),
            ConstKind::Null => "null".into(),
            ConstKind::Undef => "undef".into(),
            ConstKind::SymbolAddr(s) => symbol(&self.symbols.name(s)),
            ConstKind::BlockAddr(b) => format!("blockaddress({b})"),
            ConstKind::Aggregate(_) => {
                let members = self.f.consts().members(c0).unwrap_or(&[]);
                let inner: Vec<String> = members
                    .iter()
                    .map(|&m| self.typed(Operand::Const(m)))
                    .collect();
                if c.ty.is_vector() {
                    return format!("<{}>", inner.join(", "));
                }
                match c.ty.agg_info().map(|i| &i.shape) {
                    Some(AggShape::Array { .. }) => format!("[{}]", inner.join(", ")),
                    Some(AggShape::Struct { packed: true, .. }) => {
                        format!("<{{ {} }}>", inner.join(", "))
                    }
                    _ if inner.is_empty() => "{}".into(),
                    _ => format!("{{ {} }}", inner.join(", ")),
                }
            }
        }
    }

    /// `TY op`.
    fn typed(&self, op: Operand) -> String {
        format!("{} {}", self.f.operand_type(op), self.op(op))
    }

    fn list(&self, ops: impl IntoIterator<Item = Operand>) -> String {
        let v: Vec<String> = ops.into_iter().map(|o| self.typed(o)).collect();
        format!("({})", v.join(", "))
    }

    fn target(&self, t: &Target) -> String {
        if t.args.is_empty() {
            t.block.to_string()
        } else {
            format!("{}{}", t.block, self.list(t.args.iter().copied()))
        }
    }

    fn inst(&self, out: &mut String, results: &[Value], kind: &InstKind) {
        if !results.is_empty() {
            let names: Vec<String> = results.iter().map(|v| v.to_string()).collect();
            let _ = write!(out, "{} = ", names.join(", "));
        }
        let o = |x: &Operand| self.op(*x);
        let vol = |v: &bool| if *v { ", volatile" } else { "" };
        let _ = match kind {
            InstKind::Binary { op, ty, lhs, rhs } => {
                write!(out, "{op} {ty} {}, {}", o(lhs), o(rhs))
            }
            InstKind::Unary { op, ty, arg } => write!(out, "{op} {ty} {}", o(arg)),
            InstKind::Icmp { pred, ty, lhs, rhs } => {
                write!(out, "icmp {pred} {ty} {}, {}", o(lhs), o(rhs))
            }
            InstKind::Fcmp { pred, ty, lhs, rhs } => {
                write!(out, "fcmp {pred} {ty} {}, {}", o(lhs), o(rhs))
            }
            InstKind::Cast { op, from, to, arg } => write!(out, "{op} {from} {} to {to}", o(arg)),
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                write!(
                    out,
                    "select {ty} {}, {}, {}",
                    o(cond),
                    o(if_true),
                    o(if_false)
                )
            }
            InstKind::Alloca {
                ty,
                size,
                align,
                volatile,
            } => {
                write!(
                    out,
                    "alloca {ty}, size {size}, align {align}{}",
                    vol(volatile)
                )
            }
            InstKind::DynAlloca {
                ty,
                count,
                elem_size,
                align,
            } => write!(
                out,
                "dyn_alloca {ty}, {} {}, elem {elem_size}, align {align}",
                self.f.operand_type(*count),
                o(count)
            ),
            InstKind::Load { ty, ptr, volatile } => {
                write!(out, "load {ty}, {}{}", o(ptr), vol(volatile))
            }
            InstKind::ExtractValue { ty, agg, index } => {
                write!(out, "extractvalue {ty} {}, {index}", o(agg))
            }
            InstKind::InsertValue {
                ty,
                agg,
                value,
                index,
            } => write!(
                out,
                "insertvalue {ty} {}, {}, {index}",
                o(agg),
                self.typed(*value)
            ),
            InstKind::ExtractElement { ty, vec, index } => {
                write!(
                    out,
                    "extractelement {ty} {}, {}",
                    o(vec),
                    self.typed(*index)
                )
            }
            InstKind::InsertElement {
                ty,
                vec,
                value,
                index,
            } => write!(
                out,
                "insertelement {ty} {}, {}, {}",
                o(vec),
                self.typed(*value),
                self.typed(*index)
            ),
            InstKind::ShuffleVector { ty, a, b, mask, .. } => write!(
                out,
                "shufflevector {ty} {}, {}, {}",
                o(a),
                o(b),
                self.typed(Operand::Const(*mask))
            ),
            InstKind::Store {
                ty,
                value,
                ptr,
                volatile,
            } => {
                write!(out, "store {ty} {}, {}{}", o(value), o(ptr), vol(volatile))
            }
            InstKind::Gep {
                base,
                offset,
                indices,
            } => {
                let _ = write!(out, "gep {}, {offset}", o(base));
                for (i, scale) in indices {
                    let _ = write!(out, ", {} * {scale}", self.typed(*i));
                }
                Ok(())
            }
            InstKind::Call {
                ret,
                callee,
                args,
                fixed_args,
            } => {
                let callee = match callee {
                    Callee::Direct(s) => symbol(&self.symbols.name(*s)),
                    Callee::Indirect(p) => o(p),
                };
                let _ = write!(
                    out,
                    "call {ret} {callee}{}",
                    self.list(args.iter().copied())
                );
                match fixed_args {
                    Some(n) => write!(out, " fixed {n}"),
                    None => Ok(()),
                }
            }
            InstKind::InlineAsm(asm) => {
                self.asm(out, asm);
                Ok(())
            }
            InstKind::AtomicRmw {
                op,
                ty,
                ptr,
                value,
                ordering,
                volatile,
            } => {
                write!(
                    out,
                    "atomicrmw {op} {ty} {}, {}, {ordering}{}",
                    o(ptr),
                    o(value),
                    vol(volatile)
                )
            }
            InstKind::CmpXchg {
                ty,
                ptr,
                expected,
                new,
                success,
                failure,
                weak,
                volatile,
            } => write!(
                out,
                "cmpxchg {ty} {}, {}, {}, {success}, {failure}{}{}",
                o(ptr),
                o(expected),
                o(new),
                if *weak { ", weak" } else { "" },
                vol(volatile)
            ),
            InstKind::Fence { ordering } => write!(out, "fence {ordering}"),
            InstKind::Phi { ty, incoming } => {
                let _ = write!(out, "phi {ty}");
                for (i, (b, v)) in incoming.iter().enumerate() {
                    let _ = write!(out, "{} [{b}: {}]", if i > 0 { "," } else { "" }, o(v));
                }
                Ok(())
            }
            InstKind::Copy { ty, src } => write!(out, "copy {ty} {}", o(src)),
            InstKind::Opaque(op) => write!(
                out,
                "opaque {} {} {} {}",
                string(op.name.as_bytes()),
                op.ty,
                self.list(op.args.iter().copied()),
                string(op.payload.as_bytes())
            ),
        };
    }

    fn asm(&self, out: &mut String, asm: &InlineAsm) {
        out.push_str("asm ");
        if asm.side_effects {
            out.push_str("volatile ");
        }
        out.push_str(&string(asm.template.as_bytes()));
        if !asm.outputs.is_empty() {
            let items: Vec<String> = asm
                .outputs
                .iter()
                .map(|x| {
                    let c = string(format!("={}", x.constraint).as_bytes());
                    match x.place {
                        AsmOutputPlace::Result => format!("{c} {} result", x.ty),
                        AsmOutputPlace::Pointer(p) => format!("{c} {} ptr {}", x.ty, self.op(p)),
                    }
                })
                .collect();
            let _ = write!(out, " out({})", items.join(", "));
        }
        if !asm.inputs.is_empty() {
            let items: Vec<String> = asm
                .inputs
                .iter()
                .map(|i| {
                    format!(
                        "{} {}",
                        string(i.constraint.as_bytes()),
                        self.typed(i.value)
                    )
                })
                .collect();
            let _ = write!(out, " in({})", items.join(", "));
        }
        if !asm.clobbers.is_empty() {
            let items: Vec<String> = asm.clobbers.iter().map(|c| string(c.as_bytes())).collect();
            let _ = write!(out, " clobber({})", items.join(", "));
        }
        if !asm.goto_labels.is_empty() {
            let items: Vec<String> = asm.goto_labels.iter().map(|b| b.to_string()).collect();
            let _ = write!(out, " goto({})", items.join(", "));
        }
    }

    fn terminator(&self, out: &mut String, t: &Terminator) {
        let _ = match t {
            Terminator::Jump(t) => write!(out, "jump {}", self.target(t)),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => write!(
                out,
                "br {}, {}, {}",
                self.op(*cond),
                self.target(then_dest),
                self.target(else_dest)
            ),
            Terminator::Switch {
                ty,
                value,
                default,
                cases,
            } => {
                let items: Vec<String> = cases
                    .iter()
                    .map(|(c, t)| format!("{}: {}", signed(*ty, *c), self.target(t)))
                    .collect();
                write!(
                    out,
                    "switch {ty} {}, {} [{}]",
                    self.op(*value),
                    self.target(default),
                    items.join(", ")
                )
            }
            Terminator::IndirectBr { addr, dests } => {
                let items: Vec<String> = dests.iter().map(|b| b.to_string()).collect();
                write!(
                    out,
                    "indirect_br {}, [{}]",
                    self.op(*addr),
                    items.join(", ")
                )
            }
            Terminator::Ret(None) => write!(out, "ret"),
            Terminator::Ret(Some(v)) => write!(out, "ret {}", self.typed(*v)),
            Terminator::Unreachable => write!(out, "unreachable"),
        };
    }
}

/// Signed decimal of `bits` read as an integer of `ty`'s width.
fn signed(ty: Type, bits: u128) -> String {
    let w = ty.bits();
    if w == 0 || w >= 128 {
        return (bits as i128).to_string();
    }
    let shift = 128 - w;
    (((bits << shift) as i128) >> shift).to_string()
}

fn int(ty: Type, bits: u128) -> String {
    if ty == Type::I1 {
        return if bits & 1 == 1 { "true" } else { "false" }.into();
    }
    signed(ty, bits)
}

fn float(ty: Type, bits: u128) -> String {
    if ty == Type::F80 {
        if crate::ir::fp80::is_nan(bits) {
            format!("0x{bits:020X}")
        } else {
            crate::ir::fp80::display(bits)
        }
    } else if ty == Type::F32 {
        let x = f32::from_bits(bits as u32);
        if x.is_nan() {
            format!("0x{:08X}", bits as u32)
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.into()
        } else {
            format!("{x:?}")
        }
    } else {
        let bits = bits as u64;
        let x = f64::from_bits(bits);
        if x.is_nan() {
            format!("0x{bits:016X}")
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.into()
        } else {
            format!("{x:?}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_symbols() {
        assert_eq!(string(b"a\"\\\n\x7f~ "), r#""a\"\\\0A\7F~ ""#);
        assert_eq!(symbol("printf"), "@printf");
        assert_eq!(symbol("a.b$-c_1"), "@a.b$-c_1");
        assert_eq!(symbol("odd name"), "@\"odd name\"");
        assert_eq!(symbol(""), "@\"\"");
    }

    #[test]
    fn integers_print_signed() {
        assert_eq!(int(Type::I8, 0xff), "-1");
        assert_eq!(int(Type::I1, 1), "true");
        assert_eq!(int(Type::I32, 0x7fff_ffff), "2147483647");
        assert_eq!(int(Type::I128, 1 << 127), i128::MIN.to_string());
        assert_eq!(int(Type::Ptr, u64::MAX as u128), "-1");
        assert_eq!(signed(Type::I16, 0x8000), "-32768");
    }

    #[test]
    fn floats_print_exactly() {
        assert_eq!(float(Type::F64, 1.0f64.to_bits() as u128), "1.0");
        assert_eq!(
            float(Type::F64, f64::NEG_INFINITY.to_bits() as u128),
            "-inf"
        );
        assert_eq!(float(Type::F32, f32::NAN.to_bits() as u128), "0x7FC00000");
        assert_eq!(float(Type::F32, 0.1f32.to_bits() as u128), "0.1");
        assert_eq!(
            float(Type::F64, 0x7FF8_0000_0000_0000),
            "0x7FF8000000000000"
        );
    }
}

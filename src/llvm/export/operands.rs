//! Export of operands: constants (scalars, floats in LLVM's hex forms, aggregates, vectors,
//! symbol addresses), values, and the typed-pointer conversions LLVM 14's typed pointers
//! need where our untyped `ptr` meets an LLVM pointer type (`bitcast`s of pointers and of
//! aggregates that hold them, member by member).
//! Complexity: linear in the operand's constant tree (members of aggregates and lanes).

use super::*;

impl<'a> Printer<'a> {
    pub(super) fn konst(&self, c: ConstData) -> String {
        match c.kind {
            ConstKind::Int(bits) => match c.ty {
                Type::I1 => if bits & 1 == 1 { "true" } else { "false" }.to_string(),
                Type::I128 => (bits as i128).to_string(),
                Type::Ptr => {
                    if bits == 0 {
                        "null".into()
                    } else {
                        format!("inttoptr (i64 {} to i8*)", bits as u64 as i64)
                    }
                }
                Type::F80 => format!("0xK{:020X}", bits & Type::F80.mask()),
                t if t.is_float() => format!(
                    "0x{:016X}",
                    if t == Type::F32 {
                        f32_bits_to_f64_bits(bits as u32)
                    } else {
                        bits as u64
                    }
                ),
                t => {
                    let w = t.bits();
                    let v = bits & t.mask();
                    let signed = if w > 0 && w < 128 && (v >> (w - 1)) & 1 == 1 {
                        v as i128 - (1i128 << w)
                    } else {
                        v as i128
                    };
                    signed.to_string()
                }
            },
            ConstKind::Float(bits) => match c.ty {
                Type::F32 => format!("0x{:016X}", f32_bits_to_f64_bits(bits as u32)),
                Type::F64 => format!("0x{bits:016X}"),
                Type::F80 => format!("0xK{bits:020X}"),
                _ => "undef".into(),
            },
            ConstKind::Null => match c.ty {
                Type::Ptr => "null".into(),
                Type::F32 | Type::F64 => "0x0000000000000000".into(),
                Type::F80 => "0xK00000000000000000000".into(),
                Type::I1 => "false".into(),
                _ => "0".into(),
            },
            ConstKind::Undef => "undef".into(),
            ConstKind::SymbolAddr(s) => {
                let t = self.symbol_type(s);
                let name = ident('@', sym_name(self.m, s));
                if t == LType::i8_ptr() {
                    name
                } else {
                    format!("bitcast ({t} {name} to i8*)")
                }
            }
            ConstKind::BlockAddr(b) => {
                format!("blockaddress({}, %b{})", ident('@', &self.f.name), b.0)
            }
            // Aggregates are written by `op`, which has the pool handle.
            ConstKind::Aggregate(_) => "zeroinitializer".into(),
        }
    }

    pub(super) fn op(&self, o: Operand) -> String {
        match o {
            Operand::Value(v) => self.val(v),
            Operand::Const(c) => match self.f.consts.try_get(c) {
                Some(ConstData {
                    kind: ConstKind::Aggregate(_),
                    ty: t,
                }) => {
                    let members = self.f.consts.members(c).unwrap_or(&[]);
                    let inner: Vec<String> = members
                        .iter()
                        .map(|&m| self.typed(Operand::Const(m)))
                        .collect();
                    match t.agg_info().map(|i| &i.shape) {
                        None if t.is_vector() => format!("<{}>", inner.join(", ")),
                        Some(AggShape::Array { .. }) => format!("[{}]", inner.join(", ")),
                        Some(AggShape::Struct { packed: true, .. }) => {
                            format!("<{{ {} }}>", inner.join(", "))
                        }
                        _ if inner.is_empty() => "zeroinitializer".into(),
                        _ => format!("{{ {} }}", inner.join(", ")),
                    }
                }
                Some(d) => self.konst(d),
                None => "undef".into(),
            },
        }
    }

    pub(super) fn typed(&self, o: Operand) -> String {
        format!("{} {}", ty(self.op_type(o)), self.op(o))
    }

    /// `o` (an `i8*`) as a value of pointer type `target`, inserting a bitcast if needed.
    pub(super) fn typed_ptr(&mut self, o: Operand, target: &LType) -> String {
        if *target == LType::i8_ptr() || !target.is_ptr() {
            return self.op(o);
        }
        if let Operand::Const(c) = o {
            if let Some(d) = self.f.consts.try_get(c) {
                match d.kind {
                    ConstKind::SymbolAddr(s) => {
                        let st = self.symbol_type(s);
                        let name = ident('@', sym_name(self.m, s));
                        return if st == *target {
                            name
                        } else {
                            format!("bitcast ({st} {name} to {target})")
                        };
                    }
                    ConstKind::Null => return "null".into(),
                    ConstKind::Undef => return "undef".into(),
                    _ => return format!("bitcast (i8* {} to {target})", self.konst(d)),
                }
            }
        }
        let t = self.t();
        let _ = writeln!(self.out, "  {t} = bitcast i8* {} to {target}", self.op(o));
        t
    }

    /// Lines converting the aggregate `src` of LLVM type `from` into LLVM type `to`, the same
    /// shape with pointer members that differ only in pointee type (typed pointers: the IR's
    /// `{ i8*, i8* }` against a header's `{ %struct.inst*, %struct.inst* }`), member by
    /// member (`extractvalue`, `bitcast`, `insertvalue`). Returns the lines and the converted
    /// value's text (`dest` if given and a conversion was needed, else a temporary); equal
    /// types give no line and `src`. Other mismatches are left as they are.
    pub(super) fn convert_aggregate(
        &mut self,
        src: String,
        from: &LType,
        to: &LType,
        dest: Option<&str>,
    ) -> (Vec<String>, String) {
        let mut lines = Vec::new();
        let out = self.convert_into(&mut lines, src, from, to, dest);
        (lines, out)
    }

    pub(super) fn convert_into(
        &mut self,
        lines: &mut Vec<String>,
        src: String,
        from: &LType,
        to: &LType,
        dest: Option<&str>,
    ) -> String {
        if from == to {
            return src;
        }
        let name = |p: &mut Self| dest.map_or_else(|| p.t(), str::to_string);
        if from.is_ptr() && to.is_ptr() {
            let t = name(self);
            lines.push(format!("{t} = bitcast {from} {src} to {to}"));
            return t;
        }
        // Named structs (a header's `%struct.S`) are taken apart through their bodies.
        let layouts = &self.ctx.layouts;
        let members: Vec<(LType, LType)> = match (
            layouts.struct_fields(from),
            layouts.struct_fields(to),
            from,
            to,
        ) {
            (Some((a, _)), Some((b, _)), _, _) if a.len() == b.len() => {
                a.iter().cloned().zip(b.iter().cloned()).collect()
            }
            (_, _, LType::Array(n, a), LType::Array(m, b)) if n == m => {
                (0..*n).map(|_| ((**a).clone(), (**b).clone())).collect()
            }
            _ => return src,
        };
        let mut acc = "undef".to_string();
        let last = members.len().saturating_sub(1);
        for (i, (a, b)) in members.iter().enumerate() {
            let m = self.t();
            lines.push(format!("{m} = extractvalue {from} {src}, {i}"));
            let c = self.convert_into(lines, m, a, b, None);
            let n = if i == last { name(self) } else { self.t() };
            lines.push(format!("{n} = insertvalue {to} {acc}, {b} {c}, {i}"));
            acc = n;
        }
        if members.is_empty() {
            return src;
        }
        acc
    }
}

//! Constant evaluation shared by function and global import: float literal conversion,
//! GEP offset folding and global initialisers as bytes plus relocations.
//!
//! Float literals: LLVM writes `double` constants as decimal or as `0x` + 16 hex digits of
//! the IEEE bits, and `float` constants in the same double format (the value widened to
//! `f64`, exactly representable); [`float_bits`] narrows them (NaN payloads shift by 29
//! bits, matching LLVM). GEP folding ([`gep_fold`]) walks the source element type: the first
//! index scales by the element's allocation size, struct indices (constant) add field
//! offsets, array and vector indices scale by their element size; constant indices are
//! sign-extended from their width and folded into one wrapping `i64` offset.
//!
//! Global initialisers ([`InitBuf`]) are written sparsely: zero bytes are never stored (the
//! IR treats a short `init` as zero-filled), so `zeroinitializer` of a huge array costs
//! nothing, and no initialiser may grow the buffer beyond [`MAX_INIT_BYTES`].

use super::layout::{LType, LayoutError, Layouts};
use super::parse::Val;
use crate::ir::{Relocation, RelocationKind, Symbol, Type};

/// Largest initialiser image we build, in bytes.
pub const MAX_INIT_BYTES: u64 = 1 << 26;

/// Sign-extends the low `bits` bits of `v` to `i64` (`bits >= 64` truncates).
pub fn sext(v: u128, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        return v as u64 as i64;
    }
    let shift = 64 - bits;
    ((v as u64) << shift) as i64 >> shift
}

/// The integer value of a constant index (`None` if it is not a constant integer).
pub fn const_int(ty: &LType, v: &Val) -> Option<i64> {
    let bits = match ty {
        LType::Int(n) => *n,
        _ => return None,
    };
    match v {
        Val::Int(x) => Some(sext(*x, bits)),
        Val::Bool(b) => Some(if *b { sext(1, bits) } else { 0 }),
        Val::Zero | Val::Null => Some(0),
        _ => None,
    }
}

/// Why a constant (a float literal, a folded `getelementptr`, a global initialiser) could not
/// be evaluated. Constants carry no position of their own: the importer wraps the error in a
/// `parse::PErr` at the constant's line and column, malformed or unsupported as
/// [`ConstError::is_unsupported`] says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConstError {
    /// A type involved has no layout.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// Hex float digits that do not parse (`prefix` is `"K"` for `x86_fp80`, else empty).
    #[error("invalid hex float 0x{prefix}{digits}")]
    InvalidHexFloat {
        /// The letter after `0x`, if any.
        prefix: &'static str,
        /// The digits as written.
        digits: String,
    },
    /// An `0xK` literal without exactly 20 hex digits.
    #[error("x86_fp80 literal 0xK{0} does not have 20 hex digits")]
    Fp80Digits(String),
    /// An `0xK` literal for a type other than `x86_fp80`.
    #[error("x86_fp80 literal 0xK{digits} for {ty}")]
    Fp80For {
        /// The digits as written.
        digits: String,
        /// The literal's type.
        ty: Type,
    },
    /// An `0xH` (half) literal for `float` or `double`.
    #[error("half literal 0xH{digits} for {ty}")]
    HalfFor {
        /// The digits as written.
        digits: String,
        /// The literal's type.
        ty: Type,
    },
    /// A hex float form strata does not convert (`0xL`, `0xM`, `0xR`, ...).
    #[error("unsupported float literal 0x{prefix}{digits}")]
    UnsupportedFloat {
        /// The letter after `0x`.
        prefix: char,
        /// The digits as written.
        digits: String,
    },
    /// Something other than a float literal where one is expected.
    #[error("expected a float literal")]
    ExpectedFloat,
    /// A float literal of a non-float type.
    #[error("float literal for non-float type {0}")]
    NonFloat(Type),
    /// A struct index in `getelementptr` that is not a constant.
    #[error("a struct index in getelementptr must be a constant")]
    DynamicStructIndex,
    /// A struct index past the struct's last field.
    #[error("struct index {index} out of range for {ty}")]
    StructIndex {
        /// The index as written.
        index: i64,
        /// The struct type.
        ty: LType,
    },
    /// A `getelementptr` index into a type that has no elements.
    #[error("getelementptr cannot index into {0}")]
    NotIndexable(LType),
    /// An initialiser offset that does not fit `u64`.
    #[error("initializer offset overflows")]
    OffsetOverflow,
    /// An initialiser image beyond [`MAX_INIT_BYTES`].
    #[error("initializer larger than {MAX_INIT_BYTES} bytes is not supported")]
    TooLarge,
    /// `@name` that names no global or function.
    #[error("undefined symbol @{0}")]
    UndefinedSymbol(String),
    /// A constant `getelementptr` with a non-constant index.
    #[error("non-constant getelementptr index in a constant is not supported")]
    DynamicGepIndex,
    /// `inttoptr` of something other than an integer literal in an initialiser.
    #[error("inttoptr of a non-literal in an initializer is not supported")]
    IntToPtr,
    /// A constant expression strata does not evaluate (its keyword).
    #[error("constant expression `{0}` is not supported")]
    Expr(String),
    /// A constant `icmp` where a pointer is expected.
    #[error("constant expression `icmp` in a pointer initializer")]
    IcmpPointer,
    /// `blockaddress` in an initialiser.
    #[error("blockaddress in an initializer is not supported")]
    BlockAddress,
    /// Something other than a pointer constant where one is expected.
    #[error("expected a pointer constant")]
    ExpectedPointer,
    /// A `c"..."` string whose length does not match its array type.
    #[error("string of {len} bytes initializes {ty}")]
    StringLength {
        /// Bytes in the string.
        len: usize,
        /// The initialised type.
        ty: LType,
    },
    /// An integer initialiser that is not a literal or `ptrtoint` of a pointer.
    #[error("unsupported integer initializer for {0}")]
    IntInit(LType),
    /// A `half`, `bfloat` or `fp128` initialiser that is not a hex literal.
    #[error("unsupported {0} initializer")]
    FloatInit(LType),
    /// An array, vector or struct type initialised by a non-aggregate.
    #[error("expected an aggregate for {0}")]
    ExpectedAggregate(LType),
    /// Array or vector elements whose count or types do not match.
    #[error("initializer elements do not match {0}")]
    Elements(LType),
    /// Struct fields whose types do not match.
    #[error("initializer fields do not match {0}")]
    Fields(LType),
    /// A struct initialiser with the wrong number of fields.
    #[error("initializer has {len} fields for {ty}")]
    FieldCount {
        /// Fields written.
        len: usize,
        /// The struct type.
        ty: LType,
    },
    /// An initialiser of a type strata does not lay out in memory.
    #[error("unsupported initializer type {0}")]
    InitType(LType),
}

impl ConstError {
    /// True if the error is about valid LLVM that strata does not evaluate (the function or
    /// global may be skipped), false if the input is malformed.
    pub fn is_unsupported(&self) -> bool {
        use ConstError::*;
        matches!(
            self,
            UnsupportedFloat { .. }
                | TooLarge
                | DynamicGepIndex
                | IntToPtr
                | Expr(_)
                | BlockAddress
                | IntInit(_)
                | FloatInit(_)
                | InitType(_)
        )
    }
}

/// Float bits for a literal of scalar type `ty` (`F32` bits in the low 32, `F80` in the low
/// 80). An `x86_fp80` literal is `0xK` + 20 hex digits of its bits, or a `double` literal
/// (decimal or `0x` + 16 digits), converted exactly as LLVM's parser does.
pub fn float_bits(ty: Type, v: &Val) -> Result<u128, ConstError> {
    if let Val::Hex('K', digits) = v {
        return match ty {
            Type::F80 if digits.len() == 20 => {
                u128::from_str_radix(digits, 16).map_err(|_| ConstError::InvalidHexFloat {
                    prefix: "K",
                    digits: digits.to_string(),
                })
            }
            Type::F80 => Err(ConstError::Fp80Digits(digits.to_string())),
            _ => Err(ConstError::Fp80For {
                digits: digits.to_string(),
                ty,
            }),
        };
    }
    let dbits = match v {
        Val::Dec(x) => x.to_bits(),
        Val::Hex('x', digits) if !digits.is_empty() && digits.len() <= 16 => {
            u64::from_str_radix(digits, 16).map_err(|_| ConstError::InvalidHexFloat {
                prefix: "",
                digits: digits.to_string(),
            })?
        }
        Val::Hex('H', digits) if ty == Type::F32 || ty == Type::F64 => {
            return Err(ConstError::HalfFor {
                digits: digits.to_string(),
                ty,
            });
        }
        Val::Hex(c, d) => {
            return Err(ConstError::UnsupportedFloat {
                prefix: *c,
                digits: d.to_string(),
            })
        }
        _ => return Err(ConstError::ExpectedFloat),
    };
    Ok(match ty {
        Type::F64 => dbits as u128,
        Type::F32 => f64_bits_to_f32_bits(dbits) as u128,
        Type::F80 => crate::ir::fp80::from_f64(f64::from_bits(dbits)),
        _ => return Err(ConstError::NonFloat(ty)),
    })
}

/// Narrows `f64` bits to `f32` bits (exact for values LLVM prints; NaN keeps its payload).
pub fn f64_bits_to_f32_bits(b: u64) -> u32 {
    let x = f64::from_bits(b);
    if x.is_nan() {
        let sign = ((b >> 63) as u32) << 31;
        let mant = ((b >> 29) & 0x7F_FFFF) as u32;
        sign | 0x7F80_0000 | if mant == 0 { 0x40_0000 } else { mant }
    } else {
        (x as f32).to_bits()
    }
}

/// Widens `f32` bits to the `f64` bits LLVM prints for a float constant.
pub fn f32_bits_to_f64_bits(b: u32) -> u64 {
    let x = f32::from_bits(b);
    if x.is_nan() {
        let sign = ((b >> 31) as u64) << 63;
        sign | (0x7FFu64 << 52) | (((b & 0x7F_FFFF) as u64) << 29)
    } else {
        (x as f64).to_bits()
    }
}

/// One GEP index after folding: constant (already in the offset) or dynamic with a scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GepIdx {
    /// Folded into the constant offset.
    Folded,
    /// A dynamic index multiplied by this scale (bytes).
    Scaled(i64),
}

/// Folds a GEP over `src` with indices described by `consts[i]` (`Some(c)` for a constant
/// index). Returns the constant byte offset and, per index, whether it was folded.
pub fn gep_fold(
    layouts: &Layouts,
    src: &LType,
    consts: &[Option<i64>],
) -> Result<(i64, Vec<GepIdx>), ConstError> {
    let mut offset = 0i64;
    let mut out = Vec::with_capacity(consts.len());
    let mut cur: &LType = src;
    for (i, c) in consts.iter().enumerate() {
        let scale: i64;
        if i == 0 {
            scale = layouts.size_align(cur)?.0 as i64;
        } else if let Some((fields, packed)) = layouts.struct_fields(cur) {
            let k = c.ok_or(ConstError::DynamicStructIndex)?;
            let out_of_range = || ConstError::StructIndex {
                index: k,
                ty: cur.clone(),
            };
            if k < 0 || k as usize >= fields.len() {
                return Err(out_of_range());
            }
            let field_off = match cur {
                LType::Named(n) => layouts
                    .named_offset(n, k as usize)?
                    .ok_or_else(out_of_range)?,
                _ => layouts.struct_layout(fields, packed)?.offsets[k as usize],
            };
            offset = offset.wrapping_add(field_off as i64);
            out.push(GepIdx::Folded);
            cur = &fields[k as usize];
            continue;
        } else {
            match cur {
                LType::Array(_, e) | LType::Vector(_, e) => {
                    scale = layouts.size_align(e)?.0 as i64;
                    cur = e;
                }
                other => return Err(ConstError::NotIndexable(other.clone())),
            }
        }
        match c {
            Some(k) => {
                offset = offset.wrapping_add(k.wrapping_mul(scale));
                out.push(GepIdx::Folded);
            }
            None => out.push(if scale == 0 {
                GepIdx::Folded
            } else {
                GepIdx::Scaled(scale)
            }),
        }
    }
    Ok((offset, out))
}

/// A global's initial image being built: sparse bytes plus relocations.
#[derive(Default, Debug)]
pub struct InitBuf {
    /// Bytes written so far (zeros are implicit beyond the end).
    pub bytes: Vec<u8>,
    /// Pointers stored in the image.
    pub relocs: Vec<Relocation>,
    /// `blockaddress(@function, %label)` pointers, as (offset, function, label): a block's
    /// number is known only once its function is lowered, so the importer resolves these
    /// into [`RelocationKind::BlockAddress`] relocations afterwards.
    pub block_addresses: Vec<(u64, String, String)>,
}

impl InitBuf {
    fn write(&mut self, off: u64, data: &[u8]) -> Result<(), ConstError> {
        let Some(last) = data.iter().rposition(|&b| b != 0) else {
            return Ok(());
        };
        let end = off
            .checked_add(last as u64 + 1)
            .ok_or(ConstError::OffsetOverflow)?;
        if end > MAX_INIT_BYTES {
            return Err(ConstError::TooLarge);
        }
        if self.bytes.len() < end as usize {
            self.bytes.resize(end as usize, 0);
        }
        self.bytes[off as usize..end as usize].copy_from_slice(&data[..=last]);
        Ok(())
    }
}

/// Resolves a constant pointer expression to `(symbol, addend)`; `Ok(None)` for null.
pub fn const_ptr(
    layouts: &Layouts,
    syms: &super::hash::FastMap<String, Symbol>,
    v: &Val,
) -> Result<Option<(Symbol, i64)>, ConstError> {
    match v {
        Val::Null | Val::Zero | Val::Undef | Val::Poison => Ok(None),
        Val::Global(n, _) => syms
            .get(n.as_ref())
            .map(|&s| Some((s, 0)))
            .ok_or_else(|| ConstError::UndefinedSymbol(n.to_string())),
        Val::Cast(crate::ir::CastOp::Bitcast, inner, _) => const_ptr(layouts, syms, &inner.1),
        Val::Gep(src, base, idx) => {
            let consts: Vec<Option<i64>> = idx.iter().map(|(t, v)| const_int(t, v)).collect();
            if consts.iter().any(|c| c.is_none()) {
                return Err(ConstError::DynamicGepIndex);
            }
            let (off, _) = gep_fold(layouts, src, &consts)?;
            Ok(const_ptr(layouts, syms, &base.1)?.map(|(s, a)| (s, a.wrapping_add(off))))
        }
        Val::Cast(crate::ir::CastOp::IntToPtr, inner, _) => match &inner.1 {
            Val::Int(0) | Val::Zero => Ok(None),
            _ => Err(ConstError::IntToPtr),
        },
        Val::OtherExpr(w, _) => Err(ConstError::Expr(w.to_string())),
        Val::Icmp(..) => Err(ConstError::IcmpPointer),
        Val::BlockAddr(..) => Err(ConstError::BlockAddress),
        _ => Err(ConstError::ExpectedPointer),
    }
}

/// The relocation (at offset 0) of an integer initialiser of `bits` bits that is a
/// difference of two addresses: `sub (i64 ptrtoint (P), i64 ptrtoint (Q))`, at `i64` or
/// under a `trunc` to a whole number of bytes (the entries of the relative lookup tables
/// clang `-O2` builds). `Ok(None)` if `v` has another shape.
fn relative_entry(
    layouts: &Layouts,
    syms: &super::hash::FastMap<String, Symbol>,
    bits: u32,
    v: &Val,
) -> Result<Option<Relocation>, ConstError> {
    let difference = match v {
        Val::Cast(crate::ir::CastOp::Trunc, inner, _) if inner.0 == LType::Int(64) => &inner.1,
        other if bits == 64 => other,
        _ => return Ok(None),
    };
    if !bits.is_multiple_of(8) || bits > 64 {
        return Ok(None);
    }
    let Val::Binary(crate::ir::BinaryOp::Sub, _, a, b) = difference else {
        return Ok(None);
    };
    let address = |x: &Val| -> Result<Option<(Symbol, i64)>, ConstError> {
        match x {
            Val::Cast(crate::ir::CastOp::PtrToInt, p, _) => const_ptr(layouts, syms, &p.1),
            _ => Ok(None),
        }
    };
    let (Some((target, a_off)), Some((base, b_off))) = (address(&a.1)?, address(&b.1)?) else {
        return Ok(None);
    };
    Ok(Some(Relocation {
        offset: 0,
        symbol: target,
        addend: a_off.wrapping_sub(b_off),
        kind: RelocationKind::Relative {
            base,
            bytes: (bits / 8) as u8,
        },
    }))
}

/// Writes the pointer constant `v` at byte offset `off` of `out`: a relocation to a symbol,
/// a pending `blockaddress`, the bits of `inttoptr` of a literal, or nothing for null.
fn pointer_init(
    layouts: &Layouts,
    syms: &super::hash::FastMap<String, Symbol>,
    v: &Val,
    off: u64,
    out: &mut InitBuf,
) -> Result<(), ConstError> {
    let mut peeled = v;
    while let Val::Cast(crate::ir::CastOp::Bitcast, inner, _) = peeled {
        peeled = &inner.1;
    }
    if let Val::BlockAddr(function, label) = peeled {
        out.block_addresses
            .push((off, function.to_string(), label.to_string()));
        return Ok(());
    }
    // `inttoptr (iN C to T*)`: a pointer whose bits are the integer (sqlite's
    // `SQLITE_INT_TO_PTR` user data), stored as plain bytes.
    if let Val::Cast(crate::ir::CastOp::IntToPtr, inner, _) = peeled {
        if let (LType::Int(bits), Val::Int(x)) = (&inner.0, &inner.1) {
            // Zero-extended (or truncated) to the 64-bit pointer, as `inttoptr` is.
            let value = if *bits >= 128 {
                *x
            } else {
                *x & ((1u128 << bits) - 1)
            };
            return out.write(off, &(value as u64).to_le_bytes());
        }
    }
    if let Some((s, a)) = const_ptr(layouts, syms, v)? {
        out.relocs.push(Relocation::address(off, s, a));
    }
    Ok(())
}

/// Writes the constant `v` of type `ty` at byte offset `off` of `out`.
pub fn eval_init(
    layouts: &Layouts,
    syms: &super::hash::FastMap<String, Symbol>,
    ty: &LType,
    v: &Val,
    off: u64,
    out: &mut InitBuf,
) -> Result<(), ConstError> {
    match v {
        Val::Null | Val::Zero | Val::Undef | Val::Poison => return Ok(()),
        Val::Bytes(b) => {
            if !matches!(ty, LType::Array(n, e) if *n == b.len() as u64 && **e == LType::Int(8)) {
                return Err(ConstError::StringLength {
                    len: b.len(),
                    ty: ty.clone(),
                });
            }
            return out.write(off, b);
        }
        _ => {}
    }
    match ty {
        LType::Int(bits) => {
            let x = match v {
                Val::Int(x) => *x,
                Val::Bool(b) => *b as u128,
                Val::Cast(crate::ir::CastOp::PtrToInt, inner, _) if *bits == 64 => {
                    if let Some((s, a)) = const_ptr(layouts, syms, &inner.1)? {
                        out.relocs.push(Relocation::address(off, s, a));
                    }
                    return Ok(());
                }
                _ => {
                    let relative = relative_entry(layouts, syms, *bits, v)?
                        .ok_or_else(|| ConstError::IntInit(ty.clone()))?;
                    out.relocs.push(Relocation {
                        offset: off,
                        ..relative
                    });
                    return Ok(());
                }
            };
            let n = (bits.div_ceil(8) as usize).min(16);
            out.write(off, &x.to_le_bytes()[..n])
        }
        LType::Float => out.write(off, &(float_bits(Type::F32, v)? as u32).to_le_bytes()),
        LType::Double => out.write(off, &(float_bits(Type::F64, v)? as u64).to_le_bytes()),
        LType::X86Fp80 => out.write(off, &float_bits(Type::F80, v)?.to_le_bytes()[..10]),
        LType::Half | LType::BFloat | LType::Fp128 => match v {
            Val::Hex(_, d) => {
                let bytes: Vec<u8> = (0..d.len() / 2)
                    .rev()
                    .filter_map(|i| u8::from_str_radix(&d[2 * i..2 * i + 2], 16).ok())
                    .collect();
                if ty == &LType::Fp128 {
                    // 0xL: low 64 bits first in the text, then the high 64 bits.
                    let mut b = bytes.clone();
                    if b.len() == 16 {
                        b.rotate_left(8);
                    }
                    return out.write(off, &b);
                }
                out.write(off, &bytes)
            }
            _ => Err(ConstError::FloatInit(ty.clone())),
        },
        LType::Ptr(_) | LType::OpaquePtr => pointer_init(layouts, syms, v, off, out),
        LType::Array(n, e) | LType::Vector(n, e) => {
            let Val::Agg(elems) = v else {
                return Err(ConstError::ExpectedAggregate(ty.clone()));
            };
            if elems.len() as u64 != *n || elems.iter().any(|(t, _)| t != &**e) {
                return Err(ConstError::Elements(ty.clone()));
            }
            let size = layouts.size_align(e)?.0;
            for (i, (t, ev)) in elems.iter().enumerate() {
                let o = (i as u64)
                    .checked_mul(size)
                    .and_then(|x| x.checked_add(off))
                    .ok_or(ConstError::OffsetOverflow)?;
                eval_init(layouts, syms, t, ev, o, out)?;
            }
            Ok(())
        }
        LType::Struct { .. } | LType::Named(_) => {
            let Val::Agg(elems) = v else {
                return Err(ConstError::ExpectedAggregate(ty.clone()));
            };
            let offsets = match ty {
                LType::Named(n) => layouts.named(n)?.offsets,
                LType::Struct { fields, packed } => {
                    if fields.len() != elems.len()
                        || fields.iter().zip(elems).any(|(f, (t, _))| f != t)
                    {
                        return Err(ConstError::Fields(ty.clone()));
                    }
                    layouts.struct_layout(fields, *packed)?.offsets
                }
                _ => unreachable!(),
            };
            if offsets.len() != elems.len() {
                return Err(ConstError::FieldCount {
                    len: elems.len(),
                    ty: ty.clone(),
                });
            }
            for (i, (t, ev)) in elems.iter().enumerate() {
                let o = offsets.get(i).ok_or(ConstError::FieldCount {
                    len: elems.len(),
                    ty: ty.clone(),
                })?;
                eval_init(
                    layouts,
                    syms,
                    t,
                    ev,
                    off.checked_add(*o).ok_or(ConstError::OffsetOverflow)?,
                    out,
                )?;
            }
            Ok(())
        }
        _ => Err(ConstError::InitType(ty.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The typed classification agrees with the message rule the importer used before
    /// errors were types: "unsupported ..." or "... not supported" means valid but
    /// unmodelled input; every other message means malformed input.
    #[test]
    fn unsupported_errors_say_so() {
        let ty = LType::Int(32);
        let errors = [
            ConstError::Layout(LayoutError::Opaque("T".into())),
            ConstError::InvalidHexFloat {
                prefix: "K",
                digits: "zz".into(),
            },
            ConstError::Fp80Digits("1".into()),
            ConstError::UnsupportedFloat {
                prefix: 'L',
                digits: "0".into(),
            },
            ConstError::ExpectedFloat,
            ConstError::StructIndex {
                index: 3,
                ty: ty.clone(),
            },
            ConstError::OffsetOverflow,
            ConstError::TooLarge,
            ConstError::UndefinedSymbol("g".into()),
            ConstError::DynamicGepIndex,
            ConstError::IntToPtr,
            ConstError::Expr("add".into()),
            ConstError::IcmpPointer,
            ConstError::BlockAddress,
            ConstError::ExpectedPointer,
            ConstError::IntInit(ty.clone()),
            ConstError::FloatInit(LType::Half),
            ConstError::ExpectedAggregate(ty.clone()),
            ConstError::InitType(LType::Void),
        ];
        for e in errors {
            let m = e.to_string();
            let by_words = m.starts_with("unsupported") || m.contains("not supported");
            assert_eq!(e.is_unsupported(), by_words, "{m}");
        }
        assert_eq!(
            ConstError::StructIndex { index: 3, ty }.to_string(),
            "struct index 3 out of range for i32"
        );
    }

    #[test]
    fn floats_narrow_and_widen() {
        // 1.1f as LLVM prints it.
        let b = float_bits(Type::F32, &Val::Hex('x', "3FF19999A0000000")).unwrap();
        assert_eq!(f32::from_bits(b as u32), 1.1f32);
        assert_eq!(f32_bits_to_f64_bits(1.1f32.to_bits()), 0x3FF19999A0000000);
        assert_eq!(
            float_bits(Type::F64, &Val::Dec(2.5)).unwrap(),
            2.5f64.to_bits() as u128
        );
        // x86_fp80: `0xK` + 20 digits are the bits; a double literal converts exactly.
        assert_eq!(
            float_bits(Type::F80, &Val::Hex('K', "3FFF8000000000000000")),
            Ok(0x3FFF_8000_0000_0000_0000)
        );
        assert_eq!(
            float_bits(Type::F80, &Val::Dec(1.0)),
            Ok(0x3FFF_8000_0000_0000_0000)
        );
        assert!(float_bits(Type::F80, &Val::Hex('K', "3FFF80")).is_err());
        assert!(float_bits(Type::F64, &Val::Hex('K', "3FFF8000000000000000")).is_err());
        let nan = f32_bits_to_f64_bits(0x7FC0_0001);
        assert_eq!(f64_bits_to_f32_bits(nan), 0x7FC0_0001);
    }

    #[test]
    fn gep_folds_struct_and_array_offsets() {
        let mut l = Layouts::default();
        let s = LType::Struct {
            fields: vec![LType::Int(8), LType::Array(4, Arc::new(LType::Int(32)))].into(),
            packed: false,
        };
        l.define("S", Some(s));
        l.compute_all();
        let named = LType::Named("S".into());
        let (off, idx) = gep_fold(&l, &named, &[Some(1), Some(1), Some(2)]).unwrap();
        assert_eq!(off, 20 + 4 + 8);
        assert_eq!(idx, vec![GepIdx::Folded; 3]);
        let (off, idx) = gep_fold(&l, &named, &[Some(0), Some(1), None]).unwrap();
        assert_eq!((off, idx[2]), (4, GepIdx::Scaled(4)));
        assert!(gep_fold(&l, &named, &[Some(0), None]).is_err());
        assert_eq!(sext(0xFFFF_FFFF, 32), -1);
    }

    #[test]
    fn initializers_are_sparse() {
        let l = Layouts::default();
        let mut out = InitBuf::default();
        let big = LType::Array(1 << 40, Arc::new(LType::Int(8)));
        eval_init(&l, &Default::default(), &big, &Val::Zero, 0, &mut out).unwrap();
        assert!(out.bytes.is_empty());
        let arr = LType::Array(3, Arc::new(LType::Int(16)));
        let v = Val::Agg(vec![
            (LType::Int(16), Val::Int(1)),
            (LType::Int(16), Val::Int(0)),
            (LType::Int(16), Val::Int(0xFFFF)),
        ]);
        eval_init(&l, &Default::default(), &arr, &v, 0, &mut out).unwrap();
        assert_eq!(out.bytes, vec![1, 0, 0, 0, 0xFF, 0xFF]);
    }
}

//! Scalar types of the strata IR.
//!
//! The IR has the scalar types of DESIGN.md 3.1: integers of every width from `i1` to `i128`
//! (the common widths `i1 i8 i16 i32 i64 i128` have their own variants; every other width,
//! such as a bitfield's `i24` or `i48`, is [`Type::Int`]), `f32 f64 ptr`, `f80` (LLVM's
//! `x86_fp80`, C's `long double`: 80 bits, 10 bytes stored, 16 allocated), plus `void` for
//! instructions and functions without a result, the first-class aggregates
//! ([`Type::Agg`]: structs and arrays, interned in [`super::aggregate`]) and vectors
//! ([`Type::Vec`]: `<N x T>` of integer, float or pointer lanes, interned in the same table).
//! Pointers are 64 bits wide.
//!
//! Invariant: a type is canonical, so equality is by value: a width with its own variant is
//! never written as `Int(n)` ([`Type::int`] is the one constructor from a width).

use super::aggregate::{fmt_agg, AggId};
use std::fmt;

/// A scalar type. `Void` is the "type" of an instruction without a result.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Default, serde::Serialize)]
pub enum Type {
    /// No value (function results and result-less instructions).
    #[default]
    Void,
    /// 1-bit integer (booleans, comparison results).
    I1,
    /// 8-bit integer.
    I8,
    /// 16-bit integer.
    I16,
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// 128-bit integer.
    I128,
    /// IEEE 754 binary32.
    F32,
    /// IEEE 754 binary64.
    F64,
    /// 64-bit pointer.
    Ptr,
    /// x87 extended precision (LLVM `x86_fp80`, C `long double` on x86-64): 1 sign bit,
    /// 15 exponent bits, a 64-bit significand with an explicit integer bit. A load or store
    /// touches 10 bytes; LLVM's data layout allocates 16 with alignment 16.
    F80,
    /// An integer of any other width from 2 to 127 bits (`i24`, `i48`, ...); never one of
    /// 8, 16, 32 or 64 (those have their own variants; see [`Type::int`]).
    Int(u8),
    /// A struct or array value (see [`super::aggregate`]); its shape is behind the handle.
    Agg(AggId),
    /// A vector `<N x T>` of integer, float or pointer lanes (LLVM's first-class vector:
    /// element-wise arithmetic, `extractelement`, `insertelement`, `shufflevector`); its
    /// lane count and element type are interned like an aggregate's shape
    /// ([`super::AggShape::Vector`]).
    Vec(AggId),
}

impl Type {
    /// All types that can be named in text, in printing order.
    pub const ALL: [Type; 11] = [
        Type::Void,
        Type::I1,
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::I128,
        Type::F32,
        Type::F64,
        Type::Ptr,
        Type::F80,
    ];

    /// The integer type of `bits` bits (1 to 128), in canonical form; `None` for other
    /// widths.
    pub fn int(bits: u32) -> Option<Type> {
        Some(match bits {
            1 => Type::I1,
            8 => Type::I8,
            16 => Type::I16,
            32 => Type::I32,
            64 => Type::I64,
            128 => Type::I128,
            2..=127 => Type::Int(bits as u8),
            _ => return None,
        })
    }

    /// A small number that differs between types (for hashing).
    pub fn code(self) -> u8 {
        match self {
            Type::Void => 0,
            Type::I1 => 1,
            Type::I8 => 2,
            Type::I16 => 3,
            Type::I32 => 4,
            Type::I64 => 5,
            Type::I128 => 6,
            Type::F32 => 7,
            Type::F64 => 8,
            Type::Ptr => 9,
            // 10 + 1 is free: `Int(1)` does not exist (`i1` is `I1`).
            Type::F80 => 11,
            Type::Int(n) => 10u8.wrapping_add(n),
            Type::Agg(id) => 140u8.wrapping_add(id.low_byte()),
            Type::Vec(id) => 200u8.wrapping_add(id.low_byte()),
        }
    }

    /// Width in bits (`i1` is 1, `ptr` is 64, `void` is 0; an aggregate: 8 times its
    /// allocation size).
    pub fn bits(self) -> u32 {
        match self {
            Type::Agg(id) => id.info().size as u32 * 8,
            // A vector's lanes are packed: `<4 x i1>` is 4 bits, `<4 x i32>` 128.
            Type::Vec(id) => match id.info().shape {
                super::AggShape::Vector { len, elem } => len * elem.bits(),
                _ => 0,
            },
            Type::Int(n) => n as u32,
            Type::Void => 0,
            Type::I1 => 1,
            Type::I8 => 8,
            Type::I16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 | Type::Ptr => 64,
            Type::I128 => 128,
            Type::F80 => 80,
        }
    }

    /// Store size in bytes: the bytes a load or store touches (`i1` one byte, `i24` three;
    /// `void` zero). An `alloca` of an odd width is larger (LLVM rounds the allocation up to
    /// the next power-of-two width's alignment).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// True for `i1` through `i128`.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::I128 | Type::Int(_)
        )
    }

    /// True for `f32`, `f64` and `f80`.
    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64 | Type::F80)
    }

    /// True for every type except `void`.
    pub fn is_value(self) -> bool {
        self != Type::Void
    }

    /// Bit mask covering the type's width (all ones for `i128`, aggregates and vectors of at
    /// least 128 bits; 64 bits for `ptr`).
    pub fn mask(self) -> u128 {
        match self.bits() {
            0 => 0,
            128.. => u128::MAX,
            n => (1u128 << n) - 1,
        }
    }

    /// The keyword used in `.sir` text. [`Type::Int`] widths have no static name and give
    /// `"iN"` and aggregates `"aggregate"`; use `Display` (or [`Type::from_name`] to parse)
    /// for them.
    pub fn name(self) -> &'static str {
        match self {
            Type::Int(_) => "iN",
            Type::Agg(_) => "aggregate",
            Type::Vec(_) => "vector",
            Type::Void => "void",
            Type::I1 => "i1",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::I128 => "i128",
            Type::F32 => "f32",
            Type::F64 => "f64",
            Type::Ptr => "ptr",
            Type::F80 => "f80",
        }
    }

    /// Parses a type keyword (`i1` to `i128` for every width); `None` if `s` is not one.
    pub fn from_name(s: &str) -> Option<Type> {
        if let Some(d) = s.strip_prefix('i') {
            if !d.is_empty()
                && d.len() <= 3
                && d.bytes().all(|c| c.is_ascii_digit())
                && !d.starts_with('0')
            {
                return Type::int(d.parse().ok()?);
            }
        }
        Type::ALL.iter().copied().find(|t| t.name() == s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int(n) => write!(f, "i{n}"),
            Type::Agg(id) | Type::Vec(id) => fmt_agg(*id, f),
            t => f.write_str(t.name()),
        }
    }
}

//! Scalar types of the strata IR.
//!
//! The IR has the scalar types of DESIGN.md 3.1: `i1 i8 i16 i32 i64 i128 f32 f64 ptr`, plus
//! `void` for instructions and functions without a result. Aggregates exist only as sized
//! memory (an `alloca` size, a global's byte size). Pointers are 64 bits wide.

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
}

impl Type {
    /// All types that can be named in text, in printing order.
    pub const ALL: [Type; 10] = [
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
    ];

    /// Width in bits (`i1` is 1, `ptr` is 64, `void` is 0).
    pub fn bits(self) -> u32 {
        match self {
            Type::Void => 0,
            Type::I1 => 1,
            Type::I8 => 8,
            Type::I16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 | Type::Ptr => 64,
            Type::I128 => 128,
        }
    }

    /// Size in memory, in bytes (`i1` occupies one byte; `void` zero).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// True for `i1` through `i128`.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::I128
        )
    }

    /// True for `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    /// True for every type except `void`.
    pub fn is_value(self) -> bool {
        self != Type::Void
    }

    /// Bit mask covering the type's width (all ones for `i128`; 64 bits for `ptr`).
    pub fn mask(self) -> u128 {
        match self.bits() {
            0 => 0,
            128 => u128::MAX,
            n => (1u128 << n) - 1,
        }
    }

    /// The keyword used in `.sir` text.
    pub fn name(self) -> &'static str {
        match self {
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
        }
    }

    /// Parses a type keyword; `None` if `s` is not one.
    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.iter().copied().find(|t| t.name() == s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

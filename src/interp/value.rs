//! Runtime values of the interpreter: [`Val`].
//!
//! A value is an integer bit pattern tagged with its type (always masked to the type's
//! width, so two equal values are bit-identical and `Eq`/`Hash` are structural), a float bit
//! pattern (so NaN payloads and the sign of zero survive copies exactly), or a 64-bit pointer.
//! Pointers are distinct from `i64`: the interpreter checks operand types, and a `ptr` and an
//! `i64` with the same bits are different values.
//!
//! Also here: the conversion of IR constants ([`Val::from_const`]), the text form used by the
//! command line ([`Val::parse`] and `Display`, which round-trip), and the little-endian
//! memory encoding (`to_bytes` / `from_bytes`). Every operation is O(1).

use crate::ir::{Block, Const, ConstData, ConstKind, Symbol, Type};
use std::fmt;

/// Why an IR constant has no interpreter value ([`Val::from_const`], and the aggregate
/// constants built from it). The interpreter reports it as malformed IR at the first
/// instruction that reads the constant.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConstError {
    /// The constant's kind cannot have its type (say a float bit pattern typed `ptr`).
    #[error("constant {kind:?} does not fit type {ty}")]
    KindMismatch {
        /// The constant's kind.
        kind: ConstKind,
        /// Its declared type.
        ty: Type,
    },
    /// A scalar conversion was asked for an aggregate or vector constant.
    #[error("aggregate constant of type {0}")]
    Aggregate(Type),
    /// The constant's symbol has no address in the module image.
    #[error("symbol {0} has no address")]
    NoSymbolAddress(Symbol),
    /// The constant's block has no address (it is not in the function).
    #[error("{0} has no address")]
    NoBlockAddress(Block),
    /// An aggregate constant whose member list is missing from the pool.
    #[error("aggregate constant without members")]
    NoMembers,
    /// An aggregate constant whose member count differs from its type's.
    #[error("aggregate constant {constant} does not fit {ty}")]
    ShapeMismatch {
        /// The constant.
        constant: Const,
        /// Its declared type.
        ty: Type,
    },
    /// A type with no zero value (`void`).
    #[error("no zero of type {0}")]
    NoZero(Type),
    /// The interned aggregate constants would exceed the interpreter's memory.
    #[error("aggregate constants exceed memory")]
    TooLarge,
}

/// Why a command-line argument is not a value of its parameter's type ([`Val::parse`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueParseError {
    /// The text does not parse as the type, or its value does not fit the width.
    #[error("`{text}` is not a valid {ty} value")]
    Invalid {
        /// The argument as given.
        text: String,
        /// The parameter's type.
        ty: Type,
    },
    /// `void` has no values.
    #[error("a void value cannot be parsed")]
    Void,
    /// Aggregates and vectors have no command-line text form.
    #[error("an aggregate value ({0}) cannot be parsed")]
    Aggregate(Type),
}

/// A runtime value. Invariant: `Int::bits` is masked to `ty`'s width; `Float::ty` is `f32`,
/// `f64` or `f80` and its bits are masked to the width (an `f32`'s in the low 32 bits, an
/// `f80`'s in the low 80).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Val {
    /// An integer of type `ty` (`i1` .. `i128`), as its zero-extended bit pattern.
    Int {
        /// The integer type.
        ty: Type,
        /// Bit pattern, masked to the width of `ty`.
        bits: u128,
    },
    /// A float of type `ty` (`f32`, `f64` or `f80`), as its bit pattern.
    Float {
        /// The float type.
        ty: Type,
        /// Bit pattern, zero-extended (`f32` in the low 32 bits, `f80` in the low 80).
        bits: u128,
    },
    /// A pointer (a byte address).
    Ptr(u64),
    /// A struct, array or vector value of type `ty` (a vector's members are its lanes):
    /// member list `id` of the running interpreter's
    /// aggregate arena (hash-consed, so within one interpreter equal aggregates have equal
    /// ids). Only the interpreter creates these; they never leave it (an aggregate result of
    /// a run is reported member by member, [`crate::interp::Outcome::result_members`]).
    Agg {
        /// The aggregate type.
        ty: Type,
        /// Index in the interpreter's arena.
        id: u32,
    },
}

impl Val {
    /// Integer of type `ty` from a signed number, wrapped modulo 2^width. For `ptr` this is
    /// the pointer with those (truncated) bits; for a float type the bits are reinterpreted.
    pub fn int(ty: Type, value: i128) -> Val {
        Val::uint(ty, value as u128)
    }

    /// Integer of type `ty` from a bit pattern, masked to the width (see [`Val::int`] for
    /// non-integer types).
    pub fn uint(ty: Type, bits: u128) -> Val {
        match ty {
            Type::Ptr => Val::Ptr(bits as u64),
            Type::F32 | Type::F64 | Type::F80 => Val::Float {
                ty,
                bits: bits & ty.mask(),
            },
            _ => Val::Int {
                ty,
                bits: bits & ty.mask(),
            },
        }
    }

    /// An `i1` value.
    pub fn bool(b: bool) -> Val {
        Val::Int {
            ty: Type::I1,
            bits: b as u128,
        }
    }

    /// An `f64` value.
    pub fn f64(x: f64) -> Val {
        Val::Float {
            ty: Type::F64,
            bits: x.to_bits() as u128,
        }
    }

    /// An `f32` value.
    pub fn f32(x: f32) -> Val {
        Val::Float {
            ty: Type::F32,
            bits: x.to_bits() as u128,
        }
    }

    /// The zero of a value type (`0`, `+0.0`, null); `None` for `void`.
    pub fn zero(ty: Type) -> Option<Val> {
        match ty {
            Type::Void | Type::Agg(_) | Type::Vec(_) => None,
            t => Some(Val::uint(t, 0)),
        }
    }

    /// The value's type.
    pub fn ty(&self) -> Type {
        match *self {
            Val::Int { ty, .. } | Val::Float { ty, .. } | Val::Agg { ty, .. } => ty,
            Val::Ptr(_) => Type::Ptr,
        }
    }

    /// The raw bit pattern, zero-extended (integer bits, float bits or the address).
    pub fn as_u128(&self) -> u128 {
        match *self {
            Val::Int { bits, .. } => bits,
            Val::Float { bits, .. } => bits,
            Val::Ptr(a) => a as u128,
            Val::Agg { id, .. } => id as u128,
        }
    }

    /// The bit pattern sign-extended from the type's width (`i1 1` is `-1`).
    pub fn as_i128(&self) -> i128 {
        let w = self.ty().bits();
        sext(self.as_u128(), w)
    }

    /// The float value (an `f32` widened exactly, an `f80` rounded to nearest); `None` for
    /// integers and pointers.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Val::Float {
                ty: Type::F32,
                bits,
            } => Some(f32::from_bits(bits as u32) as f64),
            Val::Float {
                ty: Type::F80,
                bits,
            } => Some(crate::ir::fp80::to_f64(bits)),
            Val::Float { bits, .. } => Some(f64::from_bits(bits as u64)),
            _ => None,
        }
    }

    /// Converts an IR constant. `symbol_addr` gives the address of a module symbol and
    /// `block_addr` the address of a block of the constant's function; `undef` is the zero
    /// of its type.
    ///
    /// # Errors
    /// [`ConstError`] on a constant whose kind does not fit its type, an aggregate (see
    /// `AggArena::constant`), or a symbol or block with no address.
    pub fn from_const(
        c: ConstData,
        symbol_addr: impl Fn(Symbol) -> Option<u64>,
        block_addr: impl Fn(Block) -> Option<u64>,
    ) -> Result<Val, ConstError> {
        let ty = c.ty;
        let bad = || ConstError::KindMismatch { kind: c.kind, ty };
        match (c.kind, ty) {
            (_, Type::Void) => Err(bad()),
            (_, Type::Agg(_) | Type::Vec(_)) => Err(ConstError::Aggregate(ty)),
            (ConstKind::Undef, t) => Ok(Val::uint(t, 0)),
            (ConstKind::Int(b), t) if t.is_int() || t == Type::Ptr => Ok(Val::uint(t, b)),
            (ConstKind::Float(b), t) if t.is_float() => Ok(Val::uint(t, b)),
            (ConstKind::Null, Type::Ptr) => Ok(Val::Ptr(0)),
            (ConstKind::SymbolAddr(s), Type::Ptr) => symbol_addr(s)
                .map(Val::Ptr)
                .ok_or(ConstError::NoSymbolAddress(s)),
            (ConstKind::BlockAddr(b), Type::Ptr) => block_addr(b)
                .map(Val::Ptr)
                .ok_or(ConstError::NoBlockAddress(b)),
            _ => Err(bad()),
        }
    }

    /// Parses a command-line argument of type `ty`: integers in decimal (signed or
    /// unsigned, must fit the width) or `0x` hex, `true`/`false` for `i1`; floats as Rust
    /// parses them (`1.5`, `-0.0`, `inf`, `NaN`, `1e300`), `0x` for raw float bits; pointers
    /// as `null`, decimal or `0x` hex. Accepts what `Display` prints, with or without the
    /// leading type name.
    ///
    /// # Errors
    /// [`ValueParseError`] when `text` is not a value of `ty` (out of range, wrong syntax) or
    /// `ty` has no text form (`void`, aggregates, vectors).
    pub fn parse(ty: Type, text: &str) -> Result<Val, ValueParseError> {
        let s = text.trim();
        let s = s
            .strip_prefix(ty.to_string().as_str())
            .filter(|r| r.starts_with(' '))
            .map_or(s, str::trim);
        let err = || ValueParseError::Invalid {
            text: text.to_string(),
            ty,
        };
        let parse_uint = |s: &str| -> Option<u128> {
            match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(h) => u128::from_str_radix(h, 16).ok(),
                None => s.parse::<u128>().ok(),
            }
        };
        match ty {
            Type::Void => Err(ValueParseError::Void),
            Type::Agg(_) | Type::Vec(_) => Err(ValueParseError::Aggregate(ty)),
            Type::Ptr => match s {
                "null" => Ok(Val::Ptr(0)),
                _ => parse_uint(s)
                    .filter(|&v| v <= u64::MAX as u128)
                    .map(|v| Val::Ptr(v as u64))
                    .ok_or_else(err),
            },
            Type::F80 => {
                if s.starts_with("0x") {
                    return parse_uint(s)
                        .filter(|&v| v <= ty.mask())
                        .map(|v| Val::uint(ty, v))
                        .ok_or_else(err);
                }
                crate::ir::fp80::parse(s)
                    .map(|b| Val::uint(ty, b))
                    .ok_or_else(err)
            }
            Type::F32 | Type::F64 => {
                if s.starts_with("0x") {
                    return parse_uint(s)
                        .filter(|&v| v <= ty.mask())
                        .map(|v| Val::uint(ty, v))
                        .ok_or_else(err);
                }
                let x: f64 = s.parse().map_err(|_| err())?;
                Ok(if ty == Type::F32 {
                    Val::f32(s.parse::<f32>().unwrap_or(x as f32))
                } else {
                    Val::f64(x)
                })
            }
            _ => {
                let w = ty.bits();
                if ty == Type::I1 {
                    match s {
                        "true" => return Ok(Val::bool(true)),
                        "false" => return Ok(Val::bool(false)),
                        _ => {}
                    }
                }
                if let Some(neg) = s.strip_prefix('-') {
                    let m = parse_uint(neg).ok_or_else(err)?;
                    // Must fit as a signed value: magnitude at most 2^(w-1).
                    if m > 1u128 << (w - 1) {
                        return Err(err());
                    }
                    return Ok(Val::uint(ty, m.wrapping_neg()));
                }
                parse_uint(s)
                    .filter(|&v| v <= ty.mask())
                    .map(|v| Val::uint(ty, v))
                    .ok_or_else(err)
            }
        }
    }

    /// Little-endian memory encoding: `ty.bytes()` bytes (`i1` is one byte 0/1, pointers 8).
    pub(crate) fn to_bytes(self, out: &mut [u8; 16]) -> usize {
        let n = self.ty().bytes() as usize;
        out[..16].copy_from_slice(&self.as_u128().to_le_bytes());
        n
    }

    /// Decodes `ty.bytes()` little-endian bytes as a value of `ty` (excess bits masked off).
    pub(crate) fn from_bytes(ty: Type, bytes: &[u8]) -> Val {
        let mut buf = [0u8; 16];
        let n = bytes.len().min(16);
        buf[..n].copy_from_slice(&bytes[..n]);
        Val::uint(ty, u128::from_le_bytes(buf))
    }
}

/// Sign-extends the low `width` bits of `bits` (width 0 gives 0).
pub(crate) fn sext(bits: u128, width: u32) -> i128 {
    match width {
        0 => 0,
        w if w >= 128 => bits as i128,
        w => {
            let shift = 128 - w;
            ((bits << shift) as i128) >> shift
        }
    }
}

impl fmt::Display for Val {
    /// `i32 -5` (signed; `i1` prints `0`/`1`), `f64 1.5` (shortest round-trip form),
    /// `ptr 0x1000` (`ptr null` for zero).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Val::Int { ty: Type::I1, bits } => write!(f, "i1 {bits}"),
            Val::Int { ty, .. } => write!(f, "{ty} {}", self.as_i128()),
            Val::Float {
                ty: Type::F32,
                bits,
            } => write!(f, "f32 {:?}", f32::from_bits(bits as u32)),
            Val::Float {
                ty: Type::F80,
                bits,
            } => write!(f, "f80 {}", crate::ir::fp80::display(bits)),
            Val::Float { ty, bits } => write!(f, "{ty} {:?}", f64::from_bits(bits as u64)),
            Val::Ptr(0) => write!(f, "ptr null"),
            Val::Ptr(a) => write!(f, "ptr {a:#x}"),
            Val::Agg { ty, id } => write!(f, "{ty} #{id}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_sign_extends() {
        assert_eq!(Val::int(Type::I8, -1).as_u128(), 0xff);
        assert_eq!(Val::int(Type::I8, -1).as_i128(), -1);
        assert_eq!(Val::int(Type::I1, 3).as_u128(), 1);
        assert_eq!(Val::int(Type::I1, 1).as_i128(), -1);
        assert_eq!(Val::int(Type::I128, -1).as_i128(), -1);
        assert_eq!(Val::int(Type::I128, i128::MIN).as_i128(), i128::MIN);
    }

    #[test]
    fn display_parse_round_trip() {
        for v in [
            Val::int(Type::I32, -5),
            Val::int(Type::I1, 1),
            Val::int(Type::I128, i128::MIN),
            Val::int(Type::I64, u64::MAX as i128),
            Val::f64(1.5),
            Val::f64(-0.0),
            Val::f64(1e300),
            Val::f32(0.1),
            Val::f64(f64::INFINITY),
            Val::Ptr(0),
            Val::Ptr(0x1000),
        ] {
            let text = v.to_string();
            assert_eq!(Val::parse(v.ty(), &text), Ok(v), "{text}");
        }
        assert_eq!(Val::int(Type::I32, -5).to_string(), "i32 -5");
        assert_eq!(Val::f64(1.5).to_string(), "f64 1.5");
        let nan = Val::parse(Type::F64, "NaN").unwrap();
        assert!(nan.as_f64().unwrap().is_nan());
    }

    #[test]
    fn parse_rejects_out_of_range() {
        assert!(Val::parse(Type::I8, "256").is_err());
        assert!(Val::parse(Type::I8, "-129").is_err());
        assert_eq!(Val::parse(Type::I8, "-128"), Ok(Val::int(Type::I8, -128)));
        assert_eq!(Val::parse(Type::I8, "255"), Ok(Val::int(Type::I8, -1)));
        assert_eq!(Val::parse(Type::I8, "0xff"), Ok(Val::int(Type::I8, -1)));
        assert!(Val::parse(Type::I32, "x").is_err());
        assert!(Val::parse(Type::Void, "0").is_err());
        assert_eq!(Val::parse(Type::I1, "true"), Ok(Val::bool(true)));
    }

    #[test]
    fn consts() {
        let c = ConstData::int(Type::I16, 0x1_2345);
        assert_eq!(
            Val::from_const(c, |_| None, |_| None),
            Ok(Val::int(Type::I16, 0x2345))
        );
        let u = ConstData {
            ty: Type::F64,
            kind: ConstKind::Undef,
        };
        assert_eq!(Val::from_const(u, |_| None, |_| None), Ok(Val::f64(0.0)));
        let bad = ConstData {
            ty: Type::I32,
            kind: ConstKind::Null,
        };
        assert!(Val::from_const(bad, |_| None, |_| None).is_err());
    }
}

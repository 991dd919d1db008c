//! Pure scalar semantics: integer and float arithmetic, comparisons, casts, atomic
//! read-modify-write operators.
//!
//! These functions are the single definition of what each operation computes and when it is
//! an error, so that constant folding (SCCP) can call them and agree with the interpreter bit
//! for bit. Rules (DESIGN.md 3.3):
//! - integers wrap modulo 2^width (`i1` is a 1-bit integer);
//! - `sdiv`/`srem`/`udiv`/`urem` by zero is [`EvalError::DivisionByZero`]; `sdiv`/`srem` of
//!   the minimum by `-1` is [`EvalError::SignedOverflow`] (also for `i1`, where `-1 / -1`
//!   overflows);
//! - shifts by an amount `>=` the width are [`EvalError::ShiftTooLarge`];
//! - floats follow IEEE 754 through Rust's `f32`/`f64` (`frem` is Rust `%`, i.e. C `fmod`),
//!   and `f80` through [`crate::ir::fp80`] (LLVM's APFloat semantics);
//! - `fptosi`/`fptoui` of NaN or of a value whose truncation does not fit is
//!   [`EvalError::FloatToIntOutOfRange`];
//! - operand types are checked: an operand whose type differs from the instruction's is
//!   [`EvalError::TypeMismatch`].
//!
//! Every function is O(1).

use super::value::{sext, Val};
use crate::ir::{fp80, AtomicOp, BinaryOp, CastOp, FloatPredicate, IntPredicate, Type, UnaryOp};

/// Why a scalar operation has no defined result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// Signed division or remainder of the minimum value by `-1`.
    SignedOverflow,
    /// Shift by `amount >= width`.
    ShiftTooLarge {
        /// The shift amount (unsigned).
        amount: u128,
    },
    /// `fptosi`/`fptoui` of NaN or of a value out of the target range.
    FloatToIntOutOfRange,
    /// Operand types do not fit the operation (description).
    TypeMismatch(String),
}

fn expect(v: Val, ty: Type, what: &str) -> Result<Val, EvalError> {
    if v.ty() == ty {
        Ok(v)
    } else {
        Err(EvalError::TypeMismatch(format!(
            "{what}: expected {ty} operand, found {v}"
        )))
    }
}

fn mismatch(what: &str, ty: Type) -> EvalError {
    EvalError::TypeMismatch(format!("{what} is not defined on type {ty}"))
}

/// `lhs op rhs` at type `ty`.
pub fn binary(op: BinaryOp, ty: Type, lhs: Val, rhs: Val) -> Result<Val, EvalError> {
    let a = expect(lhs, ty, op.name())?;
    let b = expect(rhs, ty, op.name())?;
    if op.is_float() {
        return match ty {
            Type::F32 => {
                let (x, y) = (f32_of(a), f32_of(b));
                Ok(Val::f32(match op {
                    BinaryOp::FAdd => x + y,
                    BinaryOp::FSub => x - y,
                    BinaryOp::FMul => x * y,
                    BinaryOp::FDiv => x / y,
                    _ => x % y,
                }))
            }
            Type::F64 => {
                let (x, y) = (f64_of(a), f64_of(b));
                Ok(Val::f64(match op {
                    BinaryOp::FAdd => x + y,
                    BinaryOp::FSub => x - y,
                    BinaryOp::FMul => x * y,
                    BinaryOp::FDiv => x / y,
                    _ => x % y,
                }))
            }
            Type::F80 => fp80::binary(op, a.as_u128(), b.as_u128())
                .map(|b| Val::uint(ty, b))
                .ok_or_else(|| mismatch(op.name(), ty)),
            _ => Err(mismatch(op.name(), ty)),
        };
    }
    if !ty.is_int() {
        return Err(mismatch(op.name(), ty));
    }
    let w = ty.bits();
    let (x, y) = (a.as_u128(), b.as_u128());
    let (sx, sy) = (sext(x, w), sext(y, w));
    let min = sext(1u128 << (w - 1), w);
    let bits = match op {
        BinaryOp::Add => x.wrapping_add(y),
        BinaryOp::Sub => x.wrapping_sub(y),
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::UDiv | BinaryOp::URem if y == 0 => return Err(EvalError::DivisionByZero),
        BinaryOp::UDiv => x / y,
        BinaryOp::URem => x % y,
        BinaryOp::SDiv | BinaryOp::SRem if y == 0 => return Err(EvalError::DivisionByZero),
        BinaryOp::SDiv | BinaryOp::SRem if sx == min && sy == -1 => {
            return Err(EvalError::SignedOverflow)
        }
        // No overflow remains: |sx / sy| <= |sx| fits, and wrapping_* only wraps for
        // i128::MIN / -1, excluded above.
        BinaryOp::SDiv => sx.wrapping_div(sy) as u128,
        BinaryOp::SRem => sx.wrapping_rem(sy) as u128,
        BinaryOp::And => x & y,
        BinaryOp::Or => x | y,
        BinaryOp::Xor => x ^ y,
        BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr if y >= w as u128 => {
            return Err(EvalError::ShiftTooLarge { amount: y })
        }
        BinaryOp::Shl => x << y,
        BinaryOp::LShr => x >> y,
        BinaryOp::AShr => (sx >> y) as u128,
        _ => return Err(mismatch(op.name(), ty)),
    };
    Ok(Val::uint(ty, bits))
}

/// `op ty arg` (only `fneg`: flips the sign bit, NaN payload kept).
pub fn unary(op: UnaryOp, ty: Type, arg: Val) -> Result<Val, EvalError> {
    let a = expect(arg, ty, op.name())?;
    match (op, ty) {
        (UnaryOp::FNeg, Type::F32) => Ok(Val::uint(ty, a.as_u128() ^ (1 << 31))),
        (UnaryOp::FNeg, Type::F64) => Ok(Val::uint(ty, a.as_u128() ^ (1 << 63))),
        (UnaryOp::FNeg, Type::F80) => Ok(Val::uint(ty, a.as_u128() ^ (1 << 79))),
        _ => Err(mismatch(op.name(), ty)),
    }
}

/// `icmp pred ty lhs, rhs` on integers or pointers (pointers compare as unsigned addresses;
/// signed predicates on pointers compare the addresses as signed 64-bit numbers).
pub fn icmp(pred: IntPredicate, ty: Type, lhs: Val, rhs: Val) -> Result<bool, EvalError> {
    let a = expect(lhs, ty, "icmp")?;
    let b = expect(rhs, ty, "icmp")?;
    if !ty.is_int() && ty != Type::Ptr {
        return Err(mismatch("icmp", ty));
    }
    let (x, y) = (a.as_u128(), b.as_u128());
    let (sx, sy) = (a.as_i128(), b.as_i128());
    Ok(pred.holds(x, y, sx, sy))
}

/// `fcmp pred ty lhs, rhs` with LLVM's ordered/unordered meaning.
pub fn fcmp(pred: FloatPredicate, ty: Type, lhs: Val, rhs: Val) -> Result<bool, EvalError> {
    let a = expect(lhs, ty, "fcmp")?;
    let b = expect(rhs, ty, "fcmp")?;
    if !ty.is_float() {
        return Err(mismatch("fcmp", ty));
    }
    // f32 widens to f64 exactly, so comparing in f64 is exact; f80 compares through APFloat.
    let order = if ty == Type::F80 {
        fp80::compare(a.as_u128(), b.as_u128())
    } else {
        let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
        x.partial_cmp(&y)
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    use FloatPredicate as P;
    let uno = order.is_none();
    let is = |o: std::cmp::Ordering| order == Some(o);
    Ok(match pred {
        P::False => false,
        P::True => true,
        P::Ord => !uno,
        P::Uno => uno,
        P::Oeq => is(Equal),
        P::Ogt => is(Greater),
        P::Oge => is(Greater) || is(Equal),
        P::Olt => is(Less),
        P::Ole => is(Less) || is(Equal),
        P::One => is(Less) || is(Greater),
        P::Ueq => uno || is(Equal),
        P::Ugt => uno || is(Greater),
        P::Uge => uno || !is(Less),
        P::Ult => uno || is(Less),
        P::Ule => uno || !is(Greater),
        P::Une => !is(Equal),
    })
}

fn f32_of(v: Val) -> f32 {
    f32::from_bits(v.as_u128() as u32)
}

fn f64_of(v: Val) -> f64 {
    f64::from_bits(v.as_u128() as u64)
}

/// `op from arg to to`. Integer casts accept any integer widths in the stated direction
/// (`trunc` to a width `<=`, `zext`/`sext` to a width `>=`); `bitcast` needs equal widths.
pub fn cast(op: CastOp, from: Type, to: Type, arg: Val) -> Result<Val, EvalError> {
    let a = expect(arg, from, op.name())?;
    let bad = || {
        EvalError::TypeMismatch(format!(
            "{} from {from} to {to} is not a valid cast",
            op.name()
        ))
    };
    let ints = from.is_int() && to.is_int();
    match op {
        CastOp::Trunc if ints && to.bits() <= from.bits() => Ok(Val::uint(to, a.as_u128())),
        CastOp::ZExt if ints && to.bits() >= from.bits() => Ok(Val::uint(to, a.as_u128())),
        CastOp::SExt if ints && to.bits() >= from.bits() => Ok(Val::int(to, a.as_i128())),
        CastOp::FpTrunc if from.is_float() && to.is_float() && to.bits() < from.bits() => {
            Ok(match (from, to) {
                (Type::F80, Type::F32) => Val::f32(fp80::to_f32(a.as_u128())),
                (Type::F80, _) => Val::f64(fp80::to_f64(a.as_u128())),
                _ => Val::f32(a.as_f64().unwrap_or(0.0) as f32),
            })
        }
        CastOp::FpExt if from.is_float() && to.is_float() && to.bits() > from.bits() => {
            Ok(match (from, to) {
                (Type::F32, Type::F80) => {
                    Val::uint(to, fp80::from_f32(f32::from_bits(a.as_u128() as u32)))
                }
                (_, Type::F80) => Val::uint(to, fp80::from_f64(a.as_f64().unwrap_or(0.0))),
                _ => Val::f64(a.as_f64().unwrap_or(0.0)),
            })
        }
        CastOp::FpToSi | CastOp::FpToUi if from == Type::F80 && to.is_int() => {
            fp80::to_int(a.as_u128(), to.bits(), op == CastOp::FpToSi)
                .map(|b| Val::uint(to, b))
                .ok_or(EvalError::FloatToIntOutOfRange)
        }
        CastOp::SiToFp | CastOp::UiToFp if from.is_int() && to == Type::F80 => {
            let signed = op == CastOp::SiToFp;
            let v = if signed {
                a.as_i128() as u128
            } else {
                a.as_u128()
            };
            Ok(Val::uint(to, fp80::from_int(v, signed)))
        }
        CastOp::FpToSi if from.is_float() && to.is_int() => {
            let t = a.as_f64().unwrap_or(0.0).trunc();
            let half = 2f64.powi(to.bits() as i32 - 1);
            if t.is_nan() || t < -half || t >= half {
                return Err(EvalError::FloatToIntOutOfRange);
            }
            Ok(Val::int(to, t as i128))
        }
        CastOp::FpToUi if from.is_float() && to.is_int() => {
            let t = a.as_f64().unwrap_or(0.0).trunc();
            let full = 2f64.powi(to.bits() as i32);
            // `t >= 0.0` is false for NaN and true for -0.0.
            if !(t >= 0.0 && t < full) {
                return Err(EvalError::FloatToIntOutOfRange);
            }
            Ok(Val::uint(to, t as u128))
        }
        CastOp::SiToFp if from.is_int() && to.is_float() => {
            let x = a.as_i128();
            Ok(match to {
                Type::F32 => Val::f32(x as f32),
                _ => Val::f64(x as f64),
            })
        }
        CastOp::UiToFp if from.is_int() && to.is_float() => {
            let x = a.as_u128();
            Ok(match to {
                Type::F32 => Val::f32(x as f32),
                _ => Val::f64(x as f64),
            })
        }
        CastOp::PtrToInt if from == Type::Ptr && to.is_int() => Ok(Val::uint(to, a.as_u128())),
        CastOp::IntToPtr if from.is_int() && to == Type::Ptr => Ok(Val::Ptr(a.as_u128() as u64)),
        CastOp::Bitcast if from.bits() == to.bits() && from.is_value() => {
            Ok(Val::uint(to, a.as_u128()))
        }
        _ => Err(bad()),
    }
}

/// The new memory value of `atomicrmw op ty` given the `old` memory value and the operand
/// (`xchg` also on pointers; the others on integers).
pub fn atomic_rmw(op: AtomicOp, ty: Type, old: Val, value: Val) -> Result<Val, EvalError> {
    let o = expect(old, ty, "atomicrmw")?;
    let v = expect(value, ty, "atomicrmw")?;
    if op == AtomicOp::Xchg && (ty.is_int() || ty == Type::Ptr || ty.is_float()) {
        return Ok(v);
    }
    if !ty.is_int() {
        return Err(mismatch("atomicrmw", ty));
    }
    let (x, y) = (o.as_u128(), v.as_u128());
    let (sx, sy) = (o.as_i128(), v.as_i128());
    let bits = match op {
        AtomicOp::Xchg => y,
        AtomicOp::Add => x.wrapping_add(y),
        AtomicOp::Sub => x.wrapping_sub(y),
        AtomicOp::And => x & y,
        AtomicOp::Nand => !(x & y),
        AtomicOp::Or => x | y,
        AtomicOp::Xor => x ^ y,
        AtomicOp::Max => sx.max(sy) as u128,
        AtomicOp::Min => sx.min(sy) as u128,
        AtomicOp::UMax => x.max(y),
        AtomicOp::UMin => x.min(y),
    };
    Ok(Val::uint(ty, bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinaryOp as B;

    fn i(ty: Type, v: i128) -> Val {
        Val::int(ty, v)
    }

    #[test]
    fn wrapping_at_edge_widths() {
        assert_eq!(
            binary(B::Add, Type::I8, i(Type::I8, 127), i(Type::I8, 1)),
            Ok(i(Type::I8, -128))
        );
        assert_eq!(
            binary(B::Add, Type::I1, i(Type::I1, 1), i(Type::I1, 1)),
            Ok(i(Type::I1, 0))
        );
        assert_eq!(
            binary(
                B::Mul,
                Type::I128,
                i(Type::I128, i128::MAX),
                i(Type::I128, 2)
            ),
            Ok(i(Type::I128, -2))
        );
        assert_eq!(
            binary(B::Sub, Type::I32, i(Type::I32, 0), i(Type::I32, 1)),
            Ok(i(Type::I32, -1))
        );
        assert_eq!(
            binary(B::Xor, Type::I1, i(Type::I1, 1), i(Type::I1, 1)),
            Ok(i(Type::I1, 0))
        );
    }

    #[test]
    fn division_errors() {
        let z = i(Type::I32, 0);
        for op in [B::SDiv, B::UDiv, B::SRem, B::URem] {
            assert_eq!(
                binary(op, Type::I32, i(Type::I32, 7), z),
                Err(EvalError::DivisionByZero)
            );
        }
        let min = i(Type::I32, i32::MIN as i128);
        let m1 = i(Type::I32, -1);
        assert_eq!(
            binary(B::SDiv, Type::I32, min, m1),
            Err(EvalError::SignedOverflow)
        );
        assert_eq!(
            binary(B::SRem, Type::I32, min, m1),
            Err(EvalError::SignedOverflow)
        );
        assert_eq!(binary(B::UDiv, Type::I32, min, m1), Ok(i(Type::I32, 0)));
        let min128 = i(Type::I128, i128::MIN);
        let m1_128 = i(Type::I128, -1);
        assert_eq!(
            binary(B::SDiv, Type::I128, min128, m1_128),
            Err(EvalError::SignedOverflow)
        );
        let t = i(Type::I1, 1);
        assert_eq!(
            binary(B::SDiv, Type::I1, t, t),
            Err(EvalError::SignedOverflow)
        );
        assert_eq!(
            binary(B::SDiv, Type::I8, i(Type::I8, -7), i(Type::I8, 2)),
            Ok(i(Type::I8, -3))
        );
        assert_eq!(
            binary(B::SRem, Type::I8, i(Type::I8, -7), i(Type::I8, 2)),
            Ok(i(Type::I8, -1))
        );
        assert_eq!(
            binary(B::URem, Type::I8, i(Type::I8, -7), i(Type::I8, 2)),
            Ok(i(Type::I8, 1))
        );
    }

    #[test]
    fn shifts() {
        let x = i(Type::I8, -128);
        assert_eq!(
            binary(B::AShr, Type::I8, x, i(Type::I8, 7)),
            Ok(i(Type::I8, -1))
        );
        assert_eq!(
            binary(B::LShr, Type::I8, x, i(Type::I8, 7)),
            Ok(i(Type::I8, 1))
        );
        assert_eq!(
            binary(B::Shl, Type::I8, x, i(Type::I8, 1)),
            Ok(i(Type::I8, 0))
        );
        assert_eq!(
            binary(B::Shl, Type::I8, x, i(Type::I8, 8)),
            Err(EvalError::ShiftTooLarge { amount: 8 })
        );
        assert!(binary(B::Shl, Type::I1, i(Type::I1, 1), i(Type::I1, 1)).is_err());
        assert_eq!(
            binary(B::Shl, Type::I128, i(Type::I128, 1), i(Type::I128, 127)),
            Ok(i(Type::I128, i128::MIN))
        );
    }

    #[test]
    fn type_mismatch() {
        assert!(matches!(
            binary(B::Add, Type::I32, i(Type::I64, 1), i(Type::I32, 1)),
            Err(EvalError::TypeMismatch(_))
        ));
        assert!(binary(B::FAdd, Type::I32, i(Type::I32, 1), i(Type::I32, 1)).is_err());
        assert!(binary(B::Add, Type::F64, Val::f64(1.0), Val::f64(1.0)).is_err());
    }

    #[test]
    fn floats() {
        let r = binary(B::FRem, Type::F64, Val::f64(-7.5), Val::f64(2.0)).unwrap();
        assert_eq!(r, Val::f64(-1.5));
        let r = binary(B::FDiv, Type::F32, Val::f32(1.0), Val::f32(3.0)).unwrap();
        assert_eq!(r, Val::f32(1.0 / 3.0));
        assert_eq!(
            unary(UnaryOp::FNeg, Type::F64, Val::f64(0.0)),
            Ok(Val::f64(-0.0))
        );
        let nan = Val::f64(f64::NAN);
        let one = Val::f64(1.0);
        assert_eq!(fcmp(FloatPredicate::Oeq, Type::F64, nan, nan), Ok(false));
        assert_eq!(fcmp(FloatPredicate::Ueq, Type::F64, nan, one), Ok(true));
        assert_eq!(fcmp(FloatPredicate::One, Type::F64, nan, one), Ok(false));
        assert_eq!(fcmp(FloatPredicate::Une, Type::F64, nan, nan), Ok(true));
        assert_eq!(
            fcmp(FloatPredicate::Olt, Type::F64, one, Val::f64(2.0)),
            Ok(true)
        );
        assert_eq!(fcmp(FloatPredicate::Uno, Type::F64, one, one), Ok(false));
        assert_eq!(
            fcmp(
                FloatPredicate::Oeq,
                Type::F64,
                Val::f64(0.0),
                Val::f64(-0.0)
            ),
            Ok(true)
        );
    }

    #[test]
    fn compares() {
        let (a, b) = (i(Type::I8, -1), i(Type::I8, 1));
        assert_eq!(icmp(IntPredicate::Slt, Type::I8, a, b), Ok(true));
        assert_eq!(icmp(IntPredicate::Ult, Type::I8, a, b), Ok(false));
        let t = i(Type::I1, 1);
        let f = i(Type::I1, 0);
        assert_eq!(icmp(IntPredicate::Slt, Type::I1, t, f), Ok(true));
        assert_eq!(icmp(IntPredicate::Ugt, Type::I1, t, f), Ok(true));
        assert_eq!(
            icmp(
                IntPredicate::Ult,
                Type::Ptr,
                Val::Ptr(1),
                Val::Ptr(u64::MAX)
            ),
            Ok(true)
        );
        let big = i(Type::I128, i128::MIN);
        assert_eq!(
            icmp(IntPredicate::Slt, Type::I128, big, i(Type::I128, 0)),
            Ok(true)
        );
        assert_eq!(
            icmp(IntPredicate::Ugt, Type::I128, big, i(Type::I128, 0)),
            Ok(true)
        );
    }

    #[test]
    fn casts() {
        use CastOp as C;
        assert_eq!(
            cast(C::Trunc, Type::I32, Type::I1, i(Type::I32, 3)),
            Ok(i(Type::I1, 1))
        );
        assert_eq!(
            cast(C::SExt, Type::I1, Type::I32, i(Type::I1, 1)),
            Ok(i(Type::I32, -1))
        );
        assert_eq!(
            cast(C::ZExt, Type::I1, Type::I128, i(Type::I1, 1)),
            Ok(i(Type::I128, 1))
        );
        assert_eq!(
            cast(C::SExt, Type::I64, Type::I128, i(Type::I64, -2)),
            Ok(i(Type::I128, -2))
        );
        assert!(cast(C::ZExt, Type::I32, Type::I8, i(Type::I32, 3)).is_err());
        assert_eq!(
            cast(C::FpToSi, Type::F64, Type::I8, Val::f64(-128.9)),
            Ok(i(Type::I8, -128))
        );
        assert_eq!(
            cast(C::FpToSi, Type::F64, Type::I8, Val::f64(128.0)),
            Err(EvalError::FloatToIntOutOfRange)
        );
        assert_eq!(
            cast(C::FpToSi, Type::F64, Type::I32, Val::f64(f64::NAN)),
            Err(EvalError::FloatToIntOutOfRange)
        );
        assert_eq!(
            cast(C::FpToUi, Type::F64, Type::I8, Val::f64(255.9)),
            Ok(i(Type::I8, -1))
        );
        assert_eq!(
            cast(C::FpToUi, Type::F64, Type::I8, Val::f64(-0.9)),
            Ok(i(Type::I8, 0))
        );
        assert!(cast(C::FpToUi, Type::F64, Type::I8, Val::f64(-1.0)).is_err());
        assert!(cast(C::FpToUi, Type::F64, Type::I8, Val::f64(256.0)).is_err());
        assert_eq!(
            cast(C::FpToSi, Type::F64, Type::I128, Val::f64(-1e30)),
            Ok(i(Type::I128, -1_000_000_000_000_000_019_884_624_838_656))
        );
        assert!(cast(C::FpToSi, Type::F64, Type::I128, Val::f64(1e39)).is_err());
        assert_eq!(
            cast(C::UiToFp, Type::I8, Type::F64, i(Type::I8, -1)),
            Ok(Val::f64(255.0))
        );
        assert_eq!(
            cast(C::SiToFp, Type::I8, Type::F32, i(Type::I8, -1)),
            Ok(Val::f32(-1.0))
        );
        assert_eq!(
            cast(C::FpTrunc, Type::F64, Type::F32, Val::f64(0.1)),
            Ok(Val::f32(0.1))
        );
        assert_eq!(
            cast(C::Bitcast, Type::F64, Type::I64, Val::f64(1.0)),
            Ok(i(Type::I64, 0x3ff0_0000_0000_0000))
        );
        assert_eq!(
            cast(C::Bitcast, Type::Ptr, Type::I64, Val::Ptr(8)),
            Ok(i(Type::I64, 8))
        );
        assert!(cast(C::Bitcast, Type::F32, Type::I64, Val::f32(1.0)).is_err());
        assert_eq!(
            cast(C::PtrToInt, Type::Ptr, Type::I32, Val::Ptr(0x1_0000_0005)),
            Ok(i(Type::I32, 5))
        );
        assert_eq!(
            cast(C::IntToPtr, Type::I128, Type::Ptr, i(Type::I128, -1)),
            Ok(Val::Ptr(u64::MAX))
        );
    }

    #[test]
    fn atomics() {
        let (a, b) = (i(Type::I8, -1), i(Type::I8, 3));
        assert_eq!(
            atomic_rmw(AtomicOp::Nand, Type::I8, a, b),
            Ok(i(Type::I8, !3))
        );
        assert_eq!(atomic_rmw(AtomicOp::Max, Type::I8, a, b), Ok(b));
        assert_eq!(atomic_rmw(AtomicOp::UMax, Type::I8, a, b), Ok(a));
        assert_eq!(
            atomic_rmw(AtomicOp::Xchg, Type::Ptr, Val::Ptr(1), Val::Ptr(2)),
            Ok(Val::Ptr(2))
        );
    }
}

//! The scalar LLVM intrinsics real C code reaches through builtins and `<math.h>`: bit
//! counting (`ctlz`, `cttz`, `ctpop`, `bswap`, `bitreverse`, the funnel shifts `fshl`/`fshr`),
//! integer `smin`/`smax`/`umin`/`umax`/`abs`, overflow-checked and saturating arithmetic
//! (`{s,u}{add,sub,mul}.with.overflow`, `{s,u}{add,sub}.sat`), the float functions `fabs`,
//! `copysign`, `minnum`, `maxnum`, `floor`, `ceil`, `trunc`, `round`, `rint`/`nearbyint`,
//! `sqrt`, and `expect` (its first argument). clang emits these for `__builtin_clz`,
//! `__builtin_ctzll`, `__builtin_bswap32`, `fabs()`, `__builtin_add_overflow`, and at `-O2`
//! for `a < b ? a : b`.
//!
//! Algorithm: each operation is defined on one lane ([`apply`], a pure function of the
//! operation name, the lane type and the lane arguments); a call whose arguments are vectors
//! applies it lane by lane, broadcasting scalar arguments (the `i1` flag of `ctlz`).
//! Semantics as the LangRef states them, and as `lli` computes them where LangRef says
//! poison: `ctlz`/`cttz` of zero give the width whatever the flag says, `abs` of the minimum
//! gives the minimum, a funnel shift takes its count modulo the width. `rint` and
//! `nearbyint` round half to even (the default rounding mode). `f80` is refused by the float
//! operations (the interpreter keeps it as bits only).
//!
//! Invariant: results are masked to the result lane's width. Cost: O(lanes) per call.

use super::externals::{Call, ExtResult};
use super::value::sext;
use super::vector::max_num;
use super::{InterpError, Val};
use crate::interp::exec::Interpreter;
use crate::ir::Type;

impl Interpreter<'_> {
    /// Calls the bit or math intrinsic `c` (see the module doc), lane by lane on vectors.
    pub(super) fn bit_math(&mut self, c: &Call) -> Result<ExtResult, InterpError> {
        let op = operation(c.name);
        if op.ends_with("with.overflow") {
            return self.with_overflow(c, op);
        }
        if c.ret == Type::Void {
            return Err(self.ext_err(c, format!("`{op}` returns a value, not void")));
        }
        if !c.ret.is_vector() {
            let r = apply(op, c.ret, c.args).map_err(|why| self.ext_err(c, why.to_string()))?;
            return Ok(ExtResult::Value(Some(r)));
        }
        let (lanes, lane) = (c.ret.lanes() as usize, c.ret.lane());
        let mut columns = Vec::with_capacity(c.args.len());
        for &a in c.args {
            columns.push(if a.ty().is_vector() {
                let members = self.agg_members(c.pc, a)?.to_vec();
                if members.len() != lanes {
                    return Err(self.ext_err(c, format!("{a} does not have {lanes} lanes")));
                }
                members
            } else {
                vec![a; lanes]
            });
        }
        let mut out = Vec::with_capacity(lanes);
        let mut row = Vec::with_capacity(c.args.len());
        for k in 0..lanes {
            row.clear();
            row.extend(columns.iter().map(|column| column[k]));
            out.push(apply(op, lane, &row).map_err(|why| self.ext_err(c, why.to_string()))?);
        }
        let r = self.make_agg(c.pc, c.ret, &out)?;
        Ok(ExtResult::Value(Some(r)))
    }

    /// `{s,u}{add,sub,mul}.with.overflow`: the struct `{ result, overflowed }`.
    fn with_overflow(&mut self, c: &Call, op: &str) -> Result<ExtResult, InterpError> {
        let (a, b) = match c.args {
            [a, b] if a.ty().is_int() && a.ty() == b.ty() => (*a, *b),
            _ => return Err(self.ext_err(c, "expects two integers of one type".to_string())),
        };
        let ty = a.ty();
        let shape_ok = c.ret.member(0).map(|m| m.0) == Some(ty)
            && c.ret.member(1).map(|m| m.0) == Some(Type::I1);
        if !shape_ok {
            return Err(self.ext_err(
                c,
                format!("declared result {} is not {{ {ty}, i1 }}", c.ret),
            ));
        }
        let (value, overflowed) =
            overflowing(&op[..4], ty, a, b).map_err(|why| self.ext_err(c, why.to_string()))?;
        let r = self.make_agg(c.pc, c.ret, &[value, Val::bool(overflowed)])?;
        Ok(ExtResult::Value(Some(r)))
    }
}

/// Why a bit or math operation does not apply to its lane arguments (the interpreter names
/// the call around it).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LaneError {
    /// The operation does not exist for lanes of this type (`ctlz` on `ptr`, `f80` floats).
    #[error("`{op}` on {lane} lanes")]
    LaneType {
        /// The operation.
        op: String,
        /// The lane type.
        lane: Type,
    },
    /// An argument of another type than the lanes'.
    #[error("argument {index} is {found}, expected {expected}")]
    Argument {
        /// Its position.
        index: usize,
        /// What was passed.
        found: Val,
        /// The lane type (`f32` or `f64` for the float operations).
        expected: Type,
    },
    /// Fewer arguments than the operation reads.
    #[error("missing argument {0}")]
    Missing(usize),
    /// An operation this module does not know on this lane type.
    #[error("`{op}` is not an operation on {lane} lanes")]
    Unknown {
        /// The operation.
        op: String,
        /// The lane type.
        lane: Type,
    },
    /// Overflow-checked arithmetic on operands of different or unsupported types.
    #[error("`{op}` does not take {a} and {b}")]
    Operands {
        /// The operation.
        op: String,
        /// The first operand.
        a: Val,
        /// The second operand.
        b: Val,
    },
}

/// The operation of an intrinsic name: `llvm.ctlz.i32` is `ctlz`, `llvm.sadd.with.overflow.i64`
/// is `sadd.with.overflow`, `llvm.uadd.sat.i8` is `uadd.sat`.
fn operation(name: &str) -> &str {
    let rest = name.strip_prefix("llvm.").unwrap_or(name);
    let first = rest.split('.').next().unwrap_or(rest);
    for suffix in [".with.overflow", ".sat"] {
        let long = first.len() + suffix.len();
        if rest.get(first.len()..long) == Some(suffix) {
            return &rest[..long];
        }
    }
    first
}

/// `op` (an [`operation`] name) on one lane of type `lane`; the reason if the arguments do
/// not fit it or `op` is not one this module knows.
pub fn apply(op: &str, lane: Type, args: &[Val]) -> Result<Val, LaneError> {
    if lane.is_float() {
        return float_op(op, lane, args);
    }
    if !lane.is_int() {
        return Err(LaneError::LaneType {
            op: op.to_string(),
            lane,
        });
    }
    let int = |i: usize| match args.get(i) {
        Some(v @ Val::Int { ty, .. }) if *ty == lane => Ok(v.as_u128()),
        Some(v) => Err(LaneError::Argument {
            index: i,
            found: *v,
            expected: lane,
        }),
        None => Err(LaneError::Missing(i)),
    };
    let width = lane.bits();
    let signed = |bits: u128| sext(bits, width);
    let value = match op {
        "ctlz" => (int(0)?.leading_zeros() - (128 - width)) as u128,
        "cttz" => int(0)?.trailing_zeros().min(width) as u128,
        "ctpop" => int(0)?.count_ones() as u128,
        "bswap" if width.is_multiple_of(16) => int(0)?.swap_bytes() >> (128 - width),
        "bitreverse" => int(0)?.reverse_bits() >> (128 - width),
        "smin" => signed(int(0)?).min(signed(int(1)?)) as u128,
        "smax" => signed(int(0)?).max(signed(int(1)?)) as u128,
        "umin" => int(0)?.min(int(1)?),
        "umax" => int(0)?.max(int(1)?),
        "abs" => signed(int(0)?).wrapping_abs() as u128,
        "expect" => int(0)?,
        "fshl" | "fshr" => {
            let (high, low, count) = (int(0)?, int(1)?, int(2)? % width as u128);
            // The concatenation `high:low` shifted by the count; `fshl` keeps its high half.
            let wide = |x: u128, by: u32| if by >= 128 { 0 } else { x << by };
            let narrow = |x: u128, by: u32| if by >= 128 { 0 } else { x >> by };
            let shift = count as u32;
            if shift == 0 {
                if op == "fshl" {
                    high
                } else {
                    low
                }
            } else if op == "fshl" {
                wide(high, shift) | narrow(low, width - shift)
            } else {
                narrow(low, shift) | wide(high, width - shift)
            }
        }
        "uadd.sat" | "usub.sat" | "sadd.sat" | "ssub.sat" => {
            let (a, b) = (Val::uint(lane, int(0)?), Val::uint(lane, int(1)?));
            let (v, overflowed) = overflowing(&op[..4], lane, a, b)?;
            if !overflowed {
                v.as_u128()
            } else if op.starts_with('u') {
                if op == "uadd.sat" {
                    lane.mask()
                } else {
                    0
                }
            } else {
                // Signed: past the maximum if the exact result is positive.
                let min = 1u128 << (width - 1);
                let positive = if op == "sadd.sat" {
                    signed(b.as_u128()) > 0
                } else {
                    signed(b.as_u128()) < 0
                };
                if positive {
                    min - 1
                } else {
                    min
                }
            }
        }
        _ => {
            return Err(LaneError::Unknown {
                op: op.to_string(),
                lane,
            })
        }
    };
    Ok(Val::uint(lane, value))
}

/// `a OP b` for `OP` one of `sadd`, `uadd`, `ssub`, `usub`, `smul`, `umul` on `ty`: the
/// wrapped result and whether the exact result does not fit `ty` (signed or unsigned).
fn overflowing(op: &str, ty: Type, a: Val, b: Val) -> Result<(Val, bool), LaneError> {
    let width = ty.bits();
    if !ty.is_int() || a.ty() != ty || b.ty() != ty || width > 64 && op.ends_with("mul") {
        return Err(LaneError::Operands {
            op: op.to_string(),
            a,
            b,
        });
    }
    let signed = op.starts_with('s');
    let (x, y) = if signed {
        (a.as_i128(), b.as_i128())
    } else {
        (a.as_u128() as i128, b.as_u128() as i128)
    };
    // Exact in i128 for every width up to 64 bits; wider add/sub use checked arithmetic.
    let exact = match &op[1..] {
        "add" => x.checked_add(y),
        "sub" => x.checked_sub(y),
        "mul" => x.checked_mul(y),
        _ => {
            return Err(LaneError::Unknown {
                op: op.to_string(),
                lane: ty,
            })
        }
    };
    let wrapped = |v: i128| Val::int(ty, v);
    let result = match &op[1..] {
        "add" => wrapped(x.wrapping_add(y)),
        "sub" => wrapped(x.wrapping_sub(y)),
        _ => wrapped(x.wrapping_mul(y)),
    };
    let fits = match exact {
        None => false,
        Some(v) if signed => v == result.as_i128(),
        Some(v) => v >= 0 && v as u128 == result.as_u128(),
    };
    // Unsigned 128-bit operands do not fit i128; only narrower widths are exact here.
    if width == 128 && !signed {
        let (ua, ub) = (a.as_u128(), b.as_u128());
        let overflowed = match &op[1..] {
            "add" => ua.checked_add(ub).is_none(),
            _ => ua < ub,
        };
        return Ok((result, overflowed));
    }
    Ok((result, !fits))
}

/// The float operations on `f32` and `f64` lanes.
fn float_op(op: &str, lane: Type, args: &[Val]) -> Result<Val, LaneError> {
    let arg = |i: usize| match args.get(i) {
        Some(v @ Val::Float { ty, .. }) if *ty == lane && lane != Type::F80 => {
            Ok(v.as_f64().unwrap_or(f64::NAN))
        }
        Some(v) => Err(LaneError::Argument {
            index: i,
            found: *v,
            expected: lane,
        }),
        None => Err(LaneError::Missing(i)),
    };
    let sign_bit = 1u128 << (lane.bits() - 1);
    let bits = |i: usize| arg(i).map(|_| args[i].as_u128());
    let result = match op {
        // Sign operations work on the bits, so NaN payloads survive as LLVM requires.
        "fabs" => return Ok(Val::uint(lane, bits(0)? & !sign_bit)),
        "copysign" => {
            return Ok(Val::uint(
                lane,
                (bits(0)? & !sign_bit) | (bits(1)? & sign_bit),
            ))
        }
        "minnum" | "maxnum" => {
            // Both lanes checked above as f32/f64, which `max_num` always compares (the
            // same rule as `llvm.vector.reduce.fmax`/`fmin`).
            let (_, _) = (arg(0)?, arg(1)?);
            return max_num(args[0], args[1], op == "maxnum").ok_or(LaneError::LaneType {
                op: op.to_string(),
                lane,
            });
        }
        "floor" => arg(0)?.floor(),
        "ceil" => arg(0)?.ceil(),
        "trunc" => arg(0)?.trunc(),
        "round" => arg(0)?.round(),
        "rint" | "nearbyint" | "roundeven" => arg(0)?.round_ties_even(),
        "sqrt" if lane == Type::F32 => (arg(0)? as f32).sqrt() as f64,
        "sqrt" => arg(0)?.sqrt(),
        _ => {
            return Err(LaneError::Unknown {
                op: op.to_string(),
                lane,
            })
        }
    };
    Ok(if lane == Type::F32 {
        Val::f32(result as f32)
    } else {
        Val::f64(result)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(ty: Type, v: i128) -> Val {
        Val::int(ty, v)
    }

    #[test]
    fn operation_names() {
        assert_eq!(operation("llvm.ctlz.i32"), "ctlz");
        assert_eq!(
            operation("llvm.sadd.with.overflow.i64"),
            "sadd.with.overflow"
        );
        assert_eq!(operation("llvm.uadd.sat.v4i32"), "uadd.sat");
        assert_eq!(operation("llvm.fabs.f64"), "fabs");
    }

    #[test]
    fn bit_counts_against_rust() {
        for x in [0u32, 1, 0x80000000, 0x00f0_0000, u32::MAX, 12345] {
            let v = Val::uint(Type::I32, x as u128);
            let flag = Val::bool(false);
            let r = |op| apply(op, Type::I32, &[v, flag]).unwrap().as_u128() as u32;
            assert_eq!(r("ctlz"), x.leading_zeros(), "ctlz {x}");
            assert_eq!(r("cttz"), x.trailing_zeros(), "cttz {x}");
            assert_eq!(r("ctpop"), x.count_ones());
            assert_eq!(r("bswap"), x.swap_bytes());
            assert_eq!(r("bitreverse"), x.reverse_bits());
            let y = 0x1234_5678u32;
            for n in [0u32, 1, 7, 31, 32, 33] {
                let args = [v, Val::uint(Type::I32, y as u128), i(Type::I32, n as i128)];
                let fshl = apply("fshl", Type::I32, &args).unwrap().as_u128() as u32;
                let fshr = apply("fshr", Type::I32, &args).unwrap().as_u128() as u32;
                let wide = ((x as u64) << 32) | y as u64;
                assert_eq!(fshl, (wide << (n % 32) >> 32) as u32, "fshl {x} {n}");
                assert_eq!(fshr, (wide >> (n % 32)) as u32, "fshr {x} {n}");
            }
        }
        let x = Val::uint(Type::I16, 0xabcd);
        assert_eq!(apply("bswap", Type::I16, &[x]).unwrap().as_u128(), 0xcdab);
        assert_eq!(
            apply("ctlz", Type::I64, &[i(Type::I64, 1)])
                .unwrap()
                .as_u128(),
            63
        );
    }

    #[test]
    fn min_max_abs_and_saturation_against_rust() {
        let vals = [i8::MIN, -100, -1, 0, 1, 77, i8::MAX];
        for &a in &vals {
            for &b in &vals {
                let args = [i(Type::I8, a as i128), i(Type::I8, b as i128)];
                let r = |op| apply(op, Type::I8, &args).unwrap().as_i128();
                let ur = |op| apply(op, Type::I8, &args).unwrap().as_u128() as u8;
                assert_eq!(r("smin"), a.min(b) as i128);
                assert_eq!(r("smax"), a.max(b) as i128);
                assert_eq!(ur("umin"), (a as u8).min(b as u8));
                assert_eq!(ur("umax"), (a as u8).max(b as u8));
                assert_eq!(r("sadd.sat"), a.saturating_add(b) as i128, "{a}+{b}");
                assert_eq!(r("ssub.sat"), a.saturating_sub(b) as i128, "{a}-{b}");
                assert_eq!(ur("uadd.sat"), (a as u8).saturating_add(b as u8));
                assert_eq!(ur("usub.sat"), (a as u8).saturating_sub(b as u8));
                let (x, y) = (args[0], args[1]);
                let ov = |op| overflowing(op, Type::I8, x, y).unwrap();
                assert_eq!(ov("sadd").1, a.checked_add(b).is_none());
                assert_eq!(ov("smul").1, a.checked_mul(b).is_none());
                assert_eq!(ov("ssub").1, a.checked_sub(b).is_none());
                assert_eq!(ov("uadd").1, (a as u8).checked_add(b as u8).is_none());
                assert_eq!(ov("usub").1, (a as u8).checked_sub(b as u8).is_none());
                assert_eq!(ov("umul").1, (a as u8).checked_mul(b as u8).is_none());
                assert_eq!(ov("smul").0.as_i128(), a.wrapping_mul(b) as i128);
            }
            let abs = apply("abs", Type::I8, &[i(Type::I8, a as i128), Val::bool(false)]);
            assert_eq!(abs.unwrap().as_i128(), a.wrapping_abs() as i128);
        }
        let big = Val::uint(Type::I128, u128::MAX);
        assert!(overflowing("uadd", Type::I128, big, big).unwrap().1);
        assert!(!overflowing("usub", Type::I128, big, big).unwrap().1);
    }

    #[test]
    fn float_operations() {
        let f = Val::f64;
        let r = |op, a: &[Val]| apply(op, Type::F64, a).unwrap().as_f64().unwrap();
        assert_eq!(r("fabs", &[f(-2.5)]), 2.5);
        assert_eq!(r("copysign", &[f(2.5), f(-0.0)]), -2.5);
        assert_eq!(r("floor", &[f(-2.5)]), -3.0);
        assert_eq!(r("ceil", &[f(-2.5)]), -2.0);
        assert_eq!(r("trunc", &[f(-2.5)]), -2.0);
        assert_eq!(r("round", &[f(-2.5)]), -3.0);
        assert_eq!(r("rint", &[f(-2.5)]), -2.0);
        assert_eq!(r("sqrt", &[f(2.25)]), 1.5);
        assert_eq!(r("minnum", &[f(f64::NAN), f(1.0)]), 1.0);
        assert_eq!(r("maxnum", &[f(3.0), f(1.0)]), 3.0);
        let g = apply("fabs", Type::F32, &[Val::f32(-1.5)]).unwrap();
        assert_eq!(g, Val::f32(1.5));
        assert!(apply("fabs", Type::F64, &[Val::f32(1.0)]).is_err());
        assert!(apply("ctlz", Type::F64, &[f(1.0)]).is_err());
        assert!(apply("frobnicate", Type::I32, &[i(Type::I32, 1)]).is_err());
    }
}

//! Lane-wise semantics of vector operations, on the lanes of a vector as a slice of
//! scalar [`Val`]s: the one definition shared by the interpreter (which keeps a vector as
//! a member list of its arena) and SCCP's folding (which reads the lanes of vector
//! constants).
//!
//! Algorithm: every element-wise operation applies the scalar operation of [`super::ops`]
//! to each lane pair in order, so a lane's result, and its errors (division by zero in a
//! lane, a shift too large), are exactly the scalar's. `undef`/`poison` lanes arrive as the
//! zero the interpreter reads for an undefined scalar. `bitcast` between shapes packs the
//! lanes little-endian, lane 0 in the lowest bits (LLVM's layout on x86-64 and AArch64),
//! into a bit string and unpacks it into the lanes of the other shape; loads and stores use
//! the same packing, so `<8 x i1>` is one byte as in LLVM.
//! Invariant: results have the lane types the IR's typing rules give (`i1` for compares).
//! Complexity: O(lanes) per operation; O(bits) for packing.

use super::ops::{self, EvalError};
use super::Val;
use crate::ir::{BinaryOp, CastOp, FloatPredicate, IntPredicate, Type, UnaryOp};

fn pairs<'a>(
    a: &'a [Val],
    b: &'a [Val],
) -> Result<impl Iterator<Item = (Val, Val)> + 'a, EvalError> {
    if a.len() != b.len() {
        return Err(EvalError::TypeMismatch(format!(
            "vectors of {} and {} lanes",
            a.len(),
            b.len()
        )));
    }
    Ok(a.iter().copied().zip(b.iter().copied()))
}

/// `a op b` lane by lane, `lane` the lane type.
pub fn binary(op: BinaryOp, lane: Type, a: &[Val], b: &[Val]) -> Result<Vec<Val>, EvalError> {
    pairs(a, b)?
        .map(|(x, y)| ops::binary(op, lane, x, y))
        .collect()
}

/// `op a` lane by lane.
pub fn unary(op: UnaryOp, lane: Type, a: &[Val]) -> Result<Vec<Val>, EvalError> {
    a.iter().map(|&x| ops::unary(op, lane, x)).collect()
}

/// `icmp pred a, b` lane by lane: `i1` lanes.
pub fn icmp(pred: IntPredicate, lane: Type, a: &[Val], b: &[Val]) -> Result<Vec<Val>, EvalError> {
    pairs(a, b)?
        .map(|(x, y)| ops::icmp(pred, lane, x, y).map(Val::bool))
        .collect()
}

/// `fcmp pred a, b` lane by lane: `i1` lanes.
pub fn fcmp(pred: FloatPredicate, lane: Type, a: &[Val], b: &[Val]) -> Result<Vec<Val>, EvalError> {
    pairs(a, b)?
        .map(|(x, y)| ops::fcmp(pred, lane, x, y).map(Val::bool))
        .collect()
}

/// `select cond, t, f` lane by lane (`cond` has one `i1` lane per lane of `t` and `f`).
pub fn select(cond: &[Val], t: &[Val], f: &[Val]) -> Result<Vec<Val>, EvalError> {
    if cond.len() != t.len() {
        return Err(EvalError::TypeMismatch(format!(
            "select of {} lanes with a condition of {}",
            t.len(),
            cond.len()
        )));
    }
    Ok(cond
        .iter()
        .zip(pairs(t, f)?)
        .map(|(c, (x, y))| if c.as_u128() != 0 { x } else { y })
        .collect())
}

/// `op from a to to`: the lanes of `to` (a one-element list for a scalar `to`) from the
/// lanes of `a` (one element for a scalar `from`). Conversions other than `bitcast` map
/// lane to lane; `bitcast` repacks the bits.
pub fn cast(op: CastOp, from: Type, to: Type, a: &[Val]) -> Result<Vec<Val>, EvalError> {
    if op != CastOp::Bitcast {
        let (fl, tl) = (from.lane(), to.lane());
        if from.lanes() != to.lanes() || a.len() != from.lanes() as usize {
            return Err(EvalError::TypeMismatch(format!(
                "{op} from {from} to {to} changes the lane count"
            )));
        }
        return a.iter().map(|&x| ops::cast(op, fl, tl, x)).collect();
    }
    if from.bits() != to.bits() {
        return Err(EvalError::TypeMismatch(format!(
            "bitcast from {from} to {to} changes the width"
        )));
    }
    if !from.is_vector() && !to.is_vector() {
        return Ok(vec![ops::cast(op, from, to, a[0])?]);
    }
    Ok(unpack(&pack(a, from.lane()), to))
}

/// `shufflevector a, b, mask`: lane `mask[i]` of `a ++ b`, or the zero of `lane` for an
/// `undef` mask lane (`None`). An index past both inputs is an error.
pub fn shuffle(
    a: &[Val],
    b: &[Val],
    mask: &[Option<u32>],
    lane: Type,
) -> Result<Vec<Val>, EvalError> {
    mask.iter()
        .map(|m| match m {
            None => Ok(Val::uint(lane, 0)),
            Some(k) => {
                let k = *k as usize;
                a.get(k)
                    .or_else(|| b.get(k.wrapping_sub(a.len())))
                    .copied()
                    .ok_or_else(|| {
                        EvalError::TypeMismatch(format!("shuffle mask index {k} is out of range"))
                    })
            }
        })
        .collect()
}

/// The lanes of type `lane` packed little-endian into bytes (lane 0 in the lowest bits):
/// the memory image of a vector, and the bits a `bitcast` reinterprets.
pub fn pack(lanes: &[Val], lane: Type) -> Vec<u8> {
    let w = lane.bits() as usize;
    let mut out = vec![0u8; (lanes.len() * w).div_ceil(8)];
    for (i, v) in lanes.iter().enumerate() {
        let bits = v.as_u128();
        for k in 0..w {
            if (bits >> k) & 1 == 1 {
                let at = i * w + k;
                out[at / 8] |= 1 << (at % 8);
            }
        }
    }
    out
}

/// The lanes of `ty` (one value for a scalar type) unpacked from `bytes` as [`pack`] wrote
/// them; missing bytes read as zero.
pub fn unpack(bytes: &[u8], ty: Type) -> Vec<Val> {
    let lane = ty.lane();
    let w = lane.bits() as usize;
    (0..ty.lanes() as usize)
        .map(|i| {
            let mut bits = 0u128;
            for k in 0..w {
                let at = i * w + k;
                if bytes.get(at / 8).is_some_and(|b| (b >> (at % 8)) & 1 == 1) {
                    bits |= 1 << k;
                }
            }
            Val::uint(lane, bits)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(ty: Type, xs: &[i128]) -> Vec<Val> {
        xs.iter().map(|&x| Val::int(ty, x)).collect()
    }

    #[test]
    fn lane_wise_arithmetic_and_compares() {
        let a = ints(Type::I32, &[1, -2, 3, i32::MAX as i128]);
        let b = ints(Type::I32, &[10, 20, 30, 1]);
        assert_eq!(
            binary(BinaryOp::Add, Type::I32, &a, &b).unwrap(),
            ints(Type::I32, &[11, 18, 33, i32::MIN as i128])
        );
        assert_eq!(
            icmp(IntPredicate::Slt, Type::I32, &a, &b).unwrap(),
            [true, true, true, false].map(Val::bool)
        );
        let zero = ints(Type::I32, &[1, 0, 1, 1]);
        assert_eq!(
            binary(BinaryOp::UDiv, Type::I32, &a, &zero),
            Err(EvalError::DivisionByZero)
        );
    }

    #[test]
    fn bitcast_packs_little_endian() {
        let v4 = Type::vector_of(4, Type::I32).unwrap();
        let v2 = Type::vector_of(2, Type::I64).unwrap();
        let a = ints(Type::I32, &[1, 2, 3, 4]);
        let r = cast(CastOp::Bitcast, v4, v2, &a).unwrap();
        assert_eq!(r, ints(Type::I64, &[(2 << 32) | 1, (4 << 32) | 3]));
        assert_eq!(cast(CastOp::Bitcast, v2, v4, &r).unwrap(), a);
        let bools = Type::vector_of(8, Type::I1).unwrap();
        let byte = cast(
            CastOp::Bitcast,
            bools,
            Type::I8,
            &[1, 0, 1, 0, 0, 0, 0, 1].map(|b| Val::bool(b == 1)),
        )
        .unwrap();
        assert_eq!(byte, vec![Val::int(Type::I8, 0x85)]);
    }

    #[test]
    fn shuffles_pick_from_both_inputs() {
        let a = ints(Type::I8, &[1, 2]);
        let b = ints(Type::I8, &[3, 4]);
        let r = shuffle(&a, &b, &[Some(3), None, Some(0)], Type::I8).unwrap();
        assert_eq!(r, ints(Type::I8, &[4, 0, 1]));
        assert!(shuffle(&a, &b, &[Some(4)], Type::I8).is_err());
    }
}

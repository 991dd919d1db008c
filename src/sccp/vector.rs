//! SCCP's rule for vector instructions: lane-wise folding when every lane of every vector
//! operand is a known constant, else `Overdefined` (issue 21 §2).
//!
//! A vector cell is an aggregate cell of the lattice's table whose members are the lanes
//! ([`AggConsts`]). Folding reads the lanes of each operand and computes the result with
//! [`crate::interp::lanes`], the interpreter's own lane semantics, so a folded vector is
//! exactly what the interpreter computes and a lane the interpreter rejects (division by
//! zero in a lane, ...) leaves the instruction in place (`Overdefined`). An `Unknown`
//! operand waits (`Unknown`). A `select` with a known scalar condition is the chosen arm
//! whatever it holds, and `extractelement` of a known lane of a partly known vector is that
//! lane; everything else needs every lane. Shuffle masks are read from the pool, so their
//! `undef` lanes stay `undef` (zero, as the interpreter reads them) rather than index 0.
//! Complexity: O(lanes) per evaluation.

use super::lattice::{AggConsts, Constant, LatticeValue};
use crate::interp::{lanes, Val};
use crate::ir::{ConstPool, InstKind, Operand, Type};

/// True for the instructions [`eval_vector`] evaluates: element-wise operations on a
/// vector type, casts from or to one, and the three lane instructions.
#[inline]
pub(super) fn is_vector_op(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Binary {
            ty: Type::Vec(_),
            ..
        } | InstKind::Unary {
            ty: Type::Vec(_),
            ..
        } | InstKind::Icmp {
            ty: Type::Vec(_),
            ..
        } | InstKind::Fcmp {
            ty: Type::Vec(_),
            ..
        } | InstKind::Cast {
            from: Type::Vec(_),
            ..
        } | InstKind::Cast {
            to: Type::Vec(_),
            ..
        } | InstKind::Select {
            ty: Type::Vec(_),
            ..
        } | InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
    )
}

/// The lanes of a cell of type `ty` (a scalar `ty` gives one lane): `Err(cell)` with the
/// cell to return when they are not all known (`Unknown` or `Overdefined`).
fn lanes_of(
    aggregates: &AggConsts,
    cell: LatticeValue,
    ty: Type,
) -> Result<Vec<Val>, LatticeValue> {
    match cell {
        LatticeValue::Unknown => Err(LatticeValue::Unknown),
        LatticeValue::Const(Constant::Scalar(v)) if !ty.is_vector() => Ok(vec![v]),
        LatticeValue::Const(k @ Constant::Aggregate { .. }) if ty.is_vector() => aggregates
            .members(k)
            .and_then(|ms| {
                ms.iter()
                    .map(|m| match m {
                        Constant::Scalar(v) => Some(*v),
                        _ => None,
                    })
                    .collect::<Option<Vec<Val>>>()
            })
            .ok_or(LatticeValue::Overdefined),
        _ => Err(LatticeValue::Overdefined),
    }
}

/// The cell of a computed lane list of type `ty`.
fn cell_of(
    aggregates: &mut AggConsts,
    ty: Type,
    r: Result<Vec<Val>, crate::interp::ops::EvalError>,
) -> LatticeValue {
    let Ok(lanes) = r else {
        return LatticeValue::Overdefined;
    };
    if !ty.is_vector() {
        return lanes
            .first()
            .map_or(LatticeValue::Overdefined, |&v| LatticeValue::scalar(v));
    }
    let ks: Vec<Constant> = lanes.into_iter().map(Constant::Scalar).collect();
    aggregates
        .make(ty, &ks)
        .map_or(LatticeValue::Overdefined, LatticeValue::Const)
}

/// Evaluates a vector instruction ([`is_vector_op`]) from its operands' cells.
#[inline(never)]
pub(super) fn eval_vector(
    kind: &InstKind,
    op: impl Fn(Operand) -> LatticeValue,
    aggregates: &mut AggConsts,
    consts: &ConstPool,
) -> LatticeValue {
    macro_rules! get {
        ($o:expr, $ty:expr) => {
            match lanes_of(aggregates, op($o), $ty) {
                Ok(l) => l,
                Err(cell) => return cell,
            }
        };
    }
    // Two operands: an `Unknown` one waits even when the other is overdefined.
    let both = |a: Operand, b: Operand| {
        matches!(op(a), LatticeValue::Unknown) || matches!(op(b), LatticeValue::Unknown)
    };
    match kind {
        InstKind::Binary {
            op: bop,
            ty,
            lhs,
            rhs,
        } => {
            if both(*lhs, *rhs) {
                return LatticeValue::Unknown;
            }
            let (a, b) = (get!(*lhs, *ty), get!(*rhs, *ty));
            cell_of(aggregates, *ty, lanes::binary(*bop, ty.lane(), &a, &b))
        }
        InstKind::Unary { op: uop, ty, arg } => {
            let a = get!(*arg, *ty);
            cell_of(aggregates, *ty, lanes::unary(*uop, ty.lane(), &a))
        }
        InstKind::Icmp { pred, ty, lhs, rhs } => {
            if both(*lhs, *rhs) {
                return LatticeValue::Unknown;
            }
            let (a, b) = (get!(*lhs, *ty), get!(*rhs, *ty));
            let r = lanes::icmp(*pred, ty.lane(), &a, &b);
            cell_of(aggregates, ty.with_lane(Type::I1), r)
        }
        InstKind::Fcmp { pred, ty, lhs, rhs } => {
            if both(*lhs, *rhs) {
                return LatticeValue::Unknown;
            }
            let (a, b) = (get!(*lhs, *ty), get!(*rhs, *ty));
            let r = lanes::fcmp(*pred, ty.lane(), &a, &b);
            cell_of(aggregates, ty.with_lane(Type::I1), r)
        }
        InstKind::Cast {
            op: cop,
            from,
            to,
            arg,
        } => {
            let a = get!(*arg, *from);
            cell_of(aggregates, *to, lanes::cast(*cop, *from, *to, &a))
        }
        InstKind::Select {
            ty,
            cond,
            if_true,
            if_false,
        } => match op(*cond) {
            LatticeValue::Unknown => LatticeValue::Unknown,
            LatticeValue::Const(Constant::Scalar(c)) if c.ty() == Type::I1 => {
                op(if c.as_u128() != 0 {
                    *if_true
                } else {
                    *if_false
                })
            }
            c => {
                if both(*if_true, *if_false) {
                    return LatticeValue::Unknown;
                }
                let c = match lanes_of(aggregates, c, ty.with_lane(Type::I1)) {
                    Ok(l) => l,
                    Err(cell) => return cell,
                };
                let (t, e) = (get!(*if_true, *ty), get!(*if_false, *ty));
                cell_of(aggregates, *ty, lanes::select(&c, &t, &e))
            }
        },
        InstKind::ExtractElement { ty, vec, index } => {
            let i = match op(*index) {
                LatticeValue::Unknown => return LatticeValue::Unknown,
                LatticeValue::Const(Constant::Scalar(v @ Val::Int { .. })) => v.as_u128(),
                _ => return LatticeValue::Overdefined,
            };
            if i >= ty.lanes() as u128 {
                return LatticeValue::Overdefined;
            }
            aggregates.member(op(*vec), i as usize)
        }
        InstKind::InsertElement {
            ty,
            vec,
            value,
            index,
        } => {
            // Lane by lane, as `insertvalue` member by member: an unknown lane inserted
            // into a known vector is a partly known cell whose other lanes still fold
            // when extracted.
            let i = match op(*index) {
                LatticeValue::Unknown => return LatticeValue::Unknown,
                LatticeValue::Const(Constant::Scalar(v @ Val::Int { .. })) => v.as_u128(),
                _ => return LatticeValue::Overdefined,
            };
            let (v, x) = (op(*vec), op(*value));
            if matches!(v, LatticeValue::Unknown) || matches!(x, LatticeValue::Unknown) {
                return LatticeValue::Unknown;
            }
            let Some(mut lanes) = aggregates.member_cells(v, ty.lanes() as usize) else {
                return LatticeValue::Overdefined;
            };
            match lanes.get_mut(i.min(usize::MAX as u128) as usize) {
                Some(slot) => *slot = x,
                None => return LatticeValue::Overdefined,
            }
            aggregates.build(*ty, &lanes)
        }
        InstKind::ShuffleVector {
            ty,
            result,
            a,
            b,
            mask,
        } => {
            if both(*a, *b) {
                return LatticeValue::Unknown;
            }
            let (x, y) = (get!(*a, *ty), get!(*b, *ty));
            let Some(mask) = consts.mask_lanes(*mask, result.lanes()) else {
                return LatticeValue::Overdefined;
            };
            cell_of(
                aggregates,
                *result,
                lanes::shuffle(&x, &y, &mask, ty.lane()),
            )
        }
        _ => LatticeValue::Overdefined,
    }
}

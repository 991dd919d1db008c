//! The folding rules shared by the SCCP solver, its rewrite and the fallback folder: an
//! instruction's cell from its operands' cells, and the successor a branch on a constant
//! takes. A leaf of `sccp` (it imports only the lattice), so the solver, the rewrite and
//! the fallback all use it and none imports another for it.
//!
//! Rules ([`eval_inst`], [`resolved_successor`]): arithmetic, comparisons and casts call
//! [`crate::interp::ops`], so a folded value is bit for bit what the interpreter computes
//! and an operation the interpreter rejects (division by zero, `MIN / -1`, oversized
//! shifts, out-of-range float-to-int, type mismatches) is `Overdefined`; an `Unknown`
//! operand makes the result wait (`Unknown`), except where one constant operand decides
//! alone, whatever the other is and without any possible trap (`x & 0`, `x * 0`, `x | -1`,
//! `x urem 1`, `x srem 1`, `x ult 0`, `x sgt MAX` and the other comparisons with an extreme
//! value, `fcmp false/true`). `select` with a constant condition is the chosen arm,
//! otherwise the meet of both arms; `copy` is its source; `extractvalue` of a known
//! aggregate is the member, `insertvalue` of known parts a new known aggregate
//! ([`AggConsts`]). Vector operations fold lane by lane when every lane is known, with the
//! interpreter's lane semantics (`super::vector`), else they are `Overdefined`. A branch on
//! a constant takes the successor the interpreter takes (`br`:
//! 1 is successor 0; `switch`: the case whose zero-extended value matches, else the default;
//! `indirect_br`: the listed block of a `blockaddress`). Integers of at most 64 bits take
//! `u64` fast paths (`narrow_width`) that a test checks against the interpreter.
//!
//! Complexity: every rule is O(operands) (a `switch` O(cases)).

use super::lattice::{AggConsts, Constant, LatticeValue};
use super::vector::is_vector_op;
use crate::interp::{ops, Val};
use crate::ir::{
    ConstData, ConstKind, ConstPool, InstKind, IntPredicate, Operand, RelocationKind, Symbol,
    SymbolTable, Terminator, Type,
};

/// The successor index a terminator takes when its condition has the constant cell `cond`
/// (`None`: not a conditional terminator, or the constant decides nothing, for example an
/// `indirect_br` to an address that is not a listed block; `consts` is the function's pool,
/// where a `blockaddress` lives). Shared by the solver and the rewrite so that both resolve
/// branches identically; mirrors the interpreter's choice.
pub fn resolved_successor(consts: &ConstPool, t: &Terminator, cond: Constant) -> Option<usize> {
    match (t, cond) {
        (Terminator::Br { .. }, Constant::Scalar(v)) => Some(if v.as_u128() != 0 { 0 } else { 1 }),
        (Terminator::Switch { ty, cases, .. }, Constant::Scalar(v)) => {
            let v = v.as_u128();
            Some(
                cases
                    .iter()
                    .position(|(c, _)| *c & ty.mask() == v)
                    .map_or(0, |i| i + 1),
            )
        }
        (Terminator::IndirectBr { dests, .. }, Constant::Address(c)) => {
            match consts.try_get(c)?.kind {
                ConstKind::BlockAddr(b) => dests.iter().position(|&d| d == b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The condition operand of a conditional terminator.
pub fn condition(t: &Terminator) -> Option<Operand> {
    match t {
        Terminator::Br { cond, .. } => Some(*cond),
        Terminator::Switch { value, .. } => Some(*value),
        Terminator::IndirectBr { addr, .. } => Some(*addr),
        _ => None,
    }
}

/// Evaluates a non-phi instruction with one result given the cells of its operands (`op`).
/// Folding goes through [`crate::interp::ops`], so a folded value is exactly what the
/// interpreter computes; an operation the interpreter reports as an error (division by zero,
/// `MIN / -1`, an oversized shift, an out-of-range float conversion, a type mismatch) is
/// `Overdefined`, so the trapping instruction stays. With `memory` (the module's symbols),
/// a `gep` of a symbol address by constant indices is the symbol at the summed offset, and
/// a non-volatile load from a read-only global folds to the bytes the interpreter would
/// read ([`load_constant`]); without it both are `Overdefined`. Calls, allocas, stores,
/// atomics, asm and opaque instructions are `Overdefined`. The solver lists as users only
/// the kinds matched here (and phis); a kind added here must be added to its
/// `depends_on_operands` too. Inlined into its two callers (the solver evaluates every
/// listed instruction; the call and the returned cell cost a third of an evaluation).
#[inline(always)]
pub fn eval_inst(
    kind: &InstKind,
    op: impl Fn(Operand) -> LatticeValue,
    memory: Option<&SymbolTable>,
    aggregates: &mut AggConsts,
    consts: &ConstPool,
) -> LatticeValue {
    use LatticeValue::{Overdefined, Unknown};
    let fold = |r: Option<Val>| r.map_or(Overdefined, LatticeValue::scalar);
    if is_vector_op(kind) {
        return super::vector::eval_vector(kind, op, aggregates, consts);
    }
    match kind {
        InstKind::Gep {
            base,
            offset,
            indices,
        } if memory.is_some() => {
            let (symbol, mut at) = match op(*base) {
                Unknown => return Unknown,
                LatticeValue::Const(Constant::Symbol { symbol, offset }) => (symbol, offset),
                _ => return Overdefined,
            };
            at = at.wrapping_add(*offset);
            let mut unknown = false;
            for &(idx, scale) in indices {
                match op(idx) {
                    Unknown => unknown = true,
                    LatticeValue::Const(Constant::Scalar(v @ Val::Int { .. })) => {
                        at = at.wrapping_add((v.as_i128() as i64).wrapping_mul(scale));
                    }
                    _ => return Overdefined,
                }
            }
            if unknown {
                Unknown
            } else {
                LatticeValue::Const(Constant::Symbol { symbol, offset: at })
            }
        }
        InstKind::Load {
            ty,
            ptr,
            volatile: false,
        } => match (memory, op(*ptr)) {
            (Some(_), Unknown) => Unknown,
            (Some(m), LatticeValue::Const(Constant::Symbol { symbol, offset })) => {
                load_constant(m, *ty, symbol, offset)
            }
            _ => Overdefined,
        },
        InstKind::Binary {
            op: bop,
            ty,
            lhs,
            rhs,
        } => {
            let (a, b) = (op(*lhs), op(*rhs));
            // Two constants of a type of at most 64 bits (most folds): computed in `u64`.
            // The decided rules agree with the exact result there, so they need no test.
            if let Some(w) = narrow_width(*ty) {
                if let (Some(x), Some(y)) = (narrow_bits(a, *ty, w), narrow_bits(b, *ty, w)) {
                    return narrow_binary(*bop, w, x, y).map_or(Overdefined, |r| {
                        LatticeValue::scalar(Val::Int {
                            ty: *ty,
                            bits: r as u128,
                        })
                    });
                }
            }
            if let Some(k) = decided_binary(*bop, *ty, a, b) {
                return k;
            }
            match (a, b) {
                (Unknown, _) | (_, Unknown) => Unknown,
                _ => match (a.as_scalar(), b.as_scalar()) {
                    (Some(x), Some(y)) => fold(ops::binary(*bop, *ty, x, y).ok()),
                    _ => Overdefined,
                },
            }
        }
        InstKind::Unary { op: uop, ty, arg } => match op(*arg) {
            Unknown => Unknown,
            a => fold(a.as_scalar().and_then(|x| ops::unary(*uop, *ty, x).ok())),
        },
        InstKind::Icmp { pred, ty, lhs, rhs } => {
            let (a, b) = (op(*lhs), op(*rhs));
            // As for `Binary`: two narrow integer constants compare in `u64`/`i64`.
            if let Some(w) = narrow_width(*ty) {
                if let (Some(x), Some(y)) = (narrow_bits(a, *ty, w), narrow_bits(b, *ty, w)) {
                    return LatticeValue::scalar(Val::bool(narrow_icmp(*pred, w, x, y)));
                }
            }
            if let Some(k) = decided_icmp(*pred, *ty, a, b) {
                return k;
            }
            match (a, b) {
                (Unknown, _) | (_, Unknown) => Unknown,
                _ => match (a.as_scalar(), b.as_scalar()) {
                    (Some(x), Some(y)) => fold(ops::icmp(*pred, *ty, x, y).ok().map(Val::bool)),
                    _ => Overdefined,
                },
            }
        }
        InstKind::Fcmp { pred, ty, lhs, rhs } => {
            use crate::ir::FloatPredicate as P;
            if matches!(pred, P::False | P::True) && ty.is_float() {
                return LatticeValue::scalar(Val::bool(*pred == P::True));
            }
            let (a, b) = (op(*lhs), op(*rhs));
            match (a, b) {
                (Unknown, _) | (_, Unknown) => Unknown,
                _ => match (a.as_scalar(), b.as_scalar()) {
                    (Some(x), Some(y)) => fold(ops::fcmp(*pred, *ty, x, y).ok().map(Val::bool)),
                    _ => Overdefined,
                },
            }
        }
        InstKind::Cast {
            op: cop,
            from,
            to,
            arg,
        } => match op(*arg) {
            Unknown => Unknown,
            a => {
                // Integer resizes of at most 64 bits (most folded casts): in `u64`.
                if let (Some(wf), Some(wt)) = (narrow_width(*from), narrow_width(*to)) {
                    if let Some(x) = narrow_bits(a, *from, wf) {
                        if let Some(r) = narrow_cast(*cop, wf, wt, x) {
                            return LatticeValue::scalar(Val::Int {
                                ty: *to,
                                bits: r as u128,
                            });
                        }
                    }
                }
                fold(
                    a.as_scalar()
                        .and_then(|x| ops::cast(*cop, *from, *to, x).ok()),
                )
            }
        },
        InstKind::Select {
            cond,
            if_true,
            if_false,
            ..
        } => match op(*cond) {
            Unknown => Unknown,
            LatticeValue::Const(Constant::Scalar(c)) if c.ty() == Type::I1 => {
                op(if c.as_u128() != 0 {
                    *if_true
                } else {
                    *if_false
                })
            }
            _ => aggregates.meet(op(*if_true), op(*if_false)),
        },
        InstKind::Copy { src, .. } => op(*src),
        InstKind::ExtractValue { agg, index, .. } => aggregates.member(op(*agg), *index as usize),
        // Member by member: a known member inserted into an overdefined aggregate is a
        // `Partial` cell whose other members stay overdefined.
        InstKind::InsertValue {
            ty,
            agg,
            value,
            index,
        } => match (op(*agg), op(*value)) {
            (Overdefined, Overdefined) => Overdefined,
            (Unknown, _) | (_, Unknown) => Unknown,
            (a, m) => {
                let n = ty.agg_info().map_or(0, |i| i.len());
                let Some(mut members) = aggregates.member_cells(a, n) else {
                    return Overdefined;
                };
                match members.get_mut(*index as usize) {
                    Some(slot) => *slot = m,
                    None => return Overdefined,
                }
                aggregates.build(*ty, &members)
            }
        },
        _ => Overdefined,
    }
}

/// The cell of a load of `ty` from `symbol + offset`: what the interpreter reads there, if
/// the symbol is a read-only global ([`SymbolTable::read_only`]) and the access lies within
/// it; otherwise `Overdefined` (the load stays, with whatever it does at run time). Bytes
/// past the initialiser are zero; a pointer stored by a plain relocation
/// ([`RelocationKind::Address`]) reads as that symbol plus its addend when the load is a
/// `ptr` load at exactly the relocation's offset, and any other overlap with a relocation
/// (block addresses and relative entries included) is `Overdefined`.
pub fn load_constant(memory: &SymbolTable, ty: Type, symbol: Symbol, offset: i64) -> LatticeValue {
    let Some(g) = memory.read_only(symbol) else {
        return LatticeValue::Overdefined;
    };
    let (Ok(start), n) = (u64::try_from(offset), ty.bytes() as u64) else {
        return LatticeValue::Overdefined;
    };
    if !ty.is_value() || n == 0 || n > 16 || start.checked_add(n).is_none_or(|e| e > g.size) {
        return LatticeValue::Overdefined;
    }
    for r in &g.relocations {
        if r.offset < start + n && start < r.offset.saturating_add(r.bytes()) {
            // Only a plain pointer is a constant here: a block's address belongs to its own
            // function, and a relative entry's value is a difference of run-time addresses.
            let plain = r.kind == RelocationKind::Address;
            return if plain && ty == Type::Ptr && r.offset == start {
                LatticeValue::Const(Constant::Symbol {
                    symbol: r.symbol,
                    offset: r.addend,
                })
            } else {
                LatticeValue::Overdefined
            };
        }
    }
    let mut buf = [0u8; 16];
    let init = g.init.as_deref().unwrap_or(&[]);
    for (k, byte) in buf.iter_mut().enumerate().take(n as usize) {
        *byte = init.get(start as usize + k).copied().unwrap_or(0);
    }
    LatticeValue::scalar(Val::from_bytes(ty, &buf[..n as usize]))
}

/// The width of an integer type of at most 64 bits (the `u64` fast paths of
/// [`eval_inst`]); `None` for wider integers and every other type.
#[inline]
pub(super) fn narrow_width(ty: Type) -> Option<u32> {
    match ty {
        Type::I1 => Some(1),
        Type::I8 => Some(8),
        Type::I16 => Some(16),
        Type::I32 => Some(32),
        Type::I64 => Some(64),
        Type::Int(n) if n <= 64 => Some(n as u32),
        _ => None,
    }
}

/// The bits of a cell that is an integer constant of type `ty` (of width `w <= 64`) with
/// its bits masked to the width, as the interpreter keeps them; `None` otherwise (the
/// general path then decides, exactly as before).
#[inline(always)]
fn narrow_bits(c: LatticeValue, ty: Type, w: u32) -> Option<u64> {
    match c {
        LatticeValue::Const(Constant::Scalar(Val::Int { ty: t, bits }))
            if t == ty && bits >> w == 0 =>
        {
            Some(bits as u64)
        }
        _ => None,
    }
}

/// [`ops::cast`] of a masked integer of width `wf <= 64` to an integer of width `wt <= 64`
/// for `trunc`, `zext` and `sext` (each only in its direction): the masked result; `None`
/// for every other cast (the general path decides). A test compares it with the
/// interpreter.
#[inline]
fn narrow_cast(op: crate::ir::CastOp, wf: u32, wt: u32, x: u64) -> Option<u64> {
    use crate::ir::CastOp as C;
    let mask = u64::MAX >> (64 - wt);
    match op {
        C::Trunc if wt <= wf => Some(x & mask),
        C::ZExt if wt >= wf => Some(x),
        C::SExt if wt >= wf => {
            let sh = 64 - wf;
            Some((((x << sh) as i64) >> sh) as u64 & mask)
        }
        _ => None,
    }
}

/// [`ops::binary`] of two masked integers of width `w <= 64`, in `u64`: the masked result,
/// or `None` where the interpreter reports an error (division by zero, `MIN / -1`, a shift
/// by `w` or more, a float operation). A test compares it with the interpreter.
#[inline]
fn narrow_binary(op: crate::ir::BinaryOp, w: u32, x: u64, y: u64) -> Option<u64> {
    use crate::ir::BinaryOp as B;
    let sh = 64 - w;
    let (sx, sy) = (((x << sh) as i64) >> sh, ((y << sh) as i64) >> sh);
    let min = i64::MIN >> sh;
    let r = match op {
        B::Add => x.wrapping_add(y),
        B::Sub => x.wrapping_sub(y),
        B::Mul => x.wrapping_mul(y),
        B::UDiv | B::URem | B::SDiv | B::SRem if y == 0 => return None,
        B::UDiv => x / y,
        B::URem => x % y,
        B::SDiv | B::SRem if sx == min && sy == -1 => return None,
        B::SDiv => sx.wrapping_div(sy) as u64,
        B::SRem => sx.wrapping_rem(sy) as u64,
        B::And => x & y,
        B::Or => x | y,
        B::Xor => x ^ y,
        B::Shl | B::LShr | B::AShr if y >= w as u64 => return None,
        B::Shl => x << y,
        B::LShr => x >> y,
        B::AShr => (sx >> y) as u64,
        _ => return None,
    };
    Some(r & (u64::MAX >> sh))
}

/// [`ops::icmp`] of two masked integers of width `w <= 64` (signed predicates on the
/// sign-extended values).
#[inline]
fn narrow_icmp(pred: IntPredicate, w: u32, x: u64, y: u64) -> bool {
    let sh = 64 - w;
    let (sx, sy) = (((x << sh) as i64) >> sh, ((y << sh) as i64) >> sh);
    pred.holds(x, y, sx, sy)
}

/// A binary operation whose result one constant operand decides whatever the other is (as
/// LLVM's SCCP does through its ranges): `x & 0 = 0`, `x * 0 = 0`, `x | -1 = -1`,
/// `x urem 1 = 0`, `x srem 1 = 0` (width > 1; in `i1`, 1 is -1 and `MIN srem -1` traps).
/// None of these can trap, so removing the instruction is safe.
fn decided_binary(
    op: crate::ir::BinaryOp,
    ty: Type,
    a: LatticeValue,
    b: LatticeValue,
) -> Option<LatticeValue> {
    use crate::ir::BinaryOp as B;
    if !matches!(op, B::And | B::Mul | B::Or | B::URem | B::SRem) || !ty.is_int() {
        return None;
    }
    let bits = |c: LatticeValue| c.as_scalar().filter(|v| v.ty() == ty).map(|v| v.as_u128());
    let zero = || LatticeValue::scalar(Val::uint(ty, 0));
    match op {
        B::And | B::Mul if bits(a) == Some(0) || bits(b) == Some(0) => Some(zero()),
        B::Or if bits(a) == Some(ty.mask()) || bits(b) == Some(ty.mask()) => {
            Some(LatticeValue::scalar(Val::uint(ty, ty.mask())))
        }
        B::URem if bits(b) == Some(1) => Some(zero()),
        B::SRem if bits(b) == Some(1) && ty.bits() > 1 => Some(zero()),
        _ => None,
    }
}

/// An integer comparison against the extreme value of its predicate, decided whatever the
/// other operand is: `x ult 0` is false, `x uge 0` true, `x ugt MAX` false, `x ule MAX`
/// true, and the signed forms with `MIN`/`MAX` (either operand order).
fn decided_icmp(
    pred: IntPredicate,
    ty: Type,
    a: LatticeValue,
    b: LatticeValue,
) -> Option<LatticeValue> {
    use IntPredicate as P;
    // `eq` and `ne` have no extreme value that decides them.
    if matches!(pred, P::Eq | P::Ne) || !ty.is_int() {
        return None;
    }
    let bits = |c: LatticeValue| c.as_scalar().filter(|v| v.ty() == ty).map(|v| v.as_u128());
    // Normalise to `x pred c` with the constant on the right.
    let (pred, c) = match (bits(a), bits(b)) {
        (_, Some(c)) => (pred, c),
        (Some(c), None) => {
            let swapped = match pred {
                P::Ult => P::Ugt,
                P::Ugt => P::Ult,
                P::Ule => P::Uge,
                P::Uge => P::Ule,
                P::Slt => P::Sgt,
                P::Sgt => P::Slt,
                P::Sle => P::Sge,
                P::Sge => P::Sle,
                p => p,
            };
            (swapped, c)
        }
        (None, None) => return None,
    };
    let (umax, smin) = (ty.mask(), 1u128 << (ty.bits() - 1));
    let smax = smin - 1;
    let r = match pred {
        P::Ult if c == 0 => false,
        P::Uge if c == 0 => true,
        P::Ugt if c == umax => false,
        P::Ule if c == umax => true,
        P::Slt if c == smin => false,
        P::Sge if c == smin => true,
        P::Sgt if c == smax => false,
        P::Sle if c == smax => true,
        _ => return None,
    };
    Some(LatticeValue::scalar(Val::bool(r)))
}

/// The cell of a pool constant whose data is `d`. An integer of at most 64 bits, the common
/// constant, is masked here directly: it is what [`Constant::of_pool`] (and
/// [`crate::interp::Val::uint`]) makes of it; aggregates go through the table.
#[inline(always)]
pub fn const_cell(
    aggregates: &mut AggConsts,
    consts: &ConstPool,
    c: crate::ir::Const,
    d: ConstData,
) -> LatticeValue {
    if let (ConstKind::Int(b), Some(w)) = (d.kind, narrow_width(d.ty)) {
        return LatticeValue::scalar(crate::interp::Val::Int {
            ty: d.ty,
            bits: b & (u64::MAX >> (64 - w)) as u128,
        });
    }
    aggregates
        .of_pool(consts, c)
        .map_or(LatticeValue::Overdefined, LatticeValue::Const)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::BinaryOp;

    /// The `u64` fast paths compute what the interpreter computes (every operation and
    /// predicate, exhaustively in i1 and i8, on edge values in i7, i32, i33 and i64), and
    /// report an error exactly where the interpreter does.
    #[test]
    fn narrow_paths_agree_with_the_interpreter() {
        let edges = |w: u32| -> Vec<u128> {
            let m = if w == 128 {
                u128::MAX
            } else {
                (1u128 << w) - 1
            };
            let mut v = vec![
                0,
                1,
                2,
                3,
                5,
                7,
                m,
                m - 1,
                m >> 1,
                (m >> 1) + 1,
                (m >> 1) - 1,
            ];
            v.extend([
                w as u128 - 1,
                w as u128,
                w as u128 + 1,
                0x5555_5555_5555_5555 & m,
            ]);
            v.into_iter().map(|x| x & m).collect()
        };
        let cases: Vec<(Type, Vec<u128>)> = vec![
            (Type::I1, (0..2).collect()),
            (Type::I8, (0..256).collect()),
            (Type::Int(7), edges(7)),
            (Type::I32, edges(32)),
            (Type::Int(33), edges(33)),
            (Type::I64, edges(64)),
        ];
        for (ty, vals) in cases {
            let w = narrow_width(ty).unwrap();
            for &x in &vals {
                for &y in &vals {
                    let (l, r) = (Val::uint(ty, x), Val::uint(ty, y));
                    for &op in BinaryOp::ALL {
                        let exact = ops::binary(op, ty, l, r).ok().map(|v| v.as_u128());
                        let fast = narrow_binary(op, w, x as u64, y as u64).map(u128::from);
                        assert_eq!(fast, exact, "{op} {ty} {x} {y}");
                    }
                    for &pred in IntPredicate::ALL {
                        let exact = ops::icmp(pred, ty, l, r).unwrap();
                        assert_eq!(narrow_icmp(pred, w, x as u64, y as u64), exact);
                    }
                }
            }
        }
        assert_eq!(narrow_width(Type::I128), None);
        assert_eq!(narrow_width(Type::Ptr), None);
        assert_eq!(narrow_width(Type::F64), None);
    }

    /// The `u64` cast path computes what the interpreter computes for every cast between
    /// integer types of at most 64 bits (values: all of i1 and i8, edges of the others),
    /// and declines every cast the general path must decide.
    #[test]
    fn narrow_casts_agree_with_the_interpreter() {
        use crate::ir::CastOp;
        let types = [
            Type::I1,
            Type::I8,
            Type::Int(7),
            Type::I16,
            Type::I32,
            Type::Int(33),
            Type::I64,
        ];
        let mut checked = 0;
        for from in types {
            let wf = narrow_width(from).unwrap();
            let m = u64::MAX >> (64 - wf);
            let vals: Vec<u64> = if wf <= 8 {
                (0..=m).collect()
            } else {
                vec![
                    0,
                    1,
                    2,
                    0x7f,
                    0x80,
                    0xff,
                    m,
                    m - 1,
                    m >> 1,
                    (m >> 1) + 1,
                    0x5555_5555_5555_5555 & m,
                ]
            };
            for to in types {
                let wt = narrow_width(to).unwrap();
                for &op in CastOp::ALL {
                    for &x in &vals {
                        let exact = ops::cast(op, from, to, Val::uint(from, x as u128));
                        match narrow_cast(op, wf, wt, x) {
                            Some(r) => {
                                assert_eq!(
                                    Val::Int {
                                        ty: to,
                                        bits: r as u128
                                    },
                                    exact.unwrap(),
                                    "{op} {from} {x} to {to}"
                                );
                                checked += 1;
                            }
                            None => assert!(
                                !matches!(op, CastOp::Trunc | CastOp::ZExt | CastOp::SExt)
                                    || exact.is_err(),
                                "{op} {from} to {to}"
                            ),
                        }
                    }
                }
            }
        }
        assert!(checked > 1000);
    }

    /// Every rule that decides a result from one operand agrees with the interpreter on
    /// every value of the other operand (exhaustive in i8 and i1), and never hides a trap.
    #[test]
    fn decided_rules_agree_with_the_interpreter() {
        for ty in [Type::I1, Type::I8] {
            let n = 1u128 << ty.bits();
            let consts: Vec<LatticeValue> = (0..n)
                .map(|c| LatticeValue::scalar(Val::uint(ty, c)))
                .collect();
            for &k in &consts {
                for x in 0..n {
                    let xv = Val::uint(ty, x);
                    let kv = k.as_scalar().unwrap();
                    let over = LatticeValue::Overdefined;
                    for op in BinaryOp::ALL.iter().copied().filter(|o| !o.is_float()) {
                        for (a, b, l, r) in [(k, over, kv, xv), (over, k, xv, kv)] {
                            if let Some(d) = decided_binary(op, ty, a, b) {
                                let exact = ops::binary(op, ty, l, r).ok();
                                assert_eq!(
                                    Some(d),
                                    exact.map(LatticeValue::scalar),
                                    "{op} {l} {r}"
                                );
                            }
                        }
                    }
                    for &pred in IntPredicate::ALL {
                        for (a, b, l, r) in [(k, over, kv, xv), (over, k, xv, kv)] {
                            if let Some(d) = decided_icmp(pred, ty, a, b) {
                                let exact = ops::icmp(pred, ty, l, r).unwrap();
                                assert_eq!(
                                    d,
                                    LatticeValue::scalar(Val::bool(exact)),
                                    "{pred} {l} {r}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

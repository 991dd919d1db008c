//! Vector instructions in the interpreter: a vector value is the member list of its lanes
//! in the aggregate arena ([`Val::Agg`] with a vector type); each operation reads the
//! lanes, applies [`super::lanes`] and interns the result. Loads and stores pack the lanes
//! as LLVM lays them out in memory ([`super::lanes::pack`]).
//!
//! The `llvm.vector.reduce.*` intrinsics fold a vector's lanes into one scalar of the lane
//! type, lane 0 first, exactly as the LangRef defines them: `add`, `mul`, `and`, `or` and
//! `xor` wrap at the lane width; `smax`, `smin`, `umax` and `umin` compare signed or
//! unsigned; `fadd` and `fmul` take a start value and are the ordered reduction
//! `((start op v0) op v1) ...` (the sequential result, which every fast-math flag allows
//! too); `fmax` and `fmin` follow `maxnum`/`minnum`: a NaN lane is ignored unless every lane
//! is NaN, and between `+0.0` and `-0.0` `fmax` returns `+0.0` and `fmin` `-0.0` (LLVM
//! allows either; this is what `fmaxnm`/`fminnm` and C's `fmax`/`fmin` return).
//!
//! The SSE2 shifts (`llvm.x86.sse2.psll.q`, `psrli.w`, `psrai.d`, ...) shift every lane by
//! one count, as the instructions do: the immediate forms take it from their `i32`, the
//! others from the low 64 bits of their second vector; a count of the lane width or more
//! gives 0 for the logical shifts and fills with the sign for the arithmetic one.
//!
//! Errors: an `extractelement`/`insertelement` index past the last lane (LLVM: poison) and a
//! lane operation's own errors (division by zero in a lane, ...) stop the run with the
//! instruction's location; a reduction with arguments of the wrong shape or an unknown
//! operation is an [`InterpError::ExternalError`]. Complexity: O(lanes) per instruction.

use super::exec::{Interpreter, Pc};
use super::externals::{Call, ExtResult};
use super::{lanes, ops, EvalError, InterpError, Val};
use crate::ir::{BinaryOp, Function, InstKind, IntPredicate, Operand, Type};

impl Interpreter<'_> {
    /// The lanes of a vector operand of type `ty`, or the scalar itself for a scalar `ty`.
    fn lanes_of(&self, pc: Pc, op: Operand, ty: Type) -> Result<Vec<Val>, InterpError> {
        let v = self.get_typed(pc, op, ty)?;
        if ty.is_vector() {
            Ok(self.agg_members(pc, v)?.to_vec())
        } else {
            Ok(vec![v])
        }
    }

    fn lane_result(
        &mut self,
        pc: Pc,
        ty: Type,
        r: Result<Vec<Val>, super::ops::EvalError>,
    ) -> Result<Val, InterpError> {
        let lanes = r.map_err(|e| InterpError::from_eval(e, self.loc(pc)))?;
        if ty.is_vector() {
            self.make_agg(pc, ty, &lanes)
        } else {
            lanes
                .first()
                .copied()
                .ok_or_else(|| self.malformed(pc, "a cast to a scalar produced no value"))
        }
    }

    /// Executes a vector instruction (an element-wise operation on a vector type, a cast
    /// from or to one, `extractelement`, `insertelement`, `shufflevector`).
    pub(super) fn exec_vector(
        &mut self,
        pc: Pc,
        f: &Function,
        kind: &InstKind,
    ) -> Result<Val, InterpError> {
        match kind {
            InstKind::Binary { op, ty, lhs, rhs } => {
                let (a, b) = (self.lanes_of(pc, *lhs, *ty)?, self.lanes_of(pc, *rhs, *ty)?);
                self.lane_result(pc, *ty, lanes::binary(*op, ty.lane(), &a, &b))
            }
            InstKind::Unary { op, ty, arg } => {
                let a = self.lanes_of(pc, *arg, *ty)?;
                self.lane_result(pc, *ty, lanes::unary(*op, ty.lane(), &a))
            }
            InstKind::Icmp { pred, ty, lhs, rhs } => {
                let (a, b) = (self.lanes_of(pc, *lhs, *ty)?, self.lanes_of(pc, *rhs, *ty)?);
                let r = lanes::icmp(*pred, ty.lane(), &a, &b);
                self.lane_result(pc, ty.with_lane(Type::I1), r)
            }
            InstKind::Fcmp { pred, ty, lhs, rhs } => {
                let (a, b) = (self.lanes_of(pc, *lhs, *ty)?, self.lanes_of(pc, *rhs, *ty)?);
                let r = lanes::fcmp(*pred, ty.lane(), &a, &b);
                self.lane_result(pc, ty.with_lane(Type::I1), r)
            }
            InstKind::Cast { op, from, to, arg } => {
                let a = self.lanes_of(pc, *arg, *from)?;
                self.lane_result(pc, *to, lanes::cast(*op, *from, *to, &a))
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                let c = self.get(pc, *cond)?;
                if c.ty() == Type::I1 {
                    let pick = if c.as_u128() != 0 { if_true } else { if_false };
                    return self.get_typed(pc, *pick, *ty);
                }
                let c = self.lanes_of(pc, *cond, ty.with_lane(Type::I1))?;
                let t = self.lanes_of(pc, *if_true, *ty)?;
                let e = self.lanes_of(pc, *if_false, *ty)?;
                self.lane_result(pc, *ty, lanes::select(&c, &t, &e))
            }
            InstKind::ExtractElement { ty, vec, index } => {
                let v = self.lanes_of(pc, *vec, *ty)?;
                let i = self.lane_index(pc, *index, v.len())?;
                Ok(v[i])
            }
            InstKind::InsertElement {
                ty,
                vec,
                value,
                index,
            } => {
                let mut v = self.lanes_of(pc, *vec, *ty)?;
                let x = self.get_typed(pc, *value, ty.lane())?;
                let i = self.lane_index(pc, *index, v.len())?;
                v[i] = x;
                self.make_agg(pc, *ty, &v)
            }
            InstKind::ShuffleVector {
                ty,
                result,
                a,
                b,
                mask,
            } => {
                let (x, y) = (self.lanes_of(pc, *a, *ty)?, self.lanes_of(pc, *b, *ty)?);
                let mask = shuffle_mask(f, *mask, result.lanes()).ok_or_else(|| {
                    self.malformed(pc, "shufflevector mask is not a constant vector of i32")
                })?;
                let r = lanes::shuffle(&x, &y, &mask, ty.lane());
                self.lane_result(pc, *result, r)
            }
            other => Err(self.malformed(
                pc,
                format!("`{}` is not a vector operation", other.opcode_name()),
            )),
        }
    }

    /// `llvm.vector.reduce.OP.*` (see the module doc): the lanes of the vector argument
    /// folded by `OP`, lane 0 first; `fadd` and `fmul` start from their first argument.
    pub(super) fn vector_reduce(&mut self, c: &Call) -> Result<ExtResult, InterpError> {
        let op = operation(c.name, "llvm.vector.reduce.");
        let ordered = matches!(op, "fadd" | "fmul");
        let (start, vector) = match (ordered, c.args) {
            (true, [start, vector]) => (Some(*start), *vector),
            (false, [vector]) => (None, *vector),
            _ => {
                let want = if ordered {
                    "a start value and a vector"
                } else {
                    "one vector"
                };
                return Err(self.ext_err(c, format!("expects {want}")));
            }
        };
        let ty = vector.ty();
        let members = match vector {
            Val::Agg { .. } if ty.is_vector() => self.agg_members(c.pc, vector)?,
            _ => return Err(self.ext_err(c, format!("argument {vector} is not a vector"))),
        };
        let lane = ty.lane();
        let (first, rest) = match (start, members) {
            (Some(s), _) => (s, members),
            (None, [first, rest @ ..]) => (*first, rest),
            (None, []) => return Err(self.ext_err(c, "a vector with no lanes".to_string())),
        };
        if first.ty() != lane || c.ret != lane {
            return Err(self.ext_err(
                c,
                format!("a reduction of {ty} starts from and returns {lane}"),
            ));
        }
        let r = reduce(op, lane, first, rest).map_err(|why| self.ext_err(c, why.to_string()))?;
        Ok(ExtResult::Value(Some(r)))
    }

    /// `llvm.x86.sse2.{psll,psrl,psra}{,i}.*` (see the module doc): the vector argument's
    /// lanes shifted by the count argument.
    pub(super) fn x86_shift(&mut self, c: &Call) -> Result<ExtResult, InterpError> {
        let op = operation(c.name, "llvm.x86.sse2.");
        let (vector, count) = match c.args {
            [vector, count] => (*vector, *count),
            _ => return Err(self.ext_err(c, "expects a vector and a count".to_string())),
        };
        let ty = vector.ty();
        if !matches!(vector, Val::Agg { .. }) || !ty.is_vector() || c.ret != ty {
            return Err(self.ext_err(c, format!("argument {vector} is not a {} vector", c.ret)));
        }
        let n = match count {
            Val::Int { bits, .. } if op.ends_with('i') => bits,
            Val::Agg { .. } if count.ty().is_vector() && !op.ends_with('i') => {
                let count_ty = count.ty();
                let bytes = lanes::pack(self.agg_members(c.pc, count)?, count_ty.lane());
                let low: [u8; 8] =
                    bytes
                        .get(..8)
                        .and_then(|b| b.try_into().ok())
                        .ok_or_else(|| {
                            self.ext_err(c, format!("count {count} is narrower than 64 bits"))
                        })?;
                u64::from_le_bytes(low) as u128
            }
            _ => return Err(self.ext_err(c, format!("count {count} does not fit `{op}`"))),
        };
        let lane = ty.lane();
        let width = lane.bits();
        if !lane.is_int() {
            return Err(self.ext_err(c, format!("{lane} lanes are not integers")));
        }
        let shifted: Vec<Val> = self
            .agg_members(c.pc, vector)?
            .iter()
            .map(|x| {
                let bits = x.as_u128();
                match op.trim_end_matches('i') {
                    "psll" if n < width as u128 => Val::uint(lane, bits << n),
                    "psrl" if n < width as u128 => Val::uint(lane, bits >> n),
                    "psra" => {
                        let by = n.min(width as u128 - 1) as u32;
                        Val::int(lane, super::value::sext(bits, width) >> by)
                    }
                    _ => Val::uint(lane, 0),
                }
            })
            .collect();
        if !matches!(op.trim_end_matches('i'), "psll" | "psrl" | "psra") {
            return Err(self.ext_err(c, format!("unknown shift `{op}`")));
        }
        let r = self.make_agg(c.pc, ty, &shifted)?;
        Ok(ExtResult::Value(Some(r)))
    }

    fn lane_index(&self, pc: Pc, index: Operand, lanes: usize) -> Result<usize, InterpError> {
        let i = self.get(pc, index)?;
        if !i.ty().is_int() {
            return Err(self.mismatch(pc, format!("lane index {i} is not an integer")));
        }
        let k = i.as_u128();
        if k >= lanes as u128 {
            return Err(self.malformed(
                pc,
                format!("lane index {k} is past the last lane of a {lanes}-lane vector (poison)"),
            ));
        }
        Ok(k as usize)
    }

    /// Loads a vector of type `ty`: its store size in bytes, unpacked into lanes.
    pub(super) fn load_vector(&mut self, pc: Pc, ty: Type, addr: u64) -> Result<Val, InterpError> {
        let bytes = self
            .fault(pc, self.mem.read(addr, ty.bytes() as u64))?
            .to_vec();
        let lanes = lanes::unpack(&bytes, ty);
        self.make_agg(pc, ty, &lanes)
    }

    /// Stores the vector `v`: its lanes packed into its store size.
    pub(super) fn store_vector(&mut self, pc: Pc, v: Val, addr: u64) -> Result<(), InterpError> {
        let ty = v.ty();
        let bytes = lanes::pack(self.agg_members(pc, v)?, ty.lane());
        let r = self
            .mem
            .write(addr, bytes.len() as u64)
            .map(|m| m.copy_from_slice(&bytes));
        self.fault(pc, r)
    }
}

/// The lanes of a shuffle mask constant of `f`'s pool ([`crate::ir::ConstPool::mask_lanes`]).
fn shuffle_mask(f: &Function, mask: crate::ir::Const, lanes: u32) -> Option<Vec<Option<u32>>> {
    f.consts.mask_lanes(mask, lanes)
}

/// The operation an intrinsic's name gives after `prefix`: `add` in
/// `llvm.vector.reduce.add.v4i32` (empty if the name does not start with `prefix`).
fn operation<'a>(name: &'a str, prefix: &str) -> &'a str {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.split('.').next())
        .unwrap_or("")
}

/// Why a `llvm.vector.reduce.*` call has no value (reported as the call's external error).
#[derive(Debug, thiserror::Error)]
enum ReduceError {
    /// The operation does not take lanes of this type (`fadd` of integers, `add` of floats).
    #[error("`{op}` does not reduce {lane} lanes")]
    LaneType { op: String, lane: Type },
    /// An operation that is not one of LLVM 14's reductions.
    #[error("unknown reduction `{0}`")]
    Unknown(String),
    /// A lane the arithmetic or comparison rejects.
    #[error("{0:?}")]
    Eval(EvalError),
    /// `fmax`/`fmin` of lanes that are not comparable floats.
    #[error("{0} or {1}")]
    NotFloats(Val, Val),
}

/// Folds `lanes` into `acc` by the reduction `op` (the name in `llvm.vector.reduce.OP`) on
/// lanes of type `lane`; [`ReduceError`] for an unknown operation or a lane type it does not
/// take.
fn reduce(op: &str, lane: Type, mut acc: Val, lanes: &[Val]) -> Result<Val, ReduceError> {
    let arithmetic = match op {
        "add" => Some(BinaryOp::Add),
        "mul" => Some(BinaryOp::Mul),
        "and" => Some(BinaryOp::And),
        "or" => Some(BinaryOp::Or),
        "xor" => Some(BinaryOp::Xor),
        "fadd" => Some(BinaryOp::FAdd),
        "fmul" => Some(BinaryOp::FMul),
        _ => None,
    };
    let float_op = matches!(op, "fadd" | "fmul" | "fmax" | "fmin");
    if float_op != lane.is_float() || !(lane.is_float() || lane.is_int()) {
        return Err(ReduceError::LaneType {
            op: op.to_string(),
            lane,
        });
    }
    if let Some(bop) = arithmetic {
        for &x in lanes {
            acc = ops::binary(bop, lane, acc, x).map_err(ReduceError::Eval)?;
        }
        return Ok(acc);
    }
    // The predicate under which the accumulator stays.
    let keeps = match op {
        "smax" => IntPredicate::Sge,
        "smin" => IntPredicate::Sle,
        "umax" => IntPredicate::Uge,
        "umin" => IntPredicate::Ule,
        "fmax" | "fmin" => {
            for &x in lanes {
                acc = max_num(acc, x, op == "fmax").ok_or(ReduceError::NotFloats(acc, x))?;
            }
            return Ok(acc);
        }
        _ => return Err(ReduceError::Unknown(op.to_string())),
    };
    for &x in lanes {
        if !ops::icmp(keeps, lane, acc, x).map_err(ReduceError::Eval)? {
            acc = x;
        }
    }
    Ok(acc)
}

/// `maxnum(a, b)` (`max`) or `minnum(a, b)`: the other operand when one is NaN (`a` when
/// both are), `+0.0` over `-0.0` for `max` and `-0.0` for `min`; the chosen lane keeps its
/// bits. `None` if a lane is not a float this can compare.
pub(super) fn max_num(a: Val, b: Val, max: bool) -> Option<Val> {
    let (x, y) = (a.as_f64()?, b.as_f64()?);
    Some(if y.is_nan() {
        a
    } else if x.is_nan() {
        b
    } else if x == y {
        // Equal: only the signs of zeros can differ.
        if x.is_sign_negative() != max {
            a
        } else {
            b
        }
    } else if (x > y) == max {
        a
    } else {
        b
    })
}

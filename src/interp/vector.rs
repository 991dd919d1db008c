//! Vector instructions in the interpreter: a vector value is the member list of its lanes
//! in the aggregate arena ([`Val::Agg`] with a vector type); each operation reads the
//! lanes, applies [`super::lanes`] and interns the result. Loads and stores pack the lanes
//! as LLVM lays them out in memory ([`super::lanes::pack`]).
//!
//! Errors: an `extractelement`/`insertelement` index past the last lane (LLVM: poison) and a
//! lane operation's own errors (division by zero in a lane, ...) stop the run with the
//! instruction's location. Complexity: O(lanes) per instruction.

use super::exec::{Interpreter, Pc};
use super::{lanes, InterpError, Val};
use crate::ir::{Function, InstKind, Operand, Type};

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

//! Aggregate values in the interpreter: the arena behind [`Val::Agg`], and whole-aggregate
//! loads, stores, `extractvalue` and `insertvalue`.
//!
//! An aggregate value is a member list in the interpreter's arena, hash-consed so that the
//! same members always give the same id (a loop that rebuilds the same pair does not grow
//! the arena). Aggregate constants of the module's pools are converted once, when the
//! interpreter is created, and stay; everything a run creates is dropped when the next run
//! starts. The arena's bytes count against the memory limit, so a run that builds unboundedly
//! many distinct aggregates ends with a memory-limit error, never by exhausting the host.
//!
//! A load of an aggregate reads each scalar member at its layout offset (padding is not
//! read); a store writes each member (padding is left as it was), as LLVM does.
//! Complexity: O(members) per load, store, `insertvalue` and creation; O(1) `extractvalue`.

use super::exec::{Interpreter, Pc};
use super::{ConstError, InterpError, Val};
use crate::ir::{Const, ConstKind, ConstPool, Type};
use std::collections::HashMap;

/// The arena of aggregate member lists.
#[derive(Default)]
pub(super) struct AggArena {
    lists: Vec<Box<[Val]>>,
    index: HashMap<Box<[Val]>, u32>,
    /// Number of lists created by [`Interpreter::new`] (constants), kept across runs.
    persistent: usize,
    /// Bytes held by the lists created by the current run.
    run_bytes: u64,
}

impl AggArena {
    /// Interns a member list; `None` if that would pass `limit` bytes for this run.
    pub(super) fn intern(&mut self, ty: Type, members: &[Val], limit: u64) -> Option<Val> {
        if let Some(&id) = self.index.get(members) {
            return Some(Val::Agg { ty, id });
        }
        // The list is held twice (arena and index), plus the map's overhead.
        let bytes = 3 * std::mem::size_of_val(members) as u64 + 64;
        if self.run_bytes + bytes > limit {
            return None;
        }
        self.run_bytes += bytes;
        let id = self.lists.len() as u32;
        self.lists.push(members.into());
        self.index.insert(members.into(), id);
        Some(Val::Agg { ty, id })
    }

    /// The members of an aggregate value of this arena.
    pub(super) fn members(&self, v: Val) -> Option<&[Val]> {
        match v {
            Val::Agg { id, .. } => self.lists.get(id as usize).map(|l| &**l),
            _ => None,
        }
    }

    /// Marks everything interned so far as persistent (module constants).
    pub(super) fn seal(&mut self) {
        self.persistent = self.lists.len();
        self.run_bytes = 0;
    }

    /// Drops what the previous run created.
    pub(super) fn reset_run(&mut self) {
        if self.lists.len() > self.persistent {
            let keep = self.persistent as u32;
            self.lists.truncate(self.persistent);
            self.index.retain(|_, id| *id < keep);
        }
        self.run_bytes = 0;
    }

    /// The scalar leaves of `v` in member order (a scalar gives itself).
    pub(super) fn flatten(&self, v: Val, out: &mut Vec<Val>) {
        match self.members(v) {
            Some(ms) => ms.iter().for_each(|&m| self.flatten(m, out)),
            None => out.push(v),
        }
    }

    /// Converts the aggregate or `undef`/zero constant `c` of type `ty` (an aggregate type)
    /// of `pool`, with `scalar` converting scalar members.
    pub(super) fn constant(
        &mut self,
        pool: &ConstPool,
        c: Const,
        scalar: &dyn Fn(Const) -> Result<Val, ConstError>,
    ) -> Result<Val, ConstError> {
        let data = pool.get(c);
        let Some(info) = data.ty.shape_info() else {
            return scalar(c);
        };
        let mut members = Vec::with_capacity(info.len());
        match data.kind {
            ConstKind::Aggregate(_) => {
                let ms = pool.members(c).ok_or(ConstError::NoMembers)?;
                if ms.len() != info.len() {
                    return Err(ConstError::ShapeMismatch {
                        constant: c,
                        ty: data.ty,
                    });
                }
                for &m in ms {
                    members.push(self.constant(pool, m, scalar)?);
                }
            }
            ConstKind::Undef => {
                for i in 0..info.len() {
                    members.push(self.zero(info.member(i).unwrap_or(Type::I8))?);
                }
            }
            kind => {
                return Err(ConstError::KindMismatch { kind, ty: data.ty });
            }
        }
        self.intern(data.ty, &members, u64::MAX)
            .ok_or(ConstError::TooLarge)
    }

    /// The zero (and `undef`) value of any value type.
    pub(super) fn zero(&mut self, ty: Type) -> Result<Val, ConstError> {
        match ty.shape_info() {
            None => Val::zero(ty).ok_or(ConstError::NoZero(ty)),
            Some(info) => {
                let mut members = Vec::with_capacity(info.len());
                for i in 0..info.len() {
                    members.push(self.zero(info.member(i).unwrap_or(Type::I8))?);
                }
                self.intern(ty, &members, u64::MAX)
                    .ok_or(ConstError::TooLarge)
            }
        }
    }
}

impl Interpreter<'_> {
    /// Creates the aggregate of type `ty` with `members` in the current run.
    pub(super) fn make_agg(
        &mut self,
        pc: Pc,
        ty: Type,
        members: &[Val],
    ) -> Result<Val, InterpError> {
        let limit = self.config.memory_limit;
        self.aggs
            .intern(ty, members, limit)
            .ok_or_else(|| InterpError::MemoryLimit {
                at: self.loc(pc),
                requested: self.aggs.run_bytes,
            })
    }

    pub(super) fn agg_members(&self, pc: Pc, v: Val) -> Result<&[Val], InterpError> {
        self.aggs
            .members(v)
            .ok_or_else(|| self.mismatch(pc, format!("expected an aggregate, found {v}")))
    }

    /// Loads a value of aggregate type `ty` member by member.
    pub(super) fn load_agg(&mut self, pc: Pc, ty: Type, addr: u64) -> Result<Val, InterpError> {
        let info = ty
            .agg_info()
            .ok_or_else(|| self.mismatch(pc, format!("{ty} is not an aggregate")))?;
        let mut members = Vec::with_capacity(info.len());
        for i in 0..info.len() {
            let (t, off) = ty.member(i).unwrap_or((Type::I8, 0));
            let a = addr.wrapping_add(off);
            members.push(if t.is_aggregate() {
                self.load_agg(pc, t, a)?
            } else if t.is_vector() {
                self.load_vector(pc, t, a)?
            } else {
                self.load(pc, t, a)?
            });
        }
        self.make_agg(pc, ty, &members)
    }

    /// Stores the aggregate value `v` member by member.
    pub(super) fn store_agg(&mut self, pc: Pc, v: Val, addr: u64) -> Result<(), InterpError> {
        let ty = v.ty();
        let members = self.agg_members(pc, v)?.to_vec();
        for (i, m) in members.into_iter().enumerate() {
            let (_, off) = ty.member(i).unwrap_or((Type::I8, 0));
            let a = addr.wrapping_add(off);
            if m.ty().is_aggregate() {
                self.store_agg(pc, m, a)?;
            } else if m.ty().is_vector() {
                self.store_vector(pc, m, a)?;
            } else {
                self.store(pc, m, a)?;
            }
        }
        Ok(())
    }

    /// `extractvalue`: member `index` of `v`.
    pub(super) fn extract(&self, pc: Pc, v: Val, index: u32) -> Result<Val, InterpError> {
        self.agg_members(pc, v)?
            .get(index as usize)
            .copied()
            .ok_or_else(|| self.mismatch(pc, format!("{v} has no member {index}")))
    }

    /// `insertvalue`: `v` with member `index` replaced by `m`.
    pub(super) fn insert(
        &mut self,
        pc: Pc,
        v: Val,
        m: Val,
        index: u32,
    ) -> Result<Val, InterpError> {
        let mut members = self.agg_members(pc, v)?.to_vec();
        match members.get_mut(index as usize) {
            Some(slot) if slot.ty() == m.ty() => *slot = m,
            _ => {
                return Err(self.mismatch(pc, format!("cannot insert {m} as member {index} of {v}")))
            }
        }
        self.make_agg(pc, v.ty(), &members)
    }
}

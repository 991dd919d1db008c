//! Lowering of LLVM `extractvalue` and `insertvalue` with index paths.
//!
//! strata's `extractvalue`/`insertvalue` take one member index; an LLVM index path
//! `i0, i1, ..., in` becomes a chain: `extractvalue` walks the path one member at a time, and
//! `insertvalue` extracts the enclosing aggregates along the path, inserts the new member
//! into the innermost and re-inserts each result into its parent, innermost first. An index
//! outside its aggregate, or a member of the wrong type, is malformed input.
//! Complexity: O(path length) instructions.

use super::*;

impl<'a, 'm> Lower<'a, 'm> {
    /// The index list of `extractvalue`/`insertvalue`: one or more integers after a comma
    /// (the comma before the first is already consumed); stops before `, !dbg` and the like.
    pub(super) fn member_indices(&mut self) -> PResult<SmallVec<[u32; 2]>> {
        let mut out = SmallVec::new();
        loop {
            let t = self.c.peek();
            let k = self.c.parse_u64("a member index")?;
            out.push(u32::try_from(k).or_else(|_| self.err(t, format!("index {k} too large")))?);
            if self.c.peek().kind == Tok::Comma && self.c.peek2() == Tok::Int {
                self.c.bump();
            } else {
                return Ok(out);
            }
        }
    }

    /// The strata type of member `index` of `agg_ty`, or a malformed-input error at `at`.
    fn member_type(&self, at: Token, ty: &LType, agg_ty: Type, index: u32) -> PResult<Type> {
        match agg_ty.member(index as usize) {
            Some((m, _)) => Ok(m),
            None if agg_ty.is_aggregate() => {
                self.err(at, format!("index {index} is out of range of {ty}"))
            }
            None => self.err(at, format!("{ty} is not an aggregate type")),
        }
    }

    /// `extractvalue` along `indices`, from the aggregate operand `agg` of LLVM type `ty`.
    pub(super) fn extract_path(
        &mut self,
        at: Token,
        ty: &LType,
        agg: Operand,
        indices: &[u32],
    ) -> PResult<Operand> {
        let mut cur = agg;
        for &index in indices {
            let agg_ty = self.b.function().operand_type(cur);
            self.member_type(at, ty, agg_ty, index)?;
            cur = self.push1(InstKind::ExtractValue {
                ty: agg_ty,
                agg: cur,
                index,
            });
        }
        Ok(cur)
    }

    /// `insertvalue` of `member` into `agg` (of LLVM type `ty`) along `indices`.
    pub(super) fn insert_path(
        &mut self,
        at: Token,
        ty: &LType,
        agg: Operand,
        member: Operand,
        indices: &[u32],
    ) -> PResult<Operand> {
        // The aggregates enclosing the inserted member, outermost first.
        let mut parents: SmallVec<[(Operand, Type); 2]> = SmallVec::new();
        let mut cur = agg;
        for (k, &index) in indices.iter().enumerate() {
            let agg_ty = self.b.function().operand_type(cur);
            let m = self.member_type(at, ty, agg_ty, index)?;
            parents.push((cur, agg_ty));
            if k + 1 == indices.len() {
                let got = self.b.function().operand_type(member);
                if got != m && self.stand_in.is_none() {
                    return self.err(
                        at,
                        format!("insertvalue of {got} into a member of type {m}"),
                    );
                }
            } else {
                cur = self.push1(InstKind::ExtractValue {
                    ty: agg_ty,
                    agg: cur,
                    index,
                });
            }
        }
        let mut value = member;
        for (&(parent, agg_ty), &index) in parents.iter().zip(indices).rev() {
            value = self.push1(InstKind::InsertValue {
                ty: agg_ty,
                agg: parent,
                value,
                index,
            });
        }
        Ok(value)
    }
}

//! Lowering of LLVM's vector element instructions: `extractelement`, `insertelement` and
//! `shufflevector`, onto the IR instructions of the same names.
//!
//! The vector operand must have a vector type and the lane operand (insert) the lane type;
//! indices may be any integer type (LLVM accepts any). A shuffle mask is a constant
//! `<M x i32>` (`<i32 0, i32 undef, ...>`, `zeroinitializer`, `undef`, `poison`) whose lanes
//! are below twice the input lane count. Anything else is malformed input at the
//! instruction.
//!
//! A `getelementptr` with a vector base or vector indices (the vectorizer's vectors of
//! addresses) becomes, per lane, `extractelement`s of the vector operands, one scalar `gep`
//! and an `insertelement` into the `<N x ptr>` result; struct field indices must be
//! constants (a vector of equal constants counts, as LLVM requires).
//! Complexity: linear in the instruction's tokens (times the lanes for a vector GEP).

use super::*;

impl<'a, 'm> Lower<'a, 'm> {
    /// Parses the operands of `op` (one of the three) and pushes the instruction.
    pub(super) fn vector_inst(&mut self, op: &str, op_tok: Token) -> PResult<Operand> {
        let (vt, vv) = self.typed()?;
        let ty = self.scalar(&vt, op_tok)?;
        if !ty.is_vector() && self.stand_in.is_none() {
            return self.err(op_tok, format!("`{op}` of {vt}, which is not a vector"));
        }
        self.comma()?;
        let vec = self.operand(&vt, &vv)?;
        let index_of = |s: &mut Self, t: &LType, v: &Val<'a>| -> PResult<Operand> {
            let it = s.scalar(t, op_tok)?;
            if !it.is_int() {
                return s.err(op_tok, format!("`{op}` index of type {t}"));
            }
            s.operand(t, v)
        };
        let kind = match op {
            "extractelement" => {
                let (it, iv) = self.typed()?;
                let index = index_of(self, &it, &iv)?;
                InstKind::ExtractElement { ty, vec, index }
            }
            "insertelement" => {
                let (lt, lv) = self.typed()?;
                if self.scalar(&lt, op_tok)? != ty.lane() && self.stand_in.is_none() {
                    return self.err(op_tok, format!("insertelement of {lt} into {vt}"));
                }
                let value = self.operand(&lt, &lv)?;
                self.comma()?;
                let (it, iv) = self.typed()?;
                let index = index_of(self, &it, &iv)?;
                InstKind::InsertElement {
                    ty,
                    vec,
                    value,
                    index,
                }
            }
            _ => {
                let (bt, bv) = self.typed()?;
                if self.scalar(&bt, op_tok)? != ty && self.stand_in.is_none() {
                    return self.err(op_tok, format!("shufflevector of {vt} and {bt}"));
                }
                let b = self.operand(&bt, &bv)?;
                self.comma()?;
                let (mt, mv) = self.typed()?;
                let mask_ty = self.scalar(&mt, op_tok)?;
                let Some((m, Type::I32)) = mask_ty.vector_shape() else {
                    return self.err(op_tok, format!("shufflevector mask of type {mt}"));
                };
                let Operand::Const(mask) = self.operand(&mt, &mv)? else {
                    return self.err(op_tok, "shufflevector mask is not a constant");
                };
                let inputs = 2 * ty.lanes() as u64;
                let lanes = self.b.function().consts.mask_lanes(mask, m);
                if lanes.is_none_or(|l| l.iter().flatten().any(|&k| k as u64 >= inputs)) {
                    return self.err(
                        op_tok,
                        format!("shufflevector mask lanes must be undef or below {inputs}"),
                    );
                }
                let result =
                    Type::vector_of(m, ty.lane()).or_else(|e| self.err(op_tok, e.to_string()))?;
                InstKind::ShuffleVector {
                    ty,
                    result,
                    a: vec,
                    b,
                    mask,
                }
            }
        };
        Ok(self.push1(kind))
    }

    /// A lane-wise `getelementptr` of `n` lanes (see the module doc).
    pub(super) fn vector_gep(
        &mut self,
        src: &LType,
        base: &TVal<'a>,
        idx: &[TVal<'a>],
        n: u64,
    ) -> PResult<Operand> {
        let at = self.at;
        let lanes = u32::try_from(n).or_else(|_| self.err(at, format!("{n} lanes")))?;
        let is_ptr = |t: &LType| match t {
            LType::Vector(_, e) => e.is_ptr(),
            t => t.is_ptr(),
        };
        if !is_ptr(&base.0) {
            return self.err(at, format!("getelementptr base of type {}", base.0));
        }
        // A constant index is one integer (a vector of equal constants counts).
        let splat = |t: &LType, v: &Val<'a>| -> Option<i64> {
            match (t, v) {
                (LType::Vector(..), Val::Agg(ms)) => {
                    let ks: Option<Vec<i64>> =
                        ms.iter().map(|(mt, mv)| const_int(mt, mv)).collect();
                    ks.filter(|ks| ks.windows(2).all(|w| w[0] == w[1]))
                        .and_then(|ks| ks.first().copied())
                }
                (LType::Vector(..), Val::Zero) => Some(0),
                (LType::Vector(..), _) => None,
                _ => const_int(t, v),
            }
        };
        let consts: Vec<Option<i64>> = idx.iter().map(|(t, v)| splat(t, v)).collect();
        let (offset, kinds) =
            gep_fold(&self.m.layouts, src, &consts).or_else(|e| self.err(at, e.to_string()))?;
        let base_op = self.operand(&base.0, &base.1)?;
        let mut scaled: SmallVec<[(Operand, i64); 2]> = SmallVec::new();
        for ((t, v), k) in idx.iter().zip(&kinds) {
            if let GepIdx::Scaled(scale) = k {
                let st = self.scalar(t, at)?;
                if !st.lane().is_int() || (st.is_vector() && st.lanes() != lanes) {
                    return self.err(at, format!("getelementptr index of type {t}"));
                }
                scaled.push((self.operand(t, v)?, *scale));
            }
        }
        let vty = Type::vector_of(lanes, Type::Ptr).or_else(|e| self.err(at, e.to_string()))?;
        let mut acc = self.konst(ConstData {
            ty: vty,
            kind: ConstKind::Undef,
        });
        for i in 0..lanes {
            let lane = self.konst(ConstData::int(Type::I32, i as u128));
            let lane_of = |s: &mut Self, o: Operand| -> Operand {
                let ty = s.b.function().operand_type(o);
                if ty.is_vector() {
                    s.push1(InstKind::ExtractElement {
                        ty,
                        vec: o,
                        index: lane,
                    })
                } else {
                    o
                }
            };
            let b = lane_of(self, base_op);
            let indices: SmallVec<[(Operand, i64); 2]> =
                scaled.iter().map(|&(o, k)| (lane_of(self, o), k)).collect();
            let g = self.push1(InstKind::Gep {
                base: b,
                offset,
                indices,
            });
            acc = self.push1(InstKind::InsertElement {
                ty: vty,
                vec: acc,
                value: g,
                index: lane,
            });
        }
        Ok(acc)
    }
}

//! Lowering of LLVM's vector element instructions: `extractelement`, `insertelement` and
//! `shufflevector`, onto the IR instructions of the same names.
//!
//! The vector operand must have a vector type and the lane operand (insert) the lane type;
//! indices may be any integer type (LLVM accepts any). A shuffle mask is a constant
//! `<M x i32>` (`<i32 0, i32 undef, ...>`, `zeroinitializer`, `undef`, `poison`) whose lanes
//! are below twice the input lane count. Anything else is malformed input at the
//! instruction. Complexity: linear in the instruction's tokens.

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
}

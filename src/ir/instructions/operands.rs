//! The operand visitors of [`InstKind`]: every operand in operand order, read-only or in
//! place (one match over the kinds, opcode dispatch). Phi incoming values are operands;
//! phi blocks and asm goto labels are not.
//! Complexity: linear in the instruction's operands.

use super::*;

impl InstKind {
    /// Calls `f` on every operand, in operand order (phi incoming values included; phi
    /// blocks and asm goto labels are not operands).
    #[inline]
    pub fn for_each_operand(&self, mut f: impl FnMut(Operand)) {
        match self {
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::Icmp { lhs, rhs, .. }
            | InstKind::Fcmp { lhs, rhs, .. } => {
                f(*lhs);
                f(*rhs);
            }
            InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => f(*arg),
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                f(*cond);
                f(*if_true);
                f(*if_false);
            }
            InstKind::Alloca { .. } | InstKind::Fence { .. } => {}
            InstKind::DynAlloca { count, .. } => f(*count),
            InstKind::Load { ptr, .. } => f(*ptr),
            InstKind::Store { value, ptr, .. } => {
                f(*value);
                f(*ptr);
            }
            InstKind::Gep { base, indices, .. } => {
                f(*base);
                indices.iter().for_each(|(i, _)| f(*i));
            }
            InstKind::Call { callee, args, .. } => {
                if let Callee::Indirect(p) = callee {
                    f(*p);
                }
                args.iter().for_each(|a| f(*a));
            }
            InstKind::InlineAsm(asm) => {
                for o in &asm.outputs {
                    if let AsmOutputPlace::Pointer(p) = o.place {
                        f(p);
                    }
                }
                asm.inputs.iter().for_each(|i| f(i.value));
            }
            InstKind::AtomicRmw { ptr, value, .. } => {
                f(*ptr);
                f(*value);
            }
            InstKind::CmpXchg {
                ptr, expected, new, ..
            } => {
                f(*ptr);
                f(*expected);
                f(*new);
            }
            InstKind::Phi { incoming, .. } => incoming.iter().for_each(|(_, v)| f(*v)),
            InstKind::Copy { src, .. } => f(*src),
            InstKind::ExtractValue { agg, .. } => f(*agg),
            InstKind::InsertValue { agg, value, .. } => {
                f(*agg);
                f(*value);
            }
            InstKind::ExtractElement { vec, index, .. } => {
                f(*vec);
                f(*index);
            }
            InstKind::InsertElement {
                vec, value, index, ..
            } => {
                f(*vec);
                f(*value);
                f(*index);
            }
            InstKind::ShuffleVector { a, b, .. } => {
                f(*a);
                f(*b);
            }
            InstKind::Opaque(o) => o.args.iter().for_each(|a| f(*a)),
        }
    }

    /// Calls `f` on a mutable reference to every operand, in the order of
    /// [`InstKind::for_each_operand`].
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Operand)) {
        match self {
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::Icmp { lhs, rhs, .. }
            | InstKind::Fcmp { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => f(arg),
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                f(cond);
                f(if_true);
                f(if_false);
            }
            InstKind::Alloca { .. } | InstKind::Fence { .. } => {}
            InstKind::DynAlloca { count, .. } => f(count),
            InstKind::Load { ptr, .. } => f(ptr),
            InstKind::Store { value, ptr, .. } => {
                f(value);
                f(ptr);
            }
            InstKind::Gep { base, indices, .. } => {
                f(base);
                indices.iter_mut().for_each(|(i, _)| f(i));
            }
            InstKind::Call { callee, args, .. } => {
                if let Callee::Indirect(p) = callee {
                    f(p);
                }
                args.iter_mut().for_each(f);
            }
            InstKind::InlineAsm(asm) => {
                for o in &mut asm.outputs {
                    if let AsmOutputPlace::Pointer(p) = &mut o.place {
                        f(p);
                    }
                }
                asm.inputs.iter_mut().for_each(|i| f(&mut i.value));
            }
            InstKind::AtomicRmw { ptr, value, .. } => {
                f(ptr);
                f(value);
            }
            InstKind::CmpXchg {
                ptr, expected, new, ..
            } => {
                f(ptr);
                f(expected);
                f(new);
            }
            InstKind::Phi { incoming, .. } => incoming.iter_mut().for_each(|(_, v)| f(v)),
            InstKind::Copy { src, .. } => f(src),
            InstKind::ExtractValue { agg, .. } => f(agg),
            InstKind::InsertValue { agg, value, .. } => {
                f(agg);
                f(value);
            }
            InstKind::ExtractElement { vec, index, .. } => {
                f(vec);
                f(index);
            }
            InstKind::InsertElement {
                vec, value, index, ..
            } => {
                f(vec);
                f(value);
                f(index);
            }
            InstKind::ShuffleVector { a, b, .. } => {
                f(a);
                f(b);
            }
            InstKind::Opaque(o) => o.args.iter_mut().for_each(f),
        }
    }
}

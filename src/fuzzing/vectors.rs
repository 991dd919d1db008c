//! A generator of memory-form functions that compute with vector values, for the oracles of
//! the passes that handle vectors (SCCP, mem2reg, export under `opt`).
//!
//! [`vector_function`] builds `@v(i32, i32) -> i32`: vectors of the shapes in [`SHAPES`]
//! from constant lanes (some `undef`), from the parameters (`insertelement`) and from each
//! other (element-wise integer and float arithmetic, compares feeding lane-wise and scalar
//! selects, lane-wise and repacking casts, shuffles with `undef` mask lanes), some kept in
//! vector allocas (loaded and stored whole, so mem2reg promotes them, or also read lane by
//! lane through a `gep`, so it must not), a branch on an extracted lane with a vector
//! stored on both paths (a phi of vectors after mem2reg), and a result folded from
//! extracted lanes. Every instruction is well typed, so the verifier accepts the function;
//! integer division and shifts by generated amounts may trap, as scalars do in the other
//! generators. Complexity: linear in the number of instructions generated.

use crate::ir::{
    BinaryOp, Block, CastOp, ConstData, ConstKind, FloatPredicate, Function, FunctionBuilder,
    InstKind, IntPredicate, Operand, Signature, Type, Value,
};
use arbitrary::{Result, Unstructured};

/// The vector shapes generated: every one 128 bits wide, so any two convert by `bitcast`.
pub const SHAPES: [(u32, Type); 5] = [
    (4, Type::I32),
    (2, Type::I64),
    (8, Type::I16),
    (16, Type::I8),
    (2, Type::F64),
];

fn shape(k: usize) -> Type {
    let (n, t) = SHAPES[k % SHAPES.len()];
    Type::vector_of(n, t).expect("a small vector shape")
}

/// A constant vector of `ty` with lanes from a few edge values (one in eight `undef`).
fn lanes_const(u: &mut Unstructured, b: &mut FunctionBuilder, ty: Type) -> Result<Operand> {
    let (n, lane) = ty.vector_shape().expect("a vector type");
    let mut lanes = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let data = if u.ratio(1u8, 8)? {
            ConstData {
                ty: lane,
                kind: ConstKind::Undef,
            }
        } else if lane.is_float() {
            ConstData::f64(*u.choose(&[0.0, -1.5, 2.0, 1e9, -0.0])?)
        } else {
            ConstData::int(
                lane,
                *u.choose(&[0i128, 1, -1, 3, 7, 100, i64::MIN as i128])? as u128,
            )
        };
        lanes.push(b.function_mut().consts.intern(data));
    }
    Ok(Operand::Const(
        b.function_mut().consts.aggregate(ty, &lanes),
    ))
}

/// Generated state: the vectors defined so far, by shape index.
struct Gen {
    vectors: Vec<(usize, Operand)>,
    scalars: Vec<Operand>,
}

impl Gen {
    fn pick(&self, u: &mut Unstructured, k: usize) -> Result<Option<Operand>> {
        let same: Vec<Operand> = self
            .vectors
            .iter()
            .filter(|(s, _)| *s == k)
            .map(|(_, o)| *o)
            .collect();
        Ok(if same.is_empty() {
            None
        } else {
            Some(*u.choose(&same)?)
        })
    }

    fn any(&self, u: &mut Unstructured) -> Result<(usize, Operand)> {
        Ok(*u.choose(&self.vectors)?)
    }
}

/// One vector instruction chosen by `u`, appended at the builder's position.
fn step(u: &mut Unstructured, b: &mut FunctionBuilder, g: &mut Gen) -> Result<()> {
    let (k, a) = g.any(u)?;
    let ty = shape(k);
    let lane = ty.lane();
    let other = |u: &mut Unstructured, b: &mut FunctionBuilder, g: &Gen| -> Result<Operand> {
        match g.pick(u, k)? {
            Some(o) if u.arbitrary()? => Ok(o),
            _ => lanes_const(u, b, ty),
        }
    };
    let v = match u.int_in_range(0u8..=8)? {
        0 | 1 => {
            let rhs = other(u, b, g)?;
            let op = if lane.is_float() {
                *u.choose(&[BinaryOp::FAdd, BinaryOp::FSub, BinaryOp::FMul])?
            } else {
                *u.choose(&[
                    BinaryOp::Add,
                    BinaryOp::Sub,
                    BinaryOp::Mul,
                    BinaryOp::And,
                    BinaryOp::Xor,
                    BinaryOp::Shl,
                    BinaryOp::LShr,
                    BinaryOp::UDiv,
                ])?
            };
            (k, b.binary(op, ty, a, rhs))
        }
        2 => {
            let rhs = other(u, b, g)?;
            let c = if lane.is_float() {
                b.fcmp(FloatPredicate::Olt, ty, a, rhs)
            } else {
                b.icmp(
                    *u.choose(&[IntPredicate::Slt, IntPredicate::Eq, IntPredicate::Ugt])?,
                    ty,
                    a,
                    rhs,
                )
            };
            (k, b.select(ty, Operand::Value(c), a, rhs))
        }
        3 => {
            let c = *u.choose(&g.scalars)?;
            let one = b.iconst(Type::I32, 1);
            let bit = b.binary(BinaryOp::And, Type::I32, c, one);
            let cond = b.cast(CastOp::Trunc, Type::I32, Type::I1, Operand::Value(bit));
            let rhs = other(u, b, g)?;
            (k, b.select(ty, Operand::Value(cond), a, rhs))
        }
        4 => {
            let x = *u.choose(&g.scalars)?;
            let value = if lane.is_float() {
                Operand::Value(b.cast(CastOp::SiToFp, Type::I32, lane, x))
            } else if lane.bits() < 32 {
                Operand::Value(b.cast(CastOp::Trunc, Type::I32, lane, x))
            } else if lane.bits() > 32 {
                Operand::Value(b.cast(CastOp::SExt, Type::I32, lane, x))
            } else {
                x
            };
            let index = b.iconst(Type::I32, u.int_in_range(0..=ty.lanes() as i128 - 1)?);
            let r = b.push(InstKind::InsertElement {
                ty,
                vec: a,
                value,
                index,
            })[0];
            (k, r)
        }
        5 => {
            let rhs = other(u, b, g)?;
            (k, shuffle(u, b, ty, a, rhs)?)
        }
        6 => {
            // A bitcast to another shape (all are 128 bits).
            let to = u.int_in_range(0..=SHAPES.len() - 1)?;
            if to == k {
                return Ok(());
            }
            (to, b.cast(CastOp::Bitcast, ty, shape(to), a))
        }
        7 if !lane.is_float() && lane.bits() > 8 => {
            // Lane-wise truncation and extension back.
            let half = Type::vector_of(ty.lanes(), Type::int(lane.bits() / 2).expect("width"))
                .expect("small vector");
            let t = b.cast(CastOp::Trunc, ty, half, a);
            let op = *u.choose(&[CastOp::SExt, CastOp::ZExt])?;
            (k, b.cast(op, half, ty, Operand::Value(t)))
        }
        _ => {
            let index = b.iconst(Type::I64, u.int_in_range(0..=ty.lanes() as i128 - 1)?);
            let x = b.push(InstKind::ExtractElement { ty, vec: a, index })[0];
            let s = if lane.is_float() {
                let c = b.fcmp(
                    FloatPredicate::Oge,
                    lane,
                    Operand::Value(x),
                    Operand::Value(x),
                );
                b.cast(CastOp::ZExt, Type::I1, Type::I32, Operand::Value(c))
            } else if lane.bits() < 32 {
                b.cast(CastOp::ZExt, lane, Type::I32, Operand::Value(x))
            } else if lane.bits() > 32 {
                b.cast(CastOp::Trunc, lane, Type::I32, Operand::Value(x))
            } else {
                x
            };
            g.scalars.push(Operand::Value(s));
            return Ok(());
        }
    };
    g.vectors.push((v.0, Operand::Value(v.1)));
    Ok(())
}

/// A `shufflevector` of `a` and `rhs` (both of shape `ty`) with a random mask of the
/// shape's length, half or double it (some lanes `undef`); a result of another length is
/// shuffled back to the shape, so it is used once.
fn shuffle(
    u: &mut Unstructured,
    b: &mut FunctionBuilder,
    ty: Type,
    a: Operand,
    rhs: Operand,
) -> Result<Value> {
    let lane = ty.lane();
    let m = *u.choose(&[ty.lanes(), ty.lanes() / 2, ty.lanes() * 2])?;
    let mut mask = Vec::with_capacity(m as usize);
    for _ in 0..m {
        let data = if u.ratio(1u8, 6)? {
            ConstData {
                ty: Type::I32,
                kind: ConstKind::Undef,
            }
        } else {
            ConstData::int(Type::I32, u.int_in_range(0..=2 * ty.lanes() - 1)? as u128)
        };
        mask.push(b.function_mut().consts.intern(data));
    }
    let mask_ty = Type::vector_of(m, Type::I32).expect("small mask");
    let mask = b.function_mut().consts.aggregate(mask_ty, &mask);
    let result = Type::vector_of(m, lane).expect("small vector");
    let r = b.push(InstKind::ShuffleVector {
        ty,
        result,
        a,
        b: rhs,
        mask,
    })[0];
    if m != ty.lanes() {
        // Not one of the shapes: use it once, back to a shape by another shuffle.
        let back = Type::vector_of(ty.lanes(), lane).expect("small vector");
        let idx: Vec<_> = (0..ty.lanes())
            .map(|i| {
                let c = ConstData::int(Type::I32, (i % m) as u128);
                b.function_mut().consts.intern(c)
            })
            .collect();
        let mask_ty = Type::vector_of(ty.lanes(), Type::I32).expect("small mask");
        let mask = b.function_mut().consts.aggregate(mask_ty, &idx);
        let undef = b.constant(ConstData {
            ty: result,
            kind: ConstKind::Undef,
        });
        let r2 = b.push(InstKind::ShuffleVector {
            ty: result,
            result: back,
            a: Operand::Value(r),
            b: undef,
            mask,
        })[0];
        Ok(r2)
    } else {
        Ok(r)
    }
}

/// A memory-form function `@v(i32, i32) -> i32` computing with vectors (see the module doc).
pub fn vector_function(u: &mut Unstructured) -> Result<Function> {
    let mut b = FunctionBuilder::new(
        "v",
        Signature {
            params: vec![Type::I32, Type::I32],
            ret: Type::I32,
            varargs: false,
        },
    );
    let mut g = Gen {
        vectors: Vec::new(),
        scalars: vec![Operand::Value(b.param(0)), Operand::Value(b.param(1))],
    };
    for k in 0..SHAPES.len() {
        if k == 0 || u.arbitrary()? {
            let c = lanes_const(u, &mut b, shape(k))?;
            g.vectors.push((k, c));
        }
    }
    // A promotable vector slot and one also read lane by lane.
    let k = u.int_in_range(0..=SHAPES.len() - 1)?;
    let ty = shape(k);
    let slot = Operand::Value(b.alloca(ty, 16, 16));
    let init = lanes_const(u, &mut b, ty)?;
    b.store(ty, init, slot);
    let lane_read: bool = u.arbitrary()?;
    for _ in 0..u.int_in_range(2..=10)? {
        step(u, &mut b, &mut g)?;
    }
    let (then_b, else_b, join) = (b.create_block(), b.create_block(), b.create_block());
    let s = *u.choose(&g.scalars)?;
    let zero = b.iconst(Type::I32, 0);
    let c = b.icmp(IntPredicate::Slt, Type::I32, s, zero);
    b.br(Operand::Value(c), then_b, else_b);
    for arm in [then_b, else_b] {
        b.switch_to(arm);
        for _ in 0..u.int_in_range(0..=4)? {
            step(u, &mut b, &mut g)?;
        }
        let v = match g.pick(u, k)? {
            Some(v) => v,
            None => lanes_const(u, &mut b, ty)?,
        };
        b.store(ty, v, slot);
        b.jump(join);
        // Values of one arm are not available in the other or after the join.
        g.vectors.retain(|(_, o)| defined_in_entry(&b, *o));
        g.scalars.retain(|o| defined_in_entry(&b, *o));
    }
    b.switch_to(join);
    let loaded = b.load(ty, slot);
    g.vectors.push((k, Operand::Value(loaded)));
    let mut acc = if lane_read {
        let p = b.gep(slot, 4, &[]);
        Operand::Value(b.load(Type::I32, Operand::Value(p)))
    } else {
        zero
    };
    for _ in 0..u.int_in_range(1..=6)? {
        step(u, &mut b, &mut g)?;
    }
    // Fold every lane of the last vector of each shape, and the scalars, into the result.
    let mut last: Vec<Option<Operand>> = vec![None; SHAPES.len()];
    for &(k, o) in &g.vectors {
        last[k] = Some(o);
    }
    for (k, o) in last.into_iter().enumerate() {
        let Some(o) = o else { continue };
        let as_i32 = b.cast(CastOp::Bitcast, shape(k), shape(0), o);
        for i in 0..4 {
            let index = b.iconst(Type::I32, i);
            let x = b.push(InstKind::ExtractElement {
                ty: shape(0),
                vec: Operand::Value(as_i32),
                index,
            })[0];
            acc = Operand::Value(b.binary(BinaryOp::Xor, Type::I32, acc, Operand::Value(x)));
            let three = b.iconst(Type::I32, 3);
            acc = Operand::Value(b.binary(BinaryOp::Mul, Type::I32, acc, three));
        }
    }
    for s in g.scalars.clone() {
        acc = Operand::Value(b.binary(BinaryOp::Add, Type::I32, acc, s));
    }
    b.ret(Some(acc));
    Ok(b.finish())
}

/// True if `o` is a constant, a parameter, or the result of an instruction of the entry
/// block (block 0).
fn defined_in_entry(b: &FunctionBuilder, o: Operand) -> bool {
    let f = b.function();
    match o {
        Operand::Const(_) => true,
        Operand::Value(v) => match f.values.get(v.index()).map(|d| d.def) {
            Some(crate::ir::ValueDef::Param(_)) => true,
            Some(crate::ir::ValueDef::Result(i, _)) => {
                f.blocks[Block::new(0).index()].insts.contains(&i)
            }
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;
    use crate::interp::{Interpreter, Val};
    use crate::ir::ModuleBuilder;

    fn module(f: Function) -> crate::ir::Module {
        let mut m = ModuleBuilder::new();
        m.declare_function(&f.name, f.signature.clone());
        m.define_function(f);
        m.finish()
    }

    /// Generated vector functions verify, run in the interpreter (most without trapping)
    /// and use every vector instruction kind.
    #[test]
    fn generated_vector_functions_verify_and_run() {
        let (mut ran, mut kinds) = (0, std::collections::HashSet::new());
        for seed in 0..200u64 {
            let data = seed_bytes(seed ^ 0x7ec, 2048);
            let Ok(f) = vector_function(&mut Unstructured::new(&data)) else {
                continue;
            };
            for i in &f.insts {
                kinds.insert(i.kind.opcode_name().to_string());
            }
            let m = module(f);
            let errors = crate::verify::verify_module(&m);
            assert!(
                errors.is_empty(),
                "{errors:?}\n{}",
                crate::text::print_module(&m)
            );
            let mut it = Interpreter::new(&m, Default::default());
            let args = [Val::int(Type::I32, -3), Val::int(Type::I32, 5)];
            if it.call("v", &args).is_ok() {
                ran += 1;
            }
        }
        assert!(ran > 100, "only {ran} ran");
        for k in [
            "insertelement",
            "extractelement",
            "shufflevector",
            "select",
            "bitcast",
        ] {
            assert!(kinds.contains(k), "no {k} generated: {kinds:?}");
        }
    }

    /// The SCCP oracle on generated vector functions alone (the fuzz check draws them one
    /// time in twelve): same results as the interpreter before, verifier after.
    #[test]
    fn sccp_oracle_on_vector_functions() {
        let args: Vec<Vec<Val>> = [(0, 0), (-3, 5), (7, -100), (i32::MIN as i128, 1)]
            .iter()
            .map(|&(a, b)| vec![Val::int(Type::I32, a), Val::int(Type::I32, b)])
            .collect();
        for seed in 0..150u64 {
            let data = seed_bytes(seed ^ 0x5cc9, 2048);
            let Ok(f) = vector_function(&mut Unstructured::new(&data)) else {
                continue;
            };
            crate::fuzzing::sccp::check_function(f, 100 * 1024, &args);
        }
    }
}

//! A generator of random valid SSA functions, for the SCCP oracle and benchmarks (there is
//! no mem2reg yet to make them from memory form).
//!
//! What: [`ssa_function`] draws a random CFG shape ([`cfg_shape`], without edges into the
//! entry block), puts phis at block heads with one entry per incoming edge (duplicate edges
//! from one block carry one operand), draws operands from values of dominating blocks (from
//! the [`DomTree`] of the shape), and fills blocks with integer (`i1 i8 i32 i64`) and `f64`
//! arithmetic, comparisons, casts, selects and copies, and `{ i32, f64 }` aggregates (built
//! by `insertvalue`, read by `extractvalue`, also through phis, selects and copies, with
//! aggregate and `undef` constants), with many constants so that SCCP has
//! constant branches, constant phis, loops carrying constants and unreachable code to find.
//! Divisions, shifts and float-to-int conversions are usually guarded but sometimes raw, so
//! some runs trap.
//!
//! Termination: a step counter flows through every block as a phi (`counter - 1` at each
//! block head); once it is at most 0 every branch takes the successor closest to a return
//! (distances from the shape patch of [`super::generate`]). The budget is a constant, so in
//! acyclic regions SCCP sees the counter as a constant too.
//!
//! Validity: every operand is a parameter, a constant, or a value of the block itself or of
//! a dominator; a phi operand is available at the end of its predecessor. Blocks unreachable
//! from the entry use parameters and their own values only.
//!
//! Complexity: O(blocks * (insts + phis) + dominator depth * values) per function.

use super::generate::{cfg_shape, patch_shape};
use crate::analysis::{Cfg, DomTree};
use crate::ir::{
    BinaryOp, Block, CastOp, ConstData, FloatPredicate, Function, FunctionBuilder, InstKind,
    IntPredicate, Operand, Phase, Signature, Type, UnaryOp, Value,
};
use arbitrary::{Result, Unstructured};

/// Limits of [`ssa_function`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaGenOptions {
    /// Maximum number of shape blocks (one exit block is added).
    pub max_blocks: usize,
    /// Maximum number of random instructions per block.
    pub max_insts_per_block: usize,
    /// Maximum number of random phis per block (besides the counter).
    pub max_phis: usize,
    /// Maximum number of parameters.
    pub max_params: usize,
    /// Blocks entered before every branch heads for a return.
    pub step_budget: u32,
}

impl Default for SsaGenOptions {
    fn default() -> Self {
        SsaGenOptions {
            max_blocks: 12,
            max_insts_per_block: 10,
            max_phis: 3,
            max_params: 3,
            step_budget: 40,
        }
    }
}

const TYPES: [Type; 5] = [Type::I1, Type::I8, Type::I32, Type::I64, Type::F64];

/// The aggregate type of generated aggregate values.
fn pair_type() -> Type {
    Type::struct_of(&[Type::I32, Type::F64]).unwrap_or(Type::I64)
}

/// [`TYPES`] and the aggregate: what selects, copies and phis carry.
fn any_type(u: &mut Unstructured) -> Result<Type> {
    Ok(if u.ratio(1u8, 6)? {
        pair_type()
    } else {
        *u.choose(&TYPES)?
    })
}

struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    b: FunctionBuilder,
    /// Values usable at the current point, with their types.
    avail: Vec<(Value, Type)>,
}

impl Gen<'_, '_> {
    fn constant(&mut self, ty: Type) -> Result<Operand> {
        if let Some(info) = ty.agg_info() {
            if self.u.ratio(1u8, 4)? {
                return Ok(self.b.constant(ConstData {
                    ty,
                    kind: crate::ir::ConstKind::Undef,
                }));
            }
            let mut members = Vec::with_capacity(info.len());
            for i in 0..info.len() {
                match self.constant(info.member(i).unwrap_or(Type::I32))? {
                    Operand::Const(c) => members.push(c),
                    Operand::Value(_) => return Ok(self.b.iconst(Type::I32, 0)),
                }
            }
            let f = self.b.function_mut();
            return Ok(Operand::Const(f.consts.aggregate(ty, &members)));
        }
        let c = match ty {
            Type::F64 => {
                let x = match self.u.int_in_range(0u8..=9)? {
                    0 => 0.0,
                    1 => -0.0,
                    2 => f64::NAN,
                    3 => f64::INFINITY,
                    4 => 1e10,
                    5 => 1.5,
                    6 => -2.0,
                    _ => self.u.int_in_range(-100i32..=100)? as f64 / 4.0,
                };
                ConstData::f64(x)
            }
            Type::I1 => ConstData::int(ty, self.u.arbitrary::<bool>()? as u128),
            _ => {
                let w = ty.bits();
                let v: i128 = match self.u.int_in_range(0u8..=11)? {
                    0 => 0,
                    1 => 1,
                    2 => -1,
                    3 => 2,
                    4 => 7,
                    5 => -(1i128 << (w - 1)),
                    6 => (1i128 << (w - 1)) - 1,
                    _ => self.u.int_in_range(-20i32..=100)? as i128,
                };
                ConstData::int(ty, v as u128)
            }
        };
        Ok(self.b.constant(c))
    }

    /// An operand of type `ty`: an available value (usually) or a constant.
    fn operand(&mut self, ty: Type) -> Result<Operand> {
        let n = self.avail.iter().filter(|(_, t)| *t == ty).count();
        if n > 0 && self.u.int_in_range(0u8..=9)? < 7 {
            let k = self.u.int_in_range(0..=n - 1)?;
            let v = self
                .avail
                .iter()
                .filter(|(_, t)| *t == ty)
                .nth(k)
                .unwrap()
                .0;
            return Ok(Operand::Value(v));
        }
        self.constant(ty)
    }

    fn def(&mut self, v: Value, ty: Type) -> Value {
        self.avail.push((v, ty));
        v
    }

    fn int_type(&mut self) -> Result<Type> {
        Ok(*self
            .u
            .choose(&[Type::I8, Type::I32, Type::I32, Type::I64])?)
    }

    /// One random instruction.
    fn inst(&mut self) -> Result<()> {
        let raw = self.u.int_in_range(0u8..=7)? == 0;
        match self.u.int_in_range(0u8..=13)? {
            12 => {
                let ty = pair_type();
                let index = self.u.int_in_range(0u32..=1)?;
                let m = if index == 0 { Type::I32 } else { Type::F64 };
                let agg = self.operand(ty)?;
                let value = self.operand(m)?;
                let v = self.b.push(InstKind::InsertValue {
                    ty,
                    agg,
                    value,
                    index,
                })[0];
                self.def(v, ty);
            }
            13 => {
                let ty = pair_type();
                let index = self.u.int_in_range(0u32..=1)?;
                let m = if index == 0 { Type::I32 } else { Type::F64 };
                let agg = self.operand(ty)?;
                let v = self.b.push(InstKind::ExtractValue { ty, agg, index })[0];
                self.def(v, m);
            }
            0..=3 => {
                let ty = self.int_type()?;
                let op = *self.u.choose(&[
                    BinaryOp::Add,
                    BinaryOp::Sub,
                    BinaryOp::Mul,
                    BinaryOp::And,
                    BinaryOp::Or,
                    BinaryOp::Xor,
                    BinaryOp::Shl,
                    BinaryOp::LShr,
                    BinaryOp::AShr,
                    BinaryOp::SDiv,
                    BinaryOp::UDiv,
                    BinaryOp::SRem,
                    BinaryOp::URem,
                ])?;
                let lhs = self.operand(ty)?;
                let mut rhs = self.operand(ty)?;
                let guard = match op {
                    BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr => {
                        Some((BinaryOp::And, ty.bits() as i128 - 1))
                    }
                    // `| 2` keeps the divisor away from 0 and -1 (no MIN / -1 either).
                    BinaryOp::SDiv | BinaryOp::SRem => Some((BinaryOp::Or, 2)),
                    BinaryOp::UDiv | BinaryOp::URem => Some((BinaryOp::Or, 1)),
                    _ => None,
                };
                if let (Some((gop, k)), false) = (guard, raw) {
                    let k = self.b.iconst(ty, k);
                    let g = self.b.binary(gop, ty, rhs, k);
                    rhs = Operand::Value(self.def(g, ty));
                }
                let v = self.b.binary(op, ty, lhs, rhs);
                self.def(v, ty);
            }
            4 => {
                let ty = self.int_type()?;
                let pred = *self.u.choose(IntPredicate::ALL)?;
                let (a, b) = (self.operand(ty)?, self.operand(ty)?);
                let v = self.b.icmp(pred, ty, a, b);
                self.def(v, Type::I1);
            }
            5 => {
                let pred = *self.u.choose(FloatPredicate::ALL)?;
                let (a, b) = (self.operand(Type::F64)?, self.operand(Type::F64)?);
                let v = self.b.fcmp(pred, Type::F64, a, b);
                self.def(v, Type::I1);
            }
            6 => {
                let op = *self.u.choose(&[
                    BinaryOp::FAdd,
                    BinaryOp::FSub,
                    BinaryOp::FMul,
                    BinaryOp::FDiv,
                    BinaryOp::FRem,
                ])?;
                let (a, b) = (self.operand(Type::F64)?, self.operand(Type::F64)?);
                let v = if self.u.int_in_range(0u8..=5)? == 0 {
                    self.b.push(InstKind::Unary {
                        op: UnaryOp::FNeg,
                        ty: Type::F64,
                        arg: a,
                    })[0]
                } else {
                    self.b.binary(op, Type::F64, a, b)
                };
                self.def(v, Type::F64);
            }
            7 | 8 => {
                let (op, from, to) = *self.u.choose(&[
                    (CastOp::ZExt, Type::I1, Type::I32),
                    (CastOp::SExt, Type::I1, Type::I64),
                    (CastOp::ZExt, Type::I8, Type::I32),
                    (CastOp::SExt, Type::I8, Type::I64),
                    (CastOp::SExt, Type::I32, Type::I64),
                    (CastOp::ZExt, Type::I32, Type::I64),
                    (CastOp::Trunc, Type::I64, Type::I32),
                    (CastOp::Trunc, Type::I32, Type::I8),
                    (CastOp::Trunc, Type::I32, Type::I1),
                    (CastOp::SiToFp, Type::I32, Type::F64),
                    (CastOp::UiToFp, Type::I64, Type::F64),
                    (CastOp::Bitcast, Type::F64, Type::I64),
                    (CastOp::Bitcast, Type::I64, Type::F64),
                    (CastOp::FpToSi, Type::F64, Type::I32),
                ])?;
                let mut arg = self.operand(from)?;
                if op == CastOp::FpToSi && !raw {
                    // Keep the conversion in range: fptosi(x) only where |x| < 2^31 is likely;
                    // use a small constant instead of an arbitrary value.
                    arg = self
                        .b
                        .f64const(self.u.int_in_range(-1000i32..=1000)? as f64 / 8.0);
                }
                let v = self.b.cast(op, from, to, arg);
                self.def(v, to);
            }
            9 | 10 => {
                let ty = any_type(self.u)?;
                let c = self.operand(Type::I1)?;
                let (a, b) = (self.operand(ty)?, self.operand(ty)?);
                let v = self.b.select(ty, c, a, b);
                self.def(v, ty);
            }
            _ => {
                let ty = any_type(self.u)?;
                let src = self.operand(ty)?;
                let v = self.b.copy(ty, src);
                self.def(v, ty);
            }
        }
        Ok(())
    }
}

/// What a pending phi receives on each incoming edge.
enum PhiKind {
    /// The step counter (`counter - 1` of the predecessor).
    Counter,
    /// A random operand of this type available at the end of the predecessor.
    Random(Type),
}

/// A random valid SSA function named `f` (phase `ssa`); see the module doc.
pub fn ssa_function(u: &mut Unstructured, opts: &SsaGenOptions) -> Result<Function> {
    let mut shape = cfg_shape(u, opts.max_blocks)?;
    let exit = shape.len();
    let dist = patch_shape(&mut shape, exit, false);
    shape.push(Vec::new());
    let n = shape.len();
    let mut cfg = Cfg::new();
    cfg.compute_from_succs(&shape);
    let mut dom = DomTree::new();
    dom.compute(&cfg);
    let np = u.int_in_range(0..=opts.max_params)?;
    let mut params = Vec::with_capacity(np);
    for _ in 0..np {
        params.push(*u.choose(&[Type::I32, Type::I64, Type::F64, Type::I1])?);
    }
    let ret = *u.choose(&[Type::I32, Type::I64])?;
    let sig = Signature {
        params: params.clone(),
        ret,
        varargs: false,
    };
    let mut g = Gen {
        u,
        b: FunctionBuilder::new("f", sig),
        avail: Vec::new(),
    };
    g.b.set_phase(Phase::Ssa);
    for _ in 1..n {
        g.b.create_block();
    }
    let param_vals: Vec<(Value, Type)> = (0..np).map(|i| (g.b.param(i), params[i])).collect();
    let mut order: Vec<Block> = cfg.rpo().to_vec();
    order.extend((0..n).map(Block::new).filter(|&b| !cfg.is_reachable(b)));
    // Values defined in each block (available at its end, with the block's dominators').
    let mut defs: Vec<Vec<(Value, Type)>> = vec![Vec::new(); n];
    let mut counter_out: Vec<Option<Value>> = vec![None; n];
    let mut phis: Vec<(crate::ir::Inst, Block, PhiKind)> = Vec::new();
    let avail_at_start = |b: Block, defs: &[Vec<(Value, Type)>]| {
        let mut v = param_vals.clone();
        let mut d = dom.idom(b);
        while let Some(x) = d {
            v.extend_from_slice(&defs[x.index()]);
            d = dom.idom(x);
        }
        v
    };
    for &b in &order {
        g.b.switch_to(b);
        g.avail = avail_at_start(b, &defs);
        let start = g.avail.len();
        let counter = if b.index() == 0 {
            g.b.iconst(Type::I32, opts.step_budget as i128)
        } else {
            let inst = crate::ir::Inst::new(g.b.function().insts.len());
            let v = g.b.phi(Type::I32, &[]);
            phis.push((inst, b, PhiKind::Counter));
            Operand::Value(g.def(v, Type::I32))
        };
        if b.index() != 0 {
            for _ in 0..g.u.int_in_range(0..=opts.max_phis)? {
                let ty = any_type(g.u)?;
                let inst = crate::ir::Inst::new(g.b.function().insts.len());
                let v = g.b.phi(ty, &[]);
                phis.push((inst, b, PhiKind::Random(ty)));
                g.def(v, ty);
            }
        }
        let one = g.b.iconst(Type::I32, 1);
        let left = g.b.binary(BinaryOp::Sub, Type::I32, counter, one);
        counter_out[b.index()] = Some(g.def(left, Type::I32));
        let zero = g.b.iconst(Type::I32, 0);
        let done =
            g.b.icmp(IntPredicate::Sle, Type::I32, Operand::Value(left), zero);
        for _ in 0..g.u.int_in_range(0..=opts.max_insts_per_block)? {
            g.inst()?;
        }
        // The successor strictly closer to a return, taken once the budget is spent.
        let succs = &shape[b.index()];
        let close = (0..succs.len())
            .min_by_key(|&i| dist[succs[i]])
            .unwrap_or(0);
        match succs.len() {
            0 => {
                let v = g.operand(ret)?;
                g.b.ret(Some(v));
            }
            1 => g.b.jump(Block::new(succs[0])),
            2 => {
                let c = g.operand(Type::I1)?;
                let forced = g.b.constant(ConstData::int(Type::I1, (close == 0) as u128));
                let cond = g.b.select(Type::I1, Operand::Value(done), forced, c);
                g.b.br(
                    Operand::Value(cond),
                    Block::new(succs[0]),
                    Block::new(succs[1]),
                );
            }
            k => {
                // Cases 0..k-1 for successors 1..k; 100 matches no case (the default).
                let cases: Vec<(u128, Block)> = (1..k)
                    .map(|i| (i as u128 - 1, Block::new(succs[i])))
                    .collect();
                let forced = if close == 0 { 100 } else { close as i128 - 1 };
                let forced = g.b.iconst(Type::I32, forced);
                let c = g.operand(Type::I32)?;
                let v = g.b.select(Type::I32, Operand::Value(done), forced, c);
                g.b.switch(Type::I32, Operand::Value(v), Block::new(succs[0]), &cases);
            }
        }
        defs[b.index()] = g.avail[start..].to_vec();
    }
    // Phi entries: one per incoming edge; duplicate edges from one block carry one operand.
    for (inst, b, kind) in phis {
        let preds: Vec<Block> = cfg.preds(b).to_vec();
        let mut incoming: smallvec::SmallVec<[(Block, Operand); 2]> = smallvec::SmallVec::new();
        for p in preds {
            if let Some(&(_, o)) = incoming.iter().find(|(q, _)| *q == p) {
                incoming.push((p, o));
                continue;
            }
            let o = match kind {
                PhiKind::Counter => Operand::Value(counter_out[p.index()].expect("generated")),
                PhiKind::Random(ty) => {
                    g.avail = avail_at_start(p, &defs);
                    g.avail.extend_from_slice(&defs[p.index()]);
                    g.operand(ty)?
                }
            };
            incoming.push((p, o));
        }
        if let InstKind::Phi { incoming: slot, .. } =
            &mut g.b.function_mut().insts[inst.index()].kind
        {
            *slot = incoming;
        }
    }
    Ok(g.b.finish())
}

/// A deterministic SSA function from `seed` (for benchmarks and tests).
pub fn seeded_ssa(seed: u64, opts: &SsaGenOptions) -> Function {
    let bytes = super::generate::seed_bytes(
        seed,
        256 + 64 * opts.max_blocks * (opts.max_insts_per_block + opts.max_phis + 6),
    );
    let mut u = Unstructured::new(&bytes);
    ssa_function(&mut u, opts).expect("the generator accepts any byte string")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, InterpError, Val};

    /// The SCCP oracle sees aggregates: some generated functions build, merge and take apart
    /// `{ i32, f64 }` values.
    #[test]
    fn some_functions_use_aggregates() {
        let opts = SsaGenOptions::default();
        let (mut insert, mut extract, mut phi) = (0, 0, 0);
        for seed in 0..200 {
            let f = seeded_ssa(seed, &opts);
            for d in &f.insts {
                match &d.kind {
                    InstKind::InsertValue { .. } => insert += 1,
                    InstKind::ExtractValue { .. } => extract += 1,
                    InstKind::Phi { ty, .. } if ty.is_aggregate() => phi += 1,
                    _ => {}
                }
            }
        }
        assert!(
            insert > 0 && extract > 0 && phi > 0,
            "{insert} {extract} {phi}"
        );
    }

    #[test]
    fn generated_ssa_is_valid_and_terminates() {
        for seed in 0..100 {
            let f = seeded_ssa(seed, &SsaGenOptions::default());
            let mut mb = crate::ir::ModuleBuilder::new();
            mb.declare_function(&f.name, f.signature.clone());
            mb.define_function(f);
            let m = mb.finish();
            let errors = crate::verify::verify(&m.functions[0], &m.symbol_table());
            assert!(
                errors.is_empty(),
                "seed {seed}: {errors:?}\n{}",
                crate::text::print_module(&m)
            );
            let args: Vec<Val> = m.functions[0]
                .signature
                .params
                .iter()
                .map(|&t| Val::zero(t).unwrap())
                .collect();
            let r = interp::run(&m, "f", &args, Default::default());
            assert!(
                !matches!(r, Err(InterpError::StepLimit { .. })),
                "seed {seed} does not terminate"
            );
        }
    }
}

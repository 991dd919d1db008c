//! Oracle check of SCCP: the interpreter before and after, the verifier after, and the
//! solver's own invariants (DESIGN.md 5).
//!
//! What: [`ssa_function`] generates random *SSA* functions (there is no mem2reg to make them
//! from memory form): a random CFG shape ([`cfg_shape`], without edges into the entry block),
//! phis at block heads with one entry per incoming edge, operands drawn from values of
//! dominating blocks (from the [`DomTree`] of the shape), integer (`i1 i8 i32 i64`) and `f64`
//! arithmetic, comparisons, casts, selects and copies, with many constants so that SCCP has
//! constant branches, constant phis, loops carrying constants and unreachable code to find.
//! Divisions, shifts and float-to-int conversions are usually guarded but sometimes raw, so
//! some runs trap; a trap must survive SCCP unless it sits in a block that never executes.
//!
//! Termination: a step counter flows through every block as a phi (`counter - 1` at each
//! block head); once it is at most 0 every branch takes the successor closest to a return
//! (distances from the shape patch of [`super::generate`]). The budget is a constant, so in
//! acyclic regions SCCP sees the counter as a constant too.
//!
//! [`check`] runs SCCP ([`crate::sccp::optimize`], with a tiny memory limit one time in eight
//! to exercise the fallback) on a generated SSA function or, one time in four, on a
//! memory-form function or module (with calls) from [`super::generate`], and asserts:
//! (a) the result validates (entry reachable, executable edges reach reachable blocks, cells
//!     name defined values) and no cell ever moved up the lattice;
//! (b) the verifier accepts the function after SCCP;
//! (c) on several argument vectors, the interpreter's outcome is identical before and after:
//!     result, output, exit code, memory digest and external-call trace; a run that traps
//!     still traps with the same kind of error; SCCP never adds steps;
//! (d) after a full (not fallback) run, a second run changes nothing (idempotence).
//!
//! One input in eight instead corrupts one reference (an operand, a successor, a phi's
//! predecessor, an operation's type) and only requires that SCCP does not panic.
//!
//! Complexity: O(blocks * insts) to generate; interpretation bounded by the step budget.

use super::generate::{cfg_shape, patch_shape};
use crate::analysis::{Cfg, DomTree};
use crate::interp::{self, InterpError, Val};
use crate::ir::{
    BinaryOp, Block, CastOp, ConstData, FloatPredicate, Function, FunctionBuilder, InstKind,
    IntPredicate, Module, ModuleBuilder, Operand, Phase, Signature, Type, UnaryOp, Value,
};
use crate::sccp::{optimize, SccpScratch, Solver};
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

struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    b: FunctionBuilder,
    /// Values usable at the current point, with their types.
    avail: Vec<(Value, Type)>,
}

impl Gen<'_, '_> {
    fn constant(&mut self, ty: Type) -> Result<Operand> {
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
        match self.u.int_in_range(0u8..=11)? {
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
                let ty = *self.u.choose(&TYPES)?;
                let c = self.operand(Type::I1)?;
                let (a, b) = (self.operand(ty)?, self.operand(ty)?);
                let v = self.b.select(ty, c, a, b);
                self.def(v, ty);
            }
            _ => {
                let ty = *self.u.choose(&TYPES)?;
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
                let ty = *g.u.choose(&TYPES)?;
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

fn module_of(f: Function) -> Module {
    let mut m = ModuleBuilder::new();
    m.declare_function(&f.name, f.signature.clone());
    m.define_function(f);
    m.finish()
}

fn argument(u: &mut Unstructured, ty: Type) -> Result<Val> {
    Ok(match ty {
        Type::F64 => Val::f64(*u.choose(&[0.0, -1.5, 3.0, 1e10, f64::NAN])?),
        Type::I1 => Val::bool(u.arbitrary()?),
        t => Val::int(t, *u.choose(&[0i128, 1, -1, 5, 42, i32::MIN as i128, -7])?),
    })
}

/// Fuzz entry point: panics if SCCP changes what the function computes, breaks the IR or
/// breaks its own invariants (see the module doc).
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(kind) = u.int_in_range(0u8..=7) else {
        return;
    };
    let m = match kind {
        0 => super::generate::function(&mut u, &Default::default()).map(module_of),
        1 => super::generate::module(&mut u, &Default::default()),
        _ => ssa_function(&mut u, &SsaGenOptions::default()).map(module_of),
    };
    let Ok(mut m) = m else { return };
    if kind == 7 {
        // Robustness: corrupt one reference; SCCP must report or cope, never panic.
        let f = &mut m.functions[0];
        if corrupt(&mut u, f).is_ok() {
            let _ = optimize(f, 100 * 1024, &mut SccpScratch::default());
        }
        return;
    }
    let limit = match u.int_in_range(0u8..=7) {
        Ok(0) => 24 * u.int_in_range(1usize..=40).unwrap_or(1),
        _ => 100 * 1024,
    };
    // The entry is the last function (generated modules call earlier ones).
    let entry = m
        .functions
        .last()
        .expect("at least one function")
        .name
        .clone();
    let params = m.function(&entry).unwrap().signature.params.clone();
    let mut args = Vec::new();
    for _ in 0..3 {
        let a: Option<Vec<Val>> = params.iter().map(|&t| argument(&mut u, t).ok()).collect();
        args.extend(a);
    }
    check_module(m, &entry, limit, &args);
}

/// Points one operand, successor or phi predecessor of `f` somewhere arbitrary (possibly
/// out of range), or retypes an operation.
fn corrupt(u: &mut Unstructured, f: &mut Function) -> Result<()> {
    let n = f.insts.len().max(1) as u32;
    let wild = u.int_in_range(0..=f.values.len() as u32 + 3)?;
    let block = Block(u.int_in_range(0..=f.blocks.len() as u32 + 1)?);
    let i = u.int_in_range(0..=n - 1)? as usize;
    let b = u.int_in_range(0..=f.blocks.len() as u32 - 1)? as usize;
    match u.int_in_range(0u8..=3)? {
        0 => {
            if let Some(d) = f.insts.get_mut(i) {
                let mut first = true;
                d.kind.for_each_operand_mut(|o| {
                    if std::mem::take(&mut first) {
                        *o = Operand::Value(Value(wild));
                    }
                });
            }
        }
        1 => f.blocks[b]
            .terminator
            .for_each_successor_mut(|s| *s = block),
        2 => {
            if let Some(InstKind::Phi { incoming, .. }) = f.insts.get_mut(i).map(|d| &mut d.kind) {
                if let Some(e) = incoming.first_mut() {
                    e.0 = block;
                }
            }
        }
        _ => {
            if let Some(InstKind::Binary { ty, .. }) = f.insts.get_mut(i).map(|d| &mut d.kind) {
                *ty = Type::F64;
            }
        }
    }
    Ok(())
}

/// Runs SCCP on `f` with `memory_limit` and judges it on each argument vector of `args`.
pub fn check_function(f: Function, memory_limit: usize, args: &[Vec<Val>]) {
    let name = f.name.clone();
    check_module(module_of(f), &name, memory_limit, args);
}

/// Runs SCCP on every function of `before` with `memory_limit` and judges it: solver
/// invariants and the verifier on each function, the interpreter on `entry` with each
/// argument vector of `args`.
pub fn check_module(before: Module, entry: &str, memory_limit: usize, args: &[Vec<Val>]) {
    let symbols = before.symbol_table();
    let mut after = before.clone();
    let mut solver = Solver::new();
    let mut scratch = SccpScratch::default();
    for g in &mut after.functions {
        let errors = crate::ir::verifier::verify(&*g, &symbols);
        assert!(errors.is_empty(), "generator made invalid IR: {errors:?}");
        // (a) Solver invariants.
        if let Ok(r) = solver.analyze(g, memory_limit) {
            assert_eq!(r.monotonicity_violations, 0, "a cell moved up the lattice");
            if let Err(e) = r.validate(g) {
                panic!("invalid SCCP result: {e}");
            }
        }
        // (b) The verifier after.
        let full = match optimize(g, memory_limit, &mut scratch) {
            Ok(out) => matches!(out, crate::sccp::SccpOutcome::Optimized(_)),
            Err(e) => panic!("SCCP failed on valid IR: {e}"),
        };
        // (d) Idempotence: SCCP finds nothing left to do in its own output.
        if full {
            let mut again = g.clone();
            let out = optimize(&mut again, usize::MAX, &mut scratch).unwrap();
            assert_eq!(
                out.stats().transformed() + out.stats().blocks_removed,
                0,
                "second SCCP run changed the function: {:?}\nbefore:\n{}\nafter one run:\n{}",
                out.stats(),
                crate::text::print_module(&before),
                crate::text::print_function(&*g, &symbols),
            );
        }
        let errors = crate::ir::verifier::verify(&*g, &symbols);
        assert!(
            errors.is_empty(),
            "SCCP made invalid IR: {errors:?}\nbefore:\n{}",
            crate::text::print_module(&before),
        );
    }
    // (c) The interpreter before and after.
    let config = interp::Config {
        step_limit: 200_000,
        ..Default::default()
    };
    for a in args {
        let x = interp::run(&before, entry, a, config);
        let y = interp::run(&after, entry, a, config);
        let show = || {
            format!(
                "args {a:?}\nbefore:\n{}\nafter:\n{}",
                crate::text::print_module(&before),
                crate::text::print_module(&after)
            )
        };
        match (&x, &y) {
            (Ok(p), Ok(q)) => {
                assert_eq!(p.result, q.result, "result differs; {}", show());
                assert_eq!(p.output, q.output, "output differs; {}", show());
                assert_eq!(p.exit_code, q.exit_code, "exit code differs; {}", show());
                assert_eq!(
                    p.memory_digest,
                    q.memory_digest,
                    "memory differs; {}",
                    show()
                );
                assert_eq!(p.trace, q.trace, "trace differs; {}", show());
                assert!(q.steps <= p.steps, "SCCP added steps; {}", show());
            }
            (Err(InterpError::StepLimit { .. }), _) => {}
            (Err(p), Err(q)) => assert_eq!(
                std::mem::discriminant(p),
                std::mem::discriminant(q),
                "different errors {p} / {q}; {}",
                show()
            ),
            _ => panic!("outcome differs: {x:?} / {y:?}; {}", show()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;

    #[test]
    fn generated_ssa_is_valid_and_terminates() {
        for seed in 0..100 {
            let f = seeded_ssa(seed, &SsaGenOptions::default());
            let m = module_of(f);
            let errors = crate::ir::verifier::verify(&m.functions[0], &m.symbol_table());
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

    /// Found by `tests/sccp_fuzz_long.rs`: `or x, -1` was `Const(-1)` while `x` was still
    /// `Unknown`; when the `-1` became overdefined the evaluation returned `Unknown` and the
    /// cell moved up.
    #[test]
    fn regression_absorbing_operand_then_unknown() {
        check(&seed_bytes(16239 ^ 0x5cc9, 8192));
    }

    #[test]
    fn sccp_oracle_on_500_cases() {
        for seed in 0..500 {
            check(&seed_bytes(seed, 4096));
        }
    }
}

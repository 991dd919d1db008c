//! Oracle check of SCCP: the interpreter before and after, the verifier after, and the
//! solver's own invariants (DESIGN.md 5).
//!
//! Inputs: random SSA functions with phis, loops, constant branches and some trapping
//! operations ([`ssa_function`]), and memory-form functions and modules with calls
//! ([`super::generate`]). A trap must survive SCCP unless it sits in a block that never
//! executes.
//!
//! [`check`] runs the `sccp` stage (its systems [`crate::sccp::solve_sccp`] and
//! [`crate::sccp::rewrite_sccp`] through this thread's engine, with a tiny memory limit one
//! time in eight to exercise the fallback) on a generated SSA function or, one time in four, on a
//! memory-form function or module (with calls) from [`super::generate`], and asserts:
//! (a) the analysis the solve system left in [`crate::sccp::SccpSolution`] validates (entry
//!     reachable, executable edges reach reachable blocks, cells name defined values) and no
//!     cell ever moved up the lattice;
//! (b) the verifier accepts the function after SCCP;
//! (c) on several argument vectors, the interpreter's outcome is identical before and after:
//!     result, output, exit code, memory digest and external-call trace; a run that traps
//!     still traps with the same kind of error; SCCP never adds steps;
//! (d) after a full (not fallback) run, a second run changes nothing (idempotence);
//! (e) after a full run, every live block is reachable from the entry in the CFG.
//!
//! One input in twelve is a function computing with vectors
//! ([`super::vectors::vector_function`]): SCCP folds their lanes with the interpreter's
//! semantics, so (c) holds lane for lane.
//!
//! Besides the generators above, [`dead_region_function`] puts dead code behind constant
//! branches and switches (with and without cases) whose dead block ends in a branch or
//! switch on a value the reachable entry defines.
//!
//! One input in eight instead corrupts one reference (an operand, a successor, a phi's
//! predecessor, an operation's type) and only requires that neither the pass (whose
//! verifier rejects the function) nor the analysis alone ([`crate::sccp::sccp_analysis_in_module`],
//! which checks every reference itself) panics.
//!
//! Complexity: linear generation; interpretation bounded by the step budget.

use super::generate_ssa::{ssa_function, SsaGenOptions};
use crate::api::optimize_with_sccp as optimize;
use crate::engine::{with_thread_engine, PassSet, PipelineConfig};
use crate::interp::{self, InterpError, Val};
use crate::ir::{Block, Function, InstKind, Module, ModuleBuilder, Operand, Type, Value};
use crate::sccp::{sccp_analysis_in_module, SccpSolution, SccpStatus};
use arbitrary::{Result, Unstructured};
use std::sync::Arc;

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
    let Ok(kind) = u.int_in_range(0u8..=11) else {
        return;
    };
    let m = match kind {
        0 => super::generate::function(&mut u, &Default::default()).map(module_of),
        1 => super::generate::module(&mut u, &Default::default()),
        8 => table_module(&mut u),
        9 | 10 => dead_region_function(&mut u).map(module_of),
        11 => super::vectors::vector_function(&mut u).map(module_of),
        _ => ssa_function(&mut u, &SsaGenOptions::default()).map(module_of),
    };
    let Ok(mut m) = m else { return };
    if kind == 7 {
        // Robustness: corrupt one reference; SCCP must report or cope, never panic.
        let f = &mut m.functions[0];
        if corrupt(&mut u, f).is_ok() {
            let symbols = Arc::new(m.symbol_table());
            let _ = sccp_analysis_in_module(&m.functions[0], &symbols, 100 * 1024);
            let _ = optimize(&mut m.functions[0], &symbols, 100 * 1024);
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

/// An SSA function `@f(i32, i32)` with dead code behind a constant branch: the entry
/// computes `x` and `y`, then a constant `br` or a `switch` on a constant (hitting a case or
/// the default) skips the dead block, which defines values from `x` and `y` and ends in a
/// `switch` on the entry's `x` (with no case, or with cases), a `br` on a condition from the
/// entry or from itself, or a `jump`. Two blocks reached only through it use its values
/// (`A`, then `B` with a phi); optionally the live path also jumps into `B`, so that B stays
/// reachable and its phi must lose the dead entries. A terminator of the dead block whose
/// condition the entry defines is the shape SCCP once mishandled (edges out of an
/// unreachable block marked executable, leaving uses of removed values).
pub fn dead_region_function(u: &mut Unstructured) -> Result<Function> {
    use crate::ir::{BinaryOp, FunctionBuilder, IntPredicate, Phase, Signature};
    let i32c = |v: i128| (v as u128) & 0xffff_ffff;
    let mut b = FunctionBuilder::new(
        "f",
        Signature {
            params: vec![Type::I32, Type::I32],
            ret: Type::I32,
            varargs: false,
        },
    );
    b.set_phase(Phase::Ssa);
    let (dead, a, tail, live) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let (p0, p1) = (Operand::Value(b.param(0)), Operand::Value(b.param(1)));
    let x = Operand::Value(b.binary(BinaryOp::Add, Type::I32, p0, p1));
    let three = b.iconst(Type::I32, 3);
    let y = Operand::Value(b.binary(BinaryOp::Mul, Type::I32, p0, three));
    // The guard: every form SCCP resolves to the live block.
    match u.int_in_range(0u8..=3)? {
        0 => {
            let dead_first: bool = u.arbitrary()?;
            let c = b.constant(crate::ir::ConstData::int(Type::I1, !dead_first as u128));
            if dead_first {
                b.br(c, dead, live);
            } else {
                b.br(c, live, dead);
            }
        }
        1 => {
            // A comparison of constants: folded first, then the branch on it.
            let (one, two) = (b.iconst(Type::I32, 1), b.iconst(Type::I32, 2));
            let c = b.icmp(IntPredicate::Eq, Type::I32, one, two);
            b.br(Operand::Value(c), dead, live);
        }
        2 => {
            // A case hit: the default and the other case are dead.
            let k = b.iconst(Type::I32, 5);
            b.switch(Type::I32, k, dead, &[(i32c(5), live), (i32c(6), dead)]);
        }
        _ => {
            // No case hit (or none at all): the default is live.
            let k = b.iconst(Type::I32, 9);
            let cases: &[(u128, Block)] = if u.arbitrary()? {
                &[(i32c(1), dead)]
            } else {
                &[]
            };
            b.switch(Type::I32, k, live, cases);
        }
    }
    b.switch_to(dead);
    let eight = b.iconst(Type::I32, 8);
    let d1 = Operand::Value(b.binary(BinaryOp::Add, Type::I32, y, eight));
    let d2 = Operand::Value(b.binary(BinaryOp::Sub, Type::I32, x, d1));
    let zero = b.iconst(Type::I32, 0);
    let dead_reaches_tail = match u.int_in_range(0u8..=4)? {
        0 => {
            b.switch(Type::I32, x, a, &[]);
            false
        }
        1 => {
            b.switch(Type::I32, x, a, &[(i32c(0), tail), (i32c(7), a)]);
            true
        }
        2 => {
            let c = b.icmp(IntPredicate::Slt, Type::I32, x, zero);
            b.br(Operand::Value(c), a, tail);
            true
        }
        3 => {
            let c = b.icmp(IntPredicate::Slt, Type::I32, d2, zero);
            b.br(Operand::Value(c), a, tail);
            true
        }
        _ => {
            b.jump(a);
            false
        }
    };
    b.switch_to(a);
    let t = Operand::Value(b.binary(BinaryOp::Add, Type::I32, d2, x));
    b.jump(tail);
    let merge: bool = u.arbitrary()?;
    b.switch_to(tail);
    let mut incoming = vec![(a, t)];
    if dead_reaches_tail {
        incoming.push((dead, d1));
    }
    if merge {
        incoming.push((live, y));
    }
    let r = b.phi(Type::I32, &incoming);
    let r = Operand::Value(b.binary(BinaryOp::Xor, Type::I32, Operand::Value(r), x));
    b.ret(Some(r));
    b.switch_to(live);
    if merge {
        b.jump(tail);
    } else {
        b.ret(Some(y));
    }
    Ok(b.finish())
}

/// A module whose entry function `@tables(i64)` reads a read-only table `@ro` (which may
/// hold a pointer to `@ro2` or `@rw`, and a relative entry between them), a read-only `@ro2` and a writable `@rw` through geps
/// with constant, decided (`x & 0`) and variable indices, at every scalar type, in and out
/// of bounds, and sometimes stores into `@rw`: SCCP with the module's symbols folds the
/// loads from read-only memory and must keep every other load, and every trap.
fn table_module(u: &mut Unstructured) -> Result<Module> {
    use crate::ir::{BinaryOp, CastOp, ConstData, ConstKind, FunctionBuilder, Global};
    use crate::ir::{IntPredicate, Relocation, Signature, Symbol};
    const BYTES: [u8; 7] = [0, 1, 2, 0x7f, 0x80, 0xff, 42];
    let bytes = |u: &mut Unstructured, n: usize| -> Result<Vec<u8>> {
        (0..n).map(|_| u.choose(&BYTES).copied()).collect()
    };
    let mut m = ModuleBuilder::new();
    let global = |size: u64, init: Vec<u8>, constant: bool, relocations: Vec<Relocation>| Global {
        size,
        align: 8,
        constant,
        init: Some(init),
        relocations,
        ..Global::default()
    };
    let rw_init = bytes(u, 16)?;
    let rw = m
        .add_global("rw", global(16, rw_init, false, vec![]))
        .expect("fresh name");
    let ro2_init = bytes(u, 8)?;
    let ro2 = m
        .add_global("ro2", global(8, ro2_init, true, vec![]))
        .expect("fresh name");
    let size = u.int_in_range(8u64..=40)?;
    let init_len = u.int_in_range(0..=size as usize)?;
    let ro_init = bytes(u, init_len)?;
    let mut relocations = Vec::new();
    if u.arbitrary()? {
        relocations.push(Relocation::address(
            8 * u.int_in_range(0..=size / 8 - 1)?,
            *u.choose(&[ro2, rw])?,
            *u.choose(&[0i64, 4])?,
        ));
    }
    if u.arbitrary()? {
        // A relative lookup-table entry (a difference of addresses, unknown to SCCP).
        let offset = 4 * u.int_in_range(0..=size / 4 - 1)?;
        let free = relocations
            .iter()
            .all(|r: &Relocation| offset + 4 <= r.offset || r.offset + r.bytes() <= offset);
        if free {
            relocations.push(Relocation {
                offset,
                symbol: *u.choose(&[ro2, rw])?,
                addend: *u.choose(&[0i64, 1])?,
                kind: crate::ir::RelocationKind::Relative {
                    base: *u.choose(&[ro2, rw])?,
                    bytes: 4,
                },
            });
        }
    }
    let ro = m
        .add_global("ro", global(size, ro_init, true, relocations))
        .expect("fresh name");
    let signature = Signature {
        params: vec![Type::I64],
        ret: Type::I64,
        varargs: false,
    };
    let mut b = FunctionBuilder::new("tables", signature.clone());
    let a = Operand::Value(b.param(0));
    let address = |b: &mut FunctionBuilder, s: Symbol| {
        b.constant(ConstData {
            ty: Type::Ptr,
            kind: ConstKind::SymbolAddr(s),
        })
    };
    let mut ptrs = vec![
        address(&mut b, ro),
        address(&mut b, ro2),
        address(&mut b, rw),
    ];
    let mut acc = b.iconst(Type::I64, 0);
    for _ in 0..u.int_in_range(1..=10)? {
        match u.int_in_range(0u8..=5)? {
            0 | 1 => {
                let base = *u.choose(&ptrs)?;
                let offset = u.int_in_range(-2..=size as i64 + 2)?;
                let index = match u.int_in_range(0u8..=3)? {
                    0 => vec![],
                    1 => vec![(b.iconst(Type::I32, u.int_in_range(-1..=5)?), 4)],
                    2 => {
                        let zero = b.iconst(Type::I64, 0);
                        let decided = b.binary(BinaryOp::And, Type::I64, a, zero);
                        vec![(Operand::Value(decided), 8)]
                    }
                    _ => vec![(a, 1)],
                };
                ptrs.push(Operand::Value(b.gep(base, offset, &index)));
            }
            2..=4 => {
                let ptr = *u.choose(&ptrs)?;
                let tys = [
                    Type::I1,
                    Type::I8,
                    Type::I16,
                    Type::I32,
                    Type::I64,
                    Type::F32,
                    Type::F64,
                    Type::Ptr,
                ];
                let ty = *u.choose(&tys)?;
                let v = Operand::Value(b.load(ty, ptr));
                let wide = match ty {
                    Type::I64 => v,
                    Type::F64 => Operand::Value(b.cast(CastOp::Bitcast, ty, Type::I64, v)),
                    Type::F32 => {
                        let bits = b.cast(CastOp::Bitcast, ty, Type::I32, v);
                        Operand::Value(b.cast(CastOp::ZExt, Type::I32, Type::I64, bits.into()))
                    }
                    Type::Ptr => {
                        ptrs.push(v);
                        Operand::Value(b.cast(CastOp::PtrToInt, ty, Type::I64, v))
                    }
                    t => Operand::Value(b.cast(CastOp::ZExt, t, Type::I64, v)),
                };
                acc = Operand::Value(b.binary(BinaryOp::Xor, Type::I64, acc, wide));
            }
            _ => {
                let at = b.iconst(Type::I64, u.int_in_range(0..=8)?);
                let rw_addr = address(&mut b, rw);
                let slot = b.gep(rw_addr, 0, &[(at, 1)]);
                b.store(Type::I64, acc, Operand::Value(slot));
            }
        }
    }
    let probe = b.iconst(Type::I64, u.int_in_range(-1..=300)?);
    let cond = b.icmp(IntPredicate::Eq, Type::I64, acc, probe);
    let (yes, no) = (b.create_block(), b.create_block());
    b.br(Operand::Value(cond), yes, no);
    b.switch_to(yes);
    let one = b.iconst(Type::I64, 1);
    let plus = b.binary(BinaryOp::Add, Type::I64, acc, one);
    b.ret(Some(Operand::Value(plus)));
    b.switch_to(no);
    b.ret(Some(acc));
    m.declare_function("tables", signature);
    let mut f = b.finish();
    f.phase = crate::ir::Phase::Ssa;
    m.define_function(f);
    Ok(m.finish())
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
    let symbols = Arc::new(before.symbol_table());
    let mut after = before.clone();
    let mut config = PipelineConfig::new(PassSet::SCCP);
    config.options.sccp_memory_limit = memory_limit;
    for g in &mut after.functions {
        let errors = crate::verify::verify(&*g, &symbols);
        assert!(errors.is_empty(), "generator made invalid IR: {errors:?}");
        // The pass's systems through the engine; then (a) the analysis they left behind.
        let input = std::mem::take(g);
        let original = input.clone();
        let (run, status, checked, skipped) = with_thread_engine(&config, |engine| {
            let run = engine.run(input, &symbols);
            let solution = &engine
                .world()
                .resource::<crate::ir::PerSlot<SccpSolution>>()[0];
            let checked = solution
                .result()
                .map(|r| (r.monotonicity_violations, r.validate(&run.function)));
            let skipped = solution.result().filter(|r| r.nothing_to_rewrite).cloned();
            (run, solution.status.clone(), checked, skipped)
        })
        .unwrap_or_else(|panic| panic!("SCCP panicked: {panic}"));
        *g = run.function;
        // (f) A result the solver said needs no rewrite: the full rewrite changes nothing.
        if let Some(mut result) = skipped {
            result.nothing_to_rewrite = false;
            let mut full = original.clone();
            let n = crate::api::apply_sccp_transformations(&mut full, &result);
            let (full, skipped) = (
                crate::text::print_function(&full, &symbols),
                crate::text::print_function(&*g, &symbols),
            );
            assert!(
                n == 0 && full == skipped,
                "SCCP skipped a rewrite that changes the function\nbefore:\n{}\nrewritten:\n{full}",
                crate::text::print_module(&before),
            );
        }
        if let Some((violations, valid)) = checked {
            assert_eq!(violations, 0, "a cell moved up the lattice");
            if let Err(e) = valid {
                panic!("invalid SCCP result: {e}");
            }
        }
        // (b) The verifier after (also run by the engine after the stage in debug builds).
        if let Some(d) = run
            .diagnostics
            .iter()
            .find(|d| d.severity == crate::engine::Severity::Error)
        {
            panic!(
                "SCCP failed on valid IR: [{}] {}\nbefore:\n{}",
                d.pass,
                d.message,
                crate::text::print_module(&before)
            );
        }
        let full = match status {
            SccpStatus::Solved => true,
            SccpStatus::MemoryLimit => false,
            s => panic!("SCCP did not run on valid IR: {s:?}"),
        };
        // (e) After a full run no block unreachable from the entry remains (003: removed
        // blocks go; a kept one could use values a removed block defined).
        if full {
            let mut cfg = crate::analysis::Cfg::default();
            cfg.compute(&*g);
            if let Some(b) =
                (0..g.blocks.len()).find(|&b| !g.blocks[b].dead && !cfg.is_reachable(Block::new(b)))
            {
                panic!(
                    "SCCP kept {} though the entry does not reach it\nbefore:\n{}\nafter:\n{}",
                    Block::new(b),
                    crate::text::print_module(&before),
                    crate::text::print_function(&*g, &symbols),
                );
            }
        }
        // (d) Idempotence: SCCP finds nothing left to do in its own output.
        if full {
            let mut again = g.clone();
            let out = optimize(&mut again, &symbols, usize::MAX).unwrap();
            assert_eq!(
                out.stats().transformed() + out.stats().blocks_removed,
                0,
                "second SCCP run changed the function: {:?}\nbefore:\n{}\nafter one run:\n{}",
                out.stats(),
                crate::text::print_module(&before),
                crate::text::print_function(&*g, &symbols),
            );
        }
        let errors = crate::verify::verify(&*g, &symbols);
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
                super::assert_same_observable(p, q, show);
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

    /// Found by `tests/sccp_fuzz_long.rs`: `or x, -1` was `Const(-1)` while `x` was still
    /// `Unknown`; when the `-1` became overdefined the evaluation returned `Unknown` and the
    /// cell moved up.
    #[test]
    fn regression_absorbing_operand_then_unknown() {
        check(&seed_bytes(16239 ^ 0x5cc9, 8192));
    }

    /// The table generator exercises what it is for: over 200 modules, SCCP with the
    /// module's symbols folds loads from read-only globals and keeps others, and each
    /// module passes the oracle.
    #[test]
    fn table_modules_fold_some_loads_and_keep_others() {
        let (mut folded, mut kept) = (0, 0);
        for seed in 0..200 {
            let data = seed_bytes(seed, 4096);
            let Ok(m) = table_module(&mut Unstructured::new(&data)) else {
                continue;
            };
            let loads = |m: &Module| {
                let f = &m.functions[0];
                f.blocks
                    .iter()
                    .flat_map(|b| &b.insts)
                    .filter(|i| matches!(f.insts[i.index()].kind, InstKind::Load { .. }))
                    .count()
            };
            let mut after = m.clone();
            let symbols = Arc::new(m.symbol_table());
            optimize(&mut after.functions[0], &symbols, usize::MAX).unwrap();
            folded += loads(&m) - loads(&after);
            kept += loads(&after);
            check_module(m, "tables", 100 * 1024, &[vec![Val::int(Type::I64, 3)]]);
        }
        assert!(folded > 100 && kept > 100, "folded {folded}, kept {kept}");
    }

    /// Dead code behind constant branches and switches, every shape of the generator: the
    /// oracle passes (verifier after, no unreachable block left, same results), and SCCP
    /// removes the dead block each time (one with a merge keeps the tail it feeds).
    #[test]
    fn dead_regions_are_removed_with_every_use_of_their_values() {
        let mut shapes = std::collections::HashSet::new();
        for seed in 0..300 {
            let data = seed_bytes(seed ^ 0xdead, 256);
            let Ok(f) = dead_region_function(&mut Unstructured::new(&data)) else {
                continue;
            };
            let terms: Vec<String> = f
                .blocks
                .iter()
                .map(|b| format!("{:?}", std::mem::discriminant(&b.terminator)))
                .collect();
            shapes.insert((terms.join(","), f.blocks[2].insts.len()));
            let m = module_of(f);
            let args: Vec<Vec<Val>> = [(0, 0), (-3, 1), (7, -7), (i32::MIN as i128, 5)]
                .iter()
                .map(|&(a, b)| vec![Val::int(Type::I32, a), Val::int(Type::I32, b)])
                .collect();
            let symbols = Arc::new(m.symbol_table());
            let mut after = m.functions[0].clone();
            let out = optimize(&mut after, &symbols, usize::MAX).expect("SCCP runs");
            assert!(out.stats().blocks_removed >= 2, "{:?}", out.stats());
            assert!(after.blocks[1].dead, "the dead block is removed");
            check_module(m, "f", 100 * 1024, &args);
        }
        assert!(shapes.len() >= 10, "only {} shapes generated", shapes.len());
    }

    #[test]
    fn sccp_oracle_on_500_cases() {
        for seed in 0..500 {
            check(&seed_bytes(seed, 4096));
        }
    }
}

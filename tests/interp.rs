//! Whole programs built with the builder and run by the reference interpreter: recursion,
//! memory-form loops over allocas, arrays through `gep`, `printf` of global strings, and the
//! oracle use (a memory-form and an SSA-form function agree on everything but steps).

use strata::interp::{run, Config, InterpError, Outcome, Val};
use strata::ir::*;

fn sig(params: &[Type], ret: Type) -> Signature {
    Signature {
        params: params.to_vec(),
        ret,
        varargs: false,
    }
}

fn i64v(x: i64) -> Val {
    Val::int(Type::I64, x as i128)
}

/// `fact(n) = n <= 1 ? 1 : n * fact(n - 1)` on i64.
fn factorial() -> Module {
    let mut mb = ModuleBuilder::new();
    let s = mb
        .declare_function("fact", sig(&[Type::I64], Type::I64))
        .unwrap();
    let mut b = FunctionBuilder::new("fact", sig(&[Type::I64], Type::I64));
    let (base, rec) = (b.create_block(), b.create_block());
    let n = b.param(0);
    let one = b.iconst(Type::I64, 1);
    let small = b.icmp(IntPredicate::Sle, Type::I64, n.into(), one);
    b.br(small.into(), base, rec);
    b.switch_to(base);
    b.ret(Some(one));
    b.switch_to(rec);
    let m1 = b.binary(BinaryOp::Sub, Type::I64, n.into(), one);
    let r = b.call(Type::I64, s, &[m1.into()]).unwrap();
    let p = b.binary(BinaryOp::Mul, Type::I64, n.into(), r.into());
    b.ret(Some(p.into()));
    mb.define_function(b.finish());
    mb.finish()
}

#[test]
fn recursive_factorial() {
    let m = factorial();
    let out = run(&m, "fact", &[i64v(20)], Config::default()).unwrap();
    assert_eq!(out.result, Some(i64v(2_432_902_008_176_640_000)));
    assert!(out.output.is_empty() && out.trace.is_empty() && out.exit_code.is_none());
    // 21! wraps modulo 2^64.
    let out = run(&m, "fact", &[i64v(21)], Config::default()).unwrap();
    assert_eq!(out.result, Some(i64v(-4_249_290_049_419_214_848)));
}

/// Memory form: `a = 0; b = 1; for (i = 0; i < n; i++) { t = a + b; a = b; b = t; } return a`.
fn fib_memory() -> Function {
    let mut b = FunctionBuilder::new("fib", sig(&[Type::I64], Type::I64));
    let (head, body, exit) = (b.create_block(), b.create_block(), b.create_block());
    let n = b.param(0);
    let (pa, pb, pi) = (
        b.alloca(Type::I64, 8, 8),
        b.alloca(Type::I64, 8, 8),
        b.alloca(Type::I64, 8, 8),
    );
    let (zero, one) = (b.iconst(Type::I64, 0), b.iconst(Type::I64, 1));
    b.store(Type::I64, zero, pa.into());
    b.store(Type::I64, one, pb.into());
    b.store(Type::I64, zero, pi.into());
    b.jump(head);
    b.switch_to(head);
    let i = b.load(Type::I64, pi.into());
    let c = b.icmp(IntPredicate::Slt, Type::I64, i.into(), n.into());
    b.br(c.into(), body, exit);
    b.switch_to(body);
    let a = b.load(Type::I64, pa.into());
    let bb = b.load(Type::I64, pb.into());
    let t = b.binary(BinaryOp::Add, Type::I64, a.into(), bb.into());
    b.store(Type::I64, bb.into(), pa.into());
    b.store(Type::I64, t.into(), pb.into());
    let i2 = b.binary(BinaryOp::Add, Type::I64, i.into(), one);
    b.store(Type::I64, i2.into(), pi.into());
    b.jump(head);
    b.switch_to(exit);
    let r = b.load(Type::I64, pa.into());
    b.ret(Some(r.into()));
    b.finish()
}

/// The same function as mem2reg would produce it: phis in the loop header.
fn fib_ssa() -> Function {
    let mut b = FunctionBuilder::new("fib", sig(&[Type::I64], Type::I64));
    b.set_phase(Phase::Ssa);
    let (head, body, exit) = (b.create_block(), b.create_block(), b.create_block());
    let n = b.param(0);
    b.jump(head);
    b.switch_to(head);
    let (zero, one) = (b.iconst(Type::I64, 0), b.iconst(Type::I64, 1));
    let a = b.phi(Type::I64, &[(Block(0), zero)]);
    let bb = b.phi(Type::I64, &[(Block(0), one)]);
    let i = b.phi(Type::I64, &[(Block(0), zero)]);
    let c = b.icmp(IntPredicate::Slt, Type::I64, i.into(), n.into());
    b.br(c.into(), body, exit);
    b.switch_to(body);
    let t = b.binary(BinaryOp::Add, Type::I64, a.into(), bb.into());
    let i2 = b.binary(BinaryOp::Add, Type::I64, i.into(), one);
    b.jump(head);
    let f = b.function_mut();
    for (k, v) in [(0usize, bb), (1, t), (2, i2)] {
        if let InstKind::Phi { incoming, .. } = &mut f.insts[k].kind {
            incoming.push((body, v.into()));
        }
    }
    b.switch_to(exit);
    b.ret(Some(a.into()));
    b.finish()
}

fn module_of(f: Function) -> Module {
    let mut mb = ModuleBuilder::new();
    mb.declare_function(&f.name.clone(), f.signature.clone());
    mb.define_function(f);
    mb.finish()
}

#[test]
fn iterative_fibonacci_in_memory_form_matches_ssa_form() {
    let mem = module_of(fib_memory());
    let ssa = module_of(fib_ssa());
    for n in [0, 1, 2, 10, 50, 90] {
        let a = run(&mem, "fib", &[i64v(n)], Config::default()).unwrap();
        let b = run(&ssa, "fib", &[i64v(n)], Config::default()).unwrap();
        let strip = |o: Outcome| Outcome { steps: 0, ..o };
        assert!(a.steps > b.steps || n == 0);
        assert_eq!(strip(a.clone()), strip(b), "n = {n}");
        if n == 50 {
            assert_eq!(a.result, Some(i64v(12_586_269_025)));
        }
    }
    // A runaway input ends by the step limit, with the same error kind in both forms.
    let cfg = Config {
        step_limit: 1000,
        ..Config::default()
    };
    for m in [&mem, &ssa] {
        assert!(matches!(
            run(m, "fib", &[i64v(1 << 40)], cfg),
            Err(InterpError::StepLimit { .. })
        ));
    }
}

/// `int a[10]; for (i = 0; i < 10; i++) a[i] = i * i; s = 0; for (...) s += a[i]; return s;`
#[test]
fn loop_summing_an_array_through_gep() {
    let mut b = FunctionBuilder::new("sum", sig(&[], Type::I32));
    let arr = b.alloca(Type::I32, 40, 4);
    let (h1, b1, h2, b2, exit) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let pi = b.alloca(Type::I32, 4, 4);
    let ps = b.alloca(Type::I32, 4, 4);
    let (zero, one, ten) = (
        b.iconst(Type::I32, 0),
        b.iconst(Type::I32, 1),
        b.iconst(Type::I32, 10),
    );
    b.store(Type::I32, zero, pi.into());
    b.jump(h1);
    b.switch_to(h1);
    let i = b.load(Type::I32, pi.into());
    let c = b.icmp(IntPredicate::Slt, Type::I32, i.into(), ten);
    b.br(c.into(), b1, h2);
    b.switch_to(b1);
    let sq = b.binary(BinaryOp::Mul, Type::I32, i.into(), i.into());
    let slot = b.gep(arr.into(), 0, &[(i.into(), 4)]);
    b.store(Type::I32, sq.into(), slot.into());
    let i2 = b.binary(BinaryOp::Add, Type::I32, i.into(), one);
    b.store(Type::I32, i2.into(), pi.into());
    b.jump(h1);
    // Second loop counts down from 9 with an i64 index and a negative scale from the end.
    b.switch_to(h2);
    let j = b.phi(Type::I32, &[(h1, zero)]);
    let s = b.phi(Type::I32, &[(h1, zero)]);
    let cj = b.icmp(IntPredicate::Slt, Type::I32, j.into(), ten);
    b.br(cj.into(), b2, exit);
    b.switch_to(b2);
    let j64 = b.cast(CastOp::SExt, Type::I32, Type::I64, j.into());
    let at = b.gep(arr.into(), 36, &[(j64.into(), -4)]);
    let v = b.load(Type::I32, at.into());
    let s2 = b.binary(BinaryOp::Add, Type::I32, s.into(), v.into());
    let j2 = b.binary(BinaryOp::Add, Type::I32, j.into(), one);
    b.store(Type::I32, s2.into(), ps.into());
    b.jump(h2);
    let f = b.function_mut();
    let phis: Vec<Inst> = f.blocks[h2.index()].insts[..2].to_vec();
    for (phi, v) in phis.into_iter().zip([j2, s2]) {
        if let InstKind::Phi { incoming, .. } = &mut f.insts[phi.index()].kind {
            incoming.push((b2, v.into()));
        }
    }
    b.switch_to(exit);
    b.ret(Some(s.into()));
    let m = module_of(b.finish());
    let out = run(&m, "sum", &[], Config::default()).unwrap();
    assert_eq!(out.result, Some(Val::int(Type::I32, 285)));
}

fn global_bytes(mb: &mut ModuleBuilder, name: &str, bytes: &[u8], constant: bool) -> Symbol {
    mb.add_global(
        name,
        Global {
            size: bytes.len() as u64,
            align: 1,
            constant,
            init: Some(bytes.to_vec()),
            ..Global::default()
        },
    )
    .unwrap()
}

#[test]
fn printf_of_global_strings() {
    let mut mb = ModuleBuilder::new();
    let fmt = global_bytes(&mut mb, ".fmt", b"x=%d s=%s f=%.2f|%-6s|%5.1e\n\0", true);
    let name = global_bytes(&mut mb, "name", b"strata\0", false);
    let printf = mb
        .declare_extern(
            "printf",
            Signature {
                params: vec![Type::Ptr],
                ret: Type::I32,
                varargs: true,
            },
        )
        .unwrap();
    mb.declare_function("main", sig(&[], Type::I32));
    let mut b = FunctionBuilder::new("main", sig(&[], Type::I32));
    let addr = |b: &mut FunctionBuilder, s| {
        b.constant(ConstData {
            ty: Type::Ptr,
            kind: ConstKind::SymbolAddr(s),
        })
    };
    let (pf, pn) = (addr(&mut b, fmt), addr(&mut b, name));
    let x = b.iconst(Type::I32, 42);
    let y = b.f64const(3.25);
    let z = b.f64const(-12345.0);
    let tail = b.gep(pn, 3, &[]);
    let r = b.push(InstKind::Call {
        ret: Type::I32,
        callee: Callee::Direct(printf),
        args: [pf, x, pn, y, tail.into(), z].into_iter().collect(),
        fixed_args: Some(1),
    })[0];
    b.ret(Some(r.into()));
    mb.define_function(b.finish());
    let m = mb.finish();
    let out = run(&m, "main", &[], Config::default()).unwrap();
    let text = "x=42 s=strata f=3.25|ata   |-1.2e+04\n";
    assert_eq!(String::from_utf8(out.output).unwrap(), text);
    assert_eq!(out.result, Some(Val::int(Type::I32, text.len() as i128)));
    assert_eq!(
        out.trace,
        vec![format!(
            "printf(@.fmt+0, i32 42, @name+0, f64 3.25, @name+3, f64 -12345.0) -> i32 {}",
            text.len()
        )]
    );
}

//! Execution tests of the interpreter: control flow (phis, duplicate edges, indirect
//! branches and calls), limits, externals, determinism; memory errors and limits in
//! [`memory`]. Scalar semantics are tested next to their code in `ops`, `memory`, `printf`
//! and `value`.

mod memory;

use super::*;
use crate::ir::*;

fn sig(params: &[Type], ret: Type) -> Signature {
    Signature {
        params: params.to_vec(),
        ret,
        varargs: false,
    }
}

fn module_of(f: Function) -> Module {
    let mut m = ModuleBuilder::new();
    m.declare_function(&f.name.clone(), f.signature.clone());
    m.define_function(f);
    m.finish()
}

fn small() -> Config {
    Config {
        step_limit: 10_000,
        ..Config::default()
    }
}

fn i32v(x: i32) -> Val {
    Val::int(Type::I32, x as i128)
}

#[test]
fn step_limit_ends_infinite_loop() {
    let mut b = FunctionBuilder::new("spin", sig(&[], Type::Void));
    let l = b.create_block();
    b.jump(l);
    b.switch_to(l);
    b.jump(l);
    let m = module_of(b.finish());
    let e = run(&m, "spin", &[], small()).unwrap_err();
    match e {
        InterpError::StepLimit { at, limit } => {
            assert_eq!(limit, 10_000);
            assert_eq!(at.function, "spin");
            assert_eq!(at.block, Some(Block(1)));
        }
        e => panic!("{e}"),
    }
}

#[test]
fn call_depth_limit_on_infinite_recursion() {
    let mut mb = ModuleBuilder::new();
    let s = mb
        .declare_function("rec", sig(&[Type::I32], Type::I32))
        .unwrap();
    let mut b = FunctionBuilder::new("rec", sig(&[Type::I32], Type::I32));
    let x = b.param(0);
    let r = b.call(Type::I32, s, &[x.into()]).unwrap();
    b.ret(Some(r.into()));
    mb.define_function(b.finish());
    let m = mb.finish();
    let cfg = Config {
        call_depth_limit: 50,
        ..Config::default()
    };
    match run(&m, "rec", &[i32v(1)], cfg).unwrap_err() {
        InterpError::CallDepth { limit, at } => {
            assert_eq!(limit, 50);
            assert_eq!(at.inst, Some(Inst(0)));
        }
        e => panic!("{e}"),
    }
    // The default depth is deep enough to need the explicit frame stack.
    assert!(matches!(
        run(&m, "rec", &[i32v(1)], Config::default()),
        Err(InterpError::CallDepth { limit: 1000, .. })
    ));
}

/// A loop whose two phis swap each other on the back edge, taken three times.
#[test]
fn phis_are_parallel() {
    let mut b = FunctionBuilder::new("swap", sig(&[], Type::I32));
    let head = b.create_block();
    let exit = b.create_block();
    b.jump(head);
    b.switch_to(head);
    let (one, two, zero) = (
        b.iconst(Type::I32, 1),
        b.iconst(Type::I32, 2),
        b.iconst(Type::I32, 0),
    );
    // Phis refer to each other; create them, then patch the back-edge operands.
    let a = b.phi(Type::I32, &[(Block(0), one)]);
    let c = b.phi(Type::I32, &[(Block(0), two)]);
    let i = b.phi(Type::I32, &[(Block(0), zero)]);
    let k1 = b.iconst(Type::I32, 1);
    let i2 = b.binary(BinaryOp::Add, Type::I32, i.into(), k1);
    let four = b.iconst(Type::I32, 4);
    let cond = b.icmp(IntPredicate::Slt, Type::I32, i2.into(), four);
    b.br(cond.into(), head, exit);
    let f = b.function_mut();
    for (phi, v) in [(0usize, c), (1, a), (2, i2)] {
        if let InstKind::Phi { incoming, .. } = &mut f.insts[phi].kind {
            incoming.push((head, v.into()));
        }
    }
    b.switch_to(exit);
    let ten = b.iconst(Type::I32, 10);
    let t = b.binary(BinaryOp::Mul, Type::I32, a.into(), ten);
    let r = b.binary(BinaryOp::Add, Type::I32, t.into(), c.into());
    b.ret(Some(r.into()));
    let m = module_of(b.finish());
    let out = run(&m, "swap", &[], small()).unwrap();
    // (1,2) -> (2,1) -> (1,2) -> (2,1); sequential assignment would give 22.
    assert_eq!(out.result, Some(i32v(21)));
}

/// `br c, b, b` is two edges to one block; its phi has an entry per edge.
#[test]
fn duplicate_edge_phi() {
    let mut b = FunctionBuilder::new("dup", sig(&[Type::I1], Type::I32));
    let j = b.create_block();
    let c = b.param(0);
    b.br(c.into(), j, j);
    b.switch_to(j);
    let (five, six) = (b.iconst(Type::I32, 5), b.iconst(Type::I32, 6));
    let p = b.phi(Type::I32, &[(Block(0), five), (Block(0), six)]);
    b.ret(Some(p.into()));
    let m = module_of(b.finish());
    for c in [true, false] {
        let out = run(&m, "dup", &[Val::bool(c)], small()).unwrap();
        assert_eq!(
            out.result,
            Some(i32v(5)),
            "first entry for the predecessor wins"
        );
        assert_eq!(out.steps, 3);
    }
}

#[test]
fn phi_without_entry_for_edge_is_malformed() {
    let mut b = FunctionBuilder::new("f", sig(&[], Type::I32));
    let j = b.create_block();
    b.jump(j);
    b.switch_to(j);
    let five = b.iconst(Type::I32, 5);
    let p = b.phi(Type::I32, &[(Block(7), five)]);
    b.ret(Some(p.into()));
    let m = module_of(b.finish());
    match run(&m, "f", &[], small()).unwrap_err() {
        InterpError::Malformed { at, .. } => assert_eq!(at.inst, Some(Inst(0))),
        e => panic!("{e}"),
    }
}

fn block_addr_const(b: &mut FunctionBuilder, blk: Block) -> Operand {
    b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::BlockAddr(blk),
    })
}

#[test]
fn indirect_br_via_blockaddress() {
    let mut b = FunctionBuilder::new("ib", sig(&[Type::I1], Type::I32));
    let (b1, b2, b3) = (b.create_block(), b.create_block(), b.create_block());
    let (a1, a2) = (block_addr_const(&mut b, b1), block_addr_const(&mut b, b2));
    let c = b.param(0);
    let addr = b.select(Type::Ptr, c.into(), a1, a2);
    b.terminate(Terminator::IndirectBr {
        addr: addr.into(),
        dests: vec![b1, b2],
    });
    for (blk, v) in [(b1, 10), (b2, 20), (b3, 30)] {
        b.switch_to(blk);
        let k = b.iconst(Type::I32, v);
        b.ret(Some(k));
    }
    let m = module_of(b.finish());
    assert_eq!(
        run(&m, "ib", &[Val::bool(true)], small()).unwrap().result,
        Some(i32v(10))
    );
    assert_eq!(
        run(&m, "ib", &[Val::bool(false)], small()).unwrap().result,
        Some(i32v(20))
    );

    // A block address not listed in `dests` is a bad target.
    let mut b = FunctionBuilder::new("bad", sig(&[], Type::I32));
    let (b1, b2) = (b.create_block(), b.create_block());
    let a2 = block_addr_const(&mut b, b2);
    b.terminate(Terminator::IndirectBr {
        addr: a2,
        dests: vec![b1],
    });
    for blk in [b1, b2] {
        b.switch_to(blk);
        let k = b.iconst(Type::I32, 0);
        b.ret(Some(k));
    }
    let m = module_of(b.finish());
    assert!(matches!(
        run(&m, "bad", &[], small()),
        Err(InterpError::BadIndirectTarget { .. })
    ));
}

#[test]
fn indirect_call_via_symbol_address() {
    let mut mb = ModuleBuilder::new();
    let sq = mb
        .declare_function("sq", sig(&[Type::I32], Type::I32))
        .unwrap();
    mb.declare_function("main", sig(&[Type::Ptr], Type::I32));
    let mut b = FunctionBuilder::new("sq", sig(&[Type::I32], Type::I32));
    let x = b.param(0);
    let y = b.binary(BinaryOp::Mul, Type::I32, x.into(), x.into());
    b.ret(Some(y.into()));
    mb.define_function(b.finish());
    let mut b = FunctionBuilder::new("main", sig(&[Type::Ptr], Type::I32));
    let p = b.param(0);
    let seven = b.iconst(Type::I32, 7);
    let r = b.push(InstKind::Call {
        ret: Type::I32,
        callee: Callee::Indirect(p.into()),
        args: [seven].into_iter().collect(),
        fixed_args: None,
    });
    b.ret(Some(r[0].into()));
    mb.define_function(b.finish());
    let m = mb.finish();
    let mut it = Interpreter::new(&m, small());
    let fp = it.symbol_address(sq).unwrap();
    assert_eq!(
        it.call("main", &[Val::Ptr(fp)]).unwrap().result,
        Some(i32v(49))
    );
    assert!(matches!(
        it.call("main", &[Val::Ptr(fp + 1)]),
        Err(InterpError::BadIndirectTarget { .. })
    ));
    assert!(matches!(
        it.call("main", &[Val::Ptr(0)]),
        Err(InterpError::BadIndirectTarget { addr: 0, .. })
    ));
}

#[test]
fn errors_name_the_instruction() {
    let mut b = FunctionBuilder::new("div", sig(&[Type::I32, Type::I32], Type::I32));
    let (x, y) = (b.param(0), b.param(1));
    let q = b.binary(BinaryOp::SDiv, Type::I32, x.into(), y.into());
    b.ret(Some(q.into()));
    let m = module_of(b.finish());
    let e = run(&m, "div", &[i32v(1), i32v(0)], small()).unwrap_err();
    assert_eq!(e.to_string(), "@div block0 inst0: division by zero");
    let e = run(&m, "div", &[i32v(i32::MIN), i32v(-1)], small()).unwrap_err();
    assert!(matches!(e, InterpError::SignedOverflow { .. }));
    assert!(matches!(
        run(&m, "div", &[i32v(1)], small()),
        Err(InterpError::ArgCount {
            expected: 2,
            got: 1,
            ..
        })
    ));
    assert!(matches!(
        run(&m, "div", &[i32v(1), Val::int(Type::I64, 1)], small()),
        Err(InterpError::TypeMismatch { .. })
    ));
    assert!(matches!(
        run(&m, "nope", &[], small()),
        Err(InterpError::UnknownFunction { .. })
    ));
}

#[test]
fn undefined_value_on_path() {
    // Memory-form IR where v is defined only on one branch and used after the join.
    let mut b = FunctionBuilder::new("u", sig(&[Type::I1], Type::I32));
    let (t, j) = (b.create_block(), b.create_block());
    let c = b.param(0);
    b.br(c.into(), t, j);
    b.switch_to(t);
    let k = b.iconst(Type::I32, 3);
    let v = b.copy(Type::I32, k);
    b.jump(j);
    b.switch_to(j);
    b.ret(Some(v.into()));
    let m = module_of(b.finish());
    assert_eq!(
        run(&m, "u", &[Val::bool(true)], small()).unwrap().result,
        Some(i32v(3))
    );
    match run(&m, "u", &[Val::bool(false)], small()).unwrap_err() {
        InterpError::UndefinedValue { value, at } => {
            assert_eq!(value, v);
            assert_eq!(at.block, Some(j));
        }
        e => panic!("{e}"),
    }
}

#[test]
fn unreachable_dead_blocks_opaque_asm() {
    let mut b = FunctionBuilder::new("f", sig(&[], Type::Void));
    let d = b.create_block();
    b.jump(d);
    b.function_mut().blocks[1] = BlockData::dead();
    let m = module_of(b.finish());
    assert!(matches!(
        run(&m, "f", &[], small()),
        Err(InterpError::Malformed { .. })
    ));

    let b = FunctionBuilder::new("f", sig(&[], Type::Void));
    let m = module_of(b.finish());
    assert!(matches!(
        run(&m, "f", &[], small()),
        Err(InterpError::Unreachable { .. })
    ));

    let mut b = FunctionBuilder::new("f", sig(&[], Type::Void));
    b.push(InstKind::Opaque(Box::new(OpaqueInst {
        name: "va_arg".into(),
        ty: Type::Void,
        args: Default::default(),
        payload: String::new(),
    })));
    let m = module_of(b.finish());
    match run(&m, "f", &[], small()) {
        Err(InterpError::OpaqueInstruction { name, .. }) => assert_eq!(name, "va_arg"),
        r => panic!("{r:?}"),
    }
}

#[test]
fn switch_and_atomics() {
    let mut b = FunctionBuilder::new("f", sig(&[Type::I8], Type::I32));
    let (c1, c2, def) = (b.create_block(), b.create_block(), b.create_block());
    let x = b.param(0);
    b.switch(Type::I8, x.into(), def, &[(0xff, c1), (2, c2)]);
    b.switch_to(c1);
    let a = b.alloca(Type::I32, 4, 4);
    let k = b.iconst(Type::I32, 5);
    b.store(Type::I32, k, a.into());
    let three = b.iconst(Type::I32, 3);
    let old = b.push(InstKind::AtomicRmw {
        op: AtomicOp::Add,
        ty: Type::I32,
        ptr: a.into(),
        value: three,
        ordering: Ordering::SeqCst,
        volatile: true,
    })[0];
    let eight = b.iconst(Type::I32, 8);
    let hundred = b.iconst(Type::I32, 100);
    let r = b.push(InstKind::CmpXchg {
        ty: Type::I32,
        ptr: a.into(),
        expected: eight,
        new: hundred,
        success: Ordering::SeqCst,
        failure: Ordering::SeqCst,
        weak: false,
        volatile: false,
    });
    b.push(InstKind::Fence {
        ordering: Ordering::SeqCst,
    });
    let now = b.load(Type::I32, a.into());
    let ok = b.cast(CastOp::ZExt, Type::I1, Type::I32, r[1].into());
    let s = b.binary(BinaryOp::Add, Type::I32, now.into(), old.into());
    let s = b.binary(BinaryOp::Add, Type::I32, s.into(), ok.into());
    let s = b.binary(BinaryOp::Add, Type::I32, s.into(), r[0].into());
    b.ret(Some(s.into()));
    for (blk, v) in [(c2, 2), (def, 9)] {
        b.switch_to(blk);
        let k = b.iconst(Type::I32, v);
        b.ret(Some(k));
    }
    let m = module_of(b.finish());
    let r = |x| {
        run(&m, "f", &[Val::int(Type::I8, x)], small())
            .unwrap()
            .result
    };
    assert_eq!(r(-1), Some(i32v(100 + 5 + 1 + 8)));
    assert_eq!(r(2), Some(i32v(2)));
    assert_eq!(r(7), Some(i32v(9)));
}

/// A program using the heap, globals and output, for determinism and digest tests.
fn effects_module(stored: i32) -> Module {
    let mut mb = ModuleBuilder::new();
    let g = mb
        .add_global(
            "msg",
            Global {
                size: 16,
                align: 1,
                init: Some(b"n=%d %s\n\0".to_vec()),
                ..Global::default()
            },
        )
        .unwrap();
    let counter = mb
        .add_global(
            "counter",
            Global {
                size: 8,
                align: 8,
                init: None,
                ..Global::default()
            },
        )
        .unwrap();
    let vsig = |p: &[Type], r| Signature {
        params: p.to_vec(),
        ret: r,
        varargs: true,
    };
    let printf = mb
        .declare_extern("printf", vsig(&[Type::Ptr], Type::I32))
        .unwrap();
    let malloc = mb
        .declare_extern("malloc", sig(&[Type::I64], Type::Ptr))
        .unwrap();
    let memset = mb
        .declare_extern(
            "llvm.memset.p0i8.i64",
            sig(&[Type::Ptr, Type::I8, Type::I64, Type::I1], Type::Void),
        )
        .unwrap();
    let puts = mb
        .declare_extern("puts", sig(&[Type::Ptr], Type::I32))
        .unwrap();
    mb.declare_function("main", sig(&[], Type::I32));
    let mut b = FunctionBuilder::new("main", sig(&[], Type::I32));
    let gp = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(g),
    });
    let cp = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(counter),
    });
    let n = b.iconst(Type::I64, 6);
    let h = b.call(Type::Ptr, malloc, &[n]).unwrap();
    let (c, len, vol) = (
        b.iconst(Type::I8, b'a' as i128),
        b.iconst(Type::I64, 5),
        b.iconst(Type::I1, 0),
    );
    b.call(Type::Void, memset, &[h.into(), c, len, vol]);
    let k = b.iconst(Type::I32, stored as i128);
    b.store(Type::I32, k, cp);
    let loc = b.alloca(Type::I8, 4, 1);
    b.call(Type::I32, puts, &[h.into()]);
    let forty = b.iconst(Type::I32, 40);
    let r = b.push(InstKind::Call {
        ret: Type::I32,
        callee: Callee::Direct(printf),
        args: [gp, forty, h.into()].into_iter().collect(),
        fixed_args: Some(1),
    })[0];
    let _ = loc;
    b.ret(Some(r.into()));
    mb.define_function(b.finish());
    mb.finish()
}

#[test]
fn externals_trace_output_and_determinism() {
    let m = effects_module(7);
    let a = run(&m, "main", &[], small()).unwrap();
    assert_eq!(String::from_utf8_lossy(&a.output), "aaaaa\nn=40 aaaaa\n");
    assert_eq!(a.result, Some(i32v(11)));
    assert_eq!(
        a.trace,
        vec![
            "malloc(i64 6) -> heap#0+0".to_string(),
            "llvm.memset.p0i8.i64(heap#0+0, i8 97, i64 5, i1 0)".to_string(),
            "puts(heap#0+0) -> i32 6".to_string(),
            "printf(@msg+0, i32 40, heap#0+0) -> i32 11".to_string(),
        ]
    );
    let mut it = Interpreter::new(&m, small());
    let b = it.call("main", &[]).unwrap();
    let c = it.call("main", &[]).unwrap();
    assert_eq!(a, b);
    assert_eq!(b, c, "each call starts from a fresh memory image");
    let other = run(&effects_module(8), "main", &[], small()).unwrap();
    assert_ne!(a.memory_digest, other.memory_digest);
    assert_eq!(a.output, other.output);
}

#[test]
fn exit_abort_and_unsupported() {
    let mut mb = ModuleBuilder::new();
    let exit = mb
        .declare_extern("exit", sig(&[Type::I32], Type::Void))
        .unwrap();
    let abort = mb.declare_extern("abort", sig(&[], Type::Void)).unwrap();
    let fopen = mb.declare_extern("fopen", sig(&[], Type::Ptr)).unwrap();
    let putchar = mb
        .declare_extern("putchar", sig(&[Type::I32], Type::I32))
        .unwrap();
    mb.declare_function("main", sig(&[Type::I32], Type::I32));
    let mut b = FunctionBuilder::new("main", sig(&[Type::I32], Type::I32));
    let (e, a, f) = (b.create_block(), b.create_block(), b.create_block());
    let x = b.param(0);
    b.switch(Type::I32, x.into(), f, &[(0, e), (1, a)]);
    b.switch_to(e);
    let ch = b.iconst(Type::I32, b'!' as i128);
    b.call(Type::I32, putchar, &[ch]);
    let three = b.iconst(Type::I32, 3);
    b.call(Type::Void, exit, &[three]);
    b.terminate(Terminator::Unreachable);
    b.switch_to(a);
    b.call(Type::Void, abort, &[]);
    b.terminate(Terminator::Unreachable);
    b.switch_to(f);
    b.call(Type::Ptr, fopen, &[]);
    b.terminate(Terminator::Unreachable);
    mb.define_function(b.finish());
    let m = mb.finish();
    let out = run(&m, "main", &[i32v(0)], small()).unwrap();
    assert_eq!(
        (out.exit_code, out.result, out.output),
        (Some(3), None, b"!".to_vec())
    );
    assert!(matches!(
        run(&m, "main", &[i32v(1)], small()),
        Err(InterpError::Abort { .. })
    ));
    match run(&m, "main", &[i32v(2)], small()) {
        Err(InterpError::UnsupportedExternal { name, .. }) => assert_eq!(name, "fopen"),
        r => panic!("{r:?}"),
    }
}

#[test]
fn globals_relocations_and_constants() {
    let mut mb = ModuleBuilder::new();
    let s = mb
        .add_global(
            "s",
            Global {
                size: 4,
                align: 1,
                constant: true,
                init: Some(b"hi\0".to_vec()),
                ..Global::default()
            },
        )
        .unwrap();
    let p = mb
        .add_global(
            "p",
            Global {
                size: 8,
                align: 8,
                init: Some(vec![]),
                relocations: vec![Relocation::address(0, s, 1)],
                ..Global::default()
            },
        )
        .unwrap();
    mb.declare_function("main", sig(&[Type::I1], Type::I8));
    let mut b = FunctionBuilder::new("main", sig(&[Type::I1], Type::I8));
    let (rd, wr) = (b.create_block(), b.create_block());
    let c = b.param(0);
    b.br(c.into(), rd, wr);
    b.switch_to(rd);
    let pp = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(p),
    });
    let q = b.load(Type::Ptr, pp);
    let ch = b.load(Type::I8, q.into());
    b.ret(Some(ch.into()));
    b.switch_to(wr);
    let sp = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(s),
    });
    let z = b.iconst(Type::I8, 0);
    b.store(Type::I8, z, sp);
    b.ret(Some(z));
    mb.define_function(b.finish());
    let m = mb.finish();
    let out = run(&m, "main", &[Val::bool(true)], small()).unwrap();
    assert_eq!(out.result, Some(Val::int(Type::I8, b'i' as i128)));
    assert!(matches!(
        run(&m, "main", &[Val::bool(false)], small()),
        Err(InterpError::WriteToConstant { .. })
    ));

    let mut bad = m.clone();
    bad.globals[1].relocations[0].offset = 4;
    assert!(matches!(
        run(&bad, "main", &[Val::bool(true)], small()),
        Err(InterpError::BadGlobal { .. })
    ));
}

/// Every single corruption of an operand, successor, instruction list entry or result
/// handle makes the run fail with an error (or still succeed), never panic.
#[test]
fn corrupted_ir_is_an_error_not_a_panic() {
    let base = effects_module(7);
    let fi = base
        .functions
        .iter()
        .position(|f| f.name == "main")
        .unwrap();
    let ninsts = base.functions[fi].insts.len();
    let mut runs = 0;
    let check = |m: &Module, runs: &mut u32| {
        *runs += 1;
        let _ = run(m, "main", &[], small());
    };
    for i in 0..ninsts {
        let nops = {
            let mut n = 0;
            base.functions[fi].insts[i]
                .kind
                .for_each_operand(|_| n += 1);
            n
        };
        for k in 0..nops {
            for bad in [Operand::Value(Value(10_000)), Operand::Const(Const(10_000))] {
                let mut m = base.clone();
                let mut n = 0;
                m.functions[fi].insts[i].kind.for_each_operand_mut(|op| {
                    if n == k {
                        *op = bad;
                    }
                    n += 1;
                });
                check(&m, &mut runs);
            }
        }
        let mut m = base.clone();
        for r in m.functions[fi].insts[i].results.iter_mut() {
            *r = Value(10_000);
        }
        check(&m, &mut runs);
        let mut m = base.clone();
        m.functions[fi].insts[i].results.clear();
        check(&m, &mut runs);
    }
    let mut m = base.clone();
    m.functions[fi].blocks[0].insts.push(Inst(10_000));
    check(&m, &mut runs);
    let mut m = base.clone();
    m.functions[fi].blocks[0].terminator = Terminator::Jump(Target::new(Block(10_000)));
    check(&m, &mut runs);
    let mut m = base.clone();
    m.functions[fi].blocks[0].terminator = Terminator::Jump(Target {
        block: Block(0),
        args: vec![Operand::Value(Value(0))],
    });
    check(&m, &mut runs);
    let mut m = base.clone();
    m.symbols.push(SymbolData {
        name: "ghost".into(),
        kind: SymbolKind::Function(99),
    });
    let ghost = Symbol::new(m.symbols.len() - 1);
    m.functions[fi].blocks[0].insts.truncate(0);
    let c = m.functions[fi].consts.intern(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(ghost),
    });
    m.functions[fi].blocks[0].terminator = Terminator::Ret(Some(Operand::Const(c)));
    check(&m, &mut runs);
    for callee in [Callee::Direct(ghost), Callee::Indirect(Operand::Const(c))] {
        let mut m2 = m.clone();
        let call = m2.functions[fi].insts.len();
        m2.functions[fi].insts.push(InstData {
            kind: InstKind::Call {
                ret: Type::Void,
                callee,
                args: Default::default(),
                fixed_args: None,
            },
            results: Default::default(),
            block: Block(0),
        });
        m2.functions[fi].blocks[0].insts.push(Inst::new(call));
        assert!(matches!(
            run(&m2, "main", &[], small()),
            Err(InterpError::Malformed { .. })
        ));
    }
    assert!(runs > 20);
    // The phi-swap loop with its phis' results corrupted, and with a bogus Val type.
    let bogus = Val::Int {
        ty: Type::Void,
        bits: 0,
    };
    let mut b = FunctionBuilder::new("f", sig(&[Type::Void], Type::I32));
    let x = b.param(0);
    let y = b.binary(BinaryOp::Add, Type::I32, x.into(), x.into());
    b.ret(Some(y.into()));
    let m = module_of(b.finish());
    assert!(matches!(
        run(&m, "f", &[bogus], small()),
        Err(InterpError::TypeMismatch { .. })
    ));
}

/// Block parameters receive branch arguments in parallel: `jump head(q, p)` swaps.
#[test]
fn block_params_are_parallel() {
    let mut b = FunctionBuilder::new("bp", sig(&[], Type::I32));
    let head = b.create_block();
    let exit = b.create_block();
    let f = b.function_mut();
    let mut param = |n: u32| {
        f.values.push(ValueData {
            ty: Type::I32,
            def: ValueDef::BlockParam(head, n),
        });
        Value::new(f.values.len() - 1)
    };
    let (p, q, i) = (param(0), param(1), param(2));
    f.blocks[head.index()].params = [p, q, i].into_iter().collect();
    let (one, two, zero) = (
        b.iconst(Type::I32, 1),
        b.iconst(Type::I32, 2),
        b.iconst(Type::I32, 0),
    );
    b.terminate(Terminator::Jump(Target {
        block: head,
        args: vec![one, two, zero],
    }));
    b.switch_to(head);
    let k1 = b.iconst(Type::I32, 1);
    let i2 = b.binary(BinaryOp::Add, Type::I32, i.into(), k1);
    let three = b.iconst(Type::I32, 2);
    let c = b.icmp(IntPredicate::Slt, Type::I32, i2.into(), three);
    b.terminate(Terminator::Br {
        cond: c.into(),
        then_dest: Target {
            block: head,
            args: vec![q.into(), p.into(), i2.into()],
        },
        else_dest: Target::new(exit),
    });
    b.switch_to(exit);
    let ten = b.iconst(Type::I32, 10);
    let t = b.binary(BinaryOp::Mul, Type::I32, p.into(), ten);
    let r = b.binary(BinaryOp::Add, Type::I32, t.into(), q.into());
    b.ret(Some(r.into()));
    let m = module_of(b.finish());
    // One swap: (1,2) -> (2,1); sequential assignment would give 22.
    assert_eq!(run(&m, "bp", &[], small()).unwrap().result, Some(i32v(21)));
    let mut bad = m.clone();
    if let Terminator::Jump(t) = &mut bad.functions[0].blocks[0].terminator {
        t.args.pop();
    }
    assert!(matches!(
        run(&bad, "bp", &[], small()),
        Err(InterpError::Malformed { .. })
    ));
}

#[test]
fn constant_of_the_wrong_kind_is_a_located_bad_constant() {
    // A float bit pattern typed `ptr` has no value; the error names the constant's kind and
    // type and the instruction that read it.
    let mut b = FunctionBuilder::new("f", sig(&[], Type::Ptr));
    let c = b.function_mut().consts.intern(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::Float(0),
    });
    b.ret(Some(Operand::Const(c)));
    let m = module_of(b.finish());
    match run(&m, "f", &[], small()).unwrap_err() {
        e @ InterpError::BadConstant {
            source: ConstError::KindMismatch { .. },
            ..
        } => assert!(e.to_string().contains("does not fit type ptr"), "{e}"),
        e => panic!("{e}"),
    }
}

#[test]
fn argument_text_errors_name_the_text_and_type() {
    assert_eq!(
        Val::parse(Type::I8, "256"),
        Err(ValueParseError::Invalid {
            text: "256".into(),
            ty: Type::I8
        })
    );
    assert_eq!(Val::parse(Type::Void, "0"), Err(ValueParseError::Void));
}

#[test]
fn getenv_sees_an_empty_environment() {
    let mut mb = ModuleBuilder::new();
    let name = mb
        .add_global(
            "name",
            Global {
                size: 5,
                align: 1,
                constant: true,
                init: Some(b"HOME\0".to_vec()),
                ..Global::default()
            },
        )
        .unwrap();
    let getenv = mb
        .declare_extern("getenv", sig(&[Type::Ptr], Type::Ptr))
        .unwrap();
    mb.declare_function("main", sig(&[Type::I1], Type::I1));
    let mut b = FunctionBuilder::new("main", sig(&[Type::I1], Type::I1));
    let (good, bad) = (b.create_block(), b.create_block());
    let c = b.param(0);
    b.br(c.into(), good, bad);
    b.switch_to(good);
    let at = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(name),
    });
    let v = b.call(Type::Ptr, getenv, &[at]);
    let null = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::Null,
    });
    let is_null = b.icmp(IntPredicate::Eq, Type::Ptr, v.unwrap().into(), null);
    b.ret(Some(is_null.into()));
    b.switch_to(bad);
    let null = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::Null,
    });
    b.call(Type::Ptr, getenv, &[null]);
    b.ret(Some(c.into()));
    mb.define_function(b.finish());
    let m = mb.finish();
    let out = run(&m, "main", &[Val::bool(true)], small()).unwrap();
    assert_eq!(out.result, Some(Val::bool(true)));
    // The name must be a readable string: a null name faults, as it would in C.
    assert!(run(&m, "main", &[Val::bool(false)], small()).is_err());
}

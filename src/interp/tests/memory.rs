//! Execution tests of the interpreter's memory: bounds, the null page, use after free,
//! fresh allocas per loop iteration, address arithmetic, memory round trips of `i1` and
//! floats, and the heap limit.

use super::*;

/// Builds `f(p) = load ty (gep p, off)` after allocating `size` bytes if `p` is unused.
fn load_at(size: u32, off: i64, ty: Type) -> Module {
    let mut b = FunctionBuilder::new("f", sig(&[], ty));
    let a = b.alloca(Type::I8, size, 1);
    let p = b.gep(a.into(), off, &[]);
    let v = b.load(ty, p.into());
    b.ret(Some(v.into()));
    module_of(b.finish())
}

#[test]
fn memory_bounds() {
    assert_eq!(
        run(&load_at(8, 0, Type::I64), "f", &[], small())
            .unwrap()
            .result,
        Some(Val::int(Type::I64, 0)),
        "uninitialised memory reads as zero"
    );
    assert!(matches!(
        run(&load_at(4, 0, Type::I64), "f", &[], small()),
        Err(InterpError::OutOfBounds { size: 8, .. })
    ));
    assert!(matches!(
        run(&load_at(4, -1, Type::I8), "f", &[], small()),
        Err(InterpError::OutOfBounds { size: 1, .. })
    ));
    assert!(matches!(
        run(&load_at(4, 4, Type::I8), "f", &[], small()),
        Err(InterpError::OutOfBounds { .. })
    ));
    // Null page.
    let mut b = FunctionBuilder::new("f", sig(&[], Type::I32));
    let null = b.constant(ConstData::zero(Type::Ptr));
    let p = b.gep(null, 16, &[]);
    let v = b.load(Type::I32, p.into());
    b.ret(Some(v.into()));
    match run(&module_of(b.finish()), "f", &[], small()).unwrap_err() {
        InterpError::NullDeref { addr, at } => {
            assert_eq!(addr, 16);
            assert_eq!(at.to_string(), "@f block0 inst1");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn use_after_free_of_returned_alloca_and_heap() {
    let mut mb = ModuleBuilder::new();
    let esc = mb.declare_function("escape", sig(&[], Type::Ptr)).unwrap();
    let malloc = mb
        .declare_extern("malloc", sig(&[Type::I64], Type::Ptr))
        .unwrap();
    let free = mb
        .declare_extern("free", sig(&[Type::Ptr], Type::Void))
        .unwrap();
    mb.declare_function("main", sig(&[Type::I1], Type::I32));
    let mut b = FunctionBuilder::new("escape", sig(&[], Type::Ptr));
    let a = b.alloca(Type::I32, 4, 4);
    b.ret(Some(a.into()));
    mb.define_function(b.finish());
    let mut b = FunctionBuilder::new("main", sig(&[Type::I1], Type::I32));
    let (stack, heap) = (b.create_block(), b.create_block());
    let c = b.param(0);
    b.br(c.into(), stack, heap);
    b.switch_to(stack);
    let p = b.call(Type::Ptr, esc, &[]).unwrap();
    let v = b.load(Type::I32, p.into());
    b.ret(Some(v.into()));
    b.switch_to(heap);
    let n = b.iconst(Type::I64, 4);
    let h = b.call(Type::Ptr, malloc, &[n]).unwrap();
    b.call(Type::Void, free, &[h.into()]);
    let v = b.load(Type::I32, h.into());
    b.ret(Some(v.into()));
    mb.define_function(b.finish());
    let m = mb.finish();
    for c in [true, false] {
        assert!(matches!(
            run(&m, "main", &[Val::bool(c)], small()),
            Err(InterpError::UseAfterFree { .. })
        ));
    }
}

#[test]
fn alloca_in_loop_is_fresh_each_time() {
    // Two allocas from one instruction: storing through the first does not change the second.
    let mut b = FunctionBuilder::new("f", sig(&[], Type::I1));
    let a1 = b.alloca(Type::I32, 4, 4);
    let a2 = b.alloca(Type::I32, 4, 4);
    let eq = b.icmp(IntPredicate::Eq, Type::Ptr, a1.into(), a2.into());
    b.ret(Some(eq.into()));
    let out = run(&module_of(b.finish()), "f", &[], small()).unwrap();
    assert_eq!(out.result, Some(Val::bool(false)));
}

#[test]
fn gep_wraps_and_sign_extends() {
    let mut b = FunctionBuilder::new("g", sig(&[Type::I32], Type::Ptr));
    let null = b.constant(ConstData::zero(Type::Ptr));
    let i = b.param(0);
    let p = b.gep(null, 3, &[(i.into(), 4)]);
    b.ret(Some(p.into()));
    let m = module_of(b.finish());
    let r = |x| run(&m, "g", &[i32v(x)], small()).unwrap().result;
    assert_eq!(r(-1), Some(Val::Ptr(u64::MAX)));
    assert_eq!(r(2), Some(Val::Ptr(11)));
    assert_eq!(
        r(i32::MIN),
        Some(Val::Ptr((3i64 + 4 * i32::MIN as i64) as u64))
    );
}

#[test]
fn i1_and_float_memory_round_trip() {
    let mut b = FunctionBuilder::new("f", sig(&[Type::I1, Type::F32], Type::I32));
    let a = b.alloca(Type::I64, 8, 8);
    let (c, x) = (b.param(0), b.param(1));
    b.store(Type::I1, c.into(), a.into());
    let byte = b.load(Type::I8, a.into());
    let q = b.gep(a.into(), 4, &[]);
    b.store(Type::F32, x.into(), q.into());
    let bits = b.load(Type::I32, q.into());
    let w = b.cast(CastOp::ZExt, Type::I8, Type::I32, byte.into());
    let r = b.binary(BinaryOp::Add, Type::I32, w.into(), bits.into());
    b.ret(Some(r.into()));
    let m = module_of(b.finish());
    let out = run(&m, "f", &[Val::bool(true), Val::f32(1.0)], small()).unwrap();
    assert_eq!(out.result, Some(i32v(1.0f32.to_bits() as i32 + 1)));
}

#[test]
fn memory_limit_is_an_error() {
    let mut mb = ModuleBuilder::new();
    let malloc = mb
        .declare_extern("malloc", sig(&[Type::I64], Type::Ptr))
        .unwrap();
    mb.declare_function("main", sig(&[], Type::Ptr));
    let mut b = FunctionBuilder::new("main", sig(&[], Type::Ptr));
    let n = b.iconst(Type::I64, 1 << 40);
    let h = b.call(Type::Ptr, malloc, &[n]).unwrap();
    b.ret(Some(h.into()));
    mb.define_function(b.finish());
    assert!(matches!(
        run(&mb.finish(), "main", &[], small()),
        Err(InterpError::MemoryLimit { .. })
    ));
}

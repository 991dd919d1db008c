//! Export of SSA-form functions built with the builder (no LLVM context): phis (including
//! `i1` phis and phis over constants), an entry block that is a loop target, copies,
//! selects, scaled GEPs over an alloca, float constants and a switch with negative `i8`
//! cases, and globals printed from their bytes and relocations. The export must pass `opt -passes=verify` and `lli` must print and return what
//! the IR computes. Skips with a message when `opt`/`lli` are missing.

mod common;
use common::{missing_tools, require};
use std::io::Write;
use std::process::{Command, Stdio};
use strata::ir::*;
use strata::llvm::{export, LlvmContext};

fn sig(params: &[Type], ret: Type, varargs: bool) -> Signature {
    Signature {
        params: params.to_vec(),
        ret,
        varargs,
    }
}

fn module() -> Module {
    let mut mb = ModuleBuilder::new();
    let putchar = mb
        .declare_extern("putchar", sig(&[Type::I32], Type::I32, false))
        .unwrap();
    let countdown = mb
        .declare_function("countdown", sig(&[Type::Ptr], Type::Void, false))
        .unwrap();
    mb.declare_function("main", sig(&[], Type::I32, false))
        .unwrap();
    // Globals printed from the IR: a string and a pointer to its third byte.
    let msg = mb
        .add_global(
            "msg",
            Global {
                size: 8,
                align: 1,
                constant: true,
                linkage: Linkage::Internal,
                init: Some(b"ok!".to_vec()),
                ..Global::default()
            },
        )
        .unwrap();
    let pp = mb
        .add_global(
            "pp",
            Global {
                size: 16,
                align: 8,
                init: Some(vec![7]),
                relocations: vec![Relocation::address(8, msg, 2)],
                ..Global::default()
            },
        )
        .unwrap();

    // countdown(p): block0 is its own loop: *p -= 1 until it reaches 0, printing '.'.
    let mut b = FunctionBuilder::new("countdown", sig(&[Type::Ptr], Type::Void, false));
    b.set_phase(Phase::Ssa);
    let p = b.param(0);
    let exit = b.create_block();
    let v = b.load(Type::I32, p.into());
    let one = b.iconst(Type::I32, 1);
    let v2 = b.binary(BinaryOp::Sub, Type::I32, v.into(), one);
    b.store(Type::I32, v2.into(), p.into());
    let dot = b.iconst(Type::I32, 46);
    b.call(Type::I32, putchar, &[dot]);
    let zero = b.iconst(Type::I32, 0);
    let c = b.icmp(IntPredicate::Sgt, Type::I32, v2.into(), zero);
    b.br(c.into(), Block(0), exit);
    b.switch_to(exit);
    b.ret(None);
    mb.define_function(b.finish());

    // main: sum of i*3 for i in 0..10 through phis; an array in an alloca; floats; switch.
    let mut b = FunctionBuilder::new("main", sig(&[], Type::I32, false));
    b.set_phase(Phase::Ssa);
    let head = b.create_block();
    let body = b.create_block();
    let done = b.create_block();
    let neg = b.create_block();
    let other = b.create_block();
    let arr = b.alloca(Type::I8, 40, 16);
    let zero = b.iconst(Type::I32, 0);
    let t = b.iconst(Type::I1, 1);
    b.jump(head);
    b.switch_to(head);
    let i = b.phi(Type::I32, &[]);
    let acc = b.phi(Type::I32, &[]);
    let flag = b.phi(Type::I1, &[]);
    let ten = b.iconst(Type::I32, 10);
    let c = b.icmp(IntPredicate::Slt, Type::I32, i.into(), ten);
    b.br(c.into(), body, done);
    b.switch_to(body);
    let three = b.iconst(Type::I32, 3);
    let m = b.binary(BinaryOp::Mul, Type::I32, i.into(), three);
    let slot = b.gep(arr.into(), 0, &[(i.into(), 4)]);
    b.store(Type::I32, m.into(), slot.into());
    let back = b.load(Type::I32, slot.into());
    let acc2 = b.binary(BinaryOp::Add, Type::I32, acc.into(), back.into());
    let acc3 = b.copy(Type::I32, acc2.into());
    let one = b.iconst(Type::I32, 1);
    let i2 = b.binary(BinaryOp::Add, Type::I32, i.into(), one);
    let f = b.iconst(Type::I1, 0);
    b.jump(head);
    {
        let func = b.function_mut();
        let set = |func: &mut Function, phi: Value, inc: &[(Block, Operand)]| {
            let ValueDef::Result(inst, _) = func.values[phi.index()].def else {
                unreachable!()
            };
            if let InstKind::Phi { incoming, .. } = &mut func.insts[inst.index()].kind {
                incoming.extend(inc.iter().copied());
            }
        };
        set(func, i, &[(Block(0), zero), (body, i2.into())]);
        set(func, acc, &[(Block(0), zero), (body, acc3.into())]);
        set(func, flag, &[(Block(0), t), (body, f)]);
    }
    b.switch_to(done);
    // Floats: 1.1f * 2 -> 2 after fptosi; 0.1 + 0.2 > 0.3 in double.
    let x = b.constant(ConstData::f32(1.1));
    let two = b.constant(ConstData::f32(2.0));
    let y = b.binary(BinaryOp::FMul, Type::F32, x, two);
    let yi = b.cast(CastOp::FpToSi, Type::F32, Type::I32, y.into());
    let a = b.f64const(0.1);
    let bb = b.f64const(0.2);
    let s = b.binary(BinaryOp::FAdd, Type::F64, a, bb);
    let z = b.f64const(0.3);
    let gt = b.fcmp(FloatPredicate::Ogt, Type::F64, s.into(), z);
    let gti = b.cast(CastOp::ZExt, Type::I1, Type::I32, gt.into());
    let fl = b.cast(CastOp::ZExt, Type::I1, Type::I32, flag.into());
    let r1 = b.binary(BinaryOp::Add, Type::I32, acc.into(), yi.into());
    let r2 = b.binary(BinaryOp::Add, Type::I32, r1.into(), gti.into());
    let r3 = b.binary(BinaryOp::Add, Type::I32, r2.into(), fl.into());
    let counter = b.alloca(Type::I32, 4, 4);
    let three = b.iconst(Type::I32, 3);
    b.store(Type::I32, three, counter.into());
    b.call(Type::Void, countdown, &[counter.into()]);
    let nl = b.iconst(Type::I32, 10);
    b.call(Type::I32, putchar, &[nl]);
    // putchar(msg[1]); putchar(*pp[1]) where pp[1] = &msg[2]; putchar('0' + pp[0]).
    let msg_addr = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(msg),
    });
    let pp_addr = b.constant(ConstData {
        ty: Type::Ptr,
        kind: ConstKind::SymbolAddr(pp),
    });
    let k = b.gep(msg_addr, 1, &[]);
    let ch = b.load(Type::I8, k.into());
    let ch32 = b.cast(CastOp::ZExt, Type::I8, Type::I32, ch.into());
    b.call(Type::I32, putchar, &[ch32.into()]);
    let slot = b.gep(pp_addr, 8, &[]);
    let p2 = b.load(Type::Ptr, slot.into());
    let ch = b.load(Type::I8, p2.into());
    let ch32 = b.cast(CastOp::ZExt, Type::I8, Type::I32, ch.into());
    b.call(Type::I32, putchar, &[ch32.into()]);
    let first = b.load(Type::I64, pp_addr);
    let first32 = b.cast(CastOp::Trunc, Type::I64, Type::I32, first.into());
    let zero_ch = b.iconst(Type::I32, 48);
    let digit = b.binary(BinaryOp::Add, Type::I32, first32.into(), zero_ch);
    b.call(Type::I32, putchar, &[digit.into()]);
    // An atomic exchange of a pointer (printed through i64 for LLVM 14).
    let cell = b.alloca(Type::Ptr, 8, 8);
    let null = b.constant(ConstData::zero(Type::Ptr));
    b.store(Type::Ptr, null, cell.into());
    b.push(InstKind::AtomicRmw {
        op: AtomicOp::Xchg,
        ty: Type::Ptr,
        ptr: cell.into(),
        value: msg_addr,
        ordering: Ordering::SeqCst,
        volatile: true,
    });
    let byte = b.cast(CastOp::Trunc, Type::I32, Type::I8, r3.into());
    let sel = b.select(Type::I8, gt.into(), byte.into(), byte.into());
    b.switch(Type::I8, sel.into(), other, &[(0xff, neg), (139, neg)]);
    b.switch_to(neg);
    let e = b.iconst(Type::I32, 1);
    b.ret(Some(e));
    b.switch_to(other);
    b.ret(Some(r3.into()));
    mb.define_function(b.finish());
    mb.finish()
}

#[test]
fn ssa_functions_export_to_valid_runnable_llvm() {
    let m = module();
    let errs = strata::verify::verify_module(&m);
    assert!(errs.is_empty(), "{errs:#?}");
    let text = export(&m, &LlvmContext::default());
    assert!(
        text.contains("entry:"),
        "countdown's block0 has a predecessor:\n{text}"
    );
    assert!(
        text.contains("phi i1 [ true, %b0 ], [ false, %b2 ]"),
        "{text}"
    );
    assert!(text.contains("0x3FF19999A0000000"), "{text}");
    let run = |tool: &str, args: &[&str]| {
        let mut child = match Command::new(tool)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(_) => return None,
        };
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        Some(child.wait_with_output().unwrap())
    };
    let test = "ssa_functions_export_to_valid_runnable_llvm";
    if !require(test, missing_tools(&["opt", "lli"])) {
        return;
    }
    let Some(v) = run("opt", &["-passes=verify", "-disable-output"]) else {
        panic!("opt did not start");
    };
    assert!(
        v.status.success(),
        "opt rejected:\n{}\n{text}",
        String::from_utf8_lossy(&v.stderr)
    );
    let Some(o) = run("lli", &["-"]) else {
        panic!("lli did not start");
    };
    // acc = 3 * 45 = 135, + 2 (float) + 1 (0.1 + 0.2 > 0.3) + 0 (flag after the loop) = 138.
    assert_eq!(String::from_utf8_lossy(&o.stdout), "...\nk!7");
    assert_eq!(o.status.code(), Some(138), "{text}");
}

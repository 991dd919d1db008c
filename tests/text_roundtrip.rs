//! Round-trip and error-location tests of the `.sir` text format (`strata::text`).
//!
//! Every example program must be a fixed point of print∘parse; printed text must reprint
//! byte for byte; a module exercising every instruction, terminator and constant kind must
//! round-trip exactly; and errors must point at the right line and column.

use strata::ir::*;
use strata::text::{parse_module, print_module, ParseError};

fn parse(src: &str) -> Module {
    parse_module(src, "test.sir").unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// `print(parse(x)) == x`.
fn assert_exact(src: &str) {
    let printed = print_module(&parse(src));
    if printed != src {
        for (i, (a, b)) in src.lines().zip(printed.lines()).enumerate() {
            assert_eq!(a, b, "first difference at line {}", i + 1);
        }
        assert_eq!(printed, src);
    }
}

fn err(src: &str) -> ParseError {
    match parse_module(src, "e.sir") {
        Ok(m) => panic!("expected an error, parsed:\n{}", print_module(&m)),
        Err(e) => e,
    }
}

#[test]
fn examples_round_trip() {
    let mut n = 0;
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sir")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "sir") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let m = parse_module(&src, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            m.function("main").is_some(),
            "{} has no @main",
            path.display()
        );
        let printed = print_module(&m);
        let again = parse(&printed);
        assert_eq!(print_module(&again), printed, "{}", path.display());
        assert_eq!(
            again,
            m,
            "{}: tables differ after a round trip",
            path.display()
        );
        // Without comments, the examples are written in canonical form.
        let canon: Vec<&str> = src
            .lines()
            .map(|l| l.split(';').next().unwrap_or("").trim_end())
            .filter(|l| !l.is_empty())
            .collect();
        let got: Vec<&str> = printed.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(got, canon, "{} is not in canonical form", path.display());
        n += 1;
    }
    assert!(n >= 5, "expected at least five examples, found {n}");
}

/// A module in canonical printed form that uses every instruction, terminator and constant
/// kind (generated lines for the keyword tables).
fn every_kind() -> String {
    let mut body = String::new();
    let mut v = 20;
    let line = |body: &mut String, s: String| {
        body.push_str("  ");
        body.push_str(&s);
        body.push('\n');
    };
    for op in BinaryOp::ALL {
        let (ty, a, b) = if op.is_float() {
            ("f64", "v2", "1.5")
        } else {
            ("i32", "v0", "-7")
        };
        line(&mut body, format!("v{v} = {op} {ty} {a}, {b}"));
        v += 1;
    }
    for p in IntPredicate::ALL {
        line(
            &mut body,
            format!("v{v} = icmp {p} i64 v1, 9223372036854775807"),
        );
        v += 1;
    }
    for p in FloatPredicate::ALL {
        line(&mut body, format!("v{v} = fcmp {p} f32 1.0, 0x7FC00000"));
        v += 1;
    }
    let casts = [
        ("trunc", "i64", "v1", "i8"),
        ("zext", "i8", "-1", "i32"),
        ("sext", "i1", "true", "i128"),
        ("fptrunc", "f64", "v2", "f32"),
        ("fpext", "f32", "-0.0", "f64"),
        ("fptosi", "f64", "1e300", "i64"),
        ("fptoui", "f32", "inf", "i16"),
        ("sitofp", "i32", "v0", "f64"),
        ("uitofp", "i64", "-1", "f32"),
        ("ptrtoint", "ptr", "v3", "i64"),
        ("inttoptr", "i64", "4096", "ptr"),
        ("bitcast", "f64", "-inf", "i64"),
    ];
    for (op, from, a, to) in casts {
        assert!(CastOp::from_name(op).is_some());
        line(&mut body, format!("v{v} = {op} {from} {a} to {to}"));
        v += 1;
    }
    for op in AtomicOp::ALL {
        line(
            &mut body,
            format!("v{v} = atomicrmw {op} i16 v3, -32768, acq_rel"),
        );
        v += 1;
    }
    for o in Ordering::ALL {
        line(&mut body, format!("fence {o}"));
    }
    let fixed = r#"  v100 = fneg f64 v2
  v101 = select ptr true, null, @g
  v102 = select i32 false, undef, 2147483647
  v103 = select i128 v150, -170141183460469231731687303715884105728, 170141183460469231731687303715884105727
  v104 = alloca i32, size 64, align 16
  v105 = alloca i8, size 1, align 1, volatile
  v106 = load i32, v104
  v107 = load i64, @g, volatile
  store i32 v106, v104
  store ptr @"odd name", v104, volatile
  store f64 0x7FF8000000000001, v104
  v108 = gep v104, 0
  v109 = gep @g, -16, i64 v1 * 8, i32 v0 * -4
  v110 = call i32 @f(i32 1, i64 v1, f64 0.1, ptr null, i8 -1, f32 3.4028235e38) fixed 4
  call void @ext(i32 5)
  v111 = call i64 @"odd name"()
  v112 = call f64 v3(ptr v104)
  call void v107(i1 false, ptr blockaddress(block1))
  v113 = call i32 @ext(i32 1, i64 2) fixed 1
  v114, v115 = cmpxchg i64 v3, 0, -1, seq_cst, monotonic
  v116 = copy ptr blockaddress(block2)
  v117 = copy f32 1e-45
  v118 = copy i1 v150
  asm "nop"
  v119, v120 = asm volatile "mov $0, $1 \"x\"\\" out("=r" i32 result, "=m" i64 ptr v104, "=&r" i8 result) in("r" i32 v0, "i" i64 5) clobber("cc", "memory") goto(block2, block3)
  v121 = opaque "va_arg" i32 (ptr v3) "payload \0A"
  opaque "llvm.trap" void () ""
  v150 = icmp eq i32 v0, 0
  br v150, block1(i32 1, f64 2.5), block2
"#;
    format!(
        "extern @ext(i32, ...) -> void\n\
         extern @\"odd name\"() -> i64\n\
         extern @only_varargs(...) -> ptr\n\
         global @g size 16 align 8 init \"ab\\00\\FF\\\"\\\\\" reloc 8 @f + 4\n\
         internal const @c size 4 align 4\n\
         global @x size 8 align 8 external\n\
         global @r size 16 align 8 reloc 0 @g - 8 reloc 8 @\"odd name\"\n\
         \n\
         internal func @f(i32 v0, i64 v1, f64 v2, ptr v3, ...) -> i32 phase ssa {{\n\
         block0:\n{body}{fixed}\
         block1(i32 v200, f64 v201):\n  \
           v202 = phi i32 [block0: v200], [block1: 3], [block3: v0]\n  \
           v203 = phi f64\n  \
           switch i64 v1, block2 [-1: block1(i32 v200, f64 v201), 0: block3, 9223372036854775807: block2]\n\
         block2:\n  \
           indirect_br v116, [block1, block3]\n\
         block3:\n  \
           jump block1(i32 v0, f64 inf)\n\
         block5:\n  \
           ret i32 v0\n\
         block6:\n  \
           unreachable\n\
         }}\n\
         \n\
         func @void_ret() -> void phase allocated {{\n\
         block0:\n  \
           ret\n\
         }}\n"
    )
}

#[test]
fn every_kind_round_trips_exactly() {
    let src = every_kind();
    assert_exact(&src);
    let m = parse(&src);
    let f = &m.functions[0];
    assert_eq!(f.phase, Phase::Ssa);
    assert_eq!(f.linkage, Linkage::Internal);
    assert!(f.signature.varargs);
    assert!(f.blocks[4].dead, "block4 is a hole");
    assert_eq!(f.values[4], ValueData::default(), "v4 is a hole");
    assert_eq!(f.values[200].def, ValueDef::BlockParam(Block(1), 0));
    assert_eq!(f.values[3].def, ValueDef::Param(3));
    let asm = f
        .insts
        .iter()
        .find_map(|i| match &i.kind {
            InstKind::InlineAsm(a) if a.side_effects => Some(a),
            _ => None,
        })
        .unwrap();
    assert_eq!(asm.outputs[0].constraint, "r");
    assert_eq!(asm.outputs[2].constraint, "&r");
    assert_eq!(asm.template, "mov $0, $1 \"x\"\\");
    let g = &m.globals[0];
    assert_eq!(g.init.as_deref(), Some(&b"ab\0\xff\"\\"[..]));
    assert_eq!(g.relocations[0].addend, 4);
    assert_eq!(m.globals[1].init.as_deref(), Some(&[][..]));
    assert_eq!(m.globals[2].init, None);
    assert_eq!(m.globals[3].relocations[0].addend, -8);
    // Every kind of instruction and terminator occurs.
    let mut kinds: Vec<&str> = f.insts.iter().map(|i| i.kind.opcode_name()).collect();
    kinds.sort();
    kinds.dedup();
    for k in [
        "icmp",
        "fcmp",
        "select",
        "alloca",
        "load",
        "store",
        "gep",
        "call",
        "asm",
        "atomicrmw",
        "cmpxchg",
        "fence",
        "phi",
        "copy",
        "va_arg",
        "fneg",
    ] {
        assert!(kinds.contains(&k), "{k} missing");
    }
    let terms: Vec<&str> = f
        .blocks
        .iter()
        .filter(|b| !b.dead)
        .map(|b| b.terminator.name())
        .collect();
    assert_eq!(
        terms,
        ["br", "switch", "indirect_br", "jump", "ret", "unreachable"]
    );
}

#[test]
fn builder_function_tables_survive() {
    let mut mb = ModuleBuilder::new();
    let sig = Signature {
        params: vec![Type::I32],
        ret: Type::I32,
        varargs: false,
    };
    mb.declare_function("add1", sig.clone());
    let mut b = FunctionBuilder::new("add1", sig);
    let x = b.param(0);
    let one = b.iconst(Type::I32, 1);
    let y = b.binary(BinaryOp::Add, Type::I32, x.into(), one);
    let exit = b.create_block();
    b.jump(exit);
    b.switch_to(exit);
    b.ret(Some(y.into()));
    mb.define_function(b.finish());
    let m = mb.finish();
    let text = print_module(&m);
    assert_eq!(
        text,
        "func @add1(i32 v0) -> i32 {\nblock0:\n  v1 = add i32 v0, 1\n  jump block1\nblock1:\n  ret i32 v1\n}\n"
    );
    assert_eq!(parse(&text), m);
}

#[test]
fn literals_are_canonicalised() {
    let src = "func @f() -> i8 {\nblock0:\n  v0 = add i8 255, 0x80\n  v1 = fadd f32 0.1, 1\n  v2 = select i1 1, -1, 0\n  ret i8 v0 ; done\n}\n";
    let printed = print_module(&parse(src));
    assert_eq!(
        printed,
        "func @f() -> i8 {\nblock0:\n  v0 = add i8 -1, -128\n  v1 = fadd f32 0.1, 1.0\n  v2 = select i1 true, true, false\n  ret i8 v0\n}\n"
    );
    assert_exact(&printed);
}

#[test]
fn error_locations() {
    let e = err("func @f() -> i32 {\nblock0:\n  v1 = add i32 v0 v3\n  ret i32 v1\n}\n");
    assert_eq!((e.line, e.col), (3, 19));
    assert_eq!(
        e.to_string(),
        "e.sir:3:19: expected `,` after the first operand of `add`, found `v3`"
    );
    let e = err("func @f() -> i32 {\nblock0:\n  v1 = add i32 1, 2\n  ret i32 v2\n}\n");
    assert_eq!((e.line, e.col), (4, 11));
    assert!(e.message.contains("undefined `v2`"), "{e}");
    let e = err("func @f() -> void {\nblock0:\n  ret\n  v1 = add i32 1, 2\n}\n");
    assert_eq!((e.line, e.col), (4, 3));
    assert!(
        e.message.contains("after the terminator of `block0`"),
        "{e}"
    );
    let e =
        err("func @f() -> void {\nblock0:\n  v1 = add i32 1, 2\n  v1 = add i32 1, 2\n  ret\n}\n");
    assert_eq!((e.line, e.col), (4, 3));
    let e = err("func @f() -> void {\nblock0:\n  call void @nope()\n  ret\n}\n");
    assert_eq!((e.line, e.col), (3, 13));
    assert!(e.message.contains("unknown `@nope`"), "{e}");
    let e = err("func @f() -> void {\nblock0:\n  v1 = add i8 1, 256\n  ret\n}\n");
    assert_eq!((e.line, e.col), (3, 18));
    let e = err("func @f() -> void {\nblock0:\n  jump block7\n}\n");
    assert_eq!((e.line, e.col), (3, 8));
    let e = err("func @f() -> void {\nblock1:\n  ret\n}\n");
    assert_eq!((e.line, e.col), (4, 1));
    let e = err("func @f() -> void {\nblock0:\n  store i32 1, v4000000000\n  ret\n}\n");
    assert_eq!((e.line, e.col), (3, 16));
    let e = err("func @f() -> void {\nblock0:\n  v1 = add i32 1, 2\n}\n");
    assert_eq!((e.line, e.col), (4, 1));
    let e = err("func @f() -> void {\nblock0:\n  v1, v2 = add i32 1, 2\n  ret\n}\n");
    assert_eq!((e.line, e.col), (3, 3));
    let e = err("global @a size 1 align 1\nfunc @a() -> void {\nblock0:\n  ret\n}\n");
    assert_eq!((e.line, e.col), (2, 6));
    let e = err("func @f() -> void {\nblock0:\n  v1 = frob i32 1, 2\n  ret\n}\n");
    assert_eq!((e.line, e.col), (3, 8));
}

#[test]
fn symbols_may_be_used_before_definition() {
    let src = "func @main() -> i32 {\nblock0:\n  v0 = call i32 @later(ptr @data)\n  ret i32 v0\n}\n\nfunc @later(ptr v0) -> i32 {\nblock0:\n  v1 = load i32, v0\n  ret i32 v1\n}\nglobal @data size 4 align 4 init \"\\05\"\n";
    let m = parse(src);
    assert_eq!(m.symbols.len(), 3);
    assert_eq!(m.symbols[2].kind, SymbolKind::Global(0));
    assert_exact(&print_module(&m));
}

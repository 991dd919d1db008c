//! Unit tests of import and export on small hand-written `.ll` snippets: forward
//! references, implicit entry labels, phis with constant expressions, K&R calls,
//! `blockaddress`/`indirectbr`, inline asm, atomics, `va_arg`, GEP folding, global
//! initialisers, float constants, skip reasons and fatal errors.

use super::*;
use crate::ir::*;
use crate::verify::verify_module;

fn imp(src: &str) -> Imported {
    let r = import(src, "t.ll", &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let errs = verify_module(&r.module);
    assert!(errs.is_empty(), "verifier: {errs:#?}");
    r
}

/// The index in `m.globals` of the global named `name`.
fn global_index(m: &Module, name: &str) -> usize {
    match m.symbols[m.symbol_by_name(name).unwrap().index()].kind {
        SymbolKind::Global(i) => i as usize,
        _ => panic!("@{name} is not a global"),
    }
}

fn func<'a>(m: &'a Module, name: &str) -> &'a Function {
    m.function(name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn kinds(f: &Function) -> Vec<&InstKind> {
    f.blocks
        .iter()
        .filter(|b| !b.dead)
        .flat_map(|b| b.insts.iter().map(|&i| &f.insts[i.index()].kind))
        .collect()
}

#[test]
fn implicit_entry_label_phi_and_forward_references() {
    let r = imp(r#"
define i32 @f(i32 %0, i1 %1) {
  br i1 %1, label %3, label %5
3:
  %4 = add nsw i32 %0, 1
  br label %5
5:
  %6 = phi i32 [ %0, %2 ], [ %4, %3 ]
  ret i32 %6
}

define i32 @g(i32 %x) {
entry:
  br label %def
use:
  %r = add i32 %v, 1
  ret i32 %r
def:
  %v = mul i32 %x, 3
  br label %use
}
"#);
    let f = func(&r.module, "f");
    assert_eq!(f.phase, Phase::Ssa);
    let g = func(&r.module, "g");
    assert_eq!(g.phase, Phase::Memory);
    let mul = g.blocks[2].insts[0];
    let add = &g.insts[g.blocks[1].insts[0].index()].kind;
    let InstKind::Binary { lhs, .. } = add else {
        panic!("{add:?}")
    };
    assert_eq!(*lhs, Operand::Value(g.insts[mul.index()].results[0]));
}

#[test]
fn gep_folding_with_structs_arrays_and_packed_layout() {
    let r = imp(r#"
%struct.S = type { i8, [4 x i32], %struct.S* }
%struct.P = type <{ i8, i32 }>
define i8* @f(%struct.S* %s, %struct.P* %p, i64 %i, i32 %j) {
  %a = getelementptr inbounds %struct.S, %struct.S* %s, i64 1, i32 1, i64 %i
  %b = getelementptr inbounds %struct.P, %struct.P* %p, i32 0, i32 1
  %c = getelementptr i8, i8* null, i32 %j
  %z = getelementptr inbounds %struct.S, %struct.S* %s, i64 0, i32 0
  %d = bitcast i32* %a to i8*
  store i8 0, i8* %z
  %e = bitcast i32* %b to i8*
  store i8 1, i8* %e
  ret i8* %c
}
"#);
    let f = func(&r.module, "f");
    let geps: Vec<_> = kinds(f)
        .into_iter()
        .filter_map(|k| match k {
            InstKind::Gep {
                offset, indices, ..
            } => Some((*offset, indices.iter().map(|(_, s)| *s).collect::<Vec<_>>())),
            _ => None,
        })
        .collect();
    // sizeof(S) = 32; field 1 at 4; packed field 1 at 1; the all-zero GEP is an alias.
    assert_eq!(geps, vec![(36, vec![4]), (1, vec![]), (0, vec![1])]);
    let stores: Vec<_> = kinds(f)
        .into_iter()
        .filter(|k| matches!(k, InstKind::Store { .. }))
        .collect();
    let InstKind::Store { ptr, .. } = stores[0] else {
        unreachable!()
    };
    assert_eq!(
        *ptr,
        Operand::Value(f.param_values[0]),
        "zero GEP aliases its base"
    );
}

#[test]
fn constant_expressions_in_operands_and_phis() {
    let r = imp(r#"
@buf = global [8 x i8] zeroinitializer, align 1
define i64 @f(i1 %c) {
  br i1 %c, label %a, label %b
a:
  br label %m
b:
  br label %m
m:
  %p = phi i8* [ getelementptr inbounds ([8 x i8], [8 x i8]* @buf, i64 0, i64 3), %a ], [ bitcast ([8 x i8]* @buf to i8*), %b ]
  %q = ptrtoint i8* %p to i64
  %r = add i64 %q, ptrtoint ([8 x i8]* @buf to i64)
  ret i64 %r
}
"#);
    let f = func(&r.module, "f");
    // The GEP constant expression lands at the end of block `a` (block1).
    let a = &f.blocks[1];
    assert!(matches!(
        f.insts[a.insts[0].index()].kind,
        InstKind::Gep { offset: 3, .. }
    ));
    let InstKind::Phi { incoming, .. } = &f.insts[f.blocks[3].insts[0].index()].kind else {
        panic!()
    };
    let sym = r.module.symbol_by_name("buf").unwrap();
    assert_eq!(
        f.consts.get(incoming[1].1.try_into_const().unwrap()).kind,
        ConstKind::SymbolAddr(sym)
    );
}

trait TryConst {
    fn try_into_const(self) -> Option<Const>;
}
impl TryConst for Operand {
    fn try_into_const(self) -> Option<Const> {
        match self {
            Operand::Const(c) => Some(c),
            Operand::Value(_) => None,
        }
    }
}

#[test]
fn calls_direct_varargs_kr_and_indirect() {
    let r = imp(r#"
declare i32 @printf(i8* noundef, ...)
declare i32 @kr(...)
define i32 @f(i32 (i32)* %fp) {
  %1 = call i32 (i8*, ...) @printf(i8* noundef null, i32 noundef 1, double 2.0)
  %2 = call i32 bitcast (i32 (...)* @kr to i32 (i32)*)(i32 noundef 5)
  %3 = call i32 %fp(i32 signext 7)
  call void @llvm.dbg.value(metadata i32 %3, metadata !1, metadata !DIExpression())
  ret i32 %3
}
declare void @llvm.dbg.value(metadata, metadata, metadata)
!1 = !{}
"#);
    let f = func(&r.module, "f");
    let calls: Vec<_> = kinds(f)
        .into_iter()
        .filter_map(|k| {
            if let InstKind::Call {
                callee,
                fixed_args,
                args,
                ..
            } = k
            {
                Some((*callee, *fixed_args, args.len()))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(calls.len(), 3, "llvm.dbg calls are dropped");
    let printf = r.module.symbol_by_name("printf").unwrap();
    assert_eq!(calls[0], (Callee::Direct(printf), Some(1), 3));
    assert!(matches!(
        calls[1],
        (Callee::Indirect(Operand::Const(_)), None, 1)
    ));
    assert!(matches!(
        calls[2],
        (Callee::Indirect(Operand::Value(_)), None, 1)
    ));
    assert_eq!(
        r.context.call_site("f", 2).unwrap().args[0].attrs,
        "signext"
    );
}

#[test]
fn blockaddress_indirectbr_asm_atomics_and_va_arg() {
    let r = imp(r#"
define i32 @f(i1 %c, i32* %p, i8* %ap) {
  %t = select i1 %c, i8* blockaddress(@f, %a), i8* blockaddress(@f, %b)
  %two = call { i32, i32 } asm sideeffect "mov $2, $0; mov $2, $1", "=r,=r,r,~{dirflag},~{memory}"(i32 1) #1, !srcloc !3
  %x = extractvalue { i32, i32 } %two, 0
  %y = extractvalue { i32, i32 } %two, 1
  call void asm "movl $1, $0", "=*m,r"(i32* elementtype(i32) %p, i32 %x)
  %l = load atomic i32, i32* %p seq_cst, align 4
  store atomic volatile i32 %y, i32* %p release, align 4
  %cx = cmpxchg i32* %p, i32 %l, i32 3 acq_rel monotonic, align 4
  %ok = extractvalue { i32, i1 } %cx, 1
  %old = atomicrmw add i32* %p, i32 1 seq_cst, align 4
  fence seq_cst
  %v = va_arg i8* %ap, i32
  indirectbr i8* %t, [label %a, label %b]
a:
  ret i32 %v
b:
  %z = zext i1 %ok to i32
  ret i32 %z
}
!3 = !{i64 1}
"#);
    let f = func(&r.module, "f");
    let ks = kinds(f);
    let asm: Vec<_> = ks
        .iter()
        .filter_map(|k| {
            if let InstKind::InlineAsm(a) = k {
                Some(a)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(asm.len(), 2);
    assert_eq!(asm[0].outputs.len(), 2);
    assert!(asm[0].side_effects);
    assert_eq!(asm[0].clobbers, vec!["dirflag", "memory"]);
    assert_eq!(asm[1].outputs[0].constraint, "m");
    assert!(matches!(
        asm[1].outputs[0].place,
        AsmOutputPlace::Pointer(_)
    ));
    let names: Vec<&str> = ks.iter().map(|k| k.opcode_name()).collect();
    for n in [
        "atomic_load",
        "atomic_store",
        "cmpxchg",
        "atomicrmw",
        "fence",
        "va_arg",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    assert!(
        matches!(f.blocks[0].terminator, Terminator::IndirectBr { ref dests, .. } if dests.len() == 2)
    );
    // The export of these constructs is valid LLVM (checked with opt when available).
    assert!(export(&r.module, &r.context).contains("blockaddress(@f, %b1)"));
}

#[test]
fn float_and_integer_constants() {
    let r = imp(r#"
define float @f(double %d) {
  %a = fadd double %d, 1.500000e+00
  %b = fptrunc double %a to float
  %c = fmul float %b, 0x3FF19999A0000000
  %i = add i128 -1, 0
  %j = trunc i128 %i to i8
  %k = icmp eq i8 %j, -1
  %s = select i1 %k, float %c, float 0xFFF8000000000000
  ret float %s
}
"#);
    let f = func(&r.module, "f");
    let consts: Vec<ConstData> = (0..f.consts.len())
        .map(|i| f.consts.get(Const::new(i)))
        .collect();
    assert!(consts.contains(&ConstData::f64(1.5)));
    assert!(consts.contains(&ConstData::f32(1.1)));
    assert!(consts.contains(&ConstData::int(Type::I128, u128::MAX)));
    assert!(consts.contains(&ConstData::int(Type::I8, 0xff)));
    let out = export(&r.module, &r.context);
    assert!(out.contains("0x3FF19999A0000000"), "{out}");
    assert!(out.contains("0x3FF8000000000000"), "{out}");
    assert!(out.contains("icmp eq i8 %v"), "{out}");
}

#[test]
fn global_initialisers_become_bytes_and_relocations() {
    let r = imp(r#"
%struct.T = type { i8, i32, i8* }
@s = global %struct.T { i8 1, i32 258, i8* getelementptr inbounds ([4 x i8], [4 x i8]* @str, i64 0, i64 2) }, align 8
@str = private unnamed_addr constant [4 x i8] c"abc\00", align 1
@ext = external global i32, align 4
@big = common global [100000000 x i64] zeroinitializer, align 16
@d = internal global double 2.5, align 8
"#);
    let m = &r.module;
    let g = |n: &str| &m.globals[global_index(m, n)];
    let s = g("s");
    assert_eq!((s.size, s.align), (16, 8));
    assert_eq!(s.init.as_deref(), Some(&[1u8, 0, 0, 0, 2, 1][..]));
    assert_eq!(
        s.relocations,
        vec![Relocation::address(8, m.symbol_by_name("str").unwrap(), 2)]
    );
    assert!(g("str").constant);
    assert_eq!(g("str").linkage, Linkage::Internal);
    assert_eq!(g("ext").init, None);
    assert_eq!(g("big").init, Some(vec![]));
    assert_eq!(g("big").size, 800_000_000);
    assert_eq!(g("d").init.as_deref(), Some(&2.5f64.to_le_bytes()[..]));
}

/// Address tables clang writes: `blockaddress` entries (resolved to block numbers once the
/// function is lowered), relative lookup-table entries, and `inttoptr` of a literal. An
/// initialiser that cannot be evaluated leaves a warning and a global that is not read-only,
/// so no pass folds loads from the zeros it holds.
#[test]
fn address_tables_in_initialisers() {
    let r = imp(r#"
@tab = internal constant [2 x i8*] [i8* blockaddress(@f, %second), i8* blockaddress(@f, %first)], align 16
@s = private constant [3 x i8] c"ab\00"
@rel = private constant [2 x i32] [i32 trunc (i64 sub (i64 ptrtoint ([3 x i8]* @s to i64), i64 ptrtoint ([2 x i32]* @rel to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (i8* getelementptr ([3 x i8], [3 x i8]* @s, i64 0, i64 1) to i64), i64 ptrtoint ([2 x i32]* @rel to i64)) to i32)]
@one = global i8* inttoptr (i32 -1 to i8*)
@odd = constant i64 add (i64 ptrtoint ([3 x i8]* @s to i64), i64 1)

define i32 @f(i32 %x) {
entry:
  br label %first
first:
  br label %second
second:
  ret i32 %x
}
"#);
    let m = &r.module;
    let g = |n: &str| &m.globals[global_index(m, n)];
    let (f, s, rel) = (
        m.symbol_by_name("f").unwrap(),
        m.symbol_by_name("s").unwrap(),
        m.symbol_by_name("rel").unwrap(),
    );
    let block = |offset, b| Relocation {
        offset,
        symbol: f,
        addend: 0,
        kind: RelocationKind::BlockAddress(Block(b)),
    };
    assert_eq!(g("tab").relocations, vec![block(0, 2), block(8, 1)]);
    let relative = |offset, addend| Relocation {
        offset,
        symbol: s,
        addend,
        kind: RelocationKind::Relative {
            base: rel,
            bytes: 4,
        },
    };
    assert_eq!(g("rel").relocations, vec![relative(0, 0), relative(4, 1)]);
    assert_eq!(
        g("one").init.as_deref(),
        Some(&[0xFF, 0xFF, 0xFF, 0xFF][..])
    );
    assert!(g("one").relocations.is_empty());
    // Not evaluated: a warning, and not read-only.
    let odd = g("odd");
    assert!(!odd.constant && odd.relocations.is_empty());
    assert_eq!(r.context.warnings.len(), 1, "{:?}", r.context.warnings);
    assert!(
        r.context.warnings[0].contains("@odd"),
        "{:?}",
        r.context.warnings
    );
    assert!(crate::verify::verify_globals(m).is_empty());
    // The module verifier rejects a block the function does not have and an odd width.
    let mut bad = m.clone();
    let (ti, ri) = (global_index(&bad, "tab"), global_index(&bad, "rel"));
    bad.globals[ti].relocations[1].kind = RelocationKind::BlockAddress(Block(9));
    bad.globals[ri].relocations[0].kind = RelocationKind::Relative {
        base: rel,
        bytes: 3,
    };
    let errors: Vec<String> = crate::verify::verify_globals(&bad)
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("block9"), "{errors:?}");
    assert!(errors[1].contains("3 bytes wide"), "{errors:?}");
}

/// A `constant` the linker may replace (weak, linkonce, common) is not read-only for the
/// passes; ODR and internal constants are.
#[test]
fn interposable_constants_are_not_read_only() {
    let r = imp(r#"
@plain = constant i32 1, align 4
@odr = linkonce_odr constant i32 2, align 4
@weak = weak constant i32 3, align 4
@once = linkonce constant i32 4, align 4
@priv = private constant i32 5, align 4
"#);
    let m = &r.module;
    let table = m.symbol_table();
    let read_only = |n: &str| table.read_only(m.symbol_by_name(n).unwrap()).is_some();
    assert!(read_only("plain"));
    assert!(read_only("odr"));
    assert!(read_only("priv"));
    assert!(!read_only("weak"));
    assert!(!read_only("once"));
}

#[test]
fn unsupported_constructs_skip_only_their_function() {
    let src = r#"
define void @quad(fp128* %p) {
  %v = load fp128, fp128* %p, align 16
  ret void
}
define void @half(half* %p) {
  %a = load half, half* %p, align 2
  ret void
}
define { i64, i64 } @pair() {
  ret { i64, i64 } zeroinitializer
}
define void @asm() {
  call void asm inteldialect "nop", ""()
  ret void
}
define i32 @good() {
  ret i32 7
}
define <4 x i32> @vec(<4 x i32>* %p) {
  %a = load <4 x i32>, <4 x i32>* %p, align 16
  ret <4 x i32> %a
}
"#;
    let r = imp(src);
    let reasons: Vec<(String, u32, String)> = r
        .skipped
        .iter()
        .map(|s| (s.name.clone(), s.line, s.reason.clone()))
        .collect();
    // `{ i64, i64 }` is an aggregate value type strata models: @pair is imported; so is
    // the vector function @vec.
    assert_eq!(reasons.len(), 3, "{reasons:#?}");
    assert_eq!((reasons[0].0.as_str(), reasons[0].1), ("quad", 3));
    assert!(reasons[0].2.contains("fp128"));
    assert_eq!((reasons[1].0.as_str(), reasons[1].1), ("half", 7));
    assert!(reasons[1].2.contains("half"), "{reasons:?}");
    assert_eq!(reasons[2].1, 14);
    assert!(reasons[2].2.contains("Intel"), "{reasons:?}");
    assert!(r.module.function("good").is_some());
    assert!(r.module.function("pair").is_some());
    assert!(r.module.function("vec").is_some());
    // Skipped functions stay callable as declarations and are re-emitted verbatim.
    assert!(matches!(
        r.module.symbols[r.module.symbol_by_name("half").unwrap().index()].kind,
        SymbolKind::Extern(_)
    ));
    let out = export(&r.module, &r.context);
    assert!(out.contains("%a = load half, half* %p, align 2"));
    let strict = import(
        src,
        "t.ll",
        &ImportOptions {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!((strict.line, strict.col), (3, 8));
}

#[test]
fn malformed_top_level_is_a_located_fatal_error() {
    let e = import(
        "@x = global i32 0\n@y = global [3 x i32] @@@\n",
        "bad.ll",
        &ImportOptions::default(),
    );
    // A malformed initialiser is an error, as is a bad type.
    let e = e.unwrap_err();
    assert_eq!((e.line, e.col), (2, 23), "{e}");
    let e = import(
        "@x = global [3 x ] 0\n",
        "bad.ll",
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert_eq!((e.line, e.col), (1, 18));
    assert!(
        e.to_string().starts_with("bad.ll:1:18: expected a type"),
        "{e}"
    );
    let e = import(
        "source_filename = \"x\"\nret void\n",
        "top.ll",
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert_eq!((e.line, e.col), (2, 1));
    assert!(e.message.contains("found `ret`"), "{e}");
    let e = import(
        "define i32 @f() {\n  ret i32 0\n}\ndefine i32 @f() {\n  ret i32 1\n}\n",
        "dup.ll",
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(e.message.contains("redefinition of @f"));
}

/// Runs `opt -passes=verify` on `text` when `opt` is installed; panics with its complaint.
fn opt_verify(text: &str) {
    use std::io::Write;
    let Ok(mut child) = std::process::Command::new("opt")
        .args(["-passes=verify", "-disable-output"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        assert!(
            std::env::var("STRATA_SKIP_CORPUS").is_ok_and(|v| v == "1"),
            "opt missing (run `bash scripts/install-clang.sh`); set STRATA_SKIP_CORPUS=1 to skip"
        );
        println!("SKIPPED: opt missing: the LLVM verifier check (STRATA_SKIP_CORPUS=1)");
        eprintln!("SKIPPED: opt missing: the LLVM verifier check (STRATA_SKIP_CORPUS=1)");
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "opt rejected:\n{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn exports_of_the_snippets_pass_the_llvm_verifier() {
    let src = r#"
%struct.S = type { i8, [4 x i32], %struct.S* }
@buf = global [8 x i8] zeroinitializer, align 1
declare i32 @printf(i8* noundef, ...)
declare i32 @kr(...)
define i32 @f(i1 %c, i32* %p, i8* %ap, %struct.S* %s, i64 %i, i32 (i32)* %fp) {
  %t = select i1 %c, i8* blockaddress(@f, %a), i8* blockaddress(@f, %b)
  %two = call { i32, i32 } asm sideeffect "mov $2, $0; mov $2, $1", "=r,=r,r,~{dirflag},~{memory}"(i32 1)
  %x = extractvalue { i32, i32 } %two, 0
  %y = extractvalue { i32, i32 } %two, 1
  call void asm "movl $1, $0", "=*m,r"(i32* elementtype(i32) %p, i32 %x)
  %l = load atomic i32, i32* %p seq_cst, align 4
  store atomic volatile i32 %y, i32* %p release, align 4
  %cx = cmpxchg i32* %p, i32 %l, i32 3 acq_rel monotonic, align 4
  %ok = extractvalue { i32, i1 } %cx, 1
  %old = atomicrmw add i32* %p, i32 1 seq_cst, align 4
  fence seq_cst
  %v = va_arg i8* %ap, i32
  %g = getelementptr inbounds %struct.S, %struct.S* %s, i64 1, i32 1, i64 %i
  store i32 %v, i32* %g, align 4
  %1 = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([8 x i8], [8 x i8]* @buf, i64 0, i64 0), i32 noundef 1, double 2.0)
  %2 = call i32 bitcast (i32 (...)* @kr to i32 (i32)*)(i32 noundef 5)
  %3 = call i32 %fp(i32 signext 7)
  indirectbr i8* %t, [label %a, label %b]
a:
  %m = phi i32 [ %v, %0 ]
  ret i32 %m
b:
  %z = zext i1 %ok to i32
  ret i32 %z
}
"#;
    let r = imp(src);
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    opt_verify(&export(&r.module, &r.context));
}

#[test]
fn misplaced_labels_are_errors_and_self_loop_phi_constants_skip() {
    let err = |src: &str| import(src, "t.ll", &ImportOptions::default()).unwrap_err();
    let e = err("define void @mid() {\n  br label %a a:\n  ret void\n}\n");
    assert_eq!((e.line, e.col), (2, 12), "{e}");
    assert!(e.message.contains("undefined block %a"), "{e}");
    let e = err(
        "define void @late_phi() {\n  br label %l\nl:\n  %x = add i32 1, 2\n  %p = phi i32 [ 0, %0 ], [ 1, %l ]\n  br label %l\n}\n",
    );
    assert!(e.message.contains("phi after a non-phi"), "{e}");
    assert_eq!(e.line, 5);
    let r = import(
        r#"
@g = global [2 x i8] zeroinitializer
define i8* @selfloop(i1 %c) {
  br label %l
l:
  %p = phi i8* [ null, %0 ], [ getelementptr ([2 x i8], [2 x i8]* @g, i64 0, i64 1), %l ]
  br i1 %c, label %l, label %e
e:
  ret i8* %p
}
"#,
        "t.ll",
        &ImportOptions::default(),
    )
    .unwrap();
    let reasons: Vec<&str> = r.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(reasons[0].contains("self-loop"), "{reasons:?}");
}

#[test]
fn long_forward_alias_chains_resolve() {
    // %x0 is used first; each %xK aliases the later %x(K+1); the last is a real value.
    let n = 20_000;
    let mut src = String::from("define i8* @f(i8* %p) {\n  br label %defs\nuse:\n  %r = getelementptr i8, i8* %x0, i64 1\n  ret i8* %r\ndefs:\n");
    for k in 0..n {
        src.push_str(&format!("  %x{k} = bitcast i8* %x{} to i8*\n", k + 1));
    }
    src.push_str(&format!(
        "  %x{n} = getelementptr i8, i8* %p, i64 2\n  br label %use\n}}\n"
    ));
    let r = imp(&src);
    let f = func(&r.module, "f");
    let InstKind::Gep { base, .. } = &f.insts[f.blocks[1].insts[0].index()].kind else {
        panic!()
    };
    let last = f.blocks[2].insts[0];
    assert_eq!(*base, Operand::Value(f.insts[last.index()].results[0]));
}

#[test]
fn phi_constants_for_a_later_block_with_phis_go_after_its_phis() {
    // Block %b (a predecessor of %m) comes after %m in the text and starts with a phi.
    let r = imp(r#"
@g = global [4 x i8] zeroinitializer
define i8* @f(i1 %c) {
  br i1 %c, label %b, label %a
m:
  %p = phi i8* [ getelementptr ([4 x i8], [4 x i8]* @g, i64 0, i64 1), %b ], [ null, %a ]
  ret i8* %p
a:
  br label %m
b:
  %q = phi i32 [ 0, %0 ]
  br label %m
}
"#);
    let f = func(&r.module, "f");
    let b = &f.blocks[3];
    assert!(matches!(
        f.insts[b.insts[0].index()].kind,
        InstKind::Phi { .. }
    ));
    assert!(matches!(
        f.insts[b.insts[1].index()].kind,
        InstKind::Gep { offset: 1, .. }
    ));
}

#[test]
fn non_dominating_uses_are_located_errors() {
    // `%x` is used on a path where it is not defined: valid syntax, invalid LLVM.
    let src = r#"
define i32 @good() {
  ret i32 1
}
define i32 @bad(i1 %c) {
  br i1 %c, label %a, label %b
a:
  %x = add i32 1, 2
  br label %b
b:
  ret i32 %x
}
"#;
    let r = import(src, "t.ll", &ImportOptions::default()).unwrap();
    assert!(!verify_module(&r.module).is_empty());
    let e = r.verify().unwrap_err();
    assert_eq!((e.file.as_str(), e.line, e.col), ("t.ll", 5, 1), "{e}");
    assert!(e.message.contains("@bad"), "{e}");
    assert!(e.message.contains("dominated"), "{e}");
}
#[test]
fn asm_goto_becomes_an_asm_with_goto_labels_and_a_jump() {
    let r = imp(r#"
define i32 @f(i32 %x) {
  callbr void asm sideeffect "cmpl $$5, $0; je ${1:l}", "r,i,~{cc}"(i32 %x, i8* blockaddress(@f, %yes)) #2
          to label %no [label %yes], !srcloc !6
no:
  ret i32 0
yes:
  ret i32 1
}
!6 = !{i64 2}
"#);
    let f = func(&r.module, "f");
    let InstKind::InlineAsm(asm) = &f.insts[f.blocks[0].insts[0].index()].kind else {
        panic!()
    };
    assert_eq!(asm.goto_labels, vec![Block(2)]);
    assert_eq!(asm.inputs[1].constraint, "i");
    assert!(matches!(f.blocks[0].terminator, Terminator::Jump(ref t) if t.block == Block(1)));
    let out = export(&r.module, &r.context);
    assert!(out.contains("to label %b1 [label %b2]"), "{out}");
    opt_verify(&out);
}

#[test]
fn returning_a_function_pointer_is_not_ret_void() {
    // From Lua's lua_gethook: the return type starts with `void`.
    let r = imp(r#"
define void (i8*, i32)* @get(void (i8*, i32)** %p) {
  %f = load volatile void (i8*, i32)*, void (i8*, i32)** %p, align 8
  ret void (i8*, i32)* %f
}
"#);
    let f = func(&r.module, "get");
    assert!(matches!(f.blocks[0].terminator, Terminator::Ret(Some(_))));
    opt_verify(&export(&r.module, &r.context));
}

#[test]
fn vlas_and_freeze_import() {
    let r = imp(r#"
declare i8* @llvm.stacksave()
declare void @llvm.stackrestore(i8*)
define i32 @f(i32 %n) {
  %s = call i8* @llvm.stacksave()
  %w = zext i32 %n to i64
  %a = alloca [3 x i32], i64 %w, align 16
  %p = getelementptr inbounds [3 x i32], [3 x i32]* %a, i64 0, i64 2
  store i32 %n, i32* %p, align 4
  %v = load i32, i32* %p, align 4
  call void @llvm.stackrestore(i8* %s)
  %u = freeze i32 undef
  %x = freeze i32 %v
  %r = add i32 %x, %u
  ret i32 %r
}
"#);
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    let f = func(&r.module, "f");
    let kinds: Vec<&str> = f.insts.iter().map(|i| i.kind.opcode_name()).collect();
    assert!(kinds.contains(&"dyn_alloca"), "{kinds:?}");
    assert!(matches!(
        f.insts
            .iter()
            .find(|i| i.kind.opcode_name() == "dyn_alloca")
            .unwrap()
            .kind,
        InstKind::DynAlloca {
            elem_size: 12,
            align: 16,
            ..
        }
    ));
    let mut it = crate::interp::Interpreter::new(&r.module, Default::default());
    let out = it
        .call("f", &[crate::interp::Val::int(Type::I32, 5)])
        .unwrap();
    assert_eq!(out.result, Some(crate::interp::Val::int(Type::I32, 5)));
    opt_verify(&export(&r.module, &r.context));
}

/// clang -O2 compares a function's address with a constant in a constant expression
/// (`br i1 icmp eq (i64 ptrtoint (... @f to i64), i64 -1)`): it becomes a `ptrtoint` and an
/// `icmp` instruction before its use, and the function is not skipped.
#[test]
fn constant_icmp_is_materialised() {
    let r = imp(r#"
declare void @g(i8*)
define i32 @f(i32 %x) {
entry:
  br i1 icmp eq (i64 ptrtoint (void (i8*)* @g to i64), i64 -1), label %a, label %b
a:
  ret i32 1
b:
  %c = select i1 icmp ne (i64 ptrtoint (void (i8*)* @g to i64), i64 0), i32 %x, i32 7
  ret i32 %c
}
"#);
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    let f = func(&r.module, "f");
    let icmps: Vec<_> = kinds(f)
        .into_iter()
        .filter_map(|k| match k {
            InstKind::Icmp { pred, ty, .. } => Some((*pred, *ty)),
            _ => None,
        })
        .collect();
    assert_eq!(
        icmps,
        vec![(IntPredicate::Eq, Type::I64), (IntPredicate::Ne, Type::I64)]
    );
}

/// A `blockaddress` into a function that was skipped cannot be resolved: the whole
/// initialiser is not evaluated (one warning, no relocation left, not read-only), even when
/// entries before and after it name blocks of an imported function.
#[test]
fn block_address_of_a_skipped_function_leaves_the_initialiser_unevaluated() {
    let src = r#"
@tab = internal constant [3 x i8*] [i8* blockaddress(@f, %a), i8* blockaddress(@g, %b), i8* blockaddress(@f, %a)]
define i32 @f() {
entry:
  br label %a
a:
  ret i32 1
}
define fp128 @g(fp128 %x) {
entry:
  br label %b
b:
  ret fp128 %x
}
"#;
    let r = imp(src);
    assert_eq!(r.skipped.len(), 1, "{:?}", r.skipped);
    let tab = &r.module.globals[global_index(&r.module, "tab")];
    assert!(!tab.constant && tab.relocations.is_empty(), "{tab:?}");
    assert_eq!(r.context.warnings.len(), 1, "{:?}", r.context.warnings);
    assert!(
        r.context.warnings[0].contains("@tab"),
        "{:?}",
        r.context.warnings
    );
    let strict = ImportOptions {
        strict: true,
        ..ImportOptions::default()
    };
    assert!(import(src, "t.ll", &strict).is_err());
}

/// Integer arithmetic in constant expressions (a difference of two addresses, with flags) is
/// materialised as instructions, in a phi's predecessor too; the function is not skipped,
/// and it computes what LLVM computes.
#[test]
fn constant_arithmetic_is_materialised() {
    let r = imp(r#"
@s = private constant [4 x i8] c"abc\00"
define i64 @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %d = phi i64 [ sub nsw (i64 ptrtoint (i8* getelementptr ([4 x i8], [4 x i8]* @s, i64 0, i64 3) to i64), i64 ptrtoint ([4 x i8]* @s to i64)), %a ], [ 0, %entry ]
  %e = add i64 %d, mul (i64 ptrtoint ([4 x i8]* @s to i64), i64 0)
  ret i64 %e
}
"#);
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    let binaries = kinds(func(&r.module, "f"))
        .into_iter()
        .filter(|k| matches!(k, InstKind::Binary { .. }))
        .count();
    assert_eq!(binaries, 3);
    let mut it = crate::interp::Interpreter::new(&r.module, Default::default());
    for (c, want) in [(true, 3), (false, 0)] {
        let out = it
            .call("f", &[crate::interp::Val::int(Type::I1, c as i128)])
            .unwrap();
        assert_eq!(out.result, Some(crate::interp::Val::int(Type::I64, want)));
    }
    opt_verify(&export(&r.module, &r.context));
}

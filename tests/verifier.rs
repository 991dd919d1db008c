//! Each test breaks one verifier invariant and checks that the error names it and where.

use strata::ir::*;
use strata::verify::{verify, verify_module};

fn sig(params: &[Type], ret: Type) -> Signature {
    Signature {
        params: params.to_vec(),
        ret,
        varargs: false,
    }
}

fn errors(f: &Function) -> Vec<String> {
    verify(f, &SymbolTable::default())
        .iter()
        .map(|e| e.to_string())
        .collect()
}

fn assert_error(f: &Function, needle: &str) {
    let errs = errors(f);
    assert!(
        errs.iter().any(|e| e.contains(needle)),
        "expected an error containing {needle:?}, got {errs:#?}"
    );
}

fn valid_loop() -> Function {
    // block0: x = alloca; store 0; jump block1
    // block1: v = load; c = icmp slt v, p0; br c, block2, block3
    // block2: v2 = add v, 1; store v2; jump block1
    // block3: ret v
    let mut b = FunctionBuilder::new("count", sig(&[Type::I32], Type::I32));
    let n = b.param(0);
    let slot = b.alloca(Type::I32, 4, 4);
    let zero = b.iconst(Type::I32, 0);
    b.store(Type::I32, zero, slot.into());
    let head = b.create_block();
    let body = b.create_block();
    let exit = b.create_block();
    b.jump(head);
    b.switch_to(head);
    let v = b.load(Type::I32, slot.into());
    let c = b.icmp(IntPredicate::Slt, Type::I32, v.into(), n.into());
    b.br(c.into(), body, exit);
    b.switch_to(body);
    let one = b.iconst(Type::I32, 1);
    let v2 = b.binary(BinaryOp::Add, Type::I32, v.into(), one);
    b.store(Type::I32, v2.into(), slot.into());
    b.jump(head);
    b.switch_to(exit);
    b.ret(Some(v.into()));
    b.finish()
}

#[test]
fn valid_function_passes() {
    assert_eq!(errors(&valid_loop()), Vec::<String>::new());
}

#[test]
fn operand_type_mismatch() {
    let mut f = valid_loop();
    let wide = f.consts.intern(ConstData::int(Type::I64, 1));
    for inst in &mut f.insts {
        if let InstKind::Binary { rhs, .. } = &mut inst.kind {
            *rhs = Operand::Const(wide);
        }
    }
    assert_error(
        &f,
        "block2, inst4: operand 2 of `add` has type i64, expected i32",
    );
}

#[test]
fn branch_to_missing_block() {
    let mut f = valid_loop();
    f.blocks[3].terminator = Terminator::Jump(Target::new(Block(9)));
    assert_error(
        &f,
        "block3: terminator branches to block9, which does not exist",
    );
    let mut f = valid_loop();
    f.blocks[2] = BlockData::dead();
    assert_error(&f, "branches to block2, which does not exist");
}

#[test]
fn return_type_mismatch() {
    let mut f = valid_loop();
    f.blocks[3].terminator = Terminator::Ret(None);
    assert_error(&f, "ret without a value in a function returning i32");
}

#[test]
fn phi_not_allowed_in_memory_form_and_must_match_edges() {
    let mut f = valid_loop();
    let zero = f.consts.intern(ConstData::int(Type::I32, 0));
    // A phi at the head of block1 with only one incoming entry (block1 has two edges in).
    let inst = Inst::new(f.insts.len());
    let v = Value::new(f.values.len());
    f.values.push(ValueData {
        ty: Type::I32,
        def: ValueDef::Result(inst, 0),
    });
    f.insts.push(InstData {
        kind: InstKind::Phi {
            ty: Type::I32,
            incoming: smallvec::smallvec![(Block(0), Operand::Const(zero))],
        },
        results: smallvec::smallvec![v],
        block: Block(1),
    });
    f.blocks[1].insts.insert(0, inst);
    assert_error(&f, "phi is not allowed in memory form");
    f.phase = Phase::Ssa;
    assert_error(
        &f,
        "phi has incoming blocks [block0] but the predecessor edges are [block0, block2]",
    );
}

#[test]
fn duplicate_edges_need_two_phi_entries() {
    let mut b = FunctionBuilder::new("dup", sig(&[Type::I1], Type::I32));
    b.set_phase(Phase::Ssa);
    let c = b.param(0);
    let join = b.create_block();
    b.br(c.into(), join, join);
    b.switch_to(join);
    let one = b.iconst(Type::I32, 1);
    let p = b.phi(Type::I32, &[(Block(0), one)]);
    b.ret(Some(p.into()));
    let f = b.finish();
    assert_error(
        &f,
        "phi has incoming blocks [block0] but the predecessor edges are [block0, block0]",
    );
    let mut f = f;
    if let InstKind::Phi { incoming, .. } = &mut f.insts[0].kind {
        incoming.push(incoming[0]);
    }
    assert_eq!(errors(&f), Vec::<String>::new());
}

#[test]
fn use_not_dominated_by_definition() {
    // block0: br p, block1, block2; block1: v = add; jump block2; block2: ret v
    let mut b = FunctionBuilder::new("dom", sig(&[Type::I1, Type::I32], Type::I32));
    let (c, x) = (b.param(0), b.param(1));
    let then = b.create_block();
    let join = b.create_block();
    b.br(c.into(), then, join);
    b.switch_to(then);
    let v = b.binary(BinaryOp::Add, Type::I32, x.into(), x.into());
    b.jump(join);
    b.switch_to(join);
    b.ret(Some(v.into()));
    assert_error(
        &b.finish(),
        "block2: terminator use of v2 is not dominated by its definition",
    );
}

#[test]
fn use_before_definition_in_block() {
    let mut f = valid_loop();
    // Move the icmp before the load in block1.
    f.blocks[1].insts.swap(0, 1);
    assert_error(
        &f,
        "block1, inst3: use of v2 is not dominated by its definition",
    );
}

#[test]
fn result_table_inconsistency() {
    let mut f = valid_loop();
    f.values[2].ty = Type::I64;
    assert_error(&f, "result 0 (v2)");
    let mut f = valid_loop();
    f.insts[2].block = Block(3);
    assert_error(
        &f,
        "block1, inst2: inst2 is listed by block1 but records block3",
    );
}

#[test]
fn switch_cases_must_be_distinct_and_fit() {
    let mut f = valid_loop();
    let v = Operand::Value(Value(2));
    f.blocks[3].terminator = Terminator::Switch {
        ty: Type::I8,
        value: v,
        default: Target::new(Block(1)),
        cases: vec![
            (1, Target::new(Block(2))),
            (1, Target::new(Block(2))),
            (300, Target::new(Block(2))),
        ],
    };
    assert_error(&f, "switch scrutinee has type i32, expected i8");
    assert_error(&f, "switch case 1 appears twice");
    assert_error(&f, "switch case 300 does not fit i8");
}

#[test]
fn calls_check_the_signature() {
    let mut m = ModuleBuilder::new();
    let putchar = m
        .declare_extern("putchar", sig(&[Type::I32], Type::I32))
        .unwrap();
    let g = m
        .add_global(
            "g",
            Global {
                size: 4,
                align: 4,
                init: Some(vec![]),
                ..Default::default()
            },
        )
        .unwrap();
    m.declare_function("main", sig(&[], Type::I32));
    let mut b = FunctionBuilder::new("main", sig(&[], Type::I32));
    let c = b.iconst(Type::I64, 65);
    b.call(Type::I32, putchar, &[c]);
    b.call(Type::Void, g, &[]);
    let zero = b.iconst(Type::I32, 0);
    b.ret(Some(zero));
    m.define_function(b.finish());
    let errs: Vec<String> = verify_module(&m.finish())
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert!(
        errs.iter()
            .any(|e| e.contains("call argument 0 has type i64, expected i32")),
        "{errs:#?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.contains("call to @g, which is a global variable")),
        "{errs:#?}"
    );
}

#[test]
fn casts_check_widths() {
    let mut b = FunctionBuilder::new("c", sig(&[Type::I32], Type::I32));
    let x = b.param(0);
    let y = b.cast(CastOp::ZExt, Type::I32, Type::I16, x.into());
    let _ = y;
    b.ret(Some(x.into()));
    assert_error(&b.finish(), "`zext` cannot convert i32 to i16");
}

/// The output SCCP once wrote for `if (0) { s = p + 8; switch (x) { default: g(s); } }`:
/// the block defining `v5` removed, the blocks after it kept, one of them using `v5`. LLVM's
/// verifier says `use of undefined value`; ours must reject it too, although the using block
/// is unreachable. Built from the valid function by removing block1 the way a pass does.
fn use_of_removed_definition(remove_block: bool) -> Function {
    let text = "func @f(ptr v0, ptr v1, ptr v2) -> void phase optimized {
block0:
  v4 = load i32, v0
  br false, block1, block4
block1:
  v5 = gep v1, 8
  switch i32 v4, block2 []
block2:
  jump block3
block3:
  call void v2(ptr v5)
  ret
block4:
  ret
}
";
    let mut m = strata::text::parse_module(text, "t.sir").expect("valid");
    let mut f = m.functions.remove(0);
    assert_eq!(errors(&f), Vec::<String>::new(), "the input is valid");
    f.blocks[0].terminator = Terminator::Jump(Target::new(Block(4)));
    if remove_block {
        let b = &mut f.blocks[1];
        b.insts.clear();
        b.terminator = Terminator::Unreachable;
        b.dead = true;
    } else {
        // The definition unlisted from a block that stays.
        f.blocks[1].insts.clear();
    }
    f
}

#[test]
fn use_of_instruction_in_removed_block_is_rejected_in_unreachable_block() {
    let f = use_of_removed_definition(true);
    assert_error(&f, "uses v5, which is not defined: its instruction");
    assert_error(&f, "block3");
}

#[test]
fn use_of_unlisted_instruction_is_rejected() {
    assert_error(
        &use_of_removed_definition(false),
        "uses v5, which is not defined: its instruction",
    );
}

#[test]
fn use_of_parameter_of_removed_block_is_rejected() {
    let text = "func @f(i32 v0) -> i32 phase optimized {
block0:
  jump block1(i32 v0)
block1(i32 v1):
  ret i32 v1
block2:
  v2 = add i32 v1, 1
  ret i32 v2
}
";
    let mut m = strata::text::parse_module(text, "t.sir").expect("parses");
    let mut f = m.functions.remove(0);
    // block2 is unreachable and block1 dominates nothing it uses: valid as written.
    assert_eq!(errors(&f), Vec::<String>::new(), "the input is valid");
    f.blocks[0].terminator = Terminator::Ret(Some(Operand::Value(f.param_values[0])));
    f.blocks[1] = BlockData {
        dead: true,
        ..BlockData::new()
    };
    assert_error(
        &f,
        "uses v1, which is not defined: its block block1 was removed",
    );
}

use std::sync::Arc;
use strata::engine::*;
use strata::ir::*;

#[test]
fn engine_runs_and_resets() {
    let mut e = Engine::new(PipelineConfig::new(PassSet::default_pipeline()));
    let mut b = FunctionBuilder::new(
        "f",
        Signature {
            params: vec![Type::I32],
            ret: Type::I32,
            varargs: false,
        },
    );
    let x = b.param(0);
    let one = b.iconst(Type::I32, 1);
    let y = b.binary(BinaryOp::Add, Type::I32, x.into(), one);
    b.ret(Some(y.into()));
    let f = b.finish();
    let run = e.run(f.clone(), &Arc::new(SymbolTable::default()));
    // mem2reg and phi-elim leave a function without allocas or phis unchanged but for its
    // phase (memory -> ssa -> destructed).
    let mut expected = f.clone();
    expected.phase = Phase::Destructed;
    assert_eq!(run.function, expected);
    assert_eq!(
        e.function_entity_count(),
        2,
        "one block and one instruction stay pooled"
    );
}

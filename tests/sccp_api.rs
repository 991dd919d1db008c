//! The SCCP pass through its public API: the analysis result on parallel edges, errors on
//! invalid input, the memory limit with its fallback, and the system run alone in a World
//! (DESIGN.md 2, rule 8).

use bevy_ecs::prelude::*;
use std::sync::Arc;
use strata::analysis::{Cfg, ValidAnalyses};
use strata::api::{apply_sccp_transformations, optimize_with_sccp as optimize};
use strata::engine::{Diagnostics, PassStats, PipelineConfig, Severity};
use strata::ir::{Block, Function, Phase, SymbolTable, Value};
use strata::sccp::*;

use strata::ir::{BinaryOp, FunctionBuilder, IntPredicate, Operand, Signature, Terminator, Type};

fn sig(params: &[Type], ret: Type) -> Signature {
    Signature {
        params: params.to_vec(),
        ret,
        varargs: false,
    }
}

/// `br c, block1, block1` then `ret`; `c` is a parameter or a constant.
fn duplicate_edges(constant: bool) -> Function {
    let mut b = FunctionBuilder::new("dup", sig(&[Type::I1], Type::I32));
    b.set_phase(Phase::Ssa);
    let cond = if constant {
        b.iconst(Type::I1, 0)
    } else {
        Operand::Value(b.param(0))
    };
    let b1 = b.create_block();
    b.br(cond, b1, b1);
    b.switch_to(b1);
    let one = b.iconst(Type::I32, 1);
    let v = b.phi(Type::I32, &[(Block(0), one), (Block(0), one)]);
    b.ret(Some(Operand::Value(v)));
    b.finish()
}

#[test]
fn parallel_edges_are_distinct() {
    let r = sccp_analysis(&duplicate_edges(true), 1 << 20).unwrap();
    assert!(!r.is_edge_executable(Block(0), 0));
    assert!(r.is_edge_executable(Block(0), 1), "false takes successor 1");
    assert_eq!(r.executable_edges().count(), 1);
    assert_eq!(r.resolvable_branches, 1);
    let r = sccp_analysis(&duplicate_edges(false), 1 << 20).unwrap();
    assert_eq!(
        r.executable_edges().collect::<Vec<_>>(),
        vec![(Block(0), 0, Block(1)), (Block(0), 1, Block(1))]
    );
    assert_eq!(r.resolvable_branches, 0);
    assert_eq!(r.foldable_count, 1, "the phi of two 1s");
}

#[test]
fn invalid_input_is_an_error_not_a_panic() {
    let mut f = duplicate_edges(false);
    f.blocks[0].terminator = Terminator::Jump(strata::ir::Target::new(Block(7)));
    assert_eq!(
        sccp_analysis(&f, 1 << 20).unwrap_err(),
        SccpError::InvalidCfg { block_id: Block(7) }
    );
    let mut f = duplicate_edges(false);
    f.blocks[1].terminator = Terminator::Ret(Some(Operand::Value(Value(99))));
    let e = sccp_analysis(&f, 1 << 20).unwrap_err();
    assert_eq!(
        e,
        SccpError::InvalidSsa {
            value_id: Value(99)
        }
    );
    assert_eq!(e.to_string(), "Invalid SSA reference: value v99 not found");
    let before = f.clone();
    assert!(optimize(&mut f, &Arc::new(SymbolTable::default()), 1 << 20).is_err());
    assert_eq!(f, before, "unchanged on error");
    let mut f = duplicate_edges(false);
    f.phase = Phase::Destructed;
    assert!(matches!(
        optimize(&mut f, &Arc::new(SymbolTable::default()), 1 << 20),
        Err(SccpError::UnsupportedPhase { .. })
    ));
}

/// A chain of `n` additions starting from a parameter: every value is overdefined.
fn chain(n: usize) -> Function {
    let mut b = FunctionBuilder::new("chain", sig(&[Type::I32], Type::I32));
    b.set_phase(Phase::Ssa);
    let mut v = b.param(0);
    let one = b.iconst(Type::I32, 1);
    for _ in 0..n {
        v = b.binary(BinaryOp::Add, Type::I32, Operand::Value(v), one);
    }
    let seven = b.iconst(Type::I32, 7);
    let c = b.icmp(IntPredicate::Eq, Type::I32, seven, seven);
    let (t, e) = (b.create_block(), b.create_block());
    b.br(Operand::Value(c), t, e);
    b.switch_to(t);
    b.ret(Some(Operand::Value(v)));
    b.switch_to(e);
    b.ret(Some(seven));
    b.finish()
}

#[test]
fn memory_limit_is_all_or_nothing_and_falls_back() {
    // 1 parameter + 10 additions + 1 comparison = 12 entries = 288 bytes.
    let f = chain(10);
    assert!(sccp_analysis(&f, 288).is_ok());
    assert_eq!(
        sccp_analysis(&f, 287).unwrap_err(),
        SccpError::MemoryLimit {
            function_name: "chain".into(),
            limit: 287
        }
    );
    let mut solver = Solver::new();
    let mut cfg = Cfg::new();
    cfg.compute(&f);
    assert!(solver
        .analyze(&f, &cfg, &SymbolTable::default(), 287)
        .is_err());
    assert!(solver.result().values.is_empty(), "no partial result");
    assert_eq!(solver.result().executable_edges().count(), 0);
    let mut g = f.clone();
    let no_globals = Arc::new(SymbolTable::default());
    let out = optimize(&mut g, &no_globals, 287).unwrap();
    assert!(matches!(out, SccpOutcome::Fallback(s) if s.branches_resolved == 1));
    assert_eq!(g.phase, Phase::Optimized);
    assert!(!g.blocks[2].dead, "local folding removes no block");
    let mut contract = f.clone();
    let r = sccp_analysis(&contract, 288).unwrap();
    // The additions start from a parameter: only the comparison folds, and the branch
    // resolves (003's count: 1 + 1).
    assert_eq!(apply_sccp_transformations(&mut contract, &r), 2);
    let mut h = f.clone();
    let out = optimize(&mut h, &no_globals, 288).unwrap();
    assert!(matches!(out, SccpOutcome::Optimized(s) if s.blocks_removed == 1));
}

/// DESIGN.md 2 rule 8: the systems run alone in a World holding only what they read (and
/// the CFG they read, computed by its own system).
#[test]
fn system_runs_alone() {
    use strata::engine::world::{init_resources as init_world, FunctionLoader};
    let mut world = World::new();
    init_world(&mut world);
    strata::analysis::init_resources(&mut world);
    init_resources(&mut world);
    world.insert_resource(PipelineConfig {
        options: strata::engine::PassOptions {
            sccp_memory_limit: 24,
            ..Default::default()
        },
        ..Default::default()
    });
    world.init_resource::<strata::ir::PerSlot<Diagnostics>>();
    world.init_resource::<strata::ir::PerSlot<PassStats>>();
    let symbols = std::sync::Arc::new(strata::ir::SymbolTable::default());
    world.resource_scope(|w, mut l: Mut<FunctionLoader>| l.load(w, 0, chain(3), &symbols));
    let mut schedule = Schedule::default();
    schedule.add_systems((strata::analysis::compute_cfg, solve_sccp, rewrite_sccp).chain());
    schedule.run(&mut world);
    let diags = &world.resource::<strata::ir::PerSlot<Diagnostics>>()[0].0;
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].severity, Severity::Note);
    let stats = &world.resource::<strata::ir::PerSlot<PassStats>>()[0].0;
    assert!(stats
        .iter()
        .any(|s| s.name == "memory_limit_fallbacks" && s.value == 1));
    world
        .resource_mut::<PipelineConfig>()
        .options
        .sccp_memory_limit = 1 << 20;
    world.resource_mut::<strata::ir::PerSlot<Diagnostics>>()[0]
        .0
        .clear();
    schedule.run(&mut world);
    assert!(world.resource::<strata::ir::PerSlot<Diagnostics>>()[0]
        .0
        .is_empty());
    assert_eq!(
        world.resource::<strata::ir::PerSlot<SccpSolution>>()[0].status,
        SccpStatus::Solved
    );
    // The CFG changed: the rewrite marked the analyses stale; recomputing gives the new one.
    assert!(world.resource::<strata::ir::PerSlot<ValidAnalyses>>()[0]
        .0
        .is_empty());
    let mut refresh = Schedule::default();
    refresh.add_systems(strata::analysis::compute_cfg);
    refresh.run(&mut world);
    assert_eq!(
        world.resource::<strata::ir::PerSlot<Cfg>>()[0].rpo(),
        &[Block(0), Block(1)]
    );
    let f = world.resource_scope(|w, mut l: Mut<FunctionLoader>| l.take(w, 0));
    assert!(f.blocks[2].dead);
    assert!(strata::verify::verify(&f, &symbols).is_empty());
}

//! The CFG and dominance systems run alone in a bare World (DESIGN.md 2, rule 8) on generated
//! functions and are judged by the brute-force oracle of `strata::fuzzing::dominance`.

use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{LogLevel, ScheduleBuildSettings, SingleThreadedExecutor};
use std::sync::Arc;
use strata::analysis::{self, Cfg, DomTree, DominanceFrontiers, Sccs};
use strata::engine::{world, Stage};
use strata::fuzzing::dominance::{verify, Analyses};
use strata::fuzzing::generate::{self, GenOptions};
use strata::ir::{Block, Function, InstKind, SymbolTable};

fn shape_of(f: &Function) -> Vec<Vec<usize>> {
    f.blocks
        .iter()
        .map(|b| {
            let mut s = Vec::new();
            b.terminator.for_each_successor(|t| s.push(t.index()));
            for &i in &b.insts {
                if let InstKind::InlineAsm(asm) = &f.insts[i.index()].kind {
                    s.extend(asm.goto_labels.iter().map(|l| l.index()));
                }
            }
            s
        })
        .collect()
}

#[test]
fn systems_match_oracle_on_generated_functions() {
    let mut w = World::new();
    world::init_resources(&mut w);
    analysis::init_resources(&mut w);
    let mut schedule = Schedule::default();
    schedule.set_executor(SingleThreadedExecutor::new());
    schedule.set_build_settings(ScheduleBuildSettings {
        ambiguity_detection: LogLevel::Error,
        ..Default::default()
    });
    schedule.configure_sets(Stage::Cfg.before(Stage::Dominance));
    analysis::configure(&mut schedule);
    let symbols = Arc::new(SymbolTable::default());
    let opts = GenOptions {
        max_blocks: 20,
        max_insts_per_block: 4,
        ..GenOptions::default()
    };
    let mut entry_loops = 0;
    for seed in 0..300u64 {
        let f = generate::seeded(seed, &opts);
        let shape = shape_of(&f);
        world::load_function(&mut w, f.clone(), &symbols);
        schedule.run(&mut w);
        let a = Analyses {
            cfg: w.resource::<Cfg>().clone(),
            dom: w.resource::<DomTree>().clone(),
            df: w.resource::<DominanceFrontiers>().clone(),
            sccs: w.resource::<Sccs>().clone(),
        };
        verify(&shape, &a);
        if !a.cfg.preds(Block(0)).is_empty() {
            entry_loops += 1;
        }
        let back = world::take_function(&mut w);
        assert_eq!(back, f);
    }
    assert!(
        entry_loops > 0,
        "the generator should produce entry loop headers"
    );
}

#[test]
fn generated_modules_have_acyclic_calls() {
    for seed in 0..50u64 {
        let bytes = generate::seed_bytes(seed, 4096);
        let mut u = arbitrary::Unstructured::new(&bytes);
        let m = generate::module(&mut u, &GenOptions::default()).unwrap();
        for (k, f) in m.functions.iter().enumerate() {
            for i in f.blocks.iter().flat_map(|b| &b.insts) {
                if let InstKind::Call {
                    callee: strata::ir::Callee::Direct(s),
                    ..
                } = &f.insts[i.index()].kind
                {
                    let strata::ir::SymbolKind::Function(callee) = m.symbols[s.index()].kind else {
                        panic!("call to a non-function");
                    };
                    assert!((callee as usize) < k, "call must go to an earlier function");
                }
            }
        }
    }
}

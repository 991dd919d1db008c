//! The CFG and dominance systems run alone in a bare World (DESIGN.md 2, rule 11) on generated
//! functions and are judged by the brute-force oracle of `strata::fuzzing::dominance`.

use bevy_ecs::prelude::*;
use std::sync::Arc;
use strata::analysis::{self, Cfg, DomTree, DominanceFrontiers, Sccs};
use strata::engine::harness::Harness;
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
        let mut h = Harness::new(f.clone(), &symbols, Default::default());
        h.run(
            (
                analysis::compute_cfg,
                analysis::compute_idoms,
                analysis::compute_frontiers,
                analysis::compute_sccs,
            )
                .chain(),
        );
        let w = h.world();
        let a = Analyses {
            cfg: w.resource::<strata::ir::PerSlot<Cfg>>()[0].clone(),
            dom: w.resource::<strata::ir::PerSlot<DomTree>>()[0].clone(),
            df: w.resource::<strata::ir::PerSlot<DominanceFrontiers>>()[0].clone(),
            sccs: w.resource::<strata::ir::PerSlot<Sccs>>()[0].clone(),
        };
        verify(&shape, &a);
        if !a.cfg.preds(Block(0)).is_empty() {
            entry_loops += 1;
        }
        h.check_dense();
        let back = h.take();
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

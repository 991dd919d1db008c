use crate::analysis::ValidAnalyses;
use crate::engine::harness::Harness;
use crate::ir::SymbolTable;
use crate::ir::{Block, IrRead, IrView, PerSlot, Phase, Value};
use crate::sccp::*;
use crate::stage::PassSet;
use crate::stage::{PassStats, PipelineConfig};
use bevy_ecs::prelude::*;

const DIAMOND: &str = "func @f(i32 v0) -> i32 phase ssa {
block0:
  v1 = icmp eq i32 2, 2
  br v1, block1, block2
block1:
  v2 = add i32 3, 4
  jump block3
block2:
  v3 = add i32 v0, 1
  jump block3
block3:
  v4 = phi i32 [block1: v2], [block2: v3]
  ret i32 v4
}
";

/// Each system alone on a World built from text: the analysis changes nothing and says
/// what it proved; the rewrite then applies it, flags what it removed dead and marks the
/// analyses stale.
#[test]
fn solve_then_rewrite_alone() {
    let mut h = Harness::from_sir(DIAMOND, PipelineConfig::new(PassSet::SCCP)).unwrap();
    h.run((crate::analysis::compute_cfg, solve_sccp).chain());
    let solution = &h.world().resource::<PerSlot<SccpSolution>>()[0];
    assert_eq!(solution.status, SccpStatus::Solved);
    let r = solution.result().unwrap();
    assert!(!r.is_reachable(Block(2)));
    assert_eq!(r.value(Value(4)).to_string(), "const i32 7");
    assert_eq!((r.foldable_count, r.resolvable_branches), (3, 1));
    assert!(
        h.world().resource::<PerSlot<PassStats>>()[0].0.is_empty(),
        "analysis only"
    );

    h.run(rewrite_sccp);
    assert!(h.world().resource::<PerSlot<ValidAnalyses>>()[0]
        .0
        .is_empty());
    let stats = &h.world().resource::<PerSlot<PassStats>>()[0].0;
    let stat = |name: &str| stats.iter().find(|s| s.name == name).map(|s| s.value);
    assert_eq!(stat("blocks_removed"), Some(1));
    assert_eq!(stat("branches_resolved"), Some(1));
    h.check_dense();
    // `InstDead` is set exactly for the instructions no live block lists.
    h.run(|ir: IrView| {
        let f = ir.body();
        let mut listed = vec![false; f.num_insts()];
        for b in (0..f.num_blocks()).filter(|&b| !f.block_dead[b]) {
            for i in &f.block_insts[b] {
                listed[i.index()] = true;
            }
        }
        for (i, &l) in listed.iter().enumerate() {
            assert_eq!(f.inst_dead[i], !l, "inst{i}");
        }
    });
    let f = h.take();
    assert!(f.blocks[2].dead && f.blocks[2].insts.is_empty());
    assert_eq!(f.phase, Phase::Optimized);
    // The removed instructions are unlisted; the ones left are the jump path's.
    let listed: Vec<usize> = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .map(|i| i.index())
        .collect();
    assert!(listed.is_empty(), "every instruction folded: {listed:?}");
    let text = crate::text::print_function(&f, &SymbolTable::default());
    assert!(text.contains("ret i32 7"), "{text}");
}

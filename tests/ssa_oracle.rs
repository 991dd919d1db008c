//! Differential oracles of SSA construction, phi elimination and block-parameter
//! conversion on generated functions (DESIGN.md 5): see `strata::fuzzing::mem2reg`.

use strata::fuzzing::mem2reg;

#[test]
fn mem2reg_matches_interpreter() {
    mem2reg::run_seeds(400, mem2reg::check);
}

#[test]
fn phi_elim_matches_interpreter() {
    mem2reg::run_seeds(400, strata::fuzzing::phi_elim::check);
}

#[test]
fn block_params_match_interpreter() {
    mem2reg::run_seeds(300, strata::fuzzing::phi_elim::check_block_params);
}

#[test]
fn asm_goto_results_verify() {
    mem2reg::run_seeds(300, strata::fuzzing::phi_elim::check_asm_goto);
}

/// DESIGN.md 2 rule 8: the SSA systems run alone in a bare World (the analyses, the
/// function resources, `PassStats` and `PipelineConfig`) and give what the library
/// functions give.
#[test]
fn systems_run_alone_and_match_the_library() {
    use bevy_ecs::prelude::*;
    use bevy_ecs::schedule::{LogLevel, ScheduleBuildSettings, SingleThreadedExecutor};
    use std::sync::Arc;
    use strata::engine::{world, PassSet, PassStats, PipelineConfig, Stage};
    use strata::fuzzing::generate::{self, GenOptions};
    use strata::ir::SymbolTable;

    for passes in [PassSet::PHI_ELIM, PassSet::BLOCK_PARAMS] {
        let mut w = World::new();
        world::init_resources(&mut w);
        strata::analysis::init_resources(&mut w);
        w.init_resource::<PassStats>();
        w.insert_resource(PipelineConfig::new(PassSet::MEM2REG | passes));
        let mut schedule = Schedule::default();
        schedule.set_executor(SingleThreadedExecutor::new());
        schedule.set_build_settings(ScheduleBuildSettings {
            ambiguity_detection: LogLevel::Error,
            ..Default::default()
        });
        schedule.configure_sets(
            (
                Stage::Cfg,
                Stage::Dominance,
                Stage::Mem2Reg,
                Stage::OutOfSsa,
            )
                .chain(),
        );
        strata::analysis::configure(&mut schedule);
        strata::ssa::configure(&mut schedule);
        let symbols = Arc::new(SymbolTable::default());
        for seed in 0..100u64 {
            let f = generate::seeded(seed, &GenOptions::default());
            world::load_function(&mut w, f.clone(), &symbols);
            schedule.run(&mut w);
            let got = world::take_function(&mut w);
            let mut want = f;
            strata::ssa::promote_allocas_with_params(&mut want);
            if passes == PassSet::PHI_ELIM {
                strata::ssa::eliminate_phis(&mut want);
            } else {
                strata::ssa::convert_phis_to_block_params(&mut want);
            }
            assert_eq!(got, want, "seed {seed}");
            assert!(!w.resource::<PassStats>().0.is_empty());
            w.resource_mut::<PassStats>().0.clear();
        }
    }
}

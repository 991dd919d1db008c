//! Property tests over generated modules (valid by construction, `strata::fuzzing::generate`):
//! the text format round-trips them, the verifier accepts them, the interpreter runs them
//! deterministically, and the engine returns them unchanged from the analysis pipeline.

use arbitrary::Unstructured;
use std::sync::Arc;
use strata::engine::{batch, PassSet, PipelineConfig};
use strata::fuzzing::generate::{module, seed_bytes, GenOptions};
use strata::interp::{self, Val};
use strata::ir::Module;

fn generated(seed: u64) -> Module {
    let bytes = seed_bytes(seed, 4096);
    module(&mut Unstructured::new(&bytes), &GenOptions::default())
        .expect("generator never fails on 4 KiB")
}

#[test]
fn print_parse_round_trip() {
    for seed in 0..300 {
        let m = generated(seed);
        let printed = strata::text::print_module(&m);
        let parsed = strata::text::parse_module(&printed, "generated")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{printed}"));
        assert_eq!(
            strata::text::print_module(&parsed),
            printed,
            "seed {seed}: printing is not a fixed point"
        );
        // Block, instruction and value tables survive (constants are re-interned in text
        // order, so compare those through a second parse, which must be identical).
        for (a, b) in m.functions.iter().zip(&parsed.functions) {
            assert_eq!(a.values, b.values, "seed {seed} @{}: values differ", a.name);
            assert_eq!(a.insts.len(), b.insts.len(), "seed {seed} @{}", a.name);
            let insts = |f: &strata::ir::Function| {
                f.blocks.iter().map(|b| b.insts.clone()).collect::<Vec<_>>()
            };
            assert_eq!(
                insts(a),
                insts(b),
                "seed {seed} @{}: layout differs",
                a.name
            );
        }
        let reparsed =
            strata::text::parse_module(&strata::text::print_module(&parsed), "again").unwrap();
        assert_eq!(
            reparsed, parsed,
            "seed {seed}: parsing printed text is not a fixed point"
        );
    }
}

#[test]
fn generated_modules_verify_and_run_deterministically() {
    for seed in 0..200 {
        let m = generated(seed);
        let errors = strata::verify::verify_module(&m);
        assert!(errors.is_empty(), "seed {seed}: {errors:?}");
        let last = m.functions.last().unwrap();
        let args: Vec<Val> = last
            .signature
            .params
            .iter()
            .enumerate()
            .map(|(i, &ty)| Val::int(ty, i as i128 * 7 - 3))
            .collect();
        let a = interp::run(&m, &last.name, &args, Default::default());
        let b = interp::run(&m, &last.name, &args, Default::default());
        assert_eq!(a, b, "seed {seed}: the interpreter is not deterministic");
        assert!(
            a.is_ok(),
            "seed {seed}: generated functions terminate without error: {a:?}"
        );
    }
}

#[test]
fn analysis_pipeline_returns_functions_unchanged() {
    let config = PipelineConfig {
        verify_each: true,
        ..PipelineConfig::new(PassSet::VERIFY | PassSet::CFG | PassSet::DOMINANCE)
    };
    for seed in 0..100 {
        let mut m = generated(seed);
        let symbols = Arc::new(m.symbol_table());
        let originals = m.functions.clone();
        let runs =
            batch::run_functions(&std::mem::take(&mut m.functions), &symbols, &config, &|| {});
        for (run, original) in runs.into_iter().zip(originals) {
            let run = run.unwrap();
            assert!(!run.has_errors(), "seed {seed}: {:?}", run.diagnostics);
            assert_eq!(run.function, original, "seed {seed}");
        }
    }
}

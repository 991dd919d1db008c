//! SCCP on every example program through the engine (with `--verify-each`), judged by the
//! interpreter: `@main` must produce the same outcome before and after.

use std::sync::Arc;
use strata::engine::{batch, PassSet, PipelineConfig};

#[test]
fn examples_keep_their_behaviour() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sir");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sir"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 5);
    let config = PipelineConfig {
        verify_each: true,
        ..PipelineConfig::new(PassSet::parse("sccp").unwrap())
    };
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let before = strata::text::parse_module(&text, "example").unwrap();
        let mut after = before.clone();
        let symbols = Arc::new(after.symbol_table());
        let functions = std::mem::take(&mut after.functions);
        for run in batch::run_functions(&functions, &symbols, &config, &|| {}) {
            let run = run.unwrap();
            assert!(
                !run.has_errors(),
                "{}: {:?}",
                path.display(),
                run.diagnostics
            );
            after.functions.push(run.function);
        }
        let printed = strata::text::print_module(&after);
        let reparsed = strata::text::parse_module(&printed, "printed").unwrap();
        assert_eq!(strata::text::print_module(&reparsed), printed);
        if before.function("main").is_none() {
            continue;
        }
        let x = strata::interp::run(&before, "main", &[], Default::default());
        let y = strata::interp::run(&reparsed, "main", &[], Default::default());
        match (x, y) {
            (Ok(p), Ok(q)) => {
                assert_eq!(p.result, q.result, "{}", path.display());
                assert_eq!(p.output, q.output, "{}", path.display());
                assert_eq!(p.exit_code, q.exit_code, "{}", path.display());
                assert_eq!(p.memory_digest, q.memory_digest, "{}", path.display());
                assert_eq!(p.trace, q.trace, "{}", path.display());
                assert!(q.steps <= p.steps, "{}", path.display());
            }
            (x, y) => panic!("{}: {x:?} / {y:?}", path.display()),
        }
    }
}

//! Splitting and fusion applied to the IR keep interpreter behaviour on the filetests and
//! the example programs (DESIGN.md 5: interpreter before vs after, verifier after).
//!
//! Every `.sir` file under `tests/filetests` whose header lists calls (`run @f(ARGS)`, in
//! `; test run` and `; test compile ... run` lines) and every example program with a
//! `@main` goes through `strata::fuzzing::placement::check_split_module`: the `placement`
//! pass with `placement_split` on, under the built-in model and under the splitting model,
//! both on the module as written and after mem2reg and SCCP (the pipeline's order). The test
//! fails if no file had a block cut, so it cannot pass by checking nothing.

mod common;

use std::path::Path;
use std::sync::Arc;
use strata::api::run_in_place;
use strata::engine::{PassSet, PipelineConfig};
use strata::fuzzing::placement::{check_split_module, SplitCounts, SPLIT_MODEL};
use strata::interp::Val;
use strata::ir::Module;

/// The calls a file's header lists: `(function, arguments)`.
fn calls(src: &str, m: &Module) -> Vec<(String, Vec<Val>)> {
    let Some(header) = src.lines().next() else {
        return Vec::new();
    };
    let Some(rest) = header.split_once(" run ").map(|(_, r)| r) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for call in rest.split_whitespace() {
        let Some((name, args)) = call.trim_start_matches('@').split_once('(') else {
            continue;
        };
        let Some(f) = m.function(name) else { continue };
        let vals: Option<Vec<Val>> = args
            .trim_end_matches(')')
            .split(',')
            .filter(|a| !a.is_empty())
            .zip(&f.signature.params)
            .map(|(a, &ty)| Val::parse(ty, a).ok())
            .collect();
        if let Some(vals) = vals {
            out.push((name.to_string(), vals));
        }
    }
    out
}

fn optimised(m: &Module) -> Module {
    let mut m = m.clone();
    let symbols = Arc::new(m.symbol_table());
    let config = PipelineConfig::new(PassSet::MEM2REG | PassSet::SCCP);
    for f in m
        .functions
        .iter_mut()
        .filter(|f| f.phase == strata::ir::Phase::Memory)
    {
        let report = run_in_place(f, &symbols, &config);
        assert!(!report.has_errors(), "{:?}", report.diagnostics);
    }
    m
}

#[test]
fn splitting_keeps_behaviour_on_filetests_and_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    paths.extend(common::filetest::files(
        &root.join("tests/filetests"),
        &["sir"],
    ));
    paths.extend(common::filetest::files(
        &root.join("examples/sir"),
        &["sir"],
    ));
    let mut total = SplitCounts::default();
    let mut checked = 0;
    for path in paths {
        let src = std::fs::read_to_string(&path).unwrap();
        let Ok(m) = strata::text::parse_module(&src, &path.display().to_string()) else {
            continue; // parse-error filetests
        };
        let symbols = m.symbol_table();
        if m.functions
            .iter()
            .any(|f| !strata::verify::verify(f, &symbols).is_empty())
        {
            continue; // verify filetests with invalid functions
        }
        let mut runs = calls(&src, &m);
        if runs.is_empty()
            && m.function("main")
                .is_some_and(|f| f.signature.params.is_empty())
        {
            runs.push(("main".to_string(), Vec::new()));
        }
        if runs.is_empty() {
            continue;
        }
        let ssa = optimised(&m);
        for module in [&m, &ssa] {
            for model in [None, Some(SPLIT_MODEL)] {
                for (entry, args) in &runs {
                    let c = check_split_module(module, entry, model, std::slice::from_ref(args));
                    total.created += c.created;
                    total.fused += c.fused;
                }
            }
        }
        checked += 1;
    }
    eprintln!("{checked} files checked; {total:?}");
    assert!(checked >= 20, "only {checked} files had calls to run");
    assert!(total.created > 0, "no block was cut: {total:?}");
}

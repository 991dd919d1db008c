//! Helpers shared by the integration tests that drive LLVM tools: tool detection, scratch
//! directories, running passes over an imported module, and exporting with verification.
// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// True if `tool --version` runs and succeeds.
pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A scratch directory per test binary (`prefix`), test (`tag`) and process, so parallel
/// tests never share one.
pub fn temp_dir(prefix: &str, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("strata-{prefix}-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `passes` (for example `mem2reg,sccp`) on every imported function with one engine;
/// panics on a pipeline error. Returns the number of phis afterwards.
pub fn run_passes(imp: &mut strata::llvm::Imported, passes: &str, name: &str) -> usize {
    use strata::engine::{Engine, PassSet, PipelineConfig};
    let symbols = std::sync::Arc::new(imp.module.symbol_table());
    let mut engine = Engine::new(PipelineConfig::new(PassSet::parse(passes).unwrap()));
    let mut phis = 0;
    for f in std::mem::take(&mut imp.module.functions) {
        let run = engine.run(f, &symbols);
        assert!(!run.has_errors(), "{name}: {passes}: {:?}", run.diagnostics);
        phis += run
            .function
            .insts
            .iter()
            .filter(|i| matches!(i.kind, strata::ir::InstKind::Phi { .. }))
            .count();
        imp.module.functions.push(run.function);
    }
    phis
}

/// Exports `imp` to `path` and checks it with `opt -passes=verify` and with our verifier (on
/// the module before export and on the export imported back): both must accept, and a
/// disagreement between them is reported as such (issue 21's guard: our verifier rejects
/// whatever `opt` rejects).
pub fn export_checked(imp: &strata::llvm::Imported, path: &Path) {
    let text = strata::llvm::export(&imp.module, &imp.context);
    std::fs::write(path, &text).unwrap();
    let v = Command::new("opt")
        .args(["-passes=verify", "-disable-output"])
        .arg(path)
        .output()
        .expect("opt runs");
    let ours = imp
        .verify()
        .map_err(|e| format!("before export: {e}"))
        .and_then(|()| {
            let back = strata::llvm::import(&text, "export.ll", &Default::default())
                .map_err(|e| format!("re-import: {e}"))?;
            back.verify().map_err(|e| format!("after re-import: {e}"))
        });
    assert_eq!(
        v.status.success(),
        ours.is_ok(),
        "{}: opt -passes=verify and our verifier disagree: opt {}, ours {ours:?}",
        path.display(),
        if v.status.success() {
            "accepts".to_string()
        } else {
            String::from_utf8_lossy(&v.stderr).into_owned()
        },
    );
    assert!(
        v.status.success(),
        "{}: opt -passes=verify rejected the export:\n{}",
        path.display(),
        String::from_utf8_lossy(&v.stderr)
    );
}

/// Decides what a test does when an input or tool it needs is missing (`reason` says which
/// and how to get it): with `STRATA_SKIP_CORPUS=1` it prints `SKIPPED: <test>: <reason>`
/// on stdout and stderr (visible with or without `--nocapture`) and returns false; otherwise
/// the test fails with the reason, so `cargo test` never passes silently without them.
pub fn require(test: &str, reason: Option<String>) -> bool {
    let Some(reason) = reason else {
        return true;
    };
    if std::env::var("STRATA_SKIP_CORPUS").is_ok_and(|v| v == "1") {
        println!("SKIPPED: {test}: {reason} (STRATA_SKIP_CORPUS=1)");
        eprintln!("SKIPPED: {test}: {reason} (STRATA_SKIP_CORPUS=1)");
        return false;
    }
    panic!("{test}: {reason}; set STRATA_SKIP_CORPUS=1 to skip this test visibly");
}

/// `Some(reason)` if one of `tools` does not run (`--version` fails).
pub fn missing_tools(tools: &[&str]) -> Option<String> {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have(t)).collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{} not on PATH (run `bash scripts/install-clang.sh`)",
            missing.join(", ")
        )
    })
}

/// True if an import skip reason names a vector type or operation, which the IR does not
/// model yet (README "Still unsupported"): the one kind of skip the corpus tests allow, and
/// only where they say so.
pub fn vector_reason(reason: &str) -> bool {
    reason.contains(" x ")
        || ["insertelement", "extractelement", "shufflevector", "vector"]
            .iter()
            .any(|w| reason.contains(w))
}

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

/// Exports `imp` to `path` and checks it with `opt -passes=verify`.
pub fn export_checked(imp: &strata::llvm::Imported, path: &Path) {
    std::fs::write(path, strata::llvm::export(&imp.module, &imp.context)).unwrap();
    let v = Command::new("opt")
        .args(["-passes=verify", "-S", "-o", "/dev/null"])
        .arg(path)
        .output()
        .expect("opt runs");
    assert!(
        v.status.success(),
        "{}: opt -passes=verify rejected the export:\n{}",
        path.display(),
        String::from_utf8_lossy(&v.stderr)
    );
}

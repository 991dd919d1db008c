//! Helpers shared by the integration tests: the blessable filetest runner ([`filetest`]);
//! for the tests that drive LLVM tools, tool detection, scratch
//! directories, running passes over an imported module, and exporting with verification.
//!
//! What the tests need and a Rust toolchain does not bring is set up on first use, so that
//! `cargo test` passes on a fresh clone with nothing skipped: [`missing_tools`] installs
//! clang-14, `opt` and `lli` with `scripts/install-clang.sh` when one is missing, and
//! [`corpus_dir`] builds the C corpora with `scripts/corpus.sh` when a module is missing
//! (both scripts are idempotent). Each runs at most once per test process (the first test
//! to ask does it; the others wait for its result) and once across processes: the work is
//! done under an exclusive lock on `target/corpus/.lock`, and whoever takes the lock second
//! finds the work done. Each says on stderr what it is doing (written past the test
//! harness's capture, so `cargo test` shows it); a script that fails fails every test that
//! needs it, with the tail of the script's output. `STRATA_SKIP_CORPUS=1` sets up nothing:
//! the tests that need these then print `SKIPPED` (see [`require`]), for a fast subset.
// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

pub mod cli;
pub mod filetest;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The programs `scripts/corpus.sh` builds, each in three flavours (`NAME.ll`, `NAME.g.ll`,
/// `NAME.O2.ll`).
pub const CORPUS_MODULES: [&str; 8] = [
    "zlib", "bzip2", "lua", "jq", "tcc", "xxhash", "sqlite", "jansson",
];

/// The LLVM 14 tools the tests run.
const LLVM_TOOLS: [&str; 3] = ["clang-14", "opt", "lli"];

fn skip_setup() -> bool {
    std::env::var("STRATA_SKIP_CORPUS").is_ok_and(|v| v == "1")
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A line on the process's stderr, past the test harness's output capture.
fn announce(line: &str) {
    let _ = writeln!(std::io::stderr(), "strata tests: {line}");
}

/// Why setting up the LLVM tools or the corpora failed (the message names the script or
/// path and carries the script's output tail).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(String);

/// Runs `work` holding the exclusive lock on `target/corpus/.lock` (waiting for another test
/// process that holds it).
fn with_setup_lock<T>(work: impl FnOnce() -> Result<T, SetupError>) -> Result<T, SetupError> {
    let dir = manifest_dir().join("target/corpus");
    let io = |p: &Path, e: std::io::Error| SetupError(format!("{}: {e}", p.display()));
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let path = dir.join(".lock");
    let file = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
    file.lock().map_err(|e| io(&path, e))?;
    let result = work();
    let _ = file.unlock();
    result
}

/// Runs `bash SCRIPT`; on failure the error carries the last 25 lines of its output.
fn run_script(script: &str) -> Result<(), SetupError> {
    let out = Command::new("bash")
        .arg(script)
        .current_dir(manifest_dir())
        .output()
        .map_err(|e| SetupError(format!("bash {script}: {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    let mut log = String::from_utf8_lossy(&out.stdout).into_owned();
    log.push_str(&String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = log.lines().collect();
    let tail = lines[lines.len().saturating_sub(25)..].join("\n");
    Err(SetupError(format!(
        "`bash {script}` failed ({}):\n{tail}",
        out.status
    )))
}

/// Installs the LLVM tools when one is missing (see the module doc); panics with the
/// script's output when that fails. Does nothing with `STRATA_SKIP_CORPUS=1`.
pub fn ensure_llvm_tools() {
    static DONE: OnceLock<Result<(), SetupError>> = OnceLock::new();
    if skip_setup() {
        return;
    }
    let result = DONE.get_or_init(|| {
        let missing = || LLVM_TOOLS.iter().any(|t| !have(t));
        if !missing() {
            return Ok(());
        }
        with_setup_lock(|| {
            if !missing() {
                return Ok(());
            }
            announce(
                "clang-14, opt or lli is missing: installing LLVM 14 with \
                 scripts/install-clang.sh (once; later runs reuse it)",
            );
            run_script("scripts/install-clang.sh")?;
            match LLVM_TOOLS.iter().find(|t| !have(t)) {
                Some(t) => Err(SetupError(format!(
                    "scripts/install-clang.sh ran but `{t}` does not run"
                ))),
                None => Ok(()),
            }
        })
    });
    if let Err(e) = result {
        panic!("setting up LLVM 14 for the tests: {e}");
    }
}

/// The corpus files missing under `target/corpus`.
fn missing_corpus_files() -> Vec<String> {
    let dir = manifest_dir().join("target/corpus");
    CORPUS_MODULES
        .iter()
        .flat_map(|m| [format!("{m}.ll"), format!("{m}.g.ll"), format!("{m}.O2.ll")])
        .filter(|f| !dir.join(f).exists())
        .collect()
}

/// `target/corpus`, with the C corpora built in it first when a module is missing (see the
/// module doc); panics with the script's output when building fails. With
/// `STRATA_SKIP_CORPUS=1` it only returns the path.
pub fn corpus_dir() -> PathBuf {
    static DONE: OnceLock<Result<(), SetupError>> = OnceLock::new();
    let dir = manifest_dir().join("target/corpus");
    if skip_setup() {
        return dir;
    }
    ensure_llvm_tools();
    let result = DONE.get_or_init(|| {
        if missing_corpus_files().is_empty() {
            return Ok(());
        }
        with_setup_lock(|| {
            let missing = missing_corpus_files();
            if missing.is_empty() {
                return Ok(());
            }
            announce(&format!(
                "building the C corpora with scripts/corpus.sh into target/corpus ({} of {} \
                 modules missing; once, several minutes; later runs reuse them)",
                missing.len(),
                3 * CORPUS_MODULES.len()
            ));
            run_script("scripts/corpus.sh")?;
            let missing = missing_corpus_files();
            if missing.is_empty() {
                announce("C corpora built");
                Ok(())
            } else {
                Err(SetupError(format!(
                    "scripts/corpus.sh ran but {} are missing",
                    missing.join(", ")
                )))
            }
        })
    });
    if let Err(e) = result {
        panic!("building the C corpora for the tests: {e}");
    }
    dir
}

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

/// The entries of `dir`, sorted by path (corpus modules and their function files).
pub fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    v.sort();
    v
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

/// `Some(reason)` if one of `tools` does not run (`--version` fails), after installing the
/// LLVM tools when they are missing ([`ensure_llvm_tools`]).
pub fn missing_tools(tools: &[&str]) -> Option<String> {
    if tools.iter().any(|t| LLVM_TOOLS.contains(t)) {
        ensure_llvm_tools();
    }
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have(t)).collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{} not on PATH (run `bash scripts/install-clang.sh`)",
            missing.join(", ")
        )
    })
}

//! Whole-program round trip through LLVM 14 text: each C program in `tests/c/` is compiled
//! with `clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm -g0` (and again with `-g`,
//! and at `-O2`, as users feed a back end), run with `lli`, then
//! imported, exported, checked with `opt -passes=verify` and run again with `lli`: stdout
//! and exit status must be identical. Where the reference interpreter supports every
//! external a program calls (`loops.c`, `vm.c`), it runs the imported module too and must
//! agree with `lli`. Finally each module goes through mem2reg and SCCP, is exported in SSA
//! form and must again verify and behave identically under `lli`. clang-14, `opt` and
//! `lli` are installed on first use (`scripts/install-clang.sh`, from `tests/common`); with
//! `STRATA_SKIP_CORPUS=1` the tests print `SKIPPED: ...` instead when they are missing.

mod common;
use common::{export_checked, missing_tools, require, run_passes, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use strata::llvm::{import, ImportOptions};

/// Runs `lli file`; returns (stdout, exit code).
fn lli(file: &Path) -> (String, i32) {
    let o = Command::new("lli").arg(file).output().expect("lli runs");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

/// Runs the imported module's `main` in the reference interpreter and compares its output
/// and exit status with `lli`'s. Programs calling externals the interpreter lacks are
/// reported, not failed, unless `must_run`.
fn interpret(imp: &strata::llvm::Imported, expected: &(String, i32), name: &str, must_run: bool) {
    let mut it = strata::interp::Interpreter::new(&imp.module, Default::default());
    match it.call("main", &[]) {
        Ok(o) => {
            let code = match o.exit_code {
                Some(c) => c & 0xff,
                None => match o.result {
                    Some(strata::interp::Val::Int { bits, .. }) => (bits & 0xff) as i32,
                    _ => 0,
                },
            };
            assert_eq!(
                (String::from_utf8_lossy(&o.output).into_owned(), code),
                *expected,
                "{name}: interpreter and lli disagree"
            );
        }
        Err(e) => {
            assert!(!must_run, "{name}: interpreter failed: {e}");
            eprintln!("{name}: not interpreted: {e}");
        }
    }
}

/// [`export_checked`], then `lli`'s result on the export.
fn export_and_run(imp: &strata::llvm::Imported, path: &Path) -> (String, i32) {
    export_checked(imp, path);
    lli(path)
}

/// Imports `ll`, exports it, verifies and runs the export; compares with running `ll`.
/// Returns the names of skipped functions. The reference interpreter runs the import of
/// `-O0` modules only (`interpret_o0`): `-O2` calls intrinsics it does not model.
fn round_trip(ll: &Path, dir: &Path, interpret_o0: bool) -> Vec<String> {
    let src = std::fs::read_to_string(ll).unwrap();
    let imp = import(&src, &ll.display().to_string(), &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let stem = ll.file_stem().unwrap().to_string_lossy().into_owned();
    // Every initialiser clang writes for these programs is evaluated (dispatch tables of
    // `blockaddress`es and -O2's relative lookup tables included): an unevaluated one
    // would leave the interpreter and SCCP without the global's contents.
    assert!(
        imp.context.warnings.is_empty(),
        "{stem}: {:?}",
        imp.context.warnings
    );
    let exported = dir.join(format!("{stem}.exported.ll"));
    export_checked(&imp, &exported);
    let before = lli(ll);
    let after = lli(&exported);
    assert_eq!(
        before,
        after,
        "{}: output differs after import/export",
        exported.display()
    );
    // Import semantics, judged independently of LLVM: the interpreter runs what we imported.
    if interpret_o0 {
        interpret(
            &imp,
            &before,
            &stem,
            matches!(
                stem.as_str(),
                "loops"
                    | "vm"
                    | "aggregates"
                    | "aggregate_allocas"
                    | "long_double"
                    | "named_signatures"
                    | "vectors"
                    | "vector_gep"
                    | "tables"
                    | "tables.O0"
                    | "builtins"
                    | "builtins.O0"
                    | "builtins.O0g"
                    | "scan.O0"
                    | "scan.O0g"
            ),
        );
    }
    // The point of export: SSA form after mem2reg, and after mem2reg and SCCP, runs under lli
    // like the original.
    for passes in ["mem2reg", "mem2reg,sccp"] {
        let mut ssa = import(&src, &stem, &ImportOptions::default()).unwrap();
        let phis = run_passes(&mut ssa, passes, &stem);
        let file = format!("{stem}.{}.ll", passes.replace(',', "-"));
        let after_ssa = export_and_run(&ssa, &dir.join(file));
        assert_eq!(
            before, after_ssa,
            "{stem}: output differs after {passes} and export ({phis} phis)"
        );
    }
    imp.skipped
        .iter()
        .map(|s| format!("{}:{} ({})", s.name, s.line, s.reason))
        .collect()
}

#[test]
fn c_programs_round_trip_through_import_and_export() {
    let test = "c_programs_round_trip_through_import_and_export";
    if !require(test, missing_tools(&["clang-14", "opt", "lli"])) {
        return;
    }
    let dir = temp_dir("llvm-roundtrip", "c");
    let cdir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&cdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 5);
    // (label, clang flags): `-g` must import exactly what `-g0` does (debug records and
    // attachments never make a function unsupported).
    let flavours: [(&str, &[&str]); 3] = [
        ("O0", &["-O0", "-Xclang", "-disable-O0-optnone", "-g0"]),
        ("O0g", &["-O0", "-Xclang", "-disable-O0-optnone", "-g"]),
        ("O2", &["-O2", "-g0"]),
    ];
    for c in sources {
        let stem = c.file_stem().unwrap().to_string_lossy().into_owned();
        let mut skipped_o0 = Vec::new();
        for (label, flags) in flavours {
            let ll = dir.join(format!("{stem}.{label}.ll"));
            let st = Command::new("clang-14")
                .args(flags)
                .args(["-S", "-emit-llvm", "-o"])
                .arg(&ll)
                .arg(&c)
                .status()
                .unwrap();
            assert!(st.success(), "clang-14 {flags:?} failed on {}", c.display());
            let skipped = round_trip(&ll, &dir, label != "O2");
            eprintln!("{} ({label}): skipped {:?}", c.display(), skipped);
            let names = |s: &[String]| -> Vec<String> {
                s.iter()
                    .map(|x| x.split(':').next().unwrap_or("").to_string())
                    .collect()
            };
            match label {
                "O0" => skipped_o0 = names(&skipped),
                "O0g" => assert_eq!(
                    names(&skipped),
                    skipped_o0,
                    "{}: -g skips other functions than -g0",
                    c.display()
                ),
                _ => {}
            }
            // Programs that use only what the importer models, at every flavour: aggregates,
            // restrict in always_inline helpers (noalias scope metadata), volatile atomics,
            // vectors (SSE2 intrinsics and vector_size).
            let complete = matches!(
                stem.as_str(),
                "aggregates" | "misc" | "restrict_atomics" | "vectors" | "tables"
            );
            if complete
                && (label != "O2"
                    || matches!(stem.as_str(), "restrict_atomics" | "vectors" | "tables"))
            {
                assert!(
                    skipped.is_empty(),
                    "{} ({label}): skipped {skipped:?}",
                    c.display()
                );
            }
        }
    }
    if std::env::var_os("STRATA_KEEP_TMP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The committed `.ll` fixtures (`tests/fixtures/ll/NAME.ll`).
const FIXTURES: [&str; 11] = [
    "floats",
    "misc",
    "vm",
    "aggregates",
    "aggregate_allocas",
    "long_double",
    "named_signatures",
    "vectors",
    "vector_gep",
    "tables",
    "builtins",
];

#[test]
fn committed_fixtures_round_trip() {
    if !require(
        "committed_fixtures_round_trip",
        missing_tools(&["opt", "lli"]),
    ) {
        return;
    }
    let dir = temp_dir("llvm-roundtrip", "fixtures");
    let fdir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ll");
    for name in FIXTURES {
        let skipped = round_trip(&fdir.join(format!("{name}.ll")), &dir, true);
        assert!(skipped.is_empty(), "{name}: skipped {skipped:?}");
    }
    if std::env::var_os("STRATA_KEEP_TMP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Lines of `text` that define an `alloca`.
fn allocas(text: &str) -> usize {
    text.lines().filter(|l| l.contains(" = alloca ")).count()
}

/// Allocas holding aggregates that are only loaded and stored as whole values are promoted
/// exactly where LLVM 14's mem2reg promotes them: the allocas left after our mem2reg (in the
/// exported module) equal those `opt -passes=mem2reg` leaves, on the hand-written fixture
/// and on `aggregates.c`'s.
#[test]
fn aggregate_allocas_left_as_llvm_leaves_them() {
    let test = "aggregate_allocas_left_as_llvm_leaves_them";
    if !require(test, missing_tools(&["opt"])) {
        return;
    }
    let dir = temp_dir("llvm-roundtrip", "aggregate-allocas");
    let fdir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ll");
    for name in ["aggregate_allocas", "aggregates"] {
        let ll = fdir.join(format!("{name}.ll"));
        let src = std::fs::read_to_string(&ll).unwrap();
        let o = Command::new("opt")
            .args(["-passes=mem2reg", "-S"])
            .arg(&ll)
            .output()
            .expect("opt runs");
        assert!(o.status.success(), "{name}: opt failed");
        let llvm_left = allocas(&String::from_utf8_lossy(&o.stdout));
        let mut imp = import(&src, name, &ImportOptions::default()).unwrap();
        run_passes(&mut imp, "mem2reg", name);
        let out = dir.join(format!("{name}.mem2reg.ll"));
        export_checked(&imp, &out);
        let ours_left = allocas(&std::fs::read_to_string(&out).unwrap());
        assert_eq!(ours_left, llvm_left, "{name}: allocas left after mem2reg");
        assert!(allocas(&src) > llvm_left, "{name}: LLVM promotes something");
    }
    if std::env::var_os("STRATA_KEEP_TMP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `strata compile --emit ll` prints each function on the worker that ran it and frees the
/// function (issue 24, peak memory): its output must be byte for byte what `llvm::export`
/// prints of the whole module after the same passes. Checked on the committed fixtures, on
/// a module with a `blockaddress` in a global (its labels are renamed in the verbatim text)
/// and on the corpus modules that are built.
#[test]
fn compile_emit_ll_prints_what_export_prints() {
    if !require(
        "compile_emit_ll_prints_what_export_prints",
        missing_tools(&["clang-14"]),
    ) {
        return;
    }
    let dir = temp_dir("llvm-roundtrip", "stream");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<PathBuf> = FIXTURES
        .iter()
        .map(|n| root.join(format!("tests/fixtures/ll/{n}.ll")))
        .collect();
    let edge = dir.join("edge.ll");
    let status = Command::new("clang-14")
        .args([
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-S",
            "-emit-llvm",
            "-g0",
        ])
        .arg(root.join("tests/c/edge.c"))
        .arg("-o")
        .arg(&edge)
        .status()
        .expect("clang-14 runs");
    assert!(status.success(), "clang-14 failed on edge.c");
    inputs.push(edge);
    for m in ["zlib.ll", "xxhash.O2.ll"] {
        let p = root.join("target/corpus").join(m);
        if p.exists() {
            inputs.push(p);
        } else {
            eprintln!("compile_emit_ll_prints_what_export_prints: {m} not built, not compared");
        }
    }
    for ll in &inputs {
        let name = ll.display().to_string();
        let src = std::fs::read_to_string(ll).unwrap();
        let mut imp = import(&src, &name, &ImportOptions::default()).unwrap();
        run_passes(&mut imp, "mem2reg,sccp", &name);
        let expected = strata::llvm::export(&imp.module, &imp.context);
        for threads in ["1", "2"] {
            let out = Command::new(env!("CARGO_BIN_EXE_strata"))
                .args(["compile", "--passes", "mem2reg,sccp", "--emit", "ll"])
                .arg(ll)
                .env("RAYON_NUM_THREADS", threads)
                .output()
                .expect("strata runs");
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                String::from_utf8_lossy(&out.stdout) == expected,
                "{name}: compile --emit ll ({threads} threads) differs from export"
            );
        }
    }
    if std::env::var_os("STRATA_KEEP_TMP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

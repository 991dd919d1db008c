//! The corpus as users feed a back end besides `-O0`: every module that
//! `scripts/corpus.sh` builds with debug info (`<name>.g.ll`, clang `-g`) and optimized
//! (`<name>.O2.ll`, clang `-O2`) imports, goes through mem2reg and SCCP, and exports to IR
//! that `opt -passes=verify` and our verifier both accept (`common::export_checked`, the
//! `--emit ll` guard). The `-O0` modules' behaviour under `lli` is `tests/corpus_lli.rs`.
//!
//! Skips: a `-g` module must skip exactly what its `-O0` twin skips (debug records never
//! make a function unsupported); an `-O2` module skips none (the loop vectorizer's vectors
//! are IR values), and the test prints how many each skipped.
//!
//! The corpus and `opt` are built and installed on first use (`tests/common`); with
//! `STRATA_SKIP_CORPUS=1` the test prints `SKIPPED` instead when they are missing.

mod common;
use common::{
    corpus_dir, export_checked, missing_tools, require, run_passes, temp_dir,
    CORPUS_MODULES as MODULES,
};
use std::path::Path;
use strata::llvm::{import, ImportOptions};

/// The names of the functions import skips in `file`, with their reasons.
fn skipped(file: &Path) -> Vec<(String, String)> {
    let src = std::fs::read_to_string(file).unwrap();
    let imp = import(&src, &file.display().to_string(), &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    imp.skipped
        .iter()
        .map(|s| (s.name.clone(), s.reason.clone()))
        .collect()
}

#[test]
fn debug_info_and_o2_modules_import_transform_and_verify() {
    let test = "debug_info_and_o2_modules_import_transform_and_verify";
    let missing: Vec<String> = MODULES
        .iter()
        .flat_map(|m| [format!("{m}.ll"), format!("{m}.g.ll"), format!("{m}.O2.ll")])
        .filter(|f| !corpus_dir().join(f).exists())
        .collect();
    let reason = if missing.is_empty() {
        missing_tools(&["opt"])
    } else {
        Some(format!(
            "{} missing (run `bash scripts/corpus.sh`)",
            missing.join(", ")
        ))
    };
    if !require(test, reason) {
        return;
    }
    let dir = temp_dir("corpus-flavours", "all");
    let mut report = Vec::new();
    for module in MODULES {
        let o0: Vec<String> = skipped(&corpus_dir().join(format!("{module}.ll")))
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        for flavour in ["g", "O2"] {
            let file = corpus_dir().join(format!("{module}.{flavour}.ll"));
            let src = std::fs::read_to_string(&file).unwrap();
            let mut imp = import(&src, module, &ImportOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let names: Vec<String> = imp.skipped.iter().map(|s| s.name.clone()).collect();
            if flavour == "g" {
                assert_eq!(
                    names,
                    o0,
                    "{}: -g skips other functions than -O0",
                    file.display()
                );
            } else {
                // No function is skipped at -O2 either (vectors are IR values).
                let skipped: Vec<_> = imp
                    .skipped
                    .iter()
                    .map(|s| format!("@{} ({})", s.name, s.reason))
                    .collect();
                assert!(
                    skipped.is_empty(),
                    "{}: skipped {skipped:?}",
                    file.display()
                );
            }
            report.push(format!(
                "{module}.{flavour}: {} functions, {} skipped",
                imp.module.functions.len(),
                names.len()
            ));
            run_passes(&mut imp, "mem2reg,sccp", module);
            export_checked(
                &imp,
                &dir.join(format!("{module}.{flavour}.mem2reg-sccp.ll")),
            );
        }
    }
    eprintln!("{}", report.join("\n"));
    if std::env::var_os("STRATA_KEEP_TMP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

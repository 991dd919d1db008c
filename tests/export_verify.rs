//! The `--emit ll` guard (issue 21): every LLVM export of generated functions, as imported
//! and after each transforming pipeline that can end in SSA, goes through `opt
//! -passes=verify` and through our verifier (on the module before export and on the
//! export imported back); the two verdicts must agree, and on valid input both must accept.
//! Then the same functions with one used definition removed (the shape of the SCCP bug this
//! guard was written for): both verifiers must reject.
//!
//! Inputs: memory-form functions and modules with calls ([`strata::fuzzing::generate`]),
//! SSA functions with phis, loops and switches ([`strata::fuzzing::generate_ssa`]) and
//! functions with dead code behind constant branches
//! ([`strata::fuzzing::sccp::dead_region_function`]) and functions computing with vectors
//! ([`strata::fuzzing::vectors::vector_function`]).
//!
//! `opt` is installed on first use (`tests/common`); with `STRATA_SKIP_CORPUS=1` and no
//! `opt` the test says `SKIPPED`; our verifier's half runs either way.

mod common;
use common::{missing_tools, require, temp_dir};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use strata::engine::{Engine, PassSet, PipelineConfig};
use strata::fuzzing::generate::{self, seed_bytes, GenOptions};
use strata::fuzzing::generate_ssa::{ssa_function, SsaGenOptions};
use strata::fuzzing::sccp::dead_region_function;
use strata::fuzzing::vectors::vector_function;
use strata::ir::{InstKind, Module, ModuleBuilder, Operand, Phase};
use strata::llvm::{export, import, ImportOptions, LlvmContext};

/// The pipelines whose output `--emit ll` prints (none of them leaves SSA).
const PIPELINES: [&str; 4] = ["none", "mem2reg", "mem2reg,sccp", "mem2reg,sccp,placement"];

fn module_of(f: strata::ir::Function) -> Module {
    let mut m = ModuleBuilder::new();
    m.declare_function(&f.name, f.signature.clone());
    m.define_function(f);
    m.finish()
}

/// Generated modules, each valid for our verifier.
fn inputs() -> Vec<Module> {
    let mut out = Vec::new();
    for seed in 0..40u64 {
        let data = seed_bytes(0xe1_0000 + seed, 4096);
        let mut u = arbitrary::Unstructured::new(&data);
        let m = match seed % 4 {
            0 => generate::module(&mut u, &GenOptions::default()),
            1 => generate::function(&mut u, &GenOptions::default()).map(module_of),
            2 => ssa_function(&mut u, &SsaGenOptions::default()).map(module_of),
            _ => dead_region_function(&mut u).map(module_of),
        };
        if let Ok(m) = m {
            assert!(
                strata::verify::verify_module(&m).is_empty(),
                "generator made invalid IR"
            );
            out.push(m);
        }
    }
    // Functions computing with vectors (element ops, shuffles, lane-wise selects and casts,
    // vector slots).
    for seed in 0..12u64 {
        let data = seed_bytes(0xe1_7ec0 + seed, 2048);
        if let Ok(f) = vector_function(&mut arbitrary::Unstructured::new(&data)) {
            let m = module_of(f);
            assert!(
                strata::verify::verify_module(&m).is_empty(),
                "generator made invalid IR"
            );
            out.push(m);
        }
    }
    assert!(out.len() >= 40, "only {} inputs generated", out.len());
    out
}

/// Runs `passes` on every function of `m` (unless `none`).
fn run(m: &Module, passes: &str) -> Module {
    let mut m = m.clone();
    if passes == "none" {
        return m;
    }
    let symbols = Arc::new(m.symbol_table());
    let mut engine = Engine::new(PipelineConfig::new(PassSet::parse(passes).unwrap()));
    for f in std::mem::take(&mut m.functions) {
        let r = engine.run(f, &symbols);
        assert!(!r.has_errors(), "{passes}: {:?}", r.diagnostics);
        m.functions.push(r.function);
    }
    m
}

/// Our verdict on `m` as exported: the module itself and its export imported back.
/// `Err` carries the first complaint.
fn ours(m: &Module, text: &str) -> Result<(), String> {
    if let Some(e) = strata::verify::verify_module(m).first() {
        return Err(format!("before export: {e}"));
    }
    let imp = import(text, "export.ll", &ImportOptions::default())
        .map_err(|e| format!("re-import: {e}"))?;
    if let Some(s) = imp.skipped.first() {
        return Err(format!("re-import skipped @{}", s.name));
    }
    imp.verify().map_err(|e| format!("after re-import: {e}"))
}

/// `opt -passes=verify`'s verdict on the file.
fn opt_verdict(path: &Path) -> Result<(), String> {
    let v = Command::new("opt")
        .args(["-passes=verify", "-disable-output"])
        .arg(path)
        .output()
        .expect("opt runs");
    if v.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&v.stderr).into_owned())
    }
}

/// Removes the first listed instruction (not a phi, not in the entry's first position)
/// whose single result some other listed instruction uses: what a pass that deletes a
/// definition and keeps a use leaves. `None` if the module has no such instruction.
fn remove_a_used_definition(m: &Module) -> Option<Module> {
    let mut m = m.clone();
    for f in &mut m.functions {
        let mut used = vec![false; f.values.len()];
        for b in f.blocks.iter().filter(|b| !b.dead) {
            for &i in &b.insts {
                f.insts[i.index()].kind.for_each_operand(|o| {
                    if let Operand::Value(v) = o {
                        used[v.index()] = true;
                    }
                });
            }
            b.terminator.for_each_operand(|o| {
                if let Operand::Value(v) = o {
                    used[v.index()] = true;
                }
            });
        }
        for b in 0..f.blocks.len() {
            if f.blocks[b].dead {
                continue;
            }
            let victim = f.blocks[b].insts.iter().position(|&i| {
                let data = &f.insts[i.index()];
                !matches!(data.kind, InstKind::Phi { .. })
                    && matches!(data.results.as_slice(), [v] if used[v.index()])
            });
            if let Some(k) = victim {
                f.blocks[b].insts.remove(k);
                return Some(m);
            }
        }
    }
    None
}

#[test]
fn opt_and_our_verifier_agree_on_every_export_of_generated_functions() {
    let with_opt = require(
        "export_verify: opt_and_our_verifier_agree",
        missing_tools(&["opt"]),
    );
    let dir = temp_dir("export-verify", "agree");
    let inputs = inputs();
    let mut checked = 0;
    let mut broken = 0;
    for (n, input) in inputs.iter().enumerate() {
        for passes in PIPELINES {
            let m = run(input, passes);
            assert!(
                m.functions.iter().all(|f| f.phase <= Phase::Placed),
                "{passes} left SSA"
            );
            let text = export(&m, &LlvmContext::default());
            let mine = ours(&m, &text);
            if with_opt {
                let path = dir.join(format!("m{n}-{}.ll", passes.replace(',', "-")));
                std::fs::write(&path, &text).unwrap();
                let theirs = opt_verdict(&path);
                assert_eq!(
                    mine.is_ok(),
                    theirs.is_ok(),
                    "verifiers disagree on {} ({passes}): ours {mine:?}, opt {theirs:?}",
                    path.display()
                );
            }
            assert_eq!(mine, Ok(()), "input {n} after {passes}");
            checked += 1;
            // The same output with a used definition removed: both reject.
            if let Some(bad) = remove_a_used_definition(&m) {
                let text = export(&bad, &LlvmContext::default());
                assert!(
                    !strata::verify::verify_module(&bad).is_empty(),
                    "our verifier accepted a use of a removed definition (input {n}, {passes})"
                );
                if with_opt {
                    let path = dir.join(format!("bad{n}-{}.ll", passes.replace(',', "-")));
                    std::fs::write(&path, &text).unwrap();
                    assert!(
                        opt_verdict(&path).is_err(),
                        "opt accepted {}, which uses a removed definition",
                        path.display()
                    );
                }
                broken += 1;
            }
        }
    }
    assert!(
        checked >= 120 && broken >= 60,
        "{checked} checked, {broken} broken"
    );
    std::fs::remove_dir_all(&dir).ok();
}

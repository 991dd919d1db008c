//! Every function of the committed `.ll` fixtures, the built-in example corpus and the C
//! corpora (zlib, bzip2, lua, jq, tcc) lowers for both targets with no refusal (aggregates,
//! `i128`, `x86_fp80` and vectors included), passes the machine verifier, survives a print/parse round
//! trip of its machine text (fixtures and examples), and is allocated by our allocator and by
//! regalloc2, with both regalloc2's checker and ours accepting each allocation.

use std::path::Path;
use strata::api::{lower_module, machine_config};
use strata::engine::PassSet;
use strata::machine::function::MachineFunction;
use strata::regalloc::driver::{allocate_machine, check_ours};
use strata::stage::Allocator;

/// Allocates `f` with ours and with regalloc2; regalloc2's checker judges each inside
/// `allocate_machine`, ours here. The first failure, or the instruction count.
fn allocate_both(f: &MachineFunction, arch: Arch) -> Result<(), String> {
    for allocator in [Allocator::Ion, Allocator::Regalloc2] {
        let run = allocate_machine(f, &f.name, arch, allocator)
            .map_err(|e| format!("{allocator:?}: {e}"))?;
        assert_eq!(run.output.inst_alloc_offsets.len(), f.ops.len());
        check_ours(f, &f.name, arch, &run.output).map_err(|e| format!("{allocator:?}: {e}"))?;
    }
    Ok(())
}
use strata::machine::text::{parse_functions, print_function};
use strata::stage::Arch;

fn modules() -> Vec<(String, strata::ir::Module)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(root.join("tests/fixtures/ll"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let imported = strata::llvm::import(&text, &name, &Default::default()).unwrap();
        out.push((name, imported.module));
    }
    let mut paths: Vec<_> = std::fs::read_dir(root.join("examples/sir"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sir"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        out.push((
            name.clone(),
            strata::text::parse_module(&text, &name).unwrap(),
        ));
    }
    assert!(out.len() >= 4, "fixtures and examples are missing");
    out
}

#[test]
fn every_function_lowers_and_both_allocators_allocate_it() {
    let mut functions = 0;
    let mut failures = Vec::new();
    for arch in Arch::ALL {
        let config = machine_config(PassSet::default_pipeline(), arch);
        for (name, module) in modules() {
            for lowered in lower_module(&module, &config) {
                // Nothing is refused: aggregates, i128, x86_fp80 and vectors are split into
                // parts.
                let f = match lowered.result {
                    Ok(f) => f,
                    Err(e) => {
                        failures.push((0, format!("{name} ({}): refused: {e}", arch.name())));
                        continue;
                    }
                };
                let errors = strata::machine::verify::verify(&f);
                assert!(errors.is_empty(), "{name}: @{}: {errors:?}", f.name);
                let text = print_function(&f);
                let back = parse_functions(&text, &name).unwrap();
                assert_eq!(back.len(), 1);
                assert_eq!(print_function(&back[0]), text, "{name}: @{}", f.name);
                if let Err(e) = allocate_both(&f, arch) {
                    failures.push((
                        f.ops.len(),
                        format!(
                            "{name} ({}): {}\n{text}",
                            arch.name(),
                            &e[..e.len().min(600)]
                        ),
                    ));
                    continue;
                }
                functions += 1;
            }
        }
    }
    failures.sort_by_key(|f| f.0);
    if let Some(f) = failures.first() {
        panic!("{} functions fail; smallest:\n{}", failures.len(), f.1);
    }
    assert!(functions > 20, "only {functions} functions lowered");
    eprintln!("{functions} functions allocated and accepted by both checkers, none refused");
}

mod common;

/// The C corpora (`bash scripts/corpus.sh` builds them into `target/corpus/`): every
/// function of `name` lowers for both targets (zero refusals) and both checkers accept our
/// allocation and regalloc2's. The `-O0` modules, one test per module and target so that
/// the test threads share them (both checkers on both allocations dominate, in a debug
/// build, and SQLite is half of it);
/// `strata compile M --target T --emit alloc --check` covers the `.g` and `.O2` ones (too
/// slow for a debug test; see [`computed_goto_with_phis_lowers_and_allocates`] for the one
/// construct only `-O2` has).
fn corpus_functions_lower_and_allocate(test: &str, name: &str, arch: Arch) {
    let path = common::corpus_dir().join(name);
    let reason = (!path.exists())
        .then(|| format!("{} missing (run `bash scripts/corpus.sh`)", path.display()));
    if !common::require(test, reason) {
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let imported = strata::llvm::import(&text, name, &Default::default()).unwrap();
    // A function the importer skipped would escape the "every function" claim.
    let skipped: Vec<String> = imported
        .skipped
        .iter()
        .map(|s| format!("@{} ({})", s.name, s.reason))
        .collect();
    assert!(skipped.is_empty(), "{name}: skipped {skipped:?}");
    let module = imported.module;
    let config = machine_config(PassSet::default_pipeline(), arch);
    let mut failures = Vec::new();
    let lowered = lower_module(&module, &config);
    assert!(!lowered.is_empty(), "{name}: no function");
    for l in lowered {
        match l.result {
            Ok(f) => {
                if let Err(e) = allocate_both(&f, arch) {
                    failures.push(e.chars().take(300).collect::<String>());
                }
            }
            Err(e) => failures.push(format!("refused: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{name} ({}): {} functions fail, first: {}",
        arch.name(),
        failures.len(),
        failures[0]
    );
    eprintln!(
        "{name} ({}): {} functions lowered, none refused, both checkers accept",
        arch.name(),
        module.functions.len()
    );
}

/// One test per `-O0` corpus module and target: [`corpus_functions_lower_and_allocate`].
macro_rules! corpus_module_tests {
    ($($test:ident: $file:literal, $arch:ident;)*) => {
        $(
            #[test]
            fn $test() {
                corpus_functions_lower_and_allocate(stringify!($test), $file, Arch::$arch);
            }
        )*
    };
}

corpus_module_tests! {
    zlib_x86_64_functions_lower_and_allocate: "zlib.ll", X86_64;
    zlib_aarch64_functions_lower_and_allocate: "zlib.ll", Aarch64;
    bzip2_x86_64_functions_lower_and_allocate: "bzip2.ll", X86_64;
    bzip2_aarch64_functions_lower_and_allocate: "bzip2.ll", Aarch64;
    lua_x86_64_functions_lower_and_allocate: "lua.ll", X86_64;
    lua_aarch64_functions_lower_and_allocate: "lua.ll", Aarch64;
    jq_x86_64_functions_lower_and_allocate: "jq.ll", X86_64;
    jq_aarch64_functions_lower_and_allocate: "jq.ll", Aarch64;
    tcc_x86_64_functions_lower_and_allocate: "tcc.ll", X86_64;
    tcc_aarch64_functions_lower_and_allocate: "tcc.ll", Aarch64;
    xxhash_x86_64_functions_lower_and_allocate: "xxhash.ll", X86_64;
    xxhash_aarch64_functions_lower_and_allocate: "xxhash.ll", Aarch64;
    sqlite_x86_64_functions_lower_and_allocate: "sqlite.ll", X86_64;
    sqlite_aarch64_functions_lower_and_allocate: "sqlite.ll", Aarch64;
    jansson_x86_64_functions_lower_and_allocate: "jansson.ll", X86_64;
    jansson_aarch64_functions_lower_and_allocate: "jansson.ll", Aarch64;
}

/// clang -O2's `luaV_execute` (lua's interpreter loop, a computed goto: `indirectbr` into
/// blocks whose phis `block-params` keeps) lowers for both targets and both checkers accept
/// both allocators' results.
#[test]
fn computed_goto_with_phis_lowers_and_allocates() {
    let path = common::corpus_dir().join("lua.O2.ll");
    let reason = (!path.exists())
        .then(|| format!("{} missing (run `bash scripts/corpus.sh`)", path.display()));
    if !common::require("computed_goto_with_phis_lowers_and_allocates", reason) {
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let module = strata::llvm::import(&text, "lua.O2.ll", &Default::default())
        .unwrap()
        .module;
    for arch in Arch::ALL {
        let config = machine_config(PassSet::default_pipeline(), arch);
        let lowered = lower_module(&module, &config);
        let l = lowered
            .into_iter()
            .find(|l| l.name == "luaV_execute")
            .expect("luaV_execute is in lua.O2.ll");
        let f = l
            .result
            .unwrap_or_else(|e| panic!("{}: refused: {e}", arch.name()));
        allocate_both(&f, arch).unwrap_or_else(|e| panic!("{}: {e}", arch.name()));
    }
}

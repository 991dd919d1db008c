//! Machine-form filetests: `tests/machine/**/*.mir` (machine text in) and
//! `tests/machine/**/*.sir` (strata IR in, lowered).
//!
//! The first line names the test: `; test <kind> [arguments]`; the expected output is the
//! comment block after `; ---- expected ----` (as in `tests/filetests.rs`); `BLESS=1`
//! rewrites it from the actual output. Kinds:
//!
//! - `machine TARGET` (`.mir`): the parsed functions printed (printing must be a fixed point
//!   of parse-print), the machine verifier's findings, then regalloc2's allocation for
//!   TARGET's registers, printed with its moves after its checker accepted it.
//! - `machine-parse-error` (`.mir`): the located parse error.
//! - `lower TARGET...` (`.sir`): each function after the default pipeline with block
//!   parameters and lowering for each TARGET, as machine text (or the lowering error), then
//!   whether regalloc2 allocates it with its checker and ours accepting the allocation.

mod common;

use std::fmt::Write as _;
use std::path::Path;
use strata::api::{lower_module, machine_config};
use strata::engine::PassSet;
use strata::machine::text::{parse_functions, print_function};
use strata::regalloc::driver::{
    allocate_in, allocate_machine, allocate_regalloc2, check_ours, print_allocated,
    print_allocated_annotated,
};
use strata::stage::Allocator;
use strata::stage::Arch;

fn arch(name: &str, path: &Path) -> Arch {
    Arch::from_name(name).unwrap_or_else(|| panic!("{}: unknown target `{name}`", path.display()))
}

fn actual(kind: &str, args: &str, input: &str, path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let name = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    match kind {
        "machine-parse-error" => match parse_functions(input, &name) {
            Ok(_) => "parsed without error\n".into(),
            Err(e) => format!("{e}\n"),
        },
        "machine" => {
            let target = arch(args.trim(), path);
            let fs = match parse_functions(input, &name) {
                Ok(fs) => fs,
                Err(e) => return format!("parse error: {e}\n"),
            };
            let mut out = String::new();
            for f in &fs {
                let printed = print_function(f);
                let again = parse_functions(&printed, &name).unwrap();
                assert_eq!(
                    print_function(&again[0]),
                    printed,
                    "{name}: not a fixed point"
                );
                let errors = strata::machine::verify::verify(f);
                if errors.is_empty() {
                    writeln!(out, "verify @{}: ok", f.name).unwrap();
                    // Ours (regalloc2's checker judges it inside), printed; regalloc2 must
                    // allocate the same function too.
                    match allocate_machine(f, &f.name, target, Allocator::Ion) {
                        Ok(run) => {
                            check_ours(f, &f.name, target, &run.output)
                                .unwrap_or_else(|e| panic!("{name}: {e}"));
                            out += &print_allocated(f, &run.output)
                        }
                        Err(e) => writeln!(out, "ion: {e}").unwrap(),
                    }
                    if let Err(e) = allocate_regalloc2(f, target) {
                        writeln!(out, "regalloc2: {e}").unwrap();
                    }
                } else {
                    for e in errors {
                        writeln!(out, "verify @{}: {e}", f.name).unwrap();
                    }
                }
            }
            out
        }
        "lower" => {
            let module = match strata::text::parse_module(input, &name) {
                Ok(m) => m,
                Err(e) => return format!("parse error: {e}\n"),
            };
            let mut out = String::new();
            for t in args.split_whitespace() {
                let config = machine_config(PassSet::default_pipeline(), arch(t, path));
                for l in lower_module(&module, &config) {
                    match l.result {
                        Ok(f) => {
                            out += &print_function(&f);
                            // Allocated by ours and by regalloc2 (regalloc2's checker runs
                            // inside), each judged by our checker too.
                            let a = arch(t, path);
                            let verdict = allocate_machine(&f, &f.name, a, Allocator::Ion)
                                .and_then(|run| check_ours(&f, &f.name, a, &run.output))
                                .and_then(|_| allocate_regalloc2(&f, a))
                                .and_then(|run| check_ours(&f, &f.name, a, &run.output));
                            match verdict {
                                Ok(_) => writeln!(out, "allocated: both checkers accept").unwrap(),
                                Err(e) => writeln!(out, "allocation rejected: {e}").unwrap(),
                            }
                        }
                        Err(e) => writeln!(out, "error: {e}").unwrap(),
                    }
                }
            }
            out
        }
        "alloc" => alloc_test(args, input, path, &name),
        other => panic!("{}: unknown test kind `{other}`", path.display()),
    }
}

/// `; test alloc TARGET [regs=N] [expect=STAT,...]`: our allocator on each function, in the
/// target's environment cut to its first N registers per class, with `--annotate`'s
/// annotations as the expectation; regalloc2's checker (inside `allocate_in`) and ours must
/// accept, and every counter named by `expect=` (evictions, splits, minimal_splits,
/// second_chance, relocated, spilled, spill_slots, moves_intra, moves_edge, moves_fixup,
/// redundant) must be positive, so the test cannot pass without exercising what it is about.
fn alloc_test(args: &str, input: &str, path: &Path, name: &str) -> String {
    let mut words = args.split_whitespace();
    let target = arch(words.next().expect("alloc needs a target"), path);
    let (mut regs, mut expect) = (None, Vec::new());
    for w in words {
        if let Some(n) = w.strip_prefix("regs=") {
            regs = Some(n.parse::<usize>().expect("regs=N"));
        } else if let Some(list) = w.strip_prefix("expect=") {
            expect = list.split(',').map(str::to_string).collect();
        } else {
            panic!("{}: unknown alloc argument `{w}`", path.display());
        }
    }
    let mut env = strata::machine::targets::TargetDesc::new(target).env;
    if let Some(n) = regs {
        for c in 0..3 {
            let keep_pref = env.preferred[c].len().min(n);
            env.preferred[c].truncate(keep_pref);
            env.non_preferred[c].truncate(n - keep_pref);
        }
    }
    let fs = match parse_functions(input, name) {
        Ok(fs) => fs,
        Err(e) => return format!("parse error: {e}\n"),
    };
    let mut ctx = strata::regalloc::ion::IonContext::default();
    ctx.state.annotate = true;
    let mut out = String::new();
    for f in &fs {
        let errors = strata::machine::verify::verify(f);
        assert!(errors.is_empty(), "{name}: @{}: {errors:?}", f.name);
        match allocate_in(f, &f.name, &env, Allocator::Ion, &mut ctx) {
            Ok(run) => {
                let verdict = strata::regalloc::checker::check(
                    f,
                    &env,
                    strata::machine::PRegSet::empty(),
                    &run.output,
                );
                assert!(verdict.is_ok(), "{name}: our checker: {verdict:?}");
                let stats = serde_json::to_value(run.stats).expect("stats serialise");
                for k in &expect {
                    let v = stats.get(k.as_str()).and_then(|v| v.as_u64());
                    assert!(
                        v.is_some_and(|v| v > 0),
                        "{name}: @{}: expected some {k}, got {v:?}",
                        f.name
                    );
                }
                out += &print_allocated_annotated(f, &run.output, &run.annotations);
            }
            Err(e) => writeln!(out, "ion: {e}").unwrap(),
        }
    }
    out
}

#[test]
fn machine_filetests() {
    common::filetest::run(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/machine"),
        &["mir", "sir"],
        "machine filetests",
        8,
        actual,
    );
}

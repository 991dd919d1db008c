//! End-to-end tests of the `strata` binary: every command on the example programs, exit
//! codes, located errors on malformed input, and the built-in bench.

mod common;
use common::cli::{run_with_stdin, strata, strata_stdin, text};
use common::{missing_tools, require};
use std::path::Path;
use std::process::Command;

/// Each example's output and `@main` result, worked out by hand from the C it was written
/// from. `run` prints the output on stdout, the result on stderr and exits with the result's
/// low 8 bits, as `lli` does.
const EXPECTED: &[(&str, &str, i64)] = &[
    ("array_sum", "", 31),
    ("bytecode_vm", "", 84),
    ("factorial", "", 120),
    ("fibonacci", "", 6765),
    ("hello_printf", "hi\nsum=42\n", 0),
    ("loop_entry", "", 111),
    ("newton_sqrt", "", 1414),
    ("ssa_sum", "", 5050),
];

#[test]
fn run_every_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sir");
    let count = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        count,
        EXPECTED.len(),
        "every example needs an expected result here"
    );
    for (name, output, result) in EXPECTED {
        let path = format!("examples/sir/{name}.sir");
        let out = strata(&["run", &path, "--entry", "main"]);
        assert_eq!(
            out.status.code(),
            Some((result & 0xff) as i32),
            "{name}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), *output, "{name}");
        assert_eq!(text(&out.stderr), format!("=> i32 {result}\n"), "{name}");
        let out = strata(&["verify", &path]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
    }
}

#[test]
fn compile_round_trips_examples() {
    for (name, _, _) in EXPECTED {
        let path = format!("examples/sir/{name}.sir");
        let first = strata(&["compile", &path]);
        assert!(first.status.success(), "{name}: {}", text(&first.stderr));
        let again = strata_stdin(&["compile", "-", "--passes", "none"], text(&first.stdout));
        assert!(again.status.success(), "{name}: {}", text(&again.stderr));
        assert_eq!(text(&first.stdout), text(&again.stdout), "{name}");
    }
}

#[test]
fn run_passes_arguments_by_type() {
    let out = strata(&[
        "run",
        "tests/filetests/run/arithmetic_edges.sir",
        "--entry",
        "sdiv",
        "-7",
        "2",
    ]);
    // The entry's result is the status, as with `lli --entry-function`: -3 is 253.
    assert_eq!(out.status.code(), Some(253), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "=> i32 -3\n");
    assert!(out.stdout.is_empty());
    let out = strata(&[
        "run",
        "tests/filetests/run/arithmetic_edges.sir",
        "--entry",
        "div0",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("@div0 block0 inst0: division by zero"),
        "{}",
        text(&out.stderr)
    );
    let out = strata(&[
        "run",
        "tests/filetests/run/arithmetic_edges.sir",
        "--entry",
        "sdiv",
        "1",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "wrong argument count is a usage error"
    );
}

#[test]
fn malformed_input_is_located_and_fails() {
    let out = strata_stdin(
        &["compile", "-"],
        "func @f() -> i32 {\nblock0:\n  v1 = add i32 1, \n  ret i32 v1\n}\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: <stdin>:4:3: expected"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let out = strata(&["verify", "tests/filetests/verify/type_errors.sir"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr)
        .contains("function @types, block0, inst0: operand 2 of `add` has type i64, expected i32"));
    let out = strata(&["verify", "no/such/file.sir"]);
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn compile_flags() {
    let out = strata(&["compile", "examples/sir/factorial.sir", "--check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--check judges an allocation: it needs --emit alloc"));
    // Machine passes without a machine: a usage error, not a pipeline that skips them.
    for pass in ["lower", "mem2reg,regalloc", "check"] {
        let out = strata(&["compile", "examples/sir/factorial.sir", "--passes", pass]);
        assert_eq!(out.status.code(), Some(2), "--passes {pass}");
        assert!(
            text(&out.stderr).contains("need --target"),
            "--passes {pass}: {}",
            text(&out.stderr)
        );
    }
    let out = strata(&["compile", "examples/sir/factorial.sir", "--passes", "bogus"]);
    assert_eq!(out.status.code(), Some(2));
    let out = strata(&[
        "compile",
        "examples/sir/factorial.sir",
        "--passes",
        "dominance",
        "--emit",
        "json",
        "--time-passes",
        "--verify-each",
        "--dump-after",
        "cfg",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["passes"], serde_json::json!(["cfg", "dominance"]));
    assert_eq!(json["functions"].as_array().unwrap().len(), 2);
    let err = text(&out.stderr);
    assert!(err.contains("; after cfg\nfunc @fact"), "{err}");
    assert!(err.contains("dominance"), "timing table: {err}");
    let help = strata(&["--help"]);
    let help = text(&help.stdout);
    assert!(
        help.contains("mem2reg") && help.contains("our symbolic checker"),
        "{help}"
    );
}

#[test]
fn bench_builtin_corpus_and_json() {
    let dir = std::env::temp_dir().join(format!("strata-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("report.json");
    let out = strata(&[
        "bench",
        "--generated",
        "50",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["failed_functions"], 0);
    assert!(report["functions"].as_u64().unwrap() >= 50 + 8);
    let out = strata(&[
        "bench",
        "examples/sir",
        "tests/filetests/text/error_unknown_opcode.sir",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a parse error fails the bench but the rest runs"
    );
    assert!(text(&out.stdout).contains("functions"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn default_bench_runs_the_whole_pipeline_and_explains_itself() {
    let out = strata(&["bench", "--generated", "5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let ran = stdout
        .lines()
        .find(|l| l.starts_with("Ran "))
        .unwrap_or_else(|| panic!("no Ran sentence: {stdout}"));
    for step in [
        "import",
        "mem2reg",
        "sccp",
        "lower (x86-64)",
        "regalloc (ours)",
        "check",
    ] {
        assert!(ran.contains(step), "{step} missing: {ran}");
    }
    assert!(ran.contains("5 generated functions"), "{ran}");
    // Every counter line carries a unit and a meaning.
    assert!(
        stdout.contains("allocas_promoted") && stdout.contains("allocas turned into SSA values"),
        "{stdout}"
    );
    let verdict = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("check ") && l.contains("accepted by our checker"))
        .unwrap_or_else(|| panic!("no checker verdict: {stdout}"));
    assert!(verdict.contains(" of "), "{verdict}");
    // The middle end alone: no machine passes.
    let out = strata(&["bench", "--generated", "5", "--target", "none"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("regalloc"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("Ran ")), "{stdout}");
}

#[test]
fn sccp_memory_limit_note_is_verbose() {
    let args = [
        "compile",
        "examples/sir/ssa_sum.sir",
        "--passes",
        "sccp",
        "--verify-each",
        "--sccp-memory-limit",
        "24",
    ];
    let out = strata(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("note"), "{}", text(&out.stderr));
    let out = strata(&[&args[..], &["--verbose"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "note: [sccp] SCCP lattice memory limit (24 bytes) exceeded for function @sum_to"
        ),
        "{err}"
    );
    assert!(text(&out.stdout).contains("phase optimized"));
}

#[test]
fn llvm_input_compiles_runs_and_benches_against_opt() {
    let fixture = "tests/fixtures/ll/vm.ll";
    // Import, the default SSA pipeline and export: the result verifies and runs like the input.
    let dir = std::env::temp_dir().join(format!("strata-ll-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_ll = dir.join("vm.out.ll");
    let out = strata(&[
        "compile",
        fixture,
        "--emit",
        "ll",
        "-o",
        out_ll.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = strata(&["verify", fixture]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let interpreted = strata(&["run", fixture, "--entry", "main"]);
    assert!(
        text(&interpreted.stderr).starts_with("=> "),
        "{}",
        text(&interpreted.stderr)
    );
    if require("cli: lli comparison", missing_tools(&["lli"])) {
        let a = Command::new("lli").arg(fixture).output().unwrap();
        let b = Command::new("lli").arg(&out_ll).output().unwrap();
        assert_eq!(a.stdout, b.stdout);
        assert_eq!(a.status.code(), b.status.code());
        // The interpreter agrees with lli on the program's output and status.
        assert_eq!(text(&interpreted.stdout), text(&a.stdout));
        assert_eq!(interpreted.status.code(), a.status.code());
    }
    // Out-of-SSA passes cannot be exported to LLVM.
    let out = strata(&[
        "compile",
        fixture,
        "--emit",
        "ll",
        "--passes",
        "mem2reg,phi-elim",
    ]);
    assert_eq!(out.status.code(), Some(2));
    if require("cli: bench --against-llvm", missing_tools(&["opt"])) {
        let json = dir.join("bench.json");
        let out = strata(&[
            "bench",
            "tests/fixtures/ll",
            "--against-llvm",
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains("against LLVM 14 opt") && stdout.contains("Promote"),
            "{stdout}"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let modules = report["modules"].as_array().unwrap();
        // aggregate_allocas, aggregates, builtins, floats, long_double, misc,
        // named_signatures, tables, vector_gep, vectors, vm
        assert_eq!(modules.len(), 11);
        for m in modules {
            assert!(
                m["llvm"]["seconds"]["PromotePass"].as_f64().is_some(),
                "{m}"
            );
            // mem2reg reports what it saw; -O2 fixtures (builtins, tables) have no promotable
            // allocas, so it places no phis there.
            if m["llvm"]["input"]["allocas"].as_u64() != Some(0) {
                assert!(m["stats"]["mem2reg.allocas_seen"].as_u64().is_some(), "{m}");
            }
            let promotes = m["stats"]["mem2reg.allocas_seen"].as_u64()
                != m["stats"]["mem2reg.rejected_escape_gep"].as_u64();
            if promotes && m["llvm"]["input"]["allocas"].as_u64() != Some(0) {
                assert!(m["stats"]["mem2reg.phis_placed"].as_u64().is_some(), "{m}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn place_problem_and_module() {
    let out = strata(&["place", "tests/placement_problems/hub.place"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    assert!(o.contains("cost 36"), "{o}");
    assert!(o.contains("island 0 interp"), "{o}");
    assert!(o.contains("level 0: 0"), "{o}");
    let out = strata(&[
        "place",
        "tests/placement_problems/hub.place",
        "--emit",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["cost"], 36);
    let out = strata(&[
        "place",
        "tests/placement_problems/hub.place",
        "--emit",
        "dot",
    ]);
    assert!(text(&out.stdout).starts_with("digraph"));
    let out = strata(&["place", "examples/sir/factorial.sir"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("function @"));
    // A --function that names nothing is a usage error, as `run --entry` is.
    let out = strata(&[
        "place",
        "examples/sir/factorial.sir",
        "--function",
        "nosuch",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("no function @nosuch"),
        "{}",
        text(&out.stderr)
    );
    let out = strata_stdin(
        &["place", "-"],
        "targets a\nblock x 1\nedge x -> y uniform 1\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("<stdin>:3:11: unknown block `y`")
            || text(&out.stderr).contains(":3:11: unknown block `y`"),
        "{}",
        text(&out.stderr)
    );
    let out = strata(&[
        "compile",
        "examples/sir/factorial.sir",
        "--passes",
        "placement",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `compile --targets` and `place --targets` read a user model; a bad model file is an error
/// naming FILE:LINE:COLUMN; `--placement-split` rewrites the IR and the result still runs.
#[test]
fn compile_and_place_with_a_target_model() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[[target]]\nname = \"a\"\nunsupported = 3\n").unwrap();
    let bad = bad.to_str().unwrap();
    for cmd in ["compile", "place"] {
        let out = strata(&[cmd, "examples/sir/factorial.sir", "--targets", bad]);
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let e = text(&out.stderr);
        assert!(e.contains("bad.toml:3:15: target model:"), "{cmd}: {e}");
    }
    let out = strata(&[
        "place",
        "examples/sir/factorial.sir",
        "--targets",
        "examples/targets/gpu.toml",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let split_model = dir.path().join("split.toml");
    std::fs::write(&split_model, strata::fuzzing::placement::SPLIT_MODEL).unwrap();
    let compiled = dir.path().join("out.sir");
    let out = strata(&[
        "compile",
        "examples/sir/array_sum.sir",
        "--passes",
        "mem2reg,sccp,placement",
        "--placement-split",
        "--stats",
        "--targets",
        split_model.to_str().unwrap(),
        "-o",
        compiled.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let e = text(&out.stderr);
    let created: u64 = e
        .lines()
        .filter_map(|l| l.split_once("placement.blocks_created = "))
        .map(|(_, n)| n.trim().parse::<u64>().unwrap())
        .sum();
    assert!(created > 0, "{e}");
    let before = strata(&["run", "examples/sir/array_sum.sir"]);
    let after = strata(&["run", compiled.to_str().unwrap()]);
    assert_eq!(before.status.code(), after.status.code());
    assert_eq!(text(&before.stdout), text(&after.stdout));
}

/// Issue 21's invalid outputs with exit 0: SCCP's output of the dead-switch reproducer
/// verifies (with `opt` when installed), and every `--emit ll` that cannot print the
/// pipeline's last phase is a usage error before any work that names what the user asked
/// for and what prints it.
#[test]
fn emit_ll_never_writes_what_llvm_rejects() {
    let fixture = "tests/fixtures/regressions/sccp_dead_switch.ll";
    let out = strata(&[
        "compile",
        fixture,
        "--passes",
        "mem2reg,sccp",
        "--emit",
        "ll",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ll = text(&out.stdout);
    assert!(
        !ll.contains("call void %t2(i8* %v5)") && ll.contains("ret void"),
        "{ll}"
    );
    if require(
        "cli: emit_ll_never_writes_what_llvm_rejects (opt)",
        missing_tools(&["opt"]),
    ) {
        let dir = std::env::temp_dir().join(format!("strata-cli-emit-ll-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.ll");
        std::fs::write(&path, &ll).unwrap();
        let v = Command::new("opt")
            .args(["-passes=verify", "-S", "-o", "/dev/null"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(v.status.success(), "{}", text(&v.stderr));
        std::fs::remove_dir_all(&dir).ok();
    }
    for target in ["x86-64", "aarch64"] {
        for passes in [None, Some("mem2reg,sccp")] {
            let mut args = vec!["compile", fixture, "--target", target, "--emit", "ll"];
            if let Some(p) = passes {
                args.extend(["--passes", p]);
            }
            let out = strata(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(out.stdout.is_empty(), "{args:?}");
            assert!(
                err.contains(&format!("--target {target}")) && err.contains("--emit machine"),
                "{args:?}: {err}"
            );
            // The user named neither phi-elim nor block-params.
            assert!(
                !err.contains("phi-elim") && !err.contains("block-params"),
                "{args:?}: {err}"
            );
        }
    }
    for pass in ["phi-elim", "block-params"] {
        let list = format!("mem2reg,{pass}");
        let out = strata(&["compile", fixture, "--passes", &list, "--emit", "ll"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("`{pass}` in --passes")) && err.contains("--emit sir"),
            "{err}"
        );
    }
    // An input already out of SSA cannot be printed as LLVM IR either.
    let destructed =
        "func @f(i32 v0) -> i32 phase destructed {\nblock0:\n  v1 = copy i32 v0\n  ret i32 v1\n}\n";
    let out = strata_stdin(
        &[
            "compile",
            "-",
            "--input-format",
            "sir",
            "--passes",
            "none",
            "--emit",
            "ll",
        ],
        destructed,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("phase `destructed`"), "{err}");
    // Without --passes, the default pipeline stops in SSA and says what it left out.
    let out = strata(&["compile", fixture, "--emit", "ll"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("phi-elim left out"),
        "{}",
        text(&out.stderr)
    );
}

/// `place --emit dot` on a module of several functions prints one graph (Graphviz renders one
/// graph per file) with a cluster per function; `dot` renders it when installed.
#[test]
fn place_dot_is_one_graph_with_a_cluster_per_function() {
    for input in ["examples/sir/factorial.sir", "tests/fixtures/ll/vm.ll"] {
        let out = strata(&["place", input, "--emit", "dot"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let dot = text(&out.stdout);
        assert_eq!(dot.matches("digraph").count(), 1, "{dot}");
        let functions = strata(&["place", input]);
        let count = text(&functions.stdout).matches("function @").count();
        assert!(count >= 2, "{input}: {}", text(&functions.stdout));
        let clusters = dot
            .lines()
            .filter(|l| l.contains("subgraph cluster_f") && !l.contains("_island"))
            .count();
        assert_eq!(clusters, count, "{dot}");
        // Graphviz is optional: render when it is installed.
        if common::have("dot") {
            let mut render = Command::new("dot");
            render.arg("-Tsvg");
            let svg = run_with_stdin(render, &dot);
            assert!(svg.status.success(), "{}\n{dot}", text(&svg.stderr));
            assert!(text(&svg.stderr).is_empty(), "{}", text(&svg.stderr));
            assert_eq!(text(&svg.stdout).matches("<svg").count(), 1);
        }
    }
}

/// `run` exits with the program's status, as `lli` does: main's result or `exit`'s code, low
/// 8 bits; the result line is on stderr and stdout holds only the program's output.
#[test]
fn run_exits_with_the_programs_status() {
    let returns = "func @main() -> i32 {\nblock0:\n  ret i32 217\n}\n";
    let out = strata_stdin(&["run", "-"], returns);
    assert_eq!(out.status.code(), Some(217), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert_eq!(text(&out.stderr), "=> i32 217\n");
    let exits = "extern @exit(i32) -> void\nextern @putchar(i32) -> i32\n\
                 func @main() -> i32 {\nblock0:\n  v0 = call i32 @putchar(i32 65)\n  \
                 call void @exit(i32 5)\n  ret i32 0\n}\n";
    let out = strata_stdin(&["run", "-"], exits);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "A");
    assert_eq!(text(&out.stderr), "=> exit 5\n");
    // 256 + 7: only the low 8 bits reach the shell, as under lli.
    let wraps = "func @main() -> i32 {\nblock0:\n  ret i32 263\n}\n";
    assert_eq!(strata_stdin(&["run", "-"], wraps).status.code(), Some(7));
}

/// The C library families `run` provides (`<string.h>`, `<ctype.h>` through glibc's macros and
/// the functions, formatted output to stdout and stderr), judged by `lli` on the same clang -O0
/// module: stdout, stderr (without `run`'s `=> result` line) and exit status are equal.
#[test]
fn run_agrees_with_lli_on_the_c_library() {
    let test = "cli: C library families against lli";
    if !require(test, missing_tools(&["clang-14", "lli"])) {
        return;
    }
    let dir = common::temp_dir("cli", "libc");
    for name in ["strings", "ctype", "output"] {
        let ll = dir.join(format!("{name}.ll"));
        let clang = Command::new("clang-14")
            .args(["-O0", "-S", "-emit-llvm", "-o"])
            .arg(&ll)
            .arg(format!("tests/c/libc/{name}.c"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(clang.status.success(), "{}", text(&clang.stderr));
        let lli = Command::new("lli").arg(&ll).output().unwrap();
        let ours = strata(&["run", ll.to_str().unwrap()]);
        let stderr = text(&ours.stderr);
        let (program_stderr, result) = stderr
            .trim_end()
            .rsplit_once('\n')
            .unwrap_or(("", stderr.trim_end()));
        assert!(result.starts_with("=> "), "{name}: {stderr}");
        assert!(!lli.stdout.is_empty(), "{name}");
        assert_eq!(text(&ours.stdout), text(&lli.stdout), "{name}");
        let program_stderr = if program_stderr.is_empty() {
            String::new()
        } else {
            format!("{program_stderr}\n")
        };
        assert_eq!(program_stderr, text(&lli.stderr), "{name}");
        assert_eq!(ours.status.code(), lli.status.code(), "{name}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `-` reads standard input in every command that reads IR, `.ll` is recognised from its
/// content without `--input-format`, and every such command takes `--input-format`.
#[test]
fn stdin_and_content_sniffing_in_every_command() {
    let ll = std::fs::read_to_string("tests/fixtures/ll/vm.ll").unwrap();
    let sir = std::fs::read_to_string("examples/sir/factorial.sir").unwrap();
    for (file, source) in [
        ("tests/fixtures/ll/vm.ll", &ll),
        ("examples/sir/factorial.sir", &sir),
    ] {
        for args in [
            &["compile"][..],
            &["verify"],
            &["run"],
            &["place"],
            &["bench", "--passes", "mem2reg"],
        ] {
            let direct = strata(&[args, &[file]].concat());
            let piped = strata_stdin(&[args, &["-"]].concat(), source);
            assert_eq!(
                piped.status.code(),
                direct.status.code(),
                "{args:?} {file}: {}",
                text(&piped.stderr)
            );
            if args[0] != "bench" {
                assert_eq!(text(&piped.stdout), text(&direct.stdout), "{args:?} {file}");
            }
            let format = if file.ends_with(".ll") { "ll" } else { "sir" };
            let forced = strata_stdin(&[args, &["-", "--input-format", format]].concat(), source);
            assert_eq!(
                forced.status.code(),
                direct.status.code(),
                "{args:?} {file}"
            );
        }
    }
    // A file named without an extension is recognised by its content too.
    let dir = common::temp_dir("cli", "sniff");
    let plain = dir.join("vm-without-extension");
    std::fs::write(&plain, &ll).unwrap();
    let out = strata(&["verify", plain.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

/// What `compile` leaves out or cannot do is said on stderr in a line: a pass `--emit` or
/// `--target` leaves out, a pipeline that cannot start from the input's phase (once, not once
/// per function), and `--keep-going` only when some function would be written.
#[test]
fn compile_says_what_it_leaves_out_in_one_line() {
    let destructed = strata(&[
        "compile",
        "examples/sir/factorial.sir",
        "--passes",
        "mem2reg,phi-elim",
    ]);
    assert!(destructed.status.success(), "{}", text(&destructed.stderr));
    let out = strata_stdin(&["compile", "-"], text(&destructed.stdout));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("phase destructed") && err.contains("nothing written"),
        "{err}"
    );
    assert!(!err.contains("--keep-going"), "{err}");
    // Some functions fine, one failing: --keep-going has something to write.
    let partial = format!(
        "{}\nfunc @extra() -> i32 {{\nblock0:\n  ret i32 1\n}}\n",
        text(&destructed.stdout)
    )
    .replace("func @extra() -> i32 {", "func @extra() -> i32 phase ssa {");
    let out = strata_stdin(&["compile", "-", "--passes", "sccp"], &partial);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--keep-going writes the others"), "{err}");
    let out = strata(&[
        "compile",
        "examples/sir/factorial.sir",
        "--emit",
        "alloc",
        "--target",
        "x86-64",
    ]);
    let err = text(&out.stderr);
    assert!(err.contains("phi-elim left out"), "{err}");
    let out = strata(&["compile", "examples/sir/factorial.sir", "--emit", "ll"]);
    assert!(text(&out.stderr).contains("phi-elim left out"));
}

/// The flags `strata <command> --help` lists (long names, and short ones such as `-o`),
/// without `--help` itself.
fn help_flags(command: &str) -> Vec<String> {
    let out = strata(&[command, "--help"]);
    assert!(out.status.success(), "{command}: {}", text(&out.stderr));
    let help = text(&out.stdout);
    let options = help
        .split_once("\nOptions:")
        .map_or("", |(_, rest)| rest)
        .split("\n\n\n")
        .next()
        .unwrap_or("");
    let mut flags = Vec::new();
    for line in options.lines() {
        let t = line.trim_start();
        if !t.starts_with('-') || line.len() - t.len() > 6 {
            continue;
        }
        for word in t.split([',', ' ']).filter(|w| w.starts_with('-')) {
            if word != "-h" && word != "--help" {
                flags.push(word.to_string());
            }
        }
    }
    flags
}

/// The README's Commands synopsis lists every flag each command's `--help` lists.
#[test]
fn readme_synopsis_lists_every_flag() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let section = readme
        .split_once("## Commands")
        .and_then(|(_, rest)| rest.split_once("```sh"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("README has a Commands section with a sh block");
    for command in ["compile", "verify", "run", "bench", "place", "fuzz"] {
        // The command's synopsis: its `strata <command>` line and the indented lines after it.
        let mut synopsis = String::new();
        let mut inside = false;
        for line in section.lines() {
            if line.starts_with("strata ") {
                inside = line.starts_with(&format!("strata {command} "));
            }
            if inside {
                synopsis.push_str(line);
                synopsis.push(' ');
            }
        }
        assert!(
            !synopsis.is_empty(),
            "README has no `strata {command}` line"
        );
        let flags = help_flags(command);
        assert!(flags.len() >= 2, "{command}: {flags:?}");
        for flag in flags {
            let listed = synopsis.match_indices(flag.as_str()).any(|(i, _)| {
                let next = synopsis[i + flag.len()..].chars().next();
                !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            });
            assert!(listed, "README's `strata {command}` synopsis lacks {flag}");
        }
    }
}

/// `strata fuzz text --seconds 1` runs the check for about a second on every core and prints
/// its summary line: executions, seconds, execs/s and the seed.
#[test]
fn fuzz_runs_a_system_and_prints_executions_per_second() {
    let out = strata(&["fuzz", "text", "--seconds", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(summary.starts_with("fuzz text: "), "{summary}");
    for part in ["executions in", "execs/s", "seed ", "no failure"] {
        assert!(summary.contains(part), "{part}: {summary}");
    }
}

/// An unknown system is a usage error that lists the systems.
#[test]
fn fuzz_unknown_system_is_a_usage_error() {
    let out = strata(&["fuzz", "nosuch", "--seconds", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for system in ["text", "sccp", "lowering", "ion_checker", "pipeline"] {
        assert!(err.contains(system), "{system}: {err}");
    }
}

/// An unknown `--target` is a usage error naming the accepted targets; `bench` also takes
/// `none`.
#[test]
fn unknown_target_is_a_usage_error_listing_the_targets() {
    let out = strata_stdin(&["compile", "--target", "sparc", "-"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown target `sparc` (x86-64, aarch64)"),
        "{err}"
    );
    let out = strata(&["bench", "--target", "sparc"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("(x86-64, aarch64, or none)"), "{err}");
}

/// `--reproduce` runs the check once on a file's bytes: exit 0 when it passes, 4 when the
/// file cannot be read.
#[test]
fn fuzz_reproduce_runs_the_check_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.bin");
    std::fs::write(&input, b"func @f() -> i32 {\nblock0:\n  ret i32 0\n}\n").unwrap();
    // Fuzz inputs are binary: NUL bytes are read like any other.
    let binary = dir.path().join("binary.bin");
    std::fs::write(&binary, [0u8, 1, 0, 255, 0, 7, 0, 0, 42]).unwrap();
    for path in [input.to_str().unwrap(), binary.to_str().unwrap()] {
        for system in ["text", "pipeline", "lowering"] {
            let out = strata(&["fuzz", system, "--reproduce", path]);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{system} {path}: {err}");
            assert!(text(&out.stdout).contains("passes"), "{err}");
        }
    }
    let missing = dir.path().join("missing.bin");
    let out = strata(&["fuzz", "text", "--reproduce", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
}

/// An initialiser the importer cannot evaluate (a product of an address) is a warning that
/// every command loading the module shows: `compile` on standard error, `bench` in its
/// report (text and JSON), and `--strict` turns it into an input error; `run` stops at the
/// first read of the global instead of computing with zeros.
#[test]
fn unevaluated_initialiser_is_reported_by_compile_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("unevaluated.ll");
    std::fs::write(
        &ll,
        "@y = global i32 5\n\
         @g = global i64 mul (i64 ptrtoint (i32* @y to i64), i64 3)\n\
         define i32 @main() {\n  %v = load i64, i64* @g\n  %t = trunc i64 %v to i32\n  ret i32 %t\n}\n",
    )
    .unwrap();
    let path = ll.to_str().unwrap();
    let compiled = strata(&["compile", path, "--emit", "sir"]);
    assert!(compiled.status.success(), "{}", text(&compiled.stderr));
    assert!(
        text(&compiled.stderr).contains("initializer of @g not evaluated"),
        "{}",
        text(&compiled.stderr)
    );
    let strict = strata(&["compile", path, "--strict"]);
    assert!(!strict.status.success());
    let run = strata(&["run", path]);
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stderr));
    assert!(
        text(&run.stderr).contains("initialiser was not evaluated"),
        "{}",
        text(&run.stderr)
    );
    let json = dir.path().join("report.json");
    let bench = strata(&[
        "bench",
        "--passes",
        "verify",
        path,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(bench.status.success(), "{}", text(&bench.stderr));
    assert!(
        text(&bench.stdout).contains("initializer of @g not evaluated"),
        "{}",
        text(&bench.stdout)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("@g"));
}

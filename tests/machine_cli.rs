//! `strata compile --target ... --emit machine|alloc`: exit codes and messages.

mod common;
use common::cli::{strata, text};

#[test]
fn emit_alloc_runs_to_allocated_code_on_both_targets() {
    for target in ["x86-64", "aarch64"] {
        let out = strata(&[
            "compile",
            "examples/sir/factorial.sir",
            "--target",
            target,
            "--emit",
            "alloc",
            "--stats",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains(&format!("target {target} spillslots")),
            "{stdout}"
        );
        assert!(stdout.contains("ret use"), "{stdout}");
        assert!(
            text(&out.stderr).contains("machine insts"),
            "{}",
            text(&out.stderr)
        );
        let out = strata(&[
            "compile",
            "examples/sir/factorial.sir",
            "--target",
            target,
            "--emit",
            "machine",
        ]);
        assert_eq!(out.status.code(), Some(0));
        let printed = text(&out.stdout);
        // Calls name their callees: the text parses back against the module's symbols.
        assert!(printed.contains("call @fact"), "{printed}");
        let module = strata::text::parse_module(
            &std::fs::read_to_string("examples/sir/factorial.sir").unwrap(),
            "factorial.sir",
        )
        .unwrap();
        let symbols: Vec<&str> = module.symbols.iter().map(|s| s.name.as_str()).collect();
        let parsed =
            strata::machine::text::parse_functions_with_symbols(&printed, "stdout", &symbols)
                .unwrap();
        assert!(!parsed.is_empty());
        assert_eq!(
            parsed
                .iter()
                .map(|f| strata::machine::text::print_function_with_symbols(f, &symbols))
                .collect::<Vec<_>>()
                .join("\n"),
            printed.trim_end_matches('\n').to_string() + "\n"
        );
    }
}

/// `--check` runs our symbolic checker on regalloc2's allocation: it accepts the intact one
/// (and `--stats` says how many functions it judged), and rejects each deliberate corruption
/// with a located error and exit code 1.
#[test]
fn check_accepts_regalloc2_output_and_rejects_corruptions() {
    for target in ["x86-64", "aarch64"] {
        let base = [
            "compile",
            "examples/sir/factorial.sir",
            "--target",
            target,
            "--emit",
            "alloc",
        ];
        let out = strata(&[&base[..], &["--check", "--stats"]].concat());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("accepted by our checker 2 "), "{stderr}");
        let out = strata(&[&base[..], &["--stats"]].concat());
        assert!(
            text(&out.stderr).contains("accepted by our checker 0 "),
            "{}",
            text(&out.stderr)
        );
        for kind in [
            "swap",
            "drop-move",
            "clobber",
            "edit-after-terminator",
            "stack-to-stack",
        ] {
            let out = strata(&[&base[..], &["--check", "--corrupt-allocation", kind]].concat());
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{kind}: {stderr}");
            assert!(
                stderr.contains("error: @fact: our checker rejects the allocation: block"),
                "{kind}: {stderr}"
            );
            assert!(out.stdout.is_empty(), "{kind}: nothing is written");
        }
    }
}

#[test]
fn machine_usage_and_input_errors() {
    let out = strata(&["compile", "examples/sir/factorial.sir", "--emit", "alloc"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("need --target"),
        "{}",
        text(&out.stderr)
    );
    let out = strata(&["compile", "examples/sir/factorial.sir", "--target", "mips"]);
    assert_eq!(out.status.code(), Some(2));
    let out = strata(&[
        "compile",
        "tests/machine/lower_errors.sir",
        "--target",
        "x86-64",
        "--emit",
        "alloc",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "@wide: block0 (terminator): switch on a value wider than 64 bits is not lowered"
        ),
        "{err}"
    );
    assert!(err.contains("nothing written"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
}

/// Functions with vector values lower and allocate on both targets with our checker
/// accepting (`vinsert`/`vextract` in xmm / v registers); a vector construct lowering still
/// refuses (a compare of `i128` lanes) is a located error naming the function and the
/// instruction, never a panic, and with `--keep-going` the other functions are still written.
#[test]
fn vector_functions_lower_and_unsupported_ones_are_located_errors() {
    let dir = std::env::temp_dir().join(format!("strata-vec-lower-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("mixed.sir");
    std::fs::write(
        &src,
        "func @lanes(i32 v0, i32 v3) -> i32 {\nblock0:\n  v1 = insertelement <4 x i32> zeroinitializer, i32 v0, i32 1\n  v2 = extractelement <4 x i32> v1, i32 v3\n  ret i32 v2\n}\nfunc @wide(<2 x i128> v0, <2 x i128> v1) -> <2 x i1> {\nblock0:\n  v2 = icmp eq <2 x i128> v0, v1\n  ret <2 x i1> v2\n}\nfunc @scalar(i32 v0) -> i32 {\nblock0:\n  v1 = add i32 v0, 1\n  ret i32 v1\n}\n",
    )
    .unwrap();
    for target in ["x86-64", "aarch64"] {
        let out = strata(&[
            "compile",
            src.to_str().unwrap(),
            "--target",
            target,
            "--emit",
            "alloc",
            "--check",
            "--keep-going",
        ]);
        let stderr = text(&out.stderr);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(
                "@wide: block0, inst0 (icmp): comparison of <2 x i128> (i128 lanes) is not lowered"
            ),
            "{stderr}"
        );
        assert!(!stderr.contains("@lanes"), "{stderr}");
        for name in ["@lanes", "@scalar", "vinsert.i32x4 #1"] {
            assert!(stdout.contains(name), "{name}: {stdout}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

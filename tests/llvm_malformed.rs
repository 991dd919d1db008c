//! Malformed `.ll` is an error, never a skipped function (issue 10, item 6).
//!
//! 1. A table of invalid inputs, each a one-place edit of a valid module (an unclosed body,
//!    an undefined value, label or global, type mismatches, a missing terminator, duplicate
//!    definitions, bad phis, a non-dominating use, `align 7`, wrong call arity, an
//!    unterminated string, an `extractvalue` index outside its aggregate, an `insertvalue`
//!    of the wrong member type), and edits of a `-g` module with multi-line metadata strings
//!    (undefined nodes in attachments, call arguments and nodes, an unterminated string, an
//!    unbalanced node): import and verification reject each at the expected
//!    `line:col`, and `strata compile` exits 1 with the location and writes no output file.
//! 2. The fuzz check: mutations (byte flips, deletions, spliced tokens, duplicated, swapped
//!    and truncated lines) of real clang output (the fixtures in `tests/fixtures/ll/`, the
//!    `-g` fixture `tests/fixtures/syntax/new_syntax.ll` with metadata call arguments, debug
//!    metadata, volatile atomics and vectors, `tests/fixtures/syntax/debug_multiline.ll`
//!    with metadata strings spanning lines, and,
//!    when built, the corpus of `scripts/corpus.sh`) never panic, and every mutant that
//!    strata accepts exports to IR that `opt -passes=verify` accepts. The count of mutants
//!    strata accepts although `opt` rejects the input itself is printed (malformed input that
//!    import repairs rather than rejects, such as a pointer operand of the wrong pointee
//!    type); it does not fail the test, because the export is valid.
//!
//! `STRATA_MUTANTS=N` and `STRATA_MUTANT_SEED=S` run longer or other mutant sets.
//!
//! `opt` and the corpus are installed and built on first use (`tests/common`); with
//! `STRATA_SKIP_CORPUS=1` the tests print `SKIPPED: ...` instead when they are missing.

mod common;
use common::{missing_tools, require, temp_dir};
use std::path::Path;
use std::process::Command;
use strata::fuzzing::llvm_import::{accepts, mutate, Rng};

const BASE: &str = r#"@g = global i32 5, align 4
@.str = private unnamed_addr constant [3 x i8] c"ab\00", align 1

declare i32 @puts(i8*)

define i32 @add(i32 %a, i32 %b) {
entry:
  %s = add i32 %a, %b
  ret i32 %s
}

define i32 @main() {
entry:
  %x = alloca i32, align 4
  store i32 1, i32* %x, align 4
  %v = load i32, i32* %x, align 4
  %c = icmp sgt i32 %v, 0
  br i1 %c, label %then, label %done
then:
  %r = call i32 @add(i32 %v, i32 2)
  br label %done
done:
  %p = phi i32 [ %r, %then ], [ 0, %entry ]
  %u = call i32 @puts(i8* getelementptr inbounds ([3 x i8], [3 x i8]* @.str, i64 0, i64 0))
  ret i32 %p
}
"#;

/// One invalid input: (name, text replaced in BASE, replacement, expected `line:col`,
/// expected message part).
type Case = (
    &'static str,
    &'static str,
    &'static str,
    (u32, u32),
    &'static str,
);

const INVALID: &[Case] = &[
    (
        "unclosed function body",
        "  ret i32 %p\n}",
        "  ret i32 %p",
        (25, 11),
        "not closed",
    ),
    (
        "undefined value",
        "%v, 0",
        "%w, 0",
        (17, 21),
        "undefined value %w",
    ),
    (
        "missing label",
        "label %done\nthen:",
        "label %nowhere\nthen:",
        (18, 32),
        "undefined block %nowhere",
    ),
    (
        "stored type differs from the pointer's",
        "store i32 1",
        "store i64 1",
        (15, 3),
        "store of i64 through i32*",
    ),
    (
        "loaded type differs from the pointer's",
        "load i32, i32* %x",
        "load i64, i32* %x",
        (16, 8),
        "load of i64 through i32*",
    ),
    (
        "operand of the wrong type",
        "ret i32 %s",
        "ret i64 %s",
        (9, 11),
        "%s has type i32",
    ),
    (
        "branch on a non-i1",
        "br i1 %c",
        "br i32 %c",
        (18, 3),
        "branch condition of type i32",
    ),
    (
        "missing terminator",
        "  %s = add i32 %a, %b\n  ret i32 %s",
        "  %s = add i32 %a, %b",
        (8, 20),
        "does not end with a terminator",
    ),
    (
        "duplicate value",
        "  %v = load i32, i32* %x, align 4",
        "  %v = load i32, i32* %x, align 4\n  %v = load i32, i32* %x, align 4",
        (17, 3),
        "defined twice",
    ),
    (
        "duplicate function",
        "define i32 @main() {",
        "define i32 @add() {\n  ret i32 0\n}\ndefine i32 @main() {",
        (12, 12),
        "redefinition of @add",
    ),
    (
        "phi naming a non-predecessor",
        "[ 0, %entry ]",
        "[ 0, %then ]",
        (12, 1),
        "phi has incoming blocks",
    ),
    (
        "phi with an extra entry",
        "[ 0, %entry ]",
        "[ 0, %entry ], [ 1, %then ]",
        (12, 1),
        "phi has incoming blocks",
    ),
    (
        "phi after a non-phi",
        "  ret i32 %p\n}",
        "  %q = phi i32 [ 1, %then ], [ 0, %entry ]\n  ret i32 %p\n}",
        (25, 8),
        "phi after a non-phi",
    ),
    (
        "undefined global",
        "i32* %x, align 4\n  %c",
        "i32* @nog, align 4\n  %c",
        (16, 23),
        "undefined symbol @nog",
    ),
    (
        "global of the wrong type",
        "i32* %x, align 4\n  %c",
        "i64* @g, align 4\n  %c",
        (16, 8),
        "load of i32 through i64*",
    ),
    (
        "global used with a wrong pointer type",
        "i32* %x, align 4\n  %c",
        "i32** bitcast (i32* @g to i32**), align 4\n  %c",
        (16, 8),
        "load of i32 through i32**",
    ),
    (
        "non-dominating use",
        "done:\n  %p = phi i32 [ %r, %then ], [ 0, %entry ]",
        "done:\n  %p = add i32 %r, 0",
        (12, 1),
        "dominated",
    ),
    (
        "alignment not a power of two",
        "align 4\n  store",
        "align 7\n  store",
        (14, 26),
        "alignment 7",
    ),
    (
        "call with too few arguments",
        "@add(i32 %v, i32 2)",
        "@add(i32 %v)",
        (20, 17),
        "called as i32 (i32)",
    ),
    (
        "call with too many arguments",
        "@add(i32 %v, i32 2)",
        "@add(i32 %v, i32 2, i32 3)",
        (20, 17),
        "called as i32 (i32, i32, i32)",
    ),
    (
        "unterminated string",
        "c\"ab\\00\"",
        "c\"ab",
        (2, 48),
        "not closed",
    ),
    (
        "extractvalue index outside the aggregate",
        "%s = add i32 %a, %b",
        "%s = extractvalue { i32, i32 } zeroinitializer, 2",
        (8, 8),
        "index 2 is out of range of { i32, i32 }",
    ),
    (
        "insertvalue of the wrong member type",
        "%s = add i32 %a, %b",
        "%t = insertvalue { i32, i32 } undef, i64 1, 0",
        (8, 8),
        "insertvalue of i64 into a member of type i32",
    ),
    (
        "unknown instruction",
        "%s = add i32",
        "%s = frobnicate i32",
        (8, 8),
        "unknown instruction `frobnicate`",
    ),
    (
        "source_filename after a definition",
        "declare i32 @puts(i8*)\n",
        "declare i32 @puts(i8*)\nsource_filename = \"x.c\"\n",
        (5, 1),
        "`source_filename` must come before every other top-level entity",
    ),
    (
        "a stray integer after a parameter type",
        "declare i32 @puts(i8*)",
        "declare i32 @puts(i8* -1)",
        (4, 23),
        "unexpected `-1`",
    ),
];

/// A `-g` module whose metadata strings span lines (a raw newline inside quotes, which
/// LLVM's lexer reads): the producer, the file name and directory, an `llvm.ident` string.
const DEBUG_BASE: &str = include_str!("fixtures/syntax/debug_multiline.ll");

/// Invalid edits of [`DEBUG_BASE`]: undefined nodes named by an instruction's attachment, by
/// a call's metadata argument and by a node after the multi-line strings (its line counts
/// the newlines inside them), an unterminated string at the end of the input, an unbalanced
/// specialized node, an `llvm.ident` operand that is not a string node.
const DEBUG_INVALID: &[Case] = &[
    (
        "undefined !dbg attachment",
        "store i32 3, i32* %x, align 4, !dbg !12",
        "store i32 3, i32* %x, align 4, !dbg !77",
        (7, 39),
        "undefined metadata !77",
    ),
    (
        "undefined !tbaa attachment",
        "store i32 3, i32* %x, align 4, !dbg !12",
        "store i32 3, i32* %x, align 4, !tbaa !55",
        (7, 40),
        "undefined metadata !55",
    ),
    (
        "undefined metadata call argument",
        "metadata !11, metadata",
        "metadata !99, metadata",
        (6, 58),
        "undefined metadata !99",
    ),
    (
        "undefined node after multi-line strings",
        "column: 7, scope: !7)",
        "column: 7, scope: !98)",
        (33, 46),
        "undefined metadata !98",
    ),
    (
        "unterminated multi-line string at the end",
        "scope: !7)\n",
        "scope: !7)\n!13 = !{!\"never\nclosed}\n",
        (34, 9),
        "expected metadata",
    ),
    (
        "unbalanced specialized node",
        "column: 7, scope: !7)",
        "column: 7, scope: !7",
        (33, 7),
        "unbalanced parentheses",
    ),
    (
        "llvm.ident operand without a string",
        "!5 = !{!\"multi",
        "!5 = !{\"multi",
        (24, 1),
        "invalid llvm.ident operand",
    ),
];

fn edit(base: &str, old: &str, new: &str) -> String {
    assert!(base.contains(old), "{old:?} not in the base module");
    base.replacen(old, new, 1)
}

/// Every invalid case with its base module.
fn all_invalid() -> impl Iterator<Item = (&'static str, &'static Case)> {
    INVALID
        .iter()
        .map(|c| (BASE, c))
        .chain(DEBUG_INVALID.iter().map(|c| (DEBUG_BASE, c)))
}

#[test]
fn invalid_inputs_are_located_errors() {
    accepts(BASE).expect("the base module is valid");
    accepts(DEBUG_BASE).expect("the debug base module is valid");
    let mut failures = Vec::new();
    for (base, &(name, old, new, (line, col), part)) in all_invalid() {
        let src = edit(base, old, new);
        match accepts(&src) {
            Ok(_) => failures.push(format!("{name}: accepted")),
            Err(e) => {
                let at = format!("fuzz.ll:{line}:{col}: ");
                if !e.starts_with(&at) || !e.contains(part) {
                    failures.push(format!("{name}: got `{e}`, expected `{at}...{part}...`"));
                }
                println!("{name:<40} {e}");
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn compile_rejects_invalid_input_with_exit_1_and_no_output() {
    let dir = temp_dir("malformed", "cli");
    for (k, (base, &(name, old, new, (line, col), _))) in all_invalid().enumerate() {
        let input = dir.join(format!("bad{k}.ll"));
        let output = dir.join(format!("out{k}.ll"));
        std::fs::write(&input, edit(base, old, new)).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["compile", "--emit", "ll", "-o"])
            .arg(&output)
            .arg(&input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("bad{k}.ll:{line}:{col}: ")),
            "{name}: {stderr}"
        );
        assert!(!output.exists(), "{name}: an output file was written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Mutates `src` `n` times; checks every accepted mutant's export with `opt`. Returns
/// (accepted, rejected, accepted although opt rejects the mutant itself).
fn fuzz(label: &str, src: &str, n: usize, seed: u64, dir: &Path) -> (usize, usize, usize) {
    let mut rng = Rng::new(seed);
    let (mut accepted, mut rejected, mut lenient) = (0, 0, 0);
    for i in 0..n {
        let mut data = mutate(src, &mut rng);
        if i % 8 == 7 {
            // Truncation at a random point (the most common real corruption).
            let cut = rng.below(data.len());
            data.truncate(cut);
        }
        let text = String::from_utf8_lossy(&data).into_owned();
        strata::fuzzing::llvm_import::check(&data);
        match accepts(&text) {
            Err(_) => rejected += 1,
            Ok(exported) => {
                accepted += 1;
                let input = dir.join(format!("{label}-{i}.in.ll"));
                let output = dir.join(format!("{label}-{i}.out.ll"));
                std::fs::write(&input, &text).unwrap();
                std::fs::write(&output, &exported).unwrap();
                let verify = |p: &Path| {
                    Command::new("opt")
                        .args(["-passes=verify", "-disable-output"])
                        .arg(p)
                        .output()
                        .unwrap()
                };
                let v = verify(&output);
                assert!(
                    v.status.success(),
                    "{label} mutant {i}: strata accepted it but opt rejects the export \
                     (input kept at {}):\n{}",
                    input.display(),
                    String::from_utf8_lossy(&v.stderr)
                );
                if !verify(&input).status.success() {
                    lenient += 1;
                }
                let _ = std::fs::remove_file(&input);
                let _ = std::fs::remove_file(&output);
            }
        }
    }
    println!(
        "{label}: {n} mutants, {accepted} accepted (exports verified by opt), {rejected} \
         rejected, {lenient} accepted although opt rejects the mutant"
    );
    (accepted, rejected, lenient)
}

/// Mutants per input: `default`, or `STRATA_MUTANTS` for longer runs.
fn mutants(default: usize) -> usize {
    std::env::var("STRATA_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Added to the seeds: `STRATA_MUTANT_SEED` for other mutants than the default ones.
fn seed() -> u64 {
    std::env::var("STRATA_MUTANT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
fn mutated_fixtures_are_rejected_or_export_valid_ir() {
    let test = "mutated_fixtures_are_rejected_or_export_valid_ir";
    if !require(test, missing_tools(&["opt"])) {
        return;
    }
    let dir = temp_dir("malformed", "fixtures");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ll");
    let mut total = (0, 0);
    for (k, name) in ["floats", "misc", "vm", "aggregates"].iter().enumerate() {
        let src = std::fs::read_to_string(root.join(format!("{name}.ll"))).unwrap();
        let (a, r, _) = fuzz(name, &src, mutants(150), 0xF00D + k as u64 + seed(), &dir);
        total.0 += a;
        total.1 += r;
    }
    // The syntax issue 21 added: debug metadata, noalias scope declarations (metadata call
    // arguments), volatile and weak atomics, vector values (skipped function by function).
    let syntax = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syntax/new_syntax.ll");
    let src = std::fs::read_to_string(syntax).unwrap();
    let (a, r, _) = fuzz("new_syntax", &src, mutants(150), 0x5EED + seed(), &dir);
    assert!(a > 5 && r > 20, "new_syntax: {a} accepted, {r} rejected");
    total.0 += a;
    total.1 += r;
    // Metadata strings spanning lines: a mutation that moves a quote turns lines into
    // string contents and back; every outcome must still be a located error or valid IR.
    let (a, r, _) = fuzz(
        "debug_multiline",
        DEBUG_BASE,
        mutants(150),
        0xDEB6 + seed(),
        &dir,
    );
    assert!(
        a > 5 && r > 20,
        "debug_multiline: {a} accepted, {r} rejected"
    );
    total.0 += a;
    total.1 += r;
    // Both outcomes must occur, or the mutator is not exercising the importer.
    assert!(total.0 > 20 && total.1 > 100, "{total:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mutated_corpus_modules_are_rejected_or_export_valid_ir() {
    let test = "mutated_corpus_modules_are_rejected_or_export_valid_ir";
    let corpus = common::corpus_dir();
    let modules: Vec<_> = ["zlib", "bzip2"]
        .iter()
        .map(|m| corpus.join(format!("{m}.ll")))
        .collect();
    let missing = modules
        .iter()
        .find(|p| !p.exists())
        .map(|p| format!("{} missing (run `bash scripts/corpus.sh`)", p.display()));
    if !require(test, missing.or_else(|| missing_tools(&["opt"]))) {
        return;
    }
    let dir = temp_dir("malformed", "corpus");
    for (k, path) in modules.iter().enumerate() {
        let src = std::fs::read_to_string(path).unwrap();
        let label = path.file_stem().unwrap().to_string_lossy().into_owned();
        fuzz(&label, &src, mutants(12), 0xC0DE + k as u64 + seed(), &dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

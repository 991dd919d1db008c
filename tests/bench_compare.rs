//! `strata bench --compare regalloc2`: both allocators on the same functions in one run, the
//! rounds counted without the warm-up, the time ratio the sum of each function's fastest
//! round, and the old flag names still accepted; against LLVM,
//! every ratio is a median of the runs' ratios.

mod common;
use common::cli::strata;
use common::{missing_tools, require};
use serde_json::Value;

#[test]
fn regalloc2_side_by_side_over_counted_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let o = strata(&[
        "bench",
        "examples/sir",
        "--compare",
        "regalloc2",
        "--repeat",
        "3",
        "--threads",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("against regalloc2"), "{stdout}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["target"], "x86-64");
    let modules = report["modules"].as_array().unwrap();
    assert_eq!(modules.len(), 8);
    for m in modules {
        let anchor = &m["regalloc2"];
        assert_eq!(anchor["functions"], m["functions"], "{m}");
        // Three counted rounds on each side: the warm-up is not among them.
        for side in [m, anchor] {
            let rounds = side["alloc_round_seconds"].as_array().unwrap();
            assert_eq!(rounds.len(), 3, "{side}");
            assert!(rounds.iter().all(|r| r.as_f64().unwrap() > 0.0), "{side}");
            // Issue 23's time: each function's fastest round, summed; no round's total can
            // be below it.
            let fastest = side["alloc_fastest_seconds"].as_f64().unwrap();
            assert!(fastest > 0.0, "{side}");
            assert!(
                rounds.iter().all(|r| r.as_f64().unwrap() >= fastest),
                "{side}"
            );
            assert_eq!(side["accepted_by_regalloc2_checker"], m["functions"]);
            assert_eq!(side["stats"]["check.functions"], m["functions"]);
        }
        assert_eq!(
            anchor["stats"]["lower.machine_insts"],
            m["stats"]["lower.machine_insts"]
        );
        let line = stdout
            .lines()
            .skip_while(|l| !l.starts_with("against regalloc2"))
            .find(|l| l.starts_with(m["name"].as_str().unwrap()))
            .unwrap_or_else(|| panic!("no row for {}: {stdout}", m["name"]));
        assert!(line.contains("x ["), "a median with its spread: {line}");
        // The headline ratio is the fastest sums' ratio, printed before the rounds' median.
        let ratio = m["alloc_fastest_seconds"].as_f64().unwrap()
            / anchor["alloc_fastest_seconds"].as_f64().unwrap();
        let printed = line
            .split_whitespace()
            .nth(4)
            .and_then(|c| c.strip_suffix('x'))
            .and_then(|c| c.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no ratio cell: {line}"));
        assert!(
            (printed - ratio).abs() <= 0.006,
            "{printed} vs {ratio}: {line}"
        );
    }
}

#[test]
fn compare_regalloc2_with_regalloc2_as_ours_is_a_usage_error() {
    let o = strata(&[
        "bench",
        "--generated",
        "2",
        "--compare",
        "regalloc2",
        "--allocator",
        "regalloc2",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn llvm_ratios_are_medians_of_the_runs() {
    if !require("bench --compare llvm", missing_tools(&["opt"])) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("l.json");
    let o = strata(&[
        "bench",
        "tests/fixtures/ll",
        "--compare",
        "llvm",
        "--repeat",
        "3",
        "--json",
        json.to_str().unwrap(),
        "--report",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The page draws the same medians.
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(html.contains("<title>vm: LLVM mem2reg "), "{html}");
    assert!(html.contains("<title>vm: LLVM sccp "), "{html}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for m in report["modules"].as_array().unwrap() {
        assert_eq!(
            m["llvm"]["round_seconds"].as_array().unwrap().len(),
            3,
            "{m}"
        );
        assert_eq!(m["parse_round_seconds"].as_array().unwrap().len(), 3, "{m}");
        assert_eq!(
            m["stage_round_seconds"]["mem2reg"]
                .as_array()
                .unwrap()
                .len(),
            3,
            "{m}"
        );
        let name = m["name"].as_str().unwrap();
        let row = stdout
            .lines()
            .skip_while(|l| !l.starts_with("against LLVM 14 opt"))
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {stdout}"));
        let comparable = m["skipped_functions"] == 0;
        // A ratio cell is a median (`2.14x [2.02-2.52]`) or, where LLVM's time is below
        // what the table resolves (`0.00`, a tiny fixture), `-`.
        let words: Vec<&str> = row.split_whitespace().collect();
        let medians = row.matches("x [").count();
        let unresolved = words
            .windows(2)
            .filter(|w| w[1] == "-" && w[0] == "0.00")
            .count();
        assert_eq!(
            medians + unresolved,
            if comparable { 4 } else { 0 },
            "{row}"
        );
    }
}

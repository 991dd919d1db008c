//! `strata bench --shard K/N` and `strata bench merge`: the shards of a corpus merged give the
//! unsharded report in everything but times, and the output hash is the same for any
//! `--jobs` and any sharding (of the IR, and of the allocated code with `--target`).

mod common;
use common::cli::strata;
use serde_json::Value;
use std::path::Path;

/// Runs `strata ARGS --json OUT` (exit 0 expected unless `code` says otherwise) and returns
/// the report.
fn report(args: &[&str], out: &Path, code: i32) -> Value {
    let mut all = args.to_vec();
    all.extend(["--json", out.to_str().unwrap()]);
    let o = strata(&all);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{all:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// Whether a key holds a time (or a rate derived from one) or the worker count.
fn is_time(key: &str) -> bool {
    key.ends_with("seconds")
        || key.ends_with("_per_second")
        || key.ends_with("_ns")
        || key.contains("time")
        || key == "threads"
}

/// `v` without its times, at any depth.
fn without_times(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !is_time(k))
                .map(|(k, v)| (k.clone(), without_times(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_times).collect()),
        other => other.clone(),
    }
}

/// Runs `input` whole and as `n` shards merged; checks they agree; returns the whole report.
fn check_sharding(name: &str, input: &[&str], n: usize, code: i32) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let whole = report(input, &dir.path().join(format!("{name}.json")), code);
    let mut shards = Vec::new();
    for k in 0..n {
        let path = dir.path().join(format!("{name}-{k}.json"));
        let shard = format!("{k}/{n}");
        let mut args = input.to_vec();
        args.extend(["--shard", &shard]);
        let r = report(&args, &path, code);
        assert_eq!(r["shard"], Value::String(shard.clone()));
        let functions = r["functions"].as_u64().unwrap();
        assert!(
            functions > 0 && functions < whole["functions"].as_u64().unwrap(),
            "shard {shard} runs part of the functions: {functions}"
        );
        shards.push(path);
    }
    let mut args = vec!["bench", "merge"];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    let merged = report(&args, &dir.path().join(format!("{name}-merged.json")), code);
    assert_eq!(without_times(&merged), without_times(&whole), "{name}");
    // The merged histogram of per-function times counts every function once.
    let timed: u64 = merged["modules"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["function_time_histogram"].as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(Some(timed), whole["functions"].as_u64(), "{name}");
    assert!(merged["function_time_percentiles"]["p50"].as_f64().unwrap() > 0.0);
    let hash = whole["output_hash"].as_str().unwrap();
    assert_eq!(hash.len(), 16, "{hash}");
    whole
}

#[test]
fn built_in_corpus_shards_merge_to_the_whole() {
    let input = ["bench", "--generated", "40", "--jobs", "2"];
    let whole = check_sharding("builtin", &input, 2, 0);
    assert!(whole["functions"].as_u64().unwrap() >= 40);
    // One worker prints the same output as two.
    let dir = tempfile::tempdir().unwrap();
    let one = report(
        &["bench", "--generated", "40", "--jobs", "1"],
        &dir.path().join("one.json"),
        0,
    );
    assert_eq!(one["output_hash"], whole["output_hash"]);
    // And other passes print something else.
    let fewer = report(
        &["bench", "--generated", "40", "--passes", "verify"],
        &dir.path().join("fewer.json"),
        0,
    );
    assert_ne!(fewer["output_hash"], whole["output_hash"]);
}

#[test]
fn example_files_with_a_broken_one_shard_into_three() {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir("examples/sir").unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    std::fs::write(dir.path().join("broken.sir"), "function @f( {\n").unwrap();
    let input = ["bench", dir.path().to_str().unwrap()];
    let whole = check_sharding("examples", &input, 3, 1);
    let failures = whole["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0]["stage"], "parse");
}

#[test]
fn merge_refuses_an_incomplete_set_of_shards() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("0.json");
    report(&["bench", "--generated", "5", "--shard", "0/2"], &path, 0);
    let o = strata(&["bench", "merge", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("missing 1/2"), "{err}");
    // Shards of different pipelines do not add up.
    let other = dir.path().join("1.json");
    report(
        &[
            "bench",
            "--generated",
            "5",
            "--shard",
            "1/2",
            "--passes",
            "verify",
        ],
        &other,
        0,
    );
    let o = strata(&[
        "bench",
        "merge",
        path.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("passes differs"), "{err}");
    let o = strata(&["bench", "--shard", "2/2"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn allocated_code_hashes_the_same_for_any_jobs_and_sharding() {
    let input = ["bench", "examples/sir", "--target", "x86-64", "--jobs", "2"];
    let whole = check_sharding("machine", &input, 2, 0);
    let dir = tempfile::tempdir().unwrap();
    let one = report(
        &["bench", "examples/sir", "--target", "x86-64", "--jobs", "1"],
        &dir.path().join("one.json"),
        0,
    );
    assert_eq!(one["output_hash"], whole["output_hash"]);
    // The printed result is the allocated code, not the IR before lowering.
    let ir = report(
        &["bench", "examples/sir", "--target", "none"],
        &dir.path().join("ir.json"),
        0,
    );
    assert_ne!(ir["output_hash"], whole["output_hash"]);
}

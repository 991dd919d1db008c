//! Criterion benchmarks of LLVM `.ll` import and export (DESIGN.md 6: import at most 1.0x
//! LLVM's `Parse IR`).
//!
//! Inputs: the committed fixtures (`tests/fixtures/ll/`), plus any file named by the
//! `STRATA_LL` environment variable (for example a large clang output, to compare with
//! `opt -time-passes -passes=verify FILE -disable-output`, whose "Parse IR" line is the
//! anchor). Throughput is reported in bytes of `.ll` text.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use strata::llvm::{export, import, ImportOptions};

fn inputs() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ll");
    let mut v: Vec<(String, String)> = ["floats", "misc", "vm"]
        .iter()
        .map(|n| {
            (
                n.to_string(),
                std::fs::read_to_string(format!("{dir}/{n}.ll")).unwrap(),
            )
        })
        .collect();
    if let Ok(path) = std::env::var("STRATA_LL") {
        if let Ok(text) = std::fs::read_to_string(&path) {
            v.push((path, text));
        }
    }
    v
}

fn bench_import(c: &mut Criterion) {
    let mut g = c.benchmark_group("llvm-import");
    for (name, text) in inputs() {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(&name), &text, |b, text| {
            b.iter(|| black_box(import(text, "bench.ll", &ImportOptions::default()).unwrap()))
        });
    }
    g.finish();
}

fn bench_export(c: &mut Criterion) {
    let mut g = c.benchmark_group("llvm-export");
    for (name, text) in inputs() {
        let imp = import(&text, "bench.ll", &ImportOptions::default()).unwrap();
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(&name), &imp, |b, imp| {
            b.iter(|| black_box(export(&imp.module, &imp.context)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_import, bench_export);
criterion_main!(benches);

//! Criterion benchmarks, one group per stage, plus the engine's fixed per-function overhead.
//!
//! Inputs are deterministic generated functions (`strata::fuzzing::generate::seeded`).
//! Throughput is reported per instruction so numbers compare across inputs.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::sync::Arc;
use strata::analysis::{Cfg, DomTree, DominanceFrontiers};
use strata::engine::{Engine, PassSet, PipelineConfig};
use strata::fuzzing::generate::{seeded, GenOptions};
use strata::ir::{Function, Module, ModuleBuilder, SymbolTable};

fn corpus(n: usize) -> Vec<Function> {
    let opts = GenOptions::default();
    (0..n as u64).map(|i| seeded(i, &opts)).collect()
}

fn module_of(functions: &[Function]) -> Module {
    let mut m = ModuleBuilder::new();
    for (i, f) in functions.iter().enumerate() {
        let mut f = f.clone();
        f.name = format!("f{i}");
        m.declare_function(&f.name, f.signature.clone());
        m.define_function(f);
    }
    m.finish()
}

fn insts(functions: &[Function]) -> u64 {
    functions.iter().map(|f| f.live_inst_count() as u64).sum()
}

/// A function of about `n` instructions (the first generated one at least that large,
/// truncated to exactly `n` live instructions is not needed: the count is reported).
fn sized(n: usize) -> Function {
    let opts = GenOptions::default();
    (0..10_000u64)
        .map(|i| seeded(i, &opts))
        .min_by_key(|f| (f.live_inst_count() as i64 - n as i64).abs())
        .unwrap()
}

fn parse(c: &mut Criterion) {
    let functions = corpus(300);
    let text = strata::text::print_module(&module_of(&functions));
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Elements(insts(&functions)));
    g.bench_function("sir", |b| {
        b.iter(|| strata::text::parse_module(black_box(&text), "bench").unwrap())
    });
    g.finish();
}

/// Declaring, defining and looking up N functions by name: linear in N since module names
/// are hashed (issue 11: the per-name scans made `bench --generated N` quadratic).
fn module_names(c: &mut Criterion) {
    let mut g = c.benchmark_group("module-names");
    for n in [1_000usize, 10_000] {
        let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::new("declare+define+lookup", n), |b| {
            b.iter(|| {
                let mut m = ModuleBuilder::new();
                for name in &names {
                    m.declare_function(name, Default::default());
                }
                for name in &names {
                    let f = Function {
                        name: name.clone(),
                        ..Function::default()
                    };
                    assert!(m.define_function(f));
                }
                let m = m.finish();
                names.iter().filter_map(|n| m.symbol_by_name(n)).count()
            })
        });
    }
    g.finish();
}

fn analyses(c: &mut Criterion) {
    let functions = corpus(300);
    let module = module_of(&functions);
    let symbols = module.symbol_table();
    let mut g = c.benchmark_group("analysis");
    g.throughput(Throughput::Elements(insts(&functions)));
    g.bench_function("verify", |b| {
        b.iter(|| {
            for f in &module.functions {
                black_box(strata::verify::verify(f, &symbols));
            }
        })
    });
    let mut cfg = Cfg::default();
    g.bench_function("cfg", |b| {
        b.iter(|| {
            for f in &functions {
                cfg.compute(f);
                black_box(cfg.rpo().len());
            }
        })
    });
    let (mut cfg, mut dom, mut df) = (
        Cfg::default(),
        DomTree::default(),
        DominanceFrontiers::default(),
    );
    g.bench_function("cfg+dominance+frontiers", |b| {
        b.iter(|| {
            for f in &functions {
                cfg.compute(f);
                dom.compute(&cfg);
                df.compute(&cfg, &dom);
                black_box(&df);
            }
        })
    });
    g.finish();
}

fn engine_overhead(c: &mut Criterion) {
    let f = sized(100);
    let symbols = Arc::new(SymbolTable::default());
    let mut g = c.benchmark_group("engine-overhead");
    let label = format!("{}-insts", f.live_inst_count());
    let none = PipelineConfig::new(PassSet::empty());
    g.bench_function(BenchmarkId::new("plain-clone-baseline", &label), |b| {
        b.iter(|| black_box(f.clone()))
    });
    let mut engine = Engine::new(none.clone());
    g.bench_function(
        BenchmarkId::new("reused-engine-empty-pipeline", &label),
        |b| b.iter(|| black_box(engine.run(f.clone(), &symbols))),
    );
    // The same without the clone in the timing: the engine's own cost (load, schedule,
    // take), which DESIGN.md's "under 5 µs per 100-instruction function" is about.
    g.bench_function(
        BenchmarkId::new("reused-engine-empty-pipeline-no-clone", &label),
        |b| {
            b.iter_batched(
                || f.clone(),
                |f| black_box(engine.run(f, &symbols)),
                criterion::BatchSize::SmallInput,
            )
        },
    );
    g.bench_function(
        BenchmarkId::new("fresh-engine-empty-pipeline", &label),
        |b| b.iter(|| black_box(Engine::new(none.clone()).run(f.clone(), &symbols))),
    );
    let mut full = Engine::new(PipelineConfig::new(PassSet::default_pipeline()));
    g.bench_function(
        BenchmarkId::new("reused-engine-default-pipeline", &label),
        |b| b.iter(|| black_box(full.run(f.clone(), &symbols))),
    );
    // Batches as `strata bench` runs them: one schedule run for a full batch of copies,
    // results copied out into reused functions. Criterion's time is per batch; divide by
    // the batch size for the time per function.
    let batch = full.batch_size();
    let copies: Vec<&strata::ir::Function> = (0..batch).map(|_| &f).collect();
    let mut outs = Vec::new();
    g.bench_function(
        BenchmarkId::new(format!("default-pipeline-batch-of-{batch}"), &label),
        |b| b.iter(|| black_box(full.run_batch(&copies, &symbols, &mut outs))),
    );
    let mut empty = Engine::new(none.clone());
    g.bench_function(
        BenchmarkId::new(format!("empty-pipeline-batch-of-{batch}"), &label),
        |b| b.iter(|| black_box(empty.run_batch(&copies, &symbols, &mut outs))),
    );
    g.finish();
}

/// mem2reg and phi elimination on generated memory-form functions, per instruction of the
/// input, as the pipeline runs them: through an engine whose config enables just that pass
/// (load into the World, the analyses it reads, its systems, take). Each iteration works on
/// fresh clones (cloning is outside the timing: `iter_batched`).
fn ssa(c: &mut Criterion) {
    use criterion::BatchSize;
    use strata::engine::{Engine, PassSet, PipelineConfig};
    for (label, opts) in [
        ("small", GenOptions::default()),
        (
            "large",
            GenOptions {
                max_blocks: 120,
                max_insts_per_block: 12,
                max_locals: 16,
                ..GenOptions::default()
            },
        ),
    ] {
        let functions: Vec<Function> = (0..200u64).map(|i| seeded(i, &opts)).collect();
        let symbols = std::sync::Arc::new(strata::ir::SymbolTable::default());
        let mut g = c.benchmark_group(format!("ssa-{label}"));
        g.throughput(Throughput::Elements(insts(&functions)));
        let only = |passes| PipelineConfig {
            passes,
            ..Default::default()
        };
        let mut mem2reg = Engine::new(only(PassSet::MEM2REG));
        g.bench_function("mem2reg-engine", |b| {
            b.iter_batched(
                || functions.clone(),
                |fs| {
                    for f in fs {
                        black_box(mem2reg.run(f, &symbols));
                    }
                },
                BatchSize::LargeInput,
            )
        });
        let promoted: Vec<Function> = functions
            .iter()
            .map(|f| {
                let mut f = f.clone();
                strata::api::promote_allocas(&mut f, &symbols);
                f
            })
            .collect();
        let mut phi_elim = Engine::new(only(PassSet::PHI_ELIM));
        g.bench_function("phi-elim-engine", |b| {
            b.iter_batched(
                || promoted.clone(),
                |fs| {
                    for f in fs {
                        black_box(phi_elim.run(f, &symbols));
                    }
                },
                BatchSize::LargeInput,
            )
        });
        g.finish();
    }
}

/// SCCP on generated SSA functions (phis, loops, constant branches): the solver alone on
/// precomputed CFGs, and the pass through an engine running only `sccp` (the clone of the
/// input is outside the timing). No memory limit, so large functions do not fall back.
fn sccp(c: &mut Criterion) {
    use strata::fuzzing::generate_ssa::{seeded_ssa, SsaGenOptions};
    let small = SsaGenOptions::default();
    let large = SsaGenOptions {
        max_blocks: 64,
        max_insts_per_block: 24,
        step_budget: 1000,
        ..SsaGenOptions::default()
    };
    // Random shapes leave many blocks unreachable; the large input keeps functions whose
    // code is at least 70% reachable from the entry, so the solver has work on most of it.
    let mostly_reachable = |f: &Function| {
        let mut cfg = Cfg::default();
        cfg.compute(f);
        let live: usize = cfg
            .rpo()
            .iter()
            .map(|b| f.blocks[b.index()].insts.len())
            .sum();
        live * 10 >= f.live_inst_count() * 7
    };
    let inputs = [
        (
            "300-small",
            (0..300u64)
                .map(|i| seeded_ssa(i, &small))
                .collect::<Vec<_>>(),
        ),
        (
            "20-large-reachable",
            (0..10_000u64)
                .map(|i| seeded_ssa(i, &large))
                .filter(|f| f.live_inst_count() >= 500 && mostly_reachable(f))
                .take(20)
                .collect::<Vec<_>>(),
        ),
    ];
    let mut g = c.benchmark_group("sccp");
    for (name, functions) in &inputs {
        g.throughput(Throughput::Elements(insts(functions)));
        let mut solver = strata::sccp::Solver::new();
        let no_globals = strata::ir::SymbolTable::default();
        // The solver reads the shared CFG; computing it is the `cfg` pass's work, not SCCP's.
        let cfgs: Vec<Cfg> = functions
            .iter()
            .map(|f| {
                let mut cfg = Cfg::new();
                cfg.compute(f);
                cfg
            })
            .collect();
        g.bench_function(BenchmarkId::new("analysis", name), |b| {
            b.iter(|| {
                for (f, cfg) in functions.iter().zip(&cfgs) {
                    black_box(
                        solver
                            .analyze(f, cfg, &no_globals, usize::MAX)
                            .unwrap()
                            .foldable_count,
                    );
                }
            })
        });
        // The pass as the pipeline runs it: through an engine whose config enables just
        // `sccp` (load, the CFG it reads, solve_sccp, rewrite_sccp, take).
        let no_globals = std::sync::Arc::new(no_globals);
        let mut config = strata::engine::PipelineConfig {
            passes: strata::engine::PassSet::SCCP,
            ..Default::default()
        };
        config.options.sccp_memory_limit = usize::MAX;
        let mut engine = strata::engine::Engine::new(config);
        g.bench_function(BenchmarkId::new("engine", name), |b| {
            b.iter_batched(
                || functions.clone(),
                |fs| {
                    for f in fs {
                        black_box(engine.run(f, &no_globals));
                    }
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    parse,
    module_names,
    analyses,
    engine_overhead,
    ssa,
    sccp
);
criterion_main!(benches);

//! Placement solver speed (criterion): generated problems from 100 to 1,600 blocks with
//! 3 and 8 targets, each configuration of the ablation, and the exact ILP solver
//! (`microlp`) on the same problems where it finishes in reasonable time. The optimality
//! table is printed by `cargo run --release --example placement_optimality`.

#[path = "../tests/placement_oracle/mod.rs"]
mod placement_oracle;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use strata::placement::generate::{problem, Shape};
use strata::placement::{SolveOptions, Solver};

fn solve(c: &mut Criterion) {
    let mut g = c.benchmark_group("placement");
    g.sample_size(20);
    for &(n, k) in &[(100usize, 3usize), (400, 3), (1600, 3), (400, 8), (1600, 8)] {
        for (si, shape) in [Shape::Diamond, Shape::Loop, Shape::Switch]
            .into_iter()
            .enumerate()
        {
            let p = problem(7 + si as u64, shape, n, k);
            let mut solver = Solver::new();
            for (name, opts) in [
                ("default", SolveOptions::default()),
                (
                    "no-window",
                    SolveOptions {
                        window: 0,
                        ..SolveOptions::default()
                    },
                ),
            ] {
                g.bench_with_input(
                    BenchmarkId::new(format!("{name}/{shape:?}/k{k}"), n),
                    &p,
                    |b, p| b.iter(|| solver.solve(p, &opts).map(|pl| pl.cost).ok()),
                );
            }
            if n <= 100 {
                g.bench_with_input(
                    BenchmarkId::new(format!("ilp/{shape:?}/k{k}"), n),
                    &p,
                    |b, p| b.iter(|| placement_oracle::ilp_optimum(p)),
                );
            }
        }
    }
    g.finish();
}

criterion_group!(benches, solve);
criterion_main!(benches);

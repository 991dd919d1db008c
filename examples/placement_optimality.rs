//! Optimality table of the placement solver against the exact ILP oracle (`microlp`), with
//! the ablation of its phases. Run with
//! `cargo run --release --example placement_optimality -- [INSTANCES] [SIZES] [TARGETS]`
//! (for instance `20 10,25,50,100,200,400 3,5,8`).
//!
//! For each size and target count it generates INSTANCES problems of every shape, solves
//! them exactly, and prints per configuration: the share solved optimally, the worst and
//! mean relative gap, false infeasibility verdicts, and solver and ILP time.

#[path = "../tests/placement_oracle/mod.rs"]
mod placement_oracle;

use std::time::{Duration, Instant};
use strata::placement::csp::CspLimits;
use strata::placement::generate::{problem, Shape};
use strata::placement::{SolveOptions, Solver};

fn configs() -> Vec<(&'static str, SolveOptions)> {
    let full = SolveOptions::default();
    let spec = SolveOptions {
        exact_budget: 0,
        ..full
    };
    let off = SolveOptions {
        exact_budget: 0,
        backward: false,
        fixpoint: false,
        window: 0,
        ..full
    };
    vec![
        ("forward", off),
        (
            "+backward",
            SolveOptions {
                backward: true,
                ..off
            },
        ),
        (
            "+fixpoint",
            SolveOptions {
                backward: true,
                fixpoint: true,
                ..off
            },
        ),
        ("+window4", SolveOptions { window: 4, ..spec }),
        ("+window6", SolveOptions { window: 6, ..spec }),
        ("+window8", SolveOptions { window: 8, ..spec }),
        ("+window10", SolveOptions { window: 10, ..spec }),
        (
            "+window6,no-cache",
            SolveOptions {
                window: 6,
                cache: false,
                ..spec
            },
        ),
        ("default (+elimination)", full),
        (
            "default,cutoff8",
            SolveOptions {
                limits: CspLimits {
                    exact_members: 8,
                    ..full.limits
                },
                ..spec
            },
        ),
    ]
}

fn list(arg: Option<String>, default: &[usize]) -> Vec<usize> {
    arg.map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let instances: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10);
    let sizes = list(args.next(), &[10, 25, 50, 100, 200, 400]);
    let targets = list(args.next(), &[3, 5, 8]);
    let configs = configs();
    println!("| blocks | targets | config | optimal | worst gap | mean gap | false infeasible | solver time | ILP time |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut solver = Solver::new();
    for &n in &sizes {
        for &k in &targets {
            let mut problems = Vec::new();
            let mut ilp_time = Duration::ZERO;
            for i in 0..instances {
                for (si, &shape) in Shape::ALL.iter().enumerate() {
                    let seed = i * 1000 + si as u64 * 17 + n as u64;
                    let p = problem(seed, shape, n, k);
                    let t = Instant::now();
                    let opt = placement_oracle::ilp_optimum(&p);
                    ilp_time += t.elapsed();
                    problems.push((p, opt));
                }
            }
            for (name, opts) in &configs {
                let (mut feasible, mut optimal, mut false_inf) = (0usize, 0usize, 0usize);
                let (mut worst, mut sum) = (0f64, 0f64);
                let mut time = Duration::ZERO;
                for (p, opt) in &problems {
                    let t = Instant::now();
                    let got = solver.solve(p, opts);
                    time += t.elapsed();
                    match (opt, got) {
                        (Some(o), Ok(pl)) => {
                            feasible += 1;
                            let gap = (pl.cost as f64 - *o as f64) / (*o as f64).max(1.0);
                            optimal += (pl.cost == *o) as usize;
                            worst = worst.max(gap);
                            sum += gap;
                        }
                        (Some(_), Err(_)) => {
                            feasible += 1;
                            false_inf += 1;
                        }
                        (None, Ok(_)) => panic!("solver placed an infeasible problem"),
                        (None, Err(_)) => {}
                    }
                }
                println!(
                    "| {n} | {k} | {name} | {:.1}% ({optimal}/{feasible}) | {:.2}% | {:.3}% | {false_inf} | {:.2} ms | {:.2} ms |",
                    100.0 * optimal as f64 / feasible.max(1) as f64,
                    100.0 * worst,
                    100.0 * sum / feasible.max(1) as f64,
                    time.as_secs_f64() * 1e3 / problems.len() as f64,
                    ilp_time.as_secs_f64() * 1e3 / problems.len() as f64,
                );
            }
        }
    }
}

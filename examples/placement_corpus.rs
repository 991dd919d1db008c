//! Places every function of `.ll`/`.sir` files with the built-in target model, after
//! mem2reg and SCCP, and prints how long placement took: total, per function, the slowest
//! function and the largest problems (pieces = blocks after splitting). Per function it
//! times what the pipeline pass does (problem construction with reused scratch from the
//! shared CFG and SCCs, solve, islands); the analyses are timed apart. Run with
//! `cargo run --release --example placement_corpus -- target/corpus/*.ll`. The five largest
//! problems are then placed again [`REPEATS`] times each and the minimum time of each phase
//! is printed with their sum (minima are robust against other load on the machine).
//! The corpus has no CFG over 1,500 blocks; `examples/c/big_switch.c` (1,602 blocks at -O0, how
//! to build it is in the file) is one.

use std::sync::Arc;
use std::time::Instant;
use strata::analysis::{Cfg, Sccs};
use strata::engine::{Engine, PassSet, PipelineConfig};
use strata::placement::build::{build_problem_in, BuildScratch, IrProblem};
use strata::placement::islands::build_islands;
use strata::placement::targets::TargetModel;
use strata::placement::{SolveOptions, Solver};

/// Repetitions of each of the five largest functions for the minimum time.
const REPEATS: usize = 20;

fn main() {
    let model = TargetModel::default_model();
    let mut solver = Solver::new();
    let opts = SolveOptions::default();
    let mut rows: Vec<(f64, usize, String, bool)> = Vec::new();
    let mut failures = 0;
    let mut phase = [0f64; 4];
    let (mut cfg, mut sccs) = (Cfg::new(), Sccs::new());
    let (mut scratch, mut ir) = (BuildScratch::default(), IrProblem::default());
    let mut max_solve = (0f64, 0usize);
    // The five largest functions (pieces, name, function, symbols) for the repeated timing.
    type Kept = (
        usize,
        String,
        strata::ir::Function,
        Arc<strata::ir::SymbolTable>,
    );
    let mut largest: Vec<Kept> = Vec::new();
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable input");
        let module = if path.ends_with(".ll") {
            let imp = strata::llvm::import(&text, &path, &Default::default())
                .unwrap_or_else(|e| panic!("{e}"));
            imp.verify().unwrap_or_else(|e| panic!("{e}"));
            imp.module
        } else {
            strata::text::parse_module(&text, &path).unwrap_or_else(|e| panic!("{e}"))
        };
        let symbols = Arc::new(module.symbol_table());
        let mut engine = Engine::new(PipelineConfig::new(
            PassSet::parse("mem2reg,sccp").expect("known passes"),
        ));
        for f in module.functions {
            let run = engine.run(f, &symbols);
            let f = run.function;
            // The CFG and its SCCs are shared analyses in the pipeline (computed for earlier
            // stages too); timed apart from the pass's own work.
            let t = Instant::now();
            cfg.compute(&f);
            sccs.compute(&cfg);
            phase[3] += t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            build_problem_in(
                &f,
                &cfg,
                &sccs,
                Some(&symbols),
                &model,
                &mut scratch,
                &mut ir,
            );
            let t_build = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let solved = solver.solve(&ir.problem, &opts);
            let t_solve = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            if let Ok(pl) = &solved {
                build_islands(&ir.problem, &pl.assignment, &ir.paths, &ir.path_origin);
            }
            let t_islands = t.elapsed().as_secs_f64() * 1e3;
            phase[0] += t_build;
            phase[1] += t_solve;
            phase[2] += t_islands;
            if t_solve > max_solve.0 {
                max_solve = (t_solve, ir.pieces.len());
            }
            let name = format!("{path}:@{}", f.name);
            if largest.len() < 5 || ir.pieces.len() > largest[4].0 {
                largest.push((ir.pieces.len(), name.clone(), f.clone(), symbols.clone()));
                largest.sort_by_key(|r| std::cmp::Reverse(r.0));
                largest.truncate(5);
            }
            match solved {
                Ok(pl) => rows.push((
                    t_build + t_solve + t_islands,
                    ir.pieces.len(),
                    name,
                    pl.stats.eliminated,
                )),
                Err(e) => {
                    failures += 1;
                    eprintln!("{path}: @{}: {e}", f.name);
                }
            }
        }
    }
    let total: f64 = rows.iter().map(|r| r.0).sum();
    let eliminated = rows.iter().filter(|r| r.3).count();
    println!(
        "functions placed: {} (failures {failures}); total {total:.1} ms, mean {:.3} ms; exact elimination answered {eliminated}",
        rows.len(),
        total / rows.len().max(1) as f64
    );
    println!(
        "phases: problem construction {:.1} ms, solver {:.1} ms, islands {:.1} ms (CFG and SCCs, shared with other passes: {:.1} ms); slowest solve {:.3} ms ({} pieces)",
        phase[0], phase[1], phase[2], phase[3], max_solve.0, max_solve.1
    );
    rows.sort_by_key(|r| std::cmp::Reverse(r.1));
    println!("largest problems (pieces, ms, function):");
    for r in rows.iter().take(8) {
        println!(
            "  {:>6} {:>8.3} {} {}",
            r.1,
            r.0,
            r.2,
            if r.3 { "" } else { "(search)" }
        );
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("slowest (ms, pieces, function):");
    for r in rows.iter().take(5) {
        println!("  {:>8.3} {:>6} {}", r.0, r.1, r.2);
    }
    println!("five largest, minimum of {REPEATS} runs per phase (ms: construction + solve + islands = their sum, pieces, function):");
    for (pieces, name, f, symbols) in &largest {
        cfg.compute(f);
        sccs.compute(&cfg);
        let mut best = [f64::MAX; 3];
        for _ in 0..REPEATS {
            let t = Instant::now();
            build_problem_in(f, &cfg, &sccs, Some(symbols), &model, &mut scratch, &mut ir);
            let t1 = t.elapsed().as_secs_f64() * 1e3;
            let solved = solver.solve(&ir.problem, &opts);
            let t2 = t.elapsed().as_secs_f64() * 1e3;
            if let Ok(pl) = &solved {
                build_islands(&ir.problem, &pl.assignment, &ir.paths, &ir.path_origin);
            }
            let t3 = t.elapsed().as_secs_f64() * 1e3;
            for (b, x) in best.iter_mut().zip([t1, t2 - t1, t3 - t2]) {
                *b = b.min(x);
            }
        }
        println!(
            "  {:>7.3} + {:>7.3} + {:>7.3} = {:>7.3} {:>6} {name}",
            best[0],
            best[1],
            best[2],
            best.iter().sum::<f64>(),
            pieces
        );
    }
}

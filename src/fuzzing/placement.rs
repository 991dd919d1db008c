//! Oracle check of the placement solver (DESIGN.md 5): the exact optimum by exhaustive
//! search on small problems.
//!
//! [`check`] builds a problem either from the generator ([`crate::placement::generate`],
//! seeded by the input) or directly from the bytes (arbitrary costs, forbidden entries,
//! parallel edges and self-loops, up to 7 blocks and 4 targets), and asserts:
//! (a) the solver reports infeasible exactly when brute force finds no assignment;
//! (b) otherwise its cost is the exact objective of its assignment and never below the
//!     optimum (equal to it when exact elimination answered), and every target of an
//!     optimal assignment survived AC-3; both for the spec's search alone and the default;
//! (c) the text form round-trips (`parse(print(p)) == p`);
//! and, on the raw bytes read as text, that the problem parser never panics.
//!
//! One input in three instead checks splitting and fusion applied to the IR
//! ([`check_split_module`]): a generated SSA function (phis, loops) or memory-form module
//! (calls) goes through the pipeline's `placement` pass with `placement_split` on, under the
//! built-in model or [`SPLIT_MODEL`] (which makes most blocks with memory accesses split);
//! the pass must succeed, the verifier must accept the result, every reachable block must
//! have a target, and the interpreter's outcome (result, output, exit code, memory digest,
//! external-call trace; error kind for a trap) must be the same before and after.
//!
//! Complexity: O(K^blocks) for the oracle, at most 4^7; linear generation and bounded
//! interpretation for the IR check.

use crate::engine::{with_thread_engine, PassSet, PipelineConfig, Severity};
use crate::interp::{self, InterpError, Val};
use crate::ir::{Function, IrRead, Module, ModuleBuilder, Type};
use crate::placement::generate::{problem, Shape};
use crate::placement::problem::{Cost, Problem, FORBIDDEN};
use crate::placement::{
    brute_force, objective, parse_problem, print_problem, PlacementError, SolveOptions, Solver,
};
use arbitrary::{Result, Unstructured};
use std::sync::Arc;

/// A two-target model with free transitions under which pure operations are cheaper on
/// `scalar`, which cannot touch memory or call: placing a block that mixes both cuts it.
pub const SPLIT_MODEL: &str = r#"
[transitions]
overhead = 0
per_unit = 0

[[target]]
name = "scalar"
unsupported = ["load", "store", "alloca", "call", "call_indirect", "inline_asm", "atomic",
               "fence", "fn_ptr", "opaque"]

[[target]]
name = "memory"
default_cost = 3
"#;

/// Blocks a placement run with splitting created and fused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SplitCounts {
    /// Blocks created by cutting.
    pub created: u64,
    /// Blocks fused away.
    pub fused: u64,
}

fn module_of(f: Function) -> Module {
    let mut m = ModuleBuilder::new();
    m.declare_function(&f.name, f.signature.clone());
    m.define_function(f);
    m.finish()
}

fn argument(u: &mut Unstructured, ty: Type) -> Result<Val> {
    Ok(match ty {
        Type::F64 => Val::f64(*u.choose(&[0.0, -1.5, 3.0, 1e10])?),
        Type::I1 => Val::bool(u.arbitrary()?),
        t => Val::int(t, *u.choose(&[0i128, 1, -1, 5, 42, -7])?),
    })
}

fn check_split(u: &mut Unstructured) {
    let m = if u.ratio(1, 3).unwrap_or(false) {
        super::generate::module(u, &Default::default())
    } else {
        super::generate_ssa::ssa_function(u, &Default::default()).map(module_of)
    };
    let Ok(m) = m else { return };
    let model = u.arbitrary::<bool>().unwrap_or(true).then_some(SPLIT_MODEL);
    let entry = m.functions.last().expect("a function").name.clone();
    let params = m.function(&entry).expect("entry").signature.params.clone();
    let mut args = Vec::new();
    for _ in 0..3 {
        let a: Option<Vec<Val>> = params.iter().map(|&t| argument(u, t).ok()).collect();
        args.extend(a);
    }
    check_pipeline_matches_place(&m, model);
    check_split_module(&m, &entry, model, &args);
}

/// The pipeline's `placement` pass (which settles most functions before their sizes are
/// known, [`crate::placement::settle`]) and `place_function` (the whole problem, then the
/// solver) agree on every function of `m` under `model` (or the built-in model): the same
/// per-block rows (target, domain, island, pieces) and the same cost, or both fail.
/// Panics on a disagreement.
pub fn check_pipeline_matches_place(m: &Module, model: Option<&str>) {
    use crate::engine::Engine;
    use crate::placement::system::place_function;
    use crate::placement::targets::TargetModel;
    let symbols = Arc::new(m.symbol_table());
    let target_model = match model {
        Some(text) => TargetModel::parse(text).expect("the model parses"),
        None => TargetModel::default_model(),
    };
    let mut config = PipelineConfig::new(PassSet::PLACEMENT);
    config.options.placement_model = model.map(Arc::from);
    let mut engine = Engine::new(config);
    for f in &m.functions {
        let direct = place_function(
            f,
            Some(&symbols),
            &target_model,
            &SolveOptions::default(),
            &mut Solver::new(),
        );
        engine.load(f.clone(), &symbols);
        engine.run_schedule();
        let rows = crate::placement::columns::placement_of(engine.world_mut());
        let run = engine.take();
        let cost = run
            .stats
            .iter()
            .find(|s| s.pass == "placement" && s.name == "cost")
            .map(|s| s.value);
        match direct {
            Ok(d) => {
                assert!(!run.has_errors(), "@{}: {:?}", f.name, run.diagnostics);
                assert_eq!(rows, d.blocks, "@{}: rows differ", f.name);
                assert_eq!(cost, Some(d.placement.cost), "@{}: cost differs", f.name);
            }
            Err(e) => assert!(
                run.has_errors(),
                "@{}: only place_function failed: {e}",
                f.name
            ),
        }
    }
}

/// Runs `placement` with splitting (under `model`, a model file's text, or the built-in
/// model) on every function of `before` and judges the result as the module doc says,
/// calling `entry` with each of `args`. Panics on a violation; returns what the pass did.
pub fn check_split_module(
    before: &Module,
    entry: &str,
    model: Option<&str>,
    args: &[Vec<Val>],
) -> SplitCounts {
    let symbols = Arc::new(before.symbol_table());
    let mut config = PipelineConfig::new(PassSet::PLACEMENT);
    config.options.placement_split = true;
    config.options.placement_model = model.map(Arc::from);
    let mut after = before.clone();
    let mut counts = SplitCounts::default();
    for g in &mut after.functions {
        let input = std::mem::take(g);
        let (run, rows) = with_thread_engine(&config, |engine| {
            engine.load(input, &symbols);
            engine.run_schedule();
            let rows = crate::placement::columns::placement_of(engine.world_mut());
            (engine.take(), rows)
        })
        .unwrap_or_else(|panic| panic!("placement panicked: {panic}"));
        if let Some(d) = run
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
        {
            panic!(
                "placement with splitting failed: [{}] {}\nbefore:\n{}",
                d.pass,
                d.message,
                crate::text::print_module(before)
            );
        }
        *g = run.function;
        let stat = |name: &str| {
            run.stats
                .iter()
                .filter(|s| s.pass == "placement" && s.name == name)
                .map(|s| s.value)
                .sum::<u64>()
        };
        counts.created += stat("blocks_created");
        counts.fused += stat("blocks_fused");
        let errors = crate::verify::verify(&*g, &symbols);
        assert!(
            errors.is_empty(),
            "splitting made invalid IR: {errors:?}\nbefore:\n{}\nafter:\n{}",
            crate::text::print_module(before),
            crate::text::print_function(&*g, &symbols)
        );
        assert_eq!(rows.len(), g.num_blocks(), "one placement row per block");
        let mut cfg = crate::analysis::Cfg::new();
        cfg.compute(&*g);
        for &b in cfg.rpo() {
            assert_ne!(
                rows[b.index()].target,
                crate::placement::UNPLACED,
                "reachable {b:?} of @{} has no target",
                g.name
            );
        }
    }
    let config = interp::Config {
        step_limit: 200_000,
        ..Default::default()
    };
    for a in args {
        let x = interp::run(before, entry, a, config);
        let y = interp::run(&after, entry, a, config);
        let show = || {
            format!(
                "args {a:?}\nbefore:\n{}\nafter:\n{}",
                crate::text::print_module(before),
                crate::text::print_module(&after)
            )
        };
        match (&x, &y) {
            (Ok(p), Ok(q)) => {
                super::assert_same_observable(p, q, show);
            }
            // Cutting adds jumps, which count as steps.
            (Err(InterpError::StepLimit { .. }), _) | (_, Err(InterpError::StepLimit { .. })) => {}
            (Err(p), Err(q)) => assert_eq!(
                std::mem::discriminant(p),
                std::mem::discriminant(q),
                "different errors {p} / {q}; {}",
                show()
            ),
            _ => panic!("outcome differs: {x:?} / {y:?}; {}", show()),
        }
    }
    counts
}

fn raw_problem(u: &mut Unstructured) -> Result<Problem> {
    let k = u.int_in_range(1usize..=4)?;
    let n = u.int_in_range(1usize..=7)?;
    let mut p = Problem::new((0..k).map(|t| format!("t{t}")).collect());
    let cost = |u: &mut Unstructured| -> Result<Cost> {
        Ok(if u.ratio(1, 5)? {
            FORBIDDEN
        } else {
            u.int_in_range(0u64..=30)?
        })
    };
    for b in 0..n {
        let costs: Vec<Cost> = (0..k).map(|_| cost(u)).collect::<Result<_>>()?;
        p.add_block(format!("b{b}"), &costs);
    }
    let edges = u.int_in_range(0usize..=2 * n)?;
    for _ in 0..edges {
        let from = u.int_in_range(0..=n as u32 - 1)?;
        let to = u.int_in_range(0..=n as u32 - 1)?;
        let m: Vec<Cost> = (0..k * k)
            .map(|i| {
                if i % (k + 1) == 0 && !u.ratio(1, 8)? {
                    Ok(0)
                } else {
                    cost(u)
                }
            })
            .collect::<Result<_>>()?;
        p.add_edge(from, to, &m);
    }
    Ok(p)
}

/// Fuzz entry point: panics if the solver disagrees with the exhaustive oracle (see the
/// module doc).
pub fn check(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_problem(text);
    }
    let mut u = Unstructured::new(data);
    let Ok(kind) = u.int_in_range(0u8..=5) else {
        return;
    };
    if kind >= 4 {
        check_split(&mut u);
        return;
    }
    let p = if kind == 0 {
        match raw_problem(&mut u) {
            Ok(p) => p,
            Err(_) => return,
        }
    } else {
        let (Ok(seed), Ok(shape), Ok(n), Ok(k)) = (
            u.arbitrary::<u64>(),
            u.choose(&Shape::ALL),
            u.int_in_range(1usize..=7),
            u.int_in_range(1usize..=4),
        ) else {
            return;
        };
        problem(seed, *shape, n, k)
    };
    assert_eq!(parse_problem(&print_problem(&p)).as_ref(), Ok(&p));
    let exact = brute_force(&p);
    let search = SolveOptions {
        exact_budget: 0,
        ..SolveOptions::default()
    };
    for opts in [search, SolveOptions::default()] {
        judge(&p, &exact, &opts);
    }
}

fn judge(p: &Problem, exact: &Option<(Cost, Vec<u8>)>, opts: &SolveOptions) {
    let got = Solver::new().solve(p, opts);
    match (exact, &got) {
        (None, Err(PlacementError::EmptyDomain(_) | PlacementError::Unsatisfiable(_))) => {}
        (Some((opt, best)), Ok(pl)) => {
            assert_eq!(objective(p, &pl.assignment), Some(pl.cost));
            assert!(pl.cost >= *opt, "cost {} below the optimum {opt}", pl.cost);
            if pl.stats.eliminated {
                assert_eq!(pl.cost, *opt, "exact elimination missed the optimum");
            }
            for (b, &t) in best.iter().enumerate() {
                if t != crate::placement::UNPLACED {
                    assert!(
                        pl.domains[b].contains(t as usize),
                        "AC-3 removed an optimal target"
                    );
                }
            }
        }
        _ => panic!(
            "oracle {:?}, solver {:?} on\n{}",
            exact.as_ref().map(|e| e.0),
            got.map(|g| g.cost),
            print_problem(p)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;

    /// A brief run of the fuzz check on stable.
    #[test]
    fn placement_check_briefly() {
        for seed in 0..400 {
            check(&seed_bytes(seed ^ 0x9ace, 512));
        }
    }

    /// Splitting and fusion keep interpreter behaviour on generated functions, and the
    /// check exercises both: over 150 inputs blocks are cut and blocks are fused.
    #[test]
    fn splitting_and_fusion_keep_behaviour_on_generated_functions() {
        let mut total = SplitCounts::default();
        for seed in 0..150u64 {
            let data = seed_bytes(seed ^ 0x5b17, 4096);
            let mut u = Unstructured::new(&data);
            let m = if seed % 3 == 0 {
                crate::fuzzing::generate::module(&mut u, &Default::default())
            } else {
                crate::fuzzing::generate_ssa::ssa_function(&mut u, &Default::default())
                    .map(module_of)
            };
            let Ok(m) = m else { continue };
            let entry = m.functions.last().unwrap().name.clone();
            let params = m.function(&entry).unwrap().signature.params.clone();
            let args: Vec<Vec<Val>> = (0..2)
                .filter_map(|_| params.iter().map(|&t| argument(&mut u, t).ok()).collect())
                .collect();
            let model = (seed % 2 == 0).then_some(SPLIT_MODEL);
            let c = check_split_module(&m, &entry, model, &args);
            total.created += c.created;
            total.fused += c.fused;
        }
        assert!(
            total.created > 50 && total.fused >= 5,
            "splitting barely exercised: {total:?}"
        );
    }
}

//! The catalogue of shapes from spec 000's notes, one unit test each, plus IR-level checks of
//! the target model, splitting and fusion.

use super::generate::{problem, Shape};
use super::*;

fn solve_with(p: &Problem, opts: SolveOptions) -> Result<Placement, PlacementError> {
    Solver::new().solve(p, &opts)
}

fn forward_only() -> SolveOptions {
    SolveOptions {
        backward: false,
        fixpoint: false,
        window: 0,
        exact_budget: 0,
        ..SolveOptions::default()
    }
}

/// A hub SCC: per-block greedy puts the hub on `x` and the spokes on their cheap `y`,
/// paying four crossings (44); the exact CSP keeps the loop on `x` (12).
#[test]
fn hub_scc_greedy_44_optimum_12() {
    let p = parse_problem(
        "targets x y
         block hub 4 20
         block s1 4 0
         block s2 4 0
         edge hub -> s1 uniform 10
         edge s1 -> hub uniform 10
         edge hub -> s2 uniform 10
         edge s2 -> hub uniform 10",
    )
    .unwrap();
    // Greedy by block cost alone.
    let greedy: Vec<u8> = (0..3)
        .map(|b| (0..2).min_by_key(|&t| p.cost(b, t)).unwrap() as u8)
        .collect();
    assert_eq!(objective(&p, &greedy), Some(44));
    assert_eq!(brute_force(&p).unwrap().0, 12);
    assert_eq!(solve_with(&p, forward_only()).unwrap().cost, 12);
    assert_eq!(solve_with(&p, SolveOptions::default()).unwrap().cost, 12);
}

/// The backward pass fixes joins the forward pass got wrong: among generated diamonds
/// there are instances where forward-only is suboptimal and the backward pass (exact
/// delta, with all neighbours placed) lowers the cost; it never raises it.
#[test]
fn backward_pass_fixes_a_join() {
    let mut fixed = 0;
    for seed in 0..300u64 {
        let p = problem(seed, Shape::Diamond, 7, 3);
        let (Ok(f), Ok(b)) = (
            solve_with(&p, forward_only()),
            solve_with(
                &p,
                SolveOptions {
                    backward: true,
                    ..forward_only()
                },
            ),
        ) else {
            continue;
        };
        assert!(b.cost <= f.cost, "seed {seed}: backward raised the cost");
        if b.cost < f.cost && Some(b.cost) == brute_force(&p).map(|x| x.0) {
            fixed += 1;
        }
    }
    assert!(
        fixed > 0,
        "no generated diamond exercised the backward pass"
    );
}

/// Rewinding into a cyclic region (it re-solves with its interface assignment as a nogood)
/// and past it once exhausted: an odd "must differ" cycle downstream of a loop has no
/// solution, which arc consistency cannot see.
#[test]
fn rewinds_into_and_past_exhausted_cyclic_regions() {
    let p = parse_problem(
        "targets x y
         block e 0 1
         block a1 0 1
         block a2 0 1
         block b 0 0
         block c 0 0
         edge e -> a1 uniform 0
         edge a1 -> a2 uniform -
         edge a2 -> a1 uniform -
         edge a2 -> b [- 0; 0 -]
         edge a2 -> c [- 0; 0 -]
         edge b -> c [- 0; 0 -]",
    )
    .unwrap();
    assert!(brute_force(&p).is_none());
    match solve_with(&p, SolveOptions::default()) {
        Err(PlacementError::Unsatisfiable(blocks)) => assert!(!blocks.is_empty()),
        other => panic!("expected unsatisfiable, got {other:?}"),
    }
    // With a third target the cycle becomes satisfiable only after rewinding the loop
    // off its cheapest target.
    let p = parse_problem(
        "targets x y z
         block e 0 0 -
         block a1 0 5 -
         block a2 0 5 -
         block b 0 0 0
         block c 0 0 0
         edge e -> a1 uniform 0
         edge a1 -> a2 uniform -
         edge a2 -> a1 uniform -
         edge a2 -> b [- 0 -; 0 - 0; - - -]
         edge a2 -> c [- 0 -; 0 - 0; - - -]
         edge b -> c [- 0 0; 0 - 0; 0 0 -]",
    )
    .unwrap();
    let best = brute_force(&p).expect("feasible");
    let got = solve_with(&p, forward_only()).unwrap();
    assert_eq!(got.cost, best.0);
    assert_eq!(got.assignment[1], 1, "the loop had to move to y");
    assert!(
        got.stats.backtracks > 0,
        "the forward pass had to rewind: {:?}",
        got.stats
    );
}

/// Parallel switch edges are each charged and each must allow the transition: jointly
/// they admit only `x -> y`.
#[test]
fn parallel_switch_edges_are_satisfied_jointly() {
    let p = parse_problem(
        "targets x y
         block s 0 0
         block t 0 0
         edge s -> t [0 3; - -]
         edge s -> t [- 4; - 0]",
    )
    .unwrap();
    let got = solve_with(&p, SolveOptions::default()).unwrap();
    assert_eq!(got.assignment, vec![0, 1]);
    assert_eq!(got.cost, 7);
    assert_eq!(brute_force(&p).unwrap().0, 7);
}

/// A two-block SCC at the entry whose matrices contradict each other: AC-3 empties a
/// domain and the diagnostic names the blocks.
#[test]
fn contradictory_entry_scc_is_reported() {
    let p = parse_problem(
        "targets x y
         block e 1 1
         block f 1 1
         edge e -> f [- 0; - -]
         edge f -> e [- 0; - -]",
    )
    .unwrap();
    assert!(brute_force(&p).is_none());
    let err = solve_with(&p, SolveOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PlacementError::EmptyDomain(_)), "{text}");
    assert!(text.contains('e') || text.contains('f'), "{text}");
}

/// Unreachable blocks are not placed and their empty domains raise no diagnostic.
#[test]
fn unreachable_blocks_are_ignored() {
    let p = parse_problem(
        "targets x y
         block e 1 2
         block dead - -
         edge dead -> e uniform 1",
    )
    .unwrap();
    let got = solve_with(&p, SolveOptions::default()).unwrap();
    assert_eq!(got.assignment, vec![0, UNPLACED]);
    assert_eq!(got.cost, 1);
}

/// The default model on IR: a call splits a block (PostgreSQL cannot run it), the pieces
/// fuse back when they land on one target, and the exact cost matches brute force.
#[test]
fn default_model_splits_at_calls_and_fuses() {
    use crate::placement::system::place_function;
    use crate::placement::targets::TargetModel;
    let m = crate::text::parse_module(
        "func @ext(i64 v0) -> i64 {
block0:
  ret i64 v0
}

func @f(i64 v0) -> i64 {
block0:
  v1 = add i64 v0, 1
  v2 = call i64 @ext(i64 v1)
  v3 = mul i64 v2, 3
  jump block1
block1:
  ret i64 v3
}
",
        "split.sir",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let f = &m.functions[1];
    let symbols = m.symbol_table();
    let model = TargetModel::default_model();
    let fp = place_function(
        f,
        Some(&symbols),
        &model,
        &SolveOptions::default(),
        &mut Solver::new(),
    )
    .unwrap();
    assert!(fp.ir.pieces.len() >= 3, "{:?}", fp.ir.pieces);
    let pg = model
        .targets
        .iter()
        .position(|t| t.name == "postgres")
        .unwrap();
    let call_piece = fp
        .ir
        .pieces
        .iter()
        .position(|p| p.block == 0 && p.start <= 1 && 1 < p.end)
        .unwrap();
    assert!(!fp.placement.domains[call_piece].contains(pg));
    assert_eq!(
        Some(fp.placement.cost),
        brute_force(&fp.ir.problem).map(|b| b.0)
    );
    assert_eq!(
        fp.blocks[0].pieces.pieces as usize,
        fp.ir.pieces.iter().filter(|p| p.block == 0).count()
    );
    assert!(fp.blocks[0].pieces.fused <= fp.blocks[0].pieces.pieces);
}

/// A model file round-trips through the TOML reader and rejects unknown kinds by name.
#[test]
fn target_models_parse_and_report_errors() {
    use crate::placement::targets::TargetModel;
    let m = TargetModel::default_model();
    assert_eq!(m.len(), 3);
    let pg = m.targets.iter().position(|t| t.name == "postgres").unwrap();
    assert_eq!(m.transition(0, pg), None, "PostgreSQL is outgoing-only");
    assert!(m.cost(pg, TargetModel::kind("call").unwrap()).is_none());
    let err =
        TargetModel::parse("[[target]]\nname = \"a\"\nunsupported = [\"teleport\"]\n").unwrap_err();
    assert!(err.to_string().contains("teleport"), "{err}");
    let err = TargetModel::parse("[[target]]\nnam = \"a\"\n").unwrap_err();
    assert!(err.to_string().contains("line"), "{err}");
    let many: String = (0..20)
        .map(|i| format!("[[target]]\nname = \"t{i}\"\n"))
        .collect();
    assert_eq!(TargetModel::parse(&many).unwrap().len(), 20);
}

/// A loop spanning two islands is condensed into one scheduling step (never an assertion);
/// a path is provided by a dominating island on its origin, or by a synthetic data island.
#[test]
fn islands_of_a_loop_spanning_two_targets() {
    use crate::placement::islands::{build_islands, DependencyKind};
    let p = parse_problem(
        "targets a b
         block e 1 1
         block x 1 1
         block y 1 1
         edge e -> x uniform 1
         edge x -> y uniform 1
         edge y -> x uniform 1",
    )
    .unwrap();
    // Path 0 originates on a (read by y), path 1 on b (read by x).
    let paths = vec![vec![], vec![1], vec![0]];
    let g = build_islands(&p, &[0, 0, 1], &paths, &[0, 1]);
    assert_eq!(g.islands.len(), 3, "{g:?}");
    assert_eq!(g.islands[0].blocks, vec![0, 1]);
    assert_eq!(g.islands[1].blocks, vec![2]);
    assert!(g.islands[2].synthetic && g.islands[2].target == 1);
    assert_eq!(g.islands[0].requires, vec![1]);
    assert_eq!(g.islands[0].provides, vec![0]);
    assert_eq!(g.islands[2].provides, vec![1]);
    let has = |from, to, kind| {
        g.edges
            .iter()
            .any(|e| e.from == from && e.to == to && e.kind == kind)
    };
    assert!(has(0, 1, DependencyKind::ControlFlow));
    assert!(has(1, 0, DependencyKind::ControlFlow));
    assert!(has(0, 1, DependencyKind::DataFlow));
    assert!(has(2, 0, DependencyKind::DataFlow));
    assert_eq!(g.levels, vec![vec![2], vec![0, 1]]);
}

//! Property tests of the placement solver against the exhaustive oracle, and the catalogue
//! of shapes from spec 000's notes.

use super::csp::{solve_csp, CspLimits, CspScratch};
use super::generate::{problem, Rng, Shape};
use super::problem::{Constraints, Cost, TargetSet, FORBIDDEN};
use super::*;

fn search_only() -> SolveOptions {
    SolveOptions {
        exact_budget: 0,
        ..SolveOptions::default()
    }
}

/// Solver vs brute force on small generated problems of every shape, for the spec's search
/// pipeline alone and for the default (exact elimination first): feasibility agrees, the
/// reported cost is the exact objective of the assignment, never below the optimum; the
/// default is always optimal and the search nearly always.
#[test]
fn agrees_with_brute_force_on_small_problems() {
    let cached = SolveOptions {
        cache: true,
        ..search_only()
    };
    for (config, opts, min_percent) in [
        ("search", search_only(), 97),
        ("search+cache", cached, 97),
        ("default", SolveOptions::default(), 100),
    ] {
        let (mut total, mut optimal, mut infeasible) = (0, 0, 0);
        let mut solver = Solver::new();
        for seed in 0..700u64 {
            let shape = Shape::ALL[(seed % 7) as usize];
            let n = 1 + (seed as usize * 7 % 9);
            let k = 2 + (seed as usize % 3);
            let p = problem(seed, shape, n, k);
            let exact = brute_force(&p);
            let got = solver.solve(&p, &opts);
            total += 1;
            match (&exact, &got) {
                (None, Err(PlacementError::EmptyDomain(_) | PlacementError::Unsatisfiable(_))) => {
                    infeasible += 1
                }
                (Some((opt, _)), Ok(pl)) => {
                    assert_eq!(objective(&p, &pl.assignment), Some(pl.cost), "seed {seed}");
                    assert!(pl.cost >= *opt, "seed {seed}: below the optimum");
                    if pl.cost == *opt {
                        optimal += 1;
                    }
                }
                _ => panic!(
                    "{config} seed {seed} {shape:?}: oracle {:?}, solver {:?}\n{}",
                    exact.map(|e| e.0),
                    got.map(|g| g.cost),
                    print_problem(&p)
                ),
            }
        }
        let feasible = total - infeasible;
        assert!(
            infeasible > 20,
            "the generator must produce infeasible problems"
        );
        assert!(
            optimal * 100 >= feasible * min_percent,
            "{config}: optimal on {optimal} of {feasible} feasible problems"
        );
    }
}

/// AC-3 never removes a target that some feasible assignment uses.
#[test]
#[allow(clippy::needless_range_loop)]
fn ac3_keeps_every_supported_target() {
    for seed in 0..150u64 {
        let p = problem(
            seed,
            Shape::ALL[(seed % 7) as usize],
            1 + seed as usize % 6,
            3,
        );
        let c = Constraints::new(&p);
        let mut dom: Vec<TargetSet> = (0..c.n).map(|b| c.domain(b)).collect();
        let _ = ac3::prune(&c, &mut dom, &mut Default::default());
        for b in 0..p.num_blocks() {
            for t in 0..p.num_targets() {
                let mut q = p.clone();
                for x in 0..q.num_targets() {
                    if x != t {
                        q.block_cost[b * 3 + x] = FORBIDDEN;
                    }
                }
                if c.reachable[b] && brute_force(&q).is_some() {
                    assert!(
                        dom[b].contains(t),
                        "seed {seed}: AC-3 removed {t} from b{b}"
                    );
                }
            }
        }
    }
}

/// The CSP over one SCC with a fixed boundary equals brute force over its members.
#[test]
fn csp_with_fixed_boundary_equals_brute_force() {
    let mut checked = 0;
    for seed in 0..300u64 {
        let p = problem(seed, Shape::Loop, 8, 3);
        let c = Constraints::new(&p);
        let cond = condense::condense(&c);
        let Some(region) = (0..cond.len() as u32).find(|&r| cond.members(r).len() >= 2) else {
            continue;
        };
        let members = cond.members(region);
        let dom: Vec<TargetSet> = (0..c.n).map(|b| c.domain(b)).collect();
        // Fix every outside block to a random supported target.
        let mut rng = Rng::new(seed);
        let mut outside = vec![UNPLACED; c.n];
        for b in 0..c.n {
            if cond.region_of[b] != u32::MAX && !members.contains(&(b as u32)) {
                let ts: Vec<usize> = dom[b].iter().collect();
                if !ts.is_empty() {
                    outside[b] = ts[rng.below(ts.len() as u64) as usize] as u8;
                }
            }
        }
        let got = solve_csp(
            &c,
            members,
            &dom,
            &outside,
            &[],
            FORBIDDEN,
            CspLimits::default(),
            &mut CspScratch::default(),
        );
        // Brute force over the members only.
        let m = members.len();
        let mut best: Option<Cost> = None;
        let mut idx = vec![0usize; m];
        let k = c.k;
        'all: loop {
            let mut assign = outside.clone();
            for (i, &b) in members.iter().enumerate() {
                assign[b as usize] = idx[i] as u8;
            }
            let mut total: Cost = 0;
            for &b in members {
                total = problem::add(total, c.unary(b as usize, assign[b as usize] as usize));
                for &(ci, src) in c.incident(b as usize) {
                    let o = c.other(ci, src);
                    if assign[o] == UNPLACED || (members.contains(&(o as u32)) && !src) {
                        continue;
                    }
                    total = problem::add(
                        total,
                        c.edge_cost(ci, src, assign[b as usize] as usize, assign[o] as usize),
                    );
                }
            }
            if total != FORBIDDEN && best.is_none_or(|b| total < b) {
                best = Some(total);
            }
            for d in idx.iter_mut() {
                *d += 1;
                if *d < k {
                    continue 'all;
                }
                *d = 0;
            }
            break;
        }
        assert_eq!(got.map(|s| s.cost), best, "seed {seed}");
        checked += 1;
    }
    assert!(checked > 100, "only {checked} problems had a cyclic region");
}

#[test]
fn text_round_trips_and_reports_positions() {
    for seed in 0..50u64 {
        let p = problem(seed, Shape::Switch, 6, 3);
        let text = print_problem(&p);
        assert_eq!(parse_problem(&text).unwrap(), p);
    }
    let err = parse_problem("targets a b\nblock x 1 -\nedge x -> y uniform 3\n").unwrap_err();
    assert_eq!((err.line, err.col), (3, 11));
    assert!(err.message.contains("unknown block `y`"));
    let err = parse_problem("targets a b\nblock x 1\n").unwrap_err();
    assert_eq!((err.line, err.col), (2, 10));
    let err = parse_problem("targets a b\nblock x 1 2\nedge x -> x [0 1; 2]\n").unwrap_err();
    assert_eq!(err.line, 3);
    assert!(err.message.contains("cost"), "{}", err.message);
    assert!(parse_problem("block x 1\n").is_err());
    assert!(parse_problem("targets a\nbloc x 1\n")
        .unwrap_err()
        .message
        .contains("unknown keyword"));
}

/// The dominators computed on the block graph of the first pieces
/// ([`islands::piece_dominators`]) are the textbook iteration's over every piece
/// ([`islands::dominators`]), and so are those read off the function's dominator tree
/// ([`islands::tree_piece_dominators`]), and the islands built with either are the same, on generated
/// functions (SSA with loops and phis; memory form with calls, some with unreachable
/// blocks) under the built-in model and a model that cuts most blocks.
#[test]
fn piece_dominators_match_the_piece_graphs() {
    use crate::fuzzing::placement::SPLIT_MODEL;
    use crate::ir::IrRead;
    let split = targets::TargetModel::parse(SPLIT_MODEL).expect("the split model parses");
    let models = [targets::TargetModel::default_model(), split];
    let (mut cut, mut unreachable) = (0, 0);
    for seed in 0..200u64 {
        let data = crate::fuzzing::generate::seed_bytes(seed, 4096);
        let mut u = arbitrary::Unstructured::new(&data);
        let functions = if seed % 2 == 0 {
            match crate::fuzzing::generate::module(&mut u, &Default::default()) {
                Ok(m) => m.functions,
                Err(_) => continue,
            }
        } else {
            vec![crate::fuzzing::generate_ssa::seeded_ssa(
                seed,
                &Default::default(),
            )]
        };
        for (f, model) in functions
            .iter()
            .flat_map(|f| models.iter().map(move |m| (f, m)))
        {
            let ir = build::build_problem(f, None, model);
            let p = &ir.problem;
            let want = islands::dominators(p);
            assert_eq!(
                islands::piece_dominators(p, &ir.pieces),
                want,
                "seed {seed}"
            );
            let mut cfg = crate::analysis::Cfg::new();
            cfg.compute(f);
            let mut tree = crate::analysis::DomTree::new();
            tree.compute(&cfg);
            assert_eq!(
                islands::tree_piece_dominators(&ir.pieces, &tree),
                want,
                "seed {seed}"
            );
            unreachable += usize::from(want.contains(&u32::MAX));
            cut += usize::from(ir.pieces.len() > f.num_blocks());
            let Ok(pl) = Solver::new().solve(p, &SolveOptions::default()) else {
                continue;
            };
            let args = (&pl.assignment[..], &ir.paths[..], &ir.path_origin[..]);
            let whole = islands::build_islands(p, args.0, args.1, args.2);
            assert_eq!(
                islands::build_piece_islands(p, &ir.pieces, args, None),
                whole,
                "seed {seed}"
            );
            assert_eq!(
                islands::build_piece_islands(p, &ir.pieces, args, Some(&tree)),
                whole,
                "seed {seed}"
            );
        }
    }
    assert!(
        cut > 50,
        "the models cut blocks into pieces ({cut} problems)"
    );
    assert!(
        unreachable > 20,
        "problems with unreachable pieces ({unreachable})"
    );
}

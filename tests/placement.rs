//! Placement solver against the exact ILP oracle (`microlp`) on problems too large for
//! brute force, and the ILP oracle against brute force on small ones.

mod placement_oracle;

use placement_oracle::ilp_optimum;
use strata::placement::generate::{problem, Shape};
use strata::placement::{brute_force, objective, PlacementError, SolveOptions, Solver};

#[test]
fn ilp_oracle_agrees_with_brute_force() {
    for seed in 0..200u64 {
        let p = problem(
            seed,
            Shape::ALL[(seed % 7) as usize],
            1 + seed as usize % 8,
            3,
        );
        assert_eq!(ilp_optimum(&p), brute_force(&p).map(|b| b.0), "seed {seed}");
    }
}

#[test]
fn solver_matches_ilp_on_medium_problems() {
    let mut solver = Solver::new();
    let (mut feasible, mut optimal) = (0, 0);
    for seed in 0..140u64 {
        let shape = Shape::ALL[(seed % 7) as usize];
        let n = 12 + (seed as usize * 13) % 40;
        let k = 3 + seed as usize % 4;
        let p = problem(seed, shape, n, k);
        let exact = ilp_optimum(&p);
        match (exact, solver.solve(&p, &SolveOptions::default())) {
            (None, Err(PlacementError::EmptyDomain(_) | PlacementError::Unsatisfiable(_))) => {}
            (Some(opt), Ok(pl)) => {
                assert_eq!(objective(&p, &pl.assignment), Some(pl.cost));
                assert!(
                    pl.cost >= opt,
                    "seed {seed}: {} below optimum {opt}",
                    pl.cost
                );
                feasible += 1;
                optimal += (pl.cost == opt) as usize;
            }
            (e, g) => panic!("seed {seed} {shape:?} n={n} k={k}: ILP {e:?}, solver {g:?}"),
        }
    }
    assert!(feasible > 50, "only {feasible} feasible problems");
    assert!(
        optimal * 100 >= feasible * 85,
        "optimal on {optimal} of {feasible}"
    );
}

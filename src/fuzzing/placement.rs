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
//! Complexity: O(K^blocks) for the oracle, at most 4^7.

use crate::placement::generate::{problem, Shape};
use crate::placement::problem::{Cost, Problem, FORBIDDEN};
use crate::placement::{
    brute_force, objective, parse_problem, print_problem, PlacementError, SolveOptions, Solver,
};
use arbitrary::{Result, Unstructured};

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
    let Ok(kind) = u.int_in_range(0u8..=3) else {
        return;
    };
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
}

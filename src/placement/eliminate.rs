//! Exact placement by variable elimination over a small-width elimination order.
//!
//! What: the objective is a sum of unary terms (blocks) and pairwise terms (constraints)
//! over the blocks' domains (after AC-3). When the constraint graph has small treewidth, as
//! structured CFGs do (Thorup, "All structured programs have small tree width and good
//! register allocation", 1998), min-sum bucket elimination finds the exact optimum in time
//! linear in the number of blocks and exponential only in the width. [`eliminate`] picks a
//! greedy min-fill order, estimates the table sizes it would build, and gives up (returns
//! `Ok(None)`) when they exceed a budget, leaving the problem to the search of
//! [`super::solve`].
//!
//! Algorithm: Dechter, "Bucket elimination: a unifying framework for reasoning" (1999),
//! min-sum form. Eliminating block `x` joins every factor mentioning `x` into one table over
//! `x`'s neighbours `S` and minimises over `x`, recording the argmin per assignment of `S`;
//! decoding runs the order backwards. Forbidden entries are [`FORBIDDEN`] and absorb.
//!
//! Invariants: the answer is a minimum of the exact objective over all assignments within
//! the AC-3 domains (AC-3 keeps every target of every feasible assignment), or infeasible.
//!
//! Complexity: O(Σ_x Π_{y ∈ S(x) ∪ {x}} |dom y| · factors(x)); bounded by the budget.

use super::problem::{add, Constraints, Cost, TargetSet, FORBIDDEN};

/// A table over a scope of blocks (row-major in scope order, each axis over the block's
/// domain in ascending target order).
#[derive(Clone, Debug)]
struct Factor {
    scope: Vec<u32>,
    table: Vec<Cost>,
}

/// The exact optimum within `budget` table entries: `Ok(Some(assignment))`, `Ok(None)` if
/// the elimination would exceed the budget, `Err(())` if no assignment is feasible.
#[allow(clippy::result_unit_err)]
pub fn eliminate(c: &Constraints, dom: &[TargetSet], budget: u64) -> Result<Option<Vec<u8>>, ()> {
    let n = c.n;
    let vars: Vec<usize> = (0..n).filter(|&b| c.reachable[b]).collect();
    let values: Vec<Vec<u8>> = (0..n)
        .map(|b| dom[b].iter().map(|t| t as u8).collect())
        .collect();
    // Adjacency (undirected, deduplicated) for the order.
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for con in &c.constraints {
        let (a, b) = (con.from as usize, con.to as usize);
        if !adj[a].contains(&(b as u32)) {
            adj[a].push(b as u32);
            adj[b].push(a as u32);
        }
    }
    // Greedy order by smallest table (min-size, a weighted min-degree), with the fill it
    // creates and the work it implies.
    let mut eliminated = vec![false; n];
    let mut order: Vec<u32> = Vec::with_capacity(vars.len());
    let mut nb: Vec<Vec<u32>> = adj.clone();
    let mut work: u64 = 0;
    // Lazy min-heap of (table size, block); a stale entry's size differs from `key`.
    let table_size = |nb: &[Vec<u32>], x: u32| -> u64 {
        nb[x as usize]
            .iter()
            .map(|&y| values[y as usize].len() as u64)
            .fold(values[x as usize].len() as u64, |a, b| a.saturating_mul(b))
    };
    let mut key = vec![0u64; n];
    let mut heap = std::collections::BinaryHeap::new();
    for &b in &vars {
        key[b] = table_size(&nb, b as u32);
        heap.push(std::cmp::Reverse((key[b], b as u32)));
    }
    while let Some(std::cmp::Reverse((size, x))) = heap.pop() {
        if eliminated[x as usize] || size != key[x as usize] {
            continue;
        }
        let xs = std::mem::take(&mut nb[x as usize]);
        work = work.saturating_add(size);
        if work > budget {
            return Ok(None);
        }
        eliminated[x as usize] = true;
        order.push(x);
        for &y in &xs {
            let list = &mut nb[y as usize];
            list.retain(|&z| z != x);
            for &z in &xs {
                if z != y && !list.contains(&z) {
                    list.push(z);
                }
            }
        }
        for &y in &xs {
            key[y as usize] = table_size(&nb, y);
            heap.push(std::cmp::Reverse((key[y as usize], y)));
        }
    }
    // Factors: unary and pairwise, bucketed by the earliest-eliminated variable in scope.
    let mut rank = vec![u32::MAX; n];
    for (i, &x) in order.iter().enumerate() {
        rank[x as usize] = i as u32;
    }
    let mut buckets: Vec<Vec<Factor>> = vec![Vec::new(); order.len()];
    for &b in &vars {
        let table: Vec<Cost> = values[b].iter().map(|&t| c.unary(b, t as usize)).collect();
        buckets[rank[b] as usize].push(Factor {
            scope: vec![b as u32],
            table,
        });
    }
    for con in &c.constraints {
        let (a, b) = (con.from as usize, con.to as usize);
        let mut table = Vec::with_capacity(values[a].len() * values[b].len());
        for &s in &values[a] {
            for &d in &values[b] {
                table.push(con.cost(s as usize, d as usize));
            }
        }
        let r = rank[a].min(rank[b]);
        buckets[r as usize].push(Factor {
            scope: vec![a as u32, b as u32],
            table,
        });
    }
    // Eliminate.
    let mut argmins: Vec<(Vec<u32>, Vec<u8>)> = Vec::with_capacity(order.len());
    for (i, &x) in order.iter().enumerate() {
        let factors = std::mem::take(&mut buckets[i]);
        let mut sep: Vec<u32> = factors
            .iter()
            .flat_map(|f| f.scope.iter().copied())
            .filter(|&y| y != x)
            .collect();
        sep.sort_unstable();
        sep.dedup();
        let dims: Vec<usize> = sep.iter().map(|&y| values[y as usize].len()).collect();
        let total: usize = dims.iter().product();
        let xv = values[x as usize].len();
        let mut table = vec![FORBIDDEN; total];
        let mut arg = vec![0u8; total];
        // Position of each factor's scope variables in (sep, x).
        let maps: Vec<Vec<Option<usize>>> = factors
            .iter()
            .map(|f| {
                f.scope
                    .iter()
                    .map(|&y| {
                        if y == x {
                            None
                        } else {
                            sep.iter().position(|&z| z == y)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut idx = vec![0usize; sep.len()];
        for (cell, slot) in table.iter_mut().enumerate() {
            let mut best = FORBIDDEN;
            let mut best_v = 0u8;
            for v in 0..xv {
                let mut sum: Cost = 0;
                for (f, map) in factors.iter().zip(&maps) {
                    let mut at = 0usize;
                    for (&y, m) in f.scope.iter().zip(map) {
                        let coord = match m {
                            Some(p) => idx[*p],
                            None => v,
                        };
                        at = at * values[y as usize].len() + coord;
                    }
                    sum = add(sum, f.table[at]);
                    if sum == FORBIDDEN {
                        break;
                    }
                }
                if sum < best {
                    best = sum;
                    best_v = v as u8;
                }
            }
            *slot = best;
            arg[cell] = best_v;
            // Odometer over sep (last axis fastest, matching row-major).
            for d in (0..idx.len()).rev() {
                idx[d] += 1;
                if idx[d] < dims[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        if sep.is_empty() {
            if table[0] == FORBIDDEN {
                return Err(());
            }
        } else {
            let r = sep
                .iter()
                .map(|&y| rank[y as usize])
                .min()
                .expect("non-empty");
            buckets[r as usize].push(Factor {
                scope: sep.clone(),
                table,
            });
        }
        argmins.push((sep, arg));
    }
    // Decode backwards: every separator variable is eliminated later, so decoded earlier.
    let mut choice = vec![0usize; n];
    let mut assignment = vec![super::cost::UNPLACED; n];
    for (i, &x) in order.iter().enumerate().rev() {
        let (sep, arg) = &argmins[i];
        let mut at = 0usize;
        for &y in sep {
            at = at * values[y as usize].len() + choice[y as usize];
        }
        let v = arg[at] as usize;
        choice[x as usize] = v;
        assignment[x as usize] = values[x as usize][v];
    }
    Ok(Some(assignment))
}

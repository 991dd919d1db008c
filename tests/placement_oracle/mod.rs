//! The exact ILP oracle for placement problems (dev-only: `microlp`), shared by the
//! placement tests, the optimality example and the benchmark.
//!
//! Formulation (the local polytope of the pairwise energy): a binary `x[b][t]` per reachable
//! block and supported target with `Σ_t x[b][t] = 1`; a continuous `y[c][s][d] ∈ [0, 1]` per
//! merged constraint and allowed target pair with `Σ_d y[c][s][d] = x[from][s]` and
//! `Σ_s y[c][s][d] = x[to][d]`. With integral `x` each constraint's `y` is forced onto the one
//! chosen pair (or the model is infeasible when that pair is forbidden), so the optimum is
//! the placement optimum. Minimise `Σ unary·x + Σ cost·y`.

#![allow(dead_code)]

use strata::placement::problem::{Constraints, Cost, Problem, FORBIDDEN};

/// The exact optimum of `p`, or `None` if infeasible.
pub fn ilp_optimum(p: &Problem) -> Option<Cost> {
    use microlp::{ComparisonOp, OptimizationDirection, Problem as Lp};
    let c = Constraints::new(p);
    let k = c.k;
    let mut lp = Lp::new(OptimizationDirection::Minimize);
    let mut x = vec![None; c.n * k];
    for b in 0..c.n {
        if !c.reachable[b] {
            continue;
        }
        let mut row = Vec::new();
        for t in 0..k {
            let u = c.unary(b, t);
            if u != FORBIDDEN {
                let v = lp.add_binary_var(u as f64);
                x[b * k + t] = Some(v);
                row.push((v, 1.0));
            }
        }
        if row.is_empty() {
            return None;
        }
        lp.add_constraint(row.as_slice(), ComparisonOp::Eq, 1.0);
    }
    for (ci, con) in c.constraints.iter().enumerate() {
        let (f, t) = (con.from as usize, con.to as usize);
        let mut out_rows: Vec<Vec<(microlp::Variable, f64)>> = vec![Vec::new(); k];
        let mut in_rows: Vec<Vec<(microlp::Variable, f64)>> = vec![Vec::new(); k];
        for s in 0..k {
            for d in 0..k {
                let m = c.cost(ci as u32, s, d);
                if m == FORBIDDEN || x[f * k + s].is_none() || x[t * k + d].is_none() {
                    continue;
                }
                let y = lp.add_var(m as f64, (0.0, 1.0));
                out_rows[s].push((y, 1.0));
                in_rows[d].push((y, 1.0));
            }
        }
        for s in 0..k {
            if let Some(xv) = x[f * k + s] {
                let mut row = std::mem::take(&mut out_rows[s]);
                row.push((xv, -1.0));
                lp.add_constraint(row.as_slice(), ComparisonOp::Eq, 0.0);
            }
            if let Some(xv) = x[t * k + s] {
                let mut row = std::mem::take(&mut in_rows[s]);
                row.push((xv, -1.0));
                lp.add_constraint(row.as_slice(), ComparisonOp::Eq, 0.0);
            }
        }
    }
    match lp.solve() {
        Ok(outcome) => {
            let sol = outcome.into_solution().ok()?;
            Some(sol.objective().round() as Cost)
        }
        Err(microlp::Error::Infeasible) => None,
        Err(e) => panic!("the ILP oracle failed: {e:?}"),
    }
}

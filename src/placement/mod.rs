//! Placement: every block on an execution target (specs 000 and 001, DESIGN.md 4).
//!
//! The solver works on a dense [`Problem`] (blocks, edges with per-edge transition
//! matrices, per-block per-target costs): [`ac3`] prunes domains, [`condense`] builds the
//! regions, [`csp`] solves a region (or any window of blocks) exactly, [`solve`] drives the
//! forward pass with backtracking, the backward pass and the fixpoint, and [`cost`] holds
//! the exact objective and the exhaustive oracle. [`text`] is the problem's text form,
//! [`islands`] groups the result into execution islands and their dependency graph.

pub mod ac3;
pub mod condense;
pub mod cost;
pub mod csp;
pub mod eliminate;
pub mod generate;
pub mod ir;
pub mod islands;
pub mod problem;
pub mod solve;
pub mod system;
pub mod targets;
pub mod text;

pub use cost::{brute_force, objective, UNPLACED};
pub use problem::{Cost, Problem, TargetSet, FORBIDDEN, MAX_TARGETS};
pub use solve::{Placement, PlacementError, SolveOptions, SolveStats, Solver};
pub use text::{parse_problem, print_problem, ProblemParseError};

#[cfg(test)]
mod catalogue;
#[cfg(test)]
mod tests;

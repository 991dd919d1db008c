//! Placement: every block on an execution target (specs 000 and 001, DESIGN.md 4).
//!
//! The solver works on a dense [`Problem`] (blocks, edges with per-edge transition
//! matrices, per-block per-target costs): [`ac3`] prunes domains, [`condense`] builds the
//! regions, [`csp`] solves a region (or any window of blocks) exactly, [`eliminate`] solves
//! narrow problems exactly by variable elimination, [`solve`] drives them (elimination when
//! the width allows, else the forward pass with backtracking, the backward pass and the
//! fixpoint), [`settle`] places a function whose optimum its transfer sizes cannot change
//! (AC-3 and a lower-bound test before the sizes are computed), and [`cost`] holds the exact objective and the exhaustive oracle. [`text`] is
//! the problem's text form and [`generate`] makes problems for tests and benchmarks.
//!
//! From IR: [`targets`] reads target models (TOML), [`build`] builds the problem of a function
//! (eligibility, sizes, splitting, block costs, edge matrices: one file each), [`fusion`]
//! fuses the result, [`islands`] groups placed
//! blocks into islands and their dependency graph, [`split`] applies splitting and fusion to
//! the IR, [`columns`] holds the per-block results as components of the block entities, and
//! [`system`] is the pipeline's `placement` pass.
//!
//! Measured (`examples/placement_optimality.rs` against an exact ILP; `benches/placement.rs`):
//! see the README's placement section and the module docs of [`solve`] and [`eliminate`].

pub mod ac3;
pub mod build;
pub mod columns;
pub mod condense;
pub mod cost;
pub mod csp;
pub mod eliminate;
pub mod fusion;
pub mod generate;
pub mod islands;
pub mod problem;
pub mod settle;
pub mod sizes;
pub mod solve;
pub mod split;
pub mod system;
pub mod targets;
pub mod text;

pub use cost::{brute_force, objective, UNPLACED};
pub use problem::{Cost, Problem, ProblemError, TargetSet, FORBIDDEN, MAX_TARGETS};
pub use solve::{Placement, PlacementError, SolveOptions, SolveStats, Solver};
pub use text::{parse_problem, print_problem, ProblemParseError};

#[cfg(test)]
mod catalogue;
#[cfg(test)]
mod tests;

//! Generators and per-system oracle checks.
//!
//! Each check is `pub fn check(data: &[u8])` over a system run alone and judged by its oracle
//! (DESIGN.md 5). `cargo test` runs every check briefly on stable; `fuzz/` holds the
//! cargo-fuzz shims of the same names for long runs on nightly.

pub mod dominance;
pub mod generate;
pub mod generate_ssa;
pub mod llvm_import;
pub mod machine_gen;
pub mod mem2reg;
pub mod moves;
pub mod phi_elim;
pub mod placement;
pub mod sccp;
pub mod text;

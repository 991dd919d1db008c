//! Generators and per-system oracle checks.
pub mod dominance;
pub mod generate;

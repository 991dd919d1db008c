//! Generators and per-system oracle checks.

pub mod text;

//! The strata IR as data: handles, types, instructions, functions, modules, the builder and
//! the verifier (DESIGN.md 3.1).
//!
//! This folder holds data and the checks on it, no transformations. A function is a set of
//! dense tables keyed by typed handles ([`Block`], [`Inst`], [`Value`], [`Const`]); in the
//! World the same tables are component columns of block and instruction entities (see
//! [`crate::engine`]). Invariants are listed once, in [`verifier`].

mod builder;
mod entities;
mod function;
mod instructions;
mod names;
mod types;
pub mod verifier;

pub use builder::{FunctionBuilder, ModuleBuilder};
pub use entities::{Block, Const, Inst, Symbol, Value};
pub use function::*;
pub use instructions::*;
pub use types::Type;

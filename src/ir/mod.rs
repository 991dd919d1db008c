//! The strata IR as data: handles, types, instructions, functions, modules, the builder and
//! the component columns a function has in the World (DESIGN.md 3.1).
//!
//! This folder holds data and the checks on it, no transformations. A function is a set of
//! dense tables keyed by typed handles ([`Block`], [`Inst`], [`Value`], [`Const`]); in the
//! World the same tables are component columns of block and instruction entities (see
//! [`body`]). Invariants are listed once, in [`crate::verify`]. This folder imports no
//! engine, no analysis and no pass, and defines no system.

pub mod access;
pub mod aggregate;
pub mod body;
mod builder;
mod entities;
pub mod fp80;
mod function;
mod instructions;
mod names;
mod terminator;
mod types;

pub use access::*;
pub use aggregate::{AggId, AggInfo, AggShape, AggregateError};
pub use body::*;
pub use builder::{FunctionBuilder, ModuleBuilder};
pub use entities::{Block, Const, Inst, Symbol, Value};
pub use function::*;
pub use instructions::*;
pub use terminator::{Target, Terminator};
pub use types::Type;

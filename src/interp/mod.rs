//! Interpreter (placeholder until the interp branch lands).
use crate::ir::{Module, Type};
/// Placeholder.
#[derive(Default, Clone)]
pub struct Config { /// Steps.
 pub step_limit: u64 }
/// Placeholder.
#[derive(Debug, Clone, Copy)]
pub struct Val;
impl Val { /// Parse.
 pub fn parse(_t: Type, _s: &str) -> Result<Val, String> { Err("unavailable".into()) } }
impl std::fmt::Display for Val { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str("?") } }
/// Placeholder.
pub struct Outcome { /// r
 pub result: Option<Val>, /// o
 pub output: Vec<u8>, /// e
 pub exit_code: Option<i32> }
/// Placeholder.
pub fn run(_m: &Module, _f: &str, _a: &[Val], _c: Config) -> Result<Outcome, String> { Err("unavailable".into()) }

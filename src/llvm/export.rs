//! Placeholder.
use super::LlvmContext;
/// Exports.
pub fn export(_m: &crate::ir::Module, _c: &LlvmContext) -> String { String::new() }

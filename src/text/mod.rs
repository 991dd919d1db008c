//! Text (placeholder).
/// Prints a function.
pub fn print_function(_ir: &impl crate::ir::IrRead, _symbols: &crate::ir::SymbolTable) -> String { String::new() }
/// Placeholder.
pub fn print_module(_m: &crate::ir::Module) -> String { String::new() }
/// Placeholder.
pub fn parse_module(_s: &str, _f: &str) -> Result<crate::ir::Module, String> { Err("unavailable".into()) }

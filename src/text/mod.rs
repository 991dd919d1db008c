//! Text (placeholder).
/// Prints a function.
pub fn print_function(_ir: &impl crate::ir::IrRead, _symbols: &crate::ir::SymbolTable) -> String { String::new() }

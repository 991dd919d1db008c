//! Generators and per-system oracle checks (placeholder).
/// Placeholder.
pub mod generate { /// o
 #[derive(Default)] pub struct GenOptions; /// s
 pub fn seeded(_s: u64, _o: &GenOptions) -> crate::ir::Function { Default::default() } }

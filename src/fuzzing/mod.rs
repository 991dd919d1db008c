//! Generators and per-system oracle checks.

/// Placeholder until the analysis branch lands.
pub mod generate {
    /// Placeholder.
    #[derive(Default)]
    pub struct GenOptions;
    /// Placeholder.
    pub fn seeded(_s: u64, _o: &GenOptions) -> crate::ir::Function {
        Default::default()
    }
}
pub mod text;

//! The verifier (placeholder until written).

use crate::engine::{Diagnostic, Diagnostics, IrQuery, Severity, Stage};
use bevy_ecs::prelude::*;

/// Runs the verifier on `ir` and appends its errors to `diags` as coming from `pass`.
pub fn report(ir: &impl crate::ir::IrRead, pass: &'static str, diags: &mut Diagnostics) {
    let _ = (ir, pass, diags, Severity::Error);
    let _: Option<Diagnostic> = None;
}

/// The `verify` pass's system: checks the function in the World.
pub fn verify_function(ir: IrQuery, mut diags: ResMut<Diagnostics>) {
    report(&ir, "verify", &mut diags);
}

/// Adds the verifier's system to the `Verify` stage.
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(verify_function.in_set(Stage::Verify));
}

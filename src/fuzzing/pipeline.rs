//! Oracle check of the whole pipeline: the interpreter before and after the default
//! pipeline, and after its block-parameter variant, with the verifier after each
//! (DESIGN.md 5).
//!
//! What: [`check`] draws a memory-form module with calls ([`super::generate::module`]) or,
//! one time in four, an SSA function with phis ([`super::generate_ssa::ssa_function`]), and
//! runs every function through the engine ([`crate::api::run_in_place`]) with
//! [`PipelineConfig::new`] of [`PassSet::default_pipeline`] (verify, CFG, dominance,
//! mem2reg, SCCP, placement, phi elimination: every system of those stages, in schedule
//! order), then again with block parameters instead of phi elimination (how the machine
//! path leaves SSA). Judged by [`super::mem2reg::check_module_with`]:
//! (a) no pass reports an error on a valid input;
//! (b) the verifier accepts every function after the pipeline;
//! (c) on a few argument vectors per function, the interpreter gives the same result,
//!     output, exit code, memory digest and external-call trace before and after.
//!
//! Each system has its own check with a sharper oracle; this one finds what only their
//! composition breaks (a pass leaving a shape the next one mishandles, an analysis the
//! engine failed to bring up to date between stages).
//!
//! Complexity: the pipeline (linear passes, placement's exact solve on small problems) plus
//! interpretation bounded by the step budget, per function and variant.

use super::mem2reg::check_module_with;
use crate::api::run_in_place;
use crate::engine::{PassSet, PipelineConfig, Severity};
use arbitrary::Unstructured;

/// Fuzz entry point: panics if the default pipeline (or its block-parameter variant)
/// reports an error on a valid function, leaves invalid IR or changes what it computes.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(module) = super::draw_module(&mut u, &super::mem2reg::gen_options()) else {
        return;
    };
    let seed = u.arbitrary::<u64>().unwrap_or(0);
    let default = PassSet::default_pipeline();
    let block_params = (default - PassSet::PHI_ELIM) | PassSet::BLOCK_PARAMS;
    for passes in [default, block_params] {
        let config = PipelineConfig::new(passes);
        check_module_with(&module, seed, &mut |f, symbols| {
            let name = f.name.clone();
            let report = run_in_place(f, symbols, &config);
            let errors: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| format!("[{}] {}", d.pass, d.message))
                .collect();
            assert!(
                errors.is_empty(),
                "@{name}: the pipeline ({passes:?}) reports errors on a valid function: {errors:?}"
            );
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;

    #[test]
    fn pipeline_check_passes_on_seeded_inputs() {
        for seed in 0..64u64 {
            check(&seed_bytes(seed, 3000));
        }
    }
}

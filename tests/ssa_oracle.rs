//! Differential oracles of SSA construction, phi elimination and block-parameter
//! conversion on generated functions (DESIGN.md 5): see `strata::fuzzing::mem2reg`.

use strata::fuzzing::mem2reg;

#[test]
fn mem2reg_matches_interpreter() {
    mem2reg::run_seeds(400, mem2reg::check);
}

//! Differential oracles of SSA construction, phi elimination and block-parameter
//! conversion on generated functions (DESIGN.md 5): see `strata::fuzzing::mem2reg`.

use strata::fuzzing::mem2reg;

#[test]
fn mem2reg_matches_interpreter() {
    mem2reg::run_seeds(400, mem2reg::check);
}

#[test]
fn phi_elim_matches_interpreter() {
    mem2reg::run_seeds(400, strata::fuzzing::phi_elim::check);
}

#[test]
fn block_params_match_interpreter() {
    mem2reg::run_seeds(300, strata::fuzzing::phi_elim::check_block_params);
}

#[test]
fn asm_goto_results_verify() {
    mem2reg::run_seeds(300, strata::fuzzing::phi_elim::check_asm_goto);
}

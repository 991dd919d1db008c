//! libFuzzer shim for the `phi_elim` check (phi elimination and block parameters after
//! mem2reg); the checks live in `strata::fuzzing::phi_elim` and also run under `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::phi_elim::check(data);
    strata::fuzzing::phi_elim::check_block_params(data);
});

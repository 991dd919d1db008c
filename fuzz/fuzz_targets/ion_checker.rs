//! libFuzzer shim for the `ion_checker` check; the check itself lives in
//! `strata::fuzzing::ion::check_with_checkers` and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::ion::check_with_checkers(data);
});

//! libFuzzer shim for the `lowering` check; the check itself lives in `strata::fuzzing::lowering`
//! and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::lowering::check(data);
});

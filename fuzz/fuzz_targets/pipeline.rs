//! libFuzzer shim for the `pipeline` check; the check itself lives in `strata::fuzzing::pipeline`
//! and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::pipeline::check(data);
});

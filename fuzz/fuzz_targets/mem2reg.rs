//! libFuzzer shim for the `mem2reg` check; the check itself lives in `strata::fuzzing::mem2reg`
//! and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::mem2reg::check(data);
});

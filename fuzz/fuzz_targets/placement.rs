//! libFuzzer shim for the `placement` check; the check itself lives in
//! `strata::fuzzing::placement` and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::placement::check(data);
});

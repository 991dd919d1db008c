//! libFuzzer shim for the `text` check; the check itself lives in `strata::fuzzing::text`
//! and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::text::check(data);
});

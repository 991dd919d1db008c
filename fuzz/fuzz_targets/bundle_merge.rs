//! libFuzzer shim for the `bundle_merge` check; the check itself lives in
//! `strata::fuzzing::bundle_merge` and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::bundle_merge::check(data);
});

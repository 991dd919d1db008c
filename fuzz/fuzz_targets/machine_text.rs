//! libFuzzer shim for the `machine_text` check; the check itself lives in
//! `strata::fuzzing::machine_text` and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::machine_text::check_seeded(data);
});

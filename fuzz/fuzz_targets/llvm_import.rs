//! libFuzzer shim for the `llvm_import` check; the check itself lives in
//! `strata::fuzzing::llvm_import` and also runs briefly under `cargo test` on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata::fuzzing::llvm_import::check(data);
});

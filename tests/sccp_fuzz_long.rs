//! Long run of the SCCP oracle (ignored by default: `cargo test --release --test
//! sccp_fuzz_long -- --ignored`).

#[test]
#[ignore]
fn sccp_oracle_many_seeds() {
    let n: u64 = std::env::var("SCCP_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    for seed in 0..n {
        let data = strata::fuzzing::generate::seed_bytes(seed ^ 0x5cc9, 8192);
        let r = std::panic::catch_unwind(|| strata::fuzzing::sccp::check(&data));
        assert!(r.is_ok(), "seed {seed} failed");
    }
}

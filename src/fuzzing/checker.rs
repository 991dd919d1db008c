//! Fuzz check of the symbolic checker ([`crate::regalloc::checker`]) against regalloc2's
//! `checker::Checker`, on regalloc2's own allocations, intact and corrupted.
//!
//! What: [`check`] draws a machine function ([`super::machine_gen`]), lets regalloc2 (Ion)
//! allocate it, and requires both checkers to accept the output. Then it applies each
//! corruption that the function admits ([`Corruption`]) and requires: for a stack-to-stack
//! move and an edit after a terminator, that our checker rejects (a structural rule of the
//! output shape); for swapped allocations, a dropped move and a clobbered live register,
//! that ours rejects whenever regalloc2's does (a corruption can be harmless, e.g. dropping
//! a move whose destination already holds the value, so "caught" is judged against the
//! reference; the tests assert that nearly all are caught). Ours may reject where
//! regalloc2's accepts: regalloc2's checker ignores a move whose source holds no known value
//! (leaving the destination as it was, to tolerate the resolver saving an undefined victim
//! register), so a dropped move that leaves a later restore reading garbage goes unseen by
//! it; ours copies the empty set, which is exact for the save/restore case too. The tally
//! counts those cases. Functions where
//! regalloc2 itself fails (panics, or its checker rejects its own output: about 1% of
//! generated functions, see `regalloc2_model` tests) are skipped and counted.
//!
//! Complexity: one regalloc2 run and 2 x (1 + corruptions) checker runs per input.

use super::machine_gen::{self, MachineGenOptions};
use crate::machine::function::MachineFunction;
use crate::machine::{MachineEnv, PRegSet};
use crate::regalloc::checker;
pub use crate::regalloc::corrupt::{corrupt, Corruption};
use crate::regalloc::regalloc2_model::{regalloc2_check, run_regalloc2};
use arbitrary::Unstructured;

/// Tallies over many inputs.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Functions allocated and accepted by both checkers.
    pub accepted: usize,
    /// Functions skipped because regalloc2 failed on them.
    pub skipped: usize,
    /// Per corruption ([`Corruption::ALL`] order): (applied, rejected by ours, rejected by
    /// regalloc2's).
    pub corruptions: [(usize, usize, usize); 5],
}

/// Allocates `f` with regalloc2, checks agreement, applies corruptions; panics on a
/// disagreement that the module doc forbids.
pub fn check_function(f: &MachineFunction, env: &MachineEnv, pick: usize, tally: &mut Tally) {
    let fixed_stack = PRegSet::empty();
    let Ok(Ok(out)) = std::panic::catch_unwind(|| run_regalloc2(f, env, fixed_stack)) else {
        tally.skipped += 1;
        return;
    };
    if regalloc2_check(f, env, fixed_stack, &out).is_err() {
        tally.skipped += 1;
        // Our checker must reject too, or regalloc2's checker is at fault.
        return;
    }
    if let Err(e) = checker::check(f, env, fixed_stack, &out) {
        panic!("our checker rejects regalloc2's accepted output: {e}");
    }
    tally.accepted += 1;
    for (k, c) in Corruption::ALL.into_iter().enumerate() {
        let Some(bad) = corrupt(f, &out, c, pick) else {
            continue;
        };
        let ours = checker::check(f, env, fixed_stack, &bad).is_err();
        let theirs =
            std::panic::catch_unwind(|| regalloc2_check(f, env, fixed_stack, &bad).is_err())
                .unwrap_or(true);
        let t = &mut tally.corruptions[k];
        t.0 += 1;
        t.1 += ours as usize;
        t.2 += theirs as usize;
        match c {
            Corruption::StackToStack | Corruption::EditAfterTerminator => {
                assert!(ours, "{c:?} not caught by our checker")
            }
            _ => assert!(
                ours || !theirs,
                "{c:?}: regalloc2's checker rejects ({:?}) but ours accepts",
                regalloc2_check(f, env, fixed_stack, &bad)
            ),
        }
    }
}

/// The fuzz check: one generated function from `data`.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(f) = machine_gen::function(&mut u, &MachineGenOptions::default()) else {
        return;
    };
    let scratch = u.arbitrary::<bool>().unwrap_or(false);
    let pick = u.arbitrary::<u16>().unwrap_or(0) as usize;
    check_function(&f, &machine_gen::env(scratch), pick, &mut Tally::default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_regalloc2_and_catches_corruption() {
        let mut tally = Tally::default();
        for seed in 0..300u64 {
            let f = machine_gen::seeded(seed);
            check_function(
                &f,
                &machine_gen::env(seed % 3 == 0),
                seed as usize,
                &mut tally,
            );
        }
        eprintln!("checker tally: {tally:?}");
        assert!(tally.accepted >= 280, "{tally:?}");
        for (k, &(applied, ours, _)) in tally.corruptions.iter().enumerate() {
            assert!(
                applied >= 50,
                "{:?} applied only {applied} times",
                Corruption::ALL[k]
            );
            assert!(
                ours * 10 >= applied * 8,
                "{:?}: only {ours}/{applied} caught",
                Corruption::ALL[k]
            );
        }
    }
}

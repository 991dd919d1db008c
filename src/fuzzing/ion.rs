//! Fuzz checks of the Ion allocator ([`crate::regalloc::ion`]): `ion` ([`check`]: runs to
//! completion, invariants hold) and `ion_checker` ([`check_with_checkers`]: our symbolic
//! checker and regalloc2's accept the output).
//!
//! What: [`check_function`] allocates a generated machine function ([`super::machine_gen`])
//! with our allocator in a pooled context and judges the result:
//! (a) no error unless regalloc2 also fails on the function (impossible constraints are
//!     errors for both);
//! (b) the register maps hold disjoint entries (by construction of [`RegMap::insert`],
//!     asserted in debug builds);
//! (c) our checker accepts the output, and (feature `regalloc2`) so does regalloc2's.
//! Reduced register environments (two or three registers per class) force eviction,
//! splitting and second chance. Both checks give a drawn share of the instruction-defined
//! values a rematerialization hook ([`add_remat_hooks`]), so spilled values are recomputed
//! (remat edits, judged by both checkers: regalloc2's sees them as moves from pseudo slots).
//!
//! Complexity: one allocation and two checker runs per input.
//!
//! [`RegMap::insert`]: crate::regalloc::ion::maps::RegMap::insert

use super::machine_gen::{self, MachineGenOptions};
use crate::machine::function::MachineFunction;
use crate::machine::{MachineEnv, PRegSet, VReg};
use crate::regalloc::checker;
use crate::regalloc::ion::{allocate, IonContext, IonStats};
use crate::regalloc::location::{PReg, RegClass};
use arbitrary::Unstructured;

/// Tallies over many inputs.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Functions allocated and accepted.
    pub accepted: usize,
    /// Functions both allocators refused.
    pub refused: usize,
    /// Functions only ours refused (not strict: see [`check_function_with`]).
    pub refused_only_ours: usize,
    /// Summed counters.
    pub stats: IonStats,
}

/// An environment with `n` registers per class (the first `n - 1` preferred).
pub fn small_env(n: u8, scratch: bool) -> MachineEnv {
    let reg = |c: RegClass, i: u8| PReg::new(c, i).expect("index below 64");
    let list = |c: RegClass, r: std::ops::Range<u8>| r.map(|i| reg(c, i)).collect::<Vec<_>>();
    MachineEnv {
        preferred: RegClass::ALL.map(|c| list(c, 0..n - 1)),
        non_preferred: RegClass::ALL.map(|c| list(c, n - 1..n)),
        scratch: RegClass::ALL.map(|c| scratch.then(|| reg(c, 40))),
    }
}

/// Allocates `f` and judges the output; panics naming the failed property.
pub fn check_function(
    ctx: &mut IonContext,
    f: &MachineFunction,
    env: &MachineEnv,
    tally: &mut Tally,
) {
    check_function_with(ctx, f, env, PRegSet::empty(), true, tally)
}

/// [`check_function`] where the registers of `fixed_stack` name stack locations. Not
/// `strict`: a refusal where regalloc2 allocates is counted, not a failure (regalloc2 may
/// keep a register-constrained value in a register that only a fixed constraint names,
/// outside the allocatable set of a cut-down environment; ours allocates such values in
/// allocatable registers only).
pub fn check_function_with(
    ctx: &mut IonContext,
    f: &MachineFunction,
    env: &MachineEnv,
    fixed_stack: PRegSet,
    strict: bool,
    tally: &mut Tally,
) {
    ctx.state.fixed_stack = fixed_stack;
    match allocate(f, env, ctx) {
        Ok(()) => {}
        Err(e) => {
            #[cfg(feature = "regalloc2")]
            {
                use crate::regalloc::regalloc2_model::{regalloc2_check, run_regalloc2};
                let theirs = std::panic::catch_unwind(|| {
                    run_regalloc2(f, env, fixed_stack)
                        .ok()
                        .filter(|o| regalloc2_check(f, env, fixed_stack, o).is_ok())
                })
                .ok()
                .flatten();
                if theirs.is_some() {
                    tally.refused_only_ours += 1;
                }
                assert!(
                    !strict || theirs.is_none(),
                    "ours failed ({e}) where regalloc2 allocates\n{}",
                    dump(f)
                );
            }
            let _ = e;
            tally.refused += 1;
            return;
        }
    }
    if let Err(e) = crate::regalloc::ion::check_invariants(ctx) {
        panic!("invariant: {e}");
    }
    let out = &ctx.state.output;
    if let Err(e) = checker::check(f, env, fixed_stack, out) {
        panic!("our checker rejects our allocation: {e}");
    }
    #[cfg(feature = "regalloc2")]
    if let Err(e) = crate::regalloc::regalloc2_model::regalloc2_check(f, env, fixed_stack, out) {
        panic!("regalloc2's checker rejects our allocation: {e:?}");
    }
    let s = ctx.state.stats;
    let t = &mut tally.stats;
    t.evictions += s.evictions;
    t.splits += s.splits;
    t.minimal_splits += s.minimal_splits;
    t.second_chance += s.second_chance;
    t.spilled += s.spilled;
    t.edits += s.edits;
    t.remats += s.remats;
    tally.accepted += 1;
}

/// The `ion` fuzz check: one generated function from `data`, in a register environment of 2
/// to 8 registers per class; the allocator runs to completion (an error only for
/// constraints regalloc2 cannot meet either) and its invariants hold.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(mut f) = machine_gen::function(&mut u, &MachineGenOptions::default()) else {
        return;
    };
    let n = u.int_in_range(2..=8u8).unwrap_or(8);
    add_remat_hooks(&mut f, &mut u);
    let mut ctx = IonContext::default();
    if allocate(&f, &small_env(n, false), &mut ctx).is_ok() {
        if let Err(e) = crate::regalloc::ion::check_invariants(&mut ctx) {
            panic!("invariant: {e}");
        }
    }
}

/// The `ion_checker` fuzz check: one generated function from `data`, in a register
/// environment of 2 to 8 registers per class; both checkers accept the allocation.
pub fn check_with_checkers(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(mut f) = machine_gen::function(&mut u, &MachineGenOptions::default()) else {
        return;
    };
    let n = u.int_in_range(2..=8u8).unwrap_or(8);
    let scratch = u.arbitrary::<bool>().unwrap_or(false);
    add_remat_hooks(&mut f, &mut u);
    // Strict (a refusal where regalloc2 allocates fails) only when every register the
    // generator fixes is allocatable: in a cut-down environment regalloc2 may keep a
    // register-constrained value in a register that only a fixed constraint names.
    check_function_with(
        &mut IonContext::default(),
        &f,
        &small_env(n, scratch),
        PRegSet::empty(),
        n >= machine_gen::REGS,
        &mut Tally::default(),
    );
}

/// Gives a drawn share (none, a quarter, half, three quarters or all) of the values an
/// instruction defines a rematerialization hook (`movi` of the vreg index: the generator's
/// instructions are abstract, so any def stands for a recomputable one); block parameters
/// never get one. Draws past the end of the input give none.
pub fn add_remat_hooks(f: &mut MachineFunction, u: &mut Unstructured<'_>) {
    let share = u.int_in_range(0..=4u8).unwrap_or(0);
    set_remat_hooks(f, |_| share > 0 && u.ratio(share, 4).unwrap_or(false));
}

/// Replaces `f`'s rematerialization hook with one for every instruction-defined value that
/// `keep` accepts (see [`add_remat_hooks`]).
pub fn set_remat_hooks(f: &mut MachineFunction, mut keep: impl FnMut(VReg) -> bool) {
    use crate::machine::function::{MachineOp, Opcode};
    use crate::machine::OperandKind;
    f.remat.clear();
    for ops in &f.operands {
        for op in ops {
            if op.kind == OperandKind::Def && op.vreg.is_value() && keep(op.vreg) {
                f.remat.push((
                    op.vreg,
                    MachineOp::imm(Opcode::MovImm, op.vreg.index() as i64),
                ));
            }
        }
    }
    f.remat.sort_unstable_by_key(|(v, _)| v.index());
    f.remat.dedup_by_key(|(v, _)| v.index());
}

/// A generated function as machine text (for failure reports; a `.mir` filetest can start
/// from it): the generator's nameless, targetless function prints as `@generated` with
/// target `generic` (generic register names).
pub fn dump(f: &MachineFunction) -> String {
    let mut named = f.clone();
    if named.name.is_empty() {
        named.name = "generated".into();
    }
    if named.target.is_empty() {
        named.target = "generic".into();
    }
    crate::machine::text::print_function(&named)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `strata fuzz ion_checker --seed 11`: at instruction 31 of this input, in a
    /// two-register environment, a reused input, a use extended to the late point and an
    /// early def need three allocatable registers at once; ours refuses, regalloc2 allocates
    /// by giving the reused input and its def `r6`, which is not allocatable there (only
    /// clobbers name it). The check counts such a refusal in cut-down environments instead
    /// of failing (see [`check_function_with`]); this input must pass.
    #[test]
    fn regression_refusal_where_regalloc2_allocates() {
        check_with_checkers(include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/fuzz/ion_checker-dfe4480476f1568f.bin"
        )));
    }

    /// Found by `strata fuzz ion_checker` (30 s): a minimal bundle for a use of a block
    /// parameter in its block's first instruction starts at the block without the def flag,
    /// and was given the parameter's old value over the back edge as if it were live in,
    /// which displaced the parameter move into the same register. Both checkers must accept.
    #[test]
    fn regression_parameter_piece_is_not_live_in() {
        check_with_checkers(include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/fuzz/ion_checker-df067ed19da73593.bin"
        )));
    }

    /// Found by `strata fuzz ion_checker` (2 min): a value used in two fixed registers by an
    /// instruction with a reused input (so its uses sit at the late point) had its second
    /// register reserved from the late point only, while the fixup copy runs before the
    /// instruction, over another value given that register there.
    #[test]
    fn regression_multi_fixed_copy_register_reserved_from_the_copy() {
        check_with_checkers(include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/fuzz/ion_checker-060608f7bca0adb2.bin"
        )));
    }

    /// Found by `strata fuzz ion_checker` (twice in four minutes): an early use fixed to a
    /// register the instruction clobbers, of a vreg that dies there but is held to the late
    /// point because another input is reused, was refused as impossible; it takes the same
    /// fixup as a use whose vreg lives on (regalloc2 issue 53).
    #[test]
    fn regression_fixed_use_held_late_beside_a_clobber() {
        for bytes in [
            &include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/fuzz/ion_checker-0baf7ec883328df6.bin"
            ))[..],
            &include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/fuzz/ion_checker-adcb39b593c714f2.bin"
            ))[..],
        ] {
            check_with_checkers(bytes);
        }
    }

    #[test]
    fn fuzz_entry_points_run_on_random_bytes() {
        for seed in 0..64u64 {
            let bytes = crate::fuzzing::generate::seed_bytes(seed, 2048);
            check(&bytes);
            check_with_checkers(&bytes);
        }
    }

    #[test]
    fn generated_functions_allocate_and_check_in_the_full_environment() {
        let mut ctx = IonContext::default();
        let mut tally = Tally::default();
        for seed in 0..300u64 {
            let f = machine_gen::seeded(seed);
            check_function(&mut ctx, &f, &machine_gen::env(seed % 3 == 0), &mut tally);
        }
        eprintln!("ion tally: {tally:?}");
        assert!(tally.accepted >= 280, "{tally:?}");
    }

    /// Functions of regalloc2's own generator with its `ion` fuzz target's constraint mix
    /// (reuse, fixed, fixed non-allocatable, clobbers, call-site-like), in regalloc2's
    /// fuzzing environment and with the allocatable registers cut to three per class.
    #[cfg(feature = "regalloc2-fuzzing")]
    #[test]
    fn regalloc2_generator_functions() {
        let mut ctx = IonContext::default();
        let (mut full, mut reduced) = (Tally::default(), Tally::default());
        let mut judged = 0;
        for seed in 0..3000u64 {
            if judged == 200 {
                break;
            }
            let bytes = crate::fuzzing::generate::seed_bytes(seed, 8192);
            let Some(im) = crate::fuzzing::regalloc2_input(&bytes) else {
                continue;
            };
            check_function_with(&mut ctx, &im.func, &im.env, im.fixed_stack, true, &mut full);
            let mut small = im.env.clone();
            for c in 0..3 {
                small.preferred[c].truncate(2);
                small.non_preferred[c].truncate(1);
            }
            check_function_with(
                &mut ctx,
                &im.func,
                &small,
                im.fixed_stack,
                false,
                &mut reduced,
            );
            judged += 1;
        }
        eprintln!("regalloc2 generator: full {full:?}\nreduced {reduced:?}");
        assert_eq!(judged, 200, "only {judged} functions drawn");
        assert!(full.accepted >= 190, "{full:?}");
        assert!(reduced.accepted >= 80, "{reduced:?}");
    }

    #[test]
    fn reduced_environments_force_eviction_splitting_and_second_chance() {
        let mut ctx = IonContext::default();
        let mut tally = Tally::default();
        for seed in 0..300u64 {
            let f = machine_gen::seeded(seed);
            let n = 2 + (seed % 3) as u8;
            check_function(&mut ctx, &f, &small_env(n, seed % 2 == 0), &mut tally);
        }
        eprintln!("ion tally (reduced): {tally:?}");
        let s = tally.stats;
        assert!(
            s.evictions > 0 && s.splits > 0 && s.second_chance > 0 && s.spilled > 0,
            "{tally:?}"
        );
    }

    /// Generated functions with every instruction-defined value rematerializable, in
    /// reduced environments: spilled values are recomputed (some remat edits, fewer spill
    /// slots than without the hook), and both checkers accept every output
    /// ([`check_function`] asserts it).
    #[test]
    fn remat_hooks_give_remat_edits_both_checkers_accept() {
        let mut ctx = IonContext::default();
        let (mut with, mut without) = (Tally::default(), Tally::default());
        let (mut slots_with, mut slots_without) = (0, 0);
        for seed in 0..200u64 {
            let mut f = machine_gen::seeded(seed);
            let env = small_env(2 + (seed % 3) as u8, seed % 2 == 0);
            check_function(&mut ctx, &f, &env, &mut without);
            slots_without += ctx.state.stats.spill_slots;
            set_remat_hooks(&mut f, |_| true);
            check_function(&mut ctx, &f, &env, &mut with);
            slots_with += ctx.state.stats.spill_slots;
        }
        eprintln!("remat: {with:?}, slots {slots_with} (without: {slots_without})");
        assert!(with.stats.remats > 0, "{with:?}");
        assert!(
            slots_with < slots_without,
            "{slots_with} >= {slots_without}"
        );
    }
}

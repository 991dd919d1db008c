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
use crate::machine::{MachineEnv, MachineRead, OperandKind, PRegSet};
use crate::regalloc::checker;
use crate::regalloc::flat::FlatFunction;
use crate::regalloc::output::{AllocOutput, Edit};
use crate::regalloc::point::ProgPoint;
use crate::regalloc::regalloc2_model::{regalloc2_check, run_regalloc2};
use crate::regalloc::{Allocation, SpillSlot};
use arbitrary::Unstructured;

/// The corruptions [`corrupt`] can apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Corruption {
    /// Two use operands of one instruction, of different vregs in different locations,
    /// exchange their allocations.
    Swap,
    /// One edit is removed.
    DropMove,
    /// Before an instruction (after the edits there), a use's register is overwritten from
    /// the location of another use of that instruction holding a different vreg.
    Clobber,
    /// An edit before a terminator is moved to just after it.
    EditAfterTerminator,
    /// A move from a slot to another slot is inserted.
    StackToStack,
}

impl Corruption {
    /// Every corruption.
    pub const ALL: [Corruption; 5] = [
        Corruption::Swap,
        Corruption::DropMove,
        Corruption::Clobber,
        Corruption::EditAfterTerminator,
        Corruption::StackToStack,
    ];
}

/// Applies `c` to a copy of `out`, choosing the site with `pick` (an index reduced modulo
/// the candidates); `None` when the function has no site for it.
pub fn corrupt(
    f: &FlatFunction,
    out: &AllocOutput,
    c: Corruption,
    pick: usize,
) -> Option<AllocOutput> {
    let mut o = out.clone();
    match c {
        Corruption::Swap | Corruption::Clobber => {
            let mut sites = Vec::new();
            for i in 0..f.num_insts() as u32 {
                let ops = f.inst_operands(i);
                let allocs = out.inst_allocs(i);
                for a in 0..ops.len() {
                    for b in a + 1..ops.len() {
                        // A reused input is left alone: regalloc2 0.15.2's checker does not
                        // verify the reuse constraint after a swap (ours does), so the verdicts
                        // would differ for a reason other than values.
                        let reused = |x: usize| {
                            ops.iter().any(|o| {
                                o.constraint == crate::machine::OperandConstraint::Reuse(x as u8)
                            })
                        };
                        let ok = !reused(a)
                            && !reused(b)
                            && ops[a].kind == OperandKind::Use
                            && ops[b].kind == OperandKind::Use
                            && ops[a].vreg != ops[b].vreg
                            && allocs[a] != allocs[b]
                            && FlatFunction::is_value(ops[a].vreg)
                            && FlatFunction::is_value(ops[b].vreg);
                        let clobber_ok = c == Corruption::Swap
                            || (allocs[a].as_reg().is_some()
                                && ops[a].vreg.class() == ops[b].vreg.class());
                        if ok && clobber_ok {
                            sites.push((i, a, b));
                        }
                    }
                }
            }
            if sites.is_empty() {
                return None;
            }
            let (i, a, b) = sites[pick % sites.len()];
            let base = out.inst_alloc_offsets[i as usize] as usize;
            if c == Corruption::Swap {
                o.allocs.swap(base + a, base + b);
            } else {
                let at = ProgPoint::before(i);
                let pos = o.edits.partition_point(|e| e.0 <= at);
                let edit = Edit {
                    from: out.allocs[base + b],
                    to: out.allocs[base + a],
                };
                o.edits.insert(pos, (at, edit));
            }
        }
        Corruption::DropMove => {
            if o.edits.is_empty() {
                return None;
            }
            let k = pick % o.edits.len();
            o.edits.remove(k);
        }
        Corruption::EditAfterTerminator => {
            let sites: Vec<usize> = (0..o.edits.len())
                .filter(|&k| {
                    let p = o.edits[k].0;
                    !p.is_after() && (f.is_branch(p.inst()) || f.is_ret(p.inst()))
                })
                .collect();
            if sites.is_empty() {
                return None;
            }
            let k = sites[pick % sites.len()];
            let (p, e) = o.edits.remove(k);
            let at = ProgPoint::after(p.inst());
            let pos = o.edits.partition_point(|x| x.0 <= at);
            o.edits.insert(pos, (at, e));
        }
        Corruption::StackToStack => {
            let i = (pick % f.num_insts()) as u32;
            let at = ProgPoint::before(i);
            let n = out.num_spillslots as u32;
            let pos = o.edits.partition_point(|x| x.0 <= at);
            o.edits.insert(
                pos,
                (
                    at,
                    Edit {
                        from: Allocation::Stack(SpillSlot(n)),
                        to: Allocation::Stack(SpillSlot(n + 1)),
                    },
                ),
            );
            o.num_spillslots += 2;
        }
    }
    Some(o)
}

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
pub fn check_function(f: &FlatFunction, env: &MachineEnv, pick: usize, tally: &mut Tally) {
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
    use crate::fuzzing::generate::seed_bytes;

    #[test]
    fn agrees_with_regalloc2_and_catches_corruption() {
        let mut tally = Tally::default();
        for seed in 0..300u64 {
            let bytes = seed_bytes(seed, 4096);
            let f = machine_gen::function(
                &mut Unstructured::new(&bytes),
                &MachineGenOptions::default(),
            )
            .unwrap();
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

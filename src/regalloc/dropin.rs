//! A drop-in for regalloc2 0.15 (feature `regalloc2`): [`run`] and [`run_with_ctx`] take and
//! give regalloc2's own types with exactly its signatures, and allocate with our Ion
//! allocator ([`super::ion`]), so a regalloc2 user swaps one path:
//!
//! ```text
//! - let out = regalloc2::run_with_ctx(&func, &env, &opts, &mut ctx)?;
//! + let out = strata::regalloc::run_with_ctx(&func, &env, &opts, &mut ctx)?;
//! ```
//!
//! with `ctx: strata::regalloc::Ctx` (`Default`) in place of `regalloc2::Ctx`.
//!
//! What: the function is read through `regalloc2::Function` into our owned machine form
//! ([`super::regalloc2_model::import_into`], into a function the context keeps and refills,
//! so a warm context allocates nothing for it), checked by the machine verifier for what
//! regalloc2 rejects (critical edges, a malformed block), allocated, and the result is
//! converted into a
//! `regalloc2::Output` kept in the context (allocations, edits sorted by program point,
//! spill-slot count). The import is a copy: regalloc2's trait hands out slices of its own
//! packed types, which our phases do not read, as the LLVM importer copies LLVM's text into
//! our IR.
//! `options.validate_ssa` runs the whole machine verifier on the import (one def per vreg,
//! a def for every use); without it only its structural subset runs, with vreg indices and
//! reuse targets checked while the operands are read (regalloc2's contract: SSA form is the
//! caller's). `options.algorithm` and `verbose_log` are accepted and ignored: ours is always
//! Ion-style.
//!
//! Rematerialization (regalloc2 has none): a user who can recompute some values cheaply
//! anywhere (constants, frame or global addresses) lists them in [`Ctx::remat`] before the
//! call; the allocator then recomputes such a value where it would reload it, and never
//! stores it where the store would only feed such reloads. regalloc2's `Edit` has moves
//! only, so a recomputation of `v` into `to` comes out as `Edit::Move { from: slot, to }`
//! from a pseudo slot listed with `v` in [`Ctx::remat_slots`] (numbered after the real
//! slots, inside `num_spillslots`), and `v`'s def is followed by a move into that slot. The
//! output is therefore correct as it stands (regalloc2's checker accepts it, a plain
//! emitter spills and reloads); an emitter that rematerializes emits `v`'s instruction
//! into `to` for a move from such a slot and drops the moves into it. An empty list (the
//! default) gives regalloc2's behaviour.
//!
//! Errors map to regalloc2's kinds where they correspond: a critical edge is `CritEdge`, an
//! ill-formed function `BB`, impossible constraints and a non-terminating loop
//! `TooManyLiveRegs`, an operand list longer than ours takes `TooManyOperands`.
//!
//! Complexity: the import is O(function size); the allocation as in [`super::ion`].

use super::ion::{allocate, IonContext, IonError};
use super::regalloc2_model::{
    alloc_to, import_with, output_into_regalloc2, output_to_regalloc2_with_remats, vreg_from,
    vreg_to, ImportError, ImportScratch,
};
use crate::machine::function::{MachineFunction, MachineOp, Opcode};
use crate::machine::verify::MachineDefect;
use crate::machine::{MachineEnv, MachineRead};
use regalloc2 as ra2;

/// The reusable allocation context of the drop-in (regalloc2's `Ctx` in shape).
#[derive(Default)]
pub struct Ctx {
    /// Our allocator's World and side tables.
    pub ion: IonContext,
    /// The last output, in regalloc2's type.
    pub output: ra2::Output,
    /// The last function, imported (refilled by each call).
    pub func: MachineFunction,
    /// The last environment, imported (refilled by each call).
    pub env: MachineEnv,
    /// The import's reusable storage (verifier scratch, parked small vectors).
    import: ImportScratch,
    /// The rematerialization hook, set by the user: values the user recomputes anywhere
    /// (see the module doc). Empty by default.
    pub remat: Vec<ra2::VReg>,
    /// After a call: the pseudo slots standing for rematerialized values (a move from one
    /// recomputes its value; see the module doc).
    pub remat_slots: Vec<(ra2::SpillSlot, ra2::VReg)>,
}

/// Allocates `func` under `env` (regalloc2's `run`).
///
/// # Errors
/// As [`run_with_ctx`].
pub fn run<F: ra2::Function>(
    func: &F,
    env: &ra2::MachineEnv,
    options: &ra2::RegallocOptions,
) -> Result<ra2::Output, ra2::RegAllocError> {
    let mut ctx = Ctx::default();
    run_with_ctx(func, env, options, &mut ctx)?;
    Ok(ctx.output)
}

/// Allocates `func` under `env` reusing `ctx` (regalloc2's `run_with_ctx`); the output lives
/// in the context. A warm context (one that has allocated a function at least as large)
/// allocates no heap memory, unless [`Ctx::remat`] is non-empty and a value is recomputed
/// (then the output with its pseudo slots is built anew).
///
/// # Errors
/// `CritEdge` for an edge from a block with several successors to one with several
/// predecessors; `BB` for an ill-formed function (or a block parameter in [`Ctx::remat`]);
/// `TooManyLiveRegs` for constraints no allocation satisfies; `TooManyOperands` for an
/// operand index beyond 255.
pub fn run_with_ctx<'a, F: ra2::Function>(
    func: &F,
    env: &ra2::MachineEnv,
    options: &ra2::RegallocOptions,
    ctx: &'a mut Ctx,
) -> Result<&'a ra2::Output, ra2::RegAllocError> {
    // The import's machine verifier (its structural subset unless `validate_ssa` asks for
    // the SSA rules too) finds critical edges with the other defects.
    let full = options.validate_ssa;
    let fixed_stack = import_with(
        func,
        env,
        &mut ctx.func,
        &mut ctx.env,
        &mut ctx.import,
        full,
    )
    .map_err(|e| match e {
        ImportError::ReuseIndex { .. } => ra2::RegAllocError::TooManyOperands,
        ImportError::Malformed(MachineDefect::CriticalEdge(from, to)) => {
            ra2::RegAllocError::CritEdge(ra2::Block::new(from.index()), ra2::Block::new(to.index()))
        }
        ImportError::VRegIndex(_) | ImportError::Malformed(_) => {
            ra2::RegAllocError::BB(ra2::Block::new(0))
        }
    })?;
    ctx.ion.state.fixed_stack = fixed_stack;
    ctx.func.remat.clear();
    for &v in &ctx.remat {
        let v = vreg_from(v).map_err(|_| ra2::RegAllocError::BB(ra2::Block::new(0)))?;
        ctx.func.remat.push((v, MachineOp::new(Opcode::Op)));
    }
    ctx.func.remat.sort_unstable_by_key(|(v, _)| v.index());
    ctx.func.remat.dedup_by_key(|(v, _)| v.index());
    if !ctx.func.remat.is_empty() {
        // A block parameter's value differs per edge: no one instruction recomputes it.
        for (b, params) in ctx.func.params.iter().enumerate() {
            if params.iter().any(|&p| ctx.func.remat(p).is_some()) {
                return Err(ra2::RegAllocError::BB(ra2::Block::new(b)));
            }
        }
    }
    allocate(&ctx.func, &ctx.env, &mut ctx.ion).map_err(|e| match e {
        IonError::TooManyLiveRegs { .. }
        | IonError::NoRegisters { .. }
        | IonError::NoTermination { .. }
        | IonError::Moves { .. }
        | IonError::Unallocated { .. } => ra2::RegAllocError::TooManyLiveRegs,
    })?;
    ctx.remat_slots.clear();
    if ctx.ion.state.output.remat_count() == 0 {
        // No remat (the default): refill the context's output, allocating nothing.
        output_into_regalloc2(&ctx.ion.state.output, &mut ctx.output);
    } else {
        // Remats are presented as moves from pseudo slots (see the module doc); this path
        // allocates its output, as a user asked for remat.
        let (output, slots) = output_to_regalloc2_with_remats(func, &ctx.ion.state.output);
        ctx.output = output;
        ctx.remat_slots.extend(slots.into_iter().map(|(s, v)| {
            let slot = alloc_to(crate::regalloc::Allocation::Stack(s))
                .as_stack()
                .expect("a stack allocation");
            (slot, vreg_to(v))
        }));
    }
    Ok(&ctx.output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regalloc::to_regalloc2::Presented;

    /// A drop-in user lists a constant in `Ctx::remat`: the output recomputes it (a move from
    /// a listed pseudo slot) where it would be reloaded, regalloc2's checker accepts the
    /// output as it stands, and without the list there is no pseudo slot.
    #[test]
    fn remat_hook_through_the_drop_in() {
        let text = "function @f target x86-64 {
block0:
  args def v0i:fixed(rdi)
  movi #7 def v1i:reg
  store.i64 #0 use v0i:reg, use v1i:reg
  call #0 clobbers(rax rcx rdx rsi rdi r8 r9 r10 r11)
  store.i64 #8 use v1i:reg, use v1i:reg
  ret
}
";
        let f = crate::machine::text::parse_functions(text, "t")
            .unwrap()
            .remove(0);
        let presented = Presented::new(&f);
        // Two caller-saved registers per class: v1 cannot stay in one across the call.
        let mut ours = crate::machine::targets::TargetDesc::new(crate::stage::Arch::X86_64).env;
        for c in 0..3 {
            ours.preferred[c].truncate(2);
            ours.non_preferred[c].clear();
        }
        let env = crate::regalloc::to_regalloc2::env_to(&ours);
        let opts = ra2::RegallocOptions::default();
        let mut ctx = Ctx::default();
        let plain = run_with_ctx(&presented, &env, &opts, &mut ctx)
            .unwrap()
            .clone();
        assert!(ctx.remat_slots.is_empty());
        ctx.remat = vec![vreg_to(f.operands[1][0].vreg)];
        let out = run_with_ctx(&presented, &env, &opts, &mut ctx)
            .unwrap()
            .clone();
        assert_eq!(ctx.remat_slots.len(), 1, "{:?}", out.edits);
        let slot = ra2::Allocation::stack(ctx.remat_slots[0].0);
        let recomputed = out
            .edits
            .iter()
            .filter(|(_, ra2::Edit::Move { from, .. })| *from == slot)
            .count();
        assert!(recomputed >= 1, "{:?}", out.edits);
        let mut checker = ra2::checker::Checker::new(&presented, &env);
        checker.prepare(&out);
        checker
            .run()
            .expect("regalloc2's checker accepts the presented remats");
        assert!(plain.num_spillslots >= 1, "{:?}", plain.edits);
    }
}

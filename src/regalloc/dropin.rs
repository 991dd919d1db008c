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
//! Errors map to regalloc2's kinds where they correspond: a critical edge is `CritEdge`, an
//! ill-formed function `BB`, impossible constraints and a non-terminating loop
//! `TooManyLiveRegs`, an operand list longer than ours takes `TooManyOperands`.
//!
//! Complexity: the import is O(function size); the allocation as in [`super::ion`].

use super::ion::{allocate, IonContext, IonError};
use super::regalloc2_model::{import_with, output_into_regalloc2, ImportError, ImportScratch};
use crate::machine::function::MachineFunction;
use crate::machine::verify::MachineDefect;
use crate::machine::MachineEnv;
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
/// allocates no heap memory.
///
/// # Errors
/// `CritEdge` for an edge from a block with several successors to one with several
/// predecessors; `BB` for an ill-formed function; `TooManyLiveRegs` for constraints no
/// allocation satisfies; `TooManyOperands` for an operand index beyond 255.
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
    allocate(&ctx.func, &ctx.env, &mut ctx.ion).map_err(|e| match e {
        IonError::TooManyLiveRegs { .. }
        | IonError::NoRegisters { .. }
        | IonError::NoTermination { .. }
        | IonError::Moves { .. }
        | IonError::Unallocated { .. } => ra2::RegAllocError::TooManyLiveRegs,
    })?;
    output_into_regalloc2(&ctx.ion.state.output, &mut ctx.output);
    Ok(&ctx.output)
}

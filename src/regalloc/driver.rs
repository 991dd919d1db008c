//! Allocating one machine function with our allocator or regalloc2, judging allocations
//! with our symbolic checker, and printing allocated code: what `strata compile --emit
//! alloc`, the corpus tests and the pipeline's `regalloc` pass use.
//!
//! What: [`allocate_machine`] / [`allocate_in`] allocate any [`MachineRead`] function (the
//! World's machine rows included) with [`Allocator::Ion`] or [`Allocator::Regalloc2`],
//! time the allocator alone and (feature `regalloc2`) judge the result with regalloc2's
//! checker; [`check_ours`] judges an allocation with our symbolic checker (the `check` pass
//! and `--check`); [`print_allocated`] prints allocated code with its moves (and
//! [`print_allocated_annotated`] with our allocator's annotations).
//!
//! Complexity: linear in the function plus what the allocator costs.

use crate::machine::function::MachineFunction;
use crate::machine::MBlock;
use crate::machine::MachineRead;
use crate::regalloc::checker::CheckError;
use crate::regalloc::ion::{IonContext, IonError, IonStats};
use crate::regalloc::output::AllocOutput;
use crate::stage::{Allocator, Arch};

/// What allocating one function produced and cost.
#[derive(Debug, Clone)]
pub struct AllocRun {
    /// The allocator that made it.
    pub allocator: Allocator,
    /// The allocation.
    pub output: AllocOutput,
    /// Wall time of the allocator alone (presenting and checking excluded).
    pub time: std::time::Duration,
    /// Wall time of our checker when the `check` pass judged the allocation (`None`: it
    /// did not run).
    pub checked: Option<std::time::Duration>,
    /// Our allocator's counters (zero for regalloc2).
    pub stats: IonStats,
    /// Our allocator's debug annotations per program point, when the context asked for
    /// them (`--annotate`), sorted by point.
    pub annotations: Vec<(crate::regalloc::point::ProgPoint, String)>,
}

/// Why a function was not allocated, or its allocation was rejected; every variant names
/// the function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    /// Our allocator refused (constraints no allocation meets, no termination).
    #[error("@{function}: {error}")]
    Ion {
        /// The function.
        function: String,
        /// Why.
        error: IonError,
    },
    /// regalloc2 refused the function, or its checker rejected an allocation.
    #[cfg(feature = "regalloc2")]
    #[error("@{function}: {error}")]
    Regalloc2 {
        /// The function.
        function: String,
        /// Why.
        error: super::to_regalloc2::Regalloc2Error,
    },
    /// `--allocator regalloc2` in a build without the `regalloc2` feature.
    #[error("@{function}: --allocator regalloc2 needs a build with the `regalloc2` feature")]
    Regalloc2Missing {
        /// The function.
        function: String,
    },
    /// Our symbolic checker rejected the allocation.
    #[error(
        "@{function}: our checker rejects the allocation: {}{error}",
        block.map(|b| format!("block{b}: ")).unwrap_or_default()
    )]
    Check {
        /// The function.
        function: String,
        /// The block of the instruction the finding is about, when it names one.
        block: Option<MBlock>,
        /// The finding.
        error: CheckError,
    },
}

thread_local! {
    /// One allocation context per thread for the driver functions (the pipeline's
    /// `regalloc` pass keeps its own in the engine's World).
    static ION: std::cell::RefCell<IonContext> = std::cell::RefCell::new(IonContext::default());
}

#[cfg(feature = "regalloc2")]
thread_local! {
    /// One regalloc2 context per thread, reused between functions as regalloc2's
    /// `run_with_ctx` intends (the anchor side of `strata bench --compare regalloc2`).
    static REGALLOC2: std::cell::RefCell<regalloc2::Ctx> =
        std::cell::RefCell::new(regalloc2::Ctx::default());
}

/// Allocates `f` for `arch` with regalloc2 and checks the result with regalloc2's checker.
///
/// # Errors
/// [`AllocError::Regalloc2`]: regalloc2's refusal or its checker's findings.
#[cfg(feature = "regalloc2")]
pub fn allocate_regalloc2(f: &MachineFunction, arch: Arch) -> Result<AllocRun, AllocError> {
    allocate_machine(f, &f.name, arch, Allocator::Regalloc2)
}

/// Allocates `f` for `arch` with `allocator`; `name` labels errors. With the feature
/// `regalloc2`, regalloc2's checker judges the result of either allocator.
///
/// # Errors
/// [`AllocError`]: the allocator's refusal (impossible constraints) or regalloc2's
/// checker's findings.
pub fn allocate_machine<M: MachineRead>(
    f: &M,
    name: &str,
    arch: Arch,
    allocator: Allocator,
) -> Result<AllocRun, AllocError> {
    let env = &crate::machine::targets::TargetDesc::new(arch).env;
    let run = ION.with(|ctx| allocate_in(f, name, env, allocator, &mut ctx.borrow_mut()))?;
    check_regalloc2(f, name, env, &run.output)?;
    Ok(run)
}

/// Allocates `f` in `env` with `allocator` in a given context (the pipeline's), timing the
/// allocator alone; no checker runs (the Check stage's, or [`allocate_machine`]'s).
///
/// # Errors
/// The allocator's refusal.
pub fn allocate_in<M: MachineRead>(
    f: &M,
    name: &str,
    env: &crate::machine::MachineEnv,
    allocator: Allocator,
    ctx: &mut IonContext,
) -> Result<AllocRun, AllocError> {
    if allocator == Allocator::Regalloc2 {
        return allocate_regalloc2_in(f, name, env);
    }
    let start = std::time::Instant::now();
    crate::regalloc::ion::allocate(f, env, ctx).map_err(|error| AllocError::Ion {
        function: name.to_string(),
        error,
    })?;
    let time = start.elapsed();
    let mut annotations = std::mem::take(&mut ctx.state.annotations);
    annotations.sort_by_key(|a| a.0);
    Ok(AllocRun {
        allocator,
        output: std::mem::take(&mut ctx.state.output),
        time,
        checked: None,
        stats: ctx.state.stats,
        annotations,
    })
}

/// Allocates `f` in `env` with regalloc2 in this thread's reused `regalloc2::Ctx`, timing
/// regalloc2 alone: presenting `f` in regalloc2's types and converting its output back are
/// outside the timed part, as our side's [`allocate_in`] times our allocator alone. No
/// checker runs.
///
/// # Errors
/// [`AllocError::Regalloc2`] with regalloc2's refusal; [`AllocError::Regalloc2Missing`]
/// without the feature `regalloc2`.
pub fn allocate_regalloc2_in<M: MachineRead>(
    f: &M,
    name: &str,
    env: &crate::machine::MachineEnv,
) -> Result<AllocRun, AllocError> {
    #[cfg(feature = "regalloc2")]
    {
        use super::to_regalloc2::{allocate_with_ctx, env_to, output_from, Presented};
        let presented = Presented::new(f);
        let env = env_to(env);
        let run = REGALLOC2.with(|ra2_ctx| {
            let ra2_ctx = &mut ra2_ctx.borrow_mut();
            let start = std::time::Instant::now();
            let out = allocate_with_ctx(&presented, &env, ra2_ctx);
            let elapsed = start.elapsed();
            out.map(|out| (output_from(out).to_output(), elapsed))
        });
        let (output, time) = run.map_err(|error| AllocError::Regalloc2 {
            function: name.to_string(),
            error,
        })?;
        Ok(AllocRun {
            allocator: Allocator::Regalloc2,
            output,
            time,
            checked: None,
            stats: IonStats::default(),
            annotations: Vec::new(),
        })
    }
    #[cfg(not(feature = "regalloc2"))]
    {
        let _ = (f, env);
        Err(AllocError::Regalloc2Missing {
            function: name.to_string(),
        })
    }
}

/// Judges `out` (an allocation of `f` in `env`) with regalloc2's own checker (feature
/// `regalloc2`; without it there is none and this accepts).
///
/// # Errors
/// [`AllocError::Regalloc2`] with the checker's findings.
pub fn check_regalloc2<M: MachineRead>(
    f: &M,
    name: &str,
    env: &crate::machine::MachineEnv,
    out: &AllocOutput,
) -> Result<(), AllocError> {
    #[cfg(feature = "regalloc2")]
    {
        use super::to_regalloc2::{env_to, Presented};
        crate::regalloc::regalloc2_model::check_presented(&Presented::new(f), &env_to(env), out)
            .map_err(|error| AllocError::Regalloc2 {
                function: name.to_string(),
                error,
            })
    }
    #[cfg(not(feature = "regalloc2"))]
    {
        let _ = (f, name, env, out);
        Ok(())
    }
}

/// Judges `out` (an allocation of `f` for `arch`) with our symbolic checker
/// ([`crate::regalloc::checker`]); returns the checker's wall time.
///
/// # Errors
/// [`AllocError::Check`]: the checker's finding, located (`@name: our checker rejects the
/// allocation: blockB: <finding>`: the instruction's block, then what is wrong with which
/// operand or edit and location).
pub fn check_ours<M: MachineRead + ?Sized>(
    f: &M,
    name: &str,
    arch: Arch,
    out: &crate::regalloc::output::AllocOutput,
) -> Result<std::time::Duration, AllocError> {
    check_ours_in(
        f,
        name,
        &crate::machine::targets::TargetDesc::new(arch).env,
        out,
    )
}

/// [`check_ours`] in a given register environment (the pipeline's, built once).
///
/// # Errors
/// As [`check_ours`].
pub fn check_ours_in<M: MachineRead + ?Sized>(
    f: &M,
    name: &str,
    env: &crate::machine::MachineEnv,
    out: &crate::regalloc::output::AllocOutput,
) -> Result<std::time::Duration, AllocError> {
    let start = std::time::Instant::now();
    let verdict = crate::regalloc::checker::check(f, env, crate::machine::PRegSet::empty(), out);
    let time = start.elapsed();
    verdict.map(|()| time).map_err(|error| AllocError::Check {
        function: name.to_string(),
        block: error.inst().and_then(|i| {
            f.blocks()
                .find(|&b| f.block_insts(b).contains(crate::machine::MInst(i)))
        }),
        error,
    })
}

/// Prints `f` with its allocation: each operand followed by its location in brackets, the
/// allocator's moves as `move FROM -> TO` lines and its rematerializations as
/// `remat VREG (OPCODE) -> TO` lines where they happen, and a header line with the
/// spill-slot count.
pub fn print_allocated(f: &MachineFunction, a: &AllocOutput) -> String {
    print_allocated_annotated(f, a, &[])
}

/// [`print_allocated`] with the allocator's annotations (sorted by point) as `; ...` lines
/// where they happen, before the moves at their point.
pub fn print_allocated_annotated(
    f: &MachineFunction,
    a: &AllocOutput,
    notes: &[(crate::regalloc::point::ProgPoint, String)],
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    writeln!(
        out,
        "function @{} target {} spillslots {} {{",
        f.name, f.target, a.num_spillslots
    )
    .unwrap();
    let mut e = 0;
    let mut n = 0;
    let mut moves_until = |point: u32, e: &mut usize, out: &mut String| {
        while n < notes.len() && notes[n].0 .0 <= point {
            writeln!(out, "    ; {}", notes[n].1).unwrap();
            n += 1;
        }
        while *e < a.edits.len() && a.edits[*e].0 .0 <= point {
            let (_, edit) = a.edits[*e];
            let name = |a| crate::machine::text::allocation_name(&f.target, a);
            match edit.remat {
                Some(v) => {
                    let op = f.remat(v).map_or("?", |op| op.opcode.name());
                    writeln!(out, "  remat {v} ({op}) -> {}", name(edit.to)).unwrap();
                }
                None => {
                    writeln!(out, "  move {} -> {}", name(edit.from), name(edit.to)).unwrap();
                }
            }
            *e += 1;
        }
    };
    for b in 0..f.num_blocks() {
        write!(out, "block{b}").unwrap();
        if !f.params[b].is_empty() {
            let p: Vec<String> = f.params[b].iter().map(|v| v.to_string()).collect();
            write!(out, "({})", p.join(", ")).unwrap();
        }
        out.push_str(":\n");
        for i in f.block_insts(MBlock::new(b)) {
            moves_until(i.0 << 1, &mut e, &mut out);
            let mut line = String::new();
            crate::machine::text::print_inst(f, b, i.index(), &mut line);
            // Annotate each operand with its allocation, in operand order.
            let allocs = a.inst_allocs(i.0);
            let mut annotated = String::new();
            let mut rest = line.as_str();
            for (k, o) in f.operands[i.index()].iter().enumerate() {
                let text = crate::machine::text::operand_text(&f.target, o);
                if let Some(at) = rest.find(&text) {
                    annotated.push_str(&rest[..at + text.len()]);
                    let alloc = allocs.get(k).copied().unwrap_or_default();
                    let alloc = crate::machine::text::allocation_name(&f.target, alloc);
                    write!(annotated, " [{alloc}]").unwrap();
                    rest = &rest[at + text.len()..];
                }
            }
            annotated.push_str(rest);
            writeln!(out, "  {annotated}").unwrap();
            moves_until((i.0 << 1) | 1, &mut e, &mut out);
        }
    }
    out.push_str("}\n");
    out
}

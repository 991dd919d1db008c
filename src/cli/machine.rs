//! `strata compile --target T --emit machine|alloc`: the pipeline down to machine code.
//!
//! `--emit machine` prints each function's lowered machine form (text of
//! [`crate::machine::text`]); `--emit alloc` also allocates it with the chosen allocator
//! (ours by default; `--allocator regalloc2`, the reference), judges the allocation with
//! regalloc2's checker
//! (and with `--check` with ours, the `check` pass) and prints the allocated code with its
//! moves. With `--stats` a per-module summary goes to
//! stderr: functions, machine instructions, vregs, operands per instruction, and for
//! `alloc` the allocator's time per instruction, edits per 100 instructions, spill slots and
//! how many functions our checker accepted (0 without `--check`).
//!
//! Errors (an unsupported construct, a refused or rejected allocation) name the function
//! and, for lowering, the block and instruction; without `--keep-going` nothing is written
//! when a function fails, with it the others are.

use super::compile::CompileArgs;
use super::{exit, load_module, write_output, CliError, Emit};
use crate::api::{lower_module, machine_config};
use crate::engine::PassSet;
use crate::machine::MachineRead;
use crate::stage::Arch;

pub use crate::stage::Allocator;

/// Summary of one module's way to machine code (for `--stats` and `bench`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MachineSummary {
    /// Functions lowered (and allocated, for `alloc`).
    pub functions: usize,
    /// Functions that failed.
    pub failed: usize,
    /// Machine instructions.
    pub insts: usize,
    /// Virtual registers.
    pub vregs: usize,
    /// Operands.
    pub operands: usize,
    /// Allocator wall time in nanoseconds (the allocator alone: our Ion, or `regalloc2::run_with_ctx`
    /// in a reused context, conversions to and from regalloc2's types outside it).
    pub alloc_ns: u128,
    /// Moves the allocator inserted.
    pub edits: usize,
    /// Spill slots over all functions.
    pub spill_slots: usize,
    /// Functions our symbolic checker judged and accepted (`--check`; 0 without it).
    pub checked: usize,
    /// Our checker's wall time in nanoseconds.
    pub check_ns: u128,
}

impl MachineSummary {
    /// One line: the counts and the ratios the issue asks for.
    pub fn line(&self) -> String {
        let per = |a: f64, b: usize| if b == 0 { 0.0 } else { a / b as f64 };
        format!(
            "functions {} (failed {}), machine insts {}, vregs {}, operands/inst {:.2}, \
             alloc ns/inst {:.1}, edits/100 insts {:.1}, spill slots {}, \
             accepted by our checker {} (ns/inst {:.1})",
            self.functions,
            self.failed,
            self.insts,
            self.vregs,
            per(self.operands as f64, self.insts),
            per(self.alloc_ns as f64, self.insts),
            per(100.0 * self.edits as f64, self.insts),
            self.spill_slots,
            self.checked,
            per(self.check_ns as f64, self.insts),
        )
    }
}

/// Runs `compile` for `--emit machine` and `--emit alloc`.
pub fn compile_machine(
    args: &CompileArgs,
    requested: PassSet,
    arch: Arch,
) -> Result<i32, CliError> {
    let mut config = machine_config(requested, arch);
    if args.emit == Emit::Alloc {
        // Allocation runs in the pipeline's Regalloc stage, on the World's machine rows; our
        // checker in its Check stage (unless a corruption is asked for: then it judges the
        // corrupted allocation below).
        config.passes |= PassSet::REGALLOC;
        if args.check && args.corrupt_allocation.is_none() {
            config.passes |= PassSet::CHECK;
        }
    }
    config.verify_each = args.verify_each;
    config.options.sccp_memory_limit = args.sccp_memory_limit;
    config.options.allocator = args.allocator;
    config.options.annotate_alloc = args.annotate;
    let loaded = load_module(&args.file, args.input_format, args.strict)?;
    let file = super::io::input_name(&args.file);
    let lowered = lower_module(&loaded.module, &config);
    // Calls print their callee's name.
    let symbols: Vec<&str> = loaded
        .module
        .symbols
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let mut summary = MachineSummary::default();
    let mut texts = Vec::new();
    let mut failed_names = Vec::new();
    for mut l in lowered {
        let f = match std::mem::replace(
            &mut l.result,
            Err(crate::api::LowerFailure::Errors(Vec::new())),
        ) {
            Ok(f) => f,
            Err(e) => {
                diag!("{file}: error: {e}");
                failed_names.push(format!("@{}", l.name));
                continue;
            }
        };
        if args.emit == Emit::Machine {
            summary.functions += 1;
            summary.insts += f.num_insts();
            summary.vregs += f.num_vregs;
            summary.operands += f.operands.iter().map(|o| o.len()).sum::<usize>();
            texts.push(crate::machine::text::print_function_with_symbols(
                &f, &symbols,
            ));
            continue;
        }
        match allocate(&l, &f, arch, args) {
            Ok((text, ns, edits, slots, checked)) => {
                summary.functions += 1;
                summary.insts += f.num_insts();
                summary.vregs += f.num_vregs;
                summary.operands += f.operands.iter().map(|o| o.len()).sum::<usize>();
                summary.alloc_ns += ns;
                summary.edits += edits;
                summary.spill_slots += slots;
                if let Some(ns) = checked {
                    summary.checked += 1;
                    summary.check_ns += ns;
                }
                texts.push(text);
            }
            Err(e) => {
                diag!("{file}: error: {e}");
                failed_names.push(format!("@{}", l.name));
            }
        }
    }
    summary.failed = failed_names.len();
    if args.stats {
        diag!(
            "{file}: {} {}: {}",
            arch.name(),
            if args.emit == Emit::Alloc {
                "alloc"
            } else {
                "machine"
            },
            summary.line()
        );
    }
    if !failed_names.is_empty() && !args.keep_going {
        diag!(
            "error: {file}: {} of {} functions failed ({}); nothing written (--keep-going writes the others)",
            failed_names.len(),
            failed_names.len() + summary.functions,
            failed_names.join(", ")
        );
        return Ok(exit::INPUT);
    }
    write_output(args.output.as_deref(), &texts.join("\n"))?;
    Ok(if failed_names.is_empty() {
        exit::OK
    } else {
        exit::INPUT
    })
}

/// What allocating one function gave: the printed allocation, allocator nanoseconds,
/// edits, spill slots, and our checker's nanoseconds when it judged the allocation.
type AllocReport = (String, u128, usize, usize, Option<u128>);

/// Allocates `f` (or takes the allocation the pipeline made); with `--corrupt-allocation`
/// corrupts it and lets our checker judge the result.
fn allocate(
    lowered: &crate::api::Lowered,
    f: &crate::machine::function::MachineFunction,
    arch: Arch,
    args: &CompileArgs,
) -> Result<AllocReport, crate::regalloc::driver::AllocError> {
    use crate::regalloc::driver::{allocate_machine, check_ours, print_allocated_annotated};
    let mut run = match &lowered.allocation {
        Some(run) => run.clone(),
        None => allocate_machine(f, &f.name, arch, args.allocator)?,
    };
    if let Some(kind) = args.corrupt_allocation {
        if let Some(bad) = crate::regalloc::corrupt::corrupt(f, &run.output, kind, 0) {
            check_ours(f, &f.name, arch, &bad)?;
        }
        run.checked = Some(check_ours(f, &f.name, arch, &run.output)?);
    }
    Ok((
        print_allocated_annotated(f, &run.output, &run.annotations),
        run.time.as_nanos(),
        run.output.edits.len(),
        run.output.num_spillslots,
        run.checked.map(|t| t.as_nanos()),
    ))
}

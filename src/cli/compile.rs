//! `strata compile` and `strata verify`.
//!
//! Both import the module, then run the pipeline over its functions window by window
//! (`run_pipeline`): the per-thread engines run a window in batches, and each window's
//! input functions are freed once it ran, so the module and what is kept of it are never
//! both whole in memory. What is kept depends on the output (`Keep`): the functions for
//! `--emit sir`, their LLVM text for `--emit ll` (printed by [`crate::llvm::Exporter`] on the
//! worker that ran the function, and byte-identical to [`crate::llvm::export`] of the whole
//! module), only the reports for `--emit json` and `verify`. The import keeps the original
//! text of a definition only for `--keep-going` (a failed function is printed from it).
//! Peak memory: the import (input text and imported functions) on large modules, about
//! 350 bytes per input instruction on sqlite.ll (`scripts/peak-rss.sh` compares with `opt`).
//! Time: linear in the module, plus the passes.

use super::{exit, parse_passes, write_output, CliError, Emit, InputFormat};
use crate::engine::{
    batch, FunctionRun, InternalError, Pass, PassSet, PipelineConfig, RunReport, Severity, Stage,
};
use crate::ir::{Function, Module, Phase};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `compile`.
#[derive(clap::Args, Debug)]
pub struct CompileArgs {
    /// Input file (`-` for stdin).
    pub file: PathBuf,
    /// Comma-separated passes to run (see the list below), or `none`. Analyses a pass needs
    /// run on demand. Default: every available pass, leaving SSA with phi-elim (not block-params).
    #[arg(long, value_name = "LIST")]
    pub passes: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "sir")]
    pub emit: Emit,
    /// Output file (default stdout).
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Input format (default: from the extension, else from the content).
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormat>,
    /// Run the verifier after every transforming pass (the output is always verified, after
    /// the last transforming pass: a function it rejects fails with a located error and is
    /// not written).
    #[arg(long)]
    pub verify_each: bool,
    /// Print per-stage wall time to stderr.
    #[arg(long)]
    pub time_passes: bool,
    /// Print each function to stderr after this pass.
    #[arg(long, value_name = "PASS")]
    pub dump_after: Option<String>,
    /// Print per-function pass statistics to stderr (also in `--emit json`).
    #[arg(long)]
    pub stats: bool,
    /// Print notes (for example fallbacks a pass took) besides errors.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// SCCP lattice memory limit in bytes; above it SCCP falls back to local folding.
    #[arg(long, value_name = "BYTES", default_value_t = 100 * 1024)]
    pub sccp_memory_limit: usize,
    /// For `.ll` input: a function the importer must skip is an error, not a warning.
    #[arg(long)]
    pub strict: bool,
    /// When some functions fail, still write the output: the functions that succeeded, with
    /// each failed one reduced to a declaration (named on stderr); the exit code stays 1.
    /// Without it a failed function means nothing is written (`--emit json`, a report of the
    /// failures, is always written).
    #[arg(long)]
    pub keep_going: bool,
    /// Target model file (TOML; format in the `placement::targets` docs, example in
    /// examples/targets/) for the `placement` pass, instead of the built-in
    /// Interpreter/PostgreSQL/Embedding model. A bad file is an error naming FILE:LINE.
    #[arg(long, value_name = "MODEL.toml")]
    pub targets: Option<PathBuf>,
    /// Let `placement` rewrite the IR: split blocks where the chosen target changes (zero-cost
    /// jumps between the pieces) and fuse jump chains on one target.
    #[arg(long)]
    pub placement_split: bool,
    /// Lower for this target (`x86-64`, `aarch64`): leaves SSA by block parameters and adds
    /// the `lower` pass; needed by `--emit machine` and `--emit alloc`.
    #[arg(long, value_name = "TARGET", value_parser = parse_target)]
    pub target: Option<crate::stage::Arch>,
    /// The register allocator of `--emit alloc`: `ion` (ours, the default) or `regalloc2`
    /// (regalloc2 0.15.2, the reference). regalloc2's checker judges either.
    #[arg(long, value_enum, default_value = "ion")]
    pub allocator: super::machine::Allocator,
    /// With `--emit alloc` and our allocator: print its decisions as `; ...` lines at their
    /// program points: merged bundles, register assignments, evictions, splits, second
    /// chances, each live range with its location, and every inserted move with its kind.
    #[arg(long)]
    pub annotate: bool,
    /// With `--emit alloc`: also judge each allocation with our symbolic checker (the
    /// `check` pass); a rejection is an error naming function, block, instruction, operand
    /// and location (exit code 1). `--stats` counts the functions it judged.
    #[arg(long)]
    pub check: bool,
    /// Test hook of `--check`: corrupt each allocation this way before our checker judges it
    /// (the first site the function has), so that a test can see the rejection.
    #[arg(long, value_enum, value_name = "KIND", hide = true)]
    pub corrupt_allocation: Option<crate::regalloc::corrupt::Corruption>,
}

/// The passes of `--emit ll`, or a usage error before any work when the pipeline would end
/// in a phase LLVM IR cannot print faithfully. LLVM export prints functions in memory form
/// and the SSA phases up to `placed`; phi elimination (`destructed`: a value defined by
/// several copies) and the block-parameter form (which `--target` lowering starts from)
/// have no LLVM form. The message names what the user asked for (the `--target` flag or the
/// passes they listed) and what prints that phase. Without `--passes` the default pipeline
/// stops before leaving SSA, and says so on stderr.
fn ll_pipeline(args: &CompileArgs, requested: PassSet) -> Result<PassSet, CliError> {
    if let Some(arch) = args.target {
        return Err(CliError::new(
            exit::USAGE,
            format!(
                "--emit ll prints LLVM IR of functions in SSA or memory form; --target {} \
                 lowers them to machine code (leaving SSA through block parameters, which LLVM \
                 IR has no form for): print that with --emit machine or --emit alloc, or drop \
                 --target to print LLVM IR",
                arch.name()
            ),
        ));
    }
    let out_of_ssa = [
        (PassSet::PHI_ELIM, "phi-elim", "destructed"),
        (PassSet::BLOCK_PARAMS, "block-params", "block-parameter"),
    ];
    if args.passes.is_none() {
        let left_out: Vec<&str> = out_of_ssa
            .iter()
            .filter(|(p, _, _)| requested.intersects(*p))
            .map(|(_, name, _)| *name)
            .collect();
        if !left_out.is_empty() {
            diag!(
                "note: --emit ll: {} left out of the default pipeline (LLVM IR prints SSA form; \
                 --emit sir prints every phase)",
                left_out.join(" and ")
            );
        }
        return Ok(requested - PassSet::PHI_ELIM - PassSet::BLOCK_PARAMS);
    }
    if let Some((_, name, phase)) = out_of_ssa.iter().find(|(p, _, _)| requested.intersects(*p)) {
        return Err(CliError::new(
            exit::USAGE,
            format!(
                "--emit ll prints LLVM IR of functions in SSA or memory form; `{name}` in \
                 --passes leaves SSA (the {phase} form has no LLVM form): print it with --emit \
                 sir, or drop {name} from --passes"
            ),
        ));
    }
    Ok(requested)
}

/// Says on stderr that `--target` leaves `phi-elim` out of `requested` (lowering leaves SSA
/// through block parameters, never through copies).
fn note_phi_elim_left_out(arch: crate::stage::Arch, requested: PassSet) {
    if requested.intersects(PassSet::PHI_ELIM) {
        diag!(
            "note: --target {}: phi-elim left out (lowering leaves SSA through block \
             parameters; without --target, --emit sir prints phi elimination)",
            arch.name()
        );
    }
}

/// A `--target` name that names no target; `expected` lists the accepted names.
#[derive(Debug, thiserror::Error)]
#[error("unknown target `{name}` ({expected})")]
pub struct UnknownTarget {
    /// The name as given.
    pub name: String,
    /// The accepted names, for the message.
    pub expected: &'static str,
}

/// Parses `--target`.
pub(super) fn parse_target(s: &str) -> Result<crate::stage::Arch, UnknownTarget> {
    crate::stage::Arch::from_name(s).ok_or_else(|| UnknownTarget {
        name: s.to_string(),
        expected: "x86-64, aarch64",
    })
}

#[derive(serde::Serialize)]
struct FunctionReport {
    name: String,
    phase: crate::ir::Phase,
    blocks: usize,
    instructions: usize,
    diagnostics: Vec<crate::engine::Diagnostic>,
    stats: Vec<crate::engine::Stat>,
    timings_us: std::collections::BTreeMap<&'static str, f64>,
    /// Per named system that times itself: its stage, name and time (printed with
    /// `--time-passes`, not in the JSON report).
    #[serde(skip)]
    system_timings_us: Vec<(Stage, &'static str, f64)>,
}

#[derive(serde::Serialize)]
struct CompileReport {
    file: String,
    passes: Vec<&'static str>,
    errors: usize,
    functions: Vec<FunctionReport>,
}

/// One error message and the functions that reported it, in input order.
struct ErrorGroup {
    pass: String,
    /// The message without its `function @name: ` prefix.
    message: String,
    functions: Vec<String>,
}

impl ErrorGroup {
    /// `FILE: error: [pass] message`, naming the functions when there are several.
    fn line(&self, file: &str) -> String {
        match self.functions.as_slice() {
            [f] => format!(
                "{file}: error: [{}] function @{f}: {}",
                self.pass, self.message
            ),
            fs => format!(
                "{file}: error: [{}] {} (in {} functions: @{})",
                self.pass,
                self.message,
                fs.len(),
                fs.join(", @")
            ),
        }
    }
}

/// Adds `message` of `pass` in `function` to `groups`: an identical message from another
/// function joins its group.
fn add_error(groups: &mut Vec<ErrorGroup>, pass: &str, function: &str, message: &str) {
    let prefix = format!("function @{function}: ");
    let message = message.strip_prefix(&prefix).unwrap_or(message);
    match groups
        .iter_mut()
        .find(|g| g.pass == pass && g.message == message)
    {
        Some(g) => g.functions.push(function.to_string()),
        None => groups.push(ErrorGroup {
            pass: pass.to_string(),
            message: message.to_string(),
            functions: vec![function.to_string()],
        }),
    }
}

fn print_errors(file: &str, groups: &[ErrorGroup]) {
    for g in groups {
        diag!("{}", g.line(file));
    }
}

/// What the driver keeps of each function the pipeline is done with. Each window of
/// functions is freed once it ran, so the input module and what is kept of it are never
/// both whole in memory: with `Text` the functions are printed on the worker that ran them
/// and only their LLVM text stays.
#[derive(Clone, Copy)]
enum Keep<'a> {
    /// The function after the pipeline (`--emit sir`).
    Function,
    /// Its definition printed as LLVM IR (`--emit ll`).
    Text(&'a crate::llvm::Exporter<'a>),
    /// Nothing but the report (`--emit json`, `verify`).
    Report,
}

/// What the driver kept of one function (see [`Keep`]); `None` for a failed function.
enum Output {
    Function(Box<Function>),
    Text(String),
    None,
}

/// The pipeline's results: per function (in input order) what was kept and its report,
/// the number of functions with errors and the errors, an identical message from several
/// functions once (the caller prints them).
struct PipelineRun {
    outputs: Vec<Output>,
    reports: Vec<FunctionReport>,
    failed: usize,
    errors: Vec<ErrorGroup>,
}

/// What a report says of a function from its input form (a failed function is reported
/// as it was) and what a failed one leaves behind: its header, without a body.
fn header_of(f: &Function) -> (Function, usize, usize) {
    let header = Function {
        name: f.name.clone(),
        linkage: f.linkage,
        signature: f.signature.clone(),
        phase: f.phase,
        ..Function::default()
    };
    (header, f.live_block_count(), f.live_inst_count())
}

/// Functions per window: enough batches per worker to keep every core busy, few enough
/// that a window's inputs and results are a small part of the module.
fn window_size(config: &PipelineConfig) -> usize {
    (rayon::current_num_threads() * crate::engine::batch_size(config) * 16).max(64)
}

/// Runs the pipeline on `functions` (whose calls refer to `symbols`) window by window,
/// freeing each window's inputs once it ran, and keeps of each function what `keep` says
/// (see [`PipelineRun`]).
fn run_pipeline(
    mut functions: Vec<Function>,
    symbols: &Arc<crate::ir::SymbolTable>,
    config: &PipelineConfig,
    file: &str,
    verbose: bool,
    keep: Keep<'_>,
) -> PipelineRun {
    let mut run = PipelineRun {
        outputs: Vec::with_capacity(functions.len()),
        reports: Vec::with_capacity(functions.len()),
        failed: 0,
        errors: Vec::new(),
    };
    let window = window_size(config);
    while !functions.is_empty() {
        let inputs: Vec<Function> = functions.drain(..window.min(functions.len())).collect();
        let results: Vec<Result<Finished, InternalError>> = match keep {
            Keep::Function => batch::run_functions(&inputs, symbols, config, &|| {})
                .into_iter()
                .map(|r| r.map(split_run))
                .collect(),
            Keep::Text(exporter) => {
                batch::map_functions(&inputs, symbols, config, &|| {}, &|f, report| {
                    let text = if report.has_errors() {
                        Output::None
                    } else {
                        Output::Text(exporter.function(f))
                    };
                    (report, shape(f), text)
                })
            }
            Keep::Report => batch::map_functions(&inputs, symbols, config, &|| {}, &|f, report| {
                (report, shape(f), Output::None)
            }),
        };
        for (result, input) in results.into_iter().zip(inputs) {
            let (header, blocks, instructions) = header_of(&input);
            drop(input);
            record(
                &mut run,
                result,
                header,
                blocks,
                instructions,
                config,
                file,
                verbose,
            );
        }
    }
    run
}

/// A function's run: its report, the [`shape`] of the function after it, what is kept.
type Finished = (RunReport, (Phase, usize, usize), Output);

/// A function's phase, live blocks and live instructions (what its report says).
fn shape(f: &Function) -> (Phase, usize, usize) {
    (f.phase, f.live_block_count(), f.live_inst_count())
}

/// A finished run as its report and the function.
fn split_run(run: FunctionRun) -> Finished {
    let FunctionRun {
        function,
        diagnostics,
        timings,
        dumps,
        stats,
        system_timings,
    } = run;
    let report = RunReport {
        diagnostics,
        timings,
        dumps,
        stats,
        system_timings,
    };
    (
        report,
        shape(&function),
        Output::Function(Box::new(function)),
    )
}

/// Adds the result of one function's run to `run`: its report, its errors, and what is
/// kept of it (for a failed function under [`Keep::Function`], its `header`).
#[allow(clippy::too_many_arguments)]
fn record(
    run: &mut PipelineRun,
    result: Result<Finished, InternalError>,
    header: Function,
    blocks: usize,
    instructions: usize,
    config: &PipelineConfig,
    file: &str,
    verbose: bool,
) {
    let name = header.name.clone();
    match result {
        Ok((report, shape, output)) => {
            for dump in &report.dumps {
                diag_part!("{dump}");
            }
            let has_errors = report.has_errors();
            for d in &report.diagnostics {
                if d.severity == Severity::Error {
                    add_error(&mut run.errors, d.pass, &name, &d.message);
                } else if verbose {
                    diag!("{file}: note: [{}] {}", d.pass, d.message);
                }
            }
            run.failed += has_errors as usize;
            // A failed function is reported as it was, and under `Keep::Function` leaves
            // its header (`--keep-going` prints it as a declaration).
            let ((phase, blocks, instructions), output) = match output {
                _ if !has_errors => (shape, output),
                Output::Function(_) => (
                    (header.phase, blocks, instructions),
                    Output::Function(Box::new(header)),
                ),
                other => ((header.phase, blocks, instructions), other),
            };
            run.reports.push(FunctionReport {
                name,
                phase,
                blocks,
                instructions,
                diagnostics: report.diagnostics,
                stats: report.stats,
                timings_us: Stage::ALL
                    .iter()
                    .filter(|s| config.runs(**s))
                    .map(|s| (s.name(), report.timings[*s as usize].as_secs_f64() * 1e6))
                    .collect(),
                system_timings_us: report
                    .system_timings
                    .iter()
                    .map(|&(stage, name, d)| (stage, name, d.as_secs_f64() * 1e6))
                    .collect(),
            });
            run.outputs.push(output);
        }
        Err(message) => {
            add_error(&mut run.errors, "engine", &name, &message.to_string());
            run.failed += 1;
            run.reports.push(FunctionReport {
                name,
                phase: header.phase,
                blocks,
                instructions,
                diagnostics: vec![crate::engine::Diagnostic {
                    severity: Severity::Error,
                    pass: "engine",
                    message: message.to_string(),
                }],
                stats: Vec::new(),
                timings_us: Default::default(),
                system_timings_us: Vec::new(),
            });
            run.outputs.push(Output::Function(Box::new(header)));
        }
    }
}

/// `strata compile`.
pub fn compile(args: CompileArgs) -> Result<i32, CliError> {
    let mut requested = parse_passes(args.passes.as_deref())?;
    if (args.check || args.corrupt_allocation.is_some()) && args.emit != Emit::Alloc {
        return Err(CliError::new(
            exit::USAGE,
            "--check judges an allocation: it needs --emit alloc and --target",
        ));
    }
    if args.annotate
        && (args.emit != Emit::Alloc || args.allocator != super::machine::Allocator::Ion)
    {
        return Err(CliError::new(
            exit::USAGE,
            "--annotate prints our allocator's decisions: it needs --emit alloc, --target and --allocator ion",
        ));
    }
    let machine_passes = PassSet::LOWER | PassSet::REGALLOC | PassSet::CHECK;
    if args.target.is_none() && args.passes.is_some() && requested.intersects(machine_passes) {
        // Without a target these passes have no machine to work on; say so rather than
        // run a pipeline that silently skips them.
        return Err(CliError::new(
            exit::USAGE,
            "--passes lower, regalloc and check work on machine code: they need --target x86-64 or --target aarch64",
        ));
    }
    if matches!(args.emit, Emit::Machine | Emit::Alloc) {
        let Some(arch) = args.target else {
            return Err(CliError::new(
                exit::USAGE,
                "--emit machine and --emit alloc need --target x86-64 or --target aarch64",
            ));
        };
        note_phi_elim_left_out(arch, requested);
        return super::machine::compile_machine(&args, requested, arch);
    }
    if args.emit == Emit::Ll {
        requested = ll_pipeline(&args, requested)?;
    }
    if let Some(arch) = args.target {
        note_phi_elim_left_out(arch, requested);
        let machine = crate::api::machine_config(requested, arch);
        requested = machine.passes;
    }
    let config = pipeline_config(&args, requested)?;
    // Only `--keep-going` prints a function the pipeline failed on from its original text.
    let options = crate::llvm::ImportOptions {
        strict: args.strict,
        drop_function_text: !args.keep_going,
    };
    let loaded = super::load_module_with(&args.file, args.input_format, &options)?;
    let mut module = loaded.module;
    if args.emit == Emit::Ll {
        // The pipeline never returns to an earlier phase: an input LLVM IR cannot print
        // stays unprintable, so say so before any work.
        if let Some(e) = module
            .functions
            .iter()
            .find_map(|f| crate::llvm::exportable(f).err())
        {
            return Err(CliError::new(exit::USAGE, format!("--emit ll: {e}")));
        }
    }
    let file = super::io::input_name(&args.file);
    let context = loaded.llvm.unwrap_or_default();
    let symbols = Arc::new(module.symbol_table());
    let functions = std::mem::take(&mut module.functions);
    let exporter = crate::llvm::Exporter::new(&module, &context);
    let keep = match args.emit {
        Emit::Ll => Keep::Text(&exporter),
        Emit::Json => Keep::Report,
        _ => Keep::Function,
    };
    let PipelineRun {
        outputs,
        reports,
        failed,
        errors,
    } = run_pipeline(functions, &symbols, &config, &file, args.verbose, keep);
    if args.stats {
        print_stats(&file, &reports);
    }
    if args.time_passes {
        print_time_passes(&config, &reports);
    }
    let failed_names: Vec<String> = reports
        .iter()
        .filter(|r| r.diagnostics.iter().any(|d| d.severity == Severity::Error))
        .map(|r| format!("@{}", r.name))
        .collect();
    if !report_failures(&args, &file, failed, &failed_names, reports.len(), &errors) {
        return Ok(exit::INPUT);
    }
    let text = match args.emit {
        Emit::Sir => {
            drop(exporter);
            module.functions = outputs
                .into_iter()
                .filter_map(|o| match o {
                    Output::Function(f) => Some(*f),
                    _ => None,
                })
                .collect();
            if failed > 0 {
                let failed_set: std::collections::HashSet<&str> =
                    failed_names.iter().map(|n| &n[1..]).collect();
                demote_to_declarations(&mut module, &failed_set);
            }
            crate::text::print_module(&module)
        }
        Emit::Ll => ll_text(&exporter, &context, &reports, outputs),
        Emit::Machine | Emit::Alloc => unreachable!("handled by compile_machine above"),
        Emit::Json => {
            let report = CompileReport {
                file,
                passes: config.passes.passes().map(|p| p.info().name).collect(),
                errors: failed,
                functions: reports,
            };
            serde_json::to_string_pretty(&report).expect("report serialises") + "\n"
        }
    };
    write_output(args.output.as_deref(), &text)?;
    Ok(if failed > 0 { exit::INPUT } else { exit::OK })
}

/// Prints the errors of the functions that failed (`failed_names`, of `total`). Returns
/// false when nothing may be written: some function failed, the output is not a JSON
/// report, and `--keep-going` is off.
fn report_failures(
    args: &CompileArgs,
    file: &str,
    failed: usize,
    failed_names: &[String],
    total: usize,
    errors: &[ErrorGroup],
) -> bool {
    let list = failed_names.join(", ");
    if failed > 0 && args.emit != Emit::Json && !args.keep_going {
        // One line when every function failed for one reason; `--keep-going` only when
        // some function has something to write.
        match errors {
            [only] if failed == total => diag!("{}; nothing written", only.line(file)),
            _ => {
                print_errors(file, errors);
                if failed == total {
                    diag!("error: {file}: every function failed ({list}); nothing written");
                } else {
                    diag!(
                        "error: {file}: {failed} of {total} functions failed ({list}); nothing \
                         written (--keep-going writes the others)"
                    );
                }
            }
        }
        return false;
    }
    print_errors(file, errors);
    if failed > 0 && args.emit != Emit::Json {
        diag!(
            "{file}: warning: --keep-going: {failed} of {total} functions failed and are written \
             as declarations only: {list}"
        );
    }
    true
}

/// The pipeline configuration `compile` runs: `requested` (already completed by the
/// `--emit` and `--target` rules) with the flags that shape a run. Errors: an unknown or
/// absent `--dump-after` pass (usage), an unreadable `--targets` model (input).
fn pipeline_config(args: &CompileArgs, requested: PassSet) -> Result<PipelineConfig, CliError> {
    let dump_after = match args.dump_after.as_deref() {
        None => None,
        Some(name) => {
            let pass = Pass::from_name(name).ok_or_else(|| {
                CliError::new(exit::USAGE, format!("--dump-after: unknown pass `{name}`"))
            })?;
            if !requested.with_requirements().has(pass) {
                return Err(CliError::new(
                    exit::USAGE,
                    format!("--dump-after {name}: that pass is not in the pipeline"),
                ));
            }
            Some(pass)
        }
    };
    let placement_model = match &args.targets {
        Some(path) => {
            let (_, text) = crate::placement::targets::TargetModel::load(path)
                .map_err(|e| CliError::new(exit::INPUT, e.to_string()))?;
            Some(Arc::<str>::from(text))
        }
        None => None,
    };
    Ok(PipelineConfig {
        verify_each: args.verify_each,
        verify_output: true,
        time_passes: args.time_passes,
        dump_after,
        options: crate::engine::PassOptions {
            sccp_memory_limit: args.sccp_memory_limit,
            placement_model,
            placement_split: args.placement_split,
            target: args.target.unwrap_or_default(),
            ..Default::default()
        },
        ..PipelineConfig::new(requested)
    })
}

/// `--stats`: one line per statistic of every function.
fn print_stats(file: &str, reports: &[FunctionReport]) {
    for r in reports {
        for s in &r.stats {
            diag!("{file}: @{}: {}.{} = {}", r.name, s.pass, s.name, s.value);
        }
    }
}

/// `--time-passes`: each stage's total over the functions, then its named systems that
/// time themselves, in the order they ran.
fn print_time_passes(config: &PipelineConfig, reports: &[FunctionReport]) {
    diag!("{:<12} {:>12}", "stage", "time (µs)");
    for s in Stage::ALL.iter().filter(|s| config.runs(**s)) {
        let total: f64 = reports
            .iter()
            .filter_map(|r| r.timings_us.get(s.name()))
            .sum();
        diag!("{:<12} {:>12.1}", s.name(), total);
        // The stage's named systems that time themselves, in the order they ran.
        let mut systems: Vec<(&'static str, f64)> = Vec::new();
        for &(stage, name, us) in reports.iter().flat_map(|r| &r.system_timings_us) {
            if stage != *s {
                continue;
            }
            match systems.iter_mut().find(|(n, _)| *n == name) {
                Some((_, t)) => *t += us,
                None => systems.push((name, us)),
            }
        }
        for (name, us) in systems {
            diag!("  {:<24} {:>12.1}", name, us);
        }
    }
}

/// The `--emit ll` text: the module's verbatim items and each function's printed text, or,
/// for a function that failed, its original text (`--keep-going` keeps it).
fn ll_text(
    exporter: &crate::llvm::Exporter<'_>,
    context: &crate::llvm::LlvmContext,
    reports: &[FunctionReport],
    outputs: Vec<Output>,
) -> String {
    // A failed function has no text: its original text is printed (`--keep-going`
    // keeps it). Each text is freed once copied into the output, so the functions'
    // texts are not held twice.
    let mut texts: std::collections::HashMap<&str, String> = reports
        .iter()
        .zip(outputs)
        .filter_map(|(r, o)| match o {
            Output::Text(t) => Some((r.name.as_str(), t)),
            _ => None,
        })
        .collect();
    let printed: std::collections::HashSet<&str> = texts.keys().copied().collect();
    // Sized for everything printed (the items printed verbatim and the functions),
    // so that the largest buffer is never regrown.
    let verbatim: usize = context
        .items
        .iter()
        .map(|i| match i {
            crate::llvm::Item::Text(t) | crate::llvm::Item::Define(_, t) => t.len() + 2,
        })
        .sum();
    let mut out =
        String::with_capacity(verbatim + texts.values().map(|t| t.len() + 1).sum::<usize>());
    exporter.write_module(
        &mut out,
        &|name| printed.contains(name),
        &mut |out, name| match texts.remove(name) {
            Some(t) => {
                out.push_str(&t);
                true
            }
            None => false,
        },
        &[],
    );
    out
}

/// Replaces each function of `module` named in `names` by an external declaration with its
/// signature (its symbol becomes an extern; the remaining functions are renumbered).
fn demote_to_declarations(module: &mut Module, names: &std::collections::HashSet<&str>) {
    use crate::ir::{ExternDecl, SymbolKind};
    let functions = std::mem::take(&mut module.functions);
    let mut new_index = vec![None; functions.len()];
    for (i, f) in functions.into_iter().enumerate() {
        if !names.contains(f.name.as_str()) {
            new_index[i] = Some(module.functions.len() as u32);
            module.functions.push(f);
            continue;
        }
        if let Some(symbol) = module.symbol_by_name(&f.name) {
            module.externs.push(ExternDecl {
                symbol,
                signature: f.signature,
            });
            module.symbols[symbol.index()].kind =
                SymbolKind::Extern(module.externs.len() as u32 - 1);
        }
    }
    for s in &mut module.symbols {
        if let SymbolKind::Function(i) = s.kind {
            if let Some(Some(k)) = new_index.get(i as usize) {
                s.kind = SymbolKind::Function(*k);
            }
        }
    }
}

/// `strata verify`.
pub fn verify(file: &Path, format: Option<InputFormat>, strict: bool) -> Result<i32, CliError> {
    let options = crate::llvm::ImportOptions {
        strict,
        drop_function_text: true,
    };
    let mut module = super::load_module_with(file, format, &options)?.module;
    let n = module.functions.len();
    let config = PipelineConfig::new(PassSet::VERIFY);
    let name = super::io::input_name(file);
    let symbols = Arc::new(module.symbol_table());
    let functions = std::mem::take(&mut module.functions);
    let PipelineRun { failed, errors, .. } =
        run_pipeline(functions, &symbols, &config, &name, false, Keep::Report);
    print_errors(&name, &errors);
    // The verdict is the command's output: a failure to write it is an I/O error.
    let (verdict, code) = if failed == 0 {
        (format!("{name}: {n} functions verified\n"), exit::OK)
    } else {
        (
            format!("{name}: {failed} of {n} functions have errors\n"),
            exit::INPUT,
        )
    };
    use std::io::Write as _;
    std::io::stderr()
        .write_all(verdict.as_bytes())
        .map_err(|e| CliError::new(exit::IO, format!("<stderr>: {e}")))?;
    Ok(code)
}

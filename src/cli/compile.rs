//! `strata compile` and `strata verify`.

use super::{exit, load_module, parse_passes, write_output, CliError, Emit, InputFormat};
use crate::engine::{batch, Pass, PassSet, PipelineConfig, Severity, Stage};
use crate::ir::Module;
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
    /// Run the verifier after every transforming pass.
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

/// Parses `--target`.
pub(super) fn parse_target(s: &str) -> Result<crate::stage::Arch, String> {
    crate::stage::Arch::from_name(s)
        .ok_or_else(|| format!("unknown target `{s}` (x86-64, aarch64)"))
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

/// Runs the pipeline on every function of `module`; returns the module after it, a report
/// per function, the number of functions with errors and the errors, an identical message
/// from several functions once (the caller prints them). Functions whose pipeline failed
/// are returned as they were.
fn run_pipeline(
    module: Module,
    config: &PipelineConfig,
    file: &str,
    verbose: bool,
) -> (Module, Vec<FunctionReport>, usize, Vec<ErrorGroup>) {
    let symbols = Arc::new(module.symbol_table());
    let mut module = module;
    // The engines copy each function in; the originals stay here for the functions whose
    // pipeline fails (nothing is cloned).
    let originals = std::mem::take(&mut module.functions);
    let runs = batch::run_functions(&originals, &symbols, config, &|| {});
    let mut reports = Vec::new();
    let mut failed = 0;
    let mut errors = Vec::new();
    for (run, original) in runs.into_iter().zip(originals) {
        match run {
            Ok(run) => {
                for dump in &run.dumps {
                    diag_part!("{dump}");
                }
                let has_errors = run.has_errors();
                for d in &run.diagnostics {
                    if d.severity == Severity::Error {
                        add_error(&mut errors, d.pass, &original.name, &d.message);
                    } else if verbose {
                        diag!("{file}: note: [{}] {}", d.pass, d.message);
                    }
                }
                failed += has_errors as usize;
                let f = if has_errors { original } else { run.function };
                reports.push(FunctionReport {
                    name: f.name.clone(),
                    phase: f.phase,
                    blocks: f.live_block_count(),
                    instructions: f.live_inst_count(),
                    diagnostics: run.diagnostics,
                    stats: run.stats,
                    timings_us: Stage::ALL
                        .iter()
                        .filter(|s| config.runs(**s))
                        .map(|s| (s.name(), run.timings[*s as usize].as_secs_f64() * 1e6))
                        .collect(),
                    system_timings_us: run
                        .system_timings
                        .iter()
                        .map(|&(stage, name, d)| (stage, name, d.as_secs_f64() * 1e6))
                        .collect(),
                });
                module.functions.push(f);
            }
            Err(message) => {
                add_error(&mut errors, "engine", &original.name, &message.to_string());
                failed += 1;
                reports.push(FunctionReport {
                    name: original.name.clone(),
                    phase: original.phase,
                    blocks: original.live_block_count(),
                    instructions: original.live_inst_count(),
                    diagnostics: vec![crate::engine::Diagnostic {
                        severity: Severity::Error,
                        pass: "engine",
                        message: message.to_string(),
                    }],
                    stats: Vec::new(),
                    timings_us: Default::default(),
                    system_timings_us: Vec::new(),
                });
                module.functions.push(original);
            }
        }
    }
    (module, reports, failed, errors)
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
    let config = PipelineConfig {
        verify_each: args.verify_each,
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
    };
    let loaded = load_module(&args.file, args.input_format, args.strict)?;
    let module = loaded.module;
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
    let (module, reports, failed, errors) = run_pipeline(module, &config, &file, args.verbose);
    if args.stats {
        for r in &reports {
            for s in &r.stats {
                diag!("{file}: @{}: {}.{} = {}", r.name, s.pass, s.name, s.value);
            }
        }
    }
    if args.time_passes {
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
    let failed_names: Vec<String> = reports
        .iter()
        .filter(|r| r.diagnostics.iter().any(|d| d.severity == Severity::Error))
        .map(|r| format!("@{}", r.name))
        .collect();
    let mut module = module;
    let total = reports.len();
    let list = failed_names.join(", ");
    if failed > 0 && args.emit != Emit::Json && !args.keep_going {
        // One line when every function failed for one reason; `--keep-going` only when
        // some function has something to write.
        match errors.as_slice() {
            [only] if failed == total => diag!("{}; nothing written", only.line(&file)),
            _ => {
                print_errors(&file, &errors);
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
        return Ok(exit::INPUT);
    }
    print_errors(&file, &errors);
    if failed > 0 && args.emit != Emit::Json {
        let failed_set: std::collections::HashSet<&str> =
            failed_names.iter().map(|n| &n[1..]).collect();
        demote_to_declarations(&mut module, &failed_set);
        diag!(
            "{file}: warning: --keep-going: {failed} of {total} functions failed and are written \
             as declarations only: {list}"
        );
    }
    let text = match args.emit {
        Emit::Sir => crate::text::print_module(&module),
        Emit::Ll => crate::llvm::export(&module, &loaded.llvm.unwrap_or_default()),
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
    let module = load_module(file, format, strict)?.module;
    let n = module.functions.len();
    let config = PipelineConfig::new(PassSet::VERIFY);
    let name = super::io::input_name(file);
    let (_, _, failed, errors) = run_pipeline(module, &config, &name, false);
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

//! `strata bench`: the batch driver.
//!
//! Parses or imports every input (in parallel across files), then runs every function through
//! the pipeline on all cores with per-thread engines, showing progress on a terminal, and
//! reports counts, per-stage CPU time and throughput per module and in total (text on stdout,
//! optional JSON). With `--against-llvm`, each `.ll` input is also given to LLVM 14's `opt`
//! (`-time-passes`, and `-S` to count what its passes changed), and the two are printed side
//! by side as ratios: import against `Parse IR`, mem2reg against `PromotePass`, SCCP against
//! `SCCPPass`, phis placed, allocas promoted, and what SCCP folded.
//!
//! Faults: one bad input never sinks the batch. Directories are walked with `walkdir`
//! following symbolic links, with loop detection (a loop is reported once as a warning and
//! not followed), and every file is read once even when reached by several paths (keyed by
//! its canonical path). A path that cannot be walked or read, a file that is not UTF-8 text
//! or does not parse, a module whose globals are invalid and every function whose pipeline
//! reports an error are each recorded as a failure (file, function, stage, message), printed
//! on stderr, listed in the text report and in the JSON `failures`; the rest of the corpus
//! runs. Exit code: 0 when nothing failed; 4 when some path could not be read (or the JSON
//! could not be written); otherwise 1 when some file or function failed.

use super::llvm_reference::{self, IrCounts};
use super::{exit, parse_passes, CliError, InputFormat};
use crate::engine::{batch, PassSet, PipelineConfig, Stage};
use crate::ir::{Function, Module, SymbolTable};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `writeln!` into a `String` (which cannot fail): the report is built whole, then written
/// with every error checked.
macro_rules! outln {
    ($out:expr) => {
        $out.push('\n')
    };
    ($out:expr, $($arg:tt)*) => {{
        $out.push_str(&format!($($arg)*));
        $out.push('\n');
    }};
}

/// Arguments of `bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Files or directories (searched recursively for .sir and .ll files); `-` reads one
    /// module from stdin.
    pub paths: Vec<PathBuf>,
    /// Input format of `-` and of files named without a `.sir`/`.ll` extension (default:
    /// from the content).
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormat>,
    /// Passes to run (default: the default pipeline; with --against-llvm, up to sccp).
    #[arg(long, value_name = "LIST")]
    pub passes: Option<String>,
    /// Worker threads (default: all cores; one with --against-llvm).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run the corpus this many times (times are averaged per run).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Write a JSON report here.
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// Number of generated functions added to the built-in corpus.
    #[arg(long, default_value_t = 2000)]
    pub generated: usize,
    /// SCCP lattice memory limit in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 100 * 1024)]
    pub sccp_memory_limit: usize,
    /// For each .ll input, also run LLVM 14's opt on it and print both side by side (our
    /// imports are timed after half a second of untimed ones, a warm-up).
    #[arg(long)]
    pub against_llvm: bool,
    /// Also lower for this target (`x86-64`, `aarch64`) and allocate registers (our
    /// allocator unless `--allocator regalloc2`); prints per module: machine instructions,
    /// vregs, operands per instruction, the allocator's time per instruction, edits per 100
    /// instructions, spill slots, and the functions our checker accepted.
    #[arg(long, value_name = "TARGET", value_parser = super::compile::parse_target)]
    pub target: Option<crate::stage::Arch>,
    /// The register allocator with `--target`: `ion` (ours, the default) or `regalloc2`.
    #[arg(long, value_enum, default_value = "ion")]
    pub allocator: crate::stage::Allocator,
}

/// LLVM's side of one module.
#[derive(serde::Serialize, Default, Clone)]
struct LlvmSide {
    /// Seconds per `opt -time-passes` timer (Parse IR, PromotePass, SCCPPass, analyses).
    seconds: BTreeMap<String, f64>,
    /// The module as clang emitted it.
    input: IrCounts,
    /// After `opt -passes=mem2reg`.
    after_mem2reg: IrCounts,
    /// After `opt -passes=mem2reg,sccp`.
    after_sccp: IrCounts,
}

/// One input module.
#[derive(serde::Serialize, Default)]
struct ModuleReport {
    name: String,
    functions: usize,
    blocks: usize,
    instructions: usize,
    output_instructions: usize,
    failed_functions: usize,
    skipped_functions: usize,
    /// Seconds to parse or import (one thread).
    parse_seconds: f64,
    /// CPU seconds per stage, per run.
    stage_seconds: BTreeMap<&'static str, f64>,
    /// Pass statistics summed over the module's functions (one run).
    stats: BTreeMap<String, u64>,
    llvm: Option<LlvmSide>,
}

/// One failure: a path that could not be read, a file that did not parse, or a function
/// whose pipeline reported an error.
#[derive(serde::Serialize, Clone, Debug)]
struct Failure {
    /// The input path (`builtin:NAME` for the built-in corpus).
    file: String,
    /// The function, for failures inside one.
    function: Option<String>,
    /// `read` (I/O), `parse` (not text, or not valid `.sir`/`.ll`), `globals`, a pass name
    /// (`verify`, `mem2reg`, ...) or `engine` (an internal error).
    stage: String,
    /// What went wrong (the OS error for `read`).
    message: String,
}

impl Failure {
    fn print(&self) {
        match &self.function {
            Some(f) => diag!(
                "error: {}: @{f}: [{}] {}",
                self.file,
                self.stage,
                self.message
            ),
            None => diag!("error: {}: [{}] {}", self.file, self.stage, self.message),
        }
    }
}

#[derive(serde::Serialize, Default)]
struct BenchReport {
    inputs: usize,
    threads: usize,
    repeat: u32,
    passes: Vec<&'static str>,
    functions: usize,
    /// Live blocks of the input functions.
    blocks: usize,
    /// Live instructions of the input functions (throughput is per input instruction).
    instructions: usize,
    /// Live instructions after the pipeline.
    output_instructions: usize,
    failed_functions: usize,
    parse_seconds: f64,
    parse_instructions_per_second: f64,
    pipeline_wall_seconds: f64,
    functions_per_second: f64,
    instructions_per_second: f64,
    stage_cpu_seconds: BTreeMap<&'static str, f64>,
    /// Pass statistics summed over all functions, keyed `pass.name` (one run).
    stats: BTreeMap<String, u64>,
    /// Every failure, in input order (see the module doc).
    failures: Vec<Failure>,
    /// Paths not followed (symbolic link loops).
    warnings: Vec<String>,
    modules: Vec<ModuleReport>,
}

/// What the bench keeps of one function's run (the function itself is dropped on the worker).
struct RunSummary {
    instructions: usize,
    /// `(pass, message)` of each error diagnostic (the function failed if there is one).
    errors: Vec<(&'static str, String)>,
    timings: [Duration; Stage::ALL.len()],
    stats: Vec<crate::engine::Stat>,
}

/// The files under `paths` (each given file, and the `.sir`/`.ll` files below each given
/// directory, sorted by name), each once; what cannot be walked goes to `failures`, loops to
/// `warnings`.
fn collect_files(
    paths: &[PathBuf],
    failures: &mut Vec<Failure>,
    warnings: &mut Vec<String>,
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let wanted = |p: &Path| p.extension().is_some_and(|x| x == "sir" || x == "ll");
    for root in paths {
        if root.as_os_str() == "-" {
            if seen.insert(root.clone()) {
                files.push(root.clone());
            }
            continue;
        }
        let walk = walkdir::WalkDir::new(root)
            .follow_links(true)
            .sort_by_file_name();
        for entry in walk {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let path = e.path().unwrap_or(root).to_path_buf();
                    if let Some(ancestor) = e.loop_ancestor() {
                        let w = format!(
                            "{}: symbolic link loop back to {}, not followed",
                            path.display(),
                            ancestor.display()
                        );
                        diag!("warning: {w}");
                        warnings.push(w);
                        continue;
                    }
                    // Below a directory, only what would have been read matters.
                    if e.depth() > 0
                        && !wanted(&path)
                        && e.io_error()
                            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
                    {
                        continue;
                    }
                    let message = match e.io_error() {
                        Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
                            "no such file or directory (or a dangling symbolic link)".to_string()
                        }
                        Some(io) => io.to_string(),
                        None => e.to_string(),
                    };
                    failures.push(Failure {
                        file: path.display().to_string(),
                        function: None,
                        stage: "read".to_string(),
                        message,
                    });
                    continue;
                }
            };
            let path = entry.path();
            let ty = entry.file_type();
            if ty.is_dir() || (entry.depth() > 0 && !wanted(path)) {
                continue;
            }
            if !ty.is_file() {
                failures.push(Failure {
                    file: path.display().to_string(),
                    function: None,
                    stage: "read".to_string(),
                    message: "not a regular file".to_string(),
                });
                continue;
            }
            let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            if seen.insert(key) {
                files.push(path.to_path_buf());
            }
        }
    }
    files
}

/// An input: its name, the file (for `opt`) and its text.
struct Source {
    name: String,
    path: Option<PathBuf>,
    text: String,
    format: InputFormat,
}

/// Parses or imports one source; returns the module, the number of skipped functions and
/// the seconds it took.
fn load(source: &Source) -> Result<(Module, usize, f64), String> {
    let start = Instant::now();
    let (module, skipped) = match source.format {
        InputFormat::Sir => (
            crate::text::parse_module(&source.text, &source.name).map_err(|e| e.to_string())?,
            0,
        ),
        InputFormat::Ll => {
            let options = crate::llvm::ImportOptions::default();
            let imported = crate::llvm::import(&source.text, &source.name, &options)
                .map_err(|e| e.to_string())?;
            let seconds = start.elapsed().as_secs_f64();
            // Not timed: LLVM's `Parse IR` does not include its verifier either.
            imported.verify().map_err(|e| e.to_string())?;
            return Ok((imported.module, imported.skipped.len(), seconds));
        }
    };
    Ok((module, skipped, start.elapsed().as_secs_f64()))
}

/// The failures of a module's global initialisers (see `verify_globals`).
fn global_failures(module: &Module, file: &str) -> Vec<Failure> {
    crate::verify::verify_globals(module)
        .into_iter()
        .map(|e| Failure {
            file: file.to_string(),
            function: None,
            stage: "globals".to_string(),
            message: e.to_string(),
        })
        .collect()
}

fn llvm_side(path: &Path, repeat: u32) -> Result<LlvmSide, String> {
    let mut seconds: BTreeMap<String, f64> = BTreeMap::new();
    for _ in 0..repeat {
        for (k, v) in llvm_reference::time_passes(path, "mem2reg,sccp")? {
            *seconds.entry(k).or_default() += v / repeat as f64;
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    Ok(LlvmSide {
        seconds,
        input: llvm_reference::count(&text),
        after_mem2reg: llvm_reference::counts_after(path, "mem2reg")?,
        after_sccp: llvm_reference::counts_after(path, "mem2reg,sccp")?,
    })
}

fn ratio(ours: f64, theirs: f64) -> String {
    if theirs > 0.0 {
        format!("{:.2}x", ours / theirs)
    } else {
        "-".to_string()
    }
}

/// `ratio(ours, theirs)`, or "not comparable" when import skipped functions that LLVM
/// processed (our time and counts then cover less code than LLVM's).
fn ratio_if(comparable: bool, ours: f64, theirs: f64) -> String {
    if comparable {
        ratio(ours, theirs)
    } else {
        "n/c".to_string()
    }
}

fn print_llvm_tables(out: &mut String, modules: &[ModuleReport]) {
    let with: Vec<(&ModuleReport, &LlvmSide)> = modules
        .iter()
        .filter_map(|m| m.llvm.as_ref().map(|l| (m, l)))
        .collect();
    if with.is_empty() {
        return;
    }
    let ms = |s: f64| format!("{:.2}", s * 1e3);
    let stage = |m: &ModuleReport, s: &str| m.stage_seconds.get(s).copied().unwrap_or(0.0);
    let t = |l: &LlvmSide, s: &str| l.seconds.get(s).copied().unwrap_or(0.0);
    let stat = |m: &ModuleReport, s: &str| m.stats.get(s).copied().unwrap_or(0);
    outln!(
        out,
        "\nfunctions imported of those defined (a module with skipped functions is not comparable)"
    );
    for (m, l) in &with {
        let note = if m.skipped_functions == 0 {
            String::new()
        } else {
            format!(
                "  not comparable: {} skipped, ratios marked n/c",
                m.skipped_functions
            )
        };
        outln!(
            out,
            "{:<12} {:>6} / {:<6}{note}",
            m.name,
            m.functions,
            l.input.functions
        );
    }
    outln!(out, "\nagainst LLVM 14 opt (ms, one thread; ratio = ours / LLVM, lower is better; n/c = not comparable)");
    outln!(
        out,
        "{:<12} {:>9} {:>9} {:>7}   {:>9} {:>9} {:>7}   {:>11} {:>11} {:>7}   {:>9} {:>9} {:>7}",
        "module",
        "import",
        "ParseIR",
        "ratio",
        "mem2reg",
        "Promote",
        "ratio",
        "+analyses",
        "+analyses",
        "ratio",
        "sccp",
        "SCCPPass",
        "ratio"
    );
    for (m, l) in &with {
        let ok = m.skipped_functions == 0 && m.functions == l.input.functions;
        let ratio = |a: f64, b: f64| ratio_if(ok, a, b);
        let ours_m2r = stage(m, "mem2reg");
        let ours_all = ours_m2r + stage(m, "cfg") + stage(m, "dominance");
        let theirs_all =
            t(l, "PromotePass") + t(l, "DominatorTreeAnalysis") + t(l, "AssumptionAnalysis");
        outln!(out,
            "{:<12} {:>9} {:>9} {:>7}   {:>9} {:>9} {:>7}   {:>11} {:>11} {:>7}   {:>9} {:>9} {:>7}",
            m.name,
            ms(m.parse_seconds),
            ms(t(l, "Parse IR")),
            ratio(m.parse_seconds, t(l, "Parse IR")),
            ms(ours_m2r),
            ms(t(l, "PromotePass")),
            ratio(ours_m2r, t(l, "PromotePass")),
            ms(ours_all),
            ms(theirs_all),
            ratio(ours_all, theirs_all),
            ms(stage(m, "sccp")),
            ms(t(l, "SCCPPass")),
            ratio(stage(m, "sccp"), t(l, "SCCPPass")),
        );
    }
    outln!(
        out,
        "\nmem2reg result (phis placed; allocas promoted of allocas seen; allocas left after mem2reg)"
    );
    outln!(
        out,
        "{:<12} {:>10} {:>10} {:>7}   {:>16} {:>16}   {:>10} {:>10}",
        "module",
        "phis ours",
        "phis LLVM",
        "ratio",
        "promoted ours",
        "promoted LLVM",
        "left ours",
        "left LLVM"
    );
    for (m, l) in &with {
        let ok = m.skipped_functions == 0 && m.functions == l.input.functions;
        let ratio = |a: f64, b: f64| ratio_if(ok, a, b);
        let ours = stat(m, "mem2reg.phis_placed");
        let theirs = l.after_mem2reg.phis.saturating_sub(l.input.phis);
        let seen = stat(m, "mem2reg.allocas_seen");
        let promoted_llvm = l.input.allocas.saturating_sub(l.after_mem2reg.allocas);
        let promoted = stat(m, "mem2reg.allocas_promoted");
        let left = if ok {
            (seen - promoted.min(seen)).to_string()
        } else {
            "n/c".to_string()
        };
        outln!(
            out,
            "{:<12} {:>10} {:>10} {:>7}   {:>9}/{:<6} {:>9}/{:<6}   {:>10} {:>10}",
            m.name,
            ours,
            theirs,
            ratio(ours as f64, theirs as f64),
            promoted,
            seen,
            promoted_llvm,
            l.input.allocas,
            left,
            l.after_mem2reg.allocas
        );
    }
    outln!(
        out,
        "\nSCCP result (removed: instructions and terminators fewer after sccp than before, \
         ours counted by the pass, LLVM's from opt's output; folded: ours replaced by constants)"
    );
    outln!(
        out,
        "{:<12} {:>12} {:>12} {:>12}   {:>14} {:>14}   {:>12} {:>12}",
        "module",
        "folded ours",
        "removed ours",
        "removed LLVM",
        "branches ours",
        "branches LLVM",
        "blocks ours",
        "blocks LLVM"
    );
    for (m, l) in &with {
        let (a, b) = (&l.after_mem2reg, &l.after_sccp);
        outln!(
            out,
            "{:<12} {:>12} {:>12} {:>12}   {:>14} {:>14}   {:>12} {:>12}",
            m.name,
            stat(m, "sccp.instructions_folded"),
            stat(m, "sccp.instructions_removed"),
            a.instructions.saturating_sub(b.instructions),
            stat(m, "sccp.branches_resolved"),
            a.conditional_branches
                .saturating_sub(b.conditional_branches),
            stat(m, "sccp.blocks_removed"),
            a.blocks.saturating_sub(b.blocks),
        );
    }
}

/// `strata bench`.
pub fn bench(args: BenchArgs) -> Result<i32, CliError> {
    let requested = match (&args.passes, args.against_llvm) {
        (None, true) => PassSet::default_pipeline() - (PassSet::PHI_ELIM | PassSet::BLOCK_PARAMS),
        _ => parse_passes(args.passes.as_deref())?,
    };
    let requested = match args.target {
        Some(arch) => {
            crate::api::machine_config(requested, arch).passes
                | ((PassSet::REGALLOC | PassSet::CHECK) & PassSet::available())
        }
        None => requested,
    };
    let config = PipelineConfig {
        time_passes: true,
        options: crate::engine::PassOptions {
            sccp_memory_limit: args.sccp_memory_limit,
            target: args.target.unwrap_or_default(),
            allocator: args.allocator,
            ..Default::default()
        },
        ..PipelineConfig::new(requested)
    };
    // Against LLVM, both sides run alone on one thread (opt is single-threaded; two workers
    // on two cores slow each other's per-function times by up to a third).
    let threads = args.threads.or(args.against_llvm.then_some(1));
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
            .map_err(|e| CliError::new(exit::USAGE, format!("--threads: {e}")))?;
    }
    let repeat = args.repeat.max(1);
    let mut sources: Vec<Source> = Vec::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    if args.paths.is_empty() {
        for (name, text) in super::corpus::EXAMPLES {
            sources.push(Source {
                name: format!("builtin:{name}"),
                path: None,
                text: text.to_string(),
                format: InputFormat::Sir,
            });
        }
        // Printed and parsed again, so the parse figure covers the whole corpus.
        let generated = super::corpus::generated(args.generated);
        sources.push(Source {
            name: "builtin:generated".to_string(),
            path: None,
            text: crate::text::print_module(&generated),
            format: InputFormat::Sir,
        });
        diag!(
            "strata bench: built-in corpus ({} example programs, {} generated functions)",
            sources.len() - 1,
            args.generated
        );
    } else {
        let files = collect_files(&args.paths, &mut failures, &mut warnings);
        for f in files {
            match super::read_module_text(&f, args.input_format) {
                Ok((text, format)) => sources.push(Source {
                    name: super::io::input_name(&f),
                    format,
                    path: Some(f),
                    text,
                }),
                Err(e) => failures.push(Failure {
                    file: f.display().to_string(),
                    function: None,
                    stage: if e.code == exit::IO { "read" } else { "parse" }.to_string(),
                    // The error names the path already; keep only the reason.
                    message: e
                        .message
                        .strip_prefix(&format!("{}: ", f.display()))
                        .unwrap_or(&e.message)
                        .to_string(),
                }),
            }
        }
    }
    let mut report = BenchReport {
        inputs: sources.len(),
        threads: rayon::current_num_threads(),
        repeat,
        passes: config.passes.passes().map(|p| p.info().name).collect(),
        warnings,
        ..Default::default()
    };
    for f in &failures {
        f.print();
    }
    report.failures = failures;

    let parse_start = Instant::now();
    let loaded: Vec<_> = if args.against_llvm {
        // Side by side with opt, which parses one file on one thread: import the files one at
        // a time (not competing for cores) and average over the repeats as for opt. Untimed
        // imports come first, for at least half a second (a warm-up, as criterion does):
        // after the machine has been idle, its first half second or so runs at a fraction
        // of the speed (measured here: bzip2's import averaged 16-20 ms over 10 repeats
        // after a 2 s pause, 10 ms after 0.5 s of busy work), and opt's runs, which come
        // after ours, never see that.
        let warm_up = Instant::now();
        while warm_up.elapsed() < std::time::Duration::from_millis(500) {
            for source in &sources {
                let _ = load(source);
            }
        }
        sources
            .iter()
            .map(|source| {
                let mut total = 0.0;
                let mut last = None;
                for _ in 0..repeat {
                    let r = load(source);
                    if let Ok((_, _, secs)) = &r {
                        total += secs;
                    }
                    last = Some(r);
                }
                last.expect("repeat is at least 1")
                    .map(|(m, skipped, _)| (m, skipped, total / repeat as f64))
            })
            .collect()
    } else {
        sources.par_iter().map(load).collect()
    };
    // One run: with --against-llvm each file was imported `repeat` times.
    report.parse_seconds = if args.against_llvm {
        parse_start.elapsed().as_secs_f64() / repeat as f64
    } else {
        parse_start.elapsed().as_secs_f64()
    };
    let mut work: Vec<(Arc<SymbolTable>, Vec<Function>, ModuleReport, &Source)> = Vec::new();
    for (source, result) in sources.iter().zip(loaded) {
        let result = result
            .map_err(|message| {
                vec![Failure {
                    file: source.name.clone(),
                    function: None,
                    stage: "parse".to_string(),
                    message,
                }]
            })
            .and_then(
                |(module, skipped, seconds)| match global_failures(&module, &source.name) {
                    g if g.is_empty() => Ok((module, skipped, seconds)),
                    g => Err(g),
                },
            );
        match result {
            Ok((module, skipped, seconds)) => {
                let functions = module.functions.len();
                let blocks = module.functions.iter().map(|f| f.live_block_count()).sum();
                let instructions = module.functions.iter().map(|f| f.live_inst_count()).sum();
                let m = ModuleReport {
                    name: source
                        .path
                        .as_ref()
                        .and_then(|p| p.file_stem())
                        .map_or(source.name.clone(), |s| s.to_string_lossy().into_owned()),
                    functions,
                    blocks,
                    instructions,
                    skipped_functions: skipped,
                    parse_seconds: seconds,
                    ..Default::default()
                };
                work.push((Arc::new(module.symbol_table()), module.functions, m, source));
            }
            Err(failures) => {
                for f in failures {
                    f.print();
                    report.failures.push(f);
                }
            }
        }
    }
    let parsed_insts: usize = work.iter().map(|w| w.2.instructions).sum();
    report.parse_instructions_per_second = parsed_insts as f64 / report.parse_seconds.max(1e-9);

    let total: usize = work.iter().map(|w| w.1.len()).sum::<usize>() * repeat as usize;
    let bar = indicatif::ProgressBar::new(total as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} functions {per_sec} eta {eta}",
        )
        .expect("valid progress template"),
    );
    // Every worker builds its engine (World, schedule) before the clock starts: the
    // pipeline time is per function, and a batch user builds engines once per thread.
    // Each slot's tables are sized for the largest function that lands in it (twice its
    // rows, room for what the passes create), so the first round does not pay for growing
    // them: function `i` of a module always runs in slot `i % batch` (batches are fixed
    // chunks of each module's list), whichever worker takes the batch.
    let batch = crate::engine::batch_size(&config);
    let mut largest = vec![(0usize, 0usize); batch];
    for w in &work {
        for (i, f) in w.1.iter().enumerate() {
            let (b, n) = &mut largest[i % batch];
            *b = (*b).max(f.blocks.len());
            *n = (*n).max(f.insts.len());
        }
    }
    rayon::broadcast(|_| {
        let _ = crate::engine::with_thread_engine(&config, |engine| {
            for (slot, &(blocks, insts)) in largest.iter().enumerate() {
                engine.reserve_slot_rows(slot, 2 * blocks, 2 * insts);
            }
        });
    });
    // Per-module sums kept in flat tables while the clock runs (a map lookup by name per
    // stage and a formatted key per statistic cost about a thousand instructions per
    // function, in the timed loop); they become the report's maps afterwards.
    let mut stage_sums = vec![[0.0f64; Stage::ALL.len()]; work.len()];
    let mut stat_sums: Vec<Vec<crate::engine::Stat>> = vec![Vec::new(); work.len()];
    let wall = Instant::now();
    for round in 0..repeat {
        for (((symbols, functions, m, source), stage_sum), stat_sum) in work
            .iter_mut()
            .zip(stage_sums.iter_mut())
            .zip(stat_sums.iter_mut())
        {
            let summaries = batch::map_functions(
                functions,
                symbols,
                &config,
                &|| bar.inc(1),
                &|result, run| RunSummary {
                    instructions: result.live_inst_count(),
                    errors: run
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == crate::engine::Severity::Error)
                        .map(|d| (d.pass, d.message.clone()))
                        .collect(),
                    timings: run.timings,
                    // Statistics are summed over the first round only.
                    stats: if round == 0 { run.stats } else { Vec::new() },
                },
            );
            for (summary, f) in summaries.into_iter().zip(functions.iter()) {
                let failure = |stage: &str, message: String| Failure {
                    file: source.name.clone(),
                    function: Some(f.name.clone()),
                    stage: stage.to_string(),
                    message,
                };
                match summary {
                    Ok(run) => {
                        for (sum, t) in stage_sum.iter_mut().zip(&run.timings) {
                            *sum += t.as_secs_f64();
                        }
                        if round == 0 {
                            m.output_instructions += run.instructions;
                            m.failed_functions += !run.errors.is_empty() as usize;
                            for s in &run.stats {
                                match stat_sum
                                    .iter_mut()
                                    .find(|t| t.pass == s.pass && t.name == s.name)
                                {
                                    Some(t) => t.value += s.value,
                                    None => stat_sum.push(*s),
                                }
                            }
                            for (pass, message) in run.errors {
                                let f = failure(pass, message);
                                f.print();
                                report.failures.push(f);
                            }
                        }
                    }
                    Err(e) => {
                        if round == 0 {
                            m.failed_functions += 1;
                            let f = failure("engine", e.to_string());
                            f.print();
                            report.failures.push(f);
                        }
                    }
                }
            }
        }
    }
    bar.finish_and_clear();
    report.pipeline_wall_seconds = wall.elapsed().as_secs_f64() / repeat as f64;
    for (((_, _, m, _), stage_sum), stat_sum) in work.iter_mut().zip(&stage_sums).zip(&stat_sums) {
        for s in Stage::ALL.iter().filter(|s| config.runs(**s)) {
            *m.stage_seconds.entry(s.name()).or_default() += stage_sum[*s as usize] / repeat as f64;
        }
        for s in stat_sum {
            *m.stats.entry(format!("{}.{}", s.pass, s.name)).or_default() += s.value;
        }
    }

    if args.against_llvm {
        for (_, _, m, source) in &mut work {
            if let (Some(path), InputFormat::Ll) = (&source.path, source.format) {
                match llvm_side(path, repeat) {
                    Ok(l) => m.llvm = Some(l),
                    Err(e) => diag!("warning: {}: LLVM side not measured: {e}", m.name),
                }
            }
        }
    }
    for (_, _, m, _) in work {
        report.functions += m.functions;
        report.blocks += m.blocks;
        report.instructions += m.instructions;
        report.output_instructions += m.output_instructions;
        report.failed_functions += m.failed_functions;
        for (k, v) in &m.stage_seconds {
            *report.stage_cpu_seconds.entry(k).or_default() += v;
        }
        for (k, v) in &m.stats {
            *report.stats.entry(k.clone()).or_default() += v;
        }
        report.modules.push(m);
    }
    report.functions_per_second = report.functions as f64 / report.pipeline_wall_seconds.max(1e-9);
    report.instructions_per_second =
        report.instructions as f64 / report.pipeline_wall_seconds.max(1e-9);

    let mut out = String::new();
    outln!(out, "inputs            {}", report.inputs);
    outln!(out, "threads           {}", report.threads);
    outln!(out, "passes            {}", report.passes.join(","));
    outln!(
        out,
        "functions         {} ({} failed)",
        report.functions,
        report.failed_functions
    );
    outln!(out, "blocks            {}", report.blocks);
    outln!(
        out,
        "instructions      {} in, {} out",
        report.instructions,
        report.output_instructions
    );
    outln!(
        out,
        "parse             {:.3} ms ({:.2} M instructions/s)",
        report.parse_seconds * 1e3,
        report.parse_instructions_per_second / 1e6
    );
    outln!(
        out,
        "pipeline          {:.3} ms wall per run ({:.0} functions/s, {:.2} M instructions/s)",
        report.pipeline_wall_seconds * 1e3,
        report.functions_per_second,
        report.instructions_per_second / 1e6
    );
    for (stage, secs) in &report.stage_cpu_seconds {
        outln!(out, "  {stage:<15} {:.3} ms cpu", secs * 1e3);
    }
    for (name, value) in &report.stats {
        outln!(out, "  {name:<40} {value}");
    }
    if let Some(arch) = args.target {
        outln!(
            out,
            "machine code ({}, {}), per module:",
            arch.name(),
            match args.allocator {
                crate::stage::Allocator::Ion => "our allocator",
                crate::stage::Allocator::Regalloc2 => "regalloc2",
            }
        );
        for m in &report.modules {
            let stat = |k: &str| m.stats.get(k).copied().unwrap_or(0);
            let summary = super::machine::MachineSummary {
                functions: m.functions,
                failed: m.failed_functions,
                insts: stat("lower.machine_insts") as usize,
                vregs: stat("lower.vregs") as usize,
                operands: stat("lower.operands") as usize,
                alloc_ns: stat("regalloc.time_ns") as u128,
                edits: stat("regalloc.edits") as usize,
                spill_slots: stat("regalloc.spill_slots") as usize,
                checked: stat("check.functions") as usize,
                check_ns: stat("check.time_ns") as u128,
            };
            outln!(out, "  {:<20} {}", m.name, summary.line());
        }
    }
    print_llvm_tables(&mut out, &report.modules);
    if !report.warnings.is_empty() {
        outln!(out, "warnings          {}", report.warnings.len());
        for w in &report.warnings {
            outln!(out, "  {w}");
        }
    }
    outln!(out, "failures          {}", report.failures.len());
    for f in &report.failures {
        match &f.function {
            Some(name) => outln!(out, "  {}: @{name}: [{}] {}", f.file, f.stage, f.message),
            None => outln!(out, "  {}: [{}] {}", f.file, f.stage, f.message),
        }
    }
    let mut code = if report.failures.iter().any(|f| f.stage == "read") {
        exit::IO
    } else if report.failures.is_empty() {
        exit::OK
    } else {
        exit::INPUT
    };
    // The report is complete whatever failed; a write error of either output is exit 4.
    let written = super::write_output(None, &out);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).expect("report serialises") + "\n";
        if let Err(e) = super::write_output(Some(path), &text) {
            diag!("error: {}", e.message);
            code = exit::IO;
        }
    }
    if let Err(e) = written {
        diag!("error: {}", e.message);
        code = exit::IO;
    }
    Ok(code)
}

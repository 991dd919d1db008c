//! `strata bench`: the batch driver.
//!
//! Parses or imports every input (in parallel across files), then runs every function through
//! the pipeline on all cores with per-thread engines, showing progress on a terminal, and
//! reports counts, per-stage CPU time and throughput per module and in total (text on stdout,
//! optional JSON). With `--against-llvm`, each `.ll` input is also given to LLVM 14's `opt`
//! (`-time-passes`, and `-S` to count what its passes changed), and the two are printed side
//! by side as ratios: import against `Parse IR`, mem2reg against `PromotePass`, SCCP against
//! `SCCPPass`, phis placed, allocas promoted, and what SCCP folded.

use super::llvm_reference::{self, IrCounts};
use super::{exit, input_format, parse_passes, CliError, InputFormat};
use crate::engine::{batch, PassSet, PipelineConfig, Stage};
use crate::ir::{Function, Module, SymbolTable};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Files or directories (searched recursively for .sir and .ll files).
    pub paths: Vec<PathBuf>,
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
    /// For each .ll input, also run LLVM 14's opt on it and print both side by side.
    #[arg(long)]
    pub against_llvm: bool,
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
    parse_errors: Vec<String>,
    modules: Vec<ModuleReport>,
}

/// What the bench keeps of one function's run (the function itself is dropped on the worker).
struct RunSummary {
    instructions: usize,
    failed: bool,
    timings: [Duration; Stage::ALL.len()],
    stats: Vec<crate::engine::Stat>,
}

fn collect_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::new(exit::IO, format!("{}: {e}", path.display()));
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .map_err(io)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(io)?;
        entries.sort();
        for e in entries {
            let wanted = e.extension().is_some_and(|x| x == "sir" || x == "ll");
            if e.is_dir() || wanted {
                collect_files(&e, out)?;
            }
        }
        Ok(())
    } else if path.exists() {
        out.push(path.to_path_buf());
        Ok(())
    } else {
        Err(CliError::new(
            exit::IO,
            format!("{}: no such file or directory", path.display()),
        ))
    }
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

fn print_llvm_tables(modules: &[ModuleReport]) {
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
    println!(
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
        println!(
            "{:<12} {:>6} / {:<6}{note}",
            m.name, m.functions, l.input.functions
        );
    }
    println!("\nagainst LLVM 14 opt (ms, one thread; ratio = ours / LLVM, lower is better; n/c = not comparable)");
    println!(
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
        println!(
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
    println!(
        "\nmem2reg result (phis placed; allocas promoted of allocas seen; allocas left after mem2reg)"
    );
    println!(
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
        println!(
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
    println!(
        "\nSCCP result (removed: instructions and terminators fewer after sccp than before, \
         ours counted by the pass, LLVM's from opt's output; folded: ours replaced by constants)"
    );
    println!(
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
        println!(
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
    let config = PipelineConfig {
        time_passes: true,
        options: crate::engine::PassOptions {
            sccp_memory_limit: args.sccp_memory_limit,
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
        eprintln!(
            "strata bench: built-in corpus ({} example programs, {} generated functions)",
            sources.len() - 1,
            args.generated
        );
    } else {
        let mut files = Vec::new();
        for p in &args.paths {
            collect_files(p, &mut files)?;
        }
        for f in files {
            let text = std::fs::read_to_string(&f)
                .map_err(|e| CliError::new(exit::IO, format!("{}: {e}", f.display())))?;
            sources.push(Source {
                name: f.display().to_string(),
                format: input_format(&f, None),
                path: Some(f),
                text,
            });
        }
    }
    let mut report = BenchReport {
        inputs: sources.len(),
        threads: rayon::current_num_threads(),
        repeat,
        passes: config.passes.passes().map(|p| p.info().name).collect(),
        ..Default::default()
    };

    let parse_start = Instant::now();
    let loaded: Vec<_> = if args.against_llvm {
        // Side by side with opt, which parses one file on one thread: import the files one at
        // a time (not competing for cores) and average over the repeats as for opt.
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
            Err(e) => {
                eprintln!("error: {e}");
                report.parse_errors.push(e);
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
    let wall = Instant::now();
    for round in 0..repeat {
        for (symbols, functions, m, _) in &mut work {
            let summaries =
                batch::map_functions(functions, symbols, &config, &|| bar.inc(1), &|run| {
                    RunSummary {
                        instructions: run.function.live_inst_count(),
                        failed: run.has_errors(),
                        timings: run.timings,
                        stats: run.stats,
                    }
                });
            for summary in summaries {
                match summary {
                    Ok(run) => {
                        for s in Stage::ALL.iter().filter(|s| config.runs(**s)) {
                            let t = run.timings[*s as usize].as_secs_f64() / repeat as f64;
                            *m.stage_seconds.entry(s.name()).or_default() += t;
                        }
                        if round == 0 {
                            m.output_instructions += run.instructions;
                            m.failed_functions += run.failed as usize;
                            for s in &run.stats {
                                *m.stats.entry(format!("{}.{}", s.pass, s.name)).or_default() +=
                                    s.value;
                            }
                        }
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        if round == 0 {
                            m.failed_functions += 1;
                        }
                    }
                }
            }
        }
    }
    bar.finish_and_clear();
    report.pipeline_wall_seconds = wall.elapsed().as_secs_f64() / repeat as f64;

    if args.against_llvm {
        for (_, _, m, source) in &mut work {
            if let (Some(path), InputFormat::Ll) = (&source.path, source.format) {
                match llvm_side(path, repeat) {
                    Ok(l) => m.llvm = Some(l),
                    Err(e) => eprintln!("warning: {}: LLVM side not measured: {e}", m.name),
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

    println!("inputs            {}", report.inputs);
    println!("threads           {}", report.threads);
    println!("passes            {}", report.passes.join(","));
    println!(
        "functions         {} ({} failed)",
        report.functions, report.failed_functions
    );
    println!("blocks            {}", report.blocks);
    println!(
        "instructions      {} in, {} out",
        report.instructions, report.output_instructions
    );
    println!(
        "parse             {:.3} ms ({:.2} M instructions/s)",
        report.parse_seconds * 1e3,
        report.parse_instructions_per_second / 1e6
    );
    println!(
        "pipeline          {:.3} ms wall per run ({:.0} functions/s, {:.2} M instructions/s)",
        report.pipeline_wall_seconds * 1e3,
        report.functions_per_second,
        report.instructions_per_second / 1e6
    );
    for (stage, secs) in &report.stage_cpu_seconds {
        println!("  {stage:<15} {:.3} ms cpu", secs * 1e3);
    }
    for (name, value) in &report.stats {
        println!("  {name:<40} {value}");
    }
    print_llvm_tables(&report.modules);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).expect("report serialises") + "\n";
        super::write_output(Some(path), &text)?;
    }
    Ok(
        if report.parse_errors.is_empty() && report.failed_functions == 0 {
            exit::OK
        } else {
            exit::INPUT
        },
    )
}

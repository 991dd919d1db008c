//! `strata bench`: the batch driver.
//!
//! Parses every input (in parallel across files), then runs every function through the
//! pipeline on all cores with per-thread engines, showing progress on a terminal, and reports
//! counts, per-stage time and throughput (text table on stdout, optional JSON).

use super::{exit, parse_passes, CliError};
use crate::engine::{batch, PipelineConfig, Stage};
use crate::ir::Module;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Files or directories (searched recursively for .sir files).
    pub paths: Vec<PathBuf>,
    /// Passes to run (default: every available pass).
    #[arg(long, value_name = "LIST")]
    pub passes: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run the corpus this many times (timings are summed).
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
}

#[derive(serde::Serialize, Default)]
struct BenchReport {
    inputs: usize,
    threads: usize,
    repeat: u32,
    passes: Vec<&'static str>,
    functions: usize,
    blocks: usize,
    instructions: usize,
    failed_functions: usize,
    parse_seconds: f64,
    parse_instructions_per_second: f64,
    pipeline_wall_seconds: f64,
    functions_per_second: f64,
    instructions_per_second: f64,
    stage_cpu_seconds: std::collections::BTreeMap<&'static str, f64>,
    /// Pass statistics summed over all functions, keyed `pass.name`.
    stats: std::collections::BTreeMap<String, u64>,
    parse_errors: Vec<String>,
}

/// What the bench keeps of one function's run (the function itself is dropped on the worker).
struct RunSummary {
    blocks: usize,
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
            if e.is_dir() || e.extension().is_some_and(|x| x == "sir") {
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

/// `strata bench`.
pub fn bench(args: BenchArgs) -> Result<i32, CliError> {
    let requested = parse_passes(args.passes.as_deref())?;
    let config = PipelineConfig {
        time_passes: true,
        options: crate::engine::PassOptions {
            sccp_memory_limit: args.sccp_memory_limit,
        },
        ..PipelineConfig::new(requested)
    };
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
            .map_err(|e| CliError::new(exit::USAGE, format!("--threads: {e}")))?;
    }
    // Inputs as (name, text); the built-in corpus when no path is given.
    let mut sources: Vec<(String, String)> = Vec::new();
    if args.paths.is_empty() {
        for (name, text) in super::corpus::EXAMPLES {
            sources.push((format!("builtin:{name}"), text.to_string()));
        }
        // Printed and parsed again, so the parse figure covers the whole corpus.
        let generated = super::corpus::generated(args.generated);
        sources.push((
            "builtin:generated".to_string(),
            crate::text::print_module(&generated),
        ));
        eprintln!(
            "strata bench: built-in corpus ({} example programs, {} generated functions)",
            sources.len(),
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
            sources.push((f.display().to_string(), text));
        }
    }
    let mut report = BenchReport {
        inputs: sources.len(),
        threads: rayon::current_num_threads(),
        repeat: args.repeat.max(1),
        passes: config.passes.passes().map(|p| p.info().name).collect(),
        ..Default::default()
    };

    let parse_start = Instant::now();
    let parsed: Vec<_> = sources
        .par_iter()
        .map(|(name, text)| crate::text::parse_module(text, name).map_err(|e| e.to_string()))
        .collect();
    report.parse_seconds = parse_start.elapsed().as_secs_f64();
    let mut modules: Vec<Module> = Vec::new();
    for p in parsed {
        match p {
            Ok(m) => modules.push(m),
            Err(e) => {
                eprintln!("error: {e}");
                report.parse_errors.push(e);
            }
        }
    }
    let parsed_insts: usize = modules
        .iter()
        .flat_map(|m| &m.functions)
        .map(|f| f.live_inst_count())
        .sum();
    report.parse_instructions_per_second = parsed_insts as f64 / report.parse_seconds.max(1e-9);

    let work: Vec<(Arc<crate::ir::SymbolTable>, Vec<crate::ir::Function>)> = modules
        .into_iter()
        .map(|m| (Arc::new(m.symbol_table()), m.functions))
        .collect();
    let total: usize = work.iter().map(|(_, f)| f.len()).sum::<usize>() * report.repeat as usize;
    let bar = indicatif::ProgressBar::new(total as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} functions {per_sec} eta {eta}",
        )
        .expect("valid progress template"),
    );
    let mut stage_time = [Duration::ZERO; Stage::ALL.len()];
    let wall = Instant::now();
    for _ in 0..report.repeat {
        for (symbols, functions) in &work {
            let summaries =
                batch::map_functions(functions, symbols, &config, &|| bar.inc(1), &|run| {
                    RunSummary {
                        blocks: run.function.live_block_count(),
                        instructions: run.function.live_inst_count(),
                        failed: run.has_errors(),
                        timings: run.timings,
                        stats: run.stats,
                    }
                });
            for summary in summaries {
                report.functions += 1;
                match summary {
                    Ok(run) => {
                        report.blocks += run.blocks;
                        report.instructions += run.instructions;
                        report.failed_functions += run.failed as usize;
                        for (t, s) in stage_time.iter_mut().zip(run.timings) {
                            *t += s;
                        }
                        for s in &run.stats {
                            *report
                                .stats
                                .entry(format!("{}.{}", s.pass, s.name))
                                .or_default() += s.value;
                        }
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        report.failed_functions += 1;
                    }
                }
            }
        }
    }
    bar.finish_and_clear();
    report.pipeline_wall_seconds = wall.elapsed().as_secs_f64();
    report.functions_per_second = report.functions as f64 / report.pipeline_wall_seconds.max(1e-9);
    report.instructions_per_second =
        report.instructions as f64 / report.pipeline_wall_seconds.max(1e-9);
    report.stage_cpu_seconds = Stage::ALL
        .iter()
        .filter(|s| config.runs(**s))
        .map(|s| (s.name(), stage_time[*s as usize].as_secs_f64()))
        .collect();

    println!("inputs            {}", report.inputs);
    println!("threads           {}", report.threads);
    println!("passes            {}", report.passes.join(","));
    println!(
        "functions         {} ({} failed)",
        report.functions, report.failed_functions
    );
    println!("blocks            {}", report.blocks);
    println!("instructions      {}", report.instructions);
    println!(
        "parse             {:.3} ms ({:.2} M instructions/s)",
        report.parse_seconds * 1e3,
        report.parse_instructions_per_second / 1e6
    );
    println!(
        "pipeline          {:.3} ms wall ({:.0} functions/s, {:.2} M instructions/s)",
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

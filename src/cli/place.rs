//! `strata place FILE`: place a bare placement problem, or every function of a `.sir`/`.ll`
//! module under a target model, and print the assignment, the exact total cost, the islands
//! and the island graph (text, `--emit json`, or `--emit dot` for Graphviz: the CFG coloured
//! by target with islands outlined).
//!
//! Input: a file ending in `.sir` or `.ll` is a module (with `--targets MODEL`, a TOML target
//! model; the built-in model otherwise); anything else is a placement problem in the text
//! form of [`crate::placement::text`]. Errors carry `file:line:col`. Module functions go
//! through mem2reg and SCCP first, as in the pipeline (`--raw` places them as written).
//! Unlike the pipeline's pass, which places functions one by one in parallel, `place` has
//! the whole module: it computes the return-size summaries of every function first
//! ([`crate::placement::sizes::summarize_module`]), so a call's result is sized from its
//! callee's summary (the inter-procedural phase of size estimation).

use super::io::read_source;
use super::{exit, load_module, write_output, CliError, InputFormat};
use crate::placement::islands::{build_islands, DependencyKind, IslandGraph};
use crate::placement::system::place_function_with_summaries;
use crate::placement::targets::TargetModel;
use crate::placement::{parse_problem, Placement, Problem, SolveOptions, Solver, UNPLACED};
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::fmt::Write;
use std::path::PathBuf;

/// Output format of `place`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceEmit {
    /// Human-readable text.
    Text,
    /// JSON for machines.
    Json,
    /// Graphviz: the CFG coloured by target, islands outlined.
    Dot,
}

/// Arguments of `place`.
#[derive(Args, Debug)]
pub struct PlaceArgs {
    /// A placement problem, or a `.sir`/`.ll` module (`-` reads a problem from stdin).
    pub file: PathBuf,
    /// TOML target model for module input (default: the built-in Interpreter/PostgreSQL/
    /// Embedding model; format in the `placement::targets` docs, example in
    /// examples/targets/). A bad file is an error naming FILE:LINE.
    #[arg(long, value_name = "MODEL.toml")]
    pub targets: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub emit: PlaceEmit,
    /// Output file (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Only the named function of a module.
    #[arg(long)]
    pub function: Option<String>,
    /// Place module functions as written, without running mem2reg and SCCP first.
    #[arg(long)]
    pub raw: bool,
}

/// One placed unit (a bare problem, or one function) for printing.
#[derive(Serialize)]
struct Report<'a> {
    function: Option<String>,
    targets: &'a [String],
    blocks: Vec<(String, Option<String>)>,
    cost: u64,
    stats: crate::placement::SolveStats,
    islands: &'a IslandGraph,
    paths: Vec<String>,
}

/// Runs `place`; returns the exit code.
pub fn place(args: PlaceArgs) -> Result<i32, CliError> {
    let name = args.file.display().to_string();
    let ext = args.file.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut solver = Solver::new();
    let opts = SolveOptions::default();
    let mut out = String::new();
    let mut json = Vec::new();
    let mut failed = false;
    if ext == "sir" || ext == "ll" {
        let model = match &args.targets {
            Some(path) => {
                TargetModel::load(path)
                    .map_err(|e| CliError::new(exit::INPUT, e.to_string()))?
                    .0
            }
            None => TargetModel::default_model(),
        };
        let loaded = load_module(&args.file, None, false)?;
        if let Some(wanted) = &args.function {
            // As `run --entry`: a name that matches nothing is an error, not an empty result.
            if loaded.module.function(wanted).is_none() {
                return Err(CliError::new(
                    exit::USAGE,
                    format!("{name}: no function @{wanted}"),
                ));
            }
        }
        let symbols = std::sync::Arc::new(loaded.module.symbol_table());
        // The pipeline places after mem2reg and SCCP; so does `place` unless `--raw`.
        let mut engine = (!args.raw).then(|| {
            crate::engine::Engine::new(crate::engine::PipelineConfig::new(
                crate::engine::PassSet::MEM2REG | crate::engine::PassSet::SCCP,
            ))
        });
        // Every function first (the size summaries of the inter-procedural phase need the
        // callees in their final form), then the summaries, then placement one by one.
        let mut functions = Vec::with_capacity(loaded.module.functions.len());
        for f in loaded.module.functions {
            match engine.as_mut() {
                Some(e) => {
                    let wanted = args.function.as_ref().is_none_or(|n| *n == f.name);
                    let run = e.run(f, &symbols);
                    if run.has_errors() {
                        if wanted {
                            failed = true;
                            for d in &run.diagnostics {
                                eprintln!("{name}: {}", d.message);
                            }
                        }
                        continue;
                    }
                    functions.push(run.function);
                }
                None => functions.push(f),
            }
        }
        let summaries = crate::placement::sizes::summarize_module(&functions, &symbols);
        for f in &functions {
            if args.function.as_ref().is_some_and(|n| *n != f.name) {
                continue;
            }
            match place_function_with_summaries(
                f,
                Some(&symbols),
                &model,
                &opts,
                &mut solver,
                &summaries,
            ) {
                Ok(fp) => emit(
                    &args,
                    &fp.ir.problem,
                    &fp.placement,
                    &fp.islands,
                    Some(&f.name),
                    &fp.ir.path_names,
                    &mut out,
                    &mut json,
                ),
                Err(e) => {
                    failed = true;
                    eprintln!("{name}: error: function @{}: {e}", f.name);
                }
            }
        }
    } else {
        let text = read_source(&args.file, InputFormat::Sir)?;
        let p =
            parse_problem(&text).map_err(|e| CliError::new(exit::INPUT, format!("{name}:{e}")))?;
        match solver.solve(&p, &opts) {
            Ok(pl) => {
                let g = build_islands(&p, &pl.assignment, &[], &[]);
                emit(&args, &p, &pl, &g, None, &[], &mut out, &mut json);
            }
            Err(e) => {
                return Err(CliError::new(exit::INPUT, format!("{name}: {e}")));
            }
        }
    }
    if args.emit == PlaceEmit::Json {
        out = serde_json::to_string_pretty(&json).expect("placement reports serialise");
        out.push('\n');
    }
    write_output(args.output.as_deref(), &out)?;
    Ok(if failed { exit::INPUT } else { exit::OK })
}

#[allow(clippy::too_many_arguments)]
fn emit(
    args: &PlaceArgs,
    p: &Problem,
    pl: &Placement,
    g: &IslandGraph,
    function: Option<&str>,
    paths: &[String],
    out: &mut String,
    json: &mut Vec<serde_json::Value>,
) {
    let target = |b: usize| {
        let t = pl.assignment[b];
        (t != UNPLACED).then(|| p.targets[t as usize].clone())
    };
    match args.emit {
        PlaceEmit::Json => {
            let r = Report {
                function: function.map(str::to_string),
                targets: &p.targets,
                blocks: (0..p.num_blocks())
                    .map(|b| (p.blocks[b].clone(), target(b)))
                    .collect(),
                cost: pl.cost,
                stats: pl.stats,
                islands: g,
                paths: paths.to_vec(),
            };
            json.push(serde_json::to_value(&r).expect("placement reports serialise"));
        }
        PlaceEmit::Text => {
            if let Some(f) = function {
                let _ = writeln!(out, "function @{f}");
            }
            for b in 0..p.num_blocks() {
                let _ = writeln!(
                    out,
                    "  {} -> {}",
                    p.blocks[b],
                    target(b).unwrap_or_else(|| "(unreachable)".into())
                );
            }
            let _ = writeln!(out, "cost {}", pl.cost);
            for (i, isl) in g.islands.iter().enumerate() {
                let members: Vec<&str> = isl
                    .blocks
                    .iter()
                    .map(|&b| p.blocks[b as usize].as_str())
                    .collect();
                let _ = write!(
                    out,
                    "island {i} {}{}: {}",
                    p.targets[isl.target as usize],
                    if isl.synthetic {
                        " (synthetic data)"
                    } else {
                        ""
                    },
                    members.join(" ")
                );
                let names = |v: &[u32]| {
                    v.iter()
                        .map(|&q| paths.get(q as usize).cloned().unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                if !isl.requires.is_empty() {
                    let _ = write!(out, " requires [{}]", names(&isl.requires));
                }
                if !isl.provides.is_empty() {
                    let _ = write!(out, " provides [{}]", names(&isl.provides));
                }
                out.push('\n');
            }
            for e in &g.edges {
                let kind = match e.kind {
                    DependencyKind::ControlFlow => "control",
                    DependencyKind::Inheritance => "inherit",
                    DependencyKind::DataFlow => "data",
                };
                let _ = writeln!(out, "depend island {} -> island {} {kind}", e.from, e.to);
            }
            for (l, level) in g.levels.iter().enumerate() {
                let ids: Vec<String> = level.iter().map(|i| i.to_string()).collect();
                let _ = writeln!(out, "level {l}: {}", ids.join(" "));
            }
        }
        PlaceEmit::Dot => {
            const COLOURS: [&str; 8] = [
                "lightblue",
                "lightsalmon",
                "palegreen",
                "khaki",
                "plum",
                "lightgrey",
                "pink",
                "lightcyan",
            ];
            let _ = writeln!(out, "digraph \"{}\" {{", function.unwrap_or("placement"));
            let _ = writeln!(out, "  node [shape=box, style=filled];");
            for (i, isl) in g.islands.iter().enumerate() {
                if isl.synthetic {
                    continue;
                }
                let _ = writeln!(
                    out,
                    "  subgraph cluster_{i} {{ label=\"island {i}: {}\"; style=dashed;",
                    p.targets[isl.target as usize]
                );
                for &b in &isl.blocks {
                    let _ = writeln!(
                        out,
                        "    n{b} [label=\"{}\\n{}\", fillcolor={}];",
                        p.blocks[b as usize],
                        p.targets[isl.target as usize],
                        COLOURS[isl.target as usize % COLOURS.len()]
                    );
                }
                let _ = writeln!(out, "  }}");
            }
            for (b, name) in p.blocks.iter().enumerate() {
                if pl.assignment[b] == UNPLACED {
                    let _ = writeln!(out, "  n{b} [label=\"{name}\", fillcolor=white];");
                }
            }
            for e in &p.edges {
                let _ = writeln!(out, "  n{} -> n{};", e.from, e.to);
            }
            let _ = writeln!(out, "}}");
        }
    }
}

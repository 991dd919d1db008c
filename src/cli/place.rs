//! `strata place FILE`: place a bare placement problem, or every function of a `.sir`/`.ll`
//! module under a target model, and print the assignment, the exact total cost, the islands
//! and the island graph (text, `--emit json`, or `--emit dot` for Graphviz: one `digraph`
//! for the whole input, a cluster per function holding its CFG coloured by target with
//! islands outlined, so `dot -Tsvg` renders a module as one picture).
//!
//! Input: a module is a file ending in `.sir` or `.ll`, or any file (or `-`, stdin) read with
//! `--input-format` or whose content looks like IR ([`super::io::sniff_format`]); it is
//! placed under `--targets MODEL` (a TOML target model; the built-in model otherwise).
//! Anything else is a placement problem in the text form of [`crate::placement::text`]. Errors carry `file:line:col`. Module functions go
//! through mem2reg and SCCP first, as in the pipeline (`--raw` places them as written).
//! Unlike the pipeline's pass, which places functions one by one in parallel, `place` has
//! the whole module: it computes the return-size summaries of every function first
//! ([`crate::placement::sizes::summarize_module`]), so a call's result is sized from its
//! callee's summary (the inter-procedural phase of size estimation).

use super::{exit, load_text, write_output, CliError, InputFormat};
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
    /// Graphviz: one graph, a cluster per function with its CFG coloured by target and its
    /// islands outlined.
    Dot,
}

/// Arguments of `place`.
#[derive(Args, Debug)]
pub struct PlaceArgs {
    /// A placement problem, or a `.sir`/`.ll` module (`-` reads stdin; a module is recognised
    /// by its extension, `--input-format` or its content).
    pub file: PathBuf,
    /// Read FILE as a module of this format (default: from the extension, else from the
    /// content; text that looks like neither is a placement problem).
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormat>,
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
    let name = super::io::input_name(&args.file);
    let bytes = super::io::read_bytes(&args.file)?;
    let module_format = args
        .input_format
        .or_else(|| super::io::format_of_extension(&args.file))
        .or_else(|| super::io::sniff_format(&bytes));
    let mut solver = Solver::new();
    let opts = SolveOptions::default();
    let mut sink = Sink::default();
    let mut failed = false;
    if let Some(format) = module_format {
        let model = match &args.targets {
            Some(path) => {
                TargetModel::load(path)
                    .map_err(|e| CliError::new(exit::INPUT, e.to_string()))?
                    .0
            }
            None => TargetModel::default_model(),
        };
        let text = super::io::decode(bytes, &name, format)?;
        let loaded = load_text(&text, &name, format, false)?;
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
                    &mut sink,
                ),
                Err(e) => {
                    failed = true;
                    eprintln!("{name}: error: function @{}: {e}", f.name);
                }
            }
        }
    } else {
        let text = super::io::decode(bytes, &name, InputFormat::Sir)?;
        let p =
            parse_problem(&text).map_err(|e| CliError::new(exit::INPUT, format!("{name}:{e}")))?;
        match solver.solve(&p, &opts) {
            Ok(pl) => {
                let g = build_islands(&p, &pl.assignment, &[], &[]);
                emit(&args, &p, &pl, &g, None, &[], &mut sink);
            }
            Err(e) => {
                return Err(CliError::new(exit::INPUT, format!("{name}: {e}")));
            }
        }
    }
    let out = match args.emit {
        PlaceEmit::Text => sink.out,
        PlaceEmit::Json => {
            let mut out =
                serde_json::to_string_pretty(&sink.json).expect("placement reports serialise");
            out.push('\n');
            out
        }
        // One graph for the whole input, so Graphviz renders it as one file.
        PlaceEmit::Dot => format!(
            "digraph \"{}\" {{\n  node [shape=box, style=filled];\n{}}}\n",
            dot_escape(&name),
            sink.out
        ),
    };
    write_output(args.output.as_deref(), &out)?;
    Ok(if failed { exit::INPUT } else { exit::OK })
}

/// What `place` has printed so far: text or Graphviz statements, JSON reports, and the count
/// of placed units (functions, or the one bare problem).
#[derive(Default)]
struct Sink {
    out: String,
    json: Vec<serde_json::Value>,
    units: usize,
}

fn emit(
    args: &PlaceArgs,
    p: &Problem,
    pl: &Placement,
    g: &IslandGraph,
    function: Option<&str>,
    paths: &[String],
    sink: &mut Sink,
) {
    let unit = sink.units;
    sink.units += 1;
    let (out, json) = (&mut sink.out, &mut sink.json);
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
        PlaceEmit::Dot => dot_unit(p, pl, g, function, unit, out),
    }
}

/// `s` inside a Graphviz double-quoted string.
fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Graphviz statements for one placed unit, for the single `digraph` that `place` prints: a
/// function is a `cluster_fK` subgraph labelled with its name (K its position in the output),
/// each island a cluster inside it, blocks coloured by target; a bare problem's islands are
/// clusters at the top level. Node names carry the unit (`fK_nB`), so units never share a node.
fn dot_unit(
    p: &Problem,
    pl: &Placement,
    g: &IslandGraph,
    function: Option<&str>,
    unit: usize,
    out: &mut String,
) {
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
    let indent = if function.is_some() { "    " } else { "  " };
    if let Some(f) = function {
        let _ = writeln!(
            out,
            "  subgraph cluster_f{unit} {{ label=\"@{}\"; style=solid;",
            dot_escape(f)
        );
    }
    for (i, isl) in g.islands.iter().enumerate() {
        if isl.synthetic {
            continue;
        }
        let target = dot_escape(&p.targets[isl.target as usize]);
        let _ = writeln!(
            out,
            "{indent}subgraph cluster_f{unit}_island{i} {{ label=\"island {i}: {target}\"; style=dashed;",
        );
        for &b in &isl.blocks {
            let _ = writeln!(
                out,
                "{indent}  f{unit}_n{b} [label=\"{}\\n{target}\", fillcolor={}];",
                dot_escape(&p.blocks[b as usize]),
                COLOURS[isl.target as usize % COLOURS.len()]
            );
        }
        let _ = writeln!(out, "{indent}}}");
    }
    for (b, name) in p.blocks.iter().enumerate() {
        if pl.assignment[b] == UNPLACED {
            let _ = writeln!(
                out,
                "{indent}f{unit}_n{b} [label=\"{}\", fillcolor=white];",
                dot_escape(name)
            );
        }
    }
    for e in &p.edges {
        let _ = writeln!(out, "{indent}f{unit}_n{} -> f{unit}_n{};", e.from, e.to);
    }
    if function.is_some() {
        let _ = writeln!(out, "  }}");
    }
}

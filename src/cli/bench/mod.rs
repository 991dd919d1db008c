//! `strata bench`: the batch driver.
//!
//! The pipeline by default is the whole one: the default middle-end passes, then lowering
//! for `--target` (x86-64 when not given), our allocator and the check; `--target none`, an
//! explicit `--passes` or `--compare llvm` run the middle end only.
//!
//! Phases: find the inputs (`inputs.rs`), parse or import every one (in parallel across
//! files), split the functions into shards when asked (`shard.rs`), run every function of
//! this shard through the pipeline on all cores with per-thread engines, showing progress on
//! a terminal, then report counts, per-stage CPU time and throughput per module and in total
//! (`report.rs`: text on stdout, optional JSON; `legend.rs`: what each counter means and the
//! headline results; `histogram.rs`: per-function time
//! percentiles; `html.rs`: the `--report` page). With `--compare llvm`, each `.ll` input is
//! also given to LLVM 14's `opt` (`llvm.rs`); with `--compare regalloc2`, regalloc2 allocates
//! the same functions (`compare.rs`); both print side by side as ratios, each the median of
//! the `--repeat` rounds' ratios after an uncounted warm-up round. `strata bench merge`
//! (`merge.rs`) reads the JSON reports of shards and prints and writes the report of the
//! whole.
//!
//! Faults: one bad input never sinks the batch. A path that cannot be walked or read, a file
//! that is not UTF-8 text or does not parse, a module whose globals are invalid and every
//! function whose pipeline reports an error are each recorded as a failure (file, function,
//! stage, message), printed on stderr, listed in the text report and in the JSON `failures`;
//! the rest of the corpus runs. Exit code: 0 when nothing failed; 4 when some path could not
//! be read (or the JSON could not be written); otherwise 1 when some file or function failed.
//!
//! Invariants: counts and the output hash do not depend on `--jobs`, and the shards of a
//! corpus merged give the counts, failures and hash of the unsharded run. Complexity: linear
//! in the corpus per repeat, plus the split's sort (O(F log F) for F functions).

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

mod compare;
mod histogram;
mod html;
mod inputs;
mod legend;
mod llvm;
mod merge;
mod report;
mod run;
mod shard;

use super::{exit, parse_passes, CliError, InputFormat};
use crate::engine::{PassSet, PipelineConfig};
use inputs::{collect_files, load, Source};
use rayon::prelude::*;
use report::{BenchReport, Failure};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `bench`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchArgs {
    /// `merge`: combine the `--json` reports of shards.
    #[command(subcommand)]
    pub command: Option<BenchCommand>,
    /// Files or directories (searched recursively for .sir and .ll files); `-` reads one
    /// module from stdin.
    pub paths: Vec<PathBuf>,
    /// Input format of `-` and of files named without a `.sir`/`.ll` extension (default:
    /// from the content).
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormat>,
    /// Passes to run, exactly (default: the default pipeline, then with a target lowering,
    /// allocation and the check; with --against-llvm, up to sccp).
    #[arg(long, value_name = "LIST")]
    pub passes: Option<String>,
    /// Worker threads (default: all cores; one with --against-llvm). `--threads` is an alias.
    #[arg(long, alias = "threads", value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only shard K (from 0) of N: the functions of the corpus are split by instruction
    /// count into N shards of about equal work, the same split in every process; combine
    /// the shards' `--json` reports with `strata bench merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<shard::Shard>,
    /// Run the corpus this many times (times are averaged per run).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Write a JSON report here (with `output_hash`, a hash of every function's printed
    /// result in input order: its allocated code with `--target`, else its IR).
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// Write a self-contained HTML page with charts (time per stage, ours/anchor ratios,
    /// allocator time against function size, edits per 100 instructions) to DIR/index.html.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Number of generated functions added to the built-in corpus.
    #[arg(long, default_value_t = 2000)]
    pub generated: usize,
    /// SCCP lattice memory limit in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 100 * 1024)]
    pub sccp_memory_limit: usize,
    /// Also measure an anchor in the same run and print both side by side (repeatable):
    /// `llvm`: LLVM 14's opt on each .ll input (our imports are timed after half a second of
    /// untimed ones, a warm-up); `regalloc2`: regalloc2 allocating the same functions (with
    /// `--target`, x86-64 by default), ratios as medians of the `--repeat` rounds after an
    /// uncounted warm-up round.
    #[arg(long, value_enum, value_name = "ANCHOR")]
    pub compare: Vec<Anchor>,
    /// The same as `--compare llvm`.
    #[arg(long)]
    pub against_llvm: bool,
    /// Lower for this target (`x86-64`, `aarch64`), allocate registers (our allocator
    /// unless `--allocator regalloc2`) and check the allocation; prints per module: machine
    /// instructions, vregs, operands per instruction, the allocator's time per instruction,
    /// edits per 100 instructions, spill slots, and the functions our checker accepted.
    /// Default: x86-64, unless `--passes` or `--compare llvm` is given (then the middle end
    /// only); `none` runs the middle end only.
    #[arg(long, value_name = "TARGET", value_parser = parse_bench_target)]
    pub target: Option<BenchTarget>,
    /// The register allocator with a target: `ion` (ours, the default) or `regalloc2`.
    #[arg(long, value_enum, default_value = "ion")]
    pub allocator: crate::stage::Allocator,
    /// Our allocator ignores the rematerialization hook lowering sets (spills and reloads
    /// constants and addresses as regalloc2 does), to measure what remat changes.
    #[arg(long)]
    pub no_remat: bool,
}

/// What `--compare` measures ours against.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// LLVM 14's `opt` (import, mem2reg, SCCP).
    Llvm,
    /// regalloc2 0.15 (register allocation, with `--target`).
    Regalloc2,
}

impl BenchArgs {
    /// `--compare llvm` or `--against-llvm`.
    fn llvm(&self) -> bool {
        self.against_llvm || self.compare.contains(&Anchor::Llvm)
    }

    /// `--compare regalloc2`.
    fn regalloc2(&self) -> bool {
        self.compare.contains(&Anchor::Regalloc2)
    }

    /// The target the run lowers for: `--target` (`none`: no target); without it the
    /// default target (x86-64), unless the run asked for exactly some passes (`--passes`)
    /// or measures the middle end against LLVM (`--compare llvm`) without `--compare
    /// regalloc2`.
    fn target(&self) -> Option<crate::stage::Arch> {
        match self.target {
            Some(BenchTarget::Arch(arch)) => Some(arch),
            Some(BenchTarget::None) => None,
            None if self.regalloc2() => Some(Default::default()),
            None if self.passes.is_some() || self.llvm() => None,
            None => Some(Default::default()),
        }
    }
}

/// `--target`: a machine, or `none` (the middle end only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchTarget {
    /// No lowering, allocation or check.
    None,
    /// Lower for this machine, allocate and check.
    Arch(crate::stage::Arch),
}

/// Parses `--target`: `none` or a target name.
fn parse_bench_target(s: &str) -> Result<BenchTarget, super::compile::UnknownTarget> {
    match s {
        "none" => Ok(BenchTarget::None),
        _ => super::compile::parse_target(s)
            .map(BenchTarget::Arch)
            .map_err(|e| super::compile::UnknownTarget {
                expected: "x86-64, aarch64, or none",
                ..e
            }),
    }
}

/// Subcommands of `bench`.
#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Merge the `--json` reports of `strata bench --shard K/N` runs (or of runs on disjoint
    /// corpora): sums counts and times, recomputes the rates and the output hash, takes the
    /// union of the failures, and prints the summary of a normal run.
    Merge(merge::MergeArgs),
}

/// The pipeline `bench` runs, from `--passes`, `--against-llvm` and `--target`.
fn pipeline_config(args: &BenchArgs) -> Result<PipelineConfig, CliError> {
    if args.regalloc2() && args.allocator == crate::stage::Allocator::Regalloc2 {
        return Err(CliError::new(
            exit::USAGE,
            "--compare regalloc2 compares our allocator with regalloc2: leave out --allocator regalloc2",
        ));
    }
    let requested = match (&args.passes, args.llvm()) {
        (None, true) => PassSet::default_pipeline() - (PassSet::PHI_ELIM | PassSet::BLOCK_PARAMS),
        _ => parse_passes(args.passes.as_deref())?,
    };
    let requested = match args.target() {
        Some(arch) => {
            crate::api::machine_config(requested, arch).passes
                | ((PassSet::REGALLOC | PassSet::CHECK) & PassSet::available())
        }
        None => requested,
    };
    Ok(PipelineConfig {
        time_passes: true,
        options: crate::engine::PassOptions {
            sccp_memory_limit: args.sccp_memory_limit,
            target: args.target().unwrap_or_default(),
            allocator: args.allocator,
            no_remat: args.no_remat,
            ..Default::default()
        },
        ..PipelineConfig::new(requested)
    })
}

/// The sources: the built-in corpus without paths, else every file found (what cannot be
/// read goes to `failures`).
fn gather(
    args: &BenchArgs,
    failures: &mut Vec<Failure>,
    warnings: &mut Vec<String>,
) -> Vec<Source> {
    let mut sources = Vec::new();
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
        return sources;
    }
    for f in collect_files(&args.paths, failures, warnings) {
        match super::read_module_text(&f, args.input_format) {
            Ok((text, format)) => sources.push(Source {
                name: super::io::input_name(&f),
                format,
                path: Some(f),
                text,
            }),
            Err(e) => failures.push(Failure::file(
                f.display().to_string(),
                if e.code == exit::IO { "read" } else { "parse" },
                // The error names the path already; keep only the reason.
                e.message
                    .strip_prefix(&format!("{}: ", f.display()))
                    .unwrap_or(&e.message),
            )),
        }
    }
    sources
}

/// Parses or imports every source; returns the results, the parse seconds of one run and,
/// against LLVM, each source's parse seconds in every timed run.
fn load_all(
    sources: &[Source],
    against_llvm: bool,
    repeat: u32,
) -> (Vec<inputs::Loaded>, f64, Vec<Vec<f64>>) {
    let start = Instant::now();
    if !against_llvm {
        let loaded = sources.par_iter().map(load).collect();
        return (loaded, start.elapsed().as_secs_f64(), Vec::new());
    }
    // Side by side with opt, which parses one file on one thread: import the files one at a
    // time (not competing for cores) and average over the repeats as for opt. Untimed
    // imports come first, for at least half a second (a warm-up, as criterion does): after
    // the machine has been idle, its first half second or so runs at a fraction of the
    // speed (measured here: bzip2's import averaged 16-20 ms over 10 repeats after a 2 s
    // pause, 10 ms after 0.5 s of busy work), and opt's runs, which come after ours, never
    // see that. The warm-up is not in the printed figure.
    let warm_up = Instant::now();
    while warm_up.elapsed() < std::time::Duration::from_millis(500) {
        for source in sources {
            let _ = load(source);
        }
    }
    let start = Instant::now();
    let mut rounds = Vec::new();
    let loaded = sources
        .iter()
        .map(|source| {
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..repeat {
                let r = load(source);
                if let Ok(m) = &r {
                    times.push(m.seconds);
                }
                last = Some(r);
            }
            let mean = times.iter().sum::<f64>() / repeat as f64;
            rounds.push(times);
            last.expect("repeat is at least 1")
                .map(|m| inputs::LoadedModule { seconds: mean, ..m })
        })
        .collect();
    (
        loaded,
        start.elapsed().as_secs_f64() / repeat as f64,
        rounds,
    )
}

/// `strata bench`.
pub fn bench(args: BenchArgs) -> Result<i32, CliError> {
    if let Some(BenchCommand::Merge(merge_args)) = args.command {
        return merge::merge(merge_args);
    }
    let config = pipeline_config(&args)?;
    // Against LLVM, both sides run alone on one thread (opt is single-threaded; two workers
    // on two cores slow each other's per-function times by up to a third).
    let jobs = args.jobs.or(args.llvm().then_some(1));
    if let Some(n) = jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
            .map_err(|e| CliError::new(exit::USAGE, format!("--jobs: {e}")))?;
    }
    let repeat = args.repeat.max(1);
    let mut failures: Vec<Failure> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let sources = gather(&args, &mut failures, &mut warnings);
    let mut report = BenchReport {
        inputs: sources.len(),
        threads: rayon::current_num_threads(),
        repeat,
        passes: config
            .passes
            .passes()
            .map(|p| p.info().name.to_string())
            .collect(),
        shard: args.shard.map(|s| s.to_string()),
        target: args.target().map(|a| a.name().to_string()),
        allocator: args.target().map(|_| {
            match args.allocator {
                crate::stage::Allocator::Ion => "ion",
                crate::stage::Allocator::Regalloc2 => "regalloc2",
            }
            .to_string()
        }),
        warnings,
        ..Default::default()
    };
    for f in &failures {
        f.print();
    }
    report.failures = failures;

    let (loaded, parse_seconds, parse_rounds) = load_all(&sources, args.llvm(), repeat);
    report.parse_seconds = parse_seconds;
    let mut work = run::prepare(&sources, loaded, args.shard, &mut report);
    for w in &mut work {
        let i = sources.iter().position(|s| std::ptr::eq(s, w.source));
        if let Some(times) = i.and_then(|i| parse_rounds.get(i)) {
            w.report.parse_round_seconds = times.clone();
        }
    }
    let options = run::RunOptions {
        repeat,
        hash: args.json.is_some() || args.report.is_some(),
        warm_up: !args.compare.is_empty() || args.against_llvm,
        quiet: false,
        keep_rounds: args.llvm(),
    };
    if args.regalloc2() {
        // The anchor: the same functions, the same pipeline, regalloc2 allocating, its
        // rounds interleaved with ours so both sides see the same machine load per round.
        let mut anchor: Vec<_> = work.iter().map(run::ModuleWork::fresh_copy).collect();
        let mut anchor_config = config.clone();
        anchor_config.options.allocator = crate::stage::Allocator::Regalloc2;
        let anchor_options = run::RunOptions {
            hash: false,
            quiet: true,
            ..options
        };
        let mut anchor_report = BenchReport::default();
        let walls = run::run_sides(&mut [
            run::Side {
                work: &mut work,
                config: &config,
                options,
                report: &mut report,
            },
            run::Side {
                work: &mut anchor,
                config: &anchor_config,
                options: anchor_options,
                report: &mut anchor_report,
            },
        ]);
        report.pipeline_wall_seconds = walls[0];
        for (w, a) in work.iter_mut().zip(anchor) {
            w.report.regalloc2 = Some(Box::new(a.into_report()));
        }
    } else {
        report.pipeline_wall_seconds = run::run_rounds(&mut work, &config, options, &mut report);
    }

    if args.llvm() {
        for w in &mut work {
            if let (Some(path), InputFormat::Ll) = (&w.source.path, w.source.format) {
                match llvm::llvm_side(path, repeat) {
                    Ok(l) => w.report.llvm = Some(l),
                    Err(e) => diag!("warning: {}: LLVM side not measured: {e}", w.report.name),
                }
            }
        }
    }
    for w in work {
        report.add_module(w.into_report());
    }
    report.recompute_rates();
    let mut code = write_report(&report, args.json.as_deref());
    if let Some(dir) = &args.report {
        let points: Vec<(f64, f64)> = report
            .modules
            .iter()
            .flat_map(|m| &m.alloc_points)
            .map(|&(insts, ns)| (insts as f64, ns as f64 / 1e3))
            .collect();
        let page = html::page(&report, &points);
        let path = dir.join("index.html");
        let written = std::fs::create_dir_all(dir)
            .map_err(|e| CliError::new(exit::IO, format!("{}: {e}", dir.display())))
            .and_then(|()| super::write_output(Some(&path), &page));
        match written {
            Ok(()) => diag!("strata bench: report written to {}", path.display()),
            Err(e) => {
                diag!("error: {}", e.message);
                code = exit::IO;
            }
        }
    }
    Ok(code)
}

/// Prints the summary and writes the JSON; returns the exit code (4 when either write
/// failed, whatever failed in the run).
fn write_report(report: &BenchReport, json: Option<&std::path::Path>) -> i32 {
    let mut code = report.exit_code();
    // The report is complete whatever failed; a write error of either output is exit 4.
    let written = super::write_output(None, &report.summary());
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(report).expect("report serialises") + "\n";
        if let Err(e) = super::write_output(Some(path), &text) {
            diag!("error: {}", e.message);
            code = exit::IO;
        }
    }
    if let Err(e) = written {
        diag!("error: {}", e.message);
        code = exit::IO;
    }
    code
}

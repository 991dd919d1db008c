//! `strata bench merge REPORT.json...`: the report of a whole corpus from its shards' reports.
//!
//! Algorithm: modules are joined on their input (`file`), in the order they first appear
//! (every shard lists every loaded module, in input order, so this is the input order).
//! Per module, the counts, statistics, stage times and per-function time histograms (from
//! which the percentiles are recomputed) are summed, the output hashes are added
//! (wrapping; see `shard.rs`), and what belongs to the module rather than to its functions
//! (functions the importer skipped, LLVM's side) is taken from the first report. Failures of
//! whole files (every shard sees them) are kept once, in order; function failures are put in
//! input order (module, then function index, then as reported). The totals, the rates and the
//! output hash are then computed from the modules as a run computes them
//! (`BenchReport::add_module`, `recompute_rates`).
//!
//! Invariants: reports of shards must be `0/N` .. `N-1/N` of one `N`, each once (a missing or
//! repeated shard is an error, not a silently partial total); reports without `shard` are
//! runs on separate corpora and are summed. The merge of a complete set of shards equals the
//! unsharded report in everything but times and `threads`. Parse times: each shard parses the
//! whole corpus, so a merge of shards keeps their mean; pipeline wall times are summed (the
//! work as if done in one place). Complexity: linear in the reports' modules and failures.

use super::report::{BenchReport, Failure, ModuleReport};
use crate::cli::{exit, CliError};
use std::collections::HashMap;
use std::path::PathBuf;

/// Arguments of `bench merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The `--json` reports to merge (all the shards of one corpus, or runs on separate
    /// corpora).
    #[arg(required = true, value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// Write the merged JSON report here.
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
}

/// Why reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A report could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The report.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A report is not a `strata bench --json` report.
    #[error("{path}: not a strata bench report: {source}")]
    Parse {
        /// The report.
        path: PathBuf,
        /// What serde said.
        source: serde_json::Error,
    },
    /// The shards are not one complete set.
    #[error("the reports are not the shards 0/N .. N-1/N of one run, each once: {0}")]
    Shards(String),
    /// The reports ran different pipelines (or, for shards, on different inputs).
    #[error("{path}: {what} differs from the first report's ({first} against {this})")]
    Mismatch {
        /// The report that differs.
        path: PathBuf,
        /// What differs (`passes`, `target`, `allocator`, `repeat`, `inputs`).
        what: &'static str,
        /// The first report's value.
        first: String,
        /// This report's value.
        this: String,
    },
}

impl From<MergeError> for CliError {
    fn from(e: MergeError) -> Self {
        let code = match e {
            MergeError::Read { .. } => exit::IO,
            _ => exit::INPUT,
        };
        CliError::new(code, e.to_string())
    }
}

/// `strata bench merge`.
pub fn merge(args: MergeArgs) -> Result<i32, CliError> {
    let mut reports = Vec::new();
    for path in &args.reports {
        let text = std::fs::read_to_string(path).map_err(|source| MergeError::Read {
            path: path.clone(),
            source,
        })?;
        let report: BenchReport =
            serde_json::from_str(&text).map_err(|source| MergeError::Parse {
                path: path.clone(),
                source,
            })?;
        reports.push(report);
    }
    check_same_run(&reports, &args.reports)?;
    let merged = merge_reports(reports)?;
    Ok(super::write_report(&merged, args.json.as_deref()))
}

/// Checks that the reports ran the same pipeline (and, shards, on the same inputs): a sum of
/// different pipelines is no report of anything.
fn check_same_run(reports: &[BenchReport], paths: &[PathBuf]) -> Result<(), MergeError> {
    let Some(first) = reports.first() else {
        return Ok(());
    };
    for (r, path) in reports.iter().zip(paths).skip(1) {
        let sharded = r.shard.is_some() && first.shard.is_some();
        let fields: [(&'static str, String, String, bool); 5] = [
            ("passes", first.passes.join(","), r.passes.join(","), true),
            (
                "target",
                format!("{:?}", first.target),
                format!("{:?}", r.target),
                true,
            ),
            (
                "allocator",
                format!("{:?}", first.allocator),
                format!("{:?}", r.allocator),
                true,
            ),
            (
                "repeat",
                first.repeat.to_string(),
                r.repeat.to_string(),
                true,
            ),
            (
                "inputs",
                first.inputs.to_string(),
                r.inputs.to_string(),
                sharded,
            ),
        ];
        for (what, a, b, checked) in fields {
            if checked && a != b {
                return Err(MergeError::Mismatch {
                    path: path.clone(),
                    what,
                    first: a,
                    this: b,
                });
            }
        }
    }
    Ok(())
}

/// Checks that the reports are one complete set of shards (`Ok(true)`), or no shards at all
/// (`Ok(false)`).
fn check_shards(reports: &[BenchReport]) -> Result<bool, MergeError> {
    let shards: Vec<Option<super::shard::Shard>> = reports
        .iter()
        .map(|r| r.shard.as_deref().map(str::parse).transpose())
        .collect::<Result<_, _>>()
        .map_err(|e: super::shard::ShardError| MergeError::Shards(e.to_string()))?;
    if shards.iter().all(Option::is_none) {
        return Ok(false);
    }
    let Some(count) = shards.iter().flatten().map(|s| s.count).next() else {
        return Ok(false);
    };
    let mut seen = vec![false; count];
    for s in &shards {
        let s = s.ok_or_else(|| MergeError::Shards("a report is not a shard".to_string()))?;
        if s.count != count {
            return Err(MergeError::Shards(format!(
                "shards of {count} and of {}",
                s.count
            )));
        }
        if std::mem::replace(&mut seen[s.index], true) {
            return Err(MergeError::Shards(format!("shard {s} twice")));
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|&i| !seen[i])
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Shards(format!(
            "missing {}",
            missing.join(", ")
        )));
    }
    Ok(true)
}

/// Adds `m` (a shard's part of a module) into `into` (see the module doc).
fn add_into(into: &mut ModuleReport, m: ModuleReport) {
    into.functions += m.functions;
    into.blocks += m.blocks;
    into.instructions += m.instructions;
    into.output_instructions += m.output_instructions;
    into.failed_functions += m.failed_functions;
    into.parse_seconds += m.parse_seconds;
    for (k, v) in m.stage_seconds {
        *into.stage_seconds.entry(k).or_default() += v;
    }
    for (k, v) in m.stats {
        *into.stats.entry(k).or_default() += v;
    }
    let hash = |h: &str| u64::from_str_radix(h, 16).unwrap_or(0);
    into.output_hash = format!(
        "{:016x}",
        hash(&into.output_hash).wrapping_add(hash(&m.output_hash))
    );
    if into.llvm.is_none() {
        into.llvm = m.llvm;
    }
    into.accepted_by_regalloc2_checker += m.accepted_by_regalloc2_checker;
    for (stage, rounds) in m.stage_round_seconds {
        let into = into.stage_round_seconds.entry(stage).or_default();
        if into.len() < rounds.len() {
            into.resize(rounds.len(), 0.0);
        }
        for (a, b) in into.iter_mut().zip(rounds) {
            *a += b;
        }
    }
    if into.parse_round_seconds.is_empty() {
        into.parse_round_seconds = m.parse_round_seconds;
    }
    for (b, n) in m.function_time_histogram {
        *into.function_time_histogram.entry(b).or_default() += n;
    }
    if into.alloc_round_seconds.len() < m.alloc_round_seconds.len() {
        into.alloc_round_seconds
            .resize(m.alloc_round_seconds.len(), 0.0);
    }
    for (a, b) in into
        .alloc_round_seconds
        .iter_mut()
        .zip(m.alloc_round_seconds)
    {
        *a += b;
    }
    // Shards hold disjoint functions, so their fastest-round sums add.
    into.alloc_fastest_seconds += m.alloc_fastest_seconds;
    match (&mut into.regalloc2, m.regalloc2) {
        (Some(a), Some(b)) => add_into(a, *b),
        (a @ None, b) => *a = b,
        (Some(_), None) => {}
    }
}

/// The merged report (see the module doc).
fn merge_reports(reports: Vec<BenchReport>) -> Result<BenchReport, MergeError> {
    let sharded = check_shards(&reports)?;
    let n = reports.len().max(1) as f64;
    let first = reports.first().cloned().unwrap_or_default();
    let mut merged = BenchReport {
        inputs: if sharded {
            first.inputs
        } else {
            reports.iter().map(|r| r.inputs).sum()
        },
        threads: reports.iter().map(|r| r.threads).max().unwrap_or(0),
        repeat: first.repeat,
        passes: first.passes.clone(),
        target: first.target.clone(),
        allocator: first.allocator.clone(),
        ..Default::default()
    };
    let mut modules: Vec<ModuleReport> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    let mut file_failures: Vec<Failure> = Vec::new();
    let mut function_failures: Vec<Failure> = Vec::new();
    let mut parse_seconds = 0.0;
    for r in reports {
        parse_seconds += r.parse_seconds;
        merged.pipeline_wall_seconds += r.pipeline_wall_seconds;
        for w in r.warnings {
            if !merged.warnings.contains(&w) {
                merged.warnings.push(w);
            }
        }
        for f in r.failures {
            if f.function.is_some() {
                function_failures.push(f);
            } else if !file_failures.contains(&f) {
                file_failures.push(f);
            }
        }
        for mut m in r.modules {
            if m.file.is_empty() {
                // A report from before modules carried their input.
                m.file = m.name.clone();
            }
            match position.get(&m.file) {
                Some(&i) => add_into(&mut modules[i], m),
                None => {
                    position.insert(m.file.clone(), modules.len());
                    modules.push(m);
                }
            }
        }
    }
    merged.parse_seconds = if sharded {
        parse_seconds / n
    } else {
        parse_seconds
    };
    // Stable: a function's failures keep their order.
    function_failures.sort_by_key(|f| (position.get(&f.file).copied(), f.index));
    merged.failures = file_failures;
    merged.failures.extend(function_failures);
    for mut m in modules {
        if sharded {
            m.parse_seconds /= n;
        }
        merged.add_module(m);
    }
    merged.recompute_rates();
    Ok(merged)
}

//! The timed phase of `strata bench`: this shard's functions of every loaded module through
//! the pipeline, `repeat` times, on all cores.
//!
//! [`prepare`] turns the loaded modules into work (the shard's functions of each, with their
//! indices in the module, and the module's counts over them); [`run_rounds`] runs them (and
//! [`run_sides`] several sides' work round by round interleaved, as `--compare regalloc2`
//! does with its anchor) with the batch driver, summing per-stage times every round and
//! counts, statistics and failures in the first counted round only; an optional warm-up round before is neither timed nor
//! counted, and with `--json` one untimed round after prints and hashes every result (so the
//! hashing does not change any time).
//!
//! Invariants: every worker builds its engine before the clock starts, with each batch slot's
//! tables sized for the largest function that lands in it; a function's output hash depends
//! on its printed result and its index in its module only (not on the worker or shard).
//! Complexity: linear in the shard's functions per round; hashing prints each function once.

use super::inputs::{global_failures, Loaded, LoadedModule, Source};
use super::report::{BenchReport, Failure, ModuleReport};
use super::shard::{self, Shard};
use crate::engine::{batch, PipelineConfig, Stage};
use crate::ir::{Function, SymbolTable};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One module's work in this shard.
pub(super) struct ModuleWork<'a> {
    /// The whole module's symbols (calls may name functions of other shards).
    symbols: Arc<SymbolTable>,
    /// This shard's functions of the module, in module order.
    functions: Vec<Function>,
    /// Their indices in the module.
    indices: Vec<usize>,
    /// The counts so far.
    pub report: ModuleReport,
    /// Where it came from.
    pub source: &'a Source,
    /// Wrapping sum of the functions' hashes (see `shard.rs`), once the hash round ran.
    hash: Option<u64>,
    /// CPU seconds per stage summed over the rounds.
    stage_sums: [f64; Stage::ALL.len()],
    /// Statistics of the first round.
    stats: Vec<crate::engine::Stat>,
    /// CPU seconds per stage in each counted round.
    stage_rounds: Vec<[f64; Stage::ALL.len()]>,
    /// Each function's fastest allocator time over the counted rounds, in nanoseconds
    /// (`u64::MAX` until a round allocated it; sized when the first counted round starts).
    alloc_fastest_ns: Vec<u64>,
}

impl ModuleWork<'_> {
    /// The same functions with nothing counted yet (the anchor side of `--compare`).
    pub fn fresh_copy(&self) -> Self {
        ModuleWork {
            symbols: self.symbols.clone(),
            functions: self.functions.clone(),
            indices: self.indices.clone(),
            report: ModuleReport {
                name: self.report.name.clone(),
                file: self.report.file.clone(),
                functions: self.report.functions,
                blocks: self.report.blocks,
                instructions: self.report.instructions,
                skipped_functions: self.report.skipped_functions,
                ..Default::default()
            },
            source: self.source,
            hash: None,
            stage_sums: [0.0; Stage::ALL.len()],
            stats: Vec::new(),
            stage_rounds: Vec::new(),
            alloc_fastest_ns: Vec::new(),
        }
    }
}

impl ModuleWork<'_> {
    /// The module's report, with times per run.
    pub fn into_report(mut self) -> ModuleReport {
        if let Some(hash) = self.hash {
            self.report.output_hash = format!("{hash:016x}");
        }
        self.report
    }
}

/// How the rounds run.
#[derive(Clone, Copy)]
pub(super) struct RunOptions {
    /// Rounds (at least 1); times are averaged over them.
    pub repeat: u32,
    /// Print and hash every function's result, in one more round after the timed ones.
    pub hash: bool,
    /// Run one round first that is neither timed nor counted.
    pub warm_up: bool,
    /// Do not print failures as they happen (the anchor side of `--compare`).
    pub quiet: bool,
    /// Keep each round's stage times in the report (`--compare llvm`).
    pub keep_rounds: bool,
}

/// What the bench keeps of one function's run (the function itself is dropped on the worker).
struct RunSummary {
    instructions: usize,
    /// `(pass, message)` of each error diagnostic (the function failed if there is one).
    errors: Vec<(&'static str, String)>,
    timings: [Duration; Stage::ALL.len()],
    stats: Vec<crate::engine::Stat>,
    /// FNV-1a of the printed result (0 when not hashing).
    text_hash: u64,
    /// The allocator's nanoseconds (`regalloc.time_ns`), every round.
    alloc_ns: u64,
}

/// The work of this shard: parse and global failures go to `report`; every other module
/// keeps the functions `shard` owns (all without one).
pub(super) fn prepare<'a>(
    sources: &'a [Source],
    loaded: Vec<Loaded>,
    shard: Option<Shard>,
    report: &mut BenchReport,
) -> Vec<ModuleWork<'a>> {
    let mut modules = Vec::new();
    for (source, result) in sources.iter().zip(loaded) {
        let result = result
            .map_err(|e| vec![Failure::file(source.name.clone(), "parse", e.to_string())])
            .and_then(|m| match global_failures(&m.module, &source.name) {
                g if g.is_empty() => Ok(m),
                g => Err(g),
            });
        match result {
            Ok(m) => {
                // The importer's warnings (an initialiser it could not evaluate) are the
                // report's, as `compile` and `run` print them.
                for w in &m.warnings {
                    if !report.warnings.contains(w) {
                        report.warnings.push(w.clone());
                    }
                }
                modules.push((source, m));
            }
            Err(failures) => {
                for f in failures {
                    f.print();
                    report.failures.push(f);
                }
            }
        }
    }
    let owner = shard.map(|s| {
        let weights: Vec<Vec<usize>> = modules
            .iter()
            .map(|(_, m)| {
                m.module
                    .functions
                    .iter()
                    .map(|f| f.live_inst_count())
                    .collect()
            })
            .collect();
        shard::assign(&weights, s.count)
    });
    let mut work = Vec::new();
    for (k, (source, loaded)) in modules.into_iter().enumerate() {
        let LoadedModule {
            module,
            skipped,
            seconds,
            ..
        } = loaded;
        let symbols = Arc::new(module.symbol_table());
        let (indices, functions): (Vec<usize>, Vec<Function>) = module
            .functions
            .into_iter()
            .enumerate()
            .filter(|(i, _)| match (&owner, shard) {
                (Some(owner), Some(s)) => owner[k][*i] == s.index,
                _ => true,
            })
            .unzip();
        let report = ModuleReport {
            name: source
                .path
                .as_ref()
                .and_then(|p| p.file_stem())
                .map_or(source.name.clone(), |s| s.to_string_lossy().into_owned()),
            file: source.name.clone(),
            functions: functions.len(),
            blocks: functions.iter().map(|f| f.live_block_count()).sum(),
            instructions: functions.iter().map(|f| f.live_inst_count()).sum(),
            skipped_functions: skipped,
            parse_seconds: seconds,
            ..Default::default()
        };
        work.push(ModuleWork {
            symbols,
            functions,
            indices,
            report,
            source,
            hash: None,
            stage_sums: [0.0; Stage::ALL.len()],
            stats: Vec::new(),
            stage_rounds: Vec::new(),
            alloc_fastest_ns: Vec::new(),
        });
    }
    work
}

/// A function's printed result: its allocated machine code when the pipeline lowered and
/// allocated it without error (taken out of the worker's World), else its IR.
fn printed(
    result: &Function,
    run: &crate::engine::RunReport,
    symbols: &SymbolTable,
    world: &mut bevy_ecs::world::World,
) -> String {
    let failed = run
        .diagnostics
        .iter()
        .any(|d| d.severity == crate::engine::Severity::Error);
    let machine = crate::machine::columns::take_machine(world);
    let allocation = world
        .get_resource_mut::<crate::regalloc::systems::AllocationResult>()
        .and_then(|mut r| r.run.take());
    match (failed, machine, allocation) {
        (false, Some(m), Some(a)) => crate::regalloc::driver::print_allocated(&m, &a.output),
        (false, Some(m), None) => crate::machine::text::print_function(&m),
        _ => crate::text::print_function(result, symbols),
    }
}

/// Sizes every worker's engine for the work before the clock starts: the pipeline time is
/// per function, and a batch user builds engines once per thread. Function `i` of a module
/// always runs in slot `i % batch` (batches are fixed chunks of each module's list),
/// whichever worker takes the batch, so each slot gets twice the rows of its largest.
fn reserve_engines(work: &[ModuleWork<'_>], config: &PipelineConfig) {
    let batch = crate::engine::batch_size(config);
    let mut largest = vec![(0usize, 0usize); batch];
    for w in work {
        for (i, f) in w.functions.iter().enumerate() {
            let (b, n) = &mut largest[i % batch];
            *b = (*b).max(f.blocks.len());
            *n = (*n).max(f.insts.len());
        }
    }
    rayon::broadcast(|_| {
        let _ = crate::engine::with_thread_engine(config, |engine| {
            for (slot, &(blocks, insts)) in largest.iter().enumerate() {
                engine.reserve_slot_rows(slot, 2 * blocks, 2 * insts);
            }
        });
    });
}

/// One side of a run: its modules, its pipeline and how its rounds run; failures go to
/// `report`.
pub(super) struct Side<'s, 'a> {
    pub work: &'s mut [ModuleWork<'a>],
    pub config: &'s PipelineConfig,
    pub options: RunOptions,
    pub report: &'s mut BenchReport,
}

/// Runs every round; returns the pipeline's wall seconds per run. Failures go to `report`.
pub(super) fn run_rounds(
    work: &mut [ModuleWork<'_>],
    config: &PipelineConfig,
    options: RunOptions,
    report: &mut BenchReport,
) -> f64 {
    run_sides(&mut [Side {
        work,
        config,
        options,
        report,
    }])[0]
}

/// Runs every side's rounds interleaved: round r of every side, in order, before round
/// r + 1 of any (so a change of machine load between rounds reaches every side alike, which
/// `--compare regalloc2` needs for its per-round ratios). Returns each side's pipeline
/// wall seconds per counted round. Each side's engine configuration is swapped in per round
/// on every worker ([`crate::engine::with_thread_engine`] keeps one World and one schedule
/// per configuration, so the swap costs nothing in the timed parts).
pub(super) fn run_sides(sides: &mut [Side<'_, '_>]) -> Vec<f64> {
    let rounds_of = |o: &RunOptions| o.warm_up as u32 + o.repeat.max(1) + o.hash as u32;
    let total: usize = sides
        .iter()
        .map(|s| {
            s.work.iter().map(|w| w.functions.len()).sum::<usize>() * rounds_of(&s.options) as usize
        })
        .sum();
    // The bar appears on a terminal once the run has taken a second (a short run prints
    // nothing); elsewhere each round that took over a second is one plain line.
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && sides.iter().any(|s| !s.options.quiet);
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total as u64),
        indicatif::ProgressDrawTarget::hidden(),
    );
    let started = Instant::now();
    let shown = std::sync::atomic::AtomicBool::new(false);
    let tick = || {
        bar.inc(1);
        if tty
            && started.elapsed() > Duration::from_secs(1)
            && !shown.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} functions {per_sec} eta {eta}",
        )
        .expect("valid progress template"),
    );
    for side in sides.iter() {
        reserve_engines(side.work, side.config);
    }
    let mut walls = vec![0.0; sides.len()];
    let most = sides
        .iter()
        .map(|s| rounds_of(&s.options))
        .max()
        .unwrap_or(0);
    for round in 0..most {
        for (side, wall) in sides.iter_mut().zip(&mut walls) {
            if round < rounds_of(&side.options) {
                run_round(side, round, &tick, tty, wall);
            }
        }
    }
    bar.finish_and_clear();
    for (side, wall) in sides.iter_mut().zip(&mut walls) {
        *wall /= side.options.repeat.max(1) as f64;
        finish_side(side);
    }
    walls
}

/// Runs round `round` of `side` (a warm-up, a counted round or the hashing round), adding
/// a counted round's wall seconds to `wall`.
fn run_round(
    side: &mut Side<'_, '_>,
    round: u32,
    tick: &(dyn Fn() + Sync),
    tty: bool,
    wall: &mut f64,
) {
    let options = side.options;
    let repeat = options.repeat.max(1);
    let warm = options.warm_up as u32;
    // Printing every function costs about as much as the pipeline: the hashes come from one
    // more round after the timed ones, so `--json` does not change any time.
    let hash_round = warm + repeat;
    let config = side.config;
    let round_start = Instant::now();
    let counted = round >= warm && round < hash_round;
    if counted {
        for w in side.work.iter_mut() {
            w.report.alloc_round_seconds.push(0.0);
            w.stage_rounds.push([0.0; Stage::ALL.len()]);
            w.alloc_fastest_ns.resize(w.functions.len(), u64::MAX);
        }
    }
    let mut functions = 0;
    for w in side.work.iter_mut() {
        functions += w.functions.len();
        let first = round == warm;
        let symbols = &w.symbols;
        let summaries = batch::map_functions_in_world(
            &w.functions,
            symbols,
            config,
            tick,
            &|result, run, world| {
                let text_hash = if round == hash_round {
                    shard::fnv1a(printed(result, &run, symbols, world).as_bytes())
                } else {
                    0
                };
                RunSummary {
                    instructions: result.live_inst_count(),
                    errors: run
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == crate::engine::Severity::Error)
                        .map(|d| (d.pass, d.message.clone()))
                        .collect(),
                    timings: run.timings,
                    alloc_ns: run
                        .stats
                        .iter()
                        .filter(|s| s.pass == "regalloc" && s.name == "time_ns")
                        .map(|s| s.value)
                        .sum(),
                    // Statistics are summed over the first round only.
                    stats: if first { run.stats } else { Vec::new() },
                    text_hash,
                }
            },
        );
        if round == hash_round {
            let mut hash = 0u64;
            for (j, summary) in summaries.iter().enumerate() {
                if let Ok(run) = summary {
                    hash = hash.wrapping_add(shard::function_hash(w.indices[j], run.text_hash));
                }
            }
            w.hash = Some(hash);
        }
        if !counted {
            continue;
        }
        for (j, summary) in summaries.into_iter().enumerate() {
            w.record(j, summary, first, options.quiet, side.report);
        }
    }
    let secs = round_start.elapsed().as_secs_f64();
    if counted {
        *wall += secs;
    }
    if !tty && !options.quiet && secs > 1.0 {
        let what = match round {
            r if r < warm => "warm-up round".to_string(),
            r if r == hash_round => "hashing round".to_string(),
            r => format!("round {} of {repeat}", r - warm + 1),
        };
        diag!("strata bench: {what}: {functions} functions in {secs:.1} s");
    }
}

/// Folds a side's rounds into its module reports: stage seconds averaged over the counted
/// rounds, first-round statistics summed.
fn finish_side(side: &mut Side<'_, '_>) {
    let (config, options) = (side.config, side.options);
    let repeat = options.repeat.max(1);
    for w in side.work.iter_mut() {
        if w.report.alloc_round_seconds.iter().all(|&s| s == 0.0) {
            // No allocator ran.
            w.report.alloc_round_seconds.clear();
        }
        w.report.alloc_fastest_seconds = w
            .alloc_fastest_ns
            .iter()
            .filter(|&&ns| ns != u64::MAX)
            .map(|&ns| ns as f64 * 1e-9)
            .sum();
        for s in Stage::ALL.iter().filter(|s| config.runs(**s)) {
            if options.keep_rounds {
                w.report.stage_round_seconds.insert(
                    s.name().to_string(),
                    w.stage_rounds.iter().map(|r| r[*s as usize]).collect(),
                );
            }
            *w.report
                .stage_seconds
                .entry(s.name().to_string())
                .or_default() += w.stage_sums[*s as usize] / repeat as f64;
        }
        for s in &w.stats {
            *w.report
                .stats
                .entry(format!("{}.{}", s.pass, s.name))
                .or_default() += s.value;
        }
    }
}

impl ModuleWork<'_> {
    /// Adds function `j`'s (of this shard's list) run to the sums.
    fn record(
        &mut self,
        j: usize,
        summary: Result<RunSummary, crate::engine::InternalError>,
        first: bool,
        quiet: bool,
        report: &mut BenchReport,
    ) {
        let index = self.indices[j];
        let failure = |stage: &str, message: String| Failure {
            file: self.source.name.clone(),
            function: Some(self.functions[j].name.clone()),
            index: Some(index),
            stage: stage.to_string(),
            message,
        };
        match summary {
            Ok(run) => {
                for (sum, t) in self.stage_sums.iter_mut().zip(&run.timings) {
                    *sum += t.as_secs_f64();
                }
                if let Some(last) = self.report.alloc_round_seconds.last_mut() {
                    *last += run.alloc_ns as f64 * 1e-9;
                }
                if run.alloc_ns > 0 {
                    let fastest = &mut self.alloc_fastest_ns[j];
                    *fastest = (*fastest).min(run.alloc_ns);
                }
                if let Some(last) = self.stage_rounds.last_mut() {
                    for (sum, t) in last.iter_mut().zip(&run.timings) {
                        *sum += t.as_secs_f64();
                    }
                }
                if !first {
                    return;
                }
                let mut failures = Vec::new();
                for (pass, message) in run.errors.iter() {
                    failures.push(failure(pass, message.clone()));
                }
                self.report.output_instructions += run.instructions;
                let ns: u128 = run.timings.iter().map(Duration::as_nanos).sum();
                *self
                    .report
                    .function_time_histogram
                    .entry(super::histogram::bucket(ns as u64))
                    .or_default() += 1;
                if run.alloc_ns > 0 {
                    let insts = run
                        .stats
                        .iter()
                        .filter(|s| s.pass == "lower" && s.name == "machine_insts")
                        .map(|s| s.value)
                        .sum();
                    self.report.alloc_points.push((insts, run.alloc_ns));
                }
                self.report.failed_functions += !run.errors.is_empty() as usize;
                // Allocated, and regalloc2's checker (in the regalloc pass) accepted it.
                let allocated = run
                    .stats
                    .iter()
                    .any(|s| s.pass == "regalloc" && s.name == "time_ns");
                self.report.accepted_by_regalloc2_checker +=
                    (allocated && run.errors.iter().all(|e| e.0 != "regalloc")) as usize;
                for s in &run.stats {
                    match self
                        .stats
                        .iter_mut()
                        .find(|t| t.pass == s.pass && t.name == s.name)
                    {
                        Some(t) => t.value += s.value,
                        None => self.stats.push(*s),
                    }
                }
                for f in failures {
                    if !quiet {
                        f.print();
                    }
                    report.failures.push(f);
                }
            }
            Err(e) => {
                if first {
                    self.report.failed_functions += 1;
                    let f = failure("engine", e.to_string());
                    if !quiet {
                        f.print();
                    }
                    report.failures.push(f);
                }
            }
        }
    }
}

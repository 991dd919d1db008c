//! The report of `strata bench`: what is counted and timed, per module and in total, its JSON
//! form (`--json`, read back by `strata bench merge`) and its text summary.
//!
//! Totals are derived from the modules in one place ([`BenchReport::add_module`] and
//! [`BenchReport::recompute_rates`]), so a run and a merge of shards compute them the same
//! way. The output hash ([`output_hash`]) is a function of the per-module hashes in input
//! order: see `shard.rs` for how a module's hash is made and why it survives sharding.
//!
//! Invariants: `failures` are in input order (paths, then parse and global failures, then
//! each module's function failures by function index); every count is a sum over functions,
//! so the sum of the shards' counts is the count of the whole. Complexity: linear in modules,
//! statistics and failures.

use super::llvm::{print_llvm_tables, LlvmSide};
use super::shard::fnv1a;
use std::collections::BTreeMap;

/// One input module (in a shard: the shard's functions of it).
#[derive(serde::Serialize, serde::Deserialize, Default, Debug, Clone, PartialEq)]
pub(super) struct ModuleReport {
    /// The file stem (or `builtin:NAME`).
    pub name: String,
    /// The input as named on the command line (or `builtin:NAME`): the key merge joins on.
    #[serde(default)]
    pub file: String,
    pub functions: usize,
    pub blocks: usize,
    pub instructions: usize,
    pub output_instructions: usize,
    pub failed_functions: usize,
    /// Functions the `.ll` importer skipped (a property of the module: every shard has it).
    pub skipped_functions: usize,
    /// Seconds to parse or import (one thread).
    pub parse_seconds: f64,
    /// CPU seconds per stage, per run.
    pub stage_seconds: BTreeMap<String, f64>,
    /// Pass statistics summed over the module's functions (one run).
    pub stats: BTreeMap<String, u64>,
    /// 64-bit hash of the module's printed output (hex; see `shard.rs`).
    #[serde(default)]
    pub output_hash: String,
    pub llvm: Option<LlvmSide>,
    /// The allocator's seconds in each counted round (with `--target`; the warm-up round of
    /// `--compare` is not among them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alloc_round_seconds: Vec<f64>,
    /// The allocator's seconds as issue 23 defines them: the sum over the functions of each
    /// one's fastest counted round (with `--target`; 0 when no allocator ran).
    #[serde(default)]
    pub alloc_fastest_seconds: f64,
    /// Functions allocated whose allocation regalloc2's checker accepted (with `--target`).
    #[serde(default)]
    pub accepted_by_regalloc2_checker: usize,
    /// regalloc2 on the same functions (`--compare regalloc2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regalloc2: Option<Box<ModuleReport>>,
    /// (machine instructions, allocator nanoseconds) of each allocated function, first
    /// counted round (for `--report`; not in the JSON).
    #[serde(skip)]
    pub alloc_points: Vec<(u64, u64)>,
    /// Each function's pipeline CPU time (all stages, first counted round) as a histogram:
    /// bucket (see `histogram.rs`) to functions.
    #[serde(default)]
    pub function_time_histogram: BTreeMap<u32, u64>,
    /// With `--compare llvm`: the parse seconds of each timed run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parse_round_seconds: Vec<f64>,
    /// With `--compare llvm`: CPU seconds per stage in each counted round.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stage_round_seconds: BTreeMap<String, Vec<f64>>,
}

/// One failure: a path that could not be read, a file that did not parse, or a function
/// whose pipeline reported an error.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub(super) struct Failure {
    /// The input path (`builtin:NAME` for the built-in corpus).
    pub file: String,
    /// The function, for failures inside one.
    pub function: Option<String>,
    /// The function's index in its module (for ordering merged failures).
    #[serde(default)]
    pub index: Option<usize>,
    /// `read` (I/O), `parse` (not text, or not valid `.sir`/`.ll`), `globals`, a pass name
    /// (`verify`, `mem2reg`, ...) or `engine` (an internal error).
    pub stage: String,
    /// What went wrong (the OS error for `read`).
    pub message: String,
}

impl Failure {
    /// A failure of a whole file (no function).
    pub fn file(file: impl Into<String>, stage: &str, message: impl Into<String>) -> Self {
        Failure {
            file: file.into(),
            function: None,
            index: None,
            stage: stage.to_string(),
            message: message.into(),
        }
    }

    /// Prints the failure on stderr as it happens.
    pub fn print(&self) {
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

/// The whole report (the `--json` document).
#[derive(serde::Serialize, serde::Deserialize, Default, Debug, Clone, PartialEq)]
pub(super) struct BenchReport {
    pub inputs: usize,
    pub threads: usize,
    pub repeat: u32,
    pub passes: Vec<String>,
    /// `K/N` for a shard's report; absent for a whole run and for a merge of shards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The target with `--target` (`x86-64`, `aarch64`).
    #[serde(default)]
    pub target: Option<String>,
    /// The allocator with `--target` (`ion`, `regalloc2`).
    #[serde(default)]
    pub allocator: Option<String>,
    pub functions: usize,
    /// Live blocks of the input functions.
    pub blocks: usize,
    /// Live instructions of the input functions (throughput is per input instruction).
    pub instructions: usize,
    /// Live instructions after the pipeline.
    pub output_instructions: usize,
    pub failed_functions: usize,
    /// 64-bit hash of the printed output of every function in input order (hex): the same
    /// for any `--jobs` and for any sharding once merged.
    #[serde(default)]
    pub output_hash: String,
    pub parse_seconds: f64,
    pub parse_instructions_per_second: f64,
    /// Wall seconds of the pipeline per run (a merge: the sum of the shards').
    pub pipeline_wall_seconds: f64,
    pub functions_per_second: f64,
    pub instructions_per_second: f64,
    pub stage_cpu_seconds: BTreeMap<String, f64>,
    /// Percentiles of the functions' pipeline CPU times in seconds (`p50`, `p90`, `p99`,
    /// `max`), read from the modules' histograms (within 12.5%).
    #[serde(default)]
    pub function_time_percentiles: BTreeMap<String, f64>,
    /// Pass statistics summed over all functions, keyed `pass.name` (one run).
    pub stats: BTreeMap<String, u64>,
    /// Every failure, in input order (see the module doc).
    pub failures: Vec<Failure>,
    /// Paths not followed (symbolic link loops) and the importer's warnings (each names its
    /// file and line: an initialiser it could not evaluate).
    pub warnings: Vec<String>,
    pub modules: Vec<ModuleReport>,
}

/// The report's output hash: FNV-1a over the modules' 64-bit hashes (little-endian) in
/// input order, as 16 hex digits; empty when some module was not hashed (no `--json`).
pub(super) fn output_hash(modules: &[ModuleReport]) -> String {
    if modules.iter().any(|m| m.output_hash.is_empty()) {
        return String::new();
    }
    let mut bytes = Vec::with_capacity(8 * modules.len());
    for m in modules {
        let h = u64::from_str_radix(&m.output_hash, 16).unwrap_or(0);
        bytes.extend_from_slice(&h.to_le_bytes());
    }
    format!("{:016x}", fnv1a(&bytes))
}

impl BenchReport {
    /// Adds a finished module to the totals and to `modules`.
    pub fn add_module(&mut self, m: ModuleReport) {
        self.functions += m.functions;
        self.blocks += m.blocks;
        self.instructions += m.instructions;
        self.output_instructions += m.output_instructions;
        self.failed_functions += m.failed_functions;
        for (k, v) in &m.stage_seconds {
            *self.stage_cpu_seconds.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &m.stats {
            *self.stats.entry(k.clone()).or_default() += v;
        }
        self.modules.push(m);
    }

    /// Throughputs from the counts and times, and the output hash from the modules'.
    pub fn recompute_rates(&mut self) {
        let parsed: usize = self.modules.iter().map(|m| m.instructions).sum();
        self.parse_instructions_per_second = parsed as f64 / self.parse_seconds.max(1e-9);
        self.functions_per_second = self.functions as f64 / self.pipeline_wall_seconds.max(1e-9);
        self.instructions_per_second =
            self.instructions as f64 / self.pipeline_wall_seconds.max(1e-9);
        self.output_hash = output_hash(&self.modules);
        let mut all: BTreeMap<u32, u64> = BTreeMap::new();
        for m in &self.modules {
            for (&b, &n) in &m.function_time_histogram {
                *all.entry(b).or_default() += n;
            }
        }
        self.function_time_percentiles = [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0)]
            .into_iter()
            .filter_map(|(k, q)| Some((k.to_string(), super::histogram::quantile(&all, q)?)))
            .collect();
    }

    /// The exit code the report stands for: 4 when a path could not be read, else 1 when
    /// anything failed, else 0.
    pub fn exit_code(&self) -> i32 {
        use crate::cli::exit;
        if self.failures.iter().any(|f| f.stage == "read") {
            exit::IO
        } else if self.failures.is_empty() {
            exit::OK
        } else {
            exit::INPUT
        }
    }

    /// The first line of the summary: what ran on what, in words.
    fn ran_sentence(&self) -> String {
        let mut steps = vec!["import".to_string()];
        for p in &self.passes {
            steps.push(
                match (p.as_str(), &self.target, self.allocator.as_deref()) {
                    ("lower", Some(arch), _) => format!("lower ({arch})"),
                    ("regalloc", _, Some("regalloc2")) => "regalloc (regalloc2)".to_string(),
                    ("regalloc", _, _) => "regalloc (ours)".to_string(),
                    _ => p.clone(),
                },
            );
        }
        let examples = self
            .modules
            .iter()
            .filter(|m| m.file.starts_with("builtin:") && m.file != "builtin:generated")
            .count();
        let generated = self.modules.iter().find(|m| m.file == "builtin:generated");
        let what = match generated {
            Some(g) => format!(
                "{examples} example programs and {} generated functions",
                g.functions
            ),
            None => format!("{} input files", self.inputs),
        };
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        format!(
            "Ran {} on {what}: {}, {}, {}, on {}, {}.",
            steps.join(", "),
            plural(self.modules.len(), "module"),
            plural(self.functions, "function"),
            plural(self.instructions, "instruction"),
            plural(self.threads, "thread"),
            plural(self.repeat as usize, "round"),
        )
    }

    /// Each stage's CPU time per run and its share of the total (import included).
    fn stage_table(&self, out: &mut String) {
        // In pipeline order (a stage this build does not know goes last).
        let mut stages: Vec<(&String, &f64)> = self.stage_cpu_seconds.iter().collect();
        let order = |k: &str| crate::stage::Stage::ALL.iter().position(|s| s.name() == k);
        stages.sort_by_key(|(k, _)| order(k).unwrap_or(usize::MAX));
        let rows: Vec<(&str, f64)> = std::iter::once(("import", self.parse_seconds))
            .chain(stages.into_iter().map(|(k, v)| (k.as_str(), *v)))
            .collect();
        let total: f64 = rows.iter().map(|r| r.1).sum();
        outln!(out, "  {:<15} {:>12} {:>7}", "stage", "ms cpu", "share");
        for (stage, secs) in &rows {
            outln!(
                out,
                "  {stage:<15} {:>12.3} {:>6.1}%",
                secs * 1e3,
                100.0 * secs / total.max(1e-12)
            );
        }
        outln!(
            out,
            "  {:<15} {:>12.3} {:>6.1}%",
            "total",
            total * 1e3,
            100.0
        );
    }

    /// The text summary (stdout): what ran on what, the time per stage, the counters with
    /// their meanings, the headline results, then the details.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        outln!(out, "{}", self.ran_sentence());
        outln!(out);
        outln!(out, "Time per stage (per run):");
        self.stage_table(&mut out);
        outln!(out);
        outln!(out, "Counters by pass (value, unit, meaning; one run):");
        super::legend::print_counters(&mut out, &self.stats);
        outln!(out);
        outln!(out, "Results:");
        // Judged: every function that reached the checker (accepted, or failed there).
        let judged = self.passes.iter().any(|p| p == "check").then(|| {
            self.functions - self.failed_functions
                + self.failures.iter().filter(|f| f.stage == "check").count()
        });
        super::legend::print_headline(&mut out, &self.stats, judged);
        outln!(out);
        outln!(out, "inputs            {}", self.inputs);
        outln!(out, "threads           {}", self.threads);
        if let Some(shard) = &self.shard {
            outln!(
                out,
                "shard             {shard} (functions of this shard only)"
            );
        }
        outln!(out, "passes            {}", self.passes.join(","));
        outln!(
            out,
            "functions         {} ({} failed)",
            self.functions,
            self.failed_functions
        );
        outln!(out, "blocks            {}", self.blocks);
        outln!(
            out,
            "instructions      {} in, {} out",
            self.instructions,
            self.output_instructions
        );
        if !self.output_hash.is_empty() {
            outln!(out, "output hash       {}", self.output_hash);
        }
        outln!(
            out,
            "parse             {:.3} ms ({:.2} M instructions/s)",
            self.parse_seconds * 1e3,
            self.parse_instructions_per_second / 1e6
        );
        outln!(
            out,
            "pipeline          {:.3} ms wall per run ({:.0} functions/s, {:.2} M instructions/s)",
            self.pipeline_wall_seconds * 1e3,
            self.functions_per_second,
            self.instructions_per_second / 1e6
        );
        let p = |k: &str| {
            self.function_time_percentiles
                .get(k)
                .copied()
                .unwrap_or(0.0)
                * 1e6
        };
        if !self.function_time_percentiles.is_empty() {
            outln!(
                out,
                "per function      p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs cpu",
                p("p50"),
                p("p90"),
                p("p99"),
                p("max")
            );
        }
        if let Some(arch) = &self.target {
            let allocator = match self.allocator.as_deref() {
                Some("regalloc2") => "regalloc2",
                _ => "our allocator",
            };
            outln!(out, "machine code ({arch}, {allocator}), per module:");
            for m in &self.modules {
                outln!(out, "  {:<20} {}", m.name, machine_summary(m).line());
            }
        }
        super::compare::print_regalloc2_table(&mut out, &self.modules);
        print_llvm_tables(&mut out, &self.modules);
        if !self.warnings.is_empty() {
            outln!(out, "warnings          {}", self.warnings.len());
            for w in &self.warnings {
                outln!(out, "  {w}");
            }
        }
        outln!(out, "failures          {}", self.failures.len());
        for f in &self.failures {
            match &f.function {
                Some(name) => outln!(out, "  {}: @{name}: [{}] {}", f.file, f.stage, f.message),
                None => outln!(out, "  {}: [{}] {}", f.file, f.stage, f.message),
            }
        }
        out
    }
}

/// A module's machine figures, from its statistics.
pub(super) fn machine_summary(m: &ModuleReport) -> crate::cli::machine::MachineSummary {
    let stat = |k: &str| m.stats.get(k).copied().unwrap_or(0);
    crate::cli::machine::MachineSummary {
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
    }
}

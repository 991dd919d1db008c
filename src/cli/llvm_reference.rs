//! The LLVM 14 reference side of `strata bench --against-llvm`: runs `opt` on the same `.ll`
//! file and reads its pass timings (`-time-passes`) and what its passes changed (counting
//! instructions, blocks, phis and conditional branches in its output).
//!
//! Timings are the "Wall Time" column of `opt`'s report for `Parse IR`, `PromotePass`,
//! `SCCPPass` and the analyses they pull in (`DominatorTreeAnalysis`, `AssumptionAnalysis`).
//! Counts come from the textual output: a line in a function body that is not a label, a
//! comment or a closing brace is an instruction. Cost: one `opt` process per query.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why LLVM's side of a measurement is missing.
#[derive(Debug, thiserror::Error)]
pub enum OptError {
    /// `opt` could not be started (not installed, not executable).
    #[error("{binary}: {source}")]
    Spawn {
        /// The binary tried (`opt-14` or `opt`).
        binary: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// `opt` ran and failed; `message` is the first line of its standard error.
    #[error("{binary} -passes={passes} {}: {message}", file.display())]
    Failed {
        /// The binary run.
        binary: &'static str,
        /// The pass pipeline given.
        passes: String,
        /// The input file.
        file: PathBuf,
        /// The first line of `opt`'s standard error.
        message: String,
    },
    /// The input file could not be read (to count its instructions).
    #[error("{}: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// Runs `opt -passes=PASSES` with `extra` arguments on `file` and returns its output, or why
/// it failed.
fn run_opt(file: &Path, passes: &str, extra: &[&str]) -> Result<std::process::Output, OptError> {
    let binary = opt_binary();
    let out = Command::new(binary)
        .arg(format!("-passes={passes}"))
        .args(extra)
        .arg(file)
        .output()
        .map_err(|source| OptError::Spawn { binary, source })?;
    if !out.status.success() {
        return Err(OptError::Failed {
            binary,
            passes: passes.to_string(),
            file: file.to_path_buf(),
            message: String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("failed")
                .to_string(),
        });
    }
    Ok(out)
}

/// The `opt` binary: `opt-14` if present, else `opt`.
pub fn opt_binary() -> &'static str {
    static OPT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    OPT.get_or_init(|| {
        let works = |b: &str| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if works("opt-14") {
            "opt-14"
        } else {
            "opt"
        }
    })
}

/// Seconds per timer name from `opt -time-passes` (both the pass report and the IR parsing
/// report), summed over repeated names.
///
/// # Errors
/// [`OptError`] if `opt` cannot run or fails on the file.
pub fn time_passes(file: &Path, passes: &str) -> Result<BTreeMap<String, f64>, OptError> {
    let out = run_opt(file, passes, &["-time-passes", "-disable-output"])?;
    Ok(parse_time_passes(&String::from_utf8_lossy(&out.stderr)))
}

/// Parses the tables printed by `-time-passes`: rows of `(seconds (percent))` columns
/// followed by a name; the wall time is the last numeric column.
pub fn parse_time_passes(report: &str) -> BTreeMap<String, f64> {
    let mut times = BTreeMap::new();
    for line in report.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // "0.0177 ( 22.5%) ... 0.0205 ( 24.2%)  PromotePass": numbers, percentages, name.
        let numbers: Vec<f64> = fields
            .iter()
            .filter_map(|f| f.parse::<f64>().ok())
            .collect();
        let name_at = fields.iter().rposition(|f| f.ends_with("%)"));
        if let (Some(&wall), Some(at)) = (numbers.last(), name_at) {
            let name = fields[at + 1..].join(" ");
            if !name.is_empty() && name != "Total" {
                *times.entry(name).or_insert(0.0) += wall;
            }
        }
    }
    times
}

/// Sizes of a module as printed by `opt -S`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IrCounts {
    /// Function definitions.
    pub functions: usize,
    /// Basic blocks.
    pub blocks: usize,
    /// Instructions.
    pub instructions: usize,
    /// `phi` instructions.
    pub phis: usize,
    /// Conditional branches and switches.
    pub conditional_branches: usize,
    /// `alloca` instructions.
    pub allocas: usize,
}

/// Counts what is in the module `opt -passes=PASSES -S` produces from `file`.
///
/// # Errors
/// [`OptError`] if `opt` cannot run or fails.
pub fn counts_after(file: &Path, passes: &str) -> Result<IrCounts, OptError> {
    let out = run_opt(file, passes, &["-S"])?;
    Ok(count(&String::from_utf8_lossy(&out.stdout)))
}

/// Counts functions, blocks and instructions in LLVM textual IR.
pub fn count(ir: &str) -> IrCounts {
    let mut c = IrCounts::default();
    let mut inside = false;
    // The entry block may be unlabeled: count it at its first instruction if no label came.
    let mut unlabeled_entry = false;
    for line in ir.lines() {
        if line.starts_with("define ") {
            inside = true;
            unlabeled_entry = true;
            c.functions += 1;
            continue;
        }
        if !inside || line.trim_start().starts_with(';') || line.trim().is_empty() {
            continue;
        }
        if line.starts_with('}') {
            inside = false;
            continue;
        }
        if !line.starts_with(' ') && line.contains(':') {
            c.blocks += 1;
            unlabeled_entry = false;
            continue;
        }
        if std::mem::take(&mut unlabeled_entry) {
            c.blocks += 1;
        }
        c.instructions += 1;
        let body = line.trim_start();
        let op = body.split_once(" = ").map_or(body, |(_, r)| r);
        match op.split_whitespace().next().unwrap_or("") {
            "phi" => c.phis += 1,
            "alloca" => c.allocas += 1,
            "switch" => c.conditional_branches += 1,
            "br" if op.starts_with("br i1") => c.conditional_branches += 1,
            _ => {}
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_time_passes_tables() {
        let report =
            "   ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---
   0.0177 ( 22.5%)   0.0025 ( 43.1%)   0.0202 ( 23.9%)   0.0205 ( 24.2%)  PromotePass
   0.0380 (100.0%)   0.0095 (100.0%)   0.0475 (100.0%)   0.0485 (100.0%)  Parse IR
   0.0787 (100.0%)   0.0058 (100.0%)   0.0844 (100.0%)   0.0847 (100.0%)  Total";
        let t = parse_time_passes(report);
        assert_eq!(t.get("PromotePass"), Some(&0.0205));
        assert_eq!(t.get("Parse IR"), Some(&0.0485));
        assert!(!t.contains_key("Total"));
    }

    #[test]
    fn counts_instructions_blocks_and_phis() {
        let ir = "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  br label %b\nb:\n  %p = phi i32 [ 1, %entry ], [ 2, %a ]\n  ret i32 %p\n}\n";
        let c = count(ir);
        assert_eq!(
            (
                c.functions,
                c.blocks,
                c.instructions,
                c.phis,
                c.conditional_branches
            ),
            (1, 3, 4, 1, 1)
        );
    }
}

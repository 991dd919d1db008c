//! `strata bench --against-llvm` (`--compare llvm`): LLVM 14's side of each `.ll` module and
//! the side-by-side tables.
//!
//! For each `.ll` input, `opt -time-passes` runs `mem2reg,sccp` `repeat` times (seconds per
//! timer are averaged), and `opt -S` after `mem2reg` and after `mem2reg,sccp` gives the counts
//! its passes changed. The tables print ours against theirs as ratios (ours / LLVM, lower is
//! better); a time ratio is the median over the runs of run r's ours / opt's run r, with the
//! min-max (our runs are the counted rounds, after an uncounted warm-up).
//!
//! Invariant: a module whose import skipped functions that LLVM processed covers less code
//! than LLVM's, so its ratios print `n/c` (not comparable). Complexity: three `opt` runs per
//! module plus `repeat` timed ones; printing is linear in the modules.

use super::report::ModuleReport;
use crate::cli::llvm_reference::{self, IrCounts};
use std::collections::BTreeMap;
use std::path::Path;

/// LLVM's side of one module.
#[derive(serde::Serialize, serde::Deserialize, Default, Clone, Debug, PartialEq)]
pub(super) struct LlvmSide {
    /// Seconds per `opt -time-passes` timer (Parse IR, PromotePass, SCCPPass, analyses).
    pub seconds: BTreeMap<String, f64>,
    /// The module as clang emitted it.
    pub input: IrCounts,
    /// After `opt -passes=mem2reg`.
    pub after_mem2reg: IrCounts,
    /// After `opt -passes=mem2reg,sccp`.
    pub after_sccp: IrCounts,
    /// Seconds per timer of each `opt -time-passes` run (`seconds` is their mean).
    #[serde(default)]
    pub round_seconds: Vec<BTreeMap<String, f64>>,
}

/// Runs `opt` on `path`: timers averaged over `repeat` runs, and the counts.
pub(super) fn llvm_side(path: &Path, repeat: u32) -> Result<LlvmSide, llvm_reference::OptError> {
    let mut seconds: BTreeMap<String, f64> = BTreeMap::new();
    let mut round_seconds = Vec::new();
    for _ in 0..repeat {
        let round: BTreeMap<String, f64> = llvm_reference::time_passes(path, "mem2reg,sccp")?
            .into_iter()
            .collect();
        for (k, v) in &round {
            *seconds.entry(k.clone()).or_default() += v / repeat as f64;
        }
        round_seconds.push(round);
    }
    let text = std::fs::read_to_string(path).map_err(|source| llvm_reference::OptError::Read {
        file: path.to_path_buf(),
        source,
    })?;
    Ok(LlvmSide {
        seconds,
        input: llvm_reference::count(&text),
        after_mem2reg: llvm_reference::counts_after(path, "mem2reg")?,
        after_sccp: llvm_reference::counts_after(path, "mem2reg,sccp")?,
        round_seconds,
    })
}

/// `ours / theirs` as `1.23x`, or `-` when LLVM's figure is zero.
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

/// Appends the side-by-side tables of the modules that have an LLVM side.
pub(super) fn print_llvm_tables(out: &mut String, modules: &[ModuleReport]) {
    let with: Vec<(&ModuleReport, &LlvmSide)> = modules
        .iter()
        .filter_map(|m| m.llvm.as_ref().map(|l| (m, l)))
        .collect();
    if with.is_empty() {
        return;
    }
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
    print_time_table(out, &with);
    print_result_tables(out, &with);
}

/// The median [min, max] over the runs of our `stages` (`parse` is the import) against
/// opt's `timers`, summed per run; `None` without per-run times on both sides.
pub(super) fn round_ratio(
    m: &ModuleReport,
    l: &LlvmSide,
    stages: &[&str],
    timers: &[&str],
) -> Option<(f64, f64, f64)> {
    let ours: Vec<f64> = (0..m.parse_round_seconds.len())
        .map(|r| {
            stages
                .iter()
                .map(|s| match *s {
                    "parse" => m.parse_round_seconds[r],
                    s => m
                        .stage_round_seconds
                        .get(s)
                        .and_then(|v| v.get(r))
                        .copied()
                        .unwrap_or(0.0),
                })
                .sum()
        })
        .collect();
    let theirs: Vec<f64> = l
        .round_seconds
        .iter()
        .map(|r| timers.iter().filter_map(|t| r.get(*t)).sum())
        .collect();
    if ours.len() != theirs.len() {
        return None;
    }
    super::compare::round_ratios(&ours, &theirs)
}

/// One module with LLVM's side.
type Pair<'a> = (&'a ModuleReport, &'a LlvmSide);

/// The times side by side (import, mem2reg, mem2reg with its analyses, SCCP).
fn print_time_table(out: &mut String, with: &[Pair<'_>]) {
    let ms = |s: f64| format!("{:.2}", s * 1e3);
    let stage = |m: &ModuleReport, s: &str| m.stage_seconds.get(s).copied().unwrap_or(0.0);
    let t = |l: &LlvmSide, s: &str| l.seconds.get(s).copied().unwrap_or(0.0);
    outln!(
        out,
        "\nagainst LLVM 14 opt (ms per run, mean of {} run(s), one thread; ratio = ours / LLVM, \
         the median [min-max] of the runs' ratios, lower is better; n/c = not comparable)",
        with[0].1.round_seconds.len().max(1)
    );
    outln!(
        out,
        "{:<18} {:>9} {:>9} {:>17}   {:>9} {:>9} {:>17}   {:>11} {:>11} {:>17}   {:>9} {:>9} {:>17}",
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
    for (m, l) in with {
        let ok = m.skipped_functions == 0 && m.functions == l.input.functions;
        let ratio = |a: f64, b: f64, stages: &[&str], timers: &[&str]| match round_ratio(
            m, l, stages, timers,
        ) {
            Some((mid, lo, hi)) if ok => format!("{mid:.2}x [{lo:.2}-{hi:.2}]"),
            _ => ratio_if(ok, a, b),
        };
        let analyses = ["PromotePass", "DominatorTreeAnalysis", "AssumptionAnalysis"];
        let ours_m2r = stage(m, "mem2reg");
        let ours_all = ours_m2r + stage(m, "cfg") + stage(m, "dominance");
        let theirs_all =
            t(l, "PromotePass") + t(l, "DominatorTreeAnalysis") + t(l, "AssumptionAnalysis");
        outln!(out,
            "{:<18} {:>9} {:>9} {:>17}   {:>9} {:>9} {:>17}   {:>11} {:>11} {:>17}   {:>9} {:>9} {:>17}",
            m.name,
            ms(m.parse_seconds),
            ms(t(l, "Parse IR")),
            ratio(m.parse_seconds, t(l, "Parse IR"), &["parse"], &["Parse IR"]),
            ms(ours_m2r),
            ms(t(l, "PromotePass")),
            ratio(ours_m2r, t(l, "PromotePass"), &["mem2reg"], &["PromotePass"]),
            ms(ours_all),
            ms(theirs_all),
            ratio(
                ours_all,
                theirs_all,
                &["mem2reg", "cfg", "dominance"],
                &analyses
            ),
            ms(stage(m, "sccp")),
            ms(t(l, "SCCPPass")),
            ratio(stage(m, "sccp"), t(l, "SCCPPass"), &["sccp"], &["SCCPPass"]),
        );
    }
}

/// What mem2reg and SCCP did on each side.
fn print_result_tables(out: &mut String, with: &[Pair<'_>]) {
    let stat = |m: &ModuleReport, s: &str| m.stats.get(s).copied().unwrap_or(0);
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
    for (m, l) in with {
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
    for (m, l) in with {
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

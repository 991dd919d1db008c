//! `strata bench --compare regalloc2`: our allocator and regalloc2 on the same functions in
//! one run, side by side per module.
//!
//! The anchor side runs the same pipeline on the same functions with `--allocator regalloc2`,
//! its rounds interleaved with ours (our round r, then regalloc2's round r, so a change of
//! machine load reaches both sides of a round's ratio alike), each side after one warm-up
//! round that is neither timed nor counted. Each
//! side's time is its allocator alone, each in a context reused between functions (ours the
//! pipeline's, regalloc2's a per-thread `regalloc2::Ctx` through `run_with_ctx`, as the issue
//! and Cranelift use it); presenting a function in regalloc2's types and converting its
//! output back are outside the timed part. Every
//! function's fastest counted round is kept for each side, and the printed ratio is issue
//! 23's: the sum over the module's functions of our fastest time over the sum of
//! regalloc2's fastest (a function slowed by a burst of machine load in one round does not
//! count against either side); the times per instruction are those sums over the module's
//! machine instructions. Beside it, every counted round r gives both sides' allocator seconds
//! for the module, and the table shows the median over the rounds of ours_r / regalloc2_r
//! with the min-max of those ratios, which shows how much the machine's load moved. Edits
//! per 100 instructions, the loop-weighted edit cost (spill 1, reload
//! 4, register move 0.2, rematerialization 1, each times 4^loop depth; remats are ours
//! alone, regalloc2 has none), the remat count and spill slots come from the first counted
//! round; the verdicts are the functions each checker accepted (ours: the `check` pass;
//! regalloc2's: run by the `regalloc` pass on either allocator's output).
//!
//! Invariant: a module is comparable only when both sides lowered the same machine
//! instructions and failed on the same number of functions; otherwise its ratio prints `n/c`.
//! Complexity: O(R log R) per module for R rounds.

use super::report::{machine_summary, ModuleReport};

/// The median of `xs` (the mean of the middle two for an even count); `None` when empty.
pub(super) fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Median, min and max of the per-round ratios `ours[r] / theirs[r]` (rounds where regalloc2
/// took no time are left out).
pub(super) fn round_ratios(ours: &[f64], theirs: &[f64]) -> Option<(f64, f64, f64)> {
    let ratios: Vec<f64> = ours
        .iter()
        .zip(theirs)
        .filter(|(_, &t)| t > 0.0)
        .map(|(&o, &t)| o / t)
        .collect();
    let mid = median(&ratios)?;
    let min = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let max = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((mid, min, max))
}

/// Issue 23's time ratio: the sum of our per-function fastest rounds over regalloc2's
/// (`None` when regalloc2 took no time).
pub(super) fn fastest_ratio(m: &ModuleReport, anchor: &ModuleReport) -> Option<f64> {
    (anchor.alloc_fastest_seconds > 0.0)
        .then(|| m.alloc_fastest_seconds / anchor.alloc_fastest_seconds)
}

/// Whether both sides did the same work on `m`.
pub(super) fn comparable(m: &ModuleReport, anchor: &ModuleReport) -> bool {
    let insts = |m: &ModuleReport| m.stats.get("lower.machine_insts").copied();
    insts(m) == insts(anchor) && m.failed_functions == anchor.failed_functions
}

/// Appends the side-by-side table of the modules compared with regalloc2.
pub(super) fn print_regalloc2_table(out: &mut String, modules: &[ModuleReport]) {
    let with: Vec<(&ModuleReport, &ModuleReport)> = modules
        .iter()
        .filter_map(|m| m.regalloc2.as_deref().map(|a| (m, a)))
        .collect();
    if with.is_empty() {
        return;
    }
    let rounds = with[0].0.alloc_round_seconds.len();
    outln!(
        out,
        "\nagainst regalloc2 0.15 (same functions, {rounds} round(s) after an uncounted warm-up; \
         ns = allocator ns per machine instruction, each function's fastest round; ratio = ours \
         / regalloc2 of those sums, lower is better; rounds = median [min-max] of the rounds' \
         whole-module ratios; n/c = not comparable)"
    );
    outln!(
        out,
        "{:<16} {:>8} {:>8} {:>8} {:>6} {:>17}   {:>8} {:>8}   {:>9} {:>9} {:>6}   {:>6} {:>6}   {:>11} {:>11}",
        "module",
        "insts",
        "ns ours",
        "ns ra2",
        "ratio",
        "rounds",
        "edits%",
        "ra2",
        "cost",
        "ra2",
        "remats",
        "slots",
        "ra2",
        "checked",
        "ra2 checked"
    );
    for (m, a) in with {
        let (ours, theirs) = (machine_summary(m), machine_summary(a));
        let per_inst = |side: &ModuleReport| {
            if side.alloc_round_seconds.is_empty() {
                "-".to_string()
            } else {
                format!(
                    "{:.1}",
                    side.alloc_fastest_seconds * 1e9 / ours.insts.max(1) as f64
                )
            }
        };
        let (ratio, rounds) = if !comparable(m, a) {
            ("n/c".to_string(), "n/c".to_string())
        } else {
            (
                fastest_ratio(m, a).map_or("-".to_string(), |r| format!("{r:.2}x")),
                round_ratios(&m.alloc_round_seconds, &a.alloc_round_seconds)
                    .map_or("-".to_string(), |(mid, lo, hi)| {
                        format!("{mid:.2}x [{lo:.2}-{hi:.2}]")
                    }),
            )
        };
        let edits = |s: &crate::cli::machine::MachineSummary| {
            format!("{:.1}", 100.0 * s.edits as f64 / s.insts.max(1) as f64)
        };
        let verdict = |checked: usize, s: &ModuleReport| format!("{checked}/{}", s.functions);
        let stat = |s: &ModuleReport, k: &str| s.stats.get(k).copied().unwrap_or(0);
        let cost =
            |s: &ModuleReport| format!("{:.1}", stat(s, "regalloc.cost_tenths") as f64 / 10.0);
        outln!(
            out,
            "{:<16} {:>8} {:>8} {:>8} {:>6} {:>17}   {:>8} {:>8}   {:>9} {:>9} {:>6}   {:>6} {:>6}   {:>11} {:>11}",
            m.name,
            ours.insts,
            per_inst(m),
            per_inst(a),
            ratio,
            rounds,
            edits(&ours),
            edits(&theirs),
            cost(m),
            cost(a),
            stat(m, "regalloc.remats"),
            ours.spill_slots,
            theirs.spill_slots,
            format!(
                "{} {}",
                verdict(ours.checked, m),
                verdict(m.accepted_by_regalloc2_checker, m)
            ),
            format!(
                "{} {}",
                verdict(theirs.checked, a),
                verdict(a.accepted_by_regalloc2_checker, a)
            ),
        );
    }
    outln!(
        out,
        "(checked: functions our checker accepted, then those regalloc2's checker accepted)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread_of_round_ratios() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        let (mid, lo, hi) = round_ratios(&[1.0, 3.0, 2.0], &[2.0, 2.0, 0.0]).unwrap();
        assert_eq!((mid, lo, hi), (1.0, 0.5, 1.5));
        assert_eq!(round_ratios(&[1.0], &[0.0]), None);
    }
}

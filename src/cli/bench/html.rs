//! `strata bench --report DIR`: the report as one self-contained HTML page (`DIR/index.html`)
//! with inline SVG charts drawn here, no script, no style sheet or font from elsewhere.
//!
//! Charts: CPU time per stage (bars); our/anchor ratios per module (bars, as in the text:
//! regalloc2's allocator-time ratio of the per-function fastest rounds with `--compare
//! regalloc2`, the medians over the runs of LLVM's mem2reg and SCCP ratios with `--compare
//! llvm`, a line at 1.0); allocator time against function size (a log-log scatter, one
//! point per function, machine instructions against microseconds); edits per 100 machine
//! instructions per module (bars, ours and regalloc2's). A chart without data is left out with a sentence saying why, so every
//! `<svg>` on the page has data marks (elements of class `mark`). After the charts, the text
//! summary as `<pre>`.
//!
//! Invariants: every text is escaped ([`escape`]); the page is well formed (every element
//! closed, SVG in the HTML namespace's inline form). Complexity: linear in modules, stages
//! and functions.

use super::report::{machine_summary, BenchReport};
use std::fmt::Write as _;

/// `s` with `&`, `<`, `>` and `"` escaped.
pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One bar of a chart: label, series index, value.
struct Bar {
    label: String,
    series: usize,
    value: f64,
}

const COLOURS: [&str; 4] = ["#3b6ea8", "#d9822b", "#5a9e4b", "#9b59b6"];

/// A horizontal bar chart (groups of bars by label, one colour per series), with a dashed
/// reference line at `reference` when given.
fn bar_chart(
    title: &str,
    unit: &str,
    series: &[&str],
    bars: &[Bar],
    reference: Option<f64>,
) -> String {
    let (left, width, row) = (170.0, 460.0, 16.0);
    let max = bars
        .iter()
        .map(|b| b.value)
        .chain(reference)
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let height = 40.0 + row * bars.len() as f64 + 30.0;
    let mut s = String::new();
    let _ = write!(
        s,
        "<h2>{}</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"700\" height=\"{height}\" \
         role=\"img\" aria-label=\"{}\">\n",
        escape(title),
        escape(title)
    );
    for (i, name) in series.iter().enumerate() {
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"8\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"17\" \
             font-size=\"11\">{}</text>",
            left + 120.0 * i as f64,
            COLOURS[i % COLOURS.len()],
            left + 14.0 + 120.0 * i as f64,
            escape(name)
        );
    }
    let mut last = None;
    for (i, b) in bars.iter().enumerate() {
        let y = 30.0 + row * i as f64;
        let w = width * b.value / max;
        if last != Some(&b.label) {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
                left - 6.0,
                y + 11.0,
                escape(&b.label)
            );
        }
        last = Some(&b.label);
        let _ = writeln!(
            s,
            "<rect class=\"mark\" x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\">\
             <title>{}: {} {:.4} {}</title></rect>\n<text x=\"{:.1}\" y=\"{}\" font-size=\"10\">{:.3}</text>",
            row - 3.0,
            COLOURS[b.series % COLOURS.len()],
            escape(&b.label),
            escape(series.get(b.series).copied().unwrap_or("")),
            b.value,
            escape(unit),
            left + w + 4.0,
            y + 10.0,
            b.value
        );
    }
    if let Some(r) = reference {
        let x = left + width * r / max;
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"26\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#333\" \
             stroke-dasharray=\"4 3\"/>",
            height - 26.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{left}\" y=\"{}\" font-size=\"11\">{}</text>\n</svg>",
        height - 8.0,
        escape(unit)
    );
    s
}

/// The decades `[lo, hi]` (powers of ten, `lo < hi`) that hold every positive value of `xs`.
fn decades(xs: impl Iterator<Item = f64>) -> (i32, i32) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in xs.filter(|x| *x > 0.0 && x.is_finite()) {
        lo = lo.min(x.log10());
        hi = hi.max(x.log10());
    }
    if lo > hi {
        return (0, 1);
    }
    let (lo, hi) = (lo.floor() as i32, hi.ceil() as i32);
    (lo, hi.max(lo + 1))
}

/// `10^k` as a plain number (`0.01`, `1`, `1000`).
fn power_of_ten(k: i32) -> String {
    if k >= 0 {
        format!("{}", 10u64.pow(k as u32))
    } else {
        format!("{:.*}", (-k) as usize, 10f64.powi(k))
    }
}

/// A scatter of `(x, y)` points on log-log axes (sizes and times span decades), with a tick
/// and a grid line at every power of ten; points with a zero coordinate sit on the axis.
fn scatter(title: &str, x_label: &str, y_label: &str, points: &[(f64, f64)]) -> String {
    let (left, top, width, height) = (70.0, 20.0, 590.0, 300.0);
    let (x0, x1) = decades(points.iter().map(|p| p.0));
    let (y0, y1) = decades(points.iter().map(|p| p.1));
    let px =
        |x: f64| left + width * (x.max(1e-300).log10() - x0 as f64).max(0.0) / (x1 - x0) as f64;
    let py = |y: f64| {
        top + height - height * (y.max(1e-300).log10() - y0 as f64).max(0.0) / (y1 - y0) as f64
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "<h2>{}</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"700\" height=\"370\" \
         role=\"img\" aria-label=\"{}\">\n",
        escape(title),
        escape(title)
    );
    for k in x0..=x1 {
        let x = px(10f64.powi(k));
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#ddd\"/>\
             <text x=\"{x:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            top + height,
            top + height + 14.0,
            power_of_ten(k)
        );
    }
    for k in y0..=y1 {
        let y = py(10f64.powi(k));
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            left + width,
            left - 4.0,
            y + 4.0,
            power_of_ten(k)
        );
    }
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"#333\"/>",
        top + height,
        left + width,
        top + height,
        top + height
    );
    for &(x, y) in points {
        let _ = writeln!(
            s,
            "<circle class=\"mark\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\" \
             fill-opacity=\"0.6\"><title>{x} {}, {y:.2} {}</title></circle>",
            px(x),
            py(y),
            COLOURS[0],
            escape(x_label),
            escape(y_label)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{} (log)</text>\
         <text x=\"4\" y=\"{}\" font-size=\"11\">{} (log)</text>\n</svg>",
        left + width / 2.0,
        top + height + 32.0,
        escape(x_label),
        top - 6.0,
        escape(y_label)
    );
    s
}

/// The page for `report`; `points` are (machine instructions, allocator microseconds) of
/// every allocated function.
pub(super) fn page(report: &BenchReport, points: &[(f64, f64)]) -> String {
    let mut body = String::new();
    let mut missing = Vec::new();
    let stages: Vec<Bar> = report
        .stage_cpu_seconds
        .iter()
        .map(|(k, v)| Bar {
            label: k.clone(),
            series: 0,
            value: v * 1e3,
        })
        .collect();
    if stages.is_empty() {
        missing.push("time per stage (no stage ran)");
    } else {
        body += &bar_chart("CPU time per stage", "ms per run", &["ours"], &stages, None);
    }
    let mut ratios = Vec::new();
    for m in &report.modules {
        if let Some(a) = m.regalloc2.as_deref() {
            if super::compare::comparable(m, a) {
                if let Some(mid) = super::compare::fastest_ratio(m, a) {
                    ratios.push(Bar {
                        label: m.name.clone(),
                        series: 0,
                        value: mid,
                    });
                }
            }
        }
        if let Some(l) = &m.llvm {
            let ok = m.skipped_functions == 0 && m.functions == l.input.functions;
            for (series, ours, theirs) in [(1, "mem2reg", "PromotePass"), (2, "sccp", "SCCPPass")] {
                let median = super::llvm::round_ratio(m, l, &[ours], &[theirs]);
                if let (true, Some((mid, _, _))) = (ok, median) {
                    ratios.push(Bar {
                        label: m.name.clone(),
                        series,
                        value: mid,
                    });
                }
            }
        }
    }
    if ratios.is_empty() {
        missing.push("our/anchor ratios (no --compare, or no comparable module)");
    } else {
        body += &bar_chart(
            "Ours / anchor time per module (lower is better; dashed: 1.0)",
            "ratio",
            &["regalloc2 (alloc)", "LLVM mem2reg", "LLVM sccp"],
            &ratios,
            Some(1.0),
        );
    }
    if points.is_empty() {
        missing.push("allocation time against function size (no --target)");
    } else {
        body += &scatter(
            "Allocator time against function size (one point per function)",
            "machine instructions",
            "µs",
            points,
        );
    }
    let mut edits = Vec::new();
    for m in &report.modules {
        let sides = std::iter::once(m).chain(m.regalloc2.as_deref());
        for (series, side) in sides.enumerate() {
            let s = machine_summary(side);
            if s.insts > 0 && side.alloc_round_seconds.iter().any(|&t| t > 0.0) {
                edits.push(Bar {
                    label: m.name.clone(),
                    series,
                    value: 100.0 * s.edits as f64 / s.insts as f64,
                });
            }
        }
    }
    if edits.is_empty() {
        missing.push("edits per 100 instructions (no --target)");
    } else {
        body += &bar_chart(
            "Edits per 100 machine instructions per module",
            "edits per 100 instructions",
            &["ours", "regalloc2"],
            &edits,
            None,
        );
    }
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>strata bench report</title>\n<style>body{font-family:sans-serif;margin:2em;\
         max-width:60em}pre{background:#f4f4f4;padding:1em;overflow-x:auto;font-size:12px}\
         </style>\n</head>\n<body>\n<h1>strata bench</h1>\n",
    );
    let _ = writeln!(
        page,
        "<p>{} inputs, {} functions, {} instructions; passes {}; output hash {}.</p>",
        report.inputs,
        report.functions,
        report.instructions,
        escape(&report.passes.join(",")),
        escape(&report.output_hash)
    );
    page += &body;
    for m in missing {
        let _ = writeln!(page, "<p>Not drawn: {}.</p>", escape(m));
    }
    let _ = write!(
        page,
        "<h2>Summary</h2>\n<pre>{}</pre>\n</body>\n</html>\n",
        escape(&report.summary())
    );
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_cover_the_values() {
        assert_eq!(decades([3.0, 700.0].into_iter()), (0, 3));
        assert_eq!(decades([0.05, 0.0].into_iter()), (-2, -1));
        assert_eq!(decades(std::iter::empty()), (0, 1));
        assert_eq!(decades([10.0].into_iter()), (1, 2));
        assert_eq!(power_of_ten(3), "1000");
        assert_eq!(power_of_ten(-2), "0.01");
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}

//! `strata bench --report DIR`: the page is well formed (every element closed in order), has
//! no reference outside itself, and every chart has data marks.

use std::process::Command;

/// Elements HTML does not close.
const VOID: [&str; 4] = ["meta", "br", "img", "hr"];

/// Checks that the tags of `html` balance; returns the open-tag names in order.
fn balanced(html: &str) -> Result<Vec<String>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut opened = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let end = rest[start..]
            .find('>')
            .ok_or_else(|| format!("unclosed `<` at {}", &rest[start..]))?
            + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            match stack.pop() {
                Some(open) if open == name.trim() => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.is_empty() {
            return Err(format!("bad tag <{tag}>"));
        }
        opened.push(name.clone());
        if !tag.ends_with('/') && !VOID.contains(&name.as_str()) {
            stack.push(name);
        }
    }
    match stack.is_empty() {
        true => Ok(opened),
        false => Err(format!("left open: {stack:?}")),
    }
}

#[test]
fn the_checker_of_well_formedness_can_fail() {
    assert!(balanced("<p><b>x</p></b>").is_err());
    assert!(balanced("<svg><rect/>").is_err());
    assert!(balanced("<p>x</p><meta charset=\"utf-8\">").is_ok());
}

#[test]
fn report_page_is_well_formed_and_every_chart_has_data() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let o = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "bench",
            "examples/sir",
            "--compare",
            "regalloc2",
            "--repeat",
            "2",
        ])
        .arg("--report")
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let tags = balanced(&html).unwrap_or_else(|e| panic!("{e}\n{html}"));
    assert!(tags.first().is_some_and(|t| t == "html"), "{tags:?}");
    // Self-contained: nothing is fetched.
    for needle in ["src=", "href=", "<script", "<link", "@import", "url("] {
        assert!(!html.contains(needle), "{needle} in the page");
    }
    let charts: Vec<&str> = html.split("<svg").skip(1).collect();
    assert_eq!(charts.len(), 4, "four charts with --target and an anchor");
    for chart in charts {
        let chart = &chart[..chart.find("</svg>").unwrap()];
        let marks = chart.matches("class=\"mark\"").count();
        assert!(marks > 0, "a chart without data: {chart}");
        assert!(!chart.contains("NaN") && !chart.contains("inf"), "{chart}");
    }
    assert!(!html.contains("Not drawn"), "every chart is drawn");
    // Eight modules, each with a ratio bar and both sides' edits.
    assert!(html.matches("<circle class=\"mark\"").count() >= 8);
}

#[test]
fn without_target_the_page_says_what_is_not_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["bench", "--generated", "5", "--target", "none", "--report"])
        .arg(dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    balanced(&html).unwrap();
    assert_eq!(html.matches("<svg").count(), 1, "only time per stage");
    assert!(html.contains("Not drawn: allocation time"), "{html}");
}

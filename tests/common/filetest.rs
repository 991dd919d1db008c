//! The blessable filetest runner shared by `tests/filetests.rs` (`.sir`) and
//! `tests/machine_filetests.rs` (`.mir`, `.sir` lowered).
//!
//! A filetest's first line names it, `; test <kind> [arguments]`; its expected output is
//! the comment block after the line [`MARKER`] at the end of the file, each output line
//! prefixed by `; ` (an empty line is `;`). With `BLESS=1` in the environment the runner
//! rewrites that block from the actual output instead of comparing (a file without one
//! gets it). Files are visited in sorted path order, so failures list deterministically.

use std::path::{Path, PathBuf};

/// The line that separates a filetest's input from its expected output.
pub const MARKER: &str = "; ---- expected ----";

/// Every file below `dir` (recursively) whose extension is one of `extensions`, in
/// sorted path order.
pub fn files(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                walk(&e, extensions, out);
            } else if e
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| extensions.contains(&x))
            {
                out.push(e);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, extensions, &mut out);
    out
}

/// Runs (or with `BLESS=1` blesses) every filetest below `root` with one of `extensions`:
/// `actual(kind, arguments, input, path)` computes a test's output from its header's kind
/// and arguments and the text before [`MARKER`]. Panics listing every failing file (no
/// expectation, or output that differs, shown in full), or when fewer than `at_least`
/// files are found (a moved directory must not pass by running nothing). `what` names the
/// suite in messages.
pub fn run(
    root: &Path,
    extensions: &[&str],
    what: &str,
    at_least: usize,
    mut actual: impl FnMut(&str, &str, &str, &Path) -> String,
) {
    let paths = files(root, extensions);
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let header = text.lines().next().unwrap_or("");
        let spec = header
            .strip_prefix("; test ")
            .unwrap_or_else(|| panic!("{}: first line must be `; test <kind>`", path.display()));
        let (kind, args) = spec.split_once(' ').unwrap_or((spec, ""));
        let (input, expected) = match text.find(MARKER) {
            Some(at) => (&text[..at], Some(&text[at + MARKER.len()..])),
            None => (text.as_str(), None),
        };
        let got = actual(kind, args, input, path);
        let got_block: String = got
            .lines()
            .map(|l| {
                if l.is_empty() {
                    ";\n".to_string()
                } else {
                    format!("; {l}\n")
                }
            })
            .collect();
        if bless {
            let new = format!("{}\n{MARKER}\n{got_block}", input.trim_end_matches('\n'));
            if new != text {
                std::fs::write(path, new).unwrap();
            }
            continue;
        }
        match expected {
            None => failures.push(format!(
                "{}: no expectation (run with BLESS=1)",
                path.display()
            )),
            Some(exp) => {
                let exp = exp.trim_start_matches('\n');
                if exp != got_block {
                    failures.push(format!(
                        "{}: output differs\n--- expected\n{exp}--- actual\n{got_block}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(
        paths.len() >= at_least,
        "found only {} {what} in {}",
        paths.len(),
        root.display()
    );
    assert!(
        failures.is_empty(),
        "{} of {} {what} failed:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n")
    );
}

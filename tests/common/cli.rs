//! Running the `strata` binary the way a user does: from the crate's root directory, with
//! arguments, optionally with standard input, and reading what it printed.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

/// A command for the `strata` binary built for these tests, run from the crate's root (so
/// the paths in the tests are relative to it).
pub fn strata_cmd(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Runs `strata ARGS` to completion with no standard input.
pub fn strata(args: &[&str]) -> Output {
    strata_cmd(args).stdin(Stdio::null()).output().unwrap()
}

/// Runs `strata ARGS` with `input` on its standard input.
pub fn strata_stdin(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    run_with_stdin(strata_cmd(args), input)
}

/// Runs `cmd` (any program) to completion with `input` on its standard input, capturing
/// standard output and standard error.
pub fn run_with_stdin(mut cmd: Command, input: impl AsRef<[u8]>) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_ref())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Output bytes as text (invalid UTF-8 replaced), for messages and comparisons.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

//! `strata fuzz SYSTEM`: a system's fuzz check on random inputs on every core, on stable Rust.
//!
//! What: parses the flags, runs [`crate::fuzzing::runner::run`] on the target of
//! [`crate::fuzzing::targets::TARGETS`] named SYSTEM, shows a progress line on stderr (at
//! most once a second, only on a terminal), and prints a summary line on stdout: system,
//! executions, seconds, executions per second, seed and jobs. On a failure it writes the
//! input to `OUT/<system>-<hash>.bin` (FNV-1a of the bytes, so the same input keeps its
//! name), prints the panic message and the command that reproduces it, and exits 1.
//! `--reproduce FILE` runs the check once on FILE's bytes: exit 0 if it passes, 1 with the
//! panic message if not.
//!
//! Exit codes: 0 no failure, 1 a check failed, 2 usage (an unknown SYSTEM lists the
//! systems), 4 I/O (FILE unreadable, OUT unwritable).

use super::{exit, io, CliError};
use crate::fuzzing::runner::{self, RunOptions, RunSummary};
use crate::fuzzing::targets::{self, Target};
use clap::builder::{PossibleValue, PossibleValuesParser};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Flags of `strata fuzz`.
#[derive(clap::Args, Debug)]
pub struct FuzzArgs {
    /// The system whose check to run.
    #[arg(value_parser = systems())]
    pub system: String,
    /// Wall time of the run, in seconds.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub seconds: u64,
    /// Seed of the inputs: worker `i` draws from `S + i` (default: from the clock, printed).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Directory for failing inputs.
    #[arg(long, value_name = "DIR", default_value = "fuzz-failures")]
    pub out: PathBuf,
    /// Run the check once on FILE's bytes (a failing input this command wrote) and exit.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seconds", "seed", "jobs", "out"])]
    pub reproduce: Option<PathBuf>,
}

/// The systems, with what each check judges, for clap (an unknown name is a usage error
/// that lists them).
fn systems() -> PossibleValuesParser {
    PossibleValuesParser::new(
        targets::TARGETS
            .iter()
            .map(|t| PossibleValue::new(t.name).help(t.summary)),
    )
}

/// Runs `strata fuzz`; see the module doc.
pub fn fuzz(args: FuzzArgs) -> Result<i32, CliError> {
    let target = targets::find(&args.system).ok_or_else(|| {
        CliError::new(
            exit::USAGE,
            format!(
                "unknown system `{}`; the systems are: {}",
                args.system,
                targets::names().join(", ")
            ),
        )
    })?;
    if let Some(file) = &args.reproduce {
        return reproduce(target, file);
    }
    let seed = args.seed.unwrap_or_else(clock_seed);
    let jobs = match args.jobs {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let opts = RunOptions {
        duration: Duration::from_secs(args.seconds),
        seed,
        jobs,
        ..RunOptions::default()
    };
    let summary = run_with_progress(target, &opts)?;
    print_summary(target, &summary, &opts);
    match &summary.failure {
        Some(failure) => report_failure(target, failure, seed, &args.out),
        None => Ok(exit::OK),
    }
}

/// Prints `failure`'s message, writes its input to `out/<system>-<hash>.bin` and prints the
/// command that reproduces it: exit 1, or 4 when the input cannot be written (the message
/// is printed first, so it is not lost).
fn report_failure(
    target: &Target,
    failure: &runner::Failure,
    seed: u64,
    out: &Path,
) -> Result<i32, CliError> {
    diag!(
        "error: fuzz {}: the check failed (worker {}, drawing from seed {}):\n{}",
        target.name,
        failure.worker,
        seed.wrapping_add(failure.worker as u64),
        failure.message
    );
    let path = out.join(format!(
        "{}-{:016x}.bin",
        target.name,
        runner::hash(&failure.input)
    ));
    std::fs::create_dir_all(out)
        .map_err(|e| CliError::new(exit::IO, format!("{}: {e}", out.display())))?;
    io::write_bytes(Some(&path), &failure.input)?;
    diag!(
        "input: {} ({} bytes)\nreproduce: strata fuzz {} --reproduce {}",
        path.display(),
        failure.input.len(),
        target.name,
        path.display()
    );
    Ok(exit::INPUT)
}

/// Runs the check once on `file`'s bytes.
fn reproduce(target: &Target, file: &Path) -> Result<i32, CliError> {
    let data = read_input(file)?;
    match runner::run_once(target, &data) {
        Ok(()) => {
            println_checked(&format!(
                "fuzz {}: {} ({} bytes) passes",
                target.name,
                io::input_name(file),
                data.len()
            ))?;
            Ok(exit::OK)
        }
        Err(message) => {
            diag!(
                "error: fuzz {}: the check fails on {}:\n{message}",
                target.name,
                io::input_name(file)
            );
            Ok(exit::INPUT)
        }
    }
}

/// The bytes of `path` (standard input for `-`), any bytes (NUL included: unlike IR text, a
/// fuzz input is binary), at most [`io::MAX_INPUT_BYTES`].
fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    use std::io::Read as _;
    let name = io::input_name(path);
    let limit = io::MAX_INPUT_BYTES;
    let mut data = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut data)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut data))
    };
    read.map_err(|e| CliError::new(exit::IO, format!("{name}: {e}")))?;
    if data.len() as u64 > limit {
        return Err(CliError::new(
            exit::INPUT,
            format!("{name}: input larger than the limit of {limit} bytes"),
        ));
    }
    Ok(data)
}

/// [`runner::run`] with a progress line on stderr when it is a terminal.
fn run_with_progress(target: &Target, opts: &RunOptions) -> Result<RunSummary, CliError> {
    use std::io::IsTerminal as _;
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::with_draw_target(
            None,
            indicatif::ProgressDrawTarget::stderr_with_hz(1),
        );
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg}").expect("valid progress template"),
        );
        Some(bar)
    } else {
        None
    };
    // indicatif's rate limit lets a burst through at the start: redraw on whole seconds.
    let mut shown = 0;
    let mut tick = |executions: u64, elapsed: Duration| {
        let Some(bar) = &bar else { return };
        if elapsed.as_secs() <= shown {
            return;
        }
        shown = elapsed.as_secs();
        bar.set_message(format!(
            "fuzz {}: {executions} executions, {shown}/{} s, {:.0} execs/s",
            target.name,
            opts.duration.as_secs(),
            executions as f64 / elapsed.as_secs_f64()
        ));
    };
    let summary =
        runner::run(target, opts, &mut tick).map_err(|e| CliError::new(exit::IO, e.to_string()));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    summary
}

/// The summary line: system, executions, seconds, execs/s, seed, jobs.
fn print_summary(target: &Target, summary: &RunSummary, opts: &RunOptions) {
    let line = format!(
        "fuzz {}: {} executions in {:.2} s, {:.0} execs/s, seed {}, {} jobs{}",
        target.name,
        summary.executions,
        summary.elapsed.as_secs_f64(),
        summary.execs_per_second(),
        opts.seed,
        opts.jobs,
        if summary.failure.is_some() {
            ", 1 failure"
        } else {
            ", no failure"
        }
    );
    // The exit code already says what happened; a summary that cannot be written is dropped.
    let _ = println_checked(&line);
}

/// Writes `line` and a newline to stdout, checking the write.
fn println_checked(line: &str) -> Result<(), CliError> {
    io::write_bytes(None, format!("{line}\n").as_bytes())
}

/// A seed from the clock and the process id, for runs without `--seed`.
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    runner::hash(&(nanos ^ u64::from(std::process::id()).rotate_left(32)).to_le_bytes())
}

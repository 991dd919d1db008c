//! The `strata` command line: `compile`, `verify`, `run`, `bench`, `place` and `fuzz` (clap).
//!
//! Exit codes (also in `--help`): 0 success; 1 the input has errors (parse or verification
//! failures, invalid UTF-8, a pass reporting an error); 2 usage errors (bad flags, unknown or
//! unavailable passes, an empty `--passes` entry); 3 the interpreter stopped the program
//! (`run`: a fault, a limit, an unsupported external; a program that finishes exits with its
//! own status, as under `lli`); 4 I/O errors (a path that cannot be read, an output that cannot be written). `bench` runs
//! every input it can and exits 4 if some path could not be read, else 1 if some file or
//! function failed, else 0. `fuzz` exits 1 when a check fails (the input is written, with
//! the command that reproduces it).
//!
//! Faults lose nothing ([`io`]): outputs are written atomically and every write is checked;
//! `compile` writes nothing when a function fails (unless `--keep-going`); `bench` reports
//! every failure (file, function, stage, message) and runs the rest.

/// `eprintln!` that cannot panic (std's panics when stderr fails, as with `2>/dev/full`): a
/// diagnostic that cannot be written is dropped; the exit code still tells what happened.
macro_rules! diag {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that cannot panic (see `diag!`).
macro_rules! diag_part {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod bench;
mod compile;
mod corpus;
#[cfg(feature = "fuzzing")]
mod fuzz;
pub mod io;
pub mod llvm_reference;
pub mod machine;
mod place;
mod run;

use crate::engine::{Pass, PassSet};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

/// Process exit codes.
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// The input has errors.
    pub const INPUT: i32 = 1;
    /// Usage error.
    pub const USAGE: i32 = 2;
    /// The interpreted program failed.
    pub const RUNTIME: i32 = 3;
    /// I/O error.
    pub const IO: i32 = 4;
}

/// A failure that ends the command with an exit code.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    /// Exit code.
    pub code: i32,
    /// Message printed to stderr.
    pub message: String,
}

impl CliError {
    /// Error with `code`.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        CliError {
            code,
            message: message.into(),
        }
    }
}

const ABOUT: &str = "strata: a data-oriented compiler middle and back end on bevy_ecs.

Functions in memory form (allocas, loads, stores) flow through a staged schedule: verify, cfg,
dominance, mem2reg, sccp, placement, out-of-SSA, lower, regalloc, check. Input is strata's
text IR (.sir) or LLVM 14 textual IR (.ll) as clang -O0 emits it.";

/// Top-level arguments.
#[derive(Parser, Debug)]
#[command(name = "strata", version, about = ABOUT, long_about = ABOUT)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Output format of `compile`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// strata text IR.
    Sir,
    /// JSON: per-function statistics, diagnostics and timings.
    Json,
    /// LLVM 14 textual IR (SSA-phase functions: lli and opt accept it).
    Ll,
    /// Machine text after lowering (needs `--target`).
    Machine,
    /// Allocated machine code with the allocator's moves (needs `--target`).
    Alloc,
}

/// Input format.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// strata text IR.
    Sir,
    /// LLVM 14 textual IR, the subset clang -O0 emits for C (typed pointers).
    Ll,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the pipeline on every function of FILE and print the result.
    Compile(compile::CompileArgs),
    /// Parse and verify FILE; exit 0 if valid, 1 with the errors otherwise.
    Verify {
        /// Input file (`-` for stdin).
        file: PathBuf,
        /// Input format (default: from the extension, else from the content).
        #[arg(long, value_enum)]
        input_format: Option<InputFormat>,
        /// For `.ll` input: a function the importer must skip is an error.
        #[arg(long)]
        strict: bool,
    },
    /// Interpret a function of FILE as `lli` runs a program: its output on stdout, `=> RESULT`
    /// on stderr, and its status (`exit`'s code, else main's integer result, low 8 bits) as
    /// the exit code.
    Run(run::RunArgs),
    /// Batch driver: parse, verify and analyse every function of PATHS on all cores, with
    /// per-pass timings. Without PATHS it runs a built-in corpus embedded in the binary. A
    /// file that cannot be read or parsed, or a function that fails, is listed (also in the
    /// JSON `failures`) and the rest runs; exit 4 if a path could not be read, else 1 if
    /// anything failed.
    Bench(bench::BenchArgs),
    /// Place a placement problem (or every function of a `.sir`/`.ll` module under a target
    /// model) and print the assignment, the exact cost, the islands and the island graph.
    Place(place::PlaceArgs),
    /// Run a system's fuzz check (the one `fuzz/fuzz_targets/SYSTEM.rs` runs under
    /// cargo-fuzz) on random inputs on every core, on stable Rust, printing executions per
    /// second; on a failure write the input to OUT, print the command that reproduces it and
    /// exit 1.
    #[cfg(feature = "fuzzing")]
    Fuzz(fuzz::FuzzArgs),
}

fn passes_help() -> String {
    let mut s = String::from("Passes (for --passes and --dump-after):\n");
    for p in Pass::ALL {
        let info = p.info();
        s.push_str(&format!(
            "  {:<13} {}{}\n",
            info.name,
            info.summary,
            if info.available {
                ""
            } else {
                "  [unavailable: not built yet]"
            }
        ));
    }
    s.push_str("  none          run no pass (parse and print only)\n");
    s.push_str(
        "Passes run in the order above, whatever order --passes names them in: `verify` checks \
         the input. To check after every transforming pass use --verify-each; `compile` always \
         verifies its output.\n\n",
    );
    s.push_str(
        "Exit codes: 0 success, 1 input has errors, 2 usage error, 3 the interpreter stopped the \
         program, 4 I/O error; a program `run` finishes exits with its own status, as under lli; \
         fuzz exits 1 when a check fails.\n\
         bench runs every input it can, lists each failure (file, function, stage, message) and \
         exits 4 if some path could not be read, else 1 if some file or function failed, else 0.\n\
         Output files (-o, --json) are replaced only when complete; on an error the old file stays.\n",
    );
    s
}

/// Parses `--passes` (default: [`PassSet::default_pipeline`]). An empty list or an empty
/// entry (`--passes ""`, `mem2reg,,sccp`, a trailing comma) is a usage error: `none` says
/// "no pass" explicitly.
pub fn parse_passes(list: Option<&str>) -> Result<PassSet, CliError> {
    match list {
        None => Ok(PassSet::default_pipeline()),
        Some(l) => {
            if l.split(',').any(|name| name.trim().is_empty()) {
                return Err(CliError::new(
                    exit::USAGE,
                    format!(
                        "--passes `{l}`: empty pass name (give a comma-separated list, or `none`)"
                    ),
                ));
            }
            PassSet::parse(l).map_err(|e| CliError::new(exit::USAGE, e.to_string()))
        }
    }
}

/// A module read from a file, with what LLVM export needs if it came from `.ll`.
pub struct Loaded {
    /// The module.
    pub module: crate::ir::Module,
    /// Set for `.ll` input: what the IR drops that export restores.
    pub llvm: Option<crate::llvm::LlvmContext>,
    /// Functions the importer skipped (they stay declarations and are re-emitted verbatim).
    pub skipped: usize,
}

/// The input format of `path` whose bytes are `bytes`: `format` if given, else by extension
/// (`.ll`, `.sir`), else by content ([`io::sniff_format`]), else sir.
pub fn input_format(path: &Path, format: Option<InputFormat>, bytes: &[u8]) -> InputFormat {
    format
        .or_else(|| io::format_of_extension(path))
        .or_else(|| io::sniff_format(bytes))
        .unwrap_or(InputFormat::Sir)
}

/// Reads `path` (standard input for `-`) as IR text: the text and its format (see
/// [`input_format`]).
pub fn read_module_text(
    path: &Path,
    format: Option<InputFormat>,
) -> Result<(String, InputFormat), CliError> {
    let bytes = io::read_bytes(path)?;
    let format = input_format(path, format, &bytes);
    Ok((io::decode(bytes, &io::input_name(path), format)?, format))
}

/// Parses a module from `path` (standard input for `-`), choosing the format by `format`,
/// the extension or the content ([`input_format`]). Malformed input (including an imported
/// function the verifier rejects) is an error. For `.ll`, functions using valid constructs
/// the importer cannot represent are skipped with a warning naming them, their line and the
/// reason; with `strict` the first such function is an error.
pub fn load_module(
    path: &Path,
    format: Option<InputFormat>,
    strict: bool,
) -> Result<Loaded, CliError> {
    let options = crate::llvm::ImportOptions {
        strict,
        ..Default::default()
    };
    load_module_with(path, format, &options)
}

/// [`load_module`] with all the `.ll` import options (the text is freed once imported).
pub fn load_module_with(
    path: &Path,
    format: Option<InputFormat>,
    options: &crate::llvm::ImportOptions,
) -> Result<Loaded, CliError> {
    let (text, format) = read_module_text(path, format)?;
    load_text_with(&text, &io::input_name(path), format, options)
}

/// [`load_module`] on text already read (`name` names it in messages).
pub fn load_text(
    text: &str,
    name: &str,
    format: InputFormat,
    strict: bool,
) -> Result<Loaded, CliError> {
    let options = crate::llvm::ImportOptions {
        strict,
        ..Default::default()
    };
    load_text_with(text, name, format, &options)
}

/// [`load_text`] with all the `.ll` import options.
fn load_text_with(
    text: &str,
    name: &str,
    format: InputFormat,
    options: &crate::llvm::ImportOptions,
) -> Result<Loaded, CliError> {
    let loaded = parse_text(text, name, format, options)?;
    let errors = crate::verify::verify_globals(&loaded.module);
    if !errors.is_empty() {
        for e in &errors {
            diag!("{name}: error: {e}");
        }
        return Err(CliError::new(
            exit::INPUT,
            format!("{name}: {} errors in global initialisers", errors.len()),
        ));
    }
    Ok(loaded)
}

/// Parses or imports `text` (named `name` in messages) as `format`; see [`load_module`].
fn parse_text(
    text: &str,
    name: &str,
    format: InputFormat,
    options: &crate::llvm::ImportOptions,
) -> Result<Loaded, CliError> {
    let strict = options.strict;
    match format {
        InputFormat::Sir => crate::text::parse_module(text, name)
            .map(|module| Loaded {
                module,
                llvm: None,
                skipped: 0,
            })
            .map_err(|e| CliError::new(exit::INPUT, e.to_string())),
        InputFormat::Ll => {
            let imported = crate::llvm::import(text, name, options)
                .map_err(|e| CliError::new(exit::INPUT, e.to_string()))?;
            imported
                .verify()
                .map_err(|e| CliError::new(exit::INPUT, e.to_string()))?;
            for s in &imported.skipped {
                diag!(
                    "{name}:{}: warning: skipped @{}: {}",
                    s.line,
                    s.name,
                    s.reason
                );
            }
            for w in &imported.context.warnings {
                diag!("warning: {w}");
            }
            if strict && !imported.skipped.is_empty() {
                return Err(CliError::new(
                    exit::INPUT,
                    format!(
                        "{name}: {} functions skipped (--strict)",
                        imported.skipped.len()
                    ),
                ));
            }
            Ok(Loaded {
                skipped: imported.skipped.len(),
                module: imported.module,
                llvm: Some(imported.context),
            })
        }
    }
}

/// Writes `text` to `path`, or stdout when `None`, atomically and with every error checked
/// (see [`io::write_output`]).
pub fn write_output(path: Option<&Path>, text: &str) -> Result<(), CliError> {
    io::write_output(path, text)
}

/// Parses the process arguments and runs the command; returns the exit code.
pub fn main() -> i32 {
    let command = Cli::command()
        .after_help(passes_help())
        .mut_subcommand("compile", |c| c.after_help(passes_help()))
        .mut_subcommand("bench", |c| c.after_help(passes_help()));
    let matches = command.get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Compile(args) => compile::compile(args),
        Command::Verify {
            file,
            input_format,
            strict,
        } => compile::verify(&file, input_format, strict),
        Command::Run(args) => run::run(args),
        Command::Bench(args) => bench::bench(args),
        Command::Place(args) => place::place(args),
        #[cfg(feature = "fuzzing")]
        Command::Fuzz(args) => fuzz::fuzz(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            diag!("error: {}", e.message);
            e.code
        }
    }
}

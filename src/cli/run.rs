//! `strata run`: interpret one function, as `lli` runs a program.
//!
//! Standard output gets exactly the bytes the program wrote to it (`printf`, `puts`,
//! `write(1, ...)`, ...), standard error what it wrote there (`fprintf(stderr, ...)`, ...)
//! followed by the entry's result as `=> RESULT` (`=> exit N` after `exit`). The C library
//! functions the interpreter provides are listed in `strata run --help`. The exit status is the program's, as `lli` gives it: the low 8 bits of the
//! code passed to `exit`, else of the entry's integer result (0 for `void`, floats, pointers
//! and aggregates). A run the interpreter stops (a fault, a limit, an unsupported external)
//! exits 3 with the error on standard error, which a program returning 3 also does: the
//! `error:` line tells them apart.

use super::{exit, load_module, CliError, InputFormat};
use crate::interp::{self, Val};
use std::path::PathBuf;

/// Arguments of `run`.
#[derive(clap::Args, Debug)]
#[command(after_help = run_help())]
pub struct RunArgs {
    /// Input file (`-` for stdin).
    pub file: PathBuf,
    /// The function to call.
    #[arg(long, default_value = "main")]
    pub entry: String,
    /// Arguments, one per parameter, parsed by the parameter's type (`5`, `-1`, `2.5`).
    #[arg(allow_negative_numbers = true)]
    pub args: Vec<String>,
    /// Maximum instructions executed before the run is stopped with an error.
    #[arg(long, default_value_t = 100_000_000)]
    pub step_limit: u64,
    /// Maximum depth of nested calls (the entry call is depth 1); deeper is an error (exit 3).
    #[arg(long, value_name = "N", default_value_t = interp::Config::default().call_depth_limit)]
    pub call_depth_limit: u32,
    /// Input format (default: from the extension, else from the content).
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormat>,
}

/// `strata run FILE --entry NAME ARGS...`: verifies the module, interprets `entry`, writes the
/// program's output to stdout and a `=> RESULT` line (or `=> exit N`) to stderr; returns the
/// program's exit status (see the module doc).
pub fn run(run_args: RunArgs) -> Result<i32, CliError> {
    let RunArgs {
        file,
        entry,
        args,
        step_limit,
        call_depth_limit,
        input_format,
    } = run_args;
    if call_depth_limit == 0 {
        return Err(CliError::new(
            exit::USAGE,
            "--call-depth-limit must be at least 1 (the entry call is depth 1)",
        ));
    }
    let (file, entry) = (file.as_path(), entry.as_str());
    let loaded = load_module(file, input_format, false)?;
    let module = loaded.module;
    let errors = crate::verify::verify_module(&module);
    if !errors.is_empty() {
        for e in &errors {
            diag!("{}: error: {e}", super::io::input_name(file));
        }
        return Ok(exit::INPUT);
    }
    let f = module.function(entry).ok_or_else(|| {
        CliError::new(
            exit::USAGE,
            format!("{}: no function @{entry}", super::io::input_name(file)),
        )
    })?;
    let params = &f.signature.params;
    if args.len() != params.len() {
        return Err(CliError::new(
            exit::USAGE,
            format!(
                "@{entry} takes {} arguments, {} given",
                params.len(),
                args.len()
            ),
        ));
    }
    let vals = params
        .iter()
        .zip(&args)
        .enumerate()
        .map(|(i, (&ty, a))| {
            Val::parse(ty, a.as_str())
                .map_err(|e| CliError::new(exit::USAGE, format!("argument {i}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let config = interp::Config {
        step_limit,
        call_depth_limit,
        // The external-call trace is for oracles comparing runs; `run` prints the output only.
        record_trace: false,
        ..Default::default()
    };
    let mut interpreter = interp::Interpreter::new(&module, config);
    // A global whose initialiser the importer could not evaluate holds zeros in the module:
    // reading it stops the run instead of computing with them.
    if let Some(context) = &loaded.llvm {
        interpreter.mark_unknown_globals(&context.unevaluated);
    }
    match interpreter.call(entry, &vals) {
        Ok(outcome) => {
            super::io::write_bytes(None, &outcome.output)?;
            {
                use std::io::Write as _;
                let _ = std::io::stderr().write_all(&outcome.error_output);
            }
            diag!("=> {}", result_text(&outcome));
            Ok(exit_status(&outcome))
        }
        Err(e) => Err(CliError::new(
            exit::RUNTIME,
            format!("{}: @{entry}: {e}", super::io::input_name(file)),
        )),
    }
}

/// The `=> ...` text for the run's end: `exit N`, the result value, `{ members }` or `void`.
fn result_text(outcome: &interp::Outcome) -> String {
    match (outcome.exit_code, outcome.result) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(v)) => v.to_string(),
        (None, None) if !outcome.result_members.is_empty() => {
            let ms: Vec<String> = outcome
                .result_members
                .iter()
                .map(|m| m.to_string())
                .collect();
            format!("{{ {} }}", ms.join(", "))
        }
        (None, None) => "void".to_string(),
    }
}

/// The process status of a finished run, as `lli` gives it: the low 8 bits of `exit`'s code,
/// else of an integer result, else 0.
fn exit_status(outcome: &interp::Outcome) -> i32 {
    match (outcome.exit_code, outcome.result) {
        (Some(code), _) => code & 0xff,
        (None, Some(v @ Val::Int { .. })) => (v.as_u128() & 0xff) as i32,
        _ => exit::OK,
    }
}

/// `run --help`'s list of the C library functions and intrinsics the interpreter provides,
/// from the table it dispatches on.
fn run_help() -> String {
    format!(
        "External functions the interpreter provides (anything else stops the run, exit 3):{}",
        interp::externals_help()
    )
}

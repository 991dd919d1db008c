//! `strata run`: interpret one function.

use super::{exit, load_module, CliError};
use crate::interp::{self, Val};
use std::path::Path;

/// `strata run FILE --entry NAME ARGS...`: verifies the module, interprets `entry`, writes the
/// program's output to stdout followed by a `=> RESULT` line (or `=> exit N`).
pub fn run(file: &Path, entry: &str, args: &[String], step_limit: u64) -> Result<i32, CliError> {
    let module = load_module(file, None)?;
    let errors = crate::ir::verifier::verify_module(&module);
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("{}: error: {e}", file.display());
        }
        return Ok(exit::INPUT);
    }
    let f = module.function(entry).ok_or_else(|| {
        CliError::new(
            exit::USAGE,
            format!("{}: no function @{entry}", file.display()),
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
        .zip(args)
        .enumerate()
        .map(|(i, (&ty, a))| {
            Val::parse(ty, a).map_err(|e| CliError::new(exit::USAGE, format!("argument {i}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let config = interp::Config {
        step_limit,
        ..Default::default()
    };
    match interp::run(&module, entry, &vals, config) {
        Ok(outcome) => {
            let mut text = String::from_utf8_lossy(&outcome.output).into_owned();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            match (outcome.exit_code, outcome.result) {
                (Some(code), _) => text.push_str(&format!("=> exit {code}\n")),
                (None, Some(v)) => text.push_str(&format!("=> {v}\n")),
                (None, None) => text.push_str("=> void\n"),
            }
            super::write_output(None, &text)?;
            Ok(exit::OK)
        }
        Err(e) => Err(CliError::new(
            exit::RUNTIME,
            format!("{}: @{entry}: {e}", file.display()),
        )),
    }
}

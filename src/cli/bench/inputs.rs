//! The inputs of `strata bench`: which files, and each one parsed or imported.
//!
//! [`collect_files`] walks the given paths with `walkdir` following symbolic links, with loop
//! detection (a loop is a warning, not followed), sorted by file name, and keeps every file
//! once (keyed by its canonical path); [`load`] parses a `.sir` or imports a `.ll` (timing the
//! parse alone) and [`global_failures`] checks a module's global initialisers.
//!
//! Invariants: the order of the files is a function of the paths and the file names only,
//! so every shard of a sharded run sees the same inputs in the same order.
//! Complexity: one walk of the trees, one canonicalisation per file; loading is linear in the
//! text.

use super::report::Failure;
use crate::cli::InputFormat;
use crate::ir::Module;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The files under `paths` (each given file, and the `.sir`/`.ll` files below each given
/// directory, sorted by name), each once; what cannot be walked goes to `failures`, loops to
/// `warnings`.
pub(super) fn collect_files(
    paths: &[PathBuf],
    failures: &mut Vec<Failure>,
    warnings: &mut Vec<String>,
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let wanted = |p: &Path| p.extension().is_some_and(|x| x == "sir" || x == "ll");
    for root in paths {
        if root.as_os_str() == "-" {
            if seen.insert(root.clone()) {
                files.push(root.clone());
            }
            continue;
        }
        let walk = walkdir::WalkDir::new(root)
            .follow_links(true)
            .sort_by_file_name();
        for entry in walk {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let path = e.path().unwrap_or(root).to_path_buf();
                    if let Some(ancestor) = e.loop_ancestor() {
                        let w = format!(
                            "{}: symbolic link loop back to {}, not followed",
                            path.display(),
                            ancestor.display()
                        );
                        diag!("warning: {w}");
                        warnings.push(w);
                        continue;
                    }
                    // Below a directory, only what would have been read matters.
                    if e.depth() > 0
                        && !wanted(&path)
                        && e.io_error()
                            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
                    {
                        continue;
                    }
                    let message = match e.io_error() {
                        Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
                            "no such file or directory (or a dangling symbolic link)".to_string()
                        }
                        Some(io) => io.to_string(),
                        None => e.to_string(),
                    };
                    failures.push(Failure::file(path.display().to_string(), "read", message));
                    continue;
                }
            };
            let path = entry.path();
            let ty = entry.file_type();
            if ty.is_dir() || (entry.depth() > 0 && !wanted(path)) {
                continue;
            }
            if !ty.is_file() {
                failures.push(Failure::file(
                    path.display().to_string(),
                    "read",
                    "not a regular file",
                ));
                continue;
            }
            let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            if seen.insert(key) {
                files.push(path.to_path_buf());
            }
        }
    }
    files
}

/// An input: its name, the file (for `opt`) and its text.
pub(super) struct Source {
    /// The path as given, or `builtin:NAME`.
    pub name: String,
    /// The file, for `opt`.
    pub path: Option<PathBuf>,
    /// The module's text.
    pub text: String,
    /// How to read it.
    pub format: InputFormat,
}

/// Why an input did not load: its `.sir` text does not parse, or its `.ll` text does not
/// import or verify (each error names the file and position).
#[derive(Debug, thiserror::Error)]
pub(super) enum LoadError {
    /// The `.sir` parser's error.
    #[error(transparent)]
    Sir(#[from] crate::text::ParseError),
    /// The LLVM importer's or its verifier's error.
    #[error(transparent)]
    Ll(#[from] crate::llvm::ImportError),
}

/// A module as loaded: the functions the importer skipped, the importer's warnings (each
/// names what it could not evaluate, e.g. a global's initialiser) and the parse seconds.
pub(super) struct LoadedModule {
    pub module: Module,
    pub skipped: usize,
    pub warnings: Vec<String>,
    pub seconds: f64,
}

/// A loaded input, or why it did not load.
pub(super) type Loaded = Result<LoadedModule, LoadError>;

/// Parses or imports one source; see [`Loaded`].
pub(super) fn load(source: &Source) -> Loaded {
    let start = Instant::now();
    match source.format {
        InputFormat::Sir => {
            let module = crate::text::parse_module(&source.text, &source.name)?;
            Ok(LoadedModule {
                module,
                skipped: 0,
                warnings: Vec::new(),
                seconds: start.elapsed().as_secs_f64(),
            })
        }
        InputFormat::Ll => {
            let options = crate::llvm::ImportOptions::default();
            let imported = crate::llvm::import(&source.text, &source.name, &options)?;
            let seconds = start.elapsed().as_secs_f64();
            // Not timed: LLVM's `Parse IR` does not include its verifier either.
            imported.verify()?;
            Ok(LoadedModule {
                skipped: imported.skipped.len(),
                warnings: imported.context.warnings,
                module: imported.module,
                seconds,
            })
        }
    }
}

/// The failures of a module's global initialisers (see `verify_globals`).
pub(super) fn global_failures(module: &Module, file: &str) -> Vec<Failure> {
    crate::verify::verify_globals(module)
        .into_iter()
        .map(|e| Failure::file(file, "globals", e.to_string()))
        .collect()
}

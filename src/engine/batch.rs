//! Running many functions through per-thread engines in parallel (rayon).
//!
//! Each rayon worker uses its own [`Engine`] from [`with_thread_engine`]; results come back in
//! input order, so output is deterministic whatever the thread count. A panic inside the
//! pipeline (a bug) loses only that function's result: it is reported as an internal error
//! and the worker builds a fresh engine.

use super::{with_thread_engine, FunctionRun, PipelineConfig};
use crate::ir::{Function, SymbolTable};
use rayon::prelude::*;
use std::sync::Arc;

/// Runs every function through the pipeline in parallel; results are in input order.
/// `on_done` is called once per finished function (for progress bars), from any thread.
pub fn run_functions(
    functions: Vec<Function>,
    symbols: &Arc<SymbolTable>,
    config: &PipelineConfig,
    on_done: &(dyn Fn() + Sync),
) -> Vec<Result<FunctionRun, String>> {
    functions
        .into_par_iter()
        .map(|f| {
            let name = f.name.clone();
            let r = with_thread_engine(config, |engine| engine.run(f, symbols))
                .map_err(|panic| format!("function @{name}: internal error: {panic}"));
            on_done();
            r
        })
        .collect()
}

//! Running many functions through per-thread engines in parallel (rayon).
//!
//! Each rayon worker uses its own [`Engine`](super::Engine) from [`with_thread_engine`]; results come back in
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

/// Runs every function of `functions` (copied into the workers' engines:
/// [`Engine::run_copy`](super::Engine::run_copy)) through the pipeline in parallel and
/// returns `summarize(run)` for each, in input order. Copying, running, and dropping the
/// resulting function all happen on the worker threads, so the caller's thread does no
/// per-function allocation work; this is what lets batch runs scale across cores.
pub fn map_functions<T: Send>(
    functions: &[Function],
    symbols: &Arc<SymbolTable>,
    config: &PipelineConfig,
    on_done: &(dyn Fn() + Sync),
    summarize: &(dyn Fn(FunctionRun) -> T + Sync),
) -> Vec<Result<T, String>> {
    functions
        .par_iter()
        .map(|f| {
            let r = with_thread_engine(config, |engine| summarize(engine.run_copy(f, symbols)))
                .map_err(|panic| format!("function @{}: internal error: {panic}", f.name));
            on_done();
            r
        })
        .collect()
}

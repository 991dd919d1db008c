//! Running many functions through per-thread engines in parallel (rayon).
//!
//! Each rayon worker uses its own [`Engine`](super::Engine) from [`with_thread_engine`]; results come back in
//! input order, so output is deterministic whatever the thread count. A panic inside the
//! pipeline (a bug) loses only that function's result: it is reported as an internal error
//! and the worker builds a fresh engine.

use super::{with_thread_engine, FunctionRun, PipelineConfig, RunReport};
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

/// Runs every function of `functions` (copied into the workers' engines) through the
/// pipeline in parallel and returns `summarize(result, report)` for each, in input order.
/// Each worker copies its results into one function it keeps
/// ([`Engine::run_copy_into`](super::Engine::run_copy_into)), so `result` is lent to
/// `summarize` and overwritten by the worker's next function: once warm, a worker
/// allocates and frees nothing per function for the function itself. Copying, running
/// and summarizing all happen on the worker threads, so the caller's thread does no
/// per-function work; this is what lets batch runs scale across cores.
pub fn map_functions<T: Send>(
    functions: &[Function],
    symbols: &Arc<SymbolTable>,
    config: &PipelineConfig,
    on_done: &(dyn Fn() + Sync),
    summarize: &(dyn Fn(&Function, RunReport) -> T + Sync),
) -> Vec<Result<T, String>> {
    thread_local! {
        static RESULT: std::cell::RefCell<Function> = std::cell::RefCell::new(Function::default());
    }
    functions
        .par_iter()
        .map(|f| {
            let r = RESULT.with(|result| {
                let mut result = result.borrow_mut();
                with_thread_engine(config, |engine| {
                    let report = engine.run_copy_into(f, symbols, &mut result);
                    summarize(&result, report)
                })
            });
            let r = r.map_err(|panic| format!("function @{}: internal error: {panic}", f.name));
            on_done();
            r
        })
        .collect()
}

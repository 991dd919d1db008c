//! Running many functions through per-thread engines in parallel (rayon).
//!
//! Each rayon worker uses its own [`Engine`](super::Engine) from [`with_thread_engine`] and
//! takes the functions in batches of [`batch_size`] (one run of the schedule per batch);
//! results come back in input order, so output is deterministic whatever the thread count.
//! A panic inside the pipeline (a bug) loses only that function's result: the worker builds
//! a fresh engine, the batch runs again one function at a time, and the function that
//! panicked is reported as an internal error.

use super::{
    batch_size, with_thread_engine, FunctionRun, InternalError, Panicked, PipelineConfig, RunReport,
};
use crate::ir::{Function, SymbolTable};
use rayon::prelude::*;
use std::sync::Arc;

/// Runs every function through the pipeline in parallel; results are in input order.
/// Functions go to the engines in batches of [`batch_size`] (one run of the schedule per
/// batch: [`Engine::run_batch`](super::Engine::run_batch), the results copied into new
/// functions); a batch that panics (a bug) is
/// run again one function at a time, so only the function that raised it is lost.
/// `on_done` is called once per finished function (for progress bars), from any thread.
pub fn run_functions(
    functions: &[Function],
    symbols: &Arc<SymbolTable>,
    config: &PipelineConfig,
    on_done: &(dyn Fn() + Sync),
) -> Vec<Result<FunctionRun, InternalError>> {
    in_batches(functions, config, on_done, &|chunk| {
        with_thread_engine(config, |engine| {
            let refs: Vec<&Function> = chunk.iter().collect();
            let mut results = Vec::with_capacity(refs.len());
            let reports = engine.run_batch(&refs, symbols, &mut results);
            results
                .into_iter()
                .zip(reports)
                .map(|(function, report)| FunctionRun::new(function, report))
                .collect()
        })
    })
}

/// Runs every function of `functions` (copied into the workers' engines) through the
/// pipeline in parallel and returns `summarize(result, report)` for each, in input order.
/// Functions go to the engines in batches of [`batch_size`] (one run of the schedule per
/// batch: [`Engine::run_batch`](super::Engine::run_batch)). Each worker
/// copies its results into functions it keeps, so `result` is lent to `summarize` and
/// overwritten by the worker's next batch: once warm, a worker allocates and frees nothing
/// per function for the function itself. Copying, running and summarizing all happen on
/// the worker threads, so the caller's thread does no per-function work; this is what lets
/// batch runs scale across cores. A panic inside the pipeline (a bug) costs only the
/// function that raised it: the batch is run again one function at a time to find it.
pub fn map_functions<T: Send>(
    functions: &[Function],
    symbols: &Arc<SymbolTable>,
    config: &PipelineConfig,
    on_done: &(dyn Fn() + Sync),
    summarize: &(dyn Fn(&Function, RunReport) -> T + Sync),
) -> Vec<Result<T, InternalError>> {
    map_functions_in_world(functions, symbols, config, on_done, &|f, report, _| {
        summarize(f, report)
    })
}

/// [`map_functions`] whose `summarize` also gets the worker engine's World after the batch:
/// the machine stages leave their results there (the lowered function's rows, the
/// allocation), and with machine passes a batch is one function ([`batch_size`]), so the
/// World holds exactly that function's. The machine driver takes them out this way, so the
/// machine stages run through the same batch driver as the rest.
pub fn map_functions_in_world<T: Send>(
    functions: &[Function],
    symbols: &Arc<SymbolTable>,
    config: &PipelineConfig,
    on_done: &(dyn Fn() + Sync),
    summarize: &(dyn Fn(&Function, RunReport, &mut bevy_ecs::world::World) -> T + Sync),
) -> Vec<Result<T, InternalError>> {
    thread_local! {
        static RESULTS: std::cell::RefCell<Vec<Function>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    in_batches(functions, config, on_done, &|chunk| {
        RESULTS.with(|results| {
            let mut results = results.borrow_mut();
            with_thread_engine(config, |engine| {
                let refs: Vec<&Function> = chunk.iter().collect();
                let reports = engine.run_batch(&refs, symbols, &mut results);
                reports
                    .into_iter()
                    .zip(results.iter())
                    .map(|(report, result)| summarize(result, report, engine.world_mut()))
                    .collect()
            })
        })
    })
}

/// Runs one batch: a result per function, or the panic that stopped it.
type BatchRun<'a, T> = dyn Fn(&[Function]) -> Result<Vec<T>, Panicked> + Sync + 'a;

/// Splits `functions` into batches of [`batch_size`] spread over rayon's workers, calls
/// `run` on each (one result per function, or a panic message), and returns the results in
/// input order. A batch whose run panicked is run again one function at a time, so the
/// panic costs only the function that raised it (reported as an internal error naming it).
fn in_batches<T: Send>(
    functions: &[Function],
    config: &PipelineConfig,
    on_done: &(dyn Fn() + Sync),
    run: &BatchRun<'_, T>,
) -> Vec<Result<T, InternalError>> {
    functions
        .par_chunks(batch_size(config))
        .flat_map_iter(|chunk| {
            let internal = |f: &Function, panic| InternalError {
                function: f.name.clone(),
                panic,
            };
            let results: Vec<Result<T, InternalError>> = match run(chunk) {
                Ok(done) => done.into_iter().map(Ok).collect(),
                Err(_) if chunk.len() > 1 => chunk
                    .iter()
                    .map(|f| {
                        run(std::slice::from_ref(f))
                            .map(|mut one| one.remove(0))
                            .map_err(|panic| internal(f, panic))
                    })
                    .collect(),
                Err(panic) => vec![Err(internal(&chunk[0], panic))],
            };
            for _ in chunk {
                on_done();
            }
            results
        })
        .collect()
}

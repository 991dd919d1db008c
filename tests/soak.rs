//! Soak test (DESIGN.md 2, rule 10): 10,000 functions through one engine with pooled entities.
//! Entity count stays bounded and every result equals the result of a fresh engine on the same
//! function (and verifies: debug builds verify after every transforming pass).

use std::sync::Arc;
use strata::engine::{Engine, PassSet, PipelineConfig};
use strata::fuzzing::generate::{seeded, GenOptions};
use strata::ir::SymbolTable;

#[test]
fn ten_thousand_functions_through_one_engine() {
    let config = PipelineConfig::new(PassSet::default_pipeline());
    let symbols = Arc::new(SymbolTable::default());
    let mut engine = Engine::new(config.clone());
    let transforms = config.passes.passes().any(|p| p.info().transforms);
    let opts = GenOptions::default();
    let mut max_capacity = 0;
    let mut largest_seen = 0;
    for i in 0..10_000u64 {
        let f = seeded(i, &opts);
        let reused = engine.run(f.clone(), &symbols);
        // Pooling: the tables keep the rows of the largest function so far, plus the spare
        // rows passes asked for (upper bounds on what they create): at least this function's
        // input and output size, and within a small factor of the largest.
        let input = f.blocks.len() + f.insts.len();
        let output = reused.function.blocks.len() + reused.function.insts.len();
        largest_seen = largest_seen.max(input.max(output));
        let pooled = engine.function_entity_count() as usize;
        assert!(
            input <= pooled && output <= pooled && pooled <= 4 * largest_seen + 16,
            "function {i}: entities leaked or missing ({pooled} pooled, {input} in, {output} out)"
        );
        // One dense table per entity kind, row i = dense index i (DESIGN.md 2, rule 4).
        strata::engine::world::check_dense(engine.world_mut());
        max_capacity = max_capacity.max(engine.entity_capacity());
        // Every 97th function: compare with a fresh engine, and with the input.
        if i % 97 == 0 {
            let fresh = Engine::new(config.clone()).run(f.clone(), &symbols);
            assert_eq!(reused.function, fresh.function, "function {i}");
            assert_eq!(reused.diagnostics, fresh.diagnostics, "function {i}");
            if !transforms {
                assert_eq!(reused.function, f, "analyses must not change function {i}");
            }
            assert!(
                !reused.has_errors(),
                "function {i}: {:?}",
                reused.diagnostics
            );
        }
    }
    // Entity ids are reused: capacity is bounded by the largest function, not by the total
    // (10,000 functions would leak about a million ids). bevy allocates ids in chunks, hence
    // the slack.
    let largest = (0..10_000u64)
        .map(|i| {
            let f = seeded(i, &opts);
            f.blocks.len() + f.insts.len()
        })
        .max()
        .unwrap() as u32;
    assert!(
        max_capacity <= 4 * largest + engine.entity_count() + 1024,
        "entity capacity {max_capacity} grew beyond the largest function ({largest})"
    );
}

/// `Engine::run_batch` of one function (rows left in the World, the result copied into one
/// reused function) gives exactly what `Engine::run` gives, whatever the engine ran before: sizes
/// grow and shrink, and every third function goes through `run` on the same engine, so
/// copy-out meets rows left by a move-out and the reverse.
#[test]
fn copied_results_equal_moved_results() {
    let config = PipelineConfig::new(PassSet::default_pipeline());
    let symbols = Arc::new(SymbolTable::default());
    let mut copying = Engine::new(config.clone());
    let mut moving = Engine::new(config.clone());
    let opts = GenOptions::default();
    let mut outs = Vec::new();
    for i in 0..2_000u64 {
        let f = seeded(i, &opts);
        let expected = moving.run(f.clone(), &symbols);
        if i % 3 == 2 {
            let run = copying.run(f.clone(), &symbols);
            assert_eq!(run.function, expected.function, "function {i} (moved out)");
            continue;
        }
        let report = copying.run_batch(&[&f], &symbols, &mut outs).remove(0);
        assert_eq!(outs[0], expected.function, "function {i} (copied out)");
        assert_eq!(report.diagnostics, expected.diagnostics, "function {i}");
        assert_eq!(report.stats, expected.stats, "function {i}");
        strata::engine::world::check_dense(copying.world_mut());
    }
}

/// An engine whose tables were reserved ahead (`Engine::reserve_rows`, as `strata bench`
/// does before its clock) gives the same results as one that grows them, keeps its tables
/// dense, and spawns nothing for functions within the reservation.
#[test]
fn reserved_rows_change_nothing() {
    let config = PipelineConfig::new(PassSet::default_pipeline());
    let symbols = Arc::new(SymbolTable::default());
    let opts = GenOptions::default();
    let functions: Vec<_> = (0..300u64).map(|i| seeded(i, &opts)).collect();
    let (blocks, insts) = functions.iter().fold((0, 0), |(b, i), f| {
        (b.max(f.blocks.len()), i.max(f.insts.len()))
    });
    let mut reserved = Engine::new(config.clone());
    reserved.reserve_rows(2 * blocks, 2 * insts);
    strata::engine::world::check_dense(reserved.world_mut());
    let pooled = reserved.function_entity_count();
    let mut growing = Engine::new(config);
    let mut outs = Vec::new();
    for (i, f) in functions.iter().enumerate() {
        let expected = growing.run(f.clone(), &symbols);
        let report = reserved.run_batch(&[f], &symbols, &mut outs).remove(0);
        assert_eq!(outs[0], expected.function, "function {i}");
        assert_eq!(report.diagnostics, expected.diagnostics, "function {i}");
        assert_eq!(
            reserved.function_entity_count(),
            pooled,
            "function {i} spawned rows"
        );
    }
    strata::engine::world::check_dense(reserved.world_mut());
}

/// Batches (`Engine::run_batch`: up to `batch_size` functions in their own slots,
/// one run of the schedule for all) give exactly what one run per function gives: the
/// function, diagnostics and statistics, whatever the batch sizes (full and partial), the
/// functions' sizes (growing and shrinking slot by slot) and an invalid function among them
/// (its slot stops after the verifier; the others go on).
#[test]
fn batched_results_equal_single_results() {
    let created = check_batches(PipelineConfig::new(PassSet::default_pipeline()), 2_400);
    assert!(
        created > 0,
        "phi elimination created no trampoline: nothing to check"
    );
}

/// The same with placement splitting blocks at target seams (under the filetests' model
/// where plain arithmetic goes to another target than memory and calls, so nearly every
/// function is cut) and block parameters instead of phi elimination: block rows created in
/// every slot.
#[test]
fn batched_block_creation_equals_single() {
    let passes = (PassSet::default_pipeline() - PassSet::PHI_ELIM) | PassSet::BLOCK_PARAMS;
    let mut config = PipelineConfig::new(passes);
    config.options.placement_split = true;
    config.options.placement_model = Some(Arc::from(include_str!(
        "filetests/placement/scalar_memory.toml"
    )));
    let created = check_batches(config, 800);
    assert!(
        created > 800,
        "only {created} blocks were created: nothing to check"
    );
}

/// Runs `count` generated functions through one engine in batches and through another one
/// at a time, and compares; returns how many blocks the passes created.
fn check_batches(config: PipelineConfig, count: u64) -> usize {
    let symbols = Arc::new(SymbolTable::default());
    let mut batched = Engine::new(config.clone());
    let mut single = Engine::new(config);
    let batch = batched.batch_size();
    assert!(batch > 1, "the pipeline runs in batches");
    let opts = GenOptions::default();
    let mut functions: Vec<_> = (0..count).map(|i| seeded(i, &opts)).collect();
    // Every 37th function jumps to a block that does not exist: the verifier rejects it.
    for f in functions.iter_mut().step_by(37) {
        let last = f.blocks.len() - 1;
        f.blocks[last].terminator =
            strata::ir::Terminator::Jump(strata::ir::Target::new(strata::ir::Block(9_999)));
    }
    let mut outs = Vec::new();
    let mut start = 0;
    let mut round = 0;
    let mut created = 0;
    while start < functions.len() {
        // Batch sizes cycle through 1..=batch, so slots see partial batches too.
        let n = (round % batch + 1).min(functions.len() - start);
        let chunk: Vec<_> = functions[start..start + n].iter().collect();
        let reports = batched.run_batch(&chunk, &symbols, &mut outs);
        assert_eq!(reports.len(), n);
        for (k, report) in reports.iter().enumerate() {
            let i = start + k;
            let expected = single.run(functions[i].clone(), &symbols);
            assert_eq!(outs[k], expected.function, "function {i} (slot {k})");
            assert_eq!(report.diagnostics, expected.diagnostics, "function {i}");
            assert_eq!(report.stats, expected.stats, "function {i}");
            assert_eq!(report.has_errors(), i % 37 == 0, "function {i}");
            if i % 37 == 0 {
                // Rejected by the verifier: no later pass ran on it (each reports statistics).
                assert!(report.stats.is_empty(), "function {i}: {:?}", report.stats);
            }
            created += expected
                .function
                .blocks
                .len()
                .saturating_sub(functions[i].blocks.len());
        }
        strata::engine::world::check_dense(batched.world_mut());
        start += n;
        round += 1;
    }
    eprintln!("{count} functions in batches: {created} blocks created by passes");
    created
}

use crate::engine::{Engine, PassSet, PipelineConfig};
use crate::placement::columns::*;
use crate::placement::UNPLACED;
use std::sync::Arc;

/// The pipeline's columns hold what `place_function` computes outside the World, one
/// row per block, for two functions in a row through one engine (pooled rows are
/// overwritten, not left from the first function).
#[test]
fn pipeline_columns_match_place_function() {
    let m = crate::text::parse_module(
        include_str!("../../../tests/filetests/placement/split_at_call.sir"),
        "split_at_call.sir",
    )
    .unwrap();
    let symbols = Arc::new(m.symbol_table());
    let model = crate::placement::targets::TargetModel::default_model();
    let mut engine = Engine::new(PipelineConfig::new(PassSet::PLACEMENT));
    for f in m.functions.iter().rev() {
        let expected = crate::placement::system::place_function(
            f,
            Some(&symbols),
            &model,
            &Default::default(),
            &mut Default::default(),
        )
        .unwrap()
        .blocks;
        engine.load(f.clone(), &symbols);
        engine.run_schedule();
        let rows = placement_of(engine.world_mut());
        let run = engine.take();
        assert!(!run.has_errors(), "{:?}", run.diagnostics);
        assert_eq!(rows, expected, "@{}", f.name);
        assert_eq!(rows.len(), f.blocks.len());
        assert!(rows.iter().all(|r| r.target != UNPLACED));
    }
}

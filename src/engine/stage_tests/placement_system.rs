//! Each placement system run alone in a [`Harness`] after the systems it requires,
//! judged on what it writes (against the direct computation where one exists).
use crate::analysis::{compute_cfg, compute_sccs};
use crate::engine::harness::Harness;
use crate::ir::{PerSlot, Phase};
use crate::placement::system::*;
use crate::placement::targets::TargetModel;
use crate::placement::TargetSet;
use crate::placement::{SolveOptions, Solver};
use crate::stage::PassSet;
use crate::stage::{Diagnostics, PassStats, PipelineConfig};
use bevy_ecs::prelude::*;
use std::sync::Arc;

/// A loop around a call (pieces the call pins to the interpreter, arithmetic free to
/// move) and a memory access.
const SIR: &str = "
func @ext(i64 v0) -> i64 {
block0:
  ret i64 v0
}

func @f(i64 v0) -> i64 {
block0:
  v1 = add i64 v0, 1
  jump block1
block1:
  v2 = phi i64 [block0: v1], [block2: v5]
  v3 = mul i64 v2, 3
  v4 = icmp sgt i64 v3, 100
  br v4, block3, block2
block2:
  v6 = call i64 @ext(i64 v3)
  v5 = add i64 v6, 7
  jump block1
block3:
  v7 = sub i64 v3, 1
  ret i64 v7
}
";

/// The harness holding `@f`, with its CFG and SCCs computed.
fn harness() -> Harness {
    let module = crate::text::parse_module(SIR, "<test>").expect("the test module parses");
    let symbols = Arc::new(module.symbol_table());
    let f = module.functions.into_iter().nth(1).expect("@f");
    let config = PipelineConfig::new(PassSet::parse("placement").expect("known pass"));
    let mut h = Harness::new(f, &symbols, config);
    h.run((compute_cfg, compute_sccs).chain());
    h
}

/// [`harness`] with the target model of TOML text `model` in the pipeline's options.
fn harness_with_model(model: &str) -> Harness {
    let mut h = harness();
    h.world_mut()
        .resource_mut::<PipelineConfig>()
        .options
        .placement_model = Some(Arc::from(model));
    h
}

fn scratch(h: &Harness) -> &PlacementScratch {
    &h.world().resource::<PerSlot<PlacementScratch>>()[0]
}

/// What `place_function` (the same phases outside the World) answers for `@f`.
fn direct() -> FunctionPlacement {
    let module = crate::text::parse_module(SIR, "<test>").expect("the test module parses");
    let symbols = module.symbol_table();
    place_function(
        &module.functions[1],
        Some(&symbols),
        &TargetModel::default_model(),
        &SolveOptions::default(),
        &mut Solver::new(),
    )
    .expect("@f has a placement")
}

#[test]
fn build_problem_splits_at_the_call_and_leaves_the_sizes_for_later() {
    let mut h = harness();
    h.run(build_problem);
    let s = scratch(&h);
    assert_eq!(s.progress, Progress::Built);
    let want = direct();
    assert_eq!(s.ir.pieces, want.ir.pieces);
    // The pipeline leaves the pieces unnamed; named, the problem is `place_function`'s
    // but for the matrices, which the built-in model lets it compute only when needed.
    assert!(s.ir.problem.blocks.iter().all(String::is_empty));
    assert!(!s.complete && s.build.sizes_cannot_forbid);
    assert!(s.ir.problem.matrices.is_empty());
    let mut named = s.ir.clone();
    named.name_pieces();
    named.problem.matrices.clone_from(&want.ir.problem.matrices);
    assert_eq!(named.problem, want.ir.problem);
    assert!(
        s.ir.pieces.len() > 4,
        "the call cuts its block: {:?}",
        s.ir.pieces
    );
}

#[test]
fn a_model_whose_sizes_can_forbid_builds_the_whole_problem_first() {
    // A per-unit cost so large that a big enough transfer saturates to forbidden.
    let model = "[transitions]\noverhead = 1\nper_unit = 18446744073709551615\n\n[[target]]\nname = \"a\"\ndefault_cost = 1\n\n[[target]]\nname = \"b\"\ndefault_cost = 2\n";
    let mut h = harness_with_model(model);
    h.run(build_problem);
    let s = scratch(&h);
    assert_eq!(s.progress, Progress::Built);
    assert!(s.complete && !s.build.sizes_cannot_forbid);
    let k = s.ir.problem.num_targets();
    assert_eq!(
        s.ir.problem.matrices.len(),
        s.ir.problem.edges.len() * k * k
    );
    let c = &s.data.constraints;
    assert_eq!(c.n, s.ir.pieces.len());
    assert!((0..c.n).all(|b| c.reachable[b]), "every piece is reachable");
    h.run((enforce_arc_consistency, eliminate_exactly).chain());
    let s = scratch(&h);
    assert_eq!(s.progress, Progress::Placed);
    let (best, _) = crate::placement::brute_force(&s.ir.problem).expect("feasible");
    assert_eq!(s.data.placement.cost, best);
}

#[test]
fn enforce_arc_consistency_prunes_to_the_direct_domains() {
    let mut h = harness();
    h.run(build_problem);
    h.run(enforce_arc_consistency);
    let s = scratch(&h);
    assert_eq!(s.progress, Progress::Consistent);
    assert_eq!(s.data.domains, direct().placement.domains);
    // The call's piece runs only on the interpreter (target 0); some piece keeps a
    // choice.
    let call =
        s.ir.pieces
            .iter()
            .position(|p| p.block == 2 && p.start == 0)
            .expect("the call starts a piece of block2");
    assert_eq!(s.data.domains[call], TargetSet::single(0));
    assert!(s.data.domains.iter().any(|d| d.len() > 1));
}

#[test]
fn eliminate_exactly_places_without_condensing() {
    let mut h = harness();
    h.run((build_problem, enforce_arc_consistency).chain());
    h.run(eliminate_exactly);
    let s = scratch(&h);
    assert_eq!(s.progress, Progress::Placed);
    assert!(!s.declined);
    let want = direct();
    assert_eq!(s.data.placement.assignment, want.placement.assignment);
    assert_eq!(s.data.placement.cost, want.placement.cost);
    assert_eq!(s.data.placement.domains, want.placement.domains);
    assert!(s.data.placement.stats.eliminated);
    // Nothing was condensed: the later systems only record the placed slot.
    assert!(s.data.condensation.region_of.is_empty());
    h.run((condense_regions, solve_regions).chain());
    let s = scratch(&h);
    assert!(s.data.condensation.region_of.is_empty());
    let stats = &h.world().resource::<PerSlot<PassStats>>()[0];
    assert!(stats
        .0
        .iter()
        .any(|st| st.name == "cost" && st.value == want.placement.cost));
}

#[test]
fn condense_regions_puts_the_loop_in_one_region() {
    let mut h = harness();
    h.run((build_problem, enforce_arc_consistency).chain());
    h.run(condense_regions);
    let s = scratch(&h);
    assert_eq!(s.progress, Progress::Condensed);
    let cond = &s.data.condensation;
    let region = |block: u32| -> Vec<u32> {
        s.ir.pieces
            .iter()
            .enumerate()
            .filter(|(_, p)| p.block == block)
            .map(|(i, _)| cond.region_of[i])
            .collect()
    };
    let (head, body) = (region(1), region(2));
    assert!(
        head.iter().chain(&body).all(|&r| r == head[0]),
        "{head:?} {body:?}"
    );
    assert!(!cond.is_trivial(head[0]));
    assert_ne!(region(0)[0], head[0], "the entry is outside the loop");
    assert_eq!(cond.region_of, direct().placement.region_of);
}

#[test]
fn solve_regions_finds_the_exact_optimum() {
    let mut h = harness();
    h.run((build_problem, enforce_arc_consistency, condense_regions).chain());
    h.run(solve_regions);
    let s = scratch(&h);
    assert_eq!(s.progress, Progress::Placed);
    let (best, _) = crate::placement::brute_force(&s.ir.problem).expect("feasible");
    assert_eq!(s.data.placement.cost, best);
    assert_eq!(s.data.placement.assignment, direct().placement.assignment);
    let stats = &h.world().resource::<PerSlot<PassStats>>()[0];
    assert!(stats
        .0
        .iter()
        .any(|st| st.name == "cost" && st.value == best));
}

#[test]
fn apply_placement_writes_the_direct_block_rows() {
    let mut h = harness();
    h.run(
        (
            build_problem,
            enforce_arc_consistency,
            condense_regions,
            solve_regions,
        )
            .chain(),
    );
    h.run(apply_placement);
    let s = scratch(&h);
    let want = direct();
    assert_eq!(s.rows, want.blocks);
    assert_eq!(s.islands, want.islands);
    assert_eq!(s.fused, want.fused);
    // Parsed text is in memory form, which placement leaves as it is (Placed is an SSA
    // phase).
    assert_eq!(h.take().phase, Phase::Memory);
}

#[test]
fn a_failed_phase_stops_the_function_with_a_located_error() {
    // A model whose only target runs no call: the call's piece has no target.
    let model = "[transitions]\noverhead = 1\nper_unit = 1\n\n[[target]]\nname = \"db\"\ndefault_cost = 1\nunsupported = [\"call\"]\n";
    let mut h = harness_with_model(model);
    h.run(
        (
            build_problem,
            enforce_arc_consistency,
            condense_regions,
            solve_regions,
            apply_placement,
        )
            .chain(),
    );
    assert_eq!(scratch(&h).progress, Progress::None);
    let diagnostics = &h.world().resource::<PerSlot<Diagnostics>>()[0].0;
    assert!(
        diagnostics
            .iter()
            .any(|d| d.message.contains("@f") && d.message.contains("block2")),
        "{diagnostics:?}"
    );
    assert!(scratch(&h).rows.iter().all(|r| r.pieces.pieces == 0));
}

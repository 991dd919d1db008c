//! Each allocation system run alone in a [`Harness`] on machine text, after the systems it
//! requires, each judged on what it establishes.
use crate::engine::harness::Harness;
use crate::engine::PassSet;
use crate::ir::PerSlot;
use crate::machine::targets::TargetDesc;
use crate::regalloc::bundles::BundleSide;
use crate::regalloc::ion;
use crate::regalloc::ranges::{RangeCounts, RangeSide};
use crate::regalloc::systems::*;
use crate::stage::{Diagnostics, PipelineConfig};
use bevy_ecs::prelude::*;

/// A loop whose back edge swaps two block parameters, a two-address add, a call that
/// clobbers the caller-saved registers with a value live across it, and fixed registers.
const MIR: &str = "function @f target x86-64 {
block0:
  args def v0i:fixed(rdi), def v1i:fixed(rsi)
  movi #0 def v2i:reg
  jump block1(v0i, v1i, v2i)
block1(v3i, v4i, v5i):
  add def v6i:reuse(1), use v5i:reg, use v3i:any
  icmp.slt def v7i:reg, use v6i:reg, use v4i:any
  br use v7i:reg, block2(), block3()
block2:
  jump block1(v4i, v3i, v6i)
block3:
  call #0 def v8i:fixed(rax), use v6i:fixed(rdi) clobbers(rcx rdx rsi rdi r8 r9 r10 r11)
  add def v9i:reuse(1), use v8i:reg, use v3i:reg
  ret use v9i:fixed(rax)
}
";

fn harness() -> Harness {
    let config = PipelineConfig::new(PassSet::REGALLOC);
    Harness::from_mir(MIR, config).expect("the test function parses")
}

fn tables(h: &Harness) -> &IonTables {
    h.world().resource::<IonTables>()
}

/// The Regalloc stage's phase systems in chain order.
const CHAIN: [fn(&mut World); 11] = [
    compute_liveness,
    build_live_ranges,
    commute_inputs,
    merge_bundles,
    queue_bundles,
    process_bundles,
    allocate_spill_bundles,
    allocate_spill_slots,
    insert_moves,
    resolve_moves,
    remove_redundant_moves,
];

/// Runs the systems `from..upto` of the chain, each alone.
fn run_until_from(h: &mut Harness, from: usize, upto: usize) {
    for system in &CHAIN[from..upto] {
        h.run(*system);
    }
}

/// Runs the systems before `upto`, each alone.
fn run_until(h: &mut Harness, upto: usize) {
    run_until_from(h, 0, upto);
}

#[test]
fn compute_liveness_starts_and_reserves_rows() {
    let mut h = harness();
    run_until(&mut h, 1);
    assert!(tables(&h).started.is_some(), "our allocator did not start");
    let live = &h.world().resource::<RangeSide>().liveness;
    // v0, v1 flow into block1 only as arguments; v3 and v4 live through the loop.
    assert!(live.livein(0).is_empty());
    assert!(live.livein(2).contains(&3) && live.livein(2).contains(&4));
    assert!(tables(&h).store.rows().0 >= 10);
}

#[test]
fn build_live_ranges_covers_every_value() {
    let mut h = harness();
    run_until(&mut h, 2);
    let counts = *h.world().resource::<RangeCounts>();
    assert!(counts.ranges >= 10, "{counts:?}");
    let side = h.world().resource::<RangeSide>();
    assert!((0..10).all(|v| !side.vreg_ranges[v].is_empty()));
    assert!(!side.blockparam_outs.is_empty());
}

#[test]
fn merge_bundles_joins_reused_inputs_and_parameter_flows() {
    let mut h = harness();
    run_until(&mut h, 4);
    let side = h.world().resource::<BundleSide>();
    assert!(side.merges.merged > 0, "{:?}", side.merges);
    assert!(h.world().resource::<RangeCounts>().sets > 0);
}

#[test]
fn queue_bundles_fills_the_queue_and_reserves_clobbered_registers() {
    let mut h = harness();
    run_until(&mut h, 5);
    let t = tables(&h);
    assert!(!t.state.queue.is_empty());
    // rcx is clobbered by the call: reserved in its map.
    assert!(t.state.maps[1]
        .iter()
        .any(|(_, owner)| owner == ion::maps::RESERVED));
}

#[test]
fn process_bundles_empties_the_queue() {
    let mut h = harness();
    run_until(&mut h, 6);
    let t = tables(&h);
    assert!(t.state.queue.is_empty() && t.started.is_some());
    assert!(t.state.stats.allocated > 0);
}

#[test]
fn spill_phases_leave_every_set_a_location() {
    let mut h = harness();
    run_until(&mut h, 8);
    let slots = tables(&h).state.output.num_spillslots;
    let sets = h.world().resource::<RangeCounts>().sets;
    let mut q = h
        .world_mut()
        .query::<&crate::regalloc::bundles::SpillSetState>();
    let states: Vec<_> = q.iter(h.world()).take(sets).copied().collect();
    assert_eq!(states.len(), sets, "a spill-set row per spill set");
    assert!(states
        .iter()
        .filter(|s| s.required)
        .all(|s| (s.slot as usize) < slots));
}

#[test]
fn insert_and_resolve_moves_give_every_operand_a_location() {
    let mut h = harness();
    run_until(&mut h, 9);
    let out = &tables(&h).state.output;
    assert!(out
        .allocs
        .iter()
        .all(|a| *a != crate::regalloc::Allocation::None));
    run_until_from(&mut h, 9, 10);
    let out = &tables(&h).state.output;
    assert!(out.edits.windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(!out.edits.is_empty(), "the parameter swap needs moves");
}

/// The allocation the chain published.
fn published(h: &mut Harness) -> crate::regalloc::driver::AllocRun {
    h.world_mut()
        .resource_mut::<AllocationResult>()
        .run
        .take()
        .expect("an allocation is published")
}

#[test]
fn remove_redundant_moves_publishes_an_allocation_both_checkers_accept() {
    let mut h = harness();
    run_until(&mut h, 11);
    let run = published(&mut h);
    let f = crate::machine::text::parse_functions(MIR, "f")
        .expect("parses")
        .remove(0);
    let env = TargetDesc::new(crate::stage::Arch::X86_64).env;
    crate::regalloc::checker::check(&f, &env, crate::machine::PRegSet::empty(), &run.output)
        .expect("our checker accepts");
    assert!(h.world().resource::<PerSlot<Diagnostics>>()[0].0.is_empty());
    assert!(tables(&h).started.is_none(), "the function is finished");
}

/// A two-address add whose reused input `v0` stays live while the other input `v1`
/// dies there; `v1` arrives in the register the result leaves in, so reusing `v1` needs
/// no move at all.
const COMMUTE_MIR: &str = "function @g target x86-64 {
block0:
  args def v0i:fixed(rdi), def v1i:fixed(rax)
  add def v2i:reuse(1), use v0i:reg, use v1i:any
  add def v3i:reuse(1), use v2i:reg, use v0i:any
  ret use v3i:fixed(rax)
}
";

/// Runs the whole chain on `COMMUTE_MIR` (exchanging commutative inputs when
/// `commute`); the function as the World holds it afterwards and the allocation.
fn allocate_commute(
    commute: bool,
) -> (
    crate::machine::function::MachineFunction,
    crate::regalloc::output::AllocOutput,
) {
    let config = PipelineConfig::new(PassSet::REGALLOC);
    let mut h = Harness::from_mir(COMMUTE_MIR, config).expect("the test function parses");
    h.world_mut().resource_mut::<RangeSide>().commute = commute;
    run_until(&mut h, CHAIN.len());
    let run = published(&mut h);
    let f = crate::machine::columns::take_machine(h.world_mut()).expect("still lowered");
    (f, run.output)
}

#[test]
fn commute_inputs_reuses_the_dying_input_and_saves_its_copy() {
    use crate::machine::MachineRead;
    let env = TargetDesc::new(crate::stage::Arch::X86_64).env;
    let (plain, plain_out) = allocate_commute(false);
    let (swapped, swapped_out) = allocate_commute(true);
    let first = crate::machine::MInst::new(1);
    let vregs = |f: &crate::machine::function::MachineFunction| -> Vec<usize> {
        f.inst_operands(first)
            .iter()
            .map(|o| o.vreg.index())
            .collect()
    };
    assert_eq!(vregs(&plain), [2, 0, 1], "left as lowered");
    assert_eq!(vregs(&swapped), [2, 1, 0], "v2 reuses the dying v1");
    // The second add's reused input dies: left alone.
    let second = crate::machine::MInst::new(2);
    assert_eq!(
        swapped.inst_operands(second)[1].vreg.index(),
        2,
        "reused input dies there"
    );
    for (f, out) in [(&plain, &plain_out), (&swapped, &swapped_out)] {
        crate::regalloc::checker::check(f, &env, crate::machine::PRegSet::empty(), out)
            .expect("our checker accepts the function as the World holds it");
    }
    assert!(
        swapped_out.edits.is_empty() && !plain_out.edits.is_empty(),
        "the exchange saves the copy of v0: {} edits against {}",
        swapped_out.edits.len(),
        plain_out.edits.len()
    );
}

//! The register-allocation systems of the schedule: the phases of our allocator (Ion
//! design, `../shared/seeds/004_a35bf7de693e4d8a.txt`) as systems of [`Stage::Regalloc`],
//! chained in [`configure`], over live-range and bundle entities of the engine's World (one
//! table each, row = index, pooled between functions), reading the lowered function in place
//! from the World's machine rows; regalloc2 as the reference allocator; and
//! [`check_allocation`] (our symbolic checker, and regalloc2's with the feature) in
//! [`Stage::Check`].
//!
//! | system | reads | writes |
//! |---|---|---|
//! | [`allocate_with_regalloc2`] (with `--allocator regalloc2`) | machine rows, `PipelineConfig` | `AllocationResult`, `Diagnostics`, `PassStats` |
//! | [`compute_liveness`] | machine rows | `RangeSide` (liveness); spawns live-range and bundle rows up to the function's bound |
//! | [`build_live_ranges`] | machine rows, `RangeSide` (liveness) | live-range columns, `RangeSide`, `RangeCounts` |
//! | [`commute_inputs`] | `RangeSide` (the exchanges the scan decided) | machine operand rows |
//! | [`merge_bundles`] | machine rows, live-range columns | bundle and spill-set columns, `RangeBundle`, `BundleSide` |
//! | [`queue_bundles`] | bundle and live-range columns, `RangeSide`, `BundleSide` | `BundleProps`, `IonTables` (maps, queue) |
//! | [`process_bundles`] | `IonTables`, the three tables | live-range and bundle tables (splits spawn rows between rounds), `SpillSetState`, `IonTables` |
//! | [`allocate_spill_bundles`] | `IonTables`, bundle and spill-set columns | `BundleAlloc`, `SpillSetState`, `IonTables` |
//! | [`allocate_spill_slots`] | spill-set columns, `IonTables` | `SpillSetState` (slots), `IonTables` |
//! | [`insert_moves`] | machine rows, both tables, `RangeSide` | `IonTables` (allocations, moves) |
//! | [`resolve_moves`] | machine rows, `IonTables` | `IonTables` (edits) |
//! | [`remove_redundant_moves`] | machine rows, `IonTables` | `AllocationResult`, `Diagnostics`, `PassStats` |
//! | [`check_allocation`] | machine rows, `PipelineConfig`, `AllocationResult` | `AllocationResult`, `Diagnostics`, `PassStats` |
//!
//! The phase systems are exclusive (splitting spawns rows, which needs the World between
//! rounds); each takes its columns through one cached [`SystemState`] that pairs the machine
//! view with the live-range and bundle tables, so the lowered function is read in place,
//! never copied. An error in a phase (impossible constraints) is a diagnostic naming the
//! function and instruction; the later phases then do nothing for that function.

use crate::ir::PerSlot;
use crate::machine::columns::MachineView;
use crate::machine::targets::TargetDesc;
use crate::regalloc::bundles::BundleTables;
use crate::regalloc::ion::{self, IonState};
use crate::regalloc::ranges::{self, RangeStore};
use crate::stage::{
    Allocator, Diagnostic, Diagnostics, Pass, PassStats, PipelineConfig, Severity, Stage,
};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemState;

/// Our allocator's state in the engine's World: the row store of the live-range and bundle
/// tables (spawned in this World), cached access to the machine rows together with both
/// tables, the side tables, and the progress of the current function.
#[derive(Resource)]
pub struct IonTables {
    /// Pooled rows of both tables.
    pub store: RangeStore,
    /// The machine rows and both tables, borrowed together.
    access: SystemState<(
        MachineView<'static, 'static>,
        BundleTables<'static, 'static>,
        Res<'static, PipelineConfig>,
    )>,
    /// Side tables and the output being built.
    pub state: IonState,
    /// When the current function's allocation started (`None`: not allocating it).
    pub(crate) started: Option<std::time::Instant>,
    /// The target's register environment, which `compute_liveness` builds when the target
    /// changes (the phases read it; building it in each was ten constructions a function).
    env: crate::machine::MachineEnv,
    /// The target `env` was built for.
    env_target: Option<crate::stage::Arch>,
}

impl IonTables {
    /// Creates the tables' resources in `world` and caches the access.
    pub fn new(world: &mut World) -> IonTables {
        let store = RangeStore::new(world);
        IonTables {
            store,
            access: SystemState::new(world),
            state: IonState::default(),
            started: None,
            env: Default::default(),
            env_target: None,
        }
    }
}

/// Runs `phase` on the lowered function, the tables and the state, when our allocator is
/// allocating it (started, not failed). A phase error becomes a diagnostic and stops the
/// function's later phases.
fn with_phase(
    world: &mut World,
    phase: impl FnOnce(
        &crate::machine::columns::MachineRef<'_>,
        &crate::machine::MachineEnv,
        &mut BundleTables<'_, '_>,
        &mut IonState,
    ) -> Result<(), ion::IonError>,
) {
    let failure = {
        let cell = world.as_unsafe_world_cell();
        // SAFETY: `IonTables` is a resource none of the parameters of its `access` state
        // reads or writes (the machine rows, the live-range, bundle and spill-set tables
        // with their side resources, and `PipelineConfig`), so the borrow of it and the
        // parameters fetched through `access` never alias; `access` was created from this
        // World, and nothing else touches the World while they live. (Not
        // `resource_scope`: taking the resource out of the World and putting it back costs
        // two archetype moves per phase, in the allocator's timed part.)
        let Some(mut tables) = (unsafe { cell.get_resource_mut::<IonTables>() }) else {
            return;
        };
        if tables.started.is_none() {
            return;
        }
        let IonTables {
            access,
            state,
            env,
            started,
            ..
        } = &mut *tables;
        // SAFETY: as above.
        let (view, mut t, _) =
            unsafe { access.get_unchecked(cell) }.expect("allocation resources present");
        let Some(f) = view.body() else {
            return;
        };
        let failure = phase(&f, env, &mut t, state)
            .err()
            .map(|e| format!("@{}: {e}", f.info.name));
        if failure.is_some() {
            *started = None;
        }
        failure
    };
    if let Some(message) = failure {
        world.resource_mut::<PerSlot<Diagnostics>>()[0]
            .0
            .push(Diagnostic {
                severity: Severity::Error,
                pass: "regalloc",
                message,
            });
    }
}

/// The `compute_liveness` system: starts our allocator on the lowered function (when the
/// `regalloc` pass runs with `--allocator ion`), computes exact liveness and reserves the
/// rows the live ranges and bundles can need (spawning only beyond the pool).
///
/// Only spawning needs the World mutably; a warm pool covers most functions, so the tables
/// are reached as in `with_phase` and taken out of the World (`resource_scope`, two
/// archetype moves, about 3% of the allocator's time on sqlite) only to spawn rows.
pub fn compute_liveness(world: &mut World) {
    let spawn = {
        let cell = world.as_unsafe_world_cell();
        // SAFETY: as in `with_phase`: the parameters of `access` (the machine rows, the
        // allocation tables with their side resources, `PipelineConfig`) never include
        // `IonTables`, `access` was created from this World, and nothing else touches the
        // World while both borrows live.
        let Some(mut tables) = (unsafe { cell.get_resource_mut::<IonTables>() }) else {
            return;
        };
        tables.started = None;
        let IonTables {
            access,
            store,
            state,
            started,
            env,
            env_target,
        } = &mut *tables;
        // SAFETY: as above.
        let (view, mut t, config) =
            unsafe { access.get_unchecked(cell) }.expect("allocation resources present");
        if !config.passes.has(Pass::Regalloc) || config.options.allocator != Allocator::Ion {
            return;
        }
        let Some(f) = view.body() else {
            return;
        };
        *started = Some(std::time::Instant::now());
        state.annotate = config.options.annotate_alloc;
        state.no_remat = config.options.no_remat;
        if *env_target != Some(config.options.target) {
            *env = TargetDesc::new(config.options.target).env;
            *env_target = Some(config.options.target);
        }
        use crate::machine::MachineRead;
        let (bound, nv) = (ranges::compute_liveness(&f, &mut t), f.num_vregs());
        (!store.covers(bound, nv)).then_some((bound, nv))
    };
    if let Some((bound, nv)) = spawn {
        world.resource_scope(|world, mut tables: Mut<IonTables>| {
            tables.store.reserve(world, bound, nv);
            tables.store.reserve_sets(world, nv);
        });
    }
}

/// The `build_live_ranges` system (see [`ranges::build_live_ranges`]).
pub fn build_live_ranges(world: &mut World) {
    with_phase(world, |f, _, t, _| {
        ranges::build_live_ranges(f, t);
        Ok(())
    });
}

/// The `commute_inputs` system: makes in the World's machine rows the input exchanges
/// the scan of [`build_live_ranges`] decided on commutative two-address instructions
/// (`RangeSide::commuted`; see `ranges::scan::commute_inputs`), so the later phases, the
/// output and both checkers read the instructions as allocated. O(exchanged instructions).
pub fn commute_inputs(world: &mut World) {
    let active = world
        .get_resource::<IonTables>()
        .is_some_and(|t| t.started.is_some());
    if !active {
        return;
    }
    let mut commuted = std::mem::take(&mut world.resource_mut::<ranges::RangeSide>().commuted);
    if !commuted.is_empty() {
        world.resource_scope(
            |world, entities: Mut<crate::machine::columns::MachineEntities>| {
                for &i in &commuted {
                    let mut row = world
                        .get_mut::<crate::machine::columns::MInstOperands>(
                            entities.insts[i.index()],
                        )
                        .expect("machine instruction rows hold operands");
                    let ops = &mut row.bypass_change_detection().0;
                    let (a, b) = (ops[1].vreg, ops[2].vreg);
                    ops[1].vreg = b;
                    ops[2].vreg = a;
                }
            },
        );
    }
    commuted.clear();
    world.resource_mut::<ranges::RangeSide>().commuted = commuted;
}

/// The `merge_bundles` system (see [`crate::regalloc::bundles::merge_bundles_in`]).
pub fn merge_bundles(world: &mut World) {
    with_phase(world, |f, _, t, _| {
        crate::regalloc::bundles::merge_bundles_in(f, t);
        Ok(())
    });
}

/// The `queue_bundles` system (see [`ion::process::prepare`]).
pub fn queue_bundles(world: &mut World) {
    with_phase(world, |f, _, t, state| {
        ion::process::prepare(f, t, state);
        Ok(())
    });
}

/// The `process_bundles` system: the allocation loop (see [`ion::process::process_bundles`]),
/// growing the tables between rounds when splitting runs short of rows.
pub fn process_bundles(world: &mut World) {
    loop {
        let capacity = world.resource::<IonTables>().store.rows();
        let mut short = None;
        with_phase(world, |f, env, t, state| {
            short = ion::process::process_bundles(f, env, t, state, capacity)?;
            Ok(())
        });
        match short {
            None => return,
            Some((r, b)) => world.resource_scope(|world, mut tables: Mut<IonTables>| {
                tables.store.reserve(world, r, b)
            }),
        }
    }
}

/// The `allocate_spill_bundles` system: second-chance allocation (see
/// [`ion::spill::second_chance`]).
pub fn allocate_spill_bundles(world: &mut World) {
    with_phase(world, |f, env, t, state| {
        ion::spill::second_chance(f, env, t, state);
        Ok(())
    });
}

/// The `allocate_spill_slots` system (see [`ion::spill::allocate_spill_slots`]).
pub fn allocate_spill_slots(world: &mut World) {
    with_phase(world, |f, _, t, state| {
        ion::spill::allocate_spill_slots(f, t, state);
        Ok(())
    });
}

/// The `insert_moves` system (see [`ion::insert::insert_moves`]).
pub fn insert_moves(world: &mut World) {
    with_phase(world, |f, _, t, state| {
        ion::insert::insert_moves(f, t, state)
    });
}

/// The `resolve_moves` system (see [`ion::insert::resolve_moves`]).
pub fn resolve_moves(world: &mut World) {
    with_phase(world, |f, env, _, state| {
        ion::insert::resolve_moves(f, env, state)
    });
}

/// The `remove_redundant_moves` system (see [`ion::redundant`]), which also publishes the
/// allocation: [`AllocationResult`] and the `regalloc` counters. Checking is the Check
/// stage's ([`check_allocation`]), so the stage's time is the allocator's alone.
pub fn remove_redundant_moves(world: &mut World) {
    let started = world.resource::<IonTables>().started;
    let mut published = None;
    with_phase(world, |f, env, _, state| {
        ion::finish(f, state);
        let time = started.map(|s| s.elapsed()).unwrap_or_default();
        let _ = env;
        // Outside the timed part: the edits by kind and their loop-weighted cost.
        let costs = state.output.edit_costs(f, state.fixed_stack);
        published = Some((publish(state), time, costs));
        Ok(())
    });
    let Some((mut run, time, costs)) = published else {
        return;
    };
    run.time = time;
    let stats = run.stats;
    let (edits, slots) = (run.output.edits.len(), run.output.num_spillslots);
    {
        let mut all = world.resource_mut::<PerSlot<PassStats>>();
        let s = &mut all[0];
        s.add("regalloc", "edits", edits as u64);
        add_costs(s, &costs);
        s.add("regalloc", "spill_slots", slots as u64);
        s.add("regalloc", "time_ns", time.as_nanos() as u64);
        s.add("regalloc", "evictions", stats.evictions as u64);
        s.add("regalloc", "splits", stats.splits as u64);
        s.add("regalloc", "second_chance", stats.second_chance as u64);
        s.add("regalloc", "spilled", stats.spilled as u64);
    }
    world.resource_mut::<AllocationResult>().run = Some(run);
    world.resource_mut::<IonTables>().started = None;
}

/// The finished allocation as an [`crate::regalloc::driver::AllocRun`] (its time is the
/// caller's to set).
fn publish(state: &mut IonState) -> crate::regalloc::driver::AllocRun {
    // Copied, not taken: the state's output vectors keep their capacity, so the next
    // function's allocation fills them without growing fresh ones inside its timed part
    // (the copy is made after the clock stopped, as regalloc2's output, which its reused
    // context also keeps, is converted outside its timed part).
    let output = state.output.clone();
    let mut annotations = std::mem::take(&mut state.annotations);
    annotations.sort_by_key(|a| a.0);
    crate::regalloc::driver::AllocRun {
        allocator: Allocator::Ion,
        output,
        time: std::time::Duration::ZERO,
        checked: None,
        stats: state.stats,
        annotations,
    }
}

/// The allocation the Regalloc stage made for the function in the World (empty when the
/// stage did not run).
#[derive(Resource, Default, Debug)]
pub struct AllocationResult {
    /// The allocation and what it cost.
    pub run: Option<crate::regalloc::driver::AllocRun>,
}

/// The `regalloc` pass with `--allocator regalloc2`: allocates the machine function in the
/// World with regalloc2 0.15.2, reading it through [`MachineView`] (the World's columns
/// presented as a `regalloc2::Function`), and judges the result with regalloc2's checker.
///
/// Reads the machine rows and [`PipelineConfig`] (target, allocator); writes
/// [`AllocationResult`], [`Diagnostics`] (a refusal or a rejected allocation, naming the
/// function) and [`PassStats`] (`regalloc`/`edits`, `spill_slots`, `time_ns`).
pub fn allocate_with_regalloc2(
    view: MachineView,
    config: Res<PipelineConfig>,
    mut result: ResMut<AllocationResult>,
    mut diags: ResMut<PerSlot<Diagnostics>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    let (diags, stats) = (&mut diags[0], &mut stats[0]);
    result.run = None;
    if config.options.allocator != Allocator::Regalloc2 {
        return;
    }
    let Some(f) = view.body() else {
        return;
    };
    let env = &TargetDesc::new(config.options.target).env;
    match crate::regalloc::driver::allocate_regalloc2_in(&f, &f.info.name, env) {
        Ok(run) => {
            stats.add("regalloc", "edits", run.output.edits.len() as u64);
            add_costs(
                stats,
                &run.output.edit_costs(&f, crate::machine::PRegSet::empty()),
            );
            stats.add("regalloc", "spill_slots", run.output.num_spillslots as u64);
            stats.add("regalloc", "time_ns", run.time.as_nanos() as u64);
            result.run = Some(run);
        }
        Err(e) => diags.0.push(Diagnostic {
            severity: Severity::Error,
            pass: "regalloc",
            message: e.to_string(),
        }),
    }
}

/// Adds the edits by kind and their loop-weighted cost to the `regalloc` counters
/// (`remats`, `cost_tenths`, both allocators alike).
fn add_costs(stats: &mut PassStats, c: &crate::regalloc::output::EditCosts) {
    stats.add("regalloc", "remats", c.remats as u64);
    stats.add("regalloc", "cost_tenths", c.cost_tenths);
}

/// The `check` pass: judges the allocation the Regalloc stage made with our symbolic
/// checker ([`crate::regalloc::checker`]) and (feature `regalloc2`) regalloc2's own checker,
/// reading the function through [`crate::machine::columns::MachineView`].
///
/// Reads the machine rows, [`PipelineConfig`] (target); writes [`AllocationResult`] (our
/// checker's time), [`Diagnostics`] (a rejection: function, block, instruction, operand,
/// location) and [`PassStats`] (`check`/`functions`, `time_ns` for ours,
/// `regalloc2_time_ns` for regalloc2's).
pub fn check_allocation(
    view: crate::machine::columns::MachineView,
    config: Res<PipelineConfig>,
    mut result: ResMut<AllocationResult>,
    mut diags: ResMut<PerSlot<Diagnostics>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    let (diags, stats) = (&mut diags[0], &mut stats[0]);
    let (Some(f), Some(run)) = (view.body(), result.run.as_mut()) else {
        return;
    };
    let name = &f.info.name;
    let env = &crate::machine::targets::TargetDesc::new(config.options.target).env;
    let verdict =
        crate::regalloc::driver::check_ours_in(&f, name, env, &run.output).and_then(|ours| {
            let start = std::time::Instant::now();
            crate::regalloc::driver::check_regalloc2(&f, name, env, &run.output)?;
            Ok((ours, start.elapsed()))
        });
    match verdict {
        Ok((ours, theirs)) => {
            run.checked = Some(ours);
            stats.add("check", "functions", 1);
            stats.add("check", "time_ns", ours.as_nanos() as u64);
            if cfg!(feature = "regalloc2") {
                stats.add("check", "regalloc2_time_ns", theirs.as_nanos() as u64);
            }
        }
        Err(e) => diags.0.push(Diagnostic {
            severity: Severity::Error,
            pass: "check",
            message: e.to_string(),
        }),
    }
}

/// Inserts the allocation resources (empty) into `world`.
pub fn init_resources(world: &mut World) {
    world.init_resource::<AllocationResult>();
    let tables = IonTables::new(world);
    // The pipeline's scan may exchange commutative inputs: `commute_inputs` writes them.
    world.resource_mut::<ranges::RangeSide>().commute = true;
    world.insert_resource(tables);
}

/// Adds the allocation systems to their stages.
pub fn configure(schedule: &mut Schedule) {
    // The seed's order: liveness and live ranges, merging, the queue, the allocation loop,
    // second chance for spilled bundles, slots for what stays on the stack, then moves,
    // their resolution into sequences, and the redundant ones removed.
    schedule.add_systems(
        (
            allocate_with_regalloc2,
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
        )
            .chain()
            .in_set(Stage::Regalloc),
    );
    schedule.add_systems(check_allocation.in_set(Stage::Check));
}

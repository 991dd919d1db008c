//! The register-allocation systems of the schedule: [`allocate_registers`] in
//! [`Stage::Regalloc`] (our allocator by default, regalloc2 as the reference) and
//! [`check_allocation`] in [`Stage::Check`] (our symbolic checker).
//!
//! | system | reads | writes |
//! |---|---|---|
//! | [`allocate_registers`] | machine rows (through `MachineView`), `PipelineConfig` | `AllocationResult`, `IonEngine`, `Diagnostics`, `PassStats` |
//! | [`check_allocation`] | machine rows (through `MachineView`), `PipelineConfig` | `AllocationResult`, `Diagnostics`, `PassStats` |
//!
//! Both read the lowered function in place, from the World's machine rows.

use crate::ir::PerSlot;
use crate::machine::targets::TargetDesc;
use crate::stage::{Diagnostic, Diagnostics, PassStats, PipelineConfig, Severity, Stage};
use bevy_ecs::prelude::*;

/// The allocation the Regalloc stage made for the function in the World (empty when the
/// stage did not run).
#[derive(Resource, Default, Debug)]
pub struct AllocationResult {
    /// The allocation and what it cost.
    pub run: Option<crate::machine::driver::AllocRun>,
}

/// Our allocator's reusable context (its live-range and bundle tables and side tables),
/// kept between functions.
#[derive(Resource, Default)]
pub struct IonEngine(pub crate::regalloc::ion::IonContext);

/// The `regalloc` pass: allocates the machine function in the World with the allocator
/// `PipelineConfig::options.allocator` names (ours by default, regalloc2 as the reference),
/// reading it through [`crate::machine::columns::MachineView`]; with the feature `regalloc2`,
/// regalloc2's checker judges the result.
///
/// Reads the machine rows and [`PipelineConfig`] (target, allocator); writes
/// [`AllocationResult`], [`IonEngine`] (its tables), [`Diagnostics`] (a refusal or a
/// rejected allocation, naming the function) and [`PassStats`] (`regalloc`/`edits`,
/// `spill_slots`, `time_ns`, and for ours `evictions`, `splits`, `second_chance`, `spilled`).
pub fn allocate_registers(
    view: crate::machine::columns::MachineView,
    config: Res<PipelineConfig>,
    mut ion: ResMut<IonEngine>,
    mut result: ResMut<AllocationResult>,
    mut diags: ResMut<PerSlot<Diagnostics>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    let (diags, stats) = (&mut diags[0], &mut stats[0]);
    result.run = None;
    let Some(f) = view.body() else {
        return;
    };
    let env = &TargetDesc::new(config.options.target).env;
    ion.0.state.annotate = config.options.annotate_alloc;
    match crate::machine::driver::allocate_in(
        &f,
        &f.info.name,
        env,
        config.options.allocator,
        &mut ion.0,
    ) {
        Ok(run) => {
            stats.add("regalloc", "edits", run.output.edits.len() as u64);
            stats.add("regalloc", "spill_slots", run.output.num_spillslots as u64);
            stats.add("regalloc", "time_ns", run.time.as_nanos() as u64);
            if config.options.allocator == crate::stage::Allocator::Ion {
                stats.add("regalloc", "evictions", run.stats.evictions as u64);
                stats.add("regalloc", "splits", run.stats.splits as u64);
                stats.add("regalloc", "second_chance", run.stats.second_chance as u64);
                stats.add("regalloc", "spilled", run.stats.spilled as u64);
            }
            result.run = Some(run);
        }
        Err(e) => diags.0.push(Diagnostic {
            severity: Severity::Error,
            pass: "regalloc",
            message: e,
        }),
    }
}

/// The `check` pass: judges the allocation the Regalloc stage made with our symbolic
/// checker ([`crate::regalloc::checker`]), reading the function through
/// [`crate::machine::columns::MachineView`].
///
/// Reads the machine rows, [`PipelineConfig`] (target); writes [`AllocationResult`] (the
/// checker's time), [`Diagnostics`] (a rejection: function, block, instruction, operand,
/// location) and [`PassStats`] (`check`/`functions`, `time_ns`).
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
    match crate::machine::driver::check_ours(&f, &f.info.name, config.options.target, &run.output) {
        Ok(time) => {
            run.checked = Some(time);
            stats.add("check", "functions", 1);
            stats.add("check", "time_ns", time.as_nanos() as u64);
        }
        Err(e) => diags.0.push(Diagnostic {
            severity: Severity::Error,
            pass: "check",
            message: e,
        }),
    }
}

/// Inserts the allocation resources (empty) into `world`.
pub fn init_resources(world: &mut World) {
    world.init_resource::<AllocationResult>();
    world.init_resource::<IonEngine>();
}

/// Adds the allocation systems to their stages.
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(allocate_registers.in_set(Stage::Regalloc));
    schedule.add_systems(check_allocation.in_set(Stage::Check));
}

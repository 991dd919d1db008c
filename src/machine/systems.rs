//! The machine-form systems of the schedule: lowering in [`Stage::Lower`] (register
//! allocation and its check are `crate::regalloc::systems`).
//!
//! | system | reads | writes |
//! |---|---|---|
//! | [`lower`] | all IR columns (through `IrView`), `PipelineConfig` (target, verify) | `LoweredScratch`, `MachineInfo` (cleared), `Diagnostics`, `PassStats` |
//! | [`store_lowered`] (exclusive) | `LoweredScratch` | machine rows (loaded, spawned beyond the pool), `MachineInfo`, `MachineEntities` |
//!
//! Lowering builds the detached [`MachineFunction`] (lowering appends blocks for switch
//! chains and split edges, so it cannot write into rows it has not counted); the exclusive
//! [`store_lowered`] then moves it into the machine rows while no column is borrowed
//! (DESIGN.md 2, rule 6). Later stages read it through [`super::columns::MachineView`]; the
//! driver takes it out with [`super::columns::take_machine`].
//!
//! The machine verifier runs after lowering with `--verify-each` and in debug builds; a
//! violation is an error diagnostic of pass `lower` (a lowering bug, never a panic).

use super::columns::{MachineInfo, MachineLoader};
use super::function::MachineFunction;
use super::targets::TargetDesc;
use super::MachineRead;
use crate::ir::{IrView, PerSlot};
use crate::stage::{Diagnostic, Diagnostics, Pass, PassStats, PipelineConfig, Severity, Stage};
use bevy_ecs::prelude::*;

/// The function lowering just built, waiting to be stored in the machine rows.
#[derive(Resource, Default, Debug)]
pub struct LoweredScratch(pub Option<MachineFunction>);

/// Lowers the function in the World for `PipelineConfig::options.target`.
///
/// Reads the IR columns and [`PipelineConfig`]; writes [`LoweredScratch`],
/// [`MachineInfo`] (cleared: the rows no longer hold this function's machine form until
/// [`store_lowered`] runs), [`Diagnostics`] (an unsupported construct, a verifier violation)
/// and [`PassStats`] (`lower`/`machine_insts`, `machine_blocks`, `vregs`, `operands`).
/// Requires the block-parameter form.
pub fn lower(
    ir: IrView,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<LoweredScratch>,
    mut info: ResMut<MachineInfo>,
    mut diags: ResMut<PerSlot<Diagnostics>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    info.present = false;
    scratch.0 = None;
    if !config.passes.has(Pass::Lower) {
        return;
    }
    // The machine stages hold one function: the engine runs them one function at a time,
    // in slot 0 (see `Engine::batch_size`).
    let Some((_, body)) = ir.bodies().find(|(s, _)| *s == 0) else {
        return;
    };
    let (diags, stats) = (&mut diags[0], &mut stats[0]);
    let target = TargetDesc::new(config.options.target);
    match super::lower::lower_function(&body, &target) {
        Ok(f) => {
            if config.verify_each || cfg!(debug_assertions) {
                let errors = super::verify::verify(&f);
                if !errors.is_empty() {
                    diags.0.push(Diagnostic {
                        severity: Severity::Error,
                        pass: "lower",
                        message: format!(
                            "@{}: the machine verifier rejects the lowered function: {}",
                            f.name,
                            super::verify::describe(&errors)
                        ),
                    });
                    return;
                }
            }
            stats.add("lower", "machine_insts", f.num_insts() as u64);
            stats.add("lower", "machine_blocks", f.num_blocks() as u64);
            stats.add("lower", "vregs", f.num_vregs as u64);
            stats.add(
                "lower",
                "operands",
                f.operands.iter().map(|o| o.len() as u64).sum(),
            );
            scratch.0 = Some(f);
        }
        Err(e) => diags.0.push(Diagnostic {
            severity: Severity::Error,
            pass: "lower",
            message: e.to_string(),
        }),
    }
}

/// Moves the lowered function into the machine rows (exclusive: may spawn rows).
pub fn store_lowered(world: &mut World) {
    let Some(f) = world.resource_mut::<LoweredScratch>().0.take() else {
        return;
    };
    world.resource_scope(|world, mut loader: Mut<MachineLoader>| loader.load(world, f));
}

/// Inserts the machine form's resources (empty) into `world`.
pub fn init_resources(world: &mut World) {
    super::columns::init_resources(world);
    world.init_resource::<LoweredScratch>();
}

/// Adds the machine systems to their stages.
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems((lower, store_lowered).chain().in_set(Stage::Lower));
}

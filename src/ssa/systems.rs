//! The SSA systems of the schedule: [`promote_allocas`] in [`Stage::Mem2Reg`],
//! [`eliminate_phis`] and [`convert_phis_to_block_params`] in [`Stage::OutOfSsa`].
//!
//! Each is an exclusive system that takes the function out of the World as dense tables
//! ([`with_function`]: DESIGN.md 2 rule 6 at function granularity), runs the library
//! function of [`crate::ssa`] on it with scratch kept in a resource (cleared, never dropped,
//! between functions), and reports its counters to [`PassStats`].

use super::{
    block_params, phi_elim, promote, BlockParamScratch, Mem2RegScratch, ParamAllocas,
    PhiElimScratch,
};
use crate::analysis::{Cfg, DomTree, DominanceFrontiers};
use crate::engine::world::with_function;
use crate::engine::{Pass, PassStats, PipelineConfig, Stage};
use crate::ir::Phase;
use bevy_ecs::prelude::*;

/// Which parameter allocas the `mem2reg` pass promotes (a resource; absent means the
/// default, [`ParamAllocas::IncludeStored`], i.e. `promote_allocas_with_params`).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mem2RegConfig {
    /// Parameter alloca policy.
    pub params: ParamAllocas,
}

fn ensure<R: Resource + Default>(world: &mut World) {
    if !world.contains_resource::<R>() {
        world.init_resource::<R>();
    }
}

/// The `mem2reg` pass: promotes allocas of the function in the World to SSA values.
///
/// Reads [`Cfg`], [`DomTree`], [`DominanceFrontiers`] (computed for this function in the
/// `Cfg` and `Dominance` stages; still valid afterwards: the CFG does not change) and
/// [`Mem2RegConfig`]; writes the function, [`Mem2RegScratch`] and [`PassStats`]. Requires a
/// verified function in a phase before `destructed` (others are left alone). Establishes
/// phase `ssa` (from `memory`): no promoted alloca, load or store remains.
pub fn promote_allocas(world: &mut World) {
    ensure::<Mem2RegScratch>(world);
    let params = world
        .get_resource::<Mem2RegConfig>()
        .map(|c| c.params)
        .unwrap_or_default();
    world.resource_scope(|world, mut scratch: Mut<Mem2RegScratch>| {
        let stats = with_function(world, |f, world| {
            if !f.phase.single_definition() {
                return None;
            }
            let (cfg, dom, df) = (
                world.resource::<Cfg>(),
                world.resource::<DomTree>(),
                world.resource::<DominanceFrontiers>(),
            );
            Some(promote(f, cfg, dom, df, params, &mut scratch))
        });
        if let Some(stats) = stats {
            stats.report(&mut world.resource_mut::<PassStats>());
        }
    });
}

/// The `phi-elim` pass: replaces phis by copies (see [`phi_elim`]).
///
/// Reads [`PipelineConfig`] (runs only if `phi-elim` is enabled) and the function; writes
/// the function, [`PhiElimScratch`] and [`PassStats`]. Requires an SSA phase (others are
/// left alone). Establishes phase `destructed`. Trampolines change the CFG: the analyses
/// ([`Cfg`], [`DomTree`], [`DominanceFrontiers`], SCCs) are recomputed when any was added,
/// so later systems read analyses of the current function.
pub fn eliminate_phis(world: &mut World) {
    if !world.resource::<PipelineConfig>().passes.has(Pass::PhiElim) {
        return;
    }
    ensure::<PhiElimScratch>(world);
    world.resource_scope(|world, mut scratch: Mut<PhiElimScratch>| {
        let stats = with_function(world, |f, world| {
            if !f.phase.is_ssa() {
                return None;
            }
            let stats = phi_elim::eliminate(f, &mut scratch);
            f.phase = Phase::Destructed;
            if stats.trampolines > 0 {
                crate::analysis::recompute_analyses(world, f);
            }
            Some(stats)
        });
        if let Some(stats) = stats {
            stats.report(&mut world.resource_mut::<PassStats>());
        }
    });
}

/// The `block-params` pass: turns phis into block parameters and branch arguments (see
/// [`block_params`]).
///
/// Reads [`PipelineConfig`] (runs only if `block-params` is enabled and `phi-elim` is not)
/// and the function; writes the function, [`BlockParamScratch`] and [`PassStats`]. Requires an SSA phase.
/// Establishes: no phi remains except in blocks entered by an `indirect_br` edge; the phase
/// is unchanged. Trampolines (asm-goto edges) trigger recomputation of the analyses.
pub fn convert_phis_to_block_params(world: &mut World) {
    let passes = world.resource::<PipelineConfig>().passes;
    if !passes.has(Pass::BlockParams) || passes.has(Pass::PhiElim) {
        return;
    }
    ensure::<BlockParamScratch>(world);
    world.resource_scope(|world, mut scratch: Mut<BlockParamScratch>| {
        let stats = with_function(world, |f, world| {
            if !f.phase.is_ssa() {
                return None;
            }
            let stats = block_params::convert(f, &mut scratch);
            if stats.trampolines > 0 {
                crate::analysis::recompute_analyses(world, f);
            }
            Some(stats)
        });
        if let Some(stats) = stats {
            stats.report(&mut world.resource_mut::<PassStats>());
        }
    });
}

/// Adds the SSA systems to their stages (`eliminate_phis` before
/// `convert_phis_to_block_params`, so the two exclusive systems are ordered).
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(promote_allocas.in_set(Stage::Mem2Reg));
    schedule.add_systems(
        (eliminate_phis, convert_phis_to_block_params)
            .chain()
            .in_set(Stage::OutOfSsa),
    );
}

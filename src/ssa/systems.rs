//! The SSA systems of the schedule: mem2reg in [`Stage::Mem2Reg`], phi elimination and
//! block-parameter conversion in [`Stage::OutOfSsa`].
//!
//! Each pass is a plan system and a rewrite system around the exclusive step
//! [`grow_rows`], because the rewrite creates instructions or blocks and spawning needs no
//! column borrowed (DESIGN.md 2, rule 6): the plan system reads the columns, works out an
//! upper bound on the rows the rewrite creates and writes it to [`RowDemand`]; `grow_rows`
//! spawns them at the end of the tables; the rewrite fills them. Every system takes
//! [`IrMut`]/[`IrView`] and resources, so the schedule sees what it reads and writes, and
//! visits every live function slot; the per-function resources below (`Cfg`, the plans,
//! `RowDemand`, `ValidAnalyses`, `PassStats`) are `PerSlot`, one value per slot.
//!
//! | system | reads | writes |
//! |---|---|---|
//! | [`plan_mem2reg`] | all columns, `Cfg`, `DominanceFrontiers`, `PipelineConfig` | `FunctionTables` (constant pool: zeros), `Mem2RegScratch`, `RowDemand` |
//! | [`rename_allocas`] | `Cfg`, `DomTree`, `Mem2RegScratch` | `InstOp`, `InstResults`, `InstBlock`, `InstDead`, `BlockInsts`, `BlockTerm` (operands), values, phase, `PassStats` |
//! | [`plan_phi_elim`] | `BlockInsts`, `InstOp`, `BlockDead`, `Cfg`, `PipelineConfig` | `RowDemand` |
//! | [`eliminate_phis`] | `Cfg` | all columns, values, phase, `ValidAnalyses`, `PassStats` |
//! | [`plan_block_params`] | `BlockInsts`, `InstOp`, `BlockTerm`, `BlockDead`, `Cfg`, `PipelineConfig` | `RowDemand` |
//! | [`convert_phis_to_block_params`] | `Cfg` | all columns, values, `ValidAnalyses`, `PassStats` |

use super::{
    block_params, phi_elim, BlockParamScratch, Mem2RegScratch, ParamAllocas, PhiElimScratch,
};
use crate::analysis::{Analyses, Cfg, DomTree, DominanceFrontiers, ValidAnalyses};
use crate::ir::{IrMut, IrView, PerSlot, Phase, RowDemand};
use crate::stage::{grow_rows, Pass, PassStats, PipelineConfig, Stage};
use bevy_ecs::prelude::*;

/// Plans mem2reg (002 steps 1-2: promotable allocas, phi placement with the cost limit) for
/// each live function.
///
/// Reads every column, [`Cfg`], [`DominanceFrontiers`] and [`PipelineConfig`] (which
/// parameter allocas to promote); writes [`Mem2RegScratch`], the constant pool (slot zeros)
/// and [`RowDemand`]. Requires a verified function and current analyses (the pass table
/// says mem2reg reads the CFG, tree and frontiers). Establishes the plan [`rename_allocas`]
/// carries out; does nothing from phase `destructed` on.
pub fn plan_mem2reg(
    mut ir: IrMut,
    cfg: Res<PerSlot<Cfg>>,
    dom: Res<PerSlot<DomTree>>,
    df: Res<PerSlot<DominanceFrontiers>>,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<PerSlot<Mem2RegScratch>>,
    mut demand: ResMut<PerSlot<RowDemand>>,
) {
    let params = if config.options.mem2reg_skip_params {
        ParamAllocas::Skip
    } else {
        ParamAllocas::IncludeStored
    };
    for (s, mut f) in ir.bodies() {
        let scratch = &mut scratch[s];
        scratch.skip = !f.info.phase.single_definition();
        if scratch.skip {
            continue;
        }
        demand[s].insts += super::plan(&mut f, &cfg[s], &dom[s], &df[s], params, scratch);
    }
}

/// Carries out the mem2reg plan (002 steps 3-4: phi creation, renaming, trivial-phi
/// removal) of each live function.
///
/// Reads [`Cfg`], [`DomTree`] and [`Mem2RegScratch`]; writes the instruction and block
/// columns (phis in spare rows, promoted loads, stores and allocas unlisted and flagged
/// dead, operands renamed), the value table, the phase and [`PassStats`]. Requires
/// [`plan_mem2reg`] and [`grow_rows`] before it. Establishes phase `ssa` (from `memory`): no
/// promoted alloca, load or store remains. The CFG is unchanged.
pub fn rename_allocas(
    mut ir: IrMut,
    cfg: Res<PerSlot<Cfg>>,
    dom: Res<PerSlot<DomTree>>,
    mut scratch: ResMut<PerSlot<Mem2RegScratch>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    for (s, mut f) in ir.bodies() {
        let scratch = &mut scratch[s];
        if scratch.skip {
            continue;
        }
        super::rename_promoted(&mut f, &cfg[s], &dom[s], scratch).report(&mut stats[s]);
    }
}

/// Asks for the rows [`eliminate_phis`] may create, for each live function.
///
/// Reads [`PipelineConfig`] (runs only if `phi-elim` is enabled), the `BlockInsts`,
/// `InstOp` and `BlockDead` columns and [`Cfg`]; writes [`RowDemand`].
pub fn plan_phi_elim(
    ir: IrView,
    cfg: Res<PerSlot<Cfg>>,
    config: Res<PipelineConfig>,
    mut demand: ResMut<PerSlot<RowDemand>>,
) {
    if !config.passes.has(Pass::PhiElim) {
        return;
    }
    for (s, f) in ir.bodies() {
        if !f.info.phase.is_ssa() {
            continue;
        }
        let (insts, blocks) = phi_elim::rows_needed(&f, &cfg[s]);
        demand[s].insts += insts;
        demand[s].blocks += blocks;
    }
}

/// The `phi-elim` pass: replaces phis by copies (see [`phi_elim`]) in each live function.
///
/// Reads [`PipelineConfig`] and [`Cfg`]; writes every column (copies and trampolines in
/// spare rows, phis unlisted and flagged dead, edges retargeted), the value table, the
/// phase, [`PhiElimScratch`], [`ValidAnalyses`] and [`PassStats`]. Requires an SSA phase
/// (others are left alone) and [`plan_phi_elim`] plus [`grow_rows`] before it.
/// Establishes phase `destructed`; trampolines invalidate every analysis.
pub fn eliminate_phis(
    mut ir: IrMut,
    cfg: Res<PerSlot<Cfg>>,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<PhiElimScratch>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    if !config.passes.has(Pass::PhiElim) {
        return;
    }
    for (s, mut f) in ir.bodies() {
        if !f.info.phase.is_ssa() {
            continue;
        }
        let report = phi_elim::eliminate(&mut f, &cfg[s], &mut scratch);
        f.info.phase = Phase::Destructed;
        if report.trampolines > 0 {
            valid[s].0 = Analyses::empty();
        }
        report.report(&mut stats[s]);
    }
}

/// Asks for the rows [`convert_phis_to_block_params`] may create, for each live function.
///
/// Reads [`PipelineConfig`] (runs only if `block-params` is enabled and `phi-elim` is not),
/// the `BlockInsts`, `InstOp`, `BlockTerm` and `BlockDead` columns and [`Cfg`]; writes
/// [`RowDemand`].
pub fn plan_block_params(
    ir: IrView,
    cfg: Res<PerSlot<Cfg>>,
    config: Res<PipelineConfig>,
    mut demand: ResMut<PerSlot<RowDemand>>,
) {
    let passes = config.passes;
    if !passes.has(Pass::BlockParams) || passes.has(Pass::PhiElim) {
        return;
    }
    for (s, f) in ir.bodies() {
        if f.info.phase.is_ssa() {
            demand[s].blocks += block_params::blocks_needed(&f, &cfg[s]);
        }
    }
}

/// The `block-params` pass: turns phis into block parameters and branch arguments (see
/// [`block_params`]) in each live function.
///
/// Reads [`PipelineConfig`] and [`Cfg`]; writes every column, the value table,
/// [`BlockParamScratch`], [`ValidAnalyses`] and [`PassStats`]. Requires an SSA phase and
/// [`plan_block_params`] plus [`grow_rows`] before it. Establishes: no phi remains except
/// in blocks entered by an `indirect_br` edge; the phase is unchanged. Trampolines
/// (asm-goto edges) invalidate every analysis.
pub fn convert_phis_to_block_params(
    mut ir: IrMut,
    cfg: Res<PerSlot<Cfg>>,
    config: Res<PipelineConfig>,
    mut scratch: ResMut<BlockParamScratch>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
    mut stats: ResMut<PerSlot<PassStats>>,
) {
    let passes = config.passes;
    if !passes.has(Pass::BlockParams) || passes.has(Pass::PhiElim) {
        return;
    }
    for (s, mut f) in ir.bodies() {
        if !f.info.phase.is_ssa() {
            continue;
        }
        let report = block_params::convert(&mut f, &cfg[s], &mut scratch);
        if report.trampolines > 0 {
            valid[s].0 = Analyses::empty();
        }
        report.report(&mut stats[s]);
    }
}

/// Inserts the SSA passes' scratch resources (empty) into `world`.
pub fn init_resources(world: &mut World) {
    world.init_resource::<PerSlot<Mem2RegScratch>>();
    world.init_resource::<PhiElimScratch>();
    world.init_resource::<BlockParamScratch>();
}

/// Adds the SSA systems to their stages: plan, grow, rewrite, chained in each.
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(
        (plan_mem2reg, grow_rows, rename_allocas)
            .chain()
            .in_set(Stage::Mem2Reg),
    );
    schedule.add_systems(
        (
            plan_phi_elim.in_set(Pass::PhiElim),
            plan_block_params.in_set(Pass::BlockParams),
            grow_rows,
            eliminate_phis.in_set(Pass::PhiElim),
            convert_phis_to_block_params.in_set(Pass::BlockParams),
        )
            .chain()
            .in_set(Stage::OutOfSsa),
    );
}

//! Analyses: the control-flow graph, dominator tree, dominance frontiers and strongly
//! connected components of the function in the World (002 steps 2-4; DESIGN.md 1).
//!
//! Each analysis is a resource holding dense side tables keyed by [`Block`](crate::ir::Block)
//! index (CSR lists, `u32::MAX` sentinels), with `compute` (taking [`IrRead`](crate::ir::IrRead) or the
//! [`Cfg`], so it also runs outside the World: tests, fuzzing, later passes) and `clear`
//! (keeps capacity: resources are cleared, never dropped, between functions). The systems
//! below wrap `compute`; each reads the resources named in its doc and overwrites its own.
//!
//! Order: [`compute_cfg`] in [`Stage::Cfg`]; then [`compute_idoms`], [`compute_frontiers`]
//! and [`compute_sccs`], chained in [`Stage::Dominance`].
//!
//! Complexity: linear in blocks + edges per function (see each module).

pub mod cfg;
pub mod dominance;
pub mod frontiers;
pub mod scc;

pub use cfg::Cfg;
pub use dominance::DomTree;
pub use frontiers::{DominanceFrontiers, IdfScratch};
pub use scc::Sccs;

use crate::engine::{IrQuery, Stage};
use bevy_ecs::prelude::*;

/// Builds the CFG of the function in the World.
///
/// Reads the function through [`IrQuery`] (block terminators, `asm goto` labels); writes
/// [`Cfg`]. Requires nothing (invalid edges are skipped and counted, the verifier reports
/// them). Establishes successors, predecessors (one per edge), reverse postorder and
/// critical edges for the current function.
pub fn compute_cfg(ir: IrQuery, mut cfg: ResMut<Cfg>) {
    cfg.compute(&ir);
}

/// Computes immediate dominators and the dominator tree (Cooper-Harvey-Kennedy).
///
/// Reads [`Cfg`]; writes [`DomTree`]. Requires [`compute_cfg`] to have run on the current
/// function. Establishes `idom`, tree children and the preorder/postorder numbering used by
/// [`DomTree::dominates`].
pub fn compute_idoms(cfg: Res<Cfg>, mut dom: ResMut<DomTree>) {
    dom.compute(&cfg);
}

/// Computes the dominance frontier of every block.
///
/// Reads [`Cfg`] and [`DomTree`]; writes [`DominanceFrontiers`]. Requires [`compute_idoms`]
/// on the current function. Establishes DF(b) for all blocks (sorted, deduplicated; the entry
/// block may appear when it is a loop header).
pub fn compute_frontiers(cfg: Res<Cfg>, dom: Res<DomTree>, mut df: ResMut<DominanceFrontiers>) {
    df.compute(&cfg, &dom);
}

/// Computes the strongly connected components of the reachable CFG (Tarjan, iterative).
///
/// Reads [`Cfg`]; writes [`Sccs`]. Requires [`compute_cfg`] on the current function.
/// Establishes component ids and components in reverse topological order.
pub fn compute_sccs(cfg: Res<Cfg>, mut sccs: ResMut<Sccs>) {
    sccs.compute(&cfg);
}

/// Recomputes the CFG, dominator tree, SCCs and dominance frontiers present in `world` for
/// `f` (a function taken out of the World whose control flow a pass changed), so that later
/// systems read analyses of the current function. Does nothing if `world` has no [`Cfg`].
pub fn recompute_analyses(world: &mut World, f: &crate::ir::Function) {
    let Some(mut cfg) = world
        .get_resource_mut::<Cfg>()
        .map(|mut c| std::mem::take(&mut *c))
    else {
        return;
    };
    cfg.compute(f);
    if let Some(mut dom) = world.get_resource_mut::<DomTree>() {
        dom.compute(&cfg);
    }
    if let Some(mut sccs) = world.get_resource_mut::<Sccs>() {
        sccs.compute(&cfg);
    }
    if let Some(mut df) = world
        .get_resource_mut::<DominanceFrontiers>()
        .map(|mut d| std::mem::take(&mut *d))
    {
        df.compute(&cfg, world.resource::<DomTree>());
        *world.resource_mut::<DominanceFrontiers>() = df;
    }
    *world.resource_mut::<Cfg>() = cfg;
}

/// Inserts the analysis resources (empty) into `world`.
pub fn init_resources(world: &mut World) {
    world.init_resource::<Cfg>();
    world.init_resource::<DomTree>();
    world.init_resource::<DominanceFrontiers>();
    world.init_resource::<Sccs>();
}

/// Adds the analysis systems to their stages: `compute_cfg` in [`Stage::Cfg`];
/// `compute_idoms`, `compute_frontiers`, `compute_sccs` chained in [`Stage::Dominance`]
/// (frontiers need the tree; SCCs are ordered after them so no two systems touching the same
/// resource are ambiguous).
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(compute_cfg.in_set(Stage::Cfg));
    schedule.add_systems(
        (compute_idoms, compute_frontiers, compute_sccs)
            .chain()
            .in_set(Stage::Dominance),
    );
}

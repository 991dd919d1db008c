//! Analyses: the control-flow graph, dominator tree, dominance frontiers and strongly
//! connected components of the function in the World (002 steps 2-4; DESIGN.md 1).
//!
//! Each analysis is a resource holding dense side tables keyed by [`Block`]
//! index (CSR lists, `u32::MAX` sentinels), with `compute` (taking [`IrRead`] or the
//! [`Cfg`], so it also runs outside the World: tests, fuzzing, later passes) and `clear`
//! (keeps capacity: resources are cleared, never dropped, between functions). The systems
//! below wrap `compute`; each reads the resources named in its doc and overwrites its own.
//!
//! When: the engine's Begin system of every stage calls [`AnalysesMut::refresh`] with what
//! the stage's enabled passes read (the pass table's `reads`); an analysis is computed only
//! if it is missing from [`ValidAnalyses`]: once per state of the function, again only after
//! a pass that changed the CFG removed it from there. The `compute_*` systems below do the
//! same work one analysis at a time, for running alone (tests, fuzz checks).
//!
//! Complexity: linear in blocks + edges per function (see each module).

pub mod cfg;
pub mod dominance;
pub mod frontiers;
pub mod order;
pub mod scc;

pub use cfg::Cfg;
pub use dominance::DomTree;
pub use frontiers::{DominanceFrontiers, IdfScratch};
pub use scc::Sccs;

use crate::ir::{Block, ImmediateDominator, IrRead, IrView};
pub use crate::stage::Analyses;
use bevy_ecs::prelude::*;

/// The analyses whose resources describe the function now in the World (DESIGN.md 2,
/// rule 7). Loading a function empties it; a system that changes the CFG removes what it
/// invalidated; the `compute_*` systems add what they computed. Analyses are recomputed only
/// when a stage that reads them finds them missing here.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidAnalyses(pub Analyses);

/// Builds the CFG of the function in the World.
///
/// Reads the block columns `BlockInsts`, `BlockTerm`, `BlockDead` and the instruction column
/// `InstOp` (asm-goto labels) through [`IrView`]; writes [`Cfg`] and marks it valid (and
/// everything computed from an older CFG invalid). Requires nothing (invalid edges are
/// skipped and counted; the verifier reports them). Establishes successors, predecessors
/// (one per edge), reverse postorder and critical edges for the current function.
pub fn compute_cfg(ir: IrView, mut cfg: ResMut<Cfg>, mut valid: ResMut<ValidAnalyses>) {
    cfg.compute(&ir.body());
    valid.0 = Analyses::CFG;
}

/// Computes immediate dominators and the dominator tree (Cooper-Harvey-Kennedy).
///
/// Reads [`Cfg`]; writes [`DomTree`] and the `ImmediateDominator` column, and marks them
/// valid. Requires a valid CFG.
/// Establishes `idom`, tree children and the preorder/postorder numbering used by
/// [`DomTree::dominates`].
pub fn compute_idoms(
    cfg: Res<Cfg>,
    mut dom: ResMut<DomTree>,
    mut idoms: Query<&mut ImmediateDominator>,
    mut valid: ResMut<ValidAnalyses>,
) {
    dom.compute(&cfg);
    write_idoms(&mut idoms, &dom);
    valid.0 |= Analyses::DOMTREE;
}

/// Writes `dom`'s immediate dominators into the `ImmediateDominator` column (row = block).
fn write_idoms(idoms: &mut Query<&mut ImmediateDominator>, dom: &DomTree) {
    if let Some(column) = idoms
        .contiguous_iter_mut()
        .ok()
        .and_then(|mut it| it.next())
    {
        let column =
            bevy_ecs::change_detection::ContiguousMut::bypass_change_detection_split(column).0;
        let n = dom.num_blocks().min(column.len());
        for (b, slot) in column.iter_mut().enumerate().take(n) {
            *slot = dom
                .idom(Block::new(b))
                .map_or(ImmediateDominator::NONE, ImmediateDominator);
        }
    }
}

/// The `ImmediateDominator` column as a slice (empty before any block exists).
fn idom_column<'a>(idoms: &'a Query<&mut ImmediateDominator>) -> &'a [ImmediateDominator] {
    idoms
        .contiguous_iter()
        .ok()
        .and_then(|mut it| it.next())
        .unwrap_or(&[])
}

/// Computes the dominance frontier of every block.
///
/// Reads [`Cfg`] and the `ImmediateDominator` column of the block entities; writes
/// [`DominanceFrontiers`] and marks them valid. Requires a valid tree (which wrote the
/// column). Establishes DF(b) for all blocks (sorted, deduplicated; the entry block may
/// appear when it is a loop header).
pub fn compute_frontiers(
    cfg: Res<Cfg>,
    idoms: Query<&ImmediateDominator>,
    mut df: ResMut<DominanceFrontiers>,
    mut valid: ResMut<ValidAnalyses>,
) {
    let column = idoms
        .contiguous_iter()
        .ok()
        .and_then(|mut it| it.next())
        .unwrap_or(&[]);
    df.compute_from_idoms(&cfg, |b| column.get(b.index()).and_then(|d| d.get()));
    valid.0 |= Analyses::FRONTIERS;
}

/// Computes the strongly connected components of the reachable CFG (Tarjan, iterative).
///
/// Reads [`Cfg`]; writes [`Sccs`] and marks them valid. Requires a valid CFG.
/// Establishes component ids and components in reverse topological order.
pub fn compute_sccs(cfg: Res<Cfg>, mut sccs: ResMut<Sccs>, mut valid: ResMut<ValidAnalyses>) {
    sccs.compute(&cfg);
    valid.0 |= Analyses::SCCS;
}

/// Inserts the analysis resources (empty) into `world`.
pub fn init_resources(world: &mut World) {
    world.init_resource::<Cfg>();
    world.init_resource::<DomTree>();
    world.init_resource::<DominanceFrontiers>();
    world.init_resource::<Sccs>();
    world.init_resource::<ValidAnalyses>();
}

/// Every analysis resource, writable, and the `ImmediateDominator` column of the block
/// entities: what a system that brings analyses up to date takes.
#[derive(bevy_ecs::system::SystemParam)]
pub struct AnalysesMut<'w, 's> {
    /// The immediate dominator of every block, as a column.
    pub idoms: Query<'w, 's, &'static mut ImmediateDominator>,
    /// The CFG.
    pub cfg: ResMut<'w, Cfg>,
    /// The dominator tree.
    pub dom: ResMut<'w, DomTree>,
    /// The dominance frontiers.
    pub df: ResMut<'w, DominanceFrontiers>,
    /// The SCCs.
    pub sccs: ResMut<'w, Sccs>,
    /// Which of them describe the function now.
    pub valid: ResMut<'w, ValidAnalyses>,
}

impl AnalysesMut<'_, '_> {
    /// Computes the analyses of `which` (with their inputs) that are not valid for `ir`, in
    /// dependency order, and marks them valid. Each is computed at most once per state of
    /// the function (DESIGN.md 2, rule 7).
    pub fn refresh(&mut self, ir: &impl IrRead, which: Analyses) {
        let want = which.with_inputs();
        let missing = want - self.valid.0;
        if missing.is_empty() {
            return;
        }
        if missing.contains(Analyses::CFG) {
            self.cfg.compute(ir);
            self.valid.0 = Analyses::CFG;
        }
        let missing = want - self.valid.0;
        if missing.contains(Analyses::DOMTREE) {
            self.dom.compute(&self.cfg);
            write_idoms(&mut self.idoms, &self.dom);
            self.valid.0 |= Analyses::DOMTREE;
        }
        if missing.contains(Analyses::FRONTIERS) {
            let idoms = idom_column(&self.idoms);
            self.df
                .compute_from_idoms(&self.cfg, |b| idoms.get(b.index()).and_then(|d| d.get()));
            self.valid.0 |= Analyses::FRONTIERS;
        }
        if missing.contains(Analyses::SCCS) {
            self.sccs.compute(&self.cfg);
            self.valid.0 |= Analyses::SCCS;
        }
    }
}

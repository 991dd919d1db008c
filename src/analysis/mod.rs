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

use crate::ir::{Block, FunctionTables, ImmediateDominator, IrRead, IrView, PerSlot, SlotOf};
pub use crate::stage::Analyses;
use bevy_ecs::prelude::*;

/// The analyses whose resources describe the function now in the World (DESIGN.md 2,
/// rule 7), one per function slot ([`PerSlot`]). Loading a function empties its slot's;
/// a system that changes the CFG removes what it invalidated; the `compute_*` systems add
/// what they computed. Analyses are recomputed only when a stage that reads them finds them
/// missing here.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidAnalyses(pub Analyses);

/// The `ImmediateDominator` column with each row's slot: what the tree computation writes
/// and the frontier computation reads.
pub type IdomColumn = (&'static mut ImmediateDominator, &'static SlotOf);

/// Builds the CFG of each live function in the World.
///
/// Reads the block columns `BlockInsts`, `BlockTerm`, `BlockDead` and the instruction column
/// `InstOp` (asm-goto labels) through [`IrView`]; writes [`Cfg`] and marks it valid (and
/// everything computed from an older CFG invalid). Requires nothing (invalid edges are
/// skipped and counted; the verifier reports them). Establishes successors, predecessors
/// (one per edge), reverse postorder and critical edges for the current function.
pub fn compute_cfg(
    ir: IrView,
    mut cfg: ResMut<PerSlot<Cfg>>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
) {
    for (s, body) in ir.bodies() {
        cfg[s].compute(&body);
        valid[s].0 = Analyses::CFG;
    }
}

/// Computes immediate dominators and the dominator tree (Cooper-Harvey-Kennedy) of each
/// live function.
///
/// Reads [`Cfg`] and the live slots ([`FunctionTables`]); writes [`DomTree`] and the
/// `ImmediateDominator` column, and marks them valid. Requires a valid CFG.
/// Establishes `idom`, tree children and the preorder/postorder numbering used by
/// [`DomTree::dominates`].
pub fn compute_idoms(
    tables: Res<FunctionTables>,
    cfg: Res<PerSlot<Cfg>>,
    mut dom: ResMut<PerSlot<DomTree>>,
    mut idoms: Query<IdomColumn>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
) {
    for s in tables.live_slots() {
        dom[s].compute(&cfg[s]);
        write_idoms(&mut idoms, s, &dom[s]);
        valid[s].0 |= Analyses::DOMTREE;
    }
}

/// Writes `dom`'s immediate dominators into slot `slot`'s `ImmediateDominator` column
/// (row = block).
fn write_idoms(idoms: &mut Query<IdomColumn>, slot: usize, dom: &DomTree) {
    let Ok(chunks) = idoms.contiguous_iter_mut() else {
        return;
    };
    for (column, slots) in chunks {
        if slots[0].0 as usize != slot {
            continue;
        }
        let column =
            bevy_ecs::change_detection::ContiguousMut::bypass_change_detection_split(column).0;
        let n = dom.num_blocks().min(column.len());
        for (b, row) in column.iter_mut().enumerate().take(n) {
            *row = dom
                .idom(Block::new(b))
                .map_or(ImmediateDominator::NONE, ImmediateDominator);
        }
        return;
    }
}

/// Slot `slot`'s `ImmediateDominator` column as a slice (empty before any block exists).
fn idom_column<'a>(idoms: &'a Query<IdomColumn>, slot: usize) -> &'a [ImmediateDominator] {
    idoms
        .contiguous_iter()
        .ok()
        .and_then(|mut it| it.find(|(_, slots)| slots[0].0 as usize == slot))
        .map_or(&[], |(column, _)| column)
}

/// Computes the dominance frontier of every block of each live function.
///
/// Reads [`Cfg`], the live slots and the `ImmediateDominator` column of the block
/// entities; writes [`DominanceFrontiers`] and marks them valid. Requires a valid tree
/// (which wrote the column). Establishes DF(b) for all blocks (sorted, deduplicated; the
/// entry block may appear when it is a loop header).
pub fn compute_frontiers(
    tables: Res<FunctionTables>,
    cfg: Res<PerSlot<Cfg>>,
    idoms: Query<(&ImmediateDominator, &SlotOf)>,
    mut df: ResMut<PerSlot<DominanceFrontiers>>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
) {
    for s in tables.live_slots() {
        let column = idoms
            .contiguous_iter()
            .ok()
            .and_then(|mut it| it.find(|(_, slots)| slots[0].0 as usize == s))
            .map_or(&[][..], |(column, _)| column);
        df[s].compute_from_idoms(&cfg[s], |b| column.get(b.index()).and_then(|d| d.get()));
        valid[s].0 |= Analyses::FRONTIERS;
    }
}

/// Computes the strongly connected components of the reachable CFG (Tarjan, iterative) of
/// each live function.
///
/// Reads [`Cfg`] and the live slots; writes [`Sccs`] and marks them valid. Requires a
/// valid CFG. Establishes component ids and components in reverse topological order.
pub fn compute_sccs(
    tables: Res<FunctionTables>,
    cfg: Res<PerSlot<Cfg>>,
    mut sccs: ResMut<PerSlot<Sccs>>,
    mut valid: ResMut<PerSlot<ValidAnalyses>>,
) {
    for s in tables.live_slots() {
        sccs[s].compute(&cfg[s]);
        valid[s].0 |= Analyses::SCCS;
    }
}

/// Inserts the analysis resources (empty, one per slot) into `world`.
pub fn init_resources(world: &mut World) {
    world.init_resource::<PerSlot<Cfg>>();
    world.init_resource::<PerSlot<DomTree>>();
    world.init_resource::<PerSlot<DominanceFrontiers>>();
    world.init_resource::<PerSlot<Sccs>>();
    world.init_resource::<PerSlot<ValidAnalyses>>();
}

/// Every analysis resource, writable, and the `ImmediateDominator` column of the block
/// entities: what a system that brings analyses up to date takes.
#[derive(bevy_ecs::system::SystemParam)]
pub struct AnalysesMut<'w, 's> {
    /// The immediate dominator of every block, as a column.
    pub idoms: Query<'w, 's, IdomColumn>,
    /// The CFG.
    pub cfg: ResMut<'w, PerSlot<Cfg>>,
    /// The dominator tree.
    pub dom: ResMut<'w, PerSlot<DomTree>>,
    /// The dominance frontiers.
    pub df: ResMut<'w, PerSlot<DominanceFrontiers>>,
    /// The SCCs.
    pub sccs: ResMut<'w, PerSlot<Sccs>>,
    /// Which of them describe the function now.
    pub valid: ResMut<'w, PerSlot<ValidAnalyses>>,
}

impl AnalysesMut<'_, '_> {
    /// Computes the analyses of `which` (with their inputs) that are not valid for `ir`,
    /// the function in slot `slot`, in dependency order, and marks them valid. Each is
    /// computed at most once per state of the function (DESIGN.md 2, rule 7).
    pub fn refresh(&mut self, slot: usize, ir: &impl IrRead, which: Analyses) {
        let want = which.with_inputs();
        let valid = &mut self.valid[slot].0;
        let missing = want - *valid;
        if missing.is_empty() {
            return;
        }
        if missing.contains(Analyses::CFG) {
            self.cfg[slot].compute(ir);
            *valid = Analyses::CFG;
        }
        let missing = want - *valid;
        if missing.contains(Analyses::DOMTREE) {
            self.dom[slot].compute(&self.cfg[slot]);
            write_idoms(&mut self.idoms, slot, &self.dom[slot]);
            *valid |= Analyses::DOMTREE;
        }
        if missing.contains(Analyses::FRONTIERS) {
            let idoms = idom_column(&self.idoms, slot);
            self.df[slot].compute_from_idoms(&self.cfg[slot], |b| {
                idoms.get(b.index()).and_then(|d| d.get())
            });
            *valid |= Analyses::FRONTIERS;
        }
        if missing.contains(Analyses::SCCS) {
            self.sccs[slot].compute(&self.cfg[slot]);
            *valid |= Analyses::SCCS;
        }
    }
}

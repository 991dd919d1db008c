//! Analyses (placeholder until the analysis branch lands).
use crate::ir::{Block, IrRead};
use bevy_ecs::prelude::*;
/// Inserts analysis resources.
pub fn init_resources(_world: &mut World) {}
/// Adds analysis systems.
pub fn configure(_schedule: &mut Schedule) {}
/// Placeholder CFG.
#[derive(Default)]
pub struct Cfg(Vec<Vec<Block>>);
impl Cfg {
    /// Computes.
    pub fn compute(&mut self, ir: &impl IrRead) { self.0 = vec![Vec::new(); ir.num_blocks()]; }
    /// Preds.
    pub fn preds(&self, b: Block) -> &[Block] { &self.0[b.index()] }
    /// Reachable.
    pub fn is_reachable(&self, _b: Block) -> bool { true }
}
/// Placeholder dominator tree.
#[derive(Default)]
pub struct DomTree;
impl DomTree {
    /// Computes.
    pub fn compute(&mut self, _cfg: &Cfg) {}
    /// Dominates.
    pub fn dominates(&self, _a: Block, _b: Block) -> bool { true }
}

//! Phi elimination (stub).
use crate::engine::PassStats;
use crate::ir::Function;
use bevy_ecs::resource::Resource;

/// Counters of one phi elimination.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PhiElimStats {
    /// Copies emitted.
    pub copies: u64,
    /// Trampoline blocks created.
    pub trampolines: u64,
    /// Temporaries allocated.
    pub temporaries: u64,
}

impl PhiElimStats {
    /// Adds the counters to `stats` under pass `phi-elim`.
    pub fn report(&self, stats: &mut PassStats) {
        stats.add("phi-elim", "copies_emitted", self.copies);
        stats.add("phi-elim", "trampolines", self.trampolines);
        stats.add("phi-elim", "temporaries", self.temporaries);
    }
}

/// Reusable scratch.
#[derive(Resource, Default, Debug)]
pub struct PhiElimScratch {}

/// Eliminates phis.
pub fn eliminate(f: &mut Function, scratch: &mut PhiElimScratch) -> PhiElimStats {
    let _ = (f, scratch);
    PhiElimStats::default()
}

/// Eliminates the phis of `f` with fresh scratch.
pub fn eliminate_phis(f: &mut Function) -> PhiElimStats {
    eliminate(f, &mut PhiElimScratch::default())
}

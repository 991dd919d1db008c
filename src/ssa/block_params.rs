//! Block parameters (stub).
use crate::engine::PassStats;
use crate::ir::Function;

/// Counters of one conversion.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BlockParamStats {
    /// Phis converted.
    pub params: u64,
    /// Trampolines.
    pub trampolines: u64,
}

impl BlockParamStats {
    /// Adds the counters to `stats`.
    pub fn report(&self, stats: &mut PassStats) {
        stats.add("block-params", "params", self.params);
    }
}

/// Converts.
pub fn convert(f: &mut Function) -> BlockParamStats {
    let _ = f;
    BlockParamStats::default()
}

/// Converts the phis of `f` to block parameters.
pub fn convert_phis_to_block_params(f: &mut Function) -> BlockParamStats {
    convert(f)
}

//! The pass registry: kebab-case names, the stage each pass runs in, the analyses it needs,
//! and whether this build has it.
//!
//! `--passes` takes a comma-separated list of these names (or `none`). Analyses a requested
//! pass needs are added on demand ([`PassSet::with_requirements`]); passes of stages not yet
//! built are rejected with [`PassError::Unavailable`] rather than silently ignored.

use super::Stage;
use std::fmt;

bitflags::bitflags! {
    /// A set of passes (bit `i` is `Pass::ALL[i]`).
    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
    pub struct PassSet: u16 {
        /// `verify`
        const VERIFY = 1 << 0;
        /// `cfg`
        const CFG = 1 << 1;
        /// `dominance`
        const DOMINANCE = 1 << 2;
        /// `mem2reg`
        const MEM2REG = 1 << 3;
        /// `sccp`
        const SCCP = 1 << 4;
        /// `placement`
        const PLACEMENT = 1 << 5;
        /// `phi-elim`
        const PHI_ELIM = 1 << 6;
        /// `block-params`
        const BLOCK_PARAMS = 1 << 7;
        /// `lower`
        const LOWER = 1 << 8;
        /// `regalloc`
        const REGALLOC = 1 << 9;
        /// `check`
        const CHECK = 1 << 10;
    }
}

/// A pass of the pipeline, as named on the command line.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Pass {
    /// IR invariants of the current phase.
    Verify,
    /// Control-flow graph: successors, predecessors, reverse postorder, critical edges.
    Cfg,
    /// Immediate dominators, dominator tree, dominance frontiers.
    Dominance,
    /// SSA construction (promotion of allocas).
    Mem2Reg,
    /// Sparse conditional constant propagation.
    Sccp,
    /// Placement of blocks on execution targets.
    Placement,
    /// Phi elimination to copies.
    PhiElim,
    /// Phi to block-parameter conversion.
    BlockParams,
    /// Lowering to machine operands.
    Lower,
    /// Register allocation.
    Regalloc,
    /// Allocation checker.
    Check,
}

/// Static facts about a pass.
#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// Kebab-case name.
    pub name: &'static str,
    /// The stage whose systems implement it.
    pub stage: Stage,
    /// Built in this version.
    pub available: bool,
    /// Passes that must run before it (run on demand).
    pub requires: PassSet,
    /// True if the pass rewrites the IR (the verifier runs after it with `--verify-each`).
    pub transforms: bool,
    /// One-line description for `--help`.
    pub summary: &'static str,
}

impl Pass {
    /// Every pass, in pipeline order.
    pub const ALL: [Pass; 11] = [
        Pass::Verify,
        Pass::Cfg,
        Pass::Dominance,
        Pass::Mem2Reg,
        Pass::Sccp,
        Pass::Placement,
        Pass::PhiElim,
        Pass::BlockParams,
        Pass::Lower,
        Pass::Regalloc,
        Pass::Check,
    ];

    /// The pass's bit in a [`PassSet`].
    pub fn bit(self) -> PassSet {
        PassSet::from_bits_truncate(1 << (self as u16))
    }

    /// Static facts about the pass.
    pub fn info(self) -> PassInfo {
        let p = |name, stage, available, requires, transforms, summary| PassInfo {
            name,
            stage,
            available,
            requires,
            transforms,
            summary,
        };
        // Transforming passes require valid input, so they pull in the verifier.
        let analyses = PassSet::VERIFY | PassSet::CFG | PassSet::DOMINANCE;
        let cfg = PassSet::VERIFY | PassSet::CFG;
        match self {
            Pass::Verify => p(
                "verify",
                Stage::Verify,
                true,
                PassSet::empty(),
                false,
                "check the IR invariants of the current phase",
            ),
            Pass::Cfg => p(
                "cfg",
                Stage::Cfg,
                true,
                PassSet::empty(),
                false,
                "successors, predecessors (per edge), reverse postorder, critical edges",
            ),
            Pass::Dominance => p(
                "dominance",
                Stage::Dominance,
                true,
                PassSet::CFG,
                false,
                "immediate dominators, dominator tree, dominance frontiers, SCCs",
            ),
            Pass::Mem2Reg => p(
                "mem2reg",
                Stage::Mem2Reg,
                true,
                analyses,
                true,
                "promote allocas to SSA values",
            ),
            Pass::Sccp => p(
                "sccp",
                Stage::Sccp,
                true,
                cfg,
                true,
                "sparse conditional constant propagation",
            ),
            Pass::Placement => p(
                "placement",
                Stage::Placement,
                true,
                analyses,
                false,
                "place blocks on execution targets",
            ),
            Pass::PhiElim => p(
                "phi-elim",
                Stage::OutOfSsa,
                true,
                cfg,
                true,
                "replace phis by copies in predecessors",
            ),
            Pass::BlockParams => p(
                "block-params",
                Stage::OutOfSsa,
                true,
                cfg,
                true,
                "convert phis to block parameters",
            ),
            Pass::Lower => p(
                "lower",
                Stage::Lower,
                false,
                PassSet::VERIFY,
                true,
                "lower to machine operands",
            ),
            Pass::Regalloc => p(
                "regalloc",
                Stage::Regalloc,
                false,
                PassSet::empty(),
                true,
                "allocate registers",
            ),
            Pass::Check => p(
                "check",
                Stage::Check,
                false,
                PassSet::empty(),
                false,
                "check the register allocation",
            ),
        }
    }

    /// Looks a pass up by its kebab-case name.
    pub fn from_name(name: &str) -> Option<Pass> {
        Pass::ALL.iter().copied().find(|p| p.info().name == name)
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().name)
    }
}

/// Why a pass list was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PassError {
    /// The name is not a pass.
    #[error("unknown pass `{name}` (known passes: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// Comma-separated list of pass names.
        known: String,
    },
    /// The pass exists but is not built yet.
    #[error("pass `{0}` is not available in this build yet")]
    Unavailable(&'static str),
    /// Two passes that exclude each other were requested.
    #[error("passes `{0}` and `{1}` are alternatives; request one of them")]
    Conflict(&'static str, &'static str),
}

impl PassSet {
    /// Every pass this build has.
    pub fn available() -> PassSet {
        Pass::ALL
            .iter()
            .filter(|p| p.info().available)
            .fold(PassSet::empty(), |s, p| s | p.bit())
    }

    /// The pipeline run when no pass list is given: every available pass, leaving SSA by
    /// phi elimination (`block-params` is the alternative for register allocation).
    pub fn default_pipeline() -> PassSet {
        let set = PassSet::available();
        if set.contains(PassSet::PHI_ELIM) {
            set - PassSet::BLOCK_PARAMS
        } else {
            set
        }
    }

    /// Parses a comma-separated list of pass names; `none` (alone) is the empty set.
    ///
    /// # Errors
    /// [`PassError::Unknown`] for a name that is not a pass, [`PassError::Unavailable`] for a
    /// pass this build does not have.
    pub fn parse(list: &str) -> Result<PassSet, PassError> {
        let mut set = PassSet::empty();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "none" {
                continue;
            }
            let pass = Pass::from_name(name).ok_or_else(|| PassError::Unknown {
                name: name.to_string(),
                known: Pass::ALL
                    .iter()
                    .map(|p| p.info().name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
            if !pass.info().available {
                return Err(PassError::Unavailable(pass.info().name));
            }
            set |= pass.bit();
        }
        if set.contains(PassSet::PHI_ELIM | PassSet::BLOCK_PARAMS) {
            return Err(PassError::Conflict("phi-elim", "block-params"));
        }
        Ok(set)
    }

    /// This set plus, transitively, every pass its members require.
    pub fn with_requirements(self) -> PassSet {
        let mut set = self;
        loop {
            let next = Pass::ALL
                .iter()
                .filter(|p| set.contains(p.bit()))
                .fold(set, |s, p| s | p.info().requires);
            if next == set {
                return set;
            }
            set = next;
        }
    }

    /// True if `pass` is in the set.
    pub fn has(self, pass: Pass) -> bool {
        self.contains(pass.bit())
    }

    /// The passes of the set, in pipeline order.
    pub fn passes(self) -> impl Iterator<Item = Pass> {
        Pass::ALL.into_iter().filter(move |p| self.has(*p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_match_order() {
        for (i, p) in Pass::ALL.iter().enumerate() {
            assert_eq!(p.bit().bits(), 1 << i, "{p}");
            assert_eq!(Pass::from_name(p.info().name), Some(*p));
        }
    }

    #[test]
    fn parse_lists() {
        assert_eq!(PassSet::parse("none"), Ok(PassSet::empty()));
        assert_eq!(
            PassSet::parse("cfg,verify"),
            Ok(PassSet::CFG | PassSet::VERIFY)
        );
        assert!(matches!(
            PassSet::parse("cfg,bogus"),
            Err(PassError::Unknown { .. })
        ));
        assert_eq!(
            PassSet::parse("dominance").unwrap().with_requirements(),
            PassSet::CFG | PassSet::DOMINANCE
        );
    }
}

//! SSA construction (mem2reg), phi elimination and phi to block-parameter conversion
//! (specification 002; DESIGN.md 1, 4).
//!
//! What: [`plan`] and [`rename_promoted`] turns memory-form locals (`alloca` slots accessed only by loads and
//! stores) into SSA values and phis, in the classic steps of Cytron et al., "Efficiently
//! Computing Static Single Assignment Form and the Control Dependence Graph" (1991), on the
//! Cooper-Harvey-Kennedy dominator tree and frontiers of [`crate::analysis`] (2001):
//!
//! 1. [`promotable`]: which allocas can be promoted, and where each is defined and read;
//! 2. [`place_phis`]: iterated dominance frontiers of the defining blocks, pruned by
//!    liveness (no phi where the variable is dead, so at most minimal SSA's phi count:
//!    DESIGN.md 4), and the phi copy-cost limit [`MAX_PHI_COPY_COST`];
//! 3. [`rename`]: one iterative walk of the dominator tree with per-alloca definition
//!    stacks; promoted loads disappear and their uses read the current definition directly
//!    (002 describes `copy` instructions; we rewrite uses instead, which leaves fewer
//!    instructions and the same values), stores and the promoted allocas disappear.
//! 4. [`trivial_phis`]: placed phis whose incoming operands turned out to be one value
//!    apart from the phi itself (the same constant stored on every path, a variable
//!    re-stored with its own value) are removed and their uses read that value, iterated
//!    to a fixpoint with a worklist (LLVM's `PromoteMemToReg` does the same; statistic
//!    `phis_trivial_removed`); then redundant phi SCCs, cycles of placed phis whose only
//!    operand from outside the cycle is one value though no single phi of it is trivial
//!    (`x = x;` in an irreducible loop, the same value stored before an outer loop and at
//!    the end of an inner loop's body), are removed the same way (Braun et al. 2013, 3.2;
//!    statistic `phis_redundant_scc_removed`). Liveness pruning cannot see these: the slot
//!    is live there.
//!
//! [`phi_elim`] leaves SSA for the backend (copies in predecessors, lost-copy temporaries,
//! trampolines on critical edges; phase [`Phase::Destructed`](crate::ir::Phase)), and
//! [`block_params`] converts phis to block parameters and branch arguments instead.
//!
//! Two invocations (002): [`crate::api::promote_allocas_skipping_params`] skips the first N
//! entry-block allocas (N = number of parameters: the inliner stores arguments into them);
//! [`crate::api::promote_allocas`] includes them unless nothing in the IR stores to them. The pipeline
//! pass `mem2reg` uses the second by default (strata has no inliner between the two: after
//! import every parameter alloca is an ordinary local with an explicit store), the first
//! with `PassOptions::mem2reg_skip_params`. Promoted parameter allocas are removed like
//! every promoted alloca (DESIGN.md 4).
//!
//! Decisions beyond 002 (each documented where it is implemented):
//! - an alloca kills its slot's value (it yields a fresh, zeroed slot each time it executes,
//!   as in the interpreter), so a slot is never live-in at its alloca's block and no phi
//!   ever lands in the entry block, even when the entry is a loop header;
//! - type-punned loads and stores, volatile accesses, atomics, opaque uses and read-write
//!   (`+`) asm outputs disqualify, like the escapes 002 lists;
//! - `asm goto` labels reached from a block that defines a slot after the asm become phi
//!   sites, so each edge carries its own value (002's snapshots, made exact);
//! - phi entries for edges from unreachable predecessors carry the slot's zero.
//!
//! The systems in [`systems`] run these steps on the function's columns in the World
//! (stages `Mem2Reg` and `OutOfSsa`): [`plan`] and [`rename_promoted`] are the two halves of mem2reg
//! around the row growth step; the library entry points of [`crate::api`]
//! (`promote_allocas`, `eliminate_phis`, `convert_phis_to_block_params`) run those same
//! systems through the engine on a [`Function`](crate::ir::Function).
//!
//! Complexity of [`plan`] and [`rename_promoted`]: O(instructions + operands) for scanning, renaming and trivial
//! phi removal (O(placed phis + their incoming operands + uses of placed phis)), redundant
//! SCC removal O(placed phis + their incoming operands) per level of nested inner SCCs
//! (see [`trivial_phis`]), plus per
//! promoted alloca O(live region + |DF+(defs)|) for liveness and placement; everything in
//! dense, reusable vectors ([`Mem2RegScratch`]); no recursion (100k-block functions).

pub mod block_params;
pub mod forward;
pub mod phi_elim;
pub mod place_phis;
pub mod promotable;
pub mod rename;
pub mod systems;
pub mod trivial_phis;

pub use block_params::{BlockParamScratch, BlockParamStats};
pub use phi_elim::{PhiElimScratch, PhiElimStats};
pub use promotable::ParamAllocas;
pub use systems::{configure, init_resources};

use crate::analysis::{Cfg, DomTree, DominanceFrontiers};
use crate::ir::{Block, Body, Phase, Value};
use crate::stage::PassStats;

/// Largest alloca (allocation size and type size, in bytes) that can live in a register
/// (002: the width of a general-purpose register on a 64-bit target). Wider scalars
/// (`i128`, `iN` above 64 bits, `f80`) are promoted too, as LLVM promotes every
/// first-class type: see [`promotable_size`].
pub const MAX_PROMOTABLE_ALLOCA_SIZE: usize = 8;

/// True if an alloca of type `ty` and `size` bytes can be one SSA value, as LLVM 14's
/// mem2reg promotes every first-class type:
/// - a scalar whose allocation holds it and is no larger than its natural slot: at most
///   [`MAX_PROMOTABLE_ALLOCA_SIZE`] for the register-sized types (002), and for wider
///   scalars (`i128`, `i96`, `f80`, ...) their store size rounded up to a power of two
///   (16 bytes for `i128` and `f80`; lowering splits such values into register parts). A
///   larger allocation is an array alloca (`alloca i32, size 16`), left in memory;
/// - an aggregate (struct or array) or a vector of any size whose allocation holds it (a
///   slot only loaded and stored whole is one SSA value).
#[inline]
pub fn promotable_size(ty: crate::ir::Type, size: u64) -> bool {
    let bytes = ty.bytes() as u64;
    if ty.is_aggregate() || ty.is_vector() {
        return size >= bytes;
    }
    let slot = bytes
        .next_power_of_two()
        .max(MAX_PROMOTABLE_ALLOCA_SIZE as u64);
    ty.is_value() && size >= bytes && size <= slot
}

/// Most copies (phis times predecessor edges) that promotion may create in one function
/// before the most expensive allocas are dropped from promotion (002 step 5).
pub const MAX_PHI_COPY_COST: usize = 50_000;

/// Why an alloca was not promoted; each reason is its own statistic.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Reject {
    /// Allocation larger than its type's slot, or smaller than the type ([`promotable_size`]).
    Size,
    /// A `volatile` alloca.
    Volatile,
    /// A volatile load or store of the slot.
    VolatileAccess,
    /// A load or store of another type than the alloca's (DESIGN.md 4).
    TypePunned,
    /// The address is a call argument or callee.
    EscapeCall,
    /// The address is stored to memory.
    EscapeStoredValue,
    /// The address is a `gep` base.
    EscapeGep,
    /// The address is an inline-asm input.
    EscapeAsmInput,
    /// The address is used by a terminator.
    EscapeTerminator,
    /// Any other use of the address (casts, compares, selects, phis, atomics, opaque).
    EscapeOther,
    /// A memory-constraint asm output (`=m`, `=o`, `=V`, `=p`) writes the slot.
    AsmMemoryOutput,
    /// A read-write (`+`) asm output reads the slot through memory.
    AsmReadWrite,
    /// A parameter alloca skipped by [`ParamAllocas::Skip`].
    ParamSkipped,
    /// A parameter alloca with no IR-visible store.
    ParamWithoutStore,
    /// Dropped by the phi copy-cost limit.
    PhiCost,
    /// A `dyn_alloca` (run-time element count, a VLA): never a slot, counted so that
    /// allocas seen and left match LLVM's count of `alloca` instructions.
    DynamicCount,
}

impl Reject {
    /// Every reason, in statistic order.
    pub const ALL: [Reject; 16] = [
        Reject::Size,
        Reject::Volatile,
        Reject::VolatileAccess,
        Reject::TypePunned,
        Reject::EscapeCall,
        Reject::EscapeStoredValue,
        Reject::EscapeGep,
        Reject::EscapeAsmInput,
        Reject::EscapeTerminator,
        Reject::EscapeOther,
        Reject::AsmMemoryOutput,
        Reject::AsmReadWrite,
        Reject::ParamSkipped,
        Reject::ParamWithoutStore,
        Reject::PhiCost,
        Reject::DynamicCount,
    ];

    /// The statistic name (`rejected_<reason>`).
    pub fn stat_name(self) -> &'static str {
        match self {
            Reject::Size => "rejected_size",
            Reject::Volatile => "rejected_volatile",
            Reject::VolatileAccess => "rejected_volatile_access",
            Reject::TypePunned => "rejected_type_punned",
            Reject::EscapeCall => "rejected_escape_call",
            Reject::EscapeStoredValue => "rejected_escape_stored",
            Reject::EscapeGep => "rejected_escape_gep",
            Reject::EscapeAsmInput => "rejected_escape_asm_input",
            Reject::EscapeTerminator => "rejected_escape_terminator",
            Reject::EscapeOther => "rejected_escape_other",
            Reject::AsmMemoryOutput => "rejected_asm_memory_output",
            Reject::AsmReadWrite => "rejected_asm_read_write",
            Reject::ParamSkipped => "rejected_param_skipped",
            Reject::ParamWithoutStore => "rejected_param_without_store",
            Reject::PhiCost => "rejected_phi_cost",
            Reject::DynamicCount => "rejected_dynamic_count",
        }
    }
}

/// Counters of one [`plan`] and [`rename_promoted`] run.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Mem2RegStats {
    /// Allocas in live blocks, `dyn_alloca`s included (LLVM counts both as `alloca`).
    pub allocas_seen: u64,
    /// Allocas promoted.
    pub allocas_promoted: u64,
    /// Rejections, indexed like [`Reject::ALL`].
    pub rejected: [u64; 16],
    /// Phis inserted (and left in the function: trivial phis and redundant phi SCCs
    /// removed after renaming are not counted here).
    pub phis_placed: u64,
    /// Placed phis removed after renaming because all their incoming operands were one
    /// value apart from the phi itself ([`trivial_phis`]).
    pub phis_trivial_removed: u64,
    /// Placed phis removed after renaming because they formed, with other placed phis, a
    /// redundant SCC: a cycle whose only operand from outside is one value
    /// ([`trivial_phis`], Braun et al. 2013, section 3.2).
    pub phis_redundant_scc_removed: u64,
    /// Iterated-dominance-frontier blocks where no phi was placed because the variable is
    /// not live-in there.
    pub phis_pruned: u64,
    /// Promoted loads removed.
    pub loads_removed: u64,
    /// Promoted stores removed.
    pub stores_removed: u64,
    /// Address slots forwarded before promotion ([`forward`]: LLVM's second promotion
    /// round, done in the first); their loads and stores are counted in `loads_removed`
    /// and `stores_removed`.
    pub address_slots_forwarded: u64,
}

impl Mem2RegStats {
    /// Rejections for one reason.
    pub fn rejected(&self, why: Reject) -> u64 {
        self.rejected[why as usize]
    }

    /// Adds the counters to `stats` under pass `mem2reg` (zero counters are left out).
    pub fn report(&self, stats: &mut PassStats) {
        // `PassStats::add` searches the list once per counter; when no `mem2reg` counter
        // exists yet (the list is per function) each would be created, in this order.
        let fresh = !stats.0.iter().any(|s| s.pass == "mem2reg");
        let mut add = |name, n: u64| match (n, fresh) {
            (0, _) => {}
            (_, true) => stats.0.push(crate::stage::Stat {
                pass: "mem2reg",
                name,
                value: n,
            }),
            (_, false) => stats.add("mem2reg", name, n),
        };
        add("allocas_seen", self.allocas_seen);
        add("allocas_promoted", self.allocas_promoted);
        for r in Reject::ALL {
            add(r.stat_name(), self.rejected(r));
        }
        add("phis_placed", self.phis_placed);
        add("phis_pruned", self.phis_pruned);
        add("phis_trivial_removed", self.phis_trivial_removed);
        add(
            "phis_redundant_scc_removed",
            self.phis_redundant_scc_removed,
        );
        add("loads_removed", self.loads_removed);
        add("stores_removed", self.stores_removed);
        add("address_slots_forwarded", self.address_slots_forwarded);
    }

    /// The counters a pipeline run reported under `mem2reg`.
    pub fn from_report(report: &crate::stage::PassReport) -> Self {
        let get = |name| report.stat("mem2reg", name);
        let mut stats = Mem2RegStats {
            allocas_seen: get("allocas_seen"),
            allocas_promoted: get("allocas_promoted"),
            phis_placed: get("phis_placed"),
            phis_pruned: get("phis_pruned"),
            phis_trivial_removed: get("phis_trivial_removed"),
            phis_redundant_scc_removed: get("phis_redundant_scc_removed"),
            loads_removed: get("loads_removed"),
            stores_removed: get("stores_removed"),
            address_slots_forwarded: get("address_slots_forwarded"),
            ..Default::default()
        };
        for r in Reject::ALL {
            stats.rejected[r as usize] = get(r.stat_name());
        }
        stats
    }
}

/// Reusable scratch of [`plan`] and [`rename_promoted`]: every side table, cleared (never dropped) between
/// functions. Also a resource, so the system keeps one per World.
#[derive(Default, Debug)]
pub struct Mem2RegScratch {
    cands: promotable::Candidates,
    forward: forward::ForwardScratch,
    plan: place_phis::PhiPlan,
    renamer: rename::Renamer,
    stats: Mem2RegStats,
    /// The current function is not in a single-definition phase: mem2reg leaves it alone.
    skip: bool,
}

impl Mem2RegScratch {
    /// The phis placed by the last [`plan`] and [`rename_promoted`]: (alloca value, block), ordered by block.
    /// For oracles (pruning, minimal-SSA comparisons).
    pub fn placed_phis(&self) -> impl Iterator<Item = (Value, Block)> + '_ {
        self.plan
            .phis
            .iter()
            .map(|p| (self.cands.slots[p.slot as usize].value, p.block))
    }

    /// The allocas the last [`plan`] and [`rename_promoted`] did not promote, with the (first) reason.
    pub fn rejected_allocas(&self) -> impl Iterator<Item = (Value, Reject)> + '_ {
        self.cands
            .slots
            .iter()
            .filter_map(|s| s.reject.map(|r| (s.value, r)))
    }

    /// The allocas promoted by the last [`plan`] and [`rename_promoted`], in scan order.
    pub fn promoted_allocas(&self) -> impl Iterator<Item = Value> + '_ {
        self.cands
            .slots
            .iter()
            .filter(|s| s.reject.is_none())
            .map(|s| s.value)
    }
}

/// Steps 1-2 of promotion (see the module doc) on `f`: scans the allocas (forwarding address
/// slots first when the scan finds a stored alloca address: [`forward`], LLVM's later
/// promotion rounds, up front, then scanning again) and places the phis, rejecting what
/// cannot be promoted; the result stays in `scratch` for [`rename_promoted`]. Returns an
/// upper bound on the instruction rows [`rename`] creates (one per phi site).
///
/// `cfg`, `dom` and `df` must describe `f` as it is (forwarding does not change the CFG).
/// `f` must be valid (verifier clean) and in a single-definition phase.
pub fn plan(
    f: &mut Body<'_>,
    cfg: &Cfg,
    dom: &DomTree,
    df: &DominanceFrontiers,
    params: ParamAllocas,
    scratch: &mut Mem2RegScratch,
) -> usize {
    let Mem2RegScratch {
        cands,
        forward,
        plan,
        stats,
        ..
    } = scratch;
    *stats = Mem2RegStats::default();
    promotable::scan(&f.view(), params, cands);
    // Forwarding can only help an alloca whose address is stored: the scan says whether
    // one is, so most functions pay nothing; a forwarding that changed the function is
    // followed by a second scan.
    if cands
        .slots
        .iter()
        .any(|s| s.reject == Some(Reject::EscapeStoredValue))
    {
        let forwarded = forward::forward_address_slots(f, dom, params, forward);
        if forwarded.slots > 0 {
            stats.address_slots_forwarded = forwarded.slots;
            stats.loads_removed = forwarded.loads;
            stats.stores_removed = forwarded.stores;
            promotable::scan(&f.view(), params, cands);
        }
    }
    plan.clear();
    stats.allocas_seen = cands.slots.len() as u64 + cands.dynamic;
    stats.rejected[Reject::DynamicCount as usize] = cands.dynamic;
    let any = cands.slots.iter().any(|s| s.reject.is_none());
    let sites = if any {
        plan.place(f, cfg, dom, df, cands, stats)
    } else {
        0
    };
    for s in &cands.slots {
        match s.reject {
            Some(r) => stats.rejected[r as usize] += 1,
            None => stats.allocas_promoted += 1,
        }
    }
    if stats.allocas_promoted == 0 {
        0
    } else {
        sites
    }
}

/// Steps 3-4 of promotion: creates the planned phis (in spare rows, as many as [`plan`]
/// returned), renames, removes trivial phis and redundant phi SCCs, and sets the phase to
/// [`Phase::Ssa`] if it was [`Phase::Memory`]. `cfg` and `dom` must describe `f` (mem2reg
/// does not change the CFG).
/// Returns the counters of the whole promotion.
pub fn rename_promoted(
    f: &mut Body<'_>,
    cfg: &Cfg,
    dom: &DomTree,
    scratch: &mut Mem2RegScratch,
) -> Mem2RegStats {
    let Mem2RegScratch {
        cands,
        plan,
        renamer,
        stats,
        ..
    } = scratch;
    if stats.allocas_promoted > 0 {
        plan.create(f, cfg, cands);
        stats.phis_placed = plan.phis.len() as u64;
        renamer.run(f, cfg, dom, cands, plan, stats);
    }
    if f.info.phase == Phase::Memory {
        f.info.phase = Phase::Ssa;
    }
    *stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::promote_allocas;
    use crate::ir::{BinaryOp, FunctionBuilder, InstKind, Operand, Signature, SymbolTable, Type};
    use std::sync::Arc;

    #[test]
    fn reasons_are_indexed_in_order() {
        for (i, r) in Reject::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i);
            assert!(r.stat_name().starts_with("rejected_"));
        }
    }

    /// 002 constant narrowing: an `i64` literal stored into an `i32` slot (as a front end
    /// that types every literal `i64` would emit) reaches its uses as an `i32` constant.
    #[test]
    fn stored_constants_are_narrowed() {
        let mut b = FunctionBuilder::new("f", Signature::default());
        let slot = b.alloca(Type::I32, 4, 4);
        let wide = b.iconst(Type::I64, 0x1_0000_0005);
        b.store(Type::I32, wide, slot.into());
        let x = b.load(Type::I32, slot.into());
        let one = b.iconst(Type::I32, 1);
        let y = b.binary(BinaryOp::Add, Type::I32, x.into(), one);
        b.ret(None);
        let mut f = b.finish();
        let stats = promote_allocas(&mut f, &Default::default());
        assert_eq!(stats.allocas_promoted, 1);
        let add = f.blocks[0]
            .insts
            .iter()
            .find(|i| f.insts[i.index()].results.first() == Some(&y))
            .unwrap();
        let InstKind::Binary { lhs, .. } = f.insts[add.index()].kind else {
            panic!("not the add");
        };
        let Operand::Const(c) = lhs else {
            panic!("load not replaced: {lhs:?}");
        };
        assert_eq!(f.consts.get(c), crate::ir::ConstData::int(Type::I32, 5));
    }

    /// The generator's address slots (locals reached through a `ptr` alloca holding their
    /// address, alone or chained) are forwarded and the locals behind them promoted: over
    /// 100 generated functions, every local in the entry is promoted except the volatile
    /// ones and those whose address goes through a `gep`.
    #[cfg(feature = "fuzzing")]
    #[test]
    fn generated_address_slots_are_forwarded() {
        use crate::fuzzing::generate::{seeded, GenOptions};
        let (mut forwarded, mut kept) = (0, 0);
        for seed in 0..100 {
            let mut f = seeded(0xf0_0000 + seed, &GenOptions::default());
            let stats = promote_allocas(&mut f, &Arc::new(SymbolTable::default()));
            forwarded += stats.address_slots_forwarded;
            // What stays in memory is volatile or reached through a gep, never a slot.
            for b in f.blocks.iter().filter(|b| !b.dead) {
                for &i in &b.insts {
                    if let InstKind::Alloca { ty, volatile, .. } = f.insts[i.index()].kind {
                        assert!(
                            volatile || ty != Type::Ptr,
                            "@{} (seed {seed}): an address slot is left",
                            f.name
                        );
                        kept += 1;
                    }
                }
            }
        }
        assert!(forwarded >= 20, "only {forwarded} slots forwarded");
        assert!(kept > 0, "the generator made no unpromotable local");
    }

    #[cfg(feature = "fuzzing")]
    #[test]
    fn generated_functions_brief() {
        crate::fuzzing::mem2reg::run_seeds(60, crate::fuzzing::mem2reg::check);
        crate::fuzzing::mem2reg::run_seeds(60, crate::fuzzing::phi_elim::check);
        crate::fuzzing::mem2reg::run_seeds(60, crate::fuzzing::phi_elim::check_block_params);
    }
}

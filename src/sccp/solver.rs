//! The SCCP analysis: executable edges and one lattice cell per SSA value, to a fixpoint.
//!
//! Algorithm: Wegman & Zadeck, "Constant propagation with conditional branches" (TOPLAS 13(2),
//! 1991), the SCC variant with two worklists, as laid out in 003 ("Worklist Algorithm"):
//!
//! 1. *Initialization*: every cell `Unknown` except parameters and block parameters
//!    (`Overdefined`); no edge executable; the entry block is made reachable (see 2).
//! 2. *CFG-edge worklist*: an edge that becomes executable makes its target reachable (first
//!    time: evaluate its instructions in block order, where the operands of all but phis
//!    are already evaluated, instead of queueing them; an instruction whose cell cannot
//!    depend on its operands, see below, is set `Overdefined`, and so is, without an
//!    evaluation, a scalar one whose operands are all `Overdefined` values, where no rule
//!    can decide (`overdefined_on_overdefined`); then visit its terminator) or
//!    else queues the phi entries of the target that the edge makes live.
//! 3. *SSA worklist*: an item is an instruction, a phi entry or a block's terminator. An
//!    instruction in a reachable block is evaluated ([`eval_inst`], phis over executable
//!    incoming edges only); if its cell changes, every user of the value is queued (a phi
//!    user as the entry that reads the value). A phi entry item, when the entry is live,
//!    meets the entry's cell into the phi's cell: a phi's cell is the meet of its live
//!    entries seen so far and cells only move down, so meeting the one new input is the
//!    same as re-evaluating every entry (aggregate cells, which meet member by member,
//!    re-evaluate the phi instead). An evaluation that yields
//!    `Unknown` (an operand has no value yet) leaves the cell as it is: with the rules where
//!    one constant operand decides (`x | -1`), a cell can be `Const` before all its operands
//!    are known, and it must not move back up (LLVM's solver behaves the same way). A terminator marks the edges its
//!    condition allows: `Unknown` none, `Const` the one taken (`br`, `switch`, `indirect_br`
//!    of a `blockaddress`), `Overdefined` all. `asm goto` labels are always executable.
//! 4. Both worklists are drained alternately until both are empty. Then a reachable block
//!    whose branch condition is still `Unknown` (only possible in IR the verifier rejects) is
//!    forced to take all its edges, and solving resumes; this guarantees that every
//!    successor edge of a reachable block left unresolved is executable.
//!
//! Edges are keyed by (block, successor index): edge ids are `succ_start[b] + i`, with the
//! terminator's successors first and then the block's `asm goto` labels (the order of
//! [`crate::analysis::Cfg`]), so the two edges of `br c, block2, block2` are distinct.
//! A phi entry naming predecessor `P` is live when any edge from `P` to the phi's block is
//! executable (with duplicate edges the interpreter reads the first entry naming `P`; meeting
//! every entry of `P` is a safe over-approximation).
//!
//! Memory limit (003): the estimate is 24 bytes per cell that has left `Unknown` (the entries
//! 003's map would hold); it is checked after every worklist item and block reach; exceeding
//! it returns [`SccpError::MemoryLimit`] with no partial result.
//!
//! Data (DESIGN.md 2, rules 5 and 6): the solver reads the function through [`IrRead`]
//! (in the pipeline, the World's column slices: [`crate::ir::BodyRef`]) and the shared
//! [`Cfg`] computed for it; it never builds a CFG. Edge ids are `succ_start[b] + i` over the
//! CFG's successor lists (copied into the result, which stands alone for
//! [`SccpResult::describe`]); before solving only the pool (the lattice cell of every
//! constant) and the edges are read. The instructions are read by `reach`, once, when their
//! block becomes reachable (code never reached is never read; there is no separate pass over
//! every instruction): their block, the phi entries each edge into the block makes live
//! (linked lists by edge id), and def-use lists (linked lists by value; users are
//! instructions, phi entries or terminators) built lazily: a user listens to an operand when
//! its block is reached, and only if the operand's cell can still change (not a constant,
//! not `Overdefined`: in C code most operands are loads and calls, `Overdefined` as soon as
//! their block is reached, so most uses are never listed). Every later change of a cell
//! queues its listeners, and a change before a user listened happened before its first
//! visit, which reads it: so the lists are complete whatever the visit order.
//! Only users whose evaluation reads operand cells listen (phis, the kinds [`eval_inst`]
//! folds, conditional terminators): stores, calls, `ret` and the like are `Overdefined` or
//! take every edge whatever their operands are, so the visit that follows their block
//! becoming reachable is their only one. Geps and loads listen only where their address may
//! become that of a read-only global (a forward "maybe" mark through geps, pointer loads,
//! phis, selects and copies from the pool's read-only addresses, in reach order, where a
//! definition precedes its uses except for phi operands around a loop, which count as maybe
//! until read); the others are `Overdefined`. Whether a gep or load is evaluated never
//! changes the fixpoint (a value marked "no" is never a read-only address cell), only the
//! work. Every table is a `Vec` keyed by a dense index, cleared but never dropped between
//! functions; the per-value and per-instruction tables the analysis writes only where it
//! reads them (list heads, the instruction's block, the address marks) are not even
//! cleared: each entry carries the stamp of the analysis that wrote it, and one with an
//! older stamp is empty, so these cost a function only what it reaches.
//!
//! Invariants: the 003 lattice is stored densely: "lattice map" = `values[Value]` (the
//! entries are the non-`Unknown` cells), "reachable blocks" and "executable edges" are
//! bitsets. Cells move only down ([`LatticeValue::allows`], checked in debug builds and
//! counted in [`SccpResult::monotonicity_violations`]); an executable edge's target is
//! reachable; the entry block is reachable (checked by [`SccpResult::validate`] in debug
//! builds).
//!
//! Complexity: O(blocks + edges + values + constants) before solving, then
//! O(instructions + operands + phi entries * successors of the entry's predecessor) of
//! reachable blocks to read them as they are reached; each cell changes at most twice (an aggregate's:
//! at most members + 2 times) and each change re-queues its users, each edge is marked once
//! and queues the phi entries it makes live once, so the fixpoint is O(uses + phi entries)
//! evaluations, each O(operands) except phi entry items, O(1) (O(successors of the
//! predecessor) with duplicate edges); a phi is evaluated over all its entries only when
//! its block becomes reachable (and for aggregates). Worklist items carry the kind in two
//! high bits, so instruction, block and phi entry indices are below 2^30.

mod load;

use super::lattice::LatticeValue;
use super::rules::{condition, const_cell, eval_inst, resolved_successor};
use super::{BitSet, SccpError, SccpResult};
use crate::analysis::Cfg;
use crate::ir::{
    Block, ConstKind, Function, Inst, InstKind, IrRead, Operand, SymbolTable, Terminator, Value,
    ValueDef,
};
use load::{check_use, report};

/// Bytes charged per lattice entry by the memory estimate (003).
pub const LATTICE_ENTRY_BYTES: usize = 24;

const NONE: u32 = u32::MAX;
/// A phi entry whose predecessor has several edges to the phi's block.
const MULTI: u32 = u32::MAX - 1;
/// Worklist and user-list items with this bit set name a block's terminator.
const TERM: u32 = 1 << 31;
/// Worklist and user-list items with this bit set (and not [`TERM`]) name a phi entry, by
/// its index in `phi_edge`: one more input to meet into the phi's cell.
const PHI: u32 = 1 << 30;

/// The SCCP solver with its reusable scratch (see the module doc).
#[derive(Default, Debug)]
pub struct Solver {
    result: SccpResult,
    /// `inst_block[Inst]`: (stamp, the live block listing the instruction) for the
    /// instructions [`Solver::reach`] read, whose stamp is `stamp`; stale elsewhere.
    inst_block: Vec<(u32, u32)>,
    /// Def-use lists, built while solving: `user_head[v]` is (stamp, last link of `v`'s list
    /// in `user_links`); the list is empty unless the stamp is `stamp` (so the table is
    /// never filled, only grown).
    user_head: Vec<(u32, u32)>,
    /// (user, next link) pairs: a user is an instruction index, `PHI | entry` or `TERM |
    /// block`; the next link is `NONE` at the end of a list.
    user_links: Vec<(u32, u32)>,
    /// The cell of every pool constant.
    const_cells: Vec<LatticeValue>,
    /// `read_only_consts[Const]`: the constant is the address of a read-only global (empty
    /// unless some constant of the pool is).
    read_only_consts: Vec<bool>,
    /// `phi_first[Inst]` (phis of reached blocks only; stale elsewhere): where the phi's
    /// entries start in `phi_edge`.
    phi_first: Vec<u32>,
    /// Per phi entry, numbered as [`Solver::reach`] meets the phis: the id of the one edge
    /// from its predecessor to the phi's block, `NONE` if there is no such edge, `MULTI` if
    /// there are several.
    phi_edge: Vec<u32>,
    /// Per phi entry: the phi.
    entry_phi: Vec<u32>,
    /// Phi entries made live by each edge into a reached block: `edge_entry_head[e]` is
    /// (stamp, last link of edge `e`'s list in `edge_entry_links`); empty unless the stamp
    /// is `stamp`.
    edge_entry_head: Vec<(u32, u32)>,
    /// Number of the current analysis: the stamp of the valid entries of the stamped tables
    /// (so a new function needs no clearing).
    stamp: u32,
    /// (phi entry, next link) pairs.
    edge_entry_links: Vec<(u32, u32)>,
    /// Queued edge ids.
    edge_work: Vec<u32>,
    /// Queued instructions and terminators.
    work: Vec<u32>,
    /// Reachable blocks whose `Unknown` branch condition was forced to take every edge.
    forced: BitSet,
    /// Cells not `Unknown` (the 003 lattice map's size).
    entries: usize,
    /// Cells that are `Const`: every cell `set` changes is the result of an instruction of
    /// a reachable block, so at the fixpoint this is the foldable count.
    const_cells_set: usize,
    /// Live blocks, and blocks reached so far: the rewrite removes blocks when they differ.
    live_blocks: usize,
    reached_blocks: usize,
    /// Whether a reached block holds a `copy` or a phi whose entries are one operand
    /// (besides the phi itself): the rewrite removes those whatever the cells are.
    rewrite_local: bool,
    /// `address[Value]` while reading the function: the value may become the address of a
    /// read-only global if its entry is `stamp` (never otherwise: so the table is grown,
    /// never filled).
    address: Vec<u32>,
    /// Geps and loads whose address operand may become the address of a read-only global:
    /// only these are evaluated on their operands (the others are `Overdefined`).
    fold_address: BitSet,
    /// Whether some pool constant is the address of a read-only global (then `address`
    /// is sized and geps and loads may fold).
    fold_memory: bool,
}

/// A stamp no analysis has (stamps run from 1 and restart before reaching it): the fill of
/// new entries of the stamped tables. (Its bytes differ, so that the fill is a vector loop,
/// not a `memset`, whose `rep stos` callgrind counts as one instruction per byte.)
const NO_STAMP: u32 = u32::MAX - 1;

/// The head of list `k` in a table of (stamp, head) pairs: `NONE` unless the stamp is
/// `stamp` (the current analysis').
#[inline(always)]
fn head(heads: &[(u32, u32)], k: usize, stamp: u32) -> u32 {
    match heads[k] {
        (s, h) if s == stamp => h,
        _ => NONE,
    }
}

/// Makes `new` the head of list `k` in a table of (stamp, head) pairs; returns the previous
/// head (`NONE` if the list was empty in the current analysis).
#[inline(always)]
fn push_head(heads: &mut [(u32, u32)], k: usize, stamp: u32, new: u32) -> u32 {
    let slot = &mut heads[k];
    let prev = if slot.0 == stamp { slot.1 } else { NONE };
    *slot = (stamp, new);
    prev
}

impl Solver {
    /// An empty solver.
    pub fn new() -> Self {
        Self::default()
    }

    /// The result of the last [`Solver::analyze`]; empty after one that failed (003: no
    /// partial result).
    pub fn result(&self) -> &SccpResult {
        &self.result
    }

    /// Runs SCCP on `f` (003 `sccp_analysis`) given its current control-flow graph `cfg`
    /// (the shared [`Cfg`]: edge ids follow its successor order): reads the pool and the
    /// edges into scratch, solves to the fixpoint (reading each reachable block's
    /// instructions when it is reached) and returns the result.
    ///
    /// # Errors
    /// [`SccpError::InvalidCfg`] for a successor of a live block that is out of range or
    /// dead, and, in reachable blocks (the others are never read; the rewrite removes them
    /// without reading their operands): [`SccpError::InvalidInstruction`] for a listed
    /// instruction out of range, [`SccpError::InvalidSsa`] for a result value out of range,
    /// a terminator operand out of range or never defined, or an operand read by the
    /// analysis (of a phi or a foldable instruction) out of range,
    /// [`SccpError::InvalidConstant`] for such a constant operand out of range of the pool, [`SccpError::MemoryLimit`] when more than `memory_limit` bytes of
    /// lattice entries (24 each) are live. After an error the result is empty.
    ///
    /// # Panics
    /// If `cfg` was computed for a function with another number of blocks (a stale CFG is
    /// a bug of the caller, not bad input).
    pub fn analyze(
        &mut self,
        f: &impl IrRead,
        cfg: &Cfg,
        symbols: &SymbolTable,
        memory_limit: usize,
    ) -> Result<&SccpResult, SccpError> {
        assert_eq!(
            cfg.num_blocks(),
            f.num_blocks(),
            "SCCP of @{}: the CFG describes another function (stale analysis)",
            f.name()
        );
        if let Err(e) = self
            .load(f, cfg, symbols)
            .and_then(|()| self.solve(f, symbols, memory_limit))
        {
            // All or nothing (003): no partial result survives an error.
            self.result.clear();
            return Err(e);
        }
        self.summarize();
        if cfg!(debug_assertions) {
            if let Err(e) = self.result.validate(f) {
                panic!("SCCP result of @{} is invalid: {e}", f.name());
            }
        }
        Ok(&self.result)
    }

    /// Replaces the result (for [`crate::api::apply_sccp_transformations`], which hands the
    /// rewrite system a result computed elsewhere).
    pub fn set_result(&mut self, result: &SccpResult) {
        self.result.clone_from(result);
    }

    #[inline]
    fn cell(&self, o: Operand) -> LatticeValue {
        match o {
            Operand::Value(v) => self.result.values[v.index()],
            Operand::Const(c) => self.const_cells[c.index()],
        }
    }

    #[inline(never)]
    fn solve(
        &mut self,
        f: &impl IrRead,
        symbols: &SymbolTable,
        memory_limit: usize,
    ) -> Result<(), SccpError> {
        if f.num_blocks() == 0 || f.is_block_dead(Block(0)) {
            return Err(SccpError::InvalidCfg { block_id: Block(0) });
        }
        let limit_entries = memory_limit / LATTICE_ENTRY_BYTES;
        self.reach(f, symbols, 0)?;
        self.check_limit(f, limit_entries, memory_limit)?;
        loop {
            while !self.edge_work.is_empty() || !self.work.is_empty() {
                while let Some(e) = self.edge_work.pop() {
                    let t = self.result.succ_block[e as usize].index();
                    if self.result.reachable.contains(t) {
                        // One more executable incoming edge: meet the phi entries it makes
                        // live into their phis.
                        let mut link = head(&self.edge_entry_head, e as usize, self.stamp);
                        while link != NONE {
                            let (x, next) = self.edge_entry_links[link as usize];
                            self.work.push(PHI | x);
                            link = next;
                        }
                    } else {
                        self.reach(f, symbols, t)?;
                        self.check_limit(f, limit_entries, memory_limit)?;
                    }
                }
                while let Some(item) = self.work.pop() {
                    if item & TERM != 0 {
                        self.visit_terminator(f, (item & !TERM) as usize);
                    } else if item & PHI != 0 {
                        self.visit_phi_entry(f, symbols, (item & !PHI) as usize);
                    } else {
                        self.visit_inst(f, symbols, item as usize);
                    }
                    self.check_limit(f, limit_entries, memory_limit)?;
                }
            }
            // Fixpoint. Force branches still waiting on an `Unknown` condition; when none
            // is left, the same walk has counted the resolvable branches of reachable
            // blocks (for the result's summary).
            let mut forced_any = false;
            let mut resolvable = 0;
            for b in 0..f.num_blocks() {
                if !self.result.reachable.contains(b) {
                    continue;
                }
                let t = f.terminator(Block::new(b));
                let Some(c) = condition(t) else { continue };
                match self.cell(c) {
                    LatticeValue::Unknown if !self.forced.contains(b) => {
                        self.forced.insert(b);
                        self.work.push(TERM | b as u32);
                        forced_any = true;
                    }
                    LatticeValue::Const(k) if resolved_successor(f.consts(), t, k).is_some() => {
                        resolvable += 1;
                    }
                    _ => {}
                }
            }
            if !forced_any {
                self.result.resolvable_branches = resolvable;
                return Ok(());
            }
        }
    }

    /// Makes block `b` reachable and reads its instructions (the only time they are read
    /// as a whole; those of blocks never reached are never read). Per instruction: its
    /// block, the "maybe an address of a read-only global" mark (in reach order, which
    /// visits a definition before its uses except around loops, where an operand not seen
    /// yet counts as maybe), and whether its cell can depend on its operands
    /// (`depends_on_operands`). Those that can are listed as users of their operands
    /// ([`Solver::listen`]) and evaluated at once; the others' results are set
    /// `Overdefined`. A phi's entries are mapped to edges ([`Solver::map_phi`]). The
    /// conditional terminator listens to its condition; then the terminator is visited.
    ///
    /// # Errors
    /// An instruction, result or operand (of a listed instruction or the terminator) out of
    /// range or never defined.
    fn reach(&mut self, f: &impl IrRead, symbols: &SymbolTable, b: usize) -> Result<(), SccpError> {
        self.result.reachable.insert(b);
        self.reached_blocks += 1;
        let (ni, nv) = (f.num_insts(), self.result.values.len());
        // Every instruction is handled now rather than queued (the fixpoint does not
        // depend on the order of the items), in block order: an operand defined in this
        // block (except a phi's) is `Overdefined` or evaluated before its users listen and
        // evaluate. Unlisted instructions are `Overdefined` whatever their operands; a
        // listed one listens first, so a later change of an operand queues it.
        for &i in f.block_insts(Block::new(b)) {
            if i.index() >= ni {
                return Err(SccpError::InvalidInstruction { inst: i });
            }
            let (kind, results) = (f.inst_kind(i), f.inst_results(i));
            if let Some(&v) = results.iter().find(|v| v.index() >= nv) {
                return Err(SccpError::InvalidSsa { value_id: v });
            }
            let stamp = self.stamp;
            self.inst_block[i.index()] = (stamp, b as u32);
            let fold_address = self.fold_memory && {
                let inst_block = &self.inst_block;
                // A phi operand defined by an instruction not read yet (around a loop).
                let unseen = |v: Value| match f.values().get(v.index()).map(|d| d.def) {
                    Some(ValueDef::Result(d, _)) => {
                        inst_block.get(d.index()).is_none_or(|&(s, _)| s != stamp)
                    }
                    _ => false,
                };
                may_address(
                    &mut self.address,
                    stamp,
                    &self.read_only_consts,
                    kind,
                    results,
                    unseen,
                )
            };
            if fold_address {
                self.fold_address.insert(i.index());
            }
            if depends_on_operands(kind, results, fold_address) {
                if let InstKind::Phi { incoming, .. } = kind {
                    self.map_phi(i, incoming, b);
                    self.rewrite_local |= single_operand(incoming, results[0]);
                } else {
                    self.rewrite_local |= matches!(kind, InstKind::Copy { .. });
                }
                // Every operand `Overdefined` (no constant): the cell is `Overdefined`
                // without an evaluation (`overdefined_on_overdefined`), and no list grew.
                if matches!(kind, InstKind::Phi { .. }) {
                    self.listen_inst(f, i)?;
                    self.visit_inst(f, symbols, i.index());
                } else if self.listen_inst(f, i)? || !overdefined_on_overdefined(kind) {
                    self.eval_listed(f, symbols, i.index(), kind, results[0]);
                } else {
                    self.set(results[0], LatticeValue::Overdefined);
                }
            } else {
                for &v in results {
                    self.set_on_reach(v);
                }
            }
        }
        let t = f.terminator(Block::new(b));
        if matches!(t, Terminator::Jump(target) if target.args.is_empty()) {
            // No operand, no condition: every edge (the `asm goto` labels too) is taken.
            let r = &self.result;
            let (s, e) = (r.succ_start[b] as usize, r.succ_start[b + 1] as usize);
            (s..e).for_each(|k| self.mark_edge(k));
            return Ok(());
        }
        let mut bad = None;
        t.for_each_operand(|o| {
            check_use(o, f, &mut bad);
        });
        report(bad)?;
        if let Some(c) = condition(t) {
            let _ = self.listen(c, TERM | b as u32);
        }
        // Its condition (if any) is evaluated: the terminator is visited now too.
        self.visit_terminator(f, b);
        Ok(())
    }

    /// The memory limit (003), checked after every worklist item and every [`Solver::reach`]:
    /// entries only grow, so whether it is exceeded does not depend on the visit order.
    #[inline(always)]
    fn check_limit(
        &self,
        f: &impl IrRead,
        limit_entries: usize,
        memory_limit: usize,
    ) -> Result<(), SccpError> {
        if self.entries > limit_entries {
            return Err(SccpError::MemoryLimit {
                function_name: f.name().to_string(),
                limit: memory_limit,
            });
        }
        Ok(())
    }

    /// Numbers the entries of phi `i` of block `b` (just reached) and maps each to the edge
    /// from its predecessor (`NONE`, one edge id, or `MULTI`); for a phi with one result,
    /// lists every edge from the entry's predecessor to `b` as making the entry live. So
    /// evaluating a phi tests one bit per entry instead of scanning its predecessor's
    /// successors (a `switch` can have hundreds).
    fn map_phi(&mut self, i: Inst, incoming: &[(Block, Operand)], b: usize) {
        // A phi with several results is `Overdefined`: none of its entries is listed.
        self.phi_first[i.index()] = self.phi_edge.len() as u32;
        let r = &self.result;
        for &(p, _) in incoming {
            let x = self.phi_edge.len() as u32;
            let mut e = NONE;
            if let (Some(&s), Some(&t)) =
                (r.succ_start.get(p.index()), r.succ_start.get(p.index() + 1))
            {
                for k in s..t {
                    if r.succ_block[k as usize].index() == b {
                        e = if e == NONE { k } else { MULTI };
                        let new = self.edge_entry_links.len() as u32;
                        let prev =
                            push_head(&mut self.edge_entry_head, k as usize, self.stamp, new);
                        self.edge_entry_links.push((x, prev));
                    }
                }
            }
            self.phi_edge.push(e);
            self.entry_phi.push(i.0);
        }
    }

    /// Lists the listed instruction `i` as a user of its operands (a phi: each entry, `PHI
    /// | entry`, of its operand). Returns whether some operand is a constant or a value
    /// whose cell is not `Overdefined` (false: every operand is an `Overdefined` value).
    ///
    /// # Errors
    /// An operand out of range (its cell is read when `i` is evaluated).
    #[inline(always)]
    fn listen_inst(&mut self, f: &impl IrRead, i: Inst) -> Result<bool, SccpError> {
        let kind = f.inst_kind(i);
        let (mut ok, mut live) = (true, false);
        let mut one = |s: &mut Self, o: Operand, user: u32| match s.listen(o, user) {
            Some(l) => live |= l,
            None => ok = false,
        };
        match kind {
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::Icmp { lhs, rhs, .. }
            | InstKind::Fcmp { lhs, rhs, .. } => {
                one(self, *lhs, i.0);
                one(self, *rhs, i.0);
            }
            InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => one(self, *arg, i.0),
            InstKind::Phi { incoming, .. } => {
                let first = PHI | self.phi_first[i.index()];
                for (k, &(_, o)) in incoming.iter().enumerate() {
                    one(self, o, first + k as u32);
                }
            }
            _ => kind.for_each_operand(|o| one(self, o, i.0)),
        }
        if ok {
            return Ok(live);
        }
        let mut bad = None;
        kind.for_each_operand(|o| {
            if bad.is_none() {
                check_use(o, f, &mut bad);
            }
        });
        report(bad).map(|()| live)
    }

    /// Lists `user` (an instruction, `PHI | entry` or `TERM | block`) as a user of `o`, unless
    /// `o` is a constant or `Overdefined`: such a cell never changes again. Users listen
    /// when their block becomes reachable, before their first visit, so every change of
    /// an operand cell after that visit reads queues them: the lists hold only the uses in
    /// reachable code of cells that could still change (in C code most operands are loads
    /// and calls, `Overdefined` from their block's reach on). Returns `None` if `o` is out
    /// of range (of the values or the pool), else whether `o` is a constant or a value whose
    /// cell is not `Overdefined`.
    #[inline(always)]
    fn listen(&mut self, o: Operand, user: u32) -> Option<bool> {
        match o {
            Operand::Value(v) => match self.result.values.get(v.index()) {
                Some(LatticeValue::Overdefined) => Some(false),
                Some(_) => {
                    let new = self.user_links.len() as u32;
                    let prev = push_head(&mut self.user_head, v.index(), self.stamp, new);
                    self.user_links.push((user, prev));
                    Some(true)
                }
                None => None,
            },
            Operand::Const(c) => (c.index() < self.const_cells.len()).then_some(true),
        }
    }

    /// Sets the cell of `v`, a result of an unlisted instruction of the block [`reach`]
    /// just made reachable, `Overdefined` without queueing its users. No user has read the
    /// cell yet: in verified SSA every use is dominated by the definition, so a user in
    /// this block is evaluated after it by this [`reach`] (the terminator too), one
    /// in another block when that block, dominated by this one, is reached later, and a phi
    /// entry meets the cell when its edge, out of a block reached no earlier than this one,
    /// becomes executable. (Queueing them as [`set`] does visited most users in C code
    /// twice: a load's or call's users sit in its own block.) A cell that already left
    /// `Unknown` takes the general path.
    ///
    /// [`reach`]: Solver::reach
    /// [`set`]: Solver::set
    #[inline(always)]
    fn set_on_reach(&mut self, v: Value) {
        let cell = &mut self.result.values[v.index()];
        if matches!(cell, LatticeValue::Unknown) {
            *cell = LatticeValue::Overdefined;
            self.entries += 1;
        } else {
            self.set(v, LatticeValue::Overdefined);
        }
    }

    fn mark_edge(&mut self, e: usize) {
        if self.result.executable.insert(e) {
            self.edge_work.push(e as u32);
        }
    }

    /// Marks the edges out of `b` that its terminator's condition allows. A block not
    /// reachable (yet) takes no edge: its terminator is queued as a user of its condition,
    /// which a reachable block may define, and is visited again when `b` becomes reachable.
    fn visit_terminator(&mut self, f: &impl IrRead, b: usize) {
        if !self.result.reachable.contains(b) {
            return;
        }
        let t = f.terminator(Block::new(b));
        let (s, e) = (
            self.result.succ_start[b] as usize,
            self.result.succ_start[b + 1] as usize,
        );
        // No condition (`jump`, `ret`, ...): every edge, `asm goto` labels included.
        let Some(c) = condition(t) else {
            (s..e).for_each(|k| self.mark_edge(k));
            return;
        };
        let n = t.num_successors();
        let cond = if self.forced.contains(b) {
            LatticeValue::Overdefined
        } else {
            self.cell(c)
        };
        match cond {
            LatticeValue::Unknown => {}
            LatticeValue::Const(c) => match resolved_successor(f.consts(), t, c) {
                Some(i) => {
                    let target = self.result.succ_block[s + i];
                    for k in 0..n {
                        // An `indirect_br` takes every edge to its block; `br`/`switch` one.
                        let same = matches!(t, Terminator::IndirectBr { .. })
                            && self.result.succ_block[s + k] == target;
                        if k == i || same {
                            self.mark_edge(s + k);
                        }
                    }
                }
                None => (s..s + n).for_each(|k| self.mark_edge(k)),
            },
            LatticeValue::Partial { .. } | LatticeValue::Overdefined => {
                (s..s + n).for_each(|k| self.mark_edge(k))
            }
        }
        // `asm goto` labels: the asm may jump there whenever the block runs.
        (s + n..e).for_each(|k| self.mark_edge(k));
    }

    #[inline(always)]
    fn visit_inst(&mut self, f: &impl IrRead, symbols: &SymbolTable, i: usize) {
        let (stamp, b) = self.inst_block[i];
        if stamp != self.stamp || !self.result.reachable.contains(b as usize) {
            return;
        }
        let inst = Inst::new(i);
        let (kind, results) = (f.inst_kind(inst), f.inst_results(inst));
        let [v] = results else {
            for &v in results {
                self.set(v, LatticeValue::Overdefined);
            }
            return;
        };
        let InstKind::Phi { incoming, .. } = kind else {
            self.eval_listed(f, symbols, i, kind, *v);
            return;
        };
        // An `Overdefined` cell is the bottom: no evaluation can change it. (Phis of a block
        // with many predecessors are re-queued for every new executable edge; this makes all
        // but the first visits after they reach the bottom O(1).)
        if matches!(self.result.values[v.index()], LatticeValue::Overdefined) {
            return;
        }
        let mut acc = LatticeValue::Unknown;
        let first = self.phi_first[i] as usize;
        for (k, &(p, o)) in incoming.iter().enumerate() {
            let live = match self.phi_edge[first + k] {
                NONE => false,
                MULTI => self.pred_edge_executable(p, b as usize),
                e => self.result.executable.contains(e as usize),
            };
            if live {
                let c = self.cell(o);
                // Aggregates meet member by member (through their table); the common
                // scalar case stays inline.
                acc = if acc.aggregate_type().is_some() {
                    self.result.aggregates.meet(acc, c)
                } else {
                    acc.meet(c)
                };
                if matches!(acc, LatticeValue::Overdefined) {
                    break;
                }
            }
        }
        self.set(*v, acc);
    }

    /// Evaluates the non-phi instruction `i` of a reachable block (`kind`, one result `v`)
    /// on its operands' cells ([`eval_inst`]) and lowers `v`'s cell to the result; nothing
    /// when the cell is `Overdefined` already (the bottom: no evaluation can change it).
    #[inline(always)]
    fn eval_listed(
        &mut self,
        f: &impl IrRead,
        symbols: &SymbolTable,
        i: usize,
        kind: &InstKind,
        v: Value,
    ) {
        if matches!(self.result.values[v.index()], LatticeValue::Overdefined) {
            return;
        }
        // Disjoint borrows: the cells are read while the aggregate table grows (a
        // `mem::take` of the table would copy it twice per instruction).
        let (values, const_cells) = (&self.result.values, &self.const_cells);
        let new = eval_inst(
            kind,
            |o| match o {
                Operand::Value(v) => values[v.index()],
                Operand::Const(c) => const_cells[c.index()],
            },
            self.fold_address.contains(i).then_some(symbols),
            &mut self.result.aggregates,
            f.consts(),
        );
        self.set(v, new);
    }

    /// Meets phi entry `x` (its operand's cell, if the entry is live) into its phi's cell:
    /// the entry's edge became executable, or its operand's cell changed. The phi's cell is
    /// the meet of its live entries so far, and cells only move down, so meeting the one
    /// new input gives the same cell as re-evaluating every entry (O(1) instead of
    /// O(entries): phis of a block with many predecessors see one item per new edge).
    /// Aggregate cells, which meet member by member through the table, re-evaluate the
    /// whole phi instead.
    fn visit_phi_entry(&mut self, f: &impl IrRead, symbols: &SymbolTable, x: usize) {
        let i = self.entry_phi[x] as usize;
        let (stamp, b) = self.inst_block[i];
        // A phi of a block not reachable yet is evaluated in full when it becomes so.
        if stamp != self.stamp || !self.result.reachable.contains(b as usize) {
            return;
        }
        let inst = Inst::new(i);
        let (InstKind::Phi { incoming, .. }, [v]) = (f.inst_kind(inst), f.inst_results(inst))
        else {
            return;
        };
        let old = self.result.values[v.index()];
        if matches!(old, LatticeValue::Overdefined) {
            return;
        }
        let Some(&(p, o)) = incoming.get(x - self.phi_first[i] as usize) else {
            return;
        };
        let live = match self.phi_edge[x] {
            NONE => false,
            MULTI => self.pred_edge_executable(p, b as usize),
            e => self.result.executable.contains(e as usize),
        };
        if !live {
            return;
        }
        let c = self.cell(o);
        if old.aggregate_type().is_some() || c.aggregate_type().is_some() {
            self.visit_inst(f, symbols, i);
        } else {
            self.set(*v, old.meet(c));
        }
    }

    /// True if some edge from `p` to block `b` is executable.
    #[inline]
    fn pred_edge_executable(&self, p: Block, b: usize) -> bool {
        let r = &self.result;
        // A phi naming an out-of-range block has no executable entry (the verifier rejects it).
        let (Some(&s), Some(&e)) = (r.succ_start.get(p.index()), r.succ_start.get(p.index() + 1))
        else {
            return false;
        };
        (s..e).any(|k| r.succ_block[k as usize].index() == b && r.executable.contains(k as usize))
    }

    /// Lowers the cell of `v` to `new`; on a change queues every user.
    #[inline(always)]
    fn set(&mut self, v: Value, new: LatticeValue) {
        let old = self.result.values[v.index()];
        // `Unknown` means "no evidence yet": it never overrides what a cell already knows.
        // (With the absorbing rules, `x | -1` can be `Const(-1)` while `x` is `Unknown`;
        // when the `-1` later drops to `Overdefined`, the evaluation waits on `x` again, and
        // the cell keeps its value until `x` arrives, as in LLVM's solver.)
        if matches!(new, LatticeValue::Unknown) {
            return;
        }
        if matches!(old, LatticeValue::Unknown) {
            // The common first change: every cell allows it.
            self.entries += 1;
        } else {
            if old == new {
                return;
            }
            if !old.allows(new) {
                debug_assert!(false, "SCCP cell of {v} moved up: {old} -> {new}");
                self.result.monotonicity_violations += 1;
                return;
            }
            if matches!(old, LatticeValue::Const(_)) {
                self.const_cells_set -= 1;
            }
        }
        if matches!(new, LatticeValue::Const(_)) {
            self.const_cells_set += 1;
        }
        self.result.values[v.index()] = new;
        let mut link = head(&self.user_head, v.index(), self.stamp);
        while link != NONE {
            let (u, next) = self.user_links[link as usize];
            self.work.push(u);
            link = next;
        }
    }

    /// Counts foldable instructions: the instructions of reachable blocks whose (single)
    /// result is a constant, which `set` counted (only those cells ever change). (The
    /// resolvable branches are counted by the last walk of [`Solver::solve`].)
    fn summarize(&mut self) {
        let r = &mut self.result;
        r.foldable_count = self.const_cells_set;
        r.nothing_to_rewrite = r.foldable_count == 0
            && r.resolvable_branches == 0
            && self.reached_blocks == self.live_blocks
            && !self.rewrite_local;
    }
}

/// While the solver reads the function (with `address` sized): records whether the result
/// of the instruction `kind` (defining `results`) may become the address of a read-only
/// global (its `address` entry is `stamp`), and returns whether it is a gep or load whose
/// address operand may (so that it is worth evaluating). Instructions are read in reach
/// order, where a definition comes before its uses except for phi operands around a loop:
/// those for which `unseen` holds count as maybe. Only a "maybe" is written (every other
/// result is "no": its entry holds an older stamp).
#[inline(always)]
fn may_address(
    address: &mut [u32],
    stamp: u32,
    read_only_consts: &[bool],
    kind: &InstKind,
    results: &[Value],
    unseen: impl Fn(Value) -> bool,
) -> bool {
    let maybe = |o: Operand| match o {
        Operand::Value(v) => address.get(v.index()).is_some_and(|&a| a == stamp),
        Operand::Const(c) => read_only_consts.get(c.index()).copied().unwrap_or(false),
    };
    let maybe_phi = |o: Operand| match o {
        Operand::Value(v) => maybe(o) || unseen(v),
        Operand::Const(_) => maybe(o),
    };
    let (result_maybe, fold) = match kind {
        InstKind::Gep { base, .. } => (maybe(*base), maybe(*base)),
        InstKind::Load {
            ty,
            ptr,
            volatile: false,
        } => (*ty == crate::ir::Type::Ptr && maybe(*ptr), maybe(*ptr)),
        InstKind::Phi { incoming, .. } => (incoming.iter().any(|&(_, o)| maybe_phi(o)), false),
        InstKind::Select {
            if_true, if_false, ..
        } => (maybe(*if_true) || maybe(*if_false), false),
        InstKind::Copy { src, .. } => (maybe(*src), false),
        _ => return false,
    };
    // "No" needs no write: the entry of a value not defined yet in this analysis holds an
    // older stamp (a value has one definition, read once).
    if result_maybe {
        for &v in results {
            if let Some(a) = address.get_mut(v.index()) {
                *a = stamp;
            }
        }
    }
    fold
}

/// True if the cell of the result of `kind` (defining `results`) can depend on its
/// operands' cells: phis and the kinds [`eval_inst`] folds, with one result (geps and
/// non-volatile loads only when `fold_address`). Every other instruction is `Overdefined`
/// (or has no result) whatever its operands are.
#[inline]
fn depends_on_operands(kind: &InstKind, results: &[Value], fold_address: bool) -> bool {
    results.len() == 1
        && match kind {
            InstKind::Phi { .. }
            | InstKind::Binary { .. }
            | InstKind::Unary { .. }
            | InstKind::Icmp { .. }
            | InstKind::Fcmp { .. }
            | InstKind::Cast { .. }
            | InstKind::Select { .. }
            | InstKind::Copy { .. }
            | InstKind::ExtractValue { .. }
            | InstKind::InsertValue { .. }
            | InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. } => true,
            InstKind::Gep { .. }
            | InstKind::Load {
                volatile: false, ..
            } => fold_address,
            _ => false,
        }
}

/// True if [`eval_inst`] gives `Overdefined` for `kind` (a kind `depends_on_operands`
/// accepts) whenever every operand is an `Overdefined` value: no rule decides these
/// without a known operand (the absorbing rules need a constant, a `select` with
/// `Overdefined` arms meets them). Phis (met entry by entry), `fcmp` (`false`/`true` fold
/// anyway) and vector operations (lane rules) are evaluated.
#[inline(always)]
fn overdefined_on_overdefined(kind: &InstKind) -> bool {
    match kind {
        InstKind::Binary { ty, .. } | InstKind::Unary { ty, .. } | InstKind::Icmp { ty, .. } => {
            !matches!(ty, crate::ir::Type::Vec(_))
        }
        InstKind::Cast { from, to, .. } => {
            !matches!(from, crate::ir::Type::Vec(_)) && !matches!(to, crate::ir::Type::Vec(_))
        }
        InstKind::Select { ty, .. } => !matches!(ty, crate::ir::Type::Vec(_)),
        InstKind::Copy { .. }
        | InstKind::Gep { .. }
        | InstKind::Load { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. } => true,
        _ => false,
    }
}

/// True if the entries of phi `me` name one operand besides `me` itself (the rewrite
/// replaces such a phi by that operand).
fn single_operand(incoming: &[(Block, Operand)], me: Value) -> bool {
    let mut single = None;
    for &(_, o) in incoming {
        if o == Operand::Value(me) || single == Some(o) {
            continue;
        }
        if single.is_some() {
            return false;
        }
        single = Some(o);
    }
    single.is_some()
}

/// The SCCP analysis alone on a [`Function`] outside the World (003's `sccp_analysis`):
/// computes the function's [`Cfg`] with the analysis module's own [`Cfg::compute`] and runs
/// a fresh [`Solver`] on it, changing nothing. Analysis only: the pass (analysis and
/// rewrite) is [`crate::api::optimize_with_sccp`] or the `sccp` stage, which run the systems
/// [`super::solve_sccp`] and [`super::rewrite_sccp`]. Without the module's symbols, loads
/// are `Overdefined` as in 003; [`sccp_analysis_in_module`] also folds loads from read-only
/// globals.
///
/// # Errors
/// As [`Solver::analyze`].
pub fn sccp_analysis(f: &Function, memory_limit: usize) -> Result<SccpResult, SccpError> {
    sccp_analysis_in_module(f, &SymbolTable::default(), memory_limit)
}

/// [`sccp_analysis`] with the symbols of `f`'s module, so that loads from its read-only
/// globals fold ([`super::rules::load_constant`]).
///
/// # Errors
/// As [`Solver::analyze`].
pub fn sccp_analysis_in_module(
    f: &Function,
    symbols: &SymbolTable,
    memory_limit: usize,
) -> Result<SccpResult, SccpError> {
    let mut cfg = Cfg::new();
    cfg.compute(f);
    let mut s = Solver::new();
    s.analyze(f, &cfg, symbols, memory_limit)?;
    Ok(s.result)
}

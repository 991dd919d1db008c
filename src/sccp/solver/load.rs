//! SCCP's load phase: what the solver needs of a function copied into its dense tables
//! (the constant pool's cells, edge ids from the [`Cfg`] with the phi-entry tables, the
//! initial cells), with the reference checks that make a malformed function an error
//! instead of a panic ([`check_use`], [`check_successors`]).
//!
//! Split out of [`super`] along its phases; the solver's invariants are in its module doc.
//! Complexity: linear in the function's constants, edges and values.

use super::*;
use crate::sccp::clear_for;

/// Makes `v` at least `n` long (new elements `x`), keeping what it holds: for tables whose
/// stale entries are never read.
fn grow<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    if v.len() < n {
        v.resize(n, x);
    }
}

impl Solver {
    /// Copies what the solver needs out of `f` into dense tables (edge ids from `cfg`),
    /// checking references.
    pub(super) fn load(
        &mut self,
        f: &impl IrRead,
        cfg: &Cfg,
        symbols: &SymbolTable,
    ) -> Result<(), SccpError> {
        self.fold_memory = self.load_pool(f, symbols);
        self.load_edges(f, cfg)?;
        self.init_cells(f);
        Ok(())
    }

    /// One walk over the constant pool: the cell of every constant and the read-only
    /// marks; returns whether some constant is the address of a read-only global.
    #[inline(never)]
    fn load_pool(&mut self, f: &impl IrRead, symbols: &SymbolTable) -> bool {
        let consts = f.consts();
        // Geps and loads are evaluated only where the address may be that of a read-only
        // global: only there can a load fold, and listing every gep and load as a user
        // would cost every function (most uses in C code are addresses). `read_only` marks
        // the pool's addresses of read-only globals; `address` propagates "maybe" forward
        // through geps, pointer loads, phis, selects and copies in block order.
        // One walk over the pool: the read-only marks and the cell of every constant.
        self.read_only_consts.clear();
        clear_for(&mut self.const_cells, consts.len());
        self.result.aggregates.clear();
        let aggregates = &mut self.result.aggregates;
        let mut fold_memory = false;
        for c in (0..consts.len()).map(crate::ir::Const::new) {
            let data = consts.get(c);
            let read_only = match data.kind {
                ConstKind::SymbolAddr(s) => symbols.read_only(s).is_some(),
                _ => false,
            };
            if read_only && !fold_memory {
                fold_memory = true;
                self.read_only_consts.resize(c.index(), false);
            }
            if fold_memory {
                self.read_only_consts.push(read_only);
            }
            self.const_cells
                .push(const_cell(aggregates, consts, c, data));
        }
        fold_memory
    }

    /// The edges (the CFG's, in its successor order) and the per-function tables; the
    /// instructions are read by [`Solver::reach`] when their block becomes reachable.
    #[inline(never)]
    fn load_edges(&mut self, f: &impl IrRead, cfg: &Cfg) -> Result<(), SccpError> {
        let (nb, ni, nv) = (f.num_blocks(), f.num_insts(), f.values().len());
        self.fold_address.reset(ni);
        // Tables whose entries carry the stamp of the analysis that wrote them are grown,
        // never filled: an entry with another stamp is empty.
        self.stamp += 1;
        if self.stamp >= NO_STAMP {
            // Wrapped: stale entries could carry any stamp.
            self.stamp = 1;
            self.user_head.clear();
            self.edge_entry_head.clear();
            self.inst_block.clear();
            self.address.clear();
        }
        if self.fold_memory {
            grow(&mut self.address, nv, NO_STAMP);
        }
        grow(&mut self.inst_block, ni, (NO_STAMP, NONE));
        grow(&mut self.user_head, nv, (NO_STAMP, NONE));
        grow(&mut self.phi_first, ni, NO_STAMP);
        // The CFG skipped (and counted) edges to missing blocks: find the first to report it.
        if cfg.invalid_edges() > 0 {
            check_successors(f)?;
        }
        let r = &mut self.result;
        // The CFG's successor lists as they are: a CFG computed from the function lists no
        // successor for a dead block. (One built from other lists may: then block by block,
        // leaving dead blocks' out.)
        clear_for(&mut r.succ_start, nb + 1);
        r.succ_start.extend_from_slice(cfg.succ_starts());
        if r.succ_start.is_empty() {
            r.succ_start.push(0);
        }
        clear_for(&mut r.succ_block, cfg.num_edges());
        r.succ_block.extend_from_slice(cfg.flat_succs());
        self.live_blocks = 0;
        // A CFG of another block count (not the pipeline's, which is computed for this
        // function) is read block by block below, as `Cfg::succs` answers out of range.
        let mut per_block = r.succ_start.len() != nb + 1;
        for b in 0..nb {
            if f.is_block_dead(Block::new(b)) {
                per_block = per_block || r.succ_start[b] != r.succ_start[b + 1];
            } else {
                self.live_blocks += 1;
            }
        }
        if per_block {
            r.succ_start.clear();
            r.succ_block.clear();
            r.succ_start.push(0);
            for b in 0..nb {
                if !f.is_block_dead(Block::new(b)) {
                    r.succ_block.extend_from_slice(cfg.succs(Block::new(b)));
                }
                r.succ_start.push(r.succ_block.len() as u32);
            }
        }
        self.user_links.clear();
        // Room for one phi entry per edge (a guess: exact for a single phi per join) so
        // that reading the phis rarely grows these tables.
        let edges = r.succ_block.len();
        clear_for(&mut self.phi_edge, edges);
        clear_for(&mut self.entry_phi, edges);
        grow(
            &mut self.edge_entry_head,
            r.succ_block.len(),
            (NO_STAMP, NONE),
        );
        clear_for(&mut self.edge_entry_links, edges);
        Ok(())
    }

    /// Parameters and block parameters are `Overdefined`, every other cell `Unknown`; resets
    /// the edge and block sets and the worklists.
    #[inline(never)]
    fn init_cells(&mut self, f: &impl IrRead) {
        let nb = f.num_blocks();
        let r = &mut self.result;
        let mut params = 0;
        clear_for(&mut r.values, f.values().len());
        r.values.extend(f.values().iter().map(|d| {
            if matches!(d.def, ValueDef::Param(_) | ValueDef::BlockParam(..)) {
                params += 1;
                LatticeValue::Overdefined
            } else {
                LatticeValue::Unknown
            }
        }));
        r.reachable.reset(nb);
        r.executable.reset(r.succ_block.len());
        r.foldable_count = 0;
        r.resolvable_branches = 0;
        r.monotonicity_violations = 0;
        self.forced.reset(nb);
        self.edge_work.clear();
        self.work.clear();
        self.entries = params;
        self.const_cells_set = 0;
        self.reached_blocks = 0;
        self.rewrite_local = false;
    }
}

/// The first operand error `check_use` found, as an error.
pub(super) fn report(bad: Option<Operand>) -> Result<(), SccpError> {
    match bad {
        Some(Operand::Value(v)) => Err(SccpError::InvalidSsa { value_id: v }),
        Some(Operand::Const(c)) => Err(SccpError::InvalidConstant { constant: c }),
        None => Ok(()),
    }
}

/// The first successor (terminator target or `asm goto` label) of a live block that is out
/// of range or dead, as [`SccpError::InvalidCfg`] (run only when the CFG counted such edges).
pub(super) fn check_successors(f: &impl IrRead) -> Result<(), SccpError> {
    let nb = f.num_blocks();
    let live = |s: Block| s.index() < nb && !f.is_block_dead(s);
    for b in (0..nb).map(Block::new).filter(|&b| !f.is_block_dead(b)) {
        let mut bad = None;
        let mut edge = |s: Block| {
            if !live(s) {
                bad = Some(s);
            }
        };
        f.terminator(b).for_each_successor(&mut edge);
        for &i in f.block_insts(b) {
            if let Some(InstKind::InlineAsm(asm)) =
                (i.index() < f.num_insts()).then(|| f.inst_kind(i))
            {
                asm.goto_labels.iter().for_each(|&s| edge(s));
            }
        }
        if let Some(s) = bad {
            return Err(SccpError::InvalidCfg { block_id: s });
        }
    }
    Ok(())
}

/// Checks an operand; for a value, returns it.
pub(super) fn check_use(o: Operand, f: &impl IrRead, bad: &mut Option<Operand>) -> Option<u32> {
    match o {
        Operand::Value(v) => match f.values().get(v.index()) {
            Some(d) if d.def != ValueDef::Unused => {
                return Some(v.0);
            }
            _ => *bad = Some(o),
        },
        Operand::Const(c) => {
            if c.index() >= f.consts().len() {
                *bad = Some(o);
            }
        }
    }
    None
}

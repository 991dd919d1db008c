//! The IR verifier: every invariant of a function, checked in groups.
//!
//! Invariants (each group is one function, in `structure.rs` (1–3, 5), `operands.rs` (4) or this
//! file (6–7); errors name function, block, instruction):
//!
//! 1. **Tables** (`check_tables`): block 0 exists and is live. Every instruction is listed by
//!    at most one live block, once, and its `block` field names that block. Every value
//!    handle is in range; every result of an instruction has `ValueDef::Result(inst, n)` with
//!    the type `InstKind::result_types()[n]`, and the instruction has exactly that many
//!    results. Parameters have `ValueDef::Param(i)` and the signature's types; block
//!    parameters have `ValueDef::BlockParam(b, n)`. Constant handles are in range.
//! 2. **CFG integrity** (`check_cfg`): every successor named by a terminator or an asm-goto
//!    label is an in-range live block; `indirect_br` lists at least one destination.
//! 3. **Terminators** (`check_terminator`): `br` conditions are `i1`; `switch` has an integer
//!    type, a scrutinee of that type and distinct case values that fit it; `ret` carries a
//!    value exactly when the function returns one, of the return type; branch arguments match
//!    the target's block parameters in number and type.
//! 4. **Operand types** (`check_inst`): each instruction's operands have the types its kind
//!    requires (both arithmetic operands of the instruction type, integer ops on integers and
//!    float ops on floats, pointers for addresses, `i1` select conditions, cast source/target
//!    kinds and widths, alloca size at least the element size and a power-of-two alignment,
//!    `extractvalue`/`insertvalue` indices naming a member of their aggregate type and an
//!    inserted value of that member's type; no aggregate in a cast or `cmpxchg`). Vector
//!    operations follow LLVM's rules lane by lane: arithmetic, comparisons (giving
//!    `<N x i1>`) and casts (same lane count) check the lane types; a vector `select` takes
//!    an `i1` or an `<N x i1>` condition; `extractelement`/`insertelement` take a vector
//!    type, an integer index and (insert) a lane of the lane type; a `shufflevector` mask is
//!    a `<M x i32>` constant of `undef` or in-range lanes and its result is `<M x lane>`.
//!    Every aggregate or vector constant of the pool has one member constant per member
//!    (lane), of its type.
//!    A used value must be defined in the function, in every block, reachable or not, and
//!    in every phase: not a hole, not a result of an instruction no live block lists, not
//!    a parameter of a removed block (`opt -passes=verify` rejects all three as `use of
//!    undefined value`).
//! 5. **Calls** (`check_call`): a direct callee is a function or external declaration;
//!    argument count matches its signature (at least the fixed count for variadic callees);
//!    fixed arguments and the result have the signature's types.
//! 6. **Phase rules** (`check_phase`): in memory form there are no phis and no block
//!    parameters. In SSA phases, phis come first in their block and each has exactly one
//!    incoming entry per predecessor edge (a block reached twice from the same predecessor
//!    lists that predecessor twice), with operands of the phi's type. From `Destructed` on
//!    there are no phis, and a value may be defined by several `copy` instructions (phi
//!    elimination's copies); its value-table entry names one of them.
//! 7. **Dominance** (`check_dominance`): before `Destructed`, each use of an instruction
//!    result in a reachable block is dominated by its definition: in the same block the
//!    definition comes earlier; a phi's incoming value must be available at the end of the
//!    incoming predecessor. (Memory form obeys this too: only locals in allocas are non-SSA.)
//!    Each use is tested while groups 3 and 4 read its type (one lookup in the availability
//!    points `check_tables` records); `check_dominance` walks the function for its messages
//!    only when a test failed.
//!
//! Complexity: O(blocks + instructions + operands) plus one dominator-tree computation.

use crate::analysis::{Cfg, DomTree};
use crate::ir::*;
use crate::ir::{IrView, Symbols};
use crate::stage::{Diagnostic, Diagnostics, Severity, Stage};
use bevy_ecs::prelude::*;
use std::fmt;

/// One violated invariant.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    /// Function name.
    pub function: String,
    /// Block, if the error is inside one.
    pub block: Option<Block>,
    /// Instruction, if the error is about one.
    pub inst: Option<Inst>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function @{}", self.function)?;
        if let Some(b) = self.block {
            write!(f, ", {b}")?;
        }
        if let Some(i) = self.inst {
            write!(f, ", {i}")?;
        }
        write!(f, ": {}", self.message)
    }
}

struct Checker<'a, R: IrRead> {
    ir: &'a R,
    symbols: &'a SymbolTable,
    cfg: &'a Cfg,
    dom: &'a DomTree,
    errors: Vec<VerifyError>,
    block: Option<Block>,
    inst: Option<Inst>,
    scratch: &'a mut VerifyScratch,
    /// Set by `check_tables`: some listed instruction is an `asm` (`check_cfg` then scans
    /// instructions for goto labels).
    has_asm: bool,
    /// Set by `check_inst`: some listed instruction is a phi (`check_phase` then scans
    /// instructions).
    has_phi: bool,
    /// Set by `check_tables`: some live block has parameters (`check_phase` then scans the
    /// blocks of a function in memory form).
    has_block_params: bool,
    /// The operands `check_inst` and `check_terminator` look at are checked for dominance:
    /// in SSA phases, in reachable blocks (and for a phi's incoming value, from a reachable
    /// predecessor).
    use_checked: bool,
    /// Where those operands are used: `use_block` at position `use_at` (`u32::MAX` for the
    /// end of the block). Three fields, so the instruction loop updates only `use_at`.
    use_block: Block,
    use_at: u32,
    /// Some checked use is not available where it is used: `check_dominance` then walks the
    /// function for its messages (most functions need no walk).
    undominated: bool,
}

/// Reusable tables of the verifier (kept by [`Verifier`] and by the `verify` system between
/// functions, so verifying a function allocates nothing once they are large enough).
#[derive(Default, Debug)]
pub struct VerifyScratch {
    /// `listed[Inst]`: some live block lists the instruction (`check_tables`).
    listed: Vec<bool>,
    /// `def_at[Value]`: where the value becomes available, as (block index + 1, position),
    /// or [`NOWHERE`]: filled by `check_tables` for SSA phases, read by `check_dominance`
    /// and the use checks of `check_inst`.
    def_at: Vec<(u32, u32)>,
    /// A switch's case values, sorted (`check_terminator`).
    case_values: Vec<u128>,
}

/// `VerifyScratch::def_at` of a value no listed instruction defines (holes and results of
/// unlisted instructions), whose uses the operand check rejects before any dominance test. All zeros (blocks are
/// stored plus one), so filling the table is a memset.
const NOWHERE: (u32, u32) = (0, 0);

/// The `def_at` entry of a value available from position `at` of block `b`.
fn def_point(b: Block, at: u32) -> (u32, u32) {
    (b.0 + 1, at)
}

impl<'a, R: IrRead> Checker<'a, R> {
    fn error(&mut self, message: impl Into<String>) {
        if self.errors.len() < 100 {
            self.errors.push(VerifyError {
                function: self.ir.name().to_string(),
                block: self.block,
                inst: self.inst,
                message: message.into(),
            });
        }
    }

    fn is_live_block(&self, b: Block) -> bool {
        b.index() < self.ir.num_blocks() && !self.ir.is_block_dead(b)
    }

    /// Type of an operand, or `None` (after reporting) if it is invalid. A reference into the
    /// value table or the constant pool: a comparison then reads only the bytes it needs.
    fn operand(&mut self, op: Operand, what: impl Fn() -> String) -> Option<&'a Type> {
        let ir: &'a R = self.ir;
        match op {
            Operand::Value(v) => match ir.values().get(v.index()) {
                None => {
                    let what = what();
                    self.error(format!("{what} uses {v}, which is out of range"));
                    None
                }
                Some(d) if d.def == ValueDef::Unused => {
                    let what = what();
                    self.error(format!("{what} uses {v}, which is never defined"));
                    None
                }
                Some(d) => {
                    if !self.defined(d.def) {
                        self.undefined(v, d.def, &what);
                        return None;
                    }
                    if self.use_checked {
                        let (b, at) = (self.use_block, self.use_at);
                        self.undominated |= unavailable(&self.scratch.def_at, self.dom, v, b, at);
                    }
                    Some(&d.ty)
                }
            },
            Operand::Const(c) => match ir.consts().as_slice().get(c.index()) {
                None => {
                    let what = what();
                    self.error(format!("{what} uses {c}, which is out of range"));
                    None
                }
                Some(d) => Some(&d.ty),
            },
        }
    }

    /// True if the definition `def` is in the function: a parameter, a result of an
    /// instruction some live block lists, or a parameter of a live block. Checked for every
    /// use, in every block, reachable or not, in every phase: a pass that removes an
    /// instruction or block must leave no use of what it defined (LLVM's verifier rejects
    /// such a use as `use of undefined value` wherever it is).
    #[inline(always)]
    fn defined(&self, def: ValueDef) -> bool {
        match def {
            ValueDef::Result(i, _) => self.scratch.listed.get(i.index()).copied() == Some(true),
            ValueDef::BlockParam(b, n) => {
                self.is_live_block(b) && (n as usize) < self.ir.block_params(b).len()
            }
            ValueDef::Param(_) => true,
            ValueDef::Unused => false,
        }
    }

    /// Reports a use of `v`, whose definition `def` is not in the function.
    #[cold]
    #[inline(never)]
    fn undefined(&mut self, v: Value, def: ValueDef, what: &dyn Fn() -> String) {
        let what = what();
        let why = match def {
            ValueDef::Result(i, _) => format!("its instruction {i} is not in any live block"),
            ValueDef::BlockParam(b, _) => format!("its block {b} was removed"),
            _ => "it has no definition".to_string(),
        };
        self.error(format!("{what} uses {v}, which is not defined: {why}"));
    }

    fn expect(&mut self, op: Operand, ty: Type, what: impl Fn() -> String) {
        if let Some(t) = self.operand(op, &what).filter(|t| **t != ty) {
            self.mismatch(what(), *t, &ty);
        }
    }

    /// Reports that `what` has type `t` where `expected` (a type, or a kind of types) is
    /// required. Out of line, so the checks that pass keep the operand type in a register.
    #[cold]
    #[inline(never)]
    fn mismatch(&mut self, what: String, t: Type, expected: &dyn fmt::Display) {
        self.error(format!("{what} has type {t}, expected {expected}"));
    }

    fn expect_with(
        &mut self,
        op: Operand,
        what: impl Fn() -> String,
        ok: impl Fn(Type) -> bool,
        kind: &str,
    ) {
        if let Some(t) = self.operand(op, &what).filter(|t| !ok(**t)) {
            self.mismatch(what(), *t, &kind);
        }
    }

    fn check_phase(&mut self, cfg: &Cfg) {
        let ir = self.ir;
        let phase = ir.phase();
        // Nothing to check without phis, unless block parameters appear in memory form.
        if !(self.has_phi || phase == Phase::Memory && self.has_block_params) {
            return;
        }
        for b in (0..ir.num_blocks()).map(Block::new) {
            if ir.is_block_dead(b) {
                continue;
            }
            self.block = Some(b);
            if phase == Phase::Memory && !ir.block_params(b).is_empty() {
                self.error("block parameters are not allowed in memory form");
            }
            if !self.has_phi {
                continue;
            }
            let mut seen_non_phi = false;
            for &i in ir.block_insts(b) {
                if i.index() >= ir.num_insts() {
                    continue;
                }
                self.inst = Some(i);
                if let InstKind::Phi { incoming, .. } = ir.inst_kind(i) {
                    if !phase.is_ssa() {
                        self.error(format!("phi is not allowed in {} form", phase.name()));
                    } else if seen_non_phi {
                        self.error("phi after a non-phi instruction");
                    }
                    let mut want: Vec<Block> = cfg.preds(b).to_vec();
                    let mut have: Vec<Block> = incoming.iter().map(|(p, _)| *p).collect();
                    want.sort_unstable();
                    have.sort_unstable();
                    if want != have && phase.is_ssa() {
                        let show = |v: &[Block]| {
                            v.iter()
                                .map(|b| b.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        };
                        self.error(format!(
                            "phi has incoming blocks [{}] but the predecessor edges are [{}]",
                            show(&have),
                            show(&want)
                        ));
                    }
                } else {
                    seen_non_phi = true;
                }
            }
            self.inst = None;
        }
        self.block = None;
    }

    fn check_dominance(&mut self, cfg: &Cfg, dom: &DomTree) {
        let ir = self.ir;
        // Availability points, filled by `check_tables` (see `VerifyScratch::def_at`), so
        // each use below costs one lookup.
        let def_at = std::mem::take(&mut self.scratch.def_at);
        let unavailable = |v: Value, b: Block, at: u32| unavailable(&def_at, dom, v, b, at);
        for b in (0..ir.num_blocks()).map(Block::new) {
            if ir.is_block_dead(b) || !cfg.is_reachable(b) {
                continue;
            }
            self.block = Some(b);
            for (n, &i) in ir.block_insts(b).iter().enumerate() {
                if i.index() >= ir.num_insts() {
                    continue;
                }
                self.inst = Some(i);
                let kind = ir.inst_kind(i);
                let mut bad = Vec::new();
                if let InstKind::Phi { incoming, .. } = kind {
                    for (p, op) in incoming {
                        if let Operand::Value(v) = op {
                            if cfg.is_reachable(*p) && unavailable(*v, *p, u32::MAX) {
                                bad.push(format!(
                                    "phi incoming {v} from {p} is not available at the end of {p}"
                                ));
                            }
                        }
                    }
                } else {
                    kind.for_each_operand(|op| {
                        if let Operand::Value(v) = op {
                            if unavailable(v, b, n as u32) {
                                bad.push(format!("use of {v} is not dominated by its definition"));
                            }
                        }
                    });
                }
                for m in bad {
                    self.error(m);
                }
            }
            self.inst = None;
            let mut bad = Vec::new();
            ir.terminator(b).for_each_operand(|op| {
                if let Operand::Value(v) = op {
                    if unavailable(v, b, u32::MAX) {
                        bad.push(format!(
                            "terminator use of {v} is not dominated by its definition"
                        ));
                    }
                }
            });
            for m in bad {
                self.error(m);
            }
        }
        self.block = None;
        self.scratch.def_at = def_at;
    }
}

/// True if `v` is defined by a listed instruction or is a parameter, and is not available
/// at position `at` of block `b` (`u32::MAX`: the end of `b`), by the availability points
/// `def_at` (see [`VerifyScratch::def_at`]).
#[inline]
fn unavailable(def_at: &[(u32, u32)], dom: &DomTree, v: Value, b: Block, at: u32) -> bool {
    match def_at.get(v.index()) {
        Some(&(db, dp)) if db == b.0 + 1 => dp > at,
        // `NOWHERE` (the only entry of block 0) or a value out of range.
        Some(&(0, _)) | None => false,
        Some(&(db, _)) => !dom.dominates(Block(db - 1), b),
    }
}

/// The verifier with reusable scratch (its own CFG and dominator tree), for verifying
/// functions outside the engine. Inside the engine, the `verify` system reads the shared
/// analyses instead ([`verify_with`]).
#[derive(Default)]
pub struct Verifier {
    cfg: Cfg,
    dom: DomTree,
    scratch: VerifyScratch,
}

impl Verifier {
    /// Checks every invariant of the module doc on one function, computing the CFG and the
    /// dominator tree it needs into this verifier's scratch.
    ///
    /// `symbols` resolves direct callees. Returns every violation found (at most 100).
    pub fn verify(&mut self, ir: &impl IrRead, symbols: &SymbolTable) -> Vec<VerifyError> {
        self.cfg.compute(ir);
        self.dom.compute(&self.cfg);
        verify_with_scratch(ir, symbols, &self.cfg, &self.dom, &mut self.scratch)
    }
}

/// Checks every invariant of the module doc on one function whose CFG is `cfg` and whose
/// dominator tree is `dom` (both computed from this function; [`Cfg::compute`] tolerates
/// invalid input). Returns every violation found.
pub fn verify_with(
    ir: &impl IrRead,
    symbols: &SymbolTable,
    cfg: &Cfg,
    dom: &DomTree,
) -> Vec<VerifyError> {
    verify_with_scratch(ir, symbols, cfg, dom, &mut VerifyScratch::default())
}

/// [`verify_with`] reusing `scratch`'s tables (the `verify` system keeps one between
/// functions).
pub fn verify_with_scratch(
    ir: &impl IrRead,
    symbols: &SymbolTable,
    cfg: &Cfg,
    dom: &DomTree,
    scratch: &mut VerifyScratch,
) -> Vec<VerifyError> {
    check_all(ir, symbols, cfg, dom, scratch, false)
}

/// [`verify_with_scratch`]; with `always_walk`, `check_dominance` walks the function even if
/// no use checked with the operand types failed (the tests compare the two). Inlined, so
/// profiles keep naming the verifier `verify_with_scratch`.
#[inline(always)]
fn check_all(
    ir: &impl IrRead,
    symbols: &SymbolTable,
    cfg: &Cfg,
    dom: &DomTree,
    scratch: &mut VerifyScratch,
    always_walk: bool,
) -> Vec<VerifyError> {
    let mut c = Checker {
        ir,
        symbols,
        cfg,
        dom,
        errors: Vec::new(),
        block: None,
        inst: None,
        scratch,
        has_asm: false,
        has_phi: false,
        has_block_params: false,
        use_checked: false,
        use_block: Block(0),
        use_at: 0,
        undominated: false,
    };
    c.check_tables();
    if !c.errors.is_empty() {
        return c.errors;
    }
    c.check_cfg();
    if !c.errors.is_empty() {
        return c.errors;
    }
    // Operand uses are tested for dominance while their types are checked (the same value
    // handles, one more table lookup each); `check_dominance` reports only if one failed.
    let ssa = ir.phase().single_definition();
    for b in (0..ir.num_blocks()).map(Block::new) {
        if ir.is_block_dead(b) {
            continue;
        }
        c.block = Some(b);
        let checked = ssa && cfg.is_reachable(b);
        c.check_insts(b, checked);
        (c.use_checked, c.use_block, c.use_at) = (checked, b, u32::MAX);
        c.check_terminator(b);
        c.use_checked = false;
    }
    c.block = None;
    c.check_phase(cfg);
    if c.errors.is_empty() && ssa && (c.undominated || always_walk) {
        c.check_dominance(cfg, dom);
    }
    c.errors
}

mod operands;
mod structure;
#[cfg(test)]
mod tests;

/// Checks every invariant of the module doc on one function (with fresh scratch; see
/// [`Verifier`] for repeated use).
pub fn verify(ir: &impl IrRead, symbols: &SymbolTable) -> Vec<VerifyError> {
    Verifier::default().verify(ir, symbols)
}

/// Verifies every function of a module.
pub fn verify_module(m: &Module) -> Vec<VerifyError> {
    let symbols = m.symbol_table();
    let mut verifier = Verifier::default();
    m.functions
        .iter()
        .flat_map(|f| verifier.verify(f, &symbols))
        .collect()
}

/// The `verify` system for the stage or pass `pass`: checks the function in the World
/// against the shared analyses.
///
/// Reads every column through [`IrView`], the module's [`Symbols`], [`Cfg`] and [`DomTree`]
/// (brought up to date before it by the engine: the pass table says verify reads both);
/// writes [`Diagnostics`]. Establishes: later stages run only if no error was reported.
#[allow(clippy::type_complexity)]
pub fn verify_system(
    pass: &'static str,
) -> impl FnMut(
    IrView,
    Res<Symbols>,
    Res<PerSlot<Cfg>>,
    Res<PerSlot<DomTree>>,
    ResMut<PerSlot<Diagnostics>>,
) {
    let mut scratch = VerifyScratch::default();
    move |ir: IrView,
          symbols: Res<Symbols>,
          cfg: Res<PerSlot<Cfg>>,
          dom: Res<PerSlot<DomTree>>,
          mut diags: ResMut<PerSlot<Diagnostics>>| {
        for (s, body) in ir.bodies() {
            let errors = verify_with_scratch(&body, &symbols.0, &cfg[s], &dom[s], &mut scratch);
            report(errors, pass, &mut diags[s]);
        }
    }
}

/// Appends `errors` to `diags` as error diagnostics of `pass` (the `verify` pass, or the
/// stage whose verify-after found them).
pub fn report(errors: Vec<VerifyError>, pass: &'static str, diags: &mut Diagnostics) {
    diags.0.extend(errors.into_iter().map(|e| Diagnostic {
        severity: Severity::Error,
        pass,
        message: e.to_string(),
    }));
}

/// Adds the `verify` pass's system to [`Stage::Verify`].
pub fn configure(schedule: &mut Schedule) {
    schedule.add_systems(verify_system("verify").in_set(Stage::Verify));
}

/// A global variable whose initial contents do not fit it (see [`verify_globals`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GlobalError {
    /// The global's name.
    pub global: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for GlobalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "global @{}: {}", self.global, self.message)
    }
}

/// What is wrong with relocation `r` of a global of `size` bytes in `m`, if anything.
fn relocation_error(m: &Module, r: &Relocation, size: u64) -> Option<String> {
    let what = match r.kind {
        RelocationKind::Address => "pointer",
        RelocationKind::BlockAddress(_) => "block address",
        RelocationKind::Relative { .. } => "relative entry",
    };
    if let RelocationKind::Relative { bytes, .. } = r.kind {
        if !matches!(bytes, 1 | 2 | 4 | 8) {
            return Some(format!(
                "{what} at offset {} is {bytes} bytes wide, not 1, 2, 4 or 8",
                r.offset
            ));
        }
    }
    if r.offset.checked_add(r.bytes()).is_none_or(|end| end > size) {
        return Some(format!(
            "{what} at offset {} does not fit in the global's size of {size} bytes",
            r.offset
        ));
    }
    let unknown = |s: Symbol| s.index() >= m.symbols.len();
    if unknown(r.symbol) {
        return Some(format!(
            "{what} at offset {} names unknown {}",
            r.offset, r.symbol
        ));
    }
    match r.kind {
        RelocationKind::Relative { base, .. } if unknown(base) => Some(format!(
            "{what} at offset {} is relative to unknown {base}",
            r.offset
        )),
        RelocationKind::BlockAddress(b) => {
            let function = match m.symbols[r.symbol.index()].kind {
                SymbolKind::Function(fi) => m.functions.get(fi as usize),
                _ => None,
            };
            match function {
                None => Some(format!(
                    "{what} at offset {} names @{}, not a defined function",
                    r.offset,
                    m.symbols[r.symbol.index()].name
                )),
                Some(f) if b.index() >= f.blocks.len() => Some(format!(
                    "{what} at offset {} names {b}, which @{} does not have",
                    r.offset,
                    m.symbols[r.symbol.index()].name
                )),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// Checks every global's initialiser against its size: the initial bytes are at most `size`
/// (fewer are zero-filled), and each relocation lies inside `size` and names a symbol of the
/// module (a block address: a block of a defined function; a relative entry: 1, 2, 4 or 8
/// bytes). These are module-level facts, so they are checked here once per
/// module, not by the per-function [`Verifier`]. Cost: O(globals + relocations).
pub fn verify_globals(m: &Module) -> Vec<GlobalError> {
    let mut errors = Vec::new();
    for g in &m.globals {
        let name = || {
            m.symbols
                .get(g.symbol.index())
                .map_or_else(|| g.symbol.to_string(), |s| s.name.clone())
        };
        if let Some(init) = &g.init {
            if init.len() as u64 > g.size {
                errors.push(GlobalError {
                    global: name(),
                    message: format!(
                        "initialiser of {} bytes is longer than the global's size of {} bytes",
                        init.len(),
                        g.size
                    ),
                });
            }
        }
        for r in &g.relocations {
            let message = relocation_error(m, r, g.size);
            if let Some(message) = message {
                errors.push(GlobalError {
                    global: name(),
                    message,
                });
            }
        }
    }
    errors
}

//! The IR verifier: every invariant of a function, checked in groups.
//!
//! Invariants (each group is one function below; errors name function, block, instruction):
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

    /// Every aggregate constant has one constant per member, each of the member's type.
    fn check_aggregate_consts(&mut self) {
        let pool = self.ir.consts();
        for (k, d) in pool.as_slice().iter().enumerate() {
            if !matches!(d.kind, ConstKind::Aggregate(_)) {
                continue;
            }
            let c = Const::new(k);
            let info = match d.ty {
                Type::Agg(id) | Type::Vec(id) => Some(id.info()),
                _ => None,
            };
            let (Some(info), Some(members)) = (info, pool.members(c)) else {
                self.error(format!(
                    "{c} is an aggregate constant of the scalar type {}",
                    d.ty
                ));
                continue;
            };
            if members.len() != info.len() {
                self.error(format!(
                    "{c} of type {} has {} members, expected {}",
                    d.ty,
                    members.len(),
                    info.len()
                ));
                continue;
            }
            for (n, &m) in members.iter().enumerate() {
                let want = info.member(n).unwrap_or(Type::Void);
                match pool.try_get(m) {
                    Some(md) if md.ty == want => {}
                    _ => self.error(format!(
                        "member {n} of {c} is not a constant of type {want}"
                    )),
                }
            }
        }
    }

    fn check_tables(&mut self) {
        let ir = self.ir;
        if ir.num_blocks() == 0 || ir.is_block_dead(Block(0)) {
            self.error("the entry block block0 is missing");
            return;
        }
        for (i, (&v, &ty)) in ir
            .param_values()
            .iter()
            .zip(&ir.signature().params)
            .enumerate()
        {
            match ir.values().get(v.index()) {
                Some(d) if d.def == ValueDef::Param(i as u32) && d.ty == ty => {}
                _ => self.error(format!(
                    "parameter {i} ({v}) is not recorded as a {ty} parameter"
                )),
            }
        }
        if ir.param_values().len() != ir.signature().params.len() {
            self.error("parameter values do not match the signature");
        }
        self.check_aggregate_consts();
        let ssa = ir.phase().single_definition();
        let extra_copy_defs = !ssa;
        let mut scratch = std::mem::take(self.scratch);
        scratch.listed.clear();
        scratch.listed.resize(ir.num_insts(), false);
        // Availability points for `check_dominance` (SSA phases only): parameters at the
        // entry, block parameters (of dead blocks too: a use of one is then not dominated)
        // at their block's entry, a result just after its instruction.
        let def_at = &mut scratch.def_at;
        def_at.clear();
        if ssa {
            def_at.resize(ir.values().len(), NOWHERE);
            for &v in ir.param_values() {
                if let Some(d) = def_at.get_mut(v.index()) {
                    *d = def_point(Block(0), 0);
                }
            }
            for b in (0..ir.num_blocks()).map(Block::new) {
                for &v in ir.block_params(b) {
                    if let Some(d) = def_at.get_mut(v.index()) {
                        *d = def_point(b, 0);
                    }
                }
            }
        }
        let values = ir.values();
        for b in (0..ir.num_blocks()).map(Block::new) {
            if ir.is_block_dead(b) {
                continue;
            }
            self.block = Some(b);
            self.has_block_params |= !ir.block_params(b).is_empty();
            for (n, &v) in ir.block_params(b).iter().enumerate() {
                match values.get(v.index()) {
                    Some(d) if d.def == ValueDef::BlockParam(b, n as u32) => {}
                    _ => self.error(format!("block parameter {n} ({v}) is not recorded as one")),
                }
            }
            self.check_block_tables(b, &mut scratch.listed, def_at, extra_copy_defs);
        }
        self.block = None;
        *self.scratch = scratch;
    }

    /// The table checks of `b`'s instructions (see `check_tables`): each is listed once, by
    /// the block it records, with results recorded as its own, of the types its kind
    /// defines; their availability points go to `def_at` (empty outside SSA phases). A
    /// function of its own, so the loop keeps its state in registers.
    #[inline(never)]
    fn check_block_tables(
        &mut self,
        b: Block,
        listed: &mut [bool],
        def_at: &mut [(u32, u32)],
        extra_copy_defs: bool,
    ) {
        let ir = self.ir;
        // `self.inst` is set only before an error is reported (most instructions have none).
        for (pos, &i) in ir.block_insts(b).iter().enumerate() {
            // `listed` has one entry per instruction, so its bound is the range check.
            let Some(seen) = listed.get_mut(i.index()) else {
                self.inst = Some(i);
                self.error(format!("lists {i}, which is out of range"));
                continue;
            };
            if std::mem::replace(seen, true) {
                self.inst = Some(i);
                self.error(format!("{i} is listed more than once"));
            }
            if ir.inst_block(i) != b {
                self.inst = Some(i);
                self.error(format!(
                    "{i} is listed by {b} but records {}",
                    ir.inst_block(i)
                ));
            }
            let kind = ir.inst_kind(i);
            let results = ir.inst_results(i);
            let at = def_point(b, pos as u32 + 1);
            // Asked only when a result is not recorded as this instruction's own.
            let extra_copy_def = || extra_copy_defs && matches!(kind, InstKind::Copy { .. });
            let count_error = |c: &mut Self, want: usize| {
                c.inst = Some(i);
                c.error(format!(
                    "`{}` defines {} values, expected {want}",
                    kind.opcode_name(),
                    results.len(),
                ))
            };
            // Kinds with at most one result are checked without building a list.
            match kind.single_result_type() {
                Some(None) if results.is_empty() => {}
                Some(Some(ty)) if results.len() == 1 => {
                    self.check_result(i, 0, results[0], ty, extra_copy_def, def_at, at)
                }
                Some(t) => {
                    count_error(self, t.is_some() as usize);
                    if let (Some(ty), Some(&v)) = (t, results.first()) {
                        self.check_result(i, 0, v, ty, extra_copy_def, def_at, at);
                    }
                }
                None => {
                    // `asm` is one of the kinds with several results.
                    self.has_asm |= matches!(kind, InstKind::InlineAsm(_));
                    let types = kind.result_types();
                    if types.len() != results.len() {
                        count_error(self, types.len());
                    }
                    for (n, (&v, &ty)) in results.iter().zip(&types).enumerate() {
                        self.check_result(i, n, v, ty, extra_copy_def, def_at, at);
                    }
                }
            }
        }
        self.inst = None;
    }

    /// Result `n` of `i`, `v`, is recorded as that result, of type `ty` (or, if
    /// `extra_copy_def()`, as a result of some `copy`, of type `ty`); `v` becomes available
    /// at `at` (`def_at` is empty outside SSA phases). Sets `self.inst` to `i` before
    /// reporting. A method, not a closure: the closure, called from three places, was not
    /// inlined.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn check_result(
        &mut self,
        i: Inst,
        n: usize,
        v: Value,
        ty: Type,
        extra_copy_def: impl Fn() -> bool,
        def_at: &mut [(u32, u32)],
        at: (u32, u32),
    ) {
        if let Some(d) = def_at.get_mut(v.index()) {
            *d = at;
        }
        match self.ir.values().get(v.index()) {
            Some(d) if d.def == ValueDef::Result(i, n as u32) && d.ty == ty => {}
            Some(d) if extra_copy_def() && d.ty == ty && matches!(d.def, ValueDef::Result(..)) => {}
            Some(d) => {
                let (def, t) = (d.def, d.ty);
                self.inst = Some(i);
                self.error(format!(
                    "result {n} ({v}) is recorded as {def:?} of type {t}, expected result of {i} with type {ty}",
                ))
            }
            None => {
                self.inst = Some(i);
                self.error(format!("result {n} ({v}) is out of range"))
            }
        }
    }

    fn check_cfg(&mut self) {
        let ir = self.ir;
        for b in (0..ir.num_blocks()).map(Block::new) {
            if ir.is_block_dead(b) {
                continue;
            }
            self.block = Some(b);
            let mut all_live = true;
            ir.terminator(b)
                .for_each_successor(|s| all_live &= self.is_live_block(s));
            if !all_live {
                let mut bad = Vec::new();
                ir.terminator(b).for_each_successor(|s| {
                    if !self.is_live_block(s) {
                        bad.push(s);
                    }
                });
                for s in bad {
                    self.error(format!("terminator branches to {s}, which does not exist"));
                }
            }
            if let Terminator::IndirectBr { dests, .. } = ir.terminator(b) {
                if dests.is_empty() {
                    self.error("indirect_br lists no destination");
                }
            }
            if !self.has_asm {
                continue;
            }
            for &i in ir.block_insts(b) {
                if let Some(InstKind::InlineAsm(asm)) =
                    (i.index() < ir.num_insts()).then(|| ir.inst_kind(i))
                {
                    self.inst = Some(i);
                    for &l in &asm.goto_labels {
                        if !self.is_live_block(l) {
                            self.error(format!("asm goto label {l} does not exist"));
                        }
                    }
                    self.inst = None;
                }
            }
        }
        self.block = None;
    }

    #[inline]
    fn check_target(&mut self, t: &Target) {
        if !self.is_live_block(t.block) {
            return;
        }
        let ir = self.ir;
        let params = ir.block_params(t.block);
        if params.len() != t.args.len() {
            self.error(format!(
                "branch to {} passes {} arguments, the block has {} parameters",
                t.block,
                t.args.len(),
                params.len()
            ));
            return;
        }
        for (n, (&a, &p)) in t.args.iter().zip(params).enumerate() {
            let ty = ir.values().get(p.index()).map_or(Type::Void, |d| d.ty);
            self.expect(a, ty, || format!("argument {n} to {}", t.block));
        }
    }

    fn check_terminator(&mut self, b: Block) {
        let ir = self.ir;
        self.block = Some(b);
        match ir.terminator(b) {
            Terminator::Jump(t) => self.check_target(t),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                self.expect(*cond, Type::I1, || "br condition".to_string());
                self.check_target(then_dest);
                self.check_target(else_dest);
            }
            Terminator::Switch {
                ty,
                value,
                default,
                cases,
            } => {
                if !ty.is_int() {
                    self.error(format!("switch type {ty} is not an integer type"));
                }
                self.expect(*value, *ty, || "switch scrutinee".to_string());
                self.check_target(default);
                // Sorting a copy of the values finds whether one repeats; only then does a
                // set name each repeat where it occurs (hashing every case cost more than the
                // rest of the switch check).
                let values = &mut self.scratch.case_values;
                values.clear();
                values.extend(cases.iter().map(|&(c, _)| c));
                values.sort_unstable();
                let repeats = values.windows(2).any(|w| w[0] == w[1]);
                let mut seen = repeats.then(std::collections::HashSet::new);
                for (c, t) in cases {
                    if *c & !ty.mask() != 0 {
                        self.error(format!("switch case {c} does not fit {ty}"));
                    }
                    if seen.as_mut().is_some_and(|seen| !seen.insert(*c)) {
                        self.error(format!("switch case {c} appears twice"));
                    }
                    self.check_target(t);
                }
            }
            Terminator::IndirectBr { addr, .. } => {
                self.expect(*addr, Type::Ptr, || "indirect_br address".to_string())
            }
            Terminator::Ret(v) => {
                let ret = ir.signature().ret;
                match (v, ret) {
                    (None, Type::Void) => {}
                    (None, t) => {
                        self.error(format!("ret without a value in a function returning {t}"))
                    }
                    (Some(_), Type::Void) => {
                        self.error("ret with a value in a function returning void")
                    }
                    (Some(v), t) => self.expect(*v, t, || "return value".to_string()),
                }
            }
            Terminator::Unreachable => {}
        }
        self.block = None;
    }

    fn check_call(
        &mut self,
        ret: Type,
        callee: &Callee,
        args: &[Operand],
        fixed_args: Option<u32>,
    ) {
        let symbols = self.symbols;
        let sig = match callee {
            Callee::Direct(s) => match symbols.signatures.get(s.index()) {
                None => {
                    self.error(format!("call to {s}, which is not a symbol of the module"));
                    return;
                }
                Some(None) => {
                    let name = self.symbols.name(*s).into_owned();
                    self.error(format!(
                        "call to @{name}, which is a global variable, not a function"
                    ));
                    return;
                }
                Some(Some(sig)) => sig,
            },
            Callee::Indirect(p) => {
                self.expect(*p, Type::Ptr, || "indirect callee".to_string());
                for (n, &a) in args.iter().enumerate() {
                    self.operand(a, || format!("call argument {n}"));
                }
                return;
            }
        };
        if sig.ret != ret {
            self.error(format!(
                "call result type {ret} differs from the callee's {}",
                sig.ret
            ));
        }
        let fixed = sig.params.len();
        if args.len() < fixed || (!sig.varargs && args.len() != fixed) {
            self.error(format!(
                "call passes {} arguments, the callee takes {fixed}{}",
                args.len(),
                if sig.varargs { " or more" } else { "" }
            ));
        }
        if let Some(n) = fixed_args {
            if !sig.varargs || n as usize != fixed {
                self.error(format!(
                    "call says {n} fixed arguments, the callee's signature has {fixed}{}",
                    if sig.varargs {
                        ""
                    } else {
                        " and is not variadic"
                    }
                ));
            }
        }
        for (n, (&a, &ty)) in args.iter().zip(&sig.params).enumerate() {
            self.expect(a, ty, || format!("call argument {n}"));
        }
        for (n, &a) in args.iter().enumerate().skip(fixed) {
            self.operand(a, || format!("variadic argument {n}"));
        }
    }

    /// `check_inst` on every instruction of `b`, with uses checked for dominance if
    /// `checked`. One call per block: `check_inst`, inlined here, sets up its large frame
    /// once per block instead of once per instruction.
    #[inline(never)]
    fn check_insts(&mut self, b: Block, checked: bool) {
        self.use_checked = checked;
        self.use_block = b;
        for (n, &i) in self.ir.block_insts(b).iter().enumerate() {
            self.use_at = n as u32;
            self.check_inst(i);
        }
        self.inst = None;
    }

    #[inline(always)]
    fn check_inst(&mut self, i: Inst) {
        let ir = self.ir;
        self.inst = Some(i);
        let kind = ir.inst_kind(i);
        let name = OpcodeName(kind);
        let op = |n: usize| format!("operand {n} of `{name}`");
        match kind {
            InstKind::Binary {
                op: bop,
                ty,
                lhs,
                rhs,
            } => {
                let lane = ty.lane();
                if bop.is_float() != lane.is_float() || !(lane.is_int() || lane.is_float()) {
                    self.error(format!("`{name}` cannot operate on {ty}"));
                }
                self.expect(*lhs, *ty, || op(1));
                self.expect(*rhs, *ty, || op(2));
            }
            InstKind::Unary { ty, arg, .. } => {
                if !ty.lane().is_float() {
                    self.error(format!("`{name}` cannot operate on {ty}"));
                }
                self.expect(*arg, *ty, || op(1));
            }
            InstKind::Icmp { ty, lhs, rhs, .. } => {
                if !(ty.lane().is_int() || ty.lane() == Type::Ptr) {
                    self.error(format!("icmp cannot compare {ty}"));
                }
                self.expect(*lhs, *ty, || op(1));
                self.expect(*rhs, *ty, || op(2));
            }
            InstKind::Fcmp { ty, lhs, rhs, .. } => {
                if !ty.lane().is_float() {
                    self.error(format!("fcmp cannot compare {ty}"));
                }
                self.expect(*lhs, *ty, || op(1));
                self.expect(*rhs, *ty, || op(2));
            }
            InstKind::Cast {
                op: cop,
                from,
                to,
                arg,
            } => {
                self.expect(*arg, *from, || op(1));
                if !cast_fits(*cop, *from, *to) {
                    self.error(format!("`{cop}` cannot convert {from} to {to}"));
                }
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                if !ty.is_value() {
                    self.error("select of void");
                }
                // A scalar `i1` picks whole values; a vector select may pick lane by lane
                // with an `<N x i1>` of its lane count.
                let lanes = ty.with_lane(Type::I1);
                if !ty.is_vector() {
                    self.expect(*cond, Type::I1, || "select condition".to_string());
                } else {
                    self.expect_with(
                        *cond,
                        || "select condition".to_string(),
                        |t| t == Type::I1 || t == lanes,
                        "i1 or a vector of i1 of the select's lane count",
                    );
                }
                self.expect(*if_true, *ty, || op(2));
                self.expect(*if_false, *ty, || op(3));
            }
            InstKind::Alloca {
                ty, size, align, ..
            } => {
                if *size < ty.bytes() {
                    self.error(format!("alloca of {size} bytes cannot hold {ty}"));
                }
                if !align.is_power_of_two() {
                    self.error(format!("alloca alignment {align} is not a power of two"));
                }
            }
            InstKind::DynAlloca { count, align, .. } => {
                let what = || "dyn_alloca count".to_string();
                if let Some(t) = self.operand(*count, what) {
                    if !t.is_int() {
                        self.error(format!(
                            "dyn_alloca count has type {t}, expected an integer"
                        ));
                    }
                }
                if !align.is_power_of_two() {
                    self.error(format!("alloca alignment {align} is not a power of two"));
                }
            }
            InstKind::Load { ty, ptr, .. } => {
                if !ty.is_value() {
                    self.error("load of void");
                }
                self.expect(*ptr, Type::Ptr, || "load address".to_string());
            }
            InstKind::Store { ty, value, ptr, .. } => {
                if !ty.is_value() {
                    self.error("store of void");
                }
                self.expect(*value, *ty, || "stored value".to_string());
                self.expect(*ptr, Type::Ptr, || "store address".to_string());
            }
            InstKind::Gep { base, indices, .. } => {
                self.expect(*base, Type::Ptr, || "gep base".to_string());
                for (n, (idx, _)) in indices.iter().enumerate() {
                    self.expect_with(
                        *idx,
                        || format!("gep index {n}"),
                        Type::is_int,
                        "an integer",
                    );
                }
            }
            InstKind::Call {
                ret,
                callee,
                args,
                fixed_args,
            } => self.check_call(*ret, callee, args, *fixed_args),
            InstKind::InlineAsm(asm) => {
                for (n, o) in asm.outputs.iter().enumerate() {
                    if let AsmOutputPlace::Pointer(p) = o.place {
                        self.expect(p, Type::Ptr, || format!("asm output {n} address"));
                    }
                }
                for (n, input) in asm.inputs.iter().enumerate() {
                    self.operand(input.value, || format!("asm input {n}"));
                }
            }
            InstKind::CmpXchg { ty, .. } if ty.is_aggregate() || ty.is_vector() => {
                self.error(format!("cmpxchg cannot operate on {ty}"));
            }
            InstKind::AtomicRmw { ty, ptr, value, .. } => {
                if !(ty.is_int() || *ty == Type::Ptr || ty.is_float()) {
                    self.error(format!("atomicrmw cannot operate on {ty}"));
                }
                self.expect(*ptr, Type::Ptr, || "atomicrmw address".to_string());
                self.expect(*value, *ty, || "atomicrmw operand".to_string());
            }
            InstKind::CmpXchg {
                ty,
                ptr,
                expected,
                new,
                ..
            } => {
                self.expect(*ptr, Type::Ptr, || "cmpxchg address".to_string());
                self.expect(*expected, *ty, || "cmpxchg expected value".to_string());
                self.expect(*new, *ty, || "cmpxchg new value".to_string());
            }
            InstKind::Fence { .. } => {}
            InstKind::Phi { ty, incoming } => {
                self.has_phi = true;
                let at_inst = (self.use_checked, self.use_block, self.use_at);
                for (n, (b, v)) in incoming.iter().enumerate() {
                    // A phi's incoming value is used at the end of its predecessor.
                    self.use_checked = at_inst.0 && self.cfg.is_reachable(*b);
                    (self.use_block, self.use_at) = (*b, u32::MAX);
                    self.expect(*v, *ty, || format!("phi incoming value {n}"));
                    if !self.is_live_block(*b) {
                        self.error(format!("phi incoming block {b} does not exist"));
                    }
                }
                (self.use_checked, self.use_block, self.use_at) = at_inst;
            }
            InstKind::Copy { ty, src } => self.expect(*src, *ty, || "copy source".to_string()),
            InstKind::ExtractValue { ty, agg, index } => {
                if ty.member(*index as usize).is_none() {
                    self.error(format!("`{name}` index {index} is not a member of {ty}"));
                }
                self.expect(*agg, *ty, || op(1));
            }
            InstKind::InsertValue {
                ty,
                agg,
                value,
                index,
            } => {
                self.expect(*agg, *ty, || op(1));
                match ty.member(*index as usize) {
                    None => self.error(format!("`{name}` index {index} is not a member of {ty}")),
                    Some((m, _)) => self.expect(*value, m, || op(2)),
                }
            }
            InstKind::ExtractElement { ty, vec, index } => {
                self.check_vector_type(*ty, name);
                self.expect(*vec, *ty, || op(1));
                self.expect_with(*index, || op(2), Type::is_int, "an integer");
            }
            InstKind::InsertElement {
                ty,
                vec,
                value,
                index,
            } => {
                self.check_vector_type(*ty, name);
                self.expect(*vec, *ty, || op(1));
                self.expect(*value, ty.lane(), || op(2));
                self.expect_with(*index, || op(3), Type::is_int, "an integer");
            }
            InstKind::ShuffleVector {
                ty,
                result,
                a,
                b,
                mask,
            } => {
                self.check_vector_type(*ty, name);
                self.expect(*a, *ty, || op(1));
                self.expect(*b, *ty, || op(2));
                self.check_shuffle_mask(*ty, *result, *mask);
            }
            InstKind::Opaque(o) => {
                for (n, &a) in o.args.iter().enumerate() {
                    self.operand(a, || format!("operand {n} of opaque `{}`", o.name));
                }
            }
        }
    }

    fn check_vector_type(&mut self, ty: Type, name: impl fmt::Display) {
        if !ty.is_vector() {
            self.error(format!("`{name}` needs a vector type, found {ty}"));
        }
    }

    /// A shuffle mask is a `<M x i32>` constant whose lanes are `undef` or indices below
    /// twice the input lane count, and the result is `<M x lane>`.
    fn check_shuffle_mask(&mut self, ty: Type, result: Type, mask: Const) {
        let pool = self.ir.consts();
        let Some(m) = pool.try_get(mask) else {
            self.error(format!(
                "shufflevector mask {mask} is not in the constant pool"
            ));
            return;
        };
        let Some((len, Type::I32)) = m.ty.vector_shape() else {
            self.error(format!(
                "shufflevector mask has type {}, expected a vector of i32",
                m.ty
            ));
            return;
        };
        if result.vector_shape() != Some((len, ty.lane())) {
            self.error(format!(
                "shufflevector result type {result} is not <{len} x {}>",
                ty.lane()
            ));
        }
        let inputs = 2 * ty.lanes() as u128;
        let lanes: &[Const] = match m.kind {
            ConstKind::Undef => &[],
            _ => pool.members(mask).unwrap_or(&[]),
        };
        for (n, &l) in lanes.iter().enumerate() {
            match pool.try_get(l).map(|d| d.kind) {
                Some(ConstKind::Undef) => {}
                Some(ConstKind::Int(k)) if k < inputs => {}
                _ => self.error(format!(
                    "shufflevector mask lane {n} is not undef or an index below {inputs}"
                )),
            }
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

/// An instruction's opcode name, looked up only when a message is formatted (most
/// instructions are valid, and the lookup is a large match).
#[derive(Clone, Copy)]
struct OpcodeName<'k>(&'k InstKind);

impl fmt::Display for OpcodeName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.opcode_name())
    }
}

/// True if a cast's source and target types suit its operation.
/// Whether `op` converts `from` to `to`: lane by lane for vectors (same lane count, the
/// scalar rule on the lanes); `bitcast` between any non-aggregate types of one width, except
/// that pointers (or vectors of them) only convert to the same kind.
fn cast_fits(op: CastOp, from: Type, to: Type) -> bool {
    if from.is_vector() || to.is_vector() {
        return if op == CastOp::Bitcast {
            from.is_value()
                && !from.is_aggregate()
                && !to.is_aggregate()
                && from.bits() == to.bits()
                && (from.lane() == Type::Ptr) == (to.lane() == Type::Ptr)
                && (from.lane() != Type::Ptr || from.lanes() == to.lanes())
        } else {
            from.is_vector()
                && to.is_vector()
                && from.lanes() == to.lanes()
                && cast_fits(op, from.lane(), to.lane())
        };
    }
    match op {
        CastOp::Trunc => from.is_int() && to.is_int() && to.bits() < from.bits(),
        CastOp::ZExt | CastOp::SExt => from.is_int() && to.is_int() && to.bits() > from.bits(),
        CastOp::FpTrunc => from.is_float() && to.is_float() && to.bits() < from.bits(),
        CastOp::FpExt => from.is_float() && to.is_float() && to.bits() > from.bits(),
        CastOp::FpToSi | CastOp::FpToUi => from.is_float() && to.is_int(),
        CastOp::SiToFp | CastOp::UiToFp => from.is_int() && to.is_float(),
        CastOp::PtrToInt => from == Type::Ptr && to.is_int(),
        CastOp::IntToPtr => from.is_int() && to == Type::Ptr,
        CastOp::Bitcast => {
            from.is_value()
                && !from.is_aggregate()
                && !to.is_aggregate()
                && from.bits() == to.bits()
        }
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

/// Checks every global's initialiser against its size: the initial bytes are at most `size`
/// (fewer are zero-filled), and each relocation's 8-byte pointer lies inside `size` and names
/// a symbol of the module. These are module-level facts, so they are checked here once per
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
            if r.offset.checked_add(8).is_none_or(|end| end > g.size) {
                errors.push(GlobalError {
                    global: name(),
                    message: format!(
                        "pointer at offset {} does not fit in the global's size of {} bytes",
                        r.offset, g.size
                    ),
                });
            }
            if r.symbol.index() >= m.symbols.len() {
                errors.push(GlobalError {
                    global: name(),
                    message: format!("pointer at offset {} names unknown {}", r.offset, r.symbol),
                });
            }
        }
    }
    errors
}

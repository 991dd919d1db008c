//! Size estimation for placement (spec 001, "Size estimation"): how much data a value
//! carries when it crosses a target boundary, and how much a path (a global) weighs.
//!
//! What: a [`Size`] has two axes, *information units* (one per primitive value) and a
//! *cardinality* (how many such elements a collection holds), each a [`Range`] with a lower
//! and an upper bound; its total is their product. [`compute`] estimates every value of a
//! function in two phases:
//!
//! 1. **Static, from types** ([`Size::of_type`]): a scalar is 1 unit (`i128` 2, `void` 0);
//!    a struct is the sum of its members' totals; an array `[n x T]` is `T`'s total with
//!    cardinality `n`; a pointer of unknown provenance is 1 unit (its address). A global
//!    (a path) has only a byte size in the IR, so [`global_size`] bounds its units by one
//!    per 16 bytes (the widest scalar) and one per byte.
//! 2. **Forward propagation through assignments** (a dataflow fixpoint over the blocks in
//!    reverse postorder): `alloca` of `n` bytes of `T` gives a pointer to `T`-sized elements
//!    with cardinality `[1, n / bytes(T)]` (at least the element it points at, at most the
//!    whole object); `dyn_alloca` up to its constant count (else [`MAX_CARD`]); `gep`, `copy`
//!    and `cast` keep their operand's size (a derived pointer reaches the same object); `phi`
//!    and `select` join (lower bounds take the minimum, upper bounds the maximum); a global's
//!    address has the global's size; loads, extracts and other results take their type's
//!    static size.
//!
//! **Inter-procedural phase (affine sizes in parameters).** A value's size is a [`SizeForm`]:
//! either known, or affine in one parameter `p`: `units = scale · units(p) + plus`,
//! `cardinality = cardinality(p)`. Parameters start as the identity form; `gep`/`copy`/`cast`
//! keep forms, joins of forms of the same parameter and scale stay affine (the offsets
//! join), any other join is evaluated under the parameters' static sizes and becomes known.
//! A function's *summary* is the join of the forms it returns. At a direct call whose
//! callee has a summary in [`SizeSummaries`], the result's form is the summary with the
//! callee's parameter replaced by the caller's argument form (affine forms compose:
//! `s·(s'·x + b') + b = (s·s')·x + (s·b' + b)`). [`summarize_module`] computes summaries
//! callees first (call-graph SCCs bottom-up; inside a recursive SCC, a fixed number of
//! rounds, then the static size). The pipeline's `placement` pass places functions one by
//! one in parallel, so it does not have every callee's summary: it uses static sizes for
//! calls (deterministic whatever the thread order); [`summarize_module`] serves whole-module
//! users (the `sizes` filetest; a caller of [`super::ir::build_problem_in`] passes them
//! through [`super::ir::BuildScratch::summaries`]).
//!
//! **From a range to a cost** ([`SizeEstimate`], the target model's `[sizes] estimate`): the
//! cost model is a sum of numbers, so a range must become one number. The default is the
//! midpoint, rounded up: a transfer moves the actual size, somewhere in the range; with no
//! distribution known, the midpoint has the smallest worst-case error (half the width),
//! where the upper bound may overcount by the whole width (a pointer into a 64 Ki-element
//! array that touches one element) and the lower bound undercount by as much. `upper`
//! (conservative: never underestimates a transfer) and `lower` are selectable.
//!
//! Invariants: every range has `lo <= hi`; bounds saturate at [`MAX_UNITS`] (units) and
//! [`MAX_CARD`] (cardinality), so the fixpoint is finite; after [`WIDEN_AFTER`] rounds a value
//! that still changes is widened to its type's units with the full cardinality range.
//!
//! Complexity: O(rounds · instructions), the first round over every instruction and later
//! rounds over the propagating ones only. Termination: after [`WIDEN_AFTER`] rounds a value
//! changes at most once more (to its widened size, which is then stable), so the loop ends;
//! acyclic functions need 2 rounds, loops one more per back edge a growth crosses.

use crate::analysis::Cfg;
use crate::ir::{
    AggShape, Block, Callee, ConstKind, InstKind, IrRead, Operand, SymbolTable, Terminator, Type,
};
use std::collections::HashMap;

/// Upper bound of a cardinality (keeps sizes finite).
pub const MAX_CARD: u64 = 1 << 16;
/// Upper bound of information units.
pub const MAX_UNITS: u64 = 1 << 20;
/// Rounds of the forward fixpoint before widening.
pub const WIDEN_AFTER: usize = 8;

/// A closed range `[lo, hi]` of non-negative integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Range {
    /// Lower bound.
    pub lo: u64,
    /// Upper bound (`>= lo`).
    pub hi: u64,
}

impl Range {
    /// `[n, n]`.
    pub const fn exact(n: u64) -> Range {
        Range { lo: n, hi: n }
    }

    /// `[lo, hi]` (the bounds swapped if given in the wrong order).
    pub fn new(lo: u64, hi: u64) -> Range {
        Range {
            lo: lo.min(hi),
            hi: lo.max(hi),
        }
    }

    /// The smallest range containing both.
    pub fn join(self, o: Range) -> Range {
        Range {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// Interval sum, saturating at `cap`.
    pub fn add(self, o: Range, cap: u64) -> Range {
        Range {
            lo: self.lo.saturating_add(o.lo).min(cap),
            hi: self.hi.saturating_add(o.hi).min(cap),
        }
    }

    /// Interval product (both non-negative), saturating at `cap`.
    pub fn mul(self, o: Range, cap: u64) -> Range {
        Range {
            lo: self.lo.saturating_mul(o.lo).min(cap),
            hi: self.hi.saturating_mul(o.hi).min(cap),
        }
    }

    /// The single number a cost uses (see the module doc).
    pub fn estimate(self, how: SizeEstimate) -> u64 {
        match how {
            SizeEstimate::Lower => self.lo,
            SizeEstimate::Upper => self.hi,
            SizeEstimate::Mid => self.lo + (self.hi - self.lo).div_ceil(2),
        }
    }
}

/// How a size range becomes a cost (the target model's `[sizes] estimate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SizeEstimate {
    /// The lower bound.
    Lower,
    /// The midpoint, rounded up (the default; see the module doc).
    #[default]
    Mid,
    /// The upper bound.
    Upper,
}

/// Information units and cardinality, both ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Size {
    /// Units per element.
    pub units: Range,
    /// Number of elements.
    pub card: Range,
}

impl Size {
    /// One element of `n` units.
    pub const fn units(n: u64) -> Size {
        Size {
            units: Range::exact(n),
            card: Range::exact(1),
        }
    }

    /// The static size of a value of type `ty` (see the module doc).
    pub fn of_type(ty: Type) -> Size {
        match ty {
            Type::Void => Size::units(0),
            Type::I128 => Size::units(2),
            Type::Agg(id) => match &id.info().shape {
                AggShape::Struct { fields, .. } => Size {
                    units: fields.iter().fold(Range::exact(0), |acc, &m| {
                        acc.add(Size::of_type(m).total(), MAX_UNITS)
                    }),
                    card: Range::exact(1),
                },
                AggShape::Array { len, elem } | AggShape::Vector { len, elem } => Size {
                    units: Size::of_type(*elem).total(),
                    card: Range::exact((*len as u64).min(MAX_CARD)),
                },
            },
            // A vector is its lanes, as an array of them.
            Type::Vec(id) => match &id.info().shape {
                AggShape::Vector { len, elem } => Size {
                    units: Size::of_type(*elem).total(),
                    card: Range::exact((*len as u64).min(MAX_CARD)),
                },
                _ => Size::units(1),
            },
            _ => Size::units(1),
        }
    }

    /// Units times cardinality.
    pub fn total(self) -> Range {
        self.units.mul(self.card, MAX_UNITS)
    }

    /// Both axes joined.
    pub fn join(self, o: Size) -> Size {
        Size {
            units: self.units.join(o.units),
            card: self.card.join(o.card),
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "units [{}, {}] x card [{}, {}]",
            self.units.lo, self.units.hi, self.card.lo, self.card.hi
        )
    }
}

/// The size of a global of `bytes` bytes (the IR keeps no type for globals): between one
/// unit per 16 bytes and one per byte, one element; `[1, 1]` when the size is unknown (0).
pub fn global_size(bytes: u64) -> Size {
    Size {
        units: Range::new(bytes.div_ceil(16).max(1), bytes.clamp(1, MAX_UNITS)),
        card: Range::exact(1),
    }
}

/// A value's size, known or affine in one parameter (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SizeForm {
    /// Known ranges.
    Known(Size),
    /// `units = scale · units(param) + plus`, `card = card(param)`.
    Affine {
        /// Parameter position.
        param: u32,
        /// Coefficient.
        scale: u64,
        /// Offset.
        plus: Range,
    },
}

impl SizeForm {
    /// The identity form of parameter `p`.
    pub fn param(p: u32) -> SizeForm {
        SizeForm::Affine {
            param: p,
            scale: 1,
            plus: Range::exact(0),
        }
    }

    /// The size under the given parameter sizes (a missing parameter: one unit).
    pub fn eval(self, params: &[Size]) -> Size {
        match self {
            SizeForm::Known(s) => s,
            SizeForm::Affine { param, scale, plus } => {
                let p = params
                    .get(param as usize)
                    .copied()
                    .unwrap_or(Size::units(1));
                Size {
                    units: p
                        .units
                        .mul(Range::exact(scale), MAX_UNITS)
                        .add(plus, MAX_UNITS),
                    card: p.card,
                }
            }
        }
    }

    /// The join (see the module doc); `params` evaluates forms that cannot stay affine.
    pub fn join(self, o: SizeForm, params: &[Size]) -> SizeForm {
        match (self, o) {
            (a, b) if a == b => a,
            (
                SizeForm::Affine {
                    param: p,
                    scale: s,
                    plus: a,
                },
                SizeForm::Affine {
                    param: q,
                    scale: t,
                    plus: b,
                },
            ) if p == q && s == t => SizeForm::Affine {
                param: p,
                scale: s,
                plus: a.join(b),
            },
            (a, b) => SizeForm::Known(a.eval(params).join(b.eval(params))),
        }
    }

    /// This form (a callee's summary, in the callee's parameters) with each parameter
    /// replaced by the caller's argument form; `args[i]` is `None` when argument `i` is
    /// missing (the result is then `fallback`).
    pub fn substitute(self, args: &[Option<SizeForm>], fallback: Size) -> SizeForm {
        match self {
            SizeForm::Known(_) => self,
            SizeForm::Affine { param, scale, plus } => match args.get(param as usize) {
                Some(Some(SizeForm::Known(x))) => SizeForm::Known(Size {
                    units: x
                        .units
                        .mul(Range::exact(scale), MAX_UNITS)
                        .add(plus, MAX_UNITS),
                    card: x.card,
                }),
                Some(Some(SizeForm::Affine {
                    param: q,
                    scale: s2,
                    plus: b2,
                })) => SizeForm::Affine {
                    param: *q,
                    scale: scale.saturating_mul(*s2).min(MAX_UNITS),
                    plus: b2.mul(Range::exact(scale), MAX_UNITS).add(plus, MAX_UNITS),
                },
                _ => SizeForm::Known(fallback),
            },
        }
    }
}

/// Return-size summaries of functions, by name (the inter-procedural phase's table).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SizeSummaries {
    by_name: HashMap<String, SizeForm>,
}

impl SizeSummaries {
    /// The summary of function `name`, if known.
    pub fn get(&self, name: &str) -> Option<SizeForm> {
        self.by_name.get(name).copied()
    }

    /// Records (or replaces) the summary of `name`.
    pub fn insert(&mut self, name: &str, form: SizeForm) {
        self.by_name.insert(name.to_string(), form);
    }

    /// Forgets every summary.
    pub fn clear(&mut self) {
        self.by_name.clear();
    }

    /// Number of summaries.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// True if there is none.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// Working memory and output of [`compute`], reused between functions.
#[derive(Clone, Debug, Default)]
pub struct SizeScratch {
    /// Per value: its form (`None`: not reached; read as the type's static size).
    pub form: Vec<Option<SizeForm>>,
    /// Static sizes of the parameters, in order.
    pub params: Vec<Size>,
    args: Vec<Option<SizeForm>>,
}

impl SizeScratch {
    /// The evaluated size of value `v` (static from `ty` if it was not reached).
    pub fn size(&self, v: usize, ty: Type) -> Size {
        match self.form.get(v).copied().flatten() {
            Some(f) => f.eval(&self.params),
            None => Size::of_type(ty),
        }
    }
}

/// The size form of a constant operand.
fn const_form<F: IrRead>(f: &F, symbols: Option<&SymbolTable>, op: Operand) -> SizeForm {
    let Operand::Const(c) = op else {
        unreachable!("const_form takes constants")
    };
    let Some(d) = f.consts().try_get(c) else {
        return SizeForm::Known(Size::units(1));
    };
    match d.kind {
        ConstKind::SymbolAddr(s) => {
            let bytes = symbols
                .filter(|t| t.signatures.get(s.index()).is_some_and(|sig| sig.is_none()))
                .and_then(|t| t.global_bytes.get(s.index()).copied());
            SizeForm::Known(match bytes {
                Some(b) => global_size(b),
                None => Size::units(1),
            })
        }
        _ => SizeForm::Known(Size::of_type(d.ty)),
    }
}

/// Computes the size form of every value of `f` into `s.form` (see the module doc) and
/// returns the function's summary (the join of the forms it returns; `None` for `void` or
/// no reachable `ret`). `cfg` is `f`'s CFG (its reverse postorder is the visiting order);
/// `summaries` gives callees' summaries (may be empty).
pub fn compute<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    symbols: Option<&SymbolTable>,
    summaries: &SizeSummaries,
    s: &mut SizeScratch,
) -> Option<SizeForm> {
    let nv = f.values().len();
    let ni = f.num_insts();
    s.form.clear();
    s.form.resize(nv, None);
    s.params.clear();
    for (i, &p) in f.param_values().iter().enumerate() {
        let ty = f.values().get(p.index()).map_or(Type::Ptr, |d| d.ty);
        s.params.push(Size::of_type(ty));
        if let Some(slot) = s.form.get_mut(p.index()) {
            *slot = Some(SizeForm::param(i as u32));
        }
    }
    let ty_of = |v: usize| f.values().get(v).map_or(Type::Void, |d| d.ty);
    let mut round = 0usize;
    loop {
        round += 1;
        let mut changed = false;
        for &b in cfg.rpo() {
            for &i in f.block_insts(b) {
                if i.index() >= ni {
                    continue;
                }
                let [r] = f.inst_results(i) else { continue };
                let r = r.index();
                if r >= nv {
                    continue;
                }
                let (form, params) = (&s.form, &s.params);
                let of = |op: Operand| -> Option<SizeForm> {
                    match op {
                        Operand::Value(v) => form.get(v.index()).copied().flatten(),
                        c => Some(const_form(f, symbols, c)),
                    }
                };
                let kind = f.inst_kind(i);
                // After the first round only results computed from other values' forms can
                // change.
                if round > 1
                    && !matches!(
                        kind,
                        InstKind::Gep { .. }
                            | InstKind::Copy { .. }
                            | InstKind::Cast { .. }
                            | InstKind::Select { .. }
                            | InstKind::Phi { .. }
                            | InstKind::Call {
                                callee: Callee::Direct(_),
                                ..
                            }
                    )
                {
                    continue;
                }
                let rty = ty_of(r);
                let new = match kind {
                    InstKind::Alloca { ty, size, .. } => {
                        let elem = Size::of_type(*ty);
                        let count = (*size as u64 / (ty.bytes() as u64).max(1)).max(1);
                        Some(SizeForm::Known(Size {
                            units: elem.units,
                            card: Range::new(1, elem.card.hi.saturating_mul(count).min(MAX_CARD)),
                        }))
                    }
                    InstKind::DynAlloca { ty, count, .. } => {
                        let n = match count {
                            Operand::Const(c) => match f.consts().try_get(*c).map(|d| d.kind) {
                                Some(ConstKind::Int(n)) => (n as u64).clamp(1, MAX_CARD),
                                _ => MAX_CARD,
                            },
                            Operand::Value(_) => MAX_CARD,
                        };
                        Some(SizeForm::Known(Size {
                            units: Size::of_type(*ty).total(),
                            card: Range::new(1, n),
                        }))
                    }
                    InstKind::Gep { base: src, .. }
                    | InstKind::Copy { src, .. }
                    | InstKind::Cast { arg: src, .. } => of(*src),
                    InstKind::Select {
                        if_true, if_false, ..
                    } => match (of(*if_true), of(*if_false)) {
                        (Some(a), Some(b)) => Some(a.join(b, params)),
                        (a, b) => a.or(b),
                    },
                    InstKind::Phi { incoming, .. } => incoming
                        .iter()
                        .filter_map(|(_, op)| of(*op))
                        .reduce(|a, b| a.join(b, params)),
                    InstKind::Call {
                        callee: Callee::Direct(sym),
                        args,
                        ..
                    } => {
                        let summary = symbols
                            .and_then(|t| t.names.get(sym.index()))
                            .and_then(|name| summaries.get(name));
                        match summary {
                            Some(sum) => {
                                s.args.clear();
                                s.args.extend(args.iter().map(|&a| of(a)));
                                Some(sum.substitute(&s.args, Size::of_type(rty)))
                            }
                            None => Some(SizeForm::Known(Size::of_type(rty))),
                        }
                    }
                    _ => Some(SizeForm::Known(Size::of_type(rty))),
                };
                let Some(mut new) = new else { continue };
                if s.form[r] != Some(new) {
                    if round > WIDEN_AFTER {
                        let ty = Size::of_type(rty);
                        new = SizeForm::Known(Size {
                            units: Range::new(ty.units.lo.min(1), MAX_UNITS),
                            card: Range::new(1, MAX_CARD),
                        });
                        if s.form[r] == Some(new) {
                            continue;
                        }
                    }
                    s.form[r] = Some(new);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut summary: Option<SizeForm> = None;
    for &b in cfg.rpo() {
        if let Terminator::Ret(Some(op)) = f.terminator(b) {
            let form = match op {
                Operand::Value(v) => s
                    .form
                    .get(v.index())
                    .copied()
                    .flatten()
                    .unwrap_or(SizeForm::Known(Size::of_type(ty_of(v.index())))),
                c => const_form(f, symbols, *c),
            };
            summary = Some(match summary {
                Some(prev) => prev.join(form, &s.params),
                None => form,
            });
        }
    }
    summary
}

/// Return-size summaries of every function of a module (already in SSA form, for useful
/// answers), callees first: the call graph's SCCs bottom-up; a recursive SCC is iterated
/// [`WIDEN_AFTER`] rounds, after which a summary still changing is dropped (its callers
/// then use the static size of the return type).
pub fn summarize_module(functions: &[crate::ir::Function], symbols: &SymbolTable) -> SizeSummaries {
    let index: HashMap<&str, usize> = functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    // Call graph over the defined functions.
    let mut callees: Vec<Vec<Block>> = vec![Vec::new(); functions.len()];
    for (i, f) in functions.iter().enumerate() {
        for b in 0..f.num_blocks() {
            for &inst in f.block_insts(Block::new(b)) {
                if let InstKind::Call {
                    callee: Callee::Direct(sym),
                    ..
                } = f.inst_kind(inst)
                {
                    if let Some(&j) = symbols
                        .names
                        .get(sym.index())
                        .and_then(|n| index.get(n.as_str()))
                    {
                        if !callees[i].contains(&Block::new(j)) {
                            callees[i].push(Block::new(j));
                        }
                    }
                }
            }
        }
    }
    let mut sccs = crate::analysis::Sccs::new();
    sccs.compute_graph(functions.len(), |b| &callees[b.index()]);
    let mut out = SizeSummaries::default();
    let mut scratch = SizeScratch::default();
    let mut cfg = Cfg::new();
    // Tarjan numbers SCCs in reverse topological order of the graph: callees first.
    for k in 0..sccs.len() {
        let members: Vec<usize> = sccs.members(k).iter().map(|b| b.index()).collect();
        let mut stable = false;
        for _ in 0..WIDEN_AFTER {
            let mut changed = false;
            for &m in &members {
                let f = &functions[m];
                cfg.compute(f);
                let sum = compute(f, &cfg, Some(symbols), &out, &mut scratch);
                if let Some(sum) = sum {
                    if out.get(&f.name) != Some(sum) {
                        out.insert(&f.name, sum);
                        changed = true;
                    }
                }
            }
            if !changed {
                stable = true;
                break;
            }
        }
        if !stable {
            for &m in &members {
                out.by_name.remove(&functions[m].name);
            }
        }
    }
    out
}

impl std::fmt::Display for SizeForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeForm::Known(s) => write!(f, "{s}"),
            SizeForm::Affine { param, scale, plus } => write!(
                f,
                "units {scale} * units(param {param}) + [{}, {}] x card(param {param})",
                plus.lo, plus.hi
            ),
        }
    }
}

/// A report of a module's sizes (the `sizes` filetest): the summaries of
/// [`summarize_module`], then per function each parameter's and instruction result's size
/// (the form evaluated under the parameters' static sizes, and the affine form when it
/// depends on a parameter) and the function's summary.
pub fn describe(m: &crate::ir::Module) -> String {
    use std::fmt::Write as _;
    let symbols = m.symbol_table();
    let summaries = summarize_module(&m.functions, &symbols);
    let mut out = String::new();
    let mut s = SizeScratch::default();
    let mut cfg = Cfg::new();
    for f in &m.functions {
        cfg.compute(f);
        let summary = compute(f, &cfg, Some(&symbols), &summaries, &mut s);
        let _ = writeln!(out, "function @{}", f.name);
        let line = |v: crate::ir::Value, out: &mut String| {
            let ty = f.values().get(v.index()).map_or(Type::Void, |d| d.ty);
            let size = s.size(v.index(), ty);
            let _ = write!(out, "  {v}: {size}");
            if let Some(form @ SizeForm::Affine { .. }) = s.form.get(v.index()).copied().flatten() {
                let _ = write!(out, " ({form})");
            }
            out.push('\n');
        };
        for &p in f.param_values() {
            line(p, &mut out);
        }
        for b in cfg.rpo() {
            for &i in f.block_insts(*b) {
                if let [r] = f.inst_results(i) {
                    line(*r, &mut out);
                }
            }
        }
        match summary {
            Some(form) => {
                let _ = writeln!(out, "  returns: {form}");
            }
            None => out.push_str("  returns: nothing\n"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Function, Module};

    fn module(src: &str) -> Module {
        crate::text::parse_module(src, "sizes.sir").unwrap_or_else(|e| panic!("{e}"))
    }

    /// The sizes of every value of `f` (with `summaries`), and its summary.
    fn sizes_of(
        m: &Module,
        f: &Function,
        summaries: &SizeSummaries,
    ) -> (Vec<Size>, Option<SizeForm>) {
        let mut cfg = Cfg::new();
        cfg.compute(f);
        let mut s = SizeScratch::default();
        let table = m.symbol_table();
        let sum = compute(f, &cfg, Some(&table), summaries, &mut s);
        let sizes = f
            .values()
            .iter()
            .enumerate()
            .map(|(v, d)| s.size(v, d.ty))
            .collect();
        (sizes, sum)
    }

    fn size(units: (u64, u64), card: (u64, u64)) -> Size {
        Size {
            units: Range::new(units.0, units.1),
            card: Range::new(card.0, card.1),
        }
    }

    #[test]
    fn static_sizes_follow_type_structure() {
        assert_eq!(Size::of_type(Type::I32), Size::units(1));
        assert_eq!(Size::of_type(Type::I128), Size::units(2));
        assert_eq!(Size::of_type(Type::Void), Size::units(0));
        assert_eq!(Size::of_type(Type::Ptr), Size::units(1));
        let pair = Type::aggregate(AggShape::Struct {
            fields: vec![Type::I64, Type::I128].into(),
            packed: false,
        })
        .unwrap();
        assert_eq!(Size::of_type(pair), Size::units(3));
        let array = Type::aggregate(AggShape::Array {
            len: 10,
            elem: pair,
        })
        .unwrap();
        assert_eq!(Size::of_type(array), size((3, 3), (10, 10)));
        assert_eq!(Size::of_type(array).total(), Range::exact(30));
    }

    #[test]
    fn global_sizes_bound_units_by_bytes() {
        assert_eq!(global_size(64), size((4, 64), (1, 1)));
        assert_eq!(global_size(1), size((1, 1), (1, 1)));
        assert_eq!(global_size(0), size((1, 1), (1, 1)), "unknown: one unit");
    }

    #[test]
    fn ranges_become_costs_by_the_chosen_estimate() {
        let r = Range::new(4, 9);
        assert_eq!(r.estimate(SizeEstimate::Lower), 4);
        assert_eq!(r.estimate(SizeEstimate::Mid), 7, "midpoint rounded up");
        assert_eq!(r.estimate(SizeEstimate::Upper), 9);
        assert_eq!(Range::exact(5).estimate(SizeEstimate::Mid), 5);
        assert_eq!(Range::new(9, 4), r, "bounds are ordered");
        assert_eq!(r.join(Range::new(1, 5)), Range::new(1, 9));
        assert_eq!(r.mul(Range::new(2, 3), 20), Range::new(8, 20), "saturates");
    }

    #[test]
    fn forward_propagation_through_assignments() {
        let m = module(
            "global @g size 64 align 8

func @f(i1 v0) -> i64 {
block0:
  v1 = alloca i32, size 400, align 4
  v2 = alloca i64, size 8, align 8
  v3 = gep v1, 4
  v4 = select ptr v0, v3, v2
  v9 = copy ptr @g
  br v0, block1, block2
block1:
  jump block2
block2:
  v5 = phi ptr [block0: v2], [block1: v1]
  v6 = load i64, v5
  ret i64 v6
}
",
        );
        let (s, _) = sizes_of(&m, &m.functions[0], &SizeSummaries::default());
        assert_eq!(
            s[1],
            size((1, 1), (1, 100)),
            "alloca: up to 400 / 4 elements"
        );
        assert_eq!(s[2], size((1, 1), (1, 1)));
        assert_eq!(s[3], s[1], "gep keeps its base's object");
        assert_eq!(s[4], size((1, 1), (1, 100)), "select joins");
        assert_eq!(s[5], size((1, 1), (1, 100)), "phi joins");
        assert_eq!(s[6], Size::units(1), "a load: its type");
        assert_eq!(s[9], global_size(64), "a global's address: the global");
    }

    #[test]
    fn parameters_are_affine_and_calls_substitute_summaries() {
        let m = module(
            "func @id(ptr v0) -> ptr {
block0:
  v1 = gep v0, 8
  ret ptr v1
}

func @two(ptr v0, i1 v1) -> ptr {
block0:
  v2 = alloca i8, size 16, align 1
  v3 = select ptr v1, v0, v2
  ret ptr v3
}

func @caller(i1 v0) -> ptr {
block0:
  v1 = alloca i64, size 800, align 8
  v2 = call ptr @id(ptr v1)
  v3 = call ptr @two(ptr v1, i1 v0)
  ret ptr v2
}
",
        );
        let (_, id) = sizes_of(&m, &m.functions[0], &SizeSummaries::default());
        assert_eq!(id, Some(SizeForm::param(0)), "gep of a parameter: identity");
        let (_, two) = sizes_of(&m, &m.functions[1], &SizeSummaries::default());
        // A join of the parameter with a known size is evaluated under the parameter's
        // static size (a pointer: one unit).
        assert_eq!(two, Some(SizeForm::Known(size((1, 1), (1, 16)))));
        let mut sums = SizeSummaries::default();
        sums.insert("id", id.unwrap());
        sums.insert("two", two.unwrap());
        let (s, caller) = sizes_of(&m, &m.functions[2], &sums);
        assert_eq!(
            s[2],
            size((1, 1), (1, 100)),
            "the argument's size comes back"
        );
        assert_eq!(s[3], size((1, 1), (1, 16)));
        assert_eq!(caller, Some(SizeForm::Known(size((1, 1), (1, 100)))));
        // Without summaries a call's result has its type's static size.
        let (s, _) = sizes_of(&m, &m.functions[2], &SizeSummaries::default());
        assert_eq!(s[2], Size::units(1));
        // The whole-module phase finds the same, callees first.
        assert_eq!(
            summarize_module(&m.functions, &m.symbol_table()),
            sums_with(&sums, "caller", caller.unwrap())
        );
    }

    /// The summaries reach the placement problem: a call result live across an edge is
    /// charged at its callee's summarized size (what `strata place` builds), not at a
    /// pointer's one unit (the pipeline's pass, which has no summaries).
    #[test]
    fn summaries_raise_transfer_costs_of_call_results() {
        let m = module(
            "func @id(ptr v0) -> ptr {
block0:
  v1 = gep v0, 8
  ret ptr v1
}

func @caller(i1 v0) -> i64 {
block0:
  v1 = alloca i64, size 800, align 8
  v2 = call ptr @id(ptr v1)
  br v0, block1, block2
block1:
  v3 = load i64, v2
  ret i64 v3
block2:
  ret i64 0
}
",
        );
        let symbols = m.symbol_table();
        let model = crate::placement::targets::TargetModel::default_model();
        let sums = summarize_module(&m.functions, &symbols);
        let f = &m.functions[1];
        let plain = crate::placement::ir::build_problem(f, Some(&symbols), &model);
        let summarized =
            crate::placement::ir::build_problem_with_summaries(f, Some(&symbols), &model, &sums);
        let (a, b) = (&plain.problem.matrices, &summarized.problem.matrices);
        assert_eq!(a.len(), b.len());
        assert!(
            a.iter().zip(b).all(|(x, y)| y >= x) && a != b,
            "some transfer across block0's edges costs more with the summary:\n{a:?}\n{b:?}"
        );
    }

    fn sums_with(base: &SizeSummaries, name: &str, form: SizeForm) -> SizeSummaries {
        let mut s = base.clone();
        s.insert(name, form);
        s
    }

    #[test]
    fn affine_forms_compose_and_join() {
        let f = SizeForm::Affine {
            param: 0,
            scale: 2,
            plus: Range::exact(1),
        };
        let g = SizeForm::Affine {
            param: 3,
            scale: 3,
            plus: Range::new(0, 2),
        };
        // f(g(x)) = 2 (3x + [0, 2]) + 1 = 6x + [1, 5].
        assert_eq!(
            f.substitute(&[Some(g)], Size::units(1)),
            SizeForm::Affine {
                param: 3,
                scale: 6,
                plus: Range::new(1, 5)
            }
        );
        let known = SizeForm::Known(size((4, 4), (2, 3)));
        assert_eq!(
            f.substitute(&[Some(known)], Size::units(1)),
            SizeForm::Known(size((9, 9), (2, 3)))
        );
        assert_eq!(
            f.substitute(&[None], Size::units(7)),
            SizeForm::Known(Size::units(7)),
            "a missing argument: the fallback"
        );
        let params = [Size::units(1)];
        let f2 = SizeForm::Affine {
            param: 0,
            scale: 2,
            plus: Range::exact(5),
        };
        assert_eq!(
            f.join(f2, &params),
            SizeForm::Affine {
                param: 0,
                scale: 2,
                plus: Range::new(1, 5)
            },
            "same parameter and scale: offsets join"
        );
        assert_eq!(
            f.join(known, &params),
            SizeForm::Known(size((3, 4), (1, 3))),
            "otherwise evaluated and joined"
        );
    }

    #[test]
    fn growing_loops_are_widened_and_recursion_terminates() {
        let m = module(
            "func @grow(ptr v0) -> ptr {
block0:
  v1 = call ptr @grow(ptr v0)
  ret ptr v1
}

func @loop(ptr v0, i1 v1) -> ptr {
block0:
  jump block1
block1:
  v2 = phi ptr [block0: v0], [block1: v3]
  v3 = call ptr @dbl(ptr v2)
  br v1, block1, block2
block2:
  ret ptr v3
}

func @dbl(ptr v0) -> ptr {
block0:
  ret ptr v0
}
",
        );
        let mut sums = SizeSummaries::default();
        sums.insert(
            "dbl",
            SizeForm::Affine {
                param: 0,
                scale: 2,
                plus: Range::exact(1),
            },
        );
        let (s, _) = sizes_of(&m, &m.functions[1], &sums);
        assert_eq!(s[2].units.hi, MAX_UNITS, "widened: {}", s[2]);
        let all = summarize_module(&m.functions, &m.symbol_table());
        assert_eq!(all.get("dbl"), Some(SizeForm::param(0)));
        assert!(all.len() <= 3);
    }

    #[test]
    fn the_model_chooses_the_estimate() {
        use crate::placement::targets::TargetModel;
        let m = TargetModel::default_model();
        assert_eq!(m.size_estimate, SizeEstimate::Mid);
        let m = TargetModel::parse("[sizes]\nestimate = \"upper\"\n[[target]]\nname = \"a\"\n")
            .unwrap();
        assert_eq!(m.size_estimate, SizeEstimate::Upper);
        let err = TargetModel::parse("[sizes]\nestimate = \"most\"\n[[target]]\nname = \"a\"\n")
            .unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn costs_use_the_size_estimates() {
        use crate::placement::ir::build_problem;
        use crate::placement::targets::TargetModel;
        let m = module(
            "global @pg_big size 64 align 8
global @pg_small size 16 align 8

func @big() -> i64 {
block0:
  v1 = load i64, @pg_big
  ret i64 v1
}

func @small() -> i64 {
block0:
  v1 = load i64, @pg_small
  ret i64 v1
}

func @edge(i1 v0) -> i64 {
block0:
  v1 = alloca i64, size 800, align 8
  br v0, block1, block2
block1:
  v2 = load i64, v1
  ret i64 v2
block2:
  ret i64 0
}
",
        );
        let table = m.symbol_table();
        let model = TargetModel::default_model();
        let interp = 0;
        assert_eq!(model.targets[interp].name, "interpreter");
        let big = build_problem(&m.functions[0], Some(&table), &model);
        let small = build_problem(&m.functions[1], Some(&table), &model);
        assert_eq!(big.path_sizes, vec![global_size(64)]);
        // Path premium on the interpreter: path_unit 2 × midpoint of the global's units
        // ([4, 64] -> 34; [1, 16] -> 9).
        assert_eq!(
            big.problem.cost(0, interp) - small.problem.cost(0, interp),
            2 * (34 - 9)
        );
        // Transfer: the alloca's pointer (cardinality [1, 100], midpoint 51) is live into
        // block1; interpreter -> embedding costs overhead 8 + 1 per unit.
        let e = build_problem(&m.functions[2], Some(&table), &model);
        let emb = model
            .targets
            .iter()
            .position(|t| t.name == "embedding")
            .unwrap();
        let into1 = e
            .problem
            .edges
            .iter()
            .position(|x| e.pieces[x.to as usize].block == 1)
            .unwrap();
        assert_eq!(e.problem.transition(into1, interp, emb), 8 + 51);
    }
}

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
//! users (the `sizes` filetest; a caller of [`super::build::build_problem_in`] passes them
//! through [`super::build::BuildScratch::summaries`]).
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
//! changes at most once more (to its widened size, which is then stable), so the loop ends.
//! A round is followed by another only if some form changed after an instruction of that
//! round had read it (the rounds after it would change nothing), so acyclic functions need 1
//! round (reverse postorder reads definitions before their uses), loops one more per back
//! edge a growth crosses.

use crate::analysis::Cfg;
use crate::ir::{
    AggShape, Callee, ConstKind, InstKind, IrRead, Operand, SymbolTable, Terminator, Type,
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
    /// Per value: the last round that read its form.
    read: Vec<usize>,
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
    compute_blocks(f, cfg.rpo(), symbols, summaries, s)
}

/// [`compute`] over the blocks `blocks` only (a prefix of `cfg`'s reverse postorder):
/// the values they define get the forms [`compute`] gives them, provided no phi among them
/// reads a value defined in a later block (the caller checks: every other operand is
/// defined in a dominating, so earlier, block); the values of the other blocks stay
/// unreached. Each value's form in a round depends only on forms of the prefix, which
/// evolve round by round as in the whole computation, so the rounds, and the widening
/// after [`WIDEN_AFTER`] of them, are the same for the prefix's values. The summary is
/// that of the prefix's returns.
pub fn compute_blocks<F: IrRead>(
    f: &F,
    blocks: &[crate::ir::Block],
    symbols: Option<&SymbolTable>,
    summaries: &SizeSummaries,
    s: &mut SizeScratch,
) -> Option<SizeForm> {
    compute_values(f, blocks, None, symbols, summaries, s)
}

/// [`compute_blocks`] giving forms only to the results `keep` marks (per value; `None`:
/// every result): the instructions defining other values are skipped, their results
/// stay unreached. When the marked values are closed under the operands their
/// instructions' transfer reads (a derivation's source, a select's or phi's operands, a
/// direct call's arguments; the caller may mark more), each marked value's form in each
/// round depends only on marked forms, so it is the one [`compute_blocks`] gives it (the
/// argument for a prefix of blocks, see there). The summary is computed as there, from
/// the forms this computation gave.
pub fn compute_values<F: IrRead>(
    f: &F,
    blocks: &[crate::ir::Block],
    keep: Option<&[bool]>,
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
    s.read.clear();
    s.read.resize(nv, 0);
    let mut round = 0usize;
    loop {
        round += 1;
        let mut changed = false;
        for &b in blocks {
            for &i in f.block_insts(b) {
                if i.index() >= ni {
                    continue;
                }
                let [r] = f.inst_results(i) else { continue };
                let r = r.index();
                if r >= nv || keep.is_some_and(|k| !k.get(r).copied().unwrap_or(false)) {
                    continue;
                }
                let (form, params) = (&s.form, &s.params);
                let read = std::cell::Cell::from_mut(&mut s.read[..]).as_slice_of_cells();
                let of = |op: Operand| -> Option<SizeForm> {
                    match op {
                        Operand::Value(v) => {
                            if let Some(at) = read.get(v.index()) {
                                at.set(round);
                            }
                            form.get(v.index()).copied().flatten()
                        }
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
                let new = transfer(f, symbols, summaries, kind, rty, of, (params, &mut s.args));
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
                    // Another round only if a form this round already read has changed.
                    changed |= s.read[r] == round;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut summary: Option<SizeForm> = None;
    for &b in blocks {
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

/// The size form of an instruction's result (`rty`: its type) from its operands' forms
/// (`of`): allocas from their element type and count, derivations (gep, copy, cast) their
/// source's, select and phi the join of theirs, a direct call its callee's summary applied
/// to the arguments (static without one), anything else its type's static size. `None`:
/// no operand form is known yet.
fn transfer<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    summaries: &SizeSummaries,
    kind: &InstKind,
    rty: Type,
    of: impl Fn(Operand) -> Option<SizeForm>,
    (params, arg_forms): (&[Size], &mut Vec<Option<SizeForm>>),
) -> Option<SizeForm> {
    match kind {
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
                    arg_forms.clear();
                    arg_forms.extend(args.iter().map(|&a| of(a)));
                    Some(sum.substitute(arg_forms, Size::of_type(rty)))
                }
                None => Some(SizeForm::Known(Size::of_type(rty))),
            }
        }
        _ => Some(SizeForm::Known(Size::of_type(rty))),
    }
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

mod module;
pub use module::{describe, summarize_module};

#[cfg(test)]
mod tests;

//! Export of a module as LLVM 14 textual IR that `opt -passes=verify` accepts and `lli`
//! runs.
//!
//! Every top-level item of the original file is re-emitted verbatim from the
//! [`LlvmContext`] (types, globals, declarations, attribute groups, metadata), in the
//! original order; each function definition that the module still holds is printed from
//! the IR in its place, and a function import skipped keeps its original text.
//!
//! Printing rules (our IR erased pointee types): every `ptr` value is an `i8*`. Where LLVM
//! needs a typed pointer (load/store/atomic addresses, call arguments and results of the
//! original function types, parameters of the original signatures, `ret` of a typed
//! pointer) a `bitcast` is inserted: an instruction for values, a constant expression for
//! symbols (`bitcast ([6 x i8]* @msg to i8*)`). Values print as `%vN`, temporaries as
//! `%tN`, renamed pointer parameters as `%aN`, blocks as `bN`. If block 0 has predecessors
//! (LLVM forbids that for the entry block), a fresh `entry` block jumps to it and its phis
//! receive `undef` from `entry`. Allocas become `alloca T` (a scalar of the recorded size)
//! or `alloca [N x i8]`; `Gep` becomes a chain of `i8` GEPs with `sext`/`mul` for scaled
//! indices; `Copy` is a same-type `bitcast` (of an aggregate: `select i1 true`, as is a phi
//! with no entries, in a block no edge enters). Loads and stores are emitted with `align 1`
//! (the IR does not keep access alignment; `align 1` is always correct), atomics with
//! their natural alignment. Constants print with their LLVM types: `i1` as `true`/`false`,
//! integers as signed decimals, `double` as `0x` + 16 hex digits and `float` as the hex of
//! its value widened to `double`, `null`, `undef`. Calls reuse the original call shape
//! recorded at import ([`super::CallSite`]: function type, attributes such as `byval`)
//! when the call still has the same callee and argument types, otherwise the callee's
//! original header, otherwise a type derived from the IR. A pointer `atomicrmw` goes
//! through `i64` (LLVM 14 has none). Block labels that a verbatim global names in a
//! `blockaddress` are renamed to the printed `bN`.
//!
//! Globals the context does not know (a module built from `.sir` or the builder) are printed
//! from the IR: an `[N x i8]` image, or a packed struct of byte runs and `i8*` fields where
//! relocations point at symbols (`getelementptr (i8, i8* @sym, i64 addend)`).
//!
//! An asm goto that ends its block (followed by a jump) prints as a `callbr` terminator.
//!
//! Debug information is stripped from the whole module as LLVM's `strip-debug` would
//! (the private `export::debug` module): functions printed from the IR have no locations, and the module's debug
//! metadata, which import checks only loosely, is not re-emitted.
//!
//! A driver that prints each function as soon as the pipeline is done with it and frees it
//! (`strata compile --emit ll`) uses [`Exporter`]: [`Exporter::function`] per function, then
//! [`Exporter::write_module`] around the printed definitions, with the same result.
//!
//! Limits: block parameters are not exported, nor an asm goto with several results or in
//! the middle of a block (its labels are dropped, with a comment), nor the `destructed`
//! phase (values with several definitions): export memory- or SSA-phase functions.
//! Complexity: linear in the module size.

use super::consts::f32_bits_to_f64_bits;
use super::layout::{LType, Layouts};
use super::lexer::escape;
use super::{CallSite, FnHeader, Item, LlvmContext};
use crate::ir::*;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

mod calls;
mod debug;
mod globals;
mod operands;

use globals::{global_type, print_global, rename_block_addresses};

/// Prints `module` as LLVM 14 text, using `context` for everything the IR dropped.
/// Why a function cannot be exported as LLVM IR faithfully (see [`exportable`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unexportable {
    /// The function's phase has no LLVM form.
    #[error(
        "function @{function} is in phase `{}`, which LLVM IR has no form for (it prints \
         functions in memory form or SSA up to `placed`); print it with --emit sir{machine}",
        phase.name()
    )]
    Phase {
        /// The function.
        function: String,
        /// Its phase.
        phase: Phase,
        /// A hint for machine phases (`, --emit machine or --emit alloc`), else empty.
        machine: &'static str,
    },
    /// A live block has parameters (the block-parameter form).
    #[error(
        "function @{function}: {block} has block parameters, which LLVM IR has no form for; \
         print it with --emit sir"
    )]
    BlockParams {
        /// The function.
        function: String,
        /// The first block with parameters.
        block: Block,
    },
}

/// Checks that [`export`] prints `f` faithfully: a memory- or SSA-phase function (up to
/// `placed`) without block parameters. Export itself prints whatever it is given; callers
/// that must not write invalid IR (the CLI's `--emit ll`) check first.
///
/// # Errors
/// [`Unexportable`] naming the function and its phase, or its first block with parameters.
pub fn exportable(f: &Function) -> Result<(), Unexportable> {
    match f.phase {
        Phase::Memory | Phase::Ssa | Phase::Optimized | Phase::Placed => {}
        phase => {
            let machine = if matches!(phase, Phase::Lowered | Phase::Allocated) {
                ", --emit machine or --emit alloc"
            } else {
                ""
            };
            return Err(Unexportable::Phase {
                function: f.name.clone(),
                phase,
                machine,
            });
        }
    }
    match f
        .blocks
        .iter()
        .position(|b| !b.dead && !b.params.is_empty())
    {
        Some(b) => Err(Unexportable::BlockParams {
            function: f.name.clone(),
            block: Block::new(b),
        }),
        None => Ok(()),
    }
}

/// Prints `module` as LLVM 14 textual IR (see the module doc). Functions must be
/// [`exportable`]; one that is not (block parameters, a `destructed` function) is printed
/// lossily, and `opt` rejects the result.
pub fn export(module: &Module, context: &LlvmContext) -> String {
    let exporter = Exporter::new(module, context);
    let by_name: HashMap<&str, &Function> = module
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f))
        .collect();
    // Functions the context has no header for (modules not imported from .ll) follow the
    // globals printed from the IR.
    let unknown: Vec<&Function> = module
        .functions
        .iter()
        .filter(|f| !context.headers.contains_key(&f.name))
        .collect();
    let mut out = String::new();
    exporter.write_module(
        &mut out,
        &|name| by_name.contains_key(name),
        &mut |out, name| match by_name.get(name) {
            Some(f) => {
                exporter.write_function(out, f);
                true
            }
            None => false,
        },
        &unknown,
    );
    out
}

/// [`export`] in two steps, for a driver that prints each function as soon as the pipeline
/// is done with it (on the thread that ran it) and frees it, instead of holding every
/// function until the whole module is printed: [`Exporter::function`] prints one
/// definition, [`Exporter::write_module`] the module around the definitions printed so.
/// The result is byte-identical to [`export`] of the module holding those functions.
/// `module` needs its symbols, globals and externs; its `functions` are not read.
pub struct Exporter<'a> {
    module: &'a Module,
    context: &'a LlvmContext,
    /// Globals the context does not know (modules not imported from .ll): printed from
    /// their bytes and relocations.
    new_globals: Vec<&'a Global>,
    /// Their types, by name.
    extra: HashMap<String, LType>,
}

impl<'a> Exporter<'a> {
    /// An exporter of `module` with `context`.
    pub fn new(module: &'a Module, context: &'a LlvmContext) -> Self {
        let new_globals: Vec<&Global> = module
            .globals
            .iter()
            .filter(|g| {
                !context
                    .symbol_types
                    .contains_key(sym_name(module, g.symbol))
            })
            .collect();
        let extra: HashMap<String, LType> = new_globals
            .iter()
            .map(|g| {
                (
                    sym_name(module, g.symbol).to_string(),
                    LType::Ptr(Arc::new(global_type(g))),
                )
            })
            .collect();
        Exporter {
            module,
            context,
            new_globals,
            extra,
        }
    }

    /// The definition of `f` as [`export`] prints it in its place.
    pub fn function(&self, f: &Function) -> String {
        let mut out = String::new();
        self.write_function(&mut out, f);
        out
    }

    fn write_function(&self, out: &mut String, f: &Function) {
        print_function(out, self.module, self.context, &self.extra, f);
    }

    /// Writes the module: every top-level item of the context in order, each definition
    /// by `define(out, name)` (which returns false for a function the module does not hold:
    /// its original text is printed); `is_printed(name)` says beforehand which ones it
    /// prints (block labels a `blockaddress` names are renamed only in those). Then the
    /// globals and the `unknown` functions the context has no text for, and declarations of
    /// externs it does not know.
    pub fn write_module(
        &self,
        out: &mut String,
        is_printed: &dyn Fn(&str) -> bool,
        define: &mut dyn FnMut(&mut String, &str) -> bool,
        unknown: &[&Function],
    ) {
        let (module, context) = (self.module, self.context);
        let mut last_was_fn = false;
        let strip = debug::DebugStrip::new(context.items.iter().filter_map(|i| match i {
            Item::Text(t) => Some(t.as_str()),
            Item::Define(..) => None,
        }));
        for item in &context.items {
            match item {
                Item::Text(t) => {
                    if last_was_fn {
                        out.push('\n');
                    }
                    let t = strip.apply_item(t);
                    if t.trim().is_empty() {
                        // A dropped debug metadata definition.
                        continue;
                    }
                    if t.contains("blockaddress") {
                        out.push_str(&rename_block_addresses(&t, context, is_printed));
                    } else {
                        out.push_str(&t);
                    }
                    out.push('\n');
                    last_was_fn = false;
                }
                Item::Define(name, text) => {
                    out.push('\n');
                    if !define(out, name) {
                        out.push_str(&strip.apply(text));
                        out.push('\n');
                    }
                    last_was_fn = true;
                }
            }
        }
        for g in &self.new_globals {
            print_global(out, module, context, &self.extra, g);
        }
        for f in unknown {
            out.push('\n');
            self.write_function(out, f);
        }
        for e in &module.externs {
            let name = sym_name(module, e.symbol);
            if !context.symbol_types.contains_key(name) {
                let sig = &e.signature;
                let _ = write!(out, "\ndeclare {} ", ty(sig.ret));
                let _ = crate::llvm::layout::write_ident(out, '@', name);
                out.push('(');
                out.push_str(&param_list(
                    sig.params.iter().map(|&t| ty(t).to_string()),
                    sig.varargs,
                ));
                out.push_str(")\n");
            }
        }
    }
}

/// LLVM spelling of a strata value type.
fn ty(t: Type) -> std::borrow::Cow<'static, str> {
    std::borrow::Cow::Borrowed(match t {
        Type::Int(n) => return std::borrow::Cow::Owned(format!("i{n}")),
        Type::Agg(_) | Type::Vec(_) => {
            return std::borrow::Cow::Owned(LType::from_scalar(t).to_string())
        }
        Type::Void => "void",
        Type::I1 => "i1",
        Type::I8 => "i8",
        Type::I16 => "i16",
        Type::I32 => "i32",
        Type::I64 => "i64",
        Type::I128 => "i128",
        Type::F32 => "float",
        Type::F64 => "double",
        Type::F80 => "x86_fp80",
        Type::Ptr => "i8*",
    })
}

fn param_list(params: impl Iterator<Item = String>, varargs: bool) -> String {
    let mut v: Vec<String> = params.collect();
    if varargs {
        v.push("...".into());
    }
    v.join(", ")
}

fn ident(sigil: char, name: &str) -> String {
    let mut s = String::new();
    let _ = crate::llvm::layout::write_ident(&mut s, sigil, name);
    s
}

fn ordering(o: Ordering) -> &'static str {
    o.name()
}

struct Printer<'a> {
    /// Set while printing a block-ending asm goto: its fallthrough block.
    callbr_fallthrough: Option<Block>,
    m: &'a Module,
    ctx: &'a LlvmContext,
    extra: &'a HashMap<String, LType>,
    f: &'a Function,
    out: String,
    tmp: u32,
}

/// True if an asm goto can print as `callbr` (at most one result, and no output that
/// needs a store after the asm, since nothing may follow a terminator).
fn callbr_printable(a: &InlineAsm) -> bool {
    let results = a
        .outputs
        .iter()
        .filter(|o| o.place == AsmOutputPlace::Result)
        .count();
    let stored = a.outputs.iter().any(|o| {
        matches!(o.place, AsmOutputPlace::Pointer(_))
            && !InlineAsm::is_memory_constraint(&o.constraint)
    });
    results <= 1 && !stored
}

fn header_matches(h: &FnHeader, sig: &Signature, layouts: &Layouts) -> bool {
    h.params.len() == sig.params.len()
        && h.varargs == sig.varargs
        && layouts.value_type(&h.ret) == Some(sig.ret)
        && h.params
            .iter()
            .zip(&sig.params)
            .all(|(p, &t)| layouts.value_type(&p.ty) == Some(t))
}

fn print_function(
    out: &mut String,
    m: &Module,
    ctx: &LlvmContext,
    extra: &HashMap<String, LType>,
    f: &Function,
) {
    let mut p = Printer {
        callbr_fallthrough: None,
        m,
        ctx,
        extra,
        f,
        out: String::new(),
        tmp: 0,
    };
    p.function();
    out.push_str(&p.out);
}

impl<'a> Printer<'a> {
    fn t(&mut self) -> String {
        self.tmp += 1;
        format!("%t{}", self.tmp)
    }

    fn val(&self, v: Value) -> String {
        format!("%v{}", v.0)
    }

    fn op_type(&self, o: Operand) -> Type {
        self.f.operand_type(o)
    }

    /// The LLVM type of a symbol's address.
    fn symbol_type(&self, s: Symbol) -> LType {
        symbol_type(self.m, self.ctx, self.extra, s)
    }

    fn line(&mut self, s: String) {
        self.out.push_str("  ");
        self.out.push_str(&s);
        self.out.push('\n');
    }

    fn header(&self) -> Option<&'a FnHeader> {
        self.ctx
            .headers
            .get(&self.f.name)
            .filter(|h| header_matches(h, &self.f.signature, &self.ctx.layouts))
    }

    fn function(&mut self) {
        let f = self.f;
        let header = self.header();
        let mut casts = Vec::new();
        let mut params = Vec::new();
        for (i, &v) in f.param_values.iter().enumerate() {
            let t = f.signature.params[i];
            match header {
                Some(h) => {
                    let p = &h.params[i];
                    let attrs = if p.attrs.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", p.attrs)
                    };
                    if t == Type::Ptr && p.ty != LType::i8_ptr() {
                        params.push(format!("{}{attrs} %a{i}", p.ty));
                        casts.push(format!("{} = bitcast {} %a{i} to i8*", self.val(v), p.ty));
                    } else if p.ty.is_aggregate() && p.ty != LType::from_scalar(t) {
                        params.push(format!("{}{attrs} %a{i}", p.ty));
                        let dest = self.val(v);
                        let ir = LType::from_scalar(t);
                        let (lines, _) =
                            self.convert_aggregate(format!("%a{i}"), &p.ty, &ir, Some(&dest));
                        casts.extend(lines);
                    } else {
                        params.push(format!("{}{attrs} {}", p.ty, self.val(v)));
                    }
                }
                None => params.push(format!("{} {}", ty(t), self.val(v))),
            }
        }
        let name = ident('@', &f.name);
        let plist = param_list(params.into_iter(), f.signature.varargs);
        match header {
            Some(h) => {
                let _ = writeln!(self.out, "{}{} {name}({plist}){} {{", h.head, h.ret, h.tail);
            }
            None => {
                let link = if f.linkage == Linkage::Internal {
                    "internal "
                } else {
                    ""
                };
                let _ = writeln!(
                    self.out,
                    "define {link}{} {name}({plist}) {{",
                    ty(f.signature.ret)
                );
            }
        }
        let entry_has_preds = f.blocks.iter().any(|b| {
            let mut hit = false;
            if !b.dead {
                b.terminator.for_each_successor(|s| hit |= s == Block(0));
            }
            hit
        });
        if entry_has_preds {
            self.out.push_str("entry:\n");
            for c in casts.drain(..) {
                self.line(c);
            }
            self.line("br label %b0".into());
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            if b.dead {
                continue;
            }
            let _ = writeln!(self.out, "b{bi}:");
            for c in casts.drain(..) {
                self.line(c);
            }
            // asm goto: the block's last instruction is the asm and the block jumps to the
            // fallthrough; LLVM spells that as one `callbr` terminator.
            let callbr = match (
                b.insts.last().and_then(|i| f.insts.get(i.index())),
                &b.terminator,
            ) {
                (
                    Some(InstData {
                        kind: InstKind::InlineAsm(a),
                        ..
                    }),
                    Terminator::Jump(t),
                ) if !a.goto_labels.is_empty() && callbr_printable(a) => Some(t.block),
                _ => None,
            };
            for (k, &i) in b.insts.iter().enumerate() {
                if let Some(inst) = f.insts.get(i.index()) {
                    if k + 1 == b.insts.len() {
                        self.callbr_fallthrough = callbr;
                    }
                    self.inst(i, inst, bi == 0 && entry_has_preds);
                }
            }
            if callbr.is_none() {
                self.terminator(&b.terminator);
            }
        }
        self.out.push_str("}\n");
    }

    fn res(&self, inst: &InstData) -> String {
        inst.results
            .first()
            .map(|&v| self.val(v))
            .unwrap_or_else(|| "%unused".into())
    }

    fn inst(&mut self, idx: Inst, inst: &'a InstData, entry_phi: bool) {
        let r = self.res(inst);
        match &inst.kind {
            InstKind::Binary {
                op,
                ty: t,
                lhs,
                rhs,
            } => {
                let s = format!("{r} = {op} {} {}, {}", ty(*t), self.op(*lhs), self.op(*rhs));
                self.line(s)
            }
            InstKind::Unary { ty: t, arg, .. } => {
                let s = format!("{r} = fneg {} {}", ty(*t), self.op(*arg));
                self.line(s)
            }
            InstKind::Icmp {
                pred,
                ty: t,
                lhs,
                rhs,
            } => {
                let s = format!(
                    "{r} = icmp {pred} {} {}, {}",
                    ty(*t),
                    self.op(*lhs),
                    self.op(*rhs)
                );
                self.line(s)
            }
            InstKind::Fcmp {
                pred,
                ty: t,
                lhs,
                rhs,
            } => {
                let s = format!(
                    "{r} = fcmp {pred} {} {}, {}",
                    ty(*t),
                    self.op(*lhs),
                    self.op(*rhs)
                );
                self.line(s)
            }
            InstKind::Cast { op, from, to, arg } => {
                let s = format!("{r} = {op} {} {} to {}", ty(*from), self.op(*arg), ty(*to));
                self.line(s)
            }
            InstKind::Select {
                ty: t,
                cond,
                if_true,
                if_false,
            } => {
                let s = format!(
                    "{r} = select {}, {} {}, {} {}",
                    self.typed(*cond),
                    ty(*t),
                    self.op(*if_true),
                    ty(*t),
                    self.op(*if_false)
                );
                self.line(s)
            }
            InstKind::DynAlloca {
                count,
                elem_size,
                align,
                ..
            } => {
                // `alloca i8, i64 (count * elem_size)`: the count widened to i64 first.
                let ct = self.op_type(*count);
                let mut n = self.op(*count);
                if ct != Type::I64 {
                    let t = self.t();
                    let ext = if ct.bits() < 64 { "zext" } else { "trunc" };
                    self.line(format!("{t} = {ext} {} {n} to i64", ty(ct)));
                    n = t;
                }
                let bytes = self.t();
                self.line(format!("{bytes} = mul i64 {n}, {elem_size}"));
                self.line(format!("{r} = alloca i8, i64 {bytes}, align {align}"));
            }
            InstKind::Alloca {
                ty: t, size, align, ..
            } => {
                let slot = if *t != Type::Ptr
                    && *t != Type::Void
                    && t.bytes() == *size
                    && *t != Type::I1
                {
                    ty(*t).to_string()
                } else if *t == Type::Ptr && *size == 8 {
                    "i8*".to_string()
                } else {
                    format!("[{size} x i8]")
                };
                if slot == "i8" {
                    self.line(format!("{r} = alloca i8, align {align}"));
                } else {
                    let tmp = self.t();
                    self.line(format!("{tmp} = alloca {slot}, align {align}"));
                    self.line(format!("{r} = bitcast {slot}* {tmp} to i8*"));
                }
            }
            InstKind::Load {
                ty: t,
                ptr,
                volatile,
            } => {
                let lt = LType::from_scalar(*t);
                let p = self.typed_ptr(*ptr, &LType::Ptr(Arc::new(lt.clone())));
                let v = if *volatile { "volatile " } else { "" };
                self.line(format!("{r} = load {v}{lt}, {lt}* {p}, align 1"));
            }
            InstKind::Store {
                ty: t,
                value,
                ptr,
                volatile,
            } => {
                let lt = LType::from_scalar(*t);
                let p = self.typed_ptr(*ptr, &LType::Ptr(Arc::new(lt.clone())));
                let v = if *volatile { "volatile " } else { "" };
                let s = format!("store {v}{lt} {}, {lt}* {p}, align 1", self.op(*value));
                self.line(s);
            }
            InstKind::Gep {
                base,
                offset,
                indices,
            } => {
                let mut cur = self.op(*base);
                let mut steps: Vec<String> = Vec::new();
                if *offset != 0 || indices.is_empty() {
                    steps.push(format!("i64 {offset}"));
                }
                for (i, scale) in indices {
                    let it = self.op_type(*i);
                    let mut iv = self.op(*i);
                    if it.bits() < 64 {
                        let t = self.t();
                        self.line(format!("{t} = sext {} {iv} to i64", ty(it)));
                        iv = t;
                    } else if it.bits() > 64 {
                        let t = self.t();
                        self.line(format!("{t} = trunc {} {iv} to i64", ty(it)));
                        iv = t;
                    }
                    if *scale != 1 {
                        let t = self.t();
                        self.line(format!("{t} = mul i64 {iv}, {scale}"));
                        iv = t;
                    }
                    steps.push(format!("i64 {iv}"));
                }
                let n = steps.len();
                for (k, s) in steps.into_iter().enumerate() {
                    let dst = if k + 1 == n { r.clone() } else { self.t() };
                    self.line(format!("{dst} = getelementptr i8, i8* {cur}, {s}"));
                    cur = dst;
                }
            }
            InstKind::Call {
                ret,
                callee,
                args,
                fixed_args,
            } => self.call(idx, &r, *ret, callee, args, *fixed_args),
            InstKind::ExtractValue { ty: t, agg, index } => {
                let s = format!("{r} = extractvalue {} {}, {index}", ty(*t), self.op(*agg));
                self.line(s)
            }
            InstKind::ExtractElement { ty: t, vec, index } => {
                let s = format!(
                    "{r} = extractelement {} {}, {}",
                    ty(*t),
                    self.op(*vec),
                    self.typed(*index)
                );
                self.line(s)
            }
            InstKind::InsertElement {
                ty: t,
                vec,
                value,
                index,
            } => {
                let s = format!(
                    "{r} = insertelement {} {}, {}, {}",
                    ty(*t),
                    self.op(*vec),
                    self.typed(*value),
                    self.typed(*index)
                );
                self.line(s)
            }
            InstKind::ShuffleVector {
                ty: t, a, b, mask, ..
            } => {
                let s = format!(
                    "{r} = shufflevector {} {}, {} {}, {}",
                    ty(*t),
                    self.op(*a),
                    ty(*t),
                    self.op(*b),
                    self.typed(Operand::Const(*mask))
                );
                self.line(s)
            }
            InstKind::InsertValue {
                ty: t,
                agg,
                value,
                index,
            } => {
                let s = format!(
                    "{r} = insertvalue {} {}, {}, {index}",
                    ty(*t),
                    self.op(*agg),
                    self.typed(*value)
                );
                self.line(s)
            }
            InstKind::InlineAsm(asm) => self.asm(inst, asm),
            InstKind::AtomicRmw {
                op,
                ty: t,
                ptr,
                value,
                ordering: o,
                volatile,
            } => {
                let vol = if *volatile { "volatile " } else { "" };
                if *t == Type::Ptr {
                    // LLVM 14's atomicrmw takes integers and floats only: go through i64.
                    let p = self.typed_ptr(*ptr, &LType::Ptr(Arc::new(LType::Int(64))));
                    let (v, old) = (self.t(), self.t());
                    let s = format!("{v} = ptrtoint i8* {} to i64", self.op(*value));
                    self.line(s);
                    let s = format!(
                        "{old} = atomicrmw {vol}{op} i64* {p}, i64 {v} {}, align 8",
                        ordering(*o)
                    );
                    self.line(s);
                    self.line(format!("{r} = inttoptr i64 {old} to i8*"));
                    return;
                }
                let lt = LType::from_scalar(*t);
                let p = self.typed_ptr(*ptr, &LType::Ptr(Arc::new(lt.clone())));
                let s = format!(
                    "{r} = atomicrmw {vol}{op} {lt}* {p}, {lt} {} {}, align {}",
                    self.op(*value),
                    ordering(*o),
                    t.bytes().max(1)
                );
                self.line(s);
            }
            InstKind::CmpXchg {
                ty: t,
                ptr,
                expected,
                new,
                success,
                failure,
                weak,
                volatile,
            } => {
                let lt = LType::from_scalar(*t);
                let p = self.typed_ptr(*ptr, &LType::Ptr(Arc::new(lt.clone())));
                let tmp = self.t();
                let flags = match (*weak, *volatile) {
                    (false, false) => "",
                    (true, false) => "weak ",
                    (false, true) => "volatile ",
                    (true, true) => "weak volatile ",
                };
                let s = format!(
                    "{tmp} = cmpxchg {flags}{lt}* {p}, {lt} {}, {lt} {} {} {}, align {}",
                    self.op(*expected),
                    self.op(*new),
                    ordering(*success),
                    ordering(*failure),
                    t.bytes().max(1)
                );
                self.line(s);
                for (k, &v) in inst.results.iter().enumerate() {
                    let s = format!("{} = extractvalue {{ {lt}, i1 }} {tmp}, {k}", self.val(v));
                    self.line(s);
                }
            }
            InstKind::Fence { ordering: o } => self.line(format!("fence {}", ordering(*o))),
            InstKind::Phi { ty: t, incoming } => {
                let mut parts: Vec<String> = incoming
                    .iter()
                    .map(|(b, v)| format!("[ {}, %b{} ]", self.op(*v), b.0))
                    .collect();
                if entry_phi {
                    parts.push("[ undef, %entry ]".into());
                }
                let s = if parts.is_empty() {
                    // A block no edge enters (unreachable): its phis have no entries, which
                    // LLVM's syntax cannot write; every phi of the block is one, so none
                    // follows this line.
                    let t = ty(*t);
                    format!("{r} = select i1 true, {t} undef, {t} undef")
                } else {
                    format!("{r} = phi {} {}", ty(*t), parts.join(", "))
                };
                self.line(s);
            }
            InstKind::Copy { ty: t, src } => {
                let (t, src) = (ty(*t), self.op(*src));
                // `bitcast` takes no aggregate; `select` takes every first-class type.
                let s = if t.starts_with('{') || t.starts_with('[') {
                    format!("{r} = select i1 true, {t} {src}, {t} {src}")
                } else {
                    format!("{r} = bitcast {t} {src} to {t}")
                };
                self.line(s);
            }
            InstKind::Opaque(o) => self.opaque(&r, o),
        }
    }

    fn terminator(&mut self, t: &Terminator) {
        let s = match t {
            Terminator::Jump(d) => format!("br label %b{}", d.block.0),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => format!(
                "br i1 {}, label %b{}, label %b{}",
                self.op(*cond),
                then_dest.block.0,
                else_dest.block.0
            ),
            Terminator::Switch {
                ty: st,
                value,
                default,
                cases,
            } => {
                let mut s = format!(
                    "switch {} {}, label %b{} [",
                    ty(*st),
                    self.op(*value),
                    default.block.0
                );
                for (v, d) in cases {
                    let c = self.konst(ConstData::int(*st, *v));
                    let _ = write!(s, "\n    {} {c}, label %b{}", ty(*st), d.block.0);
                }
                s.push_str("\n  ]");
                s
            }
            Terminator::IndirectBr { addr, dests } => {
                let ds: Vec<String> = dests.iter().map(|d| format!("label %b{}", d.0)).collect();
                format!("indirectbr i8* {}, [{}]", self.op(*addr), ds.join(", "))
            }
            Terminator::Ret(None) => "ret void".into(),
            Terminator::Ret(Some(v)) => {
                let rt = self
                    .header()
                    .map(|h| h.ret.clone())
                    .unwrap_or_else(|| LType::from_scalar(self.f.signature.ret));
                if rt.is_ptr() {
                    let p = self.typed_ptr(*v, &rt);
                    format!("ret {rt} {p}")
                } else if rt.is_aggregate() {
                    let ir = LType::from_scalar(self.op_type(*v));
                    let (lines, out) = self.convert_aggregate(self.op(*v), &ir, &rt, None);
                    for l in lines {
                        self.line(l);
                    }
                    format!("ret {rt} {out}")
                } else {
                    format!("ret {rt} {}", self.op(*v))
                }
            }
            Terminator::Unreachable => "unreachable".into(),
        };
        self.line(s);
    }
}

/// The LLVM type of a symbol's address: from the context, from `extra` (globals export
/// defines), or derived from the signature (`i8*` for anything else).
fn symbol_type(m: &Module, ctx: &LlvmContext, extra: &HashMap<String, LType>, s: Symbol) -> LType {
    let name = sym_name(m, s);
    if let Some(t) = ctx.symbol_types.get(name).or_else(|| extra.get(name)) {
        return t.clone();
    }
    match m.signature(s) {
        Some(sig) => LType::Ptr(Arc::new(LType::Func {
            ret: Arc::new(LType::from_scalar(sig.ret)),
            params: sig.params.iter().map(|&t| LType::from_scalar(t)).collect(),
            varargs: sig.varargs,
        })),
        None => LType::i8_ptr(),
    }
}

/// A symbol's name, or `?symN` for a handle out of range (export never panics).
fn sym_name(m: &Module, s: Symbol) -> &str {
    m.symbols.get(s.index()).map_or("?sym", |d| d.name.as_str())
}

fn parse_type(s: &str) -> Option<LType> {
    let l = super::lexer::lex(s);
    super::parse::Cursor::new(s, &l.toks, &l.lines)
        .parse_type()
        .ok()
}

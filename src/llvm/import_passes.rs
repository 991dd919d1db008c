//! The passes of [`import`](super::import) (numbered as in the parent module's doc), each one
//! function: named types (2), symbols (3), global initialisers (3, once every symbol is
//! known), the functions whose labels a non-function item takes (`blockaddress`), the
//! bodies in parallel (4) and the module assembled from them in definition order.
//!
//! Invariants: symbols are numbered in order of appearance; the first fatal error is the
//! one a serial import would meet first (bodies are lowered in parallel but their results
//! are taken in definition order); a skipped function becomes an external declaration and
//! keeps its original text.
//!
//! Complexity: linear in the input (plus one hash lookup per name).

use super::*;
use crate::ir::{Block, Relocation, RelocationKind};
use std::collections::HashSet;

/// The lexed file and its top-level items, read by every pass.
struct Source<'s> {
    src: &'s str,
    file: &'s str,
    split: &'s items::Items,
}

impl<'s> Source<'s> {
    fn toks(&self) -> &'s [Token] {
        &self.split.lexed.toks
    }

    fn lines(&self) -> &'s [u32] {
        &self.split.lexed.lines
    }

    /// A cursor over the tokens `a..b`.
    fn cursor(&self, a: usize, b: usize) -> Cursor<'s> {
        Cursor::new(self.src, &self.toks()[a..b], self.lines())
    }

    /// The source text of token `t`.
    fn word(&self, t: Token) -> &'s str {
        self.src.get(t.start as usize..t.end as usize).unwrap_or("")
    }

    /// The whole text of item `k`, including tokens pass 1 did not keep.
    fn item_text(&self, k: usize) -> String {
        let s = self.toks()[self.split.ranges[k].0].start as usize;
        let e = self.split.ends[k] as usize;
        self.src.get(s..e).unwrap_or("").to_string()
    }

    /// True if the item at tokens `a..b` is `%T = type ...`.
    fn is_type_definition(&self, a: usize, b: usize) -> bool {
        let toks = self.toks();
        toks[a].kind == Tok::LocalVar
            && b - a >= 3
            && toks[a + 1].kind == Tok::Eq
            && self.word(toks[a + 2]) == "type"
    }

    fn fatal(&self, e: PErr) -> ImportError {
        fatal(self.file, e)
    }
}

/// A symbol's definition as pass 3 reads it.
enum SymDef {
    Define {
        header: FnHeader,
        names: Vec<Option<String>>,
        body: items::Body,
    },
    Declare(FnHeader),
    Global(Global),
}

/// Pass 3's result: every symbol in order of appearance.
struct SymbolList {
    names: Vec<String>,
    defs: Vec<SymDef>,
    symbols: hash::FastMap<String, Symbol>,
    /// Per definition (by symbol index): its item in `ctx.items` and in the item list,
    /// whose text is filled in once its body is lowered (see
    /// [`ImportOptions::drop_function_text`]).
    define_items: Vec<Option<(usize, usize)>>,
    /// The `blockaddress` pointers of global initialisers, resolved once the functions are
    /// lowered (see [`resolve_block_addresses`]).
    block_addresses: Vec<PendingBlockAddress>,
}

/// A `blockaddress(@function, %label)` at `offset` of global `global`'s initialiser
/// (written at `line`).
struct PendingBlockAddress {
    global: Symbol,
    offset: u64,
    function: String,
    label: String,
    line: u32,
}

/// Imports LLVM 14 text (see the parent module's doc). `file` names the source in errors.
pub fn import(src: &str, file: &str, options: &ImportOptions) -> Result<Imported, ImportError> {
    let split = items::split(src);
    let source = Source {
        src,
        file,
        split: &split,
    };
    let whole = Cursor::new(src, source.toks(), source.lines());
    let defined = validate::collect_defined(&whole, &split.ranges).map_err(|e| source.fatal(e))?;
    validate::check_module_flags(&whole, &split.ranges).map_err(|e| source.fatal(e))?;
    let mut ctx = LlvmContext {
        file: file.to_string(),
        ..LlvmContext::default()
    };
    let layouts = named_types(&source)?;
    let mut list = collect_symbols(&source, &defined, &layouts, &mut ctx)?;
    evaluate_initializers(&source, &layouts, &defined, options, &mut list, &mut ctx)?;
    let signatures = list
        .defs
        .iter()
        .map(|d| match d {
            SymDef::Define { header, .. } | SymDef::Declare(header) => {
                signature_of(header, &layouts).ok()
            }
            SymDef::Global(_) => None,
        })
        .collect();
    let label_fns = blockaddress_functions(&source);
    let symbol_types = list
        .names
        .iter()
        .map(|n| ctx.symbol_types.get(n).cloned().unwrap_or(LType::Void))
        .collect();
    let info = ModuleInfo {
        layouts,
        symbols: std::mem::take(&mut list.symbols),
        signatures,
        symbol_types,
        defined,
    };
    let lowered = lower_bodies(&source, &info, &label_fns, &list);
    assemble(&source, options, info, &label_fns, list, lowered, ctx)
}

/// Pass 2: reads every named type definition (`%T = type ...`) and computes the layouts.
fn named_types(source: &Source<'_>) -> Result<Layouts, ImportError> {
    let mut layouts = Layouts::default();
    for &(a, b) in &source.split.ranges {
        if source.is_type_definition(a, b) {
            let mut c = source.cursor(a, b);
            let name = c.name(source.toks()[a]).into_owned();
            c.pos = 3;
            let body = if c.eat_word("opaque") {
                None
            } else {
                Some(c.parse_type().map_err(|e| source.fatal(e))?)
            };
            layouts.define(&name, body);
        }
    }
    layouts.compute_all();
    Ok(layouts)
}

/// Pass 3: gives every `define`, `declare` and global a symbol in order of appearance,
/// records each item of the module in `ctx.items`, and checks the other items.
fn collect_symbols(
    source: &Source<'_>,
    defined: &validate::Defined,
    layouts: &Layouts,
    ctx: &mut LlvmContext,
) -> Result<SymbolList, ImportError> {
    let mut list = SymbolList {
        names: Vec::new(),
        defs: Vec::new(),
        symbols: Default::default(),
        define_items: Vec::new(),
        block_addresses: Vec::new(),
    };
    // LLVM reads `source_filename` and `target` only before every other entity.
    let mut past_header = false;
    for (k, &(a, b)) in source.split.ranges.iter().enumerate() {
        let t = source.toks()[a];
        let word = source.word(t);
        let mut c = source.cursor(a, b);
        let header_item = t.kind == Tok::Ident && matches!(word, "source_filename" | "target");
        if header_item && past_header {
            let msg = format!("`{word}` must come before every other top-level entity");
            return Err(source.fatal(c.perr(t, msg)));
        }
        past_header |= !header_item;
        let (name, def, name_tok) = match (t.kind, word) {
            (Tok::Ident, "define") | (Tok::Ident, "declare") => {
                function_item(source, k, &mut c, defined, layouts, ctx)?
            }
            (Tok::GlobalVar, _) => {
                ctx.items.push(Item::Text(source.item_text(k)));
                let name = c.name(t).into_owned();
                let (g, ty) =
                    parse_global(&mut c, layouts, defined).map_err(|e| source.fatal(e))?;
                ctx.symbol_types
                    .insert(name.clone(), LType::Ptr(Arc::new(ty)));
                (name, SymDef::Global(g), t)
            }
            _ => {
                other_item(source, a, b, &c, defined)?;
                ctx.items.push(Item::Text(source.item_text(k)));
                continue;
            }
        };
        if list.symbols.contains_key(&name) {
            let msg = format!("redefinition of @{name}");
            return Err(source.fatal(c.perr(name_tok, msg)));
        }
        list.symbols
            .insert(name.clone(), Symbol::new(list.names.len()));
        list.names.push(name);
        let is_define = matches!(def, SymDef::Define { .. });
        list.define_items
            .push(is_define.then_some((ctx.items.len() - 1, k)));
        list.defs.push(def);
    }
    Ok(list)
}

/// Reads the header of the `define` or `declare` item `k` (the cursor `c` at its first
/// token) and records its type and item. Returns its name, definition and name token.
fn function_item(
    source: &Source<'_>,
    k: usize,
    c: &mut Cursor<'_>,
    defined: &validate::Defined,
    layouts: &Layouts,
    ctx: &mut LlvmContext,
) -> Result<(String, SymDef, Token), ImportError> {
    let (a, b) = source.split.ranges[k];
    let t = source.toks()[a];
    let is_define = source.word(t) == "define";
    let mut parsed = parse_header(c, defined);
    // A body that pass 1 did not keep starts after the last kept token, the `{` after the
    // parameter list. If the header does not end there (or is not valid), lex the whole
    // item and read the header again from its tokens.
    let mut owned = None;
    if source.split.bodies[k].is_some() && !(parsed.is_ok() && c.pos + 1 == b - a) {
        let mut v = Vec::new();
        let end = source.split.ends[k] as usize;
        lexer::lex_range(source.src, t.start as usize, end, false, &mut v);
        v.pop();
        let mut full = Cursor::new(source.src, &v, source.lines());
        parsed = parse_header(&mut full, defined);
        let pos = full.pos;
        let at_brace = full.peek().kind == Tok::LBrace;
        let expected = full.expected::<()>("`{` starting the function body");
        owned = Some((v, pos, at_brace, expected));
    }
    let (header, name, name_tok, pnames) = parsed.map_err(|e| source.fatal(e))?;
    if let Some(n) = layouts.undefined_name(&header.fn_type()) {
        let msg = format!("use of undefined type %{n}");
        return Err(source.fatal(c.perr(name_tok, msg)));
    }
    ctx.symbol_types
        .insert(name.clone(), LType::Ptr(Arc::new(header.fn_type())));
    ctx.headers.insert(name.clone(), header.clone());
    if !is_define {
        ctx.items.push(Item::Text(source.item_text(k)));
        return Ok((name, SymDef::Declare(header), name_tok));
    }
    let body = match (owned, source.split.bodies[k]) {
        (Some((mut v, pos, at_brace, expected)), _) => {
            if !at_brace {
                return Err(source.fatal(expected.unwrap_err()));
            }
            items::Body::Owned(v.split_off(pos + 1))
        }
        (None, Some((from, to))) => items::Body::Lazy(from, to),
        (None, None) => {
            if c.peek().kind != Tok::LBrace {
                let e = c.expected::<()>("`{` starting the function body");
                return Err(source.fatal(e.unwrap_err()));
            }
            items::Body::Kept(a + c.pos + 1, b)
        }
    };
    ctx.items.push(Item::Define(name.clone(), String::new()));
    let def = SymDef::Define {
        header,
        names: pnames,
        body,
    };
    Ok((name, def, name_tok))
}

/// Checks an item that defines no symbol (`source_filename`, `target`, `attributes`,
/// `module asm`, use-list orders, metadata, comdats, named types): anything else is a
/// located error.
fn other_item(
    source: &Source<'_>,
    a: usize,
    b: usize,
    c: &Cursor<'_>,
    defined: &validate::Defined,
) -> Result<(), ImportError> {
    let t = source.toks()[a];
    let word = source.word(t);
    let known = match t.kind {
        Tok::Ident => matches!(
            word,
            "source_filename"
                | "target"
                | "attributes"
                | "module"
                | "uselistorder"
                | "uselistorder_bb"
        ),
        Tok::MetaVar | Tok::ComdatVar | Tok::Exclaim => true,
        // `%T = type ...` (read in pass 2).
        Tok::LocalVar => source.is_type_definition(a, b),
        _ => false,
    };
    if !known {
        let found = if word.is_empty() {
            "an unexpected character".to_string()
        } else {
            format!("`{word}`")
        };
        let msg = format!("expected a top-level entity (define, declare, a global, a type, attributes or metadata), found {found}");
        return Err(source.fatal(c.perr(t, msg)));
    }
    validate::check_item(c, &source.toks()[a..b], defined).map_err(|e| source.fatal(e))
}

/// Evaluates every global's initialiser, which may name any symbol. An initialiser using a
/// construct we do not evaluate is a warning (fatal with [`ImportOptions::strict`]).
fn evaluate_initializers(
    source: &Source<'_>,
    layouts: &Layouts,
    defined: &validate::Defined,
    options: &ImportOptions,
    list: &mut SymbolList,
    ctx: &mut LlvmContext,
) -> Result<(), ImportError> {
    for &(a, b) in &source.split.ranges {
        if source.toks()[a].kind != Tok::GlobalVar {
            continue;
        }
        let mut c = source.cursor(a, b);
        let name = c.name(source.toks()[a]).into_owned();
        let Some(&sym) = list.symbols.get(&name) else {
            continue;
        };
        let SymDef::Global(g) = &mut list.defs[sym.index()] else {
            continue;
        };
        match global_init(&mut c, layouts, &list.symbols, defined, g) {
            Ok(block_addresses) => {
                list.block_addresses.extend(block_addresses.into_iter().map(
                    |(offset, function, label, line)| PendingBlockAddress {
                        global: sym,
                        offset,
                        function,
                        label,
                        line,
                    },
                ));
            }
            Err(e) => {
                if options.strict || !e.unsupported {
                    return Err(source.fatal(e));
                }
                not_evaluated(g);
                ctx.unevaluated.push(name.to_string());
                ctx.warnings.push(format!(
                    "{}:{}: initializer of @{name} not evaluated: {}",
                    source.file, e.line, e.msg
                ));
            }
        }
    }
    Ok(())
}

/// Marks a global whose initialiser was not evaluated: its contents are unknown, so it is
/// not read-only for the passes (SCCP must not fold its loads to zero) and has no image.
fn not_evaluated(g: &mut Global) {
    g.constant = false;
    g.init = Some(Vec::new());
    g.relocations.clear();
}

/// Turns the `blockaddress` pointers of global initialisers into
/// [`RelocationKind::BlockAddress`] relocations, now that the functions are lowered and
/// their labels' block numbers known (`ctx.block_labels`). A pointer to a block of a
/// function that was skipped (or of one that is only declared) cannot be resolved: the
/// global's initialiser is then not evaluated, a warning (an error with `strict`).
fn resolve_block_addresses(
    source: &Source<'_>,
    options: &ImportOptions,
    pending: Vec<PendingBlockAddress>,
    symbols: &hash::FastMap<String, Symbol>,
    module: &mut Module,
    ctx: &mut LlvmContext,
) -> Result<(), ImportError> {
    let mut touched = Vec::new();
    // A global's entries are consecutive: once one fails, its initialiser is not evaluated
    // and its later entries are skipped (one warning, no relocations pushed after clearing).
    let mut failed = None;
    for p in pending {
        if failed == Some(p.global) {
            continue;
        }
        let function = symbols
            .get(p.function.as_str())
            .filter(|f| matches!(module.symbols[f.index()].kind, SymbolKind::Function(_)));
        let block = ctx
            .block_labels
            .get(&p.function)
            .and_then(|labels| labels.get(&p.label));
        let SymbolKind::Global(gi) = module.symbols[p.global.index()].kind else {
            continue;
        };
        let g = &mut module.globals[gi as usize];
        match (function, block) {
            (Some(&f), Some(&b)) => {
                g.relocations.push(Relocation {
                    offset: p.offset,
                    symbol: f,
                    addend: 0,
                    kind: RelocationKind::BlockAddress(Block(b)),
                });
                touched.push(gi as usize);
            }
            _ => {
                let name = &module.symbols[p.global.index()].name;
                let msg = format!(
                    "blockaddress(@{}, %{}) names a block of a function that was not imported",
                    p.function, p.label
                );
                if options.strict {
                    return Err(source.fatal(PErr {
                        unsupported: true,
                        ..PErr::new(p.line, 1, msg)
                    }));
                }
                not_evaluated(g);
                ctx.unevaluated.push(name.to_string());
                failed = Some(p.global);
                ctx.warnings.push(format!(
                    "{}:{}: initializer of @{name} not evaluated: {msg}",
                    source.file, p.line
                ));
            }
        }
    }
    // Only the globals that gained a block address need their relocations put back in
    // offset order (the others were written in order).
    touched.sort_unstable();
    touched.dedup();
    for gi in touched {
        module.globals[gi].relocations.sort_by_key(|r| r.offset);
    }
    Ok(())
}

/// The functions whose blocks a non-function item takes the address of (`blockaddress`):
/// their original labels are kept for export.
fn blockaddress_functions(source: &Source<'_>) -> HashSet<String> {
    let mut label_fns = HashSet::new();
    let toks = source.toks();
    for &(a, b) in &source.split.ranges {
        if source.word(toks[a]) == "define" {
            continue;
        }
        let c = source.cursor(a, b);
        for (k, t) in toks[a..b].iter().enumerate() {
            if t.kind == Tok::Ident && c.text(*t) == "blockaddress" {
                if let Some(f) = toks[a..b].get(k + 2).filter(|f| f.kind == Tok::GlobalVar) {
                    label_fns.insert(c.name(*f).into_owned());
                }
            }
        }
    }
    label_fns
}

/// Pass 4: lowers every body on its own (it reads only the module-level `info`), in
/// parallel. A body pass 1 did not keep is lexed into a buffer each worker reuses. The
/// result is indexed by symbol (`None` for globals and declarations).
fn lower_bodies(
    source: &Source<'_>,
    info: &ModuleInfo,
    label_fns: &HashSet<String>,
    list: &SymbolList,
) -> Vec<Option<PResult<function::Lowered>>> {
    use rayon::prelude::*;
    list.defs
        .par_iter()
        .enumerate()
        .map_init(Scratch::default, |scratch, (i, def)| match def {
            SymDef::Define {
                header,
                names: pnames,
                body,
            } => Some(lower_define(
                source,
                info,
                label_fns,
                &list.names[i],
                header,
                pnames,
                body,
                scratch,
            )),
            _ => None,
        })
        .collect()
}

/// Builds the module from the symbols and lowered bodies in definition order, so symbols,
/// skips and the first fatal error are exactly as in a serial import.
fn assemble(
    source: &Source<'_>,
    options: &ImportOptions,
    info: ModuleInfo,
    label_fns: &HashSet<String>,
    list: SymbolList,
    mut lowered: Vec<Option<PResult<function::Lowered>>>,
    mut ctx: LlvmContext,
) -> Result<Imported, ImportError> {
    let mut module = Module::default();
    let mut skipped = Vec::new();
    let SymbolList {
        names,
        defs,
        define_items,
        block_addresses,
        ..
    } = list;
    for (i, (def, name)) in defs.into_iter().zip(names).enumerate() {
        let sym = Symbol::new(i);
        let kind = match def {
            SymDef::Global(mut g) => {
                g.symbol = sym;
                module.globals.push(g);
                SymbolKind::Global(module.globals.len() as u32 - 1)
            }
            SymDef::Declare(h) => {
                module.externs.push(ExternDecl {
                    symbol: sym,
                    signature: loose_signature(&h, &info.layouts),
                });
                SymbolKind::Extern(module.externs.len() as u32 - 1)
            }
            SymDef::Define {
                header,
                names: pnames,
                body,
            } => {
                let r = lowered[i].take().unwrap_or_else(|| {
                    let scratch = &mut Scratch::default();
                    lower_define(
                        source, &info, label_fns, &name, &header, &pnames, &body, scratch,
                    )
                });
                if let (Some((at, k)), false) =
                    (define_items[i], r.is_ok() && options.drop_function_text)
                {
                    ctx.items[at] = Item::Define(name.clone(), source.item_text(k));
                }
                match r {
                    Ok(function::Lowered {
                        function: mut f,
                        calls,
                        labels,
                    }) => {
                        f.linkage = linkage_of(&header.head);
                        if !calls.is_empty() {
                            ctx.call_sites.insert(name.clone(), calls);
                        }
                        if !labels.is_empty() {
                            ctx.block_labels
                                .insert(name.clone(), labels.into_iter().collect());
                        }
                        module.functions.push(f);
                        SymbolKind::Function(module.functions.len() as u32 - 1)
                    }
                    Err(e) => {
                        if options.strict || !e.unsupported {
                            return Err(source.fatal(e));
                        }
                        skipped.push(SkippedFunction {
                            name: name.clone(),
                            line: e.line,
                            reason: e.msg,
                        });
                        module.externs.push(ExternDecl {
                            symbol: sym,
                            signature: loose_signature(&header, &info.layouts),
                        });
                        SymbolKind::Extern(module.externs.len() as u32 - 1)
                    }
                }
            }
        };
        module.symbols.push(SymbolData { name, kind });
    }
    resolve_block_addresses(
        source,
        options,
        block_addresses,
        &info.symbols,
        &mut module,
        &mut ctx,
    )?;
    ctx.layouts = info.layouts;
    Ok(Imported {
        module,
        context: ctx,
        skipped,
    })
}

/// What a thread lowering bodies keeps from one body to the next: the buffer a body is
/// lexed into and the types parsed so far.
#[derive(Default)]
struct Scratch {
    tokens: Vec<Token>,
    types: parse::TypeCache,
}

/// Lowers the body of the function defined by item `item` (pass 4 of [`import`]): with its
/// signature, or, when the signature is not modelled, with the unmodelled parameters marked
/// so that the body is still checked for malformed input (the result is then the
/// signature's `unsupported` error).
#[allow(clippy::too_many_arguments)]
fn lower_define(
    source: &Source<'_>,
    info: &ModuleInfo,
    label_fns: &HashSet<String>,
    name: &str,
    header: &FnHeader,
    pnames: &[Option<String>],
    body: &items::Body,
    scratch: &mut Scratch,
) -> PResult<function::Lowered> {
    let Scratch { tokens, types } = scratch;
    let src = source.src;
    let body = body.tokens(src, source.toks(), tokens);
    let lines = source.lines();
    let keep = label_fns.contains(name);
    match signature_of(header, &info.layouts) {
        Ok(sig) => {
            let shape = function::Shape {
                param_names: pnames,
                keep_labels: keep,
                unmodelled: &[],
            };
            function::lower(src, body, lines, info, name, sig, &shape, types)
        }
        Err(e) if e.unsupported => {
            let loose = loose_signature(header, &info.layouts);
            // One flag per parameter, then one for the return type.
            let mut unmodelled: Vec<bool> = loose.params.iter().map(|t| *t == Type::Void).collect();
            unmodelled.push(header.ret != LType::Void && loose.ret == Type::Void);
            let sig = Signature {
                params: loose
                    .params
                    .iter()
                    .map(|t| if *t == Type::Void { Type::I8 } else { *t })
                    .collect(),
                ..loose
            };
            let shape = function::Shape {
                param_names: pnames,
                keep_labels: keep,
                unmodelled: &unmodelled,
            };
            function::lower(src, body, lines, info, name, sig, &shape, types).and(Err(e))
        }
        Err(e) => Err(e),
    }
}

fn linkage_of(head: &str) -> Linkage {
    if head
        .split_whitespace()
        .any(|w| w == "internal" || w == "private")
    {
        Linkage::Internal
    } else {
        Linkage::External
    }
}

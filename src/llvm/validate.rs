//! Checks of the source text that export copies verbatim: keywords in function headers,
//! parameter and call attributes, global definitions and attribute groups; the top-level
//! items import does not otherwise read (`source_filename`, `target`, `module asm`,
//! comdats, attribute groups, metadata); references to attribute groups (`#N`) and metadata
//! nodes (`!N`), and the shape of `!llvm.module.flags`.
//!
//! Export re-emits these texts unchanged, so anything malformed in them would pass import and
//! make the output invalid; this module rejects such input with its `line:col` instead
//! (issue 10, item 6). The checks follow LLVM 14's parser and verifier: a bare word in an
//! attribute or linkage position must be one of LLVM 14's keywords ([`KEYWORDS`]), `align N`
//! must be a power of two, metadata nodes must be defined, and each module flag is
//! `!{i32 behaviour, !"key", value}` with a behaviour from 1 (Error) to 7 (Max) and a key
//! used once. Contents of debug-info nodes (`!DILocation(...)`) are only checked for
//! balanced brackets (clang emits none with `-g0`).
//!
//! Complexity: linear in the tokens checked (one hash lookup per word and per reference).

use super::lexer::{Tok, Token};
use super::parse::{Cursor, PResult};
use std::collections::{HashMap, HashSet};

/// Bare words LLVM 14 accepts in linkage, visibility, calling-convention, attribute,
/// fast-math and global-definition positions (sorted; [`is_keyword`] looks them up in a
/// hash set built once).
pub const KEYWORDS: &[&str] = &[
    "aarch64_sve_vector_pcs",
    "aarch64_vector_pcs",
    "addrspace",
    "afn",
    "align",
    "alignstack",
    "allocsize",
    "alwaysinline",
    "amdgpu_cs",
    "amdgpu_es",
    "amdgpu_gfx",
    "amdgpu_gs",
    "amdgpu_hs",
    "amdgpu_kernel",
    "amdgpu_ls",
    "amdgpu_ps",
    "amdgpu_vs",
    "any",
    "anyregcc",
    "appending",
    "arcp",
    "argmemonly",
    "arm_aapcs_vfpcc",
    "arm_aapcscc",
    "arm_apcscc",
    "available_externally",
    "avr_intrcc",
    "avr_signalcc",
    "builtin",
    "byref",
    "byval",
    "cc",
    "ccc",
    "cfguard_checkcc",
    "cold",
    "coldcc",
    "comdat",
    "common",
    "constant",
    "contract",
    "convergent",
    "cxx_fast_tlscc",
    "default",
    "dereferenceable",
    "dereferenceable_or_null",
    "disable_sanitizer_instrumentation",
    "dllexport",
    "dllimport",
    "dso_local",
    "dso_preemptable",
    "elementtype",
    "exactmatch",
    "extern_weak",
    "external",
    "externally_initialized",
    "fast",
    "fastcc",
    "gc",
    "generaldynamic",
    "ghccc",
    "global",
    "hhvm_ccc",
    "hhvmcc",
    "hidden",
    "hot",
    "immarg",
    "inaccessiblemem_or_argmemonly",
    "inaccessiblememonly",
    "inalloca",
    "initialexec",
    "inlinehint",
    "inreg",
    "intel_ocl_bicc",
    "internal",
    "jumptable",
    "largest",
    "linkonce",
    "linkonce_odr",
    "local_unnamed_addr",
    "localdynamic",
    "localexec",
    "minsize",
    "msp430_intrcc",
    "mustprogress",
    "musttail",
    "naked",
    "nest",
    "ninf",
    "nnan",
    "noalias",
    "nobuiltin",
    "nocallback",
    "nocapture",
    "nocf_check",
    "nodeduplicate",
    "noduplicate",
    "nofree",
    "noimplicitfloat",
    "noinline",
    "nomerge",
    "nonlazybind",
    "nonnull",
    "noprofile",
    "norecurse",
    "noredzone",
    "noreturn",
    "nosanitize_coverage",
    "nosync",
    "notail",
    "noundef",
    "nounwind",
    "nsz",
    "null_pointer_is_valid",
    "optforfuzzing",
    "optnone",
    "optsize",
    "partition",
    "personality",
    "preallocated",
    "prefix",
    "preserve_allcc",
    "preserve_mostcc",
    "private",
    "prologue",
    "protected",
    "ptx_device",
    "ptx_kernel",
    "readnone",
    "readonly",
    "reassoc",
    "returned",
    "returns_twice",
    "safestack",
    "samesize",
    "sanitize_address",
    "sanitize_hwaddress",
    "sanitize_memory",
    "sanitize_memtag",
    "sanitize_thread",
    "section",
    "shadowcallstack",
    "signext",
    "speculatable",
    "speculative_load_hardening",
    "spir_func",
    "spir_kernel",
    "sret",
    "ssp",
    "sspreq",
    "sspstrong",
    "strictfp",
    "swiftasync",
    "swiftcc",
    "swifterror",
    "swiftself",
    "swifttailcc",
    "tail",
    "tailcc",
    "thread_local",
    "unnamed_addr",
    "uwtable",
    "vscale_range",
    "weak",
    "weak_odr",
    "webkit_jscc",
    "willreturn",
    "win64cc",
    "writeonly",
    "x86_64_sysvcc",
    "x86_fastcallcc",
    "x86_intrcc",
    "x86_regcallcc",
    "x86_stdcallcc",
    "x86_thiscallcc",
    "x86_vectorcallcc",
    "zeroext",
];

/// The data layout string clang 14 writes for x86-64 Linux (quoted), the only one import
/// accepts: sizes and offsets are computed with it ([`super::layout`]).
pub const X86_64_DATALAYOUT: &str =
    "\"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128\"";

/// True if `w` is one of [`KEYWORDS`].
pub fn is_keyword(w: &str) -> bool {
    // One hash and one comparison instead of a binary search's eight comparisons: every
    // call argument's attributes are looked up here.
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str, Hasher>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| KEYWORDS.iter().copied().collect())
        .contains(w)
}

/// The hasher of the name sets here (names are short: FxHash's scheme, not SipHash).
type Hasher = std::hash::BuildHasherDefault<super::hash::NameHasher>;

/// Attribute groups (`#N`) and metadata nodes (`!N`, `!name`) the module defines.
#[derive(Default, Debug)]
pub struct Defined {
    /// `attributes #N = ...`.
    pub attr_groups: HashSet<String, Hasher>,
    /// `!N = ...` and `!name = ...`.
    pub metadata: HashSet<String, Hasher>,
}

/// Checks the words of tokens `toks` (an attribute or linkage region that export copies
/// verbatim): bare words must be keywords, `#N` must be defined, `align N` a power of two;
/// the contents of parentheses (types, integers) are read by the type parser or must be
/// integers.
pub fn check_words(c: &Cursor<'_>, toks: &[Token], defined: &Defined) -> PResult<()> {
    let mut k = 0;
    while k < toks.len() {
        let t = toks[k];
        match t.kind {
            Tok::Ident => {
                let w = c.text(t);
                if !is_keyword(w) {
                    return c.err_at(t, format!("unknown attribute or keyword `{w}`"));
                }
                if w == "align" || w == "alignstack" {
                    if let Some(n) = toks.get(k + 1).filter(|n| n.kind == Tok::Int) {
                        let a: u64 = c.text(*n).parse().unwrap_or(0);
                        super::check_align(c, *n, a)?;
                        k += 1;
                    }
                }
            }
            Tok::AttrGroup => {
                let n = c.text(t);
                if !defined.attr_groups.contains(n) {
                    return c.err_at(t, format!("undefined attribute group {n}"));
                }
            }
            Tok::LParen => {
                let mut depth = 0;
                while k < toks.len() {
                    match toks[k].kind {
                        Tok::LParen => depth += 1,
                        Tok::RParen => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Ident => {
                            let w = c.text(toks[k]);
                            let ty = w == "x"
                                || w.strip_prefix('i')
                                    .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
                                || matches!(
                                    w,
                                    "void" | "float" | "double" | "x86_fp80" | "fp128" | "half"
                                );
                            if !ty && !is_keyword(w) {
                                return c.err_at(toks[k], format!("unexpected `{w}`"));
                            }
                        }
                        Tok::Error | Tok::Eq | Tok::GlobalVar => {
                            return c.err_at(toks[k], "malformed attribute argument");
                        }
                        _ => {}
                    }
                    k += 1;
                }
                if depth != 0 {
                    return c.err_at(t, "unbalanced parentheses");
                }
            }
            Tok::Str => {
                // `"frame-pointer"="all"`: the one string attribute LLVM 14's verifier reads.
                if c.text(t) == "\"frame-pointer\"" {
                    let value = toks.get(k + 2).map_or("", |v| c.text(*v));
                    if !matches!(value, "\"all\"" | "\"non-leaf\"" | "\"none\"") {
                        return c
                            .err_at(t, "frame-pointer must be \"all\", \"non-leaf\" or \"none\"");
                    }
                }
            }
            Tok::MetaVar => {
                // An attachment `!name !N` (a function's `!dbg !12`): the node must exist.
                match toks.get(k + 1) {
                    Some(n) if n.kind == Tok::MetaVar && defined.metadata.contains(c.text(*n)) => {
                        k += 1
                    }
                    Some(n) if n.kind == Tok::MetaVar => {
                        return c.err_at(*n, format!("undefined metadata {}", c.text(*n)))
                    }
                    _ => {
                        return c
                            .err_at(t, format!("expected a metadata node after `{}`", c.text(t)))
                    }
                }
            }
            Tok::Eq => {
                // Only between the key and value of a string attribute: `"key"="value"`.
                let kind = |i: usize| toks.get(i).map(|t| t.kind);
                let key = k >= 1 && kind(k - 1) == Some(Tok::Str);
                let chained = k >= 2 && kind(k - 2) == Some(Tok::Eq);
                if !key || chained || kind(k + 1) != Some(Tok::Str) {
                    return c.err_at(t, "`=` outside a `\"key\"=\"value\"` attribute");
                }
            }
            Tok::Comma | Tok::ComdatVar => {}
            _ => return c.err_at(t, format!("unexpected `{}`", c.text(t))),
        }
        k += 1;
    }
    Ok(())
}

/// Collects the attribute groups and metadata nodes that top-level items `items` (token
/// ranges) define; a name defined twice (also a named type or a comdat) is an error.
pub fn collect_defined(c: &Cursor<'_>, items: &[(usize, usize)]) -> PResult<Defined> {
    let mut d = Defined::default();
    let mut types: HashSet<&str, Hasher> = HashSet::default();
    let mut comdats: HashSet<&str, Hasher> = HashSet::default();
    for &(a, b) in items {
        let toks = &c.toks[a..b];
        let (Some(&t), Some(&n)) = (toks.first(), toks.get(1)) else {
            continue;
        };
        let fresh = match t.kind {
            Tok::Ident if c.text(t) == "attributes" && n.kind == Tok::AttrGroup => {
                d.attr_groups.insert(c.text(n).to_string())
            }
            Tok::MetaVar => d.metadata.insert(c.text(t).to_string()),
            Tok::LocalVar
                if n.kind == Tok::Eq && toks.get(2).is_some_and(|w| c.text(*w) == "type") =>
            {
                types.insert(c.text(t))
            }
            Tok::ComdatVar if n.kind == Tok::Eq => comdats.insert(c.text(t)),
            _ => true,
        };
        if !fresh {
            return c.err_at(t, format!("redefinition of {}", c.text(t)));
        }
    }
    Ok(d)
}

/// Checks a top-level item that is not a function, global or type definition: its first
/// token is `t0`. Returns an error for malformed text.
pub fn check_item(c: &Cursor<'_>, toks: &[Token], defined: &Defined) -> PResult<()> {
    let t0 = toks[0];
    let end = |k: usize| -> PResult<()> {
        match toks.get(k) {
            None => Ok(()),
            Some(t) if t.kind == Tok::Eof => Ok(()),
            Some(t) => c.err_at(*t, format!("unexpected `{}` after the item", c.text(*t))),
        }
    };
    let kind = |k: usize| toks.get(k).map_or(Tok::Eof, |t| t.kind);
    let word = |k: usize| toks.get(k).map_or("", |t| c.text(*t));
    let at = |k: usize| toks.get(k).copied().unwrap_or(*toks.last().unwrap_or(&t0));
    match (t0.kind, c.text(t0)) {
        (Tok::Ident, "source_filename") => {
            if kind(1) != Tok::Eq || kind(2) != Tok::Str {
                return c.err_at(at(1), "expected `= \"name\"` after source_filename");
            }
            end(3)
        }
        (Tok::Ident, "target") => {
            if !matches!(word(1), "datalayout" | "triple")
                || kind(2) != Tok::Eq
                || kind(3) != Tok::Str
            {
                return c.err_at(
                    at(1),
                    "expected `datalayout = \"...\"` or `triple = \"...\"`",
                );
            }
            // The triple names an x86-64 target, as the data layout must (opt rejects an
            // unknown architecture, and export copies the line verbatim).
            if word(1) == "triple" && !word(3).starts_with("\"x86_64-") {
                return c.err_at(
                    at(3),
                    format!(
                        "target triple {} is not x86-64 (the only target strata models)",
                        word(3)
                    ),
                );
            }
            if word(1) == "datalayout" && word(3) != X86_64_DATALAYOUT {
                return c.err_at(
                    at(3),
                    format!("data layout {} is not x86-64's {X86_64_DATALAYOUT} (the only one strata models)", word(3)),
                );
            }
            end(4)
        }
        (Tok::Ident, "module") => {
            if word(1) != "asm" || kind(2) != Tok::Str {
                return c.err_at(at(1), "expected `asm \"...\"` after module");
            }
            end(3)
        }
        (Tok::Ident, "attributes") => {
            if kind(1) != Tok::AttrGroup || kind(2) != Tok::Eq || kind(3) != Tok::LBrace {
                return c.err_at(at(1), "expected `#N = {` after attributes");
            }
            let close = toks.iter().rposition(|t| t.kind == Tok::RBrace);
            match close {
                Some(k) if k > 3 => {
                    check_words(c, &toks[4..k], defined)?;
                    end(k + 1)
                }
                _ => c.err_at(at(3), "attribute group is not closed by `}`"),
            }
        }
        (Tok::ComdatVar, _) => {
            if kind(1) != Tok::Eq
                || word(2) != "comdat"
                || !matches!(
                    word(3),
                    "any" | "exactmatch" | "largest" | "nodeduplicate" | "samesize"
                )
            {
                return c.err_at(at(1), "expected `= comdat <selection kind>`");
            }
            end(4)
        }
        (Tok::MetaVar, _) => {
            if kind(1) != Tok::Eq {
                return c.err_at(at(1), "expected `=` after a metadata name");
            }
            let mut k = 2;
            if word(k) == "distinct" {
                k += 1;
            }
            let end_k = check_node(c, toks, k, defined)?;
            end(end_k)
        }
        _ => Ok(()),
    }
}

/// Checks one metadata node starting at `toks[k]` (`!{...}`, `!"str"`, `!N`, or
/// `!Name(...)`); returns the index after it.
fn check_node(c: &Cursor<'_>, toks: &[Token], k: usize, defined: &Defined) -> PResult<usize> {
    let tok = |i: usize| toks.get(i).copied();
    let Some(t) = tok(k) else {
        return c.err_at(*toks.last().unwrap_or(&toks[0]), "expected metadata");
    };
    match t.kind {
        // A specialized node, `!DILocation(line: 3, scope: !7)` (the lexer reads
        // `!DILocation` as one name): balanced fields whose node references are defined.
        Tok::MetaVar if tok(k + 1).is_some_and(|t| t.kind == Tok::LParen) => {
            check_fields(c, toks, t, k + 1, defined)
        }
        Tok::MetaVar => {
            let n = c.text(t);
            if !defined.metadata.contains(n) {
                return c.err_at(t, format!("undefined metadata {n}"));
            }
            Ok(k + 1)
        }
        Tok::Exclaim => match tok(k + 1).map(|t| t.kind) {
            Some(Tok::Str) => Ok(k + 2),
            Some(Tok::LBrace) => {
                let mut i = k + 2;
                if tok(i).is_some_and(|t| t.kind == Tok::RBrace) {
                    return Ok(i + 1);
                }
                loop {
                    i = check_element(c, toks, i, defined)?;
                    match tok(i).map(|t| t.kind) {
                        Some(Tok::Comma) => i += 1,
                        Some(Tok::RBrace) => return Ok(i + 1),
                        _ => {
                            let at = tok(i).unwrap_or(t);
                            return c.err_at(at, "expected `,` or `}` in a metadata node");
                        }
                    }
                }
            }
            Some(Tok::Ident) if tok(k + 2).is_some_and(|t| t.kind == Tok::LParen) => {
                check_fields(c, toks, t, k + 2, defined)
            }
            _ => c.err_at(t, "expected metadata after `!`"),
        },
        _ => c.err_at(t, format!("expected metadata, found `{}`", c.text(t))),
    }
}

/// The parenthesised fields of a specialized node `node` (`!DILocation(line: 3, scope: !7)`)
/// from the `(` at `toks[open]`: balanced, with every node reference (a `!N` not itself
/// opening fields) defined; returns the index after the closing `)`.
fn check_fields(
    c: &Cursor<'_>,
    toks: &[Token],
    node: Token,
    open: usize,
    defined: &Defined,
) -> PResult<usize> {
    let mut depth = 0;
    for (i, u) in toks.iter().enumerate().skip(open) {
        match u.kind {
            Tok::LParen => depth += 1,
            Tok::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            Tok::MetaVar if !toks.get(i + 1).is_some_and(|t| t.kind == Tok::LParen) => {
                let n = c.text(*u);
                if !defined.metadata.contains(n) {
                    return c.err_at(*u, format!("undefined metadata {n}"));
                }
            }
            Tok::Error => return c.err_at(*u, "malformed metadata"),
            _ => {}
        }
    }
    c.err_at(node, "unbalanced parentheses in metadata")
}

/// One element of a `!{...}` node: metadata, `null`, or a typed constant.
fn check_element(c: &Cursor<'_>, toks: &[Token], i: usize, defined: &Defined) -> PResult<usize> {
    let Some(t) = toks.get(i).copied() else {
        return c.err_at(toks[toks.len() - 1], "unterminated metadata node");
    };
    match t.kind {
        Tok::MetaVar | Tok::Exclaim => check_node(c, toks, i, defined),
        Tok::Ident if c.text(t) == "null" => Ok(i + 1),
        _ => {
            let mut sub = Cursor::new(c.src, &toks[i..], c.lines);
            let ty = sub.parse_type()?;
            if !ty.is_first_class() {
                return c.err_at(t, format!("metadata constant of type {ty}"));
            }
            sub.parse_value()?;
            Ok(i + sub.pos)
        }
    }
}

/// Checks `!llvm.module.flags` (if present in `items`): each element is a defined node
/// `!{i32 B, !"key", value}` with B in 1..=7, keys unique; and `!llvm.ident`: each element
/// a node holding one string.
pub fn check_module_flags(c: &Cursor<'_>, items: &[(usize, usize)]) -> PResult<()> {
    let mut nodes: HashMap<&str, &[Token], Hasher> = HashMap::default();
    let mut flags: Option<&[Token]> = None;
    let mut ident: Option<&[Token]> = None;
    for &(a, b) in items {
        let toks = &c.toks[a..b];
        if toks[0].kind == Tok::MetaVar {
            let name = c.text(toks[0]);
            if name == "!llvm.module.flags" {
                flags = Some(toks);
            } else if name == "!llvm.ident" {
                ident = Some(toks);
            } else {
                nodes.insert(name, toks);
            }
        }
    }
    // `!llvm.ident`: every element is a node holding exactly one string (LLVM's verifier
    // rejects any other shape, and export copies the nodes verbatim).
    for r in ident
        .iter()
        .flat_map(|t| t.iter())
        .filter(|t| t.kind == Tok::MetaVar)
        .skip(1)
    {
        let Some(node) = nodes.get(c.text(*r)) else {
            continue;
        };
        let kinds: Vec<Tok> = node
            .iter()
            .map(|t| t.kind)
            .skip_while(|k| *k != Tok::LBrace)
            .collect();
        if kinds != [Tok::LBrace, Tok::Exclaim, Tok::Str, Tok::RBrace] {
            return Err(c.perr(
                node[0],
                "invalid llvm.ident operand (expected `!{!\"producer\"}`)",
            ));
        }
    }
    let Some(flags) = flags else {
        return Ok(());
    };
    let mut keys = HashSet::new();
    for r in flags.iter().filter(|t| t.kind == Tok::MetaVar).skip(1) {
        let Some(node) = nodes.get(c.text(*r)) else {
            continue;
        };
        let body: Vec<Token> = node
            .iter()
            .copied()
            .skip_while(|t| t.kind != Tok::LBrace)
            .collect();
        let words: Vec<&str> = body.iter().map(|t| c.text(*t)).collect();
        // `{ i32 B , ! "key" , ...`
        let ok = words.len() >= 7
            && words[1] == "i32"
            && words[2].parse::<u32>().is_ok_and(|b| (1..=7).contains(&b))
            && words[3] == ","
            && words[4] == "!"
            && body[5].kind == Tok::Str
            && words[6] == ",";
        if !ok {
            return Err(c.perr(
                node[0],
                "invalid module flag (expected `!{i32 1..7, !\"key\", value}`)",
            ));
        }
        if !keys.insert(words[5]) {
            return Err(c.perr(node[0], format!("module flag {} defined twice", words[5])));
        }
    }
    Ok(())
}

//! Export of globals the context does not know, and renaming of block addresses in
//! verbatim global text.
//!
//! A global's image is split into byte runs and fields at its relocations (8-byte pointers:
//! a symbol's address, a `blockaddress`; or `iN` relative entries, printed as
//! `trunc (i64 sub (i64 ptrtoint @target, i64 ptrtoint @base) to iN)`); one run prints as
//! `[N x i8] c"..."` (or `zeroinitializer`), several as a packed struct.
//! Complexity: linear in the image size.

use super::*;

/// One piece of a global's image: raw bytes `[start, end)` or a relocation's field.
enum Piece {
    Bytes(u64, u64),
    Ptr(Relocation),
}

/// Splits a global's image into byte runs and relocations' fields.
fn pieces(g: &Global) -> Vec<Piece> {
    let mut relocs = g.relocations.clone();
    relocs.sort_by_key(|r| r.offset);
    let mut out = Vec::new();
    let mut at = 0u64;
    for r in relocs {
        if r.offset < at || r.offset.saturating_add(r.bytes()) > g.size {
            continue;
        }
        if r.offset > at {
            out.push(Piece::Bytes(at, r.offset));
        }
        out.push(Piece::Ptr(r));
        at = r.offset + r.bytes();
    }
    if at < g.size || out.is_empty() {
        out.push(Piece::Bytes(at, g.size));
    }
    out
}

/// The LLVM type export gives a global that the context does not know.
pub(super) fn global_type(g: &Global) -> LType {
    if g.init.is_none() {
        return LType::Array(g.size, Arc::new(LType::Int(8)));
    }
    let fields: Vec<LType> = pieces(g)
        .iter()
        .map(|p| match p {
            Piece::Bytes(a, b) => LType::Array(b - a, Arc::new(LType::Int(8))),
            Piece::Ptr(r) => match r.kind {
                RelocationKind::Relative { bytes, .. } => LType::Int(8 * bytes as u32),
                _ => LType::i8_ptr(),
            },
        })
        .collect();
    if fields.len() == 1 {
        fields.into_iter().next().unwrap_or(LType::Int(8))
    } else {
        LType::Struct {
            fields: fields.into(),
            packed: true,
        }
    }
}

/// Prints a global the context does not know, from its size, bytes and relocations.
pub(super) fn print_global(
    out: &mut String,
    m: &Module,
    ctx: &LlvmContext,
    extra: &HashMap<String, LType>,
    g: &Global,
) {
    let name = ident('@', sym_name(m, g.symbol));
    let link = if g.linkage == Linkage::Internal {
        "internal "
    } else {
        ""
    };
    let kind = if g.constant { "constant" } else { "global" };
    let ty = global_type(g);
    let Some(init) = &g.init else {
        let _ = writeln!(
            out,
            "{name} = external {kind} {ty}, align {}",
            g.align.max(1)
        );
        return;
    };
    let ps = pieces(g);
    let mut vals = Vec::with_capacity(ps.len());
    for p in &ps {
        match p {
            Piece::Bytes(a, b) => {
                let lo = (*a as usize).min(init.len());
                let hi = (*b as usize).min(init.len());
                let t = LType::Array(b - a, Arc::new(LType::Int(8)));
                if init[lo..hi].iter().all(|&x| x == 0) {
                    vals.push(format!("{t} zeroinitializer"));
                } else {
                    let mut bytes = init[lo..hi].to_vec();
                    bytes.resize((b - a) as usize, 0);
                    vals.push(format!("{t} c\"{}\"", escape(&bytes)));
                }
            }
            Piece::Ptr(r) => vals.push(relocation_value(m, ctx, extra, r)),
        }
    }
    let value = if vals.len() == 1 {
        // A single piece has exactly the global's type: drop the "<type> " prefix.
        let v = vals.pop().unwrap_or_default();
        let prefix = format!("{ty} ");
        v.strip_prefix(&prefix).unwrap_or(&v).to_string()
    } else {
        format!("<{{ {} }}>", vals.join(", "))
    };
    let _ = writeln!(
        out,
        "{name} = {link}{kind} {ty} {value}, align {}",
        g.align.max(1)
    );
}

/// The typed LLVM constant of relocation `r`'s field (`i8* ...` or `iN ...`).
fn relocation_value(
    m: &Module,
    ctx: &LlvmContext,
    extra: &HashMap<String, LType>,
    r: &Relocation,
) -> String {
    let address = |s: Symbol, addend: i64| {
        let st = symbol_type(m, ctx, extra, s);
        let sym = ident('@', sym_name(m, s));
        let base = if st == LType::i8_ptr() {
            sym
        } else {
            format!("bitcast ({st} {sym} to i8*)")
        };
        if addend == 0 {
            base
        } else {
            format!("getelementptr (i8, i8* {base}, i64 {addend})")
        }
    };
    match r.kind {
        RelocationKind::Address => format!("i8* {}", address(r.symbol, r.addend)),
        RelocationKind::BlockAddress(b) => {
            let block = format!(
                "blockaddress({}, %b{})",
                ident('@', sym_name(m, r.symbol)),
                b.0
            );
            if r.addend == 0 {
                format!("i8* {block}")
            } else {
                format!("i8* getelementptr (i8, i8* {block}, i64 {})", r.addend)
            }
        }
        RelocationKind::Relative { base, bytes } => {
            let difference = format!(
                "sub (i64 ptrtoint (i8* {} to i64), i64 ptrtoint (i8* {} to i64))",
                address(r.symbol, r.addend),
                address(base, 0)
            );
            if bytes == 8 {
                format!("i64 {difference}")
            } else {
                let bits = 8 * bytes as u32;
                format!("i{bits} trunc (i64 {difference} to i{bits})")
            }
        }
    }
}

/// Rewrites `blockaddress(@f, %label)` in verbatim text to the block names export prints
/// for `f` (`%bN`), for functions printed from the IR.
pub(super) fn rename_block_addresses(
    text: &str,
    ctx: &LlvmContext,
    is_printed: &dyn Fn(&str) -> bool,
) -> String {
    use crate::llvm::lexer::Tok;
    let lexed = crate::llvm::lexer::lex(text);
    let toks = &lexed.toks;
    let c = crate::llvm::parse::Cursor::new(text, toks, &lexed.lines);
    let mut out = String::with_capacity(text.len());
    let mut copied = 0usize;
    for k in 0..toks.len() {
        let t = toks[k];
        if !(t.kind == Tok::Ident && c.text(t) == "blockaddress") {
            continue;
        }
        let (Some(f), Some(l)) = (toks.get(k + 2), toks.get(k + 4)) else {
            continue;
        };
        if f.kind != Tok::GlobalVar || l.kind != Tok::LocalVar {
            continue;
        }
        let fname = c.name(*f);
        if !is_printed(fname.as_ref()) {
            continue;
        }
        if let Some(&b) = ctx
            .block_labels
            .get(fname.as_ref())
            .and_then(|m| m.get(c.name(*l).as_ref()))
        {
            out.push_str(&text[copied..l.start as usize]);
            let _ = write!(out, "%b{b}");
            copied = l.end as usize;
        }
    }
    out.push_str(&text[copied..]);
    out
}

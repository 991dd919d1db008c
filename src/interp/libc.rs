//! The table of built-in external functions: the one place that says which C library
//! functions and LLVM intrinsics the interpreter runs, what each is called and which header
//! it belongs to. The interpreter dispatches on `lookup`'s answer (an exhaustive `match` on
//! `Ext`) and `strata run --help` prints [`externals_help`], both from [`EXTERNALS`], so the
//! list a user reads is the list that runs.
//!
//! Also here: the C library state a module's image needs before `main` runs. `stdin`,
//! `stdout` and `stderr` (external globals holding a `FILE *`, as clang emits them for
//! glibc) are filled with stream handles, addresses in a reserved range that is never memory
//! (`STREAM_BASE`); `fprintf`, `fputs`, `fputc`, `putc` and `fwrite` accept the handles of
//! `stdout` and `stderr`. The character-class tables behind glibc's `<ctype.h>` macros
//! (`__ctype_b_loc`, `__ctype_toupper_loc`, `__ctype_tolower_loc`, which clang -O0 code calls
//! for `isdigit(c)` and friends) are laid out in the globals arena for the C locale, when the
//! module declares those functions. Cost: O(1) per lookup of an exact name (a linear scan of
//! about 70 entries), O(table) once per module for the image.

use super::memory::{Arena, Fault, Label, Memory};
use crate::ir::{Module, SymbolKind};

/// Handles of the standard streams: `STREAM_BASE + 16 * fd` for fd 0, 1 and 2. The range
/// lies between the stack arena and the function symbols, outside every memory region.
pub(super) const STREAM_BASE: u64 = 0xE000_0000_0000;

/// The stream handle of file descriptor `fd` (0, 1 or 2).
pub(super) const fn stream_handle(fd: u64) -> u64 {
    STREAM_BASE + 16 * fd
}

/// Output functions (`<stdio.h>`, and `write` from `<unistd.h>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Out {
    Putchar,
    Puts,
    Printf,
    Fprintf,
    Sprintf,
    Snprintf,
    Fputs,
    Fputc,
    Fwrite,
    Fflush,
    Write,
}

/// `<string.h>` functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Str {
    Memcpy,
    Memmove,
    Memset,
    Memcmp,
    Memchr,
    Strlen,
    Strnlen,
    Strcmp,
    Strncmp,
    Strcpy,
    Strncpy,
    Strcat,
    Strncat,
    Strchr,
    Strrchr,
    Strstr,
    Strspn,
    Strcspn,
    Strpbrk,
    Strdup,
    Strndup,
}

/// A `<ctype.h>` character class (glibc's bit in the class table, see [`class_bits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    Upper = 0x100,
    Lower = 0x200,
    Alpha = 0x400,
    Digit = 0x800,
    Xdigit = 0x1000,
    Space = 0x2000,
    Print = 0x4000,
    Graph = 0x8000,
    Blank = 0x1,
    Cntrl = 0x2,
    Punct = 0x4,
    Alnum = 0x8,
}

/// `<ctype.h>` functions, and glibc's table accessors its macros call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctype {
    Is(Class),
    Toupper,
    Tolower,
    /// `__ctype_b_loc`: the class table.
    BLoc,
    /// `__ctype_toupper_loc`.
    ToupperLoc,
    /// `__ctype_tolower_loc`.
    TolowerLoc,
}

/// `<stdlib.h>` functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lib {
    Malloc,
    Calloc,
    Realloc,
    Free,
    Abs,
    Getenv,
    Sscanf,
    /// `strtol`-like (`true`: signed); `atoi`-like, base 10 and no end pointer.
    Strtol(bool),
    Atoi,
    Strtod,
    Atof,
    Exit,
    Abort,
}

/// LLVM intrinsics (matched by prefix: `llvm.memcpy.p0i8.p0i8.i64` is `llvm.memcpy.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Intrinsic {
    /// `llvm.memcpy.*` and `llvm.memmove.*` (the `isvolatile` argument is ignored).
    Memcpy,
    /// `llvm.memset.*`.
    Memset,
    /// `llvm.lifetime.*`: no-ops.
    Lifetime,
    /// `llvm.fmuladd.*`: multiply, then add (two roundings).
    Fmuladd,
    /// `llvm.stacksave`.
    Stacksave,
    /// `llvm.stackrestore`.
    Stackrestore,
    /// `llvm.vector.reduce.*`: one vector's lanes folded into a scalar
    /// ([`super::vector`]).
    VectorReduce,
    /// The SSE2 shifts `llvm.x86.sse2.{psll,psrl,psra}{,i}.*`: every lane by one count
    /// ([`super::vector`]).
    X86Shift,
    /// `llvm.load.relative.*(ptr, offset)`: `ptr` plus the sign-extended 32-bit entry at
    /// `ptr + offset` (the reader of clang `-O2`'s relative lookup tables).
    LoadRelative,
    /// Bit counting, integer min/max/abs, overflow-checked and saturating arithmetic and
    /// the `<math.h>` float functions LLVM has intrinsics for ([`super::bitmath`]).
    BitMath,
}

/// A built-in external, by family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ext {
    Out(Out),
    Str(Str),
    Ctype(Ctype),
    Lib(Lib),
    Intrinsic(Intrinsic),
}

/// One row of [`EXTERNALS`].
pub struct External {
    /// The function's name; a name ending in `.` is an LLVM intrinsic prefix.
    pub name: &'static str,
    /// Where C declares it (`<string.h>`), or `LLVM intrinsics`.
    pub header: &'static str,
    ext: Ext,
}

const fn row(name: &'static str, header: &'static str, ext: Ext) -> External {
    External { name, header, ext }
}

const STDIO: &str = "<stdio.h>";
const STRING: &str = "<string.h>";
const CTYPE: &str = "<ctype.h>";
const STDLIB: &str = "<stdlib.h>";
const LLVM: &str = "LLVM intrinsics";

/// Every built-in external, grouped by header in the order `run --help` lists them.
pub const EXTERNALS: &[External] = &[
    row("printf", STDIO, Ext::Out(Out::Printf)),
    row("fprintf", STDIO, Ext::Out(Out::Fprintf)),
    row("sprintf", STDIO, Ext::Out(Out::Sprintf)),
    row("snprintf", STDIO, Ext::Out(Out::Snprintf)),
    row("sscanf", STDIO, Ext::Lib(Lib::Sscanf)),
    row("__isoc99_sscanf", STDIO, Ext::Lib(Lib::Sscanf)),
    row("puts", STDIO, Ext::Out(Out::Puts)),
    row("putchar", STDIO, Ext::Out(Out::Putchar)),
    row("fputs", STDIO, Ext::Out(Out::Fputs)),
    row("fputc", STDIO, Ext::Out(Out::Fputc)),
    row("putc", STDIO, Ext::Out(Out::Fputc)),
    row("fwrite", STDIO, Ext::Out(Out::Fwrite)),
    row("fflush", STDIO, Ext::Out(Out::Fflush)),
    row("write", "<unistd.h>", Ext::Out(Out::Write)),
    row("strlen", STRING, Ext::Str(Str::Strlen)),
    row("strnlen", STRING, Ext::Str(Str::Strnlen)),
    row("strcmp", STRING, Ext::Str(Str::Strcmp)),
    row("strncmp", STRING, Ext::Str(Str::Strncmp)),
    row("strcpy", STRING, Ext::Str(Str::Strcpy)),
    row("strncpy", STRING, Ext::Str(Str::Strncpy)),
    row("strcat", STRING, Ext::Str(Str::Strcat)),
    row("strncat", STRING, Ext::Str(Str::Strncat)),
    row("strchr", STRING, Ext::Str(Str::Strchr)),
    row("strrchr", STRING, Ext::Str(Str::Strrchr)),
    row("strstr", STRING, Ext::Str(Str::Strstr)),
    row("strspn", STRING, Ext::Str(Str::Strspn)),
    row("strcspn", STRING, Ext::Str(Str::Strcspn)),
    row("strpbrk", STRING, Ext::Str(Str::Strpbrk)),
    row("strdup", STRING, Ext::Str(Str::Strdup)),
    row("strndup", STRING, Ext::Str(Str::Strndup)),
    row("memcpy", STRING, Ext::Str(Str::Memcpy)),
    row("memmove", STRING, Ext::Str(Str::Memmove)),
    row("memset", STRING, Ext::Str(Str::Memset)),
    row("memcmp", STRING, Ext::Str(Str::Memcmp)),
    // clang -O2 calls `bcmp` for a `memcmp` only compared with zero; memcmp's result is a
    // valid bcmp result (zero exactly when the bytes are equal).
    row("bcmp", STRING, Ext::Str(Str::Memcmp)),
    row("memchr", STRING, Ext::Str(Str::Memchr)),
    row("isalnum", CTYPE, Ext::Ctype(Ctype::Is(Class::Alnum))),
    row("isalpha", CTYPE, Ext::Ctype(Ctype::Is(Class::Alpha))),
    row("isblank", CTYPE, Ext::Ctype(Ctype::Is(Class::Blank))),
    row("iscntrl", CTYPE, Ext::Ctype(Ctype::Is(Class::Cntrl))),
    row("isdigit", CTYPE, Ext::Ctype(Ctype::Is(Class::Digit))),
    row("isgraph", CTYPE, Ext::Ctype(Ctype::Is(Class::Graph))),
    row("islower", CTYPE, Ext::Ctype(Ctype::Is(Class::Lower))),
    row("isprint", CTYPE, Ext::Ctype(Ctype::Is(Class::Print))),
    row("ispunct", CTYPE, Ext::Ctype(Ctype::Is(Class::Punct))),
    row("isspace", CTYPE, Ext::Ctype(Ctype::Is(Class::Space))),
    row("isupper", CTYPE, Ext::Ctype(Ctype::Is(Class::Upper))),
    row("isxdigit", CTYPE, Ext::Ctype(Ctype::Is(Class::Xdigit))),
    row("toupper", CTYPE, Ext::Ctype(Ctype::Toupper)),
    row("tolower", CTYPE, Ext::Ctype(Ctype::Tolower)),
    row("__ctype_b_loc", CTYPE, Ext::Ctype(Ctype::BLoc)),
    row("__ctype_toupper_loc", CTYPE, Ext::Ctype(Ctype::ToupperLoc)),
    row("__ctype_tolower_loc", CTYPE, Ext::Ctype(Ctype::TolowerLoc)),
    row("malloc", STDLIB, Ext::Lib(Lib::Malloc)),
    row("calloc", STDLIB, Ext::Lib(Lib::Calloc)),
    row("realloc", STDLIB, Ext::Lib(Lib::Realloc)),
    row("free", STDLIB, Ext::Lib(Lib::Free)),
    row("abs", STDLIB, Ext::Lib(Lib::Abs)),
    row("labs", STDLIB, Ext::Lib(Lib::Abs)),
    row("llabs", STDLIB, Ext::Lib(Lib::Abs)),
    row("strtol", STDLIB, Ext::Lib(Lib::Strtol(true))),
    row("strtoll", STDLIB, Ext::Lib(Lib::Strtol(true))),
    row("strtoul", STDLIB, Ext::Lib(Lib::Strtol(false))),
    row("strtoull", STDLIB, Ext::Lib(Lib::Strtol(false))),
    row("atoi", STDLIB, Ext::Lib(Lib::Atoi)),
    row("atol", STDLIB, Ext::Lib(Lib::Atoi)),
    row("atoll", STDLIB, Ext::Lib(Lib::Atoi)),
    row("strtod", STDLIB, Ext::Lib(Lib::Strtod)),
    row("atof", STDLIB, Ext::Lib(Lib::Atof)),
    row("getenv", STDLIB, Ext::Lib(Lib::Getenv)),
    row("exit", STDLIB, Ext::Lib(Lib::Exit)),
    row("abort", STDLIB, Ext::Lib(Lib::Abort)),
    row("llvm.memcpy.", LLVM, Ext::Intrinsic(Intrinsic::Memcpy)),
    row("llvm.memmove.", LLVM, Ext::Intrinsic(Intrinsic::Memcpy)),
    row("llvm.memset.", LLVM, Ext::Intrinsic(Intrinsic::Memset)),
    row("llvm.lifetime.", LLVM, Ext::Intrinsic(Intrinsic::Lifetime)),
    row("llvm.fmuladd.", LLVM, Ext::Intrinsic(Intrinsic::Fmuladd)),
    row("llvm.ctlz.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.cttz.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.ctpop.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.bswap.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.bitreverse.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.fshl.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.fshr.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.smin.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.smax.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.umin.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.umax.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.abs.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.sadd.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.uadd.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.ssub.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.usub.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.smul.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.umul.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.expect.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.fabs.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.copysign.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.minnum.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.maxnum.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.floor.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.ceil.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.trunc.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.round.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.rint.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.nearbyint.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.roundeven.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.sqrt.", LLVM, Ext::Intrinsic(Intrinsic::BitMath)),
    row("llvm.stacksave", LLVM, Ext::Intrinsic(Intrinsic::Stacksave)),
    row(
        "llvm.load.relative.",
        LLVM,
        Ext::Intrinsic(Intrinsic::LoadRelative),
    ),
    row(
        "llvm.stackrestore",
        LLVM,
        Ext::Intrinsic(Intrinsic::Stackrestore),
    ),
    row(
        "llvm.vector.reduce.",
        LLVM,
        Ext::Intrinsic(Intrinsic::VectorReduce),
    ),
    row(
        "llvm.x86.sse2.psll.",
        LLVM,
        Ext::Intrinsic(Intrinsic::X86Shift),
    ),
    row(
        "llvm.x86.sse2.psrl.",
        LLVM,
        Ext::Intrinsic(Intrinsic::X86Shift),
    ),
    row(
        "llvm.x86.sse2.psra.",
        LLVM,
        Ext::Intrinsic(Intrinsic::X86Shift),
    ),
    row(
        "llvm.x86.sse2.pslli.",
        LLVM,
        Ext::Intrinsic(Intrinsic::X86Shift),
    ),
    row(
        "llvm.x86.sse2.psrli.",
        LLVM,
        Ext::Intrinsic(Intrinsic::X86Shift),
    ),
    row(
        "llvm.x86.sse2.psrai.",
        LLVM,
        Ext::Intrinsic(Intrinsic::X86Shift),
    ),
];

/// The built-in called `name`: an exact name, or an intrinsic whose prefix (a row ending in
/// `.`) starts `name`.
pub(super) fn lookup(name: &str) -> Option<Ext> {
    EXTERNALS
        .iter()
        .find(|r| {
            if r.name.ends_with('.') {
                name.starts_with(r.name)
            } else {
                name == r.name
            }
        })
        .map(|r| r.ext)
}

/// The supported externals, one line per header (`  <string.h>  strlen strnlen ...`), for
/// `strata run --help`; intrinsic prefixes print as `llvm.memcpy.*`.
pub fn externals_help() -> String {
    const WIDTH: usize = 96;
    let mut s = String::new();
    let (mut header, mut column) = ("", 0);
    for r in EXTERNALS {
        let name = if r.name.ends_with('.') {
            format!("{}*", r.name)
        } else {
            r.name.to_string()
        };
        if r.header != header {
            header = r.header;
            s.push_str(&format!("\n  {header:<16}"));
            column = 18;
        } else if column + 1 + name.len() > WIDTH {
            s.push_str(&format!("\n{:18}", ""));
            column = 18;
        } else {
            s.push(' ');
            column += 1;
        }
        column += name.len();
        s.push_str(&name);
    }
    s.push('\n');
    s
}

/// glibc's class bits for byte `c` in the C locale (`__ctype_b_loc()[c]`): [`Class`]
/// values or'ed together.
pub(super) fn class_bits(c: u8) -> u16 {
    use Class::*;
    let mut bits = 0u16;
    let mut set = |k: Class| bits |= k as u16;
    if c.is_ascii_uppercase() {
        set(Upper);
    }
    if c.is_ascii_lowercase() {
        set(Lower);
    }
    if c.is_ascii_alphabetic() {
        set(Alpha);
        set(Alnum);
    }
    if c.is_ascii_digit() {
        set(Digit);
        set(Alnum);
    }
    if c.is_ascii_hexdigit() {
        set(Xdigit);
    }
    // C's isspace: space, \t \n \v \f \r (Rust's is_ascii_whitespace leaves out \v).
    if matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        set(Space);
    }
    if (0x20..0x7f).contains(&c) {
        set(Print);
    }
    if c.is_ascii_graphic() {
        set(Graph);
    }
    if matches!(c, b' ' | b'\t') {
        set(Blank);
    }
    if c.is_ascii_control() {
        set(Cntrl);
    }
    if c.is_ascii_punctuation() {
        set(Punct);
    }
    bits
}

/// The C-locale class bits of the `int` argument `c` of an `is...` function: 0 outside
/// `0..=255` (`EOF` included).
pub(super) fn int_class_bits(c: i128) -> u16 {
    u8::try_from(c).map_or(0, class_bits)
}

/// `toupper`/`tolower` of the `int` `c`: ASCII letters change case, anything else is
/// returned as it is.
pub(super) fn change_case(c: i128, upper: bool) -> i128 {
    match u8::try_from(c) {
        Ok(b) if upper && b.is_ascii_lowercase() => b.to_ascii_uppercase() as i128,
        Ok(b) if !upper && b.is_ascii_uppercase() => b.to_ascii_lowercase() as i128,
        _ => c,
    }
}

/// Addresses of the C library's state in a module's image (0 where the module does not
/// use it).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LibcImage {
    /// The cells `__ctype_b_loc`, `__ctype_toupper_loc` and `__ctype_tolower_loc` return:
    /// each holds a pointer to entry 0 of its table (which starts at entry -128).
    pub ctype_cells: [u64; 3],
}

/// The C library state of a module's image could not be laid out.
#[derive(Debug, thiserror::Error)]
#[error("{name}: C library state: {fault:?}")]
pub(super) struct SetupError {
    /// The global or accessor whose memory failed.
    pub name: String,
    /// The memory fault (the memory limit, in practice).
    pub fault: Fault,
}

/// Fills the standard streams' external globals with their handles and lays out the ctype
/// tables the module's declarations ask for (see the module doc). Fails only when memory
/// runs out, naming what could not be allocated.
pub(super) fn init_image(
    module: &Module,
    mem: &mut Memory,
    bases: &[u64],
) -> Result<LibcImage, SetupError> {
    for (i, g) in module.globals.iter().enumerate() {
        let name = module.symbol_name(g.symbol);
        let fd = match name {
            "stdin" => 0,
            "stdout" => 1,
            "stderr" => 2,
            _ => continue,
        };
        if g.init.is_none() && g.size >= 8 && !g.constant {
            mem.init_write(bases[i], &stream_handle(fd).to_le_bytes())
                .map_err(|fault| SetupError {
                    name: name.to_string(),
                    fault,
                })?;
        }
    }
    let mut image = LibcImage::default();
    for (k, accessor) in [
        "__ctype_b_loc",
        "__ctype_toupper_loc",
        "__ctype_tolower_loc",
    ]
    .into_iter()
    .enumerate()
    {
        let Some(symbol) = module
            .symbol_by_name(accessor)
            .filter(|&s| matches!(module.symbols[s.index()].kind, SymbolKind::Extern(_)))
        else {
            continue;
        };
        // Entries -128..=255; class entries are `unsigned short`, case entries `int`.
        let table: Vec<u8> = (-128i32..=255)
            .flat_map(|c| {
                let b = u8::try_from(c).ok();
                match k {
                    0 => b.map_or(0, class_bits).to_le_bytes().to_vec(),
                    _ => {
                        let v = b.map_or(c as i128, |b| change_case(b as i128, k == 1)) as i32;
                        v.to_le_bytes().to_vec()
                    }
                }
            })
            .collect();
        let fail = |fault| SetupError {
            name: accessor.to_string(),
            fault,
        };
        let label = Label::Global(symbol);
        let base = mem
            .allocate(Arena::Global, table.len() as u64, 8, label, false)
            .map_err(fail)?;
        mem.init_write(base, &table).map_err(fail)?;
        let cell = mem
            .allocate(Arena::Global, 8, 8, label, false)
            .map_err(fail)?;
        let entry0 = base + 128 * (table.len() as u64 / 384);
        mem.init_write(cell, &entry0.to_le_bytes()).map_err(fail)?;
        image.ctype_cells[k] = cell;
    }
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_looks_up_to_its_row_and_unknown_names_to_none() {
        for r in EXTERNALS {
            let name = if r.name.ends_with('.') {
                format!("{}p0i8.i64", r.name)
            } else {
                r.name.to_string()
            };
            assert_eq!(lookup(&name), Some(r.ext), "{name}");
        }
        assert_eq!(lookup("fopen"), None);
        assert_eq!(lookup("llvm.memcpy"), None);
        let help = externals_help();
        assert!(
            help.contains("<string.h>") && help.contains(" strncpy "),
            "{help}"
        );
        assert!(help.contains("llvm.memcpy.*"), "{help}");
    }

    #[test]
    fn ctype_classes_follow_the_c_locale() {
        let is = |c: u8, k: Class| class_bits(c) & k as u16 != 0;
        assert!(is(b'7', Class::Digit) && is(b'7', Class::Alnum) && !is(b'7', Class::Alpha));
        assert!(is(0x0b, Class::Space) && !is(0x0b, Class::Print) && is(0x0b, Class::Cntrl));
        assert!(is(b' ', Class::Print) && !is(b' ', Class::Graph) && is(b' ', Class::Blank));
        assert!(is(b'_', Class::Punct) && is(b'f', Class::Xdigit) && !is(b'g', Class::Xdigit));
        assert_eq!(class_bits(200), 0);
        assert_eq!(int_class_bits(-1), 0);
        assert_eq!(change_case(b'a' as i128, true), b'A' as i128);
        assert_eq!(change_case(-1, true), -1);
        assert_eq!(change_case(b'[' as i128, false), b'[' as i128);
    }
}

//! `sscanf` (and glibc's `__isoc99_sscanf`, the name C99 code calls): reading numbers and
//! words out of a string, as cJSON does to check that a printed number reads back.
//!
//! Algorithm: [`scan`] walks the format as C11 7.21.6.2 describes: white space in the
//! format skips any white space of the input, an ordinary character must match, and a
//! conversion `%[*][width][hh|h|l|ll|j|z|t|L]c` (for `c` one of `d i u o x X f e g E G a s c
//! n %`) skips leading white space (except `c` and `n`), reads the longest prefix of at most
//! `width` characters that forms the item (integers as `strtol`/`strtoul` with base 10, 8,
//! 16 or, for `i`, the prefix's; floats as `strtod`, `inf`, `nan` and hex floats included), and stores
//! it unless `*` suppresses it. Scanning stops at the first item that does not match. The
//! result counts assigned items, or is `EOF` (-1) when the input ends before the first
//! conversion. Scan sets (`%[`) and `long double` (`L`) are refused, never guessed.
//!
//! The number readers serve `strtol`, `strtoul`, `strtoll`, `strtoull`, `atoi`, `atol`,
//! `atoll`, `strtod` and `atof` too ([`strtol`], [`strtod`]).
//!
//! Stores are computed, not performed: [`scan`] is a pure function returning which
//! argument receives which bytes (little-endian, the size the length modifier names), and
//! the interpreter writes them, so every store is checked like any other write.
//! Cost: O(format + input).

/// One store `sscanf` makes: `bytes` at the pointer in variadic argument `arg` (0 is the
/// first argument after the format).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    /// Index of the pointer among the arguments after the format.
    pub arg: usize,
    /// The bytes to write there.
    pub bytes: Vec<u8>,
}

/// A `sscanf` directive this module does not implement (the interpreter reports it as an
/// unsupported use of `sscanf`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// The format ends inside a conversion (`"%"`, `"%l"`).
    #[error("the format ends inside a conversion")]
    Truncated,
    /// A float conversion with a length modifier other than none or `l` (`%Lf`).
    #[error("float conversion with `{0}`")]
    FloatModifier(String),
    /// An integer conversion with an unknown length modifier.
    #[error("integer conversion with `{0}`")]
    IntegerModifier(String),
    /// A conversion character not implemented (the scan set `%[`, `%p`, ...).
    #[error("conversion `%{0}`")]
    Conversion(char),
}

/// What a scan did: the stores in order and `sscanf`'s result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanned {
    /// The stores, in argument order.
    pub stores: Vec<Store>,
    /// The number of assigned items, or -1 (`EOF`) for an input failure before the first.
    pub result: i32,
}

/// Scans `input` (without its NUL) by `format` (without its NUL); `Err` names a directive
/// this module does not implement.
pub fn scan(input: &[u8], format: &[u8]) -> Result<Scanned, ScanError> {
    let (mut at, mut f, mut arg) = (0usize, 0usize, 0usize);
    let mut out = Scanned {
        stores: Vec::new(),
        result: 0,
    };
    let mut converted_any = false;
    let skip_space = |at: &mut usize| {
        while *at < input.len() && input[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    while f < format.len() {
        let ch = format[f];
        if ch.is_ascii_whitespace() {
            skip_space(&mut at);
            f += 1;
            continue;
        }
        if ch != b'%' || format.get(f + 1) == Some(&b'%') {
            let step = if ch == b'%' { 2 } else { 1 };
            if ch == b'%' {
                skip_space(&mut at);
            }
            if input.get(at) != Some(&ch) {
                return Ok(finish(out, converted_any, at >= input.len()));
            }
            at += 1;
            f += step;
            continue;
        }
        f += 1;
        let suppress = format.get(f) == Some(&b'*');
        if suppress {
            f += 1;
        }
        let mut width = 0usize;
        while let Some(d) = format.get(f).filter(|d| d.is_ascii_digit()) {
            width = width.saturating_mul(10).saturating_add((d - b'0') as usize);
            f += 1;
        }
        let start = f;
        while format
            .get(f)
            .is_some_and(|c| matches!(c, b'h' | b'l' | b'j' | b'z' | b't' | b'L' | b'q'))
        {
            f += 1;
        }
        let modifier = &format[start..f];
        let Some(&conv) = format.get(f) else {
            return Err(ScanError::Truncated);
        };
        f += 1;
        let limit = if width == 0 { usize::MAX } else { width };
        if conv == b'n' {
            if !suppress {
                out.stores.push(Store {
                    arg,
                    bytes: int_bytes(at as u128, int_size(modifier)?),
                });
                arg += 1;
            }
            continue;
        }
        if conv != b'c' {
            skip_space(&mut at);
        }
        if at >= input.len() {
            return Ok(finish(out, converted_any, true));
        }
        let rest = &input[at..input.len().min(at.saturating_add(limit))];
        let (used, bytes) = match conv {
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
                let base = match conv {
                    b'o' => 8,
                    b'x' | b'X' => 16,
                    b'i' => 0,
                    _ => 10,
                };
                match read_int(rest, base) {
                    Some((used, v)) => (used, int_bytes(v as u128, int_size(modifier)?)),
                    None => return Ok(finish(out, converted_any, false)),
                }
            }
            b'f' | b'e' | b'g' | b'E' | b'G' | b'a' | b'F' | b'A' => {
                let hex = hex_float(rest);
                let used = hex.map_or_else(|| float_prefix(rest), |h| h.0);
                let text = std::str::from_utf8(&rest[..used]).unwrap_or("");
                let bytes = match (modifier, hex) {
                    (b"", Some((_, x))) => Some((x as f32).to_le_bytes().to_vec()),
                    (b"l", Some((_, x))) => Some(x.to_le_bytes().to_vec()),
                    (b"", None) => parse_float::<f32>(text).map(|x| x.to_le_bytes().to_vec()),
                    (b"l", None) => parse_float::<f64>(text).map(|x| x.to_le_bytes().to_vec()),
                    _ => return Err(ScanError::FloatModifier(show(modifier))),
                };
                match bytes {
                    Some(b) if used > 0 => (used, b),
                    _ => return Ok(finish(out, converted_any, false)),
                }
            }
            b's' => {
                let used = rest
                    .iter()
                    .position(|c| c.is_ascii_whitespace())
                    .unwrap_or(rest.len());
                let mut word = rest[..used].to_vec();
                word.push(0);
                (used, word)
            }
            b'c' => {
                let n = if width == 0 { 1 } else { width };
                if rest.len() < n {
                    return Ok(finish(out, converted_any, true));
                }
                (n, rest[..n].to_vec())
            }
            other => return Err(ScanError::Conversion(other as char)),
        };
        at += used;
        converted_any = true;
        if !suppress {
            out.stores.push(Store { arg, bytes });
            arg += 1;
            out.result += 1;
        }
    }
    Ok(out)
}

/// The result when scanning stops: `EOF` if the input ran out before any conversion.
fn finish(mut out: Scanned, converted_any: bool, input_ended: bool) -> Scanned {
    if input_ended && !converted_any {
        out.result = -1;
    }
    out
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The store size of an integer conversion with length `modifier`.
fn int_size(modifier: &[u8]) -> Result<usize, ScanError> {
    match modifier {
        b"hh" => Ok(1),
        b"h" => Ok(2),
        b"" => Ok(4),
        b"l" | b"ll" | b"q" | b"j" | b"z" | b"t" => Ok(8),
        m => Err(ScanError::IntegerModifier(show(m))),
    }
}

fn int_bytes(v: u128, size: usize) -> Vec<u8> {
    v.to_le_bytes()[..size].to_vec()
}

/// The longest prefix of `s` that `strtol(s, _, base)` reads (`base` 0: decided by a `0x`
/// or `0` prefix) and its value, wrapped to 64 bits; `None` if no digit is read.
fn read_int(s: &[u8], base: u32) -> Option<(usize, i128)> {
    let mut at = 0;
    let negative = matches!(s.first(), Some(b'-'));
    if matches!(s.first(), Some(b'-' | b'+')) {
        at += 1;
    }
    let hex_prefix = |at: usize| {
        s.get(at) == Some(&b'0')
            && matches!(s.get(at + 1), Some(b'x' | b'X'))
            && s.get(at + 2).is_some_and(|c| c.is_ascii_hexdigit())
    };
    let base = match base {
        0 if hex_prefix(at) => {
            at += 2;
            16
        }
        0 if s.get(at) == Some(&b'0') => 8,
        0 => 10,
        16 if hex_prefix(at) => {
            at += 2;
            16
        }
        b => b,
    };
    let (used, magnitude) = read_digits(s, at, base)?;
    let value = magnitude.unwrap_or(u64::MAX);
    let v = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    Some((used, v as i128))
}

/// Reads the digits of `base` at `s[at..]`: the end and the value, `None` as value when it
/// does not fit 64 bits; `None` if there is no digit (a lone `0x` reads its `0`).
fn read_digits(s: &[u8], at: usize, base: u32) -> Option<(usize, Option<u64>)> {
    let mut at = at;
    let digits_start = at;
    let mut value = Some(0u64);
    while let Some(d) = s.get(at).and_then(|c| (*c as char).to_digit(base)) {
        value = value
            .and_then(|v| v.checked_mul(base as u64))
            .and_then(|v| v.checked_add(d as u64));
        at += 1;
    }
    (at > digits_start).then_some((at, value))
}

/// `strtol` family (`signed`: `strtol`/`strtoll`, else `strtoul`/`strtoull`) on `s` with
/// `base` (0 or 2..=36): the bytes read (0 when no number, so `*endptr` is `s`) and the
/// 64-bit result, saturated as C says (`LONG_MAX`/`LONG_MIN`, `ULONG_MAX`; `strtoul` of a
/// negative number is its negation modulo 2^64). Leading white space is skipped.
pub fn strtol(s: &[u8], base: u32, signed: bool) -> (usize, u64) {
    let mut at = 0;
    while s.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    let negative = s.get(at) == Some(&b'-');
    if matches!(s.get(at), Some(b'-' | b'+')) {
        at += 1;
    }
    let hex = s.get(at) == Some(&b'0')
        && matches!(s.get(at + 1), Some(b'x' | b'X'))
        && s.get(at + 2).is_some_and(u8::is_ascii_hexdigit);
    let base = match base {
        0 if hex => 16,
        0 if s.get(at) == Some(&b'0') => 8,
        0 => 10,
        b => b,
    };
    if hex && base == 16 {
        at += 2;
    }
    let Some((end, magnitude)) = read_digits(s, at, base) else {
        return (0, 0);
    };
    let value = match (signed, magnitude) {
        (true, Some(m)) if negative && m <= 1 << 63 => m.wrapping_neg(),
        (true, Some(m)) if !negative && m < 1 << 63 => m,
        (true, _) if negative => 1 << 63,
        (true, _) => i64::MAX as u64,
        (false, Some(m)) if negative => m.wrapping_neg(),
        (false, Some(m)) => m,
        (false, None) => u64::MAX,
    };
    (end, value)
}

/// `strtod` on `s`: the bytes read (0 when no number) and the value. Leading white space is
/// skipped; hexadecimal floats (`0x1.8p3`) are read too.
pub fn strtod(s: &[u8]) -> (usize, f64) {
    let space = s.iter().take_while(|c| c.is_ascii_whitespace()).count();
    if let Some((used, x)) = hex_float(&s[space..]) {
        return (space + used, x);
    }
    let used = float_prefix(&s[space..]);
    let text = std::str::from_utf8(&s[space..space + used]).unwrap_or("");
    match parse_float::<f64>(text) {
        Some(x) if used > 0 => (space + used, x),
        _ => (0, 0.0),
    }
}

/// The length of the longest prefix of `s` that `strtod` reads as a decimal float
/// (`[+-]digits[.digits][e[+-]digits]`, `inf`, `infinity`, `nan`); 0 if none.
fn float_prefix(s: &[u8]) -> usize {
    let mut at = usize::from(matches!(s.first(), Some(b'-' | b'+')));
    let lower: Vec<u8> = s[at..].iter().take(8).map(u8::to_ascii_lowercase).collect();
    for word in [&b"infinity"[..], b"inf", b"nan"] {
        if lower.starts_with(word) {
            return at + word.len();
        }
    }
    let digits = |at: &mut usize| {
        let from = *at;
        while s.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at - from
    };
    let mut mantissa = digits(&mut at);
    if s.get(at) == Some(&b'.') {
        let mut after = at + 1;
        let fraction = digits(&mut after);
        if mantissa + fraction > 0 {
            at = after;
            mantissa += fraction;
        }
    }
    if mantissa == 0 {
        return 0;
    }
    if matches!(s.get(at), Some(b'e' | b'E')) {
        let mut exp = at + 1;
        if matches!(s.get(exp), Some(b'-' | b'+')) {
            exp += 1;
        }
        if digits(&mut exp) > 0 {
            at = exp;
        }
    }
    at
}

/// A hexadecimal float `[+-]0x HEX [. HEX] [p [+-] DEC]` at the start of `s`: the bytes read
/// and the value; `None` if `s` does not start with one. The first 30 hex digits are exact;
/// later ones only scale (a rounding difference past 120 bits of mantissa).
fn hex_float(s: &[u8]) -> Option<(usize, f64)> {
    let negative = s.first() == Some(&b'-');
    let mut at = usize::from(matches!(s.first(), Some(b'-' | b'+')));
    if s.get(at) != Some(&b'0') || !matches!(s.get(at + 1), Some(b'x' | b'X')) {
        return None;
    }
    at += 2;
    let (mut mantissa, mut exponent, mut digits, mut kept) = (0u128, 0i64, 0usize, 0usize);
    let mut fraction = false;
    loop {
        match s.get(at) {
            Some(b'.') if !fraction => fraction = true,
            Some(c) if c.is_ascii_hexdigit() => {
                digits += 1;
                if kept < 30 {
                    mantissa = mantissa * 16 + (*c as char).to_digit(16)? as u128;
                    kept += 1;
                    exponent -= 4 * i64::from(fraction);
                } else if !fraction {
                    exponent += 4;
                }
            }
            _ => break,
        }
        at += 1;
    }
    if digits == 0 {
        return None;
    }
    if matches!(s.get(at), Some(b'p' | b'P')) {
        let mut e = at + 1;
        let minus = s.get(e) == Some(&b'-');
        if matches!(s.get(e), Some(b'-' | b'+')) {
            e += 1;
        }
        let from = e;
        let mut value = 0i64;
        while let Some(d) = s.get(e).filter(|d| d.is_ascii_digit()) {
            value = value.saturating_mul(10).saturating_add((d - b'0') as i64);
            e += 1;
        }
        if e > from {
            exponent = exponent.saturating_add(if minus { -value } else { value });
            at = e;
        }
    }
    // Scale in two steps so neither power of two overflows before the product settles.
    let scale = exponent.clamp(-2200, 2200) as i32;
    let x = mantissa as f64 * 2f64.powi(scale / 2) * 2f64.powi(scale - scale / 2);
    Some((at, if negative { -x } else { x }))
}

/// Parses a [`float_prefix`] (Rust's parser rounds correctly, as glibc's `strtod` does).
fn parse_float<T: std::str::FromStr>(text: &str) -> Option<T> {
    let t = text.trim_start_matches('+');
    t.parse::<T>().ok().or_else(|| {
        // Rust spells the special values `inf`, `infinity`, `NaN` case-insensitively
        // except NaN's sign; a `-nan` reads as NaN.
        t.trim_start_matches('-').parse::<T>().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(s: &Scanned) -> Vec<i64> {
        s.stores
            .iter()
            .map(|st| {
                let mut b = [0u8; 8];
                b[..st.bytes.len()].copy_from_slice(&st.bytes);
                let v = i64::from_le_bytes(b);
                let shift = 64 - 8 * st.bytes.len() as u32;
                (v << shift) >> shift
            })
            .collect()
    }

    #[test]
    fn integers_words_and_counts() {
        let s = scan(b"  42 -7 0x1f 017 rest", b"%d %i %x %o %s").unwrap();
        assert_eq!(s.result, 5);
        assert_eq!(
            ints(&Scanned {
                stores: s.stores[..4].to_vec(),
                ..s.clone()
            }),
            [42, -7, 31, 15]
        );
        assert_eq!(s.stores[4].bytes, b"rest\0");
        let s = scan(b"12abc", b"%2d%n%*s%n").unwrap();
        assert_eq!((s.result, ints(&s)), (1, vec![12, 2, 5]));
        let s = scan(b"key=99", b"key=%ld").unwrap();
        assert_eq!(s.stores[0].bytes, 99u64.to_le_bytes());
        assert_eq!(scan(b"x", b"%d").unwrap().result, 0);
        assert_eq!(scan(b"   ", b"%d").unwrap().result, -1);
        assert_eq!(scan(b"", b"%d").unwrap().result, -1);
        assert_eq!(scan(b"5 ", b"%d %d").unwrap().result, 1);
        assert_eq!(scan(b"ab", b"%c").unwrap().stores[0].bytes, b"a");
        assert!(scan(b"1", b"%[0-9]").is_err());
        assert!(scan(b"1", b"%Lf").is_err());
    }

    #[test]
    fn floats_read_back_as_strtod_reads_them() {
        for x in [0.1, -2.5e-300, 1e308, 123456.789, 5e-324, f64::INFINITY] {
            let text = format!("{x:e}");
            let s = scan(text.as_bytes(), b"%lg").unwrap();
            assert_eq!(s.result, 1, "{text}");
            assert_eq!(s.stores[0].bytes, x.to_le_bytes(), "{text}");
        }
        let s = scan(b"1.5e3xyz 2.25", b"%lf%*s %f").unwrap();
        assert_eq!(s.stores[0].bytes, 1500.0f64.to_le_bytes());
        assert_eq!(s.stores[1].bytes, 2.25f32.to_le_bytes());
        let nan = scan(b"-nan", b"%lg").unwrap();
        assert!(f64::from_le_bytes(nan.stores[0].bytes[..8].try_into().unwrap()).is_nan());
        assert_eq!(scan(b".e5", b"%lg").unwrap().result, 0);
        assert_eq!(float_prefix(b"1.e5"), 4);
        let s = scan(b"0x1.8p1", b"%lf").unwrap();
        assert_eq!(s.stores[0].bytes, 3.0f64.to_le_bytes());
        assert_eq!(float_prefix(b"7e+"), 1);
    }

    #[test]
    fn strtol_and_strtod_against_c() {
        assert_eq!(strtol(b"  -42xyz", 10, true), (5, (-42i64) as u64));
        assert_eq!(strtol(b"0x1fg", 0, true), (4, 31));
        assert_eq!(strtol(b"0x", 16, true), (1, 0));
        assert_eq!(strtol(b"0777", 0, true), (4, 0o777));
        assert_eq!(strtol(b"zz", 36, true), (2, 35 * 36 + 35));
        assert_eq!(strtol(b"abc", 10, true), (0, 0));
        assert_eq!(
            strtol(b"99999999999999999999", 10, true),
            (20, i64::MAX as u64)
        );
        assert_eq!(strtol(b"-99999999999999999999", 10, true), (21, 1 << 63));
        assert_eq!(strtol(b"-9223372036854775808", 10, true), (20, 1 << 63));
        assert_eq!(strtol(b"99999999999999999999", 10, false), (20, u64::MAX));
        assert_eq!(strtol(b"-1", 10, false), (2, u64::MAX));
        assert_eq!(strtod(b" 1.5e3x"), (6, 1500.0));
        assert_eq!(strtod(b"-inf"), (4, f64::NEG_INFINITY));
        assert_eq!(strtod(b"x1"), (0, 0.0));
        assert_eq!(strtod(b"0x1fg"), (4, 31.0));
        assert_eq!(strtod(b"-0x1.8p3"), (8, -12.0));
        assert_eq!(strtod(b"0x.8p-1z"), (7, 0.25));
        assert_eq!(strtod(b"0x1p"), (3, 1.0));
    }
}

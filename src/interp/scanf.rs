//! `sscanf` (and glibc's `__isoc99_sscanf`, the name C99 code calls): reading numbers and
//! words out of a string, as cJSON does to check that a printed number reads back.
//!
//! Algorithm: [`scan`] walks the format as C11 7.21.6.2 describes: white space in the
//! format skips any white space of the input, an ordinary character must match, and a
//! conversion `%[*][width][hh|h|l|ll|j|z|t|L]c` (for `c` one of `d i u o x X f e g E G a s c
//! n %`) skips leading white space (except `c` and `n`), reads the longest prefix of at most
//! `width` characters that forms the item (integers as `strtol`/`strtoul` with base 10, 8,
//! 16 or, for `i`, the prefix's; floats as `strtod`, `inf` and `nan` included), and stores
//! it unless `*` suppresses it. Scanning stops at the first item that does not match. The
//! result counts assigned items, or is `EOF` (-1) when the input ends before the first
//! conversion. Scan sets (`%[`) and `long double` (`L`) are refused, never guessed.
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
pub fn scan(input: &[u8], format: &[u8]) -> Result<Scanned, String> {
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
            return Err("the format ends inside a conversion".to_string());
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
                let used = float_prefix(rest);
                let text = std::str::from_utf8(&rest[..used]).unwrap_or("");
                let bytes = match modifier {
                    b"" => parse_float::<f32>(text).map(|x| x.to_le_bytes().to_vec()),
                    b"l" => parse_float::<f64>(text).map(|x| x.to_le_bytes().to_vec()),
                    _ => return Err(format!("float conversion with `{}`", show(modifier))),
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
            other => return Err(format!("conversion `%{}`", other as char)),
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
fn int_size(modifier: &[u8]) -> Result<usize, String> {
    match modifier {
        b"hh" => Ok(1),
        b"h" => Ok(2),
        b"" => Ok(4),
        b"l" | b"ll" | b"q" | b"j" | b"z" | b"t" => Ok(8),
        m => Err(format!("integer conversion with `{}`", show(m))),
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
    let digits_start = at;
    let mut value: u64 = 0;
    while let Some(d) = s.get(at).and_then(|c| (*c as char).to_digit(base)) {
        value = value.wrapping_mul(base as u64).wrapping_add(d as u64);
        at += 1;
    }
    if at == digits_start {
        return None;
    }
    let v = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    Some((at, v as i128))
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
        assert_eq!(float_prefix(b"7e+"), 1);
    }
}

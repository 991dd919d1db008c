//! C `printf` formatting for the built-in `printf`.
//!
//! Supports conversions `d i u x X o c s f F e E g G p %` with flags `- + space # 0`, field
//! width and precision (digits or `*` taken from the arguments) and length modifiers
//! `hh h l ll z j t L` (the value is converted to the modifier's width before printing, as
//! C's argument promotion and conversion would). Variadic arguments are read in order from
//! the call's extra operands: integer conversions take any integer (or pointer) operand,
//! float conversions an `f64` (or `f32`, promoted) or an `f80` (`long double`, with or
//! without `L`: the operand's type decides), `%s` and `%p` a pointer. A missing or
//! ill-typed argument and an unknown conversion (including `%n`) are errors. Floats use
//! Rust's exact decimal conversion, `f80`s their exact decimal expansion
//! ([`crate::ir::fp80::decimal`]); both round half to even like glibc; infinities and
//! NaNs print as `inf`/`nan` (`-nan` for a negative NaN).
//!
//! Limits: formatting is given the output budget left under the interpreter's output limit.
//! Each conversion's least length (its field width; its precision for integers and for
//! `%f`/`%e`, and for `%#g`) is checked against the budget before anything is allocated, and
//! its bytes after, so a width of 2147483647 is an output-limit error, not 2 GB of memory.
//! Float digits past [`FLOAT_DIGITS`] are exact zeros for every `f64` (at most 767
//! significant and 1074 fraction digits), so larger precisions format that many digits and
//! append zeros. The returned count follows C: a width or precision above `INT_MAX`, or a
//! total above `INT_MAX`, stops formatting and `printf` returns -1 (glibc's `EOVERFLOW`) with
//! the output produced before that conversion. Cost: linear in the output.

use super::memory::{Fault, Memory};
use super::Val;

/// Why formatting failed: an invalid use of `printf`, a memory fault reading a `%s`, or
/// output beyond the budget.
pub(super) enum PrintfError {
    /// Invalid format or arguments (description).
    Bad(String),
    /// A fault reading a string argument.
    Fault(Fault),
    /// The output would exceed the budget: at least this many bytes were requested in all.
    OutputLimit(u64),
}

/// What `printf` produced.
pub(super) struct Printed {
    /// The bytes to write.
    pub bytes: Vec<u8>,
    /// A count above `INT_MAX` stopped formatting: `printf` returns -1.
    pub overflow: bool,
}

/// Fraction or significant digits formatted for a float; past these every digit of an `f64`
/// is zero.
pub(super) const FLOAT_DIGITS: usize = 1100;

/// The same for an `f80`: at most 16,445 fraction digits and fewer significant ones.
const F80_DIGITS: usize = 16_500;

/// `INT_MAX`: the largest count, width or precision C's `printf` can return or accept.
const INT_MAX: u64 = i32::MAX as u64;

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// Formats `fmt` with `args` (the operands after the format string), producing at most
/// `budget` bytes (see the module doc).
pub(super) fn format_printf(
    mem: &Memory,
    fmt: &[u8],
    args: &[Val],
    budget: u64,
) -> Result<Printed, PrintfError> {
    let mut out = Vec::new();
    let overflowed = |out: Vec<u8>| {
        Ok(Printed {
            bytes: out,
            overflow: true,
        })
    };
    let mut args = Args {
        vals: args,
        next: 0,
    };
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            if out.len() as u64 >= budget {
                return Err(PrintfError::OutputLimit(out.len() as u64 + 1));
            }
            out.push(c);
            continue;
        }
        let Some((spec, bits)) = conversion_spec(fmt, &mut i, &mut args)? else {
            return overflowed(out);
        };
        let Some(&conv) = fmt.get(i) else {
            return Err(PrintfError::Bad("format ends inside a conversion".into()));
        };
        i += 1;
        // The least length of this conversion, checked before anything is allocated.
        let precision_bound = match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'f' | b'F' | b'e' | b'E' => {
                spec.precision.unwrap_or(0)
            }
            b'g' | b'G' if spec.alt => spec.precision.unwrap_or(0).saturating_sub(1),
            _ => 0,
        };
        let least = out.len() as u64 + spec.width.max(precision_bound) as u64;
        if least > INT_MAX {
            return overflowed(out);
        }
        if least > budget {
            return Err(PrintfError::OutputLimit(least));
        }
        if conv == b'%' {
            out.push(b'%');
            continue;
        }
        let body = convert(mem, spec, conv, bits, &mut args)?;
        let total = (out.len() + body.len()) as u64;
        if total > INT_MAX {
            return overflowed(out);
        }
        if total > budget {
            return Err(PrintfError::OutputLimit(total));
        }
        out.extend_from_slice(&body);
    }
    Ok(Printed {
        bytes: out,
        overflow: false,
    })
}

/// The arguments of a `printf` call, consumed in order by the conversions.
struct Args<'v> {
    vals: &'v [Val],
    next: usize,
}

impl Args<'_> {
    /// The next argument, for the conversion `what`; missing is an error.
    fn take(&mut self, what: &str) -> Result<Val, PrintfError> {
        let v = self.vals.get(self.next).copied().ok_or_else(|| {
            PrintfError::Bad(format!("missing argument {} for {what}", self.next + 1))
        })?;
        self.next += 1;
        Ok(v)
    }
}

/// Reads the flags, width, precision (either may be `*`, taking an argument) and length
/// modifier of the conversion at `fmt[*i..]`, just after its `%`, and moves `*i` past them.
/// Returns the spec and the integer width in bits (32 for `int`), or `None` when the width
/// or precision exceeds `INT_MAX` (C's `EOVERFLOW`).
fn conversion_spec(
    fmt: &[u8],
    i: &mut usize,
    args: &mut Args<'_>,
) -> Result<Option<(Spec, u32)>, PrintfError> {
    let mut spec = Spec::default();
    while let Some(&f) = fmt.get(*i) {
        match f {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            _ => break,
        }
        *i += 1;
    }
    let width = if fmt.get(*i) == Some(&b'*') {
        *i += 1;
        let w = args.take("`*` width")?.as_i128() as i32;
        if w < 0 {
            spec.left = true;
        }
        w.unsigned_abs() as u64
    } else {
        digits(fmt, i)
    };
    let mut precision = None;
    if fmt.get(*i) == Some(&b'.') {
        *i += 1;
        if fmt.get(*i) == Some(&b'*') {
            *i += 1;
            let p = args.take("`*` precision")?.as_i128() as i32;
            precision = (p >= 0).then_some(p as u64);
        } else {
            precision = Some(digits(fmt, i));
        }
    }
    if width > INT_MAX || precision.is_some_and(|p| p > INT_MAX) {
        return Ok(None);
    }
    spec.width = width as usize;
    spec.precision = precision.map(|p| p as usize);
    // Length modifier: the integer width in bits (0 = int).
    let mut bits = 32;
    loop {
        match fmt.get(*i) {
            Some(b'h') if fmt.get(*i + 1) == Some(&b'h') => {
                bits = 8;
                *i += 2;
            }
            Some(b'h') => {
                bits = 16;
                *i += 1;
            }
            Some(b'l') if fmt.get(*i + 1) == Some(&b'l') => {
                bits = 64;
                *i += 2;
            }
            Some(b'l' | b'z' | b'j' | b't' | b'L' | b'q') => {
                bits = 64;
                *i += 1;
            }
            _ => break,
        }
    }
    Ok(Some((spec, bits)))
}

/// The text of one conversion `conv` (any but `%%`) of `spec` with integer width `bits`,
/// taking its argument from `args`.
fn convert(
    mem: &Memory,
    spec: Spec,
    conv: u8,
    bits: u32,
    args: &mut Args<'_>,
) -> Result<Vec<u8>, PrintfError> {
    let bad = |s: String| PrintfError::Bad(s);
    Ok(match conv {
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
            let v = args.take("integer conversion")?;
            if matches!(v, Val::Float { .. }) {
                return Err(bad(format!("%{} given {v}", conv as char)));
            }
            let raw = v.as_i128() as u64; // narrower operands are sign-extended, as C promotion does
            let signed = match bits {
                8 => raw as i8 as i64,
                16 => raw as i16 as i64,
                32 => raw as i32 as i64,
                _ => raw as i64,
            };
            let unsigned = if bits == 64 {
                raw
            } else {
                raw & ((1u64 << bits) - 1)
            };
            format_int(spec, conv, signed, unsigned).into_bytes()
        }
        b'c' => {
            let v = args.take("%c")?;
            pad(spec, String::new(), vec![v.as_u128() as u8], false)
        }
        b's' => {
            let v = args.take("%s")?;
            let Val::Ptr(p) = v else {
                return Err(bad(format!("%s given {v}")));
            };
            let mut s = if p == 0 {
                b"(null)".to_vec()
            } else {
                mem.c_string(p).map_err(PrintfError::Fault)?.to_vec()
            };
            if let Some(n) = spec.precision {
                s.truncate(n);
            }
            pad(
                Spec {
                    zero: false,
                    ..spec
                },
                String::new(),
                s,
                false,
            )
        }
        b'p' => {
            let v = args.take("%p")?;
            let Val::Ptr(p) = v else {
                return Err(bad(format!("%p given {v}")));
            };
            let s = if p == 0 {
                "(nil)".to_string()
            } else {
                format!("{p:#x}")
            };
            pad(
                Spec {
                    zero: false,
                    ..spec
                },
                String::new(),
                s.into_bytes(),
                false,
            )
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
            let v = args.take("float conversion")?;
            let x = match v {
                Val::Float {
                    ty: crate::ir::Type::F80,
                    bits,
                } => Num::F80(bits),
                _ => match v.as_f64() {
                    Some(x) => Num::F64(x),
                    None => return Err(bad(format!("%{} given {v}", conv as char))),
                },
            };
            format_float(spec, conv, x)
        }
        other => return Err(bad(format!("unsupported conversion %{}", other as char))),
    })
}

/// A decimal field width or precision (saturating; anything above `INT_MAX` overflows).
fn digits(fmt: &[u8], i: &mut usize) -> u64 {
    let mut n: u64 = 0;
    while let Some(d) = fmt.get(*i).filter(|c| c.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add((d - b'0') as u64);
        *i += 1;
    }
    n
}

/// `body` with `zeros` more zero digits: before the exponent of `e` notation, else at the end.
fn zero_extend(mut body: String, zeros: usize) -> String {
    if zeros > 0 {
        let at = body.find(['e', 'E']).unwrap_or(body.len());
        body.insert_str(at, &"0".repeat(zeros));
    }
    body
}

/// Pads `prefix ++ body` to the field width: left-justified, zero-filled after the prefix
/// (when `zero_ok` and the `0` flag), or right-justified with spaces.
fn pad(spec: Spec, prefix: String, body: Vec<u8>, zero_ok: bool) -> Vec<u8> {
    let len = prefix.len() + body.len();
    let fill = spec.width.saturating_sub(len);
    let mut out = Vec::with_capacity(len + fill);
    if spec.left {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(&body);
        out.resize(len + fill, b' ');
    } else if spec.zero && zero_ok {
        out.extend_from_slice(prefix.as_bytes());
        out.resize(prefix.len() + fill, b'0');
        out.extend_from_slice(&body);
    } else {
        out.resize(fill, b' ');
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(&body);
    }
    out
}

fn format_int(spec: Spec, conv: u8, signed: i64, unsigned: u64) -> String {
    let (neg, mut digits) = match conv {
        b'd' | b'i' => (signed < 0, signed.unsigned_abs().to_string()),
        b'u' => (false, unsigned.to_string()),
        b'x' => (false, format!("{unsigned:x}")),
        b'X' => (false, format!("{unsigned:X}")),
        _ => (false, format!("{unsigned:o}")),
    };
    if let Some(p) = spec.precision {
        if p == 0 && digits == "0" {
            digits.clear();
        }
        if digits.len() < p {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
    }
    let mut prefix = String::new();
    if neg {
        prefix.push('-');
    } else if matches!(conv, b'd' | b'i') && spec.plus {
        prefix.push('+');
    } else if matches!(conv, b'd' | b'i') && spec.space {
        prefix.push(' ');
    }
    if spec.alt && unsigned != 0 {
        match conv {
            b'x' => prefix.push_str("0x"),
            b'X' => prefix.push_str("0X"),
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            _ => {}
        }
    }
    if spec.alt && conv == b'o' && digits.is_empty() {
        digits.push('0');
    }
    let out = pad(spec, prefix, digits.into_bytes(), spec.precision.is_none());
    String::from_utf8(out).unwrap_or_default()
}

/// A float argument: an `f64` (an `f32` is promoted) or an `f80` (`long double`, `%Lf`),
/// formatted from its exact decimal value either way.
#[derive(Clone, Copy)]
enum Num {
    F64(f64),
    F80(u128),
}

impl Num {
    fn is_sign_negative(self) -> bool {
        match self {
            Num::F64(x) => x.is_sign_negative(),
            Num::F80(b) => (b >> 79) & 1 == 1,
        }
    }

    /// `None` if finite, else whether it is a NaN.
    fn non_finite(self) -> Option<bool> {
        match self {
            Num::F64(x) if !x.is_finite() => Some(x.is_nan()),
            Num::F80(b) if crate::ir::fp80::decimal(b).is_none() => {
                Some(crate::ir::fp80::is_nan(b))
            }
            _ => None,
        }
    }

    /// Past this many fraction or significant digits every digit of the value is zero.
    fn digit_cap(self) -> usize {
        match self {
            Num::F64(_) => FLOAT_DIGITS,
            Num::F80(_) => F80_DIGITS,
        }
    }

    /// `%.{prec}f` of the absolute value.
    fn fixed(self, prec: usize) -> String {
        match self {
            Num::F64(x) => {
                let a = x.abs();
                format!("{a:.prec$}")
            }
            Num::F80(b) => {
                let (_, d, point) = crate::ir::fp80::decimal(b).unwrap_or_default();
                let (d, point) = round_half_even(&d, point, point + prec as i64);
                let mut s = String::new();
                let at = |i: i64| {
                    (b'0'
                        + if i >= 0 && (i as usize) < d.len() {
                            d[i as usize]
                        } else {
                            0
                        }) as char
                };
                if point <= 0 {
                    s.push('0');
                } else {
                    (0..point).for_each(|i| s.push(at(i)));
                }
                if prec > 0 {
                    s.push('.');
                    (0..prec as i64).for_each(|j| s.push(at(point + j)));
                }
                s
            }
        }
    }

    /// `%e` digits of the absolute value with `prec` fraction digits: mantissa text and
    /// exponent.
    fn exp_parts(self, prec: usize) -> (String, i32) {
        match self {
            Num::F64(x) => {
                let a = x.abs();
                let s = format!("{a:.prec$e}");
                match s.split_once('e') {
                    Some((m, e)) => (m.to_string(), e.parse().unwrap_or(0)),
                    None => (s, 0),
                }
            }
            Num::F80(b) => {
                let (_, d, point) = crate::ir::fp80::decimal(b).unwrap_or_default();
                if d.is_empty() {
                    let mut m = "0".to_string();
                    if prec > 0 {
                        m.push('.');
                        m.push_str(&"0".repeat(prec));
                    }
                    return (m, 0);
                }
                let (d, point) = round_half_even(&d, point, prec as i64 + 1);
                let digit = |i: usize| (b'0' + d.get(i).copied().unwrap_or(0)) as char;
                let mut m = String::new();
                m.push(digit(0));
                if prec > 0 {
                    m.push('.');
                    (1..=prec).for_each(|i| m.push(digit(i)));
                }
                (m, (point - 1) as i32)
            }
        }
    }
}

/// Rounds the decimal `0.d1d2... * 10^point` (`digits` without leading zeros) to its first
/// `keep` digits, ties to even (glibc's rounding in the default rounding mode). Returns the
/// kept digits and the new point (one more when the rounding carries out, as 9.99 to 10.0).
fn round_half_even(digits: &[u8], point: i64, keep: i64) -> (Vec<u8>, i64) {
    if keep >= digits.len() as i64 {
        return (digits.to_vec(), point);
    }
    if keep < 0 {
        return (Vec::new(), point);
    }
    let k = keep as usize;
    let mut kept = digits[..k].to_vec();
    let rest = &digits[k..];
    let last_odd = kept.last().is_some_and(|d| d % 2 == 1);
    let up = rest[0] > 5 || (rest[0] == 5 && (rest[1..].iter().any(|&d| d != 0) || last_odd));
    if !up {
        return (kept, point);
    }
    for d in kept.iter_mut().rev() {
        if *d == 9 {
            *d = 0;
        } else {
            *d += 1;
            return (kept, point);
        }
    }
    // Every kept digit was 9 (or none was kept): the value is 10^point.
    kept.insert(0, 1);
    kept.pop_if(|_| k > 0);
    (kept, point + 1)
}

fn exp_text(mantissa: &str, e: i32, upper: bool) -> String {
    let sign = if e < 0 { '-' } else { '+' };
    let ech = if upper { 'E' } else { 'e' };
    format!("{mantissa}{ech}{sign}{:02}", e.unsigned_abs())
}

fn strip_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

fn format_float(spec: Spec, conv: u8, x: Num) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let neg = x.is_sign_negative();
    let mut prefix = String::new();
    if neg {
        prefix.push('-');
    } else if spec.plus {
        prefix.push('+');
    } else if spec.space {
        prefix.push(' ');
    }
    if let Some(nan) = x.non_finite() {
        let s = if nan { "nan" } else { "inf" };
        let s = if upper {
            s.to_uppercase()
        } else {
            s.to_string()
        };
        return pad(spec, prefix, s.into_bytes(), false);
    }
    let a = x;
    let prec = spec.precision.unwrap_or(6);
    // Digits past the cap are zeros: format that many and append the rest.
    let cap = x.digit_cap();
    let capped = prec.min(cap);
    let mut body = match conv {
        b'f' | b'F' => {
            let mut s = zero_extend(a.fixed(capped), prec - capped);
            if spec.alt && prec == 0 {
                s.push('.');
            }
            s
        }
        b'e' | b'E' => {
            let (mut m, e) = a.exp_parts(capped);
            if spec.alt && prec == 0 {
                m.push('.');
            }
            exp_text(&zero_extend(m, prec - capped), e, upper)
        }
        _ => {
            let p = prec.max(1);
            let p_capped = p.min(cap);
            let (_, e) = a.exp_parts(p_capped - 1);
            if (e as i64) < p as i64 && e >= -4 {
                let fp = (p as i64 - 1 - e as i64) as usize;
                let fp_capped = fp.min(cap);
                let mut s = a.fixed(fp_capped);
                if spec.alt {
                    s = zero_extend(s, fp - fp_capped);
                } else {
                    strip_zeros(&mut s);
                }
                s
            } else {
                let (mut m, e) = a.exp_parts(p_capped - 1);
                if spec.alt {
                    m = zero_extend(m, p - p_capped);
                } else {
                    strip_zeros(&mut m);
                }
                exp_text(&m, e, upper)
            }
        }
    };
    if upper {
        body = body.to_uppercase();
    }
    pad(spec, prefix, body.into_bytes(), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Type;

    fn fmt(f: &str, args: &[Val]) -> String {
        let mem = Memory::new(1 << 20);
        match format_printf(&mem, f.as_bytes(), args, 1 << 20) {
            Ok(p) if p.overflow => format!("OVERFLOW {}", String::from_utf8(p.bytes).unwrap()),
            Ok(p) => String::from_utf8(p.bytes).unwrap(),
            Err(PrintfError::Bad(s)) => format!("ERR {s}"),
            Err(PrintfError::Fault(f)) => format!("FAULT {f:?}"),
            Err(PrintfError::OutputLimit(n)) => format!("LIMIT {n}"),
        }
    }

    fn i32v(x: i32) -> Val {
        Val::int(Type::I32, x as i128)
    }

    #[test]
    fn integers() {
        assert_eq!(
            fmt(
                "%d|%5d|%-5d|%05d|%+d|% d",
                &[i32v(42), i32v(-42), i32v(7), i32v(-7), i32v(3), i32v(3)]
            ),
            "42|  -42|7    |-0007|+3| 3"
        );
        assert_eq!(
            fmt(
                "%u %x %X %o %#x %#o",
                &[i32v(-1), i32v(255), i32v(255), i32v(8), i32v(255), i32v(8)]
            ),
            "4294967295 ff FF 10 0xff 010"
        );
        let big = Val::int(Type::I64, -1);
        assert_eq!(
            fmt("%ld %lu %lld %zx", &[big, big, big, big]),
            "-1 18446744073709551615 -1 ffffffffffffffff"
        );
        assert_eq!(fmt("%hhd %hu", &[i32v(255), i32v(-1)]), "-1 65535");
        assert_eq!(
            fmt("%.3d|%.0d|%8.3d|%%", &[i32v(5), i32v(0), i32v(-5)]),
            "005||    -005|%"
        );
        assert_eq!(
            fmt(
                "%*d|%-*d|%.*d",
                &[i32v(4), i32v(1), i32v(3), i32v(2), i32v(3), i32v(9)]
            ),
            "   1|2  |009"
        );
        assert_eq!(fmt("%c%c", &[i32v(b'o' as i32), i32v(b'k' as i32)]), "ok");
        assert_eq!(fmt("%d", &[Val::int(Type::I8, -3)]), "-3");
    }

    #[test]
    fn floats() {
        let v = Val::f64;
        assert_eq!(
            fmt(
                "%f|%.2f|%8.3f|%-8.1f|%+.0f",
                &[v(1.5), v(0.125), v(-1.23456), v(2.25), v(2.5)]
            ),
            "1.500000|0.12|  -1.235|2.2     |+2"
        );
        assert_eq!(
            fmt("%e|%.2E|%e", &[v(12345.678), v(0.000123), v(0.0)]),
            "1.234568e+04|1.23E-04|0.000000e+00"
        );
        assert_eq!(
            fmt(
                "%g|%g|%g|%g|%g",
                &[v(100000.0), v(1000000.0), v(0.0001), v(0.00001), v(1.5)]
            ),
            "100000|1e+06|0.0001|1e-05|1.5"
        );
        assert_eq!(
            fmt("%.3g|%#g|%G", &[v(1.23456), v(1.0), v(1e-10)]),
            "1.23|1.00000|1E-10"
        );
        assert_eq!(
            fmt(
                "%f|%F|%5.1f|%f",
                &[
                    v(f64::INFINITY),
                    v(f64::NAN),
                    v(f64::NEG_INFINITY),
                    v(-f64::NAN)
                ]
            ),
            "inf|NAN| -inf|-nan"
        );
        assert_eq!(
            fmt("%010.2f|%e", &[v(-1.5), v(1e100)]),
            "-000001.50|1.000000e+100"
        );
        assert_eq!(fmt("%f", &[Val::f32(0.5)]), "0.500000");
    }

    #[test]
    fn long_doubles_print_exactly_like_glibc() {
        let l = |b: u128| Val::uint(Type::F80, b);
        let e = |x: f64| l(crate::ir::fp80::from_f64(x));
        let third = l(0x3FFD_AAAA_AAAA_AAAA_AAAB);
        // Expected texts are glibc's for the same bits (tests/c/long_double.c under lli).
        assert_eq!(
            fmt("%.20Lf %Lf %Le %Lg", &[third, third, third, third]),
            "0.33333333333333333334 0.333333 3.333333e-01 0.333333"
        );
        assert_eq!(
            fmt(
                "%.3Lf %.0Lf %.0Lf %.0Lf %.1Lf",
                &[
                    l(0x4000_8008_3126_E978_D4FE),
                    e(0.5),
                    e(1.5),
                    e(2.5),
                    e(0.25)
                ]
            ),
            "2.001 0 2 2 0.2"
        );
        assert_eq!(
            fmt(
                "%#.0Lf %+Lf %12.4Lf|%-12.4Lf|%012.4Lf",
                &[e(3.0), third, e(-1.0 / 3.0), third, e(-1.0 / 3.0)]
            ),
            "3. +0.333333      -0.3333|0.3333      |-000000.3333"
        );
        let max_u64 = l(crate::ir::fp80::from_int(u64::MAX as u128, false));
        assert_eq!(fmt("%Lf", &[max_u64]), "18446744073709551615.000000");
        assert_eq!(
            fmt("%Lg %Lg %.0Le %#Lg", &[e(1e6), e(1e-5), e(9.5), e(2.0)]),
            "1e+06 1e-05 1e+01 2.00000"
        );
        assert_eq!(fmt("%Le", &[e(0.0)]), "0.000000e+00");
        assert_eq!(fmt("%.2Lf", &[e(9.999)]), "10.00");
        assert_eq!(fmt("%.1Le", &[e(9.96)]), "1.0e+01");
        assert_eq!(fmt("%.0Lf", &[e(0.4)]), "0");
        assert_eq!(fmt("%.0Lf", &[e(0.6)]), "1");
        assert_eq!(fmt("%.1Lf", &[e(0.04)]), "0.0");
        let inf = l(crate::ir::fp80::parse("-inf").unwrap());
        assert_eq!(fmt("%Lf %LE", &[inf, inf]), "-inf -INF");
        // The smallest denormal: 2^-16445 has 11,374 significant digits, the last a 5.
        assert_eq!(fmt("%.3Le", &[l(1)]), "3.645e-4951");
    }

    #[test]
    fn errors_and_pointers() {
        assert!(fmt("%d", &[]).starts_with("ERR"));
        assert!(fmt("%d", &[Val::f64(1.0)]).starts_with("ERR"));
        assert!(fmt("%f", &[i32v(1)]).starts_with("ERR"));
        assert!(fmt("%n", &[Val::Ptr(0)]).starts_with("ERR"));
        assert!(fmt("%", &[]).starts_with("ERR"));
        assert_eq!(
            fmt("%s|%p|%p", &[Val::Ptr(0), Val::Ptr(0), Val::Ptr(0x1000)]),
            "(null)|(nil)|0x1000"
        );
        assert!(fmt("%s", &[Val::Ptr(0x9999_0000)]).starts_with("FAULT"));
        assert_eq!(fmt("%x", &[Val::Ptr(0xab)]), "ab");
    }

    #[test]
    fn widths_and_precisions_are_bounded_by_the_budget() {
        // Past the budget: an error before anything is allocated, with the least size.
        assert_eq!(fmt("%*d", &[i32v(i32::MAX), i32v(1)]), "LIMIT 2147483647");
        assert_eq!(fmt("%999999999d", &[i32v(1)]), "LIMIT 999999999");
        assert_eq!(fmt("%.999999999f", &[Val::f64(1.0)]), "LIMIT 999999999");
        assert_eq!(fmt("%.2000000x", &[i32v(1)]), "LIMIT 2000000");
        // Above INT_MAX: C's printf fails with EOVERFLOW, keeping the output before it.
        assert_eq!(fmt("ab%2147483648d", &[i32v(1)]), "OVERFLOW ab");
        assert_eq!(fmt("ab%*d", &[i32v(i32::MAX), i32v(1)]), "OVERFLOW ab");
        assert_eq!(fmt("ab%*d", &[i32v(i32::MIN), i32v(1)]), "OVERFLOW ab");
        assert_eq!(fmt("%.4294967296d", &[i32v(1)]), "OVERFLOW ");
        // Within the budget a width is exact (it used to be clamped to 1 MiB).
        let mem = Memory::new(1 << 20);
        let p = format_printf(&mem, b"%2000000d|", &[i32v(7)], 4 << 20)
            .ok()
            .unwrap();
        assert_eq!(p.bytes.len(), 2_000_001);
        assert!(p.bytes.ends_with(b" 7|") && !p.overflow);
        // A %g precision past the formatted digits only adds zeros with `#`, none without
        // (0.5 with 5000 significant digits: "0." and 5000 fraction digits).
        assert_eq!(fmt("%.5000g", &[Val::f64(0.5)]), "0.5");
        let g = fmt("%#.5000g", &[Val::f64(0.5)]);
        assert_eq!(g.len(), 5002);
        assert!(g.starts_with("0.5000") && g.ends_with('0'));
        let e = fmt("%.3000e", &[Val::f64(1.5)]);
        assert_eq!(e.len(), 2 + 3000 + 4);
        assert!(e.starts_with("1.5000") && e.ends_with("0e+00"));
        let f = fmt("%.3000f", &[Val::f64(0.1)]);
        assert_eq!(f.len(), 3002);
        assert!(f.starts_with("0.1000000000000000055511151231257827"));
    }
}

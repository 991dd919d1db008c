//! Exact arithmetic on `f80` (LLVM's `x86_fp80`, C's `long double` on x86-64).
//!
//! Values are carried as their 80-bit pattern in the low bits of a `u128` (bit 79 the sign,
//! bits 64-78 the biased exponent, bits 0-63 the significand with its explicit integer bit),
//! exactly as they sit in memory, little-endian. Every operation goes through
//! `rustc_apfloat`'s `X87DoubleExtended`, the Rust port of LLVM's APFloat, so the interpreter
//! and SCCP's folding compute what LLVM's constant folder computes: IEEE 754 arithmetic with
//! a 64-bit significand, round to nearest, ties to even. This module is shared by the
//! interpreter ([`crate::interp`]), constant folding ([`crate::sccp`]), `.sir` text and LLVM
//! import and export, so they agree bit for bit.
//!
//! Also here: the exact decimal expansion of a value ([`decimal`]), for `printf`'s `%Lf`,
//! `%Le` and `%Lg`, and a shortest round-tripping decimal text form ([`display`] and
//! [`parse`]). Every function is O(1) except [`decimal`], which is linear in the number of
//! decimal digits of the value (at most about 16,500).

use super::BinaryOp;
use rustc_apfloat::ieee::{Double, Single, X87DoubleExtended};
use rustc_apfloat::{Float, FloatConvert, Round, Status};
use std::cmp::Ordering;

/// The APFloat type of `f80`.
type X87 = X87DoubleExtended;

/// Mask of the 80 bits of an `f80`.
pub const MASK: u128 = (1u128 << 80) - 1;

fn x(bits: u128) -> X87 {
    X87::from_bits(bits & MASK)
}

/// `a op b` for a float operator (`fadd fsub fmul fdiv frem`; `frem` is C's `fmodl`).
/// `None` for an integer operator.
pub fn binary(op: BinaryOp, a: u128, b: u128) -> Option<u128> {
    let (a, b) = (x(a), x(b));
    let r = match op {
        BinaryOp::FAdd => (a + b).value,
        BinaryOp::FSub => (a - b).value,
        BinaryOp::FMul => (a * b).value,
        BinaryOp::FDiv => (a / b).value,
        BinaryOp::FRem => a.c_fmod(b).value,
        _ => return None,
    };
    Some(r.to_bits())
}

/// The order of `a` and `b`; `None` when either is a NaN. `-0.0 == +0.0`.
pub fn compare(a: u128, b: u128) -> Option<Ordering> {
    x(a).partial_cmp(&x(b))
}

/// True for a NaN.
pub fn is_nan(bits: u128) -> bool {
    x(bits).is_nan()
}

/// The `f64` nearest to the value (ties to even), as `fptrunc` computes it.
pub fn to_f64(bits: u128) -> f64 {
    let r: Double = x(bits).convert(&mut false).value;
    f64::from_bits(r.to_bits() as u64)
}

/// The `f32` nearest to the value (ties to even), as `fptrunc` computes it.
pub fn to_f32(bits: u128) -> f32 {
    let r: Single = x(bits).convert(&mut false).value;
    f32::from_bits(r.to_bits() as u32)
}

/// The exact `f80` of an `f64` (`fpext`).
pub fn from_f64(v: f64) -> u128 {
    let d = Double::from_bits(v.to_bits() as u128);
    let r: X87 = d.convert(&mut false).value;
    r.to_bits()
}

/// The exact `f80` of an `f32` (`fpext`).
pub fn from_f32(v: f32) -> u128 {
    let s = Single::from_bits(v.to_bits() as u128);
    let r: X87 = s.convert(&mut false).value;
    r.to_bits()
}

/// The integer of `width` bits (1 to 128) the value truncates to, as `fptosi` (`signed`) or
/// `fptoui` compute it, as a bit pattern masked to the width; `None` for a NaN or a value
/// whose truncation does not fit.
pub fn to_int(bits: u128, width: u32, signed: bool) -> Option<u128> {
    let v = x(bits);
    let w = width as usize;
    let mask = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    let r = if signed {
        let r = v.to_i128(w);
        (r.status & Status::INVALID_OP)
            .is_empty()
            .then_some(r.value as u128)
    } else {
        let r = v.to_u128(w);
        (r.status & Status::INVALID_OP)
            .is_empty()
            .then_some(r.value)
    };
    r.map(|b| b & mask)
}

/// The `f80` nearest to the integer `value` (`sitofp` for a sign-extended value, `uitofp`
/// for a zero-extended one).
pub fn from_int(value: u128, signed: bool) -> u128 {
    let r = if signed {
        X87::from_i128(value as i128)
    } else {
        X87::from_u128(value)
    };
    r.value.to_bits()
}

/// Parses decimal text (`1.5`, `-2e-4000`, `inf`, `-inf`, `nan`), rounding to nearest;
/// `None` if it is not a number.
pub fn parse(text: &str) -> Option<u128> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let v = match body {
        "inf" | "Inf" | "infinity" => X87::INFINITY,
        "nan" | "NaN" => X87::NAN,
        _ => {
            if body.is_empty()
                || !body
                    .bytes()
                    .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+'))
                || !body.as_bytes()[0].is_ascii_digit() && body.as_bytes()[0] != b'.'
            {
                return None;
            }
            X87::from_str_r(body, Round::NearestTiesToEven).ok()?.value
        }
    };
    Some(if neg { -v } else { v }.to_bits())
}

/// The shortest decimal text that [`parse`] reads back as the same value (`inf`, `-inf`; a
/// NaN gives `nan`, so callers that must keep a NaN's payload print its bits instead).
pub fn display(bits: u128) -> String {
    let v = x(bits);
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v.is_negative() { "-inf" } else { "inf" }.into();
    }
    // 21 significant digits always round-trip a 64-bit significand.
    let mut s = (1..=21usize)
        .map(|p| format!("{v:.p$}").replace('E', "e"))
        .find(|s| parse(s) == Some(bits & MASK))
        .unwrap_or_else(|| format!("{v:.21}").replace('E', "e"));
    // Like an `f64` in `.sir` text, an integral value keeps a fraction (`-5.0`, not `-5`).
    if !s.contains(['.', 'e']) {
        s.push_str(".0");
    }
    s
}

/// The exact value of a finite `f80` as decimal digits: `(negative, digits, point)` with the
/// value `0.d1d2d3... * 10^point`, `digits` without leading or trailing zeros (empty for
/// zero). `None` for an infinity or a NaN.
pub fn decimal(bits: u128) -> Option<(bool, Vec<u8>, i64)> {
    let bits = bits & MASK;
    let neg = bits >> 79 == 1;
    let e = ((bits >> 64) & 0x7fff) as i64;
    let m = bits as u64;
    if e == 0x7fff {
        return None;
    }
    if m == 0 {
        return Some((neg, Vec::new(), 0));
    }
    // value = m * 2^k (a zero exponent field is the denormal scale 2^(1 - 16383)).
    let k = e.max(1) - 16383 - 63;
    // Little-endian base-1e9 limbs of m * 5^(-k) or m * 2^k; the decimal point sits -k
    // digits from the right when k < 0.
    const BASE: u64 = 1_000_000_000;
    let mut limbs = vec![m % BASE, (m / BASE) % BASE, m / BASE / BASE];
    let mul = |limbs: &mut Vec<u64>, f: u64| {
        let mut carry = 0u64;
        for l in limbs.iter_mut() {
            let t = *l * f + carry;
            *l = t % BASE;
            carry = t / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
    };
    let (mut n, factor, step) = if k < 0 {
        ((-k) as u64, 5u64, 13u32)
    } else {
        (k as u64, 2u64, 29u32)
    };
    while n > 0 {
        let s = n.min(step as u64) as u32;
        mul(&mut limbs, factor.pow(s));
        n -= s as u64;
    }
    let mut digits = Vec::with_capacity(limbs.len() * 9);
    for l in limbs.iter().rev() {
        digits.extend(format!("{l:09}").bytes().map(|c| c - b'0'));
    }
    let int_digits = digits.len() as i64 + k.min(0);
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let lead = digits.iter().take_while(|&&d| d == 0).count();
    digits.drain(..lead);
    Some((neg, digits, int_digits - lead as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: f64) -> (bool, String, i64) {
        let (n, d, p) = decimal(from_f64(v)).unwrap();
        (n, d.iter().map(|d| (b'0' + d) as char).collect(), p)
    }

    #[test]
    fn decimal_is_exact() {
        assert_eq!(dec(1.5), (false, "15".into(), 1));
        assert_eq!(dec(-0.125), (true, "125".into(), 0));
        assert_eq!(dec(1024.0), (false, "1024".into(), 4));
        assert_eq!(dec(0.0), (false, String::new(), 0));
        assert_eq!(dec(1e-3).1.len(), 58);
        assert_eq!(dec(1e-3).2, -2);
        // The largest finite f80 has 4933 integer digits.
        let max = (0x7ffeu128 << 64) | u64::MAX as u128;
        let (_, d, p) = decimal(max).unwrap();
        assert_eq!(p, 4933);
        assert!(d.starts_with(&[1, 1, 8, 9, 7, 3, 1, 4, 9]));
        // The smallest denormal, 2^-16445: 16445 fraction digits, the last a 5.
        let (_, d, p) = decimal(1).unwrap();
        assert_eq!(d.last(), Some(&5));
        assert_eq!(d.len() as i64 - p, 16445);
    }

    #[test]
    fn arithmetic_is_extended() {
        let one = from_f64(1.0);
        let three = from_f64(3.0);
        let q = binary(BinaryOp::FDiv, one, three).unwrap();
        // 1/3 in f80 is not 1/3 in f64, but rounds to it.
        assert_ne!(q, from_f64(1.0 / 3.0));
        assert_eq!(to_f64(q), 1.0 / 3.0);
        assert_eq!(q, 0x3FFD_AAAA_AAAA_AAAA_AAAB);
        // 2^64 - 1 is exact in f80, not in f64.
        let big = from_int(u64::MAX as u128, false);
        assert_eq!(to_int(big, 64, false), Some(u64::MAX as u128));
        assert_eq!(to_int(big, 64, true), None);
        assert_eq!(to_int(from_f64(-2.5), 8, true), Some(0xfe));
        assert_eq!(to_int(from_f64(-0.5), 8, false), Some(0));
        assert_eq!(to_int(from_f64(-1.0), 8, false), None);
        assert_eq!(
            compare(from_f64(-0.0), from_f64(0.0)),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(parse("nan").unwrap(), one), None);
        assert_eq!(
            binary(BinaryOp::FRem, from_f64(-7.5), from_f64(2.0)),
            Some(from_f64(-1.5))
        );
    }

    #[test]
    fn text_round_trips() {
        for b in [
            from_f64(0.1),
            from_f64(-1.5),
            0x3FFD_AAAA_AAAA_AAAA_AAAB,
            1,
            (0x7ffeu128 << 64) | u64::MAX as u128,
            from_f64(0.0),
            from_f64(-0.0),
            from_f64(f64::INFINITY),
        ] {
            let s = display(b);
            assert_eq!(parse(&s), Some(b), "{s}");
        }
        assert_eq!(display(from_f64(0.5)), "0.5");
        assert_eq!(parse("x"), None);
        assert_eq!(parse(""), None);
    }
}

//! Fuzz check for the LLVM `.ll` importer ([`crate::llvm::import`]).
//!
//! Oracle: on any input (arbitrary bytes, or mutations of valid clang output) import
//! returns `Ok` or `Err` without panicking or hanging, in both normal and strict mode; when
//! it succeeds and [`crate::llvm::Imported::verify`] accepts it, the whole module verifies,
//! and [`crate::llvm::export()`] runs to completion on it. [`accepts`] is the same pipeline
//! as the CLI's; `tests/llvm_malformed.rs` feeds what it accepts to `opt -passes=verify`. [`mutate`] derives inputs from a valid file by byte flips, deletions, duplicated
//! or swapped lines and spliced tokens, which reach far deeper into the parser than random
//! bytes. The unit tests mutate clang output with debug metadata and metadata strings that
//! span lines too. Complexity: linear in the input per check.

use crate::llvm::{export, import, ImportOptions};

/// Imports `data` (as lossy UTF-8) in normal and strict mode; skips invalid functions,
/// verifies and exports what imports. Panics if any of them panics or the module still
/// fails verification.
pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    for strict in [false, true] {
        if let Ok(imp) = import(
            &src,
            "fuzz.ll",
            &ImportOptions {
                strict,
                ..Default::default()
            },
        ) {
            if imp.verify().is_ok() {
                let errs = crate::verify::verify_module(&imp.module);
                assert!(errs.is_empty(), "verifier errors after import: {errs:?}");
                let _ = export(&imp.module, &imp.context);
            }
        }
    }
}

/// What the CLI does with `.ll` input: import (skipping functions with unmodelled
/// constructs), verify, export. `Ok(exported text)` if the input is accepted, `Err(located
/// message)` if it is rejected as malformed.
///
/// # Errors
/// The import or verifier error, as `file:line:col: message`.
pub fn accepts(src: &str) -> Result<String, String> {
    let imp = import(src, "fuzz.ll", &ImportOptions::default()).map_err(|e| e.to_string())?;
    imp.verify().map_err(|e| e.to_string())?;
    Ok(export(&imp.module, &imp.context))
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; zero is remapped).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next pseudo-random number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` if `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

const SPLICE: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "*",
    ",",
    "=",
    "%",
    "@",
    "!",
    "...",
    "\"",
    "c\"",
    "i32",
    "i8*",
    "i128",
    "x86_fp80",
    "label",
    "%1",
    "%struct.S",
    "0x3FF0000000000000",
    "-1",
    "99999999999999999999999999999999999999999",
    "getelementptr",
    "bitcast",
    "phi",
    "call",
    "asm",
    "define",
    "declare",
    "}\n",
    "\n",
    "type opaque",
    "zeroinitializer",
    "undef",
    "null",
    "<4 x i32>",
    "<2 x i8*>",
    "<0 x float>",
    "<i32 1, i32 poison>",
    "<2 x i1> <i1 true, i1 undef>",
    "extractelement",
    "insertelement",
    "shufflevector",
    "<2 x i32> <i32 7, i32 undef>",
    // Metadata and debug syntax: attachments, call arguments, specialized nodes, strings
    // that span lines.
    ", !dbg !",
    "metadata !",
    "!{!\"",
    "\"\n",
    "!DILocation(line: ",
    "distinct !",
    "!99",
];

/// One mutation of `src` chosen by `rng`.
pub fn mutate(src: &str, rng: &mut Rng) -> Vec<u8> {
    let mut b = src.as_bytes().to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        if b.is_empty() {
            b.extend_from_slice(b"define");
        }
        match rng.below(6) {
            0 => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(b.len());
                let n = 1 + rng.below(16.min(b.len() - i));
                b.drain(i..i + n);
            }
            2 => {
                let i = rng.below(b.len() + 1);
                let s = SPLICE[rng.below(SPLICE.len())];
                b.splice(i..i, s.bytes());
            }
            3 => {
                // Duplicate a line.
                let lines: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
                let k = rng.below(lines.len());
                let mut out = Vec::with_capacity(b.len() + 80);
                for (j, l) in lines.iter().enumerate() {
                    out.extend_from_slice(l);
                    out.push(b'\n');
                    if j == k {
                        out.extend_from_slice(l);
                        out.push(b'\n');
                    }
                }
                b = out;
            }
            4 => {
                // Swap two lines.
                let mut lines: Vec<Vec<u8>> =
                    b.split(|&c| c == b'\n').map(|l| l.to_vec()).collect();
                let (x, y) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(x, y);
                b = lines.join(&b'\n');
            }
            _ => {
                // Copy a random span elsewhere.
                let i = rng.below(b.len());
                let n = rng.below(64.min(b.len() - i));
                let span = b[i..i + n].to_vec();
                let j = rng.below(b.len() + 1);
                b.splice(j..j, span);
            }
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: [&str; 5] = [
        include_str!("../../tests/fixtures/ll/floats.ll"),
        include_str!("../../tests/fixtures/ll/misc.ll"),
        include_str!("../../tests/fixtures/ll/vectors.ll"),
        // Debug metadata, metadata call arguments, volatile atomics, vectors (issue 21).
        include_str!("../../tests/fixtures/syntax/new_syntax.ll"),
        // Metadata strings that span lines.
        include_str!("../../tests/fixtures/syntax/debug_multiline.ll"),
    ];

    #[test]
    fn mutated_fixtures_never_panic() {
        let mut rng = Rng::new(0x5EED);
        for i in 0..1000 {
            let src = FIXTURES[i % FIXTURES.len()];
            let data = mutate(src, &mut rng);
            check(&data);
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = Rng::new(7);
        for _ in 0..300 {
            let n = rng.below(400);
            const ALPHABET: &[u8] = b"%@!{}()[]<>*=,.:;\"c0123456789xi abdefnlprstuvy\n-#$\\";
            let data: Vec<u8> = (0..n)
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            check(&data);
        }
        check(b"");
        check(&[0xFF, 0xFE, b'%', b'"']);
    }
}

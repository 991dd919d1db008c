//! Oracle checks for the `.sir` text format (lexer, parser, printer).
//!
//! [`check`] runs the parser on arbitrary bytes (read as lossy UTF-8): it must return, never
//! panic or hang, and when the input parses, printing is a fixed point of print∘parse:
//! `print(parse(print(m))) == print(m)`. [`check_mutation`] derives a mutated input from a
//! valid example (byte deletions, insertions, replacements, duplicated ranges, spliced
//! tokens, copied and deleted lines, all chosen by `data`) and runs [`check`] on it, which
//! reaches much deeper into the grammar than random bytes. Complexity: linear in the input
//! per check.

use crate::text::parser::{parse_module_with_budget, Budget};
use crate::text::{parse_module, print_module};

/// Parses `data`; if it parses, asserts that print∘parse is a fixed point on the printed
/// text. Panics only when that property fails (a bug), never on bad input.
pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let Ok(m) = parse_module(&src, "fuzz.sir") else {
        return;
    };
    let printed = print_module(&m);
    // The printed text may be shorter than the source (comments, spacing): keep the
    // source's budget so that sparse indices accepted once are accepted again.
    let budget = Budget::for_len(src.len()).max(Budget::for_len(printed.len()));
    let again = match parse_module_with_budget(&printed, "printed.sir", budget) {
        Ok(m) => m,
        Err(e) => {
            panic!("printed text does not parse: {e}\n--- source\n{src}\n--- printed\n{printed}")
        }
    };
    let reprinted = print_module(&again);
    assert_eq!(
        printed, reprinted,
        "print(parse(print(m))) differs from print(m)\n--- source\n{src}"
    );
}

/// Tokens spliced into mutated inputs: the grammar's punctuation, keywords and edge cases.
const TOKENS: &[&str] = &[
    "v0",
    "v1",
    "v7",
    "block0",
    "block1",
    "block9",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    "=",
    "*",
    "+",
    "-",
    "->",
    "...",
    "@main",
    "@\"q\\22\"",
    "\"",
    "\\",
    "\"x\\0A\"",
    "0x",
    "0xFFFFFFFF",
    "-0.0",
    "1e308",
    "-inf",
    "nan",
    "null",
    "undef",
    "true",
    "false",
    "i1",
    "i8",
    "i128",
    "f32",
    "ptr",
    "void",
    "phi i32 [block0: 1]",
    "ret",
    "ret i32 0",
    "jump block1",
    "unreachable",
    "blockaddress(block0)",
    "99999999999999999999999999999999999999999",
    "v4000000000",
    "block4000000000",
    "; c\n",
    "\n",
    " ",
    "internal ",
    "fixed 1",
    "volatile",
    "phase ssa",
    "<",
    ">",
    "<4 x i32>",
    "<0 x i8>",
    "<2 x <2 x i8>>",
    "<4294967296 x i1>",
    "<i32 1, i32 undef>",
    "zeroinitializer",
    "extractelement <4 x i32> v0, i32 9",
    "insertelement <2 x f64> v1, f64 1.0, i64 v0",
    "shufflevector <2 x i8> v0, v0, <3 x i32> <i32 3, i32 undef, i32 0>",
    "shufflevector <2 x i8> v0, v0, <1 x i32> <i32 v1>",
];

/// Applies byte-level mutations chosen by `data` to `seed_text` and runs [`check`].
pub fn check_mutation(seed_text: &str, data: &[u8]) {
    check(&mutate(seed_text, data));
}

/// The mutated bytes of [`check_mutation`].
fn mutate(seed_text: &str, data: &[u8]) -> Vec<u8> {
    mutate_with(seed_text, data, TOKENS)
}

/// Byte-level mutations of `seed_text` chosen by `data`, three bytes per step: delete,
/// insert or replace a byte, duplicate a range, splice one of `tokens`, change a digit,
/// copy or delete a whole line. Shared by the text-format checks (`.sir` here, machine text
/// in [`super::machine_text`]); `tokens` must not be empty.
pub(crate) fn mutate_with(seed_text: &str, data: &[u8], tokens: &[&str]) -> Vec<u8> {
    let mut bytes = seed_text.as_bytes().to_vec();
    for step in data.chunks(3) {
        let [op, a, b] = [
            step[0],
            *step.get(1).unwrap_or(&0),
            *step.get(2).unwrap_or(&0),
        ];
        let len = bytes.len();
        let pos = if len == 0 {
            0
        } else {
            (a as usize * 257 + b as usize * 31) % (len + 1)
        };
        match op % 8 {
            0 if pos < len => {
                bytes.remove(pos);
            }
            1 => bytes.insert(pos, b),
            2 if pos < len => bytes[pos] = b,
            3 if pos < len => {
                let end = (pos + 1 + b as usize % 16).min(len);
                let chunk = bytes[pos..end].to_vec();
                bytes.splice(pos..pos, chunk);
            }
            4 => {
                let tok = tokens[b as usize % tokens.len()].as_bytes();
                bytes.splice(pos..pos, tok.iter().copied());
            }
            5 => {
                // Change the first digit at or after `pos`: exercises names, bounds, literals.
                if let Some(i) = (pos..len).find(|&i| bytes[i].is_ascii_digit()) {
                    bytes[i] = b'0' + b % 10;
                }
            }
            6 | 7 => {
                // Copy (6) or delete (7) the whole line around `pos`: moves definitions,
                // uses, labels and terminators as units.
                let start = bytes[..pos.min(len)]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |i| i + 1);
                let end = bytes[start..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(len, |i| start + i + 1);
                let line = bytes[start..end].to_vec();
                bytes.drain(start..end);
                if op % 8 == 6 {
                    let rest = bytes.len();
                    let to = if rest == 0 {
                        0
                    } else {
                        (b as usize * 131) % rest
                    };
                    let to = bytes[..to]
                        .iter()
                        .rposition(|&c| c == b'\n')
                        .map_or(0, |i| i + 1);
                    bytes.splice(to..to, line.iter().copied());
                    bytes.splice(start.min(bytes.len())..start.min(bytes.len()), line);
                }
            }
            _ => {}
        }
    }
    bytes
}

/// The example programs, used as mutation seeds.
pub const SEEDS: &[&str] = &[
    include_str!("../../examples/sir/factorial.sir"),
    include_str!("../../examples/sir/array_sum.sir"),
    include_str!("../../examples/sir/fibonacci.sir"),
    include_str!("../../examples/sir/bytecode_vm.sir"),
    include_str!("../../examples/sir/newton_sqrt.sir"),
    include_str!("../../examples/sir/hello_printf.sir"),
    include_str!("../../examples/sir/loop_entry.sir"),
    include_str!("../../examples/sir/ssa_sum.sir"),
    include_str!("../../tests/filetests/text/vectors.sir"),
];

/// Deterministic runs of a text-format check, shared by the `.sir` and machine-text tests.
#[cfg(test)]
pub(crate) mod runs {
    use crate::fuzzing::llvm_import::Rng;

    /// Runs `check` on `runs` inputs, each `seeds[i % len]` mutated by [`super::mutate_with`]
    /// with `tokens` and 1 to `max_steps` steps drawn from `seed`; returns how many of the
    /// mutated inputs `parses` accepts.
    pub(crate) fn mutated(
        seeds: &[&str],
        tokens: &[&str],
        (runs, max_steps, seed): (usize, usize, u64),
        parses: impl Fn(&str) -> bool,
        check: impl Fn(&[u8]),
    ) -> u32 {
        let (mut rng, mut data, mut parsed) = (Rng::new(seed), Vec::new(), 0);
        for i in 0..runs {
            data.clear();
            let n = 3 * (1 + rng.below(max_steps));
            data.extend((0..n).map(|_| rng.next_u64() as u8));
            let bytes = super::mutate_with(seeds[i % seeds.len()], &data, tokens);
            parsed += parses(&String::from_utf8_lossy(&bytes)) as u32;
            check(&bytes);
        }
        parsed
    }

    /// Runs `check` on 300 random byte strings of up to 63 bytes.
    pub(crate) fn random_bytes(check: impl Fn(&[u8])) {
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        for _ in 0..300 {
            let n = rng.below(64);
            let data: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            check(&data);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_fixed_points() {
        for s in SEEDS {
            check(s.as_bytes());
        }
    }

    #[test]
    fn mutated_examples_never_panic() {
        let parses = |t: &str| parse_module(t, "m").is_ok();
        let parsed = runs::mutated(
            SEEDS,
            TOKENS,
            (2000, 3, 0x9E37_79B9_7F4A_7C15),
            parses,
            check,
        );
        // The mutations must leave a fair share of inputs valid, or the check is shallow.
        eprintln!("{parsed} of 2000 mutated inputs parse");
        assert!(parsed >= 100, "only {parsed} of 2000 mutated inputs parse");
    }

    /// A longer run: `cargo test --lib soak_text -- --ignored`.
    #[test]
    #[ignore]
    fn soak_text() {
        runs::mutated(
            SEEDS,
            TOKENS,
            (200_000, 10, 0x1234_5678_9ABC_DEF1),
            |_| true,
            check,
        );
    }

    #[test]
    fn random_bytes_never_panic() {
        runs::random_bytes(check);
    }
}

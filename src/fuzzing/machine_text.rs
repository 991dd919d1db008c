//! Oracle checks for the machine-text format ([`crate::machine::text`]): its parser and
//! printer, and the machine verifier on whatever parses.
//!
//! What: [`check`] parses arbitrary bytes (read as lossy UTF-8) as machine text: the parser
//! must return a located error or functions, never panic or hang. When it parses, printing
//! is a fixed point of print∘parse (`print(parse(print(fs))) == print(fs)`), and the
//! machine verifier runs to completion on every function (hand-written or mutated text
//! reaches shapes lowering never makes: missing terminators, unknown blocks, vregs of the
//! wrong class). [`check_mutation`] derives its input from one of the [`SEEDS`] (the
//! `.mir` filetests) with the `.sir` check's byte mutations and machine-text tokens, which
//! reaches much deeper into the grammar than random bytes; the fuzz target `machine_text`
//! runs it with the first byte choosing the seed.
//!
//! Complexity: linear in the input per check.

use crate::machine::text::{parse_functions, print_functions};
use crate::machine::verify::verify;

/// Parses `data`; if it parses, asserts that print∘parse is a fixed point on the printed
/// text and runs the machine verifier on each function. Panics only when that property
/// fails (a bug), never on bad input.
pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let Ok(functions) = parse_functions(&src, "fuzz.mir") else {
        return;
    };
    let printed = print_functions(&functions);
    let again = match parse_functions(&printed, "printed.mir") {
        Ok(fs) => fs,
        Err(e) => {
            panic!("printed text does not parse: {e}\n--- source\n{src}\n--- printed\n{printed}")
        }
    };
    let reprinted = print_functions(&again);
    assert_eq!(
        printed, reprinted,
        "print(parse(print(fs))) differs from print(fs)\n--- source\n{src}"
    );
    for f in &functions {
        let _ = verify(f);
    }
}

/// Tokens spliced into mutated inputs: the grammar's keywords, constraint forms and edge
/// cases (out-of-range registers, indices and immediates, wrong classes).
const TOKENS: &[&str] = &[
    "v0i",
    "v1f",
    "v2v",
    "v4294967296i",
    ", use v0i:reg",
    ", def v9i:any",
    "use@early v3i:stack",
    "def@late v3f:fixed(xmm40)",
    ":fixed(r99)",
    ":reuse(7)",
    ":limit(0)",
    "#-9223372036854775808",
    "#99999999999999999999",
    "block7(v1i)",
    "block0:\n",
    "block2(v5i, v6f):\n",
    "jump block1()\n",
    "ret\n",
    "}\n",
    "function @g target aarch64 {\n",
    "function @h target riscv {\n",
    "frame 8/3 16/16\n",
    "remat v0i: movi #1\n",
    "clobbers(r0 f1 q31 x30)",
    "call @__multi3",
    "call #4294967295",
];

/// Applies byte-level mutations chosen by `data` to `seed_text` and runs [`check`].
pub fn check_mutation(seed_text: &str, data: &[u8]) {
    check(&super::text::mutate_with(seed_text, data, TOKENS));
}

/// The fuzz target: the first byte chooses the seed, the rest drives the mutations.
pub fn check_seeded(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    check_mutation(SEEDS[first as usize % SEEDS.len()], rest);
}

/// The machine-text filetests, used as mutation seeds (comments and expectations
/// included: the parser skips them).
pub const SEEDS: &[&str] = &[
    include_str!("../../tests/machine/alloc_fixed.mir"),
    include_str!("../../tests/machine/alloc_pressure.mir"),
    include_str!("../../tests/machine/alloc_remat.mir"),
    include_str!("../../tests/machine/alloc_second_chance.mir"),
    include_str!("../../tests/machine/blockparam.mir"),
    include_str!("../../tests/machine/clobber.mir"),
    include_str!("../../tests/machine/critical_edge.mir"),
    include_str!("../../tests/machine/fixed.mir"),
    include_str!("../../tests/machine/reuse.mir"),
    include_str!("../../tests/machine/verify_errors.mir"),
];

#[cfg(test)]
mod tests {
    use super::super::text::runs;
    use super::*;

    #[test]
    fn seeds_parse_and_are_fixed_points() {
        for s in SEEDS {
            assert!(
                parse_functions(s, "seed.mir").is_ok(),
                "a seed does not parse"
            );
            check(s.as_bytes());
        }
    }

    #[test]
    fn mutated_seeds_never_panic() {
        let parses = |t: &str| parse_functions(t, "m").is_ok();
        let parsed = runs::mutated(
            SEEDS,
            TOKENS,
            (2000, 3, 0x9E37_79B9_7F4A_7C15),
            parses,
            check,
        );
        // The mutations must leave a fair share of inputs valid, or the check is shallow;
        // and break a fair share, or it never reaches the error paths.
        eprintln!("{parsed} of 2000 mutated machine-text inputs parse");
        assert!(
            (100..1900).contains(&parsed),
            "{parsed} of 2000 mutated inputs parse"
        );
    }

    #[test]
    fn random_bytes_never_panic() {
        runs::random_bytes(check);
        runs::random_bytes(check_seeded);
    }

    /// A longer run: `cargo test --lib soak_machine_text -- --ignored`.
    #[test]
    #[ignore]
    fn soak_machine_text() {
        runs::mutated(
            SEEDS,
            TOKENS,
            (200_000, 10, 0x1234_5678_9ABC_DEF1),
            |_| true,
            check,
        );
    }
}

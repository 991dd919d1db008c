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
    check(&mutate(seed_text, data));
}

/// The fuzz target: the first byte chooses the seed, the rest drives the mutations.
pub fn check_seeded(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    check_mutation(SEEDS[first as usize % SEEDS.len()], rest);
}

fn mutate(seed_text: &str, data: &[u8]) -> Vec<u8> {
    super::text::mutate_with(seed_text, data, TOKENS)
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
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

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
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let (mut data, mut parsed) = (Vec::new(), 0);
        for i in 0..2000 {
            data.clear();
            let n = 3 + xorshift(&mut state) as usize % 7;
            data.extend((0..n).map(|_| xorshift(&mut state) as u8));
            let bytes = mutate(SEEDS[i % SEEDS.len()], &data);
            parsed += parse_functions(&String::from_utf8_lossy(&bytes), "m").is_ok() as u32;
            check(&bytes);
        }
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
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..300 {
            let n = xorshift(&mut state) as usize % 64;
            let data: Vec<u8> = (0..n).map(|_| xorshift(&mut state) as u8).collect();
            check(&data);
            check_seeded(&data);
        }
    }

    /// A longer run: `cargo test --lib soak_machine_text -- --ignored`.
    #[test]
    #[ignore]
    fn soak_machine_text() {
        let mut state = 0x1234_5678_9ABC_DEF1u64;
        for i in 0..200_000 {
            let n = 3 + xorshift(&mut state) as usize % 30;
            let data: Vec<u8> = (0..n).map(|_| xorshift(&mut state) as u8).collect();
            check_mutation(SEEDS[i % SEEDS.len()], &data);
        }
    }
}

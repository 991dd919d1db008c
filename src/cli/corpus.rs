//! The built-in benchmark corpus: the example programs embedded in the binary, plus
//! deterministic generated functions.

use crate::ir::{Module, ModuleBuilder};

/// The embedded example programs as (name, text).
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "array_sum",
        include_str!("../../examples/sir/array_sum.sir"),
    ),
    (
        "bytecode_vm",
        include_str!("../../examples/sir/bytecode_vm.sir"),
    ),
    (
        "factorial",
        include_str!("../../examples/sir/factorial.sir"),
    ),
    (
        "fibonacci",
        include_str!("../../examples/sir/fibonacci.sir"),
    ),
    (
        "hello_printf",
        include_str!("../../examples/sir/hello_printf.sir"),
    ),
    (
        "loop_entry",
        include_str!("../../examples/sir/loop_entry.sir"),
    ),
    (
        "newton_sqrt",
        include_str!("../../examples/sir/newton_sqrt.sir"),
    ),
    ("ssa_sum", include_str!("../../examples/sir/ssa_sum.sir")),
];

/// A module of `n` generated functions (seeded, so identical on every run).
#[cfg(feature = "fuzzing")]
pub fn generated(n: usize) -> Module {
    let mut m = ModuleBuilder::new();
    let opts = crate::fuzzing::generate::GenOptions::default();
    let functions: Vec<_> = (0..n)
        .map(|i| {
            let mut f = crate::fuzzing::generate::seeded(0x5eed_0000 + i as u64, &opts);
            f.name = format!("generated{i}");
            f
        })
        .collect();
    for f in &functions {
        m.declare_function(&f.name, f.signature.clone());
    }
    for f in functions {
        m.define_function(f);
    }
    m.finish()
}

/// Without the generator, the generated part of the corpus is empty.
#[cfg(not(feature = "fuzzing"))]
pub fn generated(_n: usize) -> Module {
    ModuleBuilder::new().finish()
}

//! Generators and per-system oracle checks.
//!
//! Each check is `pub fn check(data: &[u8])` over a system run alone and judged by its oracle
//! (DESIGN.md 5); [`targets::TARGETS`] names one per system, including [`lowering`]
//! (generated functions lowered and allocated) and [`pipeline`] (the default pipeline as a
//! whole). `cargo test` runs every check briefly on stable; `strata fuzz SYSTEM` runs one on
//! random inputs on every core ([`runner`]), and `fuzz/` holds the cargo-fuzz shims of the
//! same names for long runs on nightly (`fuzz/README.md`).

pub mod bundle_merge;
#[cfg(feature = "regalloc2")]
pub mod checker;
pub mod dominance;
pub mod generate;
pub mod generate_ssa;
pub mod ion;
pub mod liveness;
pub mod llvm_import;
pub mod lowering;
pub mod machine_gen;
pub mod machine_text;
pub mod mem2reg;
pub mod moves;
pub mod phi_elim;
pub mod pipeline;
pub mod placement;
pub mod runner;
pub mod sccp;
pub mod targets;
pub mod text;
pub mod vectors;

/// The options of regalloc2's generator that its `ion` fuzz target uses (reuse, fixed,
/// fixed non-allocatable, clobbers, reference types, call-site-like constraints).
#[cfg(feature = "regalloc2-fuzzing")]
pub fn regalloc2_ion_options() -> regalloc2::fuzzing::func::Options {
    regalloc2::fuzzing::func::Options {
        reused_inputs: true,
        fixed_regs: true,
        fixed_nonallocatable: true,
        clobbers: true,
        reftypes: true,
        callsite_ish_constraints: true,
        ..regalloc2::fuzzing::func::Options::DEFAULT
    }
}

/// A function from regalloc2's own generator with its `ion` fuzz target's constraint mix
/// (reuse, fixed, fixed non-allocatable, clobbers, call-site-like constraints), imported with
/// regalloc2's fuzzing environment; `None` when the bytes run dry.
#[cfg(feature = "regalloc2-fuzzing")]
pub fn regalloc2_input(data: &[u8]) -> Option<crate::regalloc::regalloc2_model::Imported> {
    use regalloc2::fuzzing::func::{machine_env, Func};
    let opts = regalloc2_ion_options();
    let f = Func::arbitrary_with_options(&mut arbitrary::Unstructured::new(data), &opts).ok()?;
    Some(
        crate::regalloc::regalloc2_model::import(&f, &machine_env())
            .expect("regalloc2's generator makes importable functions"),
    )
}

/// A module drawn from `u`: one time in four a single function in SSA form from
/// [`generate_ssa`] (as a module of its own), otherwise a memory-form module from
/// [`generate::module`] with `options`. The lowering and pipeline checks share it.
pub fn draw_module(
    u: &mut arbitrary::Unstructured<'_>,
    options: &generate::GenOptions,
) -> arbitrary::Result<crate::ir::Module> {
    if u.int_in_range(0u8..=3)? == 0 {
        let f = generate_ssa::ssa_function(u, &generate_ssa::SsaGenOptions::default())?;
        let mut m = crate::ir::ModuleBuilder::new();
        m.declare_function(&f.name, f.signature.clone());
        m.define_function(f);
        Ok(m.finish())
    } else {
        generate::module(u, options)
    }
}

/// Asserts that `after`'s run observes the same as `before`'s: result (with an aggregate's
/// members), standard output and error, exit code, final memory digest and the trace of
/// external calls; steps may differ. `show` describes the case for the message (called
/// only on a failure).
///
/// # Panics
/// On the first observable that differs, naming it.
pub(crate) fn assert_same_observable(
    before: &crate::interp::Outcome,
    after: &crate::interp::Outcome,
    show: impl Fn() -> String,
) {
    let (p, q) = (before, after);
    assert_eq!(p.result, q.result, "result differs; {}", show());
    assert_eq!(
        p.result_members,
        q.result_members,
        "aggregate result differs; {}",
        show()
    );
    assert_eq!(p.output, q.output, "output differs; {}", show());
    assert_eq!(
        p.error_output,
        q.error_output,
        "error output differs; {}",
        show()
    );
    assert_eq!(p.exit_code, q.exit_code, "exit code differs; {}", show());
    assert_eq!(
        p.memory_digest,
        q.memory_digest,
        "memory differs; {}",
        show()
    );
    assert_eq!(p.trace, q.trace, "trace differs; {}", show());
}

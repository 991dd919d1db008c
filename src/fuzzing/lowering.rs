//! Oracle check of lowering: generated functions through the default pipeline to block
//! parameters, lowered for x86-64 and aarch64, verified and allocated.
//!
//! What: [`check`] draws a memory-form module ([`super::generate::module`]) or, one time in
//! four, an SSA function with phis, aggregates and `f64` ([`super::generate_ssa::ssa_function`]);
//! one input in four is instead a function computing with vectors
//! ([`super::vectors::vector_function`]: element-wise operations, compares, selects, casts,
//! lane access with constant and variable indices, shuffles, vector slots),
//! and runs it through [`crate::api::lower_module`] with [`crate::api::machine_config`] of the
//! default pipeline (verify, mem2reg, SCCP, placement, block parameters, `lower`) for each
//! target. Judged, per function and target:
//! (a) lowering succeeds (no error diagnostic, no refusal: every type the generators make is
//!     lowered, aggregates, `f64` and vectors included);
//! (b) the machine verifier ([`crate::machine::verify::verify`]) accepts the machine function;
//! (c) our allocator ([`crate::regalloc::driver::allocate_machine`] with
//!     [`Allocator::Ion`]) allocates it in the target's full register environment (with
//!     feature `regalloc2`, regalloc2's checker judges the allocation inside that call);
//! (d) our symbolic checker ([`crate::regalloc::driver::check_ours`]) accepts the allocation;
//! (e) the pipeline's own allocation in the World (`check_in_world`) is accepted by both
//!     checkers, and the function it leaves differs from the lowered one at most by
//!     exchanged inputs of commutative instructions.
//!
//! What the machine code computes is not compared (there is no machine interpreter); the
//! checker proves that the allocation preserves the lowered program's dataflow, and the
//! `pipeline` check ([`super::pipeline`]) judges the passes before lowering.
//!
//! Complexity: the pipeline, lowering and one allocation and two checker runs per function
//! and target; generated functions have at most a dozen blocks.

use super::generate;
use crate::api::{lower_module, machine_config};
use crate::engine::PassSet;
use crate::ir::Module;
use crate::regalloc::driver::{allocate_machine, check_ours};
use crate::stage::{Allocator, Arch};
use arbitrary::Unstructured;

/// Fuzz entry point: panics if lowering refuses a generated function, or if the machine
/// verifier, our allocator or a checker rejects its result (see the module doc).
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let module = if u.ratio(1u8, 4).unwrap_or(false) {
        let Ok(f) = super::vectors::vector_function(&mut u) else {
            return;
        };
        module_of(f)
    } else {
        let Ok(module) = super::draw_module(&mut u, &generate::GenOptions::default()) else {
            return;
        };
        module
    };
    for arch in Arch::ALL {
        check_module(&module, arch);
    }
}

/// The module holding `f` alone.
fn module_of(f: crate::ir::Function) -> Module {
    let mut m = crate::ir::ModuleBuilder::new();
    m.declare_function(&f.name, f.signature.clone());
    m.define_function(f);
    m.finish()
}

/// Lowers every function of `module` for `arch` and judges each (see the module doc).
pub fn check_module(module: &Module, arch: Arch) {
    let config = machine_config(PassSet::default_pipeline(), arch);
    let lowered_all = lower_module(module, &config);
    check_in_world(module, arch, &lowered_all);
    for lowered in lowered_all {
        let f = match lowered.result {
            Ok(f) => f,
            Err(e) => panic!(
                "@{} ({}): lowering failed: {e}\n{}",
                lowered.name,
                arch.name(),
                crate::text::print_module(module)
            ),
        };
        let errors = crate::machine::verify::verify(&f);
        assert!(
            errors.is_empty(),
            "@{} ({}): the machine verifier rejects the lowered function: {errors:?}\n{}",
            f.name,
            arch.name(),
            crate::machine::text::print_function(&f)
        );
        let run = allocate_machine(&f, &f.name, arch, Allocator::Ion).unwrap_or_else(|e| {
            panic!(
                "({}): allocation failed: {e}\n{}",
                arch.name(),
                crate::machine::text::print_function(&f)
            )
        });
        if let Err(e) = check_ours(&f, &f.name, arch, &run.output) {
            panic!(
                "({}): {e}\n{}",
                arch.name(),
                crate::machine::text::print_function(&f)
            );
        }
    }
}

/// (e) The pipeline's own allocation in the World (the Regalloc and Check stages after
/// lowering, which may exchange the inputs of commutative two-address instructions,
/// `regalloc::systems::commute_inputs`) reports no error (both checkers accept, in the
/// Check stage), our checker accepts it against the function as the World left it, and
/// that function is `lowered` but for exchanged inputs of commutative instructions.
fn check_in_world(module: &Module, arch: Arch, lowered: &[crate::api::Lowered]) {
    use crate::machine::MachineRead;
    let config = machine_config(
        PassSet::default_pipeline() | PassSet::REGALLOC | PassSet::CHECK,
        arch,
    );
    for (run, before) in lower_module(module, &config).into_iter().zip(lowered) {
        let Ok(plain) = &before.result else {
            continue;
        };
        let f = run.result.unwrap_or_else(|e| {
            panic!(
                "({}): the pipeline's allocation failed: {e}\n{}",
                arch.name(),
                crate::machine::text::print_function(plain)
            )
        });
        let alloc = run
            .allocation
            .expect("the Regalloc stage published an allocation");
        if let Err(e) = check_ours(&f, &f.name, arch, &alloc.output) {
            panic!(
                "({}): {e}\n{}",
                arch.name(),
                crate::machine::text::print_function(&f)
            );
        }
        assert_eq!(f.num_insts(), plain.num_insts());
        for i in f.insts() {
            let (now, was) = (f.inst_operands(i), plain.inst_operands(i));
            let exchanged = f.is_commutative(i)
                && now.len() == 3
                && was.len() == 3
                && now[0] == was[0]
                && (now[1].vreg, now[2].vreg) == (was[2].vreg, was[1].vreg)
                && (now[1].constraint, now[2].constraint) == (was[1].constraint, was[2].constraint);
            assert!(
                now == was || exchanged,
                "@{} ({}) {i}: operands {now:?} were {was:?}",
                f.name,
                arch.name()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;

    #[test]
    fn lowering_check_passes_on_seeded_inputs() {
        for seed in 0..64u64 {
            check(&seed_bytes(seed, 3000));
        }
    }

    #[test]
    fn generated_vector_functions_lower_and_allocate() {
        let mut drawn = 0;
        for seed in 0..48u64 {
            let data = seed_bytes(seed, 3000);
            let mut u = Unstructured::new(&data);
            if let Ok(f) = crate::fuzzing::vectors::vector_function(&mut u) {
                let module = module_of(f);
                for arch in Arch::ALL {
                    check_module(&module, arch);
                }
                drawn += 1;
            }
        }
        assert!(drawn >= 24, "only {drawn} vector functions drawn");
    }
}

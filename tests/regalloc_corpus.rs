//! Our Ion allocator on real register-allocation problems: every function Cranelift handed
//! regalloc2 in `../shared/regalloc-corpus/` (its README gives the format), imported through
//! the regalloc2 model, allocated by `strata::regalloc::ion`, and judged by our symbolic
//! checker and by regalloc2's own `checker::Checker` on the original function. Prints per
//! module: functions, instructions, edits per 100 instructions and spill slots, ours and
//! regalloc2's side by side.

mod common;

use common::sorted_entries as files;

use regalloc2 as ra2;
use std::path::{Path, PathBuf};
use strata::regalloc::checker;
use strata::regalloc::ion::{allocate, IonContext};
use strata::regalloc::regalloc2_model::{import, output_to_regalloc2};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/regalloc-corpus/cranelift-x64")
}

#[test]
fn ion_allocates_every_cranelift_function_and_both_checkers_accept() {
    let dir = corpus_dir();
    let missing = (!dir.is_dir()).then(|| format!("{} is missing", dir.display()));
    if !common::require("regalloc_corpus", missing) {
        return;
    }
    let mut ctx = IonContext::default();
    let mut dropin = strata::regalloc::Ctx::default();
    let mut r2ctx = ra2::Ctx::default();
    let mut failures = Vec::new();
    let mut demoted = 0usize;
    let mut absorbed = 0usize;
    let mut tails = 0usize;
    let mut stretches = 0usize;
    let mut grouped = 0usize;
    for module in files(&dir) {
        let (mut funcs, mut insts, mut edits, mut slots, mut r2_edits, mut r2_slots) =
            (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
        for file in files(&module) {
            let name = file.display().to_string();
            let bytes = std::fs::read(&file).expect("readable");
            let sf: ra2::serialize::SerializableFunction =
                bincode::deserialize(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            let env = sf.machine_env().clone();
            let imp = import(&sf, &env).unwrap_or_else(|e| panic!("{name}: {e}"));
            if let Err(e) = allocate(&imp.func, &imp.env, &mut ctx) {
                failures.push(format!("{name}: {e}"));
                continue;
            }
            let out = &ctx.state.output;
            demoted += ctx.state.stats.demoted;
            absorbed += ctx.state.stats.absorbed;
            tails += ctx.state.stats.tails;
            stretches += ctx.state.stats.stretches;
            grouped += ctx.state.stats.grouped;
            if let Err(e) = checker::check(&imp.func, &imp.env, imp.fixed_stack, out) {
                failures.push(format!("{name}: our checker: {e}"));
                continue;
            }
            let mut theirs = ra2::checker::Checker::new(&sf, &env);
            theirs.prepare(&output_to_regalloc2(&sf, out));
            if let Err(e) = theirs.run() {
                failures.push(format!("{name}: regalloc2's checker: {e:?}"));
                continue;
            }
            // The drop-in gives the same output in regalloc2's type.
            let opts = ra2::RegallocOptions::default();
            let via = strata::regalloc::run_with_ctx(&sf, &env, &opts, &mut dropin)
                .unwrap_or_else(|e| panic!("{name}: drop-in: {e:?}"));
            assert_eq!(via.edits.len(), out.edits.len(), "{name}: drop-in differs");
            funcs += 1;
            insts += ra2::Function::num_insts(&sf);
            edits += out.edits.len();
            slots += out.num_spillslots;
            let r2 = ra2::run_with_ctx(&sf, &env, &opts, &mut r2ctx).expect("regalloc2 allocates");
            r2_edits += r2.edits.len();
            r2_slots += r2.num_spillslots;
        }
        eprintln!(
            "{}: {funcs} functions, {insts} instructions; edits/100 insts ours {:.1} regalloc2 {:.1}; spill slots ours {slots} regalloc2 {r2_slots}",
            module.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
            100.0 * edits as f64 / insts.max(1) as f64,
            100.0 * r2_edits as f64 / insts.max(1) as f64,
        );
    }
    // The join demotion after second chance (`ion::demote`) acts on these problems, so both
    // checkers above judged outputs it changed.
    eprintln!("join ranges demoted to their slot: {demoted}");
    assert!(demoted > 0, "no join range was demoted on the whole corpus");
    // Likewise for stack ranges of spill bundles that joined a neighbouring piece's register
    // (`ion::spill::absorb_stack_ranges`).
    eprintln!("stack ranges absorbed by a neighbour's register: {absorbed}");
    assert!(
        absorbed > 0,
        "no stack range was absorbed on the whole corpus"
    );
    // Likewise for use-free tails of register ranges moved to their slot (`ion::tails`).
    eprintln!("use-free tails moved to their slot: {tails}");
    assert!(tails > 0, "no use-free tail was moved on the whole corpus");
    // And for use-free middle stretches (`ion::tails`, kept only when they open no slot).
    eprintln!("use-free middle stretches moved to their slot: {stretches}");
    assert!(
        stretches > 0,
        "no use-free middle stretch was moved on the whole corpus"
    );
    // And for groups of use-free ranges moved to their slot together (`ion::groups`).
    eprintln!("use-free ranges moved to their slot in groups: {grouped}");
    assert!(
        grouped > 0,
        "no group of use-free ranges was moved on the whole corpus"
    );
    assert!(
        failures.is_empty(),
        "{} functions failed:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

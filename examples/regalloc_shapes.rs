//! Our allocator on the pathological shapes of the `pathological` criterion group
//! (`benches/regalloc.rs`), one shape per run, for instruction counts under callgrind:
//!
//! ```text
//! cargo build --release --example regalloc_shapes
//! valgrind --tool=callgrind --collect-atstart=no \
//!     --toggle-collect='strata::regalloc::ion::allocate*' \
//!     target/release/examples/regalloc_shapes huge
//! ```
//!
//! Shapes: `typical` (a generated function of about 1,000 instructions), `fan_in` (50,000
//! blockparam flows into one bundle), `alternating_args` (one value in alternating argument
//! registers across 10,000 calls), `huge` (about 100,000 generated instructions),
//! `reuse_chain` (10,000 two-address additions). Prints the shape's instructions, edits,
//! loop-weighted cost, remats, spill slots and the fastest of `REPEAT` (default 3)
//! allocations' wall time per instruction, then regalloc2's edits, cost and spill slots on
//! the same function (its run is outside the toggled function, so callgrind counts ours
//! alone); with callgrind, divide the collected instructions by the instruction count.
//!
//! Run: `cargo run --release --example regalloc_shapes SHAPE [REPEAT [SIZE]]` (SIZE: calls,
//! additions, flows or instructions, to see how time per instruction scales).
//!
//! A shape's figure is its warm allocation's instructions per machine instruction: the
//! instructions collected with `REPEAT` 2 minus those with `REPEAT` 1 (the first allocation
//! grows the pooled context), divided by the instruction count.
//!
//! The reference, the corpus average: the instructions of our allocation phases over every
//! function of the lowered corpus modules (`target/corpus/*.ll`, 24 modules, one target),
//! divided by their machine instructions (`machine_insts` of `strata bench`). In the
//! pipeline the phases are the Regalloc stage's ten systems, which call the same phase
//! functions as `ion::allocate` here, so the toggles name the systems; one thread, so the
//! context is warm after the first function; the shards are only to run in parallel (sum
//! the collected instructions and the machine instructions over them):
//!
//! ```text
//! for k in 0 1 2 3; do
//!   valgrind --tool=callgrind --collect-atstart=no \
//!     --toggle-collect='strata::regalloc::systems::compute_liveness' \
//!     --toggle-collect='strata::regalloc::systems::build_live_ranges' \
//!     ... (merge_bundles, queue_bundles, process_bundles, allocate_spill_bundles,
//!          allocate_spill_slots, insert_moves, resolve_moves, remove_redundant_moves) \
//!     target/release/strata bench --target x86-64 --jobs 1 --shard $k/4 target/corpus &
//! done
//! ```
//!
//! Measured (issue 23, time23c; one build of the branch, warm, callgrind): the x86-64 corpus
//! average is 12,296M instructions over 1,658,042 machine instructions, 7.42k each (shards
//! of 2,862M/407,413, 2,932M/404,888, 3,713M/429,968, 2,789M/415,773). The shapes, before
//! (aba33e5) and after, and against that average: typical 6.95k -> 6.93k (0.93x), fan_in
//! 3.22k -> 3.24k (0.44x), reuse_chain 4.58k -> 4.60k (0.62x), alternating_args 16.36k ->
//! 14.04k (1.89x), huge 17.03k -> 11.70k (1.58x).
//!
//! Measure both with binaries of one build: a binary built elsewhere can differ by a
//! factor in some phases (a differently built binary of the same commit spent 139M
//! instructions in `process_bundles` on aarch64 bzip2.O2 where ours spent 24M).

use strata::fuzzing::{bundle_merge, machine_gen};
use strata::machine::function::MachineFunction;
use strata::machine::MachineEnv;
use strata::regalloc::ion::{allocate, IonContext};

/// The shape `name` at `size` (its default size when `None`).
fn shape(name: &str, size: Option<usize>) -> Option<(MachineFunction, MachineEnv)> {
    let generic = machine_gen::env(false);
    let x86 = strata::machine::targets::TargetDesc::new(strata::stage::Arch::X86_64).env;
    Some(match name {
        "typical" => (machine_gen::sized(7, size.unwrap_or(1000)), generic),
        "fan_in" => (bundle_merge::fan_in(size.unwrap_or(50000)), generic),
        "alternating_args" => (machine_gen::alternating_args(size.unwrap_or(10000)), x86),
        "huge" => (machine_gen::sized(7, size.unwrap_or(100_000)), generic),
        "reuse_chain" => (machine_gen::reuse_chain(size.unwrap_or(10000)), x86),
        _ => return None,
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "typical".into());
    let repeat: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let size: Option<usize> = args.next().and_then(|s| s.parse().ok());
    let Some((f, env)) = shape(&name, size) else {
        eprintln!(
            "error: unknown shape `{name}` (typical, fan_in, alternating_args, huge, reuse_chain)"
        );
        std::process::exit(2);
    };
    let mut ctx = IonContext::default();
    let mut best = f64::INFINITY;
    for _ in 0..repeat.max(1) {
        let t0 = std::time::Instant::now();
        if let Err(e) = allocate(&f, &env, &mut ctx) {
            eprintln!("error: {name}: {e}");
            std::process::exit(1);
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    let n = f.ops.len();
    let out = &ctx.state.output;
    let none = strata::machine::PRegSet::empty();
    println!(
        "{name}: {n} insts, {} edits, cost {:.1}, {} remats, {} spill slots, {:.0} ns/inst (fastest of {repeat})",
        out.edits.len(),
        out.edit_costs(&f, none).cost_tenths as f64 / 10.0,
        out.remat_count(),
        out.num_spillslots,
        best * 1e9 / n as f64
    );
    let presented = strata::regalloc::to_regalloc2::Presented::new(&f);
    let renv = strata::regalloc::regalloc2_model::to_regalloc2_env(&env, none);
    std::panic::set_hook(Box::new(|_| {}));
    let theirs = std::panic::catch_unwind(|| {
        regalloc2::run(&presented, &renv, &regalloc2::RegallocOptions::default())
    });
    match theirs {
        Err(_) => println!("regalloc2: panicked (\"could not allocate minimal bundle\")"),
        Ok(Err(e)) => println!("regalloc2: {e}"),
        Ok(Ok(o)) => {
            let theirs = strata::regalloc::regalloc2_model::output_from_regalloc2(&o);
            println!(
                "regalloc2: {} edits, cost {:.1}, {} spill slots",
                theirs.edits.len(),
                theirs.edit_costs(&f, none).cost_tenths as f64 / 10.0,
                theirs.num_spillslots
            );
        }
    }
}

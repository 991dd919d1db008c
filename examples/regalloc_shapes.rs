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
//! remats, spill slots and the fastest of `REPEAT` (default 3) allocations' wall time per
//! instruction; with callgrind, divide the collected instructions by the instruction count.
//!
//! Run: `cargo run --release --example regalloc_shapes SHAPE [REPEAT]`.

use strata::fuzzing::{bundle_merge, machine_gen};
use strata::machine::function::MachineFunction;
use strata::machine::MachineEnv;
use strata::regalloc::ion::{allocate, IonContext};

fn shape(name: &str) -> Option<(MachineFunction, MachineEnv)> {
    let generic = machine_gen::env(false);
    let x86 = strata::machine::targets::TargetDesc::new(strata::stage::Arch::X86_64).env;
    Some(match name {
        "typical" => (machine_gen::sized(7, 1000), generic),
        "fan_in" => (bundle_merge::fan_in(50000), generic),
        "alternating_args" => (machine_gen::alternating_args(10000), x86),
        "huge" => (machine_gen::sized(7, 100_000), generic),
        "reuse_chain" => (machine_gen::reuse_chain(10000), x86),
        _ => return None,
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "typical".into());
    let repeat: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let Some((f, env)) = shape(&name) else {
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
    println!(
        "{name}: {n} insts, {} edits, {} remats, {} spill slots, {:.0} ns/inst (fastest of {repeat})",
        out.edits.len(),
        out.remat_count(),
        out.num_spillslots,
        best * 1e9 / n as f64
    );
}

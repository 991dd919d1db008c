//! Our Ion allocator through the drop-in (`strata::regalloc::run_with_ctx`) against
//! regalloc2 0.15.2 Ion (`regalloc2::run_with_ctx`, context reused, built without
//! `trace-log`) on the same functions of `../shared/regalloc-corpus/`, in one run.
//!
//! Prints per module: functions, instructions, time per instruction (sum over functions of
//! the fastest of `REPEAT` runs, alternating allocators), edits per 100 instructions, the
//! loop-weighted edit cost (spill 1, reload 4, register move 0.2, remat 1, times 4^loop
//! depth; [`strata::regalloc::output::AllocOutput::edit_costs`]) and spill slots, ours and
//! regalloc2's, with the ratios. (These functions carry no rematerialization hook, so
//! neither side rematerializes.)
//!
//! Run: `cargo run --release --example regalloc_compare [REPEAT] [MODULE]` (`REPEAT` default
//! 3). With `MODULE`, only the modules whose directory name contains it run (for profiling
//! one module under callgrind); without it, all of them.

use regalloc2 as ra2;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    v.sort();
    v
}

fn main() {
    let repeat: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let only: Option<String> = std::env::args().nth(2);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/regalloc-corpus/cranelift-x64");
    if !dir.is_dir() {
        eprintln!("error: {} is missing", dir.display());
        std::process::exit(2);
    }
    println!(
        "| module | functions | instructions | ns/inst ours | ns/inst regalloc2 | time ratio | edits/100 ours | edits/100 regalloc2 | cost ours | cost regalloc2 | spill slots ours | spill slots regalloc2 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let opts = ra2::RegallocOptions::default();
    let mut ours_ctx = strata::regalloc::Ctx::default();
    let mut theirs_ctx = ra2::Ctx::default();
    for module in files(&dir) {
        let name = module
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if only.as_deref().is_some_and(|m| !name.contains(m)) {
            continue;
        }
        let funcs: Vec<ra2::serialize::SerializableFunction> = files(&module)
            .iter()
            .map(|f| bincode::deserialize(&std::fs::read(f).expect("readable")).expect("format"))
            .collect();
        let (mut insts, mut t_ours, mut t_theirs) = (0usize, 0f64, 0f64);
        let (mut e_ours, mut e_theirs, mut s_ours, mut s_theirs) = (0, 0, 0, 0);
        let (mut c_ours, mut c_theirs) = (0u64, 0u64);
        for sf in &funcs {
            let env = sf.machine_env().clone();
            insts += ra2::Function::num_insts(sf);
            let (mut best_o, mut best_t) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..repeat {
                let t0 = Instant::now();
                strata::regalloc::run_with_ctx(sf, &env, &opts, &mut ours_ctx)
                    .expect("ours allocates");
                best_o = best_o.min(t0.elapsed().as_secs_f64());
                let t0 = Instant::now();
                ra2::run_with_ctx(sf, &env, &opts, &mut theirs_ctx).expect("regalloc2 allocates");
                best_t = best_t.min(t0.elapsed().as_secs_f64());
            }
            let o = strata::regalloc::run_with_ctx(sf, &env, &opts, &mut ours_ctx).expect("ours");
            e_ours += o.edits.len();
            s_ours += o.num_spillslots;
            let fixed_stack = ours_ctx.ion.state.fixed_stack;
            c_ours += ours_ctx
                .ion
                .state
                .output
                .edit_costs(&ours_ctx.func, fixed_stack)
                .cost_tenths;
            let t = ra2::run_with_ctx(sf, &env, &opts, &mut theirs_ctx).expect("regalloc2");
            e_theirs += t.edits.len();
            s_theirs += t.num_spillslots;
            c_theirs += strata::regalloc::regalloc2_model::output_from_regalloc2(t)
                .edit_costs(&ours_ctx.func, fixed_stack)
                .cost_tenths;
            t_ours += best_o;
            t_theirs += best_t;
        }
        let n = insts as f64;
        println!(
            "| {} | {} | {} | {:.0} | {:.0} | {:.2}x | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} |",
            name,
            funcs.len(),
            insts,
            1e9 * t_ours / n,
            1e9 * t_theirs / n,
            t_ours / t_theirs,
            100.0 * e_ours as f64 / n,
            100.0 * e_theirs as f64 / n,
            c_ours as f64 / 10.0,
            c_theirs as f64 / 10.0,
            s_ours,
            s_theirs
        );
    }
}

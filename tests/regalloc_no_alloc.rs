//! Zero heap allocations per function once the drop-in's context is warm (issue 23): a
//! counting global allocator (this binary's own: a `#[global_allocator]` is per binary)
//! counts the allocations the calling thread makes inside `strata::regalloc::run_with_ctx`.
//!
//! The functions: from every module of `../shared/regalloc-corpus/` the largest ones and
//! a few small ones, and generated machine functions (presented to the drop-in through
//! regalloc2's `Function` trait). All are allocated once with one `Ctx` (warming it), then
//! each again: the repeat must allocate nothing. The output of the repeat is compared with
//! the first (the warm path computes the same allocation).

mod common;

use common::sorted_entries as files;

use regalloc2 as ra2;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

/// Counts allocations (alloc, alloc_zeroed, realloc) of threads that turned counting on.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note_allocation() {
    // `try_with`: thread-local storage may be gone while a thread shuts down.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches only
// const-initialized thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations made by this thread while `f` runs.
fn allocations_in(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    COUNT.with(|c| c.get())
}

/// A function of either source with its name.
enum Problem {
    Corpus(String, ra2::serialize::SerializableFunction),
    Generated(String, strata::machine::function::MachineFunction),
}

/// Edits, allocations and spill slots of an output as text (regalloc2's `Edit` has no
/// equality), to compare the repeat with the first run.
type Summary = String;

fn summary(o: &ra2::Output) -> Summary {
    format!("{:?} {:?} {}", o.edits, o.allocs, o.num_spillslots)
}

#[test]
fn a_warm_dropin_context_allocates_nothing_per_function() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/regalloc-corpus/cranelift-x64");
    let missing = (!dir.is_dir()).then(|| format!("{} is missing", dir.display()));
    let mut problems = Vec::new();
    if common::require("regalloc_no_alloc", missing) {
        for module in files(&dir) {
            let mut funcs: Vec<(usize, String, ra2::serialize::SerializableFunction)> =
                files(&module)
                    .iter()
                    .map(|f| {
                        let sf: ra2::serialize::SerializableFunction =
                            bincode::deserialize(&std::fs::read(f).expect("readable"))
                                .expect("regalloc2 SerializableFunction");
                        (ra2::Function::num_insts(&sf), f.display().to_string(), sf)
                    })
                    .collect();
            // The three largest and three small functions of the module.
            funcs.sort_by_key(|f| std::cmp::Reverse(f.0));
            let n = funcs.len();
            for (k, (_, name, sf)) in funcs.into_iter().enumerate() {
                if k < 3 || (n > 6 && k >= n - 3) {
                    problems.push(Problem::Corpus(name, sf));
                }
            }
        }
    }
    for seed in 0..8 {
        let f = strata::fuzzing::machine_gen::sized(seed, 200);
        problems.push(Problem::Generated(format!("generated seed {seed}"), f));
    }
    let opts = ra2::RegallocOptions::default();
    let generated_env = strata::regalloc::regalloc2_model::to_regalloc2_env(
        &strata::fuzzing::machine_gen::env(true),
        Default::default(),
    );
    let mut ctx = strata::regalloc::Ctx::default();
    let run = |p: &Problem, ctx: &mut strata::regalloc::Ctx| -> Summary {
        let out = match p {
            Problem::Corpus(name, sf) => {
                strata::regalloc::run_with_ctx(sf, &sf.machine_env().clone(), &opts, ctx)
                    .unwrap_or_else(|e| panic!("{name}: {e:?}"))
            }
            Problem::Generated(name, f) => {
                let presented = strata::regalloc::to_regalloc2::Presented::new(f);
                strata::regalloc::run_with_ctx(&presented, &generated_env, &opts, ctx)
                    .unwrap_or_else(|e| panic!("{name}: {e:?}"))
            }
        };
        summary(out)
    };
    let first: Vec<Summary> = problems.iter().map(|p| run(p, &mut ctx)).collect();
    let mut failures = Vec::new();
    for (p, first) in problems.iter().zip(&first) {
        // What the call needs besides the allocator (the environment, the presenter) is
        // made before counting.
        let count = match p {
            Problem::Corpus(name, sf) => {
                let env = sf.machine_env().clone();
                let n = allocations_in(|| {
                    strata::regalloc::run_with_ctx(sf, &env, &opts, &mut ctx)
                        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
                });
                (name, n)
            }
            Problem::Generated(name, f) => {
                let presented = strata::regalloc::to_regalloc2::Presented::new(f);
                let n = allocations_in(|| {
                    strata::regalloc::run_with_ctx(&presented, &generated_env, &opts, &mut ctx)
                        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
                });
                (name, n)
            }
        };
        assert_eq!(
            &summary(&ctx.output),
            first,
            "{}: the warm run allocated differently",
            count.0
        );
        if count.1 > 0 {
            failures.push(format!("{}: {} allocations", count.0, count.1));
        }
    }
    assert!(
        problems.len() >= 8,
        "expected at least the generated functions"
    );
    assert!(
        failures.is_empty(),
        "{} of {} functions allocated on a warm context:\n{}",
        failures.len(),
        problems.len(),
        failures.join("\n")
    );
}

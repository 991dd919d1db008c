//! The `strata` binary: see `strata --help` and [`strata::cli`].
//!
//! The binary allocates through mimalloc: import, load, the passes and take allocate and free
//! many small blocks per function, and glibc's allocator took about a tenth of the pipeline's
//! cycles (`perf` on lua). The library leaves the allocator to the program that links it.
//!
//! Two mimalloc settings are changed at start-up ([`tune_allocator`]), for peak memory
//! (issue 24: at most `opt`'s peak RSS on every corpus module):
//!
//! - No transparent huge pages. mimalloc asks for them on its regions (`madvise`), and a
//!   huge page is resident as a whole once one byte of it is touched: on sqlite.ll `strata
//!   compile` peaked at 187 MB with them and 132 MB without. They did not pay for it in time
//!   either: with the kernel's `defrag = madvise`, a fault in such a region may compact
//!   memory first, and `perf stat` of `strata compile sqlite.ll` measured 0.03 to 0.47 s of
//!   system time with them against 0.06 to 0.09 s with 4 KiB pages (task clock 308-742 ms
//!   against 354-391 ms). Earlier measurements (3-7% faster with them in `strata bench`) were
//!   of warm, long runs, where the tables are faulted in once.
//! - Freed memory goes back to the OS after 10 ms (mimalloc v3 waits 1 s, and 10 s for whole
//!   arena ranges: a compile never returned anything). The input text and each window of
//!   functions are freed as the compile goes on; without this their pages stayed resident
//!   (132 MB against 102 MB peak on sqlite.ll). Not for `strata bench`, which imports and
//!   runs the same modules round after round in one process: there the freed pages are
//!   reused by the next round, and returning them would only fault them in again (its
//!   import time against LLVM's `Parse IR` is measured so, warm).
//!
//! Either is left alone when set through mimalloc's environment variables
//! (`MIMALLOC_ALLOW_THP`, `MIMALLOC_PURGE_DELAY`).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in the `mi_option_t` of the mimalloc v3 that libmimalloc-sys
/// 0.1.49 builds (`v3/include/mimalloc.h`; the crate's own constants are v2's).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
/// mimalloc v3's default purge delay (ms): [`tune_allocator`] changes the option only when it
/// reads this value, so a differently numbered option is never touched.
const MI_DEFAULT_PURGE_DELAY: std::ffi::c_long = 1000;
/// The purge delay set (ms).
const PURGE_DELAY_MS: std::ffi::c_long = 10;

extern "C" {
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

#[cfg(target_os = "linux")]
extern "C" {
    fn prctl(option: std::ffi::c_int, ...) -> std::ffi::c_int;
}

/// Turns transparent huge pages off for the process and, with `purge`, shortens mimalloc's
/// purge delay (see the module doc).
fn tune_allocator(purge: bool) {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        const PR_SET_THP_DISABLE: std::ffi::c_int = 41;
        // SAFETY: PR_SET_THP_DISABLE takes one integer flag (the rest are zero) and only
        // changes how the kernel backs this process's future page faults.
        unsafe {
            prctl(
                PR_SET_THP_DISABLE,
                1 as std::ffi::c_ulong,
                0 as std::ffi::c_ulong,
                0 as std::ffi::c_ulong,
                0 as std::ffi::c_ulong,
            );
        }
    }
    // SAFETY: mimalloc's option accessors may be called at any time from any thread.
    unsafe {
        if purge && mi_option_get(MI_OPTION_PURGE_DELAY) == MI_DEFAULT_PURGE_DELAY {
            mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
        }
    }
}

fn main() {
    tune_allocator(std::env::args_os().nth(1).is_none_or(|a| a != "bench"));
    std::process::exit(strata::cli::main());
}

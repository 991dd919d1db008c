//! The `strata` binary: see `strata --help` and [`strata::cli`].
//!
//! The binary allocates through mimalloc: import, load, the passes and take allocate and free
//! many small blocks per function, and glibc's allocator took about a tenth of the pipeline's
//! cycles (`perf` on lua). The library leaves the allocator to the program that links it.
//!
//! mimalloc is built without transparent huge pages (feature `no_thp`): with them, every
//! table that grew (a larger function, a column reallocated by bevy) faulted in fresh 2 MiB
//! pages that the kernel zeroes, which on a machine with THP in `madvise` mode took 72% of
//! the wall time of `strata bench --repeat 1 zlib.ll` (perf: `clear_page_erms` under
//! `do_huge_pmd_anonymous_page`, from `Column::realloc` and `Vec` growth) and made repeated
//! runs vary by half.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(strata::cli::main());
}

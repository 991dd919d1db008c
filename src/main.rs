//! The `strata` binary: see `strata --help` and [`strata::cli`].
//!
//! The binary allocates through mimalloc: import, load, the passes and take allocate and free
//! many small blocks per function, and glibc's allocator took about a tenth of the pipeline's
//! cycles (`perf` on lua). The library leaves the allocator to the program that links it.
//!
//! mimalloc backs large regions with transparent huge pages where the kernel allows them
//! (`madvise` mode): steady-state runs are 3-7% faster with them (fewer TLB misses on the
//! function tables), but a table that grows faults in fresh 2 MiB pages that the kernel
//! zeroes (72% of the wall time of `strata bench --repeat 1 zlib.ll` when every function
//! grew the pooled tables). So batch drivers size the engines' tables before timing
//! (`Engine::reserve_rows`) instead of building mimalloc without huge pages (feature
//! `no_thp`, measured 3-7% slower on the built-in corpus, zlib and tcc).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(strata::cli::main());
}

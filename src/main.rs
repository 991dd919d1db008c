//! The `strata` binary: see `strata --help` and [`strata::cli`].
//!
//! The binary allocates through mimalloc: import, load, the passes and take allocate and free
//! many small blocks per function, and glibc's allocator took about a tenth of the pipeline's
//! cycles (`perf` on lua). The library leaves the allocator to the program that links it.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(strata::cli::main());
}

//! Imports each `.ll` file named on the command line on one thread, for instruction counts
//! of the importer alone: `valgrind --tool=callgrind --toggle-collect=strata::llvm::import
//! target/release/examples/import_ir FILE...` counts only `strata::llvm::import` (a pool of one
//! thread runs the parallel body pass inline, so every body is lowered under that call).
//! Prints each file's function and skipped-function counts. Allocates through mimalloc, as
//! the `strata` binary does.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(4);
            }
        };
        let options = strata::llvm::ImportOptions::default();
        match pool.install(|| strata::llvm::import(&text, &path, &options)) {
            Ok(imported) => println!(
                "{path}: {} functions, {} skipped",
                imported.module.functions.len(),
                imported.skipped.len()
            ),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }
}

//! Imports each `.ll` file named on the command line on one thread, for instruction counts
//! of the importer alone: `valgrind --tool=callgrind --toggle-collect=strata::llvm::import
//! target/release/examples/import_ir FILE...` counts only `strata::llvm::import` (a pool of one
//! thread runs the parallel body pass inline, so every body is lowered under that call).
//! Prints each file's function and skipped-function counts and, with `--repeat N` first, the
//! fastest of N imports in milliseconds (on a shared machine the fastest run is the one least
//! disturbed). Allocates through mimalloc, as the `strata` binary does.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 1usize;
    if args.first().map(String::as_str) == Some("--repeat") {
        repeat = match args.get(1).and_then(|n| n.parse().ok()) {
            Some(n) if n > 0 => n,
            _ => {
                eprintln!("--repeat takes a positive count");
                std::process::exit(2);
            }
        };
        args.drain(..2);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    for path in args {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(4);
            }
        };
        let options = strata::llvm::ImportOptions::default();
        let mut fastest = f64::INFINITY;
        for _ in 0..repeat {
            let start = std::time::Instant::now();
            let result = pool.install(|| strata::llvm::import(&text, &path, &options));
            fastest = fastest.min(start.elapsed().as_secs_f64() * 1e3);
            match result {
                Ok(imported) => {
                    if repeat == 1 {
                        println!(
                            "{path}: {} functions, {} skipped",
                            imported.module.functions.len(),
                            imported.skipped.len()
                        );
                    }
                }
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            }
        }
        if repeat > 1 {
            println!("{path}: fastest of {repeat} imports {fastest:.2} ms");
        }
    }
}

//! The `strata` binary: see `strata --help` and [`strata::cli`].

fn main() {
    std::process::exit(strata::cli::main());
}

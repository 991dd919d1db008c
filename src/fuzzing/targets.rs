//! The table of fuzz targets: one row per system, naming its check.
//!
//! What: [`TARGETS`] is the one list of the systems `strata fuzz SYSTEM` accepts, each with
//! the check it runs on every input and a one-line summary (for `--help` and messages). The
//! cargo-fuzz shims in `fuzz/fuzz_targets/<name>.rs` call the same checks under the same
//! names; a unit test keeps the shims, `fuzz/Cargo.toml` and `fuzz/README.md` in step with
//! this table.
//!
//! Invariants: names are unique, lowercase, and the file names of the shims.

/// One fuzz target: a system and the check that judges it on one input.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The system's name (`strata fuzz NAME`, the shim `fuzz/fuzz_targets/NAME.rs`).
    pub name: &'static str,
    /// The check: returns on inputs it accepts or cannot use, panics on a failure.
    pub check: fn(&[u8]),
    /// What the check judges, in one line.
    pub summary: &'static str,
}

/// `phi_elim`'s target: phi elimination, then the block-parameter conversion, on the same
/// bytes (as the cargo-fuzz shim runs them).
fn phi_elim(data: &[u8]) {
    super::phi_elim::check(data);
    super::phi_elim::check_block_params(data);
}

/// Every fuzz target, in pipeline order, then the whole pipeline.
pub const TARGETS: &[Target] = &[
    Target {
        name: "text",
        check: super::text::check,
        summary: ".sir print/parse round trip; the parser never panics",
    },
    Target {
        name: "llvm_import",
        check: super::llvm_import::check,
        summary: ".ll import of mutated modules never panics; accepted input verifies",
    },
    Target {
        name: "dominance",
        check: super::dominance::check,
        summary: "dominators and frontiers against brute force",
    },
    Target {
        name: "mem2reg",
        check: super::mem2reg::check,
        summary: "mem2reg: interpreter before and after, pruned phis",
    },
    Target {
        name: "phi_elim",
        check: phi_elim,
        summary: "phi elimination and block parameters: interpreter before and after",
    },
    Target {
        name: "sccp",
        check: super::sccp::check,
        summary: "SCCP: interpreter before and after, lattice invariants",
    },
    Target {
        name: "placement",
        check: super::placement::check,
        summary: "placement against the exact optimum",
    },
    Target {
        name: "machine_text",
        check: super::machine_text::check_seeded,
        summary:
            "machine-text print/parse round trip on mutated .mir; parser and verifier never panic",
    },
    Target {
        name: "lowering",
        check: super::lowering::check,
        summary: "lowering for x86-64 and aarch64: machine verifier, our allocator and checker",
    },
    Target {
        name: "liveness",
        check: super::liveness::check,
        summary: "machine liveness against a path search",
    },
    Target {
        name: "bundle_merge",
        check: super::bundle_merge::check,
        summary: "live ranges and bundles: invariants, coverage against liveness",
    },
    Target {
        name: "ion",
        check: super::ion::check,
        summary: "our allocator runs to completion with its invariants",
    },
    Target {
        name: "ion_checker",
        check: super::ion::check_with_checkers,
        summary: "our allocator's output accepted by our checker and regalloc2's",
    },
    #[cfg(feature = "regalloc2")]
    Target {
        name: "checker",
        check: super::checker::check,
        summary: "our symbolic checker against regalloc2's, on intact and corrupted allocations",
    },
    Target {
        name: "moves",
        check: super::moves::check,
        summary: "parallel move resolution by abstract interpretation",
    },
    Target {
        name: "pipeline",
        check: super::pipeline::check,
        summary: "the default pipeline: interpreter before and after",
    },
];

/// The target named `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The names of [`TARGETS`], in order.
pub fn names() -> Vec<&'static str> {
    TARGETS.iter().map(|t| t.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every target has a cargo-fuzz shim calling its check, a `[[bin]]` entry and a line
    /// in `fuzz/README.md`; there is no shim without a target.
    #[test]
    fn shims_and_readme_match_the_table() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        for t in TARGETS {
            let shim = root.join(format!("fuzz_targets/{}.rs", t.name));
            assert!(shim.exists(), "no shim {}", shim.display());
            let bin = format!(
                "name = \"{}\"\npath = \"fuzz_targets/{}.rs\"",
                t.name, t.name
            );
            assert!(manifest.contains(&bin), "fuzz/Cargo.toml lacks {}", t.name);
            assert!(
                readme.contains(&format!("`{}`", t.name)),
                "fuzz/README.md lacks {}",
                t.name
            );
        }
        for entry in std::fs::read_dir(root.join("fuzz_targets")).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            assert!(find(&stem).is_some(), "shim {stem} has no target");
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names = names();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TARGETS.len());
    }
}

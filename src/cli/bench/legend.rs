//! What the counters of `strata bench` mean: one table of every counter a pass reports
//! (`pass.name`, a one-line meaning, a unit), the counters grouped by pass for the summary,
//! and the headline results read from them.
//!
//! Invariant: [`COUNTERS`] names every counter any pass reports (a unit test runs the whole
//! pipeline on the built-in corpus and fails on a key the table lacks). Complexity: linear
//! in the counters.

use std::collections::BTreeMap;

/// Every counter a pass reports: (`pass.name` key, meaning, unit), grouped by pass in
/// pipeline order.
pub(super) const COUNTERS: &[(&str, &str, &str)] = &[
    (
        "mem2reg.allocas_seen",
        "stack slots (allocas) in the input",
        "allocas",
    ),
    (
        "mem2reg.allocas_promoted",
        "allocas turned into SSA values",
        "allocas",
    ),
    (
        "mem2reg.rejected_size",
        "not promoted: larger than the promotable size",
        "allocas",
    ),
    (
        "mem2reg.rejected_volatile",
        "not promoted: volatile alloca",
        "allocas",
    ),
    (
        "mem2reg.rejected_volatile_access",
        "not promoted: volatile load or store",
        "allocas",
    ),
    (
        "mem2reg.rejected_type_punned",
        "not promoted: read as another type",
        "allocas",
    ),
    (
        "mem2reg.rejected_escape_call",
        "not promoted: address is a call argument or callee",
        "allocas",
    ),
    (
        "mem2reg.rejected_escape_stored",
        "not promoted: address stored to memory",
        "allocas",
    ),
    (
        "mem2reg.rejected_escape_gep",
        "not promoted: address is a gep base",
        "allocas",
    ),
    (
        "mem2reg.rejected_escape_asm_input",
        "not promoted: address given to inline asm",
        "allocas",
    ),
    (
        "mem2reg.rejected_escape_terminator",
        "not promoted: address used by a terminator",
        "allocas",
    ),
    (
        "mem2reg.rejected_escape_other",
        "not promoted: other use of the address (cast, compare...)",
        "allocas",
    ),
    (
        "mem2reg.rejected_asm_memory_output",
        "not promoted: a memory asm output writes it",
        "allocas",
    ),
    (
        "mem2reg.rejected_asm_read_write",
        "not promoted: a read-write asm output reads it",
        "allocas",
    ),
    (
        "mem2reg.rejected_param_skipped",
        "not promoted: parameter alloca skipped by option",
        "allocas",
    ),
    (
        "mem2reg.rejected_param_without_store",
        "not promoted: parameter alloca with no visible store",
        "allocas",
    ),
    (
        "mem2reg.rejected_phi_cost",
        "not promoted: over the phi copy-cost limit",
        "allocas",
    ),
    (
        "mem2reg.rejected_dynamic_count",
        "not promoted: run-time element count (dyn_alloca)",
        "allocas",
    ),
    (
        "mem2reg.phis_placed",
        "phis placed at iterated dominance frontiers",
        "phis",
    ),
    (
        "mem2reg.phis_pruned",
        "phis not placed: variable not live-in",
        "phis",
    ),
    (
        "mem2reg.phis_trivial_removed",
        "placed phis removed as trivial",
        "phis",
    ),
    (
        "mem2reg.phis_redundant_scc_removed",
        "placed phis removed as a redundant cycle",
        "phis",
    ),
    (
        "mem2reg.loads_removed",
        "loads of promoted allocas removed",
        "instructions",
    ),
    (
        "mem2reg.stores_removed",
        "stores to promoted allocas removed",
        "instructions",
    ),
    (
        "mem2reg.address_slots_forwarded",
        "slots holding an address forwarded first",
        "allocas",
    ),
    (
        "sccp.instructions_folded",
        "instructions replaced by a constant",
        "instructions",
    ),
    (
        "sccp.branches_resolved",
        "conditional branches made unconditional",
        "branches",
    ),
    (
        "sccp.blocks_removed",
        "unreachable blocks removed",
        "blocks",
    ),
    (
        "sccp.phis_simplified",
        "phis replaced by their one remaining value",
        "phis",
    ),
    (
        "sccp.copies_propagated",
        "copies removed, uses reading the source",
        "instructions",
    ),
    (
        "sccp.instructions_removed",
        "instructions fewer after the rewrite",
        "instructions",
    ),
    (
        "sccp.memory_limit_fallbacks",
        "functions folded locally: lattice over its memory limit",
        "functions",
    ),
    (
        "placement.pieces",
        "pieces the blocks were cut into",
        "pieces",
    ),
    (
        "placement.islands",
        "maximal connected groups of blocks on one target",
        "islands",
    ),
    (
        "placement.cost",
        "total cost of the chosen placement",
        "cost units",
    ),
    (
        "placement.backtracks",
        "backtracks of the constraint solver",
        "backtracks",
    ),
    (
        "placement.blocks_split",
        "blocks cut where the target changes",
        "blocks",
    ),
    (
        "placement.blocks_created",
        "blocks created by the cuts",
        "blocks",
    ),
    ("placement.blocks_fused", "jump chains fused back", "blocks"),
    (
        "phi-elim.phis_eliminated",
        "phis replaced by copies",
        "phis",
    ),
    (
        "phi-elim.copies_emitted",
        "copies inserted on edges",
        "instructions",
    ),
    (
        "phi-elim.trampolines",
        "blocks added to split critical edges",
        "blocks",
    ),
    (
        "phi-elim.temporaries",
        "temporaries breaking copy cycles",
        "values",
    ),
    (
        "block-params.block_params",
        "phis turned into block parameters",
        "parameters",
    ),
    (
        "block-params.branch_args",
        "arguments added to branches",
        "arguments",
    ),
    (
        "block-params.trampolines",
        "blocks added to split critical edges",
        "blocks",
    ),
    (
        "block-params.phis_kept",
        "phis kept: an indirect_br edge enters",
        "phis",
    ),
    (
        "lower.machine_insts",
        "machine instructions after lowering",
        "instructions",
    ),
    ("lower.machine_blocks", "machine blocks", "blocks"),
    ("lower.vregs", "virtual registers", "vregs"),
    (
        "lower.operands",
        "register operands of the instructions",
        "operands",
    ),
    (
        "regalloc.edits",
        "moves, spills and reloads inserted",
        "edits",
    ),
    (
        "regalloc.remats",
        "values recomputed instead of reloaded (among the edits)",
        "remats",
    ),
    (
        "regalloc.cost_tenths",
        "loop-weighted edit cost x10 (spill 1, reload 4, move 0.2, remat 1, x 4^loop depth)",
        "tenths",
    ),
    (
        "regalloc.spill_slots",
        "stack slots for spilled values",
        "slots",
    ),
    ("regalloc.time_ns", "time inside the allocator", "ns"),
    (
        "regalloc.evictions",
        "bundles evicted from a register",
        "evictions",
    ),
    ("regalloc.splits", "bundles split at a point", "splits"),
    (
        "regalloc.second_chance",
        "second-chance allocations that found a register",
        "bundles",
    ),
    ("regalloc.spilled", "bundles left on the stack", "bundles"),
    (
        "check.functions",
        "allocations our checker (and regalloc2's, with the feature) accepted",
        "functions",
    ),
    ("check.time_ns", "time inside our checker", "ns"),
    (
        "check.regalloc2_time_ns",
        "time inside regalloc2's checker (feature regalloc2)",
        "ns",
    ),
];

/// The meaning and unit of `key`, if the table has it.
pub(super) fn describe(key: &str) -> Option<(&'static str, &'static str)> {
    COUNTERS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|&(_, meaning, unit)| (meaning, unit))
}

/// The counters of `stats` grouped by pass (in the table's order, unknown keys last):
/// one heading per pass, one line per counter with its value, unit and meaning.
pub(super) fn print_counters(out: &mut String, stats: &BTreeMap<String, u64>) {
    let mut keys: Vec<&String> = stats.keys().collect();
    let rank = |k: &str| {
        COUNTERS
            .iter()
            .position(|(c, _, _)| *c == k)
            .unwrap_or(usize::MAX)
    };
    keys.sort_by_key(|k| (rank(k), k.to_string()));
    let mut pass = "";
    for key in keys {
        let (p, name) = key.split_once('.').unwrap_or(("", key));
        if p != pass {
            pass = p;
            outln!(out, "  {p}");
        }
        let value = stats[key];
        match describe(key) {
            Some((meaning, unit)) => {
                outln!(out, "    {name:<27} {value:>10} {unit:<12} {meaning}")
            }
            None => outln!(out, "    {name:<27} {value:>10}"),
        }
    }
}

/// The headline results, from the summed counters (lines absent when their pass did not
/// run). `judged`: the functions the checker judged, when it ran.
pub(super) fn print_headline(
    out: &mut String,
    stats: &BTreeMap<String, u64>,
    judged: Option<usize>,
) {
    let get = |k: &str| stats.get(k).copied();
    let n = |k: &str| get(k).unwrap_or(0);
    if get("mem2reg.allocas_seen").is_some() {
        outln!(
            out,
            "  mem2reg     {} allocas promoted of {} seen; {} phis placed",
            n("mem2reg.allocas_promoted"),
            n("mem2reg.allocas_seen"),
            n("mem2reg.phis_placed")
        );
    }
    if stats.keys().any(|k| k.starts_with("sccp.")) {
        outln!(
            out,
            "  sccp        {} instructions folded to constants, {} branches resolved",
            n("sccp.instructions_folded"),
            n("sccp.branches_resolved")
        );
    }
    if get("placement.cost").is_some() {
        outln!(
            out,
            "  placement   cost {}, {} islands",
            n("placement.cost"),
            n("placement.islands")
        );
    }
    if let Some(insts) = get("lower.machine_insts") {
        outln!(
            out,
            "  regalloc    {:.1} edits per 100 instructions, {} spill slots",
            n("regalloc.edits") as f64 * 100.0 / insts.max(1) as f64,
            n("regalloc.spill_slots")
        );
    }
    if let Some(judged) = judged {
        outln!(
            out,
            "  check       {} of {judged} functions accepted by our checker",
            n("check.functions"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every counter the whole pipeline reports on the built-in corpus is in the table.
    #[test]
    fn every_reported_counter_has_a_meaning() {
        let mut modules = vec![crate::cli::corpus::generated(30)];
        for (name, text) in crate::cli::corpus::EXAMPLES {
            modules.push(crate::text::parse_module(text, name).expect("the examples parse"));
        }
        let passes = crate::engine::PassSet::default_pipeline();
        let mut config = crate::api::machine_config(passes, Default::default());
        config.passes |= (crate::engine::PassSet::REGALLOC | crate::engine::PassSet::CHECK)
            & crate::engine::PassSet::available();
        let mut keys: Vec<String> = Vec::new();
        for module in &modules {
            let symbols = std::sync::Arc::new(module.symbol_table());
            let runs = crate::engine::batch::map_functions_in_world(
                &module.functions,
                &symbols,
                &config,
                &|| {},
                &|_, run, _| {
                    run.stats
                        .iter()
                        .map(|s| format!("{}.{}", s.pass, s.name))
                        .collect::<Vec<_>>()
                },
            );
            keys.extend(runs.into_iter().flat_map(|r| r.expect("the pipeline runs")));
        }
        assert!(keys.iter().any(|k| k.starts_with("check.")), "{keys:?}");
        let mut missing: Vec<&String> = keys.iter().filter(|k| describe(k).is_none()).collect();
        missing.sort();
        missing.dedup();
        assert!(
            missing.is_empty(),
            "counters without a meaning: {missing:?}"
        );
    }
}

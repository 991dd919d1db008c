//! Per-function comparison of our allocator with regalloc2 0.15.2 on one LLVM module: for
//! each function, machine instructions, then ours and regalloc2's edits, loop-weighted cost
//! (spill 1, reload 4, register move 0.2, remat 1, times 4^loop depth;
//! [`strata::regalloc::output::AllocOutput::edit_costs`]), spill slots, and the edits by
//! kind (moves, spills, reloads, remats). `strata bench --compare regalloc2` gives these per
//! module only; this finds the functions that carry a module's gap.
//!
//! With a function name, it also prints, per block where the two differ, the block's loop
//! depth, its predecessor count and each allocator's edits and cost there (the blocks that
//! carry the function's gap).
//!
//! The functions are lowered by the default pipeline (as `strata bench --target`), then
//! allocated by each allocator through `regalloc::driver::allocate_machine` (regalloc2's
//! checker judges both). The pipeline's own passes after allocation (the commutative-input
//! exchange) do not run, so ours can differ slightly from the bench's numbers.
//!
//! Run: `cargo run --release --example regalloc_functions -- FILE.ll x86-64|aarch64 [FUNCTION]`,
//! then sort, e.g. by edit gap:
//! `... | awk -F' [|] ' '{split($2,o," "); split($3,r," "); print o[1]-r[1], $0}' | sort -rn`.

use strata::machine::function::MachineFunction;
use strata::machine::MachineRead;
use strata::regalloc::driver::allocate_machine;
use strata::regalloc::location::Allocation;
use strata::stage::{Allocator, Arch, PassSet};

const ALLOCATORS: [Allocator; 2] = [Allocator::Ion, Allocator::Regalloc2];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(target)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: regalloc_functions FILE.ll x86-64|aarch64 [FUNCTION]");
        std::process::exit(2);
    };
    let arch = match target.as_str() {
        "x86-64" => Arch::X86_64,
        "aarch64" => Arch::Aarch64,
        other => {
            eprintln!("error: unknown target {other} (x86-64 or aarch64)");
            std::process::exit(2);
        }
    };
    let only = args.get(3);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(4);
    });
    let imported = strata::llvm::import(&text, path, &Default::default()).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1);
    });
    let passes = PassSet::VERIFY
        | PassSet::CFG
        | PassSet::DOMINANCE
        | PassSet::MEM2REG
        | PassSet::SCCP
        | PassSet::PLACEMENT
        | PassSet::BLOCK_PARAMS;
    let config = strata::api::machine_config(passes, arch);
    println!("# function insts | ours: edits cost_tenths slots moves spills reloads remats | regalloc2: the same");
    for lowered in strata::api::lower_module(&imported.module, &config) {
        if only.is_some_and(|o| *o != lowered.name) {
            continue;
        }
        let f = match lowered.result {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{}: not lowered: {e}", lowered.name);
                continue;
            }
        };
        if only.is_some() {
            per_block(&f, &lowered.name, arch);
        }
        let mut row = format!("{} {}", lowered.name, f.num_insts());
        for allocator in ALLOCATORS {
            match allocate_machine(&f, &lowered.name, arch, allocator) {
                Ok(run) => {
                    let c = run.output.edit_costs(&f, strata::machine::PRegSet::empty());
                    row += &format!(
                        " | {} {} {} {} {} {} {}",
                        run.output.edits.len(),
                        c.cost_tenths,
                        run.output.num_spillslots,
                        c.moves,
                        c.spills,
                        c.reloads,
                        c.remats
                    );
                }
                Err(e) => row += &format!(" | error: {e}"),
            }
        }
        println!("{row}");
    }
}

/// Prints, for each block where the two allocators' edits differ, its loop depth, its
/// predecessor count, and each allocator's edit count and cost there.
fn per_block(f: &MachineFunction, name: &str, arch: Arch) {
    let depth = strata::regalloc::ranges::loop_depths(f);
    let ends: Vec<u32> = f.blocks().map(|b| f.block_insts(b).end.0).collect();
    // [ours edits, ours tenths, regalloc2 edits, regalloc2 tenths] per block.
    let mut rows = vec![[0u64; 4]; f.num_blocks()];
    for (k, allocator) in ALLOCATORS.into_iter().enumerate() {
        let run = match allocate_machine(f, name, arch, allocator) {
            Ok(run) => run,
            Err(e) => {
                eprintln!("{name}: {e}");
                return;
            }
        };
        for &(p, e) in &run.output.edits {
            let b = ends.partition_point(|&end| end <= p.inst().0);
            let stack = |a: Allocation| matches!(a, Allocation::Stack(_));
            let tenths = if e.remat.is_some() || (!stack(e.from) && stack(e.to)) {
                10
            } else if stack(e.from) {
                40
            } else {
                2
            };
            if let Some(row) = rows.get_mut(b) {
                row[2 * k] += 1;
                row[2 * k + 1] += tenths * 4u64.saturating_pow(depth[b].min(20));
            }
        }
    }
    dump_blocks(f, name, arch);
    for b in f.blocks() {
        let r = rows[b.index()];
        if r[1] != r[3] {
            println!(
                "  block{} depth {} preds {} ours {} {:.1} regalloc2 {} {:.1}",
                b.index(),
                depth[b.index()],
                f.block_preds(b).len(),
                r[0],
                r[1] as f64 / 10.0,
                r[2],
                r[3] as f64 / 10.0
            );
        }
    }
}

/// With `DUMP_BLOCKS=3,7` set, prints those blocks' instructions (operands and each
/// allocator's allocations) and edits, to see which values carry a block's gap.
fn dump_blocks(f: &MachineFunction, name: &str, arch: Arch) {
    let Ok(list) = std::env::var("DUMP_BLOCKS") else {
        return;
    };
    let runs: Vec<_> = ALLOCATORS
        .into_iter()
        .filter_map(|a| allocate_machine(f, name, arch, a).ok())
        .collect();
    for b in f.blocks() {
        if list != "all" && !list.split(',').any(|x| x.parse() == Ok(b.index())) {
            continue;
        }
        println!(
            "block{} depth {} params {:?} preds {:?} succs {:?}",
            b.index(),
            strata::regalloc::ranges::loop_depths(f)[b.index()],
            f.block_params(b),
            f.block_preds(b),
            f.block_succs(b)
        );
        let insts = f.block_insts(b);
        for i in insts.start.0..insts.end.0 {
            let ops: Vec<String> = f
                .inst_operands(strata::machine::MInst(i))
                .iter()
                .map(|o| o.to_string())
                .collect();
            println!("  i{i} {}", ops.join(" "));
            for (k, run) in runs.iter().enumerate() {
                let a: Vec<String> = run
                    .output
                    .inst_allocs(i)
                    .iter()
                    .map(|a| a.to_string())
                    .collect();
                let edits: Vec<String> = run
                    .output
                    .edits
                    .iter()
                    .filter(|(p, _)| p.inst().0 == i)
                    .map(|(p, e)| format!("{p}: {}->{} {:?}", e.from, e.to, e.remat))
                    .collect();
                println!(
                    "    {} [{}] {}",
                    if k == 0 { "ours" } else { "ra2 " },
                    a.join(" "),
                    edits.join("; ")
                );
            }
        }
    }
}

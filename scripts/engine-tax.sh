#!/usr/bin/env bash
# Engine tax (issue 9): instructions the engine spends per run of the default pipeline
# (878593b's pass list) against its systems' own work, counted by callgrind, which is
# repeatable whatever else the machine does.
#
# Usage: [PASSES=LIST] bash scripts/engine-tax.sh [INPUT] [A] [B]
#   INPUT  a .ll/.sir file or directory (default: the built-in corpus)
#   A, B   two --repeat counts (default 2 and 4); every count is (count at B - count at A)
#          / (B - A), one steady-state run: import, engine construction and the first
#          round's table growth cancel out
#   PASSES the pass list (default: 878593b's; today's default pipeline adds placement, whose
#          systems are listed below too)
#
# Prints per run: the engine work (the thread-local engine entry, per batch of functions), the
# schedule, load (`load_copies`), copy-out (`copy_out_all`) and the systems' own work (the
# inclusive cost of each system body listed below), then
#   in-schedule tax = schedule / systems   (bevy's executor, parameter fetches, conditions)
#   tax (all)       = engine / systems     (plus loading and copying the function out)
# Needs valgrind (callgrind_annotate) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
input="${1:-built-in}"
a="${2:-2}"
b="${3:-4}"
passes="${PASSES:-verify,cfg,dominance,mem2reg,sccp,phi-elim}"
cargo build --release --bin strata >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for rep in "$a" "$b"; do
    args=(bench --threads 1 --repeat "$rep" --passes "$passes")
    [[ "$input" != built-in ]] && args+=("$input")
    valgrind --tool=callgrind --callgrind-out-file="$tmp/$rep.cg" target/release/strata "${args[@]}" \
        >/dev/null 2>&1
    callgrind_annotate --inclusive=yes --threshold=100 "$tmp/$rep.cg" 2>/dev/null \
        | grep -v "=>" >"$tmp/$rep.txt"
done
python3 - "$tmp" "$a" "$b" <<'PY'
import re, sys
tmp, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
engine = "std::thread::local::LocalKey<T>::with'2"
schedule = "bevy_ecs::schedule::schedule::Schedule::run"
load = "strata::engine::world::FunctionLoader::load_copies"
copy_out = "strata::engine::world::FunctionLoader::copy_out_all"
systems = [
    "strata::verify::verify_with_scratch",
    "strata::analysis::AnalysesMut::refresh",
    "strata::ssa::systems::plan_mem2reg",
    "strata::ssa::systems::rename_allocas",
    "strata::sccp::solve_sccp",
    "strata::sccp::rewrite_sccp",
    "strata::ssa::systems::plan_phi_elim",
    "strata::ssa::systems::eliminate_phis",
    "strata::engine::world::grow_rows",
    "strata::placement::system::place_blocks",
    "strata::placement::system::apply_placement",
]
line = re.compile(r"\s*([\d,]+) \([ \d.]+%\)\s+\S*?:(.*?)(?: \[.*\])?$")
def table(rep):
    # A function inlined into several files has one row per file: its inclusive cost is
    # the largest.
    best = {}
    for text in open(f"{tmp}/{rep}.txt"):
        m = line.match(text.rstrip())
        if m:
            name, cost = m.group(2), int(m.group(1).replace(",", ""))
            best[name] = max(best.get(name, 0), cost)
    return best
ta, tb = table(a), table(b)
run = {n: (tb.get(n, 0) - ta.get(n, 0)) / (b - a) for n in [engine, schedule, load, copy_out] + systems}
own = sum(run[n] for n in systems)
for n in systems:
    print(f"  {n:45s} {run[n] / 1e6:8.2f}M")
print(f"per run: engine {run[engine] / 1e6:.2f}M, schedule {run[schedule] / 1e6:.2f}M, "
      f"load {run[load] / 1e6:.2f}M, copy-out {run[copy_out] / 1e6:.2f}M, systems {own / 1e6:.2f}M")
print(f"in-schedule tax {run[schedule] / own:.3f}x, tax (all) {run[engine] / own:.3f}x")
PY

#!/usr/bin/env bash
# Default pipeline, one thread: time per input instruction of this checkout against an older
# commit built side by side (issue 9's "at most 0.5x of main at 878593b").
#
# Usage: [PASSES=LIST] [ROUNDS=N] bash scripts/bench-vs-baseline.sh [COMMIT] [REPEAT]
#   COMMIT  the baseline (default 878593b), built from this repository's history into
#           target/baseline/<COMMIT> (its own source tree and target directory, reused)
#   REPEAT  runs per input and side (default 5); the two binaries alternate, so drift in
#           machine load hits both alike
#   ROUNDS  alternating rounds per input (default 2); each side reports its fastest round,
#           since a shared machine's load only ever adds time
#   PASSES  the pass list given to both (default: 878593b's default pipeline,
#           verify,cfg,dominance,mem2reg,sccp,phi-elim, so both sides do the same work even
#           though the default pipeline has grown since)
#
# Inputs: the built-in corpus (no path: embedded programs plus generated functions; each
# binary runs its own, and the generator has grown since 878593b: aggregate locals with
# insertvalue/extractvalue, so the two sides do not run the same functions), the baseline's
# built-in corpus written out as .sir ("built-in@base": the baseline's example programs and
# its generated functions, the same input for both sides; skipped if the baseline cannot
# build the small writer below) and each module of target/corpus/*.ll that exists (bash
# scripts/corpus.sh builds them). For each
# input and binary it runs `strata bench --threads 1 --repeat REPEAT --json ...` and reads
# `pipeline_wall_seconds` and `instructions` from the report. Prints one table row per
# input: ns per instruction for both and the ratio new/baseline.
set -euo pipefail
cd "$(dirname "$0")/.."

commit="${1:-878593b}"
passes="${PASSES:-verify,cfg,dominance,mem2reg,sccp,phi-elim}"
repeat="${2:-5}"
rounds="${ROUNDS:-2}"
base_dir="target/baseline/$commit"

if [[ ! -x "$base_dir/target/release/strata" ]]; then
    echo "== building baseline $commit in $base_dir" >&2
    rm -rf "$base_dir/src-tree"
    mkdir -p "$base_dir"
    git worktree prune
    git worktree add --detach "$base_dir/src-tree" "$commit" >&2
    (cd "$base_dir/src-tree" && CARGO_TARGET_DIR="$PWD/../target" cargo build --release --bin strata >&2)
fi
base_corpus="$base_dir/builtin"
if [[ ! -s "$base_corpus/generated.sir" ]]; then
    echo "== writing the baseline's built-in corpus to $base_corpus" >&2
    mkdir -p "$base_dir/src-tree/examples" "$base_corpus"
    cat > "$base_dir/src-tree/examples/write_builtin_corpus.rs" <<'RS'
// Prints the built-in benchmark corpus's generated functions as .sir (written by
// scripts/bench-vs-baseline.sh into the baseline's tree; same seeds as cli::corpus).
use strata::fuzzing::generate::{seeded, GenOptions};
use strata::ir::ModuleBuilder;
fn main() {
    let opts = GenOptions::default();
    let functions: Vec<_> = (0..2000u64)
        .map(|i| {
            let mut f = seeded(0x5eed_0000 + i, &opts);
            f.name = format!("generated{i}");
            f
        })
        .collect();
    let mut m = ModuleBuilder::new();
    for f in &functions {
        m.declare_function(&f.name, f.signature.clone());
    }
    for f in functions {
        m.define_function(f);
    }
    print!("{}", strata::text::print_module(&m.finish()));
}
RS
    if (cd "$base_dir/src-tree" && CARGO_TARGET_DIR="$PWD/../target" \
        cargo run --release --example write_builtin_corpus >"$PWD/../builtin/generated.sir"); then
        cp "$base_dir/src-tree/examples/sir/"*.sir "$base_corpus/"
    else
        echo "== the baseline cannot write its built-in corpus; built-in@base skipped" >&2
        rm -rf "$base_corpus"
    fi
fi
echo "== building this checkout" >&2
cargo build --release --bin strata >&2

new=target/release/strata
old="$base_dir/target/release/strata"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

inputs=("built-in")
[[ -s "$base_corpus/generated.sir" ]] && inputs+=("$base_corpus")
for f in target/corpus/*.ll; do
    [[ -e "$f" ]] && inputs+=("$f")
done

run() { # binary input json
    local args=(bench --threads 1 --repeat "$repeat" --passes "$passes" --json "$3")
    if [[ "$2" != "built-in" ]]; then
        args+=("$2")
    fi
    "$1" "${args[@]}" >/dev/null 2>&1
}

printf '%-14s %12s %12s %14s %14s %8s\n' input instructions functions "baseline ns/i" "this ns/i" ratio
for input in "${inputs[@]}"; do
    for k in $(seq 1 "$rounds"); do
        run "$old" "$input" "$tmp/old$k.json"
        run "$new" "$input" "$tmp/new$k.json"
    done
    python3 - "$input" "$tmp" "$rounds" <<'EOF'
import json, sys, os
name, tmp, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def per_inst(side):
    vals = []
    for k in range(1, rounds + 1):
        r = json.load(open(os.path.join(tmp, f"{side}{k}.json")))
        vals.append((r["pipeline_wall_seconds"] / max(r["instructions"], 1) * 1e9, r))
    best = min(vals, key=lambda v: v[0])
    return best
old, old_r = per_inst("old")
new, new_r = per_inst("new")
label = "built-in@base" if name.endswith("/builtin") else os.path.basename(name).removesuffix(".ll")
print(f"{label:<14} {new_r['instructions']:>12} {new_r['functions']:>12} {old:>14.2f} {new:>14.2f} {new / old:>7.2f}x")
if old_r["instructions"] != new_r["instructions"]:
    print(f"  note: the baseline counted {old_r['instructions']} input instructions")
EOF
done

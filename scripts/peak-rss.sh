#!/usr/bin/env bash
# Peak resident set size of strata against LLVM's `opt` on the corpus modules (issue 24 §5).
#
#   scripts/peak-rss.sh [--threads N] [--cmd compile|verify] [MODULE.ll ...]
#
# For each module prints: module, our peak RSS (MB), opt's peak RSS (MB), ratio ours/opt.
# Ours: `strata compile M.ll --passes mem2reg,sccp --emit ll -o /dev/null` (or
# `strata verify M.ll` with --cmd verify) with RAYON_NUM_THREADS=N (default 1); opt:
# `opt -passes=mem2reg,sccp -S -o /dev/null M.ll`. Peak RSS is `/usr/bin/time -v`'s
# "Maximum resident set size". Modules default to target/corpus/*.ll. STRATA names the
# binary (default target/release/strata); OPT names opt (default opt).
set -euo pipefail
cd "$(dirname "$0")/.."
threads=1
cmd=compile
while [[ $# -gt 0 ]]; do
    case "$1" in
        --threads) threads="$2"; shift 2 ;;
        --cmd) cmd="$2"; shift 2 ;;
        *) break ;;
    esac
done
strata="${STRATA:-target/release/strata}"
opt="${OPT:-opt}"
if [[ ! -x "$strata" ]]; then
    echo "peak-rss: $strata missing (cargo build --release)" >&2
    exit 2
fi
if ! command -v "$opt" >/dev/null; then
    echo "peak-rss: $opt missing (scripts/install-clang.sh)" >&2
    exit 2
fi
modules=("$@")
if [[ ${#modules[@]} -eq 0 ]]; then
    modules=(target/corpus/*.ll)
fi
# Peak RSS in KiB of the command given as arguments (its own output discarded).
peak_kib() {
    /usr/bin/time -f '%M %x' "$@" 2>&1 >/dev/null | tail -1
}
printf '%-22s %9s %9s %7s   (%s, %s thread(s))\n' module ours_MB opt_MB ratio "$cmd" "$threads"
worst=0
for m in "${modules[@]}"; do
    if [[ $cmd == verify ]]; then
        read -r ours status < <(RAYON_NUM_THREADS=$threads peak_kib "$strata" verify "$m")
    else
        read -r ours status < <(RAYON_NUM_THREADS=$threads peak_kib "$strata" compile "$m" \
            --passes mem2reg,sccp --emit ll -o /dev/null)
    fi
    if [[ $status != 0 ]]; then
        echo "peak-rss: strata $cmd $m exited $status" >&2
    fi
    read -r theirs _ < <(peak_kib "$opt" -passes=mem2reg,sccp -S -o /dev/null "$m")
    ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')
    printf '%-22s %9.1f %9.1f %7s\n' "$(basename "$m")" \
        "$(awk -v k="$ours" 'BEGIN { print k / 1024 }')" \
        "$(awk -v k="$theirs" 'BEGIN { print k / 1024 }')" "$ratio"
    worst=$(awk -v a="$ratio" -v w="$worst" 'BEGIN { print (a > w) ? a : w }')
done
echo "worst ratio: $worst"

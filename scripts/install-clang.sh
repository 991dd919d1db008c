#!/usr/bin/env bash
# Installs clang-14 and LLVM 14's `opt` and `lli` (used by tests/llvm_roundtrip.rs and
# tests/corpus_lli.rs; on Debian bookworm the unversioned `llvm` and `llvm-runtime` packages
# are LLVM 14). Idempotent: installs nothing when the tools are already on PATH.
set -euo pipefail
have() { command -v "$1" >/dev/null 2>&1; }
pkgs=()
have clang-14 || pkgs+=(clang-14)
have opt || pkgs+=(llvm)
have lli || pkgs+=(llvm-runtime)
if [ ${#pkgs[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
